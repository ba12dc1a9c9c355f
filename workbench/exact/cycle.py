"""Full-cycle enumeration: the exact distribution of the whole-spin win.

Every combination of (distinct) reel windows is visited once; line automaton
states are carried down the reels so each window only advances the lines
still undecided, and the innermost reel is a tight loop.  The result is an
integer histogram of the spin win in pay units over the full cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import ExactBudgetError
from ..model import Game, StripSet
from .lines import LineAutomaton
from .spin import ADJACENT, scatter_pay_tables
from .windows import PayScale, ReelWindows

DEFAULT_BUDGET = 2_000_000_000  # window combinations


@njit(cache=True)
def _cycle_histogram(win_sym, win_cnt, win_w, offsets, line_rows, trans, gain, live,
                     group_mode, group_cap, group_pays, hist_size):
    n_reels = offsets.shape[0] - 1
    n_lines = line_rows.shape[0]
    n_groups = group_mode.shape[0]
    live_line = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    live_state = np.zeros((n_reels + 1, n_lines), dtype=np.int32)
    nlive = np.zeros(n_reels + 1, dtype=np.int64)
    paid = np.zeros(n_reels + 1, dtype=np.int64)
    weight = np.ones(n_reels + 1, dtype=np.int64)
    scat = np.zeros((n_reels + 1, n_groups), dtype=np.int64)
    if live[0]:
        for l in range(n_lines):
            live_line[0, l] = l
        nlive[0] = n_lines
    hist = np.zeros(hist_size, dtype=np.int64)
    pos = np.zeros(n_reels, dtype=np.int64)
    pos[0] = offsets[0]
    d = 0
    last = n_reels - 1
    while True:
        if pos[d] >= offsets[d + 1]:
            if d == 0:
                break
            d -= 1
            pos[d] += 1
            continue
        if d < last:
            w = pos[d]
            inc = 0
            k = 0
            for j in range(nlive[d]):
                l = live_line[d, j]
                st = live_state[d, j]
                sym = win_sym[w, line_rows[l, d]]
                inc += gain[st, sym]
                s2 = trans[st, sym]
                if live[s2]:
                    live_line[d + 1, k] = l
                    live_state[d + 1, k] = s2
                    k += 1
            nlive[d + 1] = k
            paid[d + 1] = paid[d] + inc
            weight[d + 1] = weight[d] * win_w[w]
            for g in range(n_groups):
                code = scat[d, g]
                c = win_cnt[w, g]
                if group_mode[g] == ADJACENT:
                    if code % 2 == 0:
                        if c == 0:
                            code += 1
                        else:
                            code = 2 * min(code // 2 + c, group_cap[g])
                else:
                    code = min(code + c, group_cap[g])
                scat[d + 1, g] = code
            d += 1
            pos[d] = offsets[d]
        else:
            for w in range(offsets[d], offsets[d + 1]):
                total = paid[d]
                for j in range(nlive[d]):
                    l = live_line[d, j]
                    st = live_state[d, j]
                    total += gain[st, win_sym[w, line_rows[l, d]]]
                for g in range(n_groups):
                    code = scat[d, g]
                    c = win_cnt[w, g]
                    if group_mode[g] == ADJACENT:
                        count = code // 2
                        if code % 2 == 0 and c > 0:
                            count = min(count + c, group_cap[g])
                    else:
                        count = min(code + c, group_cap[g])
                    total += group_pays[g, count]
                hist[total] += weight[d] * win_w[w]
            pos[d] = offsets[d + 1]
    return hist


def max_spin_units(game: Game, automaton: LineAutomaton, scale: PayScale) -> int:
    """An upper bound of the spin win in pay units (histogram size)."""
    tables = scatter_pay_tables(game, scale)
    line_max = int(automaton.pay_units.max()) if automaton.n_states else 0
    return line_max * len(game.paylines) + int(tables.pays.max(axis=1).sum() if tables.pays.size else 0)


def window_combinations(windows: list[ReelWindows]) -> int:
    out = 1
    for w in windows:
        out *= int((w.weights > 0).sum())
    return out


def cycle_histogram(
    game: Game,
    strip_set: StripSet,
    windows: list[ReelWindows],
    automaton: LineAutomaton,
    scale: PayScale,
    budget: int = DEFAULT_BUDGET,
) -> np.ndarray:
    """Integer hits of each spin win (index = pay units) over the full cycle of ``strip_set``."""
    combos = window_combinations(windows)
    if combos > budget:
        raise ExactBudgetError(
            f"full cycle of strip set {strip_set.name!r} has {combos:,} distinct window combinations, "
            f"over the budget of {budget:,}"
        )
    if strip_set.cycle >= 2**63:
        raise ExactBudgetError(f"cycle of strip set {strip_set.name!r} ({strip_set.cycle:.3e}) does not fit 64-bit counts")
    tables = scatter_pay_tables(game, scale)
    keep = [w.weights > 0 for w in windows]
    win_sym = np.zeros((sum(int(k.sum()) for k in keep), max(game.rows)), dtype=np.int32)
    offsets = np.zeros(len(windows) + 1, dtype=np.int64)
    pos = 0
    for i, (w, k) in enumerate(zip(windows, keep)):
        n = int(k.sum())
        win_sym[pos : pos + n, : w.symbols.shape[1]] = w.symbols[k]
        pos += n
        offsets[i + 1] = pos
    win_w = np.concatenate([w.weights[k] for w, k in zip(windows, keep)]).astype(np.int64)
    if len(tables.index):
        win_cnt = np.ascontiguousarray(np.concatenate([w.counts[k][:, tables.index] for w, k in zip(windows, keep)]))
    else:
        win_cnt = np.zeros((len(win_w), 0), dtype=np.int64)
    line_rows = np.asarray(game.paylines, dtype=np.int32).reshape(len(game.paylines), game.reels)
    size = max_spin_units(game, automaton, scale) + 1
    hist = _cycle_histogram(
        win_sym, win_cnt, win_w, offsets, line_rows, automaton.trans, automaton.gain, automaton.live,
        tables.mode, tables.cap, tables.pays, size,
    )
    assert int(hist.sum()) == strip_set.cycle
    return hist

