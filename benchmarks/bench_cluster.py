"""Speed of the exact first drop of cluster games: the column transfer against the full enumeration, on the path
the editors and `workbench par` take; every figure beside numpy's stop-draw rate of the same game, measured in the
same run, alternated with it.

  1. the gallery's 7x7 candy game (examples/cluster_tumble_7x7, 40-stop strips, 40^7 screens: only the transfer
     can price it): par(game, full_cycle=False), the strip-set analysis cache emptied before each call;
  2. a 7x7 game with 10-stop strips (10^7 screens), priced both ways: the transfer (full_cycle=False) and the
     full enumeration (full_cycle=True: the win distribution); the results must agree;
  3. strips of 40, 60 and 100 stops (seeded, the gallery's candies by weight with a WILD on reels 2, 4, 6): the
     transfer's time and its largest joint layer (states of one reel);
  4. the strip editor on the gallery game: an insert-stop edit through the editor's tools to the refreshed
     headline (the path a designer takes), after one warm-up edit;
  5. the CLI: `workbench par examples/cluster_tumble_7x7` as a subprocess (start-up included).

One numba thread in-process (NUMBA_NUM_THREADS=1 unless set); times are wall seconds (time.perf_counter);
numpy's rate is CPU time as in bench_rules.NumpyDraws. Every figure is min / median / max over the runs.

    .venv/bin/python benchmarks/bench_cluster.py [--repeats N] [--editor-repeats N] [--cli-runs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rules import NumpyDraws, cli_target, fmt, spread, timed_par  # noqa: E402  (sets NUMBA_NUM_THREADS=1)

from workbench import load_game  # noqa: E402
from workbench.exact import par  # noqa: E402
from workbench.io import loads_game, reelsets_dir  # noqa: E402

GAME = "examples/cluster_tumble_7x7"
NUMPY_SPINS = 1_000_000


def seeded(stops: int, seed: int = 5):
    """The gallery game with seeded strips of ``stops`` stops (candies by weight, a WILD on reels 2, 4 and 6)."""
    text = (reelsets_dir() / "examples" / "cluster_tumble_7x7.toml").read_text(encoding="utf-8")
    rng = random.Random(seed)
    names = ["RED", "ORANGE", "YELLOW", "GREEN", "BLUE", "PURPLE", "PINK"]

    def strip(reel: int) -> str:
        drawn = rng.choices(names, weights=[2, 3, 4, 6, 7, 8, 10], k=stops)
        if reel % 2 == 0:
            drawn[rng.randrange(stops)] = "WILD"
        return " ".join(drawn)

    text = re.sub(r'reel(\d) = "[^"]*"', lambda m: f'reel{m.group(1)} = "{strip(int(m.group(1)))}"', text)
    return loads_game(text, f"cluster_{stops}.toml")


def gallery(repeats: int) -> dict:
    game = load_game(GAME)
    timed_par(game, full_cycle=False)  # compiled code loaded
    draws = NumpyDraws(game, NUMPY_SPINS)
    walls = []
    for _ in range(repeats):
        walls.append(timed_par(game, full_cycle=False)[0])
        draws.measure()
    sheet = par(game, full_cycle=False)
    return {"target": f"1. exact first drop {GAME} (40^7 screens), par(full_cycle=False)", "wall_s": spread(walls),
            "rtp": sheet.rtp, "hit_frequency": sheet.hit_frequency, "numpy": draws.summary()}


def both_ways(repeats: int) -> dict:
    game = seeded(10)
    timed_par(game, full_cycle=False)
    timed_par(game, full_cycle=True)
    draws = NumpyDraws(game, NUMPY_SPINS)
    walls = {"transfer": [], "enumeration": []}
    for rep in range(repeats):
        order = ("transfer", "enumeration") if rep % 2 == 0 else ("enumeration", "transfer")
        for how in order:
            walls[how].append(timed_par(game, full_cycle=(how == "enumeration"))[0])
        draws.measure()
    a, b = par(game, full_cycle=False), par(game, full_cycle=True)
    if a.rtp != b.rtp or a.hit_frequency != b.hit_frequency or abs(a.std - b.std) > 1e-9 * b.std:
        raise SystemExit(f"the two methods disagree: {a.rtp} {b.rtp}, {a.hit_frequency} {b.hit_frequency}, {a.std} {b.std}")
    return {"target": "2. 7x7 with 10-stop strips (10^7 screens): transfer vs full enumeration",
            "transfer_s": spread(walls["transfer"]), "enumeration_s": spread(walls["enumeration"]),
            "same_rtp_hit_std": True, "numpy": draws.summary()}


def lengths(repeats: int) -> list[dict]:
    from workbench.exact.cluster import analyse_cluster
    import workbench.exact.cluster_transfer as transfer

    out = []
    largest = {}
    original = transfer._joint_sweep

    def spy(*args):
        result = original(*args)
        largest["states"] = int(result[5])
        return result

    transfer._joint_sweep = spy
    try:
        for stops in (40, 60, 100):
            game = seeded(stops)
            strip_set = game.strip_sets_for("base")[0]
            analyse_cluster(game, strip_set, full_cycle=False)
            draws = NumpyDraws(game, NUMPY_SPINS)
            walls = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                analyse_cluster(game, strip_set, full_cycle=False)
                walls.append(time.perf_counter() - t0)
                draws.measure()
            out.append({"target": f"3. transfer, 7x7 with {stops}-stop strips ({stops}^7 screens)",
                        "wall_s": spread(walls), "largest_joint_layer": largest["states"], "numpy": draws.summary()})
    finally:
        transfer._joint_sweep = original
    return out


def editor(repeats: int) -> dict:
    from workbench.widgets import StripEditor

    game = load_game(GAME)
    draws = NumpyDraws(game, NUMPY_SPINS)
    walls = []
    with tempfile.TemporaryDirectory(prefix="bench_cluster_") as tmp:
        path = Path(tmp) / "cluster.toml"
        shutil.copyfile(reelsets_dir() / "examples" / "cluster_tumble_7x7.toml", path)
        ed = StripEditor(path)
        tools = ed.tools
        symbols = ["PINK", "PURPLE", "BLUE", "GREEN"]
        for i in range(repeats + 1):  # the first edit is a warm-up
            reel = 1 + i % game.reels
            stop = 1 + (7 * i) % len(ed.strip(reel))
            tools.reel.value, tools.stop.value, tools.symbol.value = reel, stop, symbols[i % len(symbols)]
            before = len(ed.strip(reel))
            t0 = time.perf_counter()
            tools.insert_button.click()
            wall = time.perf_counter() - t0
            if len(ed.strip(reel)) != before + 1:
                raise SystemExit(f"insert-stop edit not applied: {ed.status.value}")
            ed.undo_button.click()
            if i:
                walls.append(wall)
                draws.measure()
    return {"target": f"4. strip editor insert-stop update, {GAME}", "wall_s": spread(walls), "numpy": draws.summary()}


def row(r: dict) -> str:
    if "transfer_s" in r:
        fig = f"transfer {fmt(r['transfer_s'], 3)} s, enumeration {fmt(r['enumeration_s'], 2)} s (same figures)"
    elif "largest_joint_layer" in r:
        fig = f"{fmt(r['wall_s'], 3)} s, largest layer {r['largest_joint_layer']:,} states"
    elif "rtp" in r:
        fig = f"{fmt(r['wall_s'], 3)} s (RTP {100 * r['rtp']:.4f} %, hit {100 * r['hit_frequency']:.2f} %)"
    else:
        fig = f"{fmt(r['wall_s'], 3)} s"
    return f"{r['target']:72s} {fig:62s} numpy {fmt(r['numpy']['M_draws_per_s'])} M draws/s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--editor-repeats", type=int, default=5)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = [gallery(args.repeats), both_ways(max(2, args.repeats // 2))] + lengths(max(2, args.repeats // 2))
    results.append(editor(args.editor_repeats))
    cli = cli_target(["par", GAME], args.cli_runs, NUMPY_SPINS)
    cli["target"] = f"5. CLI: workbench par {GAME}"
    results.append(cli)
    for r in results:
        print(row(r), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
