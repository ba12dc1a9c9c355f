"""Bet modes that change the feature, and retriggers on fewer scatters.

- ``[bet_modes.NAME] features``: the ``[features]`` parameters a mode plays otherwise (a buy playing another free
  game: its own strips, wild multipliers, retriggers), checked as the template checks ``[features]`` and reported at
  the mode's key;
- ``buy_count_table``: the count a bought feature starts with, drawn by weight: one stratum per count with its exact
  probability, the end-to-end simulation drawing the count (free spins, hold and respin, tumble);
- ``retrigger_min_count``: a free spin retriggers on fewer scatters than the trigger needs.

Each against the slow reference (workbench.reference) or an end-to-end simulation, within 4.5 standard errors.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest

from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game
from workbench.simulate import estimate_rtp, round_model, simulate

from test_mode_symbols import small_text
from test_rounds_free_spins import assert_strata_equal_the_reference

EXAMPLES = Path(__file__).resolve().parent.parent / "reelsets" / "examples"
DRAFT = EXAMPLES / "ways_1024_free_wild_multipliers.toml"
BUY_TABLE = "[tables.counts]\nentries = [{ count = 2, weight = 3 }, { count = 3, weight = 1 }]\n"
SUPER = '\n[strip_sets.super]\nmode = "super"\nreel1 = "A W W S C A"\nreel2 = "W S B W A B"\nreel3 = "W B C S A W"\n'


def problems(text: str) -> list:
    with pytest.raises(ReelsetError) as err:
        loads_game(text, "bad.toml")
    return err.value.problems


def buy_text(mode: str, extra: str = BUY_TABLE + SUPER) -> str:
    return small_text('W = { kind = "wild", by_mode = { super = { multiplier = 3 } } }', extra=extra + "\n[bet_modes.buy]\n"
                      + mode)


BAD = [
    ('cost = 20\nbuy = true\nbuy_count_table = "nope"', "bet_modes.buy.buy_count_table", "unknown table 'nope'"),
    ('cost = 20\nbuy = true\nbuy_count = 2\nbuy_count_table = "counts"', "bet_modes.buy", "one of them"),
    ('cost = 20\nbuy_count_table = "counts"', "bet_modes.buy.buy_count_table", "buy_count_table needs buy = true"),
    ('cost = 20\nbuy = true\nbuy_count_table = "lows"', "bet_modes.buy.buy_count_table",
     "buy_count_table count 1 is below the trigger's min_count (2)"),
    ('cost = 20\nbuy = true\nbuy_count_table = "odd"', "tables.odd.entries[0].spins", "unknown key 'spins'"),
    ('cost = 20\nbuy = true\nbuy_count = 2\nfeatures = { free_spins_mode = "nope" }', "bet_modes.buy.features.free_spins_mode",
     "nope"),
    ('cost = 20\nbuy = true\nbuy_count = 2\nfeatures = { spins = 3 }', "bet_modes.buy.features.spins", "unknown key 'spins'"),
    ('cost = 20\nbuy = true\nbuy_count = 2\nfeatures = { retrigger = { 1 = 2 } }', "bet_modes.buy.features.retrigger",
     "count 1 is below the trigger's min_count (2)"),
    ('cost = 20\nbuy = true\nbuy_count = 2\nfeatures = 4', "bet_modes.buy.features", "expected a table"),
]


@pytest.mark.parametrize("mode, key, message", BAD)
def test_bad_bet_mode_features_name_file_line_and_key(mode, key, message):
    extra = BUY_TABLE + SUPER + "[tables.lows]\nentries = [{ count = 1, weight = 1 }]\n" \
        "[tables.odd]\nentries = [{ spins = 1, weight = 1 }]\n"
    found = problems(buy_text(mode, extra))
    assert any(p.key == key and message in p.message and p.line for p in found), [(p.key, p.line, p.message) for p in found]


def test_bad_retrigger_min_count():
    base = 'trigger = "fs"\nfree_spins = { 2 = 3 }\nfree_spins_mode = "free"\n'
    found = problems(small_text(features=base + "retrigger_min_count = 1"))
    assert any(p.key == "features.retrigger_min_count" and "needs retrigger or retrigger_table" in p.message for p in found)
    found = problems(small_text(features=base + "retrigger_min_count = 2\nretrigger = { 1 = 1 }"))
    assert any(p.key == "features.retrigger" and "count 1 is below retrigger_min_count (2)" in p.message for p in found)
    found = problems(small_text(features=base + "retrigger_min_count = 0\nretrigger = { 1 = 1 }"))
    assert any(p.key == "features.retrigger_min_count" for p in found)


def test_a_drawn_buy_count_is_one_stratum_per_count_with_its_exact_probability():
    game = loads_game(buy_text('cost = 20\nbuy = true\nbuy_count_table = "counts"\n'
                               'features = { free_spins_mode = "super", free_spins = { 2 = 2, 3 = 5 } }'), "buy.toml")
    bought = game.in_bet_mode("buy")
    assert bought.features["free_spins_mode"] == "super" and game.features["free_spins_mode"] == "free"
    assert bought.in_strip_mode("super").symbols["W"].multiplier == 3
    model = round_model(bought)
    assert [(s.name, s.probability) for s in model.strata] == [("free_spins:2 (bought)", Fraction(3, 4)),
                                                               ("free_spins:3 (bought)", Fraction(1, 4))]
    # end to end the count is drawn: 2 or 5 spins a round, 3 : 1
    result = simulate(bought, 40_000, seed=3)
    assert result.counters["free_spins"] == 40_000
    spins = result.counters["free_spins:spins"] / 40_000
    assert abs(spins - (0.75 * 2 + 0.25 * 5)) < 0.03, spins
    est = estimate_rtp(bought, precision=0.01, seed=4)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    # each stratum against the slow reference, which plays the mode's own free game
    assert_strata_equal_the_reference(bought, est, 5, 2000)


def test_retriggers_on_fewer_scatters_equal_the_slow_reference():
    features = 'trigger = "fs"\nfree_spins = { 2 = 3 }\nfree_spins_mode = "free"\nretrigger_min_count = 1\n' \
               'retrigger = { 1 = 1, 2 = 3 }\nmax_free_spins = 12'
    game = loads_game(small_text(features=features), "retrigger.toml")
    # The game's RTP is about 3,400 %, so precision 0.01 asked for 0.03 % relatively (7.9 million rounds): at 0.1 the
    # estimate's standard error (0.12 x bet) is still tiny beside the reference's (1.2 at 1500 features), and 1550
    # reference features (not 1500) keep the combined standard error, so the tolerance, below what 0.01 with 1500
    # features gave.
    est = estimate_rtp(game, precision=0.1, seed=6)
    result = simulate(game, 100_000, seed=7)
    assert result.counters["free_spins:retriggers"] > result.counters["free_spins"]  # one SCAT is enough
    assert_strata_equal_the_reference(game, est, 8, 1550)


@pytest.mark.parametrize("example, table, replaced", [
    ("hold_and_respin_coins", "[tables.bought]\nentries = [{ count = 6, weight = 2 }, { count = 8, weight = 1 }]\n",
     "buy_count = 6"),
    ("pay_anywhere_tumble", "[tables.bought]\nentries = [{ count = 4, weight = 5 }, { count = 5, weight = 1 }]\n",
     "buy_count = 4"),
])
def test_a_drawn_buy_count_in_the_other_templates(tmp_path, example, table, replaced):
    """hold and respin and tumble buys draw their count too: exact probabilities per stratum, end to end agreeing."""
    text = (EXAMPLES / f"{example}.toml").read_text()
    assert text.count(replaced + "\n") == 1
    path = tmp_path / f"{example}.toml"
    path.write_text(text.replace(replaced + "\n", 'buy_count_table = "bought"\n') + "\n" + table)
    game = load_game(path)
    name = next(n for n, m in game.bet_modes.items() if m.buy)
    bought = game.in_bet_mode(name)
    strata = round_model(bought).strata
    weights = [w for _, w in bought.bet_mode.buy_counts]
    assert [s.probability for s in strata] == [Fraction(w, sum(weights)) for w in weights]
    result = simulate(bought, 30_000, seed=9)
    est = estimate_rtp(bought, precision=0.02, seed=10)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)


def test_the_gallery_buy_plays_its_own_free_game():
    game = load_game(DRAFT)
    buy = game.in_bet_mode("super_buy")
    assert buy.features["free_spins_mode"] == "super_free" and buy.bet_mode.buy_counts == ((3, 85), (4, 12), (5, 3))
    assert buy.in_strip_mode("super_free").symbols["WILD"].multiplier_table == "super_wild"
    est = estimate_rtp(buy, precision=0.01, seed=12)
    result = simulate(buy, 30_000, seed=13)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
