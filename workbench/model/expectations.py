"""A reelset's declared expectations (``[expectations]``): the figures its designer intends, per bet mode.

Pure data, validated by :mod:`workbench.io.sections.expectations` and checked against measured figures by
:mod:`workbench.report.expectations`.  Every figure of a mode is x that mode's own cost (as every figure of a bet
mode is), except ``max_win``, which is x the base game's total bet like the ``max_win`` caps of the same file.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

DEFAULT_RTP_TOLERANCE = 0.0005  # ± 0.05 points around a declared RTP
VOLATILITY_CONFIDENCE = 0.90  # the volatility index declared: z(90 %) = 1.6449 x the std of a round's win


@dataclass(frozen=True)
class Expectation:
    """The declared figures of one mode (``base`` or a ``[bet_modes.*]`` name); None: not declared.

    ``rtp`` and ``rtp_tolerance``: fractions (0.9618 = 96.18 %), the RTP x the mode's cost within ``rtp ±
    rtp_tolerance``; ``hit_frequency``: (low, high) fractions of rounds with any win; ``volatility_index``: (low,
    high), 1.6449 x the std of a round's win, x the mode's cost; ``max_win``: the largest win a round can pay, x the
    base game's total bet (exact)."""

    mode: str
    rtp: float | None = None
    rtp_tolerance: float = DEFAULT_RTP_TOLERANCE
    hit_frequency: tuple | None = None
    volatility_index: tuple | None = None
    max_win: Fraction | None = None

    @property
    def rtp_band(self) -> tuple | None:
        """(low, high) of the declared RTP, or None."""
        if self.rtp is None:
            return None
        return (self.rtp - self.rtp_tolerance, self.rtp + self.rtp_tolerance)

    @property
    def declared(self) -> tuple:
        """The names of the figures declared, in the order they are checked."""
        return tuple(name for name in ("rtp", "hit_frequency", "volatility_index", "max_win")
                     if getattr(self, name) is not None)
