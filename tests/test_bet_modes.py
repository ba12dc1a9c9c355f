"""Bet modes declared in the file ([bet_modes.*]): ante with its own strips, feature buys; every mode's figures
x its own cost, end to end equal to exact + conditional, in the CLI; bad declarations named by file, line and key."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.simulate import estimate_bet_modes, estimate_rtp, round_model, simulate

COINS = "examples/hold_and_respin_coins"
FREE = "examples/ways_free_spins"


def test_in_bet_mode_plays_the_modes_strips():
    game = load_game(COINS)
    ante = game.in_bet_mode("ante")
    assert ante.bet_mode.cost == 1.25 and ante.bet_mode.strip_sets == "ante"
    assert [s.name for s in ante.strip_sets_for("base")] == ["ante"]
    assert [s.name for s in ante.strip_sets_for("base:main")] == ["base"]
    assert game.in_bet_mode("base").strip_sets_for("base") == game.strip_sets_for("base")
    with pytest.raises(KeyError, match="no bet mode 'turbo'"):
        game.in_bet_mode("turbo")


def test_every_mode_is_reported_x_its_own_cost():
    game = load_game(COINS)
    modes = {m.name: m for m in estimate_bet_modes(game, precision=0.004, seed=3)}
    assert list(modes) == ["base", "ante", "coin_buy", "wheel_buy", "prize_spins"]
    base, ante, buy = modes["base"], modes["ante"], modes["coin_buy"]
    assert base.cost == 1 and base.base_part == pytest.approx(par(game, full_cycle=False).rtp, rel=1e-12)
    # the ante's exact part: its own strips' first screen, divided by its price
    assert ante.base_part == pytest.approx(par(game.in_bet_mode("ante"), full_cycle=False).rtp / 1.25, rel=1e-12)
    # one unit everywhere: the mode's own estimate is x its cost already, as is every figure of the mode
    assert ante.estimate.unit == "x the cost of bet mode ante (1.25 x total bet)" and ante.unit == ante.estimate.unit
    assert ante.rtp == ante.estimate.rtp and ante.rtp_ci95 <= 0.004 + 1e-12
    ante_sheet = par(game.in_bet_mode("ante"), full_cycle=False)
    for name, part in ante_sheet.components.items():  # its exact first-screen parts, x its price
        assert ante.estimate.components[name].value == pytest.approx(part / 1.25, rel=1e-12)
    # a buy has no base spin: one stratum, probability 1, every round a feature
    model = round_model(game.in_bet_mode("coin_buy"))
    assert [(s.name, s.probability) for s in model.strata] == [("hold_and_respin:6 (bought)", 1)]
    assert buy.base_part == 0 and buy.hit_frequency == pytest.approx(1.0)
    assert buy.rtp == pytest.approx(buy.estimate.strata[0].mean_extra, rel=1e-12)
    # a prize mode plays the feature from an empty screen: its one state, some rounds land no coin at all
    prize = modes["prize_spins"]
    assert [s.name for s in prize.estimate.strata] == ["hold_and_respin:empty screen (prize mode)"]
    assert prize.base_part == 0 and 0.9 < prize.hit_frequency < 1.0
    for m in modes.values():
        assert 0.9 < m.rtp < 1.0 and m.volatility_index(0.90) == pytest.approx(1.6448536269514722 * m.std)


@pytest.mark.parametrize("name, mode", [(COINS, "ante"), (COINS, "coin_buy"), (COINS, "prize_spins"), (FREE, "bonus_buy")])
def test_end_to_end_in_each_mode_agrees_with_exact_plus_conditional(name, mode):
    game = load_game(name)
    played = game.in_bet_mode(mode)
    result = simulate(played, 300_000, seed=5)
    est = estimate_rtp(played, precision=0.003, seed=6)
    assert result.unit == est.unit and result.unit.startswith(f"x the cost of bet mode {mode}")
    assert 0.5 < result.rtp < 1.5  # x the mode's cost, not x the base bet
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp)
    if game.all_bet_modes[mode].buy:
        features = next(iter(result.features.values()))
        assert features.one_in == pytest.approx(1.0)  # every round is a bought feature


def test_workers_play_the_same_mode():
    """Worker processes rebuild the game from its text: they must play the same bet mode."""
    played = load_game(COINS).in_bet_mode("ante")
    one = estimate_rtp(played, precision=0.01, seed=7)
    two = estimate_rtp(played, precision=0.01, seed=7, workers=2)
    assert two.rtp == pytest.approx(one.rtp, rel=1e-12)


def test_cli_lists_every_mode():
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", FREE, "--precision", "0.004", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [m["mode"] for m in data["bet_modes"]] == ["base", "bonus_buy"]
    assert data["bet_modes"][1]["cost_x_total_bet"] == 31 and 0.9 < data["bet_modes"][1]["rtp"] < 1.0
    text = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", FREE, "--precision", "0.004", "--bet-mode", "bonus_buy"],
                          capture_output=True, text=True, timeout=300)
    assert text.returncode == 0 and "x the cost of bet mode bonus_buy (31 x total bet)" in text.stdout
    assert "bonus_buy" in text.stdout.split("bet modes")[1]
    bad = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", FREE, "--bet-mode", "turbo"], capture_output=True, text=True,
                         timeout=300)
    assert bad.returncode == 2 and "no bet mode 'turbo' (modes: base, bonus_buy)" in bad.stderr and "Traceback" not in bad.stderr


def _with(text: str, block: str) -> str:
    return text.rstrip() + "\n\n" + block + "\n"


@pytest.mark.parametrize("block, key, message", [
    ("[bet_modes.base]\ncost = 2", "bet_modes.base", "is the game itself"),
    ("[bet_modes.ante]\ncost = 0", "bet_modes.ante.cost", "must be greater than 0"),
    ("[bet_modes.ante]\nstrip_sets = \"base\"", "bet_modes.ante", "missing required"),
    ("[bet_modes.ante]\ncost = 1.25\nstrip_sets = \"turbo\"", "bet_modes.ante.strip_sets", "no strip set has mode 'turbo'"),
    ("[bet_modes.buy]\ncost = 50\nbuy = true", "bet_modes.buy", "needs buy_count"),
    ("[bet_modes.buy]\ncost = 50\nbuy_count = 3", "bet_modes.buy.buy_count", "needs buy = true"),
    ("[bet_modes.buy]\ncost = 50\nbuy = true\nbuy_count = 2", "bet_modes.buy.buy_count", "below the trigger's min_count (3)"),
    ("[bet_modes.buy]\ncost = 50\nbuy = true\nbuy_count = 3\nstrip_sets = \"free_spins\"", "bet_modes.buy.strip_sets",
     "plays no base spin"),
    ("[bet_modes.ante]\ncost = 1.25\nboost = 2", "bet_modes.ante", "unknown key 'boost'"),
])
def test_bad_bet_modes_name_file_line_and_key(block, key, message):
    text = _with((reelsets_dir() / "examples" / "ways_free_spins.toml").read_text(), block)
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "modes.toml")
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "modes.toml"
               for p in info.value.problems), info.value.problems


def test_a_game_without_a_feature_cannot_be_bought():
    text = _with((reelsets_dir() / "examples" / "ways_243.toml").read_text(), "[bet_modes.buy]\ncost = 50\nbuy = true\nbuy_count = 3")
    with pytest.raises(ReelsetError, match="has no feature to buy"):
        loads_game(text, "modes.toml")


def test_shipped_games_with_their_own_rounds_refuse_bet_modes():
    text = _with((reelsets_dir() / "super_10_stars.toml").read_text(), "[bet_modes.ante]\ncost = 1.25")
    with pytest.raises(ReelsetError, match="plays its own rounds"):
        loads_game(text, "modes.toml")


def test_modes_far_from_the_base_game_are_flagged_in_the_report_and_the_editors(tmp_path):
    """Operators and RGSs expect every bet mode within a narrow band of one RTP: the report's bet-mode table gives
    each mode's gap to the base game in points and flags it outside MODE_RTP_BAND (0.5 points); so do the editors."""
    import re as _re

    from workbench.report.tables import bet_modes_table
    from workbench.simulate.results import MODE_RTP_BAND, mode_gap
    from workbench.widgets import StripEditor

    path = tmp_path / "coins.toml"
    text = (reelsets_dir() / "examples" / "hold_and_respin_coins.toml").read_text()
    assert text.count("\ncost = 27\n") == 1
    path.write_text(text.replace("\ncost = 27\n", "\ncost = 25\n"))  # the buy 8 % cheaper: its RTP 8 % higher
    game = load_game(str(path))
    modes = estimate_bet_modes(game, precision=0.01, seed=3)
    table = bet_modes_table(modes)
    base = modes[0].rtp
    assert table.loc["base", "against the base game"] == "-"
    flagged = 0
    for m in modes[1:]:
        gap, outside = mode_gap(m.rtp, base)
        cell = table.loc[m.name, "against the base game"]
        assert cell.startswith(f"{100 * gap:+.2f} points") and ("outside the ±0.5 band" in cell) == outside
        flagged += outside
    assert MODE_RTP_BAND == 0.005 and flagged >= 1  # the cheaper coin buy sits far above the base game
    editor = StripEditor(path)
    text = _re.sub("<[^>]+>", "", editor.rtp_label.value)
    assert "against the base game" in text
    assert "coin_buy" in text and "outside the ±0.5 band" in text and "wb-mode-gap" in editor.rtp_label.value
