"""A deliberately slow, obviously correct evaluator of single screens.

It exists only to check the fast exact engines and the simulator: plain
Python, written straight from the rules, sharing no code with them (it
imports :mod:`workbench.model` only).  Every win is built by looking at the
screen cell by cell; ways are enumerated one by one, never counted by a
formula.

Screens
-------
- A reel stopped at ``stop`` shows strip positions stop, stop+1, ... (top row
  first), wrapping around the strip.  It shows ``game.rows[i]`` rows, or, in a
  ways game with ``game.heights``, the ``h`` rows drawn for it this spin
  (stops stop..stop+h-1).
- Pays are in the line pay unit (``game.bet.line_pay_unit``) and become
  credits per bet multiplier with ``game.bet.credits``.

Matching (lines and ways)
-------------------------
A *target* is a paytable entry: a symbol (regular or wild) or a group
(``game.groups``).  A shown symbol matches
- a regular target ``x``: if it is ``x`` or a wild whose ``substitutes``
  contain ``x``;
- a group target: if it is a member, or a wild substituting for at least one
  member;
- a wild target ``w``: only if it is ``w`` itself (a wild's own run counts
  only that wild).
A target's *combination* for a run ``r`` is ``(target, k)``, ``k`` the largest
listed count not above ``r`` with a pay > 0 (none: no win).

Multipliers
-----------
Multiplier wilds are wilds with ``Symbol.multiplier > 1``.  The multiplier
``M`` of a win (a line's first ``k`` symbols, or one way through reels 1..k):
- ``combine = "product"``: the product of the multipliers of the wilds in it
  (plain symbols and plain wilds count 1);
- ``combine = "sum"``: the sum of the multipliers of the multiplier wilds in
  it, or 1 if it holds none.
A win of a wild target (the wild's own paytable entry) has ``M = 1`` unless
``multiply_wild_only`` is true.  A win of a regular target or group made
only of wilds is a win of that target: it is multiplied.

A wild whose ``multiplier`` names a table (``Symbol.multiplier_table``) draws,
on every visible cell showing it, its own multiplier from the table each spin;
:func:`spin_result` takes the drawn multipliers as ``multipliers`` (cell ->
m; a table-wild cell without one counts ``Symbol.multiplier``, 1), and a cell
that drew m is a wild of multiplier m in every rule above (it is still that
wild for the wild's own paytable entry).

Rule "lines"
------------
- left_to_right: every target's run is the number of leading symbols of the
  line matching it; its candidate is ``(t, k)`` paying ``pay(t, k) x M``.  The
  line pays its best candidate: the highest multiplied pay, then more symbols,
  then a symbol before a group, then file order (symbols in ``[symbols]``
  order, then groups in ``[groups]`` order).
- right_to_left: the same, reading the line from the last reel to the first.
- both_ways: the best left_to_right win plus the best right_to_left win;
  when both are the same full-length combination (count == reels) it is paid
  once.
- The spin pays the sum over all paylines.

Rule "ways"
-----------
For every paying target ``t`` (symbols and groups, wilds included),
independently of the others: its run ``r`` is the number of leading reels
(from reel 1) showing at least one cell matching ``t``; ``k`` as above; if
``k > 0`` it pays ``pay(t, k) x W``, where ``W`` is the sum, over every way
through reels 1..k (one matching cell per reel), of the way's multiplier ``M``
(so without multiplier wilds ``W`` is the plain number of ways, the product of
the matching cells per reel).  A wild cell counts for every target it
substitutes for.  Each visible cell is one position (a tall symbol's visible
rows are separate positions).

Rule "scatter_pays"
-------------------
For every paytable symbol ``x``: its count is the number of visible cells
showing ``x`` anywhere on the screen; it pays ``pay_for_count(paytable[x],
count)`` (the band of the largest listed count not above the count; none
below the lowest).  No wilds, no groups.

Rule "cluster"
--------------
Cells (reel, row) and (reel, row +- 1), (reel +- 1, row) are neighbours.  For
every paytable symbol ``x`` that is not a wild: a cluster of ``x`` is a set of
cells, each showing ``x`` or a wild, connected through neighbours, holding at
least one ``x``, and as large as it can be (found by breadth-first search from
each ``x`` cell not yet in a cluster of ``x``).  It pays ``pay_for_count(
paytable[x], size)``; every cluster pays on its own, a wild cell counts in
every cluster it touches, and a group of wilds only is no cluster.  An empty
cell (``None``) joins nothing.  The records are one :class:`Win` per paying
(symbol, band): ``multiplier`` is how many clusters of that band the screen
holds.

Scatter groups ([scatters.*])
-----------------------------
Added to every rule.  A tall symbol instance occupies ``height`` consecutive
stops; runs of a tall symbol are cut into instances from the run's first
stop; a group counts instances that are partly (or, for "full", wholly) in
the window (the reel's rows this spin), anywhere or only on adjacent reels
from reel 1; it pays ``group.pay(count)`` in ``group.unit``.

Records
-------
A win is a :class:`Win` ``(target, count, multiplier, pay, side, line)``:
``pay`` is the paytable pay ``pay(target, count)`` unmultiplied (line pay
unit), ``multiplier`` is ``M`` for lines, ``W`` (ways weighted by their
multipliers) for ways, 1 for scatter_pays, the number of clusters for cluster; the amount paid is ``pay x
multiplier`` (:attr:`Win.paid`).  ``count`` is the listed count paid (for
scatter_pays the band, the symbol's real count is in ``symbol_counts``).
``side`` is "" for left_to_right lines, ways and scatter_pays, "right" for
right_to_left lines, "left"/"right" for the two sides of a both_ways line (a
full-length win paid once is "left").  ``line`` is the payline index (lines)
or None.

Cycle
-----
:func:`enumerate_cycle` visits every stop combination; in a ways game with
heights, every (height, stop) pair of every reel, weighing height weight x
stop weight (a reel without heights shows its ``rows`` with weight 1).

With table wilds it also visits, for every stop combination, every
assignment of a table entry to each visible table-wild cell.  Each table is
taken with its weights summed per distinct multiplier, weight-0 multipliers
left out, and divided by their greatest common divisor (the same
probabilities; T is the total of these weights).  An assignment weighs the
stop combination's weight x the product of the chosen weights x, for every
reel and every table wild its strip holds, T^(rows - j) (rows: the reel's
``game.rows``, also with heights; j: the reel's visible cells showing that
wild).  So every stop combination weighs its stop weights x T^rows per
(reel, table wild on its strip), whatever it shows, and the cycle is the
product over reels of strip total x those factors: the exact engines' cycle.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from typing import NamedTuple

from .model import Game, StripSet


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


# -- screens ----------------------------------------------------------------


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
    if shown == target:
        return True
    symbol = game.symbols[shown]
    return symbol.kind == "wild" and target in symbol.substitutes


def matches(game: Game, shown: str, target: str) -> bool:
    """Whether a cell showing ``shown`` counts for ``target`` (symbol or group)."""
    if target in game.groups:
        members = game.groups[target]
        if shown in members:
            return True
        symbol = game.symbols[shown]
        return symbol.kind == "wild" and any(m in symbol.substitutes for m in members)
    if game.symbols[target].kind == "wild":
        return shown == target
    return _substitutes(game, shown, target)


def _is_wild_target(game: Game, target: str) -> bool:
    return target in game.symbols and game.symbols[target].kind == "wild"


def _listed_count(game: Game, target: str, run: int) -> int:
    """Largest listed count not above ``run`` with a pay > 0 (0: none)."""
    listed = [k for k, p in game.paytable[target].items() if k <= run and p > 0]
    return max(listed) if listed else 0


def win_multiplier(game: Game, shown_symbols, target: str, multipliers=None) -> int:
    """``M`` of a win of ``target`` made of the cells ``shown_symbols``; ``multipliers``: each
    cell's multiplier, in the same order (None: every symbol's own ``multiplier``)."""
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


# -- lines ------------------------------------------------------------------


def line_win(game: Game, symbols_on_line: list[str], side: str = "", line: int | None = None,
             multipliers=None) -> Win | None:
    """The best win of a line read in the order given (first symbol = first reel read), or None
    (``multipliers``: each cell's multiplier, in the same order; None: the symbols' own)."""
    order = _file_order(game)
    best = None
    best_key = None
    for target in game.paytable:
        run = 0
        for shown in symbols_on_line:
            if matches(game, shown, target):
                run += 1
            else:
                break
        count = _listed_count(game, target, run)
        if count == 0:
            continue
        pay = game.paytable[target][count]
        m = win_multiplier(game, symbols_on_line[:count], target, None if multipliers is None else multipliers[:count])
        key = (pay * m, count, target in game.symbols, -order[target])
        if best_key is None or key > best_key:
            best, best_key = Win(target, count, m, pay, side, line), key
    return best


def line_combination(game: Game, symbols_on_line: list[str]):
    """(target, listed count, pay paid in line pay unit) of the best left-to-right win, or None.

    The pay is the multiplied pay (``pay x M``); without multiplier wilds it is
    the paytable pay.
    """
    win = line_win(game, symbols_on_line)
    return None if win is None else (win.target, win.count, win.paid)


def line_wins(game: Game, symbols_on_line: list[str], line: int | None = None, multipliers=None) -> tuple:
    """Every win of one payline under ``game.pays.direction`` (0, 1 or 2 :class:`Win`);
    ``multipliers``: each cell's multiplier, reel by reel (None: the symbols' own)."""
    direction = game.pays.direction
    if direction == "left_to_right":
        win = line_win(game, symbols_on_line, "", line, multipliers)
        return () if win is None else (win,)
    reverse = list(reversed(symbols_on_line))
    reverse_m = None if multipliers is None else list(reversed(multipliers))
    if direction == "right_to_left":
        win = line_win(game, reverse, "right", line, reverse_m)
        return () if win is None else (win,)
    left = line_win(game, symbols_on_line, "left", line, multipliers)
    right = line_win(game, reverse, "right", line, reverse_m)
    if (left is not None and right is not None and left.count == len(symbols_on_line)
            and (left.target, left.count, left.multiplier) == (right.target, right.count, right.multiplier)):
        return (left,)
    return tuple(w for w in (left, right) if w is not None)


# -- ways -------------------------------------------------------------------


def ways_count(game: Game, shown: list[list[str]], target: str, multipliers=None) -> tuple[int, int, int, int]:
    """``(run, k, ways, W)`` of ``target`` on a screen, by enumerating every way.

    ``ways`` is the plain number of ways through reels 1..k, ``W`` the sum of
    their multipliers (both 0 when ``k == 0``).  ``multipliers[reel][row]``: each
    cell's multiplier (None: the symbols' own).
    """
    if multipliers is None:
        multipliers = [[game.symbols[s].multiplier for s in reel] for reel in shown]
    run = 0
    for reel in shown:
        if any(matches(game, s, target) for s in reel):
            run += 1
        else:
            break
    k = _listed_count(game, target, run)
    if k == 0:
        return run, 0, 0, 0
    cells = [[(s, m) for s, m in zip(shown[i], multipliers[i]) if matches(game, s, target)] for i in range(k)]
    ways = 0
    total = 0
    for way in itertools.product(*cells):
        ways += 1
        total += win_multiplier(game, [s for s, _ in way], target, [m for _, m in way])
    return run, k, ways, total


def ways_wins(game: Game, shown: list[list[str]], multipliers=None) -> list[Win]:
    out = []
    for target, pays in game.paytable.items():
        _, k, _, w = ways_count(game, shown, target, multipliers)
        if k:
            out.append(Win(target, k, w, pays[k]))
    return out


# -- scatter pays -----------------------------------------------------------


def symbol_counts(game: Game, shown: list[list[str]]) -> dict:
    """Visible cells showing each paytable symbol."""
    return {x: sum(s == x for reel in shown for s in reel) for x in game.paytable}


def scatter_pays_wins(game: Game, shown: list[list[str]]) -> list[Win]:
    out = []
    for x, count in symbol_counts(game, shown).items():
        band = 0
        for k in game.paytable[x]:
            if band < k <= count:
                band = k
        if band and game.paytable[x][band] > 0:
            out.append(Win(x, band, 1, game.paytable[x][band]))
    return out


# -- cluster pays -----------------------------------------------------------


def find_clusters(game: Game, shown: list) -> list[tuple[str, frozenset]]:
    """Every cluster of every paytable symbol that is not a wild: ``(symbol, cells)``, cells as
    ``(reel, row)``; ``shown[reel][row]`` is a symbol name or None (an empty cell)."""
    out = []
    for x in game.paytable:
        if game.symbols[x].kind == "wild":
            continue

        def joins(cell) -> bool:
            name = shown[cell[0]][cell[1]]
            return name is not None and (name == x or game.symbols[name].kind == "wild")

        done: set = set()
        for reel, column in enumerate(shown):
            for row, name in enumerate(column):
                if name != x or (reel, row) in done:
                    continue
                cluster = {(reel, row)}
                queue = [(reel, row)]
                while queue:
                    r, k = queue.pop(0)
                    for nr, nk in ((r, k - 1), (r, k + 1), (r - 1, k), (r + 1, k)):
                        if 0 <= nr < len(shown) and 0 <= nk < len(shown[nr]) and (nr, nk) not in cluster \
                                and joins((nr, nk)):
                            cluster.add((nr, nk))
                            queue.append((nr, nk))
                done |= {c for c in cluster if shown[c[0]][c[1]] == x}
                out.append((x, frozenset(cluster)))
    return out


def cluster_band(game: Game, symbol: str, size: int) -> int:
    """The listed size a cluster of ``size`` cells of ``symbol`` pays (the largest not above it), or 0."""
    band = 0
    for k in game.paytable[symbol]:
        if band < k <= size:
            band = k
    return band if band and game.paytable[symbol][band] > 0 else 0


def cluster_screen(game: Game, shown: list) -> tuple[Fraction, set]:
    """(pay of the screen's clusters in line pay unit, the cells of the paying clusters) of a screen of
    names or None (empty cells)."""
    total = Fraction(0)
    cells: set = set()
    for x, cluster in find_clusters(game, shown):
        band = cluster_band(game, x, len(cluster))
        if band:
            total += game.paytable[x][band]
            cells |= cluster
    return total, cells


def cluster_wins(game: Game, shown: list) -> list[Win]:
    """One :class:`Win` per paying (symbol, band), ``multiplier`` = its clusters on the screen."""
    found: Counter = Counter()
    for x, cluster in find_clusters(game, shown):
        band = cluster_band(game, x, len(cluster))
        if band:
            found[(x, band)] += 1
    return [Win(x, band, n, game.paytable[x][band]) for (x, band), n in found.items()]


# -- scatter groups ---------------------------------------------------------


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


# -- one spin ---------------------------------------------------------------


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
    rule = game.pays.rule
    if rule == "lines":
        records = []
        for l, line_rows in enumerate(game.paylines):
            wins = line_wins(game, [shown[reel][row] for reel, row in enumerate(line_rows)], l,
                             [mults[reel][row] for reel, row in enumerate(line_rows)])
            out["line_wins"].append(wins)
            records.extend(wins)
            if wins:
                out["lines"].append((wins[0].target, wins[0].count, sum(w.paid for w in wins)))
            else:
                out["lines"].append(None)
    elif rule == "ways":
        records = ways_wins(game, shown, mults)
        out["target_wins"] = records
        ways = 1
        for r in rows:
            ways *= r
        out["ways"] = ways
    elif rule == "scatter_pays":
        records = scatter_pays_wins(game, shown)
        out["target_wins"] = records
        out["symbol_counts"] = symbol_counts(game, shown)
    elif rule == "cluster":
        records = cluster_wins(game, shown)
        out["target_wins"] = records
        out["clusters"] = find_clusters(game, shown)
    else:  # pragma: no cover - the schema refuses other rules
        raise ValueError(f"unknown pay rule {rule!r}")
    rule_win = sum((game.bet.credits(w.paid, unit) for w in records), Fraction(0))
    total = rule_win
    counts = {}
    for name, group in game.scatters.items():
        counts[name] = scatter_count(game, strip_set, stops, name, rows)
        total += game.bet.credits(group.pay(counts[name]), group.unit)
    out.update({"win": total, "rule_win": rule_win, "records": records, "scatters": counts})
    return out


# -- the whole cycle --------------------------------------------------------


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
    if game.pays.rule == "lines":
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

    if game.pays.rule == "lines":
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
    per_line = [Counter() for _ in game.paylines] if game.pays.rule == "lines" else []
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
    lines = game.pays.rule == "lines"
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


# -- declared features (the free_spins and hold_and_respin templates), played slowly ---------------


def _pick(rng, weights) -> int:
    """An index drawn with probability proportional to ``weights`` (Python's ``random.Random``)."""
    return rng.choices(range(len(weights)), weights=weights)[0]


def _spins_for(spins: dict, count: int) -> int:
    """A ``{count: spins}`` map read as the free_spins template reads it: the largest key not above ``count``."""
    by_count = {int(k): int(v) for k, v in spins.items()}
    keys = [k for k in by_count if k <= count]
    return by_count[max(keys)] if keys else 0


def _feature_spins(game: Game, key: str, count: int, rng) -> int:
    """Spins for ``count`` scatters as docs/reelset-format.md says: ``[features] key`` (``free_spins`` /
    ``retrigger``) by count, or drawn by weight from the table ``key_table`` names among its entries for the count
    (those whose ``count`` is the largest not above it, or every entry when none has a ``count``)."""
    f = game.features
    if key in f:
        return _spins_for(f[key], count)
    table = game.tables[f[f"{key}_table"]]
    rows = list(zip(table.entries, table.weights))
    counts = [int(e["count"]) for e, _ in rows if "count" in e]
    if counts:
        below = [c for c in counts if c <= count]
        if not below:
            return 0
        rows = [(e, w) for e, w in rows if int(e["count"]) == max(below)]
    if sum(w for _, w in rows) == 0:
        return 0
    return int(rows[_pick(rng, [w for _, w in rows])][0]["spins"])


def free_spins_feature(game: Game, count: int, rng) -> Fraction:
    """One free-spins feature of a ``free_spins`` lines game started by ``count`` scatters, played screen by screen
    with ``rng`` (a ``random.Random``): what it pays, credits per bet multiplier (cap and minimum applied).

    Straight from docs/reelset-format.md: spins by count (at most ``max_free_spins``), each free spin on a strip set
    of ``free_spins_mode`` chosen by weight, stops by stop weight; the wilds (sticky / expanding / walking) put on
    the screen; every payline and scatter group paid on the final screen x the multiplier; the multiplier grows;
    retriggers add spins; the cap ends the feature.
    """
    f = game.features
    limit = int(f.get("max_free_spins", 10_000))
    trigger = game.triggers[f["trigger"]]
    left = awarded = min(_feature_spins(game, "free_spins", count, rng), limit)
    mult = int(f.get("multiplier", 1))
    growth = f.get("multiplier_growth", "none")
    step = int(f.get("multiplier_step", 1))
    top = int(f.get("max_multiplier", 10_000))
    wilds = f.get("free_spins_wilds", "none")
    wild = f.get("wild_symbol")
    cost = game.bet.cost
    cap = Fraction(str(f["feature_cap"])) * cost if "feature_cap" in f else None
    sets = [s for s in game.strip_sets.values() if s.mode == f["free_spins_mode"] and s.weight > 0]
    held: set = set()
    win = Fraction(0)
    while left > 0:
        left -= 1
        strip_set = sets[_pick(rng, [s.weight for s in sets])]
        stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
        shown = screen(game, strip_set, stops)
        landed = {(r, row) for r, reel in enumerate(shown) for row, sym in enumerate(reel) if sym == wild}
        if wilds == "expanding":
            for r in {r for r, _ in landed}:
                shown[r] = [wild] * len(shown[r])
        for r, row in held:
            shown[r][row] = wild
        spin = Fraction(0)
        for l, line_rows in enumerate(game.paylines):
            for w in line_wins(game, [shown[reel][row] for reel, row in enumerate(line_rows)], l):
                spin += game.bet.credits(w.paid, game.bet.line_pay_unit)
        shown_count = 0
        for name, group in game.scatters.items():
            n = _count_on_screen(shown, group)
            spin += game.bet.credits(group.pay(n), group.unit)
            if name == trigger.scatter:
                shown_count = n
        win += spin * mult
        if growth == "per_spin" or (growth == "per_win" and spin > 0):
            mult = min(mult + step, top)
        if wilds == "sticky":
            held |= landed
        elif wilds == "walking":
            held = {(r - 1, row) for r, row in held | landed if r >= 1}
        if shown_count >= trigger.min_count and ("retrigger" in f or "retrigger_table" in f):
            extra = _feature_spins(game, "retrigger", shown_count, rng)
            new = min(awarded + extra, limit)
            left += new - awarded
            awarded = new
        if cap is not None and win >= cap:
            break
    if cap is not None:
        win = min(win, cap)
    return max(win, Fraction(str(f.get("min_feature_win", 0))) * cost)


def _count_on_screen(shown: list[list[str]], group) -> int:
    """Instances of a scatter group on an explicit screen of one-row symbols (anywhere, or adjacent from reel 1)."""
    per_reel = [sum(sym in group.symbols for sym in reel) for reel in shown]
    if group.counting != "adjacent_from_first_reel":
        return sum(per_reel)
    total = 0
    for n in per_reel:
        if n == 0:
            break
        total += n
    return total


def hold_and_respin_feature(game: Game, coins: int, rng) -> dict[str, Fraction]:
    """One hold-and-respin feature of a ``hold_and_respin`` game started by ``coins`` coins, played cell by cell
    with ``rng`` (a ``random.Random``): what it pays by component, credits per bet multiplier.

    Straight from docs/reelset-format.md: the screen is a list of cells; every coin drawn from ``coin_values``
    (value x total bet, jackpot, collector, multiplier) sticks in a cell; the coins of one landing (the starting
    screen, or one respin) are placed first, then each collector among them takes the sum of the value coins now on
    the screen; on a respin each empty cell lands a coin with weight ``respin_coin_weight`` against
    ``respin_blank_weight``; a landing resets the respins; at the end the value coins and the collectors' amounts
    are multiplied by the product of the multiplier coins (at most 10,000); a full screen adds ``grand``.
    Components: ``coins``, ``coins:collected``, ``coins:multiplied``, ``jackpot:<name>`` (0 when nothing was paid).
    """
    f = game.features
    cost = game.bet.cost
    table = game.tables[f["coin_values"]]
    cells: list = [None] * sum(game.rows)  # None: empty; else (kind, amount in credits or multiplier)
    paid: dict[str, Fraction] = {"coins": Fraction(0), "coins:collected": Fraction(0), "coins:multiplied": Fraction(0)}

    def land(places: list[int]) -> None:
        batch = []
        for cell in places:
            entry = table.entries[_pick(rng, list(table.weights))]
            if "value" in entry:
                cells[cell] = ("value", Fraction(str(entry["value"])) * cost)
            elif "jackpot" in entry:
                cells[cell] = ("jackpot", entry["jackpot"])
                key = f"jackpot:{entry['jackpot']}"
                paid[key] = paid.get(key, Fraction(0)) + Fraction(str(f[entry["jackpot"]])) * cost
            elif "multiplier" in entry:
                cells[cell] = ("multiplier", int(entry["multiplier"]))
            else:
                batch.append(cell)
        for cell in batch:  # collectors after the other coins of their landing
            cells[cell] = ("collector", sum(c[1] for c in cells if c is not None and c[0] == "value"))

    land(list(range(coins)))
    left = int(f.get("respins", 3))
    land_weights = [int(f["respin_coin_weight"]), int(f["respin_blank_weight"])]
    while left > 0 and None in cells:
        empty = [i for i, c in enumerate(cells) if c is None]
        new = [i for i in empty if _pick(rng, land_weights) == 0]
        if new:
            land(new)
            left = int(f.get("respins", 3))
        else:
            left -= 1
    paid["coins"] = sum((c[1] for c in cells if c is not None and c[0] == "value"), Fraction(0))
    paid["coins:collected"] = sum((c[1] for c in cells if c is not None and c[0] == "collector"), Fraction(0))
    product = 1
    for c in cells:
        if c is not None and c[0] == "multiplier":
            product *= c[1]
    paid["coins:multiplied"] = (min(product, 10_000) - 1) * (paid["coins"] + paid["coins:collected"])
    if None not in cells and "grand" in f:
        paid["jackpot:grand"] = Fraction(str(f["grand"])) * cost
    return paid


# -- tumbles (the ``tumble`` round template) --------------------------------


def drop_wins(game: Game, shown: list) -> tuple[Fraction, set]:
    """What one drop pays by the pay rule (credits per bet multiplier, x1) and the cells of its paid wins.

    ``shown[reel][row]``: symbol names.  Cells removed (as ``(reel, row)``): lines, the first ``count`` cells of
    the line of every paid win (left to right); ways, the cells matching the target on the first ``count`` reels;
    scatter_pays, every cell showing a paid symbol; cluster, every cell of a paid cluster (wilds included).
    """
    unit = game.bet.line_pay_unit
    rule = game.pays.rule
    pay = Fraction(0)
    cells: set = set()
    if rule == "lines":
        for l, line_rows in enumerate(game.paylines):
            win = line_win(game, [shown[reel][row] for reel, row in enumerate(line_rows)], "", l)
            if win is not None and win.pay > 0:
                pay += game.bet.credits(win.paid, unit)
                cells |= {(reel, line_rows[reel]) for reel in range(win.count)}
    elif rule == "ways":
        for target, pays in game.paytable.items():
            _, k, ways, _ = ways_count(game, shown, target)
            if k and pays[k] > 0:
                pay += game.bet.credits(pays[k] * ways, unit)
                cells |= {(reel, row) for reel in range(k) for row, s in enumerate(shown[reel]) if matches(game, s, target)}
    elif rule == "scatter_pays":
        for win in scatter_pays_wins(game, shown):
            pay += game.bet.credits(win.paid, unit)
            cells |= {(reel, row) for reel, column in enumerate(shown) for row, s in enumerate(column) if s == win.target}
    elif rule == "cluster":
        for symbol, cluster in find_clusters(game, shown):
            band = cluster_band(game, symbol, len(cluster))
            if band:
                pay += game.bet.credits(game.paytable[symbol][band], unit)
                cells |= set(cluster)
    else:
        raise ValueError(f"no tumble reference for rule {rule!r}")
    return pay, cells


def tumble_chain(game: Game, strip_set: StripSet, stops: tuple, ladder: list, refill=None,
                 draw=None, step0: int = 0) -> tuple[Fraction, Fraction, int, int]:
    """One tumbling spin from ``stops``, as docs/reelset-format.md describes the ``tumble`` round: (first drop's
    pay at x1, the chain's pay with the cascade ladder, the total of the multiplier symbols on the final screen if
    the chain won, else 0; the ladder position of its last paying drop), pays in credits per bet multiplier; the first
    drop pays x ``ladder[step0]`` (0 but for free spins whose ladder carries on).  The removed cells' symbols fall; new ones continue
    each reel's strip above the window, or with ``refill = (strip_set, stops)`` that strip set's reels from those
    stops upward.  ``draw()`` gives the value of a multiplier symbol (``[features] multiplier_symbol``) that lands.
    """
    bomb = game.features.get("multiplier_symbol")
    shown = screen(game, strip_set, stops)
    values = [[draw() if s == bomb else 0 for s in column] for column in shown]
    source, tops = (strip_set, [s - 1 for s in stops]) if refill is None else (refill[0], list(refill[1]))
    first, cells = drop_wins(game, shown)
    paid = first * ladder[min(step0, len(ladder) - 1)]
    step = step0
    cascades = 0
    win = first
    limit = int(game.features.get("max_cascades", 1000))
    while win > 0 and cascades < limit:
        for reel, column in enumerate(shown):
            kept = [(s, v) for row, (s, v) in enumerate(zip(column, values[reel])) if (reel, row) not in cells]
            strip = source.reels[reel].symbols
            new = []
            for _ in range(len(column) - len(kept)):
                symbol = strip[tops[reel] % len(strip)]
                new.insert(0, (symbol, draw() if symbol == bomb else 0))
                tops[reel] -= 1
            shown[reel] = [s for s, _ in new + kept]
            values[reel] = [v for _, v in new + kept]
        win, cells = drop_wins(game, shown)
        cascades += 1
        if win > 0:
            step += 1
            paid += win * ladder[min(step, len(ladder) - 1)]
    return first, paid, (sum(map(sum, values)) if paid > 0 else 0), step


def tumble_round(game: Game, rng) -> dict:
    """One round of a ``tumble`` game played cell by cell with ``rng`` (a ``random.Random``): what it pays by
    component (``first``: the first drop at x1 with its scatter pays, ``tumble``, ``free_spins``), credits per bet
    multiplier.  A bought bet mode plays the free spins of its ``buy_count`` only.
    """
    f = game.features
    table = game.tables[f["multiplier_values"]] if "multiplier_values" in f else None

    def draw() -> int:
        return int(table.entries[_pick(rng, table.weights)]["value"])

    def spin(mode: str, ladder: list, step0: int = 0) -> tuple:
        sets = [s for s in game.strip_sets.values() if s.mode == mode and s.weight > 0]
        strip_set = sets[_pick(rng, [s.weight for s in sets])]
        stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
        refill = None
        if "refill_mode" in f:
            rsets = [s for s in game.strip_sets.values() if s.mode == f["refill_mode"] and s.weight > 0]
            rset = rsets[_pick(rng, [s.weight for s in rsets])]
            refill = (rset, tuple(_pick(rng, strip.stop_weights) for strip in rset.reels))
        shown = screen(game, strip_set, stops)
        scatter = Fraction(0)
        count = 0
        for name, group in game.scatters.items():
            n = _count_on_screen(shown, group)
            scatter += game.bet.credits(group.pay(n), group.unit)
            if "trigger" in f and name == game.triggers[f["trigger"]].scatter:
                count = n
        first, paid, m, step = tumble_chain(game, strip_set, stops, ladder, refill, draw, step0)
        return first, paid, m, scatter, count, step

    out = {"first": Fraction(0), "tumble": Fraction(0), "free_spins": Fraction(0)}
    base_ladder = list(f.get("cascade_multipliers", [1]))
    count = 0
    if game.bet_mode.buy:
        count = game.bet_mode.buy_count
    else:
        first, paid, m, scatter, count, _ = spin("base", base_ladder)
        paid = paid * m if m else paid
        out["first"] = first + scatter
        out["tumble"] = paid - first
    trigger = game.triggers[f["trigger"]] if "trigger" in f else None
    if trigger is None or count < trigger.min_count:
        return out
    limit = int(f.get("max_free_spins", 10_000))
    left = awarded = min(_spins_for(f["free_spins"], count), limit)
    ladder = list(f.get("free_spins_cascade_multipliers", base_ladder))
    feature_m = 0
    step = 0
    while left > 0:
        left -= 1
        _, paid, m, scatter, count, reached = spin(f["free_spins_mode"], ladder, step)
        if f.get("free_spins_ladder_carries", False):
            step = reached + 1 if paid > 0 else reached
        if m and f.get("persistent_multiplier", True):
            feature_m += m
            paid *= feature_m
        elif m:
            paid *= m
        out["free_spins"] += paid + scatter
        if count >= trigger.min_count and "retrigger" in f:
            new = min(awarded + _spins_for(f["retrigger"], count), limit)
            left += new - awarded
            awarded = new
    return out
