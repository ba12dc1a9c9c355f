"""The consistency table: every shipped and gallery game x bet mode x component, end to end against exact +
conditional, as z = difference / combined standard error (workbench.simulate.agreement).

tests/test_consistency.py asks |z| <= 4 at 1,000,000 rounds; this prints the whole table at a larger size.

    .venv/bin/python benchmarks/bench_consistency.py [--spins 4000000] [--precision 0.001] [--workers 2] [games...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from workbench.io import example_games, load_game, shipped_games
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.agreement import agreement


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*")
    parser.add_argument("--spins", type=int, default=4_000_000)
    parser.add_argument("--precision", type=float, default=0.001)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    names = args.games or shipped_games() + example_games()
    rows = []
    for name in names:
        game = load_game(name)
        for mode in game.all_bet_modes:
            played = game.in_bet_mode(mode)
            t0 = time.perf_counter()
            sim = simulate(played, args.spins, 101, workers=args.workers)
            est = estimate_rtp(played, precision=args.precision, seed=202, workers=args.workers, max_seconds=300)
            result = agreement(sim, est)
            for r in result.rows:
                rows.append({"game": name, "mode": mode, "component": r.component, "end_to_end": r.end_to_end,
                             "end_to_end_se": r.end_to_end_se, "exact_conditional": r.exact_conditional,
                             "exact_conditional_se": r.exact_conditional_se, "source": r.source, "z": r.z})
            worst = result.worst
            print(f"{name:34s} {mode:10s} {len(result.rows):2d} components, worst {worst.component} z = {worst.z:+.2f} "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"| game | mode | component | end to end % | exact + conditional % | source | z |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['game']} | {r['mode']} | {r['component']} | {100 * r['end_to_end']:.4f} ± {100 * r['end_to_end_se']:.4f} "
              f"| {100 * r['exact_conditional']:.4f} ± {100 * r['exact_conditional_se']:.4f} | {r['source']} | {r['z']:+.2f} |")
    worst = max(rows, key=lambda r: abs(r["z"]))
    print(f"\n{len(rows)} rows; largest |z| = {abs(worst['z']):.2f} ({worst['game']} {worst['mode']} {worst['component']})")


if __name__ == "__main__":
    main()
