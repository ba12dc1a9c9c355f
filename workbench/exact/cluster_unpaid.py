"""Exact hit frequency of cluster pays on long strips: a column transfer over the screens that pay nothing.

The joint sweep of :mod:`workbench.exact.cluster_transfer` follows every symbol's open components up to the largest
listed size, which on 250-stop 7x7 strips is billions of steps.  The hit frequency needs far less: only the screens
that pay nothing, and on such a screen every component is small.

**The state.**  In one symbol's graph (its cells and the wilds) a *run* is a maximal vertical segment of one
reel's window.  After reels 0..r, a screen that has paid nothing so far is described by the window of reel r and,
for each of its runs, the size of the component it belongs to (capped at the symbol's smallest paying size ``T``)
and whether that component holds a real symbol.  Two runs of reel r never belong to one component on such a screen
when ``T <= 5``: joining them through the earlier reels needs a path around the cell between them, three cells of
reel r - 1 at least, so the component has five cells or more and has paid (a component of wilds only does not pay;
if such a join happens the transfer stops and the caller keeps its other methods).  So the state is the window
and one small number per run, and a step to the next reel's window adds to each run the sizes of the earlier runs
it touches.  A component that holds a real symbol and reaches ``T`` cells pays (every larger size pays too: the
route is taken only when the pay table has no zero band above ``T``), so its screens leave the sweep at once.

The paying scatter groups' running counts are part of the state; after the last reel a screen whose groups pay
nothing is a screen with no win.  Weights are exact 64-bit integers (the cycle fits 63 bits, checked by the
caller), so the weight of the screens paying nothing, hence the hit frequency, is an exact fraction.

Tested against the full enumeration and the joint sweep on small games (tests/test_cluster_transfer.py).
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..pays.scatter import code_count, update_code
from .cluster_runs import window_runs
from .transfer_tables import TRANSFER_STATES_MAX, grow1, grow2, insert, key_hash, rehash

# Steps (states x windows of the next reel) of one sweep: about 20-40 ns each on one core.
UNPAID_WORK_MAX = 400_000_000
RUN_BITS = 5  # a run's field: size (at most 15) and the real-symbol flag
RUNS_PER_WORD = 12
MAX_THRESHOLD = 5  # the smallest paying size up to which runs never join on an unpaid screen (see the docstring)

# outcomes of the kernel
DONE, OVER_BUDGET, WILD_JOIN = 0, 1, 2


@njit(cache=True, nogil=True)
def _unpaid_sweep(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, row_run, thresholds, gmode, gcap,
                  gpays, run_words, states_max, work_max):
    """The sweep (see the module docstring).  Windows of reel ``r`` are rows ``woff[r]..woff[r + 1]`` (weights,
    paying scatter groups' counts, runs).  A key is the window (local index), the groups' count codes and the runs'
    fields.  Returns (outcome, weight of the screens paying nothing, largest layer, steps).

    A step from the states of window ``u`` to a window ``v`` reads only the fields of the runs of ``u`` that ``v``
    touches, so the states of ``u`` are first summed by those fields (one table per distinct set of touched runs)
    and each sum steps once: far fewer steps than states x windows."""
    n_reels = woff.shape[0] - 1
    n_groups = gmode.shape[0]
    words = 1 + n_groups + run_words
    width = run_sym.shape[1]
    stamp = np.full(width, -1, dtype=np.int64)
    new_field = np.zeros(width, dtype=np.int64)
    key = np.zeros(words, dtype=np.int64)
    # reel 0: one state per window that has not paid (no earlier runs: window 0 of reel 0 stands in, untouched)
    keys = np.zeros((max(1, woff[1] - woff[0]), words), dtype=np.int64)
    weight = np.zeros(keys.shape[0], dtype=np.int64)
    n = 0
    for v in range(woff[0], woff[1]):
        dead = False
        for j in range(n_runs[v]):
            size = run_hi[v, j] - run_lo[v, j] + 1
            t = thresholds[run_sym[v, j]]
            if run_real[v, j] and size >= t:
                dead = True
                break
            new_field[j] = min(size, t) | (run_real[v, j] << 4)
        if dead:
            continue
        key[:] = 0
        key[0] = v - woff[0]
        for g in range(n_groups):
            key[1 + g] = update_code(gmode[g], gcap[g], 0, wgroup[v, g])
        for j in range(n_runs[v]):
            key[1 + n_groups + j // RUNS_PER_WORD] |= new_field[j] << (RUN_BITS * (j % RUNS_PER_WORD))
        for t_ in range(key.shape[0]):
            keys[n, t_] = key[t_]
        weight[n] = wweight[v]
        n += 1
    keys = keys[:n]
    weight = weight[:n]
    largest = n
    ops = 0
    zero = 0
    for r in range(1, n_reels):
        lo_v = woff[r]
        hi_v = woff[r + 1]
        nv = hi_v - lo_v
        last = r == n_reels - 1
        cap_t = 1024
        while cap_t < 4 * n:
            cap_t *= 2
        table = np.full(cap_t, -1, dtype=np.int64)
        k2 = np.zeros((1 if last else max(16, n), words), dtype=np.int64)
        w2 = np.zeros(1 if last else max(16, n), dtype=np.int64)
        n2 = 0
        order = np.argsort(keys[:, 0], kind="mergesort")
        keys, weight = keys[order], weight[order]  # each window's states read in sequence
        order = np.arange(n)
        vset = np.zeros(nv, dtype=np.int64)
        masks = np.zeros(nv, dtype=np.int64)
        start = 0
        while start < n:
            stop = start
            while stop < n and keys[order[stop], 0] == keys[order[start], 0]:
                stop += 1
            u = keys[order[start], 0] + woff[r - 1]
            n_u = stop - start
            # the runs of u that each window v touches, and the distinct such sets
            n_sets = 0
            for v in range(lo_v, hi_v):
                m = np.int64(0)
                for j in range(n_runs[v]):
                    s = run_sym[v, j]
                    for row in range(run_lo[v, j], run_hi[v, j] + 1):
                        p = row_run[u, s, row]
                        if p >= 0:
                            m |= np.int64(1) << p
                k = 0
                while k < n_sets and masks[k] != m:
                    k += 1
                if k == n_sets:
                    masks[k] = m
                    n_sets += 1
                vset[v - lo_v] = k
            # per set: the states of u summed by the fields that set reads (and the group codes)
            mcap = 16
            while mcap < 2 * n_u:
                mcap *= 2
            for k in range(n_sets):
                keep = np.zeros(words, dtype=np.int64)
                keep[0] = -1
                for g in range(n_groups):
                    keep[1 + g] = -1
                for p in range(width):
                    if (masks[k] >> p) & 1:
                        keep[1 + n_groups + p // RUNS_PER_WORD] |= np.int64(31) << (RUN_BITS * (p % RUNS_PER_WORD))
                mtable = np.full(mcap, -1, dtype=np.int64)
                mkeys = np.zeros((n_u, words), dtype=np.int64)
                mw = np.zeros(n_u, dtype=np.int64)
                nm = 0
                for a in range(start, stop):
                    i = order[a]
                    for t in range(words):
                        key[t] = keys[i, t] & keep[t]
                    e = insert(mtable, mkeys, 0, key)
                    if e < 0:
                        mtable[-1 - e] = nm
                        for t_ in range(key.shape[0]):
                            mkeys[nm, t_] = key[t_]
                        e = nm
                        nm += 1
                    mw[e] += weight[i]
                ops += n_u
                # each summed state steps to every window v that reads this set
                for v in range(lo_v, hi_v):
                    if vset[v - lo_v] != k:
                        continue
                    if ops + nm > work_max:
                        return OVER_BUDGET, 0, largest, ops
                    ops += nm
                    for e in range(nm):
                        # the runs of v after the state written out: helpers taking arrays cost
                        # atomic reference counts per call here
                        for j in range(n_runs[u]):
                            stamp[j] = -1
                        outcome = DONE
                        for j in range(n_runs[v]):
                            s = run_sym[v, j]
                            size = run_hi[v, j] - run_lo[v, j] + 1
                            real = run_real[v, j]
                            prev = -1
                            for row in range(run_lo[v, j], run_hi[v, j] + 1):
                                p = row_run[u, s, row]
                                if p < 0 or p == prev:
                                    continue
                                prev = p
                                f = (mkeys[e, 1 + n_groups + p // RUNS_PER_WORD] >> (RUN_BITS * (p % RUNS_PER_WORD))) & 31
                                if stamp[p] >= 0:  # a second run joins the same earlier component: five cells or more
                                    outcome = 1 if real or f >> 4 or run_real[v, stamp[p]] else WILD_JOIN
                                    break
                                stamp[p] = j
                                size += f & 15
                                real |= f >> 4
                            if outcome != DONE:
                                break
                            if real and size >= thresholds[s]:
                                outcome = 1
                                break
                            new_field[j] = min(size, thresholds[s]) | (real << 4)
                        if outcome == WILD_JOIN:
                            return WILD_JOIN, 0, largest, ops
                        if outcome != DONE:
                            continue
                        cnt = mw[e] * wweight[v]
                        if last:
                            paid = False
                            for g in range(n_groups):
                                code = update_code(gmode[g], gcap[g], mkeys[e, 1 + g], wgroup[v, g])
                                if gpays[g, code_count(gmode[g], code)] != 0:
                                    paid = True
                            if not paid:
                                zero += cnt
                            continue
                        key[:] = 0
                        key[0] = v - lo_v
                        for g in range(n_groups):
                            key[1 + g] = update_code(gmode[g], gcap[g], mkeys[e, 1 + g], wgroup[v, g])
                        for j in range(n_runs[v]):
                            key[1 + n_groups + j // RUNS_PER_WORD] |= new_field[j] << (RUN_BITS * (j % RUNS_PER_WORD))
                        mask_t = np.uint64(table.shape[0] - 1)
                        h = key_hash(key) & mask_t
                        while True:
                            f = table[h]
                            if f < 0:
                                break
                            same = True
                            for t in range(words):
                                if k2[f, t] != key[t]:
                                    same = False
                                    break
                            if same:
                                break
                            h = (h + np.uint64(1)) & mask_t
                        if f < 0:
                            f = -1 - np.int64(h)
                            if n2 >= states_max:
                                return OVER_BUDGET, 0, n2, ops
                            if n2 >= k2.shape[0]:
                                k2 = grow2(k2, n2 + 1)
                                w2 = grow1(w2, n2 + 1)
                            table[-1 - f] = n2
                            for t_ in range(key.shape[0]):
                                k2[n2, t_] = key[t_]
                            f = n2
                            n2 += 1
                            if 2 * n2 > table.shape[0]:
                                table = rehash(table, k2, n2)
                        w2[f] += cnt
            start = stop
        if last:
            return DONE, zero, largest, ops
        keys, weight = k2[:n2], w2[:n2]
        n = n2
        largest = max(largest, n)
    # a single reel: its windows that paid nothing
    for i in range(n):
        paid = False
        for g in range(n_groups):
            if gpays[g, code_count(gmode[g], keys[i, 1 + g])] != 0:
                paid = True
        if not paid:
            zero += weight[i]
    return DONE, zero, largest, ops


def thresholds_of(pays: np.ndarray) -> np.ndarray | None:
    """Each paying symbol's smallest paying cluster size (0: it never pays), or None when the route does not apply:
    a size above it pays nothing (a band with an upper end) or it is over :data:`MAX_THRESHOLD`."""
    out = np.zeros(pays.shape[0], dtype=np.int64)
    for s in range(pays.shape[0]):
        paying = np.flatnonzero(pays[s] > 0)
        if not len(paying):
            continue
        t = int(paying[0])
        if t > MAX_THRESHOLD or (pays[s, t:] <= 0).any():
            return None
        out[s] = t
    return out


def unpaid_weight(reels: list, rows: int, pays: np.ndarray, gmode: np.ndarray, gcap: np.ndarray, gpays: np.ndarray,
                  work_max: int = UNPAID_WORK_MAX, runs_of: list | None = None) -> tuple[int | None, int]:
    """The exact weight of the screens that pay nothing (clusters and paying scatter groups), or None when this
    route does not apply or is over its budget (``work_max`` steps, :data:`TRANSFER_STATES_MAX` states on a reel),
    and the steps taken.

    ``reels`` and ``pays`` as :func:`workbench.exact.cluster_transfer.transfer_analysis` takes them."""
    thresholds = thresholds_of(pays)
    if thresholds is None:
        return None, 0
    runs = window_runs(reels, rows, thresholds > 0, runs_of)
    if runs.width > 62:  # the runs a window touches are one 64-bit mask
        return None, 0
    outcome, zero, _, steps = _unpaid_sweep(
        runs.woff, runs.weight, runs.group, runs.run_sym, runs.run_lo, runs.run_hi, runs.run_real, runs.n_runs,
        runs.row_run, thresholds, gmode.astype(np.int64), gcap.astype(np.int64),
        np.ascontiguousarray(gpays, dtype=np.int64), np.int64((runs.width + RUNS_PER_WORD - 1) // RUNS_PER_WORD),
        np.int64(TRANSFER_STATES_MAX), np.int64(work_max))
    return (int(zero) if outcome == DONE else None), int(steps)
