"""Speed of the rounds declared in the file (issue 13): free spins, hold and respin, bet modes; every figure beside
the rate at which numpy alone draws the stops of the same game, measured in the same run, alternated with it.

Targets (issue 13):
  1. declared free-spins games >= 5 M base spins per second per core, end to end (examples/ways_free_spins,
     examples/sticky_wilds_ante; examples/hold_and_respin_coins shown too, no target for its template);
  2. set-up of a run (loading the cached compiled round, building its tables) < 0.3 s, apart from the spinning
     rate: `SimulationResult.setup_seconds` of `simulate(game, 1000)` in a process that has loaded compiled code
     once (the first set-up of a process also starts numba's compiled-code runtime: shown apart), and the CLI
     path `workbench simulate GAME --spins 1000` (wall time and the set-up it prints);
  3. each feature RTP to +-0.05 % (95 %) in < 2 minutes on 2 cores: wall time of
     `estimate_rtp(game, precision=0.0005, workers=2)` for every declared-feature game and bet mode
     (`game.in_bet_mode(mode)`, precision x the mode's cost).

Rates are CPU time per core (one numba thread, time.process_time), numpy's as in bench_rules.NumpyDraws; every
figure is min / median / max over alternated runs, pass / fail on the median.

    .venv/bin/python benchmarks/bench_rounds.py [--spins N] [--repeats N] [--cli-runs N] [--skip-rtp]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rules import NumpyDraws, ROOT, fmt, sim_rates, spread  # noqa: E402  (sets NUMBA_NUM_THREADS=1)

from workbench import load_game  # noqa: E402
from workbench.simulate import estimate_rtp, simulate  # noqa: E402

FREE_SPINS_GAMES = ("examples/ways_free_spins", "examples/sticky_wilds_ante")
OTHER_GAMES = ("examples/hold_and_respin_coins",)


def rates(spins: int, repeats: int) -> list[dict]:
    out = []
    for name in FREE_SPINS_GAMES + OTHER_GAMES:
        game = load_game(name)
        got, draws = sim_rates({name: game}, spins, repeats, game)
        sim = spread(got[name], 1e-6)
        target = name in FREE_SPINS_GAMES
        out.append({"target": f"1. end to end {name}", "M_spins_per_s_per_core": sim,
                    "ratio_to_numpy": sim["median"] / draws.summary()["M_draws_per_s"]["median"],
                    "limit": ">= 5 M base spins/s per core" if target else None,
                    "pass": sim["median"] >= 5.0 if target else None, "numpy": draws.summary()})
    return out


def setup(repeats: int) -> list[dict]:
    """set-up seconds of simulate(game, 1000): the first in this process (numba's runtime starts), then repeats."""
    out = []
    first = None
    for name in FREE_SPINS_GAMES + OTHER_GAMES:
        game = load_game(name)
        draws = NumpyDraws(game, 1_000_000)
        times = []
        for _ in range(repeats + 1):
            result = simulate(load_game(name), 1000, seed=1)  # a fresh Game: its model is built again
            times.append(result.setup_seconds)
            draws.measure()
        if first is None:
            first = times[0]
        s = spread(times[1:])
        out.append({"target": f"2. set-up {name}", "setup_s": s, "first_in_process_s": times[0],
                    "limit": "< 0.3 s", "pass": s["median"] < 0.3, "numpy": draws.summary()})
    return out


def cli(runs: int) -> list[dict]:
    exe = ROOT / ".venv" / "bin" / "workbench"
    out = []
    for name in FREE_SPINS_GAMES:
        draws = NumpyDraws(load_game(name), 1_000_000)
        walls, setups = [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            proc = subprocess.run([str(exe), "simulate", name, "--spins", "1000", "--quiet"], cwd=ROOT, capture_output=True,
                                  text=True)
            walls.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                raise SystemExit(proc.stderr)
            line = next(l for l in proc.stdout.splitlines() if l.strip().startswith("set-up"))
            setups.append(float(line.split()[1]))
            draws.measure()
        s = spread(setups)
        out.append({"target": f"2. CLI simulate {name} --spins 1000", "wall_s": spread(walls), "setup_s": s,
                    "limit": "set-up < 0.3 s", "pass": s["median"] < 0.3, "numpy": draws.summary()})
    return out


def feature_rtp() -> list[dict]:
    out = []
    env_threads = os.environ.get("NUMBA_NUM_THREADS")
    for name in FREE_SPINS_GAMES + OTHER_GAMES:
        game = load_game(name)
        for mode_name, mode in game.all_bet_modes.items():
            played = game.in_bet_mode(mode_name)
            draws = NumpyDraws(game, 1_000_000)
            estimate_rtp(played, precision=0.05, seed=1)  # compiled code loaded before timing
            draws.measure()
            t0 = time.perf_counter()
            est = estimate_rtp(played, precision=0.0005 * float(mode.cost), seed=2, workers=2)
            wall = time.perf_counter() - t0
            draws.measure()
            half = est.rtp_ci95 / float(mode.cost)
            out.append({"target": f"3. +-0.05 % {name} [{mode_name}]", "wall_s": spread([wall]), "rtp": est.rtp / float(mode.cost),
                        "ci95": half, "samples": est.samples, "limit": "< 120 s on 2 workers, +-0.05 %",
                        "pass": wall < 120 and half <= 0.0005 + 1e-12, "numpy": draws.summary(),
                        "numba_threads": env_threads})
    return out


def row(r: dict) -> str:
    verdict = {True: "pass", False: "FAIL", None: "-"}[r["pass"]]
    if "M_spins_per_s_per_core" in r:
        fig = f"{fmt(r['M_spins_per_s_per_core'], 2)} M spins/s, {r['ratio_to_numpy']:.2f} x numpy"
    elif "first_in_process_s" in r:
        fig = f"set-up {fmt(r['setup_s'], 3)} s (first in process {r['first_in_process_s']:.3f} s)"
    elif "setup_s" in r:
        fig = f"wall {fmt(r['wall_s'], 2)} s, set-up printed {fmt(r['setup_s'], 3)} s"
    else:
        fig = f"{r['wall_s']['median']:.1f} s to RTP {100 * r['rtp']:.3f} % +- {100 * r['ci95']:.4f} % ({r['samples']:,} rounds)"
    return f"{r['target']:52s} {fig:78s} numpy {fmt(r['numpy']['M_draws_per_s'])} M draws/s  {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spins", type=int, default=4_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--skip-rtp", action="store_true")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = setup(args.repeats) + rates(args.spins, args.repeats) + cli(args.cli_runs)
    if not args.skip_rtp:
        results += feature_rtp()
    for r in results:
        print(row(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
