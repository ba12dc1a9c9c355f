"""The invariants a simulation run must keep, checked from its exact integer sums and the game
(:func:`check_invariants`: the tests and benchmarks/bench_invariants.py run them over every shipped and gallery
game)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from .model import RoundModel

if TYPE_CHECKING:
    from .results import SimulationResult


@dataclass(frozen=True)
class InvariantCheck:
    """One invariant checked over a simulation: ``violations`` found among ``checked`` items, with the figures."""

    name: str
    checked: int
    violations: int
    figures: str

    @property
    def ok(self) -> bool:
        return self.violations == 0


def _cap_units(model: RoundModel) -> int | None:
    """The round's max-win cap in pay units at the model's stake (None: no cap)."""
    caps = []
    cap = getattr(model.params, "cap_units", None)
    if cap is not None and int(cap) > 0:
        caps.append(int(cap))
    elif model.cap_total_bets:
        caps.append(math.floor(Fraction(str(model.cap_total_bets)) * model.params.cost_units))
    if getattr(model, "max_win_units", 0):
        caps.append(int(model.max_win_units))
    return min(caps) if caps else None


def _cumulative_arrays(params) -> dict:
    """Every 1-D integer ``*_cum`` array of a round's parameter record (weighted draws), by field name."""
    out = {}
    for name in getattr(params, "_fields", ()):
        value = getattr(params, name)
        if name.endswith("_cum") and isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
            out[name] = value
    return out


def _mode_arrays(params) -> dict:
    """Every compiled strip-set record (a ``ModeArrays``) of a round's parameter record, by field name."""
    return {name: getattr(params, name) for name in getattr(params, "_fields", ())
            if type(getattr(params, name)).__name__ == "ModeArrays"}


def check_invariants(result: SimulationResult, exact_max_units: int | None = None) -> list[InvariantCheck]:
    """The invariants a run must keep, checked from its exact integer sums and the game.

    - ``max_win_cap``: no round above the mode's max-win cap (or, when given,
      ``exact_max_units``: the exact maximum of a game whose rounds are single
      base spins);
    - ``one_jackpot_per_wager``: the jackpot run, replayed from its random
      stream with every drop recorded, pays the same drops and never two on one
      wager;
    - ``components_sum``: the components add up to the round total exactly;
    - ``weighted_tables``: every weighted table's probabilities add up to 1
      exactly, and the compiled cumulative weights end at the table totals;
    - ``strip_set_weights``: the compiled choice weights of each mode's strip
      sets end at the mode's total weight;
    - ``cost``: RTP = total won / (rounds x cost), the cost being the game's
      ``bet.cost`` in pay units.
    """
    from ..pays.scale import pay_scale

    model = result.model
    cost = int(model.params.cost_units)
    checks = [_max_win_cap(result, cost, exact_max_units)]
    if model.jackpots and result.jackpots is not None:
        checks.append(_one_jackpot_per_wager(result))
    checks.append(_components_sum(result, cost))
    modes: dict = {}
    for mode in model.game.modes:  # the sets spins play (mystery reveals as sets of their own, model.mystery)
        modes[mode] = [s.weight for s in model.game.played_strip_sets(mode)]
    mode_cums = {m: np.cumsum([w for w in weights if w > 0]).astype(np.int64) for m, weights in modes.items()}
    checks.append(_weighted_tables(model, mode_cums))
    checks.append(_strip_set_weights(model, modes, mode_cums))
    checks.append(_cost(result, cost, pay_scale(model.game)))
    return checks


def _max_win_cap(result, cost: int, exact_max_units: int | None) -> InvariantCheck:
    n = result.spins
    top = result.max_win_units
    cap = _cap_units(result.model)
    label = "cap"
    if cap is None and exact_max_units is not None:
        cap, label = int(exact_max_units), "exact max"
    above = result.max_win_count if cap is not None and top > cap else 0
    return InvariantCheck(
        "max_win_cap", n, above,
        f"rounds {n:,}, max round win {top / cost:.6g} x total bet ({result.max_win_count:,} x), "
        f"{label} {f'{cap / cost:.6g} x total bet' if cap is not None else 'none'}")


def _one_jackpot_per_wager(result) -> InvariantCheck:
    from .jackpots import simulate_jackpots
    from .rng import STREAM_JACKPOTS, chunk_generator

    model, n = result.model, result.spins
    run = result.jackpots
    replay = simulate_jackpots(model.jackpots, model.wager, n, chunk_generator(result.seed, 0, STREAM_JACKPOTS), record=True)
    wagers = [w for w, _, _ in replay.events]
    doubles = len(wagers) - len(set(wagers))
    same = replay.drops == run.drops and replay.paid == run.paid
    bad = doubles + (0 if same else 1) + (1 if run.max_wins_per_wager > 1 else 0)
    return InvariantCheck(
        "one_jackpot_per_wager", len(wagers), bad,
        f"wagers {n:,}, jackpots {run.wins:,} ({', '.join(f'{k} {v:,}' for k, v in run.drops.items())}), most on one "
        f"wager {max(run.max_wins_per_wager, 1 if wagers else 0)}, deferred to the next wager {run.deferred:,}, "
        f"replay matches {'yes' if same else 'NO'}")


def _components_sum(result, cost: int) -> InvariantCheck:
    model = result.model
    total = result.total_won_units
    paid = [int(result.raw.comp_sum[k]) for k in range(len(model.components)) if k not in model.informational_components]
    base = sum(int(result.raw.comp_sum[k]) for k in model.exact_components)
    totals = result.component_totals()
    exact_sum = sum((v for k, v in totals.items() if not k.startswith("option:")), Fraction(0))
    bad = int(sum(paid) != total) + int(base != result.raw.base_won) + int(exact_sum != result.total_won())
    return InvariantCheck(
        "components_sum", len(paid), bad,
        f"total won {total / cost:,.6f} x total bet, sum of {len(paid)} components {sum(paid) / cost:,.6f}, "
        f"difference {(sum(paid) - total)} pay units")


def _weighted_tables(model: RoundModel, mode_cums: dict) -> InvariantCheck:
    game = model.game
    table_cums = {t.name: np.cumsum(np.asarray(t.weights, dtype=np.int64)) for t in game.tables.values()}
    bad = 0
    for table in game.tables.values():
        if table.total_weight != sum(table.weights) or sum((Fraction(w, table.total_weight) for w in table.weights),
                                                           Fraction(0)) != 1:
            bad += 1
    unmatched = []
    cums = _cumulative_arrays(model.params)
    for name, arr in cums.items():
        tables_like = [t for t, c in table_cums.items() if np.array_equal(arr, c)]
        modes_like = [m for m, c in mode_cums.items() if np.array_equal(arr, c)]
        if not tables_like and not modes_like:
            unmatched.append(name)
    bad += len(unmatched)
    return InvariantCheck(
        "weighted_tables", len(game.tables) + len(cums), bad,
        f"{len(game.tables)} tables sum to 1 exactly; {len(cums) - len(unmatched)} of {len(cums)} compiled cumulative weights "
        f"are a table's or a mode's" + (f" (not: {', '.join(unmatched)})" if unmatched else ""))


def _strip_set_weights(model: RoundModel, modes: dict, mode_cums: dict) -> InvariantCheck:
    game = model.game
    bad = 0
    for mode, weights in modes.items():
        if sum((Fraction(w, sum(weights)) for w in weights), Fraction(0)) != 1:
            bad += 1
    compiled = _mode_arrays(model.params)
    ids = {name: i for i, name in enumerate(game.symbols)}

    def compiled_from(ma, mode: str) -> bool:
        """Whether ``ma`` holds exactly the strips of ``mode``'s strip sets with weight."""
        sets = [st for st in game.played_strip_sets(mode) if st.weight > 0]
        if len(sets) != ma.length.shape[0]:
            return False
        for k, st in enumerate(sets):
            for i, strip in enumerate(st.reels):
                if ma.length[k, i] != len(strip) or ma.total_weight[k, i] != strip.total_weight:
                    return False
                if not np.array_equal(ma.symbols[k, i, :len(strip)], [ids[x] for x in strip.symbols]):
                    return False
        return True

    found = []
    for name, ma in compiled.items():
        end = int(ma.set_cum[-1])
        owners = [m for m, weights in modes.items() if compiled_from(ma, m)]
        owners = [m for m in owners if sum(modes[m]) == end and np.array_equal(ma.set_cum, mode_cums[m])]
        if not owners:
            bad += 1
        found.append(f"{name}: {end:,}" + (f" = mode {owners[0]!r}" if owners else " (no mode has these strips and weights)"))
    return InvariantCheck(
        "strip_set_weights", len(compiled), bad,
        f"{len(modes)} modes; compiled {', '.join(found) or 'none'}")


def _cost(result, cost: int, scale) -> InvariantCheck:
    game = result.model.game
    n = result.spins
    total = result.total_won_units
    expected_cost = game.bet.cost * scale.denominator
    rtp = Fraction(total, n * cost) / game.bet_mode.cost if n else Fraction(0)  # x the mode's cost, as reported
    bad = int(cost != scale.cost_units) + int(Fraction(cost) != expected_cost)
    bad += int(abs(result.game_rtp - float(rtp)) > 1e-12 * max(1.0, float(rtp)))
    bad += int(abs(result.rtp - (result.game_rtp + result.jackpot_rtp)) > 1e-12)
    return InvariantCheck(
        "cost", n, bad,
        f"cost {float(game.bet.cost):g} credits = {cost:,} pay units (x {float(game.bet_mode.cost):g} in bet mode "
        f"{game.bet_mode.name}), RTP {float(rtp):.8f} = total won / (rounds x cost), "
        f"reported {result.game_rtp:.8f}")
