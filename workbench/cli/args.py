"""Argument types of the ``workbench`` command line: each a checked value or argparse's one-line error (exit 2)."""

from __future__ import annotations

import argparse
import math
import os
import stat
from decimal import Decimal, InvalidOperation

from ..errors import WorkbenchError
# The same limits as workbench.simulate.engine (not imported here: the parser must not load numba;
# tests/test_cli_hostile.py checks that they agree).


MAX_SPINS = 10**13


MAX_WORKERS = 256


SIMULATE_BLOCK = 1 << 20


MAX_SEED = 2**63 - 1


#: a reelset is a small text file: larger files (or devices such as /dev/zero) are refused before reading
MAX_REELSET_BYTES = 64 << 20


# ---------------------------------------------------------------------------
# argument checks (argparse ``type=`` functions: a bad value is argparse's one-line error, exit 2)
# ---------------------------------------------------------------------------
def _shown(text: str) -> str:
    """``text`` for an error message (long values are cut, with their length said)."""
    return repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text):,} characters)"


def _whole(text: str) -> int:
    """A whole number written as 123, 1_000_000 or 1e6."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Decimal(text.replace("_", ""))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}") from None
    if not value.is_finite():
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}")
    if value.adjusted() > 40:
        return 10**41 if value > 0 else -(10**41)  # out of every range below: the message shows the text
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}")
    return int(value)


def whole_number(low: int, high: int | None = None, note: str = ""):
    """argparse type: a whole number from ``low`` to ``high`` (inclusive)."""

    def parse(text: str) -> int:
        value = _whole(text)
        if value < low or (high is not None and value > high):
            span = f"from {low:,} to {high:,}{note}" if high is not None else f"at least {low:,}"
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {_shown(text)}")
        return value

    parse.__name__ = "whole number"
    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_shown(text)}") from None


def positive_number(text: str) -> float:
    """argparse type: a finite number above 0."""
    value = _number(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {_shown(text)}")
    return value


def fraction(text: str) -> float:
    """argparse type: a finite number above 0 and below 1."""
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a fraction above 0 and below 1 (0.0002 = 0.02 %), got {_shown(text)}")
    return value


def chunk_rounds(text: str) -> int:
    """argparse type: rounds per job of ``simulate``: below the block or a multiple of it."""
    value = whole_number(1, MAX_SPINS)(text)
    if value >= SIMULATE_BLOCK and value % SIMULATE_BLOCK:
        raise argparse.ArgumentTypeError(
            f"must be below the block of {SIMULATE_BLOCK:,} rounds or a multiple of it, got {_shown(text)}")
    return value


def path_text(text: str) -> str:
    """argparse type: a path (not empty, no NUL character)."""
    if not text:
        raise argparse.ArgumentTypeError("empty path")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"path with a NUL character: {_shown(text)}")
    return text


def game_argument(text: str) -> str:
    """argparse type: a reelset path or shipped name; an existing path must be a regular file
    (or a folder, which validation reports) of a reelset's size."""
    path_text(text)
    try:
        st = os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return text  # maybe the name of a shipped reelset: the command says if not
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        return text
    if not stat.S_ISREG(st.st_mode):
        raise argparse.ArgumentTypeError(f"{text}: not a regular file (a device, pipe or socket is not a reelset)")
    if st.st_size > MAX_REELSET_BYTES:
        raise argparse.ArgumentTypeError(f"{text}: {st.st_size:,} bytes, too large for a reelset file "
                                         f"(at most {MAX_REELSET_BYTES:,})")
    return text


def scheduler_address(text: str) -> str:
    """argparse type: a Dask scheduler address (not empty)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty scheduler address (e.g. tcp://HOST:8786)")
    return text


def rtp_number(text: str) -> float:
    """argparse type: an RTP as a fraction (0.9618) or a percentage (96.18%)."""
    percent = text.strip().endswith("%")
    value = _number(text.strip().rstrip("%").strip())
    if percent:
        value /= 100
    if math.isfinite(value) and value > 2 and not percent:
        raise argparse.ArgumentTypeError(f"{_shown(text)} looks like a percentage: write 0.9618 or 96.18%")
    if not math.isfinite(value) or not 0 < value < 10:
        raise argparse.ArgumentTypeError(f"must be an RTP above 0, as a fraction (0.9618) or a percentage (96.18%), got {_shown(text)}")
    return value


def rtp_list(text: str) -> list:
    """argparse type: comma-separated RTPs (0.96,0.94,0.92)."""
    parts = [t for t in text.split(",") if t.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("give at least one RTP, e.g. 0.96,0.94,0.92")
    return [rtp_number(t) for t in parts]


def vary_spec(text: str) -> tuple:
    """argparse type: what ``tune`` may change: ``symbols=A,K,Q``, ``table=NAME``, ``strip_set_weights`` or
    ``stop_weights``; returns (kind, names)."""
    key, sep, rest = text.partition("=")
    key = key.strip()
    if key in ("strip_set_weights", "stop_weights") and not sep:
        return key, ()
    names = [t.strip() for t in rest.split(",") if t.strip()]
    if key in ("symbols", "table", "tables") and sep and names:
        return ("table" if key.startswith("table") else "symbols"), tuple(names)
    raise argparse.ArgumentTypeError(f"write symbols=A,K,Q, table=NAME, strip_set_weights or stop_weights, got {_shown(text)}")


def target_spec(text: str):
    """argparse type: one ``--target MODE=RTP[±TOL]`` (RTP 0.96 or 96%, TOL 0.003 or 0.3%, percentage points)."""
    from ..tuning import parse_target

    try:
        return parse_target(text)
    except WorkbenchError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--target {text!r}: ")) from None
