"""The shipped games' key figures stay what they were (regression guard for refactors).

``tests/data/golden_numbers.json`` holds the figures that ``workbench par GAME
--json`` and ``workbench simulate GAME --spins 1000000 --seed 7 --workers 1
--json`` printed before the package was split into layers.  Exact values
(RTP fraction, cycle, max win, simulated RTP and max win: integer sums over
the rounds) must match to the last digit; the float moments within 1e-12.
A deliberate change of a game or an engine regenerates the file with
``regenerate()`` below, and the diff is reviewed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import cli

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_numbers.json"
FIGURES = json.loads(GOLDEN.read_text())["games"]


def _cli_json(capsys, *argv) -> dict:
    assert cli.main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("game", sorted(FIGURES))
def test_par_figures_are_unchanged(game, capsys):
    expected = FIGURES[game]["par"]
    got = _cli_json(capsys, "par", game, "--json")
    assert got["rtp_exact"] == expected["rtp_exact"]
    assert got["cycle"] == expected["cycle"]
    assert got["max_win"] == expected["max_win"]
    assert got["rtp"] == expected["rtp"]
    for key in ("hit_frequency", "std"):
        assert got[key] == pytest.approx(expected[key], rel=1e-12, abs=0), key


@pytest.mark.parametrize("game", sorted(FIGURES))
def test_simulated_figures_are_unchanged(game, capsys):
    expected = FIGURES[game]["simulate_1e6_seed7"]
    got = _cli_json(capsys, "simulate", game, "--spins", "1000000", "--seed", "7", "--workers", "1", "--json", "--quiet")
    assert got["rtp"] == expected["rtp"]
    assert got["max_win"] == expected["max_win"]


def regenerate() -> None:  # pragma: no cover - run by hand after a deliberate change
    import contextlib
    import io

    data = json.loads(GOLDEN.read_text())
    for game in data["games"]:
        for argv, key, fields in (
            (["par", game, "--json"], "par", ("rtp_exact", "rtp", "hit_frequency", "std", "max_win", "cycle")),
            (["simulate", game, "--spins", "1000000", "--seed", "7", "--workers", "1", "--json", "--quiet"],
             "simulate_1e6_seed7", ("rtp", "max_win")),
        ):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                cli.main(argv)
            got = json.loads(out.getvalue())
            data["games"][game][key] = {k: got[k] for k in fields}
    GOLDEN.write_text(json.dumps(data, indent=2) + "\n")
