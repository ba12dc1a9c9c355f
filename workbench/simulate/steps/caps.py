"""A minimum guaranteed feature win, and a max-win cap that ends the round."""

from __future__ import annotations

from ..._jit import njit


@njit(cache=True, inline="always")
def guarantee(win, minimum):
    """The feature win with a minimum guaranteed amount: returns the top-up to add (>= 0)."""
    if win < minimum:
        return minimum - win
    return 0


@njit(cache=True, inline="always")
def round_total(amounts, is_info):
    total = 0
    for k in range(amounts.shape[0]):
        if not is_info[k]:
            total += amounts[k]
    return total


@njit(cache=True, inline="always")
def cap_reached(amounts, is_info, cap_units):
    """True once the round's total reaches the max-win cap (``cap_units`` <= 0: no cap)."""
    return cap_units > 0 and round_total(amounts, is_info) >= cap_units


@njit(cache=True, inline="always")
def apply_cap(amounts, is_info, cap_units, comp_cap):
    """Truncate the round's total to the cap by a negative amount in component ``comp_cap``.

    Returns True if the cap was hit.
    """
    if cap_units <= 0:
        return False
    total = round_total(amounts, is_info)
    if total >= cap_units:
        amounts[comp_cap] += cap_units - total
        return True
    return False
