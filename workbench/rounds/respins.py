"""The hold-and-respin round: the classic spin plus a coin feature declared in ``[features]``.

A round is the paid spin, paid as the ``classic`` template pays it (lines, or ways through
:mod:`.ways`; components ``lines`` / ``ways`` and ``scatter:<name>``, exactly the PAR's), then,
when the coin scatter group's count reaches the trigger's ``min_count``, the feature:

- every coin on the screen sticks and gets a value drawn from ``coin_values``: x total bet
  (component ``coins``) or a fixed jackpot (``jackpot:mini``, ``jackpot:minor``,
  ``jackpot:major``: the value of ``[features] mini`` etc.), a collector (``collector = true``:
  the sum of the value coins on the screen once the coins landing with it are placed; component
  ``coins:collected``) or a multiplier (``multiplier = m``: at the end, coins + collected x the
  product of the multiplier coins, at most MAX_MULTIPLIER; the uplift is ``coins:multiplied``;
  jackpots are not multiplied) or a wheel coin (``wheel = "TABLE"``: its value, x total bet, is one award of that
  wheel of cash and respin segments, spun when it lands; :mod:`.coin_wheels`; from then on a value coin);
- ``respins`` respins (3 by default): on each, every empty cell shows a new coin with weight
  ``respin_coin_weight`` against ``respin_blank_weight``; a respin that lands a coin resets the
  count to ``respins``, one that lands none uses one up;
- the feature ends when no respins are left or the screen is full; a full screen adds the grand
  jackpot (``jackpot:grand``) when the file declares ``grand``.

Cells are alike on a respin, so the feature depends on the base screen only through its number of
coins: the exact + conditional method has one stratum per starting count (``hold_and_respin:<n>``,
up to a full screen), with exact probabilities from the strips; a stratum round plays the feature
from that count without a base screen.

A prize mode (``[bet_modes.*] prize_mode = true``) plays the feature alone from an empty screen: its one stratum
starts from 0 coins, so the first board is the first respin; with ``strip_sets`` every board is a spin of that
mode's strips (:func:`board_coins`: a coin sticks on each empty cell whose window shows a coin symbol), else
each empty cell lands by the respin weights.

Counters: ``hold_and_respin`` (features), ``hold_and_respin:respins`` (respins played),
``hold_and_respin:full`` (full screens), ``jackpot:<name>`` (jackpot coins won).
"""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..model import Game, rules
from ..pays.lines import line_arrays
from ..pays.scale import pay_scale
from ..pays.scatter import ANYWHERE, scatter_arrays
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.kernel import base_components, compile_mode, scatter_components
from ..simulate.model import Feature, RoundModel, Stratum
from ..simulate.rng import bounded, weighted_index
from ..simulate.steps import base_spin
from ..simulate.steps.wheels import draw_award
from . import JACKPOTS, MAX_MULTIPLIER
from .coin_wheels import coin_wheel_draw
from .counts import count_states, lines_count_states
from .free_spins import bought, bought_state, spin_ways, ways_mode
from .ways import pay_outcomes, scatter_group_names
from .windows import VirtualStrips, virtual_strips

COUNTERS = ("hold_and_respin", "hold_and_respin:respins", "hold_and_respin:full") + tuple(f"jackpot:{j}" for j in JACKPOTS)
STARTED, RESPINS, FULL = range(3)
JACKPOT_COUNTER = 3  # + index in JACKPOTS
VALUE, COLLECTED, MULT = range(3)  # the running feature in ``CoinParams.state``

# The compiled feature: the coin table (cumulative weights; per entry its units, or -1 units and the jackpot index in
# ``jackpot``; ``collector[e]`` 1 for a collector coin, ``mult[e]`` a multiplier coin's multiplier, else 1), the product
# cap ``max_mult``, the running feature in ``state`` (VALUE, COLLECTED, MULT: units of value coins, units collected,
# product of multipliers), landing weights, cells of a full screen, components (-1: none) and the count each stratum starts with.
CoinParams = namedtuple(
    "CoinParams",
    ["cum", "units", "jackpot", "jackpot_units", "comp_jackpot", "collector", "mult", "max_mult", "comp_collected",
     "comp_multiplied", "state", "respins", "coin_weight", "land_total", "cells",
     "min_count", "state_count", "grand_units", "comp", "comp_grand", "buy", "boards", "board_coin", "board_rows",
     "held", "wheel", "wheel_coin"],
)
# A prize mode's boards (``boards``: windows.VirtualStrips of its strips; no strip set: cells land by weight),
# ``board_coin[symbol]`` 1 for a coin symbol, ``board_rows[reel]`` and the cells a coin holds (``held``, per board).
# ``wheel``: the wheel coins' award (simulate.steps.wheels.AwardDraw, pay units), ``wheel_coin[e]`` whether entry e is
# a wheel coin.
CoinLinesParams = namedtuple("CoinLinesParams", ["base", "lines", "scat", "comp_scatter", "group", "wins", "counts",
                                                 "cost_units", "hr"])
CoinWaysParams = namedtuple("CoinWaysParams", ["base", "cost_units", "hr"])


@njit(cache=True, inline="always")
def land_coins(h, rng, amounts, counters, n):
    """``n`` coins land together (the starting screen, or one respin), each drawn from the table: value coins add
    to ``state[VALUE]``, jackpots are paid at once, multipliers multiply ``state[MULT]`` (capped); then every
    collector of the batch collects ``state[VALUE]``, the value coins on the screen now, this batch's included."""
    st = h.state
    collectors = 0
    for _ in range(n):
        e = weighted_index(h.cum, rng)
        j = h.jackpot[e]
        if j >= 0:
            amounts[h.comp_jackpot[j]] += h.jackpot_units[j]
            counters[JACKPOT_COUNTER + j] += 1
        elif h.collector[e]:
            collectors += 1
        elif h.mult[e] > 1:
            st[MULT] = min(st[MULT] * h.mult[e], h.max_mult)
        elif h.wheel_coin[e]:  # its value: one award of the wheel, spun now
            st[VALUE] += draw_award(h.wheel, rng)
        else:
            st[VALUE] += h.units[e]
    st[COLLECTED] += collectors * st[VALUE]


@njit
def board_coins(h, rng):
    """One board of a prize mode's strips: a strip set by weight, a stop per reel; the coins it shows on cells no
    coin holds stick (held from now on). Returns how many landed."""
    b = h.boards
    k = weighted_index(b.set_cum, rng) if b.set_cum.shape[0] > 1 else 0
    new = 0
    cell = 0
    for reel in range(h.board_rows.shape[0]):
        stop = b.vstop[k, reel, bounded(rng, b.total[k, reel])]
        n = b.length[k, reel]
        for row in range(h.board_rows[reel]):
            if h.held[cell] == 0 and h.board_coin[b.symbols[k, reel, (stop + row) % n]] == 1:
                h.held[cell] = 1
                new += 1
            cell += 1
    return new


@njit(cache=True, inline="always")
def play_coins(h, rng, amounts, counters, coins):
    """The feature from ``coins`` coins on the screen."""
    counters[STARTED] += 1
    st = h.state
    st[VALUE] = 0
    st[COLLECTED] = 0
    st[MULT] = 1
    land_coins(h, rng, amounts, counters, coins)
    h.held[:] = 0
    left = h.respins
    while left > 0 and coins < h.cells:
        counters[RESPINS] += 1
        new = 0
        if h.boards.set_cum.shape[0] > 0:
            new = board_coins(h, rng)
        else:
            for _ in range(h.cells - coins):
                if bounded(rng, h.land_total) < h.coin_weight:
                    new += 1
        if new > 0:
            coins += new
            left = h.respins
            land_coins(h, rng, amounts, counters, new)
        else:
            left -= 1
    amounts[h.comp] += st[VALUE]
    if h.comp_collected >= 0:
        amounts[h.comp_collected] += st[COLLECTED]
    if h.comp_multiplied >= 0:
        amounts[h.comp_multiplied] += (st[MULT] - 1) * (st[VALUE] + st[COLLECTED])
    if coins >= h.cells:
        counters[FULL] += 1
        if h.comp_grand >= 0:
            amounts[h.comp_grand] += h.grand_units


@njit(cache=True, inline="always")
def play_round_lines(p, rng, amounts, adjust, counters, stratum):
    state = bought_state(p.hr.buy, stratum, rng)
    if state >= 0:
        play_coins(p.hr, rng, amounts, counters, p.hr.state_count[state])
        return
    base_spin(p.base, p.lines, p.scat, rng, p.wins, p.counts, amounts, 0, p.comp_scatter)
    coins = p.counts[p.group]
    if coins >= p.hr.min_count:
        play_coins(p.hr, rng, amounts, counters, coins)


@njit(cache=True, _nrt=False)
def run_chunk_lines(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_lines(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


@njit(cache=True, inline="always")
def play_round_ways(p, rng, amounts, adjust, counters, stratum):
    state = bought_state(p.hr.buy, stratum, rng)
    if state >= 0:
        play_coins(p.hr, rng, amounts, counters, p.hr.state_count[state])
        return
    s, coins = spin_ways(p.base, rng)
    pay_outcomes(p.base, s, p.base.outs, amounts)
    if coins >= p.hr.min_count:
        play_coins(p.hr, rng, amounts, counters, coins)


@njit(cache=True, _nrt=False)
def run_chunk_ways(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_ways(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def _coin_params(game: Game, components: list, min_count: int, cells: int) -> CoinParams:
    """The compiled feature (adds its components to ``components``)."""
    f = game.features
    scale = pay_scale(game)

    def units(x_total_bet) -> int:
        return scale.units(game.bet.credits(Fraction(str(x_total_bet)), "total_bet"))

    table = game.tables[f["coin_values"]]
    components.append("coins")
    comp = len(components) - 1
    jackpot = np.full(len(table.entries), -1, dtype=np.int64)
    values = np.zeros(len(table.entries), dtype=np.int64)
    comp_jackpot = np.full(len(JACKPOTS), -1, dtype=np.int64)
    jackpot_units = np.zeros(len(JACKPOTS), dtype=np.int64)
    collector = np.zeros(len(table.entries), dtype=np.int64)
    mult = np.ones(len(table.entries), dtype=np.int64)
    for e, entry in enumerate(table.entries):
        if entry.get("collector"):
            collector[e] = 1
        elif "multiplier" in entry:
            mult[e] = int(entry["multiplier"])
        elif "jackpot" in entry:
            j = JACKPOTS.index(entry["jackpot"])
            jackpot[e] = j
            if comp_jackpot[j] < 0:
                components.append(f"jackpot:{entry['jackpot']}")
                comp_jackpot[j] = len(components) - 1
                jackpot_units[j] = units(f[entry["jackpot"]])
        elif "value" in entry:
            values[e] = units(entry["value"])
    comp_collected = comp_multiplied = -1
    if collector.any():
        components.append("coins:collected")
        comp_collected = len(components) - 1
    if (mult > 1).any():
        components.append("coins:multiplied")
        comp_multiplied = len(components) - 1
    comp_grand = -1
    grand_units = 0
    if "grand" in f:
        components.append("jackpot:grand")
        comp_grand = len(components) - 1
        grand_units = units(f["grand"])
    return CoinParams(
        cum=np.cumsum(np.asarray(table.weights, dtype=np.int64)),
        units=values,
        jackpot=jackpot,
        jackpot_units=jackpot_units,
        comp_jackpot=comp_jackpot,
        collector=collector,
        mult=mult,
        max_mult=np.int64(MAX_MULTIPLIER),
        comp_collected=np.int64(comp_collected),
        comp_multiplied=np.int64(comp_multiplied),
        state=np.zeros(3, dtype=np.int64),
        respins=np.int64(f.get("respins", 3)),
        coin_weight=np.int64(f["respin_coin_weight"]),
        land_total=np.int64(f["respin_coin_weight"] + f["respin_blank_weight"]),
        cells=np.int64(cells),
        min_count=np.int64(min_count),
        state_count=np.arange(min_count, cells + 1, dtype=np.int64),
        grand_units=np.int64(grand_units),
        comp=np.int64(comp),
        comp_grand=np.int64(comp_grand),
        buy=np.zeros(0, dtype=np.int64),  # a buy mode: its counts' cumulative weights (free_spins.bought)
        **_boards(game, cells),
        wheel=coin_wheel_draw(game),
        wheel_coin=np.array(["wheel" in e for e in table.entries], dtype=np.bool_),
    )


def _boards(game: Game, cells: int) -> dict:
    """The fields of a prize mode's boards (see :data:`CoinParams`): landing from its strips (``prize_strips``), or
    none (every cell lands by weight)."""
    mode = game.bet_mode
    coin = np.zeros(len(game.symbols), dtype=np.int64)
    if mode.prize and mode.prize_strips is not None:
        boards = virtual_strips(game, mode.prize_strips)
        group = game.scatters[game.triggers[game.features["trigger"]].scatter]
        for name in group.symbols:
            coin[game.symbols[name].index] = 1
    else:
        none = np.zeros((0, game.reels), dtype=np.int64)
        boards = VirtualStrips(np.zeros(0, dtype=np.int64), none, np.zeros((0, game.reels, 1), dtype=np.int64), none,
                               np.zeros((0, game.reels, 1), dtype=np.int64))
    return {"boards": boards, "board_coin": coin, "board_rows": np.asarray(game.rows, dtype=np.int64),
            "held": np.zeros(cells, dtype=np.int64)}


def _finish(game: Game, components: list, params, run_chunk, probabilities: list, stake) -> RoundModel:
    h = params.hr
    names = [f"hold_and_respin:{n}" for n in range(int(h.min_count), int(h.cells) + 1)]
    most = max((c for c, _ in game.bet_mode.bought_counts), default=0)
    if game.bet_mode.buy and most > h.cells:
        raise SimulationError(f"{game.name}: bet mode {game.bet_mode.name!r} buys {most} coins, more than "
                              f"the {int(h.cells)} cells of the screen")
    names, probabilities, state_count, buy = bought(game, names, probabilities, h.state_count, int(h.cells))
    notes = {"hold_and_respin": "exact base game + simulated coin feature by starting coin count"}
    if game.bet_mode.prize:
        names = ["hold_and_respin:empty screen (prize mode)"]
        strips = game.bet_mode.prize_strips
        notes = {"hold_and_respin": "prize mode: the coin feature from an empty screen, simulated; every board lands "
                                    + (f"from the strips of mode {strips!r}" if strips else "by the respin weights")}
    params = params._replace(hr=h._replace(state_count=state_count, buy=buy))
    feature = Feature("hold_and_respin", "hold_and_respin", tuple(c for c in components if c == "coins" or c.startswith(("coins:", "jackpot:"))))
    return RoundModel(game=game, components=tuple(components), counters=COUNTERS, params=params, run_chunk=run_chunk,
                      strata=tuple(Stratum(n, p) for n, p in zip(names, probabilities)), features=(feature,), stake=stake,
                      notes=notes)


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The hold-and-respin template's round (lines or ways on a fixed grid; see the module docstring)."""
    if game.heights is not None:
        raise SimulationError(f"{game.name}: hold and respin needs a fixed screen; reel heights drawn per spin are not "
                              "supported")
    if any(v.multiplier_table is not None for sym in game.symbols.values() for v in sym.variants) or any(t.award for t in game.triggers.values()):
        raise SimulationError(f"{game.name}: the hold-and-respin round does not play wilds whose multiplier is drawn per "
                              "landing or bonus award tables")
    trigger = game.triggers[game.features["trigger"]]
    cells = sum(game.rows)
    min_count = trigger.min_count
    if min_count > cells:
        raise SimulationError(f"{game.name}: the trigger needs {min_count} coins on a screen of {cells} cells")
    if game.rule is rules.LINES:  # the compiled round knows the lines and the ways screens
        group = list(game.scatters).index(trigger.scatter)
        lines = line_arrays(game)
        components = base_components(game)
        comp_scatter = scatter_components(game, components)
        probabilities = lines_count_states(game, group, ANYWHERE, min_count, cells)
        hr = _coin_params(game, components, min_count, cells)
        params = CoinLinesParams(
            base=compile_mode(game, "base", lines), lines=lines, scat=scatter_arrays(game), comp_scatter=comp_scatter,
            group=np.int64(group), wins=np.zeros(game.reels, dtype=np.int64),
            counts=np.zeros(len(game.scatters), dtype=np.int64), cost_units=pay_scale(game).cost_units, hr=hr)
        return _finish(game, components, params, run_chunk_lines, probabilities, stake)
    if game.rule is rules.WAYS:
        base, values, weights, mode = ways_mode(game, "base", trigger, cells)
        components = [game.pays.rule] + [f"scatter:{name}" for name in scatter_group_names(game)]
        probabilities = count_states(values, weights, mode, min_count, cells)
        hr = _coin_params(game, components, min_count, cells)
        params = CoinWaysParams(base=base, cost_units=pay_scale(game).cost_units, hr=hr)
        return _finish(game, components, params, run_chunk_ways, probabilities, stake)
    raise SimulationError(f"{game.name}: the hold-and-respin round plays lines and ways games; [pays] rule = "
                          f"{game.pays.rule!r} is not supported yet")
