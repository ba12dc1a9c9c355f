"""Super 10 Stars (Red Rake Gaming): rules as features over shared building blocks.

Rules (see docs/games/super_10_stars.md for each rule's reading and test):

- 5x3, 30 lines, highest win per line, line wins added; golden and silver
  scatters pay by count x total bet; Bonus symbols pay 1 x total bet each;
- Super 7 (reel 3 only): expands to a wild reel 3 for that spin and awards a
  respin of the other reels with reel 3 held wild;
- Super 10 (reel 3 only, 3 rows tall) fully visible: the Super 10 mini game,
  one draw of table ``super10_reel``: a cash prize (x total bet), the Frenzy
  Wheel, or immediate free spins on strip set mode ``super10_free_spins``;
- Frenzy Wheel: the player picks a colour; each draw of ``frenzy_wheel`` adds
  its multiplier; a matching colour draws again; a mismatch or a total above
  ``frenzy_limit`` ends it; pays the total x total bet.  Both choices are
  played out in every round (independent draws) so each option's RTP is
  reported; the round pays the option named by ``frenzy_choice``;
- 3 Wheel symbols (reels 1, 3, 5): one draw of ``wheel`` paying value x line bet;
- 3 Bonus symbols (reels 2, 3, 4): one draw of ``bonus_game`` sets the free
  spins and their multiplier; free spins use mode ``free_spins`` strips; 3
  Bonus symbols during free spins add the same number of spins again, up to
  ``max_free_spins`` in total.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..exact import pay_scale
from ..model import Game
from ..simulate.blocks import draw_table, expand_reel, pay_screen, pay_windows
from ..simulate.chunks import finish_chunk, record_round, record_single
from ..simulate.conditional import build_state_sampler, sample_state
from ..simulate.kernel import (
    choose_set,
    compile_mode,
    count_groups,
    fill_screen,
    line_arrays,
    line_pay_windows,
    quiet_check,
    scatter_arrays,
    screen_is_quiet,
    scatter_pay,
    spin_reel,
    spin_windows,
    table_arrays,
)
from ..simulate.model import Feature, Option, RoundModel, Stratum
from .params import Param

FEATURES = {
    "wild_symbol": Param("symbol", "the symbol a Super 7 reel turns into"),
    "super7_reel": Param("int", "reel (1-based) carrying Super 7 and Super 10", min=1),
    "super7_scatter": Param("scatter", "scatter group counting visible Super 7 symbols"),
    "super10_scatter": Param("scatter", "scatter group counting fully visible Super 10 symbols"),
    "wheel_scatter": Param("scatter", "scatter group counting Wheel symbols"),
    "bonus_scatter": Param("scatter", "scatter group counting Bonus symbols"),
    "gold_scatter": Param("scatter", "golden Super 5 Stars scatter group"),
    "silver_scatter": Param("scatter", "silver Super 5 Stars scatter group"),
    "wheel_trigger": Param("int", "Wheel symbols needed for a wheel spin", min=1),
    "bonus_trigger": Param("int", "Bonus symbols needed for the free spins mini game (also retriggers)", min=1),
    "wheel_table": Param("table", "wheel segments: value (x line bet)"),
    "super10_table": Param("table", "Super 10 mini game: award = cash (value x total bet) | frenzy | free_spins (spins)"),
    "frenzy_table": Param("table", "Frenzy Wheel segments: colour (red/green), multiplier (x total bet)"),
    "frenzy_limit": Param("number", "a total multiplier above this ends the Frenzy Wheel", min=1),
    "frenzy_choice": Param("str", "colour the player picks in the played round", choices=("red", "green")),
    "bonus_table": Param("table", "free spins mini game: spins, multiplier"),
    "max_free_spins": Param("int", "most free spins one feature can award in total", min=1),
    "free_spins_mode": Param("mode", "strip-set mode of the Bonus free spins"),
    "super10_free_spins_mode": Param("mode", "strip-set mode of the Super 10 free spins"),
}

COMPONENTS = (
    "lines",
    "scatter:GOLD",
    "scatter:SILVER",
    "scatter:BONUS",
    "super7",
    "wheel",
    "super10_cash",
    "frenzy",
    "super10_free_spins",
    "free_spins",
    "option:frenzy_red",
    "option:frenzy_green",
)
C_LINES, C_GOLD, C_SILVER, C_BONUS, C_SUPER7, C_WHEEL, C_S10_CASH, C_FRENZY, C_S10_FREE, C_FREE, C_RED, C_GREEN = range(12)
COUNTERS = ("super7", "wheel", "super10", "super10_cash", "frenzy", "super10_free_spins", "free_spins",
            "free_spins_played", "retriggers", "free_spins_capped")
(K_SUPER7, K_WHEEL, K_SUPER10, K_S10_CASH, K_FRENZY, K_S10_FREE, K_FREE, K_FREE_PLAYED, K_RETRIGGER,
 K_FREE_CAPPED) = range(10)
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
@njit(cache=True, _nrt=False)
def frenzy_wheel(p, rng, colour):
    """Play the Frenzy Wheel for the chosen ``colour``: returns the total multiplier (x total bet)."""
    total = 0.0
    while True:
        seg = draw_table(p.frenzy_cum, rng)
        total += p.frenzy_mult[seg]
        if p.frenzy_colour[seg] != colour or total > p.frenzy_limit:
            return total


@njit(cache=True, _nrt=False)
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
            counters[K_RETRIGGER] += 1
            before = awarded
            awarded = min(awarded + spins, p.max_free_spins)
            if awarded - before < spins:
                counters[K_FREE_CAPPED] += 1
    counters[K_FREE_PLAYED] += played


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
        amounts[C_LINES] += line_pay_windows(base, s, p.lines, wins)
        return C_LINES
    counts = p.counts
    pay_windows(base, s, p.lines, p.scat, wins, counts, amounts, C_LINES, p.comp_scatter, 1)
    n_bonus = counts[p.g_bonus]
    n_wheel = counts[p.g_wheel]
    n_s7 = counts[p.g_s7]
    n_s10 = counts[p.g_s10]
    if n_s7 > 0:
        # Super 7 expands: this spin pays with reel 3 wild instead of as landed (scatter pays
        # stay as landed); then the other reels respin once with reel 3 held wild.
        counters[K_SUPER7] += 1
        screen = p.screen
        fill_screen(base, s, wins, screen)
        expand_reel(screen, p.reel3, p.wild)
        amounts[C_SUPER7] += pay_screen(p.lines, screen) - line_pay_windows(base, s, p.lines, wins)
        for r in range(wins.shape[0]):
            if r != p.reel3:
                wins[r] = spin_reel(base, s, r, rng)
        fill_screen(base, s, wins, screen)
        expand_reel(screen, p.reel3, p.wild)
        amounts[C_SUPER7] += pay_screen(p.lines, screen)
        count_groups(base, s, p.scat, wins, counts, p.reel3)
        for g in range(p.comp_scatter.shape[0]):
            if p.comp_scatter[g] >= 0:
                amounts[C_SUPER7] += scatter_pay(p.scat, g, counts[g])
    if n_wheel >= p.wheel_trigger:
        counters[K_WHEEL] += 1
        amounts[C_WHEEL] += p.wheel_value[draw_table(p.wheel_cum, rng)] * p.line_bet_units
    if n_s10 > 0:
        counters[K_SUPER10] += 1
        entry = draw_table(p.s10_cum, rng)
        award = p.s10_award[entry]
        if award == AWARD_CASH:
            counters[K_S10_CASH] += 1
            amounts[C_S10_CASH] += np.int64(round(p.s10_value[entry] * p.cost_units))
        elif award == AWARD_FRENZY:
            counters[K_FRENZY] += 1
            red = np.int64(round(frenzy_wheel(p, rng, RED) * p.cost_units))
            green = np.int64(round(frenzy_wheel(p, rng, GREEN) * p.cost_units))
            amounts[C_RED] += red
            amounts[C_GREEN] += green
            amounts[C_FRENZY] += red if p.frenzy_choice == RED else green
        else:
            counters[K_S10_FREE] += 1
            free_spins(p, p.s10free, rng, p.s10_spins[entry], 1, False, amounts, counters, C_S10_FREE, p.comp_s10free)
    if n_bonus >= p.bonus_trigger:
        counters[K_FREE] += 1
        entry = draw_table(p.bonus_cum, rng)
        free_spins(p, p.free, rng, p.bonus_spins[entry], p.bonus_mult[entry], True, amounts, counters, C_FREE, p.comp_free)
    return -1


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        if play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum) == C_LINES:
            record_single(acc, C_LINES)  # a quiet spin: only the lines paid
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
    base_sets = [s for s in game.strip_sets_for("base") if s.weight > 0]
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
        comp_free=np.where(comp_scatter >= 0, C_FREE, -1).astype(np.int64),
        comp_s10free=np.where(comp_scatter >= 0, C_S10_FREE, -1).astype(np.int64),
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
        strata=tuple(Stratum(n, p) for n, p in zip(sampler.names, sampler.probabilities)),
        features=(
            Feature("super7", "super7", ("super7",)),
            Feature("wheel", "wheel", ("wheel",)),
            Feature("super10", "super10", ("super10_cash", "frenzy", "super10_free_spins")),
            Feature("free_spins", "free_spins", ("free_spins",)),
        ),
        options=(Option("frenzy_choice", "frenzy", {"red": "option:frenzy_red", "green": "option:frenzy_green"}),),
        stake=stake,
    )


def check_features(features: dict, report, refs: dict) -> None:
    """Cross-checks of the feature parameters beyond their types.

    Everything the compiled round relies on is checked here, so a bad file is
    a :class:`~workbench.errors.ReelsetError` naming the key, never a crash or
    a silently truncated value (tables become int64/float64 arrays).
    """
    tables = refs["table"]
    strip_sets = refs["strip_set"]
    scatters = refs["scatter"]
    symbols = refs["symbol"]

    def whole(v, low):
        return isinstance(v, int) and not isinstance(v, bool) and v >= low

    def number(v, low):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v < float("inf")

    for key, fields in (("wheel_table", ("value",)), ("frenzy_table", ("colour", "multiplier")), ("bonus_table", ("spins", "multiplier"))):
        table = tables[features[key]]
        for i, entry in enumerate(table.entries):
            for field in fields:
                if field not in entry:
                    report(("tables", features[key], "entries", i), f"entry needs {field!r}")
    wheel = features["wheel_table"]
    for i, entry in enumerate(tables[wheel].entries):
        if "value" in entry and not whole(entry["value"], 0):
            report(("tables", wheel, "entries", i, "value"), f"value must be a whole number >= 0 (x line bet), got {entry['value']!r}")
    bonus = features["bonus_table"]
    for i, entry in enumerate(tables[bonus].entries):
        if "spins" in entry and not whole(entry["spins"], 1):
            report(("tables", bonus, "entries", i, "spins"), f"spins must be a whole number >= 1, got {entry['spins']!r}")
        elif "spins" in entry and entry["spins"] > features["max_free_spins"]:
            report(("tables", bonus, "entries", i, "spins"), f"{entry['spins']} spins is more than max_free_spins = {features['max_free_spins']}")
        if "multiplier" in entry and not whole(entry["multiplier"], 1):
            report(("tables", bonus, "entries", i, "multiplier"), f"multiplier must be a whole number >= 1, got {entry['multiplier']!r}")
    for i, entry in enumerate(tables[features["super10_table"]].entries):
        award = entry.get("award")
        if award not in ("cash", "frenzy", "free_spins"):
            report(("tables", features["super10_table"], "entries", i), f"award must be cash, frenzy or free_spins, got {award!r}")
        elif award == "cash" and "value" not in entry:
            report(("tables", features["super10_table"], "entries", i), "a cash award needs value (x total bet)")
        elif award == "cash" and not number(entry["value"], 0):
            report(("tables", features["super10_table"], "entries", i, "value"), f"value must be a number >= 0 (x total bet), got {entry['value']!r}")
        elif award == "free_spins" and "spins" not in entry:
            report(("tables", features["super10_table"], "entries", i), "a free_spins award needs spins")
        elif award == "free_spins" and not whole(entry["spins"], 1):
            report(("tables", features["super10_table"], "entries", i, "spins"), f"spins must be a whole number >= 1, got {entry['spins']!r}")
    frenzy = tables[features["frenzy_table"]]
    for i, entry in enumerate(frenzy.entries):
        if entry.get("colour") not in ("red", "green"):
            report(("tables", features["frenzy_table"], "entries", i), "colour must be red or green")
        elif "multiplier" in entry and not number(entry["multiplier"], 0):
            report(("tables", features["frenzy_table"], "entries", i, "multiplier"), f"multiplier must be a number >= 0, got {entry['multiplier']!r}")
    for colour in ("red", "green"):
        # a choice that always matches and never adds would spin forever
        drawn = [e for e, w in zip(frenzy.entries, frenzy.weights) if w > 0]
        if drawn and all(e.get("colour") == colour and e.get("multiplier") == 0 for e in drawn):
            report(("tables", features["frenzy_table"], "entries"), f"the Frenzy Wheel never ends for {colour}: every segment is {colour} with multiplier 0")
    for name, group in scatters.items():
        # the round books scatter pays under its fixed components: any other paying group would go unpaid
        if any(pay > 0 for pay in group.pays.values()) and f"scatter:{name}" not in COMPONENTS:
            report(("scatters", name, "pays"), "only the scatter groups GOLD, SILVER and BONUS can pay in this game module")
    wild = features["wild_symbol"]
    if symbols[wild].kind != "wild":
        report(("features", "wild_symbol"), f"{wild} is not a wild symbol")
    # Super 7 and Super 10 live on the reel the code expands (super7_reel)
    reel = features["super7_reel"]
    n_reels = len(next(iter(strip_sets.values())).reels) if strip_sets else reel
    if reel > n_reels:
        report(("features", "super7_reel"), f"reel {reel} does not exist (1..{n_reels})")
    special = set(scatters[features["super7_scatter"]].symbols) | set(scatters[features["super10_scatter"]].symbols)
    for name, strip_set in strip_sets.items():
        for r, strip in enumerate(strip_set.reels, start=1):
            wrong = sorted(special & set(strip.symbols)) if r != reel else []
            if wrong:
                report(("strip_sets", name, f"reel{r}"), f"{', '.join(wrong)} may only be on reel super7_reel = {reel}")
    # the par sheet's trigger frequencies must be the ones the round uses
    starts = (("wheel_scatter", features["wheel_trigger"], "features.wheel_trigger"),
              ("bonus_scatter", features["bonus_trigger"], "features.bonus_trigger"),
              ("super7_scatter", 1, "one Super 7"), ("super10_scatter", 1, "one Super 10"))
    for name, trigger in refs["trigger"].items():
        for group, need, why in starts:
            if trigger.scatter == features[group] and trigger.min_count != need:
                report(("triggers", name, "min_count"), f"is {trigger.min_count} but the round starts this feature on {need} ({why})")
    # free spins are played on special reels (rules: no golden scatter, no Wheel; Super 10's also no Bonus);
    # the free spins play neither the Super 7 nor the Super 10 feature
    banned = {
        "free_spins_mode": ("gold_scatter", "wheel_scatter", "super7_scatter", "super10_scatter"),
        "super10_free_spins_mode": ("gold_scatter", "wheel_scatter", "bonus_scatter", "super7_scatter", "super10_scatter"),
    }
    for mode_key, groups in banned.items():
        not_here = set()
        for group in groups:
            not_here |= set(scatters[features[group]].symbols)
        for name, strip_set in strip_sets.items():
            if strip_set.mode != features[mode_key]:
                continue
            for r, strip in enumerate(strip_set.reels, start=1):
                wrong = sorted(not_here & set(strip.symbols))
                if wrong:
                    report(("strip_sets", name, f"reel{r}"), f"{', '.join(wrong)} may not be on the {mode_key} strips ({strip_set.mode!r})")
