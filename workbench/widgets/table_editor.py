"""Weighted-table editor (wheels, award tables) with probabilities, EVs and RTP.

For each ``[tables.<name>]`` of a reelset the panel shows every entry with an
editable integer weight, its probability and, for each numeric field of the
entries (such as ``value``), the entry's EV contribution ``value x
probability`` and the table's exact EV (a fraction: weights are integers).

Above the tables (pinned there while they scroll by), the RTP (x total
bet): the exact base-game PAR always; the total RTP exactly when the game
pays nothing beyond the base screen (no trigger states, no feature
components, no jackpots); otherwise an estimate by the exact + conditional
method (:func:`workbench.simulate.estimate_rtp`) on a press of the one
Estimate RTP button, with its 95 % confidence half-width (below the tables,
what it is made of).  Edits are validated, undoable and saved with
:func:`workbench.save_game` like the strip editor's.
"""

from __future__ import annotations

import html
import os
from fractions import Fraction

import ipywidgets as W

from ..errors import WorkbenchError
from ..model import Game, WeightedTable
from ..rounds.coin_wheels import coin_wheel_summaries
from ..rounds.random_wilds import base_random_wilds_summary, random_wilds_summary
from ..rounds.wheels import wheel_summaries
from .panel import SIDEBAR_STYLE, EditorPanel, button, css_class
from .summary import exactness, format_value, header_row


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def numeric_fields(table: WeightedTable) -> list[str]:
    """Fields that hold a number in every entry that has them (in first-seen order)."""
    seen: dict[str, bool] = {}
    for entry in table.entries:
        for key, value in entry.items():
            seen[key] = seen.get(key, True) and _is_number(value)
    return [k for k, ok in seen.items() if ok]


def _fraction(value) -> Fraction:
    return Fraction(value) if isinstance(value, int) else Fraction(repr(value))


def table_ev(table: WeightedTable) -> dict[str, Fraction]:
    """Exact EV of each numeric field: sum of value x weight / total weight (a missing value counts 0)."""
    total = table.total_weight
    return {
        key: sum((_fraction(entry.get(key, 0)) * w for entry, w in zip(table.entries, table.weights)), Fraction(0)) / total
        for key in numeric_fields(table)
    }


def _entry_label(entry) -> str:
    """An entry as the file writes it (``again = true``, not Python's True)."""
    def value(v) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):  # an overlay's sizes: [2, 3], as the file writes it, not Python's (2, 3)
            return "[" + ", ".join(value(x) for x in v) + "]"
        return str(v)
    return ", ".join(f"{k} = {value(v)}" for k, v in entry.items()) or "(entry)"


def no_tables_hint() -> str:
    """What to say when a reelset has no weighted tables: which shipped reelsets have some."""
    from ..io import load_game, shipped_games

    with_tables = []
    for name in shipped_games():
        try:
            if load_game(name).tables:
                with_tables.append(name)
        except WorkbenchError:
            continue
    hint = f" Shipped reelsets with tables: {', '.join(with_tables)}." if with_tables else ""
    return "This reelset has no weighted tables ([tables.*])." + hint



def _table_roles(game) -> dict:
    """What a table is to the engines when its entries carry no value to take an EV of: a mystery symbol's reveal
    table, a strip set's wild-reels count table, a random-wilds table (name -> words shown under it)."""
    roles: dict = {}
    reveals: dict = {}
    for sym in game.symbols.values():
        if sym.kind == "mystery":
            reveals.setdefault(sym.reveal, []).append(sym.name)
    for name, shown in reveals.items():
        roles[name] = (f"mystery reveal: the symbol every {' and '.join(shown)} of a spin's strip set shows, drawn once "
                       "per spin; the exact RTP prices every reveal")
    counts: dict = {}
    for s in game.strip_sets.values():
        if s.wild_reels is not None and s.wild_reels.count is not None:
            counts.setdefault(s.wild_reels.count, []).append(s.name)
    for name, sets in counts.items():
        table = game.tables[name]
        mean = sum(int(e.get("reels", 0)) * w for e, w in zip(table.entries, table.weights)) / max(sum(table.weights), 1)
        roles[name] = (f"wild reels: how many reels of strip set {' and '.join(sets)} turn wholly wild on a spin (which "
                       f"ones: uniformly), {mean:.4f} reels per spin on average; the exact RTP prices every set of "
                       "wild reels")
    for mode in [None, *game.all_bet_modes]:  # random wilds of the free spins, the base game's or a bet mode's own
        played = game if mode is None else game.in_bet_mode(mode)
        for key, summary in (("free_spins_random_wilds", random_wilds_summary),
                             ("base_random_wilds", base_random_wilds_summary)):
            name = played.features.get(key)
            if name is not None and name not in roles:
                roles[name] = ("" if mode is None else f"bet mode {mode}: ") + summary(played)
    return roles

class TableEditor:
    """One weighted table: a weight box per entry, probabilities, EV contributions, table EV.

    ``on_weights(table, weights)`` is called when the user changes a weight.
    """

    def __init__(self, table: WeightedTable, on_weights):
        self.name = table.name
        self._on_weights = on_weights
        self._updating = False
        self.header = W.HTML()
        self.weights = []
        self.probabilities = []
        self.contributions = []
        rows = []
        for i, entry in enumerate(table.entries):
            box = css_class(W.BoundedIntText(min=-(10**12), max=10**12, continuous_update=False, layout=W.Layout(width="120px")),
                            "wb-weight", f"wb-weight-{table.name}-{i + 1}")
            box.observe(self._changed, names="value")
            prob = css_class(W.HTML(layout=W.Layout(width="190px")), "wb-probability")
            contrib = css_class(W.HTML(layout=W.Layout(width="260px")), "wb-ev-contribution")
            self.weights.append(box)
            self.probabilities.append(prob)
            self.contributions.append(contrib)
            label = W.HTML(f"<code>{html.escape(_entry_label(entry))}</code>", layout=W.Layout(width="260px"))
            rows.append(W.HBox([label, box, prob, contrib], layout=W.Layout(align_items="center")))
        self.ev = css_class(W.HTML(), "wb-table-ev")
        heading = W.HBox([W.HTML("<b>entry</b>", layout=W.Layout(width="260px")), W.HTML("<b>weight</b>", layout=W.Layout(width="120px")),
                          W.HTML("<b>probability</b>", layout=W.Layout(width="190px")), W.HTML("<b>value x probability</b>")],
                         layout=W.Layout())
        self.widget = css_class(W.VBox([self.header, heading, *rows, self.ev]), "wb-table", f"wb-table-{table.name}")

    def _changed(self, change) -> None:
        if not self._updating:
            self._on_weights(self.name, [box.value for box in self.weights])

    def show(self, table: WeightedTable, saved: WeightedTable | None, summary: str = "", saved_summary: str = "",
             cash_unit: str = "x total bet") -> None:
        """Show ``table``'s weights, probabilities and EVs (changes vs ``saved`` highlighted); a table with a
        ``summary`` of its own (a wheel: the exact value of one award) shows that instead of per-field EVs, whose
        ``value`` would add cash to spins; ``cash_unit``: the unit of its cash segments (a bonus wheel's award_unit)."""
        self._updating = True
        try:
            for box, w in zip(self.weights, table.weights):
                box.value = w
        finally:
            self._updating = False
        fields = numeric_fields(table)
        total = table.total_weight
        for i, (entry, w) in enumerate(zip(table.entries, table.weights)):
            p = Fraction(w, total)
            changed = saved is not None and saved.weights[i] != w
            mark = f" <b style='color:#0b57d0'>(saved {saved.weights[i]})</b>" if changed else ""
            self.probabilities[i].value = f"{float(p):.6f} <small>({p})</small>{mark}"
            parts = [f"{k}: {float(_fraction(entry[k]) * p):,.4f}" for k in fields if k in entry]
            if summary and "value" in entry:  # a wheel segment: what its value is (cash x total bet, or spins)
                unit = f" {cash_unit}" if entry.get("award") == "cash" else ""
                parts = [f"{str(entry.get('award', 'value')).replace('_', ' ')}: {float(_fraction(entry['value']) * p):,.4f}{unit}"]
            self.contributions[i].value = ", ".join(parts) or "–"
        evs = table_ev(table)
        old = table_ev(saved) if saved is not None else {}
        lines = []
        for key, ev in evs.items():
            delta = f" (saved file {float(old[key]):,.6f})" if key in old and old[key] != ev else ""
            lines.append(f"EV of <b>{html.escape(key)}</b> = <b class='wb-ev-value'>{float(ev):,.6f}</b> <small>exact {ev}</small>{delta}")
        self.ev.value = "<br>".join(lines) or "<i>no numeric field: no EV</i>"
        if summary:
            was = f"<br><small>saved file: {html.escape(saved_summary)}</small>" if saved_summary and saved_summary != summary else ""
            self.ev.value = f"<span class='wb-wheel-value'>{html.escape(summary)}</span>{was}"
        self.header.value = f"<h4 style='margin:8px 0 2px'>Table <code>{html.escape(table.name)}</code> · total weight {total:,}</h4>"


class TableWeightsEditor(EditorPanel):
    """Edit the weights of every weighted table of a reelset with exact EVs and the resulting RTP.

    ``reelset``: path, shipped name or loaded game.  :meth:`set_weights`
    does what editing the weight boxes does; :meth:`estimate` what the
    Estimate button does (``precision``: 95 % half-width as a fraction of the
    total bet, ``max_seconds``: time limit).
    """

    summary_title = "Exact base-game PAR"
    estimate_control = "Estimate RTP"  # one estimate button: its estimate is also the headline's feature terms
    show_whole_button = False

    def __init__(self, reelset: str | os.PathLike | Game, *, precision: float = 0.002, max_seconds: float = 20.0, seed: int = 1):
        super().__init__(reelset)
        self.tables: dict[str, TableEditor] = {}
        self.exact_total, self.exact_reason = False, ""
        self.estimate_result = None
        self._estimated_game: Game | None = None
        self.precision = css_class(W.BoundedFloatText(value=100 * precision, min=0.0001, max=100, step=0.01,
                                                      description="± % (95 %)", style={"description_width": "initial"},
                                                      layout=W.Layout(width="170px")), "wb-precision")
        self.max_seconds = css_class(W.BoundedFloatText(value=max_seconds, min=0.1, max=3600, description="max s",
                                                        layout=W.Layout(width="150px")), "wb-max-seconds")
        self.seed = css_class(W.BoundedIntText(value=seed, min=0, max=2**63 - 1, description="seed", layout=W.Layout(width="170px")), "wb-seed")
        self.estimate_button = button("Estimate RTP", "estimate", "calculator", "Exact base game + conditional simulation of the features")
        self.estimate_button.on_click(lambda _: self.estimate())
        self.feature = css_class(W.HTML(), "wb-feature-rtp")
        self.estimate_row = W.HBox([self.precision, self.max_seconds, self.seed, self.estimate_button], layout=W.Layout(align_items="center"))
        self.tables_box = W.VBox()
        # the headline and its Estimate control above the tables, pinned there while the tables scroll by
        self.head = css_class(W.VBox([W.HTML("<h4 style='margin:8px 0 2px'>RTP (x total bet)</h4>"), self.rtp_label,
                                      self.estimate_row]), "wb-pinned", "wb-pinned-head", "wb-table-head")
        self._widget = css_class(W.VBox([
            W.HTML(SIDEBAR_STYLE),
            self.title, self.opener, self.toolbar, self.save_as_row, self.status,
            self.head,
            self.tables_box,
            self.feature,
            self.summary, self.diff,
        ]), "wb-editor")
        self.rebuild()
        self._auto_estimate()
        self.refresh()
        self.show_info(f"Loaded {self.session.path}.")

    @property
    def widget(self) -> W.Widget:
        return self._widget

    def rebuild(self) -> None:
        """One :class:`TableEditor` per weighted table; whether the total RTP is exact."""
        game = self.session.game
        self.tables = {name: TableEditor(table, self.set_weights) for name, table in game.tables.items()}
        self.tables_box.children = [editor.widget for editor in self.tables.values()] or [
            css_class(W.HTML(f"<i>{html.escape(no_tables_hint())}</i>"), "wb-no-tables")]
        self.exact_total, self.exact_reason = exactness(game)
        self.estimate_result = None
        self._estimated_game = None
        self.estimate_row.layout.display = "none" if self.exact_total else ""

    # -- display -----------------------------------------------------------------
    def refresh(self) -> None:
        super().refresh()
        game, saved = self.session.game, self.session.saved
        wheels = {**wheel_summaries(game), **coin_wheel_summaries(game)}
        saved_wheels = {**wheel_summaries(saved), **coin_wheel_summaries(saved)}
        roles = _table_roles(game)
        for name, editor in self.tables.items():
            if name in wheels:
                units = {t.award: f"x {t.award_unit.replace('_', ' ')}" for t in game.triggers.values() if t.award}
                editor.show(game.tables[name], saved.tables.get(name), wheels[name], saved_wheels.get(name, ""),
                            units.get(name, "x total bet"))
            else:
                editor.show(game.tables[name], saved.tables.get(name), roles.get(name, ""))
        self.undo_button.disabled = not self._can_undo()  # now that the boxes show the current weights
        self._show_feature()

    def _show_feature(self) -> None:
        base = self.current_par.value("rtp") if self.current_par else None
        if self.exact_total:
            self.feature.value = (f"Total RTP (exact) = <b class='wb-total-rtp'>{format_value(base, 'percent')}</b>: {self.exact_reason}; "
                                  "feature RTP 0. The table EVs above are exact.")
            return
        # the headline above shows the whole game and its base part when the game has features: said once, there
        in_headline = self.whole_rtp is not None and not self.exact_whole()[0]
        text = f"{html.escape(self.exact_reason[:1].upper() + self.exact_reason[1:])}."
        if not in_headline:
            text = f"Base game (exact) = <b>{format_value(base, 'percent')}</b>; {html.escape(self.exact_reason)}."
        result = self.estimate_result
        if result is None:
            held = "; the headline's feature terms are from the quick estimate made on opening" if in_headline else ""
            text += (f"<br>Press <b>Estimate RTP</b> for the total by component (exact base game + conditional simulation "
                     f"of the features, to the precision asked){held}.")
        else:
            stale = ("" if self._estimated_game == self.session.game
                     else " <b style='color:#a50e0e'>(for earlier weights: estimate again)</b>")
            rows = "".join(
                f"<tr><td>{html.escape(k)}</td><td style='text-align:right;padding:1px 10px'>{100 * e.value:.4f} %</td>"
                f"<td style='text-align:right;padding:1px 10px'>± {100 * e.ci95:.4f} %</td><td>{e.source}</td></tr>"
                for k, e in result.components.items()
            )
            feature = result.rtp - (base or 0.0)
            if in_headline:  # the total is the headline's: here only what it is made of
                text += f"<br>Last estimate by component: features {100 * feature:.4f} %, {result.elapsed:.1f} s{stale}"
            else:
                text += (f"<br>Total RTP (estimate) = <b class='wb-total-rtp'>{100 * result.rtp:.4f} % ± "
                         f"{100 * result.rtp_ci95:.4f} %</b> (95 %), features {100 * feature:.4f} %, {result.elapsed:.1f} s{stale}")
            text += f"<table style='border-collapse:collapse'>{header_row('component', 'RTP', '95 % CI', 'source')}{rows}</table>"
        self.feature.value = text

    # -- edits -------------------------------------------------------------------
    def set_weights(self, table: str, weights) -> bool:
        """Replace the weights of ``table`` (one integer per entry); True if valid and applied."""
        weights = [int(w) for w in weights]
        old = self.session.game.tables[table].weights
        if tuple(weights) == tuple(old):
            return True
        changed = [f"entry {i + 1}: {a} → {b}" for i, (a, b) in enumerate(zip(old, weights)) if a != b]
        ok = self.commit(lambda: self.session.game.with_table_weights(table, weights), f"Table {table}: " + ", ".join(changed))
        if not ok:
            self.status.value += "<div>The table keeps its last valid weights (Undo puts them back in the boxes).</div>"
        return ok

    def rejected(self) -> list[str]:
        """Tables whose weight boxes show values that were rejected (not the current weights)."""
        game = self.session.game
        return [name for name, editor in self.tables.items()
                if tuple(box.value for box in editor.weights) != tuple(game.tables[name].weights)]

    def _can_undo(self) -> bool:
        return super()._can_undo() or bool(getattr(self, "tables", None) and self.rejected())

    def undo(self) -> None:
        """Put back rejected values left in the weight boxes, or else go back to the previous version."""
        rejected = self.rejected()
        if rejected:
            self.refresh()
            self.show_info(f"Discarded the rejected weights of table(s) {', '.join(rejected)}. {self._state()}")
            return
        super().undo()

    def estimate(self) -> None:
        """Estimate the total RTP by exact base game + conditional simulation (see :func:`workbench.simulate.estimate_rtp`)."""
        from ..simulate import estimate_rtp

        game = self.session.game
        self.estimate_button.disabled = True
        self.estimate_button.description = "Estimating…"
        self.feature.value += "<br><i>estimating…</i>"
        try:
            self.estimate_result = estimate_rtp(game, precision=self.precision.value / 100, seed=int(self.seed.value),
                                                max_seconds=float(self.max_seconds.value))
            self._estimated_game = game
            from ..tuning import FeatureTerms

            self.set_feature_terms(FeatureTerms.from_estimate(self.estimate_result), game)  # the headline's terms
            precision, seconds = self.precision.value / 100, float(self.max_seconds.value)
            self.mode_terms = {name: FeatureTerms.estimate(game.in_bet_mode(name), precision, int(self.seed.value),
                                                           max_seconds=seconds)
                               for name in game.bet_modes}
        except WorkbenchError as exc:
            self.show_error(f"Estimate failed: {exc}")
        finally:
            self.estimate_button.disabled = False
            self.estimate_button.description = "Estimate RTP"
        self.recompute()
        self._show_feature()
