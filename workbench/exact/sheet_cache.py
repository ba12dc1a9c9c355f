"""The exact engine's cache of strip-set analyses: an analysis without the full cycle depends only on its strip set
and the rest of the game (its *structure*), so an edit of one strip set (the editors, the tuner) re-analyses that set
alone, and a second look at the same game reuses every analysis.  Keys hold the engine's work limits as they are
(an analysis made under other limits is not reused)."""

from __future__ import annotations

from ..model import Game, StripSet

_SET_CACHE: dict = {}


SET_CACHE_SIZE = 4096  # strip-set analyses kept: 3 entries per strip set, and one mode's must all fit, or a second
# look at it (the report reads each mode's sheet three times) re-analyses every set, since LRU keeps none of a mode
# larger than the cache.  A game with mystery symbols plays one set per reveal: mystery_stacks has 56 in its base
# game and 385 in its free spins (1,155 entries; all of that game's analyses together hold 6.5 MB, measured with
# tracemalloc)


_LIMIT_MODULES = ("workbench.exact.moments", "workbench.exact.par", "workbench.exact.analysis", "workbench.exact.windows",
                  "workbench.exact.enumerate", "workbench.exact.triggers", "workbench.pays.lines",
                  "workbench.exact.cluster", "workbench.exact.cluster_transfer", "workbench.exact.ways",
                  "workbench.exact.anywhere", "workbench.exact.unpaid")


def _limits() -> tuple:
    """The exact engine's work limits as they are now (an analysis made under other limits is not reused).  Every
    module is imported first: a key must not change when an analysis imports a module the first time (it did, so
    the first look at a game was never reused)."""
    import importlib

    out = []
    for name in _LIMIT_MODULES:
        limits = vars(importlib.import_module(name)).items()
        out += [(name, k, v) for k, v in limits if k.isupper() and k.endswith("_MAX") and isinstance(v, int)]
    return tuple(out)


def structure_key(game: Game) -> str:
    """Everything of ``game`` an analysis without the full cycle depends on, but its strip sets (and the limits)."""
    return repr(_limits()) + repr((game.reels, game.rows, game.bet, tuple(game.symbols.values()), game.paylines,
                 tuple((k, tuple(v.items())) for k, v in game.paytable.items()), tuple(game.scatters.values()),
                 tuple(game.triggers.values()), tuple(game.tables.values()), game.pays, tuple(game.groups.items()),
                 game.heights, game.features))


def _set_cached(structure: str | None, strip_set: StripSet, what, compute):
    """``compute()``, remembered by (structure, strip set contents, what) when ``structure`` is given."""
    if structure is None:
        return compute()
    key = (structure, strip_set, what)
    if key in _SET_CACHE:
        _SET_CACHE[key] = _SET_CACHE.pop(key)  # most recently used last
        return _SET_CACHE[key]
    value = compute()
    if len(_SET_CACHE) >= SET_CACHE_SIZE:
        del _SET_CACHE[next(iter(_SET_CACHE))]
    _SET_CACHE[key] = value
    return value
