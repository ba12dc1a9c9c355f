"""Simulation speed before and after the replay / trace work (issue 31), paired, on one core.

"Before" is commit daa8b1f checked out as a git worktree (default /tmp/before:
``git worktree add /tmp/before daa8b1f``), "after" is this tree. Each timing is one
``workbench.simulate.simulate(game, spins, seed, workers=1)`` (no tracing: the compiled rounds
of a plain simulation) in a fresh subprocess of this venv's python, with ``PYTHONPATH`` and the
working directory set to the side's tree (the subprocess reports ``workbench.__file__``, checked
here) and its own numba cache (``NUMBA_CACHE_DIR=/tmp/nbcache_before`` / ``_after``, so the sides
never share compiled code), ``NUMBA_NUM_THREADS=1``. In the subprocess a 2^16-round simulate
loads the compiled code first. Two rates of the spinning alone (set-up and summary excluded): in
CPU time (``time.process_time`` around ``JobRunner.run``, wrapped at run time; the main figure,
as in bench_simulate / bench_rules: the least disturbed by other work on the machine) and in
wall time (spins / ``result.elapsed``, what ``spins_per_second`` reports).

Per game: one warm-up subprocess per side (compiles into an empty cache), then ``--runs``
alternations of numpy's stop-draw rate (``Generator.integers`` of one stop per reel for the
same spins, CPU time, as ``bench_rules.NumpyDraws``), the before rate and the after rate (before
and after swap places every other run), both sides with the same seed. Printed: min / median /
max of each rate (M rounds/s), after / before of the medians and of each run's pair, and the RTPs
of the two sides (equal unless a draw takes ``rng._bounded_slow``'s rejection step, fixed in
between). Pass: the median paired ratio >= 0.95.

    .venv/bin/python benchmarks/bench_replay_overhead.py [--runs 5] [--spins N] [--before /tmp/before]
        [--games NAME ...] [--seed S] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: rounds per timing: about 2.5-3 s each at this machine's one-core rates
GAMES = {"super_10_stars": 12 << 20, "bier_haus_oktober_fest": 8 << 20, "examples/ways_free_spins": 12 << 20}
WARM = 1 << 16


def worker(game_name: str, spins: int, seed: int) -> None:
    """In the side's subprocess: one timed simulate, as a JSON line on stdout."""
    import workbench
    from workbench import load_game
    from workbench.simulate import simulate

    from workbench.simulate.runner import JobRunner

    cpu = []
    run = JobRunner.run

    def timed_run(self, plan):  # the spinning of simulate (workers=1: in this process, one thread)
        t0 = time.process_time()
        run(self, plan)
        cpu.append(time.process_time() - t0)

    JobRunner.run = timed_run
    game = load_game(game_name)
    simulate(game, WARM, seed + 1, workers=1)  # load (or compile) the compiled round
    res = simulate(game, spins, seed, workers=1)
    print(json.dumps({"file": workbench.__file__, "spins": res.spins, "rate": res.spins / cpu[-1],
                      "wall_rate": res.spins / res.elapsed,
                      "rtp": repr(float(res.rtp)), "max_win": repr(float(res.max_win))}))


def run_side(side: str, tree: Path, game: str, spins: int, seed: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_CACHE_DIR=f"/tmp/nbcache_{side}", NUMBA_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", game, str(spins), str(seed)],
                          cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"{side} {game}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if Path(out["file"]).resolve() != (tree / "workbench" / "__init__.py").resolve():
        raise SystemExit(f"{side}: imported {out['file']}, not {tree}/workbench")
    return out


def mmm(values, scale: float = 1.0) -> str:
    return f"{scale * min(values):5.2f} / {scale * statistics.median(values):5.2f} / {scale * max(values):5.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="alternations per game (default 5)")
    ap.add_argument("--spins", type=int, help="rounds per timing, every game (default: per game, ~2.5-3 s each)")
    ap.add_argument("--before", default="/tmp/before", help="worktree of the before commit (default /tmp/before)")
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES), help="default: all three")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", help="write every figure here")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), int(args.worker[2]))

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_rules import NumpyDraws  # (this tree's workbench, for the game's strips only)
    from workbench import load_game

    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    head = {s: subprocess.run(["git", "-C", str(t), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() for s, t in trees.items()}
    print(f"before: {trees['before']} ({head['before']}), after: {ROOT} ({head['after']}); "
          f"python {sys.executable}; {args.runs} runs", flush=True)
    results = {}
    for game in args.games:
        spins = args.spins or GAMES[game]
        for side, tree in trees.items():  # warm-up: compile into the side's cache if empty
            t0 = time.perf_counter()
            run_side(side, tree, game, WARM, args.seed)
            print(f"{game}: {side} warm-up {time.perf_counter() - t0:.1f} s", flush=True)
        draws = NumpyDraws(load_game(game), spins)
        rows = {"numpy": [], "before": [], "after": [], "pair": [], "wall_before": [], "wall_after": [],
                "wall_pair": [], "rtp": [], "same": []}
        for run in range(args.runs):
            draws.measure()
            rows["numpy"].append(draws.rates[-1])
            seed = args.seed + run
            order = ("before", "after") if run % 2 == 0 else ("after", "before")
            got = {side: run_side(side, trees[side], game, spins, seed) for side in order}
            for side in ("before", "after"):
                rows[side].append(got[side]["rate"])
                rows["wall_" + side].append(got[side]["wall_rate"])
            rows["pair"].append(got["after"]["rate"] / got["before"]["rate"])
            rows["wall_pair"].append(got["after"]["wall_rate"] / got["before"]["wall_rate"])
            rows["rtp"].append((got["before"]["rtp"], got["after"]["rtp"]))
            rows["same"].append(got["before"]["rtp"] == got["after"]["rtp"]
                                and got["before"]["max_win"] == got["after"]["max_win"])
            print(f"  run {run + 1} seed {seed} ({order[0]} first): numpy {draws.rates[-1] / 1e6:.2f}, "
                  f"before {got['before']['rate'] / 1e6:.3f}, after {got['after']['rate'] / 1e6:.3f} M/s, "
                  f"after/before {rows['pair'][-1]:.3f} (wall {rows['wall_pair'][-1]:.3f}); RTP before {got['before']['rtp']} after "
                  f"{got['after']['rtp']}", flush=True)
        results[game] = dict(rows, spins=spins)

    verdicts = []
    for clock, pre in (("CPU time", ""), ("wall time", "wall_")):
        print(f"\nM rounds/s on one core ({clock} of the spinning), min / median / max of {args.runs} alternated "
              f"runs (numpy: one stop per reel for the same spins, CPU time)")
        print(f"{'game':26s} {'spins':>6s} {'numpy M/s':>19s} {'before M/s':>19s} {'after M/s':>19s} "
              f"{'med/med':>7s} {'paired after/before':>21s}  RTP same")
        for game, r in results.items():
            ratio = statistics.median(r[pre + "after"]) / statistics.median(r[pre + "before"])
            paired = statistics.median(r[pre + "pair"])
            verdicts.append(f"{game} ({clock}): median paired ratio {paired:.3f} -> "
                            f"{'within 5 %' if paired >= 0.95 else 'MORE THAN 5 % SLOWER'}")
            print(f"{game:26s} {r['spins'] / 1e6:5.1f}M {mmm(r['numpy'], 1e-6):>19s} "
                  f"{mmm(r[pre + 'before'], 1e-6):>19s} {mmm(r[pre + 'after'], 1e-6):>19s} {ratio:7.3f} "
                  f"{mmm(r[pre + 'pair']):>21s}  {sum(r['same'])}/{len(r['same'])}")
    print("\nRTP (before | after), per run's seed:")
    for game, r in results.items():
        for run, (b, a) in enumerate(r["rtp"]):
            print(f"  {game:26s} seed {args.seed + run}: {b} | {a}{'' if b == a else '  (differ)'}")
    print("\n" + "\n".join(verdicts))
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": args.runs, "heads": head, "games": results}, indent=1))


if __name__ == "__main__":
    main()
