"""The report's data files: strict JSON, every number of the report, the PAR sheet as .xlsx/CSV/JSON."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..io.atomic import write_output
from .defaults import NONDETERMINISTIC_KEYS, PAR_TABLES, SESSION_BANKROLL, SESSION_SPINS, SESSIONS
from .formats import _frame
from .provenance import game_stem
from .tables import par_tables


def _strict(obj):
    """JSON-ready copy: NaN/inf -> None, numpy scalars -> Python, timing keys dropped."""
    if isinstance(obj, dict):
        return {str(k): _strict(v) for k, v in obj.items() if k not in NONDETERMINISTIC_KEYS}
    if isinstance(obj, (list, tuple)):
        return [_strict(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def to_json(data) -> str:
    """Strict JSON text (NaN/inf as null), keys in the library's order, no timings."""
    return json.dumps(_strict(data), indent=2, default=str) + "\n"


def report_data(sheet, est, sim, stake_results: dict, prov: dict, session_source=None, bet_modes=(),
                choices=None, compliance=None, features=None, modes=None, expectations=None) -> dict:
    """Every number of the report (no dates or timings): same inputs give identical data."""
    data = {
        "provenance": {k: v for k, v in prov.items() if k in ("game", "game_file", "game_sha256", "workbench_version", "seed",
                                                                "spins", "sim_precision", "precision", "stakes")},
        "par": sheet.to_dict(),
        "rtp_estimate": est.to_dict(),
        "stakes": [{"stake": s, **e.to_dict()} for s, e in stake_results.items()],
        "simulation": sim.to_dict() if sim is not None else None,
        "bet_modes": [m.to_dict() for m in bet_modes],
        "choices": {name: c.to_dict() for name, c in (choices or {}).items()},
    }
    if compliance is not None:  # report.compliance.ComplianceResult
        data["compliance"] = compliance.to_dict()
    if expectations is not None and expectations.verdicts:  # report.expectations.ExpectationResult
        data["expectations"] = expectations.to_dict()
    if modes is not None:  # report.modes.ModeSheet list: every mode's PAR figures
        from .modes import modes_data

        data["modes"] = modes_data(modes)
    if features is not None:  # simulate.feature_sample.FeatureStatistics
        from .feature_stats import feature_statistics_data

        data["feature_statistics"] = feature_statistics_data(features)
    if session_source is not None:
        from ..plots import session_percentiles

        df = session_percentiles(session_source, SESSION_SPINS, SESSION_BANKROLL, SESSIONS, prov["seed"])
        last = df.iloc[-1]
        data["sessions"] = {"spins": SESSION_SPINS, "bankroll": SESSION_BANKROLL, "sessions": SESSIONS, "seed": prov["seed"],
                            "final_balance_percentiles": {c: float(last[c]) for c in df.columns if c.startswith("p")},
                            "p_ahead": float(last["ahead"]), "p_broke": float(last["broke"])}
    return data


def output_paths(out_dir, stem: str) -> dict:
    """Where a report's files go (all inside ``out_dir``)."""
    out = Path(out_dir)
    return {
        "notebook": out / f"{stem}.ipynb",
        "html": out / f"{stem}.html",
        "xlsx": out / f"{stem}_par.xlsx",
        "par_json": out / f"{stem}_par.json",
        "report_json": out / f"{stem}_report.json",
        "csv": {name: out / f"{stem}_par_{name}.csv" for name in PAR_TABLES},
    }


def write_outputs(out_dir, game, sheet, data: dict, *, estimate=None, modes=None) -> dict:
    """Write the PAR sheet (.xlsx workbook, one CSV per table, JSON) and the report's numbers (JSON) into ``out_dir``.

    The workbook (:func:`~workbench.report.workbook.write_par_workbook`) gets the
    whole-game RTP from ``estimate`` (an ``RtpEstimate``), else from the
    report's ``data["rtp_estimate"]``, and the report's provenance; ``modes`` (the report's
    :func:`~workbench.report.modes.mode_sheets`) gives the per-mode PAR sheets without computing them again.
    """
    from .workbook import write_par_workbook

    paths = output_paths(out_dir, game_stem(game))
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    write_par_workbook(paths["xlsx"], game, sheet, estimate=estimate if estimate is not None else data.get("rtp_estimate"),
                       provenance=data.get("provenance"), bet_modes=data.get("bet_modes") or (),
                       compliance=data.get("compliance"), modes=modes, features=data.get("feature_statistics"),
                       expectations=data.get("expectations"))
    # each file made in memory and written atomically: a failure (disk full) names the file and leaves the previous one
    for name, df in par_tables(sheet).items():
        write_output(paths["csv"][name], df.to_csv(index=name in ("summary", "symbol_counts", "per_line")))
    write_output(paths["par_json"], to_json(sheet.to_dict()))
    write_output(paths["report_json"], to_json(data))
    return paths


def files_table(paths: dict) -> pd.DataFrame:
    """The data files written by :func:`write_outputs` (names only)."""
    rows = [{"file": paths[k].name, "contents": what} for k, what in (
        ("xlsx", "PAR workbook: summary (whole game and every mode), a PAR sheet per mode, one sheet per table, strips, "
                 "paytable, feature statistics, compliance checks, provenance"),
        ("par_json", "PAR sheet: every figure and table (JSON)"),
        ("report_json", "every number of this report (JSON)"))]
    rows += [{"file": p.name, "contents": f"PAR sheet table: {name.replace('_', ' ')} (CSV)"} for name, p in paths["csv"].items()]
    return _frame(rows, "file")


@dataclass
class ReportFiles:
    """The files of one report (all in ``out_dir``) and how long it took (s)."""

    out_dir: Path
    notebook: Path
    html: Path
    xlsx: Path
    par_json: Path
    report_json: Path
    csv: dict = field(default_factory=dict)
    game_file: Path | None = None
    elapsed: float = 0.0

    def all(self) -> list[Path]:
        return [self.notebook, self.html, self.xlsx, self.par_json, self.report_json, *self.csv.values()]
