"""Invariants of simulated runs (the checks of ``benchmarks/bench_invariants.py``, 200,000 rounds per game).

Every shipped game is simulated and checked from its exact integer sums
(:func:`workbench.simulate.invariants.check_invariants`): no round above the
max-win cap (or the exact maximum of a game of single base spins), never two
jackpots on one wager, components adding up to the total, weighted tables and
strip-set weights compiled as the file gives them, RTP = total won / (rounds x
cost).  Then each check is shown to fail on a run or a game with the fault it
looks for.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from workbench.io import load_game, shipped_games
from workbench.simulate import round_model, simulate
from workbench.simulate.chunks import ChunkResult
from workbench.simulate.jackpots import simulate_jackpots
from workbench.model import JackpotTier
from workbench.simulate.invariants import check_invariants
from workbench.simulate.results import SimulationResult

ROUNDS = 200_000
SEED = 11

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench_invariants  # noqa: E402


@pytest.fixture(scope="module")
def runs() -> dict:
    """200,000 rounds of every shipped game, with the bound the benchmark uses."""
    out = {}
    for name in shipped_games():
        game = load_game(name)
        out[name] = (simulate(game, ROUNDS, SEED), bench_invariants.exact_max_units(game))
    return out


def _by_name(checks) -> dict:
    return {c.name: c for c in checks}


def _copy(result: SimulationResult, *, model=None, raw: ChunkResult | None = None, jackpots="same") -> SimulationResult:
    """The result rebuilt (from a copy of its sums unless ``raw`` is given), optionally with another model or jackpot run."""
    total = raw if raw is not None else ChunkResult.from_json(result.raw.to_json())
    return SimulationResult(model or result.model, total, seed=result.seed, requested=result.requested, elapsed=result.elapsed,
                            jackpots=result.jackpots if jackpots == "same" else jackpots)


@pytest.mark.parametrize("name", shipped_games())
def test_every_invariant_holds_over_200000_rounds(runs, name):
    result, bound = runs[name]
    checks = _by_name(check_invariants(result, bound))
    expected = {"max_win_cap", "components_sum", "weighted_tables", "strip_set_weights", "cost"}
    if result.model.jackpots:
        expected.add("one_jackpot_per_wager")
    assert set(checks) == expected
    for check in checks.values():
        assert check.ok, f"{name}: {check.name}: {check.figures}"
    assert result.spins == ROUNDS


def test_the_caps_checked_are_the_games_caps(runs):
    bier, _ = runs["bier_haus_oktober_fest"]
    cap = _by_name(check_invariants(bier))["max_win_cap"]
    assert "cap 5555.55 x total bet" in cap.figures  # 250,000 at the reference stake of 45, in whole pay units
    classic, bound = runs["classic_tens"]
    assert bound == 1750  # the exact PAR maximum, 175 x the total bet of 10
    assert "exact max 175 x total bet" in _by_name(check_invariants(classic, bound))["max_win_cap"].figures
    super10, bound = runs["super_10_stars"]
    assert bound is None and "cap none" in _by_name(check_invariants(super10))["max_win_cap"].figures


def test_a_round_above_the_cap_is_a_violation(runs):
    result, _ = runs["bier_haus_oktober_fest"]
    raw = ChunkResult.from_json(result.raw.to_json())
    raw.maxwin[:] = [int(result.model.params.cap_units) + 1, 3]
    check = _by_name(check_invariants(_copy(result, raw=raw)))["max_win_cap"]
    assert check.violations == 3
    classic, bound = runs["classic_tens"]
    raw = ChunkResult.from_json(classic.raw.to_json())
    raw.maxwin[:] = [bound + 1, 1]
    assert _by_name(check_invariants(_copy(classic, raw=raw), bound))["max_win_cap"].violations == 1


def test_components_that_do_not_add_up_are_a_violation(runs):
    result, _ = runs["super_10_stars"]
    raw = ChunkResult.from_json(result.raw.to_json())
    raw.comp_sum[result.model.components.index("free_spins")] += 1  # one pay unit paid twice
    check = _by_name(check_invariants(_copy(result, raw=raw)))["components_sum"]
    assert not check.ok and "difference 1 pay units" in check.figures


def test_a_cost_other_than_the_games_is_a_violation(runs):
    result, _ = runs["classic_tens"]
    wrong = replace(result.model, params=result.model.params._replace(cost_units=result.model.params.cost_units + 1))
    assert not _by_name(check_invariants(_copy(result, model=wrong)))["cost"].ok


def test_compiled_weights_that_are_not_the_files_are_a_violation(runs):
    result, _ = runs["bier_haus_oktober_fest"]
    params = result.model.params
    beer = params.beer_cum.copy()
    beer[-1] += 1  # the last entry drawn one time in total-weight + 1 too often
    wrong = replace(result.model, params=params._replace(beer_cum=beer))
    check = _by_name(check_invariants(_copy(result, model=wrong)))["weighted_tables"]
    assert check.violations == 1 and "beer_cum" in check.figures
    free = params.free._replace(set_cum=params.free.set_cum * 2)
    wrong = replace(result.model, params=params._replace(free=free))
    check = _by_name(check_invariants(_copy(result, model=wrong)))["strip_set_weights"]
    assert check.violations == 1 and "free: 2 (no mode" in check.figures


def test_a_jackpot_run_that_differs_from_its_replay_is_a_violation(runs):
    result, _ = runs["bier_haus_oktober_fest"]
    run = result.jackpots
    other = replace(run, drops={k: v + (1 if i == 0 else 0) for i, (k, v) in enumerate(run.drops.items())})
    check = _by_name(check_invariants(_copy(result, jackpots=other)))["one_jackpot_per_wager"]
    assert not check.ok and "replay matches NO" in check.figures
    twice = replace(run, max_wins_per_wager=2)
    assert not _by_name(check_invariants(_copy(result, jackpots=twice)))["one_jackpot_per_wager"].ok


def test_tiers_crossing_on_the_same_wager_pay_one_and_defer_the_other():
    # two identical tiers cross their drop points together now and then: one pays, the other on the next wager
    tier = dict(must_drop=2.0, pot_rate=0.1, reseed_rate=0.0, reseed_fraction=0.5)  # a drop every 10 wagers or fewer
    tiers = (JackpotTier("A", **tier), JackpotTier("B", **tier))
    run = simulate_jackpots(tiers, 1.0, 20_000, np.random.default_rng(3), record=True)
    wagers = [w for w, _, _ in run.events]
    assert run.deferred > 0 and run.max_wins_per_wager == 1
    assert len(wagers) == len(set(wagers)) == run.wins
    assert all(b > a for a, b in zip(wagers, wagers[1:]))


def test_the_benchmark_prints_one_line_per_game_and_invariant(capsys):
    assert bench_invariants.main(["--rounds", "20000", "--workers", "1", "--games", "classic_tens"]) == 0
    out = capsys.readouterr().out.splitlines()
    names = [line.split()[1] for line in out if line.startswith("classic_tens")]
    assert names == ["max_win_cap", "components_sum", "weighted_tables", "strip_set_weights", "cost", "run"]
    assert all("violations: 0" in line for line in out if line.startswith("classic_tens") and "run time" not in line)


def test_a_pot_fed_past_its_must_drop_value_in_one_wager_drops_every_wager():
    # 45 x 0.5 = 22.5 a wager into a pot that must drop at 1.0: every restart is already past it
    run = simulate_jackpots((JackpotTier("A", 1.0, 0.5, 0.0, 0.5),), 45.0, 1_000, np.random.default_rng(1), record=True)
    assert run.wins == 1_000 and run.max_wins_per_wager == 1
    assert [w for w, _, _ in run.events] == list(range(1, 1_001))
