"""Each pay rule's slow evaluator of a screen (lines, ways, pay anywhere, clusters) and of a tumble's drop."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

from ..model import Game
from .screens import (Win, matches, _listed_count, win_multiplier, _file_order)


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
        chosen_by = pay if game.pays.line_win == "before_multipliers" else pay * m  # [pays] line_win
        key = (chosen_by, count, target in game.symbols, -order[target])
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


# -- each pay rule's evaluator of a screen (Rule.reference and Rule.reference_drop, model.rules) -----------
def lines_spin_wins(game: Game, shown: list, mults: list, rows: list, out: dict) -> list:
    """Every payline's wins (``out``: ``line_wins``, ``lines``)."""
    records = []
    for l, line_rows in enumerate(game.paylines):
        wins = line_wins(game, [shown[reel][row] for reel, row in enumerate(line_rows)], l,
                         [mults[reel][row] for reel, row in enumerate(line_rows)])
        out["line_wins"].append(wins)
        records.extend(wins)
        out["lines"].append((wins[0].target, wins[0].count, sum(w.paid for w in wins)) if wins else None)
    return records


def ways_spin_wins(game: Game, shown: list, mults: list, rows: list, out: dict) -> list:
    """Every target's ways win (``out``: ``target_wins``, ``ways``: the screen's ways)."""
    records = ways_wins(game, shown, mults)
    out["target_wins"] = records
    ways = 1
    for r in rows:
        ways *= r
    out["ways"] = ways
    return records


def anywhere_spin_wins(game: Game, shown: list, mults: list, rows: list, out: dict) -> list:
    """Every symbol's count anywhere (``out``: ``target_wins``, ``symbol_counts``)."""
    records = scatter_pays_wins(game, shown)
    out["target_wins"] = records
    out["symbol_counts"] = symbol_counts(game, shown)
    return records


def cluster_spin_wins(game: Game, shown: list, mults: list, rows: list, out: dict) -> list:
    """Every cluster's win (``out``: ``target_wins``, ``clusters``)."""
    records = cluster_wins(game, shown)
    out["target_wins"] = records
    out["clusters"] = find_clusters(game, shown)
    return records


def lines_drop_wins(game: Game, shown: list) -> list[tuple[Fraction, set]]:
    """The paid wins of a lines drop, each (pay in credits, its cells): a line's best win and the first ``count``
    cells of its line (left to right)."""
    out, unit = [], game.bet.line_pay_unit
    for l, line_rows in enumerate(game.paylines):
        win = line_win(game, [shown[reel][row] for reel, row in enumerate(line_rows)], "", l)
        if win is not None and win.pay > 0:
            out.append((game.bet.credits(win.paid, unit), {(reel, line_rows[reel]) for reel in range(win.count)}))
    return out


def ways_drop_wins(game: Game, shown: list) -> list[tuple[Fraction, set]]:
    """The paid wins of a ways drop, each (pay in credits, its cells): a target's ways and the cells matching it
    on its first ``count`` reels."""
    out, unit = [], game.bet.line_pay_unit
    for target, pays in game.paytable.items():
        _, k, ways, _ = ways_count(game, shown, target)
        if k and pays[k] > 0:
            out.append((game.bet.credits(pays[k] * ways, unit),
                        {(reel, row) for reel in range(k) for row, s in enumerate(shown[reel]) if matches(game, s, target)}))
    return out


def anywhere_drop_wins(game: Game, shown: list) -> list[tuple[Fraction, set]]:
    """The paid wins of a pay-anywhere drop, each (pay in credits, its cells): a symbol's count and every cell
    showing it."""
    unit = game.bet.line_pay_unit
    return [(game.bet.credits(win.paid, unit),
             {(reel, row) for reel, column in enumerate(shown) for row, s in enumerate(column) if s == win.target})
            for win in scatter_pays_wins(game, shown)]


def cluster_drop_wins(game: Game, shown: list) -> list[tuple[Fraction, set]]:
    """The paid wins of a cluster drop, each (pay in credits, its cells): a cluster in a paying band and its
    cells (wilds included)."""
    out, unit = [], game.bet.line_pay_unit
    for symbol, cluster in find_clusters(game, shown):
        band = cluster_band(game, symbol, len(cluster))
        if band:
            out.append((game.bet.credits(game.paytable[symbol][band], unit), set(cluster)))
    return out


def _drop(wins: list) -> tuple[Fraction, set]:
    """A drop's pay and removed cells: its wins' pays added, their cells together."""
    pay, cells = Fraction(0), set()
    for paid, won in wins:
        pay += paid
        cells |= won
    return pay, cells


def lines_drop(game: Game, shown: list) -> tuple[Fraction, set]:
    """A drop of a lines game: every paid win's first ``count`` cells of its line (left to right)."""
    return _drop(lines_drop_wins(game, shown))


def ways_drop(game: Game, shown: list) -> tuple[Fraction, set]:
    """A drop of a ways game: the cells matching a paid target on its first ``count`` reels."""
    return _drop(ways_drop_wins(game, shown))


def anywhere_drop(game: Game, shown: list) -> tuple[Fraction, set]:
    """A drop of a pay-anywhere game: every cell showing a paid symbol."""
    return _drop(anywhere_drop_wins(game, shown))


def cluster_drop(game: Game, shown: list) -> tuple[Fraction, set]:
    """A drop of a cluster game: every cell of a paid cluster (wilds included)."""
    return _drop(cluster_drop_wins(game, shown))
