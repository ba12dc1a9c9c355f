"""Speed of the new pay rules and the gallery games (ways, pay anywhere, multiplier wilds), each
figure beside the rate at which numpy alone draws the stops of the same game, measured in the
same run, alternated with it.

Targets (issue 12):
  1. 243-ways exact PAR of a 5x3 game with 60-100-stop strips < 50 ms
     (examples/ways_243, par(game, full_cycle=False) after a warm-up call), and the strip
     editor's update after an insert-stop edit on it < 100 ms (StripEditor, through the tools);
  2. variable-height ways PAR < 1 s (examples/variable_ways_6reel, full_cycle=False);
  3. 6x5 pay-anywhere PAR with 8 symbols < 1 s (examples/pay_anywhere_6x5, full_cycle=False);
  4. the multiplier-wild line game no slower in PAR or simulation than the same game without
     multipliers, within 10 % (examples/multiplier_wild_lines, and its text with
     `multiplier = 2` removed from WILD): par(full_cycle=False), par() (auto full cycle),
     simulator spins/s per core;
  5. simulator spins/s per core of each gallery game (workbench.io.example_games()); shown
     against the issue-3 targets (>= 2 M spins/s per core, >= 0.25 x numpy) for reference.
Also the path users take: wall time of `workbench par examples/ways_243` and
`workbench par examples/pay_anywhere_6x5 --no-cycle` as subprocesses (no target).

numpy's rate: for N spins, rng.integers(0, strip.total_weight, size=N) for each reel (and the
strip-set choice when there are several), in CPU time (time.process_time), given as spins' worth
of stops per second ("M draws/s", as in bench_simulate.per_core_rates). PAR and editor times are
wall times (time.perf_counter). Every figure is min / median / max over alternated runs; pass /
fail is judged on the median. On a shared machine speeds drift by 20 % and more between runs.
In-process figures use one numba thread (NUMBA_NUM_THREADS=1 unless already set, like
bench_editor); the CLI runs get the user's environment (all cores).

    .venv/bin/python benchmarks/bench_rules.py [--par-repeats N] [--editor-repeats N]
        [--spins N] [--sim-repeats N] [--numpy-spins N] [--cli-runs N] [--skip-cli]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SET_THREADS = "NUMBA_NUM_THREADS" not in os.environ
os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one core per measurement, like bench_editor

import numpy as np  # noqa: E402

from workbench import load_game  # noqa: E402
from workbench.exact import par  # noqa: E402
from workbench.io import example_games, loads_game, reelsets_dir, resolve_game_path  # noqa: E402
from workbench.simulate import round_model  # noqa: E402
from workbench.simulate.chunks import play_chunk  # noqa: E402
from workbench.simulate.rng import chunk_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MULTIPLIER_GAME = "examples/multiplier_wild_lines"


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def spread(values, scale: float = 1.0) -> dict:
    """min / median / max of ``values`` times ``scale``."""
    return {"min": scale * min(values), "median": scale * statistics.median(values), "max": scale * max(values),
            "runs": len(values)}


def fmt(s: dict, digits: int = 1) -> str:
    return f"{s['min']:.{digits}f} / {s['median']:.{digits}f} / {s['max']:.{digits}f}"


class NumpyDraws:
    """numpy alone drawing one stop per reel for ``spins`` spins of ``game``'s base mode."""

    def __init__(self, game, spins: int, seed: int = 1):
        self.sets = [s for s in game.strip_sets_for("base") if s.weight > 0]
        self.p = np.array([s.weight for s in self.sets], dtype=float)
        self.p /= self.p.sum()
        self.spins = spins
        self.rng = np.random.default_rng(seed)
        self.rates: list[float] = []  # spins' worth of stops per second

    def measure(self) -> float:
        rng, spins = self.rng, self.spins
        t0 = time.process_time()
        if len(self.sets) > 1:
            rng.choice(len(self.sets), size=spins, p=self.p)
        for strip in self.sets[0].reels:
            rng.integers(0, strip.total_weight, size=spins)
        rate = spins / (time.process_time() - t0)
        self.rates.append(rate)
        return rate

    def summary(self) -> dict:
        return {"spins_per_measurement": self.spins, "reels": len(self.sets[0].reels),
                "M_draws_per_s": spread(self.rates, 1e-6)}


def timed_par(game, **kwargs) -> tuple[float, float]:
    """(wall, cpu) seconds of one par call, computed afresh (the strip-set analysis cache emptied first: a
    repeated call of the same game would otherwise only look its analyses up)."""
    import importlib

    importlib.import_module("workbench.exact.par")._SET_CACHE.clear()
    w0, c0 = time.perf_counter(), time.process_time()
    par(game, **kwargs)
    return time.perf_counter() - w0, time.process_time() - c0


def no_multiplier_game():
    """examples/multiplier_wild_lines with `multiplier = 2` taken out of the WILD symbol."""
    text = resolve_game_path(MULTIPLIER_GAME).read_text()
    new, n = re.subn(r"^(WILD\s*=\s*\{.*?),\s*multiplier\s*=\s*2\b(.*)$", r"\1\2", text, flags=re.M)
    if n != 1:
        raise SystemExit(f"{MULTIPLIER_GAME}: expected one WILD line with `multiplier = 2`, found {n}")
    return loads_game(new, "multiplier_wild_lines_no_multiplier.toml")


# ---------------------------------------------------------------------------
# targets
# ---------------------------------------------------------------------------
def par_target(label: str, name: str, limit_s: float, repeats: int, numpy_spins: int) -> dict:
    game = load_game(name)
    par(game, full_cycle=False)  # warm-up: compile / load caches
    draws = NumpyDraws(game, numpy_spins)
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = timed_par(game, full_cycle=False)
        walls.append(wall)
        cpus.append(cpu)
        draws.measure()
    ms = spread(walls, 1e3)
    return {"target": label, "game": name, "call": "par(game, full_cycle=False)", "wall_ms": ms,
            "cpu_ms": spread(cpus, 1e3), "limit_ms": 1e3 * limit_s, "pass": ms["median"] < 1e3 * limit_s,
            "max_within_limit": ms["max"] < 1e3 * limit_s, "numpy": draws.summary()}


def editor_target(repeats: int, numpy_spins: int) -> dict:
    from workbench.widgets import StripEditor

    name = "examples/ways_243"
    game = load_game(name)
    regular = [s for s in ("LION", "ACE", "TEN", "ZEBRA", "KING") if s in game.symbols]
    draws = NumpyDraws(game, numpy_spins)
    walls, shown_par, shown_edit, texts = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="bench_rules_") as tmp:
        path = Path(tmp) / "ways_243.toml"
        shutil.copyfile(reelsets_dir() / "examples" / "ways_243.toml", path)
        editor = StripEditor(path)
        tools = editor.tools
        for i in range(repeats + 1):  # the first edit is a warm-up
            reel = 1 + i % game.reels
            stop = 1 + (7 * i) % len(editor.strip(reel))
            symbol = regular[i % len(regular)]
            tools.reel.value = reel
            tools.stop.value = stop
            tools.symbol.value = symbol
            before = len(editor.strip(reel))
            t0 = time.perf_counter()
            tools.insert_button.click()
            wall = time.perf_counter() - t0
            if len(editor.strip(reel)) != before + 1 or f"inserted {symbol} at stop {stop}" not in editor.status.value:
                raise SystemExit(f"insert-stop edit not applied: {editor.status.value}")
            timing = editor.timing.value
            editor.undo_button.click()  # back to the file's strips (not timed)
            if editor.session.dirty:
                raise SystemExit("undo did not restore the saved strips")
            if i == 0:
                continue
            walls.append(wall)
            texts.append(re.sub(r"<[^>]+>", "", timing))
            m = re.search(r"PAR (\d+) ms", timing)
            shown_par.append(float(m.group(1)) if m else float("nan"))
            m = re.search(r"edit → display (\d+) ms", timing)
            shown_edit.append(float(m.group(1)) if m else float("nan"))
            draws.measure()
        if path.read_text() != (reelsets_dir() / "examples" / "ways_243.toml").read_text():
            raise SystemExit("the editor changed the file (nothing should be saved)")
    ms = spread(walls, 1e3)
    return {"target": "1b. ways_243 strip-editor insert-stop update", "game": name,
            "call": "editor.tools reel/stop/symbol, insert_button.click()", "wall_ms": ms, "limit_ms": 100.0,
            "pass": ms["median"] < 100.0, "max_within_limit": ms["max"] < 100.0,
            "editor_timing_par_ms": spread(shown_par), "editor_timing_edit_to_display_ms": spread(shown_edit),
            "editor_timing_last_text": texts[-1], "numpy": draws.summary()}


def multiplier_par(repeats: int, numpy_spins: int) -> list[dict]:
    games = {"with": load_game(MULTIPLIER_GAME), "without": no_multiplier_game()}
    out = []
    for call, kwargs in (("par(game, full_cycle=False)", {"full_cycle": False}), ("par(game) (auto full cycle)", {})):
        for g in games.values():
            par(g, **kwargs)  # warm-up
        draws = NumpyDraws(games["with"], numpy_spins)
        walls = {"with": [], "without": []}
        for rep in range(repeats):
            order = ("with", "without") if rep % 2 == 0 else ("without", "with")
            for key in order:
                walls[key].append(timed_par(games[key], **kwargs)[0])
            draws.measure()
        pair = [w / wo for w, wo in zip(walls["with"], walls["without"])]
        ratio = statistics.median(walls["with"]) / statistics.median(walls["without"])
        out.append({"target": f"4. multiplier wild PAR {call}", "game": MULTIPLIER_GAME, "call": call,
                    "with_ms": spread(walls["with"], 1e3), "without_ms": spread(walls["without"], 1e3),
                    "ratio_with_over_without": ratio, "pairwise_ratio": spread(pair),
                    "limit": "ratio <= 1.10", "pass": ratio <= 1.10, "numpy": draws.summary()})
    return out


def sim_rates(games: dict, spins: int, repeats: int, numpy_game) -> tuple[dict, NumpyDraws]:
    """Per-core spins/s of each game in ``games`` (label -> Game) and numpy, alternated."""
    models = {}
    for label, game in games.items():
        models[label] = round_model(game)
        play_chunk(models[label], chunk_state(1, 0), 10_000)  # compile / load the compiled round
    draws = NumpyDraws(numpy_game, spins)
    rates = {label: [] for label in games}
    for rep in range(repeats):
        labels = list(games) if rep % 2 == 0 else list(games)[::-1]
        for label in labels:
            t0 = time.process_time()
            play_chunk(models[label], chunk_state(2, rep), spins)
            rates[label].append(spins / (time.process_time() - t0))
        draws.measure()
    return rates, draws


def multiplier_sim(spins: int, repeats: int) -> dict:
    games = {"with": load_game(MULTIPLIER_GAME), "without": no_multiplier_game()}
    rates, draws = sim_rates(games, spins, repeats, games["with"])
    ratio = statistics.median(rates["with"]) / statistics.median(rates["without"])
    pair = [w / wo for w, wo in zip(rates["with"], rates["without"])]
    return {"target": "4. multiplier wild simulation", "game": MULTIPLIER_GAME, "spins_per_measurement": spins,
            "with_M_spins_per_s": spread(rates["with"], 1e-6), "without_M_spins_per_s": spread(rates["without"], 1e-6),
            "ratio_with_over_without": ratio, "pairwise_ratio": spread(pair),
            "limit": "rate ratio >= 1/1.10", "pass": ratio >= 1 / 1.10, "numpy": draws.summary()}


def gallery_sim(spins: int, repeats: int) -> list[dict]:
    out = []
    for name in example_games():
        game = load_game(name)
        rates, draws = sim_rates({name: game}, spins, repeats, game)
        sim = spread(rates[name], 1e-6)
        ratio = sim["median"] / draws.summary()["M_draws_per_s"]["median"]
        out.append({"target": f"5. simulation {name}", "game": name, "spins_per_measurement": spins,
                    "M_spins_per_s_per_core": sim, "ratio_to_numpy": ratio,
                    "pairwise_ratio_to_numpy": spread([r / n for r, n in zip(rates[name], draws.rates)]),
                    "limit": None, "pass": None,  # issue 12 sets no target; issue 3's is shown for reference
                    "issue3_reference": {"at_least_2M_spins_per_s": sim["median"] >= 2.0,
                                         "at_least_0.25_x_numpy": ratio >= 0.25},
                    "numpy": draws.summary()})
    return out


def cli_target(args: list[str], runs: int, numpy_spins: int) -> dict:
    exe = ROOT / ".venv" / "bin" / "workbench"
    env = dict(os.environ)
    if _SET_THREADS:
        env.pop("NUMBA_NUM_THREADS", None)  # what a user's shell has
    draws = NumpyDraws(load_game(args[1]), numpy_spins)
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([str(exe), *args], cwd=ROOT, env=env, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"workbench {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
        draws.measure()
    return {"target": f"CLI: workbench {' '.join(args)}", "game": args[1], "wall_s": spread(walls),
            "limit": None, "pass": None, "numpy": draws.summary()}


# ---------------------------------------------------------------------------
def row(r: dict) -> str:
    np_s = fmt(r["numpy"]["M_draws_per_s"])
    verdict = {True: "pass", False: "FAIL", None: "-"}[r["pass"]]
    if "issue3_reference" in r:
        ref = r["issue3_reference"]
        verdict = "- (issue 3: " + ", ".join(
            f"{what} {'met' if ok else 'not met'}" for what, ok in
            (("2 M/s", ref["at_least_2M_spins_per_s"]), ("0.25 x numpy", ref["at_least_0.25_x_numpy"]))) + ")"
    if "wall_ms" in r:
        fig = f"{fmt(r['wall_ms'])} ms (< {r['limit_ms']:.0f} ms)"
    elif "with_ms" in r:
        fig = (f"with {fmt(r['with_ms'])} ms, without {fmt(r['without_ms'])} ms, "
               f"ratio {r['ratio_with_over_without']:.3f} (<= 1.10)")
    elif "with_M_spins_per_s" in r:
        fig = (f"with {fmt(r['with_M_spins_per_s'], 2)}, without {fmt(r['without_M_spins_per_s'], 2)} M spins/s, "
               f"ratio {r['ratio_with_over_without']:.3f} (>= 0.909)")
    elif "M_spins_per_s_per_core" in r:
        fig = f"{fmt(r['M_spins_per_s_per_core'], 2)} M spins/s, {r['ratio_to_numpy']:.2f} x numpy"
    else:
        fig = f"{fmt(r['wall_s'], 2)} s"
    return f"{r['target']:58s} {fig:80s} numpy {np_s:22s} M draws/s  {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--par-repeats", type=int, default=9, help="alternated runs per PAR figure")
    parser.add_argument("--editor-repeats", type=int, default=9, help="timed insert-stop edits")
    parser.add_argument("--spins", type=int, default=2_000_000, help="spins per simulation measurement")
    parser.add_argument("--sim-repeats", type=int, default=5)
    parser.add_argument("--numpy-spins", type=int, default=1_000_000,
                        help="spins of numpy stop draws beside the PAR, editor and CLI figures")
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--skip-cli", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    out = {"cpu_count": os.cpu_count(), "load_average_start": os.getloadavg(), "results": []}

    def add(result):
        results = result if isinstance(result, list) else [result]
        for r in results:
            out["results"].append(r)
            print(row(r), flush=True)

    add(par_target("1. ways_243 exact PAR", "examples/ways_243", 0.050, args.par_repeats, args.numpy_spins))
    add(editor_target(args.editor_repeats, args.numpy_spins))
    add(par_target("2. variable-height ways PAR", "examples/variable_ways_6reel", 1.0, args.par_repeats, args.numpy_spins))
    add(par_target("3. 6x5 pay-anywhere PAR", "examples/pay_anywhere_6x5", 1.0, args.par_repeats, args.numpy_spins))
    add(multiplier_par(args.par_repeats, args.numpy_spins))
    add(multiplier_sim(args.spins, args.sim_repeats))
    add(gallery_sim(args.spins, args.sim_repeats))
    if not args.skip_cli:
        add(cli_target(["par", "examples/ways_243"], args.cli_runs, args.numpy_spins))
        add(cli_target(["par", "examples/pay_anywhere_6x5", "--no-cycle"], args.cli_runs, args.numpy_spins))
    out["load_average_end"] = os.getloadavg()
    out["total_seconds"] = time.perf_counter() - start
    out["arguments"] = vars(args)
    print(f"total {out['total_seconds']:.0f} s; load average {out['load_average_start'][0]:.2f} -> "
          f"{out['load_average_end'][0]:.2f} on {out['cpu_count']} cores", flush=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
