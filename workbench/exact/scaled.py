"""The line automaton with multipliers as weights (:class:`ScaledAutomaton`) and the second-moment kernels on it.

With multiplier wilds the line automaton keeps the multiplier read so far in its states; here states whose pays
differ only by that multiplier are one and the multiplier rides on the steps as an integer factor (the same pays
on every path; only the float sums' rounding can differ, in the last bits).  The kernels are the twins of
:mod:`.pair_products` with a factor on every step: kept apart so that a game without multipliers sums in exactly
the order its golden figures were taken in (tests/test_golden_par.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._jit import njit, prange
from ..pays.lines import LineAutomaton
from ..pays.scatter import code_count, update_code
from .pair_products import SymbolClasses, _add, _scatter_futures


# ---------------------------------------------------------------------------
# the moments' automaton with multipliers as weights
# ---------------------------------------------------------------------------
_SCALED: dict = {}


@dataclass(frozen=True)
class ScaledAutomaton:
    """The line automaton with states that differ only by a multiplier of all their pays merged.

    With multiplier wilds (product), a state's future pays can be its twin's times
    the multiplier of the symbols read so far: such states are one here, and the
    step into a state carries ``factor[state, symbol]`` (an integer) instead.  A
    path's pay is the product of the factors along it times ``pay`` of the state it
    ends in, exactly the original automaton's pay (:func:`scaled_automaton` checks
    this for every step).  ``classes`` group the symbols of a state by the next
    state (members' factors in ``member_factor``); each state's default class has
    one factor, ``default_factor``.  Only the float moments (line futures, line
    pairs, line x scatter products) use it; counts and the max-win walk keep the
    original automaton.
    """

    trans: np.ndarray
    factor: np.ndarray
    live: np.ndarray
    pay: np.ndarray
    classes: SymbolClasses
    member_factor: np.ndarray
    default_factor: np.ndarray
    class_unique: np.ndarray  # each class's distinct class (same members and factors) ...
    unique_ptr: np.ndarray  # ... whose members are unique_members[unique_ptr[u]:unique_ptr[u + 1]]
    unique_members: np.ndarray
    unique_factor: np.ndarray

    @property
    def n_states(self) -> int:
        return len(self.live)


def scaled_automaton(automaton: LineAutomaton) -> ScaledAutomaton | None:
    """The :class:`ScaledAutomaton` of ``automaton``, or None when no state merges
    through a multiplier (then the original automaton is used as it is)."""
    import math

    K, S = automaton.trans.shape
    trans = automaton.trans
    live = automaton.live
    units = automaton.pay_units
    canon = np.full(K, -1, dtype=np.int64)
    # scale 0: every path from the state pays nothing (proportional to anything; its steps' factors are 1)
    scale = np.ones(K, dtype=np.int64)
    ids: dict = {}
    # terminal states first, then live states from the last: a live state leads to later states or terminals
    for s in [int(x) for x in np.flatnonzero(~live)] + [int(x) for x in np.flatnonzero(live)[::-1]]:
        if not live[s]:
            m = 1
            c = int(automaton.combo[s])
            if units[s] == 0:
                m = 0
            elif c >= 0:
                m = int(automaton.combinations[c].multiplier)
                if m < 1 or int(units[s]) % m:
                    m = 1
            key = ("T", int(units[s]) // max(m, 1))
        else:
            nxt = trans[s]
            if ((nxt <= s) & live[nxt]).any():  # both builders number live states before the live states they lead to
                return None
            sc = scale[nxt]
            g = 0
            for v in set(sc.tolist()):
                g = math.gcd(g, v)
            m = g
            key = ("L", tuple(canon[nxt].tolist()), tuple(np.where(sc > 0, sc // max(g, 1), 1).tolist()))
        scale[s] = m
        canon[s] = ids.setdefault(key, len(ids))
    # canonical states numbered by their first original state (the start stays 0)
    first = np.full(len(ids), K, dtype=np.int64)
    np.minimum.at(first, canon, np.arange(K))
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    canon = rank[canon]
    rep = first[order]
    k2 = len(rep)
    live2 = live[rep].copy()
    trans2 = np.where(live2[:, None], canon[trans[rep]], np.arange(k2)[:, None]).astype(np.int32)
    sc_next = scale[trans[rep]]
    fac2 = np.where(live2[:, None] & (sc_next > 0), sc_next // np.maximum(scale[rep], 1)[:, None], 1).astype(np.int64)
    pay2 = np.where(live2, 0, units[rep] // np.maximum(scale[rep], 1)).astype(np.int64)
    if not (fac2 != 1).any():
        return None
    # every step of the original automaton is a step of this one times its factor
    lv = np.flatnonzero(live)
    ok = (live2[canon] == live).all()
    ok = ok and (trans2[canon[lv]] == canon[trans[lv]]).all()
    paying = scale[trans[lv]] > 0  # steps into a state that pays nothing whatever follows need no factor
    ok = ok and ((scale[trans[lv]] == scale[lv][:, None] * fac2[canon[lv]]) | ~paying).all()
    ok = ok and (units[~live] == scale[~live] * pay2[canon[~live]]).all()
    ok = ok and ((scale[lv] > 0) | ~paying.any(axis=1)).all()
    if not ok:
        return None
    default_next, cls_ptr, cls_next, mem_ptr, members, mfac, dfac = [], [0], [], [0], [], [], []
    for st in range(k2):
        nxt = trans2[st].tolist()
        f = fac2[st].tolist()
        sub: dict = {}
        for a in range(S):
            sub.setdefault((nxt[a], f[a]), []).append(a)
        default = max(sub, key=lambda k: len(sub[k]))  # the largest group of one next state and one factor
        default_next.append(default[0])
        dfac.append(float(default[1]))
        groups: dict = {}
        for a in range(S):
            if (nxt[a], f[a]) != default:
                groups.setdefault(nxt[a], []).append(a)
        for n2, syms in groups.items():
            cls_next.append(n2)
            members.extend(syms)
            mfac.extend(float(f[a]) for a in syms)
            mem_ptr.append(len(members))
        cls_ptr.append(len(cls_next))
    as32 = lambda x: np.asarray(x, dtype=np.int32)  # noqa: E731
    classes = SymbolClasses(as32(default_next), as32(cls_ptr), as32(cls_next), as32(mem_ptr), as32(members))
    # the distinct classes: the pair products read their masses from per-reel tables (_class_tables)
    unique: dict = {}
    class_unique, uptr, umembers, ufac = [], [0], [], []
    for c in range(len(cls_next)):
        key = tuple(zip(members[mem_ptr[c]:mem_ptr[c + 1]], mfac[mem_ptr[c]:mem_ptr[c + 1]]))
        if key not in unique:
            unique[key] = len(unique)
            umembers.extend(a for a, _ in key)
            ufac.extend(f for _, f in key)
            uptr.append(len(umembers))
        class_unique.append(unique[key])
    if len(unique) > MAX_SCALED_CLASSES:
        return None  # the class tables (reels x rows^2 x classes^2) would be large: the automaton as it is
    return ScaledAutomaton(trans2, fac2.astype(float), live2, pay2.astype(float), classes, np.asarray(mfac, dtype=float),
                           np.asarray(dfac, dtype=float), as32(class_unique), as32(uptr), as32(umembers),
                           np.asarray(ufac, dtype=float))


MAX_SCALED_CLASSES = 256  # distinct symbol classes of a ScaledAutomaton (its class tables grow with their square)
SCALED_TABLE_FLOATS = 1 << 21  # largest class tables (reels x rows^2 x classes^2 x 4) the moments build for it


def scaled_automaton_cached(automaton: LineAutomaton) -> ScaledAutomaton | None:
    key = id(automaton)
    if key not in _SCALED or _SCALED[key][0] is not automaton:
        if len(_SCALED) > 32:
            _SCALED.clear()
        _SCALED[key] = (automaton, scaled_automaton(automaton))
    return _SCALED[key][1]


@njit(cache=True)
def _scaled_line_futures(line_rows, R, trans, factor, live, pay):
    """:func:`_line_futures` of a :class:`ScaledAutomaton` (each step times its factor)."""
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
                        acc += q * factor[s, a] * V[l, i + 1, trans[s, a]]
                V[l, i, s] = acc
    return V


@njit(cache=True)
def _class_tables(J, R, cls_ptr_u, members_u, factor_u):
    """Masses of the distinct classes of a :class:`ScaledAutomaton` on every reel and pair of rows.

    Class ``u`` has members ``members_u[cls_ptr_u[u]:cls_ptr_u[u+1]]`` with factors
    ``factor_u`` (same positions).  ``RU[i, r, u]`` = sum R, ``RW`` = sum R f;
    ``Q[i, ra, rb, u, v]`` = (sum J, sum J f_a, sum J f_b, sum J f_a f_b) over a in u, b in v.
    """
    n_reels, rows, _ = R.shape
    U = cls_ptr_u.shape[0] - 1
    RU = np.zeros((n_reels, rows, U))
    RW = np.zeros((n_reels, rows, U))
    Q = np.zeros((n_reels, rows, rows, U, U, 4))
    for i in range(n_reels):
        for r in range(rows):
            for u in range(U):
                qu = 0.0
                qw = 0.0
                for k in range(cls_ptr_u[u], cls_ptr_u[u + 1]):
                    q = R[i, r, members_u[k]]
                    qu += q
                    qw += q * factor_u[k]
                RU[i, r, u] = qu
                RW[i, r, u] = qw
        for ra in range(rows):
            for rb in range(rows):
                for u in range(U):
                    for v in range(U):
                        qu = 0.0
                        qa = 0.0
                        qb = 0.0
                        qw = 0.0
                        for k in range(cls_ptr_u[u], cls_ptr_u[u + 1]):
                            a = members_u[k]
                            fa = factor_u[k]
                            for h in range(cls_ptr_u[v], cls_ptr_u[v + 1]):
                                j = J[i, ra, rb, a, members_u[h]]
                                fb = factor_u[h]
                                qu += j
                                qa += j * fa
                                qb += j * fb
                                qw += j * fa * fb
                        Q[i, ra, rb, u, v, 0] = qu
                        Q[i, ra, rb, u, v, 1] = qa
                        Q[i, ra, rb, u, v, 2] = qb
                        Q[i, ra, rb, u, v, 3] = qw
    return RU, RW, Q


@njit(cache=True, parallel=True)
def _scaled_pair_products(pair_l, pair_m, line_rows, RU, RW, Q, V, pay, live, default_next, cls_ptr, cls_next, cls_u,
                          default_factor, max_chunks):
    """:func:`_pair_products` of a :class:`ScaledAutomaton` (class masses from :func:`_class_tables`)."""
    n_pairs = pair_l.shape[0]
    out = np.zeros(n_pairs)
    n_chunks = max(1, min(n_pairs, 16, max_chunks))
    for chunk in prange(n_chunks):
        K = pay.shape[0]
        P = np.zeros((K, K))
        Pn = np.zeros((K, K))
        mark = np.zeros((K, K), dtype=np.bool_)
        ea = np.empty(K * K, dtype=np.int32)
        eb = np.empty(K * K, dtype=np.int32)
        na = np.empty(K * K, dtype=np.int32)
        nb = np.empty(K * K, dtype=np.int32)
        width = 1
        for st in range(K):
            width = max(width, cls_ptr[st + 1] - cls_ptr[st])
        work = np.empty((7, width + 1))
        for p in range(chunk, n_pairs, n_chunks):
            out[p] = _scaled_pair_product(pair_l[p], pair_m[p], line_rows, RU, RW, Q, V, pay, live, default_next, cls_ptr,
                                          cls_next, cls_u, default_factor, P, Pn, mark, ea, eb, na, nb, work)
    return out


@njit
def _scaled_pair_product(l, m, line_rows, RU, RW, Q, V, pay, live, default_next, cls_ptr, cls_next, cls_u,
                         default_factor, P, Pn, mark, ea, eb, na, nb, work):
    """:func:`_pair_product` with each symbol's step weighted by its factor.

    For classes x of s and y of t the mass moving to their next states is
    sum J f_a f_b; the default classes (one factor each) are handled by
    subtraction as in :func:`_pair_product`, from the row masses weighted by the
    explicit side's factors.
    """
    n_reels = line_rows.shape[1]
    rowu = work[0]
    colu = work[1]
    roww = work[2]
    colw = work[3]
    rowacc = work[4]
    colacc = work[5]
    total = 0.0
    acc = work[6, :1]
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
            fs = default_factor[s]
            ft = default_factor[t]
            for x in range(ncs):
                u = cls_u[cs0 + x]
                rowu[x] = RU[i, ra, u]
                roww[x] = RW[i, ra, u]
                rowacc[x] = 0.0
            for y in range(nct):
                u = cls_u[ct0 + y]
                colu[y] = RU[i, rb, u]
                colw[y] = RW[i, rb, u]
                colacc[y] = 0.0
            both = 0.0
            for x in range(ncs):
                c = cs0 + x
                qrow = Q[i, ra, rb, cls_u[c]]
                for y in range(nct):
                    d = ct0 + y
                    q = qrow[cls_u[d]]
                    rowacc[x] += q[1]
                    colacc[y] += q[2]
                    both += q[0]
                    n = _add(Pn, mark, na, nb, n, cls_next[c], cls_next[d], v * q[3], last, pay, acc)
            sum_row = 0.0
            for x in range(ncs):
                sum_row += rowu[x]
                n = _add(Pn, mark, na, nb, n, cls_next[cs0 + x], default_next[t], v * ft * (roww[x] - rowacc[x]), last, pay,
                         acc)
            sum_col = 0.0
            for y in range(nct):
                sum_col += colu[y]
                n = _add(Pn, mark, na, nb, n, default_next[s], cls_next[ct0 + y], v * fs * (colw[y] - colacc[y]), last, pay,
                         acc)
            n = _add(Pn, mark, na, nb, n, default_next[s], default_next[t], v * fs * ft * (1.0 - sum_row - sum_col + both),
                     last, pay, acc)
        for e in range(n):
            mark[na[e], nb[e]] = False
        P, Pn = Pn, P
        for e in range(n):
            ea[e] = na[e]
            eb[e] = nb[e]
        ne = n
    return total + acc[0]


@njit(cache=True, parallel=True)
def _scaled_line_scatter_products(line_rows, H, trans, factor, live, pay, mode, cap, group_pays, n_codes):
    """:func:`_line_scatter_products` of a :class:`ScaledAutomaton`."""
    n_lines = line_rows.shape[0]
    n_groups = H.shape[0]
    out = np.zeros((n_lines, n_groups))
    for job in prange(n_lines * n_groups):
        l = job // n_groups
        g = job % n_groups
        out[l, g] = _scaled_line_scatter_product(l, g, line_rows, H, trans, factor, live, pay, mode, cap, group_pays,
                                                 n_codes)
    return out


@njit
def _scaled_line_scatter_product(l, g, line_rows, H, trans, factor, live, pay, mode, cap, group_pays, n_codes):
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
                    f = factor[s, a]
                    for c in range(C):
                        q = H[g, i, r, a, c]
                        if q > 0.0:
                            Pn[nxt, update_code(mode[g], cap[g], code, c)] += v * q * f
        P, Pn = Pn, P
    for s in range(K):
        for code in range(n_codes):
            if P[s, code] > 0.0:
                total += P[s, code] * pay[s] * group_pays[g, code_count(mode[g], code)]
    return total
