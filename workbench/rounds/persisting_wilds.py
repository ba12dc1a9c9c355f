"""Scatters that turn into persisting wilds (``[features] free_spins_persisting_wilds = ["S", ...]``): the parameter
the free-spins template adds, its checks, the compiled record (:func:`persisting_wild_params`) and its words.

Each cell of the screen that starts the feature showing one of the listed symbols (symbols of the trigger's
scatter group) turns into ``wild_symbol`` from the first free spin to the end of the feature, at the same reel and
row.  A free spin whose screen retriggers (``retrigger_min_count`` trigger scatters or more, with ``retrigger`` or
``retrigger_table`` declared) turns its listed symbols into persisting wilds from the next free spin on; a cell that
already holds one stays as it is.  With scatters counted on adjacent reels from the first, only the symbols on the
reels of that run are "in the trigger" (Bier Haus's Purple Heidi).  Order on a free-spin screen: the landed symbols
and the feature's own wilds (sticky, expanding, walking), the scatters counted (one landing under a persisting wild
counts), the persisting wilds put on, random wilds dropped (never on a held or persisting wild), a wild's multiplier
drawn per cell, the lines paid.  The screen that starts a feature is the base spin's; a stratum round of the exact +
conditional method draws it from the base game's distribution given its count (:mod:`.forced`); a bought feature
draws one showing the bought count, paid only when the buy says ``forced_screen = "paid"``.
"""

from __future__ import annotations

import numpy as np

from ..model.params import Param
from .random_wilds import screen_wilds_played

NO_RETRIGGER = 1 << 62  # the count a free spin would need to add persisting wilds when the feature has no retriggers

PERSISTING_WILDS_PARAMS = {
    "free_spins_persisting_wilds": Param(
        "symbol_list", "symbols of the trigger's scatter group that turn into persisting wilds (lines games): each cell "
                       "showing one on the screen that triggers (or retriggers) the free spins becomes wild_symbol "
                       "for the rest of the feature; needs wild_symbol", required=False),
}


def check_persisting_wilds(features: dict, report, refs: dict) -> None:
    """The persisting wilds' checks (key paths from the file root): a lines game, ``wild_symbol`` a one-row wild,
    one-row scatters, and a non-empty list of distinct symbols of the trigger's scatter group."""
    names = features.get("free_spins_persisting_wilds")
    if names is None:
        return
    key = ("features", "free_spins_persisting_wilds")
    if not screen_wilds_played(features, report, refs, "free_spins_persisting_wilds", "persisting wilds",
                               "persisting wilds need wild_symbol = the wild the scatters turn into",
                               "persisting wilds are placed cell by cell"):
        return
    if not names:
        report(key, "name at least one symbol of the trigger's scatter group (or leave free_spins_persisting_wilds out)")
        return
    if len(set(names)) != len(names):
        report(key, "a symbol is named twice")
    group = refs["scatter"].get(refs["trigger"][features["trigger"]].scatter)
    if group is None:
        return
    for name in names:
        if name in refs["symbol"] and name not in group.symbols:
            report(key, f"{name} is not a symbol of [scatters.{group.name}], the trigger's group: only the trigger's "
                        f"scatters turn into persisting wilds (its symbols: {', '.join(group.symbols)})")


def persisting_wild_params(game, n_ids: int) -> tuple[np.ndarray, int]:
    """``(persists, persist_min)`` of ``game``'s persisting wilds for screens of ``n_ids`` symbol ids (the last one
    an empty cell): whether each id turns into a persisting wild (an empty array without persisting wilds), and the
    trigger scatters a free spin needs to add some (:data:`NO_RETRIGGER` without retriggers)."""
    names = game.features.get("free_spins_persisting_wilds")
    if not names:
        return np.zeros(0, dtype=np.bool_), NO_RETRIGGER
    persists = np.zeros(n_ids, dtype=np.bool_)
    for name in names:
        persists[game.symbols[name].index] = True
    f = game.features
    retriggers = "retrigger" in f or "retrigger_table" in f
    trigger = game.triggers[f["trigger"]]
    return persists, int(f.get("retrigger_min_count", trigger.min_count)) if retriggers else NO_RETRIGGER


def persisting_wilds_summary(game) -> str:
    """The persisting wilds in words, for the report's overview."""
    names = game.features.get("free_spins_persisting_wilds")
    if not names:
        return ""
    f = game.features
    group = game.triggers[f["trigger"]].scatter
    again = ("; those of a retrigger from the next free spin on" if "retrigger" in f or "retrigger_table" in f else "")
    chain = (" on the reels of the trigger's run from reel 1"
             if game.scatters[group].counting == "adjacent_from_first_reel" else "")
    return (f"each {' or '.join(names)} on the screen that triggers the free spins{chain} turns into "
            f"{f.get('wild_symbol', '?')} at its cell for the whole feature{again}; scatters landing under them still count")
