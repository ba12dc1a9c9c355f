"""Simulation of whole game rounds.

Two entry points:

- :func:`simulate` plays ``spins`` complete rounds end to end;
- :func:`estimate_rtp` uses the exact + conditional method: the exact base
  game from :func:`workbench.exact.par` plus, for every trigger state, its
  exact probability times the simulated mean extra win of rounds started
  directly in that state, until the 95 % half-width reaches ``precision``.

Both are reproducible: the same seed gives the same numbers whatever the
number of workers (local processes), a Dask cluster (``scheduler``), the
``chunk_size``, a worker lost and replaced during the run, or a resume from a
checkpoint: the unit of randomness is a fixed *block* of rounds (see
:mod:`.engine`), and block results are added in block order.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import ExactBudgetError, FirstScreenCutUnknown, SimulationError, WorkbenchError
from ..exact import par
from ..exact.enumerate import DEFAULT_BUDGET
from ..io import render_text
from ..model import Game
from .checkpoints import Checkpoint
from .engine import (
    MAX_SPINS,
    RunSpec,
    check_jackpot_stake,
    check_workers,
    finite_positive,
    make_progress,
    remember_model,
    round_model,
)
from .lanes import DEFAULT_CHUNK, RTP_BLOCK, SIMULATE_BLOCK, Plan, check_chunk_size
from .runner import JobRunner
from .stops import stop_requested, stop_scope
from .jackpots import analytic_rtp, simulate_jackpots
from .model import RoundModel
from .plan import end_to_end_plan, is_end_to_end
from .results import NO_BASE_GAME, BaseScreenCap, BetModeEstimate, Estimate, RtpEstimate, SimulationResult, StratumEstimate, mode_cost
from .chunks import play_chunk
from .replay import locate_max_win
from .progress import eta_text
from .screens import BATCHES, SCREEN_ROUNDS, missing_figures, screen_game
from .lanes import check_seed as _check_seed
from .rng import STREAM_CONDITIONAL, STREAM_JACKPOTS, STREAM_ROUNDS, chunk_generator, chunk_state

__all__ = [
    "BOXED_CHUNK",
    "MAX_SPINS",
    "BetModeEstimate",
    "Estimate",
    "RoundModel",
    "RtpEstimate",
    "SimulationResult",
    "base_screen_cap",
    "StratumEstimate",
    "estimate_bet_modes",
    "estimate_rtp",
    "exactness",
    "round_model",
    "simulate",
]


def _spec(game: Game, stake: float | None, seed: int, stream: int, end_to_end: str = "") -> RunSpec:
    return RunSpec(game_text=render_text(game), game_path=str(game.path or "<game>"), stake=stake, seed=int(seed), stream=stream,
                   bet_mode=game.bet_mode.name, end_to_end=end_to_end)




def _check_stake(stake):
    if stake is not None:
        finite_positive(stake, "stake")
    return stake


def simulate(
    game: Game,
    spins: int,
    seed: int,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    stake: float | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress=False,
    checkpoint: str | None = None,
    max_seconds: float | None = None,
) -> SimulationResult:
    """Play ``spins`` complete rounds of ``game`` (end to end) and report them.

    ``spins``: 1 to :data:`MAX_SPINS` (10^13).  ``stake`` (total bet in
    currency) matters for caps in currency and for jackpots; default: the game
    module's reference stake.  The rounds are played in blocks of
    :data:`SIMULATE_BLOCK` (2^20) rounds, each with its own random stream;
    ``chunk_size`` (rounds per job handed to a worker) must be a multiple of
    the block or smaller than it (a block is then played in parts, one after
    another), and does not change the result.  With ``checkpoint`` (a file) a
    run can be stopped (Ctrl-C, SIGTERM) and resumed to the same result as an
    uninterrupted run.  ``progress``: True for tqdm's bar on the terminal, or a
    bar with tqdm's ``update``/``close``/``refresh``/``total`` (a notebook
    panel's own, :class:`workbench.widgets.simulation.WidgetBar`).

    The result's ``setup_seconds`` is the set-up (round model and its tables,
    checks, checkpoint); ``elapsed`` and ``spins_per_second`` cover the spinning.  ``max_seconds`` (finite, above 0)
    boxes the whole call, set-up included: no job starts after it, so the call returns within the box plus one
    job (played in parts of 2^16 rounds then); the result (``stopped_by``: ``spins``, ``time box`` or
    ``interrupted``) then covers the rounds played, which depend on the machine's speed.
    """
    setup_start = time.perf_counter()
    deadline = time.monotonic() + finite_positive(max_seconds, "max_seconds") if max_seconds is not None else None
    seed = _check_seed(seed)
    if isinstance(spins, bool) or not isinstance(spins, (int, np.integer)) or not 1 <= spins <= MAX_SPINS:
        raise SimulationError(f"spins must be a whole number from 1 to {MAX_SPINS:,} (10^13), got {spins!r}")
    spins = int(spins)
    check_chunk_size(chunk_size, SIMULATE_BLOCK)
    if deadline is not None and chunk_size == DEFAULT_CHUNK:
        chunk_size = RTP_BLOCK  # short jobs, so the box holds (the result does not depend on the chunk size)
    check_workers(workers)
    model = round_model(game, _check_stake(stake))
    check_jackpot_stake(model)
    spec = _spec(game, model.stake, seed, STREAM_ROUNDS)
    remember_model(spec, model)
    plan = Plan(SIMULATE_BLOCK, chunk_size, len(model.components), len(model.counters))
    lane = plan.lane(-1, spins, trace=True)
    store = None
    if checkpoint:
        signature = {"kind": "simulate", "game_sha256": spec.game_sha256, "seed": seed, "spins": spins,
                     "stake": model.stake, "block": SIMULATE_BLOCK}
        if spec.bet_mode != "base":
            signature["bet_mode"] = spec.bet_mode
        store = Checkpoint.open(checkpoint, signature, plan)
    if workers == 1:
        # load the compiled round (numba's cache) now: part of the set-up, not of the spinning
        play_chunk(model, chunk_state(seed, 0, STREAM_ROUNDS), 0)
    bar = make_progress(spins, progress, label="workbench simulate")
    if bar is not None and plan.played():
        bar.update(plan.played())
    start = time.perf_counter()
    # from here on a stop signal stops the run at a safe point and the result is still made and returned
    with stop_scope():
        try:
            with JobRunner(spec, workers, scheduler, bar, store, deadline=deadline) as runner:
                runner.run(plan)
                interrupted = runner.interrupted
                timed_out = runner.timed_out
        finally:
            if bar is not None:
                bar.close()
        elapsed = time.perf_counter() - start
        total = lane.result()
        trace = lane.trace_frame(model.params.cost_units * float(game.bet_mode.cost))
        jackpots = None
        if model.jackpots and total.rounds:
            jackpots = simulate_jackpots(model.jackpots, model.wager, total.rounds, chunk_generator(seed, 0, STREAM_JACKPOTS))
        result = SimulationResult(model, total, seed=seed, requested=spins, elapsed=elapsed, interrupted=interrupted,
                                  jackpots=jackpots, trace=trace)
        result.setup_seconds = start - setup_start
        result.max_win_block = lane.max_win_block()
        result.locate_max_win = locate_max_win
        result.stopped_by = "interrupted" if interrupted else "time box" if timed_out and total.rounds < spins else "spins"
        return result


#: most blocks one trigger state gets per batch of the Neyman allocation
RTP_BATCH_BLOCKS = 16
#: rounds per job of a time-boxed estimate: an eighth of a block, so a job in this process overruns the box little
BOXED_CHUNK = RTP_BLOCK // 8


def simulate_missing(sheet, rounds: int = SCREEN_ROUNDS, seed: int = 1) -> dict:
    """Estimates of the figures the exact PAR ``sheet`` left out (``sheet.missing``): its screens alone
    (:func:`~workbench.simulate.screens.screen_game`) in :data:`~workbench.simulate.screens.BATCHES` batches of
    ``rounds // BATCHES``, batch ``b`` seeded ``seed + b`` (:func:`~workbench.simulate.screens.missing_figures`)."""
    game = screen_game(sheet.game, sheet.mode)
    results = [simulate(game, max(rounds // BATCHES, 1), seed + b) for b in range(BATCHES)]
    return missing_figures(sheet, results, seed)


def complete_par(game: Game, mode: str = "base", *, rounds: int = SCREEN_ROUNDS, seed: int = 1, **options):
    """:func:`~workbench.exact.par` of ``game`` in ``mode`` (``options`` passed on), with the figures it left out
    estimated by :func:`simulate_missing` (``rounds``, ``seed``) and labelled "simulated (N rounds)"."""
    sheet = par(game, mode, **options)
    if sheet.missing:
        sheet.add_simulated(simulate_missing(sheet, rounds, seed))
    return sheet


def exactness(game: Game) -> tuple[bool, str]:
    """Whether the game's whole RTP is its exact base-game PAR RTP, and why (or why not).

    True when the round pays only the base screen's line, ways and scatter
    wins: no trigger states, no simulated feature components, no jackpots.
    """
    try:
        model = round_model(game)
    except WorkbenchError as exc:
        return False, f"the round model could not be built ({exc})"
    extra = [c for i, c in enumerate(model.components)
             if i not in model.exact_components and i not in model.informational_components and not c.startswith("cap")]
    states = [s.name for s in model.strata if s.probability > 0]
    if extra or states or model.jackpots:
        parts = list(extra or states)
        if model.jackpots:  # analytic, but a return of their own: outside the exact sheet of the pays
            tiers = ", ".join(t.name for t in model.jackpots)
            parts.append(f"must-drop jackpots {tiers}: {100 * analytic_rtp(model.jackpots):.4f} % of every wager, analytic")
        return False, "features (" + "; ".join(parts) + ") are not in the exact PAR"
    if model.max_win_units:
        sheet = par(game, full_cycle=False)
        top = sheet.max_win if sheet.max_win_exact else sheet.max_win_upper
        cap = model.max_win_units / model.params.cost_units
        if top * model.params.cost_units > model.max_win_units + 0.5:  # reaching the cap exactly takes nothing
            return False, (f"max_win {cap:,.6g} x total bet cuts first screens that pay more (up to {top:,.6g}); the exact "
                           "PAR is uncapped")
    return True, "the game pays only base-screen wins, all in the exact PAR"


def estimate_rtp(
    game: Game,
    precision: float = 0.0002,
    seed: int = 1,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    stake: float | None = None,
    chunk_size: int = RTP_BLOCK,
    max_seconds: float | None = None,
    progress: bool = False,
    checkpoint: str | None = None,
) -> RtpEstimate:
    """RTP by exact base game + conditional simulation of each trigger state.

    Stops when the combined 95 % half-width is at most ``precision`` (a
    fraction, 0 < precision < 1: 0.0002 = 0.02 %, x the cost of the bet mode played, as every figure of the
    result), or when ``max_seconds`` (finite, above 0) have passed since the call: the time box covers the set-up
    (round model, exact first screen) too, no job starts after it and jobs in play on worker processes are
    dropped, so the call returns within the box plus the time of one job in this process (one block).  The
    result says what stopped it (``stopped_by``: ``precision``, ``time box`` or ``interrupted``) and the precision
    it reached (``rtp_ci95``).  Samples are allocated to the trigger states in blocks
    of :data:`RTP_BLOCK` (2^16) rounds, in proportion to probability x spread
    (Neyman allocation) after a pilot block per state, at most
    :data:`RTP_BATCH_BLOCKS` blocks per state and batch.  ``chunk_size``
    (rounds per job: below the block, which is then played in parts, or a multiple of it; with ``max_seconds``
    the default is :data:`BOXED_CHUNK`) does not change the result, nor do ``workers`` or ``scheduler`` (``max_seconds``
    can: it stops whatever is running when the time is up).  ``progress``: True for a progress report on stderr
    (rounds, current RTP and half-width, time left), or a bar object as :func:`simulate` takes.  With
    ``checkpoint`` (a file) a stopped estimate resumes where it stopped: the file holds every state's finished
    blocks and the batches allocated so far (under its checksum, see :class:`.checkpoints.Checkpoint`), and the resumed
    estimate is the one an uninterrupted run gives (without a time box).
    """
    started = time.monotonic()
    seed = _check_seed(seed)
    try:
        ok = 0 < float(precision) < 1
    except (TypeError, ValueError):
        ok = False
    if isinstance(precision, bool) or not ok:
        raise SimulationError(f"precision must be a number above 0 and below 1 (a fraction: 0.0002 = 0.02 %), got {precision!r}")
    precision = float(precision)
    if max_seconds is not None:
        max_seconds = finite_positive(max_seconds, "max_seconds")
    check_chunk_size(chunk_size, RTP_BLOCK)
    if max_seconds is not None and chunk_size == RTP_BLOCK:
        # short jobs so the box holds when rounds are slow (a block is then played in parts: the same result)
        chunk_size = BOXED_CHUNK
    check_workers(workers)
    model = round_model(game, _check_stake(stake))
    base_cap, end_to_end = None, ""
    if game.bet_mode.buy:
        sheet = NO_BASE_GAME  # a bought feature plays no base spin
    else:
        try:
            sheet = par(game, full_cycle=False)
            if sheet.missing:  # the RTP is exact; the figures the exact engine left out are simulated (labelled so)
                sheet.add_simulated(simulate_missing(sheet, seed=seed))
        except ExactBudgetError as exc:  # no exact first screen: it is simulated with the rest of every round
            sheet = NO_BASE_GAME
            end_to_end = f"the exact first screen is over a budget ({exc}), so it is simulated too"
            model = end_to_end_plan(model, end_to_end)
    if not is_end_to_end(model):
        try:
            base_cap = base_screen_cap(game, model, sheet,
                                       None if max_seconds is None else started + max_seconds - time.monotonic())
        except FirstScreenCutUnknown as exc:  # the states cannot be used: every round end to end
            end_to_end = str(exc)
            model = end_to_end_plan(model, end_to_end)
    spec = _spec(game, model.stake, seed, STREAM_CONDITIONAL, end_to_end)
    remember_model(spec, model)
    active = [i for i, s in enumerate(model.strata) if s.probability > 0]
    plan = Plan(RTP_BLOCK, chunk_size, len(model.components), len(model.counters))
    lanes = {i: plan.lane(i) for i in active}
    history: list = []  # the batches allocated so far, {state: blocks} (a checkpoint keeps them)
    store = None
    if checkpoint:
        signature = {"kind": "rtp", "game_sha256": spec.game_sha256, "seed": seed, "precision": precision,
                     "stake": model.stake, "bet_mode": spec.bet_mode, "block": RTP_BLOCK, "plan": end_to_end}

        def replay(extra: dict) -> None:
            for batch in extra.get("batches", []):
                counts = {int(k): int(v) for k, v in batch.items()}
                if not counts or any(i not in lanes or not 0 < c <= RTP_BATCH_BLOCKS for i, c in counts.items()):
                    raise ValueError(f"a batch {batch} that this estimate cannot have allocated")
                for i, c in counts.items():
                    lanes[i].extend(c * RTP_BLOCK)
                history.append(counts)

        store = Checkpoint.open(checkpoint, signature, plan, prepare=replay)
    bar = make_progress(0, progress, unit="round", label="workbench rtp")
    deadline = started + max_seconds if max_seconds is not None else None

    with stop_scope():  # a stop signal stops at a safe point; the estimate is still made and returned
        return _estimate(model, sheet, spec, plan, lanes, active, precision, deadline, seed, workers, scheduler, bar,
                         base_cap, started, store, history)


#: window combinations per second the full-cycle walk makes at least (left-to-right lines: about 2 x 10^8 on one core;
#: both ways about 10^7): a time-boxed estimate gives the walk half of what is left of its box at this rate
FULL_CYCLE_RATE = {"lines": 50_000_000, "other": 5_000_000}


def base_screen_cap(game: Game, model: RoundModel, sheet, seconds: float | None = None) -> BaseScreenCap | None:
    """What the bet mode's max_win takes from the first screen alone, exactly (None: it cannot reach the cap).

    The strata are simulated; a spin in no stratum pays its first screen B, so when B alone can reach the
    cap (the first screen's exact max win, or its upper bound, tells) the estimate needs E[(B - cap)+] and
    P(B >= cap) over every spin, from the exact full-cycle distribution.  ``seconds``: what is left of a time box,
    half of which the full cycle may take (at :data:`FULL_CYCLE_RATE`); a longer one is not walked.
    """
    cap = int(model.max_win_units)
    if not cap or game.bet_mode.buy:
        return None
    cost = model.params.cost_units
    top = sheet.max_win if sheet.max_win_exact else sheet.max_win_upper
    if top * cost < cap - 0.5:
        return None
    budget = DEFAULT_BUDGET
    if seconds is not None:
        fast = game.pays.is_lines and game.pays.direction == "left_to_right"
        budget = min(budget, max(int(0.5 * seconds * FULL_CYCLE_RATE["lines" if fast else "other"]), 0))
    full = par(game, full_cycle="auto", budget=budget)
    if full.distribution is None:
        raise FirstScreenCutUnknown(
            f"the first screen alone can pay {top:,.6g} x total bet, above max_win {cap / cost:,.6g}, and its exact "
            f"full-cycle distribution, which would say what the cap takes from it, is not available "
            f"({full.distribution_note})")
    return BaseScreenCap.from_distribution(full.distribution, cap)


def estimate_bet_modes(game: Game, precision: float = 0.001, seed: int = 1, **options) -> list[BetModeEstimate]:
    """Every bet mode's figures (``base`` first, then ``[bet_modes.*]``), each x its own cost.

    Each mode is :func:`estimate_rtp` of ``game.in_bet_mode(name)`` to ``precision`` x its cost (a fraction of
    the mode's price: 0.001 = 0.1 %), with the same ``seed`` and ``options`` (workers, max_seconds, ...).
    """
    out = []
    for name, mode in game.all_bet_modes.items():
        estimate = estimate_rtp(game.in_bet_mode(name), precision=precision, seed=seed, **options)
        out.append(BetModeEstimate(mode, estimate))
    return out


def _extra_sums(res, whole: bool) -> tuple:
    """(sum, sum of squares) of what a state's rounds add to the exact first screen: their extra win (adjusted), or,
    ``whole`` (no exact first screen: every round end to end), their whole win."""
    return (float(res.won), res.won_squares) if whole else (res.extra_sum, res.extra_squares)


def _estimate(model, sheet, spec, plan, lanes, active, precision, deadline, seed, workers, scheduler, bar,
              base_cap=None, started=None, store=None, history=None) -> RtpEstimate:
    price = model.params.cost_units * float(model.game.bet_mode.cost)  # a round's price in pay units: precision is x it
    whole = sheet is NO_BASE_GAME and not model.game.bet_mode.buy  # no exact first screen (over a budget)
    start = time.perf_counter()
    interrupted = False
    stopped_by = "precision"
    history = [] if history is None else history
    if bar is not None and history:  # resumed: the batches the checkpoint holds are planned already
        bar.total = sum(sum(b.values()) for b in history) * RTP_BLOCK
        bar.update(sum(lanes[i].total.rounds for i in active))
    try:
        with JobRunner(spec, workers, scheduler, bar, store, deadline=deadline) as runner:
            # pilot: one block per state (a resumed estimate first finishes the last batch it holds)
            batch = None if history else {i: 1 for i in active}
            while True:
                if batch is not None:
                    for i, count in batch.items():
                        lanes[i].extend(count * RTP_BLOCK)
                    history.append(batch)
                    if store is not None:
                        store.extra = {"batches": [{str(i): c for i, c in b.items()} for b in history]}
                    if bar is not None:
                        bar.total = (bar.total or 0) + sum(batch.values()) * RTP_BLOCK
                        bar.refresh()
                runner.run(plan)
                if runner.interrupted or stop_requested() is not None:
                    interrupted = True
                    stopped_by = "interrupted"
                    break
                if runner.timed_out:
                    stopped_by = "time box"
                    break
                # precision reached?
                per_state = {i: lanes[i].total for i in active}
                sigma = {}
                var = 0.0
                for i in active:
                    res = per_state[i]
                    n = res.rounds
                    p = float(model.strata[i].probability)
                    mean, second = _extra_sums(res, whole)
                    mean /= n
                    sd = math.sqrt(max(second / n - mean * mean, 0.0))
                    sigma[i] = p * sd
                    var += (p * sd) ** 2 / n
                half = 1.959963984540054 * math.sqrt(var) / price
                total_sigma = sum(sigma.values())
                needed = (1.959963984540054 * total_sigma / (precision * price)) ** 2
                if bar is not None and hasattr(bar, "set_postfix_str"):
                    done = sum(per_state[i].rounds for i in active)
                    cut = float(base_cap.excess_units) if base_cap is not None else 0.0
                    rtp = (float(sheet.rtp) * model.params.cost_units - cut + sum(
                        float(model.strata[i].probability) * _extra_sums(per_state[i], whole)[0] / per_state[i].rounds
                        for i in active)) / price
                    left = deadline - time.monotonic() if deadline is not None else None
                    bar.set_postfix_str(f"RTP {100 * rtp:.4f} % ± {100 * half:.4f} % (target ± {100 * precision:.4f} %)"
                                        + (f", {eta_text(done, needed, time.perf_counter() - start, left)}"
                                           if half > precision else ""))
                if half <= precision:
                    break
                # Neyman allocation of the samples still needed
                batch = {}
                for i in active:
                    target = needed * sigma[i] / total_sigma if total_sigma else 0
                    have = per_state[i].rounds
                    if target > have:
                        missing = math.ceil((target - have) / RTP_BLOCK)
                        batch[i] = max(1, min(missing, RTP_BATCH_BLOCKS))
                if not batch:
                    # estimates moved: add one block to the state with the largest share of the variance
                    worst = max(active, key=lambda i: sigma[i] ** 2 / per_state[i].rounds)
                    batch = {worst: 1}
    finally:
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - start
    per_state = {i: lanes[i].result() for i in active}
    # every wager feeds the pots: x the base total bet (as every figure here), the jackpots return analytic x the
    # mode's cost
    jackpot_rtp = analytic_rtp(model.jackpots) * mode_cost(model) if model.jackpots else 0.0
    result = RtpEstimate(model, sheet, per_state, seed=seed, elapsed=elapsed, precision=precision, interrupted=interrupted,
                         jackpot_rtp=jackpot_rtp, base_cap=base_cap)
    result.stopped_by = stopped_by if active else "exact"
    result.wall_seconds = time.monotonic() - started if started is not None else elapsed
    return result
