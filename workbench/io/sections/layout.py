"""The layout of a reelset: ``[grid]``, ``[pays]``, symbol heights, ``[symbols]``, ``[groups]``, ``[paylines]``
and what the round template asks of them.

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``data``, ``source``,
``problems``, ``positions`` and ``rule_unknown``."""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import Any

from ... import registry
from ...model import rules
from ...model import (LINE_DIRECTIONS, LINE_WIN_SELECTION, MULTIPLIER_COMBINE, SYMBOL_KINDS, ModeSymbol, PayRule, Symbol)
from ...model.params import describe
from ..limits import (
    NAME_RE, MAX_REELS, MAX_ROWS, MAX_PAYLINES, MAX_SYMBOLS, MAX_MULTIPLIER, MAX_WEIGHT, MAX_TALL, show_value,
    show_name, count_key,
)


class LayoutSections:
    """``[grid]``, ``[pays]``, ``[symbols]``, ``[groups]`` and ``[paylines]``, and what the template asks of them."""

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
        self.check_keys(("pays",), value, ("rule", "direction", "combine", "multiply_wild_only", "line_win"))
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
        line_win = self.string(("pays", "line_win"), value.get("line_win", "after_multipliers"),
                               LINE_WIN_SELECTION) or "after_multipliers"
        if "line_win" in value and not rules.get(rule).directions:
            self.problem(("pays", "line_win"), f"line_win is for lines games: a {rule} game pays every win "
                         f"{rules.get(rule).pays_where}, there is no best win of a line to choose")
        return PayRule(rule=rule, direction=direction, combine=combine, multiply_wild_only=wild_only, line_win=line_win)

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
                h = count_key(k)
                if h is None or h > rows[i]:
                    self.problem(path + (key, k), f"{show_name(k)} is not a reel height from 1 to {rows[i]} ([grid] rows of reel {i + 1})")
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
            if any(v.multiplier != 1 or v.multiplier_table is not None for v in (sym,) + tuple(v for _, v in sym.by_mode)):
                self.problem(("symbols", name, "multiplier"), f"a multiplier wild {why}")
            elif sym.by_mode:
                self.problem(("symbols", name, "by_mode"), f"a wild that changes per mode {why}")
        if heights:
            self.problem(("grid", "heights"), f"reel heights drawn per spin {why}")

    def multiplier_tables(self, symbols: dict, tables: dict, pays: PayRule) -> None:
        """A wild's ``multiplier = "TABLE"``: entries { multiplier = whole number 1..MAX_MULTIPLIER, weight = w }."""
        for name, sym, table_name, path in self.wild_tables(symbols):
            if table_name not in tables:
                self.problem(path, f"unknown table {show_name(table_name)} (a multiplier is a whole number or the name of a "
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

    def wild_tables(self, symbols: dict):
        """(name, symbol, table, key path) of every multiplier table a wild draws from, in any mode, once per key
        that names it (``multiplier``, or ``by_mode.MODE.multiplier``)."""
        raw = self.data.get("symbols") if isinstance(self.data.get("symbols"), dict) else {}
        for name, sym in symbols.items():
            spec = raw.get(name) if isinstance(raw.get(name), dict) else {}
            overrides = spec.get("by_mode") if isinstance(spec.get("by_mode"), dict) else {}
            seen = set()
            for mode, variant in ((None, sym),) + sym.by_mode:
                table = variant.multiplier_table
                if table is None:
                    continue
                given = mode is not None and isinstance(overrides.get(mode), dict) and "multiplier" in overrides[mode]
                path = ("symbols", name, "by_mode", mode, "multiplier") if given else ("symbols", name, "multiplier")
                if (table, path) not in seen:
                    seen.add((table, path))
                    yield name, sym, table, path

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
        known = ("kind", "height", "substitutes", "reels", "max_visible", "multiplier", "modes", "by_mode", "reveal")
        out: dict[str, Symbol] = {}
        specs = {}
        for index, (name, spec) in enumerate(value.items()):
            path = ("symbols", name)
            if not NAME_RE.match(name):
                self.problem(path, f"symbol name {show_name(name)} may only use letters, digits and _")
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
                        self.problem(path + ("reels",), f"reel {show_value(bad[0])} does not exist (reels are 1..{top})")
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
            reveal = self.reveal_key(path, spec, kind, height)
            specs[name] = spec
            out[name] = Symbol(name=name, index=index, kind=kind, height=height, reels=allowed, max_visible=max_visible,
                               multiplier=multiplier, multiplier_table=multiplier_table, reveal=reveal)
        # substitution sets need all names first
        for name, symbol in list(out.items()):
            if symbol.kind != "wild":
                continue
            subs = self.substitution(("symbols", name, "substitutes"), specs[name].get("substitutes", "all"), out)
            if subs is not None:
                out[name] = replace(symbol, substitutes=subs)
        for name, symbol in list(out.items()):
            out[name] = self.mode_overrides(("symbols", name), specs[name], out[name], out)
        return out

    def substitution(self, path: tuple, raw: Any, symbols: dict) -> frozenset | None:
        """A wild's ``substitutes``: "all" (every regular symbol), a list of symbols, or { all_but = [...] }."""
        non_wild = [s for s, sym in symbols.items() if sym.kind != "wild"]
        subs: tuple | None = None
        if raw == "all":
            subs = tuple(s for s in non_wild if symbols[s].kind == "regular")
        elif isinstance(raw, dict):
            self.check_keys(path, raw, ("all_but",), ("all_but",))
            excluded = self.name_list(path + ("all_but",), raw.get("all_but", []), symbols)
            if excluded is not None:
                subs = tuple(s for s in non_wild if s not in excluded)
        elif isinstance(raw, list):
            subs = self.name_list(path, raw, symbols)
            if subs is not None:
                for i, s in enumerate(subs):
                    if symbols[s].kind == "wild":
                        self.problem(path + (i,), f"{s!r} is a wild: wilds do not substitute for wilds")
        else:
            self.problem(path, f"expected \"all\", a list of symbols or {{ all_but = [...] }}, got {describe(raw)}")
        return None if subs is None else frozenset(subs)

    def mode_overrides(self, path: tuple, spec: dict, symbol: Symbol, symbols: dict) -> Symbol:
        """``modes = ["MODE", ...]`` (the strip-set modes whose strips may carry the symbol) and, wilds only,
        ``by_mode = { MODE = { multiplier = ..., substitutes = ... } }`` (what it is in that mode's screens).  The
        mode names are checked against the strip sets by :meth:`mode_symbols`; here the values."""
        modes = None
        if "modes" in spec:
            raw = spec["modes"]
            if not isinstance(raw, list) or not raw or not all(isinstance(m, str) for m in raw):
                self.problem(path + ("modes",), f"expected a non-empty list of strip-set mode names, got {describe(raw)}")
            else:
                modes = tuple(dict.fromkeys(raw))
        overrides = []
        raw = spec.get("by_mode")
        if raw is not None:
            if symbol.kind != "wild":
                self.problem(path + ("by_mode",), f"only wild symbols change per mode (this one is {symbol.kind}): "
                                                  "by_mode sets a wild's multiplier and substitutes in one mode")
            elif self.table(path + ("by_mode",), raw, "table of { MODE = { multiplier = ..., substitutes = ... } }") is not None:
                for mode, override in raw.items():
                    where = path + ("by_mode", mode)
                    if self.table(where, override, "table of the wild's multiplier and substitutes in this mode") is None:
                        continue
                    self.check_keys(where, override, ("multiplier", "substitutes"))
                    if not override:
                        self.problem(where, "gives nothing: set multiplier and/or substitutes (or leave the mode out)")
                        continue
                    multiplier, table = symbol.multiplier, symbol.multiplier_table
                    if "multiplier" in override:
                        if isinstance(override["multiplier"], str):
                            multiplier, table = 1, override["multiplier"]
                        else:
                            multiplier = self.integer(where + ("multiplier",), override["multiplier"], 1, MAX_MULTIPLIER) or 1
                            table = None
                    subs = symbol.substitutes
                    if "substitutes" in override:
                        subs = self.substitution(where + ("substitutes",), override["substitutes"], symbols)
                        subs = symbol.substitutes if subs is None else subs
                    overrides.append((mode, ModeSymbol(multiplier, table, subs)))
        return replace(symbol, modes=modes, by_mode=tuple(overrides))

    def mode_symbols(self, symbols: dict, strip_sets: dict) -> dict:
        """Per-mode symbols against the strip sets: every mode ``modes`` and ``by_mode`` name exists (the strips of a
        mode outside a symbol's ``modes`` that carry it are refused by ``check_strip``); ``by_mode`` resolved for every mode (the symbol's own values
        where the file gives none; a ``base`` entry becomes the symbol's own, the base game's)."""
        known = list(dict.fromkeys(s.mode for s in strip_sets.values()))
        if not known:
            return symbols
        out = dict(symbols)
        for name, sym in symbols.items():
            path = ("symbols", name)
            for key, names in (("modes", sym.modes or ()), ("by_mode", [m for m, _ in sym.by_mode])):
                for mode in names:
                    if mode not in known:
                        hint = difflib.get_close_matches(mode, known, n=1)
                        self.problem(path + (key,) + ((mode,) if key == "by_mode" else ()),
                                     f"no strip set has mode {mode!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                     + f"; the modes are {', '.join(known)}")
            if sym.by_mode:
                given = dict(sym.by_mode)
                own = ModeSymbol(sym.multiplier, sym.multiplier_table, sym.substitutes)
                resolved = tuple((mode, given.get(mode, own)) for mode in known)
                out[name] = replace(sym, by_mode=resolved).in_mode("base")
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
                self.problem(path, f"payline {i + 1}: row {show_value(r)} on reel {reel + 1} is out of range (rows are 0..{rows[reel] - 1}, 0 = top)")
                continue
            out.append(tuple(line))
        return tuple(out)
