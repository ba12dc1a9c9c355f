"""Ways pays: runs of a target on adjacent reels from reel 1, in any row, paid per way.

Rules (the exact engine, the simulator and the tests' evaluator implement the same):

- ways: for each paying target t (symbol or group, wilds included), its run r = number of
  leading reels (from reel 1) that show at least one symbol matching t (for a wild target:
  that wild symbol only); k = largest listed count <= r; if k > 0 it pays pay(t,k) x W,
  W = sum over all ways through reels 1..k (one matching position per reel) of the way's
  multiplier M (as above; for t a wild itself M=1 unless multiply_wild_only). With product:
  W = prod_i (sum over matching positions p on reel i of m(p)), m = 1 for non-wild positions.
  With sum: W = prod_i (c_i - mw_i) + sum_i M_i prod_{l != i} c_l (c_i matching positions,
  mw_i multiplier-wild positions, M_i sum of their multipliers).  Every target is paid
  independently (wild positions count for every target they substitute for).  A screen's
  "ways" in the PAR: prod of the reel heights (243 for 5x3).
- a symbol target matches itself and every wild substituting for it; a group target matches
  its members and every wild substituting for at least one member; a wild target matches
  only the same wild symbol.  The multiplier M of a way: ``combine = "product"``: the product
  of the multipliers of the wilds in it; ``"sum"``: the sum of the multipliers of its
  multiplier wilds (multiplier > 1), 1 if none.  A win of a wild's own paytable entry is x1
  unless ``multiply_wild_only``.
- every visible cell is one position (a tall symbol showing 2 rows is 2 positions).
- scatter groups ([scatters.*]) pay on top, by count, as with every rule.

Numeric form.  Each reel *outcome* (a height and the window it shows) is reduced, per
target t, to three integers: ``cnt`` (matching positions c), ``fa`` and ``fm``.  With
``product``: fa = sum over matching positions of m(p), fm = 0; with ``sum``: fa = c - mw,
fm = M.  Over reels 1..k, with A = prod fa, P = prod c and B <- B x c + P x fm (B = 0
before reel 1), W = A + B in both cases: with product fm = 0 so W = prod fa; with sum
this is the formula above.  :func:`ways_pay` runs that recurrence for one screen.

All amounts are integer pay units (:mod:`.scale`).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..model import Game
from .scale import PayScale
from .scatter import ScatterPayTables, code_count, update_code


@dataclass(frozen=True)
class WaysTargets:
    """The paying targets of a ways game (symbols in [symbols] order, then groups in
    [groups] order) and how each symbol id counts for them.

    ``matches[s, t]``: symbol id ``s`` is a matching position of target ``t`` (row
    ``n_symbols`` is a hidden cell of a short reel: never matches); ``mult[s, t]``: its
    multiplier m(p) for ``t`` (1 for non-wilds and, for a wild target, unless
    ``multiply_wild_only``; 0 where it does not match).  ``pay_units[t, r]``: pay units of
    a run of ``r`` reels (the pay of k(r)); ``record[t, r]``: ``r`` is a listed count with a
    pay (W is taken there); ``kmax[t]``: the largest such count; ``listed[t]``: those counts.
    """

    names: tuple
    is_group: tuple
    pays: tuple  # per target: {count: Fraction pay > 0} (line pay unit)
    listed: tuple  # per target: sorted counts with a pay > 0
    matches: np.ndarray
    mult: np.ndarray
    pay_units: np.ndarray
    record: np.ndarray
    kmax: np.ndarray
    combine: str
    n_reels: int

    @property
    def n_targets(self) -> int:
        return len(self.names)

    def count_of_run(self, t: int, run: int) -> int:
        """k(run): the largest listed count of target ``t`` not above ``run`` (0 if none)."""
        return max((k for k in self.listed[t] if k <= run), default=0)


def ways_targets(game: Game, scale: PayScale) -> WaysTargets:
    """The paying targets of ``game`` (see :class:`WaysTargets`)."""
    names = list(game.symbols)
    sym_order = {s: i for i, s in enumerate(names)}
    grp_order = {g: i for i, g in enumerate(game.groups)}
    paying = [t for t, p in game.paytable.items() if any(v > 0 for v in p.values())]
    paying.sort(key=lambda t: (0, sym_order[t]) if t in sym_order else (1, grp_order[t]))
    n = game.reels
    T = len(paying)
    matches = np.zeros((len(names) + 1, T), dtype=np.bool_)
    mult = np.zeros((len(names) + 1, T), dtype=np.int64)
    pay_units = np.zeros((T, n + 1), dtype=np.int64)
    record = np.zeros((T, n + 1), dtype=np.bool_)
    kmax = np.zeros(T, dtype=np.int64)
    pays, listed = [], []
    wild_only = game.pays.multiply_wild_only
    for t, target in enumerate(paying):
        group = game.groups.get(target) if target not in sym_order else None
        members = set(group) if group is not None else {target}
        target_is_wild = group is None and game.symbols[target].kind == "wild"
        for s, name in enumerate(names):
            sym = game.symbols[name]
            if target_is_wild:  # that wild (or a multiplier variant of a table wild listing it: exact.variants)
                hit = name == target or (sym.kind == "wild" and target in sym.substitutes)
            else:
                hit = name in members or (sym.kind == "wild" and bool(members & set(sym.substitutes)))
            if hit:
                matches[s, t] = True
                m = int(sym.multiplier) if sym.kind == "wild" else 1
                mult[s, t] = m if (not target_is_wild or wild_only) else 1
        table = {int(k): Fraction(v) for k, v in game.paytable[target].items() if v > 0 and int(k) <= n}
        counts = sorted(table)
        pays.append(table)
        listed.append(tuple(counts))
        for r in range(n + 1):
            ks = [k for k in counts if k <= r]
            if ks:
                pay_units[t, r] = scale.units(game.bet.credits(table[ks[-1]], game.bet.line_pay_unit))
        for k in counts:
            record[t, k] = True
        kmax[t] = counts[-1] if counts else 0
    return WaysTargets(
        names=tuple(paying),
        is_group=tuple(t not in sym_order for t in paying),
        pays=tuple(pays),
        listed=tuple(listed),
        matches=matches,
        mult=mult,
        pay_units=pay_units,
        record=record,
        kmax=kmax,
        combine=game.pays.combine,
        n_reels=n,
    )


def outcome_features(targets: WaysTargets, symbols: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``cnt``, ``fa``, ``fm`` (int64, outcomes x targets) of windows ``symbols``
    (outcomes x rows symbol ids, -1 for the hidden cells of a short reel)."""
    symbols = np.asarray(symbols, dtype=np.int64)
    n_out = symbols.shape[0]
    T = targets.n_targets
    hidden = targets.matches.shape[0] - 1
    ids = np.where(symbols < 0, hidden, symbols)
    cnt = np.zeros((n_out, T), dtype=np.int64)
    msum = np.zeros((n_out, T), dtype=np.int64)
    mw = np.zeros((n_out, T), dtype=np.int64)
    mwsum = np.zeros((n_out, T), dtype=np.int64)
    match = targets.matches.astype(np.int64)
    for r in range(ids.shape[1] if ids.ndim == 2 else 0):
        col = ids[:, r]
        cnt += match[col]
        m = targets.mult[col]
        msum += m
        big = m > 1
        mw += big
        mwsum += np.where(big, m, 0)
    if targets.combine == "product":
        return cnt, msum, np.zeros_like(cnt)
    return cnt, cnt - mw, mwsum


# ---------------------------------------------------------------------------
# the compiled form: one screen of reel outcomes
# ---------------------------------------------------------------------------
WaysTables = namedtuple(
    "WaysTables",
    [
        "pay",  # int64[T, n_reels + 1] pay units of a run of r reels
        "record",  # bool[T, n_reels + 1] r is a listed count: W is taken there
        "kmax",  # int64[T] largest listed count (the run is not followed further)
        "cnt",  # int64[n_sets, n_reels, max_outcomes, T] matching positions c
        "fa",  # int64[n_sets, n_reels, max_outcomes, T] product: sum of m(p); sum: c - mw
        "fm",  # int64[n_sets, n_reels, max_outcomes, T] product: 0; sum: M (sum of multipliers)
        "first_n",  # int64[n_sets, max_outcomes] targets matching on reel 1 in each of its outcomes
        "first_t",  # int64[n_sets, max_outcomes, T] those targets
        "sc",  # int64[n_sets, n_reels, max_outcomes, n_groups] counts of the paying scatter groups
        "mode",  # int64[n_groups] ANYWHERE / ADJACENT
        "cap",  # int64[n_groups]
        "gpay",  # int64[n_groups, max cap + 1] pay units by count
    ],
)


def ways_tables(targets: WaysTargets, tables: ScatterPayTables, sets: list) -> WaysTables:
    """The compiled form of the reel outcomes of some strip sets.

    ``sets[k][i]`` = ``(cnt, fa, fm, sc)`` of reel ``i`` of strip set ``k`` (outcomes in
    rows; ``sc``: counts of the paying scatter groups, ``tables.index`` order).
    """
    T = targets.n_targets
    n_sets = len(sets)
    n = targets.n_reels
    G = len(tables.index)
    width = max((len(reel[0]) for s in sets for reel in s), default=1)
    cnt = np.zeros((n_sets, n, width, T), dtype=np.int64)
    fa = np.zeros_like(cnt)
    fm = np.zeros_like(cnt)
    sc = np.zeros((n_sets, n, width, G), dtype=np.int64)
    first_n = np.zeros((n_sets, width), dtype=np.int64)
    first_t = np.zeros((n_sets, width, max(T, 1)), dtype=np.int64)
    for k, reels in enumerate(sets):
        for i, (c, a, m, g) in enumerate(reels):
            cnt[k, i, : len(c)] = c
            fa[k, i, : len(c)] = a
            fm[k, i, : len(c)] = m
            if G:
                sc[k, i, : len(c)] = g
        c0 = reels[0][0]
        for o in range(len(c0)):
            alive = np.flatnonzero((c0[o] > 0) & (targets.kmax > 0))
            first_n[k, o] = len(alive)
            first_t[k, o, : len(alive)] = alive
    return WaysTables(
        pay=targets.pay_units,
        record=targets.record,
        kmax=targets.kmax,
        cnt=cnt,
        fa=fa,
        fm=fm,
        first_n=first_n,
        first_t=first_t,
        sc=sc,
        mode=tables.mode,
        cap=tables.cap,
        gpay=tables.pays,
    )


@njit(cache=True, inline="always")
def ways_pay(wt, s, outs):
    """Ways pay (units) of the screen showing outcome ``outs[i]`` on reel ``i`` of strip set ``s``."""
    cnt = wt.cnt
    fa = wt.fa
    fm = wt.fm
    pay = wt.pay
    record = wt.record
    o0 = outs[0]
    total = np.int64(0)
    for j in range(wt.first_n[s, o0]):
        t = wt.first_t[s, o0, j]
        c = cnt[s, 0, o0, t]
        a = fa[s, 0, o0, t]
        b = fm[s, 0, o0, t]
        p = c
        r = 1
        w = a + b if record[t, 1] else np.int64(0)
        k = wt.kmax[t]
        while r < k:
            o = outs[r]
            c = cnt[s, r, o, t]
            if c == 0:
                break
            b = b * c + p * fm[s, r, o, t]
            a = a * fa[s, r, o, t]
            p = p * c
            r += 1
            if record[t, r]:
                w = a + b
        total += pay[t, r] * w
    return total


@njit(cache=True, inline="always")
def ways_group_pay(wt, s, outs, g):
    """Pay (units) of paying scatter group ``g`` (``tables.index`` order) on the screen ``outs``."""
    mode = wt.mode[g]
    cap = wt.cap[g]
    code = np.int64(0)
    for i in range(outs.shape[0]):
        code = update_code(mode, cap, code, wt.sc[s, i, outs[i], g])
    return wt.gpay[g, min(code_count(mode, code), cap)]
