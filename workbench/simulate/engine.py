"""Running simulations: blocks of rounds on local processes or a Dask cluster, with
progress, clean stops (SIGINT, SIGTERM), retries of lost work and resumable checkpoints.

Three units:

- a **block** is the unit of randomness: block ``j`` of *lane* ``s`` (a stratum;
  -1 = natural play) draws from its own stream ``chunk_state(seed,
  stream_index(s, j), stream)`` and has its own :class:`ChunkResult`.  Its size
  is fixed per kind of run (:data:`SIMULATE_BLOCK` rounds for ``simulate``,
  :data:`RTP_BLOCK` for ``estimate_rtp``); the last block of a run may be shorter;
- a **piece** is consecutive rounds of one block: the whole block, or a part
  that continues the block's random stream and its sums where the previous
  part stopped (so a block played in parts gives bit for bit the result of the
  block played at once);
- a **job** is what one worker plays at a time, set by ``chunk_size``: whole
  blocks (``chunk_size`` a multiple of the block) or one piece of
  ``chunk_size`` rounds (``chunk_size`` below the block; the parts of one block
  are then played one after another).

Per lane, block results are added in block order (a left fold), so the sums,
floats included, are bit-identical whatever the chunk size, the number of
workers, local or Dask, the order jobs finish in, retries of lost jobs, or a
resume from a checkpoint.  Jobs are made lazily, one at a time, and at most a
bounded number of finished blocks wait for an earlier one: memory does not
grow with the number of spins.
"""

from __future__ import annotations

import hashlib
import logging
import math
import numpy as np
from dataclasses import dataclass, replace
from fractions import Fraction

from .. import registry
from ..errors import SimulationError, WorkbenchError, format_key
from ..io import loads_game
from ..model import Game
from .chunks import ROUND_UNITS_MAX
from .plan import checked_plan, end_to_end_plan
from .model import RoundModel


_log = logging.getLogger("workbench.simulate")


#: most rounds one run may ask for (about 28 hours at 10^8 rounds/s); sums stay far from int64 limits
MAX_SPINS = 10**13


#: most local worker processes
MAX_WORKERS = 256


def round_bound(game: Game, stake: float | None = None) -> "registry.RoundBound | None":
    """The round template's bound of what one round of ``game`` pays at ``stake`` (see :mod:`workbench.rounds.bounds`;
    None: the template declares none), refused (:class:`~workbench.errors.SimulationError`) when it is above
    :data:`~workbench.simulate.chunks.ROUND_UNITS_MAX`: :func:`bound_problem` says why."""
    template = registry.template(game.game_module)
    try:
        bound = template.round_bound(game, stake)
    except (ArithmeticError, ValueError) as exc:
        if isinstance(exc, WorkbenchError):
            raise
        raise SimulationError(f"{game.name}: round template {game.game_module!r} cannot bound what a round pays "
                              f"({type(exc).__name__}: {exc})") from None
    problem = bound_problem(game, bound)
    if problem is not None:
        raise SimulationError(f"{game.name}: {problem}")
    return bound


def bound_problem(game: Game, bound) -> str | None:
    """Why one round's ``bound`` (a :class:`~workbench.registry.RoundBound`) is too large for the simulator's 64-bit
    sums, naming the key to change (None: it fits, or there is no bound)."""
    if bound is None or bound.units is None or bound.units <= ROUND_UNITS_MAX:
        return None
    cost = _cost_units(game)
    size = f" ({bound.units / cost:.3g} x total bet)" if cost else ""
    return (f"one round could pay up to {bound.units:,} pay units{size}: {bound.detail}; that is more than the "
            f"{ROUND_UNITS_MAX:,} pay units whose sums over 1,024 rounds fit the simulator's 64-bit integers: lower "
            f"{format_key(bound.key) or 'the pays'}")


def _cost_units(game: Game) -> int:
    from ..pays.scale import pay_scale

    try:
        return pay_scale(game).cost_units
    except (ArithmeticError, ValueError):
        return 0


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    """The simulator's model of ``game`` (built by its round template, see :mod:`workbench.registry`) at ``stake``,
    with the template's proven bound of a round (:func:`round_bound`, refused when too large) as ``max_round_units``."""
    template = registry.template(game.game_module)
    bound = round_bound(game, stake)
    try:
        model = template.round_model(game, stake)
    except (ArithmeticError, ValueError) as exc:  # e.g. a cap in currency at an absurd stake
        if isinstance(exc, WorkbenchError):
            raise
        at = f" at stake {stake!r}" if stake is not None else ""
        raise SimulationError(f"{game.name}: round template {game.game_module!r} cannot build the game{at} "
                              f"({type(exc).__name__}: {exc})") from None
    if not isinstance(model, RoundModel):
        raise SimulationError(f"round template {game.game_module!r} did not build a RoundModel")
    if bound is not None and bound.units is not None:
        model = replace(model, max_round_units=int(bound.units))
    return checked_plan(with_max_win(with_jackpots(model, game, stake), game))


def with_jackpots(model: RoundModel, game: Game, stake: float | None) -> RoundModel:
    """``model`` with the game's must-drop jackpots (``[jackpots.*]``, :attr:`Game.jackpots`), whatever its round
    template: they are fed by every wager and simulated on their own stream (:mod:`workbench.simulate.jackpots`).

    They are in currency, so the model needs a stake: ``stake`` if given, else the template's own, else the top
    of ``[bet] stakes`` (where a wager feeds a pot most per step).
    """
    if not game.jackpots:
        return model
    if stake is None:
        stake = model.stake if model.stake is not None else max(float(s) for s in game.bet.stakes)
    model = replace(model, jackpots=tuple(game.jackpots), stake=finite_positive(stake, "stake"))
    check_jackpot_stake(model)  # every command: a wager that overfeeds a pot breaks its must-drop promise
    return model


def with_max_win(model: RoundModel, game: Game) -> RoundModel:
    """``model`` with the max-win cap of the bet mode ``game`` plays (:attr:`Game.max_win`, x the base total bet).

    The cap is applied to every round where it is recorded
    (:func:`workbench.simulate.chunks.record_round`), so no round template
    changes: the model gains component ``cap`` (if it has none), counters
    ``max_win`` (rounds that reached the cap) and ``max_win:base`` (of those,
    rounds whose base screen alone reached it), ``max_win_units`` (the cap in
    pay units, rounded down) and ``cap_total_bets`` (the smaller of the
    template's own cap and this one).
    """
    cap = getattr(game, "max_win", None)
    if cap is None:
        return model
    cost = int(model.params.cost_units)
    units = math.floor(Fraction(cap) * cost)
    if units <= 0:
        raise SimulationError(f"{game.name}: max_win {float(cap):g} x total bet is below one pay unit "
                              f"(1/{cost} of the total bet)")
    components = model.components if "cap" in model.components else model.components + ("cap",)
    counters = model.counters + tuple(c for c in ("max_win", "max_win:base") if c not in model.counters)
    top = units / cost if not model.cap_total_bets else min(float(model.cap_total_bets), units / cost)
    return replace(model, components=components, counters=counters, max_win_units=units, cap_total_bets=top)


@dataclass(frozen=True)
class RunSpec:
    """Everything a worker needs to rebuild the game and play a job (picklable)."""

    game_text: str
    game_path: str
    stake: float | None
    seed: int
    stream: int
    bet_mode: str = "base"  # the [bet_modes.*] the game is played in (Game.in_bet_mode)
    end_to_end: str = ""  # why the estimate plays every round end to end beyond what the model's plan says ("": no)

    @property
    def game_sha256(self) -> str:
        return hashlib.sha256(self.game_text.encode()).hexdigest()


_MODELS: dict = {}


def _model_for(spec: RunSpec) -> RoundModel:
    key = (spec.game_sha256, spec.stake, spec.bet_mode, spec.end_to_end)
    if key not in _MODELS:
        if len(_MODELS) > 8:
            _MODELS.clear()
        model = round_model(loads_game(spec.game_text, spec.game_path).in_bet_mode(spec.bet_mode), spec.stake)
        _MODELS[key] = end_to_end_plan(model, spec.end_to_end) if spec.end_to_end else model
    return _MODELS[key]


def remember_model(spec: RunSpec, model: RoundModel) -> None:
    """Let jobs run in this process reuse an already built model."""
    _MODELS[(spec.game_sha256, spec.stake, spec.bet_mode, spec.end_to_end)] = model


def check_workers(workers) -> int:
    """``workers`` if it is a whole number from 1 to :data:`MAX_WORKERS`."""
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or not 1 <= workers <= MAX_WORKERS:
        raise SimulationError(f"--workers must be a whole number from 1 to {MAX_WORKERS}, got {workers!r}")
    return int(workers)


def make_progress(total: int, enabled, unit: str = "spin", label: str = "workbench"):
    """A progress report on stderr when ``enabled`` is True (tqdm's bar on a terminal, a line every few seconds
    elsewhere: :mod:`.progress`), ``enabled`` itself when it is a bar (anything with tqdm's ``update``, ``close``,
    ``refresh`` and ``total``, e.g. a notebook panel's), else None."""
    if not enabled:
        return None
    if all(hasattr(enabled, name) for name in ("update", "close", "refresh")):
        enabled.total = total
        return enabled
    from .progress import terminal_progress

    return terminal_progress(label, total or None, unit)


def check_jackpot_stake(model: RoundModel) -> None:
    """Refuse a stake at which one wager would feed a must-drop pot past its must-drop value."""
    for tier in model.jackpots or ():
        feed = model.wager * tier.pot_rate
        if not feed <= tier.room:
            top = tier.largest_wager() / float(model.game.bet_mode.cost)
            raise SimulationError(
                f"stake {model.stake!r} is too large for the jackpot tier {tier.name!r}: one wager feeds {feed:.6g} to a pot "
                f"that must drop by {tier.must_drop:g} (at most stake {top:.6g})")


def finite_positive(value, name: str) -> float:
    """``value`` as a float if it is a finite number above 0, else a SimulationError naming ``name``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SimulationError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(number) or number <= 0:
        raise SimulationError(f"{name} must be a finite number above 0, got {value!r}")
    return number
