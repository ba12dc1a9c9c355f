"""A safety maximum that binds is said: max_free_spins (free_spins, tumble) and max_cascades (tumble).

The RTP of a result includes the cut; the note says how often it happened, from the counters the rounds keep
(``free_spins:limit``, ``tumble:limit``), in ``simulate`` and ``estimate_rtp`` results, their JSON and the CLI.
"""

import json
import re
import subprocess
import sys

import pytest

from workbench.io import loads_game, reelsets_dir
from workbench.simulate import estimate_rtp, simulate

FREE_SPINS = (reelsets_dir() / "examples/ways_free_spins.toml").read_text(encoding="utf-8")
TUMBLE = (reelsets_dir() / "examples/pay_anywhere_tumble.toml").read_text(encoding="utf-8")
MAX_LINE = "max_free_spins = 100                      # per feature, retriggers included"


def tight_free_spins(tmp_path, most: int = 20):
    """ways_free_spins whose feature stops at ``most`` spins: a retrigger after the first award is cut."""
    assert MAX_LINE in FREE_SPINS
    path = tmp_path / "tight.toml"
    path.write_text(FREE_SPINS.replace(MAX_LINE, f"max_free_spins = {most}"), encoding="utf-8")
    return path


def test_a_binding_max_free_spins_is_said_with_its_rate(tmp_path):
    game = loads_game(tight_free_spins(tmp_path).read_text(encoding="utf-8"), "tight.toml")
    result = simulate(game, 400_000, seed=5)
    cut = result.counters["free_spins:limit"]
    assert cut > 0
    (note,) = result.limit_notes
    assert note.startswith("max_free_spins = 20 bound: a retrigger was cut short at the safety maximum ")
    assert f"{cut:,} times in {result.spins:,} simulated rounds" in note
    once_in = float(re.search(r"about once in ([\d,]+) rounds", note).group(1).replace(",", ""))
    assert once_in == pytest.approx(result.spins / cut, abs=1)
    assert result.to_dict()["notes"] == [note]
    # the stratified estimate: P(state) x each state's rate per paid round, about the end-to-end rate
    est = estimate_rtp(game, precision=0.01, seed=6, max_seconds=20)
    (est_note,) = est.limit_notes
    assert "paid rounds" in est_note and est.to_dict()["notes"] == [est_note]
    rate = est.counter_rates["free_spins:limit"]
    assert rate == pytest.approx(cut / result.spins, rel=0.25)
    assert est.counters["free_spins:limit"] > 0


def test_a_maximum_that_never_binds_is_not_mentioned():
    game = loads_game(FREE_SPINS, "ways_free_spins.toml")
    result = simulate(game, 200_000, seed=5)
    assert result.counters["free_spins:limit"] == 0 and result.limit_notes == []
    assert estimate_rtp(game, precision=0.02, seed=6, max_seconds=10).limit_notes == []


def test_a_tumble_cut_at_max_cascades_is_said():
    header = '[features]  # the tumble round (game_module = "tumble")\n'
    assert header in TUMBLE
    text = TUMBLE.replace(header, header + "max_cascades = 1\n", 1)
    game = loads_game(text, "one_cascade.toml")
    result = simulate(game, 100_000, seed=7)
    assert result.counters["tumble:limit"] > 0
    assert any(n.startswith("max_cascades = 1 bound: a chain was cut at the most cascades") for n in result.limit_notes)


def test_workbench_rtp_prints_the_note(tmp_path):
    path = tight_free_spins(tmp_path)
    out = subprocess.run([sys.executable, "-m", "workbench.cli", "rtp", str(path), "--precision", "0.02", "--quiet",
                          "--max-seconds", "20"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"note +max_free_spins = 20 bound: .* about once in [\d,]+ paid rounds", out.stdout), out.stdout
    data = json.loads(subprocess.run([sys.executable, "-m", "workbench.cli", "simulate", str(path), "--spins", "200000",
                                      "--json", "--quiet"], capture_output=True, text=True, timeout=300).stdout)
    assert data["notes"] and data["notes"][0].startswith("max_free_spins = 20 bound")
