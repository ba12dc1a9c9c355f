"""Scatter pays ("pay anywhere"): the exact engine against brute force, and the simulator against it.

The brute-force evaluator below is written from the rule alone: for every
stop combination it builds the screen from the strips, counts each paying
symbol's cells on the whole screen and pays ``pay_for_count``, then adds the
scatter groups (height-1 scatter symbols here, so a group's count is the
cells showing its members; adjacent groups count reels from reel 1 while
each shows at least one).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from unittest.mock import patch

import numpy as np
import pytest
from randomgames import with_upper_end
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import registry
from workbench.errors import ExactBudgetError
from workbench.exact import anywhere
from workbench.exact.anywhere import analyse_scatter_pays
from workbench.io import load_game
from workbench.model import pay_for_count
from workbench.pays.scale import pay_scale


# ---------------------------------------------------------------------------
# games
# ---------------------------------------------------------------------------
def _fmt(pays: dict) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in pays.items()) + " }"


def _pays(draw, top: int, low_bias: bool = True, upper_end: bool = True) -> dict:
    """Pays by count; a paytable's (``upper_end``) sometimes with a band's upper end (scatter groups have none)."""
    lo = min(draw(st.sampled_from([1, 2, 3, 3])), top)
    hi = max(lo, top // 2 + 1) if low_bias and draw(st.booleans()) else top
    counts = sorted(draw(st.lists(st.integers(lo, hi), min_size=1, max_size=3, unique=True)))
    values = sorted(draw(st.lists(st.integers(0, 20), min_size=len(counts), max_size=len(counts))))
    pays = dict(zip(counts, values))
    return with_upper_end(draw, pays, top) if upper_end else pays


@st.composite
def anywhere_game_text(draw) -> str:
    reels = draw(st.integers(3, 4))
    if draw(st.booleans()):
        rows = [draw(st.integers(2, 3))] * reels
    else:
        rows = [draw(st.integers(2, 3)) for _ in range(reels)]
    cells = sum(rows)
    paying = [f"P{i}" for i in range(draw(st.integers(3, 4)))]
    symbols = {name: "{}" for name in paying}
    if draw(st.booleans()):
        symbols["X"] = "{}"  # shown, never pays
    scatter = draw(st.sampled_from(["none", "anywhere", "adjacent", "two"]))
    if scatter != "none":
        symbols["S"] = '{ kind = "scatter" }'
    unit = draw(st.sampled_from(["line_bet", "total_bet", "bet_multiplier"]))
    text = ['format_version = 1', 'name = "Anywhere test"', 'game_module = "classic"',
            '[pays]', 'rule = "scatter_pays"',
            '[grid]', f'reels = {reels}', f'rows = {rows}',
            '[bet]', 'cost = 10', f'line_bet = {draw(st.sampled_from([1, 2]))}', f'line_pay_unit = "{unit}"',
            '[symbols]'] + [f"{k} = {v}" for k, v in symbols.items()]
    text.append("[paytable]")
    for name in paying:
        text.append(f"{name} = {_fmt(_pays(draw, cells))}")
    groups = []
    if scatter in ("anywhere", "adjacent", "two"):
        members = ["S"] + (["P0"] if draw(st.booleans()) else [])
        groups.append(("S", members, "anywhere" if scatter == "anywhere" else "adjacent_from_first_reel"))
    if scatter == "two":
        members = draw(st.sampled_from([["P1"], ["S", "P1"], ["S"]]))
        groups.append(("G2", members, draw(st.sampled_from(["anywhere", "adjacent_from_first_reel"]))))
    for name, members, counting in groups:
        pays = _pays(draw, reels + 2, low_bias=False, upper_end=False)
        if not any(pays.values()):
            pays[max(pays)] = 1
        text += [f"[scatters.{name}]", "symbols = [" + ", ".join(f'"{m}"' for m in members) + "]",
                 f'counting = "{counting}"', f"pays = {_fmt(pays)}"]
    names = list(symbols)
    text += ["[strip_sets.base]", 'mode = "base"']
    for r in range(reels):
        length = draw(st.integers(rows[r], 5))
        tokens = [draw(st.sampled_from(names)) for _ in range(length)]
        if draw(st.booleans()):
            weights = [draw(st.integers(0, 3)) for _ in tokens]
            if not any(weights):
                weights[0] = 1
            tokens = [f"{t}:{w}" for t, w in zip(tokens, weights)]
        text.append(f'reel{r + 1} = "{" ".join(tokens)}"')
    return "\n".join(text) + "\n"


def _load(tmp_path, text: str, name: str = "game.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_game(str(path))


# ---------------------------------------------------------------------------
# the independent evaluator
# ---------------------------------------------------------------------------
def brute_force(game, strip_set):
    """Every stop combination: (histogram {units: weight}, hits {(symbol, listed count): weight})."""
    scale = pay_scale(game)
    unit = game.bet.line_pay_unit
    paying = [x for x in game.symbols if any(p > 0 for p in game.paytable.get(x, {}).values())]
    hist: dict = {}
    hits: dict = {}
    for stops in itertools.product(*[range(len(strip.symbols)) for strip in strip_set.reels]):
        weight = 1
        screen = []
        for i, (strip, stop) in enumerate(zip(strip_set.reels, stops)):
            weight *= int(strip.stop_weights[stop])
            screen.append([strip.symbols[(stop + r) % len(strip.symbols)] for r in range(game.rows[i])])
        if weight == 0:
            continue
        total = 0
        for x in paying:
            count = sum(reel.count(x) for reel in screen)
            pay = pay_for_count(game.paytable[x], count)
            if pay > 0:
                k = max(c for c in game.paytable[x] if c <= count)
                hits[(x, k)] = hits.get((x, k), 0) + weight
            total += scale.units(game.bet.credits(pay, unit))
        for group in game.scatters.values():
            per_reel = [sum(1 for s in reel if s in group.symbols) for reel in screen]
            if group.counting == "anywhere":
                count = sum(per_reel)
            else:
                count = 0
                for c in per_reel:
                    if c == 0:
                        break
                    count += c
            total += scale.units(game.bet.credits(group.pay(count), group.unit))
        hist[total] = hist.get(total, 0) + weight
    return hist, hits


def _moments(hist: dict):
    cycle = sum(hist.values())
    mean = Fraction(sum(u * w for u, w in hist.items()), cycle)
    second = Fraction(sum(u * u * w for u, w in hist.items()), cycle)
    hit = Fraction(sum(w for u, w in hist.items() if u > 0), cycle)
    return cycle, float(mean), float(second), float(hit), max(hist)


def _close(a: float, b: float, rel: float) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def _check_against_brute(game, analysis, rel=1e-12, exact_max=True):
    strip_set = list(game.strip_sets.values())[0]
    hist, hits = brute_force(game, strip_set)
    cycle, mean, second, hit, top = _moments(hist)
    assert analysis.cycle == cycle
    expected_combos = [(x, k) for x in game.symbols for k in sorted(game.paytable.get(x, {}))
                       if game.paytable[x][k] > 0]
    assert [(c.symbol, c.count) for c in analysis.combinations] == expected_combos
    scale = pay_scale(game)
    for c, h, u in zip(analysis.combinations, analysis.combo_hits, analysis.combo_units):
        assert isinstance(h, int) and isinstance(u, int)
        assert h == hits.get((c.symbol, c.count), 0), c
        assert u == h * scale.units(game.bet.credits(c.pay, game.bet.line_pay_unit))
    m = analysis.moments
    assert _close(m.mean, mean, rel) and _close(m.second, second, rel) and _close(m.hit, hit, rel), (m, mean, second, hit)
    if exact_max:
        assert m.max_exact and m.max_units == top
    else:
        assert m.max_units <= top <= m.max_upper
        assert not m.max_exact or m.max_units == top
    return hist


# ---------------------------------------------------------------------------
# (a) exact = brute force
# ---------------------------------------------------------------------------
SLOW = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@SLOW
@given(anywhere_game_text())
def test_exact_matches_brute_force(tmp_path, text):
    game = _load(tmp_path, text)
    analysis = analyse_scatter_pays(game, list(game.strip_sets.values())[0], pay_scale(game))
    hist = _check_against_brute(game, analysis)
    expected = np.zeros(max(hist) + 1, dtype=np.int64)
    for u, w in hist.items():
        expected[u] = w
    assert analysis.cycle_note is None
    assert np.array_equal(analysis.histogram, expected)
    assert len(analysis.windows) == game.reels


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(anywhere_game_text())
def test_every_route_of_the_engine_matches_brute_force(tmp_path, text):
    """Float weights (cycles beyond 63 bits), hash-table states, and the plans used when the sets
    on top-capped counters are over budget (hit frequency over the screens paying nothing, or by
    inclusion-exclusion on threshold counters; the max win then bounded) give the same numbers."""
    game = _load(tmp_path, text)
    strip_set = list(game.strip_sets.values())[0]
    with patch.object(anywhere, "INT_CYCLE_MAX", 0):
        floats = analyse_scatter_pays(game, strip_set, full_cycle=False)
    _check_against_brute(game, floats, rel=1e-9)
    assert floats.histogram is None and floats.cycle_note is None
    with patch.object(anywhere, "DENSE_STATES_MAX", 0):
        _check_against_brute(game, analyse_scatter_pays(game, strip_set, full_cycle=False))
    with patch.object(anywhere, "SUBSET_TOP_WORK_MAX", 0):
        _check_against_brute(game, analyse_scatter_pays(game, strip_set), exact_max=False)
        with patch.object(anywhere, "_nothing_pays", lambda *args: None):
            _check_against_brute(game, analyse_scatter_pays(game, strip_set), exact_max=False)
    with patch.object(anywhere, "SUBSETS_MAX", 0):  # too many sets: the pairs and the screens paying nothing
        try:
            split = analyse_scatter_pays(game, strip_set)
        except ExactBudgetError as exc:  # a band that ends (and can pay here): no sweep over the screens paying nothing
            assert _has_upper_end(game) and "upper end" in str(exc), str(exc)
        else:
            _check_against_brute(game, split, exact_max=False)


def _has_upper_end(game) -> bool:
    """Whether a paytable band ends: a listed count paying 0 above one that pays."""
    return any(any(p == 0 and any(q > 0 for k2, q in pays.items() if k2 < k) for k, p in pays.items())
               for pays in game.paytable.values())


def test_over_budget_is_refused(tmp_path):
    game = _load(tmp_path, _fixed_game())
    with patch.object(anywhere, "SUBSET_TOP_WORK_MAX", 0), patch.object(anywhere, "SUBSET_WORK_MAX", 0):
        with pytest.raises(ExactBudgetError, match="can pay together"):
            analyse_scatter_pays(game, game.strip_sets["base"])


def test_a_small_game_by_hand(tmp_path):
    text = """format_version = 1
name = "Anywhere by hand"
game_module = "classic"
[pays]
rule = "scatter_pays"
[grid]
reels = 3
rows = 2
[bet]
cost = 10
line_bet = 1
line_pay_unit = "total_bet"
[symbols]
A = {}
B = {}
S = { kind = "scatter" }
[paytable]
A = { 3 = 2, 5 = 10 }
B = { 4 = 5 }
[scatters.S]
symbols = ["S"]
pays = { 2 = 1 }
[strip_sets.base]
mode = "base"
reel1 = "A A B"
reel2 = "A S"
reel3 = "B A"
"""
    game = _load(tmp_path, text)
    analysis = analyse_scatter_pays(game, game.strip_sets["base"])
    # reel1 windows AA, AB, BA; reel2 AS, SA (1 A, 1 S each); reel3 BA, AB (1 A, 1 B each)
    # A count: reel1 2/1/1 + 1 + 1 -> 4 (1 of 3 windows) or 3: always >= 3, never 5
    assert [(c.symbol, c.count) for c in analysis.combinations] == [("A", 3), ("A", 5), ("B", 4)]
    assert analysis.combo_hits == (12, 0, 0) and analysis.cycle == 12
    assert analysis.combo_units == (12 * 20, 0, 0)  # 2 x total bet of 10 credits
    assert analysis.moments.mean == 20.0 and analysis.moments.hit == 1.0 and analysis.moments.max_units == 20
    assert analysis.histogram.tolist() == [0] * 20 + [12]


def test_full_cycle_options(tmp_path):
    game = _load(tmp_path, _fixed_game())
    strip_set = game.strip_sets["base"]
    skipped = analyse_scatter_pays(game, strip_set, full_cycle=False)
    assert skipped.histogram is None and skipped.cycle_note is None
    refused = analyse_scatter_pays(game, strip_set, budget=10)
    assert refused.histogram is None and "over the budget of 10" in refused.cycle_note
    assert refused.moments == skipped.moments
    with pytest.raises(ExactBudgetError, match="over the budget of 10"):
        analyse_scatter_pays(game, strip_set, full_cycle=True, budget=10)
    full = analyse_scatter_pays(game, strip_set, full_cycle=True)
    assert int(full.histogram.sum()) == full.cycle
    units = np.arange(len(full.histogram))
    assert int(units @ full.histogram) == sum(full.combo_units) + _group_units(game, full)


def _group_units(game, analysis) -> int:
    from workbench.exact.scatters import scatter_counts

    scale = pay_scale(game)
    total = 0
    for name, group in game.scatters.items():
        counts = scatter_counts(game, analysis.windows, name)
        total += sum(h * scale.units(game.bet.credits(group.pay(c), group.unit)) for c, h in enumerate(counts.hits))
    return total


def test_refuses_other_rules():
    game = load_game("classic_tens")
    with pytest.raises(ValueError, match="scatter_pays"):
        analyse_scatter_pays(game, game.strip_sets["base"])


# ---------------------------------------------------------------------------
# (b) the simulator agrees with the exact mean
# ---------------------------------------------------------------------------
def _fixed_game(template: str = "classic") -> str:
    return f"""format_version = 1
name = "Anywhere fixed"
game_module = "{template}"
[pays]
rule = "scatter_pays"
[grid]
reels = 4
rows = 3
[bet]
cost = 20
line_bet = 1
line_pay_unit = "total_bet"
[symbols]
A = {{}}
B = {{}}
C = {{}}
D = {{}}
S = {{ kind = "scatter" }}
[paytable]
A = {{ 4 = 1, 6 = 5, 8 = 20 }}
B = {{ 4 = 0.5, 6 = 2, 9 = 10 }}
C = {{ 5 = 0.5, 7 = 2 }}
D = {{ 5 = 0.2, 8 = 1 }}
[scatters.S]
symbols = ["S"]
counting = "adjacent_from_first_reel"
pays = {{ 2 = 0.5, 3 = 2, 4 = 10 }}
[strip_sets.base]
mode = "base"
weight = 3
reel1 = "A A B C D S D C B A C D B D C:2"
reel2 = "B B A C S D C D A B C D D C A"
reel3 = "C A D B S B C D A A D C B D C"
reel4 = "D C B A S A B C D D C B A D B:3"
[strip_sets.base2]
mode = "base"
weight = 1
reel1 = "A A A B C D S D C B"
reel2 = "B A A C S D C D A B"
reel3 = "C A A B S B C D A A"
reel4 = "D A A A S A B C D D"
"""


def test_simulation_agrees_with_the_exact_mean(tmp_path):
    """Runs the round through the real engine (``simulate``, one in-process worker) with a template
    registered for the test; the exact mean is the strip-set-weighted mean of the analyses."""
    from workbench.registry import RoundTemplate
    from workbench.rounds.anywhere import round_model
    from workbench.simulate import simulate

    template = RoundTemplate(name="anywhere_test_round", build=round_model, summary="scatter pays, no features",
                             declared_pays=True)
    registry.register(template, replace=True)
    try:
        game = _load(tmp_path, _fixed_game(template.name))
        spins = 1 << 21
        result = simulate(game, spins, seed=20240611)
    finally:
        registry.unregister(template.name)
    sets = list(game.strip_sets.values())
    total_weight = sum(s.weight for s in sets)
    analyses = [(s.weight / total_weight, analyse_scatter_pays(game, s, full_cycle=False)) for s in sets]
    cost = pay_scale(game).cost_units
    mean = sum(p * a.moments.mean for p, a in analyses)
    second = sum(p * a.moments.second for p, a in analyses)
    sd = math.sqrt(second - mean * mean)
    se = sd / math.sqrt(spins)
    assert result.spins == spins
    assert abs(result.game_rtp * cost - mean) < 4 * se, (result.game_rtp * cost, mean, se)
    hit = sum(p * a.moments.hit for p, a in analyses)
    assert abs(result.hit_frequency - hit) < 4 * math.sqrt(hit * (1 - hit) / spins)
    assert result.max_win_units <= max(a.moments.max_units for _, a in analyses)
    assert set(result.components) == {"scatter_pays", "scatter:S"}
    # the symbols' part alone
    sym_mean = sum(p * sum(a.combo_units) / a.cycle for p, a in analyses)
    assert abs(result.components["scatter_pays"].value * cost - sym_mean) < 4 * se


def test_the_pay_of_an_explicit_screen(tmp_path):
    from workbench._jit import njit
    from workbench.pays.anywhere import anywhere_arrays, anywhere_pay_screen

    @njit
    def pay(aa, screen, rows, counts):
        return anywhere_pay_screen(aa, screen, rows, counts)

    game = _load(tmp_path, _fixed_game())
    aa = anywhere_arrays(game)
    ids = {n: i for i, n in enumerate(game.symbols)}
    rng = np.random.default_rng(5)
    scale = pay_scale(game)
    for _ in range(20):
        names = rng.choice(list(game.symbols), size=(4, 3))
        screen = np.vectorize(ids.get)(names).astype(np.int32)
        counts = np.zeros(len(aa.pays), dtype=np.int64)
        expected = sum(scale.units(game.bet.credits(pay_for_count(game.paytable[x], int((names == x).sum())), "total_bet"))
                       for x in game.paytable)
        assert pay(aa, screen, np.array(game.rows, dtype=np.int64), counts) == expected
