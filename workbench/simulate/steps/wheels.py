"""A wheel award: segments paying cash, free spins or meter spins, a segment that spins the wheel again, and
"a cash prize cannot repeat within one award".

One award is one or more spins of the wheel.  Each spin draws a segment by weight among those not excluded; a
``cash`` segment pays its value (pay units) to component ``comp``; ``free_spins`` and ``meter_spins`` segments add
to the spins the award returns; a segment with ``again`` (a ``respin`` segment always) spins the wheel once more.
Without ``repeat_cash`` every segment showing a cash value already won in this award is excluded from its later
spins.  The award ends on a segment without ``again``, when every segment of weight is excluded, or after
``max_spins`` spins (the safety maximum: counted).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._jit import njit
from ..rng import weighted_index
from .tables import draw_table_excluding

CASH, FREE_SPINS, METER_SPINS, RESPIN = range(4)
AWARD_KINDS = {"cash": CASH, "free_spins": FREE_SPINS, "meter_spins": METER_SPINS, "respin": RESPIN}
# counters an award books, from the index the round gives: awards, wheel spins, awards ended by ``max_spins``
AWARDS, WHEEL_SPINS, WHEEL_LIMIT = range(3)

# kind int64[segments] (AWARD_KINDS), value int64[segments] (cash: pay units; spins: a count), again bool[segments],
# weights int64[segments], excluded bool[segments] (scratch), repeat_cash, max_spins, on_retrigger (bools / int64),
# comp: the component cash pays to.  No segments: the game has no wheel.
WheelParams = namedtuple("WheelParams", ["kind", "value", "again", "weights", "excluded", "repeat_cash", "max_spins",
                                         "on_retrigger", "comp"])


def no_wheel() -> WheelParams:
    """The record of a game without a wheel (same types as a wheel's, no segments)."""
    return WheelParams(kind=np.zeros(0, dtype=np.int64), value=np.zeros(0, dtype=np.int64),
                       again=np.zeros(0, dtype=np.bool_), weights=np.zeros(0, dtype=np.int64),
                       excluded=np.zeros(0, dtype=np.bool_), repeat_cash=True, max_spins=np.int64(0),
                       on_retrigger=False, comp=np.int64(-1))


@njit
def spin_wheel(w, rng, amounts, counters, at):
    """Play one wheel award: pays its cash to ``amounts[w.comp]``, books counters ``at + AWARDS ..``; returns
    (free spins, meter spins) it awards."""
    excluded = w.excluded
    for i in range(excluded.shape[0]):
        excluded[i] = False
    counters[at + AWARDS] += 1
    spins = 0
    meter = 0
    for _ in range(w.max_spins):
        seg = draw_table_excluding(w.weights, excluded, rng)
        if seg < 0:  # every segment of weight already won: nothing left to spin for
            return spins, meter
        counters[at + WHEEL_SPINS] += 1
        kind = w.kind[seg]
        if kind == CASH:
            amounts[w.comp] += w.value[seg]
            if not w.repeat_cash:  # every segment showing this prize is out for the rest of the award
                for i in range(excluded.shape[0]):
                    if w.kind[i] == CASH and w.value[i] == w.value[seg]:
                        excluded[i] = True
        elif kind == FREE_SPINS:
            spins += w.value[seg]
        elif kind == METER_SPINS:
            meter += w.value[seg]
        if not w.again[seg]:
            return spins, meter
    counters[at + WHEEL_LIMIT] += 1
    return spins, meter


@njit(cache=True)
def wheel_awards(w, rng, n_awards, out):
    """``n_awards`` awards of wheel ``w`` (tests and checks): ``out[i]`` = (cash units, free spins, meter spins,
    wheel spins, 1 if the award met max_spins)."""
    amounts = np.zeros(max(w.comp + 1, 1), dtype=np.int64)
    counters = np.zeros(3, dtype=np.int64)
    for i in range(n_awards):
        amounts[:] = 0
        counters[:] = 0
        spins, meter = spin_wheel(w, rng, amounts, counters, 0)
        out[i, 0] = amounts[w.comp]
        out[i, 1] = spins
        out[i, 2] = meter
        out[i, 3] = counters[WHEEL_SPINS]
        out[i, 4] = counters[WHEEL_LIMIT]


# A bonus award (a trigger's ``award``): a plain table drawn once (``cum``: cumulative weights, ``units``: its values in
# pay units), or with ``wheel`` a wheel of cash and respin segments (``weights``, ``units`` 0 on a respin, ``again``,
# ``cash``, ``excluded`` scratch, ``repeat_cash``, ``max_spins``) spun as :func:`spin_wheel` spins one.
AwardDraw = namedtuple("AwardDraw", ["cum", "units", "wheel", "weights", "again", "cash", "excluded", "repeat_cash",
                                     "max_spins"])


def plain_award(cum: np.ndarray, units: np.ndarray) -> AwardDraw:
    """The draw of a plain award table (also the empty record of a game without a bonus award)."""
    n = units.shape[0]
    return AwardDraw(cum=cum, units=units, wheel=False, weights=np.diff(cum, prepend=0).astype(np.int64),
                     again=np.zeros(n, dtype=np.bool_), cash=np.ones(n, dtype=np.bool_), excluded=np.zeros(n, dtype=np.bool_),
                     repeat_cash=True, max_spins=np.int64(1))


@njit
def draw_award(a, rng):
    """Pay units of one bonus award: one draw of a plain table, or a wheel spun until a segment without ``again``,
    every segment of weight is out (a cash prize won cannot repeat without ``repeat_cash``) or ``max_spins`` spins."""
    if not a.wheel:
        return a.units[weighted_index(a.cum, rng)]
    excluded = a.excluded
    for i in range(excluded.shape[0]):
        excluded[i] = False
    paid = 0
    for _ in range(a.max_spins):
        seg = draw_table_excluding(a.weights, excluded, rng)
        if seg < 0:
            return paid
        paid += a.units[seg]
        if a.cash[seg] and not a.repeat_cash:
            for i in range(excluded.shape[0]):
                if a.cash[i] and a.units[i] == a.units[seg]:
                    excluded[i] = True
        if not a.again[seg]:
            return paid
    return paid


@njit(cache=True)
def award_draws(a, rng, n_awards, out):
    """``n_awards`` bonus awards of ``a`` into ``out`` (pay units; tests and checks)."""
    for i in range(n_awards):
        out[i] = draw_award(a, rng)
