"""Exact whole-spin statistics without enumerating the cycle.

Lines share reels, so the spin's variance, hit frequency and maximum need
more than per-line results.  Each is computed exactly, by the cheapest route:

- second moment: ``E[T^2] = sum_l,m E[X_l X_m] + 2 sum_l E[X_l Y] + E[Y^2]``
  (``X_l`` line pays, ``Y`` scatter pays).  ``E[X_l X_m]`` runs the product of
  two line automata over the reels, using each reel's joint distribution of
  the two rows the lines read; symbols that move an automaton state to the same
  next state form one class, and the largest class is handled by subtraction,
  so a step costs a few operations.
- hit frequency: ``1 - P(nothing pays)``; only paths on which nothing has paid
  yet are followed (states: undecided lines and scatter counts), which leaves
  very few states after the first reels.
- maximum: the branch-and-bound walk of :mod:`.enumerate`.

With multiplier wilds the line automaton keeps the multiplier read so far in
its states; the float moments (line futures, line pairs, line x scatter) run
on :func:`scaled_automaton` instead, where states whose pays differ only by
that multiplier are one and the multiplier rides on the steps as an integer
factor (exactly the same pays on every path; only the float sums' rounding
can differ, in the last bits).  Counts, the hit frequency and the maximum use
the line automaton itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .._jit import njit, prange

from ..errors import ExactBudgetError
from ..model import Game, StripSet
from ..pays.lines import LineAutomaton
from ..pays.scale import PayScale
from ..pays.scatter import ScatterPayTables, code_count, scatter_pay_tables, update_code
from .enumerate import MAX_SEARCH_NODES, max_spin_search
from .windows import ReelWindows, lexicographic_keys

# Budgets of the whole-spin moments (checked before the work starts, see check_moment_budget).
TABLE_FLOATS_MAX = 1 << 25  # each probability table (joint rows, rows x scatter counts, line futures): 256 MB of floats
PAIR_WORK_MAX = 100_000_000_000  # inner steps of the line-pair products (an upper bound of them)
PAIR_MEMORY_MAX = 1 << 30  # bytes of the pair products' work arrays (33 bytes x states^2 per parallel chunk)
LINE_SCATTER_WORK_MAX = 20_000_000_000  # steps of the line x scatter-group products
JOINT_WORK_MAX = 500_000_000  # windows x rows^2 summed into the joint row tables
LINE_PAIRS_MAX = 1 << 20  # pairs of paylines (lines x (lines - 1) / 2)
UNPAID_STEP_MAX = 100_000_000  # (unpaid paths + their undecided lines) x windows of one reel (hit frequency)
SCATTER_JOINT_MAX = 5_000_000  # joint scatter codes x count vectors x groups of one reel (plain Python)
PAIR_CHUNK_BYTES = 33  # bytes per (state, state) entry of one chunk's work arrays in _pair_products


@dataclass(frozen=True)
class SpinMoments:
    """Moments of the whole-spin win in pay units (probability-weighted).

    ``max_units`` is the largest spin win; when the search for it stopped at its
    budget (``max_exact`` False) it is the largest win found and the maximum is
    at most ``max_upper``.
    """

    mean: float
    second: float
    hit: float
    max_units: int
    max_exact: bool = True
    max_upper: int | None = None
    max_nodes: int = 0  # windows the max-win search visited


@dataclass(frozen=True)
class RuleAnalysis:
    """Exact results of a ways or scatter_pays strip set (``exact.ways``, ``exact.anywhere``): integer counts
    and pay units over its cycle, the whole-spin moments and, when the full cycle fits, its histogram."""

    combinations: tuple  # each paying (target, count) outcome (Combination)
    combo_hits: tuple  # weighted number of screens over the cycle where it pays (ints)
    combo_units: tuple  # total pay units it pays over the cycle (ways x pay x M) (ints)
    cycle: int  # total weight of the strip set's screens
    windows: list  # per reel ReelWindows (with heights: the union over heights)
    moments: SpinMoments  # whole spin including scatter-group pays
    histogram: np.ndarray | None  # hist[u] = weight of spins paying u units (incl. scatter pays)
    cycle_note: str | None  # why the histogram was not computed


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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


# ---------------------------------------------------------------------------
# the moments' automaton with multipliers as weights
# ---------------------------------------------------------------------------
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

_SCALED: dict = {}


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


@njit(cache=True)
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


@njit(cache=True)
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


# ---------------------------------------------------------------------------
# P(nothing pays): follow unpaid paths only
# ---------------------------------------------------------------------------
@njit(cache=True)
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


@njit(cache=True)
def _unpaid_step(ptr, lline, lstate, codes, prob, win_sym, win_cnt, win_p, reel, line_rows,
                 trans, gain, live, mode, cap):
    """One reel of the unpaid-path recursion: keep only transitions that pay nothing."""
    n_states = ptr.shape[0] - 1
    n_groups = codes.shape[1]
    n_lines = line_rows.shape[0]
    n_win = win_sym.shape[0]
    cap_t = 1024
    table = np.full(cap_t, -1, dtype=np.int64)
    keys = np.zeros(cap_t, dtype=np.uint64)
    size = 256
    nnz_cap = 1024
    nptr = np.zeros(size + 1, dtype=np.int64)
    nline = np.empty(nnz_cap, dtype=np.int32)
    nstate = np.empty(nnz_cap, dtype=np.int32)
    ncodes = np.empty((size, n_groups), dtype=np.int64)
    nprob = np.empty(size)
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
        for w in range(n_win):
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
                nprob[direct[key]] += pa * win_p[w]
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
                    t3 = np.empty(size)
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
                nprob[idx] = 0.0
                table[slot] = idx
                keys[slot] = h
                if k == 0 and key < direct.shape[0]:
                    direct[key] = idx
            nprob[idx] += pa * win_p[w]
    return nptr[: count + 1].copy(), nline[:nnz].copy(), nstate[:nnz].copy(), ncodes[:count].copy(), nprob[:count].copy()


# ---------------------------------------------------------------------------
# putting it together
# ---------------------------------------------------------------------------
def distinct_line_pairs(game: Game, strip_set: StripSet) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of lines (l < m) with distinct E[X_l X_m], and how many pairs each stands for.

    On an unweighted strip the joint distribution of two rows depends only on
    their distance (every stop is equally likely), and swapping the two lines
    changes nothing, so many pairs share one value.  Each distinct pair is
    represented by its first (l, m) in the order l, then m; pairs are listed in
    that order of first appearance.
    """
    n_lines = len(game.paylines)
    empty = (np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    if n_lines < 2:
        return empty
    lines = np.asarray(game.paylines, dtype=np.int64).reshape(n_lines, game.reels)
    weighted = np.array([strip.weights is not None for strip in strip_set.reels])
    pl, pm = np.triu_indices(n_lines, 1)
    rl, rm = lines[pl], lines[pm]
    offset = int(max(game.rows))  # shifts differences (-rows, rows) to non-negative codes, keeping their order
    # the pair's reading of each reel, as (first, second): both rows on a weighted reel, (0, distance) otherwise
    a = np.empty((len(pl), 2 * game.reels), dtype=np.int64)
    b = np.empty_like(a)
    a[:, 0::2] = np.where(weighted, rl, 0) + offset
    a[:, 1::2] = np.where(weighted, rm, rm - rl) + offset
    b[:, 0::2] = np.where(weighted, rm, 0) + offset
    b[:, 1::2] = np.where(weighted, rl, rl - rm) + offset
    # the smaller of the two readings, compared lexicographically
    differ = a != b
    first = np.argmax(differ, axis=1)
    rows = np.arange(len(pl))
    take_b = differ[rows, first] & (b[rows, first] < a[rows, first])
    key_cols = np.where(take_b[:, None], b, a)
    key = lexicographic_keys([key_cols[:, c] for c in range(key_cols.shape[1])])
    _, first_at, counts = np.unique(key, return_index=True, return_counts=True)
    order = np.argsort(first_at, kind="stable")
    at = first_at[order]
    return pl[at].astype(np.int32), pm[at].astype(np.int32), counts[order].astype(float)


def _joint_row_tables(game: Game, windows: list[ReelWindows], n_symbols: int) -> tuple[np.ndarray, np.ndarray]:
    """J[i, ra, rb, a, b]: probability that reel i shows a at row ra and b at row rb; R[i, r, a] for one row.

    (``np.bincount`` adds the windows in order into zeros, like ``np.add.at``, so the
    sums are the same to the last bit.)
    """
    rows = max(game.rows)
    S = n_symbols
    J = np.zeros((game.reels, rows, rows, S, S))
    R = np.zeros((game.reels, rows, S))
    for i, win in enumerate(windows):
        p = win.weights / float(win.total_weight)
        sym = win.symbols.astype(np.int64)
        for ra in range(game.rows[i]):
            R[i, ra] = np.bincount(sym[:, ra], weights=p, minlength=S)
            for rb in range(game.rows[i]):
                J[i, ra, rb] = np.bincount(sym[:, ra] * S + sym[:, rb], weights=p, minlength=S * S).reshape(S, S)
    return J, R


def depth_layers(automaton: LineAutomaton) -> list[np.ndarray]:
    """Live automaton states by depth: ``layers[i]`` are the states a line can be in before reel ``i``."""
    layers = []
    current = np.array([0] if automaton.live[0] else [], dtype=np.int64)
    for _ in range(automaton.n_reels):
        layers.append(current)
        nxt = np.unique(automaton.trans[current].ravel()) if len(current) else current
        current = nxt[automaton.live[nxt]]
    return layers


@dataclass(frozen=True)
class MomentPlan:
    """What :func:`check_moment_budget` found: the distinct line pairs, how many
    parallel chunks of the pair products fit the memory budget, and an upper
    bound of the steps of the products (for budgets over several strip sets)."""

    pairs: tuple
    pair_chunks: int
    work: int = 0


def check_moment_budget(game: Game, strip_set: StripSet, windows: list[ReelWindows], automaton: LineAutomaton,
                        classes: "SymbolClasses", tables: ScatterPayTables) -> MomentPlan:
    """Sizes of the whole-spin moments of ``strip_set``, computed before any of the work.

    Raises :class:`~workbench.errors.ExactBudgetError` naming the first table or
    product over its budget (the module's ``*_MAX`` constants), its size and the limit.
    """
    where = f"{game.name}: strip set {strip_set.name!r}"

    def refuse(what: str, size: int, limit: int) -> None:
        raise ExactBudgetError(f"{where}: {what} {size:,}, over the budget of {limit:,}")

    S = automaton.trans.shape[1]
    K = automaton.n_states
    rows = max(game.rows)
    reels = game.reels
    n_lines = len(game.paylines)
    n_groups = len(tables.index)
    joint = reels * rows * rows * S * S
    if joint > TABLE_FLOATS_MAX:
        refuse(f"the joint row table ({reels} reels x {rows}^2 rows x {S}^2 symbols) has", joint, TABLE_FLOATS_MAX)
    joint_work = sum(r * (r + n_groups) * len(w.weights) for r, w in zip(game.rows, windows))
    if joint_work > JOINT_WORK_MAX:
        refuse("the joint row and scatter tables sum windows x rows x (rows + paying groups) =", joint_work, JOINT_WORK_MAX)
    futures = n_lines * (reels + 1) * K
    if futures > TABLE_FLOATS_MAX:
        refuse(f"the line futures ({n_lines} lines x {reels + 1} x {K} states) have", futures, TABLE_FLOATS_MAX)
    layers = depth_layers(automaton)
    live_steps = sum(len(layer) for layer in layers) * S
    if n_lines * live_steps > PAIR_WORK_MAX:
        refuse(f"the line futures ({n_lines} lines x {live_steps:,} live state steps) take", n_lines * live_steps, PAIR_WORK_MAX)
    all_pairs = n_lines * (n_lines - 1) // 2
    if all_pairs > LINE_PAIRS_MAX:
        refuse(f"{n_lines:,} paylines make pairs:", all_pairs, LINE_PAIRS_MAX)
    pairs = distinct_line_pairs(game, strip_set) if n_lines > 1 else None
    chunks = 1
    total_work = n_lines * live_steps
    if pairs is not None:
        n_cls = np.diff(classes.cls_ptr).astype(np.int64)
        # members of each state's explicit classes (mem_ptr has one entry per class and one more)
        n_mem = np.diff(classes.mem_ptr.astype(np.int64)[classes.cls_ptr])
        per_state = 1 + n_cls + n_mem
        per_pair = sum(int(per_state[layer].sum()) ** 2 for layer in layers)
        work = len(pairs[0]) * per_pair
        total_work += work
        if work > PAIR_WORK_MAX:
            refuse(f"the products of {len(pairs[0]):,} distinct line pairs ({K:,} automaton states) take up to", work,
                   PAIR_WORK_MAX)
        per_chunk = PAIR_CHUNK_BYTES * K * K + 40 * (S + 1)
        chunks = int(PAIR_MEMORY_MAX // per_chunk)
        if chunks < 1:
            refuse(f"the line-pair products need per chunk ({K:,} automaton states) bytes:", per_chunk, PAIR_MEMORY_MAX)
    if n_groups:
        C = int(max(int(w.counts.max()) if w.counts.size else 0 for w in windows)) + 1
        h = n_groups * reels * rows * S * C
        if h > TABLE_FLOATS_MAX:
            refuse(f"the row x scatter-count table ({n_groups} groups x {reels} reels x {rows} rows x {S} symbols x {C} counts) has",
                   h, TABLE_FLOATS_MAX)
        n_codes = tables.n_codes
        work = n_lines * n_groups * (reels * (K * n_codes + n_codes * C * S) + sum(len(l) for l in layers) * n_codes * S * C)
        total_work += work
        if work > LINE_SCATTER_WORK_MAX:
            refuse(f"the products of {n_lines} lines and {n_groups} paying scatter groups take up to", work,
                   LINE_SCATTER_WORK_MAX)
    return MomentPlan(pairs=pairs, pair_chunks=chunks, work=total_work)


def _scatter_only_moments(tables: ScatterPayTables, windows: list[ReelWindows], where: str = "") -> tuple[float, float]:
    """E[Y] and E[Y^2] of the scatter pays (joint over all paying groups); ``where`` starts
    the message of the :class:`~workbench.errors.ExactBudgetError` raised when the joint
    codes exceed :data:`SCATTER_JOINT_MAX`."""
    if not len(tables.index):
        return 0.0, 0.0
    layer = {tuple([0] * len(tables.index)): 1.0}
    for reel, win in enumerate(windows):
        counts = win.counts[:, tables.index]
        p = win.weights / float(win.total_weight)
        dist: dict = {}
        for row, q in zip(map(tuple, counts.tolist()), p.tolist()):
            dist[row] = dist.get(row, 0.0) + q
        steps = len(layer) * len(dist) * len(tables.index)
        if steps > SCATTER_JOINT_MAX:
            raise ExactBudgetError(
                f"{where}the joint scatter counts of {len(tables.index)} paying groups on reel {reel + 1}: {len(layer):,} codes x "
                f"{len(dist):,} count vectors x groups = {steps:,} steps, over the budget of {SCATTER_JOINT_MAX:,}")
        nxt: dict = {}
        for code, v in layer.items():
            for cnt, q in dist.items():
                new = tuple(int(update_code(int(tables.mode[g]), int(tables.cap[g]), code[g], cnt[g])) for g in range(len(code)))
                nxt[new] = nxt.get(new, 0.0) + v * q
        layer = nxt
    mean = second = 0.0
    for code, v in layer.items():
        y = sum(int(tables.pays[g, int(code_count(int(tables.mode[g]), c))]) for g, c in enumerate(code))
        mean += v * y
        second += v * y * y
    return mean, second


def spin_moments(
    game: Game,
    strip_set: StripSet,
    windows: list[ReelWindows],
    automaton: LineAutomaton,
    scale: PayScale,
    line_moments: np.ndarray,
    classes: SymbolClasses,
    future: np.ndarray,
    plan: MomentPlan | None = None,
    max_nodes: int = MAX_SEARCH_NODES,
) -> SpinMoments:
    """Exact mean, second moment, hit probability and maximum of the spin win (pay units).

    ``line_moments[l]`` = (hits, sum of pay, sum of pay^2) of line ``l`` over the
    cycle (exact per-line results), used for the diagonal terms.  ``plan`` is
    :func:`check_moment_budget`'s result (computed here when not given); the
    max-win search stops after about ``max_nodes`` windows (then the maximum is
    given with bounds, see :class:`SpinMoments`).  Raises
    :class:`~workbench.errors.ExactBudgetError` when a part is over its budget.
    """
    tables = scatter_pay_tables(game, scale)
    if plan is None:
        plan = check_moment_budget(game, strip_set, windows, automaton, classes, tables)
    n_lines = len(game.paylines)
    line_rows = np.asarray(game.paylines, dtype=np.int32).reshape(n_lines, game.reels)
    cycle = strip_set.cycle
    pay = automaton.pay_units.astype(float)
    n_symbols = automaton.trans.shape[1]
    J, R = _joint_row_tables(game, windows, n_symbols)
    # multipliers as weights: fewer states for the float moments (None: no state merges, the automaton as it is)
    scaled = scaled_automaton_cached(automaton)
    if scaled is not None and game.reels * max(game.rows) ** 2 * (len(scaled.unique_ptr) - 1) ** 2 * 4 > SCALED_TABLE_FLOATS:
        scaled = None

    line_mean = sum(int(x) for x in line_moments[:, 1]) / cycle
    line_second = sum(int(x) for x in line_moments[:, 2]) / cycle
    if n_lines > 1:
        pair_l, pair_m, multiplicity = plan.pairs
        if scaled is not None:
            V = _scaled_line_futures(line_rows, R, scaled.trans, scaled.factor, scaled.live, scaled.pay)
            sc = scaled.classes
            RU, RW, Q = _class_tables(J, R, scaled.unique_ptr, scaled.unique_members, scaled.unique_factor)
            cross = _scaled_pair_products(pair_l, pair_m, line_rows, RU, RW, Q, V, scaled.pay, scaled.live, sc.default_next,
                                          sc.cls_ptr, sc.cls_next, scaled.class_unique, scaled.default_factor,
                                          plan.pair_chunks)
        else:
            V = _line_futures(line_rows, R, automaton.trans, automaton.live, pay)
            cross = _pair_products(pair_l, pair_m, line_rows, J, R, V, pay, automaton.live,
                                   classes.default_next, classes.cls_ptr, classes.cls_next, classes.mem_ptr, classes.members,
                                   plan.pair_chunks)
        line_second += 2.0 * float(cross @ multiplicity)

    y_mean, y_second = _scatter_only_moments(tables, windows, f"{game.name}: strip set {strip_set.name!r}: ")
    line_y = 0.0
    n_groups = len(tables.index)
    if n_groups:
        C = int(max(int(w.counts.max()) if w.counts.size else 0 for w in windows)) + 1
        H = np.zeros((n_groups, game.reels, max(game.rows), n_symbols, C))
        for i, win in enumerate(windows):
            p = win.weights / float(win.total_weight)
            sym = win.symbols.astype(np.int64)
            for g, gi in enumerate(tables.index):
                cnt = win.counts[:, gi].astype(np.int64)
                for r in range(game.rows[i]):
                    # in window order into zeros, as np.add.at would: the same sums to the last bit
                    H[g, i, r] = np.bincount(sym[:, r] * C + cnt, weights=p, minlength=n_symbols * C).reshape(n_symbols, C)
        if scaled is not None:
            products = _scaled_line_scatter_products(line_rows, H, scaled.trans, scaled.factor, scaled.live, scaled.pay,
                                                     tables.mode, tables.cap, tables.pays, tables.n_codes)
        else:
            products = _line_scatter_products(line_rows, H, automaton.trans, automaton.live, pay, tables.mode, tables.cap,
                                              tables.pays, tables.n_codes)
        line_y = float(products.sum())

    # hit frequency: probability that nothing pays
    live0 = bool(automaton.live[0])
    ptr = np.array([0, n_lines if live0 else 0], dtype=np.int64)
    lline = np.arange(n_lines, dtype=np.int32) if live0 else np.zeros(0, np.int32)
    lstate = np.zeros(len(lline), dtype=np.int32)
    codes = np.zeros((1, n_groups), dtype=np.int64)
    prob = np.ones(1)
    for reel, win in enumerate(windows):
        keep = win.weights > 0
        steps = (len(prob) + len(lline)) * int(keep.sum())
        if steps > UNPAID_STEP_MAX:
            raise ExactBudgetError(
                f"{game.name}: strip set {strip_set.name!r}: hit frequency: {len(prob):,} unpaid paths ({len(lline):,} "
                f"undecided lines) x {int(keep.sum()):,} windows of reel {reel + 1} = {steps:,} steps, over the budget of "
                f"{UNPAID_STEP_MAX:,}")
        cnt = np.ascontiguousarray(win.counts[keep][:, tables.index]) if n_groups else np.zeros((int(keep.sum()), 0), np.int64)
        ptr, lline, lstate, codes, prob = _unpaid_step(
            ptr, lline, lstate, codes, prob, np.ascontiguousarray(win.symbols[keep]), cnt,
            win.weights[keep] / float(win.total_weight), reel, line_rows, automaton.trans, automaton.gain, automaton.live,
            tables.mode, tables.cap,
        )
    nothing = 0.0
    for s in range(len(prob)):
        y = sum(int(tables.pays[g, int(code_count(int(tables.mode[g]), int(codes[s, g])))]) for g in range(n_groups))
        if y == 0:
            nothing += prob[s]

    search = max_spin_search(game, windows, automaton, tables, line_rows, future, max_nodes)
    mean = line_mean + y_mean
    second = line_second + 2.0 * line_y + y_second
    return SpinMoments(mean=mean, second=second, hit=1.0 - nothing, max_units=search.best, max_exact=search.exact,
                       max_upper=search.upper, max_nodes=search.nodes)
