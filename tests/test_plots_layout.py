"""The report's figures as a reader sees them: nothing cut off, nothing overprinted, the funnel honest.

``plots.layout_problems(fig)`` draws a figure with Agg and lists every text
outside the figure, every bar label or annotation outside its axes, every
two overlapping texts (or a legend over a text or a marker).  It runs here
over every figure the report notebook draws, with the notebook's arguments
and sizes, for several gallery games; the first tests show it catches each
defect the test-lab review found (long titles cut off, a negative bar's label
over the tick labels, one trace point called a running RTP under a legend,
a funnel VI that matches no row of the Volatility table).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from matplotlib.figure import Figure

from workbench import plots
from workbench import report as R
from workbench.io import load_game
from workbench.simulate import estimate_rtp, simulate
from workbench.simulate.results import Estimate

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["ways_free_spins", "line_bonus_pick", "both_ways_10_lines"]  # free spins + features, a bonus pick, both ways
SPINS = 20_000
LONG_TITLE = ("A Very Long Gallery Game Title With Many Words, Deluxe Megaways Edition: RTP by component "
              "(total 96.3557 %, every component with its 95 % interval)")


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module", params=GAMES)
def game_data(request):
    game = load_game(ROOT / "reelsets" / "examples" / f"{request.param}.toml")
    return {
        "game": game,
        "sheet": R.par_sheet(game),
        "est": estimate_rtp(game, precision=0.01, seed=1, max_seconds=20),
        "sim": simulate(game, SPINS, 1),  # one chunk: one trace point
        "sim_chunks": simulate(game, SPINS, 1, chunk_size=2_000),  # ten trace points
    }


def report_figures(d) -> dict:
    """Every figure the report notebook draws, with its arguments (notebooks/report.ipynb)."""
    game, sheet, est, sim = d["game"], d["sheet"], d["est"], d["sim"]
    cap = "cap: what the max-win limit takes from the largest wins"  # a long name, a negative bar
    components = {**est.components, cap: Estimate(-0.0123, 0.0004)}
    figs = {
        "rtp_by_symbol": plots.rtp_by_symbol(sheet),
        "rtp_composition": plots.rtp_composition(est.components, title=f"{game.name}: RTP by component "
                                                                       f"(total {R.fmt_pct(est.rtp)})"),
        "rtp_composition with a negative cap": plots.rtp_composition(components, title=LONG_TITLE),
        "rtp_funnel, one trace point": plots.rtp_funnel(est, trace=R.rtp_trace(sim)),
        "rtp_funnel, many trace points": plots.rtp_funnel(est, trace=R.rtp_trace(d["sim_chunks"])),
        "rtp_funnel of the PAR sheet": plots.rtp_funnel(sheet),
        "feature_summary": plots.feature_summary(sim),
        "win_distribution of the simulation": plots.win_distribution(sim),
        "session_outcomes": plots.session_outcomes(sim, R.SESSION_SPINS, R.SESSION_BANKROLL, R.SESSIONS, 1),
        "probability_ahead": plots.probability_ahead(sim, R.SESSION_SPINS, R.SESSION_BANKROLL, R.SESSIONS, 1),
    }
    if sheet.distribution is not None:
        figs["win_distribution of the PAR sheet"] = plots.win_distribution(sheet)
    return figs


# ---------------------------------------------------------------------------
# the checker catches each defect the review found
# ---------------------------------------------------------------------------
def test_checker_catches_a_long_unwrapped_title():
    fig = Figure(figsize=plots.FIGSIZE, dpi=plots.DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.plot([1, 2], [1, 2])
    ax.set_title(LONG_TITLE)  # constrained layout does not wrap
    problems = plots.layout_problems(fig)
    assert any("title" in p and "leaves the figure" in p for p in problems), problems
    fixed = plots.rtp_composition({"ways": 0.8, "free_spins": 0.15}, title=LONG_TITLE)
    assert plots.layout_problems(fixed) == []
    assert "\n" in fixed.axes[0].get_title()  # wrapped, not shrunk or cut
    assert _flat(fixed.axes[0].get_title()) == _flat(LONG_TITLE)


def test_checker_catches_a_negative_bar_label_over_the_tick_labels():
    fig = Figure(figsize=(8.0, 2.5), dpi=plots.DPI, layout="constrained")
    ax = fig.add_subplot()
    bars = ax.barh([2, 1, 0], [0.79, 0.16, -0.0123], color="tab:blue")
    ax.set_yticks([2, 1, 0], ["ways", "free_spins", "cap: what the max-win limit takes"])
    ax.bar_label(bars, labels=["79.000%", "16.000%", "-1.230% ± 0.040%"], padding=4, fontsize="small")
    ax.margins(x=0.25)  # the old fix: a fixed margin, too small on the negative side
    problems = plots.layout_problems(fig)
    assert any("annotation '-1.230% ± 0.040%'" in p and ("leaves the axes" in p or "overlaps" in p)
               for p in problems), problems
    fixed = plots.rtp_composition({"ways": 0.79, "free_spins": Estimate(0.16, 0.001),
                                   "cap: what the max-win limit takes": Estimate(-0.0123, 0.0004)})
    assert plots.layout_problems(fixed) == []
    ax = fixed.axes[0]
    left = min(t.get_window_extent().x0 for t in ax.texts)
    assert left >= ax.bbox.x0  # the negative bar's label starts inside the axes, right of the tick labels


def test_checker_catches_overlapping_texts_and_a_legend_over_data():
    fig = Figure(figsize=(3.0, 3.0), dpi=plots.DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [1, 3, 2], marker="o", label="data with markers")
    ax.set_xticks([1, 2, 3], ["a long tick label one", "another long tick label", "a third long tick label"])
    ax.annotate("a label on the data", (1, 3), xytext=(0, 0), textcoords="offset points")
    ax.legend(loc="center", bbox_to_anchor=(2, 3), bbox_transform=ax.transData)  # centred on the middle marker
    problems = plots.layout_problems(fig)
    assert any("x tick label" in p and "overlaps" in p for p in problems), problems
    assert any("legend hides markers" in p for p in problems), problems


def funnel_trace_problems(fig) -> list[str]:
    """A funnel's trace is labelled for what it is: ``running`` only with 2 or more points, else after N rounds."""
    ax = fig.axes[0]
    out = []
    for c in ax.containers:
        if c.get_label().startswith("simulated"):
            n = len(c.lines[0].get_xdata())
            honest = re.search(r"after [\d,]+ rounds", c.get_label()) if n < 2 else "running" in c.get_label()
            if not honest:
                out.append(f"{n} trace point(s) labelled {c.get_label()!r}")
    return out


def test_checker_catches_one_point_called_a_running_rtp_under_the_legend():
    fig = Figure(figsize=plots.FIGSIZE, dpi=plots.DPI, layout="constrained")
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.fill_between([1e3, 1e8], [0.7, 0.96], [1.2, 0.965], alpha=0.2, label="95% band")
    ax.errorbar([3e7], [1.18], yerr=[0.01], marker="o", label="simulated running RTP (± 95 %)")  # the old label
    ax.legend(loc="upper right")  # the old place, over the point
    assert funnel_trace_problems(fig) == ["1 trace point(s) labelled 'simulated running RTP (± 95 %)'"]
    assert any("legend hides markers" in p for p in plots.layout_problems(fig))
    stats = SimpleNamespace(rtp=0.95, std=10.0, volatility_index=lambda c: 1.96 * 10.0)
    trace = pd.DataFrame({"spins": [3e7], "rtp": [0.95], "ci95": [0.01]})
    fixed = plots.rtp_funnel(stats, trace=trace)
    assert funnel_trace_problems(fixed) == [] and plots.layout_problems(fixed) == []


def funnel_vi_problems(fig, table: pd.DataFrame) -> list[str]:
    """The funnel's title states a VI with the row of ``R.volatility_table`` it comes from, as printed there."""
    title = _flat(fig.axes[0].get_title())
    m = re.search(r"VI ([\d,.]+) at (\d+) % of the (.+?) \(", title)
    if not m:
        return [f"the title {title!r} names no VI, confidence and source"]
    value, confidence, row = m.groups()
    if row not in table.index:
        return [f"the title's source {row!r} is no row of the Volatility table {list(table.index)}"]
    printed = table.loc[row, f"VI {confidence} %"]
    return [] if printed == value else [f"the title's VI {value} is not the table's {printed} ({row}, {confidence} %)"]


def test_checker_catches_a_funnel_vi_of_no_table_row(game_data):
    table = R.volatility_table(game_data["sheet"], game_data["est"])
    fig = Figure()
    ax = fig.add_subplot()
    vi = game_data["est"].volatility_index(0.95)
    ax.set_title(f"{game_data['game'].name}: RTP confidence funnel (VI {vi:.3g} at 95%)")  # the old title
    assert funnel_vi_problems(fig, table)
    assert funnel_vi_problems(plots.rtp_funnel(game_data["est"]), table) == []
    assert funnel_vi_problems(plots.rtp_funnel(game_data["sheet"]), table) == []  # the exact base game row


# ---------------------------------------------------------------------------
# every figure the report draws, for several gallery games
# ---------------------------------------------------------------------------
def test_every_report_figure_fits(game_data):
    problems = []
    for name, fig in report_figures(game_data).items():
        assert fig.get_size_inches()[0] <= 9.0, name  # the report's sizes: 8 in (9 for the features) at 100 dpi
        problems += [f"[{name}] {p}" for p in plots.layout_problems(fig)]
        if "funnel" in name:
            problems += [f"[{name}] {p}" for p in funnel_trace_problems(fig)]
    assert not problems, "\n".join(problems)


def test_funnel_says_how_many_rounds_its_trace_point_has(game_data):
    one = plots.rtp_funnel(game_data["est"], trace=R.rtp_trace(game_data["sim"]))
    labels = [c.get_label() for c in one.axes[0].containers]
    assert labels == [f"simulated RTP after {SPINS:,} rounds (± 95 %)"]
    many = plots.rtp_funnel(game_data["est"], trace=R.rtp_trace(game_data["sim_chunks"]))
    assert [c.get_label() for c in many.axes[0].containers] == ["simulated running RTP (± 95 %)"]
    assert len(game_data["sim_chunks"].trace) >= 2


def test_funnel_title_names_its_vi_as_the_volatility_table_prints_it(game_data):
    sheet, est = game_data["sheet"], game_data["est"]
    table = R.volatility_table(sheet, est)
    title = _flat(plots.rtp_funnel(est).axes[0].get_title())
    assert f"VI {table.loc['whole game', 'VI 95 %']} at 95 % of the whole game" in title
    assert f"std {table.loc['whole game', 'std (x total bet)']}" in title
    base = _flat(plots.rtp_funnel(sheet).axes[0].get_title())
    row = table.index[0]
    assert f"VI {table.loc[row, 'VI 95 %']} at 95 % of the {row}" in base
    sim = game_data["sim"]
    sim_title = _flat(plots.rtp_funnel(sim).axes[0].get_title())
    assert f"VI {sim.volatility_index(0.95):,.4f} at 95 % of the simulation" in sim_title
    assert f"{SPINS:,} simulated rounds" in sim_title


def test_bar_labels_fit_for_negative_and_positive_bars_on_log_and_linear_axes():
    from workbench.simulate.results import FeatureStats

    result = SimpleNamespace(spins=1000, features={
        "free spins with a long feature name": FeatureStats("free spins with a long feature name", 5, 0.005, 12345.5),
        "respin": FeatureStats("respin", 400, 0.4, 2.0),
        "never seen": FeatureStats("never seen", 0, 0.0, 0.0),
    })
    fig = plots.feature_summary(result)
    assert plots.layout_problems(fig) == []
    assert any(t.get_text() == "never" for t in fig.axes[0].texts)
    fig = plots.rtp_composition({"cap": -0.2, "ways": 0.9, "tiny": 1e-5}, title=LONG_TITLE)
    assert plots.layout_problems(fig) == []


# ---------------------------------------------------------------------------
# the rendered report in a browser 1280 px wide
# ---------------------------------------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")
VIEWPORT = 1280


@pytest.mark.slow
def test_report_figures_fit_the_page_in_a_browser(tmp_path):
    """Each <h2> section of one gallery game's HTML report screenshotted at 1280 px; no image wider than the
    content, no horizontal scrolling (the texts inside the images are checked by layout_problems above)."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium does not exist: install Debian's chromium package to render the report")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    from report_shots import screenshot_sections

    run = R.generate_report(ROOT / "reelsets" / "examples" / "line_bonus_pick.toml", tmp_path / "report", spins=SPINS,
                            seed=1, precision=0.01)
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": VIEWPORT, "height": 900})
            page.goto(run.html.resolve().as_uri(), wait_until="load")
            page_width = page.evaluate("() => document.documentElement.scrollWidth")
            images = page.evaluate("""() => [...document.querySelectorAll('img')].map(img => {
                const box = img.getBoundingClientRect(), parent = img.parentElement.getBoundingClientRect();
                return {alt: img.alt, width: box.width, right: box.right, natural: img.naturalWidth,
                        content: parent.width, contentRight: parent.right};
            })""")
            sections = screenshot_sections(page, shots, VIEWPORT)
        finally:
            browser.close()
    assert page_width <= VIEWPORT, f"the page scrolls sideways: {page_width} px wide"
    assert len(images) >= 6, [i["alt"] for i in images]
    too_wide = [i for i in images if i["width"] > i["content"] + 0.5 or i["right"] > i["contentRight"] + 0.5
                or i["right"] > VIEWPORT]
    assert not too_wide, too_wide
    assert all(i["natural"] > 0 for i in images)  # every PNG decoded
    written = sorted(shots.glob("*.png"))
    assert len(written) == len(sections) >= 10
    assert all(p.read_bytes().startswith(b"\x89PNG") and p.stat().st_size > 1000 for p in written)
