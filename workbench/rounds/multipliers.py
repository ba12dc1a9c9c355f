"""A tumble game's multipliers beyond its symbols: the cascade ladder as a global multiplier, and position
multipliers on the grid.

**The ladder** (:data:`Ladder`, :func:`ladders`): the listed rungs (``cascade_multipliers``), then each further rung
``ladder_step`` higher up to ``ladder_cap``; it climbs a rung per winning cascade, or (``free_spins_ladder_grows =
"spin"``) per free spin, or (``"win"``) per free spin whose drops win; ``ladder_applies = "chain"`` pays the chain's total x the rung it reached.

**Position multipliers** (:data:`PositionGrid`): a cell's multiplier grows with every win on it.

``[features] position_multipliers = [v1, v2, ...]``: a cell's multiplier after the 1st, 2nd, ... win that covered it
(the last entry repeats; 0 marks the cell without multiplying, as games that only mark a cell on its first win).  A
paid win pays x the sum of its cells' multipliers (x1 when that sum is 0), read before the drop's wins grow them.  A
win's cells are those the tumble removes for it: a cluster's (:func:`workbench.pays.cluster.cluster_pay_screen`),
every cell showing a paid symbol anywhere, a target's matching cells on its ways' reels, a line win's first cells
(:func:`workbench.rounds.tumble.pay_screen`).  The cells are grid positions: they stay where they are while
the symbols fall.  ``position_multipliers_in``: ``all`` (the base game and the free spins) or ``free_spins``;
``position_multipliers_keep``: ``spin`` (the grid restarts with every spin, so it lives through one chain) or
``feature`` (the free spins keep one grid for the whole feature; base spins still restart it).

The first drop of a spin whose grid restarts pays x1 (no cell has won yet), so the exact first drop stays exact.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit

#: ``values`` int64[n] the multipliers by wins on a cell (n = 0: no position multipliers); ``hits`` int64[reels,
#: rows] the wins on each cell so far; ``mult`` / ``wins`` the pay function's ``cell_mult`` / ``cell_wins`` (shape
#: (0, 0) without position multipliers); ``base`` / ``free``: played in the base game / in the free spins;
#: ``feature``: the free spins keep one grid for the whole feature.
PositionGrid = namedtuple("PositionGrid", ["values", "hits", "mult", "wins", "base", "free", "feature"])


def position_grid(features, reels: int, rows: int) -> PositionGrid:
    """The grid of a tumble game's ``[features]`` (see the module docstring)."""
    values = features.get("position_multipliers")
    shape = (reels, rows) if values else (0, 0)
    where = features.get("position_multipliers_in", "all")
    return PositionGrid(values=np.asarray(values or [], dtype=np.int64), hits=np.zeros(shape, dtype=np.int64),
                        mult=np.zeros(shape, dtype=np.int64), wins=np.zeros(shape, dtype=np.int64),
                        base=bool(values) and where == "all", free=bool(values),
                        feature=features.get("position_multipliers_keep", "spin") == "feature")


@njit(cache=True, inline="always")
def restart(grid):
    """No cell has won: every multiplier back to nothing (nothing to do in a game without position multipliers)."""
    if grid.values.shape[0] == 0:
        return
    for r in range(grid.hits.shape[0]):
        for k in range(grid.hits.shape[1]):
            grid.hits[r, k] = 0
            grid.mult[r, k] = 0
            grid.wins[r, k] = 0


@njit(cache=True, inline="always")
def grow(grid):
    """After a drop: add its wins to each cell's and set the multipliers the next drop reads."""
    last = grid.values.shape[0] - 1
    for r in range(grid.hits.shape[0]):
        for k in range(grid.hits.shape[1]):
            h = grid.hits[r, k] + grid.wins[r, k]
            grid.wins[r, k] = 0
            grid.hits[r, k] = h
            grid.mult[r, k] = 0 if h == 0 else grid.values[min(h - 1, last)]


#: a cascade ladder (a global multiplier): ``values`` the listed rungs, then each further rung ``step`` higher (0: the
#: last repeats) up to ``cap``; ``per_cascade`` climbs a rung per winning cascade (else per free spin, or with
#: ``per_win`` per free spin whose drops win: the caller moves it); ``on_chain`` pays the chain's total x the rung it
#: reached (else each drop x its own rung)
Ladder = namedtuple("Ladder", ["values", "step", "cap", "per_cascade", "on_chain", "per_win"])


@njit(cache=True, inline="always")
def rung(ladder, k):
    """The multiplier of ladder position ``k`` (see :data:`Ladder`)."""
    last = ladder.values.shape[0] - 1
    if k <= last:
        return ladder.values[k]
    return min(ladder.values[last] + (k - last) * ladder.step, ladder.cap)


LADDER_NO_CAP = 1 << 40  # the cap of a ladder_step ladder without ladder_cap (tumble_bound bounds what a round reaches)


def ladders(f) -> tuple:
    """The base game's and the free spins' :data:`Ladder` from ``[features]`` (the free spins' keys absent: the base
    game's)."""
    values = f.get("cascade_multipliers", [1])
    on_chain = f.get("ladder_applies", "drop") == "chain"

    def ladder(entries, step, cap, grows: str):
        return Ladder(np.asarray(entries, dtype=np.int64), np.int64(step or 0), np.int64(cap or LADDER_NO_CAP),
                      grows == "cascade", on_chain, grows == "win")

    return (ladder(values, f.get("ladder_step"), f.get("ladder_cap"), "cascade"),
            ladder(f.get("free_spins_cascade_multipliers", values), f.get("free_spins_ladder_step", f.get("ladder_step")),
                   f.get("free_spins_ladder_cap", f.get("ladder_cap")),
                   f.get("free_spins_ladder_grows", "cascade")))
