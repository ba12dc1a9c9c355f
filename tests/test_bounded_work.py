"""Bounded work: hostile but valid games end quickly, finished or refused with a message.

Each case builds a game the validator may accept (reelset text edited the way
``tests/test_reelsets.py`` rewrites strips, or a strip edited in memory the way
the strip editor does) and runs the PAR sheet and a short simulation.  Every
case must end within :data:`LIMIT` seconds and raise nothing but a
:class:`~workbench.errors.WorkbenchError`: a :class:`ReelsetError` at load, an
:class:`ExactBudgetError` / :class:`SimulationError` naming what is too large,
or a result (degraded results say why in ``sheet.notes``).  A hang, a
``MemoryError`` or any other exception fails the test.

The budget checks themselves are tested branch by branch on a shipped game
with each limit lowered (each refusal must name the part, its size and the
limit), and the cheaper answers are checked against the exact ones: a max-win
search stopped early brackets the true maximum, fewer prefix reels pay the
same, a full cycle left out is noted in the sheet and the report.
"""

from __future__ import annotations

import math
import random
import re
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

from workbench.errors import ExactBudgetError, ReelsetError, SimulationError, WorkbenchError
from workbench.exact import par
from workbench.io import load_game, loads_game, reelsets_dir

LIMIT = 10.0  # seconds per case
CLASSIC = (reelsets_dir() / "classic_tens.toml").read_text()
CLASSIC_SYMBOLS = ["WILD", "SCAT", "SEVEN", "BAR", "BELL", "MELON", "GRAPES", "PLUM", "LEMON", "CHERRY"]
PAR_MODULE = sys.modules["workbench.exact.par"]  # the package re-exports the function under the same name


@pytest.fixture(scope="module", autouse=True)
def warm():
    """Load (or compile) the exact engine and the classic round before any case is timed: the classic game's full
    cycle, and the paths a cycle over the budget takes (moments without enumeration, the bounded max-win search),
    which on an empty numba cache compile on first use (a fresh clone's CI once spent 10 s of a case's box there)."""
    from workbench.simulate import simulate

    game = load_game("classic_tens")
    par(game)
    simulate(game, 1000, 1)
    par(loads_game(with_weights(game_text(reels=10, rows=3, n_lines=20, stops=300), 50_000), "warm.toml"))


def bounded(fn, limit: float = LIMIT):
    """Run ``fn``: (outcome, value, seconds); outcome "done" or "refused" (a WorkbenchError).
    Any other exception propagates; over ``limit`` seconds fails."""
    start = time.perf_counter()
    try:
        value, outcome = fn(), "done"
    except WorkbenchError as exc:
        value, outcome = exc, "refused"
    elapsed = time.perf_counter() - start
    assert elapsed < limit, f"took {elapsed:.1f} s (limit {limit} s): {outcome} {str(value)[:200]}"
    return outcome, value, elapsed


def load_or_refuse(text: str):
    """The game, or None when the validator refuses it (a fine outcome for a hostile file)."""
    outcome, value, _ = bounded(lambda: loads_game(text, "hostile.toml"))
    if outcome == "refused":
        assert isinstance(value, ReelsetError), value
        return None
    return value


def par_and_simulate(game, spins: int = 20_000) -> dict:
    """PAR (full cycle when it fits) and a short simulation, each bounded; their outcomes."""
    from workbench.simulate import simulate

    out = {}
    outcome, sheet, _ = bounded(lambda: par(game))
    if outcome == "done":
        assert np.isfinite(sheet.rtp) and np.isfinite(sheet.std)
        if sheet.distribution is None:
            assert sheet.distribution_note and sheet.distribution_note in sheet.notes
    else:
        assert isinstance(sheet, ExactBudgetError), sheet
        assert "over the" in str(sheet) and (game.name in str(sheet)), sheet
    out["par"] = (outcome, sheet)
    outcome, sim, _ = bounded(lambda: simulate(game, spins, 1))
    if outcome == "done":
        assert sim.spins == spins
    out["simulate"] = (outcome, sim)
    return out


# ---------------------------------------------------------------------------
# hostile games
# ---------------------------------------------------------------------------
def game_text(reels=5, rows=3, n_regular=10, n_wild=1, n_scatter=1, stops=30, n_lines=None, n_sets=1, seed=1,
              random_subs=False, pay_from=2, weights=None, tall_scatter=1) -> str:
    """A valid line game of the given size as reelset text (random strips, lines and substitutions)."""
    rng = random.Random(seed)
    regular = [f"R{i}" for i in range(n_regular)]
    wilds = [f"W{i}" for i in range(n_wild)]
    scatters = [f"S{i}" for i in range(n_scatter)]
    lines = [[r] * reels for r in range(rows)] if n_lines is None else \
        [[rng.randrange(rows) for _ in range(reels)] for _ in range(n_lines)]
    out = ["format_version = 1", 'name = "Hostile"', 'game_module = "classic"', "[grid]", f"reels = {reels}",
           f"rows = {rows}", "[bet]", f"lines = {len(lines)}", f"cost = {len(lines)}", "line_bet = 1", "[symbols]"]
    for w in wilds:
        if random_subs:
            subs = [r for r in regular if rng.random() < 0.5] or regular[:1]
            out.append(f"{w} = {{ kind = \"wild\", substitutes = [{', '.join(repr(s).replace(chr(39), chr(34)) for s in subs)}] }}")
        else:
            out.append(f'{w} = {{ kind = "wild" }}')
    for s in scatters:
        out.append(f'{s} = {{ kind = "scatter", height = {tall_scatter} }}' if tall_scatter > 1 else f'{s} = {{ kind = "scatter" }}')
    out += [f"{r} = {{}}" for r in regular]
    out.append("[paytable]")
    for i, name in enumerate(wilds + regular):
        out.append(f"{name} = {{ " + ", ".join(f"{k} = {k * (i + 1)}" for k in range(pay_from, reels + 1)) + " }")
    out += ["[paylines]", "lines = [" + ", ".join(str(line) for line in lines) + "]"]
    for s in scatters:
        out += [f"[scatters.{s}]", f'symbols = ["{s}"]', "pays = { " + ", ".join(f"{k} = {k}" for k in range(3, reels + 1)) + " }"]
    names = wilds + scatters + regular
    for k in range(n_sets):
        out += [f"[strip_sets.set{k}]", 'mode = "base"']
        for i in range(reels):
            tokens = []
            while len(tokens) < stops:
                name = rng.choice(names)
                block = [name] * (tall_scatter if name in scatters else 1)
                if len(tokens) + len(block) > stops:
                    continue  # a tall symbol is never cut
                tokens += [f"{t}:{weights}" if weights else t for t in block]
            out.append(f'reel{i + 1} = "' + " ".join(tokens) + '"')
    return "\n".join(out) + "\n"


def with_weights(text: str, weight: int) -> str:
    """Every stop of every strip gets weight ``weight`` (reelset text edited in place)."""
    def weigh(match):
        tokens = match.group(2).split()
        return f'{match.group(1)} = "' + " ".join(f"{t.split(':')[0]}:{weight}" for t in tokens) + '"'

    return re.sub(r'^(reel\d+) = "(.*)"$', weigh, text, flags=re.M)


def long_strip(text: str, stops: int, reel: int = 1, seed: int = 1) -> str:
    """``text`` with strip ``reel`` of its first strip set replaced by ``stops`` random classic symbols."""
    rng = random.Random(seed)
    strip = " ".join(rng.choice(CLASSIC_SYMBOLS) for _ in range(stops))
    return re.sub(rf'^reel{reel} = ".*"$', f'reel{reel} = "{strip}"', text, count=1, flags=re.M)


def test_a_million_stop_strip_in_a_file_is_bounded():
    game = load_or_refuse(long_strip(CLASSIC, 1_000_000))
    if game is not None:
        par_and_simulate(game)


def test_a_million_stop_strip_edited_in_memory_finishes_within_the_limit():
    game = load_game("classic_tens")
    rng = random.Random(7)
    edited = game.with_strip("base", 1, [rng.choice(CLASSIC_SYMBOLS) for _ in range(1_000_000)])
    outcome, sheet, seconds = bounded(lambda: par(edited))
    assert outcome == "done", sheet
    # 1,000 distinct windows x 29 x 28 x 26 x 27: the full cycle fits the default budget
    assert sheet.distribution is not None and sheet.distribution_note is None
    assert sheet.distribution.rtp_exact == sheet.rtp_exact
    assert sheet.cycle == 1_000_000 * 29 * 28 * 28 * 27


def test_a_million_stop_strip_too_large_for_the_windows_is_refused_at_once():
    text = game_text(rows=12, n_scatter=60, n_regular=20, stops=40)
    game = load_or_refuse(text)
    if game is None:
        return
    rng = random.Random(3)
    names = list(game.symbols)
    edited = game.with_strip("set0", 1, [rng.choice(names) for _ in range(1_000_000)])
    outcome, err, seconds = bounded(lambda: par(edited), limit=1.0)
    assert outcome == "refused" and "window cells" in str(err) and "72,000,000" in str(err), err
    from workbench.simulate import simulate

    outcome, err, _ = bounded(lambda: simulate(edited, 1000, 1), limit=2.0)
    assert outcome == "refused", err


def test_200_paying_symbols_with_three_wilds_are_bounded():
    game = load_or_refuse(game_text(n_regular=200, n_wild=3, random_subs=True))
    if game is not None:
        par_and_simulate(game)


def test_automaton_explosion_is_refused_naming_the_game_and_the_count():
    game = load_or_refuse(game_text(reels=8, n_regular=40, n_wild=40, random_subs=True, pay_from=8))
    if game is None:
        return
    result = par_and_simulate(game)
    outcome, err = result["par"]
    assert outcome == "refused"
    assert "Hostile" in str(err) and "automaton states" in str(err) and "limit of 4,096" in str(err)


def test_ten_reels_twelve_rows_1024_lines_are_bounded():
    game = load_or_refuse(game_text(reels=10, rows=12, n_lines=1024, n_regular=20, stops=40))
    if game is None:
        return
    result = par_and_simulate(game, spins=5_000)
    outcome, err = result["par"]
    assert outcome == "refused" and "line pairs" in str(err), err


def test_many_scatter_groups_are_bounded():
    game = load_or_refuse(game_text(n_regular=10, n_scatter=200, stops=60))
    if game is None:
        return
    outcome, err = par_and_simulate(game)["par"]
    assert outcome == "refused" and "scatter" in str(err), err


def test_an_astronomically_large_cycle_is_bounded():
    game = load_or_refuse(with_weights(game_text(reels=10, rows=3, n_lines=20, stops=3_000), 700_000))
    if game is None:
        return
    assert game.strip_sets["set0"].cycle > 10**60
    result = par_and_simulate(game)
    outcome, sheet = result["par"]
    if outcome == "done":
        assert sheet.distribution is None and sheet.distribution_note
    outcome, err = result["simulate"]
    assert outcome == "refused" and "virtual reels" in str(err), err  # 2,100,000,000 virtual stops per reel


def test_a_hundred_strip_sets_share_one_full_cycle_budget():
    game = load_or_refuse(game_text(n_sets=100, stops=40))
    if game is None:
        return
    outcome, sheet = par_and_simulate(game)["par"]
    assert outcome == "done", sheet
    assert sheet.distribution is None and "100 strip sets" in sheet.distribution_note


def test_tall_scatters_on_tall_windows_and_long_strips_are_bounded():
    game = load_or_refuse(game_text(reels=10, rows=12, n_regular=30, n_scatter=4, tall_scatter=12, stops=10_000, n_lines=12))
    if game is not None:
        par_and_simulate(game, spins=5_000)


def test_simulator_tables_too_large_for_memory_are_refused():
    game = load_or_refuse(with_weights(game_text(n_sets=60, stops=30), 100_000))
    if game is None:
        return
    outcome, err = par_and_simulate(game)["simulate"]
    assert outcome == "refused" and isinstance(err, SimulationError)
    assert "over the budget of 536,870,912" in str(err) and "virtual stops" in str(err), err


def test_a_required_full_cycle_over_budget_is_refused_before_any_work():
    game = load_game("bier_haus_oktober_fest")
    outcome, err, seconds = bounded(lambda: par(game, full_cycle=True), limit=1.0)
    assert outcome == "refused" and "over the budget of 2,000,000,000" in str(err) and "Bier Haus" in str(err)


# ---------------------------------------------------------------------------
# each budget refuses with a message: part, size and limit
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("module, constant, fragment", [
    ("workbench.exact.moments", "TABLE_FLOATS_MAX", "joint row table"),
    ("workbench.exact.moments", "JOINT_WORK_MAX", "joint row and scatter tables"),
    ("workbench.exact.moments", "LINE_PAIRS_MAX", "paylines make pairs"),
    ("workbench.exact.moments", "PAIR_WORK_MAX", "line futures"),
    ("workbench.exact.moments", "PAIR_MEMORY_MAX", "per chunk"),
    ("workbench.exact.moments", "LINE_SCATTER_WORK_MAX", "paying scatter groups"),
    ("workbench.exact.moments", "SCATTER_JOINT_MAX", "joint scatter counts"),
    ("workbench.exact.analysis", "LINE_COUNT_WORK_MAX", "exact line hit counts"),
    ("workbench.exact.analysis", "SCATTER_COUNT_WORK_MAX", "exact scatter counts"),
    ("workbench.exact.par", "MODE_WORK_MAX", "exact analysis of mode 'base'"),
    ("workbench.exact.windows", "WINDOW_CELLS_MAX", "window cells"),
    ("workbench.pays.lines", "MAX_AUTOMATON_STATES", "automaton states"),
])
def test_every_exact_budget_refuses_naming_part_size_and_limit(monkeypatch, module, constant, fragment):
    from workbench.pays import lines

    lines._AUTOMATA.clear()
    monkeypatch.setattr(sys.modules[module], constant, 1 if constant != "PAIR_MEMORY_MAX" else 1000)
    game = load_game("super_10_stars")
    outcome, err, _ = bounded(lambda: par(game, full_cycle=False))
    lines._AUTOMATA.clear()
    assert outcome == "refused" and isinstance(err, ExactBudgetError), err
    message = str(err)
    assert fragment in message, message
    assert "Super 10 Stars" in message and re.search(r"over the (budget|limit) of [\d,]+", message), message


def test_a_hit_frequency_over_its_budget_is_left_out_alone_naming_part_size_and_limit(monkeypatch):
    """Over UNPAID_STEP_MAX the game is not refused: the hit frequency alone is missing (NaN, a note naming the
    part, its size and the limit), the RTP and std stay exact, and complete_par labels its estimate simulated."""
    from workbench.simulate import complete_par

    exact = par(load_game("super_10_stars"), full_cycle=False)
    monkeypatch.setattr(sys.modules["workbench.exact.moments"], "UNPAID_STEP_MAX", 1)
    game = load_game("super_10_stars")
    outcome, sheet, _ = bounded(lambda: par(game, full_cycle=False))
    assert outcome == "done" and set(sheet.missing) == {"hit_frequency"} and math.isnan(sheet.hit_frequency)
    assert sheet.rtp_exact == exact.rtp_exact and sheet.std == exact.std
    note = next(n for n in sheet.notes if n.startswith("not exact: the hit frequency"))
    assert "Super 10 Stars" not in note and re.search(r"hit frequency: .* steps, over the budget of 1\b", note), note
    filled = complete_par(game, full_cycle=False, rounds=1 << 16)
    assert filled.source("hit_frequency") == "simulated (65,536 rounds)" and filled.source("std") == "exact"
    est = filled.simulated["hit_frequency"]
    assert abs(est.value - exact.hit_frequency) <= 4 * est.ci95 / 1.96


def test_the_full_cycle_left_out_is_noted_in_the_sheet_and_the_report():
    from workbench.report import tables

    sheet = par(load_game("bier_haus_oktober_fest"))
    assert sheet.distribution is None
    assert "distinct window combinations, over the budget of 2,000,000,000" in sheet.distribution_note
    assert sheet.notes == [sheet.distribution_note]
    assert sheet.summary["note:1"] == sheet.distribution_note
    assert sheet.to_dict()["distribution_note"] == sheet.distribution_note
    est = SimpleNamespace(model=SimpleNamespace(cap_total_bets=None), max_win=0.0, strata=(), jackpot_rtp=0.0)
    table = tables.max_win_table(sheet, est)
    assert table.loc["exact base-game distribution", "value"] == sheet.distribution_note
    # with the full cycle the note and the row are absent
    full = par(load_game("classic_tens"))
    assert full.distribution is not None and full.distribution_note is None and full.notes == []
    assert "exact base-game distribution" not in tables.max_win_table(full, est).index


def test_a_max_win_search_stopped_early_brackets_the_true_maximum():
    game = load_game("bier_haus_oktober_fest")
    exact = par(game, full_cycle=False)
    assert exact.max_win_exact
    cut = par(game, full_cycle=False, max_nodes=2_000)
    assert not cut.max_win_exact
    assert cut.max_win <= exact.max_win <= cut.max_win_upper
    assert cut.max_win_upper > cut.max_win  # a real bracket, not the answer
    assert cut.rtp_exact == exact.rtp_exact and cut.std == exact.std  # everything else is unchanged
    assert any("max win of strip set 'base'" in note and "at most" in note for note in cut.notes)
    assert cut.summary["max_win_upper"] == cut.max_win_upper


def test_fewer_prefix_reels_pay_the_same(monkeypatch):
    """The prefix-table budget (lines x combinations) only moves work from the table to the spin."""
    from dataclasses import replace

    from workbench.pays.lines import line_arrays
    from workbench.simulate import kernel, round_model
    from workbench.simulate.chunks import play_chunk
    from workbench.simulate.rng import chunk_state

    game = load_game("super_10_stars")
    full = round_model(game)
    monkeypatch.setattr(kernel, "PREFIX_LINES_MAX", 30 * 2 * 60)  # ~60 combinations per strip set: one prefix reel
    small = kernel.compile_mode(game, "base", line_arrays(game))
    assert small.prefix_reels.max() < full.params.base.prefix_reels.min()
    reduced = replace(full, params=full.params._replace(base=small))
    a = play_chunk(full, chunk_state(5, 0), 50_000)
    b = play_chunk(reduced, chunk_state(5, 0), 50_000)
    assert a.to_json() == b.to_json()


# ---------------------------------------------------------------------------
# the faster forms give the same answers
# ---------------------------------------------------------------------------
def _reference_line_pairs(game, strip_set):
    lines = game.paylines
    weighted = [strip.weights is not None for strip in strip_set.reels]
    seen: dict = {}
    for l in range(len(lines)):
        for m in range(l + 1, len(lines)):
            a = tuple((lines[l][i], lines[m][i]) if weighted[i] else (0, lines[m][i] - lines[l][i]) for i in range(game.reels))
            b = tuple((lines[m][i], lines[l][i]) if weighted[i] else (0, lines[l][i] - lines[m][i]) for i in range(game.reels))
            key = min(a, b)
            if key in seen:
                seen[key][2] += 1
            else:
                seen[key] = [l, m, 1]
    return [tuple(v) for v in seen.values()]


@pytest.mark.parametrize("seed", range(8))
def test_distinct_line_pairs_equal_the_pairwise_definition(seed):
    from workbench.exact.moments import distinct_line_pairs

    rng = random.Random(seed)
    reels, rows = rng.randint(2, 6), rng.randint(1, 5)
    text = game_text(reels=reels, rows=rows, n_lines=rng.randint(2, 60), stops=8, seed=seed)
    if seed % 2:
        text = re.sub(r'^(reel[13]) = "(.*)"$', lambda m: f'{m.group(1)} = "' + " ".join(f"{t}:2" for t in m.group(2).split()) + '"',
                      text, flags=re.M)
    game = loads_game(text)
    strip_set = game.strip_sets["set0"]
    l, m, mult = distinct_line_pairs(game, strip_set)
    assert list(zip(l.tolist(), m.tolist(), mult.astype(int).tolist())) == _reference_line_pairs(game, strip_set)


def test_lexicographic_keys_order_rows_like_numpy_unique():
    from workbench.exact.windows import lexicographic_keys

    rng = np.random.default_rng(4)
    for cols, high in ((3, 5), (6, 1000), (12, 2**31 - 1)):
        rows = rng.integers(0, high, size=(5000, cols))
        rows[::7] = rows[3]  # duplicates
        keys = lexicographic_keys([rows[:, c] for c in range(cols)])
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        _, first_k, inverse_k = np.unique(keys, return_index=True, return_inverse=True)
        assert np.array_equal(first, first_k) and np.array_equal(inverse.reshape(-1), inverse_k.reshape(-1))


def test_windows_of_long_strips_with_tall_scatters_count_each_visible_instance():
    from workbench.exact.windows import group_counts

    game = loads_game(game_text(rows=4, n_scatter=1, tall_scatter=3, stops=400, seed=5))
    strip = game.strip_sets["set0"].reels[0]
    from workbench.model import tall_instance_starts

    counts = group_counts(game, strip, 4)
    n = len(strip)
    starts = tall_instance_starts(strip.symbols, "S0", 3)
    assert len(starts) > 10
    for top in range(n):
        seen = sum(1 for s in starts if (s - top) % n < 4 or (s - top) % n > n - 3)
        assert counts[top, 0] == seen


def test_many_paying_scatter_groups_keep_the_exact_hit_frequency():
    """25 paying groups: the hit-frequency recursion indexes scatter codes in mixed radix, 8^25
    of them (past 64 bits); it caps the index instead of letting it wrap around."""
    from workbench import reference

    game = loads_game(game_text(reels=3, rows=3, n_regular=6, n_scatter=25, stops=14, seed=2))
    sheet = par(game)
    ref = reference.enumerate_cycle(game, game.strip_sets["set0"])
    hits = sum(h for w, h in ref["wins"].items() if w > 0)
    assert sheet.hit_frequency == pytest.approx(hits / ref["cycle"], rel=1e-12)
    assert sheet.distribution.hit_frequency == pytest.approx(hits / ref["cycle"], rel=1e-12)
