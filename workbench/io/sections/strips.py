"""What a reelset plays on: ``[strip_sets]`` and their strips, ``[tables]``, ``[bet_modes]`` and ``[features]``.

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``data``, ``source``,
``problems``, ``positions`` and ``rule_unknown``."""

from __future__ import annotations

import difflib
import math
import re
from typing import Any

from ... import registry
from ...errors import format_key
from ...model import (BetMode, PayRule, Strip, StripSet, WeightedTable, check_strip, parse_strip_text, freeze)
from ...model.params import check_param, describe
from ..limits import (
    MAX_PROBLEMS, MAX_STRIP_STOPS, MAX_STRIP_SETS, MAX_TABLE_ENTRIES, MAX_WEIGHT, show_value, show_name,
)


class StripSections:
    """``[strip_sets]``, ``[tables]``, ``[bet_modes]`` and ``[features]``."""

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
                self.check_keys(path, spec, ["mode", "weight", "wild_reels", *reel_keys], ("mode", *reel_keys))
            else:  # no valid grid: the reels cannot be checked
                self.check_keys(path, spec, ["mode", "weight", "wild_reels",
                                             *(k for k in spec if re.fullmatch(r"reel[0-9]+", str(k)))], ("mode",))
            mode = self.string(path + ("mode",), spec["mode"], what="mode") if "mode" in spec else None
            weight = self.integer(path + ("weight",), spec.get("weight", 1), 0, MAX_WEIGHT)
            strips = []
            for i, key in enumerate(reel_keys):
                if key not in spec:
                    continue
                strip = self.strip(path + (key,), spec[key], i, symbols, rows, mode)
                strips.append(strip)
            wild = self.wild_reels(path + ("wild_reels",), spec["wild_reels"], symbols, reels, mode) if (
                "wild_reels" in spec and reels) else None
            if mode is None or weight is None or not reels or len(strips) != reels or any(s is None for s in strips):
                continue
            if "wild_reels" in spec and wild is None:
                continue
            out[name] = StripSet(name=name, mode=mode, weight=weight, reels=tuple(strips), wild_reels=wild)
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

    def strip(self, path: tuple, value: Any, reel: int, symbols: dict, rows: tuple, mode: str | None = None) -> Strip | None:
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

        strip = check_strip(value, reel, symbols, rows, report, unknown, mode)
        if strip is None or strip.weights is None:
            return strip
        ok = True
        if max(strip.weights) > MAX_WEIGHT:
            tokens = parse_strip_text(value)
            for stop, (w, (sym, _, at)) in enumerate(zip(strip.weights, tokens)):
                if w > MAX_WEIGHT:
                    report(f"stop {stop + 1}: weight {show_value(w)} of {sym} is too large: at most {MAX_WEIGHT:,}", at)
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
                self.problem(near, f"{show_name(sym)} is used on {count} but not declared; did you mean {show_name(hint[0])}{at}? "
                                   f"First use: {first}. Correct the spelling on the strips (or in [symbols]), or declare "
                                   f"{show_name(sym)} as a symbol of its own")
            else:
                more = f", used on {count} in all" if len(uses) > 1 else ""
                self.problem(path, f"stop {stop + 1}: unknown symbol {show_name(sym)}{more}: declare it in [symbols] "
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
                    self.problem(epath + ("weight",), f"negative weight {show_value(w)}")
                    continue
                if w > MAX_WEIGHT:
                    self.problem(epath + ("weight",), f"weight {show_value(w)} is too large: at most {MAX_WEIGHT:,}")
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

    def bet_modes(self, value: Any, strip_sets: dict, module_name, tables: dict | None = None) -> dict:
        """``[bet_modes.NAME]``: cost (x the base total bet), strip_sets (a strip-set mode), buy + buy_count (or
        buy_count_table: the count drawn by weight), features (the ``[features]`` parameters it plays otherwise,
        checked with the template's by :meth:`bet_mode_features`)."""
        if self.table(("bet_modes",), value) is None:
            return {}
        template = registry.find_template(module_name) if module_name is not None else None
        modes = {s.mode for s in strip_sets.values()}
        known = {"cost": "x the base game's total bet", "strip_sets": "strip-set mode of its paid spins",
                 "buy": "starts the feature directly", "buy_count": "the trigger count a bought feature starts with",
                 "description": "free text", "max_win": "the most a round pays, x the base game's total bet",
                 "buy_count_table": "a [tables.*] of { count = c, weight = w }: the bought trigger count drawn by weight",
                 "features": "the [features] parameters this mode plays otherwise",
                 "forced_screen": "paid or unpaid: whether a buy's forced trigger screen pays as a base spin",
                 "prize_mode": "plays the feature alone from an empty screen, its first board one of its respins"}
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
            prize = self.prize_mode(path, spec, template, module_name)
            mode = spec.get("strip_sets", "base")
            if "strip_sets" in spec and self.string(path + ("strip_sets",), mode, what="mode") is not None:
                if mode not in modes:
                    self.problem(path + ("strip_sets",), f"no strip set has mode {show_name(mode)} (modes: {', '.join(sorted(modes))})")
                elif buy:
                    self.problem(path + ("strip_sets",), "a buy mode plays no base spin: leave strip_sets out")
            prize_strips = mode if prize and "strip_sets" in spec and isinstance(mode, str) else None
            if prize:  # the mode's strips are its boards', its paid spins none
                mode, buy = "base", True
            count = None
            drawn: tuple = ()
            if buy:
                if template is not None and not template.buys:
                    self.problem(path + ("buy",), f"{module_name!r} has no feature to buy (free_spins and hold_and_respin "
                                                  "have)")
                elif prize:
                    count = 0
                elif ("buy_count" in spec) == ("buy_count_table" in spec):
                    self.problem(path, "a buy mode needs buy_count (the trigger count the bought feature starts with) or "
                                       "buy_count_table (the count drawn by weight), one of them")
                elif "buy_count" in spec:
                    count = self.integer(path + ("buy_count",), spec["buy_count"], 1, 10_000)
                else:
                    drawn = self.buy_count_table(path + ("buy_count_table",), spec["buy_count_table"], tables or {})
                    count = min(c for c, _ in drawn) if drawn else None
            else:
                for key in ("buy_count", "buy_count_table", "forced_screen"):
                    if key in spec:
                        self.problem(path + (key,), f"{key} needs buy = true")
            forced = self.string(path + ("forced_screen",), spec.get("forced_screen", "unpaid"), ("paid", "unpaid"))
            overrides = spec.get("features", {})
            if self.table(path + ("features",), overrides, "table of [features] parameters") is None:
                overrides = {}
            elif "features" in spec and module_name is None:
                self.problem(path + ("features",), "features needs game_module (a round template with parameters)")
            max_win = self.max_win(path + ("max_win",), spec["max_win"]) if "max_win" in spec else None
            description = spec.get("description", "")
            if not isinstance(description, str):
                self.problem(path + ("description",), f"expected a string, got {describe(description)}")
                description = ""
            if cost is not None:
                out[name] = BetMode(name=name, cost=cost, strip_sets=mode if isinstance(mode, str) else "base", buy=buy,
                                    buy_count=count, description=description, max_win=max_win, buy_counts=drawn,
                                    features=freeze(overrides), forced_screen=forced or "unpaid", prize=prize,
                                    prize_strips=prize_strips)
        return out

    def prize_mode(self, path: tuple, spec: dict, template, module_name) -> bool:
        """``prize_mode = true``: the mode plays the template's feature alone from an empty screen (a template with
        ``prize_modes``), so it buys no count and pays no forced screen."""
        prize = spec.get("prize_mode", False)
        if not isinstance(prize, bool):
            self.problem(path + ("prize_mode",), f"expected true or false, got {describe(prize)}")
            return False
        if not prize:
            return False
        if template is None or not template.prize_modes:
            self.problem(path + ("prize_mode",), f"{module_name!r} has no feature to play from an empty screen "
                                                 "(hold_and_respin has)")
            return False
        clash = [key for key in ("buy", "buy_count", "buy_count_table", "forced_screen") if key in spec]
        if clash:
            self.problem(path + (clash[0],), f"a prize mode plays the feature from an empty screen: leave {clash[0]} out "
                                             "(prize_mode = true is the whole declaration)")
            return False
        return True

    def buy_count_table(self, path: tuple, name: Any, tables: dict) -> tuple:
        """``buy_count_table = "TABLE"``: ((count, weight), ...) of its entries { count = c, weight = w } (c a whole
        number 1..10,000), weights adding up to more than 0."""
        if not isinstance(name, str) or name not in tables:
            self.problem(path, f"unknown table {show_name(name) if isinstance(name, str) else describe(name)} (a "
                               "[tables.*] of { count = c, weight = w } entries)")
            return ()
        table = tables[name]
        out = []
        for i, (entry, weight) in enumerate(zip(table.entries, table.weights)):
            epath = ("tables", name, "entries", i)
            extra = sorted(set(entry) - {"count"})
            if extra:
                self.problem(epath + (extra[0],), f"unknown key {extra[0]!r} in a bought-count table entry (only count "
                                                  "and weight)")
            elif "count" not in entry:
                self.problem(epath, "a bought-count table entry needs count = c (the trigger count the feature starts with)")
            else:
                count = self.integer(epath + ("count",), entry["count"], 1, 10_000)
                if count is not None and weight > 0:
                    out.append((count, int(weight)))
        if not out and len(self.problems) == 0:
            self.problem(("tables", name, "entries"), "every entry has weight 0: no count could be bought")
        merged: dict = {}
        for count, weight in out:
            merged[count] = merged.get(count, 0) + weight
        return tuple(sorted(merged.items()))

    def bet_mode_features(self, module_name, features: dict, bet_modes: dict, tables: dict, check) -> list:
        """Every bet mode's ``features`` checked as the template checks ``[features]``, merged over the game's
        (``check(merged)`` runs the template's checks; a problem at an overridden key is reported at
        ``[bet_modes.NAME.features]``); the amounts they pay (see ``feature_amounts``)."""
        overrides = [(("bet_modes", name, "features"), self.data["bet_modes"][name]["features"])  # as written
                     for name, mode in bet_modes.items() if mode.features]
        return self.override_features(module_name, features, overrides, tables, check)

    def override_features(self, module_name, features: dict, overrides: list, tables: dict, check) -> list:
        """``[features]`` parameters played otherwise (a bet mode's, a player choice's option): each
        ``(path, {key: value})`` of ``overrides`` merged over ``features`` and checked by ``check(merged)`` as the
        template checks ``[features]``, a problem at an overridden key reported under ``path``; the amounts the
        merged parameters pay that ``features`` does not (see ``feature_amounts``)."""
        amounts = []
        for where, override in overrides:
            if not override:
                continue
            merged = {**features, **override}
            own = self.problem

            def remapped(path, message, line=None, where=where, keys=set(override), own=own):
                if len(path) > 1 and path[0] == "features" and path[1] in keys:
                    path = where + tuple(path[1:])
                own(path, message, line)

            self.problem = remapped
            try:
                before = len(self.problems)
                check(merged)
                if len(self.problems) == before:  # what it pays that the game's [features] do not
                    for path, value, unit in self.feature_amounts(module_name, merged, tables):
                        if path[0] == "features" and path[1] in override:
                            amounts.append((where + tuple(path[1:]), value, unit))
                        elif path[0] != "features":
                            amounts.append((path, value, unit))
            finally:
                del self.problem
        return amounts

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
