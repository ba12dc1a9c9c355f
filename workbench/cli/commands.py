"""The commands ``validate``, ``par``, ``simulate``, ``rtp``, ``report``, ``list`` and ``warm``."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from ..errors import ReelsetError, WorkbenchError
from .choices import print_choices, with_choices
from .outputs import check_output_file, check_output_folder, print_json
from .process import (EXIT_OK, EXIT_PROBLEM, EXIT_INTERRUPTED, _stops_deferred)
from .par_text import render_par_text


# ---------------------------------------------------------------------------
# commands
# ---------------------------------------------------------------------------
def cmd_validate(args) -> int:
    """Errors (exit 2), then design warnings (lints: exit 0, or 2 with --strict); see docs/reelset-format.md."""
    from ..lints import check_file

    status = EXIT_OK
    report = []
    for path in args.files:
        problems = check_file(path)
        errors = [p for p in problems if not p.is_warning]
        warnings = [p for p in problems if p.is_warning]
        if errors or (warnings and args.strict):
            status = EXIT_PROBLEM
        report.append({"file": str(path), "ok": not errors and not (warnings and args.strict),
                       "errors": len(errors), "warnings": len(warnings),
                       "problems": [{"file": p.file, "line": p.line, "key": p.key, "severity": p.severity,
                                     "message": p.message} for p in problems]})
        if args.json:
            continue
        # a file's lines go to one stream (stderr when they fail it), so they never interleave with another file's
        failing = bool(errors) or (bool(warnings) and args.strict)
        out = sys.stderr if failing else sys.stdout
        if errors:
            head = f"{path}: {len(errors)} problem(s)" + (f", {len(warnings)} warning(s)" if warnings else "")
        elif warnings:
            head = f"{path}: {'ok, ' if not args.strict else ''}{len(warnings)} warning(s)" + (
                " (--strict: counted as problems)" if args.strict else "")
        else:
            head = f"{path}: ok"
        print(head, file=out)
        for p in errors + warnings:
            print(f"  {p}", file=out)
        out.flush()
    if args.json:
        print_json(report[0] if len(report) == 1 else report)
    return status


def _games(args) -> list[str]:
    from ..io import example_games, shipped_games

    if getattr(args, "all", False):
        return shipped_games() + example_games()
    if not args.game:
        raise WorkbenchError("name a GAME (a reelset path or shipped name) or use --all")
    return [args.game]


def cmd_par(args) -> int:
    from ..io import load_game
    from ..simulate import complete_par

    results = []
    names = _games(args)
    into_folder = bool(args.xlsx) and (len(names) > 1 or Path(args.xlsx).is_dir())
    if args.xlsx:
        (check_output_folder if into_folder else check_output_file)(args.xlsx)
    for name in names:
        game = load_game(name)
        # exact; a figure over the exact engine's budgets alone is simulated and labelled so (simulate.screens)
        sheet = complete_par(game, args.mode, full_cycle="auto" if not args.no_cycle else False, budget=args.budget)
        if args.xlsx:
            out = Path(args.xlsx) / f"{Path(game.path).stem}_par.xlsx" if into_folder else Path(args.xlsx)
            if into_folder:
                check_output_file(str(out))
            from ..report.workbook import write_par_workbook

            write_par_workbook(out, game, sheet)
        if args.json:
            results.append(sheet.to_dict())
        else:
            print(render_par_text(sheet, args.z))
    if args.json:
        print_json(results[0] if len(results) == 1 else results)
    return EXIT_OK


def _print_estimates(result, label: str) -> None:
    mode = result.model.game.bet_mode
    where = f", bet mode {mode.name}" if mode.name != "base" else ""
    print(f"{label}: {result.model.game.name}{where}" + (f" at stake {result.model.stake:g}" if result.model.stake else ""))
    unit = result.unit  # x total bet, or x the bet mode's own cost
    print(f"  every amount      {unit}")
    print(f"  RTP               {100 * result.rtp:9.4f} %  +- {100 * result.rtp_ci95:.4f} % (95 %)")
    if result.jackpot_rtp:
        print(f"    game            {100 * result.game_rtp:9.4f} %")
        print(f"    jackpots        {100 * result.jackpot_rtp:9.4f} %")
    print(f"  components (% {'of total bet' if unit == 'x total bet' else 'of the mode cost'}, +- 95 %):")
    for name, est in result.components.items():
        print(f"    {name:28s} {100 * est.value:9.4f} +- {100 * est.ci95:.4f}  [{est.source}]")
    print(f"  hit frequency     {100 * result.hit_frequency:9.4f} %   (1 in {result.hit_rate_one_in:.2f})")
    print(f"  std               {result.std:9.4f} {unit}")
    print(f"  volatility index  {result.volatility_index(0.90):9.4f} (90 %), {result.volatility_index(0.95):.4f} (95 %)")
    print(f"  max win           {result.max_win:9.2f} {unit}")
    cap_units = getattr(result.model, "max_win_units", 0)
    if cap_units:  # the bet mode's max_win: what it takes (component cap) and how often a round reaches it
        cap = result.components.get("cap")
        p = result.max_win_probability
        ci = getattr(result, "max_win_probability_ci95", None)
        print(f"  max_win cap       {cap_units / result.cost_units:9,.2f} x total bet (as declared), reached in {100 * p:.4f} %"
              + (f" +- {100 * ci:.4f} %" if ci is not None else "") + " of rounds"
              + (f" (1 in {1 / p:,.1f})" if p else "")
              + (f", costs {100 * -cap.value:.4f} +- {100 * cap.ci95:.4f} % RTP" if cap is not None else ""))
    for name, rtps in getattr(result, "options", {}).items():
        for option, value in rtps.items():
            print(f"  option {name}={option}: RTP {100 * value:.4f} %")
    for note in result.limit_notes:  # a safety maximum that bound (workbench.simulate.limits)
        print(f"  note              {note}")


def cmd_simulate(args) -> int:
    from ..io import load_game
    from ..simulate import simulate

    if args.checkpoint:
        check_output_file(args.checkpoint)
    game = _in_bet_mode(with_choices(load_game(args.game), args.choice), args.bet_mode)
    result = simulate(game, args.spins, args.seed, workers=args.workers, scheduler=args.scheduler, stake=args.stake,
                      chunk_size=args.chunk, progress=not args.quiet, checkpoint=args.checkpoint,
                      max_seconds=args.max_seconds)
    with _stops_deferred():  # the result is made: print all of it
        if args.json:
            print_json(result.to_dict())
        else:
            _print_estimates(result, "Simulation" + (" (interrupted)" if result.interrupted else ""))
            print(f"  spins             {result.spins:,} of {result.requested:,}"
                  + (" (the time box ended the run)" if result.stopped_by == "time box" else ""))
            print(f"  max win seen      {result.max_win_count} time(s)")
            if result.max_win_units > 0:
                print(f"  max win round     {result.max_win_round.round:,} (workbench replay GAME --seed {result.seed} "
                      f"--round {result.max_win_round.round})")
            if result.model.cap_total_bets:
                print(f"  cap               {result.model.cap_total_bets:,.1f} x bet, reached in {result.cap_fraction:.3g} of rounds")
            for name, f in result.features.items():
                print(f"  feature {name:20s} 1 in {f.one_in:10.1f}  average win {f.average_win:.3f} {result.unit}")
            print(f"  set-up            {result.setup_seconds:.3f} s (round model and tables; compiled code from the cache)")
            print(f"  speed             {result.spins_per_second:,.0f} spins/s over {result.elapsed:.3f} s of spinning")
        sys.stdout.flush()
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


#: ``workbench rtp`` without --precision: a first answer to this precision, within this time box (whole command)
FIRST_ANSWER_PRECISION = 0.001


FIRST_ANSWER_SECONDS = 20.0


def cmd_rtp(args) -> int:
    import time

    from ..io import load_game
    from ..simulate import BetModeEstimate, estimate_rtp

    started = time.monotonic()
    game = with_choices(load_game(args.game), args.choice)
    first_answer = args.precision is None
    precision = FIRST_ANSWER_PRECISION if first_answer else args.precision
    box = args.max_seconds if args.max_seconds is not None else (FIRST_ANSWER_SECONDS if first_answer else None)
    mode = None
    if args.bet_mode is not None:
        game = _in_bet_mode(game, args.bet_mode)
        mode = game.bet_mode
    names = [game.bet_mode.name] if mode is not None or not game.bet_modes else list(game.all_bet_modes)

    if args.checkpoint:
        check_output_file(args.checkpoint)

    def estimate(name: str, left_modes: int):
        # the time box is the whole command's: each mode gets an equal share of what is left
        share = None if box is None else max(box - (time.monotonic() - started), 0.05) / left_modes
        # one checkpoint per mode: FILE for the first, FILE.MODE for the others
        store = None if not args.checkpoint else args.checkpoint if name == names[0] else f"{args.checkpoint}.{name}"
        return estimate_rtp(game.in_bet_mode(name) if mode is None else game, precision, args.seed, workers=args.workers,
                            scheduler=args.scheduler, stake=args.stake, max_seconds=share, progress=not args.quiet,
                            checkpoint=store)

    result = estimate(names[0], len(names))
    modes = []
    if mode is None and game.bet_modes and not result.interrupted:
        modes = [BetModeEstimate(game.all_bet_modes["base"], result)]
        for k, name in enumerate(names[1:]):
            other = estimate(name, len(names) - 1 - k)
            modes.append(BetModeEstimate(game.all_bet_modes[name], other))
            if other.interrupted:
                break
    in_mode = BetModeEstimate(mode, result) if mode is not None else None
    policies = None
    if args.choices and game.choices and not result.interrupted:
        from ..simulate.policies import choice_rtps

        left = None if box is None else max(box - (time.monotonic() - started), 0.05)
        # the mode estimated first: the --bet-mode given, else the base game (game itself)
        policies = choice_rtps(game, precision, args.seed, stake=args.stake, workers=args.workers,
                               max_seconds=None if left is None else left / max(len(game.choices), 1), played=result)
    stops = [result.stopped_by] + [m.estimate.stopped_by for m in modes[1:]]
    with _stops_deferred():  # the result is made: print all of it
        if args.json:
            out = result.to_dict()
            if in_mode is not None:
                out["bet_mode"] = in_mode.to_dict()
            if modes:
                out["bet_modes"] = [m.to_dict() for m in modes]
            if policies:
                out["choices"] = {name: c.to_dict() for name, c in policies.items()}
            print_json(out)
        else:
            title = "RTP (exact + conditional)" + (" (interrupted)" if result.interrupted else "")
            _print_estimates(result, title)
            print(f"  plan              {result.plan}")
            print(f"  stopped by        {_stop_text(result, precision, first_answer)}")
            print("  trigger states:")
            for s in result.strata:
                if not s.probability:
                    continue  # a combination of triggers the strips cannot show
                print(f"    {s.name:28s} 1 in {1 / s.probability if s.probability else math.inf:10.1f}  "
                      f"extra {s.mean_extra:10.4f} +- {s.ci95:.4f} {result.unit}  ({s.samples:,} rounds)")
            if in_mode is not None or modes:
                _print_bet_modes([in_mode] if in_mode is not None else modes)
            print_choices(game, policies)
            if "time box" in stops:
                more = f"--precision {precision:g}" + (f" --max-seconds {10 * box:g}" if args.max_seconds is not None else "")
                print(f"  note              a time box of {box:g} s cut the run before every mode reached ± "
                      f"{100 * precision:g} %; for that precision run it again with {more} (and --workers N)")
        sys.stdout.flush()
    return EXIT_INTERRUPTED if result.interrupted else EXIT_OK


def _stop_text(result, precision: float, first_answer: bool = False) -> str:
    """What ended an estimate, with the precision it reached (x the mode's cost)."""
    reached = f"± {100 * result.rtp_ci95:.4f} % (95 %) after {result.wall_seconds:.1f} s"
    asked = "the first answer's precision (no --precision given)" if first_answer else "the precision asked for"
    return {"precision": f"{asked} (± {100 * precision:g} %): {reached}",
            "time box": f"the time box, before ± {100 * precision:g} %: {reached}",
            "interrupted": f"an interruption: {reached}",
            "exact": "nothing to simulate: the RTP is exact"}.get(result.stopped_by, result.stopped_by)


def _in_bet_mode(game, name: str | None):
    """``game`` played in bet mode ``name`` (None: as loaded), or a WorkbenchError listing the modes."""
    if name is None:
        return game
    if name not in game.all_bet_modes:
        raise WorkbenchError(f"--bet-mode: {game.name} has no bet mode {name!r} (modes: {', '.join(game.all_bet_modes)})")
    return game.in_bet_mode(name)


def _print_bet_modes(modes: list) -> None:
    """Each bet mode's figures, x its own cost (a regulator needs every mode's RTP)."""
    print("  bet modes (RTP, its exact base part, VI, the largest win seen and the max_win cap's RTP cost x the mode's "
          "own cost; hit frequency and P(cap) per round; max_win x the base total bet):")
    print(f"    {'mode':16s} {'cost x bet':>10s} {'RTP':>10s} {'+- 95 %':>9s} {'base part':>10s} {'hit freq':>9s} "
          f"{'VI 90 %':>8s} {'max seen':>9s} {'max_win':>9s} {'cap cost':>9s} {'+- 95 %':>9s} {'P(cap)':>10s}")
    for m in modes:
        capped = (f" {m.max_win_cap:9,.0f} {100 * m.cap_cost.value:8.4f}% {100 * m.cap_cost.ci95:8.4f}% "
                  f"{100 * m.max_win_probability:9.5f}%" if m.max_win_cap else f" {'-':>9s} {'-':>9s} {'-':>9s} {'-':>10s}")
        print(f"    {m.name:16s} {m.cost:10,.2f} {100 * m.rtp:9.4f}% {100 * m.rtp_ci95:8.4f}% {100 * m.base_part:9.4f}% "
              f"{100 * m.hit_frequency:8.4f}% {m.volatility_index(0.90):8.3f} {m.max_win:9,.2f}" + capped)


def cmd_report(args) -> int:
    from ..io import load_game
    from ..report import generate_report

    names = _games(args)
    check_output_folder(args.out or "reports")
    failed = []
    for name in names:
        try:
            game = load_game(name)
            stem = Path(game.path).stem if game.path else name
            base = Path(args.out) if args.out else Path("reports")
            out = base / stem if args.all or not args.out else base
            print(f"{stem}: running the report notebook ...", file=sys.stderr, flush=True)
            files = generate_report(game, out, spins=args.spins, seed=args.seed, precision=args.precision,
                                    sim_precision=args.sim_precision, stakes=args.stakes, workers=args.workers,
                                    progress=not args.quiet and sys.stderr.isatty(), max_seconds=args.max_seconds)
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
    from ..io import load_game, shipped_games

    for name in shipped_games():
        try:
            game = load_game(name)
            print(f"{name:32s} {game.name} ({game.reels} reels, {len(game.paylines)} lines, round template {game.game_module})")
        except ReelsetError as exc:
            print(f"{name:32s} INVALID: {exc.problems[0]}")
    return EXIT_OK


def _warm_one(name: str) -> float:
    """Compile and cache one game's exact engine and round code; the seconds it took."""
    import time

    from ..exact import par
    from ..io import load_game
    from ..simulate import simulate

    start = time.perf_counter()
    game = load_game(name)
    par(game, full_cycle="auto" if game.pays.is_lines and game.pays.direction == "left_to_right" else False)
    simulate(game, 1000, seed=0)
    return time.perf_counter() - start


def _warm_groups(names: list[str]) -> list[tuple[str, list[str]]]:
    """``names`` by compiled group (round template, pay rule, direction), in file order: each group's first game
    and the games after it.  A group's games share their compiled code, so with several processes the first game of
    every group compiles side by side with the others, and the rest of a group starts once it is cached (then
    mostly cache hits, rather than the same code compiled twice at once)."""
    from ..io import load_game

    groups: dict = {}
    for name in names:
        game = load_game(name)
        groups.setdefault((game.game_module, game.pays.rule, game.pays.direction), []).append(name)
    return [(members[0], members[1:]) for members in groups.values()]


def cmd_warm(args) -> int:
    """Compile (and cache) the exact engine and every named game's round once."""
    names = _games(args)
    workers = min(getattr(args, "workers", 1) or 1, len(names))
    if workers == 1:
        for name in names:
            print(f"{name}: compiled code cached ({_warm_one(name):.1f} s)", flush=True)
        return EXIT_OK
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn, not fork: a forked child of a process that has run numba's threads may hang
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(_warm_one, first): (first, rest) for first, rest in _warm_groups(names)}
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for job in done:
                name, rest = running.pop(job)
                print(f"{name}: compiled code cached ({job.result():.1f} s)", flush=True)
                running.update({pool.submit(_warm_one, other): (other, []) for other in rest})
    return EXIT_OK
