"""Replay, find and export (workbench.simulate.replay, workbench.export) on one core, beside numpy's stop-draw rate and
the game's own end-to-end rate from the same run, alternated over several runs (min / median / max).

- end to end: ``play_chunk`` of 2^20-round blocks, what ``simulate`` plays (no tracing: the compiled rounds are the
  simulator's own, so this is the rate of today's simulation);
- one round per call: ``RoundPlayer`` (what replay, find's matching pieces and export play);
- replay: ``replay_round`` of a round in the middle of a block (the block's rounds before it, then the round);
- find: a rare condition over a run (rounds searched per second, pieces that cannot match skipped);
- export: ``workbench export`` rounds per second (books, lookup table, zstandard, its own check), the user's path:
  with the books' screens (every round traced as Python, in pieces, one child process per core: the default) and
  with ``--no-screens`` (outcomes only).

    .venv/bin/python benchmarks/bench_replay.py [--repeats 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rules import NumpyDraws, fmt, spread  # noqa: E402  (sets NUMBA_NUM_THREADS=1)

from workbench import load_game  # noqa: E402
from workbench.simulate import round_model  # noqa: E402
from workbench.simulate.chunks import play_chunk  # noqa: E402
from workbench.simulate.replay import RoundPlayer, find_rounds, replay_round  # noqa: E402
from workbench.simulate.rng import chunk_state  # noqa: E402

GAMES = {"super_10_stars": "win >= 150", "bier_haus_oktober_fest": "win >= 150",
         "examples/ways_free_spins": "free_spins:retriggers >= 3"}
END_TO_END = 1 << 20
SINGLE = 20_000
FIND_SPINS = 4_000_000
EXPORT_ROUNDS = 50_000
EXPORT_SCREENS_ROUNDS = 5_000
ROOT = Path(__file__).resolve().parent.parent


def _export_rate(name: str, screens: bool) -> float:
    rounds = EXPORT_SCREENS_ROUNDS if screens else EXPORT_ROUNDS
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        subprocess.run([str(ROOT / ".venv/bin/workbench"), "export", name, "--rounds", str(rounds), "--out",
                        out, "--bet-mode", "base"] + ([] if screens else ["--no-screens"]), check=True, capture_output=True)
        return rounds / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    games = {name: load_game(name) for name in GAMES}
    models = {name: round_model(g) for name, g in games.items()}
    for m in models.values():  # compile / load every round before any clock starts
        play_chunk(m, chunk_state(1, 0), 1_000)
        RoundPlayer(m, chunk_state(1, 1)).play()
    draws = NumpyDraws(games["super_10_stars"], 2_000_000)
    keys = ("end_to_end", "one_round_per_call", "replay_seconds", "find_rounds_per_s", "export_rounds_per_s",
            "export_screens_rounds_per_s")
    rates = {name: {k: [] for k in keys} for name in GAMES}
    for rep in range(args.repeats):
        order = list(GAMES) if rep % 2 == 0 else list(GAMES)[::-1]
        for name in order:
            model, r = models[name], rates[name]
            t0 = time.process_time()
            play_chunk(model, chunk_state(2, rep), END_TO_END)
            r["end_to_end"].append(END_TO_END / (time.process_time() - t0))
            player = RoundPlayer(model, chunk_state(3, rep))
            t0 = time.process_time()
            for _ in range(SINGLE):
                player.play()
            r["one_round_per_call"].append(SINGLE / (time.process_time() - t0))
            t0 = time.perf_counter()
            replay_round(games[name], 5 + rep, 500_000, model=model)
            r["replay_seconds"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            find_rounds(games[name], 5 + rep, FIND_SPINS, GAMES[name], limit=10**6)
            r["find_rounds_per_s"].append(FIND_SPINS / (time.perf_counter() - t0))
            r["export_rounds_per_s"].append(_export_rate(name, screens=False))
            r["export_screens_rounds_per_s"].append(_export_rate(name, screens=True))
        draws.measure()
    out = {"numpy": draws.summary(), "games": {}}
    print(f"numpy stop draws: {fmt(spread(draws.rates, 1e-6), 1)} M/s (min / median / max, {args.repeats} runs)")
    for name, r in rates.items():
        row = {k: spread(v, 1.0 if k == "replay_seconds" else 1e-3) for k, v in r.items()}
        out["games"][name] = row
        print(f"{name:28s} end to end {fmt(row['end_to_end'], 0)} k/s; one round per call "
              f"{fmt(row['one_round_per_call'], 1)} k/s; replay of round 500,000 {fmt(row['replay_seconds'], 3)} s; "
              f"find '{GAMES[name]}' {fmt(row['find_rounds_per_s'], 0)} k rounds/s; "
              f"export (CLI) {fmt(row['export_rounds_per_s'], 1)} k rounds/s without screens, "
              f"{fmt(row['export_screens_rounds_per_s'], 2)} k rounds/s with screens")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
