"""The Stake Engine export (workbench.export; ``workbench export --format stake``).

The files reload (index, lookup tables, zstandard books) and give back the simulation's figures; each mode's RTP from
its lookup table agrees with the exact + conditional estimate within their intervals; a reweighted table hits its
target RTP with the least Kullback-Leibler divergence; a tampered file fails the export's own check.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import zstandard
from hypothesis import given, settings, strategies as st

from workbench.cli import main
from workbench.export import check_stake_export, export_stake, reweight_to_rtp
from workbench.export.stake import PAYOUT_SCALE, ExportError
from workbench.io import load_game
from workbench.simulate import estimate_rtp, simulate

GAME = "examples/ways_free_spins"  # a free-spins game with a buy (bonus_buy, 31 x total bet)
ROUNDS = 60_000
SEED = 3
Z95 = 1.959963984540054


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stake")
    return export_stake(load_game(GAME), folder, rounds=ROUNDS, seed=SEED, screens=False)  # (screens: tested below)


def _reload(folder, mode):
    rows = [r.split(",") for r in (folder / mode["weights"]).read_text().splitlines()]
    books = [json.loads(line) for line in zstandard.ZstdDecompressor().decompressobj()
             .decompress((folder / mode["events"]).read_bytes()).decode().splitlines()]
    return np.array([[int(v) for v in r] for r in rows], dtype=np.int64), books


def test_every_mode_is_written_and_its_files_give_back_the_simulation(exported):
    folder = exported.folder
    index = json.loads((folder / "index.json").read_text())
    game = load_game(GAME)
    assert [m["name"] for m in index["modes"]] == ["base", "bonus_buy"]
    assert index["modes"][0]["cost"] == 1.0 and index["modes"][1]["cost"] == float(game.all_bet_modes["bonus_buy"].cost)
    for mode, written in zip(index["modes"], exported.modes):
        table, books = _reload(folder, mode)
        assert table.shape == (ROUNDS, 3) and (table[:, 0] == np.arange(1, ROUNDS + 1)).all()
        assert [b["id"] for b in books] == table[:, 0].tolist()
        assert [b["payoutMultiplier"] for b in books] == table[:, 2].tolist()
        assert all(b["events"][-1] == {"index": len(b["events"]) - 1, "type": "finalWin", "amount": b["payoutMultiplier"]}
                   for b in books)
        played = game if mode["name"] == "base" else game.in_bet_mode(mode["name"])
        run = simulate(played, ROUNDS, SEED)
        # the rounds are the simulation's: the exact mean before flooring is the run's, the floor only takes away
        assert written.simulated_rtp == run.total_won() / ROUNDS
        table_rtp = Fraction(int(table[:, 2].sum()), PAYOUT_SCALE) / Fraction(mode["cost"]) / ROUNDS
        assert table_rtp == written.simulated_rtp - written.rounding_rtp and written.rounding_rtp >= 0
        assert table[:, 2].max() == math.floor(run.max_win * mode["cost"] * PAYOUT_SCALE + 1e-9)
        assert (table[:, 2] > 0).sum() == run.raw.hits
        assert math.isclose(written.figures.std, run.std, rel_tol=1e-3)
        # each book is a replayable round of the run
        top = int(np.argmax(table[:, 2]))
        assert books[top]["round"] == top and run.max_win_round.round == top and books[top]["seed"] == SEED
    assert exported.check.ok and set(exported.check.figures) == {"base", "bonus_buy"}


def test_the_lookup_tables_rtp_agrees_with_the_exact_and_conditional_estimate(exported):
    game = load_game(GAME)
    for written in exported.modes:
        played = game if written.name == "base" else game.in_bet_mode(written.name)
        estimate = estimate_rtp(played, precision=0.004, seed=8)
        table_ci = Z95 * written.figures.std / math.sqrt(ROUNDS)
        gap = abs(written.figures.rtp - estimate.rtp)
        assert gap <= math.hypot(table_ci, estimate.rtp_ci95), (written.name, written.figures.rtp, estimate.rtp)


def test_the_books_show_every_screen_and_its_wins(tmp_path):
    """With screens (the default) every book starts with its round's screens: a ``reveal`` per screen (the board,
    reels x rows, and the total so far, the last one the book's payout) and a ``winInfo`` of the wins the reference
    evaluator finds on it (cells on the board, showing the win's symbols); the rest of the book is the book written
    without screens."""
    game = load_game(GAME)
    rounds = 1_500
    shown = export_stake(game, tmp_path / "screens", rounds=rounds, seed=SEED)
    plain = export_stake(game, tmp_path / "plain", rounds=rounds, seed=SEED, screens=False)
    index = json.loads((shown.folder / "index.json").read_text())
    assert shown.check.ok and "reveal" in json.loads((shown.folder / "workbench_export.json").read_text())["screens"]
    for mode in index["modes"]:
        _, books = _reload(shown.folder, mode)
        _, outcomes = _reload(plain.folder, mode)
        for book, outcome in zip(books, outcomes):
            kinds = [e["type"] for e in book["events"]]
            reveals = [e for e in book["events"] if e["type"] == "reveal"]
            assert reveals and kinds[: kinds.index("finalWin")].count("reveal") == len(reveals)
            assert all(len(r["board"]) == 5 and all(len(reel) == 3 for reel in r["board"]) for r in reveals)
            assert reveals[-1]["totalWin"] == book["payoutMultiplier"]
            assert all(a["totalWin"] <= b["totalWin"] for a, b in zip(reveals, reveals[1:]))
            counters = {e["name"]: e["count"] for e in book["events"] if e["type"] == "counter"}
            assert len(reveals) == (mode["name"] == "base") + counters.get("free_spins:spins", 0), book["id"]
            board = None
            for event in book["events"]:
                if event["type"] == "reveal":
                    board = event["board"]
                elif event["type"] == "winInfo":
                    assert book["payoutMultiplier"] > 0
                    for win in event["wins"]:
                        assert win["basePay"] > 0 and win["positions"]
                        assert {board[p["reel"]][p["row"]]["name"] for p in win["positions"]} == set(win["symbols"])
            rest = [{k: v for k, v in e.items() if k != "index"} for e in book["events"] if e["type"] not in ("reveal", "winInfo")]
            assert rest == [{k: v for k, v in e.items() if k != "index"} for e in outcome["events"]]
            assert [e["index"] for e in book["events"]] == list(range(len(kinds)))


def test_a_reweighted_table_hits_its_target_and_says_how_far_it_moved(tmp_path, capsys):
    status = main(["export", GAME, "--rounds", "20000", "--seed", "4", "--out", str(tmp_path / "x"),
                   "--target-rtp", "95%", "--no-screens"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.count("KL divergence") == 2 and "to 95.000000 %" in out
    check = check_stake_export(tmp_path / "x")
    assert check.ok
    for figures in check.figures.values():
        assert abs(figures.rtp - 0.95) < 1e-6


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5_000), min_size=3, max_size=60), st.floats(0.05, 0.95), st.integers(0, 10**6))
def test_exponential_tilting_hits_the_target_with_the_least_divergence(payouts, where, seed):
    payouts = np.array(payouts, dtype=np.uint64)
    x = payouts / PAYOUT_SCALE
    if x.max() - x.min() < 0.05:
        return
    target = float(x.min() + where * (x.max() - x.min()))
    weights, tilt = reweight_to_rtp(payouts, 1.0, target)
    q = weights / weights.sum()
    assert abs(float((q * x).sum()) - target) < 1e-9 and tilt.kl_divergence >= -1e-12
    # any other distribution with the same mean (q moved along a direction d with sum(d) = 0 and sum(d x) = 0)
    # is further from the uniform one
    rng = np.random.default_rng(seed)
    basis = np.vstack([np.ones_like(x), x])
    d = rng.normal(size=x.size)
    d -= basis.T @ np.linalg.lstsq(basis.T, d, rcond=None)[0]
    step = 0.5 * q.min() / max(np.abs(d).max(), 1e-300)
    other = q + step * d
    n = x.size

    def kl(p):
        return float(np.sum(p * np.log(p * n)))

    assert kl(other) >= kl(q) - 1e-12


def test_a_tampered_export_fails_its_check_and_a_folder_of_other_files_is_refused(exported, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(exported.folder, copy)
    table = copy / "lookUpTable_base_0.csv"
    rows = table.read_text().splitlines()
    first = rows[0].split(",")
    rows[0] = ",".join([first[0], first[1], str(int(first[2]) + 100)])
    table.write_text("\n".join(rows) + "\n")
    problems = check_stake_export(copy).problems
    assert any("SHA-256" in p for p in problems) and any("not the lookup table's" in p for p in problems)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "design.toml").write_text("keep me")
    with pytest.raises(ExportError, match="not an export"):
        export_stake(load_game(GAME), tmp_path / "mine", rounds=10, seed=1)
    assert (tmp_path / "mine" / "design.toml").read_text() == "keep me"
    with pytest.raises(ExportError, match="no weighting of them reaches it"):
        reweight_to_rtp(np.array([0, 100, 200], dtype=np.uint64), 1.0, 5.0)
