"""Mystery symbols: every one on the screen turns into the same symbol, drawn once per spin from a table.

Rule (``[symbols] M = { kind = "mystery", reveal = "TABLE" }``, ``[tables.TABLE] entries =
[{ symbol = "X", weight = w }, ...]``): when a spin chooses its strip set, every mystery symbol
``M`` of that set shows one symbol ``X`` drawn from M's table, on every reel and row at once
(several mystery symbols draw independently).  The screen then pays as if the strips held
``X`` where they hold ``M``: wins, scatters, triggers, multiplier wilds, every rule and template.
A tumble's refills from the same strip set keep the reveal; a new strip-set choice (a free spin,
a refill set of its own, a hold-and-respin board) draws again.

Because the reveal is drawn with the strip set and applies to whole strips, a strip set holding
mystery symbols is exactly a weighted mixture of plain strip sets, one per reveal:
:func:`played_sets` replaces each set ``S`` by the sets ``S (M=X)`` with weight
``S.weight x w(X)`` (``x`` the tables' totals of the mystery symbols ``S`` does not hold, so that
every set of the mode keeps its share).  Every engine (exact, simulator, bounds) prices and plays
those sets (:meth:`workbench.model.Game.played_strip_sets`); the editors keep the file's sets.
The slow reference (:mod:`workbench.reference`) draws the reveal itself instead.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

from .strips import Strip, StripSet

# the played weights of one mode are summed in 64-bit integers by the simulator (a strip set's cumulative weight)
PLAYED_WEIGHT_MAX = 2**62


def reveal_entries(game, name: str) -> tuple:
    """The reveal table of mystery symbol ``name``, reduced: ((symbol, weight), ...) in the table's order of first
    appearance, weights summed per symbol, weight-0 symbols left out, divided by their greatest common divisor."""
    table = game.tables[game.symbols[name].reveal]
    weights: dict = {}
    for entry, w in zip(table.entries, table.weights):
        if w > 0:
            weights[entry["symbol"]] = weights.get(entry["symbol"], 0) + int(w)
    g = math.gcd(*weights.values())
    return tuple((symbol, w // g) for symbol, w in weights.items())


def mystery_symbols(game) -> tuple:
    """The names of the game's mystery symbols, in file order."""
    return tuple(name for name, sym in game.symbols.items() if sym.kind == "mystery")


def revealed(strip_set: StripSet, shows: dict, name: str | None = None) -> StripSet:
    """``strip_set`` with every stop of a mystery symbol M replaced by ``shows[M]`` (stop weights kept)."""
    reels = tuple(Strip(tuple(shows.get(s, s) for s in strip.symbols), strip.weights) for strip in strip_set.reels)
    return replace(strip_set, name=name or strip_set.name, reels=reels)


def played_sets(game, sets: list) -> list:
    """The strip sets ``sets`` (one mode's, with their weights) as spins play them: each set holding mystery symbols
    replaced by one set per combination of reveals (see the module docstring), the weights of the mode divided by
    their greatest common divisor.  ``sets`` itself when no set holds a mystery symbol."""
    names = mystery_symbols(game)
    held = [[m for m in names if any(m in strip.symbols for strip in s.reels)] for s in sets]
    if not any(held):
        return list(sets)
    tables = {m: reveal_entries(game, m) for m in names}
    totals = {m: sum(w for _, w in tables[m]) for m in names}
    out = []
    for s, present in zip(sets, held):
        rest = math.prod(totals[m] for m in names if m not in present)
        for combo in itertools.product(*(tables[m] for m in present)):
            weight = s.weight * rest * math.prod(w for _, w in combo)
            shows = {m: x for m, (x, _) in zip(present, combo)}
            label = ", ".join(f"{m}={x}" for m, x in shows.items())
            played = revealed(s, shows, f"{s.name} ({label})") if shows else s
            out.append(replace(played, weight=weight))
    g = math.gcd(*(s.weight for s in out)) or 1
    return [replace(s, weight=s.weight // g) for s in out]
