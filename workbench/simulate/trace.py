"""A replayed round step by step: its screens and running total, from the round's own code run as plain Python.

The compiled rounds record no screens, so that a run stays as fast as it is.  But every compiled function of a round
is plain Python as written: run with numba's JIT disabled (``NUMBA_DISABLE_JIT=1``, in a child process) from the
random stream state the round started from (:attr:`~workbench.simulate.replay.ReplayedRound.rng_state`), the same
code draws the same numbers and pays the same amounts (checked: the trace's amounts and counters must equal the
compiled replay's, or the trace is refused).  While it runs, a profile hook watches the round's functions return:

- ``kernel.spin_windows`` (a spin of every reel): the screen its windows show;
- any function of the package that returns with a ``screen`` array among its locals (a screen filled, a reel
  expanded, wilds dropped, a tumble refilled, ...): that screen as it stands.

Each becomes a :class:`Step` (the screen as symbol names, reels x rows; the function that made it; the round's
running total in pay units and the counters so far); consecutive identical screens are kept once.  The round's
parameters are built by the parent (compiled, fast) and handed to the child as a pickle, so the child only plays.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ..errors import SimulationError

#: seconds a trace may take (the child plays one round as Python: usually well under a second)
TRACE_SECONDS = 300.0
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Step:
    """One screen of a round: ``screen`` (reels x rows of symbol names; rows from the top), ``made_by`` (the function
    that drew or changed it), ``total_units`` (what the round had paid once this screen was paid, before the next
    one came: pay units) and ``counters`` (the round's counters then, those above 0)."""

    index: int
    made_by: str
    screen: tuple
    total_units: int
    counters: dict

    def to_json(self) -> dict:
        return {"index": self.index, "made_by": self.made_by, "screen": [list(r) for r in self.screen],
                "total_units": self.total_units, "counters": self.counters}


@dataclass(frozen=True)
class RoundTrace:
    """The steps of a replayed round (:class:`Step`), and its amounts and counters as the traced code paid them
    (equal to the compiled replay's)."""

    steps: tuple
    amounts: dict
    counters: dict


def _payload(model, rng_state) -> dict:
    names = list(model.game.symbols)
    loop = getattr(model.run_chunk, "py_func", model.run_chunk)  # the compiled loop's Python function
    return {
        "module": loop.__module__,
        "function": loop.__name__,
        "params": model.params,
        "model": SimpleNamespace(components=list(model.components), counters=list(model.counters),
                                 exact_components=tuple(model.exact_components),
                                 informational_components=tuple(model.informational_components),
                                 max_win_units=model.max_win_units, exact_means=None, strata=(), params=model.params),
        "rng_state": [int(v) for v in rng_state],
        "symbols": names,
    }


def trace_round(model, replayed) -> RoundTrace:
    """The steps of ``replayed`` (a :class:`~workbench.simulate.replay.ReplayedRound` of ``model``), played again as
    Python in a child process; :class:`~workbench.errors.SimulationError` when its amounts differ from the replay's."""
    with tempfile.TemporaryDirectory(prefix="workbench-trace-") as folder:
        job = os.path.join(folder, "round.pickle")
        out = os.path.join(folder, "steps.pickle")
        with open(job, "wb") as f:
            pickle.dump(_payload(model, replayed.rng_state), f, protocol=pickle.HIGHEST_PROTOCOL)
        env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
        try:
            done = subprocess.run([sys.executable, "-m", "workbench.simulate.trace", job, out], env=env,
                                  capture_output=True, text=True, timeout=TRACE_SECONDS)
        except subprocess.TimeoutExpired:
            raise SimulationError(f"{model.game.name}: tracing round {replayed.round:,} took over {TRACE_SECONDS:g} s") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise SimulationError(f"{model.game.name}: tracing round {replayed.round:,} failed: {last}")
        with open(out, "rb") as f:
            result = pickle.load(f)
    amounts = dict(zip(model.components, result["amounts"]))
    counters = dict(zip(model.counters, result["counters"]))
    if amounts != replayed.components or counters != replayed.counters:
        raise SimulationError(f"{model.game.name}: round {replayed.round:,} played as Python paid {amounts}, not the "
                              f"compiled round's {replayed.components}: its trace is not shown")
    steps = tuple(Step(index=k, **s) for k, s in enumerate(result["steps"]))
    return RoundTrace(steps=steps, amounts=amounts, counters=counters)


# ---------------------------------------------------------------------------
# the child: plays the round as Python and records its screens
# ---------------------------------------------------------------------------
class _Recorder:
    def __init__(self, symbols: list, amounts: np.ndarray, events: np.ndarray, is_info: np.ndarray, counters: list):
        self.symbols, self.amounts, self.events, self.is_info, self.counter_names = symbols, amounts, events, is_info, counters
        self.steps: list = []

    def _name(self, code) -> str:
        code = int(code)
        return self.symbols[code] if 0 <= code < len(self.symbols) else "."

    def _total(self) -> int:
        return int(sum(int(a) for a, info in zip(self.amounts, self.is_info) if not info))

    def _add(self, made_by: str, grid) -> None:
        screen = tuple(tuple(self._name(c) for c in reel) for reel in grid)
        if self.steps and self.steps[-1]["screen"] == screen:
            return
        self.close()
        self.steps.append({"made_by": made_by, "screen": screen, "total_units": None, "counters": {}})

    def close(self, total: int | None = None) -> None:
        """The last step's total and counters: what the round had when the next screen came (or the round ended)."""
        if self.steps and self.steps[-1]["total_units"] is None:
            self.steps[-1]["total_units"] = self._total() if total is None else total
            self.steps[-1]["counters"] = {n: int(c) for n, c in zip(self.counter_names, self.events) if c}

    def __call__(self, frame, event, arg):
        if event != "return" or not frame.f_code.co_filename.startswith(_PACKAGE):
            return
        name = frame.f_code.co_name
        local = frame.f_locals
        where = f"{frame.f_globals.get('__name__', '?').rsplit('.', 1)[-1]}.{name}"
        if name == "spin_windows" and "ma" in local:
            ma, s, wins = local["ma"], int(local["s"]), local["wins"]
            self._add(where, [ma.win_sym[s, r, wins[r], :ma.rows[r]] for r in range(wins.shape[0])])
            return
        screen = local.get("screen")
        if isinstance(screen, np.ndarray) and screen.ndim == 2 and screen.dtype.kind in "iu":
            rows = getattr(local.get("ma"), "rows", None)
            grid = [screen[r, :rows[r]] if rows is not None else screen[r] for r in range(screen.shape[0])]
            self._add(where, grid)


def _widened(value, memo: dict):
    """``value`` (a round's parameter record) with its narrow signed integer arrays as int64: compiled code does
    integer arithmetic in 64 bits (an int32 times an int32 is an int64 there), numpy's scalars in their own width,
    so a table index that fits 64 bits but not 32 would wrap in Python alone.  Arrays shared by several fields stay
    shared (``memo``)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "i" and value.dtype.itemsize < 8:
            if id(value) not in memo:
                memo[id(value)] = value.astype(np.int64)
            return memo[id(value)]
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_widened(v, memo) for v in value))
    return value


def _child(job: str, out: str) -> None:
    import importlib

    from .chunks import ChunkResult, chunk_accumulators

    with open(job, "rb") as f:
        data = pickle.load(f)
    model = data["model"]
    module = importlib.import_module(data["module"])
    result = ChunkResult.empty(len(model.components), len(model.counters))
    acc, _ = chunk_accumulators(model, result, -1)
    rng = np.array(data["rng_state"], dtype=np.uint64)
    recorder = _Recorder(data["symbols"], acc.amounts, acc.events, acc.is_info, model.counters)
    sys.setprofile(recorder)
    try:
        getattr(module, data["function"])(_widened(data["params"], {}), rng, 1, -1, acc, result.counters)
    finally:
        sys.setprofile(None)
    recorder.events = result.counters  # (the round's counters, moved out of the accumulators when it ended)
    recorder.close(int(sum(int(a) for a, info in zip(result.comp_sum, acc.is_info) if not info)))
    with open(out, "wb") as f:
        pickle.dump({"amounts": result.comp_sum.tolist(), "counters": result.counters.tolist(),
                     "steps": recorder.steps}, f)


if __name__ == "__main__":
    if os.environ.get("NUMBA_DISABLE_JIT") != "1":
        raise SystemExit("workbench.simulate.trace runs a round as Python: start it with NUMBA_DISABLE_JIT=1")
    _child(sys.argv[1], sys.argv[2])
