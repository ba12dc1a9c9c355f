"""A game built on mechanics the workbench already has adds no compile time (issue 33).

numba compiles a round template's chunk loop once per type of its arguments, and the type of a compiled game's
parameters (a namedtuple of arrays) holds every array's dtype, dimensions and memory layout.  So every shipped
and gallery game, in every bet mode, must hand its template's loop parameters of one type: a game whose tables
differ only in layout (both-ways lines kept their transposed tables Fortran-ordered) compiled its template's
whole round again, 12 s for the lines template alone (tests/compile_times.py reports such compilations).
"""

from __future__ import annotations

from collections import defaultdict, namedtuple

import numba
import numpy as np

from workbench.cli.commands import _games
from workbench.io import load_game
from workbench.simulate import round_model
from workbench.simulate.model import c_contiguous


class _All:
    all = True
    game = None


def _loop_name(model) -> str:
    function = model.run_chunk.py_func
    return f"{function.__module__}.{function.__qualname__}"


def test_every_game_of_a_round_template_hands_its_loop_parameters_of_one_type():
    types = defaultdict(lambda: defaultdict(list))
    for name in _games(_All()):
        game = load_game(name)
        for mode in game.all_bet_modes:
            model = round_model(game.in_bet_mode(mode))
            types[_loop_name(model)][str(numba.typeof(model.params))].append(f"{name} ({mode})")
    assert sum(len(games) for by_type in types.values() for games in by_type.values()) > 30
    several = {loop: [games for games in by_type.values()] for loop, by_type in types.items() if len(by_type) > 1}
    assert not several, f"games that compile their template's loop again (games grouped by parameter type): {several}"


def test_parameters_are_made_c_contiguous_and_kept_when_they_are():
    Inner = namedtuple("Inner", ["table", "flag"])
    Outer = namedtuple("Outer", ["inner", "plain", "count"])
    fortran = np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3))
    plain = np.arange(4, dtype=np.int32)
    params = Outer(Inner(fortran, True), plain, 3)
    made = c_contiguous(params)
    assert type(made) is Outer and type(made.inner) is Inner
    assert made.inner.table.flags.c_contiguous and np.array_equal(made.inner.table, fortran)
    assert made.plain is plain and made.count == 3 and made.inner.flag is True
    assert numba.typeof(made.inner.table).layout == "C"
    already = Outer(Inner(np.zeros((2, 3)), False), plain, 1)
    assert c_contiguous(already) is already  # nothing copied when nothing needs it


def test_a_both_ways_lines_game_plays_the_lines_template_with_c_ordered_tables():
    both_ways = round_model(load_game("examples/both_ways_10_lines"))
    left_to_right = round_model(load_game("classic_tens"))
    assert both_ways.run_chunk is left_to_right.run_chunk
    assert numba.typeof(both_ways.params) == numba.typeof(left_to_right.params)


def test_every_line_automaton_is_c_ordered_so_the_exact_engine_compiles_once():
    """The exact engine's loops take the automaton's tables too: both-ways lines gathered theirs by column and
    compiled ``exact.enumerate._search_all`` and ``exact.unpaid._unpaid_step`` a second time (33.8 and 15.2 s with
    the first, benchmarks/bench_compile.py)."""
    from workbench.pays.lines import line_automaton

    for name in ("classic_tens", "examples/both_ways_10_lines", "examples/multiplier_wild_lines"):
        automaton = line_automaton(load_game(name))
        assert automaton.trans.flags.c_contiguous and automaton.gain.flags.c_contiguous, name
