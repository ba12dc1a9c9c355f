"""The moments' automaton with multipliers as weights (workbench.exact.scaled.scaled_automaton).

States of the line automaton that differ only by the multiplier of the symbols read so far are merged for the
float moments, the multiplier carried on the steps.  Checked here: every symbol sequence pays, through the merged
automaton (product of the step factors times the end state's pay), exactly what the line automaton pays; the
moments and the max win computed with it equal those without it and the full cycle's.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from workbench import load_game, reference
from workbench.exact import moments, pay_scale
from workbench.exact.scaled import scaled_automaton
from workbench.exact.par import analyse_strip_set
from workbench.io import loads_game
from workbench.pays.lines import line_automaton

GAME = """
format_version = 1
name = "scaled moments"
game_module = "classic"

[grid]
reels = 4
rows = 2

[pays]
combine = "{combine}"
multiply_wild_only = {wild_only}

[bet]
lines = 3
cost = 3
line_bet = 1

[symbols]
W2 = {{ kind = "wild", multiplier = 2 }}
W3 = {{ kind = "wild", multiplier = 3 }}
WP = {{ kind = "wild" }}
STAR = {{ kind = "scatter" }}
SEVEN = {{}}
BAR = {{}}
CHERRY = {{}}

[paytable]
W2 = {{ 3 = 30, 4 = 100 }}
SEVEN = {{ 3 = 50, 4 = 200 }}
BAR = {{ 2 = 2, 3 = 10, 4 = 40 }}
CHERRY = {{ 2 = 1, 3 = 4, 4 = 15 }}

[paylines]
lines = [[0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 1, 0]]

[scatters.STAR]
symbols = ["STAR"]
pays = {{ 2 = 2, 3 = 10 }}

[strip_sets.base]
mode = "base"
reel1 = "SEVEN BAR W2 CHERRY BAR STAR CHERRY"
reel2 = "CHERRY W2 BAR SEVEN W3 CHERRY WP"
reel3 = "BAR W3 CHERRY SEVEN STAR W2 BAR"
reel4 = "CHERRY SEVEN BAR W2 CHERRY BAR"
"""

VARIANTS = [("product", False), ("product", True), ("sum", False), ("sum", True)]


def _games():
    out = [(f"{c}{' wild_only' if w else ''}", loads_game(GAME.format(combine=c, wild_only=str(w).lower())))
           for c, w in VARIANTS]
    out += [(name, load_game(name)) for name in ("examples/multiplier_wild_lines", "examples/classic_any_bar")]
    return out


GAMES = _games()


def _path_pays(automaton, scaled, n_reels):
    """Pay of every symbol sequence by the line automaton, and by the scaled one (factors x end pay)."""
    S = automaton.trans.shape[1]
    seq = np.array(list(itertools.product(range(S), repeat=n_reels)), dtype=np.int64)
    st = np.zeros(len(seq), dtype=np.int64)
    st2 = np.zeros(len(seq), dtype=np.int64)
    f = np.ones(len(seq), dtype=np.int64)
    for i in range(n_reels):
        st = automaton.trans[st, seq[:, i]]
        f *= scaled.factor[st2, seq[:, i]].astype(np.int64)
        st2 = scaled.trans[st2, seq[:, i]]
    assert not automaton.live[st].any() and not scaled.live[st2].any()
    return automaton.pay_units[st], f * scaled.pay[st2].astype(np.int64)


@pytest.mark.parametrize("name,game", GAMES, ids=[g[0] for g in GAMES])
def test_every_sequence_pays_the_same_through_the_scaled_automaton(name, game):
    automaton = line_automaton(game)
    scaled = scaled_automaton(automaton)
    if name in ("product", "examples/multiplier_wild_lines"):
        assert scaled is not None and scaled.n_states < automaton.n_states
    if scaled is None:
        return
    assert (scaled.factor == np.round(scaled.factor)).all() and (scaled.factor >= 1).all()
    original, through = _path_pays(automaton, scaled, game.reels)
    assert (original == through).all()


@pytest.mark.parametrize("name,game", GAMES, ids=[g[0] for g in GAMES])
def test_moments_with_the_scaled_automaton_equal_those_without(name, game, monkeypatch):
    scale = pay_scale(game)
    strip_set = game.strip_sets_for("base")[0]
    automaton = line_automaton(game)
    full = name.startswith(("product", "sum"))
    with_scaled = analyse_strip_set(game, strip_set, automaton, scale, full_cycle=full)
    monkeypatch.setattr(moments, "scaled_automaton_cached", lambda a: None)
    without = analyse_strip_set(game, strip_set, automaton, scale, full_cycle=False)
    a, b = with_scaled.moments, without.moments
    assert a.mean == b.mean and a.hit == b.hit  # not computed with the scaled automaton
    assert a.second == pytest.approx(b.second, rel=1e-13)
    assert (a.max_units, a.max_exact) == (b.max_units, b.max_exact)
    assert (with_scaled.line_hits == without.line_hits).all() and (with_scaled.line_moments == without.line_moments).all()
    if full:  # the full cycle's distribution: exact second moment and max win
        hist = with_scaled.histogram
        units = np.flatnonzero(hist)
        second = Fraction(sum(int(u) ** 2 * int(hist[u]) for u in units), with_scaled.cycle)
        assert a.second == pytest.approx(float(second), rel=1e-12)
        assert a.max_units == int(units.max())
        ref = reference.enumerate_cycle(game, strip_set)
        d = scale.denominator
        assert Fraction(a.max_units, d) == max(w for w, h in ref["wins"].items() if h)
        ref_second = sum(w * w * h for w, h in ref["wins"].items()) / ref["cycle"]
        assert a.second / d**2 == pytest.approx(float(ref_second), rel=1e-12)
