"""Headline numbers of an exact PAR sheet, timed, formatted and compared.

A :class:`Metric` is one number of the summary the editors show: the figures of the catalogue
(:mod:`workbench.figures`) marked for the editors (RTP by component, hit frequency, volatility index, std, max
win, trigger rates).  RTPs and hit frequencies are fractions shown as percentages; volatility index, standard
deviation and max win are x total bet; trigger rates are probabilities shown as "1 in N" spins.
"""

from __future__ import annotations

import html
import math
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..exact import ParSheet
from ..figures import AMOUNT, NUMBER, ONE_IN, PERCENT, shown
from ..model import Game, StripSet
from ..simulate import complete_par

# rounds for a figure the exact engine leaves out (simulate.screens), per edit: a quick, labelled estimate
EDITOR_SCREEN_ROUNDS = 1 << 18


def header_row(*names: str) -> str:
    """An HTML table header row."""
    return "<tr>" + "".join(f"<th style='padding:1px 10px'>{html.escape(n)}</th>" for n in names) + "</tr>"


@dataclass(frozen=True)
class Metric:
    """One summary number: ``key`` (stable id), ``label``, ``value`` and how to show it (``kind``)."""

    key: str
    label: str
    value: float
    kind: str


@dataclass(frozen=True)
class ParResult:
    """A PAR sheet of one mode, its summary metrics and the seconds it took to compute."""

    sheet: ParSheet
    metrics: tuple
    seconds: float

    def value(self, key: str) -> float:
        """Value of metric ``key`` (KeyError if absent)."""
        for metric in self.metrics:
            if metric.key == key:
                return metric.value
        raise KeyError(key)


def par_metrics(sheet: ParSheet) -> tuple:
    """The summary metrics of ``sheet``: the catalogue's figures the editors show (:mod:`workbench.figures`), each
    labelled with its unit where it is an amount (x total bet)."""
    out = []
    for v in sheet.figures(editor=True):
        money = v.kind in (NUMBER, AMOUNT) and "x total bet" in v.unit
        label = f"{v.label} (x total bet)" if money else v.label
        if v.source != "exact":  # over the exact engine's budgets: simulated, with its interval
            label += f", {v.source}" + (f", +- {shown(v.ci95, v.kind)} (95 %)" if v.ci95 is not None else "")
        out.append(Metric(v.key, label, v.value, v.kind))
    return tuple(out)


def timed_par(game: Game, mode: str = "base") -> ParResult:
    """Exact PAR of ``mode`` (no full-cycle distribution, the quick figures: what the exact engine would take long
    for is simulated, and labelled so) with its metrics and wall time in seconds."""
    start = time.perf_counter()
    sheet = complete_par(game, mode, rounds=EDITOR_SCREEN_ROUNDS, full_cycle=False, quick=True)
    metrics = par_metrics(sheet)
    return ParResult(sheet, metrics, time.perf_counter() - start)


def exactness(game: Game) -> tuple[bool, str]:
    """Whether the game's total RTP is the exact base-game PAR RTP, and why (see :func:`workbench.simulate.exactness`)."""
    from ..simulate import exactness as simulate_exactness

    return simulate_exactness(game)


def format_value(value: float, kind: str) -> str:
    """``value`` as shown in the panels (percent with 4 decimals, numbers, "1 in N"; :func:`workbench.figures.shown`,
    amounts with 4 decimals as the editors compare them)."""
    return shown(value, NUMBER if kind == AMOUNT else kind)


def format_delta(current: float, saved: float, kind: str) -> str:
    """Change from ``saved`` to ``current``: percentage points for percentages, plain difference otherwise."""
    if current is None or saved is None:
        return ""
    if math.isinf(current) or math.isinf(saved):
        return "" if current == saved else "changed"
    diff = current - saved
    if abs(diff) < 1e-15:
        return "0"
    if kind == PERCENT:
        return f"{100 * diff:+.4f} pp"
    if kind == ONE_IN:  # probabilities: the change of "1 in N"
        if not current or not saved:
            return "changed"
        return f"{1 / current - 1 / saved:+,.1f}"
    return f"{diff:+,.4f}"


def metrics_table_html(current: ParResult | None, saved: ParResult | None, title: str = "") -> str:
    """HTML table metric | saved file | current | delta (rows of both results, current order first)."""
    rows = []
    cur = {m.key: m for m in current.metrics} if current else {}
    old = {m.key: m for m in saved.metrics} if saved else {}
    keys = list(cur) + [k for k in old if k not in cur]
    for key in keys:
        metric = cur.get(key) or old[key]
        now = cur[key].value if key in cur else None
        before = old[key].value if key in old else None
        delta = format_delta(now, before, metric.kind)
        changed = delta not in ("", "0")
        style = ";font-weight:bold;color:#0b57d0" if changed else ""
        rows.append(
            f'<tr class="wb-metric" data-key="{html.escape(key)}"><td>{html.escape(metric.label)}</td>'
            f'<td style="text-align:right;padding:1px 10px">{format_value(before, metric.kind)}</td>'
            f'<td style="text-align:right;padding:1px 10px" class="wb-current">{format_value(now, metric.kind)}</td>'
            f'<td class="wb-delta" style="text-align:right;padding:1px 10px{style}">{delta}</td></tr>'
        )
    caption = f"<caption style='text-align:left;font-weight:bold'>{html.escape(title)}</caption>" if title else ""
    head = header_row("metric", "saved file", "current", "delta")
    return f"<table class='wb-summary' style='border-collapse:collapse'>{caption}{head}{''.join(rows)}</table>"


@lru_cache(maxsize=8)
def _source(path: str, text: str):
    """The lines of a file text's keys (parsed once per text: an edit changes strip values, not where keys are)."""
    from ..io import parse_text

    return parse_text(text, path)[1]


def design_warnings(game: Game, sheet: ParSheet | None = None) -> list:
    """The design warnings (:mod:`workbench.lints`) of ``game``: the file's, and with ``sheet`` (its base mode's exact
    PAR, which the editors have computed already) the exact engine's.  Lines are those of the file as loaded."""
    from ..lints import lint

    try:
        source = _source(str(game.path or game.name), game.text) if game.text else None
        return lint(game, source, exact=sheet is not None, sheet=sheet)
    except Exception:  # noqa: BLE001 - a warning list must never break an editor
        return []


def lints_html(warnings: list) -> str:
    """A small list of design warnings (key and message) for under the PAR summary."""
    if not warnings:
        return "<div class='wb-lints' style='color:#555;font-size:90%;margin-top:4px'>No design warnings.</div>"
    items = "".join(f"<li class='wb-lint'><code>{html.escape(w.key or '-')}</code> {html.escape(w.message)}</li>"
                    for w in warnings)
    return (f"<div class='wb-lints' style='font-size:90%;margin-top:4px;border-left:4px solid #b06000;padding:2px 8px'>"
            f"<b style='color:#b06000'>Design warnings ({len(warnings)})</b> — valid, but probably not meant"
            f"<ul style='margin:2px 0 2px 16px;padding:0'>{items}</ul></div>")


def symbol_counts(strip_set: StripSet, symbols) -> list[Counter]:
    """Per reel: symbol -> number of stops (sum of stop weights on a weighted strip)."""
    out = []
    for strip in strip_set.reels:
        counts: Counter = Counter()
        for sym, weight in zip(strip.symbols, strip.stop_weights.tolist()):
            counts[sym] += weight
        out.append(counts)
    return out


def symbol_counts_html(current: StripSet, saved: StripSet | None, symbols) -> str:
    """HTML table symbol x reel of stop counts (weights on weighted strips); changes vs ``saved`` in brackets."""
    now = symbol_counts(current, symbols)
    before = symbol_counts(saved, symbols) if saved is not None else None
    head = "".join(f"<th style='padding:1px 10px'>reel {i + 1}</th>" for i in range(len(now)))
    rows = []
    for sym in list(symbols) + ["total"]:
        cells = []
        for i, counts in enumerate(now):
            value = sum(counts.values()) if sym == "total" else counts.get(sym, 0)
            text = str(value)
            if before is not None and i < len(before):
                old = sum(before[i].values()) if sym == "total" else before[i].get(sym, 0)
                if old != value:
                    text = f"<b style='color:#0b57d0'>{value} ({value - old:+d})</b>"
            cells.append(f"<td style='text-align:right;padding:1px 10px'>{text}</td>")
        label = f"<b>{sym}</b>" if sym == "total" else html.escape(sym)
        rows.append(f"<tr><td>{label}</td>{''.join(cells)}</tr>")
    return (f"<table class='wb-counts' style='border-collapse:collapse'><tr><th style='text-align:left'>symbol</th>{head}</tr>"
            f"{''.join(rows)}</table>")


def diff_html(diff: str) -> str:
    """A unified diff as coloured, escaped HTML."""
    if not diff:
        return "<i>no changes</i>"
    lines = []
    for line in diff.splitlines():
        esc = html.escape(line)
        if line.startswith("+") and not line.startswith("+++"):
            lines.append(f"<span style='color:#137333;background:#e6f4ea'>{esc}</span>")
        elif line.startswith("-") and not line.startswith("---"):
            lines.append(f"<span style='color:#a50e0e;background:#fce8e6'>{esc}</span>")
        else:
            lines.append(esc)
    body = "\n".join(lines)
    return f"<pre class='wb-diff-text' style='white-space:pre-wrap;word-break:break-all;font-size:85%'>{body}</pre>"
