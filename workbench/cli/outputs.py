"""Output paths checked before any work starts, and what the commands print (JSON, plain numbers)."""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

from ..errors import WorkbenchError


# ---------------------------------------------------------------------------
# output paths: checked before any work starts
# ---------------------------------------------------------------------------
def _cannot_write(path, reason: str) -> WorkbenchError:
    return WorkbenchError(f"cannot write {path}: {reason}")


def _probe_folder(path, folder: Path) -> None:
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=".workbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _cannot_write(path, f"cannot create files in {folder}: {(exc.strerror or str(exc)).lower()}") from None


def check_output_file(path: str) -> None:
    """Refuse (WorkbenchError ``cannot write PATH: reason``) a file that cannot be written:
    its folder missing or not writable, a folder or special file in its place."""
    p = Path(path)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise _cannot_write(path, (exc.strerror or str(exc)).lower()) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _cannot_write(path, "is a folder, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _cannot_write(path, "is not a regular file")
    folder = Path(os.path.realpath(p)).parent if st is not None else p.parent
    if not folder.exists():
        from ..io.atomic import missing_folder_reason

        raise _cannot_write(path, missing_folder_reason(folder))
    if not folder.is_dir():
        raise _cannot_write(path, f"{folder} is not a folder")
    _probe_folder(path, folder)
    if st is not None:
        try:
            os.close(os.open(p, os.O_WRONLY))
        except OSError as exc:
            raise _cannot_write(path, (exc.strerror or str(exc)).lower()) from None


def check_output_folder(path: str) -> None:
    """Make the output folder ``path`` (and missing parents) or refuse it (``cannot write PATH: reason``)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise _cannot_write(path, "is not a folder")
    if not p.exists():
        top = p
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        if top.parent.exists() and not top.parent.is_dir():
            raise _cannot_write(path, f"{top.parent} is not a folder")
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _cannot_write(path, f"cannot create folders in {top.parent}: {(exc.strerror or str(exc)).lower()}") from None
    _probe_folder(path, p)


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _finite(obj):
    """Replace inf/nan by None so the output is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def print_json(data) -> None:
    print(json.dumps(_finite(data), indent=2, default=_json_default))


def plain_number(v: float) -> str:
    """A table float with 6 significant digits and never in scientific notation (as a test lab reads them):
    ``2.57349e-05 -> 0.0000257349``, ``92044900.3 -> 92,044,900``."""
    import math

    from ..report.formats import fmt_prob

    if not math.isfinite(v):
        return str(v)
    return f"{v:,.0f}" if abs(v) >= 1e6 else fmt_prob(v, 6)
