"""Exact counts of feature triggers, and of the bonuses they start, over one strip set's cycle.

Combination triggers of lines games
-----------------------------------
A combination trigger (``[triggers.*] combination = "SYMBOL"``) fires on a
payline whose first ``min_count`` reels show the symbol (or a wild
substituting for it), or, in a ways game, when the first ``min_count`` reels
each show it somewhere.  On a lines game it depends on the first
``k = min_count`` reels only, so every count comes from enumerating the
distinct window combinations ``X`` of those reels (each weighing the product
of its windows' stop weights) times the total weight of the other reels.

Bonus awards
------------
For a bonus paying a random award ``A`` (mean ``mu``, variance ``s2`` in pay
units) ``n`` times on a spin (``n`` = triggering lines with ``per_line``,
else 0 or 1), the whole-spin win is ``B + A_1 + ... + A_n`` with ``B`` the
screen's pays (rule pays and scatter-group pays), and

    E[win]   = E[B] + mu E[n]
    E[win^2] = E[B^2] + 2 mu E[B n] + s2 E[n] + mu^2 E[n^2]

(the awards are independent of the screen and of each other).  ``pay_cross``
is the integer ``sum over the cycle of weight x n x B`` (= cycle x E[B n]).

Lines combination triggers: ``E[B n] = sum_X P(X) n(X) E[B | X]``, where
``E[B | X]`` is, for every line, the gain already made on the first ``k``
reels plus the expected future gain of its automaton state (a backward
recursion over the other reels' symbol weights on the line's rows), plus the
scatter pays' expectation given the count on the first ``k`` reels.

Scatter triggers (every rule) and ways combination triggers
-----------------------------------------------------------
Here ``n`` is 0 or 1 and is read off a *trigger counter* run over the reels
in order: a count code (as :func:`workbench.pays.scatter.update_code`) capped
at ``m = min_count``, which fires when its count reaches ``m``:

- scatter trigger: the group's visible instances per window (``ReelWindows.counts``),
  ``anywhere`` (code = min(count, m)) or ``adjacent_from_first_reel`` (code =
  2 x min(count, m) + broken: reels after the first one showing none add nothing);
- ways combination trigger: 1 per reel showing the symbol (or a wild substituting
  for it), counted ``adjacent_from_first_reel``: it reaches ``m`` exactly when each
  of the first ``m`` reels shows it.

Every reel's windows carry the joint value (what the pay reads, what the
trigger counter adds), so the correlation of the two on one reel is exact.
``B n`` is summed part by part, each by a dynamic programme over the reels
whose state is (the part's own state, the trigger code), weights summed per
distinct joint value of a reel (Python integers, or int64 while the cycle is
below :data:`INT64_CYCLE_MAX`: no partial sum exceeds the cycle):

- lines: per distinct payline, state (line automaton state, trigger code), the
  line reading each window's symbol on its row; a final state pays its
  ``pay_units`` (the sum of the gains on its path; every direction);
- ways: the ways pay is a sum of product-form terms (as :mod:`workbench.exact.ways`):
  ``coef_a prod_i f_{a,i}(window of reel i)`` with f per target among fa, fm,
  c, [c > 0], [c = 0] and 1; per reel and trigger value ``x``,
  ``F_i[f, x] = sum of weight x f`` over the windows adding ``x``, and each term
  carries its partial sums per trigger code.  A reel with heights contributes the
  union of its windows over heights (weight: height weight x stop weight);
- scatter_pays: per paying symbol, state (its count capped at its top listed
  count, trigger code);
- every paying scatter group (all rules): state (its count code, trigger code).

``hits`` (= ``starts`` = ``starts_sq``) is the weight of the final trigger
codes that fire.  P(win > 0) needs P(B > 0 or n = 1): the hit frequency of
:func:`trigger_paying_game` (the trigger's group or symbol made to pay where it
fires), given for ways and scatter_pays games by :func:`hit_with_trigger`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ExactBudgetError
from ..model import Game, StripSet, Trigger, rules
from ..pays.lines import LineAutomaton
from ..pays.scale import PayScale
from ..pays.scatter import ADJACENT, ANYWHERE, scatter_pay_tables
from .windows import ReelWindows, row_symbol_weights

TRIGGER_PREFIX_MAX = 20_000_000  # window combinations of the first min_count reels enumerated for one trigger
INT64_CYCLE_MAX = 1 << 62  # below this cycle the count DPs run in int64 (exact: no partial sum exceeds the cycle)


@dataclass(frozen=True)
class TriggerCounts:
    """Integer counts of one trigger over a strip set's cycle (weights of screens).

    ``hits``: screens where it fires; ``line_hits``: per payline, screens where
    that line triggers (lines games; empty otherwise); ``starts``: sum of
    ``n`` (bonuses started); ``starts_sq``: sum of ``n^2``; ``pay_cross``:
    sum of ``n x B`` (B = the screen's line and scatter pays, pay units), or
    None when it was not asked for.
    """

    trigger: Trigger
    cycle: int
    hits: int
    line_hits: tuple
    starts: int
    starts_sq: int
    pay_cross: int | None = None


def matching_ids(game: Game, symbol: str) -> np.ndarray:
    """Bool per symbol id: shows ``symbol`` for a combination (the symbol itself or a wild substituting for it)."""
    out = np.zeros(len(game.symbols), dtype=bool)
    for name, sym in game.symbols.items():
        out[sym.index] = name == symbol or (sym.kind == "wild" and symbol in sym.substitutes)
    return out


def _prefix_indices(windows: list[ReelWindows], k: int, where: str) -> tuple[list[np.ndarray], np.ndarray]:
    sizes = [len(w.weights) for w in windows[:k]]
    total = int(np.prod(sizes, dtype=object))
    if total > TRIGGER_PREFIX_MAX:
        raise ExactBudgetError(f"{where}: {total:,} window combinations of the first {k} reels, over the budget of "
                               f"{TRIGGER_PREFIX_MAX:,}")
    grids = np.indices(sizes).reshape(k, -1)
    weight = np.ones(grids.shape[1], dtype=object)
    for i in range(k):
        weight = weight * windows[i].weights.astype(object)[grids[i]]
    return [grids[i] for i in range(k)], weight


def _future_gain(game: Game, strip_set: StripSet, automaton: LineAutomaton, rows: tuple, k: int) -> list[int]:
    """Per automaton state: the line's gain over reels k.. summed over their stops (weighted): integers."""
    n_states = automaton.n_states
    future = [0] * n_states
    rest_total = 1
    for i in range(game.reels - 1, k - 1, -1):
        w = row_symbol_weights(game, strip_set.reels[i], rows[i]).tolist()
        new = [0] * n_states
        for s in range(n_states):
            if not automaton.live[s]:
                continue
            acc = 0
            trans, gain = automaton.trans[s], automaton.gain[s]
            for sym, weight in enumerate(w):
                if weight:
                    acc += weight * (int(gain[sym]) * rest_total + future[int(trans[sym])])
            new[s] = acc
        future = new
        rest_total *= int(sum(w))
    return future


def _scatter_future(game: Game, windows: list[ReelWindows], scale: PayScale, k: int, prefix_count: np.ndarray,
                    g: int) -> np.ndarray:
    """Per prefix combination: group g's pay units summed over the other reels' windows (weighted).

    ``anywhere`` groups only (the count adds up over reels); validation
    refuses bonus awards beside a paying adjacent group.
    """
    group = list(game.scatters.values())[g]
    dist = [1]  # weight of the other reels by the count they add
    for w in windows[k:]:
        reel = [0] * (int(w.counts[:, g].max()) + 1 if len(w.counts) else 1)
        for c, x in zip(w.counts[:, g].tolist(), w.weights.tolist()):
            reel[c] += x
        new = [0] * (len(dist) + len(reel) - 1)
        for a, x in enumerate(dist):
            if x:
                for b, y in enumerate(reel):
                    new[a + b] += x * y
        dist = new
    out = np.zeros(len(prefix_count), dtype=object)
    for v in np.unique(prefix_count).tolist():
        units = sum(x * scale.units(game.bet.credits(group.pay(v + c), group.unit)) for c, x in enumerate(dist) if x)
        out[prefix_count == v] = units
    return out


def combination_trigger_counts(game: Game, strip_set: StripSet, windows: list[ReelWindows], trigger: Trigger,
                               automaton: LineAutomaton | None = None, scale: PayScale | None = None,
                               with_cross: bool = False) -> TriggerCounts:
    """Exact counts of combination trigger ``trigger`` on ``strip_set`` (see the module docstring).

    ``with_cross`` (lines games: needs ``automaton`` and ``scale``; ways games: ``scale``;
    ``windows`` there are ``RuleAnalysis.windows``, the union over heights) also sums
    ``n x B`` for the bonus award's share of the second moment.
    """
    k = trigger.min_count
    where = f"{game.name}: trigger {trigger.name!r}, strip set {strip_set.name!r}"
    match = matching_ids(game, trigger.combination)
    cycle = 1
    for w in windows:
        cycle *= int(w.total_weight)
    rest = 1
    for w in windows[k:]:
        rest *= int(w.total_weight)
    if not game.rule.paylines:  # ways: the symbol anywhere on each of the first reels
        hits = 1
        for w in windows[:k]:
            shows = (match[w.symbols] & (w.symbols >= 0)).any(axis=1)  # rows a short reel does not show are -1
            hits *= int(w.weights[shows].sum())
        hits *= rest
        cross = None
        if with_cross:
            if scale is None:
                raise ValueError("with_cross needs the pay scale")
            cross = ways_combination_cross(game, windows, trigger, scale)
        return TriggerCounts(trigger, cycle, hits, (), hits, hits, cross)
    index, weight = _prefix_indices(windows, k, where)
    n_lines = len(game.paylines)
    fired = np.zeros((n_lines, len(weight)), dtype=bool)
    for l, rows in enumerate(game.paylines):
        ok = np.ones(len(weight), dtype=bool)
        for i in range(k):
            ok &= match[windows[i].symbols[index[i], rows[i]]]
        fired[l] = ok
    count = fired.sum(axis=0)
    n = count if trigger.per_line else (count > 0).astype(np.int64)
    line_hits = tuple(int(weight[fired[l]].sum()) * rest for l in range(n_lines))
    hits = int(weight[count > 0].sum()) * rest
    starts = int((weight * n.astype(object)).sum()) * rest
    starts_sq = int((weight * (n.astype(object) ** 2)).sum()) * rest
    cross = None
    if with_cross:
        if automaton is None or scale is None:
            raise ValueError("with_cross needs the line automaton and the pay scale")
        paying = n > 0
        idx = [ix[paying] for ix in index]
        w_paying = weight[paying]
        n_paying = n[paying].astype(object)
        expect = np.zeros(len(w_paying), dtype=object)  # sum over the other reels of B, given X
        futures: dict = {}
        for l, rows in enumerate(game.paylines):
            key = tuple(rows)
            if key not in futures:
                futures[key] = _future_gain(game, strip_set, automaton, rows, k)
            future = np.asarray(futures[key], dtype=object)
            state = np.zeros(len(w_paying), dtype=np.int64)
            gained = np.zeros(len(w_paying), dtype=np.int64)
            for i in range(k):
                sym = windows[i].symbols[idx[i], rows[i]]
                gained += automaton.gain[state, sym]
                state = automaton.trans[state, sym]
            expect = expect + gained.astype(object) * rest + future[state]
        for g, group in enumerate(game.scatters.values()):
            if any(p > 0 for p in group.pays.values()):
                prefix = np.zeros(len(w_paying), dtype=np.int64)
                for i in range(k):
                    prefix += windows[i].counts[idx[i], g]
                expect = expect + _scatter_future(game, windows, scale, k, prefix, g)
        cross = int((w_paying * n_paying * expect).sum())
    return TriggerCounts(trigger, cycle, hits, line_hits, starts, starts_sq, cross)


def award_moments(game: Game, trigger: Trigger, scale: PayScale) -> tuple:
    """(mean, variance, P(award = 0), largest award) of the trigger's award in pay units (Fractions; the last an int):
    of its table, or of the total one spin of its wheel pays (:func:`workbench.exact.wheels.wheel_value`)."""
    from fractions import Fraction

    from ..model.wheel_segments import is_wheel
    from .wheels import WheelSegment, wheel_value

    table = game.tables[trigger.award]
    total = table.total_weight
    values = [scale.units(game.bet.credits(Fraction(str(e.get("value", 0))), trigger.award_unit)) for e in table.entries]
    if is_wheel(table):
        segments = [WheelSegment(e["award"], Fraction(v), e["award"] == "respin" or bool(e.get("again", False)), int(w))
                    for e, v, w in zip(table.entries, values, table.weights)]
        v = wheel_value(segments, trigger.award_repeat_cash, trigger.award_max_spins)
        return v.cash, v.cash_variance, v.cash_zero, int(v.cash_max)
    mean = Fraction(sum(w * v for w, v in zip(table.weights, values)), total)
    second = Fraction(sum(w * v * v for w, v in zip(table.weights, values)), total)
    zero = Fraction(sum(w for w, v in zip(table.weights, values) if v == 0), total)
    largest = max(v for w, v in zip(table.weights, values) if w > 0)
    return mean, second - mean * mean, zero, largest


# ---------------------------------------------------------------------------
# scatter triggers (every rule) and ways combination triggers: exact cross sums
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Counter:
    """A running count over reels: ``nxt[code, value]`` the code after a reel adding ``value``.

    ``values[i]``: what each window of reel ``i`` adds; ``ok[code]``: the final code fires the
    trigger (trigger counters) or ``pay[code]``: its pay units (paying counters).
    """

    values: list
    nxt: np.ndarray
    ok: np.ndarray
    pay: np.ndarray


def _code_table(mode: int, cap: int, vmax: int) -> tuple[np.ndarray, np.ndarray]:
    """(nxt[code, value], count of each code) of a count capped at ``cap`` (``update_code`` codes)."""
    n = 2 * (cap + 1) if mode == ADJACENT else cap + 1

    def step(code: int, v: int) -> int:  # pays.scatter.update_code, in Python (no compiled call)
        if mode != ADJACENT:
            return min(code + v, cap)
        if code % 2 == 1:
            return code
        return code + 1 if v == 0 else 2 * min(code // 2 + v, cap)

    nxt = np.array([[step(c, v) for v in range(vmax + 1)] for c in range(n)], dtype=np.int64)
    counts = np.arange(n) // 2 if mode == ADJACENT else np.arange(n)
    return nxt.reshape(n, vmax + 1), counts


def _count_counter(values: list, mode: int, cap: int, pay_by_count=None) -> _Counter:
    vmax = max((int(v.max()) if len(v) else 0) for v in values)
    nxt, counts = _code_table(mode, cap, vmax)
    pay = np.zeros(len(counts), dtype=np.int64)
    if pay_by_count is not None:
        pay = np.asarray([int(pay_by_count[min(int(c), len(pay_by_count) - 1)]) for c in counts], dtype=np.int64)
    return _Counter(values, nxt, counts >= cap, pay)


def _trigger_counter(game: Game, windows: list[ReelWindows], trigger: Trigger) -> _Counter:
    """The counter of a scatter trigger (its group's count, capped at ``min_count``) or of a ways
    combination trigger (leading reels showing the symbol, capped at ``min_count``)."""
    cap = int(trigger.min_count)
    if trigger.scatter is not None:
        g = list(game.scatters).index(trigger.scatter)
        mode = ADJACENT if game.scatters[trigger.scatter].counting == "adjacent_from_first_reel" else ANYWHERE
        values = [np.asarray(w.counts[:, g], dtype=np.int64) for w in windows]
    else:
        match = matching_ids(game, trigger.combination)
        values = [((match[w.symbols] & (w.symbols >= 0)).any(axis=1)).astype(np.int64) for w in windows]
        mode = ADJACENT
    return _count_counter(values, mode, cap)


def _reel_pairs(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
    """Distinct (a, b) value pairs of one reel's windows with their summed weights (Python ints)."""
    keep = w > 0
    a, b, w = a[keep], b[keep], w[keep]
    if not len(w):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), []
    radix = int(b.max()) + 1
    key = a.astype(np.int64) * radix + b
    uniq, inverse = np.unique(key, return_inverse=True)
    sums = np.zeros(len(uniq), dtype=np.int64)  # a reel's total weight fits 62 bits
    np.add.at(sums, inverse.reshape(-1), w.astype(np.int64))
    return uniq // radix, uniq % radix, [int(x) for x in sums]


def _joint_dp(nxt_a: np.ndarray, values_a: list, trig: _Counter, windows: list[ReelWindows], big: bool) -> np.ndarray:
    """Weight of every final (state a, trigger code) over the cycle: a dense DP over reels.

    ``nxt_a[state, value]`` moves counter a on the value ``values_a[i][window]`` of reel ``i``;
    the trigger counter moves on its own values.  int64 (exact: every partial sum is at most
    the cycle) unless ``big`` (Python integers).
    """
    SA, SB = nxt_a.shape[0], trig.nxt.shape[0]
    mass = np.zeros((SA, SB), dtype=object if big else np.int64)
    mass[0, 0] = 1
    for i, w in enumerate(windows):
        va, vb, ws = _reel_pairs(np.asarray(values_a[i], dtype=np.int64), trig.values[i], w.weights)
        rows = np.flatnonzero((mass != 0).any(axis=1))
        part = mass[rows]
        new = np.zeros_like(mass)
        if ws:
            weight = np.array(ws, dtype=object if big else np.int64)
            to_a = nxt_a[rows][:, va].T[:, :, None]  # (pairs, rows, 1)
            to_b = trig.nxt[:, vb].T[:, None, :]  # (pairs, 1, codes)
            np.add.at(new, (to_a, to_b), part[None, :, :] * weight[:, None, None])
        mass = new
    return mass


def _weighted_total(mass: np.ndarray, pay: np.ndarray, ok: np.ndarray) -> int:
    """sum over (a, code) with ``ok[code]`` of mass x pay[a], in Python integers."""
    sub = mass[:, ok]
    nz = np.flatnonzero(pay)
    return sum(int(pay[a]) * sum(int(x) for x in sub[a]) for a in nz.tolist())


def lines_cross(game: Game, windows: list[ReelWindows], trig: _Counter, scale: PayScale, big: bool) -> int:
    """sum of weight x n x (line pays): per payline a DP over (automaton state, trigger code)."""
    from ..pays.lines import line_automaton

    automaton = line_automaton(game)
    total = 0
    done: dict = {}
    for rows in game.paylines:
        key = tuple(rows)
        if key not in done:
            values = [w.symbols[:, r].astype(np.int64) for w, r in zip(windows, rows)]
            mass = _joint_dp(automaton.trans, values, trig, windows, big)
            done[key] = _weighted_total(mass, automaton.pay_units, trig.ok)
        total += done[key]
    return total


def _groups_cross(game: Game, windows: list[ReelWindows], trig: _Counter, scale: PayScale, big: bool) -> int:
    """sum of weight x n x (pays of every paying scatter group): DPs over (group code, trigger code)."""
    tables = scatter_pay_tables(game, scale)
    total = 0
    for g, gi in enumerate(tables.index.tolist()):
        values = [np.asarray(w.counts[:, gi], dtype=np.int64) for w in windows]
        group = _count_counter(values, int(tables.mode[g]), int(tables.cap[g]), tables.pays[g, : int(tables.cap[g]) + 1])
        mass = _joint_dp(group.nxt, values, trig, windows, big)
        total += _weighted_total(mass, group.pay, trig.ok)
    return total


def anywhere_cross(game: Game, windows: list[ReelWindows], trig: _Counter, scale: PayScale, big: bool) -> int:
    """sum of weight x n x (symbol pays) of a scatter_pays game: per paying symbol a DP over
    (its count capped at its top listed count, trigger code)."""
    from ..pays.anywhere import paying_ids, paying_symbols, screen_cells, symbol_pay_units, window_symbol_counts

    ids = paying_ids(game)
    pays = symbol_pay_units(game, scale)
    cells = screen_cells(game)
    counts = [window_symbol_counts(w.symbols, ids) for w in windows]
    total = 0
    for j, name in enumerate(paying_symbols(game)):
        listed = [int(k) for k in game.paytable[name] if int(k) <= cells]
        cap = max(listed, default=cells)
        values = [c[:, j] for c in counts]
        sym = _count_counter(values, ANYWHERE, cap, pays[j, : cap + 1])
        mass = _joint_dp(sym.nxt, values, trig, windows, big)
        total += _weighted_total(mass, sym.pay, trig.ok)
    return total


def ways_cross(game: Game, windows: list[ReelWindows], trig: _Counter, scale: PayScale, big: bool = False) -> int:
    """sum of weight x n x (ways pay): the product-form terms through a DP over the trigger code.

    Per reel ``i`` and trigger value ``x``: ``F_i[f, x]`` = sum over the windows adding ``x`` of
    weight x f(window) for every function f (per target fa, fm, c, [c > 0], [c = 0]; 1); each
    term carries its partial sums per trigger code.  Windows of a reel with heights are the union
    over heights (weights height weight x stop weight), so heights are exact too.
    """
    from ..pays.ways import outcome_features, ways_targets
    from .ways import ways_terms

    targets = ways_targets(game, scale)
    coef, idx = ways_terms(targets, game.reels)
    if not coef:
        return 0
    idx = np.asarray(idx, dtype=np.int64)
    T = targets.n_targets
    C = trig.nxt.shape[0]
    v = np.zeros((len(coef), C), dtype=object)
    v[:, 0] = 1
    for i, w in enumerate(windows):
        cnt, fa, fm = outcome_features(targets, w.symbols)
        phi = np.empty((5 * T + 1, len(w.weights)), dtype=object)
        for t in range(T):
            phi[5 * t] = fa[:, t].tolist()
            phi[5 * t + 1] = fm[:, t].tolist()
            phi[5 * t + 2] = cnt[:, t].tolist()
            phi[5 * t + 3] = (cnt[:, t] > 0).astype(np.int64).tolist()
            phi[5 * t + 4] = (cnt[:, t] == 0).astype(np.int64).tolist()
        phi[5 * T] = 1
        xs = trig.values[i]
        weights = w.weights.astype(object)
        new = np.zeros_like(v)
        for x in np.unique(xs[w.weights > 0]).tolist():
            sel = xs == x
            F = phi[:, sel].dot(weights[sel])  # (functions,) Python ints
            factor = F[idx[:, i]]
            for c in range(C):
                new[:, trig.nxt[c, x]] += v[:, c] * factor
        v = new
    fired = v[:, trig.ok]
    return sum(c * sum(int(x) for x in row) for c, row in zip(coef, fired))


def _rule_cross(game: Game, windows: list[ReelWindows], trig: _Counter, scale: PayScale, big: bool) -> int:
    """sum over the cycle of weight x n x B (B: the screen's rule pays and scatter-group pays, pay units)."""
    if game.rule.award_cross is None:  # validation refuses bonus awards where a rule prices none
        raise ValueError(f"{game.name}: bonus awards are not priced in {game.pays.rule} games")
    total = rules.part(game.rule, "award_cross")(game, windows, trig, scale, big)  # the rule's own (model.rules)
    return total + _groups_cross(game, windows, trig, scale, big)


def _fired_weight(windows: list[ReelWindows], trig: _Counter, big: bool) -> int:
    mass = _joint_dp(np.zeros((1, 1), dtype=np.int64), [np.zeros(len(w.weights), np.int64) for w in windows], trig,
                     windows, big)
    return sum(int(x) for x in mass[0, trig.ok])


def scatter_trigger_counts(game: Game, strip_set: StripSet, windows: list[ReelWindows], trigger: Trigger,
                           scale: PayScale, with_cross: bool = False, outcomes: list | None = None) -> TriggerCounts:
    """Exact counts of scatter trigger ``trigger`` (``n`` = 1 when its group's count >= ``min_count``).

    ``windows``: per reel :class:`~workbench.exact.windows.ReelWindows` (a ways game with
    heights: the union over heights, as ``RuleAnalysis.windows``; or pass ``outcomes``, the
    :class:`~workbench.exact.ways_outcomes.ReelOutcomes`, whose windows are used).  ``hits`` =
    ``starts`` = ``starts_sq`` (at most one bonus per spin); with ``with_cross``, ``pay_cross``
    = sum over the cycle of weight x n x B, B the screen's whole pay (rule pays and every paying
    scatter group) in pay units, exactly (see the module docstring).
    """
    if trigger.scatter is None:
        raise ValueError(f"trigger {trigger.name!r} is not a scatter trigger")
    if outcomes is not None:
        windows = [r.windows for r in outcomes]
    cycle = 1
    for w in windows:
        cycle *= int(w.total_weight)
    big = cycle >= INT64_CYCLE_MAX
    trig = _trigger_counter(game, windows, trigger)
    hits = _fired_weight(windows, trig, big)
    cross = _rule_cross(game, windows, trig, scale, big) if with_cross else None
    return TriggerCounts(trigger, cycle, hits, (), hits, hits, cross)


def ways_combination_cross(game: Game, windows: list[ReelWindows], trigger: Trigger, scale: PayScale) -> int:
    """pay_cross of a ways combination trigger: sum over the cycle of weight x n x B (n = 1 when each
    of the first ``min_count`` reels shows the symbol or a wild substituting for it)."""
    cycle = 1
    for w in windows:
        cycle *= int(w.total_weight)
    trig = _trigger_counter(game, windows, trigger)
    return _rule_cross(game, windows, trig, scale, cycle >= INT64_CYCLE_MAX)


def trigger_paying_game(game: Game, trigger: Trigger) -> Game:
    """A game whose screen pays something exactly when ``game``'s screen pays or ``trigger`` fires
    (for hit frequencies only: the pays change), without triggers.

    Scatter trigger: its group pays at every count >= ``min_count`` (the pay it has there, or 1
    where it has none); combination trigger: the symbol's paytable entry likewise at ``min_count``
    (a line's or a ways run's first ``min_count`` reels showing the symbol or a wild for it).
    """
    from dataclasses import replace
    from fractions import Fraction

    from ..model import freeze, pay_for_count

    def paying_from(pays: dict, m: int) -> dict:
        out = {int(k): Fraction(v) for k, v in pays.items()}
        out[m] = pay_for_count(out, m) or Fraction(1)
        for k in out:
            if k > m and out[k] <= 0:
                out[k] = Fraction(1)
        return dict(sorted(out.items()))

    m = int(trigger.min_count)
    if trigger.scatter is not None:
        group = game.scatters[trigger.scatter]
        changed = replace(group, pays=freeze(paying_from(dict(group.pays), m)))
        return game._replace(scatters=freeze({**game.scatters, trigger.scatter: changed}), triggers=freeze({}))
    pays = paying_from(dict(game.paytable.get(trigger.combination, {})), m)
    return game._replace(paytable=freeze({**game.paytable, trigger.combination: pays}), triggers=freeze({}))


def hit_with_trigger(game: Game, strip_set: StripSet, trigger: Trigger) -> float:
    """P(the screen pays, or ``trigger`` fires) on ``strip_set`` of a game of a rule with a ``trigger_hit`` part
    (ways, scatter pays, cluster): the hit frequency of :func:`trigger_paying_game` (lines games: compute that
    game's hit frequency with the lines engine)."""
    from ..pays.scale import pay_scale

    if game.rule.trigger_hit is None:
        raise ValueError(f"{game.pays.rule} games: the hit frequency of trigger_paying_game(game, trigger) comes from "
                         "the lines engine")
    paying = trigger_paying_game(game, trigger)
    return rules.part(game.rule, "trigger_hit")(paying, strip_set, pay_scale(paying), f"{game.name}: trigger "
                                                f"{trigger.name!r}, strip set {strip_set.name!r}: ")


def ways_trigger_hit(paying: Game, strip_set: StripSet, scale: PayScale, where: str) -> float:
    """The hit frequency of the ways game ``paying`` on ``strip_set`` (its product-form count of unpaid screens)."""
    from fractions import Fraction

    from ..pays.ways import ways_targets
    from .ways import _hit_probability, _unpaid_weight, ways_outcomes

    targets = ways_targets(paying, scale)
    tables = scatter_pay_tables(paying, scale)
    reels = ways_outcomes(paying, strip_set, targets, tables)
    if targets.n_targets <= 62:
        return float(_hit_probability(targets, tables, reels, where))
    cycle = 1
    for r in reels:
        cycle *= r.total
    return float(Fraction(cycle - _unpaid_weight(targets, tables, reels, where), cycle))


def analysed_trigger_hit(paying: Game, strip_set: StripSet, scale: PayScale, where: str) -> float:
    """The hit frequency of ``paying`` on ``strip_set`` by its rule's exact analysis (scatter pays, cluster)."""
    return float(rules.part(paying.rule, "analysis")(paying, strip_set, scale, full_cycle=False).moments.hit)
