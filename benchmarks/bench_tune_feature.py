"""Speed of the tuner on a feature game (feature terms held, their trigger states' probabilities recomputed for
every candidate), with the simulator's remembered compiled modes (workbench.simulate.kernel.compile_mode) on and
off, alternated in one run, each beside numpy's stop-draw rate measured between them.

Every candidate the tuner measures builds the game's round model for its trigger states; an edit of the base strips
leaves the free spins' compiled sets as they were, so with the memory on only the base mode is compiled again.
"off" sets ``kernel.MODE_CACHE_BYTES = 0`` (every mode compiled afresh, as before the memory existed).  Both sides
empty the exact engine's strip-set cache and the mode memory first, so each run starts cold.  The path users take,
``workbench tune GAME --target-rtp R --quiet`` as a subprocess (memory on), is timed after.

    .venv/bin/python benchmarks/bench_tune_feature.py [--game NAME] [--repeats N] [--cli-runs N] [--numpy-spins N]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# bench_rules sets one numba thread for in-process figures (and remembers the user's setting for the CLI runs)
from bench_rules import NumpyDraws, cli_target, fmt, spread  # noqa: E402

from workbench import load_game  # noqa: E402
from workbench.simulate import kernel  # noqa: E402
from workbench.tuning import FeatureTerms, measure, tune  # noqa: E402

TOLERANCE = 0.0001


def _cold(memory: bool) -> None:
    importlib.import_module("workbench.exact.par")._SET_CACHE.clear()
    kernel._MODE_CACHE.clear()
    kernel.MODE_CACHE_BYTES = DEFAULT_BYTES if memory else 0


DEFAULT_BYTES = kernel.MODE_CACHE_BYTES


def in_process(name: str, repeats: int, numpy_spins: int) -> dict:
    game = load_game(name)
    terms = FeatureTerms.estimate(game, 0.002, 5)
    target = measure(game, terms=terms)["rtp"] - 0.005
    tune(game, target, terms=terms, tolerance=TOLERANCE, confirm=False)  # warm-up: compiled code loaded
    draws = NumpyDraws(game, numpy_spins)
    walls = {"on": [], "off": []}
    results = {}
    for _ in range(repeats):
        for side in ("off", "on"):
            _cold(side == "on")
            t0 = time.perf_counter()
            r = tune(game, target, terms=terms, tolerance=TOLERANCE, confirm=False)
            walls[side].append(time.perf_counter() - t0)
            results.setdefault(side, []).append((round(r.after["rtp"], 12), r.evaluations, len(r.changes)))
            draws.measure()
    _cold(True)
    same = len({x for side in results.values() for x in side}) == 1
    return {"game": name, "target_rtp": target, "wall_s_memory_off": spread(walls["off"]),
            "wall_s_memory_on": spread(walls["on"]), "paired_median_ratio_off_over_on": sorted(
                a / b for a, b in zip(walls["off"], walls["on"]))[len(walls["on"]) // 2],
            "identical_results": same, "result_rtp_evaluations_changes": results["on"][0], "numpy": draws.summary()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="examples/mystery_stacks")
    parser.add_argument("--repeats", type=int, default=5, help="alternated runs of each side")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--numpy-spins", type=int, default=1_000_000)
    args = parser.parse_args()
    out = {"cpu_count": os.cpu_count(), "load_average_start": os.getloadavg()}
    r = out["in_process"] = in_process(args.game, args.repeats, args.numpy_spins)
    print(f"tune {args.game} (feature terms held), wall s min / median / max: memory off {fmt(r['wall_s_memory_off'], 2)}, "
          f"on {fmt(r['wall_s_memory_on'], 2)}; paired median off/on {r['paired_median_ratio_off_over_on']:.2f}; "
          f"identical results {r['identical_results']}; numpy {fmt(r['numpy']['M_draws_per_s'])} M draws/s", flush=True)
    cli = out["cli"] = cli_target(["tune", args.game, "--target-rtp", f"{r['target_rtp']:.6f}", "--quiet"],
                                  args.cli_runs, args.numpy_spins)
    print(f"CLI `workbench tune {args.game} --target-rtp {r['target_rtp']:.6f}` (memory on): "
          f"{fmt(cli['wall_s'], 2)} s; numpy {fmt(cli['numpy']['M_draws_per_s'])} M draws/s", flush=True)
    out["load_average_end"] = os.getloadavg()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
