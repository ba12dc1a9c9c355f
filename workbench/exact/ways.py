"""Exact analysis of ways games: every number from per-reel outcome tables, reels independent.

Rules (as in :mod:`workbench.pays.ways`):

- ways: for each paying target t (symbol or group, wilds included), its run r = number of
  leading reels (from reel 1) that show at least one symbol matching t (for a wild target:
  that wild symbol only); k = largest listed count <= r; if k > 0 it pays pay(t,k) x W,
  W = sum over all ways through reels 1..k (one matching position per reel) of the way's
  multiplier M (for t a wild itself M=1 unless multiply_wild_only). With product:
  W = prod_i (sum over matching positions p on reel i of m(p)), m = 1 for non-wild positions.
  With sum: W = prod_i (c_i - mw_i) + sum_i M_i prod_{l != i} c_l (c_i matching positions,
  mw_i multiplier-wild positions, M_i sum of their multipliers).  Every target is paid
  independently (wild positions count for every target they substitute for).
- a reel with heights (``[grid] heights``) shows, each spin, ``rows`` rows drawn by weight;
  its *outcomes* are all (height, window) pairs, weighing height weight x window weight
  (the window weight is the summed stop weight of the stops showing it), so its total
  weight is (sum of height weights) x (strip total weight); a reel of fixed height has one.
- scatter groups count and pay as with every rule and are added to the spin.

How each number is formed (integers except where a probability or moment is formed):

- outcomes: a reel's windows of every height (:func:`~workbench.exact.windows.reel_windows`)
  reduced to what pays: per target (c, fa, fm) (:func:`workbench.pays.ways.outcome_features`)
  and the paying groups' counts; outcomes equal in all of these are merged, weights summed.
  Wilds whose multiplier is drawn from a table per landing: the windows are the variant game's
  expanded windows (:mod:`.variants`: every assignment of table multipliers to the window's
  wild cells, weighted), so (c, fa, fm) see fixed multipliers and the cycle is the expanded one.
- combinations: a target's pay is a sum of product-form terms over reels.  For a run of
  exactly r reels paying (t, k): prod_{i<=k} (factor of reel i) x prod_{k<i<=r} [c_i > 0] x
  [c_{r+1} = 0] (no factor when r = reels) x 1 on the later reels.  Summed over outcomes,
  reel by reel: hits(t, k) = sum_{r: k(r) = k} prod_{i<=r} H_i x Z_{r+1} x prod_{i>r+1} T_i
  (H: weight matching, Z: weight not matching, T: total), units(t, k) = pay(t, k) x the same
  with the sums of fa (product) or the product-form terms of W (sum) on reels 1..k.
- mean: (sum of units + scatter-group pays) / cycle, exact before the one division.
- second moment: with the ways pay written as sum_a coef_a prod_i f_{a,i}(outcome_i),
  E[X^2] = sum_{a,b} coef_a coef_b prod_i E[f_{a,i} f_{b,i}] (per reel Phi diag(p) Phi^T over
  the reel's few distinct functions); E[X Y] and E[Y^2] with Y the scatter-group pays by a
  walk over reels whose state is the groups' count codes, carrying every term's partial
  product.
- hit frequency: P(the spin pays), by a walk over reels whose state is the set of targets
  whose run is unbroken and has not paid yet (plus the groups' capped codes); a path leaves,
  its probability added to the hit frequency, as soon as something pays (pays never decrease
  as counts grow), so the sum has no cancellation.  (Over 62 targets the same walk runs in
  Python integers and gives 1 - unpaid weight / cycle.)
- full cycle: every combination of (merged) outcomes evaluated by
  :func:`workbench.pays.ways.ways_pay` (the simulator's evaluator), when it fits ``budget``.
- max win: the full cycle's largest win when enumerated; otherwise a branch-and-bound search:
  at every node all children are bounded (paid so far + what each unbroken run can still pay
  with every later reel at its largest factors + the scatter groups at their largest counts),
  visited best bound first and cut when the bound cannot beat the best win found; it stops
  after :data:`MAX_SEARCH_NODES_WAYS` outcomes bounded, then with the largest win found and
  the bound at its root.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from .._jit import get_num_threads, njit, prange
from ..errors import ExactBudgetError, WorkbenchError
from ..model import Game, StripSet
from ..pays.lines import Combination
from ..pays.scale import PayScale
from ..pays.scatter import ADJACENT, ScatterPayTables, code_count, scatter_pay_tables, update_code
from ..pays.ways import (WaysTargets, ways_group_pay, ways_pay, ways_targets)
from .enumerate import DEFAULT_BUDGET, HISTOGRAM_MAX, PAY_UNITS_MAX
from .moments import RuleAnalysis, SpinMoments
from .variants import has_table_wilds, to_game_ids
from .ways_max import _bound_tables, _max_search
from .ways_outcomes import ReelOutcomes, _group_pay, outcome_tables, ways_game, ways_outcomes


MAX_SEARCH_NODES_WAYS = 5_000_000  # outcomes the max-win search visits before it stops with bounds
HIT_STATES_MAX = 200_000  # states x outcome classes of one reel in the hit-frequency walk in Python integers
HIT_PAIRS_MAX = 20_000_000  # the same in the vectorized walk (floats)
TERMS_MAX = 4096  # product-form terms of the second moment (terms^2 x reels floats)
SCATTER_STATES_MAX = 100_000  # joint scatter codes x count vectors of one reel (second moment)


# ---------------------------------------------------------------------------
# the analysis
# ---------------------------------------------------------------------------
def _weighted_sums(w: np.ndarray, f: np.ndarray) -> list[int]:
    """Column sums of w[:, None] x f as Python ints (int64 when it cannot overflow)."""
    if not len(w):
        return [0] * f.shape[1]
    top = int(w.sum()) * max(int(f.max(initial=0)), 1)
    if top < 1 << 62:
        return [int(x) for x in (w[:, None] * f).sum(axis=0)]
    wo = w.astype(object)
    return [int(x) for x in (wo[:, None] * f.astype(object)).sum(axis=0)]


def _combinations(targets: WaysTargets, reels: list[ReelOutcomes]):
    """Combinations with their exact hits and units (product form over reels)."""
    n = len(reels)
    T = targets.n_targets
    tot = [r.total for r in reels]
    tail = [1] * (n + 1)  # tail[i] = prod of totals of reels i..n-1
    for i in range(n - 1, -1, -1):
        tail[i] = tail[i + 1] * tot[i]
    H = [_weighted_sums(r.weights, (r.cnt > 0).astype(np.int64)) for r in reels]
    SA = [_weighted_sums(r.weights, r.fa) for r in reels]
    SM = [_weighted_sums(r.weights, r.fm) for r in reels]
    SC = [_weighted_sums(r.weights, r.cnt) for r in reels]
    combos, hits, units = [], [], []
    for t in range(T):
        listed = targets.listed[t]
        for idx, k in enumerate(listed):
            nxt = listed[idx + 1] if idx + 1 < len(listed) else n + 1
            # W summed over reels 1..k
            wsum = 1
            for i in range(k):
                wsum *= SA[i][t]
            if targets.combine == "sum":
                for j in range(k):
                    term = SM[j][t]
                    for i in range(k):
                        if i != j:
                            term *= SC[i][t]
                    wsum += term
            h_total = 0
            u_total = 0
            match_prefix = 1  # prod_{i<k} H_i
            for i in range(k):
                match_prefix *= H[i][t]
            mid = 1  # prod_{k<=i<r} H_i
            for r in range(k, min(nxt, n + 1)):
                if r > k:
                    mid *= H[r - 1][t]
                end = (tot[r] - H[r][t]) * tail[r + 1] if r < n else 1
                h_total += match_prefix * mid * end
                u_total += wsum * mid * end
            pay = targets.pays[t][k]
            combos.append(Combination(targets.names[t], k, pay))
            hits.append(h_total)
            units.append(int(targets.pay_units[t, k]) * u_total)
    return combos, hits, units


def _functions(reel: ReelOutcomes, T: int) -> np.ndarray:
    """The reel's functions of an outcome (rows: per target fa, fm, c, [c>0], [c=0]; then 1) x outcomes."""
    n_out = reel.n_outcomes
    phi = np.empty((5 * T + 1, n_out))
    if T:
        view = phi[: 5 * T].reshape(T, 5, n_out)
        view[:, 0] = reel.fa.T
        view[:, 1] = reel.fm.T
        view[:, 2] = reel.cnt.T
        view[:, 3] = reel.cnt.T > 0
        view[:, 4] = reel.cnt.T == 0
    phi[5 * T] = 1.0
    return phi


FA, FM, CNT, ON, OFF = range(5)


def ways_terms(targets: WaysTargets, n: int) -> tuple[list, list]:
    """The ways pay as product-form terms: ``pay = sum_a coef[a] prod_i f_{idx[a][i]}(outcome of reel i)``,
    ``coef`` in integer pay units, ``idx[a]`` one function index per reel (``5 t + FA|FM|CNT|ON|OFF``, ``5 T`` = 1)."""
    T = targets.n_targets
    one = 5 * T
    coef, idx = [], []
    for t in range(T):
        for r in range(1, n + 1):
            k = targets.count_of_run(t, r)
            if k == 0:
                continue
            suffix = [5 * t + ON] * (r - k) + ([5 * t + OFF] if r < n else []) + [one] * max(n - r - 1, 0)
            c = int(targets.pay_units[t, k])
            coef.append(c)
            idx.append([5 * t + FA] * k + suffix)
            if targets.combine == "sum":
                for j in range(k):
                    prefix = [5 * t + CNT] * k
                    prefix[j] = 5 * t + FM
                    coef.append(c)
                    idx.append(prefix + suffix)
    return coef, idx


def _terms(targets: WaysTargets, n: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ways_terms` as arrays: float coefficients and an (terms, reels) index array."""
    coef, idx = ways_terms(targets, n)
    return np.asarray(coef, dtype=float), np.asarray(idx, dtype=np.int64).reshape(len(coef), n)


def _second_moment(targets: WaysTargets, tables: ScatterPayTables, reels: list[ReelOutcomes], where: str):
    """(E[X^2], E[X Y], E[Y], E[Y^2]) of the ways pay X and the scatter-group pays Y."""
    n = len(reels)
    T = targets.n_targets
    coef, idx = _terms(targets, n)
    if len(coef) > TERMS_MAX:
        raise ExactBudgetError(f"{where}the second moment needs {len(coef):,} product-form terms, over the budget of "
                               f"{TERMS_MAX:,}")
    phis = [_functions(r, T) for r in reels]
    probs = [r.weights / float(r.total) for r in reels]
    x2 = 0.0
    if len(coef):
        prod = np.ones((len(coef), len(coef)))
        for i in range(n):
            E = (phis[i] * probs[i]) @ phis[i].T
            sel = idx[:, i]
            prod *= E[np.ix_(sel, sel)]
        x2 = float(coef @ prod @ coef)
    G = len(tables.index)
    if not G:
        return x2, 0.0, 0.0, 0.0
    # walk over reels: state = joint count codes of the paying groups; value = every term's partial
    # expectation (last entry: the constant 1, i.e. the probability of the state)
    full = np.concatenate([idx, np.full((1, n), 5 * T, dtype=np.int64)]) if len(coef) else np.full((1, n), 5 * T, np.int64)
    layer = {tuple([0] * G): np.ones(len(full))}
    for i in range(n):
        keys = [tuple(row) for row in reels[i].sc.tolist()]
        groups: dict = {}
        for o, key in enumerate(keys):
            groups.setdefault(key, []).append(o)
        if len(layer) * len(groups) > SCATTER_STATES_MAX:
            raise ExactBudgetError(f"{where}the joint scatter counts on reel {i + 1}: {len(layer):,} codes x "
                                   f"{len(groups):,} count vectors, over the budget of {SCATTER_STATES_MAX:,}")
        factors = {}
        for key, members in groups.items():
            h = phis[i][:, members] @ probs[i][members]
            factors[key] = h[full[:, i]]
        nxt: dict = {}
        for code, v in layer.items():
            for key, f in factors.items():
                new = tuple(int(update_code(int(tables.mode[g]), int(tables.cap[g]), code[g], key[g])) for g in range(G))
                if new in nxt:
                    nxt[new] += v * f
                else:
                    nxt[new] = v * f
        layer = nxt
    xy = y1 = y2 = 0.0
    for code, v in layer.items():
        y = float(sum(int(tables.pays[g, min(int(code_count(int(tables.mode[g]), c)), int(tables.cap[g]))])
                      for g, c in enumerate(code)))
        if y:
            if len(coef):
                xy += y * float(coef @ v[:-1])
            y1 += y * v[-1]
            y2 += y * y * v[-1]
    return x2, xy, y1, y2


def _unpaid_weight(targets: WaysTargets, tables: ScatterPayTables, reels: list[ReelOutcomes], where: str) -> int:
    """Integer weight of the screens paying nothing (targets and scatter groups)."""
    n = len(reels)
    T = targets.n_targets
    G = len(tables.index)
    kmin = [min(targets.listed[t]) for t in range(T)]
    paying_at = [0] * (n + 1)  # targets whose run pays once it reaches depth d
    for d in range(1, n + 1):
        paying_at[d] = sum(1 << t for t in range(T) if kmin[t] <= d)
    layer = {((1 << T) - 1, tuple([0] * G)): 1}
    for i, reel in enumerate(reels):
        bits = reel.cnt > 0
        if T <= 62:
            masks = (bits.astype(np.int64) @ (np.int64(1) << np.arange(T, dtype=np.int64))).tolist() if T else [0] * len(bits)
        else:
            masks = [sum(1 << int(t) for t in np.flatnonzero(row)) for row in bits]
        classes: dict = {}
        for o, (m, cv) in enumerate(zip(masks, map(tuple, reel.sc.tolist()))):
            key = (m, cv)
            classes[key] = classes.get(key, 0) + int(reel.weights[o])
        if len(layer) * len(classes) > HIT_STATES_MAX:
            raise ExactBudgetError(f"{where}hit frequency: {len(layer):,} unpaid states x {len(classes):,} outcome classes "
                                   f"of reel {i + 1}, over the budget of {HIT_STATES_MAX:,}")
        pay_now = paying_at[i + 1]
        nxt: dict = {}
        for (alive, code), w in layer.items():
            for (m, cv), q in classes.items():
                a2 = alive & m
                if a2 & pay_now:
                    continue
                if G:
                    c2 = tuple(int(update_code(int(tables.mode[g]), int(tables.cap[g]), code[g], cv[g])) for g in range(G))
                    if any(_group_pay(tables, g, c2[g]) > 0 for g in range(G)):
                        continue
                else:
                    c2 = code
                key = (a2, c2)
                nxt[key] = nxt.get(key, 0) + w * q
        layer = nxt
    return sum(layer.values())


def _hit_probability(targets: WaysTargets, tables: ScatterPayTables, reels: list[ReelOutcomes], where: str) -> float:
    """P(the spin pays something), summed over the paths as they first pay (no cancellation).

    The same walk as :func:`_unpaid_weight`, vectorized: states are (alive targets as a bit
    mask, joint scatter code) with their probability; a reel's outcomes are grouped into
    classes (mask of the targets they match, scatter counts)."""
    T = targets.n_targets
    G = len(tables.index)
    n = len(reels)
    kmin = [min(targets.listed[t]) for t in range(T)]
    pay_now = [np.int64(sum(1 << t for t in range(T) if kmin[t] <= d)) for d in range(n + 1)]
    sizes = [2 * (int(tables.cap[g]) + 1) if tables.mode[g] == ADJACENT else int(tables.cap[g]) + 1 for g in range(G)]
    top_count = max((int(r.sc.max(initial=0)) for r in reels), default=0)
    trans, paying = [], []
    for g in range(G):
        mode, cap = int(tables.mode[g]), int(tables.cap[g])
        trans.append(np.array([[update_code(mode, cap, c, x) for x in range(top_count + 1)] for c in range(sizes[g])],
                              dtype=np.int64))
        paying.append(np.array([_group_pay(tables, g, c) > 0 for c in range(sizes[g])]))
    radix = np.cumprod([1] + sizes[:-1]).astype(np.int64) if G else np.zeros(0, np.int64)
    joint = int(np.prod(sizes)) if G else 1
    packed = joint * (1 << T) < 1 << 62
    bits = np.int64(1) << np.arange(T, dtype=np.int64)
    alive = np.array([(1 << T) - 1], dtype=np.int64)
    code = np.zeros(1, dtype=np.int64)
    prob = np.ones(1)
    hit = 0.0
    for i, reel in enumerate(reels):
        masks = (reel.cnt > 0).astype(np.int64) @ bits if T else np.zeros(reel.n_outcomes, np.int64)
        sc = reel.sc
        cols = np.column_stack([masks] + [sc[:, g] for g in range(G)])
        cls, inverse = np.unique(cols, axis=0, return_inverse=True)
        cls_p = np.bincount(inverse.reshape(-1), weights=reel.weights / float(reel.total), minlength=len(cls))
        if len(alive) * len(cls) > HIT_PAIRS_MAX:
            raise ExactBudgetError(f"{where}hit frequency: {len(alive):,} unpaid states x {len(cls):,} outcome classes "
                                   f"of reel {i + 1}, over the budget of {HIT_PAIRS_MAX:,}")
        a2 = alive[:, None] & cls[None, :, 0]
        done = (a2 & pay_now[i + 1]) != 0
        c2 = np.zeros(a2.shape, dtype=np.int64)
        for g in range(G):
            cg = (code // radix[g]) % sizes[g]
            new = trans[g][cg[:, None], cls[None, :, 1 + g]]
            done |= paying[g][new]
            c2 += new * radix[g]
        p2 = prob[:, None] * cls_p[None, :]
        hit += float(p2[done].sum())
        keep = ~done
        a2, c2, p2 = a2[keep], c2[keep], p2[keep]
        if packed:
            key = a2 * joint + c2
            uniq, inv = np.unique(key, return_inverse=True)
            alive, code = uniq // joint, uniq % joint
        else:
            uniq, inv = np.unique(np.column_stack([a2, c2]), axis=0, return_inverse=True)
            alive, code = uniq[:, 0], uniq[:, 1]
        prob = np.bincount(inv.reshape(-1), weights=p2, minlength=len(uniq))
    return hit


# ---------------------------------------------------------------------------
# full cycle
# ---------------------------------------------------------------------------
@njit
def _walk_hist(wt, n_out, wts, chunk, n_chunks, hist):
    """Add the weight of every screen whose reel-1 outcome is ``chunk``, ``chunk + n_chunks``, ...
    to ``hist`` at its spin win (ways + paying scatter groups)."""
    n = n_out.shape[0]
    G = wt.gpay.shape[0]
    outs = np.zeros(n, dtype=np.int64)
    outs[0] = chunk
    last = n - 1
    while outs[0] < n_out[0]:
        w = np.int64(1)
        for i in range(last):
            w *= wts[i, outs[i]]
        first = 0 if n > 1 else outs[0]
        stop = n_out[last] if n > 1 else outs[0] + 1
        for o in range(first, stop):
            outs[last] = o
            total = ways_pay(wt, 0, outs)
            for g in range(G):
                total += ways_group_pay(wt, 0, outs, g)
            hist[total] += w * wts[last, o]
        if n == 1:
            outs[0] += n_chunks
            continue
        i = last - 1
        while True:
            if i == 0:
                outs[0] += n_chunks
                break
            outs[i] += 1
            if outs[i] < n_out[i]:
                break
            outs[i] = 0
            i -= 1


@njit(cache=True, parallel=True)
def _walk_hist_all(wt, n_out, wts, n_threads, size):
    n_chunks = max(1, min(n_out[0], n_threads))
    hists = np.zeros((n_chunks, size), dtype=np.int64)
    for chunk in prange(n_chunks):
        _walk_hist(wt, n_out, wts, chunk, n_chunks, hists[chunk])
    return hists.sum(axis=0)


def _stacked(reels: list[ReelOutcomes]) -> tuple[np.ndarray, np.ndarray]:
    n_out = np.array([r.n_outcomes for r in reels], dtype=np.int64)
    wts = np.zeros((len(reels), max(int(n_out.max(initial=1)), 1)), dtype=np.int64)
    for i, r in enumerate(reels):
        wts[i, : r.n_outcomes] = r.weights
    return n_out, wts


# ---------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------
def full_cycle_refusal_ways(reels: list[ReelOutcomes], strip_set: StripSet, root_bound: int, budget: int) -> str | None:
    """Why the full cycle of ``strip_set`` is not enumerated within ``budget``, or None."""
    combos = 1
    for r in reels:
        combos *= r.n_outcomes
    where = f"full cycle of strip set {strip_set.name!r}"
    if combos > budget:
        return f"{where} has {combos:,} distinct outcome combinations, over the budget of {budget:,}"
    cycle = 1
    for r in reels:
        cycle *= r.total
    if cycle >= 2**63:
        return f"cycle of strip set {strip_set.name!r} ({cycle:.3e}) does not fit 64-bit counts"
    if root_bound + 1 > HISTOGRAM_MAX:
        return (f"{where}: spin wins up to {root_bound:,} pay units need a histogram of {root_bound + 1:,} entries, over "
                f"the limit of {HISTOGRAM_MAX:,}")
    return None


def analyse_ways(game: Game, strip_set: StripSet, scale: PayScale, full_cycle: bool | str = "auto",
                 budget: int = DEFAULT_BUDGET, max_nodes: int = MAX_SEARCH_NODES_WAYS, quick: bool = False) -> RuleAnalysis:
    """Exact analysis of one strip set of a ways game (see the module docstring).  ``quick`` (the editors' figures)
    changes nothing here: every figure of a ways game is already quick.

    ``full_cycle``: "auto" or True enumerates the full cycle's win distribution when the
    distinct outcome combinations fit ``budget`` (otherwise ``histogram`` is None and
    ``cycle_note`` says why); False skips it.  Raises
    :class:`~workbench.errors.ExactBudgetError` when a spin win could leave 64-bit sums or
    a part of the moments is over its budget.
    """
    where = f"{game.name}: strip set {strip_set.name!r}: "
    if has_table_wilds(game) and any(t.award for t in game.triggers.values()):
        # the award's cross sums read RuleAnalysis.windows, whose wild cells carry no drawn multiplier
        raise WorkbenchError(f"{game.name}: a bonus award beside a wild whose multiplier is drawn from a table is not "
                             "priced exactly yet (simulate the game instead)")
    targets = ways_targets(ways_game(game), scale)  # table wilds: the variant game's (exact.variants)
    tables = scatter_pay_tables(game, scale)
    reels = ways_outcomes(game, strip_set, targets, tables)
    cycle = 1
    for r in reels:
        cycle *= r.total
    UA, UC, UM, maxleft, root = _bound_tables(targets, tables, reels)
    if root >= PAY_UNITS_MAX:
        raise ExactBudgetError(f"{where}a spin could pay up to {root:,} pay units, over the limit of {PAY_UNITS_MAX:,} "
                               "of 64-bit sums")
    combos, hits, units = _combinations(targets, reels)

    # mean, exactly: ways units + scatter-group pays over the cycle
    total_units = sum(units)
    y_units = 0
    if len(tables.index):
        from .scatters import scatter_counts
        names = list(game.scatters)
        windows = [r.windows for r in reels]
        for g, gi in enumerate(tables.index):
            counts = scatter_counts(game, windows, names[int(gi)])
            y_units += sum(h * int(tables.pays[g, min(c, int(tables.cap[g]))]) for c, h in enumerate(counts.hits))
    mean = float(Fraction(total_units + y_units, cycle))

    x2, xy, _, y2 = _second_moment(targets, tables, reels, where)
    second = float(x2 + 2.0 * xy + y2)
    if targets.n_targets <= 62:
        hit = _hit_probability(targets, tables, reels, where)
    else:  # target masks leave 64 bits: the same walk in Python integers
        hit = float(Fraction(cycle - _unpaid_weight(targets, tables, reels, where), cycle))

    wt = outcome_tables(targets, tables, [reels])
    n_out, wts = _stacked(reels)
    histogram = None
    note = None
    if full_cycle is True or full_cycle == "auto":
        note = full_cycle_refusal_ways(reels, strip_set, root, budget)
        if note is None:
            histogram = _walk_hist_all(wt, n_out, wts, get_num_threads(), int(root) + 1)
            if int(histogram.sum()) != cycle:
                raise ExactBudgetError(f"{where}full cycle: counts overflowed 64 bits")
    else:
        note = f"full-cycle distribution not computed (full_cycle={full_cycle!r})"
    if histogram is not None:
        nz = np.flatnonzero(histogram)
        top = int(nz[-1]) if len(nz) else 0
        moments = SpinMoments(mean=mean, second=second, hit=hit, max_units=top, max_exact=True, max_upper=top)
    else:
        out = np.zeros(3, dtype=np.int64)
        to64 = lambda a: np.asarray(a.tolist(), dtype=np.int64).reshape(a.shape)  # noqa: E731
        best = _max_search(wt, n_out, to64(UA), to64(UC), to64(UM), maxleft, int(max_nodes), out)
        best = max(int(best), 0)
        stopped = bool(out[1])
        moments = SpinMoments(mean=mean, second=second, hit=hit, max_units=best, max_exact=not stopped,
                              max_upper=max(int(out[2]), best) if stopped else best, max_nodes=int(out[0]))
    windows = [r.windows for r in reels]
    if has_table_wilds(game):  # the expanded windows over ``game``'s ids (a variant shows its wild), for triggers
        ids = to_game_ids(game)
        windows = [replace(w, symbols=np.where(w.symbols >= 0, ids[np.maximum(w.symbols, 0)], -1).astype(np.int32))
                   for w in windows]
    return RuleAnalysis(
        combinations=tuple(combos),
        combo_hits=tuple(hits),
        combo_units=tuple(units),
        cycle=cycle,
        windows=windows,
        moments=moments,
        histogram=histogram,
        cycle_note=note,
    )
