"""A deliberately slow, obviously correct evaluator of single screens.

It exists only to check the fast exact engine and the simulator: plain
Python, written straight from the rules, sharing no code with them.

Rules implemented (as in docs/reelset-format.md):
- a reel stopped at ``stop`` shows strip positions stop, stop+1, ... (top row
  first), wrapping around the strip;
- on a payline, the run of symbol ``x`` is the number of leading reels showing
  ``x`` or a wild that substitutes for ``x``; the combination is ``x`` with the
  largest paytable count not above the run; the line pays its best combination
  (highest pay, then more symbols, then the symbol listed first);
- a tall symbol instance occupies ``height`` consecutive stops; runs of a tall
  symbol are cut into instances from the run's first stop; a scatter group
  counts instances that are partly (or, for "full", wholly) in the window,
  anywhere or only on adjacent reels from reel 1.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from .model import Game, StripSet


def window(strip_symbols: tuple, stop: int, rows: int) -> list[str]:
    n = len(strip_symbols)
    return [strip_symbols[(stop + r) % n] for r in range(rows)]


def screen(game: Game, strip_set: StripSet, stops: tuple) -> list[list[str]]:
    """Symbols shown, as a list of reels, each top row first."""
    return [window(strip.symbols, stops[i], game.rows[i]) for i, strip in enumerate(strip_set.reels)]


def _substitutes(game: Game, shown: str, target: str) -> bool:
    if shown == target:
        return True
    symbol = game.symbols[shown]
    return symbol.kind == "wild" and target in symbol.substitutes


def line_combination(game: Game, symbols_on_line: list[str]):
    """(symbol, listed count, pay in line pay unit) of the best combination, or None."""
    best = None
    best_key = None
    order = list(game.symbols)
    for target, pays in game.paytable.items():
        run = 0
        for shown in symbols_on_line:
            if _substitutes(game, shown, target):
                run += 1
            else:
                break
        listed = [k for k, p in pays.items() if k <= run and p > 0]
        if not listed:
            continue
        count = max(listed)
        pay = pays[count]
        key = (pay, count, -order.index(target))
        if best_key is None or key > best_key:
            best, best_key = (target, count, pay), key
    return best


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


def scatter_count(game: Game, strip_set: StripSet, stops: tuple, group_name: str) -> int:
    group = game.scatters[group_name]
    per_reel = []
    for i, strip in enumerate(strip_set.reels):
        n = len(strip.symbols)
        shown_stops = {(stops[i] + r) % n for r in range(game.rows[i])}
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


def spin_result(game: Game, strip_set: StripSet, stops: tuple) -> dict:
    """Everything one spin pays: ``win`` (credits per bet multiplier, Fraction),
    ``lines`` (list of combination per line or None), ``scatters`` (counts)."""
    shown = screen(game, strip_set, stops)
    total = Fraction(0)
    combos = []
    for rows in game.paylines:
        combo = line_combination(game, [shown[reel][row] for reel, row in enumerate(rows)])
        combos.append(combo)
        if combo is not None:
            total += game.bet.credits(combo[2], game.bet.line_pay_unit)
    counts = {}
    for name, group in game.scatters.items():
        counts[name] = scatter_count(game, strip_set, stops, name)
        total += game.bet.credits(group.pay(counts[name]), group.unit)
    return {"win": total, "lines": combos, "scatters": counts}


def enumerate_cycle(game: Game, strip_set: StripSet) -> dict:
    """Visit every stop combination of ``strip_set`` (weighted).

    Returns ``wins`` (Counter: win in credits -> weight), ``combinations``
    (Counter: (symbol, count) -> weight summed over lines), ``line_combinations``
    (list per line of Counters), ``scatters`` (group -> Counter of counts) and
    ``cycle``.
    """
    wins: Counter = Counter()
    combos: Counter = Counter()
    per_line = [Counter() for _ in game.paylines]
    scatters = {name: Counter() for name in game.scatters}
    cycle = 0
    weights = [strip.stop_weights.tolist() for strip in strip_set.reels]
    for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
        w = 1
        for i, s in enumerate(stops):
            w *= weights[i][s]
        if w == 0:
            continue
        cycle += w
        result = spin_result(game, strip_set, stops)
        wins[result["win"]] += w
        for l, combo in enumerate(result["lines"]):
            if combo is not None:
                combos[combo[:2]] += w
                per_line[l][combo[:2]] += w
        for name, c in result["scatters"].items():
            scatters[name][c] += w
    return {"wins": wins, "combinations": combos, "line_combinations": per_line, "scatters": scatters, "cycle": cycle}
