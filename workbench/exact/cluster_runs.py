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


@njit(cache=True)
def touch_sets(u, lo_v, hi_v, n_runs, run_sym, run_lo, run_hi, row_run, masks, vset):
    """The runs of window ``u`` each window ``v`` touches (``vset[v - lo_v]`` indexes ``masks``); returns how many
    distinct sets."""
    n_sets = 0
    for v in range(lo_v, hi_v):
        m = np.int64(0)
        for j in range(n_runs[v]):
            for row in range(run_lo[v, j], run_hi[v, j] + 1):
                p = row_run[u, run_sym[v, j], row]
                if p >= 0:
                    m |= np.int64(1) << p
        k = 0
        while k < n_sets and masks[k] != m:
            k += 1
        if k == n_sets:
            masks[k] = m
            n_sets += 1
        vset[v - lo_v] = k
    return n_sets


@njit(cache=True)
def popcounts(masks):
    out = np.zeros(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        m = masks[i]
        while m:
            m &= m - 1
            out[i] += 1
    return out
