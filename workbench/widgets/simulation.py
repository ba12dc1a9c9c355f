"""Simulation panel: run :func:`workbench.simulate.simulate` and watch the RTP converge.

The figure shows the running RTP after each chunk of spins inside the 95 %
funnel ``rtp ± VI(95 %) / sqrt(n)`` (VI = 1.96 x std of the win per spin, x
total bet) centred on the game's own RTP: the exact PAR sheet when it covers
the whole game (no features), else the exact + conditional estimate
(:func:`workbench.simulate.estimate_rtp`).  The volatility index quoted in the
text is the funnel's (95 %).
"""

from __future__ import annotations

import html
import io
import math
import os
import time

import ipywidgets as W
from matplotlib.figure import Figure

from ..errors import WorkbenchError
from ..model import Game
from ..io import load_game
from ..stats import z_value
from .panel import button, css_class
from .summary import exactness, header_row


def convergence_figure(result, reference=None) -> Figure:
    """Running RTP of ``result`` (a SimulationResult with its ``trace``) in its 95 % funnel.

    The funnel is ``rtp ± 1.96 x std / sqrt(n)`` (x total bet) of ``reference``
    (anything with ``rtp`` and ``volatility_index``, e.g. the exact PAR sheet
    of a game without features); default: the simulation result itself.
    Drawn by :func:`workbench.plots.rtp_funnel` over the spins of the trace.
    """
    from .. import plots

    trace = result.trace
    spins = (float(trace["spins"].min()), float(trace["spins"].max())) if trace is not None and len(trace) else (1_000, result.spins)
    return plots.rtp_funnel(reference if reference is not None else result, spins_range=spins, trace=trace)


class WidgetBar:
    """tqdm's interface (``update``, ``close``, ``refresh``, ``total``) on an ``ipywidgets.IntProgress``, so the
    simulator moves the panel's own bar instead of printing a text bar."""

    def __init__(self, bar: W.IntProgress):
        self.bar = bar
        self.n = 0

    @property
    def total(self) -> int:
        return self.bar.max

    @total.setter
    def total(self, value) -> None:
        self.bar.max = max(int(value or 0), 1)

    def update(self, n: int = 1) -> None:
        self.n += int(n)
        self.bar.value = min(self.n, self.bar.max)

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        pass


def exact_sheet(game: Game):
    """The exact PAR sheet if it covers everything the game pays (no features), else None."""
    from ..exact import par

    exact, _ = exactness(game)
    return par(game, full_cycle=False) if exact else None


class SimulationPanel:
    """Run a simulation of a reelset and show RTP, components and the convergence funnel.

    ``game``: shipped name, path or loaded game; ``spins``, ``seed``,
    ``workers``; ``points``: about how many points the convergence trace gets
    (the run is split into chunks of ``spins / points`` spins, at least
    1000).  :meth:`run` does what the Run button does; ``result`` then holds
    the :class:`~workbench.simulate.SimulationResult` and ``figure`` the
    convergence figure.
    """

    def __init__(self, game: str | os.PathLike | Game = "classic_tens", *, spins: int = 200_000, seed: int = 1,
                 workers: int = 1, points: int = 50, reference_precision: float = 0.002):
        self._game = game if isinstance(game, Game) else None
        label = str(game.path or game.name) if isinstance(game, Game) else str(game)
        self.result = None
        self.figure: Figure | None = None
        self.exact = None  # exact PAR sheet when it covers the whole game
        self.reference = None  # what the funnel is centred on: the exact sheet, or the exact + conditional estimate
        self.reference_precision = reference_precision
        self.game_box = css_class(W.Text(value=label, description="game", layout=W.Layout(width="420px"),
                                         disabled=isinstance(game, Game)), "wb-sim-game")
        self.spins = css_class(W.BoundedIntText(value=spins, min=1, max=10**13, description="spins"), "wb-sim-spins")
        self.seed = css_class(W.BoundedIntText(value=seed, min=0, max=2**63 - 1, description="seed"), "wb-sim-seed")
        self.workers = css_class(W.BoundedIntText(value=workers, min=1, max=max(os.cpu_count() or 1, 1) * 4, description="workers"),
                                 "wb-sim-workers")
        self.points = css_class(W.BoundedIntText(value=points, min=1, max=10_000, description="points"), "wb-sim-points")
        self.run_button = button("Run", "run", "play", "Run the simulation", "primary")
        self.run_button.on_click(lambda _: self.run())
        self.progress = css_class(W.IntProgress(value=0, min=0, max=1, description="spins", bar_style="",
                                                layout=W.Layout(width="420px")), "wb-progress")
        self.status = css_class(W.HTML(), "wb-status")
        self.results = css_class(W.HTML(), "wb-sim-results")
        self.log = W.Output()  # the simulator's own text progress bar goes here while it runs
        self.plot = css_class(W.Image(format="png", layout=W.Layout(max_width="900px", display="none")), "wb-sim-plot")
        self.widget = W.VBox([
            W.HBox([self.game_box, self.spins, self.seed], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.workers, self.points, self.run_button], layout=W.Layout(align_items="center", flex_flow="row wrap")),
            self.progress, self.log, self.status, self.results, self.plot,
        ])

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    def game(self) -> Game:
        """The game to simulate (loaded from the game box unless a Game was given)."""
        return self._game if self._game is not None else load_game(self.game_box.value.strip())

    def chunk_size(self) -> int:
        """Spins per chunk: one trace point each (a whole number of the simulator's blocks above one block)."""
        from ..simulate.lanes import SIMULATE_BLOCK

        size = max(1000, math.ceil(int(self.spins.value) / max(int(self.points.value), 1)))
        return size if size < SIMULATE_BLOCK else size // SIMULATE_BLOCK * SIMULATE_BLOCK

    def run(self) -> None:
        """Simulate ``spins`` rounds and show RTP ± 95 % CI, components and the convergence funnel."""
        from ..simulate import simulate

        spins = int(self.spins.value)
        self.run_button.disabled = True
        self.progress.max, self.progress.value, self.progress.bar_style = spins, 0, "info"
        self.progress.description = "running"
        self.status.value = "<i>simulating…</i>"
        # a new run: nothing of the last one stays on screen
        self.result = self.figure = self.exact = self.reference = None
        self.results.value = ""
        self.plot.layout.display = "none"
        self.log.clear_output()
        start = time.perf_counter()
        try:
            game = self.game()
            with self.log:
                result = simulate(game, spins, int(self.seed.value), workers=int(self.workers.value),
                                  chunk_size=self.chunk_size(), progress=WidgetBar(self.progress))
            self.exact = exact_sheet(game)
            if self.exact is not None:
                self.reference = self.exact
            else:
                from ..simulate import estimate_rtp

                self.status.value = "<i>estimating the exact + conditional RTP the funnel is centred on…</i>"
                self.reference = estimate_rtp(game, self.reference_precision, int(self.seed.value),
                                              workers=int(self.workers.value), max_seconds=60.0)
        except (WorkbenchError, OSError) as exc:
            self.progress.bar_style, self.progress.description = "danger", "failed"
            self.status.value = f"<pre class='wb-error' style='color:#a50e0e;white-space:pre-wrap'>{html.escape(str(exc))}</pre>"
            return
        finally:
            self.run_button.disabled = False
        self.log.clear_output()
        self.result = result
        self.progress.value = result.spins
        self.progress.bar_style, self.progress.description = ("warning", "stopped") if result.interrupted else ("success", "done")
        self.status.value = (f"{result.spins:,} spins of <b>{html.escape(game.name)}</b> in {time.perf_counter() - start:.2f} s "
                             f"({result.spins_per_second:,.0f} spins/s), seed {result.seed}")
        self._show_result(game, result)

    def _funnel_vi(self) -> str:
        if self.reference is None:
            return " (the funnel's band: RTP ± VI / √n)"
        source = "exact" if self.reference is self.exact else "exact + conditional"
        return f", {self.reference.volatility_index(0.95):.3f} {source} (the funnel's band: RTP ± VI / √n)"

    def _show_result(self, game: Game, result) -> None:
        rows = "".join(
            f"<tr><td>{html.escape(k)}</td><td style='text-align:right;padding:1px 10px'>{100 * e.value:.4f} %</td>"
            f"<td style='text-align:right;padding:1px 10px'>± {100 * e.ci95:.4f} %</td></tr>"
            for k, e in result.components.items()
        )
        exact = ""
        if self.exact is not None:
            z = (result.rtp - self.exact.rtp) / (result.rtp_ci95 / z_value(0.95)) if result.rtp_ci95 else 0.0
            exact = (f"<br>exact RTP <span class='wb-exact-rtp'>{100 * self.exact.rtp:.4f} %</span> "
                     f"(simulation off by {z:+.2f} standard errors); the funnel is centred on it")
        elif self.reference is not None:
            ref = self.reference
            exact = (f"<br>exact + conditional RTP <span class='wb-reference-rtp'>{100 * ref.rtp:.4f} % ± "
                     f"{100 * ref.rtp_ci95:.4f} %</span> (95 %, seed {ref.seed}); the funnel is centred on it")
        self.results.value = (
            f"RTP <b class='wb-sim-rtp'>{100 * result.rtp:.4f} % ± {100 * result.rtp_ci95:.4f} %</b> (95 %, whole game, "
            f"x total bet){exact}<br>"
            f"hit frequency {100 * result.hit_frequency:.4f} % · volatility index 95 % {result.volatility_index(0.95):.3f} "
            f"simulated{self._funnel_vi()} · max win {result.max_win:,.2f} x total bet"
            f"<table style='border-collapse:collapse'>{header_row('component', 'RTP', '95 % CI')}{rows}</table>"
        )
        self.figure = convergence_figure(result, self.reference)
        png = io.BytesIO()
        self.figure.savefig(png, format="png", dpi=100)
        self.plot.value = png.getvalue()
        self.plot.layout.display = ""
