"""Every notebook in notebooks/ runs headless (papermill) with small parameters, and is stored clean.

Outputs go to tmp_path; the source notebooks and the shipped reelsets must be
left exactly as they were.  Parameters are taken from SMALL (plus the
per-notebook ones) only when the notebook's ``parameters`` cell declares them,
so a new notebook is executed too, with whatever small values apply.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import nbformat
import papermill as pm
import pytest

pytestmark = pytest.mark.notebook  # runs the notebooks (papermill): `pytest -m 'not notebook'` skips them

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
DESIGNER_NOTEBOOKS = ("01_strip_editor", "02_table_weights", "03_feature_simulation", "05_tuner", "06_round_viewer")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WHEEL = """
[tables.wheel]
entries = [
  { value = 10, weight = 5 },
  { value = 50, weight = 2 },
]
"""

# small values for any notebook that declares these parameters
SMALL = {
    "game": "classic_tens",
    "spins": 20_000,
    "seed": 1,
    "workers": 1,
    "precision": 0.01,
    "max_seconds": 5.0,
    "sessions": 100,
    "session_spins": 100,
    "bankroll": 50.0,
    "run_on_open": True,
}


def notebook_parameters(name: str, tmp_path: Path) -> dict:
    """Per-notebook values; files the notebooks write or edit live in tmp_path."""
    shipped = ROOT / "reelsets" / "classic_tens.toml"
    copy = tmp_path / "classic_tens.toml"
    copy.write_text(shipped.read_text() + (WHEEL if name == "02_table_weights" else ""))
    return {"reelset_path": str(copy), "out_dir": str(tmp_path / "out")}


def digest(paths) -> dict:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def test_designer_notebooks_exist():
    names = {p.stem for p in NOTEBOOKS}
    assert set(DESIGNER_NOTEBOOKS) <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "one cell tagged 'parameters'"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a code cell has stored outputs"
            assert cell.execution_count is None, f"{path.name}: a code cell has an execution count"


@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes_headless(path, tmp_path):
    source = digest([path])
    shipped = [ROOT / "reelsets" / f"{SMALL['game']}.toml"]  # what the editors would open without reelset_path
    reelsets = digest(shipped)
    declared = pm.inspect_notebook(str(path))
    values = {**SMALL, **notebook_parameters(path.stem, tmp_path)}
    parameters = {k: v for k, v in values.items() if k in declared}
    work = tmp_path / "work"
    work.mkdir()
    out = tmp_path / f"{path.stem}.out.ipynb"
    pm.execute_notebook(str(path), str(out), parameters=parameters, cwd=str(work), kernel_name="python3",
                        progress_bar=False, execution_timeout=480)

    executed = nbformat.read(out, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.get("output_type") == "error"]
    assert not errors
    if path.stem in DESIGNER_NOTEBOOKS:
        shown = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if WIDGET_VIEW in o.get("data", {})]
        assert shown, "the panel was displayed"
    assert digest([path]) == source, "executing must not modify the source notebook"
    assert digest(shipped) == reelsets, "executing must not write the shipped reelset"
    if path.stem in ("01_strip_editor", "02_table_weights"):
        text = (tmp_path / "classic_tens.toml").read_text()
        assert text.startswith((ROOT / "reelsets" / "classic_tens.toml").read_text()), "opening the editor writes nothing"
    shutil.rmtree(work, ignore_errors=True)
