"""The RTP tuner, and helpers a math designer uses to build strips.

:func:`tune` changes as few reel stops as it can so that a game reaches a
target RTP while chosen figures (hit frequency, volatility index, trigger
rates) stay in their bands; :func:`tune_versions` makes several RTP versions of
one game that differ only in the allowed symbols.  What it optimises and why
it finds a small edit is in docs/tuning.md.  In short:

- the decision variables are the counts of the allowed symbols on each reel of
  one strip set; a change swaps one stop for another symbol, so reel lengths,
  the other symbols and every tall symbol stay as they are;
- every figure comes from the exact engine (:func:`workbench.exact.par`, base
  game, first screen); feature terms (free spins, wheels...) are held from one
  exact + conditional estimate (:func:`workbench.simulate.estimate_rtp`) and
  re-estimated on the result;
- each step measures, exactly, the effect of one swap per reel and symbol,
  solves a small integer programme (:func:`scipy.optimize.milp`): the fewest
  changed stops whose linear effect reaches the target and keeps every band,
  places the swaps on the strips (strip rules checked), measures the result
  exactly, and repeats from there until the exact figures are in their bands.

Also here: :func:`spread_strip` lays out a strip from symbol counts,
:func:`with_counts` rebuilds a strip set from counts, :func:`scale_to_rtp`
finds the factor that brings one component to a target.
"""

from __future__ import annotations

import difflib
import math
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

import numpy as np
import pandas as pd
from scipy.optimize import Bounds, LinearConstraint, milp

from .errors import ReelsetError, TargetUnreachableError, TuningError
from .exact import par
from .io import Saved, render_text, save_game
from .model import Game
from .simulate import estimate_rtp, round_model

#: figures a ``--keep`` may hold (``trigger:NAME`` besides): all of the base game, exact
KEEP_METRICS = ("base_rtp", "hit_frequency", "std", "volatility_index_90", "volatility_index_95")
#: how far a bare ``--keep NAME`` lets the figure move, relative to its value before tuning
DEFAULT_KEEP_TOLERANCE = 0.01
DEFAULT_TOLERANCE = 0.0001
DEFAULT_MAX_STEPS = 12
# weights of the integer programme's objective: one changed stop costs 1; missing the RTP band by its
# half-width costs RTP_PENALTY, missing a kept band by its half-width KEEP_PENALTY (a keep binds harder)
RTP_PENALTY = 1e3
KEEP_PENALTY = 1e4
MOVE_COST = 0.05  # per count moved from the point where the effects were measured (keeps steps short)
REELS_PER_STEP = 1
MILP_SECONDS = 1.0  # per integer programme: its first good solutions come fast, proofs of optimality do not
PLACES_TRIED = 4  # stops tried for each swap when a kept figure depends on where it goes
BAND_MARGIN = 0.5  # aim the linear model at this fraction of each band, so its error still lands inside


# ---------------------------------------------------------------------------
# what to keep
# ---------------------------------------------------------------------------
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
class FeatureTerms:
    """The feature part of the RTP, held from one exact + conditional estimate (x total bet).

    ``means`` maps each trigger state to its mean extra win per round in that
    state (x total bet), ``probabilities`` to its exact probability when
    estimated; ``value(probabilities)`` is sum p x mean + jackpots, with other
    probabilities when the edit moves the triggers.  ``ci95`` is the estimate's
    95 % half-width of the feature part.
    """

    means: dict
    probabilities: dict
    jackpot_rtp: float
    ci95: float
    seed: int
    precision: float
    samples: int

    @classmethod
    def none(cls) -> "FeatureTerms":
        return cls({}, {}, 0.0, 0.0, 0, 0.0, 0)

    @classmethod
    def estimate(cls, game: Game, precision: float = 0.001, seed: int = 1, workers: int = 1) -> "FeatureTerms":
        """Estimate the feature terms of ``game`` (nothing to estimate: :meth:`none`)."""
        model = round_model(game)
        if not any(s.probability > 0 for s in model.strata) and not model.jackpots:
            return cls.none()
        est = estimate_rtp(game, precision, seed, workers=workers)
        means = {s.name: s.mean_extra for s in est.strata if s.probability > 0}
        probs = {s.name: s.probability for s in est.strata if s.probability > 0}
        return cls(means, probs, est.jackpot_rtp, est.rtp_ci95, seed, precision, est.samples)

    @property
    def present(self) -> bool:
        return bool(self.means) or self.jackpot_rtp != 0

    def value(self, probabilities: dict | None = None) -> float:
        probs = self.probabilities if probabilities is None else probabilities
        return sum(float(probs.get(name, 0.0)) * mean for name, mean in self.means.items()) + self.jackpot_rtp


# ---------------------------------------------------------------------------
# measuring a game
# ---------------------------------------------------------------------------
def measure(game: Game, mode: str = "base", terms: FeatureTerms | None = None, strata: bool = False) -> dict:
    """The figures the tuner works with, exact for the base game (x total bet).

    ``rtp`` is the whole game: exact base game + ``terms`` (held feature terms;
    with ``strata`` the trigger states' probabilities are recomputed for this
    game); ``base_rtp``, ``hit_frequency``, ``std``, ``volatility_index_90``/
    ``_95``, ``max_win`` and ``trigger:NAME`` (probability per spin) are of the
    base game (first screen), exact.
    """
    sheet = par(game, mode, full_cycle=False)
    feature = 0.0
    if terms is not None and terms.present:
        probs = {s.name: s.probability for s in round_model(game).strata} if strata else None
        feature = terms.value(probs)
    out = {
        "rtp": sheet.rtp + feature,
        "base_rtp": sheet.rtp,
        "hit_frequency": sheet.hit_frequency,
        "std": sheet.std,
        "volatility_index_90": sheet.volatility_index(0.90),
        "volatility_index_95": sheet.volatility_index(0.95),
        "max_win": sheet.max_win,
    }
    for name in game.triggers:
        out[f"trigger:{name}"] = sheet.trigger_probability(name)
    return out


def _fmt(metric: str, value: float) -> str:
    if metric.startswith("trigger:"):
        return f"1 in {1 / value:,.1f}" if value > 0 else "never"
    if metric in ("rtp", "base_rtp", "hit_frequency"):
        return f"{value * 100:.4f} %"
    return f"{value:.4f}"


# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class StopChange:
    """One reel stop the tuner changed (``stop`` is 1-based, as in the editors)."""

    strip_set: str
    reel: int
    stop: int
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.strip_set} reel {self.reel} stop {self.stop}: {self.old} -> {self.new}"


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found.

    ``game`` is the tuned game (its edits apply to the original file text, so
    :meth:`save` rewrites only the changed strips); ``before``/``after`` the
    figures of :func:`measure`; ``rtp`` the whole-game RTP reached (x total
    bet): exact when the game has no feature terms (``rtp_ci95`` 0), else
    exact base + held feature terms ± ``rtp_ci95``; ``reestimated`` the
    end-to-end estimate of the result when one was made.
    """

    game: Game
    original: Game
    target: float
    tolerance: float
    mode: str
    strip_set: str
    vary: tuple
    keeps: tuple
    before: dict
    after: dict
    changes: tuple
    terms: FeatureTerms
    steps: int
    evaluations: int
    elapsed: float
    reestimated: object = None  # RtpEstimate of the tuned game, or None
    max_changes: int | None = None

    @property
    def rtp(self) -> float:
        return self.after["rtp"]

    @property
    def rtp_ci95(self) -> float:
        return self.terms.ci95 if self.terms.present else 0.0

    @property
    def rtp_source(self) -> str:
        return "exact + held feature estimate" if self.terms.present else "exact"

    @property
    def reached(self) -> bool:
        return abs(self.rtp - self.target) <= self.tolerance + 1e-12 and all(k.holds(self.after[k.metric]) for k in self.keeps)

    @property
    def text(self) -> str:
        """The tuned reelset file text."""
        return render_text(self.game)

    @property
    def diff(self) -> str:
        """Unified diff of the file text, original against tuned."""
        return "".join(difflib.unified_diff(self.original.text.splitlines(keepends=True), self.text.splitlines(keepends=True),
                                            fromfile=f"{self.original.path} (original)", tofile="tuned"))

    def save(self, path, *, force: bool = False) -> Saved:
        """Write the tuned game to ``path`` (validated, atomic; see :func:`workbench.io.save_game`)."""
        return save_game(self.game, path, force=force)

    def table(self) -> pd.DataFrame:
        """Figures before and after, formatted as a lab reads them."""
        rows = []
        for key in self.before:
            label = {"rtp": f"RTP, whole game ({self.rtp_source})", "base_rtp": "RTP, base game (exact)",
                     "hit_frequency": "hit frequency, base game", "std": "standard deviation, base game (x total bet)",
                     "volatility_index_90": "volatility index 90 %, base game", "volatility_index_95": "volatility index 95 %, base game",
                     "max_win": "max win, base game (x total bet)"}.get(key, f"trigger {key[8:]} (per spin)" if key.startswith("trigger:") else key)
            rows.append({"figure": label, "before": _fmt(key, self.before[key]), "after": _fmt(key, self.after[key])})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "game": self.original.name,
            "file": self.original.path,
            "mode": self.mode,
            "strip_set": self.strip_set,
            "target_rtp": self.target,
            "tolerance": self.tolerance,
            "reached": self.reached,
            "rtp": self.rtp,
            "rtp_ci95": self.rtp_ci95,
            "rtp_source": self.rtp_source,
            "vary": list(self.vary),
            "keep": [{"figure": k.metric, "low": k.low, "high": k.high, "holds": k.holds(self.after[k.metric])} for k in self.keeps],
            "before": self.before,
            "after": self.after,
            "stops_changed": len(self.changes),
            "changes": [{"strip_set": c.strip_set, "reel": c.reel, "stop": c.stop, "old": c.old, "new": c.new} for c in self.changes],
            "feature_terms": ({"ci95": self.terms.ci95, "seed": self.terms.seed, "precision": self.terms.precision,
                               "samples": self.terms.samples} if self.terms.present else None),
            "reestimated": (None if self.reestimated is None else
                            {"rtp": self.reestimated.rtp, "ci95": self.reestimated.rtp_ci95, "seed": self.reestimated.seed}),
            "steps": self.steps,
            "evaluations": self.evaluations,
            "elapsed_seconds": self.elapsed,
            "max_changes": self.max_changes,
        }


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------
@dataclass
class _Search:
    game: Game
    mode: str
    set_name: str
    vary: dict  # reel index (0-based) -> tuple of symbols that may change on that reel
    keeps: tuple
    target: float
    tolerance: float
    max_changes: int | None
    terms: FeatureTerms
    strata: bool
    progress: Callable | None
    evaluations: int = 0
    cache: dict = field(default_factory=dict)

    def strips(self, game: Game) -> list:
        return [list(r.symbols) for r in game.strip_sets[self.set_name].reels]

    def build(self, strips: list) -> Game:
        """The original game with ``strips`` on the tuned strip set (one edit per changed reel)."""
        game = self.game
        for i, (new, old) in enumerate(zip(strips, self.strips(self.game))):
            if new != old:
                game = game.with_strip(self.set_name, i + 1, new, self.game.strip_sets[self.set_name].reels[i].weights)
        return game

    def measure(self, strips: list) -> dict:
        key = tuple(tuple(s) for s in strips)
        if key not in self.cache:
            self.cache[key] = measure(self.build(strips), self.mode, self.terms, self.strata)
            self.evaluations += 1
            if self.progress is not None:
                self.progress(self.evaluations)
        return self.cache[key]

    # -- placing swaps on a strip ------------------------------------------
    def spots(self, strips: list, reel: int, old: str, new: str) -> list:
        """Stops of ``old`` on ``reel`` where ``new`` may go, best first: undoing an earlier change, then a stop
        already changed, then fewest neighbours equal to ``new`` (no stacks made by accident), then farthest
        from the other ``new`` stops (spread evenly), then the lowest stop; each keeps the strip valid."""
        strip = strips[reel]
        original = self.strips(self.game)[reel]
        n = len(strip)
        others = [k for k in range(n) if strip[k] == new]

        def score(k: int):
            revert = original[k] == new  # one stop fewer changed
            changed = original[k] != strip[k]  # no extra stop changed
            stacked = (strip[k - 1] == new) + (strip[(k + 1) % n] == new)
            gap = min((min(abs(k - j), n - abs(k - j)) for j in others), default=n)
            return (not revert, not changed, stacked, -gap, k)

        out = []
        weights = self.game.strip_sets[self.set_name].reels[reel].weights
        for k in sorted((k for k in range(n) if strip[k] == old), key=score):
            trial = list(strip)
            trial[k] = new
            try:
                self.game.with_strip(self.set_name, reel + 1, trial, weights)
            except ReelsetError:
                continue  # e.g. more of a symbol visible at once than its max_visible allows
            out.append(k)
        return out

    def place(self, strips: list, reel: int, old: str, new: str, at: int | None = None) -> list | None:
        """``strips`` with one stop of ``old`` on ``reel`` turned into ``new`` (at stop ``at``, default the best
        of :meth:`spots`), or None if no stop allows it."""
        if at is None:
            spots = self.spots(strips, reel, old, new)
            if not spots:
                return None
            at = spots[0]
        out = [list(s) for s in strips]
        out[reel][at] = new
        return out

    def apply(self, strips: list, deltas: dict, effects: dict, metrics: list) -> list | None:
        """``strips`` with the count changes ``deltas[(reel, symbol)]`` placed one swap at a time.

        Figures can depend on where a stop is, not only on counts (hit
        frequency, ways and pay-anywhere pays depend on whole windows), so each
        swap goes to the one of the best :data:`PLACES_TRIED` stops whose exact
        effect is closest to the planned one: the plan the integer programme
        made then holds.
        """
        out = [list(s) for s in strips]
        scales = [self.tolerance] + [max(k.half_width, 1e-12) for k in self.keeps]
        for reel in range(len(out)):
            minus = [s for s in self.vary.get(reel, ()) for _ in range(max(0, -deltas.get((reel, s), 0)))]
            plus = [s for s in self.vary.get(reel, ()) for _ in range(max(0, deltas.get((reel, s), 0)))]
            for old, new in zip(minus, plus):
                spots = self.spots(out, reel, old, new)
                if not spots:
                    return None
                if len(spots) > 1:
                    planned = effects.get((reel, new), 0) - effects.get((reel, old), 0)
                    now = self.measure(out)
                    best = None
                    for k in spots[:PLACES_TRIED]:
                        trial = self.place(out, reel, old, new, k)
                        m = self.measure(trial)
                        gap = sum(abs(m[x] - now[x] - planned[i]) / scales[i] for i, x in enumerate(metrics))
                        if best is None or gap < best[0]:
                            best = (gap, trial)
                    out = best[1]
                else:
                    out = self.place(out, reel, old, new, spots[0])
        return out

    # -- one step ----------------------------------------------------------
    def effects(self, strips: list, base: dict, metrics: list) -> dict:
        """Exact effect on ``metrics`` of one more stop of each varied symbol per reel, against
        one fewer of the reel's most common varied symbol (the effect of a swap a -> b is e[b] - e[a])."""
        out = {}
        for reel, symbols in self.vary.items():
            counts = Counter(strips[reel])
            ref = max(symbols, key=lambda s: (counts[s], -symbols.index(s)))
            out[(reel, ref)] = np.zeros(len(metrics))
            for s in symbols:
                if s == ref:
                    continue
                placed = self.place(strips, reel, ref, s)
                if placed is None:
                    continue  # no valid stop: this symbol does not move on this reel in this step
                m = self.measure(placed)
                out[(reel, s)] = np.array([m[k] - base[k] for k in metrics])
        return out

    def solve(self, strips: list, base: dict, effects: dict, *, drop: str | None = None,
              radius: int | None = None) -> tuple[dict, float] | None:
        """Count changes from ``strips`` with the fewest changed stops (against the original) whose linear effect
        lands in the bands; returns (changes, miss of the bands in penalty units) or None if the solver fails.
        ``drop`` leaves out one constraint (to find the one that binds); ``radius`` bounds each count's change
        from ``strips`` (a trust region: the linear model is good near where it was measured)."""
        original = self.strips(self.game)
        keys = sorted(effects)
        n = len(keys)
        bands = [("rtp", self.target - self.tolerance * BAND_MARGIN, self.target + self.tolerance * BAND_MARGIN, RTP_PENALTY)]
        for k in self.keeps:
            if drop != f"keep:{k.metric}":
                margin = k.half_width * (1 - BAND_MARGIN)
                bands.append((k.metric, k.low + margin, k.high - margin, KEEP_PENALTY))
        metrics = self._metrics()
        m = len(bands)
        # variables: d (n, integer), u (n), v (n), slack below (m), slack above (m), w (n) >= |d|,
        # z (one per reel, binary): the reel this step changes.  One reel per step, because on one reel the
        # effects add up exactly (line pays are linear in each reel's symbol counts); across reels they multiply
        reel_ids = sorted({r for r, _ in keys})
        nz = len(reel_ids)
        nv = 4 * n + 2 * m + nz
        c = np.zeros(nv)
        c[n:3 * n] = 0.5  # u + v = |new count - original count|; a swap moves two counts
        c[3 * n + 2 * m:] = MOVE_COST  # ... and, a little, moves from where the effects were measured
        lower = np.zeros(nv)
        upper = np.full(nv, np.inf)
        for j, (reel, s) in enumerate(keys):
            now = Counter(strips[reel])[s]
            floor = 0 if drop == "counts" else (1 if Counter(original[reel])[s] > 0 else 0)
            lower[j] = floor - now
            upper[j] = len(strips[reel])
            lower[j] = min(lower[j], 0)
            if radius is not None:
                lower[j] = max(lower[j], -radius)
                upper[j] = min(upper[j], radius)
        rows, lo, hi = [], [], []
        for reel in sorted({r for r, _ in keys}):
            row = np.zeros(nv)
            for j, (r, _) in enumerate(keys):
                if r == reel:
                    row[j] = 1
            rows.append(row)
            lo.append(0)
            hi.append(0)
        for j, (reel, s) in enumerate(keys):  # now + d - original = u - v
            row = np.zeros(nv)
            row[j] = 1
            row[n + j] = -1
            row[2 * n + j] = 1
            rows.append(row)
            target = Counter(original[reel])[s] - Counter(strips[reel])[s]
            lo.append(target)
            hi.append(target)
        for b, (metric, low, high, penalty) in enumerate(bands):
            scale = max((high - low) / 2, 1e-12)
            idx = metrics.index(metric)
            row = np.zeros(nv)
            for j, key in enumerate(keys):
                row[j] = effects[key][idx] / scale
            row[3 * n + b] = 1  # slack below
            row[3 * n + m + b] = -1  # slack above
            rows.append(row)
            lo.append((low - base[metric]) / scale)
            hi.append((high - base[metric]) / scale)
            c[3 * n + b] = penalty
            c[3 * n + m + b] = penalty
        for j, (reel, _) in enumerate(keys):  # w >= d, w >= -d, w <= (reel length) z[reel]
            for sign in (1, -1):
                row = np.zeros(nv)
                row[j] = sign
                row[3 * n + 2 * m + j] = -1
                rows.append(row)
                lo.append(-np.inf)
                hi.append(0)
            row = np.zeros(nv)
            row[3 * n + 2 * m + j] = 1
            row[4 * n + 2 * m + reel_ids.index(reel)] = -len(strips[reel])
            rows.append(row)
            lo.append(-np.inf)
            hi.append(0)
        row = np.zeros(nv)
        row[4 * n + 2 * m:] = 1
        rows.append(row)
        lo.append(0)
        hi.append(REELS_PER_STEP)
        upper[4 * n + 2 * m:] = 1
        if self.max_changes is not None and drop != "max_changes":
            row = np.zeros(nv)
            row[n:2 * n] = 1
            rows.append(row)
            lo.append(0)
            hi.append(self.max_changes)
        integrality = np.zeros(nv)
        integrality[:3 * n] = 1
        integrality[4 * n + 2 * m:] = 1
        res = milp(c, constraints=LinearConstraint(np.array(rows), lo, hi), integrality=integrality,
                   bounds=Bounds(lower, upper), options={"time_limit": MILP_SECONDS, "mip_rel_gap": 0.02})
        if res.x is None:
            return None
        x = res.x
        changes = {key: int(round(x[j])) for j, key in enumerate(keys) if round(x[j]) != 0}
        return changes, float(sum(c[3 * n + b] * (x[3 * n + b] + x[3 * n + m + b]) for b in range(m)))

    def _metrics(self) -> list:
        return ["rtp"] + [k.metric for k in self.keeps]

    def changed(self, strips: list) -> int:
        return sum(a != b for new, old in zip(strips, self.strips(self.game)) for a, b in zip(new, old))

    def miss(self, m: dict) -> float:
        """How far the figures are from their bands, in units of each band's half-width (0 = all in)."""
        out = max(0.0, abs(m["rtp"] - self.target) - self.tolerance) / self.tolerance * RTP_PENALTY
        for k in self.keeps:
            gap = max(0.0, k.low - m[k.metric], m[k.metric] - k.high)
            out += gap / max(k.half_width, 1e-12) * KEEP_PENALTY
        return out


def _resolve_vary(game: Game, strip_set: str, vary: Iterable[str] | None) -> dict:
    reels = game.strip_sets[strip_set].reels
    special = set()
    for group in game.scatters.values():
        special.update(getattr(group, "symbols", ()) or ())
    for name, sym in game.symbols.items():
        if sym.kind in ("wild", "scatter", "bonus"):
            special.add(name)
    if vary is None:
        wanted = [n for n, s in game.symbols.items() if n not in special and s.height == 1]
    else:
        wanted = list(dict.fromkeys(vary))
        for name in wanted:
            if name not in game.symbols:
                hint = difflib.get_close_matches(name, list(game.symbols), n=1)
                raise TuningError(f"{game.path or game.name}: --vary names unknown symbol {name!r}"
                                  + (f" (did you mean {hint[0]!r}?)" if hint else ""))
            if game.symbols[name].height != 1:
                raise TuningError(f"{game.path or game.name}: --vary {name}: {name} is a tall symbol (height "
                                  f"{game.symbols[name].height}); the tuner swaps single stops, so tall symbols stay as they are")
    out = {}
    for i, strip in enumerate(reels):
        present = [s for s in wanted if s in strip.symbols]
        if len(present) >= 2:
            out[i] = tuple(present)
    if not out:
        raise TuningError(f"{game.path or game.name}: strip set {strip_set!r}: no reel holds two of the symbols to vary "
                          f"({', '.join(wanted) or 'none'}), so no stop can be swapped")
    return out


def _default_strip_set(game: Game, mode: str) -> str:
    sets = [s for s in game.strip_sets_for(mode) if s.weight > 0]
    if not sets:
        raise TuningError(f"{game.path or game.name}: no strip set has mode {mode!r} (modes: {', '.join(game.modes)})")
    names = [s.name for s in sets]
    return mode if mode in names else names[0]


def tune(
    game: Game,
    target_rtp: float,
    *,
    mode: str = "base",
    strip_set: str | None = None,
    keep: Iterable[str | Keep] = (),
    vary: Iterable[str] | None = None,
    max_changes: int | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    terms: FeatureTerms | None = None,
    precision: float = 0.001,
    seed: int = 1,
    reestimate: bool = False,
    max_steps: int = DEFAULT_MAX_STEPS,
    progress: Callable[[int], None] | None = None,
) -> TuneResult:
    """Change as few stops of ``strip_set`` as needed for the whole-game RTP to be ``target_rtp`` ± ``tolerance``.

    ``target_rtp`` and ``tolerance`` are fractions (0.9618, 0.0001) of total
    bet.  ``keep`` holds figures in bands (:func:`parse_keep` strings or
    :class:`Keep`); ``vary`` the symbols whose counts may change (default: every
    one-stop symbol that is not a wild, scatter or bonus symbol; a reel keeps at
    least one of each it had); ``max_changes`` caps the stops changed.  Feature
    terms are held from ``terms`` (default: estimated once at ``precision`` with
    ``seed``); with ``reestimate`` the result is estimated end to end again.
    ``progress(evaluations)`` is called after each exact evaluation.

    Raises :class:`~workbench.errors.TargetUnreachableError` (naming the binding
    constraint, with the closest result) if no edit reaches the bands, and
    :class:`~workbench.errors.TuningError` for a bad request.
    """
    start = time.perf_counter()
    try:
        target = float(target_rtp)
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise TuningError(f"target RTP and tolerance must be numbers, got {target_rtp!r} and {tolerance!r}") from None
    if not 0 < target < 10 or not 0 < tolerance < 1:
        raise TuningError(f"target RTP must be a fraction of total bet (0.9618 for 96.18 %), got {target_rtp!r}; "
                          f"tolerance a fraction above 0, got {tolerance!r}")
    if max_changes is not None and (isinstance(max_changes, bool) or int(max_changes) != max_changes or max_changes < 1):
        raise TuningError(f"--max-changes must be a whole number of stops, 1 or more, got {max_changes!r}")
    if mode not in game.modes:
        raise TuningError(f"{game.path or game.name}: no mode {mode!r} (modes: {', '.join(game.modes)})")
    set_name = strip_set or _default_strip_set(game, mode)
    if set_name not in game.strip_sets:
        hint = difflib.get_close_matches(set_name, list(game.strip_sets), n=1)
        raise TuningError(f"{game.path or game.name}: no strip set {set_name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                          + f"; strip sets: {', '.join(game.strip_sets)}")
    if game.strip_sets[set_name].mode != mode:
        raise TuningError(f"{game.path or game.name}: strip set {set_name!r} is of mode {game.strip_sets[set_name].mode!r}, "
                          f"not {mode!r}: pass --mode {game.strip_sets[set_name].mode}")
    vary_map = _resolve_vary(game, set_name, vary)
    if terms is None:
        terms = FeatureTerms.estimate(game, precision, seed)
    varied = {s for symbols in vary_map.values() for s in symbols}
    trigger_symbols = {s for g in game.scatters.values() for s in (getattr(g, "symbols", ()) or ())}
    trigger_symbols |= {n for n, s in game.symbols.items() if s.kind in ("scatter", "bonus")}
    strata = terms.present and bool(varied & trigger_symbols)
    search = _Search(game, mode, set_name, vary_map, (), target, tolerance, None if max_changes is None else int(max_changes),
                     terms, strata, progress)
    strips0 = search.strips(game)
    before = search.measure(strips0)
    keeps = tuple(k if isinstance(k, Keep) else parse_keep(k, before) for k in keep)
    search.keeps = keeps
    metrics = search._metrics()

    strips, current = strips0, before
    best = (search.miss(before), 0, strips0, before)
    radius = None  # no bound at first; halved (back at the best point) after two steps that do not improve it
    strips, current = strips0, before
    worse = 0
    steps = 0
    for steps in range(1, max_steps + 1):
        if best[0] == 0:
            break
        effects = search.effects(strips, current, metrics)
        solved = search.solve(strips, current, effects, radius=radius)
        new = search.apply(strips, solved[0], effects, metrics) if solved and solved[0] else None
        if new is not None and new != strips:
            m = search.measure(new)
            score = (search.miss(m), search.changed(new))
            if score < best[:2]:
                best = (*score, new, m)
                strips, current, worse = new, m, 0
                continue
            worse += 1
            if worse < 2:
                strips, current = new, m  # a Newton step may pass through a worse point
                continue
        elif radius == 1:
            break
        largest = max((abs(v) for v in solved[0].values()), default=2) if solved and solved[0] else 2
        radius = max(1, (radius or largest) // 2)
        strips, current, worse = best[2], best[3], 0
    strips = best[2]
    after = search.measure(strips)
    tuned = search.build(strips)
    result = TuneResult(
        game=tuned, original=game, target=target, tolerance=tolerance, mode=mode, strip_set=set_name,
        vary=tuple(sorted(varied, key=list(game.symbols).index)), keeps=keeps, before=before, after=after,
        changes=_changes(set_name, strips0, strips), terms=terms, steps=steps, evaluations=search.evaluations,
        elapsed=time.perf_counter() - start, max_changes=search.max_changes,
    )
    if not result.reached:
        binding, closest = _binding(search, strips, after, metrics)
        raise TargetUnreachableError(_unreachable_message(result, binding, closest), binding, result)
    if reestimate and terms.present:
        est = estimate_rtp(tuned, terms.precision, terms.seed)
        result = _replace_result(result, reestimated=est, elapsed=time.perf_counter() - start)
    return result


def _replace_result(result: TuneResult, **changes) -> TuneResult:
    from dataclasses import replace

    return replace(result, **changes)


def _changes(set_name: str, old: list, new: list) -> tuple:
    return tuple(StopChange(set_name, i + 1, k + 1, a, b) for i, (so, sn) in enumerate(zip(old, new))
                 for k, (a, b) in enumerate(zip(so, sn)) if a != b)


def _binding(search: _Search, strips: list, current: dict, metrics: list) -> tuple[str, None]:
    """What stops the search: ``search`` if the linear model at the closest point still sees a way (so nothing is
    proven), else the constraint whose removal halves the miss of the bands (``keep:NAME``, ``max_changes``,
    ``counts``), else ``vary`` (the allowed symbols cannot move the figures far enough)."""
    effects = search.effects(strips, current, metrics)
    candidates = [f"keep:{k.metric}" for k in search.keeps]
    if search.max_changes is not None:
        candidates.append("max_changes")
    candidates.append("counts")
    base = search.solve(strips, current, effects)
    if base is None or base[1] < 1e-6:
        return "search", None  # the linear model still sees a way: not proven unreachable
    for name in candidates:
        solved = search.solve(strips, current, effects, drop=name)
        if solved is not None and solved[1] < 0.5 * base[1]:
            return name, None
    return "vary", None


def _unreachable_message(result: TuneResult, binding: str, _closest) -> str:
    where = f"{result.original.path or result.original.name}"
    reach = (f"the closest reachable RTP is {result.rtp * 100:.4f} %"
             + (f" ± {result.rtp_ci95 * 100:.4f} %" if result.rtp_ci95 else "")
             + f" ({len(result.changes)} stop(s) changed)")
    failed = [k.describe() for k in result.keeps if not k.holds(result.after[k.metric])]
    if binding.startswith("keep:"):
        keep = next(k for k in result.keeps if k.metric == binding[5:])
        why = f"--keep {keep.text} binds ({keep.describe()})"
    elif binding == "max_changes":
        why = f"--max-changes {result.max_changes} binds (at most {result.max_changes} stop(s) may change)"
    elif binding == "search":
        why = (f"no edit was found in {result.steps} steps ({result.evaluations} exact evaluations), though the "
               "linear model near the closest point does not rule one out: widen the tolerance, allow more steps "
               "(max_steps) or vary other symbols")
    elif binding == "counts":
        why = "the symbol counts bind: every reel keeps at least one of each varied symbol it had"
    else:
        why = (f"the varied symbols ({', '.join(result.vary)}) cannot move the RTP further on strip set "
               f"{result.strip_set!r}: vary more symbols (--vary) or another strip set")
    text = f"{where}: target RTP {result.target * 100:.4f} % ± {result.tolerance * 100:.4f} % cannot be reached: {why}; {reach}"
    if failed:
        text += "; out of band: " + ", ".join(failed)
    return text


def tune_versions(game: Game, targets: Iterable[float], **options) -> list[TuneResult]:
    """One :func:`tune` per target, each from ``game`` itself (so the versions differ only in the allowed
    variables), sharing one estimate of the feature terms."""
    targets = list(targets)
    if not targets:
        raise TuningError("give at least one target RTP")
    if options.get("terms") is None:
        options["terms"] = FeatureTerms.estimate(game, options.get("precision", 0.001), options.get("seed", 1))
    return [tune(game, t, **options) for t in targets]


def versions_table(results: list[TuneResult]) -> pd.DataFrame:
    """The versions side by side: RTP (whole game, with its source), base game RTP, hit frequency, volatility
    index 90 %, each trigger's rate, max win and the stops changed; formatted as text a lab reads."""
    columns = {}
    for r in results:
        col = {
            "RTP, whole game": _fmt("rtp", r.rtp) + (f" ± {r.rtp_ci95 * 100:.4f} %" if r.rtp_ci95 else " (exact)"),
            "RTP, base game (exact)": _fmt("rtp", r.after["base_rtp"]),
            "hit frequency, base game": _fmt("hit_frequency", r.after["hit_frequency"]),
            "volatility index 90 %, base game": _fmt("std", r.after["volatility_index_90"]),
        }
        for key, value in r.after.items():
            if key.startswith("trigger:"):
                col[f"trigger {key[8:]} (per spin)"] = _fmt(key, value)
        col["max win, base game (x total bet)"] = f"{r.after['max_win']:,.2f}"
        col["stops changed"] = f"{len(r.changes):,}"
        columns[f"target {r.target * 100:.2f} %"] = col
    frame = pd.DataFrame(columns)
    frame.index.name = None
    return frame


def version_path(path, target: float):
    """``NAME_rtpXXXX.toml`` beside ``path`` (XXXX: the target in hundredths of a percent)."""
    from pathlib import Path

    p = Path(path)
    return p.with_name(f"{p.stem}_rtp{round(target * 10000):04d}{p.suffix or '.toml'}")


# ---------------------------------------------------------------------------
# building strips from counts
# ---------------------------------------------------------------------------
def spread_strip(counts: dict, heights: dict | None = None, seed: int = 0) -> list:
    """A strip with ``counts[key]`` blocks of each symbol, evenly spread.

    A key is a symbol name (one instance: ``heights[symbol]`` stops for a tall
    symbol) or ``"SYMBOL*k"`` (a stack of k instances on consecutive stops).
    Each block gets an ideal position ``(k + offset) / count`` around the
    strip and blocks are laid out in that order (ties broken by a seeded
    shuffle); then neighbouring blocks of the same symbol are separated where a
    swap allows it, so stacks are only ever made on purpose.
    """
    heights = heights or {}
    rng = random.Random(seed)
    items = []
    for key, count in counts.items():
        if count <= 0:
            continue
        symbol, _, stack = key.partition("*")
        length = heights.get(symbol, 1) * (int(stack) if stack else 1)
        offset = rng.random()
        for k in range(count):
            items.append(((k + offset) / count, rng.random(), symbol, length))
    items.sort()
    blocks = [(symbol, length) for _, _, symbol, length in items]
    n = len(blocks)
    for i in range(n):
        a, b = blocks[i], blocks[(i + 1) % n]
        if a[0] != b[0]:
            continue
        for j in range(n):
            c = blocks[j]
            if c[0] != a[0] and blocks[j - 1][0] != a[0] and blocks[(j + 1) % n][0] != a[0] \
                    and blocks[i][0] != c[0] and blocks[(i + 2) % n][0] != c[0]:
                blocks[(i + 1) % n], blocks[j] = c, b
                break
    strip: list = []
    for symbol, length in blocks:
        strip.extend([symbol] * length)
    return strip


def with_counts(game: Game, strip_set: str, counts_per_reel: list, seed: int = 0) -> Game:
    """``game`` with every reel of ``strip_set`` rebuilt from symbol counts (one dict per reel)."""
    heights = {name: sym.height for name, sym in game.symbols.items()}
    for reel, counts in enumerate(counts_per_reel, start=1):
        game = game.with_strip(strip_set, reel, spread_strip(counts, heights, seed + reel))
    return game


def scale_to_rtp(evaluate: Callable[[float], float], target: float, low: float, high: float, tolerance: float = 1e-6) -> float:
    """Factor ``x`` in [low, high] with ``evaluate(x) == target`` (bisection; evaluate must increase with x)."""
    lo, hi = low, high
    for _ in range(100):
        mid = (lo + hi) / 2
        if evaluate(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < tolerance:
            break
    return (lo + hi) / 2
