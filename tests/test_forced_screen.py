"""A buy's forced trigger screen, paid as a base spin ([bet_modes.*] forced_screen = "paid").

Three ways: the exact E[base screen win | trigger count] by enumerating every screen of small random games; the slow
reference (workbench.reference.forced_screen: base spins drawn until one shows the count); the compiled sampler
(workbench.rounds.forced), end to end and by bought count.
"""

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyp import examples
from test_mode_symbols import small_text as mode_symbols_game
from workbench import reference
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.lints import check_file
from workbench.simulate import estimate_rtp, simulate

DRAFT = "examples/ways_1024_free_wild_multipliers"
REGULAR = ["A", "B", "C"]


def small_text(rule: str, strips: list, counts: list, rows: int = 2) -> str:
    """test_mode_symbols' 3-reel free-spins game (lines or ways; S pays 3 anywhere and triggers from 2) with a plain
    wild, ``strips`` as its base strips and a buy of ``counts`` (weights n, n - 1 ... 1) whose forced screen pays."""
    table = ", ".join(f"{{ count = {c}, weight = {len(counts) - i} }}" for i, c in enumerate(counts))
    buy = (f'[tables.bought]\nentries = [{table}]\n\n[bet_modes.buy]\ncost = 20\nbuy = true\n'
           'buy_count_table = "bought"\nforced_screen = "paid"\n')
    features = 'trigger = "fs"\nfree_spins = { 2 = 2, 3 = 3 }\nfree_spins_mode = "free"'
    return mode_symbols_game('W = { kind = "wild" }', rule=rule, features=features, base=strips, rows=rows, extra=buy)


@st.composite
def forced_games(draw):
    rule = draw(st.sampled_from(["lines", "ways"]))
    strips = []
    for _ in range(3):
        stops = draw(st.lists(st.sampled_from(REGULAR + ["W"]), min_size=3, max_size=6)) + ["S"]
        stops += ["S"] * draw(st.integers(0, 1))
        weights = [draw(st.integers(1, 3)) for _ in stops]
        strips.append(" ".join(f"{s}:{w}" if w > 1 else s for s, w in zip(draw(st.permutations(stops)), weights)))
    text = small_text(rule, strips, draw(st.sampled_from([[2], [2, 3], [3, 2]])))
    if draw(st.booleans()):  # the sampler's count states run the chain from reel 1 as well
        text = _bad(text, '[scatters.S]\nsymbols = ["S"]\n',
                    '[scatters.S]\nsymbols = ["S"]\ncounting = "adjacent_from_first_reel"\n')
    return text


def exact_forced_means(game) -> dict:
    """E[base screen win | trigger count] (credits), by enumerating every stop combination with its weight."""
    base = game.in_strip_mode("base")
    strip_set = base.strip_sets["base"]
    total: dict = {}
    weight: dict = {}
    for stops in itertools.product(*(range(len(strip)) for strip in strip_set.reels)):
        w = math.prod(strip.stop_weights[s] for strip, s in zip(strip_set.reels, stops))
        result = reference.spin_result(base, strip_set, stops)
        c = result["scatters"]["S"]
        total[c] = total.get(c, 0) + w * result["win"]
        weight[c] = weight.get(c, 0) + w
    return {c: Fraction(total[c]) / weight[c] for c in total}


def expected_forced_component(game, means: dict) -> float:
    """The buy's forced_screen component x its cost: the bought counts' weights x E[screen | count]."""
    counts = game.bet_mode.bought_counts
    weights = sum(w for _, w in counts)
    return float(sum(Fraction(w, weights) * means[c] for c, w in counts) / (game.bet.cost * game.bet_mode.cost))


@settings(max_examples=examples(8), deadline=None)
@given(forced_games())
def test_the_compiled_and_the_reference_forced_screens_pay_the_exact_conditional_mean(text):
    game = loads_game(text, "forced.toml").in_bet_mode("buy")
    means = exact_forced_means(game)
    exact = expected_forced_component(game, means)
    # stratified (one stratum per bought count) and end to end
    est = estimate_rtp(game, precision=0.05, seed=3, max_seconds=10)
    sim = simulate(game, 60_000, seed=4)
    for result in (est, sim):
        comp = result.components.get("forced_screen")  # an estimate leaves out a component that paid nothing
        value, ci = (comp.value, comp.ci95) if comp is not None else (0.0, 0.0)
        assert abs(value - exact) < 4.5 * ci / 1.96 + 1e-12, (value, exact)
    # the reference's rejection draw, for each bought count
    rng = random.Random(5)
    for count, _ in game.bet_mode.bought_counts:
        values = [float(reference.forced_screen(game, count, rng)) for _ in range(400)]
        se = float(np.std(values)) / math.sqrt(len(values))
        assert abs(np.mean(values) - float(means[count])) < 4.5 * se + 1e-12, (count, np.mean(values), means[count])


@pytest.mark.parametrize("adjacent", [False, True])
def test_the_sampler_draws_each_screen_with_its_probability_given_the_count(adjacent):
    """Every base screen showing the count, drawn by the compiled sampler (anywhere, or on adjacent reels from the
    first), as often as its probability given the count (chi-square against the enumeration)."""
    from scipy.stats import chisquare

    from workbench.rounds.forced import draw_forced_stops, forced_screen_tables
    from workbench.simulate.rng import chunk_state

    counts_by_stop = [np.array([0, 1, 0, 1]), np.array([1, 0, 0]), np.array([0, 2, 1, 0, 1])]
    weights = [1, 1, 1]
    def count(stops):
        total = 0
        for values, stop in zip(counts_by_stop, stops):
            if adjacent and values[stop] == 0:
                break
            total += values[stop]
        return total

    screens = [s for s in itertools.product(*(range(len(v)) for v in counts_by_stop)) if count(s) == 2]
    tables = forced_screen_tables("t", [2], [counts_by_stop], weights, adjacent=adjacent)
    rng = chunk_state(11, 0)
    seen = {s: 0 for s in screens}
    draws = 12_000
    for _ in range(draws):
        draw_forced_stops(tables, 0, rng)
        stops = tuple(int(x) for x in tables.out)
        assert stops in seen, stops  # never a screen of another count
        seen[stops] += 1
    assert chisquare(list(seen.values())).pvalue > 1e-4  # uniform stops: every such screen equally likely


def test_the_screen_shows_exactly_the_bought_count(tmp_path):
    """A screen drawn for 2 scatters never shows 3, though the strips can (the count is exact, not "2 or more")."""
    game = loads_game(small_text("ways", ["A S B", "S B C", "C S A"], [2], rows=2), "two.toml").in_bet_mode("buy")
    means = exact_forced_means(game)
    assert 3 in means  # the strips can show 3
    est = estimate_rtp(game, precision=0.01, seed=6, max_seconds=10)
    comp = est.components["forced_screen"]
    assert abs(comp.value - expected_forced_component(game, means)) < 4.5 * comp.ci95 / 1.96 + 1e-12


def test_the_gallery_buy_pays_its_forced_screen():
    game = load_game(DRAFT).in_bet_mode("super_buy")
    assert game.bet_mode.forced_screen == "paid"
    est = estimate_rtp(game, precision=0.01, seed=7, max_seconds=30)
    sim = simulate(game, 20_000, seed=8)
    assert est.components["forced_screen"].value > 0.05  # 3-5 scatters pay 2-? x total bet, a good part of the buy
    both = math.hypot(sim.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(sim.rtp - est.rtp) < 4.5 * both, (sim.rtp, est.rtp, both)
    c = sim.components["forced_screen"]
    assert abs(c.value - est.components["forced_screen"].value) < 4.5 * math.hypot(
        c.ci95, est.components["forced_screen"].ci95) / 1.96


def _bad(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


BASE = small_text("ways", ["A S B", "S B C", "C S A"], [2])
TUMBLE = (reelsets_dir() / "examples/pay_anywhere_tumble.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, key, message", [
    (_bad(BASE, 'forced_screen = "paid"', 'forced_screen = "always"'), "bet_modes.buy.forced_screen",
     "is not one of: paid, unpaid"),
    (_bad(BASE, "entries = [{ count = 2, weight = 1 }]", "entries = [{ count = 4, weight = 1 }]"), "bet_modes.buy",
     "cannot show 4 trigger scatters"),
    (_bad(BASE, "buy = true\nbuy_count_table = \"bought\"\n", ""), "bet_modes.buy.forced_screen", "needs buy = true"),
    (_bad(TUMBLE, "buy = true\n", 'buy = true\nforced_screen = "paid"\n'), "forced_screen",
     "the tumble round does not pay a forced trigger screen yet"),
])
def test_bad_forced_screens_are_refused_at_their_key(tmp_path, text, key, message):
    """As `workbench validate` says (the schema, or the round model every command would build)."""
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    said = "\n".join(str(p) for p in check_file(path) if p.severity == "error")
    assert key in said and message in said, said
