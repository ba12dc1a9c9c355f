"""How much one round of a shipped round template can pay at most, in pay units, read from the file alone.

The simulator adds what a round pays, component by component, into 64-bit integers: per round (the template's
own running sums), and over the rounds of a chunk.  A round template therefore declares a *bound*
(``RoundTemplate.bound``, see :mod:`workbench.registry`): a number of pay units that the sum of the absolute
values of every component a round pays never exceeds.  It is computed from the file before anything is built
(no strips are read: a free spin's sticky wilds or a tumble's refills make screens the strips never show, so
every screen the symbols could make is allowed).  :func:`workbench.simulate.engine.round_model` refuses a game
whose bound is above :data:`workbench.simulate.chunks.ROUND_UNITS_MAX` (2^53 - 1: the sums of 1,024 such
rounds fit), and ``workbench validate`` reports it naming the key that makes the bound large; the compiled loop
then adds at most ``INT64_MAX // bound`` rounds per call (all of a block, 2^20 rounds, for every shipped and
gallery game but ``pay_anywhere_tumble``, whose bound is 1.8e14 units), the sums of several calls are added with
a check, and no chunk may record a round above its bound (:func:`workbench.simulate.chunks.check_chunk`).

A bound is an upper bound, not the max win: ``2 x`` where a feature's cap pays back part of a win (the win and
the cap's negative correction are both counted), every pay rule's screen at its largest pays at once, and so
on.  Each template's own rules are in its function below:

- a screen (one spin, or one drop of a tumble): :func:`screen_units` (lines: every line at the largest pay any
  line can make; ways: every paying symbol at its top pay on every way the grid has, each reel's cells at the
  largest wild multiplier; pay anywhere: every paying symbol at its top pay; cluster: as many clusters of each
  paying symbol as the screen holds, each at its top pay) plus every scatter group at its top pay;
- ``classic``: a screen plus the largest bonus award, once per payline when every triggering line starts one;
- ``free_spins``: a base screen (with ``base_random_wilds``, plus twice every line at its largest: the drop's gain)
  plus ``max_free_spins`` free spins of a free screen x the largest multiplier
  (``max_multiplier`` when it grows), twice when ``feature_cap`` can take part back, plus ``min_feature_win``;
- ``hold_and_respin``: a base screen, every cell a coin of the largest value (collectors collecting them),
  x the largest product of multiplier coins, plus every cell the largest jackpot, plus the grand;
- ``tumble``: ``max_cascades + 1`` drops at the largest ladder step, x every cell a multiplier symbol of the
  largest value; the free spins ``max_free_spins`` times that (their multiplier symbols add up over the feature
  when persistent) plus their first drop's scatter pays.
"""

from __future__ import annotations

from fractions import Fraction

from ..model import Game, pay_for_count, rules
from ..model.wheel_segments import is_wheel
from ..pays.scale import pay_scale
from ..registry import RoundBound

__all__ = ["RoundBound", "award_units", "classic_bound", "free_spins_bound", "hold_and_respin_bound", "scatter_units",
           "screen_units", "tumble_bound"]


# ---------------------------------------------------------------------------
# one screen
# ---------------------------------------------------------------------------
def _units(game: Game, scale, pay, unit: str) -> int:
    return scale.units(game.bet.credits(Fraction(str(pay)) if isinstance(pay, float) else pay, unit))


def _max_rows(game: Game) -> list[int]:
    """The most rows each reel shows (reel heights drawn per spin: the tallest)."""
    if game.heights is None:
        return [int(r) for r in game.rows]
    return [int(rows) if reel is None else max(int(h) for h, _ in reel) for rows, reel in zip(game.rows, game.heights)]


def _wild_multiplier(game: Game) -> int:
    """The largest multiplier a wild can carry (fixed, or any entry of its multiplier table); 1 without wilds."""
    top = 1
    for sym in game.symbols.values():
        if not sym.is_wild:
            continue
        for variant in sym.variants:  # in any mode (by_mode)
            top = max(top, int(variant.multiplier))
            if variant.multiplier_table is not None and variant.multiplier_table in game.tables:
                for entry in game.tables[variant.multiplier_table].entries:
                    value = entry.get("multiplier")
                    if isinstance(value, int) and not isinstance(value, bool):
                        top = max(top, value)
    return top


def scatter_units(game: Game, scale=None) -> int:
    """Every scatter group at its top pay (pay units)."""
    scale = scale or pay_scale(game)
    return sum(max([_units(game, scale, p, g.unit) for p in g.pays.values()] + [0]) for g in game.scatters.values())


def _top_pay_units(game: Game, scale, name: str, most: int | None = None) -> int:
    """The largest pay (units) of paytable entry ``name`` for a count up to ``most`` (None: any count)."""
    pays = game.paytable.get(name, {})
    unit = game.bet.line_pay_unit
    if most is None:
        return max([_units(game, scale, p, unit) for p in pays.values()] + [0])
    return max([_units(game, scale, pay_for_count(pays, c), unit) for c in range(most + 1)] + [0])


def lines_units(game: Game, scale=None) -> int:
    """Every payline at the largest pay the line automaton lets one line make (wild multipliers included)."""
    from ..exact.variants import variant_game
    from ..pays.lines import line_automaton

    automaton = line_automaton(variant_game(game))
    top = int(automaton.pay_units.max()) if automaton.n_states else 0
    return top * len(game.paylines)


def ways_units(game: Game, scale) -> int:
    """Every paying symbol (and group) at its top pay on every way: the product over the reels of the most cells a
    reel shows, each x the largest wild multiplier (a bound whether multipliers multiply or add)."""
    factor = 1
    multiplier = _wild_multiplier(game)
    for rows in _max_rows(game):
        factor *= rows * multiplier
    top = sum(_top_pay_units(game, scale, name) for name in game.paytable)
    return top * factor


def anywhere_units(game: Game, scale) -> int:
    cells = sum(_max_rows(game))
    return sum(_top_pay_units(game, scale, name, cells) for name in game.paytable)


def cluster_units(game: Game, scale) -> int:
    """As many clusters of each paying symbol as fit the screen (its smallest paying size), each at its top pay
    (clusters of one symbol are disjoint; those of different symbols share wilds only)."""
    cells = sum(_max_rows(game))
    total = 0
    for name, pays in game.paytable.items():
        sizes = [int(c) for c, p in pays.items() if p > 0]
        if not sizes:
            continue
        total += (cells // max(1, min(sizes))) * _top_pay_units(game, scale, name, cells)
    return total


def screen_units(game: Game, *, scatters: bool = True) -> int:
    """An upper bound of what one screen of ``game`` pays by its pay rule (and, with ``scatters``, its scatter
    groups), in pay units, whatever the symbols on it (see the module docstring)."""
    scale = pay_scale(game)
    units = rules.part(game.rule, "screen_bound")(game, scale)  # the rule's own bound (model.rules)
    return units + (scatter_units(game, scale) if scatters else 0)


def award_units(game: Game) -> int:
    """The most one spin's bonus awards pay: the largest award (a wheel's largest total), once per payline when every triggering line starts
    one (``per_line``), else once."""
    scale = pay_scale(game)
    total = 0
    for trigger in game.triggers.values():
        if trigger.award is None or trigger.award not in game.tables:
            continue
        if is_wheel(game.tables[trigger.award]):  # the largest total one spin of the wheel can pay, exactly
            from ..exact.triggers import award_moments

            top = award_moments(game, trigger, scale)[3]
        else:
            top = max([_units(game, scale, e["value"], trigger.award_unit) for e in game.tables[trigger.award].entries
                       if isinstance(e.get("value"), (int, float)) and not isinstance(e.get("value"), bool)] + [0])
        times = len(game.paylines) if getattr(trigger, "per_line", False) and game.rule.paylines else 1
        total += top * max(times, 1)
    return total


def _total_bet_units(game: Game, value) -> int:
    scale = pay_scale(game)
    return scale.units(game.bet.credits(Fraction(str(value)), "total_bet"))


def _largest(parts: list) -> tuple:
    """The key of the part (``(units, key)``) that adds most."""
    return max(parts, key=lambda p: p[0])[1] if parts else ()


# ---------------------------------------------------------------------------
# the templates
# ---------------------------------------------------------------------------
def _screen_key(game: Game) -> tuple:
    """Where a screen's bound is made large: the largest wild multiplier (it multiplies the pays), else the paytable."""
    wilds = [(int(v.multiplier), name) for name, sym in game.symbols.items() if sym.is_wild for v in sym.variants
             if v.multiplier > 1]
    wilds += [(2, name) for name, sym in game.symbols.items() if sym.is_wild
              and any(v.multiplier_table is not None for v in sym.variants)]
    return ("symbols", max(wilds)[1], "multiplier") if wilds else ("paytable",)


def classic_bound(game: Game, stake=None) -> RoundBound:
    screen = screen_units(game)
    awards = award_units(game)
    key = _screen_key(game) if screen >= awards else ("triggers",)
    return RoundBound(screen + awards, key, f"a screen pays at most {screen:,} pay units"
                      + (f", its bonus awards at most {awards:,}" if awards else ""))


def _free_screen(game: Game, mode: str | None) -> int:
    """A free spin's screen: the game's screen with the symbols of the free spins' mode (``[symbols] by_mode``: the
    same pays, perhaps other wild multipliers), scatter pays included."""
    return screen_units(game.in_strip_mode(mode) if mode is not None else game)


def free_spins_bound(game: Game, stake=None) -> RoundBound:
    from . import MAX_FREE_SPINS, MAX_MULTIPLIER

    f = game.features
    base = screen_units(game)
    if "base_random_wilds" in f:  # the landed lines, and the drop's gain: |after - landed| <= after + landed
        base += 2 * lines_units(game)
    spins = int(f.get("max_free_spins", MAX_FREE_SPINS))
    growth = f.get("multiplier_growth", "none")
    multiplier = int(f.get("max_multiplier", MAX_MULTIPLIER)) if growth != "none" else int(f.get("multiplier", 1))
    screen = _free_screen(game, f.get("free_spins_mode"))
    win = spins * screen * multiplier
    if "feature_cap" in f:
        cap = _total_bet_units(game, f["feature_cap"])
        win = min(win, cap + screen * multiplier)  # the feature ends once its win reaches the cap
        feature = 2 * win  # the win, and the cap's negative correction
    else:
        feature = win
    guarantee = _total_bet_units(game, f["min_feature_win"]) if f.get("min_feature_win", 0) else 0
    wheel = _wheel_units(game, spins)
    spins_key = ("features", "max_free_spins")
    mult_key = ("features", "max_multiplier" if growth != "none" else "multiplier")
    # the key to change: the declared one of the two factors that adds most (an absent max_free_spins counts)
    key = max([(spins, spins_key), (multiplier, mult_key)], key=lambda p: p[0])[1] if win > base else _screen_key(game)
    detail = (f"a base screen of at most {base:,} pay units plus {spins:,} free spins (max_free_spins"
              f"{'' if 'max_free_spins' in f else ', absent'}) of at most {screen:,} x multiplier {multiplier:,}"
              + (f", wheel cash of at most {wheel:,}" if wheel else ""))
    if wheel > base + feature + guarantee:
        key = ("features", "wheel")
    return RoundBound(base + feature + guarantee + wheel, key, detail)


def _wheel_units(game: Game, spins: int) -> int:
    """The most a feature's wheel awards pay (pay units): one award per trigger and per retrigger (at most one per
    free spin), each at most ``wheel_max_spins`` cash prizes, or each distinct prize once when they cannot repeat."""
    from .wheels import MAX_WHEEL_SPINS

    f = game.features
    if "wheel" not in f:
        return 0
    cash = [_total_bet_units(game, e["value"]) for e in game.tables[f["wheel"]].entries if e["award"] == "cash"]
    if not cash:
        return 0
    per_award = int(f.get("wheel_max_spins", MAX_WHEEL_SPINS)) * max(cash)
    if not f.get("wheel_repeat_cash", True):
        per_award = min(per_award, sum(set(cash)))
    return per_award * (1 + (spins if f.get("wheel_on_retrigger", True) else 0))


def hold_and_respin_bound(game: Game, stake=None) -> RoundBound:
    from . import JACKPOTS, MAX_MULTIPLIER

    f = game.features
    base = screen_units(game)
    cells = sum(_max_rows(game))
    table = game.tables.get(f.get("coin_values"))
    entries = table.entries if table is not None else ()
    top_value = max([_total_bet_units(game, e["value"]) for e in entries
                     if set(e) - {"weight"} == {"value"} and isinstance(e["value"], (int, float))] + [0])
    from .coin_wheels import coin_wheel_table, coin_wheel_value

    if coin_wheel_table(game) is not None:  # a wheel coin is worth at most its wheel's largest award
        top_value = max(top_value, _total_bet_units(game, coin_wheel_value(game).cash_max))
    collectors = any(e.get("collector") is True for e in entries)
    mults = [int(e["multiplier"]) for e in entries if isinstance(e.get("multiplier"), int)]
    # any entry may land on every cell: the product of the multiplier coins is capped at MAX_MULTIPLIER
    product = min(max(mults) ** cells, MAX_MULTIPLIER) if mults else 1
    # v value coins and c collectors (v + c <= cells) pay v x (1 + c) coins at most: ((cells + 1) / 2)^2
    coins = ((cells + 1) * (cells + 1) + 3) // 4 if collectors else cells
    value = coins * top_value * product  # coins, collected and the multipliers' uplift together
    jackpot = max([_total_bet_units(game, f[j]) for j in JACKPOTS if f.get(j) is not None] + [0])
    grand = _total_bet_units(game, f["grand"]) if f.get("grand") is not None else 0
    parts = [(value, ("tables", f.get("coin_values"), "entries")), (cells * jackpot, ("features",)),
             (grand, ("features", "grand"))]
    return RoundBound(base + value + cells * jackpot + grand, _largest(parts),
                      f"a base screen of at most {base:,} pay units plus {cells} coins of at most {top_value:,}"
                      + (" (with collectors)" if collectors else "") + (f" x multiplier coins {product:,}" if product > 1 else "")
                      + (f", jackpots of at most {jackpot:,} each" if jackpot else "") + (f", grand {grand:,}" if grand else ""))


def _ladder_top(values: list, step, cap, positions: int) -> int:
    """The highest rung of a tumble ladder over ``positions`` positions (see workbench.rounds.multipliers.Ladder)."""
    top = max(values)
    if step:
        climbed = values[-1] + int(step) * max(0, positions - len(values))
        top = max(top, min(climbed, cap) if cap else climbed)
    return top


def tumble_bound(game: Game, stake=None) -> RoundBound:
    from . import MAX_CASCADES, MAX_FREE_SPINS

    f = game.features
    drop = screen_units(game, scatters=False)
    positions = f.get("position_multipliers")
    if isinstance(positions, list) and positions:  # a win x at most every cell at the top multiplier
        drop *= max(1, sum(_max_rows(game)) * max(positions))
    scatters = scatter_units(game)
    cascades = int(f.get("max_cascades", MAX_CASCADES))
    spins = int(f.get("max_free_spins", MAX_FREE_SPINS)) if "trigger" in f else 0
    per_spin = f.get("free_spins_ladder_grows") in ("spin", "win")  # a rung per (winning) free spin at most
    free_positions = spins if per_spin else (cascades + 1) * (spins if f.get("free_spins_ladder_carries") else 1)
    base_ladder = _ladder_top(f.get("cascade_multipliers") or [1], f.get("ladder_step"), f.get("ladder_cap"),
                              cascades + 1)
    free_ladder = _ladder_top(f.get("free_spins_cascade_multipliers") or f.get("cascade_multipliers") or [1],
                              f.get("free_spins_ladder_step", f.get("ladder_step")),
                              f.get("free_spins_ladder_cap", f.get("ladder_cap")), max(free_positions, 1))
    add = f.get("multiplier_symbols") == "add"  # the symbols' total adds to the rung instead of multiplying
    cells = sum(_max_rows(game))
    top_value = 0
    if f.get("multiplier_symbol") is not None and f.get("multiplier_values") in game.tables:
        top_value = max([int(e["value"]) for e in game.tables[f["multiplier_values"]].entries
                         if isinstance(e.get("value"), int)] + [0])
    symbols = max(1, cells * top_value)  # the multiplier symbols on a final screen add up to at most this
    chain = (cascades + 1) * drop
    # the paid spin: its first drop (component of the pay rule) and the rest of the chain (tumble): 2 x the chain
    # with chain_scatters = "paid" the final screen's scatter pays over the first drop's go to tumble: once more at most
    base = scatters * (2 if f.get("chain_scatters") == "paid" else 1) + 2 * chain * (
        base_ladder + symbols if add else base_ladder * symbols)
    feature = 0
    if "trigger" in f:
        persistent = f.get("persistent_multiplier", True)
        multiplier = max(1, spins * cells * top_value) if persistent else symbols
        feature = spins * (scatters + chain * (free_ladder + multiplier if add else free_ladder * multiplier))
    parts = [(cascades, ("features", "max_cascades"))] + ([(spins, ("features", "max_free_spins"))] if spins else [])
    wheel = _wheel_units(game, spins) if "trigger" in f else 0
    if wheel > base + feature:
        parts = [(wheel, ("features", "wheel"))]
    return RoundBound(base + feature + wheel, _largest(parts),
                      f"{cascades + 1:,} drops (max_cascades{'' if 'max_cascades' in f else ', absent'} + 1) of at most "
                      f"{drop:,} pay units at ladder x{max(base_ladder, free_ladder):,}"
                      + (f" x multiplier symbols up to {top_value:,} each" if top_value else "")
                      + (f", {spins:,} free spins (max_free_spins{'' if 'max_free_spins' in f else ', absent'})" if spins else "")
                      + (f", wheel cash of at most {wheel:,}" if wheel else ""))
