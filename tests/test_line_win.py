"""[pays] line_win: a line's win chosen after its multipliers (the default) or before them.

The random-game property tests compare both choices three ways: the line automaton against a brute-force evaluator
(tests/test_pays_lines_rules.py), and exact = workbench.reference's full cycle ~ the compiled simulation with wilds
whose multiplier is fixed or drawn per landing (tests/test_multiplier_tables.py).  Here: the rule on one line, the
gallery game (simulated against exact, tuned, edited and reported with every gallery game: test_gallery.py,
test_consistency.py, test_tuning.py, test_widgets.py), and the refusals.
"""

import pytest

from test_pays_lines_rules import game_text, load, pay_of
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.pays.lines import build_automaton
from workbench.reference.pays import line_wins
from workbench.report.game_tables import pay_rule_text

GALLERY = "examples/lines_wild_before_multipliers"
DECLARED = 'line_win = "before_multipliers"   # the line pays its highest paytable win, then x its wilds\n'

SYMBOLS = {"WILD": '{ kind = "wild", multiplier = 3 }', "LEMON": "{}", "PLUM": "{}"}
PAYTABLE = {"WILD": {3: 50}, "LEMON": {5: 40}, "PLUM": {3: 5}}


@pytest.mark.parametrize("line_win, pays, label", [
    ("after_multipliers", 1080, "5 x LEMON x27"),   # 40 x 3 x 3 x 3 beats the wilds' own 50
    ("before_multipliers", 50, "3 x WILD"),         # 50 beats 40 before the multipliers
])
def test_the_line_pays_the_candidate_its_rule_chooses(tmp_path, line_win, pays, label):
    game = load(tmp_path, game_text(5, SYMBOLS, PAYTABLE, line_win=line_win))
    line = "WILD WILD WILD LEMON LEMON"
    assert pay_of(build_automaton(game), game, line) == (pays, label)
    (win,) = line_wins(game, line.split())
    assert win.paid == pays
    # one candidate only: chosen either way, multiplied either way (x3 for the wild among its 3 symbols)
    assert pay_of(build_automaton(game), game, "PLUM WILD PLUM LEMON LEMON") == (15, "3 x PLUM x3")


def test_ties_before_multipliers_go_to_more_symbols(tmp_path):
    """Equal paytable pays: the longer candidate is chosen, then multiplied (its multiplier does not decide)."""
    game = load(tmp_path, game_text(3, {"WILD": '{ kind = "wild", multiplier = 2 }', "A": "{}", "B": "{}"},
                                    {"WILD": {2: 10}, "A": {3: 10}}, line_win="before_multipliers"))
    assert pay_of(build_automaton(game), game, "WILD WILD A") == (40, "3 x A x4")


def test_the_gallery_game_declares_it_and_pays_less_than_after_multipliers():
    game = load_game(GALLERY)
    assert game.pays.line_win == "before_multipliers"
    text = (reelsets_dir() / f"{GALLERY}.toml").read_text(encoding="utf-8")
    assert DECLARED in text
    after = loads_game(text.replace(DECLARED, ""), "after.toml")
    assert after.pays.line_win == "after_multipliers"
    before_rtp, after_rtp = par(game, full_cycle=False).rtp_exact, par(after, full_cycle=False).rtp_exact
    assert before_rtp < after_rtp  # the wilds' own wins replace some multiplied ones
    assert "chosen before multipliers" in pay_rule_text(game)
    assert "chosen before multipliers" not in pay_rule_text(after)


@pytest.mark.parametrize("pays, message", [
    ('rule = "lines"\nline_win = "first"', "is not one of: after_multipliers, before_multipliers"),
    ('rule = "lines"\nline_win = true', "expected"),
    ('rule = "ways"\nline_win = "before_multipliers"', "line_win is for lines games"),
])
def test_bad_values_are_refused_at_their_key(pays, message):
    text = (reelsets_dir() / "examples/ways_243.toml").read_text(encoding="utf-8")
    if 'rule = "ways"' in pays:
        bad = text.replace('[pays]\nrule = "ways"', "[pays]\n" + pays, 1)
    else:
        bad = (reelsets_dir() / f"{GALLERY}.toml").read_text(encoding="utf-8")
        bad = bad.replace('[pays]\nrule = "lines"', "[pays]\n" + pays, 1).replace(DECLARED, "")
    with pytest.raises(ReelsetError) as info:
        loads_game(bad, "bad.toml")
    assert "pays.line_win" in str(info.value) and message in str(info.value), str(info.value)
