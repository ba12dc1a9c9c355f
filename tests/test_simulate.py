"""Simulation engine: random streams, agreement with the exact engine, reproducibility,
interruption and resumption, Dask, jackpots."""

import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from numba import njit

from workbench import load_game, par
from workbench.errors import SimulationError
from workbench.simulate import engine, estimate_rtp, round_model, simulate
from workbench.simulate.jackpots import analytic_rtp, reseed_balance, simulate_jackpots
from workbench.simulate.kernel import count_groups, quiet_check, screen_is_quiet, spin_windows
from workbench.model import JackpotTier
from workbench.simulate.rng import bounded, chunk_generator, generator_state, next_uint32, next_uint64, uniform


# ---------------------------------------------------------------------------
# random streams
# ---------------------------------------------------------------------------
@njit
def _draw(state, n, kind):
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        if kind == 0:
            out[i] = float(next_uint64(state) >> np.uint64(11))
        elif kind == 1:
            out[i] = uniform(state)
        elif kind == 2:
            out[i] = next_uint32(state)
        else:
            out[i] = bounded(state, 7)
    return out


def test_compiled_stream_is_numpys_sfc64_bit_for_bit():
    g = chunk_generator(42, 5)
    raw = g.bit_generator.random_raw(1000)
    assert np.array_equal(_draw(generator_state(chunk_generator(42, 5)), 1000, 0), (raw >> np.uint64(11)).astype(float))
    assert np.array_equal(_draw(generator_state(chunk_generator(42, 5)), 1000, 1), chunk_generator(42, 5).random(1000))
    ref32 = chunk_generator(42, 6).integers(0, 2**32, size=999, dtype=np.uint32)
    assert np.array_equal(_draw(generator_state(chunk_generator(42, 6)), 999, 2), ref32.astype(float))


@njit(cache=True)
def _bounded_draws(state, n, k):
    out = np.empty(k, dtype=np.int64)
    for i in range(k):
        out[i] = bounded(state, n)
    return out


@pytest.mark.parametrize("n", [7, 100, 1_000, 65_537, 2**31 - 1, 2_112_000_000, 3_000_000_000, 2**32 - 1])
def test_compiled_bounded_draws_are_numpys(n):
    """Lemire's method with numpy's rejection threshold 2^32 mod n, for small and large n: numpy's
    ``integers(0, n, dtype=uint32)`` bit for bit (a large n rejects often, so a wrong threshold shows at once)."""
    ref = chunk_generator(9, n % 1000).integers(0, n, size=20_000, dtype=np.uint32)
    assert np.array_equal(_bounded_draws(generator_state(chunk_generator(9, n % 1000)), n, 20_000), ref.astype(np.int64))


def test_chunk_streams_differ_and_repeat():
    a = _draw(generator_state(chunk_generator(1, 0)), 10, 0)
    b = _draw(generator_state(chunk_generator(1, 1)), 10, 0)
    c = _draw(generator_state(chunk_generator(2, 0)), 10, 0)
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(a, _draw(generator_state(chunk_generator(1, 0)), 10, 0))


def test_bounded_is_uniform():
    draws = _draw(generator_state(chunk_generator(3, 0)), 700_000, 3).astype(int)
    counts = np.bincount(draws, minlength=7)
    expected = len(draws) / 7
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert counts.min() >= 0 and len(counts) == 7
    assert chi2 < 22.5  # 6 degrees of freedom, p ~ 0.001


# ---------------------------------------------------------------------------
# classic game: the simulator agrees with the exact engine
# ---------------------------------------------------------------------------
def _strip_timing(d):
    return {k: v for k, v in d.items() if k not in ("elapsed_seconds", "setup_seconds", "spins_per_second")}


def test_classic_simulation_agrees_with_exact(classic):
    sheet = par(classic)
    res = simulate(classic, 2_000_000, seed=11)
    assert res.spins == 2_000_000
    assert abs(res.rtp - sheet.rtp) < 4 * res.rtp_ci95 / 1.96
    for name, exact in sheet.components.items():
        est = res.components[name]
        assert abs(est.value - exact) < 4.5 * max(est.ci95, 1e-9) / 1.96, name
    assert abs(res.hit_frequency - sheet.hit_frequency) < 5 * math.sqrt(sheet.hit_frequency * (1 - sheet.hit_frequency) / res.spins)
    assert abs(res.std - sheet.std) / sheet.std < 0.03
    assert res.max_win <= sheet.max_win
    assert res.bucket_counts.sum() == round(res.hit_frequency * res.spins)
    assert list(res.trace["spins"])[-1] == res.spins


def test_same_seed_same_result_whatever_the_workers(classic):
    one = simulate(classic, 600_000, seed=5, chunk_size=100_000)
    two = simulate(classic, 600_000, seed=5, chunk_size=100_000, workers=2)
    assert _strip_timing(one.to_dict()) == _strip_timing(two.to_dict())
    other = simulate(classic, 600_000, seed=6, chunk_size=100_000)
    assert other.rtp != one.rtp


def test_interrupted_then_resumed_equals_uninterrupted(classic, tmp_path, monkeypatch):
    full = simulate(classic, 800_000, seed=9, chunk_size=100_000)
    checkpoint = tmp_path / "run.ckpt"

    class Interrupting:
        def __init__(self, *a, **k):
            self.n = 0

        def update(self, k):
            self.n += 1
            if self.n == 3:
                raise KeyboardInterrupt

        def close(self):
            pass

    monkeypatch.setattr(engine, "make_progress", lambda *a, **k: Interrupting())
    import workbench.simulate as sim

    monkeypatch.setattr(sim, "make_progress", lambda *a, **k: Interrupting())
    partial = simulate(classic, 800_000, seed=9, chunk_size=100_000, checkpoint=str(checkpoint), progress=True)
    assert partial.interrupted and 0 < partial.spins < 800_000
    assert checkpoint.exists()
    monkeypatch.undo()
    resumed = simulate(classic, 800_000, seed=9, chunk_size=100_000, checkpoint=str(checkpoint))
    assert not resumed.interrupted
    assert _strip_timing(resumed.to_dict()) == _strip_timing(full.to_dict())


def test_checkpoint_of_another_run_is_refused(classic, tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    simulate(classic, 200_000, seed=1, chunk_size=100_000, checkpoint=str(checkpoint))
    with pytest.raises(SimulationError, match="different run"):
        simulate(classic, 200_000, seed=2, chunk_size=100_000, checkpoint=str(checkpoint))


def test_bad_arguments_raise_clear_errors(classic):
    with pytest.raises(SimulationError, match="seed"):
        simulate(classic, 10, seed=-1)
    with pytest.raises(SimulationError, match="spins"):
        simulate(classic, 0, seed=1)
    with pytest.raises(SimulationError, match="workers"):
        simulate(classic, 10, seed=1, workers=0)


def test_cli_ctrl_c_stops_within_a_second_with_partial_json(root, tmp_path):
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "simulate", "classic_tens", "--spins", "2000000000", "--seed", "3",
         "--json", "--quiet", "--checkpoint", str(tmp_path / "c.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    # wait until the run has produced work (checkpoint written after a few chunks)
    deadline = time.time() + 120
    while time.time() < deadline and not (tmp_path / "c.json").exists():
        time.sleep(0.2)
    time.sleep(1.0)
    sent = time.time()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    stopped = time.time() - sent
    assert stopped < 1.5, f"took {stopped:.2f} s to stop"
    assert proc.returncode == 130
    data = json.loads(out)
    assert data["interrupted"] is True and 0 < data["spins"] < 2_000_000_000
    assert "Traceback" not in err


def test_dask_cluster_gives_the_local_result(classic):
    from dask.distributed import LocalCluster

    local = simulate(classic, 400_000, seed=21, chunk_size=100_000)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = simulate(classic, 400_000, seed=21, chunk_size=100_000, scheduler=cluster.scheduler_address)
    assert _strip_timing(remote.to_dict()) == _strip_timing(local.to_dict())


def test_a_dask_run_plays_jobs_of_several_blocks_and_gives_the_local_result(classic):
    from dask.distributed import LocalCluster

    from workbench.simulate.lanes import SIMULATE_BLOCK

    spins = 33 * SIMULATE_BLOCK + 12_345  # 34 blocks: jobs of 4 blocks on 2 worker threads
    local = simulate(classic, spins, seed=22)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = simulate(classic, spins, seed=22, scheduler=cluster.scheduler_address)
    assert _strip_timing(remote.to_dict()) == _strip_timing(local.to_dict())


def test_dask_jobs_grow_only_where_the_runner_chooses_their_size():
    from workbench.simulate.lanes import SIMULATE_BLOCK, Plan
    from workbench.simulate.runner import DASK_BLOCKS_PER_JOB, dask_job_blocks

    def plan(chunk: int, blocks: int) -> Plan:
        made = Plan(SIMULATE_BLOCK, chunk, 1, 1)
        made.lane(-1, blocks * SIMULATE_BLOCK)
        return made

    one = plan(SIMULATE_BLOCK, 100)
    dask_job_blocks(one, 2, False)
    assert one.blocks_per_job == DASK_BLOCKS_PER_JOB == 8
    dask_job_blocks(one, 20, False)  # 100 blocks on 20 threads: one block per job keeps 4 jobs per thread
    assert one.blocks_per_job == 1
    lane = one.lanes[-1]
    lane.cursor = 88  # 12 blocks left on 2 threads: jobs of 1 block again, so the last ones are shared out
    dask_job_blocks(one, 2, False)
    assert one.blocks_per_job == 1
    boxed = plan(SIMULATE_BLOCK, 100)
    dask_job_blocks(boxed, 2, True)  # a time box keeps its short jobs
    assert boxed.blocks_per_job == 1
    chosen = plan(2 * SIMULATE_BLOCK, 100)
    dask_job_blocks(chosen, 2, False)  # a job size the caller chose is kept
    assert chosen.blocks_per_job == 2
    parts = plan(SIMULATE_BLOCK // 4, 100)
    dask_job_blocks(parts, 2, False)
    assert parts.blocks_per_job == 1 and parts.piece_rounds == SIMULATE_BLOCK // 4


def test_estimate_rtp_without_features_is_exact(classic):
    est = estimate_rtp(classic, precision=0.0002, seed=1)
    sheet = par(classic)
    assert est.rtp == pytest.approx(sheet.rtp, abs=1e-15) and est.rtp_ci95 == 0.0
    assert est.hit_frequency == pytest.approx(sheet.hit_frequency)
    assert est.std == pytest.approx(sheet.std)


# ---------------------------------------------------------------------------
# must-drop jackpots
# ---------------------------------------------------------------------------
TIERS = (
    JackpotTier("Epic", 15000.0, 0.003, 0.001, 0.25),
    JackpotTier("Major", 5000.0, 0.00525, 0.00175, 0.25),
    JackpotTier("Minor", 1500.0, 0.00675, 0.00225, 0.25),
)


def test_mega_drop_rates_are_balanced_and_sum_to_two_percent():
    assert analytic_rtp(TIERS) == pytest.approx(0.02)
    for tier in TIERS:
        assert reseed_balance(tier) == pytest.approx(0.0, abs=1e-12)


def test_jackpot_simulation_converges_to_the_analytic_return():
    run = simulate_jackpots(TIERS, 10.0, 200_000_000, np.random.default_rng(4))
    assert sum(run.drops.values()) > 100
    assert run.rtp == pytest.approx(analytic_rtp(TIERS), rel=0.03)
    # must-drop: no pot ever pays above its must-drop value (plus one wager's feed)
    for tier in TIERS:
        if run.drops[tier.name]:
            assert run.paid[tier.name] / run.drops[tier.name] <= tier.must_drop


def test_never_two_jackpots_per_wager():
    # identical tiers cross on the same wager every time: only one may pay per wager
    same = (JackpotTier("A", 100.0, 0.01, 0.0, 0.999), JackpotTier("B", 100.0, 0.01, 0.0, 0.999))
    run = simulate_jackpots(same, 1.0, 100_000, np.random.default_rng(1), warmup_drops=0, record=True)
    wagers = [w for w, _, _ in run.events]
    assert len(wagers) > 10
    assert len(wagers) == len(set(wagers))  # never two wins on one wager
    both = [w for w, tier, _ in run.events if tier == "B"]
    assert any(w - 1 in set(wagers) for w in both)  # B deferred to the next wager at least once


def test_cli_json_outputs_carry_the_documented_keys(capsys):
    from workbench import cli

    assert cli.main(["simulate", "super_10_stars", "--spins", "20000", "--seed", "5", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("spins", "rtp", "rtp_ci95", "components", "hit_frequency", "volatility_index_90", "max_win",
                "spins_per_second", "features", "counters"):
        assert key in out, key
    assert out["spins"] == 20_000 and out["counters"]["free_spins"] == out["features"]["free_spins"]["starts"]
    assert cli.main(["rtp", "super_10_stars", "--precision", "0.01", "--seed", "5", "--json", "--quiet"]) == 0
    est = json.loads(capsys.readouterr().out)
    for key in ("rtp", "rtp_ci95", "components", "hit_frequency", "volatility_index_90", "max_win"):
        assert key in est, key
    assert est["rtp_ci95"] <= 0.01


@pytest.mark.parametrize("cost_units", [1, 30, 75, 1000])
def test_bucket_lookup_table_agrees_with_the_bucket_search(cost_units):
    from workbench.simulate.chunks import BUCKET_EDGES, _bucket, bucket_lut

    edges = BUCKET_EDGES * cost_units
    lut = bucket_lut(edges, cost_units)
    assert len(lut) == min(1 << 16, 1000 * cost_units + 1)
    for win in range(1, len(lut)):
        assert lut[win] == _bucket(edges, win), win


def test_a_quiet_screen_is_one_where_no_scatter_reaches_a_paying_or_triggering_count():
    game = load_game("super_10_stars")
    p = round_model(game).params
    groups = list(game.scatters)
    triggers = {groups.index("WHEEL"): 3, groups.index("BONUS"): 3, groups.index("SUPER7"): 1, groups.index("SUPER10"): 1}
    bias, mask = quiet_check(game, p.scat, triggers)
    # GOLD and SILVER pay from 3, BONUS from 1, WHEEL triggers at 3, SUPER7 and SUPER10 at 1
    thresholds = [3, 3, 1, 3, 1, 1]
    rng = chunk_generator(9, 0)
    state = generator_state(rng)
    counts = np.zeros(len(groups), dtype=np.int64)
    wins = np.zeros(game.reels, dtype=np.int64)
    seen = {True: 0, False: 0}
    for s in (0, 1):  # both base strip sets
        for _ in range(20_000):
            spin_windows(p.base, s, state, wins)
            count_groups(p.base, s, p.scat, wins, counts, -1)
            quiet = screen_is_quiet(p.base, s, wins, bias, mask)
            assert quiet == all(c < t for c, t in zip(counts, thresholds)), (counts, quiet)
            seen[bool(quiet)] += 1
    assert seen[True] > 0 and seen[False] > 0
    # a group counted on adjacent reels cannot be read from the packed counts: never quiet
    bier_haus = load_game("bier_haus_oktober_fest")
    assert quiet_check(bier_haus, round_model(bier_haus).params.scat, {}) == (0, 0)
