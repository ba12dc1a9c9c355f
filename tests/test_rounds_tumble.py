"""The ``tumble`` round template (workbench/rounds/tumble.py): the compiled chain against the slow reference
(:func:`workbench.reference.tumble_chain`, every spin of small games and random games for every pay rule), the
first drop against the exact PAR, whole rounds with multiplier symbols and free spins against
:func:`workbench.reference.tumble_round`, exact + conditional against end-to-end, bet modes and validation."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game
from workbench.pays.scale import pay_scale
from workbench.registry import template
from workbench.rounds.tumble import COUNTERS, chain_at
from workbench.simulate import estimate_bet_modes, estimate_rtp, simulate
from workbench.simulate.rng import chunk_state

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "reelsets" / "examples" / "pay_anywhere_tumble.toml"
SETTINGS = settings(max_examples=examples(40), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

RULE_HEAD = {
    "scatter_pays": ('rule = "scatter_pays"', 'cost = 10\nline_bet = 1\nline_pay_unit = "total_bet"', ""),
    "ways": ('rule = "ways"', 'cost = 10\nline_bet = 1', ""),
    "lines": ('rule = "lines"', 'lines = 3\ncost = 3\nline_bet = 1', "[paylines]\nlines = [[0, 0, 0], [1, 1, 1], [0, 1, 2]]\n"),
    "cluster": ('rule = "cluster"', 'cost = 10\nline_bet = 1\nline_pay_unit = "total_bet"', ""),
}
PAYS = {
    "scatter_pays": {"A": "{ 3 = 1, 5 = 4 }", "B": "{ 3 = 2, 4 = 6 }", "C": "{ 4 = 3 }"},
    "ways": {"A": "{ 2 = 1, 3 = 4 }", "B": "{ 3 = 5 }", "C": "{ 2 = 2, 3 = 3 }"},
    "lines": {"A": "{ 2 = 1, 3 = 5 }", "B": "{ 3 = 8 }", "C": "{ 2 = 2, 3 = 4 }", "W": "{ 3 = 20 }"},
    "cluster": {"A": "{ 3 = 1, 5 = 4 }", "B": "{ 3 = 2, 4 = 6 }", "C": "{ 4 = 3 }"},
}


def game_text(rule: str, reels: list[str], *, features: str = "", extra: str = "", wild: bool = True,
              rows: int = 3, module: str = "tumble") -> str:
    pays_rule, bet, paylines = RULE_HEAD[rule]
    wild = wild and rule != "scatter_pays"
    symbols = ["A = {}", "B = {}", "C = {}", "D = {}", 'S = { kind = "scatter" }', 'M = { kind = "bonus" }']
    if wild:
        symbols.append('W = { kind = "wild", substitutes = "all" }' if rule != "cluster" else 'W = { kind = "wild" }')
    pays = {k: v for k, v in PAYS[rule].items() if k != "W" or wild}
    strips = "\n".join(f'reel{i + 1} = "{strip}"' for i, strip in enumerate(reels))
    return f"""format_version = 1
name = "Tumble {rule}"
game_module = "{module}"
[grid]
reels = {len(reels)}
rows = {rows}
[pays]
{pays_rule}
[bet]
{bet}
[symbols]
{chr(10).join(symbols)}
[paytable]
{chr(10).join(f"{k} = {v}" for k, v in pays.items())}
{paylines}
[scatters.S]
symbols = ["S"]
pays = {{ 2 = 1, 3 = 5 }}
[strip_sets.base]
mode = "base"
{strips}
{extra}
[features]
cascade_multipliers = [1, 2, 3]
{features}
"""


def load(tmp_path, text: str, name: str = "game.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_game(str(path))


def compiled_chain(game, stops, refill_stops=None):
    model = template("tumble").round_model(game)
    counters = np.zeros(len(COUNTERS), dtype=np.int64)
    rng = chunk_state(1, 0)
    refill = np.asarray(refill_stops if refill_stops is not None else [0] * game.reels, dtype=np.int64)
    return chain_at(model.params, 0, np.asarray(stops, dtype=np.int64), refill, rng, counters)


def reference_chain(game, stops, refill_stops=None):
    ladder = reference.TumbleLadder.of(game.features, free=False)
    refill = None
    if refill_stops is not None:
        refill = (game.strip_sets_for(game.features["refill_mode"])[0], tuple(refill_stops))
    values = game.features.get("position_multipliers")
    grid = reference.PositionCells(values) if values and game.features.get("position_multipliers_in") != "free_spins" \
        else None
    first, paid, *_ = reference.tumble_chain(game, game.strip_sets_for("base")[0], tuple(stops), ladder, refill,
                                             grid=grid)
    scale = pay_scale(game)
    return scale.units(first), scale.units(paid)


SMALL_REELS = {
    "scatter_pays": ["A A B C A D S", "B A A C C A", "A B B C A A D"],
    "ways": ["A B W C A D S", "B A A C W A", "A B B C A W D"],
    "lines": ["A B W C A D S", "B A A C W A", "A B B C A W D"],
    "cluster": ["A A B C A W S", "B A A C W A", "A B B C A A D"],
}


@pytest.mark.parametrize("rule", list(SMALL_REELS))
def test_every_spin_of_a_small_game_chains_as_the_reference(tmp_path, rule):
    game = load(tmp_path, game_text(rule, SMALL_REELS[rule]))
    lengths = [len(s.split()) for s in SMALL_REELS[rule]]
    cascades = 0
    for stops in itertools.product(*[range(n) for n in lengths]):
        first, paid, _ = compiled_chain(game, stops)
        assert (first, paid) == reference_chain(game, stops), stops
        cascades += paid > first * 1
    assert cascades > 0  # the game does cascade


@pytest.mark.parametrize("rule", list(SMALL_REELS))
def test_position_multipliers_grow_on_the_cells_of_each_win_as_the_reference(tmp_path, rule):
    """Every spin of the small game of each pay rule with a cell's multiplier x2, x3, x5 after its 1st, 2nd, 3rd
    win (a win's cells: a cluster's, a symbol's anywhere, a target's ways cells, a line win's): the compiled chain =
    the reference, and some chains pay more than without the grid (a cell won twice)."""
    plain = load(tmp_path, game_text(rule, SMALL_REELS[rule]), "plain.toml")
    game = load(tmp_path, game_text(rule, SMALL_REELS[rule], features="position_multipliers = [2, 3, 5]"))
    lengths = [len(s.split()) for s in SMALL_REELS[rule]]
    grown = 0
    for stops in itertools.product(*[range(n) for n in lengths]):
        first, paid, _ = compiled_chain(game, stops)
        assert (first, paid) == reference_chain(game, stops), stops
        assert first == compiled_chain(plain, stops)[0]  # the first drop: no cell has won yet
        grown += paid > compiled_chain(plain, stops)[1]
    assert grown > 0


@pytest.mark.parametrize("rule", ["scatter_pays", "ways", "cluster"])
def test_refill_strips_drop_from_their_own_stops(tmp_path, rule):
    refill = '[strip_sets.refill]\nmode = "refill"\n' + "\n".join(
        f'reel{i + 1} = "{s}"' for i, s in enumerate(["C D A B", "D C B A", "A D C B"]))
    game = load(tmp_path, game_text(rule, SMALL_REELS[rule], extra=refill, features='refill_mode = "refill"'))
    rng = random.Random(5)
    for _ in range(150):
        stops = [rng.randrange(len(s.split())) for s in SMALL_REELS[rule]]
        refill_stops = [rng.randrange(4) for _ in range(3)]
        first, paid, _ = compiled_chain(game, stops, refill_stops)
        assert (first, paid) == reference_chain(game, stops, refill_stops)


@st.composite
def random_tumble_game(draw):
    rule = draw(st.sampled_from(list(SMALL_REELS)))
    alphabet = ["A", "B", "C", "D", "S"] + (["W"] if rule != "scatter_pays" else [])
    n_reels = 3
    reels = [" ".join(draw(st.lists(st.sampled_from(alphabet), min_size=3, max_size=8))) for _ in range(n_reels)]
    ladder = draw(st.lists(st.integers(1, 5), min_size=1, max_size=3))
    # the ladder as a global multiplier: a step after the listed rungs, perhaps a cap; one rung for the chain's total
    step = draw(st.integers(0, 3))
    global_multiplier = (f"\nladder_step = {step}" if step else "") + (
        f"\nladder_cap = {draw(st.integers(max(ladder), 12))}" if step and draw(st.booleans()) else "") + (
        f'\nladder_applies = "{draw(st.sampled_from(["drop", "chain"]))}"')
    if draw(st.booleans()):  # position multipliers: a cell's after each win on it
        global_multiplier += f"\nposition_multipliers = {sorted(draw(st.lists(st.integers(0, 4), min_size=1, max_size=4)))}"
    stops = [draw(st.integers(0, len(r.split()) - 1)) for r in reels]
    return rule, reels, ladder, stops, draw(st.integers(0, 12)), global_multiplier


@SETTINGS
@given(case=random_tumble_game())
def test_random_games_chain_as_the_reference(tmp_path, case):
    rule, reels, ladder, stops, max_cascades, global_multiplier = case
    # a strip of one paying symbol cascades for ever: max_cascades ends such chains (in both evaluators)
    text = game_text(rule, reels).replace("cascade_multipliers = [1, 2, 3]",
                                          f"cascade_multipliers = {ladder}\nmax_cascades = {max_cascades}"
                                          + global_multiplier)
    game = load(tmp_path, text)
    first, paid, _ = compiled_chain(game, stops)
    assert (first, paid) == reference_chain(game, stops)


def test_first_drop_is_the_exact_par_and_the_chain_adds_to_it():
    game = load_game(str(GALLERY))
    sheet = par(game, full_cycle=False)
    result = simulate(game, 400_000, seed=3)
    first = result.components["scatter_pays"].value + result.components["scatter:DIAMOND"].value
    se = math.hypot(result.components["scatter_pays"].ci95, result.components["scatter:DIAMOND"].ci95) / 1.96
    assert abs(first - float(sheet.rtp)) < 4 * se
    assert result.components["tumble"].value > 0.1  # the chain pays a good part of the game
    assert result.counters["tumble:cascades"] > 0 and result.counters["free_spins"] > 0
    assert 0 < result.counters["tumble:rounds"] <= result.counters["tumble:cascades"] + result.counters["tumble:multiplied"]


def test_gallery_conditional_agrees_with_end_to_end_and_every_mode_is_reported():
    game = load_game(str(GALLERY))
    estimate = estimate_rtp(game, precision=0.004, seed=2)
    names = [s.name for s in template("tumble").round_model(game).strata]
    assert names[0] == "tumble" and names[1].startswith("free_spins:4")
    end = simulate(game, 3_000_000, seed=9)
    assert abs(estimate.rtp - end.rtp) < 1.2 * math.hypot(estimate.rtp_ci95, end.rtp_ci95)
    modes = {e.mode.name: e for e in estimate_bet_modes(game, precision=0.01, seed=4)}
    assert set(modes) == {"base", "bonus_buy"}
    assert 0.85 < modes["base"].rtp < 1.05 and 0.85 < modes["bonus_buy"].rtp < 1.05
    assert modes["bonus_buy"].hit_frequency > 0.99  # the bought feature always pays something


def test_bought_free_spins_are_the_trigger_state_of_four():
    game = load_game(str(GALLERY))
    model = template("tumble").round_model(game)
    p4 = [s for s in model.strata if s.name.startswith("free_spins:4")][0].probability
    assert p4 == par(game, full_cycle=False).trigger_probability("free_spins") or p4 > 0
    bought = template("tumble").round_model(game.in_bet_mode("bonus_buy"))
    assert [s.name for s in bought.strata] == ["free_spins:4 (bought)"]
    natural = estimate_rtp(game.in_bet_mode("bonus_buy"), precision=0.9, seed=5)  # x the base bet: 0.9 % of the price
    direct = simulate(game.in_bet_mode("bonus_buy"), 20_000, seed=6)
    assert abs(natural.rtp - direct.rtp) < 1.2 * math.hypot(natural.rtp_ci95, direct.rtp_ci95)


def assert_rounds_equal_the_reference(game, seed: int, rounds: int, sim_seed: int, sim_rounds: int = 1_000_000):
    """Per component (the first drop with its scatter pays, tumble, free_spins, a wheel's cash) the mean of ``rounds`` rounds of
    :func:`workbench.reference.tumble_round` (``random.Random(seed)``) equals the compiled simulation's of
    ``sim_rounds`` rounds (within 4.5 combined standard errors); returns the simulation."""
    rng = random.Random(seed)
    per_component = {k: [] for k in ("first", "tumble", "free_spins") + (("wheel",) if "wheel" in game.features else ())}
    for _ in range(rounds):
        for k, v in reference.tumble_round(game, rng).items():
            per_component[k].append(float(v) / float(game.bet.cost))
    result = simulate(game, sim_rounds, seed=sim_seed)
    compiled = {"first": result.components[game.pays.rule].value + result.components["scatter:S"].value,
                "tumble": result.components["tumble"].value, "free_spins": result.components["free_spins"].value}
    ci = {"first": math.hypot(result.components[game.pays.rule].ci95, result.components["scatter:S"].ci95),
          "tumble": result.components["tumble"].ci95, "free_spins": result.components["free_spins"].ci95}
    if "wheel" in per_component:  # the free spins' wheel cash
        compiled["wheel"], ci["wheel"] = result.components["wheel"].value, result.components["wheel"].ci95
    for k, values in per_component.items():
        mean = float(np.mean(values))
        se = math.hypot(float(np.std(values)) / math.sqrt(rounds), ci[k] / 1.96)
        assert abs(mean - compiled[k]) < 4.5 * max(se, 1e-9), (k, mean, compiled[k])
    return result


WHEEL_TABLE = """[tables.w]
entries = [{ award = "cash", value = 2, weight = 4, again = true }, { award = "cash", value = 7, weight = 2 },
  { award = "free_spins", value = 3, weight = 3 }, { award = "respin", weight = 1 }]
"""


def _feature_game(tmp_path, rule: str, persistent: bool, carries: bool = False, more: str = ""):
    bombs = ["A M B C A D S S", "B A S C C A M", "A B M C A S D"]
    free = '[strip_sets.free]\nmode = "free_spins"\n' + "\n".join(f'reel{i + 1} = "{s}"' for i, s in enumerate(bombs))
    features = f"""free_spins_cascade_multipliers = [1, 1, 2]
trigger = "fs"
free_spins = {{ 2 = 3, 3 = 5 }}
retrigger = {{ 3 = 2 }}
max_free_spins = 12
free_spins_mode = "free_spins"
multiplier_symbol = "M"
multiplier_values = "bombs"
persistent_multiplier = {str(persistent).lower()}
free_spins_ladder_carries = {str(carries).lower()}
{more}"""
    extra = free + '\n[triggers.fs]\nscatter = "S"\nmin_count = 2\n[tables.bombs]\nentries = [{ value = 2, weight = 3 }, { value = 5, weight = 1 }]\n'
    reels = [r + " S" if i == 2 else r for i, r in enumerate(SMALL_REELS[rule])]  # two reels with S: free spins
    return load(tmp_path, game_text(rule, reels, features=features, extra=extra), f"{rule}_{persistent}.toml")


@pytest.mark.parametrize("rule,persistent,carries,more", [
    ("scatter_pays", True, False, ""), ("ways", False, True, ""), ("cluster", True, True, ""),
    # global multipliers: +1 per cascade after the listed rungs (the public 6x5 game's free spins, restarting each spin)
    ("scatter_pays", False, False, "free_spins_ladder_step = 1"),
    # +2 per free spin up to x7 for the whole feature; the symbols' total added to the rung of the chain's total
    ("cluster", True, False, 'free_spins_ladder_grows = "spin"\nfree_spins_ladder_step = 2\nfree_spins_ladder_cap = 7\n'
                             'ladder_applies = "chain"\nmultiplier_symbols = "add"'),
    ("lines", False, True, 'ladder_applies = "chain"\nmultiplier_symbols = "add"\nladder_step = 1\nladder_cap = 4'),
    # +1 per free spin that wins, for the spins after it (no cap: bounded by the spins)
    ("ways", True, False, 'free_spins_ladder_grows = "win"\nfree_spins_ladder_step = 1'),
    # position multipliers: kept through the feature (base spins restart them), or in the free spins only
    ("cluster", True, False, 'position_multipliers = [1, 2, 3]\nposition_multipliers_keep = "feature"'),
    ("cluster", False, True, 'position_multipliers = [0, 2, 4, 8]\nposition_multipliers_in = "free_spins"'),
    # a wheel as the free spins start and on every retrigger: cash that spins again, extra spins, a re-spin
    ("scatter_pays", True, False, 'wheel = "w"\n' + WHEEL_TABLE),
    # ... once per feature, no cash prize twice in one award
    ("ways", False, False, 'wheel = "w"\nwheel_on_retrigger = false\nwheel_repeat_cash = false\n' + WHEEL_TABLE),
])
def test_multiplier_symbols_and_free_spins_pay_as_the_reference(tmp_path, rule, persistent, carries, more):
    result = assert_rounds_equal_the_reference(_feature_game(tmp_path, rule, persistent, carries, more), 11, 30_000, 12)
    assert result.counters["free_spins"] > 1000 and result.counters["tumble:multiplied"] > 0


@pytest.mark.parametrize("rule", ["ways", "lines"])
def test_conditional_agrees_with_end_to_end_on_a_feature_game(tmp_path, rule):
    game = _feature_game(tmp_path, rule, True)
    estimate = estimate_rtp(game, precision=0.01, seed=21)
    end = simulate(game, 2_000_000, seed=22)
    assert abs(estimate.rtp - end.rtp) < 1.2 * math.hypot(estimate.rtp_ci95, end.rtp_ci95)


BAD = [
    ('multiplier_symbol = "A"\nmultiplier_values = "t"', '[tables.t]\nentries = [{ value = 2, weight = 1 }]',
     "must be a bonus symbol"),
    ('multiplier_symbol = "M"', "", "go together"),
    ('multiplier_symbol = "M"\nmultiplier_values = "t"', '[tables.t]\nentries = [{ value = 0.5, weight = 1 }]',
     "a whole number"),
    ('free_spins = { 2 = 3 }', "", "needs trigger"),
    ('trigger = "fs"', '[triggers.fs]\nscatter = "S"\nmin_count = 2', "free spins need free_spins"),
    ('max_cascades = -1', "", "below the minimum"),
    ('ladder_cap = 5', "", "a cap needs ladder_step"),
    ('ladder_step = 1\nladder_cap = 2', "", "the cap 2 is below the ladder's entry 3"),
    ('ladder_step = 0', "", "below the minimum"),
    ('ladder_applies = "total"', "", "'total' is not one of 'drop', 'chain'"),
    ('multiplier_symbols = "add"\nladder_applies = "chain"', "", "needs multiplier_symbol"),
    ('multiplier_symbol = "M"\nmultiplier_values = "t"\nmultiplier_symbols = "add"',
     '[tables.t]\nentries = [{ value = 2, weight = 1 }]', "need ladder_applies = \"chain\""),
    ('free_spins_ladder_step = 2', "", "free_spins_ladder_step needs trigger"),
    ('position_multipliers_keep = "feature"', "", "position_multipliers_keep needs position_multipliers"),
    ('position_multipliers = [2, 1]', "", "entry 2 (1) is below entry 1 (2)"),
    ('position_multipliers = [1, 2]\nposition_multipliers_keep = "feature"', "", "need free spins"),
    ('position_multipliers = [-1]', "", "below the minimum"),
    ('trigger = "fs"\nfree_spins = { 2 = 3 }\nfree_spins_mode = "free_spins"\nfree_spins_ladder_grows = "spin"\n'
     'free_spins_ladder_carries = true', '[triggers.fs]\nscatter = "S"\nmin_count = 2\n[strip_sets.fs]\n'
     'mode = "free_spins"\nreel1 = "A B C"\nreel2 = "A B C"\nreel3 = "A B C"', "already carries through the feature"),
    ('free_spins_ladder_grows = "winning"', "", "'winning' is not one of 'cascade', 'spin', 'win'"),
]


@pytest.mark.parametrize("features,extra,message", BAD)
def test_bad_tumble_features_name_file_and_key(tmp_path, features, extra, message):
    with pytest.raises(ReelsetError) as info:
        load(tmp_path, game_text("ways", SMALL_REELS["ways"], features=features, extra=extra))
    text = str(info.value)
    assert "game.toml" in text and message in text


def test_tumble_refuses_what_it_does_not_play(tmp_path):
    text = game_text("lines", SMALL_REELS["lines"]).replace('rule = "lines"', 'rule = "lines"\ndirection = "both_ways"')
    with pytest.raises(ReelsetError, match="left to right only"):
        load(tmp_path, text)
    tall = game_text("ways", SMALL_REELS["ways"]).replace("D = {}", "D = { height = 2 }").replace(" D", " D D")
    with pytest.raises(ReelsetError, match="one row tall"):
        load(tmp_path, tall, "tall.toml")


def test_max_cascades_zero_pays_the_spun_screen_only(tmp_path):
    text = game_text("scatter_pays", SMALL_REELS["scatter_pays"], features="max_cascades = 0")
    game = load(tmp_path, text)
    for stops in itertools.product(range(7), range(6), range(7)):
        first, paid, _ = compiled_chain(game, stops)
        assert paid == first  # the ladder's x1 first drop and nothing after it
    result = simulate(game, 100_000, seed=4)
    assert result.components["tumble"].value == 0 and result.counters["tumble:limit"] == 0
