"""Wheels spun slowly, straight from docs/reelset-format.md: one award at random (`spin_wheel_table`) and every way
one award can go, with its probability (`wheel_outcomes`, by listing every sequence of segments: no recursion over
states, nothing shared between branches)."""

from __future__ import annotations

from fractions import Fraction


def _open(table, won: set) -> list:
    """(entry, weight) of the segments one spin can land on: weight above 0, and not a cash prize already won."""
    return [(e, w) for e, w in zip(table.entries, table.weights)
            if w > 0 and not (e["award"] == "cash" and Fraction(str(e["value"])) in won)]


def _spins_again(entry) -> bool:
    return entry["award"] == "respin" or bool(entry.get("again", False))


def spin_wheel_table(table, repeat_cash: bool, max_spins: int, rng) -> tuple[Fraction, int, int]:
    """One award of wheel ``table``: (cash in the table's values, free spins, meter spins).  Spin: draw a segment by
    weight among those whose cash prize was not won in this award (when cash cannot repeat), take its award; spin again
    after a ``respin`` or an ``again`` segment; stop after ``max_spins`` spins or when nothing of weight is left."""
    won: set = set()
    cash, spins, meter = Fraction(0), 0, 0
    for _ in range(int(max_spins)):
        left = _open(table, won)
        if not left:
            break
        segment = rng.choices([e for e, _ in left], weights=[w for _, w in left])[0]
        if segment["award"] == "cash":
            cash += Fraction(str(segment["value"]))
            if not repeat_cash:
                won.add(Fraction(str(segment["value"])))
        elif segment["award"] == "free_spins":
            spins += int(segment["value"])
        elif segment["award"] == "meter_spins":
            meter += int(segment["value"])
        if not _spins_again(segment):
            break
    return cash, spins, meter


def wheel_outcomes(table, repeat_cash: bool, max_spins: int) -> dict:
    """{total cash of one award (the table's values): probability} over every sequence of segments one award can
    land on (exponential: small wheels and few spins only)."""
    out: dict = {}

    def walk(won: frozenset, cash: Fraction, prob: Fraction, spun: int) -> None:
        left = _open(table, won)
        if spun == max_spins or not left:
            out[cash] = out.get(cash, Fraction(0)) + prob
            return
        total = sum(w for _, w in left)
        for entry, w in left:
            p = prob * Fraction(w, total)
            value = Fraction(str(entry["value"])) if entry["award"] == "cash" else Fraction(0)
            now = won | {value} if entry["award"] == "cash" and not repeat_cash else won
            if _spins_again(entry):
                walk(now, cash + value, p, spun + 1)
            else:
                out[cash + value] = out.get(cash + value, Fraction(0)) + p

    walk(frozenset(), Fraction(0), Fraction(1), 0)
    return out


def bonus_award(game, trigger, rng) -> Fraction:
    """One bonus award of ``trigger`` (``[triggers.*] award``), in its ``award_unit``: a draw of its table, or one
    award of its wheel."""
    table = game.tables[trigger.award]
    if any("award" in e for e in table.entries):
        return spin_wheel_table(table, trigger.award_repeat_cash, trigger.award_max_spins, rng)[0]
    return Fraction(str(rng.choices(table.entries, weights=table.weights)[0]["value"]))
