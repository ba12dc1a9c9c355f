"""The strip sets of a mode in the compiled form the rounds draw from: virtual stops and reel windows.

A reel's stop weights are expanded into a *virtual reel* (stop ``s`` repeated ``weight`` times), so a
stop is one uniform draw; the rounds that draw whole windows (scatter pays, clusters) map each virtual
stop straight to its window (:func:`base_windows`), the tumble round keeps the strip itself (its
cascades drop the stops above the window, :func:`virtual_strips`).  Both check the one limit they share,
:func:`check_virtual_stops`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..errors import SimulationError
from ..exact.windows import reel_windows
from ..model import Game
from ..pays.scatter import ScatterPayTables
from ..simulate.kernel import VIRTUAL_STOPS_MAX


def played_sets(game: Game, mode: str = "base") -> list:
    """The strip sets of ``mode`` a spin can choose (weight above 0); SimulationError if there is none."""
    sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
    if not sets:
        raise SimulationError(f"{game.name}: no strip set of mode {mode!r} has a weight above 0")
    return sets


def check_virtual_stops(game: Game, sets: list) -> int:
    """The largest virtual reel (sum of stop weights) of ``sets``; SimulationError above :data:`VIRTUAL_STOPS_MAX`."""
    max_total = max(strip.total_weight for s in sets for strip in s.reels)
    if max_total > VIRTUAL_STOPS_MAX:
        raise SimulationError(f"{game.name}: stop weights add up to {max_total:,} on one reel; the simulator expands weights "
                              f"into virtual reels of at most {VIRTUAL_STOPS_MAX:,} stops")
    return max_total


BaseWindows = namedtuple("BaseWindows", [
    "windows",  # [set][reel] exact.windows.ReelWindows
    "set_cum",  # int64[n_sets] cumulative choice weights of the strip sets
    "total_weight",  # int64[n_sets, n_reels] virtual stops per reel (sum of stop weights)
    "vwin",  # int32[n_sets, n_reels, max_total] window of each virtual stop
    "grp",  # int64[n_sets, n_reels, max_windows, n_groups] visible instances of each paying scatter group
    "max_windows",  # the most windows of one reel
])


def base_windows(game: Game, sets: list, tables: ScatterPayTables) -> BaseWindows:
    """Virtual stops mapped to reel windows for ``sets`` (see :data:`BaseWindows`), with the paying scatter groups'
    instances of every window (``tables``: :func:`~workbench.pays.scatter.scatter_pay_tables` of the game)."""
    max_total = check_virtual_stops(game, sets)
    n_sets, n_reels = len(sets), game.reels
    windows = [[reel_windows(game, strip, game.rows[i]) for i, strip in enumerate(s.reels)] for s in sets]
    max_win = max(len(w.weights) for ws in windows for w in ws)
    total_weight = np.zeros((n_sets, n_reels), dtype=np.int64)
    vwin = np.zeros((n_sets, n_reels, max_total), dtype=np.int32)
    grp = np.zeros((n_sets, n_reels, max_win, len(tables.index)), dtype=np.int64)
    for k, (strip_set, wins) in enumerate(zip(sets, windows)):
        for i, (strip, win) in enumerate(zip(strip_set.reels, wins)):
            total_weight[k, i] = strip.total_weight
            stops = np.repeat(np.arange(len(strip)), strip.stop_weights)
            vwin[k, i, : len(stops)] = win.stop_window[stops]
            grp[k, i, : len(win.weights)] = win.counts[:, tables.index]
    set_cum = np.cumsum([s.weight for s in sets]).astype(np.int64)
    return BaseWindows(windows, set_cum, total_weight, vwin, grp, max_win)


VirtualStrips = namedtuple("VirtualStrips", ["set_cum", "length", "symbols", "total", "vstop"])
# The strips of one mode: strip sets chosen by ``set_cum``; per set and reel its ``length``, ``symbols[set, reel, stop]``
# (symbol ids) and its virtual stops ``vstop[set, reel, :total]`` drawn uniformly.


def virtual_strips(game: Game, mode: str) -> VirtualStrips:
    """The strips of ``mode`` with their virtual stops (see :data:`VirtualStrips`)."""
    sets = played_sets(game, mode)
    n_reels = game.reels
    max_len = max(len(strip) for s in sets for strip in s.reels)
    max_total = check_virtual_stops(game, sets)
    length = np.zeros((len(sets), n_reels), dtype=np.int64)
    symbols = np.zeros((len(sets), n_reels, max_len), dtype=np.int64)
    total = np.zeros((len(sets), n_reels), dtype=np.int64)
    vstop = np.zeros((len(sets), n_reels, max_total), dtype=np.int64)
    for k, strip_set in enumerate(sets):
        for r, strip in enumerate(strip_set.reels):
            length[k, r] = len(strip)
            symbols[k, r, : len(strip)] = [game.symbols[name].index for name in strip.symbols]
            total[k, r] = strip.total_weight
            stops = np.repeat(np.arange(len(strip)), strip.stop_weights)
            vstop[k, r, : len(stops)] = stops
    return VirtualStrips(np.cumsum([s.weight for s in sets]).astype(np.int64), length, symbols, total, vstop)
