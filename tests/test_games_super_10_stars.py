"""Super 10 Stars: every rule of the published rules (../shared/seeds/super_10_stars_rules.txt)
against the game module workbench/games/super_10_stars.py.

docs/games/super_10_stars.md lists each rule line with the test that covers it.

Most tests build a *degenerate variant* of the shipped reelset (its text edited
here, never the file): strips of three stops show all three on every spin, so a
rule fires on every spin (or never) and the amount it pays is known exactly.
Amounts are compared exactly, as fractions of the total bet summed over the
run (``totals``).  Statistical tests use fixed seeds and tolerances of about
3.5 standard errors.  Variants keep the parameter types of the shipped game,
so the compiled round is reused.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
import tomlkit

from workbench import ReelsetError, load_game, loads_game, par, validate_file
from workbench.reference import line_combination
from workbench.simulate import estimate_rtp, round_model, simulate

pytestmark = pytest.mark.slow  # minutes: `pytest -m 'not slow'` for a quick run

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "reelsets" / "super_10_stars.toml"
REGULAR = ("SEVEN", "MELON", "GRAPES", "BELL", "PLUM", "ORANGE", "LEMON", "CHERRY")
# reel 1 showing only scatters: no line can pay, and 1 GOLD + 2 SILVER pay nothing on their own
NO_LINES = "GOLD SILVER SILVER"
Z = 3.5  # standard errors allowed in statistical comparisons


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    return load_game("super_10_stars")


def _strip(reel: str) -> str:
    """``"SEVEN"`` -> a 3-stop strip of SEVEN; anything with a space is a strip as written."""
    return reel if " " in reel else f"{reel} {reel} {reel}"


def _entries(rows: list[dict]):
    out = tomlkit.array()
    for row in rows:
        t = tomlkit.inline_table()
        t.update(row)
        out.append(t)
    return out


def variant_text(base=None, *, free=None, s10free=None, tables=None, features=None) -> str:
    """The shipped reelset text with some parts replaced.

    ``base``: five reels for a single base strip set (``base_bonus`` is removed);
    ``free`` / ``s10free``: the free-spin strip sets; ``tables``: name -> entries;
    ``features``: key -> value.
    """
    doc = tomlkit.parse(SHIPPED.read_text(encoding="utf-8"))
    sets = doc["strip_sets"]
    for name, reels in (("base", base), ("free_spins", free), ("super10_free_spins", s10free)):
        if reels is None:
            continue
        assert len(reels) == 5
        for i, reel in enumerate(reels, start=1):
            sets[name][f"reel{i}"] = _strip(reel)
    if base is not None:
        del sets["base_bonus"]
    for name, rows in (tables or {}).items():
        doc["tables"][name]["entries"] = _entries(rows)
    for key, value in (features or {}).items():
        doc["features"][key] = value
    return tomlkit.dumps(doc)


def variant(base=None, **kw):
    return loads_game(variant_text(base, **kw), "<super_10_stars variant>")


def in_total_bets(game, line_bets) -> Fraction:
    return game.bet.in_total_bets(Fraction(line_bets), "line_bet")


def all_lines(game, line_pay) -> Fraction:
    """Every one of the 30 lines paying ``line_pay`` (x line bet), in x total bet."""
    return in_total_bets(game, len(game.paylines) * line_pay)


def assert_frequency(count: int, n: int, p: float) -> None:
    se = math.sqrt(p * (1 - p) / n)
    assert abs(count / n - p) <= Z * se, (count, n, p)


def frenzy_value(table, colour: str, limit) -> Fraction:
    """Exact expected total multiplier of the Frenzy Wheel for ``colour`` (written from the rules)."""
    weights = [w for w in table.weights]
    total_weight = sum(weights)
    live = {Fraction(0): Fraction(1)}
    value = Fraction(0)
    for _ in range(100_000):
        if not live:
            return value
        following: dict = {}
        for running, p in live.items():
            for entry, w in zip(table.entries, weights):
                if w == 0:
                    continue
                q = p * Fraction(w, total_weight)
                new = running + Fraction(entry["multiplier"])
                if entry["colour"] != colour or new > limit:
                    value += q * new
                else:
                    following[new] = following.get(new, 0) + q
        live = following
    raise AssertionError("the Frenzy Wheel does not end")


# ---------------------------------------------------------------------------
# Playing rules: grid, lines, bet
# ---------------------------------------------------------------------------
def test_grid_is_5x3_with_30_lines_and_free_spins(shipped):
    assert shipped.game_module == "super_10_stars"
    assert shipped.reels == 5 and shipped.rows == (3, 3, 3, 3, 3)
    assert len(shipped.paylines) == 30 and len(set(shipped.paylines)) == 30
    assert shipped.bet.lines == 30
    assert {"base", "free_spins", "super10_free_spins"} <= set(shipped.modes)


def test_spin_bets_30_lines_at_the_total_bet(shipped):
    bet = shipped.bet
    assert bet.credits(1, "total_bet") == 30 * bet.credits(1, "line_bet")
    assert bet.line_pay_unit == "line_bet"
    for group in ("GOLD", "SILVER", "BONUS"):
        assert shipped.scatters[group].unit == "total_bet"


@pytest.mark.parametrize(
    "reels, combos",
    [
        # the wild line pays more than the line it makes of the symbol it substitutes
        (["WILD", "WILD", "WILD", "CHERRY", "PLUM"], [("WILD", 3), ("CHERRY", 4)]),
        # the substituted line pays more than the wild line
        (["WILD", "WILD", "WILD", "SEVEN", "SEVEN"], [("WILD", 3), ("SEVEN", 5)]),
        (["WILD", "WILD", "SEVEN", "SEVEN", "LEMON"], [("SEVEN", 4)]),
    ],
)
def test_a_line_pays_only_its_highest_win(reels, combos):
    game = variant(reels)
    best = max(game.line_pay(sym, n) for sym, n in combos)
    assert sum(game.line_pay(sym, n) for sym, n in combos) > best or len(combos) == 1
    res = simulate(game, 1000, seed=1)
    t = res.component_totals()
    assert t["lines"] == res.spins * all_lines(game, best)  # all 30 lines add up
    assert res.rtp == pytest.approx(float(all_lines(game, best)))


@pytest.mark.parametrize(
    "reels, paying",
    [
        (["CHERRY", "CHERRY", "LEMON", "CHERRY", "CHERRY"], None),  # 2 + 2 cherries: no consecutive run of 3
        (["LEMON", "CHERRY", "CHERRY", "CHERRY", "CHERRY"], None),  # runs start on reel 1: right-aligned runs do not pay
        (["CHERRY", "CHERRY", "CHERRY", "LEMON", "CHERRY"], ("CHERRY", 3)),
        (["PLUM", "PLUM", "PLUM", "PLUM", "CHERRY"], ("PLUM", 4)),
    ],
)
def test_wins_are_consecutive_symbols_from_the_left(reels, paying):
    game = variant(reels)
    res = simulate(game, 1000, seed=2)
    expected = all_lines(game, game.line_pay(*paying)) if paying else 0
    assert res.component_totals()["lines"] == res.spins * expected
    assert res.hit_frequency == (1.0 if paying else 0.0)


def test_pays_follow_the_pay_table_and_scatter_pays(shipped):
    """The simulated base components equal the exact PAR sheet computed from the file's pay table."""
    sheet = par(shipped, full_cycle=False)
    res = simulate(shipped, 100_000, seed=3)
    for name, exact in sheet.components.items():
        est = res.components[name]
        assert abs(est.value - exact) <= 1.8 * est.ci95 + 1e-12, (name, est, exact)
    # what GAMES.md says of the series: silver pays 3..9 up to 100 x bet, golden 3, 4 or 5 up to 200 x bet
    assert sorted(shipped.scatters["SILVER"].pays) == list(range(3, 10)) and max(shipped.scatters["SILVER"].pays.values()) == 100
    assert sorted(shipped.scatters["GOLD"].pays) == [3, 4, 5] and max(shipped.scatters["GOLD"].pays.values()) == 200


# ---------------------------------------------------------------------------
# Scatters, wild, Bonus symbol pays
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reels, gold, silver",
    [
        ([NO_LINES, NO_LINES, "GOLD CHERRY CHERRY", "GOLD CHERRY CHERRY", "CHERRY"], 4, 4),
        (["SILVER", "GOLD CHERRY CHERRY", "GOLD CHERRY CHERRY", "GOLD CHERRY CHERRY", "CHERRY"], 3, 3),
        ([NO_LINES, "GOLD SILVER SILVER", "GOLD SILVER SILVER", "GOLD SILVER SILVER", "GOLD SILVER SILVER"], 5, 10),
    ],
)
def test_scatters_pay_by_count_anywhere_in_total_bets(reels, gold, silver):
    game = variant(reels)
    res = simulate(game, 1000, seed=4)
    t = res.component_totals()
    assert t["lines"] == 0
    assert t["scatter:GOLD"] == res.spins * game.scatters["GOLD"].pay(gold)
    assert t["scatter:SILVER"] == res.spins * game.scatters["SILVER"].pay(silver)
    assert game.scatters["GOLD"].pay(gold) > 0 and game.scatters["SILVER"].pay(silver) > 0


def test_scatter_wins_are_added_to_line_wins():
    game = variant(["SEVEN", "SEVEN", "SEVEN", "SILVER", "SILVER"])
    res = simulate(game, 1000, seed=5)
    t = res.component_totals()
    line = all_lines(game, game.line_pay("SEVEN", 3))
    scatter = game.scatters["SILVER"].pay(6)
    assert t["lines"] == res.spins * line and t["scatter:SILVER"] == res.spins * scatter
    assert res.rtp == pytest.approx(float(line + scatter))


def test_wild_substitutes_every_symbol_but_bonus_wheel_and_scatters(shipped):
    wild = shipped.symbols["WILD"]
    assert wild.kind == "wild" and shipped.features["wild_symbol"] == "WILD"
    assert wild.substitutes == frozenset(REGULAR)
    assert shipped.line_pay("WILD", 2) == 0
    for other in ("GOLD", "SILVER", "WHEEL", "BONUS", "SUPER7", "SUPER10"):
        assert line_combination(shipped, ["WILD", "WILD", other, "SEVEN", "SEVEN"]) is None, other
    for regular in REGULAR:  # WILD WILD x is a run of three x
        combo = line_combination(shipped, ["WILD", "WILD", regular, "SEVEN", "SEVEN"])
        assert combo[:2] == (("SEVEN", 5) if regular == "SEVEN" else (regular, 3)), regular
    # compiled: the wild does not stand in for a scatter on reel 3
    game = variant(["WILD", "WILD", "SILVER", "SEVEN", "SEVEN"])
    res = simulate(game, 1000, seed=6)
    t = res.component_totals()
    assert t["lines"] == 0 and t["scatter:SILVER"] == res.spins * game.scatters["SILVER"].pay(3)


def test_bonus_symbols_pay_the_total_bet_each(shipped):
    assert {n: shipped.scatters["BONUS"].pay(n) for n in (1, 2, 3)} == {1: 1, 2: 2, 3: 3}
    game = variant([NO_LINES, "BONUS CHERRY CHERRY", "CHERRY", "BONUS CHERRY CHERRY", "CHERRY"])
    res = simulate(game, 1000, seed=7)
    assert res.component_totals()["scatter:BONUS"] == res.spins * 2
    assert res.counters["free_spins"] == 0


@pytest.mark.parametrize(
    "symbol, reels",
    [("SUPER7", (3,)), ("SUPER10", (3,)), ("WHEEL", (1, 3, 5)), ("BONUS", (2, 3, 4))],
)
def test_special_symbols_only_on_their_reels(shipped, symbol, reels):
    assert shipped.symbols[symbol].reels == reels
    for strip_set in shipped.strip_sets.values():
        for r, strip in enumerate(strip_set.reels, start=1):
            if r not in reels:
                assert symbol not in strip.symbols
    wrong = next(r for r in range(1, 6) if r not in reels)
    text = SHIPPED.read_text(encoding="utf-8")
    doc = tomlkit.parse(text)
    strip = doc["strip_sets"]["base"][f"reel{wrong}"]
    doc["strip_sets"]["base"][f"reel{wrong}"] = str(strip).replace("CHERRY", " ".join([symbol] * shipped.symbols[symbol].height), 1)
    with pytest.raises(ReelsetError) as err:
        loads_game(tomlkit.dumps(doc), "bad")
    assert any(p.key == f"strip_sets.base.reel{wrong}" and "may not appear on reel" in p.message for p in err.value.problems)


# ---------------------------------------------------------------------------
# Super 7
# ---------------------------------------------------------------------------
def test_super7_expands_wild_and_respins_the_other_reels_once():
    # landed: SUPER7 / SILVER on reel 3 block every line; 2 + 2 + 1 silvers pay as landed
    # expanded: every line is SEVEN SEVEN WILD ... = 3 x SEVEN, on the landed spin and on the respin;
    # the respin counts the silvers of reels 1, 2, 4, 5 only (2 + 1)
    game = variant(["SEVEN", "SEVEN", "SUPER7 SILVER SILVER", "SILVER SILVER LEMON", "SILVER LEMON LEMON"])
    res = simulate(game, 2000, seed=8)
    n = res.spins
    t = res.component_totals()
    three_sevens = all_lines(game, game.line_pay("SEVEN", 3))
    assert res.counters["super7"] == n
    assert t["lines"] == 0
    assert t["scatter:SILVER"] == n * game.scatters["SILVER"].pay(5)
    assert t["super7"] == n * (three_sevens + three_sevens + game.scatters["SILVER"].pay(3))
    for k in ("wheel", "super10", "free_spins"):
        assert res.counters[k] == 0


def test_super7_respin_draws_new_stops():
    """The respin is an independent spin of reels 1, 2, 4, 5: Var(landed + respin) = 2 Var(spin), not 4."""
    game = variant(["SEVEN", "SEVEN", "SUPER7 CHERRY CHERRY", "SEVEN CHERRY CHERRY CHERRY", "LEMON"])
    # reel 4 shows one of 4 windows; the expanded pay of a window: 4 x SEVEN on lines through its SEVEN
    rows_on_reel4 = [line[3] for line in game.paylines]
    pays = []
    for top in range(4):
        shown = [("SEVEN CHERRY CHERRY CHERRY".split())[(top + r) % 4] for r in range(3)]
        pays.append(sum(in_total_bets(game, game.line_pay("SEVEN", 4 if shown[row] == "SEVEN" else 3)) for row in rows_on_reel4))
    mean = sum(pays) / 4
    var = sum((p - mean) ** 2 for p in pays) / 4
    res = simulate(game, 40_000, seed=9)
    n = res.spins
    k = res.model.components.index("super7")
    m = res.raw.comp_sum[k] / n / res.cost_units
    v = res.raw.comp_sq[k] / n / res.cost_units**2 - m * m
    assert m == pytest.approx(float(2 * mean), rel=0.01)
    assert v == pytest.approx(float(2 * var), rel=0.06)
    assert abs(v - 2 * float(var)) < abs(v - 4 * float(var)) / 5


def test_triggers_are_read_on_the_landed_screen():
    # Super 7 and 3 Bonus land together: both features; the respin (reel 3 wild, no Bonus) pays 2 Bonus, triggers nothing
    game = variant(
        [NO_LINES, "BONUS CHERRY CHERRY", "SUPER7 BONUS CHERRY", "BONUS CHERRY CHERRY", "CHERRY"],
        free=["CHERRY"] * 5,
        tables={"bonus_game": [{"spins": 1, "multiplier": 1, "weight": 1}]},
    )
    res = simulate(game, 1000, seed=10)
    n = res.spins
    t = res.component_totals()
    assert res.counters["super7"] == n and res.counters["free_spins"] == n
    assert res.counters["free_spins_played"] == n and res.counters["retriggers"] == 0
    assert t["scatter:BONUS"] == 3 * n
    assert t["super7"] == 2 * n
    assert t["free_spins"] == n * all_lines(game, game.line_pay("CHERRY", 5))


# ---------------------------------------------------------------------------
# Super 10 mini game and Frenzy Wheel
# ---------------------------------------------------------------------------
SUPER10_REELS = [NO_LINES, "CHERRY", "SUPER10 SUPER10 SUPER10 CHERRY CHERRY", "CHERRY", "CHERRY"]


def test_super10_is_three_rows_tall_and_must_be_wholly_visible(shipped):
    assert shipped.symbols["SUPER10"].height == 3
    group = shipped.features["super10_scatter"]
    assert shipped.scatters[group].visibility == "full" and shipped.scatters[group].symbols == ("SUPER10",)
    # the shipped probability: only one stop of reel 3 shows the whole symbol
    total = sum(s.weight for s in shipped.strip_sets_for("base"))
    exact = sum(Fraction(s.weight, total) * Fraction(s.reels[2].symbols.count("SUPER10") // 3, len(s.reels[2])) for s in shipped.strip_sets_for("base"))
    assert par(shipped, full_cycle=False).trigger_probability("super10") == pytest.approx(float(exact), rel=1e-12)
    # variant: SUPER10 is partly visible at 4 of 5 stops and wholly at 1
    game = variant(SUPER10_REELS, tables={"super10_reel": [{"award": "cash", "value": 7, "weight": 1}]})
    assert par(game, full_cycle=False).trigger_probability("super10") == pytest.approx(0.2, abs=1e-15)
    res = simulate(game, 20_000, seed=11)
    assert_frequency(res.counters["super10"], res.spins, 0.2)
    assert res.counters["super10_cash"] == res.counters["super10"]
    assert res.component_totals()["super10_cash"] == 7 * res.counters["super10"]  # cash x total bet
    assert res.component_totals()["lines"] == 0


def test_super10_free_spins_are_immediate_plain_free_spins():
    game = variant(
        SUPER10_REELS,
        s10free=["SEVEN"] * 5,
        tables={"super10_reel": [{"award": "free_spins", "spins": 7, "weight": 1}]},
    )
    res = simulate(game, 5000, seed=12)
    s10 = res.counters["super10"]
    assert s10 > 0 and res.counters["super10_free_spins"] == s10
    assert res.counters["free_spins_played"] == 7 * s10 and res.counters["free_spins"] == 0
    # no multiplier, same bet: each free spin pays 5 x SEVEN on all lines, x total bet of the triggering spin
    assert res.component_totals()["super10_free_spins"] == s10 * 7 * all_lines(game, game.line_pay("SEVEN", 5))


def test_super10_table_draws_each_award_by_weight():
    game = variant(SUPER10_REELS, tables={"super10_reel": [
        {"award": "cash", "value": 2, "weight": 1},
        {"award": "frenzy", "weight": 1},
        {"award": "free_spins", "spins": 1, "weight": 2},
    ]})
    res = simulate(game, 40_000, seed=13)
    s10 = res.counters["super10"]
    assert res.counters["super10_cash"] + res.counters["frenzy"] + res.counters["super10_free_spins"] == s10
    assert_frequency(res.counters["super10_cash"], s10, 0.25)
    assert_frequency(res.counters["frenzy"], s10, 0.25)
    assert_frequency(res.counters["super10_free_spins"], s10, 0.5)


@pytest.mark.parametrize(
    "segments, limit, red, green",
    [
        # red always continues: 1 + 1 + ... until the total passes 100 (101); green stops on the first red
        ([{"colour": "red", "multiplier": 1, "weight": 1}], 100, 101, 1),
        ([{"colour": "red", "multiplier": 3, "weight": 1}], 100, 102, 3),  # 99 is not above 100: one more
        ([{"colour": "red", "multiplier": 1, "weight": 1}], 10, 11, 1),  # frenzy_limit is a parameter
        ([{"colour": "green", "multiplier": 2.5, "weight": 1}], 100, 2.5, 102.5),
    ],
)
def test_frenzy_wheel_adds_until_a_mismatch_or_above_the_limit(segments, limit, red, green):
    for choice in ("red", "green"):
        game = variant(SUPER10_REELS, tables={"super10_reel": [{"award": "frenzy", "weight": 1}], "frenzy_wheel": segments},
                       features={"frenzy_limit": limit, "frenzy_choice": choice})
        res = simulate(game, 2000, seed=14)
        f = res.counters["frenzy"]
        t = res.component_totals()
        assert f == res.counters["super10"] > 0
        assert t["option:frenzy_red"] == f * Fraction(str(red)) and t["option:frenzy_green"] == f * Fraction(str(green))
        assert t["frenzy"] == f * Fraction(str(red if choice == "red" else green))  # the round pays the chosen colour
        assert res.rtp == pytest.approx(float(t["frenzy"]) / res.spins)  # options are not added to the round
        assert res.options["frenzy_choice"]["red"] - res.options["frenzy_choice"]["green"] == pytest.approx(float(f * Fraction(str(red - green)) / res.spins))


def test_frenzy_wheel_matches_its_exact_value():
    segments = [
        {"colour": "red", "multiplier": 5, "weight": 1},
        {"colour": "green", "multiplier": 2, "weight": 1},
        {"colour": "red", "multiplier": 1, "weight": 2},
    ]
    game = variant(SUPER10_REELS, tables={"super10_reel": [{"award": "frenzy", "weight": 1}], "frenzy_wheel": segments},
                   features={"frenzy_limit": 12})
    table = game.tables["frenzy_wheel"]
    exact = {c: frenzy_value(table, c, 12) for c in ("red", "green")}
    assert exact["red"] != exact["green"]
    res = simulate(game, 60_000, seed=15)
    f = res.counters["frenzy"]
    for colour, exact_value in exact.items():
        est = res.components[f"option:frenzy_{colour}"]
        assert abs(est.value * res.spins / f - float(exact_value)) <= Z / 1.96 * est.ci95 * res.spins / f, colour


def test_frenzy_choices_are_worth_the_same_in_the_shipped_design(shipped):
    table = shipped.tables[shipped.features["frenzy_table"]]
    limit = shipped.features["frenzy_limit"]
    assert frenzy_value(table, "red", limit) == frenzy_value(table, "green", limit)
    est = estimate_rtp(shipped, precision=0.003, seed=16)
    red, green = est.components["option:frenzy_red"], est.components["option:frenzy_green"]
    assert abs(red.value - green.value) <= Z / 1.96 * math.hypot(red.ci95, green.ci95)
    options = est.options["frenzy_choice"]
    assert abs(options["red"] - options["green"]) <= Z / 1.96 * math.hypot(red.ci95, green.ci95)
    # the average Frenzy Wheel win is the exact value of the wheel
    s10 = shipped.tables[shipped.features["super10_table"]]
    share = Fraction(sum(w for e, w in zip(s10.entries, s10.weights) if e["award"] == "frenzy"), s10.total_weight)
    p_frenzy = par(shipped, full_cycle=False).trigger_probability("super10") * float(share)
    assert abs(red.value / p_frenzy - float(frenzy_value(table, "red", limit))) <= Z / 1.96 * red.ci95 / p_frenzy


# ---------------------------------------------------------------------------
# Wheel
# ---------------------------------------------------------------------------
WHEEL_REELS = ["WHEEL GOLD SILVER", "CHERRY", "WHEEL CHERRY CHERRY", "CHERRY", "WHEEL CHERRY CHERRY"]


def test_three_wheels_spin_the_wheel_paying_line_bets():
    game = variant(WHEEL_REELS, tables={"wheel": [{"value": 100, "weight": 1}]})
    res = simulate(game, 1000, seed=17)
    assert res.counters["wheel"] == res.spins
    assert res.component_totals()["wheel"] == res.spins * Fraction(100, 30)  # 100 x line bet = 100/30 x total bet
    assert res.rtp == pytest.approx(100 / 30)
    two = variant(WHEEL_REELS[:4] + ["CHERRY"], tables={"wheel": [{"value": 100, "weight": 1}]})
    assert simulate(two, 1000, seed=17).counters["wheel"] == 0


def test_wheel_table_is_drawn_by_weight():
    game = variant(WHEEL_REELS, tables={"wheel": [{"value": 30, "weight": 3}, {"value": 300, "weight": 1}]})
    res = simulate(game, 20_000, seed=18)
    mean = (3 * 30 + 300) / 4 / 30
    est = res.components["wheel"]
    assert abs(est.value - mean) <= Z / 1.96 * est.ci95


# ---------------------------------------------------------------------------
# Free Spins Bonus Feature
# ---------------------------------------------------------------------------
BONUS_REELS = [NO_LINES, "BONUS CHERRY CHERRY", "BONUS CHERRY CHERRY", "BONUS CHERRY CHERRY", "CHERRY"]


def test_three_bonus_start_free_spins_with_the_mini_game_spins_and_multiplier():
    game = variant(BONUS_REELS, free=["SEVEN"] * 5, tables={"bonus_game": [{"spins": 5, "multiplier": 3, "weight": 1}]})
    res = simulate(game, 1000, seed=19)
    n = res.spins
    t = res.component_totals()
    assert res.counters["free_spins"] == n and res.counters["free_spins_played"] == 5 * n
    assert res.counters["retriggers"] == 0
    assert t["scatter:BONUS"] == 3 * n
    # every free-spin win x 3, at the bet of the triggering spin
    assert t["free_spins"] == n * 5 * 3 * all_lines(game, game.line_pay("SEVEN", 5))


def test_one_mini_game_draw_sets_spins_and_multiplier_together():
    game = variant(BONUS_REELS, free=["SEVEN"] * 5, tables={"bonus_game": [
        {"spins": 5, "multiplier": 2, "weight": 1},
        {"spins": 10, "multiplier": 3, "weight": 1},
    ]})
    res = simulate(game, 4000, seed=20)
    n = res.spins
    spin_pay = all_lines(game, game.line_pay("SEVEN", 5))
    per_trigger = res.component_totals()["free_spins"] / n / spin_pay
    # paired draw: (5 x 2 + 10 x 3) / 2 = 20; independent draws would give 7.5 x 2.5 = 18.75
    se = 10 / math.sqrt(n)
    assert abs(float(per_trigger) - 20) <= Z * se
    assert abs(res.counters["free_spins_played"] / n - 7.5) <= Z * 2.5 / math.sqrt(n)


@pytest.mark.parametrize("max_free_spins, capped", [(50, 44), (20, 19)])
def test_retriggers_add_the_same_spins_up_to_the_maximum(max_free_spins, capped):
    # every free spin shows 3 Bonus: the feature plays exactly max_free_spins spins
    game = variant(
        BONUS_REELS,
        free=["SEVEN", "BONUS CHERRY CHERRY", "BONUS CHERRY CHERRY", "BONUS CHERRY CHERRY", "SEVEN"],
        tables={"bonus_game": [{"spins": 7, "multiplier": 2, "weight": 1}]},
        features={"max_free_spins": max_free_spins},
    )
    res = simulate(game, 500, seed=21)
    n = res.spins
    assert res.counters["free_spins"] == n
    assert res.counters["free_spins_played"] == max_free_spins * n
    assert res.counters["retriggers"] == max_free_spins * n
    # 7 -> 14 -> ... full additions while they fit, then every retrigger is capped
    assert res.counters["free_spins_capped"] == capped * n
    # the Bonus symbols pay in free spins too, x the multiplier
    assert res.component_totals()["free_spins"] == n * max_free_spins * 3 * 2


def test_free_spins_use_special_reels_without_golden_scatter_or_wheel(shipped):
    f = shipped.features
    for mode, banned in ((f["free_spins_mode"], {"GOLD", "WHEEL", "SUPER7", "SUPER10"}),
                         (f["super10_free_spins_mode"], {"GOLD", "WHEEL", "BONUS", "SUPER7", "SUPER10"})):
        sets = shipped.strip_sets_for(mode)
        assert sets and mode != "base"
        for s in sets:
            for strip in s.reels:
                assert not banned & set(strip.symbols), (s.name, banned & set(strip.symbols))
    assert any("BONUS" in strip.symbols for s in shipped.strip_sets_for(f["free_spins_mode"]) for strip in s.reels)


@pytest.mark.parametrize(
    "mode, reel, symbol",
    [("free_spins", 1, "GOLD"), ("free_spins", 5, "WHEEL"), ("super10_free_spins", 3, "BONUS"),
     ("super10_free_spins", 2, "GOLD"), ("free_spins", 3, "SUPER7")],
)
def test_free_spin_strips_with_a_banned_symbol_are_rejected(tmp_path, mode, reel, symbol):
    doc = tomlkit.parse(SHIPPED.read_text(encoding="utf-8"))
    doc["strip_sets"][mode][f"reel{reel}"] = str(doc["strip_sets"][mode][f"reel{reel}"]).replace("CHERRY", symbol, 1)
    path = tmp_path / "bad.toml"
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    problems = validate_file(path)
    assert any(p.key == f"strip_sets.{mode}.reel{reel}" and symbol in p.message for p in problems), problems


# ---------------------------------------------------------------------------
# Return to player, whole rounds
# ---------------------------------------------------------------------------
def test_trigger_probabilities_match_simulated_frequencies(shipped):
    sheet = par(shipped, full_cycle=False)
    res = simulate(shipped, 200_000, seed=22)
    for name in ("wheel", "free_spins", "super7", "super10"):
        assert_frequency(res.counters[name], res.spins, sheet.trigger_probability(name))
    strata = {s.name: float(s.probability) for s in round_model(shipped).strata}
    assert sum(p for s, p in strata.items() if "bonus" in s.split("+")) == pytest.approx(sheet.trigger_probability("free_spins"), rel=1e-9)
    assert sum(p for s, p in strata.items() if "super10" in s.split("+")) == pytest.approx(sheet.trigger_probability("super10"), rel=1e-9)


def test_exact_plus_conditional_agrees_with_simulation():
    # a cheap variant where the features carry more of the RTP: half the spins on the Bonus / Super 7 strips
    text = SHIPPED.read_text(encoding="utf-8")
    doc = tomlkit.parse(text)
    doc["strip_sets"]["base"]["weight"] = 1
    doc["strip_sets"]["base_bonus"]["weight"] = 1
    game = loads_game(tomlkit.dumps(doc), "half and half")
    est = estimate_rtp(game, precision=0.006, seed=23)
    res = simulate(game, 200_000, seed=23)
    assert abs(est.rtp - res.rtp) <= Z / 1.96 * math.hypot(est.rtp_ci95, res.rtp_ci95)
    for name in ("super7", "wheel", "super10_cash", "frenzy", "super10_free_spins", "free_spins"):
        a, b = est.components[name], res.components[name]
        assert abs(a.value - b.value) <= Z / 1.96 * math.hypot(a.ci95, b.ci95), name
    assert abs(est.hit_frequency - res.hit_frequency) <= Z * math.sqrt(res.hit_frequency * (1 - res.hit_frequency) / res.spins)


def test_shipped_rtp_is_the_published_94_60_percent(shipped):
    est = estimate_rtp(shipped, precision=0.001, seed=1)
    assert abs(est.rtp - 0.9460) <= 0.0025 + est.rtp_ci95


def test_rtp_does_not_depend_on_the_bet(shipped):
    low = simulate(shipped, 20_000, seed=24, stake=0.30).to_dict()
    high = simulate(shipped, 20_000, seed=24, stake=90.0).to_dict()
    for key in ("rtp", "components", "hit_frequency", "std", "max_win", "features", "options", "win_distribution"):
        assert low[key] == high[key], key


def test_rounds_are_played_to_completion_and_replayable(shipped):
    a = simulate(shipped, 30_000, seed=25)
    b = simulate(shipped, 30_000, seed=25)
    assert a.counters == b.counters and a.raw.comp_sum.tolist() == b.raw.comp_sum.tolist()
    # every free spin awarded was played (no round is left open)
    assert a.counters["free_spins_played"] > 0


# ---------------------------------------------------------------------------
# Feature parameters are validated, naming the key
# ---------------------------------------------------------------------------
def _feature(key, value):
    def edit(doc):
        doc["features"][key] = value
    return edit


def _entry(table, row):
    """Replace entry 0 of a table (whatever the lead tuned it to)."""
    def edit(doc):
        t = tomlkit.inline_table()
        t.update(row)
        doc["tables"][table]["entries"][0] = t
    return edit


def _rename_feature(old, new):
    def edit(doc):
        value = doc["features"][old]
        del doc["features"][old]
        doc["features"][new] = value
    return edit


def _scatter_pays(group, pays):
    def edit(doc):
        t = tomlkit.inline_table()
        t.update({str(k): v for k, v in pays.items()})
        doc["scatters"][group]["pays"] = t
    return edit


@pytest.mark.parametrize(
    "edit, key, words",
    [
        (_feature("frenzy_choice", "blue"), "features.frenzy_choice", "'blue'"),
        (_entry("super10_reel", {"award": "gold", "value": 3, "weight": 1}), "tables.super10_reel.entries[0]", "award must be"),
        (_entry("super10_reel", {"award": "cash", "weight": 1}), "tables.super10_reel.entries[0]", "needs value"),
        (_entry("super10_reel", {"award": "cash", "value": "3", "weight": 1}), "tables.super10_reel.entries[0].value", "number"),
        (_entry("super10_reel", {"award": "free_spins", "weight": 1}), "tables.super10_reel.entries[0]", "needs spins"),
        (_entry("super10_reel", {"award": "free_spins", "spins": 0, "weight": 1}), "tables.super10_reel.entries[0].spins", "whole number"),
        (_entry("wheel", {"weight": 1}), "tables.wheel.entries[0]", "needs 'value'"),
        (_entry("wheel", {"value": 7.5, "weight": 1}), "tables.wheel.entries[0].value", "whole number"),
        (_entry("frenzy_wheel", {"colour": "blue", "multiplier": 1, "weight": 1}), "tables.frenzy_wheel.entries[0]", "red or green"),
        (_entry("frenzy_wheel", {"colour": "red", "weight": 1}), "tables.frenzy_wheel.entries[0]", "needs 'multiplier'"),
        (_entry("frenzy_wheel", {"colour": "red", "multiplier": -1, "weight": 1}), "tables.frenzy_wheel.entries[0].multiplier", ">= 0"),
        (_entry("bonus_game", {"spins": 8, "weight": 1}), "tables.bonus_game.entries[0]", "needs 'multiplier'"),
        (_entry("bonus_game", {"spins": 8, "multiplier": 1.5, "weight": 1}), "tables.bonus_game.entries[0].multiplier", "whole number"),
        (_entry("bonus_game", {"spins": 60, "multiplier": 2, "weight": 1}), "tables.bonus_game.entries[0].spins", "max_free_spins"),
        (_feature("max_free_spins", 0), "features.max_free_spins", "minimum"),
        (_feature("frenzy_limit", "100"), "features.frenzy_limit", "number"),
        (_feature("wild_symbol", "CHERRY"), "features.wild_symbol", "not a wild"),
        (_feature("super7_reel", 2), "strip_sets.base.reel3", "super7_reel = 2"),
        (_feature("super7_reel", 9), "features.super7_reel", "does not exist"),
        (_feature("bonus_table", "bonus"), "features.bonus_table", "unknown table"),
        (_feature("free_spins_mode", "base"), "strip_sets.base.reel1", "GOLD"),
        (_feature("wheel_trigger", 4), "triggers.wheel.min_count", "wheel_trigger"),
        (_rename_feature("frenzy_limit", "frenzy_limt"), "features.frenzy_limt", "unknown key"),
        (_scatter_pays("WHEEL", {3: 5}), "scatters.WHEEL.pays", "GOLD, SILVER and BONUS"),
    ],
)
def test_bad_feature_parameters_name_the_key(tmp_path, edit, key, words):
    doc = tomlkit.parse(SHIPPED.read_text(encoding="utf-8"))
    edit(doc)
    text = tomlkit.dumps(doc)
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    problems = validate_file(path)
    assert any(p.key == key and words in p.message for p in problems), [str(p) for p in problems]
    with pytest.raises(ReelsetError):
        loads_game(text, "bad")


def test_a_frenzy_wheel_that_never_ends_is_rejected():
    text = variant_text(tables={"frenzy_wheel": [{"colour": "green", "multiplier": 0, "weight": 1}]})
    with pytest.raises(ReelsetError) as err:
        loads_game(text, "bad")
    assert any(p.key == "tables.frenzy_wheel.entries" and "never ends for green" in p.message for p in err.value.problems)
