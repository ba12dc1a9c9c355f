"""Hand-worked examples of every pay rule of the reference evaluator (workbench/reference.py).

Every test writes its screen out and computes the expected pay by hand in a
comment; the evaluator must agree exactly (Fractions and ints).  Games are
small TOML files loaded with workbench.io.load_game.
"""

from collections import Counter
from fractions import Fraction as F

import pytest

from workbench import reference
from workbench.io import load_game
from workbench.reference import Win


def _load(tmp_path, text):
    path = tmp_path / "game.toml"
    path.write_text(text)
    return load_game(path)


def _spin(game, *reels):
    """spin_result of the screen whose reels show ``reels`` (each "SYM SYM ..." top first).

    Every reel's strip must contain the wanted column as consecutive stops.
    """
    strip_set = game.strip_sets["base"]
    stops = []
    for i, column in enumerate(reels):
        want = column.split()
        strip = strip_set.reels[i].symbols
        n = len(strip)
        stop = next(s for s in range(n) if [strip[(s + r) % n] for r in range(len(want))] == want)
        stops.append(stop)
    heights = tuple(len(c.split()) for c in reels)
    return reference.spin_result(game, strip_set, tuple(stops), None if heights == tuple(game.rows) else heights)


# -- a 3-reel, 1-row, 1-line classic with bars, blanks and multiplier wilds ---------------------------

CLASSIC = """
format_version = 1
name = "classic bars"
game_module = "classic"

[grid]
reels = 3
rows = 1

[pays]
combine = "{combine}"
multiply_wild_only = {wild_only}

[bet]
lines = 1
cost = 1
line_bet = 1

[symbols]
W2 = {{ kind = "wild", multiplier = 2 }}
W3 = {{ kind = "wild", multiplier = 3 }}
WP = {{ kind = "wild" }}
BW = {{ kind = "wild", substitutes = ["BAR3"] }}
SEVEN = {{}}
BAR1 = {{}}
BAR2 = {{}}
BAR3 = {{}}
BLANK = {{ kind = "blank" }}

[groups]
ANY_BAR = ["BAR1", "BAR2", "BAR3"]

[paytable]
W2 = {{ 3 = 1000 }}
SEVEN = {{ 3 = {seven} }}
BAR3 = {{ 3 = 40 }}
BAR2 = {{ 3 = 20 }}
BAR1 = {{ 3 = {bar1} }}
ANY_BAR = {{ 3 = {any_bar} }}

[paylines]
lines = [[0, 0, 0]]

[strip_sets.base]
mode = "base"
reel1 = "W2 W3 WP BW SEVEN BAR1 BAR2 BAR3 BLANK"
reel2 = "W2 W3 WP BW SEVEN BAR1 BAR2 BAR3 BLANK"
reel3 = "W2 W3 WP BW SEVEN BAR1 BAR2 BAR3 BLANK"
"""


@pytest.fixture
def classic(tmp_path):
    def make(combine="product", wild_only=False, seven=150, bar1=10, any_bar=5):
        return _load(tmp_path, CLASSIC.format(combine=combine, wild_only=str(wild_only).lower(), seven=seven,
                                              bar1=bar1, any_bar=any_bar))
    return make


def test_bar_with_two_x2_wilds_pays_the_pure_bar(classic):
    # W2 W2 BAR2: BAR2 run 3 -> 20 x (2*2) = 80; ANY_BAR run 3 -> 5 x 4 = 20; SEVEN run 2, W2 run 2: nothing.
    r = _spin(classic(), "W2", "W2", "BAR2")
    assert r["line_wins"] == [(Win("BAR2", 3, 4, F(20), "", 0),)]
    assert r["lines"] == [("BAR2", 3, F(80))]
    assert r["win"] == F(80) and r["rule_win"] == F(80)


def test_mixed_bars_pay_the_group(classic):
    # BAR1 BAR2 BAR3: no pure run of 3; ANY_BAR run 3 -> 5 x 1 = 5.
    r = _spin(classic(), "BAR1", "BAR2", "BAR3")
    assert r["records"] == [Win("ANY_BAR", 3, 1, F(5), "", 0)]
    assert r["win"] == F(5)


def test_group_with_a_wild_is_multiplied(classic):
    # W3 BAR1 BAR3: BAR1 run 2, BAR3 run 1; ANY_BAR run 3 -> 5 x 3 = 15.
    r = _spin(classic(), "W3", "BAR1", "BAR3")
    assert r["records"] == [Win("ANY_BAR", 3, 3, F(5), "", 0)]
    assert r["win"] == F(15)


def test_wild_substituting_one_member_matches_the_group(classic):
    # BW substitutes BAR3 only.  BAR1 BW BAR2: BAR1 run 1 (BW does not stand for BAR1);
    # ANY_BAR run 3 (BW stands for the member BAR3) -> 5 x 1 = 5.
    assert _spin(classic(), "BAR1", "BW", "BAR2")["records"] == [Win("ANY_BAR", 3, 1, F(5), "", 0)]
    # BW SEVEN SEVEN: SEVEN run 1 -> nothing.
    assert _spin(classic(), "BW", "SEVEN", "SEVEN")["win"] == 0


def test_blank_breaks_the_line(classic):
    # BAR1 BLANK BAR1: every run stops at the blank -> nothing.
    r = _spin(classic(), "BAR1", "BLANK", "BAR1")
    assert r["lines"] == [None] and r["line_wins"] == [()] and r["win"] == 0


def test_symbol_beats_group_on_equal_pay(classic):
    # BAR1 pays 10 and ANY_BAR pays 10: BAR1 BAR1 BAR1 is 10 either way, same count -> the pure symbol.
    r = _spin(classic(bar1=10, any_bar=10), "BAR1", "BAR1", "BAR1")
    assert r["records"] == [Win("BAR1", 3, 1, F(10), "", 0)]


def test_seven_beats_wild_when_its_multiplied_pay_is_higher(classic):
    # product, multiply_wild_only false.  W2 W2 W2: W2's own 3 -> 1000 x 1 = 1000;
    # SEVEN run 3 -> 150 x (2*2*2) = 1200 -> SEVEN.
    r = _spin(classic(), "W2", "W2", "W2")
    assert r["records"] == [Win("SEVEN", 3, 8, F(150), "", 0)]
    assert r["win"] == F(1200)
    # SEVEN at 100: 100 x 8 = 800 < 1000 -> the wild's own pay, not multiplied.
    r = _spin(classic(seven=100), "W2", "W2", "W2")
    assert r["records"] == [Win("W2", 3, 1, F(1000), "", 0)]
    assert r["win"] == F(1000)


def test_multiply_wild_only_true_multiplies_the_wild_win(classic):
    # multiply_wild_only: W2 W2 W2 -> W2 3: 1000 x 8 = 8000 > SEVEN 150 x 8 = 1200.
    r = _spin(classic(wild_only=True), "W2", "W2", "W2")
    assert r["records"] == [Win("W2", 3, 8, F(1000), "", 0)]
    assert r["win"] == F(8000)


def test_sum_combine_adds_the_wild_multipliers(classic):
    # sum: W2 W2 W2 -> SEVEN 150 x (2+2+2) = 900 < W2's own 1000 (x1) -> 1000.
    r = _spin(classic(combine="sum"), "W2", "W2", "W2")
    assert r["records"] == [Win("W2", 3, 1, F(1000), "", 0)]
    # sum + multiply_wild_only: W2 3 -> 1000 x 6 = 6000.
    r = _spin(classic(combine="sum", wild_only=True), "W2", "W2", "W2")
    assert r["records"] == [Win("W2", 3, 6, F(1000), "", 0)]
    assert r["win"] == F(6000)


def test_sum_versus_product_with_two_different_wilds(classic):
    # W2 W3 SEVEN: SEVEN run 3.  product: 150 x (2*3) = 900; sum: 150 x (2+3) = 750.
    assert _spin(classic(), "W2", "W3", "SEVEN")["records"] == [Win("SEVEN", 3, 6, F(150), "", 0)]
    assert _spin(classic(), "W2", "W3", "SEVEN")["win"] == F(900)
    assert _spin(classic(combine="sum"), "W2", "W3", "SEVEN")["records"] == [Win("SEVEN", 3, 5, F(150), "", 0)]
    assert _spin(classic(combine="sum"), "W2", "W3", "SEVEN")["win"] == F(750)


def test_sum_ignores_plain_wilds_and_a_win_without_multiplier_wilds_is_x1(classic):
    # sum: WP W3 SEVEN -> multiplier wilds: W3 only -> 150 x 3 = 450 (product: 1*3 = 3 too).
    assert _spin(classic(combine="sum"), "WP", "W3", "SEVEN")["win"] == F(450)
    # sum: WP WP SEVEN -> no multiplier wild -> x1 -> 150.
    assert _spin(classic(combine="sum"), "WP", "WP", "SEVEN")["records"] == [Win("SEVEN", 3, 1, F(150), "", 0)]


def test_lines_cycle_keys_carry_the_multiplier(tmp_path):
    # reel1 "W2 BAR1", reel2 "BAR2", reel3 "BAR3 SEVEN": 2 x 1 x 2 = 4 screens.
    #   W2 BAR2 BAR3   -> ANY_BAR 3 x2 = 10      BAR1 BAR2 BAR3  -> ANY_BAR 3 x1 = 5
    #   W2 BAR2 SEVEN  -> nothing                BAR1 BAR2 SEVEN -> nothing
    text = CLASSIC.format(combine="product", wild_only="false", seven=150, bar1=10, any_bar=5)
    text = text.split("[strip_sets.base]")[0] + '[strip_sets.base]\nmode = "base"\nreel1 = "W2 BAR1"\nreel2 = "BAR2"\nreel3 = "BAR3 SEVEN"\n'
    game = _load(tmp_path, text)
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["cycle"] == 4
    assert ref["combinations"] == Counter({("ANY_BAR", 3, 2): 1, ("ANY_BAR", 3, 1): 1})
    assert ref["combination_units"] == Counter({("ANY_BAR", 3, 2): F(10), ("ANY_BAR", 3, 1): F(5)})
    assert ref["line_combinations"] == [Counter({("ANY_BAR", 3): 2})]
    assert ref["wins"] == Counter({F(0): 2, F(10): 1, F(5): 1})


# -- 5 reels, 1 row, 1 line: directions ---------------------------------------------------------------

DIRECTIONS = """
format_version = 1
name = "directions"
game_module = "classic"

[grid]
reels = 5
rows = 1

[pays]
direction = "{direction}"

[bet]
lines = 1
cost = 1
line_bet = 1

[symbols]
W2 = {{ kind = "wild", multiplier = 2 }}
A = {{}}
B = {{}}
C = {{}}
X = {{ kind = "blank" }}

[paytable]
A = {{ 3 = 10, 4 = 20, 5 = 100 }}
B = {{ 3 = 5, 4 = 15, 5 = 50 }}
C = {{ 2 = 2, 3 = 4 }}

[paylines]
lines = [[0, 0, 0, 0, 0]]

[strip_sets.base]
mode = "base"
{strips}
"""

ALL = "W2 A B C X"


def _directions(tmp_path, direction, strips=None):
    strips = strips or [ALL] * 5
    text = DIRECTIONS.format(direction=direction, strips="\n".join(f'reel{i + 1} = "{s}"' for i, s in enumerate(strips)))
    return _load(tmp_path, text)


def test_right_to_left_reads_from_the_last_reel(tmp_path):
    # X X A W2 A: from the right A W2 A X -> A run 3 -> 10 x 2 = 20.
    r = _spin(_directions(tmp_path, "right_to_left"), "X", "X", "A", "W2", "A")
    assert r["records"] == [Win("A", 3, 2, F(10), "right", 0)]
    assert r["win"] == F(20)
    # left_to_right: X first -> nothing.
    assert _spin(_directions(tmp_path, "left_to_right"), "X", "X", "A", "W2", "A")["win"] == 0
    # right_to_left: A A A X X -> from the right X first -> nothing.
    assert _spin(_directions(tmp_path, "right_to_left"), "A", "A", "A", "X", "X")["win"] == 0


def test_both_ways_five_of_a_kind_pays_once(tmp_path):
    # A W2 A A A: A 5 from the left (100 x 2 = 200) and from the right, the same full-length win -> once: 200.
    r = _spin(_directions(tmp_path, "both_ways"), "A", "W2", "A", "A", "A")
    assert r["records"] == [Win("A", 5, 2, F(100), "left", 0)]
    assert r["win"] == F(200)


def test_both_ways_pays_two_different_combinations(tmp_path):
    # A A A C C: left A 3 = 10, right C 2 = 2 -> 12.
    r = _spin(_directions(tmp_path, "both_ways"), "A", "A", "A", "C", "C")
    assert r["line_wins"] == [(Win("A", 3, 1, F(10), "left", 0), Win("C", 2, 1, F(2), "right", 0))]
    assert r["lines"] == [("A", 3, F(12))]
    assert r["win"] == F(12)


def test_both_ways_pays_the_same_short_combination_twice(tmp_path):
    # C C X C C: left C 2 = 2, right C 2 = 2 (not full length) -> 4.
    r = _spin(_directions(tmp_path, "both_ways"), "C", "C", "X", "C", "C")
    assert r["records"] == [Win("C", 2, 1, F(2), "left", 0), Win("C", 2, 1, F(2), "right", 0)]
    assert r["win"] == F(4)


def test_both_ways_cycle_records_each_side(tmp_path):
    # reels "A", "A", "A", "A", "A C" -> 2 screens:
    #   A A A A A: full length, once -> ("A", 5, 1, "left"), 100
    #   A A A A C: left A 4 = 20; right C 1 -> nothing -> ("A", 4, 1, "left"), 20
    # reels "C", "C", "X", "C", "C": left C 2 and right C 2 -> both sides recorded.
    game = _directions(tmp_path, "both_ways", ["A", "A", "A", "A", "A C"])
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["cycle"] == 2
    assert ref["combinations"] == Counter({("A", 5, 1, "left"): 1, ("A", 4, 1, "left"): 1})
    assert ref["combination_units"] == Counter({("A", 5, 1, "left"): F(100), ("A", 4, 1, "left"): F(20)})
    assert ref["line_combinations"] == [Counter({("A", 5, "left"): 1, ("A", 4, "left"): 1})]
    assert ref["wins"] == Counter({F(100): 1, F(20): 1})
    game = _directions(tmp_path, "both_ways", ["C", "C", "X", "C", "C"])
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["combinations"] == Counter({("C", 2, 1, "left"): 1, ("C", 2, 1, "right"): 1})
    assert ref["wins"] == Counter({F(4): 1})


# -- ways ----------------------------------------------------------------------------------------------

WAYS = """
format_version = 1
name = "ways"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}
{heights}

[pays]
rule = "ways"
combine = "{combine}"
multiply_wild_only = {wild_only}

[bet]
cost = 25
line_bet = 1

[symbols]
W = {{ kind = "wild" }}
W2 = {{ kind = "wild", multiplier = 2 }}
W3 = {{ kind = "wild", multiplier = 3 }}
A = {{}}
K = {{}}
Q = {{}}
J = {{}}
S = {{ kind = "scatter" }}

[paytable]
{paytable}
{extra_pays}

{scatters}

[strip_sets.base]
mode = "base"
{strips}
"""


# the ways paytable (x line bet); counts above the game's reels are left out
WAYS_PAYS = {"W": {3: 50}, "W2": {3: 60}, "A": {3: 2, 4: 5, 5: 10}, "K": {3: 3, 4: 6, 5: 8}, "Q": {3: 1}}


def _ways_text(columns, combine="product", wild_only=False, rows=3, heights="", scatters="", extra_pays=""):
    strips = "\n".join(f'reel{i + 1} = "{c}"' for i, c in enumerate(columns))
    paytable = "\n".join(f"{x} = {{ {', '.join(f'{k} = {p}' for k, p in pays.items() if k <= len(columns))} }}"
                          for x, pays in WAYS_PAYS.items())
    return WAYS.format(reels=len(columns), rows=rows, heights=heights, combine=combine, wild_only=str(wild_only).lower(),
                       strips=strips, scatters=scatters, extra_pays=extra_pays, paytable=paytable)


def _ways(tmp_path, columns, **options):
    return _load(tmp_path, _ways_text(columns, **options))


def test_243_ways_with_two_wilds_on_reel_2(tmp_path):
    # reel:  1  2  3  4  5
    #        A  W  A  Q  K
    #        K  W  K  A  Q
    #        Q  K  A  K  J
    # A: reels 1-4 match (1, 2, 2, 1 cells), reel 5 none -> A 4 x (1*2*2*1 = 4 ways) = 5 x 4 = 20
    # K: reels 1-5 match (1, 3, 1, 1, 1) -> K 5 x 3 ways = 8 x 3 = 24
    # Q: reels 1, 2 (W W) then none on reel 3 -> run 2, nothing.  W: reel 1 shows none -> nothing.
    columns = ["A K Q", "W W K", "A K A", "Q A K", "K Q J"]
    game = _ways(tmp_path, columns)
    r = _spin(game, *columns)
    assert r["ways"] == 243
    assert r["target_wins"] == [Win("A", 4, 4, F(5)), Win("K", 5, 3, F(8))]
    assert reference.ways_count(game, reference.screen(game, game.strip_sets["base"], (0,) * 5), "A") == (4, 4, 4, 4)
    assert r["win"] == F(44)  # 20 + 24, x line bet 1


def test_ways_with_multiplier_wilds_product_and_sum(tmp_path):
    # reel:  1  2   3   4
    #        A  W2  W3  J
    #        Q  A   A   Q
    #        J  K   K   J
    # A: reels 1-3 (cells {A}, {W2, A}, {W3, A}), reel 4 none -> A 3, 1*2*2 = 4 ways:
    #   A-W2-W3, A-W2-A, A-A-W3, A-A-A: product 6+2+3+1 = 12 (= 1 * (2+1) * (3+1)),
    #                                   sum     5+2+3+1 = 11 -> pays 2 x 12 = 24 / 2 x 11 = 22.
    # K: reel 1 shows no K (nor a wild) -> nothing.  Q: reels 1, 2 (W2), 3 (W3), 4 -> run 4, Q has only 3 = 1:
    #   ways {Q} x {W2} x {W3} = 1 way, product 6 / sum 5 -> 1 x 6 = 6 / 1 x 5 = 5.
    columns = ["A Q J", "W2 A K", "W3 A K", "J Q J"]
    game = _ways(tmp_path, columns)
    r = _spin(game, *columns)
    assert r["target_wins"] == [Win("A", 3, 12, F(2)), Win("Q", 3, 6, F(1))]
    assert r["win"] == F(30)
    game = _ways(tmp_path, columns, combine="sum")
    r = _spin(game, *columns)
    assert r["target_wins"] == [Win("A", 3, 11, F(2)), Win("Q", 3, 5, F(1))]
    assert r["win"] == F(27)


def test_ways_wild_target_matches_only_itself(tmp_path):
    # reel:  1  2   3   4
    #        W  W   W   J
    #        A  W2  K   Q
    #        Q  A   Q   J
    # W: one W on reels 1-3 (W2 is another wild) -> W 3, 1 way, 50 x 1 = 50.
    # W2: reel 1 shows no W2 -> nothing.
    # A: {W, A} x {W, W2, A} x {W} -> 2*3*1 = 6 ways, product: (1+1) * (1+2+1) * 1 = 8 -> 2 x 8 = 16.
    # K: reel 1 {W} x {W, W2} x {W, K} -> 1*2*2 = 4 ways, product 1 * 3 * 2 = 6 -> 3 x 6 = 18.
    # Q: {W, Q} x {W, W2} x {W, Q} -> 2*2*2 = 8 ways, product 2 * 3 * 2 = 12, reel 4 Q -> run 4 but Q lists 3 only
    #   -> ways through reels 1..3 only: 1 x 12 = 12.
    columns = ["W A Q", "W W2 A", "W K Q", "J Q J"]
    game = _ways(tmp_path, columns)
    shown = reference.screen(game, game.strip_sets["base"], (0, 0, 0, 0))
    assert reference.ways_count(game, shown, "A") == (3, 3, 6, 8)
    assert reference.ways_count(game, shown, "Q") == (4, 3, 8, 12)
    r = _spin(game, *columns)
    assert r["target_wins"] == [Win("W", 3, 1, F(50)), Win("A", 3, 8, F(2)), Win("K", 3, 6, F(3)),
                                Win("Q", 3, 12, F(1))]
    assert r["win"] == F(50 + 16 + 18 + 12)


def test_ways_multiply_wild_only(tmp_path):
    # reel:  1   2   3
    #        W2  W2  W2
    #        J   J   J
    #        J   J   J
    # W2 3: one way, multipliers 2*2*2 = 8.  multiply_wild_only false: 60 x 1 = 60; true: 60 x 8 = 480.
    # A, K, Q: the W2 way -> each target 3 of a kind, x8 either way: A 2 x 8 = 16, K 3 x 8 = 24, Q 1 x 8 = 8.
    columns = ["W2 J J", "W2 J J", "W2 J J"]
    r = _spin(_ways(tmp_path, columns), *columns)
    assert r["target_wins"] == [Win("W2", 3, 1, F(60)), Win("A", 3, 8, F(2)), Win("K", 3, 8, F(3)), Win("Q", 3, 8, F(1))]
    assert r["win"] == F(60 + 16 + 24 + 8)
    r = _spin(_ways(tmp_path, columns, wild_only=True), *columns)
    assert r["target_wins"][0] == Win("W2", 3, 8, F(60))
    assert r["win"] == F(480 + 16 + 24 + 8)


def test_ways_pays_a_group_and_its_members_independently(tmp_path):
    # [groups] ROYAL = [K, Q], pays 3 = 1.
    # reel:  1  2  3
    #        K  Q  K
    #        J  J  Q
    #        J  J  J
    # ROYAL: cells 1, 1, 2 -> 2 ways -> 1 x 2 = 2.  K: reel 2 none -> nothing.  Q: reel 1 none -> nothing.
    columns = ["K J J", "Q J J", "K Q J"]
    text = _ways_text(columns, extra_pays="ROYAL = { 3 = 1 }")
    text = text.replace("[paytable]", '[groups]\nROYAL = ["K", "Q"]\n\n[paytable]')
    game = _load(tmp_path, text)
    assert _spin(game, *columns)["target_wins"] == [Win("ROYAL", 3, 2, F(1))]


HEIGHTS = "heights = {{ reel1 = {h}, reel2 = {h}, reel3 = {h} }}"


def test_variable_heights_cycle_by_hand(tmp_path):
    # 3 reels of 1 or 2 rows, heights { 1 = 1, 2 = 1 } on each; A 3 pays 2 x line bet, J pays nothing.
    # reel1 "A J", reel2 "A J": outcomes (rows, stop) -> shown: (1,0) A | (1,1) J | (2,0) A J | (2,1) J A
    #   -> 4 outcomes, 3 show one A.
    # reel3 "A A J": (1,0) A | (1,1) A | (1,2) J | (2,0) A A | (2,1) A J | (2,2) J A
    #   -> 6 outcomes, 5 show A (A cells 1, 1, 2, 1, 1 = 6).
    # cycle = (2 heights x 2 stops)^2 x (2 x 3) = 96.
    # A 3 pays on 3 x 3 x 5 = 45 screens; ways summed = 3 x 3 x 6 = 54 -> units 54 x 2 = 108 credits.
    # wins: 2-way screens (reel3 shows A A): 3 x 3 x 1 = 9 pay 4; 36 pay 2; 96 - 45 = 51 pay 0.
    game = _ways(tmp_path, ["A J", "A J", "A A J"], rows=2, heights=HEIGHTS.format(h="{ 1 = 1, 2 = 1 }"))
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["cycle"] == 96
    assert ref["combinations"] == Counter({("A", 3, 1): 45})
    assert ref["combination_units"] == Counter({("A", 3, 1): F(108)})
    assert ref["wins"] == Counter({F(0): 51, F(2): 36, F(4): 9})
    # one spin: heights (2, 1, 2), stops (1, 1, 0) shows  J A | J | A A  (2 x 1 x 2 = 4 ways):
    # A: reel 2 shows only J -> run 1, nothing; J has no pay.
    r = reference.spin_result(game, game.strip_sets["base"], (1, 1, 0), (2, 1, 2))
    assert reference.screen(game, game.strip_sets["base"], (1, 1, 0), (2, 1, 2)) == [["J", "A"], ["J"], ["A", "A"]]
    assert r["ways"] == 4 and r["heights"] == (2, 1, 2)
    assert r["target_wins"] == [] and r["win"] == 0


def test_variable_heights_weights_multiply(tmp_path):
    # heights { 1 = 1, 2 = 2 }: each (rows, stop) weighs height weight x stop weight.
    # reel1 "A J", reel2 "A J": weights (1,0) 1, (1,1) 1, (2,0) 2, (2,1) 2 -> 6; A shown with weight 1 + 2 + 2 = 5,
    #   A cells weighted 5 too (one A whenever A shows).
    # reel3 "A:2 A J" (stop weights 2, 1, 1):
    #   (1,0) A    1 x 2 = 2 | (1,1) A   1 x 1 = 1 | (1,2) J   1 x 1 = 1
    #   (2,0) A A  2 x 2 = 4 | (2,1) A J 2 x 1 = 2 | (2,2) J A 2 x 1 = 2     -> 3 x 4 = 12
    #   A shown: 2 + 1 + 4 + 2 + 2 = 11; A cells weighted: 2 + 1 + 4*2 + 2 + 2 = 15.
    # cycle 6 x 6 x 12 = 432; A 3 hits 5 x 5 x 11 = 275; units 5 x 5 x 15 = 375 ways x 2 = 750 credits.
    game = _ways(tmp_path, ["A J", "A J", "A:2 A J"], rows=2, heights=HEIGHTS.format(h="{ 1 = 1, 2 = 2 }"))
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["cycle"] == 432
    assert ref["combinations"] == Counter({("A", 3, 1): 275})
    assert ref["combination_units"] == Counter({("A", 3, 1): F(750)})
    assert sum(ref["wins"].values()) == 432
    assert reference.reel_outcomes(game, game.strip_sets["base"], 2) == [(1, 0, 2), (1, 1, 1), (1, 2, 1),
                                                                          (2, 0, 4), (2, 1, 2), (2, 2, 2)]


def test_scatter_group_counts_only_the_rows_a_reel_shows(tmp_path):
    # [scatters.S] pays 2 = 1 x total bet (25 credits); heights { 1 = 1, 2 = 1 }.
    # reels "S K", "K S", "J Q": S on reel 1 at stop 0, reel 2 at stop 1.
    # heights (1, 1, 1), stops (0, 0, 0): S | K | J -> 1 S, nothing.
    # heights (1, 2, 1), stops (0, 0, 0): S | K S | J -> 2 S -> 25 credits.
    scat = '[scatters.S]\nsymbols = ["S"]\npays = { 2 = 1 }'
    game = _ways(tmp_path, ["S K", "K S", "J Q"], rows=2, heights=HEIGHTS.format(h="{ 1 = 1, 2 = 1 }"), scatters=scat)
    base = game.strip_sets["base"]
    assert reference.spin_result(game, base, (0, 0, 0), (1, 1, 1))["scatters"] == {"S": 1}
    r = reference.spin_result(game, base, (0, 0, 0), (1, 2, 1))
    assert r["scatters"] == {"S": 2} and r["win"] == F(25) and r["rule_win"] == 0
    # over the cycle: reel1 shows S in (1,0), (2,0), (2,1): 3 of 4; reel2 in (1,1), (2,0), (2,1): 3 of 4;
    # 2 S on 3 x 3 x 4 (reel 3: 2 heights x 2 stops) = 36 of 64 screens.
    ref = reference.enumerate_cycle(game, base)
    assert ref["cycle"] == 64
    assert ref["scatters"]["S"] == Counter({2: 36, 1: 3 * 1 * 4 + 1 * 3 * 4, 0: 1 * 1 * 4})


# -- scatter_pays --------------------------------------------------------------------------------------

SCATTER_PAYS = """
format_version = 1
name = "scatter pays"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}

[pays]
rule = "scatter_pays"

[bet]
cost = 20
line_bet = 1
line_pay_unit = "total_bet"

[symbols]
X = {{}}
Y = {{}}
Z = {{}}

[paytable]
X = {{ {x_pays} }}
Y = {{ 3 = 2 }}

[strip_sets.base]
mode = "base"
{strips}
"""


def _scatter_pays(tmp_path, columns, rows=3, x_pays="8 = 10, 10 = 25, 12 = 50"):
    strips = "\n".join(f'reel{i + 1} = "{c}"' for i, c in enumerate(columns))
    return _load(tmp_path, SCATTER_PAYS.format(reels=len(columns), rows=rows, strips=strips, x_pays=x_pays))


def test_scatter_pays_seven_pays_nothing(tmp_path):
    # 5x3:  X X X Z Z / X X Z Z Z / X X Z Z Z  ->  X shown 3 + 2 + 2 = 7 < 8 -> nothing; Y 0.
    columns = ["X X X", "X X Z", "X X Z", "Z Z Z", "Z Z Z"]
    r = _spin(_scatter_pays(tmp_path, columns), *columns)
    assert r["symbol_counts"] == {"X": 7, "Y": 0}
    assert r["target_wins"] == [] and r["win"] == 0


def test_scatter_pays_nine_pays_the_eight_band(tmp_path):
    # X shown 3 + 3 + 2 + 1 = 9 -> band 8 -> 10 x total bet = 200 credits; Y: 3 -> 2 x total bet = 40 credits.
    columns = ["X X X", "X X X", "X X Z", "X Y Z", "Y Y Z"]
    r = _spin(_scatter_pays(tmp_path, columns), *columns)
    assert r["symbol_counts"] == {"X": 9, "Y": 3}
    assert r["target_wins"] == [Win("X", 8, 1, F(10)), Win("Y", 3, 1, F(2))]
    assert r["win"] == F(240)


def test_scatter_pays_above_the_top_band_pays_the_top(tmp_path):
    # X on all 15 cells -> band 12 -> 50 x 20 credits = 1000.
    columns = ["X X X"] * 5
    r = _spin(_scatter_pays(tmp_path, columns), *columns)
    assert r["target_wins"] == [Win("X", 12, 1, F(50))] and r["win"] == F(1000)


def test_scatter_pays_cycle(tmp_path):
    # 3 reels x 1 row, strips "X Y" each, X pays { 2 = 1, 3 = 5 } x total bet (20), Y pays 3 = 2.
    # 8 screens: XXX -> 5 (100 credits); 3 with two X -> 1 (20); YYY -> 2 (40); 3 with one X -> 0.
    game = _scatter_pays(tmp_path, ["X Y", "X Y", "X Y"], rows=1, x_pays="2 = 1, 3 = 5")
    ref = reference.enumerate_cycle(game, game.strip_sets["base"])
    assert ref["cycle"] == 8
    assert ref["combinations"] == Counter({("X", 3, 1): 1, ("X", 2, 1): 3, ("Y", 3, 1): 1})
    assert ref["combination_units"] == Counter({("X", 3, 1): F(100), ("X", 2, 1): F(60), ("Y", 3, 1): F(40)})
    assert ref["wins"] == Counter({F(100): 1, F(20): 3, F(40): 1, F(0): 3})
    assert ref["line_combinations"] == []
