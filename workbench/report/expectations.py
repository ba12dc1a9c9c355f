"""A reelset's declared expectations (``[expectations]``) against its measured figures: met, missed or not shown.

:func:`check_expectations` reads the same estimates as the compliance checks (:mod:`.compliance`: every bet mode's
:class:`~workbench.simulate.BetModeEstimate`, the base game first) and gives one :class:`Verdict` per declared
figure: the declared value, the measured one with its 95 % interval and how it was obtained (exact, or simulated),
and **met**, **missed** or **not shown**.  An exact figure is compared as it is; a simulated one is met only when
its whole 95 % interval is inside the declared band and missed only when the whole interval is outside it -- when
the interval straddles a limit the figure is *not shown* (the convention of the compliance checks: a lab signs
what was shown), with what would decide it.  :func:`live_verdicts` is what the editors can say without an
estimate.  The figures (docs/reelset-format.md, "[expectations]"):

- ``rtp``: the mode's RTP x its own cost, within ``rtp ± rtp_tolerance``;
- ``hit_frequency``: the fraction of the mode's rounds with any win (the whole round, features included); simulated,
  its interval is a binomial bound (each trigger state's rounds counted as coin flips of the largest variance);
- ``volatility_index``: z(90 %) = 1.6449 x the std of a round's win, x the mode's cost; a simulated std has no
  interval here (it needs the fourth moment of a round's win), so a simulated volatility index is not shown;
- ``max_win``: the largest win a round can pay, x the base game's total bet: met when the game is known to pay
  exactly that at most (the exact max win, or a cap a round reached), missed when a round pays more or no round
  can reach it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ..model import Game
from ..model.expectations import VOLATILITY_CONFIDENCE
from ..stats import z_value
from .formats import fmt_ci, fmt_num, fmt_pct, fmt_x

MET, MISSED, NOT_SHOWN = "met", "missed", "not shown"
EXACT = "exact"
Z95 = z_value(0.95)
FIGURES = {"rtp": "RTP (x its cost)", "hit_frequency": "hit frequency (rounds with any win)",
           "volatility_index": "volatility index 90 % (x its cost)", "max_win": "max win (x total bet)"}
COLUMNS = ["mode", "figure", "declared", "measured", "95 % interval", "method", "verdict", "evidence"]


@dataclass(frozen=True)
class Verdict:
    """One declared figure of one mode against its measured value."""

    mode: str
    figure: str  # a key of FIGURES
    declared: str
    measured: str
    interval: str
    method: str  # "exact", or how it was simulated
    verdict: str  # MET, MISSED or NOT_SHOWN
    evidence: str
    low: float | None = None  # the declared band (an RTP's: rtp ± rtp_tolerance; a max win: the value twice)
    high: float | None = None
    value: float | None = None  # the measured figure, its unit
    ci95: float | None = None  # its 95 % half-width (0: exact; None: no interval)


@dataclass
class ExpectationResult:
    """Every declared figure of a game against its measured value."""

    game: str
    verdicts: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every declared figure met (a missed or not shown one fails, as a compliance check does)."""
        return all(v.verdict == MET for v in self.verdicts)

    @property
    def failures(self) -> list:
        return [v for v in self.verdicts if v.verdict != MET]

    def table(self) -> pd.DataFrame:
        """mode, figure, declared, measured, 95 % interval, method, verdict, evidence: one row per declared figure."""
        return pd.DataFrame([{"mode": v.mode, "figure": FIGURES[v.figure], "declared": v.declared,
                              "measured": v.measured, "95 % interval": v.interval, "method": v.method,
                              "verdict": v.verdict, "evidence": v.evidence} for v in self.verdicts], columns=COLUMNS)

    def to_dict(self) -> dict:
        return {"game": self.game, "passed": self.passed,
                "expectations": [{"mode": v.mode, "figure": v.figure, "declared": v.declared, "measured": v.measured,
                                  "interval": v.interval, "method": v.method, "verdict": v.verdict,
                                  "evidence": v.evidence, "declared_low": v.low, "declared_high": v.high,
                                  "value": v.value, "ci95": v.ci95} for v in self.verdicts]}


def check_expectations(game: Game, est=None, modes=None, sheet=None, *, precision: float = 0.001,
                       seed: int = 1) -> ExpectationResult:
    """The declared expectations of ``game`` against ``modes`` (every bet mode's
    :class:`~workbench.simulate.BetModeEstimate`, the base game first, as the report and ``workbench check`` have
    them), or, without ``modes``, ``est`` as the base game's :class:`~workbench.simulate.RtpEstimate`; with neither,
    every mode is estimated here to ``precision`` with ``seed``.  ``sheet`` (the base game's exact PAR sheet) stands
    in for the estimate's own when given.  A game without ``[expectations]`` gives an empty result."""
    from ..simulate import BetModeEstimate, estimate_bet_modes

    result = ExpectationResult(game.name)
    if not game.expectations:
        return result
    base = game.in_bet_mode("base")
    if modes:
        estimates = list(modes)
    elif est is not None:
        estimates = [BetModeEstimate(game.all_bet_modes["base"], est)]
    else:
        estimates = estimate_bet_modes(base, precision=precision, seed=seed)
    by_name = {e.name: e for e in estimates}
    for expectation in game.expectations:
        e = by_name.get(expectation.mode)
        if e is None:
            result.verdicts += [Verdict(expectation.mode, f, "", "", "", "", NOT_SHOWN, "the mode was not estimated")
                                for f in expectation.declared]
            continue
        view = _ModeFigures(e, sheet if expectation.mode == "base" and sheet is not None else e.estimate.sheet)
        result.verdicts += [_CHECKS[f](expectation, view) for f in expectation.declared]
    return result


# ---------------------------------------------------------------------------
# what was measured, and how
# ---------------------------------------------------------------------------
class _ModeFigures:
    """The measured figures of one mode's estimate, each with its 95 % half-width (0: exact; None: no interval)."""

    def __init__(self, e, sheet):
        self.e = e
        self.sheet = sheet
        self.states = [s for s in getattr(e.estimate, "strata", ()) if s.probability > 0]
        # the whole round is the exact first screen: nothing simulated (a buy plays no first screen)
        self.exact_round = not self.states and not e.mode.buy and hasattr(sheet, "source")
        rounds = sum(s.samples for s in self.states)
        if e.mode.buy:
            self.how = f"simulated: the bought feature ({rounds:,} rounds)"
        elif self.states:
            self.how = (f"simulated: exact first screen + {len(self.states)} trigger state"
                        f"{'s' if len(self.states) != 1 else ''} ({rounds:,} rounds)")
        else:
            self.how = "simulated"

    def screen(self, figure: str) -> tuple:
        """(source, 95 % half-width) of a figure of the first screen's sheet, x the base total bet (a buy plays no
        first screen: nothing to add)."""
        if self.e.mode.buy:
            return EXACT, 0.0
        source = self.sheet.source(figure) if hasattr(self.sheet, "source") else "not computed"
        if source == EXACT:
            return EXACT, 0.0
        simulated = getattr(self.sheet, "simulated", {}).get(figure)
        return source, (simulated.ci95 if simulated is not None else None)

    def hit_frequency(self) -> tuple:
        """(value, half-width, method)."""
        e = self.e
        source, screen_ci = self.screen("hit_frequency")
        if self.exact_round:
            return e.hit_frequency, screen_ci, source
        if any(s.samples == 0 for s in self.states):
            return e.hit_frequency, math.inf, self.how
        var = sum(s.probability ** 2 * 0.25 / s.samples for s in self.states)
        half = math.hypot(Z95 * math.sqrt(var), screen_ci or 0.0) if screen_ci is not None else None
        return e.hit_frequency, half, f"{self.how}; interval: binomial bound"

    def volatility(self) -> tuple:
        """(value, half-width, method), x the mode's cost."""
        e = self.e
        value = e.volatility_index(VOLATILITY_CONFIDENCE)
        if not self.exact_round:
            return value, None, self.how
        source, screen_ci = self.screen("std")
        half = None if screen_ci is None else z_value(VOLATILITY_CONFIDENCE) * screen_ci / e.cost
        return value, half, source

    def max_win_bounds(self) -> tuple:
        """(lowest, highest, what the highest is) of the max win, x the base total bet: the largest win seen (or
        exact) is a round the game pays; the highest is the cap, the exact max win or the rules' bound (None: none)."""
        from .compliance import _template_cap_total_bets

        e = self.e
        low = e.max_win * e.cost
        bounds = []
        if self.exact_round and getattr(self.sheet, "max_win_exact", False):
            bounds.append((low, "the exact max win"))
        elif self.exact_round:
            bounds.append((self.sheet.max_win_upper, "the exact engine's bound of the max win"))
        if e.max_win_cap is not None:
            bounds.append((e.max_win_cap, "the max_win cap"))
        template = _template_cap_total_bets(e)
        if template is not None:
            bounds.append((template, "the round template's cap ([features] max_win)"))
        if not bounds:
            bound = _rules_bound(e)
            if bound is not None:
                bounds.append((bound, "the rules' bound of a round"))
        if not bounds:
            return low, None, ""
        high, what = min(bounds, key=lambda b: b[0])
        return low, high, what


def _rules_bound(e) -> float | None:
    """The round template's proven bound of what a round pays, x the base total bet (None: none)."""
    from ..errors import WorkbenchError
    from ..simulate.engine import round_bound

    try:
        bound = round_bound(e.estimate.model.game)
    except (WorkbenchError, AttributeError):
        return None
    if bound is None or bound.units is None:
        return None
    return bound.units / e.estimate.cost_units


# ---------------------------------------------------------------------------
# the verdicts
# ---------------------------------------------------------------------------
def _band_verdict(value: float, half, low: float, high: float) -> str:
    """MET when [value ± half] is inside [low, high], MISSED when it is wholly outside, NOT_SHOWN otherwise (or
    without an interval, ``half`` None)."""
    if half is None or not math.isfinite(half) or not math.isfinite(value):
        return NOT_SHOWN
    if low <= value - half and value + half <= high:
        return MET
    if value + half < low or value - half > high:
        return MISSED
    return NOT_SHOWN


def _decide(value: float, half, low: float, high: float, rtp: bool, figure: str = "") -> str:
    """What would decide a figure that is not shown."""
    if half is None and figure == "volatility_index":
        return "a simulated std has no 95 % interval here (it needs the fourth moment of a round's win)"
    if half is None:
        return "the first screen's figure was simulated without an interval"
    if not math.isfinite(half):
        return "the estimate stopped before every trigger state was played (a time box): give it more time"
    distance = min(abs(value - low), abs(value - high))
    if distance < 1e-12:
        return "the estimate is at the limit"
    return f"estimate with --precision {distance / 2:.6f} or smaller to decide" if rtp else \
        "a finer estimate (a smaller --precision) would decide it"


def _band_evidence(verdict: str, value: float, half, low: float, high: float, show, rtp: bool = False,
                   figure: str = "") -> str:
    """Why a band figure is met, missed or not shown."""
    what = "the exact figure is" if half == 0 else "the whole 95 % interval is"
    if verdict == MET:
        return f"{what} inside the declared band"
    if verdict == MISSED:
        side, gap = ("below", low - value) if value < low else ("above", value - high)
        return f"{what} {side} the declared band (the figure is {show(gap)} {side} it)"
    return f"not shown: {_decide(value, half, low, high, rtp, figure)}"


def _interval(value: float, half, show) -> str:
    if half is None:
        return "no interval"
    if half == 0:
        return "exact"
    if not math.isfinite(half):
        return "n/a"
    return f"{show(value - half)} to {show(value + half)}"


def _rtp(x, v: _ModeFigures) -> Verdict:
    e = v.e
    low, high = x.rtp_band
    half = e.rtp_ci95
    verdict = _band_verdict(e.rtp, half, low, high)
    method = EXACT if half == 0 else v.how
    evidence = _band_evidence(verdict, e.rtp, half, low, high, _points, rtp=True)
    return Verdict(x.mode, "rtp", f"{fmt_pct(x.rtp)} ± {fmt_pct(x.rtp_tolerance)}", fmt_pct(e.rtp),
                   _interval(e.rtp, half, fmt_pct), method, verdict, evidence, low, high, e.rtp, half)


def _hit_frequency(x, v: _ModeFigures) -> Verdict:
    value, half, method = v.hit_frequency()
    low, high = x.hit_frequency
    verdict = _band_verdict(value, half, low, high)
    evidence = _band_evidence(verdict, value, half, low, high, _points)
    return Verdict(x.mode, "hit_frequency", f"{fmt_pct(low)} to {fmt_pct(high)}", fmt_pct(value),
                   _interval(value, half, fmt_pct), method, verdict, evidence, low, high, value, half)


def _volatility(x, v: _ModeFigures) -> Verdict:
    value, half, method = v.volatility()
    low, high = x.volatility_index
    verdict = _band_verdict(value, half, low, high)
    evidence = (f"1.6449 x std {fmt_num(v.e.std)}; "
                + _band_evidence(verdict, value, half, low, high, fmt_num, figure="volatility_index"))
    return Verdict(x.mode, "volatility_index", f"{fmt_num(low)} to {fmt_num(high)}", fmt_num(value),
                   _interval(value, half, fmt_num), method, verdict, evidence, low, high, value, half)


def _max_win(x, v: _ModeFigures) -> Verdict:
    declared = float(x.max_win)
    low, high, what = v.max_win_bounds()
    tol = 1e-9 * max(1.0, declared)
    exact = high is not None and abs(high - low) <= tol
    seen = "exact" if exact else "the largest round seen" if not v.exact_round else "the largest win found"
    if low > declared + tol:
        verdict, evidence = MISSED, f"a round pays {fmt_x(low)} total bet ({seen}), more than the declared max win"
    elif high is not None and high < declared - tol:
        verdict, evidence = MISSED, f"no round can pay it: {what} is {fmt_x(high)} total bet"
    elif exact and abs(low - declared) <= tol:
        verdict, evidence = MET, (f"{what} is {fmt_x(high)} total bet" if v.exact_round and "exact" in what else
                                  f"{what} is {fmt_x(high)} total bet and a round reached it")
    else:
        reach = (f"{what} is {fmt_x(high)} total bet" if high is not None else "the rules set no limit")
        verdict, evidence = NOT_SHOWN, (f"the largest round seen paid {fmt_x(low)} total bet; {reach}: the game's "
                                        "largest win is not shown to be the declared one")
    interval = "exact" if exact else f"{fmt_x(low)} to {fmt_x(high) if high is not None else 'no limit'}"
    method = EXACT if exact and v.exact_round else v.how if not v.exact_round else "exact engine (bounded search)"
    return Verdict(x.mode, "max_win", fmt_x(declared), fmt_x(low), interval, method, verdict, evidence, declared,
                   declared, low, 0.0 if exact else None)


def _points(x: float) -> str:
    return f"{100 * x:.4f} points"


_CHECKS = {"rtp": _rtp, "hit_frequency": _hit_frequency, "volatility_index": _volatility, "max_win": _max_win}


# ---------------------------------------------------------------------------
# the editors: what can be known without an estimate
# ---------------------------------------------------------------------------
def live_verdicts(game: Game, sheet, exact_whole: bool, whole=None) -> list:
    """The base game's declared RTP and hit frequency as the editors can judge them live: from the exact PAR
    ``sheet`` of the base mode when it is the whole game (``exact_whole``), else the RTP from ``whole`` (value, 95 %
    half-width, stale) of an estimate held by the editor; a figure neither gives is NOT_SHOWN ("needs the
    simulation").  Returns (figure, declared, measured, verdict) tuples."""
    x = game.expectation("base")
    if x is None:
        return []
    out = []
    if x.rtp is not None:
        low, high = x.rtp_band
        declared = f"{fmt_pct(x.rtp)} ± {fmt_pct(x.rtp_tolerance)}"
        if exact_whole:
            out.append(("rtp", declared, f"{fmt_pct(sheet.rtp)} (exact)", _band_verdict(sheet.rtp, 0.0, low, high)))
        elif whole is not None and not whole[2]:
            value, half = whole[0], whole[1]
            out.append(("rtp", declared, f"{fmt_pct(value)} {fmt_ci(half)}", _band_verdict(value, half, low, high)))
        elif whole is not None:
            out.append(("rtp", declared, "the whole-game estimate is stale: estimate it again", NOT_SHOWN))
        else:
            out.append(("rtp", declared, "needs the simulation (estimate the whole game, or workbench check)", NOT_SHOWN))
    if x.hit_frequency is not None:
        low, high = x.hit_frequency
        declared = f"{fmt_pct(low)} to {fmt_pct(high)}"
        if exact_whole and sheet.source("hit_frequency") == EXACT:
            out.append(("hit_frequency", declared, f"{fmt_pct(sheet.hit_frequency)} (exact)",
                        _band_verdict(sheet.hit_frequency, 0.0, low, high)))
        else:
            out.append(("hit_frequency", declared, "needs the simulation (workbench check)", NOT_SHOWN))
    return out
