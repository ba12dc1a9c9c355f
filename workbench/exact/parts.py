"""The parts of a PAR sheet: line pays, scatter pays, triggers and bonus awards, each with its rows and table."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING

from ..stats import WinStatistics

if TYPE_CHECKING:
    from .par import ParSheet


class _Pandas:
    """pandas, imported when a PAR table is first built: pricing a game (the editors, the simulator's start-up)
    needs none of it."""

    def __getattr__(self, name: str):
        import pandas

        return getattr(pandas, name)


pd = _Pandas()


class LinePays:
    """The line pays of a PAR sheet: exact RTP and the line tables.

    ``combinations``: every paying combination with its hits over the cycle
    (all lines), probability per line and RTP share; ``per_line``: RTP, hit
    frequency, std and VI of each payline (x line bet).
    """

    kind = "lines"

    def __init__(self, sheet: "ParSheet"):
        self.sheet = sheet
        self.name = sheet.game.pays.rule  # lines, ways or scatter_pays

    @cached_property
    def rtp_exact(self) -> Fraction:
        """Exact RTP of the line (ways, scatter_pays) pays (x total bet)."""
        return Fraction(int(sum(self.sheet.line_moment_sums[:, 1])), self.sheet.cycle * self.sheet.scale.cost_units)

    @property
    def tables(self) -> dict:
        if self.name != "lines":
            return {"combinations": self.combinations}
        return {"combinations": self.combinations, "per_line": self.per_line}

    @cached_property
    def combinations(self) -> pd.DataFrame:
        """Line combinations: hits over the cycle (all lines), probability per line, RTP share."""
        game = self.sheet.game
        n_lines = max(len(game.paylines), 1)  # ways and scatter_pays: probability per spin
        rows = []
        totals = self.sheet.line_hits.sum(axis=0) if len(self.sheet.automaton.combinations) else []
        units = self.sheet.combo_units.sum(axis=0) if self.sheet.combo_units is not None else None
        rtp = self.sheet.rtp
        multiplied = any(c.multiplier > 1 for c in self.sheet.automaton.combinations)
        for c, combo in enumerate(self.sheet.automaton.combinations):
            hits = int(totals[c])
            if units is not None:
                paid = int(units[c])
            else:
                paid = hits * self.sheet.scale.units(game.bet.credits(combo.paid,
                                                                      game.bet.line_pay_unit))
            contribution = Fraction(paid, self.sheet.cycle * self.sheet.scale.cost_units)
            probability = hits / (self.sheet.cycle * n_lines)
            extra = {}
            if multiplied:
                extra["multiplier"] = combo.multiplier
            if units is not None and game.rule.per_hit:  # wins per hit (ways, clusters)
                per_way = self.sheet.scale.units(game.bet.credits(combo.pay, game.bet.line_pay_unit))
                extra[game.rule.per_hit] = paid / (hits * per_way) if hits and per_way else 0.0
            rows.append({
                "combination": combo.label,
                "symbol": combo.symbol,
                "count": combo.count,
                "pay": float(combo.paid),
                **extra,
                "hits": hits,
                "probability": probability,
                "one_in": 1 / probability if probability else math.inf,
                "rtp": float(contribution),
                "rtp_share": float(contribution) / rtp if rtp else 0.0,
            })
        cols = ["combination", "symbol", "count", "pay", *(["multiplier"] if multiplied else []),
                *([game.rule.per_hit] if units is not None and game.rule.per_hit else []),
                "hits", "probability", "one_in", "rtp", "rtp_share"]
        return pd.DataFrame(rows, columns=cols)

    @cached_property
    def per_line(self) -> pd.DataFrame:
        """Per payline: RTP of one line bet, its share of the total RTP, hit frequency, std, VI, max (x line bet)."""
        game = self.sheet.game
        line_bet_units = self.sheet.scale.units(game.bet.line_bet)
        rows = []
        max_line = int(self.sheet.automaton.pay_units.max()) if self.sheet.automaton.n_states else 0
        for l, line_rows in enumerate(game.paylines):
            hits, s1, s2 = (int(x) for x in self.sheet.line_moment_sums[l])
            mean = s1 / self.sheet.cycle
            var = max(s2 / self.sheet.cycle - mean**2, 0.0)
            std = math.sqrt(var) / line_bet_units
            stats = WinStatistics(mean / line_bet_units, std, hits / self.sheet.cycle, max_line / line_bet_units)
            rows.append({
                "line": l + 1,
                "rows": "-".join(map(str, line_rows)),
                "rtp": stats.rtp,
                "rtp_contribution": s1 / (self.sheet.cycle * self.sheet.scale.cost_units),
                "hit_frequency": stats.hit_frequency,
                "std": stats.std,
                "volatility_index_90": stats.volatility_index(0.90),
                "volatility_index_95": stats.volatility_index(0.95),
                "max_win": stats.max_win,
            })
        return pd.DataFrame(rows).set_index("line")


SCATTER_COLUMNS = ["scatter", "count", "pay", "unit", "hits", "probability", "one_in", "rtp", "rtp_share"]


class ScatterPays:
    """One scatter group of a PAR sheet: its exact count distribution, RTP and table."""

    kind = "scatter"

    def __init__(self, sheet: "ParSheet", name: str):
        self.sheet = sheet
        self.name = name
        self.group = sheet.game.scatters[name]

    @property
    def pays(self) -> bool:
        """Whether the group pays anything itself (groups that only trigger do not)."""
        return any(p > 0 for p in self.group.pays.values())

    @cached_property
    def rtp_exact(self) -> Fraction:
        """Exact RTP of the group's pays (x total bet)."""
        sheet, group = self.sheet, self.group
        units = sum(h * sheet.scale.units(sheet.game.bet.credits(group.pay(c), group.unit)) for c, h in enumerate(sheet.scatter_hits[self.name]))
        return Fraction(units, sheet.cycle * sheet.scale.cost_units)

    @property
    def tables(self) -> dict:
        return {"scatter_pays": self.table}

    @cached_property
    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows(), columns=SCATTER_COLUMNS)

    def rows(self) -> list:
        """One row per count: hits, probability, 1 in N, pay (x the group's unit), RTP."""
        rows = []
        name, group, sheet = self.name, self.group, self.sheet
        hits = sheet.scatter_hits[name]
        for count, h in enumerate(hits):
            if count == 0:
                continue
            pay = group.pay(count)
            units = sheet.scale.units(sheet.game.bet.credits(pay, group.unit))
            contribution = h * units / (sheet.cycle * sheet.scale.cost_units)
            p = h / sheet.cycle
            rows.append({
                "scatter": name,
                "count": count,
                "pay": float(pay),
                "unit": group.unit,
                "hits": int(h),
                "probability": p,
                "one_in": 1 / p if p else math.inf,
                "rtp": contribution,
                "rtp_share": contribution / sheet.rtp if sheet.rtp else 0.0,
            })
        return rows


class Triggers:
    """The feature triggers of a PAR sheet: exact hits, probability per spin, 1 in N."""

    kind = "triggers"

    def __init__(self, sheet: "ParSheet"):
        self.sheet = sheet
        self.name = "triggers"

    rtp_exact = None  # triggers pay nothing themselves

    @property
    def tables(self) -> dict:
        return {"triggers": self.table}

    @cached_property
    def table(self) -> pd.DataFrame:
        """Feature triggers: exact hits, probability per spin, 1 in N."""
        rows = []
        sheet = self.sheet
        combos = any(t.combination is not None for t in sheet.game.triggers.values())
        for name, trig in sheet.game.triggers.items():
            hits = sheet.trigger_hits(name)
            p = hits / sheet.cycle
            row = {"trigger": name, "scatter": trig.source, "min_count": trig.min_count, "hits": hits,
                   "probability": p, "one_in": 1 / p if p else math.inf}
            if combos:  # combination triggers: the per-line figure and bonuses started per spin beside the per-spin one
                line_p = sheet.trigger_line_probability(name) if trig.combination is not None else math.nan
                starts = sheet.trigger_counts[name]["starts"] if trig.combination is not None else hits
                row.update({"line_probability": line_p, "line_one_in": 1 / line_p if line_p else math.inf,
                            "bonuses_per_spin": starts / sheet.cycle})
            rows.append(row)
        cols = ["trigger", "scatter", "min_count", "hits", "probability", "one_in"]
        if combos:
            cols += ["line_probability", "line_one_in", "bonuses_per_spin"]
        return pd.DataFrame(rows, columns=cols)


class BonusAwards:
    """A trigger's bonus paying a weighted award table: exact RTP (bonuses started x mean award) and the table.

    Awards are in the trigger's ``award_unit``; RTP in x total bet.
    """

    kind = "bonus"

    def __init__(self, sheet: "ParSheet", name: str):
        self.sheet = sheet
        self.name = name
        self.trigger = sheet.game.triggers[name]

    @cached_property
    def moments(self) -> tuple:
        from .triggers import award_moments

        return award_moments(self.sheet.game, self.trigger, self.sheet.scale)

    @cached_property
    def rtp_exact(self) -> Fraction:
        mean = self.moments[0]
        starts = self.sheet.trigger_counts[self.name]["starts"]
        return mean * starts / (self.sheet.cycle * self.sheet.scale.cost_units)

    @property
    def tables(self) -> dict:
        return {"bonus_awards": self.table}

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per award (a wheel: per segment): value (award unit), weight, probability (of one draw or wheel
        spin), ``segment`` (a wheel's segment in words, else "table"), ``per_award`` (how often one award lands on it,
        on average: a table's probability), share of the bonus RTP."""
        from ..model.wheel_segments import is_wheel

        game, table = self.sheet.game, self.sheet.game.tables[self.trigger.award]
        total = table.total_weight
        mean = float(self.moments[0]) or 1.0
        landings = self.wheel.landings if is_wheel(table) else [Fraction(w, total) for w in table.weights]
        rows = []
        for entry, w, lands in zip(table.entries, table.weights, landings):
            value = Fraction(str(entry.get("value", 0)))
            units = self.sheet.scale.units(game.bet.credits(value, self.trigger.award_unit))
            again = entry.get("award") == "cash" and entry.get("again", False)
            segment = "table" if "award" not in entry else f"{entry['award']}{', spins again' if again else ''}"
            rows.append({"trigger": self.name, "award": float(value), "unit": self.trigger.award_unit, "weight": w,
                         "probability": w / total, "segment": segment, "per_award": float(lands),
                         "bonus_rtp_share": float(lands) * units / mean})
        return pd.DataFrame(rows, columns=["trigger", "award", "unit", "weight", "probability", "segment", "per_award",
                                           "bonus_rtp_share"])

    @cached_property
    def wheel(self):
        """The exact value of one award of the trigger's wheel, in the table's values
        (:class:`workbench.exact.wheels.WheelValue`)."""
        from .wheels import segments_of, wheel_value

        return wheel_value(segments_of(self.sheet.game.tables[self.trigger.award]), self.trigger.award_repeat_cash,
                           self.trigger.award_max_spins)
