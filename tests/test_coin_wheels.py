"""Wheel coins of the hold-and-respin feature (workbench/rounds/coin_wheels.py): a coin_values entry
{ wheel = "TABLE", weight = w } whose value is one award of a wheel of cash and respin segments, spun when it lands.

Checked three ways: the compiled wheel draw against the exact value of one award (workbench.exact.wheels); a feature
worked out by hand (a one-segment wheel: every wheel coin is worth that cash, collected by collectors); the compiled
feature against the slow reference (workbench.reference.hold_and_respin_feature, which spins the wheel itself) with
respins, collectors, multipliers and no repeated cash prizes; the gallery's wheel buy end to end (exact + conditional
against plain simulation); bad files name the file, the line and the key.
"""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest

from test_rounds_respins import BUY, COINS, coin_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game
from workbench.pays.scale import pay_scale
from workbench.rounds.coin_wheels import coin_wheel_draw, coin_wheel_summary, coin_wheel_value
from workbench.simulate import simulate
from workbench.simulate.rng import chunk_state

WHEEL = """
[tables.coin_wheel]
entries = [
  { award = "cash", value = 2, weight = 5, again = true },
  { award = "cash", value = 10, weight = 2 },
  { award = "cash", value = 4, weight = 3 },
  { award = "respin", weight = 1 },
]
"""


def wheel_game(features: str = "", coin_weight: int = 1, blank_weight: int = 5, extra: str = "", n: int = 5):
    """The 3x3 coin test game whose coin table also holds a wheel coin (weight 4), bought with ``n`` coins."""
    text = coin_text(features, coin_weight=coin_weight, blank_weight=blank_weight,
                     jackpots=',\n  { wheel = "coin_wheel", weight = 4 }' + extra)
    return loads_game(text + WHEEL + BUY.format(n=n), "wheel_coins.toml")


@pytest.mark.parametrize("repeat", [True, False])
def test_the_compiled_wheel_draw_has_the_exact_mean_of_one_award(repeat):
    """200,000 awards of the compiled draw: their mean (x total bet) equals the exact mean within 4.5 standard errors
    of the exact spread, and no award passes the exact largest."""
    from workbench.simulate.steps.wheels import award_draws

    game = wheel_game("" if repeat else "coin_wheel_repeat_cash = false")
    exact = coin_wheel_value(game)
    draw = coin_wheel_draw(game)
    out = np.zeros(200_000, dtype=np.int64)
    award_draws(draw, chunk_state(41, 0), out.shape[0], out)
    per_total_bet = pay_scale(game).units(game.bet.cost)
    got = out / per_total_bet
    sd = math.sqrt(float(exact.cash_variance))
    assert abs(got.mean() - float(exact.cash)) < 4.5 * sd / math.sqrt(out.shape[0])
    assert got.max() <= float(exact.cash_max) + 1e-12
    assert abs((got == 0).mean() - float(exact.cash_zero)) < 0.005


def test_a_one_segment_wheel_makes_every_wheel_coin_worth_its_cash_and_collectors_take_it():
    """A wheel of one cash segment (7 x total bet) and no landing on respins: 9 coins bought, each a wheel coin or a
    collector (1 : 1), so the feature pays 7 per wheel coin and each collector takes 7 x the wheel coins:
    E[coins] = 9 x 0.5 x 7, E[collected] = E[c (9 - c)] x 7 with c ~ Binomial(9, 1/2)."""
    text = coin_text(coin_weight=0, jackpots=',\n  { wheel = "one", weight = 10 },\n  { collector = true, weight = 10 }')
    for value, weight in COINS:
        text = text.replace(f"{{ value = {value}, weight = {weight} }}", f"{{ value = {value}, weight = 0 }}")
    text += '\n[tables.one]\nentries = [{ award = "cash", value = 7, weight = 1 }]\n' + BUY.format(n=9)
    game = loads_game(text, "one.toml").in_bet_mode("buy")
    result = simulate(game, 20_000, seed=42)
    cost = float(game.bet_mode.cost)
    assert result.components["coins"].value * cost == pytest.approx(9 * 0.5 * 7, rel=0.02)
    collected = result.components["coins:collected"]
    expected = (9 * 4.5 - (9 * 0.25 + 4.5**2)) * 7
    assert abs(collected.value * cost - expected) < 4.5 * collected.ci95 * cost / 1.96


@pytest.mark.parametrize("features", ["", "coin_wheel_repeat_cash = false\ncoin_wheel_max_spins = 3"])
def test_wheel_coins_equal_the_slow_reference(features):
    """Wheel coins beside value coins, a collector and a x2 multiplier, respins landing coins: the compiled feature's
    mean per component equals the slow reference's (within 4.5 combined standard errors)."""
    game = wheel_game(features, extra=',\n  { collector = true, weight = 1 },\n  { multiplier = 2, weight = 1 }')
    bought = game.in_bet_mode("buy")
    result = simulate(bought, 100_000, seed=43)
    rng = random.Random(44)
    runs = [reference.hold_and_respin_feature(game, 5, rng) for _ in range(4000)]
    cost = float(bought.bet_mode.cost)
    for component in ("coins", "coins:collected", "coins:multiplied"):
        wins = [float(r.get(component, 0) / game.bet.cost) for r in runs]
        mean, se = statistics.fmean(wins), statistics.stdev(wins) / math.sqrt(len(wins))
        mine = result.components[component]
        both = math.hypot(se, mine.ci95 * cost / 1.96)
        assert abs(mine.value * cost - mean) < 4.5 * both + 1e-12, (component, mine.value * cost, mean, both)


def test_the_gallery_wheel_buy_states_its_wheel_in_the_overview():
    """hold_and_respin_coins.toml's wheel_buy plays a coin table of its own: the report's overview names the bet mode
    and gives the wheel's exact mean (its RTP is held to plain simulation by tests/test_consistency.py, as every bet
    mode's)."""
    from workbench.report.game_tables import game_overview

    game = load_game("examples/hold_and_respin_coins")
    row = game_overview(game).loc["wheel coins", "value"]
    exact = coin_wheel_value(game.in_bet_mode("wheel_buy"))
    assert row.startswith("bet mode wheel_buy: [tables.coin_wheel]")
    assert f"mean {float(exact.cash):,.4f} x total bet" in row and "cannot repeat" in row
    assert coin_wheel_summary(game) == ""  # the base game's coins have no wheel


BAD = [
    (',\n  { wheel = "nope", weight = 1 }', "", "tables.coin_values.entries[3].wheel", "names the wheel it spins"),
    (',\n  { wheel = "coin_wheel", weight = 1 },\n  { wheel = "other", weight = 1 }', "",
     "tables.coin_values.entries[4].wheel", "spin one wheel"),
    (',\n  { wheel = "coin_wheel", value = 2, weight = 1 }', "", "tables.coin_values.entries[3]", "exactly one of these"),
    ("", "coin_wheel_repeat_cash = false", "features.coin_wheel_repeat_cash", "needs a wheel coin"),
    (',\n  { wheel = "coin_wheel", weight = 1 }', "coin_wheel_max_spins = 0", "features.coin_wheel_max_spins", ""),
    (',\n  { wheel = "bad_wheel", weight = 1 }', "", "tables.bad_wheel.entries[0].award", "award must be one of cash, respin"),
    (',\n  { wheel = "endless", weight = 1 }', "", "tables.endless.entries", "never stop"),
]
OTHER = """
[tables.other]
entries = [{ award = "cash", value = 1, weight = 1 }]

[tables.bad_wheel]
entries = [{ award = "free_spins", value = 3, weight = 1 }]

[tables.endless]
entries = [{ award = "respin", weight = 1 }]
"""


@pytest.mark.parametrize("entries, features, key, message", BAD)
def test_bad_wheel_coins_name_file_line_and_key(entries, features, key, message):
    text = coin_text(features, jackpots=entries) + WHEEL + OTHER
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bad_wheel_coins.toml")
    problems = info.value.problems
    assert any(p.key == key and message in p.message and p.line and p.file == "bad_wheel_coins.toml"
               for p in problems), problems
