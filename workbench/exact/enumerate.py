"""The enumeration of a line game's reel windows: full-cycle win distribution and max-win search.

Two depth-first walks over the distinct windows of each reel carry, per
depth, what the lines have paid so far, the lines still undecided (with
their automaton states) and every paying scatter group's running count code,
so each window only advances the undecided lines, and the last reel is a
tight loop:

- ``_walk_cycle`` (:func:`cycle_histogram`): every combination is visited and the spin win added
  to an integer histogram (pay units) with the combination's weight: the
  exact distribution of the spin win over the full cycle;
- ``_walk_max`` (:func:`max_spin_search`):
  branch and bound: a subtree is cut when what has been paid plus an upper
  bound of what the undecided lines and scatter groups can still add does not
  beat the best win found so far.  A line's bound lets each later reel show
  only the symbols its windows show (:func:`reel_future_gain`: a wild missing
  from a reel cannot multiply there); the tighter bound by rows of the next
  reel is computed only for nodes the first does not cut; on the last reel the
  undecided lines' gains are summed by row and symbol once when that is
  cheaper than per window.

In both, the first reel's windows are dealt round-robin to one walk per
thread (``n_chunks``); histograms are summed and maxima maxed afterwards, so
the result does not depend on the number of threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import get_num_threads, njit, prange
from ..errors import ExactBudgetError
from ..model import Game, StripSet
from ..pays.lines import LineAutomaton
from ..pays.scale import PayScale
from ..pays.scatter import ADJACENT, ScatterPayTables, code_count, scatter_pay_tables, update_code
from .windows import ReelWindows

DEFAULT_BUDGET = 2_000_000_000  # window combinations of a full-cycle enumeration
# A full cycle's work is about combinations x (lines + scatter groups): at most this many times the budget.
WORK_PER_COMBINATION = 20
HISTOGRAM_MAX = 1 << 24  # entries of the full-cycle histogram (pay units of the largest spin win + 1), per thread
PAY_UNITS_MAX = 1 << 62  # spin wins are summed in 64-bit integers
MAX_SEARCH_NODES = 10_000_000  # windows the max-win search visits (all strip sets of a mode) before it stops with bounds


def reel_future_gain(automaton: LineAutomaton, shown: np.ndarray, cap: np.ndarray | None = None) -> np.ndarray:
    """``out[d, s]``: largest total gain state ``s`` can still collect from reel ``d`` on
    when reel ``i`` shows only the symbols ``shown[i]`` (bool, reels x symbols); row
    ``reels`` is 0.  At most ``cap`` (:func:`max_future_gain`) when given.
    """
    n, S = shown.shape
    K = automaton.n_states
    trans = automaton.trans.astype(np.int64)
    gain = automaton.gain.astype(np.int64)
    out = np.zeros((n + 1, K), dtype=np.int64)
    for d in range(n - 1, -1, -1):
        cols = np.flatnonzero(shown[d])
        if len(cols):
            best = (gain[:, cols] + out[d + 1][trans[:, cols]]).max(axis=1)
            out[d] = np.where(automaton.live, np.maximum(best, 0), 0)
        if cap is not None:
            out[d] = np.minimum(out[d], cap)
    return out


def max_future_gain(automaton: LineAutomaton) -> np.ndarray:
    """Largest total gain an automaton state can still collect (any symbols)."""
    K = automaton.n_states
    best = np.full(K, -1, dtype=np.int64)

    def solve(state: int) -> int:
        stack = [state]
        while stack:
            s = stack[-1]
            if best[s] >= 0:
                stack.pop()
                continue
            if not automaton.live[s]:
                best[s] = 0
                stack.pop()
                continue
            pending = [int(t) for t in set(automaton.trans[s].tolist()) if best[t] < 0 and t != s]
            if pending:
                stack.extend(pending)
                continue
            best[s] = max(int(automaton.gain[s, a]) + (best[automaton.trans[s, a]] if automaton.trans[s, a] != s else 0)
                          for a in range(automaton.trans.shape[1]))
            stack.pop()
        return int(best[state])

    for s in range(K):
        solve(s)
    return best


@njit(cache=True)
def _row_bound(d, live_line, live_state, nlive, line_rows, trans, gain, future, avail, acc):
    """Upper bound of what the undecided lines can still add from reel ``d`` on.

    Lines reading the same row of reel ``d`` see the same symbol, so each row
    contributes the best single symbol for all its lines together.
    """
    n_reels = avail.shape[0]
    if d >= n_reels:
        return 0
    rows = avail.shape[1]
    S = avail.shape[2]
    for r in range(rows):
        for a in range(S):
            acc[r, a] = 0
    for j in range(nlive):
        st = live_state[j]
        r = line_rows[live_line[j], d]
        for a in range(S):
            acc[r, a] += gain[st, a] + future[d + 1, trans[st, a]]
    total = 0
    for r in range(rows):
        best = 0
        for a in range(S):
            if avail[d, r, a] and acc[r, a] > best:
                best = acc[r, a]
        total += best
    return total


@njit(cache=True, inline="always")
def _leaf_total(d, w, paid, nlive, live_line, live_state, gain, win_sym, line_rows, codes, win_cnt, mode, cap, group_pays):
    """Spin win (pay units) of the combination ending with window ``w`` of the last reel ``d``."""
    total = paid[d]
    for j in range(nlive[d]):
        total += gain[live_state[d, j], win_sym[w, line_rows[live_line[d, j], d]]]
    for g in range(mode.shape[0]):
        total += group_pays[g, code_count(mode[g], update_code(mode[g], cap[g], codes[d, g], win_cnt[w, g]))]
    return total


@njit(cache=True, inline="always")
def _leaf_rows_total(d, w, paid, lacc, win_sym, codes, win_cnt, mode, cap, group_pays):
    """:func:`_leaf_total` from ``lacc[r, a]``: what the undecided lines reading row ``r`` of reel ``d`` gain on ``a``."""
    total = paid[d]
    for r in range(lacc.shape[0]):
        total += lacc[r, win_sym[w, r]]
    for g in range(mode.shape[0]):
        total += group_pays[g, code_count(mode[g], update_code(mode[g], cap[g], codes[d, g], win_cnt[w, g]))]
    return total


@njit
def _walk_cycle(win_sym, win_cnt, win_w, offsets, line_rows, trans, gain, live, mode, cap, group_pays, chunk, n_chunks,
                hist):
    """One walk over the first-reel windows ``offsets[0] + chunk``, ``+ n_chunks``, ... and every window of the
    other reels, adding every combination's weight to ``hist`` at its spin win (pay units)."""
    n_reels = offsets.shape[0] - 1
    n_lines = line_rows.shape[0]
    n_groups = mode.shape[0]
    live_line = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    live_state = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    nlive = np.zeros(n_reels + 1, dtype=np.int64)
    paid = np.zeros(n_reels + 1, dtype=np.int64)
    weight = np.ones(n_reels + 1, dtype=np.int64)
    codes = np.zeros((n_reels + 1, n_groups), dtype=np.int64)
    if live[0]:
        for l in range(n_lines):
            live_line[0, l] = l
        nlive[0] = n_lines
    pos = np.zeros(n_reels, dtype=np.int64)
    pos[0] = offsets[0] + chunk
    d = 0
    last = n_reels - 1
    while True:
        if pos[d] >= offsets[d + 1]:
            if d == 0:
                break
            d -= 1
            pos[d] += n_chunks if d == 0 else 1
            continue
        if d < last:
            w = pos[d]
            k = 0
            inc = 0
            for j in range(nlive[d]):
                l = live_line[d, j]
                st = live_state[d, j]
                sym = win_sym[w, line_rows[l, d]]
                inc += gain[st, sym]
                s2 = trans[st, sym]
                if live[s2]:
                    live_line[d + 1, k] = l
                    live_state[d + 1, k] = s2
                    k += 1
            nlive[d + 1] = k
            paid[d + 1] = paid[d] + inc
            weight[d + 1] = weight[d] * win_w[w]
            for g in range(n_groups):
                codes[d + 1, g] = update_code(mode[g], cap[g], codes[d, g], win_cnt[w, g])
            d += 1
            pos[d] = offsets[d]
        else:
            # the last reel: every window at once (on a one-reel game, this walk's share of them;
            # the common case keeps a unit step so the loop stays tight)
            first, step = (pos[0], n_chunks) if d == 0 else (offsets[d], 1)
            for i in range((offsets[d + 1] - first + step - 1) // step):
                w = first + i * step
                total = _leaf_total(d, w, paid, nlive, live_line, live_state, gain, win_sym, line_rows, codes, win_cnt,
                                    mode, cap, group_pays)
                hist[total] += weight[d] * win_w[w]
            pos[d] = offsets[d + 1]


@njit
def _walk_max(win_sym, win_cnt, offsets, line_rows, trans, gain, live, future, mode, cap, group_pays, max_left, avail,
              chunk, n_chunks, node_budget, nodes_out):
    """:func:`_walk_cycle` searching for the largest spin win by branch and bound: returns it
    (pay units, -1 if none).  ``future[d, s]`` bounds what a line in state ``s`` before reel
    ``d`` can still gain (:func:`reel_future_gain`).  ``nodes_out[0]`` receives the windows
    visited; the search stops once they exceed ``node_budget`` (> 0), with ``nodes_out[1]`` set to 1."""
    n_reels = offsets.shape[0] - 1
    n_lines = line_rows.shape[0]
    n_groups = mode.shape[0]
    live_line = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    live_state = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    nlive = np.zeros(n_reels + 1, dtype=np.int64)
    paid = np.zeros(n_reels + 1, dtype=np.int64)
    bound_lines = np.zeros(n_reels + 1, dtype=np.int64)
    row_done = np.ones(n_reels + 1, dtype=np.bool_)
    codes = np.zeros((n_reels + 1, n_groups), dtype=np.int64)
    acc = np.zeros((avail.shape[1], avail.shape[2]), dtype=np.int64)
    lacc = np.zeros((win_sym.shape[1], trans.shape[1]), dtype=np.int64)
    if live[0]:
        for l in range(n_lines):
            live_line[0, l] = l
        nlive[0] = n_lines
        bound_lines[0] = _row_bound(0, live_line[0], live_state[0], n_lines, line_rows, trans, gain, future, avail, acc)
    best = np.int64(-1)
    pos = np.zeros(n_reels, dtype=np.int64)
    pos[0] = offsets[0] + chunk
    d = 0
    last = n_reels - 1
    nodes = np.int64(0)
    nodes_out[1] = 0
    while True:
        if pos[d] >= offsets[d + 1]:
            if d == 0:
                break
            d -= 1
            pos[d] += n_chunks if d == 0 else 1
            continue
        if node_budget > 0 and nodes > node_budget:
            nodes_out[1] = 1
            break
        # upper bound of anything below this node
        bound = paid[d] + bound_lines[d]
        for g in range(n_groups):
            code = codes[d, g]
            if mode[g] == ADJACENT and code % 2 == 1:
                bound += group_pays[g, code // 2]
            else:
                bound += group_pays[g, min(code_count(mode[g], code) + max_left[g, d], cap[g])]
        if bound > best and not row_done[d]:
            # the lines' futures alone do not cut: the tighter row bound (computed once per node, when needed;
            # it only lowers bound_lines, so every cut is the one it would make computed up front)
            row_done[d] = True
            rb = _row_bound(d, live_line[d], live_state[d], nlive[d], line_rows, trans, gain, future, avail, acc)
            if rb < bound_lines[d]:
                bound -= bound_lines[d] - rb
                bound_lines[d] = rb
        if bound <= best:
            pos[d] = offsets[d + 1]
            continue
        if d < last:
            nodes += 1
            w = pos[d]
            k = 0
            inc = 0
            fut = 0
            for j in range(nlive[d]):
                l = live_line[d, j]
                st = live_state[d, j]
                sym = win_sym[w, line_rows[l, d]]
                inc += gain[st, sym]
                s2 = trans[st, sym]
                if live[s2]:
                    live_line[d + 1, k] = l
                    live_state[d + 1, k] = s2
                    fut += future[d + 1, s2]
                    k += 1
            nlive[d + 1] = k
            paid[d + 1] = paid[d] + inc
            bound_lines[d + 1] = fut  # the row bound follows when needed, above
            row_done[d + 1] = False
            for g in range(n_groups):
                codes[d + 1, g] = update_code(mode[g], cap[g], codes[d, g], win_cnt[w, g])
            d += 1
            pos[d] = offsets[d]
        else:
            # the last reel: every window at once (on a one-reel game, this walk's share of them)
            first, step = (pos[0], n_chunks) if d == 0 else (offsets[d], 1)
            n_leaf = (offsets[d + 1] - first + step - 1) // step
            nodes += n_leaf
            nl = nlive[d]
            if nl * lacc.shape[1] + n_leaf * lacc.shape[0] < n_leaf * nl:
                # many undecided lines: add their gains by row and symbol once, then each window costs a
                # look-up per row (the same integer sums)
                for r in range(lacc.shape[0]):
                    for a in range(lacc.shape[1]):
                        lacc[r, a] = 0
                for j in range(nl):
                    st = live_state[d, j]
                    r = line_rows[live_line[d, j], d]
                    for a in range(lacc.shape[1]):
                        lacc[r, a] += gain[st, a]
                for i in range(n_leaf):
                    total = _leaf_rows_total(d, first + i * step, paid, lacc, win_sym, codes, win_cnt, mode, cap, group_pays)
                    if total > best:
                        best = total
            else:
                for i in range(n_leaf):
                    total = _leaf_total(d, first + i * step, paid, nlive, live_line, live_state, gain, win_sym, line_rows,
                                        codes, win_cnt, mode, cap, group_pays)
                    if total > best:
                        best = total
            pos[d] = offsets[d + 1]
    nodes_out[0] = nodes
    return best


@njit(cache=True, parallel=True)
def _walk_cycle_all(win_sym, win_cnt, win_w, offsets, line_rows, trans, gain, live, mode, cap, group_pays, n_threads,
                    hist_size):
    """:func:`_walk_cycle` once per thread; returns the summed histogram."""
    n_first = offsets[1] - offsets[0]
    n_chunks = max(1, min(n_first, n_threads))
    hists = np.zeros((n_chunks, hist_size), dtype=np.int64)
    for chunk in prange(n_chunks):
        _walk_cycle(win_sym, win_cnt, win_w, offsets, line_rows, trans, gain, live, mode, cap, group_pays, chunk,
                    n_chunks, hists[chunk])
    return hists.sum(axis=0)


@njit(cache=True, parallel=True)
def _search_all(win_sym, win_cnt, offsets, line_rows, trans, gain, live, future, mode, cap, group_pays, max_left, avail,
                n_threads, node_budget):
    """:func:`_walk_max` once per thread; returns (largest win or -1, windows visited, whether a
    walk stopped at its share of ``node_budget``)."""
    n_first = offsets[1] - offsets[0]
    n_chunks = max(1, min(n_first, n_threads))  # more walks than threads only weakens the cut
    best = np.full(n_chunks, -1, dtype=np.int64)
    counts = np.zeros((n_chunks, 2), dtype=np.int64)
    share = (node_budget + n_chunks - 1) // n_chunks if node_budget > 0 else 0
    for chunk in prange(n_chunks):
        best[chunk] = _walk_max(win_sym, win_cnt, offsets, line_rows, trans, gain, live, future, mode, cap, group_pays,
                                max_left, avail, chunk, n_chunks, share, counts[chunk])
    return best.max(), counts[:, 0].sum(), counts[:, 1].max() > 0


# ---------------------------------------------------------------------------
# preparing the walk
# ---------------------------------------------------------------------------
def _walk_arrays(game: Game, windows: list[ReelWindows], tables: ScatterPayTables, order: np.ndarray | None):
    """Windows with weight of every reel stacked (``offsets`` per reel), each reel's
    windows sorted by ``order`` (a value per symbol id, best first) when given."""
    syms, cnts, weights, offsets = [], [], [], [0]
    for w in windows:
        keep = w.weights > 0
        s = w.symbols[keep]
        c = w.counts[keep][:, tables.index] if len(tables.index) else np.zeros((len(s), 0), np.int64)
        wt = w.weights[keep]
        if order is not None:
            # visit promising windows first: the sooner a large win is found, the more is cut
            rank = np.argsort(-order[s].sum(axis=1), kind="stable")
            s, c, wt = s[rank], c[rank], wt[rank]
        pad = np.zeros((len(s), max(game.rows)), dtype=np.int32)
        pad[:, : s.shape[1]] = s
        syms.append(pad)
        cnts.append(c)
        weights.append(wt)
        offsets.append(offsets[-1] + len(s))
    win_sym = np.ascontiguousarray(np.concatenate(syms))
    win_cnt = np.ascontiguousarray(np.concatenate(cnts)).astype(np.int64)
    win_w = np.concatenate(weights).astype(np.int64)
    return win_sym, win_cnt, win_w, np.asarray(offsets, dtype=np.int64)


def _line_rows(game: Game) -> np.ndarray:
    return np.asarray(game.paylines, dtype=np.int32).reshape(len(game.paylines), game.reels)


def max_spin_units(game: Game, automaton: LineAutomaton, scale: PayScale) -> int:
    """An upper bound of the spin win in pay units (histogram size)."""
    tables = scatter_pay_tables(game, scale)
    line_max = int(automaton.pay_units.max()) if automaton.n_states else 0
    return line_max * len(game.paylines) + int(tables.pays.max(axis=1).sum() if tables.pays.size else 0)


def window_combinations(windows: list[ReelWindows]) -> int:
    """Number of combinations of windows with weight (what a full-cycle walk visits)."""
    out = 1
    for w in windows:
        out *= int((w.weights > 0).sum())
    return out


def full_cycle_refusal(game: Game, strip_set: StripSet, windows: list[ReelWindows], automaton: LineAutomaton,
                       scale: PayScale, budget: int = DEFAULT_BUDGET) -> str | None:
    """Why the full cycle of ``strip_set`` cannot be enumerated within ``budget``, or None.

    Checked before any work: distinct window combinations (``budget``), the walk's
    work (combinations x (lines + scatter groups), at most :data:`WORK_PER_COMBINATION`
    x ``budget``), the histogram's size (:data:`HISTOGRAM_MAX` pay units) and 64-bit
    counts.
    """
    combos = window_combinations(windows)
    where = f"full cycle of strip set {strip_set.name!r}"
    if combos > budget:
        return f"{where} has {combos:,} distinct window combinations, over the budget of {budget:,}"
    tables = scatter_pay_tables(game, scale)
    work = combos * (len(game.paylines) + len(tables.index))
    if work > budget * WORK_PER_COMBINATION:
        return (f"{where}: {combos:,} window combinations x {len(game.paylines) + len(tables.index):,} lines and scatter groups "
                f"= {work:,} steps, over the budget of {budget * WORK_PER_COMBINATION:,}")
    if strip_set.cycle >= 2**63:
        return f"cycle of strip set {strip_set.name!r} ({strip_set.cycle:.3e}) does not fit 64-bit counts"
    size = max_spin_units(game, automaton, scale) + 1
    if size > HISTOGRAM_MAX:
        return (f"{where}: spin wins up to {size - 1:,} pay units need a histogram of {size:,} entries, over the "
                f"limit of {HISTOGRAM_MAX:,}")
    return None


def cycle_histogram(
    game: Game,
    strip_set: StripSet,
    windows: list[ReelWindows],
    automaton: LineAutomaton,
    scale: PayScale,
    budget: int = DEFAULT_BUDGET,
) -> np.ndarray:
    """Integer hits of each spin win (index = pay units) over the full cycle of ``strip_set``.

    Raises :class:`~workbench.errors.ExactBudgetError` (before any work) when
    :func:`full_cycle_refusal` gives a reason.
    """
    reason = full_cycle_refusal(game, strip_set, windows, automaton, scale, budget)
    if reason is not None:
        raise ExactBudgetError(f"{game.name}: {reason}")
    tables = scatter_pay_tables(game, scale)
    win_sym, win_cnt, win_w, offsets = _walk_arrays(game, windows, tables, None)
    size = max_spin_units(game, automaton, scale) + 1
    hist = _walk_cycle_all(win_sym, win_cnt, win_w, offsets, _line_rows(game), automaton.trans, automaton.gain,
                           automaton.live, tables.mode, tables.cap, tables.pays, get_num_threads(), size)
    if int(hist.sum()) != strip_set.cycle:
        raise ExactBudgetError(f"full cycle of strip set {strip_set.name!r}: counts overflowed 64 bits")
    return hist


@dataclass(frozen=True)
class MaxWinSearch:
    """Result of the branch-and-bound search for the largest spin win (pay units).

    ``best`` is the largest win found (a win that occurs); when the search
    finished (``exact``) it is the maximum, otherwise the maximum lies between
    ``best`` and ``upper`` (the bound at the root of the search).
    """

    best: int
    exact: bool
    upper: int
    nodes: int


def check_pay_units(game: Game, automaton: LineAutomaton, scale: PayScale) -> None:
    """Raise :class:`~workbench.errors.ExactBudgetError` when a spin win could leave 64-bit sums."""
    top = max_spin_units(game, automaton, scale)
    if top >= PAY_UNITS_MAX:
        raise ExactBudgetError(
            f"{game.name}: a spin could pay up to {top:,} pay units (every line at its top pay plus the top scatter pays), "
            f"over the limit of {PAY_UNITS_MAX:,} of 64-bit sums"
        )


def max_spin_search(game: Game, windows: list[ReelWindows], automaton: LineAutomaton, tables: ScatterPayTables,
                    line_rows: np.ndarray, future: np.ndarray, node_budget: int = MAX_SEARCH_NODES) -> MaxWinSearch:
    """Largest spin win in pay units by branch and bound, stopping after about
    ``node_budget`` windows visited (then with bounds: see :class:`MaxWinSearch`).

    ``future`` (:func:`max_future_gain`) bounds what a state can still collect with any
    symbols; the walk uses the tighter :func:`reel_future_gain`, which lets each reel
    show only the symbols its windows show.
    """
    S = automaton.trans.shape[1]
    avail = np.zeros((game.reels, max(game.rows), S), dtype=np.bool_)
    for i, w in enumerate(windows):
        s = w.symbols[w.weights > 0]
        for r in range(s.shape[1]):
            avail[i, r, s[:, r]] = True
    future = reel_future_gain(automaton, avail.any(axis=1), future)
    value = np.zeros(S)
    for s in range(S):
        value[s] = automaton.gain[0, s] + future[1, automaton.trans[0, s]]
    win_sym, win_cnt, win_w, offsets = _walk_arrays(game, windows, tables, value)
    n_groups = len(tables.index)
    max_left = np.zeros((n_groups, game.reels + 1), dtype=np.int64)
    for g in range(n_groups):
        for d in range(game.reels - 1, -1, -1):
            max_left[g, d] = max_left[g, d + 1] + int(win_cnt[offsets[d]:offsets[d + 1], g].max())
    best, nodes, stopped = _search_all(win_sym, win_cnt, offsets, line_rows, automaton.trans, automaton.gain, automaton.live,
                                       future, tables.mode, tables.cap, tables.pays, max_left, avail, get_num_threads(),
                                       int(node_budget))
    # the bound at the root of the search: what the first node could still lead to
    upper = 0
    if automaton.live[0]:
        n_lines = line_rows.shape[0]
        upper = int(_row_bound(0, np.arange(n_lines, dtype=np.int32), np.zeros(n_lines, dtype=np.int32), n_lines, line_rows,
                               automaton.trans, automaton.gain, future, avail,
                               np.zeros((avail.shape[1], avail.shape[2]), dtype=np.int64)))
    for g in range(n_groups):
        upper += int(tables.pays[g, min(int(max_left[g, 0]), int(tables.cap[g]))])
    best = max(int(best), 0)
    return MaxWinSearch(best=best, exact=not bool(stopped), upper=best if not stopped else max(upper, best), nodes=int(nodes))


def max_spin_win(game: Game, windows: list[ReelWindows], automaton: LineAutomaton, tables: ScatterPayTables,
                 line_rows: np.ndarray, future: np.ndarray) -> int:
    """Largest spin win in pay units (exact, by branch and bound; raises
    :class:`~workbench.errors.ExactBudgetError` if the search exceeds :data:`MAX_SEARCH_NODES`)."""
    search = max_spin_search(game, windows, automaton, tables, line_rows, future)
    if not search.exact:
        raise ExactBudgetError(f"{game.name}: the max-win search stopped after {search.nodes:,} windows, over the budget "
                               f"of {MAX_SEARCH_NODES:,}: the max win is between {search.best:,} and {search.upper:,} pay units")
    return search.best
