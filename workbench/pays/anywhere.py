"""Scatter pays ("pay anywhere"): each paying symbol pays by its count on the whole screen.

Rule (``[pays] rule = "scatter_pays"``): for each paying symbol ``x`` (a
paytable entry with some pay above 0), its count is the number of visible
positions showing ``x`` on the whole screen (no tall symbols in scatter_pays:
each visible cell showing ``x`` counts as one); it pays
``pay_for_count(paytable[x], count)`` x the line pay unit (the pay of the
largest listed count not above the count, 0 if none).  Every paying symbol
pays independently; there are no wilds (validation refuses them) and no
groups.  Scatter groups (``[scatters.*]``) and triggers keep working and add
their pays as in every rule.  All amounts are integer pay units.

This module holds the numeric form both engines share: the paying symbols,
their pays by count in pay units (:func:`symbol_pay_units`, one row per
paying symbol, one column per count 0..screen cells), each reel window's
count of every paying symbol (:func:`window_symbol_counts`) and the inline
pay functions of the compiled code (:func:`anywhere_pay` from counts,
:func:`anywhere_pay_screen` from an explicit screen).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game, pay_for_count
from .scale import PayScale, pay_scale


def paying_symbols(game: Game) -> tuple:
    """Names of the symbols that pay by count (some pay above 0), in ``[symbols]`` order."""
    return tuple(name for name in game.symbols if any(p > 0 for p in game.paytable.get(name, {}).values()))


def screen_cells(game: Game) -> int:
    """Visible positions of the screen (the largest count a symbol can have)."""
    return int(sum(game.rows))


def paying_ids(game: Game) -> np.ndarray:
    """Symbol ids (positions in ``[symbols]``) of :func:`paying_symbols`."""
    index = {name: i for i, name in enumerate(game.symbols)}
    return np.array([index[name] for name in paying_symbols(game)], dtype=np.int64)


def symbol_pay_units(game: Game, scale: PayScale | None = None) -> np.ndarray:
    """``pays[j, c]``: pay units of count ``c`` (0..screen cells) of paying symbol ``j``."""
    scale = scale or pay_scale(game)
    names = paying_symbols(game)
    cells = screen_cells(game)
    unit = game.bet.line_pay_unit
    out = np.zeros((len(names), cells + 1), dtype=np.int64)
    for j, name in enumerate(names):
        pays = game.paytable[name]
        for c in range(cells + 1):
            out[j, c] = scale.units(game.bet.credits(pay_for_count(pays, c), unit))
    return out


def window_symbol_counts(symbols: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``counts[w, j]``: cells of window ``w`` (rows of ``symbols``: (windows, rows) symbol ids)
    showing paying symbol ``ids[j]``."""
    symbols = np.asarray(symbols)
    return (symbols[:, :, None] == np.asarray(ids)[None, None, :]).sum(axis=1).astype(np.int64)


# ---------------------------------------------------------------------------
# the compiled form
# ---------------------------------------------------------------------------
AnywhereArrays = namedtuple("AnywhereArrays", ["pays", "lookup"])
# pays: int64[n_paying, cells + 1] (see symbol_pay_units); lookup: int64[n_symbols] paying index of a symbol id, or -1


def anywhere_arrays(game: Game) -> AnywhereArrays:
    scale = pay_scale(game)
    lookup = np.full(len(game.symbols), -1, dtype=np.int64)
    lookup[paying_ids(game)] = np.arange(len(paying_symbols(game)), dtype=np.int64)
    return AnywhereArrays(symbol_pay_units(game, scale), lookup)


@njit(cache=True, inline="always")
def anywhere_pay(aa, counts):
    """Pay units of a screen whose paying symbols show ``counts[j]`` cells each."""
    pays = aa.pays
    total = 0
    for j in range(pays.shape[0]):
        total += pays[j, counts[j]]
    return total


@njit(cache=True, inline="always")
def anywhere_pay_screen(aa, screen, rows, counts):
    """Pay units of an explicit screen (``screen[reel, row]`` symbol ids, ``rows[reel]`` visible rows);
    ``counts`` (int64[n_paying]) is scratch, left holding the screen's counts."""
    lookup = aa.lookup
    for j in range(counts.shape[0]):
        counts[j] = 0
    for r in range(screen.shape[0]):
        for row in range(rows[r]):
            j = lookup[screen[r, row]]
            if j >= 0:
                counts[j] += 1
    return anywhere_pay(aa, counts)
