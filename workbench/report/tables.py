"""The report's tables of results: key figures, the PAR sheet's tables, the estimate's components and strata, bet
modes, stakes, volatility and session bands, the simulation and the max win (the game's own tables are in
:mod:`~workbench.report.game_tables`, the computations behind them in :mod:`~workbench.report.computations`).

Amounts are in multiples of the total bet (``x total bet``); RTP, hit
frequency and probabilities are fractions, formatted as percent by
:func:`~workbench.report.formats.fmt_pct`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .defaults import (BAND_CONFIDENCES, BAND_SPINS, DEFAULT_SEED, EXCEEDANCE_LEVELS, PAR_TABLES, SESSION_BANKROLL, SESSION_SPINS, SESSIONS)
from .computations import AGREEMENT_Z, BAND_SIMULATION_DRAWS, session_rtp_quantiles, simulation_check
from .formats import (_finite, _frame, parameters_text, fmt_ci, fmt_count, fmt_estimated_odds, fmt_money, fmt_num,
                      fmt_one_in, fmt_pct, fmt_pct_interval, fmt_pct_seen, fmt_prob, fmt_seen, fmt_x)


def covers(sheet) -> str:
    """What an exact sheet covers ("base game", a tumble game's "first drop"; "base game" for a sheet-like stand-in)."""
    return getattr(sheet, "covers", "base game")


def par_intro(sheet) -> str:
    """What the PAR sheet's counts mean under the game's pay rule, what it covers and how it was computed."""
    counted = sheet.game.rule.hits_counted
    text = f"{counted}; RTP is per total bet."
    part = covers(sheet)
    if part != "base game":
        text += (f" The sheet covers each spin's {part} only; what the round pays after it (the cascades, "
                 "features) is simulated: see the RTP by component.")
    if sheet.distribution is None and sheet.distribution_note:
        text += f" Every figure below is exact; only the win distribution is not computed ({_why_no_distribution(sheet)})."
    return text


def _why_no_distribution(sheet) -> str:
    note = sheet.distribution_note or "not computed"
    prefix = "full-cycle distribution not computed: "
    return note[len(prefix):] if note.startswith(prefix) else note


def distribution_text(sheet) -> str | None:
    """Why the report shows no exact win distribution (None when it does)."""
    if sheet.distribution is not None:
        return None
    return (f"No exact win distribution of the {covers(sheet)} ({_why_no_distribution(sheet)}); "
            "the distribution below is simulated (whole rounds, every feature included).")


# ---------------------------------------------------------------------------
# tables of results
# ---------------------------------------------------------------------------
def stake_text(model, game=None) -> str:
    """The stake (total bet in currency) the figures hold at, or "" when nothing depends on the stake."""
    stake = getattr(model, "stake", None)
    if stake is None:
        return ""
    currency = getattr(getattr(game, "bet", None), "currency", "") if game is not None else ""
    return f"{fmt_money(float(stake))}{' ' + currency if currency else ''}"


def _figure_text(value, kind: str) -> str:
    """A catalogue figure's value as the report shows it (:mod:`workbench.figures` kinds)."""
    from .. import figures as F

    if value is None:
        return "-"
    if kind == F.PERCENT:
        return fmt_pct(value)
    if kind == F.ONE_IN:
        return fmt_one_in(value)
    if kind == F.RATE:
        return fmt_one_in(1 / value) if value and not math.isinf(value) else "never"
    if kind == F.AMOUNT:
        return fmt_x(value) if not (isinstance(value, float) and math.isinf(value)) else "never"
    if kind == F.COUNT:
        return f"{int(value):,}"
    if kind in (F.FRACTION, F.TEXT):
        return F.shown(value, kind)
    return fmt_num(value)


def _hit_text(stats, key: str) -> str:
    """A simulated hit frequency (or hit rate, 1 in N) with its 95 % interval: Clopper-Pearson for an end-to-end
    simulation, the estimate's binomial bound over its trigger states for the exact + conditional method."""
    p = stats.hit_frequency
    if hasattr(stats, "bucket_counts"):  # a SimulationResult: hits counted in its rounds
        hits = int(round(p * stats.spins))
        return fmt_pct_seen(hits, stats.spins) if key == "hit_frequency" else fmt_seen(hits, stats.spins)
    half = getattr(stats, "hit_frequency_ci95", math.inf)
    if half == 0:  # every part exact
        return fmt_pct(p, 4) if key == "hit_frequency" else fmt_one_in(p)
    if key == "hit_frequency":
        return fmt_pct_interval(p, half)
    return fmt_estimated_odds(p, half, getattr(stats, "samples", 0)) if math.isfinite(half) else fmt_one_in(p)


def key_figures(sheet, est, sim=None) -> pd.DataFrame:
    """Headline numbers: exact base game, whole game (exact + conditional), simulation.

    The rows are the figures of the catalogue (:mod:`workbench.figures`; families such as the RTP by component
    and the triggers have their own tables) read off each column's result where it has them ("-" where not),
    with the RTP's 95 % half-width and the stake.  Amounts are x total bet; figures that depend on the stake (a
    max-win cap in currency, jackpots) say the stake they hold at.
    """
    from .. import figures as F

    game = sheet.game
    stake = stake_text(est.model, game)
    at = f" at stake {stake}" if stake else ""
    cap = est.model.cap_total_bets
    shown = [v for v in sheet.figures() if v.figure.expand is None]

    def title(v) -> str:
        money = "x total bet" in v.unit  # what a cap in currency can change
        unit = " (x total bet)" if money and v.kind in (F.NUMBER, F.AMOUNT) else ""
        return f"{v.label}{unit}{at if money else ''}"

    def value(v, stats):
        if stats is sheet:
            return v.value
        try:
            return v.figure.get(stats)
        except (AttributeError, TypeError):  # the figure is one of the exact sheet's only
            return None

    def column(stats, rtp_ci, jackpot):
        out = {"stake (total bet)": (f"{stake} (the reference stake)" if stake else "any (no figure depends on the stake)")}
        for v in shown:
            out[title(v)] = _figure_text(value(v, stats), v.kind)
            if stats is not sheet and v.key in ("hit_frequency", "hit_rate_one_in"):
                out[title(v)] = _hit_text(stats, v.key)
            if stats is sheet and v.source != "exact":  # over the exact engine's budgets: say how it was obtained
                ci = f", ± {_figure_text(v.ci95, v.kind)} (95 %)" if v.ci95 is not None else ""
                out[title(v)] += f" ({v.source}{ci})"
            if v.key == "rtp":
                out[f"RTP ± (95 %){at}"] = fmt_ci(rtp_ci)
                if est.model.jackpots:
                    out[f"progressive (pooled) jackpot RTP{at}"] = fmt_pct(jackpot)
        return out

    mw = title(next(v for v in shown if v.key == "max_win"))
    exact = f"exact {covers(sheet)}"
    data = {exact: column(sheet, 0.0, 0.0),
            "whole game (exact + conditional)": column(est, est.rtp_ci95, est.jackpot_rtp)}
    data[exact][mw] = f"{fmt_x(sheet.max_win)} (exact maximum)"
    if "max_win" in getattr(sheet, "missing", {}):
        data[exact][mw] = (f"{fmt_x(sheet.max_win)} largest seen ({sheet.source('max_win')}); at most "
                           f"{fmt_x(sheet.max_win_upper)} (exact bound)")
    elif not getattr(sheet, "max_win_exact", True):
        data[exact][mw] = f"{fmt_x(sheet.max_win)} to {fmt_x(sheet.max_win_upper)} (search stopped)"
    whole = data["whole game (exact + conditional)"]
    if cap:
        whole[mw] = f"{fmt_x(cap)} (the cap; largest known {fmt_x(est.max_win)})"
    elif any(s.samples for s in est.strata):
        whole[mw] = f"no exact bound (no cap); largest known {fmt_x(est.max_win)}"
    else:
        whole[mw] = data[exact][mw]
    if sim is not None:
        label = f"simulated ({sim.spins:,} rounds)"
        data[label] = column(sim, sim.rtp_ci95, sim.jackpot_rtp)
        odds = f", 1 in {sim.spins / sim.max_win_count:,.0f} rounds" if sim.max_win_count else ""
        data[label][mw] = f"{fmt_x(sim.max_win)} (largest seen{odds})"
    df = pd.DataFrame(data)
    df.index.name = "figure"
    return df


def combinations_table(sheet) -> pd.DataFrame:
    """Line combinations: pay (x the line pay unit), hits over the cycle (all lines), probability per line,
    1 in N, RTP (x total bet) and share of the RTP."""
    c = sheet.combinations
    unit = sheet.game.bet.line_pay_unit.replace("_", " ")
    ways = {"ways per hit": [f"{w:,.4f}" if h else "-" for w, h in zip(c["ways_per_hit"], c["hits"])]} \
        if "ways_per_hit" in c else {}
    if "clusters_per_hit" in c:
        ways = {"clusters per hit": [f"{w:,.4f}" if h else "-" for w, h in zip(c["clusters_per_hit"], c["hits"])]}
    return pd.DataFrame({
        "combination": c["combination"],
        f"pay (x {unit}{' per way' if 'ways per hit' in ways else ' per cluster' if ways else ''})": [fmt_money(p) for p in c["pay"]],
        **ways,
        "hits": [f"{h:,}" for h in c["hits"]],
        "probability": [fmt_prob(p) for p in c["probability"]],
        "1 in": [fmt_num(x, 2) if h else "never" for x, h in zip(c["one_in"], c["hits"])],
        "RTP": [fmt_pct(x) for x in c["rtp"]],
        "share of RTP": [fmt_pct(x, 2) for x in c["rtp_share"]],
    }).set_index("combination")


def scatter_pays_table(sheet) -> pd.DataFrame:
    """Scatter counts: hits, probability per spin, 1 in N, pay, RTP, share."""
    s = sheet.scatter_pays
    if not len(s):
        return pd.DataFrame()
    return pd.DataFrame({
        "scatter": s["scatter"],
        "count": s["count"],
        "pay": [f"{fmt_money(p)} x {u.replace('_', ' ')}" for p, u in zip(s["pay"], s["unit"])],
        "hits": [f"{h:,}" for h in s["hits"]],
        "probability": [fmt_prob(p) for p in s["probability"]],
        "1 in": [fmt_num(x, 2) for x in s["one_in"]],
        "RTP": [fmt_pct(x) for x in s["rtp"]],
        "share of RTP": [fmt_pct(x, 2) for x in s["rtp_share"]],
    }).set_index(["scatter", "count"])


def triggers_table(sheet) -> pd.DataFrame:
    """Feature triggers: exact probability per base spin and 1 in N."""
    t = sheet.triggers
    if not len(t):
        return pd.DataFrame()
    out = pd.DataFrame({"trigger": t["trigger"], "condition": [f"{m}+ {s}" for m, s in zip(t["min_count"], t["scatter"])],
                        "hits": [f"{h:,}" for h in t["hits"]], "probability": [fmt_prob(p) for p in t["probability"]],
                        "1 in": [fmt_num(x, 2) for x in t["one_in"]]})
    if "line_probability" in t:
        out["1 in per line"] = [fmt_num(x, 2) if math.isfinite(x) else "-" for x in t["line_one_in"]]
        out["bonuses per spin"] = [f"{x:.6f}" for x in t["bonuses_per_spin"]]
    return out.set_index("trigger")


def prize_title(sheet) -> str:
    """The prize-structure table's title: by spin win when the full cycle was enumerated, else by single award."""
    if sheet.prize_structure["basis"].iloc[0] == "spin":
        return "Prize structure (win per spin, x total bet)"
    return ("Prize structure by single award (x total bet; every line, ways or scatter win counted on its own, as "
            "PAR sheets do: the probabilities can add up to more than the hit frequency)")


def combinations_title(sheet) -> str:
    return {"lines": "Line combinations", "ways": "Ways combinations (hits: screens paying it; pay per way)",
            "scatter_pays": "Pay-anywhere combinations (count anywhere on the screen)",
            "cluster": "Cluster combinations (count: cluster size band; hits: screens with such a cluster; pay per cluster)"
            }[sheet.game.pays.rule]


def _not_exact(sheet, figure: str) -> str:
    """", simulated (N rounds)" after a figure the exact engine left out (else nothing)."""
    source = sheet.source(figure) if hasattr(sheet, "source") else "exact"
    return "" if source == "exact" else f", {source}"


def par_conventions_table(sheet, z_printed: float = 1.65) -> pd.DataFrame:
    """The figures printed PAR sheets give under other conventions, each labelled (base game, x total bet)."""
    rows = [
        {"figure": "hit frequency, whole spin (a spin with any win)" + _not_exact(sheet, "hit_frequency"),
         "value": fmt_pct(sheet.hit_frequency)},
        {"figure": "hit frequency, PAR-sheet convention (each line, ways or scatter win on a spin is a hit)",
         "value": fmt_pct(sheet.par_hit_frequency)},
        {"figure": "volatility index, z = 1.6449 (exact 90 %)" + _not_exact(sheet, "std"),
         "value": fmt_num(sheet.volatility_index(0.90))},
        {"figure": f"volatility index, z = {z_printed:g} (as printed on many sheets)" + _not_exact(sheet, "std"),
         "value": fmt_num(sheet.volatility_index(z=z_printed))},
    ]
    return _frame(rows, "figure")


AWARD_ROWS = 40  # rows of the awards-by-value table in the report (all of them are in the .xlsx workbook)


def awards_table(sheet, rows: int = AWARD_ROWS) -> pd.DataFrame:
    """Awards by value (x total bet): hits over the cycle, 1 in N, % of hits, % of RTP; the largest ``rows`` values."""
    a = sheet.awards
    if not len(a):
        return pd.DataFrame()
    a = a.sort_values("award", ascending=False).head(rows)
    return pd.DataFrame({"award (x total bet)": [fmt_num(x) for x in a["award"]], "hits": [f"{h:,}" for h in a["hits"]],
                         "1 in": [fmt_num(x, 2) for x in a["one_in"]], "% of hits": [f"{x:.4f}" for x in a["hits_pct"]],
                         "% of RTP": [f"{x:.4f}" for x in a["rtp_pct"]]}).set_index("award (x total bet)")


def bonus_awards_table(sheet) -> pd.DataFrame:
    """Bonus award tables of combination triggers: each award with its probability and share of the bonus RTP."""
    frames = [part.table for part in sheet.parts.values() if part.kind == "bonus"]
    if not frames:
        return pd.DataFrame()
    t = pd.concat(frames)
    award = [f"{fmt_money(x)} x {u.replace('_', ' ')}" if kind != "respin" else "spin again"
             for x, u, kind in zip(t["award"], t["unit"], t["segment"])]
    out = pd.DataFrame({"trigger": t["trigger"], "award": award, "weight": [f"{w:,}" for w in t["weight"]],
                        "probability": [fmt_pct(x, 2) for x in t["probability"]]})
    if (t["segment"] != "table").any():  # a wheel: which segment, and how often one award lands on it
        out["segment"] = list(t["segment"])
        out["landings per award"] = [fmt_num(x) for x in t["per_award"]]
    out["share of the bonus RTP"] = [fmt_pct(x, 2) for x in t["bonus_rtp_share"]]
    return out.set_index("trigger")


def prize_table(sheet) -> pd.DataFrame:
    """Prize structure: probability, 1 in N, share of hits and of pays by win level (x total bet)."""
    p = sheet.prize_structure
    return pd.DataFrame({"level": p["level"], "probability": [fmt_prob(x) for x in p["probability"]],
                         "1 in": [fmt_num(n, 2) if x > 0 else "never" for x, n in zip(p["probability"], p["one_in"])], "% of hits": [f"{x:.3f}" for x in p["hits_pct"]],
                         "% of pays": [f"{x:.3f}" for x in p["pays_pct"]], "basis": p["basis"]}).set_index("level")


def per_line_table(sheet) -> pd.DataFrame:
    """Per payline: RTP of one line bet (x line bet), hit frequency, std and volatility (x line bet)."""
    p = sheet.per_line
    df = pd.DataFrame({"line": [str(i) for i in p.index], "rows": p["rows"], "RTP (x line bet)": [fmt_pct(x) for x in p["rtp"]],
                       "hit frequency": [fmt_pct(x, 2) for x in p["hit_frequency"]],
                       "std (x line bet)": [fmt_num(x) for x in p["std"]],
                       "VI 90 % (x line bet)": [fmt_num(x) for x in p["volatility_index_90"]]})
    figures = df.drop(columns=["line", "rows"])
    if len(df) > 1 and (figures.nunique() == 1).all():  # every line pays alike: one row
        one = df.iloc[[0]].copy()
        one["line"] = f"every line (all {len(df):,})"
        one["rows"] = "any"
        df = one
    return df.set_index("line")


def component_table(est) -> pd.DataFrame:
    """RTP by component (x total bet) with 95 % half-width, method and share of the total RTP.

    Informational ``option:*`` components (what another player choice would
    pay) are left out: :func:`option_table` shows them.
    """
    rows = []
    for name, e in est.components.items():
        if name.startswith("option:"):  # what another player choice would pay: see option_table
            continue
        rows.append({"component": name, "RTP": fmt_pct(e.value), "± (95 %)": fmt_ci(e.ci95), "method": e.source,
                     "share of RTP": fmt_pct(e.value / est.rtp, 2) if est.rtp else "n/a"})
    rows.append({"component": "total", "RTP": fmt_pct(est.rtp), "± (95 %)": fmt_ci(est.rtp_ci95), "method": "",
                 "share of RTP": fmt_pct(1.0, 2)})
    return _frame(rows, "component")


def strata_table(est) -> pd.DataFrame:
    """Trigger states of the exact + conditional method: exact probability, mean extra win (x total bet), samples.

    States that cannot occur (probability 0) are left out.
    """
    rows = [{"trigger state": s.name, "probability": fmt_prob(s.probability), "1 in": fmt_one_in(s.probability),
             "mean extra win": fmt_x(s.mean_extra, 4) if _finite(s.mean_extra) else "n/a",
             "± (95 %)": fmt_num(s.ci95), "RTP contribution": fmt_pct(s.contribution) if _finite(s.contribution) else "n/a",
             "rounds simulated": f"{s.samples:,}"} for s in est.strata if s.probability > 0]
    return _frame(rows, "trigger state")


def bet_modes_table(modes: list) -> pd.DataFrame:
    """Every bet mode: cost (x total bet) and its RTP, CI, its gap to the base game's RTP (points, flagged outside
    :data:`~workbench.simulate.results.MODE_RTP_BAND`), exact base part, hit frequency, volatility and largest
    known win, each x the mode's own cost; its max_win cap (x the base total bet, as declared), the RTP the cap
    costs (x its cost, with CI) and the odds of a round reaching the cap."""
    from ..simulate.results import MODE_RTP_BAND, gap_text, mode_gap

    base = next((m.rtp for m in modes if m.name == "base"), None)

    def gap(m) -> str:
        if base is None or m.name == "base":
            return "-"
        return gap_text(*mode_gap(m.rtp, base, MODE_RTP_BAND))

    rows = [{"bet mode": m.name, "cost (x total bet)": fmt_x(m.cost), "RTP (x its cost)": fmt_pct(m.rtp),
             "± (95 %)": fmt_ci(m.rtp_ci95), "against the base game": gap(m), "exact base part": fmt_pct(m.base_part),
             "hit frequency": _hit_text(m, "hit_frequency"), "volatility index 90 %": fmt_num(m.volatility_index(0.90)),
             "largest known win (x its cost)": fmt_x(m.max_win),
             "max_win cap (x total bet)": fmt_x(m.max_win_cap) if getattr(m, "max_win_cap", None) else "-",
             "cap RTP cost (x its cost)": (f"{fmt_pct(m.cap_cost.value)} {fmt_ci(m.cap_cost.ci95)}"
                                           if getattr(m, "max_win_cap", None) else "-"),
             "rounds reaching the cap": (fmt_estimated_odds(m.max_win_probability, m.max_win_probability_ci95,
                                                            int(getattr(m.estimate, "samples", 0) or 0))
                                         if getattr(m, "max_win_cap", None) else "-"),
             "plays": plays_text(m.mode) + features_text(m.mode),
             "description": m.mode.description or ("the game itself" if m.name == "base" else "")} for m in modes]
    return _frame(rows, "bet mode")


def plays_text(mode) -> str:
    """What a bet mode's round plays, in words: its strips, the bought feature, or a prize mode's boards."""
    if mode.prize:
        lands = (f"every board landing from the strip sets of mode {mode.prize_strips}" if mode.prize_strips
                 else "every board landing by the respin weights")
        return f"prize mode: the feature only, from an empty screen, its first board one of its respins, {lands}"
    if mode.buy:
        return f"the feature only, bought as a trigger of {bought_text(mode)}"
    return f"strip sets of mode {mode.strip_sets}"


def features_text(mode) -> str:
    """The ``[features]`` parameters a bet mode plays otherwise, in words ("; its own features: free_spins_mode
    super_free, retrigger 3: 5"), or nothing."""
    if not mode.features:
        return ""
    return "; its own features: " + parameters_text(mode.features)


def choices_table(game, policies: dict) -> pd.DataFrame:
    """Every policy of every player choice (``[choices.*]``): RTP and 95 % half-width (x the cost of the mode
    priced), what it plays, and whether the game's figures are quoted for it."""
    rows = []
    for name, result in (policies or {}).items():
        choice = game.choices[name]
        for p in result.fixed + [p for p in (result.highest, result.lowest) if p is not None]:
            if p.option is not None:
                plays = parameters_text(choice.options[p.option] or choice.declared) or "[features] as written"
            else:
                plays = "per trigger state: " + ", ".join(f"{state} {option}" for state, option in p.picks.items())
            rows.append({"choice": name, "policy": p.name, f"RTP ({result.unit})": fmt_pct(p.rtp),
                         "± (95 %)": fmt_ci(p.ci95), "plays": plays,
                         "figures quoted for it": "yes" if p.option == result.played else "-"})
    return _frame(rows, "choice")


def bought_text(mode) -> str:
    """The count a bought feature starts with: "3", or drawn by weight "3 (weight 8), 4 (weight 1)"; and whether its
    forced trigger screen is paid."""
    counts = str(mode.buy_count) if not mode.buy_counts else (
        ", ".join(f"{c} (weight {w:,})" for c, w in mode.buy_counts) + ", drawn by weight")
    if mode.forced_screen == "paid":
        counts += "; its forced trigger screen (a base screen showing that many) paid as a base spin"
    return counts


def stake_table(stake_results: dict) -> pd.DataFrame:
    """RTP at each stake level (currency) with 95 % half-width, jackpot RTP and max win."""
    rows = []
    for stake, e in stake_results.items():
        rows.append({"stake (total bet)": fmt_money(float(stake)), "RTP": fmt_pct(e.rtp), "± (95 %)": fmt_ci(e.rtp_ci95),
                     "game RTP": fmt_pct(e.game_rtp), "jackpot RTP": fmt_pct(e.jackpot_rtp),
                     "max win cap (x total bet)": fmt_x(e.model.cap_total_bets) if e.model.cap_total_bets else "-"})
    return _frame(rows, "stake (total bet)")


def volatility_table(sheet, est) -> pd.DataFrame:
    """Spread of the win per round: std, volatility index (x total bet), spins for a ±1 % / ±0.1 % RTP band."""
    rows = []
    for label, s in ((f"exact {covers(sheet)}", sheet), ("whole game", est)):
        stats = s.statistics if hasattr(s, "statistics") else s
        rows.append({"": label, "std (x total bet)": fmt_num(stats.std), "VI 90 %": fmt_num(stats.volatility_index(0.90)),
                     "VI 95 %": fmt_num(stats.volatility_index(0.95)),
                     "spins for ± 1 % (95 %)": f"{stats.spins_for_precision(0.01):,}",
                     "spins for ± 0.1 % (95 %)": f"{stats.spins_for_precision(0.001):,}"})
    return _frame(rows, "")


def band_table(stats, spins=BAND_SPINS, confidences=BAND_CONFIDENCES, source=None, sessions: int = SESSIONS,
               seed: int = DEFAULT_SEED, budget: int = BAND_SIMULATION_DRAWS) -> pd.DataFrame:
    """RTP bands after n spins for each confidence c.

    Where the normal approximation ``rtp ± VI(c)/sqrt(n)`` is poor (few
    spins: the win distribution is skewed, the band can even go below 0), the
    band is the central quantiles of ``sessions`` simulated sessions of n
    spins drawn from ``source`` (while ``sessions x n`` stays within
    ``budget``).  A normal band never shows a negative RTP: it is clipped at 0
    and marked so.
    """
    rows = []
    for n in spins:
        row = {"spins": f"{n:,}"}
        normal = {c: stats.confidence_band(n, c) for c in confidences}
        simulate = source is not None and n * sessions <= budget
        if simulate:
            qs = [q for c in confidences for q in ((1 - c) / 2, (1 + c) / 2)]
            values = session_rtp_quantiles(source, n, qs, sessions, seed)
        clipped = False
        for k, c in enumerate(confidences):
            if simulate:
                lo, hi = values[2 * k], values[2 * k + 1]
            else:
                lo, hi = normal[c]
                if lo < 0:
                    lo, clipped = 0.0, True
            row[f"{c:.0%} band (RTP)"] = f"{100 * max(lo, 0.0):.2f} % – {100 * hi:.2f} %"
        row["method"] = (f"quantiles of {sessions:,} simulated sessions" if simulate
                         else "normal theory" + (" (clipped at 0 %)" if clipped else ""))
        rows.append(row)
    return _frame(rows, "spins")


def simulation_table(sim, est) -> pd.DataFrame:
    """Simulation against the exact + conditional estimate: RTP, hit frequency, agreement (z score, |z| <= 3)."""
    check = simulation_check(sim, est)
    diff, z = check["difference"], check["z"]
    capped = round(sim.cap_fraction * sim.spins)
    rows = [
        ("rounds simulated", f"{sim.spins:,}"),
        ("seed", str(sim.seed)),
        ("simulated RTP", f"{fmt_pct(sim.rtp)} {fmt_ci(sim.rtp_ci95)}"),
        ("exact + conditional RTP", f"{fmt_pct(est.rtp)} {fmt_ci(est.rtp_ci95)}"),
        ("difference", f"{100 * diff:+.4f} % (z = {z:+.2f})" if _finite(z) else f"{100 * diff:+.4f} %"),
        ("agreement threshold", f"|z| <= {AGREEMENT_Z:g} (a true game disagrees by chance about 1 in 370 runs)"),
        ("smallest RTP error the check detects", f"± {100 * check['resolution']:.2f} %" if _finite(check["resolution"]) else "n/a"),
        ("agreement", check["verdict"]),
        ("simulated hit frequency", _hit_text(sim, "hit_frequency")),
        ("rounds reaching the max-win cap", f"{capped:,} of {sim.spins:,}: {fmt_seen(capped, sim.spins)}"),
        ("rounds that confirm the RTP to ± 0.1 % (95 %)", _rounds_to_confirm(est, sim)),
    ]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def _rounds_to_confirm(est, sim) -> str:
    """End-to-end rounds whose 95 % half-width of the RTP is 0.1 %: (1.96 x std / 0.001)^2, std of a round's win (x
    total bet) from the exact + conditional estimate (the simulation's when it has none)."""
    std = est.std if _finite(est.std) and est.std > 0 else sim.std
    if not _finite(std) or std <= 0:
        return "n/a"
    need = math.ceil((1.96 * std / 0.001) ** 2)
    return f"{need:,} ({'this run has them' if sim.spins >= need else f'this run has {sim.spins:,}'})"


def simulated_components_table(sim) -> pd.DataFrame:
    """Simulated RTP by component (x total bet) with 95 % half-width."""
    rows = [{"component": k, "RTP": fmt_pct(e.value), "± (95 %)": fmt_ci(e.ci95)} for k, e in sim.components.items()]
    return _frame(rows, "component")


def feature_table(sim) -> pd.DataFrame:
    """Simulated feature statistics: starts, 1 in N rounds, average win per start (x total bet)."""
    rows = [{"feature": f.name, "starts": f"{f.starts:,}", "frequency (per round)": fmt_seen(f.starts, sim.spins),
             "average win": fmt_x(f.average_win, 3)} for f in sim.features.values()]
    return _frame(rows, "feature")


def option_table(est) -> pd.DataFrame:
    """RTP if the player always chose each option (x total bet)."""
    rows = [{"choice": name, "option": opt, "RTP": fmt_pct(v)} for name, alts in est.options.items() for opt, v in alts.items()]
    return _frame(rows, ["choice", "option"])


def exceedance_table(sheet, sim, levels=EXCEEDANCE_LEVELS) -> pd.DataFrame:
    """P(win >= level) per round: exact base game (full cycle) and simulated whole rounds."""
    from ..plots import win_data

    exact = sheet.distribution
    sim_data = win_data(sim) if sim is not None else None
    edges = np.asarray(sim.bucket_edges) if sim is not None else None
    tail = np.cumsum(np.asarray(sim.bucket_counts)[::-1])[::-1] / sim.spins if sim is not None else None
    rows = []
    for level in levels:
        row = {"win at least": fmt_x(level)}
        if exact is not None:
            row[f"exact {covers(sheet)}"] = fmt_one_in(exact.sf(level))
        if sim_data is not None:
            i = int(np.searchsorted(edges, level * (1 - 1e-9)))
            seen = int(round(float(tail[i]) * sim.spins)) if i < len(tail) else 0
            row["simulated"] = fmt_seen(seen, sim.spins)
        rows.append(row)
    return _frame(rows, "win at least")


def max_win_table(sheet, est, sim=None) -> pd.DataFrame:
    """Max win analysis (x total bet): the theoretical maximum (exact base game, cap), how it is
    reached, its odds, and the largest win seen in the simulation with its odds."""
    game = sheet.game
    stake = stake_text(est.model, game)
    at = f" at stake {stake}" if stake else ""
    cap = est.model.cap_total_bets
    features = any(s.samples for s in est.strata) or any(s.probability > 0 for s in est.strata)
    part = covers(sheet)
    adj = part.replace(" ", "-")  # "base-game max win", "first-drop max win"
    if getattr(sheet, "max_win_exact", True):
        one = "one base-game spin" if part == "base game" else f"the {part} of one spin"
        base = f"{fmt_x(sheet.max_win)} total bet (exact: the largest win of {one} over every stop combination)"
    else:
        base = (f"at least {fmt_x(sheet.max_win)}, at most {fmt_x(sheet.max_win_upper)} total bet "
                "(the exact search stopped at its budget)")
    rows = [(f"exact {adj} max win", base)]
    if sheet.distribution is not None:
        p = sheet.distribution.pmf(sheet.max_win)
        d = sheet.distribution
        hits = int(d.hits[-1]) if len(d.hits) and d.max_win == sheet.max_win else None
        rows.append((f"odds of the {adj} max win", f"{fmt_one_in(p)} spins"
                     + (f" ({fmt_count(hits, 'stop combination')} of {d.cycle:,} in the cycle)" if hits else "")))
    elif getattr(sheet, "distribution_note", None):
        rows.append((f"exact {adj} distribution", sheet.distribution_note))
    if cap:
        money = f" = {cap * float(est.model.stake):,.2f} {game.bet.currency}".rstrip() if est.model.stake else ""
        rows.append(("max-win cap", f"{fmt_x(cap)} total bet{at}{money}: a round whose wins reach it is paid the cap and ends"))
        whole = f"{fmt_x(cap)} total bet{at} (the cap bounds every round)"
    elif not features and not est.jackpot_rtp:
        whole = f"{fmt_x(sheet.max_win)} total bet (the game is the base game: its exact maximum)"
    else:
        beyond = "the features" if part == "base game" else f"the simulated part of a round (after its {part})"
        whole = (f"no exact bound: no cap, and {beyond} can pay more than any analysed round; the largest "
                 f"known is {fmt_x(est.max_win)} total bet")
    rows.insert(0, ("theoretical max win (whole game)", whole))
    if not cap:
        rows.append(("max-win cap", "none"))
    rows.append(("largest win in the RTP estimate", f"{fmt_x(est.max_win)} total bet"))
    if sim is not None:
        count = sim.max_win_count
        odds = fmt_seen(count, sim.spins) if count else "n/a"
        rows.append(("largest win simulated", f"{fmt_x(sim.max_win)} total bet, seen {fmt_count(count, 'time')} in "
                     f"{sim.spins:,} rounds ({odds})"))
        if sim.max_win_round is not None:  # replayable: workbench replay GAME --seed S --round N
            top = sim.max_win_round
            mode = f" --bet-mode {top.bet_mode}" if top.bet_mode != "base" else ""
            stake = f" --stake {top.stake:g}" if top.stake is not None else ""
            rows.append(("round of the largest simulated win",
                         f"round {top.round:,} of seed {sim.seed} (workbench replay GAME --seed {sim.seed} "
                         f"--round {top.round}{mode}{stake}): {top.happened()}"))
        capped = round(sim.cap_fraction * sim.spins)
        rows.append(("rounds capped (simulated)", f"{capped:,} of {sim.spins:,}: {fmt_seen(capped, sim.spins)}"))
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def session_table(source, spins: int = SESSION_SPINS, bankroll: float = SESSION_BANKROLL, sessions: int = SESSIONS,
                  seed: int = DEFAULT_SEED) -> pd.DataFrame:
    """Player sessions at a few checkpoints: balance percentiles (x total bet), P(ahead), P(broke)."""
    from ..plots import session_percentiles

    df = session_percentiles(source, spins, bankroll, sessions, seed)
    marks = sorted({n for n in (10, 50, 100, 250, 500, 1000, 2000, 5000, spins) if n <= spins})
    out = df.loc[marks].copy()
    for col in out.columns:
        # P(ahead), P(broke): shares of the simulated sessions, with their Clopper-Pearson interval
        out[col] = [fmt_pct_seen(round(v * sessions), sessions, 1) if col in ("ahead", "broke") else f"{v:,.1f}"
                    for v in out[col]]
    out = out.rename(columns={"ahead": "P(ahead)", "broke": "P(broke)",
                              **{c: f"{c[1:]} % of sessions (x total bet)" for c in out.columns if c.startswith("p")}})
    out.index = [f"{n:,}" for n in out.index]
    out.index.name = "after spins"
    return out


def par_tables(sheet) -> dict:
    """The PAR sheet's tables by name (as in the .xlsx workbook)."""
    summary = sheet.summary.to_frame()
    # how each figure was obtained: "exact", or "simulated (N rounds)" where the exact engine left it out
    sources = {v.key: v.source for v in sheet.figures()}
    summary["source"] = [sources.get(key, "") for key in summary.index]
    return {"summary": summary, **{name: getattr(sheet, name) for name in PAR_TABLES[1:]}}
