"""What a tuning search may change (:mod:`.search`): the groups of variables that move together (a reel's symbol
counts, its stop weights, a table's entry weights, a mode's strip-set weights) resolved from the request, and the
plain, hashable point of everything they hold."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Iterable

from ..errors import TuningError
from ..model import Game


@dataclass(frozen=True)
class _Point:
    """Everything the tuner may change, as plain values (hashable: evaluations are cached by it)."""

    strips: tuple  # per reel of the tuned strip set: tuple of symbols
    stop_weights: tuple  # per reel: tuple of stop weights, or None (unweighted)
    tables: tuple  # ((table, weights), ...) of the varied tables
    set_weights: tuple  # ((strip set, weight), ...) of the mode's strip sets when varied


@dataclass(frozen=True)
class _Group:
    """Variables that move together: their total stays fixed (a reel keeps its length, a table its total weight).

    ``kind``: ``counts`` (symbol counts of one reel; a change is a stop swap), ``stops`` (stop weights of one
    weighted reel), ``table`` (entry weights of a table), ``sets`` (choice weights of the mode's strip sets).
    """

    kind: str
    where: object  # reel index, table name or mode
    items: tuple  # symbols, stop indices, entry indices or strip-set names
    step: int  # weight moved to measure an effect (1 for counts)
    floor: tuple  # lowest value of each item


def _value(point: _Point, group: _Group, item) -> int:
    if group.kind == "counts":
        return point.strips[group.where].count(item)
    if group.kind == "stops":
        return point.stop_weights[group.where][item]
    if group.kind == "table":
        return dict(point.tables)[group.where][item]
    return dict(point.set_weights)[item]


def _moved(point: _Point, group: _Group, deltas: dict) -> _Point:
    """``point`` with the weight changes ``deltas[item]`` of a weight group applied."""
    if group.kind == "stops":
        weights = list(point.stop_weights)
        row = list(weights[group.where])
        for item, d in deltas.items():
            row[item] += d
        weights[group.where] = tuple(row)
        return replace(point, stop_weights=tuple(weights))
    if group.kind == "table":
        tables = dict(point.tables)
        row = list(tables[group.where])
        for item, d in deltas.items():
            row[item] += d
        tables[group.where] = tuple(row)
        return replace(point, tables=tuple(tables.items()))
    sets = dict(point.set_weights)
    for item, d in deltas.items():
        sets[item] += d
    return replace(point, set_weights=tuple(sets.items()))


def _special_symbols(game: Game) -> set:
    special = {s for g in game.scatters.values() for s in g.symbols}
    return special | {n for n, s in game.symbols.items() if s.kind in ("wild", "scatter", "bonus")}


def _resolve_vary(game: Game, strip_set: str, vary: Iterable[str] | None) -> dict:
    """Reel index -> symbols whose counts may change there (each reel: the wanted symbols it holds, if two or more)."""
    reels = game.strip_sets[strip_set].reels
    if vary is None:
        special = _special_symbols(game)
        wanted = [n for n, s in game.symbols.items() if n not in special and s.height == 1]
    else:
        wanted = list(dict.fromkeys(vary))
        for name in wanted:
            if name not in game.symbols:
                hint = difflib.get_close_matches(name, list(game.symbols), n=1)
                raise TuningError(f"{game.path or game.name}: --vary names unknown symbol {name!r}"
                                  + (f" (did you mean {hint[0]!r}?)" if hint else ""))
            if game.symbols[name].height != 1:
                raise TuningError(f"{game.path or game.name}: --vary {name}: {name} is a tall symbol (height "
                                  f"{game.symbols[name].height}); the tuner swaps single stops, so tall symbols stay as they are")
    out = {}
    for i, strip in enumerate(reels):
        present = [s for s in wanted if s in strip.symbols]
        if len(present) >= 2:
            out[i] = tuple(present)
    if wanted and not out:
        raise TuningError(f"{game.path or game.name}: strip set {strip_set!r}: no reel holds two of the symbols to vary "
                          f"({', '.join(wanted)}), so no stop can be swapped")
    return out


def _groups(game: Game, mode: str, set_name: str, vary_map: dict, tables: Iterable[str], strip_set_weights: bool,
            stop_weights: bool) -> list:
    where = game.path or game.name
    groups = []
    for reel, symbols in sorted(vary_map.items()):
        strip = game.strip_sets[set_name].reels[reel]
        groups.append(_Group("counts", reel, symbols, 1, tuple(1 if s in strip.symbols else 0 for s in symbols)))
    if stop_weights:
        weighted = [(i, r) for i, r in enumerate(game.strip_sets[set_name].reels) if r.weights is not None]
        if not weighted:
            raise TuningError(f"{where}: strip set {set_name!r} has no weighted reel, so there are no stop weights to vary")
        for i, r in weighted:
            total = sum(r.weights)
            groups.append(_Group("stops", i, tuple(range(len(r.weights))), max(1, total // 200),
                                 tuple(1 if w > 0 else 0 for w in r.weights)))
    for name in dict.fromkeys(tables):
        if name not in game.tables:
            hint = difflib.get_close_matches(name, list(game.tables), n=1)
            raise TuningError(f"{where}: --vary table={name}: no table {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                              + f"; tables: {', '.join(game.tables) or 'none'}")
        table = game.tables[name]
        if len(table.weights) < 2:
            raise TuningError(f"{where}: --vary table={name}: a table of one entry has no weight to move")
        groups.append(_Group("table", name, tuple(range(len(table.weights))), max(1, table.total_weight // 200),
                             tuple(1 if w > 0 else 0 for w in table.weights)))
    if strip_set_weights:
        sets = [s for s in game.strip_sets_for(mode)]
        if len(sets) < 2:
            raise TuningError(f"{where}: mode {mode!r} has one strip set, so there is no strip-set weight to move")
        total = sum(s.weight for s in sets)
        groups.append(_Group("sets", mode, tuple(s.name for s in sets), max(1, total // 200),
                             tuple(1 if s.weight > 0 else 0 for s in sets)))
    if not groups:
        raise TuningError(f"{where}: nothing to vary: name symbols, a table, strip-set weights or stop weights")
    return groups


def _default_strip_set(game: Game, mode: str) -> str:
    sets = [s for s in game.strip_sets_for(mode) if s.weight > 0]
    if not sets:
        raise TuningError(f"{game.path or game.name}: no strip set has mode {mode!r} (modes: {', '.join(game.modes)})")
    names = [s.name for s in sets]
    return mode if mode in names else names[0]
