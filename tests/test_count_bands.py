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



def _figures(result) -> tuple:
    """What a PAR sheet states exactly (the RTP as a fraction, hit frequency, std, max win, every combination's
    hits): equal for two games means the sheets agree."""
    return (result.rtp_exact, result.hit_frequency, result.std, result.max_win, result.max_win_exact,
            result.combinations.to_dict("records"))


def test_an_end_no_screen_reaches_leaves_every_exact_route_open():
    """The gallery's 7x7 cluster game ends every band at 37 cells, and no first screen of its strips shows more
    than 29 cells of one candy with the wilds: its PAR sheet is the open bands' to the last digit, and the
    250-stop production game keeps its exact hit frequency and std (the sweeps over runs, which need every band
    open, still apply)."""
    from workbench.exact.cluster import _ids, _reel_values, pay_scale, screen_reach
    from workbench.exact.windows import strip_set_windows
    from workbench.io import load_game

    path = "reelsets/examples/cluster_tumble_7x7.toml"
    gallery = load_game(path)
    assert all(pays[37] == 0 for pays in gallery.paytable.values())
    ids, wilds, tables = _ids(gallery, pay_scale(gallery))
    reels = _reel_values(gallery, strip_set_windows(gallery, gallery.strip_sets["base"]), ids, wilds, tables.index)
    assert max(screen_reach(reels, len(ids))) == 29
    opened = loads_game(open(path, encoding="utf-8").read().replace(", 37 = 0 }", " }"), "open.toml")
    assert not any(37 in pays for pays in opened.paytable.values())
    assert _figures(par(gallery)) == _figures(par(opened))
    production = load_game("reelsets/production/cluster_tumble_7x7_250.toml")
    assert all(pays[37] == 0 for pays in production.paytable.values())
    assert set(par(production).missing) == {"max_win"}  # as with open bands: only the max win is a bound


def test_sizes_in_reach_drops_an_end_beyond_every_screen_only():
    import numpy as np

    from workbench.exact.cluster import sizes_in_reach

    pays = np.array([[0, 0, 0, 2, 2, 5, 5, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1, 1]])
    assert sizes_in_reach(pays, np.array([6, 8])) == 5  # A's end (7) out of reach: columns up to 5 tell every pay
    assert sizes_in_reach(pays, np.array([7, 8])) == 7  # A can show 7 cells: its end stays
    assert sizes_in_reach(pays, np.array([4, 3])) == 3  # nothing above 4 cells of A, nor 3 of B


@pytest.mark.parametrize("end, reached", [(9, False), (8, True)])
def test_a_count_band_whose_end_no_screen_reaches_prices_as_open(end, reached):
    """The 3x3 game shows at most 8 A (3 + 2 + 3): an end at 9 changes nothing and leaves the sweep over the
    screens paying nothing open; at 8 it binds."""
    from workbench.exact.anywhere import _events, _reel_values, paying_ids, scatter_pay_tables, symbol_pay_units
    from workbench.exact.windows import strip_set_windows
    from workbench.pays.scale import pay_scale

    ended = loads_game(ANYWHERE.replace("7 = 0 }", f"{end} = 0 }}"), "band.toml")
    opened = loads_game(ANYWHERE.replace(", 7 = 0 }", " }"), "open.toml")
    scale = pay_scale(ended)
    tables = scatter_pay_tables(ended, scale)
    vals, _ = _reel_values(ended, strip_set_windows(ended, ended.strip_sets["base"]), paying_ids(ended), tables.index)
    ev, _ = _events(ended, scale, vals, 2, symbol_pay_units(ended, scale), tables)
    assert ev.monotone is not reached
    both = par(ended, full_cycle=True), par(opened, full_cycle=True)
    assert (_figures(both[0]) == _figures(both[1])) is not reached
