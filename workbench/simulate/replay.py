"""Any round of a simulation, again: replay a round from (game, seed, round index), and find rounds by what they paid.

:func:`~workbench.simulate.simulate` plays round ``n`` of a run seeded with ``s`` as round ``n mod 2^20`` of block
``n // 2^20`` (:data:`~workbench.simulate.lanes.SIMULATE_BLOCK`), whose random stream is
``chunk_state(s, stream_index(-1, block))``, whatever the number of workers, the chunk size or a resume.  So a round
is replayed by playing its block's rounds before it (compiled, as the run did) and then the round alone, with the
same compiled code: what the replay reports *is* what the run counted for that round (the sum of replayed wins
equals the run's total, a test checks it).

:func:`find_rounds` lists the rounds of a run that meet conditions on the win (x the round's price), a component or
a counter.  It plays the run in pieces of :data:`PIECE` rounds and plays a piece again, in smaller parts down to
single rounds, only when its sums allow a match (a piece whose largest win is below ``win >= x``, whose counter sum
is below ``counter >= k``, or whose component's root sum of squares is below ``component >= x``, cannot hold one),
so rare rounds are found at nearly the simulator's speed.

What a replay gives is the round's outcome (its total, components and counters, and the random stream state it
started from); the compiled rounds do not record their screens.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import SimulationError
from ..model import Game
from .chunks import ChunkResult, check_chunk, chunk_accumulators, chunk_rounds, play_chunk
from .lanes import SIMULATE_BLOCK, check_seed, stream_index
from .results import unit_label
from .rng import STREAM_ROUNDS, chunk_state

#: rounds per piece of :func:`find_rounds` (a piece that may hold a match is replayed round by round)
PIECE = 1 << 12
#: most rounds :func:`find_rounds` lists unless told otherwise
DEFAULT_LIMIT = 50


def _entry_point(dispatcher, args):
    """The compiled function ``dispatcher`` runs for ``args``, called without the dispatcher: a round's parameters are
    records of many arrays, and typing them on every call costs several times the round itself.  A plain Python
    function (no numba) is its own entry point."""
    try:
        types = tuple(dispatcher.typeof_pyval(a) for a in args)
        return dispatcher.overloads[types].entry_point
    except (AttributeError, KeyError):
        return dispatcher


class RoundPlayer:
    """Plays rounds of ``model`` one at a time from the random stream ``rng`` (a state array, advanced in place), each
    in state ``stratum`` (-1: natural play), with the compiled loop the simulator uses."""

    def __init__(self, model, rng: np.ndarray, stratum: int = -1):
        self.model = model
        self.rng = rng
        self.out = ChunkResult.empty(len(model.components), len(model.counters))
        self.acc, self.stratum = chunk_accumulators(model, self.out, stratum)
        self.entry = None
        self.won = 0  # the last round's total in pay units (every component but the informational ones)

    def play(self) -> tuple[np.ndarray, np.ndarray]:
        """(pay units by component, counters) of the next round (after the bet mode's max-win cap)."""
        out = self.out
        out.comp_sum[:] = 0
        out.counters[:] = 0
        before = out.won  # (totals and the largest win accumulate over the rounds, for check())
        args = (self.model.params, self.rng, 1, self.stratum, self.acc, out.counters)
        if self.entry is None:
            self.model.run_chunk(*args)  # compiles (or loads) the round's code for these argument types
            self.entry = _entry_point(self.model.run_chunk, args)
        else:
            self.entry(*args)
        self.won = out.won - before
        return out.comp_sum.copy(), out.counters.copy()

    def check(self) -> None:
        """The simulator's run-time checks (:func:`~workbench.simulate.chunks.check_chunk`) over the rounds played."""
        check_chunk(self.model, self.out)


@dataclass(frozen=True)
class ReplayedRound:
    """One round of a seeded run, as the run played it.

    ``win_units``, ``components`` in pay units (``cost_units``, a Fraction, is one round's price); ``win`` is
    x the round's price (``unit``), exact; ``counters``: the events the round counted (feature starts, spins,
    retriggers, caps ...); ``rng_state``: numpy's SFC64 state (``[a, b, c, counter, buffered bits, has buffer]``) the
    round started from."""

    game: str
    bet_mode: str
    stake: float
    seed: int
    round: int
    win_units: int
    cost_units: Fraction
    components: dict
    counters: dict
    rng_state: tuple
    unit: str

    @property
    def win(self) -> Fraction:
        """The round's win, x the round's price (exact)."""
        return Fraction(self.win_units) / self.cost_units

    @property
    def block(self) -> int:
        return self.round // SIMULATE_BLOCK

    def happened(self) -> str:
        """What the round did, in words: what each component paid, then the counters it moved."""
        pays = ", ".join(f"{name} {_x(units, self.cost_units)}" for name, units in self.components.items() if units)
        counts = ", ".join(f"{name} {count:,}" for name, count in self.counters.items() if count)
        text = f"paid {pays}" if pays else "no win"
        return f"{text}; counted {counts}" if counts else text

    def to_json(self) -> dict:
        return {
            "game": self.game, "bet_mode": self.bet_mode, "stake": self.stake, "seed": self.seed, "round": self.round,
            "win": float(self.win), "win_units": self.win_units, "cost_units": float(self.cost_units), "unit": self.unit,
            "components": {k: {"units": v, "win": float(v / self.cost_units)} for k, v in self.components.items() if v},
            "counters": {k: v for k, v in self.counters.items() if v},
            "rng_state": [str(v) for v in self.rng_state],
        }


def _x(units: int, cost_units: Fraction) -> str:
    return f"{float(units / cost_units):,.4f}".rstrip("0").rstrip(".") + "x"


def _model(game: Game, stake):
    from .engine import round_model

    return round_model(game, stake)


def _cost_units(model) -> Fraction:
    """A round's price in pay units, exact (a bet mode's cost may make it a fraction of a unit)."""
    return Fraction(model.params.cost_units) * Fraction(model.game.bet_mode.cost)


def _check_round(index, what: str = "round") -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or index < 0:
        raise SimulationError(f"{what} must be a whole number from 0, got {index!r}")
    return int(index)


def _block_stream(seed: int, block: int) -> np.ndarray:
    return chunk_state(seed, stream_index(-1, block), STREAM_ROUNDS)


def replay_round(game: Game, seed: int, round: int, *, stake: float | None = None, model=None) -> ReplayedRound:
    """Round ``round`` (from 0) of ``simulate(game, spins, seed, stake=stake)``, played again: its total, components
    and counters equal what that run counted for it, whatever its workers or chunk size."""
    seed = check_seed(seed)
    index = _check_round(round)
    model = _model(game, stake) if model is None else model
    block, offset = divmod(index, SIMULATE_BLOCK)
    rng = _block_stream(seed, block)
    if offset:
        play_chunk(model, rng, offset)  # the block's rounds before it, as the run played them
    start = rng.copy()
    player = RoundPlayer(model, rng)
    amounts, counters = player.play()
    player.check()
    return _replayed(model, seed, index, player, amounts, counters, start)


# ---------------------------------------------------------------------------
# conditions of find_rounds
# ---------------------------------------------------------------------------
_OPS = {">=": operator.ge, ">": operator.gt, "<=": operator.le, "<": operator.lt, "==": operator.eq}
_CONDITION = re.compile(r"^\s*([A-Za-z_][\w:.\-]*)\s*(>=|<=|==|>|<)\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*$")


@dataclass(frozen=True)
class Condition:
    """``what op value``: ``what`` is ``win`` (x the round's price), a component (x the round's price) or a counter
    (a count)."""

    what: str
    op: str
    value: Fraction
    kind: str  # "win", "component" or "counter"
    slot: int = -1

    def __str__(self) -> str:
        return f"{self.what} {self.op} {float(self.value):g}"

    def units(self, cost_units: Fraction) -> Fraction:
        return self.value * cost_units if self.kind != "counter" else self.value

    def holds(self, win_units: int, amounts: np.ndarray, counters: np.ndarray, cost_units: Fraction) -> bool:
        value = win_units if self.kind == "win" else amounts[self.slot] if self.kind == "component" else counters[self.slot]
        return _OPS[self.op](Fraction(int(value)), self.units(cost_units))

    def possible(self, piece: ChunkResult, cost_units: Fraction) -> bool:
        """False only when no round of ``piece`` can meet the condition (from the piece's sums)."""
        if self.op not in (">=", ">", "=="):
            return True
        target = self.units(cost_units)
        if self.kind == "win":
            top = Fraction(piece.max_win_units)
        elif self.kind == "counter":
            top = Fraction(int(piece.counters[self.slot]))  # counts are never negative: a round's count <= their sum
        else:  # any round's |amount| is at most the root of the piece's sum of squared amounts
            top = Fraction(math.ceil(math.sqrt(float(piece.comp_sq_raw[self.slot])) * (1 + 1e-9)) + 1)
        return top > target if self.op == ">" else top >= target


def parse_conditions(text: str, model) -> list[Condition]:
    """Conditions joined by ``and`` (e.g. ``win >= 1000``, ``free_spins:retriggers >= 3 and win > 50``), checked
    against the model's components and counters; ``max`` is handled by :func:`find_rounds` itself."""
    out = []
    for part in re.split(r"\s+and\s+", text.strip()):
        m = _CONDITION.match(part)
        if not m:
            raise SimulationError(f"--where {text!r}: {part.strip()!r} is not a condition such as 'win >= 1000' or "
                                  f"'free_spins:retriggers >= 3' (name, one of >= > <= < ==, a number)")
        what, op, number = m.group(1), m.group(2), Fraction(m.group(3).replace("_", "").replace(",", ""))
        if what == "win":
            out.append(Condition(what, op, number, "win"))
        elif what in model.components:
            out.append(Condition(what, op, number, "component", model.components.index(what)))
        elif what in model.counters:
            out.append(Condition(what, op, number, "counter", model.counters.index(what)))
        else:
            raise SimulationError(
                f"--where {text!r}: {what!r} is not 'win', a component ({', '.join(model.components)}) or a counter "
                f"({', '.join(model.counters) or 'none'}) of {model.game.name}")
    return out


@dataclass(frozen=True)
class FoundRounds:
    """Rounds of ``simulate(game, spins, seed)`` that met ``where``: ``rounds`` (:class:`ReplayedRound`, in round
    order, at most ``limit``); ``complete``: every round of the run was searched (False: the limit was reached
    first); ``searched``: rounds searched."""

    where: str
    seed: int
    spins: int
    rounds: tuple
    searched: int
    complete: bool
    limit: int


def find_rounds(game: Game, seed: int, spins: int, where: str, *, stake: float | None = None,
                limit: int = DEFAULT_LIMIT) -> FoundRounds:
    """The rounds of ``simulate(game, spins, seed, stake=stake)`` that meet ``where`` (see :func:`parse_conditions`),
    the first ``limit`` of them in round order; ``where = "max"``: the first round that paid the run's largest win."""
    seed = check_seed(seed)
    if isinstance(spins, bool) or not isinstance(spins, (int, np.integer)) or spins < 1:
        raise SimulationError(f"spins must be a whole number from 1, got {spins!r}")
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise SimulationError(f"limit must be a whole number from 1, got {limit!r}")
    spins = int(spins)
    model = _model(game, stake)
    if where.strip() == "max":
        block, top = max_win_block(model, seed, spins)
        found = () if top <= 0 else (locate_win(model, seed, block, top, spins),)
        return FoundRounds("max", seed, spins, found, spins, True, 1)
    search = _Search(model, seed, parse_conditions(where, model), int(limit))
    for block in range(-(-spins // SIMULATE_BLOCK)):
        first = block * SIMULATE_BLOCK
        if search.block(block, min(SIMULATE_BLOCK, spins - first)):
            return FoundRounds(where, seed, spins, tuple(search.found), search.stopped_at, False, int(limit))
    return FoundRounds(where, seed, spins, tuple(search.found), spins, True, int(limit))


class _Search:
    """The rounds of a run's blocks that meet ``conditions``, narrowed down: a piece of rounds is played whole (one
    compiled call) and only a piece whose sums allow a match is played again in :data:`SPLIT` parts, down to single
    rounds, each part from the stream state where it starts."""

    SPLIT = 16

    def __init__(self, model, seed: int, conditions: list, limit: int):
        self.model, self.seed, self.conditions, self.limit = model, seed, conditions, limit
        self.cost = _cost_units(model)
        self.found: list = []
        self.stopped_at = 0
        self.piece = ChunkResult.empty(len(model.components), len(model.counters))
        self.acc, _ = chunk_accumulators(model, self.piece, -1)
        self.top = min(PIECE, chunk_rounds(model) or PIECE)  # a piece's sums fit 64 bits
        self.player = None
        self.entry = None

    def _possible(self, n: int) -> bool:
        """Play the next ``n`` rounds as one piece: could one of them meet every condition?"""
        piece = self.piece
        for name in ChunkResult.FIELDS:
            getattr(piece, name)[...] = 0
        args = (self.model.params, self.player.rng, n, -1, self.acc, piece.counters)
        if self.entry is None:
            self.model.run_chunk(*args)
            self.entry = _entry_point(self.model.run_chunk, args)
        else:
            self.entry(*args)
        check_chunk(self.model, piece)
        return all(c.possible(piece, self.cost) for c in self.conditions)

    def block(self, block: int, size: int) -> bool:
        """Search block ``block`` (``size`` rounds); True when the limit was reached."""
        self.player = RoundPlayer(self.model, _block_stream(self.seed, block))
        return self._narrow(block * SIMULATE_BLOCK, size, self.top)

    def _narrow(self, first: int, count: int, part: int) -> bool:
        rng = self.player.rng
        if count <= self.SPLIT:
            for k in range(count):
                state = rng.copy()
                amounts, counters = self.player.play()
                if all(c.holds(self.player.won, amounts, counters, self.cost) for c in self.conditions):
                    self.found.append(_replayed(self.model, self.seed, first + k, self.player, amounts, counters, state))
                    if len(self.found) >= self.limit:
                        self.stopped_at = first + k + 1
                        return True
            return False
        for offset in range(0, count, part):
            n = min(part, count - offset)
            start = rng.copy()
            if self._possible(n):
                rng[:] = start  # play these rounds again, in smaller parts
                if self._narrow(first + offset, n, max(-(-n // self.SPLIT), 1)):
                    return True
        return False


def _replayed(model, seed, index, player, amounts, counters, state) -> ReplayedRound:
    return ReplayedRound(
        game=model.game.name, bet_mode=model.game.bet_mode.name, stake=model.stake, seed=seed, round=index,
        win_units=player.won, cost_units=_cost_units(model),
        components={name: int(a) for name, a in zip(model.components, amounts)},
        counters={name: int(c) for name, c in zip(model.counters, counters)},
        rng_state=tuple(int(v) for v in state), unit=unit_label(model))


def max_win_block(model, seed: int, spins: int) -> tuple[int, int]:
    """(first block holding the run's largest win, that win in pay units)."""
    best, where = 0, 0
    for block in range(-(-spins // SIMULATE_BLOCK)):
        size = min(SIMULATE_BLOCK, spins - block * SIMULATE_BLOCK)
        top = play_chunk(model, _block_stream(seed, block), size).max_win_units
        if top > best:
            best, where = top, block
    return where, best


def locate_max_win(result) -> ReplayedRound:
    """The first round of ``result`` (of :func:`~workbench.simulate.simulate`) that paid its largest win, found in the
    block the run recorded (or, without one, the block found by playing the run's blocks again)."""
    block = result.max_win_block
    if block is None:
        block, _ = max_win_block(result.model, result.seed, result.requested)
    return locate_win(result.model, result.seed, block, result.max_win_units, result.requested)


def locate_win(model, seed: int, block: int, units: int, spins: int | None = None) -> ReplayedRound:
    """The first round of block ``block`` of a run seeded with ``seed`` that paid ``units`` pay units (the block's
    largest win: a run records in which block its largest win fell, :attr:`SimulationResult.max_win_round` finds the
    round)."""
    size = SIMULATE_BLOCK if spins is None else min(SIMULATE_BLOCK, spins - block * SIMULATE_BLOCK)
    exact = Condition("win", "==", Fraction(units) / _cost_units(model), "win")
    search = _Search(model, seed, [exact], 1)
    if search.block(block, size):
        return search.found[0]
    raise SimulationError(f"{model.game.name}: no round of block {block:,} of seed {seed} paid {units:,} pay units "
                          f"(the game file or the workbench changed since the run)")
