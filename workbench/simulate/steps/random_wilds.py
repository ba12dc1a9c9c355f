"""Random wilds dropped on a screen once per spin, by a weighted table of outcomes (``[features]
free_spins_random_wilds``): nothing, up to N wilds on distinct random cells, square wild overlays of given sizes, or
up to N expanding sticky wilds placed on reels that hold none.

The compiled record ``RandomWildParams``: ``cum`` int64[entries], the table's cumulative weights (no entries: the
round drops no random wilds); ``kind`` int64[entries] (``NONE``, ``CELLS``, ``OVERLAY``, ``STICKY_REELS``); ``count``
int64[entries], the wilds of a ``CELLS`` or ``STICKY_REELS`` entry; ``sizes`` int64[entries, most overlays], a square's side
per overlay (0: none); ``placed`` bool[reels, rows], scratch: where the last drop put a wild; ``pending`` bool[reels]:
the reels a ``STICKY_REELS`` drop gave a wild this spin (its caller turns them into held reels after the spin and clears them).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._jit import njit
from ..rng import bounded, weighted_index
from .wilds import overlay_squares, place_random_wilds

RandomWildParams = namedtuple("RandomWildParams", ["cum", "kind", "count", "sizes", "placed", "pending"])
NONE, CELLS, OVERLAY, STICKY_REELS = range(4)
KINDS = {"none": NONE, "cells": CELLS, "overlay": OVERLAY, "sticky_reels": STICKY_REELS}


def no_random_wilds(reels: int, rows: int) -> RandomWildParams:
    """The record of a round without random wilds (the same types: one compiled round serves both)."""
    return RandomWildParams(cum=np.zeros(0, dtype=np.int64), kind=np.zeros(0, dtype=np.int64),
                            count=np.zeros(0, dtype=np.int64), sizes=np.zeros((0, 1), dtype=np.int64),
                            placed=np.zeros((reels, rows), dtype=np.bool_), pending=np.zeros(reels, dtype=np.bool_))


@njit
def drop_random_wilds(rw, screen, rows, held, wild, rng, reel_held):
    """Draw one outcome of ``rw``'s table and put its wilds on ``screen`` (reels x rows showing ``rows[r]`` rows):
    ``CELLS``: that many wilds on distinct cells drawn uniformly among those not ``held`` (all of them when fewer are
    free); ``OVERLAY``: a square of each size at a uniform position wholly inside the grid (the rows every reel
    shows), overlapping allowed; ``STICKY_REELS``: that many distinct reels drawn uniformly among those no expanding sticky
    wild holds (``reel_held[r] < 0``; all of them when fewer), each showing ``wild`` on a uniform row of its own this
    spin and marked in ``rw.pending``.  Returns the outcome's kind.  Compiled once with its caller, not inlined (a
    plain ``@njit``: cached inside the round that calls it, see workbench/_jit.py)."""
    e = weighted_index(rw.cum, rng)
    return place_outcome(rw, e, screen, rows, held, wild, rng, reel_held)


@njit
def place_outcome(rw, e, screen, rows, held, wild, rng, reel_held):
    """Put the wilds of outcome ``e`` of ``rw``'s table on ``screen`` (as :func:`drop_random_wilds`); its kind.
    Compiled once for the free spins' and the base spins' drops alike (a plain ``@njit``, not inlined: inlined into
    both, the free-spins round took 20 % longer to compile)."""
    kind = rw.kind[e]
    if kind == CELLS:
        place_random_wilds(screen, rows, rw.count[e], held, wild, rng, rw.placed)
    elif kind == OVERLAY:
        overlay_squares(screen, rows, rw.sizes[e], wild, rng, rw.placed)
    elif kind == STICKY_REELS:
        place_reel_wilds(rw, screen, rows, rw.count[e], wild, rng, reel_held)
    return kind


@njit(cache=True, inline="always")
def place_reel_wilds(rw, screen, rows, n, wild, rng, reel_held):
    """Up to ``n`` new expanding sticky wilds on distinct reels drawn uniformly among the free ones (no held reel, none
    placed this spin): ``wild`` on a uniform row of each, the reel marked in ``rw.pending``."""
    free = 0
    for r in range(rows.shape[0]):
        free += reel_held[r] < 0 and not rw.pending[r]
    for _ in range(min(n, free)):
        k = bounded(rng, free)
        for r in range(rows.shape[0]):
            if reel_held[r] >= 0 or rw.pending[r]:
                continue
            if k == 0:
                rw.pending[r] = True
                screen[r, bounded(rng, rows[r])] = wild
                break
            k -= 1
        free -= 1


@njit(cache=True)
def drop_many(rw, screen, rows, held, wild, rng, n, out, reel_held):
    """``n`` drops on copies of ``screen`` (tests; ``reel_held``: the reels expanding sticky wilds hold, -1 none):
    ``out[k]`` counts the drops that put a wild on cell k (row-major over reels x rows)."""
    work = screen.copy()
    for _ in range(n):
        for r in range(screen.shape[0]):
            for row in range(screen.shape[1]):
                work[r, row] = screen[r, row]
        drop_random_wilds(rw, work, rows, held, wild, rng, reel_held)
        rw.pending[:] = False
        for r in range(screen.shape[0]):
            for row in range(screen.shape[1]):
                if work[r, row] == wild and screen[r, row] != wild:
                    out[r * screen.shape[1] + row] += 1
