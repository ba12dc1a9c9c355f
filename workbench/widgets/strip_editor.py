"""Reel strip editor: edit strips, see the exact PAR change, save the file.

Each reel of the chosen strip set is one text box holding the strip in file
notation (``A K Q:3``: symbol names in stop order, ``:w`` a stop weight).
Editing a box (the change is taken when the box loses focus) or using the
stop tools (insert / delete / move a stop, set a stop's weight) validates the
new strip, recomputes the exact PAR summary of the strip set's mode (RTP by
component, hit frequency, volatility index, triggers as 1 in N; x total bet)
and shows it against the file on disk.  Invalid edits show the validation
message and change nothing.  Save writes the file with
:func:`workbench.save_game` (validated, atomic, comments and layout kept).

Usage in a notebook::

    from workbench.widgets import StripEditor
    StripEditor("reelsets/classic_tens.toml")
"""

from __future__ import annotations

import html
import os

import ipywidgets as W

from ..errors import Problem, ReelsetError
from ..model import Game, Strip, check_strip, symbol_runs
from .panel import SIDEBAR_STYLE, EditorPanel, button, css_class
from .summary import symbol_counts_html


def strip_from_text(game: Game, strip_set: str, reel: int, text: str) -> Strip:
    """Parse and validate ``text`` (file notation) as reel ``reel`` (1-based) of ``strip_set``.

    Raises :class:`ReelsetError` listing every problem (unknown symbols with a
    suggestion, bad weights, too few stops, broken tall symbols, ...).
    """
    messages: list[str] = []
    strip = check_strip(text, reel - 1, game.symbols, game.rows, lambda msg, at=None: messages.append(msg),
                        mode=game.strip_sets[strip_set].mode if strip_set in game.strip_sets else None)
    if strip is None:
        key = f"strip_sets.{strip_set}.reel{reel}"
        raise ReelsetError([Problem(str(game.path or "<edit>"), key, msg) for msg in messages])
    return strip


def instance(strip: Strip, stop: int, heights: dict) -> list[int]:
    """The stops (0-based, in strip order) of the symbol instance that holds stop ``stop`` (0-based): the stop
    itself, or all ``height`` stops of a tall symbol (its runs are whole instances, from the run's start)."""
    names = list(strip.symbols)
    n = len(names)
    sym = names[stop]
    h = heights.get(sym, 1)
    if h == 1:
        return [stop]
    for start, length in symbol_runs(names, sym):
        offset = (stop - start) % n
        if offset < length:
            first = start + offset // h * h
            return [(first + i) % n for i in range(h)]
    return [stop]  # pragma: no cover - a stop always lies in a run of its own symbol


STOP_STYLE = """<style>
.wb-stops{font-family:var(--jp-code-font-family,monospace);font-size:11px;line-height:1.6;display:flex;flex-wrap:wrap;gap:2px 4px}
.wb-stops span{padding:0 2px;border-radius:2px;white-space:nowrap}
.wb-stops sub{color:#777;font-size:9px;margin-right:1px}
.wb-stops .wb-mark-selected{outline:2px solid #1a73e8}
.wb-stops .wb-mark-edited{background:#fde293}
.wb-stops .wb-mark-found{background:#c6e7ff}
</style>""" + SIDEBAR_STYLE


class ReelEditor:
    """One reel: a label (stops, total weight), a text box with the strip in file notation and the numbered
    stops (the selected stop, the stops of the last edit and the stops found by the search highlighted).

    ``on_text(reel, text)`` is called when the user changes the text.
    """

    def __init__(self, reel: int, on_text):
        self.reel = reel
        self._on_text = on_text
        self._updating = False
        self.label = W.HTML()
        self.text = css_class(
            W.Textarea(continuous_update=False, rows=2, layout=W.Layout(width="100%")),
            "wb-reel", f"wb-reel-{reel}",
        )
        self.text.observe(self._changed, names="value")
        self.stops = css_class(W.HTML(), "wb-stop-numbers", f"wb-stop-numbers-{reel}")
        self.widget = W.VBox([self.label, self.text, self.stops], layout=W.Layout(width="100%"))

    def show_stops(self, strip: Strip, marks: dict) -> None:
        """Numbered stops; ``marks`` maps a 0-based stop to CSS mark names (selected, edited, found)."""
        cells = []
        for k, sym in enumerate(strip.symbols):
            cls = " ".join(f"wb-mark-{m}" for m in marks.get(k, ()))
            weight = f":{strip.weights[k]}" if strip.weights is not None else ""
            cells.append(f"<span class='{cls}' title='reel {self.reel} stop {k + 1}'><sub>{k + 1}</sub>"
                         f"{html.escape(sym)}{weight}</span>")
        self.stops.value = f"<div class='wb-stops'>{''.join(cells)}</div>"

    def _changed(self, change) -> None:
        if not self._updating:
            self._on_text(self.reel, change["new"])

    def show(self, strip: Strip, invalid: str | None = None) -> None:
        """Show ``strip``; with ``invalid`` (text not applied) keep that text and mark the reel."""
        self._updating = True
        try:
            self.text.value = strip.to_text() if invalid is None else invalid
            self.text.rows = min(8, max(2, len(self.text.value) // 110 + 1))  # the whole strip in view
        finally:
            self._updating = False
        kind = f"total weight {strip.total_weight}" if strip.weights is not None else "unweighted"
        warn = " <b style='color:#a50e0e'>⚠ invalid text, not applied</b>" if invalid is not None else ""
        self.label.value = f"<b>Reel {self.reel}</b> · {len(strip)} stops · {kind}{warn}"


class StopTools:
    """Controls acting on one stop: reel, stop number (1-based), symbol, weight, target position."""

    def __init__(self, reels: int, symbols):
        narrow = W.Layout(width="150px")
        self.reel = css_class(W.Dropdown(options=list(range(1, reels + 1)), value=1, description="reel", layout=narrow), "wb-tool-reel")
        self.stop = css_class(W.BoundedIntText(value=1, min=1, max=10**6, description="stop", layout=narrow), "wb-tool-stop")
        self.symbol = css_class(W.Dropdown(options=list(symbols), description="symbol", layout=W.Layout(width="210px")), "wb-tool-symbol")
        self.weight = css_class(W.BoundedIntText(value=1, min=0, max=10**9, description="weight", layout=narrow), "wb-tool-weight")
        self.target = css_class(W.BoundedIntText(value=1, min=1, max=10**6, description="to", layout=narrow), "wb-tool-target")
        self.insert_button = button("Insert", "insert", "plus", "Insert the symbol as this stop (the others move down)")
        self.delete_button = button("Delete", "delete", "minus", "Delete this stop")
        self.move_button = button("Move to", "move", "arrows-v", "Move this stop to position 'to'")
        self.weight_button = button("Set weight", "set-weight", "balance-scale", "Set the weight of this stop (makes the strip weighted)")
        self.replace_button = button("Replace", "replace", "exchange", "Replace this stop (a whole tall symbol) by the symbol")
        self.find = css_class(W.Text(placeholder="symbol", description="find", continuous_update=False,
                                     layout=W.Layout(width="210px")), "wb-find")
        self.found = css_class(W.HTML(), "wb-found")
        self.selected = css_class(W.HTML(), "wb-selected-stop")
        self.widget = W.VBox([
            W.HBox([self.reel, self.stop, self.symbol, self.weight, self.target], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.insert_button, self.delete_button, self.replace_button, self.move_button, self.weight_button,
                    self.selected], layout=W.Layout(align_items="center", flex_flow="row wrap")),
            W.HBox([self.find, self.found], layout=W.Layout(align_items="center")),
        ])


class StripEditor(EditorPanel):
    """Edit the reel strips of one strip set of a reelset file with live exact PAR.

    ``reelset``: path, shipped name or loaded game; ``strip_set``: the strip
    set shown first (default: the first one).  Methods :meth:`set_strip_text`,
    :meth:`insert_stop`, :meth:`delete_stop`, :meth:`move_stop`,
    :meth:`set_stop_weight` do what the controls do (stops are 1-based).
    """

    summary_title = "Exact PAR"

    def __init__(self, reelset: str | os.PathLike | Game, strip_set: str | None = None):
        super().__init__(reelset)
        game = self.session.game
        names = list(game.strip_sets)
        if strip_set is not None and strip_set not in game.strip_sets:
            raise ValueError(f"{game.name}: no strip set {strip_set!r} (strip sets: {', '.join(names)})")
        self.invalid_text: dict[int, str] = {}  # reel -> text that did not validate (not applied)
        self._showing_weight = False
        self._rebuilding = False
        self.strip_set_picker = css_class(W.Dropdown(options=names, value=strip_set or names[0], description="strip set"), "wb-strip-set")
        self.strip_set_weight = css_class(
            W.BoundedIntText(min=0, max=10**9, description="choice weight", continuous_update=False,
                             style={"description_width": "initial"}, layout=W.Layout(width="190px")),
            "wb-strip-set-weight",
        )
        self.strip_set_info = W.HTML()
        self.reel_editors: list[ReelEditor] = []
        self.reels_box = W.VBox(layout=W.Layout(width="100%"))
        self.tools = StopTools(game.reels, game.symbols)
        self.counts = css_class(W.HTML(), "wb-counts-panel")
        self.strip_set_picker.observe(lambda _: self._strip_set_changed(), names="value")
        self.strip_set_weight.observe(self._strip_set_weight_changed, names="value")
        tools = self.tools
        tools.insert_button.on_click(lambda _: self.insert_stop(tools.reel.value, tools.stop.value, tools.symbol.value, tools.weight.value))
        tools.delete_button.on_click(lambda _: self.delete_stop(tools.reel.value, tools.stop.value))
        tools.move_button.on_click(lambda _: self.move_stop(tools.reel.value, tools.stop.value, tools.target.value))
        tools.weight_button.on_click(lambda _: self.set_stop_weight(tools.reel.value, tools.stop.value, tools.weight.value))
        tools.replace_button.on_click(lambda _: self.replace_stop(tools.reel.value, tools.stop.value, tools.symbol.value))
        tools.find.observe(lambda _: self._show_stops(), names="value")
        for control in (self.tools.reel, self.tools.stop):
            control.observe(lambda _: self._show_selected(), names="value")
        self.edited: dict[int, set] = {}  # reel -> 0-based stops of the last edit (highlighted)
        # the figures sit beside the strips (and stay in view while scrolling where the page allows it)
        sidebar = css_class(W.VBox([self.rtp_label, self.summary], layout=W.Layout(width="42%", min_width="360px")),
                            "wb-sidebar", "wb-pinned")
        work = W.VBox([
            W.HTML("<b>Stop tools</b> (stops are numbered from 1 in strip order; a tall symbol is one stop block)"),
            self.tools.widget,
            W.HTML("<b>Strips</b> — file notation, <code>SYMBOL:weight</code> on weighted strips; "
                   "a change is applied when the box loses focus; below each box its numbered stops"),
            self.reels_box,
            W.HTML("<b>Symbol counts</b> (stops, or weights on weighted strips; change vs saved file in brackets)"),
            self.counts,
        ], layout=W.Layout(width="58%"))
        self._widget = css_class(W.VBox([
            W.HTML(STOP_STYLE),
            self.title,
            self.opener,
            W.HBox([self.strip_set_picker, self.strip_set_weight, self.strip_set_info], layout=W.Layout(align_items="center")),
            self.toolbar,
            self.save_as_row,
            self.status,
            css_class(W.HBox([work, sidebar], layout=W.Layout(width="100%", align_items="flex-start")), "wb-split"),
            self.diff,
        ]), "wb-editor")
        self.rebuild(strip_set)
        self._auto_estimate()
        self.refresh()
        self.show_info(f"Loaded {self.session.path}.")

    def rebuild(self, strip_set: str | None = None) -> None:
        """Controls for the game's strip sets, reels and symbols (after opening another reelset)."""
        game = self.session.game
        self.invalid_text.clear()
        self._rebuilding = True
        try:
            names = list(game.strip_sets)
            keep = strip_set or (self.strip_set_picker.value if self.strip_set_picker.value in names else names[0])
            self.strip_set_picker.options = names
            self.strip_set_picker.value = keep
            self.tools.reel.options = list(range(1, game.reels + 1))
            self.tools.reel.value = 1
            self.tools.symbol.options = list(game.symbols)
        finally:
            self._rebuilding = False
        if len(self.reel_editors) != game.reels:
            self.reel_editors = [ReelEditor(r, self.set_strip_text) for r in range(1, game.reels + 1)]
            self.reels_box.children = [editor.widget for editor in self.reel_editors]

    @property
    def widget(self) -> W.Widget:
        return self._widget

    # -- what is shown -----------------------------------------------------------
    @property
    def strip_set(self) -> str:
        """Name of the strip set being edited."""
        return self.strip_set_picker.value

    @property
    def mode(self) -> str:
        return self.session.game.strip_sets[self.strip_set].mode

    def strip(self, reel: int) -> Strip:
        """Current strip of reel ``reel`` (1-based) of the edited strip set."""
        return self.session.game.strip_sets[self.strip_set].reels[reel - 1]

    def refresh(self) -> None:
        super().refresh()
        game = self.session.game
        current = game.strip_sets[self.strip_set]
        saved = self.session.saved.strip_sets.get(self.strip_set)
        for editor, strip in zip(self.reel_editors, current.reels):
            editor.show(strip, self.invalid_text.get(editor.reel))
        self._show_stops()
        self.counts.value = symbol_counts_html(current, saved, game.symbols)
        siblings = game.strip_sets_for(current.mode)
        self._showing_weight = True
        try:
            self.strip_set_weight.value = current.weight
        finally:
            self._showing_weight = False
        self.strip_set_weight.disabled = len(siblings) < 2
        total = sum(s.weight for s in siblings)
        chance = f"chosen with probability {current.weight}/{total}" if len(siblings) > 1 else "only strip set of its mode"
        self.strip_set_info.value = f"mode <b>{html.escape(current.mode)}</b>, {chance}, stop cycle {current.cycle:,}"
        self._show_selected()

    def _show_selected(self) -> None:
        if self._rebuilding:
            return
        reel, stop = self.tools.reel.value, self.tools.stop.value
        strip = self.strip(reel)
        if 1 <= stop <= len(strip):
            weight = strip.stop_weights[stop - 1]
            symbol = html.escape(strip.symbols[stop - 1])
            self.tools.selected.value = f"reel {reel} stop {stop} of {len(strip)}: <b>{symbol}</b> (weight {weight})"
        else:
            self.tools.selected.value = f"reel {reel} has stops 1..{len(strip)}"
        self._show_stops()

    def _show_stops(self) -> None:
        """Numbered stops of every reel, with the selected stop, the last edit and the search highlighted."""
        if self._rebuilding or not self.reel_editors:
            return
        current = self.session.game.strip_sets[self.strip_set]
        wanted = self.tools.find.value.strip()
        found = []
        for editor, strip in zip(self.reel_editors, current.reels):
            marks: dict[int, list] = {}
            for k in self.edited.get(editor.reel, ()):
                if k < len(strip):
                    marks.setdefault(k, []).append("edited")
            if editor.reel == self.tools.reel.value and 1 <= self.tools.stop.value <= len(strip):
                marks.setdefault(self.tools.stop.value - 1, []).append("selected")
            if wanted:
                hits = [k for k, sym in enumerate(strip.symbols) if sym == wanted]
                for k in hits:
                    marks.setdefault(k, []).append("found")
                if hits:
                    found.append(f"reel {editor.reel}: {', '.join(str(k + 1) for k in hits)}")
            editor.show_stops(strip, marks)
        if not wanted:
            self.tools.found.value = ""
        elif wanted not in self.session.game.symbols:
            self.tools.found.value = f"<i>no symbol {html.escape(wanted)} in this game</i>"
        else:
            total = sum(len(f.split(", ")) for f in found)
            self.tools.found.value = (f"<b>{html.escape(wanted)}</b>: {total} stop(s) — " + "; ".join(found)) if found \
                else f"<b>{html.escape(wanted)}</b>: not on these strips"

    def _strip_set_changed(self) -> None:
        if self._rebuilding:
            return
        self.invalid_text.clear()
        self.refresh()
        self.show_info(f"Editing strip set {self.strip_set}.")

    def _strip_set_weight_changed(self, change) -> None:
        if self._showing_weight or change["new"] == self.session.game.strip_sets[self.strip_set].weight:
            return
        self.commit(lambda: self.session.game.with_strip_set_weight(self.strip_set, change["new"]),
                    f"Strip set {self.strip_set}: choice weight {change['old']} → {change['new']}")

    # -- edits -------------------------------------------------------------------
    def edit_strip(self, reel: int, symbols, weights, what: str) -> bool:
        """Replace reel ``reel`` (1-based) with ``symbols`` (and stop ``weights`` or None); True if valid."""
        self.invalid_text.pop(reel, None)
        return self.commit(lambda: self.session.game.with_strip(self.strip_set, reel, symbols, weights), f"Reel {reel}: {what}")

    def set_strip_text(self, reel: int, text: str) -> bool:
        """Take reel ``reel`` from ``text`` in file notation (what typing in its box does)."""
        game = self.session.game
        try:
            strip = strip_from_text(game, self.strip_set, reel, text)
        except ReelsetError as exc:
            self.invalid_text[reel] = text
            self.reel_editors[reel - 1].show(self.strip(reel), text)
            self.show_error(f"Not applied — reel {reel} keeps its last valid strip (Undo discards the text):\n{exc}")
            return False
        if strip == self.strip(reel):
            self.invalid_text.pop(reel, None)
            self.reel_editors[reel - 1].show(strip)  # normalise spacing
            self.show_info(f"Reel {reel}: no change.")
            return True
        return self.edit_strip(reel, strip.symbols, strip.weights, "strip edited")

    def _stop_error(self, reel: int, stop: int, allowed: int) -> bool:
        self.show_error(f"Not applied — reel {reel} has stops 1..{allowed}, not {stop}.")
        return False

    def insert_stop(self, reel: int, stop: int, symbol: str, weight: int = 1) -> bool:
        """Insert ``symbol`` so it becomes stop ``stop`` (1..n+1) of reel ``reel``.

        ``weight`` is its stop weight; a weight other than 1 makes an
        unweighted strip weighted (the other stops keep weight 1).
        """
        strip = self.strip(reel)
        if not 1 <= stop <= len(strip) + 1:
            return self._stop_error(reel, stop, len(strip) + 1)
        height = self.session.game.symbols[symbol].height if symbol in self.session.game.symbols else 1
        at = stop - 1
        if at < len(strip):  # never split a tall symbol: insert before the whole of it
            block = instance(strip, at, self._heights())
            if len(block) > 1 and at != block[0] and block[0] < at:
                at = block[0]
        symbols = list(strip.symbols)
        symbols[at:at] = [symbol] * height
        weights = None
        if strip.weights is not None or weight != 1:
            weights = list(strip.stop_weights.tolist())
            weights[at:at] = [int(weight)] * height
        self.edited[reel] = set(range(at, at + height))
        what = f"inserted {symbol} at stop {at + 1}" + (f" ({height} stops: a tall symbol)" if height > 1 else "")
        return self.edit_strip(reel, symbols, weights, what)

    def _heights(self) -> dict:
        return {name: sym.height for name, sym in self.session.game.symbols.items()}

    def replace_stop(self, reel: int, stop: int, symbol: str) -> bool:
        """Replace stop ``stop`` of reel ``reel`` (the whole symbol when it is part of a tall one) by one
        ``symbol`` (its height in stops); the stops keep the first replaced stop's weight."""
        strip = self.strip(reel)
        if not 1 <= stop <= len(strip):
            return self._stop_error(reel, stop, len(strip))
        if symbol not in self.session.game.symbols:
            self.show_error(f"Not applied — no symbol {symbol!r} in this game.")
            return False
        block = instance(strip, stop - 1, self._heights())
        old = strip.symbols[block[0]]
        height = self.session.game.symbols[symbol].height
        first_weight = int(strip.stop_weights[block[0]])
        keep = [k for k in range(len(strip)) if k not in set(block)]
        at = sorted(block)[0] if max(block) - min(block) == len(block) - 1 else 0  # a block across the end: put it first
        symbols = [strip.symbols[k] for k in keep]
        position = sum(1 for k in keep if k < at)
        symbols[position:position] = [symbol] * height
        weights = None
        if strip.weights is not None:
            weights = [strip.weights[k] for k in keep]
            weights[position:position] = [first_weight] * height
        self.edited[reel] = set(range(position, position + height))
        size = f" ({len(block)} stops)" if len(block) > 1 else ""
        return self.edit_strip(reel, symbols, weights, f"replaced stop {stop} ({old}{size}) by {symbol}")

    def delete_stop(self, reel: int, stop: int) -> bool:
        """Delete stop ``stop`` of reel ``reel``."""
        strip = self.strip(reel)
        if not 1 <= stop <= len(strip):
            return self._stop_error(reel, stop, len(strip))
        block = set(instance(strip, stop - 1, self._heights()))  # a tall symbol goes as a whole
        removed = strip.symbols[stop - 1]
        symbols = [sym for k, sym in enumerate(strip.symbols) if k not in block]
        weights = None
        if strip.weights is not None:
            weights = [w for k, w in enumerate(strip.weights) if k not in block]
        self.edited[reel] = set()
        size = f", {len(block)} stops: a tall symbol" if len(block) > 1 else ""
        return self.edit_strip(reel, symbols, weights, f"deleted stop {stop} ({removed}{size})")

    def move_stop(self, reel: int, stop: int, to: int) -> bool:
        """Move stop ``stop`` of reel ``reel`` (with its weight) so it becomes stop ``to``."""
        strip = self.strip(reel)
        n = len(strip)
        if not 1 <= stop <= n:
            return self._stop_error(reel, stop, n)
        if not 1 <= to <= n:
            return self._stop_error(reel, to, n)
        symbols = list(strip.symbols)
        sym = symbols.pop(stop - 1)
        symbols.insert(to - 1, sym)
        weights = None
        if strip.weights is not None:
            weights = list(strip.weights)
            weights.insert(to - 1, weights.pop(stop - 1))
        return self.edit_strip(reel, symbols, weights, f"moved stop {stop} ({sym}) to {to}")

    def set_stop_weight(self, reel: int, stop: int, weight: int) -> bool:
        """Set the weight of stop ``stop`` of reel ``reel`` (the strip becomes weighted)."""
        strip = self.strip(reel)
        if not 1 <= stop <= len(strip):
            return self._stop_error(reel, stop, len(strip))
        weights = list(strip.stop_weights.tolist())
        weights[stop - 1] = int(weight)
        return self.edit_strip(reel, strip.symbols, weights, f"weight of stop {stop} ({strip.symbols[stop - 1]}) set to {weight}")

    # -- undo / save ---------------------------------------------------------
    def _can_undo(self) -> bool:
        return super()._can_undo() or bool(getattr(self, "invalid_text", None))

    def undo(self) -> None:
        """Discard invalid text still in a box, or else go back to the previous version."""
        if self.invalid_text:
            reels = ", ".join(map(str, sorted(self.invalid_text)))
            self.invalid_text.clear()
            self.refresh()
            self.show_info(f"Discarded the invalid text of reel(s) {reels}. {self._state()}")
            return
        super().undo()

    def save(self) -> None:
        if self.invalid_text:
            reels = ", ".join(map(str, sorted(self.invalid_text)))
            self.show_error(f"Not saved: reel(s) {reels} hold an invalid strip that was not applied. "
                            "Fix the text, or press Undo to discard it, then save.")
            return
        super().save()

    def reload(self) -> None:
        self.invalid_text.clear()
        super().reload()
