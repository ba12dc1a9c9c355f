"""What a spin's strip set becomes before it is played: ``[strip_sets.NAME] wild_reels`` read and checked, and the
strip sets each mode plays (mystery reveals x wild reels, :meth:`workbench.model.Game.played_strip_sets`) within the
engines' bounds.

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``problem``, ``integer`` and ``string``."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

from ...model import WildReels
from ...model.mystery import PLAYED_WEIGHT_MAX, mystery_symbols, played_sets, reveal_entries
from ...model.params import describe
from ...model.wild_reels import outcomes, wild_reel_sets
from ..limits import MAX_PLAYED_SETS, show_name

WILD_REELS_KEYS = ("symbol", "chance", "out_of", "count", "reels")
MAX_OUT_OF = 1_000_000  # a wild reel's chance is at least 1 in this


class PlayedSections:
    """``wild_reels`` of a strip set, its count table, and the played sets of every mode."""

    def wild_reels(self, path: tuple, raw: Any, symbols: dict, reels: int, mode: str | None) -> WildReels | None:
        """``[strip_sets.NAME] wild_reels = { symbol = "WILD", chance = [...], out_of = n }`` or ``{ symbol = "WILD",
        count = "TABLE", reels = [...] }`` (the count table is checked with the tables: :meth:`wild_reel_tables`)."""
        if not isinstance(raw, dict):
            self.problem(path, f"expected an inline table {{ symbol = \"WILD\", chance = [...], out_of = n }} or "
                               f"{{ symbol = \"WILD\", count = \"TABLE\" }}, got {describe(raw)}")
            return None
        self.check_keys(path, raw, WILD_REELS_KEYS, ("symbol",))
        symbol = raw.get("symbol")
        if symbol is not None and symbol not in symbols:
            self.problem(path + ("symbol",), f"unknown symbol {show_name(symbol)} (the wild a whole reel turns into)")
            return None
        if symbol is None:
            return None
        sym = symbols[symbol]
        if sym.kind != "wild" or sym.height != 1:
            self.problem(path + ("symbol",), f"{symbol} is {'a ' + sym.kind if sym.kind != 'wild' else str(sym.height) + ' rows tall'}: "
                                             "a whole reel turns into a one-row wild symbol")
            return None
        if ("chance" in raw) == ("count" in raw):
            self.problem(path, "give either chance = [per reel] with out_of (each reel on its own) or count = \"TABLE\" "
                               "(how many reels, by weight)")
            return None
        if "chance" in raw:
            wild = self._chance(path, raw, reels)
        else:
            wild = self._count(path, raw, reels)
        if wild is None:
            return None
        wild = WildReels(symbol=symbol, **wild)
        turned = [r + 1 for r, c in enumerate(wild.chance) if c > 0] if wild.chance is not None else list(
            wild.reels or range(1, reels + 1))
        bad = [r for r in turned if sym.reels is not None and r not in sym.reels]
        if bad:
            self.problem(path + ("symbol",), f"{symbol} may not appear on reel {bad[0]} (only on reels "
                                             f"{', '.join(map(str, sym.reels))}), and reel {bad[0]} can turn wild")
            return None
        if mode is not None and sym.modes is not None and mode not in sym.modes:
            self.problem(path + ("symbol",), f"{symbol} may not appear on the strips of mode {mode!r} (its modes are "
                                             f"{', '.join(sym.modes)})")
            return None
        return wild

    def _chance(self, path: tuple, raw: dict, reels: int) -> dict | None:
        out_of = self.integer(path + ("out_of",), raw.get("out_of"), 1, MAX_OUT_OF) if "out_of" in raw else None
        if "out_of" not in raw:
            self.problem(path, "chance needs out_of = n: reel r turns wild on chance[r] spins in n")
        chance = raw["chance"]
        if not isinstance(chance, list) or len(chance) != reels or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in chance):
            self.problem(path + ("chance",), f"expected a list of {reels} whole numbers (one per reel), got "
                                             f"{describe(chance)}")
            return None
        if out_of is None:
            return None
        bad = [(r, c) for r, c in enumerate(chance) if not 0 <= c <= out_of]
        if bad:
            self.problem(path + ("chance",), f"reel {bad[0][0] + 1}: {bad[0][1]} is not between 0 and out_of ({out_of:,})")
            return None
        if not any(chance):
            self.problem(path + ("chance",), "every chance is 0: no reel ever turns wild (remove wild_reels)")
            return None
        return {"chance": tuple(chance), "out_of": out_of}

    def _count(self, path: tuple, raw: dict, reels: int) -> dict | None:
        if "out_of" in raw:
            self.problem(path + ("out_of",), "out_of goes with chance; a count table gives its own weights")
        count = raw["count"]
        if not isinstance(count, str):
            self.problem(path + ("count",), f"count must name a [tables.*] of {{ reels = k, weight = w }} entries, "
                                            f"got {describe(count)}")
            return None
        chosen = raw.get("reels", list(range(1, reels + 1)))
        if not isinstance(chosen, list) or not chosen or not all(
                isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= reels for r in chosen) or len(set(chosen)) != len(chosen):
            self.problem(path + ("reels",), f"expected a list of distinct reel numbers 1..{reels}, got {describe(chosen)}")
            return None
        return {"count": count, "reels": tuple(sorted(chosen))}

    def wild_reel_tables(self, strip_sets: dict, tables: dict) -> None:
        """A count table: entries { reels = k (0 up to the reels that can turn), weight = w } and nothing else."""
        for name, strip_set in strip_sets.items():
            wild = strip_set.wild_reels
            if wild is None or wild.count is None:
                continue
            path = ("strip_sets", name, "wild_reels", "count")
            if wild.count not in tables:
                self.problem(path, f"unknown table {show_name(wild.count)} (count names a [tables.*] of "
                                   "{ reels = k, weight = w } entries)")
                continue
            for i, entry in enumerate(tables[wild.count].entries):
                epath = ("tables", wild.count, "entries", i)
                extra = [k for k in entry if k != "reels"]
                if extra:
                    self.problem(epath + (extra[0],), f"unknown key {extra[0]!r} in a wild-reels count entry (only reels "
                                                      "and weight)")
                elif "reels" not in entry:
                    self.problem(epath, f"a wild-reels count entry needs reels = k (read by strip set {name})")
                else:
                    self.integer(epath + ("reels",), entry["reels"], 0, len(wild.reels))

    def played_strip_sets(self, symbols: dict, strip_sets: dict, tables: dict, reels: int, rows: tuple) -> None:
        """Each mode's played sets (mystery reveals x wild reels) at most MAX_PLAYED_SETS, their weights within the
        simulator's 64-bit sums; run on a file whose symbols, strips and tables are valid."""
        game = SimpleNamespace(symbols=symbols, tables=tables, reels=reels, rows=rows)
        mysteries = mystery_symbols(game)
        modes: dict = {}
        for strip_set in strip_sets.values():
            modes.setdefault(strip_set.mode, []).append(strip_set)
        for mode, sets in modes.items():
            count = 0
            for s in sets:
                held = [m for m in mysteries if any(m in strip.symbols for strip in s.reels)]
                reveals = math.prod(len(reveal_entries(game, m)) for m in held)
                count += reveals * (len(outcomes(game, s.wild_reels)) if s.wild_reels is not None else 1)
            if count > MAX_PLAYED_SETS:
                self.problem(("strip_sets",), f"the strip sets of mode {mode!r} play as {count:,} sets (one per mystery "
                                              f"reveal and set of wild reels): at most {MAX_PLAYED_SETS:,}")
                continue
            total = sum(s.weight for s in wild_reel_sets(game, played_sets(game, sets)))
            if total > PLAYED_WEIGHT_MAX:
                self.problem(("strip_sets",), f"the strip sets of mode {mode!r} weigh {total:,} in all as they are "
                                              f"played (mystery reveals x wild reels): at most {PLAYED_WEIGHT_MAX:,}; "
                                              "make the tables' weights or out_of smaller")
