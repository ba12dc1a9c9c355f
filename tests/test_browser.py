"""The designer notebooks as apps in a real browser: Voila serves them, Playwright drives Debian's Chromium.

- notebooks/01_strip_editor.ipynb edits the file named by the environment
  variable WORKBENCH_EDITOR_REELSET, here a copy of classic_tens in tmp_path.
- notebooks/05_tuner.ipynb is served as a copy in tmp_path whose parameters
  cell names a copy of classic_tens there (target 94 %, keep hit_frequency,
  run once at start); saves go to tmp_path.  Screenshots of each step are
  written to tmp_path/screenshots.
"""

from __future__ import annotations

import contextlib
import json
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
from workbench.tuning import tune

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
STARTUP_SECONDS = 60  # Voila listening
APP_SECONDS = 120  # kernel start + first exact PAR (numba code from the on-disk cache, compiled if cold)
STEP_MS = 60_000  # one edit or save round trip, generous for a loaded CI machine

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium does not exist: install Debian's chromium package "
                                                     "(.ci/run does) to run the browser test"),
    pytest.mark.timeout(175),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Path, seconds: float, server: str = "voila") -> None:
    """Wait until ``server`` listens on ``port`` (a TCP connect: an HTTP request would start a kernel)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{server} exited with {proc.returncode}:\n{log.read_text()}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"{server} did not listen on port {port} within {seconds} s:\n{log.read_text()}")


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
    """Stop the server (Voila, JupyterLab) and the kernels it started, by their process ids."""
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


@contextlib.contextmanager
def serve(notebook: str | Path, tmp_path: Path, cwd: Path = ROOT, env: dict | None = None):
    """Serve ``notebook`` with Voila on a free port; yields (url, log); stops Voila and its kernels after."""
    port = free_port()
    log = tmp_path / "voila.log"
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), **(env or {})}
    voila = Path(sys.executable).with_name("voila")
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(voila), str(notebook), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"],
            cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    try:
        wait_for_port(port, proc, log, STARTUP_SECONDS)
        yield f"http://127.0.0.1:{port}/", log
    finally:
        stop(proc)


@contextlib.contextmanager
def serve_editor(notebook: str, tmp_path: Path, game: str = "classic_tens", warm_features: bool = False):
    """Serve an editor notebook on a copy of the shipped reelset ``game`` in tmp_path; yields (url, reelset copy, log)."""
    reelset = tmp_path / f"{game}.toml"
    shutil.copyfile(reelsets_dir() / f"{game}.toml", reelset)
    # compile (or load) the exact engine in this process first: the kernel then finds it in the on-disk cache
    par(load_game(reelset), full_cycle=False)
    if warm_features:  # and the feature simulation the editors run when a game with features is opened
        from workbench.tuning import FeatureTerms

        FeatureTerms.estimate(load_game(reelset), 0.01, 1, max_seconds=2)
    with serve(notebook, tmp_path, env={"WORKBENCH_EDITOR_REELSET": str(reelset)}) as (url, log):
        yield url, reelset, log


@pytest.fixture()
def voila_app(tmp_path):
    """(url, reelset copy, log) of the strip editor notebook served by Voila."""
    with serve_editor("notebooks/01_strip_editor.ipynb", tmp_path) as app:
        yield app


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


# ---------------------------------------------------------------------------
# the RTP tuner (notebooks/05_tuner.ipynb)
# ---------------------------------------------------------------------------
TUNER_PARAMETERS = {"target_rtp": 0.94, "keep": ["hit_frequency"], "run": True}
# what a designer must never see in the panel: a traceback, markup shown as text, Python literals, e-notation
NOT_FOR_A_DESIGNER = re.compile(r"Traceback|<(?:div|b|pre|table|span)\b|&(?:lt|gt|amp|#x27|quot);|\bNone\b|\bnan\b|\binf\b"
                                r"|\['|\{'|np\.float|\b\d+(?:\.\d+)?[eE][+-]?\d+\b")


def tuner_notebook(folder: Path, game: Path) -> Path:
    """A copy of notebooks/05_tuner.ipynb in ``folder`` whose parameters cell tunes ``game`` (TUNER_PARAMETERS)."""
    notebook = json.loads((ROOT / "notebooks" / "05_tuner.ipynb").read_text())
    cells = [c for c in notebook["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, "05_tuner.ipynb has one cell tagged parameters"
    source = "".join(cells[0]["source"])
    for name, value in {"game": str(game), **TUNER_PARAMETERS}.items():
        source, found = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", source, flags=re.M)
        assert found == 1, f"the parameters cell of 05_tuner.ipynb sets {name}"
    cells[0]["source"] = source
    path = folder / "05_tuner.ipynb"
    path.write_text(json.dumps(notebook))
    return path


@pytest.fixture()
def voila_tuner(tmp_path):
    """(url, reelset copy, log) of the tuner notebook served by Voila, tuning a copy of classic_tens."""
    app = tmp_path / "app"
    app.mkdir()
    reelset = app / "classic_tens.toml"
    shutil.copyfile(reelsets_dir() / "classic_tens.toml", reelset)
    # compile (or load) the exact engine and the tuner's code in this process first (the kernel finds them cached)
    tune(load_game(reelset), TUNER_PARAMETERS["target_rtp"], keep=TUNER_PARAMETERS["keep"])
    with serve(tuner_notebook(app, reelset), tmp_path, cwd=app) as (url, log):
        yield url, reelset, log


def panel_text(page) -> str:
    return page.locator(".wb-tune-panel").inner_text()


def screenshot(page, path: Path) -> None:
    """The whole app (Voila scrolls it inside #rendered_cells, which a full-page screenshot does not unroll)."""
    size = page.viewport_size
    height = page.evaluate("""() => Math.max(document.documentElement.scrollHeight,
        (document.querySelector('#rendered_cells') || document.body).scrollHeight)""")
    page.set_viewport_size({"width": size["width"], "height": min(max(height + 16, size["height"]), 8000)})
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)


def assert_designer_view(page, shots: Path, name: str) -> None:
    """Screenshot the page; the panel's text is free of what a designer must not see, and nothing overflows."""
    screenshot(page, shots / f"{name}.png")
    bad = NOT_FOR_A_DESIGNER.search(panel_text(page))
    assert bad is None, f"{name}: the panel shows {bad.group(0)!r} (screenshot {shots / name}.png)"
    assert "Traceback" not in page.locator("body").inner_text(), f"{name}: a traceback on the page"
    wide = page.evaluate("""() => [...document.querySelectorAll('.wb-tune-panel .widget-html-content')]
        .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1).map(e => e.parentElement.className)""")
    assert not wide, f"{name}: text cut off at the right in {wide} (screenshot {shots / name}.png)"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{name}: the page scrolls sideways"


def rtp_shown(page) -> float:
    text = page.locator(".wb-tune-rtp").inner_text()
    match = re.fullmatch(r"(\d+\.\d{4}) % \(exact\)", text)
    assert match, f"RTP shown as {text!r}"
    return float(match.group(1))


def test_tuner_in_chromium(voila_tuner, tmp_path):
    """A designer's session: the automatic run's results, a new target, a bad keep line, Save as."""
    from playwright.sync_api import sync_playwright

    url, reelset, log = voila_tuner
    original = reelset.read_text()
    shipped = (reelsets_dir() / "classic_tens.toml").read_text()
    shots = tmp_path / "screenshots"
    shots.mkdir()
    saved_path = tmp_path / "tuned" / "classic_tens_955.toml"
    saved_path.parent.mkdir()
    status = ".wb-tune-panel .wb-status"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, wait_until="domcontentloaded", timeout=APP_SECONDS * 1000)
            try:  # the notebook runs the tuner once (run = True): wait for its results
                page.locator(".wb-tune-table").wait_for(timeout=APP_SECONDS * 1000)
            except Exception:
                screenshot(page, shots / "00_no_results.png")
                pytest.fail(f"the tuner's first results did not appear within {APP_SECONDS} s; voila log:\n{log.read_text()}")

            # 1. the automatic run: header, figures before/after, the stops changed, the diff, a finished bar
            assert str(reelset) in page.locator(".wb-tune-header h3").inner_text()
            assert page.locator(".wb-tune-target input").input_value() == "94"
            assert "Target 94.0000 %" in page.locator(status).inner_text()
            assert abs(rtp_shown(page) - 94) <= 0.01
            assert page.locator(".wb-tune-table th").all_inner_texts() == ["figure", "before", "after"]
            rows = page.locator(".wb-tune-table tbody tr")
            assert rows.count() >= 5
            first = rows.first.locator("td").all_inner_texts()
            assert first[0] == "RTP, whole game (exact)" and all(re.fullmatch(r"\d+\.\d{4} %", v) for v in first[1:])
            assert page.locator(".wb-tune-change").count() >= 1
            assert re.fullmatch(r"base reel \d stop \d+: [A-Z]+ -> [A-Z]+", page.locator(".wb-tune-change").first.inner_text())
            assert "(not written yet)" in page.locator(".wb-diff").inner_text()
            assert page.locator(".wb-diff .wb-diff-text").inner_text().count("+reel") >= 1
            assert page.locator(".wb-progress .widget-label").inner_text() == "done"
            assert page.locator("button.wb-tune-save").is_enabled()
            for box in (".wb-tune-table", ".wb-tune-changes", ".wb-diff-text"):
                assert page.locator(box).is_visible(), f"{box} is not visible"
            # text blocks are set as text, not a row of inputs apart (ipywidgets' 28 px line height), and the diff
            # wraps between symbols, not inside them
            looks = page.evaluate("""() => { const cs = (s) => getComputedStyle(document.querySelector(s));
                const px = (c) => parseFloat(c.lineHeight) / parseFloat(c.fontSize);
                return {diff: px(cs('.wb-diff-text')), table: px(cs('.wb-tune-table td')), status: px(cs('.wb-status .widget-html-content')),
                        wrap: cs('.wb-diff-text').wordBreak}; }""")
            assert max(looks["diff"], looks["table"], looks["status"]) < 1.7 and looks["wrap"] != "break-all", looks
            assert_designer_view(page, shots, "01_first_run")

            # 2. a new target, typed and Run at once (the field syncs as it loses focus): the bar runs, the results follow
            page.evaluate("""() => { window.wbBar = []; const bar = document.querySelector('.wb-progress .progress-bar');
                new MutationObserver(() => window.wbBar.push(bar.style.width)).observe(bar, {attributes: true}); }""")
            page.locator(".wb-tune-target input").fill("95.5")
            page.locator("button.wb-tune-run").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Target 95.5000 %')", arg=status,
                                   timeout=STEP_MS)
            assert abs(rtp_shown(page) - 95.5) <= 0.01
            widths = page.evaluate("window.wbBar")
            assert widths and widths[-1] == "100%" and any(w not in ("0%", "100%") for w in widths), f"progress bar widths {widths}"
            assert page.locator(".wb-progress .widget-label").inner_text() == "done"
            assert re.fullmatch(r"\d+ exact evaluations", page.locator(".wb-tune-evaluations").inner_text())
            assert page.locator(".wb-tune-table tbody tr").first.locator("td").nth(2).inner_text() == f"{rtp_shown(page):.4f} %"
            # the save-as box follows the new target as the results are shown (a widget sync of its own: wait for it)
            expected = str(reelset.with_name("classic_tens_rtp9550.toml"))
            page.wait_for_function("([s, v]) => document.querySelector(s).value === v",
                                   arg=[".wb-tune-save-path input", expected], timeout=STEP_MS)
            assert page.locator(".wb-tune-save-path input").input_value() == expected
            assert page.evaluate("(e) => e.scrollWidth <= e.clientWidth", page.locator(".wb-tune-save-path input").element_handle()), \
                "the save-as box cuts off the end of its path"
            assert_designer_view(page, shots, "02_target_95_5")

            # 3. a keep line that names no figure: a message saying what to write, the old results gone, no traceback
            keep = page.locator(".wb-tune-keep textarea")
            keep.fill("hitfreq")
            page.locator("button.wb-tune-run").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Not tuned')", arg=status, timeout=STEP_MS)
            message = page.locator(status).inner_text()
            assert "unknown figure 'hitfreq'" in message and "did you mean 'hit_frequency'" in message, message
            assert "--keep" not in message  # the panel's field is "keep", not a command-line option
            assert page.locator(".wb-tune-table").count() == 0 and page.locator(".wb-diff-text").count() == 0
            assert page.locator("button.wb-tune-save").is_disabled()
            assert page.locator(".wb-progress .widget-label").inner_text() == "failed"
            assert_designer_view(page, shots, "03_bad_keep")

            # 4. fixed: the target is reached again
            keep.fill("hit_frequency")
            page.locator("button.wb-tune-run").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Target 95.5000 %')", arg=status,
                                   timeout=STEP_MS)
            rtp = rtp_shown(page)
            assert abs(rtp - 95.5) <= 0.01
            assert "kept: hit_frequency" in page.locator(status).inner_text()
            assert_designer_view(page, shots, "04_fixed")

            # 5. Save as a path in tmp: the message says where, the file is there
            page.locator(".wb-tune-save-path input").fill(str(saved_path))
            page.locator("button.wb-tune-save").click()
            page.wait_for_function("document.querySelector('.wb-tune-save-status').innerText.includes('Saved to')",
                                   timeout=STEP_MS)
            assert str(saved_path.resolve()) in page.locator(".wb-tune-save-status").inner_text()
            assert_designer_view(page, shots, "05_saved")
        finally:
            browser.close()

    assert saved_path.exists() and validate_file(saved_path) == []
    saved = load_game(saved_path)
    assert f"{100 * par(saved, full_cycle=False).rtp:.4f}" == f"{rtp:.4f}"  # the file holds what the panel showed
    assert reelset.read_text() == original  # Save as leaves the tuned file's original alone
    assert (reelsets_dir() / "classic_tens.toml").read_text() == shipped
    assert not reelset.with_name("classic_tens_rtp9550.toml").exists()  # nothing written but the path asked for


# ---------------------------------------------------------------------------
# the headline of a game with simulated features (super_10_stars): whole game and base part
# ---------------------------------------------------------------------------
WHOLE = re.compile(r"(\d+\.\d{4}) % ± (\d+\.\d{4}) %")


def whole_shown(page) -> float:
    text = page.locator(".wb-whole-rtp").inner_text()
    match = WHOLE.fullmatch(text)
    assert match, f"whole-game RTP shown as {text!r}"
    return float(match.group(1))


def base_shown(page) -> float:
    text = page.locator(".wb-base-part .wb-rtp-value").inner_text()
    match = re.fullmatch(r"(\d+\.\d{4}) %", text)
    assert match, f"base-game RTP shown as {text!r}"
    return float(match.group(1))


def wait_text_changed(page, selector: str, before: str, timeout: int = STEP_MS) -> None:
    page.wait_for_function("([s, b]) => { const e = document.querySelector(s); return e && e.innerText != b; }",
                           arg=[selector, before], timeout=timeout)


def assert_pinned(page, first: str, last: str, shot: Path, scroller: str | None = None) -> None:
    """Scrolled so that ``last`` is in view and ``first`` is not, the headline (whole game and base part) is still in
    view and drawn on top: pinned beside the strips or above the tables.  ``scroller``: the element that scrolls
    (JupyterLab's notebook panel), else the page."""
    page.locator(last).scroll_into_view_if_needed()
    size = page.viewport_size
    page.mouse.move(size["width"] / 2, size["height"] / 2)
    page.mouse.wheel(0, 150)  # ``last`` off the bottom edge
    page.wait_for_timeout(400)
    area = page.locator(scroller).bounding_box() if scroller else {"y": 0, "height": size["height"]}
    top, bottom = area["y"], area["y"] + area["height"]
    early, late = page.locator(first).bounding_box(), page.locator(last).bounding_box()
    page.screenshot(path=str(shot))
    assert early["y"] + early["height"] < top, f"{first} is still in view: the test did not scroll (screenshot {shot.name})"
    assert top <= late["y"] and late["y"] + late["height"] <= bottom, f"{last} is not in view (screenshot {shot.name})"
    for part in (".wb-whole-rtp", ".wb-base-part"):
        box = page.locator(part).bounding_box()
        assert top <= box["y"] and box["y"] + box["height"] <= bottom, \
            f"{part} scrolled away ({box}, scrolling area {area}; screenshot {shot.name})"
    hit = page.evaluate("""() => { const b = document.querySelector('.wb-whole-rtp').getBoundingClientRect();
        const e = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2); return !!(e && e.closest('.wb-rtp')); }""")
    assert hit, f"the headline is covered by what scrolls under it (screenshot {shot.name})"


def wait_headline(page, log: Path, shots: Path) -> None:
    try:
        page.wait_for_function(f"() => {{ const e = document.querySelector('.wb-whole-rtp');"
                               f" return e && /{WHOLE.pattern}/.test(e.innerText); }}", timeout=APP_SECONDS * 1000)
    except Exception:
        screenshot(page, shots / "00_no_headline.png")
        pytest.fail(f"the whole-game headline did not appear within {APP_SECONDS} s; voila log:\n{log.read_text()}")


@pytest.fixture()
def voila_super10(tmp_path):
    """(url, reelset copy, log) of the strip editor notebook on a copy of super_10_stars."""
    with serve_editor("notebooks/01_strip_editor.ipynb", tmp_path, "super_10_stars", warm_features=True) as app:
        yield app


@pytest.fixture()
def voila_tables(tmp_path):
    """(url, reelset copy, log) of the table editor notebook on a copy of super_10_stars."""
    with serve_editor("notebooks/02_table_weights.ipynb", tmp_path, "super_10_stars", warm_features=True) as app:
        yield app


def test_strip_editor_headline_and_bad_file_in_chromium(voila_super10, tmp_path):
    """Whole game and base part in the headline, stale after a free-spins edit, Estimate; a bad file refused on Open."""
    from playwright.sync_api import sync_playwright

    url, reelset, log = voila_super10
    shots = tmp_path / "screenshots"
    shots.mkdir()
    bad = tmp_path / "bad_reels.toml"
    bad.write_text(reelset.read_text().replace('reel1 = "PLUM GRAPES ORANGE WHEEL', 'reel1 = "PLUM GRAPES ORANGE BANANA', 1))
    assert "BANANA" in bad.read_text()
    status = ".wb-status"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, wait_until="domcontentloaded", timeout=APP_SECONDS * 1000)
            wait_headline(page, log, shots)

            # 1. on opening: the whole game estimated (exact base + simulated features), the exact base part
            whole = whole_shown(page)
            assert 90 <= whole <= 99, whole
            part = page.locator(".wb-base-part").inner_text()
            assert part.startswith("Base game RTP (exact)"), part
            base = base_shown(page)
            assert abs(base - 59.06) < 0.5, base
            assert page.locator(".wb-stale").count() == 0
            screenshot(page, shots / "01_opened.png")

            # 2. a base-game edit with the stop tools: both figures follow, nothing stale
            before_base = page.locator(".wb-base-part .wb-rtp-value").inner_text()
            before_whole = page.locator(".wb-whole-rtp").inner_text()
            page.locator(".wb-tool-symbol select").select_option("SEVEN")
            page.locator("button.wb-insert").click()
            wait_text_changed(page, ".wb-base-part .wb-rtp-value", before_base)
            assert base_shown(page) != base
            assert page.locator(".wb-whole-rtp").inner_text() != before_whole
            assert page.locator(".wb-stale").count() == 0
            screenshot(page, shots / "02_base_edit.png")
            assert_pinned(page, ".wb-reel-1 textarea", ".wb-reel-5 textarea", shots / "02_scrolled.png")

            # 3. an edit of the free spins' strips: the held feature terms are stale
            page.locator(".wb-strip-set select").select_option("free_spins")
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Editing strip set free_spins')",
                                   arg=status, timeout=STEP_MS)
            page.locator("button.wb-insert").click()
            page.locator(".wb-stale").wait_for(timeout=STEP_MS)
            assert "estimate again" in page.locator(".wb-stale").inner_text()
            stale_whole = whole_shown(page)
            screenshot(page, shots / "03_stale.png")

            # 4. Estimate whole game: fresh terms, the marker gone
            page.locator("button.wb-estimate-whole").click()
            page.locator(".wb-stale").wait_for(state="detached", timeout=30_000)
            assert 90 <= whole_shown(page) <= 99
            assert whole_shown(page) != stale_whole
            screenshot(page, shots / "04_estimated.png")

            # 5. a bad file: save first (unsaved changes block Open), then Open the bad file: a clear message
            page.locator("button.wb-save").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Saved')", arg=status, timeout=STEP_MS)
            page.locator(".wb-reelset input").fill(str(bad))
            page.locator("button.wb-open").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Not opened')", arg=status,
                                   timeout=STEP_MS)
            message = page.locator(status).inner_text()
            screenshot(page, shots / "05_bad_file.png")
            assert bad.name in message and "BANANA" in message, message
            assert "unknown symbol" in message, message
            body = page.locator("body").inner_text()
            assert "Traceback" not in body and 'File "/' not in body, message

            # 6. the editor still edits the previous game
            assert str(reelset) in page.locator("h3").first.inner_text()
            whole_shown(page)
            page.locator(".wb-strip-set select").select_option("base")  # the headline's part follows the strip set's mode
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Editing strip set base')",
                                   arg=status, timeout=STEP_MS)
            assert page.locator(".wb-base-part").inner_text().startswith("Base game RTP (exact)")
            before_base = page.locator(".wb-base-part .wb-rtp-value").inner_text()
            page.locator("button.wb-insert").click()
            wait_text_changed(page, ".wb-base-part .wb-rtp-value", before_base)
            page.locator("button.wb-undo").click()
            page.wait_for_function("(s) => document.querySelector(s).innerText.includes('Undone')", arg=status, timeout=STEP_MS)
            assert page.locator(".wb-base-part .wb-rtp-value").inner_text() == before_base
            screenshot(page, shots / "06_still_editing.png")
        finally:
            browser.close()
    assert validate_file(reelset) == []


def test_table_editor_headline_in_chromium(voila_tables, tmp_path):
    """A weight of table wheel: the headline's feature terms are stale; Estimate RTP refreshes them."""
    from playwright.sync_api import sync_playwright

    url, reelset, log = voila_tables
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, wait_until="domcontentloaded", timeout=APP_SECONDS * 1000)
            wait_headline(page, log, shots)
            whole = whole_shown(page)
            assert 90 <= whole <= 99, whole
            assert page.locator(".wb-stale").count() == 0
            assert page.locator("button.wb-estimate").is_visible() and not page.locator("button.wb-estimate-whole").is_visible()
            screenshot(page, shots / "01_opened.png")
            assert_pinned(page, ".wb-weight-wheel-1 input", ".wb-weight-bonus_game-1 input", shots / "01_scrolled.png")

            box = page.locator(".wb-weight-wheel-1 input")
            assert box.input_value() == "33"
            box.fill("3")
            box.press("Tab")
            page.locator(".wb-stale").wait_for(timeout=STEP_MS)
            screenshot(page, shots / "02_stale.png")

            page.locator("button.wb-estimate").click()
            page.locator(".wb-stale").wait_for(state="detached", timeout=45_000)
            assert whole_shown(page) != whole
            screenshot(page, shots / "03_estimated.png")
        finally:
            browser.close()


# ---------------------------------------------------------------------------
# the round viewer (notebooks/06_round_viewer.ipynb)
# ---------------------------------------------------------------------------
def step_round_viewer(page, scope: str, shoot) -> None:
    """The round viewer (inside ``scope``, a CSS selector or "") steps: Next shows step 2 and another picture
    (``shoot()`` then takes a screenshot), Previous step 1 again."""
    step = page.locator(f"{scope} .wb-rv-step".strip())
    first = step.inner_text()
    steps = int(re.match(r"step 1 of (\d+)", first).group(1))
    assert steps > 1, f"the round shows {steps} screen(s): nothing to step through"
    image = page.locator(f"{scope} img.wb-rv-image".strip()).get_attribute("src")
    page.locator(f"{scope} button.wb-rv-next".strip()).click()
    page.wait_for_function("([s, t]) => document.querySelector(s).innerText != t",
                           arg=[f"{scope} .wb-rv-step".strip(), first], timeout=STEP_MS)
    assert step.inner_text().startswith(f"step 2 of {steps}")
    assert page.locator(f"{scope} img.wb-rv-image".strip()).get_attribute("src") != image
    shoot()
    page.locator(f"{scope} button.wb-rv-prev".strip()).click()
    page.wait_for_function("([s, t]) => document.querySelector(s).innerText == t",
                           arg=[f"{scope} .wb-rv-step".strip(), first], timeout=STEP_MS)


def test_round_viewer_in_chromium(tmp_path):
    """The viewer finds the run's largest win, replays it and draws its first screen; Next and Previous step through
    its screens; a search for another condition lists rounds, and picking one replays it.  Screenshots of each."""
    from playwright.sync_api import sync_playwright

    from workbench.simulate.engine import round_model
    from workbench.simulate.replay import RoundPlayer
    from workbench.simulate.rng import chunk_state

    RoundPlayer(round_model(load_game("super_10_stars")), chunk_state(1, 0)).play()  # the compiled round, cached
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with serve(ROOT / "notebooks" / "06_round_viewer.ipynb", tmp_path) as (url, log), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(url, wait_until="domcontentloaded", timeout=APP_SECONDS * 1000)
            try:
                page.locator("img.wb-rv-image[src^='blob:'], img.wb-rv-image[src^='data:']").wait_for(
                    timeout=APP_SECONDS * 1000)
            except Exception:
                screenshot(page, shots / "00_no_round.png")
                pytest.fail(f"the viewer did not draw a round within {APP_SECONDS} s; voila log:\n{log.read_text()}")
            screenshot(page, shots / "01_max_win_round.png")
            step = page.locator(".wb-rv-step")
            first = step.inner_text()
            match = re.fullmatch(r"step 1 of (\d+) · total so far ([\d,.]+) x total bet", first)
            assert match, first
            steps = int(match.group(1))
            assert steps > 1  # Super 10 Stars' largest win of a million rounds comes with a feature
            assert "workbench replay super_10_stars --seed 1 --round " in page.locator(".wb-rv-status").inner_text()
            assert re.search(r"win [\d,.]+ x total bet", page.locator(".wb-rv-summary").inner_text())
            step_round_viewer(page, "", lambda: screenshot(page, shots / "02_next_step.png"))
            # another search: the rounds that paid 100 x total bet or more; the second one replayed
            where = page.locator(".wb-rv-where input")
            where.fill("win >= 100")
            page.locator("button.wb-rv-find").click()
            page.wait_for_function("document.querySelector('.wb-rv-status').innerText.includes('win >= 100')",
                                   timeout=STEP_MS)
            options = page.locator(".wb-rv-rounds select option")
            second = options.nth(1).inner_text().replace("\xa0", " ")  # (a select shows spaces as no-break spaces)
            assert options.count() >= 2 and re.match(r"round [\d,]+: [\d,.]+ x total bet \(paid ", second), second
            picked = int(second.split(":")[0].removeprefix("round ").replace(",", ""))
            page.locator(".wb-rv-rounds select").select_option(index=1)
            page.locator("button.wb-rv-replay").click()
            page.wait_for_function(f"document.querySelector('.wb-rv-status').innerText.includes('--round {picked}')",
                                   timeout=STEP_MS)
            screenshot(page, shots / "03_found_round.png")
            assert "Traceback" not in page.locator("body").inner_text()
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
        finally:
            browser.close()
