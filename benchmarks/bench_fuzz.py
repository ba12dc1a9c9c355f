"""Fuzzing the reelset loader: many hostile mutants of the shipped files, each refused clearly or usable.

Runs the generator of ``tests/test_io_fuzz.py`` (the CI test runs 1,000 cases)
on ``--cases`` cases: every case must end in a valid game or a ``ReelsetError``
whose problems all name the file, within 2 s of CPU; the PAR sheet (and, for
games with features, the simulator's round model) of a sample of the accepted
mutants must raise nothing but a ``WorkbenchError``.  Failures must be 0.

    .venv/bin/python benchmarks/bench_fuzz.py [--cases 100000] [--seed 1] [--par-sample 200] [--model-sample 50]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_io_fuzz import generate, run_case, use_game  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--par-sample", type=int, default=200, help="accepted mutants whose PAR sheet is computed")
    parser.add_argument("--model-sample", type=int, default=50, help="accepted mutants with features whose round model is built")
    parser.add_argument("--progress", type=int, default=10_000, help="print a line every this many cases")
    args = parser.parse_args()

    start = time.perf_counter()
    reservoir = random.Random(args.seed)
    times: list[float] = []
    slowest = (0.0, "")
    failures: list[str] = []
    accepted: list = []  # a uniform sample (reservoir) of the accepted games
    seen = 0
    rejected = 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.toml"
        for i, case in enumerate(generate(args.seed, args.cases)):
            outcome = run_case(case, path)
            times.append(outcome.seconds)
            if outcome.seconds > slowest[0]:
                slowest = (outcome.seconds, f"case {i}: {case.describe()}"[:300])
            if outcome.failure:
                failures.append(f"case {i}: {case.describe()}: {outcome.failure}")
            elif outcome.game is not None:
                # keep a bounded reservoir of accepted games for the PAR sample
                keep = max(args.par_sample, args.model_sample) * 4
                seen += 1
                if len(accepted) < keep:
                    accepted.append((i, case, outcome.game))
                else:
                    j = reservoir.randrange(seen)
                    if j < keep:
                        accepted[j] = (i, case, outcome.game)
            else:
                rejected += 1
            if args.progress and (i + 1) % args.progress == 0:
                print(f"  {i + 1:,} cases, {time.perf_counter() - start:.0f} s", flush=True)
    n_accepted = len(times) - rejected - len(failures)
    load_seconds = time.perf_counter() - start
    rng = random.Random(args.seed)
    par_sample = rng.sample(accepted, min(args.par_sample, len(accepted)))
    t0 = time.perf_counter()
    for i, case, game in par_sample:
        failure = use_game(game)
        if failure:
            failures.append(f"case {i}: {case.describe()}: {failure}")
    featured = [a for a in accepted if a[2].game_module != "classic"]
    model_sample = rng.sample(featured, min(args.model_sample, len(featured)))
    for i, case, game in model_sample:
        failure = use_game(game, simulate=True)
        if failure:
            failures.append(f"case {i}: {case.describe()}: {failure}")
    use_seconds = time.perf_counter() - t0

    print(f"cases tried      {len(times):,} (seed {args.seed})")
    print(f"accepted         {n_accepted:,}")
    print(f"rejected         {rejected:,} (ReelsetError, every problem naming the file)")
    print(f"failures         {len(failures):,}")
    print(f"time per case    max {1000 * max(times):.1f} ms, p99 {1000 * percentile(times, 0.99):.1f} ms, "
          f"mean {1000 * sum(times) / len(times):.1f} ms (CPU, load and validate)")
    print(f"slowest case     {slowest[1]}")
    print(f"par sample       {len(par_sample)} PAR sheets and {len(model_sample)} round models of accepted cases, "
          f"{use_seconds:.1f} s")
    print(f"wall time        {load_seconds:.0f} s loading, {time.perf_counter() - start:.0f} s in all")
    for line in failures[:20]:
        print("FAIL", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
