"""The mutant corpus at scale: thousands of mutants through validate, par, simulate and rtp (tests/mutant_corpus.py).

Every case is a seeded structure-aware mutant of a shipped or gallery reelset (1 to ``--max-ops`` changes); each
one ``workbench validate`` accepts is priced (``par(full_cycle=False)``), simulated (``--spins`` rounds, a 10 s box)
and estimated (``estimate_rtp``, a ``--rtp-seconds`` box) in this process, and for a seeded sample of them
(``--cli-sample``) ``workbench rtp FILE --max-seconds 10 --quiet`` runs as a real process, whose wall time must
stay within 12 s.  Printed: mutants tried and accepted, tracebacks, refusals after validate said ok, time-box
overruns (with the max and p90 wall time of the CLI runs), absurd figures and disagreements between simulate and
rtp; each finding is listed.  Failures must be 0.

    .venv/bin/python benchmarks/bench_mutants.py [--count 2000] [--seed 0] [--cli-sample 40] [--max-ops 3]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import mutant_corpus  # noqa: E402
from mutant_corpus import FAILURES, run_case, run_text  # noqa: E402

CLI_BOX = 10.0  # --max-seconds of the CLI runs
CLI_LIMIT = 12.0  # ... which must end within this, start-up included


def percentile(values: list, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def cli_rtp(path: Path) -> tuple[float, int, str]:
    """(wall seconds, exit code, stderr) of ``workbench rtp PATH --max-seconds 10 --quiet`` in a fresh process
    (started in the file's folder: the workbench imported is the one this script runs, PYTHONPATH included)."""
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", str(path), "--max-seconds", str(CLI_BOX),
                           "--quiet"], capture_output=True, text=True, timeout=120, cwd=path.parent)
    return time.monotonic() - start, done.returncode, done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="mutants tried")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (0: the CI test's cases)")
    parser.add_argument("--cli-sample", type=int, default=40, help="accepted mutants also run as `workbench rtp --max-seconds 10`")
    parser.add_argument("--max-ops", type=int, default=3, help="most changes per mutant (1 .. this, by case number)")
    parser.add_argument("--spins", type=int, default=20_000)
    parser.add_argument("--rtp-seconds", type=float, default=3.0, help="time box of the in-process estimate")
    parser.add_argument("--hostile", type=int, default=0,
                        help="also this many hostile mutants of tests/test_io_fuzz.py (bytes, huge numbers, ...)")
    parser.add_argument("--cli-only", action="store_true",
                        help="validate the mutants only (no in-process par, simulate, rtp): the time-box runs alone")
    parser.add_argument("--progress", type=int, default=250, help="print a line every this many mutants")
    parser.add_argument("--verbose", action="store_true", help="print each finding as it is found (and again at the end)")
    args = parser.parse_args()

    n_files = len(mutant_corpus.ALL_FILES)

    def spec(case: int, seed: int = 0):
        path, mutant_seed, _ = original(case, seed)
        return path, mutant_seed, 1 + (case // n_files) % max(1, args.max_ops)

    original = mutant_corpus.case_spec
    mutant_corpus.case_spec = spec
    start = time.perf_counter()
    findings: list = []
    kinds: Counter = Counter()
    accepted: list = []
    notes: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        def cases():
            for case in range(args.count):
                yield lambda case=case: run_case(case, folder, seed=args.seed, spins=args.spins,
                                                  rtp_seconds=args.rtp_seconds, commands=not args.cli_only)
            if args.hostile:
                from test_io_fuzz import generate

                for i, c in enumerate(generate(args.seed + 11, args.hostile)):
                    yield lambda i=i, c=c: run_text(args.count + i, f"hostile_{c.source}", c.ops, c.data, folder,
                                                    spins=args.spins, rtp_seconds=args.rtp_seconds)

        for case, play in enumerate(cases()):
            result = play()
            for kind, text in result.findings:
                kinds[kind] += 1
                findings.append((kind, text))
                if args.verbose:
                    print(f"{kind}: {text}", flush=True)
            for note in result.notes:
                notes[note.split(":")[0]] += 1
            if result.accepted:
                accepted.append(case)
            if args.progress and (case + 1) % args.progress == 0:
                print(f"  {case + 1:,} mutants, {len(accepted):,} accepted, {sum(kinds.values())} findings, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
        sample = random.Random(args.seed).sample(accepted, min(args.cli_sample, len(accepted)))
        walls = []
        for case in sample:
            path = next(folder.glob(f"*_case{case}.toml"))
            wall, code, err = cli_rtp(path)
            walls.append(wall)
            if "Traceback" in err:
                kinds["traceback"] += 1
                findings.append(("traceback", f"workbench rtp {path.name}: {err.strip()[-600:]}"))
            elif code not in (0,):
                kinds["refusal"] += 1
                findings.append(("refusal", f"workbench rtp {path.name} exit {code}: {err.strip()[-300:]}"))
            if wall > CLI_LIMIT:
                kinds["overrun"] += 1
                findings.append(("overrun", f"workbench rtp {path.name} --max-seconds {CLI_BOX:g}: {wall:.2f} s"))
    elapsed = time.perf_counter() - start
    print(f"mutants tried:                 {args.count + args.hostile:,} ({args.count:,} structure-aware, 1-{args.max_ops} "
          f"changes each, seed {args.seed}; {args.hostile:,} hostile)")
    print(f"accepted by validate:          {len(accepted):,}")
    print(f"tracebacks:                    {kinds['traceback']}")
    print(f"refusals after validate ok:    {kinds['refusal']}")
    print(f"time-box overruns:             {kinds['overrun']}  (workbench rtp --max-seconds {CLI_BOX:g}, {len(walls)} runs: "
          f"max {max(walls, default=0):.2f} s, p90 {percentile(walls, 0.9):.2f} s; limit {CLI_LIMIT:g} s)")
    print(f"absurd figures:                {kinds['absurd']}")
    print(f"disagreements (z > 5):         {kinds['disagreement']}")
    for note, count in notes.most_common():
        print(f"note: {count} x {note}")
    for kind, text in findings:
        print(f"{kind}: {text}")
    print(f"{elapsed:.0f} s in all")
    return 1 if any(kinds[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
