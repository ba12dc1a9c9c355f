"""Design warnings (lints): each one on a small file that triggers it and one that does not; every shipped and
gallery reelset lints clean (but for what is listed in KNOWN); the misspelt symbol is one error naming the
declaration; ``workbench validate`` prints warnings, exits 0 on them and 2 with --strict."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType

import pytest

from workbench import cli
from workbench.errors import WARNING
from workbench.io import example_games, load_game, reelsets_dir, shipped_games
from workbench.lints import check_file, combination_warnings, exact_lints, lint
from workbench.io.lint import source_of

# a 3x3, 1-line classic game that lints clean (RTP 76.7 %): every lint below changes one thing of it
BASE = '''format_version = 1
name = "Lint test"
game_module = "classic"

[grid]
reels = 3
rows = 3

[bet]
lines = 1
cost = 1
line_bet = 1

[symbols]
WILD = { kind = "wild", substitutes = { all_but = ["SCAT"] } }
SCAT = { kind = "scatter" }
LION = {}
BELL = {}
PLUM = {}

[paytable]
LION = { 3 = 20 }
BELL = { 3 = 5 }
PLUM = { 2 = 1, 3 = 3 }

[paylines]
lines = [[1, 1, 1]]

[scatters.SCAT]
symbols = ["SCAT"]
pays = { 3 = 5 }

[triggers.bonus]
scatter = "SCAT"
min_count = 3

[strip_sets.base]
mode = "base"
reel1 = "LION BELL PLUM PLUM BELL PLUM SCAT PLUM BELL LION PLUM BELL"
reel2 = "LION BELL PLUM WILD PLUM BELL SCAT BELL PLUM LION PLUM BELL"
reel3 = "LION BELL PLUM PLUM BELL SCAT PLUM BELL LION PLUM BELL PLUM"
'''

# what a shipped or gallery file is known to be warned about (keys); anything else is a false warning or a new problem
KNOWN: dict = {}


def _text(name: str) -> str:
    return (reelsets_dir() / f"{name}.toml").read_text(encoding="utf-8")


def _sub(text: str, pattern: str, replacement: str, count: int = 1) -> str:
    new, n = re.subn(pattern, replacement, text, count=count, flags=re.M)
    assert n, f"pattern {pattern!r} not found"
    return new


def _reels(text: str, old: str, new: str, reels: tuple = (1, 2, 3)) -> str:
    """``text`` with symbol ``old`` replaced by ``new`` on the strips of the given reels (whole names only)."""
    def swap(match):
        return re.sub(rf"\b{old}\b", new, match.group(0))

    for reel in reels:
        text = re.sub(rf'^reel{reel} = ".*"$', swap, text, flags=re.M)
    return text


def _line(text: str, needle: str) -> int:
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


def _warnings(tmp_path: Path, text: str, name: str = "game.toml") -> list:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    problems = check_file(path)
    errors = [p for p in problems if not p.is_warning]
    assert not errors, [str(p) for p in errors]
    return problems


def _keys(problems) -> set:
    return {p.key for p in problems}


def _one(problems, key: str):
    found = [p for p in problems if p.key == key]
    assert len(found) == 1, [str(p) for p in problems]
    return found[0]


# ---------------------------------------------------------------------------
# the shipped and gallery files, the clean base
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", shipped_games() + example_games())
def test_every_shipped_and_gallery_reelset_lints_clean(name):
    problems = check_file(name)
    assert all(p.is_warning for p in problems), [str(p) for p in problems]
    assert _keys(problems) == KNOWN.get(name, set()), [str(p) for p in problems]


def test_the_base_of_these_tests_lints_clean(tmp_path):
    assert _warnings(tmp_path, BASE) == []


def test_a_warning_prints_with_file_line_key_and_marker(tmp_path):
    text = _sub(BASE, r"^BELL = \{ 3 = 5 \}\n", "")
    warning = _one(_warnings(tmp_path, text), "symbols.BELL")
    assert warning.severity == WARNING
    assert str(warning) == f"{tmp_path / 'game.toml'}:{_line(text, 'BELL = {}')}: [symbols.BELL] warning: {warning.message}"


# ---------------------------------------------------------------------------
# 1. a regular symbol nothing pays
# ---------------------------------------------------------------------------
def test_a_deleted_paytable_line_warns_at_the_symbol(tmp_path):
    text = _sub(BASE, r"^BELL = \{ 3 = 5 \}\n", "")
    warning = _one(_warnings(tmp_path, text), "symbols.BELL")
    assert warning.line == _line(text, "BELL = {}")
    assert "nothing pays it" in warning.message and "kind = \"blank\"" in warning.message
    assert "12 stops" in warning.message  # 4 on each reel


def test_symbols_paid_through_a_group_a_scatter_group_or_as_blanks_are_not_unpaid(tmp_path):
    grouped = _sub(BASE, r"^BELL = \{ 3 = 5 \}\n", "")
    grouped = _sub(grouped, r"^\[paylines\]", '[groups]\nANY = ["BELL", "PLUM"]\n\n[paylines]')
    grouped = _sub(grouped, r"^PLUM = \{ 2 = 1, 3 = 3 \}", "PLUM = { 2 = 1, 3 = 3 }\nANY = { 3 = 2 }")
    assert "symbols.BELL" not in _keys(_warnings(tmp_path, grouped))
    blank = _sub(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""), r"^BELL = \{\}", 'BELL = { kind = "blank" }')
    assert "symbols.BELL" not in _keys(_warnings(tmp_path, blank))
    counted = _sub(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""), r'^symbols = \["SCAT"\]', 'symbols = ["SCAT", "BELL"]')
    assert "symbols.BELL" not in _keys(_warnings(tmp_path, counted))
    # a regular coin, read by hold and respin through its scatter group, is not unpaid either
    coins = _sub(_text("examples/hold_and_respin_coins"), r'^COIN = \{ kind = "bonus" \}', "COIN = {}")
    assert "symbols.COIN" not in _keys(_warnings(tmp_path, coins))


# ---------------------------------------------------------------------------
# 2. a paying symbol the base game never shows
# ---------------------------------------------------------------------------
def test_a_paying_symbol_off_the_base_strips(tmp_path):
    text = _reels(BASE, "LION", "BELL")
    problems = _warnings(tmp_path, text)
    warning = _one(problems, "paytable.LION")
    assert warning.line == _line(text, "LION = { 3")
    assert "on no strip of the base game" in warning.message and "on no strip of any strip set" in warning.message
    assert "paytable.LION" not in _keys(_warnings(tmp_path, BASE))


# ---------------------------------------------------------------------------
# 3. a count that can never land
# ---------------------------------------------------------------------------
def test_a_count_that_can_never_land_on_lines(tmp_path):
    text = _reels(_reels(BASE, "LION", "BELL", (3,)), "WILD", "BELL", (3,))  # no LION and no wild on reel 3
    warning = _one(_warnings(tmp_path, text), "paytable.LION.3")
    assert "can never land" in warning.message and "reel 3" in warning.message
    assert warning.line == _line(text, "LION = { 3")
    # a wild on reel 3 stands in for LION: 3 can land
    assert "paytable.LION.3" not in _keys(_warnings(tmp_path, _reels(BASE, "LION", "WILD", (3,))))


def test_a_count_that_can_never_land_pay_anywhere_and_cluster(tmp_path):
    anywhere = _sub(_text("examples/pay_anywhere_6x5"), r"^CROWN = \{ 8 = 8, 10 = 20, 12 = 40 \}",
                    "CROWN = { 8 = 8, 10 = 20, 12 = 40, 20 = 100 }")
    warning = _one(_warnings(tmp_path, anywhere), "paytable.CROWN.20")
    assert "at most 18 CROWN" in warning.message
    cluster = _sub(_text("examples/cluster_tumble_7x7"), r"^RED = \{ 5 = 3, 7 = 8, 9 = 16, 12 = 40, 15 = 150, 37 = 0 \}",
                   "RED = { 5 = 3, 7 = 8, 9 = 16, 12 = 40, 15 = 150, 20 = 500 }")
    assert "paytable.RED.20" in _keys(_warnings(tmp_path, cluster))
    assert "paytable.RED.15" not in _keys(_warnings(tmp_path, cluster))


# ---------------------------------------------------------------------------
# 4. triggers and awards that can never fire
# ---------------------------------------------------------------------------
def test_a_trigger_whose_scatter_is_not_on_enough_reels(tmp_path):
    text = _reels(BASE, "SCAT", "PLUM", (3,))
    problems = _warnings(tmp_path, text)
    warning = _one(problems, "triggers.bonus.min_count")
    assert "can never fire" in warning.message and "at most 2" in warning.message
    assert "triggers.bonus" not in _keys(problems)  # the exact engine's zero is not said twice
    assert "scatters.SCAT.pays.3" in _keys(problems)  # nor can the scatter pay for 3
    assert not {"triggers.bonus.min_count", "scatters.SCAT.pays.3"} & _keys(_warnings(tmp_path, BASE))


def test_free_spins_keys_no_count_can_choose(tmp_path):
    text = _sub(_text("examples/ways_free_spins"), r"^free_spins = \{ 3 = 10, 4 = 15, 5 = 20 \}",
                "free_spins = { 3 = 10, 4 = 15, 5 = 20, 6 = 25 }")
    text = _sub(text, r"^retrigger = \{ 3 = 10, 4 = 15, 5 = 20 \}", "retrigger = { 3 = 10, 4 = 15, 5 = 20, 7 = 30 }")
    problems = _warnings(tmp_path, text)
    assert {"features.free_spins.6", "features.retrigger.7"} <= _keys(problems)
    assert "can never be awarded" in _one(problems, "features.free_spins.6").message
    assert not any(k.startswith("features.") for k in _keys(_warnings(tmp_path, _text("examples/ways_free_spins"))))


# ---------------------------------------------------------------------------
# 5. a cost that is not the line stake
# ---------------------------------------------------------------------------
def test_a_cost_that_is_not_lines_x_line_bet(tmp_path):
    text = _sub(_text("classic_tens"), r"^cost = 10 ", "cost = 12 ")
    warning = _one(_warnings(tmp_path, text), "bet.cost")
    assert "lines x line_bet (10 x 1 = 10)" in warning.message and "cost_reason" in warning.message
    explained = _sub(text, r"^line_bet = 1", 'line_bet = 1\ncost_reason = "2 credits buy the feature bet"')
    assert _warnings(tmp_path, explained) == []
    # a ways game has no lines: its cost is not compared with anything
    assert _warnings(tmp_path, _sub(_text("examples/ways_243"), r"^cost = 25 ", "cost = 30 ")) == []


# ---------------------------------------------------------------------------
# 6. pays higher for fewer symbols: errors for the paytable and scatters, warnings for feature awards
# ---------------------------------------------------------------------------
def test_decreasing_pays_are_errors_and_decreasing_awards_warnings(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(_sub(BASE, r"^PLUM = \{ 2 = 1, 3 = 3 \}", "PLUM = { 2 = 3, 3 = 1 }"))
    problems = check_file(path)
    assert [p.key for p in problems if not p.is_warning] == ["paytable.PLUM.3"]
    text = _sub(_text("examples/ways_free_spins"), r"^free_spins = \{ 3 = 10, 4 = 15, 5 = 20 \}",
                "free_spins = { 3 = 10, 4 = 15, 5 = 12 }")
    warning = _one(_warnings(tmp_path, text), "features.free_spins.5")
    assert "more symbols should not award less" in warning.message


# ---------------------------------------------------------------------------
# 7. a misspelt symbol: one error at the declaration
# ---------------------------------------------------------------------------
def test_a_misspelt_declaration_is_one_error_naming_it(tmp_path, capsys):
    text = _sub(_sub(BASE, r"^LION = \{\}", "TIGER = {}"), r"^LION = \{ 3", "TIGER = { 3")
    text = _reels(text, "LION", "TIGRE")
    stops = sum(len(re.findall(r"\bTIGRE\b", line)) for line in text.splitlines() if line.startswith("reel"))
    assert stops == 6
    path = tmp_path / "typo.toml"
    path.write_text(text)
    problems = check_file(path)
    assert len(problems) == 1, [str(p) for p in problems]
    problem = problems[0]
    declared = _line(text, "TIGER = {}")
    assert problem.key == "symbols.TIGER" and problem.line == declared and not problem.is_warning
    assert problem.message.startswith(f"'TIGRE' is used on {stops} stops but not declared; did you mean 'TIGER' "
                                      f"(declared at line {declared})?")
    assert cli.main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if "TIGRE" in line]) == 1 and "1 problem(s)" in err


def test_a_flood_of_one_misspelling_is_one_error_not_thirty(tmp_path):
    text = _sub(_text("examples/ways_243"), r"^LION = \{\}", "TIGER = {}")
    text = _sub(text, r"^LION = \{", "TIGER = {")
    text = re.sub(r"\bLION\b", "TIGRE", text)
    path = tmp_path / "flood.toml"
    path.write_text(text)
    problems = [p for p in check_file(path) if "TIGRE" in p.message]
    assert len(problems) == 1 and problems[0].key == "symbols.TIGER"
    assert not any("more problem" in p.message for p in check_file(path))


def test_an_unknown_name_without_a_near_miss_is_one_error_at_its_first_use(tmp_path):
    text = _reels(BASE, "PLUM", "KIWI", (2, 3))
    path = tmp_path / "kiwi.toml"
    path.write_text(text)
    problems = [p for p in check_file(path) if "KIWI" in p.message]
    assert len(problems) == 1
    assert problems[0].key == "strip_sets.base.reel2" and problems[0].line == _line(text, "reel2 =")
    assert problems[0].message.startswith("stop 3: unknown symbol 'KIWI', used on 9 stops in all")


# ---------------------------------------------------------------------------
# 8. damage: costs, spins, caps, guarantees and jackpots out of all proportion
# ---------------------------------------------------------------------------
def test_a_bet_mode_cheaper_than_the_base_game(tmp_path):
    text = _sub(_text("examples/ways_free_spins"), r"^cost = 31$", "cost = 0.000001")
    warning = _one(_warnings(tmp_path, text), "bet_modes.bonus_buy.cost")
    assert "below the base game's own price" in warning.message
    ante = _sub(_text("examples/sticky_wilds_ante"), r"^cost = 1.2$", "cost = 0.000001")
    assert "bet_modes.ante.cost" in _keys(_warnings(tmp_path, ante))


def test_a_total_bet_below_one_line_bet(tmp_path):
    text = _sub(_text("examples/ways_243"), r"^cost = 25 ", "cost = 0.5 ")
    warning = _one(_warnings(tmp_path, text), "bet.cost")
    assert "below a line bet" in warning.message


def test_all_strip_sets_of_a_mode_at_weight_0_stay_an_error(tmp_path):
    path = tmp_path / "zero.toml"
    path.write_text(_sub(BASE, r'^mode = "base"$', 'mode = "base"\nweight = 0'))
    assert any("have weight 0" in p.message and not p.is_warning for p in check_file(path))


def test_free_spins_over_max_free_spins_or_out_of_all_proportion(tmp_path):
    fs = _text("examples/sticky_wilds_ante")
    retrigger = _sub(fs, r"^retrigger = \{ 3 = 4 \}", "retrigger = { 3 = 10000 }")
    warning = _one(_warnings(tmp_path, retrigger), "features.retrigger.3")
    assert "max_free_spins is 50" in warning.message
    no_limit = _sub(retrigger, r"^max_free_spins = 50 .*\n", "")
    assert "more than 1,000" in _one(_warnings(tmp_path, no_limit), "features.retrigger.3").message
    below = _sub(fs, r"^max_free_spins = 50 ", "max_free_spins = 10 ")
    assert {"features.free_spins.4", "features.free_spins.5"} <= _keys(_warnings(tmp_path, below))
    assert "features.free_spins.3" not in _keys(_warnings(tmp_path, below))


def test_a_minimum_feature_win_out_of_all_proportion(tmp_path):
    fs = _text("examples/ways_free_spins")
    huge = _sub(fs, r"^multiplier = 3 ", "min_feature_win = 20000\nmultiplier = 3 ")
    assert "above 10,000 x" in _one(_warnings(tmp_path, huge), "features.min_feature_win").message
    capped = _sub(fs, r"^multiplier = 3 ", "min_feature_win = 600\nmultiplier = 3 ")
    capped = _sub(capped, r"^line_bet = 1", "line_bet = 1\nmax_win = 500")
    assert "above the max win 500" in _one(_warnings(tmp_path, capped), "features.min_feature_win").message
    fine = _sub(fs, r"^multiplier = 3 ", "min_feature_win = 5\nmultiplier = 3 ")
    assert _warnings(tmp_path, fine) == []


def test_jackpot_tiers_out_of_order(tmp_path):
    text = _sub(_text("examples/hold_and_respin_coins"), r"^mini = 10 ", "mini = 500 ")
    warning = _one(_warnings(tmp_path, text), "features.mini")
    assert "above the minor jackpot" in warning.message and warning.line == _line(text, "mini = 500")


def test_a_max_win_below_the_price_of_its_mode(tmp_path):
    hr = _text("examples/hold_and_respin_coins")
    text = _sub(hr, r"^buy_count = 6", "buy_count = 6\nmax_win = 20")
    warning = _one(_warnings(tmp_path, text), "bet_modes.coin_buy.max_win")
    assert "costs 27" in warning.message
    base = _sub(hr, r"^line_bet = 1", "line_bet = 1\nmax_win = 0.5")
    assert "bet.max_win" in _keys(_warnings(tmp_path, base))
    assert "max_win" not in str(_keys(_warnings(tmp_path, _sub(hr, r"^line_bet = 1", "line_bet = 1\nmax_win = 5000"))))


# ---------------------------------------------------------------------------
# 9. a trigger of exact probability 0
# ---------------------------------------------------------------------------
def test_a_trigger_that_never_fires_exactly(tmp_path):
    # SCAT stays on reel 3 (so the file alone cannot tell) but neither it nor the two stops above it ever land
    text = _sub(BASE, r'^reel3 = ".*"$', 'reel3 = "LION BELL PLUM PLUM BELL:0 PLUM:0 SCAT:0 BELL LION PLUM BELL PLUM"')
    problems = _warnings(tmp_path, text)
    warning = _one(problems, "triggers.bonus")
    assert "never fires" in warning.message and "probability" in warning.message
    assert warning.line == _line(text, "[triggers.bonus]")
    assert "triggers.bonus.min_count" not in _keys(problems)


def test_a_trigger_that_never_fires_on_an_ante_s_own_strips(tmp_path):
    text = _text("examples/sticky_wilds_ante")
    strips = re.search(r'^\[strip_sets\.ante\].*?(?=^\[|\Z)', text, re.M | re.S).group(0)
    assert "STAR" in strips
    text = text.replace(strips, strips.replace("STAR", "CHERRY"))
    problems = _warnings(tmp_path, text)
    assert "bet_modes.ante.strip_sets" in _keys(problems)


# ---------------------------------------------------------------------------
# 10. a higher count as frequent as a lower one
# ---------------------------------------------------------------------------
def test_a_higher_count_as_frequent_as_a_lower_one(tmp_path, capsys):
    text = _sub(BASE, r'^reel3 = ".*"$', 'reel3 = "PLUM PLUM PLUM PLUM PLUM BELL PLUM PLUM LION PLUM SCAT PLUM"')
    warning = _one(_warnings(tmp_path, text), "paytable.PLUM.3")
    assert "as often as or more than 2 x PLUM" in warning.message and warning.line == _line(text, "PLUM = { 2")
    path = tmp_path / "game.toml"
    assert cli.main(["par", str(path), "--no-cycle"]) == 0
    assert "warning: 3 x PLUM hits" in capsys.readouterr().out
    assert combination_warnings(_sheet(BASE)) == []


def _sheet(text: str):
    from workbench.exact import par
    from workbench.io import loads_game

    return par(loads_game(text), full_cycle=False)


# ---------------------------------------------------------------------------
# 11. RTPs the exact part puts out of band, and a buy below what it surely pays
# ---------------------------------------------------------------------------
def test_exact_rtp_out_of_band(tmp_path):
    rich = _sub(BASE, r"^LION = \{ 3 = 20 \}", "LION = { 3 = 200 }")
    assert "pays out more than it takes" in _one(_warnings(tmp_path, rich), "bet.cost").message
    poor = _sub(_sub(BASE, r"^BELL = \{ 3 = 5 \}", "BELL = { 3 = 1 }"), r"^PLUM = \{ 2 = 1, 3 = 3 \}", "PLUM = { 3 = 1 }")
    assert "below 50 %" in _one(_warnings(tmp_path, poor), "paytable").message


def test_an_ante_whose_exact_part_pays_more_than_it_costs():
    # an ante at a quarter of the base price (the file lint says so too, at the same key: checked here alone)
    game = load_game("examples/sticky_wilds_ante")
    cheap = replace(game, bet_modes=MappingProxyType({"ante": replace(game.bet_modes["ante"], cost=Fraction(1, 4))}))
    problems = exact_lints(cheap, source_of(game))
    assert "bet_modes.ante.cost" in _keys(problems)
    assert "bet_modes.ante.cost" not in _keys(exact_lints(game, source_of(game)))


def test_a_buy_priced_below_its_guaranteed_payout(tmp_path):
    coins = _sub(_text("examples/hold_and_respin_coins"), r"^cost = 27$", "cost = 5")
    warning = _one(_warnings(tmp_path, coins), "bet_modes.coin_buy.cost")
    assert "at least 6 x total bet" in warning.message  # 6 coins of at least 1 x total bet
    fs = _sub(_text("examples/ways_free_spins"), r"^multiplier = 3 ", "min_feature_win = 40\nmultiplier = 3 ")
    assert "bet_modes.bonus_buy.cost" in _keys(_warnings(tmp_path, fs))


# ---------------------------------------------------------------------------
# the surfaces: validate, the editors, the report
# ---------------------------------------------------------------------------
def test_validate_prints_warnings_exits_0_and_2_with_strict(tmp_path, capsys):
    path = tmp_path / "warned.toml"
    path.write_text(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""))
    assert cli.main(["validate", str(path)]) == 0
    out = capsys.readouterr()
    assert f"{path}: ok, 1 warning(s)" in out.out
    # warnings alone do not fail the file: its lines all go to stdout (with --strict, all to stderr)
    assert f"{path}:{_line(path.read_text(), 'BELL = {}')}: [symbols.BELL] warning: BELL is a regular symbol" in out.out
    assert "Traceback" not in out.err
    assert cli.main(["validate", "--strict", str(path)]) == 2
    assert "--strict" in capsys.readouterr().err
    clean = tmp_path / "clean.toml"
    clean.write_text(BASE)
    assert cli.main(["validate", "--strict", str(clean)]) == 0
    assert capsys.readouterr().out == f"{clean}: ok\n"
    assert cli.main(["validate", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == 1 and data["problems"][0]["severity"] == "warning" and data["problems"][0]["key"] == "symbols.BELL"


def test_validate_never_fails_on_the_exact_lints(tmp_path, monkeypatch, capsys):
    import workbench.exact

    def refuse(*args, **kwargs):
        from workbench.errors import ExactBudgetError

        raise ExactBudgetError("over the budget")

    monkeypatch.setattr(workbench.exact, "par", refuse)
    path = tmp_path / "warned.toml"
    path.write_text(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""))
    assert cli.main(["validate", str(path)]) == 0
    assert "symbols.BELL" in capsys.readouterr().out


def test_the_editor_lists_the_warnings_under_the_summary(tmp_path):
    from workbench.widgets import StripEditor

    path = tmp_path / "warned.toml"  # classic_tens (fully exact: no feature estimate) without its CHERRY pays
    path.write_text(_sub(_text("classic_tens"), r"^CHERRY = \{ 2.*\n", ""))
    editor = StripEditor(path)
    assert "wb-lints" in editor.summary.value and "symbols.CHERRY" in editor.summary.value
    assert [w.key for w in editor.lints] == ["symbols.CHERRY"]
    clean = tmp_path / "clean.toml"
    clean.write_text(_text("classic_tens"))
    assert editor.open(clean) and editor.lints == [] and "No design warnings" in editor.summary.value


def test_the_report_lists_the_warnings():
    from workbench import report
    from workbench.io import loads_game

    game = loads_game(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""), "warned.toml")
    table = report.design_warnings_table(game)
    assert list(table["key"]) == ["symbols.BELL"] and list(table.columns) == ["key", "line", "warning"]
    assert report.design_warnings_table(load_game("classic_tens")).empty
    notebook = (Path(report.REPORT_NOTEBOOK)).read_text(encoding="utf-8")
    assert "R.design_warnings_table(g, sheet)" in notebook


def test_lint_of_a_game_built_in_code_names_keys_without_lines():
    from workbench.io import loads_game

    game = loads_game(_sub(BASE, r"^BELL = \{ 3 = 5 \}\n", ""))
    edited = game.with_strip("base", 1, list(game.strip_sets["base"].reels[0].symbols))
    assert [p.key for p in lint(edited)] == ["symbols.BELL"]
