"""A tumble's pay rule on an explicit screen: what each drop pays and which cells its wins remove.

:func:`pay_screen` pays a screen by the game's rule (pay anywhere, ways, lines from the left, clusters) and marks the
cells of every paid win, which the tumble removes.  With position multipliers (:mod:`.multipliers`) every paid win
pays x the sum of its cells' multipliers (x1 while that sum is 0) and adds a win to each of its cells: a symbol's
win anywhere covers every cell showing it, a target's ways win the cells matching it on its reels, a line's win the
first ``count`` cells of the line (chosen by its pay, then multiplied), a cluster its cells
(:func:`workbench.pays.cluster.cluster_pay_screen`).  The slow reference is each rule's ``reference_drop_wins``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game, pay_for_count
from ..pays.anywhere import AnywhereArrays, anywhere_arrays, anywhere_pay_screen
from ..pays.cluster import cluster_arrays, cluster_pay_screen
from ..pays.scale import pay_scale

# the screen pays the compiled tumble knows (``pay_screen``), by the pay rule that uses each
SCREEN_ANYWHERE, SCREEN_WAYS, SCREEN_LINES, SCREEN_CLUSTER = range(4)
RULE_CODES = {"scatter_pays": SCREEN_ANYWHERE, "ways": SCREEN_WAYS, "lines": SCREEN_LINES, "cluster": SCREEN_CLUSTER}

# The pay rule on an explicit screen: ``screen`` (RULE_CODES: which screen pay); scatter_pays: ``anywhere`` (pays.anywhere.AnywhereArrays)
# and ``counts`` (scratch); ways and lines: ``match[id, t]`` (a cell showing id counts for target t), ``tpays[t, run]``
# units of a run of ``run`` matching cells / reels, ``tcount[t, run]`` the paid (listed) count whose cells are
# removed; lines: ``line_rows[l, reel]``; cluster: ``cpays[id, size]``, ``is_wild[id]``, ``boards`` (scratch bitboards).
RuleArrays = namedtuple("RuleArrays", ["screen", "rows", "anywhere", "counts", "match", "tpays", "tcount", "line_rows",
                                       "cpays", "is_wild", "boards", "cell_mult", "cell_wins"])
@njit(cache=True, inline="always")
def _times_cells(units, m):
    """A win of ``units`` x the sum ``m`` of its cells' position multipliers (x1 while that sum is 0)."""
    return units * m if m > 0 else units


@njit(cache=True, inline="always")
def _pay_anywhere(pa, screen, remove):
    total = anywhere_pay_screen(pa.anywhere, screen, pa.rows, pa.counts)
    if total > 0:  # remove every cell of a paid symbol
        lookup = pa.anywhere.lookup
        pays = pa.anywhere.pays
        counts = pa.counts
        for r in range(pa.rows.shape[0]):
            for row in range(pa.rows[r]):
                j = lookup[screen[r, row]]
                if j >= 0 and pays[j, counts[j]] > 0:
                    remove[r, row] = True
        if pa.cell_mult.shape[0] > 0:  # position multipliers: a symbol's win x the sum over every cell showing it
            total = 0
            for j in range(counts.shape[0]):
                units = pays[j, counts[j]]
                if units == 0:
                    continue
                m = 0
                for r in range(pa.rows.shape[0]):
                    for row in range(pa.rows[r]):
                        if lookup[screen[r, row]] == j:
                            m += pa.cell_mult[r, row]
                            pa.cell_wins[r, row] += 1
                total += _times_cells(units, m)
    return total


@njit(cache=True, inline="always")
def _pay_ways(pa, screen, remove):
    match = pa.match
    rows = pa.rows
    total = 0
    for t in range(match.shape[1]):
        ways = 1
        run = 0
        for r in range(rows.shape[0]):
            c = 0
            for row in range(rows[r]):
                if match[screen[r, row], t]:
                    c += 1
            if c == 0:
                break
            ways *= c
            run += 1
        units = pa.tpays[t, run]
        if units > 0:
            m = 0
            positions = pa.cell_mult.shape[0] > 0
            for r in range(pa.tcount[t, run]):
                for row in range(rows[r]):
                    if match[screen[r, row], t]:
                        remove[r, row] = True
                        if positions:  # the target's win x the sum over its matching cells
                            m += pa.cell_mult[r, row]
                            pa.cell_wins[r, row] += 1
            total += _times_cells(units * ways, m)
    return total


@njit(cache=True, inline="always")
def _pay_lines(pa, screen, remove):
    match = pa.match
    line_rows = pa.line_rows
    n_reels = line_rows.shape[1]
    total = 0
    for l in range(line_rows.shape[0]):
        best = 0
        best_count = 0
        for t in range(match.shape[1]):
            run = 0
            for r in range(n_reels):
                if match[screen[r, line_rows[l, r]], t]:
                    run += 1
                else:
                    break
            units = pa.tpays[t, run]
            if units > best or (units == best and units > 0 and pa.tcount[t, run] > best_count):
                best = units
                best_count = pa.tcount[t, run]
        if best > 0:
            m = 0
            for r in range(best_count):
                remove[r, line_rows[l, r]] = True
                if pa.cell_mult.shape[0] > 0:  # the line's win x the sum over its winning cells
                    m += pa.cell_mult[r, line_rows[l, r]]
                    pa.cell_wins[r, line_rows[l, r]] += 1
            total += _times_cells(best, m)
    return total


@njit(cache=True, inline="always")
def pay_screen(pa, screen, remove):
    """Pay units of the screen by the pay rule; marks the cells of every paid win in ``remove``."""
    if pa.screen == SCREEN_ANYWHERE:
        return _pay_anywhere(pa, screen, remove)
    if pa.screen == SCREEN_WAYS:
        return _pay_ways(pa, screen, remove)
    if pa.screen == SCREEN_LINES:
        return _pay_lines(pa, screen, remove)
    return cluster_pay_screen(screen, pa.cpays, pa.is_wild, remove, pa.boards, pa.cell_mult, pa.cell_wins)



def rule_arrays(game: Game, grid) -> RuleArrays:
    """The pay rule of ``game`` on an explicit screen (``grid``: its position multipliers,
    :func:`workbench.rounds.multipliers.position_grid`)."""
    scale = pay_scale(game)
    unit = game.bet.line_pay_unit
    n_sym = len(game.symbols)
    rows = np.asarray(game.rows, dtype=np.int64)
    cells = int(rows.sum())
    rule = game.pays.rule

    def units(pay) -> int:
        return scale.units(game.bet.credits(pay, unit))

    anywhere = AnywhereArrays(np.zeros((1, cells + 1), dtype=np.int64), np.full(n_sym, -1, dtype=np.int64))
    match = np.zeros((n_sym, 1), dtype=np.bool_)
    tpays = np.zeros((1, game.reels + 1), dtype=np.int64)
    tcount = np.zeros((1, game.reels + 1), dtype=np.int64)
    line_rows = np.zeros((1, game.reels), dtype=np.int64)
    cpays = np.zeros((n_sym, 1), dtype=np.int64)
    is_wild = np.array([s.is_wild for s in game.symbols.values()], dtype=np.bool_)
    paying = [name for name, pays in game.paytable.items() if any(v > 0 for v in pays.values())]
    code = RULE_CODES[rule]
    if code == SCREEN_ANYWHERE:
        anywhere = anywhere_arrays(game)
    elif code in (SCREEN_WAYS, SCREEN_LINES):
        top = game.reels
        match = np.zeros((n_sym, max(len(paying), 1)), dtype=np.bool_)
        tpays = np.zeros((max(len(paying), 1), top + 1), dtype=np.int64)
        tcount = np.zeros((max(len(paying), 1), top + 1), dtype=np.int64)
        for t, target in enumerate(paying):
            for shown, sym in game.symbols.items():
                match[sym.index, t] = game.counts_for(shown, target)
            pays = game.paytable[target]
            for run in range(top + 1):
                tpays[t, run] = units(pay_for_count(pays, run))
                tcount[t, run] = max([k for k in pays if k <= run and pays[k] > 0], default=0)
        if code == SCREEN_LINES:
            line_rows = np.asarray(game.paylines, dtype=np.int64).reshape(len(game.paylines), game.reels)
    else:
        cpays, is_wild = cluster_arrays(game, scale)
    return RuleArrays(np.int64(code), rows, anywhere, np.zeros(anywhere.pays.shape[0], dtype=np.int64), match,
                      tpays, tcount, line_rows, cpays, is_wild, np.zeros(n_sym, dtype=np.uint64), grid.mult, grid.wins)
