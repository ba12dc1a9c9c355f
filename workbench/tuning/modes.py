"""Bet modes in the tuner: what a bet mode plays, what tuning it varies, and the order several targets take.

A *bet mode* (``[bet_modes.NAME]``, or ``base``) is a way to play at its own
price; its RTP is x its own cost.  A *strip-set mode* (``mode = "..."`` of a
``[strip_sets.*]``) names strips: ``base``, a feature's (``free_spins``), an
ante's own.  :func:`plan_mode` turns a request (``--bet-mode``, ``--mode``,
``--strip-set``, ``--vary``) into what the search changes:

- the base game, or a bet mode that pays base spins (an ante): the strips of
  its paid spins (for an ante with strips of its own, those), the feature
  terms held from an estimate of that mode, exactly as for the base game;
- a buy (no base spin: its RTP is all simulated feature): the strips of its
  feature's strip-set mode (``free_spins_mode``), or one table drawn inside
  the feature (``--vary table=NAME``); the held estimate then follows an
  exact figure of them (:class:`~workbench.tuning.figures.FeatureProxy`).

:func:`order_targets` puts several targets in an order where no target
changes what an earlier one plays (see docs/tuning.md, "Several targets").
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable

from ..errors import TuningError, WorkbenchError
from ..model import Game
from ..registry import template


def feature_modes(game: Game) -> tuple:
    """The strip-set modes the game's features play (the ``[features]`` parameters of kind ``mode``: e.g.
    ``free_spins_mode``), in the template's order."""
    try:
        params = template(game.game_module).params
    except WorkbenchError:
        return ()
    out = []
    for key, param in params.items():
        value = game.features.get(key)
        if param.kind == "mode" and isinstance(value, str) and value != "base" and value not in out:
            out.append(value)
    return tuple(out)


def strips_played(game: Game, bet_mode: str) -> frozenset:
    """The strip-set modes (as the file names them) whose strips move the RTP of ``bet_mode``: its paid spins'
    (none for a buy whose feature has strips of its own) and every feature's."""
    mode = game.all_bet_modes[bet_mode]
    features = set(feature_modes(game))
    if mode.buy and features:
        return frozenset(features)
    return frozenset({mode.strip_sets} | features)


def played_name(mode, name: str) -> str:
    """What bet mode ``mode`` calls strip-set mode ``name`` of the file (its own paid strips are its ``base``)."""
    if mode.strip_sets == "base":
        return name
    if name == mode.strip_sets:
        return "base"
    return "base:main" if name == "base" else name


def file_name(mode, name: str) -> str:
    """The file's name of strip-set mode ``name`` as bet mode ``mode`` plays it (inverse of :func:`played_name`)."""
    if mode.strip_sets == "base":
        return name
    if name == "base":
        return mode.strip_sets
    return "base" if name == "base:main" else name


@dataclass(frozen=True)
class ModePlan:
    """What tuning one bet mode changes.

    ``played``: the game as bet mode ``bet_mode`` plays it; ``mode`` and
    ``strip_set``: the strip-set mode (as ``played`` names it) and strip set
    the search varies (None: the search's default strip set of ``mode``);
    ``proxy``: ``("strips", mode)`` or ``("table", name)`` when the RTP is a
    bought feature's and follows that exact figure, else None; ``varies`` and
    ``uses``: what the target changes and what its RTP depends on, as
    ``strips:<file's strip-set mode>`` and ``table:<name>``.
    """

    bet_mode: str
    played: Game
    mode: str
    strip_set: str | None
    proxy: tuple | None
    varies: frozenset
    uses: frozenset


def plan_mode(game: Game, bet_mode: str | None = None, *, mode: str | None = None, strip_set: str | None = None,
              vary: Iterable[str] | None = None, tables: Iterable[str] = (), strip_set_weights: bool = False,
              stop_weights: bool = False, base_only: bool = False) -> ModePlan:
    """What tuning ``bet_mode`` of ``game`` (None: the mode ``game`` is played in, usually ``base``) varies, from
    the request; a :class:`~workbench.errors.TuningError` naming the option for a request that cannot be met.
    ``mode`` and ``strip_set`` are as the file names them."""
    where = game.path or game.name
    tables = tuple(dict.fromkeys(tables))
    if bet_mode is None:
        played, name = game, game.bet_mode.name
    else:
        if bet_mode not in game.all_bet_modes:
            hint = difflib.get_close_matches(bet_mode, list(game.all_bet_modes), n=1)
            raise TuningError(f"{where}: --bet-mode: no bet mode {bet_mode!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                              + f"; bet modes: {', '.join(game.all_bet_modes)}")
        if game.bet_mode.name not in ("base", bet_mode):
            raise TuningError(f"{where}: the game given is played in bet mode {game.bet_mode.name!r}: pass it as loaded")
        played = game if game.bet_mode.name == bet_mode else game.in_bet_mode(bet_mode)
        name = bet_mode
    bet = played.bet_mode
    file_modes = tuple(dict.fromkeys(file_name(bet, m) for m in played.modes))
    if mode is not None and mode not in file_modes:
        if mode in game.all_bet_modes:
            raise TuningError(f"{where}: --mode {mode!r}: {mode!r} is a bet mode: use --bet-mode {mode} (--mode names a "
                              f"strip-set mode: {', '.join(file_modes)})")
        raise TuningError(f"{where}: no mode {mode!r} among the strip-set modes ({', '.join(file_modes)}); bet modes "
                          f"are chosen with --bet-mode ({', '.join(game.all_bet_modes)})")
    if mode is not None and name == "base" and not base_only and mode != "base":
        owners = [n for n, m in game.bet_modes.items() if not m.buy and m.strip_sets == mode]
        if owners:
            raise TuningError(f"{where}: --mode {mode!r}: strip-set mode {mode!r} holds the paid spins of bet mode "
                              f"{owners[0]!r}: tune them to that mode's RTP with --bet-mode {owners[0]} (or their RTP per "
                              f"spin with --base-only --mode {mode})")
    symbols_varied = vary is None or bool(list(vary))
    strips_varied = symbols_varied or stop_weights or strip_set_weights
    if strip_set is not None and strip_set in played.strip_sets:
        chosen = played.strip_sets[strip_set].mode
        if mode is not None and played_name(bet, mode) != chosen:
            raise TuningError(f"{where}: strip set {strip_set!r} is of mode {file_name(bet, chosen)!r}, not {mode!r}: "
                              f"pass --mode {file_name(bet, chosen)}")
    elif mode is not None:
        chosen = played_name(bet, mode)
    elif bet.buy and not base_only and strips_varied:
        features = feature_modes(game)
        if not features:
            raise TuningError(f"{where}: bet mode {name!r} buys a feature that plays no strips of its own: name a table "
                              f"drawn in it with --vary table=NAME (tables: {', '.join(game.tables) or 'none'})")
        chosen = features[0]
    else:
        chosen = "base"
    if bet.buy and not strips_varied:
        chosen, strip_set = "base", None  # a table alone: no strips of the buy change
    proxy = None
    if bet.buy:
        if base_only:
            raise TuningError(f"{where}: --base-only: bet mode {name!r} buys its feature and plays no base spin, so its "
                              "RTP is all feature")
        if strips_varied and chosen == "base":
            raise TuningError(f"{where}: bet mode {name!r} buys its feature and plays no base spin: vary its feature's "
                              f"strips (strip-set mode {', '.join(feature_modes(game)) or 'none'}) or a table drawn in it "
                              "(--vary table=NAME)")
        if strips_varied and tables:
            raise TuningError(f"{where}: bet mode {name!r}: vary the bought feature's strips or one table, not both "
                              "(its RTP follows one exact figure of what changes)")
        if strips_varied:
            proxy = ("strips", chosen)
        elif len(tables) == 1:
            proxy = ("table", tables[0])
        elif len(tables) > 1:
            raise TuningError(f"{where}: bet mode {name!r}: vary one table at a time ({', '.join(tables)} given)")
    varied = {f"table:{t}" for t in tables}
    if strips_varied:
        varied.add(f"strips:{file_name(bet, chosen)}")
    uses = {f"strips:{m}" for m in strips_played(game, name)} | {f"table:{t}" for t in game.tables}
    return ModePlan(name, played, chosen, strip_set, proxy, frozenset(varied), frozenset(uses))


def order_targets(plans: list) -> list:
    """The plans in an order where no target changes what an earlier one plays (so each confirmation stands for
    the final file): the given order where it allows.  A :class:`~workbench.errors.TuningError` when no such
    order exists (two targets each change what the other plays)."""
    names = [p.bet_mode for p in plans]
    # j must come before i when j changes something i plays (else tuning j would move i's RTP again)
    before = {i: {j for j in range(len(plans)) if j != i and plans[j].varies & plans[i].uses} for i in range(len(plans))}
    done: list = []
    while len(done) < len(plans):
        ready = [i for i in range(len(plans)) if i not in done and before[i] <= set(done)]
        if not ready:
            left = [i for i in range(len(plans)) if i not in done]
            i = left[0]
            j = next(iter(before[i] - set(done)))
            shared = sorted(_label(x) for x in plans[j].varies & plans[i].uses)
            shared_back = sorted(_label(x) for x in plans[i].varies & plans[j].uses)
            back = (f"and {names[i]} changes {', '.join(shared_back)}, which {names[j]} plays" if shared_back
                    else "and the other targets cannot all go before the ones whose strips they play")
            raise TuningError(
                f"--target {names[i]} and --target {names[j]} cannot be tuned one after the other: {names[j]} changes "
                f"{', '.join(shared)}, which {names[i]} plays, {back}; tune them one at a time (--bet-mode) with other "
                "variables, or give one of them strips of its own")
        done.append(ready[0])
    return [plans[i] for i in done]


def _label(item: str) -> str:
    """``strips:free_spins`` -> "the free_spins strips", ``table:wheel`` -> "table wheel"."""
    kind, _, name = item.partition(":")
    return f"the {name} strips" if kind == "strips" else f"table {name}"
