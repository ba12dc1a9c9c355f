"""Lanes of blocks of rounds: the unit of randomness (a block), its pieces, and a run's plan of lanes.

See :mod:`.engine` for the three units (block, piece, job); per lane, block results are added in block
order, so a run's sums are bit-identical however its jobs are played.
"""

from __future__ import annotations

import numpy as np
from dataclasses import dataclass

from ..errors import SimulationError
from .chunks import ChunkResult

#: rounds per block of randomness of ``simulate`` (the chunk of earlier versions: same numbers)


SIMULATE_BLOCK = 1 << 20


#: rounds per block of randomness of ``estimate_rtp``
RTP_BLOCK = 1 << 16


DEFAULT_CHUNK = SIMULATE_BLOCK


#: points kept in a convergence trace (longer runs keep every 2nd, 4th, ... block)
TRACE_POINTS = 4096


def check_seed(seed) -> int:
    """A run's seed as an int, or a :class:`~workbench.errors.SimulationError` saying what a seed may be."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise SimulationError(f"seed must be a whole number from 0 to 2**63 - 1, got {seed!r}")
    return int(seed)


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
        self.top_block = 0  # the first folded block holding the largest win of the folded blocks
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
                points = points + [(result.rounds, result.won, result.won_squares)]
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
                self._point(total.rounds + n, total.won + s, total.won_squares + sq)
            if result.max_win_units > total.max_win_units:
                self.top_block = self.next_block
            total.add(result)
            self._point(total.rounds, total.won, total.won_squares)
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

    def max_win_block(self) -> int:
        """The first block (in block order) holding the lane's largest win: the run's largest win is replayed from it
        (:func:`workbench.simulate.replay.locate_win`)."""
        block, top = self.top_block, self.total.max_win_units
        for b in sorted(set(self.done) | set(self.partial)):
            result = self.done[b][0] if b in self.done else self.partial[b][2]
            if result.max_win_units > top:
                block, top = b, result.max_win_units
        return block

    def trace_frame(self, cost_units: float):
        """Running RTP (x ``cost_units``, a round's price in pay units) and its 95 % half-width (DataFrame: spins, rtp, ci95) after each block
        (and each part of a block played in parts), ending with the lane's result."""
        import pandas as pd

        rows = list(self.trace or [])
        final = self.result()
        if final.rounds and (not rows or rows[-1][0] != final.rounds):
            rows.append((final.rounds, final.won, final.won_squares))
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
            "top_block": self.top_block,
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
        self.top_block = int(data.get("top_block", 0))  # (a checkpoint of an earlier version: block 0, searched on)
        if not 0 <= self.top_block <= max(next_block - 1, 0):
            raise ValueError(f"block {self.top_block} of the largest win out of range")
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
