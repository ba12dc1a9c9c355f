"""Every exception the workbench raises on purpose lives here.

A designer should never see a traceback for bad input: the CLI catches
:class:`WorkbenchError` and prints its message.
"""

from __future__ import annotations

from dataclasses import dataclass


def format_key(path: tuple) -> str:
    """``("strip_sets", "base", "reel1")`` -> ``strip_sets.base.reel1``; indices as ``[3]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class WorkbenchError(Exception):
    """Base class of all workbench errors."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a reelset file.

    ``key`` is the dotted key path inside the file (``strip_sets.base.reel3``),
    ``line`` the 1-based line where it was found, when known.
    """

    file: str
    key: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        key = f" [{self.key}]" if self.key else ""
        return f"{where}:{key} {self.message}"


class ReelsetError(WorkbenchError):
    """A reelset file cannot be read or is not a valid game description.

    Carries every problem found, not only the first one.
    """

    def __init__(self, problems: list[Problem]):
        if not problems:
            raise ValueError("ReelsetError needs at least one problem")
        self.problems = list(problems)
        super().__init__(self._message())

    def _message(self) -> str:
        if len(self.problems) == 1:
            return str(self.problems[0])
        lines = [f"{len(self.problems)} problems in {self.problems[0].file}:"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)

    @property
    def file(self) -> str:
        return self.problems[0].file


class GameNotFoundError(WorkbenchError):
    """A game name or path does not point to a reelset file."""


class ExactBudgetError(WorkbenchError):
    """An exact computation would exceed the configured budget."""


class SimulationError(WorkbenchError):
    """A simulation cannot be run as asked (bad arguments, broken checkpoint...)."""


class ReportError(WorkbenchError):
    """A report could not be produced."""


class RegistryError(WorkbenchError):
    """A round template cannot be registered or found."""


class TuningError(WorkbenchError):
    """A tuning request cannot be run as asked (unknown symbol or strip set, bad --keep, ...)."""


class TargetUnreachableError(TuningError):
    """The tuner cannot reach the target under the constraints.

    ``binding`` names the constraint that binds; ``closest`` is the
    :class:`workbench.tuning.TuneResult` of the closest reachable game.
    """

    def __init__(self, message: str, binding: str, closest):
        super().__init__(message)
        self.binding = binding
        self.closest = closest
