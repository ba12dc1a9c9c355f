"""Wilds whose multiplier is drawn per landing from a weighted table (``multiplier = "TABLE"``).

Every visible cell showing such a wild draws its own multiplier each spin; the exact engines price
it through the variant game (workbench/exact/variants.py: one fixed-multiplier wild per table
multiplier, on expanded windows), the simulator draws per cell, and the slow reference evaluator
visits every assignment of multipliers to the visible cells.  Random small lines games (every
direction, product and sum) and ways games (with heights) are checked for: the exact cycle,
full-cycle distribution and combination hits equal the reference's, and a fixed-seed simulation
agrees with the exact RTP.  A one-entry table is the fixed multiplier.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import reference
from workbench.exact import par
from workbench.exact.variants import (
    expanded_cycle,
    expanded_row_weights,
    expanded_windows,
    table_wild_plan,
    variant_game,
)
from workbench.io import loads_game, reelsets_dir
from workbench.pays.scale import pay_scale
from workbench.simulate import simulate

SETTINGS = settings(max_examples=examples(40), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SIM_SPINS = 100_000
REGULAR = ("A", "B", "C")


def _fmt(pays: dict) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in pays.items()) + " }"


def _table_text(draw, name: str) -> str:
    n = draw(st.sampled_from([1, 2, 2, 3, 3]))
    mults = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    weights = draw(st.lists(st.sampled_from([0, 1, 1, 2, 3]), min_size=n, max_size=n))
    if not any(weights):
        weights[0] = 1
    entries = ", ".join(f"{{ multiplier = {m}, weight = {w} }}" for m, w in zip(mults, weights))
    return f"[tables.{name}]\nentries = [{entries}]\n"


def _pays(draw, reels: int, lo: int = 1) -> dict:
    counts = sorted(draw(st.lists(st.integers(lo, reels), min_size=1, max_size=3, unique=True)))
    values = sorted(draw(st.lists(st.integers(1, 20), min_size=len(counts), max_size=len(counts))))
    return dict(zip(counts, values))


def _strip(draw, symbols: list, wilds: list, n: int, weighted: bool) -> str:
    """A strip of ``n`` stops with at most two table-wild stops (the reference visits every assignment)."""
    stops = draw(st.lists(st.sampled_from(symbols), min_size=n, max_size=n))
    seen = 0
    for i, s in enumerate(stops):
        if s in wilds:
            seen += 1
            if seen > 2:
                stops[i] = REGULAR[i % len(REGULAR)]
    if weighted:
        ws = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        if not any(ws):
            ws[0] = 1
        stops = [f"{s}:{w}" if w != 1 else s for s, w in zip(stops, ws)]
    return " ".join(stops)


def _wild_symbols(draw) -> tuple[list, list, list, str]:
    """Symbol lines, table-wild names and the [tables] text: one or two table wilds, maybe a fixed one."""
    lines = [f"{s} = {{}}" for s in REGULAR]
    names = list(REGULAR)
    subs = draw(st.sampled_from(['"all"', '["A", "B"]', '["C"]']))
    lines.append(f'W = {{ kind = "wild", multiplier = "wm", substitutes = {subs} }}')
    names.append("W")
    tables = [_table_text(draw, "wm")]
    table_wilds = ["W"]
    if draw(st.booleans()):
        shared = draw(st.booleans())
        lines.append(f'V = {{ kind = "wild", multiplier = "{"wm" if shared else "vm"}" }}')
        names.append("V")
        table_wilds.append("V")
        if not shared:
            tables.append(_table_text(draw, "vm"))
    if draw(st.booleans()):
        lines.append(f'F = {{ kind = "wild", multiplier = {draw(st.integers(1, 3))} }}')
        names.append("F")
    if draw(st.booleans()):
        lines.append('S = { kind = "scatter" }')
        names.append("S")
    return lines, names, table_wilds, "\n".join(tables)


def _paytable(draw, names: list, reels: int) -> list:
    table = [f"{s} = {_fmt(_pays(draw, reels))}" for s in REGULAR if draw(st.integers(0, 3))]
    for w in ("W", "V", "F"):
        if w in names and draw(st.booleans()):
            table.append(f"{w} = {_fmt(_pays(draw, reels, 2))}")
    return table or ["A = { 2 = 5 }"]


def _scatter(draw, names: list) -> str:
    if "S" not in names:
        return ""
    counting = draw(st.sampled_from(["anywhere", "adjacent_from_first_reel"]))
    return f'[scatters.S]\nsymbols = ["S"]\ncounting = "{counting}"\npays = {{ 1 = 1, 2 = 4 }}\n'


@st.composite
def lines_games(draw) -> str:
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(1, 2))
    lines, names, table_wilds, tables = _wild_symbols(draw)
    max_stops = 5 if reels == 3 or rows == 1 else 4
    weighted = draw(st.booleans())
    strips = [_strip(draw, names, table_wilds, draw(st.integers(rows + 1, max_stops)), weighted) for _ in range(reels)]
    paylines = [[draw(st.integers(0, rows - 1)) for _ in range(reels)] for _ in range(draw(st.integers(1, 3)))]
    return f"""format_version = 1
name = "Random table-wild lines"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}

[pays]
rule = "lines"
direction = "{draw(st.sampled_from(["left_to_right", "right_to_left", "both_ways"]))}"
combine = "{draw(st.sampled_from(["product", "sum"]))}"
multiply_wild_only = {str(draw(st.booleans())).lower()}
line_win = "{draw(st.sampled_from(["after_multipliers", "before_multipliers"]))}"

[bet]
lines = {len(paylines)}
cost = {len(paylines)}
line_bet = 1

[symbols]
{chr(10).join(lines)}

[paytable]
{chr(10).join(_paytable(draw, names, reels))}

[paylines]
lines = [{", ".join("[" + ", ".join(map(str, l)) + "]" for l in paylines)}]

{_scatter(draw, names)}
{tables}

[strip_sets.base]
mode = "base"
{chr(10).join(f'reel{i + 1} = "{s}"' for i, s in enumerate(strips))}
"""


@st.composite
def ways_games(draw) -> str:
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(2, 3)) if reels == 3 else 2
    lines, names, table_wilds, tables = _wild_symbols(draw)
    heights = ""
    if draw(st.booleans()):
        spec = [f"reel{i + 1} = {{ 1 = {draw(st.integers(1, 2))}, {rows} = {draw(st.integers(1, 3))} }}"
                for i in range(reels) if draw(st.booleans())]
        if spec:
            heights = "heights = { " + ", ".join(spec) + " }"
    weighted = draw(st.booleans())
    strips = [_strip(draw, names, table_wilds, draw(st.integers(rows, 4)), weighted) for _ in range(reels)]
    groups = ""
    table = _paytable(draw, names, reels)
    if draw(st.booleans()):
        groups = '[groups]\nAB = ["A", "B"]\n'
        table.append(f"AB = {_fmt(_pays(draw, reels, 2))}")
    return f"""format_version = 1
name = "Random table-wild ways"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}
{heights}

[pays]
rule = "ways"
combine = "{draw(st.sampled_from(["product", "sum"]))}"
multiply_wild_only = {str(draw(st.booleans())).lower()}

[bet]
cost = {draw(st.sampled_from([10, 20]))}
line_bet = 1

[symbols]
{chr(10).join(lines)}

{groups}
[paytable]
{chr(10).join(table)}

{_scatter(draw, names)}
{tables}

[strip_sets.base]
mode = "base"
{chr(10).join(f'reel{i + 1} = "{s}"' for i, s in enumerate(strips))}
"""


# ---------------------------------------------------------------------------
# exact = reference, simulation ~ exact
# ---------------------------------------------------------------------------
def check_against_reference(game) -> None:
    scale = pay_scale(game)
    strip_set = game.strip_sets["base"]
    ref = reference.enumerate_cycle(game, strip_set)
    sheet = par(game, full_cycle=True)
    assert sheet.cycle == ref["cycle"] == expanded_cycle(game, strip_set)
    fast = Counter({Fraction(int(u), scale.denominator): int(h)
                    for u, h in zip(sheet.distribution.wins_units, sheet.distribution.hits)})
    assert fast == +ref["wins"]
    hits = sheet.line_hits.sum(axis=0)
    combos = sheet.automaton.combinations
    if game.pays.is_lines and game.pays.direction == "both_ways":  # compound combinations: compare per side
        mine: Counter = Counter()
        for c, h in zip(combos, hits):
            for part, side in (zip(c.parts, ("left", "right")) if c.parts else [(c, "right" if c.side else "left")]):
                mine[(part.symbol, part.count, part.multiplier, side)] += int(h)
        assert +mine == +ref["combinations"]  # a full-length win paid once is the left side's in both
    elif game.pays.is_lines:
        assert {(c.symbol, c.count, c.multiplier): int(h) for c, h in zip(combos, hits) if h} == dict(+ref["combinations"])
    else:
        assert {(c.symbol, c.count, 1): int(h) for c, h in zip(combos, hits) if h} == dict(+ref["combinations"])
        units = sheet.combo_units.sum(axis=0)
        assert ({(c.symbol, c.count, 1): Fraction(int(u), scale.denominator) for c, u in zip(combos, units) if u}
                == {k: v for k, v in ref["combination_units"].items() if v})
    for group, counts in ref["scatters"].items():
        assert {c: h for c, h in enumerate(sheet.scatter_hits[group]) if h} == dict(+counts)
    mean = sum(Fraction(u) * h for u, h in ref["wins"].items()) / ref["cycle"]
    assert sheet.rtp_exact == mean / game.bet.cost
    # a fixed-seed simulation agrees with the exact RTP
    result = simulate(game, SIM_SPINS, seed=7)
    se = result.rtp_ci95 / 1.96
    assert abs(result.rtp - sheet.rtp) <= 4 * se + 1e-12, (result.rtp, sheet.rtp, se)


@SETTINGS
@given(lines_games())
def test_random_lines_games_equal_the_reference_and_the_simulation(text):
    check_against_reference(loads_game(text, "table-lines.toml"))


@SETTINGS
@given(ways_games())
def test_random_ways_games_equal_the_reference_and_the_simulation(text):
    check_against_reference(loads_game(text, "table-ways.toml"))


# ---------------------------------------------------------------------------
# the expansion itself
# ---------------------------------------------------------------------------
SMALL = """format_version = 1
name = "Table wild"
game_module = "classic"

[grid]
reels = 3
rows = 2

[pays]
combine = "COMBINE"
multiply_wild_only = WILD_ONLY

[bet]
lines = 2
cost = 2
line_bet = 1

[symbols]
A = {}
B = {}
W = { kind = "wild", multiplier = "wm" }

[paytable]
A = { 2 = 2, 3 = 10 }
B = { 3 = 4 }
W = { 2 = 30, 3 = 50 }

[paylines]
lines = [[0, 0, 0], [1, 1, 1]]

[tables.wm]
entries = [{ multiplier = 2, weight = 6 }, { multiplier = 3, weight = 2 }, { multiplier = 2, weight = 0 }]

[strip_sets.base]
mode = "base"
reel1 = "A W B A"
reel2 = "W:2 A W B"
reel3 = "B A B"
"""


def test_the_variant_game_and_the_expanded_windows():
    game = loads_game(SMALL.replace("COMBINE", "product").replace("WILD_ONLY", "false"), "small.toml")
    variant = variant_game(game)
    (tw,) = table_wild_plan(game)
    # weights summed per multiplier, weight 0 dropped, divided by their gcd: {2: 3, 3: 1}, T = 4
    assert (tw.multipliers, tw.weights, tw.total, tw.names) == ((2, 3), (3, 1), 4, ("W_x2", "W_x3"))
    assert list(variant.symbols) == ["A", "B", "W", "W_x2", "W_x3"]
    x2 = variant.symbols["W_x2"]
    assert (x2.index, x2.kind, x2.multiplier, "W" in x2.substitutes) == (3, "wild", 2, True)
    assert variant.symbols["W"].multiplier_table is None
    strip = game.strip_sets["base"].reels[1]  # W:2 A W B on 2 rows
    w = expanded_windows(game, variant, strip, 2)
    assert w.total_weight == strip.total_weight * 4**2 == int(w.weights.sum())
    assert not (w.symbols == game.symbols["W"].index).any()
    # windows (W, A) (A, W) (W, B) (B, W): one wild cell each, so two windows each; (W, A) weighs
    # stop weight 2 x w(x2) 3 x T^(2 - 1) and 2 x w(x3) 1 x T
    assert len(w.weights) == 8
    top = w.stop_window[0]  # stop 1 shows (W, A): its block starts with W_x2, then W_x3
    assert w.symbols[top].tolist() == [3, 0] and w.symbols[top + 1].tolist() == [4, 0]
    assert w.weights[top:top + 2].tolist() == [2 * 3 * 4, 2 * 1 * 4]
    for row in range(2):
        rw = expanded_row_weights(game, variant, strip, row, 2)
        assert rw.sum() == w.total_weight
        assert (np.bincount(w.symbols[:, row], weights=w.weights, minlength=len(variant.symbols)) == rw).all()
    # a reel whose strip holds no table wild keeps its windows and total
    plain = expanded_windows(game, variant, game.strip_sets["base"].reels[2], 2)
    assert plain.total_weight == 3
    assert expanded_cycle(game, game.strip_sets["base"]) == (4 * 16) * (5 * 16) * 3


@pytest.mark.parametrize("combine", ["product", "sum"])
@pytest.mark.parametrize("wild_only", ["false", "true"])
def test_the_small_game_equals_the_reference(combine, wild_only):
    game = loads_game(SMALL.replace("COMBINE", combine).replace("WILD_ONLY", wild_only), "small.toml")
    check_against_reference(game)
    # W's own 2 = 30 counts the W cells whatever they drew; x1 unless multiply_wild_only.  W W B: B's 3 = 4 x M
    # (M = 4, 6 or 9) or W's 2 = 30 (x1, so it wins unless M = 9; or x M with multiply_wild_only: it always wins)
    combos = par(game).combinations
    paid = set(combos[combos["hits"] > 0]["combination"])
    assert any(label.startswith("2 x W x") for label in paid) == (wild_only == "true")
    assert ("2 x W" in paid) == (wild_only == "false")


def _example_with(multiplier: str, table: str = "") -> str:
    text = (reelsets_dir() / "examples" / "multiplier_wild_lines.toml").read_text()
    assert "multiplier = 2, reels" in text
    return text.replace("multiplier = 2, reels", f"multiplier = {multiplier}, reels") + table


def test_a_one_entry_table_is_the_fixed_multiplier():
    fixed = loads_game(_example_with("2"), "fixed.toml")
    table = loads_game(_example_with('"wm"', "\n[tables.wm]\nentries = [{ multiplier = 2, weight = 7 }]\n"), "table.toml")
    a, b = par(fixed), par(table)
    assert a.cycle == b.cycle and a.rtp_exact == b.rtp_exact
    assert a.std == pytest.approx(b.std, rel=1e-12) and a.hit_frequency == pytest.approx(b.hit_frequency, rel=1e-12)
    assert a.max_win == b.max_win
    assert a.distribution is not None and b.distribution is not None
    assert list(a.distribution.hits) == list(b.distribution.hits)
    paid = lambda sheet: sheet.combinations.query("hits > 0")[["combination", "hits"]].values.tolist()  # noqa: E731
    assert paid(a) == paid(b)


def test_the_simulator_draws_per_cell_only_for_games_with_table_wilds():
    from workbench.rounds import plain, ways

    fixed = loads_game(_example_with("2"), "fixed.toml")
    table = loads_game(_example_with('"wm"', "\n[tables.wm]\nentries = [{ multiplier = 2, weight = 3 }, "
                                             "{ multiplier = 3, weight = 1 }]\n"), "table.toml")
    assert plain.round_model(fixed).run_chunk is plain.run_chunk
    assert plain.round_model(table).run_chunk is plain.run_chunk_tables
    sheet = par(table, full_cycle=False)
    result = simulate(table, 1_000_000, seed=5)
    se = result.rtp_ci95 / 1.96
    assert abs(result.rtp - sheet.rtp) < 4 * se
    est = result.components["lines"]
    assert abs(est.value - sheet.components["lines"]) < 4 * est.ci95 / 1.96
    ways_game = loads_game(SMALL.replace("COMBINE", "sum").replace("WILD_ONLY", "false")
                           .replace("[pays]", '[pays]\nrule = "ways"').replace("lines = 2\n", "")
                           .replace("[paylines]\nlines = [[0, 0, 0], [1, 1, 1]]\n", ""), "ways.toml")
    assert ways.round_model(ways_game).run_chunk is ways.run_chunk_tables
