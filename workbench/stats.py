"""Statistics of a win per spin, in the spirit of scipy.stats distribution objects.

All amounts are in multiples of the total bet (``x total bet``); RTP and hit
frequency are fractions (0.9618 = 96.18 %).  The volatility index is
``z x std`` where ``z`` is the two-sided normal quantile of the confidence
(1.645 for 90 %, 1.960 for 95 %), and the RTP confidence band after ``n``
spins is ``rtp +- VI / sqrt(n)``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from fractions import Fraction

import numpy as np
from statistics import NormalDist


@lru_cache(maxsize=256)
def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile for ``confidence`` (0.90 -> 1.645)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


class WinStatistics:
    """Mean, spread and extremes of the win per spin (x total bet).

    ``rtp`` is the expected win per spin divided by the total bet; ``std`` the
    standard deviation of the win per spin in total bets; ``hit_frequency``
    the probability that a spin wins anything; ``max_win`` the largest
    possible (exact) or observed (simulated) win.
    """

    def __init__(self, rtp: float, std: float, hit_frequency: float, max_win: float):
        self.rtp = float(rtp)
        self.std = float(std)
        self.hit_frequency = float(hit_frequency)
        self.max_win = float(max_win)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(rtp={self.rtp:.6f}, std={self.std:.4f}, "
                f"hit_frequency={self.hit_frequency:.6f}, max_win={self.max_win:g})")

    @property
    def variance(self) -> float:
        return self.std**2

    @property
    def hit_rate_one_in(self) -> float:
        """Hit frequency as "1 in N" spins."""
        return 1 / self.hit_frequency if self.hit_frequency else math.inf

    def volatility_index(self, confidence: float = 0.90, *, z: float | None = None) -> float:
        """Volatility index ``z x std`` (x total bet) at ``confidence``.

        ``z`` overrides the exact quantile: many printed PAR sheets use 1.65
        for 90 % (exact: 1.6449) and 1.96 for 95 %.
        """
        if z is not None:
            if not (isinstance(z, (int, float)) and math.isfinite(z) and z > 0):
                raise ValueError(f"z must be a positive number, got {z!r}")
            return float(z) * self.std
        return z_value(confidence) * self.std

    def confidence_band(self, n_spins: int, confidence: float = 0.95) -> tuple[float, float]:
        """Range the RTP measured over ``n_spins`` falls in with probability ``confidence``."""
        half = self.volatility_index(confidence) / math.sqrt(n_spins)
        return (self.rtp - half, self.rtp + half)

    def spins_for_precision(self, half_width: float, confidence: float = 0.95) -> int:
        """Spins needed for the RTP band half-width to shrink to ``half_width``."""
        return math.ceil((self.volatility_index(confidence) / half_width) ** 2)


class WinDistribution(WinStatistics):
    """Exact discrete distribution of the win per spin from integer hit counts.

    ``wins`` are the distinct wins in pay units, ``hits`` their integer counts
    over a cycle of ``cycle`` equally likely outcomes, ``cost_units`` the total
    bet in the same units.  Amounts reported are x total bet.
    """

    def __init__(self, wins: np.ndarray, hits, cycle: int, cost_units: int):
        wins = np.asarray(wins, dtype=np.int64)
        hits_list = [int(h) for h in hits]
        order = np.argsort(wins)
        self.wins_units = wins[order]
        self.hits = tuple(hits_list[i] for i in order)
        self.cycle = int(cycle)
        self.cost_units = int(cost_units)
        total_units = sum(int(w) * h for w, h in zip(self.wins_units, self.hits))
        square_units = sum(int(w) ** 2 * h for w, h in zip(self.wins_units, self.hits))
        mean = Fraction(total_units, self.cycle * self.cost_units)
        second = Fraction(square_units, self.cycle * self.cost_units**2)
        self.rtp_exact = mean
        variance = second - mean * mean
        hits_nonzero = sum(h for w, h in zip(self.wins_units, self.hits) if w > 0)
        reachable = [w for w, h in zip(self.wins_units, self.hits) if h > 0]
        super().__init__(
            rtp=float(mean),
            std=math.sqrt(float(variance)),
            hit_frequency=hits_nonzero / self.cycle,
            max_win=float(max(reachable) / self.cost_units) if reachable else 0.0,
        )

    @classmethod
    def from_histogram(cls, hist: np.ndarray, cycle: int, cost_units: int) -> "WinDistribution":
        """From a dense histogram: ``hist[u]`` = hits of a win of ``u`` pay units."""
        nz = np.flatnonzero(hist)
        return cls(nz, hist[nz], cycle, cost_units)

    @property
    def values(self) -> np.ndarray:
        """Distinct wins, x total bet."""
        return self.wins_units / self.cost_units

    @property
    def probabilities(self) -> np.ndarray:
        return np.array([h / self.cycle for h in self.hits])

    def pmf(self, x: float) -> float:
        """Probability of winning exactly ``x`` total bets."""
        mask = np.isclose(self.values, x, rtol=0, atol=0.5 / self.cost_units)
        return float(self.probabilities[mask].sum())

    def sf(self, x: float) -> float:
        """Probability of winning at least ``x`` total bets (exceedance)."""
        return float(self.probabilities[self.values >= x - 1e-12].sum())

    def cdf(self, x: float) -> float:
        """Probability of winning at most ``x`` total bets."""
        return float(self.probabilities[self.values <= x + 1e-12].sum())

    def exceedance(self) -> tuple[np.ndarray, np.ndarray]:
        """(wins, P(win >= that win)) for every distinct win, ascending."""
        p = self.probabilities
        tail = np.cumsum(p[::-1])[::-1]
        return self.values, tail

    def __repr__(self) -> str:
        return (f"WinDistribution(rtp={self.rtp:.6f}, std={self.std:.4f}, hit_frequency={self.hit_frequency:.6f}, "
                f"max_win={self.max_win:g}, outcomes={len(self.hits)}, cycle={self.cycle})")
