"""Every reelset in reelsets/ (capability by capability): bad input is reported precisely, and
the fast engines pay their screens exactly as the slow reference evaluator does."""

import random
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from workbench import reference
from workbench.exact import pay_scale, strip_set_windows
from workbench.exact.par import analyse_strip_set
from workbench.io import example_games, load_game, loads_game, reelsets_dir, shipped_games
from workbench.pays.lines import line_arrays, line_automaton
from workbench.pays.scatter import scatter_arrays
from workbench.simulate.kernel import compile_strip_sets, count_groups, line_pay_windows

SHIPPED = shipped_games() + example_games()  # the gallery too: every general test runs over it
# capabilities, read from the files themselves so a new reelset is tested for what it has
TABLE_GAMES = [g for g in SHIPPED if load_game(g).tables]
TALL_GAMES = [g for g in SHIPPED if any(s.height > 1 for s in load_game(g).symbols.values())]
LINE_GAMES = [g for g in SHIPPED if load_game(g).pays.is_lines]


def _problems(text, name="mem.toml"):
    from workbench.errors import ReelsetError

    try:
        loads_game(text, name)
    except ReelsetError as exc:
        return exc.problems
    return []


def _line(text, needle):
    return next(i + 1 for i, line in enumerate(text.splitlines()) if needle in line)


@pytest.mark.parametrize("name", SHIPPED)
def test_bad_input_in_every_shipped_file_names_file_line_and_key(name):
    text = (reelsets_dir() / f"{name}.toml").read_text()
    # an unknown symbol on the first reel of the first strip set
    first = re.search(r'^(reel1 = "+\n?)(\S+)', text, re.M)
    bad = text[: first.start(2)] + "KIWI" + text[first.end(2):]
    problems = _problems(bad)
    assert any("unknown symbol 'KIWI'" in p.message and p.key.endswith(".reel1") and p.line == _line(bad, "KIWI") for p in problems)
    # a paytable row for a symbol that does not exist
    row = re.search(r"^\[paytable\].*\n(\w+) = ", text, re.M)
    bad = text[: row.start(1)] + "NOSUCH" + text[row.end(1):]
    assert any(p.key == "paytable.NOSUCH" and "unknown symbol" in p.message for p in _problems(bad))
    # an unknown format version stops everything else
    bad = text.replace("format_version = 1", "format_version = 9", 1)
    problems = _problems(bad)
    assert len(problems) == 1 and "unknown format version 9" in problems[0].message and problems[0].line == _line(bad, "format_version")
    # a typo in a key
    bad = text.replace("[grid]\nreels", "[grid]\nreeels", 1)
    assert any("unknown key 'reeels'" in p.message for p in _problems(bad))


@pytest.mark.parametrize("name", TABLE_GAMES)
def test_bad_table_weights_name_the_table(name):
    text = (reelsets_dir() / f"{name}.toml").read_text()
    # a negative weight in the first weighted table
    entry = re.search(r"weight = (\d+) \}", text)
    bad = text[: entry.start(1)] + "-3" + text[entry.end(1):]
    assert any("negative weight -3" in p.message and p.key.startswith("tables.") for p in _problems(bad))
    # all weights of a table zero
    table = re.search(r"^\[tables\.(\w+)\][^\n]*\nentries = \[\n((?:  \{.*\},?\n)+)\]", text, re.M)
    zeroed = re.sub(r"weight = \d+", "weight = 0", table.group(2))
    bad = text.replace(table.group(2), zeroed, 1)
    assert any(p.key == f"tables.{table.group(1)}.entries" and "all weights are zero" in p.message for p in _problems(bad))


@pytest.mark.parametrize("name", TALL_GAMES)
def test_a_tall_symbol_cut_in_half_is_reported(name):
    text = (reelsets_dir() / f"{name}.toml").read_text()
    game = load_game(name)
    tall = next(s for s in game.symbols.values() if s.height > 1)
    strip = re.search(rf'^(reel\d) = "(.*?\b{tall.name}\b.*?)"$', text, re.M)
    tokens = strip.group(2).split()
    tokens.remove(tall.name)
    bad = text.replace(strip.group(0), f'{strip.group(1)} = "{" ".join(tokens)}"', 1)
    assert any(f"tall symbol {tall.name}" in p.message and "broken" in p.message for p in _problems(bad))


@pytest.mark.parametrize("name", LINE_GAMES)
def test_compiled_screens_pay_as_the_reference_evaluator(name):
    """Random screens of every strip set: line pays and scatter counts of the simulator's
    compiled tables equal the slow reference evaluator's."""
    game = load_game(name)
    scale = pay_scale(game)
    lines = line_arrays(game)
    scat = scatter_arrays(game)
    rnd = random.Random(7)
    for strip_set in game.strip_sets.values():
        ma = compile_strip_sets(game, [strip_set], lines)
        windows = strip_set_windows(game, strip_set)
        counts = np.zeros(len(game.scatters), dtype=np.int64)
        for _ in range(150):
            stops = tuple(rnd.randrange(len(strip)) for strip in strip_set.reels)
            wins = np.array([w.stop_window[s] for w, s in zip(windows, stops)], dtype=np.int64)
            ref = reference.spin_result(game, strip_set, stops)
            line_credits = sum(game.bet.credits(c[2], game.bet.line_pay_unit) for c in ref["lines"] if c)
            assert Fraction(int(line_pay_windows(ma, 0, lines, wins)), scale.denominator) == line_credits, (name, strip_set.name, stops)
            count_groups(ma, 0, scat, wins, counts, -1)
            assert dict(zip(game.scatters, counts.tolist())) == ref["scatters"], (name, strip_set.name, stops)


def _reduced(text: str, keep: int) -> str:
    """The reelset with every strip cut to about ``keep`` stops (whole tall symbols only)."""
    game = loads_game(text, "full")

    def cut(match):
        tokens = match.group(2).split()
        out = []
        i = 0
        while len(out) < keep and i < len(tokens):
            sym = tokens[i].split(":")[0]
            h = game.symbols[sym].height
            out.extend(tokens[i : i + h])
            i += h
        return f'{match.group(1)} = "{" ".join(out)}"'

    return re.sub(r'^(reel\d) = "(.*)"$', cut, text, flags=re.M)


def test_reduced_super_10_stars_full_cycle_equals_reference():
    text = (reelsets_dir() / "super_10_stars.toml").read_text()
    game = loads_game(_reduced(text, 6), "reduced")
    scale = pay_scale(game)
    for strip_set in game.strip_sets.values():
        ref = reference.enumerate_cycle(game, strip_set)
        analysis = analyse_strip_set(game, strip_set, line_automaton(game), scale, full_cycle=True)
        fast = Counter({Fraction(int(u), scale.denominator): int(h) for u, h in enumerate(analysis.histogram) if h})
        assert fast == +ref["wins"], strip_set.name
        for group, hist in ref["scatters"].items():
            exact = analysis.scatters[group].hits
            assert {c: h for c, h in enumerate(exact) if h} == dict(+hist), (strip_set.name, group)
