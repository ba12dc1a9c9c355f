"""Exact expectations under random wild features agree with brute force on random games.

The brute force visits every stop combination and every outcome of the
feature (every reel subset, overlay position or set of cells), forces those
cells and the fixed ones wild on the reference screen and pays the lines with
the reference evaluator.
"""

import itertools
import os
from fractions import Fraction
from math import comb

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hyp import examples
from hypothesis import strategies as st

from randomgames import random_game_text
from workbench import reference
from workbench.exact import pay_scale
from workbench.exact.wilds import expected_line_pays_with_wilds
from workbench.pays.lines import line_automaton
from workbench.exact.wilds import mix_masks, random_cells_expectations, square_overlays_distribution, whole_reels_distribution
from workbench.io import loads_game

SETTINGS = settings(max_examples=examples(50), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _probabilities(draw, values):
    weights = [draw(st.integers(1, 4)) for _ in values]
    return {v: Fraction(w, sum(weights)) for v, w in zip(values, weights)}


def _brute_force(game, strip_set, wild, outcomes):
    """E[line pays] (pay units) when the cells of each (probability, cells) outcome are wild."""
    scale = pay_scale(game)
    weights = [strip.stop_weights.tolist() for strip in strip_set.reels]
    total = Fraction(0)
    cycle = 0
    for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
        w = 1
        for i, s in enumerate(stops):
            w *= weights[i][s]
        if w == 0:
            continue
        cycle += w
        shown = reference.screen(game, strip_set, stops)
        for p, cells in outcomes:
            for rows in game.paylines:
                line = [wild if (reel, row) in cells else shown[reel][row] for reel, row in enumerate(rows)]
                combo = reference.line_combination(game, line)
                if combo is not None:
                    total += w * p * scale.units(game.bet.credits(combo[2], game.bet.line_pay_unit))
    return float(total / cycle)


def _table_total(table, game, fixed):
    masks = [sum(1 << reel for reel, row in enumerate(rows) if (reel, row) in fixed) for rows in game.paylines]
    return float(sum(table[l, m] for l, m in enumerate(masks)))


def _setup(text, data):
    game = loads_game(text)
    wilds = [name for name, s in game.symbols.items() if s.kind == "wild"]
    assume(wilds)
    strip_set = next(iter(game.strip_sets.values()))
    cells = [(r, row) for r in range(game.reels) for row in range(game.rows[r])]
    fixed = frozenset(data.draw(st.sets(st.sampled_from(cells), max_size=3)))
    plain = expected_line_pays_with_wilds(game, strip_set, line_automaton(game), wilds[0])
    return game, strip_set, wilds[0], cells, fixed, plain


@SETTINGS
@given(random_game_text(max_reels=3, max_stops=4), st.data())
def test_whole_reels_turning_wild(text, data):
    game, strip_set, wild, cells, fixed, plain = _setup(text, data)
    counts = _probabilities(data.draw, data.draw(st.sets(st.integers(0, game.reels), min_size=1)))
    outcomes = []
    for k, p in counts.items():
        for reels in itertools.combinations(range(game.reels), k):
            outcomes.append((p / comb(game.reels, k), fixed | {c for c in cells if c[0] in reels}))
    table = mix_masks(plain, whole_reels_distribution(counts, game.reels))
    assert np.isclose(_table_total(table, game, fixed), _brute_force(game, strip_set, wild, outcomes), rtol=1e-9, atol=1e-9)


@SETTINGS
@given(random_game_text(max_reels=3, max_stops=4), st.data())
def test_square_overlays(text, data):
    game, strip_set, wild, cells, fixed, plain = _setup(text, data)
    n_rows = min(game.rows)
    sizes = _probabilities(data.draw, data.draw(st.sets(st.integers(1, 3), min_size=1)))
    counts = _probabilities(data.draw, data.draw(st.sets(st.integers(0, 2), min_size=1)))

    def placements(size):  # (probability, cells) of one overlay; one that does not fit adds nothing
        if size > game.reels or size > n_rows:
            return [(Fraction(1), frozenset())]
        spots = [(left, top) for left in range(game.reels - size + 1) for top in range(n_rows - size + 1)]
        return [(Fraction(1, len(spots)), frozenset((r, row) for r in range(left, left + size) for row in range(top, top + size)))
                for left, top in spots]

    one = [(ps * pc, c) for s, ps in sizes.items() for pc, c in placements(s)]
    outcomes = []
    for n, p in counts.items():
        for combo in itertools.product(one, repeat=n):
            q = p
            covered = set(fixed)
            for pc, c in combo:
                q *= pc
                covered |= c
            outcomes.append((q, frozenset(covered)))
    rows = np.array(game.paylines, dtype=np.int64)
    table = mix_masks(plain, square_overlays_distribution(rows, n_rows, sizes, counts))
    assert np.isclose(_table_total(table, game, fixed), _brute_force(game, strip_set, wild, outcomes), rtol=1e-9, atol=1e-9)


@SETTINGS
@given(random_game_text(max_reels=3, max_stops=4), st.data())
def test_wilds_on_random_cells_avoid_the_fixed_ones(text, data):
    game, strip_set, wild, cells, fixed, plain = _setup(text, data)
    free = [c for c in cells if c not in fixed]
    counts = _probabilities(data.draw, data.draw(st.sets(st.integers(0, len(cells) + 1), min_size=1, max_size=3)))
    outcomes = []
    for n, p in counts.items():
        chosen = list(itertools.combinations(free, min(n, len(free))))
        outcomes += [(p / len(chosen), fixed | set(c)) for c in chosen]
    table = random_cells_expectations(plain, counts, len(cells))[:, :, len(free)]
    assert np.isclose(_table_total(table, game, fixed), _brute_force(game, strip_set, wild, outcomes), rtol=1e-9, atol=1e-9)
