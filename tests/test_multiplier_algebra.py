"""The multiplier algebra the report states (workbench/rounds/algebra.py): read back from the keys each round reads,
so a change of a key changes the statement, and a game without multipliers states none."""

from __future__ import annotations

import pytest

from workbench.io import load_game, loads_game, reelsets_dir
from workbench.report.game_tables import game_overview
from workbench.rounds.algebra import multiplier_algebra


def _text(name: str) -> str:
    return (reelsets_dir() / "examples" / f"{name}.toml").read_text(encoding="utf-8")


def test_wilds_combine_as_declared_per_line_or_per_way():
    product = multiplier_algebra(load_game("examples/multiplier_wild_lines"))
    assert "several in one win multiply ([pays] combine = \"product\"), per line" in product
    summed = loads_game(_text("multiplier_wild_lines").replace('combine = "product"', 'combine = "sum"'), "m.toml")
    assert "several in one win add up ([pays] combine = \"sum\"), per line" in multiplier_algebra(summed)
    ways = multiplier_algebra(load_game("examples/ways_1024_free_wild_multipliers"))
    assert "per way" in ways and "draw their multiplier per cell when they land" in ways and "by_mode" in ways
    assert "chosen before its multipliers" in multiplier_algebra(load_game("examples/lines_wild_before_multipliers"))


def test_tumble_steps_come_in_the_order_the_round_applies_them():
    chain = multiplier_algebra(load_game("examples/pay_anywhere_tumble_chain"))
    assert chain.index("global multiplier") < chain.index("multiplier symbols")
    assert "+1 per cascade" in chain and "(per drop)" in chain
    cluster = multiplier_algebra(load_game("examples/cluster_tumble_7x7"))
    assert cluster.index("position multipliers") < cluster.index("global multiplier")
    assert "the sum of its cells' multipliers" in cluster and "x128" in cluster
    game = load_game("examples/pay_anywhere_tumble_chain").in_bet_mode("super_buy")
    assert "the chain's total x the rung it reached (per chain)" in multiplier_algebra(game)
    assert "adds to the rung" in multiplier_algebra(game) and "adding up over the free spins" in multiplier_algebra(game)


@pytest.mark.parametrize("name", ["ways_243", "pay_anywhere_6x5", "line_bonus_pick"])
def test_a_game_without_multipliers_states_none_and_the_report_leaves_the_row_out(name):
    game = load_game(f"examples/{name}")
    assert multiplier_algebra(game) == ""
    assert "multiplier algebra" not in game_overview(game).index


def test_the_report_overview_states_the_free_spins_multiplier():
    game = load_game("examples/ways_free_spins")
    row = game_overview(game).loc["multiplier algebra", "value"]
    assert "x a feature multiplier x3 (product)" in row
    text = _text("ways_free_spins")
    assert "\nmultiplier = 3 " in text
    grown = loads_game(text.replace("\nmultiplier = 3 ", "\nmultiplier_growth = \"per_win\"\nmultiplier_step = 2\n"
                                    "max_multiplier = 9\nmultiplier = 3 ", 1), "w.toml")
    assert "grows by 2 after every winning free spin up to x9" in multiplier_algebra(grown)
