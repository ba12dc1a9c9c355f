"""Exact whole-spin statistics without enumerating the cycle.

The lines of a spin are not independent (they share reels), so the spin's
variance and hit frequency need the joint behaviour of all lines and
scatters.  This module walks the reels left to right keeping, for every
distinct *state* reached so far, the probability of being there and the first
two moments and the maximum of the pay already decided.  A state is: the
automaton state of every line that can still change its pay, the running
count of every paying scatter group, and whether anything has paid yet.  Most
lines are decided after two or three reels, so the number of distinct states
stays small and merging them (a hash table) makes this much cheaper than the
full cycle while giving the same mean, variance, hit frequency and maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..model import Game, StripSet
from .lines import LineAutomaton
from .windows import PayScale, ReelWindows

ANYWHERE, ADJACENT = 0, 1
_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True)
class SpinMoments:
    """Probability-weighted moments of the whole-spin win, in pay units."""

    mean: float
    second: float
    hit: float
    max_units: int
    states: int  # largest number of distinct states held at once (diagnostic)


@njit(cache=True)
def _hash_pairs(lines, states, n, scat, paid):
    h = np.uint64(1469598103934665603)
    for j in range(n):
        v = np.uint64(lines[j]) * np.uint64(1 << 32) + np.uint64(states[j] + 1)
        h = (h ^ v) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    for g in range(scat.shape[0]):
        h = (h ^ np.uint64(scat[g] + 7919)) * np.uint64(1099511628211)
        h ^= h >> np.uint64(31)
    if paid:
        h = (h ^ np.uint64(0xABCDEF)) * np.uint64(1099511628211)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def _grow_int(a, size):
    out = np.empty(size, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow_2d(a, size):
    out = np.empty((size, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _advance(
    ptr, lline, lstate, scat, paid, m0, m1, m2, mx,
    win_sym, win_cnt, win_p, reel, line_rows, trans, gain, live,
    group_mode, group_cap,
):
    """One reel of the moment recursion: (current states) x (windows) -> merged states."""
    n_states = ptr.shape[0] - 1
    n_groups = scat.shape[1]
    n_lines = line_rows.shape[0]
    n_win = win_sym.shape[0]
    cap = 1024
    while cap < 2 * n_states:
        cap *= 2
    table = np.full(cap, -1, dtype=np.int64)
    keys = np.zeros(cap, dtype=np.uint64)
    # new layer storage (grown by doubling)
    size = 1024
    nptr = np.zeros(size + 1, dtype=np.int64)
    nline = np.empty(4096, dtype=np.int32)
    nstate = np.empty(4096, dtype=np.int32)
    nscat = np.empty((size, n_groups), dtype=np.int64)
    npaid = np.empty(size, dtype=np.bool_)
    nm0 = np.empty(size, dtype=np.float64)
    nm1 = np.empty(size, dtype=np.float64)
    nm2 = np.empty(size, dtype=np.float64)
    nmx = np.empty(size, dtype=np.int64)
    count = 0
    nnz = 0
    tmp_line = np.empty(n_lines, dtype=np.int32)
    tmp_state = np.empty(n_lines, dtype=np.int32)
    tmp_scat = np.empty(n_groups, dtype=np.int64)
    for a in range(n_states):
        if m0[a] == 0.0:
            continue
        for w in range(n_win):
            p = win_p[w]
            inc = 0
            k = 0
            for j in range(ptr[a], ptr[a + 1]):
                l = lline[j]
                st = lstate[j]
                sym = win_sym[w, line_rows[l, reel]]
                inc += gain[st, sym]
                s2 = trans[st, sym]
                if live[s2]:
                    tmp_line[k] = l
                    tmp_state[k] = s2
                    k += 1
            for g in range(n_groups):
                code = scat[a, g]
                c = win_cnt[w, g]
                if group_mode[g] == ANYWHERE:
                    code = min(code + c, group_cap[g])
                else:
                    # code = 2 * count + broken
                    if code % 2 == 0:
                        if c == 0:
                            code += 1
                        else:
                            code = 2 * min(code // 2 + c, group_cap[g])
                tmp_scat[g] = code
            pd = paid[a] or inc > 0
            h = _hash_pairs(tmp_line, tmp_state, k, tmp_scat, pd)
            slot = np.int64(h & np.uint64(cap - 1))
            idx = -1
            while table[slot] != -1:
                if keys[slot] == h:
                    cand = table[slot]
                    same = npaid[cand] == pd and nptr[cand + 1] - nptr[cand] == k
                    if same:
                        for g in range(n_groups):
                            if nscat[cand, g] != tmp_scat[g]:
                                same = False
                                break
                    if same:
                        base = nptr[cand]
                        for j in range(k):
                            if nline[base + j] != tmp_line[j] or nstate[base + j] != tmp_state[j]:
                                same = False
                                break
                    if same:
                        idx = cand
                        break
                slot = (slot + 1) & (cap - 1)
            if idx == -1:
                if count >= size:
                    size *= 2
                    nptr = _grow_int(nptr, size + 1)
                    nscat = _grow_2d(nscat, size)
                    npaid = _grow_int(npaid, size)
                    nm0 = _grow_int(nm0, size)
                    nm1 = _grow_int(nm1, size)
                    nm2 = _grow_int(nm2, size)
                    nmx = _grow_int(nmx, size)
                if nnz + k > nline.shape[0]:
                    grow = max(2 * nline.shape[0], nnz + k)
                    nline = _grow_int(nline, grow)
                    nstate = _grow_int(nstate, grow)
                idx = count
                count += 1
                for j in range(k):
                    nline[nnz + j] = tmp_line[j]
                    nstate[nnz + j] = tmp_state[j]
                nnz += k
                nptr[idx + 1] = nnz
                for g in range(n_groups):
                    nscat[idx, g] = tmp_scat[g]
                npaid[idx] = pd
                nm0[idx] = 0.0
                nm1[idx] = 0.0
                nm2[idx] = 0.0
                nmx[idx] = mx[a] + inc
                table[slot] = idx
                keys[slot] = h
                if 2 * count > cap:
                    # rehash into a table twice as large
                    cap *= 2
                    table = np.full(cap, -1, dtype=np.int64)
                    old_keys = keys
                    keys = np.zeros(cap, dtype=np.uint64)
                    for e in range(count):
                        b = nptr[e]
                        hh = _hash_pairs(nline[b:], nstate[b:], nptr[e + 1] - b, nscat[e], npaid[e])
                        s = np.int64(hh & np.uint64(cap - 1))
                        while table[s] != -1:
                            s = (s + 1) & (cap - 1)
                        table[s] = e
                        keys[s] = hh
            fi = float(inc)
            pm0 = m0[a] * p
            nm0[idx] += pm0
            nm1[idx] += (m1[a] + m0[a] * fi) * p
            nm2[idx] += (m2[a] + 2.0 * m1[a] * fi + m0[a] * fi * fi) * p
            if mx[a] + inc > nmx[idx]:
                nmx[idx] = mx[a] + inc
    return (nptr[: count + 1].copy(), nline[:nnz].copy(), nstate[:nnz].copy(), nscat[:count].copy(),
            npaid[:count].copy(), nm0[:count].copy(), nm1[:count].copy(), nm2[:count].copy(), nmx[:count].copy())


@dataclass(frozen=True)
class ScatterPayTables:
    """Paying scatter groups in the form the kernels use."""

    index: np.ndarray  # positions of paying groups among game.scatters
    mode: np.ndarray  # ANYWHERE / ADJACENT
    cap: np.ndarray  # counts above cap pay like cap
    pays: np.ndarray  # (groups, max cap + 1) pay units by count


def scatter_pay_tables(game: Game, scale: PayScale) -> ScatterPayTables:
    groups = [(i, g) for i, g in enumerate(game.scatters.values()) if any(p > 0 for p in g.pays.values())]
    caps = [max(k for k, p in g.pays.items()) for _, g in groups]
    width = max(caps, default=0) + 1
    pays = np.zeros((len(groups), width), dtype=np.int64)
    for row, (_, g) in enumerate(groups):
        for c in range(width):
            pays[row, c] = scale.units(game.bet.credits(g.pay(c), g.unit))
    return ScatterPayTables(
        index=np.array([i for i, _ in groups], dtype=np.int64),
        mode=np.array([ADJACENT if g.counting == "adjacent_from_first_reel" else ANYWHERE for _, g in groups], dtype=np.int64),
        cap=np.array(caps, dtype=np.int64),
        pays=pays,
    )


def spin_moments(game: Game, strip_set: StripSet, windows: list[ReelWindows], automaton: LineAutomaton, scale: PayScale) -> SpinMoments:
    """Exact mean, second moment, hit probability and maximum of the spin win (pay units)."""
    tables = scatter_pay_tables(game, scale)
    line_rows = np.asarray(game.paylines, dtype=np.int32).reshape(len(game.paylines), game.reels)
    n_lines = line_rows.shape[0]
    start_live = bool(automaton.live[0])
    ptr = np.array([0, n_lines if start_live else 0], dtype=np.int64)
    lline = np.arange(n_lines, dtype=np.int32) if start_live else np.zeros(0, np.int32)
    lstate = np.zeros(len(lline), dtype=np.int32)
    n_groups = len(tables.index)
    scat = np.zeros((1, n_groups), dtype=np.int64)
    paid = np.zeros(1, dtype=np.bool_)
    m0 = np.ones(1)
    m1 = np.zeros(1)
    m2 = np.zeros(1)
    mx = np.zeros(1, dtype=np.int64)
    biggest = 1
    for reel, win in enumerate(windows):
        keep = win.weights > 0
        p = win.weights[keep] / float(win.total_weight)
        cnt = np.ascontiguousarray(win.counts[keep][:, tables.index]) if n_groups else np.zeros((int(keep.sum()), 0), np.int64)
        ptr, lline, lstate, scat, paid, m0, m1, m2, mx = _advance(
            ptr, lline, lstate, scat, paid, m0, m1, m2, mx,
            np.ascontiguousarray(win.symbols[keep]), cnt, p, reel, line_rows,
            automaton.trans, automaton.gain, automaton.live, tables.mode, tables.cap,
        )
        biggest = max(biggest, len(m0))
    # final scatter pays
    y = np.zeros(len(m0), dtype=np.int64)
    for g in range(n_groups):
        codes = scat[:, g]
        counts = codes // 2 if tables.mode[g] == ADJACENT else codes
        y += tables.pays[g, counts]
    yf = y.astype(float)
    mean = float(np.sum(m1 + m0 * yf))
    second = float(np.sum(m2 + 2 * m1 * yf + m0 * yf * yf))
    hit = float(np.sum(m0[paid | (y > 0)]))
    reachable = m0 > 0
    max_units = int(np.max((mx + y)[reachable])) if reachable.any() else 0
    return SpinMoments(mean=mean, second=second, hit=hit, max_units=max_units, states=biggest)
