"""Exact line pays: a small automaton per paytable, run over reel symbol weights.

Rules (rule ``lines``; ``workbench/reference.py`` and the tests implement the
same, independently):

- left_to_right: a payline reads one symbol per reel, left to right.  For
  every paying *target* ``t`` -- a symbol (wilds included) or a group of
  ``game.groups`` with a paytable entry -- its *run* ``r`` is the number of
  leading reels whose symbol matches ``t``: ``t`` itself or a wild
  substituting for ``t``; for a group, a member or a wild whose
  ``substitutes`` contains at least one member.  A wild's own run counts only
  that wild (the same wild symbol; and a wild listing it in its ``substitutes``,
  which only the multiplier variants of a table wild do, see
  :mod:`workbench.exact.variants`: a file cannot say it).  The line's candidate win for ``t`` is the
  combination (``t``, ``k`` = largest listed count <= ``r`` with a pay > 0); its
  pay is ``pay(t, k) x M``, where ``M`` combines the multipliers of the wilds
  among the first ``k`` symbols of the line (``game.pays.combine``: product:
  the product of their multipliers; sum: the sum of the multipliers of the
  multiplier wilds, ``Symbol.multiplier > 1``, taking part, 1 if none); for
  ``t`` a wild itself ``M = 1`` unless ``game.pays.multiply_wild_only``.  The
  line pays the candidate with the highest multiplied pay ("highest win per
  line"); ties: more symbols, then pure symbols before groups, then file order
  (symbols in ``[symbols]`` order, then groups in ``[groups]`` order).  With
  ``[pays] line_win = "before_multipliers"`` the candidate with the highest
  paytable pay ``pay(t, k)`` is chosen (the same ties) and paid x its ``M``.
- right_to_left: the same, reading the line from the last reel to the first.
- both_ways: the best left_to_right win plus the best right_to_left win; when
  both are the same full-length combination (count == reels) it is paid once.

The automaton reads symbols one reel at a time, left to right, whatever the
direction.  Left to right, its state remembers the reel depth, the targets
whose run is still unbroken, the multiplier of the symbols read so far (only
when it can still matter) and the best combination so far; states whose
future cannot change the result collapse into one terminal state per best
combination.  Right to left and both ways, the automaton is built from the
pay of every sequence of *symbol classes* (symbols the left-to-right
automaton cannot tell apart), computed by running the left-to-right
automaton on the reversed sequence (and on the sequence itself), then
minimised bottom-up: a node whose whole subtree pays one combination becomes
a terminal state entered with its whole pay.

The contract every engine relies on (exact counts, moments, full-cycle walk,
simulator): after ``n_reels`` steps every path is in a non-live state;
non-live states loop to themselves with gain 0; the gains along a path add up
to the line's pay, which is also ``pay_units`` of the state the path ends in,
and ``combo`` of that state is its combination.  Because a line reads exactly
one row per reel and reels stop independently, the distribution over automaton
states after the last reel is an exact product computation: the integer hit
count of every combination over the full cycle.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..errors import ExactBudgetError, SimulationError
from ..model import Game
from .scale import PayScale, pay_scale


@dataclass(frozen=True)
class Combination:
    """A paying line combination: ``count`` x ``symbol`` (count as listed in the paytable).

    ``symbol`` is the target (a symbol or a group), ``pay`` its paytable pay
    (unmultiplied, in the line pay unit: x line bet by default), ``multiplier``
    the multiplier of the wilds taking part, ``side`` ``""`` (read left to
    right), ``"right"`` (read right to left) or ``"both"``: a both-ways
    compound of a left and a right win, given in ``parts``; its ``symbol`` is
    ``"A+K"``, its ``count`` the left part's, its ``pay`` the two parts'
    multiplied pays together (``multiplier`` 1).  :attr:`paid` is what the
    line pays in every case.
    """

    symbol: str
    count: int
    pay: Fraction  # in the line pay unit (x line bet by default)
    multiplier: int = 1
    side: str = ""
    parts: tuple = ()

    @property
    def label(self) -> str:
        if self.parts:
            return " + ".join(p.label for p in self.parts)
        text = f"{self.count} x {self.symbol}"
        if self.multiplier > 1:
            text += f" x{self.multiplier}"
        if self.side == "right":
            text += " (right)"
        return text

    @property
    def paid(self) -> Fraction:
        """What the line pays (line pay unit): ``pay x multiplier``."""
        return self.pay * self.multiplier


@dataclass(frozen=True)
class LineAutomaton:
    """Transition tables of the line automaton.

    ``trans[state, symbol]`` is the next state, ``gain[state, symbol]`` the pay
    (in pay units) added by that step; ``live[state]`` is False for terminal
    states (they loop to themselves with gain 0); ``combo[state]`` indexes
    ``combinations`` (-1: no win yet) and ``pay_units[state]`` is the
    (multiplied) pay of that best combination.  After ``n_reels`` steps every
    path is in a terminal state, whose ``pay_units`` is the sum of the gains
    along the path.
    """

    trans: np.ndarray
    gain: np.ndarray
    live: np.ndarray
    combo: np.ndarray
    pay_units: np.ndarray
    combinations: tuple
    n_reels: int

    def __post_init__(self) -> None:
        # C order always: numba compiles the exact engine's and the round's loops once per array layout, and a
        # table gathered by column (``trans_c[:, cls_of]``) can come out Fortran-ordered
        for name in ("trans", "gain"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name)))

    @property
    def n_states(self) -> int:
        return len(self.live)


# Largest line automaton built: its tables are states x symbols, and the exact
# engine's per-line step and pair products grow with states^2.  Many paying
# symbols with wilds substituting different sets make the states explode.
MAX_AUTOMATON_STATES = 4096
MAX_AUTOMATON_CELLS = 1 << 19  # states x symbols (each cell is built in Python)
# Right to left and both ways: the pay of every sequence of symbol classes is computed (classes ** reels).
MAX_LINE_SEQUENCES = 1 << 22


def _listed_count(pays: dict, run: int) -> int:
    listed = [k for k, p in pays.items() if k <= run and p > 0]
    return max(listed) if listed else 0


def _targets(game: Game) -> list[str]:
    """Paying targets in file order: symbols, then groups."""
    paying = lambda t: any(p > 0 for p in game.paytable.get(t, {}).values())  # noqa: E731
    return [s for s in game.symbols if paying(s)] + [g for g in game.groups if g not in game.symbols and paying(g)]


def build_automaton(game: Game, scale: PayScale | None = None) -> LineAutomaton:
    """The line automaton of ``game`` (see the module docstring).

    Raises :class:`~workbench.errors.ExactBudgetError` when the left-to-right
    automaton would have more than :data:`MAX_AUTOMATON_STATES` states or
    states x symbols cells, or (right to left, both ways) the symbol classes
    make more than :data:`MAX_LINE_SEQUENCES` sequences.
    """
    scale = scale or pay_scale(game)
    direction = game.pays.direction
    if direction == "left_to_right":
        return _forward_automaton(game, scale)
    if direction not in ("right_to_left", "both_ways"):
        raise ValueError(f"unknown line direction {direction!r}")
    return _sequence_automaton(game, scale, direction)


class _ForwardRule:
    """How the left_to_right rule reads a line, symbol by symbol: which targets a symbol continues, the multiplier
    read so far, the candidate combination a run forms and how candidates rank (pay, then count, then symbol order).
    Pays are Fractions of the line bet; a candidate is (target, count, multiplier)."""

    def __init__(self, game: Game):
        self.game = game
        self.names = list(game.symbols)
        self.n = game.reels
        self.targets = _targets(game)
        self.pays = {t: dict(game.paytable[t]) for t in self.targets}
        self.order = {s: i for i, s in enumerate(self.names + [g for g in game.groups if g not in game.symbols])}
        self.groups = {g: frozenset(m) for g, m in game.groups.items() if g not in game.symbols}
        self.combine_sum = game.pays.combine == "sum"
        self.wild_only = game.pays.multiply_wild_only
        self.before = game.pays.line_win == "before_multipliers"
        self.mult = {s: (sym.multiplier if sym.kind == "wild" else 1) for s, sym in game.symbols.items()}
        self.has_mult = any(m > 1 for m in self.mult.values())
        self.wild_target = {t: t in game.symbols and game.symbols[t].kind == "wild" for t in self.targets}

    def matches(self, symbol: str, target: str) -> bool:
        groups = self.groups
        if symbol == target or (target in groups and symbol in groups[target]):
            return True
        sym = self.game.symbols[symbol]
        if sym.kind != "wild":
            return False
        if self.wild_target[target]:  # only the variants of a table wild list a wild (exact.variants): they count as it
            return target in sym.substitutes
        if target in groups:
            return not groups[target].isdisjoint(sym.substitutes)
        return target in sym.substitutes

    def step_mult(self, m: int, symbol: str) -> int:
        """Multiplier of the symbols read so far after ``symbol`` (sum: 1 stands for "no multiplier wild yet")."""
        w = self.mult[symbol]
        if self.combine_sum:
            return (0 if m == 1 else m) + w if w > 1 else m
        return m * w

    def uses_mult(self, alive) -> bool:
        return self.has_mult and any(self.wild_only or not self.wild_target[t] for t in alive)

    def combo_of(self, target: str, run: int, m: int):
        """The candidate of ``target`` formed when its run reaches ``run`` (None unless ``run`` is a listed count)."""
        k = _listed_count(self.pays[target], run)
        if k == 0 or k != run:
            return None
        # the multiplier is the win's: its wilds' (a wild's own run: none), with a free-spins multiplier that adds
        # to them folded in (PayRule.with_feature: x1 .. the same m without one)
        return (target, k, self.game.pays.with_feature(1 if self.wild_target[target] and not self.wild_only else m))

    def paid(self, c) -> Fraction:
        return self.pays[c[0]][c[1]] * c[2] if c else Fraction(0)

    def key(self, c):
        if c is None:
            return (Fraction(-1), 0, 0)
        t, k, _ = c
        # before_multipliers: the highest paytable pay is chosen (then multiplied); ties as the multiplied rule
        return (self.pays[t][k] if self.before else self.paid(c), k, -self.order[t])

    def can_improve(self, depth: int, alive: frozenset) -> bool:
        return any(any(depth < k <= self.n and p > 0 for k, p in self.pays[t].items()) for t in alive)

    def next_state(self, st: tuple, s: str) -> tuple:
        """The state after a live state ``st`` = ("live", depth, alive targets, multiplier, best candidate) reads
        symbol ``s``."""
        _, depth, alive, m, best = st
        alive2 = frozenset(t for t in alive if self.matches(s, t))
        m2 = self.step_mult(m, s) if self.uses_mult(alive2) else 1
        best2 = best
        for t in alive2:
            c = self.combo_of(t, depth + 1, m2)
            if c is not None and self.key(c) > self.key(best2):
                best2 = c
        if alive2 and depth + 1 < self.n and self.can_improve(depth + 1, alive2):
            return ("live", depth + 1, alive2, m2, best2)
        return ("done", best2)


def _forward_automaton(game: Game, scale: PayScale) -> LineAutomaton:
    """The automaton of the left_to_right rule (groups and multiplier wilds included)."""
    rule = _ForwardRule(game)
    names, targets, n = rule.names, rule.targets, rule.n
    unit = game.bet.line_pay_unit
    states: dict[tuple, int] = {}
    info: list[tuple] = []

    def state_id(st: tuple) -> int:
        if st not in states:
            states[st] = len(info)
            info.append(st)
        return states[st]

    start = ("live", 0, frozenset(targets), 1, None) if targets and rule.can_improve(0, frozenset(targets)) else ("done", None)
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
            best = st[4]
            for s in names:
                nxt = rule.next_state(st, s)
                row_t.append(state_id(nxt))
                gain = rule.paid(nxt[1] if nxt[0] == "done" else nxt[4]) - rule.paid(best)
                row_g.append(scale.units(game.bet.credits(Fraction(gain), unit)))
        trans_rows.append(row_t)
        gain_rows.append(row_g)
        i += 1
    return _forward_tables(game, scale, rule, info, trans_rows, gain_rows)


def _forward_tables(game: Game, scale: PayScale, rule: _ForwardRule, info: list, trans_rows: list,
                    gain_rows: list) -> LineAutomaton:
    """The :class:`LineAutomaton` of the states ``info`` (their transitions and gains in pay units), with the
    combinations ordered as a PAR sheet lists them."""
    unit = game.bet.line_pay_unit
    combos: dict[tuple, int] = {}
    combo_list: list[Combination] = []
    combo_index = np.full(len(info), -1, dtype=np.int32)
    pay_units = np.zeros(len(info), dtype=np.int64)
    for sid, st in enumerate(info):
        best = st[1] if st[0] == "done" else st[4]
        if best is not None:
            if best not in combos:
                combos[best] = len(combo_list)
                combo_list.append(Combination(best[0], best[1], rule.pays[best[0]][best[1]], best[2]))
            combo_index[sid] = combos[best]
            pay_units[sid] = scale.units(game.bet.credits(rule.paid(best), unit))
    # order combinations as a PAR sheet lists them: by symbol order, then count, then multiplier
    order = rule.order
    sort = sorted(range(len(combo_list)),
                  key=lambda c: (order[combo_list[c].symbol], combo_list[c].count, combo_list[c].multiplier))
    remap = np.empty(len(combo_list), dtype=np.int32)
    remap[sort] = np.arange(len(sort), dtype=np.int32)
    if combo_list:
        combo_index = np.where(combo_index >= 0, remap[np.maximum(combo_index, 0)], -1).astype(np.int32)
    names = rule.names
    return LineAutomaton(
        trans=np.asarray(trans_rows, dtype=np.int32).reshape(len(info), len(names)),
        gain=np.asarray(gain_rows, dtype=np.int64).reshape(len(info), len(names)),
        live=np.array([st[0] == "live" for st in info], dtype=bool),
        combo=combo_index,
        pay_units=pay_units,
        combinations=tuple(combo_list[c] for c in sort),
        n_reels=rule.n,
    )

def _sequence_automaton(game: Game, scale: PayScale, direction: str, forward: LineAutomaton | None = None) -> LineAutomaton:
    """The automaton of ``direction`` built from the pay of every sequence of symbol classes.

    ``direction``: ``right_to_left``, ``both_ways`` or ``left_to_right`` (the
    last only to check this construction against :func:`_forward_automaton`).
    """
    forward = forward if forward is not None else _forward_automaton(game, scale)
    n = game.reels
    S = forward.trans.shape[1]
    # symbol classes: symbols with the same column of the left-to-right automaton behave alike for every target
    signature = np.concatenate([forward.trans.T.astype(np.int64), forward.gain.T], axis=1)
    _, first, cls_of = np.unique(signature, axis=0, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")  # classes numbered by their first symbol
    rank = np.empty(len(first), dtype=np.int64)
    rank[by_first] = np.arange(len(first))
    cls_of = rank[np.asarray(cls_of).reshape(-1)]
    reps = first[by_first]
    C = len(reps)
    if C**n > MAX_LINE_SEQUENCES:
        raise ExactBudgetError(
            f"{game.name}: the {direction.replace('_', ' ')} line pays are built from every sequence of symbol classes: "
            f"{C} classes (symbols that pay alike) ^ {n} reels = {C**n:,} sequences, over the limit of "
            f"{MAX_LINE_SEQUENCES:,}"
        )
    trans_c = forward.trans[:, reps].astype(np.int64)

    def run():
        """Final state of the left-to-right automaton on every sequence (flat index: first symbol most significant)."""
        state = np.zeros(1, dtype=np.int64)
        for _ in range(n):
            state = trans_c[state].reshape(-1)
        return state

    state = run()
    combo_f = forward.combo[state].astype(np.int64)  # on x1..xn
    # the same sequences read backwards: the result of reading y1..yn is the result of x = reversed(y)
    combo_r = combo_f.reshape((C,) * n).transpose(tuple(range(n - 1, -1, -1))).reshape(-1)
    fc = forward.combinations
    nf = len(fc)
    f_units = np.array([0] + [scale.units(game.bet.credits(c.paid, game.bet.line_pay_unit)) for c in fc], dtype=np.int64)
    f_count = np.array([0] + [c.count for c in fc], dtype=np.int64)
    if direction == "left_to_right":
        code = combo_f + 1
    elif direction == "right_to_left":
        code = (combo_r + 1) * (nf + 1)
    else:
        same_full = (combo_f == combo_r) & (f_count[combo_f + 1] == n)
        code = np.where(same_full, 0, combo_r + 1) * (nf + 1) + combo_f + 1
    del combo_f, combo_r, state
    # outcomes: code = (right combination + 1) * (nf + 1) + left combination + 1
    values, leaf = np.unique(code, return_inverse=True)
    leaf = np.asarray(leaf).reshape(-1)
    del code
    order = {s: i for i, s in enumerate(list(game.symbols) + [g for g in game.groups if g not in game.symbols])}
    side_rank = {"": 0, "right": 1, "both": 2}

    def outcome(v: int):
        left, right = int(v) % (nf + 1) - 1, int(v) // (nf + 1) - 1
        units = int(f_units[left + 1] + f_units[right + 1])
        a = fc[left] if left >= 0 else None
        b = replace(fc[right], side="right") if right >= 0 else None
        if a is not None and b is not None:
            c = Combination(f"{a.symbol}+{b.symbol}", a.count, a.paid + b.paid, 1, "both", (a, b))
        else:
            c = a or b
        return c, units

    def sort_key(c: Combination):
        if c.parts:
            a, b = c.parts
            return (order[a.symbol], a.count, a.multiplier, side_rank["both"], order[b.symbol], b.count, b.multiplier)
        return (order[c.symbol], c.count, c.multiplier, side_rank[c.side])

    made = [outcome(v) for v in values]
    # terminal outcomes: "no win" first, then the combinations in PAR order
    ranked = sorted(range(len(made)), key=lambda o: (made[o][0] is not None, sort_key(made[o][0]) if made[o][0] else ()))
    to_rank = np.empty(len(made), dtype=np.int64)
    to_rank[ranked] = np.arange(len(made))
    leaf = to_rank[leaf]
    combinations = tuple(made[o][0] for o in ranked if made[o][0] is not None)
    n_out = len(made)
    out_combo = np.array([-1 if made[o][0] is None else 0 for o in ranked], dtype=np.int32)
    out_combo[out_combo >= 0] = np.arange(int((out_combo >= 0).sum()), dtype=np.int32)
    out_units = np.array([made[o][1] for o in ranked], dtype=np.int64)
    return _minimise(leaf, C, n, n_out, out_combo, out_units, cls_of, combinations, S)


def _minimise(leaf: np.ndarray, C: int, n: int, n_out: int, out_combo: np.ndarray, out_units: np.ndarray,
              cls_of: np.ndarray, combinations: tuple, n_symbols: int) -> LineAutomaton:
    """The smallest left-to-right automaton paying outcome ``leaf[x]`` on every class sequence ``x``.

    Nodes are merged bottom-up (equal rows of child ids at a depth are one
    node); a node all of whose children are the same terminal is that terminal.
    Node ids: outcomes ``0..n_out-1`` (terminals), then live nodes.
    """
    codes = leaf
    levels = []  # (depth, first id, child rows) of the live nodes
    next_id = n_out
    for depth in range(n - 1, -1, -1):
        rows = codes.reshape(-1, C)
        head = rows[:, 0]
        const = (head < n_out) & (rows == head[:, None]).all(axis=1)
        codes = head.copy()
        mixed = ~const
        if mixed.any():
            unique, inverse = np.unique(rows[mixed], axis=0, return_inverse=True)
            codes[mixed] = next_id + np.asarray(inverse).reshape(-1)
            levels.append((depth, next_id, unique))
            next_id += len(unique)
    root = int(codes[0])
    if root < n_out:
        if out_combo[root] < 0:  # nothing ever pays
            return LineAutomaton(np.zeros((1, n_symbols), dtype=np.int32), np.zeros((1, n_symbols), dtype=np.int64),
                                 np.zeros(1, dtype=bool), np.full(1, -1, dtype=np.int32), np.zeros(1, dtype=np.int64),
                                 (), n)
        levels.append((0, next_id, np.full((1, C), root, dtype=np.int64)))  # every line pays the same: one step to it
        next_id += 1
    levels.sort(key=lambda lv: lv[0])  # root first, then by depth
    n_live = sum(len(lv[2]) for lv in levels)
    new = np.empty(next_id, dtype=np.int64)
    new[:n_out] = n_live + np.arange(n_out)
    pos = 0
    for _, first, rows in levels:
        new[first:first + len(rows)] = pos + np.arange(len(rows))
        pos += len(rows)
    K = n_live + n_out
    trans_c = np.empty((K, C), dtype=np.int64)
    gain_c = np.zeros((K, C), dtype=np.int64)
    pos = 0
    for _, _, rows in levels:
        trans_c[pos:pos + len(rows)] = new[rows]
        gain_c[pos:pos + len(rows)] = np.where(rows < n_out, out_units[np.minimum(rows, n_out - 1)], 0)
        pos += len(rows)
    trans_c[n_live:] = np.arange(n_live, K)[:, None]
    return LineAutomaton(
        trans=trans_c[:, cls_of].astype(np.int32),
        gain=gain_c[:, cls_of],
        live=np.arange(K) < n_live,
        combo=np.concatenate([np.full(n_live, -1, dtype=np.int32), out_combo]).astype(np.int32),
        pay_units=np.concatenate([np.zeros(n_live, dtype=np.int64), out_units]),
        combinations=combinations,
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
    k = automaton.trans.shape[0]
    counts = np.zeros(k, dtype=dtype)
    counts[0] = 1
    for weights in reel_symbol_weights:
        # each state's count moves along its steps, times the symbols' weights (integers: the order of the sums
        # does not matter; every partial sum is at most the cycle)
        nz = np.flatnonzero(counts)
        moved = counts[nz][:, None] * np.asarray(weights, dtype=dtype)[None, :]
        counts = np.zeros(k, dtype=dtype)
        np.add.at(counts, automaton.trans[nz].ravel(), moved.ravel())
    return counts


def combination_counts(automaton: LineAutomaton, state_counts: np.ndarray) -> np.ndarray:
    """Hits of each combination (object array of ints) from final state counts."""
    out = np.zeros(len(automaton.combinations), dtype=object)
    nz = np.flatnonzero(state_counts)
    nz = nz[automaton.combo[nz] >= 0]
    # Python ints: mixing strip sets multiplies these past 64 bits
    np.add.at(out, automaton.combo[nz], np.array([int(x) for x in state_counts[nz]] + [0], dtype=object)[:-1])
    return out


_AUTOMATA: dict = {}


def line_automaton(game: Game) -> LineAutomaton:
    """The line automaton of ``game`` (cached by paytable, symbols, groups, pay rule and reels)."""
    key = (game.reels, tuple((s.name, s.kind, tuple(sorted(s.substitutes)), s.multiplier) for s in game.symbols.values()),
           tuple((k, tuple(v.items())) for k, v in game.paytable.items()), game.bet.line_pay_unit, game.bet.line_bet, game.bet.cost,
           tuple((g.name, tuple(g.pays.items()), g.unit) for g in game.scatters.values()),
           tuple((name, tuple(members)) for name, members in game.groups.items()), game.pays)
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
