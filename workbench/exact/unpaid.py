"""The hit-frequency kernel of the moments (:mod:`.moments`): ``1 - P(nothing pays)``, following only the paths
on which nothing has paid yet (states: the undecided lines and the scatter counts), reel by reel.

A path reads only the rows its undecided lines cross on the next reel (and the window's scatter counts), so the
windows of a reel that agree on those rows are one step for it: :func:`window_classes` groups them once per set
of rows read (a row mask), and the step walks a path's classes instead of every window -- on 600-stop strips a
path with one or two undecided lines meets tens of classes instead of hundreds of windows."""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..pays.scatter import update_code


# ---------------------------------------------------------------------------
# P(nothing pays): follow unpaid paths only
# ---------------------------------------------------------------------------
@njit
def _state_hash(lines, states, n, codes):
    h = np.uint64(1469598103934665603)
    for j in range(n):
        h = (h ^ (np.uint64(lines[j]) << np.uint64(20) | np.uint64(states[j]))) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    for g in range(codes.shape[0]):
        h = (h ^ np.uint64(codes[g] + 7919)) * np.uint64(1099511628211)
        h ^= h >> np.uint64(31)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


def window_classes(symbols: np.ndarray, counts: np.ndarray, weights: np.ndarray, masks) -> tuple:
    """The windows of one reel grouped, for each row mask in ``masks``, by their symbols on the rows of the mask
    and their scatter-group counts: (cls_of_mask int64[1 << rows] (-1: not built), cls_ptr, cls_rep (a window of
    each class), cls_weight (the class's summed stop weights, exact integers))."""
    rows = symbols.shape[1]
    of_mask = np.full(1 << rows, -1, dtype=np.int64)
    ptr, rep, weight = [0], [], []
    for m in sorted(set(int(x) for x in masks)):
        cols = [r for r in range(rows) if (m >> r) & 1]
        key = np.concatenate([symbols[:, cols].astype(np.int64), counts.astype(np.int64)], axis=1)
        if key.shape[1]:
            _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        else:
            first, inverse = np.zeros(1, np.int64), np.zeros(len(weights), np.int64)
        of_mask[m] = len(ptr) - 1
        rep.append(first.astype(np.int64))
        weight.append(np.bincount(inverse.ravel(), weights=weights, minlength=len(first)).astype(np.int64)
                      if len(weights) < 1 << 20 else np.array([int(weights[inverse.ravel() == c].sum())
                                                               for c in range(len(first))], dtype=np.int64))
        ptr.append(ptr[-1] + len(first))
    return (of_mask, np.array(ptr, dtype=np.int64), np.concatenate(rep) if rep else np.zeros(0, np.int64),
            np.concatenate(weight) if weight else np.zeros(0, np.int64))


@njit(cache=True)
def path_masks(ptr, lline, reel, line_rows):
    """The row mask each path reads on ``reel``: the rows its undecided lines cross there."""
    n = ptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for a in range(n):
        m = 0
        for j in range(ptr[a], ptr[a + 1]):
            m |= 1 << line_rows[lline[j], reel]
        out[a] = m
    return out


@njit(cache=True)
def _unpaid_step(ptr, lline, lstate, codes, prob, win_sym, win_cnt, win_p, reel, line_rows,
                 trans, gain, live, mode, cap, masks, of_mask, cls_ptr, cls_rep):
    """One reel of the unpaid-path recursion: keep only transitions that pay nothing.  Path ``a`` walks the window
    classes of its row mask ``masks[a]`` (:func:`window_classes`: a representative window ``cls_rep[c]`` of class
    weight ``win_p[c]``).  ``prob`` and ``win_p`` are both integer weights (exact: the paths' weights are products of
    stop weights, at most the cycle) or both probabilities (floats)."""
    n_states = ptr.shape[0] - 1
    n_groups = codes.shape[1]
    n_lines = line_rows.shape[0]
    cap_t = 1024
    table = np.full(cap_t, -1, dtype=np.int64)
    keys = np.zeros(cap_t, dtype=np.uint64)
    size = 256
    nnz_cap = 1024
    nptr = np.zeros(size + 1, dtype=np.int64)
    nline = np.empty(nnz_cap, dtype=np.int32)
    nstate = np.empty(nnz_cap, dtype=np.int32)
    ncodes = np.empty((size, n_groups), dtype=np.int64)
    nprob = np.empty(size, dtype=prob.dtype)
    tmp_line = np.empty(n_lines, dtype=np.int32)
    tmp_state = np.empty(n_lines, dtype=np.int32)
    tmp_codes = np.empty(n_groups, dtype=np.int64)
    n_codes = 1
    for g in range(n_groups):
        n_codes = max(n_codes, 2 * cap[g] + 2)
    size_direct = 1
    for g in range(n_groups):
        size_direct = min(size_direct * n_codes, 1 << 16)  # never past 64 bits, however many groups
    direct = np.full(size_direct, -1, dtype=np.int64)
    n_direct = direct.shape[0]
    count = 0
    nnz = 0
    for a in range(n_states):
        pa = prob[a]
        m = of_mask[masks[a]]
        for c in range(cls_ptr[m], cls_ptr[m + 1]):
            w = cls_rep[c]
            k = 0
            paid = False
            for j in range(ptr[a], ptr[a + 1]):
                l = lline[j]
                st = lstate[j]
                sym = win_sym[w, line_rows[l, reel]]
                if gain[st, sym] > 0:
                    paid = True
                    break
                s2 = trans[st, sym]
                if live[s2]:
                    tmp_line[k] = l
                    tmp_state[k] = s2
                    k += 1
            if paid:
                continue
            key = 0
            for g in range(n_groups):
                tmp_codes[g] = update_code(mode[g], cap[g], codes[a, g], win_cnt[w, g])
                # keys past the direct table are not used: stop there instead of overflowing
                key = key * n_codes + tmp_codes[g] if key < n_direct else n_direct
            if k == 0 and key < direct.shape[0] and direct[key] >= 0:
                # fast path: no undecided line left, state known by its scatter codes alone
                nprob[direct[key]] += pa * win_p[c]
                continue
            h = _state_hash(tmp_line, tmp_state, k, tmp_codes)
            slot = np.int64(h & np.uint64(cap_t - 1))
            idx = -1
            while table[slot] != -1:
                if keys[slot] == h:
                    cand = table[slot]
                    same = nptr[cand + 1] - nptr[cand] == k
                    if same:
                        for g in range(n_groups):
                            if ncodes[cand, g] != tmp_codes[g]:
                                same = False
                    if same:
                        b = nptr[cand]
                        for j in range(k):
                            if nline[b + j] != tmp_line[j] or nstate[b + j] != tmp_state[j]:
                                same = False
                                break
                    if same:
                        idx = cand
                        break
                slot = (slot + 1) & (cap_t - 1)
            if idx == -1:
                if count == size:
                    size *= 2
                    t1 = np.zeros(size + 1, dtype=np.int64)
                    t1[: count + 1] = nptr[: count + 1]
                    nptr = t1
                    t2 = np.empty((size, n_groups), dtype=np.int64)
                    t2[:count] = ncodes[:count]
                    ncodes = t2
                    t3 = np.empty(size, dtype=prob.dtype)
                    t3[:count] = nprob[:count]
                    nprob = t3
                if nnz + k > nnz_cap:
                    nnz_cap = max(2 * nnz_cap, nnz + k)
                    t4 = np.empty(nnz_cap, dtype=np.int32)
                    t4[:nnz] = nline[:nnz]
                    nline = t4
                    t5 = np.empty(nnz_cap, dtype=np.int32)
                    t5[:nnz] = nstate[:nnz]
                    nstate = t5
                if 2 * (count + 1) > cap_t:
                    cap_t *= 2
                    table = np.full(cap_t, -1, dtype=np.int64)
                    keys = np.zeros(cap_t, dtype=np.uint64)
                    for e in range(count):
                        b = nptr[e]
                        hh = _state_hash(nline[b:], nstate[b:], nptr[e + 1] - b, ncodes[e])
                        s = np.int64(hh & np.uint64(cap_t - 1))
                        while table[s] != -1:
                            s = (s + 1) & (cap_t - 1)
                        table[s] = e
                        keys[s] = hh
                    slot = np.int64(h & np.uint64(cap_t - 1))
                    while table[slot] != -1:
                        slot = (slot + 1) & (cap_t - 1)
                idx = count
                count += 1
                for j in range(k):
                    nline[nnz + j] = tmp_line[j]
                    nstate[nnz + j] = tmp_state[j]
                nnz += k
                nptr[idx + 1] = nnz
                for g in range(n_groups):
                    ncodes[idx, g] = tmp_codes[g]
                nprob[idx] = 0
                table[slot] = idx
                keys[slot] = h
                if k == 0 and key < direct.shape[0]:
                    direct[key] = idx
            nprob[idx] += pa * win_p[c]
    return nptr[: count + 1].copy(), nline[:nnz].copy(), nstate[:nnz].copy(), ncodes[:count].copy(), nprob[:count].copy()
