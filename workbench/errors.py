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


ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a reelset file.

    ``key`` is the dotted key path inside the file (``strip_sets.base.reel3``),
    ``line`` the 1-based line where it was found, when known.  ``severity`` is
    :data:`ERROR` (the file is invalid: validation refuses it) or
    :data:`WARNING` (a *lint*: the file is valid but probably not what its
    designer meant, see :mod:`workbench.io.lint` and :mod:`workbench.lints`);
    a warning prints as ``file:line: [key] warning: message``.
    """

    file: str
    key: str
    message: str
    line: int | None = None
    severity: str = ERROR

    @property
    def is_warning(self) -> bool:
        return self.severity == WARNING

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        key = f" [{self.key}]" if self.key else ""
        marker = " warning:" if self.is_warning else ""
        return f"{where}:{key}{marker} {self.message}"


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
    """A simulation cannot be run as asked (bad arguments, broken checkpoint...).  ``key``: the key path of the
    game's file the refusal is about, when the code refusing knows it (``workbench validate`` reports it there)."""

    def __init__(self, message: str = "", key: tuple | None = None):
        super().__init__(message)
        self.key = key


class FirstScreenCutUnknown(SimulationError):
    """The first screen alone can pass a max-win cap and its exact full-cycle distribution is over the budget, so
    what the cap takes from first screens is not known exactly (the estimate then simulates every round end to end)."""


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
