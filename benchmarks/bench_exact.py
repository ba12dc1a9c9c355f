"""Exact-engine speed: PAR of a 5x3/30-line/12-symbol game (target < 50 ms warm) and the
full-cycle distribution of the same game with ~50-stop reels (target < 60 s on one core).

The PAR is timed with numba's default thread count (all CPUs, as in a notebook) and again
on one thread; the full cycle on one thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from benchgames import line_game_text  # noqa: E402

import numba  # noqa: E402

from workbench.exact import par  # noqa: E402
from workbench.io import loads_game  # noqa: E402


def time_par(text: str, repeats: int) -> dict:
    game = loads_game(text)
    par(game, full_cycle=False).summary  # warm-up: compile and cache
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sheet = par(game, full_cycle=False)
        sheet.summary, sheet.combinations, sheet.per_line, sheet.scatter_pays, sheet.triggers, sheet.prize_structure
        times.append(time.perf_counter() - t0)
    return {"median_ms": 1000 * statistics.median(times), "best_ms": 1000 * min(times), "rtp": sheet.rtp,
            "hit_frequency": sheet.hit_frequency, "std": sheet.std}


def time_pars(repeats: int, threads: int) -> dict:
    results = {}
    for label, lengths, weighted in [
        ("par_60_stops", [60] * 5, False),
        ("par_80_stops", [80, 75, 70, 75, 80], False),
        ("par_100_stops", [100] * 5, False),
        ("par_80_stops_weighted", [80, 75, 70, 75, 80], True),
    ]:
        results[label] = time_par(line_game_text(lengths), repeats) if not weighted else time_par(line_game_text(lengths, weighted=True), repeats)
        print(f"{label:24s} {threads} thread(s): median {results[label]['median_ms']:7.1f} ms  (target < 50 ms)", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-cycle", action="store_true")
    args = parser.parse_args()
    results = {}
    all_threads = numba.get_num_threads()
    for threads in sorted({all_threads, 1}, reverse=True):
        numba.set_num_threads(threads)
        results[f"par_{threads}_threads"] = time_pars(args.repeats, threads)
    numba.set_num_threads(1)
    if not args.skip_cycle:
        lengths = [52, 50, 48, 50, 52]
        game = loads_game(line_game_text(lengths))
        small = loads_game(line_game_text([12, 12, 12, 12, 12]))
        par(small, full_cycle=True)  # compile
        t0 = time.perf_counter()
        sheet = par(game, full_cycle=True)
        elapsed = time.perf_counter() - t0
        combos = 1
        for n in lengths:
            combos *= n
        assert abs(sheet.distribution.rtp - sheet.rtp) < 1e-12
        results["full_cycle"] = {"combinations": combos, "seconds": elapsed, "outcomes": len(sheet.distribution.hits)}
        print(f"full cycle {combos:.3e} combinations: {elapsed:.1f} s  (target < 60 s)", flush=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
