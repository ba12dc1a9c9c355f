"""Spinning and paying a screen: the first step of every round."""

from __future__ import annotations

from ..._jit import njit
from ...pays.lines import line_pay_screen
from ...pays.scatter import scatter_pay
from ..kernel import choose_set, count_groups, line_pay_windows, spin_windows


@njit(cache=True, inline="always")
def pay_windows(ma, s, la, sc, wins, counts, amounts, comp_lines, comp_scatter, multiplier):
    """Pay an unmodified screen: lines to ``comp_lines``, scatter group g to ``comp_scatter[g]`` (-1: unpaid).

    Leaves every scatter group's count in ``counts``; returns the total paid
    (units, after ``multiplier``).
    """
    total = line_pay_windows(ma, s, la, wins) * multiplier
    amounts[comp_lines] += total
    count_groups(ma, s, sc, wins, counts, -1)
    for g in range(comp_scatter.shape[0]):
        if comp_scatter[g] >= 0:
            pay = scatter_pay(sc, g, counts[g]) * multiplier
            amounts[comp_scatter[g]] += pay
            total += pay
    return total


@njit(cache=True, inline="always")
def base_spin(ma, la, sc, rng, wins, counts, amounts, comp_lines, comp_scatter):
    """Pick a strip set, spin it and pay the unmodified screen; returns the strip set used."""
    s = choose_set(ma, rng)
    spin_windows(ma, s, rng, wins)
    pay_windows(ma, s, la, sc, wins, counts, amounts, comp_lines, comp_scatter, 1)
    return s


@njit(cache=True, inline="always")
def pay_screen(la, screen):
    """Line pays of an explicit screen (after wilds were placed)."""
    return line_pay_screen(la, screen)
