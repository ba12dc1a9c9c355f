"""Every mode in the report (workbench.report.modes): a PAR section per mode, the cycle as the product of the reels'
total stop weights, the symbol counts of each mode's strips, the strips appendix stop by stop, the workbook's sheets."""

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import openpyxl
import pytest

from workbench.io import load_game
from workbench.report import modes as M
from workbench.report.display import table_html

ROOT = Path(__file__).resolve().parent.parent
SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def _has_modes(path) -> bool:
    game = load_game(path)
    return len(game.modes) > 1 or bool(game.bet_modes)


GALLERY = [p.name for p in sorted((ROOT / "reelsets" / "examples").glob("*.toml")) if _has_modes(p)]
SHIPPED = ["super_10_stars", "bier_haus_oktober_fest"]
# mystery_stacks: its free-spins sheet prices every mystery reveal and wild-reel draw (a minute on a loaded machine)
GAMES = [pytest.param(n, marks=pytest.mark.slow) if n == "mystery_stacks.toml" else n for n in GALLERY] + SHIPPED


@lru_cache(maxsize=None)
def _game(name):
    return load_game(ROOT / "reelsets" / "examples" / name if name.endswith(".toml") else name)


@lru_cache(maxsize=None)
def _modes(name):
    return M.mode_sheets(_game(name))


def _sets_of(game, mode) -> list:
    """The file's strip sets a mode spins on, found from the file's game (not from the module under test)."""
    if mode.key == "base":
        return [s for s in game.strip_sets.values() if s.mode == "base"]
    if mode.key.startswith("strips:"):
        return [s for s in game.strip_sets.values() if s.mode == mode.name]
    bet = game.bet_modes[mode.name]
    return [] if bet.buy or bet.prize else [s for s in game.strip_sets.values() if s.mode == bet.strip_sets]


def _total_weight(strip) -> int:
    return sum(strip.weights) if strip.weights is not None else len(strip.symbols)


def test_the_gallery_has_games_with_modes():
    assert {"sticky_wilds_ante.toml", "ways_free_spins.toml", "hold_and_respin_coins.toml"} <= set(GALLERY)


@pytest.mark.parametrize("name", GAMES)
def test_a_table_per_mode(name):
    game, modes = _game(name), _modes(name)
    keys = [m.key for m in modes]
    assert keys[0] == "base" and len(keys) == len(set(keys))
    # every bet mode has its section; every strip-set mode has its own, or is the paid spin of a bet mode's
    assert {f"bet:{n}" for n in game.bet_modes} <= set(keys)
    paid = {m.strip_sets for m in game.bet_modes.values() if not m.buy and not m.prize}
    for strip_mode in game.modes:
        assert (f"strips:{strip_mode}" in keys) != (strip_mode in paid) or strip_mode == "base", strip_mode
    for mode in modes:
        table = M.mode_par_table(mode)
        assert list(table.columns) == ["value", "unit", "method"] and len(table), mode.key
        assert M.mode_caption(mode).startswith(mode.label)
        if mode.sheet is None:
            assert mode.buy and mode.reason, mode.key  # only a buy has no exact sheet of a spin
            continue
        for figure in ("RTP", "Hit frequency", "Standard deviation", "Volatility index 90 %", "Volatility index 95 %",
                       "Max win"):
            assert figure in table.index, (mode.key, figure)
        assert table.loc["RTP", "value"].endswith(" %") and table.loc["RTP", "method"]
        assert any(i.startswith("RTP part ") for i in table.index)
        assert table.loc["Max win", "method"]  # how the max win is known
        for trigger in game.triggers:
            assert re.fullmatch(r"1 in [\d,]+\.\d\d|never", table.loc[f"Trigger {trigger}", "value"]), trigger
        for value in table["value"]:
            assert not SCIENTIFIC.search(value), (mode.key, value)


@pytest.mark.parametrize("name", GAMES)
def test_cycle_is_the_product_of_the_stop_weights(name):
    game = _game(name)
    for mode in _modes(name):
        sets = _sets_of(game, mode)
        table = M.mode_par_table(mode) if mode.sheet is not None else None
        if table is None:
            assert not sets
            continue
        for s in sets:
            weights = [_total_weight(strip) for strip in s.reels]
            product = 1
            for w in weights:
                product *= w
            printed = table.loc[f"Cycle, strip set {s.name}", "value"]
            factors, total = printed.split(" = ")
            assert int(total.replace(",", "")) == product, (mode.key, s.name)
            assert [int(f.replace(",", "")) for f in factors.split(" x ")] == weights
            if len(sets) > 1:
                assert f"weight {s.weight:,} of {sum(x.weight for x in sets):,}" in table.loc[f"Cycle, strip set {s.name}", "unit"]


def test_weighted_strip_sets_and_other_draws_give_the_counts_cycle():
    modes = {m.key: m for m in _modes("super_10_stars")}
    table = M.mode_par_table(modes["base"])
    assert "Weighted combinations the counts are over" in table.index  # two base strip sets, weights 88 and 12
    assert table.loc["Weighted combinations the counts are over", "value"] == f"{int(modes['base'].sheet.cycle):,}"
    free = M.mode_par_table(modes["strips:free_spins"])
    assert "Weighted combinations the counts are over" not in free.index  # one set, the stop cycle itself
    wilds = {m.key: m for m in _modes("ways_1024_free_wild_multipliers.toml")}["strips:free_spins"]
    row = M.mode_par_table(wilds).loc["Weighted combinations the counts are over"]
    assert "wild multipliers" in row["unit"] and row["value"] == f"{int(wilds.sheet.cycle):,}"


@pytest.mark.parametrize("name", GAMES)
def test_symbol_counts_are_those_of_the_modes_strips(name):
    game = _game(name)
    for mode in _modes(name):
        counts = M.mode_symbol_counts(mode)
        sets = _sets_of(game, mode)
        if not sets:
            assert counts.empty
            continue
        assert sorted(set(counts.index.get_level_values("strip set"))) == sorted(s.name for s in sets)
        for s in sets:
            block = counts.loc[s.name]
            for r, strip in enumerate(s.reels, start=1):
                expected = Counter()
                for i, symbol in enumerate(strip.symbols):
                    expected[symbol] += strip.weights[i] if strip.weights is not None else 1
                got = {sym: int(c) for sym, c in block[f"reel {r}"].items() if sym != "total" and c}
                assert got == {k: v for k, v in expected.items() if v}, (mode.key, s.name, r)
                assert int(block.loc["total", f"reel {r}"]) == _total_weight(strip)


@pytest.mark.parametrize("name", GAMES)
def test_strips_appendix_lists_every_stop_in_order(name):
    game = _game(name)
    appendix = M.strips_appendix(game)
    assert len(appendix) == len(game.strip_sets)
    for (caption, table), s in zip(appendix, game.strip_sets.values()):
        assert caption.startswith(f"Strip set {s.name} (mode {s.mode}") and "numbered from 1" in caption
        longest = max(len(strip.symbols) for strip in s.reels)
        assert list(table.index) == list(range(1, longest + 1)) and table.index.name == "stop"
        for r, strip in enumerate(s.reels, start=1):
            column = list(table[f"reel {r}"])
            assert column[:len(strip.symbols)] == list(strip.symbols)
            assert all(c == "" for c in column[len(strip.symbols):])
            weighted = strip.weights is not None and any(w != 1 for w in strip.weights)
            assert (f"reel {r} weight" in table) == weighted
            if weighted:
                assert list(table[f"reel {r} weight"])[:len(strip.symbols)] == list(strip.weights)


def test_weighted_strips_show_their_stop_weights():
    game = _game("classic_any_bar.toml")
    (caption, table), = M.strips_appendix(game)
    strip = next(iter(game.strip_sets.values())).reels[0]
    assert list(table["reel 1 weight"]) == list(strip.weights)
    counts = M.mode_symbol_counts(M.mode_sheets(game)[0])
    assert int(counts.loc[("base", "total"), "reel 1"]) == sum(strip.weights)


def test_long_strips_render_one_row_per_stop():
    game = load_game("classic_tens")
    s = next(iter(game.strip_sets.values()))
    long = (list(s.reels[0].symbols) * (650 // len(s.reels[0]) + 1))[:650]
    game = game.with_strip(s.name, 1, long)
    (caption, table), = M.strips_appendix(game)
    assert len(table) == 650 and list(table["reel 1"]) == long
    assert list(table["reel 2"])[len(s.reels[1]):] == [""] * (650 - len(s.reels[1]))
    html = table_html(table)
    assert html.count("<tr") == 651  # the header and one row per stop
    assert "650" in caption


def test_the_given_sheet_and_estimates_are_used():
    game = _game("ways_free_spins.toml")
    base = _modes("ways_free_spins.toml")[0].sheet
    buy = {"mode": "bonus_buy", "cost_x_total_bet": 31.0, "buy": True, "rtp": 0.9612, "rtp_ci95": 0.004, "base_part": 0.0,
           "std": 20.5, "hit_frequency": 0.99, "max_win": 640.0, "max_win_cap": None, "volatility_index_90": 33.72,
           "volatility_index_95": 40.18}
    modes = {m.key: m for m in M.mode_sheets(game, [buy], sheet=base)}
    assert modes["base"].sheet is base and modes["base"].estimate is None
    table = M.mode_par_table(modes["bet:bonus_buy"])
    assert table.loc["Cost", "value"] == "31x"
    assert table.loc["Whole-round RTP", "value"] == "96.1200 %"
    assert "± 0.4000 %" in table.loc["Whole-round RTP", "method"]
    assert table.loc["Whole-round RTP", "unit"] == "x its cost (31x total bet)"
    assert table.loc["Whole-round volatility index 95 %", "value"] == "40.1800"
    assert "x its cost" in table.loc["Whole-round volatility index 90 %", "unit"]
    assert table.loc["Whole-round largest known win", "value"] == "640x"
    data = M.modes_data(list(modes.values()))
    assert [d["key"] for d in data] == list(modes)
    assert data[0]["symbol_counts"]["base"]["total"] == [len(r) for r in game.strip_sets["base"].reels]


@pytest.mark.parametrize("name", ["sticky_wilds_ante.toml", "hold_and_respin_coins.toml", "super_10_stars"])
def test_workbook_has_a_sheet_per_mode_and_the_reel_strips(tmp_path, name):
    from workbench.report.workbook import write_par_workbook

    game, modes = _game(name), _modes(name)
    base = modes[0].sheet
    path = write_par_workbook(tmp_path / "par.xlsx", game, base, modes=modes)
    book = openpyxl.load_workbook(path)
    titles = [f"PAR {m.name}" for m in modes]
    assert book.sheetnames[:1 + len(titles)] == ["Summary", *titles]
    assert "Reel strips" in book.sheetnames
    for mode, title in zip(modes, titles):
        ws = book[title]
        assert [c.value for c in ws[1]] == ["Figure", "Value", "Unit", "Method"] and ws.freeze_panes == "A2"
        rows = {r[0]: r for r in ws.iter_rows(min_row=3, values_only=True)}
        for s in _sets_of(game, mode):
            product = 1
            for strip in s.reels:
                product *= _total_weight(strip)
            value = rows[f"Cycle, strip set {s.name}"][1]
            assert int(value) == product and isinstance(value, (int, str))
        if mode.sheet is not None:
            assert rows["RTP"][1] == pytest.approx(mode.sheet.rtp) and ws.cell(row=3, column=2).number_format == "0.0000%"
    ws = book["Reel strips"]
    headers = [c.value for c in ws[1]]
    got = {}
    for row in ws.iter_rows(min_row=2, values_only=True):
        got.setdefault(row[0], []).append(row)
    for s in game.strip_sets.values():
        rows = got[s.name]
        assert [r[2] for r in rows] == list(range(1, max(len(x) for x in s.reels) + 1))
        for r, strip in enumerate(s.reels, start=1):
            col = headers.index(f"Reel {r}")
            assert [row[col] for row in rows][:len(strip)] == list(strip.symbols)
