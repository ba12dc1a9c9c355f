"""Reviewer reports: the tables behind ``notebooks/report.ipynb`` and the pipeline that runs it.

:func:`generate_report` executes the parameterized report notebook with
papermill in a fresh kernel running this Python (no kernel spec needs to be
installed), keeps the executed notebook, renders it to a self-contained HTML
page (code hidden, figures embedded as base64 PNG, no external scripts) and
collects the data files the notebook wrote: the PAR sheet as ``.xlsx`` (one
sheet per table), one CSV per table and JSON, plus a JSON of every number in
the report.

The other functions build the report's tables; the notebook only calls them
and displays the result.  Amounts are in multiples of the total bet
(``x total bet``); RTP, hit frequency and probabilities are fractions,
formatted as percent by :func:`fmt_pct`.  Every number depends only on the
game file, ``seed``, ``spins`` and ``precision`` (all randomness is seeded),
so the same inputs give identical tables and JSON.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import math
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .errors import ReportError

DEFAULT_SPINS = 2_000_000
DEFAULT_SEED = 1
DEFAULT_PRECISION = 0.0005  # 95 % half-width of the RTP estimate (0.05 %)
STAKE_PRECISION_FACTOR = 2  # RTP per stake level: half-width = factor x precision (4x cheaper each)
SESSION_SPINS = 1000
SESSION_BANKROLL = 100.0  # x total bet
SESSIONS = 2000
BAND_SPINS = (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)
BAND_CONFIDENCES = (0.90, 0.95, 0.99)
EXCEEDANCE_LEVELS = (1, 10, 100, 1_000, 10_000)  # x total bet; edges of the simulator's win buckets
PAR_TABLES = ("summary", "symbol_counts", "combinations", "per_line", "scatter_pays", "triggers", "prize_structure")
NONDETERMINISTIC_KEYS = ("elapsed_seconds", "spins_per_second")

ROOT = Path(__file__).resolve().parent.parent
REPORT_NOTEBOOK = ROOT / "notebooks" / "report.ipynb"
KERNEL_DISPLAY_NAME = "Python 3 (workbench)"


# ---------------------------------------------------------------------------
# number formats (what the report shows)
# ---------------------------------------------------------------------------
def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(x)


def fmt_pct(x, digits: int = 4) -> str:
    """A fraction as percent: ``0.950790 -> "95.0790 %"``."""
    return f"{100 * x:.{digits}f} %" if _finite(x) else "n/a"


def fmt_ci(x, digits: int = 4) -> str:
    """A 95 % half-width (fraction) as ``"± 0.0123 %"``; exact values (0) as ``"exact"``."""
    if not _finite(x):
        return "n/a"
    return "exact" if x == 0 else f"± {100 * x:.{digits}f} %"


def fmt_x(x, digits: int = 2) -> str:
    """An amount in total bets: ``175 -> "175x"``, ``2.5 -> "2.50x"``."""
    if not _finite(x):
        return "n/a"
    if float(x).is_integer():
        return f"{int(x):,}x"
    return f"{x:,.{digits}f}x"


def fmt_one_in(p) -> str:
    """A probability as ``"1 in 558.25"`` (``"never"`` for 0)."""
    if not _finite(p):
        return "n/a"
    return "never" if p <= 0 else f"1 in {1 / p:,.2f}"


def fmt_num(x, digits: int = 4) -> str:
    return f"{x:,.{digits}f}" if _finite(x) else "n/a"


def _frame(rows: list[dict], index: str | list | None = None) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if index is not None and len(df):
        df = df.set_index(index)
    return df


# ---------------------------------------------------------------------------
# the game
# ---------------------------------------------------------------------------
def load_report_game(game):
    """The game to report on: a Game, a path or a shipped name."""
    from .model import Game
    from .reelset import load_game

    return game if isinstance(game, Game) else load_game(game)


def sha256_file(path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def game_stem(game) -> str:
    """File-name stem of a game's reports: its reelset file name, else a slug of its name."""
    if getattr(game, "path", None):
        return Path(game.path).stem
    return "".join(c if c.isalnum() else "_" for c in game.name.lower()).strip("_") or "game"


def _module_summary(game) -> str:
    from .games import GAME_MODULES, game_module

    if game.game_module not in GAME_MODULES:
        return ""
    doc = (game_module(game.game_module).__doc__ or "").strip()
    return doc.split("\n\n")[0].replace("\n", " ")


def _substitutes_text(game, symbol) -> str:
    if not symbol.is_wild:
        return ""
    others = [n for n, s in game.symbols.items() if not s.is_wild]
    subs = [n for n in others if n in symbol.substitutes]
    missing = [n for n in others if n not in symbol.substitutes]
    if not missing:
        return "all"
    if len(subs) >= len(missing):
        return "all but " + ", ".join(missing)
    return ", ".join(subs)


def game_overview(game) -> pd.DataFrame:
    """What the game is: file, rules module, grid, bet model, modes, features (one row per item)."""
    bet = game.bet
    stakes = ", ".join(f"{float(s):g}" for s in bet.stakes) + (f" {bet.currency}" if bet.currency else "") if bet.stakes else "-"
    rows = [
        ("name", game.name),
        ("description", game.description or "-"),
        ("reelset file", Path(game.path).name if game.path else "(in memory)"),
        ("game module (rules)", game.game_module),
        ("module description", _module_summary(game) or "-"),
        ("grid", f"{game.reels} reels x {'/'.join(str(r) for r in game.rows)} rows"),
        ("paylines", f"{len(game.paylines)}"),
        ("total bet", f"{float(bet.cost):g} credits x bet multiplier"),
        ("line bet", f"{float(bet.line_bet):g} credits x bet multiplier (line pays x {bet.line_pay_unit.replace('_', ' ')})"),
        ("stake ladder", stakes),
        ("modes", ", ".join(game.modes)),
        ("strip sets", ", ".join(f"{s.name} ({s.mode}, weight {s.weight})" for s in game.strip_sets.values())),
        ("scatter groups", ", ".join(game.scatters) or "-"),
        ("triggers", ", ".join(f"{t.name}: {t.min_count}+ {t.scatter}" for t in game.triggers.values()) or "-"),
        ("weighted tables", ", ".join(game.tables) or "-"),
    ]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def symbol_table(game) -> pd.DataFrame:
    """Symbols and their kinds: substitution, height, reels, visibility limit, line pays (x line bet)."""
    rows = []
    for name, s in game.symbols.items():
        pays = game.paytable.get(name, {})
        rows.append({
            "symbol": name,
            "kind": s.kind,
            "substitutes for": _substitutes_text(game, s),
            "height (rows)": s.height,
            "reels": ", ".join(map(str, s.reels)) if s.reels else "all",
            "max visible per reel": s.max_visible if s.max_visible is not None else "-",
            "line pays": ", ".join(f"{k}: {float(v):g}" for k, v in sorted(pays.items())) or "-",
        })
    return _frame(rows, "symbol")


def paytable_table(game) -> pd.DataFrame:
    """Line pays by symbol (rows) and count from the leftmost reel (columns), x the line pay unit."""
    counts = range(1, game.reels + 1)
    rows = []
    for name, pays in game.paytable.items():
        row = {"symbol": name}
        for k in counts:
            row[f"{k} of a kind"] = f"{float(pays[k]):g}" if k in pays else ""
        rows.append(row)
    df = _frame(rows, "symbol")
    return df.loc[:, (df != "").any(axis=0)] if len(df) else df


def scatter_table(game) -> pd.DataFrame:
    """Scatter groups: symbols, how they count, and pays by count (x their unit)."""
    rows = []
    for name, g in game.scatters.items():
        rows.append({
            "scatter group": name,
            "symbols": ", ".join(g.symbols),
            "counting": g.counting.replace("_", " "),
            "visibility": g.visibility,
            "pays": ", ".join(f"{k}: {float(v):g}" for k, v in sorted(g.pays.items())) or "-",
            "unit": "x " + g.unit.replace("_", " "),
        })
    return _frame(rows, "scatter group")


def feature_parameters(game) -> pd.DataFrame:
    """The game module's parameters from ``[features]``: value and meaning (with units)."""
    from .games import GAME_MODULES, game_module

    declared = getattr(game_module(game.game_module), "FEATURES", {}) if game.game_module in GAME_MODULES else {}
    rows = []

    def plain(v):
        if isinstance(v, dict) or hasattr(v, "items"):
            return "{" + ", ".join(f"{k}: {plain(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(plain(x) for x in v) + "]"
        return str(v)

    for name, value in game.features.items():
        spec = declared.get(name)
        rows.append({"parameter": name, "value": plain(value), "meaning": getattr(spec, "doc", "")})
    return _frame(rows, "parameter")


def strip_table(game) -> pd.DataFrame:
    """Every strip: strip set, mode, choice weight, reel, stops, total stop weight, the strip in file notation."""
    rows = []
    for s in game.strip_sets.values():
        for i, strip in enumerate(s.reels, start=1):
            rows.append({"strip set": s.name, "mode": s.mode, "set weight": s.weight, "reel": i, "stops": len(strip),
                         "total weight": strip.total_weight, "strip": strip.to_text()})
    return _frame(rows, ["strip set", "reel"])


def table_lengths(game) -> pd.DataFrame:
    """Weighted tables: entries and total weight."""
    rows = [{"table": t.name, "entries": len(t.entries), "total weight": t.total_weight} for t in game.tables.values()]
    return _frame(rows, "table")


# ---------------------------------------------------------------------------
# computations (one call per notebook cell)
# ---------------------------------------------------------------------------
def par_sheet(game):
    """Exact base-game PAR sheet (full cycle when it fits the default budget)."""
    from .exact import par

    return par(game)


def rtp_estimate(game, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED, workers: int = 1, stake=None):
    """RTP by exact base game + conditional simulation of the features, to ``precision`` (95 % half-width)."""
    from .simulate import estimate_rtp

    return estimate_rtp(game, precision, seed, workers=workers, stake=stake)


def simulation(game, spins: int = DEFAULT_SPINS, seed: int = DEFAULT_SEED, workers: int = 1):
    """End-to-end simulation of ``spins`` rounds (features, win distribution, max win seen)."""
    from .simulate import simulate

    return simulate(game, spins, seed, workers=workers)


def report_stakes(game, stakes=None) -> list:
    """Stake levels to report: ``stakes`` if given, else the game's stake ladder."""
    chosen = game.bet.stakes if stakes is None else stakes
    return [float(s) for s in chosen]


def stake_estimates(game, stakes=None, precision: float = DEFAULT_PRECISION, seed: int = DEFAULT_SEED,
                    workers: int = 1) -> dict:
    """RTP estimate at each stake level (currency); half-width ``STAKE_PRECISION_FACTOR x precision``.

    The same seed is used at every stake (common random numbers), so
    differences between stakes are measured more precisely than each level.
    """
    levels = report_stakes(game, stakes)
    return {s: rtp_estimate(game, STAKE_PRECISION_FACTOR * precision, seed, workers, stake=s) for s in levels}


def rtp_trace(sim) -> pd.DataFrame:
    """The simulation's running RTP after each chunk (spins, rtp, ci95), jackpot RTP included
    so it is comparable with the total RTP (the trace itself follows the game's RTP only)."""
    trace = sim.trace.copy()
    trace["rtp"] = trace["rtp"] + sim.jackpot_rtp
    return trace


def round_distribution(sheet, est, sim):
    """Best source of the whole-round win distribution: the exact PAR sheet when the
    game is fully exact (no features, no jackpots) and its full cycle was enumerated,
    else the simulation."""
    exact_only = all(e.source == "exact" for e in est.components.values()) and not est.jackpot_rtp
    return sheet if exact_only and sheet.distribution is not None else sim


# ---------------------------------------------------------------------------
# tables of results
# ---------------------------------------------------------------------------
def key_figures(sheet, est, sim=None) -> pd.DataFrame:
    """Headline numbers: exact base game, whole game (exact + conditional), simulation."""
    def column(stats, rtp_ci, jackpot):
        return {
            "RTP": fmt_pct(stats.rtp),
            "RTP ± (95 %)": fmt_ci(rtp_ci),
            "jackpot RTP": fmt_pct(jackpot),
            "hit frequency": fmt_pct(stats.hit_frequency, 2),
            "hit rate": fmt_one_in(stats.hit_frequency),
            "std (x total bet)": fmt_num(stats.std),
            "volatility index 90 %": fmt_num(stats.volatility_index(0.90)),
            "volatility index 95 %": fmt_num(stats.volatility_index(0.95)),
            "max win": fmt_x(stats.max_win),
        }

    data = {"exact base game": column(sheet, 0.0, 0.0),
            "whole game (exact + conditional)": column(est, est.rtp_ci95, est.jackpot_rtp)}
    if any(s.samples for s in est.strata):
        data["whole game (exact + conditional)"]["max win"] = f"{fmt_x(est.max_win)} (largest known)"
    if sim is not None:
        data[f"simulated ({sim.spins:,} rounds)"] = column(sim, sim.rtp_ci95, sim.jackpot_rtp)
        data[f"simulated ({sim.spins:,} rounds)"]["max win"] = f"{fmt_x(sim.max_win)} (largest seen)"
    df = pd.DataFrame(data)
    df.index.name = "figure"
    return df


def combinations_table(sheet) -> pd.DataFrame:
    """Line combinations: pay (x the line pay unit), hits over the cycle (all lines), probability per line,
    1 in N, RTP (x total bet) and share of the RTP."""
    c = sheet.combinations
    unit = sheet.game.bet.line_pay_unit.replace("_", " ")
    return pd.DataFrame({
        "combination": c["combination"],
        f"pay (x {unit})": [f"{p:g}" for p in c["pay"]],
        "hits": [f"{h:,}" for h in c["hits"]],
        "probability": [f"{p:.4e}" for p in c["probability"]],
        "1 in": [fmt_num(x, 2) for x in c["one_in"]],
        "RTP": [fmt_pct(x) for x in c["rtp"]],
        "share of RTP": [fmt_pct(x, 2) for x in c["rtp_share"]],
    }).set_index("combination")


def scatter_pays_table(sheet) -> pd.DataFrame:
    """Scatter counts: hits, probability per spin, 1 in N, pay, RTP, share."""
    s = sheet.scatter_pays
    if not len(s):
        return pd.DataFrame()
    return pd.DataFrame({
        "scatter": s["scatter"],
        "count": s["count"],
        "pay": [f"{p:g} x {u.replace('_', ' ')}" for p, u in zip(s["pay"], s["unit"])],
        "hits": [f"{h:,}" for h in s["hits"]],
        "probability": [f"{p:.4e}" for p in s["probability"]],
        "1 in": [fmt_num(x, 2) for x in s["one_in"]],
        "RTP": [fmt_pct(x) for x in s["rtp"]],
        "share of RTP": [fmt_pct(x, 2) for x in s["rtp_share"]],
    }).set_index(["scatter", "count"])


def triggers_table(sheet) -> pd.DataFrame:
    """Feature triggers: exact probability per base spin and 1 in N."""
    t = sheet.triggers
    if not len(t):
        return pd.DataFrame()
    return pd.DataFrame({"trigger": t["trigger"], "condition": [f"{m}+ {s}" for m, s in zip(t["min_count"], t["scatter"])],
                         "hits": [f"{h:,}" for h in t["hits"]], "probability": [f"{p:.4e}" for p in t["probability"]],
                         "1 in": [fmt_num(x, 2) for x in t["one_in"]]}).set_index("trigger")


def prize_table(sheet) -> pd.DataFrame:
    """Prize structure: probability, 1 in N, share of hits and of pays by win level (x total bet)."""
    p = sheet.prize_structure
    return pd.DataFrame({"level": p["level"], "probability": [f"{x:.4e}" for x in p["probability"]],
                         "1 in": [fmt_num(x, 2) for x in p["one_in"]], "% of hits": [f"{x:.3f}" for x in p["hits_pct"]],
                         "% of pays": [f"{x:.3f}" for x in p["pays_pct"]], "basis": p["basis"]}).set_index("level")


def per_line_table(sheet) -> pd.DataFrame:
    """Per payline: RTP of one line bet (x line bet), hit frequency, std and volatility (x line bet)."""
    p = sheet.per_line
    return pd.DataFrame({"rows": p["rows"], "RTP (x line bet)": [fmt_pct(x) for x in p["rtp"]],
                         "hit frequency": [fmt_pct(x, 2) for x in p["hit_frequency"]], "std": [fmt_num(x) for x in p["std"]],
                         "VI 90 %": [fmt_num(x) for x in p["volatility_index_90"]]}, index=p.index)


def component_table(est) -> pd.DataFrame:
    """RTP by component (x total bet) with 95 % half-width, method and share of the total RTP.

    Informational ``option:*`` components (what another player choice would
    pay) are left out: :func:`option_table` shows them.
    """
    rows = []
    for name, e in est.components.items():
        if name.startswith("option:"):  # what another player choice would pay: see option_table
            continue
        rows.append({"component": name, "RTP": fmt_pct(e.value), "± (95 %)": fmt_ci(e.ci95), "method": e.source,
                     "share of RTP": fmt_pct(e.value / est.rtp, 2) if est.rtp else "n/a"})
    rows.append({"component": "total", "RTP": fmt_pct(est.rtp), "± (95 %)": fmt_ci(est.rtp_ci95), "method": "",
                 "share of RTP": fmt_pct(1.0, 2)})
    return _frame(rows, "component")


def strata_table(est) -> pd.DataFrame:
    """Trigger states of the exact + conditional method: exact probability, mean extra win (x total bet), samples.

    States that cannot occur (probability 0) are left out.
    """
    rows = [{"trigger state": s.name, "probability": f"{s.probability:.4e}", "1 in": fmt_one_in(s.probability),
             "mean extra win": fmt_x(s.mean_extra, 4) if _finite(s.mean_extra) else "n/a",
             "± (95 %)": fmt_num(s.ci95), "RTP contribution": fmt_pct(s.contribution) if _finite(s.contribution) else "n/a",
             "rounds simulated": f"{s.samples:,}"} for s in est.strata if s.probability > 0]
    return _frame(rows, "trigger state")


def stake_table(stake_results: dict) -> pd.DataFrame:
    """RTP at each stake level (currency) with 95 % half-width, jackpot RTP and max win."""
    rows = []
    for stake, e in stake_results.items():
        rows.append({"stake": f"{float(stake):g}", "RTP": fmt_pct(e.rtp), "± (95 %)": fmt_ci(e.rtp_ci95),
                     "game RTP": fmt_pct(e.game_rtp), "jackpot RTP": fmt_pct(e.jackpot_rtp),
                     "max win cap": fmt_x(e.model.cap_total_bets) if e.model.cap_total_bets else "-"})
    return _frame(rows, "stake")


def volatility_table(sheet, est) -> pd.DataFrame:
    """Spread of the win per round: std, volatility index (x total bet), spins for a ±1 % / ±0.1 % RTP band."""
    rows = []
    for label, s in (("exact base game", sheet), ("whole game", est)):
        stats = s.statistics if hasattr(s, "statistics") else s
        rows.append({"": label, "std (x total bet)": fmt_num(stats.std), "VI 90 %": fmt_num(stats.volatility_index(0.90)),
                     "VI 95 %": fmt_num(stats.volatility_index(0.95)),
                     "spins for ± 1 % (95 %)": f"{stats.spins_for_precision(0.01):,}",
                     "spins for ± 0.1 % (95 %)": f"{stats.spins_for_precision(0.001):,}"})
    return _frame(rows, "")


def band_table(stats, spins=BAND_SPINS, confidences=BAND_CONFIDENCES) -> pd.DataFrame:
    """RTP confidence bands ``rtp ± VI(c)/sqrt(n)`` after n spins, for each confidence c."""
    rows = []
    for n in spins:
        row = {"spins": f"{n:,}"}
        for c in confidences:
            lo, hi = stats.confidence_band(n, c)
            row[f"{c:.0%} band"] = f"{100 * lo:.2f} % – {100 * hi:.2f} %"
        rows.append(row)
    return _frame(rows, "spins")


def simulation_table(sim, est) -> pd.DataFrame:
    """Simulation against the exact + conditional estimate: RTP, hit frequency, agreement (z score)."""
    diff = sim.rtp - est.rtp
    sigma = math.hypot(sim.rtp_ci95, est.rtp_ci95) / 1.959963984540054
    z = diff / sigma if sigma > 0 else math.nan
    rows = [
        ("rounds simulated", f"{sim.spins:,}"),
        ("seed", str(sim.seed)),
        ("simulated RTP", f"{fmt_pct(sim.rtp)} {fmt_ci(sim.rtp_ci95)}"),
        ("exact + conditional RTP", f"{fmt_pct(est.rtp)} {fmt_ci(est.rtp_ci95)}"),
        ("difference", f"{100 * diff:+.4f} % (z = {z:+.2f})" if _finite(z) else f"{100 * diff:+.4f} %"),
        ("agreement", "consistent (|z| < 3)" if not _finite(z) or abs(z) < 3 else "CHECK: |z| >= 3"),
        ("simulated hit frequency", fmt_pct(sim.hit_frequency, 2)),
        ("rounds reaching the max-win cap", f"{sim.cap_fraction:.3g}"),
    ]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def simulated_components_table(sim) -> pd.DataFrame:
    """Simulated RTP by component (x total bet) with 95 % half-width."""
    rows = [{"component": k, "RTP": fmt_pct(e.value), "± (95 %)": fmt_ci(e.ci95)} for k, e in sim.components.items()]
    return _frame(rows, "component")


def feature_table(sim) -> pd.DataFrame:
    """Simulated feature statistics: starts, 1 in N rounds, average win per start (x total bet)."""
    rows = [{"feature": f.name, "starts": f"{f.starts:,}", "frequency": fmt_one_in(f.frequency),
             "average win": fmt_x(f.average_win, 3)} for f in sim.features.values()]
    return _frame(rows, "feature")


def option_table(est) -> pd.DataFrame:
    """RTP if the player always chose each option (x total bet)."""
    rows = [{"choice": name, "option": opt, "RTP": fmt_pct(v)} for name, alts in est.options.items() for opt, v in alts.items()]
    return _frame(rows, ["choice", "option"])


def exceedance_table(sheet, sim, levels=EXCEEDANCE_LEVELS) -> pd.DataFrame:
    """P(win >= level) per round: exact base game (full cycle) and simulated whole rounds."""
    from .plots import win_data

    exact = sheet.distribution
    sim_data = win_data(sim) if sim is not None else None
    edges = np.asarray(sim.bucket_edges) if sim is not None else None
    tail = np.cumsum(np.asarray(sim.bucket_counts)[::-1])[::-1] / sim.spins if sim is not None else None
    rows = []
    for level in levels:
        row = {"win at least": fmt_x(level)}
        if exact is not None:
            row["exact base game"] = fmt_one_in(exact.sf(level))
        if sim_data is not None:
            i = int(np.searchsorted(edges, level * (1 - 1e-9)))
            row["simulated"] = fmt_one_in(float(tail[i])) if i < len(tail) else "never"
        rows.append(row)
    return _frame(rows, "win at least")


def max_win_table(sheet, est, sim=None) -> pd.DataFrame:
    """Max win analysis (x total bet): exact base-game maximum and its odds, cap, largest wins seen."""
    rows = [("exact base-game max win", fmt_x(sheet.max_win))]
    if sheet.distribution is not None:
        p = sheet.distribution.pmf(sheet.max_win)
        rows.append(("odds of the base-game max win", fmt_one_in(p)))
    cap = est.model.cap_total_bets
    rows.append(("max-win cap", fmt_x(cap) if cap else "none"))
    rows.append(("largest win in the RTP estimate", fmt_x(est.max_win)))
    if sim is not None:
        rows.append(("largest win simulated", f"{fmt_x(sim.max_win)} ({sim.max_win_count:,} time(s) in {sim.spins:,} rounds)"))
        rows.append(("rounds capped", f"{sim.cap_fraction:.3g}"))
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def session_table(source, spins: int = SESSION_SPINS, bankroll: float = SESSION_BANKROLL, sessions: int = SESSIONS,
                  seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Player sessions at a few checkpoints: balance percentiles (x total bet), P(ahead), P(broke)."""
    from .plots import session_percentiles

    df = session_percentiles(source, spins, bankroll, sessions, seed)
    marks = sorted({n for n in (10, 50, 100, 250, 500, 1000, 2000, 5000, spins) if n <= spins})
    out = df.loc[marks].copy()
    for col in out.columns:
        out[col] = [fmt_pct(v, 1) if col in ("ahead", "broke") else f"{v:,.1f}" for v in out[col]]
    out = out.rename(columns={"ahead": "P(ahead)", "broke": "P(broke)"})
    out.index = [f"{n:,}" for n in out.index]
    out.index.name = "after spins"
    return out


# ---------------------------------------------------------------------------
# provenance
# ---------------------------------------------------------------------------
def provenance(game, *, seed: int, spins: int, precision: float, stakes=None) -> dict:
    """Where the report's numbers come from: game file hash, versions, inputs, date and machine."""
    import numba
    import scipy

    path = Path(game.path) if game.path else None
    return {
        "game": game.name,
        "game_file": path.name if path else None,
        "game_sha256": sha256_file(path) if path else hashlib.sha256(game.to_text().encode()).hexdigest(),
        "workbench_version": __version__,
        "seed": int(seed),
        "spins": int(spins),
        "precision": float(precision),
        "stakes": report_stakes(game, stakes),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": f"{platform.node()} ({platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs)",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "pandas": pd.__version__,
    }


def provenance_table(prov: dict) -> pd.DataFrame:
    labels = {"game_sha256": "game file SHA-256", "workbench_version": "workbench version", "game_file": "game file"}
    rows = [(labels.get(k, k.replace("_", " ")),
             (", ".join(f"{float(s):g}" for s in v) or "none") if isinstance(v, list) else str(v)) for k, v in prov.items()]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def title_html(game, prov: dict) -> str:
    """The report's heading (HTML)."""
    from html import escape

    return (f"<h1>{escape(game.name)}: math report</h1>"
            f"<p>{escape(game.description or '')}</p>"
            f"<p><small>workbench {escape(prov['workbench_version'])} · seed {prov['seed']} · "
            f"{prov['spins']:,} simulated rounds · RTP precision ± {100 * prov['precision']:.3f} % · "
            f"game file SHA-256 <code>{prov['game_sha256']}</code> · {escape(prov['date'])}</small></p>")


# ---------------------------------------------------------------------------
# display and files
# ---------------------------------------------------------------------------
def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure as PNG bytes (no timestamp in the metadata)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def show(fig) -> None:
    """Display a figure in the notebook as an embedded PNG image."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig), format="png"))


def show_table(df: pd.DataFrame, caption: str | None = None, empty: str = "none") -> None:
    """Display a table (as HTML) with an optional caption, or the note ``empty`` when it has no rows."""
    from html import escape

    from IPython.display import HTML, display

    if caption:
        display(HTML(f"<p><b>{escape(caption)}</b></p>"))
    if df is None or not len(df):
        display(HTML(f"<p><i>{escape(empty)}</i></p>"))
        return
    with pd.option_context("display.max_colwidth", None, "display.max_rows", None, "display.max_columns", None,
                           "display.width", None):
        display(df)


def par_tables(sheet) -> dict:
    """The PAR sheet's tables by name (as in the .xlsx workbook)."""
    return {"summary": sheet.summary.to_frame(), **{name: getattr(sheet, name) for name in PAR_TABLES[1:]}}


def _strict(obj):
    """JSON-ready copy: NaN/inf -> None, numpy scalars -> Python, timing keys dropped."""
    if isinstance(obj, dict):
        return {str(k): _strict(v) for k, v in obj.items() if k not in NONDETERMINISTIC_KEYS}
    if isinstance(obj, (list, tuple)):
        return [_strict(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def to_json(data) -> str:
    """Strict JSON text (NaN/inf as null), keys in the library's order, no timings."""
    return json.dumps(_strict(data), indent=2, default=str) + "\n"


def report_data(sheet, est, sim, stake_results: dict, prov: dict, session_source=None) -> dict:
    """Every number of the report (no dates or timings): same inputs give identical data."""
    data = {
        "provenance": {k: v for k, v in prov.items() if k in ("game", "game_file", "game_sha256", "workbench_version", "seed",
                                                                "spins", "precision", "stakes")},
        "par": sheet.to_dict(),
        "rtp_estimate": est.to_dict(),
        "stakes": [{"stake": s, **e.to_dict()} for s, e in stake_results.items()],
        "simulation": sim.to_dict() if sim is not None else None,
    }
    if session_source is not None:
        from .plots import session_percentiles

        df = session_percentiles(session_source, SESSION_SPINS, SESSION_BANKROLL, SESSIONS, prov["seed"])
        last = df.iloc[-1]
        data["sessions"] = {"spins": SESSION_SPINS, "bankroll": SESSION_BANKROLL, "sessions": SESSIONS, "seed": prov["seed"],
                            "final_balance_percentiles": {c: float(last[c]) for c in df.columns if c.startswith("p")},
                            "p_ahead": float(last["ahead"]), "p_broke": float(last["broke"])}
    return data


def output_paths(out_dir, stem: str) -> dict:
    """Where a report's files go (all inside ``out_dir``)."""
    out = Path(out_dir)
    return {
        "notebook": out / f"{stem}.ipynb",
        "html": out / f"{stem}.html",
        "xlsx": out / f"{stem}_par.xlsx",
        "par_json": out / f"{stem}_par.json",
        "report_json": out / f"{stem}_report.json",
        "csv": {name: out / f"{stem}_par_{name}.csv" for name in PAR_TABLES},
    }


def write_outputs(out_dir, game, sheet, data: dict) -> dict:
    """Write the PAR sheet (.xlsx, one CSV per table, JSON) and the report's numbers (JSON) into ``out_dir``."""
    paths = output_paths(out_dir, game_stem(game))
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    sheet.to_excel(paths["xlsx"])
    for name, df in par_tables(sheet).items():
        df.to_csv(paths["csv"][name], index=name in ("summary", "symbol_counts", "per_line"))
    paths["par_json"].write_text(to_json(sheet.to_dict()), encoding="utf-8")
    paths["report_json"].write_text(to_json(data), encoding="utf-8")
    return paths


def files_table(paths: dict) -> pd.DataFrame:
    """The data files written by :func:`write_outputs` (names only)."""
    rows = [{"file": paths[k].name, "contents": what} for k, what in (
        ("xlsx", "PAR sheet, one worksheet per table"), ("par_json", "PAR sheet summary (ParSheet.to_dict)"),
        ("report_json", "every number of this report"))]
    rows += [{"file": p.name, "contents": f"PAR sheet table {name}"} for name, p in paths["csv"].items()]
    return _frame(rows, "file")


# ---------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------
@dataclass
class ReportFiles:
    """The files of one report (all in ``out_dir``) and how long it took (s)."""

    out_dir: Path
    notebook: Path
    html: Path
    xlsx: Path
    par_json: Path
    report_json: Path
    csv: dict = field(default_factory=dict)
    game_file: Path | None = None
    elapsed: float = 0.0

    def all(self) -> list[Path]:
        return [self.notebook, self.html, self.xlsx, self.par_json, self.report_json, *self.csv.values()]


def kernel_manager_class():
    """A Jupyter kernel manager that starts ipykernel in *this* Python (``sys.executable``).

    No kernel spec needs to be installed, and a ``python3`` spec of another
    environment cannot be picked up by mistake; the workbench package this
    process uses comes first on the kernel's ``PYTHONPATH``.
    """
    import zmq
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.manager import AsyncKernelManager

    class WorkbenchKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            if "transport_encryption" in self.trait_names() and zmq.has("curve"):
                self.transport_encryption = "auto"  # encrypt the local kernel connection when possible

        @property
        def kernel_spec(self):
            if self._kernel_spec is None:
                path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
                self._kernel_spec = KernelSpec(
                    argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    display_name=KERNEL_DISPLAY_NAME, language="python", env={"PYTHONPATH": path}, resource_dir="",
                    metadata={"supported_encryption": ["curve"]})
            return self._kernel_spec

    return WorkbenchKernelManager


HTML_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{#- self-contained: no require.js, MathJax or mermaid from a CDN -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


def render_html(notebook_path, html_path, title: str | None = None) -> Path:
    """Render an executed notebook to a self-contained HTML page: code hidden, figures as base64 PNG."""
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook_path), as_version=4)
    # papermill's error banner cells stay; the injected-parameters cell has no output
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"workbench_report.html.j2": HTML_TEMPLATE})],
                            template_file="workbench_report.html.j2", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True, embed_images=True)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title or Path(notebook_path).stem}})
    Path(html_path).write_text(body, encoding="utf-8")
    return Path(html_path)


def _check_parameters(spins, seed, precision, stakes) -> None:
    if not isinstance(spins, (int, np.integer)) or isinstance(spins, bool) or spins <= 0:
        raise ReportError(f"spins must be a positive integer, got {spins!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ReportError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(precision, (int, float)) or not precision > 0 or not math.isfinite(precision):
        raise ReportError(f"precision must be a positive number (0.0005 = ± 0.05 %), got {precision!r}")
    if stakes is not None and not all(isinstance(s, (int, float)) and s > 0 for s in stakes):
        raise ReportError(f"stakes must be positive numbers, got {stakes!r}")


def _failed_cell_message(exc, label: str, partial: Path) -> str:
    source = (exc.source or "").strip().splitlines()
    first = source[0].strip() if source else ""
    cell = f"cell {exc.cell_index} (In [{exc.exec_count}])" + (f" '{first}'" if first else "")
    return f"{label} failed in {cell}: {exc.ename}: {exc.evalue}\n  partial notebook kept: {partial}"


def execute_notebook(notebook, output, parameters: dict, *, kernel_name: str | None = None, cwd=None,
                     timeout: float | None = None, progress: bool = False, label: str | None = None) -> Path:
    """Execute ``notebook`` with papermill into ``output`` (saved after every cell).

    Runs in ipykernel of this Python unless ``kernel_name`` names an
    installed Jupyter kernel.  Raises :class:`~workbench.errors.ReportError`
    naming the failing cell; the partial executed notebook is kept.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    label = label or Path(notebook).stem
    engine = {} if kernel_name else {"kernel_manager_class": kernel_manager_class()}
    try:
        pm.execute_notebook(str(notebook), str(output), parameters=parameters, kernel_name=kernel_name or "python3",
                            progress_bar=progress, cwd=None if cwd is None else str(cwd),
                            request_save_on_cell_execute=True, execution_timeout=timeout, **engine)
    except PapermillExecutionError as exc:
        raise ReportError(_failed_cell_message(exc, label, Path(output))) from None
    except Exception as exc:  # the kernel died, timed out or could not start
        raise ReportError(f"{label}: notebook execution stopped: {type(exc).__name__}: {exc}\n"
                          f"  partial notebook (if any): {output}") from exc
    return Path(output)


def report_game_file(game, out_dir) -> Path:
    """The reelset file a report reads: the game's own file, or, for a game with unsaved
    edits (or none on disk), its text written to ``out_dir/<game>.toml``."""
    path = Path(game.path).resolve() if game.path else None
    if path is not None and path.exists() and path.read_text(encoding="utf-8") == game.to_text():
        return path
    copy = Path(out_dir) / f"{game_stem(game)}.toml"
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(game.to_text(), encoding="utf-8")
    return copy


def generate_report(game, out_dir, *, spins: int = DEFAULT_SPINS, seed: int = DEFAULT_SEED,
                    precision: float = DEFAULT_PRECISION, stakes=None, workers: int = 1, kernel_name: str | None = None,
                    timeout: float | None = None, progress: bool = False) -> ReportFiles:
    """Run the report notebook for ``game`` and write every report file into ``out_dir``.

    ``game``: a Game, a reelset path or a shipped name; a Game with unsaved
    edits is written to ``out_dir`` first and reported from there.
    ``spins``: rounds of the end-to-end simulation; ``precision``: 95 %
    half-width of the RTP estimate (fraction of the total bet); ``stakes``:
    stake levels (currency) to report, default the game's stake ladder;
    ``kernel_name``: a named Jupyter kernel instead of this Python;
    ``timeout``: seconds allowed per cell (default: no limit).

    Files: ``<game>.ipynb`` (executed), ``<game>.html``, ``<game>_par.xlsx``,
    ``<game>_par_<table>.csv``, ``<game>_par.json`` and ``<game>_report.json``.
    Raises :class:`~workbench.errors.ReportError` naming the failing cell if
    the notebook fails; the partial executed notebook is kept.
    """
    _check_parameters(spins, seed, precision, stakes)
    start = time.perf_counter()
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    loaded = load_report_game(game)
    path = report_game_file(loaded, out)
    paths = output_paths(out, game_stem(loaded))
    notebook = Path(REPORT_NOTEBOOK)
    if not notebook.exists():
        raise ReportError(f"report notebook not found: {notebook}")
    parameters = {"game": str(path), "spins": int(spins), "seed": int(seed), "precision": float(precision),
                  "stakes": None if stakes is None else [float(s) for s in stakes], "workers": int(workers),
                  "out_dir": str(out)}
    execute_notebook(notebook, paths["notebook"], parameters, kernel_name=kernel_name, cwd=out, timeout=timeout,
                     progress=progress, label=f"report for {loaded.name}")
    render_html(paths["notebook"], paths["html"], title=f"{loaded.name}: math report")
    missing = [p for p in (paths["xlsx"], paths["par_json"], paths["report_json"], *paths["csv"].values()) if not p.exists()]
    if missing:
        raise ReportError(f"report for {loaded.name}: the notebook did not write {', '.join(p.name for p in missing)}")
    return ReportFiles(out, paths["notebook"], paths["html"], paths["xlsx"], paths["par_json"], paths["report_json"],
                       paths["csv"], path, time.perf_counter() - start)


__all__ = [
    "DEFAULT_PRECISION",
    "DEFAULT_SEED",
    "DEFAULT_SPINS",
    "ReportFiles",
    "execute_notebook",
    "generate_report",
    "render_html",
]
