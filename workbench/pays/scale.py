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
    paid money (``Param.pays``: a number, or the named field of each entry of a table), so that each is a whole
    number of pay units.  A template the registry does not know declares nothing."""
    from ..errors import RegistryError
    from ..registry import find_template

    try:
        template = find_template(game.game_module)
    except RegistryError:  # an installed template that fails to load is reported where the game is played
        template = None
    if template is None:
        return []
    f = game.features
    out = []
    for key, spec in template.params.items():
        value = f.get(key)
        if not getattr(spec, "pays", False) or value is None:
            continue
        if spec.kind == "table":
            table = game.tables.get(value) if isinstance(value, str) else None
            if table is not None:
                out += [Fraction(str(e[spec.pays])) for e in table.entries if _is_amount(e.get(spec.pays))]
        elif _is_amount(value):
            out.append(Fraction(str(value)))
    return out


def _is_amount(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pay_scale(game: Game) -> PayScale:
    """The integer pay unit of ``game`` (usually 1 unit = 1 credit per bet multiplier)."""
    values = [game.bet.cost]
    for pays in game.paytable.values():
        values += [game.bet.credits(p, game.bet.line_pay_unit) for p in pays.values()]
    for group in game.scatters.values():
        values += [game.bet.credits(p, group.unit) for p in group.pays.values()]
    values += [game.bet.credits(v, "total_bet") for v in feature_amounts(game)]
    denominator = 1
    for v in values:
        denominator = math.lcm(denominator, Fraction(v).denominator)
    return PayScale(denominator, int(game.bet.cost * denominator))
