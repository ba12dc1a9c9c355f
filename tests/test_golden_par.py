"""Every shipped and gallery game's exact figures stay what they were (a regression guard for refactors).

``tests/data/golden_par.json`` holds, per game and per strip-set mode of its bet modes, ``par(game,
full_cycle=False).to_dict()`` and a digest of its combination, scatter-pay and trigger tables, taken before the
structure refactor (pay rules as objects, modules by concern).  Exact values (RTP fraction, cycle, hit counts)
must match to the last digit, float moments within 1e-12.  A deliberate change of a game or of the exact engine
regenerates the file (``python tests/test_golden_par.py``) and the diff is reviewed.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from workbench.exact import par
from workbench.io import example_games, load_game, shipped_games

GOLDEN = Path(__file__).resolve().parent / "data" / "golden_par.json"


def _digest(frame) -> str:
    """SHA-256 of a table's exact content (column names and values as text, floats to 12 significant digits)."""
    def cell(v):
        if isinstance(v, float):
            return "nan" if math.isnan(v) else f"{v:.12g}"
        return str(v)
    rows = [",".join(map(str, frame.columns))] + [",".join(cell(v) for v in row) for row in frame.itertuples(index=False)]
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def figures(name: str) -> dict:
    """Per bet mode with a first screen: the PAR summary and the digests of its tables."""
    game = load_game(name)
    out = {}
    for mode_name, mode in game.all_bet_modes.items():
        if mode.buy:
            continue
        sheet = par(game.in_bet_mode(mode_name), full_cycle=False)
        out[mode_name] = {"summary": sheet.to_dict(),
                          "combinations": _digest(sheet.combinations), "scatter_pays": _digest(sheet.scatter_pays),
                          "triggers": _digest(sheet.triggers)}
    return out


NAMES = shipped_games() + example_games()


@pytest.mark.parametrize("name", NAMES)
def test_exact_figures_are_unchanged(name):
    expected = json.loads(GOLDEN.read_text())[name]
    got = json.loads(json.dumps(figures(name)))  # as stored: JSON types
    assert set(got) == set(expected)
    for mode, want in expected.items():
        have = got[mode]
        for table in ("combinations", "scatter_pays", "triggers"):
            assert have[table] == want[table], (mode, table)
        for key, value in want["summary"].items():
            if key in ("rtp", "max_win"):
                assert have["summary"][key] == value, (mode, key)
            else:
                _assert_same(have["summary"][key], value, (mode, key))


def _assert_same(have, want, where: tuple) -> None:
    """``have`` equals ``want``, nested dicts and lists alike, floats (moments) within 1e-12: their last digit may
    follow the order of a float sum."""
    if isinstance(want, dict):
        assert isinstance(have, dict) and set(have) == set(want), where
        for key, value in want.items():
            _assert_same(have[key], value, where + (key,))
    elif isinstance(want, list):
        assert isinstance(have, list) and len(have) == len(want), where
        for i, (h, w) in enumerate(zip(have, want)):
            _assert_same(h, w, where + (i,))
    elif isinstance(want, float):
        assert have == pytest.approx(want, rel=1e-12, abs=1e-15), where
    else:
        assert have == want, where


if __name__ == "__main__":  # regenerate after a deliberate change, then review the diff
    GOLDEN.write_text(json.dumps({name: figures(name) for name in NAMES}, indent=1, sort_keys=True) + "\n")
