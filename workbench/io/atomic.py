"""Atomic writes of reelsets and output files, and their lock files: see :mod:`workbench._atomic`.

The implementation lives in the package's lowest layer (``workbench._atomic``, beside ``errors``) so that every
layer that writes a file, the exact engine's :meth:`ParSheet.to_excel <workbench.exact.ParSheet.to_excel>` included,
uses the same steps; this module is the file-format layer's name for it.
"""

from .._atomic import (  # noqa: F401  (re-exported)
    LOCK_TIMEOUT,
    Check,
    ErrorFactory,
    WriteResult,
    atomic_write_text,
    clean_stale_temps,
    file_lock,
    lock_path,
    missing_folder_reason,
    os_reason,
    temp_files,
    temp_pattern,
    write_file_atomic,
    write_output,
)
