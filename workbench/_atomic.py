"""Writing files so that a crash leaves either the old or the new version, never a broken one.

One write of a file ``NAME`` (symlinks are followed: the real file is written and
the link is kept) goes through these steps, all in the real file's folder:

1. **lock**: an exclusive ``fcntl.flock`` on ``.NAME.lock``, so that two writers
   (processes or threads) never interleave their check and rename; a writer
   waits up to :data:`LOCK_TIMEOUT` seconds, then is refused.  The lock file is
   empty and removed again when the write ends (a killed writer leaves it
   behind; the next write reuses and removes it);
2. **check**: the caller's ``check`` sees the bytes now on disk (the save of a
   reelset refuses if they are not what the game was loaded from);
3. **clean**: temp files ``.NAME.XXXXXXXX.tmp`` left by an earlier writer that
   was killed are removed (only names of exactly that pattern, only regular
   files older than this write, and only while holding the lock, so never a
   temp file another writer is still filling);
4. **backup** (optional): the old file is hard-linked (or, where links are not
   possible, copied) to a temp name and renamed to ``NAME.bak``, so
   ``NAME.bak`` is always a complete earlier version;
5. **write**: a temp file in the same folder, flushed with ``fsync``, given the
   old file's permissions (and owner, where allowed), renamed over ``NAME``
   (``os.replace`` is atomic), then the folder is fsynced so the rename
   itself survives a power cut.

Output files (workbooks, CSV, JSON, HTML, executed notebooks) go through
:func:`write_output`: the same steps without the backup, the content made in
memory first.

At most one temp file of ``NAME`` exists at any moment, so a kill leaves at
most one behind.  Every failure raises the exception made by the caller's
``error(path, reason)`` (by default :class:`~workbench.errors.WorkbenchError`),
naming the file and the reason; the file itself is then unchanged.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import secrets
import stat
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no advisory locks
    fcntl = None

from .errors import WorkbenchError

#: seconds a writer waits for another writer of the same file before giving up
LOCK_TIMEOUT = 5.0

_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"  # what tempfile.mkstemp uses, 8 of them

ErrorFactory = Callable[[str, str], Exception]
Check = Callable[[Path, "bytes | None"], None]


def _default_error(path: str, reason: str) -> Exception:
    return WorkbenchError(f"{path}: not written: {reason}")


@dataclass(frozen=True)
class WriteResult:
    """What :func:`write_file_atomic` did."""

    path: Path  #: the real file (symlinks resolved)
    previous: bytes | None  #: its content before the write (None: it did not exist)
    written: bool  #: False if the content was already the same (nothing written)
    backup: Path | None = None  #: ``NAME.bak`` if the previous version was kept there
    cleaned: tuple[Path, ...] = ()  #: stale temp files of earlier crashes that were removed


def os_reason(exc: OSError) -> str:
    """A short human reason for an OS error (``disk full``, ``permission denied``, ...)."""
    code = exc.errno
    if code == errno.ENOSPC:
        return "disk full (no space left on device)"
    if code == getattr(errno, "EDQUOT", None):
        return "disk quota exceeded"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.EROFS:
        return "read-only file system"
    if code == errno.ENOENT:
        return "no such file or folder"
    if code == errno.EFBIG:
        return "file too large (over the file system's or the process's file-size limit, ulimit -f)"
    if code == errno.EIO:
        return "input/output error (disk failure?)"
    return exc.strerror or str(exc)


def temp_pattern(name: str) -> re.Pattern:
    """The names of the temp files of file ``name``: ``.NAME.XXXXXXXX.tmp``."""
    return re.compile(r"\." + re.escape(name) + r"\.[a-z0-9_]{8}\.tmp")


def temp_files(path: str | os.PathLike) -> list[Path]:
    """The temp files of ``path`` (its real file) now in its folder, sorted."""
    real = Path(os.path.realpath(path))
    pattern = temp_pattern(real.name)
    try:
        names = os.listdir(real.parent)
    except OSError:
        return []
    return sorted(real.parent / n for n in names if pattern.fullmatch(n))


def lock_path(path: str | os.PathLike) -> Path:
    """The lock file guarding writes of ``path`` (its real file): ``.NAME.lock``."""
    real = Path(os.path.realpath(path))
    return real.parent / f".{real.name}.lock"


def _open_lock_file(path, lock: Path, error: ErrorFactory) -> int:
    """Open (creating it if needed) the lock file ``lock`` of ``path``, never through a link.

    The lock file lives in the file's folder, where someone else may have put a
    symbolic link named ``.NAME.lock``: opening it with ``O_CREAT`` through the
    link would create (or open) the file the link points to, anywhere the user
    can write.  ``O_NOFOLLOW`` makes the open fail on a link instead, and the
    opened file must be a regular file (a FIFO or device planted there is no
    lock either).  An existing regular lock file is reused (a killed writer
    leaves one behind), so ``O_EXCL`` cannot be used; opening it without
    ``O_TRUNC`` changes nothing in it.
    """
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_NONBLOCK", 0)  # (a planted FIFO must not block the open)
    try:
        fd = os.open(lock, flags, 0o644)
    except OSError as exc:
        if os.path.islink(lock):  # O_NOFOLLOW on a link: ELOOP (or EMLINK on some BSDs)
            raise error(str(path), f"the lock file {lock} is a symbolic link, which a save never makes; "
                                   "it is not followed (it could make the save create or change another file): "
                                   "remove the link and save again") from None
        raise error(str(path), f"cannot create the lock file {lock}: {os_reason(exc)}") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise error(str(path), f"cannot look at the lock file {lock}: {os_reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise error(str(path), f"the lock file {lock} is not a regular file; remove it and save again")
    return fd


@contextmanager
def file_lock(path: str | os.PathLike, timeout: float | None = None, error: ErrorFactory = _default_error) -> Iterator[Path]:
    """Hold the exclusive lock of ``path`` (see :func:`lock_path`) for the ``with`` block.

    Waits up to ``timeout`` seconds (default :data:`LOCK_TIMEOUT`) for another
    holder, then raises ``error(path, reason)``.  The lock file is removed on
    release; a waiter that then holds a lock on the removed file notices (its
    inode is no longer the one at the path) and locks the new one instead.
    """
    lock = lock_path(path)
    if fcntl is None:  # pragma: no cover
        yield lock
        return
    timeout = LOCK_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + timeout
    while True:
        fd = _open_lock_file(path, lock, error)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise error(
                            str(path),
                            f"another save of this file is in progress (lock {lock} held by another process "
                            f"for more than {timeout:g} s); try again",
                        ) from None
                    time.sleep(0.01)
                except OSError as exc:
                    raise error(str(path), f"cannot lock {lock}: {os_reason(exc)}") from None
            held = os.fstat(fd)
            try:
                now = os.lstat(lock)  # (lstat: a link swapped in meanwhile is not the file we hold)
                same = (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            break
        os.close(fd)  # the previous holder removed that lock file: lock the current one
    try:
        yield lock
    finally:
        try:
            os.unlink(lock)  # while still holding it (see the docstring)
        except OSError:
            pass
        os.close(fd)


def clean_stale_temps(path: Path, older_than_ns: int) -> tuple[Path, ...]:
    """Remove the temp files of ``path`` (real path, lock held) last modified before ``older_than_ns``."""
    pattern = temp_pattern(path.name)
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return ()
    for entry in entries:
        if not pattern.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and st.st_mtime_ns < older_than_ns:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue  # not ours to worry about: leave it
    return tuple(sorted(removed))


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_temp_name(real: Path) -> Path:
    return real.parent / f".{real.name}.{''.join(secrets.choice(_TEMP_CHARS) for _ in range(8))}.tmp"


def _fsync_folder(folder: Path) -> None:
    if not hasattr(os, "O_DIRECTORY"):  # pragma: no cover - Windows
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _keep_backup(real: Path, previous: bytes, mode: int) -> Path:
    """Make ``NAME.bak`` the complete old file, atomically (hard link, else copy; then rename)."""
    backup = real.with_name(real.name + ".bak")
    try:
        if os.path.samefile(real, backup):
            # already a link to the current file (a save was killed after making it): nothing to do.
            # (Renaming a second link of the same file over it would be a no-op leaving the temp.)
            return backup
    except OSError:
        pass
    while True:
        tmp = _new_temp_name(real)
        try:
            os.link(real, tmp)
            break
        except FileExistsError:
            continue
        except OSError:  # no hard links here (some file systems): copy instead
            fd, name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
            tmp = Path(name)
            try:
                _write_all(fd, previous)
                os.fchmod(fd, mode)
                os.fsync(fd)
            except BaseException:
                os.close(fd)
                os.unlink(tmp)
                raise
            os.close(fd)
            break
    try:
        os.replace(tmp, backup)
    finally:
        # gone after a rename, except when ``backup`` was already a link to the same file
        # (rename then does nothing) or the rename failed
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return backup


def write_file_atomic(
    path: str | os.PathLike,
    data: bytes,
    *,
    check: Check | None = None,
    backup: bool = False,
    skip_unchanged: bool = True,
    lock_timeout: float | None = None,
    error: ErrorFactory = _default_error,
) -> WriteResult:
    """Replace the content of ``path`` by ``data`` atomically (the steps are in the module docstring).

    ``check(real_path, current_bytes_or_None)`` runs under the lock and may raise
    to refuse the write.  A read-only file (no write permission for this user,
    or no write bit at all) is refused, as is a folder that does not exist or a
    path that is not a regular file.  With ``skip_unchanged`` nothing is written
    if the file already holds ``data``.  Failures raise ``error(str(path), reason)``;
    the file is unchanged after any failure (``NAME.bak``, when asked for, may
    already hold the current version).
    """
    shown = str(path)
    real = Path(os.path.realpath(path))
    linked = "" if str(real) == os.path.abspath(shown) else f" {real}"  # named when a link points there

    def fail(reason: str) -> Exception:
        return error(shown, reason)

    folder = real.parent
    if not folder.is_dir():
        raise fail(f"the folder {folder} does not exist")
    with file_lock(real, lock_timeout, lambda _p, reason: error(shown, reason)):
        start_ns = time.time_ns()
        try:
            st = os.stat(real)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise fail(f"cannot look at the file: {os_reason(exc)}") from None
        previous = None
        if st is not None:
            if stat.S_ISDIR(st.st_mode):
                raise fail("is a folder, not a file")
            if not stat.S_ISREG(st.st_mode):
                raise fail("is not a regular file")
            try:
                previous = real.read_bytes()
            except OSError as exc:
                raise fail(f"cannot read the current file: {os_reason(exc)}") from None
        if check is not None and previous != data:
            check(real, previous)
        cleaned = clean_stale_temps(real, start_ns)
        if skip_unchanged and previous == data:
            return WriteResult(real, previous, False, None, cleaned)
        if st is not None and (not os.access(real, os.W_OK) or not st.st_mode & 0o222):
            raise fail(f"the file{linked} is read-only (no write permission); make it writable or save under another name")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise fail(f"cannot create files in the folder {folder}: permission denied")
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
        kept = None
        if backup and previous is not None:
            try:
                kept = _keep_backup(real, previous, mode)
            except OSError as exc:
                raise fail(f"cannot keep the previous version as {real.name}.bak: {os_reason(exc)}") from None
        tmp = None
        step = f"writing a temp file in {folder}"
        try:
            fd, name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=folder)
            tmp = Path(name)
            try:
                _write_all(fd, data)
                os.fchmod(fd, mode)
                if st is not None and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
                    try:
                        os.fchown(fd, st.st_uid, st.st_gid)
                    except OSError:
                        pass  # not allowed: the file becomes ours, as any editor would do
                os.fsync(fd)
            finally:
                os.close(fd)
            step = f"renaming the temp file over {real}"
            os.replace(tmp, real)
            tmp = None
            step = f"flushing the folder {folder}"
            _fsync_folder(folder)
        except OSError as exc:
            reason = os_reason(exc)
            if tmp is None and step.startswith("flushing"):
                raise fail(f"written, but {step} failed: {reason}") from None
            raise fail(f"{reason} while {step}; the file is unchanged") from None
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        return WriteResult(real, previous, True, kept, cleaned)


def atomic_write_text(path: str | os.PathLike, text: str, *, lock_timeout: float | None = None) -> WriteResult:
    """Write ``text`` (UTF-8, line endings as given) to ``path`` so that a crash leaves the old or the new file.

    See :func:`write_file_atomic`; raises :class:`~workbench.errors.WorkbenchError`
    naming the file and the reason if it cannot be written.
    """
    return write_file_atomic(path, text.encode("utf-8"), lock_timeout=lock_timeout)


def _output_error(path: str, reason: str) -> Exception:
    return WorkbenchError(f"cannot write {path}: {reason}")


def _drop_os_errors(previous):
    """An ``sys.unraisablehook`` passing everything but OS errors to ``previous``.

    openpyxl writes each sheet through a generator holding an open temp file:
    when the disk fills up, the exception propagates and, when that generator
    is collected, its cleanup fails once more and Python prints "Exception
    ignored in ... Traceback" on stderr.  That second report of the same
    failure is noise (the caller reports the failure once, naming the file),
    so while a writer runs OS errors of such tear-downs are dropped; any other
    unraisable exception still goes to the usual hook.
    """
    def hook(unraisable):
        if not isinstance(unraisable.exc_value, OSError):
            previous(unraisable)

    return hook


def write_output(path: str | os.PathLike, data, *, error: ErrorFactory = _output_error) -> WriteResult:
    """Write an output file (workbook, CSV, JSON, HTML, executed notebook) so that a failure leaves the previous one.

    ``data``: bytes, text (written as UTF-8, line endings as given), or a
    function ``write(binary_file)`` that writes the content into a file object
    (``book.save``, ``ExcelWriter``): it writes into memory first, so nothing
    of the target is touched until the whole content exists.  The content then
    goes through :func:`write_file_atomic` (temp file in the same folder,
    fsync, rename, folder fsync; no backup), so a full disk, a kill or any
    other failure leaves the previous file byte for byte.  Failures raise
    ``error(str(path), reason)``, by default a
    :class:`~workbench.errors.WorkbenchError` ``cannot write PATH: reason``.
    """
    if callable(data):
        import io

        buffer = io.BytesIO()
        failure = None
        previous = sys.unraisablehook
        sys.unraisablehook = _drop_os_errors(previous)
        try:
            try:
                data(buffer)
            except OSError as exc:  # the writer's own temp files (openpyxl: one per sheet in the temp folder)
                failure = (f"{os_reason(exc)} while preparing the content (in the temporary folder "
                           f"{tempfile.gettempdir()}); the file is unchanged")
            if failure is not None:
                gc.collect()  # tear the failed writer down now (its frames are freed), while its errors are dropped
        finally:
            sys.unraisablehook = previous
        if failure is not None:
            raise error(str(path), failure)
        data = buffer.getvalue()
    elif isinstance(data, str):
        data = data.encode("utf-8")
    return write_file_atomic(path, bytes(data), error=error)


def missing_folder_reason(folder: str | os.PathLike) -> str:
    """Why ``folder`` (which does not exist) cannot hold a new file: the first ancestor
    that exists but is not a folder (``/dev/null/x``), or simply that it does not exist."""
    folder = Path(folder)
    top = folder
    while not top.parent.exists() and top.parent != top:
        top = top.parent
    if top.parent.exists() and not top.parent.is_dir():
        return f"{top.parent} is not a folder"
    return f"the folder {folder} does not exist"
