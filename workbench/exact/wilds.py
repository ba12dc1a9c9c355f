"""Exact expected line pays when random wild features add wilds to a screen.

A line crosses one cell per reel, so the wild cells on a line are a bitmask
(bit ``r`` = the line's cell on reel ``r`` is wild).
:func:`expected_line_pays_with_wilds` gives
``line_expect[l, mask]``: the exact expected pay of line ``l`` over a strip
set's stops when the cells in ``mask`` are wild.  A random wild feature
(reels turning wild, square overlays, wilds at random cells) only changes
*which* cells are wild, independently of the stops, so its expected pay given
the cells already wild (``fixed``, e.g. persisting wilds) is a mix of
``line_expect`` entries weighted by the feature's exact distribution of
added-wild masks on the line.  Every table here is exact up to float rounding.
"""

from __future__ import annotations

from math import comb

import numpy as np

from .._jit import njit
from ..model import Game
from ..pays.lines import LineAutomaton
from .windows import row_symbol_weights


def _or_table(n_reels: int) -> np.ndarray:
    masks = np.arange(1 << n_reels)
    return masks[:, None] | masks[None, :]


def mix_masks(line_expect: np.ndarray, added: np.ndarray) -> np.ndarray:
    """E[pay of line l | cells ``fixed`` wild, feature adds wilds] for every line and ``fixed`` mask.

    ``added[l, b]`` (or ``added[b]`` for every line alike) is the probability
    that the feature makes exactly the cells in ``b`` wild on line ``l``.
    Returns ``[l, fixed]`` in the units of ``line_expect``.
    """
    n_masks = line_expect.shape[1]
    added = np.broadcast_to(added, line_expect.shape)
    union = _or_table(n_masks.bit_length() - 1)  # [fixed, b]
    return np.einsum("lfb,lb->lf", line_expect[:, union], added)


def whole_reels_distribution(count_probs: dict, n_reels: int) -> np.ndarray:
    """Mask distribution of ``k`` distinct reels chosen uniformly, ``k`` drawn from ``count_probs``."""
    out = np.zeros(1 << n_reels)
    masks = np.arange(1 << n_reels)
    sizes = np.array([bin(m).count("1") for m in masks])
    for k, p in count_probs.items():
        k = min(int(k), n_reels)
        out[sizes == k] += float(p) / comb(n_reels, k)
    return out


def square_overlays_distribution(line_rows: np.ndarray, n_rows: int, size_probs: dict, count_probs: dict) -> np.ndarray:
    """Mask distribution on every line of ``n`` square overlays (sizes i.i.d.) at uniform positions.

    A size-``s`` overlay covers ``s`` reels x ``s`` rows fully inside the grid;
    overlays may overlap.  ``n`` is drawn from ``count_probs``, each size from
    ``size_probs``.  Returns ``[line, mask]``.
    """
    n_lines, n_reels = line_rows.shape
    n_masks = 1 << n_reels
    one = np.zeros((n_lines, n_masks))
    for s, p_size in size_probs.items():
        s = int(s)
        if s <= 0 or s > n_reels or s > n_rows:
            one[:, 0] += float(p_size)  # the kernel skips overlays that do not fit
            continue
        spots = (n_reels - s + 1) * (n_rows - s + 1)
        for left in range(n_reels - s + 1):
            for top in range(n_rows - s + 1):
                inside = (line_rows >= top) & (line_rows < top + s)
                inside[:, :left] = False
                inside[:, left + s:] = False
                mask = (inside * (1 << np.arange(n_reels))).sum(axis=1)
                one[np.arange(n_lines), mask] += float(p_size) / spots
    union = _or_table(n_reels)
    out = np.zeros((n_lines, n_masks))
    for n, p_count in count_probs.items():
        dist = np.zeros((n_lines, n_masks))
        dist[:, 0] = 1.0
        for _ in range(int(n)):
            nxt = np.zeros((n_lines, n_masks))
            for a in range(n_masks):
                np.add.at(nxt, (slice(None), union[a]), dist[:, a:a + 1] * one)
            dist = nxt
        out += float(p_count) * dist
    return out


def random_cells_expectations(line_expect: np.ndarray, count_probs: dict, n_cells: int) -> np.ndarray:
    """E[pay of line l | ``fixed`` wild, ``n`` wilds on distinct uniform cells that are not already wild].

    ``n`` is drawn from ``count_probs`` (at most the free cells are filled).
    The answer depends on how many cells of the whole grid are free, so the
    result is ``[l, fixed, free_cells]`` for 0..``n_cells`` free cells
    (entries impossible for a mask, fewer free cells than on the line, are 0).
    """
    n_lines, n_masks = line_expect.shape
    n_reels = n_masks.bit_length() - 1
    masks = np.arange(n_masks)
    sizes = np.array([bin(m).count("1") for m in masks])
    # mean[l, fixed, j]: line pay averaged over the j-subsets of the line's free cells
    mean = np.zeros((n_lines, n_masks, n_reels + 1))
    for fixed in range(n_masks):
        subsets = masks[(masks & fixed) == 0]
        for j in range(n_reels + 1):
            chosen = subsets[sizes[subsets] == j]
            if len(chosen):
                mean[:, fixed, j] = line_expect[:, fixed | chosen].mean(axis=1)
    # hyper[f, F, j]: P(j of the line's f free cells get a wild | F free cells in the grid)
    hyper = np.zeros((n_reels + 1, n_cells + 1, n_reels + 1))
    for f in range(n_reels + 1):
        for free in range(f, n_cells + 1):
            for n, p in count_probs.items():
                c = min(int(n), free)
                for j in range(min(f, c) + 1):
                    hyper[f, free, j] += float(p) * comb(f, j) * comb(free - f, c - j) / comb(free, c)
    line_free = n_reels - sizes  # free cells on the line for each fixed mask
    return np.einsum("lmj,mFj->lmF", mean, hyper[line_free])


def expected_line_pays_with_wilds(game: Game, strip_set, automaton: LineAutomaton, wild: str) -> np.ndarray:
    """E[pay of line l] (pay units) when the cells of a subset of reels on that line are forced ``wild``.

    Returns an array (lines, 2**reels): entry [l, mask] has bit i of ``mask``
    set when the line's cell on reel i is wild (e.g. a persisting wild there).
    Exact expectation over the stops of ``strip_set``.
    """
    n_reels = game.reels
    wild_id = list(game.symbols).index(wild)
    S = automaton.trans.shape[1]
    out = np.zeros((len(game.paylines), 1 << n_reels))
    for l, rows in enumerate(game.paylines):
        probs = np.zeros((n_reels, 2, S))
        for i, r in enumerate(rows):
            w = row_symbol_weights(game, strip_set.reels[i], r).astype(float)
            probs[i, 0] = w / w.sum()
            probs[i, 1, wild_id] = 1.0
        out[l] = _masked_expectations(automaton.trans, automaton.pay_units.astype(float), probs)
    return out


@njit(cache=True)
def _masked_expectations(trans, pay, probs):
    n_reels = probs.shape[0]
    K, S = trans.shape
    out = np.zeros(1 << n_reels)
    dist = np.zeros(K)
    nxt = np.zeros(K)
    for mask in range(1 << n_reels):
        dist[:] = 0.0
        dist[0] = 1.0
        for i in range(n_reels):
            p = probs[i, (mask >> i) & 1]
            nxt[:] = 0.0
            for k in range(K):
                v = dist[k]
                if v == 0.0:
                    continue
                for a in range(S):
                    if p[a] > 0.0:
                        nxt[trans[k, a]] += v * p[a]
            dist[:] = nxt
        total = 0.0
        for k in range(K):
            total += dist[k] * pay[k]
        out[mask] = total
    return out


def overlay_list_distribution(line_rows: np.ndarray, n_rows: int, sizes) -> np.ndarray:
    """Mask distribution on every line of one square overlay per entry of ``sizes`` (each at its own uniform position
    wholly inside the grid of ``n_rows`` rows; they may overlap): ``[line, mask]``."""
    n_lines, n_reels = line_rows.shape
    union = _or_table(n_reels)
    dist = np.zeros((n_lines, 1 << n_reels))
    dist[:, 0] = 1.0
    for s in sizes:
        one = square_overlays_distribution(line_rows, n_rows, {int(s): 1.0}, {1: 1.0})
        nxt = np.zeros_like(dist)
        for a in range(1 << n_reels):
            np.add.at(nxt, (slice(None), union[a]), dist[:, a:a + 1] * one)
        dist = nxt
    return dist


def random_wilds_gain(game: Game, table, wild: str, mode: str = "base") -> float:
    """E[line pays of the screen after one random-wilds drop - before it] per spin of strip-set ``mode`` (pay units,
    exact up to float rounding): the drop draws one outcome of ``table`` (a :class:`~workbench.model.Table` of
    ``{ wilds = "none" | "cells" | "overlay", count, sizes }`` entries) by weight; ``cells``: ``count`` ``wild`` on
    distinct cells drawn uniformly among all cells; ``overlay``: a square per size at a uniform position wholly inside
    the grid.  The strip sets the mode plays (:meth:`~workbench.model.Game.played_strip_sets`) are mixed by weight."""
    from ..pays.lines import line_automaton

    game = game.in_strip_mode(mode)
    automaton = line_automaton(game)
    sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
    total_weight = sum(s.weight for s in sets)
    line_expect = sum(s.weight / total_weight * expected_line_pays_with_wilds(game, s, automaton, wild) for s in sets)
    line_rows = np.array(game.paylines, dtype=np.int64)
    n_cells, n_rows = int(sum(game.rows)), int(min(game.rows))
    table_total = float(sum(table.weights))
    plain = line_expect[:, 0].sum()
    gain = 0.0
    for entry, weight in zip(table.entries, table.weights):
        if weight <= 0 or entry["wilds"] == "none":
            continue
        if entry["wilds"] == "cells":
            count = min(int(entry["count"]), n_cells)
            after = random_cells_expectations(line_expect, {count: 1.0}, n_cells)[:, 0, n_cells].sum()
        elif entry["wilds"] == "overlay":
            after = mix_masks(line_expect, overlay_list_distribution(line_rows, n_rows, entry["sizes"]))[:, 0].sum()
        else:
            raise ValueError(f"a {entry['wilds']!r} outcome has no exact gain on one screen")
        gain += weight / table_total * (after - plain)
    return float(gain)
