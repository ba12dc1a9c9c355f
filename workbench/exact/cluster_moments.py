"""Exact second moment of cluster pays on long strips: column transfers over runs, summed by what the next reel reads.

:mod:`workbench.exact.cluster_unpaid` follows only the screens that pay nothing; the second moment needs every
screen, so here a state describes, for the window of reel r, every run (maximal vertical segment of one symbol's
graph: its cells and the wilds) with the size of its component (capped at the largest listed size, which pays
like any larger one), whether the component holds a real symbol, and which runs of the window share a component
(through earlier reels).  Each state carries the weight of its screens, the weight x pay so far (an exact integer
modulo 2^64 beside the same sum in floats, as in :mod:`workbench.exact.cluster_transfer`) and the weight x pay^2
(floats).

A step from window ``u`` to window ``v`` reads only the runs of ``u`` that ``v`` touches (same symbol, a shared
row); every component of ``u`` none of whose runs is touched closes and pays then.  So the states of ``u`` are
first closed and summed by the touched runs' fields, once per distinct set of touched runs, and each sum steps to
every ``v`` that touches that set.  A component's pay is known when it closes (after the last reel, every open
component closes).

A sweep over some of the symbols (:func:`moment_sums`) gives their clusters' pay, pay^2 (the whole spin's second
moment when they are all the symbols), largest pay, the weight of the screens they pay nothing on and, per size
band, their combinations.  Which sweeps a game gets: :mod:`.cluster_routes`.  The second moment from pairs of symbols:
E[W^2] = sum over pairs {s, t} of E[(W_s + W_t)^2] - (n - 2) x sum over s of E[W_s^2], n paying symbols.

The hot loops are written out in one function each: a helper taking arrays, inlined or not, costs atomic
reference counts per call there (measured: half the time of a sweep), more than its work.

Tested against the full enumeration and the joint sweep of :mod:`.cluster_transfer` on small games
(tests/test_cluster_transfer.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit
from ..errors import ExactBudgetError
from ..pays.scatter import code_count, update_code
from .cluster_runs import layer_plan, window_runs, with_empty_reel
from .transfer_tables import INT_SUM_MAX, TRANSFER_STATES_MAX, exact_from_residue, grow2, key_hash

# Steps (summed states stepped to a window, plus states summed): about 60-100 ns each on one core.
FIELD_BITS = 16  # a run's field: component size (5 bits), real-symbol flag (1 bit), component label (6 bits)
FIELDS_PER_WORD = 4
MAX_CAP = 31
MAX_RUNS = 62

DONE, OVER_BUDGET = 0, 1
# columns of a state's integer values (then the weight x clusters and the weight without a cluster, per combination)
IW, IA, IM, IZ, IC = 0, 1, 2, 3, 4  # weight, x pay (mod 2^64), largest pay, weight of screens paying nothing
FA, FB = 0, 1  # columns of its float values: weight x pay, weight x pay^2


@njit
def _sum_states(keys, iv, fv, rows, u, mask, keep, base, n_runs, run_sym, pays, combo_of, cap, wide, mtable, proj,
                counts, low, mkeys, miv, mfv, at):
    """Close the states ``rows`` of window ``u`` on the runs in ``mask`` and sum them by what is left (into the
    rows from ``at`` of ``mkeys``/``miv``/``mfv``); returns how many sums.  Written out in one loop: a helper
    taking arrays, inlined or not, costs atomic reference counts per call here, more than its work."""
    mtable[:] = -1
    mask_t = np.uint64(mtable.shape[0] - 1)
    words = keys.shape[1]
    n_combos = counts.shape[0]
    n = n_runs[u]
    nm = 0
    for i in rows:
        # close : project, then pay the components no touched run continues
        for t in range(words):
            proj[t] = keys[i, t] & keep[t]
        for p in range(n):
            low[p] = -1
        for q in range(n):
            if (mask >> q) & 1:
                label = ((keys[i, base + q // FIELDS_PER_WORD] >> (FIELD_BITS * (q % FIELDS_PER_WORD))) & 0xFFFF) >> 6
                if low[label] < 0:
                    low[label] = q
        c = 0
        for b in range(n_combos):
            counts[b] = 0
        for p in range(n):
            f = (keys[i, base + p // FIELDS_PER_WORD] >> (FIELD_BITS * (p % FIELDS_PER_WORD))) & 0xFFFF
            if f == 0:
                continue
            label = f >> 6
            if label == p and low[p] < 0:
                if (f >> 5) & 1:
                    size = min(f & 31, cap)
                    c += pays[run_sym[u, p], size]
                    b = combo_of[run_sym[u, p], size]
                    if b >= 0:
                        counts[b] += 1
            elif (mask >> p) & 1 and low[label] != label:
                shift = FIELD_BITS * (p % FIELDS_PER_WORD)
                proj[base + p // FIELDS_PER_WORD] &= ~(np.int64(0xFFFF) << shift)
                proj[base + p // FIELDS_PER_WORD] |= np.int64((f & 63) | (low[label] << 6)) << shift
        # the sum it joins (open addressing over the rows from ``at``)
        h = key_hash(proj) & mask_t
        while True:
            e = mtable[h]
            if e < 0:
                break
            same = True
            for t in range(words):
                if mkeys[at + e, t] != proj[t]:
                    same = False
                    break
            if same:
                break
            h = (h + np.uint64(1)) & mask_t
        if e < 0:
            mtable[h] = nm
            e = at + nm
            for t in range(words):
                mkeys[e, t] = proj[t]
            for t in range(miv.shape[1]):
                miv[e, t] = 0
            mfv[e, FA] = 0.0
            mfv[e, FB] = 0.0
            nm += 1
        else:
            e += at
        # add it into the sum
        w = iv[i, IW]
        fc = float(c)
        miv[e, IW] += w
        miv[e, IA] += iv[i, IA] + c * w
        mfv[e, FA] += fv[i, FA] + fc * float(w)
        mfv[e, FB] += fv[i, FB] + 2.0 * fc * (fv[i, FA] if wide else float(iv[i, IA])) + fc * fc * float(w)
        if iv[i, IM] + c > miv[e, IM]:
            miv[e, IM] = iv[i, IM] + c
        if c == 0:
            miv[e, IZ] += iv[i, IZ]
        for b in range(n_combos):
            miv[e, IC + b] += iv[i, IC + b] + counts[b] * w
            if counts[b] == 0:
                miv[e, IC + n_combos + b] += iv[i, IC + n_combos + b]
    return nm


@njit
def _layer_start(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, gmode, gcap, cap, words, base,
                 n_values):
    """The states after reel 0: one per window, each run its own component."""
    n = woff[1] - woff[0]
    keys = np.zeros((max(n, 1), words), dtype=np.int64)
    iv = np.zeros((max(n, 1), n_values), dtype=np.int64)
    n_combos = (n_values - IC) // 2
    for v in range(woff[0], woff[1]):
        i = v - woff[0]
        keys[i, 0] = i
        for g in range(gmode.shape[0]):
            keys[i, 1 + g] = update_code(gmode[g], gcap[g], 0, wgroup[v, g])
        for j in range(n_runs[v]):
            keys[i, base + j // FIELDS_PER_WORD] |= np.int64(min(run_hi[v, j] - run_lo[v, j] + 1, cap) | (run_real[v, j] << 5)
                                                            | (j << 6)) << (FIELD_BITS * (j % FIELDS_PER_WORD))
        iv[i, IW] = wweight[v]
        iv[i, IZ] = wweight[v]
        for b in range(n_combos):
            iv[i, IC + n_combos + b] = wweight[v]
    return keys[:n], iv[:n], np.zeros((n, 2), dtype=np.float64)


@njit
def _keep_mask(keep, base, width, mask):
    keep[:] = 0
    for t in range(base):
        keep[t] = -1
    for p in range(width):
        if (mask >> p) & 1:
            keep[base + p // FIELDS_PER_WORD] |= np.int64(0xFFFF) << (FIELD_BITS * (p % FIELDS_PER_WORD))


class _LayerSums(NamedTuple):
    """One reel step's summed states (:func:`_sum_layer`): per group of states sharing window ``u`` (``gu``), the
    set of its runs each next window touches (``vset[g, v]``) and, per set, a block of sums (``mstart``/``mcount``
    rows of ``mkeys``/``miv``/``mfv``)."""

    gu: np.ndarray
    vset: np.ndarray
    mstart: np.ndarray
    mcount: np.ndarray
    mkeys: np.ndarray
    miv: np.ndarray
    mfv: np.ndarray
    steps: int


@njit
def _sum_layer(keys, iv, fv, lo_u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run, pays, combo_of, cap, wide,
               base, width, n_values):
    """The states of one layer (in window order) closed and summed by the runs each next window touches, as the
    layer's :func:`~.cluster_runs.layer_plan` says: one block per window and touched set."""
    plan = layer_plan(keys[:, 0], lo_u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run)
    n = keys.shape[0]
    words = keys.shape[1]
    mstart = np.zeros(plan.vset.shape, dtype=np.int64)
    mcount = np.zeros(plan.vset.shape, dtype=np.int64)
    mkeys = np.zeros((max(16, 2 * n), words), dtype=np.int64)
    miv = np.zeros((mkeys.shape[0], n_values), dtype=np.int64)
    mfv = np.zeros((mkeys.shape[0], 2), dtype=np.float64)
    keep = np.zeros(words, dtype=np.int64)
    proj = np.zeros(words, dtype=np.int64)
    counts = np.zeros((n_values - IC) // 2, dtype=np.int64)
    low = np.zeros(width, dtype=np.int64)
    mtable = np.full(16, -1, dtype=np.int64)
    used = 0
    steps = 0
    for g in range(plan.gu.shape[0]):
        start, stop, u = plan.gstart[g], plan.gstart[g + 1], plan.gu[g]
        n_u = stop - start
        if used + plan.n_sets[g] * n_u > mkeys.shape[0]:
            mkeys = grow2(mkeys, used + plan.n_sets[g] * n_u)
            miv = grow2(miv, used + plan.n_sets[g] * n_u)
            mfv = grow2(mfv, used + plan.n_sets[g] * n_u)
        mcap = 16
        while mcap < 2 * n_u:
            mcap *= 2
        if mtable.shape[0] < mcap:
            mtable = np.full(mcap, -1, dtype=np.int64)
        for x in range(plan.n_sets[g]):
            k = plan.order[g, x]
            src = plan.src[g, k]
            _keep_mask(keep, base, width, plan.masks[g, k])
            mstart[g, k] = used
            if src < 0:
                nm = _sum_states(keys, iv, fv, np.arange(start, stop), u, plan.masks[g, k], keep, base, n_runs, run_sym,
                                 pays, combo_of, cap, wide, mtable[:mcap], proj, counts, low, mkeys, miv, mfv, used)
                steps += n_u
            else:
                nm = _sum_states(mkeys, miv, mfv, np.arange(mstart[g, src], mstart[g, src] + mcount[g, src]), u,
                                 plan.masks[g, k], keep, base, n_runs, run_sym, pays, combo_of, cap, wide, mtable[:mcap],
                                 proj, counts, low, mkeys, miv, mfv, used)
                steps += mcount[g, src]
            mcount[g, k] = nm
            used += nm
    return _LayerSums(plan.gu, plan.vset, mstart, mcount, mkeys[:used], miv[:used], mfv[:used], steps)


@njit
def _step_layer(sums, lo_v, hi_v, last, wweight, wgroup, gmode, gcap, gpays, n_runs, run_sym, run_lo, run_hi, run_real,
                row_run, pays, combo_of, cap, wide, base, width, n_values, tiv, tfv, ops, states_max, work_max):
    """Step the summed states to every window of the next reel, one window at a time (its states in one small
    table, kept in cache), into the next layer in window order; after the last reel, add every screen to the totals
    instead.  Returns (outcome, keys, integer values, float values, steps)."""
    mkeys, miv, mfv, gu, vset, mstart, mcount = sums.mkeys, sums.miv, sums.mfv, sums.gu, sums.vset, sums.mstart, sums.mcount
    words = mkeys.shape[1]
    n_groups = gmode.shape[0]
    parent = np.zeros(width, dtype=np.int64)
    link = np.zeros(width, dtype=np.int64)
    size_of = np.zeros(width, dtype=np.int64)
    real_of = np.zeros(width, dtype=np.int64)
    n_combos = (n_values - IC) // 2
    counts = np.zeros(n_combos, dtype=np.int64)
    key = np.zeros(words, dtype=np.int64)
    # every array the loop writes is sized before it (no array is replaced inside the loop, so numba keeps no
    # reference counts there): each window's states are at most the sums stepped to it, the layer at most
    # states_max; rows are written only when used (np.empty commits no memory until then)
    into = np.zeros(hi_v - lo_v, dtype=np.int64)
    for v in range(lo_v, hi_v):
        for g in range(gu.shape[0]):
            into[v - lo_v] += mcount[g, vset[g, v - lo_v]]
    total = into.sum()
    if ops + total > work_max:
        return OVER_BUDGET, np.zeros((0, words), np.int64), np.zeros((0, n_values), np.int64), np.zeros((0, 2)), ops + total
    size = 1 if last else max(1, min(total, states_max))
    k2 = np.empty((size, words), dtype=np.int64)
    iv2 = np.empty((size, n_values), dtype=np.int64)
    fv2 = np.empty((size, 2), dtype=np.float64)
    n2 = 0
    slots = 16
    while slots < 2 * into.max():
        slots *= 2
    table_all = np.full(slots, -1, dtype=np.int64)
    for v in range(lo_v, hi_v):
        cnt = wweight[v]
        fcnt = float(cnt)
        first = n2  # this window's states are rows first..n2 of the next layer
        t_size = 16
        while t_size < 2 * into[v - lo_v]:
            t_size *= 2
        table = table_all[:t_size]
        table[:] = -1
        mask = np.uint64(t_size - 1)
        ops += into[v - lo_v]
        for g in range(gu.shape[0]):
            u = gu[g]
            k = vset[g, v - lo_v]
            m0 = mstart[g, k]
            for e in range(m0, m0 + mcount[g, k]):
                key[:] = 0
                key[0] = v - lo_v
                for q in range(n_groups):
                    key[1 + q] = update_code(gmode[q], gcap[q], mkeys[e, 1 + q], wgroup[v, q])
                # join the runs of v with the components of u they touch
                for j in range(n_runs[v]):
                    parent[j] = j
                    size_of[j] = run_hi[v, j] - run_lo[v, j] + 1
                    real_of[j] = run_real[v, j]
                for p in range(n_runs[u]):
                    link[p] = -1
                for j in range(n_runs[v]):
                    s = run_sym[v, j]
                    prev = -1
                    for row in range(run_lo[v, j], run_hi[v, j] + 1):
                        p = row_run[u, s, row]
                        if p < 0 or p == prev:
                            continue
                        prev = p
                        f = (mkeys[e, base + p // FIELDS_PER_WORD] >> (FIELD_BITS * (p % FIELDS_PER_WORD))) & 0xFFFF
                        label = f >> 6
                        rb = j
                        while parent[rb] != rb:
                            rb = parent[rb]
                        if link[label] < 0:  # the earlier component's size counts once
                            link[label] = j
                            size_of[rb] += f & 31
                            real_of[rb] |= (f >> 5) & 1
                        else:
                            ra = link[label]
                            while parent[ra] != ra:
                                ra = parent[ra]
                            if ra != rb:  # the lower run stays the root
                                lo, hi = (ra, rb) if ra < rb else (rb, ra)
                                parent[hi] = lo
                                size_of[lo] += size_of[hi]
                                real_of[lo] |= real_of[hi]
                c = 0
                for b in range(n_combos):
                    counts[b] = 0
                for j in range(n_runs[v]):
                    r = j
                    while parent[r] != r:
                        r = parent[r]
                    f = min(size_of[r], cap) | (real_of[r] << 5) | (r << 6)
                    key[base + j // FIELDS_PER_WORD] |= np.int64(f) << (FIELD_BITS * (j % FIELDS_PER_WORD))
                    if last and r == j and real_of[r]:  # after the last reel every component closes
                        c += pays[run_sym[v, j], min(size_of[r], cap)]
                        b = combo_of[run_sym[v, j], min(size_of[r], cap)]
                        if b >= 0:
                            counts[b] += 1
                if last:
                    for q in range(n_groups):
                        c += gpays[q, code_count(gmode[q], key[1 + q])]
                    # add every screen to the totals
                    w = miv[e, IW]
                    fc = float(c)
                    tiv[IW] += w * cnt
                    tiv[IA] += (miv[e, IA] + c * w) * cnt
                    tfv[FA] += (mfv[e, FA] + fc * float(w)) * fcnt
                    tfv[FB] += (mfv[e, FB] + 2.0 * fc * (mfv[e, FA] if wide else float(miv[e, IA]))
                                + fc * fc * float(w)) * fcnt
                    if miv[e, IM] + c > tiv[IM]:
                        tiv[IM] = miv[e, IM] + c
                    if c == 0:
                        tiv[IZ] += miv[e, IZ] * cnt
                    for b in range(n_combos):
                        tiv[IC + b] += (miv[e, IC + b] + counts[b] * w) * cnt
                        if counts[b] == 0:
                            tiv[IC + n_combos + b] += miv[e, IC + n_combos + b] * cnt
                    continue
                # the state's row among this window's: open addressing, probed in place
                h = key_hash(key) & mask
                while True:
                    f = table[h]
                    if f < 0:
                        break
                    same = True
                    for t in range(words):
                        if k2[first + f, t] != key[t]:
                            same = False
                            break
                    if same:
                        break
                    h = (h + np.uint64(1)) & mask
                if f < 0:
                    if n2 >= size:
                        return OVER_BUDGET, k2[:n2], iv2[:n2], fv2[:n2], ops
                    table[h] = n2 - first
                    for t in range(words):
                        k2[n2, t] = key[t]
                    for t in range(n_values):
                        iv2[n2, t] = 0
                    fv2[n2, FA] = 0.0
                    fv2[n2, FB] = 0.0
                    f = n2
                    n2 += 1
                else:
                    f += first
                iv2[f, IW] += miv[e, IW] * cnt
                iv2[f, IA] += miv[e, IA] * cnt
                if miv[e, IM] > iv2[f, IM]:  # the largest pay is not weighed
                    iv2[f, IM] = miv[e, IM]
                for t in range(IZ, n_values):
                    iv2[f, t] += miv[e, t] * cnt
                fv2[f, FA] += mfv[e, FA] * fcnt
                fv2[f, FB] += mfv[e, FB] * fcnt
    return DONE, k2[:n2], iv2[:n2], fv2[:n2], ops


@njit(cache=True, nogil=True)
def _moment_sweep(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, row_run, pays, combo_of, n_combos,
                  cap, gmode, gcap, gpays, field_words, states_max, work_max, wide):
    """The sweep (see the module docstring).  Returns (outcome, totals int64[IC + 2 x n_combos] (weight, weight x
    pay modulo 2^64, largest pay, weight x clusters of each combination, weight of screens without one), totals
    float64[2] (weight x pay, weight x pay^2), largest layer, steps)."""
    n_reels = woff.shape[0] - 1
    n_groups = gmode.shape[0]
    base = 1 + n_groups
    words = base + field_words
    width = run_sym.shape[1]
    n_values = IC + 2 * n_combos
    keys, iv, fv = _layer_start(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, gmode, gcap, cap,
                                words, base, n_values)
    n = keys.shape[0]
    tiv = np.zeros(n_values, dtype=np.int64)
    tfv = np.zeros(2, dtype=np.float64)
    largest = n
    ops = 0
    for r in range(1, n_reels):
        if ops + keys.shape[0] > work_max:  # summing the layer reads every state at least once
            return OVER_BUDGET, tiv, tfv, largest, ops + keys.shape[0]
        sums = _sum_layer(keys, iv, fv, woff[r - 1], woff[r], woff[r + 1], n_runs, run_sym, run_lo, run_hi, row_run,
                          pays, combo_of, cap, wide, base, width, n_values)
        ops += sums.steps
        if ops > work_max:
            return OVER_BUDGET, tiv, tfv, largest, ops
        outcome, keys, iv, fv, ops = _step_layer(sums, woff[r], woff[r + 1], r == n_reels - 1, wweight, wgroup, gmode,
                                                 gcap, gpays, n_runs, run_sym, run_lo, run_hi, run_real, row_run, pays,
                                                 combo_of, cap, wide, base, width, n_values, tiv, tfv, ops, states_max,
                                                 work_max)
        if outcome != DONE:
            return outcome, tiv, tfv, max(largest, keys.shape[0]), ops
        largest = max(largest, keys.shape[0])
    return DONE, tiv, tfv, largest, ops


def moment_sums(where: str, reels: list, rows: int, pays: np.ndarray, include: np.ndarray, gmode: np.ndarray,
                gcap: np.ndarray, gpays: np.ndarray, cycle: int, upper: int, work_max: int,
                combo_of: np.ndarray | None = None, n_combos: int = 0, runs_of: list | None = None) -> dict | None:
    """The exact sums over the cycle of the clusters of the symbols in ``include`` (bool per paying symbol) and the
    scatter groups of ``gmode`` (none: pass empty arrays): ``weight``, ``pay`` (weight x pay units, exact),
    ``square`` (weight x pay^2, float), ``max_units``, and with ``combo_of[symbol, size]`` (combination index, -1
    for none) ``clusters`` (weight x clusters) and ``hits`` (weight of screens with one) per combination; None when
    the route does not apply or is over ``work_max`` steps or :data:`TRANSFER_STATES_MAX` states on a reel.
    Arguments as :func:`workbench.exact.cluster_transfer.transfer_analysis` takes them."""
    cap = pays.shape[1] - 1
    if cap > MAX_CAP:
        return None
    runs = window_runs(reels, rows, include, runs_of)
    if runs.width > MAX_RUNS:
        return None
    if len(reels) == 1:
        runs = with_empty_reel(runs)
    pays_in = np.where(np.asarray(include)[:, None], pays, 0).astype(np.int64)
    if combo_of is None:
        combo_of = np.full(pays.shape, -1, dtype=np.int64)
    wide = cycle * max(upper, 1) >= INT_SUM_MAX
    outcome, totals, float_totals, largest, ops = _moment_sweep(
        runs.woff, runs.weight, runs.group, runs.run_sym, runs.run_lo, runs.run_hi, runs.run_real, runs.n_runs,
        runs.row_run, pays_in, np.ascontiguousarray(combo_of, dtype=np.int64), np.int64(n_combos), np.int64(cap),
        gmode.astype(np.int64), gcap.astype(np.int64), np.ascontiguousarray(gpays, dtype=np.int64),
        np.int64((runs.width + FIELDS_PER_WORD - 1) // FIELDS_PER_WORD), np.int64(TRANSFER_STATES_MAX),
        np.int64(work_max), wide)
    if outcome != DONE:
        return None
    if int(totals[IW]) != cycle:
        raise ExactBudgetError(f"{where}: the cluster moments' weights do not add up to the cycle (64-bit overflow)")
    pay = exact_from_residue(where, int(totals[IA]), float(float_totals[FA]), int(ops) + 8, cycle * max(upper, 1)) \
        if wide else int(totals[IA])
    clusters = [int(x) for x in totals[IC: IC + n_combos].tolist()]
    hits = [cycle - int(x) for x in totals[IC + n_combos: IC + 2 * n_combos].tolist()]
    return {"weight": int(totals[IW]), "pay": pay, "square": float(float_totals[FB]), "max_units": int(totals[IM]),
            "zero": int(totals[IZ]),
            "clusters": clusters, "hits": hits, "steps": int(ops), "largest_layer": int(largest)}
