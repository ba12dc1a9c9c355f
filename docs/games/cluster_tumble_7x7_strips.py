"""Draws the 40-stop strips of the gallery game reelsets/examples/cluster_tumble_7x7.toml (seeded, reproducible).

Each reel holds the candies in fixed counts, the rarer the higher they pay; RED, ORANGE and YELLOW are partly
stacked (a pair of REDs and of ORANGEs on every reel) so that the high candies cluster now and then.  The
stacks and single stops are shuffled with the reel's own seed; reels 2, 4 and 6 trade one PINK for a WILD.
The paytable was then scaled to bring the whole game (first drop exact, cascades simulated) to 96.5 %.

    python docs/games/cluster_tumble_7x7_strips.py    # prints the [strip_sets.base] reels
"""

import random

# (candy, stack height, stacks per reel): 40 stops
BLOCKS = [("RED", 2, 1), ("RED", 1, 1), ("ORANGE", 2, 1), ("ORANGE", 1, 2), ("YELLOW", 1, 4), ("GREEN", 1, 6),
          ("BLUE", 1, 7), ("PURPLE", 1, 8), ("PINK", 1, 8)]
SEED = 3


def strips() -> list[list[str]]:
    out = []
    for reel in range(1, 8):
        blocks = [[name] * height for name, height, n in BLOCKS for _ in range(n)]
        random.Random(SEED * 10 + reel).shuffle(blocks)
        stops = [s for block in blocks for s in block]
        if reel % 2 == 0:
            stops[stops.index("PINK")] = "WILD"
        out.append(stops)
    return out


if __name__ == "__main__":
    for reel, stops in enumerate(strips(), 1):
        print(f'reel{reel} = "{" ".join(stops)}"')
