"""Declared expectations (``[expectations]``, workbench.report.expectations): the section and every bad value with
its file, line and key; met, missed and not shown on a game whose figures are exact; ``workbench check``; saving
keeps the section; the editors show the base game's declared RTP and hit frequency live."""

from __future__ import annotations

import json
import re

import pytest

from workbench.cli import main
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game, reelsets_dir, render_text, save_game
from workbench.model import Expectation
from workbench.report.expectations import MET, MISSED, NOT_SHOWN, check_expectations, live_verdicts
from workbench.simulate import BetModeEstimate, estimate_rtp

ANY_BAR = reelsets_dir() / "examples" / "classic_any_bar.toml"  # a line game without features: every figure exact
WAYS_FREE = reelsets_dir() / "examples" / "ways_free_spins.toml"  # declares a bet mode, bonus_buy


@pytest.fixture(scope="module")
def sheet():
    return par(load_game(ANY_BAR), full_cycle=False)


@pytest.fixture(scope="module")
def estimate():
    return estimate_rtp(load_game(ANY_BAR))


def declared(section: str, path=ANY_BAR):
    """The game of ``path`` with ``section`` (TOML text) appended in place of its own."""
    text = re.sub(r"\[expectations[^\n]*\n.*?(?=\n\[strip_sets)", "", path.read_text(), flags=re.S)
    return loads_game(text + "\n" + section, path.name)


def exact_section(sheet, rtp=None, hit=None, vi=None, max_win=None) -> str:
    rtp = sheet.rtp if rtp is None else rtp
    hit = hit or (sheet.hit_frequency - 0.01, sheet.hit_frequency + 0.01)
    vi = vi or (sheet.volatility_index(0.90) - 0.5, sheet.volatility_index(0.90) + 0.5)
    top = sheet.max_win if max_win is None else max_win
    return (f"[expectations]\nrtp = {round(rtp, 6)!r}\nrtp_tolerance = 0.0001\nhit_frequency = [{hit[0]!r}, {hit[1]!r}]\n"
            f"volatility_index = [{vi[0]!r}, {vi[1]!r}]\nmax_win = {top!r}\n")


# ---------------------------------------------------------------------------
# the section
# ---------------------------------------------------------------------------
def test_the_section_is_read_into_frozen_expectations_per_mode():
    game = declared("[expectations]\nrtp = 0.963\nhit_frequency = [0.37, 0.39]\n"
                    "[expectations.bonus_buy]\nrtp = 0.9665\nrtp_tolerance = 0.002\nmax_win = 5000\n", WAYS_FREE)
    base, buy = game.expectations
    assert base == Expectation("base", rtp=0.963, hit_frequency=(0.37, 0.39))
    assert base.rtp_tolerance == 0.0005 and base.rtp_band == pytest.approx((0.9625, 0.9635))
    assert buy.mode == "bonus_buy" and buy.rtp_tolerance == 0.002 and buy.max_win == 5000
    assert buy.declared == ("rtp", "max_win") and game.expectation("bonus_buy") is buy
    assert isinstance(game.expectations, tuple) and game.expectation("nothing") is None
    with pytest.raises(AttributeError):
        base.rtp = 0.5
    assert load_game(ANY_BAR).expectations == ()  # optional
    assert declared("[expectations.base]\nrtp = 0.9\n").expectation("base").rtp == 0.9  # base by name too


@pytest.mark.parametrize("section, at, key, message", [
    ("[expectations]\ncolour = 1\n", 2, "[expectations.colour]", "unknown key 'colour'"),
    ("[expectations]\nrtp = 96.18\n", 2, "[expectations.rtp]", "a fraction, not a percentage: 0.9618"),
    ("[expectations]\nrtp = 0\n", 2, "[expectations.rtp]", "rtp must be above 0 and at most 1"),
    ("[expectations]\nrtp = \"high\"\n", 2, "[expectations.rtp]", "rtp must be a number"),
    ("[expectations]\nrtp = 0.9\nrtp_tolerance = 0.5\n", 3, "[expectations.rtp_tolerance]", "from 0 to 0.1"),
    ("[expectations]\nrtp_tolerance = 0.001\n", 2, "[expectations.rtp_tolerance]", "rtp_tolerance needs rtp"),
    ("[expectations]\nhit_frequency = [0.4, 0.3]\n", 2, "[expectations.hit_frequency]", "low is above high"),
    ("[expectations]\nhit_frequency = [0.2, 30]\n", 2, "[expectations.hit_frequency[1]]", "30 is not from 0 to 1"),
    ("[expectations]\nhit_frequency = 0.3\n", 2, "[expectations.hit_frequency]", "must be [low, high]"),
    ("[expectations]\nvolatility_index = [1, \"x\"]\n", 2, "[expectations.volatility_index[1]]", "expected a number"),
    ("[expectations]\nmax_win = -5\n", 2, "[expectations.max_win]", "must be greater than 0"),
    ("[expectations.ante]\nrtp = 0.9\n", 1, "[expectations.ante]", "no bet mode 'ante'"),
    ("[expectations]\nrtp = 0.9\n[expectations.base]\nrtp = 0.9\n", 3, "[expectations.base]", "given twice"),
    ("[expectations.base]\n", 1, "[expectations.base]", "no figure declared"),
])
def test_every_bad_value_names_the_file_the_line_and_the_key(section, at, key, message):
    text = ANY_BAR.read_text() + "\n"
    line = len(text.splitlines()) + at
    with pytest.raises(ReelsetError) as info:
        loads_game(text + section, "bad.toml")
    shown = str(info.value)
    assert f"bad.toml:{line}: {key} " in shown, shown
    assert message in shown, shown


def test_a_section_that_is_not_a_table_is_refused():
    with pytest.raises(ReelsetError, match=r"\[expectations\] expected a table"):
        loads_game(ANY_BAR.read_text().replace("[grid]", "expectations = 3\n\n[grid]", 1), "bad.toml")


def test_a_bet_mode_by_name_when_the_file_declares_it():
    with pytest.raises(ReelsetError, match=r"declared: 'bonus_buy'"):
        declared("[expectations.bonus]\nrtp = 0.9\n", WAYS_FREE)


def test_saving_an_edit_keeps_the_section_untouched(tmp_path):
    section = "[expectations]  # intended\nrtp = 0.95   # the target\nhit_frequency = [0.2, 0.5]\n"
    path = tmp_path / "bar.toml"
    path.write_text(ANY_BAR.read_text() + "\n" + section)
    game = load_game(path)
    strip = game.strip_sets["base"].reels[0]
    edited = game.with_strip("base", 1, (*strip.symbols, strip.symbols[0]))
    assert section in render_text(edited)
    saved = save_game(edited)
    assert section in path.read_text() and saved.game.expectations == game.expectations


# ---------------------------------------------------------------------------
# met, missed, not shown
# ---------------------------------------------------------------------------
def test_exact_figures_are_met_when_declared_as_they_are(sheet, estimate):
    result = check_expectations(declared(exact_section(sheet)), estimate)
    table = result.table()
    assert list(table["verdict"]) == [MET] * 4 and result.passed
    assert list(table["method"]) == ["exact"] * 4 and set(table["95 % interval"]) == {"exact"}
    assert list(table.columns) == ["mode", "figure", "declared", "measured", "95 % interval", "method", "verdict",
                                   "evidence"]
    assert table["measured"][0] == f"{100 * sheet.rtp:.4f} %" and "e-" not in table.to_string()
    assert "the exact max win is" in table["evidence"][3]


def test_exact_figures_outside_the_band_are_missed(sheet, estimate):
    vi = sheet.volatility_index(0.90)
    game = declared(exact_section(sheet, rtp=sheet.rtp + 0.01, hit=(sheet.hit_frequency + 0.01, 0.99),
                                  vi=(0.1, vi - 0.1), max_win=sheet.max_win + 1))
    result = check_expectations(game, estimate)
    assert [v.verdict for v in result.verdicts] == [MISSED] * 4 and not result.passed
    rtp, hit, volatility, max_win = result.verdicts
    assert "below the declared band" in rtp.evidence and "below" in hit.evidence and "above" in volatility.evidence
    assert "no round can pay it: the exact max win" in max_win.evidence
    smaller = check_expectations(declared(exact_section(sheet, max_win=sheet.max_win - 1)), estimate)
    assert smaller.verdicts[3].verdict == MISSED and "more than the declared max win" in smaller.verdicts[3].evidence


def test_a_simulated_figure_whose_interval_straddles_a_limit_is_not_shown(sheet, estimate):
    """The same figure with a 95 % interval (as a simulated one has): met when the whole interval is inside the band,
    missed when it is wholly outside, not shown when it reaches past a limit, with the precision that decides."""
    game = declared(exact_section(sheet))
    base = game.all_bet_modes["base"]

    def verdict(half: float, rtp: float) -> object:
        e = BetModeEstimate(base, estimate)
        e.rtp, e.rtp_ci95 = rtp, half
        return check_expectations(game, modes=[e]).verdicts[0]

    assert verdict(0.00005, sheet.rtp).verdict == MET
    assert verdict(0.00005, sheet.rtp + 0.001).verdict == MISSED
    shown = verdict(0.0002, sheet.rtp + 0.00005)
    assert shown.verdict == NOT_SHOWN and "--precision 0.0000" in shown.evidence
    assert shown.interval.count("%") == 2 and shown.method != "exact"


def test_a_game_without_the_section_has_nothing_to_check(estimate):
    result = check_expectations(load_game(ANY_BAR), estimate)
    assert result.verdicts == [] and result.passed and result.table().empty


# ---------------------------------------------------------------------------
# workbench check
# ---------------------------------------------------------------------------
def test_workbench_check_shows_the_expectations_and_fails_on_a_missed_one(tmp_path, sheet, capsys):
    met = tmp_path / "met.toml"
    met.write_text(ANY_BAR.read_text() + "\n" + exact_section(sheet))
    assert main(["check", str(met), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.index("Compliance of") < out.index("Expectations of") and "every declared figure met (4 declared)" in out
    missed = tmp_path / "missed.toml"
    missed.write_text(ANY_BAR.read_text() + "\n" + exact_section(sheet, rtp=sheet.rtp + 0.01))
    assert main(["check", str(missed), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "every check passed" in out  # the compliance checks pass: the exit status is the expectation's
    assert re.search(r"MISSED +RTP \(x its cost\): base game", out) and "1 declared figure(s) not met" in out
    assert main(["check", str(missed), "--quiet", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["passed"] and not data["expectations"]["passed"]
    assert [e["verdict"] for e in data["expectations"]["expectations"]] == [MISSED, MET, MET, MET]
    assert main(["check", str(ANY_BAR), "--quiet"]) == 0 and "Expectations" not in capsys.readouterr().out


# ---------------------------------------------------------------------------
# the editors
# ---------------------------------------------------------------------------
def test_the_editors_show_the_declared_rtp_and_hit_frequency_beside_the_exact_figures(tmp_path, sheet):
    from workbench.widgets import StripEditor

    path = tmp_path / "bar.toml"
    path.write_text(ANY_BAR.read_text() + "\n" + exact_section(sheet, hit=(0.9, 0.95)))
    editor = StripEditor(path)
    line = editor.rtp_label.value
    assert "Declared expectations (base game)" in line
    assert "data-figure='rtp' data-verdict='met'" in line and "data-figure='hit_frequency' data-verdict='missed'" in line
    assert f"{100 * sheet.rtp:.4f} % (exact)" in line


def test_a_game_with_features_says_its_expectations_need_the_simulation(sheet):
    game = load_game(reelsets_dir() / "super_10_stars.toml")
    assert game.expectation("base").rtp == 0.946  # the shipped design declares its published RTP
    s10 = par(game, full_cycle=False)
    [(figure, _, measured, verdict), (hit, _, hit_measured, hit_verdict)] = live_verdicts(game, s10, False)
    assert (figure, verdict, hit, hit_verdict) == ("rtp", NOT_SHOWN, "hit_frequency", NOT_SHOWN)
    assert "needs the simulation" in measured and "needs the simulation" in hit_measured
    [(_, _, measured, verdict), _] = live_verdicts(game, s10, False, (0.9461, 0.0005, False))
    assert verdict == MET and measured == "94.6100 % ± 0.0500 %"
    assert live_verdicts(game, s10, False, (0.9461, 0.0005, True))[0][3] == NOT_SHOWN  # stale: not judged


def test_the_gallery_and_shipped_declarations_are_met():
    """ways_free_spins declares the base game's RTP and hit frequency and the buy's RTP, Super 10 Stars its published
    94.60 %: each met at a coarse precision the tolerance allows."""
    game = load_game(WAYS_FREE)
    assert [e.mode for e in game.expectations] == ["base", "bonus_buy"]
    shipped = load_game(reelsets_dir() / "super_10_stars.toml")
    assert shipped.expectation("base").declared == ("rtp", "hit_frequency")
    result = check_expectations(shipped, estimate_rtp(shipped, precision=0.001, seed=75))
    assert result.passed, result.table().to_string()
