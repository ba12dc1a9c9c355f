"""Stop signals (SIGINT, SIGTERM) during a run: the run stops at a safe point and its partial result is still made.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


# ---------------------------------------------------------------------------
# stopping on SIGINT / SIGTERM
# ---------------------------------------------------------------------------
class RunStopped(KeyboardInterrupt):
    """A stop signal (SIGINT, SIGTERM) arrived where work could not wait for a safe point."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _StopState:
    depth = 0  # runs active in this process (estimate_rtp nests the runs of its batches)
    requested: int | None = None  # first stop signal received during the active run
    playing = 0  # the main thread is playing a job itself: 1, 2 if it is its first (it may be compiling)


_STOP = _StopState()


def on_stop_signal(signum: int, frame=None) -> None:
    """Signal handler for SIGINT and SIGTERM.

    During a run (:func:`stop_scope`) the first signal only asks the run to
    stop: it ends at its next safe point (after the job being played in this
    process, or within 0.2 s when workers play), with every finished job
    recorded.  While this process plays its first job (which may spend a
    minute compiling), or on a second signal, it stops at once, losing the
    job being played.  Outside a run it raises :class:`RunStopped` (a
    ``KeyboardInterrupt``) at once.  The
    ``workbench`` command installs it for both signals; :func:`stop_scope`
    installs it for SIGINT during a run when SIGINT has Python's default
    handler.  Nothing is installed at import.
    """
    if _STOP.depth == 0:
        raise RunStopped(signum)
    repeated = _STOP.requested is not None
    if not repeated:
        _STOP.requested = signum
    if _STOP.playing == 2 or (_STOP.playing and repeated):
        raise RunStopped(signum)


def stop_requested() -> int | None:
    """The signal that asked the active run to stop, or None."""
    return _STOP.requested if _STOP.depth else None


@contextmanager
def stop_scope() -> Iterator[None]:
    """Make stop signals ask the run to stop at a safe point while the block runs (see :func:`on_stop_signal`)."""
    outer = _STOP.depth == 0
    restore = None
    if outer:
        _STOP.requested = None
        if threading.current_thread() is threading.main_thread():
            try:
                if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                    restore = signal.signal(signal.SIGINT, on_stop_signal)
            except (ValueError, OSError):  # pragma: no cover - no signals here
                restore = None
    _STOP.depth += 1
    try:
        yield
    finally:
        _STOP.depth -= 1
        if restore is not None:
            signal.signal(signal.SIGINT, restore)
