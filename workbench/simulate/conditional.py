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
from .._jit import njit

from ..exact.windows import strip_set_windows
from ..pays.scatter import ADJACENT, ANYWHERE, update_code
from ..model import Game
from .rng import uniform


@dataclass(frozen=True)
class StateSampler:
    """Exact trigger-state probabilities and a conditional window sampler.

    ``probabilities[s]`` is the exact probability (Fraction) of state ``s`` per
    spin (strip sets of the mode mixed by weight); ``arrays`` feeds
    :func:`sample_state`.
    """

    names: tuple
    probabilities: tuple
    arrays: tuple  # (set_cum[state, set], cum[set, state, reel, code, window], nxt[set, reel, code, window], n_windows[set, reel])

    def probability(self, name: str) -> Fraction:
        return self.probabilities[self.names.index(name)]


def build_state_sampler(
    game: Game,
    strip_sets: list,
    groups: list[tuple[str, int]],
    classify: Callable[[dict], str | None],
    state_names: list[str],
) -> StateSampler:
    """Exact probabilities of trigger states and a sampler of windows given a state.

    ``strip_sets``: the strip sets of the mode (chosen by weight).  ``groups``:
    (scatter group name, cap) pairs; counts are tracked up to the cap.
    ``classify(counts)`` maps the final capped counts ({group: count}) to a
    state name (or None for spins that need no simulation).
    """
    order = list(game.scatters)
    gidx = [order.index(name) for name, _ in groups]
    modes = [ADJACENT if game.scatters[name].counting == "adjacent_from_first_reel" else ANYWHERE for name, _ in groups]
    caps = [cap for _, cap in groups]
    sizes = [2 * (cap + 1) if mode == ADJACENT else cap + 1 for cap, mode in zip(caps, modes)]
    codes = list(itertools.product(*[range(size) for size in sizes]))
    index = {c: i for i, c in enumerate(codes)}
    n_codes = len(codes)
    n_states = len(state_names)

    def final_state(code: tuple) -> int:
        counts = {name: (c // 2 if m == ADJACENT else c) for (name, _), c, m in zip(groups, code, modes)}
        name = classify(counts)
        return -1 if name is None else state_names.index(name)

    state_of = [final_state(c) for c in codes]
    all_windows = [strip_set_windows(game, s) for s in strip_sets]
    n_sets = len(strip_sets)
    n_reels = game.reels
    max_win = max(len(w.weights) for ws in all_windows for w in ws)
    nxt = np.zeros((n_sets, n_reels, n_codes, max_win), dtype=np.int64)
    cum = np.zeros((n_sets, n_states, n_reels, n_codes, max_win))
    n_windows = np.zeros((n_sets, n_reels), dtype=np.int64)
    ways0 = np.zeros((n_states, n_sets), dtype=object)  # exact weighted combinations per state and set
    for k, windows in enumerate(all_windows):
        for r, win in enumerate(windows):
            n_windows[k, r] = len(win.weights)
            for ci, code in enumerate(codes):
                for w in range(len(win.weights)):
                    new = tuple(int(update_code(m, cap, c, int(win.counts[w, g]))) for m, cap, c, g in zip(modes, caps, code, gidx))
                    nxt[k, r, ci, w] = index[new]
        # exact backward recursion in integers (Python ints in object arrays):
        # back[r][s, code] = weighted ways to end in state s from reel r on
        last = np.zeros((n_states, n_codes), dtype=object)
        for ci in range(n_codes):
            if state_of[ci] >= 0:
                last[state_of[ci], ci] = 1
        back = [last]
        for r in range(n_reels - 1, -1, -1):
            nw = len(windows[r].weights)
            weights = np.array([int(w) for w in windows[r].weights], dtype=object)
            gathered = back[0][:, nxt[k, r, :, :nw]]  # (states, codes, windows)
            back.insert(0, (gathered * weights).sum(axis=2))
        for st in range(n_states):
            ways0[st, k] = int(back[0][st, 0])
        for r, win in enumerate(windows):
            nw = len(win.weights)
            after = back[r + 1].astype(float)[:, nxt[k, r, :, :nw]]  # (states, codes, windows)
            cum[k, :, r, :, :nw] = np.cumsum(after * win.weights.astype(float), axis=2)
    total_weight = sum(s.weight for s in strip_sets)
    probabilities = []
    set_cum = np.zeros((n_states, n_sets))
    for st in range(n_states):
        p = Fraction(0)
        acc = 0.0
        for k, strip_set in enumerate(strip_sets):
            share = Fraction(strip_set.weight, total_weight) * Fraction(int(ways0[st, k]), strip_set.cycle)
            p += share
            acc += float(share)
            set_cum[st, k] = acc
        probabilities.append(p)
    return StateSampler(tuple(state_names), tuple(probabilities), (set_cum, cum, nxt, n_windows))


@njit(cache=True, inline="always")
def sample_state(set_cum, cum, nxt, n_windows, state, rng, wins):
    """Fill ``wins`` with windows drawn from their exact distribution given ``state``.

    Returns the strip set index used.
    """
    row = set_cum[state]
    u = uniform(rng) * row[row.shape[0] - 1]
    k = 0
    while k < row.shape[0] - 1 and row[k] <= u:
        k += 1
    code = 0
    for r in range(n_windows.shape[1]):
        c = cum[k, state, r, code]
        total = c[n_windows[k, r] - 1]
        u = uniform(rng) * total
        lo = 0
        hi = n_windows[k, r] - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if c[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        wins[r] = lo
        code = nxt[k, r, code, lo]
    return k
