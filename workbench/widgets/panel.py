"""What the reelset editors share: an edit session, undo / save / reload
buttons, a status line (validation messages), the last save's diff, the
exact PAR summary with its compute time, and the headline: the whole game's
RTP with its base-game part, each labelled.

The whole game's RTP is exact when the exact PAR covers everything the game
pays; otherwise it is the exact base game plus the feature terms held from
the last exact + conditional estimate (:class:`workbench.tuning.FeatureTerms`:
per trigger state, its probability, recomputed for every edit, times its
simulated mean), with that estimate's 95 % half-width.  An edit of what the
held means depend on (another mode's strips, a table, a strip-set weight of
another mode) marks them stale until the next estimate (the Estimate button;
made automatically when a game is opened, within :data:`AUTO_ESTIMATE_SECONDS`).
"""

from __future__ import annotations

import html
import os
import time
from pathlib import Path

import ipywidgets as W

from ..errors import ReelsetError, WorkbenchError
from ..model import Game
from ..io import example_games, save_game, shipped_games
from .session import EditSession
from .summary import ParResult, design_warnings, diff_html, exactness, lints_html, metrics_table_html, timed_par

#: the feature estimate made when a game with features is opened stops after this long (its CI says how good)
AUTO_ESTIMATE_SECONDS = 10.0
AUTO_ESTIMATE_PRECISION = 0.002


def feature_parts(game: Game, base_strips: bool = False, mode: str | None = None) -> tuple:
    """What the held feature means of bet mode ``mode`` (None: the base game) depend on: the strip sets of the
    feature modes (not base, nor the paid spins of a bet mode such as an ante: their first screen is exact and their
    trigger probabilities are recomputed; nor the boards of another mode's prize mode), and the tables; with
    ``base_strips`` (held means that move with every base stop, such as a tumble's cascades) every strip set but
    those boards."""
    paid = set() if base_strips else {"base", *(m.strip_sets for m in game.bet_modes.values())}
    paid |= {m.prize_strips for name, m in game.bet_modes.items() if m.prize_strips is not None and name != mode}
    return (tuple((n, s) for n, s in game.strip_sets.items() if s.mode not in paid), tuple(game.tables.items()))


#: the headline beside the edited strips (or above the edited tables) stays in view while the page scrolls: a box of
#: class ``wb-pinned`` is ``position: sticky``.  A sticky box sticks inside its nearest scrolling ancestor, and
#: ipywidgets' boxes (``overflow: auto``) and JupyterLab's output area (``overflow: hidden`` / ``auto``) are such
#: ancestors that never scroll themselves: those around a pinned box are made ``overflow: visible``, so that it sticks
#: in the page (Voila) or in the notebook panel (JupyterLab).
SIDEBAR_STYLE = """<style>
.wb-editor, .wb-editor .wb-split, .jp-OutputArea:has(.wb-pinned), .jp-OutputArea-child:has(.wb-pinned),
.jp-OutputArea-output:has(.wb-pinned), .output_subarea:has(.wb-pinned), .output_area:has(.wb-pinned) {
  overflow: visible !important; }
.wb-pinned { position: sticky; top: 0; z-index: 2; background: var(--jp-layout-color0, #fff); }
.wb-sidebar { align-self: flex-start; }
.wb-pinned-head { border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); padding-bottom: 4px; }
</style>"""


def css_class(widget: W.DOMWidget, *names: str) -> W.DOMWidget:
    """Add CSS classes (used by the browser tests to find widgets); returns the widget."""
    for name in names:
        widget.add_class(name)
    return widget


def button(description: str, name: str, icon: str = "", tooltip: str = "", style: str = "") -> W.Button:
    """A button with the CSS class ``wb-<name>``."""
    return css_class(W.Button(description=description, icon=icon, tooltip=tooltip, button_style=style,
                              layout=W.Layout(width="auto")), f"wb-{name}")


class EditorPanel:
    """Base of the reelset editors.

    Subclasses build their own controls, call :meth:`commit` with a new
    validated game for each edit and implement :meth:`refresh` to show the
    current version.  Display the panel in a notebook by evaluating it (or
    its ``widget``).
    """

    #: shown above the PAR table
    summary_title = "Exact PAR"
    #: the control that estimates the headline's feature terms (named in the headline's hint)
    estimate_control = "Estimate whole game"
    #: whether the toolbar's Estimate whole game button is shown (an editor with its own estimate control hides it)
    show_whole_button = True

    def __init__(self, reelset: str | os.PathLike | Game):
        self.session = EditSession(reelset)
        self._saved_par: dict[str, ParResult] = {}  # mode -> PAR of the file on disk
        self.current_par: ParResult | None = None
        self.last_diff = ""
        self.last_error = ""
        self.last_latency = 0.0  # seconds from an edit to the refreshed display
        self._first_par = True
        self.title = W.HTML()
        self.undo_button = button("Undo", "undo", "undo", "Go back to the previous version")
        self.save_button = button("Save", "save", "save", "Validate and write the reelset file", "primary")
        self.reload_button = button("Reload", "reload", "refresh", "Read the file again (drops unsaved edits)")
        self.undo_button.on_click(lambda _: self.undo())
        self.save_button.on_click(lambda _: self.save())
        self.reload_button.on_click(lambda _: self.reload())
        self.status = css_class(W.HTML(), "wb-status")
        self.timing = css_class(W.HTML(), "wb-timing")
        self.rtp_label = css_class(W.HTML(), "wb-rtp")
        self.summary = css_class(W.HTML(), "wb-summary-panel")
        self.diff = css_class(W.HTML(), "wb-diff")
        self.toolbar = W.HBox([self.undo_button, self.save_button, self.reload_button, self.timing],
                              layout=W.Layout(align_items="center"))
        self.reelset_box = css_class(
            W.Combobox(value=str(self.session.path), options=[*shipped_games(), *example_games()], ensure_option=False,
                       description="reelset", placeholder="shipped or gallery name (pick from the list), or a path",
                       layout=W.Layout(width="520px")),
            "wb-reelset",
        )
        self.open_button = button("Open", "open", "folder-open", "Open this reelset (a shipped name edits the shipped file)")
        self.open_button.on_click(lambda _: self.open(self.reelset_box.value.strip()))
        self.opener = W.HBox([self.reelset_box, self.open_button], layout=W.Layout(align_items="center"))
        self.save_as_box = css_class(W.Text(description="save as", placeholder="path of a new reelset file",
                                            layout=W.Layout(width="520px")), "wb-save-as-path")
        self.save_as_button = button("Save as", "save-as", "copy", "Write the current version to a new file and edit that file")
        self.save_as_button.on_click(lambda _: self.save_as(self.save_as_box.value.strip()))
        self.save_as_row = W.HBox([self.save_as_box, self.save_as_button], layout=W.Layout(align_items="center"))
        self.feature_terms = None  # FeatureTerms of the last estimate (games with features)
        self.mode_terms: dict = {}  # bet mode name -> FeatureTerms of that mode's last estimate
        self.choice_terms: dict = {}  # (choice, option) -> FeatureTerms of that option's last estimate (not the played)
        self._terms_game = None  # the game the held terms were estimated for
        self._terms_value = None  # the whole-game figure of the held terms for that game (None: not computed yet)
        self.whole_rtp = None  # (value, ci95, stale) of the headline, or None
        self.auto_estimate = True
        self.whole_button = button("Estimate whole game", "estimate-whole", "calculator",
                                   "Exact base game + conditional simulation of the features (the headline's feature terms)")
        self.whole_button.on_click(lambda _: self.estimate_whole())
        self.toolbar.children = (*self.toolbar.children[:3], self.whole_button, *self.toolbar.children[3:])

    # -- display -----------------------------------------------------------
    @property
    def widget(self) -> W.Widget:
        """The whole panel as one widget."""
        raise NotImplementedError

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def show_error(self, message: str) -> None:
        """Show ``message`` (a validation or save problem) in the status line."""
        self.last_error = message
        self.undo_button.disabled = not self._can_undo()  # the message may tell the user to press Undo
        self.status.value = (f"<div class='wb-error' style='color:#a50e0e;border-left:4px solid #a50e0e;padding:2px 8px'>"
                             f"<pre style='white-space:pre-wrap;margin:0'>{html.escape(message)}</pre></div>")

    def show_info(self, message: str) -> None:
        self.last_error = ""
        self.status.value = f"<div class='wb-info' style='color:#137333;padding:2px 8px'>{html.escape(message)}</div>"

    # -- PAR -----------------------------------------------------------------
    @property
    def mode(self) -> str:
        """Game mode whose PAR sheet is shown."""
        return "base" if "base" in self.session.game.modes else self.session.game.modes[0]

    def saved_par(self) -> ParResult | None:
        """PAR of the file on disk for the shown mode (cached until the next save or reload)."""
        mode = self.mode
        if mode not in self._saved_par:
            try:
                self._saved_par[mode] = timed_par(self.session.saved, mode)
            except WorkbenchError:
                return None
        return self._saved_par[mode]

    def recompute(self) -> None:
        """Recompute the exact PAR of the current version and show it against the saved file."""
        try:
            self.current_par = timed_par(self.session.game, self.mode)
        except WorkbenchError as exc:
            self.current_par = None
            self.show_error(f"PAR not available: {exc}")
        saved = self.saved_par()
        # the game's design warnings under the figures (the exact ones reuse the sheet just computed)
        self.lints = design_warnings(self.session.game, self.current_par.sheet if self.current_par else None)
        self.summary.value = (metrics_table_html(self.current_par, saved, f"{self.summary_title} — mode {self.mode} (x total bet)")
                              + lints_html(self.lints))
        if self.current_par is not None:
            rtp = self.current_par.value("rtp")
            delta = ""
            if saved is not None:
                diff = rtp - saved.value("rtp")
                delta = f" ({100 * diff:+.4f} pp vs saved file)" if abs(diff) > 1e-15 else " (as saved)"
            self.rtp_label.value = self._headline(rtp, delta)
            first = " (first run: includes loading or compiling the exact engine)" if self._first_par else ""
            self._first_par = False
            self.timing.value = f"<span class='wb-compute-ms'>PAR {1000 * self.current_par.seconds:.0f} ms</span>{first}"
        else:
            self.rtp_label.value = "RTP –"

    # -- the headline: whole game and its base part --------------------------------
    def exact_whole(self) -> tuple[bool, str]:
        """Whether the exact PAR is the whole game's RTP (cached per game structure)."""
        key = (feature_parts(self.session.game), tuple(self.session.game.triggers.items()))
        if getattr(self, "_exact_key", None) != key:
            self._exact_key, self._exact = key, exactness(self.session.game)
        return self._exact

    def _part_label(self) -> str:
        mode = self.mode
        if mode == "base":  # "base game", or a tumble game's "first drop" (its cascades are simulated)
            return self.session.game.exact_part
        paid = [name for name, m in self.session.game.bet_modes.items() if m.strip_sets == mode]
        if paid:  # the strips of a bet mode's paid spins (an ante): their first screen, x the base total bet
            return f"bet mode {', '.join(paid)}: its paid spin's first screen, x the base total bet (not x its cost),"
        game = self.session.game
        prize = [name for name, m in game.bet_modes.items() if m.prize_strips == mode]
        if prize:  # a prize mode's boards pay their coins in the feature: the mode's figure below holds them
            return (f"prize mode {', '.join(prize)}: one board of its strips as a line spin would pay it (its coins: the "
                    "mode's figure below),")
        if game.game_module == "free_spins" and mode == game.features.get("free_spins_mode"):
            # a declared free spin pays its screen x the feature's multiplier, with its wilds: the exact PAR is the screen
            return f"mode {mode}, one free spin's screen before the feature's multiplier and wilds,"
        return f"mode {mode}, per {'free ' if 'free' in mode else ''}spin"

    def _headline(self, rtp: float, delta: str) -> str:
        exact, reason = self.exact_whole()
        self.whole_button.layout.display = "none" if exact or not self.show_whole_button else ""
        if exact and self.mode == "base":
            self.whole_rtp = (rtp, 0.0, False)
            return (f"<span style='font-size:120%'>Whole game RTP (exact) <b class='wb-rtp-value wb-whole-rtp'>{100 * rtp:.4f} %"
                    f"</b>{delta}</span><br><span class='wb-base-part'>base game = whole game: {html.escape(reason)}</span>"
                    + self._expectations_line(True))
        part = (f"<span class='wb-base-part'>{html.escape(self._part_label().capitalize())} RTP (exact) "
                f"<b class='wb-rtp-value'>{100 * rtp:.4f} %</b>{delta}</span>")
        whole = self._whole()
        if whole is None:
            self.whole_rtp = None
            head = ("<span style='font-size:120%'>Whole game RTP <b class='wb-whole-rtp'>not estimated</b></span> "
                    f"— press <b>{html.escape(self.estimate_control)}</b> (exact base game + conditional simulation of the features)")
        else:
            value, ci, stale = whole
            terms = self.feature_terms
            covers = self.session.game.exact_part
            how = f"exact {covers} + feature terms held from the estimate"
            if terms.jackpot_rtp:  # [jackpots.*]: their long-run return, fed by every wager, outside the pays
                how += f", must-drop jackpots {100 * terms.jackpot_rtp:.4f} % (analytic) included"
            if stale and terms.moves_with_base_strips:
                # the held part moves with every stop: the current strips' figure would mix the new exact part with an
                # old simulated one, so the figure shown is the estimate's own, for the strips before the edit
                if self._terms_value is None:
                    from ..tuning import measure

                    try:
                        self._terms_value = measure(self._terms_game, "base", terms, strata=True, quick=True)["rtp"]
                    except WorkbenchError:
                        self._terms_value = False
                if self._terms_value is not False:
                    value, how = self._terms_value, "estimated for the strips before the edit"
            self.whole_rtp = (value, ci, stale)
            what = ("the simulated " + ", ".join(f"'{n}'" for n in terms.moves_with_base_strips) + " part moves with every "
                    "stop and table, and an edit changed one" if terms.moves_with_base_strips else
                    "an edit touched the features")
            mark = (f" <b class='wb-stale' style='color:#a50e0e'>stale: {what} since the estimate — estimate again</b>"
                    if stale else "")
            grey = " style='color:#888'" if stale else ""  # a stale figure must not look as good as a fresh one
            head = (f"<span style='font-size:120%'>Whole game RTP <b class='wb-whole-rtp'{grey}>{100 * value:.4f} % ± {100 * ci:.4f} %"
                    f"</b></span> (95 %; {how}, seed {terms.seed}, {terms.samples:,} rounds){mark}")
        return f"{head}<br>{part}{self._modes_line()}{self._choices_line()}{self._expectations_line(False)}"

    def _expectations_line(self, exact: bool) -> str:
        """The base game's declared RTP and hit frequency ([expectations]) as met or missed beside the live figures:
        exact when the exact PAR is the whole game, else the RTP of a fresh whole-game estimate; the rest needs the
        simulation (``workbench check``)."""
        from ..report.expectations import FIGURES, live_verdicts

        game = self.session.game
        if self.current_par is None or self.mode != "base" or game.expectation("base") is None:
            return ""
        colours = {"met": "#137333", "missed": "#a50e0e", "not shown": "#888"}
        parts = [f"{html.escape(FIGURES[figure].split(' (')[0])} {html.escape(declared)}: {html.escape(measured)} "
                 f"<b class='wb-expectation' data-figure='{figure}' data-verdict='{verdict}' "
                 f"style='color:{colours[verdict]}'>{verdict}</b>"
                 for figure, declared, measured, verdict in live_verdicts(game, self.current_par.sheet, exact,
                                                                          self.whole_rtp)]
        return ("<br><span class='wb-expectations'>Declared expectations (base game): " + "; ".join(parts)
                + "</span>") if parts else ""

    def _modes_line(self) -> str:
        """Every declared bet mode's RTP, x its own cost: the exact first screen of its strips plus its feature terms
        held from the last estimate (a buy mode: its bought feature alone); greyed when an edit made them stale."""
        game = self.session.game
        if not game.bet_modes:
            return ""
        from ..simulate.results import MODE_RTP_BAND, gap_text, mode_gap
        from ..tuning import measure

        whole = self._whole()
        base = whole[0] if whole is not None else (self.current_par.value("rtp") if self.current_par is not None else None)
        parts = []
        for name, mode in game.bet_modes.items():
            cost = float(mode.cost)
            terms = self.mode_terms.get(name)
            label = f"<b>{html.escape(name)}</b> (cost {cost:g} x total bet)"
            if terms is None:
                parts.append(f"{label} not estimated")
                continue
            try:
                value = measure(game.in_bet_mode(name), "base", terms, strata=True, quick=True)["rtp"]
            except WorkbenchError as exc:
                parts.append(f"{label} not available ({html.escape(str(exc))})")
                continue
            # measure() and the held terms are x the mode's own cost already
            ci = f" ± {100 * terms.ci95:.4f} %" if terms.present else " (exact)"
            if base is not None:  # a mode far from the base game's RTP is flagged (operators expect one narrow band)
                gap, outside = mode_gap(value, base, MODE_RTP_BAND)
                ci += (f" <b class='wb-mode-gap' style='color:#a50e0e'>({html.escape(gap_text(gap, outside))} against the "
                       f"base game)</b>" if outside else f" ({html.escape(gap_text(gap, outside))} against the base game)")
            if terms.present and self._stale(terms, game, name):
                parts.append(f"{label} <span class='wb-mode-rtp' style='color:#888'>{100 * value:.4f} %{ci}</span> "
                             "<b class='wb-stale-mode' style='color:#a50e0e'>stale</b>")
            else:
                parts.append(f"{label} <span class='wb-mode-rtp'>{100 * value:.4f} %{ci}</span>")
        return "<br><span class='wb-bet-modes'>Bet modes, RTP x each mode's own cost: " + "; ".join(parts) + "</span>"

    def _choices_line(self) -> str:
        """Every option of every player choice, played always: its whole-game RTP from the current exact part and the
        feature terms held from its last estimate (the played option's is the headline); greyed when stale."""
        game = self.session.game
        if not game.choices:
            return ""
        from ..tuning import measure

        whole = self._whole()
        lines = []
        for name, choice in game.choices.items():
            parts = []
            for option in choice.options:
                if option == choice.played:
                    shown = f"{100 * whole[0]:.4f} %" if whole is not None else "not estimated"
                    parts.append(f"<b>{html.escape(option)}</b> (played) {shown}")
                    continue
                terms = self.choice_terms.get((name, option))
                if terms is None:
                    parts.append(f"<b>{html.escape(option)}</b> not estimated")
                    continue
                try:
                    value = measure(game.with_choice(name, option), "base", terms, strata=True, quick=True)["rtp"]
                except WorkbenchError as exc:
                    parts.append(f"<b>{html.escape(option)}</b> not available ({html.escape(str(exc))})")
                    continue
                stale = terms.present and self._stale(terms, game)
                grey = " style='color:#888'" if stale else ""
                mark = " <b class='wb-stale-choice' style='color:#a50e0e'>stale</b>" if stale else ""
                parts.append(f"<b>{html.escape(option)}</b> <span class='wb-choice-rtp'{grey}>{100 * value:.4f} % "
                             f"± {100 * terms.ci95:.4f} %</span>{mark}")
            lines.append(f"<br><span class='wb-choices'>Player choice {html.escape(name)}, RTP if the player always "
                         "picks: " + "; ".join(parts) + "</span>")
        return "".join(lines)

    def _whole(self):
        """(whole-game RTP, 95 % half-width, stale) with the held feature terms, or None before an estimate."""
        if self.feature_terms is None:
            return None
        from ..tuning import measure

        game = self.session.game
        try:
            value = measure(game, "base", self.feature_terms, strata=True, quick=True)["rtp"]
        except WorkbenchError:
            return None
        return value, self.feature_terms.ci95, self._stale(self.feature_terms, game)

    def estimate_whole(self, precision: float = AUTO_ESTIMATE_PRECISION, max_seconds: float | None = None) -> None:
        """Estimate the feature terms of the current version (exact + conditional) and refresh the headline."""
        from ..tuning import FeatureTerms

        game = self.session.game
        self.whole_button.disabled = True
        try:
            self.set_feature_terms(FeatureTerms.estimate(game, precision, 1, max_seconds=max_seconds), game)
            # and every declared bet mode's, to the same precision x its cost
            self.mode_terms = {name: FeatureTerms.estimate(game.in_bet_mode(name), precision, 1, max_seconds=max_seconds)
                               for name in game.bet_modes}
            # and every other option of every player choice ([choices.*]), the same way
            self.choice_terms = {(name, option): FeatureTerms.estimate(game.with_choice(name, option), precision, 1,
                                                                       max_seconds=max_seconds)
                                 for name, choice in game.choices.items() for option in choice.options
                                 if option != choice.played}
        except WorkbenchError as exc:
            self.show_error(f"Whole-game estimate failed: {exc}")
        finally:
            self.whole_button.disabled = False
        self.recompute()

    def set_feature_terms(self, terms, game: Game) -> None:
        """Hold ``terms`` (estimated for ``game``) for the headline."""
        self.feature_terms, self._terms_game = terms, game
        self._terms_value = None  # the held terms' whole-game figure for that game (computed when first shown)

    def _stale(self, terms, game: Game, mode: str | None = None) -> bool:
        """Whether an edit since the estimate touched what held ``terms`` (of bet mode ``mode``; None: the base game)
        depend on (:func:`feature_parts`; the base strips too when a held mean moves with them, as a tumble's
        cascades do)."""
        if self._terms_game is None:
            return False
        moving = bool(terms.moves_with_base_strips)
        return feature_parts(game, moving, mode) != feature_parts(self._terms_game, moving, mode)

    def _auto_estimate(self) -> None:
        """On opening a game with features: estimate its feature terms within :data:`AUTO_ESTIMATE_SECONDS`."""
        self.feature_terms = self._terms_game = None
        self.mode_terms = {}
        self.choice_terms = {}
        if self.auto_estimate and (not self.exact_whole()[0] or self.session.game.bet_modes):
            self.estimate_whole(max_seconds=AUTO_ESTIMATE_SECONDS)

    # -- edits ---------------------------------------------------------------
    def commit(self, make_game, what: str) -> bool:
        """Apply an edit: ``make_game()`` returns the new game or raises :class:`ReelsetError`.

        A valid edit becomes the current version, the display is refreshed and
        ``what`` is reported; an invalid one is only reported.  Returns True if
        the edit was applied.
        """
        start = time.perf_counter()
        try:
            game = make_game()
        except ReelsetError as exc:
            self.show_error(f"Not applied — {what}:\n{exc}")
            return False
        self.session.apply(game)
        self.refresh()
        self.last_latency = time.perf_counter() - start
        if self.current_par is None:
            self.show_error(f"{what}. {self._state()}\n{self.last_error}")
        else:
            self.show_info(f"{what}. {self._state()}")
            self.timing.value += f" · edit → display {1000 * self.last_latency:.0f} ms"
        return True

    def _can_undo(self) -> bool:
        """Whether Undo has something to do (subclasses add rejected input still shown in their boxes)."""
        return self.session.can_undo

    def _state(self) -> str:
        return "Unsaved changes." if self.session.dirty else "Same as the saved file."

    def undo(self) -> None:
        if not self.session.undo():
            self.show_info("Nothing to undo.")
            return
        self.refresh()
        self.show_info(f"Undone. {self._state()}")

    def save(self) -> None:
        """Validate and write the file; show the diff (nothing is written if invalid)."""
        try:
            saved = self.session.save()
        except ReelsetError as exc:
            self.show_error(f"Not saved:\n{exc}")
            return
        self._saved_par.clear()
        self.last_diff = saved.diff
        changed = sum(1 for line in saved.diff.splitlines() if line.startswith("+") and not line.startswith("+++"))
        self.diff.value = f"<b>Last save</b> — {html.escape(str(saved.path))}{diff_html(saved.diff)}"
        self.refresh()
        self.show_info(f"Saved {saved.path} ({changed} line(s) changed)." if saved.diff else f"Nothing to save: {saved.path} is unchanged.")

    def save_as(self, path: str | os.PathLike) -> bool:
        """Write the current version to the new file ``path`` (validated, atomic) and edit that file from now on.

        Refused (with a message) for an empty path or an existing file other
        than the one being edited, so no file is overwritten by mistake.
        """
        if not str(path).strip():
            self.show_error("Not saved: give the path of the new file in 'save as'.")
            return False
        target = Path(path).expanduser()
        if target.suffix != ".toml":
            target = target.with_suffix(".toml")
        if target.exists() and target.resolve() != self.session.path.resolve():
            self.show_error(f"Not saved: {target} already exists. Choose another name, or open it to edit it.")
            return False
        try:
            saved = save_game(self.session.game, target)
            session = EditSession(target)
        except (ReelsetError, OSError) as exc:
            self.show_error(f"Not saved:\n{exc}")
            return False
        self.session = session
        self._saved_par.clear()
        self.last_diff = saved.diff
        self.diff.value = f"<b>Saved as</b> — {html.escape(str(target))}"
        self.reelset_box.value = str(target)
        self.refresh()
        self.show_info(f"Saved as {target}; now editing it (the original file is unchanged).")
        return True

    def reload(self) -> None:
        try:
            self.session.reload()
        except ReelsetError as exc:
            self.show_error(f"Not reloaded:\n{exc}")
            return
        self._saved_par.clear()
        self.refresh()
        self.show_info(f"Reloaded {self.session.path}.")

    def open(self, reelset: str | os.PathLike | Game) -> bool:
        """Edit another reelset (refused while there are unsaved changes); True if opened."""
        if self.session.dirty:
            self.show_error(f"Not opened: {self.session.path} has unsaved changes. Save them, or Reload to drop them, first.")
            return False
        try:
            session = EditSession(reelset)
        except (WorkbenchError, ValueError) as exc:
            self.show_error(f"Not opened:\n{exc}")
            return False
        self.session = session
        self._saved_par.clear()
        self.last_diff = ""
        self.diff.value = ""
        self.rebuild()
        self._auto_estimate()
        self.refresh()
        self.reelset_box.value = str(session.path)
        self.show_info(f"Opened {session.path}.")
        return True

    def rebuild(self) -> None:
        """Rebuild the controls that depend on the game's structure (subclasses)."""

    def refresh(self) -> None:
        """Show the current version (subclasses extend this)."""
        game = self.session.game
        from ..report.game_tables import pay_rule_text

        rows = "/".join(str(r) for r in game.rows) + (" (the most; heights drawn per spin)" if game.heights else "")
        self.title.value = (f"<h3 style='margin:4px 0'>{html.escape(game.name)} <small>{html.escape(str(self.session.path))}</small></h3>"
                            f"<div class='wb-rule'>{game.reels} reels x {html.escape(rows)} rows · "
                            f"{html.escape(pay_rule_text(game))}</div>")
        self.undo_button.disabled = not self._can_undo()
        self.recompute()
