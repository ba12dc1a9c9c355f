"""Sampling base spins *conditioned* on a trigger state, with exact state probabilities.

The exact + conditional method writes the RTP as the exact base game plus,
for every trigger state ``s``, ``P(s) x E[extra win | s]``.  ``P(s)`` comes
from exact counting over the strips; ``E[extra | s]`` is simulated by
starting rounds directly in state ``s``.  This module builds, for a strip set
and a classification of spins by scatter-group counts, the exact probability
of every state and a sampler that draws reel windows from their exact
conditional distribution given the state (a backward recursion over reels
followed by forward sampling, so no spin is wasted on rejection).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
from numba import njit

from ..exact import strip_set_windows
from ..exact.spin import ADJACENT, ANYWHERE, update_code
from ..model import Game, StripSet
from .rng import uniform


@dataclass(frozen=True)
class StateSampler:
    """Exact trigger-state probabilities and a conditional window sampler.

    ``probabilities[s]`` is the exact probability (Fraction) of state ``s``;
    ``arrays`` feeds :func:`sample_windows`.
    """

    names: tuple
    probabilities: tuple
    arrays: tuple  # (cum[s, reel, code, window], win_code_next[reel, code, window], n_windows[reel])

    def probability(self, name: str) -> Fraction:
        return self.probabilities[self.names.index(name)]


def build_state_sampler(
    game: Game,
    strip_set: StripSet,
    groups: list[tuple[str, int]],
    classify: Callable[[dict], str | None],
    state_names: list[str],
) -> StateSampler:
    """Exact probabilities of trigger states and a sampler of windows given a state.

    ``groups``: (scatter group name, cap) pairs; counts are tracked up to the
    cap.  ``classify(counts)`` maps the final capped counts ({group: count})
    to a state name (or None for spins that need no simulation).
    """
    windows = strip_set_windows(game, strip_set)
    order = list(game.scatters)
    gidx = [order.index(name) for name, _ in groups]
    modes = [ADJACENT if game.scatters[name].counting == "adjacent_from_first_reel" else ANYWHERE for name, _ in groups]
    caps = [cap for _, cap in groups]
    sizes = [2 * (cap + 1) if mode == ADJACENT else cap + 1 for cap, mode in zip(caps, modes)]
    codes = list(itertools.product(*[range(s) for s in sizes]))
    index = {c: i for i, c in enumerate(codes)}
    n_codes = len(codes)

    def final_state(code: tuple) -> int:
        counts = {name: (c // 2 if m == ADJACENT else c) for (name, _), c, m in zip(groups, code, modes)}
        name = classify(counts)
        return -1 if name is None else state_names.index(name)

    state_of = np.array([final_state(c) for c in codes], dtype=np.int64)
    n_reels = game.reels
    max_win = max(len(w.weights) for w in windows)
    # next code after each window, per reel and code
    nxt = np.zeros((n_reels, n_codes, max_win), dtype=np.int64)
    for r, win in enumerate(windows):
        for ci, code in enumerate(codes):
            for w in range(len(win.weights)):
                new = tuple(
                    int(update_code(m, cap, c, int(win.counts[w, g])))
                    for m, cap, c, g in zip(modes, caps, code, gidx)
                )
                nxt[r, ci, w] = index[new]
    # exact backward recursion in integers: ways[r][code] = weighted stop combinations of reels r.. ending in state s
    n_states = len(state_names)
    ways = [[0] * n_codes for _ in range(n_states)]
    for ci in range(n_codes):
        if state_of[ci] >= 0:
            ways[state_of[ci]][ci] = 1
    back = [ways]  # back[r][s][code]: ways to finish in state s from reel r on
    for r in range(n_reels - 1, -1, -1):
        win = windows[r]
        weights = win.weights.tolist()
        prev = back[0]
        cur = [[0] * n_codes for _ in range(n_states)]
        for s in range(n_states):
            row = prev[s]
            for ci in range(n_codes):
                total = 0
                for w, wt in enumerate(weights):
                    if wt:
                        total += wt * row[nxt[r, ci, w]]
                cur[s][ci] = total
        back.insert(0, cur)
    cycle = strip_set.cycle
    probabilities = tuple(Fraction(back[0][s][0], cycle) for s in range(n_states))
    # cumulative sampling weights: choose window w at reel r from code c for state s
    cum = np.zeros((n_states, n_reels, n_codes, max_win))
    for r, win in enumerate(windows):
        for s in range(n_states):
            after = back[r + 1][s]
            for ci in range(n_codes):
                acc = 0.0
                for w in range(len(win.weights)):
                    acc += float(win.weights[w]) * float(after[nxt[r, ci, w]])
                    cum[s, r, ci, w] = acc
    n_windows = np.array([len(w.weights) for w in windows], dtype=np.int64)
    return StateSampler(tuple(state_names), probabilities, (cum, nxt, n_windows))


@njit(cache=True)
def sample_windows(cum, nxt, n_windows, state, rng, wins):
    """Fill ``wins`` with windows drawn from their exact distribution given ``state``."""
    code = 0
    for r in range(n_windows.shape[0]):
        row = cum[state, r, code]
        total = row[n_windows[r] - 1]
        u = uniform(rng) * total
        lo = 0
        hi = n_windows[r] - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if row[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        wins[r] = lo
        code = nxt[r, code, lo]
