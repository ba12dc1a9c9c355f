"""What a reelset pays: ``[bet]``, the max win, ``[paytable]``, ``[scatters]``, ``[triggers]``, award and
feature amounts, and the pay unit they share.

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``data``, ``source``,
``problems``, ``positions`` and ``rule_unknown``."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ... import registry
from ...model import (COUNTING_MODES, PAY_UNITS, VISIBILITY_MODES, BetModel, PayRule, ScatterGroup, Trigger, freeze)
from ...model.params import describe
from ...model.wheel_segments import (BONUS_WHEEL_AWARDS, MAX_AWARD_STATES, MAX_WHEEL_SPINS, award_states,
                                     check_segments, check_stops, is_wheel)
from ..limits import (
    MAX_REELS, MAX_ROWS, MAX_PAYLINES, MAX_PAY_DENOMINATOR, MAX_UNITS, FEATURE_COST_RATIO, UNIT_TEXT, show_value,
    show_name, show_exact,
)


class PaySections:
    """``[bet]``, ``[paytable]``, ``[scatters]`` and ``[triggers]``, and the pay unit every amount shares."""

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
                             f"cost {show_exact(cost)} is {float(cost / stake):.3g} x lines x line_bet "
                             f"({lines} x {show_exact(line_bet)} = {show_exact(stake)}): without bet.cost_reason the cost must be "
                             f"{show_exact(stake)} to {show_exact(FEATURE_COST_RATIO * stake)} (the line stake plus a feature cost of at most "
                             f"as much again); a wrong cost scales every RTP, so if {show_exact(cost)} is meant say why in "
                             "bet.cost_reason = \"...\"")
        if None in (lines, cost, line_bet, unit):
            return None
        return BetModel(lines=lines, cost=cost, line_bet=line_bet, line_pay_unit=unit, stakes=stakes, currency=currency,
                        max_win=max_win)

    def max_win(self, path: tuple, value: Any) -> Fraction | None:
        """A max-win cap (``[bet] max_win``, ``[bet_modes.NAME] max_win``): a number above 0, x the base total bet."""
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value <= 0:
            self.problem(path, f"max_win must be above 0 x the base game's total bet, got {show_value(value)} "
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
                self.problem(path, f"paytable for unknown symbol {show_name(name)}" + (" (or group)" if groups else ""))
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
                parsed = self.count_pays(path, pays, self.positions, unit, kind.count_what, upper_end=True)
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
                    if "value" in entry:  # a wheel's respin segment has none
                        out.append((("tables", trig.award, "entries", i, "value"), Fraction(str(entry["value"])),
                                    trig.award_unit))
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
                    wheel = tables.get(entry.get("wheel")) if isinstance(entry.get("wheel"), str) else None
                    for j, segment in enumerate(wheel.entries if wheel is not None else ()):  # a wheel coin's cash
                        amount = segment.get("value")
                        if (segment.get("award") == "cash" and isinstance(amount, (int, float))
                                and not isinstance(amount, bool) and math.isfinite(amount)):
                            out.append((("tables", wheel.name, "entries", j, "value"), Fraction(str(amount)), "total_bet"))
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                out.append((("features", key), Fraction(str(value)), "total_bet"))
        return out

    def pay_units(self, bet: BetModel | None, paytable: dict, scatters: dict, awards: list = (), amounts: list = ()) -> None:
        """Every pay and the cost must be whole pay units that fit the engines (see :mod:`workbench.pays.scale`).

        With ``amounts`` (the template's paid ``[features]`` amounts, :meth:`feature_amounts`) the pay unit is
        computed with them too, and only their problems are reported (the others were reported without them)."""
        if bet is None:
            return
        values = [(("bet", "cost"), bet.cost, f"cost {show_exact(bet.cost)} credits")]
        for path, pay, unit in awards:
            values.append((path, bet.credits(pay, unit), f"bonus award {show_exact(pay)} {UNIT_TEXT[unit]}"))
        for symbol, pays in paytable.items():
            for count, pay in pays.items():
                values.append((("paytable", symbol, str(count)), bet.credits(pay, bet.line_pay_unit),
                               f"pay {symbol} {count} = {show_exact(pay)} {UNIT_TEXT[bet.line_pay_unit]}"))
        for name, group in scatters.items():
            for count, pay in group.pays.items():
                values.append((("scatters", name, "pays", str(count)), bet.credits(pay, group.unit),
                               f"scatter pay {name} {count} = {show_exact(pay)} {UNIT_TEXT[group.unit]}"))
        first = len(values)
        for path, amount, unit in amounts:
            values.append((path, bet.credits(amount, unit), f"{path[-1]} {show_exact(amount)} {UNIT_TEXT[unit]}"))
        denominator = 1
        for _, credits, _ in values:
            denominator = math.lcm(denominator, Fraction(credits).denominator)
        if denominator > MAX_PAY_DENOMINATOR:
            path, credits, label = max(values[first if amounts else 0:], key=lambda v: Fraction(v[1]).denominator)
            self.problem(path, f"{label} is {show_exact(credits)} credits: with the cost and the other pays this needs a pay unit of "
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
            trigger = self.trigger(path, name, spec, scatters, symbols, tables, pays, reels, module_name, earlier=out)
            if trigger is not None:
                out[name] = trigger
        return out

    def trigger(self, path: tuple, name: str, spec: dict, scatters: dict, symbols: dict, tables: dict, pays: PayRule,
                reels: int, module_name: str | None, earlier: dict) -> Trigger | None:
        """One ``[triggers.NAME]`` entry, or None once its problems are recorded (``earlier``: the triggers read
        before it, for the one-award-table rule)."""
        self.check_keys(path, spec, ("scatter", "combination", "min_count", "per_line", "award", "award_unit",
                                     "award_repeat_cash", "award_max_spins"), ("min_count",))
        if ("scatter" in spec) == ("combination" in spec):
            self.problem(path, "a trigger needs either scatter = \"GROUP\" (a scatter count) or combination = \"SYMBOL\" "
                               "(that symbol from reel 1 on a line, or on adjacent reels of a ways game)")
            return None
        scatter = spec.get("scatter")
        if scatter is not None and self.string(path + ("scatter",), scatter) is not None and scatter not in scatters:
            self.problem(path + ("scatter",), f"unknown scatter {show_name(scatter)}")
            scatter = None
        combination = spec.get("combination")
        ok = combination is None or self.trigger_combination(path, combination, symbols, pays)
        min_count = self.trigger_min_count(path, spec, combination, reels)
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
        repeat_cash, max_spins = self.award_wheel_keys(path, spec)
        ok = repeat_cash is not None and max_spins is not None and ok
        if award is not None:
            ok = self.award_table(path, name, award, tables, unit, module_name) and ok
            if ok and is_wheel(tables[award]):
                ok = self.award_wheel(path, tables[award], repeat_cash, max_spins)
        if combination is not None and module_name is not None and not registry.template(module_name).declared_pays:
            self.problem(path + ("combination",), f"combination triggers are played by the classic round template; "
                                                  f"{module_name!r} reads its own triggers from scatter groups")
            ok = False
        if ok and award is not None:
            ok = self.award_priced(path, award, combination, per_line, earlier, scatters, symbols, tables, pays)
        if ok and (scatter is not None or combination is not None) and min_count is not None:
            return Trigger(name=name, scatter=scatter, min_count=min_count, combination=combination,
                           per_line=per_line, award=award, award_unit=unit, award_repeat_cash=repeat_cash,
                           award_max_spins=max_spins)
        return None

    def trigger_combination(self, path: tuple, combination: Any, symbols: dict, pays: PayRule) -> bool:
        """Whether a trigger's ``combination`` names a symbol of a game that has lines or ways."""
        if self.string(path + ("combination",), combination) is None:
            return False
        if combination not in symbols:
            self.problem(path + ("combination",), f"unknown symbol {show_name(combination)}")
            return False
        if not pays.definition.runs:
            self.problem(path + ("combination",), f"a {pays.rule} game has no lines or ways: count the symbol with a "
                                                  "[scatters.*] group and trigger on it with scatter = \"GROUP\"")
            return False
        return True

    def trigger_min_count(self, path: tuple, spec: dict, combination: Any, reels: int) -> int | None:
        """A trigger's ``min_count`` if it can be reached, else None (with its problem)."""
        min_count = self.integer(path + ("min_count",), spec["min_count"], 1) if "min_count" in spec else None
        if min_count is not None and combination is not None and reels and min_count > reels:
            self.problem(path + ("min_count",), f"min_count {show_value(min_count)} is more than the {reels} reels: a "
                                                "combination counts one symbol per reel from reel 1")
            return None
        if min_count is not None and min_count > self.positions:
            self.problem(path + ("min_count",), f"min_count {show_value(min_count)} can never be reached: the screen "
                                                f"shows at most {self.positions} symbols")
            return None
        return min_count

    def award_table(self, path: tuple, name: str, award: Any, tables: dict, unit: str, module_name: str | None) -> bool:
        """Whether a trigger's ``award`` names a table of awards (``value`` in ``unit``) the round template plays."""
        if self.string(path + ("award",), award) is None:
            return False
        if award not in tables:
            self.problem(path + ("award",), f"unknown table {show_name(award)}")
            return False
        if module_name is not None and not registry.template(module_name).declared_pays:
            self.problem(path + ("award",), f"bonus awards from a table are played by the classic round template; "
                                            f"{module_name!r} plays its own features")
            return False
        if is_wheel(tables[award]):
            return check_segments(tables[award], self.problem, BONUS_WHEEL_AWARDS, UNIT_TEXT[unit],
                                  f"read by [triggers.{name}] award: free_spins and meter_spins segments need the "
                                  "free_spins template's [features] wheel") is not None
        ok = True
        for i, entry in enumerate(tables[award].entries):
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
        return ok

    def award_wheel_keys(self, path: tuple, spec: dict) -> tuple:
        """(award_repeat_cash, award_max_spins) of a trigger, each None on a problem; they need a wheel ``award``."""
        repeat = spec.get("award_repeat_cash", True)
        if not isinstance(repeat, bool):
            self.problem(path + ("award_repeat_cash",), f"expected true or false, got {describe(repeat)}")
            repeat = None
        most = self.integer(path + ("award_max_spins",), spec.get("award_max_spins", MAX_WHEEL_SPINS), 1, 10_000)
        for key in ("award_repeat_cash", "award_max_spins"):
            if key in spec and "award" not in spec:
                self.problem(path + (key,), f"{key} needs award = \"TABLE\" naming a wheel (a table of segments "
                                            "{ award = \"cash\" | \"respin\", value = v, weight = w })")
        return repeat, most

    def award_wheel(self, path: tuple, table, repeat_cash: bool, max_spins: int) -> bool:
        """Whether a trigger's wheel award can stop and its exact value stays within the states it may visit."""
        kinds = [(e["award"], e["award"] == "respin" or e.get("again", False)) for e in table.entries]
        if not check_stops(table, kinds, self.problem):
            return False
        states = award_states(table, repeat_cash, max_spins)
        if states > MAX_AWARD_STATES:
            self.problem(path + ("award_max_spins",), f"the exact value of one award of wheel [tables.{table.name}] "
                                                      f"would visit up to {states:,} states (at most "
                                                      f"{MAX_AWARD_STATES:,}): lower award_max_spins, let cash prizes "
                                                      "repeat (award_repeat_cash = true) or use fewer distinct cash "
                                                      "prizes that spin again")
            return False
        return True

    def award_priced(self, path: tuple, award: str, combination: Any, per_line: bool, earlier: dict, scatters: dict,
                     symbols: dict, tables: dict, pays: PayRule) -> bool:
        """Whether the exact engine prices this bonus award: one bonus-award trigger (scatter or combination) per
        game, in a rule and beside symbols it handles."""
        if any(t.award for t in earlier.values()):
            self.problem(path + ("award",), "only one trigger of a game may pay a bonus award table")
            return False
        if not pays.definition.bonus_awards:
            self.problem(path + ("award",), f"a bonus award table in a {pays.rule} game is not priced exactly yet: pay "
                                            "the scatter with [scatters.*] pays instead")
            return False
        if any(v.multiplier_table is not None for sym in symbols.values() for v in sym.variants):
            self.problem(path + ("award",), "a bonus award beside a wild whose multiplier is drawn per landing is "
                                            "not priced exactly yet: give the wild a fixed multiplier")
            return False
        if (combination is not None and pays.definition.paylines
                and any(g.counting != "anywhere" and any(p > 0 for p in g.pays.values()) for g in scatters.values())):
            self.problem(path + ("award",), "a bonus award beside a paying adjacent_from_first_reel scatter group is "
                                            "not priced exactly: make the group count anywhere")
            return False
        if per_line and any(e.get("award") == "respin" or Fraction(str(e["value"])) == 0 for e in tables[award].entries):
            self.problem(path + ("award",), "with per_line every award must be above 0 (a line's bonus that pays "
                                            "nothing is not a bonus; a wheel: every cash segment above 0 and no respin "
                                            "segment)")
            return False
        return True
