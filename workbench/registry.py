"""The open registry of round templates: what a reelset's ``game_module`` names.

A *round template* is the code that plays one complete round of a game (the
paid spin and every feature it starts) in the simulator, plus the feature
parameters it reads from the file's ``[features]`` section.  The registry
maps a name to a :class:`RoundTemplate` the way papermill maps engine names to
engines:

- built-in templates are registered by name below (imported only when used);
- a studio's package adds its own through the ``workbench.rounds`` entry-point
  group (``[project.entry-points."workbench.rounds"] my_game =
  "studio_games.my_game:TEMPLATE"``), found at the first lookup of a name
  that is not built in;
- code may :func:`register` a template at run time (tests, notebooks).

A reelset only ever names a registered template: opening a file never imports
a module or path that the file chooses.

A template object is light: its parameters, checks and summary are plain
Python; the compiled round (numba) is imported from ``build`` only when a game
is simulated, so validating or pricing a game never compiles a round.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Callable, Mapping

from .errors import RegistryError

ENTRY_POINT_GROUP = "workbench.rounds"


@dataclass(frozen=True)
class RoundBound:
    """What one round of a game can pay at most (a template's ``bound``, see :class:`RoundTemplate`).

    ``units``: pay units that the absolute values of everything a round pays, component by component, add up to
    at most (a proven upper bound read from the file; None: the rules set no limit, e.g. retriggers without a cap);
    ``key``: the key path of the file (from its root) whose value makes it largest, where a refusal is reported;
    ``detail``: how it is made up, for the message.
    """

    units: int | None
    key: tuple = ()
    detail: str = ""


@dataclass(frozen=True)
class RoundTemplate:
    """A named round template.

    ``params``: feature parameter name -> :class:`~workbench.model.params.Param`
    (what the template reads from ``[features]``); ``check``: optional
    ``check(features, report, refs)`` cross-checking them (``report(key_path,
    message)``); ``build``: the ``round_model(game, stake)`` function, or
    ``"module:function"`` naming it (imported on first use); ``summary``: one
    paragraph saying what the template plays (shown in reports);
    ``declared_pays``: whether its round plays the pay rule, groups, multiplier
    wilds, reel heights and bonus awards a file declares (the ``classic``
    template does; a game's own round pays plain left-to-right lines, so
    validation refuses them in its files); ``buys``: its round can start its
    feature directly, for a ``[bet_modes.*]`` with ``buy = true``; ``prize_modes``: it can play its feature
    from an empty screen as a bet mode of its own, for a ``[bet_modes.*]`` with ``prize_mode = true``;
    ``exact_part``: what the exact PAR sheet of its base mode covers, as the
    reports and editors name it (the spin's first screen: "base game", or a
    tumble's "first drop", whose cascades are simulated); ``bound``: the ``round_bound(game, stake)`` function
    (or ``"module:function"``) returning a :class:`RoundBound`, so the simulator can prove its 64-bit sums fit
    (None: the template proves nothing, and only the run's own checks guard its sums).
    """

    name: str
    build: Any
    params: Mapping = field(default_factory=dict)
    check: Callable | None = None
    summary: str = ""
    declared_pays: bool = False
    buys: bool = False
    prize_modes: bool = False
    exact_part: str = "base game"
    bound: Any = None

    def round_model(self, game, stake: float | None = None):
        """The simulator's :class:`~workbench.simulate.model.RoundModel` of ``game`` at ``stake``."""
        return self.builder()(game, stake)

    def round_bound(self, game, stake: float | None = None) -> RoundBound | None:
        """The template's :class:`RoundBound` of ``game`` at ``stake`` (None: it declares no ``bound``)."""
        if self.bound is None:
            return None
        return self._function(self.bound)(game, stake)

    def builder(self) -> Callable:
        """The template's ``round_model`` function (imports its compiled module on first use)."""
        return self._function(self.build, "round_model")

    def _function(self, spec, default: str = "round_bound") -> Callable:
        if callable(spec):
            return spec
        module_name, _, attr = str(spec).partition(":")
        try:
            module = importlib.import_module(module_name)
            return getattr(module, attr or default)
        except (ImportError, AttributeError) as exc:
            raise RegistryError(f"round template {self.name!r}: cannot load {spec!r} ({exc})") from None


# name -> "module:attribute" of a RoundTemplate (imported on first lookup)
BUILTIN = {
    "classic": "workbench.rounds:PLAIN",
    "free_spins": "workbench.rounds:FREE_SPINS",
    "hold_and_respin": "workbench.rounds:HOLD_AND_RESPIN",
    "tumble": "workbench.rounds:TUMBLE",
    "super_10_stars": "workbench.games.super_10_stars:TEMPLATE",
    "bier_haus": "workbench.games.bier_haus:TEMPLATE",
}

_registered: dict[str, RoundTemplate] = {}
_entry_points_loaded = False


def register(template: RoundTemplate, *, replace: bool = False) -> RoundTemplate:
    """Add ``template`` under ``template.name``; an existing name needs ``replace=True``."""
    if not isinstance(template, RoundTemplate):
        raise RegistryError(f"expected a RoundTemplate, got {type(template).__name__}")
    if not template.name or not template.name.replace("_", "").isalnum():
        raise RegistryError(f"round template name {template.name!r} may only use letters, digits and _")
    if not replace and template.name in names():
        raise RegistryError(f"a round template named {template.name!r} is already registered")
    _registered[template.name] = template
    return template


def unregister(name: str) -> None:
    """Remove a template registered at run time (built-ins stay)."""
    _registered.pop(name, None)


def _load_object(path: str, name: str) -> RoundTemplate:
    module_name, _, attr = path.partition(":")
    obj = getattr(importlib.import_module(module_name), attr or "TEMPLATE")
    if not isinstance(obj, RoundTemplate):
        raise RegistryError(f"{path} (round template {name!r}) is not a RoundTemplate")
    return obj


def _entry_points() -> dict:
    try:
        return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    except Exception:  # noqa: BLE001 - broken metadata of another package must not stop the workbench
        return {}


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for name, ep in _entry_points().items():
        if name in _registered or name in BUILTIN:
            continue
        try:
            obj = ep.load()
        except Exception as exc:  # noqa: BLE001
            raise RegistryError(f"round template {name!r} from entry point {ep.value!r} cannot be loaded: {exc}") from None
        if not isinstance(obj, RoundTemplate):
            raise RegistryError(f"entry point {ep.value!r} (round template {name!r}) is not a RoundTemplate")
        _registered[name] = obj


def names() -> tuple:
    """Names of every known template: built-in, registered and installed by entry points."""
    return tuple(dict.fromkeys([*BUILTIN, *_registered, *_entry_points()]))


def find_template(name: str) -> RoundTemplate | None:
    """The template called ``name``, or None if there is none."""
    if name in _registered:
        return _registered[name]
    if name in BUILTIN:
        _registered[name] = _load_object(BUILTIN[name], name)
        return _registered[name]
    _load_entry_points()
    return _registered.get(name)


def exact_part(game_module: str) -> str:
    """What the exact PAR sheet of a game of round template ``game_module`` covers (:attr:`RoundTemplate.exact_part`;
    "base game" for a template the registry cannot find)."""
    try:
        found = find_template(game_module)
    except RegistryError:
        found = None
    return found.exact_part if found is not None else "base game"


def template(name: str) -> RoundTemplate:
    """The template called ``name`` (:class:`~workbench.errors.RegistryError` if unknown)."""
    found = find_template(name)
    if found is None:
        raise RegistryError(f"unknown round template {name!r} (known: {', '.join(names())})")
    return found
