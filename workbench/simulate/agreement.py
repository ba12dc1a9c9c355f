"""Do two methods that price the same game agree?  Component by component, in standard errors.

The workbench prices a whole game two ways: end to end (:func:`workbench.simulate.simulate`, every round played
as the player plays it) and exact + conditional (:func:`workbench.simulate.estimate_rtp`: the exact first screen
plus each trigger state's exact probability times its simulated mean).  They are independent estimates of the
same expectations, so for every component ``c``

    z = (end_to_end[c] - exact_conditional[c]) / sqrt(se_end_to_end[c]^2 + se_exact_conditional[c]^2)

is about standard normal when both are right.  An exact component has no standard error: its z is the end-to-end
mean against the exact value.  :func:`agreement` lists every component (and the total) with its z;
:attr:`Agreement.worst` is the largest |z|.  docs/simulation.md says which method is the reference for what.

The end-to-end standard error is the larger of the run's own (its sample spread / sqrt(n)) and what the
exact + conditional estimate says the spread of one round is (std / sqrt(n)): a rare feature seen a few times in
an end-to-end run has a sample spread far below its true one, which would make a sound pair of figures look
many standard errors apart; under the hypothesis that both methods are right the estimate's spread, measured on
many more feature rounds, is the better one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .results import Z95, RtpEstimate, SimulationResult

#: a component whose two figures are both exactly this close is equal (float noise of exact sums)
EXACT_EQUAL = 1e-12


@dataclass(frozen=True)
class ComponentAgreement:
    """One component's figures from both methods (x the mode's cost) and how many standard errors apart they are.

    ``source`` is where the exact + conditional figure comes from (``exact``, ``conditional``, ``analytic`` or
    ``absent``: that method has no such component, so it is taken as 0); ``z`` is signed (end to end minus
    exact + conditional) and infinite when the figures differ although neither has a standard error."""

    component: str
    end_to_end: float
    end_to_end_se: float
    exact_conditional: float
    exact_conditional_se: float
    source: str

    @property
    def z(self) -> float:
        diff = self.end_to_end - self.exact_conditional
        se = math.hypot(self.end_to_end_se, self.exact_conditional_se)
        if se == 0:
            return 0.0 if abs(diff) <= EXACT_EQUAL * max(1.0, abs(self.exact_conditional)) else math.copysign(math.inf, diff)
        return diff / se


@dataclass(frozen=True)
class Agreement:
    """Every component of a game (and the total ``rtp``) priced both ways; see the module docstring."""

    game: str
    bet_mode: str
    unit: str
    rows: tuple

    @property
    def worst(self) -> ComponentAgreement:
        return max(self.rows, key=lambda r: abs(r.z))

    def within(self, z: float = 4.0) -> bool:
        """True when every component (and the total) agrees within ``z`` combined standard errors."""
        return all(abs(r.z) <= z for r in self.rows)

    def table(self):
        """The rows as a DataFrame (component, both figures with their standard errors, source, z)."""
        import pandas as pd

        return pd.DataFrame([{"component": r.component, "end to end": r.end_to_end, "se": r.end_to_end_se,
                              "exact + conditional": r.exact_conditional, "se ": r.exact_conditional_se,
                              "source": r.source, "z": r.z} for r in self.rows])

    def describe(self, z: float = 4.0) -> str:
        """One line per component that is more than ``z`` standard errors apart (empty when all agree)."""
        return "\n".join(
            f"{self.game} [{self.bet_mode}] {r.component}: end to end {100 * r.end_to_end:.4f} % ± {100 * r.end_to_end_se:.4f}, "
            f"exact + conditional {100 * r.exact_conditional:.4f} % ± {100 * r.exact_conditional_se:.4f} ({r.source}), "
            f"z = {r.z:+.2f}" for r in self.rows if abs(r.z) > z)


def agreement(end_to_end: SimulationResult, estimate: RtpEstimate) -> Agreement:
    """Compare an end-to-end simulation with an exact + conditional estimate of the same game and bet mode.

    Both must be of the same game text, bet mode and stake (a :class:`ValueError` otherwise).  Every component
    either method reports is compared (informational ``option:*`` components too: what the other choice would
    have paid is an expectation as well), then the total RTP.
    """
    a, b = end_to_end.model, estimate.model
    if (a.game.name, a.game.bet_mode.name, a.stake) != (b.game.name, b.game.bet_mode.name, b.stake):
        raise ValueError(f"agreement: {a.game.name} [{a.game.bet_mode.name}] at stake {a.stake} against "
                         f"{b.game.name} [{b.game.bet_mode.name}] at stake {b.stake}")
    rows = []
    n = max(end_to_end.spins, 1)
    names = list(end_to_end.components) + [k for k in estimate.components if k not in end_to_end.components]
    for name in names:
        sim = end_to_end.components.get(name)
        est = estimate.components.get(name)
        se = sim.ci95 / Z95 if sim is not None else 0.0
        second = getattr(estimate, "component_second_moments", {}).get(name)
        if second is not None and est is not None:
            se = max(se, math.sqrt(max(second - est.value**2, 0.0) / n))
        rows.append(ComponentAgreement(
            name, sim.value if sim is not None else 0.0, se,
            est.value if est is not None else 0.0, est.ci95 / Z95 if est is not None else 0.0,
            est.source if est is not None else "absent"))
    total_se = max(end_to_end.rtp_ci95 / Z95, estimate.std / math.sqrt(n))
    rows.append(ComponentAgreement("rtp", end_to_end.rtp, total_se, estimate.rtp, estimate.rtp_ci95 / Z95, "total"))
    return Agreement(a.game.name, a.game.bet_mode.name, end_to_end.unit, tuple(rows))
