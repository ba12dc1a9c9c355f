"""The reviewer report: notebook execution, self-contained HTML, PAR sheet files, provenance, failures."""

import ast
import hashlib
import json
import re
from pathlib import Path

import nbformat
import openpyxl
import pandas as pd
import pytest

import workbench
from workbench import cli, par, report
from workbench.errors import ReportError
from workbench.io import render_text
from workbench.simulate import estimate_rtp, simulate

pytestmark = pytest.mark.slow  # minutes: `pytest -m 'not slow'` for a quick run

SPINS = 100_000
SEED = 3
PRECISION = 0.002
NOTEBOOKS = report.ROOT / "notebooks"


@pytest.fixture(scope="module")
def run(tmp_path_factory, classic):
    return report.generate_report("classic_tens", tmp_path_factory.mktemp("report"), spins=SPINS, seed=SEED,
                                  precision=PRECISION)


@pytest.fixture(scope="module")
def sheet(classic):
    return par(classic)


@pytest.fixture(scope="module")
def html(run):
    return run.html.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# the stored notebooks
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["report.ipynb", "04_game_overview.ipynb"])
def test_notebooks_are_stored_without_outputs_and_parameters_are_literals(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and params[0] is code[0]
    for stmt in ast.parse(params[0].source).body:
        assert isinstance(stmt, ast.Assign), ast.dump(stmt)
        ast.literal_eval(stmt.value)  # only literal values
    names = {stmt.targets[0].id for stmt in ast.parse(params[0].source).body}
    if name == "report.ipynb":
        assert {"game", "spins", "seed", "precision", "stakes", "out_dir"} <= names


# ---------------------------------------------------------------------------
# a complete report
# ---------------------------------------------------------------------------
def test_report_files_exist(run):
    for path in run.all():
        assert path.exists() and path.stat().st_size > 0, path
    assert run.notebook.name == "classic_tens.ipynb"
    assert run.html.name == "classic_tens.html"
    assert run.game_file == Path(report.REPORT_NOTEBOOK).parent.parent / "reelsets" / "classic_tens.toml"


def test_executed_notebook_has_no_errors_and_the_parameters(run):
    nb = nbformat.read(run.notebook, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert nb.metadata.papermill.parameters["spins"] == SPINS
    assert nb.metadata.papermill.parameters["seed"] == SEED


def test_html_is_self_contained_with_embedded_figures(html):
    assert not re.search(r"<script[^>]*\bsrc\s*=\s*[\"']?https?:", html, re.I)
    assert not re.search(r"<link[^>]*\bhref\s*=\s*[\"']?https?:", html, re.I)
    assert html.count("data:image/png;base64,") >= 6
    assert not re.search(r"<img[^>]*src=[\"']https?:", html)


def test_html_hides_code_and_shows_the_exact_rtp(html, sheet):
    assert "R.show_table" not in html and "import workbench" not in html
    assert report.fmt_pct(sheet.rtp) == "95.0790 %"
    assert report.fmt_pct(sheet.rtp) in html
    assert "Traceback" not in html
    for section in ("Key figures", "Game and rules", "Paytable", "PAR sheet", "RTP by component", "RTP per stake level",
                    "volatility", "Simulation and features", "Win distribution", "Max win", "Provenance"):
        assert section in html, section


def test_provenance_hash_is_the_game_file_sha256(run, html):
    digest = hashlib.sha256(run.game_file.read_bytes()).hexdigest()
    data = json.loads(run.report_json.read_text())
    assert data["provenance"]["game_sha256"] == digest
    assert data["provenance"]["seed"] == SEED and data["provenance"]["spins"] == SPINS
    assert data["provenance"]["workbench_version"] == workbench.__version__
    assert digest in html


def test_xlsx_has_one_sheet_per_table(run):
    book = openpyxl.load_workbook(run.xlsx, read_only=True)
    assert book.sheetnames[0] == "Summary"
    assert {"Combinations", "Strips", "Paytable", "Compliance", "Provenance"} <= set(book.sheetnames)


def test_csv_and_par_json_match_the_library(run, sheet):
    assert set(run.csv) == set(report.PAR_TABLES)
    combos = pd.read_csv(run.csv["combinations"])
    assert list(combos["combination"]) == list(sheet.combinations["combination"])
    assert list(combos["hits"]) == list(sheet.combinations["hits"])
    assert combos["rtp"].to_numpy() == pytest.approx(sheet.combinations["rtp"].to_numpy(), rel=1e-15)
    prize = pd.read_csv(run.csv["prize_structure"])
    assert prize["probability"].to_numpy() == pytest.approx(sheet.prize_structure["probability"].to_numpy(), rel=1e-15)
    summary = pd.read_csv(run.csv["summary"], index_col=0)["value"]
    assert float(summary["rtp"]) == sheet.rtp
    par_json = json.loads(run.par_json.read_text())
    assert par_json == json.loads(report.to_json(sheet.to_dict()))
    assert par_json["rtp"] == sheet.rtp and par_json["rtp_exact"] == str(sheet.rtp_exact)


def test_report_json_matches_the_library(run, classic, sheet):
    data = json.loads(run.report_json.read_text())
    assert data["par"]["rtp"] == sheet.rtp
    est = estimate_rtp(classic, PRECISION, SEED)
    assert data["rtp_estimate"]["rtp"] == est.rtp
    assert data["rtp_estimate"]["components"]["lines"]["value"] == est.components["lines"].value
    sim = simulate(classic, SPINS, SEED)
    assert data["simulation"]["rtp"] == sim.rtp
    assert data["simulation"]["hit_frequency"] == sim.hit_frequency
    assert data["simulation"]["max_win"] == sim.max_win
    assert data["stakes"] == []  # classic_tens has no stake ladder
    assert "elapsed_seconds" not in data["simulation"] and "elapsed_seconds" not in data["rtp_estimate"]


def test_same_seed_gives_identical_numbers(run, tmp_path):
    again = report.generate_report(run.game_file, tmp_path, spins=SPINS, seed=SEED, precision=PRECISION)
    assert again.report_json.read_bytes() == run.report_json.read_bytes()
    assert again.par_json.read_bytes() == run.par_json.read_bytes()
    for name, path in run.csv.items():
        assert again.csv[name].read_bytes() == path.read_bytes(), name

    def tables(path):
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "DATE", text)
        return re.findall(r"<table.*?</table>", text, re.S)

    assert tables(again.html) == tables(run.html)


# ---------------------------------------------------------------------------
# failures
# ---------------------------------------------------------------------------
def test_failing_cell_keeps_the_partial_notebook_and_names_the_cell(tmp_path, monkeypatch):
    nb = nbformat.read(report.REPORT_NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.source.startswith("# Exact PAR sheet"))
    cell.source = "# Exact PAR sheet (broken on purpose)\nraise RuntimeError('injected failure')"
    broken = tmp_path / "broken.ipynb"
    nbformat.write(nb, broken)
    monkeypatch.setattr(report.pipeline, "REPORT_NOTEBOOK", broken)
    out = tmp_path / "out"
    with pytest.raises(ReportError) as info:
        report.generate_report("classic_tens", out, spins=1000, seed=1, precision=0.01)
    message = str(info.value)
    assert "Exact PAR sheet (broken on purpose)" in message
    assert re.search(r"cell \d+ \(In \[\d+\]\)", message)
    assert "RuntimeError: injected failure" in message
    partial = out / "classic_tens.ipynb"
    assert str(partial) in message and partial.exists()
    executed = nbformat.read(partial, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors and errors[0].evalue == "injected failure"
    assert not (out / "classic_tens.html").exists()


@pytest.mark.parametrize("kwargs", [{"spins": 0}, {"seed": -1}, {"precision": 0.0}, {"stakes": [-1.0]},
                                    {"sim_precision": 0.0}, {"sim_precision": 1.5}])
def test_bad_parameters_are_refused_before_running(tmp_path, kwargs):
    with pytest.raises(ReportError):
        report.generate_report("classic_tens", tmp_path, **kwargs)
    assert not list(tmp_path.iterdir())


def test_edited_game_is_written_next_to_the_report(classic, tmp_path):
    assert report.report_game_file(classic, tmp_path) == Path(classic.path).resolve()
    reel = classic.strip_sets["base"].reels[0]
    edited = classic.with_strip("base", 1, tuple(reversed(reel.symbols)))
    path = report.report_game_file(edited, tmp_path)
    assert path == tmp_path / "classic_tens.toml"
    assert path.read_text(encoding="utf-8") == render_text(edited)


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------
def test_cli_report_arguments(monkeypatch, tmp_path, capsys):
    calls = []

    def fake(game, out, **kwargs):
        calls.append((game.name, Path(out), kwargs))
        files = report.output_paths(out, "x")
        return report.ReportFiles(Path(out), files["notebook"], files["html"], files["xlsx"], files["par_json"],
                                  files["report_json"], files["csv"], None, 1.0)

    monkeypatch.setattr(report, "generate_report", fake)
    assert cli.main(["report", "classic_tens", "--spins", "5000", "--seed", "9", "--precision", "0.01",
                     "--out", str(tmp_path)]) == 0
    name, out, kwargs = calls[-1]
    assert name == "Classic Tens" and out == tmp_path
    assert (kwargs["spins"], kwargs["seed"], kwargs["precision"]) == (5000, 9, 0.01)
    assert cli.main(["report", "--all", "--out", str(tmp_path)]) == 0
    outs = [c[1] for c in calls[1:]]
    assert tmp_path / "classic_tens" in outs and len(outs) == len(cli._games(cli.build_parser().parse_args(["report", "--all"])))
    defaults = cli.build_parser().parse_args(["report", "g"])
    assert (defaults.spins, defaults.precision) == (report.DEFAULT_SPINS, report.DEFAULT_PRECISION)
    assert kwargs["sim_precision"] is None and defaults.sim_precision is None
    assert cli.main(["report", "classic_tens", "--sim-precision", "0.002", "--out", str(tmp_path)]) == 0
    assert calls[-1][2]["sim_precision"] == 0.002


def test_the_end_to_end_run_can_be_sized_by_precision(tmp_path):
    """--sim-precision P: as many rounds as confirm the RTP to ± P, from the estimate's std; the provenance says so."""
    files = report.generate_report("classic_tens", tmp_path, spins=1_000, seed=SEED, precision=0.01, sim_precision=0.01)
    data = json.loads(files.report_json.read_text(encoding="utf-8"))
    std = data["rtp_estimate"]["std"]
    assert data["provenance"]["sim_precision"] == 0.01
    assert data["provenance"]["spins"] == data["simulation"]["spins"] == report.simulation_rounds(
        type("E", (), {"std": std})(), 1_000, 0.01) > 1_000
    assert data["simulation"]["rtp_ci95"] <= 0.011  # about ± 1 % (the simulation's own std, not the estimate's)
    assert "rounds sized to confirm the RTP to ± 1.000 %" in _text(files.html.read_text(encoding="utf-8"))


def test_cli_report_error_is_one_line(capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        cli.main(["report", "classic_tens", "--spins", "0", "--out", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    error_lines = [line for line in err.splitlines() if not line.startswith(("usage:", " "))]
    assert len(error_lines) == 1 and "--spins" in error_lines[0] and "Traceback" not in err
    assert not any(tmp_path.iterdir())  # refused before any work


def test_makefile_report_target(root):
    text = (root / "Makefile").read_text()
    assert "$(BIN)/workbench report --all --out reports" in text


# ---------------------------------------------------------------------------
# the overview notebook
# ---------------------------------------------------------------------------
def test_game_overview_notebook_runs(tmp_path):
    out = tmp_path / "overview.ipynb"
    report.execute_notebook(NOTEBOOKS / "04_game_overview.ipynb", out,
                            {"game": "classic_tens", "spins": 50_000, "precision": 0.01, "session_spins": 100,
                             "sessions": 100}, cwd=tmp_path)
    nb = nbformat.read(out, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 7


@pytest.mark.parametrize("name", __import__("workbench.io", fromlist=["example_games"]).example_games())
def test_every_gallery_game_reports(name, tmp_path):
    """The report of every gallery game renders, names its pay rule and lists its exact components."""
    files = report.generate_report(name, tmp_path, spins=5_000, seed=SEED, precision=0.05)
    page = files.html.read_text(encoding="utf-8")
    game = workbench.load_game(name)
    assert game.name in page and "Traceback" not in page
    assert report.pay_rule_text(game).split(";")[0].split(":")[0] in page
    for component in par(game, full_cycle=False).components:
        assert component in page
    if not game.pays.is_lines:
        assert "Per payline" not in page
    # every bet mode's RTP, x its own cost, in the report, its data and the PAR workbook (regulators need each)
    data = json.loads(files.report_json.read_text(encoding="utf-8"))
    assert [m["mode"] for m in data["bet_modes"]] == (list(game.all_bet_modes) if game.bet_modes else [])
    if game.bet_modes:
        assert "RTP per bet mode (each x its own cost" in page
        from openpyxl import load_workbook

        summary = [row[0] for row in load_workbook(files.xlsx)["Summary"].iter_rows(values_only=True)]
        for mode in game.all_bet_modes:
            assert f"{mode}" in _text(page) and f"Bet mode {mode}: RTP" in summary
    else:
        assert "declares no bet modes" in page
    _assert_compliance(files, game, page)
    _assert_simulated_odds_have_intervals(page)
    _assert_feature_statistics(files, game, page)
    _assert_every_mode_and_the_strips(files, game, page)


def _assert_every_mode_and_the_strips(files, game, page: str) -> None:
    """A PAR section per mode (the base game, every strip-set mode played, every bet mode) in the page, the report's
    data and a "PAR <mode>" sheet of the workbook; the strips stop by stop in an appendix and a sheet; declared
    expectations shown with their verdicts."""
    from openpyxl import load_workbook

    data = json.loads(files.report_json.read_text(encoding="utf-8"))
    modes = data["modes"]
    assert modes[0]["key"] == "base" and {f"bet:{m}" for m in game.bet_modes} <= {m["key"] for m in modes}
    every_mode = _text(_section(page, "4. PAR sheet"))
    sheets = load_workbook(files.xlsx, read_only=True).sheetnames
    for mode in modes:
        assert mode["label"] in every_mode and any(f["label"] == "RTP" or "RTP" in f["label"] for f in mode["figures"])
    assert sum(name.startswith("PAR ") for name in sheets) == len(modes) and "Reel strips" in sheets
    appendix = _text(_section(page, "Appendix: reel strips"))
    for name, strip_set in game.strip_sets.items():
        assert f"Strip set {name} " in appendix
        assert " x ".join(str(r.total_weight) for r in strip_set.reels) in appendix
    if game.expectations:
        assert "Declared expectations" in _text(_section(page, "11. Compliance"))
        assert {e["verdict"] for e in data["expectations"]["expectations"]} <= {"met", "missed", "not shown"}
        assert "Expectations" in sheets
    if data["feature_statistics"]["features"]:
        assert "Features" in sheets


def _assert_feature_statistics(files, game, page: str) -> None:
    """Every simulated feature has its statistics (win percentiles, share of the RTP) in the report and its data."""
    from workbench.simulate.engine import round_model

    data = json.loads(files.report_json.read_text(encoding="utf-8"))["feature_statistics"]
    model = round_model(game)
    sampled = set(data["features"])
    assert sampled | set(data["not_sampled"]) == {f.name for f in model.features}
    if not sampled:
        return
    section = _text(_section(page, "8. Simulation and features"))
    for figure in ("win per feature: 99.9th percentile", "share of the RTP", "features sampled"):
        assert figure in section, figure
    for name, row in data["features"].items():
        assert row["samples"] >= 1 and 0 < row["starts_per_round"] <= 1, (name, row)
        assert row["win_percentiles"]["50"] <= row["win_percentiles"]["99.9"]


def _rows(table_html: str) -> list[list[str]]:
    return [_cells(row) for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table_html, re.S)]


def _assert_simulated_odds_have_intervals(page: str) -> None:
    """Every simulated odds the report prints (feature frequency, the simulated chance of a win of at least x, the
    largest win's and the cap's odds) carries its 95 % interval, or says it was not observed and bounds it."""
    def carries(text: str) -> bool:
        return "(95 %: 1 in " in text or ("not observed in" in text and "at 95 %)" in text)

    rows = _rows(_table_after(page, "Chance of a win of at least"))
    column = rows[0].index("simulated")
    assert all(carries(r[column]) for r in rows[1:]), rows
    # simulated hit frequencies and hit rates (whole game, simulation) and the sessions' shares: with an interval
    key = _rows(_table_after(page, "Key figures ("))
    for name in ("Hit frequency", "Hit rate"):
        [row] = [r for r in key if r and r[0] == name]
        simulated = [v for head, v in zip(key[0], row) if head.startswith(("simulated", "whole game"))]
        assert simulated and all("(95 %: " in v or "(" not in v for v in simulated), row  # exact: no interval
        assert "(95 %: " in simulated[-1], row  # the end-to-end simulation's column always has one
    [hit] = [r[1] for r in _rows(_section(page, "8. Simulation")) if r and r[0] == "simulated hit frequency"]
    assert "(95 %: " in hit, hit
    sessions = _rows(_table_after(page, "Balance percentiles"))
    for column in ("P(ahead)", "P(broke)"):
        i = sessions[0].index(column)
        assert all("(95 %: " in r[i] for r in sessions[1:]), sessions
    for item in ("largest win simulated", "rounds capped (simulated)"):
        [value] = [r[1] for r in _rows(_section(page, "10. Max win")) if r and r[0] == item]
        assert carries(value), (item, value)
    features = _section(page, "8. Simulation and features")
    if "frequency (per round)" in features:
        rows = _rows(_table_after(features, "frequency (per round)"))
        assert all(carries(r[2]) for r in rows[1:] if len(r) > 2), rows
    [confirm] = [r[1] for r in _rows(features) if r and r[0] == "rounds that confirm the RTP to ± 0.1 % (95 %)"]
    assert re.match(r"[\d,]+ \(this run has", confirm), confirm
    if "starts (per round)" in features:  # sampled where each feature starts: exact trigger odds or an interval
        rows = _rows(_table_after(features, "Feature statistics ("))
        [starts] = [r[1:] for r in rows if r and r[0] == "starts (per round)"]
        assert starts and all(carries(v) or "(exact: every round of its trigger states" in v for v in starts), starts


def _assert_compliance(files, game, page: str) -> None:
    """The compliance section lists every check of every mode with its result, the awards' odds, and the same in the
    report's data and a Compliance sheet of the workbook."""
    from openpyxl import load_workbook

    section = _section(page, "11. Compliance")
    assert "Compliance checks: GLI-11 (generic)" in _text(section)
    cells = _cells(section)
    for mode in game.all_bet_modes:
        assert ("base game" if mode == "base" else f"bet mode {mode} (") in " ".join(cells)
    assert {"minimum RTP", "every award reachable", "maximum win stated"} <= set(cells)
    assert set(cells) & {"pass", "fail"}
    data = json.loads(files.report_json.read_text(encoding="utf-8"))["compliance"]
    assert data["profile"] == "GLI-11 (generic)" and len(data["awards"]) >= 1
    rows = [row for row in load_workbook(files.xlsx)["Compliance"].iter_rows(values_only=True)]
    assert rows[1][0] == "Profile: GLI-11 (generic)"
    assert [r[0] for r in rows[2:2 + len(data["checks"])]] == [c["check"] for c in data["checks"]]


@pytest.mark.parametrize("name", ["super_10_stars", "bier_haus_oktober_fest"])
def test_the_shipped_games_report_their_compliance(name, tmp_path):
    files = report.generate_report(name, tmp_path, spins=5_000, seed=SEED, precision=0.05)
    page = files.html.read_text(encoding="utf-8")
    _assert_compliance(files, workbench.load_game(name), page)
    _assert_feature_statistics(files, workbench.load_game(name), page)
    _assert_every_mode_and_the_strips(files, workbench.load_game(name), page)


# ---------------------------------------------------------------------------
# a report a test lab would sign (issue 14): formatting, stake, checks, alt text, max win
# ---------------------------------------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _text(fragment: str) -> str:
    import html as _html

    return _html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def _section(html: str, title: str) -> str:
    """The HTML from the <h2> whose text starts with ``title`` to the next <h2>."""
    parts = re.split(r"(?=<h2[ >])", html)
    found = [p for p in parts if _text(p[:p.find("</h2>")]).strip().startswith(title)]
    assert found, f"no section {title!r}"
    return found[0]


def _table_after(html: str, caption: str) -> str:
    i = html.index(caption)
    return html[i:html.index("</table>", i)]


def _cells(html: str) -> list[str]:
    return [_text(c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", html, re.S)]


def test_tables_have_no_scientific_notation_literals_or_library_names(html):
    tables = re.findall(r"<table.*?</table>", html, re.S)
    assert tables
    text = " ".join(_text(t) for t in tables)
    assert not re.search(r"\d\.\d+e[-+]\d\d", text), re.search(r".{40}\d\.\d+e[-+]\d\d.{10}", text)
    cells = [c for t in tables for c in _cells(t)]
    assert not [c for c in cells if "{" in c or "[" in c]
    assert "ParSheet.to_dict" not in html
    assert not re.search(r"\b1 credits\b", _text(html))
    for t in tables:  # one header row: no index-name row
        head = re.search(r"<thead>(.*?)</thead>", t, re.S)
        assert head and head.group(1).count("<tr") == 1
    assert re.search(r"\b28,800\b", text)  # counts with thousands separators, exact
    assert "every line (all 10)" in text  # 10 identical payline rows shown as one


def test_key_figures_state_the_stake_and_unit(html):
    key = _text(_section(html, "Key figures"))
    assert "stake (total bet)" in key and "x total bet" in key
    assert "no figure depends on the stake" in key  # classic_tens: no cap, no jackpot


def test_key_figures_name_the_reference_stake_of_a_capped_game():
    game = workbench.load_game("bier_haus_oktober_fest")
    sheet = par(game, full_cycle=False)
    est = report.rtp_estimate(game, 0.05, SEED)
    key = report.key_figures(sheet, est)
    stake = report.tables.stake_text(est.model, game)
    assert stake == "45 GBP"
    assert key.loc["stake (total bet)"].str.startswith("45 GBP").all()
    dependent = [label for label in key.index
                 if label.lower().startswith(("rtp", "max win", "standard deviation", "volatility", "jackpot"))]
    assert dependent and all(label.endswith("at stake 45 GBP") for label in dependent)
    assert "cap" in key.loc["Max win (x total bet) at stake 45 GBP", "whole game (exact + conditional)"]
    shown = report.game_tables.feature_parameters(game)
    assert not shown["value"].str.contains(r"[{\[]").any()
    tiers = report.game_tables.game_overview(game).loc["must-drop jackpots", "value"]  # [jackpots.*], in words
    assert "Epic: drops by 15,000 GBP" in tiers and not re.search(r"[{\[]", tiers)


def test_simulation_check_has_a_threshold_and_says_when_it_is_too_small(html):
    sim = _text(_table_after(html, "Simulation against the exact"))
    assert "|z| <= 3" in sim
    assert f"not a meaningful check at {SPINS:,} spins" in sim  # 100,000 spins: ± 2.5 % resolution
    assert "consistent" not in sim


def test_session_bands_are_never_negative(html):
    bands = _text(_table_after(html, "RTP bands after n spins"))
    assert "quantiles of" in bands and "1,000" in bands
    assert not re.search(r"[-−]\s*\d+(\.\d+)?\s*%", bands)


def test_every_figure_has_alt_text(html):
    images = re.findall(r"<img\b[^>]*>", html)
    assert len(images) >= 6
    for img in images:
        alt = re.search(r'\balt="([^"]*)"', img)
        assert alt and alt.group(1).strip() and "No description" not in alt.group(1), img[:200]


def test_max_win_section_has_the_theoretical_maximum_and_odds(html):
    text = _text(_section(html, "10. Max win"))
    assert "theoretical max win" in text and "175x total bet" in text
    assert re.search(r"odds of the base-game max win\s+1 in [\d,.]+ spins", text)
    assert re.search(r"largest win simulated\s+[\d,.]+x total bet, seen [\d,]+ times? in 100,000 rounds "
                     r"\(1 in [\d,.]+ \(95 %: 1 in [\d,.]+ to 1 in [\d,.]+\)\)",
                     text)
    # the largest simulated win is replayable: its round and seed, and what it paid
    assert re.search(r"round of the largest simulated win\s+round [\d,]+ of seed \d+ \(workbench replay GAME --seed \d+ "
                     r"--round \d+[^)]*\): paid ", text)
    # and its screens drawn (replayed and traced), with the note naming the command that prints every one
    section = _section(html, "10. Max win")
    assert re.search(r'<img [^>]*alt="Chart: Step 1 of \d+ \(spin\): round total so far', section)
    assert re.search(r"The largest simulated win, round [\d,]+ of seed \d+ \([\d,.]+ x total bet\), has \d+ screens?", text)


def test_screenshot_of_every_section(run, html, tmp_path_factory):
    """One PNG per <h2> section of the HTML report, rendered in Debian's chromium (skipped without it)."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium does not exist: install Debian's chromium package to take the screenshots")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    from report_shots import screenshot_sections

    shots = tmp_path_factory.mktemp("reports") / "screenshots"
    shots.mkdir()
    sections = len(re.findall(r"<h2[ >]", html))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(run.html.resolve().as_uri(), wait_until="load")
            boxes = screenshot_sections(page, shots, 1280)
            assert len(boxes) == sections >= 10
        finally:
            browser.close()
    written = sorted(shots.glob("*.png"))
    assert len(written) == sections
    assert all(p.read_bytes().startswith(b"\x89PNG") and p.stat().st_size > 1000 for p in written)


def test_a_time_box_shares_the_reports_simulations_and_says_what_it_cut(tmp_path):
    """workbench report --max-seconds: the simulations (RTP estimate, bet modes, the end-to-end run) share the box;
    a run it cuts is reported with the rounds it played, and the report says what the box stopped."""
    files = report.generate_report("examples/ways_free_spins", tmp_path, spins=10**10, seed=SEED, precision=1e-6,
                                   max_seconds=4)
    data = json.loads(files.report_json.read_text())
    assert data["simulation"]["stopped_by"] == "time box" and 0 < data["simulation"]["spins"] < 10**10
    assert data["rtp_estimate"]["stopped_by"] == "time box"
    page = files.html.read_text()
    assert "time box of 4 s stopped the RTP estimate" in page
    with pytest.raises(ReportError, match="max_seconds must be"):
        report.generate_report("classic_tens", tmp_path / "bad", max_seconds=-1)
