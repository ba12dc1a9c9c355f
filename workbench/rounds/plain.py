"""The plain round: one spin paying lines and scatters, no features.

Everything such a game pays is computed exactly by :mod:`workbench.exact`; its
simulation exists to cross-check the simulator against the exact engine.

Wilds whose multiplier is drawn from a table per landing (:mod:`workbench.exact.variants`)
play their own round (:func:`play_round_tables`, :func:`run_chunk_tables`; games without
them keep :func:`play_round` unchanged): after the base spin, a screen showing no table wild
is paid through the prefix table as usual; on a screen showing one, every visible cell
showing a table wild draws its multiplier (``weighted_index`` over the reduced table) and
becomes that multiplier's variant symbol, and the screen is paid through the variant game's
line automaton (``line_pay_screen``).  Scatter counts are the windows' as always.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game, rules
from ..pays.lines import line_arrays
from ..pays.scale import pay_scale
from ..pays.scatter import scatter_arrays
from ..simulate.chunks import finish_chunk, record_round
from ..pays.lines import line_pay_screen
from ..pays.scatter import scatter_pay
from ..simulate.kernel import base_components, choose_set, compile_mode, count_groups, fill_screen, scatter_components, spin_windows
from ..simulate.model import BONUS_COUNTER, RoundModel, bonus_reporting
from ..simulate.rng import weighted_index
from ..simulate.steps import base_spin, pay_windows
from ..simulate.steps.wheels import draw_award, plain_award
from .wheels import award_draw

ClassicParams = namedtuple("ClassicParams", ["base", "lines", "scat", "comp_scatter", "wins", "counts", "cost_units", "bonus"])
# the (at most one) trigger paying a bonus award: the component it pays to (comp = -1: the game has none); a scatter
# trigger's group (index in game.scatters, started when its count reaches ``reels`` = min_count) or -1 for a
# combination trigger, which symbol ids show the combination's symbol, how many reels from reel 1, whether every
# triggering line starts a bonus; ``award``: its draw (``simulate.steps.wheels.AwardDraw``: a table or a wheel, pay
# units). Bonuses started count in counter 0.
BonusParams = namedtuple("BonusParams", ["comp", "group", "match", "reels", "per_line", "award"])
# Wilds whose multiplier is drawn per landing: ``shows[s, i, w]`` window w of reel i of strip set s shows one;
# ``table_of[id]`` the table wild a symbol id is (-1: none); ``var_ids[t, e]`` the variant symbol of its e-th
# multiplier, drawn with the cumulative weights ``cum[t]`` (padded with the total); ``screen`` scratch (reels x rows).
TableWildParams = namedtuple("TableWildParams", ["shows", "table_of", "var_ids", "cum", "screen"])
ClassicTableParams = namedtuple("ClassicTableParams", ClassicParams._fields + ("tw",))


@njit(cache=True, inline="always")
def bonuses_started(ma, s, rows, wins, b):
    """Bonuses the screen starts: paylines whose first ``b.reels`` reels show the trigger symbol."""
    fired = 0
    for l in range(rows.shape[0]):
        ok = True
        for i in range(b.reels):
            if not b.match[ma.win_sym[s, i, wins[i], rows[l, i]]]:
                ok = False
                break
        if ok:
            fired += 1
            if not b.per_line:
                break
    return fired


@njit(cache=True, inline="always")
def pay_bonus(ma, s, rows, wins, counts, b, rng, amounts, counters):
    """Pay the bonus awards the screen starts (``counts``: every scatter group's count on it)."""
    if b.comp < 0:
        return
    if b.group >= 0:
        started = 1 if counts[b.group] >= b.reels else 0
    else:
        started = bonuses_started(ma, s, rows, wins, b)
    counters[BONUS_COUNTER] += started
    for _ in range(started):
        amounts[b.comp] += draw_award(b.award, rng)


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    s = base_spin(p.base, p.lines, p.scat, rng, p.wins, p.counts, amounts, 0, p.comp_scatter)
    pay_bonus(p.base, s, p.lines.rows, p.wins, p.counts, p.bonus, rng, amounts, counters)



@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


@njit(cache=True, inline="always")
def draw_table_cells(tw, rows, screen, rng):
    """Every visible table-wild cell of ``screen`` draws its multiplier by weight: the cell then shows the variant
    game's symbol of that multiplier."""
    for i in range(rows.shape[0]):
        for r in range(rows[i]):
            t = tw.table_of[screen[i, r]]
            if t >= 0:
                screen[i, r] = tw.var_ids[t, weighted_index(tw.cum[t], rng)]


@njit(cache=True, inline="always")
def pay_drawn_windows(ma, s, la, sc, tw, wins, counts, amounts, comp_lines, comp_scatter, rng):
    """:func:`~workbench.simulate.steps.pay_windows` (x1) of a strip set whose screens may show table wilds: on a
    screen showing one, every visible table-wild cell draws its multiplier and the explicit screen is paid by the
    variant game's automaton ``la``; scatter counts are the windows'.  Returns the total paid (units)."""
    drawn = False
    if tw.var_ids.shape[0] > 0:
        for i in range(wins.shape[0]):
            if tw.shows[s, i, wins[i]]:
                drawn = True
                break
    if not drawn:
        return pay_windows(ma, s, la, sc, wins, counts, amounts, comp_lines, comp_scatter, 1)
    screen = tw.screen
    fill_screen(ma, s, wins, screen)
    draw_table_cells(tw, ma.rows, screen, rng)
    total = line_pay_screen(la, screen)
    amounts[comp_lines] += total
    count_groups(ma, s, sc, wins, counts, -1)
    for g in range(comp_scatter.shape[0]):
        if comp_scatter[g] >= 0:
            pay = scatter_pay(sc, g, counts[g])
            amounts[comp_scatter[g]] += pay
            total += pay
    return total


@njit(cache=True, inline="always")
def play_round_tables(p, rng, amounts, adjust, counters, stratum):
    """:func:`play_round` of a game with table wilds: each visible table-wild cell draws its multiplier."""
    ma = p.base
    s = choose_set(ma, rng)
    spin_windows(ma, s, rng, p.wins)
    pay_drawn_windows(ma, s, p.lines, p.scat, p.tw, p.wins, p.counts, amounts, 0, p.comp_scatter, rng)
    pay_bonus(ma, s, p.lines.rows, p.wins, p.counts, p.bonus, rng, amounts, counters)


@njit(cache=True, _nrt=False)
def run_chunk_tables(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round_tables(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The classic template's round: the round its pay rule names (``Rule.classic_round``, model.rules)."""
    return rules.part(game.rule, "classic_round")(game, stake)


def lines_round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The classic template's round of a lines game (the lines rule's ``classic_round``)."""
    from ..exact.variants import has_table_wilds

    if has_table_wilds(game):
        return _table_round_model(game, stake)
    lines = line_arrays(game)
    components = base_components(game)
    bonus = _bonus_params(game, components)
    params = ClassicParams(
        base=compile_mode(game, "base", lines),
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=scatter_components(game, components),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        cost_units=pay_scale(game).cost_units,
        bonus=bonus,
    )
    return RoundModel(game=game, components=tuple(components), params=params, run_chunk=run_chunk, stake=stake,
                      **bonus_reporting(game))


def drawn_lines_mode(game: Game, mode: str):
    """(line automaton, compiled strip sets, :data:`TableWildParams`) of strip-set ``mode`` of ``game`` as that
    mode shows its symbols (:meth:`~workbench.model.Game.in_strip_mode`): with table wilds the variant game's
    automaton and the draws; without, the game's own automaton and no draws (``var_ids`` empty)."""
    from ..exact.variants import has_table_wilds, table_wild_plan, variant_game

    game = game.in_strip_mode(mode)
    screen = np.zeros((game.reels, max(game.rows)), dtype=np.int64)
    if not has_table_wilds(game):
        lines = line_arrays(game)
        ma = compile_mode(game, mode, lines)
        none = TableWildParams(np.zeros(ma.win_sym.shape[:3], dtype=np.bool_), np.full(len(game.symbols) + 1, -1, dtype=np.int64),
                               np.zeros((0, 1), dtype=np.int64), np.zeros((0, 1), dtype=np.int64), screen)
        return lines, ma, none
    variant = variant_game(game)
    lines = line_arrays(variant)  # the variant game's automaton: ids of the game's own symbols are the same
    ma = compile_mode(game, mode, lines)
    plan = table_wild_plan(game)
    table_of = np.full(len(variant.symbols) + 1, -1, dtype=np.int64)
    width = max(tw.n_variants for tw in plan)
    var_ids = np.zeros((len(plan), width), dtype=np.int64)
    cum = np.zeros((len(plan), width), dtype=np.int64)
    for t, tw in enumerate(plan):
        table_of[tw.wild_id] = t
        var_ids[t, : tw.n_variants] = tw.ids
        cum[t] = tw.total
        cum[t, : tw.n_variants] = np.cumsum(tw.weights)
    shows = np.zeros(ma.win_sym.shape[:3], dtype=np.bool_)
    for i in range(game.reels):
        shows[:, i] = (table_of[ma.win_sym[:, i, :, : game.rows[i]]] >= 0).any(axis=-1)
    return lines, ma, TableWildParams(shows, table_of, var_ids, cum, screen)


def _table_round_model(game: Game, stake: float | None) -> RoundModel:
    """The lines round of a game with wilds whose multiplier is drawn per landing (see the module docstring)."""
    lines, base, tw = drawn_lines_mode(game, "base")
    components = base_components(game)
    bonus = _bonus_params(game, components)
    params = ClassicTableParams(
        base=base,
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=scatter_components(game, components),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        cost_units=pay_scale(game).cost_units,
        bonus=bonus,
        tw=tw,
    )
    return RoundModel(game=game, components=tuple(components), params=params, run_chunk=run_chunk_tables, stake=stake,
                      **bonus_reporting(game))


def _bonus_params(game: Game, components: list) -> BonusParams:
    """The compiled bonus-award trigger (adds its component ``bonus:<name>`` to ``components``)."""
    awarding = [(name, t) for name, t in game.triggers.items() if t.award is not None]
    if not awarding:
        return BonusParams(comp=-1, group=-1, match=np.zeros(1, dtype=np.bool_), reels=0, per_line=False,
                           award=plain_award(np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64)))
    (name, trig), = awarding  # validation allows one
    components.append(f"bonus:{name}")
    match = np.zeros(len(game.symbols), dtype=np.bool_)
    for sym in game.symbols.values():
        match[sym.index] = sym.name == trig.combination or (sym.kind == "wild" and trig.combination in sym.substitutes)
    group = list(game.scatters).index(trig.scatter) if trig.scatter is not None else -1
    return BonusParams(comp=len(components) - 1, group=group, match=match, reels=trig.min_count, per_line=trig.per_line,
                       award=award_draw(game, trig))
