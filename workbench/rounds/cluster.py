"""The cluster-pays round: one spin of a ``[pays] rule = "cluster"`` game, no features, no tumbles.

Rule (:mod:`workbench.pays.cluster`): every cluster of orthogonally adjacent cells showing a paying
symbol or a wild pays the entry of the largest listed size not above its size, x the line pay
unit; every cluster pays on its own.  Scatter groups add their pays as in every rule.
Components: ``cluster`` (the clusters' pays) and ``scatter:<name>`` per paying scatter group; all
of it is computed exactly by :func:`workbench.exact.cluster.analyse_cluster`, so the simulation
cross-checks the two.  (Bonus award tables are refused by validation in cluster games.)

Per spin: the base strip set is chosen by weight, each reel draws a stop by its stop weights (a
virtual reel: one draw per reel), the stop's window is copied into the screen and its paying
scatter-group counts folded in with :func:`~workbench.pays.scatter.update_code`; the screen is
paid by :func:`~workbench.pays.cluster.cluster_pay_screen`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..model import Game
from ..pays.cluster import cluster_arrays, cluster_pay_screen, screen_masks
from ..pays.scale import pay_scale
from ..pays.scatter import code_count, scatter_pay_tables, update_code
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.model import RoundModel, bonus_reporting
from ..simulate.rng import bounded, weighted_index
from .windows import base_windows, played_sets

ClusterParams = namedtuple("ClusterParams", [
    "set_cum",  # int64[n_sets] cumulative choice weights of the base strip sets
    "total_weight",  # int64[n_sets, n_reels] virtual stops per reel (sum of stop weights)
    "vwin",  # int32[n_sets, n_reels, max_total] window of each virtual stop
    "wsym",  # int64[n_sets, n_reels, max_windows, n_rows] symbol indices of each window, top row first
    "pays",  # int64[n_symbols, max_size + 1] pay units by cluster size (pays.cluster.cluster_pay_units)
    "is_wild",  # bool[n_symbols]
    "grp",  # int64[n_sets, n_reels, max_windows, n_groups] visible instances of each paying scatter group
    "gmode",  # int64[n_groups] ANYWHERE / ADJACENT
    "gcap",  # int64[n_groups] counts above the cap pay like the cap
    "gpays",  # int64[n_groups, max cap + 1] pay units by count
    "screen",  # int64[n_reels, n_rows] scratch: the spin's screen
    "remove",  # bool[n_reels, n_rows] scratch: cells of paying clusters (unused by this round)
    "boards",  # uint64[n_symbols] scratch: one bitboard per symbol
    "no_cells",  # int64[0, 0]: no position multipliers (pays.cluster.cluster_pay_screen's cell_mult, cell_wins)
    "codes",  # int64[n_groups] scratch: the spin's group count codes
    "cost_units",
])



@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    cum = p.set_cum
    s = 0 if cum.shape[0] == 1 else weighted_index(cum, rng)
    screen = p.screen
    codes = p.codes
    grp = p.grp
    gmode = p.gmode
    gcap = p.gcap
    vwin = p.vwin
    wsym = p.wsym
    total = p.total_weight
    n_rows = screen.shape[1]
    n_groups = codes.shape[0]
    for g in range(n_groups):
        codes[g] = 0
    for r in range(vwin.shape[1]):
        w = vwin[s, r, bounded(rng, total[s, r])]
        for k in range(n_rows):
            screen[r, k] = wsym[s, r, w, k]
        for g in range(n_groups):
            codes[g] = update_code(gmode[g], gcap[g], codes[g], grp[s, r, w, g])
    amounts[0] += cluster_pay_screen(screen, p.pays, p.is_wild, p.remove, p.boards, p.no_cells, p.no_cells)
    gpays = p.gpays
    for g in range(n_groups):
        amounts[1 + g] += gpays[g, code_count(gmode[g], codes[g])]


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def components(game: Game) -> list:
    """``cluster``, then one ``scatter:<name>`` per paying scatter group."""
    return [game.pays.rule] + [f"scatter:{n}" for n, g in game.scatters.items() if any(p > 0 for p in g.pays.values())]


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The compiled round of a cluster game (see the module docstring); amounts in pay units."""
    if game.rule.counts != "cluster":  # a rule that pays clusters (model.rules)
        raise SimulationError(f"{game.name}: the cluster round needs a rule that pays clusters, not {game.pays.rule!r}")
    if any(t.award is not None for t in game.triggers.values()):
        raise SimulationError(f"{game.name}: bonus award tables are not played in cluster games")
    sets = played_sets(game)
    rows = game.rows[0]
    if any(r != rows for r in game.rows):
        raise SimulationError(f"{game.name}: a cluster game needs the same rows on every reel")
    try:
        screen_masks(game.reels, rows)
    except ValueError as e:
        raise SimulationError(f"{game.name}: {e}") from None
    scale = pay_scale(game)
    tables = scatter_pay_tables(game, scale)
    arrays = cluster_arrays(game, scale)
    n_reels = game.reels
    base = base_windows(game, sets, tables)
    wsym = np.full((len(sets), n_reels, base.max_windows, rows), -1, dtype=np.int64)
    for k, wins in enumerate(base.windows):
        for i, win in enumerate(wins):
            wsym[k, i, : len(win.weights)] = win.symbols
    params = ClusterParams(
        set_cum=base.set_cum,
        total_weight=base.total_weight,
        vwin=base.vwin,
        wsym=wsym,
        pays=arrays.pays,
        is_wild=arrays.is_wild,
        grp=base.grp,
        gmode=tables.mode.astype(np.int64),
        gcap=tables.cap.astype(np.int64),
        gpays=np.ascontiguousarray(tables.pays, dtype=np.int64),
        screen=np.zeros((n_reels, rows), dtype=np.int64),
        remove=np.zeros((n_reels, rows), dtype=np.bool_),
        boards=np.zeros(len(game.symbols), dtype=np.uint64),
        no_cells=np.zeros((0, 0), dtype=np.int64),
        codes=np.zeros(len(tables.index), dtype=np.int64),
        cost_units=scale.cost_units,
    )
    return RoundModel(game=game, components=tuple(components(game)), **bonus_reporting(game), params=params,
                      run_chunk=run_chunk, stake=stake)
