"""Cluster pays on long strips, the shared view of the reels' windows: runs.

In one paying symbol's graph (its cells and the wilds) a *run* is a maximal vertical segment of one reel's window.
The column transfers over runs (:mod:`.cluster_unpaid`, :mod:`.cluster_moments`) describe a screen reel by reel by
its runs: :func:`symbol_runs` finds each symbol's runs of every window once, :func:`window_runs` lays out the runs
of the symbols one sweep follows, with windows equal in those runs (and the scatter groups' counts) merged.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import njit


class WindowRuns(NamedTuple):
    """The windows of every reel as runs, flattened over the reels: windows of reel ``r`` are rows
    ``woff[r]..woff[r + 1]``; windows equal in their runs and group counts are merged (weights added)."""

    woff: np.ndarray  # int64[n_reels + 1]
    weight: np.ndarray  # int64[n]
    group: np.ndarray  # int64[n, G] paying scatter groups' counts
    run_sym: np.ndarray  # int64[n, width] symbol of each run
    run_lo: np.ndarray  # first row
    run_hi: np.ndarray  # last row
    run_real: np.ndarray  # 1 when the run holds a real symbol (not only wilds)
    n_runs: np.ndarray  # int64[n]
    row_run: np.ndarray  # int64[n, n_sym, rows] the run of (symbol, row), -1 for none
    width: int


def symbol_runs(reels: list, rows: int) -> list:
    """Per reel, window and paying symbol: that symbol's runs in the window as (symbol, first row, last row, real
    flag) tuples (a symbol's runs depend on its own cells and the wilds only, so they are found once for every
    sweep over some of the symbols)."""
    full = (1 << rows) - 1
    out = []
    for r, (masks, wild, _, weights) in enumerate(reels):
        shift = r * rows
        per_window = []
        for w in range(len(weights)):
            wmask = (int(wild[w]) >> shift) & full
            per_symbol = []
            for s in range(masks.shape[1]):
                own = (int(masks[w, s]) >> shift) & full
                graph = own | wmask
                found = []
                k = 0
                while k < rows:
                    if (graph >> k) & 1:
                        j = k
                        while j + 1 < rows and (graph >> (j + 1)) & 1:
                            j += 1
                        seg = ((1 << (j + 1)) - 1) ^ ((1 << k) - 1)
                        found.append((s, k, j, 1 if own & seg else 0))
                        k = j + 1
                    else:
                        k += 1
                per_symbol.append(tuple(found))
            per_window.append(per_symbol)
        out.append(per_window)
    return out


def window_runs(reels: list, rows: int, include: np.ndarray, runs_of: list | None = None) -> WindowRuns:
    """The runs of the symbols in ``include`` (bool per paying symbol) of every window (see :class:`WindowRuns`);
    ``reels`` as :func:`workbench.exact.cluster_transfer.transfer_analysis` takes them, ``runs_of`` their
    :func:`symbol_runs` when the caller has them."""
    n_sym = len(include)
    if runs_of is None:
        runs_of = symbol_runs(reels, rows)
    chosen = [s for s in range(n_sym) if include[s]]
    merged_reels = []
    for r, (_, _, counts, weights) in enumerate(reels):
        merged: dict = {}
        counts_of = [tuple(int(c) for c in row) for row in np.asarray(counts).reshape(len(weights), -1).tolist()]
        for w in range(len(weights)):
            found = tuple(run for s in chosen for run in runs_of[r][w][s])
            key = (found, counts_of[w])
            merged[key] = merged.get(key, 0) + int(weights[w])
        merged_reels.append(merged)
    entries = [(key, weight) for merged in merged_reels for key, weight in merged.items()]
    width = max(1, max((len(key[0]) for key, _ in entries), default=1))
    n = len(entries)
    n_groups = len(entries[0][0][1]) if entries else 0
    out = WindowRuns(np.cumsum([0] + [len(m) for m in merged_reels]).astype(np.int64),
                     np.array([weight for _, weight in entries], dtype=np.int64),
                     np.array([key[1] for key, _ in entries], dtype=np.int64).reshape(n, n_groups),
                     np.zeros((n, width), np.int64), np.zeros((n, width), np.int64), np.zeros((n, width), np.int64),
                     np.zeros((n, width), np.int64), np.zeros(n, np.int64), np.full((n, n_sym, rows), -1, np.int64),
                     width)
    for i, ((found, _), _) in enumerate(entries):
        out.n_runs[i] = len(found)
        for j, (s, lo, hi, real) in enumerate(found):
            out.run_sym[i, j], out.run_lo[i, j], out.run_hi[i, j], out.run_real[i, j] = s, lo, hi, real
            out.row_run[i, s, lo: hi + 1] = j
    return out


def with_empty_reel(runs: WindowRuns) -> WindowRuns:
    """``runs`` and one more reel of one window (weight 1) with no runs and no scatter: the sweeps' steps close every
    component and pay the groups after a last reel, so a one-reel game takes their one path this way."""
    n, width = runs.run_sym.shape
    extra = lambda a, fill=0: np.concatenate([a, np.full((1,) + a.shape[1:], fill, dtype=a.dtype)])  # noqa: E731
    return WindowRuns(np.append(runs.woff, runs.woff[-1] + 1), np.append(runs.weight, 1), extra(runs.group),
                      extra(runs.run_sym), extra(runs.run_lo), extra(runs.run_hi), extra(runs.run_real),
                      np.append(runs.n_runs, 0), extra(runs.row_run, -1), runs.width)


class LayerPlan(NamedTuple):
    """How one layer of states (sorted by window) is summed before a reel step: per group ``g`` of states sharing
    window ``gu[g]`` (rows ``gstart[g]..gstart[g + 1]``), the distinct sets of its runs the next windows touch
    (``masks[g, k]``, ``n_sets[g]`` of them; window ``v`` reads set ``vset[g, v - lo_v]``), the order to sum them in
    (``order[g]``: largest sets first) and the set each is summed from (``src[g, k]``: the smallest already summed
    set that holds it, -1 for the group's states themselves)."""

    gstart: np.ndarray
    gu: np.ndarray
    masks: np.ndarray
    n_sets: np.ndarray
    vset: np.ndarray
    order: np.ndarray
    src: np.ndarray


@njit
def layer_plan(window_of, lo_u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run):
    """The :class:`LayerPlan` of a layer whose states' windows (local to reel ``lo_u``'s rows) are ``window_of``
    (sorted), stepping to the windows ``lo_v..hi_v``."""
    n = window_of.shape[0]
    nv = hi_v - lo_v
    n_groups = 0
    for i in range(n):
        if i == 0 or window_of[i] != window_of[i - 1]:
            n_groups += 1
    gstart = np.zeros(n_groups + 1, dtype=np.int64)
    gu = np.zeros(n_groups, dtype=np.int64)
    masks = np.zeros((n_groups, nv), dtype=np.int64)
    n_sets = np.zeros(n_groups, dtype=np.int64)
    vset = np.zeros((n_groups, nv), dtype=np.int64)
    order = np.zeros((n_groups, nv), dtype=np.int64)
    src = np.full((n_groups, nv), -1, dtype=np.int64)
    g = 0
    for i in range(n):
        if i > 0 and window_of[i] != window_of[i - 1]:
            g += 1
        if i == 0 or window_of[i] != window_of[i - 1]:
            gstart[g] = i
            gu[g] = window_of[i] + lo_u
    gstart[n_groups] = n
    for g in range(n_groups):
        u = gu[g]
        k_sets = 0
        for v in range(lo_v, hi_v):
            m = np.int64(0)
            for j in range(n_runs[v]):
                for row in range(run_lo[v, j], run_hi[v, j] + 1):
                    p = row_run[u, run_sym[v, j], row]
                    if p >= 0:
                        m |= np.int64(1) << p
            k = 0
            while k < k_sets and masks[g, k] != m:
                k += 1
            if k == k_sets:
                masks[g, k] = m
                k_sets += 1
            vset[g, v - lo_v] = k
        n_sets[g] = k_sets
        bits = popcounts(masks[g, :k_sets])
        order[g, :k_sets] = np.argsort(-bits, kind="mergesort")
        for x in range(k_sets):
            k = order[g, x]
            for y in range(x):
                j = order[g, y]
                if masks[g, j] & masks[g, k] == masks[g, k] and (src[g, k] < 0 or bits[j] < bits[src[g, k]]):
                    src[g, k] = j
    return LayerPlan(gstart, gu, masks, n_sets, vset, order, src)


@njit
def popcounts(masks):
    out = np.zeros(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        m = masks[i]
        while m:
            m &= m - 1
            out[i] += 1
    return out
