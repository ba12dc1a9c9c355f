"""What the tuner reports: the changes, the confirmation of the tuned file's RTP, the result of one target.

A :class:`TuneResult` holds the tuned game, the figures before and after
(the search's: exact, with the held feature terms), every stop and weight
changed and the :class:`Confirmation`: the tuned file's RTP checked on its
own (exactly, or by an independent exact + conditional estimate).  Only a
confirmed result is *reached*; docs/tuning.md says exactly what that means.
"""

from __future__ import annotations

import difflib
import math
import shlex
from dataclasses import dataclass, field

import pandas as pd

from ..io import Saved, render_text, save_game
from ..model import Game
from .figures import FeatureTerms, _fmt

#: what a result is: confirmed in its band; tuned but not confirmed; the search missed the band
STATUSES = ("reached", "not confirmed", "not reached")


# ---------------------------------------------------------------------------
# the changes
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
class WeightChange:
    """One weight the tuner changed: a stop weight, a table entry's weight or a strip set's choice weight."""

    where: str  # "base reel 2", "table base_random_feature", "mode base strip sets"
    item: str  # "stop 7", "entry 2 (feature = beer_reels)", "base_bonus"
    old: int
    new: int

    def __str__(self) -> str:
        return f"{self.where} {self.item}: weight {self.old:,} -> {self.new:,}"


# ---------------------------------------------------------------------------
# the confirmation
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Confirmation:
    """The tuned file's RTP, checked independently of the figures the search aimed with.

    ``rtp`` and ``ci95`` (its 95 % half-width; 0 when ``exact``) are x the cost
    of bet mode ``bet_mode`` (x total bet in the base game).  ``exact``: the
    RTP is the exact PAR's (no simulated feature), nothing was simulated.
    Otherwise it is a fresh exact + conditional estimate of the tuned game
    (:func:`workbench.simulate.estimate_rtp`) seeded with ``seed``, asked for a
    half-width of ``precision`` within ``max_seconds``; ``rounds`` were
    simulated in ``seconds``; ``stopped_early``: the time box (or a stop
    signal) ended it before that precision.  :attr:`confirmed`: the RTP is
    within ``tolerance`` of ``target`` and its half-width is at most
    ``tolerance``.
    """

    target: float
    tolerance: float
    rtp: float
    ci95: float
    exact: bool
    how: str
    bet_mode: str = "base"
    seed: int | None = None
    precision: float | None = None
    rounds: int = 0
    seconds: float = 0.0
    stopped_early: bool = False
    max_seconds: float | None = None
    par_mode: str | None = None  # exact per-spin figure of this strip-set mode (feature terms left out)
    estimate: object = field(default=None, compare=False, repr=False)  # the RtpEstimate, when one was made

    @property
    def confirmed(self) -> bool:
        return abs(self.rtp - self.target) <= self.tolerance + 1e-12 and self.ci95 <= self.tolerance + 1e-15

    @property
    def within(self) -> float:
        """How far from the target the RTP can be, on this evidence (95 %): |rtp - target| + half-width."""
        return abs(self.rtp - self.target) + self.ci95

    def command(self, file: str = "FILE") -> str:
        """The command that checks the same figure of the tuned file (the same estimate: same seed and precision)."""
        path = shlex.quote(str(file))
        mode = f" --bet-mode {shlex.quote(self.bet_mode)}" if self.bet_mode != "base" else ""
        if self.par_mode is not None:
            return f"workbench par {path}" + (f" --mode {shlex.quote(self.par_mode)}" if self.par_mode != "base" else "")
        if self.exact:
            return f"workbench rtp {path}{mode}"
        return f"workbench rtp {path}{mode} --precision {self.precision:g} --seed {self.seed}"

    def describe(self) -> str:
        """One line: the figure and how it was found."""
        if self.exact:
            return f"{self.rtp * 100:.4f} % ({self.how})"
        return (f"{self.rtp * 100:.4f} % ± {self.ci95 * 100:.4f} % (95 %; {self.how}, seed {self.seed}, "
                f"{self.rounds:,} rounds in {self.seconds:.1f} s"
                + (f", stopped at its time box of {self.max_seconds:g} s" if self.stopped_early else "") + ")")

    def to_dict(self, file: str = "FILE") -> dict:
        return {"confirmed": self.confirmed, "exact": self.exact, "how": self.how, "bet_mode": self.bet_mode,
                "rtp": self.rtp, "ci95": self.ci95, "target_rtp": self.target, "tolerance": self.tolerance,
                "within": self.within, "seed": self.seed, "precision": self.precision, "rounds": self.rounds,
                "seconds": self.seconds, "stopped_early": self.stopped_early, "max_seconds": self.max_seconds,
                "command": self.command(file)}


# ---------------------------------------------------------------------------
# the result of one target
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TuneResult:
    """What :func:`~workbench.tuning.tune` found for one target.

    ``game`` is the tuned game as the original was loaded (its edits apply to
    the original file text, so :meth:`save` rewrites only the changed strips);
    ``before``/``after`` the search's figures (:func:`~workbench.tuning.measure`;
    ``rtp`` x the cost of bet mode ``bet_mode``: exact base game + held
    feature terms); ``confirmation`` the tuned file's RTP checked on its own.
    ``rtp``/``rtp_ci95`` are the confirmation's when there is one, else the
    search's; :attr:`reached` is True only when the confirmation confirms the
    target and every kept figure holds; :attr:`status` says which of
    "reached", "not confirmed" and "not reached" the result is.
    ``search_rounds`` searches were made (each after the first aimed with the
    feature terms of the previous confirmation's estimate), ``history`` has
    one entry per round.  ``reestimated`` is the confirmation's estimate.
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
    weight_changes: tuple = ()  # WeightChange, one per weight changed
    notes: tuple = ()  # what the tuner did besides the changes (weights rescaled...)
    varied_weights: tuple = ()  # labels of the weight groups that could change
    bet_mode: str = "base"
    confirmation: Confirmation | None = None
    search_rounds: int = 1
    history: tuple = ()  # one dict per search round
    unit: str = "x total bet"
    state_probabilities: dict | None = None  # the trigger states' exact probabilities in the tuned game (None: as held)

    # -- what it reached ---------------------------------------------------------
    @property
    def keeps_hold(self) -> bool:
        return all(k.holds(self.after[k.metric]) for k in self.keeps)

    @property
    def in_band(self) -> bool:
        """The search's own figures (exact + held feature terms) are in every band."""
        return abs(self.after["rtp"] - self.target) <= self.tolerance + 1e-12 and self.keeps_hold

    @property
    def confirmed(self) -> bool:
        return self.confirmation is not None and self.confirmation.confirmed

    @property
    def reached(self) -> bool:
        """Confirmed: the tuned file's RTP, checked on its own, is within the tolerance (and so is the check's
        half-width), and every kept figure holds (exact)."""
        return self.confirmed and self.keeps_hold

    @property
    def status(self) -> str:
        if self.reached:
            return "reached"
        return "not confirmed" if self.in_band else "not reached"

    @property
    def rtp(self) -> float:
        return self.confirmation.rtp if self.confirmation is not None else self.after["rtp"]

    @property
    def rtp_ci95(self) -> float:
        if self.confirmation is not None:
            return self.confirmation.ci95
        return self.terms.ci95 if self.terms.present else 0.0

    @property
    def search_source(self) -> str:
        """Where the search's RTP comes from."""
        if self.terms.left_out:
            if self.mode != "base":
                return f"exact, per spin of mode {self.mode}"
            return "exact, base game only: feature terms left out"
        if self.terms.proxy is not None:
            return f"held feature estimate, moved by {self.terms.proxy.short()}"
        return "exact + held feature estimate" if self.terms.present else "exact"

    @property
    def rtp_source(self) -> str:
        """Where :attr:`rtp` comes from."""
        if self.confirmation is None or self.confirmation.exact:
            return self.search_source
        return f"re-estimated: exact + conditional, seed {self.confirmation.seed}"

    # -- the file ----------------------------------------------------------------
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

    # -- as a lab reads it -------------------------------------------------------
    def _where(self) -> str:
        if self.mode != "base":
            return f"a spin of strip-set mode {self.mode}"
        if self.bet_mode == "base":
            return "base game"
        if self.game.bet_mode.buy or self.original.all_bet_modes.get(self.bet_mode, self.game.bet_mode).buy:
            return f"a base spin (not played: bet mode {self.bet_mode} buys its feature)"
        return f"a paid spin of bet mode {self.bet_mode}"

    def table(self) -> pd.DataFrame:
        """Figures before and after (the search's), formatted as a lab reads them."""
        where = self._where()
        if self.mode != "base" and self.terms.left_out:
            rtp = f"RTP per spin of mode {self.mode} (exact)"
        elif self.terms.left_out:
            rtp = "RTP, base game only (exact; feature terms left out)"
        elif self.bet_mode != "base":
            rtp = f"RTP of bet mode {self.bet_mode} ({self.search_source})"
        else:
            rtp = f"RTP, whole game ({self.search_source})"
        labels = {"rtp": rtp, "base_rtp": f"RTP, {where} (exact)", "hit_frequency": f"hit frequency, {where}",
                  "std": f"standard deviation, {where} (x total bet)", "volatility_index_90": f"volatility index 90 %, {where}",
                  "volatility_index_95": f"volatility index 95 %, {where}", "max_win": f"max win, {where} (x total bet)"}
        rows = []
        for key in self.before:
            label = labels.get(key, f"trigger {key[8:]} (per spin)" if key.startswith("trigger:") else key)
            rows.append({"figure": label, "before": _fmt(key, self.before[key]), "after": _fmt(key, self.after[key])})
        return pd.DataFrame(rows)

    def status_line(self, file: str | None = None) -> str:
        """One line: reached (confirmed), not confirmed (within ± x of the target) or not reached."""
        c = self.confirmation
        if self.reached:
            return f"REACHED (confirmed): {c.describe()}"
        if not self.in_band:
            return f"NOT REACHED: the search's figures are out of band ({_fmt('rtp', self.after['rtp'])})"
        if not self.keeps_hold:
            return "NOT REACHED: a kept figure is out of its band"
        if c is None:
            return ("NOT CONFIRMED: the search reached its band with the held feature terms, but the tuned file was not "
                    "re-estimated")
        if not math.isfinite(c.within):
            return (f"NOT CONFIRMED: the re-estimate of the tuned file did not finish a batch of every trigger state "
                    f"within its time box of {c.max_seconds:g} s; run it without one: `{c.command(file or 'FILE')}`")
        why = ("its half-width is above the tolerance: the same estimate run to its precision (no time box) confirms "
               "or refutes it" if c.ci95 > self.tolerance else "it is precise but off target after every round allowed")
        return (f"NOT CONFIRMED: within ± {c.within * 100:.4f} % of the target, not confirmed (95 %; the re-estimate "
                f"must be within ± {self.tolerance * 100:.4f} % with a half-width at most that): {c.describe()}; {why}: "
                f"`{c.command(file or 'FILE')}`")

    def lines(self, file: str | None = None) -> list[str]:
        """The result as text (what ``workbench tune`` prints for one target, after its heading)."""
        out = [self.status_line(file)]
        c = self.confirmation
        if c is not None and self.reached and not c.exact:
            out.append(f"  the same estimate: `{c.command(file or 'FILE')}`")
        out.append(f"search: {self.search_rounds} round(s); {len(self.changes)} stop(s) and {len(self.weight_changes)} "
                   f"weight(s) changed; {self.evaluations} exact evaluations; {self.elapsed:.1f} s in all")
        for h in (self.history if self.terms.present and not self.terms.left_out else ()):
            conf = h.get("confirmation")
            out.append(f"  round {h['round']}: aimed at {_fmt('rtp', h['aimed_rtp'])} with the terms of seed {h['terms_seed']}"
                       + (f"; re-estimated {conf['rtp'] * 100:.4f} % ± {conf['ci95'] * 100:.4f} % (seed {conf['seed']})"
                          if conf and not conf["exact"] else ""))
        out += self.terms.lines(self.state_probabilities)
        return out

    def to_dict(self, file: str | None = None) -> dict:
        probs = self.state_probabilities
        return {
            "game": self.original.name,
            "file": self.original.path,
            "bet_mode": self.bet_mode,
            "unit": self.unit,
            "mode": self.mode,
            "strip_set": self.strip_set,
            "target_rtp": self.target,
            "tolerance": self.tolerance,
            "status": self.status,
            "reached": self.reached,
            "confirmed": self.confirmed,
            "in_band": self.in_band,
            "rtp": self.rtp,
            "rtp_ci95": self.rtp_ci95,
            "rtp_source": self.rtp_source,
            "search_rtp": self.after["rtp"],
            "search_source": self.search_source,
            "confirmation": None if self.confirmation is None else self.confirmation.to_dict(file or "FILE"),
            "vary": list(self.vary),
            "keep": [{"figure": k.metric, "low": k.low, "high": k.high, "holds": k.holds(self.after[k.metric])} for k in self.keeps],
            "before": self.before,
            "after": self.after,
            "stops_changed": len(self.changes),
            "varied_weights": list(self.varied_weights),
            "weights_changed": len(self.weight_changes),
            "weight_changes": [{"where": c.where, "item": c.item, "old": c.old, "new": c.new} for c in self.weight_changes],
            "changes": [{"strip_set": c.strip_set, "reel": c.reel, "stop": c.stop, "old": c.old, "new": c.new} for c in self.changes],
            "feature_terms": self.terms.to_dict(probs) if self.terms.present else None,
            "reestimated": (None if self.reestimated is None else
                            {"rtp": self.reestimated.rtp, "ci95": self.reestimated.rtp_ci95, "seed": self.reestimated.seed}),
            "search_rounds": self.search_rounds,
            "history": list(self.history),
            "steps": self.steps,
            "evaluations": self.evaluations,
            "elapsed_seconds": self.elapsed,
            "max_changes": self.max_changes,
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------
# several versions side by side
# ---------------------------------------------------------------------------
def versions_table(results: list[TuneResult]) -> pd.DataFrame:
    """The versions side by side: RTP (whole game, with its source), base game RTP, hit frequency, volatility
    index 90 %, each trigger's rate, max win and the stops changed; formatted as text a lab reads."""
    columns = {}
    for r in results:
        col = {
            "status": r.status,
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

