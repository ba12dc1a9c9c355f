"""The ``workbench`` command line.

Every command reports bad input as a one-line (or one-block) message naming
the file and place, and exits with status 2; it never shows a traceback for
a problem in the user's files or arguments.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from . import __version__
from .errors import ReelsetError, WorkbenchError

EXIT_OK = 0
EXIT_PROBLEM = 2
EXIT_INTERRUPTED = 130


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _finite(obj):
    """Replace inf/nan by None so the output is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def print_json(data) -> None:
    print(json.dumps(_finite(data), indent=2, default=_json_default))


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------
def cmd_validate(args) -> int:
    from .io import validate_file

    status = EXIT_OK
    for path in args.files:
        problems = validate_file(path)
        if problems:
            status = EXIT_PROBLEM
            print(f"{path}: {len(problems)} problem(s)", file=sys.stderr)
            for p in problems:
                print(f"  {p}", file=sys.stderr)
        else:
            print(f"{path}: ok")
    return status


def _games(args) -> list[str]:
    from .io import shipped_games

    if getattr(args, "all", False):
        return shipped_games()
    if not args.game:
        raise WorkbenchError("name a GAME (a reelset path or shipped name) or use --all")
    return [args.game]


def render_par_text(sheet) -> str:
    import pandas as pd

    with pd.option_context("display.width", 140, "display.max_columns", 20, "display.max_rows", 500,
                           "display.float_format", lambda v: f"{v:.6g}"):
        parts = [
            f"PAR sheet: {sheet.game.name} ({sheet.mode} game)",
            "=" * 60,
            sheet.summary.to_string(),
            "",
            "Symbol counts",
            sheet.symbol_counts.to_string(),
            "",
            "Line combinations (pay x line bet; hits over the full cycle, all lines; rtp x total bet)",
            sheet.combinations.to_string(index=False),
        ]
        if len(sheet.scatter_pays):
            parts += ["", "Scatter pays", sheet.scatter_pays.to_string(index=False)]
        if len(sheet.triggers):
            parts += ["", "Feature triggers", sheet.triggers.to_string(index=False)]
        parts += ["", "Prize structure (x total bet)", sheet.prize_structure.to_string(index=False), ""]
    return "\n".join(parts)


def cmd_par(args) -> int:
    from .exact import par
    from .io import load_game

    results = []
    for name in _games(args):
        game = load_game(name)
        sheet = par(game, args.mode, full_cycle="auto" if not args.no_cycle else False, budget=args.budget)
        if args.xlsx:
            out = Path(args.xlsx)
            if len(_games(args)) > 1 or out.is_dir():
                out.mkdir(parents=True, exist_ok=True)
                out = out / f"{Path(game.path).stem}_par.xlsx"
            sheet.to_excel(out)
        if args.json:
            results.append(sheet.to_dict())
        else:
            print(render_par_text(sheet))
    if args.json:
        print_json(results[0] if len(results) == 1 else results)
    return EXIT_OK


def _print_estimates(result, label: str) -> None:
    print(f"{label}: {result.model.game.name}" + (f" at stake {result.model.stake:g}" if result.model.stake else ""))
    print(f"  RTP               {100 * result.rtp:9.4f} %  +- {100 * result.rtp_ci95:.4f} % (95 %)")
    if result.jackpot_rtp:
        print(f"    game            {100 * result.game_rtp:9.4f} %")
        print(f"    jackpots        {100 * result.jackpot_rtp:9.4f} %")
    print("  components (% of total bet, +- 95 %):")
    for name, est in result.components.items():
        print(f"    {name:28s} {100 * est.value:9.4f} +- {100 * est.ci95:.4f}  [{est.source}]")
    print(f"  hit frequency     {100 * result.hit_frequency:9.4f} %   (1 in {result.hit_rate_one_in:.2f})")
    print(f"  std               {result.std:9.4f} x bet")
    print(f"  volatility index  {result.volatility_index(0.90):9.4f} (90 %), {result.volatility_index(0.95):.4f} (95 %)")
    print(f"  max win           {result.max_win:9.2f} x bet")
    for name, rtps in getattr(result, "options", {}).items():
        for option, value in rtps.items():
            print(f"  option {name}={option}: RTP {100 * value:.4f} %")


def cmd_simulate(args) -> int:
    from .io import load_game
    from .simulate import simulate

    game = load_game(args.game)
    result = simulate(game, args.spins, args.seed, workers=args.workers, scheduler=args.scheduler, stake=args.stake,
                      progress=not args.quiet and sys.stderr.isatty(), checkpoint=args.checkpoint)
    if args.json:
        print_json(result.to_dict())
    else:
        _print_estimates(result, "Simulation" + (" (interrupted)" if result.interrupted else ""))
        print(f"  spins             {result.spins:,} of {result.requested:,}")
        print(f"  max win seen      {result.max_win_count} time(s)")
        if result.model.cap_total_bets:
            print(f"  cap               {result.model.cap_total_bets:,.1f} x bet, reached in {result.cap_fraction:.3g} of rounds")
        for name, f in result.features.items():
            print(f"  feature {name:20s} 1 in {f.one_in:10.1f}  average win {f.average_win:.3f} x bet")
        print(f"  speed             {result.spins_per_second:,.0f} spins/s")
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def cmd_rtp(args) -> int:
    from .io import load_game
    from .simulate import estimate_rtp

    game = load_game(args.game)
    result = estimate_rtp(game, args.precision, args.seed, workers=args.workers, scheduler=args.scheduler, stake=args.stake,
                          max_seconds=args.max_seconds, progress=not args.quiet and sys.stderr.isatty())
    if args.json:
        print_json(result.to_dict())
    else:
        _print_estimates(result, "RTP (exact + conditional)" + (" (interrupted)" if result.interrupted else ""))
        print("  trigger states:")
        for s in result.strata:
            if not s.probability:
                continue  # a combination of triggers the strips cannot show
            print(f"    {s.name:28s} 1 in {1 / s.probability if s.probability else math.inf:10.1f}  "
                  f"extra {s.mean_extra:10.4f} +- {s.ci95:.4f} x bet  ({s.samples:,} rounds)")
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def cmd_report(args) -> int:
    from .io import load_game
    from .report import generate_report

    names = _games(args)
    failed = []
    for name in names:
        try:
            game = load_game(name)
            stem = Path(game.path).stem if game.path else name
            base = Path(args.out) if args.out else Path("reports")
            out = base / stem if args.all or not args.out else base
            print(f"{stem}: running the report notebook ...", file=sys.stderr, flush=True)
            files = generate_report(game, out, spins=args.spins, seed=args.seed, precision=args.precision,
                                    stakes=args.stakes, workers=args.workers,
                                    progress=not args.quiet and sys.stderr.isatty())
        except WorkbenchError as exc:
            if len(names) == 1:
                raise
            print(f"workbench: {exc}", file=sys.stderr)
            failed.append(name)
            continue
        print(f"{stem}: {files.html} ({files.elapsed:.1f} s)")
    if failed:
        raise WorkbenchError(f"{len(failed)} of {len(names)} reports failed: {', '.join(failed)}")
    return EXIT_OK


def cmd_list(args) -> int:
    from .io import load_game, shipped_games

    for name in shipped_games():
        try:
            game = load_game(name)
            print(f"{name:32s} {game.name} ({game.reels} reels, {len(game.paylines)} lines, round template {game.game_module})")
        except ReelsetError as exc:
            print(f"{name:32s} INVALID: {exc.problems[0]}")
    return EXIT_OK


def cmd_warm(args) -> int:
    """Compile (and cache) the exact engine and every named game's round once."""
    import time

    from .exact import par
    from .io import load_game
    from .simulate import simulate

    for name in _games(args):
        start = time.perf_counter()
        game = load_game(name)
        par(game)
        simulate(game, 1000, seed=0)
        print(f"{name}: compiled code cached ({time.perf_counter() - start:.1f} s)")
    return EXIT_OK


# ---------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Slot-game mathematics workbench.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="check reelset files; print every problem; exit 2 if any")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("par", help="exact PAR sheet of a game's base game")
    p.add_argument("game", nargs="?", metavar="GAME", help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset")
    p.add_argument("--mode", default="base", help="strip-set mode to analyse (default: base)")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of tables")
    p.add_argument("--xlsx", metavar="OUT", help="also write the PAR sheet as an .xlsx workbook")
    p.add_argument("--no-cycle", action="store_true", help="skip the full-cycle distribution")
    p.add_argument("--budget", type=int, default=2_000_000_000, help="max window combinations for the full cycle")
    p.set_defaults(func=cmd_par)

    p = sub.add_parser("simulate", help="simulate complete rounds end to end")
    p.add_argument("game", metavar="GAME", help="reelset path or shipped name")
    p.add_argument("--spins", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="local worker processes")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the chunks on this Dask scheduler")
    p.add_argument("--stake", type=float, help="total bet in currency (caps, jackpots); default: the game's reference stake")
    p.add_argument("--checkpoint", metavar="FILE", help="save progress here; rerun with it to resume")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("rtp", help="RTP by exact base game + conditional simulation of features")
    p.add_argument("game", metavar="GAME", help="reelset path or shipped name")
    p.add_argument("--precision", type=float, default=0.0002, help="target 95 %% half-width (fraction; 0.0002 = 0.02 %%)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--scheduler", metavar="ADDRESS")
    p.add_argument("--stake", type=float)
    p.add_argument("--max-seconds", type=float, help="stop after this long even if the precision is not reached")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_rtp)

    from .report import DEFAULT_PRECISION, DEFAULT_SEED, DEFAULT_SPINS

    p = sub.add_parser("report", help="reviewer report: executed notebook, HTML, PAR sheet as .xlsx/CSV/JSON")
    p.add_argument("game", nargs="?", metavar="GAME", help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, one subfolder of --out per game")
    p.add_argument("--spins", type=int, default=DEFAULT_SPINS, help=f"rounds of the end-to-end simulation (default {DEFAULT_SPINS:,})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--precision", type=float, default=DEFAULT_PRECISION,
                   help=f"target 95 %% half-width of the RTP estimate (fraction; default {DEFAULT_PRECISION})")
    p.add_argument("--stakes", type=float, nargs="+", metavar="STAKE", help="stake levels (currency); default: the game's stake ladder")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (results do not depend on it)")
    p.add_argument("--out", metavar="DIR", help="output folder (default: reports/GAME)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("warm", help="compile and cache the code a game needs (make does this for the shipped games)")
    p.add_argument("game", nargs="?", metavar="GAME", help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset")
    p.set_defaults(func=cmd_warm)

    p = sub.add_parser("list", help="list the shipped games")
    p.set_defaults(func=cmd_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
    except WorkbenchError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        return EXIT_PROBLEM
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    if status == EXIT_INTERRUPTED:
        # Ctrl-C must stop promptly: skip the interpreter's slow teardown of compiled code.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
