"""Runs that are stopped, killed or spread out: SIGTERM and SIGINT to a real `workbench simulate`,
resuming from its checkpoint, a local worker process SIGKILLed mid-run, a Dask worker killed
mid-run, and results that do not depend on the chunk size or the number of workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc

import psutil
import pytest

from workbench import cli  # light: this module is imported by spawned worker processes too (see _die)
from workbench.errors import SimulationError

SIMULATE_BLOCK = cli.SIMULATE_BLOCK  # = engine.SIMULATE_BLOCK (tests/test_cli_hostile.py checks it)
SPINS = 160 * SIMULATE_BLOCK + 12_345  # classic_tens: 8-20 s on one worker (so a signal sent once the checkpoint
# shows progress always lands mid-run, even on an idle machine), a short last block
SEED = 3
TIMING = ("elapsed_seconds", "setup_seconds", "spins_per_second")


def _strip(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in TIMING}


def _cli_json(result) -> dict:
    """``result.to_dict()`` as ``workbench simulate --json`` prints it."""
    return json.loads(json.dumps(cli._finite(result.to_dict()), default=cli._json_default))


def simulate(*args, **kwargs):
    from workbench.simulate import simulate as run

    return run(*args, **kwargs)


@pytest.fixture(scope="module")
def reference(classic):
    """The uninterrupted run every stopped, resumed or disturbed run must equal."""
    return _strip(_cli_json(simulate(classic, SPINS, SEED)))


def _command(*extra: str, spins: int = SPINS) -> list[str]:
    return [sys.executable, "-m", "workbench.cli", "simulate", "classic_tens", "--spins", str(spins), "--seed", str(SEED),
            "--json", "--quiet", *extra]


def _start(*extra: str, spins: int = SPINS) -> subprocess.Popen:
    return subprocess.Popen(_command(*extra, spins=spins), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _checkpoint_rounds(path) -> int:
    """Rounds recorded in a checkpoint file (folded blocks, waiting blocks and parts)."""
    try:
        lanes = json.loads(path.read_text())["lanes"]
    except (OSError, ValueError, KeyError):
        return 0
    total = 0
    for lane in lanes:
        total += lane["total"]["totals"][0]
        total += sum(v["result"]["totals"][0] for v in lane["done"].values())
        total += sum(v["played"] for v in lane["partial"].values())
    return total


def _wait_for_progress(proc, checkpoint, blocks=3, deadline=90.0) -> None:
    start = time.time()
    while time.time() - start < deadline:
        assert proc.poll() is None, proc.communicate()
        if _checkpoint_rounds(checkpoint) >= blocks * SIMULATE_BLOCK:
            return
        time.sleep(0.05)
    raise AssertionError("the run made no progress")


def _still_running(processes, wait: float = 5.0) -> list:
    """The processes still running (zombies do not count) after up to ``wait`` seconds."""
    deadline = time.time() + wait
    while True:
        alive = []
        for p in processes:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.time() > deadline:
            return alive
        time.sleep(0.1)


# ---------------------------------------------------------------------------
# SIGTERM / SIGINT: stop within a second, partial JSON, flushed checkpoint, exact resume
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_run_prints_its_partial_result_saves_every_block_and_resumes_exactly(reference, tmp_path, signum, status):
    checkpoint = tmp_path / "run.ckpt"
    proc = _start("--checkpoint", str(checkpoint))
    _wait_for_progress(proc, checkpoint)
    assert proc.poll() is None, "the run ended before it could be stopped: make SPINS larger"
    sent = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    latency = time.monotonic() - sent
    print(f"{signal.Signals(signum).name}: stopped {latency:.3f} s after the signal")
    assert latency < 1.0, f"took {latency:.2f} s to stop"
    assert proc.returncode == status, err
    assert "Traceback" not in err
    partial = json.loads(out)
    assert partial["interrupted"] is True
    assert 3 * SIMULATE_BLOCK <= partial["spins"] < SPINS and partial["requested_spins"] == SPINS
    # every block finished when the run stopped is in the checkpoint
    assert _checkpoint_rounds(checkpoint) == partial["spins"]
    resumed = subprocess.run(_command("--checkpoint", str(checkpoint)), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    final = json.loads(resumed.stdout)
    assert final["interrupted"] is False
    assert _strip(final) == reference


def test_a_local_worker_killed_mid_run_is_replaced_and_the_result_is_unchanged(reference, tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    proc = _start("--workers", "2", "--checkpoint", str(checkpoint))
    _wait_for_progress(proc, checkpoint, blocks=1)
    workers = []
    for child in psutil.Process(proc.pid).children():
        try:
            if "spawn_main" in " ".join(child.cmdline()):  # not multiprocessing's resource tracker
                workers.append(child)
        except psutil.Error:
            pass
    assert len(workers) == 2, workers
    os.kill(workers[0].pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "restarting the worker processes" in err and "Traceback" not in err
    assert _strip(json.loads(out)) == reference
    assert not _still_running(workers)


def test_sigterm_to_a_run_with_workers_stops_them_too(tmp_path):
    checkpoint = tmp_path / "run.ckpt"
    proc = _start("--workers", "2", "--checkpoint", str(checkpoint), spins=1000 * SIMULATE_BLOCK)  # stopped long before its end
    _wait_for_progress(proc, checkpoint)
    children = psutil.Process(proc.pid).children(recursive=True)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    latency = time.monotonic() - sent
    print(f"SIGTERM with 2 workers: stopped {latency:.3f} s after the signal")
    assert latency < 1.0 and proc.returncode == 143, err
    assert json.loads(out)["interrupted"] is True
    assert not _still_running(children), "orphaned worker processes"


# ---------------------------------------------------------------------------
# Dask: a worker killed mid-run changes nothing
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def dask_cluster():
    """Two single-thread worker processes on loopback, and a client to watch (and hurt) them."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as observer:
        yield cluster, observer


def _wait_for_workers(observer, n: int = 2, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline and len(observer.nthreads()) < n:
        time.sleep(0.2)


@pytest.mark.parametrize("allowed_failures", [3, 0], ids=["dask-reschedules", "killed-worker-error-replayed"])
def test_a_dask_worker_killed_mid_run_does_not_change_the_result(classic, monkeypatch, caplog, dask_cluster, allowed_failures):
    """With Dask's default, the scheduler plays the lost jobs again elsewhere; with
    ``allowed-failures: 0`` it gives them up at once (KilledWorker) and the runner submits them again."""
    import workbench.simulate as sim

    cluster, observer = dask_cluster
    monkeypatch.setattr(cluster.scheduler, "allowed_failures", allowed_failures)
    spins = 48 * SIMULATE_BLOCK  # enough jobs that one is in play when a worker dies
    local = _strip(simulate(classic, spins, 21).to_dict())
    _wait_for_workers(observer)
    before = observer.run(os.getpid)
    killed = []

    class KillAWorker:
        """Progress bar that kills the busiest worker's process at the first finished job
        after which the scheduler shows that worker with a job in play."""

        def update(self, rounds):
            if not killed:
                busy = observer.processing()
                victim = max(busy, key=lambda w: len(busy[w]))
                if not busy[victim]:
                    return  # the scheduler's view lags the results: try at the next finished job
                os.kill(before[victim], signal.SIGKILL)
                killed.append(victim)

        def close(self):
            pass

    monkeypatch.setattr(sim, "make_progress", lambda *a, **k: KillAWorker())
    remote = simulate(classic, spins, 21, scheduler=cluster.scheduler_address, progress=True)
    assert killed, "no worker had a job in play while the run lasted"
    _wait_for_workers(observer)
    after = observer.run(os.getpid)
    assert set(after.values()) != set(before.values())  # the killed worker's process was replaced
    assert not remote.interrupted
    assert _strip(remote.to_dict()) == local
    replayed = "lost with its Dask worker (KilledWorker); playing it again" in caplog.text
    assert replayed == (allowed_failures == 0)


# ---------------------------------------------------------------------------
# independence of chunk size and number of workers; bounded work
# ---------------------------------------------------------------------------
def test_results_do_not_depend_on_the_chunk_size_or_the_workers(classic):
    import numpy as np

    spins = 2 * SIMULATE_BLOCK + 54_321
    runs = {
        "default": simulate(classic, spins, 8),
        "two blocks a job": simulate(classic, spins, 8, chunk_size=2 * SIMULATE_BLOCK),
        "parts of blocks": simulate(classic, spins, 8, chunk_size=250_000),
        "small parts": simulate(classic, spins, 8, chunk_size=4096),
        "parts on 2 workers": simulate(classic, spins, 8, chunk_size=300_000, workers=2),
    }
    first = _strip(runs["default"].to_dict())
    for name, run in runs.items():
        assert _strip(run.to_dict()) == first, name
        assert np.array_equal(run.raw.squares, runs["default"].raw.squares), name  # the float sums, bit for bit
    trace = runs["small parts"].trace
    assert len(trace) > len(runs["default"].trace) and list(trace["spins"])[-1] == spins
    assert simulate(classic, spins, 9).rtp != runs["default"].rtp


def test_a_run_stopped_with_one_chunk_size_resumes_with_another(classic, tmp_path, monkeypatch):
    import workbench.simulate as sim

    spins = SIMULATE_BLOCK + 200_000
    full = _strip(simulate(classic, spins, 4).to_dict())
    checkpoint = tmp_path / "run.ckpt"

    class StopAfterThree:
        n = 0

        def update(self, rounds):
            self.n += 1
            if self.n == 3:
                raise KeyboardInterrupt

        def close(self):
            pass

    monkeypatch.setattr(sim, "make_progress", lambda *a, **k: StopAfterThree())
    partial = simulate(classic, spins, 4, chunk_size=150_000, checkpoint=str(checkpoint), progress=True)
    assert partial.interrupted and partial.spins == 450_000  # three parts of the first block
    monkeypatch.undo()
    resumed = simulate(classic, spins, 4, checkpoint=str(checkpoint))
    assert _strip(resumed.to_dict()) == full


def test_a_checkpoint_of_an_earlier_format_is_refused(classic, tmp_path):
    """Earlier formats have no checksum, so an edited one cannot be told from a real one: refused, not resumed
    (tests/test_outputs_safety.py has the checksum's own tests)."""
    from workbench.simulate.engine import RunSpec, round_model

    spins = 3 * SIMULATE_BLOCK
    spec = RunSpec(classic.text, str(classic.path), None, 6, 0)
    model = round_model(classic)
    old = {"format": "workbench-checkpoint-1", "done": {},
           "signature": {"kind": "simulate", "game_sha256": spec.game_sha256, "seed": 6, "spins": spins,
                         "chunk_size": SIMULATE_BLOCK, "stake": model.stake}}
    checkpoint = tmp_path / "old.ckpt"
    checkpoint.write_text(json.dumps(old))
    with pytest.raises(SimulationError, match="predates the checksum.*delete it to start the run over"):
        simulate(classic, spins, 6, checkpoint=str(checkpoint))
    assert json.loads(checkpoint.read_text()) == old


def test_work_is_bounded_and_made_lazily(classic, monkeypatch):
    import workbench.simulate as sim
    from workbench.simulate import engine
    from workbench.simulate.lanes import Plan

    with pytest.raises(SimulationError, match="10\\^13"):
        simulate(classic, engine.MAX_SPINS + 1, 1)
    with pytest.raises(SimulationError, match="multiple"):
        simulate(classic, 10, 1, chunk_size=SIMULATE_BLOCK + 1)
    plan = Plan(SIMULATE_BLOCK, SIMULATE_BLOCK, 3, 2)
    plan.lane(-1, engine.MAX_SPINS)
    tracemalloc.start()
    jobs = [plan.next_job() for _ in range(1000)]
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 2_000_000 and jobs[-1][0].block == 999

    class StopAtOnce:
        def update(self, rounds):
            raise KeyboardInterrupt

        def close(self):
            pass

    monkeypatch.setattr(sim, "make_progress", lambda *a, **k: StopAtOnce())
    started = time.perf_counter()
    tracemalloc.start()
    result = simulate(classic, engine.MAX_SPINS, 1, progress=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.interrupted and result.spins == SIMULATE_BLOCK and result.requested == engine.MAX_SPINS
    assert time.perf_counter() - started < 10 and peak < 20_000_000


def test_an_unwritable_checkpoint_is_refused_before_the_run(classic, tmp_path):
    started = time.perf_counter()
    with pytest.raises(SimulationError, match="cannot write /dev/null/ck: /dev/null is not a folder"):
        simulate(classic, 100 * SIMULATE_BLOCK, 1, checkpoint="/dev/null/ck")
    with pytest.raises(SimulationError, match="cannot write .*: is a folder"):
        simulate(classic, 100 * SIMULATE_BLOCK, 1, checkpoint=str(tmp_path))
    assert time.perf_counter() - started < 5


def _die(spec, job):
    """A job that kills the worker process playing it."""
    os.kill(os.getpid(), signal.SIGKILL)


def test_worker_processes_that_keep_dying_end_the_run_with_a_clear_error(classic):
    from workbench.simulate.engine import RunSpec
    from workbench.simulate.lanes import Plan
    from workbench.simulate.runner import MAX_FAILURES, JobRunner

    spec = RunSpec(classic.text, str(classic.path), None, 1, 0)
    plan = Plan(SIMULATE_BLOCK, SIMULATE_BLOCK, 3, 2)
    plan.lane(-1, 4 * SIMULATE_BLOCK)
    with JobRunner(spec, workers=2) as runner:
        runner.execute = _die
        with pytest.raises(SimulationError, match=f"died {MAX_FAILURES} times"):
            runner.run(plan)
    assert runner.failures == MAX_FAILURES


def test_a_damaged_checkpoint_is_refused_not_trusted(classic, tmp_path, monkeypatch):
    import workbench.simulate as sim

    class StopAtOnce:
        def update(self, rounds):
            raise KeyboardInterrupt

        def close(self):
            pass

    checkpoint = tmp_path / "run.ckpt"
    monkeypatch.setattr(sim, "make_progress", lambda *a, **k: StopAtOnce())
    assert simulate(classic, 600_000, 2, chunk_size=200_000, checkpoint=str(checkpoint), progress=True).spins == 200_000
    monkeypatch.undo()
    good = json.loads(checkpoint.read_text())
    part = good["lanes"][0]["partial"]["0"]
    bad_shape = json.loads(json.dumps(good))
    bad_shape["lanes"][0]["partial"]["0"]["result"]["hist"] = part["result"]["hist"][:3]  # compiled code would write past it
    bad_state = json.loads(json.dumps(good))
    bad_state["lanes"][0]["partial"]["0"]["rng"] = [2**70] * 6
    bad_block = json.loads(json.dumps(good))
    bad_block["lanes"][0]["partial"]["7"] = part
    for data, message in ((bad_shape, "damaged checkpoint"), (bad_state, "damaged checkpoint"), (bad_block, "damaged checkpoint"),
                          ([1, 2], "not a workbench checkpoint"), ({"format": "other"}, "not a workbench checkpoint")):
        checkpoint.write_text(json.dumps(data))
        with pytest.raises(SimulationError, match=message):
            simulate(classic, 600_000, 2, checkpoint=str(checkpoint))
    checkpoint.write_text(json.dumps(good))
    assert _strip(simulate(classic, 600_000, 2, checkpoint=str(checkpoint)).to_dict()) == _strip(simulate(classic, 600_000, 2).to_dict())


def test_an_estimate_played_in_parts_of_blocks_is_the_same_estimate():
    """A time-boxed estimate plays its blocks in parts (an eighth of a block per job, so a job overruns the box
    little): the parts continue the block's random stream, so the estimate is bit for bit the whole-block one."""
    from workbench.io import load_game
    from workbench.simulate import BOXED_CHUNK, estimate_rtp

    game = load_game("examples/hold_and_respin_coins")
    whole = estimate_rtp(game, precision=0.004, seed=3)
    parts = estimate_rtp(game, precision=0.004, seed=3, chunk_size=BOXED_CHUNK)
    boxed = estimate_rtp(game, precision=0.004, seed=3, max_seconds=600)  # a box that does not bind: parts too
    assert (whole.rtp, whole.std, whole.samples) == (parts.rtp, parts.std, parts.samples) == (boxed.rtp, boxed.std,
                                                                                             boxed.samples)
