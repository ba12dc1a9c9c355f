"""Several targets in one run: every bet mode of a game within a narrow band of its RTP.

``workbench tune GAME --target base=96% --target bonus_buy=96%±0.3%``: each
target names a bet mode, its RTP (x that mode's own cost) and optionally its
tolerance.  :func:`tune_targets` tunes them one after the other on one file,
each with the variables only it needs (:func:`~workbench.tuning.modes.plan_mode`'s
defaults: the base game's strips, an ante's own strips, a bought feature's
strips), in an order where no target changes what an earlier one plays
(:func:`~workbench.tuning.modes.order_targets`): a buy whose feature strips
the base game's features also play is tuned first, then the base game with
its feature terms re-estimated on the tuned feature strips.  So each target's
confirmation holds for the final file.  Targets that each change what the
other plays are refused with a message.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..errors import TargetUnreachableError, TuningError
from ..io import Saved, render_text, save_game
from ..model import Game
from .confirm import tune
from .modes import order_targets, plan_mode
from .result import STATUSES

_TARGET_RE = re.compile(r"^\s*([A-Za-z_][\w.:-]*)\s*=\s*([^±+]+?)\s*(?:(?:±|\+-|\+/-)\s*([^%]+?)\s*(%?))?\s*$")


@dataclass(frozen=True)
class ModeTarget:
    """One ``--target``: bet mode ``bet_mode``'s RTP (x its own cost) to be ``rtp`` ± ``tolerance`` (fractions;
    ``tolerance`` None: :func:`~workbench.tuning.confirm.default_tolerance`)."""

    bet_mode: str
    rtp: float
    tolerance: float | None
    text: str


def _fraction(text: str, where: str, what: str) -> float:
    text = text.strip()
    percent = text.endswith("%")
    try:
        value = float(text[:-1] if percent else text)
    except ValueError:
        raise TuningError(f"{where}: {what} {text!r} is not a number (write 0.96 or 96%)") from None
    return value / 100 if percent else value


def parse_target(text: str) -> ModeTarget:
    """A :class:`ModeTarget` from ``NAME=RTP`` or ``NAME=RTP±TOL`` (``+-`` for ±): RTP as 0.96 or 96%, TOL as
    0.003 or 0.3% (percentage points of RTP: 96%±0.3% is 95.7 % to 96.3 %)."""
    where = f"--target {text!r}"
    match = _TARGET_RE.match(text)
    if not match:
        raise TuningError(f"{where}: write MODE=RTP or MODE=RTP±TOL, e.g. base=96% or bonus_buy=0.96±0.003")
    name, rtp_text, tol_text, tol_percent = match.groups()
    rtp = _fraction(rtp_text, where, "RTP")
    if not rtp_text.strip().endswith("%") and rtp > 2:
        raise TuningError(f"{where}: RTP {rtp_text.strip()!r} looks like a percentage: write 0.96 or 96%")
    if not 0 < rtp < 10:
        raise TuningError(f"{where}: RTP must be above 0 (x the mode's cost), as 0.96 or 96%")
    tolerance = None
    if tol_text is not None:
        tolerance = _fraction(tol_text + (tol_percent or ""), where, "tolerance")
        if not 0 < tolerance < 1:
            raise TuningError(f"{where}: the tolerance must be above 0 and below 1 (0.003 or 0.3%)")
    return ModeTarget(name, rtp, tolerance, text.strip())


@dataclass(frozen=True)
class TargetsResult:
    """What :func:`tune_targets` did: one :class:`~workbench.tuning.TuneResult` per target in the order tuned
    (``messages``: None, or why the target cannot be reached: its result is then the closest, not applied);
    ``game``: the final game (every target's edits that reached its band, confirmed or not)."""

    results: tuple
    messages: tuple
    game: Game
    original: Game
    notes: tuple = field(default=())

    @property
    def order(self) -> tuple:
        return tuple(r.bet_mode for r in self.results)

    @property
    def reached(self) -> bool:
        return all(r.reached for r in self.results)

    @property
    def status(self) -> str:
        """The worst status of the targets ("reached" only when every one is)."""
        return max((r.status for r in self.results), key=STATUSES.index, default="reached")

    @property
    def text(self) -> str:
        return render_text(self.game)

    def save(self, path, *, force: bool = False) -> Saved:
        """Write the final game to ``path`` (validated, atomic)."""
        return save_game(self.game, path, force=force)

    def to_dict(self, file: str | None = None) -> dict:
        return {"game": self.original.name, "file": self.original.path, "status": self.status, "reached": self.reached,
                "order": list(self.order), "notes": list(self.notes),
                "targets": [dict(r.to_dict(file), message=m) for r, m in zip(self.results, self.messages)]}


def tune_targets(game: Game, targets, **options) -> TargetsResult:
    """Tune every target (:class:`ModeTarget`, or ``NAME=RTP±TOL`` text) of ``game`` on one file (see the module's
    docstring); ``options`` are :func:`~workbench.tuning.tune`'s that apply to every target (seed, precision,
    max_seconds, max_rounds, workers, confirm, max_changes, max_steps, progress, notify).  Each target varies its
    mode's default variables: naming strips, symbols, tables or kept figures per target is for one target at a
    time (``--bet-mode``)."""
    targets = [t if isinstance(t, ModeTarget) else parse_target(t) for t in targets]
    if not targets:
        raise TuningError("give at least one --target MODE=RTP")
    where = game.path or game.name
    for key in ("mode", "strip_set", "keep", "vary", "tables", "strip_set_weights", "stop_weights", "bet_mode",
                "tolerance", "terms"):
        if options.get(key) not in (None, (), [], False):
            raise TuningError(f"{where}: with --target, each mode is tuned with its own default variables and tolerance: "
                              f"{key.replace('_', '-')} applies to one target at a time (use --bet-mode)")
        options.pop(key, None)
    seen = set()
    for t in targets:
        if t.bet_mode not in game.all_bet_modes:
            hint = difflib.get_close_matches(t.bet_mode, list(game.all_bet_modes), n=1)
            raise TuningError(f"{where}: --target {t.text!r}: no bet mode {t.bet_mode!r}"
                              + (f" (did you mean {hint[0]!r}?)" if hint else "")
                              + f"; bet modes: {', '.join(game.all_bet_modes)}")
        if t.bet_mode in seen:
            raise TuningError(f"{where}: --target: bet mode {t.bet_mode!r} is given twice")
        seen.add(t.bet_mode)
    by_name = {t.bet_mode: t for t in targets}
    plans = order_targets([plan_mode(game, t.bet_mode) for t in targets])
    notes = []
    if [p.bet_mode for p in plans] != [t.bet_mode for t in targets]:
        notes.append("tuned in the order " + ", ".join(p.bet_mode for p in plans) + ": each changes only strips the ones "
                     "before it do not play, so their confirmations hold for the final file")
    current = game
    results, messages = [], []
    for plan in plans:
        target = by_name[plan.bet_mode]
        try:
            result = tune(current, target.rtp, bet_mode=plan.bet_mode, tolerance=target.tolerance, **options)
        except TargetUnreachableError as exc:
            results.append(exc.closest)
            messages.append(str(exc))
            continue
        results.append(result)
        messages.append(None)
        current = result.game
    return TargetsResult(tuple(results), tuple(messages), current, game, tuple(notes))
