"""The declared features played slowly: free spins, hold and respin, tumbles."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ..model import Game, Strip, StripSet, rules
from ..model.wheel_segments import MAX_WHEEL_SPINS
from .cycle import multiplier_tables
from .screens import screen
from .pays import line_wins
from .wheels import spin_wheel_table


def _pick(rng, weights) -> int:
    """An index drawn with probability proportional to ``weights`` (Python's ``random.Random``)."""
    return rng.choices(range(len(weights)), weights=weights)[0]


def spin_set(game: Game, mode: str, rng) -> StripSet:
    """The strip set a spin of ``mode`` plays: one of the file's by weight, its mystery symbols revealed (each draws one
    entry of its ``reveal`` table by weight; every stop of it on every reel shows that entry's symbol), then its wild
    reels drawn (``wild_reels``: each such reel's strip is its wild in every row)."""
    sets = [s for s in game.strip_sets.values() if s.mode == mode and s.weight > 0]
    strip_set = sets[_pick(rng, [s.weight for s in sets])]
    shows = {}
    for name, sym in game.symbols.items():
        if sym.kind == "mystery" and any(name in strip.symbols for strip in strip_set.reels):
            table = game.tables[sym.reveal]
            shows[name] = table.entries[_pick(rng, table.weights)]["symbol"]
    reels = [Strip(tuple(shows.get(x, x) for x in strip.symbols), strip.weights) for strip in strip_set.reels]
    wild = strip_set.wild_reels
    if wild is not None:  # whole reels turn wild: each by its chance, or k of them (k by weight) uniformly
        if wild.chance is not None:
            turned = [r for r, c in enumerate(wild.chance) if rng.randrange(wild.out_of) < c]
        else:
            table = game.tables[wild.count]
            k = int(table.entries[_pick(rng, table.weights)]["reels"])
            turned = [r - 1 for r in rng.sample(list(wild.reels), k)]
        for r in turned:
            reels[r] = Strip((wild.symbol,) * game.rows[r])
    return StripSet(strip_set.name, strip_set.mode, strip_set.weight, tuple(reels))


def _spins_for(spins: dict, count: int) -> int:
    """A ``{count: spins}`` map read as the free_spins template reads it: the largest key not above ``count``."""
    by_count = {int(k): int(v) for k, v in spins.items()}
    keys = [k for k in by_count if k <= count]
    return by_count[max(keys)] if keys else 0


def _feature_spins(game: Game, key: str, count: int, rng) -> int:
    """Spins for ``count`` scatters as docs/reelset-format.md says: ``[features] key`` (``free_spins`` /
    ``retrigger``) by count, or drawn by weight from the table ``key_table`` names among its entries for the count
    (those whose ``count`` is the largest not above it, or every entry when none has a ``count``)."""
    f = game.features
    if key in f:
        return _spins_for(f[key], count)
    table = game.tables[f[f"{key}_table"]]
    rows = list(zip(table.entries, table.weights))
    counts = [int(e["count"]) for e, _ in rows if "count" in e]
    if counts:
        below = [c for c in counts if c <= count]
        if not below:
            return 0
        rows = [(e, w) for e, w in rows if int(e["count"]) == max(below)]
    if sum(w for _, w in rows) == 0:
        return 0
    return int(rows[_pick(rng, [w for _, w in rows])][0]["spins"])


def drawn_spin(game: Game, strip_set: StripSet, stops: tuple, rng) -> dict:
    """:func:`spin_result` of one spin whose visible table-wild cells first draw their multipliers by weight from
    their tables (``[symbols] X multiplier = "TABLE"``), one draw per cell; ``game`` as the mode shows its symbols."""
    from .cycle import multiplier_tables, spin_result

    tables = multiplier_tables(game)
    drawn = {}
    for i, reel in enumerate(screen(game, strip_set, stops)):
        for r, sym in enumerate(reel):
            if sym in tables:
                entries = tables[sym]
                drawn[(i, r)] = entries[_pick(rng, [w for _, w in entries])][0]
    return spin_result(game, strip_set, stops, multipliers=drawn)


def forced_screen(game: Game, count: int, rng, tries: int = 10_000_000) -> Fraction:
    """What the forced trigger screen of a bought feature pays (``[bet_modes.*] forced_screen = "paid"``), credits
    per bet multiplier: base spins (strip set by weight, stops by stop weight, the base game's symbols, table wilds
    drawn) drawn until one shows exactly ``count`` of the trigger's scatters, paid as a base spin.  Rejection is slow
    and obviously right: the screen has the base game's distribution given the count."""
    base = game.in_strip_mode("base")
    scatter = game.triggers[game.features["trigger"]].scatter
    for _ in range(tries):
        strip_set = spin_set(base, "base", rng)
        stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
        result = drawn_spin(base, strip_set, stops, rng)
        if result["scatters"][scatter] == count:
            return result["win"]
    raise RuntimeError(f"no base screen with {count} {scatter} in {tries:,} spins")


def wheel_award(game: Game, rng) -> tuple[Fraction, int, int]:
    """One award of the wheel ``[features] wheel`` names, spun slowly (:func:`workbench.reference.wheels.spin_wheel_table`):
    (cash, credits per bet multiplier; free spins; meter spins)."""
    f = game.features
    cash, spins, meter = spin_wheel_table(game.tables[f["wheel"]], bool(f.get("wheel_repeat_cash", True)),
                                          int(f.get("wheel_max_spins", 100)), rng)
    return cash * game.bet.cost, spins, meter


def trigger_screen(game: Game, count: int, rng, or_more: bool = False, tries: int = 10_000_000) -> list[list[str]]:
    """A base screen (strip set by weight, stops by stop weight, the base game's symbols) drawn until one shows
    exactly ``count`` of the trigger's scatters (``or_more``: at least ``count``), counted on the screen: the base
    game's screen given its count, by rejection."""
    base = game.in_strip_mode("base")
    group = base.scatters[base.triggers[base.features["trigger"]].scatter]
    for _ in range(tries):
        strip_set = spin_set(base, "base", rng)
        shown = screen(base, strip_set, tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels))
        n = _count_on_screen(shown, group)
        if n == count or (or_more and n > count):
            return shown
    raise RuntimeError(f"no base screen with {count} {group.name} in {tries:,} spins")


def persisting_cells(game: Game, shown: list[list[str]]) -> set:
    """The cells of ``shown`` that turn into persisting wilds (``[features] free_spins_persisting_wilds``): those
    showing a listed symbol, on every reel, or with scatters counted on adjacent reels only on the reels of the run
    from the first that show the trigger's group."""
    names = set(game.features.get("free_spins_persisting_wilds", ()))
    group = game.scatters[game.triggers[game.features["trigger"]].scatter]
    cells = set()
    for r, reel in enumerate(shown):
        if group.counting == "adjacent_from_first_reel" and not any(sym in group.symbols for sym in reel):
            break
        cells |= {(r, row) for row, sym in enumerate(reel) if sym in names}
    return cells


def free_spins_feature(game: Game, count: int, rng, shown_trigger: list[list[str]] | None = None) -> Fraction:
    """One free-spins feature of a ``free_spins`` game (lines or ways) started by ``count`` scatters, played screen
    by screen with ``rng`` (a ``random.Random``): what it pays, credits per bet multiplier (cap and minimum applied).

    Straight from docs/reelset-format.md: spins by count (at most ``max_free_spins``), each free spin on a strip set
    of ``free_spins_mode`` chosen by weight, stops by stop weight, its symbols as that mode shows them (``by_mode``;
    table wilds draw their multipliers per cell); the wilds (sticky / expanding / walking, lines games) put on
    the screen; every payline (or way) and scatter group paid on the final screen x the multiplier; the multiplier
    grows; retriggers add spins; the cap ends the feature.  A wheel (``[features] wheel``) is spun at the start and
    on every retrigger: its cash is paid beside the feature's win (no multiplier, cap or minimum), its free spins
    added, its meter spins each played on a random one of the spins left, on the strips of ``meter_spins_mode``
    (more meter spins than spins left add spins).  Persisting wilds: the listed symbols of ``shown_trigger`` (the
    screen that started the feature; None: none) and of every screen that retriggers turn into ``wild_symbol``,
    from the next free spin to the end (put on after the scatters are counted).
    """
    original = game
    # multiplier_wilds = "add": a line win's wild multiplier adds to the feature's multiplier (Game.in_free_spins),
    # which the line evaluation then carries; the screen is not multiplied again, its scatter pays x it alone
    game = game.in_strip_mode(game.features["free_spins_mode"]).in_free_spins()
    f = game.features
    limit = int(f.get("max_free_spins", 10_000))
    trigger = game.triggers[f["trigger"]]
    left = awarded = min(_feature_spins(game, "free_spins", count, rng), limit)
    meter, wheel_cash = 0, Fraction(0)

    def wheel() -> None:
        nonlocal left, awarded, meter, wheel_cash
        cash, spins, metered = wheel_award(game, rng)
        wheel_cash += cash
        meter += metered
        new = min(awarded + spins + max(meter - left - spins, 0), limit)
        left += new - awarded
        awarded = new
        meter = min(meter, left)

    if "wheel" in f:
        wheel()
    mult = 1 if game.pays.feature_multiplier else int(f.get("multiplier", 1))
    growth = f.get("multiplier_growth", "none")
    step = int(f.get("multiplier_step", 1))
    top = int(f.get("max_multiplier", 10_000))
    wilds = f.get("free_spins_wilds", "none")
    cost = game.bet.cost
    cap = Fraction(str(f["feature_cap"])) * cost if "feature_cap" in f else None
    free_game = game
    if "meter_spins_mode" in f:
        meter_game = original.in_strip_mode(f["meter_spins_mode"]).in_free_spins()
    persisting = f.get("free_spins_persisting_wilds")
    # the wilds a feature carries from spin to spin: held cells (sticky, walking), expanding sticky reels (reel ->
    # the multiplier drawn when its wild landed), persisting cells
    wilds_state = {"held": set(), "reels": {}, "persisted": (persisting_cells(game, shown_trigger)
                                                            if persisting and shown_trigger is not None else set())}
    win = Fraction(0)
    while left > 0:
        metered = meter > 0 and rng.randrange(left) < meter
        meter -= metered
        game, mode = (meter_game, f["meter_spins_mode"]) if metered else (free_game, f["free_spins_mode"])
        left -= 1
        strip_set = spin_set(game, mode, rng)
        stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
        if wilds == "none" and "free_spins_random_wilds" not in f and not persisting:  # as spun: table wilds drawn
            result = drawn_spin(game, strip_set, stops, rng)
            scattered = (result["win"] - result["rule_win"]) * max(game.pays.feature_multiplier, 1)
            spin, shown_count = result["rule_win"] + scattered, result["scatters"][trigger.scatter]
        else:
            spin, shown_count = _explicit_free_spin(game, strip_set, stops, rng, wilds_state)
        win += spin * mult
        if growth == "per_spin" or (growth == "per_win" and spin > 0):
            mult = min(mult + step, top)
        if shown_count >= int(f.get("retrigger_min_count", trigger.min_count)) and ("retrigger" in f or "retrigger_table" in f):
            extra = _feature_spins(game, "retrigger", shown_count, rng)
            new = min(awarded + extra, limit)
            left += new - awarded
            awarded = new
            if extra > 0 and "wheel" in f and f.get("wheel_on_retrigger", True):
                wheel()
        if cap is not None and win >= cap:
            break
    if cap is not None:
        win = min(win, cap)
    return max(win, Fraction(str(f.get("min_feature_win", 0))) * cost) + wheel_cash


def _explicit_free_spin(game: Game, strip_set: StripSet, stops: tuple, rng, state: dict) -> tuple[Fraction, int]:
    """One free spin of a lines game played on its screen with the feature's wilds (``state``: held cells, expanding
    sticky reels, persisting cells, updated for the next spin): (its pay in credits, the trigger's scatter count)."""
    f = game.features
    wilds, wild = f.get("free_spins_wilds", "none"), f.get("wild_symbol")
    trigger = game.triggers[f["trigger"]]
    held, reels_held, persisted = state["held"], state["reels"], state["persisted"]
    shown = screen(game, strip_set, stops)
    landed = {(r, row) for r, reel in enumerate(shown) for row, sym in enumerate(reel) if sym == wild}
    if wilds == "expanding":
        for r in {r for r, _ in landed}:
            shown[r] = [wild] * len(shown[r])
    tables = multiplier_tables(game)

    def wild_multiplier():
        entries = tables.get(wild)
        return entries[_pick(rng, [w for _, w in entries])][0] if entries else game.symbols[wild].multiplier

    redraw = f.get("wild_reel_multiplier") == "every_spin"
    if wilds == "expanding_sticky":  # the first wild to land on a reel fills it to the end (None: drawn every spin)
        for r in sorted({r for r, _ in landed} - set(reels_held)):
            reels_held[r] = None if redraw else wild_multiplier()
    reel_mults = {r: wild_multiplier() if m is None else m for r, m in reels_held.items()}
    for r in reels_held:
        shown[r] = [wild] * len(shown[r])
    for r, row in held:
        shown[r][row] = wild
    counted = [list(reel) for reel in shown]  # scatters count before persisting and random wilds go on
    fresh = set()
    if f.get("free_spins_persisting_wilds"):
        retriggers = "retrigger" in f or "retrigger_table" in f
        if retriggers and _count_on_screen(counted, game.scatters[trigger.scatter]) >= int(
                f.get("retrigger_min_count", trigger.min_count)):
            fresh = persisting_cells(game, counted) - persisted  # from the next spin on
        for r, row in persisted:
            shown[r][row] = wild
    placed = set()
    if "free_spins_random_wilds" in f:
        placed = drop_random_wilds(game, shown, held | persisted, rng, set(reels_held))
    mults = None
    if tables or reels_held:  # each cell's multiplier: a held reel's, a table wild's drawn, else its own
        mults = [[reel_mults[i] if i in reels_held
                  else tables[s][_pick(rng, [w for _, w in tables[s]])][0] if s in tables
                  else game.symbols[s].multiplier for s in reel] for i, reel in enumerate(shown)]
    spin = Fraction(0)
    for l, line_rows in enumerate(game.paylines):
        cells = None if mults is None else [mults[reel][row] for reel, row in enumerate(line_rows)]
        for w in line_wins(game, [shown[reel][row] for reel, row in enumerate(line_rows)], l, cells):
            spin += game.bet.credits(w.paid, game.bet.line_pay_unit)
    shown_count = 0
    for name, group in game.scatters.items():
        n = _count_on_screen(counted, group)
        spin += game.bet.credits(group.pay(n), group.unit) * max(game.pays.feature_multiplier, 1)
        if name == trigger.scatter:
            shown_count = n
    if wilds == "sticky":
        held |= landed
    elif wilds == "walking":
        state["held"] = {(r - 1, row) for r, row in held | landed if r >= 1}
    persisted |= fresh
    for r in placed:  # placed off the strips: the reel's expanding sticky wild from the next spin
        reels_held[r] = None if redraw else wild_multiplier()
    return spin, shown_count


def base_spin_with_random_wilds(game: Game, rng) -> tuple[Fraction, Fraction, int]:
    """One base spin of a game whose base spins drop random wilds (``[features] base_random_wilds``): the strip set
    and stops drawn by weight, the landed screen paid (credits per bet multiplier, scatters included) and its trigger
    scatters counted, then one outcome of the table dropped (cells among all cells, overlays) and the lines paid
    again.  Returns (landed win, the drop's gain in line pays, trigger scatters on the landed screen)."""
    from .cycle import spin_result

    strip_set = spin_set(game, "base", rng)
    stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
    landed = spin_result(game, strip_set, stops)
    shown = [list(reel) for reel in screen(game, strip_set, stops)]

    def lines_paid() -> Fraction:
        return sum((game.bet.credits(w.paid, game.bet.line_pay_unit) for l, rows in enumerate(game.paylines)
                    for w in line_wins(game, [shown[r][row] for r, row in enumerate(rows)], l)), Fraction(0))

    before = lines_paid()
    drop_random_wilds(game, shown, set(), rng, key="base_random_wilds")
    count = landed["scatters"][game.triggers[game.features["trigger"]].scatter]
    return landed["win"], lines_paid() - before, count


def drop_random_wilds(game: Game, shown: list[list[str]], held: set, rng, held_reels: frozenset = frozenset(),
                      key: str = "free_spins_random_wilds") -> set:
    """Random wilds on one free spin's screen (``[features] free_spins_random_wilds``, or ``key``), in place: one outcome of the
    table by weight; ``cells``: ``wild_symbol`` on ``count`` distinct cells drawn uniformly among those not ``held``
    (all of them when fewer); ``overlay``: per size s an s x s square at a uniform position inside the grid;
    ``sticky_reels``: ``count`` distinct reels drawn uniformly among those not in ``held_reels`` (all when fewer), each
    showing the wild on a uniform row.  Returns the reels a ``sticky_reels`` outcome placed (they hold an expanding sticky
    wild from the next spin)."""
    f = game.features
    table = game.tables[f[key]]
    entry = table.entries[_pick(rng, table.weights)]
    wild = f["wild_symbol"]
    if entry["wilds"] == "cells":
        free = [(r, row) for r, reel in enumerate(shown) for row in range(len(reel)) if (r, row) not in held]
        for r, row in rng.sample(free, min(int(entry["count"]), len(free))):
            shown[r][row] = wild
    elif entry["wilds"] == "overlay":
        rows = min(len(reel) for reel in shown)
        for side in entry["sizes"]:
            left, top = rng.randrange(len(shown) - side + 1), rng.randrange(rows - side + 1)
            for r in range(left, left + side):
                for row in range(top, top + side):
                    shown[r][row] = wild
    elif entry["wilds"] == "sticky_reels":
        free = [r for r in range(len(shown)) if r not in held_reels]
        placed = set(rng.sample(free, min(int(entry["count"]), len(free))))
        for r in placed:
            shown[r][rng.randrange(len(shown[r]))] = wild
        return placed
    return set()


def _count_on_screen(shown: list[list[str]], group) -> int:
    """Instances of a scatter group on an explicit screen of one-row symbols (anywhere, or adjacent from reel 1)."""
    per_reel = [sum(sym in group.symbols for sym in reel) for reel in shown]
    if group.counting != "adjacent_from_first_reel":
        return sum(per_reel)
    total = 0
    for n in per_reel:
        if n == 0:
            break
        total += n
    return total


def _prize_board(game: Game, rng) -> list[list[str]]:
    """One board of a prize mode: a strip set of its strips' mode by weight, a stop per reel by stop weight, the
    symbols the window shows (reel by reel, top row first)."""
    strip_set = spin_set(game, game.bet_mode.prize_strips, rng)
    stops = tuple(_pick(rng, list(strip.stop_weights)) for strip in strip_set.reels)
    return screen(game, strip_set, stops)


def hold_and_respin_feature(game: Game, coins: int, rng) -> dict[str, Fraction]:
    """One hold-and-respin feature of a ``hold_and_respin`` game started by ``coins`` coins, played cell by cell
    with ``rng`` (a ``random.Random``): what it pays by component, credits per bet multiplier.

    Straight from docs/reelset-format.md: the screen is a list of cells; every coin drawn from ``coin_values``
    (value x total bet, jackpot, collector, multiplier, or a wheel coin whose value is one award of its wheel) sticks
    in a cell; the coins of one landing (the starting
    screen, or one respin) are placed first, then each collector among them takes the sum of the value coins now on
    the screen; on a respin each empty cell lands a coin with weight ``respin_coin_weight`` against
    ``respin_blank_weight`` (a prize mode with strips: each respin, from 0 coins on, is one board of its strips,
    and every empty cell showing a coin symbol lands a coin); a landing resets the respins; at the end the value coins and the collectors' amounts
    are multiplied by the product of the multiplier coins (at most 10,000); a full screen adds ``grand``.
    Components: ``coins``, ``coins:collected``, ``coins:multiplied``, ``jackpot:<name>`` (0 when nothing was paid).
    """
    f = game.features
    cost = game.bet.cost
    table = game.tables[f["coin_values"]]
    cells: list = [None] * sum(game.rows)  # None: empty; else (kind, amount in credits or multiplier)
    coin_symbols = game.scatters[game.triggers[f["trigger"]].scatter].symbols
    paid: dict[str, Fraction] = {"coins": Fraction(0), "coins:collected": Fraction(0), "coins:multiplied": Fraction(0)}

    def land(places: list[int]) -> None:
        batch = []
        for cell in places:
            entry = table.entries[_pick(rng, list(table.weights))]
            if "value" in entry:
                cells[cell] = ("value", Fraction(str(entry["value"])) * cost)
            elif "jackpot" in entry:
                cells[cell] = ("jackpot", entry["jackpot"])
                key = f"jackpot:{entry['jackpot']}"
                paid[key] = paid.get(key, Fraction(0)) + Fraction(str(f[entry["jackpot"]])) * cost
            elif "multiplier" in entry:
                cells[cell] = ("multiplier", int(entry["multiplier"]))
            elif "wheel" in entry:  # a wheel coin: one award of its wheel, x total bet, is its value
                cash = spin_wheel_table(game.tables[entry["wheel"]], bool(f.get("coin_wheel_repeat_cash", True)),
                                        int(f.get("coin_wheel_max_spins", MAX_WHEEL_SPINS)), rng)[0]
                cells[cell] = ("value", cash * cost)
            else:
                batch.append(cell)
        for cell in batch:  # collectors after the other coins of their landing
            cells[cell] = ("collector", sum(c[1] for c in cells if c is not None and c[0] == "value"))

    land(list(range(coins)))
    left = int(f.get("respins", 3))
    land_weights = [int(f["respin_coin_weight"]), int(f["respin_blank_weight"])]
    while left > 0 and None in cells:
        empty = [i for i, c in enumerate(cells) if c is None]
        if game.bet_mode.prize and game.bet_mode.prize_strips is not None:
            shown = [sym for reel in _prize_board(game, rng) for sym in reel]  # cell i: reel by reel, top row first
            new = [i for i in empty if shown[i] in coin_symbols]
        else:
            new = [i for i in empty if _pick(rng, land_weights) == 0]
        if new:
            land(new)
            left = int(f.get("respins", 3))
        else:
            left -= 1
    paid["coins"] = sum((c[1] for c in cells if c is not None and c[0] == "value"), Fraction(0))
    paid["coins:collected"] = sum((c[1] for c in cells if c is not None and c[0] == "collector"), Fraction(0))
    product = 1
    for c in cells:
        if c is not None and c[0] == "multiplier":
            product *= c[1]
    paid["coins:multiplied"] = (min(product, 10_000) - 1) * (paid["coins"] + paid["coins:collected"])
    if None not in cells and "grand" in f:
        paid["jackpot:grand"] = Fraction(str(f["grand"])) * cost
    return paid


def drop_wins(game: Game, shown: list) -> tuple[Fraction, set]:
    """What one drop pays by the pay rule (credits per bet multiplier, x1) and the cells of its paid wins.

    ``shown[reel][row]``: symbol names.  Cells removed (as ``(reel, row)``): lines, the first ``count`` cells of
    the line of every paid win (left to right); ways, the cells matching the target on the first ``count`` reels;
    scatter_pays, every cell showing a paid symbol; cluster, every cell of a paid cluster (wilds included).
    """
    if game.rule.reference_drop is None:
        raise ValueError(f"no tumble reference for rule {game.pays.rule!r}")
    return rules.part(game.rule, "reference_drop")(game, shown)


class TumbleLadder:
    """A tumble game's cascade ladder as docs/reelset-format.md describes it: the listed rungs, then each further
    rung ``step`` higher up to ``cap`` (no step: the last repeats); it climbs per winning cascade (``per_cascade``),
    per free spin, or (``per_win``) per free spin whose drops win; ``on_chain``: one rung multiplies the chain's
    total."""

    def __init__(self, values, step: int = 0, cap: int | None = None, per_cascade: bool = True, on_chain: bool = False,
                 per_win: bool = False):
        self.values, self.step, self.cap = list(values), step, cap
        self.per_cascade, self.on_chain, self.per_win = per_cascade, on_chain, per_win

    @classmethod
    def of(cls, features: dict, free: bool) -> "TumbleLadder":
        """The base game's ladder, or (``free``) the free spins' (each of their keys absent: the base game's)."""
        values = list(features.get("cascade_multipliers", [1]))
        on_chain = features.get("ladder_applies", "drop") == "chain"
        if not free:
            return cls(values, features.get("ladder_step", 0), features.get("ladder_cap"), True, on_chain)
        grows = features.get("free_spins_ladder_grows", "cascade")
        return cls(features.get("free_spins_cascade_multipliers", values),
                   features.get("free_spins_ladder_step", features.get("ladder_step", 0)),
                   features.get("free_spins_ladder_cap", features.get("ladder_cap")), grows == "cascade", on_chain,
                   grows == "win")

    def rung(self, position: int) -> int:
        if position < len(self.values):
            return self.values[position]
        value = self.values[-1] + (position - len(self.values) + 1) * self.step
        return value if self.cap is None else min(value, self.cap)


class PositionCells:
    """Position multipliers as docs/reelset-format.md describes them: the wins on each grid cell so far."""

    def __init__(self, values: list):
        self.values, self.hits = list(values), Counter()

    def multiplier(self, cell: tuple) -> int:
        wins = self.hits[cell]
        return 0 if wins == 0 else self.values[min(wins, len(self.values)) - 1]

    def drop(self, game: Game, shown: list) -> tuple[Fraction, set]:
        """:func:`drop_wins` with the cells' multipliers: each paid win (a cluster, a symbol anywhere, a target's
        ways, a line's win: the rule's ``reference_drop_wins``) x the sum of its cells' multipliers (x1 when 0),
        read before the drop's wins add a win to each of their cells."""
        if game.rule.reference_drop_wins is None:
            raise ValueError(f"no position-multiplier reference for rule {game.pays.rule!r}")
        wins = rules.part(game.rule, "reference_drop_wins")(game, shown)
        pay, cells = Fraction(0), set()
        for paid, won in wins:
            m = sum(self.multiplier(cell) for cell in won)
            pay += paid * (m if m > 0 else 1)
            cells |= won
        for _, won in wins:
            for cell in won:
                self.hits[cell] += 1
        return pay, cells


def tumble_chain(game: Game, strip_set: StripSet, stops: tuple, ladder, refill=None,
                 draw=None, step0: int = 0, final: list | None = None, grid: PositionCells | None = None) -> tuple:
    """One tumbling spin from ``stops``, as docs/reelset-format.md describes the ``tumble`` round: (first drop's
    pay at x1, the chain's pay with the cascade ladder, the total of the multiplier symbols on the final screen if
    the chain won, else 0; the ladder position of its last paying drop; the drops' pays at x1 together; the rung of
    that position), pays in credits per bet multiplier; ``ladder`` a :class:`TumbleLadder` or a list of rungs.  The
    first drop is at position ``step0`` (0 but for free spins whose ladder carries on or grows per spin).  ``grid``:
    the position multipliers, when they play on this spin.  The removed cells' symbols fall; new ones continue
    each reel's strip above the window, or with ``refill = (strip_set, stops)`` that strip set's reels from those
    stops upward.  ``draw()`` gives the value of a multiplier symbol (``[features] multiplier_symbol``) that lands.
    ``final``: a list that receives the chain's final screen (``final[reel][row]``).
    """
    bomb = game.features.get("multiplier_symbol")
    shown = screen(game, strip_set, stops)
    values = [[draw() if s == bomb else 0 for s in column] for column in shown]
    source, tops = (strip_set, [s - 1 for s in stops]) if refill is None else (refill[0], list(refill[1]))
    if not isinstance(ladder, TumbleLadder):
        ladder = TumbleLadder(ladder)

    def paid_drop(shown: list) -> tuple:  # the rule's drop, with the grid's multipliers when they play
        return grid.drop(game, shown) if grid is not None else drop_wins(game, shown)

    first, cells = paid_drop(shown)
    drops = [(first, step0)]  # each paying drop's win at x1 and its ladder position
    step = step0
    cascades = 0
    win = first
    limit = int(game.features.get("max_cascades", 1000))
    while win > 0 and cascades < limit:
        for reel, column in enumerate(shown):
            kept = [(s, v) for row, (s, v) in enumerate(zip(column, values[reel])) if (reel, row) not in cells]
            strip = source.reels[reel].symbols
            new = []
            for _ in range(len(column) - len(kept)):
                symbol = strip[tops[reel] % len(strip)]
                new.insert(0, (symbol, draw() if symbol == bomb else 0))
                tops[reel] -= 1
            shown[reel] = [s for s, _ in new + kept]
            values[reel] = [v for _, v in new + kept]
        win, cells = paid_drop(shown)
        cascades += 1
        if win > 0:
            step += 1 if ladder.per_cascade else 0
            drops.append((win, step))
    if final is not None:
        final[:] = [list(column) for column in shown]
    wins = sum(w for w, _ in drops)
    if ladder.on_chain:
        paid = wins * ladder.rung(step)
    else:
        paid = sum(w * ladder.rung(position) for w, position in drops)
    return first, paid, (sum(map(sum, values)) if paid > 0 else 0), step, wins, ladder.rung(step)


def _wheel_spins(game: Game, rng, out: dict, left: int, awarded: int, limit: int) -> tuple[int, int]:
    """One award of the free spins' wheel: its cash to ``out["wheel"]``; (spins left, spins awarded) with its spins
    added within ``limit``."""
    cash, spins, _ = wheel_award(game, rng)
    out["wheel"] += cash
    new = min(awarded + spins, limit)
    return left + new - awarded, new


def tumble_round(game: Game, rng) -> dict:
    """One round of a ``tumble`` game played cell by cell with ``rng`` (a ``random.Random``): what it pays by
    component (``first``: the first drop at x1 with its scatter pays, ``tumble``, ``free_spins``, and ``wheel`` when
    a feature with a wheel was played), credits per bet multiplier.  A bought bet mode plays the free spins of its ``buy_count`` only.
    """
    f = game.features
    table = game.tables[f["multiplier_values"]] if "multiplier_values" in f else None

    def draw() -> int:
        return int(table.entries[_pick(rng, table.weights)]["value"])

    values = f.get("position_multipliers")
    grid = PositionCells(values) if values else None
    grid_in_base = grid is not None and f.get("position_multipliers_in", "all") == "all"

    def spin(mode: str, ladder: TumbleLadder, step0: int = 0, cells: PositionCells | None = None) -> tuple:
        strip_set = spin_set(game, mode, rng)
        stops = tuple(_pick(rng, strip.stop_weights) for strip in strip_set.reels)
        refill = None
        if "refill_mode" in f:
            rset = spin_set(game, f["refill_mode"], rng)
            refill = (rset, tuple(_pick(rng, strip.stop_weights) for strip in rset.reels))
        def groups(shown: list) -> tuple:
            scatter, count = Fraction(0), 0
            for name, group in game.scatters.items():
                n = _count_on_screen(shown, group)
                scatter += game.bet.credits(group.pay(n), group.unit)
                if "trigger" in f and name == game.triggers[f["trigger"]].scatter:
                    count = n
            return scatter, count

        scatter, count = groups(screen(game, strip_set, stops))
        final: list = []
        first, paid, m, step, wins, rung = tumble_chain(game, strip_set, stops, ladder, refill, draw, step0, final,
                                                        cells)
        later = Fraction(0)
        if over_chain != "none":  # every scatter that dropped in during the chain counts (and pays: "paid")
            final_scatter, count = groups(final)
            if over_chain == "paid":
                later = final_scatter - scatter
        return first, paid, m, scatter, count, step, later, wins, rung

    def with_symbols(paid, wins, rung, total):  # a winning chain with the multiplier symbols' total
        return wins * (rung + total) if f.get("multiplier_symbols", "multiply") == "add" else paid * total

    over_chain = f.get("chain_scatters", "none")

    def spins_for(key: str, count: int) -> int:  # by the map, or per scatter
        per = f.get(f"{key}_per_scatter")
        return int(per) * count if per is not None else _spins_for(f.get(key, {}), count)

    out = {"first": Fraction(0), "tumble": Fraction(0), "free_spins": Fraction(0)}
    if "wheel" in f:
        out["wheel"] = Fraction(0)
    count = 0
    if game.bet_mode.buy:
        counts = game.bet_mode.bought_counts
        count = counts[_pick(rng, [w for _, w in counts])][0]
    else:
        if grid is not None:
            grid.hits.clear()  # every base spin starts a new grid
        first, paid, m, scatter, count, _, later, wins, rung = spin("base", TumbleLadder.of(f, free=False), 0,
                                                                    grid if grid_in_base else None)
        paid = with_symbols(paid, wins, rung, m) if m else paid
        out["first"] = first + scatter
        out["tumble"] = paid - first + later
    trigger = game.triggers[f["trigger"]] if "trigger" in f else None
    if trigger is None or count < trigger.min_count:
        return out
    limit = int(f.get("max_free_spins", 10_000))
    left = awarded = min(spins_for("free_spins", count), limit)
    if "wheel" in f:  # one wheel award as the feature starts: its cash beside the feature, its spins added
        left, awarded = _wheel_spins(game, rng, out, left, awarded, limit)
    ladder = TumbleLadder.of(f, free=True)
    feature_m = 0
    step = 0
    if grid is not None:
        grid.hits.clear()  # the feature starts a new grid
    while left > 0:
        left -= 1
        if grid is not None and f.get("position_multipliers_keep", "spin") == "spin":
            grid.hits.clear()
        _, paid, m, scatter, count, reached, later, wins, rung = spin(f["free_spins_mode"], ladder, step, grid)
        if not ladder.per_cascade and (wins > 0 or not ladder.per_win):
            step += 1  # grows per free spin (per free spin that wins)
        elif f.get("free_spins_ladder_carries", False):
            step = reached + 1 if paid > 0 else reached
        if m and f.get("persistent_multiplier", True):
            feature_m += m
            paid = with_symbols(paid, wins, rung, feature_m)
        elif m:
            paid = with_symbols(paid, wins, rung, m)
        out["free_spins"] += paid + scatter + later
        if count >= trigger.min_count and ("retrigger" in f or "retrigger_per_scatter" in f):
            extra = spins_for("retrigger", count)
            new = min(awarded + extra, limit)
            left += new - awarded
            awarded = new
            if extra > 0 and "wheel" in f and f.get("wheel_on_retrigger", True):  # a retrigger awarding spins: the wheel again
                left, awarded = _wheel_spins(game, rng, out, left, awarded, limit)
    return out
