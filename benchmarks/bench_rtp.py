"""Time for `workbench rtp` (exact base + conditional simulation) to reach a 0.02 % half-width.

Target (issue 3): under 2 minutes for each shipped game.

    .venv/bin/python benchmarks/bench_rtp.py [--precision 0.0002] [--workers K] [games...]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from workbench import load_game
from workbench.simulate import estimate_rtp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=["super_10_stars", "bier_haus_oktober_fest"])
    parser.add_argument("--precision", type=float, default=0.0002)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    out = []
    for name in args.games:
        game = load_game(name)
        estimate_rtp(game, precision=0.05, seed=1)  # compile and build once, not timed
        t0 = time.perf_counter()
        est = estimate_rtp(game, precision=args.precision, seed=1, workers=args.workers)
        wall = time.perf_counter() - t0
        out.append({"game": name, "seconds": wall, "rtp": est.rtp, "rtp_ci95": est.rtp_ci95, "samples": est.samples,
                    "workers": args.workers})
        print(f"{name:24s} RTP {100 * est.rtp:.4f} % +- {100 * est.rtp_ci95:.4f} in {wall:.0f} s "
              f"on {args.workers} worker(s) (target: +-{100 * args.precision:.2f} % in < 120 s)", flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
