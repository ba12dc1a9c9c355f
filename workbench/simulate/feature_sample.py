"""Feature statistics: what one feature pays and how long it runs, from rounds sampled where it starts.

The end-to-end simulation counts how often each feature starts and what it pays in total, but a feature that
starts once in 150 rounds gives few samples of its own win distribution.  Here each feature is sampled where it
happens: a game whose simulation plan has trigger states (:class:`~workbench.simulate.model.Stratum`, each with its
exact probability per round ``p_s``) plays rounds *given* each state, one at a time, and keeps the rounds in which
the feature's counter moved.  A round of state ``s`` stands for probability ``p_s / n_s`` per round (``n_s`` the
rounds played in that state), so the weighted samples are the feature's distribution in natural play whatever the
allocation of rounds over states (the allocation only decides the precision).  A game played end to end (no
trigger states) is sampled from natural rounds, each standing for ``1 / n``.

What a sample records per feature: its win (the feature's components, x the round's price; before a max-win cap,
which cuts whole rounds) and, where the round template counts them, its spins
(:attr:`~workbench.simulate.model.Feature.spins`) and retriggers.  Features paid only on the first screen (bonus
award tables of a combination trigger) are exact in the PAR sheet and are not sampled.

Every figure is an estimate: :class:`FeatureSample` gives each with its 95 % half-width.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import SimulationError
from .replay import RoundPlayer
from .model import Feature, RoundModel
from .results import mode_cost
from .rng import STREAM_FEATURES, chunk_state

DEFAULT_FEATURES = 20_000  # samples wanted per feature (its 99.9th percentile rests on ~20 of them)
DEFAULT_SECONDS = 20.0  # time box of the sampling, all features together
PILOT_ROUNDS = 200  # rounds per trigger state before the allocation
PERCENTILES = (50.0, 90.0, 99.0, 99.9)
Z95 = 1.959963984540054
WARM_UP_BLOCK = 1 << 40  # block of the features stream that compiles the round before the clock starts


@dataclass(frozen=True)
class FeatureSample:
    """The sampled starts of one feature.

    ``wins`` (x the round's price: x total bet in the base game, x the bet mode's cost in a bet mode), ``spins``
    and ``retriggers`` (or None where the template does not count them) per sample; ``weights``: the probability
    per round each sample stands for; ``components``: what it pays in the round model; ``rounds``: rounds played to find them; ``exact_trigger``: the feature
    starts in every round of the states it was sampled from (its frequency is then the exact sum of those states'
    probabilities); ``frequency_ci95``: half-width of the estimated frequency."""

    name: str
    wins: np.ndarray
    spins: np.ndarray | None
    retriggers: np.ndarray | None
    weights: np.ndarray
    rounds: int
    frequency_ci95: float
    exact_trigger: bool
    components: tuple = ()  # the round model's components the feature pays (its share of the RTP)

    @property
    def count(self) -> int:
        return int(self.wins.size)

    @property
    def frequency(self) -> float:
        """Starts per round (its 95 % half-width: :attr:`frequency_ci95`)."""
        return float(self.weights.sum())

    @property
    def share(self) -> np.ndarray:
        """Each sample's share of the feature's weight (they add up to 1)."""
        total = self.weights.sum()
        return self.weights / total if total > 0 else self.weights

    def _mean_ci(self, values: np.ndarray) -> tuple[float, float]:
        w = self.share
        mean = float(np.dot(w, values))
        # the weighted mean's variance (a ratio estimator: each sample's weight is fixed by its state's rounds)
        var = float(np.dot(w * w, (values - mean) ** 2))
        return mean, Z95 * math.sqrt(var)

    @property
    def mean_win(self) -> tuple[float, float]:
        """(mean win per feature, 95 % half-width), x the round's price."""
        return self._mean_ci(self.wins)

    @property
    def std_win(self) -> float:
        mean, _ = self.mean_win
        return math.sqrt(max(float(np.dot(self.share, (self.wins - mean) ** 2)), 0.0))

    def percentile(self, q: float, values: np.ndarray | None = None) -> float:
        """The weighted ``q``-th percentile (0-100) of the wins (or of ``values``): the smallest value with at least
        ``q`` % of the weight at or below it."""
        values = self.wins if values is None else values
        order = np.argsort(values, kind="stable")
        cum = np.cumsum(self.share[order])
        i = int(np.searchsorted(cum, q / 100.0 - 1e-12, side="left"))
        return float(values[order][min(i, len(order) - 1)])

    @property
    def mean_spins(self) -> tuple[float, float] | None:
        return None if self.spins is None else self._mean_ci(self.spins.astype(float))

    @property
    def retrigger_rate(self) -> tuple[float, float] | None:
        """(chance a feature retriggers at least once, 95 % half-width)."""
        return None if self.retriggers is None else self._mean_ci((self.retriggers > 0).astype(float))

    @property
    def mean_retriggers(self) -> float | None:
        return None if self.retriggers is None else float(np.dot(self.share, self.retriggers))

    def spins_distribution(self) -> list[tuple[int, float]]:
        """(spins, probability) for every number of spins seen, in increasing order."""
        if self.spins is None:
            return []
        values, inverse = np.unique(self.spins, return_inverse=True)
        probs = np.bincount(inverse, weights=self.share, minlength=len(values))
        return [(int(v), float(p)) for v, p in zip(values, probs)]

    def probability_ci(self, event: np.ndarray) -> tuple[float, float]:
        """(probability per feature of ``event``, a bool per sample, and its 95 % half-width)."""
        return self._mean_ci(np.asarray(event, dtype=float))


@dataclass(frozen=True)
class FeatureStatistics:
    """Every sampled feature of a game (:class:`FeatureSample` by name), the seed, the rounds played, the time it
    took, whether the time box ended it, and the features left out with why."""

    features: dict
    seed: int
    rounds: int
    seconds: float
    timed_out: bool
    skipped: dict

    @property
    def stopped_by(self) -> str:
        """"time box" when the time box ended the sampling before every feature had its samples, else "samples"."""
        return "time box" if self.timed_out else "samples"


def _counter(model: RoundModel, feature: Feature, kind: str) -> int | None:
    """Slot of the feature's ``kind`` counter ("spins" or "retriggers"): the one it names, else the templates'
    naming ``<counter>:<kind>`` (``respins`` for spins as well), else None."""
    named = getattr(feature, kind, "")
    names = [named] if named else [f"{feature.counter}:{kind}"] + ([f"{feature.counter}:respins"] if kind == "spins" else [])
    for name in names:
        if name in model.counters:
            return model.counters.index(name)
    return None


class _Player(RoundPlayer):
    """Plays rounds of ``model`` one at a time from the features stream, each in a given state (-1: natural)."""

    def __init__(self, model: RoundModel, seed: int, stream_chunk: int, stratum: int):
        super().__init__(model, chunk_state(seed, stream_chunk, STREAM_FEATURES), stratum)


def _sampled_features(model: RoundModel) -> tuple[list, dict]:
    exact = {model.components[i] for i in model.exact_components}
    chosen, skipped = [], {}
    for f in model.features:
        if f.counter not in model.counters:
            skipped[f.name] = "its round template counts no starts"
        elif all(c in exact for c in f.components):
            skipped[f.name] = "paid on the first screen: exact in the PAR sheet"
        else:
            chosen.append(f)
    return chosen, skipped


class _Collector:
    """Samples of every chosen feature, gathered round by round."""

    def __init__(self, model: RoundModel, features: list):
        self.model = model
        self.features = features
        self.comps = [np.array([model.components.index(c) for c in f.components if c in model.components], dtype=np.int64)
                      for f in features]
        self.starts = [model.counters.index(f.counter) for f in features]
        self.spins = [_counter(model, f, "spins") for f in features]
        self.retriggers = [_counter(model, f, "retriggers") for f in features]
        self.rows = [[] for _ in features]  # (state, win units, spins, retriggers)

    def add(self, state: int, amounts: np.ndarray, counters: np.ndarray) -> np.ndarray:
        """Record the round; the features it started (bool per feature)."""
        started = np.array([counters[j] > 0 for j in self.starts], dtype=bool)
        for k in np.flatnonzero(started):
            spins = counters[self.spins[k]] if self.spins[k] is not None else -1
            retriggers = counters[self.retriggers[k]] if self.retriggers[k] is not None else -1
            self.rows[k].append((state, int(amounts[self.comps[k]].sum()), int(spins), int(retriggers)))
        return started


def _allocation(pilot_starts: np.ndarray, pilot_rounds: int, probs: np.ndarray, wanted: int) -> np.ndarray:
    """Rounds to play in each state so that every feature gets about ``wanted`` samples: state s gets, over the
    features it starts, the most of ``wanted x p_s / P(feature)`` (each feature's samples spread over its states in
    proportion to its natural mixture)."""
    rate = pilot_starts / max(pilot_rounds, 1)  # [state, feature]: starts per round of the state
    per_feature = (probs[:, None] * rate).sum(axis=0)  # P(feature) estimated
    need = np.zeros(len(probs))
    for k, pf in enumerate(per_feature):
        if pf > 0:
            need = np.maximum(need, np.where(rate[:, k] > 0, wanted * probs / pf, 0.0))
    return np.ceil(need).astype(np.int64)


def sample_features(model: RoundModel, seed: int, wanted: int = DEFAULT_FEATURES,
                    max_seconds: float = DEFAULT_SECONDS) -> FeatureStatistics:
    """Sample every feature of ``model`` (a :func:`workbench.simulate.engine.round_model`) about ``wanted`` times
    within ``max_seconds`` (see the module docstring); reproducible from ``seed`` (stream
    :data:`~workbench.simulate.rng.STREAM_FEATURES`, one block per trigger state)."""
    if wanted < 1:
        raise SimulationError(f"feature samples wanted must be at least 1, not {wanted!r}")
    if not max_seconds > 0:
        raise SimulationError(f"the time box of the feature sampling must be above 0 s, not {max_seconds!r}")
    features, skipped = _sampled_features(model)
    collector = _Collector(model, features)
    conditional = [i for i, s in enumerate(model.strata) if not s.end_to_end and s.probability > 0]
    if not features:
        return FeatureStatistics({}, seed, 0, 0.0, False, skipped)
    # compile (or load) the round's code before the clock starts, on a stream no sample uses
    _Player(model, seed, WARM_UP_BLOCK, conditional[0] if conditional else -1).play()
    start = time.perf_counter()
    if conditional:
        probs = np.array([float(model.strata[i].probability) for i in conditional])
        played, timed_out = _play_states(model, seed, conditional, probs, collector, wanted, start, max_seconds)
        weights_of = probs / np.maximum(played, 1)
    else:
        played, timed_out = _play_natural(model, seed, collector, wanted, start, max_seconds)
        weights_of = np.array([1.0 / max(played[0], 1)])
    samples = {f.name: _sample(model, collector, k, weights_of, played, bool(conditional))
               for k, f in enumerate(features)}
    return FeatureStatistics(samples, seed, int(played.sum()), time.perf_counter() - start, timed_out, skipped)


def _play_states(model, seed, states, probs, collector, wanted, start, max_seconds):
    players = [_Player(model, seed, j, s) for j, s in enumerate(states)]
    played = np.zeros(len(states), dtype=np.int64)
    pilot = np.zeros((len(states), len(collector.features)))
    for j, player in enumerate(players):
        for _ in range(PILOT_ROUNDS):
            pilot[j] += collector.add(j, *player.play())
        played[j] += PILOT_ROUNDS
    target = np.maximum(_allocation(pilot, PILOT_ROUNDS, probs, wanted), PILOT_ROUNDS)
    timed_out = False
    while np.any(played < target) and not timed_out:  # round robin in blocks: a time box cuts every state alike
        for j, player in enumerate(players):
            for _ in range(int(min(256, target[j] - played[j]))):
                collector.add(j, *player.play())
                played[j] += 1
            if time.perf_counter() - start > max_seconds:
                timed_out = True
                break
    for player in players:
        player.check()
    return played, timed_out


def _play_natural(model, seed, collector, wanted, start, max_seconds):
    player = _Player(model, seed, 0, -1)
    played = np.zeros(1, dtype=np.int64)
    found = np.zeros(len(collector.features))
    timed_out = False
    while found.min() < wanted:
        for _ in range(1024):
            found += collector.add(0, *player.play())
        played[0] += 1024
        if time.perf_counter() - start > max_seconds:
            timed_out = True
            break
    player.check()
    return played, timed_out


def _sample(model, collector, k, weights_of, played, conditional: bool) -> FeatureSample:
    rows = np.array(collector.rows[k], dtype=np.int64).reshape(-1, 4)
    price = model.params.cost_units * mode_cost(model)
    states = rows[:, 0]
    weights = weights_of[states] if len(rows) else np.zeros(0)
    starts_by_state = np.bincount(states, minlength=len(played)) if len(rows) else np.zeros(len(played))
    rate = starts_by_state / np.maximum(played, 1)
    if conditional:  # trigger states: the sum over states of p_s^2 rate (1 - rate) / n_s
        probs = weights_of * played
        var = float(np.sum(probs**2 * rate * (1 - rate) / np.maximum(played, 1)))
    else:
        var = float(rate[0] * (1 - rate[0]) / max(played[0], 1))
    # starting in every round of some states and in none of the others: the frequency is the exact sum of those
    # states' probabilities (what the rounds showed; the states' own definitions are what make it so)
    exact = bool(conditional and np.all((rate == 0) | (rate == 1)) and np.any(rate == 1))
    return FeatureSample(
        name=collector.features[k].name,
        wins=rows[:, 1] / price,
        spins=rows[:, 2] if collector.spins[k] is not None else None,
        retriggers=rows[:, 3] if collector.retriggers[k] is not None else None,
        weights=weights,
        rounds=int(played.sum()),
        frequency_ci95=Z95 * math.sqrt(var),
        exact_trigger=exact,
        components=tuple(collector.features[k].components),
    )
