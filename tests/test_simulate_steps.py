"""The simulator's building blocks, each pinned to its rule."""

import numpy as np
import pytest

from workbench.simulate.steps import (
    add_free_spins,
    apply_cap,
    apply_mask,
    cap_reached,
    draw_table,
    draw_table_excluding,
    expand_reel,
    guarantee,
    overlay_squares,
    place_random_wilds,
    wild_reels,
)
from workbench.simulate.rng import chunk_state

WILD = 9


def test_guarantee_lifts_small_feature_wins_and_leaves_larger_ones():
    assert guarantee(10, 50) == 40  # a 10x feature win is topped up to 50x
    assert guarantee(60, 50) == 0  # 60x stays 60x
    assert guarantee(50, 50) == 0
    assert guarantee(0, 50) == 50


def test_cap_truncates_the_round_and_reports_it():
    no_info = np.zeros(3, dtype=np.bool_)
    amounts = np.array([700, 500, 0], dtype=np.int64)  # lines, feature, cap component
    assert cap_reached(amounts, no_info, 1000)
    assert apply_cap(amounts, no_info, 1000, 2)
    assert amounts.sum() == 1000 and amounts[2] == -200
    below = np.array([300, 200, 0], dtype=np.int64)
    assert not cap_reached(below, no_info, 1000)
    assert not apply_cap(below, no_info, 1000, 2) and below[2] == 0
    # no cap configured
    assert not cap_reached(amounts, no_info, 0) and not apply_cap(np.array([10**9, 0, 0]), no_info, 0, 2)


def test_informational_components_do_not_count_towards_the_cap():
    info = np.array([False, True, False])
    amounts = np.array([900, 5000, 0], dtype=np.int64)  # component 1 is "what the other option would pay"
    assert not cap_reached(amounts, info, 1000)


def test_retrigger_adds_spins_but_never_beyond_the_cap_on_total_spins():
    assert add_free_spins(10, 10, 50) == 20
    assert add_free_spins(45, 10, 50) == 50
    assert add_free_spins(50, 10, 50) == 50
    assert add_free_spins(45, 10, 0) == 55  # no cap


def test_weighted_table_draws_follow_weights():
    cum = np.cumsum([1, 3, 6]).astype(np.int64)
    rng = chunk_state(1, 0)
    draws = np.array([draw_table(cum, rng) for _ in range(60_000)])
    freq = np.bincount(draws, minlength=3) / len(draws)
    assert np.allclose(freq, [0.1, 0.3, 0.6], atol=0.01)


def test_award_again_but_not_the_same_prize():
    weights = np.array([5, 5, 5, 0], dtype=np.int64)
    excluded = np.zeros(4, dtype=np.bool_)
    rng = chunk_state(2, 0)
    won = []
    for _ in range(3):
        i = draw_table_excluding(weights, excluded, rng)
        assert not excluded[i] and weights[i] > 0
        won.append(i)
        excluded[i] = True
    assert sorted(won) == [0, 1, 2]
    assert draw_table_excluding(weights, excluded, rng) == -1  # nothing left with weight


def test_whole_reels_turn_wild():
    screen = np.arange(15, dtype=np.int32).reshape(5, 3)
    mask = np.array([False, True, False, False, True])
    wild_reels(screen, mask, WILD)
    assert (screen[1] == WILD).all() and (screen[4] == WILD).all()
    assert screen[0].tolist() == [0, 1, 2] and screen[2].tolist() == [6, 7, 8]


def test_persisting_wilds_stay_at_their_positions():
    screen = np.zeros((5, 3), dtype=np.int32)
    mask = np.zeros((5, 3), dtype=np.bool_)
    mask[2, 1] = mask[4, 0] = True
    apply_mask(screen, mask, WILD)
    assert {(r, c) for r, c in zip(*np.nonzero(screen == WILD))} == {(2, 1), (4, 0)}


def test_random_wilds_avoid_excluded_positions_and_are_distinct():
    rows = np.array([3, 3, 3, 3, 3], dtype=np.int64)
    excluded = np.zeros((5, 3), dtype=np.bool_)
    excluded[0, :] = True
    excluded[3, 2] = True
    placed = np.zeros((5, 3), dtype=np.bool_)
    rng = chunk_state(3, 0)
    seen = np.zeros((5, 3))
    for _ in range(2000):
        screen = np.zeros((5, 3), dtype=np.int32)
        n = place_random_wilds(screen, rows, 10, excluded, WILD, rng, placed)
        assert n == 10 and placed.sum() == 10 and (screen == WILD).sum() == 10
        assert not (placed & excluded).any()
        seen += placed
    allowed = ~excluded
    # every allowed position is used, uniformly (10 of 11 allowed cells each time)
    assert (seen[allowed] > 0).all()
    assert np.allclose(seen[allowed] / 2000, 10 / 11, atol=0.03)
    # fewer free cells than asked: all of them
    screen = np.zeros((5, 3), dtype=np.int32)
    assert place_random_wilds(screen, rows, 99, excluded, WILD, rng, placed) == 11


def test_square_overlays_cover_whole_squares_inside_the_grid():
    rows = np.array([6] * 6, dtype=np.int64)
    covered = np.zeros((6, 6), dtype=np.bool_)
    rng = chunk_state(4, 0)
    for size in (1, 2, 3, 4):
        for _ in range(200):
            screen = np.zeros((6, 6), dtype=np.int32)
            overlay_squares(screen, rows, np.array([size, 0, 0], dtype=np.int64), WILD, rng, covered)
            r, c = np.nonzero(covered)
            assert covered.sum() == size * size
            assert r.max() - r.min() == size - 1 and c.max() - c.min() == size - 1
            assert (screen[covered] == WILD).all()


def test_expanding_symbol_turns_its_reel_wild():
    screen = np.arange(15, dtype=np.int32).reshape(5, 3)
    expand_reel(screen, 2, WILD)
    assert (screen[2] == WILD).all() and screen[1].tolist() == [3, 4, 5]


@pytest.mark.parametrize("n", [1, 7, 2**31 - 1])
def test_bounded_draws_stay_in_range(n):
    from numba import njit

    from workbench.simulate.rng import bounded

    @njit
    def draws(state, n, k):
        out = np.empty(k, dtype=np.int64)
        for i in range(k):
            out[i] = bounded(state, n)
        return out

    values = draws(chunk_state(5, 0), n, 10_000)
    assert values.min() >= 0 and values.max() < n
