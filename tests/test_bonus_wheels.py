"""Wheels as bonus awards for any classic game ([triggers.*] award = a wheel table): cash segments, spin-again
segments and re-spins, "a cash prize cannot repeat within one award", a safety maximum of wheel spins.

Checked three ways: the exact moments of one award (workbench.exact.wheels, through exact.triggers.award_moments)
equal the slow reference that lists every sequence of segments (reference.wheel_outcomes) on random wheels; the
compiled draw (simulate.steps.wheels.draw_award) and the slow random reference (reference.bonus_award) land on that
distribution; the PAR sheet of random lines / ways / pay-anywhere games with a wheel equals the reference spin by
spin, and their simulation agrees with it; the gallery game runs end to end (its general tests are in
test_gallery.py).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hyp import examples
from test_exact_awards import ANYWHERE_GAME, AWARDS, WAYS_GAME, _reference_moments, games
from test_wheels import table_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact.triggers import award_moments
from workbench.io import load_game, loads_game
from workbench.pays.scale import pay_scale

GALLERY = Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "ways_bonus_wheel.toml"
SETTINGS = settings(max_examples=examples(30), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def bonus_wheels(draw):
    """(entries, trigger keys) of a random bonus wheel: 1-5 cash or respin segments (values may repeat, weights may be
    0, again flags), one cash segment that stops with weight above 0, repeat or not, 1-5 spins at most."""
    entries = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.integers(0, 4)) == 0:
            entries.append({"award": "respin", "weight": draw(st.integers(0, 4))})
            continue
        entry = {"award": "cash", "value": draw(st.sampled_from([0, 1, 2, 5, 2.5]))}
        if draw(st.booleans()):
            entry["again"] = True
        entry["weight"] = draw(st.integers(0, 6))
        entries.append(entry)
    entries.insert(draw(st.integers(0, len(entries))),
                   {"award": "cash", "value": draw(st.sampled_from([1, 3])), "weight": draw(st.integers(1, 6))})
    keys = (f"award_repeat_cash = {str(draw(st.booleans())).lower()}\n"
            f"award_max_spins = {draw(st.integers(1, 5))}\n")
    return entries, keys


def wheel_game(base_text: str, entries: list, keys: str, unit: str = "total_bet"):
    """``base_text`` (a test_exact_awards game) whose trigger x pays one award of wheel ``entries``."""
    text = base_text.replace(AWARDS, table_text("awards", entries))
    text = text.replace("[triggers.x]\n", f'[triggers.x]\naward = "awards"\naward_unit = "{unit}"\n{keys}')
    return loads_game(text, "bonus_wheel.toml")


SMALL = """format_version = 1
name = "bonus wheel"
game_module = "classic"
[grid]
reels = 3
rows = 1
[bet]
lines = 1
cost = 2
line_bet = 2
[symbols]
SC = { kind = "scatter" }
A = {}
B = {}
[paytable]
A = { 3 = 5 }
[paylines]
lines = [[0, 0, 0]]
[scatters.SC]
symbols = ["SC"]
[triggers.x]
scatter = "SC"
min_count = 2
""" + AWARDS + """[strip_sets.base]
mode = "base"
reel1 = "A B SC A"
reel2 = "B SC A A B"
reel3 = "A SC B"
"""


# ---------------------------------------------------------------------------
# one award: exact against every sequence of segments
# ---------------------------------------------------------------------------
@SETTINGS
@given(bonus_wheels(), st.sampled_from(["total_bet", "line_bet", "bet_multiplier"]))
def test_exact_award_moments_equal_every_sequence_of_segments(wheel, unit):
    """Mean, variance, P(nothing), the largest total, and the mean as the segments' landings x values: exactly
    the distribution the slow reference lists sequence by sequence, in pay units of the trigger's award_unit."""
    entries, keys = wheel
    game = wheel_game(SMALL, entries, keys, unit)
    trig = game.triggers["x"]
    scale = pay_scale(game)
    per_value = scale.units(game.bet.credits(Fraction(1), unit))
    outcomes = reference.wheel_outcomes(game.tables["awards"], trig.award_repeat_cash, trig.award_max_spins)
    assert sum(outcomes.values()) == 1
    mean = sum(p * v * per_value for v, p in outcomes.items())
    second = sum(p * (v * per_value) ** 2 for v, p in outcomes.items())
    mu, var, zero, largest = award_moments(game, trig, scale)
    assert mu == mean and var == second - mean * mean
    assert zero == outcomes.get(Fraction(0), Fraction(0))
    assert largest == max(v for v, p in outcomes.items() if p > 0) * per_value
    from workbench.rounds.wheels import wheel_value_of_award

    landings = wheel_value_of_award(game, trig).landings
    values = [Fraction(str(e.get("value", 0))) if e["award"] == "cash" else 0 for e in game.tables["awards"].entries]
    assert sum(n * v for n, v in zip(landings, values)) * per_value == mu


@settings(max_examples=examples(15), deadline=None)
@given(bonus_wheels(), st.integers(0, 2**31))
def test_compiled_and_reference_awards_land_on_the_exact_distribution(wheel, seed):
    """20,000 compiled awards: every total with probability at least 1 % within 5 standard errors of its exact
    probability, and the mean within 5 standard errors; 1,500 slow reference awards: the mean likewise."""
    from workbench.rounds.wheels import award_draw
    from workbench.simulate.rng import chunk_state
    from workbench.simulate.steps.wheels import award_draws

    entries, keys = wheel
    game = wheel_game(SMALL, entries, keys)
    trig = game.triggers["x"]
    per_value = pay_scale(game).units(game.bet.credits(Fraction(1), "total_bet"))
    outcomes = reference.wheel_outcomes(game.tables["awards"], trig.award_repeat_cash, trig.award_max_spins)
    n = 20_000
    out = np.zeros(n, dtype=np.int64)
    award_draws(award_draw(game, trig), chunk_state(seed, 0), n, out)
    for value, p in outcomes.items():
        if p >= Fraction(1, 100):
            share = float(np.mean(out == int(value * per_value)))
            assert abs(share - float(p)) < 5 * math.sqrt(float(p * (1 - p)) / n) + 1e-12, (value, share, float(p), entries)
    assert set(np.unique(out)) <= {int(v * per_value) for v in outcomes}
    mean = float(sum(p * v for v, p in outcomes.items()))
    sd = math.sqrt(max(float(sum(p * v * v for v, p in outcomes.items())) - mean * mean, 0.0))
    assert abs(float(np.mean(out)) / per_value - mean) <= 5 * sd / math.sqrt(n) + 1e-12
    rng = random.Random(seed)
    slow = [float(reference.bonus_award(game, trig, rng)) for _ in range(1500)]
    assert abs(float(np.mean(slow)) - mean) <= 5 * sd / math.sqrt(len(slow)) + 1e-12


# ---------------------------------------------------------------------------
# the whole spin: PAR sheet and simulation
# ---------------------------------------------------------------------------
@SETTINGS
@given(st.data())
def test_par_sheet_with_a_bonus_wheel_equals_the_reference(data):
    """Random lines, ways and pay-anywhere games whose trigger pays a wheel: the exact RTP, standard deviation and
    hit frequency equal the reference's visit of every outcome (screen pays plus the award's exact moments)."""
    from workbench.exact import par

    rule = data.draw(st.sampled_from(["lines", "ways", "scatter_pays", "ways combination"]))
    combination = rule == "ways combination"
    entries, keys = data.draw(bonus_wheels())
    game = wheel_game(data.draw(games("ways" if combination else rule, combination)), entries, keys)
    sheet = par(game, full_cycle=False)
    mean, second, hit = _reference_moments(game, game.triggers["x"])
    cost = sheet.scale.cost_units
    assert sheet.rtp_exact == mean / cost
    assert sheet.std == pytest.approx(float(second - mean * mean) ** 0.5 / cost, rel=1e-9, abs=1e-12)
    assert sheet.hit_frequency == pytest.approx(float(hit), rel=1e-9, abs=1e-12)


WHEEL = [{"award": "cash", "value": 2, "weight": 5, "again": True}, {"award": "cash", "value": 10, "weight": 2},
         {"award": "cash", "value": 2, "weight": 3}, {"award": "cash", "value": 40, "weight": 1, "again": True},
         {"award": "respin", "weight": 2}]


@pytest.mark.parametrize("rule", ["lines", "ways", "scatter_pays"])
def test_each_round_pays_its_wheel_as_the_par_sheet_prices_it(rule):
    """The classic round of each pay rule (lines: rounds.plain; ways; pay anywhere) with a non-repeating wheel:
    400,000 spins, the bonus component and the whole RTP within 4.5 standard errors of the exact values."""
    from workbench.exact import par
    from workbench.simulate import simulate

    text = {"lines": SMALL, "ways": WAYS_GAME.replace("TRIGGER", 'scatter = "SC"\nmin_count = 2').replace("AWARDS", AWARDS),
            "scatter_pays": ANYWHERE_GAME.replace("AWARDS", AWARDS)}[rule]
    game = wheel_game(text, WHEEL, "award_repeat_cash = false\naward_max_spins = 6\n")
    sheet = par(game, full_cycle=False)
    spins = 400_000
    result = simulate(game, spins, seed=77)
    k = list(result.model.components).index("bonus:x")
    raw = result.raw
    m = raw.comp_sum[k] / spins
    se = math.sqrt(max(raw.comp_sq[k] / spins - m * m, 0.0) / spins)
    exact_bonus = float(sheet.components_exact["bonus:x"]) * sheet.scale.cost_units
    assert se > 0 and abs(m - exact_bonus) < 4.5 * se, (m, exact_bonus, se)
    assert abs(result.rtp - float(sheet.rtp_exact)) < 4.5 * sheet.std / math.sqrt(spins)


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
CASH = {"award": "cash", "value": 1, "weight": 1}


@pytest.mark.parametrize("entries,keys,key,message", [
    ([{"award": "free_spins", "value": 3, "weight": 1}, CASH], "", "tables.awards.entries[0].award",
     "free_spins and meter_spins segments need the free_spins template's [features] wheel"),
    ([{"award": "respin", "value": 2, "weight": 1}, CASH], "", "tables.awards.entries[0].value", "leave value out"),
    ([{"award": "cash", "value": -1, "weight": 1}], "", "tables.awards.entries[0].value", "0 to 1,000,000"),
    ([{"award": "cash", "value": 1, "again": True, "weight": 1}, {"award": "respin", "weight": 1}], "",
     "tables.awards.entries", "never stop"),
    ([CASH], "award_max_spins = 0\n", "triggers.x.award_max_spins", "at least 1"),
    ([CASH], "award_repeat_cash = \"no\"\n", "triggers.x.award_repeat_cash", "true or false"),
    ([{"award": "cash", "value": v, "again": True, "weight": 1} for v in range(1, 16)] + [CASH | {"value": 99}],
     "award_repeat_cash = false\naward_max_spins = 40\n", "triggers.x.award_max_spins", "states"),
])
def test_bad_bonus_wheels_name_file_line_and_key(entries, keys, key, message):
    with pytest.raises(ReelsetError) as info:
        wheel_game(SMALL, entries, keys)
    problems = info.value.problems
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "bonus_wheel.toml"
               for p in problems), problems


def test_wheel_keys_need_an_award():
    text = SMALL.replace("[triggers.x]\n", "[triggers.x]\naward_repeat_cash = false\naward_max_spins = 3\n")
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bonus_wheel.toml")
    keys = {p.key for p in info.value.problems if "needs award = " in p.message}
    assert keys == {"triggers.x.award_repeat_cash", "triggers.x.award_max_spins"}


# ---------------------------------------------------------------------------
# what designers see: the gallery game
# ---------------------------------------------------------------------------
def test_the_gallery_game_shows_its_wheel_in_the_report_and_the_par_sheet():
    from workbench.exact import par
    from workbench.report.game_tables import game_overview
    from workbench.report.tables import bonus_awards_table

    game = load_game(GALLERY)
    overview = game_overview(game)
    assert "pays one award of wheel prize_wheel" in overview.loc["triggers", "value"]
    text = overview.loc["bonus wheel", "value"]
    mu = award_moments(game, game.triggers["wheel_bonus"], pay_scale(game))[0]
    assert f"mean {float(mu) / pay_scale(game).cost_units:,.4f} x total bet" in text
    assert "a cash prize cannot repeat within one award" in text and "award_max_spins 20" in text
    table = bonus_awards_table(par(game, full_cycle=False))
    assert list(table["award"])[-1] == "spin again" and "landings per award" in table.columns
    assert "cash, spins again" in set(table["segment"])
    shares = [float(x.rstrip(" %")) for x in table["share of the bonus RTP"]]
    assert sum(shares) == pytest.approx(100.0, abs=0.01)


def test_the_table_editor_shows_the_bonus_wheels_exact_award_and_follows_an_edit(tmp_path):
    import shutil

    from workbench.widgets import TableWeightsEditor

    path = tmp_path / GALLERY.name
    shutil.copyfile(GALLERY, path)
    editor = TableWeightsEditor(path)
    wheel = editor.tables["prize_wheel"]
    game = load_game(path)
    before = award_moments(game, game.triggers["wheel_bonus"], pay_scale(game))[0]
    assert "spun as the bonus award of [triggers.wheel_bonus]" in wheel.ev.value
    wheel.weights[6].value = 5  # the 1,000 x prize five times as likely
    after_game = editor.session.game
    after = award_moments(after_game, after_game.triggers["wheel_bonus"], pay_scale(after_game))[0]
    assert after > before
    assert f"mean {float(after) / pay_scale(after_game).cost_units:,.4f} x total bet" in wheel.ev.value
    assert "saved file:" in wheel.ev.value


def test_par_text_aligns_its_numbers_without_the_long_exact_fraction():
    """A wheel's exact RTP fraction has terms of about 150 digits: the `workbench par` summary writes it as it is,
    and still right-aligns the other numbers in a narrow column (they were padded to the fraction's width)."""
    from workbench.cli.par_text import render_par_text
    from workbench.exact import par

    lines = render_par_text(par(load_game(GALLERY), full_cycle=False)).splitlines()
    fraction = next(line for line in lines if line.startswith("RTP as an exact fraction"))
    assert len(fraction) > 250 and fraction.endswith("x total bet")
    rtp = next(line for line in lines if line.startswith("RTP  "))
    hit = next(line for line in lines if line.startswith("Hit frequency  "))
    assert len(rtp) < 80 and rtp.index("%") == hit.index("%")


def test_the_table_editor_labels_a_bonus_wheels_cash_in_its_award_unit(tmp_path):
    from workbench.widgets import TableWeightsEditor

    path = tmp_path / GALLERY.name
    path.write_text(GALLERY.read_text(encoding="utf-8").replace('award_unit = "total_bet"', 'award_unit = "line_bet"'),
                    encoding="utf-8")
    wheel = TableWeightsEditor(path).tables["prize_wheel"]
    assert "cash: " in wheel.contributions[0].value and "x line bet" in wheel.contributions[0].value
    assert "x line bet" in wheel.ev.value and "x total bet" not in wheel.contributions[0].value
