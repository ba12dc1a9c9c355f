"""Scaling of a long simulation: 1 vs 2 local workers and a 2-worker Dask LocalCluster (issue 33).

Super 10 Stars end to end (every feature), the same rounds and seed each way: the results must be identical
(timings aside), and efficiency = rate(2 workers) / (2 x rate(1 worker)).  Each configuration is timed ``--runs``
times, alternated with numpy drawing the same rounds' stop positions on one core (its rate swings between runs on
a shared machine), and reported as min / median / max.  The timed call is what a user runs: ``simulate(game,
spins, seed, workers=k)`` (its worker pool started inside the call) or ``simulate(..., scheduler=address)`` on a
cluster started beforehand (the cluster's own start-up is reported apart).  A first small run in each
configuration loads the compiled round, so compilation is not timed.

    .venv/bin/python benchmarks/bench_scaling.py [--spins N] [--runs K] [--game NAME] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workbench import load_game  # noqa: E402
from workbench.simulate import simulate  # noqa: E402

BLOCK = 1 << 20


def numpy_draw_rate(game, rounds: int, seed: int) -> float:
    """Stop positions numpy draws per second on one core (one per reel of the base strips), in M draws/s."""
    strips = [s for s in game.strip_sets_for("base") if s.weight > 0][0].reels
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    for strip in strips:
        rng.integers(0, strip.total_weight, size=rounds)
    return rounds * len(strips) / (time.process_time() - t0) / 1e6


def timed(run) -> tuple[float, dict]:
    t0 = time.perf_counter()
    result = run()
    return time.perf_counter() - t0, result


def stats(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "runs": len(values)}


def without_timings(data):
    """``data`` without its timings (any key naming seconds or a rate, at any depth)."""
    if isinstance(data, dict):
        return {k: without_timings(v) for k, v in data.items() if "second" not in k and "rate" not in k}
    if isinstance(data, list):
        return [without_timings(v) for v in data]
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="super_10_stars")
    parser.add_argument("--spins", type=int, default=64 * BLOCK, help="rounds per run (default 64 blocks of 2^20)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from dask.distributed import LocalCluster

    game = load_game(args.game)
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    cluster_start = time.perf_counter() - t0
    configs = {
        "1 local worker": lambda n: simulate(game, n, seed=args.seed, workers=1),
        "2 local workers": lambda n: simulate(game, n, seed=args.seed, workers=2),
        "Dask LocalCluster, 2 workers": lambda n: simulate(game, n, seed=args.seed,
                                                           scheduler=cluster.scheduler_address),
    }
    try:
        for run in configs.values():  # load the compiled round everywhere (worker processes too)
            run(2 * BLOCK)
        walls: dict = {name: [] for name in configs}
        numpy_rates: list[float] = []
        results: dict = {}
        for rep in range(args.runs):
            for name, run in configs.items():
                numpy_rates.append(numpy_draw_rate(game, 4_000_000, args.seed + rep))
                wall, result = timed(lambda: run(args.spins))
                walls[name].append(wall)
                results.setdefault(name, without_timings(result.to_dict()))
    finally:
        cluster.close()
    reference = results["1 local worker"]
    identical = {name: data == reference for name, data in results.items()}
    rates = {name: stats([args.spins / w / 1e6 for w in ws]) for name, ws in walls.items()}
    base = rates["1 local worker"]["median"]
    out = {
        "game": args.game,
        "rounds": args.spins,
        "seed": args.seed,
        "rtp": reference["rtp"],
        "wall_seconds": {name: stats(ws) for name, ws in walls.items()},
        "M_rounds_per_second": rates,
        "efficiency_vs_1_worker": {name: r["median"] / (2 * base) for name, r in rates.items() if name != "1 local worker"},
        "identical_results": identical,
        "numpy_M_stop_draws_per_second_one_core": stats(numpy_rates),
        "dask_cluster_start_seconds": cluster_start,
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(f"{args.game}: {args.spins:,} rounds, seed {args.seed}, RTP {100 * out['rtp']:.4f} %")
        for name, r in rates.items():
            w = out["wall_seconds"][name]
            eff = out["efficiency_vs_1_worker"].get(name)
            print(f"  {name:30s} {r['min']:.2f} / {r['median']:.2f} / {r['max']:.2f} M rounds/s "
                  f"(wall {w['min']:.1f} / {w['median']:.1f} / {w['max']:.1f} s)"
                  + (f", efficiency {eff:.2f}" if eff is not None else "")
                  + ("" if identical[name] else "  RESULT DIFFERS"))
        n = out["numpy_M_stop_draws_per_second_one_core"]
        print(f"  numpy stop draws, one core:    {n['min']:.1f} / {n['median']:.1f} / {n['max']:.1f} M/s "
              f"({n['runs']} measurements alternated with the runs)")
        print(f"  Dask LocalCluster start-up:    {cluster_start:.1f} s (not in the rates)")
    return 0 if all(identical.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
