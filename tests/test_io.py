"""Reelset files: loading, byte-identical round trips, edits, atomic saves, and every bad-input case."""

import re
import subprocess
import sys

import pytest

from workbench.errors import ReelsetError
from workbench.io import load_game, loads_game, reelsets_dir, render_text, save_game, shipped_games, validate_file

SHIPPED = shipped_games()


def test_shipped_reelsets_exist():
    assert "classic_tens" in SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_reelset_loads_and_round_trips_byte_identical(name, tmp_path):
    path = reelsets_dir() / f"{name}.toml"
    original = path.read_bytes()
    game = load_game(path)
    assert render_text(game).encode() == original
    copy = tmp_path / path.name
    copy.write_bytes(original)
    saved = save_game(load_game(copy))
    assert saved.diff == ""
    assert copy.read_bytes() == original


def test_model_is_immutable(classic):
    with pytest.raises(Exception):
        classic.name = "x"
    with pytest.raises(TypeError):
        classic.symbols["NEW"] = None
    with pytest.raises(TypeError):
        classic.paytable["SEVEN"][3] = 1


def test_classic_model_contents(classic):
    assert classic.reels == 5 and classic.rows == (3, 3, 3, 3, 3)
    assert len(classic.paylines) == classic.bet.lines == 10
    assert classic.symbols["WILD"].is_wild
    assert "SCAT" not in classic.symbols["WILD"].substitutes
    assert "SEVEN" in classic.symbols["WILD"].substitutes
    assert classic.line_pay("SEVEN", 5) == 500
    assert classic.line_pay("CHERRY", 1) == 0
    assert classic.scatters["SCAT"].pay(6) == 50  # above the table pays the top entry
    base = classic.strip_sets["base"]
    assert base.mode == "base" and len(base.reels) == 5


def test_edit_strip_and_save_changes_only_that_line(classic, tmp_path):
    path = tmp_path / "g.toml"
    path.write_text(classic.text)
    game = load_game(path)
    reel = list(game.strip_sets["base"].reels[1].symbols)
    reel[0], reel[1] = reel[1], reel[0]
    edited = game.with_strip("base", 2, reel)
    assert edited.strip_sets["base"].reels[1].symbols == tuple(reel)
    assert game.strip_sets["base"].reels[1].symbols != tuple(reel)  # original untouched
    saved = save_game(edited)
    changed = [l for l in saved.diff.splitlines() if l.startswith(("+", "-")) and not l.startswith(("+++", "---"))]
    assert len(changed) == 2 and all("reel2" in l for l in changed)
    text = path.read_text()
    assert text.startswith("# Classic Tens")  # comments kept
    assert load_game(path).strip_sets["base"].reels[1].symbols == tuple(reel)


def test_edit_weights_on_multiline_strip_keeps_layout(tmp_path):
    text = (reelsets_dir() / "classic_tens.toml").read_text()
    reel1 = re.search(r'^reel1 = "(.*)"$', text, re.M).group(1).split()
    wrapped = 'reel1 = """\n' + "\n".join(" ".join(reel1[i:i + 8]) for i in range(0, len(reel1), 8)) + '\n"""  # first reel'
    text = re.sub(r'^reel1 = ".*"$', lambda m: wrapped, text, flags=re.M)
    path = tmp_path / "g.toml"
    path.write_text(text)
    game = load_game(path)
    assert game.strip_sets["base"].reels[0].symbols == tuple(reel1)
    weights = [1] * len(reel1)
    weights[3] = 5
    saved = save_game(game.with_strip("base", 1, reel1, weights))
    new_text = path.read_text()
    assert "# first reel" in new_text
    assert f"{reel1[3]}:5" in new_text
    assert saved.game.strip_sets["base"].reels[0].weights[3] == 5
    # 8 stops per line as before: only the line holding stop 4 changed
    changed = [l for l in saved.diff.splitlines() if l.startswith("-") and not l.startswith("---")]
    assert len(changed) == 1


def test_invalid_edit_raises_and_saves_nothing(classic, tmp_path):
    path = tmp_path / "g.toml"
    path.write_text(classic.text)
    game = load_game(path)
    with pytest.raises(ReelsetError, match="unknown symbol 'NOPE'"):
        game.with_strip("base", 1, ["NOPE", "SEVEN", "BAR", "BELL"])
    with pytest.raises(ReelsetError, match="no table 'wheel'"):
        game.with_table_weights("wheel", [1, 2])
    with pytest.raises(ReelsetError, match="negative weight"):
        game.with_strip("base", 1, ["SEVEN", "BAR", "BELL", "PLUM"], [1, -1, 1, 1])
    assert path.read_text() == classic.text


def test_save_refuses_when_file_changed_on_disk(classic, tmp_path):
    path = tmp_path / "g.toml"
    path.write_text(classic.text)
    game = load_game(path)
    path.write_text(classic.text + "\n# someone else's edit\n")
    reel = list(game.strip_sets["base"].reels[0].symbols)[::-1]
    with pytest.raises(ReelsetError, match="changed on disk"):
        save_game(game.with_strip("base", 1, reel))
    assert path.read_text().endswith("# someone else's edit\n")


# ---------------------------------------------------------------------------
# bad input: each case names the file, the line and the key, and says what is wrong
# ---------------------------------------------------------------------------
CLASSIC = (reelsets_dir() / "classic_tens.toml").read_text()


def _mutate(pattern: str, replacement: str, count: int = 1) -> str:
    new, n = re.subn(pattern, replacement, CLASSIC, count=count, flags=re.M)
    assert n, f"pattern {pattern!r} not found"
    return new


def _line_of(text: str, needle: str) -> int:
    return next(i + 1 for i, l in enumerate(text.splitlines()) if needle in l)


BAD_CASES = {
    "unknown symbol in strip": (lambda: _mutate(r'^(reel3 = ")(\S+)', r"\1KIWI"), "reel3 =", "strip_sets.base.reel3", "unknown symbol 'KIWI'"),
    "empty reel": (lambda: _mutate(r'^reel2 = ".*"$', 'reel2 = ""'), "reel2 =", "strip_sets.base.reel2", "reel 2 is empty"),
    "payline row out of range": (lambda: _mutate(r"^  \[0, 1, 2, 1, 0\],", "  [0, 1, 3, 1, 0],"), "[0, 1, 3, 1, 0]", "paylines.lines[3]", "row 3 on reel 3 is out of range"),
    "paytable for missing symbol": (lambda: _mutate(r"^SEVEN = \{ 3 = 40", "SEVENS = { 3 = 40"), "SEVENS = {", "paytable.SEVENS", "paytable for unknown symbol 'SEVENS'"),
    "negative stop weight": (lambda: _mutate(r'^(reel1 = "\S+)', r"\1:-2"), "reel1 =", "strip_sets.base.reel1", "negative weight -2"),
    "all-zero stop weights": (lambda: re.sub(r'^(reel4 = ")(.*)(")$', lambda m: m.group(1) + " ".join(f"{t}:0" for t in m.group(2).split()) + m.group(3), CLASSIC, flags=re.M), "reel4 =", "strip_sets.base.reel4", "all stop weights are zero"),
    "zero strip-set weight": (lambda: _mutate(r'^mode = "base"$', 'mode = "base"\nweight = 0'), "[strip_sets.base]", "strip_sets", "have weight 0"),
    "negative strip-set weight": (lambda: _mutate(r'^mode = "base"$', 'mode = "base"\nweight = -1'), "weight = -1", "strip_sets.base.weight", "must be at least 0"),
    "wrong type": (lambda: _mutate(r"^reels = 5$", 'reels = "five"'), 'reels = "five"', "grid.reels", "expected an integer, got string 'five'"),
    "wrong type in paytable": (lambda: _mutate(r"^BAR = \{ 3 = 25", 'BAR = { 3 = "25"'), 'BAR = { 3 = "25"', "paytable.BAR.3", "expected a number"),
    "missing section": (lambda: _mutate(r"^\[paylines\].*\nlines = \[\n(  .*\n)+\]\n", ""), None, "", "missing required section or key 'paylines'"),
    "unknown key (typo)": (lambda: _mutate(r"^line_bet = 1", "line_bett = 1"), "line_bett", "bet.line_bett", "unknown key 'line_bett' (did you mean 'line_bet'?)"),
    "unknown format version": (lambda: _mutate(r"^format_version = 1$", "format_version = 7"), "format_version = 7", "format_version", "unknown format version 7"),
    "not valid TOML": (lambda: _mutate(r"^\[grid\]$", "[grid"), "[grid", "", "not valid TOML"),
    "pays decreasing": (lambda: _mutate(r"^BELL = \{ 3 = 20, 4 = 75", "BELL = { 3 = 20, 4 = 15"), "BELL = { 3 = 20", "paytable.BELL.4", "pays must not decrease"),
    "unknown game module": (lambda: _mutate(r'^game_module = "classic"$', 'game_module = "clasic"'), "game_module", "game_module", "unknown game module 'clasic'"),
    "wild substitutes unknown symbol": (lambda: _mutate(r'all_but = \["SCAT"\]', 'all_but = ["SCATTER"]'), "WILD = {", "symbols.WILD.substitutes.all_but[0]", "unknown symbol 'SCATTER'"),
    "scatter group unknown symbol": (lambda: _mutate(r'^symbols = \["SCAT"\]$', 'symbols = ["SCATT"]'), 'symbols = ["SCATT"]', "scatters.SCAT.symbols[0]", "unknown symbol 'SCATT'"),
    "missing reel": (lambda: _mutate(r'^reel5 = ".*"\n', ""), "[strip_sets.base]", "strip_sets.base", "missing required key 'reel5'"),
    "lines mismatch": (lambda: _mutate(r"^lines = 10$", "lines = 9"), "lines = 9", "bet.lines", "9 lines played but 10 paylines defined"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_reported_with_file_line_and_key(case, tmp_path):
    make, needle, key, message = BAD_CASES[case]
    text = make()
    path = tmp_path / "bad.toml"
    path.write_text(text)
    problems = validate_file(path)
    assert problems, case
    match = [p for p in problems if message in p.message]
    assert match, [str(p) for p in problems]
    problem = match[0]
    assert problem.file == str(path)
    if key:
        assert problem.key == key
    if needle:
        assert problem.line == _line_of(text, needle), str(problem)
    with pytest.raises(ReelsetError) as info:
        load_game(path)
    assert str(path) in str(info.value)


def test_tall_symbol_broken_on_strip():
    text = CLASSIC.replace('SCAT = { kind = "scatter" }', 'SCAT = { kind = "scatter", height = 2 }')
    problems = validate_file_text(text)
    assert any("tall symbol SCAT (height 2) broken at stop" in p.message and p.key.startswith("strip_sets.base.reel") for p in problems)
    # doubling every SCAT stop makes the strips valid again
    fixed = re.sub(r"\bSCAT\b(?= )", "SCAT SCAT", text.split("[strip_sets.base]")[1])
    assert not validate_file_text(text.split("[strip_sets.base]")[0] + "[strip_sets.base]" + fixed)


def test_symbol_on_forbidden_reel_and_max_visible():
    text = CLASSIC.replace('SEVEN = {}', 'SEVEN = { reels = [1, 2] }')
    problems = validate_file_text(text)
    assert any("SEVEN may not appear on reel 3" in p.message for p in problems)
    text = CLASSIC.replace('SCAT = { kind = "scatter" }', 'SCAT = { kind = "scatter", max_visible = 1 }')
    assert not validate_file_text(text)
    text = re.sub(r'^(reel1 = ")(\S+) (\S+)', r"\1SCAT \3 SCAT", text, flags=re.M)
    assert any("up to 2 SCAT can be visible at once" in p.message for p in validate_file_text(text))


def test_zero_table_weights_and_negative_table_weight():
    extra = '\n[tables.wheel]\nentries = [\n  { value = 10, weight = 0 },\n  { value = 20, weight = 0 },\n]\n'
    problems = validate_file_text(CLASSIC + extra)
    assert any(p.key == "tables.wheel.entries" and "all weights are zero" in p.message for p in problems)
    extra = '\n[tables.wheel]\nentries = [\n  { value = 10, weight = 3 },\n  { value = 20, weight = -1 },\n]\n'
    problems = validate_file_text(CLASSIC + extra)
    assert any(p.key == "tables.wheel.entries[1].weight" and "negative weight" in p.message for p in problems)
    line = _line_of(CLASSIC + extra, "weight = -1")
    assert [p.line for p in problems if "negative" in p.message] == [line]


def validate_file_text(text):
    try:
        loads_game(text, "mem.toml")
    except ReelsetError as exc:
        return exc.problems
    return []


def test_not_a_text_file(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    problems = validate_file(path)
    assert len(problems) == 1 and "not a text file" in problems[0].message and problems[0].file == str(path)
    path.write_bytes("name = 'caf\xe9'".encode("latin-1"))
    assert "not UTF-8 text" in validate_file(path)[0].message


def test_all_problems_reported_at_once(tmp_path):
    text = _mutate(r"^line_bet = 1", "line_bett = 1")
    text = re.sub(r'^(reel3 = ")(\S+)', r"\1KIWI", text, flags=re.M)
    path = tmp_path / "two.toml"
    path.write_text(text)
    messages = [p.message for p in validate_file(path)]
    assert any("line_bett" in m for m in messages) and any("KIWI" in m for m in messages)


def test_cli_validate_exit_codes_and_messages(tmp_path):
    good = reelsets_dir() / "classic_tens.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD_CASES["unknown symbol in strip"][0]())
    ok = subprocess.run([sys.executable, "-m", "workbench.cli", "validate", str(good)], capture_output=True, text=True)
    assert ok.returncode == 0 and "ok" in ok.stdout
    res = subprocess.run([sys.executable, "-m", "workbench.cli", "validate", str(bad)], capture_output=True, text=True)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    line = _line_of(bad.read_text(), "reel3 =")
    assert f"{bad}:{line}: [strip_sets.base.reel3] stop 1: unknown symbol 'KIWI'" in res.stderr
    missing = subprocess.run([sys.executable, "-m", "workbench.cli", "validate", str(tmp_path / "nope.toml")], capture_output=True, text=True)
    assert missing.returncode == 2 and "file not found" in missing.stderr and "Traceback" not in missing.stderr


def test_cli_reports_unknown_game_without_traceback():
    res = subprocess.run([sys.executable, "-m", "workbench.cli", "par", "no_such_game"], capture_output=True, text=True)
    assert res.returncode == 2 and "no_such_game" in res.stderr and "Traceback" not in res.stderr


def test_a_name_too_long_for_the_file_system_is_a_clear_error():
    from workbench.errors import GameNotFoundError

    with pytest.raises(GameNotFoundError, match="not a usable path") as caught:
        load_game("x" * 5000)
    assert "5,000 characters" in str(caught.value) and len(str(caught.value)) < 400
