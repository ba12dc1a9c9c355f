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

from ..model import Game, Strip, StripSet, tall_instance_starts


def symbol_ids(game: Game) -> dict:
    return {name: i for i, name in enumerate(game.symbols)}


def strip_ids(game: Game, strip: Strip) -> np.ndarray:
    ids = symbol_ids(game)
    return np.fromiter((ids[s] for s in strip.symbols), dtype=np.int32, count=len(strip))


def group_counts(game: Game, strip: Strip, rows: int) -> np.ndarray:
    """Instances of each scatter group visible at each stop: int array (stops, groups)."""
    n = len(strip)
    groups = list(game.scatters.values())
    out = np.zeros((n, len(groups)), dtype=np.int64)
    tops = np.arange(n)
    for g, group in enumerate(groups):
        for name in group.symbols:
            sym = game.symbols[name]
            if sym.height == 1:
                is_member = np.fromiter((s == name for s in strip.symbols), dtype=bool, count=n)
                for r in range(rows):
                    out[:, g] += is_member[(tops + r) % n]
                continue
            h = sym.height
            for start in tall_instance_starts(strip.symbols, name, h):
                offset = (start - tops) % n  # instance start relative to the window top
                if group.visibility == "full":
                    visible = offset + h <= rows
                else:
                    visible = (offset < rows) | (offset > n - h)
                out[:, g] += visible
    return out


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
    n = len(strip)
    ids = strip_ids(game, strip)
    tops = np.arange(n)
    syms = np.stack([ids[(tops + r) % n] for r in range(rows)], axis=1) if n else np.zeros((0, rows), np.int32)
    counts = group_counts(game, strip, rows)
    keys = np.concatenate([syms.astype(np.int64), counts], axis=1)
    unique, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
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


def strip_set_windows(game: Game, strip_set: StripSet) -> list[ReelWindows]:
    return [reel_windows(game, strip, game.rows[i]) for i, strip in enumerate(strip_set.reels)]


def row_symbol_weights(game: Game, strip: Strip, row: int) -> np.ndarray:
    """Total stop weight showing each symbol id at ``row`` of the window."""
    ids = strip_ids(game, strip)
    n = len(strip)
    shown = ids[(np.arange(n) + row) % n]
    out = np.zeros(len(game.symbols), dtype=np.int64)
    np.add.at(out, shown, strip.stop_weights)
    return out
