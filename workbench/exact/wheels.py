"""The exact value of one wheel award (``[features] wheel``): mean cash, free spins, meter spins, wheel spins and the
chance that the safety maximum ends it, as fractions.

An award spins the wheel until a segment without ``again``; without ``repeat_cash`` a cash value already won is out
for the rest of the award (every segment showing it), and the award ends when nothing of weight is left or after
``max_spins`` spins.  The value is a recursion over (cash values won, spins left): each state's means are the
segments' immediate awards plus, for a segment with ``again``, the means of the state it leads to.  Only reachable
states are visited; with ``repeat_cash`` there is one per spin left.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

MAX_STATES = 200_000  # (won set, spins left) states one award's recursion may visit


@dataclass(frozen=True)
class WheelSegment:
    """One segment: ``kind`` (cash, free_spins, meter_spins, respin), ``value`` (cash x total bet, or spins),
    ``again`` (the wheel spins once more after it), ``weight``."""

    kind: str
    value: Fraction
    again: bool
    weight: int


@dataclass(frozen=True)
class WheelValue:
    """Exact means of one award: ``cash`` (x total bet), ``free_spins``, ``meter_spins``, ``wheel_spins``, and
    ``limit``: the probability that ``max_spins`` ends it."""

    cash: Fraction
    free_spins: Fraction
    meter_spins: Fraction
    wheel_spins: Fraction
    limit: Fraction


def segments_of(table) -> list[WheelSegment]:
    """The segments of a validated wheel table (``[tables.*]`` entries ``award``, ``value``, ``again``, weight)."""
    out = []
    for entry, weight in zip(table.entries, table.weights):
        kind = entry["award"]
        again = kind == "respin" or bool(entry.get("again", False))
        out.append(WheelSegment(kind, Fraction(str(entry.get("value", 0))), again, int(weight)))
    return out


def wheel_value(segments: list[WheelSegment], repeat_cash: bool, max_spins: int) -> WheelValue:
    """The exact means of one award of the wheel (see the module docstring).  Raises ValueError when the recursion
    would visit more than :data:`MAX_STATES` states (many distinct cash prizes that cannot repeat)."""
    visited = [0]

    @lru_cache(maxsize=None)
    def value(won: frozenset, left: int) -> tuple:
        visited[0] += 1
        if visited[0] > MAX_STATES:
            raise ValueError(f"the wheel's exact value needs more than {MAX_STATES:,} states")
        open_segments = [s for s in segments if s.weight > 0 and not (s.kind == "cash" and s.value in won)]
        total = sum(s.weight for s in open_segments)
        zero = Fraction(0)
        if left == 0:  # the safety maximum ends the award (as the compiled wheel counts it)
            return zero, zero, zero, zero, Fraction(1)
        if total == 0:
            return zero, zero, zero, zero, zero
        cash = spins = meter = wheel = limit = zero
        for s in open_segments:
            p = Fraction(s.weight, total)
            wheel += p
            cash += p * s.value if s.kind == "cash" else 0
            spins += p * s.value if s.kind == "free_spins" else 0
            meter += p * s.value if s.kind == "meter_spins" else 0
            if s.again:
                nxt = won | {s.value} if s.kind == "cash" and not repeat_cash else won
                c, f, m, w, lim = value(frozenset(nxt), left - 1)
                cash, spins, meter, wheel, limit = cash + p * c, spins + p * f, meter + p * m, wheel + p * w, limit + p * lim
        return cash, spins, meter, wheel, limit

    cash, spins, meter, wheel, limit = value(frozenset(), int(max_spins))
    return WheelValue(cash, spins, meter, wheel, limit)
