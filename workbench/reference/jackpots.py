"""Must-drop progressive jackpots, wager by wager: the slow reference of :mod:`workbench.simulate.jackpots`.

Written from the rules (docs/reelset-format.md, ``[jackpots.*]``), one wager at a time:

- every wager feeds each tier's pot ``pot_rate`` x the wager (currency);
- a tier's drop point is drawn uniformly between its pot's restart value and its ``must_drop`` value
  when the pot restarts; the first wager that brings the pot to its drop point or past it wins it;
- a wager wins at most one jackpot: of the tiers that have reached their drop points, the one with
  the highest ``must_drop`` pays (the first listed among equals); the others stay due and pay on a
  later wager, with the feed of the wagers in between;
- a paid pot restarts at ``reseed_fraction`` of what it paid.

The simulator jumps from drop to drop; this walks every wager and draws the
same random numbers in the same order (every tier's first drop point, then the
warm-up tier by tier, then one drop point per drop), so the two must list the
same drops.  Plain Python:
keep ``wagers`` to thousands.
"""

from __future__ import annotations

import numpy as np

from ..model import JackpotTier


def jackpot_drops(tiers: tuple[JackpotTier, ...], wager: float, wagers: int, rng: np.random.Generator,
                  warmup_drops: int = 50) -> list:
    """The drops over ``wagers`` wagers of ``wager`` (currency): ``[(wager number from 1, tier name, amount), ...]``.

    Each tier is first run through ``warmup_drops`` drops on its own (from a pot at 75 % of its reseed value of
    the must-drop amount), as the simulator does, so the pots start in their long-run regime.
    """
    feed = [wager * t.pot_rate for t in tiers]
    start = [t.reseed_fraction * t.must_drop * 0.75 for t in tiers]
    first = [rng.uniform(start[i], max(start[i], t.must_drop)) for i, t in enumerate(tiers)]  # every tier's first
    restart, drop_at = [], []
    for i, tier in enumerate(tiers):
        pot, point = start[i], first[i]
        for _ in range(warmup_drops):
            fed = 0
            while pot + fed * feed[i] < point:  # wager after wager until the pot reaches its drop point
                fed += 1
            pot = tier.reseed_fraction * (pot + fed * feed[i])
            point = rng.uniform(pot, max(pot, tier.must_drop))
        restart.append(pot)
        drop_at.append(point)
    since = [0] * len(tiers)  # wager number at which each pot last restarted
    drops = []
    for w in range(1, wagers + 1):
        pots = [restart[i] + (w - since[i]) * feed[i] for i in range(len(tiers))]
        reached = [i for i in range(len(tiers)) if pots[i] >= drop_at[i]]
        if not reached:
            continue
        winner = min(reached, key=lambda i: (-tiers[i].must_drop, i))
        drops.append((w, tiers[winner].name, pots[winner]))
        restart[winner] = tiers[winner].reseed_fraction * pots[winner]
        since[winner] = w
        drop_at[winner] = rng.uniform(restart[winner], max(restart[winner], tiers[winner].must_drop))
    return drops
