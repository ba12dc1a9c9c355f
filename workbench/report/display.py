"""Display in the notebook: figures as embedded PNG images with alt text, tables as formatted HTML with a caption.

Tables are rendered with the pandas Styler: the index (when it carries
labels) becomes the first column, no index-name header row is printed,
numbers get thousands separators, and cells never show Python literals.
"""

from __future__ import annotations

import base64
import io
import math
import numbers
from html import escape

import pandas as pd


def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure as PNG bytes (no timestamp in the metadata)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def figure_alt(fig) -> str:
    """An alt text for a figure built from what it shows: its title, each plot's title and axis labels."""
    parts = []
    suptitle = getattr(fig, "_suptitle", None)
    if suptitle is not None and suptitle.get_text().strip():
        parts.append(suptitle.get_text().strip())
    for ax in fig.get_axes():
        title = ax.get_title().strip()
        x, y = ax.get_xlabel().strip(), ax.get_ylabel().strip()
        text = title
        if x or y:
            axes = " against ".join(t for t in (y, x) if t)
            text = f"{title}: {axes}" if title else axes
        if text and text not in parts:
            parts.append(text)
    # titles wrapped to the figure's width hold line breaks: the alt text is one line
    return "Chart: " + " ".join("; ".join(parts).split()) if parts else "Chart"


def figure_html(fig, alt: str | None = None, dpi: int = 100) -> str:
    """A figure as an HTML ``<img>`` with the PNG embedded (base64) and an alt text."""
    data = base64.b64encode(figure_png(fig, dpi)).decode("ascii")
    text = alt or figure_alt(fig)
    return f'<img src="data:image/png;base64,{data}" alt="{escape(text, quote=True)}" title="{escape(text, quote=True)}">'


def show(fig, alt: str | None = None) -> None:
    """Display a figure in the notebook as an embedded PNG image with an alt text (``alt``, else one
    derived from the figure's titles and axis labels); the figure is closed afterwards."""
    from IPython.display import display

    png = figure_png(fig)
    text = alt or figure_alt(fig)
    data = base64.b64encode(png).decode("ascii")
    img = f'<img src="data:image/png;base64,{data}" alt="{escape(text, quote=True)}" title="{escape(text, quote=True)}">'
    # HTML (with the alt text) for nbconvert and the browser; the PNG too, for tools reading image outputs
    display({"text/html": img, "image/png": data, "text/plain": text}, raw=True,
            metadata={"image/png": {"alt": text}})
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # a figure not managed by pyplot
        pass


def _cell(v) -> str:
    """A cell's text: thousands separators for numbers, no Python literals for containers."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, numbers.Integral):
        return f"{int(v):,}"
    if isinstance(v, numbers.Real):
        x = float(v)
        if not math.isfinite(x):
            return "n/a"
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        if x != 0 and abs(x) < 1e-4:
            import numpy as np

            return np.format_float_positional(x, precision=5, unique=False, fractional=False, trim="-")
        return f"{x:,.4f}".rstrip("0").rstrip(".")
    if isinstance(v, dict) or hasattr(v, "items"):
        return "; ".join(f"{_cell(k)}: {_cell(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple, set, frozenset)):
        return ", ".join(_cell(x) for x in v)
    return str(v)


_TABLES = 0  # tables rendered so far in this process (HTML ids)


def table_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The table as shown: a labelled index becomes the first column(s), every cell is text."""
    out = df.copy()
    named = [n for n in (out.index.names or []) if n is not None]
    if named or not isinstance(out.index, pd.RangeIndex):
        out = out.reset_index()
        out.columns = ["" if str(c) in ("index", "level_0") else c for c in out.columns]
    out.columns = [" ".join(map(str, c)).strip() if isinstance(c, tuple) else str(c) for c in out.columns]
    return pd.DataFrame({i: [_cell(v) for v in out.iloc[:, i]] for i in range(out.shape[1])}).set_axis(
        list(out.columns), axis=1)


def table_html(df: pd.DataFrame) -> str:
    """HTML of a table: no index column, no index-name row, cells formatted by :func:`_cell`."""
    shown = table_frame(df)
    global _TABLES
    _TABLES += 1
    uuid = f"wb{_TABLES}"  # the n-th table of a notebook run: the same report gives the same HTML ids
    styler = shown.style.hide(axis="index").set_uuid(uuid).set_table_attributes('class="dataframe wb-table"')
    # right-align columns that hold numbers (a leading digit, sign, "1 in" or "±")
    num = r"[-+−]?[\d.,]+(?: ?%|x)?"
    pattern = rf"^(?:{num}(?: – {num})?|1 in [\d.,]+|± [\d.,]+ %|exact|n/a|never|-|)$"
    numeric = {i for i in range(shown.shape[1]) if len(shown) and shown.iloc[:, i].str.fullmatch(pattern).all()}
    # labels and words left, numbers right (one CSS rule per column)
    styles = [{"selector": "th", "props": [("text-align", "left")]}]
    styles += [{"selector": f"td.col{i}, th.col_heading.col{i}",
                "props": [("text-align", "right" if i in numeric else "left")]} for i in range(shown.shape[1])]
    styler = styler.set_table_styles(styles)
    return styler.to_html()


def show_table(df: pd.DataFrame, caption: str | None = None, empty: str = "none") -> None:
    """Display a table (as HTML) with an optional caption, or the note ``empty`` when it has no rows."""
    from IPython.display import HTML, display

    if caption:
        display(HTML(f"<p><b>{escape(caption)}</b></p>"))
    if df is None or not len(df):
        display(HTML(f"<p><i>{escape(empty)}</i></p>"))
        return
    display(HTML(table_html(df)))


def show_note(text: str | None) -> None:
    """Display a paragraph of explanation (nothing for None)."""
    from IPython.display import HTML, display

    if text:
        display(HTML(f"<p>{escape(text)}</p>"))
