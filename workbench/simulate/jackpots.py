"""Must-drop progressive jackpots (Mega Drop style).

Each tier has a current pot and a reseed pot fed by fixed fractions of every
stake.  After a drop the pot restarts at ``reseed_fraction`` of the amount
paid; the next drop point is drawn uniformly between that start value and the
must-drop value, and the wager that carries the pot over it wins.  A wager
wins at most one jackpot: when several tiers cross on the same wager the tier
with the higher must-drop value pays and the others pay on the next wager.
Jackpot wins are outside the game's max-win cap.

Because the jackpot process depends only on the stream of stakes (never on
game outcomes) it is simulated on its own, event by event, with its own
random stream: identical whatever the number of workers.  Its long-run return
is also known exactly: a drop pays what the pot was fed since its restart
plus the restart value, itself ``reseed_fraction`` of the previous drop, so in
the long run drops pay ``pot_rate / (1 - reseed_fraction)`` of every stake.
The reseed pot's feed only funds the restarts; when it matches what they
consume (as in the Mega Drop split of 0.1 / 0.3 % at 25 %) the jackpot RTP is
also the sum of both feed rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import JackpotTier


def analytic_rtp(tiers: tuple) -> float:
    """Long-run jackpot return per unit staked (fraction of the total bet): sum of pot_rate / (1 - reseed_fraction)."""
    return float(sum(t.rtp for t in tiers))


def reseed_balance(tier: JackpotTier) -> float:
    """Reseed feed minus what restarts consume, per unit staked (0 = balanced).

    In steady state a drop pays P with P = f P + feed, so restarts consume
    ``f / (1 - f)`` of the pot feed.
    """
    f = tier.reseed_fraction
    return tier.reseed_rate - tier.pot_rate * f / (1 - f)


@dataclass(frozen=True)
class JackpotRun:
    """Jackpot outcomes over ``wagers`` wagers at one stake (currency)."""

    wagers: int
    stake: float
    drops: dict  # tier -> number of wins
    paid: dict  # tier -> total paid (currency)
    paid_squares: float  # sum over winning wagers of (amount / stake)^2
    largest: float  # largest single jackpot win, x total bet
    events: tuple = ()  # (wager number, tier, amount) when recorded
    max_wins_per_wager: int = 0  # most jackpots paid on one wager (the rules allow 1)
    deferred: int = 0  # tiers that crossed their drop point on a wager another tier won, paid on the next one

    @property
    def wins(self) -> int:
        """Jackpots paid over the run (all tiers)."""
        return sum(self.drops.values())

    @property
    def rtp(self) -> float:
        return sum(self.paid.values()) / (self.wagers * self.stake) if self.wagers else 0.0

    @property
    def rtp_ci95(self) -> float:
        """Half-width from the per-wager second moment (drops are rare and nearly independent)."""
        if not self.wagers:
            return 0.0
        mean = self.rtp
        var = max(self.paid_squares / self.wagers - mean * mean, 0.0)
        return 1.96 * math.sqrt(var / self.wagers)


def simulate_jackpots(tiers: tuple, stake: float, wagers: int, rng: np.random.Generator, warmup_drops: int = 50,
                      record: bool = False) -> JackpotRun:
    """Simulate the jackpot tiers over ``wagers`` wagers of ``stake`` (event by event).

    Every tier is first run through ``warmup_drops`` drops so its pot starts
    in its long-run regime.  A pot that restarts at or above its must-drop
    value (one wager's feed larger than the gap) drops on the next wager.
    """
    if not tiers or wagers <= 0:
        return JackpotRun(wagers, stake, {}, {}, 0.0, 0.0)
    n = len(tiers)
    per_wager = np.array([stake * t.pot_rate for t in tiers])
    must = np.array([t.must_drop for t in tiers])
    frac = np.array([t.reseed_fraction for t in tiers])
    # warm-up: start from a pot at the reseed of a mid-range payout and run some drops
    pot = frac * must * 0.75
    drop_at = np.array([rng.uniform(pot[i], max(pot[i], must[i])) for i in range(n)])
    for i in range(n):
        for _ in range(warmup_drops):
            steps = math.ceil((drop_at[i] - pot[i]) / per_wager[i])
            paid = pot[i] + steps * per_wager[i]
            pot[i] = frac[i] * paid
            drop_at[i] = rng.uniform(pot[i], max(pot[i], must[i]))
    # wager index at which each tier next crosses its drop point (1-based)
    nxt = np.array([max(1, math.ceil((drop_at[i] - pot[i]) / per_wager[i])) for i in range(n)], dtype=np.int64)
    base = np.zeros(n, dtype=np.int64)  # wager count at which pot[i] was last set
    order = sorted(range(n), key=lambda i: -must[i])  # priority: higher must-drop first
    drops = {t.name: 0 for t in tiers}
    paid_total = {t.name: 0.0 for t in tiers}
    squares = 0.0
    largest = 0.0
    events = []
    last_wager, on_wager, most, deferred = 0, 0, 0, 0
    while True:
        w = int(nxt.min())
        if w > wagers:
            break
        due = [i for i in order if nxt[i] == w]
        winner = due[0]
        on_wager = on_wager + 1 if w == last_wager else 1
        last_wager = w
        most = max(most, on_wager)
        deferred += len(due) - 1
        amount = pot[winner] + (w - base[winner]) * per_wager[winner]
        drops[tiers[winner].name] += 1
        paid_total[tiers[winner].name] += amount
        squares += (amount / stake) ** 2
        largest = max(largest, amount / stake)
        if record:
            events.append((w, tiers[winner].name, amount))
        pot[winner] = frac[winner] * amount
        base[winner] = w
        drop_at[winner] = rng.uniform(pot[winner], max(pot[winner], must[winner]))
        nxt[winner] = w + max(1, math.ceil((drop_at[winner] - pot[winner]) / per_wager[winner]))
        for i in due[1:]:
            nxt[i] = w + 1  # crossed on the same wager: pays on the next one
    return JackpotRun(wagers, stake, drops, paid_total, squares, largest, tuple(events), most, deferred)
