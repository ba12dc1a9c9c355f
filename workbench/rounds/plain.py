"""The plain round: one spin paying lines and scatters, no features.

Everything such a game pays is computed exactly by :mod:`workbench.exact`; its
simulation exists to cross-check the simulator against the exact engine.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game
from ..pays.lines import line_arrays
from ..pays.scale import pay_scale
from ..pays.scatter import scatter_arrays
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.kernel import base_components, compile_mode, scatter_components
from ..simulate.model import RoundModel
from ..simulate.rng import weighted_index
from ..simulate.steps import base_spin

ClassicParams = namedtuple("ClassicParams", ["base", "lines", "scat", "comp_scatter", "wins", "counts", "cost_units", "bonus"])
# the (at most one) combination trigger paying a bonus award: which symbol ids show its symbol, how many reels from
# reel 1, whether every triggering line starts a bonus, the award table (cumulative weights, pay units) and the
# component it pays to (comp = -1: the game has none)
BonusParams = namedtuple("BonusParams", ["comp", "match", "reels", "per_line", "cum", "units"])


@njit(cache=True, inline="always")
def bonuses_started(ma, s, rows, wins, b):
    """Bonuses the screen starts: paylines whose first ``b.reels`` reels show the trigger symbol."""
    fired = 0
    for l in range(rows.shape[0]):
        ok = True
        for i in range(b.reels):
            if not b.match[ma.win_sym[s, i, wins[i], rows[l, i]]]:
                ok = False
                break
        if ok:
            fired += 1
            if not b.per_line:
                break
    return fired


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    s = base_spin(p.base, p.lines, p.scat, rng, p.wins, p.counts, amounts, 0, p.comp_scatter)
    b = p.bonus
    if b.comp >= 0:
        for _ in range(bonuses_started(p.base, s, p.lines.rows, p.wins, b)):
            amounts[b.comp] += b.units[weighted_index(b.cum, rng)]



@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The classic template's round: lines here; ways and scatter_pays games play their own rule's round."""
    if game.pays.rule == "ways":
        from .ways import round_model as ways_round
        return ways_round(game, stake)
    if game.pays.rule == "scatter_pays":
        from .anywhere import round_model as anywhere_round
        return anywhere_round(game, stake)
    lines = line_arrays(game)
    components = base_components(game)
    bonus = _bonus_params(game, components)
    params = ClassicParams(
        base=compile_mode(game, "base", lines),
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=scatter_components(game, components),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        cost_units=pay_scale(game).cost_units,
        bonus=bonus,
    )
    return RoundModel(game=game, components=tuple(components), counters=(), params=params, run_chunk=run_chunk, stake=stake)


def _bonus_params(game: Game, components: list) -> BonusParams:
    """The compiled bonus-award trigger (adds its component ``bonus:<name>`` to ``components``)."""
    from fractions import Fraction

    awarding = [(name, t) for name, t in game.triggers.items() if t.award is not None]
    if not awarding:
        return BonusParams(-1, np.zeros(1, dtype=np.bool_), 0, False, np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    (name, trig), = awarding  # validation allows one
    components.append(f"bonus:{name}")
    match = np.zeros(len(game.symbols), dtype=np.bool_)
    for sym in game.symbols.values():
        match[sym.index] = sym.name == trig.combination or (sym.kind == "wild" and trig.combination in sym.substitutes)
    table = game.tables[trig.award]
    scale = pay_scale(game)
    units = np.array([scale.units(game.bet.credits(Fraction(str(e["value"])), trig.award_unit)) for e in table.entries],
                     dtype=np.int64)
    return BonusParams(len(components) - 1, match, trig.min_count, trig.per_line,
                       np.cumsum(np.asarray(table.weights, dtype=np.int64)), units)
