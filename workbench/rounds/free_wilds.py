"""The wilds of a lines game's free spins, played on an explicit screen: sticky, expanding, walking and expanding
sticky wilds (``[features] free_spins_wilds``), random wilds dropped on every free spin
(``free_spins_random_wilds``, :mod:`.random_wilds`) and scatters that turn into persisting wilds
(``free_spins_persisting_wilds``, :mod:`.persisting_wilds`).  A free spin without either is paid from its windows
(:func:`.plain.pay_drawn_windows`); :func:`wild_free_spin` pays one with them."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game
from ..pays.lines import line_pay_screen
from ..pays.scatter import ADJACENT, code_count, scatter_pay, update_code
from ..simulate.kernel import fill_screen
from ..simulate.rng import weighted_index
from ..simulate.steps import apply_mask
from ..simulate.steps.random_wilds import NONE, drop_random_wilds, place_outcome
from .plain import draw_table_cells
from .persisting_wilds import persisting_wild_params
from .random_wilds import random_wild_params

# Wilds of the free spins on a lines game (``mode``: WILDS codes; 0 = none), the wild's symbol id (-1: none), scratch
# screens (reels x rows), ``held`` the wilds carried to the next spin, ``member[g, id]`` the instances a cell showing
# symbol id (the variant game's ids included) adds to scatter group g (counted on the screen before random wilds drop,
# ``scat_mode[g]``), ``reel[r]`` the symbol id an expanding sticky wild holds reel r with (-1: none; with a multiplier
# drawn from a table once, the variant game's id of that multiplier; drawn every spin, ``wild``), ``redraw`` whether a
# held reel draws its multiplier every spin (wild_reel_multiplier = "every_spin"), ``random`` the random wilds
# (simulate.steps.random_wilds.RandomWildParams; no entries: none); ``persists[id]`` whether a cell showing symbol id
# on a trigger or retrigger screen turns into a persisting wild (empty: none), ``persist[r, row]`` the persisting
# wilds (0 none, 1 on the screen, 2 from the next spin), ``persist_min`` the trigger scatters a free spin needs to add
# some (a retrigger), ``covered`` scratch: the cells random wilds avoid.
WildParams = namedtuple("WildParams", ["mode", "wild", "screen", "held", "landed", "member", "reel", "redraw", "random",
                                       "persists", "persist", "persist_min", "covered"])
WILDS = {"none": 0, "sticky": 1, "expanding": 2, "walking": 3, "expanding_sticky": 4}


@njit(cache=True, inline="always")
def explicit_screen(w) -> bool:
    """Whether a free spin is played on an explicit screen (wilds of the feature, random or persisting wilds), not
    its windows."""
    return w.mode != 0 or w.random.cum.shape[0] > 0 or w.persists.shape[0] > 0


@njit(cache=True, inline="always")
def mark_persisting(w, chain, group, rows, screen, value):
    """The cells of ``screen`` showing a persisting symbol on the trigger's reels (every reel; with ``chain``, the
    run of reels from the first that show scatter ``group``) become persisting wilds (``value``: 1 at once, 2 from
    the next spin); cells that already are stay as they are."""
    for r in range(rows.shape[0]):
        if chain:
            c = 0
            for row in range(rows[r]):
                c += w.member[group, screen[r, row]]
            if c == 0:
                return
        for row in range(rows[r]):
            if w.persist[r, row] == 0 and w.persists[screen[r, row]]:
                w.persist[r, row] = value


@njit(cache=True, inline="always")
def apply_persisting(w, rows, screen):
    """Put the persisting wilds on ``screen``; ``w.covered`` becomes the cells a held or persisting wild covers."""
    for r in range(rows.shape[0]):
        for row in range(rows[r]):
            on = w.persist[r, row] == 1
            if on:
                screen[r, row] = w.wild
            w.covered[r, row] = on or w.held[r, row]


@njit(cache=True, inline="always")
def reel_wild(w, tw, rng):
    """The symbol id a reel revealed now is held with: the wild, or (a table wild drawn once) its drawn variant."""
    t = tw.table_of[w.wild]
    return tw.var_ids[t, weighted_index(tw.cum[t], rng)] if t >= 0 and not w.redraw else w.wild


@njit(cache=True, inline="always")
def land_wilds(w, tw, rows, screen, rng):
    """The landed wilds of ``screen``: marked in ``w.landed``; expanding ones fill their reel; expanding sticky ones
    hold their reel to the end of the feature; every held reel (landed or placed by random wilds) is filled, with the
    multiplier drawn when it was revealed, or (``w.redraw``) one drawn now for the whole reel."""
    for r in range(rows.shape[0]):
        expand = False
        for row in range(rows[r]):
            w.landed[r, row] = screen[r, row] == w.wild
            expand = expand or w.landed[r, row]
        if w.mode == 2 and expand:
            for row in range(rows[r]):
                screen[r, row] = w.wild
        elif w.mode == 4 and expand and w.reel[r] < 0:  # revealed: the reel's wild for the rest of the feature
            w.reel[r] = reel_wild(w, tw, rng)
        if w.reel[r] >= 0:
            held = w.reel[r]
            t = tw.table_of[w.wild]
            if w.redraw and t >= 0:
                held = tw.var_ids[t, weighted_index(tw.cum[t], rng)]
            for row in range(rows[r]):
                screen[r, row] = held


@njit(cache=True, inline="always")
def wild_free_spin(p, ma, lines, tw, s, rng):
    """Pay one free spin of strip set ``s`` of ``ma`` (windows in ``p.wins``; paid by automaton ``lines``, table wilds
    drawn by ``tw``) with the feature's wilds: the landed wilds
    (sticky: they stay; expanding: they fill their reel for this spin; walking: they move one reel left on each
    later spin; expanding sticky: the first to land on a reel fills it to the end of the feature, its multiplier drawn
    once), the held ones put on the screen, the scatter groups counted, the random wilds dropped, every other
    table-wild cell drawn, then the lines paid on the final screen.
    Returns the spin's win (units, before the multiplier); leaves the scatter counts in ``p.counts``."""
    w = p.wilds
    screen = w.screen
    fill_screen(ma, s, p.wins, screen)
    rows = ma.rows
    land_wilds(w, tw, rows, screen, rng)
    apply_mask(screen, w.held, w.wild)
    win = 0
    sc = p.free_scat  # the free spins' scatter pays (x the multiplier already with multiplier_wilds = "add")
    for g in range(p.counts.shape[0]):  # before random wilds drop: a wild dropped on a scatter does not hide it
        code = 0
        for r in range(rows.shape[0]):
            c = 0
            for row in range(rows[r]):
                c += w.member[g, screen[r, row]]
            code = update_code(sc.mode[g], 1 << 30, code, c)
        p.counts[g] = code_count(sc.mode[g], code)
        if p.comp_scatter[g] >= 0:
            win += scatter_pay(sc, g, p.counts[g])
    persisting = w.persists.shape[0] > 0
    if persisting:  # after the count: a scatter landing under a persisting wild counts
        if p.counts[p.group] >= w.persist_min:  # a retrigger: its persisting symbols from the next spin on
            mark_persisting(w, sc.mode[p.group] == ADJACENT, p.group, rows, screen, 2)
        apply_persisting(w, rows, screen)
    if w.random.cum.shape[0] > 0:
        drop_random_wilds(w.random, screen, rows, w.covered if persisting else w.held, w.wild, rng, w.reel)
    if tw.var_ids.shape[0] > 0:  # every other visible table-wild cell draws its multiplier
        draw_table_cells(tw, rows, screen, rng)
    win += line_pay_screen(lines, screen)
    if w.mode == 1:  # sticky
        for r in range(rows.shape[0]):
            for row in range(rows[r]):
                w.held[r, row] = w.held[r, row] or w.landed[r, row]
    elif w.mode == 3:  # walking: every wild on the screen steps one reel left; those on reel 1 walk off
        for r in range(rows.shape[0]):
            for row in range(rows[r]):
                nxt = r + 1 < rows.shape[0] and row < rows[r + 1] and (w.held[r + 1, row] or w.landed[r + 1, row])
                w.held[r, row] = nxt
    if persisting:
        for r in range(rows.shape[0]):
            for row in range(rows[r]):
                if w.persist[r, row] == 2:
                    w.persist[r, row] = 1
    for r in range(rows.shape[0]):  # reels placed by random wilds this spin: held from the next spin on
        if w.random.pending[r]:
            w.random.pending[r] = False
            w.reel[r] = reel_wild(w, tw, rng)
    return win


@njit(cache=True, inline="always")
def clear_held(w):
    for r in range(w.held.shape[0]):
        w.reel[r] = -1
        w.random.pending[r] = False
        for row in range(w.held.shape[1]):
            w.held[r, row] = False
            w.persist[r, row] = 0


def wild_params(game: Game) -> WildParams:
    """The compiled wilds of the free spins (mode 0 and no random wilds: a free spin is paid from its windows)."""
    from ..exact.variants import has_table_wilds, variant_game

    mode = WILDS[game.features.get("free_spins_wilds", "none")]
    n_symbols = len(game.symbols)
    modes = [game.in_strip_mode(m) for m in (game.features["free_spins_mode"], game.features.get("meter_spins_mode")) if m]
    ids = max([len(variant_game(g).symbols) for g in modes if has_table_wilds(g)] + [n_symbols])  # screens' ids
    member = np.zeros((max(len(game.scatters), 1), ids + 1), dtype=np.int64)  # the last column: an empty cell (-1)
    for g, group in enumerate(game.scatters.values()):
        for name in group.symbols:
            member[g, game.symbols[name].index] = 1
    random = random_wild_params(game)
    persists, persist_min = persisting_wild_params(game, ids + 1)
    named = mode or random.cum.shape[0] > 0 or persists.shape[0] > 0
    wild = game.symbols[game.features["wild_symbol"]].index if named else -1
    shape = (game.reels, max(game.rows))
    return WildParams(mode=np.int64(mode), wild=np.int64(wild), screen=np.full(shape, n_symbols, dtype=np.int64),
                      held=np.zeros(shape, dtype=np.bool_), landed=np.zeros(shape, dtype=np.bool_), member=member,
                      reel=np.full(game.reels, -1, dtype=np.int64),
                      redraw=np.bool_(game.features.get("wild_reel_multiplier") == "every_spin"), random=random,
                      persists=persists, persist=np.zeros(shape, dtype=np.int64), persist_min=np.int64(persist_min),
                      covered=np.zeros(shape, dtype=np.bool_))


# Random wilds dropped on every base spin (``[features] base_random_wilds``, :mod:`.random_wilds`): ``random`` the drop
# (simulate.steps.random_wilds.RandomWildParams; no entries: none), ``wild`` its symbol id, ``comp`` the component its
# gain over the landed screen goes to and ``counter`` the counter of spins it drops a wild on (-1 both: none),
# ``none_held`` every cell may take one (all False), ``no_reels`` no reel held (all -1), ``screen`` scratch.
BaseWilds = namedtuple("BaseWilds", ["random", "wild", "comp", "counter", "none_held", "no_reels", "screen"])


def base_wild_params(game: Game, comp: int = -1, counter: int = -1) -> BaseWilds:
    """The compiled base-spin random wilds of ``game`` (the empty record without them: one compiled round serves
    both); ``comp`` / ``counter`` their component and counter slots."""
    shape = (game.reels, max(game.rows))
    name = game.features.get("base_random_wilds")
    wild = game.symbols[game.features["wild_symbol"]].index if name is not None else -1
    return BaseWilds(random=random_wild_params(game, "base_random_wilds"), wild=np.int64(wild), comp=np.int64(comp),
                     counter=np.int64(counter), none_held=np.zeros(shape, dtype=np.bool_),
                     no_reels=np.full(game.reels, -1, dtype=np.int64),
                     screen=np.zeros(shape, dtype=np.int64))


@njit(cache=True, inline="always")
def base_wild_outcome(bw, rng) -> int:
    """The outcome of a base spin's random wilds (an entry of their table), or -1 when nothing drops: none declared,
    or a ``none`` outcome drawn."""
    if bw.comp < 0:
        return -1
    e = weighted_index(bw.random.cum, rng)
    return -1 if bw.random.kind[e] == NONE else e


@njit
def drop_base_wilds(bw, e, ma, s, wins, lines, rng, amounts, counters):
    """Outcome ``e`` of a base spin's random wilds: the landed screen of strip set ``s`` of ``ma`` (windows ``wins``,
    already paid and its scatters counted) gets its wilds, and what its lines pay more (or less) than before goes to
    component ``bw.comp``.  Compiled once, not inlined (called only on the spins a wild drops on)."""
    screen = bw.screen
    fill_screen(ma, s, wins, screen)
    before = paid_lines(lines, screen)
    place_outcome(bw.random, e, screen, ma.rows, bw.none_held, bw.wild, rng, bw.no_reels)
    counters[bw.counter] += 1
    amounts[bw.comp] += paid_lines(lines, screen) - before


@njit
def paid_lines(lines, screen):
    """:func:`~workbench.pays.lines.line_pay_screen`, compiled once (not inlined twice into its caller)."""
    return line_pay_screen(lines, screen)
