"""Wheels as awards of the free-spins round ([features] wheel, workbench/rounds/wheels.py): cash, extra free spins,
meter spins, a re-spin, "a cash prize cannot repeat within one award".

Checked three ways: the exact value of an award (workbench.exact.wheels) against sums worked out by hand; the
compiled wheel (simulate.steps.wheels) and the slow reference (workbench.reference.wheel_award) against the exact
value on random wheels (hypothesis); the whole feature, meter spins included, against the slow reference feature
(lines and ways), and end to end against exact + conditional on the gallery game.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from hyp import examples
from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench.errors import ReelsetError
from workbench.exact.wheels import WheelSegment, wheel_value
from workbench.io import load_game, loads_game
from workbench.simulate import estimate_rtp, round_model, simulate

GALLERY = Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "wheel_free_spins.toml"
SUPER = ["WILD A WILD B C", "WILD B WILD C A", "WILD C A WILD D"]  # meter spins: WILD-rich, no SCAT


def wheel_text(entries: list, features: str = "", free_spins: str = "free_spins = { 2 = 3 }\nretrigger = { 3 = 2 }",
               meter: bool | None = None) -> str:
    """The 3x3 test game of test_rounds_free_spins with a wheel ``[tables.wheel]`` of ``entries`` and, with
    ``meter`` (absent: when a segment awards meter spins), meter spins on the strips ``SUPER`` (mode "super")."""
    if meter is None:
        meter = any(e["award"] == "meter_spins" for e in entries)
    feats = f'{free_spins}\nwheel = "wheel"\n' + ('meter_spins_mode = "super"\n' if meter else "") + features
    supers = "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(SUPER))
    return (lines_text(feats) + table_text("wheel", entries)
            + (f'\n[strip_sets.super]\nmode = "super"\n{supers}\n' if meter else ""))


def table_text(name: str, entries: list) -> str:
    """A ``[tables.NAME]`` block of ``entries`` (dicts; bools written as TOML's true / false)."""
    def value(v) -> str:
        return str(v).lower() if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else repr(v)
    rows = ",\n".join("  { " + ", ".join(f"{k} = {value(v)}" for k, v in e.items()) + " }" for e in entries)
    return f"\n[tables.{name}]\nentries = [\n{rows},\n]\n"


WHEEL = [{"award": "cash", "value": 10, "weight": 2, "again": True}, {"award": "cash", "value": 3, "weight": 5, "again": True},
         {"award": "free_spins", "value": 4, "weight": 10}, {"award": "meter_spins", "value": 2, "weight": 6},
         {"award": "respin", "weight": 3}]


# ---------------------------------------------------------------------------
# the exact value of one award
# ---------------------------------------------------------------------------
def _segments(*rows) -> list:
    return [WheelSegment(kind, Fraction(value), again, weight) for kind, value, again, weight in rows]


def test_an_award_without_repeats_is_worked_out_by_hand():
    """Cash 10 and 20 (spin again, weight 1 each), 5 free spins (weight 2), no cash prize twice.  First spin: 10, 20
    or the spins with 1/4, 1/4, 1/2.  After a 10 the wheel holds 20 and the spins (1/3, 2/3), and after both cash
    prizes only the spins: cash 1/4 (10 + 20/3) + 1/4 (20 + 10/3) = 10; every award ends on its 5 spins; wheel spins
    1 + 2 x 1/4 x (1 + 1/3) = 5/3."""
    wheel = _segments(("cash", 10, True, 1), ("cash", 20, True, 1), ("free_spins", 5, False, 2))
    value = wheel_value(wheel, repeat_cash=False, max_spins=100)
    assert (value.cash, value.free_spins, value.meter_spins, value.wheel_spins, value.limit) == (10, 5, 0, Fraction(5, 3), 0)


def test_repeats_and_the_safety_maximum_are_worked_out_by_hand():
    """The same wheel with repeats and at most 3 spins: each spin pays 7.5 on average and spins again with
    probability 1/2, so cash 7.5 (1 + 1/2 + 1/4), the spins unless all 3 spins were cash (1/8: the limit)."""
    wheel = _segments(("cash", 10, True, 1), ("cash", 20, True, 1), ("free_spins", 5, False, 2))
    value = wheel_value(wheel, repeat_cash=True, max_spins=3)
    assert value.cash == Fraction(105, 8) and value.limit == Fraction(1, 8)
    assert value.free_spins == 5 * Fraction(7, 8) and value.wheel_spins == Fraction(7, 4)
    # a respin segment is a spin that awards nothing: it scales every mean by 1 / (1 - its probability)
    respin = wheel_value(_segments(("meter_spins", 2, False, 1), ("respin", 0, True, 1)), repeat_cash=True, max_spins=60)
    assert float(respin.meter_spins) == pytest.approx(2.0, abs=1e-15) and float(respin.wheel_spins) == pytest.approx(2.0)


@st.composite
def wheels(draw):
    """A random valid wheel: 1-6 segments, cash values that may repeat, again flags, some stopping segment."""
    n = draw(st.integers(1, 6))
    entries = []
    for _ in range(n):
        kind = draw(st.sampled_from(["cash", "cash", "free_spins", "meter_spins", "respin"]))
        entry = {"award": kind}
        if kind == "cash":
            entry["value"] = draw(st.sampled_from([1, 2, 5, 2.5]))
        elif kind != "respin":
            entry["value"] = draw(st.integers(0, 6))
        if kind != "respin" and draw(st.booleans()):
            entry["again"] = True
        entry["weight"] = draw(st.integers(0, 9))
        entries.append(entry)
    entries.append({"award": "free_spins", "value": draw(st.integers(1, 4)), "weight": draw(st.integers(1, 9))})
    features = (f"wheel_repeat_cash = {str(draw(st.booleans())).lower()}\n"
                f"wheel_max_spins = {draw(st.integers(1, 8))}\n")
    return entries, features


@settings(max_examples=examples(25), deadline=None)
@given(wheels(), st.integers(0, 2**31))
def test_compiled_and_reference_wheels_equal_the_exact_value(wheel, seed):
    """On random wheels the compiled award (20,000 awards) and the slow reference (1,500) have the exact means of
    cash, free spins, meter spins, wheel spins and limit: within 5 standard errors."""
    from workbench import reference
    from workbench.pays.scale import pay_scale
    from workbench.rounds.wheels import wheel_params, wheel_value as game_wheel_value
    from workbench.simulate.rng import chunk_state
    from workbench.simulate.steps.wheels import wheel_awards

    entries, features = wheel
    game = loads_game(wheel_text(entries, features), "wheel.toml")
    exact = game_wheel_value(game)
    n = 20_000
    out = np.zeros((n, 5), dtype=np.int64)
    wheel_awards(wheel_params(game, []), chunk_state(seed, 0), n, out)
    cost = pay_scale(game).cost_units
    drawn = [out[:, 0] / cost, out[:, 1], out[:, 2], out[:, 3], out[:, 4]]
    rng = random.Random(seed)
    slow = np.array([[float(c / game.bet.cost), f, m] for c, f, m in (reference.wheel_award(game, rng) for _ in range(1500))])
    means = [exact.cash, exact.free_spins, exact.meter_spins, exact.wheel_spins, exact.limit]
    for i, (sample, mean) in enumerate(zip(drawn + [slow[:, 0], slow[:, 1], slow[:, 2]], means + means[:3])):
        se = max(float(np.std(sample)) / math.sqrt(len(sample)), 1e-9)
        assert abs(float(np.mean(sample)) - float(mean)) < 5 * se + 1e-12, (i, float(np.mean(sample)), float(mean), entries)


# ---------------------------------------------------------------------------
# the feature
# ---------------------------------------------------------------------------
def test_meter_spins_ride_on_the_spins_left_and_add_spins_when_they_are_more():
    """A wheel that always gives 2 meter spins, free spins that pay nothing (only C on the free strips), meter spins
    on strips that pay C 3 on all 5 lines (5 x 5 = 25 credits, 5 x total bet): every feature of 3 free spins plays
    exactly 2 meter spins.  With 5 meter spins (more than the 3 spins left) the feature plays 5 spins, all meter."""
    blank = ["D D D", "B B B", "A A A"]  # D D D / B B B / A A A on every free spin: no line pays, no SCAT
    every_c = ["C C C", "C C C", "C C C"]
    for meter, spins in ((2, 3), (5, 5)):
        text = lines_text('free_spins = { 2 = 3 }\nwheel = "wheel"\nmeter_spins_mode = "super"', free=blank)
        text += table_text("wheel", [{"award": "meter_spins", "value": meter, "weight": 1}])
        text += "\n[strip_sets.super]\nmode = \"super\"\n" + "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(every_c))
        game = loads_game(text, "meter.toml")
        result = simulate(game, 20_000, seed=3)
        started = result.counters["free_spins"]
        assert started > 0 and result.counters["wheel"] == started
        assert result.counters["free_spins:spins"] == spins * started
        assert result.counters["wheel:meter_spins"] == meter * started
        feature = result.components["free_spins"].value * result.spins  # x total bet, summed over rounds
        assert feature == pytest.approx(5 * meter * started, rel=1e-12)


@pytest.mark.parametrize("label, features", [
    ("no repeat, retriggers", "wheel_repeat_cash = false"),
    ("first trigger only, growth", "wheel_on_retrigger = false\nmultiplier_growth = \"per_win\"\nmax_multiplier = 3"),
    ("sticky wilds, a limit", "free_spins_wilds = \"sticky\"\nwild_symbol = \"WILD\"\nmax_free_spins = 6\nwheel_max_spins = 2"),
])
def test_wheel_feature_equals_the_slow_reference(label, features):
    """The compiled feature with a wheel (cash, extra spins, meter spins on other strips, re-spins) has, per trigger
    count, the mean of workbench.reference.free_spins_feature (both simulated: within 4.5 combined standard errors)."""
    game = loads_game(wheel_text(WHEEL, features), "wheel.toml")
    assert "wheel" in round_model(game).components
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.01, seed=21), 22, 3000)


def ways_wheel_game(tmp_path) -> object:
    """The gallery's ways_free_spins.toml with the wheel of the gallery's wheel game, meter spins on its base strips."""
    text = (GALLERY.parent / "ways_free_spins.toml").read_text()
    wheel = GALLERY.read_text()
    table = wheel[wheel.index("\n[tables.fortune_wheel]"):wheel.index("\n[tables.reveal]")]
    text = text.replace('multiplier = 3                            # every free-spin win x 3\n',
                        'multiplier = 3\nwheel = "fortune_wheel"\nmeter_spins_mode = "base"\n', 1)
    assert 'wheel = "fortune_wheel"' in text
    path = tmp_path / "ways_wheel.toml"
    path.write_text(text.rstrip() + "\n\n" + table)
    return load_game(path)


def test_ways_wheel_feature_equals_the_slow_reference(tmp_path):
    game = ways_wheel_game(tmp_path)
    est = estimate_rtp(game, precision=0.02, seed=23)
    assert est.components["wheel"].value > 0
    assert_strata_equal_the_reference(game, est, 24, 600)


def test_gallery_wheel_game_end_to_end_agrees_with_exact_plus_conditional():
    """The gallery game: end to end against exact + conditional, and the wheel's cash per feature started equals
    its exact value per award x the awards per feature."""
    from workbench.rounds.wheels import wheel_value as game_wheel_value

    game = load_game(GALLERY)
    result = simulate(game, 1_000_000, seed=25)
    est = estimate_rtp(game, precision=0.002, seed=26)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    c = result.counters
    assert c["wheel"] == c["free_spins"] + c["free_spins:retriggers"]  # one award per trigger and retrigger
    assert c["wheel:meter_spins"] > 0 and c["wheel:limit"] == 0
    cash = result.components["wheel"].value * result.spins  # x total bet, summed over rounds
    exact = float(game_wheel_value(game).cash) * c["wheel"]
    assert abs(cash - exact) < 5 * result.components["wheel"].ci95 / 1.96 * result.spins, (cash, exact)


def test_the_bound_counts_every_award():
    from workbench.rounds.bounds import free_spins_bound

    game = loads_game(wheel_text([{"award": "cash", "value": 1000, "weight": 1, "again": True},
                                  {"award": "free_spins", "value": 1, "weight": 1}], "wheel_max_spins = 3\nmax_free_spins = 9"),
                      "bound.toml")
    bound = free_spins_bound(game)
    assert bound.key == ("features", "wheel") and "wheel cash of at most 150,000" in bound.detail
    assert bound.units >= 3 * 1000 * 5 * (1 + 9)  # 3 spins of 1000 x total bet (5 credits) on 1 + 9 awards
    once = loads_game(wheel_text([{"award": "cash", "value": 1000, "weight": 1, "again": True},
                                  {"award": "free_spins", "value": 1, "weight": 1}],
                                 "wheel_max_spins = 3\nmax_free_spins = 9\nwheel_repeat_cash = false"), "bound.toml")
    assert "wheel cash of at most 50,000" in free_spins_bound(once).detail  # 1000 x 5 once per award, 10 awards


def test_the_limit_note_says_when_wheel_max_spins_binds():
    game = loads_game(wheel_text([{"award": "cash", "value": 1, "weight": 9, "again": True},
                                  {"award": "free_spins", "value": 1, "weight": 1}], "wheel_max_spins = 3"), "limit.toml")
    est = estimate_rtp(game, precision=0.05, seed=27)
    assert est.counters["wheel:limit"] > 0.5 * est.counters["wheel"]  # 0.9^3 = 73 % of the awards meet it
    assert any("wheel_max_spins = 3 bound" in note for note in est.limit_notes), est.limit_notes


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("entries, features, key, message", [
    ([{"award": "gold", "value": 5, "weight": 1}], "", "tables.wheel.entries[0].award", "award must be one of cash"),
    ([{"award": "cash", "value": -2, "weight": 1}], "", "tables.wheel.entries[0].value", "x total bet, 0 to"),
    ([{"award": "cash", "value": "lots", "weight": 1}], "", "tables.wheel.entries[0].value", "got string 'lots'"),
    ([{"award": "cash", "weight": 1}], "", "tables.wheel.entries[0].value", "got none"),
    ([{"award": "free_spins", "value": 2.5, "weight": 1}], "", "tables.wheel.entries[0].value", "whole number of spins"),
    ([{"award": "respin", "value": 3, "weight": 1}, {"award": "free_spins", "value": 1, "weight": 1}], "",
     "tables.wheel.entries[0].value", "leave value out"),
    ([{"award": "respin", "again": False, "weight": 1}, {"award": "free_spins", "value": 1, "weight": 1}], "",
     "tables.wheel.entries[0].again", "always spins the wheel again"),
    ([{"award": "cash", "value": 1, "again": "yes", "weight": 1}], "", "tables.wheel.entries[0].again", "true or false"),
    ([{"award": "cash", "value": 1, "spins": 3, "weight": 1}], "", "tables.wheel.entries[0].spins", "unknown key 'spins'"),
    ([{"award": "cash", "value": 1, "again": True, "weight": 1}, {"award": "respin", "weight": 2},
      {"award": "free_spins", "value": 3, "weight": 0}], "", "tables.wheel.entries", "never stop"),
    ([{"award": "cash", "value": 1, "weight": 1}], "meter_spins_mode = \"free\"", "features.meter_spins_mode",
     "needs a meter_spins segment"),
])
def test_bad_wheels_name_file_line_and_key(entries, features, key, message):
    text = wheel_text(entries, features, meter=False)
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "wheel.toml")
    problems = info.value.problems
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "wheel.toml" for p in problems), problems


def test_meter_spins_need_their_mode_and_wheel_keys_need_a_wheel():
    with pytest.raises(ReelsetError) as info:
        loads_game(wheel_text([{"award": "meter_spins", "value": 2, "weight": 1}], meter=False), "wheel.toml")
    assert any(p.key == "features.wheel" and "give meter_spins_mode" in p.message for p in info.value.problems)
    text = lines_text("free_spins = { 2 = 3 }\nwheel_repeat_cash = false\nwheel_max_spins = 4")
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "wheel.toml")
    keys = {p.key for p in info.value.problems if "needs wheel = " in p.message}
    assert keys == {"features.wheel_repeat_cash", "features.wheel_max_spins"}


def test_the_table_editor_shows_an_awards_exact_value_and_edits_the_wheel(tmp_path):
    """The table-weights editor shows the wheel's exact value per award (not an EV adding cash to spins), its
    segments as the file writes them, each segment's share by kind, and follows a weight edit."""
    import shutil

    from workbench.rounds.wheels import wheel_value as game_wheel_value
    from workbench.widgets import TableWeightsEditor

    path = tmp_path / "wheel_free_spins.toml"
    shutil.copyfile(GALLERY, path)
    editor = TableWeightsEditor(path)
    wheel = editor.tables["fortune_wheel"]
    before = game_wheel_value(load_game(path))
    assert f"{float(before.cash):,.4f} x total bet cash" in wheel.ev.value and "EV of" not in wheel.ev.value
    assert "again = true" in wheel.widget.children[2].children[0].value  # the first segment's label: no Python True
    assert "cash: " in wheel.contributions[0].value and "x total bet" in wheel.contributions[0].value
    assert "meter spins: " in wheel.contributions[6].value
    wheel.weights[3].value = 5  # the 50 x cash prize five times as likely
    after = game_wheel_value(editor.session.game)
    assert after.cash > before.cash
    assert f"{float(after.cash):,.4f} x total bet cash" in wheel.ev.value and "saved file:" in wheel.ev.value


# ---------------------------------------------------------------------------
# the tumble template's free spins (their rounds against the reference: test_rounds_tumble.py)
# ---------------------------------------------------------------------------
TUMBLE_GALLERY = GALLERY.parent / "pay_anywhere_tumble_chain.toml"


@pytest.mark.parametrize("change,key,message", [
    (('{ award = "cash", value = 2, weight = 30, again = true }', '{ award = "meter_spins", value = 2, weight = 30 }'),
     "tables.gem_wheel.entries[0].award", "the tumble template's wheel has no meter spins"),
    (('wheel_on_retrigger = false', 'wheel_on_retrigger = false\nmeter_spins_mode = "free_spins"'),
     "features.meter_spins_mode", "unknown"),
    (('trigger = "free_spins"\n', ''), "features.wheel", "needs trigger"),
])
def test_a_tumble_wheel_refuses_meter_spins_and_needs_free_spins(change, key, message):
    text = TUMBLE_GALLERY.read_text(encoding="utf-8").replace(*change)
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "tumble_wheel.toml")
    assert any(p.key.startswith(key) and message in p.message for p in info.value.problems), info.value.problems


def test_the_tumble_gallery_wheel_pays_its_exact_value_per_feature():
    """Gem Cascade Chain's wheel: the simulated wheel cash per feature started equals the exact mean of one award
    (once per feature: no retriggers), within 5 standard errors; the bound counts the wheel."""
    from workbench.rounds.bounds import tumble_bound

    game = load_game(TUMBLE_GALLERY).in_bet_mode("bonus_buy")
    exact = game_wheel_value_of(game)
    result = simulate(game, 20_000, seed=3)
    awards = result.counters["wheel"]
    assert awards == result.counters["free_spins"] == 20_000
    per_award = result.components["wheel"].value * float(game.bet_mode.cost) * 20_000 / awards
    se = result.components["wheel"].ci95 / 1.96 * float(game.bet_mode.cost)
    assert abs(per_award - float(exact.cash)) < 5 * se
    assert "wheel cash of at most" in tumble_bound(game).detail


def game_wheel_value_of(game):
    from workbench.rounds.wheels import wheel_value as game_wheel_value

    return game_wheel_value(game)
