"""Super 10 Stars: the compiled round (numba), built from the shared steps.

The rules, parameters and checks are in :mod:`workbench.games.super_10_stars`; this
module is imported only when the game is simulated.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..._jit import njit
from ...model import Game
from ...pays.lines import line_arrays
from ...pays.scale import pay_scale
from ...pays.scatter import scatter_arrays, scatter_pay
from ...simulate.steps import draw_table, expand_reel, pay_screen, pay_windows
from ...simulate.chunks import finish_chunk, record_round, record_single
from ...simulate.conditional import build_state_sampler, sample_state
from ...simulate.kernel import (
    choose_set,
    compile_mode,
    count_groups,
    fill_screen,
    line_pay_windows,
    quiet_check,
    screen_is_quiet,
    spin_reel,
    spin_windows,
    table_arrays,
)
from . import COMPONENTS
from ...simulate.model import named_indices, Feature, Option, RoundModel, Stratum


COUNTERS = ("super7", "wheel", "super10", "super10_cash", "frenzy", "super10_free_spins", "free_spins",
            "free_spins_played", "retriggers", "free_spins_capped")
# component and counter slots by name (compile-time constants in the compiled round)
C = named_indices("Components", COMPONENTS, __name__)
K = named_indices("Counters", COUNTERS, __name__)
AWARD_CASH, AWARD_FRENZY, AWARD_FREE = 0, 1, 2
RED, GREEN = 0, 1

Super10Params = namedtuple(
    "Super10Params",
    [
        "base", "free", "s10free", "lines", "scat", "comp_scatter", "comp_free", "comp_s10free", "wins", "counts", "screen",
        "wild", "reel3", "g_s7", "g_s10", "g_wheel", "g_bonus", "wheel_trigger", "bonus_trigger",
        "wheel_cum", "wheel_value", "s10_cum", "s10_award", "s10_value", "s10_spins",
        "frenzy_cum", "frenzy_colour", "frenzy_mult", "frenzy_limit", "frenzy_choice",
        "bonus_cum", "bonus_spins", "bonus_mult", "max_free_spins",
        "line_bet_units", "cost_units", "quiet_bias", "quiet_mask", "sampler_set_cum", "sampler_cum", "sampler_nxt", "sampler_nwin",
    ],
)


# Rare feature paths are compiled as separate functions (not inlined into the round):
# the hot base-game path stays small, which keeps it fast and the compile short.
@njit(_nrt=False)
def frenzy_wheel(p, rng, colour):
    """Play the Frenzy Wheel for the chosen ``colour``: returns the total multiplier (x total bet)."""
    total = 0.0
    while True:
        seg = draw_table(p.frenzy_cum, rng)
        total += p.frenzy_mult[seg]
        if p.frenzy_colour[seg] != colour or total > p.frenzy_limit:
            return total


@njit(_nrt=False)
def free_spins(p, ma, rng, spins, multiplier, retrigger, amounts, counters, component, comp_scatter):
    """Play ``spins`` free spins on ``ma`` with every win x ``multiplier``, paid to ``component``.

    With ``retrigger``, ``bonus_trigger`` Bonus symbols add ``spins`` again, never
    beyond ``max_free_spins`` in total.
    """
    awarded = spins
    played = 0
    wins = p.wins
    while played < awarded:
        s = choose_set(ma, rng)
        spin_windows(ma, s, rng, wins)
        pay_windows(ma, s, p.lines, p.scat, wins, p.counts, amounts, component, comp_scatter, multiplier)
        played += 1
        if retrigger and p.counts[p.g_bonus] >= p.bonus_trigger:
            counters[K.retriggers] += 1
            before = awarded
            awarded = min(awarded + spins, p.max_free_spins)
            if awarded - before < spins:
                counters[K.free_spins_capped] += 1
    counters[K.free_spins_played] += played


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    base = p.base
    wins = p.wins
    if stratum < 0:
        s = choose_set(base, rng)
        spin_windows(base, s, rng, wins)
    else:
        s = sample_state(p.sampler_set_cum, p.sampler_cum, p.sampler_nxt, p.sampler_nwin, stratum, rng, wins)
    if screen_is_quiet(base, s, wins, p.quiet_bias, p.quiet_mask):
        # most spins: no scatter pays and nothing triggers, so only the lines are needed
        amounts[C.lines] += line_pay_windows(base, s, p.lines, wins)
        return C.lines
    counts = p.counts
    pay_windows(base, s, p.lines, p.scat, wins, counts, amounts, C.lines, p.comp_scatter, 1)
    n_bonus = counts[p.g_bonus]
    n_wheel = counts[p.g_wheel]
    n_s7 = counts[p.g_s7]
    n_s10 = counts[p.g_s10]
    if n_s7 > 0:
        # Super 7 expands: this spin pays with reel 3 wild instead of as landed (scatter pays
        # stay as landed); then the other reels respin once with reel 3 held wild.
        counters[K.super7] += 1
        screen = p.screen
        fill_screen(base, s, wins, screen)
        expand_reel(screen, p.reel3, p.wild)
        amounts[C.super7] += pay_screen(p.lines, screen) - line_pay_windows(base, s, p.lines, wins)
        for r in range(wins.shape[0]):
            if r != p.reel3:
                wins[r] = spin_reel(base, s, r, rng)
        fill_screen(base, s, wins, screen)
        expand_reel(screen, p.reel3, p.wild)
        amounts[C.super7] += pay_screen(p.lines, screen)
        count_groups(base, s, p.scat, wins, counts, p.reel3)
        for g in range(p.comp_scatter.shape[0]):
            if p.comp_scatter[g] >= 0:
                amounts[C.super7] += scatter_pay(p.scat, g, counts[g])
    if n_wheel >= p.wheel_trigger:
        counters[K.wheel] += 1
        amounts[C.wheel] += p.wheel_value[draw_table(p.wheel_cum, rng)] * p.line_bet_units
    if n_s10 > 0:
        counters[K.super10] += 1
        entry = draw_table(p.s10_cum, rng)
        award = p.s10_award[entry]
        if award == AWARD_CASH:
            counters[K.super10_cash] += 1
            amounts[C.super10_cash] += np.int64(round(p.s10_value[entry] * p.cost_units))
        elif award == AWARD_FRENZY:
            counters[K.frenzy] += 1
            red = np.int64(round(frenzy_wheel(p, rng, np.int64(RED)) * p.cost_units))
            green = np.int64(round(frenzy_wheel(p, rng, np.int64(GREEN)) * p.cost_units))
            amounts[C.option_frenzy_red] += red
            amounts[C.option_frenzy_green] += green
            amounts[C.frenzy] += red if p.frenzy_choice == RED else green
        else:
            counters[K.super10_free_spins] += 1
            free_spins(p, p.s10free, rng, p.s10_spins[entry], np.int64(1), np.bool_(False), amounts, counters,
                       np.int64(C.super10_free_spins), p.comp_s10free)
    if n_bonus >= p.bonus_trigger:
        counters[K.free_spins] += 1
        entry = draw_table(p.bonus_cum, rng)
        free_spins(p, p.free, rng, p.bonus_spins[entry], p.bonus_mult[entry], np.bool_(True), amounts, counters,
                   np.int64(C.free_spins), p.comp_free)
    return -1


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        if play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum) == C.lines:
            record_single(acc, C.lines)  # a quiet spin: only the lines paid
        else:
            record_round(acc)
    finish_chunk(acc.events, counters)


# ---------------------------------------------------------------------------
def round_model(game: Game, stake: float | None = None) -> RoundModel:
    f = game.features
    scale = pay_scale(game)
    lines = line_arrays(game)
    groups = list(game.scatters)
    components = list(COMPONENTS)
    comp_scatter = np.array([components.index(f"scatter:{n}") if f"scatter:{n}" in components and any(p > 0 for p in g.pays.values())
                             else -1 for n, g in game.scatters.items()], dtype=np.int64)
    wheel_cum, (wheel_value,) = table_arrays(game, f["wheel_table"], "value")
    s10_cum, (award, value, spins) = table_arrays(game, f["super10_table"], "award", "value", "spins")
    codes = {"cash": AWARD_CASH, "frenzy": AWARD_FRENZY, "free_spins": AWARD_FREE}
    frenzy_cum, (colour, mult) = table_arrays(game, f["frenzy_table"], "colour", "multiplier")
    bonus_cum, (b_spins, b_mult) = table_arrays(game, f["bonus_table"], "spins", "multiplier")
    base_sets = [s for s in game.played_strip_sets("base") if s.weight > 0]
    trig = {"bonus": (f["bonus_scatter"], f["bonus_trigger"]), "wheel": (f["wheel_scatter"], f["wheel_trigger"]),
            "super7": (f["super7_scatter"], 1), "super10": (f["super10_scatter"], 1)}
    names = []
    for mask in range(1, 16):
        names.append("+".join(k for i, k in enumerate(trig) if mask >> i & 1))

    def classify(counts: dict) -> str | None:
        fired = [k for k, (g, need) in trig.items() if counts[g] >= need]
        return "+".join(fired) if fired else None

    sampler = build_state_sampler(game, base_sets, [(g, need) for g, need in trig.values()], classify, names)
    scat = scatter_arrays(game)
    quiet_bias, quiet_mask = quiet_check(game, scat, {groups.index(g): int(need) for g, need in trig.values()})
    params = Super10Params(
        base=compile_mode(game, "base", lines),
        free=compile_mode(game, f["free_spins_mode"], lines),
        s10free=compile_mode(game, f["super10_free_spins_mode"], lines),
        lines=lines,
        scat=scat,
        comp_scatter=comp_scatter,
        comp_free=np.where(comp_scatter >= 0, C.free_spins, -1).astype(np.int64),
        comp_s10free=np.where(comp_scatter >= 0, C.super10_free_spins, -1).astype(np.int64),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        screen=np.zeros((game.reels, max(game.rows)), dtype=np.int32),
        wild=np.int32(list(game.symbols).index(f["wild_symbol"])),
        reel3=np.int64(f["super7_reel"] - 1),
        g_s7=groups.index(f["super7_scatter"]),
        g_s10=groups.index(f["super10_scatter"]),
        g_wheel=groups.index(f["wheel_scatter"]),
        g_bonus=groups.index(f["bonus_scatter"]),
        wheel_trigger=np.int64(f["wheel_trigger"]),
        bonus_trigger=np.int64(f["bonus_trigger"]),
        wheel_cum=wheel_cum,
        wheel_value=np.asarray(wheel_value, dtype=np.int64),
        s10_cum=s10_cum,
        s10_award=np.array([codes[a] for a in award], dtype=np.int64),
        s10_value=np.array([v or 0 for v in value], dtype=np.float64),
        s10_spins=np.array([n or 0 for n in spins], dtype=np.int64),
        frenzy_cum=frenzy_cum,
        frenzy_colour=np.array([RED if c == "red" else GREEN for c in colour], dtype=np.int64),
        frenzy_mult=np.asarray(mult, dtype=np.float64),
        frenzy_limit=float(f["frenzy_limit"]),
        frenzy_choice=np.int64(RED if f["frenzy_choice"] == "red" else GREEN),
        bonus_cum=bonus_cum,
        bonus_spins=np.asarray(b_spins, dtype=np.int64),
        bonus_mult=np.asarray(b_mult, dtype=np.int64),
        max_free_spins=np.int64(f["max_free_spins"]),
        line_bet_units=np.int64(scale.units(game.bet.credits(1, "line_bet"))),
        cost_units=np.int64(scale.cost_units),
        quiet_bias=quiet_bias,
        quiet_mask=quiet_mask,
        sampler_set_cum=sampler.arrays[0],
        sampler_cum=sampler.arrays[1],
        sampler_nxt=sampler.arrays[2],
        sampler_nwin=sampler.arrays[3],
    )
    return RoundModel(
        game=game,
        components=COMPONENTS,
        counters=COUNTERS,
        params=params,
        run_chunk=run_chunk,
        # a stratum round draws its screen given the state and plays it whole (first_screen)
        strata=tuple(Stratum(n, p, first_screen=True) for n, p in zip(sampler.names, sampler.probabilities)),
        features=(
            Feature("super7", "super7", ("super7",)),
            Feature("wheel", "wheel", ("wheel",)),
            Feature("super10", "super10", ("super10_cash", "frenzy", "super10_free_spins")),
            Feature("free_spins", "free_spins", ("free_spins",), spins="free_spins_played", retriggers="retriggers"),
        ),
        options=(Option("frenzy_choice", "frenzy", {"red": "option:frenzy_red", "green": "option:frenzy_green"}),),
        stake=stake,
    )
