"""The exact value of one wheel award (``[features] wheel``, or a trigger's bonus ``award`` wheel): mean cash, its
second moment, the chance it pays nothing and its largest total, free spins, meter spins, wheel spins and the chance
that the safety maximum ends it, as fractions.

An award spins the wheel until a segment without ``again``; without ``repeat_cash`` a cash value already won is out
for the rest of the award (every segment showing it), and the award ends when nothing of weight is left or after
``max_spins`` spins.  The value is a recursion over (cash values won, spins left): each state's means are the
segments' immediate awards plus, for a segment with ``again``, the means of the state it leads to (the cash ``X`` of
a state is ``v + X'``: ``E[X^2] = sum p (v^2 + 2 v E[X'] + E[X'^2])``, ``P(X = 0)`` sums the zero paths, the largest
total is the largest ``v + max X'``).  Only reachable
states are visited; with ``repeat_cash`` there is one per spin left.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import comb

from ..model.wheel_segments import MAX_AWARD_STATES as MAX_STATES  # (won set, spins left) states one award may visit


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
    """Exact means of one award: ``cash`` (in the segments' unit, x total bet for ``[features] wheel``),
    ``free_spins``, ``meter_spins``, ``wheel_spins``, and ``limit``: the probability that ``max_spins`` ends it; of
    its cash also ``cash_sq`` (E[cash^2]), ``cash_zero`` (P(cash = 0)) and ``cash_max`` (the largest total that has a
    chance)."""

    cash: Fraction
    free_spins: Fraction
    meter_spins: Fraction
    wheel_spins: Fraction
    limit: Fraction
    cash_sq: Fraction = Fraction(0)
    cash_zero: Fraction = Fraction(1)
    cash_max: Fraction = Fraction(0)
    landings: tuple = ()  # per segment (in the table's order): how often one award lands on it, on average

    @property
    def cash_variance(self) -> Fraction:
        """Var(cash) of one award."""
        return self.cash_sq - self.cash * self.cash


def segments_of(table) -> list[WheelSegment]:
    """The segments of a validated wheel table (``[tables.*]`` entries ``award``, ``value``, ``again``, weight)."""
    out = []
    for entry, weight in zip(table.entries, table.weights):
        kind = entry["award"]
        again = kind == "respin" or bool(entry.get("again", False))
        out.append(WheelSegment(kind, Fraction(str(entry.get("value", 0))), again, int(weight)))
    return out


def wheel_value(segments: list[WheelSegment], repeat_cash: bool, max_spins: int) -> WheelValue:
    """The exact means of one award of the wheel (see the module docstring), spins left 0, 1, ... in turn (no
    recursion depth however many spins).  Raises ValueError when it would visit more than :data:`MAX_STATES` states
    (many distinct cash prizes that spin again and cannot repeat)."""
    # only a cash prize that spins again is ever "won" in a state that spins on
    prizes = [] if repeat_cash else sorted({s.value for s in segments if s.kind == "cash" and s.again and s.weight > 0})
    max_spins = int(max_spins)
    states = sum(comb(len(prizes), j) * (max_spins - j + 1) for j in range(min(len(prizes), max_spins) + 1))
    if states > MAX_STATES:
        raise ValueError(f"the wheel's exact value needs {states:,} states (at most {MAX_STATES:,})")
    previous: dict = {}
    for left in range(max_spins + 1):
        current = {}
        for size in range(min(len(prizes), max_spins - left) + 1):
            for won in combinations(prizes, size):
                current[frozenset(won)] = _state_value(segments, repeat_cash, frozenset(won), left, previous)
        previous = current
    return WheelValue(*previous[frozenset()])


def _state_value(segments: list[WheelSegment], repeat_cash: bool, won: frozenset, left: int, after: dict) -> tuple:
    """(cash, free spins, meter spins, wheel spins, limit, cash^2, P(cash = 0), largest cash, landings per segment) of
    the rest of an award
    with cash prizes ``won`` and ``left`` spins left; ``after``: the values with one spin fewer, by prizes won."""
    zero = Fraction(0)
    none_landed = (zero,) * len(segments)
    if left == 0:  # the safety maximum ends the award (as the compiled wheel counts it)
        return zero, zero, zero, zero, Fraction(1), zero, Fraction(1), zero, none_landed
    open_segments = [(j, s) for j, s in enumerate(segments) if s.weight > 0 and not (s.kind == "cash" and s.value in won)]
    total = sum(s.weight for _, s in open_segments)
    if total == 0:
        return zero, zero, zero, zero, zero, zero, Fraction(1), zero, none_landed
    cash = spins = meter = wheel = limit = sq = none = zero
    top = None
    lands = list(none_landed)
    for j, s in open_segments:
        p = Fraction(s.weight, total)
        lands[j] += p
        v = s.value if s.kind == "cash" else zero
        wheel += p
        spins += p * s.value if s.kind == "free_spins" else 0
        meter += p * s.value if s.kind == "meter_spins" else 0
        if s.again:
            c, f, m, w, lim, c2, c0, cmax, later = after[won | {s.value} if s.kind == "cash" and not repeat_cash else won]
            lands = [a + p * b for a, b in zip(lands, later)]
            cash, spins, meter, wheel, limit = cash + p * (v + c), spins + p * f, meter + p * m, wheel + p * w, limit + p * lim
            sq += p * (v * v + 2 * v * c + c2)
            none += p * c0 if v == 0 else 0
            best = v + cmax
        else:
            cash += p * v
            sq += p * v * v
            none += p if v == 0 else 0
            best = v
        top = best if top is None else max(top, best)
    return cash, spins, meter, wheel, limit, sq, none, top, tuple(lands)
