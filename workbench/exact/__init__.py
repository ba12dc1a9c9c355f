"""Exact, combinatorial base-game math.

``par(game)`` gives the PAR sheet of a game mode: exact RTP by component
(integer hit counts over the full cycle), whole-spin hit frequency, standard
deviation, volatility index and max win, trigger probabilities, and the full
distribution of the spin win when the cycle fits a budget.

Modules: :mod:`.windows` (what each reel shows per stop), :mod:`.enumerate`
(the one walk over window combinations: full-cycle distribution and max-win
search), :mod:`.moments` (whole-spin moments without enumeration),
:mod:`.scatters` (exact scatter counts), :mod:`.wilds` (expected line pays
under random wild features), :mod:`.ways` and :mod:`.anywhere` (the ways and
pay-anywhere rules: product-form and count recursions), :mod:`.cluster`
(cluster pays: a compiled enumeration of every screen), :mod:`.triggers`
(combination triggers and bonus awards), :mod:`.par` (the PAR sheet and its
components).
The pay rules themselves live in :mod:`workbench.pays`.
"""

from ..pays.lines import Combination, LineAutomaton, build_automaton, line_automaton
from ..pays.scale import PayScale, pay_scale
from .enumerate import DEFAULT_BUDGET, cycle_histogram
from .par import ParSheet, par
from .scatters import ScatterCounts, scatter_counts
from .windows import ReelWindows, reel_windows, strip_set_windows

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
