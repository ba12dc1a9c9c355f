"""The report's time box (``workbench report --max-seconds``), shared among its simulations.

The report simulates in six places, in this order: the RTP estimate, the RTP per stake, the RTP per bet mode, the
RTP per player choice, the end-to-end run and the feature statistics.  With a box each takes an equal share of the
time still left when it starts (a part with several levels or modes splits its share among them), so the
simulations together end within the box; what is
fixed (kernel start, the exact PAR sheet, tables, plots, HTML) is not boxed.  Every figure still carries the
precision it reached, and :meth:`TimeBudget.note` says what the box cut.
"""

from __future__ import annotations

import time

#: the simulating steps of the report, in order (each takes a share of what is left when it starts)
STEPS = ("rtp", "stakes", "modes", "choices", "simulation", "features")
MIN_SHARE = 0.05  # seconds: a step whose share is gone still plays its first jobs


class TimeBudget:
    """A time box of ``max_seconds`` (None: none) for the report's simulating steps."""

    def __init__(self, max_seconds: float | None = None):
        self.max_seconds = max_seconds
        self.deadline = time.monotonic() + float(max_seconds) if max_seconds else None
        self.cut: list[str] = []  # the steps the box stopped before their precision or their rounds

    def share(self, step: str, parts: int = 1) -> float | None:
        """Seconds for one of ``parts`` parts of ``step`` (None without a box)."""
        if self.deadline is None:
            return None
        left_steps = len(STEPS) - STEPS.index(step)
        return max(self.deadline - time.monotonic(), MIN_SHARE) / left_steps / max(parts, 1)

    def record(self, step: str, result) -> None:
        """Note ``step`` as cut when ``result`` (an estimate or a simulation) stopped at its box."""
        if getattr(result, "stopped_by", None) == "time box" and step not in self.cut:
            self.cut.append(step)

    def note(self) -> str:
        """What the box cut, for the report ('' when nothing)."""
        if not self.cut:
            return ""
        names = {"rtp": "the RTP estimate", "stakes": "the RTP per stake", "modes": "the RTP per bet mode",
                 "choices": "the RTP per player choice", "simulation": "the end-to-end simulation",
                 "features": "the feature statistics"}
        return (f"The report's time box of {self.max_seconds:g} s stopped {', '.join(names[s] for s in self.cut)} before "
                "the precision or the rounds asked for; each figure gives the precision it reached.")
