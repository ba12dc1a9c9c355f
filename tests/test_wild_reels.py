"""Wild reels ([strip_sets.NAME] wild_reels, workbench/model/wild_reels.py): whole reels of a strip set turning wild
on a spin, each reel by its own chance, or k reels (k by weight) chosen uniformly.

Checked three ways: the exact engines price the played strip sets (one per set of wild reels,
Game.played_strip_sets); the slow reference draws the wild reels itself (reference.spin_set) and enumerates every
outcome with its probability (reference.reveal_mixture), and its exact RTP and win distribution equal the engines'
on random lines and ways games, mystery symbols and table wilds included (hypothesis); the compiled rounds agree with
the exact figures and with the slow reference feature.  Bad files name the file, the line and the key.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from test_mystery import SETTINGS, assert_exact_equals_the_reference, mystery_games
from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import loads_game
from workbench.simulate import estimate_rtp, simulate


@st.composite
def wild_reel_games(draw) -> str:
    """A random mystery game (test_mystery) whose first strip set turns reels wild by chance or by a count table."""
    text = draw(mystery_games())
    reels = int(text.split("reels = ", 1)[1].split("\n", 1)[0])
    if draw(st.booleans()):
        chance = draw(st.lists(st.integers(0, 3), min_size=reels, max_size=reels))
        if not any(chance):
            chance[1] = 1
        spec = f'wild_reels = {{ symbol = "WILD", chance = {chance}, out_of = {draw(st.integers(3, 5))} }}'
        table = ""
    else:
        chosen = sorted(draw(st.sets(st.integers(1, reels), min_size=1, max_size=reels)))
        counts = draw(st.lists(st.integers(0, len(chosen)), min_size=1, max_size=3))
        weights = draw(st.lists(st.integers(1, 4), min_size=len(counts), max_size=len(counts)))
        spec = f'wild_reels = {{ symbol = "WILD", count = "wr", reels = {chosen} }}'
        table = "\n[tables.wr]\nentries = [" + ", ".join(f"{{ reels = {c}, weight = {w} }}"
                                                      for c, w in zip(counts, weights)) + "]\n"
    head, sets = text.split("\n[strip_sets.s0]\n", 1)
    return head + table + "\n[strip_sets.s0]\n" + spec + "\n" + sets


@SETTINGS
@given(wild_reel_games())
def test_exact_engines_price_every_set_of_wild_reels_as_the_reference(text):
    assert_exact_equals_the_reference(loads_game(text, "wild_reels.toml"))


BASE = ["A B C SCAT D A B C D", "A B SCAT C D A B C D A B", "A B C D SCAT A B C D B"]


def wild_game(spec: str, table: str = "", features: str = "free_spins = { 2 = 3 }\nretrigger = { 2 = 2 }") -> object:
    text = lines_text(features, base=BASE)
    text = text.replace('[strip_sets.base]\nmode = "base"\n', f'[strip_sets.base]\nmode = "base"\n{spec}\n', 1)
    return loads_game(text + table, "wild_reels.toml")


def test_the_played_sets_weigh_each_outcome_by_its_probability():
    game = wild_game('wild_reels = { symbol = "WILD", chance = [0, 1, 3], out_of = 4 }')
    sets = game.played_strip_sets("base")
    # reel 2 wild 1 in 4, reel 3 wild 3 in 4, independently: 3 : 9 : 1 : 3 (none, reel 3, reel 2, both)
    assert [(s.name, s.weight) for s in sets] == [
        ("base", 3), ("base (wild reels 2)", 1), ("base (wild reels 3)", 9), ("base (wild reels 2, 3)", 3)]
    assert sets[3].reels[1].symbols == ("WILD",) * 3 and sets[3].reels[0] == game.strip_sets["base"].reels[0]
    counted = wild_game('wild_reels = { symbol = "WILD", count = "wr", reels = [1, 2, 3] }',
                        "\n[tables.wr]\nentries = [{ reels = 0, weight = 1 }, { reels = 2, weight = 3 }]\n")
    # none 1/4; each of the three pairs 1/4
    assert [(s.name, s.weight) for s in counted.played_strip_sets("base")] == [
        ("base", 1), ("base (wild reels 1, 2)", 1), ("base (wild reels 1, 3)", 1), ("base (wild reels 2, 3)", 1)]


def test_a_wild_reel_hides_the_scatter_its_strip_shows():
    """Reel 1 always wild: no SCAT on reel 1 ever counts; with all three wild every spin pays WILD 3 on 5 lines."""
    always = wild_game('wild_reels = { symbol = "WILD", chance = [1, 1, 1], out_of = 1 }')
    sheet = par(always, full_cycle=True)
    assert sheet.rtp_exact == Fraction(5 * 50, 5)  # 5 lines x WILD 3 = 50 line bets, bet 5
    plain = list(par(loads_game(lines_text("free_spins = { 2 = 3 }", base=BASE), "plain.toml"),
                     full_cycle=True).scatter_hits["SCAT"])
    half = list(par(wild_game('wild_reels = { symbol = "WILD", chance = [1, 0, 0], out_of = 1 }'),
                    full_cycle=True).scatter_hits["SCAT"])
    assert plain[3] > 0 and sum(half[3:]) == 0 and half[2] > 0  # 3 SCATs need reel 1's, which the wild reel hides


def test_compiled_rounds_agree_with_exact_and_the_reference_feature():
    table = "\n[tables.wr]\nentries = [{ reels = 0, weight = 6 }, { reels = 1, weight = 3 }, { reels = 2, weight = 1 }]\n"
    game = wild_game('wild_reels = { symbol = "WILD", count = "wr", reels = [1, 2, 3] }', table)
    free = game.strip_sets["free"]
    assert free.wild_reels is None
    est = estimate_rtp(game, precision=0.01, seed=41)
    lines = float(par(game).parts["lines"].rtp_exact)
    assert est.components["lines"].value == pytest.approx(lines, abs=1e-12)
    result = simulate(game, 400_000, seed=42)
    assert abs(result.components["lines"].value - lines) < 4.5 * result.components["lines"].ci95 / 1.96
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    # wild reels in the free spins: the compiled feature against the slow reference's
    text = lines_text("free_spins = { 2 = 3 }\nretrigger = { 2 = 2 }\nmax_free_spins = 20")
    text = text.replace('[strip_sets.free]\nmode = "free"\n',
                        '[strip_sets.free]\nmode = "free"\nwild_reels = { symbol = "WILD", chance = [1, 2, 1], out_of = 9 }\n')
    feature_game = loads_game(text, "free_wild_reels.toml")
    assert_strata_equal_the_reference(feature_game, estimate_rtp(feature_game, precision=0.01, seed=43), 44, 3000)


def test_the_reference_draws_wild_reels_by_their_chance():
    game = wild_game('wild_reels = { symbol = "WILD", chance = [0, 1, 3], out_of = 4 }')
    rng = random.Random(45)
    seen = Counter()
    for _ in range(8000):
        s = reference.spin_set(game, "base", rng)
        seen[tuple(r for r, strip in enumerate(s.reels) if strip.symbols == ("WILD",) * 3)] += 1
    assert seen[(0,)] == 0 and abs(seen[(1, 2)] / 8000 - 3 / 16) < 0.015 and abs(seen[()] / 8000 - 3 / 16) < 0.015


BAD = [
    ('wild_reels = { chance = [0, 1, 0], out_of = 4 }', "", "strip_sets.base.wild_reels", "missing"),
    ('wild_reels = { symbol = "WILDE", chance = [0, 1, 0], out_of = 4 }', "", "strip_sets.base.wild_reels.symbol", "unknown symbol"),
    ('wild_reels = { symbol = "A", chance = [0, 1, 0], out_of = 4 }', "", "strip_sets.base.wild_reels.symbol", "is a regular"),
    ('wild_reels = { symbol = "WILD" }', "", "strip_sets.base.wild_reels", "either chance"),
    ('wild_reels = { symbol = "WILD", chance = [0, 1, 0], count = "wr" }', "", "strip_sets.base.wild_reels", "either chance"),
    ('wild_reels = { symbol = "WILD", chance = [0, 1], out_of = 4 }', "", "strip_sets.base.wild_reels.chance", "3 whole numbers"),
    ('wild_reels = { symbol = "WILD", chance = [0, 5, 0], out_of = 4 }', "", "strip_sets.base.wild_reels.chance", "between 0"),
    ('wild_reels = { symbol = "WILD", chance = [0, 0, 0], out_of = 4 }', "", "strip_sets.base.wild_reels.chance", "every chance is 0"),
    ('wild_reels = { symbol = "WILD", chance = [0, 1, 0] }', "", "strip_sets.base.wild_reels", "needs out_of"),
    ('wild_reels = { symbol = "WILD", count = "nope" }', "", "strip_sets.base.wild_reels.count", "unknown table"),
    ('wild_reels = { symbol = "WILD", count = "wr", reels = [1, 4] }', "", "strip_sets.base.wild_reels.reels", "distinct reel"),
    ('wild_reels = { symbol = "WILD", count = "wr", reels = [1, 2] }', "\n[tables.wr]\nentries = [{ reels = 3, weight = 1 }]\n",
     "tables.wr.entries[0].reels", "at most 2"),
    ('wild_reels = { symbol = "WILD", count = "wr" }', "\n[tables.wr]\nentries = [{ wilds = 1, weight = 1 }]\n",
     "tables.wr.entries[0].wilds", "unknown key"),
    ('wild_reels = { symbol = "WILD", chance = [1, 1, 1], out_of = 1000000, speed = 2 }', "",
     "strip_sets.base.wild_reels.speed", "speed"),
    ('weight = 3\nwild_reels = { symbol = "WILD", chance = [1, 1, 1], out_of = 1000000 }',
     '\n[strip_sets.plain]\nmode = "base"\nweight = 7\nreel1 = "A B C D"\nreel2 = "A B C D"\nreel3 = "A B C D"\n',
     "strip_sets", "at most 4,611,686,018,427,387,904"),
]


@pytest.mark.parametrize("spec, table, key, message", BAD)
def test_bad_wild_reels_name_file_line_and_key(spec, table, key, message):
    text = lines_text("free_spins = { 2 = 3 }", base=BASE)
    text = text.replace('[strip_sets.base]\nmode = "base"\n', f'[strip_sets.base]\nmode = "base"\n{spec}\n', 1)
    with pytest.raises(ReelsetError) as info:
        loads_game(text + table, "bad_wild_reels.toml")
    problems = info.value.problems
    assert any(p.key == key and message in p.message and p.line and p.file == "bad_wild_reels.toml"
               for p in problems), problems
