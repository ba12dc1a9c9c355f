"""Expanding sticky wilds of the free spins (free_spins_wilds = "expanding_sticky"): a wild that lands fills its
reel and stays there to the end of the feature, at most one per reel, its multiplier drawn from the wild's table
once when it lands (the whole reel keeps it).

Checked against what can be worked out by hand (a reel held from the first spin pays the same line win on every
later spin, its multiplier fixed), and against the slow reference feature on a game with table wilds (both
simulated).
"""

from __future__ import annotations

import pytest

from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench.errors import ReelsetError
from workbench.io import loads_game
from workbench.simulate import estimate_rtp, simulate

TABLE = "\n[tables.reveal]\nentries = [\n  { multiplier = 2, weight = 1 },\n  { multiplier = 5, weight = 1 },\n]\n"


def _game(features: str, free=None, wild_table: bool = True):
    text = lines_text('free_spins_wilds = "expanding_sticky"\nwild_symbol = "WILD"\n' + features,
                      **({"free": free} if free else {}))
    if wild_table:  # the WILD draws x2 or x5 in the free spins only
        text = text.replace('WILD = { kind = "wild", substitutes = "all" }',
                            'WILD = { kind = "wild", substitutes = "all", by_mode = { free = { multiplier = "reveal" } } }')
        text += TABLE
    return loads_game(text, "expanding.toml")


def test_a_revealed_reel_keeps_its_wild_and_its_multiplier_to_the_end():
    """Free strips: reel 1 always shows WILD at the top (then A A), reels 2 and 3 only A: the first free spin reveals
    reel 1 (x2 or x5, 1 : 1) and from then on every line shows WILD A A = A 3 (20 line bets) x the reel's
    multiplier: all 5 lines, 100 line bets x m, on every spin, the first included.  So a feature of 4 spins pays
    400 x m line bets (80 x m total bets): 160 or 400, half and half, and never anything in between."""
    free = ["WILD A A", "A A A", "A A A"]
    game = _game("free_spins = { 2 = 4 }", free=free)
    result = simulate(game, 40_000, seed=31)
    started = result.counters["free_spins"]
    feature = result.components["free_spins"].value * result.spins  # x total bet, summed over rounds
    assert started > 0
    # every feature pays 160 or 400: the sum is 160 x features + 240 x (features that drew x5)
    fives = (feature - 160 * started) / 240
    assert fives == pytest.approx(round(fives), abs=1e-6)
    assert 0.45 * started < round(fives) < 0.55 * started
    # the slow reference plays the same features
    from workbench import reference
    import random

    rng = random.Random(32)
    pays = {float(reference.free_spins_feature(game, 2, rng) / game.bet.cost) for _ in range(200)}
    assert pays == {160.0, 400.0}


def test_a_plain_wild_expands_and_sticks_without_a_table():
    """The same with a WILD of no table (x1): every feature pays 4 x 100 line bets = 80 x total bet."""
    game = _game("free_spins = { 2 = 4 }", free=["WILD A A", "A A A", "A A A"], wild_table=False)
    result = simulate(game, 20_000, seed=33)
    feature = result.components["free_spins"].value * result.spins
    assert feature == pytest.approx(80 * result.counters["free_spins"], rel=1e-12)


@pytest.mark.parametrize("features", [
    "free_spins = { 2 = 4, 3 = 6 }\nretrigger = { 2 = 2 }\nmax_free_spins = 12",
    "free_spins = { 2 = 5 }\nmultiplier_growth = \"per_win\"\nmax_multiplier = 3\nfeature_cap = 60",
])
def test_expanding_sticky_feature_equals_the_slow_reference(features):
    """With table wilds (x2 / x5 drawn once per revealed reel; WILDs on reels 2 and 3 of the free strips), retriggers,
    growth and a cap: the compiled feature's mean per trigger count equals workbench.reference.free_spins_feature's
    (within 4.5 combined standard errors)."""
    game = _game(features, free=["A B C SCAT D A B C D", "A WILD SCAT C D A B C D WILD", "A B WILD D SCAT A B C D"])
    # The game's RTP is in the thousands of %, so the RTP precision is x 100 looser than 0.02 relatively; at 0.1 the
    # estimate's standard error per state (0.25 and 0.83 x bet) is still tiny beside the reference's (4.4 and 6.9 at
    # 3000 features), and 3100 reference features (not 3000) keep the combined standard error, so the tolerance,
    # below what precision 0.02 with 3000 features gave (about 25x fewer compiled rounds).
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.1, seed=34), 35, 3100)


def test_expanding_sticky_needs_a_lines_game_and_a_wild():
    with pytest.raises(ReelsetError, match="expanding_sticky wilds need wild_symbol"):
        loads_game(lines_text('free_spins = { 2 = 5 }\nfree_spins_wilds = "expanding_sticky"'), "fs.toml")
    # the other wild modes still refuse a wild drawn per landing; this one plays it
    assert _game("free_spins = { 2 = 5 }").features["free_spins_wilds"] == "expanding_sticky"  # loads with its table
    sticky = lines_text('free_spins = { 2 = 5 }\nfree_spins_wilds = "sticky"\nwild_symbol = "WILD"').replace(
        'WILD = { kind = "wild", substitutes = "all" }',
        'WILD = { kind = "wild", substitutes = "all", by_mode = { free = { multiplier = "reveal" } } }') + TABLE
    with pytest.raises(ReelsetError, match="not played beside wilds whose multiplier is drawn per landing"):
        loads_game(sticky, "fs.toml")
