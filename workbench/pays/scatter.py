"""Scatter pays: counts of a symbol group anywhere on the screen (or on adjacent reels
from reel 1), paid by count.

The exact form (:class:`ScatterPayTables`) lists the paying groups with their
pays by count in pay units; the simulator's form (:class:`ScatterArrays`)
lists every group in file order.  Counts are tracked as *codes*: the count
itself for ``anywhere`` groups, ``2 x count + broken`` for
``adjacent_from_first_reel`` groups (:func:`update_code`).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .._jit import njit
from ..model import Game
from .scale import PayScale, pay_scale

ANYWHERE, ADJACENT = 0, 1


@dataclass(frozen=True)
class ScatterPayTables:
    """Paying scatter groups in the form the kernels use.

    Counts are tracked as *codes*: the count itself for ``anywhere`` groups,
    ``2 x count + broken`` for ``adjacent_from_first_reel`` groups.
    """

    index: np.ndarray  # positions of paying groups among game.scatters
    mode: np.ndarray  # ANYWHERE / ADJACENT
    cap: np.ndarray  # counts above cap pay like cap
    pays: np.ndarray  # (groups, max cap + 1) pay units by count

    @property
    def n_codes(self) -> int:
        return 2 * self.pays.shape[1] if len(self.index) else 1


def scatter_pay_tables(game: Game, scale: PayScale) -> ScatterPayTables:
    groups = [(i, g) for i, g in enumerate(game.scatters.values()) if any(p > 0 for p in g.pays.values())]
    caps = [max(k for k, p in g.pays.items()) for _, g in groups]
    width = max(caps, default=0) + 1
    pays = np.zeros((len(groups), width), dtype=np.int64)
    for row, (_, g) in enumerate(groups):
        for c in range(width):
            pays[row, c] = scale.units(game.bet.credits(g.pay(c), g.unit))
    return ScatterPayTables(
        index=np.array([i for i, _ in groups], dtype=np.int64),
        mode=np.array([ADJACENT if g.counting == "adjacent_from_first_reel" else ANYWHERE for _, g in groups], dtype=np.int64),
        cap=np.array(caps, dtype=np.int64),
        pays=pays,
    )


@njit(cache=True, inline="always")
def update_code(mode, cap, code, count):
    """Running count code of a scatter group after a reel showing ``count``."""
    if mode == ADJACENT:
        if code % 2 == 1:
            return code
        if count == 0:
            return code + 1
        return 2 * min(code // 2 + count, cap)
    return min(code + count, cap)


@njit(cache=True, inline="always")
def code_count(mode, code):
    return code // 2 if mode == ADJACENT else code


# ---------------------------------------------------------------------------
# the simulator's form
# ---------------------------------------------------------------------------
ScatterArrays = namedtuple("ScatterArrays", ["mode", "cap", "pays"])


def scatter_arrays(game: Game) -> ScatterArrays:
    """Count mode, cap and pay (units by count) of every scatter group, in file order."""
    scale = pay_scale(game)
    groups = list(game.scatters.values())
    caps = [max([k for k in g.pays] + [1]) for g in groups]
    width = max(caps, default=1) + 1
    pays = np.zeros((len(groups), width), dtype=np.int64)
    for i, g in enumerate(groups):
        for c in range(width):
            pays[i, c] = scale.units(game.bet.credits(g.pay(c), g.unit))
    mode = np.array([ADJACENT if g.counting == "adjacent_from_first_reel" else ANYWHERE for g in groups], dtype=np.int64)
    return ScatterArrays(mode, np.array(caps, dtype=np.int64).reshape(len(groups)), pays)


@njit(cache=True, inline="always")
def scatter_pay(sc, g, count):
    return sc.pays[g, min(count, sc.cap[g])]
