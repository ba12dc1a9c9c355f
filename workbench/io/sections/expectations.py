"""``[expectations]``: the figures a reelset's designer intends (RTP with a tolerance, hit frequency and volatility
bands, max win), for the base game and each ``[bet_modes.*]`` (``[expectations.NAME]``).

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``problem``, ``check_keys``, ``table``
and ``number``.  The figures themselves are checked against the measured ones by
:mod:`workbench.report.expectations`; here every value is checked for what it may be."""

from __future__ import annotations

import math
from typing import Any

from ...model.expectations import DEFAULT_RTP_TOLERANCE, Expectation
from ...model.params import describe
from ..limits import show_name, show_value

EXPECTATION_KEYS = {
    "rtp": "the RTP x the mode's cost, a fraction (0.9618 = 96.18 %)",
    "rtp_tolerance": f"how far the RTP may be from rtp, a fraction (default {DEFAULT_RTP_TOLERANCE})",
    "hit_frequency": "[low, high]: the fraction of rounds with any win",
    "volatility_index": "[low, high]: 1.6449 x the std of a round's win (90 %), x the mode's cost",
    "max_win": "the largest win a round can pay, x the base game's total bet",
}
MAX_RTP_TOLERANCE = 0.1  # ten points: a wider band states nothing
MAX_VOLATILITY_INDEX = 10**9


class ExpectationSections:
    """``[expectations]`` and ``[expectations.MODE]``."""

    def expectations(self, value: Any, bet_modes: dict) -> tuple:
        """The declared expectations, the base game's first; a sub-table names a declared bet mode (``bet_modes``: the
        file's ``[bet_modes]`` table, checked on its own) or ``base``."""
        if value is None or self.table(("expectations",), value) is None:
            return ()
        base = {k: v for k, v in value.items() if not isinstance(v, dict)}
        modes = {k: v for k, v in value.items() if isinstance(v, dict)}
        out = []
        if base and "base" in modes:
            self.problem(("expectations", "base"), "the base game's expectations are given twice: as keys of "
                                                   "[expectations] and as [expectations.base] (keep one)")
        elif base:
            out.append(self.expectation(("expectations",), "base", base))
        known = ["base", *(str(k) for k in bet_modes)]
        for name, spec in modes.items():
            path = ("expectations", name)
            if name in EXPECTATION_KEYS:
                self.problem(path, f"{name} must be {'a number' if name in ('rtp', 'rtp_tolerance', 'max_win') else '[low, high]'}"
                                   f", got {describe(spec)}")
                continue
            if name not in known:
                declared = ", ".join(repr(k) for k in bet_modes) or "none"
                self.problem(path, f"no bet mode {show_name(name)}: [expectations.NAME] names a declared "
                                   f"[bet_modes.*] (declared: {declared}) or base")
                continue
            out.append(self.expectation(path, name, spec))
        out = [e for e in out if e is not None]
        return tuple(sorted(out, key=lambda e: known.index(e.mode)))

    def expectation(self, path: tuple, mode: str, spec: dict) -> Expectation | None:
        """One mode's declared figures (None when nothing valid is declared)."""
        self.check_keys(path, spec, EXPECTATION_KEYS)
        rtp = self._fraction(path + ("rtp",), spec["rtp"], "rtp", 1, hint=True) if "rtp" in spec else None
        tolerance = DEFAULT_RTP_TOLERANCE
        if "rtp_tolerance" in spec:
            if "rtp" not in spec:
                self.problem(path + ("rtp_tolerance",), "rtp_tolerance needs rtp (the RTP it is a tolerance of)")
            tolerance = self._fraction(path + ("rtp_tolerance",), spec["rtp_tolerance"], "rtp_tolerance",
                                       MAX_RTP_TOLERANCE, zero=True)
        hit = self._band(path + ("hit_frequency",), spec["hit_frequency"], 1) if "hit_frequency" in spec else None
        vi = (self._band(path + ("volatility_index",), spec["volatility_index"], MAX_VOLATILITY_INDEX)
              if "volatility_index" in spec else None)
        top = (self.number(path + ("max_win",), spec["max_win"], positive=True, what="max_win", unit="x total bet")
               if "max_win" in spec else None)
        if not any(k in spec for k in EXPECTATION_KEYS):
            self.problem(path, f"no figure declared: give one or more of {', '.join(EXPECTATION_KEYS)}")
            return None
        if tolerance is None:
            return None
        return Expectation(mode=mode, rtp=rtp, rtp_tolerance=tolerance, hit_frequency=hit, volatility_index=vi,
                           max_win=top)

    def _fraction(self, path: tuple, value: Any, what: str, maximum: float, *, zero: bool = False,
                  hint: bool = False) -> float | None:
        """A fraction above 0 (or from 0 with ``zero``) and at most ``maximum``."""
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            self.problem(path, f"{what} must be a number (a fraction: 0.9618 for 96.18 %), got {describe(value)}")
            return None
        if value < 0 or (value == 0 and not zero) or value > maximum:
            low = "from 0 to" if zero else "above 0 and at most"
            percent = (f" (a fraction, not a percentage: {show_value(value / 100)} for {show_value(value)} %?)"
                       if hint and 1 < value <= 100 else "")
            self.problem(path, f"{what} must be {low} {show_value(maximum)}, got {show_value(value)}{percent}")
            return None
        return float(value)

    def _band(self, path: tuple, value: Any, maximum: float) -> tuple | None:
        """``[low, high]``: two numbers, 0 <= low <= high <= ``maximum``."""
        name = path[-1]
        if not isinstance(value, list) or len(value) != 2:
            self.problem(path, f"{name} must be [low, high] (two numbers), got {describe(value)}")
            return None
        bounds = []
        for i, x in enumerate(value):
            if not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x):
                self.problem(path + (i,), f"{name}: expected a number, got {describe(x)}")
                return None
            if not 0 <= x <= maximum:
                self.problem(path + (i,), f"{name}: {show_value(x)} is not from 0 to {show_value(maximum)}"
                                          + (" (a fraction: 0.25 for 25 %)" if maximum == 1 and 1 < x <= 100 else ""))
                return None
            bounds.append(float(x))
        low, high = bounds
        if low > high:
            self.problem(path, f"{name} = [{show_value(low)}, {show_value(high)}]: low is above high")
            return None
        return low, high
