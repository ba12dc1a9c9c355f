"""The outcomes of one reel of a ways game (:mod:`.ways`): each distinct window reduced to what the ways pays and the
scatter groups read of it (per-target factors, scatter counts), with its weight (an exact count of stop
positions)."""

from __future__ import annotations

from dataclasses import dataclass


import numpy as np


from ..errors import ExactBudgetError
from ..model import Game, Strip, StripSet


from ..pays.scatter import ScatterPayTables, code_count
from ..pays.ways import (WaysTables, WaysTargets, outcome_features, ways_tables)

from .variants import (expanded_total, expanded_windows, has_table_wilds, variant_game)
from .windows import ReelWindows, lexicographic_keys, reel_windows


# ---------------------------------------------------------------------------
# per-reel outcomes
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ReelOutcomes:
    """What one reel can show on a spin, reduced to what the ways pays read.

    ``windows``: the reel's windows of every height with weight > 0 (height weight x
    window weight; ``symbols`` padded with -1 below a short window; ``stop_window[h x
    stops + s]`` = window of stop ``s`` at the ``h``-th height of ``heights``).
    ``outcome[w]``: merged outcome of window ``w`` (-1: weight 0); per merged outcome:
    ``cnt``, ``fa``, ``fm`` (outcomes x targets), ``sc`` (outcomes x paying groups) and
    ``weights`` (int64, summing to ``windows.total_weight`` = ``height_total`` x
    ``strip_total``).
    """

    windows: ReelWindows
    heights: tuple  # ((rows, weight), ...) with weight > 0
    height_total: int
    strip_total: int
    outcome: np.ndarray
    cnt: np.ndarray
    fa: np.ndarray
    fm: np.ndarray
    sc: np.ndarray
    weights: np.ndarray

    @property
    def n_outcomes(self) -> int:
        return len(self.weights)

    @property
    def total(self) -> int:
        return self.windows.total_weight


def reel_heights(game: Game, reel: int) -> tuple:
    """((rows, weight), ...) of reel ``reel`` (0-based): ``game.heights`` or its fixed rows."""
    spec = game.heights[reel] if game.heights is not None else None
    if spec is None:
        return ((game.rows[reel], 1),)
    return tuple((int(h), int(w)) for h, w in spec if w > 0)


def ways_game(game: Game) -> Game:
    """The game whose symbol ids the reel outcomes use: ``game``, or with wilds whose multiplier is drawn
    from a table its variant game (:func:`workbench.exact.variants.variant_game`); build the targets
    from it (``ways_targets(ways_game(game), scale)``)."""
    return variant_game(game)


def reel_outcomes(game: Game, strip: Strip, reel: int, targets: WaysTargets, tables: ScatterPayTables) -> ReelOutcomes:
    """The outcomes of reel ``reel`` (0-based) showing ``strip`` (see :class:`ReelOutcomes`).

    With table wilds (:mod:`workbench.exact.variants`) the windows are the expanded windows of
    the variant game (every height's over the reel's largest height, so they share one total:
    ``strip_total`` is then strip total x T^rows per table wild the strip holds); ``targets``
    must be those of :func:`ways_game`.
    """
    heights = reel_heights(game, reel)
    height_total = sum(w for _, w in heights)
    rows = game.rows[reel]
    variant = variant_game(game) if has_table_wilds(game) else None
    strip_total = int(strip.total_weight) if variant is None else expanded_total(game, strip, rows)
    if height_total * strip_total >= 1 << 62:
        raise ExactBudgetError(f"{game.name}: reel {reel + 1}: height weights x stop weights add up to "
                               f"{height_total * strip_total:,}, over the limit of {1 << 62:,} of 64-bit sums")
    syms, counts, weights, stop_window = [], [], [], []
    offset = 0
    for h, hw in heights:
        rw = reel_windows(game, strip, h) if variant is None else expanded_windows(game, variant, strip, h, rows)
        pad = np.full((len(rw.weights), rows), -1, dtype=np.int32)
        pad[:, :h] = rw.symbols
        syms.append(pad)
        counts.append(rw.counts)
        weights.append(rw.weights * hw)
        stop_window.append(rw.stop_window + offset)
        offset += len(rw.weights)
    windows = ReelWindows(
        symbols=np.ascontiguousarray(np.concatenate(syms)),
        counts=np.ascontiguousarray(np.concatenate(counts)),
        weights=np.concatenate(weights).astype(np.int64),
        stop_window=np.concatenate(stop_window).astype(np.int32),
        total_weight=height_total * strip_total,
    )
    cnt, fa, fm = outcome_features(targets, windows.symbols)
    sc = windows.counts[:, tables.index].astype(np.int64) if len(tables.index) else np.zeros((len(cnt), 0), np.int64)
    keep = windows.weights > 0
    outcome = np.full(len(windows.weights), -1, dtype=np.int64)
    if keep.any():
        cols = [x[keep, j] for x in (cnt, fa, fm, sc) for j in range(x.shape[1])]
        if cols:
            keys = lexicographic_keys(cols)
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
        else:
            first, inverse = np.array([0]), np.zeros(int(keep.sum()), dtype=np.int64)
        rows_kept = np.flatnonzero(keep)
        outcome[rows_kept] = inverse
        merged_w = np.zeros(len(first), dtype=np.int64)
        np.add.at(merged_w, inverse, windows.weights[keep])
        pick = rows_kept[first]
    else:  # every stop weighs 0: cannot happen in a valid game
        pick = np.zeros(0, dtype=np.int64)
        merged_w = np.zeros(0, dtype=np.int64)
    return ReelOutcomes(
        windows=windows, heights=heights, height_total=height_total, strip_total=strip_total, outcome=outcome,
        cnt=np.ascontiguousarray(cnt[pick]), fa=np.ascontiguousarray(fa[pick]), fm=np.ascontiguousarray(fm[pick]),
        sc=np.ascontiguousarray(sc[pick]), weights=merged_w,
    )


def ways_outcomes(game: Game, strip_set: StripSet, targets: WaysTargets, tables: ScatterPayTables) -> list[ReelOutcomes]:
    """The outcomes of every reel of ``strip_set`` (``targets``: of :func:`ways_game`)."""
    if targets.matches.shape[0] != len(ways_game(game).symbols) + 1:
        raise ValueError(f"{game.name}: the ways targets are not of ways_game(game) (a wild's multiplier drawn from a "
                         "table needs the variant game's)")
    return [reel_outcomes(game, strip, i, targets, tables) for i, strip in enumerate(strip_set.reels)]


def outcome_tables(targets: WaysTargets, tables: ScatterPayTables, sets: list[list[ReelOutcomes]]) -> WaysTables:
    """The compiled form (:class:`~workbench.pays.ways.WaysTables`) of the outcomes of some strip sets."""
    return ways_tables(targets, tables, [[(r.cnt, r.fa, r.fm, r.sc) for r in reels] for reels in sets])


def _group_pay(tables: ScatterPayTables, g: int, code: int) -> int:
    mode = int(tables.mode[g])
    return int(tables.pays[g, min(int(code_count(mode, code)), int(tables.cap[g]))])
