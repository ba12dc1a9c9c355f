"""The immutable in-memory game model built from a reelset file.

Units: every pay is stored as given in the file (``x line bet``, ``x total
bet`` or ``x bet multiplier``) and converted with :meth:`BetModel.credits` to
*credits per bet multiplier* ("coins"), the integer money unit of the exact
engine.  RTP is coins won / coins staked (``BetModel.cost``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

SYMBOL_KINDS = ("regular", "wild", "scatter", "bonus", "blank")
PAY_UNITS = ("line_bet", "total_bet", "bet_multiplier")
COUNTING_MODES = ("anywhere", "adjacent_from_first_reel")
VISIBILITY_MODES = ("partial", "full")


def freeze(value: Any) -> Any:
    """Deep-freeze plain data: dicts become read-only mappings, lists tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def pay_for_count(pays: Mapping[int, Fraction], count: int) -> Fraction:
    """Pay of the largest listed count not above ``count`` (0 if none).

    A 4-symbol run with pays {3: 10, 5: 100} pays the 3-symbol prize: the run
    contains a 3-of-a-kind from the leftmost reel.  Scatter counts above the
    table's top entry pay the top entry.
    """
    best = Fraction(0)
    best_k = 0
    for k, pay in pays.items():
        if best_k < k <= count:
            best, best_k = pay, k
    return best


@dataclass(frozen=True)
class Symbol:
    """One symbol of the game.

    ``height`` is in rows: a tall symbol occupies that many consecutive stops of
    a strip.  ``substitutes`` is the set of symbol names a wild stands in for
    (empty for non-wilds).  ``reels`` are the 1-based reels it may appear on
    (None: any reel).  ``max_visible`` limits how many may be visible on one
    reel at a time (None: no limit); the strips must respect it.
    """

    name: str
    index: int
    kind: str = "regular"
    height: int = 1
    substitutes: frozenset = frozenset()
    reels: tuple | None = None
    max_visible: int | None = None

    @property
    def is_wild(self) -> bool:
        return self.kind == "wild"


@dataclass(frozen=True)
class BetModel:
    """How a stake is made and how pays convert to credits.

    ``cost`` is the total bet in credits per bet multiplier (total bet = cost x
    bet multiplier); ``line_bet`` the credits per line per bet multiplier.
    ``stakes`` optionally lists the total bets of the bet ladder in currency.
    """

    lines: int
    cost: Fraction
    line_bet: Fraction
    line_pay_unit: str = "line_bet"
    stakes: tuple = ()
    currency: str = ""

    def credits(self, pay: Fraction, unit: str) -> Fraction:
        """Convert a pay of ``pay`` x ``unit`` into credits per bet multiplier."""
        if unit == "line_bet":
            return pay * self.line_bet
        if unit == "total_bet":
            return pay * self.cost
        if unit == "bet_multiplier":
            return Fraction(pay)
        raise ValueError(f"unknown pay unit {unit!r}")

    def in_total_bets(self, pay: Fraction, unit: str) -> Fraction:
        """Convert a pay of ``pay`` x ``unit`` into multiples of the total bet."""
        return self.credits(pay, unit) / self.cost


@dataclass(frozen=True)
class ScatterGroup:
    """A count of scatter-like symbols anywhere on the screen.

    ``counting``: ``anywhere`` counts every visible instance;
    ``adjacent_from_first_reel`` counts only on reels 1..k that each show at
    least one.  ``visibility``: ``partial`` counts a tall symbol that is only
    partly visible, ``full`` only wholly visible ones.  ``pays`` maps a count to
    its pay in ``unit`` (x total bet by default); counts above the top entry
    pay the top entry.
    """

    name: str
    symbols: tuple
    counting: str = "anywhere"
    visibility: str = "partial"
    pays: Mapping = field(default_factory=lambda: MappingProxyType({}))
    unit: str = "total_bet"

    def pay(self, count: int) -> Fraction:
        return pay_for_count(self.pays, count)


@dataclass(frozen=True)
class Trigger:
    """A feature trigger: at least ``min_count`` of scatter group ``scatter``."""

    name: str
    scatter: str
    min_count: int


@dataclass(frozen=True)
class Strip:
    """One reel strip: a circular sequence of symbol names, optional stop weights."""

    symbols: tuple
    weights: tuple | None = None

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def stop_weights(self) -> np.ndarray:
        """Integer weight of each stop (1 each on an unweighted strip)."""
        if self.weights is None:
            return np.ones(len(self.symbols), dtype=np.int64)
        return np.asarray(self.weights, dtype=np.int64)

    @property
    def total_weight(self) -> int:
        return len(self.symbols) if self.weights is None else int(sum(self.weights))

    def to_text(self) -> str:
        """Strip in file notation: ``A K Q:3`` (``:w`` is a stop weight)."""
        if self.weights is None:
            return " ".join(self.symbols)
        return " ".join(f"{s}:{w}" if w != 1 else s for s, w in zip(self.symbols, self.weights))


@dataclass(frozen=True)
class StripSet:
    """A named set of strips, one per reel, used by a game ``mode``.

    Strip sets of the same mode are chosen with probability proportional to
    ``weight`` at the start of each spin of that mode.
    """

    name: str
    mode: str
    weight: int
    reels: tuple

    @property
    def cycle(self) -> int:
        """Number of equally likely stop combinations (product of total weights)."""
        out = 1
        for strip in self.reels:
            out *= strip.total_weight
        return out


@dataclass(frozen=True)
class WeightedTable:
    """A weighted choice (wheel segments, award tables).

    Each entry is a read-only mapping of outcome fields; ``weights`` are the
    integer weights.
    """

    name: str
    entries: tuple
    weights: tuple

    @property
    def total_weight(self) -> int:
        return int(sum(self.weights))

    @property
    def probabilities(self) -> np.ndarray:
        w = np.asarray(self.weights, dtype=float)
        return w / w.sum()

    def column(self, key: str, default: Any = None) -> list:
        return [entry.get(key, default) for entry in self.entries]


@dataclass(frozen=True)
class Game:
    """A game: grid, symbols, bet model, paylines, pays, strips, tables, features.

    Built by :func:`workbench.reelset.load_game`; never mutated.  Edits return a
    new ``Game`` (``with_strip``, ``with_table_weights``) that remembers the
    edit so saving can rewrite only the changed values of the original text.
    """

    name: str
    format_version: int
    game_module: str
    reels: int
    rows: tuple
    bet: BetModel
    symbols: Mapping  # name -> Symbol, in file order
    paylines: tuple  # of tuples of row indices (0 = top row)
    paytable: Mapping  # symbol name -> {count: pay in bet.line_pay_unit}
    scatters: Mapping  # name -> ScatterGroup
    triggers: Mapping  # name -> Trigger
    strip_sets: Mapping  # name -> StripSet
    tables: Mapping  # name -> WeightedTable
    features: Mapping  # game-module parameters, deep-frozen
    description: str = ""
    path: str | None = field(default=None, compare=False)
    text: str = field(default="", compare=False, repr=False)
    edits: tuple = field(default=(), compare=False, repr=False)

    # -- lookups -----------------------------------------------------------
    @property
    def symbol_names(self) -> tuple:
        return tuple(self.symbols)

    def symbol(self, name: str) -> Symbol:
        return self.symbols[name]

    def line_pay(self, symbol: str, count: int) -> Fraction:
        """Line pay of ``count`` x ``symbol`` from the leftmost reel, in the line pay unit."""
        return pay_for_count(self.paytable.get(symbol, {}), count)

    def strip_sets_for(self, mode: str) -> list:
        return [s for s in self.strip_sets.values() if s.mode == mode]

    @property
    def modes(self) -> tuple:
        return tuple(dict.fromkeys(s.mode for s in self.strip_sets.values()))

    @property
    def max_rows(self) -> int:
        return max(self.rows)

    # -- edits (validated; saved with workbench.reelset.save_game) ---------
    def with_strip(self, strip_set: str, reel: int, symbols, weights=None) -> "Game":
        """A copy with reel ``reel`` (1-based) of ``strip_set`` replaced.

        Raises :class:`~workbench.errors.ReelsetError` if the new strip is invalid.
        """
        from .reelset import apply_edit

        return apply_edit(self, ("strip", strip_set, reel, tuple(symbols), None if weights is None else tuple(weights)))

    def with_table_weights(self, table: str, weights) -> "Game":
        """A copy with the weights of weighted table ``table`` replaced."""
        from .reelset import apply_edit

        return apply_edit(self, ("table_weights", table, tuple(int(w) for w in weights)))

    def with_strip_set_weight(self, strip_set: str, weight: int) -> "Game":
        """A copy with the choice weight of ``strip_set`` replaced."""
        from .reelset import apply_edit

        return apply_edit(self, ("strip_set_weight", strip_set, int(weight)))

    def to_text(self) -> str:
        """The reelset file text of this game (original layout, edits applied)."""
        from .reelset import render_text

        return render_text(self)

    def _replace(self, **changes) -> "Game":
        return replace(self, **changes)
