"""Wild multipliers that add to the free spins' multiplier (``[features] multiplier_wilds = "add"``): in x3 free
spins a line win with a x2 wild pays x5 (not x6), one without a multiplier wild x3, and the line pays its best win
under the sum.

Checked three ways: the line automaton against the tests' own brute force on every symbol sequence of random games
(hypothesis); a feature worked out by hand (compiled and reference, exactly); and the compiled feature against the
slow reference feature on a game with drawn wild multipliers, expanding sticky reels and retriggers.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from test_pays_lines_rules import SETTINGS, check_every_sequence, game_text, load, pay_of, rule_games
from test_mode_symbols import mode_symbol_games
from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.pays.lines import build_automaton
from workbench.rounds.algebra import multiplier_algebra
from workbench.simulate import estimate_rtp, simulate


def added(game, multiplier: int):
    """``game`` as free spins of multiplier ``multiplier`` with multiplier_wilds = "add" pay its lines."""
    return replace(game, pays=replace(game.pays, feature_multiplier=multiplier))


@SETTINGS
@given(rule_games(), st.sampled_from([1, 2, 3, 5]))
def test_automaton_pays_every_sequence_with_the_multipliers_added(tmp_path, text, multiplier):
    """Every direction, combine rule, line_win rule, group and wild of random games: the automaton of the game whose
    free-spins multiplier adds to its wilds pays each symbol sequence as the brute force of the rules does."""
    check_every_sequence(added(load(tmp_path, text), multiplier))


def test_the_multipliers_add_up_and_the_line_pays_its_best_win_under_the_sum(tmp_path):
    """x3 free spins, a x2 WILD (its own 3 pays 150): A WILD A pays 20 x (3 + 2) = 100 (multiplied: 120); A A A pays
    60; two WILDs in a line of A make x4 (product), so WILD WILD A is A 3 at 20 x (3 + 4) = 140; WILD WILD WILD is
    the WILDs' own 3 (no multiplier of their own) at 150 x 3 = 450."""
    text = game_text(3, {"WILD": '{ kind = "wild", multiplier = 2 }', "A": "{}", "B": "{}"},
                     {"WILD": {3: 150}, "A": {3: 20}, "B": {2: 1}})
    game = load(tmp_path, text)
    summed = build_automaton(added(game, 3))
    assert pay_of(summed, game, "A WILD A")[0] == 100
    assert pay_of(summed, game, "A A A")[0] == 60
    assert pay_of(summed, game, "WILD WILD A")[0] == 140
    assert pay_of(summed, game, "WILD WILD WILD")[0] == 450
    assert pay_of(summed, game, "B WILD A")[0] == 5  # B 2 with the x2 WILD: 1 x (3 + 2)
    plain = build_automaton(game)  # the same game's base spins: no feature multiplier
    assert pay_of(plain, game, "A WILD A")[0] == 40
    # a x1 feature multiplier adds nothing: the same pays as multiplying
    once = build_automaton(added(game, 1))
    assert [pay_of(once, game, line)[0] for line in ("A WILD A", "WILD WILD A", "A A A")] == [40, 80, 20]


def test_a_sum_can_change_which_win_a_line_pays(tmp_path):
    """WILD (x2, its own 2 pays 30) WILD A A: A 4 (10) with x4 pays 10 x 12 = 120 in x3 multiplied free spins, but
    10 x (3 + 4) = 70 under the sum, less than the WILDs' own 2 at 30 x 3 = 90: the line pays the WILDs."""
    text = game_text(4, {"WILD": '{ kind = "wild", multiplier = 2 }', "A": "{}"}, {"WILD": {2: 30}, "A": {4: 10}})
    game = load(tmp_path, text)
    assert pay_of(build_automaton(added(game, 3)), game, "WILD WILD A A") == (90, "2 x WILD x3")
    assert pay_of(build_automaton(game), game, "WILD WILD A A") == (40, "4 x A x4")  # multiplied: x3 after, 120
    line = reference.line_wins(added(game, 3), ["WILD", "WILD", "A", "A"])
    assert [(w.target, w.count, w.multiplier) for w in line] == [("WILD", 2, 3)]


def _game(features: str, free=None, wild: str = 'by_mode = { free = { multiplier = 2 } }', tables: str = ""):
    text = lines_text("multiplier = 3\nmultiplier_wilds = \"add\"\n" + features, **({"free": free} if free else {}))
    text = text.replace('WILD = { kind = "wild", substitutes = "all" }',
                        f'WILD = {{ kind = "wild", substitutes = "all", {wild} }}')
    return loads_game(text + tables, "added.toml")


def test_a_feature_worked_out_by_hand():
    """Free strips: reel 1 only A, reel 2 only WILD (x2 in the free spins), reel 3 only A: every line of every free spin
    is A WILD A = A 3, 20 line bets x (3 + 2) = 100; 5 lines, 500 line bets = 100 x total bet a spin, 4 spins: every
    feature pays exactly 400 x total bet (multiplied it would be 480); the reference plays the same."""
    game = _game("free_spins = { 2 = 4 }", free=["A A A", "WILD WILD WILD", "A A A"])
    result = simulate(game, 20_000, seed=61)
    started = result.counters["free_spins"]
    assert started > 0
    assert result.components["free_spins"].value * result.spins == pytest.approx(400 * started, rel=1e-12)
    rng = random.Random(62)
    assert {reference.free_spins_feature(game, 2, rng) / game.bet.cost for _ in range(20)} == {400}


def test_scatter_pays_of_the_free_spins_carry_the_multiplier_alone():
    """Free strips whose reel 1 shows 3 SCATs and reels 2-3 only B (no line win): each free spin pays the SCAT pay of 3
    (5 x total bet) x 3 = 15; 4 spins, 60 x total bet, in the compiled and the reference feature."""
    game = _game("free_spins = { 2 = 4 }", free=["SCAT SCAT SCAT", "B B B", "A A A"])
    result = simulate(game, 20_000, seed=63)
    assert result.components["free_spins"].value * result.spins == pytest.approx(60 * result.counters["free_spins"],
                                                                                  rel=1e-12)
    assert reference.free_spins_feature(game, 2, random.Random(64)) / game.bet.cost == 60


TABLE = "\n[tables.reveal]\nentries = [\n  { multiplier = 2, weight = 1 },\n  { multiplier = 5, weight = 1 },\n]\n"
FREE = ["A B C SCAT D A B C D", "A WILD SCAT C D A B C D WILD", "A B WILD D SCAT A B C D"]


@pytest.mark.parametrize("features,wild", [
    ("free_spins = { 2 = 4, 3 = 6 }\nretrigger = { 2 = 2 }\nmax_free_spins = 12",
     'by_mode = { free = { multiplier = "reveal" } }'),
    ("free_spins = { 2 = 5 }\nfree_spins_wilds = \"expanding_sticky\"\nwild_symbol = \"WILD\"\nfeature_cap = 60",
     'by_mode = { free = { multiplier = "reveal" } }'),
    ("free_spins = { 2 = 5 }\nretrigger = { 3 = 2 }", "multiplier = 2"),
])
def test_the_compiled_feature_equals_the_slow_reference(features, wild):
    """Wilds drawing x2 / x5 per landing, expanding sticky reels keeping theirs with a cap, a fixed x2 wild that also
    plays in the base game, retriggers: the compiled feature's mean per trigger count equals the reference's (within
    4.5 combined standard errors)."""
    game = _game(features, free=FREE, wild=wild, tables=TABLE)
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.02, seed=65), 66, 3000)


@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mode_symbol_games(), st.sampled_from([2, 3]))
def test_random_feature_games_equal_the_slow_reference(text, multiplier):
    """Random 3-reel lines free-spins games whose wild carries a fixed or drawn multiplier in the free spins (perhaps
    substituting for fewer symbols, perhaps retriggering), played with the multipliers added up: the compiled
    feature's mean per trigger count equals the reference's."""
    assume('rule = "lines"' in text)
    text = text.replace('free_spins_mode = "free"',
                        f'free_spins_mode = "free"\nmultiplier = {multiplier}\nmultiplier_wilds = "add"', 1)
    game = loads_game(text, "random_added.toml")
    assert game.in_free_spins().pays.feature_multiplier == multiplier
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.01, seed=68, max_seconds=5), 69, 800)


def test_adding_pays_less_than_multiplying_with_a_multiplier_wild():
    """The same feature with a x2 / x5 wild pays less per feature when the multipliers add (x3 + x2 = x5 < x6) and
    the base game, which has no feature multiplier, is untouched (the same exact figures)."""
    summed = _game("free_spins = { 2 = 5 }", free=FREE, wild='by_mode = { free = { multiplier = "reveal" } }',
                   tables=TABLE)
    product = _product_twin()
    a, b = estimate_rtp(summed, precision=0.02, seed=67), estimate_rtp(product, precision=0.02, seed=67)
    assert a.components["lines"].value == b.components["lines"].value and a.components["lines"].source == "exact"
    assert a.rtp + 3 * a.rtp_ci95 < b.rtp - 3 * b.rtp_ci95


def _product_twin():
    text = lines_text("multiplier = 3\nfree_spins = { 2 = 5 }", free=FREE)
    text = text.replace('WILD = { kind = "wild", substitutes = "all" }',
                        'WILD = { kind = "wild", substitutes = "all", by_mode = { free = { multiplier = "reveal" } } }')
    return loads_game(text + TABLE, "product.toml")


@pytest.mark.parametrize("features,message", [
    ("free_spins = { 2 = 5 }\nmultiplier_growth = \"per_spin\"", "needs a multiplier that does not grow"),
    ("free_spins = { 2 = 5 }\nmultiplier = 1", "which is x1 here"),
    ("free_spins = { 2 = 5 }\nmultiplier_wilds = \"plus\"", "multiply"),
])
def test_bad_values_are_refused_naming_the_key(features, message):
    text = lines_text(features + ("\nmultiplier = 3" if "multiplier =" not in features else "")
                      + ("\nmultiplier_wilds = \"add\"" if "multiplier_wilds" not in features else ""))
    with pytest.raises(ReelsetError, match=message) as err:
        loads_game(text, "bad.toml")
    assert "multiplier_wilds" in str(err.value) and "bad.toml" in str(err.value)


def test_a_ways_game_is_refused():
    text = (reelsets_dir() / "examples" / "ways_free_spins.toml").read_text()
    text = text.replace("\n[features]", "\n[features]\nmultiplier_wilds = \"add\"", 1)
    with pytest.raises(ReelsetError, match="played on lines games"):
        loads_game(text, "ways_add.toml")


def test_the_gallery_mode_states_its_algebra():
    """wheel_free_spins.toml's sum_buy states the sum in its multiplier algebra (the report's overview line)."""
    game = load_game(reelsets_dir() / "examples" / "wheel_free_spins.toml").in_bet_mode("sum_buy")
    text = multiplier_algebra(game)
    assert "x2 and a x3 wild pay x5, not x6" in text and 'multiplier_wilds = "add"' in text
