"""`make lab`: JupyterLab starts for any user (root gets --allow-root) and saves notebooks without outputs.

The server is started with exactly the command `make -n lab` prints, on a copy of a notebook in tmp_path
(so nothing shipped is written), and a notebook with outputs is saved through its REST API, as JupyterLab's
autosave does; the file on disk must have none.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from workbench.widgets.storage import strip_outputs_before_save

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.notebook, pytest.mark.timeout(120)]


def lab_command() -> list[str]:
    out = subprocess.run(["make", "-s", "-n", "lab"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    line = [l for l in out.splitlines() if "jupyter lab" in l][-1]
    return shlex.split(line)


def test_make_lab_allows_root_only_for_root():
    command = lab_command()
    assert ("--allow-root" in command) == (os.getuid() == 0)
    assert "--config=notebooks/.jupyter_server_config.py" in command


def notebook_with_outputs() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1", execution_count=3)
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)]
    nb.cells = [nbformat.v4.new_markdown_cell("# title"), cell]
    return nb


def test_pre_save_hook_strips_outputs():
    model = {"type": "notebook", "content": notebook_with_outputs()}
    strip_outputs_before_save(model=model, path="x.ipynb", contents_manager=None)
    code = model["content"].cells[1]
    assert code.outputs == [] and code.execution_count is None and code.source == "1 + 1"
    other = {"type": "file", "content": "text"}
    strip_outputs_before_save(model=other)
    assert other["content"] == "text"


def test_lab_saves_notebooks_without_outputs(tmp_path):
    command = lab_command()
    # serve tmp_path instead of notebooks/ (the positional root), headless, on a free port with a known token
    root_index = command.index("notebooks/")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = "test-token"
    command[root_index] = str(tmp_path)
    command += ["--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    command[0] = str(ROOT / command[0]) if not Path(command[0]).is_absolute() else command[0]
    log = tmp_path / "lab.log"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    with open(log, "w") as out:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{log.read_text()}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter lab did not answer within 60 s:\n{log.read_text()}")
                time.sleep(0.3)
        body = json.dumps({"type": "notebook", "format": "json", "content": notebook_with_outputs()}).encode()
        request = urllib.request.Request(f"{base}/api/contents/saved.ipynb?token={token}", data=body, method="PUT",
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=30)
        saved = nbformat.read(tmp_path / "saved.ipynb", as_version=4)
        code = saved.cells[1]
        assert code.source == "1 + 1" and code.outputs == [] and code.execution_count is None
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
