"""Tumble scatters over the whole chain and free spins per scatter (``[features] chain_scatters``,
``free_spins_per_scatter``, ``retrigger_per_scatter``).

The compiled round against the slow reference (:func:`workbench.reference.tumble_round`) component by component,
exact + conditional against end to end, the strata (none by first-drop count when the chain counts; per-scatter
counts up to the most the strips show) and validation.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyp import examples
from workbench.errors import ReelsetError
from workbench.simulate import estimate_rtp, round_model, simulate

from test_rounds_tumble import SMALL_REELS, assert_rounds_equal_the_reference, game_text, load

FREE = ["A M B C A D S S", "B A S C C A M", "A B M C A S D"]


def feature_game(tmp_path, rule: str, spins: str, chain: str, base: list | None = None, free: list | None = None):
    free = '[strip_sets.free]\nmode = "free_spins"\n' + "\n".join(f'reel{i + 1} = "{s}"' for i, s in enumerate(free or FREE))
    features = f"""trigger = "fs"
{spins}
max_free_spins = 15
free_spins_mode = "free_spins"
multiplier_symbol = "M"
multiplier_values = "bombs"
chain_scatters = "{chain}"
"""
    extra = free + '\n[triggers.fs]\nscatter = "S"\nmin_count = 2\n[tables.bombs]\nentries = [{ value = 2, weight = 3 }, { value = 5, weight = 1 }]\n'
    reels = base or [r + " S" if i == 2 else r for i, r in enumerate(SMALL_REELS[rule])]
    return load(tmp_path, game_text(rule, reels, features=features, extra=extra), f"{rule}_{chain}.toml")


SPINS = ["free_spins = { 2 = 3, 3 = 5 }\nretrigger = { 3 = 2 }", "free_spins_per_scatter = 2\nretrigger_per_scatter = 1",
         "free_spins_per_scatter = 2", "free_spins = { 2 = 2 }\nretrigger_per_scatter = 1"]


@st.composite
def chain_games(draw):
    """(rule, spins, chain_scatters, base reels, free reels): random strips of A-D, wilds (not scatter_pays), S on
    reels 1 and 2 at least (a trigger needs 2) and bombs M in the free spins."""
    rule = draw(st.sampled_from(["scatter_pays", "ways", "cluster", "lines"]))
    symbols = ["A", "B", "C", "D"] + ([] if rule == "scatter_pays" else ["W"])

    def strip(extra: list) -> str:  # every regular symbol once (a strip of one symbol would cascade for ever)
        stops = ["A", "B", "C", "D"] + draw(st.lists(st.sampled_from(symbols), max_size=3)) + extra
        return " ".join(draw(st.permutations(stops)))

    base = [strip(["S"] * draw(st.integers(1 if i < 2 else 0, 2))) for i in range(3)]  # a trigger needs 2
    free = [strip(["S"] * draw(st.integers(0, 2)) + ["M"] * draw(st.integers(0, 1))) for i in range(3)]
    return rule, draw(st.sampled_from(SPINS)), draw(st.sampled_from(["none", "trigger", "paid"])), base, free


@settings(max_examples=examples(3), deadline=None)
@given(chain_games())
def test_rounds_pay_as_the_reference(tmp_path, case):
    """Random games: the compiled chain, its scatters counted (and paid) as declared, equals the reference component
    by component; exact + conditional equals end to end."""
    rule, spins, chain, base, free = case
    game = feature_game(tmp_path, rule, spins, chain, base, free)
    result = assert_rounds_equal_the_reference(game, 31, 8_000, 32)
    assert result.counters["free_spins"] > 0
    # as wide as the simulation, or what 6 s give (one of these games returns 450 x the bet)
    estimate = estimate_rtp(game, precision=min(result.rtp_ci95, 0.5), seed=33, max_seconds=6)
    assert abs(estimate.rtp - result.rtp) < 4.5 * math.hypot(estimate.rtp_ci95, result.rtp_ci95) / 1.96


def test_counting_over_the_chain_triggers_more_and_has_no_first_drop_strata(tmp_path):
    first = feature_game(tmp_path, "scatter_pays", "free_spins = { 2 = 3 }", "none")
    chain = feature_game(tmp_path, "scatter_pays", "free_spins = { 2 = 3 }", "trigger")
    assert [s.name for s in round_model(chain).strata] == ["tumble"]
    assert [s.name for s in round_model(first).strata][0] == "tumble" and len(round_model(first).strata) > 1
    a, b = simulate(first, 200_000, seed=34), simulate(chain, 200_000, seed=34)
    assert b.counters["free_spins"] > a.counters["free_spins"]  # scatters dropping in trigger too
    # the first drop is the same exact part either way
    assert a.components["scatter_pays"].value == pytest.approx(b.components["scatter_pays"].value, rel=0.05)


def test_per_scatter_strata_stop_at_the_most_the_strips_show(tmp_path):
    game = feature_game(tmp_path, "ways", "free_spins_per_scatter = 2", "none")
    names = [s.name for s in round_model(game).strata]
    # reels 1 and 3 carry one S each: at most 2 on a screen, though a per-scatter award reads counts up to 9 cells
    assert names == ["tumble", "free_spins:2"]
    assert round_model(game).params.award[9] == 18


@pytest.mark.parametrize("spins, key, message", [
    ('free_spins = { 2 = 3 }\nfree_spins_per_scatter = 2', "features.free_spins_per_scatter", "not both"),
    ('free_spins = { 2 = 3 }\nchain_scatters = "all"', "features.chain_scatters", "all"),
    ('free_spins_per_scatter = 0', "features.free_spins_per_scatter", "minimum"),
])
def test_bad_chain_and_per_scatter_keys(tmp_path, spins, key, message):
    free = '[strip_sets.free]\nmode = "free_spins"\n' + "\n".join(f'reel{i + 1} = "{s}"' for i, s in enumerate(FREE))
    features = f'trigger = "fs"\n{spins}\nfree_spins_mode = "free_spins"\n'
    extra = free + '\n[triggers.fs]\nscatter = "S"\nmin_count = 2\n'
    with pytest.raises(ReelsetError) as err:
        load(tmp_path, game_text("ways", SMALL_REELS["ways"], features=features, extra=extra))
    assert any(p.key == key and message in p.message for p in err.value.problems), \
        [(p.key, p.message) for p in err.value.problems]


def test_per_scatter_needs_a_trigger(tmp_path):
    with pytest.raises(ReelsetError) as err:
        load(tmp_path, game_text("ways", SMALL_REELS["ways"], features="free_spins_per_scatter = 2"))
    assert any(p.key == "features.free_spins_per_scatter" and "needs trigger" in p.message for p in err.value.problems)
