"""Exact scatter counts: per-reel window counts combined across reels.

Each reel's distribution of visible instances comes from its actual windows
(so stacking on the strip, tall symbols and partial visibility are exact);
``anywhere`` groups combine reels by convolution, ``adjacent_from_first_reel``
groups by a two-state recursion (still counting / chain broken).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Game, ScatterGroup
from .windows import ReelWindows


@dataclass(frozen=True)
class ScatterCounts:
    """Exact distribution of a scatter group's count over the full cycle.

    ``hits[c]`` is the integer number of stop combinations (weighted) showing
    exactly ``c`` counted instances; ``cycle`` their total.
    """

    group: ScatterGroup
    hits: tuple  # Python ints, index = count
    cycle: int

    @property
    def max_count(self) -> int:
        return len(self.hits) - 1

    def probability(self, count: int) -> float:
        return self.hits[count] / self.cycle if 0 <= count < len(self.hits) else 0.0

    def hits_at_least(self, count: int) -> int:
        return sum(self.hits[max(count, 0) :])

    def probability_at_least(self, count: int) -> float:
        return self.hits_at_least(count) / self.cycle


def reel_count_distribution(windows: ReelWindows, group_index: int) -> list[int]:
    counts = windows.counts[:, group_index]
    out = [0] * (int(counts.max()) + 1 if len(counts) else 1)
    for c, w in zip(counts.tolist(), windows.weights.tolist()):
        out[c] += w
    return out


def _convolve(a: list[int], b: list[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if y:
                    out[i + j] += x * y
    return out


def scatter_counts(game: Game, windows: list[ReelWindows], group: str) -> ScatterCounts:
    """Exact count distribution of scatter group ``group`` for one strip set."""
    g = list(game.scatters).index(group)
    spec = game.scatters[group]
    per_reel = [reel_count_distribution(w, g) for w in windows]
    cycle = 1
    for w in windows:
        cycle *= w.total_weight
    if spec.counting == "anywhere":
        total = [1]
        for dist in per_reel:
            total = _convolve(total, dist)
    else:
        # still[c]: chain unbroken with c counted; broken[c]: chain ended at c
        still = [1]
        broken: list[int] = [0]
        for dist in per_reel:
            reel_total = sum(dist)
            new_still = _convolve(still, [0] + dist[1:])
            new_broken = [0] * max(len(broken), len(still))
            for c, x in enumerate(broken):
                new_broken[c] += x * reel_total
            for c, x in enumerate(still):
                new_broken[c] += x * dist[0]
            still, broken = new_still, new_broken
        size = max(len(still), len(broken))
        total = [(still[c] if c < len(still) else 0) + (broken[c] if c < len(broken) else 0) for c in range(size)]
    while len(total) > 1 and total[-1] == 0:
        total.pop()
    assert sum(total) == cycle
    return ScatterCounts(group=spec, hits=tuple(total), cycle=cycle)
