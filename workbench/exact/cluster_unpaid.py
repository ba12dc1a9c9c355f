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

from typing import NamedTuple

import numpy as np

from .._jit import njit
from ..pays.scatter import code_count, update_code
from .cluster_runs import layer_plan, window_runs, with_empty_reel
from .transfer_tables import TRANSFER_STATES_MAX, grow1, grow2, key_hash

# Steps (states x windows of the next reel) of one sweep: about 20-40 ns each on one core.
UNPAID_WORK_MAX = 400_000_000
RUN_BITS = 5  # a run's field: size (at most 15) and the real-symbol flag
RUNS_PER_WORD = 12
MAX_THRESHOLD = 5  # the smallest paying size up to which runs never join on an unpaid screen (see the docstring)

# outcomes of the kernel
DONE, OVER_BUDGET, WILD_JOIN, PAID = 0, 1, 2, 3


@njit
def _unpaid_start(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, thresholds, gmode, gcap, words):
    """The states after reel 0: one per window that has not paid (each run its own component)."""
    n_groups = gmode.shape[0]
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
        if dead:
            continue
        keys[n, 0] = v - woff[0]
        for g in range(n_groups):
            keys[n, 1 + g] = update_code(gmode[g], gcap[g], 0, wgroup[v, g])
        for j in range(n_runs[v]):
            f = min(run_hi[v, j] - run_lo[v, j] + 1, thresholds[run_sym[v, j]]) | (run_real[v, j] << 4)
            keys[n, 1 + n_groups + j // RUNS_PER_WORD] |= np.int64(f) << (RUN_BITS * (j % RUNS_PER_WORD))
        weight[n] = wweight[v]
        n += 1
    return keys[:n], weight[:n]


class _UnpaidSums(NamedTuple):
    """One reel step's summed states (:func:`_unpaid_sum_layer`), as :class:`.cluster_moments._LayerSums`."""

    gu: np.ndarray
    vset: np.ndarray
    mstart: np.ndarray
    mcount: np.ndarray
    mkeys: np.ndarray
    mw: np.ndarray
    steps: int


@njit
def _unpaid_sum_layer(keys, weight, lo_u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run, n_groups, width):
    """The states of one layer (in window order) summed by the runs each next window touches, as the layer's
    :func:`~.cluster_runs.layer_plan` says: one block per window and touched set.  Written out in one loop (helpers
    taking arrays cost reference counts per call)."""
    plan = layer_plan(keys[:, 0], lo_u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run)
    n = keys.shape[0]
    words = keys.shape[1]
    mstart = np.zeros(plan.vset.shape, dtype=np.int64)
    mcount = np.zeros(plan.vset.shape, dtype=np.int64)
    mkeys = np.zeros((max(16, 2 * n), words), dtype=np.int64)
    mw = np.zeros(mkeys.shape[0], dtype=np.int64)
    keep = np.zeros(words, dtype=np.int64)
    proj = np.zeros(words, dtype=np.int64)
    mtable = np.full(16, -1, dtype=np.int64)
    used = 0
    steps = 0
    for g in range(plan.gu.shape[0]):
        start, stop = plan.gstart[g], plan.gstart[g + 1]
        n_u = stop - start
        if used + plan.n_sets[g] * n_u > mkeys.shape[0]:
            mkeys = grow2(mkeys, used + plan.n_sets[g] * n_u)
            mw = grow1(mw, used + plan.n_sets[g] * n_u)
        mcap = 16
        while mcap < 2 * n_u:
            mcap *= 2
        if mtable.shape[0] < mcap:
            mtable = np.full(mcap, -1, dtype=np.int64)
        mask_t = np.uint64(mcap - 1)
        for x in range(plan.n_sets[g]):
            k = plan.order[g, x]
            src = plan.src[g, k]
            keep[:] = 0
            for t in range(1 + n_groups):
                keep[t] = -1
            for p in range(width):
                if (plan.masks[g, k] >> p) & 1:
                    keep[1 + n_groups + p // RUNS_PER_WORD] |= np.int64(31) << (RUN_BITS * (p % RUNS_PER_WORD))
            mstart[g, k] = used
            lo_i, hi_i = (start, stop) if src < 0 else (mstart[g, src], mstart[g, src] + mcount[g, src])
            steps += hi_i - lo_i
            for t in range(mcap):
                mtable[t] = -1
            nm = 0
            for i in range(lo_i, hi_i):
                for t in range(words):
                    proj[t] = (keys[i, t] if src < 0 else mkeys[i, t]) & keep[t]
                h = key_hash(proj) & mask_t
                while True:
                    e = mtable[h]
                    if e < 0:
                        break
                    same = True
                    for t in range(words):
                        if mkeys[used + e, t] != proj[t]:
                            same = False
                            break
                    if same:
                        break
                    h = (h + np.uint64(1)) & mask_t
                if e < 0:
                    e = nm
                    mtable[h] = e
                    for t in range(words):
                        mkeys[used + e, t] = proj[t]
                    mw[used + e] = 0
                    nm += 1
                mw[used + e] += weight[i] if src < 0 else mw[i]
            mcount[g, k] = nm
            used += nm
    return _UnpaidSums(plan.gu, plan.vset, mstart, mcount, mkeys[:used], mw[:used], steps)


@njit
def _unpaid_step_layer(sums, lo_v, hi_v, last, wweight, wgroup, gmode, gcap, gpays, n_runs, run_sym, run_lo, run_hi,
                       run_real, row_run, thresholds, width, ops, states_max, work_max):
    """Step the summed states to every window of the next reel, one window at a time (its states in one small
    table), dropping the screens that pay; after the last reel, add up those that paid nothing.  Returns (outcome,
    keys, weights, weight of the screens paying nothing, steps).  Every array the loop writes is sized before it."""
    mkeys, mw, gu, vset, mstart, mcount = sums.mkeys, sums.mw, sums.gu, sums.vset, sums.mstart, sums.mcount
    words = mkeys.shape[1]
    n_groups = gmode.shape[0]
    stamp = np.zeros(width, dtype=np.int64)
    new_field = np.zeros(width, dtype=np.int64)
    key = np.zeros(words, dtype=np.int64)
    into = np.zeros(hi_v - lo_v, dtype=np.int64)
    for v in range(lo_v, hi_v):
        for g in range(gu.shape[0]):
            into[v - lo_v] += mcount[g, vset[g, v - lo_v]]
    total = into.sum()
    if ops + total > work_max:
        return OVER_BUDGET, mkeys[:0], mw[:0], 0, ops + total
    size = 1 if last else max(1, min(total, states_max))
    k2 = np.empty((size, words), dtype=np.int64)
    w2 = np.empty(size, dtype=np.int64)
    slots = 16
    while slots < 2 * into.max():
        slots *= 2
    table_all = np.full(slots, -1, dtype=np.int64)
    n2 = 0
    zero = 0
    ops += total
    for v in range(lo_v, hi_v):
        first = n2
        t_size = 16
        while t_size < 2 * into[v - lo_v]:
            t_size *= 2
        table = table_all[:t_size]
        table[:] = -1
        mask_t = np.uint64(t_size - 1)
        for g in range(gu.shape[0]):
            u = gu[g]
            k = vset[g, v - lo_v]
            for e in range(mstart[g, k], mstart[g, k] + mcount[g, k]):
                # the runs of v after the state: each adds the earlier runs it touches; a component that reaches
                # its symbol's smallest paying size with a real symbol pays (the screen leaves the sweep)
                for j in range(n_runs[u]):
                    stamp[j] = -1
                outcome = DONE
                for j in range(n_runs[v]):
                    s = run_sym[v, j]
                    size_j = run_hi[v, j] - run_lo[v, j] + 1
                    real = run_real[v, j]
                    prev = -1
                    for row in range(run_lo[v, j], run_hi[v, j] + 1):
                        p = row_run[u, s, row]
                        if p < 0 or p == prev:
                            continue
                        prev = p
                        f = (mkeys[e, 1 + n_groups + p // RUNS_PER_WORD] >> (RUN_BITS * (p % RUNS_PER_WORD))) & 31
                        if stamp[p] >= 0:  # a second run joins the same earlier component: five cells or more
                            outcome = PAID if real or f >> 4 or run_real[v, stamp[p]] else WILD_JOIN
                            break
                        stamp[p] = j
                        size_j += f & 15
                        real |= f >> 4
                    if outcome != DONE:
                        break
                    if real and size_j >= thresholds[s]:
                        outcome = PAID
                        break
                    new_field[j] = min(size_j, thresholds[s]) | (real << 4)
                if outcome == WILD_JOIN:
                    return WILD_JOIN, k2[:0], w2[:0], 0, ops
                if outcome != DONE:
                    continue
                cnt = mw[e] * wweight[v]
                key[:] = 0
                key[0] = v - lo_v
                paid = False
                for q in range(n_groups):
                    key[1 + q] = update_code(gmode[q], gcap[q], mkeys[e, 1 + q], wgroup[v, q])
                    if last and gpays[q, code_count(gmode[q], key[1 + q])] != 0:
                        paid = True
                if last:
                    if not paid:
                        zero += cnt
                    continue
                for j in range(n_runs[v]):
                    key[1 + n_groups + j // RUNS_PER_WORD] |= new_field[j] << (RUN_BITS * (j % RUNS_PER_WORD))
                h = key_hash(key) & mask_t
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
                    h = (h + np.uint64(1)) & mask_t
                if f < 0:
                    if n2 >= size:
                        return OVER_BUDGET, k2[:0], w2[:0], 0, ops
                    table[h] = n2 - first
                    for t in range(words):
                        k2[n2, t] = key[t]
                    w2[n2] = 0
                    f = n2
                    n2 += 1
                else:
                    f += first
                w2[f] += cnt
    return DONE, k2[:n2], w2[:n2], zero, ops


@njit(cache=True, nogil=True)
def _unpaid_sweep(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, row_run, thresholds, gmode, gcap,
                  gpays, run_words, states_max, work_max):
    """The sweep (see the module docstring).  Windows of reel ``r`` are rows ``woff[r]..woff[r + 1]`` (weights,
    paying scatter groups' counts, runs).  A key is the window (local index), the groups' count codes and the runs'
    fields.  Returns (outcome, weight of the screens paying nothing, largest layer, steps).

    A step from the states of window ``u`` to a window ``v`` reads only the fields of the runs of ``u`` that ``v``
    touches, so the states of ``u`` are first summed by those fields (one block per distinct set of touched runs)
    and each sum steps once: far fewer steps than states x windows."""
    n_reels = woff.shape[0] - 1
    n_groups = gmode.shape[0]
    words = 1 + n_groups + run_words
    width = run_sym.shape[1]
    keys, weight = _unpaid_start(woff, wweight, wgroup, run_sym, run_lo, run_hi, run_real, n_runs, thresholds, gmode,
                                 gcap, words)
    largest = keys.shape[0]
    ops = 0
    for r in range(1, n_reels):
        if ops + keys.shape[0] > work_max:
            return OVER_BUDGET, 0, largest, ops + keys.shape[0]
        sums = _unpaid_sum_layer(keys, weight, woff[r - 1], woff[r], woff[r + 1], n_runs, run_sym, run_lo, run_hi,
                                 row_run, n_groups, width)
        ops += sums.steps
        outcome, keys, weight, zero, ops = _unpaid_step_layer(
            sums, woff[r], woff[r + 1], r == n_reels - 1, wweight, wgroup, gmode, gcap, gpays, n_runs, run_sym, run_lo,
            run_hi, run_real, row_run, thresholds, width, ops, states_max, work_max)
        if outcome != DONE:
            return outcome, 0, largest, ops
        if r == n_reels - 1:
            return DONE, zero, largest, ops
        largest = max(largest, keys.shape[0])
    return DONE, 0, largest, ops


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
    if len(reels) == 1:
        runs = with_empty_reel(runs)
    if runs.width > 62:  # the runs a window touches are one 64-bit mask
        return None, 0
    outcome, zero, _, steps = _unpaid_sweep(
        runs.woff, runs.weight, runs.group, runs.run_sym, runs.run_lo, runs.run_hi, runs.run_real, runs.n_runs,
        runs.row_run, thresholds, gmode.astype(np.int64), gcap.astype(np.int64),
        np.ascontiguousarray(gpays, dtype=np.int64), np.int64((runs.width + RUNS_PER_WORD - 1) // RUNS_PER_WORD),
        np.int64(TRANSFER_STATES_MAX), np.int64(work_max))
    return (int(zero) if outcome == DONE else None), int(steps)
