"""Slot-game mathematics workbench.

Main entry points::

    from workbench import load_game, par
    game = load_game("classic_tens")      # a shipped name or a path
    sheet = par(game)                     # exact base-game PAR sheet
    sheet.rtp, sheet.hit_frequency, sheet.volatility_index(0.90)

``import workbench`` is light: the names below are imported on first use, so
numba, pandas and matplotlib load only when something needs them.  The
layers, lowest first: :mod:`.errors`, :mod:`.model`, :mod:`.stats`,
:mod:`.registry`, :mod:`.io`, :mod:`.pays`, :mod:`.exact`, :mod:`.reference`,
:mod:`.simulate`, :mod:`.rounds`, :mod:`.games`, then :mod:`.plots`,
:mod:`.tuning`, :mod:`.report`, :mod:`.widgets` and :mod:`.cli` (see
docs/architecture.md).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> module defining it
_LAZY = {
    "ReelsetError": "workbench.errors",
    "WorkbenchError": "workbench.errors",
    "load_game": "workbench.io",
    "loads_game": "workbench.io",
    "save_game": "workbench.io",
    "shipped_games": "workbench.io",
    "validate_file": "workbench.io",
    "par": "workbench.exact",
}

__all__ = [*_LAZY, "__version__"]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'workbench' has no attribute {name!r}")


def __dir__() -> list:
    return sorted([*globals(), *_LAZY])
