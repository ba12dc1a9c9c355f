"""The strip editor as an app in a real browser: Voila serves notebooks/01_strip_editor.ipynb,
Playwright drives Debian's Chromium.

The notebook edits the file named by the environment variable
WORKBENCH_EDITOR_REELSET, here a copy of classic_tens in tmp_path.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench import load_game, par, validate_file
from workbench.io import reelsets_dir

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
STARTUP_SECONDS = 60  # Voila listening
APP_SECONDS = 120  # kernel start + first exact PAR (numba code from the on-disk cache, compiled if cold)
STEP_MS = 60_000  # one edit or save round trip, generous for a loaded CI machine

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium does not exist: install Debian's chromium package "
                                                     "(.ci/run does) to run the browser test"),
    pytest.mark.timeout(175),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, seconds: float) -> None:
    """Wait until something listens on ``port`` (a TCP connect: an HTTP request would start a kernel)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"voila exited with {proc.returncode}:\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"voila did not listen on port {port} within {seconds} s:\n{log.read_text()}")


def descendants(pid: int) -> list[int]:
    """Process ids started by ``pid`` (the Voila kernels run in sessions of their own)."""
    try:
        import psutil
    except ImportError:
        return []
    try:
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def stop(proc: subprocess.Popen) -> None:
    """Stop Voila and the kernels it started, by their process ids."""
    children = descendants(proc.pid)
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    for pid in children:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


@pytest.fixture()
def voila_app(tmp_path):
    """(url, reelset copy) of the strip editor notebook served by Voila."""
    reelset = tmp_path / "classic_tens.toml"
    shutil.copyfile(reelsets_dir() / "classic_tens.toml", reelset)
    # compile (or load) the exact engine in this process first: the kernel then finds it in the on-disk cache
    par(load_game(reelset), full_cycle=False)
    port = free_port()
    log = tmp_path / "voila.log"
    env = {**os.environ, "WORKBENCH_EDITOR_REELSET": str(reelset), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    voila = Path(sys.executable).with_name("voila")
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(voila), "notebooks/01_strip_editor.ipynb", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log, STARTUP_SECONDS)
        yield f"http://127.0.0.1:{port}/", reelset, log
    finally:
        stop(proc)


def test_strip_editor_in_chromium(voila_app):
    from playwright.sync_api import sync_playwright

    url, reelset, log = voila_app
    original = reelset.read_text()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(url, wait_until="domcontentloaded", timeout=APP_SECONDS * 1000)
            box = page.locator(".wb-reel-2 textarea")
            try:
                box.wait_for(timeout=APP_SECONDS * 1000)
            except Exception:
                pytest.fail(f"the editor did not appear within {APP_SECONDS} s; voila log:\n{log.read_text()}")
            rtp = page.locator(".wb-rtp-value")
            before = rtp.inner_text()
            assert re.fullmatch(r"\d+\.\d{4} %", before)
            assert str(reelset) in page.locator("h3").first.inner_text()

            # edit reel 2 in its text box; the change is taken when the box loses focus
            box.fill(box.input_value() + " SEVEN")
            box.press("Tab")
            page.wait_for_function("(b) => document.querySelector('.wb-rtp-value').innerText != b", arg=before, timeout=STEP_MS)
            after = rtp.inner_text()
            expected = load_game(reelset).with_strip("base", 2, load_game(reelset).strip_sets["base"].reels[1].symbols + ("SEVEN",))
            assert after == f"{100 * par(expected, full_cycle=False).rtp:.4f} %"
            assert "pp vs saved file" in page.locator(".wb-rtp").inner_text()
            assert re.search(r"PAR \d+ ms", page.locator(".wb-timing").inner_text())
            assert reelset.read_text() == original  # nothing written before Save

            # an unknown symbol is refused with the validation message
            box4 = page.locator(".wb-reel-4 textarea")
            box4.fill(box4.input_value() + " FOO")
            box4.press("Tab")
            page.wait_for_function("document.querySelector('.wb-status').innerText.includes(\"unknown symbol 'FOO'\")", timeout=STEP_MS)
            page.locator("button.wb-undo").click()  # discard the invalid text
            page.wait_for_function("document.querySelector('.wb-status').innerText.includes('Discarded')", timeout=STEP_MS)

            page.locator("button.wb-save").click()
            page.wait_for_function("document.querySelector('.wb-status').innerText.includes('Saved')", timeout=STEP_MS)
            assert "+reel2 = " in page.locator(".wb-diff").inner_text()
        finally:
            browser.close()

    assert reelset.read_text() != original
    assert validate_file(reelset) == []
    saved = load_game(reelset)
    assert saved.strip_sets["base"].reels[1] == expected.strip_sets["base"].reels[1]
    assert saved.strip_sets["base"].reels[3] == load_game(reelsets_dir() / "classic_tens.toml").strip_sets["base"].reels[3]
