"""Helpers a math designer uses to build and tune strips with the workbench.

- :func:`spread_strip` lays out a reel strip from symbol counts, spacing
  each symbol as evenly as the counts allow (deterministic for a seed), and
  keeping tall symbols as whole blocks;
- :func:`with_counts` returns a game whose strip set uses strips built from
  per-reel counts;
- :func:`scale_to_rtp` finds the factor that brings one exactly computed
  component to a target, the usual last step of tuning.
"""

from __future__ import annotations

import random
from typing import Callable

from .model import Game


def spread_strip(counts: dict, heights: dict | None = None, seed: int = 0) -> list:
    """A strip with ``counts[symbol]`` instances of each symbol, evenly spread.

    Each instance gets an ideal position ``(k + offset) / count`` around the
    strip; instances are placed in order of ideal position (ties broken by a
    seeded shuffle), tall symbols (``heights``) as consecutive stops.
    """
    heights = heights or {}
    rng = random.Random(seed)
    items = []
    for symbol, count in counts.items():
        if count <= 0:
            continue
        offset = rng.random()
        for k in range(count):
            items.append(((k + offset) / count, rng.random(), symbol))
    items.sort()
    strip: list = []
    for _, _, symbol in items:
        strip.extend([symbol] * heights.get(symbol, 1))
    # avoid identical neighbours where a swap fixes it (stacking is a choice, not an accident)
    n = len(strip)
    for i in range(n):
        a, b = strip[i], strip[(i + 1) % n]
        if a == b and heights.get(a, 1) == 1:
            for j in range(n):
                c = strip[j]
                if heights.get(c, 1) == 1 and c != a and strip[(j - 1) % n] != a and strip[(j + 1) % n] != a \
                        and strip[i - 1] != c and strip[(i + 2) % n] != c:
                    strip[(i + 1) % n], strip[j] = c, a
                    break
    return strip


def with_counts(game: Game, strip_set: str, counts_per_reel: list, seed: int = 0) -> Game:
    """``game`` with every reel of ``strip_set`` rebuilt from symbol counts (one dict per reel)."""
    heights = {name: sym.height for name, sym in game.symbols.items()}
    for reel, counts in enumerate(counts_per_reel, start=1):
        game = game.with_strip(strip_set, reel, spread_strip(counts, heights, seed + reel))
    return game


def scale_to_rtp(evaluate: Callable[[float], float], target: float, low: float, high: float, tolerance: float = 1e-6) -> float:
    """Factor ``x`` in [low, high] with ``evaluate(x) == target`` (bisection; evaluate must increase with x)."""
    lo, hi = low, high
    for _ in range(100):
        mid = (lo + hi) / 2
        if evaluate(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < tolerance:
            break
    return (lo + hi) / 2
