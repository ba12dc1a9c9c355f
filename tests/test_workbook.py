"""The PAR workbook as labs exchange it (workbench.report.workbook): sheets, formats, exact counts, provenance."""

import hashlib
import re
from pathlib import Path

import openpyxl
import pytest

import workbench
from workbench import cli
from workbench.exact import par
from workbench.io import load_game
from workbench.report.workbook import EXACT_INT_LIMIT, FEATURES_NEED_RTP, write_par_workbook
from workbench.simulate import estimate_rtp

ROOT = Path(__file__).resolve().parent.parent
SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")
SCIENTIFIC = re.compile(r"\d[eE][+-]\d")
PERCENT_FORMATS = {"0.0000%"}


@pytest.fixture(scope="module")
def stars():
    return load_game("super_10_stars")


@pytest.fixture(scope="module")
def stars_sheet(stars):
    return par(stars)


@pytest.fixture(scope="module")
def books(tmp_path_factory, classic, stars, stars_sheet):
    out = tmp_path_factory.mktemp("workbooks")
    ways = load_game(ROOT / "reelsets" / "examples" / "ways_243.toml")
    est = estimate_rtp(stars, 0.01, 1)
    paths = {
        "classic": write_par_workbook(out / "classic.xlsx", classic),
        "stars": write_par_workbook(out / "stars.xlsx", stars, stars_sheet),
        "stars_est": write_par_workbook(out / "stars_est.xlsx", stars, stars_sheet, estimate=est),
        "ways": write_par_workbook(out / "ways.xlsx", ways),
    }
    games = {"classic": classic, "stars": stars, "stars_est": stars, "ways": ways}
    return {k: (openpyxl.load_workbook(p), games[k], p) for k, p in paths.items()} | {"est": est}


def _summary(book) -> dict:
    return {row[0].value: row[1] for row in book["Summary"].iter_rows(min_row=2) if row[0].value}


def _cells(book):
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                yield ws, cell


def test_sheet_names(books):
    head, tail = ["Summary", "PAR base"], ["Prize structure", "Awards", "Strips", "Reel strips", "Paytable", "Provenance"]
    body = ["Combinations", "Symbol counts"]
    assert books["classic"][0].sheetnames == head + body + ["Per line", "Scatter pays"] + tail
    assert books["stars"][0].sheetnames == (head + ["PAR free_spins", "PAR super10_free_spins"] + body
                                            + ["Per line", "Scatter pays", "Triggers"] + tail)
    assert books["stars_est"][0].sheetnames == books["stars"][0].sheetnames
    assert books["ways"][0].sheetnames == head + body + ["Scatter pays", "Triggers"] + tail  # no paylines


def test_summary_whole_game_and_base_rtp(books, stars_sheet):
    est = books["est"]
    with_est = _summary(books["stars_est"][0])
    assert with_est["Whole-game RTP (exact + conditional)"].value == pytest.approx(est.rtp, abs=1e-12)
    assert 0.93 < with_est["Whole-game RTP (exact + conditional)"].value < 0.96
    assert with_est["Whole-game RTP 95 % half-width"].value == pytest.approx(est.rtp_ci95)
    assert with_est["Base-game RTP (exact)"].value == pytest.approx(0.5906, abs=1e-4) == stars_sheet.rtp
    assert with_est["Volatility index 90 %"].value == pytest.approx(stars_sheet.volatility_index(0.90))
    assert with_est["Hit frequency, PAR-sheet convention"].value == pytest.approx(stars_sheet.par_hit_frequency)
    for mode in ("free_spins", "super10_free_spins"):
        assert f"Mode {mode}" in with_est and f"RTP of mode {mode} (exact)" in with_est
    without = _summary(books["stars"][0])
    assert without["Whole-game RTP"].value == FEATURES_NEED_RTP
    assert without["Base-game RTP (exact)"].value == stars_sheet.rtp
    classic = _summary(books["classic"][0])
    assert classic["Whole-game RTP (exact)"].value == pytest.approx(0.950790, abs=1e-6)
    assert classic["Whole-game RTP (exact)"].value == classic["Base-game RTP (exact)"].value
    assert "Whole-game RTP (exact)" in _summary(books["ways"][0])
    for label in ("Stake convention", "Pay rule", "Max win", "Cycle", "Standard deviation", "Volatility index 95 %"):
        assert label in classic
    assert classic["Stake convention"].value == "x total bet"
    # every numeric Summary row has its unit
    for row in books["stars_est"][0]["Summary"].iter_rows(min_row=2):
        if isinstance(row[1].value, (int, float)):
            assert row[2].value, row[0].value


def test_number_formats(books):
    book = books["stars_est"][0]
    summary = _summary(book)
    for label in ("Whole-game RTP (exact + conditional)", "Base-game RTP (exact)", "Hit frequency", "RTP lines"):
        assert summary[label].number_format in PERCENT_FORMATS, label
    assert summary["Hit rate"].number_format == "#,##0.00"
    for title in ("Combinations", "Scatter pays", "Triggers", "Awards"):
        ws = book[title]
        headers = [c.value for c in ws[1]]
        for col, header in enumerate(headers, start=1):
            cells = [ws.cell(row=r, column=col) for r in range(2, ws.max_row + 1)]
            if header.startswith(("Probability", "RTP (", "% of")):
                assert all(c.number_format in PERCENT_FORMATS for c in cells), (title, header)
            elif header.startswith("Hits"):
                assert all(c.number_format == "#,##0" or (isinstance(c.value, str) and c.value.isdigit())
                           for c in cells), (title, header)
            elif header.startswith("1 in N"):
                assert all(c.number_format == "#,##0.00" or isinstance(c.value, str) for c in cells), (title, header)


@pytest.mark.parametrize("name", ["classic", "stars", "stars_est", "ways"])
def test_no_scientific_notation_or_python_literals(books, name):
    book = books[name][0]
    for ws, cell in _cells(book):
        value = cell.value
        if isinstance(value, float):
            assert cell.number_format != "General" and "E" not in cell.number_format.upper(), (ws.title, cell.coordinate)
        elif isinstance(value, int) and not isinstance(value, bool):
            assert abs(value) <= EXACT_INT_LIMIT and cell.number_format != "General", (ws.title, cell.coordinate)
        elif isinstance(value, str):
            assert "{" not in value and "[" not in value and "None" not in value, (ws.title, cell.coordinate, value)
            assert not SCIENTIFIC.search(value) and "e-0" not in value and "e+1" not in value, (ws.title, value)


@pytest.mark.parametrize("name", ["classic", "stars_est", "ways"])
def test_headers_are_human_bold_and_frozen(books, name):
    book = books[name][0]
    for ws in book.worksheets:
        assert ws.freeze_panes == "A2", ws.title
        headers = [c for c in ws[1]]
        assert headers and all(c.value and c.font.bold for c in headers), ws.title
        for c in headers:
            assert not SNAKE.match(c.value) and "_" not in c.value, (ws.title, c.value)
        assert all(ws.column_dimensions[c.column_letter].width > len(c.value) for c in headers), ws.title


def test_large_counts_round_trip_exactly(books, stars_sheet):
    assert stars_sheet.cycle > EXACT_INT_LIMIT
    book = books["stars"][0]
    assert _summary(book)["Cycle"].value == str(stars_sheet.cycle)
    big = 14_556_841_092_047_772  # one GOLD scatter over the cycle (Excel keeps 15 digits of a number)
    assert big > EXACT_INT_LIMIT and big in [int(h) for h in stars_sheet.scatter_pays["hits"]]
    ws = book["Scatter pays"]
    headers = [c.value for c in ws[1]]
    hits_col, prob_col = headers.index("Hits (over the cycle)"), headers.index("Probability (per spin)")
    rows = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[hits_col] == str(big)]
    assert len(rows) == 1 and isinstance(rows[0][prob_col], float)
    assert rows[0][prob_col] == pytest.approx(big / stars_sheet.cycle, rel=1e-12)
    # every count of the table is exact, as int or digits
    expected = [int(h) for h in stars_sheet.scatter_pays["hits"]]
    got = [int(r[hits_col]) for r in ws.iter_rows(min_row=2, values_only=True)]
    assert got == expected


@pytest.mark.parametrize("name", ["classic", "stars_est", "ways"])
def test_provenance(books, name):
    book, game, _ = books[name]
    items = {r[0]: r[1] for r in book["Provenance"].iter_rows(min_row=2, values_only=True)}
    assert items["Reelset file SHA-256"] == hashlib.sha256(Path(game.path).read_bytes()).hexdigest()
    assert items["Reelset file"] == str(Path(game.path).resolve())
    assert items["Workbench version"] == workbench.__version__
    assert items["Git commit"] == "not in a git checkout" or re.fullmatch(r"[0-9a-f]{40,64}", items["Git commit"])
    assert items["Written (UTC)"]
    if name == "stars_est":
        assert items["Estimate seed"] == 1 and items["Estimate precision (95 % half-width target)"] == 0.01


@pytest.mark.parametrize("name", ["classic", "stars", "ways"])
def test_strips_sheet_has_one_row_per_stop(books, name):
    book, game, _ = books[name]
    ws = book["Strips"]
    stops = sum(len(strip) for s in game.strip_sets.values() for strip in s.reels)
    assert ws.max_row - 1 == stops
    headers = [c.value for c in ws[1]]
    first = dict(zip(headers, next(ws.iter_rows(min_row=2, values_only=True))))
    s = next(iter(game.strip_sets.values()))
    assert (first["Strip set"], first["Reel"], first["Stop"], first["Symbol"]) == (s.name, 1, 1, s.reels[0].symbols[0])


def test_per_line_collapses_identical_lines_and_tables_match(books, classic):
    sheet = par(classic)
    ws = books["classic"][0]["Per line"]
    assert ws.max_row == 2 and ws["A2"].value == "every line"
    assert ws["C2"].value == pytest.approx(sheet.per_line["rtp"].iloc[0])
    combos = books["classic"][0]["Combinations"]
    assert combos.max_row - 1 == len(sheet.combinations)
    assert [r[0] for r in combos.iter_rows(min_row=2, values_only=True)] == list(sheet.combinations["combination"])
    pay = books["classic"][0]["Paytable"]
    assert pay.max_row - 1 == sum(len(p) for p in classic.paytable.values()) + sum(len(g.pays) for g in classic.scatters.values())


def test_par_cli_writes_the_workbook(tmp_path, capsys):
    out = tmp_path / "classic.xlsx"
    assert cli.main(["par", "classic_tens", "--json", "--xlsx", str(out)]) == 0
    book = openpyxl.load_workbook(out)
    assert book.sheetnames[0] == "Summary" and "Provenance" in book.sheetnames
    assert "Whole-game RTP (exact)" in _summary(book)


def test_par_sheet_to_excel_still_works(tmp_path, classic):
    path = tmp_path / "raw.xlsx"
    par(classic).to_excel(path)
    assert "combinations" in openpyxl.load_workbook(path, read_only=True).sheetnames


def test_report_files_pass_the_estimate_to_the_workbook(tmp_path, stars, stars_sheet, books):
    from workbench import report

    est = books["est"]
    data = {"provenance": {"game": stars.name, "seed": 1, "spins": 1000, "precision": 0.01}, "rtp_estimate": est.to_dict()}
    paths = report.write_outputs(tmp_path, stars, stars_sheet, data)
    book = openpyxl.load_workbook(paths["xlsx"])
    summary = _summary(book)
    assert summary["Whole-game RTP (exact + conditional)"].value == pytest.approx(est.rtp, abs=1e-12)
    assert summary["Base-game RTP (exact)"].value == stars_sheet.rtp
    items = {r[0]: r[1] for r in book["Provenance"].iter_rows(min_row=2, values_only=True)}
    assert items["Estimate seed"] == 1 and items["Report simulated rounds"] == 1000
