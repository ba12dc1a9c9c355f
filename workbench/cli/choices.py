"""The player's choices on the command line: ``--choice NAME=OPTION`` (play another option) and ``--choices``
(``workbench rtp``: price every policy, :mod:`workbench.simulate.policies`)."""

from __future__ import annotations

from ..errors import WorkbenchError


def with_choices(game, picks: list | None):
    """``game`` with each ``NAME=OPTION`` of ``picks`` played (:meth:`Game.with_choice`), or a WorkbenchError
    naming the choices and options there are."""
    for pick in picks or ():
        name, sep, option = pick.partition("=")
        if not sep or not name or not option:
            raise WorkbenchError(f"--choice {pick!r}: expected NAME=OPTION, e.g. --choice "
                                 f"{next(iter(game.choices), 'free_spins_pick')}=x2")
        if name not in game.choices:
            raise WorkbenchError(f"--choice: {game.name} has no player choice {name!r} "
                                 f"(choices: {', '.join(game.choices) or 'none'})")
        if option not in game.choices[name].options:
            raise WorkbenchError(f"--choice: choice {name!r} has no option {option!r} "
                                 f"(options: {', '.join(game.choices[name].options)})")
        game = game.with_choice(name, option)
    return game


def print_choices(game, policies: dict | None) -> None:
    """Each choice's policies with their RTP, or (not priced) the options there are and how to price them."""
    for name, choice in game.choices.items():
        if not policies or name not in policies:
            print(f"  choice            {name}: played {choice.played} of {', '.join(choice.options)} "
                  "(`--choices` prices every policy)")
            continue
        result = policies[name]
        print(f"  player choice {name} (figures for {result.played}): RTP of each policy, {result.unit}:")
        for p in result.fixed + [p for p in (result.highest, result.lowest) if p is not None]:
            picks = ", ".join(f"{state} {option}" for state, option in p.picks.items())
            print(f"    {p.name:40s} {100 * p.rtp:9.4f} % +- {100 * p.ci95:.4f} %" + (f"  ({picks})" if picks else ""))
        if result.highest is not None:
            print("    (the highest picks the larger of simulated means: it may read high by up to its half-width)")
        if result.note:
            print(f"    note: {result.note}")
