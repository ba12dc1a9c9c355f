"""Designer widgets for notebooks (JupyterLab, Voila): live exact RTP while editing.

- :class:`StripEditor` — edit reel strips stop by stop, see the exact PAR
  summary (x total bet) change against the saved file, undo, save, reload;
- :class:`TableWeightsEditor` — edit the weights of weighted tables (wheels,
  award tables): probability and EV per entry, feature and total RTP;
- :class:`SimulationPanel` — run a simulation with a progress bar and show
  the RTP converging inside its confidence funnel;
- :class:`RoundViewer` — find a round of a seeded simulation, replay it and
  step through its screens;
- :class:`TunerPanel` — tune the strips to a target RTP (fewest stops
  changed, kept figures in their bands), see what changed, save a new file.

All logic lives in small classes here; the notebooks in ``notebooks/`` only
create and display them.  Every panel is drivable from code by setting widget
values and calling ``button.click()``.
"""

from .notice import compile_notice
from .session import EditSession, rebase
from .round_viewer import RoundViewer
from .simulation import SimulationPanel, convergence_figure
from .strip_editor import StripEditor
from .summary import Metric, ParResult, par_metrics, timed_par
from .table_editor import TableWeightsEditor, table_ev
from .tuner import TunerPanel, default_vary

__all__ = [
    "EditSession",
    "Metric",
    "ParResult",
    "RoundViewer",
    "SimulationPanel",
    "StripEditor",
    "TableWeightsEditor",
    "TunerPanel",
    "compile_notice",
    "convergence_figure",
    "default_vary",
    "par_metrics",
    "rebase",
    "table_ev",
    "timed_par",
]
