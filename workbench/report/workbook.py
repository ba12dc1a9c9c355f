"""The PAR workbook as labs exchange it: one formatted .xlsx of a game's PAR sheet.

:func:`write_par_workbook` writes, with openpyxl, cell by cell:

* **Summary**: game, file, pay rule, stake convention, the whole-game RTP
  (exact when the game has no simulated features, else the exact +
  conditional estimate with its 95 % half-width when one is given, else a
  note that features need ``workbench rtp``), then one block per mode of the
  game (RTP, hit frequency, PAR-sheet hit frequency, std, volatility index at
  90 % and 95 % with z, max win, cycle, triggers), every row with its unit;
* one sheet per table of the PAR sheet (combinations, symbol counts, per
  line, scatter pays, triggers, bonus awards, prize structure, awards); a
  table the game does not have is left out;
* **PAR <mode>**, one per mode of the game (:mod:`workbench.report.modes`: the base game, each strip-set mode
  such as free spins, each bet mode): what it covers, then its figures (RTP and parts, hit frequency, std,
  volatility index, max win and how it is known, the cycle with its factors, the triggers' exact odds per spin
  of the mode, the whole round x its cost), each with its unit and method;
* **Strips** (every strip set, reel by reel, one row per stop), **Reel strips** (every strip set stop by stop,
  reels as columns, stops numbered from 1), **Paytable**
  and **Provenance** (reelset file and its SHA-256, workbench version, git
  commit, the estimate's seed and precision, date).

Numbers keep their value and get a number format (percent with 4 decimals for
RTP and probabilities, ``#,##0`` for counts, ``#,##0.00`` for "1 in N" and
amounts); integer counts above 2**53 are written as text with their exact
digits (a float would lose them), next to the probability.  Header rows are
bold and frozen, columns fitted to their content.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import math
import re
import subprocess
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..io.atomic import write_output

PERCENT = "0.0000%"
COUNT = "#,##0"
AMOUNT = "#,##0.00"
DECIMAL = "#,##0.0000"
FINE = "0.000000"
TEXT = "@"
EXACT_INT_LIMIT = 2**53  # the largest integer range a float (and so Excel) holds exactly
FEATURES_NEED_RTP = "base game only; features need `workbench rtp`"
MAX_WIDTH = 80

_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e([+-]\d+)\b")


# ---------------------------------------------------------------------------
# cells
# ---------------------------------------------------------------------------
def _plain_text(text: str) -> str:
    """``text`` with numbers in scientific notation written out (``2e+06`` -> ``2,000,000``)."""
    def expand(m):
        value = float(m.group(0))
        return f"{value:,.0f}" if value >= 1 and value == int(value) else f"{value:,.10f}".rstrip("0").rstrip(".")

    return _SCIENTIFIC.sub(expand, text)


def _shown(value, fmt: str | None) -> str:
    """About what Excel shows for ``value`` in format ``fmt`` (for column widths)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    if fmt == PERCENT:
        return f"{100 * value:,.4f}%"
    if fmt == COUNT:
        return f"{value:,.0f}"
    if fmt == DECIMAL:
        return f"{value:,.4f}"
    if fmt == FINE:
        return f"{value:.6f}"
    return f"{value:,.2f}"


def _cell_value(value, fmt: str | None, inf_text: str):
    """What goes into a cell and its number format: exact ints, finite floats, text (never a Python literal)."""
    if value is None:
        return "-", None
    if isinstance(value, (bool, np.bool_)):
        return ("yes" if value else "no"), None
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if abs(value) > EXACT_INT_LIMIT:
            return str(value), TEXT  # the exact digits; a float would round them
        return value, fmt if fmt in (COUNT, AMOUNT, DECIMAL, PERCENT, FINE) else COUNT
    if isinstance(value, Fraction):
        value = float(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "-", None
        if math.isinf(value):
            return (inf_text if value > 0 else "-" + inf_text), None
        return value, fmt or AMOUNT
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value), None
    return _plain_text(str(value)), None


class _Sheet:
    """One worksheet written row by row: bold frozen header, formats per cell, widths fitted at the end."""

    def __init__(self, book, title: str, headers: list[str]):
        from openpyxl.styles import Font

        self.ws = book.create_sheet(title)
        self.bold = Font(bold=True)
        self.widths = [len(h) for h in headers]
        self.row = 1
        for col, header in enumerate(headers, start=1):
            self.ws.cell(row=1, column=col, value=header).font = self.bold
        self.ws.freeze_panes = "A2"

    def add(self, values, formats=None, *, bold: bool = False, inf_text: str = "never") -> None:
        from openpyxl.styles import Alignment

        self.row += 1
        formats = formats or [None] * len(values)
        for col, (value, fmt) in enumerate(zip(values, formats), start=1):
            written, number_format = _cell_value(value, fmt, inf_text)
            cell = self.ws.cell(row=self.row, column=col, value=written)
            if number_format == TEXT:
                cell.number_format = TEXT
                cell.alignment = Alignment(horizontal="right")
            elif number_format:
                cell.number_format = number_format
            if bold:
                cell.font = self.bold
            while len(self.widths) < col:
                self.widths.append(0)
            self.widths[col - 1] = max(self.widths[col - 1], len(_shown(written, number_format)))

    def finish(self) -> None:
        from openpyxl.utils import get_column_letter

        for col, width in enumerate(self.widths, start=1):
            self.ws.column_dimensions[get_column_letter(col)].width = min(width + 2, MAX_WIDTH)


def _table(book, title: str, columns: list[tuple[str, str | None]], rows, inf_text: str = "never") -> None:
    """A sheet of ``rows`` (lists of values) under ``columns`` (header, number format)."""
    sheet = _Sheet(book, title, [h for h, _ in columns])
    formats = [f for _, f in columns]
    for row in rows:
        sheet.add(list(row), formats, inf_text=inf_text)
    sheet.finish()


# ---------------------------------------------------------------------------
# what the numbers are
# ---------------------------------------------------------------------------
def _estimate_view(estimate):
    """The figures of an RTP estimate (a :class:`~workbench.simulate.RtpEstimate` or its ``to_dict()``)."""
    if estimate is None:
        return None
    if isinstance(estimate, dict):
        comps = {k: (v.get("value"), v.get("ci95"), v.get("source")) for k, v in (estimate.get("components") or {}).items()}
        return SimpleNamespace(rtp=estimate.get("rtp"), ci95=estimate.get("rtp_ci95"), seed=estimate.get("seed"),
                               precision=estimate.get("precision_target"), samples=estimate.get("samples"),
                               stake=estimate.get("stake"), jackpot_rtp=estimate.get("jackpot_rtp") or 0.0,
                               components=comps)
    comps = {k: (e.value, e.ci95, e.source) for k, e in estimate.components.items()}
    return SimpleNamespace(rtp=estimate.rtp, ci95=estimate.rtp_ci95, seed=estimate.seed, precision=estimate.precision,
                           samples=getattr(estimate, "samples", None), stake=estimate.model.stake,
                           jackpot_rtp=estimate.jackpot_rtp, components=comps)


def git_commit() -> str | None:
    """The commit of the git checkout the package lives in (None when it is not in one)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", commit) else None


def _credits(amount) -> str:
    value = float(amount)
    return f"{value:,.10g} credit" + ("" if value == 1 else "s")


def _unit(name: str) -> str:
    return "x " + name.replace("_", " ")


def _mode_sheets(game, sheet):
    """The PAR sheet of every mode of the game (``sheet`` for its own mode), or the reason one failed."""
    from ..errors import WorkbenchError
    from ..exact import par

    out = {}
    for mode in game.modes:
        if mode == sheet.mode:
            out[mode] = sheet
            continue
        try:
            out[mode] = par(game, mode, full_cycle=False)
        except WorkbenchError as exc:
            out[mode] = str(exc)
    return out


# ---------------------------------------------------------------------------
# the sheets
# ---------------------------------------------------------------------------
def _summary(book, game, sheet, modes: dict, est, bet_modes: list = ()) -> None:
    from ..stats import z_value
    from .game_tables import pay_rule_text

    s = _Sheet(book, "Summary", ["Figure", "Value", "Unit / note"])
    bet = game.bet
    s.add(["Game", game.name, game.description or ""])
    s.add(["Reelset file", Path(game.path).name if game.path else "(in memory)", str(game.path or "")])
    s.add(["Pay rule", pay_rule_text(game), ""])
    s.add(["Stake convention", "x total bet",
           f"amounts in multiples of the total bet ({_credits(bet.cost)}); line pays x "
           f"{bet.line_pay_unit.replace('_', ' ')} (line bet {_credits(bet.line_bet)})"])
    if bet.stakes:
        s.add(["Stake ladder", ", ".join(f"{float(x):g}" for x in bet.stakes) + (f" {bet.currency}" if bet.currency else ""), ""])
    s.add(["Modes", ", ".join(game.modes), ""])
    s.add(["Tables of mode", sheet.mode, "the mode the table sheets of this workbook describe"])

    s.add(["Whole game", "", ""], bold=True)
    from ..simulate import exactness

    exact, why = exactness(game)
    base = modes.get("base")
    base = base if not isinstance(base, str) else None
    if exact and base is not None:
        s.add(["Whole-game RTP (exact)", base.rtp, "x total bet; " + why], [None, PERCENT, None])
    elif est is not None and est.rtp is not None:
        s.add(["Whole-game RTP (exact + conditional)", est.rtp, "x total bet; exact base game + conditional simulation "
               "of the features"], [None, PERCENT, None])
        s.add(["Whole-game RTP 95 % half-width", est.ci95, "x total bet (RTP ± this)"], [None, PERCENT, None],
              inf_text="not bounded (a state was not sampled)")
        if est.jackpot_rtp:
            s.add(["Progressive (pooled) jackpot RTP", est.jackpot_rtp, "x total bet (included above)"], [None, PERCENT, None])
        for name, (value, ci, source) in est.components.items():
            if name.startswith("option:"):
                continue
            note = f"x total bet, {source}" + (f", ± {100 * ci:.4f} %" if ci and math.isfinite(ci) else "")
            s.add([f"Whole-game RTP component {name}", value, note], [None, PERCENT, None])
    else:
        s.add(["Whole-game RTP", FEATURES_NEED_RTP, why])

    z90 = z_value(0.90)
    if bet_modes:
        s.add(["Bet modes", "", "each mode's figures x its own cost (exact + conditional)"], bold=True)
    for b in bet_modes:
        name = b["mode"]
        s.add([f"Bet mode {name}: cost", b["cost_x_total_bet"], "x total bet per round" + (" (buys the feature)" if b["buy"] else "")],
              [None, AMOUNT, None])
        s.add([f"Bet mode {name}: RTP", b["rtp"], "x its cost"], [None, PERCENT, None])
        s.add([f"Bet mode {name}: RTP 95 % half-width", b["rtp_ci95"], "x its cost (RTP ± this)"], [None, PERCENT, None],
              inf_text="not bounded (a state was not sampled)")
        s.add([f"Bet mode {name}: exact base part", b["base_part"], "x its cost"], [None, PERCENT, None])
        s.add([f"Bet mode {name}: hit frequency", b["hit_frequency"], "of rounds with any win"], [None, PERCENT, None])
        s.add([f"Bet mode {name}: volatility index 90 %", b["volatility_index_90"], f"z = {z90:.4f} x std (x its cost)"],
              [None, DECIMAL, None])
        s.add([f"Bet mode {name}: largest known win", b["max_win"], "x its cost"], [None, AMOUNT, None])
        if b.get("max_win_cap"):  # [bet_modes.NAME] max_win (or [bet] max_win): the cap, what it costs, how often
            s.add([f"Bet mode {name}: max win cap", b["max_win_cap"], "x the base total bet; a round is paid at most this"],
                  [None, AMOUNT, None])
            s.add([f"Bet mode {name}: max win cap RTP cost", b["cap_cost"],
                   f"x its cost, ± {100 * b['cap_cost_ci95']:.4f} % (95 %): what the cap takes (-component cap)"],
                  [None, PERCENT, None])
            s.add([f"Bet mode {name}: rounds reaching the max win cap", b["max_win_probability"], "of rounds"],
                  [None, PERCENT, None])
    for mode, m in modes.items():
        s.add([f"Mode {mode}", "", "base game" if mode == "base" else "feature mode"], bold=True)
        if isinstance(m, str):
            s.add(["PAR sheet", "not computed", m])
            continue

        def lab(text, mode=mode):
            return text if mode == "base" else f"{text}, mode {mode}"

        for v in m.figures():  # the catalogue's figures (workbench.figures), as every view shows them
            label = (("Base-game RTP (exact)" if mode == "base" else f"RTP of mode {mode} (exact)") if v.key == "rtp"
                     else lab(v.label))
            value, number_format, unit = _cell(v)
            s.add([label, value, unit], [None, number_format, None])
    s.finish()


def _cell(v) -> tuple:
    """(cell value, number format, unit note) of a catalogue figure (:class:`workbench.figures.Value`)."""
    from .. import figures as F

    if v.kind == F.PERCENT:
        return v.value, PERCENT, v.unit
    if v.kind == F.NUMBER:
        return v.value, DECIMAL, v.unit
    if v.kind in (F.AMOUNT, F.RATE):
        return v.value, AMOUNT, v.unit
    if v.kind == F.ONE_IN:  # a probability: the lab's "1 in N"
        return (1 / v.value if v.value else math.inf), AMOUNT, v.unit
    if v.kind == F.COUNT:
        big = int(v.value) > EXACT_INT_LIMIT
        return int(v.value), COUNT, v.unit + (" (exact digits, as text: above 2^53)" if big else "")
    return F.shown(v.value, v.kind), None, v.unit


def _combinations(book, sheet) -> None:
    c = sheet.combinations
    if not len(c):
        return
    game = sheet.game
    lines = game.pays.is_lines
    ways = "ways_per_hit" in c
    cols = [("combination", "Combination", None), ("symbol", "Symbol", None), ("count", "Count", COUNT),
            ("pay", f"Pay ({_unit(game.bet.line_pay_unit)}{' per way' if ways else ''})", AMOUNT),
            ("multiplier", "Wild multiplier", COUNT), ("ways_per_hit", "Ways per hit", DECIMAL),
            ("clusters_per_hit", "Clusters per hit", DECIMAL),
            ("hits", "Hits (all lines, over the cycle)" if lines else "Hits (screens, over the cycle)", COUNT),
            ("probability", "Probability (per line)" if lines else "Probability (per spin)", PERCENT),
            ("one_in", "1 in N", AMOUNT), ("rtp", "RTP (x total bet)", PERCENT), ("rtp_share", "% of RTP", PERCENT)]
    cols = [x for x in cols if x[0] in c]
    rows = [[row[k] for k, _, _ in cols] for row in c.to_dict("records")]
    _table(book, "Combinations", [(h, f) for _, h, f in cols], rows)


def _symbol_counts(book, sheet) -> None:
    t = sheet.symbol_counts
    if not len(t):
        return
    reels = [col for col in t.columns if col != "strip_set"]
    columns = [("Strip set", None), ("Symbol", None)] + [(str(r).capitalize() + " (stops)", COUNT) for r in reels]
    rows = [[row["strip_set"], symbol, *(row[r] for r in reels)] for symbol, row in t.iterrows()]
    _table(book, "Symbol counts", columns, rows)


def _per_line(book, sheet) -> None:
    p = sheet.per_line
    if not len(p):
        return
    stats = ["rtp", "rtp_contribution", "hit_frequency", "std", "volatility_index_90", "volatility_index_95", "max_win"]
    columns = [("Line", None), ("Rows (0 = top)", None), ("RTP (x line bet)", PERCENT),
               ("RTP contribution (x total bet)", PERCENT), ("Hit frequency", PERCENT), ("Std (x line bet)", DECIMAL),
               ("Volatility index 90 % (x line bet)", DECIMAL), ("Volatility index 95 % (x line bet)", DECIMAL),
               ("Max win (x line bet)", AMOUNT)]
    values = p[stats].to_numpy(dtype=float)
    if len(p) > 1 and np.all(values == values[0]):
        rows = [["every line", f"all {len(p)} lines", *values[0].tolist()]]
    else:
        rows = [[int(line), row["rows"], *(row[k] for k in stats)] for line, row in p.iterrows()]
    _table(book, "Per line", columns, rows)


def _scatter_pays(book, sheet) -> None:
    t = sheet.scatter_pays
    if not len(t):
        return
    columns = [("Scatter group", None), ("Count", COUNT), ("Pay", AMOUNT), ("Pay unit", None),
               ("Hits (over the cycle)", COUNT), ("Probability (per spin)", PERCENT), ("1 in N", AMOUNT),
               ("RTP (x total bet)", PERCENT), ("% of RTP", PERCENT)]
    rows = [[r["scatter"], r["count"], r["pay"], _unit(r["unit"]), r["hits"], r["probability"], r["one_in"], r["rtp"],
             r["rtp_share"]] for r in t.to_dict("records")]
    _table(book, "Scatter pays", columns, rows)


def _triggers(book, sheet) -> None:
    t = sheet.triggers
    if not len(t):
        return
    columns = [("Trigger", None), ("Symbol or scatter group", None), ("Minimum count", COUNT),
               ("Hits (over the cycle)", COUNT), ("Probability (per spin)", PERCENT), ("1 in N spins", AMOUNT)]
    line = "line_probability" in t
    if line:
        columns += [("Probability (per line)", PERCENT), ("1 in N lines", AMOUNT), ("Bonuses per spin", FINE)]
    rows = []
    for r in t.to_dict("records"):
        row = [r["trigger"], r["scatter"], r["min_count"], r["hits"], r["probability"], r["one_in"]]
        if line:
            row += [r["line_probability"], r["line_one_in"], r["bonuses_per_spin"]]
        rows.append(row)
    _table(book, "Triggers", columns, rows)


def _bonus_awards(book, sheet) -> None:
    import pandas as pd

    frames = [part.table for part in sheet.parts.values() if part.kind == "bonus"]
    if not frames:
        return
    t = pd.concat(frames)
    columns = [("Trigger", None), ("Award", AMOUNT), ("Award unit", None), ("Weight", COUNT), ("Probability", PERCENT),
               ("Segment", None), ("Landings per award", AMOUNT), ("Share of the bonus RTP", PERCENT)]
    rows = [[r["trigger"], r["award"], _unit(r["unit"]), r["weight"], r["probability"], r["segment"], r["per_award"],
             r["bonus_rtp_share"]] for r in t.to_dict("records")]
    _table(book, "Bonus awards", columns, rows)


_BASIS = {"spin": "win per spin (full cycle)", "award": "single award (each win on its own)"}


def _prize_structure(book, sheet) -> None:
    t = sheet.prize_structure
    if not len(t):
        return
    columns = [("Level (x total bet)", None), ("From (x total bet)", AMOUNT), ("To (x total bet)", AMOUNT),
               ("Probability (per spin)", PERCENT), ("1 in N", AMOUNT), ("% of hits", PERCENT), ("% of pays", PERCENT),
               ("Basis", None)]
    rows = [[r["level"], float(r["from"]), float(r["to"]) if math.isfinite(r["to"]) else "and above", r["probability"],
             r["one_in"], r["hits_pct"] / 100, r["pays_pct"] / 100, _BASIS.get(r["basis"], r["basis"])]
            for r in t.to_dict("records")]
    _table(book, "Prize structure", columns, rows)


def _awards(book, sheet) -> None:
    t = sheet.awards
    if not len(t):
        return
    columns = [("Award (x total bet)", DECIMAL), ("Hits (over the cycle)", COUNT), ("Probability (per spin)", PERCENT),
               ("1 in N", AMOUNT), ("% of hits", PERCENT), ("% of RTP", PERCENT), ("Basis", None)]
    rows = [[r["award"], r["hits"], r["probability"], r["one_in"], r["hits_pct"] / 100, r["rtp_pct"] / 100,
             _BASIS.get(r["basis"], r["basis"])] for r in t.to_dict("records")]
    _table(book, "Awards", columns, rows)


def _strips(book, game) -> None:
    columns = [("Strip set", None), ("Mode", None), ("Set weight", COUNT), ("Reel", COUNT), ("Stop", COUNT),
               ("Symbol", None), ("Stop weight", COUNT)]
    rows = []
    for s in game.strip_sets.values():
        for reel, strip in enumerate(s.reels, start=1):
            weights = strip.stop_weights.tolist()
            for stop, (symbol, weight) in enumerate(zip(strip.symbols, weights), start=1):
                rows.append([s.name, s.mode, int(s.weight), reel, stop, symbol, int(weight)])
    _table(book, "Strips", columns, rows)


_TITLE_FORBIDDEN = re.compile(r"[\\/*?:\[\]]")


def _sheet_title(title: str, used: set) -> str:
    """``title`` as a worksheet may be named (no \\ / * ? : [ ], at most 31 characters), unique in ``used``."""
    base = _TITLE_FORBIDDEN.sub(" ", title)[:31]
    name, k = base, 2
    while name.lower() in {u.lower() for u in used}:
        suffix = f" {k}"
        name, k = base[:31 - len(suffix)] + suffix, k + 1
    used.add(name)
    return name


def _mode_pars(book, modes) -> None:
    """One "PAR <mode>" sheet per mode of the game (:func:`workbench.report.modes.mode_sheets`): what it covers, then
    every figure of :func:`~workbench.report.modes.mode_figures` with its value, unit and method."""
    from .modes import mode_figures

    used = set(book.sheetnames)
    for m in modes:
        s = _Sheet(book, _sheet_title(f"PAR {m.name}", used), ["Figure", "Value", "Unit", "Method"])
        s.add([m.label, "", m.covers, ""], bold=True)
        for f in mode_figures(m):
            value, number_format, unit = _cell(f)
            if f.kind == "one_in":
                unit = f"1 in N, {unit}"
            if f.detail:  # a cycle's factors: each reel's total stop weight
                unit = f"{unit}: {f.detail}"
            s.add([f.label, value, unit, f.method or ""], [None, number_format, None, None])
        s.finish()


def _reel_strips(book, game) -> None:
    """Every strip set stop by stop, reels as columns (stops numbered from 1), a weight column beside every reel
    weighted in some set."""
    weighted = sorted({r for s in game.strip_sets.values() for r, strip in enumerate(s.reels)
                       if strip.weights is not None and any(w != 1 for w in strip.weights)})
    reels = max(len(s.reels) for s in game.strip_sets.values())
    columns = [("Strip set", None), ("Mode", None), ("Stop", COUNT)]
    for r in range(reels):
        columns.append((f"Reel {r + 1}", None))
        if r in weighted:
            columns.append((f"Reel {r + 1} weight", COUNT))
    rows = []
    for s in game.strip_sets.values():
        for stop in range(max(len(strip) for strip in s.reels)):
            row = [s.name, s.mode, stop + 1]
            for r in range(reels):
                strip = s.reels[r] if r < len(s.reels) else None
                inside = strip is not None and stop < len(strip)
                row.append(strip.symbols[stop] if inside else "")
                if r in weighted:
                    row.append(int(strip.stop_weights[stop]) if inside else "")
            rows.append(row)
    _table(book, "Reel strips", columns, rows)


def _paytable(book, game) -> None:
    rule = game.pays.rule
    kind = {"ways": "ways pay (per way)", "scatter_pays": "pay anywhere", "cluster": "cluster pay (per cluster)"}.get(rule, "line pay")
    columns = [("Symbol or scatter group", None), ("Pays as", None), ("Count", COUNT), ("Pay", AMOUNT), ("Pay unit", None)]
    rows = []
    for name, pays in game.paytable.items():
        for count, pay in sorted(pays.items()):
            rows.append([name, kind, int(count), float(pay), _unit(game.bet.line_pay_unit)])
    for name, g in game.scatters.items():
        for count, pay in sorted(g.pays.items()):
            rows.append([name, "scatter (" + ", ".join(g.symbols) + ")", int(count), float(pay), _unit(g.unit)])
    _table(book, "Paytable", columns, rows)


def _compliance(book, compliance: dict) -> None:
    """The checks (check, applies to, result, evidence) under the profile's name, then every award's odds."""
    s = _Sheet(book, "Compliance", ["Check", "Applies to", "Result", "Evidence"])
    s.add([f"Profile: {compliance['profile']}", "", "passed" if compliance["passed"] else "failed", ""], bold=True)
    for c in compliance["checks"]:
        s.add([c["check"], c["applies_to"], c["result"], c["evidence"]])
    s.add(["", "", "", ""])
    s.add(["Award", "Odds per game", "Result", "Where"], bold=True)
    for a in compliance["awards"]:
        s.add([a["award"], a["odds per game"], a["result"], a["where"]])
    s.finish()


def _features(book, features: dict) -> None:
    """Every sampled feature's statistics (the report JSON's ``feature_statistics``): one row per figure with its
    95 % half-width and unit, then each feature's distribution of spins."""
    s = _Sheet(book, "Features", ["Feature", "Figure", "Value", "± (95 %)", "Unit"])
    for name, f in features["features"].items():
        s.add([name, "starts per round" + (" (exact)" if f["exact_trigger"] else ""), f["starts_per_round"],
               f["starts_per_round_ci95"], "per round"], [None, None, FINE, FINE, None])
        s.add([name, "features sampled", f["samples"], None, f"from {f['rounds']:,} rounds"], [None, None, COUNT, None, None])
        if "win_mean" in f:
            s.add([name, "win per feature: mean", f["win_mean"], f["win_mean_ci95"], "x total bet"],
                  [None, None, AMOUNT, AMOUNT, None])
            s.add([name, "win per feature: std", f["win_std"], None, "x total bet"], [None, None, AMOUNT, None, None])
            for q, v in f["win_percentiles"].items():
                s.add([name, f"win per feature: {q}th percentile", v, None, "x total bet"], [None, None, AMOUNT, None, None])
        if "spins_mean" in f:
            s.add([name, "spins per feature: mean", f["spins_mean"], f["spins_mean_ci95"], "spins"],
                  [None, None, DECIMAL, DECIMAL, None])
        if "retrigger_rate" in f:
            s.add([name, "retriggered at least once", f["retrigger_rate"], f["retrigger_rate_ci95"], "per feature"],
                  [None, None, PERCENT, PERCENT, None])
    for name, f in features["features"].items():
        if f.get("spins_distribution"):
            s.add(["", "", "", "", ""])
            s.add([name, "spins per feature", "probability", "", ""], bold=True)
            for row in f["spins_distribution"]:
                s.add([name, row["spins"], row["probability"], None, "per feature"], [None, COUNT, FINE, None, None])
    s.add(["", "", "", "", ""])
    s.add([f"Sampled where each feature starts (seed {features['seed']}); wins before any max-win cap", "", "", "", ""])
    s.finish()


def _expectations(book, expectations: dict) -> None:
    """The declared expectations ([expectations]): one row per figure, its verdict and evidence."""
    s = _Sheet(book, "Expectations", ["Mode", "Figure", "Declared", "Measured", "95 % interval", "Method", "Verdict",
                                      "Evidence"])
    s.add(["Declared in [expectations]", "", "", "", "", "", "all met" if expectations["passed"] else "not all met", ""],
          bold=True)
    for e in expectations["expectations"]:
        s.add([e["mode"], e["figure"], e["declared"], e["measured"], e["interval"], e["method"], e["verdict"],
               e["evidence"]])
    s.finish()


def _provenance(book, game, est, provenance: dict | None) -> None:
    from .. import __version__
    from ..io import render_text
    from .provenance import sha256_file

    s = _Sheet(book, "Provenance", ["Item", "Value"])
    path = Path(game.path).resolve() if game.path else None
    s.add(["Reelset file", str(path) if path else "(in memory)"])
    if path is not None and path.is_file():
        s.add(["Reelset file SHA-256", sha256_file(path)])
    else:
        s.add(["SHA-256 of the game as TOML text", hashlib.sha256(render_text(game).encode()).hexdigest()])
    s.add(["Workbench version", __version__])
    s.add(["Git commit", git_commit() or "not in a git checkout"])
    prov = provenance or {}
    if est is not None:
        s.add(["RTP estimate", "exact + conditional simulation"])
        s.add(["Estimate seed", est.seed], [None, COUNT])
        s.add(["Estimate precision (95 % half-width target)", est.precision], [None, PERCENT])
        if est.samples is not None:
            s.add(["Estimate samples (feature rounds)", est.samples], [None, COUNT])
        if est.stake is not None:
            s.add(["Estimate stake", est.stake], [None, AMOUNT])
    else:
        s.add(["RTP estimate", "none (exact figures only)"])
    for key, label in (("seed", "Report seed"), ("spins", "Report simulated rounds"), ("precision", "Report RTP precision")):
        if prov.get(key) is not None:
            s.add([label, prov[key]], [None, PERCENT if key == "precision" else COUNT])
    when = prov.get("date") or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    s.add(["Written (UTC)", str(when)])
    s.finish()


def write_par_workbook(path, game, sheet=None, *, estimate=None, provenance: dict | None = None, bet_modes=(),
                       compliance: dict | None = None, modes=None, features: dict | None = None,
                       expectations: dict | None = None) -> Path:
    """Write the PAR workbook of ``game`` to ``path`` (.xlsx) and return the path.

    ``sheet``: the game's :class:`~workbench.exact.par.ParSheet` (default: the
    base game's, computed here); its tables get one sheet each and the Summary
    has a block for every mode.  ``estimate``: an
    :class:`~workbench.simulate.RtpEstimate` (or its ``to_dict()``) for the
    whole-game RTP of a game with features; without one such a game's Summary
    says the whole-game RTP needs ``workbench rtp``.  ``provenance``: a report's
    provenance (``seed``, ``spins``, ``precision``, ``date``) to record.
    ``bet_modes``: every bet mode's :class:`~workbench.simulate.BetModeEstimate` (or its ``to_dict()``), listed
    in the Summary x each mode's own cost.  ``compliance``: a report's compliance checks
    (:meth:`~workbench.report.compliance.ComplianceResult.to_dict`), written as a Compliance sheet.  ``modes``: the
    report's :func:`~workbench.report.modes.mode_sheets`, one "PAR <mode>" sheet each (default: made here from
    ``sheet``, ``bet_modes`` and ``estimate``).  "Reel strips" lists every strip set stop by stop, reels as columns.
    ``features``: the report's feature statistics (``report_data(...)["feature_statistics"]``), a Features sheet;
    ``expectations``: the declared expectations' verdicts (``report_data(...)["expectations"]``), an Expectations sheet.
    """
    from openpyxl import Workbook

    from ..exact import par

    if sheet is None:
        sheet = par(game)
    est = _estimate_view(estimate)
    book = Workbook()
    book.remove(book.active)
    strip_sheets = _mode_sheets(game, sheet)
    _summary(book, game, sheet, strip_sheets, est, [m if isinstance(m, dict) else m.to_dict() for m in bet_modes])
    if modes is None:
        from .modes import mode_sheets

        modes = mode_sheets(game, bet_modes, sheet=sheet, estimate=estimate, sheets=strip_sheets)
    _mode_pars(book, modes)
    for part in (_combinations, _symbol_counts, _per_line, _scatter_pays, _triggers, _bonus_awards, _prize_structure,
                 _awards):
        part(book, sheet)
    _strips(book, game)
    _reel_strips(book, game)
    _paytable(book, game)
    if features is not None and features.get("features"):
        _features(book, features)
    if compliance is not None:
        _compliance(book, compliance)
    if expectations:
        _expectations(book, expectations)
    _provenance(book, game, est, provenance)
    out = Path(path)
    # made in memory, then written atomically: a full disk leaves the previous workbook, not a broken zip
    write_output(out, book.save)
    return out
