"""The line automaton against a brute-force line evaluator: groups, multiplier wilds, all three directions.

The evaluator below is written straight from the rules (docs: workbench/pays/lines.py),
sharing no code with the automaton: for every sequence of symbols on a line it gives the
pay and the combination label, and the automaton's gains along the same path must add up
to that pay, ending in a terminal state whose combination has that label.
"""

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench.errors import ExactBudgetError
from workbench.exact.par import analyse_strip_set
from workbench.io import load_game
from workbench.pays.lines import (
    _forward_automaton,
    _sequence_automaton,
    build_automaton,
    combination_counts,
    line_automaton,
    line_state_counts,
    packed_steps,
)
from workbench.pays.scale import pay_scale

SETTINGS = settings(max_examples=examples(60), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ---------------------------------------------------------------------------
# games as reelset text
# ---------------------------------------------------------------------------
def game_text(reels: int, symbols: dict, paytable: dict, groups: dict | None = None, direction: str = "left_to_right",
              combine: str = "product", wild_only: bool = False, strips: list | None = None, rows: int = 1,
              lines: list | None = None, line_win: str = "after_multipliers") -> str:
    """``symbols``: name -> inline table text; ``paytable``: target -> {count: pay}; strips: one per reel."""
    names = list(symbols)
    strips = strips or [" ".join(names)] * reels
    lines = lines or [[0] * reels]
    fmt = lambda pays: "{ " + ", ".join(f"{k} = {v}" for k, v in pays.items()) + " }"  # noqa: E731
    group_text = ""
    if groups:
        group_text = "[groups]\n" + "\n".join(f"{g} = [{', '.join(repr(m).replace(chr(39), chr(34)) for m in ms)}]"
                                              for g, ms in groups.items()) + "\n"
    return f"""format_version = 1
name = "rules"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}

[pays]
rule = "lines"
direction = "{direction}"
combine = "{combine}"
multiply_wild_only = {"true" if wild_only else "false"}
line_win = "{line_win}"

[bet]
lines = {len(lines)}
cost = {len(lines)}
line_bet = 1

[symbols]
{chr(10).join(f"{k} = {v}" for k, v in symbols.items())}

{group_text}
[paytable]
{chr(10).join(f"{k} = {fmt(v)}" for k, v in paytable.items())}

[paylines]
lines = [{", ".join("[" + ", ".join(map(str, l)) + "]" for l in lines)}]

[strip_sets.base]
mode = "base"
{chr(10).join(f'reel{i + 1} = "{s}"' for i, s in enumerate(strips))}
"""


def load(tmp_path, text: str):
    path = tmp_path / "game.toml"
    path.write_text(text)
    return load_game(path)


# ---------------------------------------------------------------------------
# the brute-force evaluator (from the rules)
# ---------------------------------------------------------------------------
def _matches(game, shown: str, target: str) -> bool:
    sym = game.symbols[shown]
    if target in game.symbols:
        if game.symbols[target].kind == "wild":
            return shown == target  # a wild's own run counts only that wild
        return shown == target or (sym.kind == "wild" and target in sym.substitutes)
    members = set(game.groups[target])
    return shown in members or (sym.kind == "wild" and bool(members & set(sym.substitutes)))


def _multiplier(game, shown: list) -> int:
    wilds = [game.symbols[s].multiplier for s in shown if game.symbols[s].kind == "wild"]
    if game.pays.combine == "product":
        return math.prod(wilds)
    return sum(m for m in wilds if m > 1) or 1


def _with_feature(game, m: int) -> int:
    """A free-spins multiplier F that the wilds' multiplier adds to (multiplier_wilds = "add"): the multipliers above
    x1 add up, x1 when there are none; ``m`` itself without one."""
    f = game.pays.feature_multiplier
    if not f:
        return m
    return sum(x for x in (f, m) if x > 1) or 1


def best_win(game, line: list):
    """(target, count, multiplier, multiplied pay) of the line read in the given order, or None."""
    file_order = list(game.symbols) + list(game.groups)
    best, best_key = None, None
    for target, pays in game.paytable.items():
        run = 0
        while run < len(line) and _matches(game, line[run], target):
            run += 1
        listed = [k for k, p in pays.items() if k <= run and p > 0]
        if not listed:
            continue
        k = max(listed)
        is_wild = target in game.symbols and game.symbols[target].kind == "wild"
        m = _with_feature(game, 1 if is_wild and not game.pays.multiply_wild_only else _multiplier(game, line[:k]))
        paid = pays[k] * m
        # [pays] line_win: the candidates are ranked by their pay after (default) or before their multiplier
        ranked_by = pays[k] if game.pays.line_win == "before_multipliers" else paid
        key = (ranked_by, k, target in game.symbols, -file_order.index(target))
        if best_key is None or key > best_key:
            best, best_key = (target, k, m, paid), key
    return best


def _label(win, right: bool = False) -> str:
    t, k, m, _ = win
    return f"{k} x {t}" + (f" x{m}" if m > 1 else "") + (" (right)" if right else "")


def line_result(game, line: list):
    """(pay in the line pay unit, label or None) of a line under the game's direction."""
    direction = game.pays.direction
    left = best_win(game, line) if direction != "right_to_left" else None
    right = best_win(game, line[::-1]) if direction != "left_to_right" else None
    if left and right and left[:3] == right[:3] and left[1] == game.reels:
        right = None  # the same full-length combination is paid once
    pay = (left[3] if left else 0) + (right[3] if right else 0)
    if left and right:
        return pay, f"{_label(left)} + {_label(right, True)}"
    if left:
        return pay, _label(left)
    if right:
        return pay, _label(right, True)
    return Fraction(0), None


def run_automaton(a, ids: list):
    st_, total = 0, 0
    for s in ids:
        total += int(a.gain[st_, s])
        st_ = int(a.trans[st_, s])
    return st_, total


def check_every_sequence(game, automaton=None):
    a = automaton if automaton is not None else build_automaton(game)
    scale = pay_scale(game)
    names = list(game.symbols)
    # the contract: terminal states loop with gain 0
    dead = np.flatnonzero(~a.live)
    assert (a.trans[dead] == dead[:, None]).all() and (a.gain[dead] == 0).all()
    assert (a.pay_units[a.combo < 0] == 0).all()
    for seq in itertools.product(range(len(names)), repeat=game.reels):
        line = [names[s] for s in seq]
        pay, label = line_result(game, line)
        end, total = run_automaton(a, seq)
        units = scale.units(game.bet.credits(Fraction(pay), game.bet.line_pay_unit))
        assert not a.live[end], line
        assert total == units == a.pay_units[end], (line, total, units)
        got = a.combinations[a.combo[end]] if a.combo[end] >= 0 else None
        assert (got.label if got else None) == label, line
        if got:
            assert scale.units(game.bet.credits(got.paid, game.bet.line_pay_unit)) == units
    return a


# ---------------------------------------------------------------------------
# random games
# ---------------------------------------------------------------------------
def _pays(draw, reels: int) -> dict:
    counts = sorted(draw(st.lists(st.integers(1, reels), min_size=1, max_size=reels, unique=True)))
    values = sorted(draw(st.lists(st.integers(0, 30), min_size=len(counts), max_size=len(counts))))
    return dict(zip(counts, values))


@st.composite
def rule_games(draw):
    reels = draw(st.integers(3, 4))
    n_regular = draw(st.integers(2, 4))
    n_wild = draw(st.integers(0, 2))
    regular = [f"R{i}" for i in range(n_regular)]
    wilds = [f"W{i}" for i in range(n_wild)]
    symbols = {r: "{}" for r in regular}
    for w in wilds:
        spec = ['kind = "wild"']
        m = draw(st.sampled_from([1, 1, 2, 3]))
        if m > 1:
            spec.append(f"multiplier = {m}")
        if draw(st.booleans()):
            subs = draw(st.lists(st.sampled_from(regular), unique=True))
            spec.append("substitutes = [" + ", ".join(f'"{s}"' for s in subs) + "]")
        symbols[w] = "{ " + ", ".join(spec) + " }"
    if draw(st.booleans()):
        symbols["S"] = '{ kind = "scatter" }'
    if len(symbols) > 6:  # keep symbols ** reels small for the brute force
        reels = 3
    groups = {}
    for g in range(draw(st.integers(0, 2))):
        members = draw(st.lists(st.sampled_from(regular), min_size=2, max_size=3, unique=True))
        groups[f"G{g}"] = members
    paytable = {}
    for name in regular + wilds + list(groups):
        if draw(st.integers(0, 3)) > 0:
            paytable[name] = _pays(draw, reels)
    direction = draw(st.sampled_from(["left_to_right", "right_to_left", "both_ways"]))
    combine = draw(st.sampled_from(["product", "sum"]))
    wild_only = draw(st.booleans())
    line_win = draw(st.sampled_from(["after_multipliers", "before_multipliers"]))
    return game_text(reels, symbols, paytable, groups, direction, combine, wild_only, line_win=line_win)


@SETTINGS
@given(rule_games())
def test_automaton_pays_every_sequence_as_the_rules(tmp_path, text):
    game = load(tmp_path, text)
    check_every_sequence(game)
    # the sequence construction agrees with the left-to-right automaton on its own direction
    if game.pays.direction == "left_to_right":
        check_every_sequence(game, _sequence_automaton(game, pay_scale(game), "left_to_right"))


# ---------------------------------------------------------------------------
# explicit examples
# ---------------------------------------------------------------------------
CLASSIC3 = dict(
    symbols={"WILD": '{ kind = "wild", multiplier = 2 }', "SEVEN": "{}", "BAR3": "{}", "BAR2": "{}", "BAR1": "{}",
             "CHERRY": "{}", "BLANK": '{ kind = "blank" }'},
    paytable={"WILD": {3: 1000}, "SEVEN": {3: 100}, "BAR3": {3: 40}, "BAR2": {3: 20}, "BAR1": {3: 10},
              "CHERRY": {1: 1, 2: 5, 3: 10}, "ANY_BAR": {3: 5}},
    groups={"ANY_BAR": ["BAR1", "BAR2", "BAR3"]},
)


def pay_of(a, game, line: str):
    ids = [list(game.symbols).index(s) for s in line.split()]
    end, total = run_automaton(a, ids)
    assert not a.live[end]
    return total, (a.combinations[a.combo[end]].label if a.combo[end] >= 0 else None)


def test_classic_three_reels_any_bar_and_a_x2_wild(tmp_path):
    game = load(tmp_path, game_text(3, **CLASSIC3))
    a = check_every_sequence(game)
    assert pay_of(a, game, "BAR1 BAR2 BAR3") == (5, "3 x ANY_BAR")
    assert pay_of(a, game, "BAR1 WILD BAR1") == (20, "3 x BAR1 x2")  # pure BAR1 x2 beats ANY_BAR x2
    assert pay_of(a, game, "BAR1 WILD BAR2") == (10, "3 x ANY_BAR x2")
    assert pay_of(a, game, "WILD WILD BAR3") == (160, "3 x BAR3 x4")  # two wilds: x4
    assert pay_of(a, game, "WILD BAR2 WILD") == (80, "3 x BAR2 x4")
    assert pay_of(a, game, "WILD WILD WILD") == (1000, "3 x WILD")  # x8 SEVEN (800) is less
    assert pay_of(a, game, "CHERRY WILD BLANK") == (10, "2 x CHERRY x2")
    assert pay_of(a, game, "WILD CHERRY BLANK") == (10, "2 x CHERRY x2")
    assert pay_of(a, game, "WILD BLANK CHERRY") == (2, "1 x CHERRY x2")
    assert pay_of(a, game, "BLANK WILD WILD") == (0, None)
    labels = [c.label for c in a.combinations]
    assert labels.index("3 x SEVEN") < labels.index("3 x SEVEN x2") < labels.index("3 x SEVEN x4") < labels.index("3 x BAR3")
    assert labels[-1].startswith("3 x ANY_BAR")  # groups after symbols
    # ties: equal multiplied pays go to the pure symbol; then file order
    tie = dict(CLASSIC3, paytable={"BAR1": {3: 5}, "ANY_BAR": {3: 5}, "BAR2": {3: 5}})
    game = load(tmp_path, game_text(3, **tie))
    a = check_every_sequence(game)
    assert pay_of(a, game, "BAR1 BAR1 BAR1") == (5, "3 x BAR1")
    assert pay_of(a, game, "WILD WILD WILD") == (40, "3 x BAR2 x8")  # BAR2 is listed before BAR1


def test_wild_only_wins_and_the_sum_of_multipliers(tmp_path):
    spec = dict(CLASSIC3, symbols={**CLASSIC3["symbols"], "WILD": '{ kind = "wild", multiplier = 3 }'})
    product = load(tmp_path, game_text(3, **spec, wild_only=True))
    a = check_every_sequence(product)
    assert pay_of(a, product, "WILD WILD WILD") == (27000, "3 x WILD x27")
    assert pay_of(a, product, "WILD WILD BAR3") == (360, "3 x BAR3 x9")
    summed = load(tmp_path, game_text(3, **spec, combine="sum"))
    a = check_every_sequence(summed)
    assert pay_of(a, summed, "WILD WILD WILD") == (1000, "3 x WILD")
    assert pay_of(a, summed, "WILD WILD BAR3") == (240, "3 x BAR3 x6")
    assert pay_of(a, summed, "BAR3 BAR3 BAR3") == (40, "3 x BAR3")


def test_wild_wild_wild_seven_seven(tmp_path, classic):
    assert pay_of(line_automaton(classic), classic, "WILD WILD WILD SEVEN SEVEN") == (500, "5 x SEVEN")
    text = classic.text.replace('WILD = { kind = "wild",', 'WILD = { kind = "wild", multiplier = 2,')
    game = load(tmp_path, text)
    a = line_automaton(game)
    assert pay_of(a, game, "WILD WILD WILD SEVEN SEVEN") == (4000, "5 x SEVEN x8")
    assert pay_of(a, game, "WILD WILD WILD SCAT SEVEN") == (320, "3 x SEVEN x8")  # beats 3 x WILD (50, not multiplied)
    assert pay_of(a, game, "WILD WILD WILD SEVEN SCAT") == (1200, "4 x SEVEN x8")
    assert pay_of(a, game, "SEVEN SEVEN WILD SCAT SCAT") == (80, "3 x SEVEN x2")
    # the same game paid right to left and both ways
    for direction in ("right_to_left", "both_ways"):
        game = load(tmp_path, text.replace("[grid]", f'[pays]\ndirection = "{direction}"\n\n[grid]'))
        a = line_automaton(game)
        both = direction == "both_ways"
        assert pay_of(a, game, "WILD WILD WILD SEVEN SEVEN") == (4000, "5 x SEVEN x8" + ("" if both else " (right)"))  # once
        assert pay_of(a, game, "SEVEN SEVEN WILD SCAT SCAT") == ((80, "3 x SEVEN x2") if both else (0, None))
        assert pay_of(a, game, "SCAT SCAT WILD SEVEN SEVEN") == (80, "3 x SEVEN x2 (right)")
        assert pay_of(a, game, "BAR BAR BAR SCAT SEVEN") == ((25, "3 x BAR") if both else (0, None))


BOTH = dict(
    symbols={"W": '{ kind = "wild", multiplier = 2 }', "A": "{}", "K": "{}", "Q": "{}", "S": '{ kind = "scatter" }'},
    paytable={"W": {5: 500}, "A": {3: 5, 4: 20, 5: 100}, "K": {2: 1, 3: 4, 4: 10, 5: 50}, "Q": {3: 2, 4: 6}},
)


def test_both_ways_five_of_a_kind_paid_once(tmp_path):
    game = load(tmp_path, game_text(5, **BOTH, direction="both_ways"))
    a = check_every_sequence(game)
    assert pay_of(a, game, "A A A A A") == (100, "5 x A")
    assert pay_of(a, game, "W A A A W") == (400, "5 x A x4")
    assert pay_of(a, game, "W W W W W") == (3200, "5 x A x32")  # x32 A beats the unmultiplied 5 x W, paid once
    assert pay_of(a, game, "A A A K K") == (6, "3 x A + 2 x K (right)")
    assert pay_of(a, game, "A A A W K") == (40 + 2, "4 x A x2 + 2 x K x2 (right)")  # the wild takes part in both
    assert pay_of(a, game, "S S A A A") == (5, "3 x A (right)")
    # a full line whose combination is shorter than the reels is no full-length combination: paid from both ends
    assert pay_of(a, game, "Q Q Q Q Q") == (12, "4 x Q + 4 x Q (right)")
    compound = next(c for c in a.combinations if c.label == "3 x A + 2 x K (right)")
    assert compound.side == "both" and compound.symbol == "A+K" and compound.paid == 6
    assert [p.side for p in compound.parts] == ["", "right"]
    right = load(tmp_path, game_text(5, **BOTH, direction="right_to_left"))
    a = check_every_sequence(right)
    assert pay_of(a, right, "A A A K K") == (1, "2 x K (right)")
    assert all(c.side == "right" for c in a.combinations)


def test_both_ways_exact_counts_and_packed_steps_equal_brute_force(tmp_path):
    strips = ["A K W Q S A", "K A Q W A", "A S K Q A W", "Q K A S", "W A K Q A S"]
    game = load(tmp_path, game_text(5, **BOTH, direction="both_ways", combine="sum", strips=strips, rows=2,
                                    lines=[[0] * 5, [1] * 5, [0, 1, 0, 1, 0]]))
    a = line_automaton(game)
    scale = pay_scale(game)
    strip_set = game.strip_sets["base"]
    ids = {s: i for i, s in enumerate(game.symbols)}
    step = packed_steps(a)
    spins = Counter()  # spin win (pay units) -> stop combinations
    for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
        total = 0
        for rows in game.paylines:
            line = [strip_set.reels[i].symbols[(stops[i] + r) % len(strip_set.reels[i])] for i, r in enumerate(rows)]
            total += scale.units(game.bet.credits(Fraction(line_result(game, line)[0]), game.bet.line_pay_unit))
        spins[total] += 1
    # the exact engine's full-cycle walk and moments read the same automaton
    analysis = analyse_strip_set(game, strip_set, a, scale, full_cycle=True)
    assert Counter({u: int(h) for u, h in enumerate(analysis.histogram) if h}) == spins
    cycle = sum(spins.values())
    assert np.isclose(analysis.moments.mean, sum(u * h for u, h in spins.items()) / cycle, rtol=1e-12)
    assert analysis.moments.max_units == max(spins)
    for rows in game.paylines:
        expected = Counter()
        for stops in itertools.product(*(range(len(s)) for s in strip_set.reels)):
            line = [strip_set.reels[i].symbols[(stops[i] + r) % len(strip_set.reels[i])] for i, r in enumerate(rows)]
            pay, label = line_result(game, line)
            if label:
                expected[label] += 1
            # the simulator's packed steps pay the same (line_pay_screen's loop)
            st_, total = 0, 0
            for s in line:
                code = int(step[st_, ids[s]])
                total += code >> 32
                if code & 1 == 0:
                    break
                st_ = (code & 0xFFFFFFFF) >> 1
            assert total == scale.units(game.bet.credits(Fraction(pay), game.bet.line_pay_unit))
        weights = [np.bincount([ids[strip.symbols[(k + r) % len(strip)]] for k in range(len(strip))], minlength=len(ids))
                   for strip, r in zip(strip_set.reels, rows)]
        hits = combination_counts(a, line_state_counts(a, weights))
        assert Counter({c.label: int(h) for c, h in zip(a.combinations, hits) if h}) == expected


def test_refuses_too_many_sequences(tmp_path):
    symbols = {f"R{i}": "{}" for i in range(12)}
    paytable = {f"R{i}": {3: i + 1} for i in range(12)}
    game = load(tmp_path, game_text(7, symbols, paytable, direction="both_ways"))
    _forward_automaton(game, pay_scale(game))  # left to right is small
    with pytest.raises(ExactBudgetError, match="sequences"):
        build_automaton(game)


def test_cache_tells_directions_groups_and_multipliers_apart(tmp_path):
    base = game_text(3, **CLASSIC3)
    games = [load(tmp_path, base),
             load(tmp_path, base.replace('direction = "left_to_right"', 'direction = "right_to_left"')),
             load(tmp_path, base.replace("multiplier = 2", "multiplier = 3")),
             load(tmp_path, base.replace('"BAR1", "BAR2", "BAR3"', '"BAR1", "BAR2"')),
             load(tmp_path, base.replace('combine = "product"', 'combine = "sum"')),
             load(tmp_path, base.replace("multiply_wild_only = false", "multiply_wild_only = true"))]
    automata = [line_automaton(g) for g in games]
    assert len({id(a) for a in automata}) == len(automata)
    for g, a in zip(games, automata):
        check_every_sequence(g, a)
