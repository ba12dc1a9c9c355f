"""Weighted tables and wheels, including "spin again but not the same prize"."""

from __future__ import annotations

from ..._jit import njit
from ..rng import bounded, weighted_index


@njit(cache=True, inline="always")
def draw_table(cumulative, rng):
    """Entry index of a weighted table (``cumulative`` = cumsum of its weights)."""
    return weighted_index(cumulative, rng)


@njit(cache=True, inline="always")
def draw_table_excluding(weights, excluded, rng):
    """Entry index drawn by weight among entries not ``excluded`` (e.g. prizes already won).

    Returns -1 if every entry with weight is excluded.
    """
    total = 0
    for i in range(weights.shape[0]):
        if not excluded[i]:
            total += weights[i]
    if total == 0:
        return -1
    u = bounded(rng, total)
    for i in range(weights.shape[0]):
        if not excluded[i]:
            if u < weights[i]:
                return i
            u -= weights[i]
    return -1
