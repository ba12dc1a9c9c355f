"""The command ``check``: a game's compliance checks against a jurisdiction profile (workbench.report.compliance),
then its declared expectations (``[expectations]``, workbench.report.expectations)."""

from __future__ import annotations

import textwrap

from .choices import with_choices
from .outputs import print_json
from .process import EXIT_FAILED, EXIT_OK, _stops_deferred

DEFAULT_PRECISION = 0.001  # 95 % half-width of each mode's RTP, x its cost (± 0.1 %)


def cmd_check(args) -> int:
    """Print the checks and the expectations (or ``--json``); exit 1 when a check fails or a declared figure is not
    met (missed, or not shown), 0 otherwise."""
    from ..io import load_game
    from ..report.compliance import check_game, load_profile
    from ..report.expectations import check_expectations

    profile = load_profile(args.profile)
    game = with_choices(load_game(args.game), args.choice)
    result = check_game(game, profile, precision=args.precision, seed=args.seed, workers=args.workers,
                        max_seconds=args.max_seconds, progress=not args.quiet)
    expected = check_expectations(result.game, modes=result.estimates) if game.expectations else None
    with _stops_deferred():
        if args.json:
            data = result.to_dict()
            if expected is not None:
                data["expectations"] = expected.to_dict()
            print_json(data)
        else:
            print(render_checks(result))
            if expected is not None:
                print()
                print(render_expectations(expected))
    met = expected is None or expected.passed
    return EXIT_OK if result.passed and met else EXIT_FAILED


def render_checks(result) -> str:
    """The checks as text: one block per check, its result first, the evidence wrapped below it; then the awards
    rarer than the profile allows."""
    p = result.profile
    failed = len(result.failures)
    lines = [f"Compliance of {result.game.name} against {p.name} ({p.path})", f"  {p.description}", ""]
    for c in result.checks:
        lines.append(f"  {c.status.upper():<15} {c.check}: {c.scope}")
        lines += textwrap.wrap(c.evidence, 100, initial_indent=" " * 18, subsequent_indent=" " * 18)
    rare = result.awards[result.awards["result"] == "fail"]
    if len(rare):
        lines += ["", f"  awards rarer than 1 in {p.award_odds:,} games:"]
        lines += [f"    {award:<24} {odds:<24} {where}" for award, odds, where, _ in rare.itertuples(index=False)]
    lines += ["", f"  {'every check passed' if not failed else f'{failed} check(s) failed'} "
                  f"({len(result.checks)} checks)"]
    return "\n".join(lines)


def render_expectations(expected) -> str:
    """The declared expectations as text: one block per figure, its verdict first, declared and measured below it."""
    from ..report.expectations import FIGURES

    lines = [f"Expectations of {expected.game} (declared in [expectations])", ""]
    for v in expected.verdicts:
        lines.append(f"  {v.verdict.upper():<15} {FIGURES[v.figure]}: {'base game' if v.mode == 'base' else 'bet mode ' + v.mode}")
        interval = "" if v.interval in ("exact", "") else f"95 %: {v.interval}; "
        text = f"declared {v.declared}; measured {v.measured} ({interval}{v.method}): {v.evidence}"
        # a number and its unit stay on one line
        lines += [line.replace("\0", " ") for line in textwrap.wrap(
            text.replace(" %", "\0%").replace(" x ", "\0x "), 100, initial_indent=" " * 18, subsequent_indent=" " * 18)]
    failed = len(expected.failures)
    lines += ["", f"  {'every declared figure met' if not failed else f'{failed} declared figure(s) not met'} "
                  f"({len(expected.verdicts)} declared)"]
    return "\n".join(lines)
