"""The RTP of every way the player can make the game's choices (``[choices.*]``).

A *policy* says which option the player picks.  The *fixed* policies pick the
same option every time: each is the game with that option played
(:meth:`Game.with_choice <workbench.model.Game.with_choice>`), priced by
:func:`~workbench.simulate.estimate_rtp` with the same seed.  A player may also
pick by what the round shows when the choice comes (the trigger state: how many
scatters, a bought count): the exact + conditional method has every state's
probability and simulated mean win under every option, so the RTP of any
per-state policy is the exact part plus each state's probability x the mean of
the option it picks.  The *highest* and *lowest* per-state policies (the best
and the worst player) are reported; picking the larger of several simulated
means favours the highest a little (by at most its half-width), which is said
beside it.  Per-state policies are given only when every option has the same
trigger states with the same probabilities (a choice made before the trigger
would change them), and only when the states reproduce each fixed option's RTP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..model import Game

#: how far a fixed option's RTP rebuilt from its states may be from its own estimate (float sums)
REBUILD_TOLERANCE = 1e-9


@dataclass(frozen=True)
class PolicyRtp:
    """One policy: its name, RTP (x the cost of the mode played) and 95 % half-width; ``picks`` maps each trigger
    state to the option picked there (empty for a fixed policy: ``option`` every time)."""

    name: str
    rtp: float
    ci95: float
    option: str | None = None
    picks: dict = field(default_factory=dict)


@dataclass
class ChoiceRtps:
    """Every policy of one choice: ``estimates`` (option -> RtpEstimate), ``fixed``, ``highest`` and ``lowest``
    (None, with ``note`` saying why, when per-state policies cannot be priced)."""

    choice: str
    played: str
    unit: str
    estimates: dict
    fixed: list
    highest: PolicyRtp | None = None
    lowest: PolicyRtp | None = None
    note: str = ""

    @property
    def spread(self) -> float:
        """Highest minus lowest RTP over the policies priced (x the mode's cost)."""
        rtps = [p.rtp for p in self.fixed] + [p.rtp for p in (self.highest, self.lowest) if p is not None]
        return max(rtps) - min(rtps)

    def to_dict(self) -> dict:
        def one(p):
            return None if p is None else {"name": p.name, "rtp": p.rtp, "rtp_ci95": p.ci95, "option": p.option,
                                           "picks": dict(p.picks)}
        return {"choice": self.choice, "played": self.played, "unit": self.unit,
                "fixed": [one(p) for p in self.fixed], "highest": one(self.highest), "lowest": one(self.lowest),
                "note": self.note}


def choice_rtps(game: Game, precision: float, seed: int, *, stake: float | None = None, workers: int = 1,
                max_seconds: float | None = None, played=None) -> dict:
    """``{choice name: ChoiceRtps}`` for every ``[choices.*]`` of ``game`` (in the bet mode it plays).

    Every option is estimated to ``precision`` with ``seed`` (``played``: an estimate of the game as it is, reused
    for the option played); ``max_seconds`` boxes each estimate.
    """
    from . import estimate_rtp

    out = {}
    for name, choice in game.choices.items():
        estimates = {}
        for option in choice.options:
            if option == choice.played and played is not None:
                estimates[option] = played
            else:
                estimates[option] = estimate_rtp(game.with_choice(name, option), precision, seed, stake=stake,
                                                 workers=workers, max_seconds=max_seconds)
        fixed = [PolicyRtp(f"always {option}", e.rtp, e.rtp_ci95, option) for option, e in estimates.items()]
        result = ChoiceRtps(name, choice.played, estimates[choice.played].unit, estimates, fixed)
        _per_state(result)
        out[name] = result
    return out


def _per_state(result: ChoiceRtps) -> None:
    """The highest and lowest per-state policies, when the options share their trigger states."""
    estimates = result.estimates
    played = estimates[result.played]
    states = {s.name: s.probability for s in played.strata}
    if not states:
        result.note = "the choice comes in no simulated trigger state: only the fixed policies are priced"
        return
    for option, est in estimates.items():
        if {s.name: s.probability for s in est.strata} != states:
            result.note = (f"option {option!r} changes the trigger states or their probabilities: only the fixed "
                           "policies are priced")
            return
    per = played.mode_cost
    means = {option: {s.name: s for s in est.strata} for option, est in estimates.items()}
    # the part no option changes: the exact first screen and the jackpots (x the mode's cost)
    fixed_part = played.rtp - sum(s.contribution for s in played.strata) / per
    for option, est in estimates.items():
        rebuilt = fixed_part + sum(s.contribution for s in est.strata) / per
        if not math.isclose(rebuilt, est.rtp, rel_tol=0, abs_tol=REBUILD_TOLERANCE):
            result.note = (f"option {option!r}'s RTP is not its exact part plus its states' means ({100 * rebuilt:.4f} % "
                           f"against {100 * est.rtp:.4f} %): only the fixed policies are priced")
            return

    def policy(label: str, pick) -> PolicyRtp:
        picks = {state: pick(state) for state in states}
        chosen = [means[picks[state]][state] for state in states]
        rtp = fixed_part + sum(s.contribution for s in chosen) / per
        ci = math.sqrt(sum((s.probability * s.ci95) ** 2 for s in chosen)) / per
        return PolicyRtp(label, rtp, ci, None, picks)

    options = list(estimates)
    result.highest = policy("highest, picking per trigger state",
                            lambda state: max(options, key=lambda o: means[o][state].mean_extra))
    result.lowest = policy("lowest, picking per trigger state",
                           lambda state: min(options, key=lambda o: means[o][state].mean_extra))
