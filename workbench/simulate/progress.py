"""Progress of a long run, on stderr: tqdm's bar on a terminal, a plain line every few seconds elsewhere.

A run that a designer waits for (``workbench rtp``, ``simulate``, ``report``, ``tune``) says how far it is: the
rounds played, the current figure with its 95 % half-width when there is one, and the time left.  On a terminal
that is tqdm's bar with the figure beside it; in a log or a pipe (CI, ``2> run.log``) a carriage-return bar would be
one endless line, so a line is printed every :data:`LINE_SECONDS` instead.  ``--quiet`` turns both off; the result on
stdout (``--json`` included) never changes.
"""

from __future__ import annotations

import sys
import time

#: seconds between two progress lines when stderr is not a terminal (the first comes sooner)
LINE_SECONDS = 5.0
FIRST_LINE_SECONDS = 2.0


class LineProgress:
    """tqdm's ``update`` / ``refresh`` / ``close`` / ``total`` / ``set_postfix_str``, printed as plain lines."""

    def __init__(self, label: str, total: int | None = None, unit: str = "round", stream=None,
                 interval: float = LINE_SECONDS):
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.n = 0
        self.status = ""
        self._start = time.monotonic()
        self._last = self._start
        self._closed = False

    def update(self, n: int = 1) -> None:
        self.n += int(n)
        now = time.monotonic()
        first = self._last == self._start
        if now - self._last >= (min(FIRST_LINE_SECONDS, self.interval) if first else self.interval):
            self._last = now
            self._print()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.status = text

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        if not self._closed and self._last != self._start:
            self._print()  # the last state of a run long enough to have printed before
        self._closed = True

    def _print(self) -> None:
        seconds = time.monotonic() - self._start
        of = f" of {self.total:,}" if self.total else ""
        rate = self.n / seconds if seconds > 0 else 0.0
        left = ""
        if self.total and rate > 0 and self.n < self.total and not self.status:
            left = f", about {(self.total - self.n) / rate:,.0f} s left"
        status = f", {self.status}" if self.status else ""
        print(f"{self.label}: {self.n:,}{of} {self.unit}s in {seconds:,.0f} s{status}{left}", file=self.stream, flush=True)


def terminal_progress(label: str, total: int | None, unit: str = "round"):
    """tqdm's bar when stderr is a terminal, else a :class:`LineProgress`."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, unit=unit, unit_scale=True, dynamic_ncols=True, leave=False, desc=label)
    return LineProgress(label, total, unit)


def eta_text(done: int, needed: float, elapsed: float, deadline_left: float | None) -> str:
    """'about N s left' from the rate so far and the rounds still needed (capped by the time box), or ''."""
    if done <= 0 or elapsed <= 0:
        return ""
    left = max(needed - done, 0) / (done / elapsed)
    if deadline_left is not None and deadline_left < left:
        return f"time box ends in {max(deadline_left, 0):,.0f} s"
    return f"about {left:,.0f} s left"
