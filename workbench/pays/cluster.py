"""Cluster pays: groups of orthogonally adjacent cells showing the same symbol pay by their size.

Rule (``[pays] rule = "cluster"``): two cells are adjacent when they are
next to each other in a reel (up / down) or on the same row of neighbouring
reels (left / right).  For each paying symbol ``x`` (a non-wild paytable
entry with some pay above 0), a *cluster* of ``x`` is a connected set of
cells showing ``x`` or a wild, holding at least one ``x``; it pays
``pay_for_count(paytable[x], size)`` x the line pay unit (the pay of the
largest listed size not above its size, 0 if none).  Every cluster pays on
its own (two separate RUBY clusters both pay); a wild cell joins the
clusters of every paying symbol next to it, so it may belong to several
clusters of different symbols; a group made only of wilds pays nothing.
Fixed reel heights, the same on every reel, no tall symbols, no multiplier
wilds, no groups (validation refuses them).  Scatter groups and triggers
add their pays as in every rule.  All amounts are integer pay units.

The compiled form works on *bitboards*: cell (reel ``r``, row ``k``) of a
screen of ``n_rows`` rows is bit ``r * n_rows + k`` of a ``uint64`` (so a
screen has at most 64 cells, :data:`MAX_CELLS`; validation says so).  A
cluster grows from one cell by repeated ``grown = (c | neighbours(c)) &
board`` until it stops changing, where ``neighbours`` is four shifts masked
at the top and bottom rows.  :func:`cluster_pay_screen` evaluates an
explicit screen (the rounds), :func:`board_clusters` evaluates per-symbol
boards (the exact full-cycle walk of :mod:`workbench.exact.cluster`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game, pay_for_count
from .scale import PayScale, pay_scale

MAX_CELLS = 64  # one uint64 bitboard per symbol


def paying_symbols(game: Game) -> tuple:
    """Names of the symbols whose clusters pay (non-wild, some pay above 0), in ``[symbols]`` order."""
    return tuple(name for name, sym in game.symbols.items()
                 if not sym.is_wild and any(p > 0 for p in game.paytable.get(name, {}).values()))


def max_cluster_size(game: Game) -> int:
    """The largest listed cluster size of a paying symbol (sizes above it pay like it); at least 1."""
    return max([k for name in paying_symbols(game) for k in game.paytable[name]] + [1])


def cluster_pay_units(game: Game, scale: PayScale | None = None) -> np.ndarray:
    """``pays[s, n]``: pay units (x the scale's unit of one credit per bet multiplier) of a cluster of
    ``n`` cells (0..:func:`max_cluster_size`) of the symbol with index ``s``; all 0 for a symbol that
    does not pay.  A cluster larger than the last column pays like the last column."""
    scale = scale or pay_scale(game)
    size = max_cluster_size(game)
    out = np.zeros((len(game.symbols), size + 1), dtype=np.int64)
    unit = game.bet.line_pay_unit
    for name in paying_symbols(game):
        s = game.symbols[name].index
        pays = game.paytable[name]
        for n in range(size + 1):
            out[s, n] = scale.units(game.bet.credits(pay_for_count(pays, n), unit))
    return out


def wild_flags(game: Game) -> np.ndarray:
    """``is_wild[s]``: the symbol with index ``s`` is a wild (joins the clusters of every paying symbol)."""
    out = np.zeros(len(game.symbols), dtype=np.bool_)
    for sym in game.symbols.values():
        out[sym.index] = sym.is_wild
    return out


ClusterArrays = namedtuple("ClusterArrays", ["pays", "is_wild"])
# pays: int64[n_symbols, max_size + 1] (see cluster_pay_units); is_wild: bool[n_symbols] (see wild_flags)


def cluster_arrays(game: Game, scale: PayScale | None = None) -> ClusterArrays:
    """The ``pays`` and ``is_wild`` arguments of :func:`cluster_pay_screen` for ``game``."""
    return ClusterArrays(cluster_pay_units(game, scale), wild_flags(game))


def screen_masks(n_reels: int, n_rows: int) -> tuple:
    """(row 0 bits, last row bits, all cell bits) of a screen's bitboards, as Python ints."""
    cells = n_reels * n_rows
    if cells > MAX_CELLS:
        raise ValueError(f"a cluster screen has at most {MAX_CELLS} cells, not {n_reels} x {n_rows}")
    top = sum(1 << (r * n_rows) for r in range(n_reels))
    return top, top << (n_rows - 1), (1 << cells) - 1


# ---------------------------------------------------------------------------
# the compiled form
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def grow(seed, board, shift, not_top, not_bottom, full):
    """The connected part of ``board`` (uint64 cells) holding the cells of ``seed``; ``shift`` = rows
    (uint64), ``not_top`` / ``not_bottom``: every cell bit but those of row 0 / of the last row."""
    one = np.uint64(1)
    c = seed
    while True:
        n = (c | ((c << one) & not_top) | ((c >> one) & not_bottom) | (c << shift) | (c >> shift)) & board & full
        if n == c:
            return c
        c = n


@njit(cache=True, inline="always")
def board_clusters(own, wild, max_size, shift, not_top, not_bottom, full, sizes):
    """Clusters of one symbol showing the cells ``own`` (uint64) with wilds on ``wild``: writes each
    cluster's size (capped at ``max_size``) to ``sizes`` and returns how many there are.  A cluster
    grows from a cell of ``own``, so a group of wilds only is never one."""
    board = own | wild
    n = 0
    zero = np.uint64(0)
    one = np.uint64(1)
    while own != zero:
        seed = own & (~own + one)
        c = grow(seed, board, shift, not_top, not_bottom, full)
        own &= ~c
        size = popcount(c)
        sizes[n] = size if size < max_size else max_size
        n += 1
    return n


@njit(cache=True, inline="always")
def cluster_pay_screen(screen, pays, is_wild, remove, boards, cell_mult, cell_wins) -> int:
    """Pay units of the clusters of an explicit screen.

    ``screen``: int64[n_reels, n_rows] symbol indices (-1: an empty cell, joining nothing), at most 64
    cells; ``pays``: int64[n_symbols, max_size + 1] pay units by cluster size (:func:`cluster_pay_units`);
    ``is_wild``: bool[n_symbols]; ``remove``: bool[n_reels, n_rows], set True on every cell of a
    paying cluster (its wilds too), other cells left as they are; ``boards``: uint64[n_symbols]
    scratch (one bitboard per symbol, overwritten).  Returns the win in pay units.
    Position multipliers: with ``cell_mult`` int64[n_reels, n_rows] (shape (0, 0): none), a paid cluster pays x the
    sum of ``cell_mult`` over its cells (x1 when that sum is 0), and adds 1 to ``cell_wins`` (same shape) on each of
    its cells: the caller grows its cells' multipliers after the drop (every cluster of a drop reads them before).
    Allocates nothing (it runs in chunk loops compiled without the numba runtime).
    """
    n_reels = screen.shape[0]
    n_rows = screen.shape[1]
    n_sym = boards.shape[0]
    max_size = pays.shape[1] - 1
    one = np.uint64(1)
    zero = np.uint64(0)
    for s in range(n_sym):
        boards[s] = zero
    top = zero
    bit = one
    for r in range(n_reels):
        top |= bit
        for k in range(n_rows):
            s = screen[r, k]
            if s >= 0:
                boards[s] |= bit
            bit = bit << one
    wild = zero
    for s in range(n_sym):
        if is_wild[s]:
            wild |= boards[s]
    cells = n_reels * n_rows
    full = ~zero if cells >= 64 else (one << np.uint64(cells)) - one
    not_top = full & ~top
    not_bottom = full & ~(top << np.uint64(n_rows - 1))
    shift = np.uint64(n_rows)
    total = 0
    for s in range(n_sym):
        own = boards[s]
        if own == zero or is_wild[s]:
            continue
        board = own | wild
        reach = popcount(board)
        top = reach if reach < max_size else max_size
        if pays[s, top] == 0:  # no cluster pays if no size up to the reach pays (a band may end below it)
            paying = False
            for n in range(top):
                if pays[s, n] > 0:
                    paying = True
                    break
            if not paying:
                continue
        while own != zero:
            seed = own & (~own + one)
            c = grow(seed, board, shift, not_top, not_bottom, full)
            own &= ~c
            size = popcount(c)
            p = pays[s, size if size < max_size else max_size]
            if p > 0:
                positions = cell_mult.shape[0] > 0
                m = 0
                while c != zero:  # mark the cluster's cells, lowest bit first
                    low = c & (~c + one)
                    cell = popcount(low - one)
                    r = cell // n_rows
                    remove[r, cell - r * n_rows] = True
                    if positions:
                        m += cell_mult[r, cell - r * n_rows]
                        cell_wins[r, cell - r * n_rows] += 1
                    c ^= low
                total += p * m if m > 0 else p
    return total
