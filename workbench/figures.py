"""One catalogue of the figures of an exact PAR sheet, read by every view.

A :class:`Figure` says what a figure is (``key``, ``label``), its unit and how to show it (``kind``), and how to
read it off a sheet (``get``); a *family* (``expand``) stands for one figure per component, trigger or note of
the sheet.  :data:`CATALOGUE` lists them in the order people read them; :func:`figures_of` gives the figures of
one sheet.  ``ParSheet.summary`` and ``ParSheet.to_dict`` (so ``workbench par`` and ``--json``), the report's key
figures, the PAR workbook's Summary, the editors' summary table and the tuner's measured figures are all built
from it, so a figure added here (:func:`register`) appears in every one of them with no other change.

Units: RTPs and frequencies are fractions (shown as %), amounts x total bet, trigger rates as probabilities per
spin (shown as "1 in N").  Getters read attributes a PAR sheet has (``rtp``, ``components``, ``statistics``,
``trigger_probability``...) and return None where a figure does not apply to the sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

PERCENT = "percent"  # a fraction shown as %, deltas in percentage points
NUMBER = "number"  # x total bet, 4 decimals
AMOUNT = "amount"  # x total bet, 2 decimals (wins)
ONE_IN = "one_in"  # a probability shown as "1 in N"
RATE = "rate"  # N itself of a "1 in N" (hit rate), shown as "1 in N"
COUNT = "count"  # an exact whole number
TEXT = "text"  # words (a note)
FRACTION = "fraction"  # an exact fraction, shown as numerator / denominator


@dataclass(frozen=True)
class Figure:
    """A figure of a PAR sheet.

    ``key``: stable id (the JSON key; a family's members are ``key:NAME``); ``label``: what a person reads;
    ``unit``: the unit or the convention, said beside the value; ``kind``: how it is shown (module constants);
    ``get(sheet)``: its value, None when it does not apply; ``expand(sheet)``: for a family, the members as
    (name, value) pairs instead of ``get``; ``editor``: shown in the editors' summary; ``keep``: a figure the
    tuner may hold in a band (``--keep``)."""

    key: str
    label: str
    unit: str
    kind: str
    get: Callable | None = None
    expand: Callable | None = None
    editor: bool = True
    keep: bool = False


@dataclass(frozen=True)
class Value:
    """One figure of one sheet: ``key`` and ``label`` with a family member's name filled in, and its ``value``."""

    figure: Figure
    key: str
    label: str
    value: object
    source: str = "exact"  # or "simulated (N rounds)", "not computed" (the sheet's ``source(key)``)
    ci95: float | None = None  # half-width of the 95 % interval of a simulated figure (its unit)

    @property
    def unit(self) -> str:
        """The figure's unit, and for a figure that is not exact how it was obtained (every view shows this)."""
        if self.source == "exact":
            return self.figure.unit
        if self.ci95 is None:
            return f"{self.figure.unit}; {self.source}"
        return f"{self.figure.unit}; {self.source}, +- {shown(self.ci95, self.kind)} (95 %)"

    @property
    def kind(self) -> str:
        return self.figure.kind


def _max_win_upper(sheet):
    return None if getattr(sheet, "max_win_exact", True) else sheet.max_win_upper


def _triggers(sheet):
    return [(name, sheet.trigger_probability(name)) for name in sheet.game.triggers]


CATALOGUE: list[Figure] = [
    Figure("rtp", "RTP", "x total bet", PERCENT, lambda s: s.rtp),
    Figure("rtp_exact", "RTP as an exact fraction", "x total bet", FRACTION, lambda s: getattr(s, "rtp_exact", None),
           editor=False),
    Figure("rtp", "RTP {name}", "x total bet", PERCENT, expand=lambda s: list(s.components.items())),
    Figure("hit_frequency", "Hit frequency", "of spins with any win", PERCENT, lambda s: s.hit_frequency, keep=True),
    Figure("hit_rate_one_in", "Hit rate", "1 in N spins", RATE,
           lambda s: getattr(s, "statistics", s).hit_rate_one_in, editor=False),
    Figure("par_hit_frequency", "Hit frequency, PAR-sheet convention",
           "each line, ways or scatter win on a spin counted as a hit", PERCENT,
           lambda s: getattr(s, "par_hit_frequency", None), editor=False),
    Figure("std", "Standard deviation", "x total bet, per spin", NUMBER, lambda s: s.std, keep=True),
    Figure("volatility_index_90", "Volatility index 90 %", "z = 1.6449 x std (x total bet)", NUMBER,
           lambda s: s.volatility_index(0.90), keep=True),
    Figure("volatility_index_95", "Volatility index 95 %", "z = 1.9600 x std (x total bet)", NUMBER,
           lambda s: s.volatility_index(0.95), editor=False, keep=True),
    Figure("max_win", "Max win", "x total bet (the largest found when a max_win_upper follows)", AMOUNT,
           lambda s: s.max_win),
    Figure("max_win_upper", "Max win at most", "x total bet (the search for the maximum stopped)", AMOUNT,
           _max_win_upper),
    Figure("cycle", "Cycle", "weighted window combinations of one spin", COUNT,
           lambda s: int(s.cycle) if getattr(s, "cycle", None) is not None else None, editor=False),
    Figure("trigger", "Trigger {name}", "1 in N spins", ONE_IN, expand=_triggers),
    Figure("note", "Note {name}", "", TEXT, expand=lambda s: [(str(i + 1), n) for i, n in enumerate(s.notes)],
           editor=False),
]


def register(figure: Figure, *, after: str | None = None) -> None:
    """Add ``figure`` to the catalogue (after the figure with key ``after``, else last); every view shows it."""
    keys = [f.key for f in CATALOGUE]
    if figure.key in keys and figure not in CATALOGUE:
        raise ValueError(f"a figure with key {figure.key!r} is in the catalogue already")
    where = len(CATALOGUE) if after is None else max(i for i, k in enumerate(keys) if k == after) + 1
    CATALOGUE.insert(where, figure)


def unregister(key: str) -> None:
    """Take the figures with ``key`` out of the catalogue."""
    CATALOGUE[:] = [f for f in CATALOGUE if f.key != key]


def figures_of(sheet, *, editor: bool | None = None) -> list[Value]:
    """Every figure of ``sheet`` that applies to it, families expanded, in catalogue order (``editor``: only the
    figures the editors show, or only those they do not)."""
    out = []
    for figure in CATALOGUE:
        if editor is not None and figure.editor != editor:
            continue
        if figure.expand is not None:
            for name, value in figure.expand(sheet):
                out.append(Value(figure, f"{figure.key}:{name}", figure.label.format(name=name), value))
            continue
        value = figure.get(sheet)
        if value is not None:
            out.append(Value(figure, figure.key, figure.label, value, *_provenance(sheet, figure.key)))
    return out


#: figures that follow from another one: a simulated std makes the volatility indexes simulated too
DERIVED_FROM = {"hit_rate_one_in": "hit_frequency", "volatility_index_90": "std", "volatility_index_95": "std"}
_VI_Z = {"volatility_index_90": 1.6448536269514722, "volatility_index_95": 1.959963984540054}


def _provenance(sheet, key: str) -> tuple:
    """(source, ci95) of figure ``key`` of ``sheet``: "exact" unless the sheet says otherwise (``source``)."""
    source = sheet.source(key) if hasattr(sheet, "source") else "exact"
    if source == "exact":
        return source, None
    sim = getattr(sheet, "simulated", {}).get(DERIVED_FROM.get(key, key))
    if sim is None or sim.ci95 is None or key == "hit_rate_one_in":
        return source, None
    return source, sim.ci95 * _VI_Z.get(key, 1.0)


def keep_keys() -> tuple:
    """The figures the tuner may hold in a band (``--keep``), besides ``trigger:NAME``."""
    return tuple(f.key for f in CATALOGUE if f.keep and f.expand is None)


def shown(value, kind: str) -> str:
    """``value`` as a person reads it: percent with 4 decimals, "1 in N", exact counts and fractions, numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if kind == PERCENT:
        return f"{100 * value:.4f} %"
    if kind == ONE_IN:
        return "never" if not value else f"1 in {1 / value:,.1f}"
    if kind == RATE:
        return "never" if math.isinf(value) else f"1 in {value:,.2f}"
    if kind == COUNT:
        return f"{int(value):,}"
    if kind == FRACTION:
        return f"{value.numerator} / {value.denominator}" if hasattr(value, "numerator") else str(value)
    if kind == TEXT:
        return str(value)
    if kind == AMOUNT:
        return "never" if isinstance(value, float) and math.isinf(value) else f"{value:,.2f}"
    return f"{value:,.4f}"
