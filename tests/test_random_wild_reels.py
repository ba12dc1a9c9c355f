"""Expanding sticky wilds placed off the strips (a ``sticky_reels`` outcome of [features] free_spins_random_wilds) and the
multiplier of a held reel drawn once or on every spin ([features] wild_reel_multiplier).

A sticky_reels outcome puts ``count`` new wilds on distinct reels no expanding sticky wild holds: each shows the wild on a
uniform row of its reel on the spin it arrives and holds the whole reel from the next spin to the end of the feature.
Checked three ways: a feature worked out by hand (every reel placed on the first spin: the later spins pay every
line's WILD 3, the first only what three single wilds make); the compiled drop's chance per cell; the compiled
feature against the slow reference (workbench.reference.free_spins_feature) with table multipliers drawn on reveal
or every spin, beside landed expanding sticky wilds, with retriggers; bad files name the file, the line and the key.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from fractions import Fraction

import numpy as np
import pytest

from test_random_wilds import random_text
from test_rounds_free_spins import assert_strata_equal_the_reference
from workbench import reference
from workbench.errors import ReelsetError
from workbench.io import loads_game
from workbench.rounds.random_wilds import random_wild_params, random_wilds_summary
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.rng import chunk_state

PLAIN_FREE = ["B B B", "C C C", "D D D"]  # free strips of one symbol each: every line shows B C D, which pays nothing
TABLE_WILD = ('WILD = { kind = "wild", substitutes = "all" }',
              'WILD = { kind = "wild", substitutes = "all", by_mode = { free = { multiplier = "wm" } } }')
WILD_TABLE = "\n[tables.wm]\nentries = [{ multiplier = 1, weight = 1 }, { multiplier = 3, weight = 1 }]\n"


def _game(entries: str, features: str = "", free=None, table: bool = False):
    text = random_text(entries, features, free=free)
    if table:
        text = text.replace(*TABLE_WILD) + WILD_TABLE
    return loads_game(text, "reels.toml")


def _first_spin_mean(game) -> Fraction:
    """Exact mean pay (line bets) of a free spin on the B / C / D strips with one WILD on a uniform row of each reel:
    every one of the 27 placements, each line paid by the slow reference's line evaluation."""
    total = Fraction(0)
    for rows in itertools.product(range(3), repeat=3):
        shown = [[sym.split()[0]] * 3 for sym in PLAIN_FREE]
        for r, row in enumerate(rows):
            shown[r][row] = "WILD"
        for l, line_rows in enumerate(game.paylines):
            for win in reference.line_wins(game, [shown[r][row] for r, row in enumerate(line_rows)], l, None):
                total += Fraction(win.paid)
    return total / 27


def test_placed_reels_hold_from_the_next_spin_as_worked_out_by_hand():
    """Every free spin places wilds on all three reels (those not held yet). The first spin shows one WILD on a
    uniform row of each reel; every later spin shows three wild reels: WILD 3 on all 5 lines = 250 line bets
    (50 x total bet). A feature of 4 spins pays 150 x total bet + the first spin, whose exact mean comes from the
    27 placements: the compiled mean per feature equals it (within 4.5 standard errors), and so does the slow
    reference's, and no feature pays under 150 or reaches 200 x total bet."""
    game = loads_game(random_text('{ wilds = "sticky_reels", count = 3, weight = 1 }', free=PLAIN_FREE)
                      .replace("free_spins = { 2 = 3 }", "free_spins = { 2 = 4 }"), "reels.toml")
    first = _first_spin_mean(game) / game.bet.cost  # x total bet
    assert 0 < first < 50
    result = simulate(game, 400_000, seed=71)
    started = result.counters["free_spins"]
    assert started > 1000
    per_feature = result.components["free_spins"].value * result.spins / started
    rng = random.Random(72)
    wins = [float(reference.free_spins_feature(game, 2, rng) / game.bet.cost) for _ in range(400)]
    assert all(150 <= w < 200 for w in wins)
    spread = statistics.stdev(wins)
    assert abs(per_feature - (150 + float(first))) < 4.5 * spread / math.sqrt(started)
    assert abs(statistics.fmean(wins) - (150 + float(first))) < 4.5 * spread / math.sqrt(len(wins))


def test_a_reels_drop_places_one_wild_per_free_reel_on_a_uniform_row():
    """3x3, reel 1 held: a sticky_reels outcome of 1 puts its wild on reel 2 or 3 (1/2 each), on each row 1/3: every cell
    of reels 2 and 3 with 1/6, reel 1 never; and marks the reel it chose as pending."""
    from workbench.simulate.steps.random_wilds import drop_many

    game = _game('{ wilds = "sticky_reels", count = 1, weight = 1 }')
    rw = random_wild_params(game)
    screen = np.full((3, 3), list(game.symbols).index("A"), dtype=np.int64)
    out = np.zeros(9, dtype=np.int64)
    n = 180_000
    held_reels = np.array([5, -1, -1], dtype=np.int64)
    drop_many(rw, screen, np.array([3, 3, 3]), np.zeros((3, 3), dtype=np.bool_), np.int64(game.symbols["WILD"].index),
              chunk_state(73, 0), n, out, held_reels)
    got = out.reshape(3, 3) / n
    expect = np.array([[0, 0, 0], [1, 1, 1], [1, 1, 1]]) / 6
    assert np.allclose(got, expect, atol=0.005), got
    assert not rw.pending.any()  # drop_many clears them after each drop, as a free spin does


STICKY_REELS_AND_CELLS = ('{ wilds = "none", weight = 3 }, { wilds = "sticky_reels", count = 1, weight = 2 }, '
                   '{ wilds = "sticky_reels", count = 2, weight = 1 }, { wilds = "cells", count = 2, weight = 1 }')


@pytest.mark.parametrize("label, features, table", [
    ("plain wild", "", False),
    ("multiplier drawn on reveal", "", True),
    ("multiplier drawn every spin", 'wild_reel_multiplier = "every_spin"\n', True),
    ("beside landed expanding sticky wilds, every spin", 'free_spins_wilds = "expanding_sticky"\n'
                                                         'wild_reel_multiplier = "every_spin"\n', True),
])
def test_placed_reels_feature_equals_the_slow_reference(label, features, table):
    """Placed reels (1 or 2 per spin), random cells, retriggers (the default free strips show SCAT and WILD): the
    compiled feature's mean per trigger count equals the reference's."""
    game = _game(STICKY_REELS_AND_CELLS, features, table=table)
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.05, seed=74), 75, 3000)


def test_every_spin_draws_move_the_spread_not_the_mean_of_a_held_reel():
    """Reels all held from spin 2 with a wild of x1 / x3 (1 : 1): drawn on reveal, each reel keeps one multiplier
    for the feature; drawn every spin, each spin draws again. A line of three held reels pays 50 x the product of
    its three multipliers either way, so the mean is the same (within the intervals); the spread of the slow
    reference's features is larger when the multipliers are kept (every spin of a feature shares them)."""
    base = random_text('{ wilds = "sticky_reels", count = 3, weight = 1 }', free=PLAIN_FREE).replace(*TABLE_WILD) + WILD_TABLE
    kept = loads_game(base.replace("free_spins = { 2 = 3 }", "free_spins = { 2 = 6 }"), "kept.toml")
    redrawn = loads_game(base.replace("free_spins = { 2 = 3 }", 'free_spins = { 2 = 6 }\nwild_reel_multiplier = '
                                      '"every_spin"'), "redrawn.toml")
    means = []
    for g, seed in ((kept, 76), (redrawn, 78)):  # the feature's mean win per feature started, and its standard error
        result = simulate(g, 200_000, seed=seed)
        started = result.counters["free_spins"]
        feature = result.components["free_spins"]
        means.append((feature.value * result.spins / started, feature.ci95 / 1.96 * result.spins / started))
    (ma, sa), (mb, sb) = means
    assert abs(ma - mb) < 4.5 * math.hypot(sa, sb), means
    rng = random.Random(77)
    spreads = [statistics.stdev(float(reference.free_spins_feature(g, 2, rng)) for _ in range(1500)) for g in (kept, redrawn)]
    assert spreads[0] > 1.5 * spreads[1], spreads
    assert "drawn again every spin" in random_wilds_summary(redrawn)
    assert "expanding sticky wild reels (from the next spin)" in random_wilds_summary(kept)


BAD = [
    ('{ wilds = "sticky_reels", weight = 1 }', "", "tables.rw.entries[0].count", "needs count"),
    ('{ wilds = "sticky_reels", count = 4, weight = 1 }', "", "tables.rw.entries[0].count", "1..3 (the reels)"),
    ('{ wilds = "sticky_reels", count = 1, sizes = [2], weight = 1 }', "", "tables.rw.entries[0].sizes", "unknown key"),
    ('{ wilds = "sticky_reels", count = 1, weight = 1 }', 'free_spins_wilds = "sticky"\n', "features.free_spins_wilds",
     "places expanding sticky wilds"),
    ('{ wilds = "cells", count = 1, weight = 1 }', 'wild_reel_multiplier = "every_spin"\n',
     "features.wild_reel_multiplier", "needs free_spins_wilds"),
    ('{ wilds = "sticky_reels", count = 1, weight = 1 }', 'wild_reel_multiplier = "sometimes"\n',
     "features.wild_reel_multiplier", "every_spin"),
]


@pytest.mark.parametrize("entries, features, key, message", BAD)
def test_bad_placed_reels_name_file_line_and_key(entries, features, key, message):
    with pytest.raises(ReelsetError) as info:
        loads_game(random_text(entries, features), "bad_reels.toml")
    problems = info.value.problems
    assert any(p.key == key and message in p.message and p.line and p.file == "bad_reels.toml" for p in problems), problems


def test_the_gallery_reel_buy_states_its_placed_reels_in_the_overview():
    """wheel_free_spins.toml's reel_buy plays random wilds of its own: the report's overview names the bet mode and
    each outcome with its chance."""
    from workbench.io import load_game
    from workbench.report.game_tables import game_overview

    row = game_overview(load_game("examples/wheel_free_spins")).loc["random wilds", "value"]
    assert row.startswith("bet mode reel_buy: on every free spin, WILD dropped by table placed_reels: none 95.00 %")
    assert "1 expanding sticky wild reel (from the next spin) 5.00 %" in row
    assert row.endswith("a held reel's multiplier drawn again every spin")


def test_the_table_editor_shows_a_random_wilds_table_in_words():
    """The table editor shows the reel buy's random-wilds table with its outcomes in words (not an EV of count)."""
    from workbench.io import load_game
    from workbench.widgets.table_editor import _table_roles

    role = _table_roles(load_game("examples/wheel_free_spins"))["placed_reels"]
    assert role.startswith("bet mode reel_buy: on every free spin, WILD dropped by table placed_reels")
