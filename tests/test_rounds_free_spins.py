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
import re
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


def assert_strata_equal_the_reference(game, est, seed: int, samples: int) -> None:
    """Each stratum's mean of ``est`` (x the mode's cost) equals the mean of ``samples`` features of
    :func:`workbench.reference.free_spins_feature` started by its count, drawn with ``random.Random(seed)`` (both
    simulated: within 4.5 combined standard errors); strata of probability 0 are left out."""
    import random
    import statistics

    from workbench import reference

    rng = random.Random(seed)
    cost = game.bet.cost * game.bet_mode.cost
    for stratum in est.strata:
        if stratum.probability == 0:
            continue
        count = int(stratum.name.split(":")[1].split()[0].rstrip("+"))
        wins = [float(reference.free_spins_feature(game, count, rng) / cost) for _ in range(samples)]
        mean, se = statistics.fmean(wins), statistics.stdev(wins) / math.sqrt(len(wins))
        both = math.hypot(se, stratum.ci95 / 1.96)
        assert abs(stratum.mean_extra - mean) < 4.5 * both + 1e-12, (stratum.name, stratum.mean_extra, mean, both)


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


#: (estimate precision, reference features) where (0.01, 3000) wastes compiled rounds: the sticky game's RTP is about
#: 1,800 %, so 0.01 asked for 0.06 % relatively (9.4 million rounds) with the estimate's standard errors 50 and 23 x
#: below the reference's; at 0.05 they are 10 and 5 x below, and 3200 reference features (not 3000) keep the combined
#: standard error per state, so the tolerance, below what (0.01, 3000) gave
SIZES_TO_CHECK = {"sticky": (0.05, 3200)}


@pytest.mark.parametrize("label", FEATURES_TO_CHECK)
def test_feature_equals_the_slow_reference(label):
    """The compiled feature's mean per trigger count equals the slow reference's (both simulated: within 4.5
    combined standard errors), for every wild mode, multiplier growth, retrigger, limit and cap."""
    counting = "adjacent_from_first_reel" if "adjacent" in label else "anywhere"
    game = loads_game(lines_text(FEATURES_TO_CHECK[label], counting=counting), "fs.toml")
    precision, samples = SIZES_TO_CHECK.get(label, (0.01, 3000))
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=precision, seed=9), 10, samples)


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


# ---------------------------------------------------------------------------
# free spins drawn from a weighted table: free_spins_table / retrigger_table (entries { spins, weight }, optional count)
# ---------------------------------------------------------------------------
def tables_text(**tables) -> str:
    """``[tables.NAME]`` blocks: each a list of entries (dicts with weight)."""
    out = []
    for name, entries in tables.items():
        rows = ",\n".join("  { " + ", ".join(f"{k} = {v!r}" if not isinstance(v, str) else f'{k} = "{v}"'
                                            for k, v in e.items()) + " }" for e in entries)
        out.append(f"[tables.{name}]\nentries = [\n{rows},\n]\n")
    return "\n" + "\n".join(out)


SPINS_BY_COUNT = [{"spins": 2, "weight": 3, "count": 2}, {"spins": 6, "weight": 1, "count": 2},
                  {"spins": 10, "weight": 1, "count": 3}, {"spins": 4, "weight": 1, "count": 3}]
SPINS_ANY = [{"spins": 3, "weight": 2}, {"spins": 8, "weight": 1}, {"spins": 0, "weight": 1}]


def test_table_spins_are_built_per_count():
    game = loads_game(lines_text('free_spins_table = "fs"\nretrigger_table = "rt"')
                      + tables_text(fs=SPINS_BY_COUNT, rt=SPINS_ANY), "fs.toml")
    fs = round_model(game).params.fs
    assert list(fs.award_spins) == [2, 6, 10, 4] and list(fs.retrigger_spins) == [3, 8, 0]
    # rows by capped count 0..3: counts 0 and 1 never start the feature; count 2 draws entries 0-1, 3+ entries 2-3
    assert fs.award_cum.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [3, 4, 4, 4], [0, 0, 1, 2]]
    assert fs.retrigger_cum.tolist() == [[0, 0, 0], [0, 0, 0], [2, 3, 4], [2, 3, 4]]
    assert [s.name for s in round_model(game).strata] == ["free_spins:2", "free_spins:3+"]


@pytest.mark.parametrize("entries, mean_spins", [
    (SPINS_BY_COUNT, {2: Fraction(2 * 3 + 6, 4), 3: Fraction(10 + 4, 2)}),
    (SPINS_ANY, {2: Fraction(3 * 2 + 8, 4), 3: Fraction(3 * 2 + 8, 4)}),
])
def test_table_feature_mean_has_its_closed_form(entries, mean_spins):
    """No retriggers: the feature pays E[spins | count] x multiplier x the free strips' exact RTP per spin."""
    game = loads_game(lines_text('free_spins_table = "fs"\nmultiplier = 2') + tables_text(fs=entries), "fs.toml")
    rtp = per_spin_rtp()
    est = estimate_rtp(game, precision=0.01, seed=11)
    for stratum in est.strata:
        count = min(int(stratum.name.split(":")[1].rstrip("+")), 3)
        expected = float(mean_spins[count] * 2 * rtp)
        assert abs(stratum.mean_extra - expected) < 4.5 * stratum.ci95 / 1.96 + 1e-12, (stratum, expected)


def test_table_feature_equals_the_slow_reference():
    """Spins and retriggers drawn from tables (per count and for every count), with a limit and sticky wilds: the
    compiled feature's mean per trigger count equals workbench.reference.free_spins_feature's."""
    features = ('free_spins_table = "fs"\nretrigger_table = "rt"\nmax_free_spins = 14\nfree_spins_wilds = "sticky"\n'
                'wild_symbol = "WILD"')
    game = loads_game(lines_text(features) + tables_text(fs=SPINS_BY_COUNT, rt=SPINS_ANY), "fs.toml")
    # RTP about 1,200 %: precision 0.01 (0.08 % relatively, 9.6 million rounds) left the estimate's standard errors 50
    # and 23 x below the reference's; at 0.05 with 3200 reference features (not 3000) the combined standard error per
    # state, so the tolerance, stays below what (0.01, 3000) gave
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.05, seed=12), 13, 3200)


def test_reference_draws_table_spins_by_count():
    """The reference's own draw (the compiled one is checked against it above): per count the entries' weights."""
    import random

    from workbench.reference import _feature_spins

    game = loads_game(lines_text('free_spins_table = "fs"') + tables_text(fs=SPINS_BY_COUNT), "fs.toml")
    rng = random.Random(14)
    draws = [_feature_spins(game, "free_spins", 2, rng) for _ in range(4000)]
    assert set(draws) == {2, 6} and 0.70 < draws.count(2) / len(draws) < 0.80  # weights 3 : 1
    assert {_feature_spins(game, "free_spins", 7, rng) for _ in range(200)} == {10, 4}
    assert _feature_spins(game, "free_spins", 1, rng) == 0


WAYS_TABLES = tables_text(
    fs_spins=[{"spins": 8, "weight": 1, "count": 3}, {"spins": 12, "weight": 1, "count": 3},
              {"spins": 15, "weight": 1, "count": 4}, {"spins": 20, "weight": 2, "count": 5},
              {"spins": 30, "weight": 1, "count": 5}],
    fs_retrigger=[{"spins": 5, "weight": 2}, {"spins": 10, "weight": 1}],
)


def ways_table_game(tmp_path):
    """A copy of the gallery's ways_free_spins.toml with its spins and retriggers drawn from tables."""
    text = (Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "ways_free_spins.toml").read_text()
    fixed, retrigger = "\nfree_spins = { 3 = 10, 4 = 15, 5 = 20 }", "\nretrigger = { 3 = 10, 4 = 15, 5 = 20 }"
    assert text.count(fixed) == 1 and text.count(retrigger) == 1  # the [features] lines (not the comments)
    text = text.replace(fixed, '\nfree_spins_table = "fs_spins"').replace(retrigger, '\nretrigger_table = "fs_retrigger"')
    # the player's pick of spins by count does not apply to spins drawn from a table: no [choices] here
    text = re.sub(r"^\[choices\.free_spins_pick\].*?(?=^\[bet_modes)", "", text, count=1, flags=re.M | re.S)
    path = tmp_path / "ways_table_free_spins.toml"
    path.write_text(text.rstrip() + "\n" + WAYS_TABLES)
    return load_game(path)


def test_ways_table_game_end_to_end_agrees_with_exact_plus_conditional(tmp_path):
    game = ways_table_game(tmp_path)
    assert [s.name for s in round_model(game).strata] == ["free_spins:3", "free_spins:4", "free_spins:5+"]
    result = simulate(game, 300_000, seed=15)
    est = estimate_rtp(game, precision=0.004, seed=16)
    assert result.counters["free_spins:retriggers"] > 0
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    # the table's mean spins are those of the gallery's map at 3 and 4 scatters, 70/3 at 5: the 3- and 4-scatter
    # strata pay like the gallery game's
    gallery = estimate_rtp(load_game("examples/ways_free_spins"), precision=0.004, seed=17)
    for mine, theirs in zip(est.strata[:2], gallery.strata[:2]):
        assert mine.name == theirs.name
        both = math.hypot(mine.ci95, theirs.ci95) / 1.96
        assert abs(mine.mean_extra - theirs.mean_extra) < 4.5 * both + 1e-12, (mine, theirs)


def test_ways_table_game_buy_draws_the_bought_counts_spins(tmp_path):
    game = ways_table_game(tmp_path)
    bought = game.in_bet_mode("bonus_buy")
    model = round_model(bought)
    assert [(s.name, s.probability) for s in model.strata] == [("free_spins:3 (bought)", 1)]
    result = simulate(bought, 20_000, seed=18)
    spins = result.counters["free_spins:spins"] - 0  # 8 or 12 spins, then retriggers
    assert result.counters["free_spins"] == 20_000 and spins >= 8 * 20_000
    buy = estimate_rtp(bought, precision=0.05, seed=19).strata[0]  # x the buy's cost
    base = estimate_rtp(game, precision=0.004, seed=20).strata[0]  # x total bet
    cost = float(bought.bet_mode.cost)
    both = math.hypot(buy.ci95 * cost, base.ci95) / 1.96
    assert abs(buy.mean_extra * cost - base.mean_extra) < 4.5 * both, (buy, base)


@pytest.mark.parametrize("features, tables, key, message", [
    ('free_spins = { 2 = 5 }\nfree_spins_table = "fs"', {"fs": SPINS_ANY}, "features.free_spins_table", "not both"),
    ('free_spins = { 2 = 5 }\nretrigger = { 2 = 1 }\nretrigger_table = "fs"', {"fs": SPINS_ANY}, "features.retrigger_table",
     "not both"),
    ("", {}, "features", "need free_spins = { count = spins } or free_spins_table"),
    ('free_spins_table = "nope"', {"fs": SPINS_ANY}, "features.free_spins_table", "unknown table 'nope'"),
    ('free_spins_table = "fs"', {"fs": [{"spins": -1, "weight": 1}]}, "tables.fs.entries[0].spins", "whole number 0 to"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 2.5, "weight": 1}]}, "tables.fs.entries[0].spins", "whole number 0 to"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "weight": 1}, {"spins": "ten", "weight": 1}]},
     "tables.fs.entries[1].spins", "got string 'ten'"),
    ('free_spins_table = "fs"', {"fs": [{"value": 5, "weight": 1}]}, "tables.fs.entries[0]", "needs spins = n"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "multiplier": 2, "weight": 1}]}, "tables.fs.entries[0].multiplier",
     "unknown key 'multiplier'"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "count": 1, "weight": 1}]}, "tables.fs.entries[0].count",
     "below the trigger's min_count (2)"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "count": 0, "weight": 1}]}, "tables.fs.entries[0].count",
     "whole number 1 to"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "count": 2, "weight": 1}, {"spins": 5, "weight": 1}]},
     "tables.fs.entries", "either every entry"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 0, "weight": 4}, {"spins": 9, "weight": 0}]}, "tables.fs.entries",
     "every entry awards 0 free spins"),
    ('free_spins = { 2 = 5 }\nretrigger_table = "rt"', {"rt": [{"spins": 0, "weight": 1}]}, "tables.rt.entries",
     "leave retrigger_table out"),
    ('free_spins_table = "fs"', {"fs": [{"spins": 5, "count": 2, "weight": 1}, {"spins": 5, "count": 3, "weight": 0}]},
     "tables.fs.entries", "entries for count 3 have weights adding up to 0"),
])
def test_bad_spins_tables_name_file_line_and_key(features, tables, key, message):
    text = lines_text(features) + (tables_text(**tables) if tables else "")
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "fs.toml")
    problems = info.value.problems
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "fs.toml" for p in problems), problems
