"""The report pipeline: run ``notebooks/report.ipynb`` with papermill in this Python, render it to HTML.

papermill, nbconvert, jupyter_client and zmq are imported inside the
functions, so importing the package stays light.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ..errors import ReportError
from ..io import render_text
from ..io.atomic import write_output
from .defaults import DEFAULT_PRECISION, DEFAULT_SEED, DEFAULT_SPINS
from .files import ReportFiles, output_paths
from .provenance import game_stem
from .computations import load_report_game

ROOT = Path(__file__).resolve().parents[2]  # the repository (holds notebooks/)
REPORT_NOTEBOOK = ROOT / "notebooks" / "report.ipynb"
KERNEL_DISPLAY_NAME = "Python 3 (workbench)"
#: ``python -P``: do not put the working folder first on ``sys.path`` (Python 3.11+)
SAFE_PATH = ("-P",) if sys.version_info >= (3, 11) else ()


# ---------------------------------------------------------------------------
# the pipeline
# ---------------------------------------------------------------------------
def kernel_manager_class():
    """A Jupyter kernel manager that starts ipykernel in *this* Python (``sys.executable``).

    No kernel spec needs to be installed, and a ``python3`` spec of another
    environment cannot be picked up by mistake; the workbench package this
    process uses comes first on the kernel's ``PYTHONPATH``.

    ``-m ipykernel_launcher`` puts the kernel's working folder first on
    ``sys.path``, so a planted ``ipykernel_launcher.py`` (or ``numpy.py``) there
    would run: :func:`execute_notebook` therefore starts the kernel in a fresh
    private folder, and ``-P`` (Python 3.11+) keeps that folder off
    ``sys.path`` as well.
    """
    import zmq
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.manager import AsyncKernelManager

    class WorkbenchKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            if "transport_encryption" in self.trait_names() and zmq.has("curve"):
                self.transport_encryption = "auto"  # encrypt the local kernel connection when possible

        @property
        def kernel_spec(self):
            if self._kernel_spec is None:
                path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
                self._kernel_spec = KernelSpec(
                    argv=[sys.executable, *SAFE_PATH, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    display_name=KERNEL_DISPLAY_NAME, language="python", env={"PYTHONPATH": path}, resource_dir="",
                    metadata={"supported_encryption": ["curve"]})
            return self._kernel_spec

    return WorkbenchKernelManager


HTML_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{#- self-contained: no require.js, MathJax or mermaid from a CDN -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""


def render_html(notebook_path, html_path, title: str | None = None) -> Path:
    """Render an executed notebook to a self-contained HTML page: code hidden, figures as base64 PNG."""
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(notebook_path), as_version=4)
    # papermill's error banner cells stay; the injected-parameters cell has no output
    exporter = HTMLExporter(template_name="lab", extra_loaders=[DictLoader({"workbench_report.html.j2": HTML_TEMPLATE})],
                            template_file="workbench_report.html.j2", exclude_input=True, exclude_input_prompt=True,
                            exclude_output_prompt=True, embed_images=True)
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": title or Path(notebook_path).stem}})
    write_output(html_path, body, error=_cannot_write)  # atomic: a failure leaves the previous page
    return Path(html_path)


def _check_parameters(spins, seed, precision, stakes) -> None:
    if not isinstance(spins, (int, np.integer)) or isinstance(spins, bool) or spins <= 0:
        raise ReportError(f"spins must be a positive integer, got {spins!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ReportError(f"seed must be a non-negative integer, got {seed!r}")
    if not isinstance(precision, (int, float)) or not precision > 0 or not math.isfinite(precision):
        raise ReportError(f"precision must be a positive number (0.0005 = ± 0.05 %), got {precision!r}")
    if stakes is not None and not all(isinstance(s, (int, float)) and s > 0 for s in stakes):
        raise ReportError(f"stakes must be positive numbers, got {stakes!r}")


def _cannot_write(path: str, reason: str) -> ReportError:
    return ReportError(f"cannot write {path}: {reason}")


def _failed_cell_message(exc, label: str, kept: str) -> str:
    source = (exc.source or "").strip().splitlines()
    first = source[0].strip() if source else ""
    cell = f"cell {exc.cell_index} (In [{exc.exec_count}])" + (f" '{first}'" if first else "")
    return f"{label} failed in {cell}: {exc.ename}: {exc.evalue}\n  {kept}"


def _keep_notebook(running: Path, output: Path, *, partial: bool) -> str:
    """Copy the notebook papermill wrote in the private folder to ``output`` (atomically); what was kept.

    For a finished run a failure raises (``cannot write OUTPUT: reason``); for
    a failed run (``partial``) it is only reported in the returned text, after
    the failure of the run itself.
    """
    if not running.exists():
        if partial:
            return "no partial notebook was written"
        raise ReportError(f"cannot write {output}: the notebook execution wrote no notebook")
    try:
        data = running.read_bytes()
        write_output(output, data, error=_cannot_write)
    except (OSError, ReportError) as exc:
        if not partial:
            if isinstance(exc, ReportError):
                raise
            raise _cannot_write(str(output), f"cannot read the executed notebook: {exc.strerror or exc}") from None
        return f"the partial notebook could not be kept ({exc})"
    return f"partial notebook kept: {output}" if partial else str(output)


def execute_notebook(notebook, output, parameters: dict, *, kernel_name: str | None = None, cwd=None,
                     timeout: float | None = None, progress: bool = False, label: str | None = None) -> Path:
    """Execute ``notebook`` with papermill into ``output`` (saved after every cell).

    Runs in ipykernel of this Python unless ``kernel_name`` names an
    installed Jupyter kernel.  Raises :class:`~workbench.errors.ReportError`
    naming the failing cell; the partial executed notebook is kept.

    The kernel runs in ``cwd`` if given, else in a fresh private temporary
    folder (never the output folder: Python puts a kernel's working folder
    first on ``sys.path``, so files planted there would run).  papermill saves
    the notebook after every cell into that private folder; when the run ends
    (or fails) it is written to ``output`` atomically, so a failure to write
    leaves the previous ``output`` as it was.
    """
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    label = label or Path(notebook).stem
    notebook = Path(notebook).absolute()  # papermill changes the working folder while it runs
    output = Path(output).absolute()
    engine = {} if kernel_name else {"kernel_manager_class": kernel_manager_class()}
    # mode 0700, made for this run (a kernel still writing in it when it is removed must not hide the result)
    with tempfile.TemporaryDirectory(prefix="workbench-notebook-", ignore_cleanup_errors=True) as private:
        running = Path(private) / "executed.ipynb"
        kernel_dir = Path(private) / "kernel"  # empty: nothing in it can be imported
        kernel_dir.mkdir()
        try:
            pm.execute_notebook(str(notebook), str(running), parameters=parameters, kernel_name=kernel_name or "python3",
                                progress_bar=progress, cwd=str(kernel_dir if cwd is None else Path(cwd).absolute()),
                                request_save_on_cell_execute=True, execution_timeout=timeout, **engine)
        except PapermillExecutionError as exc:
            raise ReportError(_failed_cell_message(exc, label, _keep_notebook(running, output, partial=True))) from None
        except Exception as exc:  # the kernel died, timed out or could not start
            kept = _keep_notebook(running, output, partial=True)
            raise ReportError(f"{label}: notebook execution stopped: {type(exc).__name__}: {exc}\n  {kept}") from exc
        except BaseException:  # Ctrl-C: keep what ran, then stop
            _keep_notebook(running, output, partial=True)
            raise
        _keep_notebook(running, output, partial=False)
    return output


def report_game_file(game, out_dir) -> Path:
    """The reelset file a report reads: the game's own file, or, for a game with unsaved
    edits (or none on disk), its text written to ``out_dir/<game>.toml``."""
    path = Path(game.path).resolve() if game.path else None
    if path is not None and path.exists() and path.read_text(encoding="utf-8") == render_text(game):
        return path
    copy = Path(out_dir) / f"{game_stem(game)}.toml"
    copy.parent.mkdir(parents=True, exist_ok=True)
    write_output(copy, render_text(game), error=_cannot_write)
    return copy


def generate_report(game, out_dir, *, spins: int = DEFAULT_SPINS, seed: int = DEFAULT_SEED,
                    precision: float = DEFAULT_PRECISION, sim_precision: float | None = None, stakes=None,
                    workers: int = 1, kernel_name: str | None = None,
                    timeout: float | None = None, progress: bool = False, max_seconds: float | None = None) -> ReportFiles:
    """Run the report notebook for ``game`` and write every report file into ``out_dir``.

    ``game``: a Game, a reelset path or a shipped name; a Game with unsaved
    edits is written to ``out_dir`` first and reported from there.
    ``spins``: rounds of the end-to-end simulation; ``precision``: 95 %
    half-width of the RTP estimate (fraction of the total bet); ``sim_precision``: instead of ``spins``, as many
    end-to-end rounds as confirm the RTP to that 95 % half-width (from the estimate's std); ``stakes``:
    stake levels (currency) to report, default the game's stake ladder;
    ``kernel_name``: a named Jupyter kernel instead of this Python;
    ``timeout``: seconds allowed per cell (default: no limit); ``max_seconds``: a time box shared by the report's
    simulations (:class:`~workbench.report.budget.TimeBudget`; the fixed work, kernel start, PAR sheet, plots and
    HTML, is not boxed).

    Files: ``<game>.ipynb`` (executed), ``<game>.html``, ``<game>_par.xlsx``,
    ``<game>_par_<table>.csv``, ``<game>_par.json`` and ``<game>_report.json``.
    Raises :class:`~workbench.errors.ReportError` naming the failing cell if
    the notebook fails; the partial executed notebook is kept.
    """
    _check_parameters(spins, seed, precision, stakes)
    if sim_precision is not None and (isinstance(sim_precision, bool) or not isinstance(sim_precision, (int, float))
                                      or not 0 < sim_precision < 1):
        raise ReportError(f"sim_precision must be a fraction above 0 and below 1 (0.001 = ± 0.1 %), got {sim_precision!r}")
    if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float))
                                    or not math.isfinite(max_seconds) or max_seconds <= 0):
        raise ReportError(f"max_seconds must be a number of seconds above 0, got {max_seconds!r}")
    start = time.perf_counter()
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    loaded = load_report_game(game)
    path = report_game_file(loaded, out)
    paths = output_paths(out, game_stem(loaded))
    notebook = Path(REPORT_NOTEBOOK)
    if not notebook.exists():
        raise ReportError(f"report notebook not found: {notebook}")
    parameters = {"game": str(path), "spins": int(spins), "seed": int(seed), "precision": float(precision),
                  "sim_precision": None if sim_precision is None else float(sim_precision),
                  "stakes": None if stakes is None else [float(s) for s in stakes], "workers": int(workers),
                  "out_dir": str(out), "max_seconds": None if max_seconds is None else float(max_seconds)}
    # the kernel runs in a private temporary folder, never in ``out`` (see execute_notebook); the notebook
    # reads and writes only the absolute paths it is given (game file, out_dir)
    execute_notebook(notebook, paths["notebook"], parameters, kernel_name=kernel_name, timeout=timeout,
                     progress=progress, label=f"report for {loaded.name}")
    render_html(paths["notebook"], paths["html"], title=f"{loaded.name}: math report")
    missing = [p for p in (paths["xlsx"], paths["par_json"], paths["report_json"], *paths["csv"].values()) if not p.exists()]
    if missing:
        raise ReportError(f"report for {loaded.name}: the notebook did not write {', '.join(p.name for p in missing)}")
    return ReportFiles(out, paths["notebook"], paths["html"], paths["xlsx"], paths["par_json"], paths["report_json"],
                       paths["csv"], path, time.perf_counter() - start)
