"""Plots: each returns a matplotlib Figure with the expected axes, labels and data."""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from workbench import par, plots
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.results import Estimate, FeatureStats


@pytest.fixture(scope="module")
def sheet(classic):
    return par(classic)


@pytest.fixture(scope="module")
def sheet_no_cycle(classic):
    return par(classic, full_cycle=False)


@pytest.fixture(scope="module")
def sim(classic):
    return simulate(classic, 200_000, 7)


@pytest.fixture(scope="module")
def est(classic):
    return estimate_rtp(classic, 0.001, 1)


def line(ax, gid):
    found = [l for l in ax.lines if l.get_gid() == gid]
    assert found, f"no line {gid!r} in {[l.get_gid() for l in ax.lines]}"
    return found[0]


def bars(ax):
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def is_plain_figure(fig):
    """Object-oriented figure: a Figure not managed by pyplot."""
    return isinstance(fig, Figure) and getattr(fig.canvas, "manager", None) is None


# ---------------------------------------------------------------------------
# win distribution
# ---------------------------------------------------------------------------
def test_win_distribution_exact(sheet):
    fig = plots.win_distribution(sheet)
    assert is_plain_figure(fig)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert "x total bet" in ax.get_xlabel()
    assert "exact" in ax.get_title() and "Classic Tens" in ax.get_title()
    exceed = line(ax, "exceedance")
    assert exceed.get_ydata()[0] == pytest.approx(sheet.hit_frequency, rel=1e-12)
    assert np.all(np.diff(exceed.get_ydata()) <= 0)  # P(win >= x) never increases
    assert list(line(ax, "max_win").get_xdata()) == [sheet.max_win, sheet.max_win] == [175.0, 175.0]
    data = plots.win_data(sheet)
    assert len(bars(ax)[0]) == len(data.bucket_p)
    assert data.bucket_p.sum() == pytest.approx(sheet.hit_frequency, rel=1e-12)
    assert data.exceed_p[-1] == pytest.approx(sheet.distribution.pmf(175.0))
    # buckets are log-spaced, 10 per decade
    assert np.allclose(np.log10(data.bucket_to / data.bucket_from), 0.1)


def test_win_distribution_simulated(sim):
    fig = plots.win_distribution(sim)
    ax = fig.axes[0]
    assert "simulated" in ax.get_title() and "200,000" in ax.get_title()
    data = plots.win_data(sim)
    assert data.kind == "simulated"
    assert line(ax, "exceedance").get_ydata()[0] == pytest.approx(sim.hit_frequency)
    assert data.bucket_p.sum() == pytest.approx(sim.hit_frequency)
    assert data.exceed_p[-1] == pytest.approx(sim.max_win_count / sim.spins)
    assert line(ax, "max_win").get_xdata()[0] == sim.max_win
    # exceedance at the 10x bucket edge counts every round that won 10x or more
    edges = np.asarray(sim.bucket_edges)
    i = int(np.searchsorted(edges, 10.0 * (1 - 1e-9)))
    k = list(data.exceed_x).index(edges[i])
    assert data.exceed_p[k] == pytest.approx(np.asarray(sim.bucket_counts)[i:].sum() / sim.spins)


def test_win_distribution_per_award_fallback(sheet_no_cycle, sheet):
    assert sheet_no_cycle.distribution is None
    fig = plots.win_distribution(sheet_no_cycle)
    ax = fig.axes[0]
    assert "per award" in ax.get_title()
    assert ax.get_ylabel() == "awards per spin"
    data = plots.win_data(sheet_no_cycle)
    # award rates per spin times award sizes add up to the RTP
    assert np.sum(data.values * data.probabilities) == pytest.approx(sheet.rtp, rel=1e-12)
    with pytest.raises(ValueError, match="full-cycle"):
        plots.sample_wins(sheet_no_cycle, 10, np.random.default_rng(1))


def test_win_distribution_draws_into_given_axes(sheet):
    fig = Figure()
    ax = fig.add_subplot()
    assert plots.win_distribution(sheet.distribution, ax=ax) is fig
    assert ax.get_yscale() == "log"


def test_win_data_rejects_other_objects():
    with pytest.raises(TypeError):
        plots.win_data(object())


# ---------------------------------------------------------------------------
# RTP funnel
# ---------------------------------------------------------------------------
def test_rtp_funnel_band_width_is_vi_over_sqrt_n(sheet, sim):
    fig = plots.rtp_funnel(sheet, spins_range=(1_000, 1_000_000), trace=sim.trace)
    assert is_plain_figure(fig)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "spins" and "RTP" in ax.get_ylabel()
    upper, lower = line(ax, "upper"), line(ax, "lower")
    n = upper.get_xdata()
    vi = sheet.volatility_index(0.95)
    assert np.allclose((upper.get_ydata() - sheet.rtp) * np.sqrt(n), vi)
    assert np.allclose((sheet.rtp - lower.get_ydata()) * np.sqrt(n), vi)
    assert n[0] == pytest.approx(1_000) and n[-1] == pytest.approx(1_000_000)
    assert line(ax, "rtp").get_ydata()[0] == sheet.rtp
    assert any(c.get_label().startswith("simulated") for c in ax.containers)  # the trace overlay


def test_funnel_band_matches_confidence_band(est):
    band = plots.funnel_band(est, [10_000, 1_000_000], confidence=0.90)
    for row in band.itertuples():
        lo, hi = est.confidence_band(int(row.spins), 0.90)
        assert (row.lower, row.upper) == pytest.approx((lo, hi))
        assert row.half_width == pytest.approx(est.volatility_index(0.90) / math.sqrt(row.spins))


# ---------------------------------------------------------------------------
# sessions
# ---------------------------------------------------------------------------
def test_sample_wins_exact_has_the_game_rtp(sheet):
    wins = plots.sample_wins(sheet, 400_000, np.random.default_rng(5))
    assert set(np.unique(wins)) <= set(sheet.distribution.values)
    se = sheet.std / math.sqrt(len(wins))
    assert abs(wins.mean() - sheet.rtp) < 5 * se
    assert (wins > 0).mean() == pytest.approx(sheet.hit_frequency, abs=0.005)


def test_sample_wins_from_buckets(sim):
    wins = plots.sample_wins(sim, 400_000, np.random.default_rng(5))
    assert wins.min() >= 0 and wins.max() <= sim.max_win
    assert (wins > 0).mean() == pytest.approx(sim.hit_frequency, abs=0.005)
    assert wins.mean() == pytest.approx(sim.rtp, rel=0.05)  # values are log-uniform inside 26 % wide buckets


def test_sessions_are_reproducible_and_stop_when_broke(sheet):
    a = plots.simulate_sessions(sheet, spins=300, bankroll=20, sessions=200, seed=3)
    b = plots.simulate_sessions(sheet, spins=300, bankroll=20, sessions=200, seed=3)
    c = plots.simulate_sessions(sheet, spins=300, bankroll=20, sessions=200, seed=4)
    assert a.shape == (200, 301)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.all(a[:, 0] == 20) and np.all(a >= 0)
    broke = a[:, -1] < 1
    assert broke.any()
    for row in a[broke]:
        first = int(np.argmax(row < 1))
        assert np.all(row[first:] == row[first])  # a broke player stops playing


def test_session_outcomes_plot(sheet):
    fig = plots.session_outcomes(sheet, spins=200, bankroll=50, sessions=300, seed=2)
    assert is_plain_figure(fig)
    ax = fig.axes[0]
    df = plots.session_percentiles(sheet, spins=200, bankroll=50, sessions=300, seed=2)
    for p in (5, 25, 50, 75, 95):
        assert np.array_equal(line(ax, f"p{p}").get_ydata(), df[f"p{p}"].to_numpy())
    assert np.all(df["p5"] <= df["p50"]) and np.all(df["p50"] <= df["p95"])
    assert line(ax, "bankroll").get_ydata()[0] == 50
    assert "x total bet" in ax.get_ylabel() and ax.get_xlabel() == "spins played"


def test_probability_ahead_plot(sim):
    fig = plots.probability_ahead(sim, spins=200, bankroll=50, sessions=300, seed=2)
    ax = fig.axes[0]
    ahead = line(ax, "ahead").get_ydata()
    assert len(ahead) == 200 and np.all((ahead >= 0) & (ahead <= 1))
    df = plots.session_percentiles(sim, spins=200, bankroll=50, sessions=300, seed=2)
    assert np.array_equal(ahead, df["ahead"].to_numpy()[1:])
    assert "simulated" in ax.get_title()


# ---------------------------------------------------------------------------
# composition, symbols, features
# ---------------------------------------------------------------------------
def test_rtp_composition_with_floats(sheet):
    fig = plots.rtp_composition(sheet.components)
    ax = fig.axes[0]
    (container,) = bars(ax)
    widths = [r.get_width() for r in container]
    assert widths == pytest.approx(list(sheet.components.values()))
    assert container.errorbar is None
    assert "95.0790%" in ax.get_title()
    assert [t.get_text() for t in ax.get_yticklabels()] == list(sheet.components)


def test_rtp_composition_with_estimates_shows_error_bars(sim):
    comps = dict(sim.components)
    comps["option:other"] = Estimate(0.5, 0.01)  # informational: left out
    fig = plots.rtp_composition(comps)
    ax = fig.axes[0]
    (container,) = bars(ax)
    assert len(container) == len(sim.components)
    assert container.errorbar is not None
    assert [r.get_width() for r in container] == pytest.approx([e.value for e in sim.components.values()])


def test_rtp_by_symbol_shares_add_up(sheet):
    share = plots.symbol_rtp(sheet)
    assert share.sum() == pytest.approx(1.0)
    assert "SCAT (scatter)" in share.index and "CHERRY" in share.index
    fig = plots.rtp_by_symbol(sheet)
    (container,) = bars(fig.axes[0])
    assert sorted(r.get_width() for r in container) == pytest.approx(sorted(share))


def test_feature_summary_without_features(sim):
    fig = plots.feature_summary(sim)
    assert is_plain_figure(fig)
    assert any("no features" in t.get_text() for t in fig.axes[0].texts)


def test_feature_summary_with_features():
    result = SimpleNamespace(spins=1000, features={
        "free spins": FeatureStats("free spins", 5, 0.005, 12.5),
        "respin": FeatureStats("respin", 40, 0.04, 2.0),
    })
    fig = plots.feature_summary(result)
    left, right = fig.axes
    assert left.get_xscale() == "log" and "1 in N" in left.get_xlabel()
    assert "x total bet" in right.get_xlabel()
    assert [r.get_width() for r in bars(left)[0]] == pytest.approx([200, 25])
    assert [r.get_width() for r in bars(right)[0]] == pytest.approx([12.5, 2.0])


def test_plots_do_not_use_pyplot():
    import inspect

    source = inspect.getsource(plots)
    assert "import matplotlib.pyplot" not in source and "from matplotlib import pyplot" not in source
