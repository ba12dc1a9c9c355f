"""Free-spin counting: awards and retriggers with a cap on the total spins."""

from __future__ import annotations

from ..._jit import njit


@njit(cache=True, inline="always")
def add_free_spins(awarded, add, max_total):
    """Free spins awarded so far after adding ``add``, never beyond ``max_total`` (<= 0: no cap)."""
    total = awarded + add
    if max_total > 0 and total > max_total:
        total = max_total
    return total
