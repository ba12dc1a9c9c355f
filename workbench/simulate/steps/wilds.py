"""Wilds added to a screen: whole reels, persisting (sticky) positions, random cells,
square overlays, an expanding symbol turning its reel wild."""

from __future__ import annotations

from ..._jit import njit
from ..rng import bounded


@njit(cache=True, inline="always")
def wild_reels(screen, reel_mask, wild):
    """Turn every reel with ``reel_mask[r]`` entirely ``wild``."""
    for r in range(screen.shape[0]):
        if reel_mask[r]:
            for row in range(screen.shape[1]):
                screen[r, row] = wild


@njit(cache=True, inline="always")
def apply_mask(screen, mask, wild):
    """Put ``wild`` on every position with ``mask[r, row]`` (persisting / sticky wilds)."""
    for r in range(screen.shape[0]):
        for row in range(screen.shape[1]):
            if mask[r, row]:
                screen[r, row] = wild


@njit(cache=True, inline="always")
def place_random_wilds(screen, rows, n, excluded, wild, rng, placed):
    """Place up to ``n`` wilds on distinct random positions that are not ``excluded``.

    Positions are drawn uniformly among the allowed ones; ``placed`` (bool,
    reels x rows) is set where a wild went.  Returns how many were placed.
    """
    n_reels = screen.shape[0]
    free = 0
    for r in range(n_reels):
        for row in range(rows[r]):
            placed[r, row] = False
            if not excluded[r, row]:
                free += 1
    count = min(n, free)
    for _ in range(count):
        k = bounded(rng, free)
        for r in range(n_reels):
            for row in range(rows[r]):
                if excluded[r, row] or placed[r, row]:
                    continue
                if k == 0:
                    placed[r, row] = True
                    screen[r, row] = wild
                k -= 1
        free -= 1
    return count


@njit(cache=True, inline="always")
def overlay_squares(screen, rows, sizes, wild, rng, covered):
    """Drop square wild overlays of the given ``sizes`` at uniform random positions.

    A size-s overlay covers s reels x s rows fully inside the grid (overlays
    may overlap).  ``covered`` (bool, reels x rows) is set where a wild went.
    """
    n_reels = screen.shape[0]
    for r in range(n_reels):
        for row in range(screen.shape[1]):
            covered[r, row] = False
    min_rows = rows[0]
    for r in range(n_reels):
        min_rows = min(min_rows, rows[r])
    for k in range(sizes.shape[0]):
        s = sizes[k]
        if s <= 0 or s > n_reels or s > min_rows:
            continue
        left = bounded(rng, n_reels - s + 1)
        top = bounded(rng, min_rows - s + 1)
        for r in range(left, left + s):
            for row in range(top, top + s):
                screen[r, row] = wild
                covered[r, row] = True


@njit(cache=True, inline="always")
def expand_reel(screen, reel, wild):
    """An expanding symbol: the whole reel becomes ``wild``."""
    for row in range(screen.shape[1]):
        screen[reel, row] = wild
