"""Property tests: the fast exact engine agrees with the brute-force reference evaluator."""

import os
from collections import Counter
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hyp import examples

from randomgames import random_game_text
from workbench import reference
from workbench.exact import par, pay_scale, strip_set_windows
from workbench.pays.lines import combination_counts, line_state_counts
from workbench.exact.par import analyse_strip_set
from workbench.pays.lines import line_automaton
from workbench.exact.windows import row_symbol_weights
from workbench.io import loads_game

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _analysis(game, strip_set):
    scale = pay_scale(game)
    return analyse_strip_set(game, strip_set, line_automaton(game), scale, full_cycle=True)


@SETTINGS
@given(random_game_text())
def test_line_combination_counts_equal_brute_force(text):
    game = loads_game(text)
    automaton = line_automaton(game)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        for l, rows in enumerate(game.paylines):
            weights = [row_symbol_weights(game, strip_set.reels[i], r) for i, r in enumerate(rows)]
            hits = combination_counts(automaton, line_state_counts(automaton, weights))
            fast = Counter({(c.symbol, c.count): int(h) for c, h in zip(automaton.combinations, hits) if h})
            assert fast == +ref["line_combinations"][l]


@SETTINGS
@given(random_game_text())
def test_full_cycle_distribution_equals_reference(text):
    game = loads_game(text)
    scale = pay_scale(game)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        analysis = _analysis(game, strip_set)
        hist = analysis.histogram
        fast = Counter({Fraction(int(u), scale.denominator): int(h) for u, h in enumerate(hist) if h})
        assert fast == +ref["wins"]
        assert analysis.cycle == ref["cycle"]


@SETTINGS
@given(random_game_text())
def test_spin_moments_equal_reference(text):
    game = loads_game(text)
    scale = pay_scale(game)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        cycle = ref["cycle"]
        mean = sum(w * h for w, h in ref["wins"].items()) / cycle
        second = sum(w * w * h for w, h in ref["wins"].items()) / cycle
        hit = sum(h for w, h in ref["wins"].items() if w > 0) / cycle
        top = max(w for w, h in ref["wins"].items() if h)
        m = _analysis(game, strip_set).moments
        d = scale.denominator
        assert np.isclose(m.mean / d, float(mean), rtol=1e-9, atol=1e-12)
        assert np.isclose(m.second / d**2, float(second), rtol=1e-9, atol=1e-12)
        assert np.isclose(m.hit, float(hit), rtol=1e-9, atol=1e-12)
        assert Fraction(m.max_units, d) == top


@SETTINGS
@given(random_game_text())
def test_scatter_counts_equal_reference(text):
    game = loads_game(text)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        windows = strip_set_windows(game, strip_set)
        from workbench.exact import scatter_counts

        for name in game.scatters:
            fast = scatter_counts(game, windows, name)
            assert Counter({c: h for c, h in enumerate(fast.hits) if h}) == +ref["scatters"][name]


@SETTINGS
@given(random_game_text())
def test_par_rtp_is_exact_mixture_of_strip_sets(text):
    game = loads_game(text)
    sheet = par(game, full_cycle=True)
    total_weight = sum(s.weight for s in game.strip_sets.values())
    expected = Fraction(0)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        mean = sum(w * h for w, h in ref["wins"].items()) / Fraction(ref["cycle"])
        expected += Fraction(strip_set.weight, total_weight) * mean
    assert sheet.rtp_exact == expected / game.bet.cost
    assert sheet.distribution.rtp_exact == sheet.rtp_exact
    assert np.isclose(sheet.distribution.std, sheet.std, rtol=1e-7, atol=1e-12)
    assert np.isclose(sheet.distribution.hit_frequency, sheet.hit_frequency, rtol=1e-9, atol=1e-12)
    assert np.isclose(sheet.distribution.max_win, sheet.max_win)
