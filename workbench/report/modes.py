"""Every mode of a game in the report: its own PAR section, the symbol counts of its strips, and the strips
themselves with stop numbers (the appendix).

A game is played in several *modes*: the base game, each strip-set mode a feature spins on (free spins, a super
free-spins mode), each bet mode that plays other strips or parameters (an ante) and each buy (a bonus buy, a
prize mode).  :func:`mode_sheets` lists them, each a :class:`ModeSheet` with the exact
:class:`~workbench.exact.par.ParSheet` of one spin of its strips (None for a buy: a bought round has no paid
spin) and, where the report has it, the whole round's estimate (exact + conditional simulation).
:func:`mode_figures` gives a mode's figures, each with its unit and method; :func:`mode_par_table` shows them,
:func:`mode_symbol_counts` counts the symbols of its strips and :func:`strips_appendix` lists every strip set
stop by stop.  The PAR workbook writes the same figures (one "PAR <mode>" sheet per mode, and "Reel strips").

Units: the exact sheet of a spin is x the base game's total bet (a bet mode's paid spin too, beside its cost);
a bet mode's whole-round figures are x its own cost (as every estimate of a bet mode); line pays x line bet.
Stops are numbered from 1: stop 1 is a strip's first symbol in the file, and a reel stopped at stop s shows
stops s to s + rows - 1, top row first, wrapping from the last stop to stop 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

import pandas as pd

from .formats import _finite, fmt_ci, fmt_pct, fmt_x, parameters_text

Z90 = 1.6448536269514722  # the exact normal quantiles of the volatility index (90 %, 95 %)
Z95 = 1.959963984540054
STOP_NUMBERING = "stops numbered from 1 (stop 1 is the strip's first symbol in the file; a reel stopped at stop s " \
                 "shows stops s to s + rows - 1, top row first, wrapping from the last stop to stop 1)"


@dataclass(frozen=True)
class ModeSheet:
    """One mode of a game as the report shows it.

    ``key``: "base", "strips:NAME" (a strip-set mode) or "bet:NAME" (a bet mode); ``label``: its title;
    ``covers``: what its figures are of, with units; ``game`` and ``strip_mode``: the game and strip-set mode whose
    strips one spin of it is played on (None: a buy, no paid spin); ``sheet``: the exact PAR sheet of one such spin
    (x the base total bet), or None and ``reason``; ``estimate``: the whole round's figures (a
    :class:`~workbench.simulate.BetModeEstimate`, an :class:`~workbench.simulate.RtpEstimate` or their
    ``to_dict()``; x the mode's ``cost``), or None; ``cost``: x the base total bet per round; ``buy``: a bought
    feature (no paid spin)."""

    key: str
    label: str
    covers: str
    game: object
    strip_mode: str | None
    sheet: object = None
    reason: str | None = None
    estimate: object = None
    cost: float = 1.0
    buy: bool = False

    @property
    def name(self) -> str:
        """The mode's own name ("base", "free_spins", "ante")."""
        return self.key.split(":", 1)[-1]

    @property
    def unit(self) -> str:
        """The unit of the whole round's figures: "x total bet", or "x its cost (C x total bet)" for a bet mode."""
        return "x total bet" if self.cost == 1 else f"x its cost ({fmt_x(self.cost)} total bet)"


@dataclass(frozen=True)
class ModeFigure:
    """One figure of a mode: ``label``, ``value`` (a fraction, amount, probability per spin, count or text),
    ``kind`` (a :mod:`workbench.figures` kind), ``unit``, ``method`` ("exact", "simulated (N rounds), ± h (95 %)",
    "exact + conditional simulation, ± h (95 %)") and ``detail`` (shown before the value: a cycle's factors)."""

    label: str
    value: object
    kind: str
    unit: str
    method: str
    detail: str = ""


# ---------------------------------------------------------------------------
# the modes
# ---------------------------------------------------------------------------
def _exact_sheet(game, mode: str):
    """(the exact PAR sheet of one spin of ``mode``, None) or (None, why not): figures the exact engine leaves out
    are simulated and labelled so (:func:`workbench.simulate.complete_par`); no full-cycle distribution."""
    from ..errors import WorkbenchError
    from ..simulate import complete_par

    try:
        return complete_par(game, mode, full_cycle=False), None
    except WorkbenchError as exc:
        return None, str(exc)


def _named(estimates) -> dict:
    """Bet-mode estimates (objects or ``to_dict()``) by mode name."""
    out = {}
    for e in estimates or ():
        name = e.get("mode") if isinstance(e, dict) else getattr(e, "name", None)
        if name is not None:
            out[name] = e
    return out


def played_by(game, strip_mode: str) -> list[str]:
    """Who plays the strips of ``strip_mode``: the ``[features]`` parameters naming it (free_spins_mode ...) of the
    game and of each bet mode, and the bet modes spinning or landing on it."""
    out = []
    for where, features in [("the game", game.features), *((f"bet mode {n}", m.features) for n, m in game.bet_modes.items())]:
        keys = [k for k, v in features.items() if v == strip_mode]
        if keys:
            out.append(f"{where} ({', '.join(keys)})")
    for name, mode in game.bet_modes.items():
        if mode.strip_sets == strip_mode:
            out.append(f"bet mode {name} (its paid spins)")
        if mode.prize_strips == strip_mode:
            out.append(f"bet mode {name} (its prize boards)")
    return out


def mode_sheets(game, bet_modes=(), *, sheet=None, estimate=None, sheets: dict | None = None) -> list[ModeSheet]:
    """Every mode of ``game``: the base game, each strip-set mode not the paid spin of a bet mode (free spins...),
    and each bet mode (an ante: its paid spin's exact sheet; a buy: no exact sheet, its round simulated).

    ``bet_modes``: the report's :func:`~workbench.report.computations.bet_mode_estimates` (or their ``to_dict()``),
    whose whole-round figures (x each mode's cost) join its section; ``sheet``: the base game's exact sheet (default:
    computed here); ``estimate``: the whole game's :class:`~workbench.simulate.RtpEstimate` (or its ``to_dict()``),
    the base game's whole round when ``bet_modes`` has no "base"; ``sheets``: strip-set mode -> exact sheet or the
    reason it failed, already computed (the workbook's Summary)."""
    from ..exact.par import ParSheet

    sheets = dict(sheets or {})
    if sheet is not None:
        sheets[sheet.mode] = sheet
    estimates = _named(bet_modes)

    def strips_sheet(mode):
        known = sheets.get(mode)
        if isinstance(known, ParSheet):
            return known, None
        if isinstance(known, str):
            return None, known
        sheets[mode] = found = _exact_sheet(game, mode)
        return found

    base_sheet, why = strips_sheet("base")
    base_round = estimates.get("base", estimate)
    whole = "; the whole round (features included) below it, x total bet" if base_round is not None else ""
    out = [ModeSheet("base", "Base game", f"one base-game spin ({_part(base_sheet)}), x total bet{whole}", game, "base",
                     base_sheet, why, base_round)]
    paid_spins = {m.strip_sets for m in game.bet_modes.values() if not m.buy and not m.prize}
    for mode in game.modes:
        if mode == "base" or mode in paid_spins:
            continue
        found, why = strips_sheet(mode)
        users = played_by(game, mode)
        out.append(ModeSheet(f"strips:{mode}", f"Strip-set mode {mode}",
                             f"one spin on the strips of mode {mode}, its screen paid as the paytable pays it, x the base "
                             "game's total bet; what the feature adds to it (its multipliers, persisting wilds, "
                             "extra spins) is in the whole round's RTP" + (f"; played by {', '.join(users)}" if users else ""),
                             game, mode, found, why))
    for name, mode in game.bet_modes.items():
        out.append(_bet_mode_sheet(game, name, mode, estimates.get(name), base_sheet))
    return out


def _part(sheet) -> str:
    part = getattr(sheet, "covers", "base game")
    return "its screen" if part == "base game" else f"its {part}"


def _bet_mode_sheet(game, name: str, mode, estimate, base_sheet) -> ModeSheet:
    """The section of bet mode ``name``: a buy has no paid spin; another mode's paid spin is exact (from its estimate
    when the report has one, else computed), x the base total bet beside its cost."""
    from .tables import features_text, plays_text

    cost = float(mode.cost)
    plays = plays_text(mode) + features_text(mode)
    if mode.buy or mode.prize:
        why = "a bought round has no paid spin" + ("" if estimate is not None else
                                                    "; its figures need the RTP estimate of the bet mode (workbench rtp)")
        return ModeSheet(f"bet:{name}", f"Bet mode {name} (buy, {fmt_x(cost)} total bet)",
                         f"a bought round ({plays}), x its cost ({fmt_x(cost)} total bet); no paid spin, so no exact "
                         "spin sheet: the round is exact trigger counts x simulated feature wins",
                         game, None, None, why, estimate, cost, True)
    played = game.in_bet_mode("base").in_bet_mode(name)
    sheet = getattr(getattr(estimate, "estimate", None), "sheet", None)  # BetModeEstimate: its paid spin's sheet
    why = None
    if sheet is None and mode.strip_sets == "base" and not mode.features:
        sheet = base_sheet
    elif sheet is None:
        sheet, why = _exact_sheet(played, "base")
    own = f"; what its own features ({parameters_text(mode.features)}) add is in the whole round" if mode.features else ""
    whole = f"; the whole round below it, x its cost ({fmt_x(cost)} total bet)" if estimate is not None else ""
    return ModeSheet(f"bet:{name}", f"Bet mode {name} ({fmt_x(cost)} total bet)",
                     f"one paid spin on the strips of mode {mode.strip_sets}, its screen paid by the paytable, x the base "
                     f"game's total bet (divide by {cost:g} for x its cost){own}{whole}", played, "base", sheet, why,
                     estimate, cost)


# ---------------------------------------------------------------------------
# the figures of a mode
# ---------------------------------------------------------------------------
def cycle_factors(strip_set) -> str:
    """The cycle of a strip set as its factors: each reel's total stop weight, "63 x 64 x 65 x 66 x 67"."""
    return " x ".join(f"{strip.total_weight:,}" for strip in strip_set.reels)


def _draws(game, sets) -> list[str]:
    """What a spin draws besides the stops, each multiplying the PAR sheet's weighted combinations."""
    from ..exact.variants import has_table_wilds
    from ..model.mystery import mystery_symbols

    out = []
    if len(sets) > 1:
        out.append("the strip set, chosen by weight (each set's cycle scaled to the least common multiple of the "
                   "sets' cycles, times their total weight)")
    held = set(mystery_symbols(game))
    if held and any(held & set(strip.symbols) for s in sets for strip in s.reels):
        out.append("the mystery reveals, drawn by weight")
    if any(s.wild_reels is not None for s in sets):
        out.append("the wild reels")
    if game.heights:
        out.append("every reel's height, drawn by weight")
    if has_table_wilds(game):
        out.append("the wild multipliers, drawn per landing")
    return out


def cycle_figures(game, strip_mode: str, sheet=None) -> list[ModeFigure]:
    """The cycle of every strip set of ``strip_mode`` (the product of its reels' total stop weights, exact, with its
    factors; the set's choice weight when the mode has several), then the weighted combinations the PAR sheet's
    counts are over when a spin draws more than the stops."""
    sets = game.strip_sets_for(strip_mode)
    total = sum(s.weight for s in sets)
    out = []
    for s in sets:
        chosen = f", chosen with weight {s.weight:,} of {total:,}" if len(sets) > 1 else ""
        out.append(ModeFigure(f"Cycle, strip set {s.name}", int(s.cycle), "count",
                              f"stop combinations (each reel's total stop weight multiplied){chosen}", "exact",
                              cycle_factors(s)))
    if sheet is not None and (len(sets) != 1 or int(sheet.cycle) != sets[0].cycle):
        draws = _draws(sheet.game, sets) or ["what a spin draws besides its stops"]
        out.append(ModeFigure("Weighted combinations the counts are over", int(sheet.cycle), "count",
                              "the stop cycle times " + "; ".join(draws), "exact"))
    return out


def _method(source: str, ci95, kind: str) -> str:
    from .tables import _figure_text

    if source == "exact" or ci95 is None:
        return source
    return f"{source}, ± {_figure_text(ci95, kind)} (95 %)"


def exact_figures(mode: ModeSheet) -> list[ModeFigure]:
    """The figures of a mode's exact sheet (one spin, x the base total bet), from the catalogue
    (:mod:`workbench.figures`): RTP and its parts, hit frequency, std, volatility index, max win and how it is known,
    the cycle with its factors, each trigger's exact odds per spin of the mode, the notes."""
    from .. import figures as F

    sheet = mode.sheet
    if sheet is None:
        return []
    out, notes = [], []
    spin = "per spin" if mode.key == "base" else "per spin of this mode"
    for v in sheet.figures():
        if v.key in ("cycle", "max_win", "max_win_upper") or v.key.startswith("trigger:"):
            continue
        if v.key.startswith("note:"):
            if v.value == sheet.distribution_note:  # the mode's section shows no win distribution
                continue
            notes.append(ModeFigure(f"Note {v.key.split(':', 1)[1]}", v.value, F.TEXT, "", ""))
            continue
        label = f"RTP part {v.key.split(':', 1)[1]}" if v.key.startswith("rtp:") else v.label
        out.append(ModeFigure(label, v.value, v.kind, v.figure.unit, _method(v.source, v.ci95, v.kind)))
        if v.key == "rtp" and mode.cost != 1:
            out.append(ModeFigure("RTP x its cost", v.value / mode.cost, F.PERCENT, f"x its cost ({fmt_x(mode.cost)} "
                                  "total bet)", "exact"))
    out.append(_max_win(sheet))
    out += cycle_figures(mode.game, mode.strip_mode, sheet)
    for name in sheet.game.triggers:
        out.append(_trigger(sheet, name, spin))
    return out + notes


def _max_win(sheet) -> ModeFigure:
    """The exact sheet's max win (x total bet) and how it is known."""
    if "max_win" in getattr(sheet, "missing", {}):
        how = f"largest seen ({sheet.source('max_win')}); at most {fmt_x(sheet.max_win_upper)} (exact bound)"
    elif not getattr(sheet, "max_win_exact", True):
        how = f"largest found; the search stopped at its budget, the maximum is at most {fmt_x(sheet.max_win_upper)}"
    else:
        how = "exact: the largest win of one spin over every stop combination"
    return ModeFigure("Max win", sheet.max_win, "amount", "x total bet", how)


def _trigger(sheet, name: str, spin: str) -> ModeFigure:
    """A trigger's exact odds per spin ("1 in N"), with its hits over the sheet's cycle."""
    try:
        hits = int(sheet.trigger_hits(name))
    except (KeyError, TypeError):  # a trigger the sheet does not count
        return ModeFigure(f"Trigger {name}", sheet.trigger_probability(name), "one_in", spin, "exact")
    return ModeFigure(f"Trigger {name}", hits / sheet.cycle, "one_in",
                      f"{spin} ({hits:,} of {int(sheet.cycle):,} weighted combinations)", "exact")


def _round_view(estimate):
    """The whole-round figures of a bet mode's or the game's estimate (object or ``to_dict()``)."""
    def get(key, default=None):
        return estimate.get(key, default) if isinstance(estimate, dict) else getattr(estimate, key, default)

    std = get("std")
    vi = {}
    for z, key in ((Z90, "volatility_index_90"), (Z95, "volatility_index_95")):
        vi[key] = get(key) if isinstance(estimate, dict) and get(key) is not None else (
            z * std if _finite(std) else math.nan)
    comps = get("components") or {}
    comps = {k: (c.get("value"), c.get("ci95"), c.get("source")) if isinstance(c, dict) else (c.value, c.ci95, c.source)
             for k, c in comps.items() if not k.startswith("option:")}
    inner = get("estimate")  # a BetModeEstimate's RtpEstimate
    cap = get("max_win_cap")
    if cap is None and not isinstance(estimate, dict) and getattr(estimate, "max_win_units", 0):
        cap = estimate.max_win_units / estimate.cost_units
    return SimpleNamespace(rtp=get("rtp"), ci95=get("rtp_ci95"), components=comps, hit_frequency=get("hit_frequency"),
                           hit_frequency_ci95=get("hit_frequency_ci95"), std=std, max_win=get("max_win"), cap=cap, **vi,
                           plan=get("plan") or (getattr(inner, "plan", None) if inner is not None else None))


def round_figures(mode: ModeSheet) -> list[ModeFigure]:
    """The whole round's figures (x total bet, a bet mode's x its cost): RTP with its 95 % interval and its parts
    each with its method, hit frequency per round, std, volatility index 90 % and 95 %, the largest known win, the
    cap."""
    if mode.estimate is None:
        return []
    r = _round_view(mode.estimate)
    unit, method = mode.unit, "exact + conditional simulation"
    out = [ModeFigure("Cost", mode.cost, "amount", "x total bet per round", "as declared")] if mode.key != "base" else []
    out.append(ModeFigure("Whole-round RTP", r.rtp, "percent", unit, f"{method}, {fmt_ci(r.ci95)} (95 %)"
                          + (f": {r.plan}" if r.plan else "")))
    for name, (value, ci95, source) in r.components.items():
        how = source if not ci95 else f"{source}, {fmt_ci(ci95)} (95 %)"
        out.append(ModeFigure(f"Whole-round RTP part {name}", value, "percent", unit, how))
    hit_how = (f"{method}, ± {fmt_pct(r.hit_frequency_ci95, 4)} (95 %; a binomial bound over the trigger states)"
               if r.hit_frequency_ci95 and math.isfinite(r.hit_frequency_ci95) else method)
    out += [ModeFigure("Whole-round hit frequency", r.hit_frequency, "percent", "of rounds with any win", hit_how),
            ModeFigure("Whole-round standard deviation", r.std, "number", f"{unit}, per round", method),
            ModeFigure("Whole-round volatility index 90 %", r.volatility_index_90, "number", f"z = 1.6449 x std, {unit}",
                       method),
            ModeFigure("Whole-round volatility index 95 %", r.volatility_index_95, "number", f"z = 1.9600 x std, {unit}",
                       method),
            ModeFigure("Whole-round largest known win", r.max_win, "amount", unit,
                       "the largest in the estimate (the cap when one bounds every round)")]
    if r.cap:
        out.append(ModeFigure("Max win cap", r.cap, "amount", "x total bet (as declared); a round is paid at most this",
                              "as declared"))
    return out


def mode_figures(mode: ModeSheet) -> list[ModeFigure]:
    """Every figure of a mode: why there is no exact sheet (a buy), the exact sheet's, then the whole round's."""
    head = [ModeFigure("Exact spin sheet", "not computed", "text", "", mode.reason)] if mode.sheet is None else []
    return head + exact_figures(mode) + round_figures(mode)


def figure_text(f: ModeFigure) -> str:
    """A mode figure's value as the report shows it (no scientific notation; counts exact with separators)."""
    from .tables import _figure_text

    if f.kind == "count" and f.value is not None:
        text = f"{int(f.value):,}"
        return f"{f.detail} = {text}" if f.detail else text
    if f.kind == "one_in" and _finite(f.value):
        return "never" if f.value <= 0 else f"1 in {1 / f.value:,.2f}"
    return _figure_text(f.value, f.kind)


def mode_par_table(mode: ModeSheet) -> pd.DataFrame:
    """The PAR section of one mode: one row per figure (value, unit, method): RTP and parts, hit frequency, std,
    volatility index 90 % and 95 %, max win and how it is known, the cycle with its factors, the triggers' exact
    odds per spin of the mode; then, where the report has it, the whole round (x its cost for a bet mode)."""
    rows = [{"figure": f.label, "value": figure_text(f), "unit": f.unit, "method": f.method or ""}
            for f in mode_figures(mode)]
    return pd.DataFrame(rows, columns=["figure", "value", "unit", "method"]).set_index("figure")


def mode_caption(mode: ModeSheet) -> str:
    """The caption of a mode's PAR table: its title and what its figures are of."""
    return f"{mode.label}: {mode.covers}"


# ---------------------------------------------------------------------------
# symbol counts and strips
# ---------------------------------------------------------------------------
def mode_symbol_counts(mode) -> pd.DataFrame:
    """Stops (stop weights on weighted strips) of each symbol on each reel of the strips a mode spins on, one block
    per strip set with its total; symbols on none of a set's reels are left out.  ``mode``: a :class:`ModeSheet` or a
    :class:`~workbench.exact.par.ParSheet` (its game and mode); a buy (no paid spin) has none."""
    game = mode.game
    strip_mode = mode.strip_mode if isinstance(mode, ModeSheet) else mode.mode
    if strip_mode is None:
        return pd.DataFrame()
    rows = []
    for s in game.strip_sets_for(strip_mode):
        counts = {name: [0] * len(s.reels) for name in game.symbols}
        for r, strip in enumerate(s.reels):
            for symbol, weight in zip(strip.symbols, strip.stop_weights.tolist()):
                counts[symbol][r] += int(weight)
        for name, per_reel in counts.items():
            if any(per_reel):
                rows.append({"strip set": s.name, "symbol": name, **{f"reel {r + 1}": c for r, c in enumerate(per_reel)}})
        rows.append({"strip set": s.name, "symbol": "total",
                     **{f"reel {r + 1}": strip.total_weight for r, strip in enumerate(s.reels)}})
    return pd.DataFrame(rows).set_index(["strip set", "symbol"])


def strip_stops(strip_set) -> pd.DataFrame:
    """One strip set stop by stop: stop number (from 1) and each reel's symbol as the file writes it (tall and
    mystery symbols by name), with a "reel k weight" column beside a weighted reel; a shorter reel's cells past
    its last stop are empty."""
    longest = max(len(strip) for strip in strip_set.reels)
    data = {}
    for r, strip in enumerate(strip_set.reels, start=1):
        pad = [""] * (longest - len(strip))
        data[f"reel {r}"] = list(strip.symbols) + pad
        if strip.weights is not None and any(w != 1 for w in strip.weights):
            data[f"reel {r} weight"] = [int(w) for w in strip.weights] + pad
    df = pd.DataFrame(data, index=pd.RangeIndex(1, longest + 1, name="stop"))
    return df


def strips_caption(game, strip_set) -> str:
    """What a strip-set table is: set, mode, choice weight, stops per reel, cycle and the stop numbering."""
    same = game.strip_sets_for(strip_set.mode)
    weight = (f", chosen with weight {strip_set.weight:,} of {sum(s.weight for s in same):,}" if len(same) > 1 else "")
    stops = ", ".join(f"{len(strip):,}" for strip in strip_set.reels)
    return (f"Strip set {strip_set.name} (mode {strip_set.mode}{weight}): {stops} stops; cycle "
            f"{cycle_factors(strip_set)} = {strip_set.cycle:,}; {STOP_NUMBERING}")


def strips_appendix(game) -> list[tuple[str, pd.DataFrame]]:
    """Every strip set of every mode, one (caption, table) each: one row per stop (numbered from 1), reels as columns,
    stop weights beside the weighted reels (:func:`strip_stops`)."""
    return [(strips_caption(game, s), strip_stops(s)) for s in game.strip_sets.values()]


# ---------------------------------------------------------------------------
# the report's JSON
# ---------------------------------------------------------------------------
def _json_value(value):
    from fractions import Fraction

    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def modes_data(modes: list[ModeSheet]) -> list[dict]:
    """Every mode's section as JSON: key, label, covers, cost, and each figure (label, value, kind, unit, method,
    factors) and its symbol counts (strip set -> symbol -> per reel)."""
    out = []
    for m in modes:
        counts = mode_symbol_counts(m)
        blocks: dict = {}
        for (strip_set, symbol), row in counts.iterrows():
            blocks.setdefault(strip_set, {})[symbol] = [int(x) for x in row.tolist()]
        out.append({"key": m.key, "label": m.label, "covers": m.covers, "cost_x_total_bet": m.cost, "buy": m.buy,
                    "strip_mode": m.strip_mode, "exact_sheet": m.sheet is not None, "reason": m.reason,
                    "figures": [{"label": f.label, "value": _json_value(f.value), "kind": f.kind, "unit": f.unit,
                                 "method": f.method, **({"factors": f.detail} if f.detail else {})}
                                for f in mode_figures(m)],
                    "symbol_counts": blocks})
    return out
