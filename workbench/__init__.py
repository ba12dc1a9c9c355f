"""Slot-game mathematics workbench.

Main entry points::

    from workbench import load_game, par
    game = load_game("classic_tens")      # a shipped name or a path
    sheet = par(game)                     # exact base-game PAR sheet
    sheet.rtp, sheet.hit_frequency, sheet.volatility_index(0.90)
"""

__version__ = "0.1.0"

from ._cache import configure_numba_cache  # noqa: E402  (must run before numba is imported)

configure_numba_cache()

from .errors import ReelsetError, WorkbenchError  # noqa: E402
from .exact import par  # noqa: E402
from .reelset import load_game, loads_game, save_game, shipped_games, validate_file  # noqa: E402

__all__ = ["ReelsetError", "WorkbenchError", "load_game", "loads_game", "par", "save_game", "shipped_games", "validate_file", "__version__"]
