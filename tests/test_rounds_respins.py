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
    ("", ',\n  { value = 2, jackpot = "mini", weight = 2 }', "tables.coin_values.entries", "one of the two"),
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
