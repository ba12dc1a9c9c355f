"""The round-template registry: built-ins by name, templates added at run time or by entry
points, and files that can only name registered templates."""

from __future__ import annotations

from collections import namedtuple
from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from workbench import registry
from workbench.errors import RegistryError, ReelsetError
from workbench.io import loads_game, reelsets_dir
from workbench.model.params import Param
from workbench.pays.lines import line_arrays
from workbench.pays.scale import pay_scale
from workbench.pays.scatter import scatter_arrays
from workbench.registry import RoundTemplate
from workbench.simulate import simulate
from workbench.simulate.chunks import finish_chunk, record_round
from workbench.simulate.kernel import base_components, compile_mode, scatter_components
from workbench.simulate.model import RoundModel, named_indices
from workbench.simulate.steps import base_spin

COMPONENTS = ("lines", "scatter:SCAT", "bonus")
C = named_indices("Components", COMPONENTS, __name__)
BonusParams = namedtuple("BonusParams", ["base", "lines", "scat", "comp_scatter", "wins", "counts", "bonus_units", "cost_units"])


@njit(inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    # the plain spin, plus a flat bonus on every round: a throwaway rule that is easy to check
    base_spin(p.base, p.lines, p.scat, rng, p.wins, p.counts, amounts, C.lines, p.comp_scatter)
    amounts[C.bonus] += p.bonus_units
    counters[0] += 1


@njit(_nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def bonus_round_model(game, stake=None):
    scale = pay_scale(game)
    lines = line_arrays(game)
    assert base_components(game) == list(COMPONENTS[:2])
    params = BonusParams(
        base=compile_mode(game, "base", lines),
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=scatter_components(game, list(COMPONENTS)),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        bonus_units=np.int64(scale.units(game.bet.credits(Fraction(str(game.features["bonus"])), "total_bet"))),
        cost_units=scale.cost_units,
    )
    return RoundModel(game=game, components=COMPONENTS, counters=("bonus_rounds",), params=params, run_chunk=run_chunk, stake=stake)


def check_bonus(features, report, refs):
    if features["bonus"] > 10:
        report(("features", "bonus"), "a flat bonus above 10 x total bet is surely a typo")


THROWAWAY = RoundTemplate(
    name="flat_bonus_test",
    build=bonus_round_model,
    params={"bonus": Param("number", "flat bonus on every round (x total bet)", min=0)},
    check=check_bonus,
    summary="The plain spin plus a flat bonus on every round (a test template).",
)


@pytest.fixture
def throwaway():
    registry.register(THROWAWAY)
    yield THROWAWAY
    registry.unregister(THROWAWAY.name)


def _classic_text(module: str, features: str = "") -> str:
    text = (reelsets_dir() / "classic_tens.toml").read_text()
    text = text.replace('game_module = "classic"', f'game_module = "{module}"', 1)
    assert f'game_module = "{module}"' in text
    return text + features


def test_a_template_added_at_run_time_validates_its_parameters_and_is_simulated(throwaway):
    game = loads_game(_classic_text("flat_bonus_test", "\n[features]\nbonus = 0.5\n"), "bonus.toml")
    plain = loads_game(_classic_text("classic"), "plain.toml")
    spins = 20_000
    result = simulate(game, spins, seed=3)
    reference = simulate(plain, spins, seed=3)
    totals = result.component_totals()
    # the bonus adds exactly 0.5 x total bet per round; the spin itself is the plain round's, draw for draw
    assert totals["bonus"] == Fraction(1, 2) * spins
    assert totals["lines"] == reference.component_totals()["lines"]
    assert totals["scatter:SCAT"] == reference.component_totals()["scatter:SCAT"]
    assert result.rtp == pytest.approx(reference.rtp + 0.5, abs=1e-12)
    assert result.model.counters == ("bonus_rounds",)

    # the template's parameters are validated like any other: missing, wrong type, its own check
    with pytest.raises(ReelsetError, match=r"\[features\] missing required key 'bonus'"):
        loads_game(_classic_text("flat_bonus_test"), "bonus.toml")
    with pytest.raises(ReelsetError, match=r"features.bonus"):
        loads_game(_classic_text("flat_bonus_test", '\n[features]\nbonus = "lots"\n'), "bonus.toml")
    with pytest.raises(ReelsetError, match="surely a typo"):
        loads_game(_classic_text("flat_bonus_test", "\n[features]\nbonus = 11\n"), "bonus.toml")


def test_money_a_template_declares_is_covered_by_the_pay_unit(throwaway):
    """A parameter declared as paid money (``Param(..., pays=True)``) is a whole number of pay units, whatever its
    decimals; the same number in an undeclared parameter does not change the unit."""
    plain = pay_scale(loads_game(_classic_text("classic"), "plain.toml"))
    undeclared = pay_scale(loads_game(_classic_text("flat_bonus_test", "\n[features]\nbonus = 0.001\n"), "bonus.toml"))
    assert undeclared.denominator == plain.denominator  # a parameter not declared as money leaves the unit alone
    paid = RoundTemplate(name="paid_bonus_test", build=bonus_round_model, summary="a test template",
                         params={"bonus": Param("number", "flat bonus on every round (x total bet)", min=0, pays=True)})
    registry.register(paid)
    try:
        game = loads_game(_classic_text("paid_bonus_test", "\n[features]\nbonus = 0.001\n"), "paid.toml")
        scale = pay_scale(game)
        assert scale.denominator != plain.denominator
        assert scale.units(game.bet.credits(Fraction(1, 1000), "total_bet")) >= 1  # a whole number of units
        result = simulate(game, 1_000, seed=3)
        assert result.component_totals()["bonus"] == Fraction(1, 1000) * 1_000
    finally:
        registry.unregister(paid.name)


def test_once_unregistered_a_template_is_unknown_to_files():
    registry.register(THROWAWAY)
    registry.unregister(THROWAWAY.name)
    with pytest.raises(ReelsetError, match="unknown game module 'flat_bonus_test'"):
        loads_game(_classic_text("flat_bonus_test", "\n[features]\nbonus = 0.5\n"), "bonus.toml")


def test_a_file_cannot_name_a_module_or_path():
    for name in ("workbench.rounds.plain", "os", "../evil.py", "workbench.games.bier_haus.play:round_model"):
        with pytest.raises(ReelsetError, match="unknown game module"):
            loads_game(_classic_text(name), "evil.toml")


def test_names_are_unique_and_checked(throwaway):
    with pytest.raises(RegistryError, match="already registered"):
        registry.register(THROWAWAY)
    with pytest.raises(RegistryError, match="already registered"):
        registry.register(RoundTemplate(name="classic", build=bonus_round_model))
    with pytest.raises(RegistryError, match="may only use"):
        registry.register(RoundTemplate(name="a.b", build=bonus_round_model))
    with pytest.raises(RegistryError, match="unknown round template 'nope'"):
        registry.template("nope")
    assert registry.find_template("nope") is None
    replaced = RoundTemplate(name=THROWAWAY.name, build=bonus_round_model, summary="again")
    assert registry.register(replaced, replace=True) is replaced and registry.template(THROWAWAY.name).summary == "again"


def test_every_built_in_name_resolves_to_a_light_template_of_that_name():
    for name, path in registry.BUILTIN.items():
        found = registry.template(name)
        assert found.name == name, path
        assert isinstance(found.build, str) and ":" in found.build  # compiled code imported only when simulating
        assert callable(found.builder())


class _FakeEntryPoint:
    def __init__(self, name, obj):
        self.name, self.value, self._obj = name, f"studio_games:{name}", obj

    def load(self):
        return self._obj


def test_templates_from_entry_points_are_found(monkeypatch):
    studio = RoundTemplate(name="studio_game", build=bonus_round_model, params=THROWAWAY.params, summary="a studio's game")
    monkeypatch.setattr(registry, "_entry_points", lambda: {"studio_game": _FakeEntryPoint("studio_game", studio)})
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    try:
        assert "studio_game" in registry.names()
        assert registry.template("studio_game") is studio
        game = loads_game(_classic_text("studio_game", "\n[features]\nbonus = 1\n"), "studio.toml")
        assert simulate(game, 1000, seed=1).component_totals()["bonus"] == 1000
    finally:
        registry.unregister("studio_game")


def test_an_entry_point_that_is_not_a_template_is_reported(monkeypatch):
    monkeypatch.setattr(registry, "_entry_points", lambda: {"broken": _FakeEntryPoint("broken", object())})
    monkeypatch.setattr(registry, "_entry_points_loaded", False)
    with pytest.raises(RegistryError, match="is not a RoundTemplate"):
        registry.find_template("broken")
