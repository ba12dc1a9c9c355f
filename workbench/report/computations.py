"""The report's computations, one call per notebook cell: the PAR sheet, the RTP estimate, the simulation,
the estimates of each stake and bet mode, session quantiles and the simulation's check against the estimate.

RTP and probabilities are fractions; amounts are x total bet."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .defaults import (DEFAULT_PRECISION, DEFAULT_SEED, DEFAULT_SPINS, SESSIONS, STAKE_PRECISION_FACTOR)
from .formats import _finite


AGREEMENT_Z = 3.0  # |z| <= 3: the simulation agrees with the exact + conditional RTP
CHECK_RTP = 0.01  # the RTP error (1 % of the total bet) a meaningful simulation check must be able to detect
BAND_SIMULATION_DRAWS = 20_000_000  # session spins simulated for the RTP bands (normal theory beyond that)


def load_report_game(game):
    """The game to report on: a Game, a path or a shipped name."""
    from ..io import load_game
    from ..model import Game

    return game if isinstance(game, Game) else load_game(game)


def par_sheet(game):
    """Exact base-game PAR sheet (full cycle when it fits the default budget); a figure over the exact engine's
    budgets alone is simulated and labelled so (:func:`workbench.simulate.complete_par`)."""
    from ..simulate import complete_par

    return complete_par(game)


def rtp_estimate(game, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED, workers: int = 1, stake=None,
                 budget=None, step: str = "rtp", parts: int = 1):
    """RTP by exact base game + conditional simulation of the features, to ``precision`` (95 % half-width);
    ``budget``: the report's :class:`~workbench.report.budget.TimeBudget` (its share for ``step``)."""
    from ..simulate import estimate_rtp

    est = estimate_rtp(game, precision, seed, workers=workers, stake=stake,
                       max_seconds=budget.share(step, parts) if budget is not None else None)
    if budget is not None:
        budget.record(step, est)
    return est


def simulation_rounds(est, spins: int, sim_precision: float | None = None) -> int:
    """Rounds of the end-to-end simulation: ``spins``, or with ``sim_precision`` (a 95 % half-width of the RTP,
    fraction of the round's price) ``(1.96 x std / sim_precision)^2`` from the RTP estimate's std of a round's win
    (at least 10,000, at most 10^13)."""
    if sim_precision is None:
        return int(spins)
    std = est.std if _finite(est.std) and est.std > 0 else 0.0
    need = math.ceil((1.959963984540054 * std / float(sim_precision)) ** 2)
    return int(min(max(need, 10_000), 10**13))


def simulation(game, spins: int = DEFAULT_SPINS, seed: int = DEFAULT_SEED, workers: int = 1, budget=None):
    """End-to-end simulation of ``spins`` rounds (features, win distribution, max win seen)."""
    from ..simulate import simulate

    sim = simulate(game, spins, seed, workers=workers,
                   max_seconds=budget.share("simulation") if budget is not None else None)
    if budget is not None:
        budget.record("simulation", sim)
    return sim


def report_stakes(game, stakes=None) -> list:
    """Stake levels to report: ``stakes`` if given, else the game's stake ladder."""
    chosen = game.bet.stakes if stakes is None else stakes
    return [float(s) for s in chosen]


def stake_estimates(game, stakes=None, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED,
                    workers: int = 1, budget=None) -> dict:
    """RTP estimate at each stake level (currency); half-width ``STAKE_PRECISION_FACTOR x precision``.

    The same seed is used at every stake (common random numbers), so
    differences between stakes are measured more precisely than each level.
    """
    levels = report_stakes(game, stakes)
    return {s: rtp_estimate(game, STAKE_PRECISION_FACTOR * precision, seed, workers, stake=s, budget=budget,
                            step="stakes", parts=len(levels) - k) for k, s in enumerate(levels)}


def rtp_trace(sim) -> pd.DataFrame:
    """The simulation's running RTP after each chunk (spins, rtp, ci95), jackpot RTP included
    so it is comparable with the total RTP (the trace itself follows the game's RTP only)."""
    trace = sim.trace.copy()
    trace["rtp"] = trace["rtp"] + sim.jackpot_rtp
    return trace


def round_distribution(sheet, est, sim):
    """Best source of the whole-round win distribution: the exact PAR sheet when the
    game is fully exact (no features, no jackpots) and its full cycle was enumerated,
    else the simulation."""
    exact_only = all(e.source == "exact" for e in est.components.values()) and not est.jackpot_rtp
    return sheet if exact_only and sheet.distribution is not None else sim


def bet_mode_estimates(game, est, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED, workers: int = 1,
                       budget=None) -> list:
    """Every bet mode's figures (:class:`~workbench.simulate.BetModeEstimate`, x its own cost): ``base`` from
    ``est``, each declared ``[bet_modes.*]`` estimated to ``precision`` x its cost; empty for a game without them."""
    if not game.bet_modes:
        return []
    from ..simulate import BetModeEstimate

    out = [BetModeEstimate(game.all_bet_modes["base"], est)]
    base = game.in_bet_mode("base")  # the report's game may be a copy: play every mode of its own text
    others = [name for name in game.all_bet_modes if name != "base"]
    for k, name in enumerate(others):
        mode_est = rtp_estimate(base.in_bet_mode(name), precision, seed, workers, budget=budget, step="modes",
                                parts=len(others) - k)
        out.append(BetModeEstimate(game.all_bet_modes[name], mode_est))
    return out


def choice_policies(game, est, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED, workers: int = 1,
                    budget=None) -> dict:
    """The RTP of every policy of every ``[choices.*]`` (:func:`workbench.simulate.policies.choice_rtps`), each
    option estimated to ``precision`` with ``seed`` (``est`` is the option played); empty without choices."""
    if not game.choices:
        return {}
    from ..simulate.policies import choice_rtps

    others = sum(len(c.options) - 1 for c in game.choices.values())
    share = budget.share("choices", others) if budget is not None else None
    out = choice_rtps(game, precision, seed, workers=workers, max_seconds=share, played=est)
    if budget is not None:
        for result in out.values():
            for option_est in result.estimates.values():
                budget.record("choices", option_est)
    return out


def session_rtp_quantiles(source, n: int, qs, sessions: int = SESSIONS, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Quantiles ``qs`` of the RTP over ``n`` spins, from ``sessions`` simulated sessions (seeded)."""
    from ..plots import sample_wins

    rng = np.random.default_rng([seed, n])
    chunk = max(1, min(sessions, 2_000_000 // max(n, 1)))
    means = []
    done = 0
    while done < sessions:
        k = min(chunk, sessions - done)
        means.append(sample_wins(source, (k, n), rng).mean(axis=1))
        done += k
    return np.quantile(np.concatenate(means), qs)


def simulation_check(sim, est, threshold: float = AGREEMENT_Z, detect: float = CHECK_RTP) -> dict:
    """The simulation against the exact + conditional RTP: difference, z, verdict and whether the
    simulation is large enough to detect an RTP error of ``detect`` (fraction of the total bet)."""
    diff = sim.rtp - est.rtp
    sigma = math.hypot(sim.rtp_ci95, est.rtp_ci95) / 1.959963984540054
    z = diff / sigma if sigma > 0 else math.nan
    resolution = threshold * sigma  # the smallest RTP error the check flags
    meaningful = _finite(resolution) and resolution <= detect
    std = getattr(sim, "std", math.nan)
    needed = math.ceil((threshold * std / detect) ** 2) if _finite(std) and std > 0 else None
    if not meaningful:
        verdict = (f"not a meaningful check at {sim.spins:,} spins: it can only flag RTP errors larger than "
                   f"± {100 * resolution:.2f} % (|z| > {threshold:g}); about {needed:,} spins are needed to detect "
                   f"a {100 * detect:g} % error" if needed else f"not a meaningful check at {sim.spins:,} spins")
    elif not _finite(z) or abs(z) <= threshold:
        verdict = f"agrees (|z| = {abs(z):.2f} <= {threshold:g})" if _finite(z) else "agrees (both exact)"
    else:
        verdict = f"DISAGREES (|z| = {abs(z):.2f} > {threshold:g}): check the game and the simulation"
    return {"difference": diff, "z": z, "resolution": resolution, "meaningful": meaningful, "spins_needed": needed,
            "verdict": verdict}


def feature_samples_wanted(precision: float = DEFAULT_PRECISION) -> int:
    """Starts sampled per feature: 20,000 at the default precision (± 0.05 %) or finer, fewer for a coarser report
    in proportion (at least 1,000)."""
    from ..simulate.feature_sample import DEFAULT_FEATURES

    return int(min(DEFAULT_FEATURES, max(1_000, DEFAULT_FEATURES * DEFAULT_PRECISION / float(precision))))


def feature_statistics(game, seed: int = DEFAULT_SEED, budget=None, stake=None, precision: float = DEFAULT_PRECISION):
    """Every feature of ``game`` sampled where it starts (:func:`workbench.simulate.feature_sample.sample_features`,
    :func:`feature_samples_wanted` starts each), within the report's time box (its ``features`` share) or 20 s."""
    from ..simulate.engine import round_model
    from ..simulate.feature_sample import DEFAULT_SECONDS, sample_features

    seconds = budget.share("features") if budget is not None and budget.max_seconds else DEFAULT_SECONDS
    stats = sample_features(round_model(game, stake), seed, wanted=feature_samples_wanted(precision),
                            max_seconds=min(seconds, DEFAULT_SECONDS))
    if budget is not None:
        budget.record("features", stats)
    return stats
