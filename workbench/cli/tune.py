"""The ``tune`` command: runs the tuner and prints what it reached, confirmed or not."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import WorkbenchError
from .outputs import check_output_file, print_json
from .process import (EXIT_OK, EXIT_UNREACHED, EXIT_UNCONFIRMED, _stops_deferred)


def _tune_heading(game, result) -> str:
    varied = "; ".join(([f"symbols {', '.join(result.vary)}"] if result.vary else []) + list(result.varied_weights))
    mode = result.unit if result.bet_mode != "base" else "whole game, x total bet"
    strips = result.original.strip_sets.get(result.strip_set)  # the mode as the file names it (an ante's: its own)
    return (f"{game.name}: target RTP {result.target * 100:.4f} % ± {result.tolerance * 100:.4f} % ({mode}; strip set "
            f"{result.strip_set} of mode {strips.mode if strips else result.mode}; varied: {varied or 'nothing'})")


def _print_tune_result(game, result, message, saved) -> None:
    """One target's result as text: heading, status (with the confirming command), terms, figures, changes."""
    file = str(saved.target) if saved is not None else None
    print(_tune_heading(game, result))
    if message:
        print(f"  NOT REACHED: {message}")
    else:
        for line in result.lines(file or "TUNED.toml"):
            print(f"  {line}")
        if result.status == "not confirmed" and saved is None:
            print("  (write the tuned file with --out FILE to run that command on it)")
    for line in result.table().to_string(index=False).splitlines():
        print("  " + line)
    for change in (*result.changes, *result.weight_changes):
        print(f"  {change}")
    for note in result.notes:
        print(f"  note: {note}")
    if saved is not None:
        print(f"  saved to {saved.target}" + (" (not confirmed: check it with the command above)"
                                              if result.status == "not confirmed" else ""))
    print()


def _tune_status(results: list) -> int:
    """Exit status of ``tune``: 3 if a target cannot be reached, else 4 if one is not confirmed, else 0."""
    statuses = {r.status for r, message in results} | {"not reached" for r, message in results if message}
    if "not reached" in statuses:
        return EXIT_UNREACHED
    return EXIT_UNCONFIRMED if "not confirmed" in statuses else EXIT_OK


def cmd_tune(args) -> int:
    from ..errors import TargetUnreachableError
    from ..io import load_game
    from ..tuning import FeatureTerms, shared_terms, tune, tune_targets, version_path, versions_table

    game = load_game(args.game)
    if args.target and (args.target_rtp is not None or args.targets):
        raise WorkbenchError("tune: --target MODE=RTP names the mode of each target: give it instead of --target-rtp "
                             "or --targets, not with them")
    targets = args.targets or ([args.target_rtp] if args.target_rtp is not None else [])
    if not targets and not args.target:
        raise WorkbenchError("tune: give --target-rtp RTP (or --targets RTP,RTP,... or --target MODE=RTP)")
    if args.target:
        given = [opt for opt, value in (("--bet-mode", args.bet_mode), ("--mode", args.mode), ("--strip-set", args.strip_set),
                                        ("--keep", args.keep), ("--vary", args.vary), ("--tolerance", args.tolerance),
                                        ("--base-only", args.base_only)) if value]
        if given:
            raise WorkbenchError(f"tune: with --target each mode is tuned with its own strips and tolerance "
                                 f"(MODE=RTP±TOL): {', '.join(given)} applies to one target at a time (--target-rtp "
                                 "with --bet-mode)")
    outs = []
    if args.out:
        outs = [Path(args.out)] if len(targets) <= 1 else [version_path(args.out, t) for t in targets]
        for out in outs:
            check_output_file(str(out))
    interactive = not args.quiet and sys.stderr.isatty() and not args.json
    bar = None
    if interactive:
        from tqdm import tqdm

        bar = tqdm(unit=" exact evaluations", leave=False, file=sys.stderr)
    common = dict(seed=args.seed, precision=args.precision, max_seconds=args.max_seconds, max_rounds=args.max_rounds,
                  workers=args.workers, confirm=not args.no_confirm, max_changes=args.max_changes,
                  max_steps=args.max_steps, progress=(lambda n: bar.update(1)) if bar is not None else None,
                  notify=(lambda text: (bar.write if bar is not None else print)(f"workbench: {text}", file=sys.stderr))
                  if interactive else None)
    if args.target:
        try:
            multi = tune_targets(game, args.target, **common)
        finally:
            if bar is not None:
                bar.close()
        applied = any(m is None for m in multi.messages)
        saved = multi.save(outs[0]) if outs and applied else None
        results = list(zip(multi.results, multi.messages))
        with _stops_deferred():
            if args.json:
                print_json(dict(multi.to_dict(str(saved.target) if saved else None),
                                saved_to=str(saved.target) if saved is not None else None))
                return _tune_status(results)
            for note in multi.notes:
                print(f"note: {note}")
            for result, message in results:
                _print_tune_result(game, result, message, saved)
            print(f"{game.name}: {len(results)} target(s), tuned in the order {', '.join(multi.order)}: {multi.status}"
                  + (f"; saved to {saved.target}" if saved is not None else ""))
        return _tune_status(results)
    specs = args.vary or []
    symbols = [n for kind, names in specs if kind == "symbols" for n in names]
    symbols = symbols if symbols else (None if not specs else ())  # only weights named: no symbol counts change
    tables = [n for kind, names in specs if kind == "table" for n in names]
    options = dict(bet_mode=args.bet_mode, mode=args.mode, strip_set=args.strip_set, keep=args.keep or (), vary=symbols,
                   tables=tables, strip_set_weights=("strip_set_weights", ()) in specs,
                   stop_weights=("stop_weights", ()) in specs, tolerance=args.tolerance, **common)
    try:
        if args.base_only:
            options["terms"] = FeatureTerms.base_only()
        elif len(targets) > 1:
            options["terms"] = shared_terms(game, **options)  # one held estimate for every version
        results = []
        for i, target in enumerate(targets):
            try:
                result = tune(game, target, **options)
                message = None
            except TargetUnreachableError as exc:
                result, message = exc.closest, str(exc)
            saved = result.save(outs[i]) if outs and message is None else None
            results.append((result, message, saved))
    finally:
        if bar is not None:
            bar.close()
    status = _tune_status([(r, m) for r, m, _ in results])
    with _stops_deferred():
        if args.json:
            out = []
            for result, message, saved in results:
                d = result.to_dict(str(saved.target) if saved is not None else None)
                d["message"] = message
                d["saved_to"] = str(saved.target) if saved is not None else None
                out.append(d)
            print_json(out[0] if len(out) == 1 else out)
            return status
        for result, message, saved in results:
            _print_tune_result(game, result, message, saved)
        if len(results) > 1:
            print(versions_table([r for r, _, _ in results]).to_string())
    return status
