"""Random wilds on every free spin (``[features] free_spins_random_wilds``): the parameter a round template adds,
its checks, the compiled record (:func:`random_wild_params`, built only when a game is simulated) and its words.

The table's entries are the outcomes of one free spin, drawn by weight: ``{ wilds = "none" }``,
``{ wilds = "cells", count = n }`` (``wild_symbol`` on n distinct cells drawn uniformly among those no sticky or
walking wild holds; all of them when fewer are free) or ``{ wilds = "overlay", sizes = [s, ...] }`` (a square of
s reels x s rows of ``wild_symbol`` per size, each at a uniform position wholly inside the grid; they may overlap) or
``{ wilds = "sticky_reels", count = n }`` (n expanding sticky wilds placed off the strips on distinct reels drawn uniformly
among those no expanding sticky wild holds: each shows ``wild_symbol`` on a uniform row of its reel on the spin it
arrives and holds the whole reel from the next spin to the end of the feature).  ``wild_reel_multiplier`` says whether
a held reel keeps the multiplier drawn when it is revealed (``on_reveal``) or draws a new one every spin.
The wilds go on after the screen's own wilds (sticky, expanding, walking) and before a wild's multiplier is drawn
per cell, so a dropped wild draws its multiplier as a landed one does.  Scatters are counted on the screen before
the drop: a wild dropped on a scatter does not hide it (Bier Haus's Hans Wilds).  Meter spins drop them too.
"""

from __future__ import annotations

import numpy as np

from ..model.params import Param, describe

MAX_OVERLAYS = 8  # squares of one overlay outcome
RANDOM_WILD_KINDS = ("none", "cells", "overlay", "sticky_reels")
WILD_REEL_MULTIPLIERS = ("on_reveal", "every_spin")  # a held reel's multiplier: drawn once, or again every spin

RANDOM_WILDS_PARAMS = {
    "free_spins_random_wilds": Param(
        "table", "random wilds dropped on every free spin (lines games): a [tables.*] of outcomes { wilds = \"none\" | "
                 "\"cells\" | \"overlay\" | \"sticky_reels\", count = n (cells; sticky_reels: expanding sticky wilds "
                 "placed off the strips), sizes = [s, ...] (overlay squares), weight = w }; needs wild_symbol",
        required=False),
    "base_random_wilds": Param(
        "table", "random wilds dropped on every base spin (lines games): a [tables.*] of outcomes { wilds = \"none\" | "
                 "\"cells\" | \"overlay\", count = n (cells), sizes = [s, ...] (overlay squares), weight = w }; their "
                 "gain over the landed screen is component base_random_wilds; needs wild_symbol", required=False),
    "wild_reel_multiplier": Param(
        "str", "the multiplier of a reel an expanding sticky wild holds (landed, or placed by a sticky_reels outcome), "
               "from the wild's table in the free spins' mode: on_reveal (drawn once, kept to the end; the default) or "
               "every_spin (drawn again on every spin, one per reel)", required=False, choices=WILD_REEL_MULTIPLIERS),
}


def check_random_wilds(features: dict, report, refs: dict) -> None:
    """The random wilds' checks (key paths from the file root): a lines game, ``wild_symbol`` a one-row wild,
    one-row scatters, every outcome a known kind with its own keys in range, and some outcome dropping a wild."""
    name = features.get("free_spins_random_wilds")
    reels = name is not None and any(e.get("wilds") == "sticky_reels" for e in refs["table"][name].entries)
    if "wild_reel_multiplier" in features and not reels and features.get("free_spins_wilds") != "expanding_sticky":
        report(("features", "wild_reel_multiplier"), "wild_reel_multiplier is the multiplier of reels expanding sticky "
                                                     "wilds hold: it needs free_spins_wilds = \"expanding_sticky\" or a "
                                                     "sticky_reels outcome in free_spins_random_wilds")
    if name is None:
        return
    if reels and features.get("free_spins_wilds", "none") not in ("none", "expanding_sticky"):
        report(("features", "free_spins_wilds"), f"a sticky_reels outcome of free_spins_random_wilds places expanding sticky "
                                                 f"wilds: it is played beside free_spins_wilds = \"expanding_sticky\" or "
                                                 f"none, not {features['free_spins_wilds']!r}")
    if screen_wilds_played(features, report, refs, "free_spins_random_wilds", "random wilds",
                           "random wilds need wild_symbol = the wild they drop", "random wilds count scatters cell by cell"):
        _check_outcomes(refs, report, "free_spins_random_wilds", name, RANDOM_WILD_KINDS)


def check_base_random_wilds(features: dict, report, refs: dict) -> None:
    """The base spins' random wilds: a lines game, ``wild_symbol`` a one-row wild without a multiplier drawn per cell
    in the base game (a dropped cell would need its own draw), one-row scatters, cells and overlay outcomes only (a
    base spin holds no reel), and some outcome dropping a wild."""
    name = features.get("base_random_wilds")
    if name is None or not screen_wilds_played(features, report, refs, "base_random_wilds", "random wilds",
                                               "base_random_wilds needs wild_symbol = the wild it drops",
                                               "random wilds count scatters cell by cell"):
        return
    drawn = [n for n, sym in refs["symbol"].items() if sym.is_wild and sym.in_mode("base").multiplier_table is not None]
    if drawn:
        report(("symbols", drawn[0], "multiplier"), f"base_random_wilds pays the base screen after the drop as it lands: "
                                                     f"{drawn[0]} draws its multiplier per cell in the base game; give it "
                                                     f"a fixed multiplier there (by_mode) or drop the random wilds")
    _check_outcomes(refs, report, "base_random_wilds", name, ("none", "cells", "overlay"))


def screen_wilds_played(features: dict, report, refs: dict, key_name: str, what: str, missing: str, why: str) -> bool:
    """The common part of the screen wilds' checks (``[features] key_name``, ``what`` in words): a lines game (else
    reported, and False: nothing else to check), then :func:`check_screen_wilds` (``missing``, ``why``)."""
    key = ("features", key_name)
    if not refs["pays"].definition.paylines:
        report(key, f"{what} are played on lines games (this one pays {refs['pays'].rule})")
        return False
    check_screen_wilds(features, report, refs, key, missing, why)
    return True


def _check_outcomes(refs: dict, report, key_name: str, name: str, kinds: tuple) -> None:
    """Every outcome of table ``name`` (read by ``[features] key_name``) of one of ``kinds`` with its keys in range,
    and some outcome with weight dropping a wild."""
    rows = refs.get("rows") or (1,)
    cells, side = sum(rows), min(min(rows), len(rows))
    table = refs["table"][name]
    dropping = False
    for i, (entry, weight) in enumerate(zip(table.entries, table.weights)):
        path = ("tables", name, "entries", i)
        if entry.get("wilds") in RANDOM_WILD_KINDS and entry.get("wilds") not in kinds:
            report(path + ("wilds",), f"a {entry['wilds']} outcome holds reels to the end of a feature: {key_name} takes "
                                      f"{', '.join(kinds[:-1])} and {kinds[-1]} outcomes")
            continue
        dropping |= _check_outcome(path, entry, cells, side, len(rows), report) and weight > 0
    if not dropping:
        droppers = [k for k in kinds if k != "none"]
        report(("tables", name, "entries"), f"no outcome with weight drops a wild: remove {key_name}, or give a "
                                            f"{', '.join(droppers[:-1])} or {droppers[-1]} outcome a weight")


def check_screen_wilds(features: dict, report, refs: dict, key: tuple, missing: str, why: str) -> None:
    """What wilds played on an explicit screen need (free_spins_wilds, free_spins_random_wilds): ``wild_symbol``
    named (else ``missing`` at ``key``) and a one-row wild, and scatter groups of one-row symbols (``why``)."""
    symbols = refs["symbol"]
    if "wild_symbol" not in features:
        report(key, missing)
    elif symbols[features["wild_symbol"]].kind != "wild" or symbols[features["wild_symbol"]].height != 1:
        report(("features", "wild_symbol"), f"{features['wild_symbol']!r} must be a wild one row tall")
    for group in refs["scatter"].values():
        tall = [n for n in group.symbols if symbols[n].height != 1]
        if tall:
            report(("scatters", group.name), f"{why}: the symbols of a scatter group must be one row tall "
                                             f"({', '.join(tall)} is not)")


def _check_outcome(path: tuple, entry: dict, cells: int, side: int, reels: int, report) -> bool:
    """One outcome's keys; whether it drops a wild (a valid cells or overlay outcome)."""
    kind = entry.get("wilds")
    own = {"none": (), "cells": ("count",), "overlay": ("sizes",), "sticky_reels": ("count",)}
    if kind not in RANDOM_WILD_KINDS:
        report(path + ("wilds",), f"wilds must be one of {', '.join(RANDOM_WILD_KINDS)}, got {describe(kind)}")
        return False
    extra = [k for k in entry if k not in ("wilds", *own[kind])]
    if extra:
        report(path + (extra[0],), f"unknown key {extra[0]!r} in a {kind} outcome (it takes "
                                   f"{', '.join(('wilds', *own[kind]))} and weight)")
        return False
    counted = {"cells": ("the wilds it drops", cells, "the cells of the screen"),
               "sticky_reels": ("the expanding sticky wilds it places", reels, "the reels")}
    if kind in counted:
        what, top, of = counted[kind]
        count = entry.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= top:
            report(path + ("count",), f"a {kind} outcome needs count = {what}, a whole number 1..{top} ({of}), got "
                                      f"{describe(count)}")
            return False
    if kind == "overlay":
        sizes = entry.get("sizes")
        if not isinstance(sizes, (list, tuple)) or not 1 <= len(sizes) <= MAX_OVERLAYS or not all(
                isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= side for s in sizes):
            report(path + ("sizes",), f"an overlay outcome needs sizes = a list of 1 to {MAX_OVERLAYS} square sides, each "
                                      f"a whole number 1..{side} (fitting the grid), got {describe(sizes)}")
            return False
    return kind != "none"


def random_wild_params(game, key: str = "free_spins_random_wilds"):
    """The compiled record (:class:`workbench.simulate.steps.random_wilds.RandomWildParams`) of ``game``'s random
    wilds (``key``: the free spins' or the base spins'); the empty record without them."""
    from ..simulate.steps.random_wilds import KINDS, RandomWildParams, no_random_wilds

    shape = (game.reels, max(game.rows))
    name = game.features.get(key)
    if name is None:
        return no_random_wilds(*shape)
    table = game.tables[name]
    sizes = np.zeros((len(table.entries), MAX_OVERLAYS), dtype=np.int64)
    for i, entry in enumerate(table.entries):
        for k, s in enumerate(entry.get("sizes", [])):
            sizes[i, k] = s
    return RandomWildParams(
        cum=np.cumsum(np.asarray(table.weights, dtype=np.int64)),
        kind=np.array([KINDS[e["wilds"]] for e in table.entries], dtype=np.int64),
        count=np.array([int(e.get("count", 0)) for e in table.entries], dtype=np.int64),
        sizes=sizes,
        placed=np.zeros(shape, dtype=np.bool_),
        pending=np.zeros(game.reels, dtype=np.bool_),
    )


def base_random_wilds_summary(game) -> str:
    """The base spins' random wilds in words, with the exact mean of their gain (x total bet)."""
    from ..exact.wilds import random_wilds_gain
    from ..pays.scale import pay_scale

    name = game.features.get("base_random_wilds")
    if name is None:
        return ""
    table, wild = game.tables[name], game.features["wild_symbol"]
    gain = random_wilds_gain(game, table, wild) / pay_scale(game).cost_units
    return (f"on every base spin, {wild} dropped by table {name}: " + ", ".join(_outcome_words(table))
            + f"; scatters counted before the drop; exact mean gain {gain:.6f} x total bet (component base_random_wilds)")


def _outcome_words(table) -> list:
    total = sum(table.weights)

    def one(entry, weight) -> str:
        p = f"{100 * weight / total:.2f} %"
        if entry["wilds"] == "cells":
            return f"{entry['count']} wilds on random cells {p}"
        if entry["wilds"] == "sticky_reels":
            return f"{entry['count']} expanding sticky wild reel{'s' * (entry['count'] > 1)} (from the next spin) {p}"
        if entry["wilds"] == "overlay":
            return f"overlays {' + '.join(f'{s}x{s}' for s in entry['sizes'])} {p}"
        return f"none {p}"

    return [one(e, w) for e, w in zip(table.entries, table.weights)]


def random_wilds_summary(game) -> str:
    """The random wilds in words, for the report's overview: each outcome with its probability."""
    name = game.features.get("free_spins_random_wilds")
    if name is None:
        return ""
    table = game.tables[name]
    wild = game.features.get("wild_symbol", "?")
    redraw = ("; a held reel's multiplier drawn again every spin"
              if game.features.get("wild_reel_multiplier") == "every_spin" else "")
    return (f"on every free spin, {wild} dropped by table {name}: " + ", ".join(_outcome_words(table))
            + "; scatters counted before the drop" + redraw)
