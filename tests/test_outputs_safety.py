"""Outputs and checkpoints that cannot be tampered with or destroyed (docs/reliability.md).

- checkpoints carry a SHA-256 checksum of their content and are refused, naming
  the file, when it does not match (single-digit edits), when they predate it,
  or when re-signed forged sums contradict each other;
- the report's kernel never starts in the output folder, so modules planted
  there do not run;
- every output file (PAR workbook, CSV, JSON, HTML, executed notebook,
  checkpoint) is written atomically: on a full disk the previous file stays
  byte for byte and the message names the file, with no "Exception ignored"
  traceback;
- a planted ``.NAME.lock`` symlink is refused, and nothing is created where it points.
"""

from __future__ import annotations

import errno
import json
import os
import random
import re
import resource
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from workbench import cli, par, report
from workbench.errors import ReportError, SimulationError, WorkbenchError
from workbench.io import load_game, save_game
from workbench.io.atomic import lock_path, temp_files, write_output
from workbench.report.workbook import write_par_workbook
from workbench.simulate import checkpoints, simulate
from workbench.simulate.checkpoints import Checkpoint, checkpoint_checksum
from workbench.simulate.lanes import SIMULATE_BLOCK, Plan

SPINS = 600_000  # one short block of 2^20 rounds


class _StopAtOnce:
    """A progress bar that stops the run after its first job (as Ctrl-C would)."""

    def update(self, rounds):
        raise KeyboardInterrupt

    def close(self):
        pass


def _strip(d: dict) -> dict:
    return {k: v for k, v in d.items() if not k.endswith(("seconds", "spins_per_second")) and k != "elapsed"}


@pytest.fixture(scope="module")
def stopped(classic, tmp_path_factory):
    """The text of the checkpoint of a run stopped after 200,000 of its 600,000 rounds (a block played in part)."""
    import workbench.simulate as sim

    path = tmp_path_factory.mktemp("ckpt") / "run.ckpt"
    mp = pytest.MonkeyPatch()
    mp.setattr(sim, "make_progress", lambda *a, **k: _StopAtOnce())
    try:
        assert simulate(classic, SPINS, 2, chunk_size=200_000, checkpoint=str(path), progress=True).spins == 200_000
    finally:
        mp.undo()
    return path.read_text()


@pytest.fixture(scope="module")
def finished(classic, tmp_path_factory):
    """The text of the checkpoint of a finished 300,000-round run (one folded block)."""
    path = tmp_path_factory.mktemp("ckpt") / "done.ckpt"
    simulate(classic, 300_000, 3, checkpoint=str(path))
    return path.read_text()


def _resigned(data: dict) -> str:
    """A forger's file: ``data`` with a checksum recomputed the way the workbench computes it."""
    content = {k: v for k, v in data.items() if k != "checksum"}
    return json.dumps({**content, "checksum": checkpoint_checksum(content)})


# ---------------------------------------------------------------------------
# 1. checkpoints: checksum, earlier formats, consistency of forged sums
# ---------------------------------------------------------------------------
def test_a_checkpoint_carries_the_checksum_of_its_content(stopped):
    data = json.loads(stopped)
    assert data["format"] == checkpoints.CHECKPOINT_FORMAT
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", data["checksum"])
    assert data["checksum"] == checkpoint_checksum({k: v for k, v in data.items() if k != "checksum"})
    # the signature inside the checksummed content ties it to the game file, the seed and the run
    assert {"game_sha256", "seed", "spins", "stake", "block"} <= set(data["signature"])


def test_single_digit_edits_of_a_checkpoint_are_all_refused(classic, stopped, tmp_path):
    path = tmp_path / "run.ckpt"
    digits = [i for i, c in enumerate(stopped) if c.isdigit()]
    rng = random.Random(2024)
    tried = 0
    while tried < 25:
        i = rng.choice(digits)
        edited = stopped[:i] + rng.choice([d for d in "0123456789" if d != stopped[i]]) + stopped[i + 1:]
        try:
            json.loads(edited)
        except ValueError:
            continue  # the review's edits were still valid JSON
        tried += 1
        path.write_text(edited)
        with pytest.raises(SimulationError) as info:
            simulate(classic, SPINS, 2, checkpoint=str(path))
        message = str(info.value)
        assert str(path) in message, message
        # (an edit of the format's own number reads as an earlier format, or as no checkpoint at all)
        assert "delete it to start the run over" in message or "not a workbench checkpoint" in message, message
        assert "changed or damaged" in message or "predates" in message or "not a workbench" in message, message
        assert path.read_text() == edited  # refused before anything is written
    path.write_text(stopped)
    resumed = simulate(classic, SPINS, 2, checkpoint=str(path))
    assert _strip(resumed.to_dict()) == _strip(simulate(classic, SPINS, 2).to_dict())


def test_the_cli_refuses_an_edited_checkpoint_in_one_line(stopped, tmp_path):
    path = tmp_path / "run.ckpt"
    data = json.loads(stopped)
    data["lanes"][0]["partial"]["0"]["result"]["totals"][1] *= 7  # the RTP x 7, checksum kept
    path.write_text(json.dumps(data))
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", "simulate", "classic_tens", "--spins", str(SPINS),
                           "--seed", "2", "--json", "--quiet", "--checkpoint", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"workbench: {path}: changed or damaged checkpoint: its checksum does not match")
    assert "delete it to start the run over" in lines[0]


def test_a_checkpoint_of_an_earlier_format_is_refused_as_predating_the_check(classic, stopped, tmp_path):
    path = tmp_path / "old.ckpt"
    data = json.loads(stopped)
    del data["checksum"]
    for fmt in ("workbench-checkpoint-2", "workbench-checkpoint-1"):
        text = json.dumps({**data, "format": fmt})
        path.write_text(text)
        with pytest.raises(SimulationError, match="predates the checksum") as info:
            simulate(classic, SPINS, 2, checkpoint=str(path))
        assert str(path) in str(info.value) and "delete it to start the run over" in str(info.value)
        assert path.read_text() == text
    three = json.dumps({**data, "format": "workbench-checkpoint-3"})
    path.write_text(three)
    with pytest.raises(SimulationError, match="earlier version .* raw squares"):
        simulate(classic, SPINS, 2, checkpoint=str(path))
    path.write_text(json.dumps(data))  # this format without its checksum
    with pytest.raises(SimulationError, match="changed or damaged checkpoint: it has no checksum"):
        simulate(classic, SPINS, 2, checkpoint=str(path))


def test_odd_checkpoint_files_are_refused_with_a_message(classic, stopped, tmp_path):
    path = tmp_path / "odd.ckpt"
    data = json.loads(stopped)
    for text, message in ((json.dumps({**data, "checksum": "sha256:\u00e9t\u00e9"}), "checksum does not match"),
                          (json.dumps({**data, "checksum": 12}), "it has no checksum"),
                          ("[" * 100_000 + "]" * 100_000, "not a readable checkpoint"),
                          (json.dumps({**data, "extra": "added"}), "checksum does not match")):
        path.write_text(text)
        with pytest.raises(SimulationError, match=message):
            simulate(classic, SPINS, 2, checkpoint=str(path))


def _forgeries(finished: dict, stopped: dict):
    """(name, forged data) pairs: each changes the sums as a forger who recomputes the checksum would."""
    def edit(base, change):
        data = json.loads(json.dumps(base))
        change(data)
        return data

    def lane(d):
        return d["lanes"][0]

    def rtp_721(d):  # the review's "RTP 721 %": wins x 7.5, squares left alone
        total = lane(d)["total"]
        total["totals"][1] = total["totals"][1] * 15 // 2
        total["comp_sum"] = [v * 15 // 2 for v in total["comp_sum"]]

    yield "rounds", edit(finished, lambda d: lane(d)["total"]["totals"].__setitem__(0, 4 * SIMULATE_BLOCK))
    yield "finished blocks", edit(finished, lambda d: lane(d).__setitem__("next_block", 0))
    yield "rtp 721 %", edit(finished, rtp_721)
    yield "histogram", edit(finished, lambda d: lane(d)["total"]["hist"].__setitem__(-1, 5))
    yield "negative count", edit(finished, lambda d: lane(d)["total"]["maxwin"].__setitem__(1, -3))
    yield "negative wins", edit(finished, lambda d: lane(d)["total"]["totals"].__setitem__(1, -10))
    yield "largest win", edit(finished, lambda d: lane(d)["total"]["maxwin"].__setitem__(0, 1))
    yield "not a number", edit(finished, lambda d: lane(d)["total"]["squares"].__setitem__(0, float("nan")))
    yield "trace", edit(finished, lambda d: lane(d)["trace"].__setitem__("stride", 0))
    yield "trace points", edit(finished, lambda d: lane(d)["trace"]["points"].append([10**9, 1, 1.0]))
    yield "part rounds", edit(stopped, lambda d: lane(d)["partial"]["0"].__setitem__("played", 300_000))
    yield "part shape", edit(stopped, lambda d: lane(d)["partial"]["0"]["result"].__setitem__("hist", [0, 1]))
    yield "random state", edit(stopped, lambda d: lane(d)["partial"]["0"].__setitem__("rng", [2**70] * 6))
    yield "block number", edit(stopped, lambda d: lane(d)["partial"].__setitem__("7", lane(d)["partial"]["0"]))


def test_forged_sums_with_a_recomputed_checksum_are_refused(classic, finished, stopped, tmp_path):
    path = tmp_path / "forged.ckpt"
    good = {"finished": json.loads(finished), "stopped": json.loads(stopped)}
    for name, data in _forgeries(good["finished"], good["stopped"]):
        spins, seed = (300_000, 3) if data["signature"]["spins"] == 300_000 else (SPINS, 2)
        path.write_text(_resigned(data))
        with pytest.raises(SimulationError, match="changed or damaged checkpoint") as info:
            simulate(classic, spins, seed, checkpoint=str(path))
        assert str(path) in str(info.value) and "delete it to start the run over" in str(info.value), name
    # the re-signing itself is right: the unchanged content, re-signed, resumes to the run's own result
    path.write_text(_resigned(good["finished"]))
    assert _strip(simulate(classic, 300_000, 3, checkpoint=str(path)).to_dict()) == \
        _strip(simulate(classic, 300_000, 3).to_dict())


# ---------------------------------------------------------------------------
# 2. the report's kernel never runs in the output folder
# ---------------------------------------------------------------------------
PLANTED = ("ipykernel_launcher", "workbench", "numpy", "papermill", "IPython", "pandas")


def test_a_report_runs_no_module_planted_in_its_output_folder(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    markers = tmp_path / "markers"
    markers.mkdir()
    for name in PLANTED:
        (out / f"{name}.py").write_text(f"open({str(markers / name)!r}, 'w').write('ran')\nraise SystemExit(3)\n")
    monkeypatch.chdir(out)  # also when the output folder is the working folder (workbench report --out .)
    files = report.generate_report("classic_tens", out, spins=5_000, seed=3, precision=0.05)
    assert sorted(p.name for p in markers.iterdir()) == []
    # the notebook's own paths still resolve: every file landed in the output folder, none elsewhere
    assert all(p.exists() and p.parent == out.resolve() for p in files.all())
    executed = nbformat.read(files.notebook, as_version=4)
    assert not [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert "Classic" in files.html.read_text(encoding="utf-8")


def test_the_kernel_is_started_in_a_private_folder_without_the_working_folder_on_its_path():
    spec = report.pipeline.kernel_manager_class()().kernel_spec
    assert spec.argv[1:4] == ["-P", "-m", "ipykernel_launcher"] or sys.version_info < (3, 11)


# ---------------------------------------------------------------------------
# 3. a full disk leaves every previous output file as it was
# ---------------------------------------------------------------------------
@contextmanager
def disk_full(name: str):
    """Writes to the temp file of output ``name`` land in part, then fail with ENOSPC (no root needed)."""
    real = os.write

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if f"/.{name}." not in target:
            return real(fd, data)
        real(fd, bytes(data[: len(data) // 2]))  # part of it reaches the disk, as when it fills up mid-write
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    os.write = write
    try:
        yield
    finally:
        os.write = real


def _edited(game):
    """``game`` with its first stop of reel 1 changed (so every PAR table changes)."""
    symbols = game.strip_sets["base"].reels[0].symbols
    return game.with_strip("base", 1, ("BAR",) + symbols[1:])


def _unchanged(path: Path, before: bytes, message: str, capfd) -> None:
    assert path.read_bytes() == before
    assert str(path) in message and "disk full" in message and "unchanged" in message, message
    assert temp_files(path) == [] and not lock_path(path).exists()
    assert "Exception ignored" not in capfd.readouterr().err


def test_a_full_disk_keeps_the_previous_par_workbook(classic, tmp_path, capfd):
    out = tmp_path / "classic_par.xlsx"
    write_par_workbook(out, classic)
    before = out.read_bytes()
    with disk_full(out.name), pytest.raises(WorkbenchError) as info:
        write_par_workbook(out, classic, provenance={"seed": 5})
    _unchanged(out, before, str(info.value), capfd)
    # the library's raw workbook too
    raw = tmp_path / "raw.xlsx"
    par(classic).to_excel(raw)
    before = raw.read_bytes()
    with disk_full(raw.name), pytest.raises(WorkbenchError) as info:
        par(_edited(classic)).to_excel(raw)
    _unchanged(raw, before, str(info.value), capfd)


def test_the_cli_on_a_full_disk_names_the_workbook_and_keeps_it(classic, tmp_path, capfd):
    out = tmp_path / "par.xlsx"
    write_par_workbook(out, _edited(classic))  # the previous good workbook (of an earlier version of the game)
    before = out.read_bytes()
    capfd.readouterr()
    with disk_full(out.name):
        status = cli.main(["par", "classic_tens", "--xlsx", str(out)])
    err = capfd.readouterr().err
    assert status == 2 and err.strip().splitlines() == [err.strip()] and err.startswith(f"workbench: cannot write {out}: ")
    assert "Exception ignored" not in err and "Traceback" not in err
    _unchanged(out, before, err, capfd)


def test_a_file_size_limit_in_a_real_process_leaves_the_workbook_and_one_line(tmp_path):
    """The review's case through a real process: every file it writes is limited to 20 kB
    (RLIMIT_FSIZE, so openpyxl's own temp files fail too), the workbook is 50 kB."""
    out = tmp_path / "par.xlsx"
    command = [sys.executable, "-m", "workbench.cli", "par", "classic_tens", "--xlsx", str(out)]
    subprocess.run(command, capture_output=True, check=True, timeout=120)
    before = out.read_bytes()
    assert len(before) > 20_000

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    proc = subprocess.run(command, capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"workbench: cannot write {out}: file too large"), proc.stderr
    assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert out.read_bytes() == before and temp_files(out) == []


def test_a_full_disk_keeps_every_previous_report_data_file(classic, tmp_path, capfd):
    from workbench.report.files import output_paths, write_outputs

    edited = _edited(classic)
    paths = output_paths(tmp_path, "classic_tens")
    for target in (paths["xlsx"], paths["csv"]["combinations"], paths["par_json"], paths["report_json"]):
        write_outputs(tmp_path, classic, par(classic), {"provenance": {"seed": 1}})
        before = target.read_bytes()
        with disk_full(target.name), pytest.raises(WorkbenchError) as info:
            write_outputs(tmp_path, edited, par(edited), {"provenance": {"seed": 2}})
        _unchanged(target, before, str(info.value), capfd)


def _tiny_notebook(path: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os\nprint(os.getcwd())")]
    nbformat.write(nb, path)
    return path


def test_a_full_disk_keeps_the_previous_html_page_and_executed_notebook(tmp_path, capfd):
    source = _tiny_notebook(tmp_path / "tiny.ipynb")
    out = tmp_path / "out"
    out.mkdir()
    executed = report.execute_notebook(source, out / "tiny.ipynb", {})
    # the kernel ran in a private folder of its own, not in the output folder nor the working folder
    cwd = nbformat.read(executed, as_version=4).cells[0].outputs[0]["text"].strip()
    assert cwd not in (str(out), os.getcwd()) and not Path(cwd).exists()  # removed after the run
    html = report.render_html(executed, out / "tiny.html", title="first")
    before = {p: p.read_bytes() for p in (executed, html)}
    with disk_full(html.name), pytest.raises(ReportError) as info:
        report.render_html(executed, html, title="second")
    _unchanged(html, before[html], str(info.value), capfd)
    with disk_full(executed.name), pytest.raises(ReportError) as info:
        report.execute_notebook(source, executed, {})
    _unchanged(executed, before[executed], str(info.value), capfd)


def test_a_full_disk_keeps_the_previous_checkpoint(classic, stopped, tmp_path, capfd):
    path = tmp_path / "run.ckpt"
    path.write_text(stopped)
    plan = Plan(SIMULATE_BLOCK, SIMULATE_BLOCK, 2, 0)
    plan.lane(-1, SPINS, trace=True)
    store = Checkpoint.open(path, json.loads(stopped)["signature"], plan)  # resumes; the same content: nothing written
    store.signature = {**store.signature, "note": "changed"}  # new content to save
    with disk_full(path.name), pytest.raises(SimulationError) as info:
        store.save()
    assert str(info.value).startswith(f"cannot write {path}: ")
    _unchanged(path, stopped.encode(), str(info.value), capfd)


# ---------------------------------------------------------------------------
# 4. lock files are never followed through a link
# ---------------------------------------------------------------------------
def test_a_planted_lock_link_is_refused_and_creates_nothing(classic, tmp_path):
    game_file = tmp_path / "g.toml"
    game_file.write_text(classic.text)
    game = load_game(game_file)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    must_not_exist = elsewhere / "created-by-the-lock.txt"
    lock = lock_path(game_file)
    os.symlink(must_not_exist, lock)
    edited = game.with_strip("base", 1, tuple(reversed(game.strip_sets["base"].reels[0].symbols)))
    with pytest.raises(WorkbenchError) as info:
        save_game(edited)
    message = str(info.value)
    assert str(game_file) in message and str(lock) in message and "symbolic link" in message and "remove" in message
    assert not must_not_exist.exists() and game_file.read_text() == classic.text
    assert not (tmp_path / "g.toml.bak").exists()
    # a link to an existing file: the file is neither truncated nor touched
    victim = elsewhere / "victim.txt"
    victim.write_text("precious")
    stamp = victim.stat().st_mtime_ns
    out = tmp_path / "report.json"
    os.symlink(victim, lock_path(out))
    with pytest.raises(WorkbenchError, match="symbolic link"):
        write_output(out, "{}\n")
    assert victim.read_text() == "precious" and victim.stat().st_mtime_ns == stamp and not out.exists()
    # with the link removed, the save goes through
    os.unlink(lock)
    assert save_game(edited).written


def test_an_rtp_estimate_resumes_from_its_checkpoint_and_refuses_a_changed_one(tmp_path):
    """workbench rtp --checkpoint: a time-boxed estimate resumes to the uninterrupted estimate bit for bit (its
    batches are in the file, under the checksum); a single digit changed in the file is refused."""
    from workbench.io import load_game
    from workbench.simulate import estimate_rtp

    game = load_game("examples/ways_free_spins")
    full = estimate_rtp(game, precision=0.0002, seed=5)
    path = tmp_path / "rtp.ckpt"
    part = estimate_rtp(game, precision=0.0002, seed=5, checkpoint=str(path), max_seconds=0.5)
    assert part.stopped_by == "time box" and part.samples < full.samples
    saved = path.read_text()
    assert '"kind": "rtp"' in saved and '"batches"' in saved
    digit = next(i for i, ch in enumerate(saved) if ch.isdigit() and i > saved.index('"batches"'))
    path.write_text(saved[:digit] + str((int(saved[digit]) + 1) % 10) + saved[digit + 1:])
    with pytest.raises(SimulationError, match="changed or damaged checkpoint"):
        estimate_rtp(game, precision=0.0002, seed=5, checkpoint=str(path))
    path.write_text(saved)
    resumed = estimate_rtp(game, precision=0.0002, seed=5, checkpoint=str(path))
    assert (resumed.rtp, resumed.rtp_ci95, resumed.samples) == (full.rtp, full.rtp_ci95, full.samples)
    other = estimate_rtp(game, precision=0.0002, seed=6, checkpoint=str(tmp_path / "other.ckpt"), max_seconds=0.3)
    with pytest.raises(SimulationError, match="different run"):  # another seed's checkpoint is not this run's
        estimate_rtp(game, precision=0.0002, seed=5, checkpoint=str(tmp_path / "other.ckpt"))
    assert other.samples > 0
