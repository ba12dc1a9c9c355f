"""Cluster pays (``[pays] rule = "cluster"``): the compiled screen evaluator and the exact engine
against the slow reference (:mod:`workbench.reference`), the simulator against the exact engine,
and the validation of what a cluster game refuses."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from randomgames import with_upper_end
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import reference
from workbench._jit import njit
from workbench.errors import ExactBudgetError, ReelsetError
from workbench.exact.cluster import analyse_cluster, count_combinations
from workbench.io import load_game
from workbench.pays.cluster import cluster_arrays, cluster_pay_screen
from workbench.pays.scale import pay_scale

DATA = Path(__file__).parent / "data"
SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _fmt(pays: dict) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in pays.items()) + " }"


def _load(tmp_path, text: str, name: str = "game.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_game(str(path))


@st.composite
def cluster_game_text(draw, max_reels: int = 4, max_rows: int = 3, max_stops: int = 4, grid: tuple | None = None):
    """A small random cluster game: 2-4 paying symbols (sizes from 1 up), a non-paying symbol, 0-2
    wilds, an optional scatter (paying anywhere or on adjacent reels), random stop weights.  With
    ``grid`` = (reels, rows) that grid and a plain strip set (for screens drawn by the test)."""
    reels, rows = grid or (draw(st.integers(2, max_reels)), draw(st.integers(1, max_rows)))
    cells = reels * rows
    paying = [f"P{i}" for i in range(draw(st.integers(2, 4)))]
    symbols = {name: "{}" for name in paying}
    symbols["X"] = "{}"
    for i in range(draw(st.integers(0, 2))):
        symbols[f"W{i}"] = '{ kind = "wild" }'
    scatter = draw(st.sampled_from(["none", "anywhere", "adjacent_from_first_reel"]))
    if cells < 2:  # the trigger needs 2 scatters: a 1-cell screen cannot show them
        scatter = "none"
    if scatter != "none":
        symbols["S"] = '{ kind = "scatter" }'
    unit = draw(st.sampled_from(["line_bet", "total_bet", "bet_multiplier"]))
    text = ['format_version = 1', 'name = "Cluster random"', 'game_module = "classic"',
            '[pays]', 'rule = "cluster"',
            '[grid]', f'reels = {reels}', f'rows = {rows}',
            '[bet]', 'cost = 10', f'line_bet = {draw(st.sampled_from([1, 2]))}', f'line_pay_unit = "{unit}"',
            '[symbols]'] + [f"{k} = {v}" for k, v in symbols.items()]
    text.append("[paytable]")
    for name in paying:
        sizes = sorted(draw(st.lists(st.integers(1, min(cells, 6)), min_size=1, max_size=3, unique=True)))
        values = sorted(draw(st.lists(st.integers(0, 20), min_size=len(sizes), max_size=len(sizes))))
        text.append(f"{name} = {_fmt(with_upper_end(draw, dict(zip(sizes, values)), min(cells, 7)))}")
    if scatter != "none":
        text += ["[scatters.S]", 'symbols = ["S"]', f'counting = "{scatter}"', 'pays = { 2 = 1, 3 = 5 }',
                 "[triggers.bonus]", 'scatter = "S"', "min_count = 2"]
    if grid:
        text += ['[strip_sets.base]', 'mode = "base"', _strip_text(reels, rows)]
    else:
        names = list(symbols)
        text += ["[strip_sets.base]", 'mode = "base"']
        for r in range(reels):
            stops = draw(st.lists(st.sampled_from(names), min_size=max(rows, 2), max_size=max(max_stops, rows)))
            weights = [draw(st.integers(0, 3)) for _ in stops]
            if sum(weights) == 0:
                weights[0] = 1
            text.append(f'reel{r + 1} = "' + " ".join(f"{s}:{w}" for s, w in zip(stops, weights)) + '"')
    return "\n".join(text) + "\n"


# ---------------------------------------------------------------------------
# the compiled screen evaluator = the reference
# ---------------------------------------------------------------------------
@njit
def _pay_screen(screen, pays, is_wild, remove):
    none = np.zeros((0, 0), dtype=np.int64)  # no position multipliers
    return cluster_pay_screen(screen, pays, is_wild, remove, np.zeros(pays.shape[0], dtype=np.uint64), none, none)


def _strip_text(reels: int, rows: int) -> str:
    return "\n".join(f'reel{r + 1} = "' + " ".join(["P0", "P1"] * rows) + '"' for r in range(reels))


@SETTINGS
@given(st.data())
def test_screen_evaluator_matches_the_reference(tmp_path, data):
    """Random screens up to 8 x 8 (64 cells, every bit of the board) with wilds and empty cells (-1):
    the same pay in pay units, and ``remove`` gets exactly the paying clusters' cells (wilds too)
    added to what it held."""
    reels = data.draw(st.integers(1, 8))
    rows = data.draw(st.integers(1, 8))
    game = _load(tmp_path, data.draw(cluster_game_text(grid=(reels, rows))))
    arrays = cluster_arrays(game)
    names = list(game.symbols)
    screen = np.array(data.draw(st.lists(st.lists(st.integers(-1, len(names) - 1), min_size=rows, max_size=rows),
                                         min_size=reels, max_size=reels)), dtype=np.int64)
    before = np.array(data.draw(st.lists(st.booleans(), min_size=reels * rows, max_size=reels * rows)),
                      dtype=np.bool_).reshape(reels, rows)
    remove = before.copy()
    paid = _pay_screen(screen, arrays.pays, arrays.is_wild, remove)
    shown = [[None if s < 0 else names[s] for s in reel] for reel in screen.tolist()]
    pay, cells = reference.cluster_screen(game, shown)
    scale = pay_scale(game)
    assert paid == scale.units(game.bet.credits(pay, game.bet.line_pay_unit))
    expected = before.copy()
    for reel, row in cells:
        expected[reel, row] = True
    assert np.array_equal(remove, expected)


def test_screen_evaluator_by_hand():
    """RUBY 4 = 1, 6 = 4, 8 = 20 x total bet (20 pay units per total bet).  Two separate RUBY clusters
    of 4 pay twice; a WILD joins a JADE and a RUBY cluster at once; wilds alone pay nothing; an empty
    cell breaks a cluster."""
    game = load_game(DATA / "cluster_5x4.toml")
    arrays = cluster_arrays(game)
    ix = {n: s.index for n, s in game.symbols.items()}
    R, J, O, N, W, S, E = ix["RUBY"], ix["JADE"], ix["OPAL"], ix["ONYX"], ix["WILD"], ix["S"], -1

    def pay(reels):
        remove = np.zeros((5, 4), dtype=np.bool_)
        return _pay_screen(np.array(reels, dtype=np.int64), arrays.pays, arrays.is_wild, remove), remove

    # two RUBY clusters of 4 (reels 1-2 top, reels 4-5 bottom): 2 x 20
    units, remove = pay([[R, R, O, J], [R, R, J, O], [O, J, O, J], [J, O, R, R], [O, J, R, R]])
    assert units == 40 and int(remove.sum()) == 8
    # the WILD at reel 3 row 2 joins RUBY (3 + W = 4) and JADE (3 + W = 4): 20 + 10
    units, remove = pay([[N, O, N, O], [R, R, O, N], [R, W, J, O], [O, J, J, N], [N, O, N, O]])
    assert units == 20 + 10 and remove[2, 1] and int(remove.sum()) == 7
    # four wilds next to nothing that pays: nothing; empty cells split RUBY into pairs
    units, remove = pay([[W, W, E, R], [W, W, S, R], [E, S, O, E], [R, R, E, R], [O, J, O, R]])
    assert units == 0 and not remove.any()


# ---------------------------------------------------------------------------
# exact = the reference's enumeration
# ---------------------------------------------------------------------------
def _check_exact(game, analysis):
    strip_set = list(game.strip_sets.values())[0]
    ref = reference.enumerate_cycle(game, strip_set)
    scale = pay_scale(game)
    hist = {scale.units(win): w for win, w in ref["wins"].items()}
    cycle = ref["cycle"]
    assert analysis.cycle == cycle
    mean = Fraction(sum(u * w for u, w in hist.items()), cycle)
    second = Fraction(sum(u * u * w for u, w in hist.items()), cycle)
    hit = Fraction(sum(w for u, w in hist.items() if u > 0), cycle)
    m = analysis.moments
    assert math.isclose(m.mean, mean, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(m.second, second, rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(m.hit, hit, rel_tol=1e-12, abs_tol=1e-300)
    assert m.max_exact and m.max_units == max(hist)
    expected = [(x, k) for x in game.symbols for k in sorted(game.paytable.get(x, {})) if game.paytable[x][k] > 0]
    assert [(c.symbol, c.count) for c in analysis.combinations] == expected
    for c, h, u in zip(analysis.combinations, analysis.combo_hits, analysis.combo_units):
        assert isinstance(h, int) and isinstance(u, int)
        key = (c.symbol, c.count, 1)
        assert h == ref["combinations"].get(key, 0), c
        assert u == scale.units(ref["combination_units"].get(key, Fraction(0))), c
    return hist


@SETTINGS
@given(cluster_game_text())
def test_exact_matches_the_reference_enumeration(tmp_path, text):
    game = _load(tmp_path, text)
    strip_set = list(game.strip_sets.values())[0]
    analysis = analyse_cluster(game, strip_set)
    hist = _check_exact(game, analysis)
    expected = np.zeros(max(hist) + 1, dtype=np.int64)
    for u, w in hist.items():
        expected[u] = w
    assert analysis.cycle_note is None
    assert np.array_equal(analysis.histogram, expected)
    # without the histogram the float sums give the same moments
    import workbench.exact.cluster as exact_cluster

    no_hist = analyse_cluster(game, strip_set, full_cycle=False)
    assert no_hist.histogram is None and no_hist.moments.max_units == analysis.moments.max_units
    old = exact_cluster.HISTOGRAM_MAX
    exact_cluster.HISTOGRAM_MAX = 0
    try:
        floats = analyse_cluster(game, strip_set)
    finally:
        exact_cluster.HISTOGRAM_MAX = old
    assert floats.histogram is None and "histogram" in floats.cycle_note
    assert math.isclose(floats.moments.mean, analysis.moments.mean, rel_tol=1e-9, abs_tol=1e-300)
    assert math.isclose(floats.moments.second, analysis.moments.second, rel_tol=1e-9, abs_tol=1e-300)
    assert floats.combo_units == analysis.combo_units and floats.moments.hit == analysis.moments.hit
    # cycles beyond 64 bits: one row per window of reel 1, its weights multiplied in with Python integers
    cells = game.reels * game.rows[0]
    first = int(strip_set.reels[0].total_weight)
    if first > 1:
        old = exact_cluster.INT_CYCLE_MAX
        exact_cluster.INT_CYCLE_MAX = (strip_set.cycle // first) * cells + 1
        try:
            big = analyse_cluster(game, strip_set)
        finally:
            exact_cluster.INT_CYCLE_MAX = old
        assert big.histogram is None and "64-bit" in big.cycle_note
        assert big.combo_hits == analysis.combo_hits and big.combo_units == analysis.combo_units
        assert big.moments.hit == analysis.moments.hit and big.moments.max_units == analysis.moments.max_units
        assert math.isclose(big.moments.mean, analysis.moments.mean, rel_tol=1e-9, abs_tol=1e-300)
        assert math.isclose(big.moments.second, analysis.moments.second, rel_tol=1e-9, abs_tol=1e-300)


def test_over_budget_the_full_cycle_is_refused_before_any_work():
    """Over the enumeration budget the full cycle (``full_cycle=True``: the histogram) is refused; without it the
    column transfer (tests/test_cluster_transfer.py) gives every other exact figure."""
    game = load_game(DATA / "cluster_5x4.toml")
    strip_set = game.strip_sets["base"]
    combos = count_combinations(game, strip_set)
    with pytest.raises(ExactBudgetError) as info:
        analyse_cluster(game, strip_set, budget=combos - 1, full_cycle=True)
    message = str(info.value)
    assert "Cluster test 5x4" in message and f"{combos:,}" in message and f"{combos - 1:,}" in message
    assert analyse_cluster(game, strip_set, budget=combos).histogram is not None  # within the budget: enumerated
    by_transfer = analyse_cluster(game, strip_set, budget=combos - 1)
    assert by_transfer.histogram is None and "column transfer" in by_transfer.cycle_note


def test_par_over_the_budget_uses_the_transfer_without_enumerating(monkeypatch):
    import workbench.exact.cluster as exact_cluster
    from workbench.exact import par

    game = load_game(DATA / "cluster_5x4.toml")
    enumerated = par(game, full_cycle=False)
    combos = count_combinations(game, game.strip_sets["base"])
    monkeypatch.setattr(exact_cluster, "CLUSTER_COMBINATIONS_MAX", combos - 1)
    monkeypatch.setattr(exact_cluster, "_walk", None)  # the walk must not start
    for full_cycle in ("auto", False):
        sheet = par(game, full_cycle=full_cycle)
        assert sheet.rtp == enumerated.rtp and sheet.hit_frequency == enumerated.hit_frequency
        assert list(sheet.combinations["hits"]) == list(enumerated.combinations["hits"])


def test_the_evaluator_runs_without_the_numba_runtime():
    """Chunk loops are compiled with ``_nrt=False`` (no allocation): the evaluator must compile there."""

    @njit(_nrt=False)
    def pay(screen, pays, is_wild, remove, boards, cell_mult, cell_wins):
        return cluster_pay_screen(screen, pays, is_wild, remove, boards, cell_mult, cell_wins)

    game = load_game(DATA / "cluster_5x4.toml")
    arrays = cluster_arrays(game)
    names = list(game.symbols)
    rng = np.random.default_rng(7)
    scale = pay_scale(game)
    for _ in range(50):
        screen = rng.integers(-1, len(names), size=(5, 4)).astype(np.int64)
        remove = np.zeros((5, 4), dtype=np.bool_)
        shown = [[None if s < 0 else names[s] for s in reel] for reel in screen.tolist()]
        expected, _ = reference.cluster_screen(game, shown)
        boards = np.zeros(len(names), dtype=np.uint64)
        none = np.zeros((0, 0), dtype=np.int64)
        assert pay(screen, arrays.pays, arrays.is_wild, remove, boards, none, none) == \
            scale.units(game.bet.credits(expected, "total_bet"))
        # position multipliers: each paid cluster x the sum of its cells' (x1 when 0); each adds a win to its cells
        cell_mult = rng.integers(0, 4, size=(5, 4)).astype(np.int64)
        cell_wins = np.zeros((5, 4), dtype=np.int64)
        grown, wins = Fraction(0), np.zeros((5, 4), dtype=np.int64)
        for symbol, cluster in reference.find_clusters(game, shown):
            band = reference.cluster_band(game, symbol, len(cluster))
            if band:
                m = sum(int(cell_mult[r, k]) for r, k in cluster)
                grown += game.paytable[symbol][band] * (m if m else 1)
                for r, k in cluster:
                    wins[r, k] += 1
        assert pay(screen, arrays.pays, arrays.is_wild, remove, boards, cell_mult, cell_wins) == \
            scale.units(game.bet.credits(grown, "total_bet"))
        assert (cell_wins == wins).all()


def test_refuses_other_rules():
    game = load_game(Path(__file__).parents[1] / "reelsets" / "examples" / "pay_anywhere_6x5.toml")
    with pytest.raises(ValueError, match="cluster"):
        analyse_cluster(game, game.strip_sets["base"])


# ---------------------------------------------------------------------------
# the PAR sheet and the simulator
# ---------------------------------------------------------------------------
def test_par_sheet_of_a_cluster_game():
    from workbench.exact import par

    game = load_game(DATA / "cluster_5x4.toml")
    sheet = par(game)
    analysis = analyse_cluster(game, game.strip_sets["base"])
    cost = pay_scale(game).cost_units
    assert set(sheet.parts) >= {"cluster", "scatter:S"}
    assert math.isclose(sheet.rtp, analysis.moments.mean / cost, rel_tol=1e-12)
    assert math.isclose(sheet.components["cluster"], sum(analysis.combo_units) / (analysis.cycle * cost), rel_tol=1e-12)
    assert list(sheet.combinations["combination"]) == [c.label for c in analysis.combinations]
    assert list(sheet.combinations["hits"]) == list(analysis.combo_hits)
    # a 4-RUBY hit can hold two clusters: clusters per hit >= 1
    assert (sheet.combinations["clusters_per_hit"] >= 1).all() and sheet.combinations["clusters_per_hit"].max() > 1
    assert sheet.distribution is not None


def test_simulation_agrees_with_exact():
    from workbench.simulate import simulate

    game = load_game(DATA / "cluster_5x4.toml")
    analysis = analyse_cluster(game, game.strip_sets["base"])
    spins = 1 << 20
    result = simulate(game, spins, seed=20261204)
    cost = pay_scale(game).cost_units
    m = analysis.moments
    se = math.sqrt(m.second - m.mean * m.mean) / math.sqrt(spins)
    assert result.spins == spins
    assert set(result.components) == {"cluster", "scatter:S"}
    assert abs(result.game_rtp * cost - m.mean) < 4 * se, (result.game_rtp * cost, m.mean, se)
    assert abs(result.hit_frequency - m.hit) < 4 * math.sqrt(m.hit * (1 - m.hit) / spins)
    assert result.max_win_units <= m.max_units
    cluster_mean = sum(analysis.combo_units) / analysis.cycle
    assert abs(result.components["cluster"].value * cost - cluster_mean) < 4 * se


# ---------------------------------------------------------------------------
# validation: what a cluster game refuses
# ---------------------------------------------------------------------------
BASE = (DATA / "cluster_5x4.toml").read_text(encoding="utf-8")


def _problems(tmp_path, text: str) -> list[str]:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReelsetError) as info:
        load_game(str(path))
    out = [str(p) for p in info.value.problems]
    assert all(s.startswith(str(path)) for s in out)
    return out


def _one(problems: list[str], key: str, words: str) -> None:
    assert any(f"[{key}]" in p and words in p for p in problems), problems


@pytest.mark.parametrize("old, new, key, words", [
    ('RUBY = {}\n', 'RUBY = { height = 2 }\n', "symbols.RUBY.height", "tall symbol"),
    ('WILD = { kind = "wild" }', 'WILD = { kind = "wild", multiplier = 2 }', "symbols.WILD.multiplier",
     "multiplier wild"),
    ('WILD = { kind = "wild" }', 'WILD = { kind = "wild", substitutes = ["RUBY", "JADE", "OPAL"] }',
     "symbols.WILD.substitutes", "does not substitute for ONYX"),
    ('rows = 4\n', 'rows = [4, 4, 3, 4, 4]\n', "grid.rows", "same rows on every reel"),
    ('rows = 4\n', 'rows = 4\n[grid.heights]\nreel1 = { 3 = 1, 4 = 1 }\n', "grid.heights",
     'need [pays] rule = "ways"'),
    ('[paytable]', '[groups]\nGEMS = ["RUBY", "JADE"]\n[paytable]', "groups", "groups do not pay"),
    ('[paytable]  # x total bet, by cluster size: 4-5, 6-7, 8+\n', '[paytable]\nWILD = { 4 = 1 }\n', "paytable.WILD",
     "pay nothing on their own"),
    ('line_bet = 1\n', 'line_bet = 1\nlines = 1\n', "bet.lines", "has no lines"),
    ('[strip_sets.base]', '[paylines]\nlines = [[0, 0, 0, 0, 0]]\n[strip_sets.base]', "paylines", "has no paylines"),
    ('RUBY = { 4 = 1, 6 = 4, 8 = 20 }', 'RUBY = { 4 = 1, 21 = 4 }', "paytable.RUBY.21", "cells the screen shows"),
    ('scatter = "S"\n', 'combination = "RUBY"\n', "triggers.bonus.combination", "no lines or ways"),
    ('rule = "cluster"\n', 'rule = "cluster"\ndirection = "both_ways"\n', "pays.direction",
     "clusters of adjacent cells"),
])
def test_validation_refuses(tmp_path, old, new, key, words):
    assert old in BASE
    _one(_problems(tmp_path, BASE.replace(old, new, 1)), key, words)


def test_validation_refuses_a_screen_over_64_cells_and_bonus_awards(tmp_path):
    text = BASE.replace("reels = 5\nrows = 4", "reels = 9\nrows = 8").replace(
        'reel5 = "', 'reel6 = "RUBY JADE OPAL ONYX RUBY JADE OPAL ONYX"\nreel7 = "RUBY JADE OPAL ONYX RUBY JADE OPAL ONYX"\n'
                     'reel8 = "RUBY JADE OPAL ONYX RUBY JADE OPAL ONYX"\nreel9 = "RUBY JADE OPAL ONYX RUBY JADE OPAL ONYX"\n'
                     'reel5 = "')
    _one(_problems(tmp_path, text), "grid", "at most 64")
    award = BASE.replace("min_count = 3\n", 'min_count = 3\naward = "prizes"\n') + (
        '[tables.prizes]\nentries = [{ value = 5, weight = 1 }]\n')
    _one(_problems(tmp_path, award), "triggers.bonus.award", "not priced exactly yet")
