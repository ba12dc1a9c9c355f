"""Where numba keeps compiled code: a folder per version of the package's source.

Numba's on-disk cache notices edits to a function's own file but not to the
functions it inlines from other files.  Keying the cache folder by a hash of
all of the package's source files makes any edit start a fresh cache, so a
stale compiled round can never run.  ``NUMBA_CACHE_DIR`` set by the user wins.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def configure_numba_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    # only the packages holding compiled code matter
    sources = [p for sub in ("exact", "simulate", "games") for p in (package / sub).rglob("*.py")]
    for path in sorted(sources):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "workbench" / "numba"
    os.environ["NUMBA_CACHE_DIR"] = str(base / digest.hexdigest()[:16])
