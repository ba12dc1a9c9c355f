"""``[jackpots.NAME]``: must-drop progressive jackpot tiers, for a game of any round template.

A mixin of the reelset builder (:mod:`workbench.io.schema`).  The tiers are in
the currency of ``[bet] stakes``; each is checked against every wager the game
takes (every stake of the ladder x every bet mode's cost), so that no wager can
feed a pot past its must-drop value in one step.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...model import JackpotTier
from ..limits import show_value

#: a jackpot's must-drop value, currency
MAX_MUST_DROP = 10**9
#: a pot fed less would take more wagers to drop than 64-bit counts hold
MIN_POT_RATE = Fraction(1, 10**6)

JACKPOT_KEYS = {
    "must_drop": "currency: the pot surely drops before it passes this",
    "pot_rate": "fraction of every wager fed to the pot",
    "reseed_rate": "fraction of every wager fed to the reseed pot (default: what the restarts consume)",
    "reseed_fraction": "the pot restarts at this fraction of what it paid",
    "description": "free text",
}


class JackpotSections:
    """``[jackpots.*]`` into a tuple of :class:`~workbench.model.JackpotTier`."""

    def jackpots(self, value: Any, bet, bet_modes: dict) -> tuple:
        if self.table(("jackpots",), value) is None or not value:
            return ()
        tiers = []
        for name, spec in value.items():
            path = ("jackpots", name)
            if not self.name_key(path, "jackpot tier") or self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, JACKPOT_KEYS, ("must_drop", "pot_rate", "reseed_fraction"))
            must = self.number(path + ("must_drop",), spec["must_drop"], positive=True, what="must_drop",
                               unit="(currency)", maximum=MAX_MUST_DROP) if "must_drop" in spec else None
            pot = self._rate(path + ("pot_rate",), spec.get("pot_rate"), minimum=MIN_POT_RATE) if "pot_rate" in spec else None
            fraction = self._rate(path + ("reseed_fraction",), spec.get("reseed_fraction")) if "reseed_fraction" in spec else None
            reseed = self._rate(path + ("reseed_rate",), spec["reseed_rate"]) if "reseed_rate" in spec else None
            if "description" in spec:
                self.string(path + ("description",), spec["description"])
            if None in (must, pot, fraction) or ("reseed_rate" in spec and reseed is None):
                continue
            if reseed is None:  # balanced: the reseed pot funds exactly what the restarts take
                reseed = pot * fraction / (1 - fraction)
            tiers.append(JackpotTier(str(name), float(must), float(pot), float(reseed), float(fraction)))
        if len(tiers) == len(value):
            self._jackpot_wagers(tiers, bet, bet_modes)
        return tuple(tiers)

    def _rate(self, path: tuple, raw: Any, minimum: Fraction = Fraction(0)) -> Fraction | None:
        """A fraction of every wager (or of a drop) in [minimum, 1)."""
        rate = self.number(path, raw, nonnegative=True, what="rate", maximum=1)
        if rate is None:
            return None
        if rate >= 1:
            self.problem(path, f"must be below 1 (a fraction of every wager), got {show_value(raw)}")
            return None
        if rate < minimum:
            self.problem(path, f"must be at least {float(minimum):g}: a pot fed {show_value(raw)} of each wager would "
                               "(almost) never reach its must-drop value")
            return None
        return rate

    def _jackpot_wagers(self, tiers: list, bet, bet_modes: dict) -> None:
        """The ladder the tiers need, every wager within each tier's step, and a total return below 100 %."""
        if bet is None:
            return
        if not bet.stakes:
            self.problem(("jackpots",), "must-drop jackpots are in currency: declare the stake ladder "
                                        "([bet] stakes = [total bets in currency], with [bet] currency)")
            return
        stake = max(bet.stakes)
        costs = {"base": Fraction(1), **{name: mode.cost for name, mode in bet_modes.items()}}
        for mode, cost in costs.items():
            wager = float(stake * cost)
            over = [t for t in tiers if wager > t.largest_wager()]
            if not over:
                continue
            steps = ", ".join(f"{t.name} by {wager * t.pot_rate:g} (its step from restart to must_drop is "
                              f"{t.room:g}; must_drop at least "
                              f"{wager * t.pot_rate / (1 - t.reseed_fraction):g} would do)" for t in over)
            if mode == "base":  # the ladder's top stake is too large for the tiers: said at the ladder
                self.problem(("bet", "stakes"), f"stake {float(stake):g} is too large for the jackpot tier "
                                                f"{over[0].name!r}: one wager feeds {steps}; lower the stake or raise must_drop")
                break
            self.problem(("jackpots", over[0].name, "must_drop"),
                         f"a wager of {wager:g} (stake {float(stake):g} in bet mode {mode!r}, cost {float(cost):g} x "
                         f"total bet) feeds {steps}: raise must_drop or lower pot_rate")
        total = sum(t.rtp for t in tiers)
        if total >= 1:
            self.problem(("jackpots",), f"the tiers return {100 * float(total):.4f} % of every wager on their own "
                                        "(sum of pot_rate / (1 - reseed_fraction)): it must be below 100 % (lower a pot_rate)")
