"""The prefix table of the lines simulator (:func:`workbench.simulate.kernel._build_prefix`) against a direct walk."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench import load_game
from workbench.pays.lines import line_arrays
from workbench.simulate import kernel


def reference_prefix(win_sym, n_windows, k, line_rows, trans, gain, live):
    """Every combination of the first ``k`` reels' windows walked on its own, every line from the start state."""
    size = int(np.prod(n_windows[:k], dtype=np.int64))
    paid, ptr, out_line, out_state = [], [0], [], []
    for p in range(size):
        wins, rest = [0] * k, p
        for i in range(k - 1, -1, -1):
            wins[i], rest = rest % n_windows[i], rest // n_windows[i]
        total = 0
        for line in range(line_rows.shape[0]):
            state = 0
            if not live[state]:
                continue
            for i in range(k):
                sym = win_sym[i, wins[i], line_rows[line, i]]
                total += int(gain[state, sym])
                state = int(trans[state, sym])
                if not live[state]:
                    break
            if live[state]:
                out_line.append(line)
                out_state.append(state)
        paid.append(total)
        ptr.append(len(out_line))
    return paid, ptr, out_line, out_state


@st.composite
def prefix_inputs(draw):
    reels = draw(st.integers(1, 4))
    k = draw(st.integers(0, reels))
    rows = draw(st.integers(1, 3))
    n_symbols = draw(st.integers(1, 4))
    n_states = draw(st.integers(1, 5))
    n_windows = np.array([draw(st.integers(1, 4)) for _ in range(reels)], dtype=np.int64)
    max_win = int(n_windows.max())
    win_sym = np.array(draw(st.lists(st.integers(0, n_symbols - 1), min_size=reels * max_win * rows,
                                     max_size=reels * max_win * rows)), dtype=np.int32).reshape(reels, max_win, rows)
    n_lines = draw(st.integers(1, 8))  # more than 4 undecided lines per combination outgrow the first buffer
    line_rows = np.array(draw(st.lists(st.integers(0, rows - 1), min_size=n_lines * reels, max_size=n_lines * reels)),
                         dtype=np.int64).reshape(n_lines, reels)
    cells = n_states * n_symbols
    trans = np.array(draw(st.lists(st.integers(0, n_states - 1), min_size=cells, max_size=cells)),
                     dtype=np.int32).reshape(n_states, n_symbols)
    gain = np.array(draw(st.lists(st.integers(0, 50), min_size=cells, max_size=cells)), dtype=np.int64).reshape(
        n_states, n_symbols)
    live = np.array(draw(st.lists(st.booleans(), min_size=n_states, max_size=n_states)), dtype=np.bool_)
    return win_sym, n_windows, k, line_rows, trans, gain, live


@settings(max_examples=examples(300), deadline=None)
@given(prefix_inputs())
def test_prefix_table_is_the_direct_walk(args) -> None:
    paid, ptr, line, state = kernel._build_prefix(*args)
    want = reference_prefix(*args)
    assert paid.tolist() == want[0] and ptr.tolist() == want[1]
    assert line.tolist() == want[2] and state.tolist() == want[3]
    assert line.dtype == np.int32 and state.dtype == np.int32 and paid.dtype == np.int64


def test_gallery_prefix_tables_are_the_direct_walk() -> None:
    """A gallery lines game's windows and automaton, first two reels (thousands of combinations; the direct walk is
    slow in Python), and the table the simulator keeps of all its prefix reels."""
    game = load_game("examples/sticky_wilds_ante")
    lines = line_arrays(game)
    ma = kernel.compile_mode(game, "base", lines)
    automaton = (lines.rows, lines.trans, lines.gain, lines.live)
    got = kernel._build_prefix(ma.win_sym[0], ma.n_windows[0], 2, *automaton)
    want = reference_prefix(ma.win_sym[0], ma.n_windows[0], 2, *automaton)
    assert [g.tolist() for g in got] == [list(w) for w in want]
    k = int(ma.prefix_reels[0])
    paid, ptr, line, _ = kernel._build_prefix(ma.win_sym[0], ma.n_windows[0], k, *automaton)
    assert k >= 3 and len(paid) == int(np.prod(ma.n_windows[0, :k]))
    assert ma.pre_info[0, : len(paid), 0].tolist() == paid.tolist()
    assert ma.pre_info[0, : len(ptr), 1].tolist() == ptr.tolist()
