"""Wild reels: whole reels of a strip set turning wild on a spin, exactly priced as a mixture of strip sets.

Rule (``[strip_sets.NAME] wild_reels = { symbol = "WILD", chance = [...], out_of = n }`` or
``{ symbol = "WILD", count = "TABLE", reels = [...] }``): when a spin chooses strip set ``NAME``,

- ``chance``: each reel r turns wild on ``chance[r]`` spins in ``out_of``, independently of the other reels;
- ``count``: ``k`` reels turn wild, ``k`` drawn from the table's ``{ reels = k, weight = w }`` entries, the ``k``
  reels drawn uniformly among ``reels`` (all reels when absent), distinct;

and a reel that turns wild shows ``symbol`` in every row, in place of what its strip shows: it pays as that wild
(its multiplier, drawn per cell when it is a table), and a scatter its strip would have shown there is not on the
screen.  In a tumble its refills come from the wild strip too.

As the wild reels are drawn with the strip set and replace whole strips, a set with ``wild_reels`` is exactly a
weighted mixture of plain sets, one per set of wild reels (:func:`wild_reel_sets`): the set itself (no reel wild),
``NAME (wild reels 2, 4)`` with reels 2 and 4 replaced by a strip of ``symbol`` as long as the reel's rows, and so on,
each weighing the set's weight x that outcome's probability (integer weights over a common denominator).  Every
engine prices and plays those sets through :meth:`workbench.model.Game.played_strip_sets`; the slow reference draws
the wild reels itself.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

from .strips import Strip, StripSet


def outcomes(game, wild) -> list:
    """Every set of wild reels of ``wild`` (a :class:`~workbench.model.WildReels`) with an integer weight, the
    weights in proportion to the outcomes' probabilities: [(0-based reels, weight), ...], no reel first."""
    if wild.chance is not None:
        eligible = [r for r, c in enumerate(wild.chance) if c > 0]
        out = []
        for k in range(len(eligible) + 1):
            for chosen in itertools.combinations(eligible, k):
                weight = math.prod(wild.chance[r] if r in chosen else wild.out_of - wild.chance[r] for r in eligible)
                if weight:
                    out.append((chosen, weight))
        return out
    table = game.tables[wild.count]
    eligible = [r - 1 for r in wild.reels] if wild.reels else list(range(game.reels))
    by_count: dict = {}
    for entry, w in zip(table.entries, table.weights):
        if w > 0:
            by_count[int(entry["reels"])] = by_count.get(int(entry["reels"]), 0) + int(w)
    common = math.lcm(*(math.comb(len(eligible), k) for k in by_count))
    return [(chosen, w * common // math.comb(len(eligible), k))
            for k, w in sorted(by_count.items()) for chosen in itertools.combinations(eligible, k)]


def wild_strip(game, symbol: str, reel: int) -> Strip:
    """The strip a wild reel shows: ``symbol`` on as many stops as the reel's rows (every window all wild)."""
    return Strip((symbol,) * game.rows[reel])


def wild_reel_sets(game, sets: list) -> list:
    """The strip sets ``sets`` (one mode's) as spins play them: each set with ``wild_reels`` replaced by one set per
    outcome (see the module docstring), every other set's weight scaled so that it keeps its share, the weights
    divided by their greatest common divisor.  ``sets`` itself when none has ``wild_reels``."""
    if not any(s.wild_reels is not None for s in sets):
        return list(sets)
    expanded = [outcomes(game, s.wild_reels) if s.wild_reels is not None else [((), 1)] for s in sets]
    totals = [sum(w for _, w in e) for e in expanded]
    common = math.lcm(*totals)
    out = []
    for s, cases, total in zip(sets, expanded, totals):
        for chosen, w in cases:
            reels = tuple(wild_strip(game, s.wild_reels.symbol, r) if r in chosen else strip for r, strip in enumerate(s.reels))
            name = f"{s.name} (wild reels {', '.join(str(r + 1) for r in chosen)})" if chosen else s.name
            out.append(StripSet(name, s.mode, s.weight * w * (common // total), reels))
    g = math.gcd(*(s.weight for s in out)) or 1
    return [replace(s, weight=s.weight // g) for s in out]
