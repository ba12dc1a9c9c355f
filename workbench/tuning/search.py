"""The search: fewest stop and weight changes whose exact figures reach the bands.

:func:`search` is one search with the feature terms held as given (see
docs/tuning.md, "What it optimises"): each step measures, exactly, the effect
of one swap per reel and symbol (one unit of weight per entry), solves a small
integer programme (:func:`scipy.optimize.milp`) for the fewest changes from
the original whose linear effect lands in the bands, places the swaps on the
strips (strip rules checked) and measures the result exactly.  Whether the
tuned file's RTP really is in its band is for
:mod:`workbench.tuning.confirm` to check.
"""

from __future__ import annotations

import difflib
import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from ..errors import ReelsetError, TargetUnreachableError, TuningError
from ..model import Game
from ..simulate import round_model
from .figures import FeatureTerms, Keep, measure, parse_keep
from .result import StopChange, TuneResult, WeightChange
from .vary import _Point, _default_strip_set, _groups, _moved, _resolve_vary, _special_symbols, _value


#: the default tolerance of an exact RTP (a game without simulated features, or --base-only)
DEFAULT_TOLERANCE = 0.0001
DEFAULT_MAX_STEPS = 12
# weights of the integer programme's objective: one changed stop costs 1; missing the RTP band by its
# half-width costs RTP_PENALTY, missing a kept band by its half-width KEEP_PENALTY (a keep binds harder)
RTP_PENALTY = 1e3
KEEP_PENALTY = 1e4
MOVE_COST = 0.05  # per count moved from the point where the effects were measured (keeps steps short)
GROUPS_PER_STEP = 1  # reels, tables or strip-set weights changed in one step
MILP_SECONDS = 1.0  # per integer programme: its first good solutions come fast, proofs of optimality do not
PLACES_TRIED = 4  # stops tried for each swap when a kept figure depends on where it goes
BAND_MARGIN = 0.5  # aim the linear model at this fraction of each band, so its error still lands inside
# the figures a quick exact PAR may leave out (workbench.exact.par): the steps compute them only when kept
SLOW_FIGURES = frozenset({"hit_frequency", "std", "volatility_index_90", "volatility_index_95", "max_win"})


@dataclass
class _Search:
    game: Game
    mode: str
    set_name: str
    groups: list
    keeps: tuple
    target: float
    tolerance: float
    max_changes: int | None
    terms: FeatureTerms
    strata: bool
    progress: Callable | None
    evaluations: int = 0
    cache: dict = field(default_factory=dict)
    quick: bool = False  # the steps read the RTP and the trigger rates only (no kept figure needs the slow ones)

    def start(self) -> _Point:
        game, reels = self.game, self.game.strip_sets[self.set_name].reels
        tables = tuple((g.where, tuple(game.tables[g.where].weights)) for g in self.groups if g.kind == "table")
        sets = next(((tuple((n, game.strip_sets[n].weight) for n in g.items)) for g in self.groups if g.kind == "sets"), ())
        return _Point(tuple(tuple(r.symbols) for r in reels), tuple(r.weights for r in reels), tables, sets)

    def build(self, point: _Point) -> Game:
        """The original game with ``point``'s values (one edit per changed reel, table or weight)."""
        game, origin = self.game, self.start()
        for i, (symbols, weights) in enumerate(zip(point.strips, point.stop_weights)):
            if symbols != origin.strips[i] or weights != origin.stop_weights[i]:
                game = game.with_strip(self.set_name, i + 1, symbols, weights)
        for (name, weights), (_, old) in zip(point.tables, origin.tables):
            if weights != old:
                game = game.with_table_weights(name, weights)
        for (name, weight), (_, old) in zip(point.set_weights, origin.set_weights):
            if weight != old:
                game = game.with_strip_set_weight(name, weight)
        return game

    def measure(self, point: _Point) -> dict:
        if point not in self.cache:
            self.cache[point] = measure(self.build(point), self.mode, self.terms, self.strata, quick=self.quick)
            self.evaluations += 1
            if self.progress is not None:
                self.progress(self.evaluations)
        return self.cache[point]

    # -- placing swaps on a strip ------------------------------------------
    def spots(self, point: _Point, reel: int, old: str, new: str) -> list:
        """Stops of ``old`` on ``reel`` where ``new`` may go, best first: undoing an earlier change, then a stop
        already changed, then fewest neighbours equal to ``new`` (no stacks made by accident), then farthest
        from the other ``new`` stops (spread evenly), then the lowest stop; each keeps the strip valid."""
        strip = point.strips[reel]
        original = self.game.strip_sets[self.set_name].reels[reel].symbols
        n = len(strip)
        others = [k for k in range(n) if strip[k] == new]

        def score(k: int):
            revert = original[k] == new  # one stop fewer changed
            changed = original[k] != strip[k]  # no extra stop changed
            stacked = (strip[k - 1] == new) + (strip[(k + 1) % n] == new)
            gap = min((min(abs(k - j), n - abs(k - j)) for j in others), default=n)
            return (not revert, not changed, stacked, -gap, k)

        out = []
        for k in sorted((k for k in range(n) if strip[k] == old), key=score):
            trial = list(strip)
            trial[k] = new
            try:
                self.game.with_strip(self.set_name, reel + 1, trial, point.stop_weights[reel])
            except ReelsetError:
                continue  # e.g. more of a symbol visible at once than its max_visible allows
            out.append(k)
        return out

    @staticmethod
    def place(point: _Point, reel: int, at: int, new: str) -> _Point:
        strips = list(point.strips)
        row = list(strips[reel])
        row[at] = new
        strips[reel] = tuple(row)
        return replace(point, strips=tuple(strips))

    def apply(self, point: _Point, deltas: dict, effects: dict, metrics: list) -> _Point | None:
        """``point`` with the changes ``deltas[(group, item)]``; symbol counts placed one swap at a time.

        Figures can depend on where a stop is, not only on counts (hit
        frequency, ways and pay-anywhere pays depend on whole windows), so each
        swap goes to the one of the best :data:`PLACES_TRIED` stops whose exact
        effect is closest to the planned one: the plan the integer programme
        made then holds.
        """
        scales = [self.tolerance] + [max(k.half_width, 1e-12) for k in self.keeps]
        for g, group in enumerate(self.groups):
            mine = {item: d for (gi, item), d in deltas.items() if gi == g and d}
            if not mine:
                continue
            if group.kind != "counts":
                point = _moved(point, group, mine)
                continue
            reel = group.where
            minus = [s for s in group.items for _ in range(max(0, -mine.get(s, 0)))]
            plus = [s for s in group.items for _ in range(max(0, mine.get(s, 0)))]
            for old, new in zip(minus, plus):
                spots = self.spots(point, reel, old, new)
                if not spots:
                    return None
                if len(spots) == 1:
                    point = self.place(point, reel, spots[0], new)
                    continue
                planned = effects.get((g, new), 0) - effects.get((g, old), 0)
                now = self.measure(point)
                best = None
                for k in spots[:PLACES_TRIED]:
                    trial = self.place(point, reel, k, new)
                    m = self.measure(trial)
                    gap = sum(abs(m[x] - now[x] - planned[i]) / scales[i] for i, x in enumerate(metrics))
                    if best is None or gap < best[0]:
                        best = (gap, trial)
                point = best[1]
        return point

    # -- one step ----------------------------------------------------------
    def effects(self, point: _Point, base: dict, metrics: list) -> dict:
        """Exact effect on ``metrics``, per unit, of one more of each item of each group against one fewer of the
        group's largest item (so moving a unit from item a to item b has the effect e[b] - e[a])."""
        out = {}
        for g, group in enumerate(self.groups):
            values = [_value(point, group, item) for item in group.items]
            ref_index = max(range(len(values)), key=lambda i: (values[i] - group.floor[i], -i))
            ref = group.items[ref_index]
            out[(g, ref)] = np.zeros(len(metrics))
            step = min(group.step, values[ref_index] - group.floor[ref_index])
            if step <= 0:
                continue
            for item in group.items:
                if item == ref:
                    continue
                if group.kind == "counts":
                    spots = self.spots(point, group.where, ref, item)
                    if not spots:
                        continue  # no valid stop: this symbol does not move on this reel in this step
                    trial = self.place(point, group.where, spots[0], item)
                else:
                    trial = _moved(point, group, {ref: -step, item: step})
                m = self.measure(trial)
                out[(g, item)] = np.array([m[k] - base[k] for k in metrics]) / step
        return out

    def solve(self, point: _Point, base: dict, effects: dict, *, drop: str | None = None,
              radius: int | None = None) -> tuple[dict, float] | None:
        """Changes from ``point`` with the fewest changed stops and weights (against the original) whose linear
        effect lands in the bands; returns (changes, miss of the bands in penalty units) or None if the solver
        fails.  ``drop`` leaves out one constraint (to find the one that binds); ``radius`` bounds each change
        from ``point`` in steps (a trust region: the linear model is good near where it was measured)."""
        origin = self.start()
        keys = sorted(effects, key=lambda k: (k[0], str(k[1])))
        n = len(keys)
        bands = [("rtp", self.target - self.tolerance * BAND_MARGIN, self.target + self.tolerance * BAND_MARGIN, RTP_PENALTY)]
        for k in self.keeps:
            if drop != f"keep:{k.metric}":
                margin = k.half_width * (1 - BAND_MARGIN)
                bands.append((k.metric, k.low + margin, k.high - margin, KEEP_PENALTY))
        metrics = self._metrics()
        m = len(bands)
        group_ids = sorted({g for g, _ in keys})
        ng = len(group_ids)
        # variables: d (n, integer: change from point), u, v (n: new - original = u - v), slack below, above (m),
        # w (n) >= |d|, y (n, binary: a weight differs from the original), z (ng, binary: the group this step
        # changes).  One group per step: within one reel the effects add up exactly (line pays are linear in each
        # reel's counts), across reels they multiply
        D, U, V, SL, SH, W, Y, Z = 0, n, 2 * n, 3 * n, 3 * n + m, 3 * n + 2 * m, 4 * n + 2 * m, 5 * n + 2 * m
        nv = Z + ng
        c = np.zeros(nv)
        lower = np.zeros(nv)
        upper = np.full(nv, np.inf)
        integrality = np.zeros(nv)
        integrality[[*range(D, D + n), *range(Y, Y + n), *range(Z, Z + ng)]] = 1
        integrality[U:U + 2 * n] = [1 if self.groups[g].kind == "counts" else 0 for g, _ in keys] * 2
        upper[Y:Y + n] = 1
        upper[Z:Z + ng] = 1
        rows, lo, hi = [], [], []

        def add(entries: dict, low: float, high: float) -> None:
            row = np.zeros(nv)
            for j, value in entries.items():
                row[j] = value
            rows.append(row)
            lo.append(low)
            hi.append(high)

        for j, (g, item) in enumerate(keys):
            group = self.groups[g]
            now, was = _value(point, group, item), _value(origin, group, item)
            total = sum(_value(point, group, i) for i in group.items)
            floor = 0 if drop == "counts" else group.floor[group.items.index(item)]
            lower[D + j] = min(floor - now, 0)
            upper[D + j] = total
            if radius is not None:
                lower[D + j] = max(lower[D + j], -radius * group.step)
                upper[D + j] = min(upper[D + j], radius * group.step)
            add({D + j: 1, U + j: -1, V + j: 1}, was - now, was - now)  # now + d - was = u - v
            add({D + j: 1, W + j: -1}, -np.inf, 0)
            add({D + j: -1, W + j: -1}, -np.inf, 0)
            add({W + j: 1, Z + group_ids.index(g): -total}, -np.inf, 0)
            if group.kind == "counts":
                c[U + j] = c[V + j] = 0.5  # a swap moves two counts by one
                c[W + j] = MOVE_COST
            else:
                add({U + j: 1, V + j: 1, Y + j: -2 * total}, -np.inf, 0)
                c[Y + j] = 1  # one weight changed costs as much as one stop swapped
                c[U + j] = c[V + j] = c[W + j] = MOVE_COST / max(group.step, 1)
        for g in group_ids:
            add({D + j: 1 for j, (gi, _) in enumerate(keys) if gi == g}, 0, 0)  # the group's total stays
        add({Z + i: 1 for i in range(ng)}, 0, GROUPS_PER_STEP)
        for b, (metric, low, high, penalty) in enumerate(bands):
            scale = max((high - low) / 2, 1e-12)
            idx = metrics.index(metric)
            entries = {D + j: effects[key][idx] / scale for j, key in enumerate(keys)}
            entries[SL + b] = 1
            entries[SH + b] = -1
            add(entries, (low - base[metric]) / scale, (high - base[metric]) / scale)
            c[SL + b] = c[SH + b] = penalty
        if self.max_changes is not None and drop != "max_changes":
            add({**{U + j: 1 for j, (g, _) in enumerate(keys) if self.groups[g].kind == "counts"},
                 **{Y + j: 1 for j, (g, _) in enumerate(keys) if self.groups[g].kind != "counts"}}, 0, self.max_changes)
        res = milp(c, constraints=LinearConstraint(np.array(rows), lo, hi), integrality=integrality,
                   bounds=Bounds(lower, upper), options={"time_limit": MILP_SECONDS, "mip_rel_gap": 0.02})
        if res.x is None:
            return None
        x = res.x
        changes = {key: int(round(x[D + j])) for j, key in enumerate(keys) if round(x[D + j]) != 0}
        return changes, float(sum(c[SL + b] * (x[SL + b] + x[SH + b]) for b in range(m)))

    def _metrics(self) -> list:
        return ["rtp"] + [k.metric for k in self.keeps]

    def changed(self, point: _Point) -> int:
        """Stops and weights that differ from the original."""
        origin = self.start()
        stops = sum(a != b for new, old in zip(point.strips, origin.strips) for a, b in zip(new, old))
        weights = sum(a != b for new, old in zip(point.stop_weights, origin.stop_weights) if new is not None
                      for a, b in zip(new, old))
        weights += sum(a != b for (_, new), (_, old) in zip(point.tables, origin.tables) for a, b in zip(new, old))
        weights += sum(a != b for a, b in zip(point.set_weights, origin.set_weights))
        return stops + weights

    def miss(self, m: dict) -> float:
        """How far the figures are from their bands, in units of each band's half-width (0 = all in)."""
        out = max(0.0, abs(m["rtp"] - self.target) - self.tolerance) / self.tolerance * RTP_PENALTY
        for k in self.keeps:
            gap = max(0.0, k.low - m[k.metric], m[k.metric] - k.high)
            out += gap / max(k.half_width, 1e-12) * KEEP_PENALTY
        return out


def find_edit(
    game: Game,
    target_rtp: float,
    *,
    terms: FeatureTerms,
    mode: str = "base",
    strip_set: str | None = None,
    keep: Iterable[str | Keep] = (),
    vary: Iterable[str] | None = None,
    tables: Iterable[str] = (),
    strip_set_weights: bool = False,
    stop_weights: bool = False,
    max_changes: int | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    max_steps: int = DEFAULT_MAX_STEPS,
    progress: Callable[[int], None] | None = None,
) -> TuneResult:
    """One search: as few stops and weights changed as needed for the RTP :func:`measure` gives, with the feature
    terms held as ``terms``, to be ``target_rtp`` ± ``tolerance``; the result is not confirmed (see
    :func:`workbench.tuning.tune`, which calls this).

    ``target_rtp`` and ``tolerance`` are fractions (0.9618, 0.0001) of the cost
    of ``game``'s bet mode (x total bet in the base game).  ``keep`` holds
    figures in bands (:func:`parse_keep` strings or :class:`Keep`).  What may
    change: ``vary``, the symbols whose counts may change on the reels of
    ``strip_set`` (of strip-set mode ``mode``; default: every one-stop symbol
    that is not a wild, scatter or bonus symbol; ``()`` for none; a reel keeps
    its length and at least one of each it had); ``tables``, tables whose entry
    weights may move (their total stays); ``strip_set_weights``, the choice
    weights of the mode's strip sets; ``stop_weights``, the stop weights of the
    strip set's weighted reels.  ``max_changes`` caps the stops and weights
    changed.  ``progress(evaluations)`` is called after each exact evaluation.

    Raises :class:`~workbench.errors.TargetUnreachableError` (naming the binding
    constraint, with the closest result) if no edit reaches the bands, and
    :class:`~workbench.errors.TuningError` for a bad request.
    """
    start = time.perf_counter()
    target, tolerance, set_name = _check_request(game, target_rtp, tolerance, max_changes, mode, strip_set)
    vary_map = _resolve_vary(game, set_name, vary)
    tables = tuple(tables)
    groups = _groups(game, mode, set_name, vary_map, tables, strip_set_weights, stop_weights)
    _check_terms(game, mode, terms, moves_base_stops=bool(vary_map or stop_weights))
    varied = {s for symbols in vary_map.values() for s in symbols}
    # the trigger states' probabilities move with trigger symbols, tables (random features) and strip-set weights
    strata = terms.present and bool(varied & _special_symbols(game) or tables or strip_set_weights or stop_weights)
    search = _Search(game, mode, set_name, groups, (), target, tolerance, None if max_changes is None else int(max_changes),
                     terms, strata, progress)
    before = search.measure(search.start())  # "search": the state of this search (the function is find_edit)
    keeps = tuple(k if isinstance(k, Keep) else parse_keep(k, before) for k in keep)
    search.keeps = keeps
    search.quick = not any(k.metric in SLOW_FIGURES for k in keeps)
    metrics = search._metrics()
    coarse = _prepare_weight_groups(search, before, metrics)
    best, steps = _run(search, before, metrics, max_steps)
    notes: tuple = ()
    if best[0] > 0 and coarse:
        # whole units of some weights are too coarse for the tolerance: try again with them refined
        unrefined = (search.game, list(search.groups), best, steps)
        notes = _refine(search, coarse)
        best, more = _run(search, before, metrics, max_steps)
        steps += more
        if best[0] > 0 and best[:2] >= unrefined[2][:2]:
            search.game, search.groups, best, _ = unrefined  # refining did not help: keep the file's weights
            notes = ()
    point0 = search.start()
    point = best[2]
    tuned = search.build(point)
    after = measure(tuned, search.mode, search.terms, search.strata)  # every figure, as ``before``
    result = TuneResult(
        game=tuned, original=game, target=target, tolerance=tolerance, mode=mode, strip_set=set_name,
        vary=tuple(sorted(varied, key=list(game.symbols).index)), keeps=keeps, before=before, after=after,
        changes=_changes(set_name, point0.strips, point.strips), terms=terms, steps=steps, evaluations=search.evaluations,
        elapsed=time.perf_counter() - start, max_changes=search.max_changes,
        weight_changes=_weight_changes(search, _Search.start(replace(search, game=game)), point),
        varied_weights=_weight_labels(search.groups), notes=notes, bet_mode=game.bet_mode.name,
        unit=_unit(game),
        state_probabilities=_state_probabilities(tuned) if strata else None,
    )
    if not result.in_band:
        binding, closest = _binding(search, point, after, metrics)
        raise TargetUnreachableError(_unreachable_message(result, binding, closest), binding, result)
    return result


def _check_request(game: Game, target_rtp, tolerance, max_changes, mode: str, strip_set: str | None) -> tuple:
    """(target, tolerance, strip set) of a search request, or :class:`~workbench.errors.TuningError` saying what is
    wrong with it."""
    try:
        target = float(target_rtp)
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise TuningError(f"target RTP and tolerance must be numbers, got {target_rtp!r} and {tolerance!r}") from None
    if not 0 < target < 10 or not 0 < tolerance < 1:
        raise TuningError(f"target RTP must be a fraction of total bet (0.9618 for 96.18 %), got {target_rtp!r}; "
                          f"tolerance a fraction above 0, got {tolerance!r}")
    if max_changes is not None and (isinstance(max_changes, bool) or int(max_changes) != max_changes or max_changes < 1):
        raise TuningError(f"--max-changes must be a whole number of stops, 1 or more, got {max_changes!r}")
    if mode not in game.modes:
        raise TuningError(f"{game.path or game.name}: no mode {mode!r} (modes: {', '.join(game.modes)})")
    set_name = strip_set or _default_strip_set(game, mode)
    if set_name not in game.strip_sets:
        hint = difflib.get_close_matches(set_name, list(game.strip_sets), n=1)
        raise TuningError(f"{game.path or game.name}: no strip set {set_name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                          + f"; strip sets: {', '.join(game.strip_sets)}")
    if game.strip_sets[set_name].mode != mode:
        raise TuningError(f"{game.path or game.name}: strip set {set_name!r} is of mode {game.strip_sets[set_name].mode!r}, "
                          f"not {mode!r}: pass --mode {game.strip_sets[set_name].mode}")
    return target, tolerance, set_name


def _check_terms(game: Game, mode: str, terms: FeatureTerms, moves_base_stops: bool) -> None:
    """Refuses a search whose held feature terms cannot be held: a mode played inside a simulated feature, or base
    stops changing under simulated parts that depend on every one of them (a tumble's cascades)."""
    proxy = terms.proxy
    if mode != "base" and terms.present and not (proxy is not None and proxy.kind == "strips" and proxy.where == mode):
        raise feature_mode_refusal(game, mode)
    if terms.moves_with_base_strips and moves_base_stops and mode == "base":
        raise base_moving_refusal(game, [f"'{n}', {100 * terms.means[n]:.2f} % of the bet"
                                         for n in terms.moves_with_base_strips])


def base_moving_refusal(game: Game, parts: list) -> TuningError:
    """Why simulated parts that move with every base stop (``parts``, described) are not held while stops change."""
    many = len(parts) > 1
    return TuningError(f"{game.path or game.name}: the simulated part{'s' if many else ''} of the whole-game RTP "
                       f"({', '.join(parts)}) depend{'' if many else 's'} on every stop of the base strips (a tumble's "
                       "cascades), so they cannot be held while stops change: tune the first drop's exact RTP with "
                       "--base-only, then check the whole game with `workbench rtp`")


def feature_mode_refusal(game: Game, mode: str) -> TuningError:
    """Why the strips of a mode played inside a simulated feature are not tuned to a whole-game RTP."""
    buys = [name for name, m in game.bet_modes.items() if m.buy]
    return TuningError(f"{game.path or game.name}: mode {mode!r} is played inside a simulated feature: tuning its "
                       "strips to a whole-game RTP needs the feature re-estimated at every step, which the tuner "
                       f"does not do; tune its RTP per spin exactly with --base-only --mode {mode}, then "
                       "check the whole game with `workbench rtp`"
                       + (f" (a bought feature's strips are tuned to the buy's own RTP with --bet-mode {buys[0]})"
                          if buys else ""))


def _unit(game: Game) -> str:
    """The unit of the RTP of ``game``'s bet mode."""
    mode = game.bet_mode
    if mode.name == "base" and mode.cost == 1:
        return "x total bet"
    return f"x the cost of bet mode {mode.name} ({float(mode.cost):g} x total bet)"


def _state_probabilities(game: Game) -> dict:
    """The trigger states' exact probabilities in ``game``."""
    return {s.name: float(s.probability) for s in round_model(game).strata}


def _run(search: _Search, before: dict, metrics: list, max_steps: int) -> tuple:
    """The search from the original point; returns ((miss, changed, point, figures) of the best point, steps)."""
    point0 = search.start()
    best = (search.miss(before), 0, point0, before)
    radius = None  # no bound at first; halved (back at the best point) after two steps that do not improve it
    point, current = point0, before
    worse = 0
    steps = 0
    for steps in range(1, max_steps + 1):
        if best[0] == 0:
            break
        effects = search.effects(point, current, metrics)
        solved = search.solve(point, current, effects, radius=radius)
        new = search.apply(point, solved[0], effects, metrics) if solved and solved[0] else None
        if new is not None and new != point:
            m = search.measure(new)
            score = (search.miss(m), search.changed(new))
            if score < best[:2]:
                best = (*score, new, m)
                point, current, worse = new, m, 0
                continue
            worse += 1
            if worse < 2:
                point, current = new, m  # a Newton step may pass through a worse point
                continue
        elif radius == 1:
            break
        if solved and solved[0]:
            largest = max(math.ceil(abs(v) / search.groups[g].step) for (g, _), v in solved[0].items())
        else:
            largest = 2
        radius = max(1, (radius or largest) // 2)
        point, current, worse = best[2], best[3], 0
    return best, steps


def _prepare_weight_groups(search: _Search, base: dict, metrics: list) -> dict:
    """Check each weight group; returns {group index: (factor, RTP move of one unit)} of the coarse ones.

    A table (or strip-set weights) whose weights move no figure the tuner sees
    only feeds a simulated feature mean, which the tuner holds from one
    estimate: refused.  A group whose one unit of weight moves the RTP by more
    than half the tolerance (88 / 12 strip-set weights: one unit is 2 points of
    RTP) is coarse: if the search misses with it, :func:`_refine` scales it by a
    power of ten (the same probabilities, finer steps), as designers write
    "out of 100,000" tables.
    """
    coarse = {}
    where = search.game.path or search.game.name
    for g, group in enumerate(search.groups):
        if group.kind == "counts":
            continue
        probe = _Search(search.game, search.mode, search.set_name, [replace(group, step=1)], search.keeps, search.target,
                        search.tolerance, None, search.terms, search.strata, search.progress, cache=search.cache)
        effects = probe.effects(probe.start(), base, metrics)
        search.evaluations += probe.evaluations
        per_unit = max(abs(float(e[0])) for e in effects.values())
        if group.kind in ("table", "sets") and not any(np.any(e != 0) for e in effects.values()):
            raise TuningError(f"{where}: {_weight_labels([group])[0]} moves no exact figure nor any trigger state's "
                              "probability: it feeds a simulated feature mean, which the tuner holds from one estimate; "
                              "tune it in the table editor with `workbench rtp`")
        if per_unit > search.tolerance / 2:
            coarse[g] = (10 ** math.ceil(math.log10(per_unit / (search.tolerance / 2))), per_unit)
    return coarse


def _refine(search: _Search, coarse: dict) -> tuple:
    """Scale the weights of the ``coarse`` groups (in ``search.game``); returns notes saying so."""
    notes = []
    game = search.game
    for g, (factor, per_unit) in coarse.items():
        group = search.groups[g]
        if group.kind == "table":
            game = game.with_table_weights(group.where, [w * factor for w in game.tables[group.where].weights])
        elif group.kind == "sets":
            for name in group.items:
                game = game.with_strip_set_weight(name, game.strip_sets[name].weight * factor)
        else:
            reel = game.strip_sets[search.set_name].reels[group.where]
            game = game.with_strip(search.set_name, group.where + 1, reel.symbols, [w * factor for w in reel.weights])
        search.groups[g] = replace(group, step=group.step * factor)
        notes.append(f"{_weight_labels([group])[0]}: every weight multiplied by {factor:,} first (the same probabilities; "
                     f"one unit of the file's weights moves the RTP by {per_unit * 100:.4f} %, more than half the tolerance)")
    search.game = game
    return tuple(notes)


def _changes(set_name: str, old: tuple, new: tuple) -> tuple:
    return tuple(StopChange(set_name, i + 1, k + 1, a, b) for i, (so, sn) in enumerate(zip(old, new))
                 for k, (a, b) in enumerate(zip(so, sn)) if a != b)


def _weight_labels(groups: list) -> tuple:
    out = []
    for g in groups:
        if g.kind == "stops":
            out.append(f"stop weights of reel {g.where + 1}")
        elif g.kind == "table":
            out.append(f"table {g.where}")
        elif g.kind == "sets":
            out.append(f"strip-set weights of mode {g.where}")
    return tuple(out)


def _weight_changes(search: _Search, old: _Point, new: _Point) -> tuple:
    out = []
    for reel, (a, b) in enumerate(zip(old.stop_weights, new.stop_weights)):
        if a is not None and a != b:
            out += [WeightChange(f"{search.set_name} reel {reel + 1}", f"stop {k + 1}", x, y) for k, (x, y) in enumerate(zip(a, b)) if x != y]
    for (name, a), (_, b) in zip(old.tables, new.tables):
        entries = search.game.tables[name].entries
        out += [WeightChange(f"table {name}", _entry_text(entries[k], k), x, y) for k, (x, y) in enumerate(zip(a, b)) if x != y]
    for (name, a), (_, b) in zip(old.set_weights, new.set_weights):
        if a != b:
            out.append(WeightChange(f"mode {search.mode} strip sets", name, a, b))
    return tuple(out)


def _entry_text(entry, index: int) -> str:
    fields = ", ".join(f"{k} = {v}" for k, v in entry.items() if k != "weight")
    return f"entry {index + 1} ({fields})" if fields else f"entry {index + 1}"


def _binding(search: _Search, point: _Point, current: dict, metrics: list) -> tuple[str, None]:
    """What stops the search: ``search`` if the linear model at the closest point still sees a way (so nothing is
    proven), else the constraint whose removal halves the miss of the bands (``keep:NAME``, ``max_changes``,
    ``counts``), else ``vary`` (the allowed symbols cannot move the figures far enough)."""
    effects = search.effects(point, current, metrics)
    candidates = [f"keep:{k.metric}" for k in search.keeps]
    if search.max_changes is not None:
        candidates.append("max_changes")
    candidates.append("counts")
    base = search.solve(point, current, effects)
    if base is None or base[1] < 1e-6:
        return "search", None  # the linear model still sees a way: not proven unreachable
    for name in candidates:
        solved = search.solve(point, current, effects, drop=name)
        if solved is not None and solved[1] < 0.5 * base[1]:
            return name, None
    return "vary", None


def _unreachable_message(result: TuneResult, binding: str, _closest) -> str:
    where = f"{result.original.path or result.original.name}"
    reach = (f"the closest reachable RTP is {result.rtp * 100:.4f} %"
             + (f" ± {result.rtp_ci95 * 100:.4f} %" if result.rtp_ci95 else "")
             + f" ({len(result.changes)} stop(s) changed)")
    failed = [k.describe() for k in result.keeps if not k.holds(result.after[k.metric])]
    if binding.startswith("keep:"):
        keep = next(k for k in result.keeps if k.metric == binding[5:])
        why = f"--keep {keep.text} binds ({keep.describe()})"
    elif binding == "max_changes":
        why = f"--max-changes {result.max_changes} binds (at most {result.max_changes} stop(s) may change)"
    elif binding == "search":
        why = (f"no edit was found in {result.steps} steps ({result.evaluations} exact evaluations), though the "
               "linear model near the closest point does not rule one out: widen the tolerance, allow more steps "
               "(max_steps) or vary other symbols")
    elif binding == "counts":
        why = "the symbol counts bind: every reel keeps at least one of each varied symbol it had"
    else:
        allowed = ([f"symbols {', '.join(result.vary)} on strip set {result.strip_set!r}"] if result.vary else []) + list(result.varied_weights)
        why = (f"the allowed changes ({'; '.join(allowed)}) cannot move the figures far enough: "
               "allow more (other symbols, tables, strip-set weights) or another strip set")
    text = f"{where}: target RTP {result.target * 100:.4f} % ± {result.tolerance * 100:.4f} % cannot be reached: {why}; {reach}"
    if failed:
        text += "; out of band: " + ", ".join(failed)
    return text
