"""Design script for reelsets/bier_haus_oktober_fest.toml: strips from symbol counts.

Run from the repository root:  .venv/bin/python docs/games/bier_haus_design.py [precision] [--save]
It rewrites the strip lines of the reelset (keeping every comment and all other
values) from the counts below, prints the exact base-game PAR summary and the
exact + conditional RTP at the reference stake.  Counts, pays and weights were
tuned with this loop.
"""

from __future__ import annotations

import sys

from workbench import load_game, par, save_game
from workbench.simulate import estimate_rtp
from workbench.tuning import with_counts

REELSET = "reelsets/bier_haus_oktober_fest.toml"

# Heidis are 2 rows tall: a count is a number of whole symbols (2 stops each).
# Reel 6 carries only premium symbols, WILD and Green/Purple Heidis (design choice).
BASE = {
    "WILD": [2, 2, 2, 2, 2, 2],
    "HANS": [3, 3, 3, 3, 3, 4],
    "BEERHOUSE": [3, 3, 3, 3, 3, 4],
    "ACCORDION": [4, 4, 4, 4, 4, 5],
    "STEIN": [4, 4, 4, 4, 4, 5],
    "TUBA": [5, 5, 5, 5, 5, 0],
    "HAT": [5, 5, 5, 5, 5, 0],
    "PRETZEL": [6, 6, 6, 6, 6, 0],
    "HEARTS": [7, 7, 7, 7, 7, 0],
    "DIAMONDS": [7, 7, 7, 7, 7, 0],
    "SPADES": [8, 8, 8, 8, 8, 0],
    "CLUBS": [8, 8, 8, 8, 8, 0],
    "GREEN_HEIDI": [3, 3, 2, 2, 2, 1],
    "PURPLE_HEIDI": [1, 1, 1, 1, 1, 1],
    "RED_HEIDI": [0, 0, 0, 1, 0, 0],
}
FREE = {
    **BASE,
    "WILD": [1, 1, 1, 1, 1, 1],
    "GREEN_HEIDI": [1, 1, 1, 1, 1, 1],
    "PURPLE_HEIDI": [1, 1, 1, 1, 1, 1],  # "Purple Heidi appears on all reels"
    "RED_HEIDI": [0, 0, 0, 1, 0, 0],
}


def per_reel(counts: dict) -> list:
    return [{s: c[r] for s, c in counts.items() if c[r]} for r in range(6)]


def build(game):
    game = with_counts(game, "base", per_reel(BASE), seed=40)
    return with_counts(game, "free_spins", per_reel(FREE), seed=50)


def main() -> None:
    game = build(load_game(REELSET))
    sheet = par(game, full_cycle=False)
    print(sheet.summary.to_string())
    precision = float(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else 0.001
    est = estimate_rtp(game, precision=precision, seed=7, workers=2 if "--workers2" in sys.argv else 1)
    print(f"RTP {est.rtp:.5f} +- {est.rtp_ci95:.5f} (game {est.game_rtp:.5f}, jackpots {est.jackpot_rtp:.5f})")
    for name, e in est.components.items():
        print(f"  {name:24s} {e.value:.5f} +- {e.ci95:.5f}")
    for s in est.strata:
        print(f"  state {s.name:28s} 1 in {1 / s.probability:10.1f}  extra {s.mean_extra:9.3f} x bet")
    if "--save" in sys.argv:
        save_game(game)


if __name__ == "__main__":
    main()
