"""Strip-editor latency on the shipped games: one stop of one reel changed, then the exact PAR
summary the editor shows (what `workbench.widgets` recomputes on every edit).

Target (issue 5): every edit recomputes within 100 ms.

    .venv/bin/python benchmarks/bench_editor.py [--repeats N] [games...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from workbench import load_game  # noqa: E402
from workbench.widgets.summary import timed_par  # noqa: E402


def edit_latency(name: str, repeats: int) -> dict:
    game = load_game(name)
    timed_par(game)  # warm-up: compile, load caches, line automaton
    strip_set = next(s for s in game.strip_sets.values() if s.mode == "base")
    times = []
    for i in range(repeats):
        # swap two neighbouring stops of a different reel each time: a real, valid edit
        reel = i % game.reels
        symbols = list(strip_set.reels[reel].symbols)
        j = next(k for k in range(len(symbols) - 1) if symbols[k] != symbols[k + 1]
                 and game.symbols[symbols[k]].height == 1 and game.symbols[symbols[k + 1]].height == 1)
        symbols[j], symbols[j + 1] = symbols[j + 1], symbols[j]
        t0 = time.perf_counter()
        edited = game.with_strip(strip_set.name, reel + 1, symbols)
        result = timed_par(edited)
        result.sheet.summary
        times.append(time.perf_counter() - t0)
    return {"game": name, "median_ms": 1000 * statistics.median(times), "max_ms": 1000 * max(times), "repeats": repeats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=["classic_tens", "super_10_stars", "bier_haus_oktober_fest"])
    parser.add_argument("--repeats", type=int, default=12)
    args = parser.parse_args()
    out = [edit_latency(g, args.repeats) for g in args.games]
    for r in out:
        print(f"{r['game']:24s} edit -> PAR median {r['median_ms']:7.1f} ms, max {r['max_ms']:7.1f} ms (target < 100 ms)",
              flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
