"""One spin's result and the whole cycle, visited outcome by outcome (the exact engines' reference)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

from ..model import Game, Strip, StripSet, rules
from .screens import (Win, _rows, screen, _substitutes, scatter_count)


def spin_result(game: Game, strip_set: StripSet, stops: tuple, heights=None, multipliers=None) -> dict:
    """Everything one spin pays.

    ``heights``: rows shown per reel this spin (None: ``game.rows``).
    ``multipliers``: the multipliers drawn by the visible table-wild cells, a mapping
    ``(reel, row) -> m`` (0-based; other cells count their symbol's ``multiplier``).
    Keys:
    - ``win``: total, credits per bet multiplier (Fraction), rule pays plus scatter groups;
    - ``rule_win``: the rule's part of ``win`` (lines / ways / scatter_pays);
    - ``records``: every :class:`Win` of the rule (lines: in payline order, left side first);
    - ``lines`` (lines games; ``[]`` otherwise): per payline None or ``(target, count, pay)``,
      ``pay`` the line's total paid in line pay unit (multiplied; both_ways: both sides),
      target and count those of its first win;
    - ``line_wins`` (lines games): per payline the tuple of its :class:`Win` records;
    - ``target_wins`` (ways, scatter_pays): the :class:`Win` of each paying target;
    - ``symbol_counts`` (scatter_pays): visible cells per paytable symbol;
    - ``clusters`` (cluster): every cluster, ``(symbol, cells)`` (see :func:`find_clusters`);
    - ``ways`` (ways): the screen's ways, the product of the rows shown;
    - ``scatters``: count per scatter group; ``heights``: the rows shown per reel.
    """
    rows = _rows(game, heights)
    shown = screen(game, strip_set, stops, rows)
    drawn = dict(multipliers or {})
    mults = [[int(drawn.get((i, r), game.symbols[s].multiplier)) for r, s in enumerate(reel)] for i, reel in enumerate(shown)]
    unit = game.bet.line_pay_unit
    out: dict = {"lines": [], "line_wins": [], "heights": tuple(rows)}
    # the rule's own evaluator of a screen (Rule.reference, model.rules): its wins, and what it adds to ``out``
    records = rules.part(game.rule, "reference")(game, shown, mults, rows, out)
    rule_win = sum((game.bet.credits(w.paid, unit) for w in records), Fraction(0))
    total = rule_win
    counts = {}
    for name, group in game.scatters.items():
        counts[name] = scatter_count(game, strip_set, stops, name, rows)
        total += game.bet.credits(group.pay(counts[name]), group.unit)
    out.update({"win": total, "rule_win": rule_win, "records": records, "scatters": counts})
    return out


def reel_outcomes(game: Game, strip_set: StripSet, reel: int) -> list[tuple[int, int, int]]:
    """Every ``(rows, stop, weight)`` of one reel: height weight x stop weight."""
    weights = strip_set.reels[reel].stop_weights.tolist()
    spec = None if game.heights is None else game.heights[reel]
    heights = [(game.rows[reel], 1)] if spec is None else list(spec)
    return [(h, s, hw * weights[s]) for h, hw in heights for s in range(len(weights))]


def multiplier_tables(game: Game) -> dict:
    """Table wild -> ((multiplier, weight), ...): its table with the weights summed per distinct
    multiplier, weight-0 multipliers left out, divided by their greatest common divisor."""
    out = {}
    for name, symbol in game.symbols.items():
        if symbol.kind != "wild" or symbol.multiplier_table is None:
            continue
        table = game.tables[symbol.multiplier_table]
        merged: dict = {}
        for entry, w in zip(table.entries, table.weights):
            merged[int(entry["multiplier"])] = merged.get(int(entry["multiplier"]), 0) + int(w)
        merged = {m: w for m, w in merged.items() if w > 0}
        g = math.gcd(*merged.values())
        out[name] = tuple((m, w // g) for m, w in merged.items())
    return out


def multiplier_assignments(game: Game, strip_set: StripSet, shown: list[list[str]], tables: dict | None = None):
    """Every ``(multipliers, factor)`` of a screen: ``multipliers`` maps each visible table-wild cell
    ``(reel, row)`` to a multiplier, ``factor`` is the product of the chosen weights x T^(rows - j)
    per reel and table wild its strip holds (see "Cycle" above).  A screen without table wilds
    (and a game without them) has one: ``({}, factor)``."""
    tables = multiplier_tables(game) if tables is None else tables
    factor = 1
    cells = []
    for i, reel in enumerate(shown):
        on_strip = set(strip_set.reels[i].symbols)
        for wild, entries in tables.items():
            if wild in on_strip:
                total = sum(w for _, w in entries)
                factor *= total ** (game.rows[i] - sum(1 for s in reel if s == wild))
        cells += [((i, r), tables[s]) for r, s in enumerate(reel) if s in tables]
    for choice in itertools.product(*[entries for _, entries in cells]):
        w = factor
        for m, weight in choice:
            w *= weight
        yield {cell: m for (cell, _), (m, _) in zip(cells, choice)}, w


def combination_key(game: Game, win: Win) -> tuple:
    """How :func:`enumerate_cycle` records a win in ``combinations``.

    - lines, left_to_right / right_to_left: ``(target, count, M)``;
    - lines, both_ways: ``(target, count, M, side)``, side "left" / "right"
      (a full-length win paid once: "left");
    - ways, scatter_pays and cluster: ``(target, count, 1)`` (``count``: the listed
      count paid, for scatter_pays and cluster the band; the ways, multipliers and
      clusters per screen are in the units).
    """
    if game.rule.paylines:
        if game.pays.direction == "both_ways":
            return (win.target, win.count, win.multiplier, win.side)
        return (win.target, win.count, win.multiplier)
    return (win.target, win.count, 1)


def trigger_starts(game: Game, shown: list[list[str]], trigger) -> int:
    """Bonuses a combination trigger starts on a screen: lines games count the paylines whose first
    ``min_count`` reels show the symbol (or a wild substituting for it), at most 1 unless ``per_line``;
    ways games give 1 when each of the first ``min_count`` reels shows it somewhere."""
    symbol, k = trigger.combination, trigger.min_count

    def shows(cell: str) -> bool:
        return cell == symbol or _substitutes(game, cell, symbol)

    if game.rule.paylines:
        fired = sum(all(shows(shown[reel][rows[reel]]) for reel in range(k)) for rows in game.paylines)
        return fired if trigger.per_line else min(fired, 1)
    return int(all(any(shows(cell) for cell in shown[reel]) for reel in range(k)))


def enumerate_cycle(game: Game, strip_set: StripSet) -> dict:
    """Visit every weighted outcome of ``strip_set`` (stops, and heights in a ways game with heights).

    Returns
    - ``wins``: Counter, total win in credits per bet multiplier -> weight;
    - ``combinations``: Counter, :func:`combination_key` -> weight (lines: summed
      over lines, each paying line-side counts once; ways / scatter_pays: the
      weight of the screens where the target pays at that count);
    - ``combination_units``: Counter, the same keys -> total credits paid over
      the cycle (weight x ``pay x multiplier`` in credits);
    - ``line_combinations`` (lines games, else ``[]``): per payline a Counter
      ``(target, count)`` -> weight (both_ways: ``(target, count, side)``),
      the multiplier summed out;
    - ``scatters``: group -> Counter of counts; ``cycle``: total weight;
    - ``triggers``: combination trigger -> ``hits`` (weight of screens starting a
      bonus), ``starts`` (sum of weight x bonuses started), ``starts_sq``
      (weight x bonuses^2) and ``pay_cross`` (weight x bonuses x the screen's
      win, credits).
    """
    wins: Counter = Counter()
    combos: Counter = Counter()
    units: Counter = Counter()
    per_line = [Counter() for _ in game.paylines] if game.rule.paylines else []
    scatters = {name: Counter() for name in game.scatters}
    cycle = 0
    combination_triggers = {n: t for n, t in game.triggers.items() if t.combination is not None}
    triggers = {n: {"hits": 0, "starts": 0, "starts_sq": 0, "pay_cross": Fraction(0)} for n in combination_triggers}
    per_reel = [reel_outcomes(game, strip_set, i) for i in range(len(strip_set.reels))]
    tables = multiplier_tables(game)
    for outcome in itertools.product(*per_reel):
        w_stops = 1
        for _, _, weight in outcome:
            w_stops *= weight
        if w_stops == 0:
            continue
        heights = tuple(h for h, _, _ in outcome)
        stops = tuple(s for _, s, _ in outcome)
        for drawn, factor in multiplier_assignments(game, strip_set, screen(game, strip_set, stops, heights), tables):
            w = w_stops * factor
            if w:
                cycle += w
                _visit(game, strip_set, stops, heights, drawn, w, wins, combos, units, per_line, scatters,
                       combination_triggers, triggers)
    return {"wins": wins, "combinations": combos, "combination_units": units, "line_combinations": per_line,
            "scatters": scatters, "cycle": cycle, "triggers": triggers}


def _visit(game: Game, strip_set: StripSet, stops, heights, drawn, w, wins, combos, units, per_line, scatters,
           combination_triggers, triggers) -> None:
    """Add one weighted screen (stops, heights, drawn table multipliers) to the cycle's counters."""
    unit = game.bet.line_pay_unit
    lines = game.rule.paylines
    both = lines and game.pays.direction == "both_ways"
    result = spin_result(game, strip_set, stops, heights, drawn)
    wins[result["win"]] += w
    for win in result["records"]:
        key = combination_key(game, win)
        combos[key] += w
        units[key] += w * game.bet.credits(win.paid, unit)
        if lines:
            per_line[win.line][(win.target, win.count, win.side) if both else (win.target, win.count)] += w
    for name, c in result["scatters"].items():
        scatters[name][c] += w
    if combination_triggers:
        shown = screen(game, strip_set, stops, heights)
        for name, trig in combination_triggers.items():
            n = trigger_starts(game, shown, trig)
            t = triggers[name]
            t["hits"] += w * (n > 0)
            t["starts"] += w * n
            t["starts_sq"] += w * n * n
            t["pay_cross"] += w * n * result["win"]


def reveal_mixture(game: Game, mode: str) -> list:
    """Every way a spin of ``mode`` can start, for the exact engines' check: (strip set with its mystery symbols
    revealed, probability), one item per strip set with weight and per combination of reveal-table entries (every
    entry on its own, by its weight; each mystery symbol the set holds draws once, the same symbol on every reel) and
    per set of reels its ``wild_reels`` turn wild (each such reel's strip its wild in every row).  Sets without
    either come once, as they are."""
    sets = [s for s in game.strip_sets.values() if s.mode == mode and s.weight > 0]
    set_total = sum(s.weight for s in sets)
    out = []
    for strip_set in sets:
        held = [name for name, sym in game.symbols.items()
                if sym.kind == "mystery" and any(name in strip.symbols for strip in strip_set.reels)]
        tables = [game.tables[game.symbols[name].reveal] for name in held]
        for picks in itertools.product(*(range(len(t.entries)) for t in tables)):
            p = Fraction(strip_set.weight, set_total)
            shows = {}
            for name, table, k in zip(held, tables, picks):
                p *= Fraction(table.weights[k], sum(table.weights))
                shows[name] = table.entries[k]["symbol"]
            reels = [Strip(tuple(shows.get(x, x) for x in strip.symbols), strip.weights) for strip in strip_set.reels]
            for turned, q in _wild_reel_cases(game, strip_set.wild_reels):
                played = [Strip((strip_set.wild_reels.symbol,) * game.rows[r]) if r in turned else s
                          for r, s in enumerate(reels)]
                if p * q:
                    out.append((StripSet(strip_set.name, strip_set.mode, strip_set.weight, tuple(played)), p * q))
    return out


def _wild_reel_cases(game: Game, wild) -> list:
    """Every set of reels ``wild`` (a strip set's ``wild_reels``, or None) turns wild, with its probability."""
    if wild is None:
        return [((), Fraction(1))]
    if wild.chance is not None:
        cases = []
        for flags in itertools.product((False, True), repeat=game.reels):
            q = Fraction(1)
            for r, on in enumerate(flags):
                p = Fraction(wild.chance[r], wild.out_of)
                q *= p if on else 1 - p
            cases.append((tuple(r for r, on in enumerate(flags) if on), q))
        return cases
    table = game.tables[wild.count]
    cases = []
    for entry, w in zip(table.entries, table.weights):
        k = int(entry["reels"])
        for chosen in itertools.combinations(wild.reels, k):
            cases.append((tuple(r - 1 for r in chosen), Fraction(w, sum(table.weights)) / math.comb(len(wild.reels), k)))
    return cases
