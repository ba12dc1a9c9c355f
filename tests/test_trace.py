"""A replayed round step by step (workbench.simulate.trace; ``workbench replay --trace``).

The round is played again as Python (numba's JIT off) from the state it started from: its amounts and counters
must equal the compiled round's for every shipped and gallery game (else the trace is refused), and the screens it
records are screens of the game: each reel of a first spin is a window of one of its strips.
"""

from __future__ import annotations

import json

import pytest

from workbench.cli import main
from workbench.io import example_games, load_game, shipped_games
from workbench.reference.screens import window
from workbench.simulate import simulate
from workbench.simulate.engine import round_model
from workbench.simulate.replay import replay_round
from workbench.simulate.trace import trace_round

GAMES = shipped_games() + example_games()


@pytest.mark.parametrize("name", GAMES)
def test_a_traced_round_pays_what_the_compiled_round_paid(name):
    game = load_game(name)
    model = round_model(game)
    run = simulate(game, 5_000, 12)
    for replayed in (run.max_win_round, replay_round(game, 12, 17, model=model)):
        trace = trace_round(model, replayed)  # refused unless its amounts and counters are the compiled round's
        assert trace.amounts == replayed.components and trace.counters == replayed.counters
        if not trace.steps:
            continue
        last = trace.steps[-1]
        assert last.total_units == replayed.win_units
        assert all(a.total_units <= b.total_units or replayed.components.get("cap", 0) < 0
                   for a, b in zip(trace.steps, trace.steps[1:]))
        first = trace.steps[0]
        sets = [s for s in game.strip_sets.values() if s.mode == game.bet_mode.strip_sets]
        revealed = any(sym.kind == "mystery" for sym in game.symbols.values()) or any(s.wild_reels for s in sets)
        if first.made_by == "kernel.spin_windows" and len(first.screen) == game.reels and not revealed:
            # each reel shows a window of one of the base game's strips (of its own reel)
            for r, reel in enumerate(first.screen):
                assert any(window(s.reels[r].symbols, stop, len(reel)) == list(reel)
                           for s in sets for stop in range(len(s.reels[r].symbols))), (name, r, reel)


def test_replay_trace_on_the_command_line(capsys):
    args = ["replay", "super_10_stars", "--seed", "1", "--round", "2412178", "--trace"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "screens           9" in out and "step 9" in out and "total 300.5000 x total bet" in out
    assert main(args + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["steps"]) == 9 and data["steps"][-1]["total_units"] == data["win_units"]
    assert all(len(s["screen"]) == 5 and all(len(reel) == 3 for reel in s["screen"]) for s in data["steps"])
    # the counters once each screen was paid: the trigger on the first screen, every free spin by the last
    assert data["steps"][0]["counters"] == {"free_spins": 1} and data["steps"][-1]["counters"]["free_spins_played"] == 8
