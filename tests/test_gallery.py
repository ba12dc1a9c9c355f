"""The gallery (reelsets/examples/): every game written only as a reelset validates, prices exactly,
equals the slow reference evaluator on reduced strips, simulates to its exact RTP, and reports."""

import math
import re
from collections import Counter
from fractions import Fraction

import pytest

from workbench import reference
from workbench.exact import par
from workbench.io import example_games, load_game, loads_game, reelsets_dir
from workbench.pays.scale import pay_scale
from workbench.simulate import estimate_rtp, exactness, simulate

EXAMPLES = example_games()
SIM_SPINS = 400_000
SIM_SEED = 11


def test_the_gallery_has_every_rule_the_format_documents():
    games = [load_game(name) for name in EXAMPLES]
    rules = {(g.pays.rule, g.pays.direction if g.pays.is_lines else "") for g in games}
    assert {("lines", "left_to_right"), ("lines", "both_ways"), ("ways", ""), ("scatter_pays", "")} <= rules
    assert any(g.heights for g in games), "a variable-height ways game"
    assert any(g.groups for g in games), "a game with symbol groups"
    assert any(s.multiplier > 1 for g in games for s in g.symbols.values()), "a multiplier wild"


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_starts_with_a_comment_saying_what_it_shows(name):
    text = (reelsets_dir() / f"{name}.toml").read_text()
    head = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        head.append(line)
    assert len(" ".join(head).split()) >= 25, "a paragraph on top"


@pytest.mark.parametrize("name", EXAMPLES)
def test_exact_par_of_every_example_is_consistent(name):
    game = load_game(name)
    sheet = par(game, full_cycle=False)
    # a plausible base game; a feature game returns part of its RTP through the features (whole game: see below)
    # (a tumble game's first drop is a smaller part still: its cascades pay on top of it)
    low = 0.80 if exactness(game)[0] else 0.20 if game.game_module == "tumble" else 0.30
    assert low < sheet.rtp < 1.0, sheet.rtp
    assert sheet.rtp_exact == sum(sheet.components_exact.values())
    combos = sheet.combinations
    assert len(combos) and (combos["hits"] <= sheet.cycle).all()
    assert abs(combos["rtp"].sum() - sheet.components[game.pays.rule]) < 1e-12
    assert 0 < sheet.hit_frequency <= sheet.par_hit_frequency
    assert sheet.std > 0 and sheet.max_win > 0
    assert sheet.volatility_index(z=1.65) > sheet.volatility_index(0.90)


def _reduced(name: str, keep: int) -> str:
    """The example with every strip cut to its first ``keep`` stops; variable heights shrink to 1-2 rows."""
    text = (reelsets_dir() / f"{name}.toml").read_text()

    def cut(match):
        return f'{match.group(1)} = "{" ".join(match.group(2).split()[:keep])}"'

    text = re.sub(r'^(reel\d+) = """\s*\n?([^"]*?)"""', lambda m: f'{m.group(1)} = "{" ".join(m.group(2).split())}"', text,
                  flags=re.M | re.S)
    text = re.sub(r'^(reel\d+) = "(.*)"$', cut, text, flags=re.M)
    if name in REDUCED_ROWS:  # a tall window needs long strips: fewer rows, so that short strips fit
        text = re.sub(r"^rows = \d+", f"rows = {REDUCED_ROWS[name]}", text, count=1, flags=re.M)
        text = text.replace(", 37 = 0 }", ", 16 = 0 }")  # the bands' end within the smaller screen
    if "[grid.heights]" in text or re.search(r"^heights\s*=", text, re.M):
        text = re.sub(r"^rows = \d+", "rows = 2", text, count=1, flags=re.M)
        text = re.sub(r"^(reel\d+) = \{[^}]*\}$", r"\1 = { 1 = 1, 2 = 2 }", text, flags=re.M)
    return text


REDUCED_STOPS = {"examples/variable_ways_6reel": 2, "examples/pay_anywhere_6x5": 5, "examples/pay_anywhere_tumble": 5,
                 "examples/cluster_tumble_7x7": 3, "examples/mystery_stacks": 4}
REDUCED_ROWS = {"examples/cluster_tumble_7x7": 3}


@pytest.mark.parametrize("name", EXAMPLES)
def test_reduced_examples_equal_the_reference_evaluator(name):
    game = loads_game(_reduced(name, REDUCED_STOPS.get(name, 6)), f"{name}-reduced.toml")
    scale = pay_scale(game)
    sheet = par(game, full_cycle=True)
    mixture = reference.reveal_mixture(game, "base")
    if len(mixture) > 1:  # mystery symbols: every reveal's cycle by its probability
        return _mixture_equals_the_reference(game, sheet, mixture, scale)
    strip_set = game.strip_sets_for("base")[0]
    ref = reference.enumerate_cycle(game, strip_set)
    assert sheet.cycle == ref["cycle"]
    if sheet.distribution is not None:
        fast = Counter({Fraction(int(u), scale.denominator): int(h)
                        for u, h in zip(sheet.distribution.wins_units, sheet.distribution.hits)})
    else:  # a bonus award: the analysis holds the histogram of the screen's pays alone
        fast = Counter({Fraction(int(u), scale.denominator): int(h) for u, h in enumerate(sheet.analyses[0].histogram) if h})
    assert fast == +ref["wins"]
    for name, counts in ref["triggers"].items():
        mine = sheet.trigger_counts[name]
        assert (mine["hits"], mine["starts"], mine["starts_sq"]) == (counts["hits"], counts["starts"], counts["starts_sq"])
        if mine["pay_cross"] is not None:
            assert Fraction(mine["pay_cross"], scale.denominator) == counts["pay_cross"]
    if game.pays.direction != "both_ways":  # both-ways sheets list compound (left + right) combinations
        hits = {(c.symbol, c.count, getattr(c, "multiplier", 1)): int(h)
                for c, h in zip(sheet.automaton.combinations, sheet.line_hits.sum(axis=0)) if h}
        assert hits == dict(+ref["combinations"])
    for group, counts in ref["scatters"].items():
        assert {c: h for c, h in enumerate(sheet.scatter_hits[group]) if h} == dict(+counts)


def _mixture_equals_the_reference(game, sheet, mixture, scale) -> None:
    """The sheet's probabilities (hits / cycle) of every win, line combination, scatter count and trigger equal the
    reference's: each revealed set's stop-by-stop cycle weighed by the reveal's probability."""
    wins, combos, scatters, triggers = Counter(), Counter(), Counter(), Counter()
    for strip_set, p in mixture:
        ref = reference.enumerate_cycle(game, strip_set)
        share = p / ref["cycle"]
        for key, w in ref["wins"].items():
            wins[key] += share * w
        for key, w in ref["combinations"].items():
            combos[key] += share * w
        for group, counts in ref["scatters"].items():
            for c, w in counts.items():
                scatters[(group, c)] += share * w
        for trig, counts in ref["triggers"].items():
            triggers[trig] += share * counts["hits"]
    cycle = Fraction(sheet.cycle)
    fast = Counter({Fraction(int(u), scale.denominator): int(h) / cycle
                    for u, h in zip(sheet.distribution.wins_units, sheet.distribution.hits) if h})
    assert fast == +wins
    hits = {(c.symbol, c.count, getattr(c, "multiplier", 1)): int(h) / cycle
            for c, h in zip(sheet.automaton.combinations, sheet.line_hits.sum(axis=0)) if h}
    assert hits == dict(+combos)
    assert {(g, c): h / cycle for g, counts in sheet.scatter_hits.items() for c, h in enumerate(counts) if h} == dict(+scatters)
    assert {t: sheet.trigger_counts[t]["hits"] / cycle for t in triggers} == dict(triggers)


@pytest.mark.parametrize("name", EXAMPLES)
def test_simulation_of_every_example_agrees_with_exact(name):
    """End to end, the base screen's components equal the exact PAR; the whole RTP equals the exact PAR (games
    paying only base-screen wins) or the exact + conditional estimate (feature games), within 4.5 standard errors."""
    game = load_game(name)
    sheet = par(game, full_cycle=False)
    result = simulate(game, SIM_SPINS, seed=SIM_SEED)
    se = result.rtp_ci95 / 1.96
    if exactness(game)[0]:
        assert abs(result.rtp - sheet.rtp) < 4.5 * se, (result.rtp, sheet.rtp, se)
    else:
        # a quarter of the simulation's half-width: the comparison's width stays the simulation's own
        whole = estimate_rtp(game, precision=max(0.002, result.rtp_ci95 / 4), seed=SIM_SEED + 1)
        assert sheet.rtp < whole.rtp < 1.0  # the features add to the exact base game; a plausible whole game
        both = math.hypot(se, whole.rtp_ci95 / 1.96)
        assert abs(result.rtp - whole.rtp) < 4.5 * both, (result.rtp, whole.rtp, both)
    for component, value in sheet.components.items():
        est = result.components[component]
        assert abs(est.value - value) < 4.5 * est.ci95 / 1.96 + 1e-12, (component, est.value, value)
