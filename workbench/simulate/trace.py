"""A replayed round step by step: its screens and running total, from the round's own code run as plain Python.

The compiled rounds record no screens, so that a run stays as fast as it is.  But every compiled function of a round
is plain Python as written: run with numba's JIT disabled (``NUMBA_DISABLE_JIT=1``, in a child process) from the
random stream state the round started from (:attr:`~workbench.simulate.replay.ReplayedRound.rng_state`), the same
code draws the same numbers and pays the same amounts (checked: the trace's amounts and counters must equal the
compiled replay's, or the trace is refused).  While it runs, a profile hook watches the round's functions return:

- ``kernel.spin_windows`` (a spin of every reel): the screen its windows show;
- any function of the package that returns with a ``screen`` array among its locals (a screen filled, a reel
  expanded, wilds dropped, a tumble refilled, ...): that screen as it stands;
- rounds that keep no screen at all (the ``ways`` outcomes, the ``anywhere`` counts: a reel's virtual stop is
  looked up in a table of what it pays) draw each reel's virtual stop with ``rng.bounded``: each draw a spin's
  parameter record (``p`` or ``m``, with a ``vtab`` or ``vwin``) makes for its strip set ``s`` and reel ``i`` or
  ``r`` (height ``h``) is turned back into the strip's window (:func:`spun_reels` gives the strips: the parent
  matches each record to the strip mode whose sets it was built from), and the screen is a step once its last reel
  is drawn; a bought round's forced screen (``forced.draw_forced_stops``) likewise.

Each becomes a :class:`Step` (the screen as symbol names, reels x rows; the function that made it; the round's
running total in pay units and the counters so far); consecutive identical screens are kept once.  The running total
is what the round's amounts hold, plus what its template says it holds back (a template module's plain-Python
``held_units(params)``: a free-spins feature's win, paid when the feature ends).  The round's
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

#: seconds a trace may take to start (the child imports the package and plays rounds as Python), and per round
TRACE_SECONDS = 300.0
ROUND_SECONDS = 2.0
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Step:
    """One screen of a round: ``screen`` (reels x rows of symbol names; rows from the top), ``made_by`` (the function
    that drew or changed it), ``total_units`` (what the round had paid once this screen was paid, before the next
    one came: pay units), ``counters`` (the round's counters then, those above 0) and ``multipliers`` (the cells
    whose multiplier the screen drew: a wild's multiplier drawn from its table as it lands, reels and rows from 0)."""

    index: int
    made_by: str
    screen: tuple
    total_units: int
    counters: dict
    multipliers: tuple = ()  # (reel, row, multiplier) of each cell whose multiplier the screen drew (table wilds)

    def to_json(self) -> dict:
        return {"index": self.index, "made_by": self.made_by, "screen": [list(r) for r in self.screen],
                "total_units": self.total_units, "counters": self.counters,
                "multipliers": [{"reel": r, "row": row, "multiplier": m} for r, row, m in self.multipliers]}


@dataclass(frozen=True)
class RoundTrace:
    """The steps of a replayed round (:class:`Step`), and its amounts and counters as the traced code paid them
    (equal to the compiled replay's)."""

    steps: tuple
    amounts: dict
    counters: dict


def _records(value, path: tuple = ()):
    """(path, record) of every parameter record (a namedtuple) in ``value``, itself first."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        yield path, value
        for name, field in zip(value._fields, value):
            yield from _records(field, path + (name,))


def _spins_reels(record) -> bool:
    """Whether ``record`` spins reels whose windows it does not keep (a ways round's or an anywhere round's)."""
    fields = record._fields
    return "set_cum" in fields and ("vtab" in fields or ("vwin" in fields and "packed" in fields))


def spun_reels(game, record, path: tuple):
    """The strips a spin record of ``game``'s round (:func:`_spins_reels`) spins: per strip set, per reel (symbols,
    stop of each virtual stop, the heights it can show), with the multipliers of each table wild's table there, from the strip mode whose sets it was built from (equal set
    weights and stop weight totals; when several modes match with other symbols, the one the record's field names:
    ``base`` for the round's own or a ``base`` field, else the mode of ``[features] <field>_spins_mode``, else the
    field's name); None when that is not decided."""
    from ..exact.variants import table_wild_plan
    from ..exact.ways_outcomes import reel_heights

    totals = record.total if "vtab" in record._fields else record.total_weight
    matches = {}
    for mode in dict.fromkeys(s.mode for s in game.strip_sets.values()):
        sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
        if (len(sets) == record.set_cum.shape[0] and np.cumsum([s.weight for s in sets]).tolist() == record.set_cum.tolist()
                and all(strip.total_weight == totals[k, i] for k, s in enumerate(sets) for i, strip in enumerate(s.reels))):
            matches[mode] = sets
    shown = {tuple(tuple(tuple(strip.symbols) for strip in s.reels) for s in sets) for sets in matches.values()}
    if len(shown) > 1:
        named = "base" if not path or path[-1] == "base" else game.features.get(f"{path[-1]}_spins_mode", path[-1])
        matches = {named: matches[named]} if named in matches else {}
    if not matches:
        return None
    mode, sets = next(iter(matches.items()))
    heights = [[h for h, _ in reel_heights(game, i)] if "vtab" in record._fields else [game.rows[i]]
               for i in range(game.reels)]
    reels = [[(tuple(strip.symbols), np.repeat(np.arange(len(strip)), strip.stop_weights), heights[i])
              for i, strip in enumerate(s.reels)] for s in sets]
    return reels, [tuple(int(m) for m in tw.multipliers) for tw in table_wild_plan(game.in_strip_mode(mode))]


def _payload(model, rng_state) -> dict:
    names = list(model.game.symbols)
    spun, seen = {}, {}
    for path, record in _records(model.params):
        if _spins_reels(record):  # (a record shared by two fields, such as meter spins playing the free spins' mode,
            if id(record) not in seen:  # is the first field's)
                seen[id(record)] = spun_reels(model.game, record, path)
            spun[path] = seen[id(record)]
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
        "spun": {path: reels for path, reels in spun.items() if reels is not None},
    }


def trace_round(model, replayed) -> RoundTrace:
    """The steps of ``replayed`` (a :class:`~workbench.simulate.replay.ReplayedRound` of ``model``), played again as
    Python in a child process; :class:`~workbench.errors.SimulationError` when its amounts differ from the replay's."""
    (trace,) = trace_rounds(model, replayed.rng_state, 1, what=f"round {replayed.round:,}")
    if trace.amounts != replayed.components or trace.counters != replayed.counters:
        raise SimulationError(f"{model.game.name}: round {replayed.round:,} played as Python paid {trace.amounts}, not "
                              f"the compiled round's {replayed.components}: its trace is not shown")
    return trace


def trace_rounds(model, rng_state, rounds: int, what: str = "rounds") -> list[RoundTrace]:
    """The steps of ``rounds`` consecutive rounds of ``model`` from the random stream state ``rng_state``, played
    as Python in one child process (one start-up for them all); each round's amounts and counters are the traced
    code's: compare them with the compiled rounds' before showing a step (:func:`trace_round` does)."""
    with tempfile.TemporaryDirectory(prefix="workbench-trace-") as folder:
        job = os.path.join(folder, "round.pickle")
        out = os.path.join(folder, "steps.pickle")
        with open(job, "wb") as f:
            pickle.dump(dict(_payload(model, rng_state), rounds=int(rounds)), f, protocol=pickle.HIGHEST_PROTOCOL)
        env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
        limit = TRACE_SECONDS + rounds * ROUND_SECONDS
        try:
            done = subprocess.run([sys.executable, "-m", "workbench.simulate.trace", job, out], env=env,
                                  capture_output=True, text=True, timeout=limit)
        except subprocess.TimeoutExpired:
            raise SimulationError(f"{model.game.name}: tracing {what} took over {limit:g} s") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise SimulationError(f"{model.game.name}: tracing {what} failed: {last}")
        with open(out, "rb") as f:
            results = pickle.load(f)
    return [RoundTrace(steps=tuple(Step(index=k, **dict(s, multipliers=tuple(
                           (reel, row, m) for (reel, row), m in sorted(s.get("multipliers", {}).items()))))
                                   for k, s in enumerate(r["steps"])),
                       amounts=dict(zip(model.components, r["amounts"])), counters=dict(zip(model.counters, r["counters"])))
            for r in results]


# ---------------------------------------------------------------------------
# the child: plays the round as Python and records its screens
# ---------------------------------------------------------------------------
class _Recorder:
    def __init__(self, symbols: list, amounts: np.ndarray, events: np.ndarray, is_info: np.ndarray, counters: list):
        self.symbols, self.amounts, self.events, self.is_info, self.counter_names = symbols, amounts, events, is_info, counters
        self.steps: list = []
        self.spun: dict = {}  # id of a spin record of the round's parameters: its strips (spun_reels)
        self.drawn: dict = {}  # reel: its window, of the spin being drawn
        self.params, self.held = None, None  # the round's parameters; the template's held_units(params), if any
        self.tables: dict = {}  # id of a spin record: the multipliers of each of its table wilds' tables
        self.multipliers: dict = {}  # (reel, row): multiplier, of the spin being drawn

    def watch(self, params, spun: dict) -> None:
        """Follow the reels that the spin records of ``params`` (the parameters the child plays) draw."""
        self.spun = {id(record): spun[path][0] for path, record in _records(params) if path in spun}
        self.tables = {id(record): spun[path][1] for path, record in _records(params) if path in spun}

    def _multiplier_drawn(self, frame, index) -> None:
        """A table wild's multiplier drawn (``drawn_outcome``'s ``weighted_index``: table ``t``, reel ``i``, row ``r``)
        for the spin record of the caller's caller: the cell's multiplier on the spin's screen."""
        local = frame.f_locals
        spinner = frame.f_back.f_locals if frame.f_back is not None else {}
        tables = self.tables.get(id(spinner.get("m", spinner.get("p"))))
        if tables and "t" in local and "i" in local and "r" in local:
            self.multipliers[(int(local["i"]), int(local["r"]))] = tables[int(local["t"])][int(index)]

    def _reel_drawn(self, caller, n, v, where: str) -> None:
        """A virtual stop ``v`` of ``n`` drawn by ``caller``: a reel of a spin record's screen when it is one."""
        local = caller.f_locals
        record = local.get("m", local.get("p"))
        reels = self.spun.get(id(record))
        s, reel = local.get("s"), local.get("i", local.get("r"))
        if reels is None or s is None or reel is None or caller.f_code.co_name == "draw_height":
            return
        symbols, stops, heights = reels[int(s)][int(reel)]
        if n is not None and int(n) != len(stops):
            return
        self._show(reels, int(s), int(reel), int(local.get("h", 0)), int(v), where)

    def _show(self, reels, s: int, reel: int, h: int, v: int, where: str) -> None:
        symbols, stops, heights = reels[s][reel]
        stop = int(stops[v])
        if reel == 0:
            self.multipliers = {}  # (the last reel's multipliers are drawn after its screen is a step: shared)
        self.drawn[reel] = tuple(symbols[(stop + row) % len(symbols)] for row in range(heights[h]))
        if reel == len(reels[s]) - 1:
            screen = tuple(self.drawn.get(r, ()) for r in range(len(reels[s])))
            self.drawn = {}
            self._add_screen(where, screen)
            if self.steps and self.steps[-1]["screen"] == screen:
                self.steps[-1]["multipliers"] = self.multipliers

    def _name(self, code) -> str:
        code = int(code)
        return self.symbols[code] if 0 <= code < len(self.symbols) else "."

    def _total(self) -> int:
        paid = int(sum(int(a) for a, info in zip(self.amounts, self.is_info) if not info))
        return paid + (self.held(self.params) if self.held is not None else 0)

    def _add(self, made_by: str, grid) -> None:
        self._add_screen(made_by, tuple(tuple(self._name(c) for c in reel) for reel in grid))

    def _add_screen(self, made_by: str, screen: tuple) -> None:
        if self.steps and self.steps[-1]["screen"] == screen:
            return
        self.close()
        self.steps.append({"made_by": made_by, "screen": screen, "total_units": None, "counters": {}})

    def close(self, total: int | None = None) -> None:
        """The last step's total and counters: what the round had when the next screen came (or the round ended)."""
        if self.steps and self.steps[-1]["total_units"] is None:
            self.steps[-1]["total_units"] = self._total() if total is None else total
            self.steps[-1]["counters"] = {n: int(c) for n, c in zip(self.counter_names, self.events) if c}

    @staticmethod
    def _where(frame) -> str:
        return f"{frame.f_globals.get('__name__', '?').rsplit('.', 1)[-1]}.{frame.f_code.co_name}"

    def __call__(self, frame, event, arg):
        if event != "return" or not frame.f_code.co_filename.startswith(_PACKAGE):
            return
        name = frame.f_code.co_name
        local = frame.f_locals
        if self.tables and name == "weighted_index" and frame.f_back is not None \
                and frame.f_back.f_code.co_name == "drawn_outcome":
            self._multiplier_drawn(frame.f_back, arg)
            return
        if self.spun and name == "bounded":
            self._reel_drawn(frame.f_back, local.get("n"), arg, self._where(frame.f_back))
            return
        if self.spun and name == "draw_forced_stops":
            caller = frame.f_back.f_locals
            reels = self.spun.get(id(caller.get("m")))
            if reels is not None:
                for reel, v in enumerate(local["f"].out):
                    self._show(reels, int(arg), reel, 0, int(v), self._where(frame.f_back))
            return
        where = self._where(frame)
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
    play = getattr(module, data["function"])
    result = ChunkResult.empty(len(model.components), len(model.counters))
    acc, _ = chunk_accumulators(model, result, -1)
    rng = np.array(data["rng_state"], dtype=np.uint64)
    recorder = _Recorder(data["symbols"], acc.amounts, acc.events, acc.is_info, model.counters)
    params = _widened(data["params"], {})
    recorder.watch(params, data["spun"])
    recorder.params, recorder.held = params, getattr(module, "held_units", None)
    rounds = []
    for _ in range(data["rounds"]):
        result.comp_sum[:] = 0
        result.counters[:] = 0
        recorder.steps, recorder.drawn, recorder.events = [], {}, acc.events
        sys.setprofile(recorder)
        try:
            play(params, rng, 1, -1, acc, result.counters)
        finally:
            sys.setprofile(None)
        recorder.events = result.counters  # (the round's counters, moved out of the accumulators when it ended)
        recorder.close(int(sum(int(a) for a, info in zip(result.comp_sum, acc.is_info) if not info)))
        rounds.append({"amounts": result.comp_sum.tolist(), "counters": result.counters.tolist(), "steps": recorder.steps})
    with open(out, "wb") as f:
        pickle.dump(rounds, f)


if __name__ == "__main__":
    if os.environ.get("NUMBA_DISABLE_JIT") != "1":
        raise SystemExit("workbench.simulate.trace runs a round as Python: start it with NUMBA_DISABLE_JIT=1")
    _child(sys.argv[1], sys.argv[2])
