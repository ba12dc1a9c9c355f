"""Player choices declared for any game (``[choices.*]``): each option its own ``[features]`` parameters, the RTP of
every policy reported.

- an option plays exactly the game whose ``[features]`` are written with its parameters (the slow reference: the
  file rewritten by hand, no choice), on random options: same parameters, the same simulated rounds;
- every policy's RTP: each fixed option is the estimate of the game with that option played (same seed); the
  highest and lowest per-state policies bound the fixed ones; end to end agrees with exact + conditional for
  another option than the one played;
- bad values are refused naming the key; the command line plays and prices options.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hyp import examples

from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.agreement import agreement
from workbench.simulate.policies import choice_rtps

GALLERY = "examples/ways_free_spins"
TEXT = open(f"reelsets/{GALLERY}.toml", encoding="utf-8").read()


def problems_of(text: str) -> list:
    try:
        loads_game(text, "game.toml")
    except ReelsetError as exc:
        return exc.problems
    return []


def _written_out(spins: dict, retrigger: dict, multiplier: int) -> str:
    """The gallery game with its [features] written with these parameters by hand and no [choices]."""
    text = re.sub(r"^\[choices\.free_spins_pick\].*?(?=^\[bet_modes)", "", TEXT, count=1, flags=re.M | re.S)

    def count_map(m: dict) -> str:
        return "{ " + ", ".join(f"{k} = {v}" for k, v in m.items()) + " }"
    text = re.sub(r"^free_spins = \{[^}]*\}", f"free_spins = {count_map(spins)}", text, count=1, flags=re.M)
    text = re.sub(r"^retrigger = \{[^}]*\}", f"retrigger = {count_map(retrigger)}", text, count=1, flags=re.M)
    return re.sub(r"^multiplier = 3", f"multiplier = {multiplier}", text, count=1, flags=re.M)


def _with_option(spins: dict, retrigger: dict, multiplier: int) -> str:
    """The gallery game with a fourth option of these parameters."""
    def count_map(m: dict) -> str:
        return "{ " + ", ".join(f"{k} = {v}" for k, v in m.items()) + " }"
    line = (f"drawn = {{ free_spins = {count_map(spins)}, retrigger = {count_map(retrigger)}, "
            f"multiplier = {multiplier} }}\n")
    return TEXT.replace("\n[bet_modes.bonus_buy]", line + "\n[bet_modes.bonus_buy]", 1)


awards = st.tuples(st.integers(1, 30), st.integers(0, 10), st.integers(0, 10)).map(
    lambda t: {3: t[0], 4: t[0] + t[1], 5: t[0] + t[1] + t[2]})


@settings(max_examples=examples(6))
@given(awards, awards, st.integers(1, 10))
def test_an_option_plays_the_game_written_with_its_parameters(spins, retrigger, multiplier):
    chosen = loads_game(_with_option(spins, retrigger, multiplier), "option.toml").with_choice("free_spins_pick", "drawn")
    reference = loads_game(_written_out(spins, retrigger, multiplier), "written.toml")
    assert dict(chosen.features) == dict(reference.features)
    a, b = simulate(chosen, 30_000, seed=11), simulate(reference, 30_000, seed=11)
    assert a.raw.comp_sum.tolist() == b.raw.comp_sum.tolist() and a.counters == b.counters


def test_the_played_option_is_the_file_and_another_option_replaces_only_what_it_sets():
    game = load_game(GALLERY)
    assert game.choices["free_spins_pick"].played == "x3" and game.features["multiplier"] == 3
    x5 = game.with_choice("free_spins_pick", "x5")
    assert x5.features["multiplier"] == 5 and dict(x5.features["free_spins"]) == {"3": 6, "4": 9, "5": 12}
    back = x5.with_choice("free_spins_pick", "x3")
    assert dict(back.features) == dict(game.features) and back.choices["free_spins_pick"].played == "x3"
    # a bet mode's own parameters come last whatever the player picks; the rest follows the pick
    buy = game.in_bet_mode("bonus_buy").with_choice("free_spins_pick", "x2")
    assert buy.features["multiplier"] == 2 and buy.bet_mode.name == "bonus_buy"
    with pytest.raises(KeyError, match="no option 'x9'"):
        game.with_choice("free_spins_pick", "x9")


def test_every_policy_is_priced_and_the_best_and_worst_player_bound_the_fixed_ones():
    game = load_game(GALLERY)
    played = estimate_rtp(game, 0.01, seed=4)
    (result,) = choice_rtps(game, 0.01, seed=4, played=played).values()
    assert [p.option for p in result.fixed] == ["x3", "x2", "x5"] and result.estimates["x3"] is played
    x5 = estimate_rtp(game.with_choice("free_spins_pick", "x5"), 0.01, seed=4)
    assert result.fixed[2].rtp == x5.rtp and result.fixed[2].ci95 == x5.rtp_ci95
    assert result.highest is not None and result.lowest is not None, result.note
    assert all(result.lowest.rtp - 1e-12 <= p.rtp <= result.highest.rtp + 1e-12 for p in result.fixed)
    assert set(result.highest.picks) == {s.name for s in played.strata}
    # the x2 and x5 options differ by about a point: a player's pick matters, and the report says so
    assert result.spread > 0.004


def test_another_option_agrees_end_to_end_and_exact_plus_conditional():
    game = load_game(GALLERY).with_choice("free_spins_pick", "x5")
    sim = simulate(game, 1_000_000, seed=101)
    est = estimate_rtp(game, precision=max(0.003, sim.rtp_ci95 / 2), seed=202)
    check = agreement(sim, est)
    assert check.within(4.0), check.describe(4.0)


# ---------------------------------------------------------------------------
# validation: the key, the problem, the fix
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("old, new, key, words", [
    ('played = "x3"', 'played = "x4"', "choices.free_spins_pick.played", "not one of the options (x3, x2, x5)"),
    ("multiplier = 5 }", "multiplier = 0 }", "choices.free_spins_pick.options.x5.multiplier", "below the minimum 1"),
    ("multiplier = 5 }", "multipler = 5 }", "choices.free_spins_pick.options.x5.multipler", "unknown key"),
    ("x5 = { free_spins", "x5 = 3\nx6 = { free_spins", "choices.free_spins_pick.options.x5", "expected a table"),
    ('played = "x3"', 'played = "x3"\nspins = 3', "choices.free_spins_pick.spins", "unknown key"),
])
def test_bad_choices_are_refused_naming_the_key(old, new, key, words):
    assert old in TEXT
    problems = problems_of(TEXT.replace(old, new, 1))
    assert any(p.key == key and words in p.message for p in problems), [str(p) for p in problems]


def test_a_choice_of_one_option_and_two_choices_of_one_parameter_are_refused():
    one = re.sub(r"^x2 = .*\n^x5 = .*\n", "", TEXT, count=1, flags=re.M)
    assert any(p.key == "choices.free_spins_pick.options" and "two options or more, got 1" in p.message
               for p in problems_of(one))
    two = TEXT.replace("\n[bet_modes.bonus_buy]", '\n[choices.other]\nplayed = "a"\n[choices.other.options]\n'
                       'a = {}\nb = { multiplier = 4 }\n\n[bet_modes.bonus_buy]', 1)
    assert any(p.key == "choices.other.options.b.multiplier" and "already set by choice 'free_spins_pick'" in p.message
               for p in problems_of(two)), [str(p) for p in problems_of(two)]


def test_a_template_that_plays_its_own_rounds_takes_no_declared_choice():
    text = open("reelsets/bier_haus_oktober_fest.toml", encoding="utf-8").read()
    text += '\n[choices.pick]\nplayed = "a"\n[choices.pick.options]\na = {}\nb = { bonus_guarantee = 10 }\n'
    assert any(p.key == "choices.pick" and "plays its own rounds" in p.message for p in problems_of(text))


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------
def _cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench.cli", *args], capture_output=True, text=True)


def test_rtp_prices_every_policy_and_simulate_plays_a_chosen_option():
    out = _cli("rtp", GALLERY, "--bet-mode", "base", "--precision", "0.05", "--seed", "3", "--choices", "--json",
               "--quiet")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["choices"]["free_spins_pick"]
    assert [p["option"] for p in data["fixed"]] == ["x3", "x2", "x5"] and data["played"] == "x3"
    assert data["lowest"]["rtp"] <= min(p["rtp"] for p in data["fixed"]) + 1e-12
    text = _cli("rtp", GALLERY, "--bet-mode", "base", "--precision", "0.05", "--quiet")
    assert "choice            free_spins_pick: played x3 of x3, x2, x5 (`--choices` prices every policy)" in text.stdout
    sim = _cli("simulate", GALLERY, "--choice", "free_spins_pick=x5", "--spins", "20000", "--json", "--quiet")
    plain = _cli("simulate", GALLERY, "--spins", "20000", "--json", "--quiet")
    assert sim.returncode == 0 and json.loads(sim.stdout)["rtp"] != json.loads(plain.stdout)["rtp"]


@pytest.mark.parametrize("pick, words", [("free_spins_pick=x9", "has no option 'x9' (options: x3, x2, x5)"),
                                         ("pick=x2", "has no player choice 'pick' (choices: free_spins_pick)"),
                                         ("x2", "expected NAME=OPTION")])
def test_a_bad_choice_on_the_command_line_is_a_clear_error(pick, words):
    out = _cli("simulate", GALLERY, "--choice", pick, "--spins", "1000", "--quiet")
    assert out.returncode != 0 and words in out.stderr and "Traceback" not in out.stderr
