"""Reel strips: stops, stop weights, tall-symbol runs, and the rules a strip must keep.

Pure data and plain Python: the file layer (:mod:`workbench.io`) parses strip
text with :func:`check_strip`, the exact engine reads tall-symbol starts from
:func:`tall_instance_starts`, and edits re-check a strip the same way.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Strip:
    """One reel strip: a circular sequence of symbol names, optional stop weights."""

    symbols: tuple
    weights: tuple | None = None

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def stop_weights(self) -> np.ndarray:
        """Integer weight of each stop (1 each on an unweighted strip)."""
        if self.weights is None:
            return np.ones(len(self.symbols), dtype=np.int64)
        return np.asarray(self.weights, dtype=np.int64)

    @property
    def total_weight(self) -> int:
        return len(self.symbols) if self.weights is None else int(sum(self.weights))

    def to_text(self) -> str:
        """Strip in file notation: ``A K Q:3`` (``:w`` is a stop weight)."""
        if self.weights is None:
            return " ".join(self.symbols)
        return " ".join(f"{s}:{w}" if w != 1 else s for s, w in zip(self.symbols, self.weights))


@dataclass(frozen=True)
class StripSet:
    """A named set of strips, one per reel, used by a game ``mode``.

    Strip sets of the same mode are chosen with probability proportional to
    ``weight`` at the start of each spin of that mode.
    """

    name: str
    mode: str
    weight: int
    reels: tuple
    wild_reels: "WildReels | None" = None  # whole reels turning wild on a spin of this set ([strip_sets.*] wild_reels)

    @property
    def cycle(self) -> int:
        """Number of equally likely stop combinations (product of total weights)."""
        out = 1
        for strip in self.reels:
            out *= strip.total_weight
        return out


@dataclass(frozen=True)
class WildReels:
    """Whole reels of a strip set turning wild on a spin (``[strip_sets.NAME] wild_reels``; the rule and its exact
    pricing: :mod:`workbench.model.wild_reels`).  ``symbol``: the wild every row of such a reel shows.  Either
    ``chance`` (per reel, 0-based, the spins in ``out_of`` on which it turns wild, each reel on its own) or ``count``
    (a ``[tables.*]`` of ``{ reels = k, weight = w }``: k distinct reels, uniformly among ``reels``, 1-based)."""

    symbol: str
    chance: tuple | None = None
    out_of: int | None = None
    count: str | None = None
    reels: tuple = ()


def parse_strip_text(text: str) -> list[tuple[str, str | None, int]]:
    """Tokens of a strip: (symbol, weight text or None, char offset of the token)."""
    out = []
    for match in re.finditer(r"\S+", text):
        token = match.group(0)
        if ":" in token:
            sym, weight = token.split(":", 1)
        else:
            sym, weight = token, None
        out.append((sym, weight, match.start()))
    return out


def check_strip(text: str, reel: int, symbols: dict, rows: tuple, report, unknown=None, mode: str | None = None) -> Strip | None:
    """Parse and validate one strip; ``report(message, char_offset=None)`` for problems.

    ``reel`` is 0-based.  Returns the :class:`Strip` or None if it is invalid.
    With ``unknown``, a stop naming an undeclared symbol is passed to
    ``unknown(symbol, stop, char_offset)`` (``stop`` 0-based) instead of
    being reported: the file layer gathers a misspelt name's stops over every
    strip into one message (one per stop would flood the list).  With ``mode``
    (the strip set's), a symbol whose ``modes`` leave it out is an error.
    """
    tokens = parse_strip_text(text)
    if not tokens:
        report(f"reel {reel + 1} is empty")
        return None
    ok = True
    names, weights = [], []
    weighted = False
    for stop, (sym, wtext, at) in enumerate(tokens):
        if sym not in symbols and unknown is not None:
            unknown(sym, stop, at)
            ok = False
            continue
        if sym not in symbols:
            hint = difflib.get_close_matches(sym, list(symbols), n=1)
            report(f"stop {stop + 1}: unknown symbol {sym!r}" + (f" (did you mean {hint[0]!r}?)" if hint else ""), at)
            ok = False
            continue
        allowed = symbols[sym].reels
        if allowed is not None and reel + 1 not in allowed:
            report(f"stop {stop + 1}: {sym} may not appear on reel {reel + 1} (only on reels {', '.join(map(str, allowed))})", at)
            ok = False
        modes = symbols[sym].modes
        if mode is not None and modes is not None and mode not in modes:
            report(f"stop {stop + 1}: {sym} may not appear on the strips of mode {mode!r} (its modes are "
                   f"{', '.join(modes)})", at)
            ok = False
        weight = 1
        if wtext is not None:
            weighted = True
            try:
                weight = int(wtext)
            except ValueError:
                report(f"stop {stop + 1}: weight {wtext!r} of {sym} is not a whole number", at)
                ok = False
                continue
            if weight < 0:
                report(f"stop {stop + 1}: negative weight {weight} for {sym}", at)
                ok = False
        names.append(sym)
        weights.append(weight)
    if not ok:
        return None
    if weighted and sum(weights) == 0:
        report(f"reel {reel + 1}: all stop weights are zero")
        return None
    n = len(names)
    if rows:
        tallest = max(symbols[s].height for s in set(names))
        needed = rows[reel] + tallest - 1
        if n < needed:
            report(
                f"reel {reel + 1} has only {n} stop(s): a window of {rows[reel]} row(s) needs at least {needed} "
                "so that no stop (or tall symbol) is shown twice at once"
            )
            return None
    # tall symbols: runs on the circular strip must be whole symbols
    for sym in set(names):
        height = symbols[sym].height
        if height == 1:
            continue
        for start, length in symbol_runs(names, sym):
            if length % height:
                at = tokens[start][2]
                report(
                    f"tall symbol {sym} (height {height}) broken at stop {start + 1}: "
                    f"a run of {length} stop(s) is not a whole number of symbols",
                    at,
                )
                ok = False
        if height > n:
            report(f"tall symbol {sym} (height {height}) is taller than the strip ({n} stops)")
            ok = False
    if not ok:
        return None
    strip = Strip(symbols=tuple(names), weights=tuple(weights) if weighted else None)
    if rows:
        for sym in set(names):
            limit = symbols[sym].max_visible
            if limit is None:
                continue
            worst = max_visible_instances(strip, sym, symbols[sym].height, rows[reel])
            if worst > limit:
                report(f"reel {reel + 1}: up to {worst} {sym} can be visible at once, at most {limit} allowed")
                ok = False
    return strip if ok else None


def symbol_runs(names: list | tuple, sym: str) -> list[tuple[int, int]]:
    """Maximal runs of ``sym`` on the circular strip as (start, length)."""
    n = len(names)
    if all(s == sym for s in names):
        return [(0, n)]
    runs = []
    # start scanning just after a non-sym stop so no run is split by the wrap
    first = next(i for i, s in enumerate(names) if s != sym)
    i = 0
    while i < n:
        pos = (first + 1 + i) % n
        if names[pos] == sym:
            length = 0
            while names[(pos + length) % n] == sym:
                length += 1
            runs.append((pos, length))
            i += length
        else:
            i += 1
    return runs


def tall_instance_starts(names: tuple, sym: str, height: int) -> list[int]:
    """Stops where an instance of tall symbol ``sym`` begins (runs split from their start)."""
    starts = []
    for start, length in symbol_runs(names, sym):
        starts += [(start + k * height) % len(names) for k in range(length // height)]
    return starts


def max_visible_instances(strip: Strip, sym: str, height: int, rows: int) -> int:
    """Most instances of ``sym`` (partly) visible in any window of ``rows`` rows.

    An instance covering stops s..s+height-1 is (partly) visible in the windows
    whose top stop is s-rows+1 .. s+height-1 (circular): counted with a
    difference array, so a long strip takes linear time.
    """
    n = len(strip)
    starts = tall_instance_starts(strip.symbols, sym, height) if height > 1 else [i for i, s in enumerate(strip.symbols) if s == sym]
    span = rows + height - 1  # window tops that see one instance
    if not starts or span >= n:
        return len(starts)
    diff = [0] * (n + 1)
    for s in starts:
        first = (s - rows + 1) % n
        last = first + span  # exclusive
        diff[first] += 1
        if last <= n:
            diff[last] -= 1
        else:  # wraps past the end of the strip
            diff[n] -= 1
            diff[0] += 1
            diff[last - n] -= 1
    worst = running = 0
    for i in range(n):
        running += diff[i]
        worst = max(worst, running)
    return worst
