"""Cluster sizes and pay-anywhere counts whose band ends: ``{ 5 = 3, 15 = 150, 37 = 0 }`` pays nothing from 37 on.

The random-game property tests draw such bands too: exact = the reference's enumeration on every route of the
pay-anywhere and cluster engines (tests/test_anywhere.py, tests/test_cluster.py, tests/test_cluster_transfer.py,
``randomgames.with_upper_end``).  Here: validation, a band that binds (exact, simulation, the compiled tumble
against the reference).
"""

import itertools

import pytest

from test_rounds_tumble import SMALL_REELS, compiled_chain, game_text, reference_chain
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import loads_game
from workbench.simulate import simulate

ANYWHERE = """format_version = 1
name = "Band"
game_module = "classic"
[grid]
reels = 3
rows = 3
[pays]
rule = "scatter_pays"
[bet]
cost = 10
line_bet = 1
[symbols]
A = {}
B = {}
C = {}
[paytable]
A = { 3 = 2, 5 = 10, 7 = 0 }
B = { 4 = 3 }
[strip_sets.base]
mode = "base"
reel1 = "A A A B C A B"
reel2 = "A A B A C C"
reel3 = "A A A C B A"
"""


def test_a_band_that_ends_pays_nothing_past_its_end_exactly_and_simulated():
    game = loads_game(ANYWHERE, "band.toml")
    open_band = loads_game(ANYWHERE.replace("A = { 3 = 2, 5 = 10, 7 = 0 }", "A = { 3 = 2, 5 = 10 }"), "open.toml")
    ended, opened = par(game, full_cycle=True), par(open_band, full_cycle=True)
    assert ended.rtp_exact < opened.rtp_exact  # 7, 8 or 9 A (the strips show them) pay nothing
    assert ended.hit_frequency < opened.hit_frequency  # screens whose only win was 7+ A pay nothing
    result = simulate(game, 300_000, seed=3)
    assert abs(result.rtp - float(ended.rtp_exact)) < 4.5 * result.rtp_ci95 / 1.96


def test_a_tumble_pays_a_cluster_past_the_end_nothing_as_the_reference(tmp_path):
    """Every spin of a small cluster tumble game whose A band ends at 4 cells: the compiled chain = the reference."""
    text = game_text("cluster", SMALL_REELS["cluster"]).replace('A = { 3 = 1, 5 = 4 }', 'A = { 3 = 1, 4 = 0 }')
    assert "A = { 3 = 1, 4 = 0 }" in text
    game = loads_game(text, "cluster_band.toml")
    lengths = [len(s.split()) for s in SMALL_REELS["cluster"]]
    ended = 0
    for stops in itertools.product(*[range(n) for n in lengths]):
        first, paid, _ = compiled_chain(game, stops)
        assert (first, paid) == reference_chain(game, stops), stops
        ended += first == 0 and paid == 0
    assert ended > 0


@pytest.mark.parametrize("rule, pays, message", [
    ("scatter_pays", "A = { 3 = 2, 5 = 10, 7 = 0, 8 = 5 }", "[paytable.A.8] pay 5 for 8 is after the band's upper end "
                                                             "(7 = 0: from 7 on nothing pays)"),
    ("scatter_pays", "A = { 3 = 2, 5 = 10, 7 = 4 }", "pays must not decrease with count (or 0: the band's upper end)"),
    ("lines", "A = { 2 = 5, 3 = 0 }", "pay 0 for 3 is less than 5 for 2: pays must not decrease with count"),
])
def test_bands_are_refused_where_they_do_not_end_cleanly(rule, pays, message):
    if rule == "lines":
        text = game_text("lines", SMALL_REELS["lines"]).replace('A = { 2 = 1, 3 = 5 }', pays)
    else:
        text = ANYWHERE.replace("A = { 3 = 2, 5 = 10, 7 = 0 }", pays)
    with pytest.raises(ReelsetError) as err:
        loads_game(text, "bad.toml")
    assert message in str(err.value), str(err.value)
