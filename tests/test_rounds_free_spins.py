"""The free-spins round template (workbench/rounds/free_spins.py): a feature declared in [features] only.

Checked against what can be computed without the simulator: the trigger states' probabilities by brute
force over every stop combination; the feature's mean when it has a closed form (no retriggers: spins x
multiplier x the free strips' exact RTP per spin, also with a growing multiplier); a cap equal to the
minimum win pays exactly that; retriggers stop at the limit; end to end equals exact + conditional.
"""

from __future__ import annotations

import itertools
from pathlib import Path
import math
from fractions import Fraction

import pytest

from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game
from workbench.simulate import estimate_rtp, exactness, round_model, simulate

REELS_BASE = [
    "A B C SCAT D A B C D WILD",
    "A B SCAT C D A B C D A B",
    "A B C D SCAT A B C D B",
]
REELS_FREE = [
    "A B C SCAT D A WILD C D",
    "A WILD SCAT C D A B C D",
    "A B C D SCAT A WILD C D",
]


def lines_text(features: str, base=REELS_BASE, free=REELS_FREE, counting: str = "anywhere") -> str:
    """A 3x3, 5-line game with a scatter SCAT (pays 2 / 5 x total bet for 2 / 3) starting free spins on 2+."""
    reels = lambda rs: "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(rs))  # noqa: E731
    return f"""format_version = 1
name = "Free spins test"
game_module = "free_spins"

[grid]
reels = 3
rows = 3

[bet]
lines = 5
cost = 5
line_bet = 1

[symbols]
WILD = {{ kind = "wild", substitutes = "all" }}
SCAT = {{ kind = "scatter" }}
A = {{}}
B = {{}}
C = {{}}
D = {{}}

[paytable]
A = {{ 3 = 20 }}
B = {{ 3 = 10 }}
C = {{ 2 = 1, 3 = 5 }}
D = {{ 3 = 4 }}
WILD = {{ 3 = 50 }}

[paylines]
lines = [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2], [2, 1, 0]]

[scatters.SCAT]
symbols = ["SCAT"]
counting = "{counting}"
pays = {{ 2 = 2, 3 = 5 }}

[triggers.free_spins]
scatter = "SCAT"
min_count = 2

[features]
trigger = "free_spins"
free_spins_mode = "free"
{features}

[strip_sets.base]
mode = "base"
{reels(base)}

[strip_sets.free]
mode = "free"
{reels(free)}
"""


def per_spin_rtp(free=REELS_FREE) -> Fraction:
    """Exact RTP of one free spin (x total bet): the free strips priced as the base game of the same game."""
    return par(loads_game(lines_text("free_spins = { 2 = 1 }", base=free), "free.toml"), full_cycle=False).rtp_exact


def brute_force_counts(game, mode: str = "base") -> dict:
    """Probability of each SCAT count (anywhere) over every stop combination of the mode's strip set."""
    strip_set = game.strip_sets_for(mode)[0]
    rows = game.rows[0]
    out: dict = {}
    for stops in itertools.product(*[range(len(r)) for r in strip_set.reels]):
        count = sum(strip.symbols[(stop + row) % len(strip)] == "SCAT"
                    for strip, stop in zip(strip_set.reels, stops) for row in range(rows))
        out[count] = out.get(count, 0) + 1
    cycle = math.prod(len(r) for r in strip_set.reels)
    return {c: Fraction(n, cycle) for c, n in out.items()}


def test_trigger_states_are_exact():
    game = loads_game(lines_text("free_spins = { 2 = 5, 3 = 8 }"), "fs.toml")
    model = round_model(game)
    counts = brute_force_counts(game)
    assert [s.name for s in model.strata] == ["free_spins:2", "free_spins:3+"]
    assert model.strata[0].probability == counts.get(2, 0)
    assert model.strata[1].probability == sum(p for c, p in counts.items() if c >= 3)
    # the same trigger probability as the exact PAR sheet reports
    assert math.isclose(float(sum(s.probability for s in model.strata)), par(game, full_cycle=False).trigger_probability("free_spins"),
                        rel_tol=1e-12)
    assert exactness(game)[0] is False


@pytest.mark.parametrize("features, spins_mult", [
    ("free_spins = { 2 = 5, 3 = 8 }\nmultiplier = 3", {2: 5 * 3, 3: 8 * 3}),
    # per spin growth 2, 3, 4, ...: sum of the first n multipliers
    ("free_spins = { 2 = 4, 3 = 6 }\nmultiplier = 2\nmultiplier_growth = \"per_spin\"", {2: 2 + 3 + 4 + 5, 3: sum(range(2, 8))}),
    # growth capped at 3: 1, 3, 3, 3
    ("free_spins = { 2 = 4 }\nmultiplier_growth = \"per_spin\"\nmultiplier_step = 2\nmax_multiplier = 3", {2: 1 + 3 + 3 + 3}),
])
def test_feature_mean_has_its_closed_form(features, spins_mult):
    """Without retriggers the feature pays (sum of its spins' multipliers) x the free strips' exact RTP per spin."""
    game = loads_game(lines_text(features), "fs.toml")
    rtp = per_spin_rtp()
    est = estimate_rtp(game, precision=0.01, seed=3)
    top = max(spins_mult)
    for stratum in est.strata:
        count = int(stratum.name.split(":")[1].rstrip("+"))
        expected = float(spins_mult[min(count, top)] * rtp)
        assert abs(stratum.mean_extra - expected) < 4.5 * stratum.ci95 / 1.96 + 1e-12, (stratum, expected)


def test_cap_equal_to_the_minimum_pays_exactly_that():
    game = loads_game(lines_text("free_spins = { 2 = 5, 3 = 8 }\nmultiplier = 2\nfeature_cap = 2\nmin_feature_win = 2"), "fs.toml")
    model = round_model(game)
    assert {"free_spins", "cap", "free_spins:guarantee"} <= set(model.components)
    est = estimate_rtp(game, precision=0.01, seed=4, max_seconds=5)
    for stratum in est.strata:
        assert stratum.mean_extra == pytest.approx(2.0, abs=1e-12) and stratum.ci95 == pytest.approx(0.0, abs=1e-12)
    result = simulate(game, 200_000, seed=5)
    features = result.counters["free_spins"]
    assert features > 0
    paid = sum(result.components[c].value for c in ("free_spins", "cap", "free_spins:guarantee"))
    assert paid * 200_000 == pytest.approx(2.0 * features, rel=1e-9)
    assert result.components["cap"].value < 0 < result.components["free_spins:guarantee"].value


def test_retriggers_stop_at_the_limit():
    # free strips with SCAT on every reel in view: every free spin retriggers
    free = ["SCAT A B", "SCAT A B", "SCAT A B"]
    game = loads_game(lines_text("free_spins = { 2 = 3 }\nretrigger = { 2 = 2 }\nmax_free_spins = 7", free=free), "fs.toml")
    result = simulate(game, 100_000, seed=6)
    c = result.counters
    assert c["free_spins"] > 0
    assert c["free_spins:spins"] == 7 * c["free_spins"]  # 3 + 2 + 2 (cut to 7), every feature
    assert c["free_spins:retriggers"] == 7 * c["free_spins"]  # every free spin retriggers
    assert c["free_spins:limit"] == 5 * c["free_spins"]  # the retriggers of spins 3..7 lose spins to the limit


@pytest.mark.parametrize("counting", ["anywhere", "adjacent_from_first_reel"])
def test_end_to_end_agrees_with_exact_plus_conditional(counting):
    text = lines_text("free_spins = { 2 = 5, 3 = 8 }\nretrigger = { 2 = 2, 3 = 4 }\nmax_free_spins = 30\nmultiplier = 2\n"
                      "multiplier_growth = \"per_win\"\nmax_multiplier = 6\nfeature_cap = 60", counting=counting)
    game = loads_game(text, "fs.toml")
    sheet = par(game, full_cycle=False)
    result = simulate(game, 600_000, seed=7)
    est = estimate_rtp(game, precision=0.004, seed=8)
    assert est.rtp > sheet.rtp
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    for component, value in sheet.components.items():  # the base screen is the exact PAR's
        assert abs(result.components[component].value - value) < 4.5 * result.components[component].ci95 / 1.96 + 1e-12


def test_gallery_free_spins_game_states_and_components():
    game = load_game("examples/ways_free_spins")
    model = round_model(game)
    assert model.components[:2] == ("ways", "scatter:SCAT") and "free_spins" in model.components
    assert [s.name for s in model.strata] == ["free_spins:3", "free_spins:4", "free_spins:5+"]
    assert math.isclose(float(sum(s.probability for s in model.strata)), par(game, full_cycle=False).trigger_probability("free_spins"),
                        rel_tol=1e-12)


@pytest.mark.parametrize("features, key, message", [
    ("free_spins = { 1 = 5 }", "features.free_spins", "below the trigger's min_count (2)"),
    ("free_spins = { 2 = 0 }", "features.free_spins", "every count awards 0 free spins"),
    ("free_spins = { 2 = 5 }\nretrigger = { 1 = 2 }", "features.retrigger", "below the trigger's min_count"),
    ("free_spins = { 2 = 5 }\nmultiplier_step = 2", "features.multiplier_step", "needs multiplier_growth"),
    ("free_spins = { 2 = 5 }\nmultiplier = 4\nmultiplier_growth = \"per_win\"\nmax_multiplier = 2", "features.max_multiplier",
     "below the starting multiplier"),
    ("free_spins = { 2 = 5 }\nmultiplier_growth = \"sometimes\"", "features.multiplier_growth", "is not one of"),
    ("free_spins = { 2 = 5 }\nfeature_cap = 1\nmin_feature_win = 3", "features.feature_cap", "below min_feature_win"),
    ("free_spins = { 2 = 5 }\nfeature_cap = 0", "features.feature_cap", "above 0"),
    ("free_spins = { 2 = 5 }\nmultiplier = 0", "features.multiplier", "below the minimum 1"),
    ("free_spins = { 2 = 5 }\nretriger = { 2 = 1 }", "features", "unknown key 'retriger'"),
    ("free_spins = { 2 = 5.5 }", "features.free_spins", "whole number"),
])
def test_bad_features_name_file_line_and_key(features, key, message):
    text = lines_text(features)
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "fs.toml")
    problems = info.value.problems
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "fs.toml" for p in problems), problems


def test_free_spins_mode_must_be_its_own():
    text = lines_text("free_spins = { 2 = 5 }").replace('free_spins_mode = "free"', 'free_spins_mode = "base"')
    with pytest.raises(ReelsetError, match="strip sets of their own mode"):
        loads_game(text, "fs.toml")


# ---------------------------------------------------------------------------
# the feature against the slow reference (workbench.reference.free_spins_feature): wilds, growth, retriggers, cap
# ---------------------------------------------------------------------------
FEATURES_TO_CHECK = {
    "sticky": "free_spins = { 2 = 4, 3 = 6 }\nretrigger = { 2 = 2 }\nmax_free_spins = 12\nfree_spins_wilds = \"sticky\"\n"
              "wild_symbol = \"WILD\"\nmultiplier = 2",
    "expanding": "free_spins = { 2 = 4, 3 = 6 }\nfree_spins_wilds = \"expanding\"\nwild_symbol = \"WILD\"\n"
                 "multiplier_growth = \"per_win\"\nmax_multiplier = 4",
    "walking": "free_spins = { 2 = 5 }\nretrigger = { 3 = 3 }\nfree_spins_wilds = \"walking\"\nwild_symbol = \"WILD\"\n"
               "feature_cap = 40\nmin_feature_win = 1",
    "adjacent, growth per spin": "free_spins = { 2 = 5, 3 = 7 }\nretrigger = { 2 = 1 }\nmax_free_spins = 15\n"
                                 "multiplier_growth = \"per_spin\"\nmultiplier_step = 2",
}


@pytest.mark.parametrize("label", FEATURES_TO_CHECK)
def test_feature_equals_the_slow_reference(label):
    """The compiled feature's mean per trigger count equals the slow reference's (both simulated: within 4.5
    combined standard errors), for every wild mode, multiplier growth, retrigger, limit and cap."""
    import random
    import statistics

    from workbench import reference

    counting = "adjacent_from_first_reel" if "adjacent" in label else "anywhere"
    game = loads_game(lines_text(FEATURES_TO_CHECK[label], counting=counting), "fs.toml")
    est = estimate_rtp(game, precision=0.01, seed=9)
    rng = random.Random(10)
    cost = game.bet.cost
    for stratum in est.strata:
        count = int(stratum.name.split(":")[1].rstrip("+"))
        wins = [float(reference.free_spins_feature(game, count, rng) / cost) for _ in range(3000)]
        mean, se = statistics.fmean(wins), statistics.stdev(wins) / math.sqrt(len(wins))
        both = math.hypot(se, stratum.ci95 / 1.96)
        assert abs(stratum.mean_extra - mean) < 4.5 * both + 1e-12, (label, stratum.name, stratum.mean_extra, mean, both)


def test_wilds_need_a_lines_game_and_a_one_row_wild():
    text = lines_text("free_spins = { 2 = 5 }\nfree_spins_wilds = \"sticky\"")
    with pytest.raises(ReelsetError, match="sticky wilds need wild_symbol"):
        loads_game(text, "fs.toml")
    text = lines_text("free_spins = { 2 = 5 }\nfree_spins_wilds = \"sticky\"\nwild_symbol = \"A\"")
    with pytest.raises(ReelsetError, match="must be a wild one row tall"):
        loads_game(text, "fs.toml")
    text = lines_text("free_spins = { 2 = 5 }\nwild_symbol = \"WILD\"")
    with pytest.raises(ReelsetError, match="wild_symbol needs free_spins_wilds"):
        loads_game(text, "fs.toml")
    ways = (Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "ways_free_spins.toml").read_text()
    ways = ways.replace("multiplier = 3 ", "multiplier = 3\nfree_spins_wilds = \"sticky\"\nwild_symbol = \"WILD\"\n", 1)
    with pytest.raises(ReelsetError, match="sticky wilds are played on lines games"):
        loads_game(ways, "ways.toml")
