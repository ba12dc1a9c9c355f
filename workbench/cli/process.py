"""Exit statuses and stop signals of the ``workbench`` process (Ctrl-C, SIGTERM: the result is printed whole)."""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager


EXIT_OK = 0


EXIT_FAILED = 1  # check: a compliance check failed (the table says which, with its evidence)


EXIT_PROBLEM = 2


EXIT_UNREACHED = 3  # tune: the target cannot be reached under the constraints (the closest result is printed)


EXIT_UNCONFIRMED = 4  # tune: tuned, but the re-estimate of the tuned file does not confirm the target (docs/tuning.md)


EXIT_INTERRUPTED = 130  # stopped by SIGINT (Ctrl-C): 128 + 2


EXIT_TERMINATED = 143  # stopped by SIGTERM (a scheduler, `docker stop`): 128 + 15


def _os_reason(exc: OSError) -> str:
    try:
        from ..io.atomic import os_reason

        return os_reason(exc)
    except ImportError:  # pragma: no cover
        return exc.strerror or str(exc)


class _Stops:
    """Stop signals (SIGINT, SIGTERM) received by this ``workbench`` command."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.defer = 0  # > 0 while a finished result is printed


_STOPS = _Stops()


@contextmanager
def _stops_deferred():
    """Within: a stop signal is only recorded (a result being printed is printed whole)."""
    _STOPS.defer += 1
    try:
        yield
    finally:
        _STOPS.defer -= 1


def _on_stop_signal(signum, frame) -> None:
    """Handler for SIGINT and SIGTERM in the ``workbench`` process: during a simulation the run
    stops at its next safe point and prints what it has (see
    :func:`workbench.simulate.stops.on_stop_signal`); while a result is printed, it waits for
    the end of it; elsewhere it stops at once."""
    _STOPS.received.append(signum)
    if _STOPS.defer:
        return
    stops = sys.modules.get("workbench.simulate.stops")
    if stops is None:
        raise KeyboardInterrupt(signal.Signals(signum).name)
    stops.on_stop_signal(signum, frame)


def _install_stop_handlers() -> dict:
    """Install the stop handler for SIGINT and SIGTERM (main thread only); returns the handlers to restore."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handler = _on_stop_signal
    old = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            old[signum] = signal.signal(signum, handler)
        except (ValueError, OSError):  # pragma: no cover
            pass
    return old
