"""The bounds of a reelset (docs/reelset-format.md, "Limits") and the small formatters its messages share.

Every number is bounded to what the engines hold: the exact engine and the simulator count money in
integer pay units in 64-bit integers, single pays packed in 31 bits, weights in 31 bits."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..model import rules
from ..errors import Problem
from ..model.params import show_number
from .toml import MAX_FILE_BYTES, MAX_FILE_ITEMS, MAX_FILE_LINES


FORMAT_VERSION = 1
REELSET_SUFFIX = ".toml"
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")

# -- limits (docs/reelset-format.md, "Limits"); the file-size ones are checked before parsing (io.toml)
MAX_PROBLEMS = 30  # problems listed per file; then one "... and N more problems"
MAX_REELS = 10
MAX_ROWS = 12  # rows per reel
MAX_PAYLINES = 1024
MAX_SYMBOLS = 256
MAX_MULTIPLIER = 1000  # a multiplier wild's multiplier
MAX_STRIP_STOPS = 10_000  # stops per strip
MAX_STRIP_SETS = 100
MAX_PLAYED_SETS = 1_024  # strip sets one mode plays: one per mystery reveal and set of wild reels (model.wild_reels)
MAX_TABLE_ENTRIES = 5_000  # entries per weighted table
MAX_PAY = 10**9  # any pay (in its unit), cost, line bet or stake
MAX_DECIMALS = 6  # decimal places of a pay, cost, line bet or stake
MAX_PAY_DENOMINATOR = 10**6  # the pay unit is at least 1/1,000,000 credit
MAX_UNITS = 2**31 - 1  # the largest single pay and the cost, in pay units (31-bit packed line steps)
MAX_WEIGHT = 2**31 - 1  # stop, table-entry and strip-set weights, and each strip's, table's and mode's total
MAX_TALL = MAX_STRIP_STOPS  # height of a tall symbol
CLUSTER_MAX_CELLS = rules.CLUSTER_MAX_CELLS  # cells of a cluster game's screen (one uint64 bitboard)
FEATURE_COST_RATIO = 2  # without bet.cost_reason, lines x line_bet <= cost <= FEATURE_COST_RATIO x lines x line_bet
SIMULATOR_VIRTUAL_STOPS = 1 << 22  # simulate.kernel.VIRTUAL_STOPS_MAX: larger strip totals validate but do not simulate

LIMITS = {
    "file size (bytes)": MAX_FILE_BYTES,
    "lines in the file": MAX_FILE_LINES,
    "keys and array elements in the file": MAX_FILE_ITEMS,
    "reels": MAX_REELS,
    "rows per reel": MAX_ROWS,
    "cells of a cluster game's screen": CLUSTER_MAX_CELLS,
    "paylines": MAX_PAYLINES,
    "symbols": MAX_SYMBOLS,
    "multiplier of a multiplier wild": MAX_MULTIPLIER,
    "stops per strip": MAX_STRIP_STOPS,
    "strip sets": MAX_STRIP_SETS,
    "played strip sets of one mode": MAX_PLAYED_SETS,
    "entries per table": MAX_TABLE_ENTRIES,
    "pay, cost, line bet, stake": MAX_PAY,
    "decimal places": MAX_DECIMALS,
    "pay unit denominator": MAX_PAY_DENOMINATOR,
    "pay or cost in pay units": MAX_UNITS,
    "weight, and weight total": MAX_WEIGHT,
    "problems listed": MAX_PROBLEMS,
}

UNIT_TEXT = {"line_bet": "x line bet", "total_bet": "x total bet", "bet_multiplier": "x bet multiplier"}

TOP_KEYS = {
    "format_version": "format version of this file (1)",
    "name": "game name",
    "description": "free text",
    "game_module": "round template playing the features",
    "grid": "reels and rows",
    "bet": "bet model",
    "symbols": "symbol definitions",
    "pays": "pay rule: lines, ways, scatter_pays or cluster",
    "groups": "symbol groups paying mixed combinations",
    "paylines": "paylines",
    "paytable": "line pays",
    "scatters": "scatter counts and pays",
    "triggers": "feature triggers",
    "strip_sets": "reel strips",
    "tables": "weighted tables",
    "features": "game-module parameters",
    "bet_modes": "other ways to play at their own cost: ante, bonus buy",
    "jackpots": "must-drop progressive jackpot tiers (currency)",
    "choices": "choices the player makes in the round, each option its own [features] parameters",
    "expectations": "the figures the game is meant to have (RTP, hit frequency, volatility, max win), per bet mode",
}
REQUIRED_TOP = ("format_version", "name", "game_module", "grid", "bet", "symbols", "paytable", "strip_sets")


def cap_problems(problems: list[Problem], file: str) -> list[Problem]:
    """The first :data:`MAX_PROBLEMS` problems, then one saying how many more were found."""
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    more = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem(file, "", f"... and {more:,} more problem{'s' if more > 1 else ''}")]


def show_value(value: Any) -> str:
    return show_number(value)


def show_name(value: Any) -> str:
    """``repr`` of a name or key for a message, shortened if very long."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(str(value)):,} characters)"


def show_exact(value: Fraction | int) -> str:
    """An exact decimal (pays, costs) as plain text: 75, 0.25, 1000000000."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    text = format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
    return text if Fraction(text) == value else str(float(value))


def count_key(key: Any) -> int | None:
    """A pay-table count key as an integer (any size), or None if it is not ASCII digits >= 1."""
    text = str(key)
    if not (text.isascii() and text.isdigit()) or not text.lstrip("0"):
        return None
    text = text.lstrip("0")
    return int(text) if len(text) <= 18 else 10**18
