"""The column transfer of cluster pays (:mod:`workbench.exact.cluster_transfer`): the same exact figures as the full
enumeration (itself checked against the reference evaluator in tests/test_cluster.py) on random games, the
budgets it keeps, and a long-strip game against the reference evaluator on sampled screens and the simulator."""

from __future__ import annotations

import contextlib
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import workbench.exact.cluster_transfer as transfer
from test_cluster import DATA, SETTINGS, _load, cluster_game_text
from workbench import reference
from workbench.errors import ExactBudgetError
from workbench.exact import par
from workbench.exact.cluster import analyse_cluster, count_combinations
from workbench.io import load_game, loads_game
from workbench.pays.scale import pay_scale
from workbench.pays.scatter import scatter_pay_tables


def _transfer(game, strip_set):
    """The analysis by the column transfer (an enumeration budget of 0 leaves it nothing else)."""
    out = analyse_cluster(game, strip_set, full_cycle=False, budget=0)
    assert out.histogram is None and "column transfer" in out.cycle_note
    return out


def _same(enumerated, transferred):
    a, b = enumerated.moments, transferred.moments
    assert transferred.cycle == enumerated.cycle
    assert transferred.combo_hits == enumerated.combo_hits
    assert transferred.combo_units == enumerated.combo_units
    assert all(isinstance(h, int) for h in transferred.combo_hits + transferred.combo_units)
    assert b.mean == a.mean and b.hit == a.hit  # both from exact integer sums
    assert b.max_units == a.max_units and b.max_exact
    assert math.isclose(b.second, a.second, rel_tol=1e-12, abs_tol=1e-300)


@SETTINGS
@given(cluster_game_text(max_reels=4, max_rows=4, max_stops=5))
def test_transfer_equals_the_full_enumeration(tmp_path, text):
    """Random small games (2-4 paying symbols, 0-2 wilds, scatters paying anywhere or on adjacent reels, stop
    weights): combination hits and pay units, mean, hit frequency and max win equal the enumeration's exactly."""
    game = _load(tmp_path, text)
    strip_set = list(game.strip_sets.values())[0]
    _same(analyse_cluster(game, strip_set, full_cycle=False), _transfer(game, strip_set))


@SETTINGS
@given(cluster_game_text(max_reels=3, max_rows=7, max_stops=8))
def test_transfer_equals_the_full_enumeration_on_tall_reels(tmp_path, text):
    """Reels up to 7 rows: several components per reel, merged through later reels."""
    game = _load(tmp_path, text)
    strip_set = list(game.strip_sets.values())[0]
    _same(analyse_cluster(game, strip_set, full_cycle=False), _transfer(game, strip_set))


def _by_route(game, strip_set, **patches):
    """The analysis by the column transfer with module constants patched (``name=value`` on
    :mod:`workbench.exact.cluster_routes`, or ``automaton=True``: the route over each symbol's automaton, taken when
    the runs do not apply)."""
    from unittest import mock

    import workbench.exact.cluster_routes as runs

    with contextlib.ExitStack() as stack:
        if patches.pop("automaton", False):
            stack.enter_context(mock.patch.object(transfer, "moment_route_applies", lambda *a: False))
        for name, value in patches.items():
            stack.enter_context(mock.patch.object(runs, name, value))
        return _transfer(game, strip_set)


@SETTINGS
@given(cluster_game_text(max_reels=4, max_rows=5, max_stops=6))
def test_every_route_equals_the_full_enumeration(tmp_path, text):
    """The three routes on random games: the sweep over every symbol's runs at once (above), the automaton route
    (when runs do not apply), and, with the joint sweep refused, each symbol's and each pair's sweeps: the same
    combinations and mean; the hit frequency from the screens paying nothing; the second moment from the pairs
    (left out when a paying scatter group shares the screens); the max win then left out, with a bound."""
    game = _load(tmp_path, text)
    strip_set = list(game.strip_sets.values())[0]
    enumerated = analyse_cluster(game, strip_set, full_cycle=False)
    _same(enumerated, _by_route(game, strip_set, automaton=True))
    pairs = _by_route(game, strip_set, MOMENT_WORK_MAX=-1)
    a, b = enumerated.moments, pairs.moments
    assert pairs.combo_hits == enumerated.combo_hits and pairs.combo_units == enumerated.combo_units
    assert b.mean == a.mean and not b.max_exact and b.max_upper >= a.max_units and "max_win" in b.missing
    if "hit_frequency" not in b.missing:
        assert b.hit == a.hit
    groups = any(p > 0 for g in game.scatters.values() for p in g.pays.values())
    if groups:
        assert "std" in b.missing and math.isnan(b.second)
    else:
        assert "std" not in b.missing and math.isclose(b.second, a.second, rel_tol=1e-9, abs_tol=1e-12)


@SETTINGS
@given(cluster_game_text(grid=(1, 6), max_stops=6))
def test_a_one_reel_game_by_every_route(tmp_path, text):
    """One reel: the sweeps over runs step to an empty reel that closes every component (their one path)."""
    test_every_route_equals_the_full_enumeration.hypothesis.inner_test(tmp_path, text)


def test_a_run_joining_two_earlier_components_after_a_union_adds_both(tmp_path):
    """Reel 3's run on rows 2-4 first meets the component of rows 0-2 of reels 1-2 (already joined to reel 3's row
    0), then, on row 4, a second component (reel 2's row 4): the cluster has 10 cells, paying 100, not 9 (10).  A
    step that added the second component to the run instead of to its component's root lost it; every route must
    count it, as the enumeration does."""
    text = "\n".join([
        'format_version = 1', 'name = "Join after union"', 'game_module = "classic"', '[pays]', 'rule = "cluster"',
        '[grid]', 'reels = 3', 'rows = 5', '[bet]', 'cost = 10', 'line_bet = 1', 'line_pay_unit = "total_bet"',
        '[symbols]', 'A = {}', 'B = {}', '[paytable]', 'A = { 5 = 1, 9 = 10, 10 = 100 }', 'B = { 5 = 1 }',
        '[strip_sets.base]', 'mode = "base"', 'reel1 = "A A A B B"', 'reel2 = "A B A B A"', 'reel3 = "A B A A A"'])
    game = _load(tmp_path, text)
    strip_set = game.strip_sets["base"]
    enumerated = analyse_cluster(game, strip_set, full_cycle=True)
    assert enumerated.moments.max_units == 100 * pay_scale(game).units(game.bet.credits(1, "total_bet"))
    _same(enumerated, _transfer(game, strip_set))
    _same(enumerated, _by_route(game, strip_set, automaton=True))
    pairs = _by_route(game, strip_set, MOMENT_WORK_MAX=-1)
    assert pairs.moments.mean == enumerated.moments.mean and pairs.combo_units == enumerated.combo_units
    assert math.isclose(pairs.moments.second, enumerated.moments.second, rel_tol=1e-12)


def test_the_screens_paying_nothing_are_counted_exactly_on_tall_reels():
    """The sweep over unpaid screens against the enumeration on the 8-stop 7x7 game without its scatter (wilds on
    every other reel, runs joined only through paying components)."""
    game = long_game(stops=8)
    strip_set = game.strip_sets_for("base")[0]
    enumerated = analyse_cluster(game, strip_set, full_cycle=True)
    pairs = _by_route(game, strip_set, MOMENT_WORK_MAX=-1)
    assert pairs.moments.hit == enumerated.moments.hit and pairs.moments.mean == enumerated.moments.mean
    assert pairs.combo_hits == enumerated.combo_hits


def test_a_7x7_game_by_both_methods():
    """The gallery's 7x7 candy game on 8-stop strips (8^7 = 2,097,152 screens, a STAR scatter): both methods."""
    game = long_game(stops=8)
    strip_set = game.strip_sets_for("base")[0]
    _same(analyse_cluster(game, strip_set, full_cycle=True), _transfer(game, strip_set))


# ---------------------------------------------------------------------------
# a game too long to enumerate
# ---------------------------------------------------------------------------
LONG_STRIPS = 40


def long_game(seed: int = 5, stops: int = LONG_STRIPS, star: bool = True):
    """The gallery's 7x7 candy game with seeded strips of ``stops`` stops and (``star``) a STAR scatter."""
    import random
    import re

    text = (Path(__file__).parents[1] / "reelsets" / "examples" / "cluster_tumble_7x7.toml").read_text(encoding="utf-8")
    rng = random.Random(seed)
    names = ["RED", "ORANGE", "YELLOW", "GREEN", "BLUE", "PURPLE", "PINK", "STAR"][: 8 if star else 7]
    weights = [2, 3, 4, 5, 6, 7, 8, 1][: 8 if star else 7]

    def strip(reel: int) -> str:
        drawn = rng.choices(names, weights=weights, k=stops)
        if reel % 2 == 0:
            drawn[rng.randrange(stops)] = "WILD"
        return " ".join(drawn)

    text = re.sub(r'reel(\d) = "[^"]*"', lambda m: f'reel{m.group(1)} = "{strip(int(m.group(1)))}"', text)
    if not star:
        return loads_game(text, "long_cluster.toml")
    text = text.replace('PINK = {}\n', 'PINK = {}\nSTAR = { kind = "scatter" }\n')
    text = text.replace('[features]', '[scatters.STAR]\nsymbols = ["STAR"]\npays = { 3 = 2, 4 = 10 }\n\n[features]')
    return loads_game(text, "long_cluster.toml")


def test_a_long_strip_game_is_exact_and_agrees_with_the_reference_and_the_simulator():
    """40-stop strips: the transfer prices the first drop exactly (and fast); the reference evaluator on a
    sample of screens and the compiled first drops of the simulator agree with it within their sampling error."""
    game = long_game()
    strip_set = game.strip_sets_for("base")[0]
    assert count_combinations(game, strip_set) > 10 ** 10  # far beyond the enumeration
    analysis = analyse_cluster(game, strip_set, full_cycle=False)
    m = analysis.moments
    assert analysis.cycle == LONG_STRIPS ** 7 and m.max_exact and 0 < m.hit < 1
    scale = pay_scale(game)
    star = scatter_pay_tables(game, scale)  # the STAR group's pays in pay units by count
    sd = math.sqrt(m.second - m.mean ** 2)
    # the reference evaluator (slow, obviously right) on seeded screens
    rng = np.random.default_rng(11)
    n = 3000
    total = hits = 0
    top = 0
    for _ in range(n):
        stops = [int(rng.integers(LONG_STRIPS)) for _ in range(game.reels)]
        shown = [[strip.symbols[(s + k) % LONG_STRIPS] for k in range(7)] for strip, s in zip(strip_set.reels, stops)]
        pay = scale.units(game.bet.credits(reference.cluster_screen(game, shown)[0], game.bet.line_pay_unit))
        pay += int(star.pays[0, min(sum(reel.count("STAR") for reel in shown), int(star.cap[0]))])
        total += pay
        hits += pay > 0
        top = max(top, pay)
    assert abs(total / n - m.mean) < 4.5 * sd / math.sqrt(n), (total / n, m.mean)
    assert abs(hits / n - m.hit) < 4.5 * math.sqrt(m.hit * (1 - m.hit) / n)
    assert top <= m.max_units
    # the simulator's first drops (the tumble round's exact component)
    from workbench.simulate import simulate

    spins = 400_000
    result = simulate(game, spins, seed=12)
    first = result.components["cluster"].value * scale.cost_units
    cluster_mean = sum(analysis.combo_units) / analysis.cycle
    assert abs(first - cluster_mean) < 4.5 * sd / math.sqrt(spins), (first, cluster_mean)
    # the PAR sheet is exact without a distribution, and says why
    sheet = par(game, full_cycle="auto")
    assert sheet.distribution is None and "column transfer" in sheet.distribution_note
    assert math.isclose(sheet.rtp, m.mean / scale.cost_units, rel_tol=1e-12)


def test_full_cycle_true_still_needs_the_enumeration():
    game = long_game()
    with pytest.raises(ExactBudgetError, match="full cycle of a cluster game evaluates every screen"):
        par(game, full_cycle=True)


# ---------------------------------------------------------------------------
# budgets
# ---------------------------------------------------------------------------
def test_budgets_are_kept_with_clear_reasons(monkeypatch):
    """Both routes: over a budget the transfer says which, with the game and strip set (the automaton route: the
    scatter groups' sweep and one symbol's states; the route over runs: one symbol's steps; both: 64-bit counts)."""
    import workbench.exact.cluster_routes as routes

    game = load_game(DATA / "cluster_5x4.toml")
    strip_set = game.strip_sets["base"]
    where = "Cluster test 5x4: strip set 'base'"
    monkeypatch.setattr(transfer, "moment_route_applies", lambda *a: False)
    monkeypatch.setattr(transfer, "TRANSFER_STATES_MAX", 3)
    with pytest.raises(ExactBudgetError, match=f"{where}: the scatter groups' column transfer is over .* 3 states on a "
                                               "reel; simulate"):
        _transfer(game, strip_set)
    monkeypatch.setattr(transfer, "TRANSFER_STATES_MAX", 4_000_000)
    monkeypatch.setattr(transfer, "LAYER_NODES_MAX", 2)
    with pytest.raises(ExactBudgetError, match=f"{where}: one symbol's clusters need more than 2 states per reel"):
        _transfer(game, strip_set)
    monkeypatch.undo()
    monkeypatch.setattr(routes, "SINGLE_WORK_MAX", 5)
    with pytest.raises(ExactBudgetError, match=f"{where}: one symbol's clusters are over 5 steps or .* states on a reel "
                                               "of the column transfer; simulate"):
        _transfer(game, strip_set)
    monkeypatch.undo()
    monkeypatch.setattr(transfer, "INT_SUM_MAX", 1000)
    with pytest.raises(ExactBudgetError, match="x the cells of the screen .* does not fit the 64-bit counts"):
        _transfer(game, strip_set)


def test_over_the_joint_budget_the_rtp_stays_exact_and_the_rest_is_left_out(monkeypatch):
    """The automaton route past JOINT_WORK_MAX: the pay sum comes from one sweep per symbol, the same exact RTP; the
    std and max win are left out (SpinMoments.missing), the hit frequency kept when the sweep over unpaid screens
    fits, and a PAR sheet then says so in its notes and in every figure's source."""
    game = load_game(DATA / "cluster_5x4.toml")
    strip_set = game.strip_sets["base"]
    joint = _transfer(game, strip_set)
    exact_rtp = par(game, full_cycle=False).rtp_exact
    monkeypatch.setattr(transfer, "moment_route_applies", lambda *a: False)
    monkeypatch.setattr(transfer, "JOINT_WORK_MAX", 1)
    alone = _transfer(game, strip_set)
    assert alone.moments.mean == joint.moments.mean and alone.combo_units == joint.combo_units
    assert set(alone.moments.missing) == {"std", "hit_frequency", "max_win"}  # 1 step: the unpaid sweep is over it too
    assert math.isnan(alone.moments.second) and not alone.moments.max_exact and alone.moments.max_upper >= joint.moments.max_units
    sheet = par(game, full_cycle=False)
    assert sheet.rtp_exact == exact_rtp
    assert set(sheet.missing) == {"std", "hit_frequency", "max_win"} and math.isnan(sheet.std)
    assert sheet.source("std") == sheet.source("volatility_index_90") == "not computed"
    assert any("not exact: the standard deviation" in note for note in sheet.notes)


def test_the_route_over_runs_leaves_out_one_figure_at_a_time(monkeypatch):
    """The route over runs with the joint sweep refused: the std from the pairs and the hit frequency from the
    screens paying nothing stay exact, the max win alone is left out; past the pairs' budget the std goes too, past
    the unpaid sweep's the hit frequency; the RTP and the combinations never change.  With ``quick`` (the editors)
    the joint sweep refused, only the RTP and the combinations are left."""
    import workbench.exact.cluster_routes as routes
    import workbench.exact.cluster_unpaid as unpaid

    game = long_game(stops=8, star=False)
    strip_set = game.strip_sets_for("base")[0]
    joint = _transfer(game, strip_set)
    assert joint.moments.max_exact and not joint.moments.missing
    monkeypatch.setattr(routes, "MOMENT_WORK_MAX", -1)
    pairs = _transfer(game, strip_set)
    assert pairs.moments.missing == ("max_win",) and pairs.moments.hit == joint.moments.hit
    assert math.isclose(pairs.moments.second, joint.moments.second, rel_tol=1e-12)
    assert pairs.moments.mean == joint.moments.mean and pairs.combo_units == joint.combo_units
    monkeypatch.setattr(routes, "PAIR_WORK_MAX", 10)
    assert _transfer(game, strip_set).moments.missing == ("std", "max_win")
    monkeypatch.setattr(unpaid, "UNPAID_WORK_MAX", 10)
    alone = _transfer(game, strip_set)
    assert alone.moments.missing == ("std", "hit_frequency", "max_win") and alone.combo_hits == joint.combo_hits
    monkeypatch.undo()
    monkeypatch.setattr(routes, "QUICK_WORK_MAX", -1)
    quick = analyse_cluster(game, strip_set, full_cycle=False, budget=0, quick=True)
    assert quick.moments.missing == ("std", "hit_frequency", "max_win") and quick.moments.mean == joint.moments.mean
    assert "the editors' quick figures leave the rest to the simulation" in quick.moments.missing_note


def test_pay_sums_past_64_bits_are_exact_integers(monkeypatch):
    """A game whose weight x pay sums need more than 64 bits: the same transfer with every pay x k (k = 2^42) gives
    exactly k x the 64-bit sum, checked in Python integers (the float sum alone could not: it rounds), by every
    route."""
    import workbench.exact.cluster_routes as routes

    game = load_game(DATA / "cluster_5x4.toml")
    strip_set = game.strip_sets["base"]
    calls = []
    original = transfer.transfer_analysis
    monkeypatch.setattr(transfer, "transfer_analysis", lambda *a, **k: calls.append(a) or original(*a, **k))
    _transfer(game, strip_set)
    where, reels, rows, pays, combo_of, n_combos, cycle, upper, gmode, gcap, gpays = calls[0]
    k = 1 << 42
    for name, patch in (("runs", None), ("runs per symbol", (routes, "MOMENT_WORK_MAX", -1)),
                        ("automaton", (transfer, "moment_route_applies", lambda *a: False)),
                        ("automaton per symbol", (transfer, "JOINT_WORK_MAX", 1))):
        if patch is not None:
            monkeypatch.setattr(*patch)
        small = original(where, reels, rows, pays, combo_of, n_combos, cycle, upper, gmode, gcap, gpays)
        assert cycle * upper < 1 << 63 <= cycle * upper * k  # the small game fits 64 bits, the large one does not
        big = original(where, reels, rows, pays * k, combo_of, n_combos, cycle, upper * k, gmode, gcap, gpays * k)
        assert isinstance(big["pay"], int) and big["pay"] == k * small["pay"] and big["pay"] >= 1 << 63, name
        assert big["method"] == ("per symbol" if "per symbol" in name else "joint"), name
        if big["method"] == "joint":
            assert big["zero"] == small["zero"] and big["max_units"] == k * small["max_units"]
            assert math.isclose(big["square"], k * k * small["square"], rel_tol=1e-9)


def test_exact_from_residue_picks_the_one_integer_and_refuses_a_loose_bound():
    exact = 3 * (1 << 64) + 12345
    approx = float(exact)  # rounds: 2^-52 relative is about 2^14 here
    assert int(approx) != exact and transfer.exact_from_residue("w", exact % (1 << 64), approx, 10, 1 << 70) == exact
    with pytest.raises(ExactBudgetError, match="too loose"):
        transfer.exact_from_residue("w", 0, 0.0, 1 << 20, 1 << 100)


def test_reels_taller_than_eight_rows_are_refused(tmp_path):
    text = "\n".join([
        'format_version = 1', 'name = "Tall"', 'game_module = "classic"', '[pays]', 'rule = "cluster"',
        '[grid]', 'reels = 2', 'rows = 9', '[bet]', 'cost = 10', 'line_bet = 1', 'line_pay_unit = "total_bet"',
        '[symbols]', 'A = {}', 'B = {}', '[paytable]', 'A = { 5 = 1 }',
        '[strip_sets.base]', 'mode = "base"', 'reel1 = "' + " ".join("AB" [i % 2] for i in range(12)) + '"',
        'reel2 = "' + " ".join("AAB"[i % 3] for i in range(12)) + '"'])
    game = _load(tmp_path, text)
    with pytest.raises(ExactBudgetError, match="at most 8 rows, not 9"):
        _transfer(game, game.strip_sets["base"])


def test_cli_par_of_the_gallery_game_is_exact_and_plainly_written(capsys):
    """`workbench par` on the 40-stop gallery game: exact by the transfer, the note says what is not computed, and
    no figure in scientific notation (probabilities of 1 in a million print as plain decimals)."""
    from workbench import cli

    assert cli.main(["par", "examples/cluster_tumble_7x7"]) == 0
    out = capsys.readouterr().out
    assert "column transfer" in out and "163,840,000,000" in out
    assert re.search(r"\d[eE][+-]\d", out) is None, [l for l in out.splitlines() if re.search(r"\d[eE][+-]\d", l)][:3]
    assert cli.plain_number(2.57349e-05) == "0.0000257349" and cli.plain_number(92044900.3) == "92,044,900"
