"""Exact line pays: a small automaton per paytable, run over reel symbol weights.

A payline reads one symbol per reel, left to right.  For every paying symbol
``x`` (wilds included) its *run* is the number of leading reels whose symbol
is ``x`` or a wild substituting for ``x``; the line pays the highest of the
combinations those runs form ("highest win per line").  Ties go to the
combination with more symbols, then to the symbol listed first in the file.

The automaton reads symbols one reel at a time.  Its state remembers the
reel depth, the symbols whose run is still unbroken and the best combination
so far; states whose future cannot change the result collapse into one
terminal state per best combination.  Because a line reads exactly one row
per reel and reels stop independently, the distribution over automaton states
after the last reel is an exact product computation: the integer hit count of
every combination over the full cycle.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..errors import ExactBudgetError, SimulationError
from ..model import Game
from .scale import PayScale, pay_scale


@dataclass(frozen=True)
class Combination:
    """A paying line combination: ``count`` x ``symbol`` (count as listed in the paytable)."""

    symbol: str
    count: int
    pay: Fraction  # in the line pay unit (x line bet by default)

    @property
    def label(self) -> str:
        return f"{self.count} x {self.symbol}"


@dataclass(frozen=True)
class LineAutomaton:
    """Transition tables of the line automaton.

    ``trans[state, symbol]`` is the next state, ``gain[state, symbol]`` the pay
    (in pay units) added by that step; ``live[state]`` is False for terminal
    states; ``combo[state]`` indexes ``combinations`` (-1: no win yet) and
    ``pay_units[state]`` is the pay of that best combination.
    """

    trans: np.ndarray
    gain: np.ndarray
    live: np.ndarray
    combo: np.ndarray
    pay_units: np.ndarray
    combinations: tuple
    n_reels: int

    @property
    def n_states(self) -> int:
        return len(self.live)


# Largest line automaton built: its tables are states x symbols, and the exact
# engine's per-line step and pair products grow with states^2.  Many paying
# symbols with wilds substituting different sets make the states explode.
MAX_AUTOMATON_STATES = 4096
MAX_AUTOMATON_CELLS = 1 << 19  # states x symbols (each cell is built in Python)


def _listed_count(pays: dict, run: int) -> int:
    listed = [k for k, p in pays.items() if k <= run and p > 0]
    return max(listed) if listed else 0


def build_automaton(game: Game, scale: PayScale | None = None) -> LineAutomaton:
    """The line automaton of ``game`` (see the module docstring).

    Raises :class:`~workbench.errors.ExactBudgetError` when it would have more than
    :data:`MAX_AUTOMATON_STATES` states or states x symbols cells.
    """
    scale = scale or pay_scale(game)
    names = list(game.symbols)
    n = game.reels
    unit = game.bet.line_pay_unit
    targets = [s for s in names if any(p > 0 for p in game.paytable.get(s, {}).values())]
    pays = {t: dict(game.paytable[t]) for t in targets}
    order = {s: i for i, s in enumerate(names)}

    def matches(symbol: str, target: str) -> bool:
        if symbol == target:
            return True
        sym = game.symbols[symbol]
        return sym.kind == "wild" and target in sym.substitutes

    combos: dict[tuple, int] = {}
    combo_list: list[Combination] = []

    def combo_of(target: str, run: int):
        k = _listed_count(pays[target], run)
        if k == 0:
            return None
        return (target, k)

    def key(c):
        if c is None:
            return (Fraction(-1), 0, 0)
        t, k = c
        return (pays[t][k], k, -order[t])

    def can_improve(depth: int, alive: frozenset) -> bool:
        return any(any(depth < k <= n and p > 0 for k, p in pays[t].items()) for t in alive)

    states: dict[tuple, int] = {}
    info: list[tuple] = []

    def state_id(st: tuple) -> int:
        if st not in states:
            states[st] = len(info)
            info.append(st)
        return states[st]

    start = ("live", 0, frozenset(targets), None) if targets and can_improve(0, frozenset(targets)) else ("done", None)
    state_id(start)
    trans_rows: list[list[int]] = []
    gain_rows: list[list[int]] = []
    i = 0
    while i < len(info):
        if len(info) > MAX_AUTOMATON_STATES or len(info) * len(names) > MAX_AUTOMATON_CELLS:
            wilds = sum(1 for s in names if game.symbols[s].kind == "wild")
            raise ExactBudgetError(
                f"{game.name}: the line pays need at least {len(info):,} automaton states "
                f"({len(targets)} paying symbols, {wilds} wilds, {n} reels; {len(names)} symbols), over the limit of "
                f"{MAX_AUTOMATON_STATES:,} states and {MAX_AUTOMATON_CELLS:,} states x symbols"
            )
        st = info[i]
        row_t, row_g = [], []
        if st[0] == "done":
            row_t = [i] * len(names)
            row_g = [0] * len(names)
        else:
            _, depth, alive, best = st
            for s in names:
                alive2 = frozenset(t for t in alive if matches(s, t))
                best2 = best
                for t in alive2:
                    c = combo_of(t, depth + 1)
                    if c is not None and key(c) > key(best2):
                        best2 = c
                if alive2 and depth + 1 < n and can_improve(depth + 1, alive2):
                    nxt = ("live", depth + 1, alive2, best2)
                else:
                    nxt = ("done", best2)
                row_t.append(state_id(nxt))
                gain = (pays[best2[0]][best2[1]] if best2 else 0) - (pays[best[0]][best[1]] if best else 0)
                row_g.append(scale.units(game.bet.credits(Fraction(gain), unit)))
        trans_rows.append(row_t)
        gain_rows.append(row_g)
        i += 1

    combo_index = np.full(len(info), -1, dtype=np.int32)
    pay_units = np.zeros(len(info), dtype=np.int64)
    for sid, st in enumerate(info):
        best = st[1] if st[0] == "done" else st[3]
        if best is not None:
            if best not in combos:
                combos[best] = len(combo_list)
                combo_list.append(Combination(best[0], best[1], pays[best[0]][best[1]]))
            combo_index[sid] = combos[best]
            pay_units[sid] = scale.units(game.bet.credits(pays[best[0]][best[1]], unit))
    # order combinations as a PAR sheet lists them: by symbol order, then count
    sort = sorted(range(len(combo_list)), key=lambda c: (order[combo_list[c].symbol], combo_list[c].count))
    remap = np.empty(len(combo_list), dtype=np.int32)
    remap[sort] = np.arange(len(sort), dtype=np.int32)
    if combo_list:
        combo_index = np.where(combo_index >= 0, remap[np.maximum(combo_index, 0)], -1).astype(np.int32)
    return LineAutomaton(
        trans=np.asarray(trans_rows, dtype=np.int32).reshape(len(info), len(names)),
        gain=np.asarray(gain_rows, dtype=np.int64).reshape(len(info), len(names)),
        live=np.array([st[0] == "live" for st in info], dtype=bool),
        combo=combo_index,
        pay_units=pay_units,
        combinations=tuple(combo_list[c] for c in sort),
        n_reels=n,
    )


def line_state_counts(automaton: LineAutomaton, reel_symbol_weights: list[np.ndarray]) -> np.ndarray:
    """Exact weight of ending in each automaton state, for one line.

    ``reel_symbol_weights[i][s]`` is the stop weight showing symbol ``s`` on
    the line's row of reel ``i``.  Returns integer counts whose total is the
    cycle (product of the reels' total weights): int64 when the cycle fits,
    Python ints (object array) otherwise.
    """
    cycle = 1
    for w in reel_symbol_weights:
        cycle *= int(w.sum())
    dtype = np.int64 if cycle < 2**62 else object
    k, s = automaton.trans.shape
    rows = np.repeat(np.arange(k), s)
    cols = automaton.trans.ravel()
    counts = np.zeros(k, dtype=dtype)
    counts[0] = 1
    for weights in reel_symbol_weights:
        step = np.zeros((k, k), dtype=dtype)
        np.add.at(step, (rows, cols), np.tile(np.asarray(weights, dtype=dtype), k))
        counts = counts @ step
    return counts


def combination_counts(automaton: LineAutomaton, state_counts: np.ndarray) -> np.ndarray:
    """Hits of each combination (object array of ints) from final state counts."""
    out = np.zeros(len(automaton.combinations), dtype=object)
    for state in np.flatnonzero(state_counts):
        c = automaton.combo[state]
        if c >= 0:
            out[c] += int(state_counts[state])  # Python ints: mixing strip sets multiplies these past 64 bits
    return out


_AUTOMATA: dict = {}


def line_automaton(game: Game) -> LineAutomaton:
    """The line automaton of ``game`` (cached by paytable, symbols and reels)."""
    key = (game.reels, tuple((s.name, s.kind, tuple(sorted(s.substitutes))) for s in game.symbols.values()),
           tuple((k, tuple(v.items())) for k, v in game.paytable.items()), game.bet.line_pay_unit, game.bet.line_bet, game.bet.cost,
           tuple((g.name, tuple(g.pays.items()), g.unit) for g in game.scatters.values()))
    if key not in _AUTOMATA:
        if len(_AUTOMATA) > 32:
            _AUTOMATA.clear()
        _AUTOMATA[key] = build_automaton(game)
    return _AUTOMATA[key]


# ---------------------------------------------------------------------------
# the simulator's form: packed steps and the inline pay function
# ---------------------------------------------------------------------------
LineArrays = namedtuple("LineArrays", ["rows", "trans", "gain", "live", "pay", "step"])


def line_arrays(game: Game) -> LineArrays:
    automaton = line_automaton(game)
    rows = np.asarray(game.paylines, dtype=np.int64).reshape(len(game.paylines), game.reels)
    return LineArrays(rows, automaton.trans, automaton.gain, automaton.live, automaton.pay_units, packed_steps(automaton))


def packed_steps(automaton) -> np.ndarray:
    """Automaton steps packed in one integer: gain << 32 | next state << 1 | next state is live.

    One memory read per line step instead of three.
    """
    trans = automaton.trans.astype(np.int64)
    gain = automaton.gain.astype(np.int64)
    if gain.max(initial=0) >= 2**31 or trans.max(initial=0) >= 2**30:
        raise SimulationError("line pays too large for the simulator's packed tables")
    return (gain << 32) | (trans << 1) | automaton.live[trans].astype(np.int64)


@njit(cache=True, inline="always")
def line_pay_screen(la, screen):
    """Line pays (units) of an explicit (possibly modified) screen."""
    rows = la.rows
    step = la.step
    total = 0
    n_reels = screen.shape[0]
    if not la.live[0]:
        return 0
    for l in range(rows.shape[0]):
        st = 0
        for i in range(n_reels):
            code = step[st, screen[i, rows[l, i]]]
            total += code >> 32
            if code & 1 == 0:
                break
            st = (code & 0xFFFFFFFF) >> 1
    return total
