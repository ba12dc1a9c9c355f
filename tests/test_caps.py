"""The max-win cap of a bet mode (``[bet_modes.NAME] max_win``, ``[bet] max_win``): validation, the cap applied to
every round where it is recorded (any round template), exact + conditional equal to end to end under a cap (also
when the first screen alone can pass it), and the cap's RTP cost reported per mode (CLI, report table, workbook)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from randomgames import random_game_text
from workbench import reference
from workbench.errors import ReelsetError, SimulationError
from workbench.io import loads_game, reelsets_dir
from workbench.simulate import estimate_bet_modes, estimate_rtp, round_model, simulate
from workbench.simulate.chunks import BUCKET_EDGES, Accumulators, ChunkResult, bucket_lut, record_round, record_single
from workbench.simulate.invariants import check_invariants

COINS = reelsets_dir() / "examples" / "hold_and_respin_coins.toml"
FREE = reelsets_dir() / "examples" / "ways_free_spins.toml"
STARS = reelsets_dir() / "super_10_stars.toml"
BIER = reelsets_dir() / "bier_haus_oktober_fest.toml"


def capped(path, *, bet: str | None = None, modes: dict | None = None, name: str = "capped.toml"):
    """The gallery file at ``path`` with ``max_win = bet`` in [bet] and ``max_win`` in [bet_modes.NAME] (``modes``)."""
    text = path.read_text()
    if bet is not None:
        assert text.count("\n[bet]") == 1
        text = text.replace("\n[bet]", f"\n[bet]\nmax_win = {bet}", 1)
    for mode, value in (modes or {}).items():
        head = f"\n[bet_modes.{mode}]"
        assert text.count(head) == 1
        text = text.replace(head, f"{head}\nmax_win = {value}", 1)
    return text


def _problems(text: str):
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "caps.toml")
    return info.value.problems


# -- validation ----------------------------------------------------------------
@pytest.mark.parametrize("where, value, message", [
    ("mode", "0", "max_win must be above 0"),
    ("mode", "-20", "max_win must be above 0"),
    ("mode", "\"5000x\"", "expected a number"),
    ("mode", "true", "expected a number"),
    ("mode", "nan", "expected a finite number"),
    ("mode", "1.1234567", "more than 6 decimal places"),
    ("bet", "0", "max_win must be above 0"),
    ("bet", "-1.5", "max_win must be above 0"),
    ("bet", "[5000]", "expected a number"),
    ("bet", "inf", "expected a finite number"),
])
def test_bad_max_win_names_file_line_and_key(where, value, message):
    if where == "mode":
        text, key = capped(COINS, modes={"ante": value}), "bet_modes.ante.max_win"
    else:
        text, key = capped(COINS, bet=value), "bet.max_win"
    problems = _problems(text)
    assert any(p.key == key and message in p.message and p.line and p.file == "caps.toml" for p in problems), problems


def test_max_win_in_bet_is_the_base_cap_and_every_modes_default():
    game = loads_game(capped(COINS, bet=500, modes={"ante": 300}), "caps.toml")
    assert game.max_win == 500 and game.bet.max_win == 500
    assert game.in_bet_mode("ante").max_win == 300  # its own
    assert game.in_bet_mode("coin_buy").max_win == 500  # the default
    assert loads_game(COINS.read_text(), "plain.toml").in_bet_mode("ante").max_win is None
    only_mode = loads_game(capped(COINS, modes={"coin_buy": 1234.5}), "caps.toml")
    assert only_mode.max_win is None and only_mode.in_bet_mode("coin_buy").max_win == Fraction(24_69, 2)
    model = round_model(only_mode.in_bet_mode("coin_buy"))
    assert model.max_win_units == 1234.5 * model.params.cost_units and model.cap_total_bets == 1234.5
    assert "cap" in model.components and {"max_win", "max_win:base"} <= set(model.counters)
    plain = round_model(only_mode)
    assert plain.max_win_units == 0 and "max_win" not in plain.counters


# -- the cap on every round ----------------------------------------------------
def _component(result, name: str) -> int:
    return int(result.raw.comp_sum[result.model.components.index(name)]) if name in result.model.components else 0


@pytest.mark.parametrize("path, bet, modes, mode, cap", [
    (COINS, None, {"ante": 10}, "ante", 10),  # hold and respin: the first screen alone can pass 10x
    (FREE, 10, None, "base", 10),  # free spins (ways)
    (STARS, 10, None, "base", 10),  # a shipped game with its own round (its quiet spins recorded by record_single)
    (BIER, 100, None, "base", 100),  # a shipped game with its own cap as well
])
def test_the_cap_holds_on_every_round(path, bet, modes, mode, cap):
    """The same seed plays the same rounds with and without the cap (the cap changes what is recorded only): every
    component but ``cap`` and every counter is the same, ``cap`` takes exactly the excess, and the rounds at the
    cap are the uncapped rounds of at least the cap (``cap`` is a bucket edge of the win distribution)."""
    game = loads_game(capped(path, bet=bet, modes=modes), "caps.toml").in_bet_mode(mode)
    free = loads_game(path.read_text(), "free.toml").in_bet_mode(mode)
    n = 100_000
    ours, theirs = simulate(game, n, seed=11), simulate(free, n, seed=11)
    cost = ours.cost_units
    cap_units = cap * cost
    assert ours.model.max_win_units == cap_units
    assert ours.max_win <= cap and ours.max_win_units <= cap_units
    for name in theirs.model.components:
        if name != "cap":
            assert _component(ours, name) == _component(theirs, name), name
    for name, count in theirs.counters.items():
        assert ours.counters[name] == count, name
    taken = _component(ours, "cap") - _component(theirs, "cap")
    assert taken == ours.total_won_units - theirs.total_won_units <= 0
    edge = int(np.flatnonzero(BUCKET_EDGES == cap)[0])
    reached = int(theirs.bucket_counts[edge:].sum())
    assert ours.counters["max_win"] == reached and ours.max_win_probability == reached / n
    assert reached > 0 and (taken < 0 or theirs.max_win <= cap)
    if cap_units <= theirs.max_win_units:
        assert ours.max_win_units == cap_units
    checks = {c.name: c for c in check_invariants(ours)}
    assert checks["max_win_cap"].ok and checks["components_sum"].ok and checks["cost"].ok, checks


def _accumulators(n_comp: int, info: int, exact: tuple, cap: int, stratum: bool):
    out = ChunkResult.empty(n_comp, 3)
    is_exact = np.zeros(n_comp, dtype=np.bool_)
    is_exact[list(exact)] = True
    is_info = np.zeros(n_comp, dtype=np.bool_)
    is_info[info] = True
    edges = BUCKET_EDGES * 100
    acc = Accumulators(
        amounts=np.zeros(n_comp, dtype=np.int64), adjust=np.zeros(n_comp), adjusting=np.array([stratum]),
        events=np.zeros(3, dtype=np.int64), is_exact=is_exact, is_info=is_info, edges_units=edges,
        bucket_lut=bucket_lut(edges, 100), comp_sum=out.comp_sum, comp_sq=out.comp_sq, comp_sq_raw=out.comp_sq_raw, comp_adj=out.comp_adj,
        totals=out.totals, squares=out.squares, extra=out.extra, hist=out.hist, maxwin=out.maxwin,
        cap=np.array([cap, n_comp - 1, 1, 2] if cap else [0, 0, 0, 0], dtype=np.int64), known=np.full(n_comp, np.nan))
    return acc, out


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds=st.lists(st.tuples(st.integers(0, 5_000), st.integers(0, 5_000), st.integers(-2_000, 5_000),
                                 st.integers(-5_000, 5_000)), min_size=1, max_size=12),
       cap=st.integers(1, 6_000), stratum=st.booleans(), single=st.booleans())
def test_recording_caps_any_round(rounds, cap, stratum, single):
    """Components 0-1: the base screen (exact), 2: a feature (which may take some of the base screen's win back),
    3: informational, 4: ``cap``.  Each recorded round
    is its total cut at the cap; the excess is in ``cap``; in conditional mode the base screen's own excess is
    added back as an adjustment (the stratum then estimates E[R - min(B, cap)])."""
    acc, out = _accumulators(5, 3, (0, 1), cap, stratum)
    rounds = [list(a) for a in rounds]
    want_total = want_base = hits = base_hits = taken = adjusted = base_square = 0
    top = 0
    for amounts in rounds:
        acc.amounts[:4] = amounts
        if single:  # record_single: the round paid component 0 only
            acc.amounts[1:4] = 0
            amounts = [amounts[0], 0, 0, 0]
        r, b = amounts[0] + amounts[1] + amounts[2], amounts[0] + amounts[1]
        (record_single(acc, 0) if single else record_round(acc))
        assert not acc.amounts.any() and not acc.adjust.any()
        want_total += min(r, cap)
        want_base += b
        base_square += min(b, cap) ** 2  # the base screen's second moment as the capped round paid it
        hits += r >= cap
        base_hits += b >= cap
        taken += min(cap - r, 0)
        adjusted += max(b - cap, 0) if stratum else 0
        top = max(top, min(r, cap))
    assert out.won == want_total and out.base_won == want_base and out.max_win_units == top <= cap
    assert acc.events[1] == hits and acc.events[2] == base_hits
    assert out.comp_sum[4] == taken and out.comp_adj[4] == adjusted
    assert out.extra_sum == pytest.approx(want_total - want_base + adjusted)
    assert out.base_squares == base_square
    assert out.comp_sum[3] == (0 if single else sum(a[3] for a in rounds))  # informational: never capped


# -- exact + conditional under a cap -------------------------------------------
@pytest.mark.parametrize("path, bet, modes, mode, end_to_end, often", [
    (COINS, None, {"ante": 20}, "ante", True, True),  # the first screen alone pays up to 760x
    (FREE, 250, None, "base", True, False),  # the first screen pays at most 232x: the cap bites with the free spins
    (FREE, 250, None, "bonus_buy", False, True),  # a bought feature, no first screen: its state is natural play
])
def test_conditional_agrees_with_end_to_end_under_a_cap(path, bet, modes, mode, end_to_end, often):
    """``often``: the cap is reached often enough (1 in 2,000 rounds or more) for the end-to-end run to see it.
    ``end_to_end``: the cap applies to first screen and feature together, and these templates' states start the
    feature without the trigger screen, so the estimate plays every round end to end (simulate/plan.py)."""
    game = loads_game(capped(path, bet=bet, modes=modes), "caps.toml").in_bet_mode(mode)
    cost = float(game.bet_mode.cost)
    est = estimate_rtp(game, precision=0.003, seed=6)  # x the mode's cost, as every figure
    sim = simulate(game, 1_000_000, seed=5)
    assert ("end to end" in est.plan) == end_to_end and est.base_cap is None
    both = math.hypot(sim.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(sim.rtp - est.rtp) < 4.5 * both, (sim.rtp, est.rtp)
    cap_est, cap_sim = est.components["cap"], sim.components["cap"]
    p, q = est.max_win_probability, sim.max_win_probability
    assert cap_est.value < 0 and 0 < p < 1
    if often:
        assert cap_sim.value < 0 and abs(cap_est.value - cap_sim.value) < 4.5 * math.hypot(cap_est.ci95, cap_sim.ci95) / 1.96
        assert abs(p - q) < 4.5 * math.hypot(est.max_win_probability_ci95, sim.max_win_probability_ci95) / 1.96
    assert est.max_win * cost <= float(game.max_win) * (1 + 1e-12)  # the cap is x the base total bet, as declared
    free = estimate_rtp(loads_game(path.read_text(), "free.toml").in_bet_mode(mode), precision=0.003, seed=6)
    # the cap costs what its component takes (the capped and the free game, each with its own noise)
    assert abs(est.rtp - (free.rtp + cap_est.value)) < 4.5 * math.hypot(est.rtp_ci95, free.rtp_ci95, cap_est.ci95) / 1.96


def test_held_feature_terms_give_the_estimates_figure_under_a_cap():
    """The editors' and the tuner's whole-game figure (exact first screen + held terms) is the estimate's RTP under a
    cap too: the ante's first screen pays up to 760x over its cap of 20x and its coin states start without the
    trigger screen, so the estimate simulates every round end to end (one state, probability 1, whatever the
    strips) and the held terms say so; the standard deviation is the rounds' own and agrees with an end-to-end run's."""
    from workbench.tuning import FeatureTerms, measure

    game = loads_game(capped(COINS, modes={"ante": 20}), "caps.toml").in_bet_mode("ante")
    est = estimate_rtp(game, precision=0.01, seed=3)
    terms = FeatureTerms.from_estimate(est)
    assert terms.end_to_end and [s.name for s in est.strata] == ["whole round (end to end)"]
    held = measure(game, "base", terms, strata=True)
    assert held["rtp"] == pytest.approx(est.rtp, abs=1e-12)
    sim = simulate(game, 400_000, seed=4)
    assert est.std == pytest.approx(sim.std, rel=0.05), (est.std, sim.std)


def test_a_first_screen_above_the_cap_without_a_full_cycle_is_estimated_end_to_end():
    """What the cap takes from first screens that alone pass it needs their full-cycle distribution; over its budget
    (243 ways: 872 million outcome combinations) the estimate no longer refuses: it plays every round end to end and
    says why, and agrees with an end-to-end simulation."""
    game = loads_game(capped(reelsets_dir() / "examples" / "ways_243.toml", bet=60), "caps.toml")
    est = estimate_rtp(game, precision=0.005, seed=1)
    assert "end to end" in est.plan and "first screen alone can pay 232 x total bet, above max_win 60" in est.plan
    sim = simulate(game, 1_000_000, seed=2)
    assert abs(sim.rtp - est.rtp) < 4 * math.hypot(sim.rtp_ci95, est.rtp_ci95) / 1.96


@st.composite
def capped_random_game(draw):
    text = draw(random_game_text(max_reels=3, max_stops=5))
    cap = draw(st.sampled_from([1, 2, 3, 5, 10, 40]))
    return text.replace("\ncost_reason", f"\nmax_win = {cap}\ncost_reason", 1), cap


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=capped_random_game())
def test_a_capped_base_game_is_exact(case):
    """A game that pays its first screen only: exact + conditional is E[min(B, cap)] exactly (the reference
    evaluator's full cycle), with no interval; end to end never passes the cap."""
    text, cap = case
    game = loads_game(text, "random.toml")
    sets = game.strip_sets_for("base")
    total = sum(s.weight for s in sets)
    cap_credits = cap * game.bet.cost
    mean = Fraction(0)
    for strip_set in sets:
        ref = reference.enumerate_cycle(game, strip_set)
        mean += sum((Fraction(min(w, cap_credits) * n, ref["cycle"]) for w, n in ref["wins"].items()), Fraction(0)) \
            * Fraction(strip_set.weight, total)
    est = estimate_rtp(game, precision=0.01, seed=1)
    assert est.rtp == pytest.approx(float(mean / game.bet.cost), rel=1e-9, abs=1e-12)
    if not est.strata:
        assert est.rtp_ci95 == 0
    sim = simulate(game, 2_000, seed=3)
    assert sim.max_win <= cap and {c.name: c.ok for c in check_invariants(sim)}["max_win_cap"]


# -- the cap's cost, reported --------------------------------------------------
@pytest.fixture(scope="module")
def coin_modes():
    game = loads_game(capped(COINS, bet=50, modes={"ante": 20}), str(COINS.parent / "caps.toml"))
    return game, estimate_bet_modes(game, precision=0.01, seed=3)


def test_the_cap_cost_is_minus_the_cap_component(coin_modes):
    game, modes = coin_modes
    by_name = {m.name: m for m in modes}
    assert [m.name for m in modes] == ["base", "ante", "coin_buy", "wheel_buy", "prize_spins"]
    assert by_name["base"].max_win_cap == 50 and by_name["ante"].max_win_cap == 20 and by_name["coin_buy"].max_win_cap == 50
    assert by_name["prize_spins"].max_win_cap == 50 and by_name["wheel_buy"].max_win_cap == 50
    for m in modes:
        cap = m.estimate.components["cap"]
        assert m.cap_cost.value == pytest.approx(-cap.value, rel=1e-12) and m.cap_cost.value > 0  # both x its cost
        assert m.cap_cost.ci95 == pytest.approx(cap.ci95, rel=1e-12)
        assert m.max_win_probability == m.estimate.max_win_probability and 0 < m.max_win_probability < 1
        assert m.max_win * m.cost <= m.max_win_cap * (1 + 1e-12)
        d = m.to_dict()
        assert d["max_win_cap"] == m.max_win_cap and d["cap_cost"] == m.cap_cost.value
    # the buy's cap cost x its cost, end to end
    buy = by_name["coin_buy"]
    sim = simulate(game.in_bet_mode("coin_buy"), 100_000, seed=4)
    end_to_end = -sim.components["cap"].value  # x the buy's cost, as the estimate
    assert end_to_end == pytest.approx(-float(sim.component_totals()["cap"]) / sim.spins, rel=1e-12)
    assert abs(end_to_end - buy.cap_cost.value) < 4.5 * math.hypot(sim.components["cap"].ci95, buy.cap_cost.ci95) / 1.96


def test_report_table_and_workbook_show_the_cap(coin_modes, tmp_path):
    from openpyxl import load_workbook

    from workbench.exact import par
    from workbench.report.tables import bet_modes_table
    from workbench.report.workbook import write_par_workbook

    game, modes = coin_modes
    table = bet_modes_table(modes)
    assert table.loc["ante", "max_win cap (x total bet)"] == "20x"
    assert table.loc["base", "cap RTP cost (x its cost)"].startswith(f"{100 * modes[0].cap_cost.value:.4f} % ± ")
    assert table.loc["coin_buy", "rounds reaching the cap"].startswith("1 in ")
    plain = bet_modes_table([m for m in estimate_bet_modes(loads_game(COINS.read_text(), "plain.toml"), 0.05, 3)])
    assert set(plain["max_win cap (x total bet)"]) == {"-"}
    path = write_par_workbook(tmp_path / "caps.xlsx", game, par(game, full_cycle=False), bet_modes=modes)
    rows = {r[0].value: r for r in load_workbook(path)["Summary"].iter_rows(min_row=2) if r[0].value}
    assert rows["Bet mode ante: max win cap"][1].value == 20
    assert rows["Bet mode ante: max win cap RTP cost"][1].value == pytest.approx(modes[1].cap_cost.value)
    assert rows["Bet mode coin_buy: rounds reaching the max win cap"][1].value == pytest.approx(modes[2].max_win_probability)
    assert "x its cost" in rows["Bet mode base: max win cap RTP cost"][2].value


def test_cli_rtp_reports_the_cap_of_every_mode(tmp_path):
    path = tmp_path / "free_capped.toml"
    path.write_text(capped(FREE, bet=250))
    run = [sys.executable, "-m", "workbench.cli", "rtp", str(path), "--precision", "0.004"]
    out = subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [m["max_win_cap"] for m in data["bet_modes"]] == [250, 250]
    assert all(m["cap_cost"] > 0 and 0 < m["max_win_probability"] < 1 for m in data["bet_modes"])
    assert data["max_win_cap"] == 250 and data["components"]["cap"]["value"] == -data["bet_modes"][0]["cap_cost"]
    text = subprocess.run(run + ["--bet-mode", "bonus_buy"], capture_output=True, text=True, timeout=600)
    assert text.returncode == 0, text.stderr
    assert "max_win cap          250.00 x total bet (as declared), reached in" in text.stdout and "costs" in text.stdout
    row = [line for line in text.stdout.splitlines() if line.strip().startswith("bonus_buy")][0]
    assert "cap cost" in text.stdout and row.split()[-4] == "250"


def test_a_cap_below_the_first_screens_max_win_is_not_in_the_exact_par():
    from workbench.simulate import exactness

    path = reelsets_dir() / "examples" / "classic_any_bar.toml"  # pays its first screen only, at most 2,500x
    assert exactness(loads_game(capped(path, bet=2500), "caps.toml"))[0]  # reaching the cap takes nothing
    exact, why = exactness(loads_game(capped(path, bet=100), "caps.toml"))
    assert not exact and "max_win 100 x total bet cuts first screens" in why
    game = loads_game(capped(path, bet=100), "caps.toml")
    est = estimate_rtp(game, precision=0.01, seed=1)
    d = est.base_cap
    assert est.rtp_ci95 == 0 and est.max_win == 100 and est.max_win_probability == float(d.probability) > 0
    assert est.components["cap"].value == pytest.approx(-float(d.excess_units) / est.cost_units, rel=1e-12)
    assert est.rtp == pytest.approx(est.sheet.rtp + est.components["cap"].value, rel=1e-12)


def test_workers_play_the_same_capped_rounds():
    """Worker processes rebuild the model from the file's text: the same cap, the same sums as one process."""
    game = loads_game(capped(COINS, modes={"ante": 10}), "caps.toml").in_bet_mode("ante")
    spins = 2 * 2**20 + 5_000  # three blocks: jobs on both workers
    one = simulate(game, spins, seed=9)
    two = simulate(game, spins, seed=9, workers=2)
    assert one.counters == two.counters and one.counters["max_win"] > 0
    assert one.raw.comp_sum.tolist() == two.raw.comp_sum.tolist() and two.max_win <= 10
