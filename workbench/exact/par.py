"""The PAR sheet: exact base-game math of one game mode, as objects and DataFrames."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ..errors import ExactBudgetError, WorkbenchError
from ..figures import DERIVED_FROM, figures_of
from ..model import Game, StripSet, rules
from ..stats import WinDistribution, WinStatistics
from ..pays.lines import LineAutomaton, line_automaton
from ..pays.scale import PayScale, pay_scale
from ..pays.scatter import scatter_pay_tables
from .analysis import (
    AWARD_DISTRIBUTION_NOTE,
    RuleCombinations,
    StripSetAnalysis,
    _combination_triggers,
    _mix_counts,
    _with_awards,
    analyse_strip_set,
    check_strip_set_budget,
)
from .enumerate import DEFAULT_BUDGET, MAX_SEARCH_NODES, WORK_PER_COMBINATION, full_cycle_refusal, window_combinations
from .parts import SCATTER_COLUMNS, BonusAwards, LinePays, ScatterPays, Triggers, pd
from .scatters import ScatterCounts, scatter_counts
from .sheet_cache import _SET_CACHE, _set_cached, structure_key  # noqa: F401 (benchmarks clear par._SET_CACHE)
from .windows import strip_set_windows

PRIZE_LEVELS = (0, 1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 5000)  # x total bet
MODE_WORK_MAX = 100_000_000_000  # estimated steps of the exact analysis of all strip sets of a mode together


@dataclass(frozen=True)
class SimulatedFigure:
    """A figure of a PAR sheet estimated by a seeded simulation of its screens (the exact engine left it out):
    ``value`` (the figure's unit), ``ci95`` (half-width of its 95 % interval, same unit; None for the max win, the
    largest seen), ``rounds``, ``seed``."""

    value: float
    ci95: float | None
    rounds: int
    seed: int


class ParSheet:
    """Exact base-game PAR sheet of one game mode (default: the base game).

    Attributes are in x total bet unless stated: ``rtp``, ``rtp_exact``
    (Fraction), ``components`` (RTP by source), ``hit_frequency``, ``std``,
    ``max_win``, ``cycle``; methods ``volatility_index(confidence)``,
    ``confidence_band(n_spins, confidence)`` and
    ``trigger_probability(name)``.  The sheet is a set of components
    (``parts``: line pays, each scatter group, triggers), each with its own
    exact RTP and tables; the sheet's tables (pandas DataFrames) are
    ``symbol_counts``, ``prize_structure``, ``summary`` and, gathered from its
    parts, ``combinations``, ``per_line``, ``scatter_pays``, ``triggers``.  ``distribution`` is the
    exact :class:`~workbench.stats.WinDistribution` of the spin win when the
    full cycle was enumerated (None otherwise, and ``distribution_note`` says
    why).  ``max_win`` is exact when ``max_win_exact``; otherwise the search
    stopped at its budget, ``max_win`` is the largest win found and
    ``max_win_upper`` bounds the maximum.  ``notes`` lists what was left out
    or bounded, for reports.
    """

    def __init__(self, game: Game, mode: str, analyses: list[StripSetAnalysis], automaton: LineAutomaton, scale: PayScale,
                 full_cycle: bool | str = "auto"):
        self.game = game
        self.mode = mode
        #: what the sheet covers, as reports name it: "base game", or a tumble game's "first drop" (before the cascades)
        self.covers = game.exact_part  # the round template's fact, read when the file was validated
        self.analyses = analyses
        self.automaton = automaton
        self.scale = scale
        parts = [(a.strip_set.weight, a.cycle) for a in analyses if a.strip_set.weight > 0]
        active = [a for a in analyses if a.strip_set.weight > 0]
        self.cycle, self.line_hits = _mix_counts([(w, c, a.line_hits) for (w, c), a in zip(parts, active)])
        _, self.line_moment_sums = _mix_counts([(w, c, a.line_moments) for (w, c), a in zip(parts, active)])
        self.combo_units = None
        if active and all(a.combo_units is not None for a in active):
            _, self.combo_units = _mix_counts([(w, c, a.combo_units) for (w, c), a in zip(parts, active)])
        self.scatter_hits = {}
        for name in game.scatters:
            _, hits = _mix_counts([(w, c, list(a.scatters[name].hits)) for (w, c), a in zip(parts, active)])
            self.scatter_hits[name] = hits
        total_weight = sum(w for w, _ in parts)
        self._moments = [(w / total_weight, a.moments) for (w, _), a in zip(parts, active)]
        self.distribution: WinDistribution | None = None
        self.distribution_note: str | None = None
        awards = any(t.award for t in game.triggers.values())
        if all(a.histogram is not None for a in active) and not awards:
            # mixed sparsely (only the wins that occur), at the common cycle of the strip sets
            common = 1
            for _, cycle in parts:
                common = math.lcm(common, cycle)
            mixed: dict[int, int] = {}
            for (w, cycle), a in zip(parts, active):
                factor = w * (common // cycle)
                nz = np.flatnonzero(a.histogram)
                for units, hits in zip(nz.tolist(), a.histogram[nz].tolist()):
                    mixed[units] = mixed.get(units, 0) + hits * factor
            wins = sorted(mixed)
            self.distribution = WinDistribution(np.asarray(wins, dtype=np.int64), [mixed[u] for u in wins],
                                                total_weight * common, scale.cost_units)
        else:
            reasons = list(dict.fromkeys(a.cycle_note for a in active if a.cycle_note))
            if awards:
                self.distribution_note = AWARD_DISTRIBUTION_NOTE
            elif reasons:
                self.distribution_note = "full-cycle distribution not computed: " + "; ".join(reasons)
            else:
                self.distribution_note = f"full-cycle distribution not computed (full_cycle={full_cycle!r})"
        searches = [(a.strip_set.name, a.moments) for a in active]
        #: figures the exact analysis left out (over a work budget): figure -> why; a higher layer may estimate them
        #: by simulation (:meth:`add_simulated`), and every view then labels them "simulated (N rounds)"
        self.missing: dict = {}
        for _, m in searches:
            for figure in m.missing:
                self.missing.setdefault(figure, m.missing_note or "over the exact engine's work budget")
        #: figure key -> :class:`SimulatedFigure`, for the figures of ``missing`` estimated by simulation
        self.simulated: dict = {}
        self.max_win_exact = all(m.max_exact for _, m in searches)
        if self.missing:
            names = {"std": "the standard deviation (and volatility index)", "hit_frequency": "the hit frequency",
                     "max_win": "the max win (an exact bound is given)"}
            self.notes_missing = (f"not exact: {', '.join(names[f] for f in self.missing)}: "
                                  f"{'; '.join(dict.fromkeys(self.missing.values()))}")
        self.max_win_upper = (max((m.max_units if m.max_exact else m.max_upper) for _, m in searches) / scale.cost_units
                              if searches else 0.0)
        self.notes: list[str] = [self.distribution_note] if self.distribution_note else []
        if self.missing:
            self.notes.append(self.notes_missing)
        for name, m in searches:
            if not m.max_exact and awards:
                self.notes.append(
                    f"max win of strip set {name!r}: a spin pays its screen's pays plus the bonus award; the largest known "
                    f"is {m.max_units / scale.cost_units:g} x total bet, the maximum is at most "
                    f"{m.max_upper / scale.cost_units:g} x total bet (the largest screen pay plus the largest award)")
            elif not m.max_exact and "max_win" not in m.missing:
                self.notes.append(
                    f"max win of strip set {name!r}: the search stopped at its budget of windows visited; the "
                    f"largest win found is {m.max_units / scale.cost_units:g} x total bet, the maximum is at most "
                    f"{m.max_upper / scale.cost_units:g} x total bet")

    # -- headline numbers -------------------------------------------------
    @cached_property
    def rtp_exact(self) -> Fraction:
        """Exact base-game RTP (lines + scatter pays) as a fraction of the total bet."""
        return sum(self.components_exact.values(), Fraction(0))

    # -- components ---------------------------------------------------------
    @cached_property
    def parts(self) -> dict:
        """The sheet's components, each with its own exact RTP and tables: ``lines``
        (:class:`LinePays`), ``scatter:<name>`` (:class:`ScatterPays`, every group) and
        ``triggers`` (:class:`Triggers`)."""
        out: dict = {self.game.pays.rule: LinePays(self)}
        for name in self.game.scatters:
            out[f"scatter:{name}"] = ScatterPays(self, name)
        for name, trig in self.game.triggers.items():
            if trig.award is not None:
                out[f"bonus:{name}"] = BonusAwards(self, name)
        out["triggers"] = Triggers(self)
        return out

    @cached_property
    def components_exact(self) -> dict:
        """Exact RTP by source: ``lines`` and one ``scatter:<name>`` per paying scatter group."""
        return {name: part.rtp_exact for name, part in self.parts.items()
                if part.rtp_exact is not None and (part.kind != "scatter" or part.pays)}

    @property
    def rtp(self) -> float:
        return float(self.rtp_exact)

    @property
    def components(self) -> dict:
        """RTP by source as floats (x total bet)."""
        return {k: float(v) for k, v in self.components_exact.items()}

    @property
    def statistics(self) -> WinStatistics:
        """Whole-spin statistics (exact: from the state recursion over all lines and scatters); a figure of
        ``missing`` is NaN, or its simulated estimate once :meth:`add_simulated` gave one."""
        exact = self._exact_statistics
        sim = self.simulated
        return WinStatistics(
            rtp=exact.rtp,
            std=sim["std"].value if "std" in sim else exact.std,
            hit_frequency=sim["hit_frequency"].value if "hit_frequency" in sim else exact.hit_frequency,
            max_win=max(exact.max_win, sim["max_win"].value) if "max_win" in sim else exact.max_win,
        )

    @cached_property
    def _exact_statistics(self) -> WinStatistics:
        mean = sum(p * m.mean for p, m in self._moments)
        second = sum(p * m.second for p, m in self._moments)
        cost = self.scale.cost_units
        variance = second - mean * mean
        # second and mean^2 are floats: a zero variance can come out as rounding noise
        variance = variance / cost**2 if variance > 1e-12 * second else 0.0
        return WinStatistics(
            rtp=self.rtp,
            std=math.sqrt(variance) if "std" not in self.missing else math.nan,
            hit_frequency=sum(p * m.hit for p, m in self._moments),
            max_win=max(m.max_units for _, m in self._moments) / cost,
        )

    def add_simulated(self, figures: dict) -> None:
        """Estimates of the figures of ``missing`` by a seeded simulation of the sheet's screens: figure ->
        :class:`SimulatedFigure` ("std", "hit_frequency", "max_win"; the max win is the largest seen, beside the
        exact bound ``max_win_upper``).  Every view then shows them labelled "simulated (N rounds)"."""
        unknown = set(figures) - set(self.missing)
        if unknown:
            raise ValueError(f"{self.game.name}: {sorted(unknown)} are exact in this sheet, not missing")
        self.simulated = {**self.simulated, **figures}

    def source(self, figure: str) -> str:
        """How ``figure`` (a catalogue key) was obtained: "exact", "simulated (N rounds)" or "not computed"."""
        base = DERIVED_FROM.get(figure, figure)
        if base not in self.missing:
            return "exact"
        if base in self.simulated:
            return f"simulated ({self.simulated[base].rounds:,} rounds)"
        return "not computed"

    @property
    def hit_frequency(self) -> float:
        return self.statistics.hit_frequency

    @property
    def std(self) -> float:
        return self.statistics.std

    @property
    def max_win(self) -> float:
        return self.statistics.max_win

    def volatility_index(self, confidence: float = 0.90, *, z: float | None = None) -> float:
        """Volatility index z x std (x total bet); ``z`` overrides the exact quantile (1.65 as printed on many sheets)."""
        return self.statistics.volatility_index(confidence, z=z)

    @cached_property
    def par_hit_frequency(self) -> float:
        """Hit frequency as many PAR sheets count it: paying events per spin, where a line (ways, pay-anywhere)
        win and a scatter win on one spin are two hits (it can exceed the whole-spin hit frequency, and 1)."""
        hits = int(self.line_hits.sum()) if self.line_hits.size else 0
        for part in self.parts.values():
            if part.kind == "scatter" and part.pays:
                hits += sum(int(h) for c, h in enumerate(self.scatter_hits[part.name]) if part.group.pay(c) > 0)
        bonus = 0.0  # every bonus started that pays something is a hit too
        for part in self.parts.values():
            if part.kind == "bonus":
                bonus += self.trigger_counts[part.name]["starts"] * float(1 - part.moments[2])
        return (hits + bonus) / self.cycle

    @cached_property
    def awards(self) -> pd.DataFrame:
        """The table by award value: every distinct spin win (x total bet) with its hits over the cycle, 1 in N,
        % of hits (of paying spins) and % of RTP.

        Exact from the full-cycle distribution (``basis`` "spin"); without it, by
        single award (each line, ways or scatter win on its own, ``basis`` "award"; ``hits`` then counts awards:
        a cluster game's every cluster pays its band's pay, a ways win pays its mean per hit).
        """
        cols = ["award", "hits", "probability", "one_in", "hits_pct", "rtp_pct", "basis"]
        rows = []
        if self.distribution is not None:
            d = self.distribution
            wins, counts = d.wins_units, d.hits
            paying = [(int(u), int(h)) for u, h in zip(wins.tolist(), counts) if u > 0 and h]
            total_hits = sum(h for _, h in paying) or 1
            total_units = sum(u * h for u, h in paying) or 1
            for u, h in paying:
                p = h / self.cycle
                rows.append({"award": u / self.scale.cost_units, "hits": h, "probability": p, "one_in": 1 / p,
                             "hits_pct": 100 * h / total_hits, "rtp_pct": 100 * u * h / total_units, "basis": "spin"})
            return pd.DataFrame(rows, columns=cols)
        merged: dict = {}  # award in pay units (Fraction: ways pay a mean per hit) -> hits
        game, scale = self.game, self.scale
        totals = self.line_hits.sum(axis=0) if self.line_hits.size else []
        units = self.combo_units.sum(axis=0) if self.combo_units is not None else None
        cluster = game.rule.awards_each  # every win an award of its band's pay (not a mean per hit)
        for c, combo in enumerate(self.automaton.combinations):
            hits = int(totals[c])
            if not hits:
                continue
            if units is not None and not cluster:
                award = Fraction(int(units[c]), hits)
            else:
                award = Fraction(scale.units(game.bet.credits(combo.paid, game.bet.line_pay_unit)))
                if cluster:  # every cluster is an award of the band's pay: count the clusters, not the screens
                    hits = int(units[c]) // int(award)
            merged[award] = merged.get(award, 0) + hits
        for name, group in game.scatters.items():
            for count, hits in enumerate(self.scatter_hits[name]):
                award = Fraction(scale.units(game.bet.credits(group.pay(count), group.unit)))
                if award > 0 and hits:
                    merged[award] = merged.get(award, 0) + int(hits)
        total_hits = sum(merged.values()) or 1
        total = sum(a * h for a, h in merged.items()) or 1
        for a in sorted(merged):
            h = merged[a]
            p = h / self.cycle
            rows.append({"award": float(a / scale.cost_units), "hits": h, "probability": p, "one_in": 1 / p,
                         "hits_pct": 100 * h / total_hits, "rtp_pct": float(100 * a * h / total), "basis": "award"})
        return pd.DataFrame(rows, columns=cols)

    def confidence_band(self, n_spins: int, confidence: float = 0.95) -> tuple[float, float]:
        return self.statistics.confidence_band(n_spins, confidence)

    def scatter_counts(self, name: str) -> ScatterCounts:
        """Exact count distribution of scatter group ``name`` (mixed over strip sets)."""
        return ScatterCounts(self.game.scatters[name], tuple(self.scatter_hits[name]), self.cycle)

    def trigger_probability(self, name: str) -> float:
        """Probability per spin that trigger ``name`` fires (exact)."""
        return self.trigger_hits(name) / self.cycle

    def trigger_line_probability(self, name: str) -> float:
        """Combination triggers of lines games: the probability that one given payline triggers, averaged over the lines."""
        hits = self.trigger_counts[name]["line_hits"]
        return sum(hits) / (len(hits) * self.cycle) if len(hits) else math.nan

    def trigger_hits(self, name: str) -> int:
        """Screens (weighted, over the sheet's cycle) on which trigger ``name`` fires."""
        trig = self.game.triggers[name]
        if trig.combination is not None:
            return self.trigger_counts[name]["hits"]
        return self.scatter_counts(trig.scatter).hits_at_least(trig.min_count)

    @cached_property
    def trigger_counts(self) -> dict:
        """Combination triggers' integer counts over the sheet's cycle: ``hits``, ``starts`` (bonuses started), ``starts_sq``,
        ``pay_cross`` (None unless it pays an award) and ``line_hits`` (per payline)."""
        out = {}
        active = [a for a in self.analyses if a.strip_set.weight > 0]
        for name, trig in self.game.triggers.items():
            if not active or name not in active[0].trigger_counts:
                continue
            entry = {}
            for field in ("hits", "starts", "starts_sq", "pay_cross"):
                if any(getattr(a.trigger_counts[name], field) is None for a in active):
                    entry[field] = None
                    continue
                _, (value,) = _mix_counts([(a.strip_set.weight, a.cycle, [getattr(a.trigger_counts[name], field)]) for a in active])
                entry[field] = value
            lines = len(active[0].trigger_counts[name].line_hits)
            _, entry["line_hits"] = _mix_counts([(a.strip_set.weight, a.cycle, list(a.trigger_counts[name].line_hits) or [0])
                                                 for a in active]) if lines else (0, [])
            out[name] = entry
        return out

    # -- tables -------------------------------------------------------------
    @cached_property
    def symbol_counts(self) -> pd.DataFrame:
        """Stops (weights on weighted strips) per symbol and reel, one block per strip set of the file (a set holding
        mystery symbols counts them as they are, not per reveal)."""
        from ..model.mystery import mystery_symbols

        frames = []
        sets = self.game.strip_sets_for(self.mode) if mystery_symbols(self.game) else [a.strip_set for a in self.analyses]
        for strip_set in sets:
            data = {}
            for i, strip in enumerate(strip_set.reels):
                counts = dict.fromkeys(self.game.symbols, 0)
                for sym, w in zip(strip.symbols, strip.stop_weights.tolist()):
                    counts[sym] += w
                data[f"reel {i + 1}"] = counts
            df = pd.DataFrame(data)
            df.loc["total"] = df.sum()
            df.index.name = "symbol"
            df.insert(0, "strip_set", strip_set.name)
            frames.append(df)
        return pd.concat(frames)

    @property
    def combinations(self) -> pd.DataFrame:
        """Paying combinations: lines, ways or pay-anywhere counts (see :class:`LinePays`)."""
        return self.parts[self.game.pays.rule].combinations

    @property
    def per_line(self) -> pd.DataFrame:
        """Per payline statistics (see :class:`LinePays`); empty for ways and scatter_pays games."""
        if not self.game.pays.is_lines:
            return pd.DataFrame(columns=["rows", "rtp", "rtp_contribution", "hit_frequency", "std", "volatility_index_90",
                                         "volatility_index_95", "max_win"]).rename_axis("line")
        return self.parts["lines"].per_line

    @cached_property
    def scatter_pays(self) -> pd.DataFrame:
        """Every scatter group's table (see :class:`ScatterPays`), one after the other."""
        rows = [row for part in self.parts.values() if part.kind == "scatter" for row in part.rows()]
        return pd.DataFrame(rows, columns=SCATTER_COLUMNS)

    @property
    def triggers(self) -> pd.DataFrame:
        """Feature triggers (see :class:`Triggers`)."""
        return self.parts["triggers"].table

    @cached_property
    def prize_structure(self) -> pd.DataFrame:
        """Hits % and pays % by award level (x total bet).

        From the whole-spin distribution when the full cycle was enumerated
        (``basis`` = "spin"), otherwise from the line, ways, cluster and scatter
        awards (``basis`` = "award": awards per spin at each level; every
        cluster is an award of its band's pay).
        """
        levels = list(PRIZE_LEVELS) + [math.inf]
        if self.distribution is not None:
            values = self.distribution.values
            probs = self.distribution.probabilities
            basis = "spin"
        else:
            bet = self.game.bet
            combos = self.combinations
            scat = self.scatter_pays[self.scatter_pays["pay"] > 0]
            line_unit = float(bet.in_total_bets(Fraction(1), bet.line_pay_unit))
            scat_unit = np.array([float(bet.in_total_bets(Fraction(1), u)) for u in scat["unit"]])
            award = combos["pay"].to_numpy() * line_unit
            per_spin = combos["hits"].to_numpy(dtype=float) / self.cycle
            if self.combo_units is not None and self.game.rule.awards_each:
                # every cluster is an award of its band's pay: clusters per spin, not screens
                per_spin = self.combo_units.sum(axis=0).astype(float) / np.maximum(award * self.scale.cost_units, 1e-300) / self.cycle
            elif self.combo_units is not None:  # ways: the pay of a hit depends on its ways; use the mean per hit
                hits = np.maximum(combos["hits"].to_numpy(dtype=float), 1.0)
                award = self.combo_units.sum(axis=0).astype(float) / hits / self.scale.cost_units
            values = np.concatenate([award, scat["pay"].to_numpy() * scat_unit, [0.0]])
            probs = np.concatenate([per_spin, scat["probability"].to_numpy(), [0.0]])
            basis = "award"
        rows = []
        total_pay = float(np.sum(values * probs)) or 1.0
        total_hits = float(np.sum(probs[values > 0])) or 1.0
        for lo, hi in zip(levels[:-1], levels[1:]):
            mask = (values > 0) & (values >= lo) & (values < hi) if lo == 0 else (values >= lo) & (values < hi)
            p = float(probs[mask].sum())
            rows.append({
                "level": f"{lo:g}x - {hi:g}x" if hi != math.inf else f"{lo:g}x +",
                "from": lo,
                "to": hi,
                "probability": p,
                "one_in": 1 / p if p else math.inf,
                "hits_pct": 100 * p / total_hits,
                "pays_pct": 100 * float(np.sum(values[mask] * probs[mask])) / total_pay,
                "basis": basis,
            })
        return pd.DataFrame(rows)

    @cached_property
    def summary(self) -> pd.Series:
        """Headline numbers of the sheet: game and mode, then every figure of the catalogue
        (:mod:`workbench.figures`), key -> value (trigger rates as probabilities per spin)."""
        data = {"game": self.game.name, "mode": self.mode}
        data.update({v.key: v.value for v in figures_of(self)})
        return pd.Series(data, name="value")

    def to_dict(self) -> dict:
        """JSON-ready summary (x total bet)."""
        scatters = {k.split(":", 1)[1]: v for k, v in self.components.items() if k.startswith("scatter:")}
        return {
            "game": self.game.name,
            "mode": self.mode,
            "rtp": self.rtp,
            "rtp_exact": str(self.rtp_exact),
            "hit_frequency": self.hit_frequency,
            "std": self.std,
            "volatility_index_90": self.volatility_index(0.90),
            "volatility_index_95": self.volatility_index(0.95),
            "max_win": self.max_win,
            "cycle": self.cycle,
            "components": {
                self.game.pays.rule: self.components.get(self.game.pays.rule, 0.0),
                "scatters": scatters,
                "triggers": {k: self.trigger_probability(k) for k in self.game.triggers},
                **({"bonuses": {k.split(":", 1)[1]: v for k, v in self.components.items() if k.startswith("bonus:")}}
                   if any(t.award for t in self.game.triggers.values()) else {}),
            },
            "full_cycle_distribution": self.distribution is not None,
            "distribution_note": self.distribution_note,
            "max_win_exact": self.max_win_exact,
            "notes": list(self.notes),
            # every figure of the catalogue, as every view shows it (workbench.figures)
            "figures": {v.key: {"label": v.label, "value": _json_value(v.value), "unit": v.unit, "source": v.source,
                                **({"ci95": v.ci95} if v.ci95 is not None else {})}
                        for v in figures_of(self)},
            "missing": dict(self.missing),
        }

    def figures(self, *, editor: bool | None = None) -> list:
        """The catalogue's figures of this sheet (:func:`workbench.figures.figures_of`)."""
        return figures_of(self, editor=editor)

    def to_excel(self, path) -> None:
        """Write every table to an .xlsx workbook, one sheet per table, as raw DataFrames.

        For the formatted PAR workbook labs exchange (Summary with the whole-game
        RTP and every mode, human headers, number formats, exact counts, strips,
        paytable, provenance) use :func:`workbench.report.workbook.write_par_workbook`
        (``workbench par --xlsx`` and the report write that one).
        """
        from .._atomic import write_output

        def write(buffer) -> None:
            with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
                self.summary.to_frame().to_excel(writer, sheet_name="summary")
                self.symbol_counts.to_excel(writer, sheet_name="symbol_counts")
                self.combinations.to_excel(writer, sheet_name="combinations", index=False)
                self.per_line.to_excel(writer, sheet_name="per_line")
                self.scatter_pays.to_excel(writer, sheet_name="scatter_pays", index=False)
                self.triggers.to_excel(writer, sheet_name="triggers", index=False)
                self.prize_structure.to_excel(writer, sheet_name="prize_structure", index=False)
                self.awards.to_excel(writer, sheet_name="awards", index=False)

        write_output(path, write)  # made in memory, then written atomically: a failure leaves the previous file

    def __repr__(self) -> str:
        return (f"ParSheet({self.game.name!r}, mode={self.mode!r}, rtp={self.rtp:.6f}, "
                f"hit_frequency={self.hit_frequency:.4f}, std={self.std:.3f})")


def _json_value(value):
    """A figure's value as JSON holds it: an exact fraction as "n/d", infinity as None."""
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def par(game: Game, mode: str = "base", *, full_cycle: bool | str = "auto", budget: int = DEFAULT_BUDGET,
        max_nodes: int = MAX_SEARCH_NODES, quick: bool = False) -> ParSheet:
    """Exact PAR sheet of ``game`` in ``mode`` (strip sets of that mode mixed by weight).

    ``full_cycle``: "auto" enumerates the whole-spin distribution when it fits
    ``budget`` (distinct window combinations; see
    :func:`~workbench.exact.enumerate.full_cycle_refusal`), else leaves it out
    and says why in ``sheet.distribution_note``; True requires it (raises
    :class:`~workbench.errors.ExactBudgetError` if over budget); False skips it.
    The max-win search stops after about ``max_nodes`` windows (then
    ``sheet.max_win_exact`` is False and ``sheet.notes`` gives the bounds).

    Every other part's size is checked for every strip set before any work
    starts (:func:`check_strip_set_budget`): a game too large for them raises
    :class:`~workbench.errors.ExactBudgetError` naming what is too large, its
    size and the limit.

    Wilds whose multiplier is drawn from a table per landing are priced as the
    variant game of :mod:`.variants` over expanded windows: the cycle counts the
    draws (x T^rows per reel holding such a wild) and the combinations are listed
    per multiplier.

    ``quick``: the editors' figures, recomputed at every edit: a rule whose exact figures beyond the RTP take long
    on this game (cluster pays on long strips) leaves them out (``sheet.missing``; :func:`workbench.simulate.complete_par`
    simulates them), so the RTP comes back within a fraction of a second.
    """
    strip_sets = game.played_strip_sets(mode)
    if not strip_sets:
        raise WorkbenchError(f"{game.name}: no strip set has mode {mode!r} (modes: {', '.join(game.modes)})")
    game = game.in_strip_mode(mode)  # its symbols as the mode shows them ([symbols] by_mode)
    scale = pay_scale(game)
    if not game.pays.is_lines:
        return _rule_par(game, mode, strip_sets, scale, full_cycle, budget, quick)
    sheet_game = game
    from .variants import expanded_strip_set, has_table_wilds, variant_game

    if has_table_wilds(game):
        # multipliers drawn per landing: the variant game (a fixed-multiplier wild per table multiplier) on
        # every strip set's expanded windows, row weights and cycle (exact.variants); the sheet is of ``game``
        game = variant_game(sheet_game)
        strip_sets = [expanded_strip_set(sheet_game, s, game) for s in strip_sets]
        windows = [list(s.windows) for s in strip_sets]
    else:
        windows = None
    # without the full cycle, a strip set's analysis depends only on it and the rest of the game: an edit of one
    # strip set (the editors, the tuner) re-analyses that set alone
    structure = structure_key(game) if full_cycle is False and windows is None else None
    if windows is None:
        windows = [_set_cached(structure, s, "windows", lambda s=s: strip_set_windows(game, s)) for s in strip_sets]
    automaton = line_automaton(game)
    plans = [_set_cached(structure, s, "plan", lambda s=s, w=w: check_strip_set_budget(game, s, w, automaton, scale))
             for s, w in zip(strip_sets, windows)]
    work = sum(p.work for p in plans)
    if work > MODE_WORK_MAX:
        raise ExactBudgetError(
            f"{game.name}: the exact analysis of mode {mode!r} ({len(strip_sets)} strip sets) takes up to {work:,} steps, "
            f"over the budget of {MODE_WORK_MAX:,}"
        )
    # the full cycle's budget is for the mode: all its strip sets together
    mode_refusal = None
    if full_cycle is True or full_cycle == "auto":
        combos = sum(window_combinations(w) for w in windows)
        steps = combos * (len(game.paylines) + len(scatter_pay_tables(game, scale).index))
        if len(strip_sets) > 1 and combos > budget:
            mode_refusal = (f"the full cycles of the {len(strip_sets)} strip sets of mode {mode!r} have {combos:,} distinct "
                            f"window combinations together, over the budget of {budget:,}")
        elif len(strip_sets) > 1 and steps > budget * WORK_PER_COMBINATION:
            mode_refusal = (f"the full cycles of the {len(strip_sets)} strip sets of mode {mode!r} take {steps:,} steps "
                            f"(combinations x lines and scatter groups) together, over the budget of "
                            f"{budget * WORK_PER_COMBINATION:,}")
    if full_cycle is True:
        if mode_refusal:
            raise ExactBudgetError(f"{game.name}: {mode_refusal}")
        for s, w in zip(strip_sets, windows):
            reason = full_cycle_refusal(game, s, w, automaton, scale, budget)
            if reason is not None:
                raise ExactBudgetError(f"{game.name}: {reason}")
    analyses = []
    nodes_left = max_nodes
    for s, w, plan in zip(strip_sets, windows, plans):
        # one max-win search budget for the mode, used by the strip sets in order
        # cached analyses get an even share of the budget (so a set's analysis does not depend on its neighbours)
        nodes = max(max_nodes // len(strip_sets), 1) if structure is not None else max(nodes_left, 1)
        a = _set_cached(structure, s, ("analysis", budget, nodes),
                        lambda s=s, w=w, plan=plan, nodes=nodes: analyse_strip_set(game, s, automaton, scale, full_cycle, budget,
                                                                                 w, plan, nodes, mode_refusal))
        nodes_left -= a.moments.max_nodes
        analyses.append(a)
    return ParSheet(sheet_game, mode, analyses, automaton, scale, full_cycle)


def _rule_analysis(game: Game, strip_set: StripSet, scale: PayScale, full_cycle: bool | str,
                   budget: int, quick: bool = False) -> tuple[StripSetAnalysis, tuple]:
    """Exact analysis of one strip set of a ways, scatter_pays or cluster game, in the sheet's form, and its combinations."""
    analyse = rules.part(game.rule, "analysis")  # the rule's exact analysis (model.rules)
    r = analyse(game, strip_set, scale, full_cycle=full_cycle, budget=budget, quick=quick)
    if full_cycle is True and r.histogram is None:
        raise ExactBudgetError(f"{game.name}: {r.cycle_note}")
    n = len(r.combinations)
    hits = np.array([int(h) for h in r.combo_hits] or [0], dtype=object)[:n].reshape(1, n)
    units = np.array([int(u) for u in r.combo_units] or [0], dtype=object)[:n].reshape(1, n)
    moments = np.array([[0, sum(int(u) for u in r.combo_units), 0]], dtype=object)
    scatters = {name: scatter_counts(game, r.windows, name) for name in game.scatters}
    note = r.cycle_note if full_cycle is not False else None
    counts = _combination_triggers(game, strip_set, r.windows, None, scale)
    spin, base = r.moments, None
    if any(t.award for t in game.triggers.values()):
        base = r.moments
        spin = _with_awards(game, strip_set, scale, r.moments, counts)
    return (StripSetAnalysis(strip_set, r.cycle, hits, moments, scatters, spin, r.histogram, note, combo_units=units,
                             trigger_counts=counts, base_moments=base),
            tuple(r.combinations))


# "auto" full cycles of ways and scatter_pays games: each screen is evaluated whole (about 20 ns), so the
# default stops near a second; full_cycle=True takes the caller's budget
RULE_AUTO_CYCLE_BUDGET = 50_000_000


def _rule_par(game: Game, mode: str, strip_sets: list, scale: PayScale, full_cycle: bool | str, budget: int,
              quick: bool = False) -> "ParSheet":
    """The PAR sheet of a ways or scatter_pays game (see :func:`par`)."""
    if full_cycle == "auto":
        budget = min(budget, RULE_AUTO_CYCLE_BUDGET)
    # without the full cycle a strip set's analysis depends on it and the rest of the game only: an edit of one strip
    # set (the editors, the tuner) re-analyses that set alone, and a second look at the same game reuses it
    structure = structure_key(game) if full_cycle is False else None
    results = [_set_cached(structure, s, ("rule", budget, quick),
                           lambda s=s: _rule_analysis(game, s, scale, full_cycle, budget, quick)) for s in strip_sets]
    combos = results[0][1]
    for _, other in results[1:]:
        if other != combos:  # they depend on the paytable only, so this is a bug in the engine
            raise WorkbenchError(f"{game.name}: strip sets of mode {mode!r} list different combinations")
    return ParSheet(game, mode, [a for a, _ in results], RuleCombinations(combos), scale, full_cycle)
