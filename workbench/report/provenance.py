"""Provenance of a report: game file hash, file-name stem, versions, inputs, date and machine; the heading."""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..io import render_text
from .formats import fmt_money
from .computations import report_stakes


def sha256_file(path) -> str:
    """SHA-256 of a file's bytes (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def game_stem(game) -> str:
    """File-name stem of a game's reports: its reelset file name, else a slug of its name."""
    if getattr(game, "path", None):
        return Path(game.path).stem
    return "".join(c if c.isalnum() else "_" for c in game.name.lower()).strip("_") or "game"


# ---------------------------------------------------------------------------
# provenance
# ---------------------------------------------------------------------------
def provenance(game, *, seed: int, spins: int, precision: float, stakes=None, sim_precision: float | None = None) -> dict:
    """Where the report's numbers come from: game file hash, versions, inputs, date and machine.  With
    ``sim_precision`` the end-to-end run is sized by precision: ``spins`` is then set to the rounds it played once it
    ran (the report notebook does)."""
    import numba
    import scipy

    path = Path(game.path) if game.path else None
    return {
        "game": game.name,
        "game_file": path.name if path else None,
        "game_sha256": sha256_file(path) if path else hashlib.sha256(render_text(game).encode()).hexdigest(),
        "workbench_version": __version__,
        "seed": int(seed),
        "spins": int(spins),
        "sim_precision": None if sim_precision is None else float(sim_precision),
        "precision": float(precision),
        "stakes": report_stakes(game, stakes),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": f"{platform.node()} ({platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs)",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "pandas": pd.__version__,
    }


def _provenance_value(key: str, v) -> str:
    """A provenance value as text: thousands separators, the precision also in percent, no Python literals."""
    if isinstance(v, list):
        return ", ".join(fmt_money(float(s)) for s in v) or "none (the game's stake ladder, if any)"
    if v is None:
        return "-"
    if key == "precision":
        return f"{v:g} (± {100 * v:.3f} % of the total bet, 95 %)"
    if key == "sim_precision":
        return f"rounds sized to confirm the RTP to ± {100 * v:.3f} % (95 %), from the RTP estimate's std"
    if key == "spins":
        return f"{int(v):,} rounds"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def provenance_table(prov: dict) -> pd.DataFrame:
    labels = {"game_sha256": "game file SHA-256", "workbench_version": "workbench version", "game_file": "game file",
              "spins": "simulated rounds", "precision": "RTP precision (95 % half-width)",
              "sim_precision": "end-to-end run",
              "stakes": "stake levels reported"}
    rows = [(labels.get(k, k.replace("_", " ")), _provenance_value(k, v)) for k, v in prov.items()]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def title_html(game, prov: dict) -> str:
    """The report's heading (HTML)."""
    from html import escape

    return (f"<h1>{escape(game.name)}: math report</h1>"
            f"<p>{escape(game.description or '')}</p>"
            f"<p><small>workbench {escape(prov['workbench_version'])} · seed {prov['seed']} · "
            + (f"end-to-end rounds sized to ± {100 * prov['sim_precision']:.3f} % · " if prov.get("sim_precision")
               else f"{prov['spins']:,} simulated rounds · ")
            + f"RTP precision ± {100 * prov['precision']:.3f} % · "
            f"game file SHA-256 <code>{prov['game_sha256']}</code> · {escape(prov['date'])}</small></p>")
