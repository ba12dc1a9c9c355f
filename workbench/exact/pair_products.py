"""The float kernels of a spin's second moment over the line automaton (:mod:`.moments`).

``E[X_l X_m]`` runs the product of two line automata over the reels, reading each reel's joint distribution of
the two rows the lines read; symbols that move a state to the same next state form one class and the largest
class is handled by subtraction. ``E[X_l Y]`` (a line times the scatter pays) runs a line's automaton beside
the scatter counts. Pays are in pay units; sums are floats (probabilities)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import njit, prange
from ..pays.lines import LineAutomaton
from ..pays.scatter import code_count, update_code


# ---------------------------------------------------------------------------
# symbol classes of the line automaton
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SymbolClasses:
    """For each automaton state: symbols grouped by the next state they lead to.

    The largest group is the *default* class (``default_next``); the others
    are listed explicitly: classes ``cls_ptr[s]..cls_ptr[s+1]`` with next state
    ``cls_next[c]`` and members ``members[mem_ptr[c]:mem_ptr[c+1]]``.
    """

    default_next: np.ndarray
    cls_ptr: np.ndarray
    cls_next: np.ndarray
    mem_ptr: np.ndarray
    members: np.ndarray


def symbol_classes(automaton: LineAutomaton) -> SymbolClasses:
    default_next, cls_ptr, cls_next, mem_ptr, members = [], [0], [], [0], []
    for state in range(automaton.n_states):
        groups: dict[int, list[int]] = {}
        for sym, nxt in enumerate(automaton.trans[state].tolist()):
            groups.setdefault(nxt, []).append(sym)
        default = max(groups, key=lambda k: len(groups[k]))
        default_next.append(default)
        for nxt, syms in groups.items():
            if nxt == default:
                continue
            cls_next.append(nxt)
            members.extend(syms)
            mem_ptr.append(len(members))
        cls_ptr.append(len(cls_next))
    as32 = lambda x: np.asarray(x, dtype=np.int32)  # noqa: E731
    return SymbolClasses(as32(default_next), as32(cls_ptr), as32(cls_next), as32(mem_ptr), as32(members))


# ---------------------------------------------------------------------------
# E[X_l X_m] for pairs of lines
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _add(P, mark, todo_a, todo_b, n, a, b, v, last, pay, acc):
    """Move probability ``v`` to entry (a, b) of the next layer; on the last reel, cash it in."""
    if v <= 0.0:
        return n
    if last:
        acc[0] += v * pay[a] * pay[b]
        return n
    if not mark[a, b]:
        mark[a, b] = True
        todo_a[n] = a
        todo_b[n] = b
        n += 1
    P[a, b] += v
    return n


@njit(cache=True)
def _line_futures(line_rows, R, trans, live, pay):
    """V[l, i, s]: expected final pay of line l when in state s before reel i."""
    n_lines, n_reels = line_rows.shape
    K, S = trans.shape
    V = np.zeros((n_lines, n_reels + 1, K))
    for l in range(n_lines):
        for s in range(K):
            V[l, n_reels, s] = pay[s]
        for i in range(n_reels - 1, -1, -1):
            r = line_rows[l, i]
            for s in range(K):
                if not live[s]:
                    V[l, i, s] = pay[s]
                    continue
                acc = 0.0
                for a in range(S):
                    q = R[i, r, a]
                    if q > 0.0:
                        acc += q * V[l, i + 1, trans[s, a]]
                V[l, i, s] = acc
    return V


@njit(cache=True, parallel=True)
def _pair_products(pair_l, pair_m, line_rows, J, R, V, pay, live, default_next, cls_ptr, cls_next, mem_ptr, members,
                   max_chunks):
    # Pairs are split into a few chunks (at most ``max_chunks``, for memory) so each chunk
    # allocates its work arrays once; the per-pair body is a separate function so the
    # parallel loop cannot hoist them.  Each pair's value does not depend on the chunks.
    n_pairs = pair_l.shape[0]
    out = np.zeros(n_pairs)
    n_chunks = max(1, min(n_pairs, 16, max_chunks))
    for chunk in prange(n_chunks):
        K = pay.shape[0]
        S = J.shape[3]
        P = np.zeros((K, K))
        Pn = np.zeros((K, K))
        mark = np.zeros((K, K), dtype=np.bool_)
        ea = np.empty(K * K, dtype=np.int32)
        eb = np.empty(K * K, dtype=np.int32)
        na = np.empty(K * K, dtype=np.int32)
        nb = np.empty(K * K, dtype=np.int32)
        work = np.empty((5, S + 1))
        for p in range(chunk, n_pairs, n_chunks):
            out[p] = _pair_product(pair_l[p], pair_m[p], line_rows, J, R, V, pay, live, default_next, cls_ptr, cls_next,
                                   mem_ptr, members, P, Pn, mark, ea, eb, na, nb, work)
    return out


@njit
def _pair_product(l, m, line_rows, J, R, V, pay, live, default_next, cls_ptr, cls_next, mem_ptr, members,
                  P, Pn, mark, ea, eb, na, nb, work):
    """E[X_l X_m] in pay units squared.

    Only entries where both lines are undecided move on to the next reel; as
    soon as one line is decided its pay is final and the entry is closed with
    the other line's expected pay (``V``).  P, Pn (all zero), mark (all False)
    and the index lists are work arrays, left as found.
    """
    n_reels = line_rows.shape[1]
    rowq = work[0]
    colq = work[1]
    rowacc = work[2]
    colacc = work[3]
    total = 0.0
    acc = work[4, :1]
    acc[0] = 0.0
    P[0, 0] = 1.0
    ea[0] = 0
    eb[0] = 0
    ne = 1
    for i in range(n_reels):
        ra = line_rows[l, i]
        rb = line_rows[m, i]
        last = i == n_reels - 1
        n = 0
        for e in range(ne):
            s = ea[e]
            t = eb[e]
            v = P[s, t]
            P[s, t] = 0.0
            if v == 0.0:
                continue
            if not live[s]:
                total += v * pay[s] * (pay[t] if not live[t] else V[m, i, t])
                continue
            if not live[t]:
                total += v * V[l, i, s] * pay[t]
                continue
            cs0 = cls_ptr[s]
            ct0 = cls_ptr[t]
            ncs = cls_ptr[s + 1] - cs0
            nct = cls_ptr[t + 1] - ct0
            for x in range(ncs):
                c = cs0 + x
                q = 0.0
                for k in range(mem_ptr[c], mem_ptr[c + 1]):
                    q += R[i, ra, members[k]]
                rowq[x] = q
                rowacc[x] = 0.0
            for y in range(nct):
                d = ct0 + y
                q = 0.0
                for k in range(mem_ptr[d], mem_ptr[d + 1]):
                    q += R[i, rb, members[k]]
                colq[y] = q
                colacc[y] = 0.0
            both = 0.0
            for x in range(ncs):
                c = cs0 + x
                for y in range(nct):
                    d = ct0 + y
                    q = 0.0
                    for k in range(mem_ptr[c], mem_ptr[c + 1]):
                        a = members[k]
                        for h in range(mem_ptr[d], mem_ptr[d + 1]):
                            q += J[i, ra, rb, a, members[h]]
                    rowacc[x] += q
                    colacc[y] += q
                    both += q
                    n = _add(Pn, mark, na, nb, n, cls_next[c], cls_next[d], v * q, last, pay, acc)
            sum_row = 0.0
            for x in range(ncs):
                sum_row += rowq[x]
                n = _add(Pn, mark, na, nb, n, cls_next[cs0 + x], default_next[t], v * (rowq[x] - rowacc[x]), last, pay, acc)
            sum_col = 0.0
            for y in range(nct):
                sum_col += colq[y]
                n = _add(Pn, mark, na, nb, n, default_next[s], cls_next[ct0 + y], v * (colq[y] - colacc[y]), last, pay, acc)
            n = _add(Pn, mark, na, nb, n, default_next[s], default_next[t], v * (1.0 - sum_row - sum_col + both), last, pay, acc)
        for e in range(n):
            mark[na[e], nb[e]] = False
        P, Pn = Pn, P
        for e in range(n):
            ea[e] = na[e]
            eb[e] = nb[e]
        ne = n
    return total + acc[0]


# ---------------------------------------------------------------------------
# E[X_l Y_g] for each line and paying scatter group
# ---------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def _line_scatter_products(line_rows, H, trans, live, pay, mode, cap, group_pays, n_codes):
    """H[g, i, r, a, c]: probability that reel i shows symbol a at row r and count c of group g."""
    n_lines = line_rows.shape[0]
    n_groups = H.shape[0]
    out = np.zeros((n_lines, n_groups))
    for job in prange(n_lines * n_groups):
        l = job // n_groups
        g = job % n_groups
        out[l, g] = _line_scatter_product(l, g, line_rows, H, trans, live, pay, mode, cap, group_pays, n_codes)
    return out


@njit
def _scatter_futures(g, H, mode, cap, group_pays, n_codes):
    """F[i, code]: expected final pay of scatter group g with running code ``code`` before reel i."""
    n_reels = H.shape[1]
    C = H.shape[4]
    F = np.zeros((n_reels + 1, n_codes))
    for code in range(n_codes):
        F[n_reels, code] = group_pays[g, code_count(mode[g], code)]
    for i in range(n_reels - 1, -1, -1):
        for code in range(n_codes):
            acc = 0.0
            for c in range(C):
                q = 0.0
                for a in range(H.shape[3]):
                    q += H[g, i, 0, a, c]
                if q > 0.0:
                    acc += q * F[i + 1, update_code(mode[g], cap[g], code, c)]
            F[i, code] = acc
    return F


@njit
def _line_scatter_product(l, g, line_rows, H, trans, live, pay, mode, cap, group_pays, n_codes):
    """E[X_l Y_g] in pay units squared.

    Once the line is decided its pay is final and the entry closes with the
    group's expected pay from there on, so only undecided lines move on.
    """
    n_reels = line_rows.shape[1]
    K = pay.shape[0]
    S = H.shape[3]
    C = H.shape[4]
    F = _scatter_futures(g, H, mode, cap, group_pays, n_codes)
    P = np.zeros((K, n_codes))
    Pn = np.zeros((K, n_codes))
    P[0, 0] = 1.0
    total = 0.0
    for i in range(n_reels):
        r = line_rows[l, i]
        for s in range(K):
            for code in range(n_codes):
                v = P[s, code]
                if v == 0.0:
                    continue
                P[s, code] = 0.0
                if not live[s]:
                    total += v * pay[s] * F[i, code]
                    continue
                for a in range(S):
                    nxt = trans[s, a]
                    for c in range(C):
                        q = H[g, i, r, a, c]
                        if q > 0.0:
                            Pn[nxt, update_code(mode[g], cap[g], code, c)] += v * q
        P, Pn = Pn, P
    for s in range(K):
        for code in range(n_codes):
            if P[s, code] > 0.0:
                total += P[s, code] * pay[s] * group_pays[g, code_count(mode[g], code)]
    return total
