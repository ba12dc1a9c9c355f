"""Wilds whose multiplier is drawn per landing from a weighted table, as fixed-multiplier wilds.

Rule (``[symbols] W = { kind = "wild", multiplier = "TABLE" }``, ``[tables.TABLE] entries =
[{ multiplier = m, weight = w }, ...]``): every visible cell showing W independently draws a
multiplier from the table each spin (a stop is visible at most once per spin, so this is one
independent draw per visible W stop); then the win rules are those of fixed multiplier wilds
(``[pays] combine`` product | sum, ``multiply_wild_only``).  A cell that drew m is a wild with
multiplier m for every target W substitutes for, and still W for W's own paytable entry.

The exact engines price this as a game with fixed multipliers only:

- the *table*: the entries' weights summed per distinct multiplier, entries of weight 0 left
  out, and divided by their greatest common divisor (the probabilities are the table's; the
  cycle stays as small as the table allows).  ``T`` is the total of these weights.
- the *variant game* (:func:`variant_game`): for each table wild W, one wild symbol per
  multiplier m of its table, named ``W_xm`` (``W_xm_`` ... if the name is taken), with fixed
  multiplier m, W's kind, height and reels, and W's substitutes plus W itself: that is how a
  variant counts for W's own paytable entry (the pay rules let a wild target match a wild
  listing it in its substitutes; a file cannot say that, wilds never substitute for wilds).
  The variants come after all symbols (indices continue), so every other symbol keeps its id;
  W stays, as a plain x1 wild that never appears in an expanded window.
- *expanded windows* (:func:`expanded_windows`): a window with j cells showing W becomes one
  window per assignment of variants to those cells (the first cell the most significant digit,
  so the windows of one window are a block, in the order of the table's multipliers), each
  weighing window weight x the product of the chosen multipliers' weights x ``T^(cells - j)``,
  ``cells`` the reel's rows.  Every window of a reel whose strip holds W so weighs ``T^cells``
  times its share, and the reel's total is strip total x ``T^cells``; a reel whose strip does
  not hold W keeps its windows and total.  Several table wilds: the product of their factors.
- the *expanded cycle*: the product over reels of those totals (:func:`expanded_cycle`);
  :func:`expanded_row_weights` gives one row's symbol weights over the same total.

Lines games go through :class:`ExpandedStripSet`, a strip set seen through the variant game
(its name, mode, weight and strips, the expanded cycle, the expanded windows and row weights):
:func:`workbench.exact.analysis.analyse_strip_set` runs the line automaton of the variant game on
it.  Ways games build their reel outcomes from the expanded windows
(:func:`workbench.exact.ways_outcomes.reel_outcomes`).  :func:`workbench.reference.enumerate_cycle`
visits every stop combination and every assignment of multipliers to the visible table-wild
cells with the same weights, and the simulator draws one multiplier per visible W cell.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np

from ..errors import ExactBudgetError
from ..model import Game, Strip, StripSet, Symbol
from .windows import REEL_WEIGHT_MAX, WINDOW_CELLS_MAX, ReelWindows, reel_windows, row_symbol_weights


@dataclass(frozen=True)
class TableWild:
    """One wild whose multiplier is drawn per landing, and its variants in the variant game.

    ``multipliers``/``weights``: the table reduced (see the module docstring); ``total`` = T;
    ``names``/``ids``: the variant symbols (``W_xm``) and their ids in the variant game.
    """

    wild: str
    wild_id: int
    table: str
    multipliers: tuple
    weights: tuple
    total: int
    names: tuple
    ids: tuple

    @property
    def n_variants(self) -> int:
        return len(self.ids)


def table_wilds(game: Game) -> tuple:
    """Names of the wilds of ``game`` whose multiplier is drawn from a table (file order)."""
    return tuple(name for name, sym in game.symbols.items() if sym.kind == "wild" and sym.multiplier_table is not None)


def has_table_wilds(game: Game) -> bool:
    return any(sym.kind == "wild" and sym.multiplier_table is not None for sym in game.symbols.values())


def reduced_table(game: Game, table_name: str) -> tuple[tuple, tuple]:
    """(multipliers, weights) of a multiplier table: weights summed per distinct multiplier (first
    appearance order), weight-0 multipliers left out, divided by their greatest common divisor."""
    table = game.tables[table_name]
    merged: dict[int, int] = {}
    for entry, w in zip(table.entries, table.weights):
        m = int(entry["multiplier"])
        merged[m] = merged.get(m, 0) + int(w)
    merged = {m: w for m, w in merged.items() if w > 0}
    if not merged:
        raise ExactBudgetError(f"{game.name}: multiplier table {table_name!r} has no entry with a weight above 0")
    g = 0
    for w in merged.values():
        g = math.gcd(g, w)
    return tuple(merged), tuple(w // g for w in merged.values())


_PLANS: dict = {}


def _cached(kind: str, game: Game, build):
    key = (kind, id(game))
    hit = _PLANS.get(key)
    if hit is not None and hit[0] is game:
        return hit[1]
    if len(_PLANS) > 64:
        _PLANS.clear()
    value = build()
    _PLANS[key] = (game, value)
    return value


def table_wild_plan(game: Game) -> tuple:
    """The :class:`TableWild` of every table wild of ``game`` (file order), variant names and ids fixed."""
    def build():
        taken = set(game.symbols) | set(game.groups)
        position = {name: i for i, name in enumerate(game.symbols)}  # symbol ids (windows.symbol_ids)
        next_id = len(game.symbols)
        out = []
        for name in table_wilds(game):
            sym = game.symbols[name]
            mults, weights = reduced_table(game, sym.multiplier_table)
            names, ids = [], []
            for m in mults:
                vname = f"{name}_x{m}"
                while vname in taken:
                    vname += "_"
                taken.add(vname)
                names.append(vname)
                ids.append(next_id)
                next_id += 1
            out.append(TableWild(name, position[name], sym.multiplier_table, mults, weights, int(sum(weights)), tuple(names),
                                 tuple(ids)))
        return tuple(out)

    return _cached("plan", game, build)


def variant_game(game: Game) -> Game:
    """``game`` with one fixed-multiplier wild per multiplier of every table wild (see the module docstring).

    A game without table wilds is returned as it is.
    """
    if not has_table_wilds(game):
        return game

    def build():
        symbols = dict(game.symbols)
        for tw in table_wild_plan(game):
            sym = game.symbols[tw.wild]
            symbols[tw.wild] = replace(sym, multiplier=1, multiplier_table=None)
            for vname, vid, m in zip(tw.names, tw.ids, tw.multipliers):
                symbols[vname] = Symbol(name=vname, index=vid, kind=sym.kind, height=sym.height,
                                        substitutes=frozenset(sym.substitutes) | {tw.wild}, reels=sym.reels,
                                        max_visible=sym.max_visible, multiplier=int(m))
        return game._replace(symbols=MappingProxyType(symbols))

    return _cached("variant", game, build)


def to_game_ids(game: Game) -> np.ndarray:
    """Per symbol id of the variant game, the id of the symbol of ``game`` it shows (a variant: its wild)."""
    plan = table_wild_plan(game)
    n = len(game.symbols) + sum(tw.n_variants for tw in plan)
    out = np.arange(n, dtype=np.int64)
    for tw in plan:
        out[list(tw.ids)] = tw.wild_id
    return out


def _present(game: Game, strip: Strip) -> list:
    shown = set(strip.symbols)
    return [tw for tw in table_wild_plan(game) if tw.wild in shown]


def reel_factor(game: Game, strip: Strip, cells: int) -> int:
    """What the expansion multiplies the total weight of a reel showing ``strip`` by: T^cells per
    table wild the strip holds (1 if none)."""
    out = 1
    for tw in _present(game, strip):
        out *= tw.total ** cells
    return out


def expanded_total(game: Game, strip: Strip, cells: int) -> int:
    return int(strip.total_weight) * reel_factor(game, strip, cells)


def _check_total(game: Game, strip: Strip, cells: int) -> int:
    total = expanded_total(game, strip, cells)
    if total >= REEL_WEIGHT_MAX:
        raise ExactBudgetError(
            f"{game.name}: a reel's stop weights ({strip.total_weight:,}) x the multiplier tables' total weights ^ "
            f"{cells} rows = {total:,}, over the limit of {REEL_WEIGHT_MAX:,} of 64-bit sums (a table with smaller "
            "weights, or weights with a common divisor, keeps it down)")
    return total


def expanded_windows(game: Game, variant: Game, strip: Strip, rows: int, cells: int | None = None) -> ReelWindows:
    """The windows of ``strip`` on a reel of ``rows`` rows over the ids of ``variant`` (=
    :func:`variant_game` of ``game``), every table-wild cell replaced by each of its variants.

    A window with j table-wild cells becomes a block of windows, one per assignment (the
    first cell most significant, variants in table order), weighing window weight x product
    of the chosen weights x ``T^(cells - j)`` per table wild the strip holds (``cells``: the
    reel's rows, default ``rows``; a ways reel with heights passes its largest height so all
    heights share one total).  Scatter counts are copied; ``stop_window`` maps each stop to
    the first window of its block; ``total_weight`` is strip total x T^cells per table wild.
    """
    cells = rows if cells is None else cells
    base = reel_windows(variant, strip, rows)
    present = _present(game, strip)
    if not present:
        return base
    total = _check_total(game, strip, cells)
    tab_of = np.full(len(variant.symbols), -1, dtype=np.int64)
    for k, tw in enumerate(present):
        tab_of[tw.wild_id] = k
    n_win = len(base.weights)  # >= 1: a strip has stops
    cell_tab = tab_of[base.symbols]  # (windows, rows): which present table wild a cell shows, -1 none
    sizes = np.ones(n_win, dtype=np.int64)
    for k, tw in enumerate(present):
        sizes *= tw.n_variants ** (cell_tab == k).sum(axis=1)
    n_out = int(sizes.sum())
    if n_out * (rows + base.counts.shape[1]) > WINDOW_CELLS_MAX:
        raise ExactBudgetError(
            f"{game.name}: {n_win:,} windows of a reel of {rows} rows become {n_out:,} with every multiplier drawn by the "
            f"table wilds, {n_out * (rows + base.counts.shape[1]):,} window cells, over the budget of {WINDOW_CELLS_MAX:,}")
    starts = np.zeros(n_win + 1, dtype=np.int64)
    starts[1:] = np.cumsum(sizes)
    symbols = np.repeat(base.symbols, sizes, axis=0)
    counts = np.repeat(base.counts, sizes, axis=0)
    weights = np.zeros(n_out, dtype=np.int64)
    shows = (cell_tab >= 0).any(axis=1)
    plain = np.flatnonzero(~shows)
    weights[starts[plain]] = base.weights[plain] * reel_factor(game, strip, cells)  # T^cells per table wild
    for b in np.flatnonzero(shows).tolist():
        where = np.flatnonzero(cell_tab[b] >= 0).tolist()
        tabs = [present[int(cell_tab[b, r])] for r in where]
        factor = int(base.weights[b])
        for tw in present:
            factor *= tw.total ** (cells - sum(1 for t in tabs if t is tw))
        pos = int(starts[b])
        for choice in itertools.product(*[range(t.n_variants) for t in tabs]):
            w = factor
            for r, t, e in zip(where, tabs, choice):
                symbols[pos, r] = t.ids[e]
                w *= t.weights[e]
            weights[pos] = w
            pos += 1
    if int(weights.sum()) != total:  # cannot happen: the weights of a block add up to its window's share
        raise AssertionError("expanded window weights do not add up to the reel's total")
    return ReelWindows(symbols=np.ascontiguousarray(symbols), counts=np.ascontiguousarray(counts), weights=weights,
                       stop_window=starts[:-1][base.stop_window].astype(np.int32), total_weight=total)


def expanded_row_weights(game: Game, variant: Game, strip: Strip, row: int, cells: int) -> np.ndarray:
    """Total weight showing each symbol id of ``variant`` at ``row``, over the expanded total
    (strip total x T^cells per table wild the strip holds): a symbol other than a table wild
    weighs its stop weight x that factor; variant m of W weighs (stop weight of W at the row) x
    w_m x the factor / T."""
    base = row_symbol_weights(variant, strip, row)
    present = _present(game, strip)
    if not present:
        return base
    _check_total(game, strip, cells)
    factor = reel_factor(game, strip, cells)
    out = base * factor
    for tw in present:
        shown = int(base[tw.wild_id])
        out[tw.wild_id] = 0
        for vid, w in zip(tw.ids, tw.weights):
            out[vid] = shown * w * (factor // tw.total)
    return out


def expanded_cycle(game: Game, strip_set: StripSet) -> int:
    """The expanded cycle of ``strip_set``: the product over reels of strip total x T^rows per table
    wild the reel's strip holds (x the reel's height weights, in a ways game with ``heights``)."""
    out = 1
    for i, strip in enumerate(strip_set.reels):
        spec = game.heights[i] if game.heights is not None else None
        out *= expanded_total(game, strip, game.rows[i]) * (1 if spec is None else sum(int(w) for _, w in spec))
    return out


@dataclass(frozen=True)
class ExpandedStripSet:
    """A strip set of a game with table wilds, seen through its variant game.

    It has what the lines engine reads of a :class:`~workbench.model.StripSet` (``name``,
    ``mode``, ``weight``, ``reels``: the strips themselves, so weighted and unweighted reels are
    told apart as before) and ``cycle``, the expanded cycle; ``windows`` are the expanded windows
    (:func:`expanded_windows`) and :meth:`row_weights` the expanded row weights.
    """

    base: StripSet
    game: Game = field(compare=False, repr=False)  # the game with table wilds
    variant: Game = field(compare=False, repr=False)
    windows: tuple = field(compare=False, repr=False)
    cycle: int = 0

    @property
    def name(self) -> str:
        return self.base.name

    @property
    def mode(self) -> str:
        return self.base.mode

    @property
    def weight(self) -> int:
        return self.base.weight

    @property
    def reels(self) -> tuple:
        return self.base.reels

    def row_weights(self, reel: int, row: int) -> np.ndarray:
        """Weight showing each variant-game symbol id at ``row`` of reel ``reel`` (0-based), over the reel's expanded total."""
        return expanded_row_weights(self.game, self.variant, self.base.reels[reel], row, self.game.rows[reel])


def expanded_strip_set(game: Game, strip_set: StripSet, variant: Game | None = None) -> ExpandedStripSet:
    """``strip_set`` of ``game`` (with table wilds) seen through its variant game (see :class:`ExpandedStripSet`)."""
    if isinstance(strip_set, ExpandedStripSet):
        return strip_set
    variant = variant if variant is not None else variant_game(game)
    windows = tuple(expanded_windows(game, variant, strip, game.rows[i]) for i, strip in enumerate(strip_set.reels))
    cycle = 1
    for w in windows:
        cycle *= int(w.total_weight)
    return ExpandedStripSet(strip_set, game, variant, windows, cycle)
