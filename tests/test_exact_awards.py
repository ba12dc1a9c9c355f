"""Bonus awards paid by scatter triggers (every pay rule) and by ways combination triggers: the exact
counts of workbench/exact/triggers.py (hits, bonuses started, pay_cross = sum of weight x n x B) against
a brute force over every stop (and height) combination with the reference evaluator, and the ways and
scatter-pays rounds' bonus component against the exact bonus RTP.

The exact-count tests build the Trigger objects with ``dataclasses.replace`` (the award table is declared in
[tables.awards]); the PAR-sheet test reads ``award`` from the file, as validation takes it.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import reference
from workbench.exact import triggers
from workbench.exact.triggers import (
    award_moments,
    combination_trigger_counts,
    hit_with_trigger,
    scatter_trigger_counts,
    ways_combination_cross,
)
from workbench.exact.windows import strip_set_windows
from workbench.io import loads_game
from workbench.model import freeze
from workbench.pays.scale import pay_scale

AWARDS = "[tables.awards]\nentries = [{ value = 0, weight = 2 }, { value = 3, weight = 5 }, { value = 20, weight = 1 }]\n"


# ---------------------------------------------------------------------------
# random small games
# ---------------------------------------------------------------------------
def _pays(draw, lo: int, hi: int) -> str:
    counts = sorted(draw(st.lists(st.integers(lo, hi), min_size=1, max_size=3, unique=True)))
    values = sorted(draw(st.lists(st.integers(1, 12), min_size=len(counts), max_size=len(counts))))
    return "{ " + ", ".join(f"{k} = {v}" for k, v in zip(counts, values)) + " }"


@st.composite
def games(draw, rule: str, combination: bool = False):
    """TOML of a small game of ``rule`` with scatter group SC (anywhere or adjacent, paying or not),
    maybe a second paying group on C, and trigger ``x``: on SC (min_count 1-3), or with
    ``combination`` on BONUS / A (ways)."""
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(1, 3)) if rule != "scatter_pays" else draw(st.integers(1, 2))
    symbols = ["A", "B", "C", "SC"]
    lines = ["A = {}", "B = {}", "C = {}", 'SC = { kind = "scatter" }']
    if combination:
        symbols.append("BONUS")
        lines.append('BONUS = { kind = "bonus" }')
    if rule != "scatter_pays" and draw(st.booleans()):
        mult = draw(st.sampled_from([1, 2, 3]))
        subs = draw(st.sampled_from(['"all"', '["A", "B"]', '["A", "BONUS"]' if combination else '["C"]']))
        lines.append(f'WILD = {{ kind = "wild", multiplier = {mult}, substitutes = {subs} }}')
        symbols.append("WILD")
    heights = ""
    if rule == "ways" and rows > 1 and draw(st.booleans()):
        spec = []
        for i in range(reels):
            if draw(st.booleans()):
                hs = draw(st.lists(st.integers(1, rows), min_size=1, max_size=2, unique=True))
                spec.append(f"reel{i + 1} = {{ " + ", ".join(f"{h} = {draw(st.integers(1, 3))}" for h in hs) + " }")
        if spec:
            heights = "heights = { " + ", ".join(spec) + " }"
    # short strips: the brute force visits every (height, stop) combination
    per_reel = max(3, min(9, int(round(1500 ** (1 / reels) / (2 if heights else 1)))))
    weighted = draw(st.booleans())
    strips = []
    for i in range(reels):
        n = draw(st.integers(max(rows, 3), max(rows, per_reel)))
        stops = draw(st.lists(st.sampled_from(symbols), min_size=n, max_size=n))
        if combination:
            stops[0] = "BONUS"  # the trigger can fire
        elif i < 2:
            stops[0] = "SC"
        if weighted:
            ws = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
            ws[0] = max(ws[0], 1)
            stops = [f"{s}:{w}" if w != 1 else s for s, w in zip(stops, ws)]
        strips.append(f'reel{i + 1} = "' + " ".join(stops) + '"')
    cells = reels * rows
    if rule == "scatter_pays":
        table = [f"{s} = {_pays(draw, 2, min(cells, 6))}" for s in ("A", "B", "C") if draw(st.integers(0, 3))]
    else:
        table = [f"{s} = {_pays(draw, 1 if rule == 'ways' else 2, reels)}" for s in ("A", "B", "C") if draw(st.integers(0, 3))]
        if "WILD" in symbols and draw(st.booleans()):
            table.append(f"WILD = {_pays(draw, 2, reels)}")
    if not table:
        table.append("A = { 3 = 5 }")
    counting = draw(st.sampled_from(["anywhere", "adjacent_from_first_reel"]))
    sc_pays = f"pays = {_pays(draw, 1, 4)}\n" if draw(st.integers(0, 2)) else ""
    scat = f'[scatters.SC]\nsymbols = ["SC"]\ncounting = "{counting}"\n{sc_pays}'
    if draw(st.booleans()):
        scat += '[scatters.CC]\nsymbols = ["C"]\npays = { 3 = 1, 5 = 4 }\n'
    if combination:
        trig = f'combination = "{draw(st.sampled_from(["BONUS", "A"]))}"\nmin_count = {draw(st.integers(1, reels))}'
    else:
        trig = f'scatter = "SC"\nmin_count = {draw(st.integers(1, 3))}'
    pays = {"lines": f'direction = "{draw(st.sampled_from(["left_to_right", "right_to_left", "both_ways"]))}"\n'
                     f'combine = "{draw(st.sampled_from(["product", "sum"]))}"',
            "ways": f'rule = "ways"\ncombine = "{draw(st.sampled_from(["product", "sum"]))}"',
            "scatter_pays": 'rule = "scatter_pays"'}[rule]
    if rule == "lines":
        all_lines = list(itertools.product(range(rows), repeat=reels))
        paylines = draw(st.lists(st.sampled_from(all_lines), min_size=1, max_size=4, unique=True))
        bet = f"lines = {len(paylines)}\ncost = {len(paylines)}\nline_bet = 1"
        bet += f"\n[paylines]\nlines = {[list(l) for l in paylines]}"
    else:
        bet = f"cost = {draw(st.sampled_from([5, 10]))}\nline_bet = 1"
    return f"""format_version = 1
name = "awards"
game_module = "classic"
[grid]
reels = {reels}
rows = {rows}
{heights}
[pays]
{pays}
[bet]
{bet}
[symbols]
{chr(10).join(lines)}
[paytable]
{chr(10).join(table)}
{scat}
[triggers.x]
{trig}
{AWARDS}
[strip_sets.base]
mode = "base"
{chr(10).join(strips)}
"""


def _award(game, name: str = "x"):
    return replace(game.triggers[name], award="awards", award_unit="total_bet")


def _windows(game, strip_set):
    """Per reel windows as the PAR sheet passes them (a ways game: the union over heights)."""
    if game.pays.rule == "ways":
        from workbench.exact.ways import ways_outcomes
        from workbench.pays.scatter import scatter_pay_tables
        from workbench.pays.ways import ways_targets

        scale = pay_scale(game)
        return [r.windows for r in ways_outcomes(game, strip_set, ways_targets(game, scale), scatter_pay_tables(game, scale))]
    return strip_set_windows(game, strip_set)


def brute_force(game, trig) -> dict:
    """hits, starts, starts_sq, pay_cross (pay units), either (weight of screens paying or firing) and
    cycle, visiting every (height, stop) combination with the reference evaluator."""
    strip_set = game.strip_sets["base"]
    denominator = pay_scale(game).denominator
    per_reel = [reference.reel_outcomes(game, strip_set, i) for i in range(game.reels)]
    out = dict(hits=0, starts=0, starts_sq=0, pay_cross=0, either=0, cycle=0)
    for outcome in itertools.product(*per_reel):
        w = 1
        for _, _, x in outcome:
            w *= x
        out["cycle"] += w
        if w == 0:
            continue
        heights = tuple(h for h, _, _ in outcome)
        stops = tuple(s for _, s, _ in outcome)
        result = reference.spin_result(game, strip_set, stops, heights)
        units = result["win"] * denominator
        assert units.denominator == 1
        if trig.scatter is not None:
            n = int(reference.scatter_count(game, strip_set, stops, trig.scatter, heights) >= trig.min_count)
        else:
            n = reference.trigger_starts(game, reference.screen(game, strip_set, stops, heights), trig)
        out["hits"] += w * (n > 0)
        out["starts"] += w * n
        out["starts_sq"] += w * n * n
        out["pay_cross"] += w * n * int(units)
        out["either"] += w * (units > 0 or n > 0)
    return out


def _check(game, trig, counts, ref):
    assert counts.cycle == ref["cycle"]
    assert (counts.hits, counts.starts, counts.starts_sq) == (ref["hits"], ref["starts"], ref["starts_sq"])
    assert counts.pay_cross == ref["pay_cross"]
    if game.pays.rule != "lines":
        either = hit_with_trigger(game, game.strip_sets["base"], trig)
        assert abs(either - ref["either"] / ref["cycle"]) < 1e-12


# ---------------------------------------------------------------------------
# exact counts against the brute force
# ---------------------------------------------------------------------------
SETTINGS = settings(max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(st.data())
def test_scatter_trigger_counts_equal_the_brute_force(data):
    rule = data.draw(st.sampled_from(["lines", "ways", "scatter_pays"]))
    game = loads_game(data.draw(games(rule)), "awards.toml")
    trig = _award(game)
    strip_set = game.strip_sets["base"]
    # half the games run the count programmes in Python integers (as cycles of 2^62 and more do)
    limit = 1 if data.draw(st.booleans()) else triggers.INT64_CYCLE_MAX
    with patch.object(triggers, "INT64_CYCLE_MAX", limit):
        counts = scatter_trigger_counts(game, strip_set, _windows(game, strip_set), trig, pay_scale(game), with_cross=True)
    _check(game, trig, counts, brute_force(game, trig))
    plain = scatter_trigger_counts(game, strip_set, _windows(game, strip_set), trig, pay_scale(game))
    assert plain.pay_cross is None and plain.hits == counts.hits


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_ways_combination_trigger_cross_equals_the_brute_force(data):
    game = loads_game(data.draw(games("ways", combination=True)), "awards.toml")
    trig = _award(game)
    strip_set = game.strip_sets["base"]
    windows = _windows(game, strip_set)
    scale = pay_scale(game)
    counts = combination_trigger_counts(game, strip_set, windows, trig, scale=scale, with_cross=True)
    ref = brute_force(game, trig)
    _check(game, trig, counts, ref)
    assert ways_combination_cross(game, windows, trig, scale) == ref["pay_cross"]


def test_scatter_triggers_on_the_gallery_games_are_fast():
    """The gallery games with scatter triggers: counts and cross sums well under a second each."""
    import time
    from pathlib import Path

    from workbench.io import load_game

    root = Path(__file__).resolve().parents[1] / "reelsets" / "examples"
    for name in ("ways_243", "variable_ways_6reel", "pay_anywhere_6x5"):
        game = load_game(root / f"{name}.toml")
        strip_set = game.strip_sets_for("base")[0]
        windows = _windows(game, strip_set)
        scale = pay_scale(game)
        (trig,) = [t for t in game.triggers.values() if t.scatter is not None]
        scatter_trigger_counts(game, strip_set, windows, trig, scale, with_cross=True)  # warm (imports, jit)
        start = time.perf_counter()
        counts = scatter_trigger_counts(game, strip_set, windows, trig, scale, with_cross=True)
        assert time.perf_counter() - start < 0.5, name
        from workbench.exact.scatters import scatter_counts

        assert counts.hits == scatter_counts(game, windows, trig.scatter).hits_at_least(trig.min_count)
        assert 0 < counts.pay_cross


# ---------------------------------------------------------------------------
# the rounds' bonus component against the exact bonus RTP
# ---------------------------------------------------------------------------
WAYS_GAME = """format_version = 1
name = "ways awards"
game_module = "classic"
[grid]
reels = 3
rows = 3
[pays]
rule = "ways"
[bet]
cost = 10
line_bet = 1
[symbols]
WILD = { kind = "wild", substitutes = "all" }
SC = { kind = "scatter" }
BONUS = { kind = "bonus" }
A = {}
B = {}
[paytable]
A = { 3 = 5 }
B = { 2 = 1, 3 = 3 }
[scatters.SC]
symbols = ["SC"]
pays = { 3 = 2 }
[triggers.x]
TRIGGER
AWARDS
[strip_sets.base]
mode = "base"
reel1 = "A B SC A B BONUS B A"
reel2 = "B WILD A SC B BONUS A B A"
reel3 = "A B A SC BONUS B WILD A B B"
"""

ANYWHERE_GAME = """format_version = 1
name = "anywhere awards"
game_module = "classic"
[grid]
reels = 4
rows = 3
[pays]
rule = "scatter_pays"
[bet]
cost = 10
line_bet = 1
[symbols]
SC = { kind = "scatter" }
A = {}
B = {}
[paytable]
A = { 4 = 2, 6 = 10 }
B = { 5 = 3 }
[scatters.SC]
symbols = ["SC"]
counting = "adjacent_from_first_reel"
[triggers.x]
scatter = "SC"
min_count = 2
AWARDS
[strip_sets.base]
mode = "base"
reel1 = "A B SC A B B A"
reel2 = "B A SC B A A B B"
reel3 = "A SC B A B A"
reel4 = "B A B SC A B A"
"""


def _simulated_against_exact(game, rule_moments):
    """Simulate with the award trigger in place; the bonus component and the whole spin against the exact values."""
    from workbench.simulate import simulate

    trig = _award(game)
    game = game._replace(triggers=freeze({"x": trig}))
    strip_set = game.strip_sets["base"]
    scale = pay_scale(game)
    windows = _windows(game, strip_set)
    if trig.scatter is not None:
        counts = scatter_trigger_counts(game, strip_set, windows, trig, scale, with_cross=True)
    else:
        counts = combination_trigger_counts(game, strip_set, windows, trig, scale=scale, with_cross=True)
    mu, var, _, _ = award_moments(game, trig, scale)
    spins = 500_000
    result = simulate(game, spins, seed=2024)
    assert result.model.components[-1] == "bonus:x"
    raw = result.raw
    k = len(result.model.components) - 1
    m = raw.comp_sum[k] / spins
    se = np.sqrt(max(raw.comp_sq[k] / spins - m * m, 0.0) / spins)
    exact_bonus = float(mu * counts.starts / counts.cycle)  # pay units per spin
    assert se > 0 and abs(m - exact_bonus) < 4 * se, (m, exact_bonus, se)
    # the whole spin: E[B] + mu E[n], with the exact second moment of B + award
    mean = rule_moments.mean + exact_bonus
    second = rule_moments.second + float((2 * mu * counts.pay_cross + var * counts.starts + mu * mu * counts.starts_sq)
                                         / counts.cycle)
    sd = np.sqrt(second - mean * mean)
    assert abs(raw.won / spins - mean) < 4 * sd / np.sqrt(spins)


def test_ways_round_pays_a_scatter_trigger_award():
    from workbench.exact.ways import analyse_ways

    game = loads_game(WAYS_GAME.replace("TRIGGER", 'scatter = "SC"\nmin_count = 2').replace("AWARDS", AWARDS), "w.toml")
    moments = analyse_ways(game, game.strip_sets["base"], pay_scale(game), full_cycle=False).moments
    _simulated_against_exact(game, moments)


def test_ways_round_pays_a_combination_trigger_award():
    from workbench.exact.ways import analyse_ways

    game = loads_game(WAYS_GAME.replace("TRIGGER", 'combination = "BONUS"\nmin_count = 2').replace("AWARDS", AWARDS),
                      "w.toml")
    moments = analyse_ways(game, game.strip_sets["base"], pay_scale(game), full_cycle=False).moments
    _simulated_against_exact(game, moments)


def test_anywhere_round_pays_a_scatter_trigger_award():
    from workbench.exact.anywhere import analyse_scatter_pays

    game = loads_game(ANYWHERE_GAME.replace("AWARDS", AWARDS), "a.toml")
    moments = analyse_scatter_pays(game, game.strip_sets["base"], pay_scale(game), full_cycle=False).moments
    _simulated_against_exact(game, moments)


def test_rounds_without_an_award_keep_their_components():
    from workbench.rounds.anywhere import round_model as anywhere_round
    from workbench.rounds.ways import round_model as ways_round

    ways = loads_game(WAYS_GAME.replace("TRIGGER", 'scatter = "SC"\nmin_count = 2').replace("AWARDS", AWARDS), "w.toml")
    assert ways_round(ways).components == ("ways", "scatter:SC")
    anywhere = loads_game(ANYWHERE_GAME.replace("AWARDS", AWARDS), "a.toml")
    assert anywhere_round(anywhere).components == ("scatter_pays",)
    assert anywhere_round(anywhere._replace(triggers=freeze({"x": _award(anywhere)}))).components == (
        "scatter_pays", "bonus:x")


# ---------------------------------------------------------------------------
# the PAR sheet (once par.py and validation take these awards: skipped until then)
# ---------------------------------------------------------------------------
def _reference_moments(game, trig):
    """E[win], E[win^2], P(win > 0) of the whole spin (screen pays + award), by visiting every outcome."""
    scale = pay_scale(game)
    mu, var, zero, _ = award_moments(game, trig, scale)
    strip_set = game.strip_sets["base"]
    per_reel = [reference.reel_outcomes(game, strip_set, i) for i in range(game.reels)]
    total = first = second = hit = 0
    for outcome in itertools.product(*per_reel):
        w = 1
        for _, _, x in outcome:
            w *= x
        if w == 0:
            continue
        heights = tuple(h for h, _, _ in outcome)
        stops = tuple(s for _, s, _ in outcome)
        b = reference.spin_result(game, strip_set, stops, heights)["win"] * scale.denominator
        if trig.scatter is not None:
            n = int(reference.scatter_count(game, strip_set, stops, trig.scatter, heights) >= trig.min_count)
        else:
            n = reference.trigger_starts(game, reference.screen(game, strip_set, stops, heights), trig)
        total += w
        first += w * (b + mu * n)
        second += w * (b * b + 2 * mu * n * b + var * n + mu * mu * n * n)
        hit += w * (1 if b > 0 else (1 - zero ** n if n else 0))
    return first / total, second / total, hit / total


def test_validation_takes_awards_on_scatter_and_ways_triggers():
    """A scatter trigger of a ways game may pay a bonus award table (``award``): the PAR sheet prices it."""
    text = WAYS_GAME.replace("TRIGGER", 'scatter = "SC"\nmin_count = 2\naward = "awards"').replace("AWARDS", AWARDS)
    game = loads_game(text, "w.toml")
    assert game.triggers["SC" if "SC" in game.triggers else next(iter(game.triggers))].award is not None


@SETTINGS
@given(st.data())
def test_par_sheet_with_scatter_and_ways_awards_equals_the_reference(data):
    from workbench.exact import par

    rule = data.draw(st.sampled_from(["lines", "ways", "scatter_pays", "ways combination"]))
    combination = rule == "ways combination"
    text = data.draw(games("ways" if combination else rule, combination))
    game = loads_game(text.replace("[triggers.x]\n", '[triggers.x]\naward = "awards"\n'), "awards.toml")
    sheet = par(game, full_cycle=False)
    mean, second, hit = _reference_moments(game, game.triggers["x"])
    cost = sheet.scale.cost_units
    assert sheet.rtp_exact == mean / cost
    assert sheet.std == pytest.approx(float(second - mean * mean) ** 0.5 / cost, rel=1e-9, abs=1e-12)
    assert sheet.hit_frequency == pytest.approx(float(hit), rel=1e-9, abs=1e-12)
    assert "bonus:x" in sheet.components_exact
