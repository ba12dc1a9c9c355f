"""Exact math of scatter pays ("pay anywhere"): combinations, whole-spin moments, hit frequency,
max win and the full-cycle distribution of one strip set.

Rule (``[pays] rule = "scatter_pays"``): for each paying symbol ``x`` (a
paytable entry with some pay above 0), its count is the number of visible
positions showing ``x`` on the whole screen (no tall symbols in scatter_pays:
each visible cell showing ``x`` counts as one); it pays
``pay_for_count(paytable[x], count)`` x the line pay unit.  Every paying
symbol pays independently; no wilds, no groups, fixed reel heights.  Scatter
groups (``[scatters.*]``) add their pays as in every rule (counts from
:class:`~.windows.ReelWindows`).  All amounts are integer pay units.

Method.  Each reel's distinct windows are reduced to their *values*: the
cells showing each paying symbol and the visible instances of each paying
scatter group; windows with equal values are merged (weights summed).

- Combinations: one per listed count ``k`` with pay above 0 of each paying
  symbol; it pays when the symbol's count lies in ``[k, next listed count)``.
  Its hits come from the symbol's count distribution, convolved over the
  reels in Python integers; its units are hits x pay.
- *Events*: every paying symbol and paying scatter group is a small counter
  run over the reels: a symbol's count capped at its top listed count, an
  ``anywhere`` group's count likewise, an ``adjacent_from_first_reel``
  group's running code (``2 x count + broken``, :func:`~workbench.pays.scatter.update_code`).
  Each final counter state has a pay.
- For every set ``T`` of events that can pay together (its events' lowest
  paying counts fit on the screen: distinct symbols use distinct cells; a
  scatter group sharing no symbol with the other events counts too), one
  dynamic programme over the reels gives the exact weight of every joint
  final state of ``T``'s counters in which every event of ``T`` pays (int64
  weights while the cycle fits 63 bits, else float probabilities).  Only
  *alive* joint states are followed: every counter can still reach its
  lowest paying count on the later reels, and the cells the events still
  need fit them.  Small joint state spaces use a plain array, large ones a
  hash table.  From these:

  * ``|T| = 1``: ``E[P_j]`` and ``E[P_j^2]``; ``|T| = 2``: ``E[P_j P_k]``, so
    ``E[T^2] = sum_j E[P_j^2] + 2 sum_{j<k} E[P_j P_k]`` (states where an
    event pays nothing, and sets that cannot pay together, contribute 0);
  * every ``T``: the weight ``N_T`` of screens on which all of ``T`` pay; the
    hit frequency is ``sum_T (-1)^(|T|+1) N_T / cycle`` (inclusion-exclusion
    over the events "pays above 0");
  * every ``T``: the largest ``sum_{j in T} pay_j`` over its reached
    states.  The max win is the largest of these: exact, because pays are
    never negative (the screen reaching a value pays at least that) and the
    best screen's own paying events form one of the sets.

  When these programmes take more than :data:`SUBSET_TOP_WORK_MAX` steps
  (low paying counts on a large screen: many sets), the sets of one and two
  events still give the moments exactly; the hit frequency comes exactly
  from one programme over the screens on which nothing pays (all events on
  counters capped at their lowest paying count, states that pay dropped),
  or, when that is over its budget, by inclusion-exclusion with the sets of
  three or more events on those threshold counters; the max win is then the
  best value of the sets of one or two events (a win some screen reaches)
  with an upper bound from a knapsack of the events' pays over the screen's
  cells (``max_exact`` False unless the two meet).  Over
  :data:`SUBSET_WORK_MAX` steps the analysis is refused.
- Histogram: a full-cycle walk (compiled) over the merged windows of every
  reel, when their product fits ``budget``.
"""

from __future__ import annotations

import numpy as np

from .._jit import get_num_threads, njit, prange
from ..errors import ExactBudgetError
from ..model import Game, StripSet
from ..pays.anywhere import paying_ids, paying_symbols, screen_cells, symbol_pay_units
from ..pays.lines import Combination
from ..pays.scale import PayScale, pay_scale
from ..pays.scatter import scatter_pay_tables
from .enumerate import DEFAULT_BUDGET, HISTOGRAM_MAX, PAY_UNITS_MAX
from .anywhere_events import DEAD, _Events, _event_sets, _events, _reel_values
from .moments import RuleAnalysis, SpinMoments
from .windows import strip_set_windows


# Steps (alive states entering a reel x its distinct values x events) of all the event-set programmes
# on top-capped counters (exact max win; hash-table steps take about 15 ns) ...
SUBSET_TOP_WORK_MAX = 150_000_000
# ... and, when those are over budget, of each fallback: the pairs; the screens paying nothing (half of
# this); inclusion-exclusion with sets of 3+ events on threshold counters.
SUBSET_WORK_MAX = 1_000_000_000
# Event sets that can pay together (each is one programme over the reels).
SUBSETS_MAX = 50_000
# Alive joint counter states of one event set after a reel (held in a hash table twice).
SUBSET_STATES_MAX = 1 << 24
DENSE_STATES_MAX = 1 << 16  # event sets with at most this many joint states use a plain array
INT_CYCLE_MAX = 1 << 63  # below this, weights are exact int64 counts


@njit
def _distinct(vals, a, m, events, vmax, weights):
    """Distinct values of the columns ``events`` among rows a..a+m of ``vals``, with summed weights."""
    k = events.shape[0]
    vrad = np.empty(k, dtype=np.int64)
    vs = 1
    for t in range(k - 1, -1, -1):
        vrad[t] = vs
        vs *= vmax[events[t]] + 1
    keys = np.empty(m, dtype=np.int64)
    for r in range(m):
        key = 0
        for t in range(k):
            key += vals[a + r, events[t]] * vrad[t]
        keys[r] = key
    order = np.argsort(keys)
    dv = np.empty((m, k), dtype=np.int64)
    dw = np.zeros(m, weights.dtype)
    nd = 0
    last = -1
    for q in range(m):
        r = order[q]
        if keys[r] != last:
            last = keys[r]
            for t in range(k):
                dv[nd, t] = vals[a + r, events[t]]
            nd += 1
        dw[nd - 1] += weights[a + r]
    return dv[:nd], dw[:nd]


@njit(cache=True, inline="always")
def _step(events, comp, dv, d, nxt, mult, defc, defr, rem_c, rem_max, i):
    """Joint state after a reel showing distinct value ``d`` from state ``comp``; -1 if it is not alive."""
    ns = 0
    need = 0
    for t in range(events.shape[0]):
        e = events[t]
        c = nxt[e, comp[t], dv[d, t]]
        if defr[e, c] > rem_max[e, i]:
            return -1
        need += defc[e, c]
        ns += c * mult[t]
    if need > rem_c:
        return -1
    return ns


@njit(cache=True)
def _set_weights(vals, offsets, weights, events, nxt, n_states, defc, defr, rem_cells, rem_max, vmax, dense, max_steps,
                 max_states):
    """Weights of the alive joint final states of the counters ``events`` (first event most
    significant in a state's key): (keys, weights, steps).  Stops early, with ``steps`` above
    ``max_steps``, when the steps (entering states x distinct values, plus the dense array's
    scans) pass ``max_steps`` or the alive states of a reel pass ``max_states``."""
    k = events.shape[0]
    n_reels = offsets.shape[0] - 1
    mult = np.empty(k, dtype=np.int64)
    size = 1
    for t in range(k - 1, -1, -1):
        mult[t] = size
        size *= n_states[events[t]]
    comp = np.empty(k, dtype=np.int64)
    keys = np.zeros(1, dtype=np.int64)
    ws = np.ones(1, weights.dtype)
    steps = 0
    for i in range(n_reels):
        dv, dw = _distinct(vals, offsets[i], offsets[i + 1] - offsets[i], events, vmax, weights)
        nd = dv.shape[0]
        rem_c = rem_cells[i]
        steps += keys.shape[0] * nd * k + (size if dense else 0)
        if steps > max_steps:
            return keys[:0], ws[:0], max_steps + 1
        if dense:
            acc = np.zeros(size, weights.dtype)
            for q in range(keys.shape[0]):
                w = ws[q]
                rest = keys[q]
                for t in range(k):
                    comp[t] = rest // mult[t]
                    rest -= comp[t] * mult[t]
                for d in range(nd):
                    ns = _step(events, comp, dv, d, nxt, mult, defc, defr, rem_c, rem_max, i)
                    if ns >= 0:
                        acc[ns] += w * dw[d]
            n = 0
            for s in range(size):
                if acc[s] != 0:
                    n += 1
            keys = np.empty(n, dtype=np.int64)
            ws = np.empty(n, weights.dtype)
            n = 0
            for s in range(size):
                if acc[s] != 0:
                    keys[n] = s
                    ws[n] = acc[s]
                    n += 1
            continue
        # sparse: open addressing, linear probing, doubled at half load
        bits = 10
        while (1 << bits) < 2 * keys.shape[0]:
            bits += 1
        cap = 1 << bits
        tk = np.full(cap, -1, dtype=np.int64)
        tw = np.zeros(cap, weights.dtype)
        used = 0
        for q in range(keys.shape[0]):
            w = ws[q]
            rest = keys[q]
            for t in range(k):
                comp[t] = rest // mult[t]
                rest -= comp[t] * mult[t]
            for d in range(nd):
                ns = _step(events, comp, dv, d, nxt, mult, defc, defr, rem_c, rem_max, i)
                if ns < 0:
                    continue
                h = np.int64((np.uint64(ns) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))
                while tk[h] != -1 and tk[h] != ns:
                    h = (h + 1) & (cap - 1)
                if tk[h] == -1:
                    tk[h] = ns
                    used += 1
                    if used > max_states:
                        return keys[:0], ws[:0], max_steps + 1
                tw[h] += w * dw[d]
                if 2 * used > cap:
                    bits += 1
                    cap = 1 << bits
                    nk = np.full(cap, -1, dtype=np.int64)
                    nw = np.zeros(cap, weights.dtype)
                    for x in range(tk.shape[0]):
                        if tk[x] != -1:
                            g = np.int64((np.uint64(tk[x]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits))
                            while nk[g] != -1:
                                g = (g + 1) & (cap - 1)
                            nk[g] = tk[x]
                            nw[g] = tw[x]
                    tk = nk
                    tw = nw
        keys = np.empty(used, dtype=np.int64)
        ws = np.empty(used, weights.dtype)
        n = 0
        for x in range(cap):
            if tk[x] != -1:
                keys[n] = tk[x]
                ws[n] = tw[x]
                n += 1
    return keys, ws, steps


@njit(cache=True)
def _set_summary(keys, ws, events, n_states, ok, pay, want_max):
    """(weight of the states where every event pays, largest total pay of such a state)."""
    k = events.shape[0]
    mult = np.empty(k, dtype=np.int64)
    size = 1
    for t in range(k - 1, -1, -1):
        mult[t] = size
        size *= n_states[events[t]]
    hit = ws[:1].sum() * 0
    best = 0
    for q in range(keys.shape[0]):
        rest = keys[q]
        all_ok = True
        value = 0
        for t in range(k):
            c = rest // mult[t]
            rest -= c * mult[t]
            if not ok[events[t], c]:
                all_ok = False
            value += pay[events[t], c]
        if all_ok:
            hit += ws[q]
            if want_max and value > best:
                best = value
    return hit, best


@njit(cache=True, parallel=True)
def _cycle_histogram(vals, offsets, weights, nxt, pay, size, n_chunks):
    """Full-cycle histogram of the spin pay (units): a walk over the merged windows of every reel."""
    n_reels = offsets.shape[0] - 1
    E = vals.shape[1]
    hist = np.zeros((n_chunks, size), dtype=np.int64)
    n0 = offsets[1] - offsets[0]
    for c in prange(n_chunks):
        st = np.zeros((n_reels + 1, E), dtype=np.int64)
        wt = np.zeros(n_reels + 1, dtype=np.int64)
        idx = np.zeros(n_reels + 1, dtype=np.int64)
        for w0 in range(c, n0, n_chunks):
            for j in range(E):
                st[1, j] = nxt[j, 0, vals[w0, j]]
            wt[1] = weights[w0]
            if n_reels == 1:
                p = 0
                for j in range(E):
                    p += pay[j, st[1, j]]
                hist[c, p] += wt[1]
                continue
            d = 1
            idx[1] = offsets[1]
            while True:
                if d == n_reels - 1:
                    for r in range(offsets[d], offsets[d + 1]):
                        p = 0
                        for j in range(E):
                            p += pay[j, nxt[j, st[d, j], vals[r, j]]]
                        hist[c, p] += wt[d] * weights[r]
                    d -= 1
                    if d < 1:
                        break
                    continue
                if idx[d] == offsets[d + 1]:
                    d -= 1
                    if d < 1:
                        break
                    continue
                r = idx[d]
                idx[d] += 1
                for j in range(E):
                    st[d + 1, j] = nxt[j, st[d, j], vals[r, j]]
                wt[d + 1] = wt[d] * weights[r]
                d += 1
                idx[d] = offsets[d]
    out = np.zeros(size, dtype=np.int64)
    for c in range(n_chunks):
        out += hist[c]
    return out


def _run_sets(ev: _Events, sets: list, inputs: tuple, exact_ints: bool, split: bool, max_steps: int):
    """Run every event set's programme: (mean, second moment, hit weight, max win over the sets
    run on top-capped counters, {event: its mean}) as numerators over the cycle (Python ints when
    ``exact_ints``), or None when over ``max_steps`` steps in all or
    :data:`SUBSET_STATES_MAX` alive states in one set.  ``split``: sets of three or more events
    run on threshold counters (their max is not computed)."""
    ev_vals, offsets, flat_w, rem_cells, rem_max = inputs
    top = ev.top
    left = max_steps
    mean_num = second_num = hit_num = best = 0
    singles: dict = {}
    for T in sets:
        events = np.array(T, dtype=np.int64)
        use_top = len(T) <= 2 or not split
        c = top if use_top else ev.thr
        dense = float(np.prod(c.n_states[events].astype(float))) <= DENSE_STATES_MAX
        if not dense and float(np.prod(c.n_states[events].astype(float))) >= 2.0**62:
            return None  # joint state keys would leave 64 bits
        keys, ws, steps = _set_weights(ev_vals, offsets, flat_w, events, c.nxt, c.n_states, c.defc, c.defr, rem_cells,
                                       rem_max, ev.vmax, dense, left, SUBSET_STATES_MAX)
        left -= steps
        if left < 0:
            return None
        hit, value = _set_summary(keys, ws, events, c.n_states, c.ok, c.pay, use_top)
        hit_num += (1 if len(T) % 2 else -1) * (int(hit) if exact_ints else float(hit))
        if use_top:
            best = max(best, int(value))
        if len(T) > 2:
            continue
        if len(T) == 1:
            pays = top.pay[T[0], keys]
            pays2 = pays
        else:
            j, k = T
            pays = top.pay[j, keys // top.n_states[k]]
            pays2 = top.pay[k, keys % top.n_states[k]]
        if exact_ints:
            term = sum(int(w) * int(a) * int(b) for w, a, b in zip(ws.tolist(), pays.tolist(), pays2.tolist()))
        else:
            term = float((ws * pays.astype(float) * pays2.astype(float)).sum())
        if len(T) == 1:
            second_num += term
            first = sum(int(w) * int(a) for w, a in zip(ws.tolist(), pays.tolist())) if exact_ints else float(ws @ pays)
            mean_num += first
            singles[T[0]] = first
        else:
            second_num += 2 * term
    return mean_num, second_num, hit_num, best, singles


def _nothing_pays(ev: _Events, inputs: tuple, max_steps: int):
    """Weight of the screens on which nothing pays: one programme over all events on threshold
    counters, following only the joint states where no event has reached its lowest paying count
    (cheap when the screen is crowded: few screens pay nothing).  None when over ``max_steps``
    steps or :data:`SUBSET_STATES_MAX` states, or when a band has an upper end (a count that pays may grow
    into one that pays nothing: a paying state cannot be dropped early)."""
    if not ev.monotone:
        return None
    ev_vals, offsets, flat_w, rem_cells, rem_max = inputs
    c = ev.thr
    width = float(np.prod(c.n_states.astype(float)))
    if width >= 2.0**62:
        return None
    events = np.arange(len(ev.names), dtype=np.int64)
    paid = np.where(c.ok, DEAD, 0).astype(np.int64)  # a state that pays is not followed
    keys, ws, steps = _set_weights(ev_vals, offsets, flat_w, events, c.nxt, c.n_states, np.zeros_like(c.defc), paid,
                                   np.zeros_like(rem_cells), np.zeros_like(rem_max), ev.vmax, width <= DENSE_STATES_MAX,
                                   max_steps, SUBSET_STATES_MAX)
    if steps > max_steps:
        return None
    return sum(ws.tolist())


def _knapsack_bound(ev: _Events, cells: int) -> int:
    """Largest sum of event pays whose (cell-using) counts fit the screen: an upper bound of the max win."""
    best = [0] * (cells + 1)  # best[c]: largest pay using at most c cells
    for j, options in enumerate(ev.knapsack):
        weight = int(ev.cell_weight[j])
        new = list(best)
        for count, units in options:
            use = count if weight else 0
            for c in range(use, cells + 1):
                if best[c - use] + units > new[c]:
                    new[c] = best[c - use] + units
        best = new
    return best[cells]


def _convolve(a: list, b: list) -> list:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def analyse_scatter_pays(game: Game, strip_set: StripSet, scale: PayScale | None = None, full_cycle: bool | str = "auto",
                         budget: int = DEFAULT_BUDGET, quick: bool = False) -> RuleAnalysis:
    """Exact analysis of one strip set of a scatter_pays game (see the module docstring).  ``quick`` (the editors'
    figures) changes nothing here: every figure of a scatter_pays game is already quick.

    ``full_cycle``: ``"auto"`` enumerates the full cycle when its merged window
    combinations fit ``budget`` (else ``cycle_note`` says why not), ``True``
    requires it (:class:`~workbench.errors.ExactBudgetError` when it does not
    fit), ``False`` skips it.  Raises :class:`~workbench.errors.ExactBudgetError`
    when a part is over its budget.
    """
    if game.rule.counts != "cells":  # a rule that pays counts of a symbol anywhere (model.rules)
        raise ValueError(f"{game.name}: analyse_scatter_pays needs a rule that pays counts anywhere, not {game.pays.rule!r}")
    scale = scale or pay_scale(game)
    where = f"{game.name}: strip set {strip_set.name!r}"
    windows = strip_set_windows(game, strip_set)
    cycle = int(strip_set.cycle)
    cells = screen_cells(game)
    names = paying_symbols(game)
    ids = paying_ids(game)
    sym_pays = symbol_pay_units(game, scale)
    tables = scatter_pay_tables(game, scale)
    top_total = int(sym_pays.max(axis=1).sum()) + int(tables.pays.max(axis=1).sum() if tables.pays.size else 0)
    if top_total >= PAY_UNITS_MAX:
        raise ExactBudgetError(f"{where}: a spin could pay up to {top_total:,} pay units, over the limit of "
                               f"{PAY_UNITS_MAX:,} of 64-bit sums")
    vals, weights = _reel_values(game, windows, ids, tables.index)
    n_sym = len(names)

    combinations, combo_hits, combo_units = _combination_counts(game, scale, names, vals, weights)
    ev, columns = _events(game, scale, vals, n_sym, sym_pays, tables)
    E = len(ev.names)
    n_windows = [len(w) for w in weights]
    exact_ints = cycle < INT_CYCLE_MAX
    if exact_ints:
        wts = [w for w in weights]
    else:
        wts = [w / float(win.total_weight) for w, win in zip(weights, windows)]
    offsets = np.cumsum([0] + n_windows).astype(np.int64)
    ev_vals = np.ascontiguousarray(np.concatenate(vals)[:, columns] if E else np.zeros((int(offsets[-1]), 0), np.int64),
                                   dtype=np.int64)
    flat_w = np.concatenate(wts) if wts else np.zeros(0, np.int64)
    rem_cells = np.array([sum(game.rows[i + 1:]) for i in range(game.reels)], dtype=np.int64)
    reel_max = np.array([[int(v.max()) if len(v) else 0 for v in np.split(ev_vals[:, j], offsets[1:-1])]
                         for j in range(E)], dtype=np.int64).reshape(E, game.reels)
    rem_max = np.ascontiguousarray(np.cumsum(reel_max[:, ::-1], axis=1)[:, ::-1] - reel_max)
    inputs = (ev_vals, offsets, flat_w, rem_cells, rem_max)
    norm = cycle if exact_ints else 1.0
    (mean_num, second_num, hit_num, best, singles), split = _event_sums(ev, inputs, cells, exact_ints, norm, where)
    if exact_ints:
        # the mean from the events equals the combinations' units plus the groups' units
        sym_units = sum(singles.get(j, 0) for j in range(E) if ev.names[j].startswith("symbol:"))
        assert sym_units == sum(combo_units), (sym_units, sum(combo_units))
    if split:
        upper = _knapsack_bound(ev, cells)
        max_exact = upper <= best
        max_units, max_upper = best, (best if max_exact else upper)
    else:
        max_units, max_exact, max_upper = best, True, best
    moments = SpinMoments(mean=float(mean_num / norm), second=float(second_num / norm), hit=float(hit_num / norm),
                          max_units=int(max_units), max_exact=bool(max_exact), max_upper=int(max_upper), max_nodes=0)
    histogram, note = None, None
    if full_cycle is True or full_cycle == "auto":
        histogram, note = _full_cycle(game, strip_set, ev, ev_vals, offsets, weights, int(max_upper) + 1, budget,
                                      required=full_cycle is True)
    return RuleAnalysis(
        combinations=tuple(combinations),
        combo_hits=tuple(combo_hits),
        combo_units=tuple(combo_units),
        cycle=cycle,
        windows=windows,
        moments=moments,
        histogram=histogram,
        cycle_note=note,
    )


def _combination_counts(game: Game, scale: PayScale, names: list, vals: list, weights: list) -> tuple[list, list, list]:
    """Each paying (symbol, count) band with its exact hits over the cycle and its pay units (count distributions
    convolved reel by reel in Python integers)."""
    combinations, combo_hits, combo_units = [], [], []
    unit = game.bet.line_pay_unit
    for j, name in enumerate(names):
        dist = [1]
        for v, w in zip(vals, weights):
            reel = [0] * (int(v[:, j].max()) + 1 if len(v) else 1)
            for c, x in zip(v[:, j].tolist(), w.tolist()):
                reel[c] += x
            dist = _convolve(dist, reel)
        pays = game.paytable[name]
        listed = sorted(pays)
        for i, k in enumerate(listed):
            if pays[k] <= 0:
                continue
            upper = listed[i + 1] if i + 1 < len(listed) else len(dist)
            hits = sum(dist[k:upper])
            combinations.append(Combination(symbol=name, count=k, pay=pays[k]))
            combo_hits.append(int(hits))
            combo_units.append(int(hits) * scale.units(game.bet.credits(pays[k], unit)))
    return combinations, combo_hits, combo_units


def _event_sums(ev: _Events, inputs: tuple, cells: int, exact_ints: bool, norm, where: str) -> tuple[tuple, bool]:
    """(mean, second moment, hits, best win, singles) summed over the event sets, and whether the sets had to be split
    (pairs, then the screens paying nothing or inclusion-exclusion; the max win then bounded by a knapsack)."""
    E = len(ev.names)
    sets, complete = _event_sets(ev, cells, SUBSETS_MAX) if E else ([], True)
    sums = _run_sets(ev, sets, inputs, exact_ints, False, SUBSET_TOP_WORK_MAX) if complete else None
    if sums is not None:
        return sums, False
    many = f"{len(sets):,}" if complete else f"more than {SUBSETS_MAX:,}"
    refusal = (f"{where}: {many} sets of paying symbols and scatter groups can pay together ({E} of them on "
               f"{cells} cells): ")
    sums = _run_sets(ev, [T for T in sets if len(T) <= 2], inputs, exact_ints, False, SUBSET_WORK_MAX)
    if sums is None:
        raise ExactBudgetError(refusal + f"the moments of the pairs take more than {SUBSET_WORK_MAX:,} steps or "
                                         f"{SUBSET_STATES_MAX:,} alive joint counter states in one pair")
    nothing = _nothing_pays(ev, inputs, SUBSET_WORK_MAX // 2)
    if nothing is not None:
        return sums[:2] + (norm - nothing,) + sums[3:], True
    rest = _run_sets(ev, [T for T in sets if len(T) > 2], inputs, exact_ints, True, SUBSET_WORK_MAX) if complete else None
    if rest is None:
        unpaid = (f"takes more than {SUBSET_WORK_MAX // 2:,} steps over the screens that pay nothing" if ev.monotone else
                  "cannot be swept over the screens that pay nothing (a paytable band has an upper end: a count paying "
                  "0 above one that pays)")
        raise ExactBudgetError(
            refusal + f"the hit frequency {unpaid}, and takes by inclusion-exclusion more than {SUBSET_WORK_MAX:,} steps (or "
                      f"{SUBSET_STATES_MAX:,} alive joint counter states in one set, or more than "
                      f"{SUBSETS_MAX:,} sets)")
    return sums[:2] + (sums[2] + rest[2],) + sums[3:], True


def _full_cycle(game: Game, strip_set: StripSet, ev: _Events, ev_vals, offsets, weights: list, size: int, budget: int,
                required: bool) -> tuple[np.ndarray | None, str | None]:
    """The full cycle's histogram of spin wins (pay units), or None and why it was not enumerated (raised when
    ``required``)."""
    cycle = int(strip_set.cycle)
    n_windows = [len(w) for w in weights]
    combos = 1
    for n in n_windows:
        combos *= n
    note = None
    if combos > budget:
        note = f"full cycle of strip set {strip_set.name!r} has {combos:,} distinct window combinations, over the budget of {budget:,}"
    elif cycle >= INT_CYCLE_MAX:
        note = f"cycle of strip set {strip_set.name!r} ({cycle:.3e}) does not fit 64-bit counts"
    elif size > HISTOGRAM_MAX:
        note = (f"full cycle of strip set {strip_set.name!r}: spin wins up to {size - 1:,} pay units need a histogram "
                f"of {size:,} entries, over the limit of {HISTOGRAM_MAX:,}")
    if note is not None:
        if required:
            raise ExactBudgetError(f"{game.name}: {note}")
        return None, note
    if len(ev.names) == 0:
        histogram = np.array([cycle], dtype=np.int64)
    else:
        n_chunks = max(1, min(get_num_threads(), n_windows[0]))
        histogram = _cycle_histogram(ev_vals, offsets, np.concatenate(weights), ev.top.nxt, ev.top.pay, size, n_chunks)
    if int(histogram.sum()) != cycle:
        raise ExactBudgetError(f"full cycle of strip set {strip_set.name!r}: counts overflowed 64 bits")
    last = np.flatnonzero(histogram)
    return (histogram[: int(last[-1]) + 1] if len(last) else histogram[:1]), None
