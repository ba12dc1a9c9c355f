"""A round's screen drawn as a picture: the grid, one colour and label per symbol, wilds and scatters marked, the
cells of paid wins outlined in red.

Used by the round viewer (:class:`workbench.widgets.round_viewer.RoundViewer`) for the steps of a traced round
(:class:`workbench.simulate.trace.Step`).  Colours come from the game's symbol order, so a symbol keeps its colour
from step to step and round to round.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from .plot_layout import _finish

# a qualitative palette (matplotlib's tab20, light and dark alternated) for paying symbols
_PALETTE = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d",
            "#9edae5", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf"]
WILD_COLOUR = "#ffd700"
#: what the function that made a step did, in a designer's words (others: the function's name in words)
STEP_WORDS = {"spin_windows": "spin", "fill_screen": "screen", "expand_reel": "reel expanded", "collapse": "cascade",
              "apply_mask": "wilds held", "wild_reels": "wild reels", "cluster_pay_screen": "drop paid",
              "anywhere_pay_screen": "drop paid", "free_spins_feature": "free spin", "play_round": "respin",
              # rounds without a screen of their own: the trace's screens of their reel draws
              "ways.play_round": "spin", "ways.play_round_tables": "spin", "anywhere.play_round": "spin",
              "free_spins.spin_ways": "spin", "free_spins.play_round_ways": "bought trigger screen"}
SCATTER_COLOUR = "#6a3d9a"
#: the most paylines drawn on one screen (its largest line wins; every paying cell is outlined)
MOST_LINES = 10
#: the paylines of a screen's line wins, in turn
LINE_COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#e377c2"]


def symbol_colours(game) -> dict:
    """Symbol name -> fill colour: wilds gold, scatters and bonus symbols purple, the others by their file order."""
    out, k = {}, 0
    for name, sym in game.symbols.items():
        if sym.kind == "wild":
            out[name] = WILD_COLOUR
        elif sym.kind in ("scatter", "bonus"):
            out[name] = SCATTER_COLOUR
        else:
            out[name] = _PALETTE[k % len(_PALETTE)]
            k += 1
    return out


def winning_cells(game, screen) -> tuple[frozenset, list]:
    """(cells ``(reel, row)`` of the screen's paid wins, their words), from the pay rule's slow reference evaluator of
    a drop (``Rule.reference_drop_wins``: each paid win's pay in credits and its cells); a rule without one, or a screen
    of another shape than the rule reads (a held reel, rows that vary), marks nothing.  Pays are before multipliers."""
    from .reference.screens import paid_wins

    shown = [list(reel) for reel in screen]
    wins = paid_wins(game, shown)
    cells, words = set(), []
    for pay, paid_cells in wins:
        cells |= set(paid_cells)
        names = sorted({shown[r][row] for r, row in paid_cells})
        words.append(f"{len(paid_cells)} cells ({', '.join(names)}) pay {float(pay):g} credits")
    return frozenset(cells), words


def screen_figure(step, game, *, total_text: str, of_steps: int, width: float = 7.0) -> Figure:
    """The screen of ``step`` (reels left to right, rows from the top) with each cell's symbol; the title says which
    step of how many, what drew it and the round's total so far (``total_text``, with its unit)."""
    colours = symbol_colours(game)
    reels = len(step.screen)
    rows = max(len(reel) for reel in step.screen)
    from .reference.screens import paid_wins

    wins = paid_wins(game, step.screen)
    paying = {cell for _, cells in wins for cell in cells}
    fig = Figure(figsize=(width, max(2.2, width * rows / reels * 0.62 + 0.9)))
    ax = fig.add_subplot()
    for r, reel in enumerate(step.screen):
        for row, name in enumerate(reel):
            colour = colours.get(name, "#ffffff")
            y = rows - 1 - row
            wild = colour == WILD_COLOUR
            ax.add_patch(_cell(r, y, colour, wild, (r, row) in paying))
            dark = colour in (SCATTER_COLOUR,) or colour in _PALETTE[10:]
            label = name if len(name) <= 8 else name[:7] + "."
            ax.text(r + 0.5, y + 0.5, label, ha="center", va="center", fontsize=9 if reels <= 5 else 7 if reels <= 6 else 6,
                    fontweight="bold" if wild else "normal", color="white" if dark else "black")
    for r, row, m in getattr(step, "multipliers", ()):  # a multiplier the screen drew for a cell: a badge on it
        ax.text(r + 0.88, rows - 1 - row + 0.14, f"x{m}", ha="right", va="bottom", fontsize=8, fontweight="bold",
                color="white", bbox={"boxstyle": "round,pad=0.15", "facecolor": "#b22222", "edgecolor": "none"}, zorder=4)
    if getattr(game.rule, "paylines", False):  # a line win's cells, one per reel: its payline drawn through them
        largest = sorted(wins, key=lambda w: w[0], reverse=True)[:MOST_LINES]  # (more would hide the screen)
        for k, (_, cells) in enumerate(largest):
            path = sorted(cells)
            ax.plot([r + 0.5 for r, _ in path], [rows - 1 - row + 0.5 for _, row in path],
                    color=LINE_COLOURS[k % len(LINE_COLOURS)], linewidth=2.4, alpha=0.8, solid_capstyle="round", zorder=2.5)  # (under the labels)
    ax.set_xlim(0, reels)
    ax.set_ylim(0, rows)
    ax.set_aspect("equal")
    ax.set_xticks([r + 0.5 for r in range(reels)], [f"reel {r + 1}" for r in range(reels)], fontsize=8)
    ax.set_yticks([])
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    name = step.made_by.split(".")[-1]
    what = STEP_WORDS.get(step.made_by, STEP_WORDS.get(name, name.replace("_", " ")))
    ax.set_title(f"Step {step.index + 1} of {of_steps} ({what}): round total so far {total_text}", fontsize=10)
    return _finish(fig)


def _cell(x: int, y: int, colour: str, wild: bool, paying: bool):
    from matplotlib.patches import FancyBboxPatch

    edge = "#d62728" if paying else "#b8860b" if wild else "#555555"
    return FancyBboxPatch((x + 0.05, y + 0.05), 0.9, 0.9, boxstyle="round,pad=0,rounding_size=0.08",
                          facecolor=colour, edgecolor=edge, linewidth=3.2 if paying else 2.0 if wild else 0.8)
