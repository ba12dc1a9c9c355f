"""The report's feature statistics: per feature, how often it starts, how long it runs and what it pays.

Read from a :class:`~workbench.simulate.feature_sample.FeatureStatistics` (rounds sampled where each feature
starts, weighted to natural play) and the RTP estimate (each feature's share of the RTP, from its components).
Every figure is labelled with its unit (x total bet, or x the bet mode's cost) and every estimate carries its 95 %
interval; tables are strings as a test lab reads them.
"""

from __future__ import annotations

import pandas as pd

from .formats import fmt_estimated_odds, fmt_num, fmt_one_in, fmt_pct, fmt_prob, fmt_x

SPIN_ROWS = 16  # rows of the spins-per-feature table before the rest is one "or more" row


def _win(x: float) -> str:
    return fmt_x(x, 2)


def _share(est, feature_components) -> str:
    """The feature's share of the whole-game RTP from the RTP estimate's components (with its interval)."""
    if est is None or not est.rtp:
        return "n/a"
    parts = [est.components[c] for c in feature_components if c in est.components]
    if not parts:
        return "n/a"
    value = sum(p.value for p in parts)
    half = sum(p.ci95**2 for p in parts) ** 0.5
    return f"{fmt_pct(value / est.rtp, 2)} ± {fmt_pct(half / est.rtp, 2)} ({fmt_pct(value, 3)} of {fmt_pct(est.rtp, 3)})"


def _frequency(sample) -> str:
    if sample.exact_trigger:
        return f"{fmt_one_in(sample.frequency)} (exact: every round of its trigger states starts it)"
    return fmt_estimated_odds(sample.frequency, sample.frequency_ci95, sample.rounds)


def feature_statistics_table(stats, est=None) -> pd.DataFrame:
    """One column per sampled feature, one row per figure: starts per round, samples, win per feature (mean with
    its 95 % interval, std, percentiles 50 / 90 / 99 / 99.9; x the round's price), spins per feature (mean, median,
    99th percentile), retrigger rate and the feature's share of the RTP (its components in ``est``)."""
    columns = {}
    for name, s in stats.features.items():
        col = {"starts (per round)": _frequency(s), "features sampled": f"{s.count:,} (from {s.rounds:,} rounds)"}
        if s.count:
            mean, half = s.mean_win
            col["win per feature: mean"] = f"{_win(mean)} ± {fmt_num(half, 2)}"
            col["win per feature: std"] = _win(s.std_win)
            for q in (50, 90, 99, 99.9):
                col[f"win per feature: {q:g}th percentile"] = _win(s.percentile(q))
            col["win per feature: largest sampled"] = _win(float(s.wins.max()))
        if s.count and s.spins is not None:
            mean, half = s.mean_spins
            col["spins per feature: mean"] = f"{fmt_num(mean, 2)} ± {fmt_num(half, 2)}"
            col["spins per feature: median, 99th percentile"] = (
                f"{s.percentile(50, s.spins):,.0f}, {s.percentile(99, s.spins):,.0f}")
        if s.count and s.retriggers is not None:
            rate, half = s.retrigger_rate
            col["retriggered at least once"] = f"{fmt_pct(rate, 2)} ± {fmt_pct(half, 2)}"
            col["retriggers per feature: mean"] = fmt_num(s.mean_retriggers, 3)
        col["share of the RTP"] = _share(est, s.components)
        columns[name] = col
    if not columns:
        return pd.DataFrame()
    df = pd.DataFrame(columns)
    df.index.name = "figure"
    return df.fillna("")


def feature_statistics_title(stats, game) -> str:
    unit = "x total bet" if game.bet_mode.name == "base" else f"x the {game.bet_mode.name} bet mode's cost"
    left = f"; the time box stopped it after {stats.seconds:,.1f} s" if stats.timed_out else ""
    return (f"Feature statistics ({unit}; wins before any max-win cap; {stats.rounds:,} rounds sampled where the "
            f"features start, seed {stats.seed}{left}; ± is the 95 % interval)")


def spins_distribution_table(stats, rows: int = SPIN_ROWS) -> pd.DataFrame:
    """The distribution of spins per feature of every feature that counts its spins: spins, probability per
    feature and probability of at least that many, each with its 95 % half-width; beyond ``rows`` values one "or
    more" row."""
    frames = []
    for name, s in stats.features.items():
        dist = s.spins_distribution()
        if not dist:
            continue
        out = []
        for i, (spins, _) in enumerate(dist):
            last = i == rows - 1 and len(dist) > rows
            p, half = s.probability_ci(s.spins >= spins if last else s.spins == spins)
            tail, tail_half = s.probability_ci(s.spins >= spins)
            out.append({"feature": name, "spins": f"{spins:,}" + (" or more" if last else ""),
                        "probability": f"{fmt_prob(p)} ± {fmt_prob(half, 2)}",
                        "at least this many": f"{fmt_prob(tail)} ± {fmt_prob(tail_half, 2)}"})
            if last:
                break
        frames.append(pd.DataFrame(out))
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True).set_index(["feature", "spins"])


def skipped_text(stats) -> str:
    """Features not sampled, with why (empty when none)."""
    return "; ".join(f"{name}: {why}" for name, why in stats.skipped.items())


def feature_statistics_data(stats) -> dict:
    """Plain numbers for the report JSON and the workbook (x the round's price; probabilities as fractions)."""
    out = {}
    for name, s in stats.features.items():
        row = {"starts_per_round": s.frequency, "starts_per_round_ci95": s.frequency_ci95,
               "exact_trigger": s.exact_trigger, "samples": s.count, "rounds": s.rounds}
        if s.count:
            mean, half = s.mean_win
            row.update(win_mean=mean, win_mean_ci95=half, win_std=s.std_win,
                       win_percentiles={f"{q:g}": s.percentile(q) for q in (50, 90, 99, 99.9)})
            if s.spins is not None:
                row["spins_mean"], row["spins_mean_ci95"] = s.mean_spins
                row["spins_distribution"] = [{"spins": v, "probability": p} for v, p in s.spins_distribution()]
            if s.retriggers is not None:
                row["retrigger_rate"], row["retrigger_rate_ci95"] = s.retrigger_rate
        out[name] = row
    return {"seed": stats.seed, "rounds": stats.rounds, "timed_out": stats.timed_out,
            "features": out, "not_sampled": dict(stats.skipped)}
