"""The round viewer: find a round of a seeded simulation, replay it and step through its screens.

A round is named by (game, seed, round index) and is the round ``workbench simulate GAME --seed S`` played
(:mod:`workbench.simulate.replay`); **Find** lists the rounds of a run that meet a condition (``max``,
``win >= 100``, ``free_spins:retriggers >= 3``), **Replay** plays one again and its steps (every screen, with the
round's total so far: :mod:`workbench.simulate.trace`) are drawn one at a time with **Previous** / **Next**.
"""

from __future__ import annotations

import html
import io

import ipywidgets as widgets

from ..errors import WorkbenchError


def _x(units, cost) -> str:
    return f"{float(units / cost):,.4f}".rstrip("0").rstrip(".")


class RoundViewer(widgets.VBox):
    """Find, replay and step through rounds of ``game`` (a shipped name or a reelset path) simulated with ``seed``
    over ``spins`` rounds; ``where``: the first search (``max``: the run's largest win); ``run``: search and replay
    the first round found at once."""

    def __init__(self, game: str = "super_10_stars", seed: int = 1, spins: int = 1_000_000, where: str = "max",
                 run: bool = True):
        self.game_box = widgets.Text(value=str(game), description="game", layout=widgets.Layout(width="340px"))
        self.seed = widgets.BoundedIntText(value=int(seed), min=0, max=2**63 - 1, description="seed",
                                           layout=widgets.Layout(width="200px"))
        self.spins = widgets.BoundedIntText(value=int(spins), min=1, max=10**10, description="spins",
                                            layout=widgets.Layout(width="220px"))
        self.where = widgets.Text(value=where, description="where", layout=widgets.Layout(width="340px"))
        self.where.add_class("wb-rv-where")
        self.find_button = widgets.Button(description="Find")
        self.find_button.add_class("wb-rv-find")
        self.found = widgets.Select(options=[], rows=6, description="rounds", layout=widgets.Layout(width="700px"))
        self.found.add_class("wb-rv-rounds")
        self.round = widgets.BoundedIntText(value=0, min=0, max=10**10, description="round",
                                            layout=widgets.Layout(width="220px"))
        self.replay_button = widgets.Button(description="Replay")
        self.replay_button.add_class("wb-rv-replay")
        self.prev_button = widgets.Button(description="Previous", disabled=True)
        self.prev_button.add_class("wb-rv-prev")
        self.next_button = widgets.Button(description="Next", disabled=True)
        self.next_button.add_class("wb-rv-next")
        self.step_label = widgets.HTML()
        self.step_label.add_class("wb-rv-step")
        self.summary = widgets.HTML()
        self.summary.add_class("wb-rv-summary")
        self.picture = widgets.Image(format="png", layout=widgets.Layout(display="none", max_width="760px"))
        self.picture.add_class("wb-rv-image")
        self.status = widgets.HTML()
        self.status.add_class("wb-rv-status")
        self.wins = widgets.HTML()
        self.wins.add_class("wb-rv-wins")
        self.replayed = None
        self.trace = None
        self.step = 0
        self._game = None
        self.find_button.on_click(lambda _: self.find())
        self.replay_button.on_click(lambda _: self.replay())
        self.prev_button.on_click(lambda _: self.show_step(self.step - 1))
        self.next_button.on_click(lambda _: self.show_step(self.step + 1))
        self.found.observe(self._picked, names="value")
        super().__init__([
            widgets.HTML("<h3>Round viewer</h3>"),
            widgets.HBox([self.game_box, self.seed, self.spins]),
            widgets.HBox([self.where, self.find_button]), self.found,
            widgets.HBox([self.round, self.replay_button, self.prev_button, self.next_button, self.step_label]),
            self.status, self.summary, self.wins, self.picture,
        ])
        if run:
            self.find()
            if self.found.options:
                self.replay()

    # ------------------------------------------------------------------
    def _load(self):
        from ..io import load_game

        name = self.game_box.value.strip()
        if self._game is None or self._game[0] != name:
            self._game = (name, load_game(name))
        return self._game[1]

    def _fail(self, exc: Exception) -> None:
        self.status.value = f"<pre class='wb-error' style='color:#a50e0e;white-space:pre-wrap'>{html.escape(str(exc))}</pre>"

    def find(self) -> None:
        """List the rounds of the run that meet ``where``."""
        from ..simulate.replay import find_rounds

        self.status.value = "<i>searching…</i>"
        try:
            found = find_rounds(self._load(), int(self.seed.value), int(self.spins.value), self.where.value, limit=200)
        except (WorkbenchError, OSError) as exc:
            self._fail(exc)
            return
        options = [(f"round {r.round:,}: {_x(r.win_units, r.cost_units)} {r.unit} ({r.happened()})", r.round)
                   for r in found.rounds]
        self.found.options = options
        searched = (f"all {found.spins:,} rounds" if found.complete
                    else f"the first {found.searched:,} rounds (the first {found.limit} matches)")
        self.status.value = f"{len(options):,} round(s) where <b>{html.escape(found.where)}</b> in {searched}"
        if options:
            self.found.value = options[0][1]

    def _picked(self, change) -> None:
        if change["new"] is not None:
            self.round.value = int(change["new"])

    def replay(self) -> None:
        """Play round ``round`` again, trace its screens and show the first."""
        from ..simulate.engine import round_model
        from ..simulate.replay import replay_round
        from ..simulate.trace import trace_round

        self.status.value = "<i>replaying…</i>"
        try:
            game = self._load()
            model = round_model(game)
            self.replayed = replay_round(game, int(self.seed.value), int(self.round.value), model=model)
            self.trace = trace_round(model, self.replayed)
        except (WorkbenchError, OSError) as exc:
            self._fail(exc)
            return
        r = self.replayed
        pays = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right;padding:1px 10px'>"
                       f"{_x(v, r.cost_units)}</td></tr>" for k, v in r.components.items() if v)
        counts = ", ".join(f"{html.escape(k)} {v:,}" for k, v in r.counters.items() if v)
        self.summary.value = (f"Round {r.round:,} of seed {r.seed}: win <b class='wb-rv-win'>{_x(r.win_units, r.cost_units)} "
                              f"{html.escape(r.unit)}</b>" + (f"; counted {counts}" if counts else "")
                              + (f"<table style='border-collapse:collapse'><tr><th>paid by</th><th>{html.escape(r.unit)}"
                                 f"</th></tr>{pays}</table>" if pays else ""))
        self.status.value = (f"replayed: the same round as <code>workbench replay {html.escape(self.game_box.value)} "
                             f"--seed {r.seed} --round {r.round}</code>")
        if not self.trace.steps:
            self.picture.layout.display = "none"
            self.step_label.value = "this round's screens were not recorded (its outcome is above)"
            self.prev_button.disabled = self.next_button.disabled = True
            return
        self.show_step(0)

    def show_step(self, k: int) -> None:
        """Draw step ``k`` (from 0) of the replayed round."""
        from ..plot_rounds import screen_figure, winning_cells

        steps = self.trace.steps
        self.step = max(0, min(int(k), len(steps) - 1))
        step = steps[self.step]
        r = self.replayed
        total = f"{_x(step.total_units, r.cost_units)} {r.unit}"
        figure = screen_figure(step, self._load(), total_text=total, of_steps=len(steps))
        png = io.BytesIO()
        figure.savefig(png, format="png", dpi=90)
        self.picture.value = png.getvalue()
        self.picture.layout.display = ""
        _, wins = winning_cells(self._load(), step.screen)
        shown = "; ".join(wins[:4]) + (f"; {len(wins) - 4} more" if len(wins) > 4 else "")
        self.step_label.value = f"step <b>{self.step + 1}</b> of {len(steps)} · total so far {total}"
        self.wins.value = f"paying on this screen (outlined; before multipliers): {html.escape(shown)}" if wins else ""
        self.prev_button.disabled = self.step == 0
        self.next_button.disabled = self.step == len(steps) - 1
