"""Static figures of a game's math for notebooks and reports.

Every plotting function returns a :class:`matplotlib.figure.Figure` built with
the object-oriented API (no pyplot state, nothing shown on screen), so the
figures can be saved as images or embedded in reports; pass ``ax`` to draw
into an existing Axes instead (the function then returns that Axes' figure).

Units: wins and balances are in multiples of the total bet (``x total
bet``); RTP, hit frequency and probabilities are fractions (0.95 = 95 %),
shown as percent on the axes.  The data behind each figure is available from
a plain function (:func:`win_data`, :func:`funnel_band`,
:func:`simulate_sessions`, :func:`session_percentiles`, ...) so it can be
tabulated and tested.

Sources accepted where a win distribution is needed:

- a :class:`~workbench.exact.par.ParSheet` (exact; its full-cycle
  ``distribution``, or, when the cycle was too big to enumerate, the
  per-award rates of its line combinations and scatter pays);
- a :class:`~workbench.stats.WinDistribution` (exact);
- a :class:`~workbench.simulate.SimulationResult` (its log-spaced win buckets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from .plot_layout import _finish, layout_problems  # noqa: F401 (layout_problems: part of this module's API)
from .stats import z_value

FIGSIZE = (8.0, 4.5)  # inches
DPI = 100
PERCENTILES = (5, 25, 50, 75, 95)
DECADE_STEPS = 10  # log-spaced histogram buckets per decade (as the simulator's)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _new_axes(ax=None, figsize=FIGSIZE):
    """(figure, axes): a fresh constrained-layout figure, or ``ax`` and its figure."""
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=figsize, dpi=DPI, layout="constrained")
    return fig, fig.add_subplot()


def _game_name(source) -> str:
    for attr in ("game", "model"):
        obj = getattr(source, attr, None)
        if obj is None:
            continue
        game = getattr(obj, "game", obj)
        name = getattr(game, "name", None)
        if name:
            return str(name)
    return ""


def _titled(name: str, text: str) -> str:
    return f"{name}: {text}" if name else text


def _value_ci(value) -> tuple[float, float]:
    """(value, 95 % half-width) of a float, an Estimate, a dict or a (value, ci) pair."""
    if isinstance(value, dict):
        return float(value["value"]), float(value.get("ci95", 0.0) or 0.0)
    if hasattr(value, "value"):
        return float(value.value), float(getattr(value, "ci95", 0.0) or 0.0)
    if isinstance(value, (tuple, list)):
        return float(value[0]), float(value[1])
    return float(value), 0.0


def _log_edges(lo: float, hi: float) -> np.ndarray:
    """Bucket edges (x total bet) with DECADE_STEPS per decade covering [lo, hi]."""
    first = math.floor(math.log10(lo) * DECADE_STEPS + 1e-9)
    last = math.floor(math.log10(hi) * DECADE_STEPS + 1e-9) + 1
    return 10.0 ** (np.arange(first, last + 1) / DECADE_STEPS)


# ---------------------------------------------------------------------------
# win distribution data
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class WinData:
    """A win distribution ready to plot (amounts x total bet).

    ``kind`` is ``"exact"``, ``"simulated"`` or ``"per award"``.  Buckets are
    log-spaced: bucket i covers ``[bucket_from[i], bucket_to[i])`` and has
    probability per round ``bucket_p[i]`` (awards per spin for ``per award``);
    only non-empty buckets are listed.  ``exceed_x`` / ``exceed_p`` give
    P(win >= x) (for ``per award``: awards >= x per spin); its first value is
    the hit frequency.  ``values`` / ``probabilities`` hold the discrete
    outcomes, zero win included (exact only) and are None for simulations.
    """

    kind: str
    name: str
    bucket_from: np.ndarray
    bucket_to: np.ndarray
    bucket_p: np.ndarray
    exceed_x: np.ndarray
    exceed_p: np.ndarray
    max_win: float
    hit_frequency: float
    spins: int | None = None
    values: np.ndarray | None = None
    probabilities: np.ndarray | None = None
    subject: str = "win distribution"

    @property
    def title(self) -> str:
        if self.kind == "simulated":
            return _titled(self.name, f"win distribution per round (simulated whole game, {self.spins:,} rounds)")
        if self.kind == "per award":
            return _titled(self.name, "award distribution (exact, per award)")
        return _titled(self.name, f"{self.subject} (exact, full cycle)")

    def table(self) -> pd.DataFrame:
        """The buckets as a DataFrame: from, to (x total bet), probability, P(win >= from)."""
        tail = np.cumsum(self.bucket_p[::-1])[::-1]
        return pd.DataFrame({"from": self.bucket_from, "to": self.bucket_to, "probability": self.bucket_p,
                             "p_at_least": tail})


def _discrete_buckets(values: np.ndarray, probs: np.ndarray):
    """Log buckets of positive discrete outcomes: (from, to, probability) of non-empty ones."""
    mask = (values > 0) & (probs > 0)
    v, p = values[mask], probs[mask]
    if not len(v):
        empty = np.zeros(0)
        return empty, empty, empty
    edges = _log_edges(v.min(), v.max())
    idx = np.searchsorted(edges, v * (1 + 1e-12), side="right") - 1
    sums = np.bincount(idx, weights=p, minlength=len(edges) - 1)
    keep = np.flatnonzero(sums > 0)
    return edges[keep], edges[keep + 1], sums[keep]


def _exact_data(name: str, values: np.ndarray, probs: np.ndarray, max_win: float, kind: str,
                subject: str = "win distribution") -> WinData:
    order = np.argsort(values, kind="stable")
    values, probs = np.asarray(values, float)[order], np.asarray(probs, float)[order]
    lo, hi, p = _discrete_buckets(values, probs)
    positive = (values > 0) & (probs > 0)
    x = values[positive]
    tail = np.cumsum(probs[positive][::-1])[::-1]
    return WinData(kind, name, lo, hi, p, x, tail, float(max_win), float(tail[0]) if len(tail) else 0.0,
                   values=values, probabilities=probs, subject=subject)


def _award_outcomes(sheet) -> tuple[np.ndarray, np.ndarray]:
    """Every line and scatter award (x total bet) with its expected count per spin."""
    bet = sheet.game.bet
    combos = sheet.combinations
    scat = sheet.scatter_pays[sheet.scatter_pays["pay"] > 0]
    line_unit = float(bet.in_total_bets(Fraction(1), bet.line_pay_unit))
    scat_unit = np.array([float(bet.in_total_bets(Fraction(1), u)) for u in scat["unit"]])
    values = np.concatenate([combos["pay"].to_numpy(float) * line_unit, scat["pay"].to_numpy(float) * scat_unit])
    per_hit = combos["clusters_per_hit"].to_numpy(float) if "clusters_per_hit" in combos else 1.0  # every cluster pays
    rates = np.concatenate([combos["hits"].to_numpy(float) * per_hit / sheet.cycle, scat["hits"].to_numpy(float) / sheet.cycle])
    return values, rates


def _simulated_data(result) -> WinData:
    edges = np.asarray(result.bucket_edges, float)
    counts = np.asarray(result.bucket_counts, np.int64)
    n = int(result.spins)
    nz = np.flatnonzero(counts)
    step = 10.0 ** (1 / DECADE_STEPS)
    lo = edges[nz].copy()
    lo[lo <= 0] = edges[1] / step  # bucket 0 holds wins in (0, edges[1])
    hi = np.array([edges[i + 1] if i + 1 < len(edges) else max(result.max_win, edges[i] * step) for i in nz])
    p = counts[nz] / n if n else counts[nz].astype(float)
    # P(win >= edge) is exact at the bucket edges (whole rounds were counted)
    tail = np.cumsum(counts[::-1])[::-1][nz] / n if n else np.zeros(len(nz))
    x, ex = list(lo), list(tail)
    if len(nz) and result.max_win > lo[-1]:
        x.append(float(result.max_win))
        ex.append(result.max_win_count / n)
    return WinData("simulated", _game_name(result), lo, hi, p, np.array(x), np.array(ex), float(result.max_win),
                   float(result.hit_frequency), spins=n)


def win_data(source) -> WinData:
    """The win distribution of ``source`` (see the module docstring) as :class:`WinData`."""
    if hasattr(source, "bucket_counts"):
        return _simulated_data(source)
    if hasattr(source, "exceedance") and hasattr(source, "values"):  # a WinDistribution
        return _exact_data("", source.values, source.probabilities, source.max_win, "exact")
    if hasattr(source, "combinations"):  # a ParSheet
        name = _game_name(source)
        if source.distribution is not None:
            d = source.distribution
            what = getattr(source, "covers", "base game").replace(" ", "-") if source.mode == "base" else f"{source.mode}-game"
            return _exact_data(name, d.values, d.probabilities, d.max_win, "exact", f"{what} spin wins")
        values, rates = _award_outcomes(source)
        data = _exact_data(name, values, rates, source.max_win, "per award")
        return data
    raise TypeError(f"no win distribution in {type(source).__name__}: pass a ParSheet, WinDistribution or SimulationResult")


# ---------------------------------------------------------------------------
# win distribution plot
# ---------------------------------------------------------------------------
def win_distribution(source, ax=None) -> Figure:
    """Probability by win size (x total bet) on log-log axes.

    Bars: probability per round of a win in each log-spaced bucket (10 per
    decade).  Line: the exceedance curve P(win >= x), starting at the hit
    frequency.  Dashed vertical line: the max win (exact for a PAR sheet,
    largest seen for a simulation).  For a PAR sheet without full-cycle
    distribution the per-award rates (awards per spin) are drawn instead and
    the plot is labelled "per award".
    """
    data = win_data(source)
    fig, ax = _new_axes(ax)
    per_award = data.kind == "per award"
    unit = "awards per spin" if per_award else "probability per round"
    if len(data.bucket_p):
        ax.bar(data.bucket_from, data.bucket_p, width=data.bucket_to - data.bucket_from, align="edge",
               color="tab:blue", alpha=0.45, edgecolor="tab:blue", label=f"{unit} (log bucket)")
    if len(data.exceed_x):
        ax.plot(data.exceed_x, data.exceed_p, color="tab:orange", lw=2, marker=None if data.kind != "simulated" else ".",
                drawstyle="default" if data.kind == "simulated" else "steps-pre",
                label="awards >= x per spin" if per_award else "P(win >= x)", gid="exceedance")
    if data.max_win > 0:
        ax.axvline(data.max_win, color="tab:red", ls="--", lw=1.2, label=f"max win {data.max_win:,.6g}x", gid="max_win")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("win (x total bet)")
    ax.set_ylabel(unit)
    ax.set_title(data.title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower left", fontsize="small")
    return _finish(fig)


# ---------------------------------------------------------------------------
# RTP confidence funnel
# ---------------------------------------------------------------------------
def funnel_band(stats, spins, confidence: float = 0.95) -> pd.DataFrame:
    """RTP band ``rtp +- VI(confidence) / sqrt(n)`` for each ``n`` in ``spins``.

    ``stats`` is anything with ``rtp`` and ``volatility_index(confidence)``
    (ParSheet, WinStatistics, SimulationResult, RtpEstimate).  Columns:
    spins, rtp, lower, upper, half_width (fractions of the total bet).
    """
    n = np.asarray(spins, dtype=float)
    half = stats.volatility_index(confidence) / np.sqrt(n)
    return pd.DataFrame({"spins": n, "rtp": stats.rtp, "lower": stats.rtp - half, "upper": stats.rtp + half,
                         "half_width": half})


def rtp_funnel(stats, spins_range=(1_000, 100_000_000), trace=None, confidence: float = 0.95, ax=None) -> Figure:
    """RTP confidence funnel: where the measured RTP lies after n spins.

    Shaded band and its edge lines: ``rtp +- VI(confidence) / sqrt(n)`` for n
    in ``spins_range`` (log x axis); horizontal line: the RTP; the title says
    which VI (:func:`vi_text`).  ``trace``, a DataFrame with columns ``spins``
    and ``rtp`` (optionally ``ci95``) such as ``SimulationResult.trace``, is
    drawn on top as the running simulated RTP (one point: the simulated RTP
    after its N rounds).  The y axis is in percent of the total bet.
    """
    fig, ax = _new_axes(ax)
    lo, hi = spins_range
    if trace is not None and len(trace):
        lo = min(lo, float(trace["spins"].min()))
        hi = max(hi, float(trace["spins"].max()))
    band = funnel_band(stats, np.geomspace(lo, hi, 200), confidence)
    ax.fill_between(band["spins"], band["lower"], band["upper"], color="tab:blue", alpha=0.2,
                    label=f"{confidence:.0%} band: RTP ± VI/√n")
    ax.plot(band["spins"], band["upper"], color="tab:blue", lw=1, gid="upper")
    ax.plot(band["spins"], band["lower"], color="tab:blue", lw=1, gid="lower")
    ax.axhline(stats.rtp, color="black", lw=1, label=f"RTP {stats.rtp:.4%}", gid="rtp")
    if trace is not None and len(trace):
        yerr = trace["ci95"] if "ci95" in trace else None
        what = "simulated running RTP" if len(trace) > 1 else f"simulated RTP after {int(trace['spins'].iloc[0]):,} rounds"
        ax.errorbar(trace["spins"], trace["rtp"], yerr=yerr, color="tab:orange", marker="o", ms=3 if len(trace) > 1 else 5,
                    lw=1, capsize=2 if len(trace) > 1 else 4, label=what + (" (± 95 %)" if yerr is not None else ""),
                    gid="trace")
    ax.set_xscale("log")
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.set_xlabel("spins")
    ax.set_ylabel("RTP (% of total bet)")
    ax.set_title(_titled(_game_name(stats), f"RTP confidence funnel: {vi_text(stats, confidence)}"))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return _finish(fig)


def vi_text(stats, confidence: float = 0.95) -> str:
    """The VI of ``stats`` named by its row of the report's Volatility table: ``exact base game`` (PAR sheet), ``whole
    game`` (RtpEstimate: exact base-game moments + the trigger states' conditional simulation), else ``simulation``
    (its own std), e.g. ``"VI 7.6143 at 95 % of the whole game (1.960 x std 3.8849, exact + conditional)"``."""
    if hasattr(stats, "strata"):  # an RtpEstimate
        strata = getattr(getattr(stats, "model", None), "strata", ())
        how = ("exact" if getattr(stats, "stopped_by", "") == "exact" else
               "simulated rounds" if any(getattr(s, "end_to_end", False) for s in strata) else "exact + conditional")
        row = "whole game"
    elif hasattr(stats, "combinations"):  # a ParSheet
        row = f"exact {getattr(stats, 'covers', 'base game')}"
        how = stats.source("std") if hasattr(stats, "source") else "exact"
    elif hasattr(stats, "bucket_counts"):  # a SimulationResult
        row, how = "simulation", f"{int(stats.spins):,} simulated rounds"
    else:
        row, how = "", "given"
    return (f"VI {stats.volatility_index(confidence):,.4f} at {100 * confidence:g} %" + (f" of the {row}" if row else "")
            + f" ({z_value(confidence):.3f} x std {stats.std:,.4f}, {how})")


# ---------------------------------------------------------------------------
# player sessions
# ---------------------------------------------------------------------------
def sample_wins(source, size, rng: np.random.Generator) -> np.ndarray:
    """Random wins per round (x total bet) drawn from the distribution of ``source``.

    Exact sources draw the discrete outcomes with their probabilities; a
    simulation draws a bucket by its frequency (no win with probability 1 -
    hit frequency), then a value log-uniformly inside the bucket (capped at
    the largest win seen).  A per-award PAR sheet (no full cycle) cannot be
    sampled: use a simulation result instead.
    """
    data = win_data(source)
    if data.kind == "per award":
        raise ValueError("the PAR sheet has no full-cycle distribution; sample a SimulationResult instead")
    if data.kind == "exact":
        p = data.probabilities / data.probabilities.sum()
        return data.values[rng.choice(len(p), size=size, p=p)]
    p = np.concatenate([[max(1.0 - data.bucket_p.sum(), 0.0)], data.bucket_p])
    p = p / p.sum()
    pick = rng.choice(len(p), size=size, p=p)
    lo = np.concatenate([[1.0], data.bucket_from])[pick]
    hi = np.concatenate([[1.0], np.minimum(data.bucket_to, max(data.max_win, 0.0))])[pick]
    hi = np.maximum(hi, lo)
    u = rng.random(size)
    wins = np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo)))
    return np.where(pick == 0, 0.0, wins)


def simulate_sessions(source, spins: int = 1000, bankroll: float = 100.0, sessions: int = 2000, seed: int = 1,
                      stop_when_broke: bool = True) -> np.ndarray:
    """Balances (x total bet) of ``sessions`` players over ``spins`` spins each.

    Each spin costs one total bet and pays a win drawn by :func:`sample_wins`
    with ``numpy.random.default_rng(seed)`` (same seed, same sessions).
    With ``stop_when_broke`` a player whose balance drops below one total bet
    stops playing and keeps that balance.  Returns an array of shape
    (sessions, spins + 1); column 0 is the starting ``bankroll``.
    """
    if spins <= 0 or sessions <= 0:
        raise ValueError("spins and sessions must be positive")
    rng = np.random.default_rng(seed)
    wins = sample_wins(source, (sessions, spins), rng)
    balance = np.empty((sessions, spins + 1))
    balance[:, 0] = bankroll
    np.cumsum(wins - 1.0, axis=1, out=balance[:, 1:])
    balance[:, 1:] += bankroll
    if stop_when_broke:
        broke = np.maximum.accumulate(balance < 1.0, axis=1)
        first = np.where(broke.any(axis=1), broke.argmax(axis=1), spins)
        cols = np.minimum(np.arange(spins + 1)[None, :], first[:, None])
        balance = np.take_along_axis(balance, cols, axis=1)
    return balance


def session_percentiles(source, spins: int = 1000, bankroll: float = 100.0, sessions: int = 2000, seed: int = 1,
                        percentiles=PERCENTILES) -> pd.DataFrame:
    """Percentiles of the balance (x total bet) after each spin, plus P(ahead) and P(broke).

    Index: spins played (0..spins); columns ``p5``, ``p25``, ... (balance),
    ``ahead`` (fraction of sessions with balance > bankroll) and ``broke``
    (fraction that can no longer afford a spin).
    """
    balance = simulate_sessions(source, spins, bankroll, sessions, seed)
    q = np.percentile(balance, percentiles, axis=0)
    df = pd.DataFrame({f"p{p:g}": row for p, row in zip(percentiles, q)})
    df["ahead"] = (balance > bankroll).mean(axis=0)
    df["broke"] = (balance < 1.0).mean(axis=0)
    df.index.name = "spins"
    return df


def _source_label(source) -> str:
    kind = win_data(source).kind
    return "simulated distribution" if kind == "simulated" else "exact distribution"


def session_outcomes(source, spins: int = 1000, bankroll: float = 100.0, sessions: int = 2000, seed: int = 1,
                     ax=None) -> Figure:
    """Balance percentiles (5/25/50/75/95 %) over ``spins`` spins from ``bankroll`` (x total bet).

    ``sessions`` players are simulated by :func:`simulate_sessions`
    (reproducible with ``seed``); the dashed line is the starting bankroll.
    """
    df = session_percentiles(source, spins, bankroll, sessions, seed)
    fig, ax = _new_axes(ax)
    x = df.index.to_numpy()
    ax.fill_between(x, df["p5"], df["p95"], color="tab:blue", alpha=0.12, label="5 - 95 %")
    ax.fill_between(x, df["p25"], df["p75"], color="tab:blue", alpha=0.25, label="25 - 75 %")
    for p in PERCENTILES:
        ax.plot(x, df[f"p{p:g}"], color="tab:blue", lw=2 if p == 50 else 0.8, gid=f"p{p:g}",
                label="median" if p == 50 else None)
    ax.axhline(bankroll, color="black", ls="--", lw=1, label=f"start {bankroll:g}x", gid="bankroll")
    ax.set_xlim(0, spins)
    ax.set_xlabel("spins played")
    ax.set_ylabel("balance (x total bet)")
    ax.set_title(_titled(_game_name(source), f"balance of {sessions:,} sessions from {bankroll:g}x ({_source_label(source)})"))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    return _finish(fig)


def probability_ahead(source, spins: int = 1000, bankroll: float = 100.0, sessions: int = 2000, seed: int = 1,
                      ax=None) -> Figure:
    """P(balance > starting bankroll) and P(broke) after each spin (y in percent).

    Same sessions as :func:`session_outcomes` for the same arguments.
    """
    df = session_percentiles(source, spins, bankroll, sessions, seed)
    fig, ax = _new_axes(ax)
    x = df.index.to_numpy()[1:]
    ax.plot(x, df["ahead"].to_numpy()[1:], color="tab:green", lw=2, label="P(balance > start)", gid="ahead")
    if df["broke"].any():
        ax.plot(x, df["broke"].to_numpy()[1:], color="tab:red", lw=1.2, label="P(broke)", gid="broke")
    ax.set_xlim(0, spins)
    ax.set_ylim(0, 1)
    ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.set_xlabel("spins played")
    ax.set_ylabel("share of sessions")
    ax.set_title(_titled(_game_name(source), f"chance to be ahead, bankroll {bankroll:g}x ({_source_label(source)})"))
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    return _finish(fig)


# ---------------------------------------------------------------------------
# RTP composition
# ---------------------------------------------------------------------------
def _barh(ax, labels, values, errors=None, color="tab:blue"):
    y = np.arange(len(labels))[::-1]
    bars = ax.barh(y, values, xerr=errors if errors is not None and np.any(np.asarray(errors) > 0) else None,
                   color=color, alpha=0.8, capsize=3)
    ax.set_yticks(y, labels)
    return bars


def rtp_composition(components, ax=None, title: str | None = None) -> Figure:
    """Horizontal bars of RTP by component (percent of total bet).

    ``components`` maps names to floats or to values with a 95 % half-width
    (:class:`~workbench.simulate.Estimate`, ``{"value", "ci95"}`` dicts or
    (value, ci) pairs); error bars are drawn when any half-width is
    positive.  Informational ``option:*`` components (what another player
    choice would pay) are left out.  The title shows the total.
    """
    items = [(name, *_value_ci(v)) for name, v in components.items() if not str(name).startswith("option:")]
    fig, ax = _new_axes(ax, figsize=(8.0, max(2.0, 0.45 * len(items) + 1.2)))
    labels = [n for n, _, _ in items]
    values = np.array([v for _, v, _ in items])
    errors = np.array([c for _, _, c in items])
    bars = _barh(ax, labels, values, errors)
    ax.bar_label(bars, labels=[f"{v:.3%}" + (f" ± {c:.3%}" if c > 0 else "") for v, c in zip(values, errors)],
                 padding=4, fontsize="small")
    ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.set_xlabel("RTP (% of total bet)")
    ax.margins(x=0.05)
    total = float(values.sum())
    ax.set_title(title or _titled("", f"RTP by component (total {total:.4%})"))
    ax.grid(True, axis="x", alpha=0.3)
    return _finish(fig, [ax])


def symbol_rtp(sheet) -> pd.Series:
    """RTP share (fraction of the base-game RTP) by paying symbol, scatters labelled ``NAME (scatter)``."""
    by_symbol = sheet.combinations.groupby("symbol", sort=False)["rtp"].sum()
    scat = sheet.scatter_pays
    if len(scat):
        by_scatter = scat.groupby("scatter", sort=False)["rtp"].sum()
        by_scatter.index = [f"{name} (scatter)" for name in by_scatter.index]
        by_symbol = pd.concat([by_symbol, by_scatter])
    share = by_symbol / sheet.rtp if sheet.rtp else by_symbol * 0.0
    share = share[share != 0].sort_values(ascending=False, kind="stable")
    share.name = "rtp_share"
    return share


def rtp_by_symbol(sheet, ax=None) -> Figure:
    """Share of the exact base-game (or first-drop) RTP paid by each symbol's wins (and each scatter), in percent."""
    share = symbol_rtp(sheet)
    fig, ax = _new_axes(ax, figsize=(8.0, max(2.0, 0.4 * len(share) + 1.2)))
    bars = _barh(ax, list(share.index), share.to_numpy(), color="tab:purple")
    ax.bar_label(bars, labels=[f"{v:.1%}" for v in share], padding=4, fontsize="small")
    ax.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    ax.margins(x=0.05)
    ax.set_xlabel(f"share of the exact {getattr(sheet, 'covers', 'base game')} RTP ({sheet.rtp:.4%})")
    ax.set_title(_titled(_game_name(sheet), "RTP by symbol"))
    ax.grid(True, axis="x", alpha=0.3)
    return _finish(fig, [ax])


# ---------------------------------------------------------------------------
# features
# ---------------------------------------------------------------------------
def feature_summary(result) -> Figure:
    """Feature frequency (1 in N rounds, log scale) and average win (x total bet) side by side.

    ``result`` is a :class:`~workbench.simulate.SimulationResult`; a game
    without features gives a figure saying so.
    """
    features = list(getattr(result, "features", {}).values())
    fig = Figure(figsize=(9.0, max(2.2, 0.45 * len(features) + 1.4)), dpi=DPI, layout="constrained")
    name = _game_name(result)
    if not features:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no features in this game", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        ax.set_title(_titled(name, "features"))
        return _finish(fig)
    left, right = fig.subplots(1, 2, sharey=True)
    labels = [f.name for f in features]
    one_in = np.array([f.one_in if math.isfinite(f.one_in) else np.nan for f in features])
    bars = _barh(left, labels, one_in, color="tab:green")
    for v, label in zip(one_in, left.bar_label(bars, labels=[f"1 in {v:,.1f}" for v in one_in], padding=4,
                                                fontsize="small")):
        if not np.isfinite(v):  # a feature never seen has no bar (bar_label leaves it blank): say so at the axis
            label.set(text="never", horizontalalignment="left")
            label.xy, label.xycoords, label.xyann = (0.0, label.xy[1]), left.get_yaxis_transform(), (4, 0)
    left.set_xscale("log")
    left.margins(x=0.05)
    left.set_xlabel("frequency (1 in N rounds)")
    left.set_title("how often")
    avg = np.array([f.average_win for f in features])
    bars = _barh(right, labels, avg, color="tab:orange")
    right.bar_label(bars, labels=[f"{v:,.2f}x" for v in avg], padding=4, fontsize="small")
    right.margins(x=0.05)
    right.set_xlabel("average win (x total bet)")
    right.set_title("average win")
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
    fig.suptitle(_titled(name, f"features ({result.spins:,} simulated rounds)"))
    return _finish(fig, [left, right])




# ---------------------------------------------------------------------------
# feature win distributions
# ---------------------------------------------------------------------------
def feature_wins(stats, unit: str = "x total bet", ax=None) -> Figure:
    """Each sampled feature's win distribution: P(feature win >= x) per feature started, on log axes.

    ``stats`` is a :class:`~workbench.simulate.feature_sample.FeatureStatistics` (samples weighted to natural
    play); wins are in ``unit`` (the round's price).  A feature that can pay nothing starts its curve below 1 at
    its smallest win above 0.
    """
    fig, ax = _new_axes(ax)
    drawn = 0
    for s in stats.features.values():
        order = np.argsort(s.wins, kind="stable")
        x = s.wins[order]
        w = s.share[order]
        at_least = np.cumsum(w[::-1])[::-1]  # P(win >= x) at each sorted sample
        keep = x > 0
        if not np.any(keep):
            continue
        ax.step(x[keep], at_least[keep], where="post", lw=1.6, label=f"{s.name} ({s.count:,} sampled)", gid=s.name)
        drawn += 1
    if not drawn:
        ax.text(0.5, 0.5, "no feature win sampled", ha="center", va="center", transform=ax.transAxes)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(f"feature win ({unit})")
    ax.set_ylabel("P(feature win >= x), per feature")
    ax.grid(True, which="major", alpha=0.3)
    if drawn:
        ax.legend(loc="lower left", fontsize="small")
    ax.set_title("Win per feature (sampled where each feature starts)")
    return _finish(fig)


__all__ = [
    "WinData",
    "feature_summary",
    "feature_wins",
    "funnel_band",
    "layout_problems",
    "probability_ahead",
    "rtp_by_symbol",
    "rtp_composition",
    "rtp_funnel",
    "sample_wins",
    "session_outcomes",
    "session_percentiles",
    "simulate_sessions",
    "symbol_rtp",
    "vi_text",
    "win_data",
    "win_distribution",
]
