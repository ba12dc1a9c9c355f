"""Layout of the workbench's figures, measured with a renderer rather than guessed: titles wrapped to the figure's
width where they are anchored, bar labels kept inside their axes by widening the x limits, and the checker the
tests run over every figure the report draws (:func:`layout_problems`: every text inside the figure, bar labels
inside their axes, no two texts or legends overlapping, no legend over a line's markers)."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

# layout: titles wrapped to the figure, bar labels inside their axes, measured with a renderer
TEXT_PAD = 4.0  # pixels kept between a title or a bar label and the edge of the figure or axes


def _wrap_text(text, width: float, renderer) -> None:
    """Break ``text`` (a Text artist) at spaces so that each line is at most ``width`` pixels wide, measured."""
    original, wrapped = getattr(text, "_wrapped", (None, None))
    if text.get_text() == wrapped:  # wrapped before: wrap the text as it was set again
        text.set_text(original)
    if not text.get_text() or text.get_window_extent(renderer).width <= width:
        return
    original, lines = text.get_text(), []
    for paragraph in text.get_text().split("\n"):
        line = ""
        for word in paragraph.split(" "):
            text.set_text(f"{line} {word}" if line else word)
            if line and text.get_window_extent(renderer).width > width:
                lines.append(line)
                line = word
            else:
                line = text.get_text()
        lines.append(line)
    text.set_text("\n".join(lines))
    text._wrapped = (original, text.get_text())


def _fit_titles(fig, renderer) -> None:
    """Wrap the suptitle and every axes title so that it fits the figure's width where it is anchored."""
    for text in [fig._suptitle] + [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title)]:
        if text is None or not text.get_visible() or not text.get_text():
            continue
        x = text.get_transform().transform(text.get_position())[0]
        room = {"left": fig.bbox.width - x, "right": x}.get(text.get_horizontalalignment(),
                                                             2 * min(x, fig.bbox.width - x))
        _wrap_text(text, room - 2 * TEXT_PAD, renderer)


def _fit_bar_labels(ax, renderer, rounds: int = 8) -> None:
    """Widen the x limits until every data-anchored label (bar_label) lies inside the axes, either side: a label's
    extent in pixels from its anchor is fixed, the limits are solved in the axis' scaled coordinates (log too)."""
    labels = [t for t in ax.texts if getattr(t, "xycoords", None) == "data" and t.get_visible() and t.get_text()]
    scale = ax.xaxis.get_transform()
    for _ in range(rounds):
        lo, hi = scale.transform(np.array(ax.get_xlim(), float))
        width, span = ax.bbox.width, hi - lo
        new_lo, new_hi = lo, hi
        for t in labels:
            box, x = t.get_window_extent(renderer), float(t.xy[0])
            anchor = ax.transData.transform((x, float(t.xy[1])))[0]
            if not (np.isfinite(anchor) and np.isfinite(box.x0)):
                continue
            pos = scale.transform(np.array([x]))[0]
            right, left = (box.x1 - anchor + TEXT_PAD) / width, (anchor - box.x0 + TEXT_PAD) / width
            if right < 1:  # (pos - lo) / span' + right <= 1
                new_hi = max(new_hi, lo + (pos - lo) / (1 - right))
            if left < 1:  # (hi - pos) / span' + left <= 1
                new_lo = min(new_lo, hi - (hi - pos) / (1 - left))
        if new_hi - hi <= 1e-9 * span and lo - new_lo <= 1e-9 * span:
            return
        ax.set_xlim(scale.inverted().transform(np.array([new_lo, new_hi])))


def _finish(fig, bar_axes=()) -> Figure:
    """Lay out, wrap the titles, fit the bar labels of ``bar_axes``; twice (the new titles and ticks change the layout)."""
    renderer = fig.canvas.get_renderer() if hasattr(fig.canvas, "get_renderer") else fig._get_renderer()
    for _ in range(2):
        fig.draw_without_rendering()
        _fit_titles(fig, renderer)
        for ax in bar_axes:
            _fit_bar_labels(ax, renderer)
    return fig




def _drawn_texts(fig):
    """(what, Text, its axes or None) of every text the last draw showed: titles, axis and tick labels,
    annotations (bar labels) and plain texts; legends are boxes of their own (see :func:`layout_problems`)."""
    out = [("suptitle", fig._suptitle, None)] if fig._suptitle is not None else []
    out += [("figure text", t, None) for t in fig.texts if t is not fig._suptitle]
    for ax in (ax for ax in fig.axes if ax.get_visible()):
        out += [("title", t, ax) for t in (ax.title, ax._left_title, ax._right_title)]
        out += [("annotation" if hasattr(t, "xyann") else "text", t, ax) for t in ax.texts]
        for name, axis in [(n, a) for n, a in (("x", ax.xaxis), ("y", ax.yaxis)) if ax.axison and a.get_visible()]:
            out += [(f"{name} label", axis.label, ax), (f"{name} offset", axis.offsetText, ax)]
            out += [(f"{name} tick label", label, ax) for tick in axis._update_ticks()
                    for label in (tick.label1, tick.label2)]
    return [(what, t, ax) for what, t, ax in out if t.get_visible() and t.get_text().strip()]


def layout_problems(fig) -> list[str]:
    """What a reader would find cut off or overprinted in ``fig`` drawn with Agg, each naming the figure's title
    and the texts concerned; empty when nothing.  Every visible text (titles, axis and tick labels, bar labels,
    annotations) and legend lies inside the figure, annotations inside their axes; no two of them overlap (by
    more than 1 pixel); no legend hides a marker of its axes' lines."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    heads = [t.get_text() for what, t, _ in _drawn_texts(fig) if what in ("suptitle", "title")]
    name = " ".join((heads[0] if heads else "untitled figure").split())
    items = [(f"{what} {t.get_text()!r}", t.get_window_extent(renderer), ax, what == "annotation")
             for what, t, ax in _drawn_texts(fig)]
    legends = [(ax, ax.get_legend()) for ax in fig.axes] + [(None, lg) for lg in fig.legends]
    items += [("legend " + repr([t.get_text() for t in lg.get_texts()]), lg.get_window_extent(renderer), ax, False)
              for ax, lg in legends if lg is not None and lg.get_visible()]
    problems = []
    for label, box, ax, in_axes in items:
        if not np.all(np.isfinite(box.get_points())):
            problems.append(f"{name}: {label} has no place in the figure")
        elif not _contains(fig.bbox, box) or (in_axes and not _contains(ax.bbox, box)):
            where = f"x {box.x0:.0f}..{box.x1:.0f}, y {box.y0:.0f}..{box.y1:.0f} px"
            problems.append(f"{name}: {label} at {where} leaves the {'axes' if in_axes else 'figure'}")
    for i, (a, box_a, _, _) in enumerate(items):
        problems += [f"{name}: {a} overlaps {b}" for b, box_b, _, _ in items[i + 1:] if _overlap(box_a, box_b)]
    for ax, lg in ((ax, lg) for ax, lg in legends if lg is not None and ax is not None):
        box, marked = lg.get_window_extent(renderer), [ln for ln in ax.lines if ln.get_visible() and ln.get_marker()
                                                        not in (None, "", " ", "None", "none")]
        problems += [f"{name}: the legend hides markers of {ln.get_label()!r}" for ln in marked
                     if any(box.contains(x, y) for x, y in ln.get_transform().transform(ln.get_xydata()))]
    return problems


def _contains(outer, inner, slack: float = 0.5) -> bool:
    return min(inner.x0 - outer.x0, outer.x1 - inner.x1, inner.y0 - outer.y0, outer.y1 - inner.y1) >= -slack


def _overlap(a, b, slack: float = 1.0) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > slack and min(a.y1, b.y1) - max(a.y0, b.y0) > slack
