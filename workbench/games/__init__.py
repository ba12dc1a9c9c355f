"""Game modules: the feature logic a reelset file names with ``game_module``.

A game module is a small Python module that declares the feature parameters
it reads (``FEATURES``: name -> :class:`~workbench.games.params.Param`) and
composes the shared building blocks of :mod:`workbench.simulate` into a round.
"""

from __future__ import annotations

import importlib
from types import ModuleType

# name used in reelset files -> module path
GAME_MODULES = {
    "classic": "workbench.games.classic",
    "super_10_stars": "workbench.games.super_10_stars",
    "bier_haus": "workbench.games.bier_haus",
}


def known_game_modules() -> tuple:
    return tuple(GAME_MODULES)


def game_module(name: str) -> ModuleType:
    """The game module called ``name`` (KeyError if unknown)."""
    return importlib.import_module(GAME_MODULES[name])
