"""Ways pays: the exact engine (workbench.exact.ways) against a brute force over every
(height, stop) combination written here from the rules, and the simulator's ways round
against the exact mean.

The evaluator below shares no code with the engine: it reads the game's symbols, strips,
paytable, groups and scatter groups and applies the rules (workbench/pays/ways.py):

- for each paying target t (symbol or group, wilds included), its run r = number of leading
  reels showing at least one symbol matching t (a symbol: itself or a wild substituting for
  it; a group: a member or a wild substituting for a member; a wild: only itself);
  k = largest listed count (pay > 0) <= r; if k > 0 it pays pay(t, k) x W, W = sum over all
  ways through reels 1..k (one matching position per reel) of the way's multiplier M:
  product of the wild multipliers in it (``product``), or the sum of those above 1 (1 if
  none, ``sum``); a wild's own win is x1 unless multiply_wild_only;
- scatter groups pay by count (anywhere, or on adjacent reels from reel 1).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench.exact.ways import analyse_ways
from workbench.io import load_game
from workbench.pays.scale import pay_scale


# ---------------------------------------------------------------------------
# the independent evaluator
# ---------------------------------------------------------------------------
def _matches(game, shown: str, target: str) -> bool:
    sym = game.symbols[shown]
    if target in game.symbols:
        if game.symbols[target].kind == "wild":
            return shown == target
        return shown == target or (sym.kind == "wild" and target in sym.substitutes)
    members = set(game.groups[target])
    return shown in members or (sym.kind == "wild" and bool(members & set(sym.substitutes)))


def _multiplier(game, shown: str, target: str) -> int:
    sym = game.symbols[shown]
    if sym.kind != "wild":
        return 1
    if target in game.symbols and game.symbols[target].kind == "wild" and not game.pays.multiply_wild_only:
        return 1
    return sym.multiplier


def _way_multiplier(game, ms: list[int]) -> int:
    if game.pays.combine == "product":
        out = 1
        for m in ms:
            out *= m
        return out
    big = [m for m in ms if m > 1]
    return sum(big) if big else 1


def _screen_pays(game, screen: list[list[str]]):
    """(ways wins {(target, k): credits}, scatter credits) of a screen (list of reels, top first)."""
    wins = {}
    for target, pays in game.paytable.items():
        listed = [k for k, p in pays.items() if p > 0]
        if not listed:
            continue
        run = 0
        for window in screen:
            if any(_matches(game, s, target) for s in window):
                run += 1
            else:
                break
        ks = [k for k in listed if k <= run]
        if not ks:
            continue
        k = max(ks)
        positions = [[s for s in screen[i] if _matches(game, s, target)] for i in range(k)]
        W = sum(_way_multiplier(game, [_multiplier(game, s, target) for s in way]) for way in itertools.product(*positions))
        wins[(target, k)] = game.bet.credits(pays[k], game.bet.line_pay_unit) * W
    scatter = Fraction(0)
    for group in game.scatters.values():
        per_reel = [sum(1 for s in window if s in group.symbols) for window in screen]
        if group.counting == "anywhere":
            count = sum(per_reel)
        else:
            count = 0
            for c in per_reel:
                if c == 0:
                    break
                count += c
        best, best_k = Fraction(0), 0
        for k, p in group.pays.items():
            if best_k < k <= count:
                best, best_k = p, k
        scatter += game.bet.credits(best, group.unit)
    return wins, scatter


def _reel_options(game, strip, reel: int):
    """(window, weight) of every (height, stop) of a reel."""
    heights = ((game.rows[reel], 1),)
    if game.heights is not None and game.heights[reel] is not None:
        heights = game.heights[reel]
    n = len(strip.symbols)
    weights = strip.weights or (1,) * n
    return [([strip.symbols[(s + r) % n] for r in range(h)], hw * weights[s]) for h, hw in heights for s in range(n)]


def brute_force(game, strip_set):
    denominator = pay_scale(game).denominator
    options = [_reel_options(game, strip, i) for i, strip in enumerate(strip_set.reels)]
    hits, units, hist = {}, {}, {}
    cycle = 0
    for combo in itertools.product(*options):
        w = 1
        for _, x in combo:
            w *= x
        cycle += w
        if w == 0:
            continue
        wins, scatter = _screen_pays(game, [window for window, _ in combo])
        total = scatter
        for key, credits in wins.items():
            u = credits * denominator
            assert u.denominator == 1
            hits[key] = hits.get(key, 0) + w
            units[key] = units.get(key, 0) + w * int(u)
            total += credits
        t = total * denominator
        assert t.denominator == 1
        hist[int(t)] = hist.get(int(t), 0) + w
    return cycle, hits, units, hist


# ---------------------------------------------------------------------------
# random small ways games
# ---------------------------------------------------------------------------
REGULAR = ("A", "B", "C", "D")


@st.composite
def ways_games(draw):
    reels = draw(st.integers(3, 4))
    rows = draw(st.integers(2, 3))
    wild = draw(st.booleans())
    second_wild = wild and draw(st.booleans())
    scatter = draw(st.booleans())
    group = draw(st.booleans())
    combine = draw(st.sampled_from(["product", "sum"]))
    wild_only = draw(st.booleans())
    symbols = list(REGULAR)
    lines = [f"{s} = {{}}" for s in REGULAR]
    if wild:
        mult = draw(st.sampled_from([1, 2, 3]))
        subs = draw(st.sampled_from(['"all"', '["A", "B"]', '["C"]']))
        lines.append(f'WILD = {{ kind = "wild", multiplier = {mult}, substitutes = {subs} }}')
        symbols.append("WILD")
    if second_wild:
        lines.append('WX = { kind = "wild", multiplier = 2 }')
        symbols.append("WX")
    if scatter:
        lines.append('SCAT = { kind = "scatter" }')
        symbols.append("SCAT")
    heights = ""
    if draw(st.booleans()):
        spec = []
        for i in range(reels):
            if draw(st.booleans()):
                hs = draw(st.lists(st.integers(1, rows), min_size=1, max_size=2, unique=True))
                spec.append(f"reel{i + 1} = {{ " + ", ".join(f"{h} = {draw(st.integers(1, 3))}" for h in hs) + " }")
        if spec:
            heights = "heights = { " + ", ".join(spec) + " }"
    # short strips: the brute force visits every (height, stop) combination
    per_reel = max(3, min(8, int(round(6000 ** (1 / reels) / (2 if heights else 1)))))
    strips = []
    weighted = draw(st.booleans())
    for i in range(reels):
        n = draw(st.integers(max(rows, 3), max(rows, per_reel)))
        stops = draw(st.lists(st.sampled_from(symbols), min_size=n, max_size=n))
        if weighted:
            ws = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
            if not any(ws):
                ws[0] = 1
            stops = [f"{s}:{w}" if w != 1 else s for s, w in zip(stops, ws)]
        strips.append(f'reel{i + 1} = "' + " ".join(stops) + '"')

    def pays(lo):
        counts = sorted(draw(st.lists(st.integers(lo, reels), min_size=1, max_size=3, unique=True)))
        values = sorted(draw(st.lists(st.integers(1, 20), min_size=len(counts), max_size=len(counts))))
        return "{ " + ", ".join(f"{k} = {v}" for k, v in zip(counts, values)) + " }"

    table = [f"{s} = {pays(draw(st.integers(1, 3)))}" for s in REGULAR if draw(st.integers(0, 4))]
    if wild and draw(st.booleans()):
        table.append(f"WILD = {pays(2)}")
    if second_wild and draw(st.booleans()):
        table.append(f"WX = {pays(2)}")
    groups = ""
    if group:
        groups = '[groups]\nAB = ["A", "B"]\nBCD = ["B", "C", "D"]\n'
        table.append(f"AB = {pays(2)}")
        if draw(st.booleans()):
            table.append(f"BCD = {pays(3)}")
    if not table:
        table.append("A = { 3 = 5 }")
    scat = ""
    if scatter:
        counting = draw(st.sampled_from(["anywhere", "adjacent_from_first_reel"]))
        scat = f'[scatters.SCAT]\nsymbols = ["SCAT"]\ncounting = "{counting}"\npays = {pays(1)}\n'
    text = f"""format_version = 1
name = "Random ways"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}
{heights}

[pays]
rule = "ways"
combine = "{combine}"
multiply_wild_only = {str(wild_only).lower()}

[bet]
cost = {draw(st.sampled_from([10, 20, 25]))}
line_bet = 1

[symbols]
{chr(10).join(lines)}

{groups}
[paytable]
{chr(10).join(table)}

{scat}
[strip_sets.base]
mode = "base"
{chr(10).join(strips)}
"""
    return text


def _load(tmp_path, text, name="game.toml"):
    path = tmp_path / name
    path.write_text(text)
    return load_game(path)


def _rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def check_against_brute_force(game):
    strip_set = game.strip_sets["base"]
    scale = pay_scale(game)
    result = analyse_ways(game, strip_set, scale)
    cycle, hits, units, hist = brute_force(game, strip_set)
    assert result.cycle == cycle
    got = {(c.symbol, c.count): (h, u) for c, h, u in zip(result.combinations, result.combo_hits, result.combo_units)}
    for key in set(got) | set(hits):
        assert got.get(key, (0, 0)) == (hits.get(key, 0), units.get(key, 0)), key
    assert result.histogram is not None
    nz = np.flatnonzero(result.histogram)
    assert dict(zip(nz.tolist(), result.histogram[nz].tolist())) == {u: h for u, h in hist.items() if h}
    mean = Fraction(sum(u * h for u, h in hist.items()), cycle)
    second = Fraction(sum(u * u * h for u, h in hist.items()), cycle)
    hit = Fraction(sum(h for u, h in hist.items() if u > 0), cycle)
    m = result.moments
    assert _rel(m.mean, float(mean)) < 1e-12
    assert _rel(m.second, float(second)) < 1e-12
    assert _rel(m.hit, float(hit)) < 1e-12 or (hit == 0 and m.hit == 0)
    top = max((u for u, h in hist.items() if h), default=0)
    assert m.max_exact and m.max_units == top
    # without the full cycle: the same moments, the max from the search (exact or bounded)
    other = analyse_ways(game, strip_set, scale, full_cycle=False)
    assert other.histogram is None and other.combo_units == result.combo_units
    assert (other.moments.mean, other.moments.second, other.moments.hit) == (m.mean, m.second, m.hit)
    if other.moments.max_exact:
        assert other.moments.max_units == top
    else:
        assert other.moments.max_units <= top <= other.moments.max_upper
    # a search stopped at its budget: the largest win found and an upper bound
    cut = analyse_ways(game, strip_set, scale, full_cycle=False, max_nodes=2).moments
    assert cut.max_units <= top <= (cut.max_units if cut.max_exact else cut.max_upper)
    return result


SMALL = """format_version = 1
name = "Small ways"
game_module = "classic"

[grid]
reels = 3
rows = 3
heights = { reel1 = { 2 = 1, 3 = 2 }, reel3 = { 1 = 1, 3 = 1 } }

[pays]
rule = "ways"
combine = "COMBINE"

[bet]
cost = 20
line_bet = 1

[symbols]
WILD = { kind = "wild", multiplier = 2 }
SCAT = { kind = "scatter" }
A = {}
B = {}
C = {}

[groups]
AB = ["A", "B"]

[paytable]
WILD = { 3 = 50 }
A = { 2 = 2, 3 = 10 }
B = { 3 = 5 }
C = { 3 = 3 }
AB = { 3 = 1 }

[scatters.SCAT]
symbols = ["SCAT"]
pays = { 2 = 1, 3 = 5 }

[strip_sets.base]
mode = "base"
reel1 = "A B C SCAT A:2 C"
reel2 = "WILD A B C SCAT B"
reel3 = "A B C WILD SCAT C:3"
"""


@pytest.mark.parametrize("combine", ["product", "sum"])
def test_small_game_against_brute_force(tmp_path, combine):
    game = _load(tmp_path, SMALL.replace("COMBINE", combine))
    assert game.pays.rule == "ways" and game.heights is not None and game.paylines == ()
    result = check_against_brute_force(game)
    assert [c.label for c in result.combinations] == ["3 x WILD", "2 x A", "3 x A", "3 x B", "3 x C", "3 x AB"]
    assert len(result.windows) == 3 and result.windows[0].total_weight == 3 * 7


SCREEN = """format_version = 1
name = "One screen"
game_module = "classic"

[grid]
reels = 3
rows = 2

[pays]
rule = "ways"
combine = "COMBINE"

[bet]
cost = 20
line_bet = 1

[symbols]
WILD = { kind = "wild", multiplier = 3 }
A = {}
B = {}
C = {}

[groups]
AB = ["A", "B"]

[paytable]
WILD = { 3 = 50 }
A = { 2 = 2, 3 = 10 }
B = { 3 = 5 }
C = { 3 = 3 }
AB = { 3 = 1 }

[strip_sets.base]
mode = "base"
reel1 = "WILD A"
reel2 = "WILD A"
reel3 = "A C"
"""


@pytest.mark.parametrize("combine, ways_a, ways_c", [("product", 16, 9), ("sum", 13, 6)])
def test_screen_rules(tmp_path, combine, ways_a, ways_c):
    """Every screen shows WILD(x3) and A on reels 1 and 2, A and C on reel 3 (8 screens).

    A: ways (W,W,A) (W,A,A) (A,W,A) (A,A,A) with M = 9 3 3 1 (product) or 6 3 3 1 (sum);
    AB: the same ways; C: only (W,W,C), M = 9 or 6; B: no B on reel 3; WILD: run 2.
    """
    game = _load(tmp_path, SCREEN.replace("COMBINE", combine))
    result = analyse_ways(game, game.strip_sets["base"], pay_scale(game))
    got = {c.label: (h, u) for c, h, u in zip(result.combinations, result.combo_hits, result.combo_units)}
    assert got == {"3 x WILD": (0, 0), "2 x A": (0, 0), "3 x A": (8, 8 * 10 * ways_a), "3 x B": (0, 0),
                   "3 x C": (8, 8 * 3 * ways_c), "3 x AB": (8, 8 * ways_a)}
    total = 11 * ways_a + 3 * ways_c
    m = result.moments
    assert (m.max_units, m.hit, m.mean, m.second) == (total, 1.0, total, total * total)
    check_against_brute_force(game)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=ways_games())
def test_random_ways_games_against_brute_force(tmp_path_factory, text):
    game = _load(tmp_path_factory.mktemp("ways"), text)
    check_against_brute_force(game)


def test_histogram_refused_over_budget(tmp_path):
    game = _load(tmp_path, SMALL.replace("COMBINE", "product"))
    result = analyse_ways(game, game.strip_sets["base"], pay_scale(game), budget=10)
    assert result.histogram is None and "over the budget of 10" in result.cycle_note
    full = analyse_ways(game, game.strip_sets["base"], pay_scale(game))
    assert result.combo_units == full.combo_units and result.moments.mean == full.moments.mean
    assert result.moments.max_units == full.moments.max_units  # the search finishes on a small game


def test_simulation_agrees_with_exact_mean(tmp_path):
    """The ways round through workbench.simulate.simulate (the classic template plays ways games)."""
    from workbench.rounds import ways as ways_round
    from workbench.simulate import simulate

    game = _load(tmp_path, SMALL.replace("COMBINE", "sum"))
    exact = analyse_ways(game, game.strip_sets["base"], pay_scale(game))
    spins = 2_000_000
    result = simulate(game, spins, seed=12345)
    assert result.model.components == ("ways", "scatter:SCAT") and result.spins == spins
    assert result.model.run_chunk is ways_round.run_chunk  # the classic template plays it with the ways round
    raw = result.raw
    sim_mean = raw.won / spins
    sd = np.sqrt(exact.moments.second - exact.moments.mean ** 2)
    assert abs(sim_mean - exact.moments.mean) < 4 * sd / np.sqrt(spins)
    # the ways component alone against the exact ways mean (its own spread from the simulation)
    ways_mean = sum(exact.combo_units) / exact.cycle
    k = result.model.components.index("ways")
    m = raw.comp_sum[k] / spins
    se = np.sqrt(max(raw.comp_sq[k] / spins - m * m, 0.0) / spins)
    assert abs(m - ways_mean) < 4 * se
    hit = exact.moments.hit
    assert abs(raw.hits / spins - hit) < 4 * np.sqrt(hit * (1 - hit) / spins) + 1e-12
    assert raw.max_win_units <= exact.moments.max_units


def test_hit_walk_in_integers_agrees(tmp_path):
    """The integer walk (used when target masks leave 64 bits) gives the vectorized walk's hit frequency."""
    from workbench.exact import ways as engine
    from workbench.pays.scatter import scatter_pay_tables
    from workbench.pays.ways import ways_targets

    for combine in ("product", "sum"):
        game = _load(tmp_path, SMALL.replace("COMBINE", combine))
        strip_set = game.strip_sets["base"]
        scale = pay_scale(game)
        targets, tables = ways_targets(game, scale), scatter_pay_tables(game, scale)
        reels = engine.ways_outcomes(game, strip_set, targets, tables)
        cycle = analyse_ways(game, strip_set, scale).cycle
        unpaid = engine._unpaid_weight(targets, tables, reels, "")
        _, _, _, hist = brute_force(game, strip_set)
        assert unpaid == hist.get(0, 0)
        assert _rel(engine._hit_probability(targets, tables, reels, ""), 1 - unpaid / cycle) < 1e-12


WILDS = """format_version = 1
name = "Wilds and groups"
game_module = "classic"

[grid]
reels = 3
rows = 2

[pays]
rule = "ways"
combine = "COMBINE"
multiply_wild_only = WILD_ONLY

[bet]
cost = 10
line_bet = 1

[symbols]
WILD = { kind = "wild", multiplier = 3, substitutes = ["A", "B"] }
WX = { kind = "wild", multiplier = 2 }
A = {}
B = {}
C = {}
D = {}

[groups]
AB = ["A", "B"]
BCD = ["B", "C", "D"]

[paytable]
WILD = { 2 = 4, 3 = 20 }
WX = { 3 = 10 }
A = { 3 = 5 }
C = { 2 = 1, 3 = 4 }
BCD = { 3 = 2 }
AB = { 2 = 1 }

[strip_sets.base]
mode = "base"
reel1 = "WILD WILD C WX D"
reel2 = "WILD B WX WILD C"
reel3 = "D WILD A WX"
"""


@pytest.mark.parametrize("combine", ["product", "sum"])
def test_wild_targets_groups_and_multiply_wild_only(tmp_path, combine):
    """A wild's own win is x1 unless multiply_wild_only; a wild substituting for one member of a
    group (WILD for B in BCD) counts for the group."""
    results = {}
    for wild_only in (False, True):
        text = WILDS.replace("COMBINE", combine).replace("WILD_ONLY", str(wild_only).lower())
        game = _load(tmp_path, text, f"{wild_only}.toml")
        results[wild_only] = check_against_brute_force(game)
    plain, multiplied = ({(c.symbol, c.count): u for c, u in zip(r.combinations, r.combo_units)}
                         for r in (results[False], results[True]))
    assert multiplied[("WILD", 2)] > plain[("WILD", 2)] > 0 and multiplied[("WX", 3)] > plain[("WX", 3)] > 0
    assert {k: v for k, v in plain.items() if k[0] not in ("WILD", "WX")} == {
        k: v for k, v in multiplied.items() if k[0] not in ("WILD", "WX")}
    # WILD matches BCD through B: the x3 wild on reels 1 and 2 makes BCD wins that C and D alone cannot
    game = results[False]
    hits = {(c.symbol, c.count): h for c, h in zip(game.combinations, game.combo_hits)}
    assert hits[("BCD", 3)] > 0
