"""What a screen shows: windows of the strips, the substitution rule, win multipliers, scatter instances."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from ..model import Game, StripSet


class Win(NamedTuple):
    """One win: ``pay`` (unmultiplied, line pay unit) x ``multiplier`` is what it pays."""

    target: str
    count: int
    multiplier: int
    pay: Fraction
    side: str = ""
    line: int | None = None

    @property
    def paid(self) -> Fraction:
        return Fraction(self.pay) * self.multiplier


def window(strip_symbols: tuple, stop: int, rows: int) -> list[str]:
    n = len(strip_symbols)
    return [strip_symbols[(stop + r) % n] for r in range(rows)]


def _rows(game: Game, heights) -> list[int]:
    return list(game.rows) if heights is None else [int(h) for h in heights]


def screen(game: Game, strip_set: StripSet, stops: tuple, heights=None) -> list[list[str]]:
    """Symbols shown, as a list of reels, each top row first (``heights``: rows per reel)."""
    rows = _rows(game, heights)
    return [window(strip.symbols, stops[i], rows[i]) for i, strip in enumerate(strip_set.reels)]


def _substitutes(game: Game, shown: str, target: str) -> bool:
    return game.substitutes(shown, target)  # the model's substitution rule (Game.substitutes)


def matches(game: Game, shown: str, target: str) -> bool:
    """Whether a cell showing ``shown`` counts for ``target`` (symbol or group): :meth:`Game.counts_for`."""
    return game.counts_for(shown, target)


def _is_wild_target(game: Game, target: str) -> bool:
    return target in game.symbols and game.symbols[target].kind == "wild"


def _listed_count(game: Game, target: str, run: int) -> int:
    """Largest listed count not above ``run`` with a pay > 0 (0: none)."""
    listed = [k for k, p in game.paytable[target].items() if k <= run and p > 0]
    return max(listed) if listed else 0


def win_multiplier(game: Game, shown_symbols, target: str, multipliers=None) -> int:
    """``M`` of a win of ``target`` made of the cells ``shown_symbols``; ``multipliers``: each
    cell's multiplier, in the same order (None: every symbol's own ``multiplier``)."""
    return game.pays.with_feature(_wilds_multiplier(game, shown_symbols, target, multipliers))


def _wilds_multiplier(game: Game, shown_symbols, target: str, multipliers) -> int:
    """The combined multiplier of the win's wilds (``[pays] combine``), 1 without a multiplier wild."""
    if _is_wild_target(game, target) and not game.pays.multiply_wild_only:
        return 1
    if multipliers is None:
        multipliers = [game.symbols[s].multiplier for s in shown_symbols]
    mults = [m for s, m in zip(shown_symbols, multipliers) if game.symbols[s].kind == "wild"]
    if game.pays.combine == "product":
        out = 1
        for m in mults:
            out *= m
        return out
    total = sum(m for m in mults if m > 1)
    return total if total else 1


def _file_order(game: Game) -> dict:
    names = list(game.symbols) + list(game.groups)
    return {name: i for i, name in enumerate(names)}


def instances_on_strip(strip_symbols: tuple, name: str, height: int) -> list[list[int]]:
    """Stops covered by each instance of ``name`` on a circular strip."""
    n = len(strip_symbols)
    positions = [i for i, s in enumerate(strip_symbols) if s == name]
    if height == 1:
        return [[p] for p in positions]
    if len(positions) == n:
        starts = list(range(0, n, height))
    else:
        # walk once around the circle starting right after a different symbol
        begin = next(i for i, s in enumerate(strip_symbols) if s != name) + 1
        starts = []
        run_start = None
        run_length = 0
        for k in range(n + 1):
            i = (begin + k) % n
            if k < n and strip_symbols[i] == name:
                if run_start is None:
                    run_start, run_length = i, 0
                run_length += 1
            elif run_start is not None:
                starts += [(run_start + j * height) % n for j in range(run_length // height)]
                run_start = None
    return [[(s + j) % n for j in range(height)] for s in starts]


def scatter_count(game: Game, strip_set: StripSet, stops: tuple, group_name: str, heights=None) -> int:
    group = game.scatters[group_name]
    rows = _rows(game, heights)
    per_reel = []
    for i, strip in enumerate(strip_set.reels):
        n = len(strip.symbols)
        shown_stops = {(stops[i] + r) % n for r in range(rows[i])}
        count = 0
        for name in group.symbols:
            for covered in instances_on_strip(strip.symbols, name, game.symbols[name].height):
                inside = [s in shown_stops for s in covered]
                if group.visibility == "full":
                    count += all(inside)
                else:
                    count += any(inside)
        per_reel.append(count)
    if group.counting == "anywhere":
        return sum(per_reel)
    total = 0
    for c in per_reel:
        if c == 0:
            break
        total += c
    return total


def paid_wins(game: Game, screen) -> list[tuple[Fraction, frozenset]]:
    """The paid wins of one screen (``screen[reel][row]``: symbol names), each (pay in credits per bet multiplier,
    before multipliers; its cells ``(reel, row)``), by the pay rule's slow reference evaluator of a drop
    (``Rule.reference_drop_wins``); none for a rule without one, or a screen of another shape than the rule reads
    (a held reel, rows that vary)."""
    from ..model import rules

    if getattr(game.rule, "reference_drop_wins", None) is None:
        return []
    try:
        wins = rules.part(game.rule, "reference_drop_wins")(game, [list(reel) for reel in screen])
    except (IndexError, KeyError, ValueError):
        return []
    return [(Fraction(pay), frozenset(cells)) for pay, cells in wins]
