"""Where the package keeps numba's compiled code: the base folder.

The cache itself (a folder per module, keyed by that module's source and the
sources it imports, with an ownership check) lives in :mod:`workbench._jit`.
This module must not import numba.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The base folder of the compiled-code cache.

    ``$NUMBA_CACHE_DIR`` if the user set it, else
    ``$XDG_CACHE_HOME/workbench/numba`` (``~/.cache/workbench/numba``).
    """
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    home = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return home / "workbench" / "numba"

