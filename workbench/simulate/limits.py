"""Safety maximums a simulation met: a note for each one that bound.

A free-spins feature stops awarding at ``max_free_spins`` (counter ``free_spins:limit``: a retrigger cut short) and a
tumble's chain at ``max_cascades`` (``tumble:limit``).  The RTP a result gives includes the cut; a designer must know
that it happened and how often, since a maximum meant only as a safety net then shapes the game.
"""

from __future__ import annotations

# counter -> ([features] key that sets the maximum, its default, what the counter counts)
LIMITS = {
    "free_spins:limit": ("max_free_spins", None, "a retrigger was cut short at the safety maximum"),
    "tumble:limit": ("max_cascades", 1000, "a chain was cut at the most cascades"),
    "wheel:limit": ("wheel_max_spins", 100, "a wheel award was ended at the most wheel spins"),
}


def limit_notes(features: dict, per_round: dict, counts: dict, rounds: int, round_text: str,
                sample_text: str = "simulated rounds") -> list[str]:
    """One sentence per safety maximum that bound: how often (``per_round``: expected events per ``round_text``;
    ``counts``: events among the ``rounds`` ``sample_text``) and what it means for the figures."""
    notes = []
    for counter, (key, default, what) in LIMITS.items():
        seen = int(counts.get(counter, 0))
        rate = float(per_round.get(counter, 0.0))
        if seen <= 0 or rate <= 0:
            continue
        value = features.get(key, default)
        setting = f"{key} = {value:,}" if isinstance(value, int) else key
        notes.append(f"{setting} bound: {what} {seen:,} times in {rounds:,} {sample_text}, about once in "
                     f"{1 / rate:,.0f} {round_text}; the figures include the cut (raise {key} to see what it takes)")
    return notes
