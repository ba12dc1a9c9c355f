"""Edits of a game as functions returning a new, validated game.

An edit is a small tuple (``("strip", set, reel, symbols, weights)``,
``("table_weights", table, weights)``, ``("strip_set_weight", set, weight)``);
the new game records it in ``edits`` so the file layer can rewrite only the
edited values of the original text when saving.  The game it is applied to
is never changed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import Problem, ReelsetError, format_key
from .elements import WeightedTable, freeze
from .strips import Strip, check_strip

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game


def apply_edit(game: "Game", edit: tuple) -> "Game":
    """A new :class:`Game` with ``edit`` applied (validated)."""
    kind = edit[0]
    file = game.path or "<edit>"

    def problem(path: tuple, message: str) -> Problem:
        return Problem(file, format_key(path), message)

    if kind == "strip":
        _, set_name, reel, symbols, weights = edit
        if set_name not in game.strip_sets:
            raise ReelsetError([problem(("strip_sets", set_name), f"no strip set {set_name!r}")])
        if not 1 <= reel <= game.reels:
            raise ReelsetError([problem(("strip_sets", set_name), f"reel {reel} does not exist (1..{game.reels})")])
        if weights is not None and len(weights) != len(symbols):
            raise ReelsetError([problem(("strip_sets", set_name, f"reel{reel}"), f"{len(symbols)} stops but {len(weights)} weights")])
        text = Strip(tuple(symbols), None if weights is None else tuple(int(w) for w in weights)).to_text()
        problems: list[Problem] = []
        path = ("strip_sets", set_name, f"reel{reel}")
        strip = check_strip(text, reel - 1, game.symbols, game.rows, lambda msg, at=None: problems.append(problem(path, msg)),
                            mode=game.strip_sets[set_name].mode)
        if strip is None:
            raise ReelsetError(problems)
        if weights is not None and all(w == 1 for w in strip.weights or ()):
            # keep a weighted strip weighted even when every weight is 1
            strip = Strip(strip.symbols, tuple(weights))
        old = game.strip_sets[set_name]
        reels = list(old.reels)
        reels[reel - 1] = strip
        new_set = replace(old, reels=tuple(reels))
        strip_sets = dict(game.strip_sets)
        strip_sets[set_name] = new_set
        return replace(game, strip_sets=freeze(strip_sets), edits=game.edits + (edit,))
    if kind == "table_weights":
        _, table, weights = edit
        if table not in game.tables:
            raise ReelsetError([problem(("tables", table), f"no table {table!r}")])
        old = game.tables[table]
        if len(weights) != len(old.weights):
            raise ReelsetError([problem(("tables", table), f"{len(weights)} weights for {len(old.weights)} entries")])
        if any(w < 0 for w in weights):
            raise ReelsetError([problem(("tables", table), "negative weight")])
        if sum(weights) == 0:
            raise ReelsetError([problem(("tables", table), "all weights are zero")])
        tables = dict(game.tables)
        tables[table] = WeightedTable(old.name, old.entries, tuple(weights))
        return replace(game, tables=freeze(tables), edits=game.edits + (edit,))
    if kind == "strip_set_weight":
        _, set_name, weight = edit
        if set_name not in game.strip_sets:
            raise ReelsetError([problem(("strip_sets", set_name), f"no strip set {set_name!r}")])
        if weight < 0:
            raise ReelsetError([problem(("strip_sets", set_name, "weight"), "negative weight")])
        old = game.strip_sets[set_name]
        if sum(s.weight for s in game.strip_sets.values() if s.mode == old.mode) - old.weight + weight == 0:
            raise ReelsetError([problem(("strip_sets", set_name, "weight"), f"all strip sets of mode {old.mode!r} would have weight 0")])
        strip_sets = dict(game.strip_sets)
        strip_sets[set_name] = replace(old, weight=weight)
        return replace(game, strip_sets=freeze(strip_sets), edits=game.edits + (edit,))
    raise ValueError(f"unknown edit {kind!r}")
