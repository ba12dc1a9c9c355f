"""Checkpoints: a run's finished blocks in a JSON file with a checksum, so a stopped run resumes to the same result;
changed, damaged, inconsistent or old checkpoints are refused (docs/reliability.md).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import numpy as np
import os
import stat
import tempfile
import time
from pathlib import Path

from ..errors import SimulationError, WorkbenchError
from ..io import atomic_write_text
from ..io.atomic import missing_folder_reason
from .chunks import ChunkResult
from .lanes import Plan


_log = logging.getLogger("workbench.simulate")


CHECKPOINT_FORMAT = "workbench-checkpoint-4"  # 3: with a checksum; 4: raw squares per component (earlier: refused)


#: seconds between checkpoint saves during a run (it is also saved whenever the run stops)
SAVE_EVERY = 2.0


#: larger files are not read as checkpoints (a checkpoint holds a few blocks: well under a megabyte)
MAX_CHECKPOINT_BYTES = 256 << 20


# ---------------------------------------------------------------------------
# checkpoints
# ---------------------------------------------------------------------------
def writable_file_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be written as a file (None if it can): a missing or
    unwritable folder, a folder or special file in its place."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None
    except OSError as exc:
        return exc.strerror or str(exc)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            return "is a folder, not a file"
        if not stat.S_ISREG(st.st_mode):
            return "is not a regular file"
    folder = Path(os.path.realpath(p)).parent if st is not None else (p.parent if str(p.parent) else Path("."))
    if not folder.exists():
        return missing_folder_reason(folder)
    if not folder.is_dir():
        return f"{folder} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".workbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot create files in {folder}: {exc.strerror or exc}"
    if st is not None:
        try:
            os.close(os.open(p, os.O_WRONLY))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def canonical_json(content) -> bytes:
    """The one byte string a checkpoint's checksum is taken over: sorted keys, no spaces, ASCII.

    A checkpoint is re-read with :func:`json.loads` (floats round-trip exactly
    through their shortest repr), so the same content always gives the same bytes
    whatever spacing or key order the file itself has.
    """
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def checkpoint_checksum(content: dict) -> str:
    """``sha256:<hex>`` of :func:`canonical_json` of a checkpoint's content (everything but the checksum)."""
    return "sha256:" + hashlib.sha256(canonical_json(content)).hexdigest()


def _result_problem(result: ChunkResult, rounds: int) -> str | None:
    """What makes ``result`` impossible as the sums of ``rounds`` played rounds (None: nothing found).

    Only relations every round template's sums satisfy (see ``chunks._add_round``):
    counts are whole and non-negative, wins and squares are non-negative, the
    win histogram counts exactly the winning rounds, no win is above the
    largest, and (sum of wins)^2 <= winning rounds x (sum of squared wins).
    """
    n = result.rounds
    if n != rounds:
        return f"{n:,} rounds recorded where {rounds:,} were played"
    floats = np.concatenate([result.comp_sq, result.comp_sq_raw, result.comp_adj, result.squares, result.extra])
    if not np.all(np.isfinite(floats)):
        return "a sum that is not a finite number"
    winning, base_winning = result.hits, result.base_hits
    if not (0 <= winning <= n and 0 <= base_winning <= n):
        return f"{winning:,} winning rounds out of {n:,}"
    if np.any(result.counters < 0) or np.any(result.hist < 0) or np.any(result.maxwin < 0):
        return "a negative count"
    if int(result.hist.sum()) != winning:
        return f"the win histogram counts {int(result.hist.sum()):,} winning rounds, not {winning:,}"
    if np.any(result.comp_sq < 0) or np.any(result.comp_sq_raw < 0) or np.any(result.squares < 0) or result.extra_squares < 0:
        return "a negative sum of squares"
    won, top, at_top = result.won, result.max_win_units, result.max_win_count
    if won < 0:
        return "a negative sum of wins"
    if at_top > winning or (winning > 0) != (top > 0 and at_top > 0) or won > top * winning:
        return f"the largest win ({top:,} pay units, {at_top:,} times) does not fit the {winning:,} winning rounds " \
               f"paying {won:,} in all"
    # Cauchy-Schwarz, with room for the rounding of a float sum of squares over many rounds
    if float(won) * float(won) > float(winning) * result.won_squares * (1 + 1e-3) + 1.0:
        return "the sum of squared wins is too small for the sum of wins"
    return None


class Checkpoint:
    """The state of a run (its finished blocks, folded) in a JSON file, so a stopped run can resume.

    The file is written atomically when it is opened (so a path that cannot be
    written is refused before the run starts), at most every
    :data:`SAVE_EVERY` seconds during the run, and whenever the run ends or stops.

    A resumed run adds the file's sums to its own, so the file is not trusted
    as it stands: it carries ``checksum``, the SHA-256 of its content
    (:func:`checkpoint_checksum`: format, the run's signature, which holds the
    game file's SHA-256, the seed, spins, stake and mode, and every lane's
    sums), and a file whose content does not match it (edited, or damaged on
    disk) is refused, as is a file of an earlier format that has no checksum.
    A checksum is no signature (whoever can read this code can recompute it),
    so the sums are also checked against each other (:meth:`_check_consistency`):
    the rounds recorded must be the blocks finished x the block size, counts and
    sums of squares non-negative, and so on.
    """

    def __init__(self, path: Path, signature: dict, plan: Plan, prepare=None):
        self.path = path
        self.signature = signature
        self.plan = plan
        #: what the run needs besides the lanes to resume (``estimate_rtp``: its batches), under the checksum too
        self.extra: dict = {}
        self.prepare = prepare  # called with the file's ``extra`` before the lanes are restored (it may extend them)
        self._last_save = 0.0
        self._warned = False

    @classmethod
    def open(cls, path: str | os.PathLike, signature: dict, plan: Plan, prepare=None) -> "Checkpoint":
        """Open (and resume from) the checkpoint at ``path`` for the run with ``signature`` and ``plan``.

        ``prepare(extra)``: called with what the file holds besides the lanes (a dict) before they are restored, so
        a run whose lanes grow as it goes (``estimate_rtp``) can grow them as far as the file's; it raises
        ValueError (or KeyError, TypeError) for an ``extra`` that does not fit the run."""
        path = Path(path)
        problem = writable_file_problem(path)
        if problem:
            raise SimulationError(f"cannot write {path}: {problem}")
        store = cls(path, signature, plan, prepare)
        size = path.stat().st_size if path.exists() else 0
        if size > MAX_CHECKPOINT_BYTES:
            raise SimulationError(f"{path}: {size:,} bytes, too large to be a workbench checkpoint; choose another file")
        if size:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as exc:  # (RecursionError: absurdly nested JSON)
                raise SimulationError(f"{path}: not a readable checkpoint ({exc})") from None
            if not isinstance(data, dict):
                raise SimulationError(f"{path}: not a workbench checkpoint")
            store._restore(data)
        store.save()
        return store

    def _refuse(self, problem: str) -> SimulationError:
        return SimulationError(f"{self.path}: changed or damaged checkpoint: {problem}, so none of its numbers is "
                               "trusted; delete it to start the run over")

    def _restore(self, data: dict) -> None:
        fmt = data.get("format")
        if fmt in ("workbench-checkpoint-1", "workbench-checkpoint-2"):
            # these have no checksum: what they hold cannot be told from an edited file, so they are not resumed
            raise SimulationError(
                f"{self.path}: checkpoint written by an earlier version of the workbench ({fmt}), which predates the "
                "checksum that detects changed or damaged checkpoints; it is not trusted: delete it to start the run over")
        if fmt == "workbench-checkpoint-3":
            raise SimulationError(
                f"{self.path}: checkpoint written by an earlier version of the workbench ({fmt}), whose sums lack what "
                "this version records (each component's raw squares); delete it to start the run over")
        if fmt != CHECKPOINT_FORMAT:
            raise SimulationError(f"{self.path}: not a workbench checkpoint")
        content = {k: v for k, v in data.items() if k != "checksum"}
        checksum = data.get("checksum")
        if not isinstance(checksum, str):
            raise self._refuse("it has no checksum")
        try:
            expected = checkpoint_checksum(content)
        except (ValueError, TypeError, RecursionError) as exc:
            raise self._refuse(f"its content cannot be read back ({type(exc).__name__})") from None
        if checksum != expected:  # (nothing secret here: a plain comparison)
            raise self._refuse("its checksum does not match its content (edited, or damaged on disk)")
        if data.get("signature") != self.signature:
            raise SimulationError(
                f"{self.path}: checkpoint belongs to a different run (game file, seed, spins, stake or mode differ); "
                "delete it or choose another file")
        try:
            extra = data.get("extra", {})
            if not isinstance(extra, dict):
                raise TypeError("extra is not a table")
            if self.prepare is not None:
                self.prepare(extra)
            self.extra = extra
            self.plan.restore(data["lanes"])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, ArithmeticError) as exc:
            raise self._refuse(f"its content does not fit this run ({exc})") from None
        self._check_consistency()

    def _check_consistency(self) -> None:
        """Refuse sums that no run can have produced (the checksum stops edits, not a forger who recomputes it)."""
        plan = self.plan
        for lane in plan.lanes.values():
            where = "natural play" if lane.stratum < 0 else f"stratum {lane.stratum}"
            # the folded total holds exactly blocks 0 .. next_block - 1 (the last block of a lane may be short)
            problem = _result_problem(lane.total, min(lane.next_block * plan.block_size, lane.rounds))
            if problem:
                done = "no finished block" if not lane.next_block else f"finished blocks 0 to {lane.next_block - 1:,}"
                raise self._refuse(f"{where}, {done}: {problem}")
            for block, (result, points) in lane.done.items():
                problem = _result_problem(result, lane.size(block)) or _points_problem(points, lane.size(block))
                if problem:
                    raise self._refuse(f"{where}, block {block:,}: {problem}")
            for block, (played, _rng, result, points) in lane.partial.items():
                problem = _result_problem(result, played) or _points_problem(points, played)
                if problem:
                    raise self._refuse(f"{where}, block {block:,} (played in part): {problem}")
            if lane.trace is not None:
                problem = _points_problem(lane.trace, lane.total.rounds)
                if not problem and (lane._trace_stride < 1 or lane._trace_stride & (lane._trace_stride - 1)
                                    or lane._trace_seen < 0):
                    problem = "bad trace stride"
                if problem:
                    raise self._refuse(f"{where}, convergence trace: {problem}")

    def maybe_save(self) -> None:
        """Save if the last save is :data:`SAVE_EVERY` seconds old (a failure warns; the run goes on)."""
        if time.monotonic() - self._last_save < SAVE_EVERY:
            return
        try:
            self.save()
        except SimulationError as exc:
            self._last_save = time.monotonic()
            if not self._warned:
                _log.warning("workbench: %s (the run goes on; saving again every %g s)", exc, SAVE_EVERY)
                self._warned = True

    def save(self) -> None:
        content = {"format": CHECKPOINT_FORMAT, "signature": self.signature, "lanes": self.plan.to_json()}
        if self.extra:
            content["extra"] = self.extra
        text = json.dumps({**content, "checksum": checkpoint_checksum(content)})
        try:
            atomic_write_text(self.path, text)
        except (OSError, WorkbenchError) as exc:
            reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc)
            for prefix in (f"{self.path}: not written: ", f"{self.path}: "):
                if reason.startswith(prefix):
                    reason = reason[len(prefix):]
                    break
            raise SimulationError(f"cannot write {self.path}: {reason}") from None
        self._last_save = time.monotonic()


def _points_problem(points, rounds: int) -> str | None:
    """What is wrong with convergence-trace points ``(rounds, sum of wins, sum of squares)`` within ``rounds``."""
    last = 0
    for point in points:
        if len(point) != 3:
            return "a trace point that is not (rounds, wins, squares)"
        n, won, squares = point
        if not (isinstance(n, int) and isinstance(won, int) and isinstance(squares, (int, float))):
            return "a trace point that is not numbers"
        if not last <= n <= rounds or won < 0 or not math.isfinite(squares) or squares < 0:
            return f"a trace point ({n}, {won}, {squares}) out of range"
        last = n
    return None
