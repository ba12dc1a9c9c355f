"""What a game module hands to the simulator: a :class:`RoundModel`.

A round model bundles the compiled game (a namedtuple of arrays), the game
module's compiled chunk loop ``run_chunk(params, rng, n_rounds, stratum, acc,
counters)`` (see :mod:`workbench.simulate.chunks`) and the bookkeeping the
engine needs to report it.  The loop calls the module's

``play_round(params, rng, amounts, adjust, counters, stratum)``, which plays
one complete round (the paid spin and everything it triggers) and adds what
it pays to ``amounts`` (pay units, one slot per component), optional
Rao-Blackwell corrections to ``adjust`` and the events it sees to
``counters``.  ``stratum`` is -1 for natural play; ``s >= 0`` asks the round to
*start* in stratum ``s`` (a trigger state or forced random feature) for the
exact + conditional method.

Component conventions:
- ``lines`` and ``scatter:<name>`` hold what the *unmodified* base screen pays
  (exactly what :func:`workbench.exact.par` computes); everything a feature
  changes or adds goes to that feature's components, so for any round
  ``extra = total - (lines + scatters)`` is the features' part;
- ``cap`` holds the (negative) amount removed by a max-win cap (a round template's own, and the
  bet mode's ``max_win``, which :func:`workbench.simulate.chunks.record_round` applies to every
  round: ``max_win_units``, counters ``max_win`` and ``max_win:base``);
- names starting with ``option:`` are what another player choice would have
  paid (informational, not part of the round's total).
"""

from __future__ import annotations

import re
from collections import namedtuple
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..model import Game, rules


@dataclass(frozen=True)
class Feature:
    """A feature for reporting: how often it starts and what it pays.

    ``counter`` counts its starts; ``components`` are the amounts it pays; ``spins`` and ``retriggers`` name the
    counters of its spins and retriggers ("": the templates' naming, ``<counter>:spins`` or ``<counter>:respins``
    and ``<counter>:retriggers``, where the model has them).
    """

    name: str
    counter: str
    components: tuple
    spins: str = ""
    retriggers: str = ""


@dataclass(frozen=True)
class Option:
    """A player choice: component ``chosen`` holds what the played choice pays;
    ``alternatives`` maps each option name to the component that records what
    that option would have paid in the same rounds."""

    name: str
    chosen: str
    alternatives: dict


@dataclass(frozen=True)
class Stratum:
    """A trigger state (or forced random feature) with its exact probability per round.

    ``moves_with_base_strips``: the state's mean extra win changes with any stop of the base strips (a chain
    played on them, such as a tumble's cascades), not only through the trigger probability: it cannot be held
    while the base strips are edited or tuned.  ``first_screen``: a round of the state plays its trigger screen
    too (drawn given the state), so a max-win cap on the whole round cuts it as in natural play; a state that
    starts its feature without one cannot carry a cap that the first screen and the feature reach together
    (:func:`workbench.simulate.plan.checked_plan`).  ``end_to_end``: the state is every round, played as the
    player plays it (natural play, features and all; :data:`workbench.simulate.plan.WHOLE_ROUND`)."""

    name: str
    probability: Fraction
    moves_with_base_strips: bool = False
    first_screen: bool = False
    end_to_end: bool = False


@dataclass(frozen=True)
class RoundModel:
    game: Game
    components: tuple
    counters: tuple
    params: Any
    run_chunk: Any  # the game module's compiled chunk loop
    strata: tuple = ()
    features: tuple = ()
    options: tuple = ()
    jackpots: tuple = ()
    stake: float | None = None  # total bet in currency the model was built for (caps)
    cap_total_bets: float | None = None  # max win in x total bet at that stake
    max_win_units: int = 0  # the bet mode's max_win in pay units, applied to every round when recorded (0: none)
    notes: dict = field(default_factory=dict)
    # a proven bound of what one round pays, summed over the absolute values of its components (pay units; the
    # template's RoundBound, see workbench.rounds.bounds); 0: none is known (the run's own checks guard its sums)
    max_round_units: int = 0
    # components whose exact mean per natural round is known (pay units, float): an end-to-end plan without a max-win
    # cap uses each as a control variate (its exact mean in place of what the rounds drew; the rest of the round's
    # extra keeps its own spread); the round template's rules do not change
    exact_means: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", c_contiguous(self.params))

    @property
    def wager(self) -> float | None:
        """One round's price in currency at :attr:`stake` (the base total bet x the bet mode's cost): what a round
        feeds the must-drop jackpots."""
        if self.stake is None:
            return None
        return float(self.stake) * float(self.game.bet_mode.cost)

    @property
    def exact_components(self) -> tuple:
        """What the first screen pays, priced by :func:`workbench.exact.par`: the pay rule, scatter groups and the
        bonus award tables of combination or scatter triggers (``bonus:<name>``)."""
        paid_by_rule = rules.names()  # a rule's component is named after it
        return tuple(i for i, c in enumerate(self.components)
                     if c in paid_by_rule or c.startswith(("scatter:", "bonus:")))

    @property
    def informational_components(self) -> tuple:
        return tuple(i for i, c in enumerate(self.components) if c.startswith("option:"))

    def component_index(self, name: str) -> int:
        return self.components.index(name)

    def counter_index(self, name: str) -> int:
        return self.counters.index(name)


def c_contiguous(params):
    """``params`` with every array in it C-contiguous (namedtuples and tuples rebuilt, anything else kept).

    numba compiles a chunk loop once per argument *type*, and an array's memory layout (C, Fortran or neither) is
    part of its type: a transposed table (both-ways lines' tables were Fortran-ordered) makes a game that uses
    nothing new compile its template's whole round again (issue 33: a game on existing mechanics adds no compile
    time; tests/test_compile_sharing.py)."""
    if isinstance(params, np.ndarray):
        return params if params.flags.c_contiguous else np.ascontiguousarray(params)
    if isinstance(params, tuple):
        items = [c_contiguous(item) for item in params]
        if all(new is old for new, old in zip(items, params)):
            return params
        return type(params)(*items) if hasattr(params, "_fields") else tuple(items)
    return params


def named_indices(type_name: str, names, module: str):
    """Positions of ``names`` as a namedtuple instance: ``C = named_indices("Components",
    ("lines", "scatter:GOLD"), __name__)`` gives ``C.lines == 0``, ``C.scatter_GOLD == 1``.

    Compiled rounds read component and counter slots by name (a global
    namedtuple is a compile-time constant in numba), so the slots always follow
    the order of the names the round reports.  Characters that cannot appear in
    a Python name become ``_``; ``module`` is the caller's ``__name__``.
    """
    fields = [re.sub(r"\W", "_", name) for name in names]
    if len(set(fields)) != len(fields):
        raise ValueError(f"{type_name}: names {names} collide once spelled as identifiers")
    return namedtuple(type_name, fields, module=module)(*range(len(fields)))


#: the slot of ``bonus:<trigger>`` (bonuses started) in the counters of a round with a bonus-award trigger:
#: :func:`bonus_reporting` lists it first (its name follows the trigger's, so it has no fixed field name)
BONUS_COUNTER = 0


def bonus_reporting(game: Game) -> dict:
    """RoundModel counters and features of the bonus-award trigger: ``bonus:<name>`` counts the bonuses started."""
    awarding = [name for name, t in game.triggers.items() if t.award is not None]
    if not awarding:
        return {"counters": ()}
    name = awarding[0]
    return {"counters": (f"bonus:{name}",), "features": (Feature(name, f"bonus:{name}", (f"bonus:{name}",)),)}
