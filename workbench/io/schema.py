"""Validation of a reelset's data, section by section, into a :class:`~workbench.model.Game`.

Every problem is collected with its file, line and key path; the build
raises one :class:`~workbench.errors.ReelsetError` carrying all of them.
Strip rules are the model's (:func:`workbench.model.check_strip`); the
``[features]`` section is checked against the parameters the named round
template declares (:mod:`workbench.registry`), without importing its
compiled code.

Every number is bounded to what the engines hold (the *Limits* section of
docs/reelset-format.md lists each bound): the exact engine and the simulator
count money in integer *pay units* (credits per bet multiplier times the
least common denominator of the cost and all pays, see
:mod:`workbench.pays.scale`) in 64-bit integers, with single pays packed in
31 bits; weights are 31-bit integers.  A file inside the limits never makes
an engine overflow; a file outside them is a problem naming the bound.
"""

from __future__ import annotations

import difflib
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .. import registry
from ..model import rules
from ..errors import Problem, ReelsetError, format_key
from ..model import (
    COUNTING_MODES,
    LINE_DIRECTIONS,
    MULTIPLIER_COMBINE,
    PAY_UNITS,
    SYMBOL_KINDS,
    VISIBILITY_MODES,
    BetMode,
    BetModel,
    PayRule,
    Game,
    ScatterGroup,
    Strip,
    StripSet,
    Symbol,
    Trigger,
    WeightedTable,
    check_strip,
    parse_strip_text,
    freeze,
)
from ..model.params import check_param, describe, show_number
from .toml import MAX_FILE_BYTES, MAX_FILE_ITEMS, MAX_FILE_LINES, SourceText


FORMAT_VERSION = 1
REELSET_SUFFIX = ".toml"
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")

# -- limits (docs/reelset-format.md, "Limits"); the file-size ones are checked before parsing (io.toml)
MAX_PROBLEMS = 30  # problems listed per file; then one "... and N more problems"
MAX_REELS = 10
MAX_ROWS = 12  # rows per reel
MAX_PAYLINES = 1024
MAX_SYMBOLS = 256
MAX_MULTIPLIER = 1000  # a multiplier wild's multiplier
MAX_STRIP_STOPS = 10_000  # stops per strip
MAX_STRIP_SETS = 100
MAX_TABLE_ENTRIES = 5_000  # entries per weighted table
MAX_PAY = 10**9  # any pay (in its unit), cost, line bet or stake
MAX_DECIMALS = 6  # decimal places of a pay, cost, line bet or stake
MAX_PAY_DENOMINATOR = 10**6  # the pay unit is at least 1/1,000,000 credit
MAX_UNITS = 2**31 - 1  # the largest single pay and the cost, in pay units (31-bit packed line steps)
MAX_WEIGHT = 2**31 - 1  # stop, table-entry and strip-set weights, and each strip's, table's and mode's total
MAX_TALL = MAX_STRIP_STOPS  # height of a tall symbol
CLUSTER_MAX_CELLS = rules.CLUSTER_MAX_CELLS  # cells of a cluster game's screen (one uint64 bitboard)
FEATURE_COST_RATIO = 2  # without bet.cost_reason, lines x line_bet <= cost <= FEATURE_COST_RATIO x lines x line_bet
SIMULATOR_VIRTUAL_STOPS = 1 << 22  # simulate.kernel.VIRTUAL_STOPS_MAX: larger strip totals validate but do not simulate

LIMITS = {
    "file size (bytes)": MAX_FILE_BYTES,
    "lines in the file": MAX_FILE_LINES,
    "keys and array elements in the file": MAX_FILE_ITEMS,
    "reels": MAX_REELS,
    "rows per reel": MAX_ROWS,
    "cells of a cluster game's screen": CLUSTER_MAX_CELLS,
    "paylines": MAX_PAYLINES,
    "symbols": MAX_SYMBOLS,
    "multiplier of a multiplier wild": MAX_MULTIPLIER,
    "stops per strip": MAX_STRIP_STOPS,
    "strip sets": MAX_STRIP_SETS,
    "entries per table": MAX_TABLE_ENTRIES,
    "pay, cost, line bet, stake": MAX_PAY,
    "decimal places": MAX_DECIMALS,
    "pay unit denominator": MAX_PAY_DENOMINATOR,
    "pay or cost in pay units": MAX_UNITS,
    "weight, and weight total": MAX_WEIGHT,
    "problems listed": MAX_PROBLEMS,
}

UNIT_TEXT = {"line_bet": "x line bet", "total_bet": "x total bet", "bet_multiplier": "x bet multiplier"}

TOP_KEYS = {
    "format_version": "format version of this file (1)",
    "name": "game name",
    "description": "free text",
    "game_module": "round template playing the features",
    "grid": "reels and rows",
    "bet": "bet model",
    "symbols": "symbol definitions",
    "pays": "pay rule: lines, ways, scatter_pays or cluster",
    "groups": "symbol groups paying mixed combinations",
    "paylines": "paylines",
    "paytable": "line pays",
    "scatters": "scatter counts and pays",
    "triggers": "feature triggers",
    "strip_sets": "reel strips",
    "tables": "weighted tables",
    "features": "game-module parameters",
    "bet_modes": "other ways to play at their own cost: ante, bonus buy",
}
REQUIRED_TOP = ("format_version", "name", "game_module", "grid", "bet", "symbols", "paytable", "strip_sets")


def cap_problems(problems: list[Problem], file: str) -> list[Problem]:
    """The first :data:`MAX_PROBLEMS` problems, then one saying how many more were found."""
    if len(problems) <= MAX_PROBLEMS:
        return list(problems)
    more = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem(file, "", f"... and {more:,} more problem{'s' if more > 1 else ''}")]


def _show(value: Any) -> str:
    return show_number(value)


def _name(value: Any) -> str:
    """``repr`` of a name or key for a message, shortened if very long."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(str(value)):,} characters)"


def _fmt(value: Fraction | int) -> str:
    """An exact decimal (pays, costs) as plain text: 75, 0.25, 1000000000."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    text = format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
    return text if Fraction(text) == value else str(float(value))


def _count_key(key: Any) -> int | None:
    """A pay-table count key as an integer (any size), or None if it is not ASCII digits >= 1."""
    text = str(key)
    if not (text.isascii() and text.isdigit()) or not text.lstrip("0"):
        return None
    text = text.lstrip("0")
    return int(text) if len(text) <= 18 else 10**18


class _Builder:
    def __init__(self, data: dict, source: SourceText):
        self.data = data
        self.source = source
        self.problems: list[Problem] = []
        self.positions = MAX_REELS * MAX_ROWS  # symbols on the screen, once the grid is known
        self.rule_unknown = False  # [pays] rule was not understood: skip the checks that depend on it

    # -- reporting -------------------------------------------------------
    def problem(self, path: tuple, message: str, line: int | None = None) -> None:
        self.problems.append(self.source.problem(path, message, line))

    def fail(self) -> ReelsetError:
        return ReelsetError(cap_problems(self.problems, self.source.path))

    def check_keys(self, path: tuple, table: dict, known: dict | set | tuple, required: tuple = ()) -> None:
        for key in table:
            if key not in known:
                # past the listed problems only the count matters: skip the (slow) spelling hint
                hint = difflib.get_close_matches(str(key), [str(k) for k in known], n=1) if len(self.problems) < MAX_PROBLEMS else []
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                self.problem(path + (key,), f"unknown key {_name(key)}{suggestion}")
        for key in required:
            if key not in table:
                self.problem(path, f"missing required key {key!r}" if path else f"missing required section or key {key!r}")

    def table(self, path: tuple, value: Any, what: str = "table") -> dict | None:
        if not isinstance(value, dict):
            self.problem(path, f"expected a {what}, got {describe(value)}")
            return None
        return value

    def integer(self, path: tuple, value: Any, minimum: int | None = None, maximum: int | None = None) -> int | None:
        if not isinstance(value, int) or isinstance(value, bool):
            self.problem(path, f"expected an integer, got {describe(value)}")
            return None
        if minimum is not None and value < minimum:
            self.problem(path, f"must be at least {minimum}, got {_show(value)}")
            return None
        if maximum is not None and value > maximum:
            self.problem(path, f"must be at most {maximum:,}, got {_show(value)}")
            return None
        return value

    def number(self, path: tuple, value: Any, positive: bool = False, nonnegative: bool = False, *,
               what: str = "value", unit: str = "", maximum: int = MAX_PAY) -> Fraction | None:
        """A pay, cost, line bet or stake: finite, at most ``maximum`` and :data:`MAX_DECIMALS` decimal places."""
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.problem(path, f"expected a number, got {describe(value)}")
            return None
        if isinstance(value, float) and not math.isfinite(value):
            self.problem(path, f"expected a finite number, got {value}")
            return None
        number = Fraction(value) if isinstance(value, int) else Fraction(repr(value))
        if positive and number <= 0:
            self.problem(path, f"must be greater than 0, got {_show(value)}")
            return None
        if nonnegative and number < 0:
            self.problem(path, f"must not be negative, got {_show(value)}")
            return None
        if abs(number) > maximum:
            self.problem(path, f"{what} {_show(value)} is too large: at most {maximum:,}{' ' + unit if unit else ''}")
            return None
        if (number * 10**MAX_DECIMALS).denominator != 1:
            self.problem(path, f"{what} {_show(value)} has more than {MAX_DECIMALS} decimal places "
                               f"(the smallest step is {_fmt(Fraction(1, 10**MAX_DECIMALS))})")
            return None
        return number

    def string(self, path: tuple, value: Any, choices: tuple | None = None, what: str | None = None) -> str | None:
        """A string; with ``what`` (a name: mode, game name...) it must not be empty."""
        if not isinstance(value, str):
            self.problem(path, f"expected a string, got {describe(value)}")
            return None
        if choices is not None and value not in choices:
            self.problem(path, f"{_name(value)} is not one of: {', '.join(choices)}")
            return None
        if what is not None and not value.strip():
            self.problem(path, f"{what} must not be empty")
            return None
        return value

    def name_key(self, path: tuple, what: str) -> bool:
        """A table key used as a name (strip set, table, scatter group, trigger): not empty."""
        if not str(path[-1]).strip():
            self.problem(path, f"{what} name must not be empty")
            return False
        return True

    def name_list(self, path: tuple, value: Any, known: dict, what: str = "symbol") -> tuple | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(path, f"expected a list of {what} names, got {describe(value)}")
            return None
        ok = True
        for i, name in enumerate(value):
            if name not in known:
                self.problem(path + (i,), f"unknown {what} {_name(name)}")
                ok = False
        return tuple(value) if ok else None

    def count_pays(self, path: tuple, value: Any, max_count: int | None, unit: str = "line_bet",
                   limit_text: str = "possible") -> dict | None:
        table = self.table(path, value, "table {count = pay}")
        if table is None:
            return None
        pays: dict[int, Fraction] = {}
        for key, raw in table.items():
            count = _count_key(key)
            if count is None:
                self.problem(path + (key,), f"{_name(key)} is not a symbol count (a whole number >= 1)")
                continue
            if max_count is not None and count > max_count:
                shown = _show(count) if count < 10**18 else f"{str(key).lstrip('0')[:12]}..."
                self.problem(path + (key,), f"count {shown} is more than the {max_count} {limit_text}")
                continue
            pay = self.number(path + (key,), raw, nonnegative=True, what="pay", unit=UNIT_TEXT.get(unit, ""))
            if pay is not None:
                pays[count] = pay
        ordered = dict(sorted(pays.items()))
        previous = None
        for count, pay in ordered.items():
            if previous is not None and pay < previous[1]:
                self.problem(path + (str(count),), f"pay {_fmt(pay)} for {count} is less than {_fmt(previous[1])} for {previous[0]}: pays must not decrease with count")
            previous = (count, pay)
        return ordered

    # -- sections --------------------------------------------------------
    def build(self) -> Game:
        data = self.data
        self.check_keys((), data, TOP_KEYS, REQUIRED_TOP)
        version = data.get("format_version")
        if "format_version" in data:
            if self.integer(("format_version",), version) is not None and version != FORMAT_VERSION:
                self.problem(("format_version",), f"unknown format version {_show(version)} (this workbench reads version {FORMAT_VERSION})")
                raise self.fail()
        name = self.string(("name",), data["name"], what="game name") if "name" in data else None
        description = self.string(("description",), data.get("description", "")) or ""
        module_name = None
        if "game_module" in data:
            module_name = self.string(("game_module",), data["game_module"])
            if module_name is not None and registry.find_template(module_name) is None:
                known = registry.names()
                hint = difflib.get_close_matches(module_name, list(known), n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                self.problem(("game_module",), f"unknown game module {module_name!r}: no round template of that name{suggestion} "
                             f"(known: {', '.join(known)})")
                module_name = None

        pays = self.pay_rule(data.get("pays", {}))
        reels, rows = self.grid(data.get("grid"))
        heights = self.heights(data.get("grid"), reels, rows, pays)
        if rows:
            self.positions = sum(rows)
        symbols = self.symbols(data.get("symbols"), reels)
        groups = self.groups(data.get("groups", {}), symbols)
        rule = pays.definition
        if groups and not rule.groups_pay:
            self.problem(("groups",), f"a {pays.rule} game pays each symbol's own count: groups do not pay in it "
                                      "(remove [groups])")
        if rule.paylines and not self.rule_unknown:
            if "paylines" not in data:
                self.problem((), "missing required section or key 'paylines' (a lines game needs its paylines)")
            paylines = self.paylines(data.get("paylines"), reels, rows)
        else:
            if "paylines" in data:
                self.problem(("paylines",), f"a {pays.rule} game has no paylines: remove [paylines] (or set [pays] rule = \"lines\")")
            paylines = ()
        bet = self.bet(data.get("bet"), paylines, pays)
        line_unit = bet.line_pay_unit if bet is not None else "line_bet"
        paytable = self.paytable(data.get("paytable"), symbols, reels, line_unit, groups, pays)
        if rule.check is not None:  # what else the rule refuses (model.rules)
            rule.check(self.problem, rows, symbols, groups, paytable)
        scatters = self.scatters(data.get("scatters", {}), symbols, reels, rows)
        strip_sets = self.strip_sets(data.get("strip_sets"), symbols, reels, rows)
        tables = self.tables(data.get("tables", {}))
        self.multiplier_tables(symbols, tables, pays)
        self.template_features(module_name, pays, groups, symbols, heights)
        triggers = self.triggers(data.get("triggers", {}), scatters, symbols, tables, pays, reels, module_name)
        awards = self.award_values(triggers, tables)
        self.pay_units(bet, paytable, scatters, awards)
        bet_modes = self.bet_modes(data.get("bet_modes", {}), strip_sets, module_name)
        features = data.get("features", {})
        if self.table(("features",), features) is None:
            features = {}
        if module_name is not None:
            before = len(self.problems)
            self.features(module_name, features, symbols, strip_sets, tables, triggers, scatters, bet_modes, pays,
                          {"heights": heights, "groups": groups, "rows": rows})
            amounts = self.feature_amounts(module_name, features, tables) if len(self.problems) == before else []
            if amounts:  # the template's paid amounts share the pay unit: checked with the pays, reported at their keys
                self.pay_units(bet, paytable, scatters, awards, amounts)
        else:
            amounts = []
        template = registry.find_template(module_name) if module_name is not None else None

        if self.problems:
            raise self.fail()
        return Game(
            name=name,
            format_version=version,
            game_module=module_name,
            reels=reels,
            rows=rows,
            bet=bet,
            symbols=freeze(symbols),
            paylines=paylines,
            paytable=freeze(paytable),
            scatters=freeze(scatters),
            triggers=freeze(triggers),
            strip_sets=freeze(strip_sets),
            tables=freeze(tables),
            features=freeze(features),
            description=description,
            pays=pays,
            groups=freeze(groups),
            heights=heights,
            bet_modes=freeze(bet_modes),
            exact_part=template.exact_part if template is not None else "base game",
            feature_money=tuple(value for _, value, _ in amounts),
            path=self.source.path,
            text=self.source.text,
        )

    def grid(self, value: Any) -> tuple[int, tuple]:
        if value is None or self.table(("grid",), value) is None:
            return 0, ()
        self.check_keys(("grid",), value, ("reels", "rows", "heights"), ("reels", "rows"))
        reels = self.integer(("grid", "reels"), value["reels"], 1, MAX_REELS) if "reels" in value else None
        rows_value = value.get("rows")
        rows: tuple = ()
        if reels is None:
            return 0, ()
        if rows_value is None:
            return reels, ()
        if isinstance(rows_value, list):
            if len(rows_value) != reels:
                self.problem(("grid", "rows"), f"lists {len(rows_value)} reels, grid has {reels}")
                return reels, ()
            parsed = [self.integer(("grid", "rows", i), r, 1, MAX_ROWS) for i, r in enumerate(rows_value)]
            if any(r is None for r in parsed):
                return reels, ()
            rows = tuple(parsed)
        else:
            r = self.integer(("grid", "rows"), rows_value, 1, MAX_ROWS)
            if r is None:
                return reels, ()
            rows = (r,) * reels
        return reels, rows

    def pay_rule(self, value: Any) -> PayRule:
        if self.table(("pays",), value) is None:
            return PayRule()
        self.check_keys(("pays",), value, ("rule", "direction", "combine", "multiply_wild_only"))
        rule = self.string(("pays", "rule"), value.get("rule", "lines"), rules.names())
        if rule is None:  # reported; do not also report what a lines game would need
            self.rule_unknown = True
            rule = "lines"
        direction = self.string(("pays", "direction"), value.get("direction", "left_to_right"), LINE_DIRECTIONS) or "left_to_right"
        if not rules.get(rule).directions and "direction" in value:
            self.problem(("pays", "direction"), f"direction is for lines games: a {rule} game pays {rules.get(rule).pays_where}")
        combine = self.string(("pays", "combine"), value.get("combine", "product"), MULTIPLIER_COMBINE) or "product"
        wild_only = value.get("multiply_wild_only", False)
        if not isinstance(wild_only, bool):
            self.problem(("pays", "multiply_wild_only"), f"expected true or false, got {describe(wild_only)}")
            wild_only = False
        return PayRule(rule=rule, direction=direction, combine=combine, multiply_wild_only=wild_only)

    def heights(self, value: Any, reels: int, rows: tuple, pays: PayRule) -> tuple | None:
        """``[grid] heights``: per reel, a weighted table of the rows it shows on a spin (variable-ways games)."""
        if not isinstance(value, dict) or "heights" not in value or not reels or not rows:
            return None
        path = ("grid", "heights")
        spec = self.table(path, value["heights"], "table of reel1 = { rows = weight, ... }")
        if spec is None:
            return None
        if not pays.definition.heights:
            self.problem(path, f"reel heights drawn per spin need [pays] rule = \"ways\" (this game pays {pays.rule})")
            return None
        keys = [f"reel{i + 1}" for i in range(reels)]
        self.check_keys(path, spec, keys)
        out = []
        for i, key in enumerate(keys):
            if key not in spec:
                out.append(None)
                continue
            table = self.table(path + (key,), spec[key], "table { rows = weight }")
            if table is None:
                return None
            entries = []
            for k, w in table.items():
                h = _count_key(k)
                if h is None or h > rows[i]:
                    self.problem(path + (key, k), f"{_name(k)} is not a reel height from 1 to {rows[i]} ([grid] rows of reel {i + 1})")
                    continue
                w = self.integer(path + (key, k), w, 0, MAX_WEIGHT)
                if w is not None:
                    entries.append((h, w))
            if not entries or sum(w for _, w in entries) == 0:
                self.problem(path + (key,), "no height with a weight above 0")
                return None
            if sum(w for _, w in entries) > MAX_WEIGHT:
                self.problem(path + (key,), f"weights add up to more than {MAX_WEIGHT:,}")
                return None
            out.append(tuple(sorted(entries)))
        return tuple(out)

    def template_features(self, module_name, pays: PayRule, groups: dict, symbols: dict, heights) -> None:
        """Pay rules, groups, multiplier wilds and reel heights are played by the classic round template only:
        a game module with a round of its own (super_10_stars, bier_haus) pays plain left-to-right lines."""
        if module_name is None or registry.template(module_name).declared_pays:
            return
        why = f"is played by the classic round template; {module_name!r} pays left-to-right lines with its own round"
        if pays != PayRule():
            self.problem(("pays",), f"[pays] other than lines left to right {why}")
        if groups:
            self.problem(("groups",), f"[groups] {why}")
        for name, sym in symbols.items():
            if sym.multiplier != 1 or sym.multiplier_table is not None:
                self.problem(("symbols", name, "multiplier"), f"a multiplier wild {why}")
        if heights:
            self.problem(("grid", "heights"), f"reel heights drawn per spin {why}")

    def multiplier_tables(self, symbols: dict, tables: dict, pays: PayRule) -> None:
        """A wild's ``multiplier = "TABLE"``: entries { multiplier = whole number 1..MAX_MULTIPLIER, weight = w }."""
        for name, sym in symbols.items():
            table_name = sym.multiplier_table
            if table_name is None:
                continue
            path = ("symbols", name, "multiplier")
            if table_name not in tables:
                self.problem(path, f"unknown table {_name(table_name)} (a multiplier is a whole number or the name of a "
                                   "[tables.*] of { multiplier = m, weight = w } entries)")
                continue
            for i, entry in enumerate(tables[table_name].entries):
                epath = ("tables", table_name, "entries", i)
                extra = [k for k in entry if k != "multiplier"]
                if "multiplier" not in entry:
                    self.problem(epath, f"a multiplier table entry needs multiplier = m (read by wild {name})")
                else:
                    self.integer(epath + ("multiplier",), entry["multiplier"], 1, MAX_MULTIPLIER)
                if extra:
                    self.problem(epath + (extra[0],), f"unknown key {extra[0]!r} in a multiplier table entry (only "
                                                      "multiplier and weight)")

    def groups(self, value: Any, symbols: dict) -> dict:
        if self.table(("groups",), value) is None:
            return {}
        out = {}
        for name, members in value.items():
            path = ("groups", name)
            if not self.name_key(path, "group"):
                continue
            if name in symbols:
                self.problem(path, f"group {name!r} has the name of a symbol")
                continue
            names = self.name_list(path, members, symbols)
            if names is None:
                continue
            if len(set(names)) < 2:
                self.problem(path, "a group needs at least two different symbols")
                continue
            bad = [m for m in names if symbols[m].kind not in ("regular",)]
            if bad:
                self.problem(path, f"{bad[0]} is a {symbols[bad[0]].kind} symbol: groups hold regular symbols")
                continue
            out[name] = tuple(dict.fromkeys(names))
        return out

    def symbols(self, value: Any, reels: int) -> dict:
        if value is None or self.table(("symbols",), value) is None:
            return {}
        if not value:
            self.problem(("symbols",), "no symbols defined")
        if len(value) > MAX_SYMBOLS:
            self.problem(("symbols",), f"defines {len(value):,} symbols: at most {MAX_SYMBOLS}")
        known = ("kind", "height", "substitutes", "reels", "max_visible", "multiplier")
        out: dict[str, Symbol] = {}
        specs = {}
        for index, (name, spec) in enumerate(value.items()):
            path = ("symbols", name)
            if not NAME_RE.match(name):
                self.problem(path, f"symbol name {_name(name)} may only use letters, digits and _")
                continue
            if self.table(path, spec, "table of symbol properties") is None:
                continue
            self.check_keys(path, spec, known)
            kind = self.string(path + ("kind",), spec.get("kind", "regular"), SYMBOL_KINDS) or "regular"
            height = self.integer(path + ("height",), spec.get("height", 1), 1, MAX_TALL) or 1
            allowed = None
            if "reels" in spec:
                raw = spec["reels"]
                top = reels or MAX_REELS
                if not isinstance(raw, list) or not all(isinstance(r, int) and not isinstance(r, bool) for r in raw):
                    self.problem(path + ("reels",), f"expected a list of reel numbers, got {describe(raw)}")
                else:
                    bad = [r for r in raw if not 1 <= r <= top]
                    if bad:
                        self.problem(path + ("reels",), f"reel {_show(bad[0])} does not exist (reels are 1..{top})")
                    else:
                        allowed = tuple(sorted(set(raw)))
            max_visible = None
            if "max_visible" in spec:
                max_visible = self.integer(path + ("max_visible",), spec["max_visible"], 1, MAX_TALL)
            if "substitutes" in spec and kind != "wild":
                self.problem(path + ("substitutes",), f"only wild symbols substitute (this one is {kind})")
            multiplier = 1
            multiplier_table = None
            if "multiplier" in spec:
                if kind != "wild":
                    self.problem(path + ("multiplier",), f"only wild symbols carry a multiplier (this one is {kind})")
                elif isinstance(spec["multiplier"], str):
                    multiplier_table = spec["multiplier"]  # a table name: checked with the tables
                else:
                    multiplier = self.integer(path + ("multiplier",), spec["multiplier"], 1, MAX_MULTIPLIER) or 1
            specs[name] = spec
            out[name] = Symbol(name=name, index=index, kind=kind, height=height, reels=allowed, max_visible=max_visible,
                               multiplier=multiplier, multiplier_table=multiplier_table)
        # substitution sets need all names first
        for name, symbol in list(out.items()):
            if symbol.kind != "wild":
                continue
            path = ("symbols", name, "substitutes")
            raw = specs[name].get("substitutes", "all")
            non_wild = [s for s, sym in out.items() if sym.kind != "wild"]
            subs: tuple | None = None
            if raw == "all":
                subs = tuple(s for s in non_wild if out[s].kind == "regular")
            elif isinstance(raw, dict):
                self.check_keys(path, raw, ("all_but",), ("all_but",))
                excluded = self.name_list(path + ("all_but",), raw.get("all_but", []), out)
                if excluded is not None:
                    subs = tuple(s for s in non_wild if s not in excluded)
            elif isinstance(raw, list):
                subs = self.name_list(path, raw, out)
                if subs is not None:
                    for i, s in enumerate(subs):
                        if out[s].kind == "wild":
                            self.problem(path + (i,), f"{s!r} is a wild: wilds do not substitute for wilds")
            else:
                self.problem(path, f"expected \"all\", a list of symbols or {{ all_but = [...] }}, got {describe(raw)}")
            if subs is not None:
                out[name] = Symbol(**{**symbol.__dict__, "substitutes": frozenset(subs)})
        return out

    def paylines(self, value: Any, reels: int, rows: tuple) -> tuple:
        if value is None or self.table(("paylines",), value) is None:
            return ()
        self.check_keys(("paylines",), value, ("lines", "direction"), ("lines",))
        if "direction" in value:
            self.problem(("paylines", "direction"), "the direction of a lines game is [pays] direction = "
                                                    "\"left_to_right\" | \"right_to_left\" | \"both_ways\"")
        lines = value.get("lines")
        if lines is None:
            return ()
        if not isinstance(lines, list) or not lines:
            self.problem(("paylines", "lines"), f"expected a non-empty list of paylines, got {describe(lines)}")
            return ()
        if len(lines) > MAX_PAYLINES:
            self.problem(("paylines", "lines"), f"lists {len(lines):,} paylines: at most {MAX_PAYLINES:,}")
            return ()
        out = []
        for i, line in enumerate(lines):
            path = ("paylines", "lines", i)
            if not isinstance(line, list) or not all(isinstance(r, int) and not isinstance(r, bool) for r in line):
                self.problem(path, f"payline {i + 1}: expected a list of row numbers, got {describe(line)}")
                continue
            if reels and len(line) != reels:
                self.problem(path, f"payline {i + 1} has {len(line)} rows, the grid has {reels} reels")
                continue
            bad = [(reel, r) for reel, r in enumerate(line) if rows and not 0 <= r < rows[reel]]
            if bad:
                reel, r = bad[0]
                self.problem(path, f"payline {i + 1}: row {_show(r)} on reel {reel + 1} is out of range (rows are 0..{rows[reel] - 1}, 0 = top)")
                continue
            out.append(tuple(line))
        return tuple(out)

    def bet(self, value: Any, paylines: tuple, pays: PayRule = PayRule()) -> BetModel | None:
        if value is None or self.table(("bet",), value) is None:
            return None
        known = ("lines", "cost", "line_bet", "line_pay_unit", "stakes", "currency", "cost_reason", "max_win")
        if self.rule_unknown:
            self.check_keys(("bet",), value, known, ("cost", "line_bet"))
            lines = self.integer(("bet", "lines"), value["lines"], 1, MAX_PAYLINES) if "lines" in value else 0
        elif pays.definition.paylines:
            self.check_keys(("bet",), value, known, ("lines", "cost", "line_bet"))
            lines = self.integer(("bet", "lines"), value["lines"], 1, MAX_PAYLINES) if "lines" in value else None
        else:
            self.check_keys(("bet",), value, known, ("cost", "line_bet"))
            if "lines" in value:
                self.problem(("bet", "lines"), f"a {pays.rule} game has no lines: remove bet.lines (the stake is bet.cost)")
            lines = 0
        if lines is not None and paylines and lines != len(paylines):
            self.problem(("bet", "lines"), f"{lines} lines played but {len(paylines)} paylines defined")
        cost = self.number(("bet", "cost"), value["cost"], positive=True, what="cost", unit="credits") if "cost" in value else None
        line_bet = (self.number(("bet", "line_bet"), value["line_bet"], positive=True, what="line bet", unit="credits")
                    if "line_bet" in value else None)
        unit = self.string(("bet", "line_pay_unit"), value.get("line_pay_unit", "line_bet"), PAY_UNITS)
        if "cost_reason" in value:  # free text: why the cost is what it is (see the cost rule below)
            self.string(("bet", "cost_reason"), value["cost_reason"], what="cost_reason")
        stakes: tuple = ()
        if "stakes" in value:
            raw = value["stakes"]
            if not isinstance(raw, list) or not raw:
                self.problem(("bet", "stakes"), f"expected a list of total bets in currency, got {describe(raw)}")
            else:
                parsed = [self.number(("bet", "stakes", i), s, positive=True, what="stake") for i, s in enumerate(raw)]
                if all(p is not None for p in parsed):
                    stakes = tuple(parsed)
        currency = self.string(("bet", "currency"), value.get("currency", "")) or ""
        max_win = self.max_win(("bet", "max_win"), value["max_win"]) if "max_win" in value else None
        if None not in (lines, cost, line_bet) and lines and "cost_reason" not in value and pays.definition.paylines:
            stake = lines * line_bet
            if not stake <= cost <= FEATURE_COST_RATIO * stake:
                self.problem(("bet", "cost"),
                             f"cost {_fmt(cost)} is {float(cost / stake):.3g} x lines x line_bet "
                             f"({lines} x {_fmt(line_bet)} = {_fmt(stake)}): without bet.cost_reason the cost must be "
                             f"{_fmt(stake)} to {_fmt(FEATURE_COST_RATIO * stake)} (the line stake plus a feature cost of at most "
                             f"as much again); a wrong cost scales every RTP, so if {_fmt(cost)} is meant say why in "
                             "bet.cost_reason = \"...\"")
        if None in (lines, cost, line_bet, unit):
            return None
        return BetModel(lines=lines, cost=cost, line_bet=line_bet, line_pay_unit=unit, stakes=stakes, currency=currency,
                        max_win=max_win)

    def max_win(self, path: tuple, value: Any) -> Fraction | None:
        """A max-win cap (``[bet] max_win``, ``[bet_modes.NAME] max_win``): a number above 0, x the base total bet."""
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value <= 0:
            self.problem(path, f"max_win must be above 0 x the base game's total bet, got {_show(value)} "
                               "(leave it out for no cap)")
            return None
        return self.number(path, value, positive=True, what="max_win", unit="x total bet")

    def paytable(self, value: Any, symbols: dict, reels: int, unit: str = "line_bet", groups: dict | None = None,
                 rule: PayRule = PayRule()) -> dict:
        if value is None or self.table(("paytable",), value) is None:
            return {}
        groups = groups or {}
        out = {}
        for name, pays in value.items():
            path = ("paytable", name)
            if name not in symbols and name not in groups:
                self.problem(path, f"paytable for unknown symbol {_name(name)}" + (" (or group)" if groups else ""))
                continue
            if name in symbols and symbols[name].kind not in ("regular", "wild", "bonus"):
                self.problem(path, f"{name} is a {symbols[name].kind} symbol: its pays belong in [scatters]")
                continue
            kind = rule.definition
            if name in groups and not kind.groups_pay:
                continue  # [groups] is refused as a whole (build)
            if not kind.wilds_pay and symbols.get(name) is not None and symbols[name].kind == "wild":
                self.problem(path, f"{name} is a wild: in a {rule.rule} game wilds join the wins of other symbols and pay "
                                   "nothing on their own (a group of wilds only pays nothing); remove its paytable entry")
                continue
            if kind.count_what is not None:  # counts of cells on the screen, not of reels
                parsed = self.count_pays(path, pays, self.positions, unit, kind.count_what)
            else:
                parsed = self.count_pays(path, pays, reels or MAX_REELS, unit)
            if parsed is not None:
                out[name] = parsed
        return out

    def scatters(self, value: Any, symbols: dict, reels: int, rows: tuple) -> dict:
        if self.table(("scatters",), value) is None:
            return {}
        out = {}
        known = ("symbols", "counting", "visibility", "pays", "unit")
        for name, spec in value.items():
            path = ("scatters", name)
            if not self.name_key(path, "scatter group") or self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, known, ("symbols",))
            members = self.name_list(path + ("symbols",), spec.get("symbols", []), symbols) if "symbols" in spec else None
            counting = self.string(path + ("counting",), spec.get("counting", "anywhere"), COUNTING_MODES)
            visibility = self.string(path + ("visibility",), spec.get("visibility", "partial"), VISIBILITY_MODES)
            unit = self.string(path + ("unit",), spec.get("unit", "total_bet"), PAY_UNITS)
            # a count above this screen's symbols never pays, but is harmless; above any screen's it is a mistake
            pays = self.count_pays(path + ("pays",), spec.get("pays", {}), MAX_REELS * MAX_ROWS, unit or "total_bet",
                                   f"symbols any screen can show ({MAX_REELS} reels x {MAX_ROWS} rows)")
            if None in (members, counting, visibility, unit, pays):
                continue
            if not members:
                self.problem(path + ("symbols",), "lists no symbols")
                continue
            out[name] = ScatterGroup(name=name, symbols=members, counting=counting, visibility=visibility, pays=freeze(pays), unit=unit)
        return out

    def award_values(self, triggers: dict, tables: dict) -> list:
        """(path, value, unit) of every bonus award a trigger pays from its table."""
        out = []
        for trig in triggers.values():
            if trig.award is not None:
                for i, entry in enumerate(tables[trig.award].entries):
                    out.append((("tables", trig.award, "entries", i, "value"), Fraction(str(entry["value"])), trig.award_unit))
        return out

    def feature_amounts(self, module_name: str, features: dict, tables: dict) -> list:
        """(path, value, unit) of every amount the round template pays from ``[features]`` (its parameters with
        ``pays``, see :class:`~workbench.model.params.Param`; as :func:`workbench.pays.scale.feature_amounts` reads
        them), x total bet."""
        template = registry.find_template(module_name)
        out = []
        for key, spec in (template.params if template is not None else {}).items():
            value = features.get(key)
            field = getattr(spec, "pays", False)
            if not field or value is None:
                continue
            if spec.kind == "table":
                table = tables.get(value) if isinstance(value, str) else None
                for i, entry in enumerate(table.entries if table is not None else ()):
                    amount = entry.get(field)
                    if isinstance(amount, (int, float)) and not isinstance(amount, bool) and math.isfinite(amount):
                        out.append((("tables", value, "entries", i, field), Fraction(str(amount)), "total_bet"))
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                out.append((("features", key), Fraction(str(value)), "total_bet"))
        return out

    def pay_units(self, bet: BetModel | None, paytable: dict, scatters: dict, awards: list = (), amounts: list = ()) -> None:
        """Every pay and the cost must be whole pay units that fit the engines (see :mod:`workbench.pays.scale`).

        With ``amounts`` (the template's paid ``[features]`` amounts, :meth:`feature_amounts`) the pay unit is
        computed with them too, and only their problems are reported (the others were reported without them)."""
        if bet is None:
            return
        values = [(("bet", "cost"), bet.cost, f"cost {_fmt(bet.cost)} credits")]
        for path, pay, unit in awards:
            values.append((path, bet.credits(pay, unit), f"bonus award {_fmt(pay)} {UNIT_TEXT[unit]}"))
        for symbol, pays in paytable.items():
            for count, pay in pays.items():
                values.append((("paytable", symbol, str(count)), bet.credits(pay, bet.line_pay_unit),
                               f"pay {symbol} {count} = {_fmt(pay)} {UNIT_TEXT[bet.line_pay_unit]}"))
        for name, group in scatters.items():
            for count, pay in group.pays.items():
                values.append((("scatters", name, "pays", str(count)), bet.credits(pay, group.unit),
                               f"scatter pay {name} {count} = {_fmt(pay)} {UNIT_TEXT[group.unit]}"))
        first = len(values)
        for path, amount, unit in amounts:
            values.append((path, bet.credits(amount, unit), f"{path[-1]} {_fmt(amount)} {UNIT_TEXT[unit]}"))
        denominator = 1
        for _, credits, _ in values:
            denominator = math.lcm(denominator, Fraction(credits).denominator)
        if denominator > MAX_PAY_DENOMINATOR:
            path, credits, label = max(values[first if amounts else 0:], key=lambda v: Fraction(v[1]).denominator)
            self.problem(path, f"{label} is {_fmt(credits)} credits: with the cost and the other pays this needs a pay unit of "
                               f"1/{denominator:,} credit, and at most 1/{MAX_PAY_DENOMINATOR:,} is allowed "
                               "(use fewer decimal places in the pays, the line bet or the cost)")
            return
        unit = "1 credit" if denominator == 1 else f"1/{denominator:,} credit"
        for path, credits, label in values[first if amounts else 0:]:
            units = credits * denominator
            if units > MAX_UNITS:
                self.problem(path, f"{label} is {int(units):,} pay units (1 unit = {unit}): "
                                   f"at most {MAX_UNITS:,} fit the engines' pay tables")

    def triggers(self, value: Any, scatters: dict, symbols: dict | None = None, tables: dict | None = None,
                 pays: PayRule = PayRule(), reels: int = 0, module_name: str | None = None) -> dict:
        if self.table(("triggers",), value) is None:
            return {}
        symbols, tables = symbols or {}, tables or {}
        out = {}
        for name, spec in value.items():
            path = ("triggers", name)
            if not self.name_key(path, "trigger") or self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, ("scatter", "combination", "min_count", "per_line", "award", "award_unit"),
                            ("min_count",))
            if ("scatter" in spec) == ("combination" in spec):
                self.problem(path, "a trigger needs either scatter = \"GROUP\" (a scatter count) or combination = \"SYMBOL\" "
                                   "(that symbol from reel 1 on a line, or on adjacent reels of a ways game)")
                continue
            scatter = spec.get("scatter")
            if scatter is not None and self.string(path + ("scatter",), scatter) is not None and scatter not in scatters:
                self.problem(path + ("scatter",), f"unknown scatter {_name(scatter)}")
                scatter = None
            combination = spec.get("combination")
            ok = True
            if combination is not None:
                if self.string(path + ("combination",), combination) is None:
                    ok = False
                elif combination not in symbols:
                    self.problem(path + ("combination",), f"unknown symbol {_name(combination)}")
                    ok = False
                elif not pays.definition.runs:
                    self.problem(path + ("combination",), f"a {pays.rule} game has no lines or ways: count the symbol with a "
                                                          "[scatters.*] group and trigger on it with scatter = \"GROUP\"")
                    ok = False
            min_count = self.integer(path + ("min_count",), spec["min_count"], 1) if "min_count" in spec else None
            if min_count is not None and combination is not None and reels and min_count > reels:
                self.problem(path + ("min_count",), f"min_count {_show(min_count)} is more than the {reels} reels: a combination "
                                                    "counts one symbol per reel from reel 1")
                min_count = None
            elif min_count is not None and min_count > self.positions:
                self.problem(path + ("min_count",), f"min_count {_show(min_count)} can never be reached: the screen shows "
                                                    f"at most {self.positions} symbols")
                min_count = None
            per_line = spec.get("per_line", False)
            if not isinstance(per_line, bool):
                self.problem(path + ("per_line",), f"expected true or false, got {describe(per_line)}")
                ok = False
            elif per_line and (combination is None or not pays.definition.paylines):
                self.problem(path + ("per_line",), "per_line is for combination triggers of lines games (each triggering "
                                                   "line starts its own bonus)")
                ok = False
            award = spec.get("award")
            unit = self.string(path + ("award_unit",), spec.get("award_unit", "total_bet"), PAY_UNITS) or "total_bet"
            if "award_unit" in spec and award is None:
                self.problem(path + ("award_unit",), "award_unit needs award = \"TABLE\"")
            if award is not None:
                if self.string(path + ("award",), award) is None:
                    ok = False
                elif award not in tables:
                    self.problem(path + ("award",), f"unknown table {_name(award)}")
                    ok = False
                elif module_name is not None and not registry.template(module_name).declared_pays:
                    self.problem(path + ("award",), f"bonus awards from a table are played by the classic round template; "
                                                    f"{module_name!r} plays its own features")
                    ok = False
                else:
                    table = tables[award]
                    for i, entry in enumerate(table.entries):
                        epath = ("tables", award, "entries", i)
                        extra = [k for k in entry if k != "value"]
                        if "value" not in entry:
                            self.problem(epath, f"an award table entry needs value = the award ({UNIT_TEXT[unit]}), read by "
                                                f"[triggers.{name}]")
                            ok = False
                        elif self.number(epath + ("value",), entry["value"], nonnegative=True, what="award",
                                         unit=UNIT_TEXT[unit]) is None:
                            ok = False
                        if extra:
                            self.problem(epath + (extra[0],), f"unknown key {extra[0]!r} in an award table entry (only value "
                                                              "and weight)")
                            ok = False
            if combination is not None and module_name is not None and not registry.template(module_name).declared_pays:
                self.problem(path + ("combination",), f"combination triggers are played by the classic round template; "
                                                      f"{module_name!r} reads its own triggers from scatter groups")
                ok = False
            if ok and award is not None:
                # what the exact engine prices: one bonus-award trigger (scatter, or combination) per game
                if any(t.award for t in out.values()):
                    self.problem(path + ("award",), "only one trigger of a game may pay a bonus award table")
                    ok = False
                elif not pays.definition.bonus_awards:
                    self.problem(path + ("award",), f"a bonus award table in a {pays.rule} game is not priced exactly yet: pay "
                                                    "the scatter with [scatters.*] pays instead")
                    ok = False
                elif any(sym.multiplier_table is not None for sym in symbols.values()):
                    self.problem(path + ("award",), "a bonus award beside a wild whose multiplier is drawn per landing is "
                                                    "not priced exactly yet: give the wild a fixed multiplier")
                    ok = False
                elif (combination is not None and pays.definition.paylines
                      and any(g.counting != "anywhere" and any(p > 0 for p in g.pays.values()) for g in scatters.values())):
                    self.problem(path + ("award",), "a bonus award beside a paying adjacent_from_first_reel scatter group is "
                                                    "not priced exactly: make the group count anywhere")
                    ok = False
                elif per_line and any(Fraction(str(e["value"])) == 0 for e in tables[award].entries):
                    self.problem(path + ("award",), "with per_line every award must be above 0 (a line's bonus that pays "
                                                    "nothing is not a bonus)")
                    ok = False
            if ok and (scatter is not None or combination is not None) and min_count is not None:
                out[name] = Trigger(name=name, scatter=scatter, min_count=min_count, combination=combination,
                                    per_line=per_line, award=award, award_unit=unit)
        return out

    def strip_sets(self, value: Any, symbols: dict, reels: int, rows: tuple) -> dict:
        if value is None or self.table(("strip_sets",), value) is None:
            return {}
        if not value:
            self.problem(("strip_sets",), "no strip sets defined")
        if len(value) > MAX_STRIP_SETS:
            self.problem(("strip_sets",), f"defines {len(value):,} strip sets: at most {MAX_STRIP_SETS}")
        out = {}
        self.unknown_stops: dict[str, list] = {}  # undeclared symbol -> (key path, line, 0-based stop) of each use
        reel_keys = [f"reel{i + 1}" for i in range(reels)]
        for number, (name, spec) in enumerate(value.items()):
            if number >= MAX_STRIP_SETS:
                break
            path = ("strip_sets", name)
            if not self.name_key(path, "strip set") or self.table(path, spec) is None:
                continue
            if reels:
                self.check_keys(path, spec, ["mode", "weight", *reel_keys], ("mode", *reel_keys))
            else:  # no valid grid: the reels cannot be checked
                self.check_keys(path, spec, ["mode", "weight", *(k for k in spec if re.fullmatch(r"reel[0-9]+", str(k)))], ("mode",))
            mode = self.string(path + ("mode",), spec["mode"], what="mode") if "mode" in spec else None
            weight = self.integer(path + ("weight",), spec.get("weight", 1), 0, MAX_WEIGHT)
            strips = []
            for i, key in enumerate(reel_keys):
                if key not in spec:
                    continue
                strip = self.strip(path + (key,), spec[key], i, symbols, rows)
                strips.append(strip)
            if mode is None or weight is None or not reels or len(strips) != reels or any(s is None for s in strips):
                continue
            out[name] = StripSet(name=name, mode=mode, weight=weight, reels=tuple(strips))
        self.undeclared_symbols(symbols)
        modes: dict[str, int] = {}
        for s in out.values():
            modes[s.mode] = modes.get(s.mode, 0) + s.weight
        for mode, total in modes.items():
            if total == 0:
                self.problem(("strip_sets",), f"all strip sets of mode {mode!r} have weight 0")
            elif total > MAX_WEIGHT:
                self.problem(("strip_sets",), f"the weights of the strip sets of mode {mode!r} add up to {total:,}: "
                                              f"at most {MAX_WEIGHT:,}")
        if out and "base" not in modes and len(out) == len(value):
            self.problem(("strip_sets",), "no strip set has mode \"base\" (the base game)")
        return out

    def strip(self, path: tuple, value: Any, reel: int, symbols: dict, rows: tuple) -> Strip | None:
        if not isinstance(value, str):
            self.problem(path, f"expected a string of symbol names, got {describe(value)}")
            return None
        stops = len(value.split())
        if stops > MAX_STRIP_STOPS:
            self.problem(path, f"reel {reel + 1} has {stops:,} stops: at most {MAX_STRIP_STOPS:,} per strip (use stop weights for long virtual reels)")
            return None

        def report(msg: str, at: int | None = None) -> None:
            self.problem(path, msg, None if at is None else self.source.line_in_string(path, value, at))

        def unknown(sym: str, stop: int, at: int) -> None:
            uses = self.unknown_stops.setdefault(sym, [])
            # the first use's place is all a message names: skip the line lookups of a long flood
            uses.append((path, self.source.line_in_string(path, value, at) if not uses else None, stop))

        strip = check_strip(value, reel, symbols, rows, report, unknown)
        if strip is None or strip.weights is None:
            return strip
        ok = True
        if max(strip.weights) > MAX_WEIGHT:
            tokens = parse_strip_text(value)
            for stop, (w, (sym, _, at)) in enumerate(zip(strip.weights, tokens)):
                if w > MAX_WEIGHT:
                    report(f"stop {stop + 1}: weight {_show(w)} of {sym} is too large: at most {MAX_WEIGHT:,}", at)
                    ok = False
        elif strip.total_weight > MAX_WEIGHT:
            report(f"reel {reel + 1}: stop weights add up to {strip.total_weight:,}: at most {MAX_WEIGHT:,} per strip")
            ok = False
        return strip if ok else None

    def undeclared_symbols(self, symbols: dict) -> None:
        """One problem per undeclared name on the strips, however many stops use it (a misspelt declaration such as
        ``TIGER = {}`` against ``TIGRE`` on every strip would otherwise give one per stop, none naming the
        declaration): at the declaration it is probably a misspelling of, or else at its first use."""
        for sym, uses in self.unknown_stops.items():
            path, line, stop = uses[0]
            count = f"{len(uses):,} stop{'s' if len(uses) > 1 else ''}"
            first = f"{format_key(path)}, line {line}, stop {stop + 1}" if line else f"{format_key(path)}, stop {stop + 1}"
            hint = difflib.get_close_matches(sym, list(symbols), n=1) if len(self.problems) < MAX_PROBLEMS else []
            if hint:
                near = ("symbols", hint[0])
                declared = self.source.line_of(near)
                at = f" (declared at line {declared})" if declared else ""
                self.problem(near, f"{_name(sym)} is used on {count} but not declared; did you mean {_name(hint[0])}{at}? "
                                   f"First use: {first}. Correct the spelling on the strips (or in [symbols]), or declare "
                                   f"{_name(sym)} as a symbol of its own")
            else:
                more = f", used on {count} in all" if len(uses) > 1 else ""
                self.problem(path, f"stop {stop + 1}: unknown symbol {_name(sym)}{more}: declare it in [symbols] "
                                   f"({sym} = {{}} for a regular symbol) or correct the strip", line)

    def tables(self, value: Any) -> dict:
        if self.table(("tables",), value) is None:
            return {}
        out = {}
        for name, spec in value.items():
            path = ("tables", name)
            if not self.name_key(path, "table") or self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, ("entries", "description"), ("entries",))
            entries = spec.get("entries")
            if entries is None:
                continue
            if not isinstance(entries, list) or not entries:
                self.problem(path + ("entries",), f"expected a non-empty list of {{ ..., weight = w }} entries, got {describe(entries)}")
                continue
            if len(entries) > MAX_TABLE_ENTRIES:
                self.problem(path + ("entries",), f"lists {len(entries):,} entries: at most {MAX_TABLE_ENTRIES:,} per table")
                continue
            weights = []
            rows_ = []
            for i, entry in enumerate(entries):
                epath = path + ("entries", i)
                if not isinstance(entry, dict):
                    self.problem(epath, f"expected an inline table {{ ..., weight = w }}, got {describe(entry)}")
                    continue
                if "weight" not in entry:
                    self.problem(epath, "entry has no weight")
                    continue
                w = entry["weight"]
                if not isinstance(w, int) or isinstance(w, bool):
                    self.problem(epath + ("weight",), f"weight must be a whole number, got {describe(w)}")
                    continue
                if w < 0:
                    self.problem(epath + ("weight",), f"negative weight {_show(w)}")
                    continue
                if w > MAX_WEIGHT:
                    self.problem(epath + ("weight",), f"weight {_show(w)} is too large: at most {MAX_WEIGHT:,}")
                    continue
                bad = [k for k, v in entry.items() if isinstance(v, float) and not math.isfinite(v)]
                for k in bad:
                    self.problem(epath + (k,), f"{k} = {entry[k]} is not a finite number")
                if bad:
                    continue
                weights.append(w)
                rows_.append({k: v for k, v in entry.items() if k != "weight"})
            if len(weights) != len(entries):
                continue
            if sum(weights) == 0:
                self.problem(path + ("entries",), "all weights are zero")
                continue
            if sum(weights) > MAX_WEIGHT:
                self.problem(path + ("entries",), f"weights add up to {sum(weights):,}: at most {MAX_WEIGHT:,} per table")
                continue
            out[name] = WeightedTable(name=name, entries=freeze(rows_), weights=tuple(weights))
        return out

    def bet_modes(self, value: Any, strip_sets: dict, module_name) -> dict:
        """``[bet_modes.NAME]``: cost (x the base total bet), strip_sets (a strip-set mode), buy + buy_count."""
        if self.table(("bet_modes",), value) is None:
            return {}
        template = registry.find_template(module_name) if module_name is not None else None
        modes = {s.mode for s in strip_sets.values()}
        known = {"cost": "x the base game's total bet", "strip_sets": "strip-set mode of its paid spins",
                 "buy": "starts the feature directly", "buy_count": "the trigger count a bought feature starts with",
                 "description": "free text", "max_win": "the most a round pays, x the base game's total bet"}
        out = {}
        for name, spec in value.items():
            path = ("bet_modes", name)
            if not self.name_key(path, "bet mode") or self.table(path, spec) is None:
                continue
            if name == "base":
                self.problem(path, "\"base\" is the game itself (cost 1): name the other modes, e.g. ante or bonus_buy")
                continue
            if template is not None and not template.declared_pays:
                self.problem(path, f"bet modes are played by the declared round templates (classic, free_spins, "
                                   f"hold_and_respin); {module_name!r} plays its own rounds")
                continue
            self.check_keys(path, spec, known, ("cost",))
            cost = self.number(path + ("cost",), spec["cost"], positive=True, what="cost", unit="x total bet",
                               maximum=100_000) if "cost" in spec else None
            buy = spec.get("buy", False)
            if not isinstance(buy, bool):
                self.problem(path + ("buy",), f"expected true or false, got {describe(buy)}")
                buy = False
            mode = spec.get("strip_sets", "base")
            if "strip_sets" in spec and self.string(path + ("strip_sets",), mode, what="mode") is not None:
                if mode not in modes:
                    self.problem(path + ("strip_sets",), f"no strip set has mode {_name(mode)} (modes: {', '.join(sorted(modes))})")
                elif buy:
                    self.problem(path + ("strip_sets",), "a buy mode plays no base spin: leave strip_sets out")
            count = None
            if buy:
                if template is not None and not template.buys:
                    self.problem(path + ("buy",), f"{module_name!r} has no feature to buy (free_spins and hold_and_respin "
                                                  "have)")
                elif "buy_count" not in spec:
                    self.problem(path, "a buy mode needs buy_count: the trigger count the bought feature starts with")
                else:
                    count = self.integer(path + ("buy_count",), spec["buy_count"], 1, 10_000)
            elif "buy_count" in spec:
                self.problem(path + ("buy_count",), "buy_count needs buy = true")
            max_win = self.max_win(path + ("max_win",), spec["max_win"]) if "max_win" in spec else None
            description = spec.get("description", "")
            if not isinstance(description, str):
                self.problem(path + ("description",), f"expected a string, got {describe(description)}")
                description = ""
            if cost is not None:
                out[name] = BetMode(name=name, cost=cost, strip_sets=mode if isinstance(mode, str) else "base", buy=buy,
                                    buy_count=count, description=description, max_win=max_win)
        return out

    def features(self, module_name, features, symbols, strip_sets, tables, triggers, scatters, bet_modes=None,
                 pays: PayRule | None = None, grid: dict | None = None) -> None:
        template = registry.template(module_name)
        spec = template.params
        refs = {
            "pays": pays or PayRule(),
            "bet_modes": bet_modes or {},
            "table": tables,
            "strip_set": strip_sets,
            "mode": {s.mode for s in strip_sets.values()},
            "symbol": symbols,
            "trigger": triggers,
            "scatter": scatters,
            **(grid or {}),  # "heights" (None: fixed), "groups", "rows"
        }
        self.check_keys(("features",), features, spec, tuple(k for k, p in spec.items() if p.required))
        for key, param in spec.items():
            if key in features:
                check_param(param, features[key], lambda msg, key=key: self.problem(("features", key), msg), refs)
        if template.check is not None and not self.problems:
            # checks report key paths from the file root, e.g. ("tables", name, "entries", i)
            template.check(features, lambda key, msg: self.problem(tuple(key), msg), refs)


def build_game(data: dict, source: SourceText) -> Game:
    """Validate plain data from a reelset file and build the :class:`Game`.

    Raises :class:`~workbench.errors.ReelsetError` with every problem found
    (at most :data:`MAX_PROBLEMS` listed, then one saying how many more).
    """
    return _Builder(data, source).build()
