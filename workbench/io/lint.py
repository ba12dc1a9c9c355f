"""Design warnings (*lints*) of a valid reelset, from its file alone.

A file that validates can still be badly wrong: a deleted paytable line, a
symbol missing from a reel, a cost that does not match the lines, a bet mode
priced at a millionth of the base game.  Validation cannot refuse those (each
may be meant), so they are *warnings*: :class:`~workbench.errors.Problem`
objects with ``severity = "warning"``, each naming file, line and key and
saying how to fix it (docs/reelset-format.md, "Warnings (lints)", lists them).

Everything here reads the :class:`~workbench.model.Game` and its text only:
no exact engine and no compiled code, so linting stays as fast as loading.
The lints that need the exact engine (a trigger of probability 0, a higher
count as frequent as a lower one, RTPs) are :mod:`workbench.lints`, which
adds these.

Units: pays and costs as the file gives them (``[bet] cost`` in credits per
bet multiplier, bet-mode costs and ``max_win`` x the base total bet, feature
amounts x total bet); counts are symbols (or cells) on the screen.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

from .. import registry
from ..errors import WARNING, Problem, ReelsetError
from ..model import Game, Strip, StripSet
from .schema import build_game
from .store import render_text, resolve_game_path
from .toml import SourceText, parse_text, read_document

#: a free-spins award above this many spins is reported (real games award tens; 10,000 is a typo's size)
MAX_SANE_SPINS = 1_000
#: a minimum feature win above this many total bets is reported
MAX_SANE_MIN_FEATURE_WIN = 10_000
#: the order of the fixed jackpots of hold and respin, smallest first
JACKPOT_ORDER = ("mini", "minor", "major", "grand")
#: stop-steps of exact window counts of several symbols together before the looser per-symbol bound is used
EXACT_WINDOW_WORK = 2_000_000


# ---------------------------------------------------------------------------
# entry points
# ---------------------------------------------------------------------------
def read_game(path: str | os.PathLike) -> tuple[Game, SourceText]:
    """Load and validate a reelset file (path or shipped name) and keep its :class:`SourceText` (lines of keys).

    Raises :class:`~workbench.errors.ReelsetError` (every problem) as :func:`workbench.io.load_game` does."""
    doc, source = read_document(resolve_game_path(path))
    return build_game(doc.unwrap(), source), source


def source_of(game: Game) -> SourceText:
    """The lines of ``game``'s keys in its text (with its edits applied), for warnings that name a line."""
    text = render_text(game) if game.edits else game.text
    if not text:  # a game built in code has no file: warnings name the key only
        return SourceText(str(game.path or game.name or "<game>"), "")
    try:
        return parse_text(text, str(game.path or game.name or "<game>"))[1]
    except ReelsetError:  # pragma: no cover - the text of a valid game parses
        return SourceText(str(game.path or game.name or "<game>"), text)


def lint_game(game: Game, source: SourceText | None = None) -> list[Problem]:
    """Every file-only design warning of the valid ``game`` (see the module docstring); ``source`` gives the
    lines (default: :func:`source_of`)."""
    return _Linter(game, source if source is not None else source_of(game)).run()


# ---------------------------------------------------------------------------
# strips: what can show (upper bounds, so that a warning is never raised for what can happen)
# ---------------------------------------------------------------------------
def played_sets(game: Game, mode: str | None = None) -> list[StripSet]:
    """Strip sets of ``mode`` (every mode with None) that are ever played: weight above 0."""
    return [s for s in game.strip_sets.values() if s.weight > 0 and (mode is None or s.mode == mode)]


class StripFacts:
    """What the strips of one game can show, computed once per strip and cached.

    ``window_most`` is exact (the most stops of a set of symbols in one window) while the work spent on sets of
    several symbols stays within :data:`EXACT_WINDOW_WORK` stop-steps, and after that the sum of each symbol's own
    most (an upper bound, still never warning about what can happen): a hostile 1 MiB file of long strips and
    hundreds of paytable targets lints in bounded time."""

    def __init__(self, game: Game):
        self.game = game
        self._present: dict = {}
        self._maxima: dict = {}
        self._exact: dict = {}
        self._stops: dict | None = None
        self.work = 0

    def stop_counts(self) -> dict:
        """Symbol -> its stops on every strip of every strip set."""
        if self._stops is None:
            self._stops = {}
            for strip_set in self.game.strip_sets.values():
                for strip in strip_set.reels:
                    for sym in strip.symbols:
                        self._stops[sym] = self._stops.get(sym, 0) + 1
        return self._stops

    def present(self, strip: Strip) -> frozenset:
        """The symbols on ``strip``."""
        key = id(strip)
        if key not in self._present:
            self._present[key] = frozenset(strip.symbols)
        return self._present[key]

    def maxima(self, strip: Strip, rows: int) -> dict:
        """Symbol -> the most stops of it in one window of ``rows`` stops (circular), for every symbol on ``strip``:
        one sliding pass."""
        key = (id(strip), rows)
        if key not in self._maxima:
            symbols = strip.symbols
            n = len(symbols)
            rows = min(rows, n)
            count: dict = {}
            for sym in symbols[:rows]:
                count[sym] = count.get(sym, 0) + 1
            best = dict(count)
            for top in range(1, n):
                out, into = symbols[top - 1], symbols[(top + rows - 1) % n]
                count[out] -= 1
                count[into] = count.get(into, 0) + 1
                if count[into] > best.get(into, 0):
                    best[into] = count[into]
            self._maxima[key] = best
        return self._maxima[key]

    def window_most(self, strip: Strip, names: set, rows: int) -> int:
        """The most stops showing one of ``names`` in any window of ``rows`` stops of ``strip`` (circular).

        Each visible row counts (a tall symbol's visible rows each count), an upper bound of every count the
        engines make (scatter instances, cells).  Stop weights are ignored: a weight-0 stop still shows when a
        neighbour lands."""
        shown = [sym for sym in names if sym in self.present(strip)]
        maxima = self.maxima(strip, rows)
        if len(shown) <= 1 or self.work > EXACT_WINDOW_WORK:
            return min(sum(maxima[sym] for sym in shown), rows)
        key = (id(strip), rows, frozenset(shown))
        if key not in self._exact:
            self.work += len(strip)
            hits = [1 if sym in names else 0 for sym in strip.symbols]
            n = len(hits)
            rows = min(rows, n)
            current = best = sum(hits[:rows])
            for top in range(1, n):
                current += hits[(top + rows - 1) % n] - hits[top - 1]
                best = max(best, current)
            self._exact[key] = best
        return self._exact[key]

    def screen_most(self, sets: list, names: set, adjacent: bool = False) -> int:
        """The most stops of ``names`` one screen of ``sets`` can show (the most of each reel added up; with
        ``adjacent``, over the leading reels that can show one: ``adjacent_from_first_reel`` counting)."""
        best = 0
        for strip_set in sets:
            total = 0
            for strip, rows in zip(strip_set.reels, self.game.rows):
                most = self.window_most(strip, names, rows)
                if adjacent and most == 0:
                    break
                total += most
            best = max(best, total)
        return best

    def longest_run(self, sets: list, names: set, from_last: bool = False) -> tuple[int, int]:
        """(longest run of reels holding one of ``names`` from reel 1 (or from the last reel), the set's first reel
        without one, 1-based, or 0) over ``sets``: no line or way can be longer."""
        best, blocked = 0, 0
        for strip_set in sets:
            reels = list(enumerate(strip_set.reels, 1))
            if from_last:
                reels.reverse()
            run, stop = 0, 0
            for number, strip in reels:
                if not names & self.present(strip):
                    stop = number
                    break
                run += 1
            if run > best or (run == best and not blocked):
                best, blocked = run, stop
        return best, blocked


def matching(game: Game, target: str) -> set:
    """Symbols that count for paytable target ``target`` (a symbol or group) on a line or way: its members and
    the wilds substituting for one of them; a wild's own entry counts only that wild."""
    if target in game.symbols and game.symbols[target].is_wild:
        return {target}
    members = set(game.groups.get(target, (target,)))
    return members | {name for name, sym in game.symbols.items() if sym.is_wild and members & sym.substitutes}


def _count(key: Any) -> int:
    return int(str(key))


def _fmt(value) -> str:
    value = Fraction(value)
    if value.denominator == 1:
        return f"{value.numerator:,}"
    return f"{float(value):,.6g}"


# ---------------------------------------------------------------------------
# the lints
# ---------------------------------------------------------------------------
class _Linter:
    def __init__(self, game: Game, source: SourceText):
        self.game = game
        self.source = source
        self.out: list[Problem] = []
        self.strips = StripFacts(game)
        template = registry.find_template(game.game_module)
        # the template's [features] parameters: a lint reads a parameter only where the template declares it
        self.params = dict(template.params) if template is not None else {}

    def warn(self, path: tuple, message: str) -> None:
        self.out.append(self.source.problem(path, message, severity=WARNING))

    def run(self) -> list[Problem]:
        for check in (self.unpaid_symbols, self.paytable_off_strips, self.counts_never_land, self.scatter_counts,
                      self.triggers_never_fire, self.award_counts, self.cost_matches_lines, self.awards_by_count,
                      self.costs, self.free_spin_awards, self.min_feature_win, self.jackpot_order, self.max_win_costs,
                      self.buy_below_guarantee):
            check()
        return self.out

    # -- 1. a regular symbol nothing pays -----------------------------------
    def _used_names(self) -> set:
        """Names the rounds read besides the paytable: [features] values (a tumble's multiplier_symbol, Bier Haus'
        Heidis, ...), table entries, scatter groups (coins, Super 10 Stars' specials) and combination triggers."""
        found: set = set()

        def walk(value):
            if isinstance(value, str):
                found.add(value)
            elif hasattr(value, "items"):  # a dict, or the read-only mapping a loaded game keeps
                for v in value.values():
                    walk(v)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    walk(v)

        walk(self.game.features)
        for table in self.game.tables.values():
            walk(table.entries)
        for group in self.game.scatters.values():
            found.update(group.symbols)
        found.update(t.combination for t in self.game.triggers.values() if t.combination)
        return found

    def unpaid_symbols(self) -> None:
        game = self.game
        paid = {name for name, pays in game.paytable.items() if any(p > 0 for p in pays.values())}
        for group, members in game.groups.items():
            if group in paid:
                paid.update(members)
        used = self._used_names()
        for name, sym in game.symbols.items():
            if sym.kind != "regular" or name in paid or name in used:
                continue
            stops = self.strips.stop_counts().get(name, 0)
            if game.rule.runs:  # counts of reels from reel 1
                example = ", ".join(f"{k} = ..." for k in range(min(3, game.reels), game.reels + 1))
            else:  # by count anywhere or cluster size
                example = "count = pay, ..."
            where = f"it is on {stops:,} stop{'s' if stops != 1 else ''} of the strips, which never win" if stops else \
                "it is on no strip either"
            self.warn(("symbols", name),
                      f"{name} is a regular symbol but nothing pays it: no [paytable] line with a pay above 0, no paying "
                      f"[groups] entry, and no feature reads it; {where} (a deleted paytable line lowers the RTP "
                      f"silently). Add its pays to [paytable] ({name} = {{ {example} }}), or declare it "
                      f"kind = \"blank\" if it is meant to pay nothing")

    # -- 2. a paying symbol the base game never shows -------------------------
    def paytable_off_strips(self) -> None:
        game = self.game
        base = played_sets(game, "base")
        for name, pays in game.paytable.items():
            if name not in game.symbols or not any(p > 0 for p in pays.values()):
                continue
            if game.symbols[name].modes is not None and "base" not in game.symbols[name].modes:  # off base on purpose
                continue
            if any(name in self.strips.present(strip) for s in base for strip in s.reels):
                continue
            elsewhere = sorted({s.mode for s in played_sets(game)
                                if any(name in self.strips.present(strip) for strip in s.reels)})
            also = (f"it is only on the strips of mode{'s' if len(elsewhere) > 1 else ''} {', '.join(elsewhere)}"
                    if elsewhere else "it is on no strip of any strip set")
            self.warn(("paytable", name),
                      f"{name} has pays but is on no strip of the base game (strip sets of mode \"base\" with weight above "
                      f"0); {also}, so the base game never pays it. Put {name} on the base strips, or remove its "
                      "[paytable] line if it was taken out on purpose")

    # -- 3. a paytable count that can never land ------------------------------
    def counts_never_land(self) -> None:
        game = self.game
        sets = played_sets(game)
        rule = game.rule  # what a count counts (model.rules): reels from one end, cells, or cells of a cluster
        for target, pays in game.paytable.items():
            listed = [c for c, p in pays.items() if p > 0]
            if not listed:
                continue
            names = matching(game, target)
            if rule.runs:
                best, blocked, end = 0, 0, "reel 1"
                if not rule.directions or game.pays.direction in ("left_to_right", "both_ways"):
                    best, blocked = self.strips.longest_run(sets, names)
                if rule.directions and game.pays.direction in ("right_to_left", "both_ways"):
                    back, stop = self.strips.longest_run(sets, names, from_last=True)
                    if back > best or game.pays.direction == "right_to_left":
                        best, blocked, end = back, stop, "the last reel"
                why = (f"no strip set has {target} or a wild standing in for it on more than {best} reel(s) in a row "
                       f"from {end} (reel {blocked} has none)")
                fix = f"put {target} on reel {blocked}'s strip"
            elif rule.counts == "cells":
                best = self.strips.screen_most(sets, names)
                why = f"a screen can show at most {best} {target} (the most of each reel added up, in any strip set)"
                fix = f"put more {target} on the strips"
            else:  # cluster: every cell of the cluster shows the symbol or a wild
                best = self.strips.screen_most(sets, names)
                why = (f"a screen can show at most {best} cells of {target} or a wild (the most of each reel added up, in "
                       "any strip set), so no cluster is that large")
                fix = f"put more {target} on the strips"
            for count in sorted(c for c in listed if c > best):
                self.warn(("paytable", target, str(count)),
                          f"pays {_fmt(pays[count])} for {count} but {count} can never land: {why}. Either {fix} or "
                          f"remove the pay for {count}")

    def scatter_counts(self) -> None:
        """Scatter-group pays for counts no screen can show (harmless to the engines, but a pay that never pays)."""
        game = self.game
        sets = played_sets(game)
        for name, group in game.scatters.items():
            listed = [c for c, p in group.pays.items() if p > 0]
            if not listed:
                continue
            best = self.strips.screen_most(sets, set(group.symbols), adjacent=group.counting != "anywhere")
            for count in sorted(c for c in listed if c > best):
                self.warn(("scatters", name, "pays", str(count)),
                          f"pays {_fmt(group.pays[count])} for {count} but a screen shows at most {best} of "
                          f"{', '.join(group.symbols)} (the most of each reel added up, in any strip set): put more on "
                          f"the strips or remove the pay for {count}")

    # -- 4. triggers and awards that can never fire -----------------------------
    def trigger_most(self, trigger, mode: str = "base") -> int:
        """The most the trigger can count on one screen of ``mode`` (an upper bound)."""
        sets = played_sets(self.game, mode)
        if trigger.combination is not None:
            return self.strips.longest_run(sets, matching(self.game, trigger.combination))[0]
        group = self.game.scatters[trigger.scatter]
        return self.strips.screen_most(sets, set(group.symbols), adjacent=group.counting != "anywhere")

    def triggers_never_fire(self) -> None:
        for name, trigger in self.game.triggers.items():
            most = self.trigger_most(trigger)
            if most >= trigger.min_count:
                continue
            if trigger.combination is not None:
                what = (f"{trigger.combination} (or a wild for it) is on at most the first {most} reel(s) of the base "
                        f"strips")
                fix = f"put {trigger.combination} on reels 1 to {trigger.min_count}"
            else:
                group = self.game.scatters[trigger.scatter]
                what = f"the base game's screen shows at most {most} of {', '.join(group.symbols)}"
                fix = f"put more {' / '.join(group.symbols)} on the base strips (on more reels)"
            self.warn(("triggers", name, "min_count"),
                      f"trigger {name} can never fire in the base game: it needs {trigger.min_count} but {what}. "
                      f"Either {fix} or lower min_count")

    def _count_map(self, key: str) -> dict:
        value = self.game.features.get(key)
        param = self.params.get(key)
        if not hasattr(value, "items") or param is None or param.kind != "count_map":
            return {}
        return {_count(k): v for k, v in value.items()}

    def award_counts(self) -> None:
        """``free_spins`` / ``retrigger`` keys (templates with a scatter ``trigger``) no reachable count selects: a
        count picks the largest key not above it, so a key is dead when no count from min_count up to the most the
        strips show (or a bought count) lies between it and the next key."""
        game = self.game
        name = game.features.get("trigger")
        if not isinstance(name, str) or name not in game.triggers or self.params.get("trigger") is None:
            return
        trigger = game.triggers[name]
        buys = {c for m in game.bet_modes.values() if m.buy for c, _ in m.bought_counts}
        spins_mode = game.features.get("free_spins_mode")
        for key, mode, extra in (("free_spins", "base", buys), ("retrigger", spins_mode, set())):
            award = self._count_map(key)
            if not award or not isinstance(mode, str):
                continue
            most = self.trigger_most(trigger, mode)
            least = trigger.min_count
            if key == "retrigger" and isinstance(game.features.get("retrigger_min_count"), int):
                least = game.features["retrigger_min_count"]
            reachable = set(range(least, most + 1)) | extra
            keys = sorted(award)
            for i, k in enumerate(keys):
                upper = keys[i + 1] if i + 1 < len(keys) else None
                if any(c >= k and (upper is None or c < upper) for c in reachable):
                    continue
                where = "the base game's" if mode == "base" else f"mode {mode!r}'s"
                bought = f" (a buy starts with {', '.join(map(str, sorted(buys)))})" if extra else ""
                self.warn(("features", key, str(k)),
                          f"{key} for {k} can never be awarded: {where} strips show at most {most} for trigger {name} "
                          f"(min_count {trigger.min_count}){bought}. Put more of its symbols on those strips, or remove "
                          f"the entry for {k}")

    # -- 5. a cost that is not the line stake ------------------------------------
    def cost_matches_lines(self) -> None:
        game = self.game
        bet = game.bet
        if not game.rule.paylines or not bet.lines or self._has_cost_reason():
            return
        stake = bet.lines * bet.line_bet
        if bet.cost == stake:
            return
        change = f"{float(100 * abs(1 - stake / bet.cost)):.3g} % {'lower' if bet.cost > stake else 'higher'}"
        self.warn(("bet", "cost"),
                  f"cost {_fmt(bet.cost)} is not lines x line_bet ({bet.lines} x {_fmt(bet.line_bet)} = {_fmt(stake)}): "
                  f"every RTP is the win / cost, so every RTP is {change} than with cost = {_fmt(stake)}. If the "
                  f"difference is meant (a feature bet, an ante in the stake), say why in [bet] cost_reason = \"...\"; "
                  f"otherwise set cost = {_fmt(stake)}")

    def _has_cost_reason(self) -> bool:
        """Whether the file gives ``[bet] cost_reason`` (not kept in the model: read from the text)."""
        return ("bet", "cost_reason") in self.source.lines

    # -- 6. awards by count that decrease ------------------------------------------
    def awards_by_count(self) -> None:
        """Feature awards by count (free spins, retriggers, ...) must not give fewer for more symbols.  Paytable and
        scatter pays that decrease are validation errors already."""
        for key, param in self.params.items():
            award = self._count_map(key)
            previous = None
            for count in sorted(award):
                value = award[count]
                if isinstance(value, (int, float)) and previous is not None and value < previous[1]:
                    self.warn(("features", key, str(count)),
                              f"{key} gives {_fmt(Fraction(str(value)))} for {count} but {_fmt(Fraction(str(previous[1])))} for "
                              f"{previous[0]}: more symbols should not award less. Raise the award for {count} or lower "
                              f"the one for {previous[0]}")
                if isinstance(value, (int, float)):
                    previous = (count, value)

    # -- 8. damage: costs, spins, caps and guarantees out of all proportion ---------
    def costs(self) -> None:
        game = self.game
        bet = game.bet
        per_unit = {"line_bet": bet.line_bet, "bet_multiplier": Fraction(1)}.get(bet.line_pay_unit)
        if per_unit is not None and bet.cost < per_unit:
            unit = "a line bet" if bet.line_pay_unit == "line_bet" else "one bet multiplier"
            self.warn(("bet", "cost"),
                      f"cost {_fmt(bet.cost)} credits is below {unit} ({_fmt(per_unit)} credits), which every [paytable] "
                      f"pay is a multiple of: each pay is worth {_fmt(per_unit / bet.cost)} x its value in total bets and "
                      "the RTP is out of all proportion. Check [bet] cost (the total bet, e.g. lines x line_bet) and "
                      "line_bet")
        for name, mode in game.bet_modes.items():
            if mode.cost < 1:
                what = "a bought feature" if mode.buy else "an ante (or any mode paying the base game's pays)"
                self.warn(("bet_modes", name, "cost"),
                          f"cost {_fmt(mode.cost)} x the base total bet is below the base game's own price (1): a mode's "
                          f"RTP is its win / its cost, so this one is {_fmt(1 / mode.cost)} times what the same win would "
                          f"give at the base price. {what.capitalize()} costs more than the base game (an ante about "
                          "1.25, a buy tens of total bets, e.g. 100): check the cost")

    def _max_free_spins(self) -> int | None:
        value = self.game.features.get("max_free_spins")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        param = self.params.get("max_free_spins")
        return int(param.max) if param is not None and param.max is not None else None

    def free_spin_awards(self) -> None:
        """Free spins one award gives above ``max_free_spins`` (spins over it are lost) or above :data:`MAX_SANE_SPINS`."""
        if "free_spins" not in self.params or "max_free_spins" not in self.params:
            return
        limit = self._max_free_spins()
        declared = "max_free_spins" in self.game.features
        awards = [(("features", key, str(k)), f"{key} for {k}", v) for key in ("free_spins", "retrigger")
                  for k, v in self._count_map(key).items()]
        for key in ("free_spins_table", "retrigger_table"):
            table = self.game.tables.get(self.game.features.get(key))
            if table is not None:
                awards += [(("tables", table.name, "entries", i, "spins"), f"entry {i + 1} of table {table.name}",
                            e.get("spins")) for i, e in enumerate(table.entries)]
        for path, label, spins in awards:
            if not isinstance(spins, (int, float)) or isinstance(spins, bool):
                continue
            if declared and limit is not None and spins > limit:
                self.warn(path, f"{label} awards {_fmt(Fraction(str(spins)))} free spins but max_free_spins is {limit:,}: "
                                f"one feature plays at most {limit:,}, the rest are lost. Lower the award or raise "
                                "max_free_spins")
            elif spins > MAX_SANE_SPINS:
                self.warn(path, f"{label} awards {_fmt(Fraction(str(spins)))} free spins at once, more than "
                                f"{MAX_SANE_SPINS:,}: a feature that long multiplies the feature's RTP by as much. Check "
                                "the number (a typo?) and set max_free_spins to the most one feature may play")

    def min_feature_win(self) -> None:
        value = self.game.features.get("min_feature_win")
        if "min_feature_win" not in self.params or not isinstance(value, (int, float)) or isinstance(value, bool):
            return
        amount = Fraction(str(value))
        caps = [(cap, "base" if name == "base" else name) for name, mode in self.game.all_bet_modes.items()
                for cap in [mode.max_win if mode.max_win is not None else self.game.bet.max_win] if cap is not None]
        over = [(cap, name) for cap, name in caps if amount > cap]
        if over:
            cap, name = min(over)
            self.warn(("features", "min_feature_win"),
                      f"min_feature_win {_fmt(amount)} x total bet is above the max win {_fmt(cap)} x total bet of mode "
                      f"{name}: the guarantee can never be paid in full (the cap cuts it). Lower min_feature_win below "
                      "the max win")
        elif amount > MAX_SANE_MIN_FEATURE_WIN:
            self.warn(("features", "min_feature_win"),
                      f"min_feature_win {_fmt(amount)} x total bet is above {MAX_SANE_MIN_FEATURE_WIN:,} x: every feature "
                      "pays at least this, so the RTP follows the guarantee rather than the game. Check the number (it "
                      "is x total bet, not credits)")

    def jackpot_order(self) -> None:
        """Fixed jackpot tiers (hold and respin: mini <= minor <= major <= grand, x total bet) out of order."""
        tiers = [(t, Fraction(str(self.game.features[t]))) for t in JACKPOT_ORDER
                 if t in self.params and isinstance(self.game.features.get(t), (int, float))
                 and not isinstance(self.game.features.get(t), bool)]
        for (low, a), (high, b) in zip(tiers, tiers[1:]):
            if a > b:
                self.warn(("features", low),
                          f"the {low} jackpot ({_fmt(a)} x total bet) is above the {high} jackpot ({_fmt(b)} x total bet): "
                          f"tiers go {' <= '.join(t for t, _ in tiers)}. Swap or correct the values")

    def max_win_costs(self) -> None:
        """A max-win cap below the price of the mode it caps: no round can win back its cost."""
        game = self.game
        for name, mode in game.all_bet_modes.items():
            cap = mode.max_win if mode.max_win is not None else game.bet.max_win
            if cap is None or cap >= mode.cost:
                continue
            path = ("bet_modes", name, "max_win") if mode.max_win is not None else ("bet", "max_win")
            whose = "the base game" if name == "base" else f"bet mode {name}"
            self.warn(path,
                      f"max_win {_fmt(cap)} x total bet caps {whose}, which costs {_fmt(mode.cost)} x total bet: no round "
                      f"can pay back its price, and the mode's RTP is at most {_fmt(cap / mode.cost)}. Raise the cap (it is "
                      "x the base total bet) or correct the cost")

    # -- 11 (the exact part that needs no engine): a buy below what it surely pays -----------------
    def guaranteed_payout(self, mode) -> Fraction | None:
        """The least a bought feature pays, x total bet, when the file fixes it: a free-spins ``min_feature_win``, or a
        hold-and-respin buy's coins at the smallest coin value (a jackpot coin at its tier's value; a collector,
        multiplier or wheel coin may add nothing)."""
        features = self.game.features
        best = None
        value = features.get("min_feature_win")
        if "min_feature_win" in self.params and isinstance(value, (int, float)) and not isinstance(value, bool):
            best = Fraction(str(value))
        coins = self.game.tables.get(features.get("coin_values")) if "coin_values" in self.params else None
        if coins is not None and mode.bought_counts:
            values = []
            for entry, weight in zip(coins.entries, coins.weights):
                if weight <= 0:
                    continue
                if "value" in entry:
                    values.append(Fraction(str(entry["value"])))
                elif entry.get("jackpot") in features:
                    values.append(Fraction(str(features[entry["jackpot"]])))
                else:
                    values.append(Fraction(0))
            if values:
                least = min(c for c, _ in mode.bought_counts) * min(values)
                best = least if best is None else max(best, least)
        return best

    def buy_below_guarantee(self) -> None:
        for name, mode in self.game.bet_modes.items():
            if not mode.buy:
                continue
            least = self.guaranteed_payout(mode)
            if least is not None and least >= mode.cost:
                self.warn(("bet_modes", name, "cost"),
                          f"the buy costs {_fmt(mode.cost)} x total bet but the bought feature always pays at least "
                          f"{_fmt(least)} x total bet, so its RTP is at least {_fmt(least / mode.cost)} whatever the reels "
                          "do. Raise the cost (a buy is priced near the feature's mean win divided by the target RTP)")
