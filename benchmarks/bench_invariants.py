"""Invariants over long runs: simulate each game end to end and check what must never happen.

For every game (default: the shipped reelsets, and ``reelsets/examples/*.toml`` when that
folder exists) the run is checked from its exact integer sums
(:func:`workbench.simulate.invariants.check_invariants`):

- no round above its mode's max-win cap (Bier Haus: the cap in currency at the reference
  stake; a game whose rounds are single base spins: its exact PAR maximum);
- never two jackpots on one wager (the jackpot run replayed from its random stream with
  every drop recorded);
- the RTP components add up to the total exactly;
- every weighted table's probabilities add up to 1 exactly, and every compiled cumulative
  weight array is a table's or a mode's strip-set weights;
- every mode's compiled strip-set choice weights end at the mode's total;
- RTP = total won / (rounds x cost), the cost being the game's ``bet.cost``.

One line per game and invariant, then the run time; the exit status is 1 if any
invariant is violated.

    .venv/bin/python benchmarks/bench_invariants.py [--rounds N] [--seed S] [--workers K] [--games NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workbench import load_game  # noqa: E402
from workbench.errors import WorkbenchError  # noqa: E402
from workbench.simulate import round_model, simulate  # noqa: E402
from workbench.simulate.invariants import InvariantCheck, check_invariants  # noqa: E402

DEFAULT_ROUNDS = 100_000_000


def default_games() -> list[str]:
    """The shipped reelsets, then ``reelsets/examples/*.toml`` if that folder exists."""
    games = sorted(str(p) for p in (ROOT / "reelsets").glob("*.toml"))
    examples = ROOT / "reelsets" / "examples"
    if examples.is_dir():
        games += sorted(str(p) for p in examples.glob("*.toml"))
    return games


def exact_max_units(game) -> int | None:
    """The exact largest round win in pay units when every component of the game's rounds is
    the base screen's (lines and scatters: the rounds are single base spins), else None."""
    from workbench.exact import par

    model = round_model(game)
    if len(model.exact_components) != len(model.components):
        return None
    sheet = par(game, full_cycle=False)
    if not sheet.max_win_exact:
        return None
    return max(a.moments.max_units for a in sheet.analyses if a.strip_set.weight > 0)


def run_game(path: str, rounds: int, seed: int, workers: int) -> tuple[list[InvariantCheck], float, object]:
    """Simulate ``rounds`` rounds of the game at ``path`` and check its invariants: (checks, seconds, result)."""
    game = load_game(path)
    bound = exact_max_units(game)
    start = time.perf_counter()
    result = simulate(game, rounds, seed, workers=workers)
    elapsed = time.perf_counter() - start
    return check_invariants(result, bound), elapsed, result


def format_check(name: str, check: InvariantCheck) -> str:
    return f"{name:26s} {check.name:22s} {check.figures}; violations: {check.violations}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds per game (default 100,000,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", nargs="+", help="reelset paths or shipped names (default: all shipped games)")
    args = parser.parse_args(argv)
    games = args.games or default_games()
    failed = 0
    total = 0.0
    for path in games:
        name = Path(path).stem
        try:
            checks, elapsed, result = run_game(path, args.rounds, args.seed, args.workers)
        except WorkbenchError as exc:
            print(f"{name:26s} cannot be simulated: {exc}")
            failed += 1
            continue
        total += elapsed
        for check in checks:
            print(format_check(name, check), flush=True)
            failed += not check.ok
        print(f"{name:26s} {'run time':22s} {result.spins:,} rounds in {elapsed:.1f} s "
              f"({result.spins / elapsed / 1e6:.2f} M rounds/s, {args.workers} workers); RTP {result.rtp:.6f}", flush=True)
    print(f"all games: {total:.1f} s of simulation; {failed} violated invariant(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
