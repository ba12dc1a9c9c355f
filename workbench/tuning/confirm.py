"""The honest tuner: search, then confirm the tuned file's RTP on its own, and aim again if it is off.

:func:`tune` is what ``workbench tune`` runs for one target:

1. **hold** the feature terms from one exact + conditional estimate of the
   game (seed ``seed``; default precision: the tolerance), unless the RTP is
   exact;
2. **search** (:func:`~workbench.tuning.search.find_edit`) for the fewest
   changes whose figures, with those terms held, land within half the
   tolerance (the whole tolerance when the RTP is exact, or when half cannot
   be reached);
3. **confirm**: estimate the tuned game again, end to end and independently
   of the held terms (exact + conditional, seed ``seed + k`` for round ``k``,
   precision half the tolerance, within what is left of ``max_seconds``); an
   exact RTP is confirmed exactly, with nothing simulated;
4. if that estimate is precise enough but off target, **aim again**: search
   from the original file with the feature terms of that estimate (a bought
   feature's slope from the last two estimates), then confirm again; at most
   ``max_rounds`` confirmations.

The result is *reached* only when a confirmation is within the tolerance of
the target with a 95 % half-width at most the tolerance (and every kept
figure holds); otherwise it says how close the evidence puts it ("within ± x
of the target, not confirmed") and the command that checks it.
"""

from __future__ import annotations

import math
import signal
import time
from dataclasses import replace
from typing import Callable, Iterable

from ..errors import TargetUnreachableError, TuningError
from ..model import Game
from ..model.edits import apply_edit
from ..simulate import estimate_rtp, exactness, round_model
from ..simulate.stops import RunStopped
from .figures import FeatureProxy, FeatureTerms, has_simulated_terms, measure
from .modes import file_name, plan_mode
from .result import Confirmation, TuneResult
from .search import DEFAULT_MAX_STEPS, DEFAULT_TOLERANCE, base_moving_refusal, feature_mode_refusal, find_edit

#: the default tolerance of an RTP with a simulated part (features, a bought feature): a tolerance the
#: confirmation can check in minutes, where ± 0.01 % would need 25 times the rounds of ± 0.05 %
DEFAULT_FEATURE_TOLERANCE = 0.0005
#: the confirming estimate aims at this share of the tolerance, so that one estimate usually both has a
#: half-width within the tolerance and lands inside it
CONFIRM_PRECISION_SHARE = 0.5
#: the search aims at this share of the tolerance when the RTP has a simulated part (what is left is for the
#: noise of the held terms)
SEARCH_SHARE = 0.5
#: default time box of one target's estimates (the held terms get a quarter of it), seconds
DEFAULT_CONFIRM_SECONDS = 600.0
#: the time box of the first confirmation when the held terms and the search used up max_seconds, seconds
MIN_CONFIRM_SECONDS = 1.0
#: most confirmations (and searches) of one target
MAX_CONFIRM_ROUNDS = 3
#: a secant slope of a bought feature is used only when the two estimates differ by this many combined half-widths
SECANT_SIGNAL = 4.0
MAX_SEED = 2**63 - 1


def default_tolerance(simulated: bool) -> float:
    """The tolerance :func:`tune` uses when none is given: ± 0.05 % with a simulated part, else ± 0.01 %."""
    return DEFAULT_FEATURE_TOLERANCE if simulated else DEFAULT_TOLERANCE


def confirm_seed(seed: int, round_index: int) -> int:
    """The seed of confirmation ``round_index`` (1, 2, ...) of a tuning seeded with ``seed``: ``seed + round``
    (wrapping past 2^63 - 1), so no confirmation shares random numbers with the held terms or another."""
    return (int(seed) + round_index) % (MAX_SEED + 1)


def _check(target_rtp, tolerance, precision, seed, max_seconds, max_rounds) -> tuple:
    try:
        target = float(target_rtp)
        tolerance = None if tolerance is None else float(tolerance)
        precision = None if precision is None else float(precision)
        max_seconds = float(max_seconds)
    except (TypeError, ValueError):
        raise TuningError(f"target RTP, tolerance, precision and max_seconds must be numbers, got {target_rtp!r}, "
                          f"{tolerance!r}, {precision!r} and {max_seconds!r}") from None
    if not 0 < target < 10 or not math.isfinite(target):
        raise TuningError(f"target RTP must be a fraction of total bet (x its cost for a bet mode; 0.9618 for 96.18 %), "
                          f"got {target_rtp!r}")
    if tolerance is not None and not 0 < tolerance < 1:
        raise TuningError(f"--tolerance must be a fraction above 0 and below 1 (0.0005 = 0.05 %), got {tolerance!r}")
    if precision is not None and not 0 < precision < 1:
        raise TuningError(f"--precision must be a fraction above 0 and below 1 (0.0005 = 0.05 %), got {precision!r}")
    if not (math.isfinite(max_seconds) and max_seconds > 0):
        raise TuningError(f"--max-seconds must be a finite number of seconds above 0, got {max_seconds!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise TuningError(f"--seed must be a whole number from 0 to 2^63 - 1, got {seed!r}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise TuningError(f"max_rounds must be a whole number, 1 or more, got {max_rounds!r}")
    return target, tolerance, precision, max_seconds


def _proxy(kind_where: tuple | None, played: Game, terms: FeatureTerms) -> FeatureProxy | None:
    """The exact figure a bought feature's held estimate follows, with the proportional slope: the feature's
    win taken as growing in proportion to it."""
    if kind_where is None or not terms.present:
        return None
    kind, where = kind_where
    proxy = FeatureProxy(kind, where, 0.0, 0.0)
    figure = proxy.figure(played)
    if not figure > 0:
        raise TuningError(f"{played.path or played.name}: bet mode {played.bet_mode.name!r}: {proxy.describe()} is "
                          f"{figure:g}: the bought feature's RTP cannot follow it")
    held = terms.value() - terms.jackpot_rtp
    return FeatureProxy(kind, where, figure, held / figure)


def _secant(old: FeatureProxy, old_rtp: float, old_ci: float, figure: float, rtp: float, ci: float) -> float:
    """The slope of the bought feature's RTP against its figure from two estimates, when they tell it apart from
    noise and agree in sign with the slope held; else the slope held."""
    rise, run = rtp - old_rtp, figure - old.reference
    if run == 0 or abs(rise) < SECANT_SIGNAL * math.hypot(old_ci, ci):
        return old.slope
    slope = rise / run
    return slope if slope * old.slope > 0 and 0.1 <= slope / old.slope <= 10 else old.slope


def _estimate(game: Game, precision: float, seed: int, workers: int, max_seconds: float | None):
    """:func:`estimate_rtp`, but a stop signal (Ctrl-C, SIGTERM) that cut it short stops the tuner too."""
    est = estimate_rtp(game, precision, seed, workers=workers, max_seconds=max_seconds)
    if est.interrupted:
        raise RunStopped(signal.SIGINT)
    return est


def held_terms(game: Game, precision: float, seed: int, workers: int = 1, max_seconds: float | None = None) -> FeatureTerms:
    """The feature terms the search holds: one estimate of ``game`` (:meth:`FeatureTerms.none` if nothing is
    simulated), stopped by ``max_seconds`` after the batch that passes it."""
    if not has_simulated_terms(game):
        return FeatureTerms.none()
    return FeatureTerms.from_estimate(_estimate(game, precision, seed, workers, max_seconds))


def _as_loaded(game: Game, played: Game, tuned: Game) -> Game:
    """``tuned`` (edits of ``played``, ``game`` in a bet mode) as ``game`` is played: its edits replayed on it."""
    if played is game:
        return tuned
    out = game
    for edit in tuned.edits[len(played.edits):]:
        out = apply_edit(out, edit)
    return out


def exact_confirmation(result: TuneResult, played_tuned: Game, why: str, par_mode: str | None = None) -> Confirmation:
    """The confirmation of an exact RTP: the exact figure itself, nothing simulated."""
    if par_mode is not None:
        rtp = result.after["rtp"]
    else:
        rtp = measure(played_tuned, "base", FeatureTerms.none(), quick=True)["rtp"]
    return Confirmation(result.target, result.tolerance, rtp, 0.0, True, why, bet_mode=result.bet_mode, par_mode=par_mode)


def estimate_confirmation(result: TuneResult, played_tuned: Game, seed: int, precision: float, max_seconds: float,
                          workers: int = 1) -> Confirmation:
    """An independent exact + conditional estimate of the tuned game's RTP (x its bet mode's cost)."""
    est = _estimate(played_tuned, precision, seed, workers, max_seconds)
    early = est.rtp_ci95 > precision * (1 + 1e-9)
    return Confirmation(result.target, result.tolerance, est.rtp, est.rtp_ci95, False, "exact + conditional estimate",
                        bet_mode=result.bet_mode, seed=est.seed, precision=precision, rounds=est.samples,
                        seconds=est.elapsed, stopped_early=early, max_seconds=max_seconds, estimate=est)


def tune(
    game: Game,
    target_rtp: float,
    *,
    bet_mode: str | None = None,
    mode: str | None = None,
    strip_set: str | None = None,
    keep: Iterable = (),
    vary: Iterable[str] | None = None,
    tables: Iterable[str] = (),
    strip_set_weights: bool = False,
    stop_weights: bool = False,
    max_changes: int | None = None,
    tolerance: float | None = None,
    terms: FeatureTerms | None = None,
    precision: float | None = None,
    seed: int = 1,
    confirm: bool = True,
    max_seconds: float = DEFAULT_CONFIRM_SECONDS,
    max_rounds: int = MAX_CONFIRM_ROUNDS,
    workers: int = 1,
    reestimate: bool = False,
    max_steps: int = DEFAULT_MAX_STEPS,
    progress: Callable[[int], None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> TuneResult:
    """Change as few stops and weights as needed for the RTP of ``bet_mode`` to be ``target_rtp`` ± ``tolerance``,
    and confirm it on the tuned file (see the module's docstring and docs/tuning.md).

    ``target_rtp``, ``tolerance`` and ``precision`` are fractions of the cost of
    ``bet_mode`` (x total bet in the base game; None: the mode ``game`` is
    played in).  ``tolerance`` defaults to :func:`default_tolerance` (± 0.05 %
    with a simulated part, else ± 0.01 %); ``precision``, of the held feature
    terms, to the tolerance.  ``mode`` / ``strip_set`` name the strips to vary
    as the file does (a strip-set mode, e.g. ``free_spins``; default: the bet
    mode's paid strips, or a bought feature's); ``keep``, ``vary``, ``tables``,
    ``strip_set_weights``, ``stop_weights``, ``max_changes``, ``max_steps`` and
    ``progress`` are those of :func:`~workbench.tuning.search.find_edit`.
    ``terms``: the held feature terms (default: estimated with ``seed``;
    :meth:`FeatureTerms.base_only` targets the base game's exact RTP alone).
    ``confirm``: re-estimate the tuned file (False: no simulation after the
    search; an exact RTP is confirmed anyway); ``max_seconds`` is the time box
    of the whole target (the held terms get at most a quarter of it; each
    estimate stops after the batch that passes its share; the first
    confirmation is always made, in at least :data:`MIN_CONFIRM_SECONDS`),
    ``max_rounds`` bounds the confirmations;
    ``workers``: local processes of each estimate (the figures do not depend
    on it).  ``reestimate`` is accepted for old callers: the confirmation is
    that re-estimate.  ``notify(text)`` hears what is being done.

    Raises :class:`~workbench.errors.TargetUnreachableError` (with the closest
    result) if the search cannot reach the bands, and
    :class:`~workbench.errors.TuningError` for a bad request.
    """
    start = time.perf_counter()
    target, tolerance, precision, max_seconds = _check(target_rtp, tolerance, precision, seed, max_seconds, max_rounds)
    say = notify or (lambda text: None)
    tables = tuple(tables)
    plan = plan_mode(game, bet_mode, mode=mode, strip_set=strip_set, vary=vary, tables=tables,
                     strip_set_weights=strip_set_weights, stop_weights=stop_weights,
                     base_only=terms is not None and terms.left_out)
    played = plan.played
    where = game.path or game.name
    if terms is None and plan.mode != "base" and plan.proxy is None:
        if has_simulated_terms(played):
            raise feature_mode_refusal(played, file_name(played.bet_mode, plan.mode))
        terms = FeatureTerms.base_only()  # another strip-set mode alone: its figures are per spin of it, exact
    simulated = has_simulated_terms(played) if terms is None else (terms.present and not terms.left_out)
    if tolerance is None:
        tolerance = default_tolerance(simulated)
    deadline = start + max_seconds
    vary = None if vary is None else tuple(vary)
    if terms is None and plan.mode == "base" and (vary is None or vary or stop_weights):
        # parts that move with every base stop are refused before their estimate, not after it
        moving = [f"'{s.name}'" for s in round_model(played).strata if s.moves_with_base_strips and s.probability > 0]
        if moving:
            raise base_moving_refusal(played, moving)
    if terms is None:
        held_precision = precision or tolerance
        say(f"estimating the feature terms of {where} ({plan.bet_mode}) to ± {held_precision * 100:.4f} % (seed {seed})")
        terms = held_terms(played, held_precision, seed, workers, max_seconds / 4)
    terms = terms.with_proxy(_proxy(plan.proxy, played, terms))
    options = dict(mode=plan.mode, strip_set=plan.strip_set, keep=keep, vary=vary, tables=tables,
                   strip_set_weights=strip_set_weights, stop_weights=stop_weights, max_changes=max_changes,
                   max_steps=max_steps, progress=progress)
    try:
        result = _search(played, target, tolerance, terms, options)
    except TargetUnreachableError as exc:  # the closest result, as the file is loaded (a bet mode's edits replayed)
        closest = replace(exc.closest, game=_as_loaded(game, played, exc.closest.game), original=game,
                          elapsed=time.perf_counter() - start)
        raise TargetUnreachableError(str(exc), exc.binding, closest) from None
    history = [_round(1, terms, result, None)]
    final = result
    if terms.left_out:
        mode_name = file_name(played.bet_mode, plan.mode)
        why = (f"exact RTP per spin of strip-set mode {mode_name}" if plan.mode != "base"
               else "exact RTP of the base game alone (feature terms left out)")
        if plan.mode == "base" and played.bet_mode.cost != 1:  # workbench par gives it x the base game's total bet
            why += f", x the cost of bet mode {played.bet_mode.name}: workbench par's RTP / {float(played.bet_mode.cost):g}"
        final = replace(result, confirmation=exact_confirmation(result, result.game, why, par_mode=mode_name))
    else:
        exact, why = exactness(result.game) if not terms.present else (False, "")
        if exact:
            final = replace(result, confirmation=exact_confirmation(result, result.game, f"exact: {why}"))
        elif confirm:
            final, history = _confirm_loop(played, target, tolerance, terms, options, result, history, seed,
                                           deadline, max_rounds, workers, say)
    final = replace(final, game=_as_loaded(game, played, final.game), original=game, tolerance=tolerance,
                    history=tuple(history), search_rounds=len(history), elapsed=time.perf_counter() - start,
                    reestimated=None if final.confirmation is None else final.confirmation.estimate)
    return final


def _search(played: Game, target: float, tolerance: float, terms: FeatureTerms, options: dict) -> TuneResult:
    """One search; with a simulated part it aims at :data:`SEARCH_SHARE` of the tolerance first (the rest is for
    the held terms' noise), and at the whole tolerance if that cannot be reached."""
    simulated = terms.present and not terms.left_out
    if simulated:
        try:
            return replace(find_edit(played, target, terms=terms, tolerance=tolerance * SEARCH_SHARE, **options),
                           tolerance=tolerance)
        except TargetUnreachableError:
            pass  # coarse steps: the whole band may still be reached
    return find_edit(played, target, terms=terms, tolerance=tolerance, **options)


def _round(index: int, terms: FeatureTerms, result: TuneResult, confirmation: Confirmation | None) -> dict:
    return {"round": index, "terms_seed": terms.seed, "terms_precision": terms.precision,
            "terms_ci95": terms.ci95, "aimed_rtp": result.after["rtp"],
            "stops_changed": len(result.changes), "weights_changed": len(result.weight_changes),
            "confirmation": None if confirmation is None else confirmation.to_dict()}


def _confirm_loop(played, target, tolerance, terms, options, result, history, seed, deadline, max_rounds, workers,
                  say) -> tuple:
    """Confirm ``result``; while a precise confirmation is off target, search again from its terms and confirm
    that.  Returns (the last result, with its confirmation; the history)."""
    precision = tolerance * CONFIRM_PRECISION_SHARE
    previous = None  # (figure, rtp, ci95) of the last estimate, for a bought feature's secant
    if terms.proxy is not None:
        previous = (terms.proxy.reference, terms.value(), terms.ci95)
    for k in range(1, max_rounds + 1):
        left = deadline - time.perf_counter()
        if left <= 0 and k > 1:
            break
        # the first confirmation is always made, however little time is left: its pilot batch at least says how
        # close the file is (an estimate stops after the batch that passes its time box)
        left = max(left, MIN_CONFIRM_SECONDS)
        conf_seed = confirm_seed(seed, k)
        say(f"confirming round {k}: estimating the tuned game to ± {precision * 100:.4f} % (seed {conf_seed}, "
            f"at most {left:.0f} s)")
        conf = estimate_confirmation(result, result.game, conf_seed, precision, left, workers)
        result = replace(result, confirmation=conf)
        history[-1] = _round(k, result.terms, result, conf)
        if conf.confirmed or conf.ci95 > tolerance or k == max_rounds or time.perf_counter() >= deadline:
            break  # confirmed; too imprecise for another search to help; or no rounds or time left
        # precise but off target: aim again with what this estimate says of the tuned game
        new_terms = FeatureTerms.from_estimate(conf.estimate)
        if terms.proxy is not None:
            figure = terms.proxy.figure(result.game)
            slope = _secant(terms.proxy, previous[1], previous[2], figure, conf.rtp, conf.ci95)
            new_terms = new_terms.with_proxy(FeatureProxy(terms.proxy.kind, terms.proxy.where, figure, slope))
            previous = (figure, conf.rtp, conf.ci95)
        say(f"round {k}: {conf.rtp * 100:.4f} % ± {conf.ci95 * 100:.4f} % is off the target: searching again with "
            "this estimate's feature terms")
        try:
            again = _search(played, target, tolerance, new_terms, options)
        except TargetUnreachableError:
            break  # the last confirmed figures stand (not confirmed)
        if again.game.strip_sets == result.game.strip_sets and again.game.tables == result.game.tables:
            break  # the same file: another estimate of it would only be another draw
        result, terms = again, new_terms
        history.append(_round(k + 1, terms, result, None))
    return result, history


def shared_terms(game: Game, **options) -> FeatureTerms | None:
    """The held feature terms several :func:`tune` runs of ``game`` with these ``options`` can share (one estimate
    at the precision asked, else the tolerance's); None when there is nothing to share (terms given, an exact
    RTP, strips of another mode alone)."""
    if options.get("terms") is not None:
        return options["terms"]
    plan = plan_mode(game, options.get("bet_mode"), mode=options.get("mode"), strip_set=options.get("strip_set"),
                     vary=options.get("vary"), tables=options.get("tables", ()),
                     strip_set_weights=options.get("strip_set_weights", False),
                     stop_weights=options.get("stop_weights", False))
    if (plan.mode != "base" and plan.proxy is None) or not has_simulated_terms(plan.played):
        return None
    tolerance = options.get("tolerance") or DEFAULT_FEATURE_TOLERANCE
    return held_terms(plan.played, options.get("precision") or tolerance, options.get("seed", 1),
                      options.get("workers", 1), options.get("max_seconds", DEFAULT_CONFIRM_SECONDS) / 4)


def tune_versions(game: Game, targets: Iterable[float], **options) -> list[TuneResult]:
    """One :func:`tune` per target, each from ``game`` itself (so the versions differ only in the allowed
    variables), sharing one estimate of the feature terms (:func:`shared_terms`)."""
    targets = list(targets)
    if not targets:
        raise TuningError("give at least one target RTP")
    options["terms"] = shared_terms(game, **options)
    return [tune(game, t, **options) for t in targets]
