"""Replaying a simulated round and finding rounds (workbench.simulate.replay; ``workbench replay`` and ``find``).

A replayed round is what the run counted for it: per-round wins, components and counters replayed from the block
streams add up to the run's sums, whatever its workers or chunk size; ``find`` lists exactly the rounds a brute-force
pass over every round finds; the run's largest win is always replayable.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from hyp import examples
from randomgames import random_game_text
from test_consistency import TEMPLATES, _accepted_mutant
from workbench.cli import main
from workbench.errors import SimulationError
from workbench.io import example_games, load_game, loads_game, shipped_games
from workbench.simulate import simulate
from workbench.simulate.engine import round_model
from workbench.simulate.lanes import SIMULATE_BLOCK
from workbench.simulate.replay import RoundPlayer, _block_stream, find_rounds, replay_round
from workbench.simulate.trace import trace_round

GAMES = shipped_games() + example_games()


def _every_round(model, seed: int, rounds: int):
    """(wins, components, counters) of rounds 0 .. rounds - 1 of a run (all in block 0), played one at a time."""
    player = RoundPlayer(model, _block_stream(seed, 0))
    wins, comps, counts = [], [], []
    for _ in range(rounds):
        amounts, counters = player.play()
        wins.append(player.won)
        comps.append(amounts)
        counts.append(counters)
    player.check()
    return np.array(wins), np.array(comps), np.array(counts)


@pytest.mark.parametrize("name", GAMES)
def test_replayed_rounds_add_up_to_the_run_of_every_game(name):
    game = load_game(name)
    modes = [None] + [m for m in game.all_bet_modes if m != "base"][:1]
    for mode in modes:
        played = game if mode is None else game.in_bet_mode(mode)
        model = round_model(played)
        rounds = 10_000
        wins, comps, counts = _every_round(model, 11, rounds)
        run = simulate(played, rounds, 11, chunk_size=1_000)
        assert wins.sum() == run.raw.won, (name, mode)
        assert (comps.sum(axis=0) == run.raw.comp_sum).all(), (name, mode)
        assert (counts.sum(axis=0) == run.raw.counters).all(), (name, mode)
        assert wins.max() == run.max_win_units and (wins == wins.max()).sum() == run.max_win_count
        assert (wins > 0).sum() == run.raw.hits
        # replay_round of a few rounds (it plays the block's rounds before it, then the round) gives the same round
        for index in (0, 1, int(np.argmax(wins)), rounds - 1):
            again = replay_round(played, 11, index, model=model)
            assert again.win_units == wins[index]
            assert [again.components[c] for c in model.components] == comps[index].tolist()
            assert [again.counters[c] for c in model.counters] == counts[index].tolist()
        assert run.max_win_round.round == int(np.argmax(wins))  # the first round that paid the largest win
        if mode is None:  # two worker processes, jobs of another size: the same rounds
            pooled = simulate(played, rounds, 11, workers=2, chunk_size=2_048)
            assert wins.sum() == pooled.raw.won and (comps.sum(axis=0) == pooled.raw.comp_sum).all(), (name, "2 workers")
            assert (counts.sum(axis=0) == pooled.raw.counters).all() and pooled.raw.hits == run.raw.hits
            assert pooled.max_win_round.round == run.max_win_round.round


def _replays_the_run(game, seed: int = 7, rounds: int = 2_000) -> None:
    """Rounds played one at a time add up to the run's sums (any chunk size), and its largest win traces to its
    amounts (:func:`~workbench.simulate.trace.trace_round` refuses a trace that pays otherwise)."""
    model = round_model(game)
    wins, comps, counts = _every_round(model, seed, rounds)
    run = simulate(game, rounds, seed, chunk_size=700)
    assert wins.sum() == run.raw.won and (comps.sum(axis=0) == run.raw.comp_sum).all()
    assert (counts.sum(axis=0) == run.raw.counters).all() and (wins > 0).sum() == run.raw.hits
    top = run.max_win_round
    if wins.max() == 0:  # a game that paid nothing has no largest win to replay
        assert top is None
        return
    assert top.round == int(np.argmax(wins)) and top.win_units == wins.max()
    assert trace_round(model, top).amounts == top.components


@settings(max_examples=examples(6), deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=random_game_text())
def test_random_line_games_replay_to_the_runs_rounds(text):
    _replays_the_run(loads_game(text, "random_lines.toml"))


@pytest.mark.parametrize("path", [p for paths in TEMPLATES.values() for p in paths], ids=lambda p: p.stem)
def test_a_random_variant_of_every_game_replays_to_the_runs_rounds(path):
    """A mutant of each shipped and gallery game (two random edits of its file: tests/mutants.py), its base game and
    first bet mode."""
    game, what = _accepted_mutant([path], 11)
    for mode in list(game.all_bet_modes)[:2]:
        try:
            _replays_the_run(game.in_bet_mode(mode))
        except AssertionError as exc:
            raise AssertionError(f"{what} ({mode}): {exc}") from exc


def test_rounds_of_a_later_block_replay_and_the_max_win_round_is_found_there():
    game = load_game("examples/ways_243")
    spins = SIMULATE_BLOCK + 30_000
    run = simulate(game, spins, 9)
    top = run.max_win_round
    assert top.win_units == run.max_win_units
    again = replay_round(game, 9, top.round)
    assert again.win_units == run.max_win_units and again.rng_state == top.rng_state
    # the second block's rounds add up to the run minus the first block
    first = simulate(game, SIMULATE_BLOCK, 9)
    model = round_model(game)
    player = RoundPlayer(model, _block_stream(9, 1))
    second = 0
    for _ in range(30_000):
        player.play()
        second += player.won
    assert first.raw.won + second == run.raw.won
    assert replay_round(game, 9, SIMULATE_BLOCK + 7, model=model).round == SIMULATE_BLOCK + 7


@pytest.mark.parametrize("where", ["win >= 60", "free_spins:retriggers >= 1", "free_spins > 100",
                                   "win < 30 and free_spins:spins >= 10", "scatter:SCAT == 2"])
def test_find_lists_exactly_the_rounds_a_pass_over_every_round_finds(where):
    game = load_game("examples/ways_free_spins")
    model = round_model(game)
    rounds = 20_000
    wins, comps, counts = _every_round(model, 3, rounds)
    cost = 25  # pay units per total bet (asserted)
    assert int(model.params.cost_units) == cost

    def value(name, k):
        if name == "win":
            return wins[k] / cost
        if name in model.components:
            return comps[k][model.components.index(name)] / cost
        return counts[k][model.counters.index(name)]

    ops = {">=": np.greater_equal, ">": np.greater, "<": np.less, "==": np.equal}
    expected = []
    for k in range(rounds):
        ok = True
        for part in where.split(" and "):
            name, op, number = part.split()
            ok &= bool(ops[op](value(name, k), float(number)))
        if ok:
            expected.append(k)
    found = find_rounds(game, 3, rounds, where, limit=10_000)
    assert found.complete and found.searched == rounds
    assert [r.round for r in found.rounds] == expected
    assert expected, "the condition should match some rounds"
    for r in found.rounds[:3]:
        assert replay_round(game, 3, r.round, model=model).win_units == r.win_units


def test_find_lists_rounds_with_three_retriggers_and_each_replays_to_its_win(capsys):
    game = "examples/ways_free_spins"
    status = main(["find", game, "--seed", "2", "--spins", "2000000", "--where", "free_spins:retriggers >= 3",
                   "--json"])
    assert status == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["complete"] and len(listed["rounds"]) >= 3
    for r in listed["rounds"]:
        assert r["counters"]["free_spins:retriggers"] >= 3
        assert main(["replay", game, "--seed", "2", "--round", str(r["round"]), "--json"]) == 0
        again = json.loads(capsys.readouterr().out)
        assert again["win_units"] == r["win_units"] and again["counters"] == r["counters"]


def test_find_max_and_the_limit(capsys):
    game = load_game("super_10_stars")
    run = simulate(game, 100_000, 2)
    top = find_rounds(game, 2, 100_000, "max")
    assert [r.round for r in top.rounds] == [run.max_win_round.round]
    first = find_rounds(game, 2, 100_000, "win > 0", limit=5)
    assert len(first.rounds) == 5 and not first.complete and first.searched == first.rounds[-1].round + 1
    assert main(["simulate", "super_10_stars", "--spins", "100000", "--seed", "2", "--quiet"]) == 0
    assert f"max win round     {run.max_win_round.round:,}" in capsys.readouterr().out


def test_bad_conditions_and_arguments_are_refused_clearly(capsys):
    game = load_game("examples/ways_free_spins")
    for where, words in [("bogus >= 3", "is not 'win', a component"), ("win >> 3", "is not a condition"),
                         ("win >= x", "is not a condition")]:
        with pytest.raises(SimulationError, match=words):
            find_rounds(game, 1, 1_000, where)
    with pytest.raises(SimulationError, match="round must be a whole number"):
        replay_round(game, 1, -1)
    assert main(["find", "examples/ways_free_spins", "--where", "nothing > 1"]) == 2
    err = capsys.readouterr().err
    assert "nothing" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as stop:
        main(["replay", "examples/ways_free_spins", "--round", "-1"])
    assert stop.value.code == 2 and "--round: must be a whole number from 0" in capsys.readouterr().err
