"""Simulation of whole game rounds.

Two entry points:

- :func:`simulate` plays ``spins`` complete rounds end to end;
- :func:`estimate_rtp` uses the exact + conditional method: the exact base
  game from :func:`workbench.exact.par` plus, for every trigger state, its
  exact probability times the simulated mean extra win of rounds started
  directly in that state, until the 95 % half-width reaches ``precision``.

Both are reproducible: the same seed gives the same numbers whatever the
number of workers (local processes) or a Dask cluster (``scheduler``).
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..errors import SimulationError
from ..exact import par
from ..io import render_text
from ..model import Game
from .engine import DEFAULT_CHUNK, Checkpoint, JobRunner, RunSpec, combine, convergence_trace, make_progress, remember_model, round_model
from .jackpots import analytic_rtp, simulate_jackpots
from .model import RoundModel
from .results import Estimate, RtpEstimate, SimulationResult, StratumEstimate
from .rng import STREAM_CONDITIONAL, STREAM_JACKPOTS, STREAM_ROUNDS, chunk_generator

__all__ = [
    "Estimate",
    "RoundModel",
    "RtpEstimate",
    "SimulationResult",
    "StratumEstimate",
    "estimate_rtp",
    "round_model",
    "simulate",
]


def _spec(game: Game, stake: float | None, seed: int, stream: int) -> RunSpec:
    return RunSpec(game_text=render_text(game), game_path=str(game.path or "<game>"), stake=stake, seed=int(seed), stream=stream)


def _check_seed(seed) -> int:
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SimulationError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def simulate(
    game: Game,
    spins: int,
    seed: int,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    stake: float | None = None,
    chunk_size: int = DEFAULT_CHUNK,
    progress: bool = False,
    checkpoint: str | None = None,
) -> SimulationResult:
    """Play ``spins`` complete rounds of ``game`` (end to end) and report them.

    ``stake`` (total bet in currency) matters for caps in currency and for
    jackpots; default: the game module's reference stake.  With
    ``checkpoint`` a run can be interrupted (Ctrl-C) and resumed to the same
    result as an uninterrupted run.
    """
    seed = _check_seed(seed)
    if not isinstance(spins, (int, np.integer)) or spins <= 0:
        raise SimulationError(f"spins must be a positive integer, got {spins!r}")
    if chunk_size <= 0:
        raise SimulationError(f"chunk size must be positive, got {chunk_size}")
    model = round_model(game, stake)
    spec = _spec(game, model.stake, seed, STREAM_ROUNDS)
    remember_model(spec, model)
    jobs = []
    for index, start in enumerate(range(0, int(spins), chunk_size)):
        jobs.append(((-1, index), min(chunk_size, int(spins) - start), -1))
    store = None
    if checkpoint:
        signature = {"kind": "simulate", "game_sha256": spec.game_sha256, "seed": seed, "spins": int(spins),
                     "chunk_size": chunk_size, "stake": model.stake}
        store = Checkpoint.open(checkpoint, signature)
    bar = make_progress(int(spins), progress)
    start = time.perf_counter()
    with JobRunner(spec, workers, scheduler, bar, store) as runner:
        results = runner.run(jobs)
        interrupted = runner.interrupted
    elapsed = time.perf_counter() - start
    if bar is not None:
        bar.close()
    total = combine(results, len(model.components), len(model.counters))
    trace = convergence_trace(results, model.params.cost_units)
    jackpots = None
    if model.jackpots and total.rounds:
        jackpots = simulate_jackpots(model.jackpots, model.stake, total.rounds, chunk_generator(seed, 0, STREAM_JACKPOTS))
    return SimulationResult(model, total, seed=seed, requested=int(spins), elapsed=elapsed, interrupted=interrupted,
                            jackpots=jackpots, trace=trace)


def estimate_rtp(
    game: Game,
    precision: float = 0.0002,
    seed: int = 1,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    stake: float | None = None,
    chunk_size: int = 1 << 16,
    max_seconds: float | None = None,
    progress: bool = False,
) -> RtpEstimate:
    """RTP by exact base game + conditional simulation of each trigger state.

    Stops when the combined 95 % half-width is at most ``precision`` (a
    fraction: 0.0002 = 0.02 %), or after ``max_seconds``.  Samples are
    allocated to the trigger states in proportion to probability x spread
    (Neyman allocation) after a pilot round.
    """
    seed = _check_seed(seed)
    if not precision > 0:
        raise SimulationError(f"precision must be positive, got {precision}")
    model = round_model(game, stake)
    sheet = par(game, full_cycle=False)
    spec = _spec(game, model.stake, seed, STREAM_CONDITIONAL)
    remember_model(spec, model)
    cost = model.params.cost_units
    active = [i for i, s in enumerate(model.strata) if s.probability > 0]
    results: dict = {}
    next_index = dict.fromkeys(active, 0)
    start = time.perf_counter()
    interrupted = False
    bar = make_progress(0, progress, unit="round")

    def state_of(index):
        return combine({k: r for k, r in results.items() if k[0] == index}, len(model.components), len(model.counters))

    with JobRunner(spec, workers, scheduler, bar) as runner:
        batch = {i: 1 for i in active}  # pilot: one chunk per state
        while batch and not interrupted:
            jobs = []
            for i, count in batch.items():
                for _ in range(count):
                    jobs.append(((i, next_index[i]), chunk_size, i))
                    next_index[i] += 1
            if bar is not None:
                bar.total = (bar.total or 0) + sum(r for _, r, _ in jobs)
                bar.refresh()
            results.update(runner.run(jobs))
            interrupted = runner.interrupted
            # precision reached?
            per_state = {i: state_of(i) for i in active}
            sigma = {}
            var = 0.0
            for i in active:
                res = per_state[i]
                n = res.rounds
                p = float(model.strata[i].probability)
                mean = res.extra[0] / n
                sd = math.sqrt(max(res.extra[1] / n - mean * mean, 0.0))
                sigma[i] = p * sd
                var += (p * sd) ** 2 / n
            half = 1.959963984540054 * math.sqrt(var) / cost
            if half <= precision:
                break
            if max_seconds is not None and time.perf_counter() - start > max_seconds:
                break
            # Neyman allocation of the samples still needed
            total_sigma = sum(sigma.values())
            needed = (1.959963984540054 * total_sigma / (precision * cost)) ** 2
            batch = {}
            for i in active:
                target = needed * sigma[i] / total_sigma if total_sigma else 0
                have = per_state[i].rounds
                if target > have:
                    missing = math.ceil((target - have) / chunk_size)
                    batch[i] = max(1, min(missing, max(4, 2 * workers) * 4))
            if not batch:
                # estimates moved: add one chunk to the state with the largest share of the variance
                worst = max(active, key=lambda i: sigma[i] ** 2 / per_state[i].rounds)
                batch = {worst: 1}
    if bar is not None:
        bar.close()
    elapsed = time.perf_counter() - start
    per_state = {i: state_of(i) for i in active}
    return RtpEstimate(model, sheet, per_state, seed=seed, elapsed=elapsed, precision=precision, interrupted=interrupted,
                       jackpot_rtp=analytic_rtp(model.jackpots) if model.jackpots else 0.0)
