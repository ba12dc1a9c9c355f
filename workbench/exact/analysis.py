"""The exact analysis of one strip set: line hit counts, spin moments, scatter counts and triggers, under the
budgets that keep it quick."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ExactBudgetError, WorkbenchError
from ..model import Game, StripSet
from ..pays.lines import LineAutomaton, combination_counts, line_automaton, line_state_counts
from ..pays.scale import PayScale, pay_scale
from ..pays.scatter import scatter_pay_tables
from .enumerate import DEFAULT_BUDGET, MAX_SEARCH_NODES, check_pay_units, cycle_histogram, full_cycle_refusal, max_future_gain
from .moments import MomentPlan, SpinMoments, check_moment_budget, spin_moments
from .pair_products import symbol_classes
from .scatters import scatter_counts
from .windows import ReelWindows, row_symbol_weights, strip_set_windows

# Exact line hit counts: per reel and distinct line reading, each live automaton state moves along one step per
# symbol (states x symbols); object (Python int) steps, when the cycle leaves 64 bits, count this much more.
LINE_COUNT_WORK_MAX = 2_000_000_000
OBJECT_STEP_COST = 50
SCATTER_COUNT_WORK_MAX = 50_000_000  # products of count distributions convolved in plain Python, all groups


@dataclass(frozen=True)
class StripSetAnalysis:
    """Exact results for one strip set (all integer counts over its own cycle)."""

    strip_set: StripSet
    cycle: int
    line_hits: np.ndarray  # (lines, combinations) ints: hits of each combination on each line
    line_moments: np.ndarray  # (lines, 3): sum of hits, pay units, pay units^2 (Python ints)
    scatters: dict  # group name -> ScatterCounts
    moments: SpinMoments
    histogram: np.ndarray | None  # full-cycle spin win histogram (pay units), if computed
    cycle_note: str | None = None  # why the full cycle was not enumerated (None when it was, or was not asked for)
    combo_units: np.ndarray | None = None  # (1, combinations) pay units each combination paid (ways, scatter_pays)
    trigger_counts: dict | None = None  # combination trigger name -> TriggerCounts
    base_moments: SpinMoments | None = None  # the screen's pays alone, when ``moments`` also holds bonus awards


@dataclass(frozen=True)
class RuleCombinations:
    """The paying combinations of a ways or scatter_pays game (the line automaton's place in a sheet)."""

    combinations: tuple


def _line_keys(game: Game, strip_set: StripSet) -> list[tuple]:
    """Distinct line readings: rows of weighted reels matter, unweighted reels read any row alike."""
    weighted = [strip.weights is not None for strip in strip_set.reels]
    return list(dict.fromkeys(tuple(r if weighted[i] else 0 for i, r in enumerate(rows)) for rows in game.paylines))


def check_strip_set_budget(game: Game, strip_set: StripSet, windows: list[ReelWindows], automaton: LineAutomaton,
                           scale: PayScale) -> MomentPlan:
    """Sizes of the exact analysis of ``strip_set``, before any of the work.

    Raises :class:`~workbench.errors.ExactBudgetError` naming what is too large
    (line hit counts, scatter counts, whole-spin moments, 64-bit pay sums), its
    size and the limit; returns the plan of the whole-spin moments.
    """
    from .variants import ExpandedStripSet, expanded_strip_set, has_table_wilds

    if has_table_wilds(game) and not isinstance(strip_set, ExpandedStripSet):
        # multipliers drawn per landing: the variant game on the expanded windows (exact.variants)
        strip_set = expanded_strip_set(game, strip_set)
        game, windows, automaton = strip_set.variant, list(strip_set.windows), line_automaton(strip_set.variant)
    where = f"{game.name}: strip set {strip_set.name!r}"
    check_pay_units(game, automaton, scale)
    K = automaton.n_states
    keys = len(_line_keys(game, strip_set))
    cost = OBJECT_STEP_COST if strip_set.cycle >= 2**62 else 1
    n_symbols = automaton.trans.shape[1]
    work = keys * game.reels * K * n_symbols * cost
    if work > LINE_COUNT_WORK_MAX:
        big = " with Python integers (the cycle leaves 64 bits)" if cost > 1 else ""
        raise ExactBudgetError(
            f"{where}: exact line hit counts: {keys:,} distinct line readings x {game.reels} reels x {K:,} automaton "
            f"states x {n_symbols} symbols{big} = {work:,} steps, over the budget of {LINE_COUNT_WORK_MAX:,}"
        )
    scatter_work = 0
    for g, _ in enumerate(game.scatters):
        size = 1
        for w in windows:
            reel = int(w.counts[:, g].max()) + 1 if len(w.counts) else 1
            scatter_work += size * reel + len(w.weights)
            size += reel - 1
    if scatter_work > SCATTER_COUNT_WORK_MAX:
        raise ExactBudgetError(
            f"{where}: exact scatter counts of {len(game.scatters):,} groups: {scatter_work:,} steps, over the budget of "
            f"{SCATTER_COUNT_WORK_MAX:,}"
        )
    classes, _ = automaton_tables(automaton)
    plan = check_moment_budget(game, strip_set, windows, automaton, classes, scatter_pay_tables(game, scale))
    return MomentPlan(plan.pairs, plan.pair_chunks, plan.work + work)


def analyse_strip_set(
    game: Game,
    strip_set: StripSet,
    automaton: LineAutomaton,
    scale: PayScale,
    full_cycle: bool | str = "auto",
    budget: int = DEFAULT_BUDGET,
    windows: list[ReelWindows] | None = None,
    plan: MomentPlan | None = None,
    max_nodes: int = MAX_SEARCH_NODES,
    cycle_refusal: str | None = None,
) -> StripSetAnalysis:
    """Exact analysis of one strip set (see :func:`par` for ``full_cycle`` and ``budget``).

    Raises :class:`~workbench.errors.ExactBudgetError` when a part is over its
    budget (see :func:`check_strip_set_budget`), or the full cycle was required
    (``full_cycle=True``) and does not fit; with ``"auto"`` a full cycle that
    does not fit (or that ``cycle_refusal`` refuses: the reason) is skipped and
    the reason kept in ``cycle_note``.  A game with table wilds is analysed as its
    variant game on the expanded strip set (:mod:`.variants`; ``strip_set`` may be
    that :class:`~workbench.exact.variants.ExpandedStripSet` already, with
    ``game`` its variant game and ``automaton`` that game's).
    """
    from .variants import ExpandedStripSet, expanded_strip_set, has_table_wilds

    if has_table_wilds(game) and not isinstance(strip_set, ExpandedStripSet):
        # multipliers drawn per landing (exact.variants): the variant game's automaton on the expanded
        # windows, row weights and cycle of the strip set
        strip_set = expanded_strip_set(game, strip_set)
        game, windows, plan, automaton = strip_set.variant, None, None, line_automaton(strip_set.variant)
    expanded = isinstance(strip_set, ExpandedStripSet)
    if expanded and any(t.award for t in game.triggers.values()):
        raise WorkbenchError(f"{game.name}: a bonus award beside a wild whose multiplier is drawn from a table is not "
                             "priced exactly yet (simulate the game instead)")
    windows = windows or (list(strip_set.windows) if expanded else strip_set_windows(game, strip_set))
    if plan is None:
        plan = check_strip_set_budget(game, strip_set, windows, automaton, scale)
    wanted = full_cycle is True or full_cycle == "auto"
    refusal = (cycle_refusal or full_cycle_refusal(game, strip_set, windows, automaton, scale, budget)) if wanted else None
    if full_cycle is True and refusal is not None:
        raise ExactBudgetError(f"{game.name}: {refusal}")
    weighted = [strip.weights is not None for strip in strip_set.reels]
    cache: dict[tuple, tuple] = {}
    row_weights: dict[tuple, np.ndarray] = {}
    n_combos = len(automaton.combinations)
    line_hits = np.zeros((len(game.paylines), n_combos), dtype=object)
    line_moments = np.zeros((len(game.paylines), 3), dtype=object)
    for l, rows in enumerate(game.paylines):
        key = tuple(r if weighted[i] else 0 for i, r in enumerate(rows))
        if key not in cache:
            per_reel = []
            for i, r in enumerate(key):
                if (i, r) not in row_weights:
                    row_weights[(i, r)] = (strip_set.row_weights(i, r) if expanded
                                           else row_symbol_weights(game, strip_set.reels[i], r))
                per_reel.append(row_weights[(i, r)])
            states = line_state_counts(automaton, per_reel)
            # lines that see the same rows' weights (every line, on unweighted strips) share their counts
            cache[key] = (combination_counts(automaton, states), _state_moments(states, automaton.pay_units))
        line_hits[l], line_moments[l] = cache[key]
    scatters = {name: scatter_counts(game, windows, name) for name in game.scatters}
    classes, future = automaton_tables(automaton)
    moments = spin_moments(game, strip_set, windows, automaton, scale, line_moments, classes, future, plan, max_nodes)
    histogram = None
    counts = _combination_triggers(game, strip_set, windows, automaton, scale)
    base_moments = None
    if wanted and refusal is None:
        histogram = cycle_histogram(game, strip_set, windows, automaton, scale, budget)
    if any(t.award for t in game.triggers.values()):
        # the histogram (if any) is of the screen's pays alone; the sheet does not present it as the spin's
        base_moments = moments
        moments = _with_awards(game, strip_set, scale, moments, counts)
    return StripSetAnalysis(strip_set, strip_set.cycle, line_hits, line_moments, scatters, moments, histogram, refusal,
                            trigger_counts=counts, base_moments=base_moments)


def _state_moments(states: np.ndarray, pay: np.ndarray) -> list[int]:
    """[hits, sum of pays, sum of squared pays] over final state counts, as exact ints."""
    nz = np.flatnonzero(states)
    counts = states[nz].astype(object)
    pays = pay[nz].astype(object)
    return [int(counts[pays > 0].sum()), int((counts * pays).sum()), int((counts * pays * pays).sum())]


AWARD_DISTRIBUTION_NOTE = ("a bonus pays a random award: the spin-win distribution is not enumerated (the RTP, std and "
                           "hit frequency include the award exactly)")


def _combination_triggers(game: Game, strip_set: StripSet, windows: list, automaton, scale: PayScale) -> dict:
    """TriggerCounts of every combination trigger and of the scatter trigger paying a bonus award (if any).

    ``automaton``: the line automaton (lines games) or None; ``windows``: per reel
    ReelWindows (ways games: ``RuleAnalysis.windows``, the union over heights)."""
    from .triggers import combination_trigger_counts, scatter_trigger_counts

    out = {}
    for name, t in game.triggers.items():
        if t.combination is not None:
            out[name] = combination_trigger_counts(game, strip_set, windows, t, automaton, scale,
                                                   with_cross=t.award is not None)
        elif t.award is not None:
            out[name] = scatter_trigger_counts(game, strip_set, windows, t, scale, with_cross=True)
    return out


def _with_awards(game: Game, strip_set: StripSet, scale: PayScale, moments: SpinMoments, counts: dict) -> SpinMoments:
    """The whole-spin moments with the (one) bonus award trigger's awards added exactly (see exact.triggers)."""
    from .triggers import award_moments

    (name, trig), = [(n, t) for n, t in game.triggers.items() if t.award]
    c = counts[name]
    mu, var, zero, largest = award_moments(game, trig, scale)
    cycle = c.cycle
    mean = moments.mean + float(mu * c.starts / cycle)
    second = moments.second + float((2 * mu * c.pay_cross + var * c.starts + mu * mu * c.starts_sq) / cycle)
    # P(win > 0) = P(B > 0 or a bonus pays): the screen's pays with the trigger combination made to pay gives
    # P(B > 0 or n >= 1); with awards of 0 possible (one bonus per spin) the bonus pays with P(award > 0)
    either = _hit_with_trigger_paying(game, strip_set, trig, moments.hit)
    hit = moments.hit + (either - moments.hit) * float(1 - zero)
    lines = len(game.paylines) if trig.per_line else 1
    upper = (moments.max_units if moments.max_exact else moments.max_upper) + lines * largest
    return SpinMoments(mean, second, hit, max(moments.max_units, largest), max_exact=False, max_upper=upper,
                       max_nodes=moments.max_nodes)


def _hit_with_trigger_paying(game: Game, strip_set: StripSet, trig, hit: float) -> float:
    """P(the screen pays, or ``trig`` fires): the hit frequency of the game whose trigger combination pays.

    ``hit`` is P(the screen pays): the answer when the combination pays on its line already.
    """
    from ..model import pay_for_count
    from .triggers import hit_with_trigger, trigger_paying_game

    if not game.rule.paylines:
        return hit_with_trigger(game, strip_set, trig)
    if trig.combination is not None and pay_for_count(dict(game.paytable.get(trig.combination, {})), trig.min_count) > 0:
        return hit
    return _moments_only(trigger_paying_game(game, trig), strip_set).hit


def _moments_only(game: Game, strip_set: StripSet) -> SpinMoments:
    scale = pay_scale(game)
    automaton = line_automaton(game)
    return analyse_strip_set(game, strip_set, automaton, scale, full_cycle=False).moments


def _mix_counts(parts: list[tuple[int, int, object]]) -> tuple[int, list]:
    """Combine integer counts of several strip sets chosen by weight.

    ``parts``: (choice weight, cycle, counts).  Returns (combined cycle, combined
    counts) with each strip set scaled to a common cycle (lcm), so counts stay
    exact integers.
    """
    common = 1
    for _, cycle, _ in parts:
        common = math.lcm(common, cycle)
    total_weight = sum(w for w, _, _ in parts)
    mixed = None
    for w, cycle, counts in parts:
        factor = w * (common // cycle)
        scaled = counts * factor if isinstance(counts, np.ndarray) else [c * factor for c in counts]
        if mixed is None:
            mixed = scaled
        elif isinstance(scaled, np.ndarray):
            mixed = mixed + scaled
        else:
            size = max(len(mixed), len(scaled))
            mixed = [(mixed[i] if i < len(mixed) else 0) + (scaled[i] if i < len(scaled) else 0) for i in range(size)]
    return total_weight * common, mixed


_TABLES: dict = {}  # automaton tables by automaton key (a handful of games at a time)


def automaton_tables(automaton: LineAutomaton):
    """Symbol classes and best future gain of each state (cached with the automaton)."""
    key = id(automaton)
    if key not in _TABLES or _TABLES[key][0] is not automaton:
        if len(_TABLES) > 32:
            _TABLES.clear()
        _TABLES[key] = (automaton, symbol_classes(automaton), max_future_gain(automaton))
    return _TABLES[key][1:]
