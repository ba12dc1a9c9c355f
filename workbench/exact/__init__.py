"""Exact, combinatorial base-game math.

``par(game)`` gives the PAR sheet of the base game: exact RTP by component
(integer hit counts over the full cycle), whole-spin hit frequency, standard
deviation, volatility index and max win, trigger probabilities, and the full
distribution of the spin win when the cycle fits a budget.
"""

from .cycle import DEFAULT_BUDGET, cycle_histogram
from .lines import Combination, LineAutomaton, build_automaton
from .par import ParSheet, line_automaton, par
from .scatters import ScatterCounts, scatter_counts
from .windows import PayScale, ReelWindows, pay_scale, reel_windows, strip_set_windows

__all__ = [
    "DEFAULT_BUDGET",
    "Combination",
    "LineAutomaton",
    "ParSheet",
    "PayScale",
    "ReelWindows",
    "ScatterCounts",
    "build_automaton",
    "cycle_histogram",
    "line_automaton",
    "par",
    "pay_scale",
    "reel_windows",
    "scatter_counts",
    "strip_set_windows",
]
