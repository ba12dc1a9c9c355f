"""`workbench rtp GAME` with no --precision: the first answer's wall time on every shipped and gallery game.

Target (whole-game trust issue): within 30 s on every game, medians on 2 workers, progress on stderr.  Each game is
run --runs times as the user runs it (a fresh `workbench` process: start-up, set-up, every bet mode), alternated
with numpy drawing the same game's base stops in this process (its rate beside each figure, min / median / max).

    .venv/bin/python benchmarks/bench_first_answer.py [--runs 3] [--workers 2] [games...]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_rules import NumpyDraws, fmt, spread  # noqa: E402
from workbench.io import example_games, load_game, shipped_games  # noqa: E402

LIMIT = 30.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--numpy-spins", type=int, default=2_000_000)
    args = parser.parse_args()
    exe = ROOT / ".venv" / "bin" / "workbench"
    out = []
    for name in args.games or shipped_games() + example_games():
        draws = NumpyDraws(load_game(name), args.numpy_spins)
        walls, halves, progress_lines = [], [], 0
        for _ in range(args.runs):
            draws.measure()
            t0 = time.perf_counter()
            proc = subprocess.run([str(exe), "rtp", name, "--workers", str(args.workers)], cwd=ROOT, capture_output=True,
                                  text=True)
            walls.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise SystemExit(f"{name}: exit {proc.returncode}: {proc.stderr}")
            halves.append(float(re.search(r"RTP .*?\+- ([\d.]+) %", proc.stdout).group(1)))
            progress_lines = max(progress_lines, len([l for l in proc.stderr.splitlines() if l.startswith("workbench rtp:")]))
        draws.measure()
        row = {"game": name, "wall_s": spread(walls), "half_width_pct": statistics.median(halves),
               "progress_lines": progress_lines, "numpy": draws.summary(),
               "pass": statistics.median(walls) <= LIMIT}
        out.append(row)
        print(f"{name:34s} {fmt(row['wall_s'])} s (median <= {LIMIT:g} s: {'met' if row['pass'] else 'MISSED'}), "
              f"± {row['half_width_pct']:.4f} %, progress lines {progress_lines}; numpy "
              f"{fmt(row['numpy']['M_draws_per_s'])} M draws/s", flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
