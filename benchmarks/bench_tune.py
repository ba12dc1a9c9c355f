"""Speed of the RTP tuner (issue 16), each figure beside numpy's stop-draw rate measured in the same run,
alternated with it.

Targets:
  1. base-game-only tuning of a 5x3 30-line game to within 0.0001 of the target in < 10 s:
     Super 10 Stars' base strips (5x3, 30 lines), target = its base-game RTP -1 and +1 point,
     without and with --keep hit_frequency (its value ± 1 %); in process (workbench.tuning.tune with
     FeatureTerms.base_only(), one numba thread, strip-set analysis cache emptied before each run) and
     the path users take, `workbench tune super_10_stars --target-rtp R --base-only` as a subprocess;
  2. a three-version set of a shipped game in < 5 minutes on 2 cores: `workbench tune GAME --targets
     0.96,0.94,0.92 --keep hit_frequency --out DIR/GAME.toml --reestimate` as a subprocess (the feature
     estimate, three tunings, three files and three end-to-end re-estimates), for Super 10 Stars and
     Bier Haus.

numpy's rate: spins' worth of stops per second drawn by rng.integers for each reel of the game's base
strip set (CPU time), as in bench_rules.NumpyDraws. Times are wall times; figures are min / median / max
over alternated runs; pass / fail is judged on the median.

    .venv/bin/python benchmarks/bench_tune.py [--repeats N] [--cli-runs N] [--version-runs N] [--numpy-spins N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# bench_rules sets one numba thread for in-process figures (and remembers the user's setting for the CLI runs)
from bench_rules import NumpyDraws, cli_target, fmt, spread  # noqa: E402

from workbench import load_game  # noqa: E402
from workbench.exact import par as _par  # noqa: E402,F401
from workbench.tuning import FeatureTerms, measure, tune  # noqa: E402

GAME = "super_10_stars"


def _clear_caches() -> None:
    import importlib

    importlib.import_module("workbench.exact.par")._SET_CACHE.clear()


def base_only(repeats: int, numpy_spins: int) -> list[dict]:
    game = load_game(GAME)
    base = measure(game)["base_rtp"]
    tune(game, base - 0.005, terms=FeatureTerms.base_only())  # warm-up (compiled code loaded)
    out = []
    for delta in (-0.01, 0.01):
        for keep in ([], ["hit_frequency"]):
            draws = NumpyDraws(game, numpy_spins)
            walls, misses, stops, evals = [], [], [], []
            for _ in range(repeats):
                _clear_caches()
                t0 = time.perf_counter()
                r = tune(game, base + delta, keep=keep, terms=FeatureTerms.base_only())
                walls.append(time.perf_counter() - t0)
                misses.append(abs(r.rtp - r.target))
                stops.append(len(r.changes))
                evals.append(r.evaluations)
                draws.measure()
            ok = max(misses) <= 0.0001
            out.append({"target": f"1. base-only tune {GAME} {delta * 100:+.0f} pt" + (" keep hf" if keep else ""),
                        "target_rtp": base + delta, "wall_s": spread(walls), "limit_s": 10.0,
                        "pass": ok and spread(walls)["median"] < 10.0, "largest_miss": max(misses),
                        "stops_changed": stops, "exact_evaluations": evals, "numpy": draws.summary()})
    return out


def _cli(args: list[str], runs: int, numpy_spins: int, label: str, limit: float) -> dict:
    """Wall time of ``workbench ARGS`` as a subprocess (bench_rules.cli_target), judged against ``limit`` seconds."""
    r = cli_target(args, runs, numpy_spins)
    r.update(target=label, command="workbench " + " ".join(args), limit_s=limit, **{"pass": r["wall_s"]["median"] < limit})
    return r


def row(r: dict) -> str:
    verdict = {True: "pass", False: "FAIL", None: "-"}[r["pass"]]
    fig = f"{fmt(r['wall_s'], 2)} s (< {r['limit_s']:.0f} s)"
    extra = f" miss {r['largest_miss']:.6f}, stops {r['stops_changed']}, evals {r['exact_evaluations']}" if "largest_miss" in r else ""
    return f"{r['target']:48s} {fig:34s} numpy {fmt(r['numpy']['M_draws_per_s']):22s} M draws/s  {verdict}{extra}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="alternated runs per in-process figure")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--version-runs", type=int, default=1, help="runs of each three-version CLI set")
    parser.add_argument("--numpy-spins", type=int, default=1_000_000)
    args = parser.parse_args()
    start = time.perf_counter()
    out = {"cpu_count": os.cpu_count(), "load_average_start": os.getloadavg(), "results": []}

    def add(results):
        for r in results if isinstance(results, list) else [results]:
            out["results"].append(r)
            print(row(r), flush=True)

    add(base_only(args.repeats, args.numpy_spins))
    base = measure(load_game(GAME))["base_rtp"]
    add(_cli(["tune", GAME, "--target-rtp", f"{base - 0.01:.6f}", "--base-only", "--quiet"], args.cli_runs, args.numpy_spins,
             f"1. CLI base-only tune {GAME} -1 pt", 10.0))
    with tempfile.TemporaryDirectory() as tmp:
        for game in (GAME, "bier_haus_oktober_fest"):
            add(_cli(["tune", game, "--targets", "0.96,0.94,0.92", "--keep", "hit_frequency", "--out", f"{tmp}/{game}.toml",
                      "--reestimate", "--quiet"], args.version_runs, args.numpy_spins, f"2. CLI three versions {game}", 300.0))
    out["load_average_end"] = os.getloadavg()
    out["total_seconds"] = time.perf_counter() - start
    out["arguments"] = vars(args)
    print(f"total {out['total_seconds']:.0f} s; load average {out['load_average_start'][0]:.2f} -> "
          f"{out['load_average_end'][0]:.2f} on {out['cpu_count']} cores", flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
