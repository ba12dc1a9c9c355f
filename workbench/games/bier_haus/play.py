"""Bier Haus Oktober Fest: the compiled round (numba), built from the shared steps.

The rules, parameters and checks are in :mod:`workbench.games.bier_haus`; this
module is imported only when the game is simulated.
"""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numpy as np

from ..._jit import njit
from ...errors import SimulationError
from ...exact.windows import strip_set_windows
from ...exact.enumerate import max_future_gain
from ...exact.wilds import expected_line_pays_with_wilds, mix_masks, random_cells_expectations, square_overlays_distribution, whole_reels_distribution
from ...model import Game
from ...pays.lines import line_arrays, line_automaton
from ...pays.scale import pay_scale
from ...pays.scatter import scatter_arrays
from ...simulate.steps import (
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
from ...simulate.chunks import finish_chunk, record_round
from ...simulate.conditional import build_state_sampler, sample_state
from ...simulate.kernel import (
    choose_set, compile_mode, count_groups, fill_screen, spin_windows, table_arrays,
)
from . import MAX_MUGS
from ...simulate.model import named_indices, Feature, RoundModel, Stratum
from ...simulate.rng import bounded


COMPONENTS = ("lines", "beer_reels", "bigger_mugs", "free_spins", "guarantee", "wheel_cash", "cap")
COUNTERS = ("beer_reels", "bigger_mugs", "free_spins", "retriggers", "free_spins_played", "wheel_spins",
            "wheel_cash_prizes", "hans_spins", "free_spin_mugs", "free_spin_beer_reels", "persisting_wilds",
            "guarantee", "cap")
# component and counter slots by name (compile-time constants in the compiled round)
C = named_indices("Components", COMPONENTS, __name__)
K = named_indices("Counters", COUNTERS, __name__)
F_NONE, F_BEER, F_MUGS, F_HANS = 0, 1, 2, 3
# spin_expect: [0..7] E[free spin win | Persisting Wilds, wild features] by W_BEER | W_MUGS | W_HANS,
# [8..11] the same mixed over the spin's random-feature draw, by the wheel meters' features (W_MUGS | W_HANS) // 2,
# [E_STALE] set when the Persisting Wilds changed since they were computed
# [E_WHEEL] the mean value of a wheel award (its spins mixed, its cash),
W_BEER_BIT, W_MUGS_BIT, W_HANS_BIT = 1, 2, 4
E_MIXED, E_WHEEL, E_STALE = 8, 12, 13
E_SLOTS = E_STALE + 1  # length of spin_expect
W_CASH, W_MUGS, W_HANS, W_BOTH, W_SPINS = 0, 1, 2, 3, 4

BierHausParams = namedtuple(
    "BierHausParams",
    [
        "base", "free", "lines", "scat", "comp_scatter", "no_info", "wins", "counts", "screen", "persist",
        "placed", "covered", "reel_mask", "sizes", "wild", "g_heidi", "purple", "red", "trigger_count", "award",
        "base_feature_cum", "base_feature_kind", "fs_feature_cum", "fs_feature_kind", "beer_cum", "beer_reels",
        "mug_count_cum", "mug_count", "mug_size_cum", "mug_size", "hans_cum", "hans_wilds",
        "wheel_weights", "wheel_kind", "wheel_value", "wheel_excluded", "guarantee_units", "cap_units",
        "cost_units", "trigger_set", "wild_expect", "hans_expect", "fs_kind_probability",
        "spin_expect", "cell_lines", "line_mask", "touched", "wild_expect_base", "hans_expect_base",
        "wheel_cash_mean", "wheel_award_mean", "trigger_control_mean", "retrigger_mean", "strat_code", "strat_feature", "sampler_set_cum", "sampler_cum", "sampler_nxt", "sampler_nwin",
    ],
)


@njit(_nrt=False)
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


@njit(_nrt=False)
def heidis_wheel(p, rng, amounts, counters):
    """One award of Heidi's Wheel: returns (extra free spins, Hans spins, Bigger Mugs spins).

    Cash segments pay and spin again; a cash prize already won in this award
    cannot be won again.
    """
    excluded = p.wheel_excluded
    for i in range(excluded.shape[0]):
        excluded[i] = False
    counters[K.wheel_spins] += 1
    spins = 0
    hans = 0
    mugs = 0
    while True:
        seg = draw_table_excluding(p.wheel_weights, excluded, rng)
        kind = p.wheel_kind[seg]
        if kind == W_CASH:
            counters[K.wheel_cash_prizes] += 1
            amounts[C.wheel_cash] += p.wheel_value[seg]
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


@njit(cache=True, inline="always")
def add_free_spin_wilds(p, rng, screen, beer, hans, mugs):
    """The wilds of a free spin, in order: beer reels, Persisting Wilds, Hans Wilds (never on a
    Persisting Wild), Bigger Mugs."""
    if beer:
        random_wild_feature(p, rng, np.int64(F_BEER), screen)
    apply_mask(screen, p.persist, p.wild)
    if hans:
        n = p.hans_wilds[draw_table(p.hans_cum, rng)]
        place_random_wilds(screen, p.free.rows, n, p.persist, p.wild, rng, p.placed)
    if mugs:
        random_wild_feature(p, rng, np.int64(F_MUGS), screen)


@njit(cache=True, _nrt=False)
def sample_free_spin_wins(p, rng, features, out):
    """Fill ``out`` with wins (units) of free spins at the current Persisting Wilds with the wild
    features ``features`` (W_BEER_BIT | W_MUGS_BIT | W_HANS_BIT): a check on ``spin_expect``."""
    ma = p.free
    for i in range(out.shape[0]):
        s = choose_set(ma, rng)
        spin_windows(ma, s, rng, p.wins)
        fill_screen(ma, s, p.wins, p.screen)
        add_free_spin_wilds(p, rng, p.screen, features & W_BEER_BIT != 0, features & W_HANS_BIT != 0,
                            features & W_MUGS_BIT != 0)
        out[i] = pay_screen(p.lines, p.screen)


@njit(_nrt=False)
def free_spins_feature(p, rng, amounts, adjust, counters, conditional):
    """The free spins feature, started from the trigger screen held in ``p.wins`` / base set ``s``.

    With ``conditional`` (the exact + conditional method) each free spin's win
    is also replaced, for the mean, by its exact expectation given what is
    known before the spin: the Persisting Wilds and, for spins the wheel's
    meters already make Hans or Bigger Mugs spins, that feature
    (Rao-Blackwell).  The random feature of an ordinary spin is drawn
    independently of the rest of the round, so its expectation mixes the
    features by their table weights.  Wheel cash is replaced by its exact
    expectation per wheel award the same way.
    """
    counters[K.free_spins] += 1
    screen = p.screen
    persist = p.persist
    for r in range(persist.shape[0]):
        for row in range(persist.shape[1]):
            persist[r, row] = False
    expect = p.spin_expect
    expect[E_STALE] = 1.0  # the expectations of a free spin must be (re)computed
    awarded = 0
    hans_meter = 0
    mugs_meter = 0
    feature_wins = 0
    played = 0
    ma = p.free
    spins, hans, mugs, _ = trigger_awards(p, p.base, p.trigger_set[0], rng, amounts, adjust, counters, conditional,
                                          np.bool_(True))
    awarded += spins
    hans_meter += hans
    mugs_meter += mugs
    while played < awarded and not cap_reached(amounts, p.no_info, p.cap_units):
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
        metered = (W_HANS_BIT if hans_now else 0) | (W_MUGS_BIT if mugs_now else 0)
        kind = p.fs_feature_kind[draw_table(p.fs_feature_cum, rng)]
        if kind == F_HANS:
            hans_now = True
        elif kind == F_MUGS:
            mugs_now = True
        if kind == F_BEER:
            counters[K.free_spin_beer_reels] += 1
        if hans_now:
            counters[K.hans_spins] += 1
        if mugs_now:
            counters[K.free_spin_mugs] += 1
        add_free_spin_wilds(p, rng, screen, kind == F_BEER, hans_now, mugs_now)
        win = pay_screen(p.lines, screen)
        amounts[C.free_spins] += win
        feature_wins += win
        if conditional:
            persisting_expectations(p)
            adjust[C.free_spins] += expect[E_MIXED + metered // 2] - win
        played += 1
        if conditional:
            # control variate: a retrigger's spins and wheel valued at the Persisting Wilds
            # before it, less their exact mean per free spin (p.retrigger_mean)
            spin_value = expect[E_MIXED]
            wheel_value = expect[E_WHEEL]
            adjust[C.free_spins] += p.retrigger_mean[1] * spin_value + p.retrigger_mean[2] * wheel_value
        if p.counts[p.g_heidi] >= p.trigger_count:
            counters[K.retriggers] += 1
            if conditional:
                adjust[C.free_spins] -= p.award[min(p.counts[p.g_heidi], p.award.shape[0] - 1)] * spin_value
            spins, hans, mugs, red = trigger_awards(p, ma, s, rng, amounts, adjust, counters, conditional,
                                                       np.bool_(False))
            if conditional and red:
                adjust[C.free_spins] -= wheel_value
            awarded += spins
            hans_meter += hans
            mugs_meter += mugs
    counters[K.free_spins_played] += played
    top_up = guarantee(feature_wins, p.guarantee_units)
    if top_up > 0:
        counters[K.guarantee] += 1
        amounts[C.guarantee] += top_up


@njit(cache=True, inline="always")
def read_trigger(p, ma, s, counters):
    """The trigger now in ``p.wins`` (set ``s`` of ``ma``): returns (free spins, Red Heidi in it).

    Every Purple Heidi on the Heidi chain becomes a Persisting Wild.
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
                    p.spin_expect[E_STALE] = 1.0
                    counters[K.persisting_wilds] += 1
            elif sym == p.red:
                red = True
    return spins, red


@njit(cache=True, inline="always")
def award_value(p, spins, hans, mugs):
    """Expected win (units) of ``spins`` free spins of which ``hans`` / ``mugs`` are wheel-metered
    Hans / Bigger Mugs spins, at the current Persisting Wilds."""
    persisting_expectations(p)
    e = p.spin_expect
    plain = e[E_MIXED]
    return spins * plain + hans * (e[E_MIXED + W_HANS_BIT // 2] - plain) + mugs * (e[E_MIXED + W_MUGS_BIT // 2] - plain)


@njit(cache=True, inline="always")
def start_control(p, spins, red):
    """The control variate of a feature start: its awards valued at the Persisting Wilds it starts
    with, the wheel's by their mean (units).  Its exact mean over triggering screens is
    ``p.trigger_control_mean`` (:func:`trigger_control_mean`)."""
    persisting_expectations(p)
    control = spins * p.spin_expect[E_MIXED]
    if red:
        control += p.spin_expect[E_WHEEL]
    return control


@njit(_nrt=False)
def trigger_awards(p, ma, s, rng, amounts, adjust, counters, conditional, start):
    """Free spins, Persisting Wilds and Heidi's Wheel awards of the trigger now in ``p.wins``.

    Returns (free spins, Hans spins, Bigger Mugs spins) awarded and whether it held a Red Heidi.  ``start``:
    the base-game trigger that starts the feature (not a retrigger).  With
    ``conditional``, zero-mean control variates go into ``adjust``: the start
    control less its exact mean, and a wheel award's value less its mean over
    the wheel (the award is drawn independently of everything before it); the
    wheel's cash is replaced by its exact expectation.
    """
    spins, red = read_trigger(p, ma, s, counters)
    hans = 0
    mugs = 0
    if conditional and start:
        adjust[C.free_spins] -= start_control(p, spins, red) - p.trigger_control_mean
    if red:
        cash = amounts[C.wheel_cash]
        extra, hans, mugs = heidis_wheel(p, rng, amounts, counters)
        spins += extra
        if conditional:
            adjust[C.wheel_cash] += p.wheel_cash_mean - (amounts[C.wheel_cash] - cash)
            mean = p.wheel_award_mean
            adjust[C.free_spins] -= award_value(p, extra - mean[0], hans - mean[1], mugs - mean[2])
    return spins, hans, mugs, red


@njit(cache=True, _nrt=False)
def sample_start_controls(p, rng, stratum, amounts, counters, out):
    """Fill ``out`` with :func:`start_control` of triggering screens drawn in ``stratum``: a check
    on ``p.trigger_control_mean``.  ``amounts`` / ``counters``: scratch."""
    for i in range(out.shape[0]):
        s = sample_state(p.sampler_set_cum, p.sampler_cum, p.sampler_nxt, p.sampler_nwin, p.strat_code[stratum], rng, p.wins)
        pay_windows(p.base, s, p.lines, p.scat, p.wins, p.counts, amounts, C.lines, p.comp_scatter, 1)
        amounts[C.lines] = 0
        for r in range(p.persist.shape[0]):
            for row in range(p.persist.shape[1]):
                p.persist[r, row] = False
        p.spin_expect[E_STALE] = 1.0
        spins, red = read_trigger(p, p.base, s, counters)
        out[i] = start_control(p, spins, red)


@njit(_nrt=False)
def spin_expectations(persist, reel_rows, cell_lines, line_mask, touched, wild_expect, hans_expect, wild_base, hans_base,
                      kind_probability, award_mean, cash_mean, expect):
    """Exact expected line pay (units) of a free spin given the Persisting Wilds.

    Fills ``expect`` (``p.spin_expect``, see its layout at the top of the
    module) and clears its ``[E_STALE]`` flag.  Only lines through a
    Persisting Wild differ from the totals without any, so only those are
    looked up.  (Arrays, not the parameter record: a compiled call copies its
    arguments, and the record is large.)
    """
    n_touched = 0
    free_cells = 0
    for r in range(persist.shape[0]):
        for row in range(reel_rows[r]):
            if not persist[r, row]:
                free_cells += 1
                continue
            for k in range(cell_lines.shape[2]):
                l = cell_lines[r, row, k]
                if l < 0:
                    break
                if line_mask[l] == 0:
                    touched[n_touched] = l
                    n_touched += 1
                line_mask[l] |= 1 << r
    for c in range(4):
        table = wild_expect[c]
        hans_table = hans_expect[c, free_cells]
        total = wild_base[c]
        hans_total = hans_base[c, free_cells]
        for i in range(n_touched):
            l = touched[i]
            m = line_mask[l]
            total += table[l, m] - table[l, 0]
            hans_total += hans_table[l, m] - hans_table[l, 0]
        expect[c] = total
        expect[W_HANS_BIT + c] = hans_total
    for i in range(n_touched):
        line_mask[touched[i]] = 0
    kp = kind_probability
    for meters in range(0, 8, 2):  # the wheel meters' Hans / Bigger Mugs bits; the draw adds one kind
        expect[E_MIXED + meters // 2] = (kp[F_NONE] * expect[meters] + kp[F_BEER] * expect[meters | W_BEER_BIT]
                                         + kp[F_MUGS] * expect[meters | W_MUGS_BIT] + kp[F_HANS] * expect[meters | W_HANS_BIT])
    plain = expect[E_MIXED]
    mean = award_mean
    expect[E_WHEEL] = (mean[0] * plain + mean[1] * (expect[E_MIXED + W_HANS_BIT // 2] - plain)
                       + mean[2] * (expect[E_MIXED + W_MUGS_BIT // 2] - plain) + cash_mean)
    expect[E_STALE] = 0.0


@njit(cache=True, inline="always")
def persisting_expectations(p):
    """Bring ``p.spin_expect`` up to date with the Persisting Wilds (see :func:`spin_expectations`)."""
    if p.spin_expect[E_STALE] != 0.0:
        spin_expectations(p.persist, p.free.rows, p.cell_lines, p.line_mask, p.touched, p.wild_expect, p.hans_expect,
                          p.wild_expect_base, p.hans_expect_base, p.fs_kind_probability, p.wheel_award_mean,
                          p.wheel_cash_mean, p.spin_expect)


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
    landed = pay_windows(base, s, p.lines, p.scat, wins, p.counts, amounts, C.lines, p.comp_scatter, 1)
    if kind != F_NONE:
        screen = p.screen
        fill_screen(base, s, wins, screen)
        random_wild_feature(p, rng, kind, screen)
        delta = pay_screen(p.lines, screen) - landed
        if kind == F_BEER:
            counters[K.beer_reels] += 1
            amounts[C.beer_reels] += delta
        else:
            counters[K.bigger_mugs] += 1
            amounts[C.bigger_mugs] += delta
    if p.counts[p.g_heidi] >= p.trigger_count:
        p.trigger_set[0] = s
        free_spins_feature(p, rng, amounts, adjust, counters, stratum >= 0)
    if apply_cap(amounts, p.no_info, p.cap_units, C.cap):
        counters[K.cap] += 1


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
    sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
    total = sum(s.weight for s in sets)
    return sum(s.weight / total * expected_line_pays_with_wilds(game, s, automaton, wild) for s in sets)


def free_spin_expectations(game: Game, line_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact E[line pay] (units) of a free spin by line and wild cells on the line, for every wild feature combination.

    Returns ``(wild[c, line, mask], hans[c, free cells, line, mask])`` for
    ``c`` = W_BEER_BIT | W_MUGS_BIT: without and with a Hans Spin, whose
    wilds avoid the Persisting Wilds (so it depends on how many cells are free).
    Features apply in the kernel's order (beer reels, Persisting Wilds, Hans, mugs);
    each only adds wild cells, independently of the stops and of each other.
    """
    f = game.features
    plain = _plain_free_spin_expectations(game, f["free_spins_mode"], f["wild_symbol"])
    beer = whole_reels_distribution(_probabilities(game, f["beer_reels"], "reels"), game.reels)
    mugs = square_overlays_distribution(line_rows, min(game.rows), _probabilities(game, f["mug_size"], "size"),
                                        {min(n, MAX_MUGS): q for n, q in _probabilities(game, f["mug_count"], "mugs").items()})
    hans = _probabilities(game, f["hans_wilds"], "wilds")
    wild = np.zeros((4,) + plain.shape)
    wild[0] = plain
    wild[W_BEER_BIT] = mix_masks(plain, beer)
    wild[W_MUGS_BIT] = mix_masks(plain, mugs)
    wild[W_BEER_BIT | W_MUGS_BIT] = mix_masks(wild[W_BEER_BIT], mugs)
    with_hans = np.stack([np.moveaxis(random_cells_expectations(w, hans, sum(game.rows)), 2, 0) for w in wild])
    return wild, np.ascontiguousarray(with_hans)


def mixed_free_spin_expectations(game: Game, wild: np.ndarray, hans: np.ndarray) -> np.ndarray:
    """[meters, free cells, line, mask]: the expectations of :func:`free_spin_expectations` mixed over the
    free-spin feature draw, for the wheel meters' features ``meters`` = (W_MUGS_BIT | W_HANS_BIT) // 2."""
    kinds = {"none": 0, "beer_reels": W_BEER_BIT, "bigger_mugs": W_MUGS_BIT, "hans": W_HANS_BIT}
    n_free = hans.shape[1]
    combos = np.concatenate([np.broadcast_to(wild[:, None], (4, n_free) + wild.shape[1:]), hans])  # [bits, F, l, m]
    out = np.zeros((4,) + combos.shape[1:])
    for kind, q in _probabilities(game, game.features["free_spins_random_feature"], "feature").items():
        for meters in range(0, 8, 2):
            out[meters // 2] += float(q) * combos[meters | kinds[kind]]
    return out


@njit(cache=True)
def _trigger_distribution(cls_count, cls_mask, cls_red, cls_prob, n_cls, line_row, trigger_count, max_count, n_cells):
    """Distribution of (Heidis, Persisting Wild mask on the line, Persisting Wilds, Red Heidi) over triggering screens.

    A reel extends the Heidi chain when it shows a Heidi; Purple Heidis on
    chain reels become Persisting Wilds and a Red Heidi on a chain reel spins
    the wheel.  Returns ``[count, mask, persisting, red]`` probabilities of
    base screens whose chain holds at least ``trigger_count`` Heidis.
    """
    n_reels = n_cls.shape[0]
    n_masks = 1 << n_reels
    alive = np.zeros((max_count + 1, n_masks, n_cells + 1, 2))
    out = np.zeros((max_count + 1, n_masks, n_cells + 1, 2))
    alive[0, 0, 0, 0] = 1.0
    for r in range(n_reels):
        nxt = np.zeros_like(alive)
        for c in range(max_count + 1):
            for m in range(n_masks):
                for k in range(n_cells + 1):
                    for red in range(2):
                        v = alive[c, m, k, red]
                        if v == 0.0:
                            continue
                        for j in range(n_cls[r]):
                            q = v * cls_prob[r, j]
                            if cls_count[r, j] == 0:
                                if c >= trigger_count:
                                    out[c, m, k, red] += q  # the chain ends here
                                continue
                            cells = cls_mask[r, j]
                            n_new = 0
                            while cells:
                                n_new += cells & 1
                                cells >>= 1
                            m2 = m | (((cls_mask[r, j] >> line_row[r]) & 1) << r)
                            nxt[min(c + cls_count[r, j], max_count), m2, min(k + n_new, n_cells), max(red, cls_red[r, j])] += q
        alive = nxt
    for c in range(trigger_count, max_count + 1):
        out[c] += alive[c]
    return out


def _heidi_classes(game: Game, strip_set) -> tuple:
    """Each reel's windows merged by (Heidis, Purple Heidi rows as a bit mask, Red Heidi shown), with probabilities:
    the arrays :func:`_trigger_distribution` reads."""
    f = game.features
    names = list(game.symbols)
    g_heidi = list(game.scatters).index(f["heidi_scatter"])
    purple, red = names.index(f["purple_heidi"]), names.index(f["red_heidi"])
    classes = []
    for win in strip_set_windows(game, strip_set):
        merged: dict = {}
        for w in range(len(win.weights)):
            syms = win.symbols[w]
            key = (int(win.counts[w, g_heidi]), int(sum(1 << row for row, sym in enumerate(syms) if sym == purple)),
                   int(any(sym == red for sym in syms)))
            merged[key] = merged.get(key, 0) + int(win.weights[w])
        classes.append([(key, weight / win.total_weight) for key, weight in merged.items()])
    width = max(len(c) for c in classes)
    arrays = [np.zeros((game.reels, width), dtype=np.int64) for _ in range(3)] + [np.zeros((game.reels, width))]
    for r, reel in enumerate(classes):
        for j, ((count, mask, has_red), q) in enumerate(reel):
            arrays[0][r, j], arrays[1][r, j], arrays[2][r, j], arrays[3][r, j] = count, mask, has_red, q
    return (*arrays, np.array([len(c) for c in classes], dtype=np.int64))


def trigger_moments(game: Game, strip_sets: list, award: np.ndarray, n_cells: int) -> np.ndarray:
    """Per spin on ``strip_sets`` (mixed by weight): [P(trigger), E[free spins awarded], P(trigger with a Red Heidi)]."""
    total_weight = sum(s.weight for s in strip_sets)
    line_row = np.zeros(game.reels, dtype=np.int64)
    out = np.zeros(3)
    for strip_set in strip_sets:
        dist = _trigger_distribution(*_heidi_classes(game, strip_set), line_row, int(game.features["trigger_count"]),
                                     len(award) - 1, n_cells)
        share = strip_set.weight / total_weight
        out += share * np.array([dist.sum(), (award[:, None, None, None] * dist).sum(), dist[..., 1].sum()])
    return out


def trigger_control_mean(game: Game, strip_sets: list, line_rows: np.ndarray, mixed: np.ndarray, award: np.ndarray,
                         award_mean: np.ndarray, cash_mean: float) -> tuple[float, float]:
    """Exact E[start control | trigger] (units), the mean of :func:`start_control` over triggering screens,
    and P(trigger).

    The control values the feature a trigger starts at the Persisting Wilds it
    leaves (awarded spins, plus the wheel's mean award and cash with a Red Heidi);
    its mean over triggering screens comes from the exact distribution of
    (Heidis, Persisting Wilds, Red Heidi) over the base strips.
    """
    trigger = int(game.features["trigger_count"])
    max_count = len(award) - 1
    n_cells = mixed.shape[1] - 1
    free = n_cells - np.arange(n_cells + 1)  # free cells by Persisting Wilds
    a = award[:, None, None]  # [count, 1, 1] against [mask, persisting] tables below
    plain, mugs_m, hans_m = mixed[0], mixed[W_MUGS_BIT // 2], mixed[W_HANS_BIT // 2]
    total_weight = sum(s.weight for s in strip_sets)
    numerator = 0.0
    probability = 0.0
    for strip_set in strip_sets:
        classes = _heidi_classes(game, strip_set)
        share = strip_set.weight / total_weight
        for l in range(len(line_rows)):
            dist = _trigger_distribution(*classes, line_rows[l].astype(np.int64), trigger, max_count, n_cells)
            table = plain[free, l].T  # [mask, persisting]
            no_red = (a * table[None]) * dist[..., 0]
            with_red = ((a + award_mean[0]) * table[None] + award_mean[1] * (hans_m[free, l].T - table)[None]
                        + award_mean[2] * (mugs_m[free, l].T - table)[None]) * dist[..., 1]
            numerator += share * float(no_red.sum() + with_red.sum())
            if l == 0:
                probability += share * float(dist.sum())
                numerator += share * cash_mean * float(dist[..., 1].sum())
    return (numerator / probability if probability > 0 else 0.0), probability


def _cell_lines(line_rows: np.ndarray, n_rows: int) -> np.ndarray:
    """[reel, row, k]: the lines through each cell, padded with -1."""
    n_lines, n_reels = line_rows.shape
    through = [[[l for l in range(n_lines) if line_rows[l, r] == row] for row in range(n_rows)] for r in range(n_reels)]
    width = max(len(ls) for reel in through for ls in reel)
    out = np.full((n_reels, n_rows, max(width, 1)), -1, dtype=np.int64)
    for r in range(n_reels):
        for row in range(n_rows):
            out[r, row, :len(through[r][row])] = through[r][row]
    return out


def _probabilities(game: Game, table: str, field: str) -> dict:
    """{value of ``field``: exact probability} of a weighted table."""
    t = game.tables[table]
    total = sum(t.weights)
    out: dict = {}
    for entry, weight in zip(t.entries, t.weights):
        out[entry[field]] = out.get(entry[field], 0) + Fraction(weight, total)
    return out


def wheel_cash_expectation(wheel) -> Fraction:
    """Exact expected cash (x bet multiplier) of one Heidi's Wheel award.

    Cash spins again and a won cash value cannot come again, so the expectation
    runs over the sets of cash values already won.
    """
    segments = [(e["award"], Fraction(str(e.get("value", 0))), int(w)) for e, w in zip(wheel.entries, wheel.weights)]
    memo: dict = {}

    def expect(won: frozenset) -> Fraction:
        if won not in memo:
            open_ = [(kind, value, w) for kind, value, w in segments if w > 0 and not (kind == "cash" and value in won)]
            total = sum(w for _, _, w in open_)
            memo[won] = sum((Fraction(w, total) * (value + expect(won | {value})) for kind, value, w in open_ if kind == "cash"),
                            Fraction(0))
        return memo[won]

    return expect(frozenset())


def wheel_award_means(wheel) -> np.ndarray:
    """Mean (extra free spins, Hans spins, Bigger Mugs spins) of one Heidi's Wheel award.

    The award ends on a segment that is not cash; which one does not depend on
    the cash won before it, so it is drawn in proportion to the weights of the
    segments that are not cash.
    """
    total = sum(w for e, w in zip(wheel.entries, wheel.weights) if e["award"] != "cash")
    out = np.zeros(3)
    for e, w in zip(wheel.entries, wheel.weights):
        q = w / total
        if e["award"] == "free_spins":
            out[0] += q * e["value"]
        elif e["award"] == "hans":
            out[1] += q * e["value"]
        elif e["award"] == "mugs":
            out[2] += q * e["value"]
        elif e["award"] == "mugs_and_hans":
            out[1] += q * 3
            out[2] += q * 2
    return out


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
    wild_expect, hans_expect = free_spin_expectations(game, lines.rows)
    fs_kinds = {}
    for kind, q in _probabilities(game, f["free_spins_random_feature"], "feature").items():
        fs_kinds[kinds[kind]] = fs_kinds.get(kinds[kind], 0) + q
    award_map = {int(k): int(v) for k, v in f["free_spins_award"].items()}
    top = max(award_map)
    award = np.zeros(max(top, 4 * game.reels) + 1, dtype=np.int64)
    for c in range(len(award)):
        listed = [k for k in award_map if k <= c]
        award[c] = award_map[max(listed)] if listed else 0
    heidi = f["heidi_scatter"]
    trigger = int(f["trigger_count"])
    base_sets = [s for s in game.played_strip_sets("base") if s.weight > 0]
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
            # a stratum round draws its screen given the state and plays it whole (first_screen)
            strata.append(Stratum(f"{state}+{label}", p_state * p_feature.get(kind, Fraction(0)), first_screen=True))
            codes.append(code)
            feats.append(kind)
    award_means = wheel_award_means(wheel)
    cash_mean = float(wheel_cash_expectation(wheel)) * float(unit(1))
    control_mean, _ = trigger_control_mean(game, base_sets, lines.rows, mixed_free_spin_expectations(game, wild_expect, hans_expect),
                                           award, award_means, cash_mean)
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
        wild_expect=wild_expect,
        hans_expect=hans_expect,
        wild_expect_base=wild_expect[:, :, 0].sum(axis=1),
        hans_expect_base=hans_expect[:, :, :, 0].sum(axis=2),
        fs_kind_probability=np.array([float(fs_kinds.get(k, 0)) for k in (F_NONE, F_BEER, F_MUGS, F_HANS)]),
        spin_expect=np.zeros(E_SLOTS),
        cell_lines=_cell_lines(lines.rows, rows),
        line_mask=np.zeros(len(lines.rows), dtype=np.int64),
        touched=np.zeros(len(lines.rows), dtype=np.int64),
        wheel_award_mean=award_means,
        trigger_control_mean=control_mean,
        retrigger_mean=trigger_moments(game, [s for s in game.played_strip_sets(f["free_spins_mode"]) if s.weight > 0], award,
                                       sum(game.rows)),
        wheel_cash_mean=cash_mean,
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
            Feature("free_spins", "free_spins", ("free_spins", "guarantee", "wheel_cash"), spins="free_spins_played",
                    retriggers="retriggers"),
            Feature("heidis_wheel", "wheel_spins", ("wheel_cash",)),
        ),
        stake=stake,
        cap_total_bets=cap_units / scale.cost_units if cap_units else None,
    )
