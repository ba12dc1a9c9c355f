"""Checks of single values: keys, tables, integers, numbers, names and count-pay tables; every
problem is collected with its key path and line.

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``data``, ``source``,
``problems``, ``positions`` and ``rule_unknown``."""

from __future__ import annotations

import difflib
import math
from fractions import Fraction
from typing import Any

from ...errors import ReelsetError
from ...model.params import describe
from ..limits import (
    MAX_PROBLEMS, MAX_PAY, MAX_DECIMALS, UNIT_TEXT, cap_problems, show_value, show_name, show_exact, count_key,
)


class ValueChecks:
    """Checks of one value each, recording a problem at its key path and returning None when it fails."""

    # -- reporting -------------------------------------------------------
    def problem(self, path: tuple, message: str, line: int | None = None) -> None:
        self.problems.append(self.source.problem(path, message, line))

    def fail(self) -> ReelsetError:
        return ReelsetError(cap_problems(self.problems, self.source.path))

    def check_keys(self, path: tuple, table: dict, known: dict | set | tuple, required: tuple = ()) -> None:
        for key in table:
            if key not in known:
                # past the listed problems only the count matters: skip the (slow) spelling hint
                hint = difflib.get_close_matches(str(key), [str(k) for k in known], n=1) if len(self.problems) < MAX_PROBLEMS else []
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                self.problem(path + (key,), f"unknown key {show_name(key)}{suggestion}")
        for key in required:
            if key not in table:
                self.problem(path, f"missing required key {key!r}" if path else f"missing required section or key {key!r}")

    def table(self, path: tuple, value: Any, what: str = "table") -> dict | None:
        if not isinstance(value, dict):
            self.problem(path, f"expected a {what}, got {describe(value)}")
            return None
        return value

    def integer(self, path: tuple, value: Any, minimum: int | None = None, maximum: int | None = None) -> int | None:
        if not isinstance(value, int) or isinstance(value, bool):
            self.problem(path, f"expected an integer, got {describe(value)}")
            return None
        if minimum is not None and value < minimum:
            self.problem(path, f"must be at least {minimum}, got {show_value(value)}")
            return None
        if maximum is not None and value > maximum:
            self.problem(path, f"must be at most {maximum:,}, got {show_value(value)}")
            return None
        return value

    def number(self, path: tuple, value: Any, positive: bool = False, nonnegative: bool = False, *,
               what: str = "value", unit: str = "", maximum: int = MAX_PAY) -> Fraction | None:
        """A pay, cost, line bet or stake: finite, at most ``maximum`` and :data:`MAX_DECIMALS` decimal places."""
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.problem(path, f"expected a number, got {describe(value)}")
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.problem(path, f"expected a finite number, got {value}")
            return None
        number = Fraction(value) if isinstance(value, int) else Fraction(repr(value))
        if positive and number <= 0:
            self.problem(path, f"must be greater than 0, got {show_value(value)}")
            return None
        if nonnegative and number < 0:
            self.problem(path, f"must not be negative, got {show_value(value)}")
            return None
        if abs(number) > maximum:
            self.problem(path, f"{what} {show_value(value)} is too large: at most {maximum:,}{' ' + unit if unit else ''}")
            return None
        if (number * 10**MAX_DECIMALS).denominator != 1:
            self.problem(path, f"{what} {show_value(value)} has more than {MAX_DECIMALS} decimal places "
                               f"(the smallest step is {show_exact(Fraction(1, 10**MAX_DECIMALS))})")
            return None
        return number

    def string(self, path: tuple, value: Any, choices: tuple | None = None, what: str | None = None) -> str | None:
        """A string; with ``what`` (a name: mode, game name...) it must not be empty."""
        if not isinstance(value, str):
            self.problem(path, f"expected a string, got {describe(value)}")
            return None
        if choices is not None and value not in choices:
            self.problem(path, f"{show_name(value)} is not one of: {', '.join(choices)}")
            return None
        if what is not None and not value.strip():
            self.problem(path, f"{what} must not be empty")
            return None
        return value

    def name_key(self, path: tuple, what: str) -> bool:
        """A table key used as a name (strip set, table, scatter group, trigger): not empty."""
        if not str(path[-1]).strip():
            self.problem(path, f"{what} name must not be empty")
            return False
        return True

    def name_list(self, path: tuple, value: Any, known: dict, what: str = "symbol") -> tuple | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(path, f"expected a list of {what} names, got {describe(value)}")
            return None
        ok = True
        for i, name in enumerate(value):
            if name not in known:
                self.problem(path + (i,), f"unknown {what} {show_name(name)}")
                ok = False
        return tuple(value) if ok else None

    def count_pays(self, path: tuple, value: Any, max_count: int | None, unit: str = "line_bet",
                   limit_text: str = "possible", upper_end: bool = False) -> dict | None:
        """``{count = pay}``, pays never decreasing with the count; with ``upper_end`` (cluster sizes, pay-anywhere
        counts) a band may end: a count paying 0 after one that pays, from which on nothing pays (``37 = 0``)."""
        table = self.table(path, value, "table {count = pay}")
        if table is None:
            return None
        pays: dict[int, Fraction] = {}
        for key, raw in table.items():
            count = count_key(key)
            if count is None:
                self.problem(path + (key,), f"{show_name(key)} is not a symbol count (a whole number >= 1)")
                continue
            if max_count is not None and count > max_count:
                shown = show_value(count) if count < 10**18 else f"{str(key).lstrip('0')[:12]}..."
                self.problem(path + (key,), f"count {shown} is more than the {max_count} {limit_text}")
                continue
            pay = self.number(path + (key,), raw, nonnegative=True, what="pay", unit=UNIT_TEXT.get(unit, ""))
            if pay is not None:
                pays[count] = pay
        ordered = dict(sorted(pays.items()))
        previous = None
        end = None  # the band's upper end: the count from which on nothing pays
        for count, pay in ordered.items():
            if end is not None and pay > 0:
                self.problem(path + (str(count),), f"pay {show_exact(pay)} for {count} is after the band's upper end "
                                                   f"({end[0]} = 0: from {end[0]} on nothing pays)")
            elif upper_end and previous is not None and pay == 0 and previous[1] > 0:
                end = (count, pay)
            elif previous is not None and pay < previous[1]:
                more = " (or 0: the band's upper end)" if upper_end else ""
                self.problem(path + (str(count),), f"pay {show_exact(pay)} for {count} is less than {show_exact(previous[1])} for {previous[0]}: pays must not decrease with count{more}")
            previous = (count, pay)
        return ordered
