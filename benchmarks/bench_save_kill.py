"""Kill test of reelset saving: a child process saves edited versions of a copy of
``reelsets/classic_tens.toml`` in a loop while this process kills it with SIGKILL at
random times (seeded).  After each kill:

- the file loads and validates, and is byte for byte either the version before the
  interrupted save or the one it was writing (the child logs the sha256 of each
  version before saving it);
- ``NAME.bak``, if present, loads and validates and is one of the versions written;
- at most one temp file ``.NAME.*.tmp`` is left (a kill that landed mid-write), and
  the next save (made here) removes it and reports it in ``Saved.cleaned``, and leaves
  no temp or lock file behind.

Target (issue 15): failures 0, stale files accumulated 0.

    .venv/bin/python benchmarks/bench_save_kill.py [--trials 200] [--seed S] [--slow-fsync MS]

``--slow-fsync MS`` makes every fsync of a file by the child MS milliseconds slower (a
slow disk), so more kills land mid-write.  ``tests/test_io_save.py`` runs :func:`run_trials` with
about 20 trials.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workbench.io import load_game, reelsets_dir, render_text, save_game  # noqa: E402
from workbench.io.atomic import lock_path, temp_files  # noqa: E402
from workbench.io.store import keep_line_endings  # noqa: E402

SOURCE = "classic_tens.toml"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def edit(game, rng: random.Random):
    """A valid edit: one reel of the base strip set rotated by a random number of stops."""
    base = game.strip_sets["base"]
    reel = rng.randrange(len(base.reels))
    strip = base.reels[reel]
    k = rng.randrange(1, len(strip.symbols))
    symbols = strip.symbols[k:] + strip.symbols[:k]
    weights = None if strip.weights is None else tuple(strip.weights[k:]) + tuple(strip.weights[:k])
    return game.with_strip("base", reel + 1, symbols, weights)


def file_bytes(game) -> bytes:
    """The exact bytes :func:`save_game` writes for ``game``."""
    return keep_line_endings(render_text(game), game.text).encode("utf-8")


def child(path: str, log_path: str, seed: int, slow_fsync_ms: float, announce: bool = True) -> None:
    """Save edited versions of ``path`` forever, logging each version's sha256 before saving it."""
    if slow_fsync_ms > 0:
        real_fsync = os.fsync

        def slow_fsync(fd):
            if stat.S_ISREG(os.fstat(fd).st_mode):  # the temp file's data, not the folder
                time.sleep(slow_fsync_ms / 1000)
            return real_fsync(fd)

        os.fsync = slow_fsync
    rng = random.Random(seed)
    with open(log_path, "a", encoding="ascii") as log:
        if announce:
            print("ready", flush=True)
        while True:
            game = load_game(path)
            edited = edit(game, rng)
            log.write(sha(file_bytes(edited)) + "\n")
            log.flush()  # in the kernel before the save starts: survives SIGKILL
            save_game(edited)


def _logged(log_path: Path) -> list[str]:
    text = log_path.read_text(encoding="ascii") if log_path.exists() else ""
    return [line for line in text.split("\n")[:-1] if len(line) == 64]  # complete lines only


def _fork_and_kill(path: Path, log_path: Path, seed: int, slow_fsync_ms: float, delay: float) -> str | None:
    """Fork a child running :func:`child`, SIGKILL it after ``delay`` s; its error if it died by itself."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller
        try:
            os.close(read_end)
            child(str(path), str(log_path), seed, slow_fsync_ms, announce=False)
        except BaseException:  # noqa: BLE001
            os.write(write_end, traceback.format_exc().encode())
        finally:
            os._exit(1)
    os.close(write_end)
    time.sleep(delay)
    done, _ = os.waitpid(pid, os.WNOHANG)
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        error = pipe.read().decode(errors="replace")
    return (error or "exited") if done else None


def _spawn_and_kill(path: Path, log_path: Path, seed: int, slow_fsync_ms: float, delay: float) -> str | None:
    """The same with a fresh interpreter (``--spawn``): slower to start, shares nothing."""
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(path), str(log_path), str(seed), str(slow_fsync_ms)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    ready = proc.stdout.readline()
    time.sleep(delay)
    died = proc.poll()
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate()
    if ready.strip() != b"ready" or died is not None:
        return err.decode(errors="replace") or "exited"
    return None


def run_trials(trials: int, seed: int, workdir: str | os.PathLike, *, max_delay: float = 0.3,
               slow_fsync_ms: float = 0.0, fork: bool = hasattr(os, "fork")) -> dict:
    """Run ``trials`` kill trials in ``workdir``; a dict of counts and the list of failures.

    The saving child is forked from this process (workbench already imported: it starts
    saving at once) unless ``fork`` is False (a fresh interpreter per trial).
    """
    workdir = Path(workdir)
    path = workdir / SOURCE
    shutil.copyfile(reelsets_dir() / SOURCE, path)
    rng = random.Random(seed)
    known = {sha(path.read_bytes())}
    failures: list[str] = []
    mid_write = stale = locks_left = child_saves = 0
    t0 = time.perf_counter()
    for trial in range(trials):
        log_path = workdir / "intents.log"
        log_path.unlink(missing_ok=True)
        initial = sha(path.read_bytes())
        child_seed = rng.randrange(2**32)
        delay = rng.uniform(0, max_delay)
        error = (_fork_and_kill if fork else _spawn_and_kill)(path, log_path, child_seed, slow_fsync_ms, delay)
        if error is not None:
            failures.append(f"trial {trial}: the child stopped by itself: {error[-800:]}")
            continue
        logged = _logged(log_path)
        child_saves += len(logged)
        known.update(logged)
        versions = [initial] + logged
        allowed = set(versions[-2:])  # the version before the last save started, and the one it wrote
        where = f"trial {trial} (kill after {delay * 1000:.0f} ms, {len(logged)} save(s) started)"
        data = path.read_bytes()
        if sha(data) not in allowed:
            failures.append(f"{where}: the file is neither the old nor the new version")
        try:
            load_game(path)
        except Exception as exc:  # noqa: BLE001 - any failure to load counts
            failures.append(f"{where}: the file does not load: {exc}")
        backup = path.with_name(path.name + ".bak")
        if backup.exists():
            if sha(backup.read_bytes()) not in known:
                failures.append(f"{where}: {backup.name} is not a complete earlier version")
            try:
                load_game(backup)
            except Exception as exc:  # noqa: BLE001
                failures.append(f"{where}: {backup.name} does not load: {exc}")
        left = temp_files(path)
        if len(left) > 1:
            failures.append(f"{where}: {len(left)} temp files left: {[p.name for p in left]}")
        mid_write += bool(left)
        locks_left += lock_path(path).exists()
        # the next save cleans up and says so
        try:
            game = load_game(path)
            saved = save_game(edit(game, rng))
            known.add(sha(path.read_bytes()))
            if set(saved.cleaned) != set(left):
                failures.append(f"{where}: the next save cleaned {saved.cleaned}, expected {left}")
        except Exception as exc:  # noqa: BLE001
            failures.append(f"{where}: the save after the kill failed: {exc}")
        remaining = temp_files(path) + ([lock_path(path)] if lock_path(path).exists() else [])
        if remaining:
            failures.append(f"{where}: left after the next save: {[p.name for p in remaining]}")
        stale += len(remaining)
    return {
        "trials": trials,
        "seed": seed,
        "child": "fork" if fork else "spawn",
        "child_saves_started": child_saves,
        "kills_mid_write": mid_write,
        "lock_files_left_by_kills": locks_left,
        "failures": len(failures),
        "stale_files_accumulated": stale,
        "seconds": round(time.perf_counter() - t0, 1),
        "failure_messages": failures,
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, path, log_path, seed, slow = sys.argv
        child(path, log_path, int(seed), float(slow))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--max-delay", type=float, default=0.3, help="longest wait before the kill, seconds")
    parser.add_argument("--slow-fsync", type=float, default=0.0, metavar="MS")
    parser.add_argument("--spawn", action="store_true", help="a fresh interpreter per trial instead of a fork")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_save_kill_") as workdir:
        out = run_trials(args.trials, args.seed, workdir, max_delay=args.max_delay, slow_fsync_ms=args.slow_fsync,
                         fork=not args.spawn)
    for key, value in out.items():
        if key != "failure_messages":
            print(f"{key:26s} {value}")
    for message in out["failure_messages"]:
        print("FAIL", message)
    print(json.dumps({k: v for k, v in out.items() if k != "failure_messages"}))
    sys.exit(1 if out["failures"] or out["stale_files_accumulated"] else 0)


if __name__ == "__main__":
    main()
