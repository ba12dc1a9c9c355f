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
import signal
import stat
import sys
import threading
from contextlib import contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path

from . import __version__
from .errors import ReelsetError, WorkbenchError

EXIT_OK = 0
EXIT_PROBLEM = 2
EXIT_UNREACHED = 3  # tune: the target cannot be reached under the constraints (the closest result is printed)
EXIT_UNCONFIRMED = 4  # tune: tuned, but the re-estimate of the tuned file does not confirm the target (docs/tuning.md)
EXIT_INTERRUPTED = 130  # stopped by SIGINT (Ctrl-C): 128 + 2
EXIT_TERMINATED = 143  # stopped by SIGTERM (a scheduler, `docker stop`): 128 + 15

# The same limits as workbench.simulate.engine (not imported here: the parser must not load numba;
# tests/test_cli_hostile.py checks that they agree).
MAX_SPINS = 10**13
MAX_WORKERS = 256
SIMULATE_BLOCK = 1 << 20
MAX_SEED = 2**63 - 1
#: a reelset is a small text file: larger files (or devices such as /dev/zero) are refused before reading
MAX_REELSET_BYTES = 64 << 20


# ---------------------------------------------------------------------------
# argument checks (argparse ``type=`` functions: a bad value is argparse's one-line error, exit 2)
# ---------------------------------------------------------------------------
def _shown(text: str) -> str:
    """``text`` for an error message (long values are cut, with their length said)."""
    return repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text):,} characters)"


def _whole(text: str) -> int:
    """A whole number written as 123, 1_000_000 or 1e6."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = Decimal(text.replace("_", ""))
    except (InvalidOperation, ValueError):
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}") from None
    if not value.is_finite():
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}")
    if value.adjusted() > 40:
        return 10**41 if value > 0 else -(10**41)  # out of every range below: the message shows the text
    if value != value.to_integral_value():
        raise argparse.ArgumentTypeError(f"not a whole number: {_shown(text)}")
    return int(value)


def whole_number(low: int, high: int | None = None, note: str = ""):
    """argparse type: a whole number from ``low`` to ``high`` (inclusive)."""

    def parse(text: str) -> int:
        value = _whole(text)
        if value < low or (high is not None and value > high):
            span = f"from {low:,} to {high:,}{note}" if high is not None else f"at least {low:,}"
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, got {_shown(text)}")
        return value

    parse.__name__ = "whole number"
    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_shown(text)}") from None


def positive_number(text: str) -> float:
    """argparse type: a finite number above 0."""
    value = _number(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {_shown(text)}")
    return value


def fraction(text: str) -> float:
    """argparse type: a finite number above 0 and below 1."""
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be a fraction above 0 and below 1 (0.0002 = 0.02 %), got {_shown(text)}")
    return value


def chunk_rounds(text: str) -> int:
    """argparse type: rounds per job of ``simulate``: below the block or a multiple of it."""
    value = whole_number(1, MAX_SPINS)(text)
    if value >= SIMULATE_BLOCK and value % SIMULATE_BLOCK:
        raise argparse.ArgumentTypeError(
            f"must be below the block of {SIMULATE_BLOCK:,} rounds or a multiple of it, got {_shown(text)}")
    return value


def path_text(text: str) -> str:
    """argparse type: a path (not empty, no NUL character)."""
    if not text:
        raise argparse.ArgumentTypeError("empty path")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"path with a NUL character: {_shown(text)}")
    return text


def game_argument(text: str) -> str:
    """argparse type: a reelset path or shipped name; an existing path must be a regular file
    (or a folder, which validation reports) of a reelset's size."""
    path_text(text)
    try:
        st = os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return text  # maybe the name of a shipped reelset: the command says if not
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{_shown(text)}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        return text
    if not stat.S_ISREG(st.st_mode):
        raise argparse.ArgumentTypeError(f"{text}: not a regular file (a device, pipe or socket is not a reelset)")
    if st.st_size > MAX_REELSET_BYTES:
        raise argparse.ArgumentTypeError(f"{text}: {st.st_size:,} bytes, too large for a reelset file "
                                         f"(at most {MAX_REELSET_BYTES:,})")
    return text


def scheduler_address(text: str) -> str:
    """argparse type: a Dask scheduler address (not empty)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty scheduler address (e.g. tcp://HOST:8786)")
    return text


# ---------------------------------------------------------------------------
# output paths: checked before any work starts
# ---------------------------------------------------------------------------
def _cannot_write(path, reason: str) -> WorkbenchError:
    return WorkbenchError(f"cannot write {path}: {reason}")


def _probe_folder(path, folder: Path) -> None:
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(prefix=".workbench-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _cannot_write(path, f"cannot create files in {folder}: {(exc.strerror or str(exc)).lower()}") from None


def check_output_file(path: str) -> None:
    """Refuse (WorkbenchError ``cannot write PATH: reason``) a file that cannot be written:
    its folder missing or not writable, a folder or special file in its place."""
    p = Path(path)
    try:
        st = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise _cannot_write(path, (exc.strerror or str(exc)).lower()) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise _cannot_write(path, "is a folder, not a file")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise _cannot_write(path, "is not a regular file")
    folder = Path(os.path.realpath(p)).parent if st is not None else p.parent
    if not folder.exists():
        from .io.atomic import missing_folder_reason

        raise _cannot_write(path, missing_folder_reason(folder))
    if not folder.is_dir():
        raise _cannot_write(path, f"{folder} is not a folder")
    _probe_folder(path, folder)
    if st is not None:
        try:
            os.close(os.open(p, os.O_WRONLY))
        except OSError as exc:
            raise _cannot_write(path, (exc.strerror or str(exc)).lower()) from None


def check_output_folder(path: str) -> None:
    """Make the output folder ``path`` (and missing parents) or refuse it (``cannot write PATH: reason``)."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise _cannot_write(path, "is not a folder")
    if not p.exists():
        top = p
        while not top.parent.exists() and top.parent != top:
            top = top.parent
        if top.parent.exists() and not top.parent.is_dir():
            raise _cannot_write(path, f"{top.parent} is not a folder")
        try:
            p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise _cannot_write(path, f"cannot create folders in {top.parent}: {(exc.strerror or str(exc)).lower()}") from None
    _probe_folder(path, p)


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
    """Errors (exit 2), then design warnings (lints: exit 0, or 2 with --strict); see docs/reelset-format.md."""
    from .lints import check_file

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
    from .io import example_games, shipped_games

    if getattr(args, "all", False):
        return shipped_games() + example_games()
    if not args.game:
        raise WorkbenchError("name a GAME (a reelset path or shipped name) or use --all")
    return [args.game]


def plain_number(v: float) -> str:
    """A table float with 6 significant digits and never in scientific notation (as a test lab reads them):
    ``2.57349e-05 -> 0.0000257349``, ``92044900.3 -> 92,044,900``."""
    import math

    from .report.formats import fmt_prob

    if not math.isfinite(v):
        return str(v)
    return f"{v:,.0f}" if abs(v) >= 1e6 else fmt_prob(v, 6)


def render_par_text(sheet, z: float | None = None) -> str:
    import pandas as pd

    with pd.option_context("display.width", 140, "display.max_columns", 20, "display.max_rows", 500, "display.max_colwidth", None,
                           "display.float_format", plain_number):
        parts = [
            f"PAR sheet: {sheet.game.name} ({getattr(sheet, 'covers', 'base game') if sheet.mode == 'base' else sheet.mode + ' game'})",
            "=" * 60,
            *_summary_lines(sheet),
            "",
            "Symbol counts",
            sheet.symbol_counts.to_string(),
            "",
            _combinations_heading(sheet),
            sheet.combinations.to_string(index=False),
            *_lint_lines(sheet),
        ]
        if len(sheet.scatter_pays):
            parts += ["", "Scatter pays", sheet.scatter_pays.to_string(index=False)]
        if len(sheet.triggers):
            parts += ["", "Feature triggers", sheet.triggers.to_string(index=False)]
        parts += ["", "Prize structure (x total bet)", sheet.prize_structure.to_string(index=False)]
        parts += ["", *par_conventions_lines(sheet, z)]
        awards = sheet.awards
        basis = "each distinct spin win, exact over the full cycle" if sheet.distribution is not None else \
            "each single award on its own (no full-cycle distribution)"
        if len(awards) <= AWARD_ROWS_SHOWN:
            parts += ["", f"Awards by value (x total bet; {basis})", awards.to_string(index=False)]
        else:
            parts += ["", f"Awards by value: {len(awards):,} distinct values ({basis}); the .xlsx workbook (--xlsx) lists them all"]
        parts.append("")
    return "\n".join(parts)


AWARD_ROWS_SHOWN = 60  # the awards-by-value table is printed when it has at most this many rows


def _lint_lines(sheet) -> list[str]:
    """Design warnings the combinations table shows (a higher count as frequent as a lower one; workbench.lints)."""
    from .lints import par_warning_lines

    return par_warning_lines(sheet)


def _summary_lines(sheet) -> list[str]:
    """The PAR summary, one left-aligned ``figure  value  unit`` line per figure of the catalogue
    (:mod:`workbench.figures`; a long note does not push the numbers right)."""
    from .figures import TEXT, shown

    rows = [("game", sheet.game.name, ""), ("mode", sheet.mode, "")]
    rows += [(v.label, shown(v.value, v.kind), "" if v.kind == TEXT else v.unit) for v in sheet.figures()]
    width = max(len(label) for label, _, _ in rows)
    size = max(len(value) for label, value, unit in rows if unit) if any(unit for _, _, unit in rows) else 0
    lines = [f"{label:{width}s}  {value:>{size}s}  {unit}".rstrip() if unit else f"{label:{width}s}  {value}"
             for label, value, unit in rows]
    from .simulate import exactness

    exact, why = exactness(sheet.game)
    if sheet.mode == "base" and not exact:
        lines.append(f"{'whole game':{width}s}  not in this sheet: {why}; `workbench rtp` gives the whole-game RTP")
    return lines


def _combinations_heading(sheet) -> str:
    unit = {"line_bet": "x line bet", "total_bet": "x total bet", "bet_multiplier": "x bet multiplier"}[sheet.game.bet.line_pay_unit]
    rule = sheet.game.pays.rule
    if rule == "ways":
        return f"Ways combinations (pay {unit} per way; hits: screens paying it, over the full cycle; rtp x total bet)"
    if rule == "scatter_pays":
        return f"Pay-anywhere combinations (pay {unit}; count = symbols anywhere on the screen; rtp x total bet)"
    if rule == "cluster":
        return (f"Cluster combinations (pay {unit} per cluster; count = cluster size band; hits: screens with such a "
                f"cluster, over the full cycle; rtp x total bet)")
    direction = {"left_to_right": "", "right_to_left": ", read right to left", "both_ways": ", both ways"}[sheet.game.pays.direction]
    return f"Line combinations (pay {unit}; hits over the full cycle, all lines{direction}; rtp x total bet)"


def par_conventions_lines(sheet, z: float | None = None) -> list[str]:
    """The figures labs print under other conventions, each labelled."""
    z_printed = 1.65 if z is None else z
    how = "as printed on many sheets" if z is None else "given with --z"
    rows = [
        ("hit frequency, whole spin (a spin with any win)", f"{100 * sheet.hit_frequency:9.4f} %"),
        ("hit frequency, PAR-sheet (each line, ways or scatter win is a hit)", f"{100 * sheet.par_hit_frequency:9.4f} %"),
        ("volatility index, z = 1.6449 (exact, 90 %)", f"{sheet.volatility_index(0.90):9.4f}"),
        (f"volatility index, z = {z_printed:g} ({how})", f"{sheet.volatility_index(z=z_printed):9.4f}"),
    ]
    covers = getattr(sheet, "covers", "base game") if sheet.mode == "base" else f"mode {sheet.mode}"
    return [f"PAR-sheet conventions ({covers}, x total bet)", *(f"  {label:<68s}{value}" for label, value in rows)]


def cmd_par(args) -> int:
    from .exact import par
    from .io import load_game

    results = []
    names = _games(args)
    into_folder = bool(args.xlsx) and (len(names) > 1 or Path(args.xlsx).is_dir())
    if args.xlsx:
        (check_output_folder if into_folder else check_output_file)(args.xlsx)
    for name in names:
        game = load_game(name)
        sheet = par(game, args.mode, full_cycle="auto" if not args.no_cycle else False, budget=args.budget)
        if args.xlsx:
            out = Path(args.xlsx) / f"{Path(game.path).stem}_par.xlsx" if into_folder else Path(args.xlsx)
            if into_folder:
                check_output_file(str(out))
            from .report.workbook import write_par_workbook

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


def cmd_simulate(args) -> int:
    from .io import load_game
    from .simulate import simulate

    if args.checkpoint:
        check_output_file(args.checkpoint)
    game = _in_bet_mode(load_game(args.game), args.bet_mode)
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

    from .io import load_game
    from .simulate import BetModeEstimate, estimate_rtp

    started = time.monotonic()
    game = load_game(args.game)
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
    stops = [result.stopped_by] + [m.estimate.stopped_by for m in modes[1:]]
    with _stops_deferred():  # the result is made: print all of it
        if args.json:
            out = result.to_dict()
            if in_mode is not None:
                out["bet_mode"] = in_mode.to_dict()
            if modes:
                out["bet_modes"] = [m.to_dict() for m in modes]
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
    from .io import load_game
    from .report import generate_report

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
                                    stakes=args.stakes, workers=args.workers,
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


def rtp_number(text: str) -> float:
    """argparse type: an RTP as a fraction (0.9618) or a percentage (96.18%)."""
    percent = text.strip().endswith("%")
    value = _number(text.strip().rstrip("%").strip())
    if percent:
        value /= 100
    if math.isfinite(value) and value > 2 and not percent:
        raise argparse.ArgumentTypeError(f"{_shown(text)} looks like a percentage: write 0.9618 or 96.18%")
    if not math.isfinite(value) or not 0 < value < 10:
        raise argparse.ArgumentTypeError(f"must be an RTP above 0, as a fraction (0.9618) or a percentage (96.18%), got {_shown(text)}")
    return value


def rtp_list(text: str) -> list:
    """argparse type: comma-separated RTPs (0.96,0.94,0.92)."""
    parts = [t for t in text.split(",") if t.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("give at least one RTP, e.g. 0.96,0.94,0.92")
    return [rtp_number(t) for t in parts]


def vary_spec(text: str) -> tuple:
    """argparse type: what ``tune`` may change: ``symbols=A,K,Q``, ``table=NAME``, ``strip_set_weights`` or
    ``stop_weights``; returns (kind, names)."""
    key, sep, rest = text.partition("=")
    key = key.strip()
    if key in ("strip_set_weights", "stop_weights") and not sep:
        return key, ()
    names = [t.strip() for t in rest.split(",") if t.strip()]
    if key in ("symbols", "table", "tables") and sep and names:
        return ("table" if key.startswith("table") else "symbols"), tuple(names)
    raise argparse.ArgumentTypeError(f"write symbols=A,K,Q, table=NAME, strip_set_weights or stop_weights, got {_shown(text)}")


def target_spec(text: str):
    """argparse type: one ``--target MODE=RTP[±TOL]`` (RTP 0.96 or 96%, TOL 0.003 or 0.3%, percentage points)."""
    from .tuning import parse_target

    try:
        return parse_target(text)
    except WorkbenchError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--target {text!r}: ")) from None


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
    from .errors import TargetUnreachableError
    from .io import load_game
    from .tuning import FeatureTerms, shared_terms, tune, tune_targets, version_path, versions_table

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
        par(game, full_cycle="auto" if game.pays.is_lines and game.pays.direction == "left_to_right" else False)
        simulate(game, 1000, seed=0)
        print(f"{name}: compiled code cached ({time.perf_counter() - start:.1f} s)")
    return EXIT_OK


# ---------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Slot-game mathematics workbench.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    seed = whole_number(0, MAX_SEED, " (2^63 - 1)")
    workers = whole_number(1, MAX_WORKERS)
    spins = whole_number(1, MAX_SPINS, " (10^13)")

    p = sub.add_parser("validate", help="check reelset files: the format, and everything par, simulate, rtp, report and "
                                        "tune need of them (so 'ok' means every command runs); print every problem, "
                                        "then design warnings; exit 2 if any problem (or, with --strict, any warning)")
    p.add_argument("files", nargs="+", metavar="FILE", type=game_argument)
    p.add_argument("--strict", action="store_true", help="count design warnings (lints) as problems: exit 2 on any")
    p.add_argument("--json", action="store_true", help="print a JSON object per file (errors and warnings) instead")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("par", help="exact PAR sheet of a game's base game")
    p.add_argument("game", nargs="?", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, the gallery (reelsets/examples/) included")
    p.add_argument("--mode", default="base", help="strip-set mode to analyse (default: base)")
    p.add_argument("--json", action="store_true", help="print a JSON object instead of tables")
    p.add_argument("--xlsx", metavar="OUT", type=path_text,
                   help="also write the PAR sheet as an .xlsx workbook (a folder with --all: one file per game)")
    p.add_argument("--no-cycle", action="store_true", help="skip the full-cycle distribution")
    p.add_argument("--budget", type=whole_number(1, 2**63 - 1), default=2_000_000_000,
                   help="max window combinations for the full cycle (at least 1; default 2,000,000,000)")
    p.add_argument("--z", type=positive_number, default=None,
                   help="z of the printed volatility index beside the exact 90 %% one (default 1.65, as many PAR sheets print)")
    p.set_defaults(func=cmd_par)

    p = sub.add_parser("simulate", help="simulate complete rounds end to end")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--spins", type=spins, default=1_000_000,
                   help=f"rounds to play: 1 to {MAX_SPINS:,} (10^13); default 1,000,000")
    p.add_argument("--seed", type=seed, default=1, help="0 to 2^63 - 1 (default 1)")
    p.add_argument("--workers", type=workers, default=1, help=f"local worker processes (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address, help="run the chunks on this Dask scheduler")
    p.add_argument("--stake", type=positive_number,
                   help="total bet in currency, above 0 (caps, jackpots); default: the game's reference stake")
    p.add_argument("--chunk", type=chunk_rounds, default=SIMULATE_BLOCK, metavar="ROUNDS",
                   help=f"rounds per job handed to a worker: below {SIMULATE_BLOCK:,} (a block of randomness, played "
                        f"in parts) or a multiple of it; default {SIMULATE_BLOCK:,}. The results do not depend on it")
    p.add_argument("--checkpoint", metavar="FILE", type=path_text,
                   help="save progress here; rerun with it to resume (also after Ctrl-C or SIGTERM)")
    p.add_argument("--bet-mode", metavar="NAME",
                   help="play this [bet_modes.*] (every figure x its own cost); default: the base game")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the whole command (above 0): it stops then and reports the rounds played")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("rtp", help="RTP by exact base game + conditional simulation of features")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--precision", type=fraction, default=None,
                   help="target 95 %% half-width x the mode's cost (a fraction above 0 and below 1; 0.0002 = 0.02 %%). "
                        f"Default: a first answer to ± {100 * FIRST_ANSWER_PRECISION:g} %% within "
                        f"{FIRST_ANSWER_SECONDS:g} s (all bet modes together; the output says the precision reached)")
    p.add_argument("--seed", type=seed, default=1, help="0 to 2^63 - 1 (default 1)")
    p.add_argument("--workers", type=workers, default=1, help=f"local worker processes (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address)
    p.add_argument("--stake", type=positive_number, help="total bet in currency, above 0")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the whole command, set-up and every bet mode included (above 0): it stops then "
                        "with what it has, even if the precision is not reached. Default: none with --precision, "
                        f"{FIRST_ANSWER_SECONDS:g} s without")
    p.add_argument("--bet-mode", metavar="NAME",
                   help="estimate this [bet_modes.*] only (figures x its own cost); by default a game with bet modes "
                        "also lists every mode")
    p.add_argument("--checkpoint", metavar="FILE", type=path_text,
                   help="save progress here (other bet modes: FILE.MODE); rerun with it to resume (also after Ctrl-C, "
                        "SIGTERM or a time box) to the result an uninterrupted run gives")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
    p.set_defaults(func=cmd_rtp)

    from .report.defaults import DEFAULT_PRECISION, DEFAULT_SEED, DEFAULT_SPINS

    p = sub.add_parser("report", help="reviewer report: executed notebook, HTML, PAR sheet as .xlsx/CSV/JSON")
    p.add_argument("game", nargs="?", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, one subfolder of --out per game")
    p.add_argument("--spins", type=spins, default=DEFAULT_SPINS,
                   help=f"rounds of the end-to-end simulation: 1 to {MAX_SPINS:,} (10^13); default {DEFAULT_SPINS:,}")
    p.add_argument("--seed", type=seed, default=DEFAULT_SEED, help="0 to 2^63 - 1")
    p.add_argument("--precision", type=fraction, default=DEFAULT_PRECISION,
                   help=f"target 95 %% half-width of the RTP estimate (a fraction above 0 and below 1; default {DEFAULT_PRECISION})")
    p.add_argument("--stakes", type=positive_number, nargs="+", metavar="STAKE",
                   help="stake levels (currency, each above 0); default: the game's stake ladder")
    p.add_argument("--workers", type=workers, default=1,
                   help=f"local worker processes (1 to {MAX_WORKERS}; results do not depend on it)")
    p.add_argument("--out", metavar="DIR", type=path_text, help="output folder (default: reports/GAME)")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the report's simulations per game (above 0), shared by the RTP estimate, the "
                        "stakes, the bet modes and the end-to-end run; each figure says the precision it reached")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("tune", help="reach a target RTP with the fewest stop changes, keeping chosen figures; confirm it "
                                    "on the tuned file",
                       epilog="exit status: 0 every target reached (confirmed on the tuned file); 2 bad input; 3 a "
                              "target cannot be reached (the closest result is printed); 4 tuned but not confirmed "
                              "(how close it is and the command that confirms it are printed). See docs/tuning.md.")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--target-rtp", type=rtp_number,
                   help="RTP to reach, x the cost of the bet mode tuned (the whole game by default): 0.9618 or 96.18%%")
    p.add_argument("--targets", type=rtp_list, help="several versions: 0.96,0.94,0.92 (one file each with --out)")
    p.add_argument("--target", type=target_spec, action="append", metavar="MODE=RTP[±TOL]",
                   help="a bet mode's own RTP (repeatable, one file): base=96%%, bonus_buy=96%%±0.3%% (TOL in points of "
                        "RTP); each mode varies its own strips (a buy: its feature's), tuned in an order where none "
                        "changes what an earlier one plays")
    p.add_argument("--tolerance", type=fraction, default=None,
                   help="how close to the target, a fraction of the mode's cost; \"reached\" needs the tuned file's "
                        "re-estimated RTP this close with a 95 %% half-width at most this (default 0.0005 when the RTP "
                        "has a simulated part, 0.0001 when it is exact)")
    p.add_argument("--bet-mode", metavar="NAME",
                   help="tune this [bet_modes.*] to its own RTP (x its cost): an ante's own strips, a buy's feature "
                        "strips (or, with --vary table=NAME, a table drawn in it); default: the base game")
    p.add_argument("--mode", default=None,
                   help="strip-set mode whose strips change (a [strip_sets] mode such as free_spins; default: the bet "
                        "mode's own, a buy's feature's); bet modes are chosen with --bet-mode")
    p.add_argument("--strip-set", help="strip set to change (default: the mode's own, e.g. base)")
    p.add_argument("--keep", action="append", metavar="FIGURE[=VALUE[±TOL]]",
                   help="hold a figure in a band, e.g. hit_frequency=0.28±0.01, volatility_index_90, "
                        "trigger:free_spins=1/150±10%% (repeatable; without a band: its value now ± 1 %%)")
    p.add_argument("--vary", type=vary_spec, action="append", metavar="WHAT",
                   help="what may change (repeatable): symbols=A,K,Q (their counts per reel), table=NAME (its entry weights), "
                        "strip_set_weights (the mode's strip-set weights), stop_weights (the reels' stop weights); "
                        "default: the counts of every one-stop symbol but wilds, scatters and bonus symbols")
    p.add_argument("--max-changes", type=whole_number(1, 10**6), help="at most this many stops and weights changed")
    p.add_argument("--max-steps", type=whole_number(1, 1000), default=12, help="search steps (default 12)")
    p.add_argument("--precision", type=fraction, default=None,
                   help="95 %% half-width of the held feature estimate (games with features; default: the tolerance)")
    p.add_argument("--seed", type=seed, default=1,
                   help="seed of the held feature estimate; confirmation k is seeded SEED + k (default 1)")
    p.add_argument("--max-seconds", type=positive_number, default=600.0,
                   help="time box of each target in seconds: held terms (at most a quarter), search and confirmations "
                        "(default 600); a confirmation it stops short is \"not confirmed\"")
    p.add_argument("--max-rounds", type=whole_number(1, 10), default=3,
                   help="most confirmations per target: after an off-target one the search aims again (default 3)")
    p.add_argument("--workers", type=workers, default=1, help=f"local processes per estimate (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--no-confirm", action="store_true",
                   help="do not re-estimate the tuned file: a result with a simulated part is then \"not confirmed\"")
    p.add_argument("--reestimate", action="store_true", help=argparse.SUPPRESS)  # what the confirmation now always does
    p.add_argument("--base-only", action="store_true",
                   help="the target is the base game's RTP (exact); feature terms are left out and not estimated")
    p.add_argument("--out", metavar="FILE", type=path_text,
                   help="write the tuned reelset here (with --targets: FILE_rtpXXXX.toml per version; also a result "
                        "that is not confirmed); nothing is written without it")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("warm", help="compile and cache the code a game needs (make does this for the shipped games)")
    p.add_argument("game", nargs="?", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, the gallery (reelsets/examples/) included")
    p.set_defaults(func=cmd_warm)

    p = sub.add_parser("list", help="list the shipped games")
    p.set_defaults(func=cmd_list)
    return parser


def _os_reason(exc: OSError) -> str:
    try:
        from .io.atomic import os_reason

        return os_reason(exc)
    except ImportError:  # pragma: no cover
        return exc.strerror or str(exc)


class _Stops:
    """Stop signals (SIGINT, SIGTERM) received by this ``workbench`` command."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.defer = 0  # > 0 while a finished result is printed


_STOPS = _Stops()


@contextmanager
def _stops_deferred():
    """Within: a stop signal is only recorded (a result being printed is printed whole)."""
    _STOPS.defer += 1
    try:
        yield
    finally:
        _STOPS.defer -= 1


def _on_stop_signal(signum, frame) -> None:
    """Handler for SIGINT and SIGTERM in the ``workbench`` process: during a simulation the run
    stops at its next safe point and prints what it has (see
    :func:`workbench.simulate.engine.on_stop_signal`); while a result is printed, it waits for
    the end of it; elsewhere it stops at once."""
    _STOPS.received.append(signum)
    if _STOPS.defer:
        return
    engine = sys.modules.get("workbench.simulate.engine")
    if engine is None:
        raise KeyboardInterrupt(signal.Signals(signum).name)
    engine.on_stop_signal(signum, frame)


def _install_stop_handlers() -> dict:
    """Install the stop handler for SIGINT and SIGTERM (main thread only); returns the handlers to restore."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handler = _on_stop_signal
    old = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            old[signum] = signal.signal(signum, handler)
        except (ValueError, OSError):  # pragma: no cover
            pass
    return old


def main(argv: list[str] | None = None) -> int:
    """Run the ``workbench`` command with ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    0: done; 2: a problem with the input (argparse's own errors exit 2 too);
    130: stopped by SIGINT (Ctrl-C); 143: stopped by SIGTERM.  A stopped
    simulation prints its partial result (marked interrupted) first.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    _STOPS.received.clear()
    received = _STOPS.received
    old = _install_stop_handlers()
    try:
        status = args.func(args)
    except WorkbenchError as exc:
        print(f"workbench: {exc}", file=sys.stderr)
        status = EXIT_PROBLEM
    except KeyboardInterrupt as exc:
        terminated = (received[:1] == [signal.SIGTERM]) or getattr(exc, "signum", None) == signal.SIGTERM
        print("workbench: stopped by SIGTERM" if terminated else "workbench: interrupted", file=sys.stderr)
        status = EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except BrokenPipeError:
        status = EXIT_OK
    except OSError as exc:
        name = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"workbench: {name}{_os_reason(exc)}", file=sys.stderr)
        status = EXIT_PROBLEM
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)
    if status == EXIT_INTERRUPTED and received[:1] == [signal.SIGTERM]:
        status = EXIT_TERMINATED
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        # a stop must be prompt: skip the interpreter's slow teardown of compiled code
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            pass
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
