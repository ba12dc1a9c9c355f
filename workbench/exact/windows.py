"""Numeric form of a game for the exact engine and the simulator.

A *window* is what one reel shows for one stop: the symbols of its rows and,
for every scatter group, how many instances it shows (tall symbols counted as
the group's visibility rule says, which needs the strip around the window,
not just the visible rows).  Identical windows are merged with their weights
summed, which shortens every enumeration over stops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ExactBudgetError
from ..model import Game, Strip, StripSet, tall_instance_starts

# Budget of one reel's windows: stops x (rows + scatter groups) cells are held
# at once while identical windows are merged (8 bytes each at most).
WINDOW_CELLS_MAX = 1 << 26
# Stop weights are summed in 64-bit integers: a reel's total stop weight must stay below this.
REEL_WEIGHT_MAX = 1 << 62


def symbol_ids(game: Game) -> dict:
    return {name: i for i, name in enumerate(game.symbols)}


def strip_ids(game: Game, strip: Strip) -> np.ndarray:
    ids = symbol_ids(game)
    return np.fromiter((ids[s] for s in strip.symbols), dtype=np.int32, count=len(strip))


def _visible_offsets(n: int, rows: int, height: int, visibility: str) -> list[int]:
    """Offsets (instance start - window top, mod ``n``) at which an instance of a
    ``height``-stop symbol counts as visible in a window of ``rows`` rows."""
    if visibility == "full":
        return list(range(min(max(rows - height + 1, 0), n)))
    # partly visible: it starts inside the window, or it started above and reaches into it
    return sorted(set(range(min(rows, n))) | set(range(max(n - height + 1, 0), n)))


def group_counts(game: Game, strip: Strip, rows: int, ids: np.ndarray | None = None) -> np.ndarray:
    """Instances of each scatter group visible at each stop: int array (stops, groups).

    Work is proportional to stops x rows per member symbol (every instance is
    added to the few window tops that see it), so long strips stay cheap.
    """
    n = len(strip)
    groups = list(game.scatters.values())
    out = np.zeros((n, len(groups)), dtype=np.int64)
    if ids is None:
        ids = strip_ids(game, strip)
    index = symbol_ids(game)
    for g, group in enumerate(groups):
        for name in group.symbols:
            sym = game.symbols[name]
            if sym.height == 1:
                is_member = (ids == index[name]).astype(np.int64)
                for r in range(rows):
                    out[:, g] += np.roll(is_member, -r)  # stop top + r shows the symbol
                continue
            starts = np.asarray(tall_instance_starts(strip.symbols, name, sym.height), dtype=np.int64)
            if not len(starts):
                continue
            for offset in _visible_offsets(n, rows, sym.height, group.visibility):
                np.add.at(out[:, g], (starts - offset) % n, 1)  # window tops that see the instance at this offset
    return out


def lexicographic_keys(columns: list[np.ndarray]) -> np.ndarray:
    """One int64 key per row whose order is the lexicographic order of the rows of
    ``columns`` (non-negative integer columns, most significant first): equal rows,
    equal keys.  Columns are folded in by mixed radix, re-ranked when a product
    would leave 63 bits, so no (rows x columns) matrix is built."""
    key = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    span = 1  # keys are in [0, span)
    for col in columns:
        col = np.asarray(col, dtype=np.int64)
        radix = int(col.max()) + 1 if len(col) else 1
        if span * radix >= 1 << 62:
            ranks, key = np.unique(key, return_inverse=True)
            key = key.reshape(-1).astype(np.int64)
            span = len(ranks)
        key = key * radix + col
        span *= radix
    return key


def _check_reel(game: Game, strip: Strip, rows: int) -> None:
    n = len(strip)
    cells = n * (rows + len(game.scatters))
    if cells > WINDOW_CELLS_MAX:
        raise ExactBudgetError(
            f"{game.name}: a strip of {n:,} stops on a reel of {rows} rows with {len(game.scatters)} scatter groups "
            f"needs {cells:,} window cells (stops x (rows + groups)), over the budget of {WINDOW_CELLS_MAX:,}"
        )
    if strip.weights is not None:
        total = sum(strip.weights)
        if total >= REEL_WEIGHT_MAX or max(strip.weights) >= REEL_WEIGHT_MAX:
            raise ExactBudgetError(
                f"{game.name}: stop weights of a strip add up to {total:,}, over the limit of {REEL_WEIGHT_MAX:,} "
                "(weights are summed in 64-bit integers)"
            )


@dataclass(frozen=True)
class ReelWindows:
    """Distinct windows of one reel with their total stop weight.

    ``symbols``: (n_windows, rows) symbol ids, top row first;
    ``counts``: (n_windows, n_groups) visible scatter-group instances;
    ``weights``: (n_windows,) int64 summed stop weights;
    ``stop_window``: window index of each stop (for the simulator).
    """

    symbols: np.ndarray
    counts: np.ndarray
    weights: np.ndarray
    stop_window: np.ndarray
    total_weight: int


def reel_windows(game: Game, strip: Strip, rows: int) -> ReelWindows:
    """Distinct windows of ``strip`` on a reel of ``rows`` rows, in lexicographic order of
    (symbols top to bottom, group counts).

    Raises :class:`~workbench.errors.ExactBudgetError` when the strip is too long for
    :data:`WINDOW_CELLS_MAX` or its stop weights do not fit 64-bit sums.
    """
    _check_reel(game, strip, rows)
    n = len(strip)
    ids = strip_ids(game, strip)
    syms = np.stack([np.roll(ids, -r) for r in range(rows)], axis=1) if n else np.zeros((0, rows), np.int32)
    counts = group_counts(game, strip, rows, ids)
    keys = lexicographic_keys([syms[:, r] for r in range(rows)] + [counts[:, g] for g in range(counts.shape[1])])
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    weights = np.zeros(len(unique), dtype=np.int64)
    np.add.at(weights, inverse, strip.stop_weights)
    return ReelWindows(
        symbols=np.ascontiguousarray(syms[first]),
        counts=np.ascontiguousarray(counts[first]),
        weights=weights,
        stop_window=inverse.astype(np.int32),
        total_weight=int(strip.total_weight),
    )


def strip_set_windows(game: Game, strip_set: StripSet, cache: dict | None = None) -> list[ReelWindows]:
    """The distinct windows of every reel of ``strip_set`` (see :func:`reel_windows`).  ``cache`` (a dict kept by
    the caller for one game): reels already seen are not worked out again; the played sets of mystery reveals and
    wild reels share most of their reels (mystery_stacks: 151 distinct reels in 385 free-spin sets)."""
    if cache is None:
        return [reel_windows(game, strip, game.rows[i]) for i, strip in enumerate(strip_set.reels)]
    out = []
    for i, strip in enumerate(strip_set.reels):
        key = (strip, game.rows[i])
        if key not in cache:
            cache[key] = reel_windows(game, strip, game.rows[i])
        out.append(cache[key])
    return out


def row_symbol_weights(game: Game, strip: Strip, row: int) -> np.ndarray:
    """Total stop weight showing each symbol id at ``row`` of the window."""
    _check_reel(game, strip, 1)
    ids = strip_ids(game, strip)
    shown = np.roll(ids, -row)
    out = np.zeros(len(game.symbols), dtype=np.int64)
    np.add.at(out, shown, strip.stop_weights)
    return out
