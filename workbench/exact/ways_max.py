"""The max win of a ways game without the full cycle (:mod:`.ways`): upper bounds per node and a branch-and-bound
search.

At every node all children are bounded (paid so far + what each unbroken run can still pay with every later reel at
its largest factors + the scatter groups at their largest counts), visited best bound first and cut when the bound
cannot beat the best win found; the search stops after a node budget, then with the largest win found and the bound
at its root. Wins are in pay units."""

from __future__ import annotations


import numpy as np

from .._jit import njit


from ..pays.scatter import (ADJACENT, ScatterPayTables, code_count, update_code)
from ..pays.ways import WaysTargets


from .ways_outcomes import ReelOutcomes, _group_pay


# ---------------------------------------------------------------------------
# max win: upper bounds and branch and bound
# ---------------------------------------------------------------------------
def _bound_tables(targets: WaysTargets, tables: ScatterPayTables, reels: list[ReelOutcomes]):
    """Per target and depth d (reels done): what its unbroken run can still pay at most, as
    coefficients of (A, B, P) (see :mod:`workbench.pays.ways`), or -1 where it cannot reach a
    listed count beyond d; the per-group counts still to come; and the root bound (Python int)."""
    n = len(reels)
    T = targets.n_targets
    amax = [[int(r.fa[:, t].max(initial=0)) for t in range(T)] for r in reels]
    cmax = [[int(r.cnt[:, t].max(initial=0)) for t in range(T)] for r in reels]
    mmax = [[int(r.fm[:, t].max(initial=0)) for t in range(T)] for r in reels]
    UA = np.full((T, n + 1), -1, dtype=object)
    UC = np.zeros((T, n + 1), dtype=object)
    UM = np.zeros((T, n + 1), dtype=object)
    root = 0
    for t in range(T):
        for d in range(n + 1):
            reach = d
            while reach < n and cmax[reach][t] > 0:
                reach += 1
            kb = targets.count_of_run(t, reach)
            if kb <= d:
                continue
            ga = gc = 1
            gm = 0
            for i in range(d, kb):
                gm = gm * cmax[i][t] + gc * mmax[i][t]  # B' = B c + P m: P's coefficient in B
                ga *= amax[i][t]
                gc *= cmax[i][t]
            pay = int(targets.pay_units[t, kb])
            UA[t, d], UC[t, d], UM[t, d] = pay * ga, pay * gc, pay * gm
        if UA[t, 0] != -1:
            root += UA[t, 0] + UM[t, 0]
    G = len(tables.index)
    maxleft = np.zeros((G, n + 1), dtype=np.int64)
    for g in range(G):
        for d in range(n - 1, -1, -1):
            maxleft[g, d] = maxleft[g, d + 1] + int(reels[d].sc[:, g].max(initial=0))
        root += _group_pay(tables, g, int(min(maxleft[g, 0], tables.cap[g])) * (2 if tables.mode[g] == ADJACENT else 1))
    return UA, UC, UM, maxleft, root


@njit(cache=True, inline="always")
def _node_bound(wt, d, nl, lt, la, lb, lp, lw, paid, codes, UA, UC, UM, maxleft):
    """Upper bound of any spin below a node at depth ``d``: paid so far, what the unbroken runs
    can still pay, and the scatter groups with every later reel at its largest count."""
    bound = paid
    pay = wt.pay
    for j in range(nl):
        t = lt[j]
        if UA[t, d] >= 0:
            bound += la[j] * UA[t, d] + lb[j] * UC[t, d] + lp[j] * UM[t, d]
        else:
            bound += pay[t, d] * lw[j]
    for g in range(wt.gpay.shape[0]):
        code = codes[g]
        if wt.mode[g] == ADJACENT and code % 2 == 1:
            bound += wt.gpay[g, min(code // 2, wt.cap[g])]
        else:
            bound += wt.gpay[g, min(code_count(wt.mode[g], code) + maxleft[g, d], wt.cap[g])]
    return bound


@njit(cache=True, inline="always")
def _expand(wt, d, o, lt, la, lb, lp, lw, nl, paid, codes):
    """The node at depth ``d + 1`` reached by outcome ``o`` of reel ``d``: its unbroken runs, what
    the runs that ended have paid, the scatter codes."""
    cnt = wt.cnt
    pay = wt.pay
    record = wt.record
    kmax = wt.kmax
    k = 0
    inc = np.int64(0)
    for j in range(nl[d]):
        t = lt[d, j]
        c = cnt[0, d, o, t]
        if c == 0:
            inc += pay[t, d] * lw[d, j]
            continue
        b = lb[d, j] * c + lp[d, j] * wt.fm[0, d, o, t]
        a = la[d, j] * wt.fa[0, d, o, t]
        p = lp[d, j] * c
        r = d + 1
        w = a + b if record[t, r] else lw[d, j]
        if r >= kmax[t]:
            inc += pay[t, r] * w
            continue
        lt[d + 1, k] = t
        la[d + 1, k] = a
        lb[d + 1, k] = b
        lp[d + 1, k] = p
        lw[d + 1, k] = w
        k += 1
    nl[d + 1] = k
    paid[d + 1] = paid[d] + inc
    for g in range(wt.gpay.shape[0]):
        codes[d + 1, g] = update_code(wt.mode[g], wt.cap[g], codes[d, g], wt.sc[0, d, o, g])


@njit(cache=True)
def _max_search(wt, n_out, UA, UC, UM, maxleft, node_budget, out):
    """Largest spin win by branch and bound, children visited best bound first; ``out``
    receives [outcomes visited, stopped at the budget, bound at the root]."""
    n = n_out.shape[0]
    T = wt.pay.shape[0]
    G = wt.gpay.shape[0]
    width = max(T, 1)
    lt = np.zeros((n + 1, width), dtype=np.int64)
    la = np.zeros((n + 1, width), dtype=np.int64)
    lb = np.zeros((n + 1, width), dtype=np.int64)
    lp = np.zeros((n + 1, width), dtype=np.int64)
    lw = np.zeros((n + 1, width), dtype=np.int64)
    nl = np.zeros(n + 1, dtype=np.int64)
    paid = np.zeros(n + 1, dtype=np.int64)
    codes = np.zeros((n + 1, max(G, 1)), dtype=np.int64)
    for t in range(T):
        if wt.kmax[t] > 0:
            lt[0, nl[0]] = t
            la[0, nl[0]] = 1
            lp[0, nl[0]] = 1
            nl[0] += 1
    max_out = 1
    for i in range(n):
        max_out = max(max_out, n_out[i])
    child = np.zeros((n, max_out), dtype=np.int64)  # bound (or, on the last reel, the total) of each child
    order = np.zeros((n, max_out), dtype=np.int64)
    pos = np.zeros(n, dtype=np.int64)
    best = np.int64(-1)
    nodes = np.int64(0)
    out[1] = 0
    out[2] = _node_bound(wt, 0, nl[0], lt[0], la[0], lb[0], lp[0], lw[0], paid[0], codes[0], UA, UC, UM, maxleft)
    d = 0
    entering = True
    while True:
        if entering:
            # bound every child, visit them best first
            entering = False
            if node_budget > 0 and nodes >= node_budget:
                out[1] = 1
                break
            for o in range(n_out[d]):
                _expand(wt, d, o, lt, la, lb, lp, lw, nl, paid, codes)
                if d + 1 == n:
                    total = paid[n]  # every run has ended by the last reel
                    for g in range(G):
                        total += wt.gpay[g, min(code_count(wt.mode[g], codes[n, g]), wt.cap[g])]
                    child[d, o] = total
                    if total > best:
                        best = total
                else:
                    child[d, o] = _node_bound(wt, d + 1, nl[d + 1], lt[d + 1], la[d + 1], lb[d + 1], lp[d + 1], lw[d + 1],
                                              paid[d + 1], codes[d + 1], UA, UC, UM, maxleft)
            nodes += n_out[d]
            if d + 1 == n:
                pos[d] = n_out[d]
            else:
                order[d, : n_out[d]] = np.argsort(-child[d, : n_out[d]])
                pos[d] = 0
        if pos[d] >= n_out[d] or child[d, order[d, pos[d]]] <= best:
            if d == 0:
                break
            d -= 1
            pos[d] += 1
            continue
        _expand(wt, d, order[d, pos[d]], lt, la, lb, lp, lw, nl, paid, codes)
        d += 1
        entering = True
    out[0] = nodes
    return best


def spin_bound(targets: WaysTargets, tables: ScatterPayTables, reels: list[ReelOutcomes]) -> int:
    """An upper bound of the spin win in pay units (ways + paying scatter groups), as a Python int."""
    return int(_bound_tables(targets, tables, reels)[4])
