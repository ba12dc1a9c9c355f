"""The commands ``replay`` and ``find``: one round of a seeded simulation again, and the rounds that meet conditions."""

from __future__ import annotations

import sys

from .choices import with_choices
from .outputs import print_json
from .process import EXIT_OK


def add_replay(sub, seed_type, spins_type, round_type, game_type, stake_type) -> None:
    """``workbench replay``."""
    p = sub.add_parser("replay", help="play round N of 'workbench simulate GAME --seed S' again and show what it paid "
                                      "(the same round whatever the workers or chunk size)")
    p.add_argument("game", metavar="GAME", type=game_type, help="reelset path or shipped name")
    p.add_argument("--seed", type=seed_type, default=1, help="the run's seed: 0 to 2^63 - 1 (default 1)")
    p.add_argument("--round", type=round_type, required=True, help="the round's index in the run, from 0")
    p.add_argument("--stake", type=stake_type, help="the run's total bet in currency (default: the reference stake)")
    p.add_argument("--bet-mode", metavar="NAME", help="the run's [bet_modes.*] (default: the base game)")
    p.add_argument("--choice", metavar="NAME=OPTION", action="append", help="the run's player choices (repeatable)")
    p.add_argument("--trace", action="store_true",
                   help="also show every screen of the round with the running total (the round played again as "
                        "Python, checked against the compiled round)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_replay)


def add_find(sub, seed_type, spins_type, round_type, game_type, stake_type) -> None:
    """``workbench find``."""
    p = sub.add_parser("find", help="list the rounds of 'workbench simulate GAME --seed S --spins N' that meet "
                                    "conditions, each replayable with 'workbench replay'")
    p.add_argument("game", metavar="GAME", type=game_type, help="reelset path or shipped name")
    p.add_argument("--seed", type=seed_type, default=1, help="the run's seed: 0 to 2^63 - 1 (default 1)")
    p.add_argument("--spins", type=spins_type, default=1_000_000, help="the run's rounds (default 1,000,000)")
    p.add_argument("--where", required=True,
                   help="'max' (the round of the largest win), or conditions joined by 'and': 'win >= 1000' (x the "
                        "round's price), a component ('free_spins >= 50') or a counter ('free_spins:retriggers >= 3')")
    p.add_argument("--limit", type=round_type, default=50, help="most rounds listed, the first in round order (default 50)")
    p.add_argument("--stake", type=stake_type, help="the run's total bet in currency (default: the reference stake)")
    p.add_argument("--bet-mode", metavar="NAME", help="the run's [bet_modes.*] (default: the base game)")
    p.add_argument("--choice", metavar="NAME=OPTION", action="append", help="the run's player choices (repeatable)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_find)


def _game(args):
    from ..io import load_game
    from .commands import _in_bet_mode

    return _in_bet_mode(with_choices(load_game(args.game), args.choice), args.bet_mode)


def _win_text(r) -> str:
    return f"{float(r.win):,.4f}".rstrip("0").rstrip(".")


def cmd_replay(args) -> int:
    from ..simulate.engine import round_model
    from ..simulate.replay import replay_round

    game = _game(args)
    model = round_model(game, args.stake)
    r = replay_round(game, args.seed, args.round, stake=args.stake, model=model)
    trace = None
    if args.trace:
        from ..simulate.trace import trace_round

        trace = trace_round(model, r)
    wins = _step_wins(game, trace, r.win_units > 0) if trace is not None else []
    if args.json:
        out = r.to_json()
        if trace is not None:
            out["steps"] = [dict(s.to_json(), wins=w) for s, w in zip(trace.steps, wins)]
        print_json(out)
        return EXIT_OK
    print(f"{r.game} ({'base game' if r.bet_mode == 'base' else 'bet mode ' + r.bet_mode}), seed {r.seed}, "
          f"round {r.round:,}" + (f" (stake {r.stake:g})" if r.stake is not None else ""))
    print(f"  win               {_win_text(r)} {r.unit} ({r.win_units:,} pay units of {float(r.cost_units):,g} per round)")
    for name, units in r.components.items():
        if units:
            print(f"  paid {name:25s} {float(units / r.cost_units):,.4f} {r.unit} ({units:,} pay units)")
    for name, count in r.counters.items():
        if count:
            print(f"  counted {name:22s} {count:,}")
    print(f"  random stream     SFC64 state {' '.join(format(v, 'x') for v in r.rng_state[:4])} at the round's start")
    if trace is not None:
        _print_steps(trace, r, wins, game.pays.rule)
    sys.stdout.flush()
    return EXIT_OK


def _step_wins(game, trace, won: bool) -> list:
    """Per step, the paid wins the pay rule's reference evaluator finds on its screen: ``symbols``, ``cells``
    ([reel, row] from 0) and ``pay_before_multipliers`` (x total bet, exact as a fraction's text and as a float)."""
    from ..pays.scale import pay_scale
    from ..reference.screens import paid_wins

    scale = pay_scale(game)
    out = []
    for step in trace.steps:
        found = paid_wins(game, step.screen) if won else []  # (a round that paid nothing shows no paid win)
        out.append([{"symbols": sorted({step.screen[reel][row] for reel, row in cells}),
                     "cells": [[reel, row] for reel, row in sorted(cells)],
                     "pay_before_multipliers": float(pay * scale.denominator / scale.cost_units),
                     "pay_before_multipliers_exact": str(pay * scale.denominator / scale.cost_units)}
                    for pay, cells in found])
    return out


def _print_steps(trace, r, wins: list, rule: str) -> None:
    """The steps' screens, each with the wins its pay rule (``rule``) finds there (scatters, awards and features are
    in the round's amounts above)."""
    if not trace.steps:
        print("  screens           this round's screens were not recorded (its outcome above was)")
        return
    print(f"  screens           {len(trace.steps)} (reels left to right, rows from the top; the round's total so far)")
    for step in trace.steps:
        total = float(step.total_units / r.cost_units)
        print(f"  step {step.index + 1:<3d} {step.made_by:28s} total {total:,.4f} {r.unit}")
        width = max(len(sym) for reel in step.screen for sym in reel)
        for row in range(max(len(reel) for reel in step.screen)):
            cells = [reel[row] if row < len(reel) else "" for reel in step.screen]
            print("      " + " ".join(f"{c:>{width}s}" for c in cells))
        if step.multipliers:
            print("      multipliers drawn: " + ", ".join(f"reel:row {r + 1}:{row + 1} x{m}" for r, row, m in step.multipliers))
        for win in wins[step.index]:
            where = " ".join(f"{reel + 1}:{row + 1}" for reel, row in win["cells"])
            print(f"      {rule} win {', '.join(win['symbols'])} at reel:row {where}, "
                  f"{win['pay_before_multipliers']:,.4f} x total bet before multipliers")


def cmd_find(args) -> int:
    from ..simulate.replay import find_rounds

    game = _game(args)
    found = find_rounds(game, args.seed, args.spins, args.where, stake=args.stake, limit=args.limit)
    if args.json:
        print_json({"game": game.name, "bet_mode": game.bet_mode.name, "seed": found.seed, "spins": found.spins,
                    "where": found.where, "searched": found.searched, "complete": found.complete,
                    "rounds": [r.to_json() for r in found.rounds]})
        return EXIT_OK
    unit = found.rounds[0].unit if found.rounds else "x total bet"
    searched = (f"all {found.spins:,} rounds" if found.complete
                else f"the first {found.searched:,} of {found.spins:,} rounds (--limit {found.limit} reached)")
    print(f"{game.name}, seed {found.seed}: {len(found.rounds):,} round(s) where {found.where} in {searched}")
    if found.rounds:
        print(f"  {'round':>12s}  {'win (' + unit + ')':>20s}  what happened")
    for r in found.rounds:
        print(f"  {r.round:>12,}  {_win_text(r):>20s}  {r.happened()}")
    if found.rounds:
        print(f"  replay one: workbench replay {args.game} --seed {found.seed} --round {found.rounds[0].round}")
    sys.stdout.flush()
    return EXIT_OK


def add_export(sub, seed_type, spins_type, round_type, game_type, stake_type) -> None:
    """``workbench export``."""
    from .args import path_text, rtp_number

    p = sub.add_parser("export", help="write the game's bet modes for a game server (Stake Engine's format: "
                                      "index.json, lookup tables, zstandard books), then reload and check them")
    p.add_argument("game", metavar="GAME", type=game_type, help="reelset path or shipped name")
    p.add_argument("--format", choices=["stake"], default="stake", help="the format (default: stake)")
    p.add_argument("--rounds", type=spins_type, default=100_000, help="rounds (books) per mode (default 100,000)")
    p.add_argument("--seed", type=seed_type, default=1, help="the simulation's seed: 0 to 2^63 - 1 (default 1)")
    p.add_argument("--out", metavar="DIR", type=path_text, required=True, help="an empty folder (or an earlier export)")
    p.add_argument("--bet-mode", metavar="NAME", action="append",
                   help="export this mode (repeatable; the base game always comes first); default: every mode")
    p.add_argument("--target-rtp", type=rtp_number, metavar="RTP",
                   help="reweight each mode's lookup table to this RTP (0.96 or 96%%) with the least change of "
                        "distribution (minimum Kullback-Leibler divergence), and print how far the weights moved")
    p.add_argument("--no-screens", dest="screens", action="store_false",
                   help="books without the rounds' screens (reveal and winInfo events): outcomes only, written at the "
                        "simulator's speed (with screens every round is also traced, a few milliseconds each)")
    p.add_argument("--json", action="store_true", help="print the manifest as JSON")
    p.set_defaults(func=cmd_export)


def cmd_export(args) -> int:
    import json

    from ..export import export_stake
    from ..io import load_game
    from .outputs import check_output_folder

    check_output_folder(args.out)
    game = load_game(args.game)
    done = export_stake(game, args.out, rounds=args.rounds, seed=args.seed, target_rtp=args.target_rtp,
                        modes=args.bet_mode, screens=args.screens)
    if args.json:
        print_json(json.loads((done.folder / "workbench_export.json").read_text()))
        return EXIT_OK
    print(f"{game.name}: {len(done.modes)} mode(s) written to {done.folder} in Stake Engine's format "
          f"({args.rounds:,} rounds per mode, seed {done.seed}; game file SHA-256 {done.game_sha256[:16]}...)")
    print(f"  {'mode':14s} {'cost':>8s} {'RTP':>10s} {'std':>9s} {'max win':>10s} {'hit rate':>9s}  (from the files, "
          f"x the mode's cost; max win x the base bet)")
    for m in done.modes:
        f = done.check.figures[m.name]
        print(f"  {m.name:14s} {m.cost:8.2f} {100 * f.rtp:9.4f}% {f.std:9.4f} {f.max_win:10.2f} {100 * f.hit_rate:8.4f}%")
        if m.rounding_rtp:
            print(f"  {'':14s} payouts floored to 1/100 of the base bet: {100 * float(m.rounding_rtp):.6f} % RTP less")
        if m.reweighting is not None:
            r = m.reweighting
            print(f"  {'':14s} reweighted from {100 * r.rtp_before:.4f} % to {100 * r.rtp_after:.6f} %: KL divergence "
                  f"{r.kl_divergence:.6g} nats, weights moved up to {r.largest_weight_ratio:.4g}x apart")
        if m.jackpots_left_out:
            print(f"  {'':14s} note: must-drop jackpots are not in the books (the RGS format has no jackpot pool)")
    print("  check: every file reloaded; books match the lookup tables; figures recomputed: ok")
    sys.stdout.flush()
    return EXIT_OK
