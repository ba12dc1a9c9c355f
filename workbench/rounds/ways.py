"""The ways round: one spin paying ways (adjacent reels from reel 1, any row) and scatters.

Per spin: the strip set of mode ``base`` is chosen by weight; each reel draws its height by
the ``[grid] heights`` weights (reels of fixed height skip the draw) and a stop by its stop
weights, which is looked up as the reel's *outcome* (merged windows, see
:mod:`workbench.exact.ways`); the screen is paid by :func:`workbench.pays.ways.ways_pay`
(component ``ways``) and every paying scatter group by its count (``scatter:<name>``).  A trigger
with a bonus ``award`` (at most one per game: a scatter trigger, or a combination trigger whose
first ``min_count`` reels each show the symbol) pays one draw of its award table on a spin that
fires it (component ``bonus:<name>``, after the others).
Everything it pays is computed exactly by :func:`workbench.exact.ways.analyse_ways`; its
simulation cross-checks the two.

Wilds whose multiplier is drawn from a table per landing (:mod:`workbench.exact.variants`) play
:func:`play_round_tables` (games without them keep :func:`play_round` unchanged): the outcomes
are those of the variant game's expanded windows, where the windows one stop can show (one per
assignment of multipliers to its table-wild cells) are a block; a stop showing no table wild has
its outcome in ``vtab`` as before, one showing some has ``-(first window of its block + 1)``
there, and every table-wild cell of that window draws its multiplier (``weighted_index``), which
picks the window of the block (the first cell the most significant digit) and so its outcome.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..exact.enumerate import PAY_UNITS_MAX
from ..exact.ways_max import spin_bound
from ..exact.ways_outcomes import outcome_tables, ways_game, ways_outcomes
from ..model import Game
from ..pays.scale import pay_scale
from ..pays.scatter import ADJACENT, ANYWHERE, code_count, scatter_pay_tables, update_code
from ..pays.ways import ways_group_pay, ways_pay, ways_targets
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.kernel import TABLE_BYTES_MAX, VIRTUAL_STOPS_MAX
from ..simulate.model import BONUS_COUNTER, RoundModel, bonus_reporting
from ..simulate.rng import bounded, weighted_index
from ..simulate.steps.wheels import draw_award, plain_award
from .wheels import award_draw

WaysParams = namedtuple(
    "WaysParams",
    [
        "tab",  # pays.ways.WaysTables of the base strip sets (weight > 0)
        "set_cum",  # int64[n_sets] cumulative strip-set weights
        "n_heights",  # int64[n_sets, n_reels] heights a reel can show (1: fixed)
        "height_cum",  # int64[n_sets, n_reels, max_heights] cumulative height weights
        "total",  # int64[n_sets, n_reels] virtual stops (strip total weight)
        "vtab",  # int32[n_sets, n_reels, max_heights, max_total] outcome of (height, virtual stop)
        "outs",  # int64[n_reels] scratch: this spin's outcome per reel
        "comp_group",  # int64[n_paying_groups] component of each paying scatter group
        "cost_units",
        "bonus",  # AwardParams: the bonus-award trigger (comp = -1: none)
    ],
)
# The (at most one) trigger paying a bonus award: its running count (``update_code`` codes, ``mode`` ANYWHERE /
# ADJACENT, capped at ``cap`` = min_count; it fires at ``cap``), what each (strip set, reel, height, virtual stop)
# adds to it (``value``: the scatter group's visible instances, or 1 when the reel shows a combination trigger's
# symbol), ``award``: its draw (``simulate.steps.wheels.AwardDraw``: a table or a wheel, pay units) and the component
# it pays to.
AwardParams = namedtuple("AwardParams", ["comp", "mode", "cap", "value", "award"])
# Table wilds: ``xout[s, i, x]`` outcome of expanded window x of reel i; ``xcell[s, i, x, r]`` the table wild cell r of
# the first window x of a block shows (-1: none), ``radix[t]`` its multipliers, drawn with ``cum[t]`` (padded).
TableWildOutcomes = namedtuple("TableWildOutcomes", ["xout", "xcell", "radix", "cum"])
WaysTableParams = namedtuple("WaysTableParams", WaysParams._fields + ("tw",))


def award_trigger(game: Game):
    """The game's trigger paying a bonus award, or None (validation allows one)."""
    awarding = [t for t in game.triggers.values() if t.award is not None]
    if not awarding:
        return None
    if len(awarding) > 1:
        raise SimulationError(f"{game.name}: {len(awarding)} triggers pay a bonus award; the round plays one")
    return awarding[0]


def trigger_window_values(game: Game, trigger, windows) -> tuple[int, np.ndarray]:
    """(count mode, per window what it adds to the trigger's count) of one reel's ``windows``
    (:class:`~workbench.exact.windows.ReelWindows`): a scatter trigger's group instances, or
    whether the window shows a combination trigger's symbol (or a wild substituting for it)."""
    if trigger.scatter is not None:
        g = list(game.scatters).index(trigger.scatter)
        mode = ADJACENT if game.scatters[trigger.scatter].counting == "adjacent_from_first_reel" else ANYWHERE
        return mode, np.asarray(windows.counts[:, g], dtype=np.int64)
    match = np.zeros(len(game.symbols), dtype=bool)
    for sym in game.symbols.values():
        match[sym.index] = sym.name == trigger.combination or (sym.kind == "wild" and trigger.combination in sym.substitutes)
    shows = (match[windows.symbols] & (windows.symbols >= 0)).any(axis=1)
    return ADJACENT, shows.astype(np.int64)


def no_award(dims: int) -> AwardParams:
    """The AwardParams of a game without a bonus award (``value`` of ``dims`` dimensions)."""
    return AwardParams(comp=np.int64(-1), mode=np.int64(ANYWHERE), cap=np.int64(1), value=np.zeros((1,) * dims, dtype=np.int16),
                       award=plain_award(np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64)))


@njit(cache=True, inline="always")
def draw_height(p, s, i, rng):
    """The height index reel ``i`` of strip set ``s`` shows this spin (drawn from its weighted table)."""
    h = 0
    nh = p.n_heights[s, i]
    if nh > 1:
        u = bounded(rng, p.height_cum[s, i, nh - 1])
        while p.height_cum[s, i, h] <= u:
            h += 1
    return h


@njit(cache=True, inline="always")
def pay_award(b, code, rng, amounts, counters):
    """Pay one award draw when the bonus-award trigger's count ``code`` reached its minimum (counted in ``counters[BONUS_COUNTER]``)."""
    if b.comp >= 0 and code_count(b.mode, code) >= b.cap:
        amounts[b.comp] += draw_award(b.award, rng)
        counters[BONUS_COUNTER] += 1


@njit(cache=True, inline="always")
def pay_outcomes(p, s, outs, amounts):
    """The ways (component 0) and each paying scatter group of the screen of outcomes ``outs``."""
    amounts[0] += ways_pay(p.tab, s, outs)
    for g in range(p.comp_group.shape[0]):
        amounts[p.comp_group[g]] += ways_group_pay(p.tab, s, outs, g)


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    s = 0 if p.set_cum.shape[0] == 1 else weighted_index(p.set_cum, rng)
    outs = p.outs
    b = p.bonus
    code = 0
    for i in range(outs.shape[0]):
        h = draw_height(p, s, i, rng)
        v = bounded(rng, p.total[s, i])
        outs[i] = p.vtab[s, i, h, v]
        if b.comp >= 0:
            code = update_code(b.mode, b.cap, code, b.value[s, i, h, v])
    pay_outcomes(p, s, outs, amounts)
    pay_award(b, code, rng, amounts, counters)


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


@njit(cache=True, inline="always")
def drawn_outcome(tw, s, i, o, rng):
    """The outcome of a stop showing table wilds (``o`` < 0 in ``vtab``: a block of expanded outcomes): one
    multiplier draw per table-wild cell picks one."""
    x = -o - 1
    idx = 0
    for r in range(tw.xcell.shape[3]):
        t = tw.xcell[s, i, x, r]
        if t >= 0:
            idx = idx * tw.radix[t] + weighted_index(tw.cum[t], rng)
    return tw.xout[s, i, x + idx]


@njit(cache=True, inline="always")
def play_round_tables(p, rng, amounts, adjust, counters, stratum):
    """:func:`play_round` of a game with table wilds: each visible table-wild cell draws its multiplier."""
    s = 0 if p.set_cum.shape[0] == 1 else weighted_index(p.set_cum, rng)
    outs = p.outs
    tw = p.tw
    b = p.bonus
    code = 0
    for i in range(outs.shape[0]):
        h = draw_height(p, s, i, rng)
        v = bounded(rng, p.total[s, i])
        o = p.vtab[s, i, h, v]
        if o < 0:
            o = drawn_outcome(tw, s, i, o, rng)
        outs[i] = o
        if b.comp >= 0:
            code = update_code(b.mode, b.cap, code, b.value[s, i, h, v])
    pay_outcomes(p, s, outs, amounts)
    pay_award(b, code, rng, amounts, counters)


@njit(cache=True, _nrt=False)
def run_chunk_tables(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_tables(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The simulator's model of a ways game (components ``ways`` and ``scatter:<name>`` per paying group)."""
    sets = base_sets(game)
    trigger = award_trigger(game)
    fields, outcomes = ways_fields(game, sets, counted=trigger is not None)
    components = [game.pays.rule] + [f"scatter:{name}" for name in scatter_group_names(game)]
    bonus = no_award(4)
    if trigger is not None:
        components.append(f"bonus:{trigger.name}")
        mode, value = trigger_values(game, trigger, sets, outcomes, fields["vtab"].shape)
        bonus = AwardParams(comp=np.int64(len(components) - 1), mode=np.int64(mode), cap=np.int64(trigger.min_count),
                            value=value, award=award_draw(game, trigger))
    from ..exact.variants import has_table_wilds

    if has_table_wilds(game):
        params = WaysTableParams(**fields, bonus=bonus, tw=table_wild_outcomes(game, sets, outcomes, fields["vtab"]))
        return RoundModel(game=game, components=tuple(components), **bonus_reporting(game), params=params,
                          run_chunk=run_chunk_tables, stake=stake)
    params = WaysParams(**fields, bonus=bonus)
    return RoundModel(game=game, components=tuple(components), **bonus_reporting(game), params=params, run_chunk=run_chunk,
                      stake=stake)


def base_sets(game: Game, mode: str = "base") -> list:
    """The strip sets of ``mode`` a ways round plays (weight > 0); checks the game pays ways."""
    if not game.rule.heights:  # a rule paying ways on reels of any (drawn) height (model.rules)
        raise SimulationError(f"{game.name}: the ways round plays [pays] rule = \"ways\" games (this one pays {game.pays.rule})")
    sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
    if not sets:
        raise SimulationError(f"{game.name}: no strip set has mode {mode!r}")
    return sets


def scatter_group_names(game: Game) -> list:
    """The paying scatter groups in the order of the ways round's ``comp_group`` (after component 0, ``ways``)."""
    tables = scatter_pay_tables(game, pay_scale(game))
    return [list(game.scatters)[int(g)] for g in tables.index]


def ways_fields(game: Game, sets: list, counted: bool = False) -> tuple[dict, list]:
    """The :data:`WaysParams` fields of strip sets ``sets`` but ``bonus`` (and their outcomes per set and reel);
    ``counted``: a trigger's count is tracked too (its int16 values count in the table budget)."""
    scale = pay_scale(game)
    targets = ways_targets(ways_game(game), scale)  # table wilds: the variant game's (exact.variants)
    tables = scatter_pay_tables(game, scale)
    n = game.reels
    max_total = max(strip.total_weight for s in sets for strip in s.reels)
    if max_total > VIRTUAL_STOPS_MAX:
        raise SimulationError(f"{game.name}: stop weights add up to {max_total:,} on one reel; the simulator expands "
                              f"weights into virtual reels of at most {VIRTUAL_STOPS_MAX:,} stops")
    outcomes = [ways_outcomes(game, s, targets, tables) for s in sets]
    max_h = max(len(r.heights) for reels in outcomes for r in reels)
    size = len(sets) * n * max_h * max_total * (6 if counted else 4)  # int32 outcomes (+ int16 trigger values)
    if size > TABLE_BYTES_MAX:
        raise SimulationError(f"{game.name}: the ways round's outcome tables need {size:,} bytes, over the budget of "
                              f"{TABLE_BYTES_MAX:,}")
    top = max(spin_bound(targets, tables, reels) for reels in outcomes)
    if top >= PAY_UNITS_MAX:
        raise SimulationError(f"{game.name}: a spin could pay up to {top:,} pay units, over the limit of {PAY_UNITS_MAX:,}")
    n_heights = np.zeros((len(sets), n), dtype=np.int64)
    height_cum = np.zeros((len(sets), n, max_h), dtype=np.int64)
    total = np.zeros((len(sets), n), dtype=np.int64)
    vtab = np.zeros((len(sets), n, max_h, max_total), dtype=np.int32)
    for k, (strip_set, reels) in enumerate(zip(sets, outcomes)):
        for i, (strip, reel) in enumerate(zip(strip_set.reels, reels)):
            n_heights[k, i] = len(reel.heights)
            height_cum[k, i, : len(reel.heights)] = np.cumsum([w for _, w in reel.heights])
            total[k, i] = strip.total_weight
            stops = np.repeat(np.arange(len(strip), dtype=np.int64), strip.stop_weights)
            for h in range(len(reel.heights)):
                window = reel.windows.stop_window[h * len(strip) + stops]
                vtab[k, i, h, : len(stops)] = reel.outcome[window]
    fields = dict(
        tab=outcome_tables(targets, tables, outcomes),
        set_cum=np.cumsum([s.weight for s in sets]).astype(np.int64),
        n_heights=n_heights,
        height_cum=height_cum,
        total=total,
        vtab=vtab,
        outs=np.zeros(n, dtype=np.int64),
        comp_group=np.arange(1, 1 + len(tables.index), dtype=np.int64),
        cost_units=scale.cost_units,
    )
    return fields, outcomes


def trigger_values(game: Game, trigger, sets: list, outcomes: list, shape: tuple) -> tuple[int, np.ndarray]:
    """(count mode, int16 ``value[set, reel, height, virtual stop]``): what each reel adds to ``trigger``'s count."""
    value = np.zeros(shape, dtype=np.int16)
    mode = ANYWHERE
    for k, (strip_set, reels) in enumerate(zip(sets, outcomes)):
        for i, (strip, reel) in enumerate(zip(strip_set.reels, reels)):
            mode, per_window = trigger_window_values(ways_game(game), trigger, reel.windows)
            if per_window.max(initial=0) > np.iinfo(np.int16).max:
                raise SimulationError(f"{game.name}: a reel shows more than {np.iinfo(np.int16).max} scatter instances")
            stops = np.repeat(np.arange(len(strip), dtype=np.int64), strip.stop_weights)
            for h in range(len(reel.heights)):
                value[k, i, h, : len(stops)] = per_window[reel.windows.stop_window[h * len(strip) + stops]]
    return mode, value


def no_table_wilds() -> TableWildOutcomes:
    """The draws of strip sets without table wilds: never read (``vtab`` has no negative outcome)."""
    return TableWildOutcomes(np.zeros((1, 1, 1), dtype=np.int32), np.full((1, 1, 1, 1), -1, dtype=np.int64),
                             np.ones(1, dtype=np.int64), np.ones((1, 1), dtype=np.int64))


def table_wild_outcomes(game: Game, sets: list, outcomes: list, vtab: np.ndarray) -> TableWildOutcomes:
    """The draws of a game with table wilds (see the module docstring); marks the stops of ``vtab`` that draw."""
    from ..exact.variants import table_wild_plan

    plan = table_wild_plan(game)
    variant = ways_game(game)
    first = np.full(len(variant.symbols) + 1, -1, dtype=np.int64)  # a table's first variant -> the table (-1 pad: none)
    for t, tw in enumerate(plan):
        first[tw.ids[0]] = t
    width = max(tw.n_variants for tw in plan)
    radix = np.array([tw.n_variants for tw in plan], dtype=np.int64)
    cum = np.zeros((len(plan), width), dtype=np.int64)
    for t, tw in enumerate(plan):
        cum[t] = tw.total
        cum[t, : tw.n_variants] = np.cumsum(tw.weights)
    n_win = max(len(r.windows.weights) for reels in outcomes for r in reels)
    rows = max(game.rows)
    xout = np.zeros((len(sets), game.reels, n_win), dtype=np.int32)
    xcell = np.full((len(sets), game.reels, n_win, rows), -1, dtype=np.int64)
    for k, (strip_set, reels) in enumerate(zip(sets, outcomes)):
        for i, (strip, reel) in enumerate(zip(strip_set.reels, reels)):
            w = reel.windows
            xout[k, i, : len(w.weights)] = reel.outcome
            cells = first[w.symbols]  # -1 cells (hidden rows of a short reel) read the pad
            xcell[k, i, : len(w.weights), : cells.shape[1]] = cells
            stops = np.repeat(np.arange(len(strip), dtype=np.int64), strip.stop_weights)
            draws = (cells >= 0).any(axis=1)
            for h in range(len(reel.heights)):
                x = w.stop_window[h * len(strip) + stops]
                vtab[k, i, h, : len(stops)] = np.where(draws[x], -(x + 1), vtab[k, i, h, : len(stops)])
    return TableWildOutcomes(xout, xcell, radix, cum)
