"""What compiling costs on a fresh machine (issue 33: measure before choosing what to share).

Runs ``workbench warm --all``'s work (each shipped and gallery game: ``par`` and ``simulate(1000)``) in a fresh
process with an empty compiled-code cache (``XDG_CACHE_HOME`` set to a new folder), with numba's compile events
recorded (``numba.core.event``).  Prints each game's warm-up time in that order (a function compiled for an earlier
game is not compiled again, as in ``make``), the total, and the functions whose compilation took longest, by
module, with how many signatures each compiled.  Compilation is measured by its events' wall time (nested
compilations are counted in their caller too; the module totals count top-level events only).

    .venv/bin/python benchmarks/bench_compile.py [--top 25] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, sys, time
from collections import defaultdict
from numba.core import event

spans = []  # (qualname, module, start, end, depth)
depth = [0]

class Listener(event.Listener):
    def __init__(self):
        self.open = []
    def on_start(self, ev):
        self.open.append((ev.data["dispatcher"], time.perf_counter(), depth[0]))
        depth[0] += 1
    def on_end(self, ev):
        depth[0] -= 1
        disp, t0, d = self.open.pop()
        fn = disp.py_func
        spans.append((fn.__qualname__, fn.__module__, t0, time.perf_counter(), d))

event.register("numba:compile", Listener())

from workbench.exact import par
from workbench.io import load_game
from workbench.simulate import simulate
from workbench.cli.commands import _games

class Args:
    all = True
    game = None

games = []
t_all = time.perf_counter()
for name in _games(Args()):
    t0 = time.perf_counter()
    game = load_game(name)
    par(game, full_cycle="auto" if game.pays.is_lines and game.pays.direction == "left_to_right" else False)
    simulate(game, 1000, seed=0)
    games.append((str(name), time.perf_counter() - t0))
total = time.perf_counter() - t_all
per_fn = defaultdict(lambda: [0.0, 0])
per_module = defaultdict(float)
for q, m, a, b, d in spans:
    per_fn[(m, q)][0] += b - a
    per_fn[(m, q)][1] += 1
    if d == 0:
        per_module[m] += b - a
json.dump({"games": games, "total": total, "compile_top_level": sum(b - a for *_, a, b, d in spans if d == 0),
           "functions": [[m, q, s, n] for (m, q), (s, n) in per_fn.items()],
           "modules": sorted(per_module.items(), key=lambda kv: -kv[1])}, sys.stdout)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top", type=int, default=25, help="functions listed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "XDG_CACHE_HOME": cache, "PYTHONPATH": str(ROOT)}
        env.pop("NUMBA_CACHE_DIR", None)
        proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    data = json.loads(proc.stdout)
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    print(f"warm of every shipped and gallery game from an empty cache: {data['total']:.1f} s, of which numba's "
          f"top-level compilations {data['compile_top_level']:.1f} s")
    for name, seconds in data["games"]:
        print(f"  {name:40s} {seconds:7.1f} s")
    print("compilation by module (top-level events):")
    for module, seconds in data["modules"]:
        print(f"  {module:45s} {seconds:7.1f} s")
    print(f"the {args.top} longest function compilations (seconds including nested ones, signatures):")
    for module, qualname, seconds, n in sorted(data["functions"], key=lambda f: -f[2])[:args.top]:
        print(f"  {module + '.' + qualname:70s} {seconds:7.1f} s  x{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
