"""A replayed round step by step (workbench.simulate.trace; ``workbench replay --trace``).

The round is played again as Python (numba's JIT off) from the state it started from: its amounts and counters
must equal the compiled round's for every shipped and gallery game (else the trace is refused), and the screens it
records are screens of the game: each reel of a first spin is a window of one of its strips.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from workbench.cli import main
from workbench.io import example_games, load_game, shipped_games
from workbench.pays.scale import pay_scale
from workbench.reference.features import drop_wins
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
        assert trace.steps, name  # every template's rounds have screens
        last = trace.steps[-1]
        assert last.total_units == replayed.win_units
        assert all(a.total_units <= b.total_units or replayed.components.get("cap", 0) < 0
                   for a, b in zip(trace.steps, trace.steps[1:]))
        first = trace.steps[0]
        sets = [s for s in game.strip_sets.values() if s.mode == game.bet_mode.strip_sets]
        revealed = any(sym.kind == "mystery" for sym in game.symbols.values()) or any(s.wild_reels for s in sets)
        spins = ("kernel.spin_windows", "ways.play_round", "anywhere.play_round", "free_spins.spin_ways")
        if first.made_by in spins and len(first.screen) == game.reels and not revealed:
            # each reel shows a window of one of the base game's strips (of its own reel)
            for r, reel in enumerate(first.screen):
                assert any(window(s.reels[r].symbols, stop, len(reel)) == list(reel)
                           for s in sets for stop in range(len(s.reels[r].symbols))), (name, r, reel)


@pytest.mark.parametrize("name", ["examples/ways_243", "examples/variable_ways_6reel", "examples/pay_anywhere_6x5"])
def test_the_screen_of_a_round_without_screens_pays_what_the_round_paid(name):
    """Ways and anywhere rounds keep no screen (a virtual stop is looked up in a table of outcomes): the screen the
    trace turns their draws back into pays, by the reference evaluator, what the compiled round paid by its rule."""
    game = load_game(name)
    model = round_model(game)
    scale = pay_scale(game)
    run = simulate(game, 5_000, 3)
    for replayed in (run.max_win_round, replay_round(game, 3, 40, model=model), replay_round(game, 3, 41, model=model)):
        (step,) = trace_round(model, replayed).steps
        pay, _ = drop_wins(game, [list(reel) for reel in step.screen])
        assert scale.units(pay) == replayed.components[game.pays.rule], (name, replayed.round, step.screen)


def test_every_free_spin_of_a_ways_feature_is_a_screen_with_the_running_total():
    """ways_free_spins (free spins x3): the trigger screen, then one screen per free spin, whose reference pays x 3
    add up to the feature's win; the running total after each spin includes the feature's win so far."""
    game = load_game("examples/ways_free_spins")
    model = round_model(game)
    scale = pay_scale(game)
    replayed = simulate(game, 5_000, 12).max_win_round
    trace = trace_round(model, replayed)
    assert replayed.components["free_spins"] > 0
    spins = replayed.counters["free_spins:spins"]
    assert len(trace.steps) == 1 + spins and {s.made_by for s in trace.steps} == {"free_spins.spin_ways"}
    free = game.in_strip_mode(game.features["free_spins_mode"])
    pays = [scale.units(drop_wins(free, [list(r) for r in s.screen])[0]) * game.features["multiplier"]
            for s in trace.steps[1:]]
    assert sum(pays) == replayed.components["free_spins"]
    base = trace.steps[0].total_units
    assert [s.total_units for s in trace.steps[1:]] == [base + sum(pays[: k + 1]) for k in range(spins)]


def test_a_table_wilds_drawn_multipliers_are_on_its_cells_and_pay_what_the_spin_paid():
    """ways_1024_free_wild_multipliers: each free spin's WILD draws its multiplier (2 or 3) as it lands; the trace
    puts it on the cell, and the reference ways pay of the screen with those multipliers is what the spin added."""
    from workbench.reference.pays import ways_wins

    game = load_game("examples/ways_1024_free_wild_multipliers")
    model = round_model(game)
    scale = pay_scale(game)
    top = simulate(game, 5_000, 12).max_win_round
    steps = trace_round(model, top).steps
    free = game.in_strip_mode(game.features["free_spins_mode"])
    assert any(st.multipliers for st in steps)
    spins_paid = 0
    for before, st in zip(steps, steps[1:]):
        shown = [list(reel) for reel in st.screen]
        cells = {(r, row): m for r, row, m in st.multipliers}
        assert all(shown[r][row] == "WILD" for r, row in cells) and set(cells.values()) <= {2, 3}
        assert {(r, row) for r in range(len(shown)) for row in range(len(shown[r])) if shown[r][row] == "WILD"} == set(cells)
        grid = [[cells.get((r, row), 1) for row in range(len(reel))] for r, reel in enumerate(shown)]
        pay = scale.units(sum((w.paid for w in ways_wins(free, shown, grid)), start=Fraction(0)))
        spins_paid += pay
        assert st.total_units - before.total_units == pay  # (no scatter pays in these free spins' screens)
    assert spins_paid == top.components["free_spins"]


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
    # each step's line wins by the reference evaluator: cells of the screen that show the win's symbols
    wins = [w for s in data["steps"] for w in s["wins"]]
    assert wins and all({s["screen"][r][row] for r, row in w["cells"]} == set(w["symbols"])
                        for s in data["steps"] for w in s["wins"])
    assert data["steps"][3]["wins"][0]["symbols"] == ["ORANGE"] and data["steps"][3]["wins"][0]["pay_before_multipliers_exact"] == "1/3"
