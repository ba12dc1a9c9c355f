"""The parts of a game: symbols, the bet model, scatter groups, triggers, weighted tables.

Pure data (frozen dataclasses, read-only mappings): no file format, no
compiled code.  Units: every pay is stored as given in the file (``x line
bet``, ``x total bet`` or ``x bet multiplier``) and converted with
:meth:`BetModel.credits` to *credits per bet multiplier* ("coins"), the
integer money unit of the exact engine.  RTP is coins won / coins staked
(``BetModel.cost``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

SYMBOL_KINDS = ("regular", "wild", "scatter", "bonus", "blank", "mystery")
PAY_UNITS = ("line_bet", "total_bet", "bet_multiplier")
COUNTING_MODES = ("anywhere", "adjacent_from_first_reel")
VISIBILITY_MODES = ("partial", "full")
LINE_DIRECTIONS = ("left_to_right", "right_to_left", "both_ways")
MULTIPLIER_COMBINE = ("product", "sum")
# lines: which candidate of a line pays: the highest pay after its multipliers (default) or before them
LINE_WIN_SELECTION = ("after_multipliers", "before_multipliers")


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
    multiplier: int = 1  # wilds only: a win the wild takes part in is multiplied by this (see PayRule.combine)
    multiplier_table: str | None = None  # wilds only: a [tables.*] drawn per landing (entries: multiplier, weight)
    modes: tuple | None = None  # strip-set modes whose strips may carry it (None: every mode)
    # wilds declaring ``by_mode``: what they are in every strip-set mode of the game, ((mode, ModeSymbol), ...);
    # empty: the same in every mode (see Game.in_strip_mode)
    by_mode: tuple = ()
    reveal: str | None = None  # mystery symbols only: the [tables.*] of { symbol, weight } a spin reveals it as (model.mystery)

    @property
    def is_wild(self) -> bool:
        return self.kind == "wild"

    @property
    def variants(self) -> tuple:
        """Itself and what it is in each mode (``by_mode``): whatever carries ``multiplier``, ``multiplier_table``
        and ``substitutes``."""
        return (self,) + tuple(v for _, v in self.by_mode)

    @property
    def carries_multiplier(self) -> bool:
        """A wild that multiplies (a fixed multiplier above 1 or a table) in some mode."""
        return any(v.multiplier != 1 or v.multiplier_table is not None for v in self.variants)

    def in_mode(self, mode: str) -> "Symbol":
        """The symbol as the screens of strip-set ``mode`` show it (its ``by_mode`` entry, else itself)."""
        for name, variant in self.by_mode:
            if name == mode:
                if (variant.multiplier, variant.multiplier_table, variant.substitutes) == (
                        self.multiplier, self.multiplier_table, self.substitutes):
                    return self
                return replace(self, multiplier=variant.multiplier, multiplier_table=variant.multiplier_table,
                               substitutes=variant.substitutes)
        return self


@dataclass(frozen=True)
class ModeSymbol:
    """What a wild is in one strip-set mode (``[symbols] X by_mode``): its multiplier (a whole number, or a
    ``[tables.*]`` drawn per landing) and the symbols it substitutes for."""

    multiplier: int = 1
    multiplier_table: str | None = None
    substitutes: frozenset = frozenset()


@dataclass(frozen=True)
class PayRule:
    """How the screen pays (``[pays]`` of the file).

    ``rule``: ``lines`` (paylines), ``ways`` (adjacent reels from reel 1, any
    row; a win pays its pay x the number of ways), ``scatter_pays`` (N or
    more of a symbol anywhere) or ``cluster`` (N or more orthogonally adjacent
    cells of a symbol, wilds joining; every cluster pays on its own).  ``direction`` (lines only): ``left_to_right``,
    ``right_to_left`` or ``both_ways`` (the best win from each end; a
    full-length win pays once).  ``combine``: how the multipliers of several
    multiplier wilds in one win combine (``product`` or ``sum``; a win with no
    multiplier wild is x1).  ``multiply_wild_only``: whether a win made only of
    wilds is multiplied too.  ``line_win`` (lines only): the line pays the candidate with the highest pay after
    its multipliers (``after_multipliers``) or the one with the highest paytable pay, then multiplied
    (``before_multipliers``); frameworks differ, so it is declared.  ``feature_multiplier`` is no file key: the
    free spins of ``[features] multiplier_wilds = "add"`` pay with it set to their multiplier F, and a win's
    wild multiplier M then adds to F instead of being multiplied by it (:meth:`with_feature`); 0 outside them.
    """

    rule: str = "lines"
    direction: str = "left_to_right"
    combine: str = "product"
    multiply_wild_only: bool = False
    line_win: str = "after_multipliers"
    feature_multiplier: int = 0

    def with_feature(self, m: int) -> int:
        """A win's multiplier from its wilds' combined multiplier ``m`` (1: none): ``m`` itself, or, where a
        feature multiplier adds to the wilds' (``feature_multiplier`` F > 0), the multipliers above x1 added up:
        F + m with a multiplier wild (x3 and x2 make x5), F without one."""
        f = self.feature_multiplier
        if f == 0:
            return m
        return ((f if f > 1 else 0) + (m if m > 1 else 0)) or 1

    @property
    def definition(self):
        """The registered :class:`~workbench.model.rules.Rule` named ``rule``: what it allows, its labels, its parts."""
        from .rules import get

        return get(self.rule)

    @property
    def is_lines(self) -> bool:
        """The game pays paylines (``[paylines]``; the line automaton prices it)."""
        return self.definition.paylines


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
    max_win: Fraction | None = None  # ``[bet] max_win``: the base mode's cap and every mode's default, x total bet

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
class BetMode:
    """A way to play the game at its own price: ``[bet_modes.NAME]``.

    ``cost`` is its price per round x the base game's total bet (ante 1.25, a
    bonus buy 100); ``strip_sets`` the strip-set mode its paid spins use
    (``base`` unless it has its own); a ``buy`` mode starts the feature directly
    (no base spin), as the trigger count ``buy_count`` would; a ``prize`` mode starts it from an empty screen,
    its first board landing as a respin (from the strips of mode ``prize_strips``).  Its figures are
    reported x its own cost.  ``max_win`` caps a round's total win (x the base game's total bet; None:
    the game's ``[bet] max_win``, if any, see :attr:`Game.max_win <workbench.model.Game.max_win>`).
    """

    name: str
    cost: Fraction = Fraction(1)
    strip_sets: str = "base"
    buy: bool = False
    buy_count: int | None = None
    description: str = ""
    max_win: Fraction | None = None
    # a bought trigger count drawn by weight (``buy_count_table``): ((count, weight), ...); empty: ``buy_count``
    buy_counts: tuple = ()
    # ``[features]`` parameters this mode plays otherwise (its own free-spins strips, multiplier, retriggers ...)
    features: Mapping = field(default_factory=lambda: MappingProxyType({}))
    # a buy: ``paid``: the bought feature starts from a base screen showing the bought count, paid as a base spin
    # (component ``forced_screen``); ``unpaid``: it starts at once
    forced_screen: str = "unpaid"
    # a prize mode (``prize_mode = true``): a buy of the feature from an empty screen (``buy_count`` 0), whose first
    # board is the first of its respins, every board landing from the strips of mode ``strip_sets`` (None: by the
    # template's landing weights)
    prize: bool = False
    prize_strips: str | None = None

    @property
    def bought_counts(self) -> tuple:
        """((trigger count, weight), ...) a bought feature starts with: ``buy_count`` (weight 1) or the drawn table."""
        if self.buy_counts:
            return self.buy_counts
        return ((self.buy_count, 1),) if self.buy and self.buy_count is not None else ()


BASE_MODE = BetMode("base")


@dataclass(frozen=True)
class PlayerChoice:
    """A choice the player makes in the round: ``[choices.NAME]``, one of its ``options`` each time it comes.

    Each option is the ``[features]`` parameters the round plays when it is picked (a table of its own, other
    spins and multiplier...); an empty option plays ``[features]`` as written.  ``played`` is the option the
    game's figures are quoted for; ``declared`` holds the ``[features]`` value of every key an option sets
    (a key ``[features]`` does not have is left out), so that another option can be played in its place.
    """

    name: str
    played: str
    options: Mapping  # option name -> {feature parameter: value}, in file order
    declared: Mapping = field(default_factory=lambda: MappingProxyType({}))
    description: str = ""

    @property
    def keys(self) -> tuple:
        """The ``[features]`` parameters some option sets."""
        return tuple(dict.fromkeys(k for option in self.options.values() for k in option))


@dataclass(frozen=True)
class JackpotTier:
    """A must-drop progressive jackpot tier: ``[jackpots.NAME]``.

    ``must_drop`` is in the currency of ``[bet] stakes``: the pot surely drops
    before it passes this amount.  ``pot_rate`` and ``reseed_rate`` are the
    fractions of every wager (its price in currency) fed to the pot and to the
    reseed pot; after a drop the pot restarts at ``reseed_fraction`` of the
    amount paid.  A tier's long-run return is ``pot_rate / (1 - reseed_fraction)``
    of every wager, outside the game's max-win cap.
    """

    name: str
    must_drop: float
    pot_rate: float
    reseed_rate: float
    reseed_fraction: float

    @property
    def rtp(self) -> Fraction:
        """The tier's long-run return, x every wager (exact in the file's decimals)."""
        return Fraction(repr(self.pot_rate)) / (1 - Fraction(repr(self.reseed_fraction)))

    @property
    def room(self) -> float:
        """Currency between the lowest restart (``reseed_fraction`` of ``must_drop``) and ``must_drop``: the most one
        wager's feed may add without carrying the pot past its must-drop value."""
        return self.must_drop * (1 - self.reseed_fraction)

    def largest_wager(self) -> float:
        """The largest wager (currency) whose feed cannot carry the pot past its must-drop value in one step."""
        return self.room / self.pot_rate


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
    """A feature trigger.

    Scatter trigger: at least ``min_count`` of scatter group ``scatter``.
    Combination trigger (``combination`` names a symbol, ``scatter`` is None):
    ``min_count`` or more of it (or a wild substituting for it) from reel 1 on a
    payline (lines games) or on adjacent reels from reel 1 (ways games).  With
    ``per_line`` every triggering line starts its own bonus; otherwise a spin
    starts at most one.  ``award`` names a weighted table whose entries' ``value``
    the bonus pays, in ``award_unit`` (x total bet by default); without it the
    trigger only reports how often it fires (a game module plays the feature).
    An award table of wheel segments (``award = "cash"`` / ``"respin"``,
    ``again``) is a wheel: the bonus spins it until a segment without ``again``,
    at most ``award_max_spins`` times; without ``award_repeat_cash`` a cash prize
    won cannot be won again within the award (``model.wheel_segments``).
    """

    name: str
    scatter: str | None
    min_count: int
    combination: str | None = None
    per_line: bool = False
    award: str | None = None
    award_unit: str = "total_bet"
    award_repeat_cash: bool = True
    award_max_spins: int = 100

    @property
    def source(self) -> str:
        """What fires it, for tables: the scatter group or the combination."""
        return self.scatter if self.scatter is not None else f"{self.combination} (combination)"


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
