"""Random wilds on every free spin ([features] free_spins_random_wilds, workbench/rounds/random_wilds.py): nothing,
N wilds on random cells, or square overlays of given sizes, drawn once per free spin.

Checked three ways: the compiled drop (simulate.steps.random_wilds) against the exact chance of each cell being hit;
the compiled feature against the slow reference feature (workbench.reference.free_spins_feature, which drops them
itself), alone and beside sticky wilds and wilds whose multiplier is drawn per cell; scatters counted before the
drop; end to end on the gallery game (tests/test_mystery.py).  Bad files name the file, the line and the key.
"""

from __future__ import annotations

import numpy as np
import pytest

from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench.errors import ReelsetError
from workbench.io import loads_game
from workbench.rounds.random_wilds import random_wild_params
from workbench.simulate import estimate_rtp, round_model, simulate
from workbench.simulate.rng import chunk_state


def random_text(entries: str, features: str = "", free=None) -> str:
    """The 3x3 free-spins test game with random wilds ``[tables.rw] entries = [entries]`` on its free spins."""
    feats = ('free_spins = { 2 = 3 }\nretrigger = { 2 = 2 }\nmax_free_spins = 30\nfree_spins_random_wilds = "rw"\n'
             'wild_symbol = "WILD"\n' + features)
    text = lines_text(feats) if free is None else lines_text(feats, free=free)
    return text + f"\n[tables.rw]\nentries = [{entries}]\n"


CELLS_AND_OVERLAYS = ('{ wilds = "none", weight = 4 }, { wilds = "cells", count = 2, weight = 3 }, '
                      '{ wilds = "overlay", sizes = [2], weight = 2 }, { wilds = "overlay", sizes = [2, 3], weight = 1 }')


def test_a_drop_hits_each_cell_with_its_exact_chance():
    """3x3: 2 wilds on cells (held cell (0, 0) excluded): each other cell 2/8; a 2x2 overlay: corners 1/4, edges 1/2,
    the centre 1."""
    from workbench.simulate.steps.random_wilds import drop_many

    for entries, expect in [
        ('{ wilds = "cells", count = 2, weight = 1 }', np.array([[0, 2, 2], [2, 2, 2], [2, 2, 2]]) / 8),
        ('{ wilds = "overlay", sizes = [2], weight = 1 }', np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 4),
    ]:
        game = loads_game(random_text(entries), "rw.toml")
        rw = random_wild_params(game)
        screen = np.zeros((3, 3), dtype=np.int64)  # symbol 0 (WILD) nowhere: fill with A
        screen[:] = list(game.symbols).index("A")
        held = np.zeros((3, 3), dtype=np.bool_)
        held[0, 0] = True
        out = np.zeros(9, dtype=np.int64)
        n = 200_000
        drop_many(rw, screen, np.array([3, 3, 3]), held, np.int64(game.symbols["WILD"].index), chunk_state(5, 0), n, out,
                  np.full(3, -1, dtype=np.int64))
        got = out.reshape(3, 3) / n
        if "overlay" in entries:  # overlays ignore held cells
            assert got[0, 0] == pytest.approx(expect[0, 0], abs=0.005)
        assert np.allclose(got, expect, atol=0.005), got


@pytest.mark.parametrize("label, entries, features", [
    ("cells and overlays", CELLS_AND_OVERLAYS, ""),
    ("beside sticky wilds", CELLS_AND_OVERLAYS, 'free_spins_wilds = "sticky"\n'),
    ("beside walking wilds, many cells", '{ wilds = "cells", count = 4, weight = 1 }, { wilds = "none", weight = 2 }',
     'free_spins_wilds = "walking"\n'),
])
def test_random_wilds_feature_equals_the_slow_reference(label, entries, features):
    game = loads_game(random_text(entries, features), "rw.toml")
    # RTPs of 800-1,400 %: precision 0.01 (under 0.1 % relatively, up to 4.8 million rounds) left the estimate's
    # standard error 20-40 x below the reference's; at 0.05 with 3200 reference features (not 3000) the combined
    # standard error, so the tolerance, stays below what (0.01, 3000) gave for each game
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.05, seed=51), 52, 3200)


def test_dropped_wilds_draw_their_multiplier_per_cell_as_landed_ones_do():
    text = random_text(CELLS_AND_OVERLAYS).replace(
        'WILD = { kind = "wild", substitutes = "all" }',
        'WILD = { kind = "wild", substitutes = "all", by_mode = { free = { multiplier = "wm" } } }')
    text += "\n[tables.wm]\nentries = [{ multiplier = 1, weight = 3 }, { multiplier = 2, weight = 1 }]\n"
    game = loads_game(text, "rw_mult.toml")  # x1 / x2: a feature's spread stays small enough for a quick estimate
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.2, seed=53), 54, 3000)


def test_scatters_count_before_the_drop():
    """Every free spin turns all 9 cells wild: the free spins still retrigger from the scatters that landed, and
    each pays WILD 3 on all 5 lines (50 line bets each) plus its landed scatters."""
    game = loads_game(random_text('{ wilds = "cells", count = 9, weight = 1 }'), "rw_all.toml")
    result = simulate(game, 200_000, seed=55)
    assert result.counters["free_spins:retriggers"] > 0
    spins = result.counters["free_spins:spins"]
    feature = result.components["free_spins"].value * result.spins * game.bet.cost  # credits over the run
    assert feature >= 250 * spins


BAD = [
    ('{ wilds = "cells", count = 2, weight = 1 }', 'wild_symbol = "A"', "features.wild_symbol", "must be a wild"),
    ('{ wilds = "some", weight = 1 }', "", "tables.rw.entries[0].wilds", "must be one of"),
    ('{ wilds = "cells", weight = 1 }', "", "tables.rw.entries[0].count", "needs count"),
    ('{ wilds = "cells", count = 10, weight = 1 }', "", "tables.rw.entries[0].count", "1..9"),
    ('{ wilds = "overlay", sizes = [4], weight = 1 }', "", "tables.rw.entries[0].sizes", "1..3"),
    ('{ wilds = "overlay", sizes = [], weight = 1 }', "", "tables.rw.entries[0].sizes", "1 to 8"),
    ('{ wilds = "overlay", sizes = [2], count = 1, weight = 1 }', "", "tables.rw.entries[0].count", "unknown key"),
    ('{ wilds = "none", weight = 1 }, { wilds = "cells", count = 1, weight = 0 }', "", "tables.rw.entries",
     "no outcome with weight"),
]


@pytest.mark.parametrize("entries, extra, key, message", BAD)
def test_bad_random_wilds_name_file_line_and_key(entries, extra, key, message):
    text = random_text(entries)
    if extra:
        text = text.replace('wild_symbol = "WILD"', extra)
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bad_rw.toml")
    problems = info.value.problems
    assert any(p.key == key and message in p.message and p.line and p.file == "bad_rw.toml" for p in problems), problems


def test_random_wilds_need_a_wild_symbol_and_a_lines_game():
    with pytest.raises(ReelsetError) as info:
        loads_game(random_text(CELLS_AND_OVERLAYS).replace('wild_symbol = "WILD"\n', ""), "bad_rw.toml")
    assert any("need wild_symbol" in p.message for p in info.value.problems), info.value.problems
    model = round_model(loads_game(random_text(CELLS_AND_OVERLAYS), "rw.toml"))
    assert model.params.wilds.random.cum.shape[0] == 4
