"""Declared feature parameters: what a round template reads from ``[features]``.

Each round template lists its parameters as :class:`Param` objects so a reelset
file is validated (types, ranges, references, typos) before any code reads it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable

# bounds every parameter keeps unless its Param says narrower: what the compiled rounds hold
INT_LIMIT = 2**31 - 1  # integers are at most this in size (32-bit signed)
NUMBER_LIMIT = 1e12  # other numbers are finite and at most this in size
MAX_COUNT = 10_000  # count keys ({count = value} tables) are whole numbers 1..MAX_COUNT
_COUNT_RE = re.compile(r"[0-9]{1,9}")


def parse_count(key: Any) -> int | None:
    """The count a ``{count = value}`` key names (ASCII digits, 1..MAX_COUNT), or None."""
    text = str(key)
    if not _COUNT_RE.fullmatch(text):
        return None
    count = int(text)
    return count if 1 <= count <= MAX_COUNT else None


# value kinds understood by check_param
KINDS = (
    "int",  # integer
    "number",  # integer or decimal
    "bool",
    "str",
    "count_map",  # {count: number}, count an integer key >= 1
    "int_list",
    "number_list",
    "table",  # name of a [tables.*] entry
    "strip_set",  # name of a [strip_sets.*] entry
    "mode",  # a strip-set mode
    "symbol",  # a symbol name
    "symbol_list",
    "trigger",  # a [triggers.*] name
    "scatter",  # a [scatters.*] name
    "records",  # a list of inline tables {field = value, ...}
)


@dataclass(frozen=True)
class Param:
    """One feature parameter: its kind, whether required, bounds, meaning (with units) and whether it is money paid.

    Without ``min``/``max`` a number is still bounded: integers to
    +-:data:`INT_LIMIT`, other numbers to +-:data:`NUMBER_LIMIT`, and never
    NaN or infinite (what the compiled rounds can hold).
    """

    kind: str
    doc: str
    required: bool = True
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    #: money the round pays, x total bet, so it must be a whole number of pay units
    #: (:func:`workbench.pays.scale.pay_scale`): True for a number; for a table, the entry field holding the amount
    pays: bool | str = False


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_param(
    spec: Param,
    value: Any,
    report: Callable[[str], None],
    refs: dict,
) -> None:
    """Report (via ``report(message)``) everything wrong with ``value`` for ``spec``.

    ``refs`` maps reference kinds ("table", "strip_set", "mode", "symbol",
    "trigger", "scatter") to the collections of known names.
    """
    kind = spec.kind

    def bounds(v: Any, what: str = "value") -> None:
        if isinstance(v, float) and not math.isfinite(v):
            report(f"{what} {v} is not a finite number")
            return
        limit = INT_LIMIT if kind in ("int", "int_list") else NUMBER_LIMIT
        low = -limit if spec.min is None else max(spec.min, -limit)
        high = limit if spec.max is None else min(spec.max, limit)
        if v < low:
            report(f"{what} {_show(v)} is below the minimum {_bound(low)}")
        elif v > high:
            report(f"{what} {_show(v)} is above the maximum {_bound(high)}")

    if kind == "int":
        if not _is_int(value):
            report(f"expected an integer, got {_describe(value)}")
        else:
            bounds(value)
    elif kind == "number":
        if not _is_number(value):
            report(f"expected a number, got {_describe(value)}")
        else:
            bounds(value)
    elif kind == "bool":
        if not isinstance(value, bool):
            report(f"expected true or false, got {_describe(value)}")
    elif kind == "str":
        if not isinstance(value, str):
            report(f"expected a string, got {_describe(value)}")
        elif spec.choices and value not in spec.choices:
            report(f"{value!r} is not one of {', '.join(map(repr, spec.choices))}")
    elif kind == "count_map":
        if not isinstance(value, dict):
            report(f"expected a table {{count = value}}, got {_describe(value)}")
            return
        if not value and spec.required:
            report("must not be empty")
        for k, v in value.items():
            if parse_count(k) is None:
                report(f"key {k!r} is not a count (a whole number 1..{MAX_COUNT:,})")
            elif not _is_number(v):
                report(f"value for {k} is {_describe(v)}, expected a number")
            else:
                bounds(v, f"value for {k}")
    elif kind in ("int_list", "number_list"):
        ok = _is_int if kind == "int_list" else _is_number
        if not isinstance(value, list) or not all(ok(v) for v in value):
            report(f"expected a list of {'integers' if kind == 'int_list' else 'numbers'}, got {_describe(value)}")
        else:
            if not value:
                report("must not be empty")
            for v in value:
                bounds(v, "element")
    elif kind in ("table", "strip_set", "mode", "symbol", "trigger", "scatter"):
        if not isinstance(value, str):
            report(f"expected the name of a {kind.replace('_', ' ')}, got {_describe(value)}")
        elif value not in refs.get(kind, ()):
            report(f"unknown {kind.replace('_', ' ')} {value!r}")
    elif kind == "records":
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            report(f"expected a list of inline tables {{ field = value, ... }}, got {_describe(value)}")
        elif not value and spec.required:
            report("must not be empty")
    elif kind == "symbol_list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            report(f"expected a list of symbol names, got {_describe(value)}")
        else:
            for v in value:
                if v not in refs.get("symbol", ()):
                    report(f"unknown symbol {v!r}")
    else:  # pragma: no cover - programming error in a game module
        raise ValueError(f"unknown parameter kind {kind!r}")


def _show(value: Any) -> str:
    """A number as a message shows it: exactly up to 20 digits, else in e-notation."""
    if _is_int(value) and abs(value) >= 10**20:
        digits = str(abs(value))
        return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:4]}e+{len(digits) - 1}"
    return repr(value) if isinstance(value, float) else str(value)


show_number = _show


def _bound(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) >= 1e6 else f"{x:g}"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        if len(value) > 60:
            return f"string {value[:40]!r}... ({len(value):,} characters)"
        return f"string {value!r}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if _is_int(value):
        return f"int {_show(value)}"
    return f"{type(value).__name__} {value!r}"


describe = _describe
