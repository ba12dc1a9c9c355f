"""Production-size games (reelsets/production/, 200-600-stop strips): `workbench par` per game, the strip editor's
edit-to-figures time, and (``--agreement N``) the exact figures against an end-to-end simulation of N screens.

Targets (issue 28): ``workbench par`` gives the exact RTP, hit frequency, std and volatility index with max win
exact or bounded in at most 10 s per game (median of 3 fresh runs: a new process each, numba's cache warm) and
at most 2 GB peak memory; the strip editor's edit-to-figures time at most 0.5 s; the exact figures agree with a
simulation within 4 standard errors.

Each `par` run is a subprocess (`workbench par GAME --json`), timed by wall clock with its peak resident memory
from os.wait4; every figure's source (exact, or simulated when the exact engine left it out) is read off the
JSON.  numpy's stop-draw rate (one stop per reel of the base strips, CPU time, M spins' worth of stops per second)
is measured between the runs of each game, so every figure sits beside the machine's speed of the moment.  All
figures are min / median / max.

    .venv/bin/python benchmarks/bench_production.py [--runs 3] [--editor-repeats 5] [--agreement 0] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the in-process editor measurement on one core, like bench_rules; the `workbench par` processes run as a user's do
# (every core), unless NUMBA_NUM_THREADS was set before this script
PAR_ENV = dict(os.environ)
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_rules import NumpyDraws, fmt, spread  # noqa: E402

from workbench import load_game  # noqa: E402

PRODUCTION = ROOT / "reelsets" / "production"
FIGURES = ("rtp", "hit_frequency", "std", "volatility_index_90", "max_win")
PAR_LIMIT_S, MEMORY_LIMIT_MB, EDITOR_LIMIT_S = 10.0, 2048.0, 0.5


def games() -> list[Path]:
    return sorted(PRODUCTION.glob("*.toml"))


def par_run(path: Path) -> tuple[float, float, dict]:
    """(wall seconds, peak MB, JSON) of one fresh `workbench par GAME --json` process."""
    exe = Path(sys.executable).with_name("workbench")
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(exe), "par", str(path), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=PAR_ENV)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{path.name}: workbench par exited {proc.returncode}: {err.decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, json.loads(out)


def par_target(path: Path, runs: int, numpy_spins: int) -> dict:
    game = load_game(path)
    draws = NumpyDraws(game, numpy_spins)
    walls, peaks, sheet = [], [], None
    for _ in range(runs):
        wall, peak, sheet = par_run(path)
        walls.append(wall)
        peaks.append(peak)
        draws.measure()
    figures = {}
    for key in FIGURES:
        f = sheet["figures"].get(key)
        if f is not None:
            figures[key] = {"value": f["value"], "source": f["source"], "ci95": f.get("ci95")}
    upper = sheet["figures"].get("max_win_upper")
    return {"game": path.name, "name": game.name, "stops": [len(s.symbols) for s in game.strip_sets_for("base")[0].reels],
            "seconds": spread(walls), "peak_mb": spread(peaks), "figures": figures, "rtp_exact": sheet["rtp_exact"],
            "max_win_exact": sheet["max_win_exact"], "max_win_upper": upper["value"] if upper else None,
            "pass_time": statistics.median(walls) <= PAR_LIMIT_S, "pass_memory": max(peaks) <= MEMORY_LIMIT_MB,
            "all_exact": all(f["source"] == "exact" for k, f in figures.items() if k != "max_win"),
            "numpy": draws.summary()}


def editor_target(path: Path, repeats: int, numpy_spins: int) -> dict:
    """Server-side edit-to-figures seconds of the strip editor: insert one stop, figures recomputed, undo."""
    from workbench.widgets import StripEditor

    game = load_game(path)
    regular = [s for s, sym in game.symbols.items() if sym.kind == "regular"][:5]
    draws = NumpyDraws(game, numpy_spins)
    walls = []
    with tempfile.TemporaryDirectory(prefix="bench_production_") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        editor = StripEditor(copy)
        tools = editor.tools
        for i in range(repeats + 1):  # the first edit is a warm-up
            reel = 1 + i % game.reels
            tools.reel.value = reel
            tools.stop.value = 1 + (37 * i) % len(editor.strip(reel))
            tools.symbol.value = regular[i % len(regular)]
            t0 = time.perf_counter()
            tools.insert_button.click()
            wall = time.perf_counter() - t0
            if "inserted" not in editor.status.value:
                raise SystemExit(f"{path.name}: insert-stop edit not applied: {editor.status.value}")
            editor.undo_button.click()
            if i:
                walls.append(wall)
                draws.measure()
        if copy.read_text() != path.read_text():
            raise SystemExit(f"{path.name}: the editor changed the file")
    s = spread(walls)
    return {"game": path.name, "seconds": s, "pass": s["median"] <= EDITOR_LIMIT_S,
            "timing_text": re.sub(r"<[^>]+>", "", editor.timing.value), "numpy": draws.summary()}


AGREEMENT_BATCHES = 10


def agreement(path: Path, rounds: int, seed: int) -> dict:
    """The exact first-screen figures against a simulation of ``rounds`` screens (the classic template on the base
    strips, simulate.screens.screen_game) in :data:`AGREEMENT_BATCHES` seeded batches (seed, seed + 1, ...):
    z = (simulated - exact) / standard error for the RTP (the batches' intervals), the hit frequency (binomial) and
    the std (Student's t over the batches' stds)."""
    from workbench.simulate import simulate
    from workbench.simulate import complete_par
    from workbench.simulate.screens import screen_game

    game = load_game(path)
    sheet = complete_par(game, full_cycle=False)
    screens = screen_game(game)
    t0 = time.perf_counter()
    n = rounds // AGREEMENT_BATCHES
    runs = [simulate(screens, n, seed + b, workers=os.cpu_count() or 1) for b in range(AGREEMENT_BATCHES)]
    total = n * len(runs)
    rtp = statistics.fmean(r.rtp for r in runs)
    rtp_se = math.sqrt(sum((r.rtp_ci95 / 1.959963984540054) ** 2 for r in runs)) / len(runs)
    hit = statistics.fmean(r.hit_frequency for r in runs)
    p = sheet.hit_frequency
    hit_se = math.sqrt(p * (1 - p) / total) if 0 < p < 1 else math.nan
    std = statistics.fmean(r.std for r in runs)
    std_se = statistics.stdev(r.std for r in runs) / math.sqrt(len(runs))

    def z(sim, exact, se):
        return (sim - exact) / se if se and not math.isnan(se) else math.nan

    return {"game": path.name, "rounds": total, "seed": seed, "batches": len(runs),
            "seconds": time.perf_counter() - t0,
            "exact_rtp": sheet.rtp, "simulated_rtp": rtp, "se": rtp_se, "z": z(rtp, sheet.rtp, rtp_se),
            "exact_hit_frequency": p, "simulated_hit_frequency": hit, "hit_se": hit_se, "z_hit": z(hit, p, hit_se),
            "exact_std": sheet.std, "simulated_std": std, "std_se": std_se, "z_std": z(std, sheet.std, std_se),
            "hit_frequency_source": sheet.source("hit_frequency"), "std_source": sheet.source("std")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh `workbench par` processes per game")
    parser.add_argument("--editor-repeats", type=int, default=5, help="timed edits per game (0: skip the editor)")
    parser.add_argument("--agreement", type=int, default=0, help="screens simulated per game for the agreement check")
    parser.add_argument("--numpy-spins", type=int, default=4_000_000)
    parser.add_argument("--only", help="only the games whose file name contains this")
    parser.add_argument("--json", help="write the results here too")
    args = parser.parse_args()
    out = {"par": [], "editor": [], "agreement": []}
    paths = [p for p in games() if not args.only or args.only in p.name]
    for path in paths:
        r = par_target(path, args.runs, args.numpy_spins)
        out["par"].append(r)
        sources = ", ".join(f"{k} {v['source']}" for k, v in r["figures"].items())
        print(f"{path.name:32s} par {fmt(r['seconds'], 2)} s  peak {fmt(r['peak_mb'], 0)} MB  "
              f"numpy {fmt(r['numpy']['M_draws_per_s'])} M/s  [{sources}]", flush=True)
    for path in paths if args.editor_repeats else []:
        r = editor_target(path, args.editor_repeats, args.numpy_spins)
        out["editor"].append(r)
        print(f"{path.name:32s} editor {fmt(r['seconds'], 3)} s  numpy {fmt(r['numpy']['M_draws_per_s'])} M/s",
              flush=True)
    for path in paths if args.agreement else []:
        r = agreement(path, args.agreement, 1)
        out["agreement"].append(r)
        print(f"{path.name:32s} RTP exact {r['exact_rtp']:.6f} simulated {r['simulated_rtp']:.6f} z {r['z']:+.2f}; "
              f"hit frequency ({r['hit_frequency_source']}) {r['exact_hit_frequency']:.6f} vs {r['simulated_hit_frequency']:.6f} "
              f"z {r['z_hit']:+.2f}; std ({r['std_source']}) {r['exact_std']:.5f} vs {r['simulated_std']:.5f} "
              f"z {r['z_std']:+.2f} ({r['rounds']:,} screens in {r['batches']} batches, {r['seconds']:.1f} s)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
