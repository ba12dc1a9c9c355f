"""Running simulations: chunks on local processes or a Dask cluster, with
progress, clean interruption and resumable checkpoints.

A run is a list of *jobs*: (key, rounds, stratum).  Job ``key`` fixes its
random stream, so results never depend on the number of workers or on the
order jobs finish; results are always added in key order.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from .. import registry
from ..errors import SimulationError
from ..io import atomic_write_text, loads_game
from ..model import Game
from .chunks import ChunkResult, play_chunk
from .model import RoundModel
from .rng import chunk_state

CHECKPOINT_FORMAT = "workbench-checkpoint-1"
DEFAULT_CHUNK = 1 << 20


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The simulator's model of ``game`` (built by its round template, see :mod:`workbench.registry`) at ``stake``."""
    model = registry.template(game.game_module).round_model(game, stake)
    if not isinstance(model, RoundModel):
        raise SimulationError(f"round template {game.game_module!r} did not build a RoundModel")
    return model


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs to rebuild the game and play a job (picklable)."""

    game_text: str
    game_path: str
    stake: float | None
    seed: int
    stream: int

    @property
    def game_sha256(self) -> str:
        return hashlib.sha256(self.game_text.encode()).hexdigest()


_MODELS: dict = {}


def _model_for(spec: RunSpec) -> RoundModel:
    key = (spec.game_sha256, spec.stake)
    if key not in _MODELS:
        if len(_MODELS) > 8:
            _MODELS.clear()
        _MODELS[key] = round_model(loads_game(spec.game_text, spec.game_path), spec.stake)
    return _MODELS[key]


def remember_model(spec: RunSpec, model: RoundModel) -> None:
    """Let jobs run in this process reuse an already built model."""
    _MODELS[(spec.game_sha256, spec.stake)] = model


def execute_job(spec: RunSpec, key: tuple, rounds: int, stratum: int) -> dict:
    """Play one job in this process; returns its :class:`ChunkResult` as plain data."""
    model = _model_for(spec)
    rng = chunk_state(spec.seed, _stream_index(key), spec.stream)
    return play_chunk(model, rng, rounds, stratum).to_json()


def _stream_index(key: tuple) -> int:
    """A job key (stratum, index) as one chunk number of the run's stream."""
    stratum, index = key
    return (stratum + 1) * (1 << 40) + index


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Checkpoint:
    """Completed jobs of a run, saved to a JSON file so an interrupted run can resume."""

    path: Path
    signature: dict
    done: dict = field(default_factory=dict)  # "stratum:index" -> chunk json
    _last_save: float = 0.0

    @classmethod
    def open(cls, path: str | os.PathLike, signature: dict) -> "Checkpoint":
        path = Path(path)
        if path.exists():
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError) as exc:
                raise SimulationError(f"{path}: not a readable checkpoint ({exc})") from None
            if data.get("format") != CHECKPOINT_FORMAT:
                raise SimulationError(f"{path}: not a workbench checkpoint")
            if data.get("signature") != signature:
                raise SimulationError(
                    f"{path}: checkpoint belongs to a different run (game file, seed, spins, stake or mode differ); "
                    "delete it or choose another file"
                )
            return cls(path, signature, dict(data.get("done", {})))
        return cls(path, signature)

    def add(self, key: tuple, result: dict) -> None:
        self.done[f"{key[0]}:{key[1]}"] = result
        if time.monotonic() - self._last_save > 2.0:
            self.save()

    def save(self) -> None:
        atomic_write_text(self.path, json.dumps({"format": CHECKPOINT_FORMAT, "signature": self.signature, "done": self.done}))
        self._last_save = time.monotonic()

    def get(self, key: tuple) -> dict | None:
        return self.done.get(f"{key[0]}:{key[1]}")


class JobRunner:
    """Runs jobs locally (in process or on worker processes) or on a Dask cluster.

    ``run(jobs)`` returns {key: ChunkResult} for the jobs that completed and
    sets ``interrupted`` if Ctrl-C stopped it early.
    """

    def __init__(self, spec: RunSpec, workers: int = 1, scheduler: str | None = None, progress=None,
                 checkpoint: Checkpoint | None = None):
        if workers < 1:
            raise SimulationError(f"--workers must be at least 1, got {workers}")
        self.spec = spec
        self.workers = workers
        self.scheduler = scheduler
        self.progress = progress
        self.checkpoint = checkpoint
        self.interrupted = False
        self._pool = None
        self._client = None

    def __enter__(self) -> "JobRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            if self.interrupted:  # stop the chunks still running at once
                for proc in list(getattr(self._pool, "_processes", {}).values()):
                    if proc.is_alive():
                        proc.terminate()
            # wait for the pool's manager thread: left running, it writes to a closed pipe at exit
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.checkpoint is not None:
            self.checkpoint.save()

    def _tick(self, rounds: int) -> None:
        if self.progress is not None:
            self.progress.update(rounds)

    def run(self, jobs: list) -> dict:
        results: dict = {}
        todo = []
        for key, rounds, stratum in jobs:
            saved = self.checkpoint.get(key) if self.checkpoint else None
            if saved is not None:
                results[key] = ChunkResult.from_json(saved)
                self._tick(rounds)
            else:
                todo.append((key, rounds, stratum))
        try:
            if self.scheduler:
                self._run_dask(todo, results)
            elif self.workers == 1:
                for key, rounds, stratum in todo:
                    self._done(results, key, rounds, execute_job(self.spec, key, rounds, stratum))
            else:
                self._run_pool(todo, results)
        except KeyboardInterrupt:
            self.interrupted = True
            self.close()
        return dict(sorted(results.items()))

    def _done(self, results: dict, key: tuple, rounds: int, data: dict) -> None:
        results[key] = ChunkResult.from_json(data)
        if self.checkpoint is not None:
            self.checkpoint.add(key, data)
        self._tick(rounds)

    def _run_pool(self, todo: list, results: dict) -> None:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=get_context("spawn"), initializer=_ignore_sigint)
        pending = {}
        queue = list(todo)
        while queue or pending:
            while queue and len(pending) < 2 * self.workers:
                key, rounds, stratum = queue.pop(0)
                pending[self._pool.submit(execute_job, self.spec, key, rounds, stratum)] = (key, rounds)
            finished, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
            for future in finished:
                key, rounds = pending.pop(future)
                self._done(results, key, rounds, future.result())

    def _run_dask(self, todo: list, results: dict) -> None:
        from dask.distributed import Client, as_completed

        if self._client is None:
            try:
                self._client = Client(self.scheduler, timeout="20s")
            except Exception as exc:  # noqa: BLE001 - report any connection failure plainly
                raise SimulationError(f"cannot connect to the Dask scheduler at {self.scheduler}: {exc}") from None
        window = max(2 * len(self._client.scheduler_info().get("workers", {})), 2)
        queue = list(todo)
        futures = {}
        completed = as_completed()
        while queue and len(futures) < window:
            key, rounds, stratum = queue.pop(0)
            f = self._client.submit(execute_job, self.spec, key, rounds, stratum, pure=False)
            futures[f] = (key, rounds)
            completed.add(f)
        for future in completed:
            key, rounds = futures.pop(future)
            self._done(results, key, rounds, future.result())
            if queue:
                k, r, s = queue.pop(0)
                f = self._client.submit(execute_job, self.spec, k, r, s, pure=False)
                futures[f] = (k, r)
                completed.add(f)


def combine(results: dict, n_comp: int, n_counters: int) -> ChunkResult:
    """Sum of job results, added in key order."""
    total = ChunkResult.empty(n_comp, n_counters)
    for key in sorted(results):
        total.add(results[key])
    return total


def convergence_trace(results: dict, cost_units: int):
    """Running RTP and its 95 % half-width after each job (key order): a DataFrame."""
    import pandas as pd

    rows = []
    n = s = sq = 0
    for key in sorted(results):
        r = results[key]
        n += int(r.totals[0])
        s += int(r.totals[1])
        sq += float(r.squares[0])
        mean = s / n
        var = max(sq / n - mean * mean, 0.0)
        rows.append({"spins": n, "rtp": mean / cost_units, "ci95": 1.959963984540054 * (var / n) ** 0.5 / cost_units})
    return pd.DataFrame(rows, columns=["spins", "rtp", "ci95"])


def make_progress(total: int, enabled: bool, unit: str = "spin"):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, dynamic_ncols=True, leave=False)
