"""Playing a run's jobs: in this process, on local worker processes or on a Dask cluster, with retries of lost
work, time boxes and checkpoints.
"""

from __future__ import annotations

import logging
import numpy as np
import os
import signal
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from ..errors import SimulationError, WorkbenchError
from .chunks import ChunkResult, play_chunk
from .rng import chunk_state
from .lanes import stream_index, Plan
from .checkpoints import Checkpoint
from .stops import _STOP, stop_requested, stop_scope
from .engine import RunSpec, _model_for, check_workers

_log = logging.getLogger("workbench.simulate")

#: a run gives up after this many failures of its local worker pool (or Dask tasks lost with their workers)

MAX_FAILURES = 3

#: most blocks in one job on a Dask cluster when the run leaves the job size to the runner (one block per job, no time
#: box): every task goes through the scheduler and back, so whole-block jobs of a fast round leave the workers idle
#: between tasks.  Super 10 Stars, 2^28 rounds on a 2-worker LocalCluster (2026-12-08, 3 alternated runs each):
#: 19.61-19.71 M rounds/s in 1-block jobs, 24.11-24.50 M rounds/s in 8-block jobs, identical results
DASK_BLOCKS_PER_JOB = 8


def execute_job(spec: RunSpec, job: tuple) -> list:
    """Play a job (a tuple of :class:`Piece`) in this process.

    Returns per piece ``(ChunkResult JSON, stream state)``: the state (a list of
    ints) only when the piece ends inside its block, for the next part.
    """
    model = _model_for(spec)
    out = []
    for piece in job:
        if piece.offset == 0:
            rng = chunk_state(spec.seed, stream_index(piece.lane, piece.block), spec.stream)
            into = None
        else:
            rng = np.array(piece.rng, dtype=np.uint64)
            into = ChunkResult.from_json(piece.acc)
        result = play_chunk(model, rng, piece.rounds, piece.lane, into=into)
        more = piece.offset + piece.rounds < piece.size
        out.append((result.to_json(), [int(v) for v in rng] if more else None))
    return out


def _worker_init(parent: int) -> None:
    """Local worker processes: Ctrl-C goes to the main process only; exit if the main process is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="workbench-parent-watch", daemon=True).start()


# ---------------------------------------------------------------------------
# running jobs
# ---------------------------------------------------------------------------
class JobRunner:
    """Plays the jobs of a :class:`Plan` locally (in this process or on worker processes)
    or on a Dask cluster.

    ``run(plan)`` returns when every block is played or the run was stopped
    (``interrupted`` set: a stop signal, see :func:`on_stop_signal`, or a
    ``KeyboardInterrupt``); finished jobs are always recorded first, and the
    checkpoint (if any) is saved.  A local worker process that dies (killed,
    out of memory) costs only the jobs in play: the pool is rebuilt and they
    are played again; so is a job lost with a Dask worker (Dask itself plays
    the jobs of a dead worker elsewhere, up to its ``allowed-failures``; a job
    it gives up, ``KilledWorker``, is submitted again here).  The run gives up
    with a :class:`SimulationError` after :data:`MAX_FAILURES` failures of the
    local pool, or when one job was lost :data:`MAX_FAILURES` times on Dask.
    """

    def __init__(self, spec: RunSpec, workers: int = 1, scheduler: str | None = None, progress=None,
                 checkpoint: Checkpoint | None = None, deadline: float | None = None):
        workers = check_workers(workers)
        #: time.monotonic() after which no job is started and jobs in play are dropped (None: no time box)
        self.deadline = deadline
        self.timed_out = False  # the run stopped at its deadline
        self.spec = spec
        self.workers = workers
        self.scheduler = scheduler
        self.progress = progress
        self.checkpoint = checkpoint
        self.interrupted = False
        self.stop_signal: int | None = None  # the signal that stopped the run (None: KeyboardInterrupt or not stopped)
        self.failures = 0
        self.execute = execute_job  # what plays a job (tests replace it)
        self._pool = None
        self._client = None
        self._pending: dict = {}  # future -> job, in submission order
        self._played_here = 0  # jobs played in this process

    def __enter__(self) -> "JobRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers (at once if the run was interrupted) and save the checkpoint."""
        self._shutdown_pool(kill=self.interrupted)
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # noqa: BLE001 - closing a client that lost its scheduler
                pass
            self._client = None
        if self.checkpoint is not None:
            self.checkpoint.save()

    def _tick(self, rounds: int) -> None:
        if self.progress is not None and rounds:
            self.progress.update(rounds)

    def run(self, plan: Plan) -> None:
        """Play ``plan`` until every block is played or a stop is asked for."""
        self.interrupted = False
        with stop_scope():
            try:
                if self.scheduler:
                    self._run_dask(plan)
                elif self.workers == 1:
                    self._run_here(plan)
                else:
                    self._run_pool(plan)
            except KeyboardInterrupt as exc:
                self.interrupted = True
                self.stop_signal = getattr(exc, "signum", None)
            if stop_requested() is not None and not plan.complete:
                self.interrupted = True
                self.stop_signal = stop_requested()
            if self.interrupted or self.timed_out or self._pending:
                self._drop_pending(plan)
            if self.checkpoint is not None:
                self.checkpoint.save()

    def _finish(self, plan: Plan, job: tuple, outputs: list) -> None:
        rounds = plan.finish(job, outputs)
        if self.checkpoint is not None:
            self.checkpoint.maybe_save()
        self._tick(rounds)

    def _drop_pending(self, plan: Plan) -> None:
        """Record the jobs that finished meanwhile, then drop those still in play (and their workers)."""
        for future, job in list(self._pending.items()):
            try:
                if future.done() and not future.cancelled() and getattr(future, "status", "finished") == "finished":
                    plan.finish(job, future.result(timeout=5))
                else:
                    plan.release(job)
            except BaseException:  # noqa: BLE001 - a failed job is simply dropped
                plan.release(job)
        pending = list(self._pending)
        self._pending.clear()
        if self._client is not None:
            try:
                self._client.cancel(pending)
            except Exception:  # noqa: BLE001
                pass
        self._shutdown_pool(kill=True)

    def _check_stop(self) -> bool:
        if stop_requested() is not None:
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.timed_out = True
            return True
        return False

    # in this process ----------------------------------------------------
    def _run_here(self, plan: Plan) -> None:
        while not self._check_stop():
            job = plan.next_job()
            if job is None:
                if plan.complete:
                    return
                raise SimulationError("internal error: no job to play but the run is not complete")
            _STOP.playing = 1 if self._played_here else 2
            try:
                outputs = self.execute(self.spec, job)
            finally:
                _STOP.playing = 0
            self._played_here += 1
            self._finish(plan, job, outputs)

    # local worker processes ---------------------------------------------
    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"),
                                   initializer=_worker_init, initargs=(os.getpid(),))

    def _shutdown_pool(self, kill: bool) -> None:
        pool = self._pool
        if pool is None:
            return
        self._pool = None
        if kill:  # stop the jobs still running at once
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                try:
                    if proc.is_alive():
                        proc.kill()
                except (OSError, ValueError, AttributeError):
                    pass
        # wait for the pool's manager thread: left running, it writes to a closed pipe at exit
        pool.shutdown(wait=True, cancel_futures=True)

    def _pool_failed(self, plan: Plan, retry: deque, why: str) -> None:
        self.failures += 1
        for job in self._pending.values():
            retry.append(job)
        self._pending.clear()
        self._shutdown_pool(kill=True)
        if self.failures >= MAX_FAILURES:
            raise SimulationError(
                f"local worker processes died {self.failures} times ({why}); gave up. A worker is killed by "
                "a signal or by the system when memory runs out: try fewer --workers")
        _log.warning("workbench: %s; restarting the worker processes and playing the %d unfinished jobs again "
                     "(failure %d of %d allowed)", why, len(retry), self.failures, MAX_FAILURES - 1)

    def _run_pool(self, plan: Plan) -> None:
        window = 2 * self.workers
        plan.max_ahead = max(plan.max_ahead, 4 * window * plan.blocks_per_job)
        retry: deque = deque()
        while not self._check_stop():
            try:
                while len(self._pending) < window:
                    job = retry.popleft() if retry else plan.next_job()
                    if job is None:
                        break
                    if self._pool is None:
                        self._pool = self._new_pool()
                    try:
                        future = self._pool.submit(self.execute, self.spec, job)
                    except BrokenProcessPool:
                        retry.appendleft(job)
                        raise
                    self._pending[future] = job
            except BrokenProcessPool:
                self._pool_failed(plan, retry, "the pool broke while jobs were handed out")
                continue
            if not self._pending:
                if plan.complete:
                    return
                raise SimulationError("internal error: no job to play but the run is not complete")
            finished, _ = wait(list(self._pending), timeout=0.2, return_when=FIRST_COMPLETED)
            broken = False
            for future in [f for f in self._pending if f in finished]:
                try:
                    outputs = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                job = self._pending.pop(future)
                self._finish(plan, job, outputs)
            if broken:
                self._pool_failed(plan, retry, "a worker process ended abruptly")

    # Dask ----------------------------------------------------------------
    def _run_dask(self, plan: Plan) -> None:
        from dask.distributed import Client
        from dask.distributed import wait as dask_wait
        from distributed import KilledWorker

        if self._client is None:
            try:
                self._client = Client(self.scheduler, timeout="20s")
            except Exception as exc:  # noqa: BLE001 - report any connection failure plainly
                raise SimulationError(f"cannot connect to the Dask scheduler at {self.scheduler}: {exc}") from None
        retry: deque = deque()
        lost_times: dict = {}  # id(job) -> times it was lost
        window = 2
        checked = 0.0
        while not self._check_stop():
            if time.monotonic() - checked > 1.0:
                threads = max(sum(self._client.nthreads().values()), 1)
                window = 2 * threads
                dask_job_blocks(plan, threads, self.deadline is not None)
                plan.max_ahead = max(plan.max_ahead, 4 * window * plan.blocks_per_job)
                checked = time.monotonic()
            while len(self._pending) < window:
                job = retry.popleft() if retry else plan.next_job()
                if job is None:
                    break
                self._pending[self._client.submit(self.execute, self.spec, job, pure=False)] = job
            if not self._pending:
                if plan.complete:
                    return
                raise SimulationError("internal error: no job to play but the run is not complete")
            try:
                dask_wait(list(self._pending), timeout=0.2, return_when="FIRST_COMPLETED")
            except TimeoutError:
                continue
            for future in [f for f in self._pending if f.done()]:
                job = self._pending.pop(future)
                if future.status == "error":
                    exc = future.exception()
                    if not isinstance(exc, KilledWorker):  # the job itself failed: playing it again would too
                        if isinstance(exc, WorkbenchError):
                            raise exc
                        raise SimulationError(f"a job failed on the Dask cluster: {type(exc).__name__}: {exc}")
                    why = "KilledWorker"
                else:
                    try:
                        outputs = future.result()
                    except WorkbenchError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - cancelled, or its result lost with a worker
                        why = f"{type(exc).__name__}: {exc}"
                    else:
                        self._finish(plan, job, outputs)
                        continue
                self.failures += 1
                lost = lost_times[id(job)] = lost_times.get(id(job), 0) + 1
                if lost >= MAX_FAILURES:
                    raise SimulationError(f"a job was lost with its Dask worker {lost} times ({why}); gave up. "
                                          "A worker dies when it is killed or runs out of memory")
                _log.warning("workbench: a job was lost with its Dask worker (%s); playing it again (failure %d of %d allowed)",
                             why, lost, MAX_FAILURES - 1)
                retry.append(job)


def dask_job_blocks(plan: Plan, threads: int, boxed: bool) -> None:
    """Jobs of up to :data:`DASK_BLOCKS_PER_JOB` blocks for a plan of one-block jobs played on a Dask cluster with
    ``threads`` worker threads, while the blocks left keep 4 jobs per thread (fewer near the end, so no worker waits
    long for the last job); the result does not depend on it.  A plan whose job size was chosen (several blocks, or
    parts of a block) and a time-boxed run (``boxed``: short jobs hold the box) keep theirs."""
    if boxed or plan.piece_rounds is not None or plan.chunk_size != plan.block_size:
        return
    left = sum(max(0, lane.n_blocks - lane.cursor) for lane in plan.lanes.values())
    plan.blocks_per_job = min(DASK_BLOCKS_PER_JOB, max(1, left // (4 * threads)))


def combine(results: dict, n_comp: int, n_counters: int) -> ChunkResult:
    """Sum of job results, added in key order."""
    total = ChunkResult.empty(n_comp, n_counters)
    for key in sorted(results):
        total.add(results[key])
    return total
