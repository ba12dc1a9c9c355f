"""A mutant corpus run through every whole-game command: validate, then par, simulate and rtp on what it accepts.

Each case is a structure-aware mutant of a shipped or gallery reelset (tests/mutants.py: file, seed and 1-3
changes from the case number).  :func:`run_case` validates it with :func:`workbench.lints.check_file` (what
``workbench validate`` prints) and, when validate says ok, plays one bet mode of it (chosen by the case number)
through the exact engine (``par(full_cycle=False)``), a short end-to-end simulation and a short exact + conditional
estimate, each time-boxed, and records every finding:

- ``traceback``: an exception that is not a :class:`~workbench.errors.WorkbenchError` (a crash), or a problem of
  validate that names no file;
- ``refusal``: a :class:`~workbench.errors.WorkbenchError` from a command after validate said ok (validate should
  have refused the file), except ``par`` refusing over a budget that validate warned of;
- ``overrun``: a command that ran past its time box by more than 10 % + 1 s;
- ``absurd``: an RTP that is negative, not finite or above the proven bound of a round, a max win above that bound;
- ``disagreement``: simulate and rtp more than ``z`` combined standard errors apart on some component
  (:func:`workbench.simulate.agreement.agreement`).

Everything is seeded: the same case gives the same mutant, mode and random streams (the rounds a time box lets a
run play depend on the machine, so a boxed run's figures may differ from one machine to another).
"""

from __future__ import annotations

import math
import time
import traceback as tb
from dataclasses import dataclass, field
from pathlib import Path

from mutants import ALL_FILES, mutant_text

#: findings that fail the corpus
FAILURES = ("traceback", "refusal", "overrun", "absurd", "disagreement")


@dataclass
class CaseResult:
    case: int
    file: str
    changes: list
    accepted: bool = False
    mode: str = ""
    findings: list = field(default_factory=list)  # (kind, text)
    seconds: dict = field(default_factory=dict)  # step -> wall seconds
    notes: list = field(default_factory=list)  # budget refusals validate warned of, time boxes that cut a run

    def add(self, kind: str, text: str) -> None:
        self.findings.append((kind, f"{self.file} case {self.case} [{self.mode}] {self.changes}: {text}"))

    @property
    def failed(self) -> bool:
        return any(kind in FAILURES for kind, _ in self.findings)


def case_spec(case: int, seed: int = 0) -> tuple[Path, int, int]:
    """(reelset, mutant seed, changes) of case number ``case``: the files in turn, 1-3 changes."""
    n = len(ALL_FILES)
    return ALL_FILES[case % n], seed * 1_000_003 + case, 1 + (case // n) % 3


def within_box(seconds: float, box: float) -> bool:
    return seconds <= 1.1 * box + 1.0


def run_case(case: int, folder: Path, *, seed: int = 0, **options) -> CaseResult:
    """Make mutant ``case`` in ``folder``, validate it and run the commands on it (module docstring; ``options``
    as :func:`run_text` takes them)."""
    path, mutant_seed, n_ops = case_spec(case, seed)
    text, changes = mutant_text(path, mutant_seed, n_ops)
    return run_text(case, path.stem, changes, text.encode("utf-8"), folder, **options)


def run_text(case: int, name: str, changes: list, data: bytes, folder: Path, *, spins: int = 20_000,
             sim_seconds: float = 10.0, rtp_seconds: float = 3.0, precision: float = 0.02, z: float = 5.0,
             commands: bool = True) -> CaseResult:
    """Write the reelset bytes ``data`` (case ``case``: a mutant of ``name`` by ``changes``) to ``folder``, validate
    it and (``commands``) run the commands on it: ``spins`` rounds of simulate in a ``sim_seconds`` box, rtp to
    ``precision`` in a ``rtp_seconds`` box, agreement within ``z`` (module docstring)."""
    from workbench.errors import ExactBudgetError, WorkbenchError
    from workbench.lints import check_file

    out = CaseResult(case, f"{Path(name).stem}.toml", changes)
    target = folder / f"{Path(name).stem}_case{case}.toml"
    target.write_bytes(data)
    start = time.monotonic()
    try:
        problems = check_file(target)
    except Exception as exc:  # noqa: BLE001 - validate must never raise
        out.add("traceback", f"validate raised {type(exc).__name__}: {exc}\n{tb.format_exc(limit=-4)}")
        return out
    out.seconds["validate"] = time.monotonic() - start
    for p in problems:
        if not p.file or not p.message:
            out.add("traceback", f"validate gave a problem without file or message: {p}")
    errors = [p for p in problems if not p.is_warning]
    if errors:
        return out
    out.accepted = True
    if commands:
        _commands(out, target, problems, case, spins, sim_seconds, rtp_seconds, precision, z, ExactBudgetError,
                  WorkbenchError)
    return out


def played_mode(case: int, modes: list) -> str:
    """The bet mode case ``case`` plays among its file's ``modes``: every mode of a file in turn."""
    return modes[(case // len(ALL_FILES)) % len(modes)]


def _commands(out: CaseResult, target: Path, problems, case, spins, sim_seconds, rtp_seconds, precision, z,
              ExactBudgetError, WorkbenchError) -> None:
    from workbench.exact import par
    from workbench.io import load_game
    from workbench.simulate import estimate_rtp, simulate
    from workbench.simulate.agreement import agreement

    game = load_game(str(target))
    out.mode = played_mode(case, list(game.all_bet_modes))
    played = game.in_bet_mode(out.mode)
    warned = " ".join(p.message for p in problems if p.is_warning)

    def step(name: str, call, box: float | None = None):
        start = time.monotonic()
        try:
            return call()
        except ExactBudgetError as exc:
            if name == "par" and str(exc) in warned:
                out.notes.append(f"par refused over a budget, as validate warned: {exc}")
            else:
                out.add("refusal", f"{name} refused a file validate accepted: {exc}")
        except WorkbenchError as exc:
            out.add("refusal", f"{name} refused a file validate accepted: {exc}")
        except Exception as exc:  # noqa: BLE001 - a crash is what the corpus is for
            out.add("traceback", f"{name} raised {type(exc).__name__}: {exc}\n{tb.format_exc(limit=-6)}")
        finally:
            seconds = out.seconds[name] = time.monotonic() - start
            if box is not None and not within_box(seconds, box):
                out.add("overrun", f"{name} took {seconds:.2f} s with a time box of {box:g} s")
        return None

    if not played.bet_mode.buy:
        step("par", lambda: par(played, full_cycle=False))
    sim = step("simulate", lambda: simulate(played, spins, 1000 + case, max_seconds=sim_seconds), sim_seconds)
    est = step("rtp", lambda: estimate_rtp(played, precision, 2000 + case, max_seconds=rtp_seconds), rtp_seconds)
    for name, result in (("simulate", sim), ("rtp", est)):
        if result is not None:
            _absurd(out, name, result)
            if getattr(result, "stopped_by", "") == "time box":
                out.notes.append(f"{name} stopped by its time box")
    if sim is not None and est is not None and sim.spins > 0:
        found = agreement(sim, est)
        if not found.within(z):
            out.add("disagreement", found.describe(z))


def _absurd(out: CaseResult, name: str, result) -> None:
    model = result.model
    cost = model.params.cost_units * float(model.game.bet_mode.cost)  # figures are x the mode's cost
    units = getattr(model, "max_round_units", 0)  # (0: the template proves no bound)
    bound = units / cost if units else math.inf
    rtp, top = float(result.rtp), float(result.max_win)
    if not math.isfinite(rtp) or rtp < 0 or rtp > bound or (math.isinf(bound) and rtp > 1e9):
        out.add("absurd", f"{name}: RTP {rtp!r} x cost (a round pays at most {bound:.6g})")
    if not math.isfinite(top) or top < 0 or top > bound * (1 + 1e-9):
        out.add("absurd", f"{name}: max win {top!r} x cost above the bound of a round {bound:.6g}")
    for comp, est in result.components.items():
        if not math.isfinite(est.value) or abs(est.value) > bound * (1 + 1e-9):
            out.add("absurd", f"{name}: component {comp} {est.value!r} x cost (a round pays at most {bound:.6g})")
