"""Random wilds dropped on every base spin ([features] base_random_wilds): one outcome of a table per base spin (none,
wilds on random cells, square overlays), after the landed screen is paid and its scatters counted; what the lines pay
more (or less) on the final screen is component base_random_wilds.

Checked three ways: the exact mean of the gain (workbench.exact.wilds.random_wilds_gain, line pays mixed over the
drop's wild masks) against every stop combination and every placement of a small game, paid by the slow reference's
line evaluation; the compiled round against that exact mean and against the slow reference's base spin
(workbench.reference.base_spin_with_random_wilds), also on random tables (hypothesis); the trigger, counted before the
drop, against its exact probability; the whole game end to end against plain simulation; bad files name the file,
the line and the key.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from test_rounds_free_spins import lines_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.exact.wilds import random_wilds_gain
from workbench.io import loads_game
from workbench.pays.scale import pay_scale
from workbench.rounds.random_wilds import base_random_wilds_summary
from workbench.simulate import estimate_rtp, round_model, simulate

DROPS = ('{ wilds = "none", weight = 4 }, { wilds = "cells", count = 2, weight = 3 }, '
         '{ wilds = "overlay", sizes = [2], weight = 2 }, { wilds = "overlay", sizes = [2, 2], weight = 1 }')


def drop_text(entries: str = DROPS, features: str = 'wild_symbol = "WILD"\n') -> str:
    """The 3x3, 5-line free-spins test game whose base spins drop random wilds by ``[tables.bw] entries = [entries]``."""
    feats = 'free_spins = { 2 = 3 }\nbase_random_wilds = "bw"\n' + features
    return lines_text(feats) + f"\n[tables.bw]\nentries = [{entries}]\n"


def exact_gain(game) -> float:
    """The exact mean gain per base spin, x total bet."""
    f = game.features
    return random_wilds_gain(game, game.tables[f["base_random_wilds"]], f["wild_symbol"]) / pay_scale(game).cost_units


def trigger_probability() -> float:
    """The exact probability of 2+ SCAT on a base spin (the plain game's trigger strata)."""
    plain = loads_game(lines_text("free_spins = { 2 = 3 }"), "plain.toml")
    return float(sum(s.probability for s in round_model(plain).strata))


def _placements(entry: dict) -> list[list[tuple[int, int]]]:
    """Every equally likely set of cells one outcome covers on the 3x3 grid (cells: each set of ``count`` cells;
    overlays: each position of each square, the squares independent)."""
    cells = [(r, row) for r in range(3) for row in range(3)]
    if entry["wilds"] == "cells":
        return [list(c) for c in itertools.combinations(cells, entry["count"])]
    squares = [[[(r, row) for r in range(left, left + s) for row in range(top, top + s)]
                for left in range(4 - s) for top in range(4 - s)] for s in entry["sizes"]]
    return [[cell for square in chosen for cell in square] for chosen in itertools.product(*squares)]


def test_the_exact_gain_equals_every_stop_combination_and_placement():
    """Every one of the 1,100 stop combinations of the base strips, with every placement of every outcome (36 pairs of
    cells, 4 squares, 16 pairs of squares), paid line by line by the slow reference before and after the drop: the
    exact mixture of line pays over wild masks gives the same mean gain, to float rounding."""
    game = loads_game(drop_text(), "bw.toml")
    table = game.tables["bw"]
    strip_set = game.strip_sets["base"]
    total_weight = sum(table.weights)
    gain = Fraction(0)

    def lines_paid(shown) -> Fraction:
        return sum((Fraction(w.paid) for l, rows in enumerate(game.paylines)
                    for w in reference.line_wins(game, [shown[r][row] for r, row in enumerate(rows)], l)), Fraction(0))

    outcomes = [(Fraction(w, total_weight), _placements(e)) for e, w in zip(table.entries, table.weights)
                if e["wilds"] != "none"]
    stops_all = list(itertools.product(*[range(len(strip)) for strip in strip_set.reels]))
    for stops in stops_all:
        landed = [list(reel) for reel in reference.screen(game, strip_set, stops)]
        before = lines_paid(landed)
        for p, placements in outcomes:
            after = Fraction(0)
            for cells in placements:
                shown = [list(reel) for reel in landed]
                for r, row in cells:
                    shown[r][row] = "WILD"
                after += lines_paid(shown)
            gain += p * (after / len(placements) - before)
    brute = gain / len(stops_all) / game.bet.cost  # line bet 1 credit: x total bet
    assert brute > 0.5
    assert exact_gain(game) == pytest.approx(float(brute), rel=1e-12, abs=1e-12)


def test_the_compiled_drop_pays_the_exact_gain_and_keeps_the_landed_screen_exact():
    """1 M rounds: component base_random_wilds averages the exact gain; a wild is dropped on 6 base spins in 10;
    lines and the scatter pay what the exact PAR of the landed screen says; the free spins start as often as the
    trigger's exact probability says (scatters are counted before the drop); the round's bound covers the gain."""
    game = loads_game(drop_text(), "bw.toml")
    plain = loads_game(lines_text("free_spins = { 2 = 3 }"), "plain.toml")
    result = simulate(game, 1_000_000, seed=41)
    gain = result.components["base_random_wilds"]
    assert abs(gain.value - exact_gain(game)) < 4.5 * gain.ci95 / 1.96
    drops = result.counters["base_random_wilds"] / result.spins
    assert abs(drops - 0.6) < 4.5 * math.sqrt(0.6 * 0.4 / result.spins)
    sheet = par(plain, full_cycle=False)
    landed = result.components["lines"].value + result.components["scatter:SCAT"].value
    both = math.hypot(result.components["lines"].ci95, result.components["scatter:SCAT"].ci95) / 1.96
    assert abs(landed - float(sheet.rtp_exact)) < 4.5 * both
    p_trigger = trigger_probability()
    started = result.counters["free_spins"] / result.spins
    assert abs(started - p_trigger) < 4.5 * math.sqrt(p_trigger * (1 - p_trigger) / result.spins)
    model = round_model(game)
    assert model.notes["plan"].startswith("every round simulated end to end: random wilds drop on base spins")
    assert f"exact mean gain {exact_gain(game):.6f} x total bet" in model.notes["base_random_wilds"]


def test_the_slow_reference_base_spin_pays_the_same():
    """20,000 base spins of the slow reference: the landed screen's mean is the exact base RTP, the drop's gain the
    exact gain, the trigger count read on the landed screen (within 4.5 standard errors each)."""
    game = loads_game(drop_text(), "bw.toml")
    rng = random.Random(43)
    spins = [reference.base_spin_with_random_wilds(game, rng) for _ in range(20_000)]
    landed = [float(w / game.bet.cost) for w, _, _ in spins]
    gains = [float(g / game.bet.cost) for _, g, _ in spins]
    sheet = par(loads_game(lines_text("free_spins = { 2 = 3 }"), "plain.toml"), full_cycle=False)
    for values, expect in ((landed, float(sheet.rtp_exact)), (gains, exact_gain(game))):
        se = statistics.stdev(values) / math.sqrt(len(values))
        assert abs(statistics.fmean(values) - expect) < 4.5 * se, (statistics.fmean(values), expect)
    triggered = sum(c >= 2 for _, _, c in spins) / len(spins)
    p_trigger = trigger_probability()
    assert abs(triggered - p_trigger) < 4.5 * math.sqrt(p_trigger * (1 - p_trigger) / len(spins))


OUTCOME = st.one_of(
    st.builds(lambda n, w: f'{{ wilds = "cells", count = {n}, weight = {w} }}', st.integers(1, 9), st.integers(1, 9)),
    st.builds(lambda sizes, w: f'{{ wilds = "overlay", sizes = {sizes}, weight = {w} }}',
              st.lists(st.integers(1, 3), min_size=1, max_size=3), st.integers(1, 9)),
)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(outcomes=st.lists(OUTCOME, min_size=1, max_size=3), none=st.integers(0, 20))
def test_random_tables_compiled_against_exact_and_reference(outcomes, none):
    """Random tables of drops: the compiled gain (400,000 rounds) and the slow reference's (3,000 spins) both agree
    with the exact gain within 4.5 standard errors."""
    entries = ", ".join(outcomes + [f'{{ wilds = "none", weight = {none} }}'])
    game = loads_game(drop_text(entries), "random_bw.toml")
    expect = exact_gain(game)
    gain = simulate(game, 400_000, seed=47).components["base_random_wilds"]
    assert abs(gain.value - expect) < 4.5 * gain.ci95 / 1.96 + 1e-9
    rng = random.Random(48)
    gains = [float(reference.base_spin_with_random_wilds(game, rng)[1] / game.bet.cost) for _ in range(3_000)]
    se = statistics.stdev(gains) / math.sqrt(len(gains))
    assert abs(statistics.fmean(gains) - expect) < 4.5 * se + 1e-9


def test_the_estimate_plays_every_round_end_to_end_with_the_exact_gain_as_a_control_variate():
    """estimate_rtp of a game with base random wilds simulates every round end to end (the count strata do not play
    the triggerless spins' drops), with the gain's exact mean standing in for the drops the rounds drew: component
    base_random_wilds is that mean (labelled so, no interval but float rounding), the RTP's interval is narrower than without the
    control variate on the same rounds, and the RTP agrees with plain simulation within their combined intervals."""
    from dataclasses import replace

    from workbench.simulate.chunks import play_chunk
    from workbench.simulate.rng import chunk_state

    game = loads_game(drop_text(), "bw.toml")
    est = estimate_rtp(game, precision=0.01, seed=51)
    sim = simulate(game, 1_000_000, seed=52)
    assert [s.name for s in est.strata] == ["whole round (end to end)"]
    gain = est.components["base_random_wilds"]
    assert gain.source == "exact mean" and gain.ci95 < 1e-6  # (float rounding of a constant's spread)
    assert gain.value == pytest.approx(exact_gain(game), rel=1e-9)
    assert abs(est.rtp - sim.rtp) < math.hypot(est.rtp_ci95, sim.rtp_ci95) * 4.5 / 1.96
    model = round_model(game)
    spreads = []
    for m in (model, replace(model, exact_means={})):  # the same 200,000 rounds, with and without the control variate
        res = play_chunk(m, chunk_state(53, 0), 200_000, stratum=0)
        spreads.append(res.extra[1] / res.rounds - (res.extra[0] / res.rounds) ** 2)
    assert spreads[0] < 0.9 * spreads[1], spreads


BAD = [
    (DROPS, "", "features.base_random_wilds", "needs wild_symbol"),
    ('{ wilds = "sticky_reels", count = 1, weight = 1 }, { wilds = "cells", count = 1, weight = 1 }',
     'wild_symbol = "WILD"\n', "tables.bw.entries[0].wilds", "base_random_wilds takes none, cells and overlay"),
    ('{ wilds = "none", weight = 1 }, { wilds = "cells", count = 2, weight = 0 }', 'wild_symbol = "WILD"\n',
     "tables.bw.entries", "no outcome with weight drops a wild"),
    ('{ wilds = "cells", count = 10, weight = 1 }', 'wild_symbol = "WILD"\n', "tables.bw.entries[0].count", "1..9"),
    ('{ wilds = "overlay", sizes = [4], weight = 1 }', 'wild_symbol = "WILD"\n', "tables.bw.entries[0].sizes",
     "fitting the grid"),
    (DROPS, 'wild_symbol = "A"\n', "features.wild_symbol", "must be a wild one row tall"),
]


@pytest.mark.parametrize("entries, features, key, message", BAD)
def test_bad_base_random_wilds_name_file_line_and_key(entries, features, key, message):
    with pytest.raises(ReelsetError) as info:
        loads_game(drop_text(entries, features), "bad_bw.toml")
    problems = info.value.problems
    assert any(p.key == key and message in p.message and p.line and p.file == "bad_bw.toml" for p in problems), problems


def test_a_wild_drawing_its_multiplier_in_the_base_game_is_refused():
    text = drop_text().replace('WILD = { kind = "wild", substitutes = "all" }',
                               'WILD = { kind = "wild", substitutes = "all", multiplier = "wm" }')
    text += "\n[tables.wm]\nentries = [{ multiplier = 1, weight = 1 }, { multiplier = 3, weight = 1 }]\n"
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bad_bw.toml")
    assert any(p.key == "symbols.WILD.multiplier" and "draws its multiplier per cell in the base game" in p.message
               for p in info.value.problems), info.value.problems


def test_the_overview_and_the_words_state_the_drop_and_its_exact_gain():
    from workbench.report.game_tables import game_overview

    game = loads_game(drop_text(), "bw.toml")
    words = base_random_wilds_summary(game)
    assert words.startswith("on every base spin, WILD dropped by table bw: none 40.00 %, 2 wilds on random cells 30.00 %, "
                            "overlays 2x2 20.00 %, overlays 2x2 + 2x2 10.00 %")
    assert f"exact mean gain {exact_gain(game):.6f} x total bet" in words
    assert game_overview(game).loc["base random wilds", "value"] == words


def test_the_table_editor_labels_an_overlay_entry_as_the_file_writes_it():
    """An overlay's sizes read [2, 3] in the editor's entry column, not Python's (2, 3)."""
    from workbench.widgets.table_editor import _entry_label

    game = loads_game(drop_text(), "bw.toml")
    labels = [_entry_label(e) for e in game.tables["bw"].entries]
    assert labels == ["wilds = none", "wilds = cells, count = 2", "wilds = overlay, sizes = [2]",
                      "wilds = overlay, sizes = [2, 2]"]
