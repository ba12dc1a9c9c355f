"""The game model: pure data, no file format, no compiled code.

``import workbench.model`` loads numpy only.  A :class:`Game` is built by
:func:`workbench.io.load_game` and never changed; edits
(:meth:`Game.with_strip`, :meth:`Game.with_table_weights`,
:meth:`Game.with_strip_set_weight`) return a new, validated ``Game``.
"""

from .edits import apply_edit
from .elements import (
    COUNTING_MODES,
    PAY_UNITS,
    SYMBOL_KINDS,
    VISIBILITY_MODES,
    LINE_DIRECTIONS,
    MULTIPLIER_COMBINE,
    LINE_WIN_SELECTION,
    PayRule,
    BASE_MODE,
    BetMode,
    BetModel,
    JackpotTier,
    ModeSymbol,
    PlayerChoice,
    ScatterGroup,
    Symbol,
    Trigger,
    WeightedTable,
    freeze,
    pay_for_count,
)
from .expectations import Expectation
from .game import Game
from .rules import Rule
from .strips import Strip, StripSet, WildReels, check_strip, max_visible_instances, parse_strip_text, symbol_runs, tall_instance_starts

__all__ = [
    "COUNTING_MODES",
    "PAY_UNITS",
    "SYMBOL_KINDS",
    "VISIBILITY_MODES",
    "LINE_DIRECTIONS",
    "MULTIPLIER_COMBINE",
    "LINE_WIN_SELECTION",
    "PayRule",
    "BASE_MODE",
    "BetMode",
    "BetModel",
    "JackpotTier",
    "ModeSymbol",
    "PlayerChoice",
    "Expectation",
    "Game",
    "Rule",
    "ScatterGroup",
    "Strip",
    "StripSet",
    "WildReels",
    "Symbol",
    "Trigger",
    "WeightedTable",
    "apply_edit",
    "check_strip",
    "freeze",
    "max_visible_instances",
    "parse_strip_text",
    "pay_for_count",
    "symbol_runs",
    "tall_instance_starts",
]
