"""What the whole-game commands need of a file: ``workbench validate`` makes every refusal they would make.

``par``, ``simulate``, ``rtp``, ``report`` and ``tune`` refuse some valid files because of the file itself: a
round template that cannot play a rule, a simulator table over its size, pay units the packed tables cannot hold,
a max-win cap below one pay unit, a round that could pay more than the simulator's 64-bit sums hold.  The cheap,
file-only ones are schema or template checks (:mod:`workbench.io.schema`, ``RoundTemplate.check``); the ones that
need the round model or the exact engine are here, run by :func:`workbench.lints.check_file` as errors with the
same message, placed at the key that causes them.  For every bet mode of the game:

- the round template's bound of one round (:mod:`workbench.rounds.bounds`) at the reference stake and at every
  ``[bet] stakes`` level: above :data:`workbench.simulate.chunks.ROUND_UNITS_MAX` is an error naming the key that
  makes it large (``features.max_free_spins``, ``features.multiplier`` ...); a template whose rules set no limit
  (Bier Haus without ``max_win``) gets a warning: only the run's own checks guard its sums;
- the simulator's round model (:func:`workbench.simulate.round_model`; building it compiles nothing when the
  compiled code is in its cache, which ``make`` fills): any refusal is an error; a jackpot tier fed past its
  must-drop value at a declared stake too;
- the exact PAR sheet without the full cycle (``par(game, full_cycle=False)``) of the base mode and of every bet
  mode with strips of its own (a buy plays no base spin): a refusal caused by a budget
  (:class:`~workbench.errors.ExactBudgetError`, an exact figure too costly) is a *warning*, since ``rtp``,
  ``simulate`` and ``report`` still run (the estimate then simulates every round end to end); any other refusal
  is an error.

Lives beside :mod:`workbench.lints` (layer ``lints``), above the engines and the round templates.
"""

from __future__ import annotations

from dataclasses import replace

from .errors import ERROR, WARNING, ExactBudgetError, Problem, WorkbenchError
from .io.toml import SourceText
from .model import Game

__all__ = ["command_problems", "refusal_key"]


def command_problems(game: Game, source: SourceText, sheets: dict | None = None) -> list[Problem]:
    """Errors (refusals of the commands) and warnings (budgets, unproven bounds) of the valid ``game`` (see the
    module docstring), each naming the file, key and line.  ``sheets`` (optional, filled): the exact PAR sheets
    computed, by strip-set mode, for the lints to reuse."""
    from .simulate import round_model
    from .simulate.engine import bound_problem, check_jackpot_stake

    out: list[Problem] = []
    seen: set = set()
    sheets = {} if sheets is None else sheets

    def add(path: tuple, message: str, severity: str = ERROR) -> None:
        if (severity, message) not in seen:  # the same refusal in several bet modes is said once
            seen.add((severity, message))
            out.append(source.problem(path, message, severity=severity))

    template = _template(game)
    if template is None:
        return out
    stakes = [None] + [float(s) for s in game.bet.stakes]
    for name in game.all_bet_modes:
        played = game.in_bet_mode(name)
        bounded = True
        for stake in stakes:
            try:
                bound = template.round_bound(played, stake)
            except (ArithmeticError, ValueError, KeyError, TypeError) as exc:  # noqa: PERF203 - a template's own bug
                add(("game_module",), f"round template {game.game_module!r} cannot bound what a round pays "
                                      f"({type(exc).__name__}: {exc})")
                bounded = False
                break
            problem = bound_problem(played, bound)
            if problem is not None:
                at = f" at stake {stake:g}" if stake is not None else ""
                add(bound.key or ("paytable",), problem + at)
                bounded = False
                break
            if bound is not None and bound.units is None:
                add(bound.key, f"no bound of what one round pays can be proven ({bound.detail}): the simulator checks "
                               "its 64-bit sums while it runs and stops if one would wrap around", WARNING)
        model = None
        try:
            model = round_model(played) if bounded else None  # (a bound too large: the same refusal again)
        except WorkbenchError as exc:
            add(getattr(exc, "key", None) or refusal_key(played, str(exc)), str(exc))
        except (ArithmeticError, ValueError, IndexError) as exc:  # not a WorkbenchError: a template bug, said plainly
            add(("game_module",), f"round template {game.game_module!r} cannot build the game ({type(exc).__name__}: {exc})")
        for stake in [model.stake] + stakes[1:] if model is not None and model.jackpots else ():
            try:
                check_jackpot_stake(replace(model, stake=stake))
            except WorkbenchError as exc:
                add(("bet", "stakes") if stake != model.stake else ("features",), f"{exc}")
        mode = played.bet_mode
        if mode.buy or mode.strip_sets in sheets:
            continue
        _price(played, mode.strip_sets, sheets, add)
    return out


def _template(game: Game):
    from . import registry

    try:
        return registry.template(game.game_module)
    except WorkbenchError:
        return None


def _price(played: Game, strips: str, sheets: dict, add) -> None:
    """The exact PAR sheet (full cycle skipped) of ``played``'s base spin, as ``rtp`` and ``par`` compute it."""
    from .exact import par

    try:
        sheets[strips] = par(played, "base", full_cycle=False)
        if sheets[strips].missing:  # the game is priced; a figure alone is over the exact engine's budgets
            sheet = sheets[strips]
            add(refusal_key(played, sheet.notes_missing, exact=True),
                f"{sheet.notes_missing}: `workbench par`, the report and the editors show "
                f"{' and '.join(f.replace('_', ' ') for f in sheet.missing)} simulated from the game's screens "
                "(labelled, with its 95 % interval); the RTP stays exact", WARNING)
    except ExactBudgetError as exc:
        sheets[strips] = None
        add(refusal_key(played, str(exc), exact=True),
            f"{exc}: `workbench par` refuses this game; `rtp` simulates every round end to end instead of adding the "
            "exact first screen", WARNING)
    except WorkbenchError as exc:
        sheets[strips] = None
        add(refusal_key(played, str(exc), exact=True), str(exc))


# where a refusal's cause is in the file, by what its message says (the first that matches; the cap, stop weights
# and line pays are placed by refusal_key itself)
_PLACES = (
    ("multiplier is drawn", ("symbols",)),
    ("multiplier table", ("symbols",)),
    ("undecided lines", ("paylines",)),
    ("automaton", ("paytable",)),
    ("line pairs", ("paylines",)),
    ("a spin could pay", ("paytable",)),
    ("scatter", ("scatters",)),
    ("bonus award", ("triggers",)),
    ("heights", ("grid", "heights")),
    ("rows", ("grid", "rows")),
    ("cells", ("grid",)),
    ("strip set", ("strip_sets",)),
    ("window", ("strip_sets",)),
    ("cycle", ("strip_sets",)),
    ("tables", ("strip_sets",)),
    ("bytes", ("strip_sets",)),
)


def refusal_key(game: Game, message: str, exact: bool = False) -> tuple:
    """The key path of ``game``'s file a command's refusal ``message`` is about, for a refusal that carries no
    ``key`` of its own (best effort, by its words), e.g. the strip whose stop weights are too many virtual stops, or the max_win below one pay unit."""
    text = message.lower()
    if "max_win" in text and not exact:
        mode = game.bet_mode
        return ("bet_modes", mode.name, "max_win") if mode.max_win is not None else ("bet", "max_win")
    if "stop weights" in text:
        return _heaviest_strip(game)
    if "line pays too large" in text or "prefix pays" in text:
        wilds = [name for name, sym in game.symbols.items() if sym.carries_multiplier]
        return ("symbols", wilds[0], "multiplier") if wilds else ("paytable",)
    for words, key in _PLACES:
        if words in text:
            return key
    return ("game_module",) if not exact else ("strip_sets",)


def _heaviest_strip(game: Game) -> tuple:
    best, key = -1, ("strip_sets",)
    for name, strip_set in game.strip_sets.items():
        for i, strip in enumerate(strip_set.reels):
            if strip.total_weight > best:
                best, key = strip.total_weight, ("strip_sets", name, f"reel{i + 1}")
    return key
