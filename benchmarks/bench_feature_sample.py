"""Feature statistics (workbench.simulate.feature_sample): rounds sampled where each feature starts, per second on one
core, beside numpy's stop-draw rate and the game's own end-to-end rate from the same run, alternated over several
runs (min / median / max).

The sampler plays one round per compiled call (a feature's own samples cannot share a call), through the compiled
entry point of the round's code; the figure that matters to a designer is how long the report's feature section
takes: ``wanted`` starts per feature (20,000 at the report's default precision).

    .venv/bin/python benchmarks/bench_feature_sample.py [--repeats 5] [--wanted 5000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rules import NumpyDraws, fmt, spread  # noqa: E402  (sets NUMBA_NUM_THREADS=1)

from workbench import load_game  # noqa: E402
from workbench.simulate import round_model  # noqa: E402
from workbench.simulate.chunks import play_chunk  # noqa: E402
from workbench.simulate.feature_sample import sample_features  # noqa: E402
from workbench.simulate.rng import chunk_state  # noqa: E402

GAMES = ("examples/ways_free_spins", "examples/wheel_free_spins", "examples/hold_and_respin_coins", "super_10_stars",
         "bier_haus_oktober_fest")
END_TO_END_SPINS = 200_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--wanted", type=int, default=5_000, help="starts sampled per feature and run")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    games = {name: load_game(name) for name in GAMES}
    models = {name: round_model(g) for name, g in games.items()}
    for name, m in models.items():  # compile / load every round before any clock starts
        sample_features(m, 1, wanted=1, max_seconds=600)
        play_chunk(m, chunk_state(1, 0), 1_000)
    draws = NumpyDraws(games["super_10_stars"], 2_000_000)
    rates = {name: {"sampled_rounds_per_s": [], "seconds": [], "end_to_end_rounds_per_s": []} for name in GAMES}
    for rep in range(args.repeats):
        order = list(GAMES) if rep % 2 == 0 else list(GAMES)[::-1]
        for name in order:
            t0 = time.process_time()
            stats = sample_features(models[name], 10 + rep, wanted=args.wanted, max_seconds=600)
            spent = time.process_time() - t0
            rates[name]["sampled_rounds_per_s"].append(stats.rounds / spent)
            rates[name]["seconds"].append(spent)
            t0 = time.process_time()
            play_chunk(models[name], chunk_state(2, rep), END_TO_END_SPINS)
            rates[name]["end_to_end_rounds_per_s"].append(END_TO_END_SPINS / (time.process_time() - t0))
        draws.measure()
    out = {"numpy": draws.summary(), "wanted_per_feature": args.wanted, "games": {}}
    print(f"numpy stop draws: {fmt(spread(draws.rates, 1e-6), 1)} M/s (min / median / max, {args.repeats} runs)")
    for name, r in rates.items():
        row = {k: spread(v, 1e-3 if k != "seconds" else 1.0) for k, v in r.items()}
        out["games"][name] = row
        print(f"{name:34s} sampled {fmt(row['sampled_rounds_per_s'], 1)} k rounds/s; "
              f"{args.wanted:,} starts per feature in {fmt(row['seconds'], 2)} s; "
              f"end to end {fmt(row['end_to_end_rounds_per_s'], 0)} k rounds/s")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
