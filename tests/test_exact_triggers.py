"""Combination triggers and bonus awards: the exact engine against the slow reference evaluator on
random small line games (every stop combination visited), and validation of the trigger keys."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.exact.triggers import award_moments
from workbench.io import loads_game
from workbench.pays.scale import pay_scale

SYMBOLS = ["WILD", "BONUS", "A", "B", "C"]


def _game_text(reels, rows, strips, lines, min_count, per_line, awards, bonus_pays, wild_takes_bonus, scatter):
    subs = '["A", "B", "C", "BONUS"]' if wild_takes_bonus else '"all"'
    pay_rows = ['A = { 2 = 2, 3 = 10 }', 'B = { 3 = 5 }', 'C = { 2 = 1, 3 = 3 }']
    if bonus_pays:
        pay_rows.append(f"BONUS = {{ {bonus_pays} = 4 }}")
    text = f"""format_version = 1
name = "trig"
game_module = "classic"
[grid]
reels = {reels}
rows = {rows}
[bet]
lines = {len(lines)}
cost = {len(lines)}
line_bet = 1
[symbols]
WILD = {{ kind = "wild", substitutes = {subs} }}
BONUS = {{ kind = "bonus" }}
A = {{}}
B = {{}}
C = {{}}
[paytable]
{chr(10).join(pay_rows)}
[paylines]
lines = {[list(l) for l in lines]}
[triggers.pick]
combination = "BONUS"
min_count = {min_count}
per_line = {"true" if per_line else "false"}
award = "awards"
[tables.awards]
entries = [{", ".join(f"{{ value = {v}, weight = {w} }}" for v, w in awards)}]
"""
    if scatter:
        text += '[scatters.S]\nsymbols = ["C"]\npays = { 3 = 1 }\n'
    text += "[strip_sets.base]\nmode = \"base\"\n" + "".join(f'reel{i + 1} = "{" ".join(s)}"\n' for i, s in enumerate(strips))
    return text


@st.composite
def trigger_games(draw):
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(1, 2))
    strips = [draw(st.lists(st.sampled_from(SYMBOLS), min_size=rows + 1, max_size=5)) for _ in range(reels)]
    for s in strips[:2]:
        s[0] = "BONUS"  # the trigger can fire
    all_lines = list(itertools.product(range(rows), repeat=reels))
    lines = draw(st.lists(st.sampled_from(all_lines), min_size=1, max_size=4, unique=True))
    per_line = draw(st.booleans())
    low = 1 if per_line else 0
    awards = draw(st.lists(st.tuples(st.integers(low, 20), st.integers(1, 9)), min_size=1, max_size=4))
    return _game_text(reels, rows, strips, lines, draw(st.integers(2, reels)), per_line, awards,
                      draw(st.sampled_from([None, 2, 3])), draw(st.booleans()), draw(st.booleans()))


def _reference_moments(game):
    """E[win], E[win^2] and P(win > 0) of the whole spin (screen pays + awards), by visiting every stop."""
    scale = pay_scale(game)
    trig = game.triggers["pick"]
    mu, var, zero, _ = award_moments(game, trig, scale)
    strip_set = game.strip_sets["base"]
    total = first = second = hit = 0
    for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
        result = reference.spin_result(game, strip_set, stops)
        b = result["win"] * scale.denominator  # pay units
        n = reference.trigger_starts(game, reference.screen(game, strip_set, stops), trig)
        total += 1
        first += b + mu * n
        second += b * b + 2 * mu * n * b + var * n + mu * mu * n * n
        hit += 1 if b > 0 else (1 - zero**n if n else 0)
    return first / total, second / total, hit / total


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trigger_games())
def test_trigger_counts_and_award_moments_equal_the_reference(text):
    game = loads_game(text, "trig.toml")
    sheet = par(game, full_cycle=False)
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    mine, theirs = sheet.trigger_counts["pick"], ref["triggers"]["pick"]
    assert (mine["hits"], mine["starts"], mine["starts_sq"]) == (theirs["hits"], theirs["starts"], theirs["starts_sq"])
    scale = sheet.scale
    assert Fraction(mine["pay_cross"], scale.denominator) == theirs["pay_cross"]
    mean, second, hit = _reference_moments(game)
    cost = scale.cost_units
    assert sheet.rtp_exact == mean / cost
    assert sheet.std == pytest.approx(float(second - mean * mean) ** 0.5 / cost, rel=1e-9, abs=1e-12)
    assert sheet.hit_frequency == pytest.approx(float(hit), rel=1e-9, abs=1e-12)
    # per-line figures: every line's own trigger count
    strip_set = game.strip_sets["base"]
    for l, rows in enumerate(game.paylines):
        count = 0
        for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
            shown = reference.screen(game, strip_set, stops)
            count += all(shown[i][rows[i]] in ("BONUS",) or (shown[i][rows[i]] == "WILD" and "BONUS" in game.symbols["WILD"].substitutes)
                         for i in range(game.triggers["pick"].min_count))
        assert mine["line_hits"][l] == count


BASE = _game_text(3, 1, [["BONUS", "A", "B"], ["BONUS", "C", "A"], ["BONUS", "B", "C"]], [(0, 0, 0)], 3, False,
                  [(5, 1)], None, False, False)


@pytest.mark.parametrize("change, message", [
    (("combination = \"BONUS\"", "combination = \"BONSU\""), "unknown symbol 'BONSU'"),
    (("min_count = 3", "min_count = 4"), "more than the 3 reels"),
    (("award = \"awards\"", "award = \"nope\""), "unknown table 'nope'"),
    (("{ value = 5, weight = 1 }", "{ value = 5, weight = 1, colour = 1 }"), "unknown key 'colour'"),
    (("{ value = 5, weight = 1 }", "{ weight = 1 }"), "needs value"),
    (("combination = \"BONUS\"", "combination = \"BONUS\"\nscatter = \"X\""), "either scatter"),
    (("award_unit", "award_unit"), "every award must be above 0"),
])
def test_bad_trigger_keys_are_reported(change, message):
    text = BASE.replace(*change, 1)
    if message.startswith("every award"):  # per_line: an award of 0 would be a bonus paying nothing
        loads_game(text.replace("{ value = 5, weight = 1 }", "{ value = 0, weight = 1 }, { value = 5, weight = 1 }"), "t.toml")
        text = text.replace("per_line = false", "per_line = true").replace(
            "{ value = 5, weight = 1 }", "{ value = 0, weight = 1 }, { value = 5, weight = 1 }")
    with pytest.raises(ReelsetError) as err:
        loads_game(text, "t.toml")
    assert any(message in p.message for p in err.value.problems), [p.message for p in err.value.problems]
