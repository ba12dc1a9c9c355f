"""The simulator's compiled game modes are remembered (workbench.simulate.kernel.compile_mode): the tuner and the
editors build a round model per edit, and an edit of one mode's strips must rebuild that mode only.  What is
remembered must be what would be built, must follow every edit and limit, and must never be written into, since
every model built from it shares it."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from workbench.errors import SimulationError
from workbench.io import load_game
from workbench.simulate import kernel, round_model, simulate
from workbench.simulate.kernel import compile_strip_sets


def _arrays(model) -> dict:
    """Every ModeArrays record reachable from the model's parameters, by field path."""
    out = {}

    def walk(value, path):
        if isinstance(value, kernel.ModeArrays):
            out[path] = value
        elif isinstance(value, tuple) and hasattr(value, "_fields"):
            for name in value._fields:
                walk(getattr(value, name), f"{path}.{name}")

    walk(model.params, "params")
    return out


def _digest(mode: kernel.ModeArrays) -> str:
    h = hashlib.sha256()
    for value in mode:
        if isinstance(value, np.ndarray):
            h.update(np.ascontiguousarray(value).tobytes())
        else:
            h.update(repr(value).encode())
    return h.hexdigest()


def test_a_base_strip_edit_rebuilds_the_base_mode_and_reuses_the_free_spins_mode():
    game = load_game("examples/mystery_stacks")
    first = _arrays(round_model(game))
    again = _arrays(round_model(game))
    assert first.keys() == again.keys() and all(again[k] is first[k] for k in first)
    strip = game.strip_sets["base"].reels[0]
    symbols = list(strip.symbols)
    k = next(i for i, s in enumerate(symbols) if s != "SCAT" and s != "MYSTERY")
    symbols[k] = "SCAT"
    edited = _arrays(round_model(game.with_strip("base", 1, symbols, strip.stop_weights)))
    assert edited["params.base"] is not first["params.base"]
    assert _digest(edited["params.base"]) != _digest(first["params.base"])
    assert edited["params.free"] is first["params.free"]  # the free spins' strips did not change


@pytest.mark.parametrize("name", ["classic_tens", "examples/wheel_free_spins", "super_10_stars"])
def test_a_remembered_mode_equals_a_fresh_build_and_no_round_writes_into_it(name):
    game = load_game(name)
    model = round_model(game)
    modes = _arrays(model)
    assert modes
    before = {path: _digest(mode) for path, mode in modes.items()}
    base = game.in_strip_mode("base")
    fresh = compile_strip_sets(base, [s for s in base.played_strip_sets("base") if s.weight > 0], _lines(model),
                               prefix_budget=kernel.PREFIX_BUDGET)
    assert _digest(fresh) == before["params.base"]
    simulate(game, 20_000, 5)
    assert {path: _digest(mode) for path, mode in _arrays(round_model(game)).items()} == before
    assert all(_arrays(round_model(game))[path] is mode for path, mode in modes.items())


def _lines(model):
    return model.params.lines


def test_a_limit_lowered_after_a_mode_was_remembered_still_refuses(monkeypatch):
    game = load_game("classic_tens")
    round_model(game)
    monkeypatch.setattr(kernel, "TABLE_BYTES_MAX", 1000)
    with pytest.raises(SimulationError, match="over the budget"):
        round_model(game)


def test_the_remembered_modes_stay_within_their_byte_budget(monkeypatch):
    monkeypatch.setattr(kernel, "_MODE_CACHE", type(kernel._MODE_CACHE)())
    game = load_game("examples/wheel_free_spins")
    one = kernel._mode_bytes(_arrays(round_model(game))["params.base"])
    monkeypatch.setattr(kernel, "MODE_CACHE_BYTES", one)
    monkeypatch.setattr(kernel, "_MODE_CACHE", type(kernel._MODE_CACHE)())
    round_model(game)  # its base mode, then its free spins' modes: the older ones are let go
    assert kernel._MODE_CACHE
    assert sum(kernel._mode_bytes(m) for m in kernel._MODE_CACHE.values()) <= one
    monkeypatch.setattr(kernel, "MODE_CACHE_BYTES", 0)
    monkeypatch.setattr(kernel, "_MODE_CACHE", type(kernel._MODE_CACHE)())
    round_model(game)
    assert not kernel._MODE_CACHE  # a mode larger than the budget is built, not kept
