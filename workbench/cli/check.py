"""The command ``check``: a game's compliance checks against a jurisdiction profile (workbench.report.compliance)."""

from __future__ import annotations

import textwrap

from .choices import with_choices
from .outputs import print_json
from .process import EXIT_FAILED, EXIT_OK, _stops_deferred

DEFAULT_PRECISION = 0.001  # 95 % half-width of each mode's RTP, x its cost (± 0.1 %)


def cmd_check(args) -> int:
    """Print the checks (or ``--json``); exit 1 when one fails, 0 when none does."""
    from ..io import load_game
    from ..report.compliance import check_game, load_profile

    profile = load_profile(args.profile)
    game = with_choices(load_game(args.game), args.choice)
    result = check_game(game, profile, precision=args.precision, seed=args.seed, workers=args.workers,
                        max_seconds=args.max_seconds, progress=not args.quiet)
    with _stops_deferred():
        if args.json:
            print_json(result.to_dict())
        else:
            print(render_checks(result))
    return EXIT_OK if result.passed else EXIT_FAILED


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
