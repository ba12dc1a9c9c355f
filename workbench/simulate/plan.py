"""Which rounds the exact + conditional method simulates: the template's strata, when their assumptions hold.

A round template's strata (trigger states with exact probabilities, see :class:`~workbench.simulate.model.Stratum`)
are a variance-reduction plan beside the game's rules: a stratum round starts in its state, often without playing
the trigger screen, and the estimate adds P(state) x E[round - first screen | state] to the exact first screen.
That is right only when what the plan leaves out cannot change the round.  :func:`checked_plan` checks the
assumptions that can be checked from the model when it is built, and where one fails replaces the strata by one
stratum of probability 1 that plays every round end to end (:data:`WHOLE_ROUND`): the estimate is then the exact
first screen plus the simulated mean of (round - first screen) over natural rounds, right whatever the rules, with
more variance.  The reason is kept in ``model.notes["plan"]`` and shown with every estimate.

Checked:

- a max-win cap (``[bet] max_win`` or a bet mode's) applies to the whole round, first screen and feature together;
  a stratum that starts its feature without its trigger screen would cap the feature alone;
- rounds that pay components outside the exact first screen need strata that cover them (a template with
  feature components and no strata would otherwise be priced as its first screen alone).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from .model import RoundModel, Stratum

#: the stratum of the end-to-end plan: every round, natural play (its lane plays rounds as :func:`simulate` does)
WHOLE_ROUND = "whole round (end to end)"


def plan_problems(model: RoundModel) -> list[str]:
    """Why the template's strata cannot price this game (empty: they can)."""
    problems = []
    active = [s for s in model.strata if s.probability > 0]
    if model.max_win_units and not model.game.bet_mode.buy:
        blind = [s.name for s in active if not s.first_screen]
        if blind:
            cap = model.max_win_units / model.params.cost_units
            problems.append(f"the max_win cap ({cap:,.6g} x total bet) applies to first screen and feature together, and "
                            f"the states {', '.join(blind[:3])}{' ...' if len(blind) > 3 else ''} start their feature "
                            f"without the trigger screen")
    exact = set(model.exact_components) | set(model.informational_components)
    extra = [c for i, c in enumerate(model.components) if i not in exact and c != "cap"]
    if extra and not active:
        problems.append(f"the round pays {', '.join(extra)} beyond the first screen, and its template declares no "
                        f"trigger states for them")
    return problems


def checked_plan(model: RoundModel) -> RoundModel:
    """``model`` with its strata when :func:`plan_problems` finds none, else with the end-to-end plan."""
    problems = plan_problems(model)
    return end_to_end_plan(model, "; ".join(problems)) if problems else model


def is_end_to_end(model: RoundModel) -> bool:
    return any(s.end_to_end for s in model.strata)


def end_to_end_plan(model: RoundModel, reason: str) -> RoundModel:
    """``model`` whose exact + conditional estimate simulates every round end to end, because of ``reason``.

    The one stratum (:data:`WHOLE_ROUND`, probability 1) plays natural rounds; the estimate is the exact first
    screen E[B] plus the simulated mean of (round win - B), and the round's spread, hit frequency and largest win
    come from those rounds directly.  A buy plays no first screen: its bought feature is natural play already."""
    if model.game.bet_mode.buy or is_end_to_end(model):
        return model
    whole = Stratum(WHOLE_ROUND, Fraction(1), moves_with_base_strips=True, first_screen=True, end_to_end=True)
    notes = dict(model.notes)
    notes["plan"] = "every round simulated end to end: " + reason
    return replace(model, strata=(whole,), notes=notes)
