"""Result objects of simulations, in the spirit of scipy.stats results.

All amounts are in multiples of what the round costs: the total bet in the
base game, the bet mode's own price in a ``[bet_modes.*]`` mode (a 100x buy
returning 104.5 x the base bet reads ``rtp`` 1.045); ``unit`` says which, and
``mode_cost`` is that price x the base game's total bet.  ``rtp`` values are
fractions (0.946 = 94.6 %); ``*_ci95`` are 95 % confidence half-widths.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..stats import WinStatistics
from .chunks import BUCKET_EDGES, ChunkResult
from .jackpots import JackpotRun
from .limits import limit_notes
from .model import RoundModel

Z95 = 1.959963984540054


def mode_cost(model: RoundModel) -> float:
    """What one round of the model's bet mode costs, x the base game's total bet (1 in the base game)."""
    return float(model.game.bet_mode.cost)


def unit_label(model: RoundModel) -> str:
    """The unit every amount of a result of this model is given in."""
    mode = model.game.bet_mode
    if mode.name == "base" and mode.cost == 1:
        return "x total bet"
    return f"x the cost of bet mode {mode.name} ({float(mode.cost):g} x total bet)"


@dataclass(frozen=True)
class Estimate:
    """A value with its 95 % confidence half-width and where it comes from
    (``exact``, ``simulated``, ``conditional`` or ``analytic``)."""

    value: float
    ci95: float = 0.0
    source: str = "simulated"

    def to_dict(self) -> dict:
        return {"value": self.value, "ci95": self.ci95, "source": self.source}


@dataclass(frozen=True)
class FeatureStats:
    """How often a feature starts (per paid round) and what it pays on average (x total bet)."""

    name: str
    starts: int
    frequency: float
    average_win: float

    @property
    def one_in(self) -> float:
        return 1 / self.frequency if self.frequency else math.inf


class SimulationResult(WinStatistics):
    """End-to-end simulation of whole rounds.

    Attributes: ``spins`` (rounds played), ``rtp`` (total, jackpots included)
    and ``rtp_ci95``, ``game_rtp``, ``jackpot_rtp``, ``components`` (name ->
    :class:`Estimate`), ``hit_frequency``, ``std``, ``max_win`` and
    ``max_win_count``, ``cap_fraction``, ``counters`` (event name -> count), ``features`` (name ->
    :class:`FeatureStats`), ``options`` (player choice -> RTP if always
    chosen), ``bucket_edges`` / ``bucket_counts`` (win distribution, x total
    bet), ``spins_per_second``, ``interrupted``.
    """

    def __init__(self, model: RoundModel, total: ChunkResult, *, seed: int, requested: int, elapsed: float,
                 interrupted: bool = False, jackpots: JackpotRun | None = None, trace=None):
        self.model = model
        self.trace = trace  # running game RTP per completed chunk (DataFrame: spins, rtp, ci95)
        self.seed = seed
        self.requested = requested
        self.elapsed = elapsed  # seconds spinning (set-up apart: setup_seconds)
        self.setup_seconds = 0.0  # building the round model and its tables (set by simulate)
        self.interrupted = interrupted
        self.stopped_by = "interrupted" if interrupted else "spins"  # or "time box" (set by simulate)
        self.raw = total
        self.max_win_block = None  # the block of the largest win (set by simulate)
        self.locate_max_win = None  # result -> its max_win_round (set by simulate)
        self._max_win_round = None
        #: one round's price in pay units: the base total bet x the bet mode's cost (every amount is x this)
        cost = model.params.cost_units * mode_cost(model)
        n = total.rounds
        self.spins = n
        self.cost_units = model.params.cost_units  # the base game's total bet in pay units
        self.mode_cost = mode_cost(model)
        self.unit = unit_label(model)
        mean = total.won / n if n else 0.0
        var = max(total.won_squares / n - mean * mean, 0.0) if n else 0.0
        self.game_rtp = mean / cost
        game_ci = Z95 * math.sqrt(var / n) / cost if n else math.inf
        self.jackpots = jackpots
        self.jackpot_rtp = jackpots.rtp if jackpots else 0.0
        jackpot_ci = jackpots.rtp_ci95 if jackpots else 0.0
        self.rtp_ci95 = math.sqrt(game_ci**2 + jackpot_ci**2)
        self.components = {}
        for k, name in enumerate(model.components):
            s = total.comp_sum[k]
            m = s / n if n else 0.0
            v = max(total.comp_sq[k] / n - m * m, 0.0) if n else 0.0
            self.components[name] = Estimate(m / cost, Z95 * math.sqrt(v / n) / cost if n else math.inf)
        if jackpots is not None:
            self.components["jackpots"] = Estimate(self.jackpot_rtp, jackpot_ci)
        jack_second = jackpots.paid_squares / n if jackpots and n else 0.0
        # jackpots are independent of the game: E[(G+J)^2] = E[G^2] + 2 E[G] E[J] + E[J^2]
        second = var / cost**2 + self.game_rtp**2 + 2 * self.game_rtp * self.jackpot_rtp + jack_second
        total_rtp = self.game_rtp + self.jackpot_rtp
        super().__init__(
            rtp=total_rtp,
            std=math.sqrt(max(second - total_rtp**2, 0.0)),
            hit_frequency=total.hits / n if n else 0.0,
            max_win=total.max_win_units / cost,
        )
        self.max_win_count = total.max_win_count
        # the compiled buckets are x the base total bet: the same buckets, x the mode's cost
        self.bucket_edges = BUCKET_EDGES / self.mode_cost
        self.bucket_counts = total.hist.copy()
        counters = dict(zip(model.counters, total.counters.tolist()))
        self.counters = counters
        self.cap_fraction = counters.get("cap", counters.get("max_win", 0)) / n if n else 0.0
        # the bet mode's max_win (RoundModel.max_win_units): rounds that reached it, per round
        self.max_win_probability = counters.get("max_win", 0) / n if n else 0.0
        self.max_win_probability_ci95 = (Z95 * math.sqrt(self.max_win_probability * (1 - self.max_win_probability) / n)
                                         if n else math.inf)
        #: each counter's events per round (what the safety maximums' notes read)
        self.counter_rates = {k: v / n for k, v in counters.items()} if n else {}
        self.features = {}
        for f in model.features:
            starts = counters.get(f.counter, 0)
            paid = sum(total.comp_sum[model.components.index(c)] for c in f.components)
            self.features[f.name] = FeatureStats(f.name, starts, starts / n if n else 0.0,
                                                 paid / starts / cost if starts else 0.0)
        self.options = {}
        for opt in model.options:
            chosen = self.components[opt.chosen].value
            self.options[opt.name] = {alt: self.rtp - chosen + self.components[comp].value for alt, comp in opt.alternatives.items()}

    def component_totals(self) -> dict[str, Fraction]:
        """Component -> total paid over the run, exactly, x the mode's cost (sum over rounds, not a mean)."""
        price = self.cost_units * self.model.game.bet_mode.cost
        return {name: Fraction(int(self.raw.comp_sum[k])) / price for k, name in enumerate(self.model.components)}

    @property
    def total_won_units(self) -> int:
        """What the rounds paid in all, in pay units (an exact integer sum; jackpots not included)."""
        return self.raw.won

    def total_won(self) -> Fraction:
        """What the rounds paid in all, exactly, x the mode's cost (jackpots not included)."""
        return Fraction(self.total_won_units) / (self.cost_units * self.model.game.bet_mode.cost)

    @property
    def max_win_units(self) -> int:
        """The largest round win, in pay units."""
        return self.raw.max_win_units

    @property
    def max_win_round(self):
        """The first round that paid the largest win, replayed (:class:`~workbench.simulate.replay.ReplayedRound`:
        its index, components and counters; ``workbench replay GAME --seed S --round N`` plays it again); None when
        no round won or the result was not made by :func:`~workbench.simulate.simulate`.  Found when first asked for,
        in the block the run recorded."""
        if self._max_win_round is None and self.max_win_units > 0 and self.locate_max_win is not None:
            self._max_win_round = self.locate_max_win(self)
        return self._max_win_round

    @property
    def spins_per_second(self) -> float:
        return self.spins / self.elapsed if self.elapsed > 0 else math.inf

    @property
    def limit_notes(self) -> list[str]:
        """A sentence for each safety maximum (``max_free_spins``, ``max_cascades``) the rounds met."""
        return limit_notes(self.model.game.features, self.counter_rates, self.counters, self.spins, "rounds")

    def to_dict(self) -> dict:
        nonzero = np.flatnonzero(self.bucket_counts)
        return {
            "game": self.model.game.name,
            "bet_mode": self.model.game.bet_mode.name,
            "unit": self.unit,
            "mode_cost_x_total_bet": self.mode_cost,
            "spins": self.spins,
            "requested_spins": self.requested,
            "max_win_round": self.max_win_round.round if self.max_win_round is not None else None,
            "interrupted": self.interrupted,
            "stopped_by": self.stopped_by,
            "seed": self.seed,
            "stake": self.model.stake,
            "rtp": self.rtp,
            "rtp_ci95": self.rtp_ci95,
            "game_rtp": self.game_rtp,
            "jackpot_rtp": self.jackpot_rtp,
            "components": {k: v.to_dict() for k, v in self.components.items()},
            "hit_frequency": self.hit_frequency,
            "std": self.std,
            "volatility_index_90": self.volatility_index(0.90),
            "volatility_index_95": self.volatility_index(0.95),
            "max_win": self.max_win,
            "max_win_count": self.max_win_count,
            "cap_fraction": self.cap_fraction,
            "max_win_probability": self.max_win_probability,
            "features": {k: {"starts": f.starts, "one_in": f.one_in, "average_win": f.average_win} for k, f in self.features.items()},
            "counters": {k: int(v) for k, v in self.counters.items()},
            "notes": self.limit_notes,
            "options": self.options,
            "win_distribution": {
                "bucket_from": [float(BUCKET_EDGES[i]) for i in nonzero],
                "bucket_to": [float(BUCKET_EDGES[i + 1]) if i + 1 < len(BUCKET_EDGES) else None for i in nonzero],
                "count": [int(self.bucket_counts[i]) for i in nonzero],
            },
            "elapsed_seconds": self.elapsed,
            "setup_seconds": self.setup_seconds,
            "spins_per_second": self.spins_per_second,
        }


@dataclass(frozen=True)
class StratumEstimate:
    """A trigger state of the exact + conditional method."""

    name: str
    probability: float
    samples: int
    mean_extra: float  # x total bet, E[round win - base screen win | state] (under a cap the first screen counts at most the cap)
    ci95: float  # of mean_extra

    @property
    def contribution(self) -> float:
        return self.probability * self.mean_extra


@dataclass(frozen=True)
class BaseScreenCap:
    """What a max-win cap of ``cap_units`` takes from the unmodified first screen B alone, exactly, per spin
    (pay units): ``excess_units`` = E[(B - cap)+], ``square_excess_units`` = E[B^2 - min(B, cap)^2],
    ``probability`` = P(B >= cap).  Used by :class:`RtpEstimate` when the first screen can reach the cap."""

    cap_units: int
    excess_units: Fraction
    square_excess_units: Fraction
    probability: Fraction
    square_cut_units: Fraction = Fraction(0)  # E[((B - cap)+)^2]: the square of what the cap takes, per spin

    @classmethod
    def from_distribution(cls, distribution, cap_units: int) -> "BaseScreenCap":
        """From the exact full-cycle distribution of the first screen (a :class:`~workbench.stats.WinDistribution`)."""
        cycle = distribution.cycle
        excess = square = reach = cut = 0
        for w, h in zip(distribution.wins_units.tolist(), distribution.hits):
            if w >= cap_units:
                reach += h
                excess += (w - cap_units) * h
                square += (w * w - cap_units * cap_units) * h
                cut += (w - cap_units) * (w - cap_units) * h
        return cls(int(cap_units), Fraction(excess, cycle), Fraction(square, cycle), Fraction(reach, cycle),
                   Fraction(cut, cycle))


def exact_second_moments(sheet) -> dict:
    """E[component^2] per spin (x total bet squared) of each exact first-screen component of ``sheet``: a scatter
    group's from its pays by count (one count per screen), any other's bounded by the whole first screen's
    E[B^2] (a component of B is at most B).  What an end-to-end run of n rounds should show as the component's
    spread (:mod:`workbench.simulate.agreement`), when it sees a rare pay too seldom to measure it."""
    components = getattr(sheet, "components", {})
    if not components:
        return {}
    whole = float(sheet.std) ** 2 + float(sheet.rtp) ** 2
    out = {name: whole for name in components}
    table = getattr(sheet, "scatter_pays", None)
    if table is not None and len(table):
        for name, rows in table.groupby("scatter"):
            key = f"scatter:{name}"
            if key in out:
                out[key] = float(sum(r * r / q for r, q in zip(rows["rtp"], rows["probability"]) if q > 0))
    return out


class _NoBaseGame:
    """The base-game part of a bet mode that buys its feature: no base spin, nothing exact."""

    components: dict = {}
    rtp = 0.0
    std = 0.0
    hit_frequency = 0.0
    max_win = 0.0


NO_BASE_GAME = _NoBaseGame()


class RtpEstimate(WinStatistics):
    """RTP by the exact + conditional method.

    ``rtp`` = exact base game + sum over trigger states of P(state) x E[extra
    win | state] + jackpots.  ``components`` map names to :class:`Estimate`
    (exact, conditional or analytic); ``strata`` list the trigger states;
    ``rtp_ci95`` combines the states' half-widths.  Every amount (RTP, components, std, max win, the strata's
    mean extra) is x the cost of the bet mode played (``unit``; the total bet in the base game).
    """

    def __init__(self, model: RoundModel, sheet, strata_results: dict, *, seed: int, elapsed: float,
                 precision: float, interrupted: bool = False, jackpot_rtp: float = 0.0,
                 base_cap: "BaseScreenCap | None" = None):
        self._describe_run(model, sheet, seed, elapsed, precision, interrupted)
        cost = self.cost_units
        self.components = {k: Estimate(v, 0.0, "exact") for k, v in sheet.components.items()}
        # a paid spin whose exact first screen could not be computed (over a budget: estimate_rtp plays every round
        # end to end): the first screen's components and mean are simulated with the rest of the round
        simulated_first = sheet is NO_BASE_GAME and not model.game.bet_mode.buy
        #: E[component^2] per natural round of each simulated component (its spread over single rounds, which an
        #: end-to-end run of n rounds should show as std / sqrt(n): workbench.simulate.agreement)
        self.component_second_moments = {}
        base_second = sheet.std**2 + sheet.rtp**2
        extra = 0.0
        var = 0.0
        second = base_second
        hit = sheet.hit_frequency
        top = sheet.max_win
        comp_mean = np.zeros(len(model.components))
        comp_var = np.zeros(len(model.components))
        comp_second = np.zeros(len(model.components))  # E[component^2] per round (rounds in no state pay none)
        counted = []  # (P(state), rounds, counters) of each state played
        cap_units = int(getattr(model, "max_win_units", 0) or 0)
        hits_slot = model.counters.index("max_win") if cap_units else -1
        base_slot = model.counters.index("max_win:base") if cap_units else -1
        # P(a round reaches max_win): exactly when the base screen alone does, + the strata's other rounds
        cap_p = float(base_cap.probability) if base_cap is not None else 0.0
        cap_var = 0.0
        if base_cap is not None:  # what the cap takes from the base screen alone, over every spin (exact)
            extra -= float(base_cap.excess_units)
            second -= float(base_cap.square_excess_units) / cost**2
            if "cap" in model.components:
                comp_mean[model.components.index("cap")] -= float(base_cap.excess_units)
        self.strata = []
        for index, stratum in enumerate(model.strata):
            p = float(stratum.probability)
            res = strata_results.get(index)
            n = res.rounds if res is not None else 0
            if n == 0:
                self.strata.append(StratumEstimate(stratum.name, p, 0, math.nan, math.inf))
                if p > 0:
                    var = math.inf
                continue
            mx = res.extra_sum / n  # extra win, with any Rao-Blackwell adjustments
            vx = max(res.extra_squares / n - mx * mx, 0.0)
            if simulated_first and stratum.end_to_end:  # no exact first screen: the whole round's win is the extra
                mx = res.won / n
                vx = max(res.won_squares / n - mx * mx, 0.0)
            extra += p * mx
            var += p * p * vx / n
            top = max(top, res.max_win_units / cost)
            if stratum.end_to_end:
                # every round played whole (simulate/plan.py): the RTP is the exact first screen + E[round - first
                # screen]; the spread, hit frequency and P(cap) are those of the rounds themselves
                second = res.won_squares / n / cost**2
                hit = res.hits / n
                if cap_units:
                    q = res.counters[hits_slot] / n
                    cap_p, cap_var = q, q * (1 - q) / n
            else:
                second += p * (res.won_squares - res.base_squares) / n / cost**2
                hit += p * (res.hits - res.base_hits) / n
                if cap_units:
                    q = (res.counters[hits_slot] - res.counters[base_slot]) / n
                    cap_p += p * q
                    cap_var += p * p * q * (1 - q) / n
            counted.append((p, n, res.counters))
            m = (res.comp_sum + res.comp_adj) / n
            comp_mean += p * m
            comp_var += p * p * np.maximum(res.comp_sq / n - m * m, 0.0) / n
            comp_second += p * res.comp_sq_raw / n  # realized amounts (adjustments lower the spread)
            self.strata.append(StratumEstimate(stratum.name, p, n, mx / cost, Z95 * math.sqrt(vx / n) / cost))
        self._count_events(counted)
        if math.isinf(var):  # a state with probability but no rounds: its components are not known at all
            comp_var[:] = math.inf
        self._add_simulated_components(comp_mean, comp_var, comp_second, simulated_first, base_cap)
        self.component_second_moments.update(exact_second_moments(sheet))
        if model.jackpots:
            self.components["jackpots"] = Estimate(jackpot_rtp, 0.0, "analytic")
        if cap_units:
            top = min(top, cap_units / cost)
        self.max_win_units = cap_units
        self.base_cap = base_cap
        #: P(a round reaches the bet mode's max_win) and its 95 % half-width (0 without a cap)
        self.max_win_probability = cap_p
        self.max_win_probability_ci95 = Z95 * math.sqrt(cap_var)
        game_rtp = sheet.rtp + extra / cost
        std = math.sqrt(max(second - game_rtp**2, 0.0))
        # everything above is x the base total bet; a bet mode's figures are x its own cost
        per = self.mode_cost
        if per != 1:
            self._per_mode_cost(per)
        self.game_rtp = game_rtp / per
        self.jackpot_rtp = jackpot_rtp / per
        self.rtp_ci95 = Z95 * math.sqrt(var) / cost / per if math.isfinite(var) else math.inf
        rtp = self.game_rtp + self.jackpot_rtp
        super().__init__(rtp=rtp, std=std / per, hit_frequency=hit, max_win=top / per)
        self.samples = sum(s.samples for s in self.strata)
        self.options = self._option_rtps()

    @property
    def hit_frequency_ci95(self) -> float:
        """A 95 % half-width of :attr:`hit_frequency`: a binomial bound over the trigger states (each state's rounds
        counted as coin flips of the largest variance, 1/4: z x the root of the sum of p_s^2 / (4 n_s)), plus the
        whole probability p_s of a state that played no rounds (its share of the hits lies anywhere in [0, p_s]);
        0 when every part is exact."""
        played = [s for s in self.strata if s.samples > 0]
        unplayed = sum(float(s.probability) for s in self.strata if s.samples == 0)
        return Z95 * math.sqrt(sum(float(s.probability) ** 2 * 0.25 / s.samples for s in played)) + unplayed

    def _count_events(self, counted: list) -> None:
        """``counter_rates``: each counter's expected events per paid round (sum of P(state) x the state's rate);
        ``counters``: its events over every simulated round (as :attr:`SimulationResult.counters`).  A state's
        rounds count what their feature did; the exact first screen counts nothing."""
        names = self.model.counters
        rates = sum((p * np.asarray(c, dtype=float) / n for p, n, c in counted), np.zeros(len(names)))
        seen = sum((np.asarray(c, dtype=np.int64) for _, _, c in counted), np.zeros(len(names), dtype=np.int64))
        self.counter_rates = dict(zip(names, rates.tolist()))
        self.counters = dict(zip(names, seen.tolist()))

    def _describe_run(self, model: RoundModel, sheet, seed: int, elapsed: float, precision: float,
                      interrupted: bool) -> None:
        """What the estimate is of and how it was run (the attributes besides the figures)."""
        self.model = model
        self.sheet = sheet
        self.seed = seed
        self.elapsed = elapsed
        self.precision = precision
        self.interrupted = interrupted
        #: what ended the run: "precision" (reached), "time box", "interrupted", or "exact" (nothing to simulate)
        self.stopped_by = "interrupted" if interrupted else "precision"
        self.wall_seconds = elapsed  # the whole call, set-up included (set by estimate_rtp)
        self.cost_units = model.params.cost_units  # the base game's total bet in pay units
        self.mode_cost = mode_cost(model)
        self.unit = unit_label(model)
        #: what was simulated: the template's trigger states, or every round end to end and why (simulate/plan.py)
        self.plan = model.notes.get("plan") or _plan_text(model)

    def _add_simulated_components(self, comp_mean, comp_var, comp_second, simulated_first: bool, base_cap) -> None:
        """The simulated and conditional components (x the base total bet), with their E[component^2] per round;
        ``comp_*`` are per pay unit, summed over the trigger states with their probabilities."""
        model, cost = self.model, self.cost_units
        exact_idx = set(model.exact_components) if not simulated_first else set()
        # a control variate (chunks.play_chunk): the component's exact mean stood in for what the rounds drew
        controlled = set(model.exact_means) if any(s.end_to_end for s in model.strata) and not model.max_win_units else set()
        for k, name in enumerate(model.components):
            if k in exact_idx:
                continue
            if comp_mean[k] != 0 or name.startswith(("option:", "cap")) or any(name in f.components for f in model.features):
                source = ("exact mean" if name in controlled else "simulated" if k in model.exact_components
                          else "conditional")  # (simulated: no exact first screen)
                self.components[name] = Estimate(comp_mean[k] / cost, Z95 * math.sqrt(comp_var[k]) / cost, source)
                if not name.startswith("cap"):
                    self.component_second_moments[name] = comp_second[k] / cost**2
                elif base_cap is not None:  # the first screen's cut is exact (its square over every spin: a bound)
                    self.component_second_moments[name] = (comp_second[k] + float(base_cap.square_cut_units)) / cost**2
                else:
                    self.component_second_moments[name] = comp_second[k] / cost**2

    def _per_mode_cost(self, per: float) -> None:
        """Components, their second moments and the strata x the bet mode's own cost (``per`` x total bet)."""
        self.components = {k: Estimate(e.value / per, e.ci95 / per, e.source) for k, e in self.components.items()}
        self.component_second_moments = {k: v / per**2 for k, v in self.component_second_moments.items()}
        self.strata = [StratumEstimate(s.name, s.probability, s.samples, s.mean_extra / per, s.ci95 / per)
                       for s in self.strata]

    @property
    def limit_notes(self) -> list[str]:
        """A sentence for each safety maximum (``max_free_spins``, ``max_cascades``) the simulated rounds met."""
        what = "bought rounds" if self.model.game.bet_mode.buy else "paid rounds"
        whole = self.model.game.bet_mode.buy or any(s.end_to_end for s in self.model.strata)
        sampled = "simulated rounds" if whole else "simulated rounds of the trigger states"
        return limit_notes(self.model.game.features, self.counter_rates, self.counters, self.samples, what,
                           sampled)

    def _option_rtps(self) -> dict:
        """Per player choice, the RTP each alternative would give in place of the one played."""
        options = {}
        for opt in self.model.options:
            chosen = self.components[opt.chosen].value if opt.chosen in self.components else 0.0
            options[opt.name] = {
                alt: self.rtp - chosen + (self.components[comp].value if comp in self.components else 0.0)
                for alt, comp in opt.alternatives.items()
            }
        return options

    def to_dict(self) -> dict:
        return {
            "game": self.model.game.name,
            "bet_mode": self.model.game.bet_mode.name,
            "unit": self.unit,
            "mode_cost_x_total_bet": self.mode_cost,
            "method": "exact + conditional simulation",
            "plan": self.plan,
            "stake": self.model.stake,
            "rtp": self.rtp,
            "rtp_ci95": self.rtp_ci95,
            "precision_target": self.precision,
            "stopped_by": self.stopped_by,
            "wall_seconds": self.wall_seconds,
            "game_rtp": self.game_rtp,
            "jackpot_rtp": self.jackpot_rtp,
            "components": {k: v.to_dict() for k, v in self.components.items()},
            "strata": [
                {"name": s.name, "probability": s.probability, "one_in": 1 / s.probability if s.probability else None,
                 "samples": s.samples, "mean_extra": s.mean_extra, "ci95": s.ci95}
                for s in self.strata
            ],
            "hit_frequency": self.hit_frequency,
            "std": self.std,
            "volatility_index_90": self.volatility_index(0.90),
            "volatility_index_95": self.volatility_index(0.95),
            "max_win": self.max_win,
            "max_win_cap": self.max_win_units / self.cost_units if self.max_win_units else None,
            "max_win_probability": self.max_win_probability,
            "max_win_probability_ci95": self.max_win_probability_ci95,
            "notes": self.limit_notes,
            "options": self.options,
            "samples": self.samples,
            "seed": self.seed,
            "interrupted": self.interrupted,
            "elapsed_seconds": self.elapsed,
        }


#: how far a bet mode's RTP (x its cost) may be from the base game's before the editors and the report flag it
#: (a fraction: 0.005 = 0.5 points of RTP; operators and RGSs expect every mode within a narrow band of one RTP)
MODE_RTP_BAND = 0.005


def mode_gap(mode_rtp: float, base_rtp: float, band: float = MODE_RTP_BAND) -> tuple[float, bool]:
    """(mode RTP - base RTP, whether the gap is outside ``band``), both RTPs x their own mode's cost."""
    gap = mode_rtp - base_rtp
    return gap, abs(gap) > band + 1e-12


def gap_text(gap: float, outside: bool, band: float = MODE_RTP_BAND) -> str:
    """'+0.12 points' or '-0.73 points: outside the ±0.5 band' (points of RTP against the base game)."""
    text = f"{100 * gap:+.2f} points"
    return f"{text}: outside the ±{100 * band:g} band" if outside else text


class BetModeEstimate(WinStatistics):
    """One bet mode's figures, x its own cost (``rtp``, ``std``, ``max_win``; ``hit_frequency`` per round).

    ``mode`` is the :class:`~workbench.model.BetMode` (``cost`` x the base total bet); ``estimate`` the
    :class:`RtpEstimate` of the game in that mode (x the mode's cost too, as every estimate); ``rtp_ci95`` and
    ``components`` (name -> :class:`Estimate`) are x the mode's cost; ``base_part`` what its paid spins' first screens
    return exactly (0 for a buy mode).  With a max-win cap (``[bet_modes.NAME] max_win`` or ``[bet] max_win``):
    ``max_win_cap`` (x the *base* game's total bet, as declared; None: no cap), ``cap_cost`` (the RTP the cap
    takes, x the mode's cost: -E[component ``cap``], an :class:`Estimate` with its half-width; 0 without a cap)
    and ``max_win_probability`` (per round, with ``max_win_probability_ci95``).
    """

    def __init__(self, mode, estimate: RtpEstimate):
        self.mode = mode
        self.estimate = estimate
        if estimate.model.game.bet_mode.name != mode.name:
            raise ValueError(f"BetModeEstimate: the estimate is of bet mode {estimate.model.game.bet_mode.name!r}, "
                             f"not {mode.name!r}")
        cost = float(mode.cost)
        self.cost = cost
        self.name = mode.name
        self.unit = estimate.unit
        self.rtp_ci95 = estimate.rtp_ci95
        self.components = dict(estimate.components)
        self.base_part = float(estimate.sheet.rtp) / cost  # the exact sheet is x the base total bet
        units = int(getattr(estimate, "max_win_units", 0) or 0)
        self.max_win_cap = units / estimate.cost_units if units else None
        capped = self.components.get("cap")
        self.cap_cost = Estimate(-capped.value, capped.ci95, capped.source) if capped is not None else Estimate(0.0, 0.0, "exact")
        self.max_win_probability = float(getattr(estimate, "max_win_probability", 0.0))
        self.max_win_probability_ci95 = float(getattr(estimate, "max_win_probability_ci95", 0.0))
        super().__init__(rtp=estimate.rtp, std=estimate.std, hit_frequency=estimate.hit_frequency,
                         max_win=estimate.max_win)
        self.hit_frequency_ci95 = estimate.hit_frequency_ci95

    def to_dict(self) -> dict:
        return {"mode": self.name, "cost_x_total_bet": self.cost, "buy": self.mode.buy, "rtp": self.rtp,
                "rtp_ci95": self.rtp_ci95, "base_part": self.base_part, "std": self.std,
                "max_win_cap": self.max_win_cap, "cap_cost": self.cap_cost.value, "cap_cost_ci95": self.cap_cost.ci95,
                "max_win_probability": self.max_win_probability,
                "hit_frequency": self.hit_frequency, "hit_frequency_ci95": self.hit_frequency_ci95, "max_win": self.max_win,
                "volatility_index_90": self.volatility_index(0.90), "volatility_index_95": self.volatility_index(0.95)}


def _plan_text(model) -> str:
    """What an estimate simulated, when the model's notes do not say: the first screen exact and the trigger states
    simulated; a buy's bought counts (no first screen); a prize mode's one state."""
    mode = model.game.bet_mode
    if mode.prize:
        return "no first screen: the feature from an empty screen, every round simulated (one state of probability 1)"
    if mode.buy:
        return "no first screen: each bought count's exact probability x its simulated mean"
    return "exact first screen + each trigger state's exact probability x its simulated mean" if model.strata else \
        "exact first screen only"
