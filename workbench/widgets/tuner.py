"""RTP tuner panel: run :func:`workbench.tuning.tune` from a notebook and save the tuned file.

The panel asks for a target RTP (in %), its tolerance, figures to keep in
bands (one ``NAME=VALUE±TOL`` per line, as ``workbench tune --keep``), the
symbols whose counts may change, the weights that may change (tables whose
entry weights may move, their total kept; the choice weights of the mode's
strip sets; the stop weights of the strip set's weighted reels) and a cap on
the stops and weights changed.  **Run** tunes (a progress bar counts the exact
evaluations), then shows the figures before and after, the stops and weights
changed, the tuner's notes and the file diff.  Nothing is written until
**Save**, which writes the tuned game to the path in the *save as* box
(default ``<original stem>_rtp<basis points>.toml`` beside the original;
validated and atomic, see :func:`workbench.io.save_game`).

RTP is the whole game, or with **bet mode** one ``[bet_modes.*]`` x its own
cost (an ante's own strips, a bought feature's strips or a table drawn in
it): exact when the game pays only what the exact PAR covers, else the exact
base game plus the feature terms held from one exact + conditional estimate.
The tuned file's RTP is then checked on its own (exactly, or by an
independent estimate within ``max_seconds``): the panel says **confirmed**
only when that check is within the tolerance with a half-width at most the
tolerance, else **not confirmed**, with how close it is and the command that
confirms it (docs/tuning.md).  Hit frequency, standard deviation and
volatility index are of the tuned strips' first screen, exact.  A table whose
weights only feed a simulated feature mean (which the tuner holds from the
estimate) is refused with a message.

Usage in a notebook::

    from workbench.widgets import TunerPanel
    TunerPanel("classic_tens", 0.94, keep=("hit_frequency",))
    TunerPanel("examples/line_bonus_pick", 0.96, tables=("pick_awards",))  # weights only
    TunerPanel("examples/ways_free_spins", 0.95, bet_mode="bonus_buy")  # a bought feature's strips
"""

from __future__ import annotations

import html
import math
import os
import re
import time
from pathlib import Path

import ipywidgets as W

from ..errors import TargetUnreachableError, TuningError, WorkbenchError
from ..io import load_game
from ..model import Game
from ..tuning import (DEFAULT_CONFIRM_SECONDS, FeatureTerms, TuneResult, _default_strip_set, _fmt, _resolve_vary,
                      default_tolerance, has_simulated_terms, measure, plan_mode, shared_terms, tune, version_path)
from .panel import button, css_class
from .summary import diff_html, exactness

ERROR_STYLE = "color:#a50e0e;border-left:4px solid #a50e0e;padding:2px 8px"
INFO_STYLE = "color:#137333;padding:2px 8px"

_TEXT_BLOCKS = ", ".join(f".wb-tune-panel .{name} .widget-html-content" for name in (
    "wb-tune-header", "wb-status", "wb-tune-figures", "wb-tune-changes-box", "wb-diff", "wb-tune-save-status",
    "wb-tune-weights-note", "wb-tune-legend"))
#: The panel's stylesheet (in its header).  ipywidgets gives HTML widgets the line height of one input row (28 px),
#: which spaces every wrapped line, table row and diff line of a text block a row apart; the shared diff wraps
#: inside symbol names (``GR|APES``).  Scoped to the panel: other widgets keep their look.
PANEL_CSS = f"""<style>
{_TEXT_BLOCKS} {{ line-height: 1.45; }}
.wb-tune-panel table.wb-tune-table {{ border-collapse: collapse; margin: 4px 0 8px; }}
.wb-tune-panel table.wb-tune-table th, .wb-tune-panel table.wb-tune-table td {{
  padding: 2px 14px 2px 4px; line-height: 1.4; border-bottom: 1px solid #e0e0e0; white-space: nowrap; }}
.wb-tune-panel table.wb-tune-table th {{ border-bottom: 2px solid #bdbdbd; }}
.wb-tune-panel table.wb-tune-table td + td, .wb-tune-panel table.wb-tune-table th + th {{
  text-align: right; font-variant-numeric: tabular-nums; }}
.wb-tune-panel pre.wb-diff-text {{ font-family: var(--jp-code-font-family, monospace) !important;
  line-height: 1.35 !important; word-break: normal !important; overflow-wrap: anywhere !important; }}
.wb-tune-panel .wb-error pre {{ font-family: inherit; line-height: 1.4; word-break: normal; overflow-wrap: anywhere; }}
.wb-tune-panel ol, .wb-tune-panel ul {{ margin: 2px 0 6px; }}
</style>"""


def default_mode(game: Game) -> str:
    """The mode the panel tunes: ``base`` if the game has it, else its first mode."""
    return "base" if "base" in game.modes else game.modes[0]


def default_vary(game: Game, strip_set: str | None = None, mode: str | None = None) -> list[str]:
    """The symbols :func:`~workbench.tuning.tune` varies when ``vary`` is not given, in the game's order.

    Every one-stop symbol that is not a wild, scatter or bonus symbol and that
    some reel of ``strip_set`` (default: the tuner's default strip set of
    ``mode``) holds together with another such symbol; [] when there is none.
    """
    mode = mode or default_mode(game)
    try:
        set_name = strip_set or _default_strip_set(game, mode)
        chosen = {s for symbols in _resolve_vary(game, set_name, None).values() for s in symbols}
    except (TuningError, KeyError):
        return []
    return [name for name in game.symbols if name in chosen]


def keep_lines(text: str) -> list[str]:
    """The keep constraints of the text box: one per non-empty line (``#`` starts a comment)."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def _count(n: int, noun: str) -> str:
    """``1 stop``, ``2 stops``, ``1,024 exact evaluations``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _evaluations_text(n: int) -> str:
    return _count(n, "exact evaluation")


def panel_words(message: str) -> str:
    """A tuner message in the panel's words: its fields are *keep*, *vary* and *max-changes*, not CLI options."""
    return re.sub(r"--(keep|vary|max-changes)\b", r"\1", message)


def _save_error(path: Path, exc: Exception) -> str:
    """``Not saved: PATH`` and the reason (the reason of a refused save alone, without the path said twice)."""
    problems = getattr(exc, "problems", None)
    if problems and len(problems) == 1 and problems[0].message.startswith("not saved: "):
        return f"Not saved: {path}\n{problems[0].message[len('not saved: '):]}"
    return f"Not saved:\n{exc}"


def _error_html(message: str, kind: str = "") -> str:
    return (f"<div class='wb-error{' ' + kind if kind else ''}' style='{ERROR_STYLE}'>"
            f"<pre style='white-space:pre-wrap;margin:0'>{html.escape(message)}</pre></div>")


def _table_html(result: TuneResult, caption: str) -> str:
    table = result.table().to_html(index=False, border=0, classes="wb-tune-table", justify="left", escape=True)
    return f"<div><b>{html.escape(caption)}</b>{table}</div>"


def _changes_html(result: TuneResult) -> str:
    """The stops changed, then the weights changed (if any), then the tuner's notes (if any)."""
    if not result.changes:
        out = "<i>no stop changed</i>"
    else:
        items = "".join(f"<li class='wb-tune-change'>{html.escape(str(c))}</li>" for c in result.changes)
        out = f"<b>{_count(len(result.changes), 'stop')} changed</b> (stops numbered from 1)<ol class='wb-tune-changes'>{items}</ol>"
    if result.weight_changes:
        items = "".join(f"<li class='wb-tune-weight-change'>{html.escape(str(c))}</li>" for c in result.weight_changes)
        out += (f"<div class='wb-tune-weights-changed'><b>Weights changed</b> ({len(result.weight_changes)}; stops and "
                f"entries numbered from 1)<ol class='wb-tune-weight-changes'>{items}</ol></div>")
    elif result.varied_weights:
        out += "<div class='wb-tune-weights-changed'><i>no weight changed</i></div>"
    return out + _notes_html(result)


def _notes_html(result: TuneResult) -> str:
    if not result.notes:
        return ""
    items = "".join(f"<li class='wb-tune-note'>{html.escape(n)}</li>" for n in result.notes)
    return f"<div class='wb-tune-notes'><b>Notes</b><ul>{items}</ul></div>"


def weight_choices(game: Game, strip_set: str | None = None, mode: str | None = None) -> dict:
    """What weights the panel offers for ``strip_set`` of ``mode`` (defaults as the panel's).

    ``{"tables": [names], "strip_set_weights": bool, "stop_weights": bool}``:
    the game's tables; whether the mode has two or more strip sets (so their
    choice weights can move); whether the strip set has a weighted reel.
    """
    mode = mode or default_mode(game)
    if strip_set is None:
        try:
            strip_set = _default_strip_set(game, mode)
        except TuningError:
            strip_set = None
    reels = game.strip_sets[strip_set].reels if strip_set in game.strip_sets else ()
    return {"tables": list(game.tables),
            "strip_set_weights": len(game.strip_sets_for(mode)) >= 2,
            "stop_weights": any(r.weights is not None for r in reels)}


class TunerPanel:
    """Tune a game's strips to a target RTP, see what changed, save the tuned file.

    ``game``: shipped name, path or loaded game; ``target_rtp`` and
    ``tolerance`` fractions of total bet (default target: the game's RTP now);
    ``keep``: constraints as :func:`workbench.tuning.parse_keep` reads them;
    ``vary``: symbols that may change (default: :func:`default_vary`, or
    none when a weight below is preset, as ``workbench tune --vary table=…``);
    ``tables``: tables whose entry weights may change (their total kept);
    ``strip_set_weights``: the choice weights of the mode's strip sets may
    change (modes with two or more strip sets); ``stop_weights``: the stop
    weights of the strip set's weighted reels may change;
    ``max_changes``: cap on the stops and weights changed (None: no cap); ``precision``
    and ``seed``: of the feature-term estimate (games with features only; default precision: the tolerance,
    whose own default is ± 0.05 % with simulated features, else ± 0.01 %); ``bet_mode``: the
    ``[bet_modes.*]`` whose own RTP is tuned (default: the base game); ``max_seconds``: time box of the
    estimates (the confirmation of the tuned file included).
    With ``run`` the tuner runs once at once.  :meth:`run` and :meth:`save`
    do what the Run and Save buttons do; ``result`` then holds the
    :class:`~workbench.tuning.TuneResult` (None after a failed run),
    ``closest`` the closest result of an unreachable target, ``last_error``
    the message shown and ``saved`` the :class:`~workbench.io.Saved` of the
    last save.
    """

    def __init__(self, game: str | os.PathLike | Game, target_rtp: float | None = None, keep: tuple = (),
                 vary: tuple | None = None, max_changes: int | None = None, tolerance: float | None = None,
                 precision: float | None = None, seed: int = 1, run: bool = False, tables: tuple = (),
                 strip_set_weights: bool = False, stop_weights: bool = False, bet_mode: str | None = None,
                 max_seconds: float = DEFAULT_CONFIRM_SECONDS):
        self.game = game if isinstance(game, Game) else load_game(game)
        keep = (keep,) if isinstance(keep, str) else tuple(keep)
        self.precision = precision
        self.seed = seed
        self.max_seconds = max_seconds
        self.result: TuneResult | None = None
        self.closest: TuneResult | None = None
        self.saved = None
        self.last_error = ""
        self.evaluations = 0
        self._terms: dict = {}  # bet mode -> held feature terms (or None: nothing to hold)
        modes = list(self.game.all_bet_modes)
        self.bet_mode = css_class(W.Dropdown(options=modes, value=bet_mode if bet_mode in modes else "base",
                                             description="bet mode", style={"description_width": "initial"}),
                                  "wb-tune-bet-mode")
        if len(modes) < 2:
            self.bet_mode.layout.display = "none"  # the base game is the only way to play
        self._plan_bet_mode()
        if tolerance is None:
            tolerance = self.default_tolerance()
        if target_rtp is None:
            try:
                target_rtp = round(measure(self.played, self.mode, self.terms())["rtp"], 4)
            except WorkbenchError:
                target_rtp = 0.96

        self.header = css_class(W.HTML(PANEL_CSS + self._header_html()), "wb-tune-header")
        self.target = css_class(W.BoundedFloatText(value=round(100 * float(target_rtp), 6), min=0.0, max=1000.0, step=0.01,
                                                   description="target RTP %", style={"description_width": "initial"}),
                                "wb-tune-target")
        self.tolerance = css_class(W.BoundedFloatText(value=round(100 * float(tolerance), 6), min=0.0, max=100.0, step=0.001,
                                                      description="± tolerance %", style={"description_width": "initial"}),
                                   "wb-tune-tolerance")
        self.max_changes = css_class(W.BoundedIntText(value=int(max_changes or 0), min=0, max=10**6,
                                                      description="max changes", style={"description_width": "initial"},
                                                      tooltip="most stops and weights that may change; 0 = no limit"),
                                     "wb-tune-max-changes")
        self.keep = css_class(W.Textarea(value="\n".join(keep), rows=3, description="keep",
                                         placeholder="one per line: NAME, NAME=VALUE or NAME=VALUE±TOL\n"
                                                     "e.g. hit_frequency=0.28±0.01 or trigger:free_spins=1/150±10%",
                                         layout=W.Layout(width="460px")), "wb-tune-keep")
        options = [name for name, sym in self.game.symbols.items() if sym.height == 1]
        tables = (tables,) if isinstance(tables, str) else tuple(tables)
        self._build_weights(tables, strip_set_weights, stop_weights)
        if vary is None:
            # only weights preset (and valid): no symbol count changes, as `workbench tune --vary table=NAME`
            chosen = [] if any(self.weight_options().values()) else default_vary(self.played, self.strip_set, self.mode)
        else:
            chosen = list(vary)
        unknown = [s for s in chosen if s not in options]
        self.vary = css_class(W.SelectMultiple(options=options, value=tuple(s for s in chosen if s in options),
                                               rows=min(max(len(options), 3), 10), description="vary",
                                               layout=W.Layout(width="260px")), "wb-tune-vary")
        self._build_actions()
        legend = css_class(W.HTML("<small>hold Ctrl / ⌘ to pick several symbols; a reel keeps at least one of each "
                                  "it had; none: only the weights below change</small>", layout=W.Layout(width="300px")),
                           "wb-tune-legend")
        self.widget = css_class(W.VBox([
            self.header,
            W.HBox([self.bet_mode, self.target, self.tolerance, self.max_changes], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.keep, W.VBox([self.vary, legend])], layout=W.Layout(flex_flow="row wrap")),
            self.weights_box,
            W.HBox([self.run_button, self.progress, self.evaluations_label], layout=W.Layout(align_items="center")),
            self.status, self.figures, self.changes, self.diff,
            W.HBox([self.save_path, self.save_button],
                   layout=W.Layout(align_items="center", width="100%", max_width="1100px")),
            self.save_status,
        ]), "wb-tune-panel")
        problems = []
        if unknown:
            problems.append(f"vary: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a one-stop symbol of "
                            f"{self.game.name} (symbols: {', '.join(options)}); left out")
        problems += self._preset_problems
        if bet_mode is not None and bet_mode not in modes:
            problems.append(f"bet mode: {self.game.name} has no bet mode {bet_mode!r} (bet modes: {', '.join(modes)}); "
                            "the base game is tuned")
        if problems:
            self._error("\n".join(problems))
        self.bet_mode.observe(lambda change: self._on_bet_mode(), names="value")
        if run:
            self.run()

    def _build_actions(self) -> None:
        """The run button, its progress and status, the figures, changes and diff it shows, and the save row."""
        self.run_button = button("Run", "tune-run", "play", "Tune the strips to the target (writes nothing)", "primary")
        self.run_button.on_click(lambda _: self.run())
        self.progress = css_class(W.IntProgress(value=0, min=0, max=1, description="evaluations",
                                                layout=W.Layout(width="420px")), "wb-progress")
        self.evaluations_label = css_class(W.HTML("0 exact evaluations"), "wb-tune-evaluations")
        self.status = css_class(W.HTML(), "wb-status")
        self.figures = css_class(W.HTML(), "wb-tune-figures")
        self.changes = css_class(W.HTML(), "wb-tune-changes-box")
        self.diff = css_class(W.HTML(), "wb-diff")
        # as wide as the panel allows: a designer must see the file name at the end of a long path
        self.save_path = css_class(W.Text(value="", description="save as", placeholder="path of the tuned reelset file",
                                          layout=W.Layout(width="auto", min_width="520px", flex="1 1 auto")),
                                   "wb-tune-save-path")
        self.save_button = button("Save", "tune-save", "save", "Validate and write the tuned reelset to this path")
        self.save_button.disabled = True
        self.save_button.on_click(lambda _: self.save())
        self.save_status = css_class(W.HTML(), "wb-tune-save-status")

    # -- the bet mode ------------------------------------------------------------
    def _plan_bet_mode(self) -> None:
        """What the chosen bet mode plays: ``played`` (the game in that mode), the strip-set mode and strip set
        the tuner varies by default, whether its RTP is exact."""
        name = self.bet_mode.value
        try:
            plan = plan_mode(self.game, name)
            self.played, self.mode = plan.played, plan.mode
        except TuningError:
            plan = plan_mode(self.game, name, vary=())  # a buy with no strips of its own: a table, then
            self.played, self.mode = plan.played, plan.mode
        try:
            self.strip_set = _default_strip_set(self.played, self.mode)
        except TuningError:
            self.strip_set = None
        self.exact, self.exact_why = exactness(self.played)

    def default_tolerance(self) -> float:
        """The tuner's default tolerance for the chosen bet mode (x its cost)."""
        try:
            return default_tolerance(has_simulated_terms(self.played))
        except WorkbenchError:
            return default_tolerance(not self.exact)

    def _on_bet_mode(self) -> None:
        """Another bet mode: its strips, default symbols, weights and tolerance; results of the last one cleared."""
        self._plan_bet_mode()
        self._clear()
        self.header.value = PANEL_CSS + self._header_html()
        self.tolerance.value = round(100 * self.default_tolerance(), 6)
        self.vary.value = tuple(default_vary(self.played, self.strip_set, self.mode))
        old = self.weights_box
        self._build_weights((), False, False)
        self.widget.children = tuple(self.weights_box if child is old else child for child in self.widget.children)

    def _build_weights(self, tables: tuple, strip_set_weights: bool, stop_weights: bool) -> None:
        """The "Weights that may change" section; presets the game cannot take are left out (with a message)."""
        choices = weight_choices(self.played, self.strip_set, self.mode)
        names = choices["tables"]
        self._preset_problems = []
        unknown = [t for t in tables if t not in names]
        if unknown:
            self._preset_problems.append(
                f"tables: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a table of {self.game.name} "
                f"(tables: {', '.join(names) or 'none'}); left out")
        self.tables = css_class(W.SelectMultiple(options=names, value=tuple(dict.fromkeys(t for t in tables if t in names)),
                                                 rows=min(max(len(names), 3), 8), description="tables",
                                                 disabled=not names, layout=W.Layout(width="260px")), "wb-tune-tables")
        notes = []
        if names:
            notes.append("tables: their entry weights may move, each table's total kept; a table whose weights only "
                         "feed a simulated feature mean is refused")
        else:
            self.tables.layout.display = "none"
            notes.append(f"{html.escape(self.game.name)} has no tables")
        sets = self.played.strip_sets_for(self.mode)
        self.strip_set_weights = css_class(W.Checkbox(value=False, description="strip-set weights of the mode", indent=False,
                                                      disabled=not choices["strip_set_weights"]),
                                           "wb-tune-strip-set-weights")
        if choices["strip_set_weights"]:
            self.strip_set_weights.value = bool(strip_set_weights)
        else:
            notes.append(f"mode {html.escape(self.mode)} has {'one strip set' if sets else 'no strip set'}: no strip-set weight to move")
            if strip_set_weights:
                self._preset_problems.append(f"strip-set weights: mode {self.mode!r} has fewer than two strip sets; left out")
        self.stop_weights = css_class(W.Checkbox(value=False, description="stop weights", indent=False,
                                                 disabled=not choices["stop_weights"]), "wb-tune-stop-weights")
        where = f"strip set {self.strip_set}" if self.strip_set else "the strip set"
        if choices["stop_weights"]:
            self.stop_weights.value = bool(stop_weights)
        else:
            notes.append(f"{html.escape(where)} has no weighted reel: no stop weight to move")
            if stop_weights:
                self._preset_problems.append(f"stop weights: {where} has no weighted reel; left out")
        self.weights_note = css_class(W.HTML("<small>" + "<br>".join(notes) + "</small>"), "wb-tune-weights-note")
        self.weights_box = css_class(W.VBox([
            W.HTML("<b>Weights that may change</b>"),
            W.HBox([self.tables, W.VBox([self.strip_set_weights, self.stop_weights])],
                   layout=W.Layout(flex_flow="row wrap", align_items="flex-start")),
            self.weights_note,
        ]), "wb-tune-weights")

    def weight_options(self) -> dict:
        """The weight variables chosen now, as :func:`~workbench.tuning.tune` takes them."""
        return {"tables": tuple(self.tables.value),
                "strip_set_weights": bool(self.strip_set_weights.value),
                "stop_weights": bool(self.stop_weights.value)}

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    # -- display ---------------------------------------------------------------
    def _header_html(self) -> str:
        game = self.game
        where = html.escape(str(game.path)) if game.path else "not loaded from a file"
        mode = self.bet_mode.value
        what = "the <b>whole game" if mode == "base" else f"bet mode <b>{html.escape(mode)}</b>, x its own cost<b>"
        if self.exact:
            rtp = f"RTP is {what}, exact</b> (" + html.escape(self.exact_why) + "): confirmed exactly"
        else:
            held = f"± {100 * self.precision:.3f} %" if self.precision else "the tolerance"
            rtp = (f"RTP is {what}</b>: the exact base game plus the feature terms held from one exact + conditional "
                   f"estimate (precision {held}, seed {self.seed}; {html.escape(self.exact_why)}); the tuned file is then "
                   f"re-estimated on its own (seed {self.seed} + 1, ..., within {self.max_seconds:g} s) and is "
                   "<b>confirmed</b> only when that estimate is within the tolerance with a 95 % half-width at most "
                   "the tolerance")
        strip_set = f"strip set <b>{html.escape(self.strip_set)}</b>" if self.strip_set else "a strip set"
        first = "base game" if self.mode == "base" and mode == "base" else f"tuned strips (mode {html.escape(self.mode)})"
        return (f"<h3 style='margin:4px 0'>Tune RTP — {html.escape(game.name)} <small>{where}</small></h3>"
                f"<div class='wb-tune-about'>Changes as few stops of {strip_set} (mode {html.escape(self.mode)}) as it can "
                f"to reach the target, and the weights you let it change (tables, strip-set weights, stop weights). {rtp}; "
                f"hit frequency, standard deviation and volatility index are of the {first} "
                "(exact, x total bet). Nothing is written until you press Save.</div>")

    def _error(self, message: str, kind: str = "") -> None:
        self.last_error = message
        self.status.value = _error_html(message, kind)

    def _info(self, message_html: str) -> None:
        self.last_error = ""
        self.status.value = f"<div class='wb-info' style='{INFO_STYLE}'>{message_html}</div>"

    def _clear(self) -> None:
        self.result = None
        self.closest = None
        self.saved = None
        self.last_error = ""
        for box in (self.status, self.figures, self.changes, self.diff, self.save_status):
            box.value = ""
        self.save_button.disabled = True

    # -- tuning ----------------------------------------------------------------
    def terms(self) -> FeatureTerms | None:
        """The held feature terms of the chosen bet mode (estimated once per mode at ``precision``, default the
        tolerance, with ``seed``; None: nothing to hold, the RTP is exact)."""
        mode = self.bet_mode.value
        if mode not in self._terms:
            tolerance = float(self.tolerance.value) / 100 if hasattr(self, "tolerance") else self.default_tolerance()
            self._terms[mode] = shared_terms(self.game, bet_mode=mode, tolerance=tolerance or None,
                                             precision=self.precision, seed=self.seed, max_seconds=self.max_seconds)
        return self._terms[mode]

    def _estimate_evaluations(self, vary, tables=(), strip_set_weights=False, stop_weights=False) -> int:
        """About how many exact evaluations one step takes (the bar's first maximum; it grows if passed)."""
        try:
            vary_map = _resolve_vary(self.played, self.strip_set, vary) if self.strip_set else {}
        except TuningError:
            vary_map = {}
        per_step = sum(max(len(symbols) - 1, 1) for symbols in vary_map.values())
        weights = [max(len(self.game.tables[t].weights) - 1, 1) for t in tables if t in self.game.tables]
        if strip_set_weights:
            weights.append(max(len(self.played.strip_sets_for(self.mode)) - 1, 1))
        if stop_weights and self.strip_set in self.played.strip_sets:
            weights += [max(len(r.weights) - 1, 1) for r in self.played.strip_sets[self.strip_set].reels if r.weights is not None]
        # weight groups are probed once before the search, then measured each step
        return max(2 * (per_step + sum(weights)) + sum(weights) + 1, 10)

    def _on_progress(self, evaluations: int) -> None:
        self.evaluations = evaluations
        if evaluations > self.progress.max:
            self.progress.max = math.ceil(evaluations * 1.5)
        self.progress.value = evaluations
        self.evaluations_label.value = _evaluations_text(evaluations)

    def run(self) -> TuneResult | None:
        """Tune with the values of the inputs; show the result (or why not). Returns the result or None."""
        self._clear()
        target = float(self.target.value) / 100
        tolerance = float(self.tolerance.value) / 100
        keep = keep_lines(self.keep.value)
        vary = tuple(self.vary.value)  # () with only weights chosen: no symbol count changes
        weights = self.weight_options()
        max_changes = int(self.max_changes.value) or None
        self.evaluations = 0
        self.progress.value, self.progress.max = 0, self._estimate_evaluations(vary, **weights)
        self.progress.bar_style, self.progress.description = "info", "tuning"
        self.evaluations_label.value = "0 exact evaluations"
        self.status.value = "<i>tuning…</i>"
        self.run_button.disabled = True
        start = time.perf_counter()
        try:
            result = tune(self.game, target, bet_mode=self.bet_mode.value, strip_set=self.strip_set, keep=keep, vary=vary,
                          **weights, max_changes=max_changes, tolerance=tolerance, terms=self.terms(),
                          precision=self.precision, seed=self.seed, max_seconds=self.max_seconds,
                          progress=self._on_progress)
        except TargetUnreachableError as exc:
            self._unreachable(exc)
            return None
        except (WorkbenchError, OSError, ValueError) as exc:
            self.progress.bar_style, self.progress.description = "danger", "failed"
            self._error(f"Not tuned:\n{panel_words(str(exc))}")
            return None
        finally:
            self.run_button.disabled = False
        self._finish_progress("success", "done")
        self.result = result
        self._show(result, time.perf_counter() - start)
        return result

    def _finish_progress(self, style: str, description: str) -> None:
        self.progress.max = max(self.evaluations, 1)
        self.progress.value = self.evaluations
        self.progress.bar_style, self.progress.description = style, description
        self.evaluations_label.value = _evaluations_text(self.evaluations)

    def _rtp_text(self, result: TuneResult) -> str:
        ci = f" ± {100 * result.rtp_ci95:.4f} %" if result.rtp_ci95 else ""
        return f"{100 * result.rtp:.4f} %{ci} ({result.rtp_source})"

    def _show(self, result: TuneResult, seconds: float) -> None:
        kept = "".join(
            f"<br>kept: {html.escape(k.describe())} — now {html.escape(_fmt(k.metric, result.after[k.metric]))}" for k in result.keeps
        )
        band = f"Target {100 * result.target:.4f} % ± {100 * result.tolerance:.4f} %"
        if result.bet_mode != "base":
            band += f" of bet mode {html.escape(result.bet_mode)} ({html.escape(result.unit)})"
        if result.reached:
            head = f"<span class='wb-tune-reached'>{band} reached, confirmed</span>"
        else:
            head = f"<span class='wb-tune-unconfirmed'>{band}: not confirmed</span>"
        path = self.default_save_path(result.target)
        confirmation = html.escape(result.status_line(str(path)))
        terms = "\n".join(result.terms.lines(result.state_probabilities))
        self._info(
            f"{head}: RTP <b class='wb-tune-rtp'>{html.escape(self._rtp_text(result))}</b> with "
            f"{_count(len(result.changes), 'stop')} and {_count(len(result.weight_changes), 'weight')} changed on strip set "
            f"{html.escape(result.strip_set)} (varied: {html.escape(self._varied_text(result))}) · "
            f"{result.evaluations:,} exact evaluations, {seconds:.2f} s in all{kept}"
            f"<div class='wb-tune-confirmation'>{confirmation}</div>"
            + (f"<pre class='wb-tune-terms' style='margin:2px 0'>{html.escape(terms)}</pre>" if terms else "")
        )
        self.figures.value = _table_html(result, "Figures before and after (the search's; x total bet)")
        self.changes.value = _changes_html(result)
        self.diff.value = f"<b>File diff</b> (not written yet){diff_html(result.diff)}"
        self.save_path.value = str(path)
        self.save_button.disabled = False
        self.save_button.button_style = "primary" if result.reached else "warning"

    @staticmethod
    def _varied_text(result: TuneResult) -> str:
        parts = ([f"symbols {', '.join(result.vary)}"] if result.vary else []) + list(result.varied_weights)
        return "; ".join(parts) or "nothing"

    def _unreachable(self, exc: TargetUnreachableError) -> None:
        self._finish_progress("warning", "unreachable")
        self.closest = exc.closest
        self._error(f"Target not reached:\n{panel_words(str(exc))}", "wb-tune-unreachable")
        if exc.closest is not None:
            self.figures.value = _table_html(exc.closest, "Closest reachable result (not saved; x total bet)")
            self.changes.value = _changes_html(exc.closest)

    # -- saving ----------------------------------------------------------------
    def default_save_path(self, target: float) -> Path:
        """``<original stem>_rtp<basis points>.toml`` beside the original file (else in the working folder)."""
        original = self.game.path
        if not original or (original.startswith("<") and original.endswith(">")):
            original = f"{self.game.name or 'game'}.toml"
        return version_path(original, target)

    def save(self, path: str | os.PathLike | None = None):
        """Write the tuned game to ``path`` (default: the *save as* box); returns the Saved, or None."""
        if self.result is None:
            self.save_status.value = _error_html("Nothing to save: run the tuner first (a target that was not reached is not saved).")
            return None
        text = str(path if path is not None else self.save_path.value).strip()
        if not text:
            self.save_status.value = _error_html("Not saved: give a path in the 'save as' box.")
            return None
        target = Path(text).expanduser()
        try:
            saved = self.result.save(target)
        except (WorkbenchError, OSError) as exc:
            self.save_status.value = _error_html(_save_error(target, exc))
            return None
        self.saved = saved
        written = saved.target or saved.path
        backup = f" (previous version kept as {html.escape(str(saved.backup))})" if saved.backup else ""
        check = ("" if self.result.reached else
                 " Not confirmed: check it with <code>" + html.escape(self.result.confirmation.command(str(written)))
                 + "</code>." if self.result.confirmation is not None else " Not confirmed: estimate it with workbench rtp.")
        self.save_status.value = (f"<div class='wb-info wb-tune-saved' style='{INFO_STYLE}'>Saved to "
                                  f"<code>{html.escape(str(Path(written).resolve()))}</code>{backup}.{check}</div>")
        return saved


__all__ = ["TunerPanel", "default_mode", "default_vary", "keep_lines", "weight_choices"]
