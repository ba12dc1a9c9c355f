"""Must-drop progressive jackpots declared for any game (``[jackpots.*]``): validated, fed by every wager of
every bet mode, simulated on their own stream and priced analytically, outside the max-win cap.

- the simulator (it jumps from drop to drop) lists the same drops as the slow reference, which walks every
  wager (:mod:`workbench.reference.jackpots`), on random tiers, wagers and warm-ups;
- the declared tiers reach the round model of any template (a classic game here, the free-spins gallery
  game and Bier Haus elsewhere); a bet mode's wager feeds them its cost x the stake;
- bad values are refused naming the key and saying the fix.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hyp import examples

from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game
from workbench.model import JackpotTier
from workbench.reference.jackpots import jackpot_drops
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.engine import round_model
from workbench.simulate.jackpots import analytic_rtp, simulate_jackpots

GALLERY = "examples/sticky_wilds_ante"


def validate_text(text: str, name: str) -> list:
    """Every problem of a reelset text (empty when it is valid)."""
    try:
        loads_game(text, name)
    except ReelsetError as exc:
        return exc.problems
    return []


@st.composite
def tier_sets(draw):
    """1-3 tiers a wager of 1 can feed (at most one step from restart to must-drop), and a number of wagers."""
    tiers = []
    for i in range(draw(st.integers(1, 3))):
        must = draw(st.sampled_from([5.0, 12.5, 40.0, 100.0, 250.0]))
        fraction = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]))
        rate = draw(st.sampled_from([0.002, 0.01, 0.05, 0.2]))
        rate = min(rate, must * (1 - fraction))  # one wager of 1 never feeds a pot past its must-drop value
        tiers.append(JackpotTier(f"T{i}", must, rate, 0.0, fraction))
    return tuple(tiers), draw(st.integers(0, 3)), draw(st.integers(1, 1_000_000))


@settings(max_examples=examples(40))
@given(tier_sets())
def test_the_simulator_lists_the_drops_of_the_wager_by_wager_reference(case):
    tiers, warmup, seed = case
    wagers = 4_000
    fast = simulate_jackpots(tiers, 1.0, wagers, np.random.default_rng(seed), warmup_drops=warmup, record=True)
    slow = jackpot_drops(tiers, 1.0, wagers, np.random.default_rng(seed), warmup_drops=warmup)
    assert [(w, name) for w, name, _ in fast.events] == [(w, name) for w, name, _ in slow]
    assert [a for _, _, a in fast.events] == pytest.approx([a for _, _, a in slow], rel=1e-9)
    assert fast.max_wins_per_wager <= 1  # one jackpot per wager


def test_tiers_crossing_together_pay_the_larger_first_and_the_other_on_a_later_wager():
    tiers = (JackpotTier("small", 5.0, 0.5, 0.0, 0.0), JackpotTier("large", 5.5, 0.5, 0.0, 0.0))
    slow = jackpot_drops(tiers, 1.0, 200, np.random.default_rng(3), warmup_drops=0)
    fast = simulate_jackpots(tiers, 1.0, 200, np.random.default_rng(3), warmup_drops=0, record=True)
    assert [e[:2] for e in fast.events] == [e[:2] for e in slow] and fast.deferred > 0
    wagers = [w for w, _, _ in slow]
    assert len(wagers) == len(set(wagers))


# ---------------------------------------------------------------------------
# any game: the declared tiers, every wager, outside the cap
# ---------------------------------------------------------------------------
def _classic_with_jackpots(stakes="[1, 2]", tiers=None) -> str:
    text = open("reelsets/examples/classic_any_bar.toml", encoding="utf-8").read()
    text = re.sub(r"^\[bet\]\n", f"[bet]\ncurrency = \"EUR\"\nstakes = {stakes}\n", text, count=1, flags=re.M)
    return text + (tiers or "\n[jackpots.Bar]\nmust_drop = 20\npot_rate = 0.01\nreseed_fraction = 0.5\n")


def test_a_classic_game_gains_a_jackpot_priced_analytically_and_simulated_beside_its_exact_pays():
    plain = load_game("examples/classic_any_bar")
    game = loads_game(_classic_with_jackpots(), "classic with a jackpot")
    (tier,) = game.jackpots
    assert (tier.must_drop, tier.pot_rate, tier.reseed_fraction) == (20.0, 0.01, 0.5)
    assert tier.reseed_rate == pytest.approx(0.01)  # left out: the rate the restarts consume, 0.01 x 0.5 / 0.5
    model = round_model(game)
    assert model.jackpots == game.jackpots and model.stake == 2.0  # the top of the ladder unless told
    exact = estimate_rtp(plain, precision=0.01, seed=1)
    est = estimate_rtp(game, precision=0.01, seed=1)
    assert est.jackpot_rtp == pytest.approx(0.02) and est.components["jackpots"].source == "analytic"
    assert est.rtp == pytest.approx(exact.rtp + 0.02) and est.game_rtp == pytest.approx(exact.rtp)
    sim = simulate(game, 2_000_000, seed=5)
    assert sim.jackpots.wins > 1_000 and sim.jackpots.stake == 2.0
    assert abs(sim.jackpot_rtp - 0.02) < 4 * sim.components["jackpots"].ci95 / 1.96
    assert sim.rtp == pytest.approx(sim.game_rtp + sim.jackpot_rtp)


def test_a_bet_mode_feeds_its_cost_x_the_stake_and_returns_the_same_share_of_its_cost():
    game = load_game(GALLERY)
    ante = game.in_bet_mode("ante")
    model = round_model(ante, stake=5.0)
    assert model.stake == 5.0 and model.wager == pytest.approx(6.0)  # 1.2 x the stake
    run = simulate(ante, 100_000, seed=2, stake=5.0)
    assert run.jackpots.stake == pytest.approx(6.0)
    est = estimate_rtp(ante, precision=0.05, seed=2, stake=5.0)
    assert est.jackpot_rtp == pytest.approx(analytic_rtp(game.jackpots)) == pytest.approx(0.01)


def test_the_gallery_game_names_its_jackpots_in_the_par_sheet_and_the_report_overview():
    from workbench.report.game_tables import game_overview

    game = load_game(GALLERY)
    row = game_overview(game).loc["must-drop jackpots", "value"]
    assert "Mini: drops by 50 EUR" in row and "Together 1.0000 % of every wager" in row
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "par", GALLERY], capture_output=True, text=True)
    assert out.returncode == 0 and "must-drop jackpots Mini, Mega: 1.0000 % of every wager, analytic" in out.stdout


def test_a_stake_past_a_tier_is_a_clear_error_not_a_traceback():
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", GALLERY, "--stake", "20000", "--json",
                          "--precision", "0.5"], capture_output=True, text=True)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "too large for the jackpot tier 'Mini'" in out.stderr and "at most stake 8,000" in out.stderr.replace("8000", "8,000")


# ---------------------------------------------------------------------------
# validation: the key, the problem and the fix
# ---------------------------------------------------------------------------
TIER = "\n[jackpots.Bar]\nmust_drop = 20\npot_rate = 0.01\nreseed_fraction = 0.5\n"


@pytest.mark.parametrize("tiers, stakes, key, words", [
    (TIER.replace("must_drop = 20", "must_drop = 0"), "[1, 2]", "jackpots.Bar.must_drop", "greater than 0"),
    (TIER.replace("must_drop = 20", "must_drop = 2e9"), "[1, 2]", "jackpots.Bar.must_drop", "at most 1,000,000,000"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = 1"), "[1, 2]", "jackpots.Bar.pot_rate", "must be below 1"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = 0.0000001"), "[1, 2]", "jackpots.Bar.pot_rate", "more than 6 decimal"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = -0.01"), "[1, 2]", "jackpots.Bar.pot_rate", "must not be negative"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = 0"), "[1, 2]", "jackpots.Bar.pot_rate", "at least 1e-06"),
    (TIER.replace("reseed_fraction = 0.5", "reseed_fraction = 1"), "[1, 2]", "jackpots.Bar.reseed_fraction", "below 1"),
    (TIER.replace("reseed_fraction = 0.5\n", ""), "[1, 2]", "jackpots.Bar", "'reseed_fraction'"),
    (TIER + "colour = \"gold\"\n", "[1, 2]", "jackpots.Bar.colour", "unknown key"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = \"lots\""), "[1, 2]", "jackpots.Bar.pot_rate", "expected a number"),
    (TIER, "[1, 2, 2000]", "bet.stakes", "stake 2000 is too large for the jackpot tier 'Bar'"),
    (TIER, "[1, 2, 2000]", "bet.stakes", "Bar by 20 (its step from restart to must_drop is 10; must_drop at least 40 would do)"),
    (TIER.replace("pot_rate = 0.01", "pot_rate = 0.6"), "[1]", "jackpots", "return 120.0000 % of every wager"),
    ("\n[jackpots]\nBar = 3\n", "[1, 2]", "jackpots.Bar", "expected a table"),
])
def test_bad_tiers_are_refused_naming_the_key(tiers, stakes, key, words):
    problems = validate_text(_classic_with_jackpots(stakes, tiers), "bad.toml")
    assert any(p.key == key and words in p.message for p in problems), [str(p) for p in problems]
    with pytest.raises(ReelsetError):
        loads_game(_classic_with_jackpots(stakes, tiers), "bad")


def test_jackpots_need_a_stake_ladder_in_currency():
    text = open("reelsets/examples/classic_any_bar.toml", encoding="utf-8").read() + TIER
    problems = validate_text(text, "no ladder.toml")
    assert any(p.key == "jackpots" and "declare the stake ladder" in p.message for p in problems)


def test_an_ante_whose_wager_passes_a_tier_is_refused_naming_the_mode():
    # at the top stake (10) a base wager feeds Mini 0.05 and fits its 0.056 step; the ante's 12 feeds 0.06
    text = open(f"reelsets/{GALLERY}.toml", encoding="utf-8").read().replace("must_drop = 50\n", "must_drop = 0.07\n")
    problems = validate_text(text, "ante.toml")
    assert any(p.key == "jackpots.Mini.must_drop" and "in bet mode 'ante'" in p.message for p in problems), \
        [str(p) for p in problems]


def test_the_json_estimate_carries_the_jackpot_return():
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", GALLERY, "--precision", "0.05", "--seed", "3",
                          "--json", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["jackpot_rtp"] == pytest.approx(0.01) and data["stake"] == 10
