"""Round templates shipped with the workbench (see :mod:`workbench.registry`).

- ``classic`` (:mod:`.plain`): one spin paying its pay rule (lines here,
  ways in :mod:`.ways`, pay anywhere in :mod:`.anywhere`), scatters and a
  declared bonus award table; everything it pays is exact, so its simulation
  cross-checks the simulator against :mod:`workbench.exact`.

A template's compiled module is imported only when a game is simulated; this
package itself is light.  The shipped games' bespoke rounds live in
:mod:`workbench.games`.
"""

from __future__ import annotations

from ..registry import RoundTemplate

PLAIN = RoundTemplate(
    name="classic",
    build="workbench.rounds.plain:round_model",
    summary="One spin paying its pay rule (lines, ways or pay anywhere), scatters and a declared bonus award; no feature "
            "rounds; everything it pays is computed exactly.",
    declared_pays=True,
)
