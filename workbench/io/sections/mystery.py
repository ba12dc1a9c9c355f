"""Mystery symbols in a reelset: ``[symbols] M = { kind = "mystery", reveal = "TABLE" }`` and the table they
reveal from (the rule: :mod:`workbench.model.mystery`).

A mixin of the reelset builder (:mod:`workbench.io.schema`), which supplies ``problem``."""

from __future__ import annotations

from ...model.params import describe
from ..limits import show_name

REVEAL_HINT = 'the name of a [tables.*] of { symbol = "X", weight = w } entries'


class MysterySections:
    """``reveal`` of a mystery symbol, and its table checked against the symbols and the strips."""

    def reveal_key(self, path: tuple, spec: dict, kind: str, height: int) -> str | None:
        """The ``reveal`` table name of a ``[symbols]`` entry (mystery symbols only, and they need one)."""
        raw = spec.get("reveal")
        if kind != "mystery":
            if raw is not None:
                self.problem(path + ("reveal",), f"only mystery symbols reveal (this one is {kind}): set "
                                                 'kind = "mystery" or remove reveal')
            return None
        if raw is None:
            self.problem(path, f"a mystery symbol needs reveal = {REVEAL_HINT}")
            return None
        if not isinstance(raw, str):
            self.problem(path + ("reveal",), f"reveal must be {REVEAL_HINT}, got {describe(raw)}")
            return None
        if height != 1:
            self.problem(path + ("height",), "a mystery symbol is one row tall (it turns into one symbol per cell)")
        return raw

    def mystery_tables(self, symbols: dict, tables: dict, strip_sets: dict) -> None:
        """Each mystery symbol's table: entries { symbol = a one-row symbol that is not a mystery, weight }, every
        revealed symbol allowed wherever the strips hold the mystery (its ``reels`` and ``modes``), and the played
        sets of each mode: :meth:`PlayedSections.played_strip_sets`)."""
        totals = {}
        for name, sym in symbols.items():
            if sym.kind != "mystery" or sym.reveal is None:
                continue
            path = ("symbols", name, "reveal")
            if sym.reveal not in tables:
                self.problem(path, f"unknown table {show_name(sym.reveal)} (reveal is {REVEAL_HINT})")
                continue
            table = tables[sym.reveal]
            shown = self._reveal_entries(name, sym.reveal, table, symbols)
            if shown is None:
                continue
            totals[name] = sum(w for e, w in zip(table.entries, table.weights) if e["symbol"] in shown)
            if totals[name] == 0:
                self.problem(("tables", sym.reveal, "entries"), f"mystery symbol {name} reveals nothing: every weight is 0")
                continue
            for set_name, strip_set in strip_sets.items():
                self._reveal_fits(name, sym.reveal, table, shown, set_name, strip_set, symbols)

    def _reveal_entries(self, name: str, table_name: str, table, symbols: dict) -> set | None:
        """The symbols table ``table_name`` reveals ``name`` as (None after a problem)."""
        ok, shown = True, set()
        for i, entry in enumerate(table.entries):
            epath = ("tables", table_name, "entries", i)
            extra = [k for k in entry if k != "symbol"]
            target = entry.get("symbol")
            if extra:
                self.problem(epath + (extra[0],), f"unknown key {extra[0]!r} in a reveal table entry (only symbol and "
                                                  "weight)")
                ok = False
            elif not isinstance(target, str):
                self.problem(epath, f"a reveal table entry needs symbol = \"X\" (read by mystery symbol {name})")
                ok = False
            elif target not in symbols:
                self.problem(epath + ("symbol",), f"unknown symbol {show_name(target)} (mystery symbol {name} reveals "
                                                  "one of [symbols])")
                ok = False
            elif symbols[target].kind == "mystery":
                self.problem(epath + ("symbol",), f"{target} is a mystery symbol itself: a reveal shows a symbol that "
                                                  "pays as it is")
                ok = False
            elif symbols[target].height != 1:
                self.problem(epath + ("symbol",), f"{target} is {symbols[target].height} rows tall: a mystery cell "
                                                  "reveals a one-row symbol")
                ok = False
            else:
                shown.add(target)
        return shown if ok else None

    def _reveal_fits(self, name: str, table_name: str, table, shown: set, set_name: str, strip_set, symbols) -> None:
        """Every symbol ``name`` may reveal is allowed on each reel and in the mode where ``strip_set`` holds it."""
        reels = [i + 1 for i, strip in enumerate(strip_set.reels) if name in strip.symbols]
        for i, entry in enumerate(table.entries):
            target = entry["symbol"]
            if target not in shown:
                continue
            sym = symbols[target]
            epath = ("tables", table_name, "entries", i, "symbol")
            bad = [r for r in reels if sym.reels is not None and r not in sym.reels]
            if bad:
                self.problem(epath, f"{target} may not appear on reel {bad[0]} (only on reels "
                                    f"{', '.join(map(str, sym.reels))}), where strip set {set_name} holds {name}")
            elif reels and sym.modes is not None and strip_set.mode not in sym.modes:
                self.problem(epath, f"{target} may not appear on the strips of mode {strip_set.mode!r} (its modes are "
                                    f"{', '.join(sym.modes)}), where strip set {set_name} holds {name}")
            elif reels and sym.max_visible is not None:
                self.problem(epath, f"{target} has max_visible = {sym.max_visible}: a reveal could show more (strip set "
                                    f"{set_name} holds {name}); a mystery cell reveals a symbol without max_visible")
