"""Running a chunk of rounds in compiled code and adding chunk results up.

A chunk is a fixed number of rounds played with the chunk's own random
stream.  Its result holds integer sums (exact) and float sums of squares,
always added in chunk order, so a run gives the same numbers whatever the
number of workers or the order chunks finish in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

# win-distribution buckets: edges in x total bet, log-spaced (10 per decade) from 0.01x
BUCKET_EDGES = np.concatenate([[0.0], 10.0 ** (np.arange(-20, 61) / 10.0)])


@njit(cache=True, inline="always")
def _bucket(edges_units, win):
    lo = 0
    hi = edges_units.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if edges_units[mid] <= win:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


@njit(cache=True, inline="always")
def record_round(amounts, is_exact, is_info, edges_units, comp_sum, comp_sq, totals, squares, hist, maxwin):
    """Add one round's amounts into the chunk statistics.

    totals (int64): [rounds, sum R, sum B, hits R>0, hits B>0, sum (R - B)];
    squares (float64): [sum R^2, sum B^2, sum (R - B)^2]
    (R: round total; B: what the unmodified base screen pays).
    """
    r = 0
    b = 0
    for k in range(amounts.shape[0]):
        a = amounts[k]
        if a != 0:
            comp_sum[k] += a
            comp_sq[k] += float(a) * float(a)
            if not is_info[k]:
                r += a
                if is_exact[k]:
                    b += a
            amounts[k] = 0
    totals[0] += 1
    totals[1] += r
    totals[2] += b
    if r > 0:
        totals[3] += 1
        hist[_bucket(edges_units, r)] += 1
    if b > 0:
        totals[4] += 1
    x = r - b
    totals[5] += x
    fr = float(r)
    fb = float(b)
    squares[0] += fr * fr
    squares[1] += fb * fb
    squares[2] += float(x) * float(x)
    if r > maxwin[0]:
        maxwin[0] = r
        maxwin[1] = 1
    elif r == maxwin[0] and r > 0:
        maxwin[1] += 1


# Every game module defines its chunk loop with this exact shape (see
# workbench/games/classic.py).  The loop must live in the module, next to the
# module's ``play_round`` (``inline="always"``): a compiled call per round would
# copy the game's parameter record on every call, and a loop built by a
# factory cannot be cached on disk.  It is compiled without reference counting
# (``_nrt=False``): reading arrays out of records otherwise costs runtime calls
# far dearer than a round.  So nothing in a round may allocate; scratch arrays
# live in the game's parameter record.
#
#   @njit(cache=True, _nrt=False)
#   def run_chunk(params, rng, n_rounds, stratum, is_exact, is_info, amounts, events, edges_units,
#                 comp_sum, comp_sq, totals, squares, counters, hist, maxwin):
#       for _ in range(n_rounds):
#           play_round(params, rng, amounts, events, stratum)
#           record_round(amounts, is_exact, is_info, edges_units, comp_sum, comp_sq, totals, squares, hist, maxwin)
#       finish_chunk(events, counters)


@njit(cache=True, inline="always")
def finish_chunk(events, counters):
    for j in range(events.shape[0]):
        counters[j] += events[j]
        events[j] = 0


@dataclass
class ChunkResult:
    """Sums over some rounds of one stratum (or of natural play)."""

    comp_sum: np.ndarray
    comp_sq: np.ndarray
    totals: np.ndarray
    squares: np.ndarray
    counters: np.ndarray
    hist: np.ndarray
    maxwin: np.ndarray

    @classmethod
    def empty(cls, n_comp: int, n_counters: int) -> "ChunkResult":
        return cls(
            comp_sum=np.zeros(n_comp, dtype=np.int64),
            comp_sq=np.zeros(n_comp),
            totals=np.zeros(6, dtype=np.int64),
            squares=np.zeros(3),
            counters=np.zeros(n_counters, dtype=np.int64),
            hist=np.zeros(len(BUCKET_EDGES), dtype=np.int64),
            maxwin=np.zeros(2, dtype=np.int64),
        )

    @property
    def rounds(self) -> int:
        return int(self.totals[0])

    def add(self, other: "ChunkResult") -> None:
        """Add ``other`` into this result (callers add chunks in chunk order)."""
        self.comp_sum += other.comp_sum
        self.comp_sq += other.comp_sq
        self.totals += other.totals
        self.squares += other.squares
        self.counters += other.counters
        self.hist += other.hist
        if other.maxwin[0] > self.maxwin[0]:
            self.maxwin[:] = other.maxwin
        elif other.maxwin[0] == self.maxwin[0]:
            self.maxwin[1] += other.maxwin[1]

    def to_json(self) -> dict:
        return {k: getattr(self, k).tolist() for k in ("comp_sum", "comp_sq", "totals", "squares", "counters", "hist", "maxwin")}

    @classmethod
    def from_json(cls, data: dict) -> "ChunkResult":
        ints = ("comp_sum", "totals", "counters", "hist", "maxwin")
        return cls(**{k: np.asarray(v, dtype=np.int64 if k in ints else float) for k, v in data.items()})


def play_chunk(model, rng: np.ndarray, n_rounds: int, stratum: int = -1) -> ChunkResult:
    """Play ``n_rounds`` rounds of ``model`` drawing from ``rng`` (a state array, see :mod:`.rng`)."""
    n_comp = len(model.components)
    out = ChunkResult.empty(n_comp, len(model.counters))
    is_exact = np.zeros(n_comp, dtype=np.bool_)
    is_exact[list(model.exact_components)] = True
    is_info = np.zeros(n_comp, dtype=np.bool_)
    is_info[list(model.informational_components)] = True
    cost_units = model.params.cost_units
    edges_units = BUCKET_EDGES * cost_units
    amounts = np.zeros(n_comp, dtype=np.int64)
    events = np.zeros(len(model.counters), dtype=np.int64)
    model.run_chunk(model.params, rng, int(n_rounds), int(stratum), is_exact, is_info,
                    amounts, events, edges_units, out.comp_sum, out.comp_sq, out.totals, out.squares,
                    out.counters, out.hist, out.maxwin)
    return out
