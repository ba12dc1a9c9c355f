"""How the notebooks are stored: without outputs.

``make lab`` starts JupyterLab with ``notebooks/.jupyter_server_config.py``,
which installs :func:`strip_outputs_before_save` as the contents manager's
pre-save hook: every notebook saved from that server (autosave included) is
written without outputs and execution counts, so the shipped notebooks stay
output-free in git however they are run (tests/test_notebooks.py checks the
stored files).  The stripping is nbstripout's.
"""

from __future__ import annotations

import nbformat
from nbstripout import strip_output


def strip_outputs_before_save(model: dict, **kwargs) -> None:
    """Jupyter ``pre_save_hook``: drop a notebook's outputs and execution counts before it is written."""
    if model.get("type") != "notebook" or model.get("content") is None:
        return
    nb = nbformat.from_dict(model["content"])
    model["content"] = strip_output(nb, keep_output=False, keep_count=False, keep_id=True)
