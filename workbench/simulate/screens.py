"""The figures of a PAR sheet the exact engine left out, estimated by a seeded simulation of the sheet's screens.

The exact engine computes the RTP of every game it takes; a figure whose exact computation is over a work budget
(the standard deviation, hit frequency or max win of a production-size cluster game, say) is left out of the
sheet (``ParSheet.missing``) instead of refusing the game.  ``workbench.simulate.complete_par`` is ``par`` plus
those figures: it plays the sheet's screens alone (the first screen of a round, on the strip sets of the sheet's mode, no
feature: :func:`screen_game`) in :data:`BATCHES` seeded batches and gives each missing figure with its 95 %
interval, labelled "simulated (N rounds)" by every view (:mod:`workbench.figures`).  Everything else stays exact.

- hit frequency: hits / rounds over all batches, interval from the binomial variance;
- standard deviation: from the pooled sums; interval t(0.975, B - 1) x the spread of the batches' values / sqrt(B)
  (the std's own variance needs the fourth moment, which the batches measure without assuming a shape);
- max win: the largest win seen (no interval); the exact bound stays beside it (``max_win_upper``).
"""

from __future__ import annotations

import math

import tomlkit

from ..exact.par import ParSheet, SimulatedFigure
from ..io import loads_game, render_text
from ..model import Game
from .results import Z95

SCREEN_ROUNDS = 1 << 22  # rounds played for the missing figures of one sheet, all batches together
BATCHES = 8


def screen_game(game: Game, mode: str = "base") -> Game:
    """``game``'s screens alone: the strip sets of ``mode`` (as the base game), played by the classic template (one
    screen, its pays and scatter pays; no feature, bet mode, player choice or jackpot) -- what the PAR sheet of ``mode`` covers.  Built
    from the file's text (edits included) so that worker processes, which rebuild a game from its text, play the
    same game."""
    doc = tomlkit.parse(render_text(game))
    doc["game_module"] = "classic"
    for key in ("features", "bet_modes", "choices", "jackpots", "expectations"):  # the screens pay: no feature, mode, pick or pot
        if key in doc:
            del doc[key]
    for name in list(doc["strip_sets"]):
        table = doc["strip_sets"][name]
        if table.get("mode", "base") != mode:
            del doc["strip_sets"][name]
        else:
            table["mode"] = "base"
    for spec in doc["symbols"].values():  # the symbols as the mode shows them ([symbols] by_mode), one mode left
        override = spec.get("by_mode", {}).get(mode, {})
        for key in ("multiplier", "substitutes"):
            if key in override:
                spec[key] = override[key]
        for key in ("by_mode", "modes"):
            if key in spec:
                del spec[key]
    return loads_game(tomlkit.dumps(doc), f"{game.path or game.name} (screens of mode {mode})")


def missing_figures(sheet: ParSheet, results: list, seed: int) -> dict:
    """Estimates of the figures of ``sheet.missing`` from the seeded batches ``results`` (SimulationResults of
    :func:`screen_game`, batch ``b`` seeded ``seed + b``): figure -> :class:`~workbench.exact.par.SimulatedFigure`."""
    n = sum(r.spins for r in results)
    mean = sum(r.rtp * r.spins for r in results) / n
    second = sum((r.std ** 2 + r.rtp ** 2) * r.spins for r in results) / n
    std = math.sqrt(max(second - mean * mean, 0.0))
    stds = [r.std for r in results]
    spread = math.sqrt(sum((s - sum(stds) / len(stds)) ** 2 for s in stds) / (len(stds) - 1))
    hit = sum(r.hit_frequency * r.spins for r in results) / n
    out = {}
    if "std" in sheet.missing:
        from scipy import stats  # here, when needed: scipy.stats takes most of a second to import

        t975 = float(stats.t.ppf(0.975, len(results) - 1))  # Student's t, batches - 1 degrees of freedom
        out["std"] = SimulatedFigure(std, t975 * spread / math.sqrt(len(results)), n, seed)
    if "hit_frequency" in sheet.missing:
        out["hit_frequency"] = SimulatedFigure(hit, Z95 * math.sqrt(hit * (1 - hit) / n), n, seed)
    if "max_win" in sheet.missing:
        out["max_win"] = SimulatedFigure(max(r.max_win for r in results), None, n, seed)
    return out
