"""Design warnings (lints) of a reelset: the file's own (:mod:`workbench.io.lint`) plus those the exact engine sees.

The exact lints read the base mode's exact PAR sheet (``par(game,
full_cycle=False)``, well under a second for the shipped games) and each
non-buy bet mode's:

- a trigger whose exact probability per spin is 0 (its scatter taken off the
  base strips, say);
- on a lines game, a higher count of a symbol that hits at least as often as a
  lower one (``5 x SEVEN`` as frequent as ``4 x SEVEN``: the strips of the
  last reel carry the symbol far too often);
- an RTP out of a sane band where the exact part decides it: the exact part
  alone at or above 100 % (features can only add; not with a max-win cap, which
  the exact part ignores), an ante mode's exact part at or above 100 % of its
  cost, and a ``classic`` game (everything it pays is exact) below
  :data:`LOW_RTP`.

Whether an ante or buy is priced near its expected return, and a mode's whole
RTP with its simulated features, need a simulation: they are not checked here.
:func:`check_file` (``workbench validate``) first adds what the whole-game commands would refuse or degrade on
(:mod:`workbench.checks`: errors and warnings), whose exact sheet of the base mode the lints then reuse.
A game the exact engine cannot take (over its budgets), or too large to
price fast (:func:`exact_fits`), gets the file's warnings only, never an
error.  Lives above the engines (layer ``plots,
tuning``) so the file layer never imports them.
"""

from __future__ import annotations

import os

from .errors import WARNING, GameNotFoundError, Problem, ReelsetError
from .io.lint import lint_game, played_sets, read_game, source_of
from .io.toml import SourceText
from .model import Game

#: a game whose every pay is exact (the ``classic`` template) with an RTP below this fraction is reported
LOW_RTP = 0.5
#: the exact part of an RTP at or above this fraction of the stake is reported (the house would lose)
HIGH_RTP = 1.0
#: the exact lints of a mode are skipped (silently) when its played strips hold more stops than this, so that
#: ``workbench validate`` stays fast: the shipped and gallery games have at most 560, priced in well under a second
MAX_EXACT_STOPS = 5_000
#: ... and those of a cluster game whose longest strip is longer than this (the column transfer of a 7x7 game takes
#: about 0.3 s with 40-stop strips, 1.6 s with 60)
MAX_EXACT_CLUSTER_STOPS = 50


def check_file(path: str | os.PathLike, *, exact: bool = True, commands: bool = True) -> list[Problem]:
    """Every problem of a reelset file: its errors if it is invalid; else, with ``commands``, what the whole-game
    commands would refuse (errors) or only degrade on (warnings), :func:`workbench.checks.command_problems`, so a
    file without errors runs every command; then its design warnings (with ``exact``, those of the exact engine
    too).  A missing file is one error, as :func:`workbench.io.validate_file` says."""
    try:
        game, source = read_game(path)
    except ReelsetError as exc:
        return exc.problems
    except GameNotFoundError:
        return [Problem(str(path), "", "file not found (and not the name of a shipped reelset)")]
    found: list[Problem] = []
    sheets: dict = {}
    if commands:
        from .checks import command_problems

        found = command_problems(game, source, sheets)
    sheet = sheets.get(game.all_bet_modes["base"].strip_sets) if game.all_bet_modes else None
    known = {(p.key, p.message) for p in found}
    return found + [p for p in lint(game, source, exact=exact, sheet=sheet) if (p.key, p.message) not in known]


def lint(game: Game, source: SourceText | None = None, *, exact: bool = True, sheet=None) -> list[Problem]:
    """The design warnings of the valid ``game``: the file's, then the exact engine's (with ``exact``; ``sheet``: its
    base mode's exact PAR sheet if already computed, as the editors have).  An exact warning is left out where a
    file warning already names its key (or, for a trigger, the trigger's ``min_count``): one cause, one warning."""
    source = source if source is not None else source_of(game)
    found = lint_game(game, source)
    if exact:
        # a trigger the file already shows can never fire ("triggers.T.min_count") is not said again ("triggers.T")
        named = {p.key for p in found} | {p.key.rsplit(".", 1)[0] for p in found if p.key.startswith("triggers.")}
        found += [p for p in exact_lints(game, source, sheet) if p.key not in named]
    return found


def exact_lints(game: Game, source: SourceText, sheet=None) -> list[Problem]:
    """The warnings that need the exact engine (see the module docstring); none when it cannot take the game."""
    out: list[Problem] = []

    def warn(path: tuple, message: str) -> None:
        out.append(source.problem(path, message, severity=WARNING))

    try:
        if sheet is None:
            from .exact import par

            if not exact_fits(game):
                return out
            sheet = par(game, "base", full_cycle=False)
        _zero_triggers(game, sheet, "base", warn)
        for combo in combination_warnings(sheet):
            symbol, low, high, low_hits, high_hits = combo
            warn(("paytable", symbol, str(high)), _combination_text(*combo))
        _rtp_band(game, sheet, warn)
        _ante_modes(game, warn)
    except Exception:  # noqa: BLE001 - a lint must never fail validation: a game the engine refuses (budget) or
        # cannot price exactly yet (a feature it does not cover) keeps its file warnings only
        return out
    return out


def exact_fits(game: Game) -> bool:
    """Whether the base mode of ``game`` is small enough for the exact lints (:data:`MAX_EXACT_STOPS`,
    :data:`MAX_EXACT_CLUSTER_STOPS`)."""
    stops = [len(strip) for strip_set in played_sets(game, "base") for strip in strip_set.reels]
    if not stops or sum(stops) > MAX_EXACT_STOPS:
        return False
    return game.rule.counts != "cluster" or max(stops) <= MAX_EXACT_CLUSTER_STOPS


# ---------------------------------------------------------------------------
# 9. a trigger that never fires
# ---------------------------------------------------------------------------
def _zero_triggers(game: Game, sheet, mode_name: str, warn) -> None:
    for name, trigger in game.triggers.items():
        try:
            p = sheet.trigger_probability(name)
        except Exception:  # noqa: BLE001 - a trigger the sheet cannot price: say nothing about it
            continue
        if p > 0:
            continue
        what = trigger.combination if trigger.combination is not None else f"scatter group {trigger.scatter}"
        if mode_name == "base":
            warn(("triggers", name), f"trigger {name} never fires: its exact probability on the base game's strips is 0 "
                                     f"({trigger.min_count} or more of {what} never land together). Put its symbols "
                                     f"back on the base strips or lower min_count")
        else:
            warn(("bet_modes", mode_name, "strip_sets"),
                 f"trigger {name} never fires in bet mode {mode_name}: its exact probability on that mode's strips is 0 "
                 f"({trigger.min_count} or more of {what} never land together). Put its symbols on those strips")


# ---------------------------------------------------------------------------
# 10. a higher count as frequent as a lower one
# ---------------------------------------------------------------------------
def combination_warnings(sheet) -> list[tuple]:
    """``(symbol, lower count, higher count, its hits, the higher's hits)`` for every pair of neighbouring listed
    counts of a lines game's paytable entry whose higher count hits at least as often as the lower (and at all).

    Hits are the sheet's combination hits over the cycle, all lines, added over directions and wild multipliers.
    Ways, pay-anywhere and cluster games are left out: their hits are screens whose run (or count band) is exactly
    that long, and a reel showing 3 or more rows makes a longer run legitimately as likely (low symbols on
    243 ways often hit 5 more than 4)."""
    game = sheet.game
    if not game.pays.is_lines:
        return []
    table = sheet.combinations
    hits: dict = {}
    for symbol, count, h in zip(table["symbol"], table["count"], table["hits"]):
        if symbol in game.paytable:  # both-ways pairs ("A+B") are listed besides their parts
            hits.setdefault(symbol, {}).setdefault(int(count), 0)
            hits[symbol][int(count)] += int(h)
    out = []
    for symbol, by_count in hits.items():
        counts = sorted(by_count)
        for low, high in zip(counts, counts[1:]):
            if by_count[high] > 0 and by_count[high] >= by_count[low]:
                out.append((symbol, low, high, by_count[low], by_count[high]))
    return out


def _combination_text(symbol: str, low: int, high: int, low_hits: int, high_hits: int) -> str:
    return (f"{high} x {symbol} hits {high_hits:,} times over the cycle, as often as or more than {low} x {symbol} "
            f"({low_hits:,}): a higher count should be much rarer. Check the strips of reel {high} and those after "
            f"{low} (too many {symbol} or wilds there?), and the paytable's counts")


def par_warning_lines(sheet) -> list[str]:
    """Lines for the text PAR sheet (``workbench par``): one per combination found by :func:`combination_warnings`."""
    return [f"warning: {_combination_text(*combo)}" for combo in combination_warnings(sheet)]


# ---------------------------------------------------------------------------
# 11. RTPs the exact part already puts out of band
# ---------------------------------------------------------------------------
def _rtp_band(game: Game, sheet, warn) -> None:
    rtp = float(sheet.rtp)
    part = "RTP" if game.game_module == "classic" else f"exact part of the RTP ({getattr(sheet, 'covers', 'base game')})"
    if rtp >= HIGH_RTP and game.bet.max_win is None:
        warn(("bet", "cost"), f"the base game's {part} is {100 * rtp:,.4g} % of the total bet before any feature: the game "
                              "pays out more than it takes. Check [bet] cost (the total bet) and the [paytable] and scatter "
                              "pays")
    elif game.game_module == "classic" and rtp < LOW_RTP:
        warn(("paytable",), f"the game's RTP is {100 * rtp:.4g} % (exact: everything the classic template pays), below "
                            f"{100 * LOW_RTP:.0f} %: a paytable line or strip symbols may be missing. Check the "
                            "[paytable] pays and the strips")


def _ante_modes(game: Game, warn) -> None:
    """Bet modes that play a base spin (antes): a zero trigger on their strips, an exact part at or above their cost."""
    from .exact import par

    for name, mode in game.bet_modes.items():
        if mode.buy:
            continue
        played = game.in_bet_mode(name)
        if not exact_fits(played):
            continue
        sheet = par(played, "base", full_cycle=False)
        if mode.strip_sets != "base":
            _zero_triggers(played, sheet, name, warn)
        rtp = float(sheet.rtp) / float(mode.cost)
        if rtp >= HIGH_RTP and played.max_win is None:
            warn(("bet_modes", name, "cost"),
                 f"bet mode {name}'s exact base part alone returns {100 * rtp:,.4g} % of its cost {float(mode.cost):g} x "
                 f"total bet, before any feature: the mode pays out more than it takes. Raise its cost (an ante costs "
                 f"more than 1) or check its strips")
