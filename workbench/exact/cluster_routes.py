"""Cluster pays on long strips: which column transfer over runs gives which exact figure.

:func:`transfer_by_runs` is what :func:`workbench.exact.cluster_transfer.transfer_analysis` calls when the runs can
hold the game (:func:`moment_route_applies`):

- one sweep per paying symbol (:func:`~.cluster_moments.moment_sums` over that symbol alone): its combinations
  (clusters and screens with one, per size band), its pay and pay^2;
- the sweep over the screens paying nothing (:mod:`.cluster_unpaid`): the hit frequency;
- the sweep over every symbol at once when it is small: the second moment and the max win exactly ("joint");
- else the second moment from the sweeps over each pair of symbols (scatter groups paying on the same screens are
  not split this way: then it is left out), the max win left out with its bound ("per symbol").

The sweeps run on the worker threads (their kernels release the GIL).  ``quick`` (the editors' figures at each edit)
keeps the symbols' own sweeps and a small joint sweep only.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from itertools import combinations
from threading import Lock

import numpy as np

from .._jit import get_num_threads
from ..errors import ExactBudgetError
from .cluster_moments import MAX_CAP, MAX_RUNS, moment_sums
from .cluster_runs import symbol_runs
from .transfer_tables import TRANSFER_STATES_MAX

MOMENT_WORK_MAX = 3_000_000  # the sweep over every symbol at once, tried first (about 0.15 s)
QUICK_WORK_MAX = 1_500_000  # the same for the editors' figures (quick=True)
JOINT_OVER_SINGLES = 4  # the joint sweep is not tried when its budget is under this x the symbols' own sweeps' steps
PAIR_WORK_MAX = 300_000_000  # the sweeps over each pair of symbols, together
SINGLE_WORK_MAX = 100_000_000  # one symbol's own sweep


def moment_route_applies(pays: np.ndarray, runs_of: list) -> bool:
    """Whether the sweeps over runs can hold the game: the largest listed size fits the fields and a window has
    at most :data:`MAX_RUNS` runs (``runs_of``: :func:`~.cluster_runs.symbol_runs`)."""
    if pays.shape[1] - 1 > MAX_CAP:
        return False
    return max((sum(len(runs) for runs in window) for reel in runs_of for window in reel), default=0) <= MAX_RUNS


def transfer_by_runs(where: str, reels: list, rows: int, pays: np.ndarray, combo_of: np.ndarray, n_combos: int,
                     cycle: int, upper: int, gmode: np.ndarray, gcap: np.ndarray, gpays: np.ndarray, *,
                     quick: bool = False, runs_of: list | None = None) -> dict:
    """The exact sums of one strip set by the sweeps over runs, as
    :func:`workbench.exact.cluster_transfer.transfer_analysis` returns them (it calls this when
    :func:`moment_route_applies`).

    One sweep per paying symbol (its combinations, pay and pay^2) and the sweep over the screens paying nothing
    (:mod:`.cluster_unpaid`) run on the worker threads; then the sweep over every symbol at once within
    :data:`MOMENT_WORK_MAX` steps, tried when :data:`JOINT_OVER_SINGLES` x the symbols' own steps fit that budget
    (``method`` "joint": the second moment and the max win exact), else the second moment from the pairs
    of symbols when no paying scatter group shares the screens (``method`` "per symbol", ``max_units`` None;
    ``square`` None when the pairs are over :data:`PAIR_WORK_MAX` steps, ``zero`` None when the screens paying
    nothing are over their budget).  ``quick`` (the editors' figures): the joint sweep within
    :data:`QUICK_WORK_MAX` steps, else neither the pairs nor the screens paying nothing (``square`` and ``zero``
    None)."""
    from .cluster_unpaid import UNPAID_WORK_MAX, unpaid_weight

    n_sym = pays.shape[0]
    paying = [s for s in range(n_sym) if (pays[s] > 0).any()]
    no_groups = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 1), np.int64))
    if runs_of is None:
        runs_of = symbol_runs(reels, rows)

    def single(s):
        include = np.zeros(n_sym, dtype=bool)
        include[s] = True
        own = sorted({int(c) for c in combo_of[s] if c >= 0})
        local = np.full(combo_of.shape, -1, dtype=np.int64)
        local[s] = [own.index(int(c)) if c >= 0 else -1 for c in combo_of[s]]
        out = moment_sums(where, reels, rows, pays, include, *no_groups, cycle, upper, work_max=SINGLE_WORK_MAX,
                          combo_of=local, n_combos=len(own), runs_of=runs_of)
        if out is None:
            raise ExactBudgetError(f"{where}: one symbol's clusters are over {SINGLE_WORK_MAX:,} steps or "
                                   f"{TRANSFER_STATES_MAX:,} states on a reel of the column transfer; simulate the game "
                                   "instead")
        return own, out

    with ThreadPoolExecutor(max_workers=max(1, get_num_threads())) as pool:
        unpaid = None if quick else pool.submit(unpaid_weight, reels, rows, pays, gmode, gcap, gpays, UNPAID_WORK_MAX,
                                                runs_of)
        singles = list(pool.map(single, paying))
        clusters, hits = [0] * n_combos, [0] * n_combos
        for own, out in singles:
            for i, c in enumerate(own):
                clusters[c] += out["clusters"][i]
                hits[c] += out["hits"][i]
        result = {"clusters": clusters, "hits": hits, "weight": cycle}
        # the sweep over every symbol at once within its (small) budget, unless the symbols' own sweeps already take
        # a good part of it (it holds each of their states, joined: JOINT_OVER_SINGLES x their steps at the least,
        # as measured on the gallery); the screens paying nothing are counted meanwhile, for the other route
        budget = QUICK_WORK_MAX if quick else MOMENT_WORK_MAX
        single_steps = sum(out["steps"] for _, out in singles)
        joint = None if JOINT_OVER_SINGLES * single_steps > budget else moment_sums(
            where, reels, rows, pays, np.ones(n_sym, dtype=bool), gmode, gcap, gpays, cycle, upper, work_max=budget,
            runs_of=runs_of)
        if joint is not None:
            zero = None if quick else unpaid.result()[0]
            if zero is not None and zero != joint["zero"]:
                raise ExactBudgetError(f"{where}: the two column transfers disagree on the screens paying nothing "
                                       f"({zero:,} and {joint['zero']:,})")
            result.update(pay=joint["pay"], square=joint["square"], max_units=joint["max_units"],
                          largest_layer=joint["largest_layer"], zero=joint["zero"], method="joint")
            return result
        pay = sum(out["pay"] for _, out in singles)
        if len(gmode):
            groups = moment_sums(where, reels, rows, pays, np.zeros(n_sym, dtype=bool), gmode, gcap, gpays, cycle,
                                 upper, work_max=SINGLE_WORK_MAX, runs_of=runs_of)
            if groups is None:
                raise ExactBudgetError(f"{where}: the scatter groups' column transfer is over {SINGLE_WORK_MAX:,} steps "
                                       f"or {TRANSFER_STATES_MAX:,} states on a reel; simulate the game instead")
            pay += groups["pay"]
        square = None if len(gmode) or quick else _pair_square(pool, where, reels, rows, pays, paying,
                                                               [out["square"] for _, out in singles], cycle, upper,
                                                               runs_of)
        result["zero"] = None if quick else unpaid.result()[0]
    result.update(pay=pay, square=square, max_units=None, largest_layer=None, method="per symbol")
    return result


def _pair_square(pool, where: str, reels: list, rows: int, pays: np.ndarray, paying: list, single_squares: list,
                 cycle: int, upper: int, runs_of: list) -> float | None:
    """The weight x pay^2 sum over the cycle from the sweeps over each pair of paying symbols and each symbol's own
    ``single_squares`` (see the module docstring), run on ``pool``; None when they pass :data:`PAIR_WORK_MAX` steps
    together."""
    if len(paying) < 2:
        return sum(single_squares)
    no_groups = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 1), np.int64))
    spent = [0]
    lock = Lock()

    def sweep(pair):
        with lock:
            left = PAIR_WORK_MAX - spent[0]
        if left <= 0:
            return None
        include = np.zeros(pays.shape[0], dtype=bool)
        include[list(pair)] = True
        out = moment_sums(where, reels, rows, pays, include, *no_groups, cycle, upper, work_max=left, runs_of=runs_of)
        if out is not None:
            with lock:
                spent[0] += out["steps"]
        return out

    # the pairs in reverse order: pay tables list the frequent low symbols last, and their pairs' sweeps are the
    # longest, so the threads finish together
    results = list(pool.map(sweep, list(combinations(paying, 2))[::-1]))
    if any(r is None for r in results) or spent[0] > PAIR_WORK_MAX:
        return None
    return sum(r["square"] for r in results) - (len(paying) - 2) * sum(single_squares)
