"""A bought feature's forced trigger screen: a base screen drawn on condition that it shows the bought scatter count.

``[bet_modes.NAME] forced_screen = "paid"``: a bought round first shows a base-game screen with exactly the bought
number of trigger scatters, pays it as a base spin (pay rule and scatter pays, table wilds drawn), then plays the
feature.  The screen is drawn exactly from the base game's distribution *given* the count, without rejection: the
strip set with probability proportional to its weight x P(count | set), then reel by reel the reel's scatter count
with probability proportional to its weight x P(the reels after it bring the rest), then a virtual stop uniformly
among the reel's stops showing that count.  ``P(the reels after reel r bring j more)`` is a backward product over
the reels (``tail``), one table per bought count; counts are held exactly up to the largest bought count (and one
"more than that" state), so every bought count is exact, none an "or more".  Probabilities are floats (they are
products of up to thousands of stops per reel), each draw one uniform.

The running count is a small state machine (``next_state[state, c]``: the state after a reel showing c), so the
same tables serve scatters counted ``anywhere`` (the state is the count so far) and ``adjacent_from_first_reel``
(the count so far and whether a reel without one has ended the chain, encoded as the simulator's count code:
2 x count + ended).  A target may be "or more" (a stratum's last count, ``free_spins:5+``).  Fixed reel heights
only: validation refuses the rest (:func:`workbench.rounds.check_forced_screens`).  The slow reference draws the
same screen by rejection (:func:`workbench.reference.forced_screen`, :func:`workbench.reference.trigger_screen`).

Besides a buy's paid screen, the free-spins round draws one for each trigger-count stratum when the trigger
screen shapes the feature (persisting wilds, :mod:`.persisting_wilds`): there it is not paid (the base game's
exact part pays it), only read.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..simulate.rng import bounded, uniform

# ``set_cum[t, s]``: cumulative P(set s and bought count t) (unnormalised); ``reel_cum[t, s, r, j, c]``: cumulative
# weight of reel r of set s showing c scatters when the reels before it showed j, for bought count t;
# ``stops[s, r, c, k]``: the k-th virtual stop of reel r showing c scatters, ``n_stops[s, r, c]`` how many;
# ``out[r]``: scratch, the drawn virtual stop of each reel; ``next_state[j, c]``: the running count's state after a
# reel showing c when it was j (state 0: no reel yet).
ForcedScreen = namedtuple("ForcedScreen", ["set_cum", "reel_cum", "stops", "n_stops", "out", "next_state"])


def no_forced_screen(n_reels: int) -> ForcedScreen:
    """The tables of a mode that pays no forced screen (never read)."""
    return ForcedScreen(np.ones((1, 1)), np.ones((1, 1, 1, 1, 1)), np.zeros((1, 1, 1, 1), dtype=np.int64),
                        np.ones((1, 1, 1), dtype=np.int64), np.zeros(max(n_reels, 1), dtype=np.int64),
                        np.zeros((1, 1), dtype=np.int64))


def count_states(top: int, adjacent: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(next_state, count)`` of the running trigger count held up to ``top`` (``top`` = "more than that"):
    ``next_state[j, c]`` the state after a reel showing c (capped at ``top``) in state j, ``count[j]`` the count
    state j stands for.  Anywhere: the state is the count.  Adjacent from the first reel: 2 x count + 1 once a
    reel showed none (the chain has ended; later reels change nothing), as :func:`workbench.pays.scatter.update_code`."""
    if not adjacent:
        nxt = np.array([[min(j + c, top) for c in range(top + 1)] for j in range(top + 1)], dtype=np.int64)
        return nxt, np.arange(top + 1, dtype=np.int64)
    nxt = np.zeros((2 * (top + 1), top + 1), dtype=np.int64)
    for j in range(top + 1):
        for c in range(top + 1):
            nxt[2 * j, c] = 2 * j + 1 if c == 0 else 2 * min(j + c, top)
            nxt[2 * j + 1, c] = 2 * j + 1
    return nxt, np.arange(2 * (top + 1), dtype=np.int64) // 2


def forced_screen_tables(name: str, counts: list, stop_counts: list, set_weights: list,
                         key: tuple | None = None, *, adjacent: bool = False, last_or_more: bool = False,
                         required: bool = True) -> ForcedScreen:
    """The sampler of the forced screens showing each of ``counts`` trigger scatters (in the order of the states
    drawn; with ``last_or_more``, the last count or more).  ``stop_counts[s][r]``: int array, the scatters each
    virtual stop of reel r of strip set s shows; ``set_weights``: the sets' choice weights; ``adjacent``: scatters
    counted on adjacent reels from the first.  Raises :class:`SimulationError` (at ``key``) when the base strips
    cannot show a count (without ``required``, such a count's row stays empty: a stratum of probability 0, never
    played)."""
    top = max(counts) + 1  # counts 0..max held exactly, top = "more than the largest count"
    next_state, state_count = count_states(top, adjacent)
    n_states = next_state.shape[0]
    n_sets, n_reels = len(stop_counts), len(stop_counts[0])
    longest = max(len(v) for reels in stop_counts for v in reels)
    stops = np.zeros((n_sets, n_reels, top + 1, longest), dtype=np.int64)
    n_stops = np.zeros((n_sets, n_reels, top + 1), dtype=np.int64)
    for s, reels in enumerate(stop_counts):
        for r, values in enumerate(reels):
            held = np.minimum(np.asarray(values, dtype=np.int64), top)
            for c in range(top + 1):
                found = np.flatnonzero(held == c)
                stops[s, r, c, : len(found)] = found
                n_stops[s, r, c] = len(found)
    prob = n_stops / np.maximum(n_stops.sum(axis=2, keepdims=True), 1)  # P(reel r of set s shows c)
    set_cum = np.zeros((len(counts), n_sets))
    reel_cum = np.zeros((len(counts), n_sets, n_reels, n_states, top + 1))
    for t, target in enumerate(counts):
        accept = state_count >= target if last_or_more and t == len(counts) - 1 else state_count == target
        for s in range(n_sets):
            # tail[r, j]: P(reels r.. take the running count from state j to the target)
            tail = np.zeros((n_reels + 1, n_states))
            tail[n_reels] = accept
            for r in range(n_reels - 1, -1, -1):
                ahead = prob[s, r][None, :] * tail[r + 1][next_state]  # [j, c]
                tail[r] = ahead.sum(axis=1)
                reel_cum[t, s, r] = np.cumsum(ahead, axis=1)
            set_cum[t, s] = set_weights[s] * tail[0, 0]
        if set_cum[t].sum() <= 0 and not required:
            continue
        if set_cum[t].sum() <= 0:
            raise SimulationError(f"{name}: the base strips cannot show {target} trigger scatters, the count a "
                                  "feature starts with: its trigger screen cannot be drawn", key=key)
        set_cum[t] = np.cumsum(set_cum[t])
    return ForcedScreen(set_cum, reel_cum, stops, n_stops, np.zeros(n_reels, dtype=np.int64), next_state)


@njit(cache=True, inline="always")
def _pick(cum, rng):
    """Index drawn with probability proportional to the steps of the float cumulative ``cum``."""
    u = uniform(rng) * cum[cum.shape[0] - 1]
    for i in range(cum.shape[0]):
        if cum[i] > u:
            return i
    return cum.shape[0] - 1


@njit(cache=True, inline="always")
def draw_forced_stops(f, t, rng):
    """Draw the forced screen of bought state ``t``: fills ``f.out`` with each reel's virtual stop; returns the strip
    set's index."""
    s = _pick(f.set_cum[t], rng) if f.set_cum.shape[1] > 1 else 0
    j = 0
    for r in range(f.out.shape[0]):
        c = _pick(f.reel_cum[t, s, r, j], rng)
        f.out[r] = f.stops[s, r, c, bounded(rng, f.n_stops[s, r, c])]
        j = f.next_state[j, c]
    return s
