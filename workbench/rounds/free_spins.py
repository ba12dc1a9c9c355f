"""The free-spins round: the classic spin plus a free-spins feature declared in ``[features]``.

A round is the paid spin, paid as the ``classic`` template pays it (lines, or ways
through :mod:`.ways`; components ``lines`` / ``ways`` and ``scatter:<name>``: exactly
what :func:`workbench.exact.par` computes), then, when the trigger's scatter count
reaches its ``min_count``, the free spins (component ``free_spins``):

- ``free_spins[count]`` spins (the largest key not above the count), or spins drawn by weight from
  ``free_spins_table`` (its entries of the largest ``count`` not above the count, or all of them),
  never more than ``max_free_spins`` in one feature, retriggers included;
- each free spin is played on the strip sets of ``free_spins_mode`` (chosen by weight per
  spin) and pays its whole screen (pay rule and scatter pays) x the multiplier; the
  multiplier starts at ``multiplier`` and, with ``multiplier_growth``, grows by
  ``multiplier_step`` after every free spin (``per_spin``) or every winning one
  (``per_win``), up to ``max_multiplier``; with ``multiplier_wilds = "add"`` (lines, a fixed multiplier F) a line
  win's wild multiplier adds to F instead (x3 and a x2 wild pay x5: the free spins' line automaton is built with F
  folded in, ``Game.in_free_spins``, and their scatter pays x F);
- a free spin whose screen shows ``retrigger_min_count`` scatters or more (absent: the trigger's
  ``min_count``; it may be fewer) adds ``retrigger[count]`` spins (or spins drawn from ``retrigger_table``);
- ``feature_cap`` (x total bet) ends the feature when its win reaches it; what is paid
  above it is taken back in component ``cap`` (negative), so ``free_spins`` + ``cap`` is
  what the feature pays;
- ``min_feature_win`` (x total bet) tops a smaller feature win up (component
  ``free_spins:guarantee``).
- ``free_spins_wilds`` / ``free_spins_random_wilds`` / ``free_spins_persisting_wilds`` (lines; :mod:`.free_wilds`,
  :mod:`.random_wilds`, :mod:`.persisting_wilds`): sticky, expanding, walking or expanding sticky wilds, random
  wilds dropped on every free spin by a table of outcomes, and trigger scatters that turn into wilds for the rest of
  the feature; such a free spin is played on an explicit screen;
- ``wheel`` (:mod:`.wheels`): one wheel award when the feature starts and on every retrigger: its cash paid
  beside the feature (component ``wheel``), its free spins added, its meter spins each played on a random one of
  the spins left, on the strips of ``meter_spins_mode`` (counters ``wheel``, ``wheel:spins``, ``wheel:limit``,
  ``wheel:meter_spins``).

The exact + conditional method has one stratum per trigger count (``free_spins:<count>``, the last
one ``<count>+``), with exact probabilities from the strips (:func:`count_states`).  The feature depends on the
base screen only through the trigger's count, so a stratum round plays the feature of its count without a base
screen; with persisting wilds, which the screen places, it first draws the screen exactly from the base game's
distribution given the count (:mod:`.forced`), and does not pay it (the exact part does).

Counters: ``free_spins`` (features started), ``free_spins:spins`` (free spins played),
``free_spins:retriggers``, ``free_spins:limit`` (retriggers cut by ``max_free_spins``),
``free_spins:capped`` (features ended by the cap).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import replace
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..model import Game, rules
from ..model.params import parse_count
from ..pays.scale import pay_scale
from ..pays.scatter import ADJACENT, ANYWHERE, code_count, scatter_arrays, update_code
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.kernel import base_components, choose_set, fill_screen, scatter_components, spin_windows
from ..simulate.model import Feature, RoundModel, Stratum
from ..simulate.rng import bounded, weighted_index
from ..simulate.steps.wheels import plain_award, spin_wheel
from . import MAX_FREE_SPINS, MAX_MULTIPLIER
from .forced import draw_forced_stops, forced_screen_tables, no_forced_screen
from .counts import count_states, lines_count_states
from .free_wilds import (base_wild_outcome, base_wild_params, clear_held, drop_base_wilds, explicit_screen,
                         mark_persisting, wild_free_spin, wild_params)
from .plain import drawn_lines_mode, pay_drawn_windows
from .wheels import wheel_params
from .ways import (AwardParams, WaysParams, base_sets, draw_height, drawn_outcome, no_award, no_table_wilds, pay_outcomes,
                   scatter_group_names, table_wild_outcomes, trigger_values, ways_fields)

COUNTERS = ("free_spins", "free_spins:spins", "free_spins:retriggers", "free_spins:limit", "free_spins:capped")
STARTED, SPINS, RETRIGGERS, LIMIT, CAPPED = range(len(COUNTERS))
# a game with a wheel counts its awards too (after COUNTERS: simulate.steps.wheels' order, then the meter spins played)
WHEEL_COUNTERS = ("wheel", "wheel:spins", "wheel:limit", "wheel:meter_spins")
WHEEL_AT = len(COUNTERS)
METER_SPUN = WHEEL_AT + 3
# the running feature in ``FeatureParams.state``: spins left, spins awarded, multiplier, win (units), meter spins held
LEFT, AWARDED, MULT, WIN, METER = range(5)
GROWTH = {"none": 0, "per_spin": 1, "per_win": 2}


def held_units(params) -> int:
    """Pay units the round has won in its running feature but not yet added to its amounts (the feature pays its win
    when it ends): what a traced round's running total adds (:mod:`workbench.simulate.trace`).  Plain Python."""
    state = params.fs.state
    return int(state[WIN]) if state[LEFT] > 0 else 0

# The compiled feature: spins by capped trigger count (``award``, ``retrigger``: int64[cap_count + 1]), or, when drawn
# from a table (``free_spins_table`` / ``retrigger_table``), per capped count the cumulative entry weights
# (``award_cum``: int64[cap_count + 1, entries]) and the entries' spins (``award_spins``; no entries: not drawn); the
# count each stratum starts with (``state_count``); limits and multiplier rule; components it pays to (-1: none); scratch arrays.
FeatureParams = namedtuple(
    "FeatureParams",
    ["award", "retrigger", "award_cum", "award_spins", "retrigger_cum", "retrigger_spins", "min_count", "retrigger_min",
     "cap_count", "state_count", "max_spins", "multiplier", "growth", "step",
     "max_multiplier", "min_units", "cap_units", "comp", "comp_cap", "comp_guarantee", "scratch", "state", "buy",
     "wheel"],
)
# lines: the base and free-spin strip sets (kernel.ModeArrays), each mode's line automaton (``lines``, ``free_lines``: the
# mode's symbols, ``[symbols] by_mode``) and table-wild draws (``base_tw``, ``free_tw``: plain.TableWildParams, empty
# when the mode has none), scatter groups (``free_scat``: the free spins' pays, x the multiplier with
# ``multiplier_wilds = "add"``, whose free and meter automata fold it into each line's multipliers) and the trigger's group
# (``meter``, ``meter_lines``, ``meter_tw``: the same for the wheel's meter spins; the free spins' own without a meter)
FreeLinesParams = namedtuple("FreeLinesParams", ["base", "free", "lines", "free_lines", "base_tw", "free_tw", "scat",
                                                 "free_scat", "comp_scatter", "group", "wins", "counts", "cost_units", "fs", "wilds",
                                                 "forced", "comp_forced", "meter", "meter_lines", "meter_tw",
                                                 "base_wilds"])
# ways: one WaysMode per mode (WaysParams fields + ``count``, the trigger's AwardParams with comp -1 and cap = cap_count,
# + ``tw``, the mode's table-wild draws: ways.TableWildOutcomes, never read when the mode has none)
WaysMode = namedtuple("WaysMode", WaysParams._fields + ("count", "tw"))
FreeWaysParams = namedtuple("FreeWaysParams", ["base", "free", "cost_units", "fs", "forced", "comp_forced", "meter"])
# a buy mode's forced trigger screen (``[bet_modes.*] forced_screen = "paid"``): forced.ForcedScreen, and the component
# it pays to (-1: the bought feature starts without a screen)


# ---------------------------------------------------------------------------
# the feature, shared by the pay rules
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def spins_for(fixed, cum, spins, c, rng):
    """The spins of capped count ``c``: ``fixed[c]``, or drawn from the table row ``cum[c]`` (0 when the row is empty)."""
    if spins.shape[0] == 0:
        return fixed[c]
    row = cum[c]
    if row[row.shape[0] - 1] == 0:
        return 0
    return spins[weighted_index(row, rng)]


@njit(cache=True, inline="always")
def add_spins(fs, extra, counters):
    """Add ``extra`` spins to the running feature, at most ``max_spins`` in all (a cut counted in LIMIT)."""
    st = fs.state
    total = st[AWARDED] + extra
    if total > fs.max_spins:
        total = fs.max_spins
        counters[LIMIT] += 1
    st[LEFT] += total - st[AWARDED]
    st[AWARDED] = total


@njit
def wheel_award(fs, rng, amounts, counters):
    """One award of the feature's wheel: its cash paid, its free spins added, its meter spins held.  Every meter
    spin rides on one of the spins left: more meter spins than spins left add spins (within ``max_spins``; a
    meter spin the limit leaves no spin for is lost with the cut)."""
    st = fs.state
    spins, meter = spin_wheel(fs.wheel, rng, amounts, counters, WHEEL_AT)
    st[METER] += meter
    short = st[METER] - st[LEFT] - spins
    add = spins + (short if short > 0 else 0)
    if add > 0:
        add_spins(fs, add, counters)
    if st[METER] > st[LEFT]:
        st[METER] = st[LEFT]


@njit(cache=True, inline="always")
def meter_spin(fs, rng, counters):
    """Whether the next free spin is a meter spin: the meter's spins fall on a random set of the spins left, so
    the next one is a meter spin with probability meter spins / spins left (no draw without meter spins)."""
    st = fs.state
    if st[METER] > 0 and bounded(rng, st[LEFT]) < st[METER]:
        st[METER] -= 1
        counters[METER_SPUN] += 1
        return True
    return False


@njit(cache=True, inline="always")
def start_feature(fs, count, counters, rng, amounts):
    """Start a feature for a trigger count (capped at ``cap_count``), its wheel award first."""
    st = fs.state
    spins = min(spins_for(fs.award, fs.award_cum, fs.award_spins, min(count, fs.cap_count), rng), fs.max_spins)
    st[LEFT] = spins
    st[AWARDED] = spins
    st[MULT] = fs.multiplier
    st[WIN] = 0
    st[METER] = 0
    counters[STARTED] += 1
    if fs.wheel.kind.shape[0] > 0:
        wheel_award(fs, rng, amounts, counters)


@njit(cache=True, inline="always")
def after_free_spin(fs, win, count, counters, rng, amounts):
    """Book one free spin that paid ``win`` (units, before the multiplier) and showed ``count``;
    True when the feature cap ends the feature."""
    st = fs.state
    st[LEFT] -= 1
    counters[SPINS] += 1
    st[WIN] += win * st[MULT]
    if fs.growth == 1 or (fs.growth == 2 and win > 0):
        st[MULT] = min(st[MULT] + fs.step, fs.max_multiplier)
    if count >= fs.retrigger_min:
        extra = spins_for(fs.retrigger, fs.retrigger_cum, fs.retrigger_spins, min(count, fs.cap_count), rng)
        if extra > 0:
            counters[RETRIGGERS] += 1
            add_spins(fs, extra, counters)
            if fs.wheel.on_retrigger and fs.wheel.kind.shape[0] > 0:
                wheel_award(fs, rng, amounts, counters)
    if fs.cap_units >= 0 and st[WIN] >= fs.cap_units:
        counters[CAPPED] += 1
        return True
    return False


@njit(cache=True, inline="always")
def end_feature(fs, amounts):
    """Pay the feature: its win, the cap's (negative) correction, the minimum win's top-up."""
    win = fs.state[WIN]
    amounts[fs.comp] += win
    if fs.cap_units >= 0 and win > fs.cap_units:
        amounts[fs.comp_cap] += fs.cap_units - win
        win = fs.cap_units
    if win < fs.min_units:
        amounts[fs.comp_guarantee] += fs.min_units - win


@njit(cache=True, inline="always")
def screen_total(scratch):
    """What a free spin's screen paid into ``scratch`` (every component), cleared for the next one."""
    total = 0
    for k in range(scratch.shape[0]):
        total += scratch[k]
        scratch[k] = 0
    return total


# ---------------------------------------------------------------------------
# lines
# ---------------------------------------------------------------------------
@njit
def free_spin_lines(p, ma, lines, tw, rng):
    """One free spin on the strip sets ``ma`` (the free spins' or the meter spins'), paid by ``lines`` with table
    wilds drawn by ``tw``: its win (units, before the multiplier); the scatter counts left in ``p.counts``.  Compiled
    once, not inlined: the feature calls it for both kinds of spin (inlined twice, the lines round took 4x as long
    to compile)."""
    s = choose_set(ma, rng)
    spin_windows(ma, s, rng, p.wins)
    if not explicit_screen(p.wilds):
        pay_drawn_windows(ma, s, lines, p.free_scat, tw, p.wins, p.counts, p.fs.scratch, 0, p.comp_scatter, rng)
        return screen_total(p.fs.scratch)
    return wild_free_spin(p, ma, lines, tw, s, rng)


@njit(cache=True, inline="always")
def play_feature_lines(p, rng, amounts, counters, count, s):
    """The feature started by ``count`` trigger scatters on the base screen of strip set ``s`` in ``p.wins`` (-1:
    none, a bought feature without a screen), whose persisting symbols turn into persisting wilds at once."""
    fs = p.fs
    start_feature(fs, count, counters, rng, amounts)
    if explicit_screen(p.wilds):
        w = p.wilds
        clear_held(w)
        if s >= 0 and w.persists.shape[0] > 0:
            fill_screen(p.base, s, p.wins, w.screen)
            mark_persisting(w, p.scat.mode[p.group] == ADJACENT, p.group, p.base.rows, w.screen, 1)
    while fs.state[LEFT] > 0:
        if meter_spin(fs, rng, counters):
            win = free_spin_lines(p, p.meter, p.meter_lines, p.meter_tw, rng)
        else:
            win = free_spin_lines(p, p.free, p.free_lines, p.free_tw, rng)
        if after_free_spin(fs, win, p.counts[p.group], counters, rng, amounts):
            break
    end_feature(fs, amounts)


@njit(cache=True, inline="always")
def play_round_lines(p, rng, amounts, adjust, counters, stratum):
    """One round: a bought feature (its trigger screen drawn when it is paid or read) or a base spin, then the
    feature when it starts.  The feature has one call site: an inlined step is compiled once per call site, and
    the feature inlined at two places (bought and triggered) took a fifth of the lines round's compile time
    (docs/simulation.md, "What compiling costs")."""
    state = bought_state(p.fs.buy, stratum, rng)
    bought = state >= 0
    if bought:
        s = -1
        if p.comp_forced >= 0 or p.wilds.persists.shape[0] > 0:  # the trigger screen: a buy's, paid; or read only
            s = draw_forced_stops(p.forced, state, rng)
            for r in range(p.wins.shape[0]):
                p.wins[r] = p.base.vwin[s, r, p.forced.out[r]]
        if p.comp_forced >= 0:  # paid as a base spin, into its own component
            pay_drawn_windows(p.base, s, p.lines, p.scat, p.base_tw, p.wins, p.counts, p.fs.scratch, 0,
                              p.comp_scatter, rng)
            amounts[p.comp_forced] += screen_total(p.fs.scratch)
        count = p.fs.state_count[state]
    else:
        s = choose_set(p.base, rng)
        spin_windows(p.base, s, rng, p.wins)
        pay_drawn_windows(p.base, s, p.lines, p.scat, p.base_tw, p.wins, p.counts, amounts, 0, p.comp_scatter, rng)
        drop = base_wild_outcome(p.base_wilds, rng)
        if drop >= 0:  # after the count: a wild dropped on a scatter does not hide it
            drop_base_wilds(p.base_wilds, drop, p.base, s, p.wins, p.lines, rng, amounts, counters)
        count = p.counts[p.group]
    if bought or count >= p.fs.min_count:
        play_feature_lines(p, rng, amounts, counters, count, s)


@njit(cache=True, _nrt=False)
def run_chunk_lines(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_lines(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


# ---------------------------------------------------------------------------
# ways
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def spin_ways(m, rng):
    """Spin the ways screen of mode ``m`` into ``m.outs``; returns (strip set, the trigger's count capped at cap_count)."""
    s = 0 if m.set_cum.shape[0] == 1 else weighted_index(m.set_cum, rng)
    c = m.count
    code = 0
    for i in range(m.outs.shape[0]):
        h = draw_height(m, s, i, rng)
        v = bounded(rng, m.total[s, i])
        o = m.vtab[s, i, h, v]
        if o < 0:
            o = drawn_outcome(m.tw, s, i, o, rng)
        m.outs[i] = o
        code = update_code(c.mode, c.cap, code, c.value[s, i, h, v])
    return s, code_count(c.mode, code)


@njit
def free_spin_ways(m, scratch, rng):
    """One free spin on the ways screens ``m`` (the free spins' or the meter spins'): (its win, units before the
    multiplier; the trigger's count).  Compiled once, not inlined: the feature calls it for both kinds of spin."""
    s, c = spin_ways(m, rng)
    pay_outcomes(m, s, m.outs, scratch)
    return screen_total(scratch), c


@njit(cache=True, inline="always")
def play_feature_ways(p, rng, amounts, counters, count):
    fs = p.fs
    start_feature(fs, count, counters, rng, amounts)
    while fs.state[LEFT] > 0:
        if meter_spin(fs, rng, counters):
            win, c = free_spin_ways(p.meter, fs.scratch, rng)
        else:
            win, c = free_spin_ways(p.free, fs.scratch, rng)
        if after_free_spin(fs, win, c, counters, rng, amounts):
            break
    end_feature(fs, amounts)


@njit(cache=True, inline="always")
def play_round_ways(p, rng, amounts, adjust, counters, stratum):
    """One round: a bought feature (its trigger screen drawn and paid when the buy pays it) or a base spin, then
    the feature when it starts; the feature has one call site (:func:`play_round_lines`)."""
    state = bought_state(p.fs.buy, stratum, rng)
    bought = state >= 0
    if bought:
        if p.comp_forced >= 0:  # the forced trigger screen, paid as a base spin
            m = p.base
            s = draw_forced_stops(p.forced, state, rng)
            for i in range(m.outs.shape[0]):
                o = m.vtab[s, i, 0, p.forced.out[i]]
                m.outs[i] = drawn_outcome(m.tw, s, i, o, rng) if o < 0 else o
            pay_outcomes(m, s, m.outs, p.fs.scratch)
            amounts[p.comp_forced] += screen_total(p.fs.scratch)
        count = p.fs.state_count[state]
    else:
        s, count = spin_ways(p.base, rng)
        pay_outcomes(p.base, s, p.base.outs, amounts)
    if bought or count >= p.fs.min_count:
        play_feature_ways(p, rng, amounts, counters, count)


@njit(cache=True, _nrt=False)
def run_chunk_ways(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_ways(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


# ---------------------------------------------------------------------------
# building the model
# ---------------------------------------------------------------------------
def _spins_by_count(spins: dict, min_count: int, cap_count: int, max_spins: int) -> np.ndarray:
    """int64[cap_count + 1]: the spins of each count (the largest key not above it; 0 below ``min_count``)."""
    by_key = {parse_count(k): int(v) for k, v in spins.items()}
    out = np.zeros(cap_count + 1, dtype=np.int64)
    for c in range(min_count, cap_count + 1):
        keys = [k for k in by_key if k <= c]
        out[c] = min(by_key[max(keys)], max_spins) if keys else 0
    return out


def _table_counts(game: Game, key: str) -> list[int]:
    """The ``count`` keys of the entries of the free-spins table ``[features] key`` names (none: [])."""
    name = game.features.get(key)
    if name is None:
        return []
    return sorted({int(e["count"]) for e in game.tables[name].entries if "count" in e})


def _spins_table(game: Game, key: str, min_count: int, cap_count: int) -> tuple[np.ndarray, np.ndarray]:
    """(cumulative weights int64[cap_count + 1, entries], spins int64[entries]) of the table ``[features] key``
    names: row c holds the weights of the entries drawn for count c (those of the largest entry ``count`` not above
    c, or every entry when none names a count; rows below ``min_count`` empty).  No table: zero entries."""
    name = game.features.get(key)
    if name is None:
        return np.zeros((cap_count + 1, 0), dtype=np.int64), np.zeros(0, dtype=np.int64)
    table = game.tables[name]
    spins = np.array([int(e["spins"]) for e in table.entries], dtype=np.int64)
    counts = _table_counts(game, key)
    weights = np.zeros((cap_count + 1, len(table.entries)), dtype=np.int64)
    for c in range(min_count, cap_count + 1):
        keys = [k for k in counts if k <= c]
        for e, (entry, w) in enumerate(zip(table.entries, table.weights)):
            if not counts or (keys and int(entry["count"]) == max(keys)):
                weights[c, e] = int(w)
    return np.cumsum(weights, axis=1), spins


def _feature_params(game: Game, components: list, state_count: np.ndarray, min_count: int, cap_count: int) -> FeatureParams:
    """The compiled feature (adds its components to ``components``)."""
    f = game.features
    scale = pay_scale(game)
    max_spins = int(f.get("max_free_spins", MAX_FREE_SPINS))
    components.append("free_spins")
    comp = len(components) - 1
    comp_cap = comp_guarantee = -1
    cap_units = -1
    if "feature_cap" in f:
        cap_units = scale.units(game.bet.credits(Fraction(str(f["feature_cap"])), "total_bet"))
        components.append("cap")
        comp_cap = len(components) - 1
    min_units = 0
    if f.get("min_feature_win", 0) > 0:
        min_units = scale.units(game.bet.credits(Fraction(str(f["min_feature_win"])), "total_bet"))
        components.append("free_spins:guarantee")
        comp_guarantee = len(components) - 1
    wheel = wheel_params(game, components)
    growth = GROWTH[f.get("multiplier_growth", "none")]
    retrigger_min = int(f.get("retrigger_min_count", min_count))
    award_cum, award_spins = _spins_table(game, "free_spins_table", min_count, cap_count)
    retrigger_cum, retrigger_spins = _spins_table(game, "retrigger_table", retrigger_min, cap_count)
    return FeatureParams(
        award=_spins_by_count(f.get("free_spins", {}), min_count, cap_count, max_spins),
        retrigger=_spins_by_count(f.get("retrigger", {}), retrigger_min, cap_count, max_spins),
        award_cum=award_cum,
        award_spins=award_spins,
        retrigger_cum=retrigger_cum,
        retrigger_spins=retrigger_spins,
        min_count=np.int64(min_count),
        retrigger_min=np.int64(retrigger_min),
        cap_count=np.int64(cap_count),
        state_count=state_count,
        max_spins=np.int64(max_spins),
        # multiplier_wilds = "add": the free spins' line automaton and scatter pays carry the multiplier already
        multiplier=np.int64(1 if game.in_free_spins() is not game else f.get("multiplier", 1)),
        growth=np.int64(growth),
        step=np.int64(f.get("multiplier_step", 1) if growth else 0),
        max_multiplier=np.int64(f.get("max_multiplier", MAX_MULTIPLIER)),
        min_units=np.int64(min_units),
        cap_units=np.int64(cap_units),
        comp=np.int64(comp),
        comp_cap=np.int64(comp_cap),
        comp_guarantee=np.int64(comp_guarantee),
        scratch=np.zeros(0, dtype=np.int64),  # sized once every component is known
        state=np.zeros(5, dtype=np.int64),
        buy=np.zeros(0, dtype=np.int64),  # a buy mode: its counts' cumulative weights (bought, bought_state)
        wheel=wheel,
    )


def _limits(game: Game) -> tuple:
    """(trigger, min_count, cap_count, count mode) of the free-spins trigger."""
    trigger = game.triggers[game.features["trigger"]]
    if trigger.scatter is None:
        raise SimulationError(f"{game.name}: the free spins start from a scatter trigger")
    keys = [parse_count(k) for k in game.features.get("free_spins", {})]
    keys += [parse_count(k) for k in game.features.get("retrigger", {})]
    keys += [c for key in ("free_spins_table", "retrigger_table") for c in _table_counts(game, key)]
    cap_count = max(keys + [trigger.min_count])
    mode = ADJACENT if game.scatters[trigger.scatter].counting == "adjacent_from_first_reel" else ANYWHERE
    return trigger, trigger.min_count, cap_count, mode


def _state_names(min_count: int, cap_count: int) -> list[str]:
    return [f"free_spins:{c}" + ("+" if c == cap_count else "") for c in range(min_count, cap_count + 1)]


def bought(game: Game, names: list, probabilities: list, state_count: np.ndarray, cap: int) -> tuple:
    """(names, probabilities, state_count, buy) of the game's bet mode: a buy mode has one stratum per count it may
    buy (``buy_count``, or every count of ``buy_count_table``, capped at ``cap``: the largest count that plays
    differently), with the count's exact probability; ``buy`` the cumulative weights of the counts
    (:func:`bought_state` draws one end to end), empty when the mode buys nothing."""
    mode = game.bet_mode
    if not mode.buy:
        return names, probabilities, state_count, np.zeros(0, dtype=np.int64)
    counts = mode.bought_counts
    total = sum(w for _, w in counts)
    prefix = names[0].split(":")[0] if names else "free_spins"  # (a tumble over the chain has no count strata)
    return ([f"{prefix}:{c} (bought)" for c, _ in counts], [Fraction(w, total) for _, w in counts],
            np.array([min(int(c), cap) for c, _ in counts], dtype=np.int64),
            np.cumsum([w for _, w in counts]).astype(np.int64))


@njit(cache=True, inline="always")
def bought_state(buy, stratum, rng):
    """The feature state a round starts in: ``stratum`` in a stratified run; end to end, a buy mode's bought count
    (index, drawn by weight when there are several); -1: a round that spins the base game."""
    if stratum >= 0:
        return stratum
    if buy.shape[0] == 0:
        return -1
    if buy.shape[0] == 1:
        return 0
    return weighted_index(buy, rng)


def forced_screen(game: Game, components: list, stop_counts, min_count: int, cap_count: int) -> tuple:
    """(forced.ForcedScreen, its component) of the feature's trigger screens: a buy whose forced trigger screen is
    paid gets component ``forced_screen`` (the screen's pays, as a base spin's) and the sampler of its screens, one
    per bought count; a game with persisting wilds (which the trigger screen places) gets the sampler without a
    component: per bought count, or per trigger-count stratum (the last one "or more"); else none (-1).
    ``stop_counts()``: per base strip set and reel, the trigger scatters each virtual stop shows."""
    mode = game.bet_mode
    paid = mode.buy and mode.forced_screen == "paid"
    if not (paid or "free_spins_persisting_wilds" in game.features):
        return no_forced_screen(game.reels), np.int64(-1)
    sets = [s for s in game.played_strip_sets("base") if s.weight > 0]
    group = game.scatters[game.triggers[game.features["trigger"]].scatter]
    if mode.buy:
        name, counts = f"{game.name}, bet mode {mode.name}", [int(c) for c, _ in mode.bought_counts]
        key = ("bet_modes", mode.name, "buy_count_table" if mode.buy_counts else "buy_count")
    else:
        name, counts, key = game.name, list(range(min_count, cap_count + 1)), ("features", "trigger")
    tables = forced_screen_tables(name, counts, stop_counts(), [s.weight for s in sets], key,
                                  adjacent=group.counting == "adjacent_from_first_reel",
                                  last_or_more=not mode.buy, required=bool(mode.buy))
    if not paid:
        return tables, np.int64(-1)
    components.append("forced_screen")
    return tables, np.int64(len(components) - 1)


def _finish(game: Game, components: list, params, run_chunk, fs: FeatureParams, probabilities: list, stake) -> RoundModel:
    """The round model: the trigger-count strata (a buy's bought counts), the feature, its counters; with random
    wilds on the base spins, their component, counter and the end-to-end plan (:func:`_base_wilds_plan`)."""
    names = _state_names(int(fs.min_count), int(fs.cap_count))
    names, probabilities, state_count, buy = bought(game, names, probabilities, fs.state_count, int(fs.cap_count))
    fs = fs._replace(scratch=np.zeros(len(components), dtype=np.int64), state_count=state_count, buy=buy)
    params = params._replace(fs=fs)
    feature = Feature("free_spins", "free_spins", tuple(c for c in components
                                                        if c.startswith("free_spins") or c in ("cap", "wheel")))
    counters = COUNTERS + (WHEEL_COUNTERS if fs.wheel.kind.shape[0] else ())
    model = RoundModel(game=game, components=tuple(components), counters=counters, params=params, run_chunk=run_chunk,
                       strata=tuple(Stratum(n, p) for n, p in zip(names, probabilities)), features=(feature,), stake=stake,
                       notes={"free_spins": "exact base game + simulated free spins by trigger count"})
    return _base_wilds_plan(model) if "base_random_wilds" in components else model


def _base_wilds_plan(model: RoundModel) -> RoundModel:
    """A round whose base spins drop random wilds: their component and counter (the slots the compiled drop writes),
    their feature, the exact mean of their gain (in the notes, and a control variate of the estimate), and the
    end-to-end plan, because the gain is paid on base spins in every trigger state, the triggerless ones too, which
    the count strata do not play."""
    from ..exact.wilds import random_wilds_gain
    from ..simulate.plan import end_to_end_plan

    game = model.game
    counters = model.counters + ("base_random_wilds",)
    base_wilds = model.params.base_wilds._replace(counter=np.int64(len(counters) - 1))
    f = game.features
    gain_units = random_wilds_gain(game, game.tables[f["base_random_wilds"]], f["wild_symbol"])
    gain = gain_units / model.params.cost_units
    notes = {**model.notes, "base_random_wilds": f"random wilds on base spins (table {f['base_random_wilds']}): exact mean "
                                                 f"gain {gain:.6f} x total bet over the landed screen's line pays"}
    model = replace(model, counters=counters, params=model.params._replace(base_wilds=base_wilds), notes=notes,
                    exact_means={**model.exact_means, "base_random_wilds": gain_units},
                    features=model.features + (Feature("base_random_wilds", "base_random_wilds", ("base_random_wilds",)),))
    return end_to_end_plan(model, "random wilds drop on base spins in every trigger state (base_random_wilds), which "
                                  "the trigger-count strata do not play")


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The free-spins template's round (lines or ways; see the module docstring)."""
    if any(t.award is not None for t in game.triggers.values()):
        raise SimulationError(f"{game.name}: the free-spins round does not pay bonus award tables")
    if game.rule is rules.WAYS:  # the compiled feature knows the lines and the ways screens
        if game.features.get("free_spins_wilds", "none") != "none" or {"free_spins_random_wilds", "base_random_wilds",
                                                                          "free_spins_persisting_wilds"} & set(game.features):
            raise SimulationError(f"{game.name}: sticky, expanding, walking, random and persisting wilds are played on "
                                  "lines games")
        return _ways_model(game, stake)
    if game.rule is rules.LINES:
        return _lines_model(game, stake)
    raise SimulationError(f"{game.name}: the free-spins round plays lines and ways games; [pays] rule = "
                          f"{game.pays.rule!r} is not supported yet")


def _lines_model(game: Game, stake) -> RoundModel:
    trigger, min_count, cap_count, mode = _limits(game)
    group = list(game.scatters).index(trigger.scatter)
    lines, base, base_tw = drawn_lines_mode(game, "base")
    paid = game.in_free_spins()  # multiplier_wilds = "add": the free spins' lines pay their sum of multipliers
    free_lines, free, free_tw = drawn_lines_mode(paid, game.features["free_spins_mode"])
    meter_mode = game.features.get("meter_spins_mode")
    meter_lines, meter, meter_tw = (drawn_lines_mode(paid, meter_mode) if meter_mode is not None
                                    else (free_lines, free, free_tw))
    if free_tw.var_ids.shape[0] and game.features.get("free_spins_wilds", "none") not in ("none", "expanding_sticky"):
        raise SimulationError(f"{game.name}: sticky, expanding and walking wilds are not played beside wilds whose "
                              "multiplier is drawn per landing in the free spins")
    components = base_components(game)
    comp_scatter = scatter_components(game, components)
    probabilities = lines_count_states(game, group, mode, min_count, cap_count)
    fs = _feature_params(game, components, np.arange(min_count, cap_count + 1, dtype=np.int64), min_count, cap_count)
    forced, comp_forced = forced_screen(game, components, lambda: [
        [base.win_cnt[s, r, base.vwin[s, r, : base.total_weight[s, r]], group] for r in range(game.reels)]
        for s in range(base.set_cum.shape[0])], min_count, cap_count)
    drops = "base_random_wilds" in game.features and not game.bet_mode.buy  # a buy plays no base spin
    if drops:
        components.append("base_random_wilds")
    scat = scatter_arrays(game)
    params = FreeLinesParams(
        base=base,
        free=free,
        lines=lines,
        free_lines=free_lines,
        base_tw=base_tw,
        free_tw=free_tw,
        scat=scat,
        free_scat=scat._replace(pays=scat.pays * max(paid.pays.feature_multiplier, 1)),  # their scatters x F alone
        comp_scatter=comp_scatter,
        group=np.int64(group),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        cost_units=pay_scale(game).cost_units,
        fs=fs,
        wilds=wild_params(game),
        forced=forced,
        comp_forced=comp_forced,
        meter=meter,
        meter_lines=meter_lines,
        meter_tw=meter_tw,
        base_wilds=base_wild_params(game, len(components) - 1 if drops else -1),
    )
    return _finish(game, components, params, run_chunk_lines, fs, probabilities, stake)


def ways_mode(game: Game, mode_name: str, trigger, cap_count: int) -> tuple[WaysMode, list, list, int]:
    """The compiled ways screens of one mode (its symbols as ``[symbols] by_mode`` makes them, table wilds drawn) with
    the trigger's count; per set and reel {count: weight}; the sets' choice weights; the count mode."""
    from ..exact.variants import has_table_wilds

    game = game.in_strip_mode(mode_name)
    sets = base_sets(game, mode_name)
    fields, outcomes = ways_fields(game, sets, counted=True)
    tw = table_wild_outcomes(game, sets, outcomes, fields["vtab"]) if has_table_wilds(game) else no_table_wilds()
    mode, value = trigger_values(game, trigger, sets, outcomes, fields["vtab"].shape)
    count = AwardParams(comp=np.int64(-1), mode=np.int64(mode), cap=np.int64(cap_count), value=value,
                        award=plain_award(np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64)))
    per_reel = []
    for k, (strip_set, reels) in enumerate(zip(sets, outcomes)):
        reel_counts = []
        for i, (strip, reel) in enumerate(zip(strip_set.reels, reels)):
            counts: dict = {}
            for h, (_, height_weight) in enumerate(reel.heights):
                found, seen = np.unique(value[k, i, h, : strip.total_weight], return_counts=True)
                for c, n in zip(found, seen):
                    counts[int(c)] = counts.get(int(c), 0) + int(n) * int(height_weight)
            reel_counts.append(counts)
        per_reel.append(reel_counts)
    return WaysMode(**fields, bonus=no_award(4), count=count, tw=tw), per_reel, [s.weight for s in sets], mode


def _ways_model(game: Game, stake) -> RoundModel:
    trigger, min_count, cap_count, _ = _limits(game)
    base, values, weights, mode = ways_mode(game, "base", trigger, cap_count)
    free, _, _, _ = ways_mode(game, game.features["free_spins_mode"], trigger, cap_count)
    meter_mode = game.features.get("meter_spins_mode")
    meter = ways_mode(game, meter_mode, trigger, cap_count)[0] if meter_mode is not None else free
    components = [game.pays.rule] + [f"scatter:{name}" for name in scatter_group_names(game)]
    probabilities = count_states(values, weights, mode, min_count, cap_count)
    fs = _feature_params(game, components, np.arange(min_count, cap_count + 1, dtype=np.int64), min_count, cap_count)
    forced, comp_forced = forced_screen(game, components, lambda: [
        [base.count.value[s, i, 0, : base.total[s, i]] for i in range(game.reels)] for s in range(base.set_cum.shape[0])],
        min_count, cap_count)
    params = FreeWaysParams(base=base, free=free, cost_units=pay_scale(game).cost_units, fs=fs, forced=forced,
                            comp_forced=comp_forced, meter=meter)
    return _finish(game, components, params, run_chunk_ways, fs, probabilities, stake)
