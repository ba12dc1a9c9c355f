"""Exact first-screen math of cluster pays for strips too long to enumerate: a column transfer over the reels.

:func:`transfer_analysis` first hands the game to the sweeps over runs (:mod:`.cluster_routes`: far fewer states on
production-size strips, the hit frequency and std exact there too) whenever the runs can hold it; what follows is
the route by each symbol's layered automaton, kept for the games they cannot (a size band past 31, more than 62
runs in a window).

The full enumeration of :mod:`workbench.exact.cluster` evaluates every screen, so a 7x7 game with 40-stop strips
(40^7 screens) is out of its reach.  The reels are independent, so the screens can instead be swept reel by reel,
keeping only what the reels still to come need to know about the reels already seen (a *transfer* or frontier
method):

- **One symbol's state.**  For a paying symbol ``s`` the cells showing ``s`` or a wild form a graph; after reels
  0..r, a state holds, for each cell of reel r, the open component it belongs to (labels numbered by first
  appearance, top row first), each open component's size (capped at the largest listed size, which pays like any
  larger one) and whether it holds a real ``s`` (a group of wilds only pays nothing).  A component that no cell of
  the next reel continues is *closed*: it pays its size band then.  The states of one symbol form a layered
  automaton (:func:`_symbol_layers`, one layer per reel); a step reads the next reel's window as two row masks
  (the cells in the graph, the cells showing ``s`` itself) and joins the components with a union-find.
- **Per symbol: the combinations.**  The same sweep carries, per state, the weight of the screens reaching it, the
  weight x clusters closed so far in each size band (``combo_units``) and the weight of screens with no cluster of
  that band yet (``combo_hits`` = cycle - it): exact integers.
- **All symbols together: the whole spin.**  A joint state is one node per symbol's automaton plus the counts of
  the paying scatter groups so far (:func:`_joint_sweep`); it carries the weight, the weight x pay so far (pay
  units, exact integers), the weight x pay^2 (float), the weight of screens that paid nothing so far and the
  largest pay of any screen reaching it.  After the last reel every open component closes and the scatter groups
  pay: the mean, second moment, hit frequency and max win of the spin are exact (the second moment to float
  precision).  The full-cycle distribution is not built (the pays are not carried per state): the report takes
  the win distribution from its simulation.

Weights are 64-bit integers: the cycle x the largest number of clusters on a screen must fit 63 bits.  The
weight x pay sum can pass 64 bits (250-stop 7x7 strips: a cycle of 6.1e16 x pays up to 6e4 units): it is kept
modulo 2^64 (int64 arithmetic wraps) beside the same sum in floats, whose rounding error is bounded (additions
along one sum x 2^-52 x the largest possible total); the exact integer is the one of its residue class within
that bound (:func:`exact_from_residue`), so the mean stays an exact integer sum, never a silent float.  A
symbol's automaton at most :data:`LAYER_NODES_MAX` states per reel, the joint sweep at most :data:`TRANSFER_STATES_MAX`
states per reel (else :class:`~workbench.errors.ExactBudgetError`, before or during the sweep).  Reels of at most
:data:`MAX_TRANSFER_ROWS` rows.  Tested against the full enumeration and the reference evaluator on small games
(tests/test_cluster_transfer.py).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.typed import Dict

from .._jit import njit
from ..errors import ExactBudgetError
from ..pays.scatter import code_count, update_code
from .cluster_routes import moment_route_applies, transfer_by_runs
from .cluster_runs import symbol_runs
from .transfer_tables import (INT_SUM_MAX, TRANSFER_STATES_MAX, exact_from_residue, grow1 as _grow1,  # noqa: F401
                              grow2 as _grow2, key_hash as _hash, rehash as _rehash)

MAX_TRANSFER_ROWS = 8
MAX_COMPONENTS = 4  # components of one symbol's graph in a reel of at most 8 rows
LAYER_NODES_MAX = 65_535  # one symbol's automaton states per reel (16-bit fields of the joint keys)
JOINT_WORK_MAX = 10_000_000  # states x patterns of the joint sweep over every symbol (1-2 s at 7 symbols)
SYMBOL_WORK_MAX = 200_000_000  # the same, of the scatter groups' sweep alone


# ---------------------------------------------------------------------------
# one symbol's automaton
# ---------------------------------------------------------------------------
@njit
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit
def _step(labels, sizes, flags, ncomp, g, m, rows, cap, new_labels, new_sizes, new_flags, closed, parent, agg_size,
          agg_flag, root_new):
    """The state after a reel whose graph cells are ``g`` (row bit masks) and real-symbol cells ``m``, from the state
    (``labels[rows]``, ``sizes``/``flags`` of its ``ncomp`` components).  Writes the new state (returns its number of
    components) and the sizes of the closed components that hold a real symbol into ``closed`` (0 ends the list)."""
    n = ncomp + rows
    for x in range(n):
        parent[x] = x
        agg_size[x] = 0
        agg_flag[x] = 0
    for k in range(rows):
        if (g >> k) & 1:
            if k > 0 and (g >> (k - 1)) & 1:
                a = _find(parent, ncomp + k - 1)
                b = _find(parent, ncomp + k)
                if a != b:
                    parent[b] = a
            if labels[k] >= 0:
                a = _find(parent, labels[k])
                b = _find(parent, ncomp + k)
                if a != b:
                    parent[b] = a
    for c in range(ncomp):
        rt = _find(parent, c)
        agg_size[rt] += sizes[c]
        agg_flag[rt] |= flags[c]
    for k in range(rows):
        if (g >> k) & 1:
            rt = _find(parent, ncomp + k)
            agg_size[rt] += 1
            agg_flag[rt] |= (m >> k) & 1
    for x in range(n):
        root_new[x] = -1
    # components of the new reel, numbered by first appearance from the top row
    out = 0
    for k in range(rows):
        if (g >> k) & 1:
            rt = _find(parent, ncomp + k)
            if root_new[rt] < 0:
                root_new[rt] = out
                s = agg_size[rt]
                new_sizes[out] = s if s < cap else cap
                new_flags[out] = agg_flag[rt]
                out += 1
            new_labels[k] = root_new[rt]
        else:
            new_labels[k] = -1
    # components of the old reel that no new cell continues: closed (each root once)
    nc = 0
    for c in range(ncomp):
        rt = _find(parent, c)
        if root_new[rt] == -1:
            root_new[rt] = -2
            if agg_flag[rt]:
                s = agg_size[rt]
                closed[nc] = s if s < cap else cap
                nc += 1
    closed[nc] = 0
    return out


@njit
def _key(labels, sizes, flags, ncomp, rows):
    """One int64 per state: labels + 1 in 3 bits per row, sizes in 7 bits and flags in 1 bit per component."""
    key = np.int64(0)
    for k in range(rows):
        key |= np.int64(labels[k] + 1) << np.int64(3 * k)
    for c in range(ncomp):
        key |= np.int64(sizes[c]) << np.int64(24 + 7 * c)
        key |= np.int64(flags[c]) << np.int64(52 + c)
    return key


@njit(cache=True)
def _symbol_layers(pg, pm, pw, npat, rows, cap, pays, combo_of, n_combos, nodes_max):
    """One paying symbol's layered automaton over the reels and its per-symbol sums.

    ``pg[r, p]``/``pm[r, p]``: graph and real-symbol row masks of pattern ``p`` of reel ``r`` (``npat[r]`` patterns,
    weights ``pw[r, p]``); ``pays[size]`` pay units of a cluster (size capped at ``cap``); ``combo_of[size]`` its
    combination (-1: none).  Returns (nodes per layer, transition table and closing pay units flattened per layer
    with its offsets (entry ``off[r] + i * npat[r] + p``), the final closing pay units of the last layer's states,
    weight x clusters per combination, weight of screens without a cluster of each combination); nodes per layer
    0 when a layer passed ``nodes_max``."""
    n_reels = pg.shape[0]
    nodes = np.zeros(n_reels + 1, dtype=np.int64)
    off = np.zeros(n_reels + 1, dtype=np.int64)
    # the current layer's states
    labels = np.full((1, rows), -1, dtype=np.int64)
    sizes = np.zeros((1, MAX_COMPONENTS), dtype=np.int64)
    flags = np.zeros((1, MAX_COMPONENTS), dtype=np.int64)
    ncomp = np.zeros(1, dtype=np.int64)
    w = np.ones(1, dtype=np.int64)
    cu = np.zeros((1, max(n_combos, 1)), dtype=np.int64)  # weight x clusters of each combination
    nh = np.ones((1, max(n_combos, 1)), dtype=np.int64)  # weight of paths without such a cluster
    nodes[0] = 1
    trans = np.zeros(1024, dtype=np.int32)
    units = np.zeros(1024, dtype=np.int64)
    new_labels = np.zeros(rows, dtype=np.int64)
    new_sizes = np.zeros(MAX_COMPONENTS, dtype=np.int64)
    new_flags = np.zeros(MAX_COMPONENTS, dtype=np.int64)
    closed = np.zeros(MAX_COMPONENTS + 1, dtype=np.int64)
    scratch = rows + MAX_COMPONENTS
    parent = np.zeros(scratch, dtype=np.int64)
    agg_size = np.zeros(scratch, dtype=np.int64)
    agg_flag = np.zeros(scratch, dtype=np.int64)
    root_new = np.zeros(scratch, dtype=np.int64)
    hit = np.zeros(max(n_combos, 1), dtype=np.int64)
    for r in range(n_reels):
        n = nodes[r]
        np_r = npat[r]
        need = off[r] + n * np_r
        off[r + 1] = need
        if need > trans.shape[0]:
            trans = _grow1(trans, need)
            units = _grow1(units, need)
        index = Dict.empty(key_type=types.int64, value_type=types.int64)
        cap_n = max(16, n)
        l2 = np.full((cap_n, rows), -1, dtype=np.int64)
        s2 = np.zeros((cap_n, MAX_COMPONENTS), dtype=np.int64)
        f2 = np.zeros((cap_n, MAX_COMPONENTS), dtype=np.int64)
        c2 = np.zeros(cap_n, dtype=np.int64)
        w2 = np.zeros(cap_n, dtype=np.int64)
        cu2 = np.zeros((cap_n, cu.shape[1]), dtype=np.int64)
        nh2 = np.zeros((cap_n, nh.shape[1]), dtype=np.int64)
        m_next = 0
        for i in range(n):
            for p in range(np_r):
                nc = _step(labels[i], sizes[i], flags[i], ncomp[i], pg[r, p], pm[r, p], rows, cap, new_labels,
                           new_sizes, new_flags, closed, parent, agg_size, agg_flag, root_new)
                key = _key(new_labels, new_sizes, new_flags, nc, rows)
                if key in index:
                    j = index[key]
                else:
                    j = m_next
                    if j >= nodes_max:
                        nodes[r + 1] = 0
                        return nodes, off, trans, units, np.zeros(1, dtype=np.int64), cu[0], nh[0]
                    index[key] = j
                    m_next += 1
                    if j >= l2.shape[0]:
                        l2 = _grow2(l2, j + 1)
                        s2 = _grow2(s2, j + 1)
                        f2 = _grow2(f2, j + 1)
                        c2 = _grow1(c2, j + 1)
                        w2 = _grow1(w2, j + 1)
                        cu2 = _grow2(cu2, j + 1)
                        nh2 = _grow2(nh2, j + 1)
                    l2[j] = new_labels
                    s2[j] = new_sizes
                    f2[j] = new_flags
                    c2[j] = nc
                u = 0
                for b in range(hit.shape[0]):
                    hit[b] = 0
                q = 0
                while closed[q] > 0:
                    u += pays[closed[q]]
                    b = combo_of[closed[q]]
                    if b >= 0:
                        hit[b] += 1
                    q += 1
                e = off[r] + i * np_r + p
                trans[e] = j
                units[e] = u
                wt = pw[r, p]
                w2[j] += w[i] * wt
                for b in range(n_combos):
                    cu2[j, b] += (cu[i, b] + hit[b] * w[i]) * wt
                    if hit[b] == 0:
                        nh2[j, b] += nh[i, b] * wt
        nodes[r + 1] = m_next
        labels, sizes, flags, ncomp = l2[:m_next], s2[:m_next], f2[:m_next], c2[:m_next]
        w, cu, nh = w2[:m_next], cu2[:m_next], nh2[:m_next]
    # the last reel: every open component closes
    n = nodes[n_reels]
    final = np.zeros(n, dtype=np.int64)
    cu_total = np.zeros(cu.shape[1], dtype=np.int64)
    nh_total = np.zeros(nh.shape[1], dtype=np.int64)
    for i in range(n):
        for b in range(hit.shape[0]):
            hit[b] = 0
        u = 0
        for c in range(ncomp[i]):
            if flags[i, c]:
                u += pays[sizes[i, c]]
                b = combo_of[sizes[i, c]]
                if b >= 0:
                    hit[b] += 1
        final[i] = u
        for b in range(n_combos):
            cu_total[b] += cu[i, b] + hit[b] * w[i]
            if hit[b] == 0:
                nh_total[b] += nh[i, b]
    return nodes, off, trans, units, final, cu_total, nh_total


# ---------------------------------------------------------------------------
# all symbols together
# ---------------------------------------------------------------------------
@njit(cache=True)
def _joint_sweep(trans, units, off, npat, final, foff, jpat, jgrp, jw, qoff, gmode, gcap, gpays, n_fields,
                 states_max, wide, prune, work_max):
    """The joint sweep (see the module docstring).  Per symbol ``s``: its automaton's flattened transition table
    ``trans``/``units`` from ``off[s, r]`` with ``npat[s, r]`` patterns per reel, final closing units
    ``final[foff[s] + node]``; joint patterns of reel ``r``: rows ``qoff[r]..qoff[r + 1]`` of ``jpat`` (each
    symbol's pattern), ``jgrp`` (each paying scatter group's count) and ``jw`` (weight).  Returns (weight, sum of
    weight x pay modulo 2^64, the same sum in floats, sum of weight x pay^2, weight of screens paying nothing,
    largest pay, largest joint layer, float additions along one sum at most); a layer over ``states_max`` returns
    additions -1.  ``wide``: the pay sum may pass 64 bits, so the square's cross term reads the float sum (else the
    exact one, as before).  ``prune``: follow only the screens that have paid nothing yet (for the hit frequency:
    the other sums then cover those screens only).  A sweep past ``work_max`` steps (states x patterns) stops and
    returns additions -1 too.  The last reel's states are not stored: its screens are summed as they close."""
    n_sym = off.shape[0]
    n_groups = gmode.shape[0]
    n_reels = qoff.shape[0] - 1
    words = (n_fields + 3) // 4
    # the current layer (one entry: every symbol's start node, every group's count 0)
    keys = np.zeros((1, words), dtype=np.int64)
    w = np.ones(1, dtype=np.int64)
    s1 = np.zeros(1, dtype=np.int64)  # weight x pay, modulo 2^64 (int64 wraps)
    s1f = np.zeros(1, dtype=np.float64)  # the same sum in floats (picks the integer among its residues)
    s2 = np.zeros(1, dtype=np.float64)
    z = np.ones(1, dtype=np.int64)
    mx = np.zeros(1, dtype=np.int64)
    n = 1
    largest = 1
    ops = 0  # float additions into one sum, at most (bounds the float sum's rounding)
    field = np.zeros(n_fields, dtype=np.int64)
    key = np.zeros(words, dtype=np.int64)
    for r in range(n_reels - 1):
        cap_t = 1024
        while cap_t < 4 * n:
            cap_t *= 2
        table = np.full(cap_t, -1, dtype=np.int64)
        size = max(16, n)
        k2 = np.zeros((size, words), dtype=np.int64)
        w2 = np.zeros(size, dtype=np.int64)
        a2 = np.zeros(size, dtype=np.int64)
        f2 = np.zeros(size, dtype=np.float64)
        b2 = np.zeros(size, dtype=np.float64)
        z2 = np.zeros(size, dtype=np.int64)
        m2 = np.zeros(size, dtype=np.int64)
        n2 = 0
        if ops + n * (qoff[r + 1] - qoff[r]) > work_max:  # the layer costs exactly n x its patterns: stop before it
            return 0, 0, 0.0, 0.0, 0, 0, n, -1
        for i in range(n):
            # unpack the state's fields
            for f in range(n_fields):
                field[f] = (keys[i, f // 4] >> np.int64(16 * (f % 4))) & 0xFFFF
            wi = w[i]
            ai = s1[i]
            afi = s1f[i]
            bi = s2[i]
            zi = z[i]
            mi = mx[i]
            for q in range(qoff[r], qoff[r + 1]):
                for t in range(words):
                    key[t] = 0
                c = 0
                for s in range(n_sym):
                    e = off[s, r] + field[s] * npat[s, r] + jpat[q, s]
                    nxt = trans[e]
                    c += units[e]
                    key[s // 4] |= np.int64(nxt) << np.int64(16 * (s % 4))
                for g in range(n_groups):
                    code = update_code(gmode[g], gcap[g], field[n_sym + g], jgrp[q, g])
                    f = n_sym + g
                    key[f // 4] |= np.int64(code) << np.int64(16 * (f % 4))
                if prune and c != 0:
                    continue
                cnt = jw[q]
                mask = np.uint64(table.shape[0] - 1)
                h = _hash(key) & mask
                while True:
                    e = table[h]
                    if e < 0:
                        break
                    same = True
                    for t in range(words):
                        if k2[e, t] != key[t]:
                            same = False
                            break
                    if same:
                        break
                    h = (h + np.uint64(1)) & mask
                if e < 0:
                    e = n2
                    if e >= states_max:
                        return 0, 0, 0.0, 0.0, 0, 0, e, -1
                    if e >= k2.shape[0]:
                        k2 = _grow2(k2, e + 1)
                        w2 = _grow1(w2, e + 1)
                        a2 = _grow1(a2, e + 1)
                        f2 = _grow1(f2, e + 1)
                        b2 = _grow1(b2, e + 1)
                        z2 = _grow1(z2, e + 1)
                        m2 = _grow1(m2, e + 1)
                    k2[e] = key
                    m2[e] = mi + c
                    table[h] = e
                    n2 += 1
                    if 2 * n2 > table.shape[0]:
                        table = _rehash(table, k2, n2)
                elif mi + c > m2[e]:
                    m2[e] = mi + c
                w2[e] += wi * cnt
                a2[e] += (ai + c * wi) * cnt
                fc = float(c)
                f2[e] += (afi + fc * float(wi)) * float(cnt)
                fa = afi if wide else float(ai)
                b2[e] += (bi + 2.0 * fc * fa + fc * fc * float(wi)) * float(cnt)
                if c == 0:
                    z2[e] += zi * cnt
        ops += n * (qoff[r + 1] - qoff[r]) + 4
        keys, w, s1, s1f, s2, z, mx = k2[:n2], w2[:n2], a2[:n2], f2[:n2], b2[:n2], z2[:n2], m2[:n2]
        n = n2
        largest = max(largest, n)
    # the last reel is not stored: each state's screens close every open component and pay the scatter groups
    total_w = 0
    total_a = 0
    total_af = 0.0
    total_b = 0.0
    total_z = 0
    best = 0
    r = n_reels - 1
    if ops + n * (qoff[r + 1] - qoff[r]) > work_max:
        return 0, 0, 0.0, 0.0, 0, 0, n, -1
    for i in range(n):
        for f in range(n_fields):
            field[f] = (keys[i, f // 4] >> np.int64(16 * (f % 4))) & 0xFFFF
        wi = w[i]
        ai = s1[i]
        afi = s1f[i]
        bi = s2[i]
        for q in range(qoff[r], qoff[r + 1]):
            c = 0
            for s in range(n_sym):
                e = off[s, r] + field[s] * npat[s, r] + jpat[q, s]
                c += units[e] + final[foff[s] + trans[e]]
            for g in range(n_groups):
                code = update_code(gmode[g], gcap[g], field[n_sym + g], jgrp[q, g])
                c += gpays[g, code_count(gmode[g], code)]
            cnt = jw[q]
            total_w += wi * cnt
            total_a += (ai + c * wi) * cnt
            fc = float(c)
            total_af += (afi + fc * float(wi)) * float(cnt)
            fa = afi if wide else float(ai)
            total_b += (bi + 2.0 * fc * fa + fc * fc * float(wi)) * float(cnt)
            if c == 0:
                total_z += z[i] * cnt
            if mx[i] + c > best:
                best = mx[i] + c
    ops += n * (qoff[r + 1] - qoff[r]) + 4
    return total_w, total_a, total_af, total_b, total_z, best, largest, ops


# ---------------------------------------------------------------------------
# driver
# ---------------------------------------------------------------------------
def transfer_analysis(where: str, reels: list, rows: int, pays: np.ndarray, combo_of: np.ndarray, n_combos: int,
                      cycle: int, upper: int, gmode: np.ndarray, gcap: np.ndarray, gpays: np.ndarray, *,
                      quick: bool = False) -> dict:
    """The exact sums of one strip set by the column transfer.

    ``reels``: per reel the merged windows as (symbol masks uint64[n, P] shifted to the reel's cells, wild mask
    uint64[n], group counts int64[n, G], weights int64[n]) (:func:`workbench.exact.cluster._reel_values`); ``pays``
    int64[P, max_size + 1] pay units by cluster size; ``combo_of[P, max_size + 1]`` combination of each size;
    ``upper`` the spin's largest possible pay (units).  Returns the exact integer sums over the cycle: ``weight``,
    ``pay`` (weight x pay units), ``zero`` (weight of screens paying nothing), ``max_units``, ``clusters`` and
    ``hits`` per combination, and the float ``square`` (weight x pay^2); ``method`` "joint" (one sweep over every
    symbol) or "per symbol" (the pay sum from one sweep per symbol; ``max_units`` None, ``square`` and ``zero`` None
    when not computed).  By the sweeps over runs when they hold the game (:func:`.cluster_routes.transfer_by_runs`,
    ``quick`` passed on), else by the automata: the joint sweep within :data:`JOINT_WORK_MAX` steps, else per symbol
    with ``zero`` from the sweep over the screens paying nothing so far when that fits.  ExactBudgetError when a
    budget is passed even so.
    """
    if rows > MAX_TRANSFER_ROWS:
        raise ExactBudgetError(f"{where}: the column transfer of cluster pays takes reels of at most "
                               f"{MAX_TRANSFER_ROWS} rows, not {rows}")
    cells = rows * len(reels)
    if cycle * (cells + 1) >= INT_SUM_MAX:
        raise ExactBudgetError(f"{where}: the cycle ({cycle:,}) x the cells of the screen ({cells}) does not fit the 64-bit "
                               "counts of the cluster transfer")
    runs_of = symbol_runs(reels, rows)
    if moment_route_applies(pays, runs_of):
        return transfer_by_runs(where, reels, rows, pays, combo_of, n_combos, cycle, upper, gmode, gcap, gpays,
                                quick=quick, runs_of=runs_of)
    n_reels = len(reels)
    n_sym = pays.shape[0]
    cap = pays.shape[1] - 1
    full = (1 << rows) - 1
    # per symbol and reel: the distinct (graph mask, symbol mask) patterns and the pattern of each window
    sym_patterns = []  # [s][r] -> (pg, pm, pw, window -> pattern)
    for s in range(n_sym):
        per_reel = []
        for r, (masks, wild, _, weights) in enumerate(reels):
            shift = r * rows
            own = [(int(masks[w, s]) >> shift) & full for w in range(len(weights))]
            graph = [o | ((int(wild[w]) >> shift) & full) for w, o in enumerate(own)]
            index: dict = {}
            of_window = []
            pw: list = []
            for w in range(len(weights)):
                pat = (graph[w], own[w])
                p = index.setdefault(pat, len(index))
                if p == len(pw):
                    pw.append(0)
                pw[p] += int(weights[w])
                of_window.append(p)
            per_reel.append((index, pw, of_window))
        sym_patterns.append(per_reel)
    max_pat = max((len(pr[1]) for per in sym_patterns for pr in per), default=1)
    trans_parts, units_parts, final_parts = [], [], []
    off = np.zeros((n_sym, n_reels), dtype=np.int64)
    npat = np.zeros((n_sym, n_reels), dtype=np.int64)
    foff = np.zeros(n_sym, dtype=np.int64)
    clusters = [0] * n_combos
    hits = [0] * n_combos
    base_t = base_f = 0
    for s in range(n_sym):
        pg = np.zeros((n_reels, max_pat), dtype=np.int64)
        pm = np.zeros((n_reels, max_pat), dtype=np.int64)
        pw = np.zeros((n_reels, max_pat), dtype=np.int64)
        for r, (index, weights, _) in enumerate(sym_patterns[s]):
            for (g, m), p in index.items():
                pg[r, p], pm[r, p] = g, m
            pw[r, : len(weights)] = weights
            npat[s, r] = len(weights)
        local = np.array(sorted({int(c) for c in combo_of[s] if c >= 0}), dtype=np.int64)
        remap = {int(c): i for i, c in enumerate(local.tolist())}
        combo_s = np.array([remap.get(int(c), -1) for c in combo_of[s]], dtype=np.int64)
        nodes, off_s, trans, units, final, cu, nh = _symbol_layers(
            pg, pm, pw, npat[s], np.int64(rows), np.int64(cap), np.ascontiguousarray(pays[s]), combo_s,
            np.int64(len(local)), np.int64(LAYER_NODES_MAX))
        if nodes[-1] == 0:
            raise ExactBudgetError(f"{where}: one symbol's clusters need more than {LAYER_NODES_MAX:,} states per reel "
                                   "in the column transfer; simulate the game instead")
        for i, c in enumerate(local.tolist()):
            clusters[c] += int(cu[i])
            hits[c] += cycle - int(nh[i])
        size = int(off_s[-1])
        trans_parts.append(trans[:size])
        units_parts.append(units[:size])
        off[s] = off_s[:-1] + base_t
        base_t += size
        final_parts.append(final)
        foff[s] = base_f
        base_f += len(final)
    tables = _SweepTables(np.concatenate(trans_parts) if trans_parts else np.zeros(0, np.int32),
                          np.concatenate(units_parts) if units_parts else np.zeros(0, np.int64), off, npat,
                          np.concatenate(final_parts) if final_parts else np.zeros(0, np.int64), foff,
                          gmode.astype(np.int64), gcap.astype(np.int64), np.ascontiguousarray(gpays, dtype=np.int64))
    out = {"clusters": clusters, "hits": hits}
    everything = list(range(n_sym))
    # the sweep over the screens paying nothing so far has at most the joint sweep's states: when even it is over
    # the budget, the joint sweep is not tried
    unpaid = _sweep(where, tables, reels, sym_patterns, everything, True, True, JOINT_WORK_MAX, cycle, upper)
    full = None if unpaid is None else _sweep(where, tables, reels, sym_patterns, everything, True, False,
                                              JOINT_WORK_MAX, cycle, upper)
    if full is not None:
        out.update(full, method="joint")
        return out
    out.update(weight=cycle, pay=_pay_per_symbol(where, tables, reels, sym_patterns, pays, combo_of, clusters, cycle,
                                                 upper),
               square=None, zero=None if unpaid is None else unpaid["zero"], max_units=None, largest_layer=None,
               method="per symbol")
    return out


def _pay_per_symbol(where: str, tables: "_SweepTables", reels: list, sym_patterns: list, pays: np.ndarray,
                    combo_of: np.ndarray, clusters: list, cycle: int, upper: int) -> int:
    """The weight x pay sum when the joint sweep is too large (exact integers): the clusters of each combination
    (the symbols' own automata) x its pay units, plus the scatter groups' sweep.  The second moment and the max win
    are then left to the caller (the max is at most ``upper``)."""
    unit_of = {}
    for s in range(pays.shape[0]):
        for size in range(pays.shape[1]):
            if combo_of[s, size] >= 0:
                unit_of.setdefault(int(combo_of[s, size]), int(pays[s, size]))
    pay = sum(n * unit_of[c] for c, n in enumerate(clusters) if n)
    if len(tables.gmode):
        groups = _sweep(where, tables, reels, sym_patterns, [], True, False, SYMBOL_WORK_MAX, cycle, upper)
        if groups is None:
            raise ExactBudgetError(f"{where}: the scatter groups' column transfer is over {SYMBOL_WORK_MAX:,} steps or "
                                   f"{TRANSFER_STATES_MAX:,} states on a reel; simulate the game instead")
        pay += groups["pay"]
    return pay


class _SweepTables(NamedTuple):
    """Every symbol's layered automaton (flattened, as :func:`_joint_sweep` reads it) and the paying scatter groups."""

    trans: np.ndarray  # next node of each (symbol, reel, node, pattern) entry
    units: np.ndarray  # pay units closed by that step
    off: np.ndarray  # int64[n_sym, n_reels] first entry of (symbol, reel)
    npat: np.ndarray  # int64[n_sym, n_reels] patterns of (symbol, reel)
    final: np.ndarray  # pay units closed after the last reel, by node
    foff: np.ndarray  # int64[n_sym] first node of each symbol in ``final``
    gmode: np.ndarray  # the paying scatter groups' count modes, caps and pays
    gcap: np.ndarray
    gpays: np.ndarray


def _sweep(where: str, t: _SweepTables, reels: list, sym_patterns: list, members: list, groups: bool, prune: bool,
           work_max: int, cycle: int, upper: int) -> dict | None:
    """The joint sweep over the symbols ``members`` (and the scatter groups when ``groups``): its exact sums, or None
    when it is over ``work_max`` steps or :data:`TRANSFER_STATES_MAX` states on a reel.  Windows are merged by the
    members' patterns and group counts only, so a sweep over few symbols reads few patterns."""
    n_groups = len(t.gmode) if groups else 0
    jpat_rows, jgrp_rows, jw_rows, qoff = [], [], [], [0]
    for r, (_, _, counts, weights) in enumerate(reels):
        merged: dict = {}
        for w in range(len(weights)):
            key = (tuple(sym_patterns[s][r][2][w] for s in members),
                   tuple(int(c) for c in counts[w].tolist()) if groups else ())
            merged[key] = merged.get(key, 0) + int(weights[w])
        for (pats, grp), weight in merged.items():
            jpat_rows.append(pats)
            jgrp_rows.append(grp)
            jw_rows.append(weight)
        qoff.append(len(jw_rows))
    jpat = np.array(jpat_rows, dtype=np.int64).reshape(len(jw_rows), len(members))
    jgrp = np.array(jgrp_rows, dtype=np.int64).reshape(len(jw_rows), n_groups)
    sel = np.array(members, dtype=np.int64)
    gsel = slice(0, n_groups)
    wide = cycle * max(upper, 1) >= INT_SUM_MAX
    total, pay_residue, pay_float, square, zero, best, largest, ops = _joint_sweep(
        t.trans, t.units, np.ascontiguousarray(t.off[sel]), np.ascontiguousarray(t.npat[sel]), t.final,
        np.ascontiguousarray(t.foff[sel]), jpat, jgrp, np.array(jw_rows, dtype=np.int64),
        np.array(qoff, dtype=np.int64), t.gmode[gsel], t.gcap[gsel], np.ascontiguousarray(t.gpays[gsel]),
        np.int64(len(members) + n_groups), np.int64(TRANSFER_STATES_MAX), wide, prune, np.int64(work_max))
    if ops < 0:
        return None
    if not prune and int(total) != cycle:
        raise ExactBudgetError(f"{where}: the cluster transfer's weights do not add up to the cycle (64-bit overflow)")
    pay = exact_from_residue(where, int(pay_residue), float(pay_float), int(ops), cycle * max(upper, 1)) if wide \
        else int(pay_residue)
    return {"weight": int(total), "pay": pay, "square": float(square), "zero": int(zero), "max_units": int(best),
            "largest_layer": int(largest)}
