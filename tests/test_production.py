"""The production-size gallery (reelsets/production/, 200-600-stop strips): every game is priced by `workbench par`
(the RTP exact, as a fraction, the hit frequency, std and volatility index exact, the max win exact or bounded; a
figure the exact engine leaves out simulated and labelled so), the exact
first screen agrees with a seeded simulation of its screens within 4 standard errors, and the strips are what the
seeded generator beside them writes."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from workbench import load_game
from workbench.cli import main as cli_main
from workbench.simulate import simulate
from workbench.simulate import complete_par
from workbench.simulate.screens import screen_game

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = ROOT / "reelsets" / "production"
GAMES = sorted(PRODUCTION.glob("*.toml"))
SCREENS = 1 << 20  # screens simulated per game in CI (benchmarks/bench_production.py --agreement runs 10^8)


def test_the_gallery_has_the_production_games_of_the_issue():
    stops = {}
    for path in GAMES:
        game = load_game(path)
        stops[path.name] = (game.pays.rule, game.reels, max(game.rows),
                            min(len(s.symbols) for s in game.strip_sets_for("base")[0].reels))
    assert len(GAMES) >= 6
    assert ("lines", 5, 5, 600) in stops.values() and ("cluster", 7, 7, 250) in stops.values()
    assert all(n >= 200 for *_, n in stops.values())


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_par_prices_the_game_and_labels_every_figure(path, capsys):
    assert cli_main(["par", str(path), "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    rtp = Fraction(sheet["rtp_exact"])
    assert 0 < rtp < 2 and math.isclose(float(rtp), sheet["rtp"], rel_tol=1e-12)
    figures = sheet["figures"]
    # every production game: the RTP, hit frequency, std and volatility index exact; the max win exact or bounded
    assert all(figures[key]["source"] == "exact" for key in ("rtp", "hit_frequency", "std", "volatility_index_90"))
    assert sheet["max_win_exact"] or figures["max_win_upper"]["value"] > 0
    for key in ("hit_frequency", "std", "volatility_index_90", "max_win"):
        source = figures[key]["source"]
        assert source == "exact" or source.startswith("simulated ("), (key, source)
        assert (key.split("_9")[0] in sheet["missing"] or key == "volatility_index_90" and "std" in sheet["missing"]) \
            == (source != "exact")
        if source.startswith("simulated") and key != "max_win":
            assert figures[key]["ci95"] > 0 and "simulated (" in figures[key]["unit"]
    if not sheet["max_win_exact"]:
        assert figures["max_win_upper"]["value"] >= figures["max_win"]["value"]


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_exact_first_screen_agrees_with_a_simulation_of_its_screens(path):
    game = load_game(path)
    sheet = complete_par(game, full_cycle=False, rounds=1 << 18)
    sim = simulate(screen_game(game), SCREENS, 11)
    se = sim.rtp_ci95 / 1.96
    assert abs(sim.rtp - sheet.rtp) <= 4 * se, (sim.rtp, sheet.rtp, se)
    if sheet.source("hit_frequency") == "exact":
        p = sheet.hit_frequency
        assert abs(sim.hit_frequency - p) <= 4 * math.sqrt(p * (1 - p) / SCREENS)
    if sheet.source("std") == "exact":  # the std's standard error is not measured here: 5 % of it
        assert math.isclose(sim.std, sheet.std, rel_tol=0.05)
    assert sim.max_win <= (sheet.max_win_upper if not sheet.max_win_exact else sheet.max_win) + 1e-9


def test_the_strips_are_what_the_generator_writes(tmp_path):
    sys.path.insert(0, str(PRODUCTION))
    try:
        import make_production
    finally:
        sys.path.remove(str(PRODUCTION))

    def body(text):  # the header comment carries the measured RTP; the rest must be identical
        return [ln for ln in text.splitlines() if not ln.startswith("#")]

    for spec in make_production.SPECS:
        written = make_production.write(spec, folder=tmp_path)
        assert body(written.read_text()) == body((PRODUCTION / spec.out).read_text()), spec.out


def test_the_screens_game_of_every_game_and_mode_is_a_file_workers_rebuild_alike():
    """simulate.screens.screen_game is written as a file (workers rebuild a game from its text): every shipped,
    gallery and production game and mode gives one that loads, plays the classic template, and a run on two
    worker processes gives what one gives."""
    from workbench.io import example_games, shipped_games

    for path in [*shipped_games(), *example_games(), *GAMES]:
        game = load_game(path)
        for mode in game.modes:
            screens = screen_game(game, mode)
            assert screens.game_module == "classic" and screens.modes == ("base",)
            assert len(screens.strip_sets) == len(game.strip_sets_for(mode))
    screens = screen_game(load_game(PRODUCTION / "cluster_tumble_7x7_250.toml"))
    one, two = simulate(screens, 1 << 19, 5), simulate(screens, 1 << 19, 5, workers=2)
    assert (one.rtp, one.std, one.hit_frequency, one.max_win) == (two.rtp, two.std, two.hit_frequency, two.max_win)


def test_validate_warns_which_figures_are_simulated_and_the_others_lint_clean(capsys):
    for path in GAMES:
        sheet = complete_par(load_game(path), full_cycle=False, rounds=1 << 16)
        code = cli_main(["validate", str(path)])
        out = capsys.readouterr().out
        assert code == 0
        if sheet.missing:
            assert "warning: not exact:" in out and "simulated from the game's screens" in out, out
        else:
            assert out.strip().endswith(": ok"), out
