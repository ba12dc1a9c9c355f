"""Compiled building blocks that game modules compose into rounds.

Each block is a small numba function over plain arrays:

- spinning and paying a screen: :func:`base_spin`, :func:`pay_screen`;
- weighted tables and wheels, including "spin again but not the same prize":
  :func:`draw_table`, :func:`draw_table_excluding`;
- wilds: whole reels turned wild (:func:`wild_reels`), persisting wilds at
  fixed positions (:func:`apply_mask`), up to N wilds at random positions
  except excluded ones (:func:`place_random_wilds`), wild overlays of several
  sizes (:func:`overlay_squares`), an expanding symbol turning its reel wild
  (:func:`expand_reel`);
- free-spin counting with a cap on total spins (:func:`add_free_spins`);
- a minimum guaranteed feature win (:func:`guarantee`) and a max-win cap that
  ends the round (:func:`cap_reached`, :func:`apply_cap`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernel import (
    choose_set,
    count_groups,
    line_pay_screen,
    line_pay_windows,
    scatter_pay,
    spin_windows,
)
from .rng import bounded, weighted_index


# ---------------------------------------------------------------------------
# spinning
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# weighted tables
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# wilds
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# free spins, guarantees, caps
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def add_free_spins(awarded, add, max_total):
    """Free spins awarded so far after adding ``add``, never beyond ``max_total`` (<= 0: no cap)."""
    total = awarded + add
    if max_total > 0 and total > max_total:
        total = max_total
    return total


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
