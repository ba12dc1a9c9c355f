"""Feature statistics sampled where each feature starts (workbench.simulate.feature_sample) and their report
tables: weighted to natural play, they must agree with the exact + conditional RTP estimate and with the end-to-end
simulation of the same game, be reproducible from the seed, and hold their own arithmetic (percentiles, spins)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import SimulationError
from workbench.io import load_game
from workbench.report.feature_stats import (feature_statistics_data, feature_statistics_table,
                                            spins_distribution_table)
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.engine import round_model
from workbench.simulate.feature_sample import FeatureSample, sample_features
from workbench.simulate.plan import end_to_end_plan

EXAMPLES = Path(__file__).resolve().parents[1] / "reelsets" / "examples"


def _sample(wins, weights, spins=None, retriggers=None) -> FeatureSample:
    return FeatureSample(name="f", wins=np.asarray(wins, float), spins=None if spins is None else np.asarray(spins),
                         retriggers=None if retriggers is None else np.asarray(retriggers),
                         weights=np.asarray(weights, float), rounds=len(wins), frequency_ci95=0.0, exact_trigger=False)


def test_weighted_percentiles_means_and_spins_by_hand():
    # wins 1, 2, 10, 100 with weights 0.4, 0.3, 0.2, 0.1 (of a feature starting 1 in 10 rounds)
    s = _sample([10, 1, 100, 2], [0.02, 0.04, 0.01, 0.03], spins=[10, 10, 15, 20], retriggers=[0, 0, 1, 2])
    assert s.frequency == pytest.approx(0.1)
    assert s.percentile(40) == 1 and s.percentile(41) == 2 and s.percentile(70) == 2
    assert s.percentile(90) == 10 and s.percentile(99.9) == 100 and s.percentile(50) == 2
    assert s.mean_win[0] == pytest.approx(0.4 * 1 + 0.3 * 2 + 0.2 * 10 + 0.1 * 100)
    assert s.mean_spins[0] == pytest.approx(0.4 * 10 + 0.3 * 20 + 0.2 * 10 + 0.1 * 15)
    assert s.retrigger_rate[0] == pytest.approx(0.4)  # the 20-spin and the 15-spin samples retriggered
    assert s.mean_retriggers == pytest.approx(0.3 * 2 + 0.1 * 1)
    assert s.spins_distribution() == [(10, pytest.approx(0.6)), (15, pytest.approx(0.1)), (20, pytest.approx(0.3))]
    table = spins_distribution_table(type("S", (), {"features": {"f": s}})())
    assert [v.split(" ± ")[0] for v in table["at least this many"]] == ["1", "0.4", "0.3"]
    assert [v.split(" ± ")[1] for v in table["at least this many"]][0] == "0"  # every feature has at least 10
    assert all(" ± " in v for v in table["probability"])


@pytest.fixture(scope="module")
def ways_free_spins():
    game = load_game(EXAMPLES / "ways_free_spins.toml")
    model = round_model(game)
    return game, model, sample_features(model, seed=5, wanted=4_000, max_seconds=60)


def test_a_trigger_state_game_agrees_with_the_estimate_and_the_simulation(ways_free_spins):
    game, model, stats = ways_free_spins
    fs = stats.features["free_spins"]
    assert not stats.timed_out and fs.count >= 4_000
    # every round of a free-spins trigger state starts the feature: its frequency is the states' exact probability
    assert fs.exact_trigger
    assert fs.frequency == pytest.approx(sum(float(s.probability) for s in model.strata), rel=1e-12)
    assert np.all(fs.spins >= 10) and fs.spins.dtype.kind == "i"  # 3 scatters award 10 spins, the fewest
    assert np.all(np.diff([fs.percentile(q) for q in (50, 90, 99, 99.9)]) >= 0)
    # the feature's RTP (frequency x mean win) agrees with the exact + conditional estimate within both intervals
    est = estimate_rtp(game, precision=0.002, seed=9, max_seconds=60)
    mean, half = fs.mean_win
    comp = est.components["free_spins"]
    assert abs(fs.frequency * mean - comp.value) <= 3 * math.hypot(fs.frequency * half / 1.96, comp.ci95 / 1.96)
    # and the end-to-end simulation's starts and average win per start
    sim = simulate(game, 400_000, 3)
    seen = sim.features["free_spins"]
    se_freq = math.sqrt(fs.frequency / sim.spins)
    assert abs(seen.frequency - fs.frequency) <= 4 * se_freq
    assert abs(seen.average_win - mean) <= 4 * math.hypot(half / 1.96, fs.std_win / math.sqrt(max(seen.starts, 1)))
    table = feature_statistics_table(stats, est)
    assert "exact" in table.loc["starts (per round)", "free_spins"]
    assert "±" in table.loc["share of the RTP", "free_spins"] and "e-0" not in table.to_string()


def test_the_same_seed_gives_the_same_samples(ways_free_spins):
    _, model, stats = ways_free_spins
    again = sample_features(model, seed=5, wanted=4_000, max_seconds=60)
    other = sample_features(model, seed=6, wanted=4_000, max_seconds=60)
    fs, fs2 = stats.features["free_spins"], again.features["free_spins"]
    assert np.array_equal(fs.wins, fs2.wins) and np.array_equal(fs.weights, fs2.weights)
    assert not np.array_equal(fs.wins[:200], other.features["free_spins"].wins[:200])
    data = feature_statistics_data(stats)
    assert data["features"]["free_spins"]["samples"] == fs.count and "seconds" not in data


def test_a_natural_play_game_is_sampled_from_whole_rounds(ways_free_spins):
    game, model, by_states = ways_free_spins
    natural = end_to_end_plan(model, "the test plays whole rounds")
    assert all(s.end_to_end for s in natural.strata)
    stats = sample_features(natural, seed=2, wanted=600, max_seconds=60)
    s, c = stats.features["free_spins"], by_states.features["free_spins"]
    assert not s.exact_trigger and s.count >= 600
    # whole rounds find the feature as often as its trigger states' exact probability says, and pay it alike
    assert abs(s.frequency - c.frequency) <= 2 * s.frequency_ci95
    assert abs(s.mean_win[0] - c.mean_win[0]) <= 2 * math.hypot(s.mean_win[1], c.mean_win[1])
    assert abs(s.mean_spins[0] - c.mean_spins[0]) <= 2 * math.hypot(s.mean_spins[1], c.mean_spins[1])


def test_bad_arguments_are_refused():
    model = round_model(load_game(EXAMPLES / "ways_free_spins.toml"))
    with pytest.raises(SimulationError, match="at least 1"):
        sample_features(model, seed=1, wanted=0)
    with pytest.raises(SimulationError, match="above 0 s"):
        sample_features(model, seed=1, max_seconds=0)
