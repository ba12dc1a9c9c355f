"""The ``workbench`` command line.

Every command reports bad input as a one-line (or one-block) message naming
the file and place, and exits with status 2; it never shows a traceback for
a problem in the user's files or arguments.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from .. import __version__
from ..errors import WorkbenchError
from .args import (MAX_SPINS, MAX_WORKERS, SIMULATE_BLOCK, MAX_SEED, MAX_REELSET_BYTES, whole_number, positive_number, fraction, chunk_rounds, path_text, game_argument, scheduler_address, rtp_number, rtp_list, vary_spec, target_spec)
from .outputs import (check_output_file, check_output_folder, _json_default, _finite, print_json, plain_number)
from .process import (EXIT_OK, EXIT_PROBLEM, EXIT_UNREACHED, EXIT_UNCONFIRMED, EXIT_INTERRUPTED, EXIT_TERMINATED, _os_reason, _STOPS, _install_stop_handlers)
from .par_text import render_par_text
from .commands import (cmd_validate, _games, cmd_par, cmd_simulate, FIRST_ANSWER_PRECISION, FIRST_ANSWER_SECONDS, cmd_rtp, cmd_report, cmd_list, cmd_warm)
from .tune import cmd_tune
from .rounds import add_export, add_find, add_replay
from .check import DEFAULT_PRECISION as CHECK_PRECISION, cmd_check


# what the package's callers and tests use from here
__all__ = ["EXIT_INTERRUPTED", "EXIT_OK", "EXIT_PROBLEM", "EXIT_TERMINATED", "EXIT_UNCONFIRMED", "EXIT_UNREACHED",
           "MAX_REELSET_BYTES", "MAX_SEED", "MAX_SPINS", "MAX_WORKERS", "SIMULATE_BLOCK", "build_parser",
           "check_output_file", "check_output_folder", "main", "plain_number", "print_json", "render_par_text",
           "whole_number"]


# ---------------------------------------------------------------------------
# argument types shared by the commands
_SEED = whole_number(0, MAX_SEED, " (2^63 - 1)")
_WORKERS = whole_number(1, MAX_WORKERS)
_SPINS = whole_number(1, MAX_SPINS, " (10^13)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="workbench", description="Slot-game mathematics workbench.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_validate, _add_par, _add_simulate, _add_rtp, _add_report, _add_tune, _add_check, _add_warm,
                _add_list):
        add(sub)
    for add in (add_replay, add_find, add_export):
        add(sub, _SEED, _SPINS, whole_number(0, MAX_SPINS - 1), game_argument, positive_number)
    return parser


def _add_validate(sub) -> None:
    """``workbench validate``."""
    p = sub.add_parser("validate", help="check reelset files: the format, and everything par, simulate, rtp, report and "
                                        "tune need of them (so 'ok' means every command runs); print every problem, "
                                        "then design warnings; exit 2 if any problem (or, with --strict, any warning)")
    p.add_argument("files", nargs="+", metavar="FILE", type=game_argument)
    p.add_argument("--strict", action="store_true", help="count design warnings (lints) as problems: exit 2 on any")
    p.add_argument("--json", action="store_true", help="print a JSON object per file (errors and warnings) instead")
    p.set_defaults(func=cmd_validate)


def _add_par(sub) -> None:
    """``workbench par``."""
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


def _add_simulate(sub) -> None:
    """``workbench simulate``."""
    p = sub.add_parser("simulate", help="simulate complete rounds end to end")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--spins", type=_SPINS, default=1_000_000,
                   help=f"rounds to play: 1 to {MAX_SPINS:,} (10^13); default 1,000,000")
    p.add_argument("--seed", type=_SEED, default=1, help="0 to 2^63 - 1 (default 1)")
    p.add_argument("--workers", type=_WORKERS, default=1, help=f"local worker processes (1 to {MAX_WORKERS}; default 1)")
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
    p.add_argument("--choice", metavar="NAME=OPTION", action="append",
                   help="play this option of the [choices.NAME] player choice every time (repeatable); default: "
                        "the option the file plays")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the whole command (above 0): it stops then and reports the rounds played")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
    p.set_defaults(func=cmd_simulate)


def _add_rtp(sub) -> None:
    """``workbench rtp``."""
    p = sub.add_parser("rtp", help="RTP by exact base game + conditional simulation of features")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--precision", type=fraction, default=None,
                   help="target 95 %% half-width x the mode's cost (a fraction above 0 and below 1; 0.0002 = 0.02 %%). "
                        f"Default: a first answer to ± {100 * FIRST_ANSWER_PRECISION:g} %% within "
                        f"{FIRST_ANSWER_SECONDS:g} s (all bet modes together; the output says the precision reached)")
    p.add_argument("--seed", type=_SEED, default=1, help="0 to 2^63 - 1 (default 1)")
    p.add_argument("--workers", type=_WORKERS, default=1, help=f"local worker processes (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--scheduler", metavar="ADDRESS", type=scheduler_address)
    p.add_argument("--stake", type=positive_number, help="total bet in currency, above 0")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the whole command, set-up and every bet mode included (above 0): it stops then "
                        "with what it has, even if the precision is not reached. Default: none with --precision, "
                        f"{FIRST_ANSWER_SECONDS:g} s without")
    p.add_argument("--bet-mode", metavar="NAME",
                   help="estimate this [bet_modes.*] only (figures x its own cost); by default a game with bet modes "
                        "also lists every mode")
    p.add_argument("--choice", metavar="NAME=OPTION", action="append",
                   help="price this option of the [choices.NAME] player choice (repeatable); default: the option the "
                        "file plays")
    p.add_argument("--choices", action="store_true",
                   help="also price every policy of every [choices.*]: each option always, and the best and worst "
                        "player picking per trigger state (same seed and precision)")
    p.add_argument("--checkpoint", metavar="FILE", type=path_text,
                   help="save progress here (other bet modes: FILE.MODE); rerun with it to resume (also after Ctrl-C, "
                        "SIGTERM or a time box) to the result an uninterrupted run gives")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
    p.set_defaults(func=cmd_rtp)


def _add_report(sub) -> None:
    """``workbench report``."""
    from ..report.defaults import DEFAULT_PRECISION, DEFAULT_SEED, DEFAULT_SPINS

    p = sub.add_parser("report", help="reviewer report: executed notebook, HTML, PAR sheet as .xlsx/CSV/JSON")
    p.add_argument("game", nargs="?", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, one subfolder of --out per game")
    p.add_argument("--spins", type=_SPINS, default=DEFAULT_SPINS,
                   help=f"rounds of the end-to-end simulation: 1 to {MAX_SPINS:,} (10^13); default {DEFAULT_SPINS:,}")
    p.add_argument("--seed", type=_SEED, default=DEFAULT_SEED, help="0 to 2^63 - 1")
    p.add_argument("--precision", type=fraction, default=DEFAULT_PRECISION,
                   help=f"target 95 %% half-width of the RTP estimate (a fraction above 0 and below 1; default {DEFAULT_PRECISION})")
    p.add_argument("--sim-precision", type=fraction, metavar="P",
                   help="size the end-to-end simulation by precision instead of --spins: as many rounds as confirm the "
                        "RTP to ± P (95 %%; a fraction, 0.001 = ± 0.1 %%), from the RTP estimate's std; the time box "
                        "still applies")
    p.add_argument("--stakes", type=positive_number, nargs="+", metavar="STAKE",
                   help="stake levels (currency, each above 0); default: the game's stake ladder")
    p.add_argument("--workers", type=_WORKERS, default=1,
                   help=f"local worker processes (1 to {MAX_WORKERS}; results do not depend on it)")
    p.add_argument("--out", metavar="DIR", type=path_text, help="output folder (default: reports/GAME)")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of the report's simulations per game (above 0), shared by the RTP estimate, the "
                        "stakes, the bet modes and the end-to-end run; each figure says the precision it reached")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_report)


def _add_tune(sub) -> None:
    """``workbench tune``."""
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
    p.add_argument("--seed", type=_SEED, default=1,
                   help="seed of the held feature estimate; confirmation k is seeded SEED + k (default 1)")
    p.add_argument("--max-seconds", type=positive_number, default=600.0,
                   help="time box of each target in seconds: held terms (at most a quarter), search and confirmations "
                        "(default 600); a confirmation it stops short is \"not confirmed\"")
    p.add_argument("--max-rounds", type=whole_number(1, 10), default=3,
                   help="most confirmations per target: after an off-target one the search aims again (default 3)")
    p.add_argument("--workers", type=_WORKERS, default=1, help=f"local processes per estimate (1 to {MAX_WORKERS}; default 1)")
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


def _add_check(sub) -> None:
    """``workbench check``."""
    from ..report.compliance import profile_names

    p = sub.add_parser("check", help="compliance checks against a jurisdiction profile: minimum RTP per mode, every "
                                     "award reachable, the maximum win stated, bet modes within a band, caps applied",
                       epilog="exit status: 0 every check passed or does not apply; 1 a check failed (the table says "
                              "which, with its evidence); 2 bad input. See docs/compliance.md.")
    p.add_argument("game", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--profile", default="gli11",
                   help=f"a shipped profile ({', '.join(profile_names())}) or a profile .toml file (default gli11)")
    p.add_argument("--precision", type=fraction, default=CHECK_PRECISION,
                   help="95 %% half-width of each mode's RTP estimate, x its cost (a fraction above 0 and below 1; "
                        f"default {CHECK_PRECISION})")
    p.add_argument("--seed", type=_SEED, default=1, help="0 to 2^63 - 1 (default 1)")
    p.add_argument("--workers", type=_WORKERS, default=1, help=f"local worker processes (1 to {MAX_WORKERS}; default 1)")
    p.add_argument("--max-seconds", type=positive_number,
                   help="time box of each mode's estimate (above 0); a figure it leaves undecided fails as not shown")
    p.add_argument("--choice", metavar="NAME=OPTION", action="append",
                   help="check this option of the [choices.NAME] player choice (repeatable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress report on stderr")
    p.set_defaults(func=cmd_check)


def _add_warm(sub) -> None:
    """``workbench warm``."""
    p = sub.add_parser("warm", help="compile and cache the code a game needs (make does this for the shipped games)")
    p.add_argument("game", nargs="?", metavar="GAME", type=game_argument, help="reelset path or shipped name")
    p.add_argument("--all", action="store_true", help="every shipped reelset, the gallery (reelsets/examples/) included")
    p.add_argument("--workers", type=_WORKERS, default=1,
                   help=f"compile this many games side by side, one process each (1 to {MAX_WORKERS}; default 1)")
    p.set_defaults(func=cmd_warm)


def _add_list(sub) -> None:
    """``workbench list``."""
    p = sub.add_parser("list", help="list the shipped games")
    p.set_defaults(func=cmd_list)


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

