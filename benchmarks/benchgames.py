"""Synthetic games of the sizes the issues' speed targets name (5x3, 30 lines, 12 symbols)."""

from __future__ import annotations

import random

PAYLINES_30 = [
    [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2],
    [0, 0, 1, 2, 2], [2, 2, 1, 0, 0], [1, 0, 1, 2, 1], [1, 2, 1, 0, 1], [0, 1, 1, 1, 0],
    [2, 1, 1, 1, 2], [1, 0, 0, 0, 1], [1, 2, 2, 2, 1], [0, 1, 0, 1, 0], [2, 1, 2, 1, 2],
    [1, 1, 0, 1, 1], [1, 1, 2, 1, 1], [0, 0, 2, 0, 0], [2, 2, 0, 2, 2], [0, 2, 2, 2, 0],
    [2, 0, 0, 0, 2], [1, 0, 2, 0, 1], [1, 2, 0, 2, 1], [0, 2, 0, 2, 0], [2, 0, 2, 0, 2],
    [0, 2, 1, 2, 0], [2, 0, 1, 0, 2], [1, 0, 1, 0, 1], [1, 2, 1, 2, 1], [0, 1, 2, 2, 2],
]

SYMBOLS = {  # name: (kind, relative frequency, pays 3/4/5 x line bet)
    "WILD": ("wild", 2, (25, 100, 500)),
    "SCAT": ("scatter", 2, None),
    "H1": ("regular", 3, (20, 80, 300)),
    "H2": ("regular", 3, (15, 60, 200)),
    "H3": ("regular", 4, (10, 40, 150)),
    "H4": ("regular", 4, (8, 30, 100)),
    "L1": ("regular", 6, (5, 15, 50)),
    "L2": ("regular", 6, (5, 15, 50)),
    "L3": ("regular", 7, (4, 10, 40)),
    "L4": ("regular", 7, (4, 10, 40)),
    "L5": ("regular", 8, (2, 8, 25)),
    "L6": ("regular", 8, (2, 8, 25)),
}


def line_game_text(stops_per_reel: list[int], seed: int = 1, weighted: bool = False) -> str:
    """A 5x3, 30-line, 12-symbol game with the given strip lengths."""
    rng = random.Random(seed)
    total = sum(f for _, f, _ in SYMBOLS.values())
    reels = []
    for length in stops_per_reel:
        stops = []
        for name, (_, freq, _) in SYMBOLS.items():
            stops += [name] * max(1, round(length * freq / total))
        while len(stops) > length:
            stops.remove(max(SYMBOLS, key=lambda s: stops.count(s)))
        while len(stops) < length:
            stops.append("L6")
        rng.shuffle(stops)
        if weighted:
            stops = [f"{s}:{rng.randint(1, 4)}" for s in stops]
        reels.append(" ".join(stops))
    symbols = "\n".join(
        f'{n} = {{ kind = "{k}" }}' if k != "regular" else f"{n} = {{}}" for n, (k, _, _) in SYMBOLS.items()
    )
    paytable = "\n".join(
        f"{n} = {{ 3 = {p[0]}, 4 = {p[1]}, 5 = {p[2]} }}" for n, (_, _, p) in SYMBOLS.items() if p
    )
    lines = ",\n".join(f"  {l}" for l in PAYLINES_30)
    strips = "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(reels))
    return f"""format_version = 1
name = "Benchmark 30-line"
game_module = "classic"

[grid]
reels = 5
rows = 3

[bet]
lines = 30
cost = 30
line_bet = 1

[symbols]
{symbols}

[paytable]
{paytable}

[paylines]
lines = [
{lines},
]

[scatters.SCAT]
symbols = ["SCAT"]
pays = {{ 3 = 2, 4 = 10, 5 = 50 }}

[triggers.bonus]
scatter = "SCAT"
min_count = 3

[strip_sets.base]
mode = "base"
{strips}
"""
