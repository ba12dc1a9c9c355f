"""Structure-aware mutants of the shipped and gallery reelsets: a seeded generator for the property tests.

A mutant is the text of a reelset with a few changes a designer (or a slip of the keyboard) could make, applied
to the parsed document (tomlkit, so comments and layout stay): a stop replaced or swapped, a table weight or a
feature number moved, a pay scaled or deleted, a trigger count moved, a scatter group's counting switched, a cap
added, a bet mode's price changed.  The same (file, seed) always gives the same text.  Whether a mutant is a
valid game is for the loader to say: the tests keep the ones that validate (``accepted``) and run the commands on
them.

``mutant_text(path, seed, n_ops)`` makes one; ``OPERATIONS`` names every kind of change, so a test can ask for
one kind only (``ops=("cap",)``).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import tomlkit

ROOT = Path(__file__).resolve().parent.parent
GALLERY = sorted((ROOT / "reelsets" / "examples").glob("*.toml"))
SHIPPED = sorted((ROOT / "reelsets").glob("*.toml"))
ALL_FILES = SHIPPED + GALLERY

CAPS = (1, 2, 5, 20, 100, 1000, 10000)  # max_win values a mutant may declare, x total bet


def _heights(doc) -> dict:
    """Symbol name -> rows it is tall (1 unless declared)."""
    out = {}
    for name, spec in doc.get("symbols", {}).items():
        out[name] = int(spec.get("height", 1)) if hasattr(spec, "get") else 1
    return out


def _strip_keys(doc) -> list:
    """(strip set, reel key) of every strip in the file."""
    keys = []
    for set_name, spec in doc.get("strip_sets", {}).items():
        for key in spec:
            if re.fullmatch(r"reel\d+", key):
                keys.append((set_name, key))
    return keys


def _tokens(text: str) -> list:
    return str(text).split()


def _set_strip(doc, set_name: str, key: str, tokens: list) -> None:
    old = str(doc["strip_sets"][set_name][key])
    per_line = None
    lines = [l for l in old.strip("\n").split("\n") if l.strip()]
    if len(lines) > 1:
        per_line = max(1, len(lines[0].split()))
    if per_line:
        text = "\n" + "\n".join(" ".join(tokens[i:i + per_line]) for i in range(0, len(tokens), per_line)) + "\n"
        doc["strip_sets"][set_name][key] = tomlkit.string(text, multiline=True)
    else:
        doc["strip_sets"][set_name][key] = " ".join(tokens)


def _one_row_stops(tokens: list, heights: dict) -> list:
    return [i for i, t in enumerate(tokens) if heights.get(t.split(":")[0], 1) == 1]


def op_stop(doc, rng: random.Random) -> str:
    """Replace one one-row stop by another one-row symbol (its stop weight kept)."""
    heights = _heights(doc)
    keys = _strip_keys(doc)
    if not keys:
        return ""
    set_name, key = rng.choice(keys)
    tokens = _tokens(doc["strip_sets"][set_name][key])
    spots = _one_row_stops(tokens, heights)
    singles = [s for s, h in heights.items() if h == 1]
    if not spots or not singles:
        return ""
    i = rng.choice(spots)
    sym, _, weight = tokens[i].partition(":")
    new = rng.choice(singles)
    tokens[i] = new + (":" + weight if weight else "")
    _set_strip(doc, set_name, key, tokens)
    return f"strip_sets.{set_name}.{key}[{i}]: {sym} -> {new}"


def op_swap(doc, rng: random.Random) -> str:
    """Swap two one-row stops of a strip."""
    heights = _heights(doc)
    keys = _strip_keys(doc)
    if not keys:
        return ""
    set_name, key = rng.choice(keys)
    tokens = _tokens(doc["strip_sets"][set_name][key])
    spots = _one_row_stops(tokens, heights)
    if len(spots) < 2:
        return ""
    i, j = rng.sample(spots, 2)
    tokens[i], tokens[j] = tokens[j], tokens[i]
    _set_strip(doc, set_name, key, tokens)
    return f"strip_sets.{set_name}.{key}: swap {i}, {j}"


def _table_entry(doc, rng: random.Random):
    """(table name, entry index, entry) of a random entry of a random weighted table, or None."""
    tables = [(n, t) for n, t in doc.get("tables", {}).items() if "entries" in t and len(t["entries"])]
    if not tables:
        return None
    name, table = rng.choice(tables)
    i = rng.randrange(len(table["entries"]))
    return name, i, table["entries"][i]


def op_table_weight(doc, rng: random.Random) -> str:
    """Move one entry weight of a weighted table (0 included)."""
    found = _table_entry(doc, rng)
    if found is None or "weight" not in found[2]:
        return ""
    name, i, entry = found
    old = int(entry["weight"])
    entry["weight"] = rng.choice([0, 1, max(1, old // 2), old + 1, 2 * old + 1, 10 * old + 3])
    return f"tables.{name}.entries[{i}].weight: {old} -> {entry['weight']}"


def op_table_value(doc, rng: random.Random) -> str:
    """Scale a whole-number field (value, spins, multiplier...) of one table entry."""
    found = _table_entry(doc, rng)
    if found is None:
        return ""
    name, i, entry = found
    fields = [k for k, v in entry.items() if k != "weight" and isinstance(v, int) and not isinstance(v, bool)]
    if not fields:
        return ""
    field = rng.choice(fields)
    old = int(entry[field])
    entry[field] = rng.choice([max(0, old - 1), old + 1, 2 * old, old * 10, 1])
    return f"tables.{name}.entries[{i}].{field}: {old} -> {entry[field]}"


def _numbers(container, path=()):
    """(path, value) of every number (or list/dict of numbers) inside ``container``."""
    for key, value in container.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)):
            yield path + (key,), value
        elif hasattr(value, "items"):
            yield from _numbers(value, path + (key,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    yield path + (key, i), v


def _assign(container, path, value) -> None:
    for key in path[:-1]:
        container = container[key]
    container[path[-1]] = value


def _moved(value, rng: random.Random):
    if isinstance(value, int):
        return rng.choice([max(0, value - 1), value + 1, 2 * value, max(1, value // 2), value * 10])
    return rng.choice([value * 0.5, value * 1.5, value * 2, value + 1])


def op_feature_number(doc, rng: random.Random) -> str:
    """Move a number of [features] (a count, a multiplier, a ladder step, spins by count)."""
    features = doc.get("features")
    if features is None:
        return ""
    numbers = list(_numbers(features))
    if not numbers:
        return ""
    path, old = rng.choice(numbers)
    new = _moved(old, rng)
    _assign(features, path, new)
    return f"features.{'.'.join(map(str, path))}: {old} -> {new}"


def op_pay(doc, rng: random.Random) -> str:
    """Scale or delete one pay of the paytable or of a scatter group."""
    places = []
    for sym, pays in doc.get("paytable", {}).items():
        places += [(("paytable", sym), k) for k in pays]
    for name, group in doc.get("scatters", {}).items():
        if "pays" in group:
            places += [(("scatters", name, "pays"), k) for k in group["pays"]]
    if not places:
        return ""
    where, count = rng.choice(places)
    table = doc
    for key in where:
        table = table[key]
    old = table[count]
    if rng.random() < 0.3:
        del table[count]
        return f"{'.'.join(where)}.{count}: deleted ({old})"
    table[count] = rng.choice([old * 2, old / 2 if isinstance(old, float) else max(1, old // 2) if old > 1 else old + 1, 0])
    return f"{'.'.join(where)}.{count}: {old} -> {table[count]}"


def op_scatter_pays_removed(doc, rng: random.Random) -> str:
    """A scatter group loses its pays (it may still trigger): the issue's two-answers game."""
    groups = [n for n, g in doc.get("scatters", {}).items() if "pays" in g]
    if not groups:
        return ""
    name = rng.choice(groups)
    del doc["scatters"][name]["pays"]
    return f"scatters.{name}.pays: deleted"


def op_trigger_count(doc, rng: random.Random) -> str:
    """Move a trigger's min_count by one."""
    triggers = [(n, t) for n, t in doc.get("triggers", {}).items() if "min_count" in t]
    if not triggers:
        return ""
    name, trigger = rng.choice(triggers)
    old = int(trigger["min_count"])
    trigger["min_count"] = max(1, old + rng.choice([-1, 1]))
    return f"triggers.{name}.min_count: {old} -> {trigger['min_count']}"


def op_counting(doc, rng: random.Random) -> str:
    """Switch a scatter group between anywhere and adjacent_from_first_reel counting."""
    groups = list(doc.get("scatters", {}).items())
    if not groups:
        return ""
    name, group = rng.choice(groups)
    old = str(group.get("counting", "anywhere"))
    group["counting"] = "anywhere" if old == "adjacent_from_first_reel" else "adjacent_from_first_reel"
    return f"scatters.{name}.counting: {old} -> {group['counting']}"


def op_cap(doc, rng: random.Random) -> str:
    """Add or change a max-win cap: the game's ([bet] max_win) or a bet mode's."""
    modes = list(doc.get("bet_modes", {}).items())
    value = rng.choice(CAPS)
    if modes and rng.random() < 0.4:
        name, mode = rng.choice(modes)
        mode["max_win"] = value
        return f"bet_modes.{name}.max_win = {value}"
    doc["bet"]["max_win"] = value
    return f"bet.max_win = {value}"


def op_mode_cost(doc, rng: random.Random) -> str:
    """Change a bet mode's price."""
    modes = list(doc.get("bet_modes", {}).items())
    if not modes:
        return ""
    name, mode = rng.choice(modes)
    old = mode["cost"]
    mode["cost"] = rng.choice([old * 2, max(1, old // 2) if isinstance(old, int) else old / 2, old + 1])
    return f"bet_modes.{name}.cost: {old} -> {mode['cost']}"


def op_set_weight(doc, rng: random.Random) -> str:
    """Change a strip set's weight (games that choose their strips by weight)."""
    sets = [(n, s) for n, s in doc.get("strip_sets", {}).items() if "weight" in s]
    if not sets:
        return ""
    name, spec = rng.choice(sets)
    old = int(spec["weight"])
    spec["weight"] = rng.choice([1, old + 1, 2 * old, max(1, old // 2)])
    return f"strip_sets.{name}.weight: {old} -> {spec['weight']}"


OPERATIONS = {
    "stop": op_stop,
    "swap": op_swap,
    "table_weight": op_table_weight,
    "table_value": op_table_value,
    "feature_number": op_feature_number,
    "pay": op_pay,
    "scatter_pays_removed": op_scatter_pays_removed,
    "trigger_count": op_trigger_count,
    "counting": op_counting,
    "cap": op_cap,
    "mode_cost": op_mode_cost,
    "set_weight": op_set_weight,
}


def mutant_text(path: Path, seed: int, n_ops: int = 2, ops: tuple | None = None) -> tuple[str, list[str]]:
    """(text, what changed) of the mutant ``seed`` of the reelset at ``path`` with ``n_ops`` changes."""
    rng = random.Random(f"{Path(path).name}:{seed}")
    doc = tomlkit.parse(Path(path).read_text(encoding="utf-8"))
    names = list(ops or OPERATIONS)
    done = []
    for _ in range(n_ops * 4):  # an operation that finds nothing to change is skipped
        if len(done) >= n_ops:
            break
        what = OPERATIONS[rng.choice(names)](doc, rng)
        if what:
            done.append(what)
    return tomlkit.dumps(doc), done
