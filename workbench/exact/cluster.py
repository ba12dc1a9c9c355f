"""Exact math of cluster pays: combinations, moments, hit frequency, max win and the full-cycle
histogram of one strip set, by a compiled full enumeration of its reels' windows.

Rule (``[pays] rule = "cluster"``, see :mod:`workbench.pays.cluster`): every cluster of N or more
orthogonally adjacent cells of a paying symbol (wilds joining) pays the entry of the largest listed
size not above its size, x the line pay unit; every cluster pays on its own.  Scatter groups add
their pays as in every rule.  All amounts are integer pay units.

Method.  Clusters are not a product over reels, so every screen is evaluated:

- each reel's distinct windows (:func:`~.windows.strip_set_windows`) are reduced to what the pays
  see: the cells of every paying symbol and of the wilds (other symbols become empty cells) and the
  counts of the paying scatter groups; windows equal in all of that are merged, their weights
  added;
- if the product of the merged windows per reel is over the budget, the analysis is refused
  before any work (:class:`~workbench.errors.ExactBudgetError`, naming the game, the count and the
  budget: such a game is simulated);
- a compiled depth-first walk over the reels (the first reel's windows split over the threads)
  builds each screen's per-symbol bitboards reel by reel and evaluates the clusters at the last
  reel with :func:`workbench.pays.cluster.board_clusters` (the same bitboard flood fill as the
  rounds' :func:`~workbench.pays.cluster.cluster_pay_screen`), adding the scatter groups' pays.

Per combination (symbol x size band, one per listed size with pay above 0) it counts the weight
of the screens holding at least one such cluster (``combo_hits``) and the weight x number of such
clusters (``combo_units`` = that x the band's pay units), all exact integers: 64-bit sums in the
walk while the cycle x the cells fits 63 bits, else (longer cycles) one row of sums per window of
reel 1 without its weight, multiplied in afterwards with Python integers (then there is no
histogram; the cycle without reel 1 x the cells must fit 63 bits).  The whole spin's moments and
max win come from the histogram of the spin pay when it fits :data:`~.enumerate.HISTOGRAM_MAX`
(exact integers), else from float sums over the same walk (the max win and hit frequency stay
exact).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._jit import get_num_threads, njit, prange
from ..errors import ExactBudgetError
from ..model import Game, StripSet
from ..pays.cluster import board_clusters, cluster_pay_units, paying_symbols, popcount, screen_masks
from ..pays.lines import Combination
from ..pays.scale import PayScale, pay_scale
from ..pays.scatter import code_count, scatter_pay_tables, update_code
from .enumerate import DEFAULT_BUDGET, HISTOGRAM_MAX, PAY_UNITS_MAX
from .moments import RuleAnalysis, SpinMoments
from .windows import strip_set_windows

# Distinct (merged) window combinations enumerated unless the caller requires the full cycle with
# a budget of its own (``full_cycle=True``): about 50-150 ns each on one core, a few seconds.
CLUSTER_COMBINATIONS_MAX = 30_000_000
# Above this many combinations an analysis without the histogram (``full_cycle=False``) goes to the column transfer
# first (milliseconds where the walk takes seconds); the walk is its fallback within its budget.
TRANSFER_PREFERRED_ABOVE = 100_000
INT_CYCLE_MAX = 1 << 63


def _reel_values(game: Game, windows: list, paying_ids: np.ndarray, wild_ids: np.ndarray, group_index: np.ndarray):
    """Per reel: merged windows as (symbol masks uint64[n, P], wild mask uint64[n], group counts
    int64[n, G], weights int64[n]); masks are already shifted to the reel's cells."""
    rows = game.rows[0]
    local = {int(s): j for j, s in enumerate(paying_ids.tolist())}
    wild = set(int(s) for s in wild_ids.tolist())
    out = []
    for reel, win in enumerate(windows):
        merged: dict = {}
        for w in range(len(win.weights)):
            weight = int(win.weights[w])
            if weight == 0:
                continue
            masks = [0] * len(local)
            wmask = 0
            for k, s in enumerate(win.symbols[w].tolist()):
                bit = 1 << (reel * rows + k)
                if s in wild:
                    wmask |= bit
                elif s in local:
                    masks[local[s]] |= bit
            key = (tuple(masks), wmask, tuple(int(c) for c in win.counts[w, group_index].tolist()))
            merged[key] = merged.get(key, 0) + weight
        keys = list(merged)
        n = len(keys)
        sym = np.array([k[0] for k in keys], dtype=np.uint64).reshape(n, len(local))
        wm = np.array([k[1] for k in keys], dtype=np.uint64).reshape(n)
        grp = np.array([k[2] for k in keys], dtype=np.int64).reshape(n, len(group_index))
        out.append((sym, wm, grp, np.array([merged[k] for k in keys], dtype=np.int64)))
    return out


@njit(cache=True, parallel=True)
def _walk(masks, wmask, gcnt, weights, offsets, pays, combo_of, min_size, rows, n_cells, smode, scap, spays,
          hist_size, n_combos, n_chunks, split):
    """The full-cycle walk (see the module docstring): per thread (histogram of the spin pay, or one
    entry when ``hist_size`` is 1; float sums of w x pay and w x pay^2; hit weight; max pay;
    weight of screens with a cluster of each combination; weight x clusters of each combination).
    ``split``: one row per window of reel 1 instead of per thread, its weight left out (the caller
    multiplies it in with Python integers: cycles beyond 64 bits)."""
    n_reels = offsets.shape[0] - 1
    P = pays.shape[0]
    G = smode.shape[0]
    max_size = pays.shape[1] - 1
    one = np.uint64(1)
    zero = np.uint64(0)
    top = zero
    for r in range(n_reels):
        top |= one << np.uint64(r * rows)
    full = ~zero if n_cells >= 64 else (one << np.uint64(n_cells)) - one
    not_top = full & ~top
    not_bottom = full & ~(top << np.uint64(rows - 1))
    shift = np.uint64(rows)
    n0 = offsets[1] - offsets[0]
    n_acc = n0 if split else n_chunks
    hist = np.zeros((n_acc, hist_size), dtype=np.int64)
    sums = np.zeros((n_acc, 2), dtype=np.float64)
    hitw = np.zeros(n_acc, dtype=np.int64)
    best = np.zeros(n_acc, dtype=np.int64)
    chits = np.zeros((n_acc, n_combos), dtype=np.int64)
    cclus = np.zeros((n_acc, n_combos), dtype=np.int64)
    for c in prange(n_chunks):
        boards = np.zeros((n_reels + 1, P), dtype=np.uint64)
        wild = np.zeros(n_reels + 1, dtype=np.uint64)
        codes = np.zeros((n_reels + 1, G), dtype=np.int64)
        wt = np.zeros(n_reels + 1, dtype=np.int64)
        idx = np.zeros(n_reels + 1, dtype=np.int64)
        sizes = np.zeros(64, dtype=np.int64)
        stamp = np.full(n_combos, -1, dtype=np.int64)
        leaf = 0
        wt[0] = 1
        for w0 in range(offsets[0] + c, offsets[0] + n0, n_chunks):
            # the state after reel 1 is depth 1; the last reel's windows are evaluated as leaves of depth n_reels - 1
            d = 0
            r_first = w0
            a = np.int64(w0 - offsets[0]) if split else np.int64(c)  # the accumulator row
            while True:
                if d == n_reels - 1:
                    lo = offsets[d]
                    hi = offsets[d + 1]
                    if d == 0:
                        lo = r_first
                        hi = r_first + 1
                    for r in range(lo, hi):
                        w = wt[d] * (1 if split and d == 0 else weights[r])
                        wild_b = wild[d] | wmask[r]
                        p = 0
                        for j in range(P):
                            own = boards[d, j] | masks[r, j]
                            if own == zero or popcount(own | wild_b) < min_size[j]:
                                continue
                            n = board_clusters(own, wild_b, max_size, shift, not_top, not_bottom, full, sizes)
                            for q in range(n):
                                sz = sizes[q]
                                p += pays[j, sz]
                                k = combo_of[j, sz]
                                if k >= 0:
                                    cclus[a, k] += w
                                    if stamp[k] != leaf:
                                        stamp[k] = leaf
                                        chits[a, k] += w
                        for g in range(G):
                            code = update_code(smode[g], scap[g], codes[d, g], gcnt[r, g])
                            p += spays[g, code_count(smode[g], code)]
                        leaf += 1
                        if hist_size > 1:
                            hist[a, p] += w
                        else:
                            hist[a, 0] += w
                        pf = float(p)
                        sums[a, 0] += w * pf
                        sums[a, 1] += w * pf * pf
                        if p > 0:
                            hitw[a] += w
                            if p > best[a]:
                                best[a] = p
                    if d == 0:
                        break
                    d -= 1
                    if d < 1:
                        break
                    continue
                if d == 0:
                    r = r_first
                    idx[1] = offsets[1]
                else:
                    if idx[d] == offsets[d + 1]:
                        d -= 1
                        if d < 1:
                            break
                        continue
                    r = idx[d]
                    idx[d] += 1
                for j in range(P):
                    boards[d + 1, j] = boards[d, j] | masks[r, j]
                wild[d + 1] = wild[d] | wmask[r]
                for g in range(G):
                    codes[d + 1, g] = update_code(smode[g], scap[g], codes[d, g], gcnt[r, g])
                wt[d + 1] = wt[d] * (1 if split and d == 0 else weights[r])
                d += 1
                idx[d] = offsets[d]
    return hist, sums, hitw, best, chits, cclus


def cluster_combinations(game: Game) -> tuple:
    """The combinations of a cluster game: per paying symbol (``[symbols]`` order) one per listed
    size with a pay above 0, ``count`` the size band's lowest size, ``pay`` per cluster (line pay unit)."""
    out = []
    for name in paying_symbols(game):
        pays = game.paytable[name]
        out += [Combination(symbol=name, count=k, pay=pays[k]) for k in sorted(pays) if pays[k] > 0]
    return tuple(out)


def count_combinations(game: Game, strip_set: StripSet) -> int:
    """Distinct merged window combinations the exact analysis of ``strip_set`` enumerates."""
    scale = pay_scale(game)
    ids, wild_ids, tables = _ids(game, scale)
    total = 1
    for sym, _, _, _ in _reel_values(game, strip_set_windows(game, strip_set), ids, wild_ids, tables.index):
        total *= len(sym)
    return total


def _ids(game: Game, scale: PayScale):
    ids = np.array([game.symbols[n].index for n in paying_symbols(game)], dtype=np.int64)
    wild_ids = np.array([s.index for s in game.symbols.values() if s.is_wild], dtype=np.int64)
    return ids, wild_ids, scatter_pay_tables(game, scale)


def analyse_cluster(game: Game, strip_set: StripSet, scale: PayScale | None = None, full_cycle: bool | str = "auto",
                    budget: int = DEFAULT_BUDGET, quick: bool = False) -> RuleAnalysis:
    """Exact analysis of one strip set of a cluster game (see the module docstring); amounts in pay units.
    ``quick`` (the editors' figures, live at each edit): the column transfer spends at most a tenth of a second or
    so beyond the RTP and its combinations, leaving out (``moments.missing``) what would take longer.

    The walk enumerates every distinct merged window combination, so it is refused
    (:class:`~workbench.errors.ExactBudgetError`) before any work when their number is over the
    budget: ``budget`` when ``full_cycle`` is True (the caller's choice), else the smaller of
    ``budget`` and :data:`CLUSTER_COMBINATIONS_MAX`.  ``full_cycle``: ``"auto"`` and ``True`` also
    return the histogram (``True`` raises when it cannot be built), ``False`` leaves it out.
    """
    if game.rule.counts != "cluster":  # a rule that pays clusters (model.rules)
        raise ValueError(f"{game.name}: analyse_cluster needs a rule that pays clusters, not {game.pays.rule!r}")
    scale = scale or pay_scale(game)
    where = f"{game.name}: strip set {strip_set.name!r}"
    rows = game.rows[0]
    if any(r != rows for r in game.rows):
        raise ExactBudgetError(f"{where}: a cluster game needs the same rows on every reel")
    screen_masks(game.reels, rows)  # refuses screens over 64 cells
    cells = game.reels * rows
    names = paying_symbols(game)
    ids, wild_ids, tables = _ids(game, scale)
    all_pays = cluster_pay_units(game, scale)
    pays = np.ascontiguousarray(all_pays[ids]) if len(ids) else np.zeros((0, all_pays.shape[1]), np.int64)
    combinations = cluster_combinations(game)
    combo_of, min_size = _size_bands(game, names, pays.shape[1] - 1)
    limit = budget if full_cycle is True else min(budget, CLUSTER_COMBINATIONS_MAX)
    windows = strip_set_windows(game, strip_set)
    reels = _reel_values(game, windows, ids, wild_ids, tables.index)
    # sizes no screen of these strips shows are dropped: a band whose upper end is out of reach is open here,
    # so the routes that need every band open (the sweeps over runs) still apply
    width = sizes_in_reach(pays, screen_reach(reels, len(names))) + 1
    pays, combo_of = np.ascontiguousarray(pays[:, :width]), np.ascontiguousarray(combo_of[:, :width])
    combos = 1
    for sym, _, _, _ in reels:
        combos *= len(sym)
    cycle = int(strip_set.cycle)
    spays = tables.pays if tables.pays.size else np.zeros((0, 1), np.int64)
    # each paying cluster uses min_size cells at least and pays at most its symbol's largest pay (a band may end)
    upper = sum((cells // int(min_size[j])) * int(pays[j].max()) for j in range(len(names)))
    upper += int(spays.max(axis=1).sum()) if len(spays) else 0
    if full_cycle is False and combos > TRANSFER_PREFERRED_ABOVE:
        # without the histogram the transfer gives everything, in far less time than evaluating every screen
        try:
            return _transfer(game, strip_set, scale, reels, windows, pays, combo_of, combinations, cycle, upper, tables,
                             spays, combos, limit, quick)
        except ExactBudgetError:
            if combos > limit:
                raise
    if combos > limit:
        if full_cycle is True:
            raise ExactBudgetError(f"{where}: the full cycle of a cluster game evaluates every screen, and this one has "
                                   f"{combos:,} distinct window combinations, over the budget of {limit:,}")
        return _transfer(game, strip_set, scale, reels, windows, pays, combo_of, combinations, cycle, upper, tables,
                         spays, combos, limit, quick)
    split, size, note = _walk_plan(game, strip_set, cells, int(reels[0][3].sum()), upper, full_cycle)
    want_hist = size <= HISTOGRAM_MAX and not split
    offsets = np.cumsum([0] + [len(r[3]) for r in reels]).astype(np.int64)
    n_total = int(offsets[-1])
    masks = np.ascontiguousarray(np.concatenate([r[0] for r in reels]), dtype=np.uint64).reshape(n_total, len(names))
    wmask = np.ascontiguousarray(np.concatenate([r[1] for r in reels]), dtype=np.uint64)
    gcnt = np.ascontiguousarray(np.concatenate([r[2] for r in reels]), dtype=np.int64).reshape(n_total, len(tables.index))
    weights = np.ascontiguousarray(np.concatenate([r[3] for r in reels]), dtype=np.int64)
    n_chunks = max(1, min(get_num_threads(), len(reels[0][3])))
    hist, sums, hitw, best, chits, cclus = _walk(
        masks, wmask, gcnt, weights, offsets, pays, combo_of, min_size, np.int64(rows), np.int64(cells),
        tables.mode.astype(np.int64), tables.cap.astype(np.int64), np.ascontiguousarray(spays, dtype=np.int64),
        np.int64(size if want_hist else 1), np.int64(len(combinations)), np.int64(n_chunks), split)
    total_weight, hit_num, hits_num, clusters_num, sums = _walk_totals(hist, sums, hitw, chits, cclus,
                                                                       reels[0][3] if split else None)
    total = hist.sum(axis=0)
    if total_weight != cycle:
        raise ExactBudgetError(f"{where}: the cluster walk's counts do not add up to the cycle (64-bit overflow)")
    if want_hist:
        values = np.flatnonzero(total)
        mean_num = sum(int(u) * int(total[u]) for u in values.tolist())
        second_num = sum(int(u) * int(u) * int(total[u]) for u in values.tolist())
        mean, second = float(mean_num / cycle), float(second_num / cycle)
    else:
        mean, second = float(sums[:, 0].sum() / cycle), float(sums[:, 1].sum() / cycle)
    max_units = int(best.max()) if len(best) else 0
    moments = SpinMoments(mean=mean, second=second, hit=float(hit_num / cycle), max_units=max_units,
                          max_exact=True, max_upper=max_units, max_nodes=0)
    combo_hits = tuple(hits_num)
    unit = game.bet.line_pay_unit
    combo_units = tuple(n * scale.units(game.bet.credits(combo.pay, unit)) for n, combo in zip(clusters_num, combinations))
    histogram = None
    if full_cycle is not False and want_hist:
        last = np.flatnonzero(total)
        histogram = total[: int(last[-1]) + 1] if len(last) else total[:1]
    return RuleAnalysis(
        combinations=combinations,
        combo_hits=combo_hits,
        combo_units=combo_units,
        cycle=cycle,
        windows=windows,
        moments=moments,
        histogram=histogram,
        cycle_note=note,
    )


def _walk_plan(game: Game, strip_set: StripSet, cells: int, first_total: int, upper: int,
               full_cycle: bool | str) -> tuple[bool, int, str | None]:
    """(split, histogram size, why there is no full cycle) of the cluster walk: ``split`` when the cycle times the
    cells does not fit 64-bit counts (reel 1's weights ``first_total`` are then multiplied in afterwards, in Python
    integers); raises :class:`~workbench.errors.ExactBudgetError` when even that does not fit, or a spin's pay
    ``upper`` (pay units) is over the 64-bit sums, or the full cycle is required and cannot be built."""
    where = f"{game.name}: strip set {strip_set.name!r}"
    cycle = int(strip_set.cycle)
    split = cycle * cells >= INT_CYCLE_MAX
    if split and (cycle // first_total) * cells >= INT_CYCLE_MAX:
        raise ExactBudgetError(f"{where}: the cycle ({cycle:,}) without reel 1 times the {cells} cells does not fit the "
                               f"64-bit counts of the cluster analysis; simulate the game instead")
    if upper >= PAY_UNITS_MAX:
        raise ExactBudgetError(f"{where}: a spin could pay up to {upper:,} pay units, over the limit of "
                               f"{PAY_UNITS_MAX:,} of 64-bit sums")
    size = upper + 1
    note = None
    if full_cycle is not False and split:
        note = f"cycle of strip set {strip_set.name!r} ({cycle:.3e}) does not fit 64-bit counts"
    elif full_cycle is not False and size > HISTOGRAM_MAX:
        note = (f"full cycle of strip set {strip_set.name!r}: spin wins up to {upper:,} pay units need a histogram of "
                f"{size:,} entries, over the limit of {HISTOGRAM_MAX:,}")
    if note is not None and full_cycle is True:
        raise ExactBudgetError(f"{game.name}: {note}")
    return split, size, note


def screen_reach(reels: list, n_paying: int) -> np.ndarray:
    """``reach[j]``: the most cells of paying symbol ``j`` and wilds together that one screen of the strip set
    shows (each reel's fullest window, summed over the reels): no cluster of ``j`` is larger.  ``reels`` as
    :func:`_reel_values` returns them."""
    reach = np.zeros(n_paying, dtype=np.int64)
    for sym, wmask, _, _ in reels:
        wilds = wmask.tolist()
        for j in range(n_paying):
            reach[j] += max(((int(m) | w).bit_count() for m, w in zip(sym[:, j].tolist(), wilds)), default=0)
    return reach


def sizes_in_reach(pays: np.ndarray, reach: np.ndarray) -> int:
    """The largest cluster size whose pay differs from the size below it, for some symbol, among the sizes the
    screens can show (``reach``, :func:`screen_reach`); every larger cluster a screen shows pays as this size.
    A band's upper end (a size paying 0 above one that pays) above a symbol's reach is not counted."""
    last = 0
    for j in range(pays.shape[0]):
        top = min(int(reach[j]), pays.shape[1] - 1)
        steps = np.flatnonzero(np.diff(pays[j, :top + 1]) != 0)
        if len(steps):
            last = max(last, int(steps[-1]) + 1)
    return last


def _size_bands(game: Game, names: list, max_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``combo_of[j, size]``: the combination (paying size band of symbol ``j``) a cluster of ``size`` pays as, -1
    for none; ``min_size[j]``: the smallest paying cluster of symbol ``j``."""
    combo_of = np.full((len(names), max_size + 1), -1, dtype=np.int64)
    min_size = np.zeros(len(names), dtype=np.int64)
    k = 0
    for j, name in enumerate(names):
        listed = sorted(game.paytable[name])
        paying = [s for s in listed if game.paytable[name][s] > 0]
        min_size[j] = paying[0]
        for s in paying:
            upper = listed[listed.index(s) + 1] if listed.index(s) + 1 < len(listed) else max_size + 1
            combo_of[j, s:min(upper, max_size + 1)] = k
            k += 1
    return combo_of, min_size


def _walk_totals(hist, sums, hitw, chits, cclus, first_weights) -> tuple:
    """(total weight, hit weight, hits per combination, clusters per combination, pay sums) of the walk's per-chunk
    rows; with ``first_weights`` (a cycle too long for 64-bit counts) each row is one window of reel 1, weighed by
    its weight exactly in Python integers."""
    if first_weights is None:
        return (int(hist.sum()), int(hitw.sum()), [int(h) for h in chits.sum(axis=0).tolist()],
                [int(n) for n in cclus.sum(axis=0).tolist()], sums)
    rw = [int(w) for w in first_weights.tolist()]

    def weigh(a):
        a = np.asarray(a)
        a = a[:, None] if a.ndim == 1 else a
        return [sum(w * int(x) for w, x in zip(rw, column)) for column in a.T.tolist()]

    sums = np.array([[sum(w * x for w, x in zip(rw, sums[:, 0].tolist())),
                      sum(w * x for w, x in zip(rw, sums[:, 1].tolist()))]])
    return weigh(hist[:, :1])[0], weigh(hitw)[0], weigh(chits), weigh(cclus), sums


def _transfer(game: Game, strip_set: StripSet, scale: PayScale, reels: list, windows: list, pays: np.ndarray,
              combo_of: np.ndarray, combinations: tuple, cycle: int, upper: int, tables, spays: np.ndarray,
              combos: int, limit: int, quick: bool = False) -> RuleAnalysis:
    """The exact analysis by the column transfer (:mod:`.cluster_transfer`): everything but the histogram (with
    ``quick``, perhaps less: see :func:`analyse_cluster`)."""
    from .cluster_transfer import transfer_analysis

    where = f"{game.name}: strip set {strip_set.name!r}"
    sums = transfer_analysis(where, reels, game.rows[0], pays, combo_of, len(combinations), cycle, upper,
                             tables.mode.astype(np.int64), tables.cap.astype(np.int64), spays, quick=quick)
    if sums["method"] == "joint":
        moments = SpinMoments(mean=float(Fraction(sums["pay"], cycle)), second=sums["square"] / cycle,
                              hit=float(Fraction(cycle - sums["zero"], cycle)), max_units=sums["max_units"],
                              max_exact=True, max_upper=sums["max_units"], max_nodes=0)
    else:
        missing = tuple(name for name, value in (("std", sums["square"]), ("hit_frequency", sums["zero"]),
                                                 ("max_win", None)) if value is None)
        hit = float(Fraction(cycle - sums["zero"], cycle)) if sums["zero"] is not None else math.nan
        second = sums["square"] / cycle if sums["square"] is not None else math.nan
        moments = SpinMoments(mean=float(Fraction(sums["pay"], cycle)), second=second, hit=hit, max_units=0,
                              max_exact=False, max_upper=upper, max_nodes=0, missing=missing,
                              missing_note=(f"strip set {strip_set.name!r}: the column transfer over every symbol at once "
                                            f"is over its budget; the RTP is exact from each symbol's own transfer"
                                            + (", the std from each pair of symbols" if sums["square"] is not None else "")
                                            + (", the hit frequency from the screens paying nothing"
                                               if sums["zero"] is not None else "")
                                            + ("; the editors' quick figures leave the rest to the simulation "
                                               "(`workbench par` gives them exactly)" if quick else "")))
    unit = game.bet.line_pay_unit
    combo_units = tuple(n * scale.units(game.bet.credits(combo.pay, unit)) for n, combo in zip(sums["clusters"], combinations))
    if combos > limit:
        note = (f"full cycle of strip set {strip_set.name!r}: {combos:,} distinct window combinations, over the "
                f"enumeration budget of {limit:,}; " + ("its moments, hit frequency and max win are exact by a column "
                "transfer over the reels, which does not give the win distribution" if sums["method"] == "joint" else
                "its RTP is exact by a column transfer per symbol" + (", its std by one per pair of symbols" if
                sums["square"] is not None else "") + (", its hit frequency by one over the screens paying nothing" if
                sums["zero"] is not None else "") + "; the win distribution needs every screen"))
    else:
        note = (f"strip set {strip_set.name!r}: exact by a column transfer over the reels (the win distribution, which "
                "needs every screen, was not asked for)")
    return RuleAnalysis(combinations=combinations, combo_hits=tuple(sums["hits"]), combo_units=combo_units, cycle=cycle,
                        windows=windows, moments=moments, histogram=None, cycle_note=note)
