"""Running simulations: blocks of rounds on local processes or a Dask cluster, with
progress, clean stops (SIGINT, SIGTERM), retries of lost work and resumable checkpoints.

Three units:

- a **block** is the unit of randomness: block ``j`` of *lane* ``s`` (a stratum;
  -1 = natural play) draws from its own stream ``chunk_state(seed,
  stream_index(s, j), stream)`` and has its own :class:`ChunkResult`.  Its size
  is fixed per kind of run (:data:`SIMULATE_BLOCK` rounds for ``simulate``,
  :data:`RTP_BLOCK` for ``estimate_rtp``); the last block of a run may be shorter;
- a **piece** is consecutive rounds of one block: the whole block, or a part
  that continues the block's random stream and its sums where the previous
  part stopped (so a block played in parts gives bit for bit the result of the
  block played at once);
- a **job** is what one worker plays at a time, set by ``chunk_size``: whole
  blocks (``chunk_size`` a multiple of the block) or one piece of
  ``chunk_size`` rounds (``chunk_size`` below the block; the parts of one block
  are then played one after another).

Per lane, block results are added in block order (a left fold), so the sums,
floats included, are bit-identical whatever the chunk size, the number of
workers, local or Dask, the order jobs finish in, retries of lost jobs, or a
resume from a checkpoint.  Jobs are made lazily, one at a time, and at most a
bounded number of finished blocks wait for an earlier one: memory does not
grow with the number of spins.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import signal
import stat
import tempfile
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from multiprocessing import get_context
from pathlib import Path
from typing import Iterator

import numpy as np

from .. import registry
from ..errors import SimulationError, WorkbenchError, format_key
from ..io import atomic_write_text, loads_game
from ..io.atomic import missing_folder_reason
from ..model import Game
from .chunks import ROUND_UNITS_MAX, ChunkResult, play_chunk
from .plan import checked_plan, end_to_end_plan
from .model import RoundModel
from .rng import chunk_state

_log = logging.getLogger("workbench.simulate")

CHECKPOINT_FORMAT = "workbench-checkpoint-4"  # 3: with a checksum; 4: raw squares per component (earlier: refused)
#: rounds per block of randomness of ``simulate`` (the chunk of earlier versions: same numbers)
SIMULATE_BLOCK = 1 << 20
#: rounds per block of randomness of ``estimate_rtp``
RTP_BLOCK = 1 << 16
DEFAULT_CHUNK = SIMULATE_BLOCK
#: most rounds one run may ask for (about 28 hours at 10^8 rounds/s); sums stay far from int64 limits
MAX_SPINS = 10**13
#: most local worker processes
MAX_WORKERS = 256
#: a run gives up after this many failures of its local worker pool (or Dask tasks lost with their workers)
MAX_FAILURES = 3
#: seconds between checkpoint saves during a run (it is also saved whenever the run stops)
SAVE_EVERY = 2.0
#: larger files are not read as checkpoints (a checkpoint holds a few blocks: well under a megabyte)
MAX_CHECKPOINT_BYTES = 256 << 20
#: points kept in a convergence trace (longer runs keep every 2nd, 4th, ... block)
TRACE_POINTS = 4096


def round_bound(game: Game, stake: float | None = None) -> "registry.RoundBound | None":
    """The round template's bound of what one round of ``game`` pays at ``stake`` (see :mod:`workbench.rounds.bounds`;
    None: the template declares none), refused (:class:`~workbench.errors.SimulationError`) when it is above
    :data:`~workbench.simulate.chunks.ROUND_UNITS_MAX`: :func:`bound_problem` says why."""
    template = registry.template(game.game_module)
    try:
        bound = template.round_bound(game, stake)
    except (ArithmeticError, ValueError) as exc:
        if isinstance(exc, WorkbenchError):
            raise
        raise SimulationError(f"{game.name}: round template {game.game_module!r} cannot bound what a round pays "
                              f"({type(exc).__name__}: {exc})") from None
    problem = bound_problem(game, bound)
    if problem is not None:
        raise SimulationError(f"{game.name}: {problem}")
    return bound


def bound_problem(game: Game, bound) -> str | None:
    """Why one round's ``bound`` (a :class:`~workbench.registry.RoundBound`) is too large for the simulator's 64-bit
    sums, naming the key to change (None: it fits, or there is no bound)."""
    if bound is None or bound.units is None or bound.units <= ROUND_UNITS_MAX:
        return None
    cost = _cost_units(game)
    size = f" ({bound.units / cost:.3g} x total bet)" if cost else ""
    return (f"one round could pay up to {bound.units:,} pay units{size}: {bound.detail}; that is more than the "
            f"{ROUND_UNITS_MAX:,} pay units whose sums over 1,024 rounds fit the simulator's 64-bit integers: lower "
            f"{format_key(bound.key) or 'the pays'}")


def _cost_units(game: Game) -> int:
    from ..pays.scale import pay_scale

    try:
        return pay_scale(game).cost_units
    except (ArithmeticError, ValueError):
        return 0


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The simulator's model of ``game`` (built by its round template, see :mod:`workbench.registry`) at ``stake``,
    with the template's proven bound of a round (:func:`round_bound`, refused when too large) as ``max_round_units``."""
    template = registry.template(game.game_module)
    bound = round_bound(game, stake)
    try:
        model = template.round_model(game, stake)
    except (ArithmeticError, ValueError) as exc:  # e.g. a cap in currency at an absurd stake
        if isinstance(exc, WorkbenchError):
            raise
        at = f" at stake {stake!r}" if stake is not None else ""
        raise SimulationError(f"{game.name}: round template {game.game_module!r} cannot build the game{at} "
                              f"({type(exc).__name__}: {exc})") from None
    if not isinstance(model, RoundModel):
        raise SimulationError(f"round template {game.game_module!r} did not build a RoundModel")
    if bound is not None and bound.units is not None:
        model = replace(model, max_round_units=int(bound.units))
    return checked_plan(with_max_win(model, game))


def with_max_win(model: RoundModel, game: Game) -> RoundModel:
    """``model`` with the max-win cap of the bet mode ``game`` plays (:attr:`Game.max_win`, x the base total bet).

    The cap is applied to every round where it is recorded
    (:func:`workbench.simulate.chunks.record_round`), so no round template
    changes: the model gains component ``cap`` (if it has none), counters
    ``max_win`` (rounds that reached the cap) and ``max_win:base`` (of those,
    rounds whose base screen alone reached it), ``max_win_units`` (the cap in
    pay units, rounded down) and ``cap_total_bets`` (the smaller of the
    template's own cap and this one).
    """
    cap = getattr(game, "max_win", None)
    if cap is None:
        return model
    cost = int(model.params.cost_units)
    units = math.floor(Fraction(cap) * cost)
    if units <= 0:
        raise SimulationError(f"{game.name}: max_win {float(cap):g} x total bet is below one pay unit "
                              f"(1/{cost} of the total bet)")
    components = model.components if "cap" in model.components else model.components + ("cap",)
    counters = model.counters + tuple(c for c in ("max_win", "max_win:base") if c not in model.counters)
    top = units / cost if not model.cap_total_bets else min(float(model.cap_total_bets), units / cost)
    return replace(model, components=components, counters=counters, max_win_units=units, cap_total_bets=top)


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs to rebuild the game and play a job (picklable)."""

    game_text: str
    game_path: str
    stake: float | None
    seed: int
    stream: int
    bet_mode: str = "base"  # the [bet_modes.*] the game is played in (Game.in_bet_mode)
    end_to_end: str = ""  # why the estimate plays every round end to end beyond what the model's plan says ("": no)

    @property
    def game_sha256(self) -> str:
        return hashlib.sha256(self.game_text.encode()).hexdigest()


_MODELS: dict = {}


def _model_for(spec: RunSpec) -> RoundModel:
    key = (spec.game_sha256, spec.stake, spec.bet_mode, spec.end_to_end)
    if key not in _MODELS:
        if len(_MODELS) > 8:
            _MODELS.clear()
        model = round_model(loads_game(spec.game_text, spec.game_path).in_bet_mode(spec.bet_mode), spec.stake)
        _MODELS[key] = end_to_end_plan(model, spec.end_to_end) if spec.end_to_end else model
    return _MODELS[key]


def remember_model(spec: RunSpec, model: RoundModel) -> None:
    """Let jobs run in this process reuse an already built model."""
    _MODELS[(spec.game_sha256, spec.stake, spec.bet_mode, spec.end_to_end)] = model


def stream_index(lane: int, block: int) -> int:
    """Block ``block`` of lane ``lane`` (-1: natural play, else a stratum) as one chunk number of the run's stream."""
    return (lane + 1) * (1 << 40) + block


def _stream_index(key: tuple) -> int:  # the name of earlier versions
    return stream_index(*key)


@dataclass(frozen=True)
class Piece:
    """Rounds ``offset .. offset + rounds`` of block ``block`` (of ``size`` rounds) of lane ``lane``.

    A piece that does not start the block carries the block's random stream
    state (``rng``) and sums (``acc``, ChunkResult JSON) after ``offset`` rounds.
    """

    lane: int
    block: int
    offset: int
    rounds: int
    size: int
    rng: tuple | None = None
    acc: dict | None = None


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


# ---------------------------------------------------------------------------
# stopping on SIGINT / SIGTERM
# ---------------------------------------------------------------------------
class RunStopped(KeyboardInterrupt):
    """A stop signal (SIGINT, SIGTERM) arrived where work could not wait for a safe point."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _StopState:
    depth = 0  # runs active in this process (estimate_rtp nests the runs of its batches)
    requested: int | None = None  # first stop signal received during the active run
    playing = 0  # the main thread is playing a job itself: 1, 2 if it is its first (it may be compiling)


_STOP = _StopState()


def on_stop_signal(signum: int, frame=None) -> None:
    """Signal handler for SIGINT and SIGTERM.

    During a run (:func:`stop_scope`) the first signal only asks the run to
    stop: it ends at its next safe point (after the job being played in this
    process, or within 0.2 s when workers play), with every finished job
    recorded.  While this process plays its first job (which may spend a
    minute compiling), or on a second signal, it stops at once, losing the
    job being played.  Outside a run it raises :class:`RunStopped` (a
    ``KeyboardInterrupt``) at once.  The
    ``workbench`` command installs it for both signals; :func:`stop_scope`
    installs it for SIGINT during a run when SIGINT has Python's default
    handler.  Nothing is installed at import.
    """
    if _STOP.depth == 0:
        raise RunStopped(signum)
    repeated = _STOP.requested is not None
    if not repeated:
        _STOP.requested = signum
    if _STOP.playing == 2 or (_STOP.playing and repeated):
        raise RunStopped(signum)


def stop_requested() -> int | None:
    """The signal that asked the active run to stop, or None."""
    return _STOP.requested if _STOP.depth else None


@contextmanager
def stop_scope() -> Iterator[None]:
    """Make stop signals ask the run to stop at a safe point while the block runs (see :func:`on_stop_signal`)."""
    outer = _STOP.depth == 0
    restore = None
    if outer:
        _STOP.requested = None
        if threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                    restore = signal.signal(signal.SIGINT, on_stop_signal)
            except (ValueError, OSError):  # pragma: no cover - no signals here
                restore = None
    _STOP.depth += 1
    try:
        yield
    finally:
        _STOP.depth -= 1
        if restore is not None:
            signal.signal(signal.SIGINT, restore)


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
# the blocks of a run and their results
# ---------------------------------------------------------------------------
def _copy(result: ChunkResult) -> ChunkResult:
    return ChunkResult(**{k: getattr(result, k).copy() for k in ChunkResult.FIELDS})


class Lane:
    """The blocks of one lane (a stratum; -1 = natural play): to play, in play, finished;
    their results added in block order (``total`` holds blocks ``0 .. next_block - 1``)."""

    def __init__(self, plan: "Plan", stratum: int, rounds: int, trace: bool):
        self.plan = plan
        self.stratum = stratum
        self.rounds = int(rounds)
        self.total = ChunkResult.empty(plan.n_comp, plan.n_counters)
        self.next_block = 0
        self.cursor = 0  # first block never handed out
        self.done: dict = {}  # block -> (ChunkResult, trace points inside it) finished, waiting for earlier blocks
        self.partial: dict = {}  # block -> (rounds played, stream state, ChunkResult, points) of a block played in parts
        self.busy: set = set()  # blocks with a job in play
        self.trace = [] if trace else None  # (rounds, sum of wins, sum of squared wins) after blocks (and parts)
        self._trace_seen = 0
        self._trace_stride = 1

    @property
    def n_blocks(self) -> int:
        return -(-self.rounds // self.plan.block_size)

    def size(self, block: int) -> int:
        return min(self.plan.block_size, self.rounds - block * self.plan.block_size)

    @property
    def complete(self) -> bool:
        return self.next_block >= self.n_blocks

    def extend(self, rounds: int) -> None:
        """Add ``rounds`` (whole blocks) to the lane's work."""
        if self.rounds % self.plan.block_size:
            raise SimulationError("a lane with a short last block cannot grow")
        self.rounds += int(rounds)

    def played(self) -> int:
        """Rounds finished so far (folded, waiting, and parts of blocks)."""
        return (self.total.rounds + sum(r.rounds for r, _ in self.done.values())
                + sum(p[0] for p in self.partial.values()))

    def next_job(self) -> tuple | None:
        plan = self.plan
        for block in sorted(self.partial):
            if block not in self.busy:
                played, rng, acc, _ = self.partial[block]
                left = self.size(block) - played
                rounds = left if plan.piece_rounds is None else min(plan.piece_rounds, left)
                self.busy.add(block)
                return (Piece(self.stratum, block, played, rounds, self.size(block), tuple(rng), acc.to_json()),)
        pieces = []
        while (len(pieces) < plan.blocks_per_job and self.cursor < self.n_blocks
               and self.cursor < self.next_block + plan.max_ahead):
            block = self.cursor
            self.cursor += 1
            if block in self.done or block in self.partial or block in self.busy:
                continue  # restored from a checkpoint, or (after a dropped job) in play
            size = self.size(block)
            rounds = size if plan.piece_rounds is None else min(plan.piece_rounds, size)
            self.busy.add(block)
            pieces.append(Piece(self.stratum, block, 0, rounds, size))
        return tuple(pieces) or None

    def finish(self, piece: Piece, data: dict, rng: list | None) -> int:
        """Record a played piece; returns its rounds (0 if it was already recorded)."""
        block = piece.block
        played = self.partial[block][0] if block in self.partial else 0
        if block < self.next_block or block in self.done or piece.offset != played:
            return 0  # a duplicate (a job played twice after a retry)
        self.busy.discard(block)
        result = ChunkResult.from_json(data)
        points = self.partial.pop(block)[3] if block in self.partial else []
        end = piece.offset + piece.rounds
        if end < piece.size:
            if self.trace is not None:
                points = points + [(result.rounds, int(result.totals[1]), float(result.squares[0]))]
            self.partial[block] = (end, list(rng), result, points)
        else:
            self.done[block] = (result, points)
            self._fold()
        return piece.rounds

    def _fold(self) -> None:
        total = self.total
        while self.next_block in self.done:
            result, points = self.done.pop(self.next_block)
            for n, s, sq in points:
                self._point(total.rounds + n, int(total.totals[1]) + s, float(total.squares[0]) + sq)
            total.add(result)
            self._point(total.rounds, int(total.totals[1]), float(total.squares[0]))
            self.next_block += 1

    def _point(self, n: int, s: int, sq: float) -> None:
        if self.trace is None:
            return
        self._trace_seen += 1
        if self._trace_seen % self._trace_stride:
            return
        self.trace.append((n, s, sq))
        if len(self.trace) >= 2 * TRACE_POINTS:
            self.trace = self.trace[1::2]
            self._trace_stride *= 2

    def result(self) -> ChunkResult:
        """The lane's sums: all blocks in block order (if the run stopped early: the finished
        blocks in block order, then the parts of blocks played so far)."""
        if not self.done and not self.partial:
            return self.total
        total = _copy(self.total)
        for block in sorted(self.done):
            total.add(self.done[block][0])
        for block in sorted(self.partial):
            total.add(self.partial[block][2])
        return total

    def trace_frame(self, cost_units: float):
        """Running RTP (x ``cost_units``, a round's price in pay units) and its 95 % half-width (DataFrame: spins, rtp, ci95) after each block
        (and each part of a block played in parts), ending with the lane's result."""
        import pandas as pd

        rows = list(self.trace or [])
        final = self.result()
        if final.rounds and (not rows or rows[-1][0] != final.rounds):
            rows.append((final.rounds, int(final.totals[1]), float(final.squares[0])))
        out = []
        for n, s, sq in rows:
            mean = s / n
            var = max(sq / n - mean * mean, 0.0)
            out.append({"spins": n, "rtp": mean / cost_units, "ci95": 1.959963984540054 * (var / n) ** 0.5 / cost_units})
        return pd.DataFrame(out, columns=["spins", "rtp", "ci95"])

    # checkpoints --------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "stratum": self.stratum,
            "rounds": self.rounds,
            "next_block": self.next_block,
            "total": self.total.to_json(),
            "done": {str(b): {"result": r.to_json(), "points": p} for b, (r, p) in self.done.items()},
            "partial": {str(b): {"played": n, "rng": rng, "result": r.to_json(), "points": p}
                        for b, (n, rng, r, p) in self.partial.items()},
            "trace": {"points": self.trace, "seen": self._trace_seen, "stride": self._trace_stride} if self.trace is not None else None,
        }

    def _result(self, data: dict) -> ChunkResult:
        """A ChunkResult read from a checkpoint, of exactly this run's shape (compiled code trusts it)."""
        result = ChunkResult.from_json(data)
        empty = ChunkResult.empty(self.plan.n_comp, self.plan.n_counters)
        for name in ChunkResult.FIELDS:
            if getattr(result, name).shape != getattr(empty, name).shape:
                raise ValueError(f"{name} has shape {getattr(result, name).shape}, not {getattr(empty, name).shape}")
        return result

    def restore(self, data: dict) -> None:
        if int(data["rounds"]) != self.rounds:
            raise ValueError(f"lane {self.stratum} has {data['rounds']} rounds, not {self.rounds}")
        next_block = int(data["next_block"])
        if not 0 <= next_block <= self.n_blocks:
            raise ValueError(f"next block {next_block} out of range")
        self.next_block = self.cursor = next_block
        self.total = self._result(data["total"])
        self.done = {int(b): (self._result(v["result"]), [tuple(p) for p in v["points"]]) for b, v in data["done"].items()}
        self.partial = {}
        for b, v in data["partial"].items():
            if not 0 <= int(b) < self.n_blocks or not 0 < int(v["played"]) < self.size(int(b)) or len(v["rng"]) != 6:
                raise ValueError(f"block {b}: bad part")
            rng = [int(x) for x in v["rng"]]
            if not all(0 <= x < 2**64 for x in rng):
                raise ValueError(f"block {b}: bad random stream state")
            self.partial[int(b)] = (int(v["played"]), rng, self._result(v["result"]), [tuple(p) for p in v["points"]])
        if self.trace is not None and data.get("trace"):
            self.trace = [tuple(p) for p in data["trace"]["points"]]
            self._trace_seen = int(data["trace"]["seen"])
            self._trace_stride = int(data["trace"]["stride"])
        if any(b < self.next_block or b >= self.n_blocks for b in list(self.done) + list(self.partial)):
            raise ValueError("block numbers out of range")
        self._fold()


class Plan:
    """What a run plays: lanes of blocks, handed out as jobs of ``chunk_size`` rounds.

    ``chunk_size`` must be a positive multiple of ``block_size`` (jobs of whole
    blocks) or smaller than it (jobs of one part of a block); the results do
    not depend on it.
    """

    def __init__(self, block_size: int, chunk_size: int, n_comp: int, n_counters: int):
        check_chunk_size(chunk_size, block_size)
        self.block_size = int(block_size)
        self.chunk_size = int(chunk_size)
        self.blocks_per_job = max(1, self.chunk_size // self.block_size)
        self.piece_rounds = self.chunk_size if self.chunk_size < self.block_size else None
        self.n_comp = n_comp
        self.n_counters = n_counters
        self.lanes: dict[int, Lane] = {}
        self.max_ahead = 1024  # blocks handed out beyond the first unfinished one (set by the runner)

    def lane(self, stratum: int, rounds: int = 0, trace: bool = False) -> Lane:
        if stratum not in self.lanes:
            self.lanes[stratum] = Lane(self, stratum, rounds, trace)
        return self.lanes[stratum]

    @property
    def complete(self) -> bool:
        return all(lane.complete for lane in self.lanes.values())

    def played(self) -> int:
        return sum(lane.played() for lane in self.lanes.values())

    def next_job(self) -> tuple | None:
        """The next job ready to play (None: none until a job in play finishes, or all handed out)."""
        for lane in self.lanes.values():
            job = lane.next_job()
            if job:
                return job
        return None

    def finish(self, job: tuple, outputs: list) -> int:
        """Record a played job (the output of :func:`execute_job`); returns the rounds it added."""
        return sum(self.lanes[p.lane].finish(p, data, rng) for p, (data, rng) in zip(job, outputs))

    def release(self, job: tuple) -> None:
        """Forget that ``job`` is in play (it was dropped; its blocks may be handed out again)."""
        for p in job:
            self.lanes[p.lane].busy.discard(p.block)
        for lane in self.lanes.values():
            dropped = [p.block for p in job if p.lane == lane.stratum and p.offset == 0 and p.block not in lane.partial]
            if dropped:
                lane.cursor = min([lane.cursor] + dropped)

    def to_json(self) -> list:
        return [lane.to_json() for lane in self.lanes.values()]

    def restore(self, data: list) -> None:
        by_stratum = {int(d["stratum"]): d for d in data}
        if set(by_stratum) != set(self.lanes):
            raise ValueError("lanes differ")
        for stratum, lane in self.lanes.items():
            lane.restore(by_stratum[stratum])


def check_chunk_size(chunk_size, block_size: int) -> int:
    """``chunk_size`` if it is a positive whole number below ``block_size`` or a multiple of it."""
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size <= 0:
        raise SimulationError(f"chunk size must be a positive whole number of rounds, got {chunk_size!r}")
    if chunk_size >= block_size and chunk_size % block_size:
        raise SimulationError(
            f"chunk size must be below the block of {block_size:,} rounds or a multiple of it, got {int(chunk_size):,} "
            f"(e.g. {block_size * max(1, int(chunk_size) // block_size):,}); the results do not depend on it")
    return int(chunk_size)


# ---------------------------------------------------------------------------
# checkpoints
# ---------------------------------------------------------------------------
def writable_file_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be written as a file (None if it can): a missing or
    unwritable folder, a folder or special file in its place."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None
    except OSError as exc:
        return exc.strerror or str(exc)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            return "is a folder, not a file"
        if not stat.S_ISREG(st.st_mode):
            return "is not a regular file"
    folder = Path(os.path.realpath(p)).parent if st is not None else (p.parent if str(p.parent) else Path("."))
    if not folder.exists():
        return missing_folder_reason(folder)
    if not folder.is_dir():
        return f"{folder} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".workbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot create files in {folder}: {exc.strerror or exc}"
    if st is not None:
        try:
            os.close(os.open(p, os.O_WRONLY))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def canonical_json(content) -> bytes:
    """The one byte string a checkpoint's checksum is taken over: sorted keys, no spaces, ASCII.

    A checkpoint is re-read with :func:`json.loads` (floats round-trip exactly
    through their shortest repr), so the same content always gives the same bytes
    whatever spacing or key order the file itself has.
    """
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def checkpoint_checksum(content: dict) -> str:
    """``sha256:<hex>`` of :func:`canonical_json` of a checkpoint's content (everything but the checksum)."""
    return "sha256:" + hashlib.sha256(canonical_json(content)).hexdigest()


def _result_problem(result: ChunkResult, rounds: int) -> str | None:
    """What makes ``result`` impossible as the sums of ``rounds`` played rounds (None: nothing found).

    Only relations every round template's sums satisfy (see ``chunks._add_round``):
    counts are whole and non-negative, wins and squares are non-negative, the
    win histogram counts exactly the winning rounds, no win is above the
    largest, and (sum of wins)^2 <= winning rounds x (sum of squared wins).
    """
    n = result.rounds
    if n != rounds:
        return f"{n:,} rounds recorded where {rounds:,} were played"
    floats = np.concatenate([result.comp_sq, result.comp_sq_raw, result.comp_adj, result.squares, result.extra])
    if not np.all(np.isfinite(floats)):
        return "a sum that is not a finite number"
    winning, base_winning = int(result.totals[3]), int(result.totals[4])
    if not (0 <= winning <= n and 0 <= base_winning <= n):
        return f"{winning:,} winning rounds out of {n:,}"
    if np.any(result.counters < 0) or np.any(result.hist < 0) or np.any(result.maxwin < 0):
        return "a negative count"
    if int(result.hist.sum()) != winning:
        return f"the win histogram counts {int(result.hist.sum()):,} winning rounds, not {winning:,}"
    if np.any(result.comp_sq < 0) or np.any(result.comp_sq_raw < 0) or np.any(result.squares < 0) or result.extra[1] < 0:
        return "a negative sum of squares"
    won, top, at_top = int(result.totals[1]), int(result.maxwin[0]), int(result.maxwin[1])
    if won < 0:
        return "a negative sum of wins"
    if at_top > winning or (winning > 0) != (top > 0 and at_top > 0) or won > top * winning:
        return f"the largest win ({top:,} pay units, {at_top:,} times) does not fit the {winning:,} winning rounds " \
               f"paying {won:,} in all"
    # Cauchy-Schwarz, with room for the rounding of a float sum of squares over many rounds
    if float(won) * float(won) > float(winning) * float(result.squares[0]) * (1 + 1e-3) + 1.0:
        return "the sum of squared wins is too small for the sum of wins"
    return None


class Checkpoint:
    """The state of a run (its finished blocks, folded) in a JSON file, so a stopped run can resume.

    The file is written atomically when it is opened (so a path that cannot be
    written is refused before the run starts), at most every
    :data:`SAVE_EVERY` seconds during the run, and whenever the run ends or stops.

    A resumed run adds the file's sums to its own, so the file is not trusted
    as it stands: it carries ``checksum``, the SHA-256 of its content
    (:func:`checkpoint_checksum`: format, the run's signature, which holds the
    game file's SHA-256, the seed, spins, stake and mode, and every lane's
    sums), and a file whose content does not match it (edited, or damaged on
    disk) is refused, as is a file of an earlier format that has no checksum.
    A checksum is no signature (whoever can read this code can recompute it),
    so the sums are also checked against each other (:meth:`_check_consistency`):
    the rounds recorded must be the blocks finished x the block size, counts and
    sums of squares non-negative, and so on.
    """

    def __init__(self, path: Path, signature: dict, plan: Plan, prepare=None):
        self.path = path
        self.signature = signature
        self.plan = plan
        #: what the run needs besides the lanes to resume (``estimate_rtp``: its batches), under the checksum too
        self.extra: dict = {}
        self.prepare = prepare  # called with the file's ``extra`` before the lanes are restored (it may extend them)
        self._last_save = 0.0
        self._warned = False

    @classmethod
    def open(cls, path: str | os.PathLike, signature: dict, plan: Plan, prepare=None) -> "Checkpoint":
        """Open (and resume from) the checkpoint at ``path`` for the run with ``signature`` and ``plan``.

        ``prepare(extra)``: called with what the file holds besides the lanes (a dict) before they are restored, so
        a run whose lanes grow as it goes (``estimate_rtp``) can grow them as far as the file's; it raises
        ValueError (or KeyError, TypeError) for an ``extra`` that does not fit the run."""
        path = Path(path)
        problem = writable_file_problem(path)
        if problem:
            raise SimulationError(f"cannot write {path}: {problem}")
        store = cls(path, signature, plan, prepare)
        size = path.stat().st_size if path.exists() else 0
        if size > MAX_CHECKPOINT_BYTES:
            raise SimulationError(f"{path}: {size:,} bytes, too large to be a workbench checkpoint; choose another file")
        if size:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as exc:  # (RecursionError: absurdly nested JSON)
                raise SimulationError(f"{path}: not a readable checkpoint ({exc})") from None
            if not isinstance(data, dict):
                raise SimulationError(f"{path}: not a workbench checkpoint")
            store._restore(data)
        store.save()
        return store

    def _refuse(self, problem: str) -> SimulationError:
        return SimulationError(f"{self.path}: changed or damaged checkpoint: {problem}, so none of its numbers is "
                               "trusted; delete it to start the run over")

    def _restore(self, data: dict) -> None:
        fmt = data.get("format")
        if fmt in ("workbench-checkpoint-1", "workbench-checkpoint-2"):
            # these have no checksum: what they hold cannot be told from an edited file, so they are not resumed
            raise SimulationError(
                f"{self.path}: checkpoint written by an earlier version of the workbench ({fmt}), which predates the "
                "checksum that detects changed or damaged checkpoints; it is not trusted: delete it to start the run over")
        if fmt == "workbench-checkpoint-3":
            raise SimulationError(
                f"{self.path}: checkpoint written by an earlier version of the workbench ({fmt}), whose sums lack what "
                "this version records (each component's raw squares); delete it to start the run over")
        if fmt != CHECKPOINT_FORMAT:
            raise SimulationError(f"{self.path}: not a workbench checkpoint")
        content = {k: v for k, v in data.items() if k != "checksum"}
        checksum = data.get("checksum")
        if not isinstance(checksum, str):
            raise self._refuse("it has no checksum")
        try:
            expected = checkpoint_checksum(content)
        except (ValueError, TypeError, RecursionError) as exc:
            raise self._refuse(f"its content cannot be read back ({type(exc).__name__})") from None
        if checksum != expected:  # (nothing secret here: a plain comparison)
            raise self._refuse("its checksum does not match its content (edited, or damaged on disk)")
        if data.get("signature") != self.signature:
            raise SimulationError(
                f"{self.path}: checkpoint belongs to a different run (game file, seed, spins, stake or mode differ); "
                "delete it or choose another file")
        try:
            extra = data.get("extra", {})
            if not isinstance(extra, dict):
                raise TypeError("extra is not a table")
            if self.prepare is not None:
                self.prepare(extra)
            self.extra = extra
            self.plan.restore(data["lanes"])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
            raise self._refuse(f"its content does not fit this run ({exc})") from None
        self._check_consistency()

    def _check_consistency(self) -> None:
        """Refuse sums that no run can have produced (the checksum stops edits, not a forger who recomputes it)."""
        plan = self.plan
        for lane in plan.lanes.values():
            where = "natural play" if lane.stratum < 0 else f"stratum {lane.stratum}"
            # the folded total holds exactly blocks 0 .. next_block - 1 (the last block of a lane may be short)
            problem = _result_problem(lane.total, min(lane.next_block * plan.block_size, lane.rounds))
            if problem:
                done = "no finished block" if not lane.next_block else f"finished blocks 0 to {lane.next_block - 1:,}"
                raise self._refuse(f"{where}, {done}: {problem}")
            for block, (result, points) in lane.done.items():
                problem = _result_problem(result, lane.size(block)) or _points_problem(points, lane.size(block))
                if problem:
                    raise self._refuse(f"{where}, block {block:,}: {problem}")
            for block, (played, _rng, result, points) in lane.partial.items():
                problem = _result_problem(result, played) or _points_problem(points, played)
                if problem:
                    raise self._refuse(f"{where}, block {block:,} (played in part): {problem}")
            if lane.trace is not None:
                problem = _points_problem(lane.trace, lane.total.rounds)
                if not problem and (lane._trace_stride < 1 or lane._trace_stride & (lane._trace_stride - 1)
                                    or lane._trace_seen < 0):
                    problem = "bad trace stride"
                if problem:
                    raise self._refuse(f"{where}, convergence trace: {problem}")

    def maybe_save(self) -> None:
        """Save if the last save is :data:`SAVE_EVERY` seconds old (a failure warns; the run goes on)."""
        if time.monotonic() - self._last_save < SAVE_EVERY:
            return
        try:
            self.save()
        except SimulationError as exc:
            self._last_save = time.monotonic()
            if not self._warned:
                _log.warning("workbench: %s (the run goes on; saving again every %g s)", exc, SAVE_EVERY)
                self._warned = True

    def save(self) -> None:
        content = {"format": CHECKPOINT_FORMAT, "signature": self.signature, "lanes": self.plan.to_json()}
        if self.extra:
            content["extra"] = self.extra
        text = json.dumps({**content, "checksum": checkpoint_checksum(content)})
        try:
            atomic_write_text(self.path, text)
        except (OSError, WorkbenchError) as exc:
            reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
            for prefix in (f"{self.path}: not written: ", f"{self.path}: "):
                if reason.startswith(prefix):
                    reason = reason[len(prefix):]
                    break
            raise SimulationError(f"cannot write {self.path}: {reason}") from None
        self._last_save = time.monotonic()


def _points_problem(points, rounds: int) -> str | None:
    """What is wrong with convergence-trace points ``(rounds, sum of wins, sum of squares)`` within ``rounds``."""
    last = 0
    for point in points:
        if len(point) != 3:
            return "a trace point that is not (rounds, wins, squares)"
        n, won, squares = point
        if not (isinstance(n, int) and isinstance(won, int) and isinstance(squares, (int, float))):
            return "a trace point that is not numbers"
        if not last <= n <= rounds or won < 0 or not math.isfinite(squares) or squares < 0:
            return f"a trace point ({n}, {won}, {squares}) out of range"
        last = n
    return None


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
                window = max(2 * sum(self._client.nthreads().values()), 2)
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


def check_workers(workers) -> int:
    """``workers`` if it is a whole number from 1 to :data:`MAX_WORKERS`."""
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 1 <= workers <= MAX_WORKERS:
        raise SimulationError(f"--workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    return int(workers)


def combine(results: dict, n_comp: int, n_counters: int) -> ChunkResult:
    """Sum of job results, added in key order."""
    total = ChunkResult.empty(n_comp, n_counters)
    for key in sorted(results):
        total.add(results[key])
    return total


def make_progress(total: int, enabled, unit: str = "spin", label: str = "workbench"):
    """A progress report on stderr when ``enabled`` is True (tqdm's bar on a terminal, a line every few seconds
    elsewhere: :mod:`.progress`), ``enabled`` itself when it is a bar (anything with tqdm's ``update``, ``close``,
    ``refresh`` and ``total``, e.g. a notebook panel's), else None."""
    if not enabled:
        return None
    if all(hasattr(enabled, name) for name in ("update", "close", "refresh")):
        enabled.total = total
        return enabled
    from .progress import terminal_progress

    return terminal_progress(label, total or None, unit)


def check_jackpot_stake(model: RoundModel) -> None:
    """Refuse a stake at which one wager would feed a must-drop pot past its must-drop value."""
    for tier in model.jackpots or ():
        feed = model.stake * tier.pot_rate
        room = tier.must_drop * (1 - tier.reseed_fraction)
        if not feed <= room:
            raise SimulationError(
                f"stake {model.stake!r} is too large for the jackpot tier {tier.name!r}: one wager feeds {feed:.6g} to a pot "
                f"that must drop by {tier.must_drop:g} (at most stake {room / tier.pot_rate:.6g})")


def finite_positive(value, name: str) -> float:
    """``value`` as a float if it is a finite number above 0, else a SimulationError naming ``name``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SimulationError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(number) or number <= 0:
        raise SimulationError(f"{name} must be a finite number above 0, got {value!r}")
    return number
