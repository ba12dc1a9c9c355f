"""The game's math in Stake Engine's published format, for its remote game server (RGS).

A folder holds ``index.json`` (only ``modes``: each mode's ``name``, ``cost`` x the base bet, and the file names of
its ``events`` and ``weights``), per mode a lookup table ``lookUpTable_<mode>_0.csv`` (no header; rows
``id,weight,payoutMultiplier`` of unsigned integers, the payout in hundredths of the base bet) and the books
``books_<mode>.jsonl.zst`` (zstandard-compressed JSON lines, one per round: ``id``, ``payoutMultiplier``, ``events``).
The server draws a book with probability weight / total weight and shows its events.

What this writes: the first ``rounds`` rounds of ``simulate(game in the mode, rounds, seed)``, each a book of weight 1
(or the weights of ``--target-rtp``, :func:`reweight_to_rtp`).  A book's events are, in order:

- per screen of the round (with ``screens``, the default): a ``reveal`` (``board``: reels left to right, each its
  rows from the top as ``{"name": symbol}``, with ``"multiplier"`` where the screen drew one for the cell; ``step``:
  what drew it, :attr:`~workbench.simulate.trace.Step.made_by`; ``totalWin``: the round's total once it was paid,
  hundredths of the base bet, floored), then, when the pay rule's reference evaluator finds paid wins on it, a
  ``winInfo`` (per win its ``symbols``, ``positions`` as
  ``{"reel", "row"}`` from 0, and ``basePay``: its pay before any multiplier, hundredths of the base bet, floored).
  The screens come from the rounds traced as Python (:func:`~workbench.simulate.trace.trace_rounds`, a few
  milliseconds a round), whose amounts must equal the compiled rounds', or nothing is written;
- a ``win`` per paying component (the compiled round's amounts), a ``counter`` per feature count that moved (starts,
  spins, retriggers, caps) and the ``finalWin``.

Each book also names its ``round`` and the run's ``seed``, so ``workbench replay`` plays it again.

Payouts are the round's win floored to a hundredth of the base bet (the RGS takes integers); the RTP this rounding
costs is computed exactly and stated.  Must-drop jackpots, which the workbench pays from a separate stream over
wagers, are not in the books (stated).  Beside the Stake files, ``workbench_export.json`` records the game file's
SHA-256, the seed, the rounds, every file's SHA-256 and each mode's figures; :func:`check_stake_export` reloads every
file and recomputes them (it runs after every export).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from .._atomic import write_output
from ..errors import WorkbenchError
from ..io import render_text
from ..simulate.engine import round_model
from ..pays.scale import pay_scale
from ..simulate.lanes import SIMULATE_BLOCK
from ..simulate.replay import RoundPlayer, _block_stream, _cost_units
from ..simulate.trace import trace_rounds

#: the RGS's payout unit: hundredths of the base bet
PAYOUT_SCALE = 100
#: total weight of a reweighted lookup table (integers near 2^62 keep the rounding of weights far below 1e-6 of RTP)
REWEIGHT_TOTAL = 1 << 62
MANIFEST = "workbench_export.json"
#: rounds traced in one child process for their screens (one start-up each; a round takes a few milliseconds)
TRACE_PIECE = 5_000


class ExportError(WorkbenchError):
    """An export that cannot be written or whose check failed."""


@dataclass(frozen=True)
class ModeFigures:
    """A mode's figures from its lookup table: RTP (x the mode's cost), std (x the mode's cost), max win and hit
    rate (rounds with a payout, weighted)."""

    rtp: float
    std: float
    max_win: float  # x the base bet
    hit_rate: float

    def to_json(self) -> dict:
        return {"rtp": self.rtp, "std": self.std, "max_win_x_base_bet": self.max_win, "hit_rate": self.hit_rate}


def table_figures(weights: np.ndarray, payouts: np.ndarray, cost: float) -> ModeFigures:
    """:class:`ModeFigures` of a lookup table (integer weights, payouts in hundredths of the base bet)."""
    w = weights.astype(np.float64)
    total = w.sum()
    x = payouts.astype(np.float64) / PAYOUT_SCALE / cost
    mean = float((w * x).sum() / total)
    var = float((w * (x - mean) ** 2).sum() / total)
    return ModeFigures(rtp=mean, std=math.sqrt(max(var, 0.0)), max_win=float(payouts.max()) / PAYOUT_SCALE,
                       hit_rate=float(w[payouts > 0].sum() / total))


@dataclass(frozen=True)
class Reweighting:
    """The lookup table reweighted to an exact RTP with the least change of distribution: weights x exp(-mu x payout)
    (the minimum Kullback-Leibler divergence from the simulated rounds under the RTP constraint)."""

    target: float
    mu: float
    kl_divergence: float  # nats, D(new || simulated)
    rtp_before: float
    rtp_after: float
    largest_weight_ratio: float  # the largest new weight over the smallest, each x the round's simulated weight


def reweight_to_rtp(payouts: np.ndarray, cost: float, target: float) -> tuple[np.ndarray, Reweighting]:
    """Integer weights (summing to about 2^62) of equally likely rounds with ``payouts`` (hundredths of the base bet)
    whose RTP (x ``cost``) is ``target`` to 1e-9, by exponential tilting; :class:`ExportError` when the target is
    outside the payouts' range."""
    x = payouts.astype(np.float64) / PAYOUT_SCALE / cost
    lo, hi = float(x.min()), float(x.max())
    if not lo < target < hi:
        raise ExportError(f"--target-rtp {target:.6%}: the rounds' payouts run from {lo:.6g} to {hi:.6g} x the mode's "
                          f"cost, so no weighting of them reaches it")
    scale = max(float(x.std()), 1e-12)

    def tilted(mu):
        z = -mu * x
        z -= z.max()
        q = np.exp(z)
        return q / q.sum()

    def gap(mu):
        return float((tilted(mu) * x).sum()) - target

    bound = 1.0 / scale
    while gap(-bound) < 0:
        bound *= 2
    while gap(bound) > 0:
        bound *= 2
    mu = brentq(gap, -bound, bound, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    q = tilted(mu)
    weights = np.maximum(np.rint(q * REWEIGHT_TOTAL), 1).astype(np.uint64)
    n = len(x)
    kl = float(np.sum(q * np.log(np.maximum(q * n, 1e-300))))
    after = table_figures(weights, payouts, cost).rtp
    return weights, Reweighting(target=target, mu=mu, kl_divergence=kl, rtp_before=float(x.mean()), rtp_after=after,
                                largest_weight_ratio=float(q.max() / q.min()))


@dataclass
class ModeExport:
    """One mode of an export: its files (names in the folder), figures and what rounding cost."""

    name: str
    cost: float
    rounds: int
    events: str
    weights: str
    figures: ModeFigures
    simulated_rtp: Fraction  # the rounds' exact mean win before the payouts were floored, x the mode's cost
    rounding_rtp: Fraction  # the RTP the floor to hundredths of the base bet removes (exact, >= 0)
    reweighting: Reweighting | None = None
    jackpots_left_out: bool = False

    def to_json(self) -> dict:
        out = {"name": self.name, "cost": self.cost, "rounds": self.rounds, "events": self.events,
               "weights": self.weights, "figures": self.figures.to_json(),
               "simulated_rtp": float(self.simulated_rtp), "rounding_rtp": float(self.rounding_rtp),
               "jackpots_left_out": self.jackpots_left_out}
        if self.reweighting is not None:
            out["reweighting"] = {k: getattr(self.reweighting, k) for k in
                                  ("target", "mu", "kl_divergence", "rtp_before", "rtp_after", "largest_weight_ratio")}
        return out


@dataclass
class StakeExport:
    """An export's folder, seed, game file digest and modes (:class:`ModeExport`), and its check."""

    folder: Path
    game: str
    game_sha256: str
    seed: int
    modes: list = field(default_factory=list)
    check: "ExportCheck | None" = None


def _screen_events(game, trace, hundredths, credit_units: int, won: bool) -> list:
    """The ``reveal`` and ``winInfo`` events of a traced round's screens (see the module docstring); ``credit_units``:
    pay units per credit per bet multiplier; ``won``: whether the round paid (a round that paid nothing has no paid
    win to look for: the slow reference evaluator runs on the screens of paying rounds only)."""
    from ..reference.screens import paid_wins

    events = []
    for step in trace.steps:
        drawn = {(r, row): m for r, row, m in step.multipliers}
        board = [[dict({"name": sym}, **({"multiplier": drawn[(r, row)]} if (r, row) in drawn else {}))
                  for row, sym in enumerate(reel)] for r, reel in enumerate(step.screen)]
        events.append({"type": "reveal", "board": board,
                       "step": step.made_by, "totalWin": hundredths(step.total_units)})
        wins = paid_wins(game, step.screen) if won else []
        if wins:
            events.append({"type": "winInfo", "wins": [
                {"symbols": sorted({step.screen[r][row] for r, row in cells}),
                 "positions": [{"reel": r, "row": row} for r, row in sorted(cells)],
                 "basePay": hundredths(pay * credit_units)} for pay, cells in wins]})
    return events


def _played_block(game, model, player, first: int, end: int, screens: bool) -> list:
    """(amounts, counters, win in pay units, trace or None) of rounds ``first`` .. ``end - 1`` (the player's next
    rounds); with ``screens`` the same rounds traced in pieces of :data:`TRACE_PIECE`, a child process per piece and
    one piece per core at once, each round refused unless it paid what the compiled round paid."""
    from concurrent.futures import ThreadPoolExecutor

    played, starts = [], []
    for index in range(first, end):
        if (index - first) % TRACE_PIECE == 0:
            starts.append((index, min(TRACE_PIECE, end - index), player.rng.copy()))
        amounts, counters = player.play()
        played.append((amounts, counters, player.won))
    if not screens:
        return [p + (None,) for p in played]
    with ThreadPoolExecutor(max_workers=max(1, min(len(starts), os.cpu_count() or 1))) as pool:
        pieces = pool.map(lambda job: trace_rounds(model, job[2], job[1], what=f"rounds {job[0]:,} to "
                                                   f"{job[0] + job[1] - 1:,}"), starts)
        traces = [t for piece in pieces for t in piece]
    for k, ((amounts, _, _), trace) in enumerate(zip(played, traces)):
        if [trace.amounts[c] for c in model.components] != amounts.tolist():
            raise ExportError(f"{game.name}: round {first + k:,} played as Python paid {trace.amounts}, not what the "
                              f"compiled round paid: its screens cannot be written")
    return [p + (t,) for p, t in zip(played, traces)]


def _mode_rounds(game, seed: int, rounds: int, screens: bool = True):
    """(payouts in hundredths of the base bet, exact win in pay units, books' events) of rounds 0 .. rounds - 1 of
    ``simulate(game, rounds, seed)``; ``screens``: with each round's screens (traced)."""
    model = round_model(game)
    price = _cost_units(model)  # a round's price in pay units
    base_units = Fraction(model.params.cost_units)  # the base bet in pay units
    credit_units = pay_scale(game).denominator  # pay units per credit per bet multiplier

    def hundredths(units) -> int:  # pay units as hundredths of the base bet, floored
        return int(Fraction(units) * PAYOUT_SCALE / base_units // 1)

    payouts = np.zeros(rounds, dtype=np.uint64)
    exact_total = 0
    books = []
    for block in range(-(-rounds // SIMULATE_BLOCK)):
        player = RoundPlayer(model, _block_stream(seed, block))
        first, end = block * SIMULATE_BLOCK, min(rounds, (block + 1) * SIMULATE_BLOCK)
        for index, (amounts, counters, won, trace) in enumerate(_played_block(game, model, player, first, end, screens),
                                                                start=first):
            if won < 0:
                raise ExportError(f"{game.name}: round {index} paid {won} pay units (below 0)")
            exact_total += won
            payout = hundredths(won)
            payouts[index] = payout
            events = _screen_events(game, trace, hundredths, credit_units, won > 0) if trace is not None else []
            events += [{"type": "win", "component": name, "amount": hundredths(int(a))}
                       for name, a in zip(model.components, amounts) if a]
            events += [{"type": "counter", "name": name, "count": int(c)}
                       for name, c in zip(model.counters, counters) if c]
            events.append({"type": "finalWin", "amount": payout})
            books.append({"id": index + 1, "payoutMultiplier": payout,
                          "events": [{"index": k, **e} for k, e in enumerate(events)], "round": index, "seed": seed})
        player.check()
    simulated = Fraction(exact_total) / price / rounds
    floored = Fraction(int(payouts.sum()), PAYOUT_SCALE) * base_units / price / rounds
    return model, payouts, books, simulated, simulated - floored


def _exported(name: str) -> bool:
    """A file an earlier export wrote (an export folder may be written again)."""
    return (name in ("index.json", MANIFEST) or (name.startswith("books_") and name.endswith(".jsonl.zst"))
            or (name.startswith("lookUpTable_") and name.endswith("_0.csv")))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_mode(folder: Path, name: str, payouts: np.ndarray, weights: np.ndarray, books: list) -> tuple[str, str]:
    import zstandard

    events, table = f"books_{name}.jsonl.zst", f"lookUpTable_{name}_0.csv"
    text = "".join(json.dumps(b, separators=(",", ":")) + "\n" for b in books).encode()
    write_output(folder / events, zstandard.ZstdCompressor(level=9).compress(text))
    rows = io.StringIO()
    for k, (w, p) in enumerate(zip(weights.tolist(), payouts.tolist())):
        rows.write(f"{k + 1},{w},{p}\n")
    write_output(folder / table, rows.getvalue())
    return events, table


def export_stake(game, folder, *, rounds: int, seed: int, target_rtp: float | None = None,
                 modes: list[str] | None = None, screens: bool = True) -> StakeExport:
    """Write every bet mode of ``game`` (or ``modes``) to ``folder`` in Stake Engine's format, then check it
    (:func:`check_stake_export`; :class:`ExportError` if the check fails).  ``target_rtp`` (x each mode's cost):
    reweight every mode's lookup table to it (:func:`reweight_to_rtp`).  ``screens``: the books show every screen
    (``reveal`` and ``winInfo`` events; the rounds are traced, a few milliseconds each); without, outcomes only."""
    folder = Path(folder)
    names = list(game.all_bet_modes) if modes is None else list(modes)
    if names[0] != "base":
        names = ["base"] + [n for n in names if n != "base"]
    for name in names:
        if name not in game.all_bet_modes:
            raise ExportError(f"{game.name} has no bet mode {name!r} (modes: {', '.join(game.all_bet_modes)})")
        cost = float(game.in_bet_mode(name).bet_mode.cost) if name != "base" else 1.0
        if cost < 1.0:
            raise ExportError(f"{game.name}: bet mode {name!r} costs {cost:g} x the base bet; Stake Engine requires "
                              f"the base mode (1.0) to be the cheapest")
    folder.mkdir(parents=True, exist_ok=True)
    others = sorted(p.name for p in folder.iterdir() if not _exported(p.name))
    if others:
        raise ExportError(f"{folder}: holds files that are not an export ({', '.join(others[:3])}"
                          f"{' ...' if len(others) > 3 else ''}); choose an empty folder, so nothing is overwritten")
    text = render_text(game)
    out = StakeExport(folder=folder, game=game.name, game_sha256=hashlib.sha256(text.encode()).hexdigest(), seed=seed)
    for name in names:
        played = game if name == "base" else game.in_bet_mode(name)
        cost = float(played.bet_mode.cost)
        model, payouts, books, simulated, rounding = _mode_rounds(played, seed, rounds, screens)
        weights = np.ones(rounds, dtype=np.uint64)
        tilt = None
        if target_rtp is not None:
            weights, tilt = reweight_to_rtp(payouts, cost, target_rtp)
        events, table = _write_mode(folder, name, payouts, weights, books)
        out.modes.append(ModeExport(name=name, cost=cost, rounds=rounds, events=events, weights=table,
                                    figures=table_figures(weights, payouts, cost), simulated_rtp=simulated,
                                    rounding_rtp=rounding, reweighting=tilt, jackpots_left_out=bool(model.jackpots)))
    index = {"modes": [{"name": m.name, "cost": m.cost, "events": m.events, "weights": m.weights} for m in out.modes]}
    write_output(folder / "index.json", json.dumps(index, indent=4) + "\n")
    files = ["index.json"] + [f for m in out.modes for f in (m.events, m.weights)]
    manifest = {"game": game.name, "game_file": str(game.path or ""), "game_sha256": out.game_sha256, "seed": seed,
                "rounds_per_mode": rounds, "payout_unit": "hundredths of the base bet (floored)",
                "books": "each book is round 'round' of 'workbench simulate GAME --bet-mode MODE --seed SEED': "
                         "'workbench replay' plays it again",
                "screens": ("every screen of a round is a 'reveal' event (board: reels left to right, rows from the "
                            "top), its paid wins a 'winInfo' (positions from 0, basePay before multipliers)"
                            if screens else "not written (outcomes only)"),
                "files": {f: _sha256(folder / f) for f in files},
                "modes": [m.to_json() for m in out.modes]}
    write_output(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    out.check = check_stake_export(folder)
    if not out.check.ok:
        raise ExportError(f"{folder}: the export's own check failed: " + "; ".join(out.check.problems))
    return out


@dataclass
class ExportCheck:
    """What reloading an export found: per mode the figures recomputed from its files, and any problem."""

    folder: Path
    figures: dict = field(default_factory=dict)  # mode -> ModeFigures from the reloaded files
    problems: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_stake_export(folder) -> ExportCheck:
    """Reload an export (index, every lookup table, every book), check the format and that each book's payout is
    its table row's, and recompute each mode's RTP, std, max win and hit rate; compare with the manifest's."""
    import zstandard

    folder = Path(folder)
    check = ExportCheck(folder)
    try:
        index = json.loads((folder / "index.json").read_text())
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        check.problems.append(f"cannot read index.json or {MANIFEST}: {exc}")
        return check
    if set(index) != {"modes"} or any(set(m) != {"name", "cost", "events", "weights"} for m in index["modes"]):
        check.problems.append("index.json must hold only 'modes', each with only name, cost, events and weights")
    for name, digest in manifest.get("files", {}).items():
        if not (folder / name).exists() or _sha256(folder / name) != digest:
            check.problems.append(f"{name}: missing, or its SHA-256 is not the manifest's")
    stated = {m["name"]: m["figures"] for m in manifest.get("modes", [])}
    for mode in index.get("modes", []):
        name = mode["name"]
        rows = list(csv.reader((folder / mode["weights"]).read_text().splitlines()))
        if any(len(r) != 3 or not all(v.isdigit() for v in r) for r in rows):
            check.problems.append(f"{mode['weights']}: every row must be three unsigned integers")
            continue
        ids = [int(r[0]) for r in rows]
        weights = np.array([int(r[1]) for r in rows], dtype=np.uint64)
        payouts = np.array([int(r[2]) for r in rows], dtype=np.uint64)
        text = zstandard.ZstdDecompressor().decompressobj().decompress((folder / mode["events"]).read_bytes())
        books = [json.loads(line) for line in text.decode().splitlines()]
        if [b["id"] for b in books] != ids or [b["payoutMultiplier"] for b in books] != payouts.tolist():
            check.problems.append(f"{mode['events']}: the books' ids and payouts are not the lookup table's")
        if any(not isinstance(b.get("events"), list) or b["events"][-1].get("type") != "finalWin" for b in books):
            check.problems.append(f"{mode['events']}: every book needs its events, ending with finalWin")
        figures = table_figures(weights, payouts, float(mode["cost"]))
        check.figures[name] = figures
        mine = stated.get(name)
        if mine is None or any(not math.isclose(getattr(figures, k), v, rel_tol=1e-12, abs_tol=1e-12)
                               for k, v in (("rtp", mine["rtp"]), ("std", mine["std"]),
                                            ("max_win", mine["max_win_x_base_bet"]), ("hit_rate", mine["hit_rate"]))):
            check.problems.append(f"mode {name}: the figures recomputed from the files are not the manifest's")
    return check
