"""Design script for reelsets/super_10_stars.toml: strips from symbol counts.

Run from the repository root:  .venv/bin/python docs/games/super_10_stars_design.py
It rewrites the strip lines of the reelset (keeping every comment and all other
values) from the counts below, then prints the exact base-game PAR summary and
the exact + conditional RTP.  The counts and pays were tuned with this loop.
"""

from __future__ import annotations

import sys

from workbench import load_game, par, save_game
from workbench.simulate import estimate_rtp
from workbench.tuning import with_counts

REELSET = "reelsets/super_10_stars.toml"

REGULAR = ["SEVEN", "MELON", "GRAPES", "BELL", "PLUM", "ORANGE", "LEMON", "CHERRY"]

# stops per symbol and reel
LOWS = {"SEVEN": 3, "MELON": 4, "GRAPES": 4, "BELL": 5, "PLUM": 6, "ORANGE": 7, "LEMON": 7, "CHERRY": 8}
# base game, most spins: no Bonus symbols; the Super 10 lives on a longer reel 3
BASE = {
    "WILD": [2, 2, 1, 2, 2],
    **{s: [n, n, n, n, n] for s, n in LOWS.items()},
    "GOLD": [1, 1, 1, 1, 1],
    "SILVER*2": [1, 1, 1, 1, 1],  # a stacked pair: 6 to 9 silver stars can show
    "SILVER": [1, 1, 1, 1, 1],
    "WHEEL": [4, 0, 4, 0, 4],
    "SUPER10": [0, 0, 1, 0, 0],
}
for s, extra in {"CHERRY": 8, "LEMON": 5, "ORANGE": 5, "PLUM": 4}.items():
    BASE[s] = [n + (extra if r == 2 else 0) for r, n in enumerate(BASE[s])]
# base game, the other spins: Bonus reels 2-4 and the Super 7
BASE_BONUS = {
    "WILD": [2, 2, 1, 2, 2],
    **{s: [n, n, n, n, n] for s, n in LOWS.items()},
    "GOLD": [1, 1, 1, 1, 1],
    "SILVER*2": [1, 1, 1, 1, 1],  # a stacked pair: 6 to 9 silver stars can show
    "SILVER": [1, 1, 1, 1, 1],
    "WHEEL": [2, 0, 2, 0, 2],
    "BONUS": [0, 6, 6, 6, 0],
    "SUPER7": [0, 0, 1, 0, 0],
}
# free spins: richer in wilds, Bonus symbols retrigger
FREE = {
    "WILD": [4, 4, 4, 4, 4],
    **{s: [n, n, n, n, n] for s, n in LOWS.items()},
    "SILVER*2": [1, 1, 1, 1, 1],  # a stacked pair: 6 to 9 silver stars can show
    "SILVER": [1, 1, 1, 1, 1],
    "BONUS": [0, 2, 2, 2, 0],
}
SUPER10_FREE = {k: v for k, v in FREE.items() if k != "BONUS"}


def per_reel(counts: dict) -> list:
    return [{s: c[r] for s, c in counts.items() if c[r]} for r in range(5)]


def build(game):
    game = with_counts(game, "base", per_reel(BASE), seed=10)
    game = with_counts(game, "base_bonus", per_reel(BASE_BONUS), seed=15)
    game = with_counts(game, "free_spins", per_reel(FREE), seed=20)
    return with_counts(game, "super10_free_spins", per_reel(SUPER10_FREE), seed=30)


def main() -> None:
    game = build(load_game(REELSET))
    sheet = par(game, full_cycle=False)
    print(sheet.summary.to_string())
    est = estimate_rtp(game, precision=float(sys.argv[1]) if len(sys.argv) > 1 else 0.001, seed=7)
    print(f"RTP {est.rtp:.5f} +- {est.rtp_ci95:.5f}")
    for name, e in est.components.items():
        print(f"  {name:24s} {e.value:.5f} +- {e.ci95:.5f}")
    if "--save" in sys.argv:
        print(save_game(game).diff[:2000])


if __name__ == "__main__":
    main()
