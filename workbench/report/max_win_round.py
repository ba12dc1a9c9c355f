"""The report's pictures of the largest simulated win: the round replayed and traced, a few of its screens drawn.

The end-to-end simulation knows the round of its largest win (:attr:`SimulationResult.max_win_round`); here it is
traced (:func:`workbench.simulate.trace.trace_round`: the round's own code played again as Python, checked against
the compiled round) and up to :data:`MOST` screens are drawn: the first (the screen the round started with), the one
that added the most to the round's total, and the last.
"""

from __future__ import annotations

#: screens of the largest win drawn in the report
MOST = 3


def chosen_steps(steps: tuple, most: int = MOST) -> list:
    """The first step, the one whose total grew the most over the step before it, and the last (each once)."""
    if not steps:
        return []
    picks = [0, len(steps) - 1]
    if len(steps) > 2:
        growth = [steps[k].total_units - steps[k - 1].total_units for k in range(1, len(steps))]
        picks.insert(1, 1 + max(range(len(growth)), key=growth.__getitem__))
    return [steps[k] for k in sorted(set(picks))][:most]


def max_win_round_figures(sim, game) -> tuple[list, str]:
    """(figures of the largest simulated win's screens, a note on what they show or why there are none)."""
    from ..errors import WorkbenchError
    from ..plot_rounds import screen_figure
    from ..simulate.trace import trace_round

    top = sim.max_win_round
    if top is None:
        return [], "No simulated round won: no largest win to show."
    try:
        trace = trace_round(sim.model, top)
    except WorkbenchError as exc:
        return [], f"The round of the largest simulated win could not be traced: {exc}"
    command = f"workbench replay GAME --seed {top.seed} --round {top.round} --trace"
    if not trace.steps:
        return [], (f"Round {top.round:,} of seed {top.seed} paid the largest simulated win; its screens were "
                    f"not recorded ({command} prints its outcome).")
    steps = chosen_steps(trace.steps)
    price = top.cost_units
    figures = [screen_figure(step, game, total_text=f"{float(step.total_units / price):,.4f}".rstrip("0").rstrip(".")
                             + f" {top.unit}", of_steps=len(trace.steps)) for step in steps]
    win = f"{float(top.win):,.4f}".rstrip("0").rstrip(".")
    head = f"The largest simulated win, round {top.round:,} of seed {top.seed} ({win} {top.unit}), "
    if len(trace.steps) == 1:
        note = head + "has 1 screen, shown below."
    else:
        shown = ", ".join(str(s.index + 1) for s in steps)
        note = (head + f"has {len(trace.steps)} screens; shown: {shown} (the first, the one that added the most to "
                f"the round's total, the last).")
    note += f" Cells of paid wins are outlined. Every screen: {command}."
    return figures, note
