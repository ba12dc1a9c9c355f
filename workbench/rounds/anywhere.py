"""The scatter-pays round: one spin of a ``[pays] rule = "scatter_pays"`` game, no features.

Rule: for each paying symbol ``x`` (a paytable entry with some pay above 0),
its count is the number of visible positions showing ``x`` on the whole
screen (each visible cell showing ``x`` counts as one); it pays
``pay_for_count(paytable[x], count)`` x the line pay unit, every paying
symbol independently (no wilds, no groups).  Scatter groups add their pays
as in every rule.  Components: ``scatter_pays`` (the symbols' pays) and
``scatter:<name>`` per paying scatter group (and ``bonus:<name>``: a trigger with a bonus
``award``, at most one per game, pays one draw of its award table on a spin that fires it);
all of it is computed exactly by
:func:`workbench.exact.anywhere.analyse_scatter_pays`, so the simulation
cross-checks the two.

Per spin: the base strip set is chosen by weight, each reel draws a stop by
its stop weights (a virtual reel: one draw per reel), and the stop's window
adds its precomputed counts: the counts of all paying symbols packed in a few
64-bit words (one addition per reel and word), each paying group's count
folded in with :func:`~workbench.pays.scatter.update_code`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..model import Game
from ..pays.anywhere import paying_ids, screen_cells, symbol_pay_units, window_symbol_counts
from ..pays.scale import pay_scale
from ..pays.scatter import code_count, scatter_pay_tables, update_code
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.model import RoundModel, bonus_reporting
from ..simulate.rng import bounded, weighted_index
from .windows import base_windows, played_sets
from .wheels import award_draw
from .ways import AwardParams, award_trigger, no_award, pay_award, trigger_window_values

AnywhereParams = namedtuple("AnywhereParams", [
    "set_cum",  # int64[n_sets] cumulative choice weights of the base strip sets
    "total_weight",  # int64[n_sets, n_reels] virtual stops per reel (sum of stop weights)
    "vwin",  # int32[n_sets, n_reels, max_total] window of each virtual stop
    "packed",  # int64[n_sets, n_reels, max_windows, n_words] paying-symbol counts, ``bits`` bits each
    "bits",  # int64: bits per packed count
    "per_word",  # int64: counts per packed word
    "pays",  # int64[n_paying, cells + 1] pay units by count
    "grp",  # int64[n_sets, n_reels, max_windows, n_groups] visible instances of each paying scatter group
    "gmode",  # int64[n_groups] ANYWHERE / ADJACENT
    "gcap",  # int64[n_groups] counts above the cap pay like the cap
    "gpays",  # int64[n_groups, max cap + 1] pay units by count
    "words",  # int64[n_words] scratch: the spin's packed counts
    "codes",  # int64[n_groups] scratch: the spin's group count codes
    "cost_units",
    "bonus",  # rounds.ways.AwardParams of the bonus-award trigger (comp = -1: none); ``value[set, reel, window]``
])



@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    cum = p.set_cum
    s = 0 if cum.shape[0] == 1 else weighted_index(cum, rng)
    words = p.words
    codes = p.codes
    packed = p.packed
    grp = p.grp
    gmode = p.gmode
    gcap = p.gcap
    vwin = p.vwin
    total = p.total_weight
    n_words = words.shape[0]
    n_groups = codes.shape[0]
    for k in range(n_words):
        words[k] = 0
    for g in range(n_groups):
        codes[g] = 0
    b = p.bonus
    code = 0
    for r in range(vwin.shape[1]):
        w = vwin[s, r, bounded(rng, total[s, r])]
        for k in range(n_words):
            words[k] += packed[s, r, w, k]
        for g in range(n_groups):
            codes[g] = update_code(gmode[g], gcap[g], codes[g], grp[s, r, w, g])
        if b.comp >= 0:
            code = update_code(b.mode, b.cap, code, b.value[s, r, w])
    pays = p.pays
    bits = p.bits
    per_word = p.per_word
    mask = (np.int64(1) << bits) - 1
    win = 0
    for j in range(pays.shape[0]):
        c = (words[j // per_word] >> (bits * (j % per_word))) & mask
        win += pays[j, c]
    amounts[0] += win
    gpays = p.gpays
    for g in range(n_groups):
        amounts[1 + g] += gpays[g, code_count(gmode[g], codes[g])]
    pay_award(b, code, rng, amounts, counters)


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def components(game: Game) -> list:
    """``scatter_pays``, one ``scatter:<name>`` per paying scatter group, then ``bonus:<name>`` for the
    trigger paying a bonus award (if any)."""
    out = [game.pays.rule] + [f"scatter:{n}" for n, g in game.scatters.items() if any(p > 0 for p in g.pays.values())]
    trigger = award_trigger(game)
    return out + ([f"bonus:{trigger.name}"] if trigger is not None else [])


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    if game.rule.counts != "cells":  # a rule that pays counts of a symbol anywhere (model.rules)
        raise SimulationError(f"{game.name}: the scatter-pays round needs a rule that pays counts anywhere, not "
                              f"{game.pays.rule!r}")
    sets = played_sets(game)
    scale = pay_scale(game)
    tables = scatter_pay_tables(game, scale)
    ids = paying_ids(game)
    cells = screen_cells(game)
    bits = max(1, cells.bit_length())
    per_word = 63 // bits
    n_words = -(-len(ids) // per_word)
    base = base_windows(game, sets, tables)
    windows = base.windows
    packed = np.zeros((len(sets), game.reels, base.max_windows, n_words), dtype=np.int64)
    for k, wins in enumerate(windows):
        for i, win in enumerate(wins):
            counts = window_symbol_counts(win.symbols, ids)
            for j in range(len(ids)):
                packed[k, i, : len(win.weights), j // per_word] += counts[:, j] << (bits * (j % per_word))
    comps = components(game)
    bonus = no_award(3)
    trigger = award_trigger(game)
    if trigger is not None:
        value = np.zeros((len(sets), game.reels, base.max_windows), dtype=np.int16)
        mode = 0
        for k, wins in enumerate(windows):
            for i, win in enumerate(wins):
                mode, per_window = trigger_window_values(game, trigger, win)
                if per_window.max(initial=0) > np.iinfo(np.int16).max:
                    raise SimulationError(f"{game.name}: a reel shows more than {np.iinfo(np.int16).max} scatter instances")
                value[k, i, : len(per_window)] = per_window
        bonus = AwardParams(comp=np.int64(len(comps) - 1), mode=np.int64(mode), cap=np.int64(trigger.min_count),
                            value=value, award=award_draw(game, trigger))
    params = AnywhereParams(
        set_cum=base.set_cum,
        total_weight=base.total_weight,
        vwin=base.vwin,
        packed=packed,
        bits=np.int64(bits),
        per_word=np.int64(per_word),
        pays=symbol_pay_units(game, scale),
        grp=base.grp,
        gmode=tables.mode.astype(np.int64),
        gcap=tables.cap.astype(np.int64),
        gpays=np.ascontiguousarray(tables.pays, dtype=np.int64),
        words=np.zeros(n_words, dtype=np.int64),
        codes=np.zeros(len(tables.index), dtype=np.int64),
        cost_units=scale.cost_units,
        bonus=bonus,
    )
    return RoundModel(game=game, components=tuple(comps), **bonus_reporting(game), params=params, run_chunk=run_chunk,
                      stake=stake)
