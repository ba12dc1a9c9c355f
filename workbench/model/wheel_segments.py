"""Wheel segments as data: what a wheel table's entries may hold, their checks, and how many states the exact value
of one award visits.

A wheel is a ``[tables.*]`` whose entries are segments: ``{ award = "cash", value = v }`` (pays ``v``),
``{ award = "free_spins", value = spins }``, ``{ award = "meter_spins", value = spins }`` or ``{ award = "respin" }``
(the wheel spins again); ``again = true`` on any segment spins the wheel once more after its award.  The
``free_spins`` template's ``[features] wheel`` takes every kind; a trigger's bonus ``award`` (the classic template)
takes a wheel of ``cash`` and ``respin`` segments.  Used by validation (``workbench.io``) and by the round templates'
feature checks (``workbench.rounds.wheels``), so it lives below both.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

from .params import describe

WHEEL_AWARDS = ("cash", "free_spins", "meter_spins", "respin")
BONUS_WHEEL_AWARDS = ("cash", "respin")  # a trigger's bonus award: no feature to add spins to
MAX_WHEEL_CASH = 1_000_000  # a cash segment, in the wheel's unit (x total bet unless a trigger's award_unit says)
MAX_SEGMENT_SPINS = 10_000  # free or meter spins of one segment
MAX_WHEEL_SPINS = 100  # wheel spins of one award when the file declares none
MAX_AWARD_STATES = 200_000  # (cash prizes won, spins left) states the exact value of one award may visit


def is_wheel(table) -> bool:
    """Whether a weighted table's entries are wheel segments (some entry names an ``award``)."""
    return any("award" in entry for entry in table.entries)


def check_segments(table, report, kinds: tuple = WHEEL_AWARDS, unit: str = "x total bet",
                   where: str = "") -> list | None:
    """Each entry of a wheel table: an ``award`` among ``kinds``, its ``value`` (cash: a number 0..MAX_WHEEL_CASH in
    ``unit``; spins: a whole number; respin: none), ``again`` a bool.  ``where`` says who reads the table (for a kind
    that is not allowed).  Returns [(award, spins again)] or None on a problem."""
    out = []
    ok = True
    for i, entry in enumerate(table.entries):
        path = ("tables", table.name, "entries", i)
        extra = sorted(set(entry) - {"award", "value", "again"})
        kind = entry.get("award")
        if extra:
            report(path + (extra[0],), f"unknown key {extra[0]!r} in a wheel segment ({{ award = ..., value = ..., "
                                       "weight = w }, optional again = true)")
            ok = False
        if kind not in kinds:
            also = f" ({where})" if where and kind in WHEEL_AWARDS else ""
            report(path + ("award",), f"award must be one of {', '.join(kinds)}, got {describe(kind)}{also}")
            ok = False
            continue
        value = entry.get("value")
        if kind == "respin":
            if value is not None:
                report(path + ("value",), "a respin segment awards nothing but another spin of the wheel: leave value out")
                ok = False
            if entry.get("again", True) is not True:
                report(path + ("again",), "a respin segment always spins the wheel again")
                ok = False
        elif kind == "cash":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= Fraction(str(value)) <= MAX_WHEEL_CASH:
                report(path + ("value",), f"a cash segment's value is {unit}, 0 to {MAX_WHEEL_CASH:,}, got {_got(value)}")
                ok = False
        elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEGMENT_SPINS:
            report(path + ("value",), f"a {kind} segment's value is a whole number of spins 0 to {MAX_SEGMENT_SPINS:,}, "
                                      f"got {_got(value)}")
            ok = False
        again = entry.get("again", kind == "respin")
        if not isinstance(again, bool):
            report(path + ("again",), f"again must be true or false, got {describe(again)}")
            ok = False
        out.append((kind, kind == "respin" or again is True))
    return out if ok else None


def check_stops(table, kinds: list, report) -> bool:
    """Whether some segment of weight ends the award (else the wheel would spin for ever); reports it if not."""
    if any(w > 0 and not again for (_, again), w in zip(kinds, table.weights)):
        return True
    report(("tables", table.name, "entries"), "every segment of weight spins the wheel again: the award would never "
                                              "stop (give some segment again = false and a weight above 0)")
    return False


def award_states(table, repeat_cash: bool, max_spins: int) -> int:
    """At most how many (cash prizes won, spins left) states the exact value of one award visits: one per spin left
    when cash repeats, else one per set of distinct prizes won within the spins."""
    if repeat_cash:
        return max_spins + 1
    prizes = len({Fraction(str(e["value"])) for e, w in zip(table.entries, table.weights)
                  if e.get("award") == "cash" and w > 0 and e.get("again", False)})
    # a prize that ends the award is never "won" in a state that spins on: only prizes with again enter the set
    sets = sum(comb(prizes, j) for j in range(min(prizes, max_spins) + 1))
    return sets * (max_spins + 1)


def _got(value) -> str:
    return "none" if value is None else describe(value)
