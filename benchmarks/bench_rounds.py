"""Speed of the rounds declared in the file (issue 13): free spins, hold and respin, bet modes; every figure beside
the rate at which numpy alone draws the stops of the same game, measured in the same run, alternated with it.

Targets (issue 13):
  1. declared free-spins games >= 5 M base spins per second per core, end to end (examples/ways_free_spins,
     examples/sticky_wilds_ante; examples/hold_and_respin_coins shown too, no target for its template); tumble
     and cluster games >= 1 M rounds per second per core (examples/pay_anywhere_tumble, examples/cluster_tumble_7x7);
  2. set-up of a run (loading the cached compiled round, building its tables) < 0.3 s, apart from the spinning
     rate: `SimulationResult.setup_seconds` of the FIRST `simulate(game, 1000, seed=1)` of a fresh process (it
     starts numba's compiled-code runtime and loads the round's compiled code from the cache; a second run in the
     same process is shown beside it), over --setup-runs fresh processes per game after one unmeasured process
     that fills the cache; interpreter start and `import workbench` are outside the set-up and shown apart; and
     the CLI path `workbench simulate GAME --spins 1000` (wall time and the set-up it prints);
  3. each feature RTP to +-0.05 % (95 %) in < 2 minutes on 2 cores: wall time of
     `estimate_rtp(game, precision=0.0005, workers=2)` for every declared-feature game and bet mode
     (`game.in_bet_mode(mode)`, precision x the mode's cost).

Rates are CPU time per core (one numba thread, time.process_time), numpy's as in bench_rules.NumpyDraws; every
figure is min / median / max over alternated runs, pass / fail on the median.

    .venv/bin/python benchmarks/bench_rounds.py [--spins N] [--repeats N] [--setup-runs N] [--cli-runs N] [--skip-rtp]
        [--only-setup]
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

# the 1,024-ways game: a wild drawn x2 / x3 per cell in the free spins only (issue 29, per-mode symbols); the wheel game:
# a wheel award with every trigger and retrigger, meter spins on their own strips (issue 29, wheels as awards)
FREE_SPINS_GAMES = ("examples/ways_free_spins", "examples/sticky_wilds_ante", "examples/ways_1024_free_wild_multipliers",
                    "examples/wheel_free_spins", "examples/mystery_stacks")
OTHER_GAMES = ("examples/hold_and_respin_coins",)
# the chain game: scatters counted and paid over the whole chain, free spins per scatter (issue 29)
TUMBLE_GAMES = ("examples/pay_anywhere_tumble", "examples/cluster_tumble_7x7", "examples/pay_anywhere_tumble_chain")
SETUP_GAMES = FREE_SPINS_GAMES + OTHER_GAMES + TUMBLE_GAMES
# bought rounds (no target): the 1,024-ways super buy draws its forced trigger screen given 3-5 scatters and pays it;
# the coin game's prize mode plays the coin feature from an empty screen, every board a spin of its strips; the wheel
# game's sticky buy plays expanding sticky wilds whose multiplier is drawn when they land
BUY_MODES = (("examples/ways_1024_free_wild_multipliers", "super_buy"), ("examples/hold_and_respin_coins", "prize_spins"),
             ("examples/wheel_free_spins", "sticky_buy"))


def rates(spins: int, repeats: int) -> list[dict]:
    out = []
    for name in FREE_SPINS_GAMES + OTHER_GAMES + TUMBLE_GAMES:
        game = load_game(name)
        tumble = name in TUMBLE_GAMES
        got, draws = sim_rates({name: game}, spins // 4 if tumble else spins, repeats, game)
        sim = spread(got[name], 1e-6)
        limit = 1.0 if tumble else 5.0 if name in FREE_SPINS_GAMES else None
        out.append({"target": f"1. end to end {name}", "M_spins_per_s_per_core": sim,
                    "ratio_to_numpy": sim["median"] / draws.summary()["M_draws_per_s"]["median"],
                    "limit": None if limit is None else f">= {limit:g} M {'rounds' if tumble else 'base spins'}/s per core",
                    "pass": sim["median"] >= limit if limit is not None else None, "numpy": draws.summary()})
    for name, mode in BUY_MODES:
        game = load_game(name).in_bet_mode(mode)
        got, draws = sim_rates({name: game}, spins // 20, repeats, game)
        sim = spread(got[name], 1e-6)
        out.append({"target": f"1. end to end {name} bet mode {mode} (bought rounds)", "M_spins_per_s_per_core": sim,
                    "ratio_to_numpy": sim["median"] / draws.summary()["M_draws_per_s"]["median"], "limit": None,
                    "pass": None, "numpy": draws.summary()})
    return out


# One fresh process: wall-clock stamps (time.time) to see the interpreter start from the parent, then the
# imports, the first simulate() of the process and a second one with a freshly loaded Game (its model is built
# again); prints one JSON line.  The first call of the round's chunk loop (typing its arguments, loading it from the
# cache) is part of `setup_seconds` (simulate() loads the round before it starts the clock of the spinning);
# `spin_s` (1000 spins) is shown beside.
FRESH_PROCESS = """
import json, sys, time
started = time.time()
t0 = time.perf_counter()
import workbench
from workbench import load_game
t1 = time.perf_counter()
from workbench.simulate import simulate
t2 = time.perf_counter()
first = simulate(load_game(sys.argv[1]), 1000, seed=1)
second = simulate(load_game(sys.argv[1]), 1000, seed=1)
print(json.dumps({"started": started, "import_workbench_s": t1 - t0, "import_simulate_s": t2 - t1,
                  "setup_s": first.setup_seconds, "spin_s": first.elapsed, "second_setup_s": second.setup_seconds,
                  "rtp": first.rtp, "same": first.rtp == second.rtp}))
"""


def fresh_process(name: str) -> dict:
    """Figures of one fresh process running :data:`FRESH_PROCESS` on game ``name`` (one numba thread)."""
    launched = time.time()
    proc = subprocess.run([sys.executable, "-c", FRESH_PROCESS, name], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"fresh process on {name} failed ({proc.returncode}):\n{proc.stderr}")
    out = json.loads(proc.stdout.splitlines()[-1])
    out["interpreter_s"] = out.pop("started") - launched
    if not out["same"]:
        raise SystemExit(f"{name}: two runs with seed 1 in one process gave different RTPs")
    return out


def setup(runs: int) -> list[dict]:
    """The first set-up of ``runs`` fresh processes per game (after one that fills the cache), with the set-up of a
    second run in the same process, interpreter start and the imports beside it."""
    out = []
    for name in SETUP_GAMES:
        draws = NumpyDraws(load_game(name), 1_000_000)
        fresh_process(name)  # loads (or, after an edit, compiles and saves) the compiled code: not measured
        got = []
        for _ in range(runs):
            got.append(fresh_process(name))
            draws.measure()
        rtps = {g["rtp"] for g in got}
        if len(rtps) != 1:
            raise SystemExit(f"{name}: fresh processes with seed 1 gave different RTPs {sorted(rtps)}")
        s = spread([g["setup_s"] for g in got])
        out.append({"target": f"2. first set-up {name}", "setup_s": s, "rtp": got[0]["rtp"],
                    **{k: spread([g[k] for g in got]) for k in ("second_setup_s", "interpreter_s", "import_workbench_s",
                                                                "import_simulate_s", "spin_s")},
                    "limit": "< 0.3 s", "pass": s["median"] < 0.3, "numpy": draws.summary()})
    return out


def cli(runs: int) -> list[dict]:
    exe = ROOT / ".venv" / "bin" / "workbench"
    out = []
    for name in SETUP_GAMES:
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
    for name in FREE_SPINS_GAMES + OTHER_GAMES + TUMBLE_GAMES:
        game = load_game(name)
        for mode_name, mode in game.all_bet_modes.items():
            played = game.in_bet_mode(mode_name)
            draws = NumpyDraws(game, 1_000_000)
            estimate_rtp(played, precision=0.05, seed=1)  # compiled code loaded before timing
            draws.measure()
            t0 = time.perf_counter()
            # time-boxed: a mode that cannot reach +-0.05 % in time stops at 150 s and reports the precision reached
            est = estimate_rtp(played, precision=min(0.0005 * float(mode.cost), 0.5), seed=2, workers=2, max_seconds=150)
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
    elif "second_setup_s" in r:
        fig = (f"set-up {fmt(r['setup_s'], 3)} s (2nd run {r['second_setup_s']['median']:.3f}; interpreter "
               f"{r['interpreter_s']['median']:.2f}, import workbench {r['import_workbench_s']['median']:.2f}, "
               f"workbench.simulate {r['import_simulate_s']['median']:.2f}, 1000 spins {r['spin_s']['median']:.3f} s)")
    elif "setup_s" in r:
        fig = f"wall {fmt(r['wall_s'], 2)} s, set-up printed {fmt(r['setup_s'], 3)} s"
    else:
        fig = f"{r['wall_s']['median']:.1f} s to RTP {100 * r['rtp']:.3f} % +- {100 * r['ci95']:.4f} % ({r['samples']:,} rounds)"
    return f"{r['target']:52s} {fig:78s} numpy {fmt(r['numpy']['M_draws_per_s'])} M draws/s  {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spins", type=int, default=4_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--setup-runs", type=int, default=5, help="fresh processes per game for target 2")
    parser.add_argument("--cli-runs", type=int, default=5)
    parser.add_argument("--skip-rtp", action="store_true")
    parser.add_argument("--only-setup", action="store_true", help="target 2 only (fresh processes and the CLI)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = setup(args.setup_runs)
    if not args.only_setup:
        results += rates(args.spins, args.repeats)
    results += cli(args.cli_runs)
    if not args.skip_rtp and not args.only_setup:
        results += feature_rtp()
    for r in results:
        print(row(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
