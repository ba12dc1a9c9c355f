"""Bier Haus Oktober Fest (WMS / Scientific Games): rules as features over shared blocks.

Rules (see docs/games/bier_haus_oktober_fest.md for each rule's reading and test):

- 6x6, 50 lines; WILD (beer) substitutes for all but the Heidi scatters;
  on any spin one or more reels may fill with beer and act as WILD, and
  Bigger Mugs (square wild overlays of several sizes) may fall;
- Green, Purple and Red Heidi scatters are 2 rows tall and count when only
  half visible; Red Heidi only on reel 4, at most one visible;
- 5 or more Heidis on adjacent reels from reel 1 award free spins by count
  (``free_spins_award``), retriggering the same way without limit, on the
  alternate ``free_spins`` strips at the triggering bet;
- every Purple Heidi in a trigger becomes a Persisting Wild at its position
  from the next free spin to the end of the feature;
- a Red Heidi in a trigger awards a spin of Heidi's Wheel (before free spins,
  and again on retriggers): cash prizes (x bet multiplier) with an extra spin
  that cannot repeat a cash prize already won, Bigger Mugs Spins, Hans
  Spins, both, or extra free spins;
- Hans Spins (free spins only): up to 10 Hans Wilds at random positions except
  persisting-wild positions; wheel-awarded Hans and Bigger Mugs spins wait in
  meters and happen on random free spins, all of them before the end;
- the feature's winning combinations are worth at least ``bonus_guarantee``
  x bet multiplier;
- any single game (the paid spin and everything it triggers) pays at most
  ``max_win`` in currency: the feature ends when it is reached;
- Mega Drop jackpots (``jackpots``) are simulated on their own stream.
"""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numpy as np
from numba import njit

from ..errors import SimulationError
from ..exact import line_automaton, pay_scale
from ..exact.lines import expected_line_pays_with_wilds
from ..exact.spin import max_future_gain
from ..model import Game
from ..simulate.blocks import (
    apply_cap,
    apply_mask,
    cap_reached,
    draw_table,
    draw_table_excluding,
    guarantee,
    overlay_squares,
    pay_screen,
    pay_windows,
    place_random_wilds,
    wild_reels,
)
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.conditional import build_state_sampler, sample_state
from ..simulate.kernel import (
    choose_set, compile_mode, count_groups, fill_screen, line_arrays, scatter_arrays, spin_windows, table_arrays,
)
from ..simulate.model import Feature, JackpotTier, RoundModel, Stratum
from ..simulate.rng import bounded
from .params import Param

FEATURES = {
    "wild_symbol": Param("symbol", "the WILD symbol (beer); beer reels, mugs, persisting and Hans wilds become it"),
    "heidi_scatter": Param("scatter", "scatter group of all Heidis (adjacent from reel 1)"),
    "purple_heidi": Param("symbol", "Purple Heidi: becomes a Persisting Wild when in a trigger"),
    "red_heidi": Param("symbol", "Red Heidi: a Heidi's Wheel spin when in a trigger"),
    "trigger_count": Param("int", "Heidis needed on adjacent reels from reel 1", min=1),
    "free_spins_award": Param("count_map", "free spins by number of Heidis in the trigger", min=0),
    "free_spins_mode": Param("mode", "strip-set mode of the free spins"),
    "base_random_feature": Param("table", "per base spin: feature = none | beer_reels | bigger_mugs"),
    "free_spins_random_feature": Param("table", "per free spin: feature = none | beer_reels | bigger_mugs | hans"),
    "beer_reels": Param("table", "how many reels fill with beer: reels"),
    "mug_count": Param("table", "how many mugs fall: mugs"),
    "mug_size": Param("table", "size of each mug in rows and reels: size"),
    "hans_wilds": Param("table", "how many Hans Wilds a Hans Spin adds: wilds (at most 10)"),
    "heidi_wheel": Param("table", "wheel segments: award = cash (value x bet multiplier) | mugs | hans | mugs_and_hans | free_spins (value)"),
    "bonus_guarantee": Param("int", "minimum feature win from winning combinations, x bet multiplier", min=0),
    "max_win": Param("number", "max win of any single game, in currency", min=0),
    "reference_stake": Param("number", "total bet (currency) the RTP is quoted for", min=0),
    "jackpots": Param("records", "Mega Drop tiers: name, must_drop (currency), pot_rate, reseed_rate, reseed_fraction",
                      required=False),
}

COMPONENTS = ("lines", "beer_reels", "bigger_mugs", "free_spins", "guarantee", "wheel_cash", "cap")
C_LINES, C_BEER, C_MUGS, C_FREE, C_GUARANTEE, C_WHEEL_CASH, C_CAP = range(7)
COUNTERS = ("beer_reels", "bigger_mugs", "free_spins", "retriggers", "free_spins_played", "wheel_spins",
            "wheel_cash_prizes", "hans_spins", "free_spin_mugs", "free_spin_beer_reels", "persisting_wilds",
            "guarantee", "cap")
(K_BEER, K_MUGS, K_FREE, K_RETRIGGER, K_PLAYED, K_WHEEL, K_CASH, K_HANS, K_FS_MUGS, K_FS_BEER, K_PERSIST,
 K_GUARANTEE, K_CAP) = range(13)
F_NONE, F_BEER, F_MUGS, F_HANS = 0, 1, 2, 3
W_CASH, W_MUGS, W_HANS, W_BOTH, W_SPINS = 0, 1, 2, 3, 4
MAX_MUGS = 8

BierHausParams = namedtuple(
    "BierHausParams",
    [
        "base", "free", "lines", "scat", "comp_scatter", "no_info", "wins", "counts", "screen", "persist",
        "placed", "covered", "reel_mask", "sizes", "wild", "g_heidi", "purple", "red", "trigger_count", "award",
        "base_feature_cum", "base_feature_kind", "fs_feature_cum", "fs_feature_kind", "beer_cum", "beer_reels",
        "mug_count_cum", "mug_count", "mug_size_cum", "mug_size", "hans_cum", "hans_wilds",
        "wheel_weights", "wheel_kind", "wheel_value", "wheel_excluded", "guarantee_units", "cap_units",
        "cost_units", "trigger_set", "line_expect", "plain_expect", "strat_code", "strat_feature", "sampler_set_cum", "sampler_cum", "sampler_nxt", "sampler_nwin",
    ],
)


@njit(cache=True, _nrt=False)
def random_wild_feature(p, rng, kind, screen):
    """Apply a beer-reels or Bigger Mugs draw to ``screen``."""
    n_reels = screen.shape[0]
    if kind == F_BEER:
        k = p.beer_reels[draw_table(p.beer_cum, rng)]
        mask = p.reel_mask
        for r in range(n_reels):
            mask[r] = False
        placed = 0
        while placed < min(k, n_reels):
            r = bounded(rng, n_reels)
            if not mask[r]:
                mask[r] = True
                placed += 1
        wild_reels(screen, mask, p.wild)
    elif kind == F_MUGS:
        n = p.mug_count[draw_table(p.mug_count_cum, rng)]
        sizes = p.sizes
        for i in range(sizes.shape[0]):
            sizes[i] = p.mug_size[draw_table(p.mug_size_cum, rng)] if i < n else 0
        overlay_squares(screen, p.base.rows, sizes, p.wild, rng, p.covered)


@njit(cache=True, _nrt=False)
def heidis_wheel(p, rng, amounts, counters):
    """One award of Heidi's Wheel: returns (extra free spins, Hans spins, Bigger Mugs spins).

    Cash segments pay and spin again; a cash prize already won in this award
    cannot be won again.
    """
    excluded = p.wheel_excluded
    for i in range(excluded.shape[0]):
        excluded[i] = False
    counters[K_WHEEL] += 1
    spins = 0
    hans = 0
    mugs = 0
    while True:
        seg = draw_table_excluding(p.wheel_weights, excluded, rng)
        kind = p.wheel_kind[seg]
        if kind == W_CASH:
            counters[K_CASH] += 1
            amounts[C_WHEEL_CASH] += p.wheel_value[seg]
            # the same cash prize cannot be won again: every segment showing it is excluded
            for i in range(excluded.shape[0]):
                if p.wheel_kind[i] == W_CASH and p.wheel_value[i] == p.wheel_value[seg]:
                    excluded[i] = True
            continue
        if kind == W_MUGS:
            mugs += p.wheel_value[seg]
        elif kind == W_HANS:
            hans += p.wheel_value[seg]
        elif kind == W_BOTH:
            mugs += 2
            hans += 3
        else:
            spins += p.wheel_value[seg]
        return spins, hans, mugs


@njit(cache=True, _nrt=False)
def free_spins_feature(p, rng, amounts, adjust, counters, conditional):
    """The free spins feature, started from the trigger screen held in ``p.wins`` / base set ``s``."""
    counters[K_FREE] += 1
    screen = p.screen
    persist = p.persist
    for r in range(persist.shape[0]):
        for row in range(persist.shape[1]):
            persist[r, row] = False
    p.plain_expect[1] = 1.0  # the expectation of a plain spin must be (re)computed
    awarded = 0
    hans_meter = 0
    mugs_meter = 0
    feature_wins = 0
    played = 0
    ma = p.free
    first = True
    while True:
        if first:
            # the trigger screen is the base screen left in p.wins by the caller
            first = False
            spins, hans, mugs = trigger_awards(p, p.base, p.trigger_set[0], rng, amounts, counters)
            awarded += spins
            hans_meter += hans
            mugs_meter += mugs
            continue
        if played >= awarded or cap_reached(amounts, p.no_info, p.cap_units):
            break
        s = choose_set(ma, rng)
        spin_windows(ma, s, rng, p.wins)
        count_groups(ma, s, p.scat, p.wins, p.counts, -1)
        fill_screen(ma, s, p.wins, screen)
        remaining = awarded - played
        hans_now = False
        mugs_now = False
        if hans_meter > 0 and bounded(rng, remaining) < hans_meter:
            hans_meter -= 1
            hans_now = True
        if mugs_meter > 0 and bounded(rng, remaining) < mugs_meter:
            mugs_meter -= 1
            mugs_now = True
        kind = p.fs_feature_kind[draw_table(p.fs_feature_cum, rng)]
        if kind == F_HANS:
            hans_now = True
        elif kind == F_MUGS:
            mugs_now = True
        elif kind == F_BEER:
            counters[K_FS_BEER] += 1
            random_wild_feature(p, rng, F_BEER, screen)
        apply_mask(screen, persist, p.wild)
        if hans_now:
            counters[K_HANS] += 1
            n = p.hans_wilds[draw_table(p.hans_cum, rng)]
            place_random_wilds(screen, ma.rows, n, persist, p.wild, rng, p.placed)
        if mugs_now:
            counters[K_FS_MUGS] += 1
            random_wild_feature(p, rng, F_MUGS, screen)
        win = pay_screen(p.lines, screen)
        amounts[C_FREE] += win
        feature_wins += win
        if conditional and not (hans_now or mugs_now or kind == F_BEER):
            # Rao-Blackwell: a plain spin's win is replaced (for the mean) by its exact
            # expectation given the Persisting Wilds, which removes its spread.
            if p.plain_expect[1] != 0.0:
                p.plain_expect[0] = persisting_expectation(p)
                p.plain_expect[1] = 0.0
            adjust[C_FREE] += p.plain_expect[0] - win
        played += 1
        if p.counts[p.g_heidi] >= p.trigger_count:
            counters[K_RETRIGGER] += 1
            spins, hans, mugs = trigger_awards(p, ma, s, rng, amounts, counters)
            awarded += spins
            hans_meter += hans
            mugs_meter += mugs
    counters[K_PLAYED] += played
    top_up = guarantee(feature_wins, p.guarantee_units)
    if top_up > 0:
        counters[K_GUARANTEE] += 1
        amounts[C_GUARANTEE] += top_up


@njit(cache=True, _nrt=False)
def trigger_awards(p, ma, s, rng, amounts, counters):
    """Free spins, Persisting Wilds and Heidi's Wheel awards of the trigger now in ``p.wins``.

    Returns (free spins, Hans spins, Bigger Mugs spins) awarded.
    """
    wins = p.wins
    chain = 0
    for r in range(wins.shape[0]):
        if ma.win_cnt[s, r, wins[r], p.g_heidi] == 0:
            break
        chain += 1
    spins = p.award[min(p.counts[p.g_heidi], p.award.shape[0] - 1)]
    red = False
    rows = ma.rows
    for r in range(chain):
        for row in range(rows[r]):
            sym = ma.win_sym[s, r, wins[r], row]
            if sym == p.purple:
                if not p.persist[r, row]:
                    p.persist[r, row] = True
                    p.plain_expect[1] = 1.0
                    counters[K_PERSIST] += 1
            elif sym == p.red:
                red = True
    hans = 0
    mugs = 0
    if red:
        extra, hans, mugs = heidis_wheel(p, rng, amounts, counters)
        spins += extra
    return spins, hans, mugs


@njit(cache=True, inline="always")
def persisting_expectation(p):
    """Exact expected line pay (units) of a free spin without random features, given the Persisting Wilds."""
    rows = p.lines.rows
    total = 0.0
    for l in range(rows.shape[0]):
        mask = 0
        for r in range(rows.shape[1]):
            if p.persist[r, rows[l, r]]:
                mask |= 1 << r
        total += p.line_expect[l, mask]
    return total


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    base = p.base
    wins = p.wins
    if stratum < 0:
        s = choose_set(base, rng)
        spin_windows(base, s, rng, wins)
        kind = p.base_feature_kind[draw_table(p.base_feature_cum, rng)]
    else:
        s = sample_state(p.sampler_set_cum, p.sampler_cum, p.sampler_nxt, p.sampler_nwin, p.strat_code[stratum], rng, wins)
        kind = p.strat_feature[stratum]
    landed = pay_windows(base, s, p.lines, p.scat, wins, p.counts, amounts, C_LINES, p.comp_scatter, 1)
    if kind != F_NONE:
        screen = p.screen
        fill_screen(base, s, wins, screen)
        random_wild_feature(p, rng, kind, screen)
        delta = pay_screen(p.lines, screen) - landed
        if kind == F_BEER:
            counters[K_BEER] += 1
            amounts[C_BEER] += delta
        else:
            counters[K_MUGS] += 1
            amounts[C_MUGS] += delta
    if p.counts[p.g_heidi] >= p.trigger_count:
        p.trigger_set[0] = s
        free_spins_feature(p, rng, amounts, adjust, counters, stratum >= 0)
    if apply_cap(amounts, p.no_info, p.cap_units, C_CAP):
        counters[K_CAP] += 1


@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


# ---------------------------------------------------------------------------
def _plain_free_spin_expectations(game: Game, mode: str, wild: str) -> np.ndarray:
    """E[line pay] of a plain free spin by line and wild cells on the line (mixed over the mode's strip sets)."""
    automaton = line_automaton(game)
    sets = [s for s in game.strip_sets_for(mode) if s.weight > 0]
    total = sum(s.weight for s in sets)
    return sum(s.weight / total * expected_line_pays_with_wilds(game, s, automaton, wild) for s in sets)


def jackpot_tiers(game: Game) -> tuple:
    return tuple(
        JackpotTier(str(t["name"]), float(t["must_drop"]), float(t["pot_rate"]), float(t["reseed_rate"]), float(t["reseed_fraction"]))
        for t in game.features.get("jackpots", ())
    )


def base_screen_can_reach(game: Game, cap_units: int) -> bool:
    """Whether a plain base screen could pay ``cap_units`` or more (bound: every line at its top pay + top scatter pays).

    When it cannot, base spins without trigger or random feature pay exactly their
    screen and are left to the exact engine; otherwise the cap makes them a
    simulated stratum too.
    """
    if cap_units <= 0:
        return False
    automaton = line_automaton(game)
    scale = pay_scale(game)
    top_line = int(max_future_gain(automaton)[0])
    top_scatter = sum(max((scale.units(game.bet.credits(p, g.unit)) for p in g.pays.values()), default=0)
                      for g in game.scatters.values())
    return len(game.paylines) * top_line + top_scatter >= cap_units


def reference_stake(game: Game) -> float:
    return float(game.features["reference_stake"])


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    f = game.features
    stake = reference_stake(game) if stake is None else float(stake)
    if stake <= 0:
        raise SimulationError(f"stake must be positive, got {stake}")
    scale = pay_scale(game)
    lines = line_arrays(game)
    groups = list(game.scatters)
    names = list(game.symbols)
    rows = max(game.rows)
    unit = lambda x: scale.units(game.bet.credits(Fraction(str(x)), "bet_multiplier"))  # noqa: E731
    kinds = {"none": F_NONE, "beer_reels": F_BEER, "bigger_mugs": F_MUGS, "hans": F_HANS}
    base_cum, (base_kind,) = table_arrays(game, f["base_random_feature"], "feature")
    fs_cum, (fs_kind,) = table_arrays(game, f["free_spins_random_feature"], "feature")
    beer_cum, (beer,) = table_arrays(game, f["beer_reels"], "reels")
    mug_count_cum, (mug_count,) = table_arrays(game, f["mug_count"], "mugs")
    mug_size_cum, (mug_size,) = table_arrays(game, f["mug_size"], "size")
    hans_cum, (hans,) = table_arrays(game, f["hans_wilds"], "wilds")
    wheel = game.tables[f["heidi_wheel"]]
    wheel_codes = {"cash": W_CASH, "mugs": W_MUGS, "hans": W_HANS, "mugs_and_hans": W_BOTH, "free_spins": W_SPINS}
    wheel_kind = np.array([wheel_codes[e["award"]] for e in wheel.entries], dtype=np.int64)
    wheel_value = np.array([unit(e.get("value", 0)) if e["award"] == "cash" else int(e.get("value", 0)) for e in wheel.entries],
                           dtype=np.int64)
    award_map = {int(k): int(v) for k, v in f["free_spins_award"].items()}
    top = max(award_map)
    award = np.zeros(max(top, 4 * game.reels) + 1, dtype=np.int64)
    for c in range(len(award)):
        listed = [k for k in award_map if k <= c]
        award[c] = award_map[max(listed)] if listed else 0
    heidi = f["heidi_scatter"]
    trigger = int(f["trigger_count"])
    base_sets = [s for s in game.strip_sets_for("base") if s.weight > 0]
    sampler = build_state_sampler(game, base_sets, [(heidi, trigger)], lambda c: "trigger" if c[heidi] >= trigger else "no_trigger",
                                  ["trigger", "no_trigger"])
    p_trigger, p_none = sampler.probabilities
    base_table = game.tables[f["base_random_feature"]]
    total = Fraction(base_table.total_weight)
    p_feature = {kinds[e["feature"]]: Fraction(0) for e in base_table.entries}
    for e, w in zip(base_table.entries, base_table.weights):
        p_feature[kinds[e["feature"]]] += Fraction(w) / total
    cap_units = 0
    if f["max_win"] > 0:
        cap_units = int(Fraction(str(f["max_win"])) / Fraction(str(stake)) * scale.cost_units)
    strata, codes, feats = [], [], []
    for code, (state, p_state) in enumerate([("trigger", p_trigger), ("no_trigger", p_none)]):
        for kind, label in ((F_NONE, "none"), (F_BEER, "beer_reels"), (F_MUGS, "bigger_mugs")):
            if state == "no_trigger" and kind == F_NONE and not base_screen_can_reach(game, cap_units):
                continue  # pays exactly the base screen (the exact part): nothing to simulate
            strata.append(Stratum(f"{state}+{label}", p_state * p_feature.get(kind, Fraction(0))))
            codes.append(code)
            feats.append(kind)
    params = BierHausParams(
        base=compile_mode(game, "base", lines),
        free=compile_mode(game, f["free_spins_mode"], lines),
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=np.full(len(groups), -1, dtype=np.int64),
        no_info=np.zeros(len(COMPONENTS), dtype=np.bool_),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(groups), dtype=np.int64),
        screen=np.zeros((game.reels, rows), dtype=np.int32),
        persist=np.zeros((game.reels, rows), dtype=np.bool_),
        placed=np.zeros((game.reels, rows), dtype=np.bool_),
        covered=np.zeros((game.reels, rows), dtype=np.bool_),
        reel_mask=np.zeros(game.reels, dtype=np.bool_),
        sizes=np.zeros(MAX_MUGS, dtype=np.int64),
        wild=np.int32(names.index(f["wild_symbol"])),
        g_heidi=groups.index(heidi),
        purple=np.int32(names.index(f["purple_heidi"])),
        red=np.int32(names.index(f["red_heidi"])),
        trigger_count=np.int64(trigger),
        award=award,
        base_feature_cum=base_cum,
        base_feature_kind=np.array([kinds[k] for k in base_kind], dtype=np.int64),
        fs_feature_cum=fs_cum,
        fs_feature_kind=np.array([kinds[k] for k in fs_kind], dtype=np.int64),
        beer_cum=beer_cum,
        beer_reels=np.asarray(beer, dtype=np.int64),
        mug_count_cum=mug_count_cum,
        mug_count=np.minimum(np.asarray(mug_count, dtype=np.int64), MAX_MUGS),
        mug_size_cum=mug_size_cum,
        mug_size=np.asarray(mug_size, dtype=np.int64),
        hans_cum=hans_cum,
        hans_wilds=np.asarray(hans, dtype=np.int64),
        wheel_weights=np.asarray(wheel.weights, dtype=np.int64),
        wheel_kind=wheel_kind,
        wheel_value=wheel_value,
        wheel_excluded=np.zeros(len(wheel.weights), dtype=np.bool_),
        guarantee_units=np.int64(unit(f["bonus_guarantee"])),
        cap_units=np.int64(cap_units),
        cost_units=np.int64(scale.cost_units),
        trigger_set=np.zeros(1, dtype=np.int64),
        line_expect=_plain_free_spin_expectations(game, f["free_spins_mode"], f["wild_symbol"]),
        plain_expect=np.zeros(2),
        strat_code=np.asarray(codes, dtype=np.int64),
        strat_feature=np.asarray(feats, dtype=np.int64),
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
        strata=tuple(strata),
        features=(
            Feature("beer_reels", "beer_reels", ("beer_reels",)),
            Feature("bigger_mugs", "bigger_mugs", ("bigger_mugs",)),
            Feature("free_spins", "free_spins", ("free_spins", "guarantee", "wheel_cash")),
            Feature("heidis_wheel", "wheel_spins", ("wheel_cash",)),
        ),
        jackpots=jackpot_tiers(game),
        stake=stake,
        cap_total_bets=cap_units / scale.cost_units if cap_units else None,
    )


def check_features(features: dict, report, refs: dict) -> None:
    """Cross-checks of the feature parameters beyond their types."""
    tables = refs["table"]
    needs = {
        "base_random_feature": ("feature", ("none", "beer_reels", "bigger_mugs")),
        "free_spins_random_feature": ("feature", ("none", "beer_reels", "bigger_mugs", "hans")),
        "beer_reels": ("reels", None),
        "mug_count": ("mugs", None),
        "mug_size": ("size", None),
        "hans_wilds": ("wilds", None),
    }
    for key, (field, choices) in needs.items():
        name = features[key]
        for i, entry in enumerate(tables[name].entries):
            if field not in entry:
                report(("tables", name, "entries", i), f"entry needs {field!r}")
            elif choices and entry[field] not in choices:
                report(("tables", name, "entries", i), f"{field} must be one of {', '.join(choices)}, got {entry[field]!r}")
            elif not choices and (not isinstance(entry[field], int) or entry[field] < 1):
                report(("tables", name, "entries", i), f"{field} must be a whole number >= 1")
    for i, entry in enumerate(tables[features["hans_wilds"]].entries):
        if isinstance(entry.get("wilds"), int) and entry["wilds"] > 10:
            report(("tables", features["hans_wilds"], "entries", i), "a Hans Spin adds at most 10 Hans Wilds")
    wheel = features["heidi_wheel"]
    for i, entry in enumerate(tables[wheel].entries):
        award = entry.get("award")
        if award not in ("cash", "mugs", "hans", "mugs_and_hans", "free_spins"):
            report(("tables", wheel, "entries", i), f"award must be cash, mugs, hans, mugs_and_hans or free_spins, got {award!r}")
        elif award != "mugs_and_hans" and (not _whole(entry.get("value")) or entry["value"] < 1):
            unit = " (x bet multiplier)" if award == "cash" else ""
            report(("tables", wheel, "entries", i), f"a {award} award needs a value that is a whole number >= 1{unit}")
    if not any(e.get("award") != "cash" and w > 0 for e, w in zip(tables[wheel].entries, tables[wheel].weights)):
        report(("tables", wheel), "the wheel needs at least one segment with weight that is not a cash prize (cash spins again)")
    for i, entry in enumerate(tables[features["mug_count"]].entries):
        if isinstance(entry.get("mugs"), int) and entry["mugs"] > MAX_MUGS:
            report(("tables", features["mug_count"], "entries", i), f"at most {MAX_MUGS} mugs can fall at once")
    # wheel-awarded Hans / Bigger Mugs spins must all fit in the free spins of the award that brings them
    award = {int(k): v for k, v in features["free_spins_award"].items()}
    trigger = features["trigger_count"]
    fewest = min([v for k, v in award.items() if k >= trigger] + [max([v for k, v in award.items() if k <= trigger], default=0)])
    for i, entry in enumerate(tables[wheel].entries):
        award_kind = entry.get("award")
        meter = 3 if award_kind == "mugs_and_hans" else entry.get("value") if award_kind in ("mugs", "hans") else 0
        if isinstance(meter, (int, float)) and meter > fewest:
            report(("tables", wheel, "entries", i),
                   f"{award_kind} awards {meter} meter spins, more than the {fewest} free spins of the smallest trigger: "
                   "they could not all be played")
    for k, v in award.items():
        if not _whole(v):
            report(("features", "free_spins_award"), f"free spins for {k} Heidis must be a whole number, got {v!r}")
    if features["reference_stake"] <= 0:
        report(("features", "reference_stake"), "the reference stake must be above 0 (currency)")
    if award.get(trigger, 0) < 1 and not any(k <= trigger and v >= 1 for k, v in award.items()):
        report(("features", "free_spins_award"), f"a trigger of {trigger} Heidis (trigger_count) would award no free spins")
    if any(k < trigger for k in award):
        report(("features", "free_spins_award"),
               f"counts below trigger_count ({trigger}) can never be awarded: {sorted(k for k in award if k < trigger)}")
    tier_fields = {"name": str, "must_drop": float, "pot_rate": float, "reseed_rate": float, "reseed_fraction": float}
    for i, tier in enumerate(features.get("jackpots", [])):
        for field in tier:
            if field not in tier_fields:
                report(("features", "jackpots", i), f"unknown field {field!r} (known: {', '.join(tier_fields)})")
        for field, kind in tier_fields.items():
            value = tier.get(field)
            if field not in tier:
                report(("features", "jackpots", i), f"jackpot tier needs {field!r}")
            elif kind is str and not isinstance(value, str):
                report(("features", "jackpots", i, field), "must be a string")
            elif kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
                report(("features", "jackpots", i, field), "must be a number")
            elif field == "must_drop" and value <= 0:
                report(("features", "jackpots", i, field), "must be above 0 (currency)")
            elif field in ("pot_rate", "reseed_rate") and not 0 <= value < 1:
                report(("features", "jackpots", i, field), "must be a fraction of each stake in [0, 1)")
            elif field == "reseed_fraction" and not 0 <= value < 1:
                report(("features", "jackpots", i, field), "must be in [0, 1): the reseed as a fraction of must_drop")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
