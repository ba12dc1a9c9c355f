"""Robustness of the whole-game commands: what ``workbench validate`` accepts, every command runs.

- A corpus of seeded structure-aware mutants of every shipped and gallery file (tests/mutants.py, 1-3 changes
  each; tests/mutant_corpus.py) goes through validate, and every mutant it accepts through ``par``, a short
  ``simulate`` and a short ``estimate_rtp``, each time-boxed: no crash, no refusal (a refusal of an accepted
  file is a check validate lacks), no run past its box by more than 10 % + 1 s, no absurd figure (an RTP or max
  win beyond the proven bound of a round, negative or not finite), simulate and rtp within 5 combined standard
  errors.  benchmarks/bench_mutants.py runs thousands the same way.
- The files of the review: free spins with multiplier 10,000 and max_free_spins 10,000 (their bound is proven,
  their sums fit, or validate refuses them naming the key), hold and respin with amounts the pay unit cannot hold;
  the refusals validate now makes (same message, with file, line and key); the run-time checks of the sums.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import numpy as np
import pytest

from mutant_corpus import case_spec, played_mode, run_case, within_box
from workbench.errors import ReelsetError, SimulationError
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.lints import check_file
from workbench.simulate import estimate_rtp, round_model, simulate
from workbench.simulate.agreement import agreement
from workbench.simulate.chunks import INT64_MAX, ROUND_UNITS_MAX, add_checked, chunk_rounds

#: mutants of the CI corpus (every file in turn, 1-3 changes): about 2 minutes on 2 shared cores
CORPUS = 240


def _text(name: str) -> str:
    return (reelsets_dir() / f"{name}.toml").read_text(encoding="utf-8")


def _sub(text: str, pattern: str, replacement: str) -> str:
    new, n = re.subn(pattern, replacement, text, count=1, flags=re.M)
    assert n, f"pattern {pattern!r} not found"
    return new


def _line(text: str, needle: str) -> int:
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


def _problems(tmp_path: Path, text: str, name: str = "game.toml") -> list:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return check_file(path)


def _errors(tmp_path: Path, text: str, name: str = "game.toml") -> list:
    return [p for p in _problems(tmp_path, text, name) if not p.is_warning]


# ---------------------------------------------------------------------------
# the corpus
# ---------------------------------------------------------------------------
SHARDS = 2  # the corpus in two halves (each every file several times, every mode in turn), one per test process


@pytest.mark.slow  # about 2 minutes in all: `pytest -m 'not slow'` for a quick run
@pytest.mark.parametrize("shard", range(SHARDS))
def test_a_corpus_of_mutants_validate_accepts_runs_every_command(shard, tmp_path):
    size = CORPUS // SHARDS
    results = [run_case(case, tmp_path) for case in range(shard * size, (shard + 1) * size)]
    accepted = [r for r in results if r.accepted]
    failures = [text for r in results for kind, text in r.findings]
    assert not failures, "\n".join(failures[:20])
    # the mutator is neither too gentle nor too rough: most mutants validate, some do not
    assert size * 0.6 < len(accepted) < size, len(accepted)
    # every file was played (every bet mode: the test below)
    assert len({r.file for r in accepted}) == len({r.file for r in results})


def test_every_bet_mode_of_a_file_with_several_is_played_by_the_corpus(tmp_path):
    """Across the whole corpus (both halves above), an accepted mutant of hold_and_respin_coins plays each of its
    bet modes: its mutants validated alone, each accepted one's mode as the corpus picks it."""
    cases = [c for c in range(CORPUS) if case_spec(c)[0].stem == "hold_and_respin_coins"]
    played = set()
    for case in cases:
        if run_case(case, tmp_path, commands=False).accepted:
            game = load_game(str(tmp_path / f"hold_and_respin_coins_case{case}.toml"))
            played.add(played_mode(case, list(game.all_bet_modes)))
    assert played == {"base", "ante", "coin_buy", "wheel_buy", "prize_spins"}


# ---------------------------------------------------------------------------
# no silent overflow: the files of the review
# ---------------------------------------------------------------------------
def _huge_free_spins(name: str) -> str:
    text = _text(name)
    if "max_free_spins = " in text:
        text = _sub(text, r"^max_free_spins = \d+", "max_free_spins = 10000")
    if re.search(r"^multiplier = \d+", text, flags=re.M):
        return _sub(text, r"^multiplier = \d+", "multiplier = 10000")
    return _sub(text, r"^free_spins_mode = (.*)$", r"free_spins_mode = \1\nmultiplier = 10000")


@pytest.mark.parametrize("name", ["examples/ways_free_spins", "examples/sticky_wilds_ante"])
def test_free_spins_at_multiplier_and_spins_10000_have_a_proven_bound(name, tmp_path):
    """Valid: the bound (largest screen x 10,000 spins x 10,000) fits; the simulator adds at most
    INT64_MAX // bound rounds per compiled call, so no sum wraps: RTP and max win stay within the bound."""
    text = _huge_free_spins(name)
    assert not _errors(tmp_path, text)
    game = loads_game(text, "huge.toml")
    model = round_model(game)
    assert 0 < model.max_round_units <= ROUND_UNITS_MAX
    assert chunk_rounds(model) == INT64_MAX // model.max_round_units
    result = simulate(game, 4_000, 7)
    cost = model.params.cost_units
    assert math.isfinite(result.rtp) and 0 <= result.rtp <= model.max_round_units / cost
    assert 0 <= result.max_win <= model.max_round_units / cost


def test_a_round_bound_the_sums_cannot_hold_is_refused_naming_the_key(tmp_path):
    """A 243-ways game paying 1,000,000 x line bet, x 10,000 over 10,000 free spins: a round could pay 2.4e16 pay
    units; validate refuses it at features.multiplier (the larger factor), and simulate with the same words."""
    text = _sub(_text("examples/ways_free_spins"), r"^max_free_spins = \d+", "max_free_spins = 5000")
    text = _sub(text, r"^multiplier = \d+", "multiplier = 10000")
    text = _sub(text, r"^(LION = \{.*)5 = (\d+)", r"\g<1>5 = 1000000")
    errors = _errors(tmp_path, text)
    assert len(errors) == 1, [str(p) for p in errors]
    problem = errors[0]
    assert problem.key == "features.multiplier" and problem.line == _line(text, "multiplier = 10000")
    assert "one round could pay up to" in problem.message and "lower features.multiplier" in problem.message
    with pytest.raises(SimulationError) as info:
        simulate(loads_game(text, "game.toml"), 10, 1)
    assert problem.message.split(":")[0] in str(info.value)


@pytest.mark.parametrize("value, top_pay", [("999999.123456789", None), ("0.000000000001", 1_000_000_000)])
def test_hold_and_respin_amounts_the_pay_unit_cannot_hold_are_refused_by_the_schema(value, top_pay, tmp_path):
    """A coin value with 9 decimals needs a pay unit of 1/50,000,000 credit: simulate said "line pays too large
    for the simulator's packed tables"; with 12 decimals and a pay of 1,000,000,000 x line bet, par traced back
    (OverflowError: Python int too large to convert to C long) and simulate said "cannot build the game
    (OverflowError ...)".  Now the file is refused when it is read, so every command refuses it as validate
    does, naming the value."""
    text = _sub(_text("examples/hold_and_respin_coins"), r"\{ value = 25, weight = 15 \}",
                f"{{ value = {value}, weight = 15 }}")
    if top_pay:
        text = _sub(text, r"^(SEVEN = \{.*5 = )\d+", rf"\g<1>{top_pay}")
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["tables.coin_values.entries[5].value"], [str(p) for p in errors]
    assert errors[0].line == _line(text, value) and "pay unit" in errors[0].message
    with pytest.raises(ReelsetError):
        loads_game(text, "game.toml")


def test_hold_and_respin_with_the_largest_coins_and_jackpots_stays_within_its_bound(tmp_path):
    """Coins of 1,000,000 x total bet, collectors, x10,000 multiplier coins and 1,000,000 x jackpots: valid (every
    amount is whole pay units that fit, and a round's bound, 15 cells of collected and multiplied coins, fits the
    sums); simulate and rtp report finite figures within that bound, and agree."""
    text = _text("examples/hold_and_respin_coins")
    text = _sub(text, r"\{ value = 25, weight = 15 \}", "{ value = 1000000, weight = 15 }, { collector = true, weight = 5 }, "
                                                         "{ multiplier = 10000, weight = 1 }")
    for jackpot in ("major", "grand"):
        text = _sub(text, rf"^{jackpot} = \d+", f"{jackpot} = 1000000")
    assert not _errors(tmp_path, text)
    game = loads_game(text, "game.toml")
    model = round_model(game)
    assert 10**13 < model.max_round_units <= ROUND_UNITS_MAX
    sim = simulate(game, 20_000, 8)
    est = estimate_rtp(game, 0.05, 9, max_seconds=3)
    bound = model.max_round_units / model.params.cost_units
    for result in (sim, est):
        assert math.isfinite(result.rtp) and 0 < result.rtp <= bound and result.max_win <= bound
    assert agreement(sim, est).within(5)


# ---------------------------------------------------------------------------
# refusals of the commands that validate now makes
# ---------------------------------------------------------------------------
def test_a_max_win_below_one_pay_unit_is_refused_where_it_is_given(tmp_path):
    text = _sub(_text("classic_tens"), r"^\[bet\]$", "[bet]\nmax_win = 0.01")
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["bet.max_win"] and errors[0].line == _line(text, "max_win = 0.01")
    with pytest.raises(SimulationError) as info:
        simulate(loads_game(text, "game.toml"), 10, 1)
    assert str(info.value) == errors[0].message  # the same message


def test_a_bet_mode_max_win_below_one_pay_unit_names_the_mode(tmp_path):
    text = _sub(_text("examples/sticky_wilds_ante"), r"^strip_sets = \"ante\"$", 'strip_sets = "ante"\nmax_win = 0.001')
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["bet_modes.ante.max_win"], [str(p) for p in errors]
    assert "below one pay unit" in errors[0].message


def test_line_pays_too_large_for_the_packed_tables_are_refused_at_the_multiplier(tmp_path):
    text = _sub(_text("examples/multiplier_wild_lines"), r"multiplier = 2, reels", "multiplier = 30, reels")
    errors = _errors(tmp_path, text)
    assert errors and errors[0].key == "symbols.WILD.multiplier", [str(p) for p in errors]
    assert "packed tables" in errors[0].message
    with pytest.raises(SimulationError, match="packed tables"):
        simulate(loads_game(text, "game.toml"), 10, 1)


def test_a_free_spins_round_refuses_table_wilds_beside_sticky_wilds_when_the_file_is_read(tmp_path):
    text = _sub(_text("examples/sticky_wilds_ante"), r"^(WILD = \{ kind = \"wild\")", r'\1, multiplier = "wild_x"')
    text += '\n[tables.wild_x]\nentries = [{ multiplier = 2, weight = 1 }, { multiplier = 3, weight = 1 }]\n'
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["features.free_spins_wilds"], [str(p) for p in errors]
    assert "drawn per landing" in errors[0].message
    # without the sticky wilds the free-spins round plays them
    text = _sub(text, r'^free_spins_wilds = "sticky".*$', "")
    assert _errors(tmp_path, _sub(text, r'^wild_symbol = "WILD"$', "")) == []


def test_a_bound_made_large_by_wild_multipliers_names_the_multiplier(tmp_path):
    text = _sub(_text("examples/multiplier_wild_lines"), r"multiplier = 2, reels", "multiplier = 1000, reels")
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["symbols.WILD.multiplier"], [str(p) for p in errors]
    assert "one round could pay up to" in errors[0].message


def test_a_virtual_reel_too_long_for_the_simulator_is_refused_at_its_strip(tmp_path):
    text = _text("classic_tens")
    strip = re.search(r'^reel2 = "(.*)"$', text, flags=re.M).group(1)
    heavy = " ".join(f"{s}:200000" for s in strip.split())
    text = _sub(text, r'^reel2 = ".*"$', f'reel2 = "{heavy}"')
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["strip_sets.base.reel2"], [str(p) for p in errors]
    assert "virtual reels" in errors[0].message


def test_an_exact_budget_is_a_warning_and_rtp_simulates_the_first_screen_too(tmp_path):
    """par refuses a 7x7 game of 1,024 lines over a budget (line pairs); the file is valid (a warning says so) and
    the estimate plays every round end to end, its first screen simulated with the rest."""
    from test_bounded_work import game_text

    text = game_text(reels=7, rows=7, n_lines=1024, n_regular=25, stops=50)
    problems = _problems(tmp_path, text)
    assert not [p for p in problems if not p.is_warning], [str(p) for p in problems if not p.is_warning]
    assert any("over the budget" in p.message and "end to end" in p.message for p in problems if p.is_warning)
    game = loads_game(text, "game.toml")
    est = estimate_rtp(game, 0.05, 3, max_seconds=20)
    assert "simulated too" in est.plan and est.components["lines"].source == "simulated"
    assert 0 < est.rtp_ci95 <= 0.05  # the spread of whole rounds, not of nothing (every round is its first screen)
    sim = simulate(game, 20_000, 4)
    assert agreement(sim, est).within(5)


def test_a_declared_stake_that_overfeeds_a_jackpot_is_refused_at_the_stakes(tmp_path):
    text = _sub(_text("bier_haus_oktober_fest"), r"^stakes = \[(.*)\]", r"stakes = [\1, 5000000.0]")
    errors = _errors(tmp_path, text)
    assert [p.key for p in errors] == ["bet.stakes"], [str(p) for p in errors]
    assert "too large for the jackpot tier" in errors[0].message


def test_bier_haus_without_max_win_has_no_bound_and_is_warned_of(tmp_path):
    text = _sub(_text("bier_haus_oktober_fest"), r"^max_win = \d+", "max_win = 0")
    problems = _problems(tmp_path, text)
    assert not [p for p in problems if not p.is_warning], [str(p) for p in problems if not p.is_warning]
    warning = next(p for p in problems if p.key == "features.max_win" and "no bound" in p.message)
    assert warning.line == _line(text, "max_win = 0")
    assert round_model(loads_game(text, "game.toml")).max_round_units == 0  # the run-time checks only


@pytest.mark.parametrize("name", ["classic_tens", "super_10_stars", "bier_haus_oktober_fest",
                                  *[f"examples/{p.stem}" for p in sorted((reelsets_dir() / "examples").glob("*.toml"))]])
def test_every_shipped_and_gallery_file_has_a_proven_bound_that_holds(name):
    game = load_game(name)
    for mode in game.all_bet_modes:
        model = round_model(game.in_bet_mode(mode))
        assert 0 < model.max_round_units <= ROUND_UNITS_MAX, (name, mode)
        result = simulate(game.in_bet_mode(mode), 20_000, 11)  # the run checks every chunk against the bound
        assert result.max_win * model.params.cost_units * float(model.game.bet_mode.cost) <= model.max_round_units


# ---------------------------------------------------------------------------
# run-time checks
# ---------------------------------------------------------------------------
def test_a_sum_that_would_wrap_around_stops_the_run():
    total = np.array([INT64_MAX - 5, 10], dtype=np.int64)
    with pytest.raises(SimulationError, match="left 64-bit integers"):
        add_checked(total, np.array([6, 1], dtype=np.int64))
    add_checked(total, np.array([5, -11], dtype=np.int64))
    assert total.tolist() == [INT64_MAX, -1]


def test_a_round_above_its_proven_bound_stops_the_run():
    from dataclasses import replace

    from workbench.simulate.chunks import play_chunk
    from workbench.simulate.rng import STREAM_ROUNDS, chunk_state

    model = round_model(load_game("classic_tens"))
    doctored = replace(model, max_round_units=5)  # a bound the game's wins pass
    with pytest.raises(SimulationError, match="above the 5 its round template proves"):
        play_chunk(doctored, chunk_state(1, 0, STREAM_ROUNDS), 10_000)


def test_rounds_with_a_large_bound_are_summed_in_parts_bit_for_bit():
    from dataclasses import replace

    from workbench.simulate.chunks import play_chunk
    from workbench.simulate.rng import STREAM_ROUNDS, chunk_state

    model = round_model(load_game("examples/pay_anywhere_tumble"))
    assert chunk_rounds(model) < 1 << 16  # persistent bombs over 100 free spins of up to 1,001 drops
    whole = play_chunk(replace(model, max_round_units=0), chunk_state(3, 0, STREAM_ROUNDS), 1 << 17)
    parts = play_chunk(model, chunk_state(3, 0, STREAM_ROUNDS), 1 << 17)
    for field in whole.FIELDS:
        assert np.array_equal(getattr(whole, field), getattr(parts, field)), field


# ---------------------------------------------------------------------------
# time boxes and figures of a short estimate
# ---------------------------------------------------------------------------
def test_the_time_box_covers_the_full_cycle_a_cap_needs():
    """Super 10 Stars with max_win 100: the first screen's cut needs the full cycle (763,154,784 window
    combinations, 3.5 s); a 4 s box leaves it no time, so the estimate plays every round end to end instead of
    overrunning its box (it took 5.1 s of a 3 s box before)."""
    game = loads_game(_sub(_text("super_10_stars"), r"^\[bet\]$", "[bet]\nmax_win = 100"), "s10_cap.toml")
    start = time.monotonic()
    est = estimate_rtp(game, 0.001, 5, max_seconds=4)
    assert within_box(time.monotonic() - start, 4) and "end to end" in est.plan


def test_a_state_the_time_box_left_unplayed_makes_its_components_unknown():
    est = estimate_rtp(load_game("examples/ways_free_spins"), 0.0001, 6, max_seconds=0.001)
    assert est.rtp_ci95 == math.inf and est.components["free_spins"].ci95 == math.inf
