"""The hold-and-respin round template (workbench/rounds/respins.py): a coin feature declared in [features] only.

Checked against closed forms: the starting-count states' probabilities by brute force over every stop
combination; with no coin landing on respins the feature pays its starting coins' mean value exactly
(3 respins, nothing more); with every empty cell landing a coin the screen fills at the first respin
and pays a full screen of coins plus the grand; the gallery game's end to end equals exact + conditional
(tests/test_gallery.py).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import loads_game
from workbench.simulate import estimate_rtp, round_model, simulate

REELS = [
    "A COIN B COIN COIN C D A B",
    "A B COIN C COIN D COIN B",
    "COIN A B COIN C COIN D A C",
]
COINS = [(1, 6), (2, 3), (5, 1)]  # (x total bet, weight)
MEAN_COIN = Fraction(sum(v * w for v, w in COINS), sum(w for _, w in COINS))


def coin_text(features: str = "", coin_weight: int = 1, blank_weight: int = 5, jackpots: str = "") -> str:
    reels = "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(REELS))
    entries = ",\n".join(f"  {{ value = {v}, weight = {w} }}" for v, w in COINS) + jackpots
    return f"""format_version = 1
name = "Coin test"
game_module = "hold_and_respin"

[grid]
reels = 3
rows = 3

[bet]
lines = 3
cost = 3
line_bet = 1

[symbols]
COIN = {{ kind = "bonus" }}
A = {{}}
B = {{}}
C = {{}}
D = {{}}

[paytable]
A = {{ 3 = 20 }}
B = {{ 3 = 10 }}
C = {{ 3 = 5 }}
D = {{ 3 = 4 }}

[paylines]
lines = [[1, 1, 1], [0, 0, 0], [2, 2, 2]]

[scatters.COINS]
symbols = ["COIN"]

[triggers.coins]
scatter = "COINS"
min_count = 4

[tables.coin_values]
entries = [
{entries}
]

[features]
trigger = "coins"
coin_values = "coin_values"
respin_coin_weight = {coin_weight}
respin_blank_weight = {blank_weight}
{features}

[strip_sets.base]
mode = "base"
{reels}
"""


def brute_force_counts(game) -> dict:
    strip_set = game.strip_sets["base"]
    out: dict = {}
    for stops in itertools.product(*[range(len(r)) for r in strip_set.reels]):
        count = sum(strip.symbols[(stop + row) % len(strip)] == "COIN" for strip, stop in zip(strip_set.reels, stops) for row in range(3))
        out[count] = out.get(count, 0) + 1
    cycle = math.prod(len(r) for r in strip_set.reels)
    return {c: Fraction(n, cycle) for c, n in out.items()}


def test_starting_coin_states_are_exact():
    game = loads_game(coin_text(), "coins.toml")
    model = round_model(game)
    counts = brute_force_counts(game)
    assert [s.name for s in model.strata] == [f"hold_and_respin:{n}" for n in range(4, 10)]
    for stratum in model.strata:
        assert stratum.probability == counts.get(int(stratum.name.split(":")[1]), 0)
    assert math.isclose(float(sum(s.probability for s in model.strata)), par(game, full_cycle=False).trigger_probability("coins"),
                        rel_tol=1e-12)


def test_no_landing_pays_the_starting_coins():
    game = loads_game(coin_text(coin_weight=0), "coins.toml")
    est = estimate_rtp(game, precision=0.02, seed=1)
    for stratum in est.strata:
        if stratum.probability > 0:
            n = int(stratum.name.split(":")[1])
            # coins x total bet; the round's cost is 3 credits = 1 total bet
            assert abs(stratum.mean_extra - float(n * MEAN_COIN)) < 4.5 * stratum.ci95 / 1.96 + 1e-12
    result = simulate(game, 100_000, seed=2)
    c = result.counters
    assert c["hold_and_respin"] > 0 and c["hold_and_respin:respins"] == 3 * c["hold_and_respin"]
    assert c["hold_and_respin:full"] == 0


def test_every_cell_landing_fills_the_screen_and_pays_the_grand():
    jackpots = ',\n  { jackpot = "mini", weight = 2 }'
    game = loads_game(coin_text("mini = 7\ngrand = 50", blank_weight=0, jackpots=jackpots), "coins.toml")
    est = estimate_rtp(game, precision=0.02, seed=3)
    mean_cell = Fraction(sum(v * w for v, w in COINS) + 7 * 2, sum(w for _, w in COINS) + 2)  # the mini is a coin too
    for stratum in est.strata:
        if stratum.probability > 0:
            assert abs(stratum.mean_extra - float(9 * mean_cell + 50)) < 4.5 * stratum.ci95 / 1.96 + 1e-12
    result = simulate(game, 100_000, seed=4)
    c = result.counters
    assert c["hold_and_respin"] > 0
    assert c["hold_and_respin:respins"] == c["hold_and_respin:full"] == c["hold_and_respin"]
    assert c["jackpot:mini"] > 0
    assert result.components["jackpot:grand"].value * 100_000 == pytest.approx(50 * c["hold_and_respin"], rel=1e-9)


@pytest.mark.parametrize("features, jackpots, key, message", [
    ("", ',\n  { jackpot = "mini", weight = 2 }', "tables.coin_values.entries", "needs [features] mini"),
    ("mini = 5", ',\n  { jackpot = "huge", weight = 2 }', "tables.coin_values.entries", "jackpot must be one of mini, minor, major"),
    ("", ',\n  { value = 2, jackpot = "mini", weight = 2 }', "tables.coin_values.entries", "exactly one of these"),
    ("respins = 0", "", "features.respins", "below the minimum 1"),
    ("respin = 3", "", "features", "unknown key 'respin'"),
])
def test_bad_features_name_file_line_and_key(features, jackpots, key, message):
    with pytest.raises(ReelsetError) as info:
        loads_game(coin_text(features, jackpots=jackpots), "coins.toml")
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "coins.toml"
               for p in info.value.problems), info.value.problems


def test_landing_weights_must_not_both_be_zero():
    with pytest.raises(ReelsetError, match="must be above 0"):
        loads_game(coin_text(coin_weight=0, blank_weight=0), "coins.toml")


# ---------------------------------------------------------------------------
# collector and multiplier coins: { collector = true, weight = w }, { multiplier = m, weight = w }
# ---------------------------------------------------------------------------
SPECIAL = ',\n  { collector = true, weight = 2 },\n  { multiplier = 3, weight = 1 }'


def test_special_coins_on_the_starting_screen_pay_their_exact_mean():
    """No coin lands on a respin: the feature is the starting screen. With v value coins, c collectors and m
    multiplier coins (x3) among the n coins, it pays (V + c V) x 3^m where E[V] = v x the mean value coin, so its
    mean is a sum over the multinomial compositions, computed exactly here."""
    game = loads_game(coin_text(coin_weight=0, jackpots=SPECIAL), "coins.toml")
    model = round_model(game)
    assert ("coins", "coins:collected", "coins:multiplied") == model.components[1:4]
    assert set(model.features[0].components) == {"coins", "coins:collected", "coins:multiplied"}
    weights = {"value": sum(w for _, w in COINS), "collector": 2, "multiplier": 1}
    total = sum(weights.values())
    est = estimate_rtp(game, precision=0.02, seed=21)
    checked = 0
    for stratum in est.strata:
        if stratum.probability == 0:
            continue
        n = int(stratum.name.split(":")[1])
        mean = Fraction(0)
        for v in range(n + 1):
            for c in range(n - v + 1):
                m = n - v - c
                ways = math.factorial(n) // (math.factorial(v) * math.factorial(c) * math.factorial(m))
                p = ways * Fraction(weights["value"], total) ** v * Fraction(2, total) ** c * Fraction(1, total) ** m
                mean += p * v * MEAN_COIN * (1 + c) * 3**m
        assert abs(stratum.mean_extra - float(mean)) < 4.5 * stratum.ci95 / 1.96 + 1e-12, (stratum, float(mean))
        checked += 1
    assert checked >= 3


BUY = "\n[bet_modes.buy]\ncost = 50\nbuy = true\nbuy_count = {n}\n"


@pytest.mark.parametrize("n", [4, 7])
def test_special_coins_equal_the_slow_reference(n):
    """Collectors, multipliers, a jackpot and the grand with respins landing coins: every component's mean of the
    compiled feature (a buy of n coins: every round a feature) equals workbench.reference.hold_and_respin_feature's."""
    import random
    import statistics

    from workbench import reference

    jackpots = SPECIAL + ',\n  { jackpot = "mini", weight = 1 }'
    game = loads_game(coin_text("mini = 7\ngrand = 40", coin_weight=1, blank_weight=4, jackpots=jackpots)
                      + BUY.format(n=n), "coins.toml")
    bought = game.in_bet_mode("buy")
    result = simulate(bought, 100_000, seed=22)
    assert result.counters["hold_and_respin"] == 100_000 and result.counters["hold_and_respin:full"] > 0
    rng = random.Random(23)
    runs = [reference.hold_and_respin_feature(game, n, rng) for _ in range(4000)]
    for component in ("coins", "coins:collected", "coins:multiplied", "jackpot:mini", "jackpot:grand"):
        wins = [float(r.get(component, 0) / game.bet.cost) for r in runs]
        mean, se = statistics.fmean(wins), statistics.stdev(wins) / math.sqrt(len(wins))
        mine = result.components[component]  # x the buy's cost
        cost = float(bought.bet_mode.cost)
        assert mine.value > 0
        both = math.hypot(se, mine.ci95 * cost / 1.96)
        assert abs(mine.value * cost - mean) < 4.5 * both + 1e-12, (n, component, mine.value, mean, both)


def test_a_collector_collects_the_value_coins_of_its_landing_too():
    """Every coin lands at once (a full screen at the start): the collectors take the value coins of that screen."""
    text = coin_text(coin_weight=0, jackpots=',\n  { collector = true, weight = 10 }') + BUY.format(n=9)
    text = text.replace("{ value = 1, weight = 6 }", "{ value = 1, weight = 0 }").replace(
        "{ value = 2, weight = 3 }", "{ value = 2, weight = 0 }").replace("{ value = 5, weight = 1 }", "{ value = 5, weight = 10 }")
    game = loads_game(text, "coins.toml").in_bet_mode("buy")
    result = simulate(game, 20_000, seed=24)
    # 9 cells, each a 5 coin or a collector (1 : 1): E[collected] = E[c (9 - c)] x 5 = (9 x 4.5 - (9 x 0.25 + 20.25)) x 5
    expected = (9 * 4.5 - (9 * 0.25 + 4.5**2)) * 5
    cost = float(game.bet_mode.cost)  # the buy's figures are x its cost
    assert result.components["coins"].value * cost == pytest.approx(9 * 0.5 * 5, rel=0.02)
    collected = result.components["coins:collected"]
    assert abs(collected.value * cost - expected) < 4.5 * collected.ci95 * cost / 1.96


def gallery_coins_game(tmp_path):
    """A copy of the gallery's hold_and_respin_coins.toml with collector and multiplier coins in its coin table."""
    from pathlib import Path

    from workbench.io import load_game

    text = (Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "hold_and_respin_coins.toml").read_text()
    mini = '  { jackpot = "mini", weight = 20 },\n'
    assert text.count(mini) == 1
    text = text.replace(mini, '  { collector = true, weight = 15 },\n  { multiplier = 2, weight = 10 },\n' + mini)
    path = tmp_path / "coins_collectors.toml"
    path.write_text(text)
    return load_game(path)


def test_gallery_copy_with_special_coins_end_to_end_agrees_with_exact_plus_conditional(tmp_path):
    game = gallery_coins_game(tmp_path)
    sheet = par(game, full_cycle=False)
    result = simulate(game, 300_000, seed=25)
    est = estimate_rtp(game, precision=0.004, seed=26)
    assert result.components["coins:collected"].value > 0 and result.components["coins:multiplied"].value > 0
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    for component, value in sheet.components.items():  # the base screen is the exact PAR's
        assert abs(result.components[component].value - value) < 4.5 * result.components[component].ci95 / 1.96 + 1e-12
    buy = game.in_bet_mode("coin_buy")
    bought = simulate(buy, 50_000, seed=27)
    six = est.strata[0]
    assert six.name == "hold_and_respin:6"
    cost = float(buy.bet_mode.cost)  # the buy's RTP is x its cost; the stratum's mean x total bet
    both = math.hypot(bought.rtp_ci95 * cost, six.ci95) / 1.96
    assert abs(bought.rtp * cost - six.mean_extra) < 4.5 * both, (bought.rtp, six.mean_extra)


@pytest.mark.parametrize("entry, key, message", [
    ("{ collector = false, weight = 2 }", "tables.coin_values.entries[3].collector", "collector = true marks"),
    ("{ collector = 1, weight = 2 }", "tables.coin_values.entries[3].collector", "collector = true marks"),
    ("{ multiplier = 1, weight = 2 }", "tables.coin_values.entries[3].multiplier", "a whole number 2 to 10,000"),
    ("{ multiplier = 2.5, weight = 2 }", "tables.coin_values.entries[3].multiplier", "got 2.5"),
    ("{ multiplier = 20000, weight = 2 }", "tables.coin_values.entries[3].multiplier", "a whole number 2 to 10,000"),
    ("{ collector = true, value = 3, weight = 2 }", "tables.coin_values.entries[3]", "exactly one of these"),
    ("{ multiplier = 2, jackpot = \"mini\", weight = 2 }", "tables.coin_values.entries[3]", "exactly one of these"),
])
def test_bad_special_coins_name_file_line_and_key(entry, key, message):
    with pytest.raises(ReelsetError) as info:
        loads_game(coin_text("mini = 5", jackpots=",\n  " + entry), "coins.toml")
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "coins.toml"
               for p in info.value.problems), info.value.problems
