"""Exact whole-spin statistics without enumerating the cycle.

Lines share reels, so the spin's variance, hit frequency and maximum need
more than per-line results.  Each is computed exactly, by the cheapest route:

- second moment: ``E[T^2] = sum_l,m E[X_l X_m] + 2 sum_l E[X_l Y] + E[Y^2]``
  (``X_l`` line pays, ``Y`` scatter pays).  ``E[X_l X_m]`` runs the product of
  two line automata over the reels, using each reel's joint distribution of
  the two rows the lines read; symbols that move an automaton state to the same
  next state form one class, and the largest class is handled by subtraction,
  so a step costs a few operations.
- hit frequency: ``1 - P(nothing pays)``; only paths on which nothing has paid
  yet are followed (states: undecided lines and scatter counts), which leaves
  very few states after the first reels.
- maximum: the branch-and-bound walk of :mod:`.enumerate`.

With multiplier wilds the line automaton keeps the multiplier read so far in
its states; the float moments (line futures, line pairs, line x scatter) run
on :func:`scaled_automaton` instead, where states whose pays differ only by
that multiplier are one and the multiplier rides on the steps as an integer
factor (exactly the same pays on every path; only the float sums' rounding
can differ, in the last bits).  Counts, the hit frequency and the maximum use
the line automaton itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import ExactBudgetError
from ..model import Game, StripSet
from ..pays.lines import LineAutomaton
from ..pays.scale import PayScale
from ..pays.scatter import ScatterPayTables, code_count, scatter_pay_tables, update_code
from .enumerate import MAX_SEARCH_NODES, max_spin_search
from .pair_products import SymbolClasses, _line_futures, _line_scatter_products, _pair_products
from .scaled import (
    SCALED_TABLE_FLOATS, _class_tables, _scaled_line_futures, _scaled_line_scatter_products, _scaled_pair_products,
    scaled_automaton_cached,
)
from .unpaid import _unpaid_step, path_masks, window_classes
from .windows import ReelWindows, lexicographic_keys


# Budgets of the whole-spin moments (checked before the work starts, see check_moment_budget).
TABLE_FLOATS_MAX = 1 << 25  # each probability table (joint rows, rows x scatter counts, line futures): 256 MB of floats


PAIR_WORK_MAX = 100_000_000_000  # inner steps of the line-pair products (an upper bound of them)


PAIR_MEMORY_MAX = 1 << 30  # bytes of the pair products' work arrays (33 bytes x states^2 per parallel chunk)


LINE_SCATTER_WORK_MAX = 20_000_000_000  # steps of the line x scatter-group products


JOINT_WORK_MAX = 500_000_000  # windows x rows^2 summed into the joint row tables


LINE_PAIRS_MAX = 1 << 20  # pairs of paylines (lines x (lines - 1) / 2)


# (unpaid paths + their undecided lines) x windows of one reel (hit frequency): about 200 M/s (a 600-stop 5x5
# 15-line game: 112,673,700 steps in 0.53 s); over it the hit frequency alone is left out (SpinMoments.missing)
UNPAID_STEP_MAX = 1_000_000_000


SCATTER_JOINT_MAX = 5_000_000  # joint scatter codes x count vectors x groups of one reel (plain Python)


PAIR_CHUNK_BYTES = 33  # bytes per (state, state) entry of one chunk's work arrays in _pair_products


@dataclass(frozen=True)
class SpinMoments:
    """Moments of the whole-spin win in pay units (probability-weighted).

    ``max_units`` is the largest spin win; when the search for it stopped at its
    budget (``max_exact`` False) it is the largest win found and the maximum is
    at most ``max_upper``.
    """

    mean: float
    second: float
    hit: float
    max_units: int
    max_exact: bool = True
    max_upper: int | None = None
    max_nodes: int = 0  # windows the max-win search visited
    #: figures not computed exactly (over a work budget): "std" (``second`` is NaN), "hit_frequency" (``hit`` is
    #: NaN), "max_win" (``max_units`` 0, ``max_upper`` a bound); ``missing_note`` says why
    missing: tuple = ()
    missing_note: str | None = None


@dataclass(frozen=True)
class RuleAnalysis:
    """Exact results of a ways or scatter_pays strip set (``exact.ways``, ``exact.anywhere``): integer counts
    and pay units over its cycle, the whole-spin moments and, when the full cycle fits, its histogram."""

    combinations: tuple  # each paying (target, count) outcome (Combination)
    combo_hits: tuple  # weighted number of screens over the cycle where it pays (ints)
    combo_units: tuple  # total pay units it pays over the cycle (ways x pay x M) (ints)
    cycle: int  # total weight of the strip set's screens
    windows: list  # per reel ReelWindows (with heights: the union over heights)
    moments: SpinMoments  # whole spin including scatter-group pays
    histogram: np.ndarray | None  # hist[u] = weight of spins paying u units (incl. scatter pays)
    cycle_note: str | None  # why the histogram was not computed






# ---------------------------------------------------------------------------
# putting it together
# ---------------------------------------------------------------------------
def distinct_line_pairs(game: Game, strip_set: StripSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of lines (l < m) with distinct E[X_l X_m], and how many pairs each stands for.

    On an unweighted strip the joint distribution of two rows depends only on
    their distance (every stop is equally likely), and swapping the two lines
    changes nothing, so many pairs share one value.  Each distinct pair is
    represented by its first (l, m) in the order l, then m; pairs are listed in
    that order of first appearance.
    """
    n_lines = len(game.paylines)
    empty = (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    if n_lines < 2:
        return empty
    lines = np.asarray(game.paylines, dtype=np.int64).reshape(n_lines, game.reels)
    weighted = np.array([strip.weights is not None for strip in strip_set.reels])
    pl, pm = np.triu_indices(n_lines, 1)
    rl, rm = lines[pl], lines[pm]
    offset = int(max(game.rows))  # shifts differences (-rows, rows) to non-negative codes, keeping their order
    # the pair's reading of each reel, as (first, second): both rows on a weighted reel, (0, distance) otherwise
    a = np.empty((len(pl), 2 * game.reels), dtype=np.int64)
    b = np.empty_like(a)
    a[:, 0::2] = np.where(weighted, rl, 0) + offset
    a[:, 1::2] = np.where(weighted, rm, rm - rl) + offset
    b[:, 0::2] = np.where(weighted, rm, 0) + offset
    b[:, 1::2] = np.where(weighted, rl, rl - rm) + offset
    # the smaller of the two readings, compared lexicographically
    differ = a != b
    first = np.argmax(differ, axis=1)
    rows = np.arange(len(pl))
    take_b = differ[rows, first] & (b[rows, first] < a[rows, first])
    key_cols = np.where(take_b[:, None], b, a)
    key = lexicographic_keys([key_cols[:, c] for c in range(key_cols.shape[1])])
    _, first_at, counts = np.unique(key, return_index=True, return_counts=True)
    order = np.argsort(first_at, kind="stable")
    at = first_at[order]
    return pl[at].astype(np.int32), pm[at].astype(np.int32), counts[order].astype(float)


def _joint_row_tables(game: Game, windows: list[ReelWindows], n_symbols: int) -> tuple[np.ndarray, np.ndarray]:
    """J[i, ra, rb, a, b]: probability that reel i shows a at row ra and b at row rb; R[i, r, a] for one row.

    (``np.bincount`` adds the windows in order into zeros, like ``np.add.at``, so the
    sums are the same to the last bit.)
    """
    rows = max(game.rows)
    S = n_symbols
    J = np.zeros((game.reels, rows, rows, S, S))
    R = np.zeros((game.reels, rows, S))
    for i, win in enumerate(windows):
        p = win.weights / float(win.total_weight)
        sym = win.symbols.astype(np.int64)
        for ra in range(game.rows[i]):
            R[i, ra] = np.bincount(sym[:, ra], weights=p, minlength=S)
            for rb in range(game.rows[i]):
                J[i, ra, rb] = np.bincount(sym[:, ra] * S + sym[:, rb], weights=p, minlength=S * S).reshape(S, S)
    return J, R


def depth_layers(automaton: LineAutomaton) -> list[np.ndarray]:
    """Live automaton states by depth: ``layers[i]`` are the states a line can be in before reel ``i``."""
    layers = []
    current = np.array([0] if automaton.live[0] else [], dtype=np.int64)
    for _ in range(automaton.n_reels):
        layers.append(current)
        nxt = np.unique(automaton.trans[current].ravel()) if len(current) else current
        current = nxt[automaton.live[nxt]]
    return layers


@dataclass(frozen=True)
class MomentPlan:
    """What :func:`check_moment_budget` found: the distinct line pairs, how many
    parallel chunks of the pair products fit the memory budget, and an upper
    bound of the steps of the products (for budgets over several strip sets)."""

    pairs: tuple
    pair_chunks: int
    work: int = 0


def check_moment_budget(game: Game, strip_set: StripSet, windows: list[ReelWindows], automaton: LineAutomaton,
                        classes: "SymbolClasses", tables: ScatterPayTables) -> MomentPlan:
    """Sizes of the whole-spin moments of ``strip_set``, computed before any of the work.

    Raises :class:`~workbench.errors.ExactBudgetError` naming the first table or
    product over its budget (the module's ``*_MAX`` constants), its size and the limit.
    """
    where = f"{game.name}: strip set {strip_set.name!r}"

    def refuse(what: str, size: int, limit: int) -> None:
        raise ExactBudgetError(f"{where}: {what} {size:,}, over the budget of {limit:,}")

    S = automaton.trans.shape[1]
    K = automaton.n_states
    rows = max(game.rows)
    reels = game.reels
    n_lines = len(game.paylines)
    n_groups = len(tables.index)
    joint = reels * rows * rows * S * S
    if joint > TABLE_FLOATS_MAX:
        refuse(f"the joint row table ({reels} reels x {rows}^2 rows x {S}^2 symbols) has", joint, TABLE_FLOATS_MAX)
    joint_work = sum(r * (r + n_groups) * len(w.weights) for r, w in zip(game.rows, windows))
    if joint_work > JOINT_WORK_MAX:
        refuse("the joint row and scatter tables sum windows x rows x (rows + paying groups) =", joint_work, JOINT_WORK_MAX)
    futures = n_lines * (reels + 1) * K
    if futures > TABLE_FLOATS_MAX:
        refuse(f"the line futures ({n_lines} lines x {reels + 1} x {K} states) have", futures, TABLE_FLOATS_MAX)
    layers = depth_layers(automaton)
    live_steps = sum(len(layer) for layer in layers) * S
    if n_lines * live_steps > PAIR_WORK_MAX:
        refuse(f"the line futures ({n_lines} lines x {live_steps:,} live state steps) take", n_lines * live_steps, PAIR_WORK_MAX)
    all_pairs = n_lines * (n_lines - 1) // 2
    if all_pairs > LINE_PAIRS_MAX:
        refuse(f"{n_lines:,} paylines make pairs:", all_pairs, LINE_PAIRS_MAX)
    pairs = distinct_line_pairs(game, strip_set) if n_lines > 1 else None
    chunks = 1
    total_work = n_lines * live_steps
    if pairs is not None:
        n_cls = np.diff(classes.cls_ptr).astype(np.int64)
        # members of each state's explicit classes (mem_ptr has one entry per class and one more)
        n_mem = np.diff(classes.mem_ptr.astype(np.int64)[classes.cls_ptr])
        per_state = 1 + n_cls + n_mem
        per_pair = sum(int(per_state[layer].sum()) ** 2 for layer in layers)
        work = len(pairs[0]) * per_pair
        total_work += work
        if work > PAIR_WORK_MAX:
            refuse(f"the products of {len(pairs[0]):,} distinct line pairs ({K:,} automaton states) take up to", work,
                   PAIR_WORK_MAX)
        per_chunk = PAIR_CHUNK_BYTES * K * K + 40 * (S + 1)
        chunks = int(PAIR_MEMORY_MAX // per_chunk)
        if chunks < 1:
            refuse(f"the line-pair products need per chunk ({K:,} automaton states) bytes:", per_chunk, PAIR_MEMORY_MAX)
    if n_groups:
        C = int(max(int(w.counts.max()) if w.counts.size else 0 for w in windows)) + 1
        h = n_groups * reels * rows * S * C
        if h > TABLE_FLOATS_MAX:
            refuse(f"the row x scatter-count table ({n_groups} groups x {reels} reels x {rows} rows x {S} symbols x {C} counts) has",
                   h, TABLE_FLOATS_MAX)
        n_codes = tables.n_codes
        work = n_lines * n_groups * (reels * (K * n_codes + n_codes * C * S) + sum(len(l) for l in layers) * n_codes * S * C)
        total_work += work
        if work > LINE_SCATTER_WORK_MAX:
            refuse(f"the products of {n_lines} lines and {n_groups} paying scatter groups take up to", work,
                   LINE_SCATTER_WORK_MAX)
    return MomentPlan(pairs=pairs, pair_chunks=chunks, work=total_work)


def _scatter_only_moments(tables: ScatterPayTables, windows: list[ReelWindows], where: str = "") -> tuple[float, float]:
    """E[Y] and E[Y^2] of the scatter pays (joint over all paying groups); ``where`` starts
    the message of the :class:`~workbench.errors.ExactBudgetError` raised when the joint
    codes exceed :data:`SCATTER_JOINT_MAX`."""
    if not len(tables.index):
        return 0.0, 0.0
    layer = {tuple([0] * len(tables.index)): 1.0}
    for reel, win in enumerate(windows):
        counts = win.counts[:, tables.index]
        p = win.weights / float(win.total_weight)
        dist: dict = {}
        for row, q in zip(map(tuple, counts.tolist()), p.tolist()):
            dist[row] = dist.get(row, 0.0) + q
        steps = len(layer) * len(dist) * len(tables.index)
        if steps > SCATTER_JOINT_MAX:
            raise ExactBudgetError(
                f"{where}the joint scatter counts of {len(tables.index)} paying groups on reel {reel + 1}: {len(layer):,} codes x "
                f"{len(dist):,} count vectors x groups = {steps:,} steps, over the budget of {SCATTER_JOINT_MAX:,}")
        nxt: dict = {}
        for code, v in layer.items():
            for cnt, q in dist.items():
                new = tuple(int(update_code(int(tables.mode[g]), int(tables.cap[g]), code[g], cnt[g])) for g in range(len(code)))
                nxt[new] = nxt.get(new, 0.0) + v * q
        layer = nxt
    mean = second = 0.0
    for code, v in layer.items():
        y = sum(int(tables.pays[g, int(code_count(int(tables.mode[g]), c))]) for g, c in enumerate(code))
        mean += v * y
        second += v * y * y
    return mean, second


def spin_moments(
    game: Game,
    strip_set: StripSet,
    windows: list[ReelWindows],
    automaton: LineAutomaton,
    scale: PayScale,
    line_moments: np.ndarray,
    classes: SymbolClasses,
    future: np.ndarray,
    plan: MomentPlan | None = None,
    max_nodes: int = MAX_SEARCH_NODES,
) -> SpinMoments:
    """Exact mean, second moment, hit probability and maximum of the spin win (pay units).

    ``line_moments[l]`` = (hits, sum of pay, sum of pay^2) of line ``l`` over the
    cycle (exact per-line results), used for the diagonal terms.  ``plan`` is
    :func:`check_moment_budget`'s result (computed here when not given); the
    max-win search stops after about ``max_nodes`` windows (then the maximum is
    given with bounds, see :class:`SpinMoments`).  Raises
    :class:`~workbench.errors.ExactBudgetError` when a part is over its budget.
    """
    tables = scatter_pay_tables(game, scale)
    if plan is None:
        plan = check_moment_budget(game, strip_set, windows, automaton, classes, tables)
    n_lines = len(game.paylines)
    line_rows = np.asarray(game.paylines, dtype=np.int32).reshape(n_lines, game.reels)
    cycle = strip_set.cycle
    J, R = _joint_row_tables(game, windows, automaton.trans.shape[1])
    # multipliers as weights: fewer states for the float moments (None: no state merges, the automaton as it is)
    scaled = scaled_automaton_cached(automaton)
    if scaled is not None and game.reels * max(game.rows) ** 2 * (len(scaled.unique_ptr) - 1) ** 2 * 4 > SCALED_TABLE_FLOATS:
        scaled = None

    line_mean = sum(int(x) for x in line_moments[:, 1]) / cycle
    line_second = sum(int(x) for x in line_moments[:, 2]) / cycle
    if n_lines > 1:
        line_second += 2.0 * _line_pairs(line_rows, J, R, automaton, classes, scaled, plan)
    y_mean, y_second = _scatter_only_moments(tables, windows, f"{game.name}: strip set {strip_set.name!r}: ")
    line_y = _lines_times_scatters(game, windows, line_rows, automaton, scaled, tables) if len(tables.index) else 0.0
    try:
        hit = _hit_probability(game, strip_set, windows, line_rows, automaton, tables)
        missing, why = (), None
    except ExactBudgetError as exc:  # the hit frequency alone is left out (simulate.screens estimates it)
        hit, missing, why = math.nan, ("hit_frequency",), str(exc).split(": ", 1)[-1]

    search = max_spin_search(game, windows, automaton, tables, line_rows, future, max_nodes)
    mean = line_mean + y_mean
    second = line_second + 2.0 * line_y + y_second
    return SpinMoments(mean=mean, second=second, hit=hit, max_units=search.best, max_exact=search.exact,
                       max_upper=search.upper, max_nodes=search.nodes, missing=missing, missing_note=why)


def _line_pairs(line_rows, J, R, automaton: LineAutomaton, classes: SymbolClasses, scaled, plan: MomentPlan) -> float:
    """``sum over pairs l < m of E[X_l X_m]`` (pay units squared), each distinct pair once times its multiplicity."""
    pair_l, pair_m, multiplicity = plan.pairs
    if scaled is not None:
        V = _scaled_line_futures(line_rows, R, scaled.trans, scaled.factor, scaled.live, scaled.pay)
        sc = scaled.classes
        RU, RW, Q = _class_tables(J, R, scaled.unique_ptr, scaled.unique_members, scaled.unique_factor)
        cross = _scaled_pair_products(pair_l, pair_m, line_rows, RU, RW, Q, V, scaled.pay, scaled.live, sc.default_next,
                                      sc.cls_ptr, sc.cls_next, scaled.class_unique, scaled.default_factor,
                                      plan.pair_chunks)
    else:
        pay = automaton.pay_units.astype(float)
        V = _line_futures(line_rows, R, automaton.trans, automaton.live, pay)
        cross = _pair_products(pair_l, pair_m, line_rows, J, R, V, pay, automaton.live,
                               classes.default_next, classes.cls_ptr, classes.cls_next, classes.mem_ptr, classes.members,
                               plan.pair_chunks)
    return float(cross @ multiplicity)


def _lines_times_scatters(game: Game, windows: list[ReelWindows], line_rows, automaton: LineAutomaton, scaled,
                          tables: ScatterPayTables) -> float:
    """``sum over lines l of E[X_l Y]`` (pay units squared): each line's pay times the scatter pays."""
    n_symbols = automaton.trans.shape[1]
    n_groups = len(tables.index)
    C = int(max(int(w.counts.max()) if w.counts.size else 0 for w in windows)) + 1
    H = np.zeros((n_groups, game.reels, max(game.rows), n_symbols, C))
    for i, win in enumerate(windows):
        p = win.weights / float(win.total_weight)
        sym = win.symbols.astype(np.int64)
        for g, gi in enumerate(tables.index):
            cnt = win.counts[:, gi].astype(np.int64)
            for r in range(game.rows[i]):
                # in window order into zeros, as np.add.at would: the same sums to the last bit
                H[g, i, r] = np.bincount(sym[:, r] * C + cnt, weights=p, minlength=n_symbols * C).reshape(n_symbols, C)
    if scaled is not None:
        products = _scaled_line_scatter_products(line_rows, H, scaled.trans, scaled.factor, scaled.live, scaled.pay,
                                                 tables.mode, tables.cap, tables.pays, tables.n_codes)
    else:
        products = _line_scatter_products(line_rows, H, automaton.trans, automaton.live, automaton.pay_units.astype(float),
                                          tables.mode, tables.cap, tables.pays, tables.n_codes)
    return float(products.sum())


def _hit_probability(game: Game, strip_set: StripSet, windows: list[ReelWindows], line_rows, automaton: LineAutomaton,
                     tables: ScatterPayTables) -> float:
    """The hit frequency, ``1 - P(nothing pays)``, following only the paths not paid yet: in exact integer weights
    (the float nearest the exact fraction) when the cycle fits 62 bits, else in probabilities."""
    exact = strip_set.cycle < 1 << 62
    n_lines = len(game.paylines)
    n_groups = len(tables.index)
    live0 = bool(automaton.live[0])
    ptr = np.array([0, n_lines if live0 else 0], dtype=np.int64)
    lline = np.arange(n_lines, dtype=np.int32) if live0 else np.zeros(0, np.int32)
    lstate = np.zeros(len(lline), dtype=np.int32)
    codes = np.zeros((1, n_groups), dtype=np.int64)
    prob = np.ones(1, dtype=np.int64 if exact else np.float64)
    for reel, win in enumerate(windows):
        keep = win.weights > 0
        steps = (len(prob) + len(lline)) * int(keep.sum())
        if steps > UNPAID_STEP_MAX:
            raise ExactBudgetError(
                f"{game.name}: strip set {strip_set.name!r}: hit frequency: {len(prob):,} unpaid paths ({len(lline):,} "
                f"undecided lines) x {int(keep.sum()):,} windows of reel {reel + 1} = {steps:,} steps, over the budget of "
                f"{UNPAID_STEP_MAX:,}")
        cnt = np.ascontiguousarray(win.counts[keep][:, tables.index]) if n_groups else np.zeros((int(keep.sum()), 0), np.int64)
        symbols = np.ascontiguousarray(win.symbols[keep])
        masks = path_masks(ptr, lline, reel, line_rows)
        of_mask, cls_ptr, cls_rep, cls_weight = window_classes(symbols, cnt, win.weights[keep], np.unique(masks))
        ptr, lline, lstate, codes, prob = _unpaid_step(
            ptr, lline, lstate, codes, prob, symbols, cnt, cls_weight if exact else cls_weight / float(win.total_weight),
            reel, line_rows,
            automaton.trans, automaton.gain, automaton.live, tables.mode, tables.cap, masks, of_mask, cls_ptr, cls_rep,
        )
    nothing = 0
    for s in range(len(prob)):
        y = sum(int(tables.pays[g, int(code_count(int(tables.mode[g]), int(codes[s, g])))]) for g in range(n_groups))
        if y == 0:
            nothing += int(prob[s]) if exact else float(prob[s])
    return float(Fraction(strip_set.cycle - nothing, strip_set.cycle)) if exact else 1.0 - nothing
