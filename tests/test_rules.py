"""Pay rules as registered objects (workbench/model/rules.py): code above the pay rules dispatches through
``game.rule``; a rule registered at run time is validated, priced exactly and simulated with no other change."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import pytest

from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import loads_game, reelsets_dir
from workbench.model import rules
from workbench.simulate import estimate_rtp, simulate

ROOT = Path(__file__).resolve().parent.parent

# a throwaway rule: counts of a symbol anywhere, its parts those of scatter_pays, under another name and title
THROWAWAY = dataclasses.replace(rules.SCATTER_PAYS, name="count_anywhere_test", title="count-anywhere",
                                heading="Count-anywhere combinations (pay {unit}; rtp x total bet)",
                                describe=lambda game: "a test rule: counts of a symbol anywhere")


@pytest.fixture
def registered():
    rules.register(THROWAWAY)
    try:
        yield THROWAWAY
    finally:
        rules.unregister(THROWAWAY.name)


def _game(rule: str):
    text = (reelsets_dir() / "examples" / "pay_anywhere_6x5.toml").read_text()
    assert 'rule = "scatter_pays"' in text
    return loads_game(text.replace('rule = "scatter_pays"', f'rule = "{rule}"'), "anywhere.toml")


def test_a_rule_registered_at_run_time_is_priced_and_simulated(registered):
    game = _game(THROWAWAY.name)
    assert game.rule is THROWAWAY
    sheet = par(game, full_cycle=False)
    reference = par(_game("scatter_pays"), full_cycle=False)  # the same parts under their own name
    assert sheet.rtp_exact == reference.rtp_exact and sheet.hit_frequency == reference.hit_frequency
    assert THROWAWAY.name in sheet.components and sheet.components[THROWAWAY.name] == reference.components["scatter_pays"]
    result = simulate(game, 200_000, seed=3)
    component = result.components[THROWAWAY.name]
    assert abs(component.value - sheet.components[THROWAWAY.name]) < 4 * component.ci95 / 1.96
    assert estimate_rtp(game, precision=0.01, seed=1).components[THROWAWAY.name].source == "exact"


def test_an_unregistered_rule_is_a_validation_problem_naming_the_known_ones():
    with pytest.raises(ReelsetError) as info:
        _game("hexagons")
    problem = next(p for p in info.value.problems if p.key == "pays.rule")
    assert "hexagons" in problem.message and all(name in problem.message for name in rules.names())


def test_no_code_outside_the_rules_tests_a_rules_name():
    """``grep -rn 'rule ==\\|rule in ('`` finds nothing outside the pay rules' own modules (model/rules.py, pays/)."""
    out = subprocess.run(["grep", "-rnE", r"rule ?== ?['\"]|rule in \(|rule not in \(|rule != ['\"]", "workbench",
                          "--include=*.py"], cwd=ROOT, capture_output=True, text=True).stdout
    outside = [line for line in out.splitlines() if not line.startswith(("workbench/pays/", "workbench/model/rules.py"))]
    assert not outside, "\n".join(outside)


def test_every_rule_names_parts_that_exist():
    for name in rules.names():
        rule = rules.get(name)
        for field in ("analysis", "classic_round", "screen_bound", "reference", "reference_drop", "trigger_hit",
                      "award_cross"):
            if getattr(rule, field) is not None:
                assert callable(rules.part(rule, field)), (name, field)
        assert rule.heading.format(unit="x line bet", direction="", title=rule.title)
        assert re.search(r"\{k\}", rule.count_label)
    with pytest.raises(ValueError, match="registered already"):
        rules.register(rules.LINES)


def test_the_reports_text_and_tables_follow_a_rule_registered_at_run_time(registered):
    from workbench.report.game_tables import paytable_table, paytable_title
    from workbench.report.tables import combinations_table, par_intro

    game = _game(THROWAWAY.name)
    sheet = par(game, full_cycle=False)
    assert par_intro(sheet).startswith(THROWAWAY.hits_counted)
    assert "Pay-anywhere" in paytable_title(game) and len(paytable_table(game)) == len(game.paytable)
    assert len(combinations_table(sheet)) == len(sheet.combinations)
    plain = dataclasses.replace(THROWAWAY, hits_counted=rules.Rule.hits_counted)  # a rule that says nothing of hits
    rules.register(plain, replace=True)
    assert par_intro(par(_game(THROWAWAY.name), full_cycle=False)).startswith("Hits are the screens")
