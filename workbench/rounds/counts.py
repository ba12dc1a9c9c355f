"""Exact probability of each trigger count on a base screen: the strata of the feature rounds (free spins, hold
and respin, tumble) by trigger count, summed reel by reel over the strips' windows."""

from __future__ import annotations

from fractions import Fraction

from ..model import Game
from ..pays.scatter import ADJACENT, update_code


def count_states(reel_values: list, weights: list, mode: int, min_count: int, cap_count: int) -> list[Fraction]:
    """Exact probability of each trigger count ``min_count .. cap_count`` (the last: that many or more) per spin.

    ``reel_values[k][i]``: {count reel i adds: integer weight} of strip set k; ``weights[k]`` the set's choice
    weight.  The count runs reel by reel as :func:`~workbench.pays.scatter.update_code` counts it (anywhere, or
    adjacent from reel 1), capped at ``cap_count``.
    """
    total_weight = sum(weights)
    out = [Fraction(0)] * (cap_count - min_count + 1)
    for reels, weight in zip(reel_values, weights):
        if weight == 0:
            continue
        codes = {0: 1}
        cycle = 1
        for values in reels:
            nxt: dict = {}
            for code, ways in codes.items():
                for value, w in values.items():
                    new = int(update_code(mode, cap_count, code, int(value)))
                    nxt[new] = nxt.get(new, 0) + ways * w
            codes = nxt
            cycle *= sum(values.values())
        for code, ways in codes.items():
            count = code // 2 if mode == ADJACENT else code
            if count >= min_count:
                out[min(count, cap_count) - min_count] += Fraction(weight, total_weight) * Fraction(ways, cycle)
    return out


def lines_count_states(game: Game, group: int, mode: int, min_count: int, cap_count: int) -> list[Fraction]:
    """Exact probability of each count of scatter group ``group`` on the base screen of a lines game
    (:func:`count_states` over the windows of the base strip sets)."""
    from ..exact.windows import strip_set_windows

    sets = [s for s in game.played_strip_sets("base") if s.weight > 0]
    values = []
    for strip_set in sets:
        reels = []
        for win in strip_set_windows(game, strip_set):
            counts: dict = {}
            for c, w in zip(win.counts[:, group], win.weights):
                counts[int(c)] = counts.get(int(c), 0) + int(w)
            reels.append(counts)
        values.append(reels)
    return count_states(values, [s.weight for s in sets], mode, min_count, cap_count)
