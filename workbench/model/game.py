"""The immutable in-memory game: grid, symbols, bet model, lines, pays, strips, tables.

Pure data: building one from a file is :mod:`workbench.io`'s job, computing
with it the engines'.  Edits return a new ``Game``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Mapping

from .edits import apply_edit
from types import MappingProxyType

from .elements import BASE_MODE, BetMode, BetModel, PayRule, Symbol, pay_for_count


@dataclass(frozen=True)
class Game:
    """A game: grid, symbols, bet model, paylines, pays, strips, tables, features.

    Built by :func:`workbench.io.load_game`; never mutated.  Edits return a
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
    pays: PayRule = PayRule()  # how the screen pays: lines, ways or scatter_pays
    groups: Mapping = field(default_factory=lambda: MappingProxyType({}))  # group name -> member symbols (mixed pays)
    heights: tuple | None = None  # per reel: ((rows, weight), ...) drawn each spin, or None (always ``rows``)
    bet_modes: Mapping = field(default_factory=lambda: MappingProxyType({}))  # name -> BetMode, as declared ([bet_modes.*])
    bet_mode: BetMode = BASE_MODE  # the mode this Game plays (see in_bet_mode)
    jackpots: tuple = ()  # must-drop progressive tiers ([jackpots.*]): JackpotTier, fed by every wager of every mode
    choices: Mapping = field(default_factory=lambda: MappingProxyType({}))  # name -> PlayerChoice ([choices.*])
    expectations: tuple = ()  # Expectation per mode ([expectations]: declared figures), base game first
    # facts of its round template, read when the file was validated, so the engines need no registry lookup:
    exact_part: str = "base game"  # what the exact PAR sheet of the base mode covers ("first drop" for a tumble)
    feature_money: tuple = ()  # the amounts (Fraction, x total bet) the template pays from [features] (pay unit)
    path: str | None = field(default=None, compare=False)
    text: str = field(default="", compare=False, repr=False)
    edits: tuple = field(default=(), compare=False, repr=False)

    # -- lookups -----------------------------------------------------------
    @property
    def rule(self):
        """The game's pay rule as a registered object (:class:`~workbench.model.rules.Rule`): dispatch through it."""
        return self.pays.definition

    def substitutes(self, shown: str, target: str) -> bool:
        """Whether a cell showing ``shown`` stands for the symbol ``target``: it is ``target``, or a wild that
        substitutes for it (the substitution rule every evaluator shares)."""
        if shown == target:
            return True
        symbol = self.symbols[shown]
        return symbol.kind == "wild" and target in symbol.substitutes

    def counts_for(self, shown: str, target: str) -> bool:
        """Whether a cell showing ``shown`` counts for ``target``, a symbol or a ``[groups]`` group: a member of
        the group or a wild substituting for one; a wild target counts only itself."""
        if target in self.groups:
            members = self.groups[target]
            if shown in members:
                return True
            symbol = self.symbols[shown]
            return symbol.kind == "wild" and any(m in symbol.substitutes for m in members)
        if self.symbols[target].kind == "wild":
            return shown == target
        return self.substitutes(shown, target)

    def expectation(self, mode: str = "base"):
        """The declared :class:`~workbench.model.expectations.Expectation` of bet mode ``mode``, or None."""
        return next((e for e in self.expectations if e.mode == mode), None)

    @property
    def symbol_names(self) -> tuple:
        return tuple(self.symbols)

    def symbol(self, name: str) -> Symbol:
        return self.symbols[name]

    def line_pay(self, symbol: str, count: int) -> Fraction:
        """Pay of ``count`` x ``symbol`` (or group) in the line pay unit (x line bet by default).

        Lines and ways: ``count`` symbols from the first reel; scatter_pays:
        ``count`` anywhere on the screen.
        """
        return pay_for_count(self.paytable.get(symbol, {}), count)

    def strip_sets_for(self, mode: str) -> list:
        """The file's strip sets of ``mode`` (what the editors show and edit)."""
        return [s for s in self.strip_sets.values() if s.mode == mode]

    def played_strip_sets(self, mode: str) -> list:
        """The strip sets a spin of ``mode`` is played on, as every engine prices and plays them: the file's, each
        one holding mystery symbols replaced by one set per reveal (:mod:`.mystery`), then each one with
        ``wild_reels`` by one set per set of wild reels (:mod:`.wild_reels`); the file's sets when neither is used."""
        from .mystery import played_sets
        from .wild_reels import wild_reel_sets

        return wild_reel_sets(self, played_sets(self, self.strip_sets_for(mode)))

    @property
    def modes(self) -> tuple:
        return tuple(dict.fromkeys(s.mode for s in self.strip_sets.values()))

    @property
    def max_rows(self) -> int:
        return max(self.rows)

    # -- bet modes ------------------------------------------------------------
    @property
    def all_bet_modes(self) -> dict:
        """Every way to play: ``base`` (cost 1) first, then the declared ``[bet_modes.*]``."""
        return {"base": BASE_MODE, **dict(self.bet_modes)}

    @property
    def max_win(self) -> Fraction | None:
        """The max-win cap of the mode this Game plays, x the base game's total bet (None: no cap): the mode's
        ``[bet_modes.NAME] max_win``, else ``[bet] max_win`` (the base mode's cap and every mode's default)."""
        if self.bet_mode.max_win is not None:
            return self.bet_mode.max_win
        return self.bet.max_win

    def in_bet_mode(self, name: str) -> "Game":
        """The game as bet mode ``name`` plays it: its strip-set mode becomes ``base`` (the game's own base
        strip sets are set aside as mode ``base:main``); ``bet_mode`` records the mode (cost, buy).  Figures of
        the result are still x the base total bet: divide by ``bet_mode.cost`` for the mode's own.  The mode's
        ``features`` replace the game's ``[features]`` parameters of the same names."""
        modes = self.all_bet_modes
        if name not in modes:
            raise KeyError(f"{self.name}: no bet mode {name!r} (known: {', '.join(modes)})")
        mode = modes[name]
        game = self
        if mode.features:  # the parameters this mode plays otherwise ([bet_modes.NAME] features)
            game = replace(self, features=MappingProxyType({**self.features, **mode.features}))
        return game._played_in(mode)

    def _played_in(self, mode) -> "Game":
        if mode.strip_sets == "base":
            return replace(self, bet_mode=mode)
        rename = {"base": "base:main", mode.strip_sets: "base"}
        sets = {key: replace(s, mode=rename[s.mode]) if s.mode in rename else s for key, s in self.strip_sets.items()}
        symbols = {}
        for key, sym in self.symbols.items():
            if sym.by_mode:  # the per-mode symbols follow their strips
                sym = replace(sym, by_mode=tuple((rename.get(m, m), v) for m, v in sym.by_mode))
            if sym.modes is not None:
                sym = replace(sym, modes=tuple(rename.get(m, m) for m in sym.modes))
            symbols[key] = sym
        played = replace(self, strip_sets=MappingProxyType(sets), symbols=MappingProxyType(symbols), bet_mode=mode)
        return played.in_strip_mode("base")

    def with_choice(self, name: str, option: str) -> "Game":
        """The game whose player picks ``option`` of the choice ``name`` (``[choices.NAME]``) every time: the
        option's ``[features]`` parameters replace those of the option played so far (a key it does not set is
        played as ``[features]`` writes it); a bet mode's own ``features`` still come last."""
        choice = self.choices.get(name)
        if choice is None:
            raise KeyError(f"{self.name}: no player choice {name!r} (known: {', '.join(self.choices) or 'none'})")
        if option not in choice.options:
            raise KeyError(f"{self.name}: choice {name!r} has no option {option!r} (options: {', '.join(choice.options)})")
        features = {k: v for k, v in self.features.items() if k not in choice.keys}
        features.update({k: v for k, v in choice.declared.items()})
        features.update(choice.options[option])
        features.update(self.bet_mode.features)  # a bet mode plays its own parameters whatever the player picks
        choices = {**self.choices, name: replace(choice, played=option)}
        return replace(self, features=MappingProxyType(features), choices=MappingProxyType(choices))

    def in_strip_mode(self, mode: str) -> "Game":
        """The game whose symbols are as strip-set ``mode`` shows them (``[symbols] X by_mode``: a wild's
        multiplier and substitution per mode); itself when no symbol differs there.  Every engine pays the
        screens of a mode with the game of that mode: the file's own ``Game`` is the ``base`` mode's."""
        changed = {key: sym.in_mode(mode) for key, sym in self.symbols.items() if sym.by_mode}
        changed = {key: sym for key, sym in changed.items() if sym is not self.symbols[key]}
        if not changed:
            return self
        return replace(self, symbols=MappingProxyType({**self.symbols, **changed}))

    def in_free_spins(self) -> "Game":
        """The game the ``free_spins`` template's free spins pay with: with ``[features] multiplier_wilds = "add"``
        a line win's wild multiplier adds to the feature's ``multiplier`` (``PayRule.feature_multiplier``), whose
        scatter pays then carry it alone; itself otherwise (the round multiplies the whole screen)."""
        if self.features.get("multiplier_wilds", "multiply") != "add":
            return self
        return replace(self, pays=replace(self.pays, feature_multiplier=int(self.features.get("multiplier", 1))))

    # -- edits (validated; saved with workbench.io.save_game) --------------
    def with_strip(self, strip_set: str, reel: int, symbols, weights=None) -> "Game":
        """A copy with reel ``reel`` (1-based) of ``strip_set`` replaced.

        Raises :class:`~workbench.errors.ReelsetError` if the new strip is invalid.
        """
        return apply_edit(self, ("strip", strip_set, reel, tuple(symbols), None if weights is None else tuple(weights)))

    def with_table_weights(self, table: str, weights) -> "Game":
        """A copy with the weights of weighted table ``table`` replaced."""
        return apply_edit(self, ("table_weights", table, tuple(int(w) for w in weights)))

    def with_strip_set_weight(self, strip_set: str, weight: int) -> "Game":
        """A copy with the choice weight of ``strip_set`` replaced."""
        return apply_edit(self, ("strip_set_weight", strip_set, int(weight)))

    def _replace(self, **changes) -> "Game":
        return replace(self, **changes)
