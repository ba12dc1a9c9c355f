"""The tumble round: a spin whose wins cascade, with an optional free-spins feature (``[features]``).

One *drop* is a screen paid by the game's pay rule (``scatter_pays``, ``ways``, ``lines`` or
``cluster``).  A spin's first drop is its spun screen; while a drop wins, every cell of a paid win
is removed, the cells above fall down in their reel and new symbols drop in from above: by
default the reel's strip continues above the window (the stop above the window lands first),
with ``refill_mode`` each reel drops from a strip of that mode instead, from a stop drawn by its
stop weights at the start of the spin.  The chain ends with the first drop that pays nothing (or
after ``max_cascades`` cascades).

- Cascade ladder: drop ``k`` of the chain (the first drop is 0) pays x ``cascade_multipliers[k]``
  (the last entry repeats; absent: x1), ``free_spins_cascade_multipliers`` in free spins (absent:
  the base ladder); the ladder restarts every spin, unless ``free_spins_ladder_carries``: then the free
  spins' ladder climbs on from spin to spin (a multiplier growing with every win of the feature: a spin's
  first drop continues one step above where the last winning spin ended).  As a global multiplier: with
  ``ladder_step`` each rung after the listed ones is that much higher (up to ``ladder_cap``; the free spins'
  ``free_spins_ladder_step`` / ``free_spins_ladder_cap``, absent: the base game's); with ``free_spins_ladder_grows
  = "spin"`` the free spins' ladder moves a rung per free spin instead of per cascade (for the whole feature;
  ``"win"``: per free spin whose drops win);
  ``ladder_applies = "chain"`` pays the chain's total x the rung it reached instead of each drop x its own.
- Multiplier symbols: ``multiplier_symbol`` (a one-row ``bonus`` symbol that pays nothing and is
  never removed) takes a value from ``multiplier_values`` (entries ``value``, ``weight``) when it
  lands, on the first drop or in the chain.  When a spin's chain has won, the values of the
  multiplier symbols on the final screen are added up to ``M``; the base game pays the chain's
  win x ``M`` (x1 if none shows).  In free spins with ``persistent_multiplier`` (the default)
  ``M`` is added to the feature's multiplier, which then multiplies that chain's win; a winning
  chain with no multiplier symbol on screen pays x1.  Without it, free spins pay x ``M`` as the
  base game does.  With ``multiplier_symbols = "add"`` (and ``ladder_applies = "chain"``) the total ``M`` (or the
  feature's) is added to the rung instead: the chain pays its drops' wins x (rung + ``M``).  The exact +
  conditional method integrates the values out (each counted value
  replaced by the table's mean in a zero-mean adjustment, unless the bet mode has a max-win cap),
  which removes their share of the variance of the simulated components.
- Scatter groups pay and count on the first drop of each spin only (symbols that drop in during
  the chain neither pay nor trigger), so the trigger probability is exact.
- Free spins (with ``trigger``): ``free_spins[count]`` spins (largest key not above the first
  drop's count), on the strip sets of ``free_spins_mode`` chosen by weight per spin, each a
  tumbling spin with the free-spin ladder; ``retrigger[count]`` adds spins, never more than
  ``max_free_spins`` in one feature.  Everything a free spin pays (chain, multipliers, its first
  drop's scatter pays) goes to component ``free_spins``.  With ``wheel`` (:mod:`.wheels`) one wheel award when
  the feature starts and on every retrigger (``wheel_on_retrigger``): its cash to component ``wheel`` (beside the
  feature's win, no multiplier), its free spins added within ``max_free_spins`` (counters ``wheel``,
  ``wheel:spins``, ``wheel:limit``).

Components: the pay rule's (``scatter_pays`` | ``ways`` | ``lines`` | ``cluster``: what the first
drop pays at x1, exactly what :func:`workbench.exact.par` prices) and ``scatter:<name>`` (first drop),
``tumble`` (everything else the paid spin pays: the chain's cascades, the ladder above x1 and the
multiplier symbols' uplift), ``free_spins``.  Since ``tumble`` is paid on every spin and the
feature depends on the first drop only through its trigger count, the exact + conditional method
has a ``tumble`` stratum of probability 1 (natural spins whose features are not played) and one
``free_spins:<count>`` stratum per trigger count with its exact probability.

Counters: ``tumble:cascades`` (winning drops after the first), ``tumble:multiplied`` (chains paid
x a multiplier symbol), ``tumble:limit`` (chains cut by ``max_cascades``), ``free_spins``,
``free_spins:spins``, ``free_spins:retriggers``, ``free_spins:limit``, ``tumble:rounds`` (paid spins
whose cascades or multiplier symbols paid more than the first drop: the reported starts of the
``tumble`` feature).
"""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..model import Game
from ..model.params import parse_count
from ..pays.scale import pay_scale
from ..pays.scatter import ADJACENT, ANYWHERE, code_count, scatter_arrays, update_code
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.model import Feature, RoundModel, Stratum
from ..simulate.rng import bounded, weighted_index
from ..simulate.steps.wheels import no_wheel, spin_wheel
from . import CHAIN_SCATTERS, MAX_FREE_SPINS, TUMBLE_RULES
from .counts import lines_count_states
from .drop_pays import RULE_CODES, pay_screen, rule_arrays
from .free_spins import bought, bought_state
from .multipliers import grow, ladders, position_grid, restart, rung
from .wheels import wheel_params
from .windows import virtual_strips

COUNTERS = ("tumble:cascades", "tumble:multiplied", "tumble:limit", "free_spins", "free_spins:spins",
            "free_spins:retriggers", "free_spins:limit", "tumble:rounds")
CASCADES, MULTIPLIED, CASCADE_LIMIT, FS_STARTED, FS_SPINS, FS_RETRIGGERS, FS_LIMIT, TUMBLE_ROUNDS = range(len(COUNTERS))
WHEEL_COUNTERS = ("wheel", "wheel:spins", "wheel:limit")  # a game with a wheel: simulate.steps.wheels' order
WHEEL_AT = len(COUNTERS)
# Scatter groups on the first drop: ``member[g, id]`` instances of group g a cell showing id adds; ``mode``/``cap``/
# ``pays`` as pays.scatter.ScatterArrays; ``comp[g]`` component (-1: pays nothing).
GroupArrays = namedtuple("GroupArrays", ["member", "mode", "cap", "pays", "comp", "codes"])
TumbleParams = namedtuple("TumbleParams", [
    "base", "free", "refill", "use_refill", "pay", "groups", "screen", "mval", "remove", "top",
    "ladder_base", "ladder_free", "carry", "max_cascades", "mult_sym", "mcum", "mvals", "persistent",
    "comp_rule", "comp_tumble", "comp_fs", "trigger_group", "min_count", "cap_count", "award", "retrigger", "max_spins",
    "has_fs", "has_tumble_stratum", "state_count", "buy", "cost_units", "rb_values", "mean_value", "add_symbols",
    "chain_scatters",  # 0: scatters count on the first drop; 1: over the whole chain (triggers); 2: and they pay so
    "grid",  # rounds.multipliers.PositionGrid: the position multipliers (values of length 0: none)
    "wheel",  # simulate.steps.wheels.WheelParams: the free spins' wheel award (no segments: none)
])


# ---------------------------------------------------------------------------
# one screen
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _draw_value(p, rng):
    return p.mvals[weighted_index(p.mcum, rng)]


@njit(cache=True, inline="always")
def _land(p, rng, r, row, sym):
    p.screen[r, row] = sym
    p.mval[r, row] = _draw_value(p, rng) if sym == p.mult_sym else 0


@njit(cache=True, inline="always")
def fill_screen(p, st, s, rng):
    """Spin strip set ``s`` of ``st`` onto the screen; set where each reel's refills start."""
    rows = p.pay.rows
    for r in range(rows.shape[0]):
        length = st.length[s, r]
        stop = st.vstop[s, r, bounded(rng, st.total[s, r])]
        for row in range(rows[r]):
            _land(p, rng, r, row, st.symbols[s, r, (stop + row) % length])
        p.top[r] = stop - 1 if stop > 0 else length - 1
    if p.use_refill:
        rf = p.refill
        k = 0 if rf.set_cum.shape[0] == 1 else weighted_index(rf.set_cum, rng)
        for r in range(rows.shape[0]):
            p.top[r] = rf.vstop[k, r, bounded(rng, rf.total[k, r])]
        return k
    return s


@njit(cache=True, inline="always")
def collapse(p, st, s, rng):
    """Remove the marked cells, let the rest fall, drop new symbols from strip set ``s`` of ``st`` above."""
    rows = p.pay.rows
    screen = p.screen
    mval = p.mval
    remove = p.remove
    for r in range(rows.shape[0]):
        write = rows[r] - 1
        for row in range(rows[r] - 1, -1, -1):
            if not remove[r, row]:
                if write != row:
                    screen[r, write] = screen[r, row]
                    mval[r, write] = mval[r, row]
                write -= 1
        length = st.length[s, r]
        for row in range(write, -1, -1):
            t = p.top[r]
            _land(p, rng, r, row, st.symbols[s, r, t])
            p.top[r] = t - 1 if t > 0 else length - 1


@njit(cache=True, inline="always")
def group_count(p, g):
    """The count of scatter group ``g`` on the screen as it stands, counted in full (not up to the pay table's
    largest count: the trigger may need more than it pays for)."""
    g_arr = p.groups
    rows = p.pay.rows
    code = 0
    for r in range(rows.shape[0]):
        c = 0
        for row in range(rows[r]):
            c += g_arr.member[g, p.screen[r, row]]
        code = update_code(g_arr.mode[g], 1 << 30, code, c)
    return code_count(g_arr.mode[g], code)


@njit(cache=True, inline="always")
def first_drop_groups(p, amounts, into):
    """Pay the scatter groups of the first drop (to their components, or all to ``into`` >= 0); returns the
    trigger group's count (0 without a trigger)."""
    g_arr = p.groups
    found = 0
    for g in range(g_arr.mode.shape[0]):
        count = group_count(p, g)
        units = g_arr.pays[g, min(count, g_arr.cap[g])]
        if units > 0:
            amounts[into if into >= 0 else g_arr.comp[g]] += units
        if g == p.trigger_group:
            found = count
    return found


@njit(cache=True, inline="always")
def final_groups(p):
    """(the trigger group's count, what every scatter group pays) on the screen as it stands (pay units, x1):
    the chain's final screen, where every scatter that dropped in during the cascades has stayed."""
    g_arr = p.groups
    found = 0
    units = 0
    for g in range(g_arr.mode.shape[0]):
        count = group_count(p, g)
        units += g_arr.pays[g, min(count, g_arr.cap[g])]
        if g == p.trigger_group:
            found = count
    return found, units


#: what :func:`chain` returns (pay units; a named tuple, which numba compiles as a record of fields)
ChainResult = namedtuple("ChainResult", ("first", "paid", "multiplier_total", "multipliers", "step", "wins", "rung"))


@njit
def chain(p, st, s, rng, ladder, counters, step0, positions):
    """The cascades of a filled screen, as a :data:`ChainResult`: ``first`` the first drop's pay at x1, ``paid`` the
    chain's pay with the ladder, ``multiplier_total`` the multiplier symbols' total on the final screen,
    ``multipliers`` how many multiplier symbols that total adds, ``step`` the ladder position reached, ``wins`` the
    drops' pays at x1 together, ``rung`` the multiplier of position ``step``.  ``s``: the strip set refills drop
    from; ``step0``: the ladder position of the first drop (0, or where the last free spin left it when it carries
    or grows per spin); ``positions``: the grid's position multipliers play (they grow after every drop)."""
    remove = p.remove
    remove[:, :] = False
    first = pay_screen(p.pay, p.screen, remove)
    if positions:
        grow(p.grid)
    paid = 0 if ladder.on_chain else first * rung(ladder, step0)
    wins = first
    win = first
    k = 1
    step = step0
    while win > 0:
        if k > p.max_cascades:
            if p.max_cascades > 0:  # 0: a game without tumbles (each drop is the spun screen only)
                counters[CASCADE_LIMIT] += 1
            break
        collapse(p, st, s, rng)
        remove[:, :] = False
        win = pay_screen(p.pay, p.screen, remove)
        if positions:
            grow(p.grid)
        if win > 0:
            counters[CASCADES] += 1
            if ladder.per_cascade:
                step += 1
            wins += win
            if not ladder.on_chain:
                paid += win * rung(ladder, step)
            k += 1
    if ladder.on_chain:
        paid = wins * rung(ladder, step)
    total_m = 0
    n_m = 0
    if paid > 0 and p.mult_sym >= 0:
        rows = p.pay.rows
        for r in range(rows.shape[0]):
            for row in range(rows[r]):
                v = p.mval[r, row]
                if v > 0:
                    total_m += v
                    n_m += 1
    return ChainResult(first, paid, total_m, n_m, step, wins, rung(ladder, step))


@njit(cache=True, inline="always")
def with_symbols(p, drops, m):
    """A winning chain's pay with the multiplier symbols' total ``m``, and the amount their values multiply (the
    Rao-Blackwell adjustment's factor): ``multiply``: the chain's pay x ``m``; ``add``: its drops' wins x (its rung
    + ``m``)."""
    if p.add_symbols:
        return drops.wins * (drops.rung + m), drops.wins
    return drops.paid * m, drops.paid


@njit(cache=True, inline="always")
def wheel_spins(p, rng, amounts, counters, awarded):
    """One award of the free spins' wheel (its cash paid to component ``wheel``): the spins it adds to ``awarded``
    within ``max_spins`` (a cut counted in ``free_spins:limit``)."""
    spins, _ = spin_wheel(p.wheel, rng, amounts, counters, WHEEL_AT)
    new = awarded + spins
    if new > p.max_spins:
        new = p.max_spins
        counters[FS_LIMIT] += 1
    return new - awarded


@njit
def play_free_spins(p, rng, amounts, adjust, counters, count, conditional):
    """The free spins of a trigger with ``count`` scatters.  ``conditional`` (a stratum of the exact + conditional
    method): the multiplier symbols' values are Rao-Blackwellized when ``p.rb_values`` (see :func:`play_round`)."""
    counters[FS_STARTED] += 1
    left = min(p.award[min(count, p.cap_count)], p.max_spins)
    awarded = left
    if p.wheel.kind.shape[0] > 0:
        extra = wheel_spins(p, rng, amounts, counters, awarded)
        left += extra
        awarded += extra
    feature_m = 0
    feature_n = 0  # multiplier symbols whose values feature_m adds up
    step = np.int64(0)  # not a literal: see play_round
    total = 0
    rb = 0.0  # E[win | screens] - win, for the multiplier symbols' values
    scratch = p.groups.codes  # int64 scratch slot for the free spins' scatter pays
    restart(p.grid)
    while left > 0:
        left -= 1
        counters[FS_SPINS] += 1
        if not p.grid.feature:
            restart(p.grid)
        s = 0 if p.free.set_cum.shape[0] == 1 else weighted_index(p.free.set_cum, rng)
        src = fill_screen(p, p.free, s, rng)
        scratch[0] = 0
        c = first_drop_groups(p, scratch, 0)
        total += scratch[0]
        drops = chain(p, p.refill if p.use_refill else p.free, src, rng, p.ladder_free, counters, step, p.grid.free)
        paid, m, n_m = drops.paid, drops.multiplier_total, drops.multipliers
        if p.chain_scatters > 0:  # the scatters that dropped in during the cascades count (and pay, with 2)
            c, units = final_groups(p)
            if p.chain_scatters == 2:
                total += units - scratch[0]
        if not p.ladder_free.per_cascade and (drops.wins > 0 or not p.ladder_free.per_win):
            step += 1  # a ladder growing per free spin (per winning one): the next spin one rung up
        elif p.carry:
            step = drops.step + 1 if paid > 0 else drops.step  # the next spin's first drop climbs on after a win
        if m > 0:
            counters[MULTIPLIED] += 1
            if p.persistent:
                feature_m += m
                feature_n += n_m
                paid, factor = with_symbols(p, drops, feature_m)
                rb += float(factor) * (p.mean_value * feature_n - feature_m)
            else:
                paid, factor = with_symbols(p, drops, m)
                rb += float(factor) * (p.mean_value * n_m - m)
        total += paid
        if c >= p.min_count:
            extra = p.retrigger[min(c, p.cap_count)]
            if extra > 0:
                counters[FS_RETRIGGERS] += 1
                new = awarded + extra
                if new > p.max_spins:
                    new = p.max_spins
                    counters[FS_LIMIT] += 1
                left += new - awarded
                awarded = new
                if p.wheel.on_retrigger and p.wheel.kind.shape[0] > 0:
                    extra = wheel_spins(p, rng, amounts, counters, awarded)
                    left += extra
                    awarded += extra
    amounts[p.comp_fs] += total
    if conditional and p.rb_values:
        adjust[p.comp_fs] += rb


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    """One round; ``stratum`` >= 0: a stratum of the exact + conditional method, -1: end to end.

    In a stratum, with ``p.rb_values`` (a multiplier symbol and no max-win cap), the values of the multiplier
    symbols are integrated out (Rao-Blackwell): they are drawn independently of every screen and only multiply
    the chain pays, so E[win | screens] replaces each counted value by the table's mean, and the difference
    E[win | screens] - win goes to ``adjust`` (zero mean: the estimate stays unbiased, its variance drops).  The
    realized wins still make the hit counts, extremes and distribution."""
    conditional = stratum >= 0
    if p.has_fs and p.buy.shape[0] > 0:  # a buy: its bought count (drawn end to end)
        play_free_spins(p, rng, amounts, adjust, counters, p.state_count[bought_state(p.buy, stratum, rng)], conditional)
        return
    if p.has_fs and stratum >= p.has_tumble_stratum:
        play_free_spins(p, rng, amounts, adjust, counters, p.state_count[stratum - p.has_tumble_stratum], conditional)
        return
    s = 0 if p.base.set_cum.shape[0] == 1 else weighted_index(p.base.set_cum, rng)
    src = fill_screen(p, p.base, s, rng)
    restart(p.grid)
    count = first_drop_groups(p, amounts, -1)
    first_units = final_groups(p)[1] if p.chain_scatters == 2 else 0
    # np.int64(...) and variables, never literals, as arguments of the compiled steps: a literal argument would
    # compile the step a second time for its literal type (benchmarks/bench_compile.py)
    drops = chain(p, p.refill if p.use_refill else p.base, src, rng, p.ladder_base, counters, np.int64(0), p.grid.base)
    first, paid, m, n_m = drops.first, drops.paid, drops.multiplier_total, drops.multipliers
    if m > 0:
        counters[MULTIPLIED] += 1
        paid, factor = with_symbols(p, drops, m)
        if conditional and p.rb_values:
            adjust[p.comp_tumble] += float(factor) * (p.mean_value * n_m - m)
    amounts[p.comp_rule] += first
    extra = paid - first
    if p.chain_scatters > 0:  # the scatters that dropped in during the cascades count (and pay, with 2)
        count, units = final_groups(p)
        if p.chain_scatters == 2:
            extra += units - first_units
    if extra > 0:
        amounts[p.comp_tumble] += extra
        counters[TUMBLE_ROUNDS] += 1
    # over the chain, the trigger is not a fact of the first drop: the tumble stratum plays the free spins too
    if (stratum < 0 or p.chain_scatters > 0) and p.has_fs and count >= p.min_count:
        play_free_spins(p, rng, amounts, adjust, counters, np.int64(count), conditional)


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


@njit(cache=True)
def chain_at(p, s, stops, refill_stops, rng, counters):
    """The base game's chain of strip set ``s`` spun to ``stops`` (refills from ``refill_stops`` of the refill
    strips' set 0 when the game has refill strips): (first drop's pay at x1, the chain's pay with the ladder, the
    multiplier symbols' total), pay units.  For the tests' comparison with :func:`workbench.reference.tumble_chain`."""
    restart(p.grid)
    rows = p.pay.rows
    for r in range(rows.shape[0]):
        length = p.base.length[s, r]
        for row in range(rows[r]):
            _land(p, rng, r, row, p.base.symbols[s, r, (stops[r] + row) % length])
        p.top[r] = stops[r] - 1 if stops[r] > 0 else length - 1
    if p.use_refill:
        for r in range(rows.shape[0]):
            p.top[r] = refill_stops[r]
        drops = chain(p, p.refill, 0, rng, p.ladder_base, counters, np.int64(0), p.grid.base)
    else:
        drops = chain(p, p.base, s, rng, p.ladder_base, counters, np.int64(0), p.grid.base)
    return drops.first, drops.paid, drops.multiplier_total


# ---------------------------------------------------------------------------
# building the model
# ---------------------------------------------------------------------------
def _refuse(game: Game) -> None:
    """What the tumble round does not play (SimulationError naming the game)."""
    if game.pays.rule not in RULE_CODES or not game.rule.tumbles:
        raise SimulationError(f"{game.name}: the tumble round plays {', '.join(TUMBLE_RULES)} games, not "
                              f"[pays] rule = {game.pays.rule!r}")
    if game.heights is not None:
        raise SimulationError(f"{game.name}: the tumble round needs fixed reel heights (no heights drawn per spin)")
    if game.groups:
        raise SimulationError(f"{game.name}: the tumble round does not pay [groups] (mixed combinations)")
    tall = [s.name for s in game.symbols.values() if s.height != 1]
    if tall:
        raise SimulationError(f"{game.name}: the tumble round needs one-row symbols ({', '.join(tall)} is taller)")
    if any(s.carries_multiplier or s.by_mode for s in game.symbols.values()):
        raise SimulationError(f"{game.name}: the tumble round does not play multiplier wilds; use multiplier_symbol")
    if game.rule.directions and game.pays.direction != "left_to_right":
        raise SimulationError(f"{game.name}: the tumble round pays lines left to right only")
    if game.rule.equal_reels and len(set(game.rows)) != 1:
        raise SimulationError(f"{game.name}: cluster pays need every reel the same height")
    if any(t.award is not None for t in game.triggers.values()):
        raise SimulationError(f"{game.name}: the tumble round does not pay bonus award tables")


def _award(f, key: str, min_count: int, cap_count: int) -> np.ndarray:
    """int64[cap_count + 1]: the spins ``[features] key`` awards for each count: by the map, or ``key_per_scatter``
    spins per scatter."""
    per = f.get(f"{key}_per_scatter")
    if per is None:
        return _spins_by_count(f.get(key, {}), min_count, cap_count)
    out = np.zeros(cap_count + 1, dtype=np.int64)
    out[min_count:] = int(per) * np.arange(min_count, cap_count + 1, dtype=np.int64)
    return out


def _spins_by_count(spins: dict, min_count: int, cap_count: int) -> np.ndarray:
    by_key = {parse_count(k): int(v) for k, v in spins.items()}
    out = np.zeros(cap_count + 1, dtype=np.int64)
    for c in range(min_count, cap_count + 1):
        keys = [k for k in by_key if k <= c]
        out[c] = by_key[max(keys)] if keys else 0
    return out


def components(game: Game) -> list:
    """The rule's component, ``scatter:<name>`` per paying group, ``tumble``, then ``free_spins`` with a trigger (and
    ``wheel``, the free spins' wheel cash, added by :func:`~workbench.rounds.wheels.wheel_params`)."""
    out = [game.pays.rule] + [f"scatter:{n}" for n, g in game.scatters.items() if any(p > 0 for p in g.pays.values())]
    out.append("tumble")
    if "trigger" in game.features:
        out.append("free_spins")
    return out


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The tumble template's round (see the module docstring)."""
    _refuse(game)
    f = game.features
    comps = components(game)
    sc = scatter_arrays(game)
    n_sym = len(game.symbols)
    member = np.zeros((max(len(game.scatters), 1), n_sym), dtype=np.int64)
    comp = np.full(max(len(game.scatters), 1), -1, dtype=np.int64)
    for g, (name, group) in enumerate(game.scatters.items()):
        for sym in group.symbols:
            member[g, game.symbols[sym].index] = 1
        if f"scatter:{name}" in comps:
            comp[g] = comps.index(f"scatter:{name}")
    groups = GroupArrays(member, sc.mode, sc.cap, sc.pays, comp, np.zeros(1, dtype=np.int64))
    if len(game.scatters) == 0:
        groups = GroupArrays(member, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                             np.zeros((0, 1), dtype=np.int64), comp, np.zeros(1, dtype=np.int64))
    base = virtual_strips(game, "base")
    has_fs = "trigger" in f
    free = virtual_strips(game, f["free_spins_mode"]) if has_fs else base
    use_refill = "refill_mode" in f
    refill = virtual_strips(game, f["refill_mode"]) if use_refill else base
    ladder_base, ladder_free = ladders(f)
    mult_sym, mcum, mvals, mean_value = -1, np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64), Fraction(0)
    if "multiplier_symbol" in f:
        mult_sym = game.symbols[f["multiplier_symbol"]].index
        table = game.tables[f["multiplier_values"]]
        mcum = np.cumsum(np.asarray(table.weights, dtype=np.int64))
        mvals = np.asarray([int(e["value"]) for e in table.entries], dtype=np.int64)
        mean_value = Fraction(int((mvals * np.asarray(table.weights, dtype=np.int64)).sum()), int(mcum[-1]))
    trigger_group, min_count, cap_count, count_mode = -1, 1 << 30, 0, ANYWHERE
    award = retrigger = np.zeros(1, dtype=np.int64)
    max_spins = int(f.get("max_free_spins", MAX_FREE_SPINS))
    names, probabilities, state_count = [], [], np.zeros(1, dtype=np.int64)
    if has_fs:
        trigger = game.triggers[f["trigger"]]
        trigger_group = list(game.scatters).index(trigger.scatter)
        min_count = trigger.min_count
        keys = [parse_count(k) for k in f.get("free_spins", {})] + [parse_count(k) for k in f.get("retrigger", {})]
        per_scatter = "free_spins_per_scatter" in f or "retrigger_per_scatter" in f
        # spins per scatter: every count a screen can show plays differently
        cap_count = sum(int(r) for r in game.rows) if per_scatter else max(keys + [min_count])
        count_mode = ADJACENT if game.scatters[trigger.scatter].counting == "adjacent_from_first_reel" else ANYWHERE
        award = _award(f, "free_spins", min_count, cap_count)
        retrigger = _award(f, "retrigger", min_count, cap_count)
        probabilities = lines_count_states(game, trigger_group, count_mode, min_count, cap_count)
        top = max([c for c, p in zip(range(min_count, cap_count + 1), probabilities) if p > 0], default=min_count)
        if per_scatter:  # the counts above the most the base strips show are never a stratum
            probabilities = probabilities[: top - min_count + 1]
        last = min_count + len(probabilities) - 1
        names = [f"free_spins:{c}" + ("+" if c == cap_count else "") for c in range(min_count, last + 1)]
        state_count = np.arange(min_count, last + 1, dtype=np.int64)
        if f.get("chain_scatters", "none") != "none":  # the trigger is a fact of the chain: the tumble stratum plays it
            names, probabilities = [], []
    buy = np.zeros(0, dtype=np.int64)
    if game.bet_mode.buy:
        if not has_fs:
            raise SimulationError(f"{game.name}: bet mode {game.bet_mode.name!r} buys a feature, but the game has none")
        names, probabilities, state_count, buy = bought(game, names, probabilities, state_count, cap_count)
    else:
        names, probabilities = ["tumble"] + names, [Fraction(1)] + probabilities
    shape = (game.reels, max(game.rows))
    grid = position_grid(f, *shape)
    has_wheel = has_fs and "wheel" in f
    wheel = wheel_params(game, comps) if has_wheel else no_wheel()  # adds component "wheel"
    params = TumbleParams(
        base=base, free=free, refill=refill, use_refill=use_refill, pay=rule_arrays(game, grid), groups=groups,
        screen=np.zeros(shape, dtype=np.int64), mval=np.zeros(shape, dtype=np.int64), remove=np.zeros(shape, dtype=np.bool_),
        top=np.zeros(game.reels, dtype=np.int64), ladder_base=ladder_base, ladder_free=ladder_free,
        carry=bool(f.get("free_spins_ladder_carries", False)),
        max_cascades=np.int64(f.get("max_cascades", 1000)), mult_sym=np.int64(mult_sym), mcum=mcum, mvals=mvals,
        persistent=bool(f.get("persistent_multiplier", True)), comp_rule=np.int64(0), comp_tumble=np.int64(comps.index("tumble")),
        comp_fs=np.int64(comps.index("free_spins") if has_fs else -1), trigger_group=np.int64(trigger_group),
        min_count=np.int64(min_count), cap_count=np.int64(cap_count), award=award, retrigger=retrigger,
        max_spins=np.int64(max_spins), has_fs=has_fs, has_tumble_stratum=np.int64(0 if buy.shape[0] else 1),
        state_count=state_count, buy=buy, cost_units=pay_scale(game).cost_units,
        chain_scatters=np.int64(CHAIN_SCATTERS.index(f.get("chain_scatters", "none"))),
        # a cap makes the win a non-linear function of the values: no Rao-Blackwell adjustment under one
        rb_values=mult_sym >= 0 and game.max_win is None, mean_value=float(mean_value),
        add_symbols=f.get("multiplier_symbols", "multiply") == "add", grid=grid, wheel=wheel,
    )
    features = [Feature("tumble", "tumble:rounds", ("tumble",))]
    if has_fs:
        features.append(Feature("free_spins", "free_spins", ("free_spins",) + (("wheel",) if has_wheel else ())))
    return RoundModel(game=game, components=tuple(comps), counters=COUNTERS + (WHEEL_COUNTERS if has_wheel else ()),
                      params=params, run_chunk=run_chunk,
                      # the tumble stratum is natural play without the free spins: it plays its first drop
                      strata=tuple(Stratum(n, p, moves_with_base_strips=(n == "tumble"), first_screen=(n == "tumble"))
                                   for n, p in zip(names, probabilities)),
                      features=tuple(features),
                      stake=stake, notes={"tumble": "exact first drop + simulated cascades (and free spins by trigger count)"
                                          if f.get("chain_scatters", "none") == "none" else
                                          "exact first drop + simulated cascades and free spins (scatters counted over "
                                          "the whole chain: the trigger is simulated with the chain)"})
