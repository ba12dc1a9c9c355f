"""Saving a reelset never loses or corrupts a designer's work (issue 15).

Symlinks, path spellings, line endings, permissions, NAME.bak, stale temp files of
killed saves, concurrent saves (threads and a process holding the lock), every
failure a ReelsetError naming the file, and a kill test (SIGKILL at random times).
"""

from __future__ import annotations

import errno
import importlib.util
import os
import re
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.errors import ReelsetError, WorkbenchError
from workbench.io import atomic_write_text, load_game, reelsets_dir, save_game
from workbench.io.atomic import lock_path, temp_files

ROOT = Path(__file__).resolve().parents[1]
CLASSIC = (reelsets_dir() / "classic_tens.toml").read_bytes()


def _copy(folder: Path, name: str = "g.toml", data: bytes = CLASSIC) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return path


def _reversed_reel(game, reel: int = 1):
    return game.with_strip("base", reel, list(game.strip_sets["base"].reels[reel - 1].symbols)[::-1])


def _rotated_reel(game, reel: int = 2, k: int = 1):
    symbols = game.strip_sets["base"].reels[reel - 1].symbols
    return game.with_strip("base", reel, symbols[k:] + symbols[:k])


def _leftovers(path: Path) -> list[Path]:
    """Temp and lock files of ``path`` still on disk."""
    return temp_files(path) + ([lock_path(path)] if lock_path(path).exists() else [])


def _someone_else_edits(path: Path) -> bytes:
    changed = path.read_bytes() + b"\n# someone else's edit\n"
    path.write_bytes(changed)
    return changed


def _wrapped_reel1(text: str, per_line: int = 8) -> str:
    reel1 = re.search(r'^reel1 = "(.*)"$', text, re.M).group(1).split()
    wrapped = 'reel1 = """\n' + "\n".join(" ".join(reel1[i:i + per_line]) for i in range(0, len(reel1), per_line)) + '\n"""  # first reel'
    return re.sub(r'^reel1 = ".*"$', lambda m: wrapped, text, flags=re.M)


# ---------------------------------------------------------------------------
# paths: symlinks, spellings
# ---------------------------------------------------------------------------
def test_save_through_symlink_writes_the_target_and_keeps_the_link(tmp_path):
    real = _copy(tmp_path / "real")
    (tmp_path / "links").mkdir()
    link = tmp_path / "links" / "g.toml"
    link.symlink_to(Path("..") / "real" / "g.toml")  # a relative link
    saved = save_game(_reversed_reel(load_game(link)))
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "real" / "g.toml")
    assert real.read_bytes() != CLASSIC and link.read_bytes() == real.read_bytes()
    assert load_game(real).strip_sets["base"].reels[0] == saved.game.strip_sets["base"].reels[0]
    assert saved.path == link and saved.target == real.resolve()
    assert (real.parent / "g.toml.bak").read_bytes() == CLASSIC  # the backup sits next to the real file
    assert sorted(p.name for p in (tmp_path / "links").iterdir()) == ["g.toml"]
    # a change made through the real name is seen when saving through the link
    game = load_game(link)
    _someone_else_edits(real)
    with pytest.raises(ReelsetError, match="changed on disk"):
        save_game(_rotated_reel(game))


def test_relative_and_absolute_spellings_of_the_same_file_are_one_file(tmp_path, monkeypatch):
    path = _copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    # loaded by its absolute path, saved under a relative spelling
    game = load_game(path)
    changed = _someone_else_edits(path)
    with pytest.raises(ReelsetError, match="changed on disk") as info:
        save_game(_reversed_reel(game), "g.toml")
    assert "g.toml" in str(info.value)
    assert path.read_bytes() == changed
    # loaded by a relative path, changed through the absolute one
    game = load_game("g.toml")
    path.write_bytes(CLASSIC)
    with pytest.raises(ReelsetError, match="changed on disk"):
        save_game(_reversed_reel(game))
    assert path.read_bytes() == CLASSIC
    assert _leftovers(path) == []


def test_dotdot_in_the_path_is_the_same_file(tmp_path):
    path = _copy(tmp_path)
    (tmp_path / "sub").mkdir()
    dotted = tmp_path / "sub" / ".." / "g.toml"
    game = load_game(dotted)
    _someone_else_edits(path)
    with pytest.raises(ReelsetError, match="changed on disk"):
        save_game(_reversed_reel(game))
    with pytest.raises(ReelsetError, match="changed on disk"):
        save_game(_reversed_reel(game), path)
    path.write_bytes(CLASSIC)
    saved = save_game(_reversed_reel(load_game(path)), dotted)  # the same file, spelled with ..
    assert saved.written and saved.target == path.resolve()
    assert not (tmp_path / "sub" / "g.toml").exists()
    assert load_game(path).strip_sets["base"].reels[0] == saved.game.strip_sets["base"].reels[0]


# ---------------------------------------------------------------------------
# content: line endings, layout, permissions, read-only, backup
# ---------------------------------------------------------------------------
def test_crlf_file_is_saved_with_crlf_twice_and_round_trips(tmp_path):
    original = _wrapped_reel1(CLASSIC.decode()).replace("\n", "\r\n").encode()  # with a multi-line strip
    path = _copy(tmp_path, data=original)
    game = load_game(path)
    unchanged = save_game(game)
    assert not unchanged.written and unchanged.diff == ""
    first = save_game(_reversed_reel(game))  # used to be "changed on disk" every time
    data = path.read_bytes()
    assert data.count(b"\r\n") == original.count(b"\r\n")  # same number of lines, all CRLF
    assert data.replace(b"\r\n", b"").count(b"\n") == 0 and b"\r" not in data.replace(b"\r\n", b"")
    top = " ".join(game.strip_sets["base"].reels[0].symbols[::-1][:8])
    assert f'reel1 = """\r\n{top}\r\n'.encode() in data  # no blank line after the opening quotes
    second = save_game(_rotated_reel(first.game))  # a second save of the saved game
    assert second.written and path.read_bytes().replace(b"\r\n", b"").count(b"\n") == 0
    back = save_game(second.game.with_strip("base", 1, game.strip_sets["base"].reels[0].symbols)
                     .with_strip("base", 2, game.strip_sets["base"].reels[1].symbols))
    assert back.written and path.read_bytes() == original  # byte for byte the file we started with


def test_multiline_strip_edit_adds_no_blank_line(tmp_path):
    text = _wrapped_reel1(CLASSIC.decode())
    path = _copy(tmp_path, data=text.encode())
    game = load_game(path)
    saved = save_game(_reversed_reel(game))
    body = [l for l in saved.diff.splitlines() if l[:1] in "+-" and l[:3] not in ("+++", "---")]
    removed, added = [l for l in body if l[0] == "-"], [l for l in body if l[0] == "+"]
    assert len(removed) == len(added) == 5 and all(l[1:].strip() for l in added)  # 37 stops, 8 per line
    assert 'reel1 = """\n' + " ".join(game.strip_sets["base"].reels[0].symbols[::-1][:8]) + "\n" in path.read_text()


def test_permissions_are_kept_and_a_new_file_gets_the_umask(tmp_path):
    path = _copy(tmp_path)
    path.chmod(0o640)
    save_game(_reversed_reel(load_game(path)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    mask = os.umask(0o027)
    try:
        saved = save_game(load_game(path), tmp_path / "new.toml")
    finally:
        os.umask(mask)
    assert saved.written and saved.backup is None
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o640  # 0o666 & ~0o027, not mkstemp's 0o600


def test_read_only_file_is_refused_with_its_name(tmp_path):
    path = _copy(tmp_path)
    game = load_game(path)
    assert not save_game(game).written  # nothing to write: no refusal needed
    path.chmod(0o444)
    try:
        with pytest.raises(ReelsetError, match="read-only") as info:
            save_game(_reversed_reel(game))
        assert str(path) in str(info.value)
        assert path.read_bytes() == CLASSIC and stat.S_IMODE(path.stat().st_mode) == 0o444
        assert not (tmp_path / "g.toml.bak").exists() and _leftovers(path) == []
        link = tmp_path / "link.toml"
        link.symlink_to(path)
        with pytest.raises(ReelsetError, match=f"{re.escape(str(path))} is read-only"):
            save_game(_reversed_reel(load_game(link)))
    finally:
        path.chmod(0o644)
    assert save_game(_reversed_reel(game)).written  # writable again: saved


def test_bak_holds_the_previous_version(tmp_path):
    path = _copy(tmp_path)
    backup = tmp_path / "g.toml.bak"
    first = save_game(_reversed_reel(load_game(path)))
    assert first.backup == backup.resolve() and backup.read_bytes() == CLASSIC
    v1 = path.read_bytes()
    second = save_game(_rotated_reel(first.game))
    assert backup.read_bytes() == v1 and path.read_bytes() != v1
    assert load_game(backup).strip_sets == first.game.strip_sets  # a complete, valid version
    assert path.stat().st_ino != backup.stat().st_ino
    assert second.backup == backup.resolve() and _leftovers(path) == []


# ---------------------------------------------------------------------------
# stale temp files of killed saves
# ---------------------------------------------------------------------------
def test_stale_temp_files_are_cleaned_and_reported_and_nothing_else_is_touched(tmp_path):
    path = _copy(tmp_path)
    stale = tmp_path / ".g.toml.abcd1234.tmp"
    stale.write_bytes(CLASSIC[:1000])  # a save killed mid-write
    hour_ago = time.time() - 3600
    os.utime(stale, (hour_ago, hour_ago))
    newer = tmp_path / ".g.toml.zzzz9999.tmp"  # not older than this save (clock ahead): left alone
    newer.write_bytes(b"x")
    os.utime(newer, (time.time() + 3600, time.time() + 3600))
    others = [".g.toml.abc.tmp", ".g.toml.abcd1234.tmp.keep", ".other.toml.abcd1234.tmp", "g.toml.abcd1234.tmp",
              ".g.toml.ABCD1234.tmp", ".g.toml.bak"]
    for name in others:
        (tmp_path / name).write_bytes(b"keep me")
        os.utime(tmp_path / name, (hour_ago, hour_ago))
    folder = tmp_path / ".g.toml.dir12345.tmp"
    folder.mkdir()
    os.utime(folder, (hour_ago, hour_ago))
    saved = save_game(load_game(path))  # even a save with nothing to write cleans up
    assert not saved.written
    assert saved.cleaned == (stale,) and not stale.exists()
    assert newer.exists() and folder.is_dir()
    assert all((tmp_path / name).read_bytes() == b"keep me" for name in others)
    assert save_game(_reversed_reel(load_game(path))).cleaned == ()


# ---------------------------------------------------------------------------
# concurrent saves
# ---------------------------------------------------------------------------
def test_two_sessions_of_one_file_the_second_save_is_refused(tmp_path, monkeypatch):
    path = _copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    first, second = load_game(path), load_game("g.toml")  # two editors, two spellings
    saved = save_game(_reversed_reel(first))
    with pytest.raises(ReelsetError, match="changed on disk") as info:
        save_game(_rotated_reel(second))
    assert "reload it or save with force" in str(info.value)
    assert load_game(path).strip_sets == saved.game.strip_sets
    forced = save_game(_rotated_reel(second), force=True)  # the designer decides to overwrite
    assert forced.written and (tmp_path / "g.toml.bak").read_bytes() == saved.game.text.encode()


def test_simultaneous_saves_from_two_threads_exactly_one_wins(tmp_path):
    path = _copy(tmp_path)
    for round_ in range(8):
        games = [load_game(path), load_game(tmp_path / "." / "g.toml")]
        edits = [_reversed_reel(games[0], 1 + round_ % 5), _rotated_reel(games[1], 1 + (round_ + 2) % 5, 1 + round_)]
        barrier = threading.Barrier(2)
        results: list = [None, None]

        def save(i: int) -> None:
            barrier.wait()
            try:
                results[i] = save_game(edits[i])
            except ReelsetError as exc:
                results[i] = exc

        threads = [threading.Thread(target=save, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        won = [r for r in results if not isinstance(r, Exception)]
        lost = [r for r in results if isinstance(r, Exception)]
        assert len(won) == 1 and len(lost) == 1 and "changed on disk" in str(lost[0])
        assert path.read_bytes() == won[0].game.text.encode()
        assert _leftovers(path) == []


_HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_lock_held_by_another_process_refuses_then_waits(tmp_path):
    path = _copy(tmp_path)
    game = load_game(path)
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(lock_path(path)), "60"], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        t0 = time.monotonic()
        with pytest.raises(ReelsetError, match="another save of this file is in progress") as info:
            save_game(_reversed_reel(game), lock_timeout=0.3)
        assert 0.25 < time.monotonic() - t0 < 5
        assert str(path) in str(info.value) and str(lock_path(path)) in str(info.value)
        assert path.read_bytes() == CLASSIC and temp_files(path) == []
    finally:
        holder.kill()
        holder.wait()
    # a holder that lets go within the timeout: the save waits for it, then saves
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(lock_path(path)), "0.5"], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"locked"
        t0 = time.monotonic()
        saved = save_game(_reversed_reel(game), lock_timeout=20)
        assert time.monotonic() - t0 > 0.2 and saved.written
    finally:
        holder.kill()
        holder.wait()
    assert _leftovers(path) == []  # the lock file is removed after the save


# ---------------------------------------------------------------------------
# failures: a ReelsetError naming the file and the reason; the file unchanged
# ---------------------------------------------------------------------------
def test_failures_name_the_file_and_the_reason(tmp_path, monkeypatch):
    path = _copy(tmp_path)
    game = load_game(path)
    missing = tmp_path / "nope" / "g.toml"
    with pytest.raises(ReelsetError, match="does not exist") as info:
        save_game(game, missing)
    assert str(missing) in str(info.value) and not (tmp_path / "nope").exists()
    (tmp_path / "adir.toml").mkdir()
    with pytest.raises(ReelsetError, match="is a folder"):
        save_game(game, tmp_path / "adir.toml")

    def disk_full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(ReelsetError, match="disk full") as info:
        save_game(_reversed_reel(game))
    monkeypatch.undo()
    assert str(path) in str(info.value) and "unchanged" in str(info.value)
    assert path.read_bytes() == CLASSIC and _leftovers(path) == []
    assert (tmp_path / "g.toml.bak").read_bytes() == CLASSIC  # the backup, if made, is complete
    # and the CLI's rule: a WorkbenchError, never a traceback
    assert issubclass(ReelsetError, WorkbenchError)


def test_atomic_write_text_for_checkpoints(tmp_path):
    target = tmp_path / "run.ckpt"
    mask = os.umask(0o022)
    try:
        first = atomic_write_text(target, '{"done": {}}\r\n')
    finally:
        os.umask(mask)
    assert first.written and target.read_bytes() == b'{"done": {}}\r\n'  # text as given
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert atomic_write_text(str(target), '{"done": {"a": 1}}').previous == b'{"done": {}}\r\n'
    assert not atomic_write_text(target, '{"done": {"a": 1}}').written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.ckpt"]  # no backup, lock or temp file
    with pytest.raises(WorkbenchError, match="does not exist"):
        atomic_write_text(tmp_path / "missing" / "run.ckpt", "{}")


# ---------------------------------------------------------------------------
# the kill test
# ---------------------------------------------------------------------------
def _bench():
    spec = importlib.util.spec_from_file_location("bench_save_kill", ROOT / "benchmarks" / "bench_save_kill.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_saves_killed_at_random_times_leave_a_valid_old_or_new_file(tmp_path):
    # 20 trials; each fsync of a file by the saving child is 100 ms slower (a slow disk) so that
    # about half of the kills land between creating the temp file and renaming it
    out = _bench().run_trials(20, seed=15, workdir=tmp_path, max_delay=0.5, slow_fsync_ms=100)
    assert out["failure_messages"] == []
    assert out["stale_files_accumulated"] == 0
    assert out["child_saves_started"] >= 10  # the children did save (about one save per trial)
    assert out["kills_mid_write"] >= 1  # and some kills did land mid-write (each cleaned by the next save)
