"""What the tuner measures: the figures of a game, the feature terms it holds, the bands it keeps.

- :func:`measure` gives the figures of one game (exact base game, plus the
  held feature terms for the whole game's RTP);
- :class:`FeatureTerms` holds the simulated part of the RTP from one exact +
  conditional estimate (:func:`workbench.simulate.estimate_rtp`), with the
  precision of every trigger state's mean;
- :class:`FeatureProxy` lets a held part follow an exact figure the tuner
  moves (the per-spin RTP of a bought feature's strips, the mean value of a
  table drawn inside it);
- :class:`Keep` / :func:`parse_keep` are the bands ``--keep`` holds figures in.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction

from ..errors import TuningError
from ..exact import par
from ..figures import figures_of, keep_keys
from ..model import Game
from ..simulate import base_screen_cap, estimate_rtp, round_model

#: figures a ``--keep`` may hold (``trigger:NAME`` besides), all of the base game and exact: its RTP, then every
#: figure the catalogue lets the tuner hold (workbench.figures, ``keep``)
KEEP_METRICS = ("base_rtp",) + keep_keys()
#: how far a bare ``--keep NAME`` lets the figure move, relative to its value before tuning
DEFAULT_KEEP_TOLERANCE = 0.01


@dataclass(frozen=True)
class Keep:
    """A figure the tuner must keep within ``[low, high]`` (``text`` as the designer wrote it)."""

    metric: str
    low: float
    high: float
    text: str

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def holds(self, value: float) -> bool:
        return self.low - 1e-12 <= value <= self.high + 1e-12

    def describe(self) -> str:
        return f"{self.metric} in [{_fmt(self.metric, self.low)}, {_fmt(self.metric, self.high)}]"


_KEEP_RE = re.compile(r"^\s*([A-Za-z_][\w:.-]*)\s*(?:=\s*([^±+]+?)\s*(?:(?:±|\+-|\+/-)\s*([0-9.eE+-]+)\s*(%?))?)?\s*$")


def _number(text: str, where: str) -> float:
    text = text.strip()
    try:
        if "/" in text:
            a, b = text.split("/", 1)
            return float(Fraction(a.strip()) / Fraction(b.strip()))
        if text.endswith("%"):
            return float(text[:-1]) / 100
        return float(text)
    except (ValueError, ZeroDivisionError):
        raise TuningError(f"{where}: {text!r} is not a number (write 0.28, 28%, or 1/150)") from None


def parse_keep(text: str, current: dict) -> Keep:
    """A :class:`Keep` from ``NAME``, ``NAME=VALUE`` or ``NAME=VALUE±TOL`` (``+-`` for ±).

    VALUE is a number, a percentage (``28%``) or a fraction (``1/150``); TOL is
    absolute, or relative to VALUE with a ``%`` (``±10%``).  Without TOL the band
    is VALUE ± 1 % of VALUE; without VALUE it is the figure before tuning ± 1 %.
    ``current`` holds the figures before tuning (to check the name and fill VALUE).
    """
    match = _KEEP_RE.match(text)
    where = f"--keep {text!r}"
    if not match:
        raise TuningError(f"{where}: write NAME, NAME=VALUE or NAME=VALUE±TOL (e.g. hit_frequency=0.28±0.01, "
                          "trigger:free_spins=1/150±10%)")
    name, value_text, tol_text, percent = match.groups()
    if name in KEEP_METRICS and name not in current:
        raise TuningError(f"{where}: {name!r} is not exact for this game (over the exact engine's work budgets: "
                          "`workbench par` shows it simulated), so the tuner cannot hold it")
    if name not in current or name in ("rtp", "max_win"):
        known = [k for k in current if k not in ("rtp", "max_win")]
        hint = difflib.get_close_matches(name, known, n=1)
        raise TuningError(f"{where}: unknown figure {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                          + f"; figures that can be kept: {', '.join(known)}")
    value = current[name] if value_text is None else _number(value_text, where)
    if tol_text is None:
        tol = abs(value) * DEFAULT_KEEP_TOLERANCE
    else:
        tol = _number(tol_text, where)
        if percent:
            tol = abs(value) * tol / 100
    if not (math.isfinite(value) and math.isfinite(tol)) or tol < 0:
        raise TuningError(f"{where}: the band must be a finite value with a tolerance of 0 or more")
    return Keep(name, value - tol, value + tol, text.strip())



# ---------------------------------------------------------------------------
# feature terms held from an exact + conditional estimate
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class FeatureProxy:
    """An exact figure a held (simulated) part of the RTP follows while the tuner moves it.

    A bought feature's RTP is all simulated, so the exact effects the search
    works with come from an exact figure the feature's win grows with:
    ``kind = "strips"``: the exact RTP per spin of strip-set mode ``where``
    (x the base game's total bet; the strips a bought feature's spins are
    played on); ``kind = "table"``: the weighted mean value of table ``where``
    (its entries' ``value``, or the ``[features]`` amount a ``jackpot`` entry
    names).  The RTP the search sees is the held estimate plus
    ``slope x (figure - reference)``: ``reference`` is the figure where the
    estimate was made, ``slope`` the RTP (x the mode's cost) per unit of it:
    at first the held part over the figure (the win taken as proportional to
    it), then the secant between two estimates (see
    :mod:`workbench.tuning.confirm`).
    """

    kind: str
    where: str
    reference: float
    slope: float

    def figure(self, game: Game, sheet=None, mode: str | None = None) -> float:
        """The exact figure of ``game`` (``sheet``: the PAR sheet of strip-set mode ``mode``, if already made)."""
        if self.kind == "strips":
            if sheet is not None and mode == self.where:
                return float(sheet.rtp)
            return float(par(game, self.where, full_cycle=False).rtp)
        return table_mean_value(game, self.where)

    def shift(self, game: Game, sheet=None, mode: str | None = None) -> float:
        """How far the held part moves at ``game`` (x the mode's cost)."""
        return self.slope * (self.figure(game, sheet, mode) - self.reference)

    def describe(self) -> str:
        if self.kind == "strips":
            return f"the exact RTP per spin of strip-set mode {self.where}"
        return f"the mean value of table {self.where}"

    def short(self) -> str:
        return f"the exact {self.where} strips" if self.kind == "strips" else f"table {self.where}'s mean"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "where": self.where, "reference": self.reference, "slope": self.slope,
                "follows": self.describe()}


def table_mean_value(game: Game, name: str) -> float:
    """The weighted mean of table ``name``'s entry values (an entry's ``value``, or the ``[features]`` amount its
    ``jackpot`` names); a :class:`~workbench.errors.TuningError` if an entry has neither."""
    table = game.tables[name]
    values = []
    for k, entry in enumerate(table.entries):
        value = entry.get("value")
        if not isinstance(value, (int, float, Fraction)) or isinstance(value, bool):
            value = game.features.get(entry.get("jackpot")) if isinstance(entry.get("jackpot"), str) else None
        if not isinstance(value, (int, float, Fraction)) or isinstance(value, bool):
            raise TuningError(f"{game.path or game.name}: --vary table={name}: entry {k + 1} has no numeric value (nor a "
                              "jackpot named in [features]): the tuner follows a table drawn inside a simulated feature by "
                              "its mean value")
        values.append(float(value))
    total = sum(table.weights)
    return sum(v * w for v, w in zip(values, table.weights)) / total


@dataclass(frozen=True)
class FeatureTerms:
    """The feature part of the RTP, held from one exact + conditional estimate (x the cost of the bet mode
    estimated, as every estimate: x total bet in the base game).

    ``means`` maps each trigger state to its mean extra win per round in that
    state (same unit), ``half_widths`` to that mean's 95 % half-width,
    ``state_samples`` to the rounds simulated in it, ``probabilities`` to its
    exact probability when estimated; ``value(probabilities)`` is sum p x
    mean + jackpots, with other probabilities when the edit moves the
    triggers, and ``half_width(probabilities)`` its 95 % half-width.  ``ci95``
    is the estimate's 95 % half-width of the feature part.  ``proxy``: an
    exact figure the held part follows (a bought feature's strips or table).
    """

    means: dict
    probabilities: dict
    jackpot_rtp: float
    ci95: float
    seed: int
    precision: float
    samples: int
    left_out: bool = False  # True: the game has features, but the designer tunes its base game alone
    moves_with_base_strips: tuple = ()  # states whose means change with any base stop (a tumble's cascades)
    half_widths: dict = field(default_factory=dict)
    state_samples: dict = field(default_factory=dict)
    unit: str = "x total bet"
    proxy: FeatureProxy | None = None
    seconds: float = 0.0
    stopped_early: bool = False  # the estimate stopped at its time box (or a stop signal) before its precision
    end_to_end: bool = False  # held from an estimate that played every round end to end (simulate/plan.py)

    @classmethod
    def none(cls) -> "FeatureTerms":
        """No feature terms (a game without features)."""
        return cls({}, {}, 0.0, 0.0, 0, 0.0, 0)

    @classmethod
    def base_only(cls) -> "FeatureTerms":
        """Feature terms left out on purpose: the target is the base game's RTP."""
        return cls({}, {}, 0.0, 0.0, 0, 0.0, 0, left_out=True)

    @classmethod
    def estimate(cls, game: Game, precision: float = 0.001, seed: int = 1, workers: int = 1,
                 max_seconds: float | None = None) -> "FeatureTerms":
        """Estimate the feature terms of ``game`` (nothing to estimate: :meth:`none`); ``precision`` x the cost of
        the game's bet mode."""
        if not has_simulated_terms(game):
            return cls.none()
        return cls.from_estimate(estimate_rtp(game, precision, seed, workers=workers, max_seconds=max_seconds))

    @classmethod
    def from_estimate(cls, est) -> "FeatureTerms":
        """The feature terms of an :class:`~workbench.simulate.RtpEstimate`."""
        live = [s for s in est.strata if s.probability > 0]
        moving = tuple(s.name for s in est.model.strata if s.moves_with_base_strips and s.name in {x.name for x in live})
        half = est.rtp_ci95 <= est.precision * (1 + 1e-9)
        return cls({s.name: s.mean_extra for s in live}, {s.name: s.probability for s in live}, est.jackpot_rtp,
                   est.rtp_ci95, est.seed, est.precision, est.samples, moves_with_base_strips=moving,
                   half_widths={s.name: s.ci95 for s in live}, state_samples={s.name: s.samples for s in live},
                   unit=est.unit, seconds=est.elapsed, stopped_early=bool(est.interrupted) or not half,
                   end_to_end=any(s.end_to_end for s in est.model.strata))

    @property
    def present(self) -> bool:
        return bool(self.means) or self.jackpot_rtp != 0

    def value(self, probabilities: dict | None = None) -> float:
        probs = self.probabilities if probabilities is None else probabilities
        return sum(float(probs.get(name, 0.0)) * mean for name, mean in self.means.items()) + self.jackpot_rtp

    def half_width(self, probabilities: dict | None = None) -> float:
        """95 % half-width of :meth:`value` (the states' estimates are independent: sqrt(sum (p x half-width)^2))."""
        if not self.half_widths:
            return self.ci95
        probs = self.probabilities if probabilities is None else probabilities
        return math.sqrt(sum((float(probs.get(name, 0.0)) * h) ** 2 for name, h in self.half_widths.items()))

    def with_proxy(self, proxy: FeatureProxy | None) -> "FeatureTerms":
        return replace(self, proxy=proxy)

    def to_dict(self, probabilities: dict | None = None) -> dict:
        """Every held term with its precision (means and half-widths x :attr:`unit`)."""
        probs = self.probabilities if probabilities is None else probabilities
        return {
            "unit": self.unit, "seed": self.seed, "precision": self.precision, "samples": self.samples,
            "seconds": self.seconds, "stopped_early": self.stopped_early,
            "feature_part": self.value(probs), "feature_part_ci95": self.half_width(probs),
            "feature_part_ci95_at_estimate": self.ci95, "jackpot_rtp": self.jackpot_rtp,
            "strata": [{"name": name, "probability": float(probs.get(name, 0.0)), "mean_extra": mean,
                        "ci95": self.half_widths.get(name), "samples": self.state_samples.get(name)}
                       for name, mean in self.means.items()],
            "proxy": None if self.proxy is None else self.proxy.to_dict(),
        }

    def lines(self, probabilities: dict | None = None) -> list[str]:
        """The held terms as text: the feature part with its half-width, then each state's mean ± half-width."""
        if not self.present:
            return []
        probs = self.probabilities if probabilities is None else probabilities
        out = [f"held feature terms (seed {self.seed}, precision ± {self.precision * 100:.4f} %, {self.samples:,} rounds"
               + (", stopped at its time box" if self.stopped_early else "") + f"): feature part "
               f"{self.value(probs) * 100:.4f} % ± {self.half_width(probs) * 100:.4f} % (95 %, {self.unit})"]
        for name, mean in self.means.items():
            p = float(probs.get(name, 0.0))
            h = self.half_widths.get(name)
            out.append(f"  {name:28s} " + (f"1 in {1 / p:10,.1f}" if p > 0 else f"{'never':>15s}")
                       + f"  mean extra {mean:10.4f}" + (f" ± {h:.4f}" if h is not None else "")
                       + f" {self.unit}" + (f"  ({self.state_samples[name]:,} rounds)" if name in self.state_samples else ""))
        if self.proxy is not None:
            out.append(f"  follows {self.proxy.describe()}: {self.proxy.slope:.6g} of RTP per unit from "
                       f"{self.proxy.reference:.6g}")
        return out


def has_simulated_terms(game: Game) -> bool:
    """Whether the RTP of ``game`` has a simulated part: a trigger state of positive probability, or jackpots."""
    model = round_model(game)
    return any(s.probability > 0 for s in model.strata) or bool(model.jackpots)


# ---------------------------------------------------------------------------
# measuring a game
# ---------------------------------------------------------------------------
def measure(game: Game, mode: str = "base", terms: FeatureTerms | None = None, strata: bool = False,
            quick: bool = False) -> dict:
    """The figures the tuner works with, exact for the base game.

    ``rtp`` (x the cost of the game's bet mode, as every RTP a user reads; x total bet in the base game) is the
    whole game: exact base game + ``terms`` (held feature terms;
    with ``strata`` the trigger states' probabilities are recomputed for this
    game; with a ``terms.proxy`` the held part follows its exact figure), less
    what the bet mode's ``max_win`` takes from first screens that
    alone pass it (exact, from the full cycle, as in
    :func:`~workbench.simulate.estimate_rtp`).  With ``mode`` another
    strip-set mode and no terms, ``rtp`` is that mode's exact RTP per spin.
    ``base_rtp``, ``hit_frequency``, ``std``, ``volatility_index_90``/``_95``,
    ``max_win`` and ``trigger:NAME`` (probability per spin) are of the first
    screen of strip-set mode ``mode`` (the base game by default), exact.  ``quick``: the exact PAR's quick figures
    (:func:`workbench.exact.par`): the RTP always, the other figures only where they are quick to get exactly.
    """
    sheet = par(game, mode, full_cycle=False, quick=quick)
    price = float(game.bet_mode.cost)  # the sheet is x the base total bet; the RTP is x the mode's cost
    held = terms is not None and terms.present
    if mode != "base" and not held:
        first = sheet.rtp  # per spin of that strip-set mode
    elif game.bet_mode.buy:
        first = 0.0  # a bought feature plays no base spin
    elif mode == "base":
        first = sheet.rtp
    else:
        raise TuningError(f"{game.path or game.name}: the whole-game RTP with strips of mode {mode!r} varied needs "
                          "the base game's first screen too; tune that mode per spin with --base-only")
    feature = 0.0
    if held:
        model = round_model(game)
        # an end-to-end estimate's one state is every round (probability 1 whatever the strips)
        probs = {s.name: s.probability for s in model.strata} if strata and not terms.end_to_end else None
        feature = terms.value(probs)
        if terms.proxy is not None:
            feature += terms.proxy.shift(game, sheet, mode)
        if game.max_win is not None and mode == "base" and not game.bet_mode.buy and not terms.end_to_end:
            cut = base_screen_cap(game, model, sheet)
            if cut is not None:  # the held strata estimate E[R - min(B, cap) | s]: the first screens' excess is exact
                first -= float(cut.excess_units) / model.params.cost_units
    out = {"rtp": first / price + feature, "base_rtp": sheet.rtp}
    # the catalogue's figures of the first screen the tuner reads (workbench.figures): the ones it may keep, the
    # max win and the trigger rates (probabilities per spin)
    for v in figures_of(sheet):
        if v.source != "exact":  # over the exact engine's budgets (ParSheet.missing): not a figure to steer by
            continue
        if v.key in KEEP_METRICS or v.key == "max_win" or v.key.startswith("trigger:"):
            out[v.key] = v.value
    return out


def _fmt(metric: str, value: float) -> str:
    if metric.startswith("trigger:"):
        return f"1 in {1 / value:,.1f}" if value > 0 else "never"
    if metric in ("rtp", "base_rtp", "hit_frequency"):
        return f"{value * 100:.4f} %"
    return f"{value:.4f}"
