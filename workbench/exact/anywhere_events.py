"""The events of a pay-anywhere game (:mod:`.anywhere`): every paying symbol and scatter group as a counter over the
reels (its value per window, capped at its top listed count or at its lowest paying count), and the sets of events
that can pay together on one screen."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Game
from ..pays.anywhere import paying_symbols, window_symbol_counts
from ..pays.scale import PayScale
from ..pays.scatter import ADJACENT
from .windows import ReelWindows, lexicographic_keys


DEAD = 1 << 40  # deficit of a counter state that can never pay (an adjacent chain broken too early)


@dataclass(frozen=True)
class _Counters:
    """Counters of the events, padded to the most states: ``nxt[j, s, v]`` next state after a reel
    showing value ``v``; ``pay[j, s]`` pay units of final state ``s``; ``ok[j, s]`` it pays;
    ``defc[j, s]`` cells still needed to pay (0 for events that may share cells); ``defr[j, s]``
    count still needed (:data:`DEAD`: never pays)."""

    nxt: np.ndarray
    n_states: np.ndarray
    pay: np.ndarray
    ok: np.ndarray
    defc: np.ndarray
    defr: np.ndarray


@dataclass(frozen=True)
class _Events:
    """The paying symbols and groups that can pay on this strip set (see the module docstring)."""

    names: list  # "symbol:X" / "scatter:G"
    cell_weight: np.ndarray  # int64[E]: cells an event's lowest paying count surely uses (0: may share cells)
    vmax: np.ndarray  # int64[E]: largest value of one window
    top: _Counters  # counters capped at the top listed count
    thr: _Counters  # counters capped at the lowest paying count (pays unused)
    knapsack: list  # per event [(count, pay units)] of listed counts with pay > 0 it can reach
    # every event pays from its lowest paying count on (no band with an upper end): a state that pays stays paying
    monotone: bool = True


def _counter(kind: int, cap: int, vmax: int, pay_by_count: np.ndarray, low: int, weighted: bool, threshold: bool):
    """Tables of one counter capped at ``cap`` (see :class:`_Counters`)."""
    if kind == ADJACENT:
        n = 2 * (cap + 1)
        nxt = np.zeros((n, vmax + 1), dtype=np.int64)
        for code in range(n):
            for v in range(vmax + 1):
                if code % 2 == 1:
                    nxt[code, v] = code
                elif v == 0:
                    nxt[code, v] = code + 1
                else:
                    nxt[code, v] = 2 * min(code // 2 + v, cap)
        counts = np.arange(n) // 2
        dead = (np.arange(n) % 2 == 1) & (counts < low)
    else:
        n = cap + 1
        nxt = np.minimum(np.arange(n)[:, None] + np.arange(vmax + 1)[None, :], cap).astype(np.int64)
        counts = np.arange(n)
        dead = np.zeros(n, dtype=bool)
    pay = pay_by_count[np.minimum(counts, len(pay_by_count) - 1)].astype(np.int64)
    ok = counts >= low if threshold else pay > 0
    deficit = np.maximum(low - counts, 0)
    defr = np.where(dead, DEAD, deficit).astype(np.int64)
    defc = (deficit if weighted else np.zeros(n)).astype(np.int64)
    return nxt, (np.zeros(n, dtype=np.int64) if threshold else pay), ok, defc, defr


def _pack(counters: list, vmax_all: int) -> _Counters:
    E = len(counters)
    S = max([c[0].shape[0] for c in counters], default=1)
    nxt = np.zeros((E, S, vmax_all + 1), dtype=np.int64)
    pay = np.zeros((E, S), dtype=np.int64)
    ok = np.zeros((E, S), dtype=np.bool_)
    defc = np.zeros((E, S), dtype=np.int64)
    defr = np.full((E, S), DEAD, dtype=np.int64)
    n_states = np.zeros(E, dtype=np.int64)
    for j, (t, p, o, dc, dr) in enumerate(counters):
        n = t.shape[0]
        nxt[j, :n, : t.shape[1]] = t
        pay[j, :n] = p
        ok[j, :n] = o
        defc[j, :n] = dc
        defr[j, :n] = dr
        n_states[j] = n
    return _Counters(nxt, n_states, pay, ok, defc, defr)


def _reel_values(game: Game, windows: list[ReelWindows], ids: np.ndarray, group_index: np.ndarray):
    """Per reel: merged window values (paying symbol cells, paying group counts) and weights."""
    vals, weights = [], []
    for win in windows:
        keep = win.weights > 0
        sym = window_symbol_counts(win.symbols[keep], ids)
        grp = win.counts[keep][:, group_index].astype(np.int64)
        v = np.concatenate([sym, grp], axis=1)
        w = win.weights[keep]
        if v.shape[1] and len(v):
            keys = lexicographic_keys([v[:, c] for c in range(v.shape[1])])
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1)
            merged = np.zeros(len(first), dtype=np.int64)
            np.add.at(merged, inverse, w)
            v, w = v[first], merged
        elif len(v):
            v, w = v[:1], np.array([int(w.sum())], dtype=np.int64)
        vals.append(np.ascontiguousarray(v, dtype=np.int64))
        weights.append(np.asarray(w, dtype=np.int64))
    return vals, weights


def _events(game: Game, scale: PayScale, vals: list, n_sym: int, sym_pays: np.ndarray, tables) -> tuple[_Events, list]:
    """The events that can pay (see :class:`_Events`) and their columns among the reel values."""
    names = paying_symbols(game)
    groups = list(game.scatters.values())
    n_cols = n_sym + len(tables.index)
    col_max = [max((int(v[:, c].max()) if len(v) else 0) for v in vals) for c in range(n_cols)]
    reach = [sum((int(v[:, c].max()) if len(v) else 0) for v in vals) for c in range(n_cols)]
    specs = []  # (column, kind, pays by count, listed counts, members, is_symbol, name)
    for j, name in enumerate(names):
        specs.append((j, 0, sym_pays[j], sorted(game.paytable[name]), {name}, True, f"symbol:{name}"))
    for g, gi in enumerate(tables.index):
        group = groups[int(gi)]
        specs.append((n_sym + g, int(tables.mode[g]), tables.pays[g], sorted(group.pays), set(group.symbols), False,
                      f"scatter:{group.name}"))
    chosen = []
    for col, kind, pays, listed, members, is_symbol, name in specs:
        paying = [k for k in listed if pays[min(k, len(pays) - 1)] > 0]
        if not paying or paying[0] > reach[col]:
            continue  # never pays on this strip set
        chosen.append((col, kind, pays, listed, members, is_symbol, name, paying[0]))
    symbol_members = set().union(*[c[4] for c in chosen if c[5]]) if chosen else set()
    top, thr, weights, knap = [], [], [], []
    all_monotone = True
    for col, kind, pays, listed, members, is_symbol, name, low in chosen:
        others = set().union(*[c[4] for c in chosen if c[6] != name and not c[5]]) if chosen else set()
        independent = is_symbol or not (members & symbol_members or members & others)
        weights.append(low if independent else 0)
        cap = min(listed[-1], reach[col])
        top.append(_counter(kind, cap, col_max[col], pays, low, independent, False))
        # a band's upper end no screen reaches (count above the reach) leaves the counter monotone
        monotone = all(pays[min(k, len(pays) - 1)] > 0 for k in listed if low <= k <= reach[col])
        all_monotone = all_monotone and monotone
        thr.append(_counter(kind, low, col_max[col], pays, low, independent, True) if monotone else top[-1])
        knap.append([(k, int(pays[min(k, len(pays) - 1)])) for k in listed if k <= reach[col] and pays[min(k, len(pays) - 1)] > 0])
    vmax_all = max(col_max, default=0)
    ev = _Events(
        names=[c[6] for c in chosen],
        cell_weight=np.array(weights, dtype=np.int64),
        vmax=np.array([col_max[c[0]] for c in chosen], dtype=np.int64),
        top=_pack(top, vmax_all),
        thr=_pack(thr, vmax_all),
        knapsack=knap,
        monotone=all_monotone,
    )
    return ev, [c[0] for c in chosen]


def _event_sets(ev: _Events, cells: int, limit: int) -> tuple[list, bool]:
    """The sets of events that can pay together: (sets, complete).  When there are more than
    ``limit``, the sets listed are every set of one or two events only (complete False)."""
    E = len(ev.names)
    out: list[tuple] = []
    w = ev.cell_weight.tolist()

    def grow(prefix: tuple, used: int, start: int) -> bool:
        for j in range(start, E):
            u = used + w[j]
            if u <= cells:
                out.append(prefix + (j,))
                if len(out) > limit or not grow(prefix + (j,), u, j + 1):
                    return False
        return True

    if grow((), 0, 0):
        return out, True
    pairs = [(j,) for j in range(E)] + [(j, k) for j in range(E) for k in range(j + 1, E) if w[j] + w[k] <= cells]
    return pairs, False
