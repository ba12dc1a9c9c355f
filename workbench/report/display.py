"""Display in the notebook: figures as embedded PNG images, tables as HTML with a caption."""

from __future__ import annotations

import io

import pandas as pd


def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure as PNG bytes (no timestamp in the metadata)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def show(fig) -> None:
    """Display a figure in the notebook as an embedded PNG image."""
    from IPython.display import Image, display

    display(Image(data=figure_png(fig), format="png"))


def show_table(df: pd.DataFrame, caption: str | None = None, empty: str = "none") -> None:
    """Display a table (as HTML) with an optional caption, or the note ``empty`` when it has no rows."""
    from html import escape

    from IPython.display import HTML, display

    if caption:
        display(HTML(f"<p><b>{escape(caption)}</b></p>"))
    if df is None or not len(df):
        display(HTML(f"<p><i>{escape(empty)}</i></p>"))
        return
    with pd.option_context("display.max_colwidth", None, "display.max_rows", None, "display.max_columns", None,
                           "display.width", None):
        display(df)
