"""Running a chunk of rounds in compiled code and adding chunk results up.

A chunk is a fixed number of rounds played with the chunk's own random
stream.  Its result holds integer sums (exact) and float sums of squares,
always added in chunk order, so a run gives the same numbers whatever the
number of workers or the order chunks finish in.
"""

from __future__ import annotations

import functools
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from .model import named_indices

#: the largest signed 64-bit integer: every sum of pay units the compiled rounds make is an int64
INT64_MAX = (1 << 63) - 1
#: fewest rounds one compiled call adds up (:func:`chunk_rounds`): a round template's bound (``max_round_units``)
#: may be at most :data:`ROUND_UNITS_MAX`, so that this many rounds' sums fit 64 bits
MIN_CHUNK_ROUNDS = 1 << 10
ROUND_UNITS_MAX = INT64_MAX // MIN_CHUNK_ROUNDS

# the named slots of the chunk sums (compile-time constants in the compiled code; ChunkResult reads them by name):
# totals: rounds, sum of round wins R, of first-screen wins B, rounds with R > 0, with B > 0, sum of R - B
T = named_indices("Totals", ("rounds", "won", "base", "hits", "base_hits", "extra"), __name__)
# squares: sum of R^2, of min(B, cap)^2 (B^2 without a cap), of (R - B)^2
SQ = named_indices("Squares", ("won", "base", "extra"), __name__)
# extra: sum and sum of squares of the adjusted extra X = R - B + adjustments
XS = named_indices("ExtraSums", ("sum", "squares"), __name__)
# maxwin: the largest R and how often it was paid
MW = named_indices("MaxWin", ("units", "count"), __name__)
# cap: the bet mode's max win in pay units (0: none), slots of component cap and counters max_win, max_win:base
CAP = named_indices("CapSlots", ("units", "component", "counter", "base_counter"), __name__)

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


Accumulators = namedtuple(
    "Accumulators",
    [
        "amounts",  # int64[n_comp] what the current round pays, by component (units)
        "adjust",  # float64[n_comp] zero-mean adjustments of the current round (conditional mode only)
        "adjusting",  # bool[1] conditional mode (or end to end with control variates, ``known``): adjustments are read
        "events",  # int64[n_counters] events of the chunk so far
        "is_exact",  # bool[n_comp] components paid by the unmodified base screen
        "is_info",  # bool[n_comp] informational components (not part of the round total)
        "edges_units",  # float64 win-distribution bucket edges (units)
        "bucket_lut",  # int8 bucket of every small win (units), so most rounds skip the search
        "comp_sum",  # int64[n_comp]
        "comp_sq",  # float64[n_comp] sums of (amount + adjustment)^2
        "comp_sq_raw",  # float64[n_comp] sums of amount^2 (the realized spread, for agreement checks)
        "comp_adj",  # float64[n_comp] sums of adjustments
        "totals",  # int64[6] [rounds, sum R, sum B, hits R>0, hits B>0, sum (R - B)]
        "squares",  # float64[3] [sum R^2, sum min(B, cap)^2, sum (R - B)^2] (B^2 without a max-win cap)
        "extra",  # float64[2] [sum X, sum X^2] of the adjusted extra X = R - B + adjustments
        "hist",  # int64 win-distribution bucket counts
        "maxwin",  # int64[2] [largest R, how often]
        "cap",  # int64[4] the bet mode's max win: [cap in units (0: none), component slot, counter slot, base counter slot]
        "known",  # float64[n_comp] a component's exact mean per round (units) used as a control variate; NaN: none
    ],
)


@njit(cache=True, inline="always")
def _apply_max_win(acc):
    """The bet mode's max-win cap on the current round, before it is recorded (``acc.cap[CAP.units] > 0``).

    A round whose total R (every non-informational component) reaches the cap
    counts in counter ``max_win`` (and in ``max_win:base`` when its unmodified
    base screen B alone reaches it); the excess R - cap goes, negative, to
    component ``cap``, as if the round had ended when its win reached the cap.
    In conditional mode the cap component is also *adjusted* by +(B - cap) when
    B alone is above the cap: the stratum then estimates E[R - min(B, cap) | s],
    and the exact part of the estimate takes -E[(B - cap)+] over every spin
    (see :class:`workbench.simulate.results.RtpEstimate`).
    """
    cap = acc.cap
    amounts = acc.amounts
    r = 0
    b = 0
    for k in range(amounts.shape[0]):
        if not acc.is_info[k]:
            r += amounts[k]
            if acc.is_exact[k]:
                b += amounts[k]
    if r >= cap[CAP.units]:
        acc.events[cap[CAP.counter]] += 1
        if r > cap[CAP.units]:
            amounts[cap[CAP.component]] -= r - cap[CAP.units]
    if b >= cap[CAP.units]:  # (whatever the features add: E[min(R, cap)] = E[min(B, cap)] + E[min(R, cap) - min(B, cap)])
        acc.events[cap[CAP.base_counter]] += 1
        if b > cap[CAP.units] and acc.adjusting[0]:
            acc.adjust[cap[CAP.component]] += float(b - cap[CAP.units])


@njit(cache=True, inline="always")
def _add_round(acc, r, b, x_adj):
    """Add a round with total ``r``, base-screen part ``b`` and adjustments ``x_adj`` to the chunk sums."""
    totals = acc.totals
    squares = acc.squares
    maxwin = acc.maxwin
    totals[T.rounds] += 1
    totals[T.won] += r
    totals[T.base] += b
    if r > 0:
        totals[T.hits] += 1
        lut = acc.bucket_lut
        acc.hist[lut[r] if r < lut.shape[0] else _bucket(acc.edges_units, r)] += 1
    if b > 0:
        totals[T.base_hits] += 1
    x = r - b
    totals[T.extra] += x
    fr = float(r)
    # under a max-win cap the round paid min(B, cap) of its base screen: the strata's second moment is
    # E[R^2 - min(B, cap)^2 | s] on top of the exact E[min(B, cap)^2]
    fb = float(b if acc.cap[CAP.units] == 0 or b < acc.cap[CAP.units] else acc.cap[CAP.units])
    squares[SQ.won] += fr * fr
    squares[SQ.base] += fb * fb
    squares[SQ.extra] += float(x) * float(x)
    xa = float(x) + x_adj
    acc.extra[XS.sum] += xa
    acc.extra[XS.squares] += xa * xa
    if r > maxwin[MW.units]:
        maxwin[MW.units] = r
        maxwin[MW.count] = 1
    elif r == maxwin[MW.units] and r > 0:
        maxwin[MW.count] += 1


@njit(cache=True, inline="always")
def record_single(acc, k):
    """:func:`record_round` for a round that paid (if anything) component ``k`` only, with no
    adjustments: games return such a ``k`` from their commonest path to skip the component loop."""
    amounts = acc.amounts
    a = amounts[k]
    if acc.cap[CAP.units] > 0 and a >= acc.cap[CAP.units]:
        record_round(acc)
        return
    r = 0
    b = 0
    if a != 0:
        acc.comp_sum[k] += a
        v = float(a)
        acc.comp_sq[k] += v * v
        acc.comp_sq_raw[k] += v * v
        amounts[k] = 0
        if not acc.is_info[k]:
            r = a
            if acc.is_exact[k]:
                b = a
    _add_round(acc, r, b, 0.0)


@njit(cache=True, inline="always")
def record_round(acc):
    """Add one round's amounts into the chunk statistics and clear them for the next round.

    R is the round total, B what the unmodified base screen pays.  In
    conditional mode (a stratum, ``acc.adjusting``) games may add
    *adjustments* (``acc.adjust``): zero-mean corrections (Rao-Blackwell,
    control variates), used only for the estimate of the mean extra win
    ``X``; hit counts, extremes and the win distribution always use the
    realized amounts.  End to end, adjustments are never read.  The bet mode's
    max-win cap (``acc.cap``) is applied first (:func:`_apply_max_win`).
    """
    if acc.cap[CAP.units] > 0:
        _apply_max_win(acc)
    amounts = acc.amounts
    is_info = acc.is_info
    is_exact = acc.is_exact
    comp_sum = acc.comp_sum
    comp_sq = acc.comp_sq
    comp_sq_raw = acc.comp_sq_raw
    r = 0
    b = 0
    x_adj = 0.0
    if acc.adjusting[0]:
        adjust = acc.adjust
        known = acc.known
        for k in range(amounts.shape[0]):
            a = amounts[k]
            d = adjust[k]
            if known[k] == known[k]:  # a control variate: its exact mean in place of what this round drew
                d += known[k] - float(a)
            if a != 0 or d != 0.0:
                comp_sum[k] += a
                v = float(a) + d
                comp_sq[k] += v * v
                comp_sq_raw[k] += float(a) * float(a)
                if not is_info[k]:
                    r += a
                    if is_exact[k]:
                        b += a
                amounts[k] = 0
            if d != 0.0:
                acc.comp_adj[k] += d
                if not is_info[k] and not is_exact[k]:
                    x_adj += d
                adjust[k] = 0.0
    else:
        for k in range(amounts.shape[0]):
            a = amounts[k]
            if a != 0:
                comp_sum[k] += a
                v = float(a)
                comp_sq[k] += v * v
                comp_sq_raw[k] += v * v
                if not is_info[k]:
                    r += a
                    if is_exact[k]:
                        b += a
                amounts[k] = 0
    _add_round(acc, r, b, x_adj)


# Every game module defines its chunk loop with this exact shape (see
# workbench/rounds/plain.py).  The loop must live in the module, next to the
# module's ``play_round`` (``inline="always"``): a compiled call per round would
# copy the game's parameter record on every call, and a loop built by a
# factory cannot be cached on disk.  It is compiled without reference counting
# (``_nrt=False``): reading arrays out of records otherwise costs runtime calls
# far dearer than a round.  So nothing in a round may allocate; scratch arrays
# live in the game's parameter record.  (Namedtuple classes must be bound to a
# module attribute of the same name, or the on-disk cache never matches.)
#
#   @njit(cache=True, _nrt=False)
#   def run_chunk(params, rng, n_rounds, stratum, acc, counters):
#       for _ in range(n_rounds):
#           play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
#           record_round(acc)
#       finish_chunk(acc.events, counters)
#
# A game whose commonest round pays one component only may have ``play_round``
# say so and call ``record_single(acc, k)`` for it instead (see super_10_stars.py).


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
    comp_sq_raw: np.ndarray
    comp_adj: np.ndarray
    totals: np.ndarray
    squares: np.ndarray
    extra: np.ndarray
    counters: np.ndarray
    hist: np.ndarray
    maxwin: np.ndarray

    FIELDS = ("comp_sum", "comp_sq", "comp_sq_raw", "comp_adj", "totals", "squares", "extra", "counters", "hist", "maxwin")
    INTS = ("comp_sum", "totals", "counters", "hist", "maxwin")

    @classmethod
    def empty(cls, n_comp: int, n_counters: int) -> "ChunkResult":
        return cls(
            comp_sum=np.zeros(n_comp, dtype=np.int64),
            comp_sq=np.zeros(n_comp),
            comp_sq_raw=np.zeros(n_comp),
            comp_adj=np.zeros(n_comp),
            totals=np.zeros(6, dtype=np.int64),
            squares=np.zeros(3),
            extra=np.zeros(2),
            counters=np.zeros(n_counters, dtype=np.int64),
            hist=np.zeros(len(BUCKET_EDGES), dtype=np.int64),
            maxwin=np.zeros(2, dtype=np.int64),
        )

    @property
    def rounds(self) -> int:
        return int(self.totals[T.rounds])

    # the sums by name (pay units; squares as floats)
    @property
    def won(self) -> int:
        """Sum of the round wins R."""
        return int(self.totals[T.won])

    @property
    def base_won(self) -> int:
        """Sum of the first-screen wins B."""
        return int(self.totals[T.base])

    @property
    def hits(self) -> int:
        """Rounds with a win."""
        return int(self.totals[T.hits])

    @property
    def base_hits(self) -> int:
        """Rounds whose first screen won."""
        return int(self.totals[T.base_hits])

    @property
    def won_squares(self) -> float:
        """Sum of R^2."""
        return float(self.squares[SQ.won])

    @property
    def base_squares(self) -> float:
        """Sum of min(B, cap)^2 (B^2 without a max-win cap)."""
        return float(self.squares[SQ.base])

    @property
    def extra_sum(self) -> float:
        """Sum of the adjusted extra X = R - B + adjustments."""
        return float(self.extra[XS.sum])

    @property
    def extra_squares(self) -> float:
        """Sum of X^2."""
        return float(self.extra[XS.squares])

    @property
    def max_win_units(self) -> int:
        """The largest round win."""
        return int(self.maxwin[MW.units])

    @property
    def max_win_count(self) -> int:
        """How many rounds paid the largest win."""
        return int(self.maxwin[MW.count])

    def add(self, other: "ChunkResult") -> None:
        """Add ``other`` into this result (callers add chunks in chunk order); a 64-bit integer sum that would
        wrap around stops the run (:class:`~workbench.errors.SimulationError`) instead of adding up wrongly."""
        for name in self.FIELDS:
            if name == "maxwin":
                continue
            if name in self.INTS:
                add_checked(getattr(self, name), getattr(other, name), name)
            else:
                getattr(self, name).__iadd__(getattr(other, name))
        if other.maxwin[MW.units] > self.maxwin[MW.units]:
            self.maxwin[:] = other.maxwin
        elif other.maxwin[MW.units] == self.maxwin[MW.units]:
            self.maxwin[MW.count] += other.maxwin[MW.count]

    def to_json(self) -> dict:
        return {k: getattr(self, k).tolist() for k in self.FIELDS}

    @classmethod
    def from_json(cls, data: dict) -> "ChunkResult":
        return cls(**{k: np.asarray(data[k], dtype=np.int64 if k in cls.INTS else float) for k in cls.FIELDS})


def add_checked(total: np.ndarray, part: np.ndarray, what: str = "sums") -> None:
    """``total += part`` (int64 arrays), refusing a sum that leaves 64-bit integers instead of wrapping around."""
    result = total + part  # numpy wraps around silently; the sign test below finds it
    wrapped = ((total ^ result) & (part ^ result)) < 0
    if np.any(wrapped):
        raise SimulationError(f"the run's {what} left 64-bit integers (a sum of pay units above {INT64_MAX:,}): it "
                              "is stopped rather than reported wrong; simulate fewer rounds per run, or check the game's "
                              "pays and feature limits")
    total[...] = result


def chunk_rounds(model) -> int | None:
    """Most rounds whose pays one compiled call may add into 64-bit sums, proven from the model's
    ``max_round_units`` (a round's pays never add up above it): ``INT64_MAX // max_round_units``; None when the
    template proves no bound."""
    bound = int(getattr(model, "max_round_units", 0) or 0)
    return INT64_MAX // bound if bound > 0 else None


def check_chunk(model, result: "ChunkResult") -> None:
    """The run-time checks of a chunk's sums: no round above the proven bound (or the bet mode's max-win cap), no
    negative count or sum of wins (a 64-bit sum that wrapped around).  A violation stops the run with a
    :class:`~workbench.errors.SimulationError` rather than printing a number."""
    top = result.max_win_units
    bound = int(getattr(model, "max_round_units", 0) or 0)
    cap = int(getattr(model, "max_win_units", 0) or 0)
    problem = None
    if (np.any(result.totals[:T.extra] < 0) or np.any(result.counters < 0) or np.any(result.hist < 0)
            or result.max_win_count < 0):
        problem = "a count or a sum of wins is negative, so a 64-bit sum wrapped around"
    elif bound and top > bound:
        problem = (f"a round paid {top:,} pay units, above the {bound:,} its round template proves a round can pay "
                   "(a 64-bit sum wrapped around, or the template's bound is wrong)")
    elif cap and top > cap:
        problem = f"a round paid {top:,} pay units, above the bet mode's max_win of {cap:,}"
    if problem is not None:
        raise SimulationError(f"{model.game.name}: the simulation is stopped: {problem}; no figure of it is reported")


def bucket_lut(edges_units: np.ndarray, cost_units: int) -> np.ndarray:
    """Bucket index of every win of 0 .. ~1000 x the total bet (at most 65 536 units)."""
    n = int(min(1 << 16, 1000 * int(cost_units) + 1))
    return (np.searchsorted(edges_units, np.arange(n), side="right") - 1).astype(np.int8)


@functools.lru_cache(maxsize=32)
def _bucket_lut_of(cost_units: int) -> np.ndarray:
    """:func:`bucket_lut` of the standard edges at ``cost_units`` pay units per total bet, built once per pay unit
    (a chunk of a few rounds would otherwise spend most of its time building it); the compiled loops only read it."""
    return bucket_lut(BUCKET_EDGES * cost_units, cost_units)


def max_win_slots(model) -> np.ndarray:
    """``Accumulators.cap`` of ``model``: [its ``max_win_units`` (0: no cap), slot of component ``cap``, slots of
    counters ``max_win`` and ``max_win:base``] (slots 0 when there is no cap)."""
    units = int(getattr(model, "max_win_units", 0) or 0)
    if units <= 0:
        return np.zeros(4, dtype=np.int64)
    return np.array([units, model.components.index("cap"), model.counters.index("max_win"),
                     model.counters.index("max_win:base")], dtype=np.int64)


def chunk_accumulators(model, out: "ChunkResult", stratum: int = -1) -> tuple:
    """(:class:`Accumulators` adding the rounds of ``model`` into ``out``, the stratum index the compiled loop is
    given): what :func:`play_chunk` hands the round template's ``run_chunk``; a caller that plays rounds one at a
    time (:mod:`workbench.simulate.feature_sample`) builds them once."""
    n_comp = len(model.components)
    # a stratum of the exact + conditional method keeps its adjustments; the end-to-end stratum plays natural
    # rounds and makes none (its extra is round - first screen, beside the exact, uncapped first screen), but for
    # the model's control variates (RoundModel.exact_means), read in record_round
    conditional = stratum >= 0 and not model.strata[stratum].end_to_end
    known = np.full(n_comp, np.nan)
    if stratum >= 0 and model.strata[stratum].end_to_end:
        stratum = -1
        if model.exact_means and not model.max_win_units:  # natural rounds: a component's exact mean per round holds
            for name, mean in model.exact_means.items():
                known[model.components.index(name)] = mean
            conditional = True  # (the round template adds no adjustments of its own in natural play)
    is_exact = np.zeros(n_comp, dtype=np.bool_)
    is_exact[list(model.exact_components)] = True
    is_info = np.zeros(n_comp, dtype=np.bool_)
    is_info[list(model.informational_components)] = True
    edges_units = BUCKET_EDGES * model.params.cost_units
    acc = Accumulators(
        amounts=np.zeros(n_comp, dtype=np.int64),
        adjust=np.zeros(n_comp),
        adjusting=np.array([conditional]),
        events=np.zeros(len(model.counters), dtype=np.int64),
        is_exact=is_exact,
        is_info=is_info,
        edges_units=edges_units,
        bucket_lut=_bucket_lut_of(int(model.params.cost_units)),
        comp_sum=out.comp_sum,
        comp_sq=out.comp_sq,
        comp_sq_raw=out.comp_sq_raw,
        comp_adj=out.comp_adj,
        totals=out.totals,
        squares=out.squares,
        extra=out.extra,
        hist=out.hist,
        maxwin=out.maxwin,
        cap=max_win_slots(model),
        known=known,
    )
    return acc, stratum


def play_chunk(model, rng: np.ndarray, n_rounds: int, stratum: int = -1, into: ChunkResult | None = None) -> ChunkResult:
    """Play ``n_rounds`` rounds of ``model`` drawing from ``rng`` (a state array, see :mod:`.rng`).

    With ``into`` (the sums of earlier rounds played from the same stream) the
    rounds are added to it in place and it is returned: a run of rounds played
    in parts, each continuing ``rng`` and ``into``, gives bit for bit the sums
    of the same rounds played at once.

    The compiled loop adds pays into 64-bit integers.  When the model's proven bound of a round
    (``max_round_units``) times the rounds summed could pass :data:`INT64_MAX`, the rounds are played in calls
    of at most :func:`chunk_rounds` rounds, each adding its integer sums into zeroed arrays that are then added
    to the result with a check (:func:`add_checked`); float sums keep accumulating in place, so the result is
    the same bit for bit.  The chunk's sums are then checked (:func:`check_chunk`).
    """
    out = ChunkResult.empty(len(model.components), len(model.counters)) if into is None else into
    acc, stratum = chunk_accumulators(model, out, stratum)
    n_rounds = int(n_rounds)
    step = chunk_rounds(model)
    if step is None or out.rounds + n_rounds <= step:
        model.run_chunk(model.params, rng, n_rounds, int(stratum), acc, out.counters)
    else:  # every compiled call's integer sums start from 0 and hold at most ``step`` rounds: they fit
        comp_sum = np.zeros_like(out.comp_sum)
        totals = np.zeros_like(out.totals)
        acc = acc._replace(comp_sum=comp_sum, totals=totals)
        done = 0
        while done < n_rounds:
            part = min(step, n_rounds - done)
            comp_sum[:] = 0
            totals[:] = 0
            model.run_chunk(model.params, rng, part, int(stratum), acc, out.counters)
            add_checked(out.comp_sum, comp_sum, "sums of pay units")
            add_checked(out.totals, totals, "sums of pay units")
            done += part
    check_chunk(model, out)
    return out
