"""Helpers a math designer uses to build strips: lay out a strip from symbol counts, rebuild a strip set from
counts, find the factor that brings one component to a target."""

from __future__ import annotations

import random
from typing import Callable

from ..model import Game


def spread_strip(counts: dict, heights: dict | None = None, seed: int = 0) -> list:
    """A strip with ``counts[key]`` blocks of each symbol, evenly spread.

    A key is a symbol name (one instance: ``heights[symbol]`` stops for a tall
    symbol) or ``"SYMBOL*k"`` (a stack of k instances on consecutive stops).
    Each block gets an ideal position ``(k + offset) / count`` around the
    strip and blocks are laid out in that order (ties broken by a seeded
    shuffle); then neighbouring blocks of the same symbol are separated where a
    swap allows it, so stacks are only ever made on purpose.
    """
    heights = heights or {}
    rng = random.Random(seed)
    items = []
    for key, count in counts.items():
        if count <= 0:
            continue
        symbol, _, stack = key.partition("*")
        length = heights.get(symbol, 1) * (int(stack) if stack else 1)
        offset = rng.random()
        for k in range(count):
            items.append(((k + offset) / count, rng.random(), symbol, length))
    items.sort()
    blocks = [(symbol, length) for _, _, symbol, length in items]
    n = len(blocks)
    for i in range(n):
        a, b = blocks[i], blocks[(i + 1) % n]
        if a[0] != b[0]:
            continue
        for j in range(n):
            c = blocks[j]
            if c[0] != a[0] and blocks[j - 1][0] != a[0] and blocks[(j + 1) % n][0] != a[0] \
                    and blocks[i][0] != c[0] and blocks[(i + 2) % n][0] != c[0]:
                blocks[(i + 1) % n], blocks[j] = c, b
                break
    strip: list = []
    for symbol, length in blocks:
        strip.extend([symbol] * length)
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
