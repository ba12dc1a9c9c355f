"""The plain round: one spin paying lines and scatters, no features.

Everything such a game pays is computed exactly by :mod:`workbench.exact`; its
simulation exists to cross-check the simulator against the exact engine.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._jit import njit
from ..model import Game
from ..pays.lines import line_arrays
from ..pays.scale import pay_scale
from ..pays.scatter import scatter_arrays
from ..simulate.chunks import finish_chunk, record_round
from ..simulate.kernel import base_components, compile_mode, scatter_components
from ..simulate.model import RoundModel
from ..simulate.steps import base_spin

ClassicParams = namedtuple("ClassicParams", ["base", "lines", "scat", "comp_scatter", "wins", "counts", "cost_units"])


@njit(cache=True, inline="always")
def play_round(p, rng, amounts, adjust, counters, stratum):
    base_spin(p.base, p.lines, p.scat, rng, p.wins, p.counts, amounts, 0, p.comp_scatter)



@njit(cache=True, _nrt=False)
def run_chunk(params, rng, n_rounds, stratum, acc, counters):
    for _ in range(n_rounds):
        play_round(params, rng, acc.amounts, acc.adjust, acc.events, stratum)
        record_round(acc)
    finish_chunk(acc.events, counters)


def round_model(game: Game, stake: float | None = None) -> RoundModel:
    lines = line_arrays(game)
    components = base_components(game)
    params = ClassicParams(
        base=compile_mode(game, "base", lines),
        lines=lines,
        scat=scatter_arrays(game),
        comp_scatter=scatter_components(game, components),
        wins=np.zeros(game.reels, dtype=np.int64),
        counts=np.zeros(len(game.scatters), dtype=np.int64),
        cost_units=pay_scale(game).cost_units,
    )
    return RoundModel(game=game, components=tuple(components), counters=(), params=params, run_chunk=run_chunk, stake=stake)
