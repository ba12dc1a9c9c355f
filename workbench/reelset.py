"""Reelset files <-> :class:`~workbench.model.Game`: load, validate, edit, save.

A reelset file is TOML (see docs/reelset-format.md).  Loading validates the
whole file and reports *every* problem with its file, line and key path in one
:class:`~workbench.errors.ReelsetError`.  Saving rewrites only the values that
were edited, so comments and layout survive and diffs stay small; the new text
is validated before anything is written, and written atomically.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import tomlkit

from . import games
from .errors import GameNotFoundError, Problem, ReelsetError
from .fileformat import (
    SourceText,
    atomic_write_text,
    parse_text,
    read_document,
)
from .games.params import check_param, describe
from .model import (
    COUNTING_MODES,
    PAY_UNITS,
    SYMBOL_KINDS,
    VISIBILITY_MODES,
    BetModel,
    Game,
    ScatterGroup,
    Strip,
    StripSet,
    Symbol,
    Trigger,
    WeightedTable,
    freeze,
)

FORMAT_VERSION = 1
REELSET_SUFFIX = ".toml"
NAME_RE = re.compile(r"^[A-Za-z0-9_]+$")

TOP_KEYS = {
    "format_version": "format version of this file (1)",
    "name": "game name",
    "description": "free text",
    "game_module": "module implementing the features",
    "grid": "reels and rows",
    "bet": "bet model",
    "symbols": "symbol definitions",
    "paylines": "paylines",
    "paytable": "line pays",
    "scatters": "scatter counts and pays",
    "triggers": "feature triggers",
    "strip_sets": "reel strips",
    "tables": "weighted tables",
    "features": "game-module parameters",
}
REQUIRED_TOP = ("format_version", "name", "game_module", "grid", "bet", "symbols", "paylines", "paytable", "strip_sets")


# ---------------------------------------------------------------------------
# finding files
# ---------------------------------------------------------------------------
def reelsets_dir() -> Path:
    """Folder of the shipped reelsets (``$WORKBENCH_REELSETS`` overrides)."""
    env = os.environ.get("WORKBENCH_REELSETS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "reelsets"


def shipped_games() -> list[str]:
    """Names of the reelsets shipped in ``reelsets/``."""
    folder = reelsets_dir()
    return sorted(p.stem for p in folder.glob(f"*{REELSET_SUFFIX}"))


def resolve_game_path(game: str | os.PathLike) -> Path:
    """A path to an existing reelset file, or the name of a shipped one."""
    path = Path(game)
    if path.exists():
        return path
    candidate = reelsets_dir() / f"{game}{REELSET_SUFFIX}"
    if candidate.exists():
        return candidate
    known = ", ".join(shipped_games()) or "none"
    raise GameNotFoundError(f"{game}: no such file, and not a shipped reelset (shipped: {known})")


def load_game(game: str | os.PathLike) -> Game:
    """Load and validate a reelset file given by path or shipped name."""
    path = resolve_game_path(game)
    doc, source = read_document(path)
    return build_game(doc.unwrap(), source)


def loads_game(text: str, name: str = "<text>") -> Game:
    """Load a game from reelset text."""
    doc, source = parse_text(text, name)
    return build_game(doc.unwrap(), source)


def validate_file(path: str | os.PathLike) -> list[Problem]:
    """All problems of a reelset file (empty list if it is valid)."""
    try:
        load_game(path)
    except ReelsetError as exc:
        return exc.problems
    except GameNotFoundError:
        return [Problem(str(path), "", "file not found (and not the name of a shipped reelset)")]
    return []


# ---------------------------------------------------------------------------
# strips in file notation
# ---------------------------------------------------------------------------
def parse_strip_text(text: str) -> list[tuple[str, str | None, int]]:
    """Tokens of a strip: (symbol, weight text or None, char offset of the token)."""
    out = []
    for match in re.finditer(r"\S+", text):
        token = match.group(0)
        if ":" in token:
            sym, weight = token.split(":", 1)
        else:
            sym, weight = token, None
        out.append((sym, weight, match.start()))
    return out


def format_strip_text(strip: Strip, previous: str | None) -> str:
    """File text for ``strip``, wrapped like ``previous`` (the text it replaces)."""
    tokens = strip.to_text().split(" ")
    if previous is None or "\n" not in previous.strip("\n"):
        return " ".join(tokens)
    # keep the old number of stops per line
    first_line = next(line for line in previous.strip("\n").split("\n") if line.strip())
    per_line = max(1, len(first_line.split()))
    lines = [" ".join(tokens[i : i + per_line]) for i in range(0, len(tokens), per_line)]
    return "\n" + "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# validation + building
# ---------------------------------------------------------------------------
class _Builder:
    def __init__(self, data: dict, source: SourceText):
        self.data = data
        self.source = source
        self.problems: list[Problem] = []

    # -- reporting -------------------------------------------------------
    def problem(self, path: tuple, message: str, line: int | None = None) -> None:
        self.problems.append(self.source.problem(path, message, line))

    def check_keys(self, path: tuple, table: dict, known: dict | set | tuple, required: tuple = ()) -> None:
        for key in table:
            if key not in known:
                hint = difflib.get_close_matches(str(key), [str(k) for k in known], n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                self.problem(path + (key,), f"unknown key {key!r}{suggestion}")
        for key in required:
            if key not in table:
                self.problem(path, f"missing required key {key!r}" if path else f"missing required section or key {key!r}")

    def table(self, path: tuple, value: Any, what: str = "table") -> dict | None:
        if not isinstance(value, dict):
            self.problem(path, f"expected a {what}, got {describe(value)}")
            return None
        return value

    def integer(self, path: tuple, value: Any, minimum: int | None = None) -> int | None:
        if not isinstance(value, int) or isinstance(value, bool):
            self.problem(path, f"expected an integer, got {describe(value)}")
            return None
        if minimum is not None and value < minimum:
            self.problem(path, f"must be at least {minimum}, got {value}")
            return None
        return value

    def number(self, path: tuple, value: Any, positive: bool = False, nonnegative: bool = False) -> Fraction | None:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.problem(path, f"expected a number, got {describe(value)}")
            return None
        if value != value or value in (float("inf"), float("-inf")):
            self.problem(path, f"expected a finite number, got {value}")
            return None
        number = Fraction(value) if isinstance(value, int) else Fraction(repr(value))
        if positive and number <= 0:
            self.problem(path, f"must be greater than 0, got {value}")
            return None
        if nonnegative and number < 0:
            self.problem(path, f"must not be negative, got {value}")
            return None
        return number

    def string(self, path: tuple, value: Any, choices: tuple | None = None) -> str | None:
        if not isinstance(value, str):
            self.problem(path, f"expected a string, got {describe(value)}")
            return None
        if choices is not None and value not in choices:
            self.problem(path, f"{value!r} is not one of: {', '.join(choices)}")
            return None
        return value

    def name_list(self, path: tuple, value: Any, known: dict, what: str = "symbol") -> tuple | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(path, f"expected a list of {what} names, got {describe(value)}")
            return None
        ok = True
        for i, name in enumerate(value):
            if name not in known:
                self.problem(path + (i,), f"unknown {what} {name!r}")
                ok = False
        return tuple(value) if ok else None

    def count_pays(self, path: tuple, value: Any, max_count: int | None) -> dict | None:
        table = self.table(path, value, "table {count = pay}")
        if table is None:
            return None
        pays: dict[int, Fraction] = {}
        for key, raw in table.items():
            if not str(key).isdigit() or int(key) < 1:
                self.problem(path + (key,), f"{key!r} is not a symbol count (a whole number >= 1)")
                continue
            count = int(key)
            if max_count is not None and count > max_count:
                self.problem(path + (key,), f"count {count} is more than the {max_count} possible")
                continue
            pay = self.number(path + (key,), raw, nonnegative=True)
            if pay is not None:
                pays[count] = pay
        ordered = dict(sorted(pays.items()))
        previous = None
        for count, pay in ordered.items():
            if previous is not None and pay < previous[1]:
                self.problem(path + (str(count),), f"pay {pay} for {count} is less than {previous[1]} for {previous[0]}: pays must not decrease with count")
            previous = (count, pay)
        return ordered

    # -- sections --------------------------------------------------------
    def build(self) -> Game:
        data = self.data
        self.check_keys((), data, TOP_KEYS, REQUIRED_TOP)
        version = data.get("format_version")
        if "format_version" in data:
            if self.integer(("format_version",), version) is not None and version != FORMAT_VERSION:
                self.problem(("format_version",), f"unknown format version {version} (this workbench reads version {FORMAT_VERSION})")
                raise ReelsetError(self.problems)
        name = self.string(("name",), data["name"]) if "name" in data else None
        description = self.string(("description",), data.get("description", "")) or ""
        module_name = None
        if "game_module" in data:
            module_name = self.string(("game_module",), data["game_module"])
            if module_name is not None and module_name not in games.known_game_modules():
                self.problem(("game_module",), f"unknown game module {module_name!r} (known: {', '.join(games.known_game_modules())})")
                module_name = None

        reels, rows = self.grid(data.get("grid"))
        symbols = self.symbols(data.get("symbols"), reels)
        paylines = self.paylines(data.get("paylines"), reels, rows)
        bet = self.bet(data.get("bet"), paylines)
        paytable = self.paytable(data.get("paytable"), symbols, reels)
        scatters = self.scatters(data.get("scatters", {}), symbols, reels, rows)
        triggers = self.triggers(data.get("triggers", {}), scatters)
        strip_sets = self.strip_sets(data.get("strip_sets"), symbols, reels, rows)
        tables = self.tables(data.get("tables", {}))
        features = data.get("features", {})
        if self.table(("features",), features) is None:
            features = {}
        if module_name is not None:
            self.features(module_name, features, symbols, strip_sets, tables, triggers, scatters)

        if self.problems:
            raise ReelsetError(self.problems)
        return Game(
            name=name,
            format_version=version,
            game_module=module_name,
            reels=reels,
            rows=rows,
            bet=bet,
            symbols=freeze(symbols),
            paylines=paylines,
            paytable=freeze(paytable),
            scatters=freeze(scatters),
            triggers=freeze(triggers),
            strip_sets=freeze(strip_sets),
            tables=freeze(tables),
            features=freeze(features),
            description=description,
            path=self.source.path,
            text=self.source.text,
        )

    def grid(self, value: Any) -> tuple[int, tuple]:
        if value is None or self.table(("grid",), value) is None:
            return 0, ()
        self.check_keys(("grid",), value, ("reels", "rows"), ("reels", "rows"))
        reels = self.integer(("grid", "reels"), value["reels"], 1) if "reels" in value else None
        rows_value = value.get("rows")
        rows: tuple = ()
        if reels is None:
            return 0, ()
        if rows_value is None:
            return reels, ()
        if isinstance(rows_value, list):
            if len(rows_value) != reels:
                self.problem(("grid", "rows"), f"lists {len(rows_value)} reels, grid has {reels}")
                return reels, ()
            parsed = [self.integer(("grid", "rows", i), r, 1) for i, r in enumerate(rows_value)]
            if any(r is None for r in parsed):
                return reels, ()
            rows = tuple(parsed)
        else:
            r = self.integer(("grid", "rows"), rows_value, 1)
            if r is None:
                return reels, ()
            rows = (r,) * reels
        return reels, rows

    def symbols(self, value: Any, reels: int) -> dict:
        if value is None or self.table(("symbols",), value) is None:
            return {}
        if not value:
            self.problem(("symbols",), "no symbols defined")
        known = ("kind", "height", "substitutes", "reels", "max_visible")
        out: dict[str, Symbol] = {}
        specs = {}
        for index, (name, spec) in enumerate(value.items()):
            path = ("symbols", name)
            if not NAME_RE.match(name):
                self.problem(path, f"symbol name {name!r} may only use letters, digits and _")
                continue
            if self.table(path, spec, "table of symbol properties") is None:
                continue
            self.check_keys(path, spec, known)
            kind = self.string(path + ("kind",), spec.get("kind", "regular"), SYMBOL_KINDS) or "regular"
            height = self.integer(path + ("height",), spec.get("height", 1), 1) or 1
            allowed = None
            if "reels" in spec:
                raw = spec["reels"]
                if not isinstance(raw, list) or not all(isinstance(r, int) and not isinstance(r, bool) for r in raw):
                    self.problem(path + ("reels",), f"expected a list of reel numbers, got {describe(raw)}")
                else:
                    bad = [r for r in raw if not 1 <= r <= max(reels, 1)]
                    if bad:
                        self.problem(path + ("reels",), f"reel {bad[0]} does not exist (reels are 1..{reels})")
                    else:
                        allowed = tuple(sorted(set(raw)))
            max_visible = None
            if "max_visible" in spec:
                max_visible = self.integer(path + ("max_visible",), spec["max_visible"], 1)
            if "substitutes" in spec and kind != "wild":
                self.problem(path + ("substitutes",), f"only wild symbols substitute (this one is {kind})")
            specs[name] = spec
            out[name] = Symbol(name=name, index=index, kind=kind, height=height, reels=allowed, max_visible=max_visible)
        # substitution sets need all names first
        for name, symbol in list(out.items()):
            if symbol.kind != "wild":
                continue
            path = ("symbols", name, "substitutes")
            raw = specs[name].get("substitutes", "all")
            non_wild = [s for s, sym in out.items() if sym.kind != "wild"]
            subs: tuple | None = None
            if raw == "all":
                subs = tuple(s for s in non_wild if out[s].kind == "regular")
            elif isinstance(raw, dict):
                self.check_keys(path, raw, ("all_but",), ("all_but",))
                excluded = self.name_list(path + ("all_but",), raw.get("all_but", []), out)
                if excluded is not None:
                    subs = tuple(s for s in non_wild if s not in excluded)
            elif isinstance(raw, list):
                subs = self.name_list(path, raw, out)
                if subs is not None:
                    for i, s in enumerate(subs):
                        if out[s].kind == "wild":
                            self.problem(path + (i,), f"{s!r} is a wild: wilds do not substitute for wilds")
            else:
                self.problem(path, f"expected \"all\", a list of symbols or {{ all_but = [...] }}, got {describe(raw)}")
            if subs is not None:
                out[name] = Symbol(**{**symbol.__dict__, "substitutes": frozenset(subs)})
        return out

    def paylines(self, value: Any, reels: int, rows: tuple) -> tuple:
        if value is None or self.table(("paylines",), value) is None:
            return ()
        self.check_keys(("paylines",), value, ("lines", "direction"), ("lines",))
        if "direction" in value:
            self.string(("paylines", "direction"), value["direction"], ("left_to_right",))
        lines = value.get("lines")
        if lines is None:
            return ()
        if not isinstance(lines, list) or not lines:
            self.problem(("paylines", "lines"), f"expected a non-empty list of paylines, got {describe(lines)}")
            return ()
        out = []
        for i, line in enumerate(lines):
            path = ("paylines", "lines", i)
            if not isinstance(line, list) or not all(isinstance(r, int) and not isinstance(r, bool) for r in line):
                self.problem(path, f"payline {i + 1}: expected a list of row numbers, got {describe(line)}")
                continue
            if reels and len(line) != reels:
                self.problem(path, f"payline {i + 1} has {len(line)} rows, the grid has {reels} reels")
                continue
            bad = [(reel, r) for reel, r in enumerate(line) if rows and not 0 <= r < rows[reel]]
            if bad:
                reel, r = bad[0]
                self.problem(path, f"payline {i + 1}: row {r} on reel {reel + 1} is out of range (rows are 0..{rows[reel] - 1}, 0 = top)")
                continue
            out.append(tuple(line))
        return tuple(out)

    def bet(self, value: Any, paylines: tuple) -> BetModel | None:
        if value is None or self.table(("bet",), value) is None:
            return None
        known = ("lines", "cost", "line_bet", "line_pay_unit", "stakes", "currency")
        self.check_keys(("bet",), value, known, ("lines", "cost", "line_bet"))
        lines = self.integer(("bet", "lines"), value["lines"], 1) if "lines" in value else None
        if lines is not None and paylines and lines != len(paylines):
            self.problem(("bet", "lines"), f"{lines} lines played but {len(paylines)} paylines defined")
        cost = self.number(("bet", "cost"), value["cost"], positive=True) if "cost" in value else None
        line_bet = self.number(("bet", "line_bet"), value["line_bet"], positive=True) if "line_bet" in value else None
        unit = self.string(("bet", "line_pay_unit"), value.get("line_pay_unit", "line_bet"), PAY_UNITS)
        stakes: tuple = ()
        if "stakes" in value:
            raw = value["stakes"]
            if not isinstance(raw, list) or not raw:
                self.problem(("bet", "stakes"), f"expected a list of total bets in currency, got {describe(raw)}")
            else:
                parsed = [self.number(("bet", "stakes", i), s, positive=True) for i, s in enumerate(raw)]
                if all(p is not None for p in parsed):
                    stakes = tuple(parsed)
        currency = self.string(("bet", "currency"), value.get("currency", "")) or ""
        if None in (lines, cost, line_bet, unit):
            return None
        return BetModel(lines=lines, cost=cost, line_bet=line_bet, line_pay_unit=unit, stakes=stakes, currency=currency)

    def paytable(self, value: Any, symbols: dict, reels: int) -> dict:
        if value is None or self.table(("paytable",), value) is None:
            return {}
        out = {}
        for name, pays in value.items():
            path = ("paytable", name)
            if name not in symbols:
                self.problem(path, f"paytable for unknown symbol {name!r}")
                continue
            if symbols[name].kind not in ("regular", "wild"):
                self.problem(path, f"{name} is a {symbols[name].kind} symbol: its pays belong in [scatters]")
                continue
            parsed = self.count_pays(path, pays, reels or None)
            if parsed is not None:
                out[name] = parsed
        return out

    def scatters(self, value: Any, symbols: dict, reels: int, rows: tuple) -> dict:
        if self.table(("scatters",), value) is None:
            return {}
        out = {}
        known = ("symbols", "counting", "visibility", "pays", "unit")
        for name, spec in value.items():
            path = ("scatters", name)
            if self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, known, ("symbols",))
            members = self.name_list(path + ("symbols",), spec.get("symbols", []), symbols) if "symbols" in spec else None
            counting = self.string(path + ("counting",), spec.get("counting", "anywhere"), COUNTING_MODES)
            visibility = self.string(path + ("visibility",), spec.get("visibility", "partial"), VISIBILITY_MODES)
            unit = self.string(path + ("unit",), spec.get("unit", "total_bet"), PAY_UNITS)
            pays = self.count_pays(path + ("pays",), spec.get("pays", {}), None)
            if None in (members, counting, visibility, unit, pays):
                continue
            if not members:
                self.problem(path + ("symbols",), "lists no symbols")
                continue
            out[name] = ScatterGroup(name=name, symbols=members, counting=counting, visibility=visibility, pays=freeze(pays), unit=unit)
        return out

    def triggers(self, value: Any, scatters: dict) -> dict:
        if self.table(("triggers",), value) is None:
            return {}
        out = {}
        for name, spec in value.items():
            path = ("triggers", name)
            if self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, ("scatter", "min_count"), ("scatter", "min_count"))
            scatter = spec.get("scatter")
            if scatter is not None and self.string(path + ("scatter",), scatter) is not None and scatter not in scatters:
                self.problem(path + ("scatter",), f"unknown scatter {scatter!r}")
                scatter = None
            min_count = self.integer(path + ("min_count",), spec["min_count"], 1) if "min_count" in spec else None
            if scatter is not None and min_count is not None:
                out[name] = Trigger(name=name, scatter=scatter, min_count=min_count)
        return out

    def strip_sets(self, value: Any, symbols: dict, reels: int, rows: tuple) -> dict:
        if value is None or self.table(("strip_sets",), value) is None:
            return {}
        if not value:
            self.problem(("strip_sets",), "no strip sets defined")
        out = {}
        reel_keys = [f"reel{i + 1}" for i in range(reels)]
        for name, spec in value.items():
            path = ("strip_sets", name)
            if self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, ["mode", "weight", *reel_keys], ("mode", *reel_keys))
            mode = self.string(path + ("mode",), spec["mode"]) if "mode" in spec else None
            weight = self.integer(path + ("weight",), spec.get("weight", 1), 0)
            strips = []
            for i, key in enumerate(reel_keys):
                if key not in spec:
                    continue
                strip = self.strip(path + (key,), spec[key], i, symbols, rows)
                strips.append(strip)
            if mode is None or weight is None or len(strips) != reels or any(s is None for s in strips):
                continue
            out[name] = StripSet(name=name, mode=mode, weight=weight, reels=tuple(strips))
        modes: dict[str, int] = {}
        for s in out.values():
            modes[s.mode] = modes.get(s.mode, 0) + s.weight
        for mode, total in modes.items():
            if total == 0:
                self.problem(("strip_sets",), f"all strip sets of mode {mode!r} have weight 0")
        if out and "base" not in modes and len(out) == len(value):
            self.problem(("strip_sets",), "no strip set has mode \"base\" (the base game)")
        return out

    def strip(self, path: tuple, value: Any, reel: int, symbols: dict, rows: tuple) -> Strip | None:
        if not isinstance(value, str):
            self.problem(path, f"expected a string of symbol names, got {describe(value)}")
            return None
        return check_strip(value, reel, symbols, rows, lambda msg, at=None: self.problem(path, msg, None if at is None else self.source.line_in_string(path, value, at)))

    def tables(self, value: Any) -> dict:
        if self.table(("tables",), value) is None:
            return {}
        out = {}
        for name, spec in value.items():
            path = ("tables", name)
            if self.table(path, spec) is None:
                continue
            self.check_keys(path, spec, ("entries", "description"), ("entries",))
            entries = spec.get("entries")
            if entries is None:
                continue
            if not isinstance(entries, list) or not entries:
                self.problem(path + ("entries",), f"expected a non-empty list of {{ ..., weight = w }} entries, got {describe(entries)}")
                continue
            weights = []
            rows_ = []
            for i, entry in enumerate(entries):
                epath = path + ("entries", i)
                if not isinstance(entry, dict):
                    self.problem(epath, f"expected an inline table {{ ..., weight = w }}, got {describe(entry)}")
                    continue
                if "weight" not in entry:
                    self.problem(epath, "entry has no weight")
                    continue
                w = entry["weight"]
                if not isinstance(w, int) or isinstance(w, bool):
                    self.problem(epath + ("weight",), f"weight must be a whole number, got {describe(w)}")
                    continue
                if w < 0:
                    self.problem(epath + ("weight",), f"negative weight {w}")
                    continue
                weights.append(w)
                rows_.append({k: v for k, v in entry.items() if k != "weight"})
            if len(weights) != len(entries):
                continue
            if sum(weights) == 0:
                self.problem(path + ("entries",), "all weights are zero")
                continue
            out[name] = WeightedTable(name=name, entries=freeze(rows_), weights=tuple(weights))
        return out

    def features(self, module_name, features, symbols, strip_sets, tables, triggers, scatters) -> None:
        module = games.game_module(module_name)
        spec = getattr(module, "FEATURES", {})
        refs = {
            "table": tables,
            "strip_set": strip_sets,
            "mode": {s.mode for s in strip_sets.values()},
            "symbol": symbols,
            "trigger": triggers,
            "scatter": scatters,
        }
        self.check_keys(("features",), features, spec, tuple(k for k, p in spec.items() if p.required))
        for key, param in spec.items():
            if key in features:
                check_param(param, features[key], lambda msg, key=key: self.problem(("features", key), msg), refs)
        extra = getattr(module, "check_features", None)
        if extra is not None and not self.problems:
            # check_features reports key paths from the file root, e.g. ("tables", name, "entries", i)
            extra(features, lambda key, msg: self.problem(tuple(key), msg), refs)


def check_strip(text: str, reel: int, symbols: dict, rows: tuple, report) -> Strip | None:
    """Parse and validate one strip; ``report(message, char_offset=None)`` for problems.

    ``reel`` is 0-based.  Returns the :class:`Strip` or None if it is invalid.
    """
    tokens = parse_strip_text(text)
    if not tokens:
        report(f"reel {reel + 1} is empty")
        return None
    ok = True
    names, weights = [], []
    weighted = False
    for stop, (sym, wtext, at) in enumerate(tokens):
        if sym not in symbols:
            hint = difflib.get_close_matches(sym, list(symbols), n=1)
            report(f"stop {stop + 1}: unknown symbol {sym!r}" + (f" (did you mean {hint[0]!r}?)" if hint else ""), at)
            ok = False
            continue
        allowed = symbols[sym].reels
        if allowed is not None and reel + 1 not in allowed:
            report(f"stop {stop + 1}: {sym} may not appear on reel {reel + 1} (only on reels {', '.join(map(str, allowed))})", at)
            ok = False
        weight = 1
        if wtext is not None:
            weighted = True
            try:
                weight = int(wtext)
            except ValueError:
                report(f"stop {stop + 1}: weight {wtext!r} of {sym} is not a whole number", at)
                ok = False
                continue
            if weight < 0:
                report(f"stop {stop + 1}: negative weight {weight} for {sym}", at)
                ok = False
        names.append(sym)
        weights.append(weight)
    if not ok:
        return None
    if weighted and sum(weights) == 0:
        report(f"reel {reel + 1}: all stop weights are zero")
        return None
    n = len(names)
    if rows:
        tallest = max(symbols[s].height for s in set(names))
        needed = rows[reel] + tallest - 1
        if n < needed:
            report(
                f"reel {reel + 1} has only {n} stop(s): a window of {rows[reel]} row(s) needs at least {needed} "
                "so that no stop (or tall symbol) is shown twice at once"
            )
            return None
    # tall symbols: runs on the circular strip must be whole symbols
    for sym in set(names):
        height = symbols[sym].height
        if height == 1:
            continue
        for start, length in symbol_runs(names, sym):
            if length % height:
                at = tokens[start][2]
                report(
                    f"tall symbol {sym} (height {height}) broken at stop {start + 1}: "
                    f"a run of {length} stop(s) is not a whole number of symbols",
                    at,
                )
                ok = False
        if height > n:
            report(f"tall symbol {sym} (height {height}) is taller than the strip ({n} stops)")
            ok = False
    if not ok:
        return None
    strip = Strip(symbols=tuple(names), weights=tuple(weights) if weighted else None)
    if rows:
        for sym in set(names):
            limit = symbols[sym].max_visible
            if limit is None:
                continue
            worst = max_visible_instances(strip, sym, symbols[sym].height, rows[reel])
            if worst > limit:
                report(f"reel {reel + 1}: up to {worst} {sym} can be visible at once, at most {limit} allowed")
                ok = False
    return strip if ok else None


def symbol_runs(names: list | tuple, sym: str) -> list[tuple[int, int]]:
    """Maximal runs of ``sym`` on the circular strip as (start, length)."""
    n = len(names)
    if all(s == sym for s in names):
        return [(0, n)]
    runs = []
    # start scanning just after a non-sym stop so no run is split by the wrap
    first = next(i for i, s in enumerate(names) if s != sym)
    i = 0
    while i < n:
        pos = (first + 1 + i) % n
        if names[pos] == sym:
            length = 0
            while names[(pos + length) % n] == sym:
                length += 1
            runs.append((pos, length))
            i += length
        else:
            i += 1
    return runs


def tall_instance_starts(names: tuple, sym: str, height: int) -> list[int]:
    """Stops where an instance of tall symbol ``sym`` begins (runs split from their start)."""
    starts = []
    for start, length in symbol_runs(names, sym):
        starts += [(start + k * height) % len(names) for k in range(length // height)]
    return starts


def max_visible_instances(strip: Strip, sym: str, height: int, rows: int) -> int:
    """Most instances of ``sym`` (partly) visible in any window of ``rows`` rows."""
    n = len(strip)
    starts = tall_instance_starts(strip.symbols, sym, height) if height > 1 else [i for i, s in enumerate(strip.symbols) if s == sym]
    worst = 0
    for top in range(n):
        visible = 0
        for s in starts:
            # instance covers stops s..s+height-1; window covers top..top+rows-1 (circular)
            offset = (s - top) % n
            if offset < rows or offset + height > n:
                visible += 1
        worst = max(worst, visible)
    return worst


def build_game(data: dict, source: SourceText) -> Game:
    """Validate plain data from a reelset file and build the :class:`Game`."""
    return _Builder(data, source).build()


# ---------------------------------------------------------------------------
# edits and saving
# ---------------------------------------------------------------------------
def apply_edit(game: Game, edit: tuple) -> Game:
    """A new :class:`Game` with ``edit`` applied (validated)."""
    kind = edit[0]
    name_for_errors = game.path or "<edit>"
    source = SourceText(name_for_errors, "")
    if kind == "strip":
        _, set_name, reel, symbols, weights = edit
        if set_name not in game.strip_sets:
            raise ReelsetError([source.problem(("strip_sets", set_name), f"no strip set {set_name!r}")])
        if not 1 <= reel <= game.reels:
            raise ReelsetError([source.problem(("strip_sets", set_name), f"reel {reel} does not exist (1..{game.reels})")])
        if weights is not None and len(weights) != len(symbols):
            raise ReelsetError([source.problem(("strip_sets", set_name, f"reel{reel}"), f"{len(symbols)} stops but {len(weights)} weights")])
        text = Strip(tuple(symbols), None if weights is None else tuple(int(w) for w in weights)).to_text()
        problems: list[Problem] = []
        path = ("strip_sets", set_name, f"reel{reel}")
        strip = check_strip(text, reel - 1, game.symbols, game.rows, lambda msg, at=None: problems.append(source.problem(path, msg)))
        if strip is None:
            raise ReelsetError(problems)
        if weights is not None and all(w == 1 for w in strip.weights or ()):
            # keep a weighted strip weighted even when every weight is 1
            strip = Strip(strip.symbols, tuple(weights))
        old = game.strip_sets[set_name]
        reels = list(old.reels)
        reels[reel - 1] = strip
        new_set = StripSet(old.name, old.mode, old.weight, tuple(reels))
        strip_sets = dict(game.strip_sets)
        strip_sets[set_name] = new_set
        return game._replace(strip_sets=freeze(strip_sets), edits=game.edits + (edit,))
    if kind == "table_weights":
        _, table, weights = edit
        if table not in game.tables:
            raise ReelsetError([source.problem(("tables", table), f"no table {table!r}")])
        old = game.tables[table]
        if len(weights) != len(old.weights):
            raise ReelsetError([source.problem(("tables", table), f"{len(weights)} weights for {len(old.weights)} entries")])
        if any(w < 0 for w in weights):
            raise ReelsetError([source.problem(("tables", table), "negative weight")])
        if sum(weights) == 0:
            raise ReelsetError([source.problem(("tables", table), "all weights are zero")])
        tables = dict(game.tables)
        tables[table] = WeightedTable(old.name, old.entries, tuple(weights))
        return game._replace(tables=freeze(tables), edits=game.edits + (edit,))
    if kind == "strip_set_weight":
        _, set_name, weight = edit
        if set_name not in game.strip_sets:
            raise ReelsetError([source.problem(("strip_sets", set_name), f"no strip set {set_name!r}")])
        if weight < 0:
            raise ReelsetError([source.problem(("strip_sets", set_name, "weight"), "negative weight")])
        old = game.strip_sets[set_name]
        if sum(s.weight for s in game.strip_sets.values() if s.mode == old.mode) - old.weight + weight == 0:
            raise ReelsetError([source.problem(("strip_sets", set_name, "weight"), f"all strip sets of mode {old.mode!r} would have weight 0")])
        strip_sets = dict(game.strip_sets)
        strip_sets[set_name] = StripSet(old.name, old.mode, weight, old.reels)
        return game._replace(strip_sets=freeze(strip_sets), edits=game.edits + (edit,))
    raise ValueError(f"unknown edit {kind!r}")


def render_text(game: Game) -> str:
    """The file text of ``game``: its original text with its edits applied."""
    if not game.edits:
        return game.text
    doc = tomlkit.parse(game.text)
    for edit in game.edits:
        kind = edit[0]
        if kind == "strip":
            _, set_name, reel, _symbols, _weights = edit
            key = f"reel{reel}"
            table = doc["strip_sets"][set_name]
            previous = str(table[key])
            strip = Strip(tuple(_symbols), _weights)
            new_text = format_strip_text(strip, previous)
            _set_string(table, key, new_text, multiline="\n" in new_text)
        elif kind == "table_weights":
            _, table_name, weights = edit
            entries = doc["tables"][table_name]["entries"]
            for entry, w in zip(entries, weights):
                if entry["weight"] != w:
                    entry["weight"] = w
        elif kind == "strip_set_weight":
            _, set_name, weight = edit
            doc["strip_sets"][set_name]["weight"] = weight
    return tomlkit.dumps(doc)


def _set_string(table, key: str, text: str, multiline: bool) -> None:
    item = table.item(key)
    trivia = item.trivia
    new = tomlkit.string(text, multiline=multiline)
    new.trivia.comment_ws = trivia.comment_ws
    new.trivia.comment = trivia.comment
    new.trivia.trail = trivia.trail
    table[key] = new


@dataclass(frozen=True)
class Saved:
    """Result of :func:`save_game`: the game as now on disk and the diff written."""

    game: Game
    diff: str
    path: Path


def save_game(game: Game, path: str | os.PathLike | None = None, *, force: bool = False) -> Saved:
    """Validate and atomically write ``game`` to ``path`` (default: where it was loaded).

    Returns the saved game (re-read from the new text) and the unified diff
    against what was on disk.  Refuses (ReelsetError)
    if the new text is invalid, or if the file changed on disk since the game
    was loaded (unless ``force``), so no saved work is silently overwritten.
    """
    target = Path(path or game.path)
    text = render_text(game)
    saved = loads_game(text, str(target))  # full validation of exactly what will be written
    old = target.read_text(encoding="utf-8") if target.exists() else ""
    if not force and target.exists() and game.path and Path(game.path) == target and old != game.text:
        raise ReelsetError([Problem(str(target), "", "the file changed on disk since it was loaded; reload it or save with force")])
    diff = "".join(
        difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True), fromfile=f"{target} (saved)", tofile=f"{target} (new)")
    )
    if old != text:
        atomic_write_text(target, text)
    return Saved(game=saved, diff=diff, path=target)
