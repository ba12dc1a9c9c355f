"""The integer money unit of the exact engine and the simulator.

Every pay of a game (line pays, scatter pays, the total bet) is a rational
number of credits per bet multiplier; the *pay unit* is the largest unit in
which all of them are whole numbers, so sums of pays over a cycle are exact
integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..model import Game


@dataclass(frozen=True)
class PayScale:
    """Integer money: ``units`` = credits per bet multiplier x ``denominator``."""

    denominator: int
    cost_units: int  # the total bet in units

    def units(self, credits: Fraction) -> int:
        value = Fraction(credits) * self.denominator
        if value.denominator != 1:  # a pay the scale was not made for: a bug, not the user's input
            raise ValueError(f"{credits} credits is not a whole number of pay units (1/{self.denominator} credit)")
        return int(value)

    def to_total_bets(self, units) -> float:
        return units / self.cost_units


def feature_amounts(game: Game) -> list[Fraction]:
    """The amounts (x total bet) the game's round template pays from ``[features]``: every parameter it declares as
    paid money (``Param.pays``), read when the file was validated (:attr:`Game.feature_money`), so that each is a
    whole number of pay units."""
    return list(game.feature_money)


def pay_scale(game: Game) -> PayScale:
    """The integer pay unit of ``game`` (usually 1 unit = 1 credit per bet multiplier)."""
    values = [game.bet.cost]
    for pays in game.paytable.values():
        values += [game.bet.credits(p, game.bet.line_pay_unit) for p in pays.values()]
    for group in game.scatters.values():
        values += [game.bet.credits(p, group.unit) for p in group.pays.values()]
    values += [game.bet.credits(v, "total_bet") for v in feature_amounts(game)]
    for trigger in game.triggers.values():  # bonus awards (a table or a wheel), in their award_unit
        if trigger.award is not None and trigger.award in game.tables:
            values += [game.bet.credits(Fraction(str(e["value"])), trigger.award_unit)
                       for e in game.tables[trigger.award].entries if "value" in e]
    denominator = 1
    for v in values:
        denominator = math.lcm(denominator, Fraction(v).denominator)
    return PayScale(denominator, int(game.bet.cost * denominator))
