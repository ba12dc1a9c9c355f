"""One catalogue of figures (workbench.figures): every view reads it, so a figure added to it appears in the CLI's
PAR text, the JSON, the report's key figures, the PAR workbook's Summary and the editors' summary with no other
change; and the views show the same figures with the same labels."""

from __future__ import annotations

import json

import pytest

from workbench import cli, figures
from workbench.exact import par
from workbench.io import load_game

#: a throwaway figure: the number of lines x 1,000 (exact, a whole number), registered for one test
THROWAWAY = figures.Figure("test_lines_thousand", "Lines times a thousand", "a test figure", figures.COUNT,
                           lambda sheet: 1000 * len(sheet.game.paylines))


@pytest.fixture
def registered():
    figures.register(THROWAWAY, after="cycle")
    try:
        yield THROWAWAY
    finally:
        figures.unregister(THROWAWAY.key)


def test_a_figure_added_to_the_catalogue_appears_in_every_view(registered, capsys, tmp_path):
    from openpyxl import load_workbook

    from workbench.report.computations import rtp_estimate
    from workbench.report.tables import key_figures
    from workbench.report.workbook import write_par_workbook
    from workbench.widgets.summary import par_metrics

    game = load_game("classic_tens")
    assert cli.main(["par", "classic_tens"]) == 0
    text = capsys.readouterr().out
    assert "Lines times a thousand" in text and "10,000" in text and "a test figure" in text
    assert cli.main(["par", "classic_tens", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["figures"]["test_lines_thousand"] == {"label": "Lines times a thousand", "value": 10_000,
                                                      "unit": "a test figure", "source": "exact"}
    sheet = par(game, full_cycle=False)
    table = key_figures(sheet, rtp_estimate(game, 0.05, 1))
    assert table.loc["Lines times a thousand", "exact base game"] == "10,000"
    assert table.loc["Lines times a thousand", "whole game (exact + conditional)"] == "-"  # not an estimate's figure
    out = tmp_path / "classic.xlsx"
    write_par_workbook(out, game, sheet)
    rows = {r[0].value: r for r in load_workbook(out)["Summary"].iter_rows(min_row=2)}
    assert rows["Lines times a thousand"][1].value == 10_000 and rows["Lines times a thousand"][2].value == "a test figure"
    assert "test_lines_thousand" in {m.key for m in par_metrics(sheet)}
    assert sheet.summary["test_lines_thousand"] == 10_000


def test_after_the_test_the_figure_is_gone():
    assert "test_lines_thousand" not in [f.key for f in figures.CATALOGUE]


def test_the_views_show_the_same_figures():
    """The summary, the JSON, the editors and the tuner read the same catalogue: the same keys and values."""
    from workbench.tuning import KEEP_METRICS, measure
    from workbench.widgets.summary import par_metrics

    game = load_game("examples/ways_free_spins")
    sheet = par(game, full_cycle=False)
    values = {v.key: v.value for v in sheet.figures()}
    assert {k: v for k, v in sheet.summary.items() if k not in ("game", "mode")} == values
    assert {k: d["value"] for k, d in sheet.to_dict()["figures"].items()} == {
        k: (str(v) if k == "rtp_exact" else v) for k, v in values.items()}
    assert all(values[m.key] == m.value for m in par_metrics(sheet))
    measured = measure(game, "base")
    assert all(measured[k] == values[k] for k in KEEP_METRICS[1:]) and measured["base_rtp"] == values["rtp"]
    assert measured["trigger:free_spins"] == values["trigger:free_spins"] == sheet.trigger_probability("free_spins")
    with pytest.raises(ValueError, match="in the catalogue already"):
        figures.register(figures.Figure("rtp", "RTP again", "x total bet", figures.PERCENT, lambda s: s.rtp))
