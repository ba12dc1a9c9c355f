"""Hostile reelset files: every mutation of every shipped file is refused clearly or works.

Mutations of every file in ``reelsets/`` and ``reelsets/examples/`` (truncated,
keys deleted or renamed, values of the wrong type, huge, NaN or negative
numbers, unknown symbols, binary garbage, other encodings, deep nesting, ...)
must each end, within 2 s, in either

- a valid :class:`~workbench.model.Game` that the engines can use
  (``workbench.par(game, full_cycle=False)`` raises nothing but a
  :class:`~workbench.errors.WorkbenchError`; checked on a sample), or
- a :class:`~workbench.errors.ReelsetError` whose every problem names the
  file and says something (at most ``MAX_PROBLEMS`` + 1 of them),

never another exception.  The generator is seeded (``random.Random``; the
hypothesis tests are derandomized) so a failure reproduces;
``benchmarks/bench_fuzz.py`` runs the same generator on 100,000 cases.

The second half checks each bound and meaning check of the validation with
one assertion per message.
"""

from __future__ import annotations

import codecs
import random
import re
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hyp import examples
from hypothesis import strategies as st

from workbench.errors import ReelsetError, WorkbenchError
from workbench.io import load_game, loads_game, reelsets_dir
from workbench.io import schema
from workbench.io.toml import MAX_FILE_BYTES, MAX_FILE_ITEMS, MAX_FILE_LINES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "reelsets").glob("*.toml")) + sorted((ROOT / "reelsets" / "examples").glob("*.toml"))
SEED = 20150
CASES = 1000  # mutation cases in CI (benchmarks/bench_fuzz.py runs 100,000)
PAR_SAMPLE = 20  # accepted mutants whose PAR sheet is computed
MODEL_SAMPLE = 6  # accepted mutants of games with features whose simulator round model is built
CASE_SECONDS = 2.0  # each case, load and validate, at most (CPU time)

# ---------------------------------------------------------------------------
# the generator (shared with benchmarks/bench_fuzz.py)
# ---------------------------------------------------------------------------
HUGE_NUMBERS = [
    "1e308", "-1e308", "1.7976931348623157e308", str(10**30), str(2**63), str(-(2**63)), str(2**63 - 1),
    str(2**31), str(2**31 - 1), str(2**62), "9223372036854775808", "1000000001", "1e9", "4194305", str(10**400),
]
ODD_NUMBERS = [
    "nan", "+nan", "-nan", "inf", "+inf", "-inf", "-1", "0", "0.0", "-0.0", "5e-324", "1e-7", "0.1234567", "0.333333",
    "1_000", "0x7fffffffffffffff", "0o777", "0b1", "1.5", "-2", "0.000001", "123456.789012",
]
ODD_VALUES = [
    '""', '" "', '"x"', '"KIWI"', '"base"', "true", "false", "[]", "[1, 2]", '["A", 1]', "{}", "{ a = 1 }", "1979-05-27",
    "07:32:00", "1979-05-27T07:32:00Z", "[[1]]", "[[[[[[1]]]]]]", "'lit'", '"""\nA B\n"""', '"\\u0000"', '"é"',
    "{ weight = -1 }", '"all"',
]
STRIP_TOKENS = ["KIWI", "", ":", ":3", "WILD:", "WILD:-1", "WILD:0", "WILD:x", "WILD:1.5", "WILD:99999999999999999999",
                f"WILD:{2**31}", "WILD:2147483647", "WILD:1_0", "WILD:٣", "wild", "WILD WILD WILD WILD", "é", "SCAT:0"]
SNIPPETS = [
    '\n[strip_sets.""]\nmode = "base"\n',
    '\n[tables.""]\nentries = [{ weight = 1 }]\n',
    '\n[tables.t]\nentries = [{ value = nan, weight = 1 }]\n',
    f'\n[tables.t]\nentries = [{{ value = 1, weight = {2**31} }}, {{ value = 2, weight = {2**31} }}]\n',
    '\n[tables.t]\nentries = []\n',
    '\n[scatters.""]\nsymbols = []\n',
    '\n[triggers.t]\nscatter = "NOPE"\nmin_count = 99999999999\n',
    "\n[features]\nx = 1\n",
    "\n[grid]\nreels = 3\n",
    "\nextra = " + "[" * 10_000 + "]" * 10_000 + "\n",
    "\nextra = " + "[" * 99 + "]" * 99 + "\n",
    "\nextra = { a = { b = { c = { d = { e = 1 } } } } }\n",
    "\n" + "".join(f"k{i} = {i}\n" for i in range(MAX_FILE_ITEMS + 10)),
    "\n" * (MAX_FILE_LINES + 10),
    "\n# " + "x" * (MAX_FILE_BYTES + 10) + "\n",
    '\ndescription = "' + "\\u0041" * 50 + '"\n',
    "\n[[strip_sets]]\nmode = 1\n",
]
GARBAGE = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\x80\x81", b"\xc3\x28", b"\xed\xa0\x80", b"\r", b"\x1b[31m", b'"', b"'''",
           b'"""', b"[", b"]]", b"{", b"=", b"#", b"\\", b"\n[", bytes(range(256))]


@dataclass
class Case:
    """One mutated file: where it came from, what was done, its bytes."""

    source: str
    ops: list
    data: bytes

    def describe(self) -> str:
        return f"{self.source} with {', '.join(self.ops)}"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _mutate_text(rng: random.Random, text: str, ops: list) -> str:
    lines = _lines(text)
    op = rng.choice(["delete_line", "duplicate_line", "swap_lines", "rename_key", "value", "number", "number",
                     "strip_token", "strip_weights", "strip_length", "snippet", "crlf", "structure", "structure",
                     "structure", "chars"])
    ops.append(op)
    if op == "delete_line" and lines:
        del lines[rng.randrange(len(lines))]
    elif op == "duplicate_line" and lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    elif op == "swap_lines" and len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "rename_key":
        keyed = [i for i, line in enumerate(lines) if re.match(r"\s*[A-Za-z0-9_]+\s*=", line)]
        if keyed:
            i = rng.choice(keyed)
            m = re.match(r"(\s*)([A-Za-z0-9_]+)", lines[i])
            key = m.group(2)
            new = rng.choice([key + "x", key[:-1] or "x", key.upper(), key.lower(), '""', '"' + key + ' "', "reel99", "mode",
                              "weight", "cost_reason", key + "." + key])
            lines[i] = m.group(1) + new + lines[i][m.end():]
    elif op == "value":
        keyed = [i for i, line in enumerate(lines) if re.match(r'\s*[A-Za-z0-9_."]+\s*=\s*[^\s"\[{]', line)]
        if keyed:
            i = rng.choice(keyed)
            m = re.match(r'(\s*[A-Za-z0-9_."]+\s*=\s*)([^#\n]*)', lines[i])
            lines[i] = m.group(1) + rng.choice(HUGE_NUMBERS + ODD_NUMBERS + ODD_VALUES) + lines[i][m.end():]
    elif op == "number":
        spots = [(i, m) for i, line in enumerate(lines) if not line.lstrip().startswith("#")
                 for m in re.finditer(r"(?<![\w.:-])-?\d+(?:\.\d+)?(?![\w.])", line)]
        if spots:
            i, m = rng.choice(spots)
            lines[i] = lines[i][: m.start()] + rng.choice(HUGE_NUMBERS + ODD_NUMBERS) + lines[i][m.end():]
    elif op in ("strip_token", "strip_weights", "strip_length"):
        text = "".join(lines)
        strips = list(re.finditer(r'(reel\d+ = )"([^"\n]*)"', text))
        if strips:
            m = rng.choice(strips)
            tokens = m.group(2).split()
            if op == "strip_token" and tokens:
                tokens[rng.randrange(len(tokens))] = rng.choice(STRIP_TOKENS)
            elif op == "strip_weights":
                w = rng.choice(["0", "1", "-1", str(2**31 - 1), str(2**20), "3"])
                tokens = [f"{t.split(':')[0]}:{w}" for t in tokens]
            else:
                tokens = rng.choice([[], tokens[:1], tokens[: rng.randint(1, 4)], tokens * rng.choice([2, 50, 400])])
            text = text[: m.start(2)] + " ".join(tokens) + text[m.end(2):]
        return text
    elif op == "snippet":
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(SNIPPETS))
    elif op == "crlf":
        return "".join(lines).replace("\n", "\r\n")
    elif op == "structure":
        return _mutate_structure(rng, "".join(lines), ops)
    elif op == "chars":
        text = "".join(lines)
        if text:
            i = rng.randrange(len(text))
            text = text[:i] + rng.choice(['"', "'", "[", "]", "{", "}", "=", ",", "\n", "#", ".", "\\", "é", "\t", ""]) + text[i + 1:]
        return text
    return "".join(lines)


def _paths(data, prefix=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield prefix + (i,)
            yield from _paths(value, prefix + (i,))


def hostile_value(rng: random.Random):
    """A value of a random, usually wrong, type or size."""
    return rng.choice([
        10**30, 2**63, -(2**63), 2**63 - 1, 2**31, 2**31 - 1, -1, 0, 1, 7, float("nan"), float("inf"), float("-inf"), 1e308,
        5e-324, 1e-7, 0.5, -0.0, "", " ", "x", "KIWI", "base", "WILD", True, False, [], [1, 2], ["A", 1], [[1]], {}, {"a": 1},
        {"weight": -1}, {"3": 1e308}, {"²": 1}, {"0": 1}, {"99999": 1}, "A B C", "WILD:99999999999999999999 A",
    ])


def _mutate_structure(rng: random.Random, text: str, ops: list) -> str:
    """Replace or delete one value of the parsed document (keeps the file valid TOML)."""
    try:
        doc = tomlkit.parse(text)
        paths = list(_paths(doc.unwrap()))
    except Exception:
        return text
    if not paths:
        return text
    path = rng.choice(paths)
    node = doc
    try:
        for part in path[:-1]:
            node = node[part]
        if rng.random() < 0.2:
            del node[path[-1]]
            ops[-1] = f"delete {'.'.join(map(str, path))}"
        else:
            value = hostile_value(rng)
            node[path[-1]] = value
            ops[-1] = f"set {'.'.join(map(str, path))} = {value!r:.40}"
        return tomlkit.dumps(doc)
    except Exception:  # tomlkit refuses some replacements; keep the text
        return text


def _encode(rng: random.Random, text: str, ops: list) -> bytes:
    if rng.random() < 0.9:
        return text.encode("utf-8")
    how = rng.choice(["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "bom", "cp1252"])
    ops.append(f"encoded {how}")
    if how == "bom":
        return codecs.BOM_UTF8 + text.encode("utf-8")
    if how in ("latin-1", "cp1252"):
        return text.replace('name = "', 'name = "Café ', 1).encode(how, errors="replace")
    return text.encode(how)


def make_case(rng: random.Random, sources: list[Path]) -> Case:
    """One random mutant of one of ``sources``."""
    source = rng.choice(sources)
    text = source.read_text(encoding="utf-8")
    ops: list = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        text = _mutate_text(rng, text, ops)
    data = _encode(rng, text, ops)
    roll = rng.random()
    if roll < 0.06:
        cut = rng.randrange(len(data) + 1)
        ops.append(f"truncated at byte {cut}")
        data = data[:cut]
    elif roll < 0.09:
        at = rng.randrange(len(data) + 1)
        junk = rng.choice(GARBAGE) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        ops.append(f"garbage at byte {at}")
        data = data[:at] + junk + data[at:]
    elif roll < 0.11:
        flips = rng.randint(1, 8)
        arr = bytearray(data)
        for _ in range(flips):
            if arr:
                arr[rng.randrange(len(arr))] = rng.randrange(256)
        ops.append(f"{flips} bytes flipped")
        data = bytes(arr)
    return Case(source.name, ops, data)


@dataclass
class Outcome:
    case: Case
    game: object | None
    error: ReelsetError | None
    seconds: float  # CPU time of load and validation
    failure: str | None  # what went wrong (None: a valid game or a proper ReelsetError)


def run_case(case: Case, path: Path) -> Outcome:
    """Write ``case`` to ``path`` and load it; never raises."""
    path.write_bytes(case.data)
    start = time.process_time()
    game = error = failure = None
    try:
        game = load_game(path)
    except ReelsetError as exc:
        error = exc
    except BaseException as exc:  # noqa: BLE001 - any other exception is what this test looks for
        failure = f"{type(exc).__name__}: {exc}"[:500]
    seconds = time.process_time() - start
    if error is not None:
        bad = [p for p in error.problems if p.file != str(path) or not isinstance(p.message, str) or not p.message.strip()]
        if bad:
            failure = f"problem without file or message: {bad[0]!r}"
        elif len(error.problems) > schema.MAX_PROBLEMS + 1:
            failure = f"{len(error.problems)} problems listed, more than {schema.MAX_PROBLEMS} + 1"
    if failure is None and seconds > CASE_SECONDS:
        failure = f"took {seconds:.2f} s (CPU), more than {CASE_SECONDS} s"
    return Outcome(case, game, error, seconds, failure)


def use_game(game, simulate: bool = False) -> str | None:
    """Compute the PAR sheet (as ``workbench par --no-cycle`` prints it) and, with ``simulate``,
    build the simulator's round model (every parameter record, as ``workbench simulate`` does
    before it runs); the failure, or None."""
    from workbench import par, registry
    from workbench.cli import render_par_text

    try:
        with warnings.catch_warnings():
            # numpy's "overflow encountered" is a wrong number computed silently: as bad as a crash
            warnings.filterwarnings("error", message=".*overflow", category=RuntimeWarning)
            sheet = par(game, full_cycle=False)
            sheet.rtp, sheet.statistics
            render_par_text(sheet)
    except WorkbenchError:
        pass
    except BaseException as exc:  # noqa: BLE001
        return f"par: {type(exc).__name__}: {exc}"[:500]
    if simulate:
        try:
            registry.template(game.game_module).round_model(game)
        except WorkbenchError:
            pass
        except BaseException as exc:  # noqa: BLE001
            return f"round model: {type(exc).__name__}: {exc}"[:500]
    return None


def generate(seed: int, n: int, sources: list[Path] | None = None):
    """``n`` cases from ``seed`` (the same cases on every run)."""
    rng = random.Random(seed)
    sources = sources or SOURCES
    for _ in range(n):
        yield make_case(rng, sources)


# ---------------------------------------------------------------------------
# the fuzz tests
# ---------------------------------------------------------------------------
def test_there_are_files_to_mutate():
    assert len(SOURCES) >= 3, SOURCES


def test_mutants_are_refused_clearly_or_usable(tmp_path):
    accepted, rejected, failures, times = [], 0, [], []
    for i, case in enumerate(generate(SEED, CASES)):
        outcome = run_case(case, tmp_path / f"case{i % 10}.toml")
        times.append(outcome.seconds)
        if outcome.failure:
            failures.append(f"case {i}: {case.describe()}: {outcome.failure}")
        elif outcome.game is not None:
            accepted.append((i, case, outcome.game))
        else:
            rejected += 1
    assert not failures, "\n".join(failures[:20])
    # both outcomes happen: the generator is neither too gentle nor too rough
    assert rejected > CASES // 3 and len(accepted) > CASES // 20, (rejected, len(accepted))
    assert max(times) < CASE_SECONDS
    rng = random.Random(SEED)
    for i, case, game in rng.sample(accepted, min(PAR_SAMPLE, len(accepted))):
        failure = use_game(game)
        assert failure is None, f"case {i}: {case.describe()}: {failure}"
    featured = [a for a in accepted if a[2].game_module != "classic"]
    for i, case, game in rng.sample(featured, min(MODEL_SAMPLE, len(featured))):
        failure = use_game(game, simulate=True)
        assert failure is None, f"case {i}: {case.describe()}: {failure}"


@settings(max_examples=examples(250), derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    source=st.sampled_from(SOURCES),
    choice=st.integers(0, 10**6),
    value=st.one_of(
        st.integers(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=20),
        st.booleans(),
        st.lists(st.integers(-5, 5), max_size=4),
        st.dictionaries(st.text(max_size=4), st.integers(), max_size=3),
    ),
)
def test_any_value_anywhere_is_refused_clearly_or_usable(source, choice, value, tmp_path_factory):
    """hypothesis: any value of any type at any key of a shipped file."""
    doc = tomlkit.parse(source.read_text(encoding="utf-8"))
    paths = list(_paths(doc.unwrap()))
    path = paths[choice % len(paths)]
    node = doc
    for part in path[:-1]:
        node = node[part]
    try:
        node[path[-1]] = value
        data = tomlkit.dumps(doc).encode("utf-8")
    except Exception:  # a value tomlkit cannot write there (e.g. a table in an array of numbers)
        return
    case = Case(source.name, [f"set {path} = {value!r:.60}"], data)
    outcome = run_case(case, tmp_path_factory.mktemp("h") / "case.toml")
    assert outcome.failure is None, f"{case.describe()}: {outcome.failure}"


def test_a_50_mb_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.toml"
    text = (SOURCES[0].read_text(encoding="utf-8") + "\n# " + "x" * 100 + "\n") * 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write(("# " + "x" * 1000 + "\n") * 50_000)  # 50 MB
    assert path.stat().st_size > 50_000_000
    start = time.perf_counter()
    with pytest.raises(ReelsetError) as info:
        load_game(path)
    assert time.perf_counter() - start < 0.5
    assert info.value.problems[0].message == (f"file is {path.stat().st_size:,} bytes: a reelset file may have at most "
                                              f"{MAX_FILE_BYTES:,} bytes (1 MiB)")


@pytest.mark.parametrize("shape", ["keys", "array", "lines", "comment", "nested", "reels"])
def test_large_or_deep_files_are_refused_fast(shape, tmp_path):
    base = (reelsets_dir() / "classic_tens.toml").read_text(encoding="utf-8")
    text = {
        "keys": base + "\n[more]\n" + "".join(f"k{i} = {i}\n" for i in range(200_000 // 8)),
        "array": base + "\nx = [" + "1, " * (MAX_FILE_ITEMS + 1) + "]\n",
        "lines": base + "\n" * MAX_FILE_LINES,
        "comment": base + "# " + "x" * MAX_FILE_BYTES,
        "nested": "x = " + "[" * 10_000 + "]" * 10_000 + "\n" + base,
        "reels": base.replace("reels = 5", "reels = 1000000"),
    }[shape]
    expected = {
        "keys": "keys and array elements: a reelset file may have at most",
        "array": "keys and array elements: a reelset file may have at most",
        "lines": f"lines (outside multi-line strings): a reelset file may have at most {MAX_FILE_LINES:,}",
        "comment": f"a reelset file may have at most {MAX_FILE_BYTES:,} bytes",
        "nested": "not valid TOML: TOML value nested more than 100 levels deep",
        "reels": "must be at most 10, got 1000000",
    }[shape]
    path = tmp_path / "big.toml"
    path.write_text(text, encoding="utf-8")
    start = time.process_time()
    with pytest.raises(ReelsetError) as info:
        load_game(path)
    assert time.process_time() - start < 1.0
    assert len(info.value.problems) == 1 and expected in info.value.problems[0].message, info.value.problems


def test_the_largest_files_allowed_still_load_in_bounded_time(tmp_path):
    """At the limits (1 MiB, 10 reels of 10,000 stops; many keys) loading takes a few seconds at most."""
    base = (reelsets_dir() / "classic_tens.toml").read_text(encoding="utf-8")
    strip = " ".join(["CHERRY", "LEMON", "SCAT", "PLUM", "BELL"] * 2000)  # 10,000 stops, a scatter with max_visible
    text = base.replace('SCAT = { kind = "scatter" }', 'SCAT = { kind = "scatter", max_visible = 3 }')
    text = re.sub(r'^(reel\d) = ".*"$', lambda m: f'{m.group(1)} = "{strip}"', text, flags=re.M)
    for k in range(2):  # two more strip sets of the same: about 850 KB in all
        text += f'\n[strip_sets.more{k}]\nmode = "extra"\n' + "".join(f'reel{r} = "{strip}"\n' for r in range(1, 6))
    assert len(text.encode()) < MAX_FILE_BYTES
    path = tmp_path / "long.toml"
    path.write_text(text, encoding="utf-8")
    start = time.process_time()
    game = load_game(path)
    assert time.process_time() - start < 5.0
    assert len(game.strip_sets["more1"].reels[4]) == 10_000


# ---------------------------------------------------------------------------
# each bound and meaning check: one assertion per message
# ---------------------------------------------------------------------------
CLASSIC = (reelsets_dir() / "classic_tens.toml").read_text(encoding="utf-8")


def _sub(pattern: str, replacement: str, text: str = CLASSIC) -> str:
    new, n = re.subn(pattern, replacement, text, count=1, flags=re.M)
    assert n, pattern
    return new


def problems_of(text: str) -> list:
    try:
        loads_game(text, "t.toml")
    except ReelsetError as exc:
        return exc.problems
    return []


def messages(text: str) -> list[str]:
    return [f"[{p.key}] {p.message}" for p in problems_of(text)]


WILD_LINE = r"^WILD = \{ 3 = 50, 4 = 250, 5 = 1000 \}$"
BOUNDS = {
    "pay 1e308": (_sub(WILD_LINE, "WILD = { 3 = 50, 4 = 250, 5 = 1e308 }"),
                  "[paytable.WILD.5] pay 1e+308 is too large: at most 1,000,000,000 x line bet"),
    "pay 10**30": (_sub(WILD_LINE, f"WILD = {{ 3 = 50, 4 = 250, 5 = {10**30} }}"),
                   "[paytable.WILD.5] pay 1.000e+30 is too large: at most 1,000,000,000 x line bet"),
    "pay 2**63": (_sub(WILD_LINE, "WILD = { 3 = 50, 4 = 250, 5 = 9223372036854775808 }"),
                  "[paytable.WILD.5] pay 9223372036854775808 is too large: at most 1,000,000,000 x line bet"),
    "pay decimals": (_sub(WILD_LINE, "WILD = { 3 = 50.0000001, 4 = 250, 5 = 1000 }"),
                     "[paytable.WILD.3] pay 50.0000001 has more than 6 decimal places (the smallest step is 0.000001)"),
    "pay nan": (_sub(WILD_LINE, "WILD = { 3 = nan, 4 = 250, 5 = 1000 }"), "[paytable.WILD.3] expected a finite number, got nan"),
    "scatter pay": (_sub(r"^pays = \{ 3 = 2, 4 = 10, 5 = 50 \}$", "pays = { 3 = 2, 4 = 10, 5 = 1e300 }"),
                    "[scatters.SCAT.pays.5] pay 1e+300 is too large: at most 1,000,000,000 x total bet"),
    "scatter count": (_sub(r"^pays = \{ 3 = 2, 4 = 10, 5 = 50 \}$", "pays = { 3 = 2, 4 = 10, 121 = 50 }"),
                      "[scatters.SCAT.pays.121] count 121 is more than the 120 symbols any screen can show (10 reels x 12 rows)"),
    "count key digits": (_sub(WILD_LINE, 'WILD = { 3 = 50, 4 = 250, "²" = 1000 }'),
                         "[paytable.WILD.²] '²' is not a symbol count (a whole number >= 1)"),
    "cost 1e308": (_sub(r"^cost = 10 ", "cost = 1e308 "), "[bet.cost] cost 1e+308 is too large: at most 1,000,000,000 credits"),
    "line bet 5e-324": (_sub(r"^line_bet = 1 ", "line_bet = 5e-324 "),
                        "[bet.line_bet] line bet 5e-324 has more than 6 decimal places (the smallest step is 0.000001)"),
    "stake": (_sub(r"^line_bet = 1 ", "line_bet = 1\nstakes = [0.1, 1e10]\n"),
              "[bet.stakes[1]] stake 10000000000.0 is too large: at most 1,000,000,000"),
    "pay units": (_sub(r"^line_bet = 1 ", "line_bet = 10000000\ncost_reason = \"test\"\n"),
                  "[paytable.WILD.5] pay WILD 5 = 1000 x line bet is 10,000,000,000 pay units (1 unit = 1 credit): "
                  "at most 2,147,483,647 fit the engines' pay tables"),
    "pay denominator": (_sub(r"^line_bet = 1 ", "line_bet = 0.000001\ncost_reason = \"test\"\n")
                        .replace("CHERRY = { 2 = 2,", "CHERRY = { 2 = 0.000003,"),
                        "[paytable.CHERRY.2] pay CHERRY 2 = 0.000003 x line bet is 0.000000000003 credits: with the cost and the "
                        "other pays this needs a pay unit of 1/1,000,000,000,000 credit, and at most 1/1,000,000 is allowed"),
    "stop weight": (_sub(r'^(reel1 = ")GRAPES', r"\1GRAPES:1000000000000000000000000000000"),
                    "[strip_sets.base.reel1] stop 1: weight 1.000e+30 of GRAPES is too large: at most 2,147,483,647"),
    "stop weight total": (re.sub(r'^(reel2 = ")(\S+) (\S+)', r"\1\2:2000000000 \3:2000000000", CLASSIC, count=1, flags=re.M),
                          "[strip_sets.base.reel2] reel 2: stop weights add up to 4,000,000,027: at most 2,147,483,647 per strip"),
    "strip-set weight": (_sub(r'^mode = "base"$', 'mode = "base"\nweight = 9223372036854775808'),
                         "[strip_sets.base.weight] must be at most 2,147,483,647, got 9223372036854775808"),
    "mode weights total": (_sub(r'^mode = "base"$', 'mode = "base"\nweight = 2147483647')
                           + "\n[strip_sets.copy]\nmode = \"base\"\nweight = 2\n"
                           + "\n".join(re.findall(r"^reel\d = .*$", CLASSIC, flags=re.M)) + "\n",
                           "[strip_sets] the weights of the strip sets of mode 'base' add up to 2,147,483,649: at most 2,147,483,647"),
    "table weight": (CLASSIC + f"\n[tables.t]\nentries = [{{ v = 1, weight = {2**31} }}]\n",
                     "[tables.t.entries[0].weight] weight 2147483648 is too large: at most 2,147,483,647"),
    "table total": (CLASSIC + f"\n[tables.t]\nentries = [{{ v = 1, weight = {2**30} }}, {{ v = 2, weight = {2**30} }}]\n",
                    "[tables.t.entries] weights add up to 2,147,483,648: at most 2,147,483,647 per table"),
    "table entries": (CLASSIC + "\n[tables.t]\nentries = [" + "{ weight = 1 }, " * (schema.MAX_TABLE_ENTRIES + 1) + "]\n",
                      "[tables.t.entries] lists 5,001 entries: at most 5,000 per table"),
    "table nan": (CLASSIC + "\n[tables.t]\nentries = [{ v = nan, weight = 1 }]\n",
                  "[tables.t.entries[0].v] v = nan is not a finite number"),
    "reels": (_sub(r"^reels = 5$", "reels = 11"), "[grid.reels] must be at most 10, got 11"),
    "rows": (_sub(r"^rows = 3$", "rows = 13"), "[grid.rows] must be at most 12, got 13"),
    "paylines": (_sub(r"^lines = \[$", "lines = [\n" + "  [1, 1, 1, 1, 1],\n" * 1015),
                 "[paylines.lines] lists 1,025 paylines: at most 1,024"),
    "bet lines": (_sub(r"^lines = 10$", "lines = 1025"), "[bet.lines] must be at most 1,024, got 1025"),
    "symbols": (_sub(r"^CHERRY = \{\}$", "CHERRY = {}\n" + "".join(f"S{i} = {{}}\n" for i in range(250))),
                "[symbols] defines 260 symbols: at most 256"),
    "strip length": (_sub(r'^reel1 = ".*"$', 'reel1 = "' + "CHERRY " * 10_001 + '"'),
                     "[strip_sets.base.reel1] reel 1 has 10,001 stops: at most 10,000 per strip"),
    "strip sets": (CLASSIC + "".join(f'\n[strip_sets.s{i}]\nmode = "x"\n' for i in range(100)),
                   "[strip_sets] defines 101 strip sets: at most 100"),
    "tall height": (_sub(r'^SCAT = \{ kind = "scatter" \}$', 'SCAT = { kind = "scatter", height = 10001 }'),
                    "[symbols.SCAT.height] must be at most 10,000, got 10001"),
    "trigger": (CLASSIC + '\n[triggers.t]\nscatter = "SCAT"\nmin_count = 16\n',
                "[triggers.t.min_count] min_count 16 can never be reached: the screen shows at most 15 symbols"),
    "empty mode": (_sub(r'^mode = "base"$', 'mode = ""'), "[strip_sets.base.mode] mode must not be empty"),
    "empty game name": (_sub(r'^name = "Classic Tens"$', 'name = " "'), "[name] game name must not be empty"),
    "empty strip-set name": (CLASSIC.replace("[strip_sets.base]", '[strip_sets.""]'), '[strip_sets.] strip set name must not be empty'),
    "empty table name": (CLASSIC + '\n[tables.""]\nentries = [{ weight = 1 }]\n', "[tables.] table name must not be empty"),
    "empty scatter name": (CLASSIC.replace("[scatters.SCAT]", '[scatters.""]'), "[scatters.] scatter group name must not be empty"),
    "empty trigger name": (CLASSIC + '\n[triggers.""]\nscatter = "SCAT"\nmin_count = 3\n', "[triggers.] trigger name must not be empty"),
    "empty cost_reason": (_sub(r"^line_bet = 1 ", 'line_bet = 1\ncost_reason = " "\n'), "[bet.cost_reason] cost_reason must not be empty"),
    "cost 70": (_sub(r"^cost = 10 ", "cost = 70 "),
                "[bet.cost] cost 70 is 7 x lines x line_bet (10 x 1 = 10): without bet.cost_reason the cost must be 10 to 20"),
    "cost 5": (_sub(r"^cost = 10 ", "cost = 5 "),
               "[bet.cost] cost 5 is 0.5 x lines x line_bet (10 x 1 = 10): without bet.cost_reason the cost must be 10 to 20"),
}


@pytest.mark.parametrize("case", sorted(BOUNDS))
def test_each_bound_and_meaning_check_has_its_message(case):
    text, expected = BOUNDS[case]
    found = messages(text)
    assert any(m.startswith(expected) for m in found), found


def test_a_cost_reason_allows_a_cost_apart_from_the_lines():
    text = _sub(r"^cost = 10 ", 'cost = 70\ncost_reason = "a 60-credit feature buy included in every spin"\n')
    game = loads_game(text, "t.toml")
    assert game.bet.cost == 70 and game.bet.lines * game.bet.line_bet == 10


def test_shipped_costs_keep_the_rule_without_a_reason():
    """Bier Haus costs 75 for 50 lines x 1: a feature cost of half the line stake needs no reason."""
    for path in SOURCES:
        game = load_game(path)
        if not game.pays.is_lines:  # ways and pay-anywhere games have no lines: their cost is the stake
            assert game.bet.lines == 0 and game.bet.cost > 0, path
            continue
        stake = game.bet.lines * game.bet.line_bet
        assert stake <= game.bet.cost <= schema.FEATURE_COST_RATIO * stake, path


def test_the_limits_are_at_their_edges_still_valid():
    """Just inside each bound is valid: the limits refuse only what is over them."""
    ok = [
        _sub(WILD_LINE, "WILD = { 3 = 50, 4 = 250, 5 = 1000000000 }"),
        _sub(WILD_LINE, "WILD = { 3 = 50.000001, 4 = 250, 5 = 1000 }"),
        _sub(r'^mode = "base"$', 'mode = "base"\nweight = 2147483647'),
        _sub(r"^cost = 10 ", "cost = 20 "),
        _sub(r'^(reel1 = ")GRAPES', r"\1GRAPES:2147483614"),  # the strip's total is then exactly 2**31 - 1
        CLASSIC + f"\n[tables.t]\nentries = [{{ v = 1, weight = {2**31 - 2} }}, {{ v = 2, weight = 1 }}]\n",
        CLASSIC + '\n[triggers.t]\nscatter = "SCAT"\nmin_count = 15\n',
    ]
    for text in ok:
        assert problems_of(text) == [], problems_of(text)


def test_problems_are_capped_at_30_then_one_line_says_how_many_more():
    text = _sub(r"^\[bet\]$", "[bet]\n" + "".join(f"bogus{i} = 1\n" for i in range(45)))
    problems = problems_of(text)
    assert len(problems) == schema.MAX_PROBLEMS + 1
    assert problems[-1].message == "... and 15 more problems" and problems[-1].file == "t.toml"
    assert all(p.message.startswith("unknown key 'bogus") for p in problems[:-1])


def test_a_million_reels_gives_one_problem_not_a_million():
    problems = problems_of(CLASSIC.replace("reels = 5", "reels = 1000000"))
    assert [p.message for p in problems] == ["must be at most 10, got 1000000"]


@pytest.mark.parametrize("encoding, message", [
    ("utf-8-sig", "starts with a UTF-8 byte-order mark: save the file as UTF-8 without BOM"),
    ("utf-16", "UTF-16 text (it starts with a UTF-16 byte-order mark): save the file as UTF-8 without byte-order mark"),
    ("utf-16-le", "looks like UTF-16 text (a NUL byte next to every character): save the file as UTF-8"),
    ("utf-32", "UTF-32 text (it starts with a UTF-32 byte-order mark): save the file as UTF-8 without byte-order mark"),
    ("latin-1", "not UTF-8 text (byte {at}, 0xE9, is not valid UTF-8): save the file as UTF-8"),
])
def test_other_encodings_are_named(encoding, message, tmp_path):
    path = tmp_path / "enc.toml"
    data = CLASSIC.replace("Classic Tens", "Classic Tens café", 1).encode(encoding)
    path.write_bytes(data)
    message = message.format(at=data.find(b"\xe9"))
    problems = problems_of_file(path)
    assert len(problems) == 1 and problems[0].message.startswith(message) and problems[0].file == str(path), problems


def test_a_bom_in_text_given_as_a_string_is_refused_too():
    assert [p.message for p in problems_of("\ufeff" + CLASSIC)] == [
        "starts with a UTF-8 byte-order mark: save the file as UTF-8 without BOM"]


def test_toml_errors_at_the_end_say_end_of_file():
    problems = problems_of(CLASSIC + "\nx = [1, 2")
    assert len(problems) == 1 and "unexpected end of file" in problems[0].message, problems


def problems_of_file(path: Path) -> list:
    try:
        load_game(path)
    except ReelsetError as exc:
        return exc.problems
    return []


@pytest.mark.parametrize("key, value, message", [
    ("trigger_count", 2**40, "value 1099511627776 is above the maximum 2,147,483,647"),
    ("bonus_guarantee", -1, "value -1 is below the minimum 0"),
    ("max_win", float("nan"), "value nan is not a finite number"),
    ("max_win", 1e300, "value 1e+300 is above the maximum 1,000,000,000,000"),
    ("reference_stake", float("inf"), "value inf is not a finite number"),
])
def test_feature_parameters_are_finite_and_bounded(key, value, message):
    text = (reelsets_dir() / "bier_haus_oktober_fest.toml").read_text(encoding="utf-8")
    doc = tomlkit.parse(text)
    doc["features"][key] = value
    found = messages(tomlkit.dumps(doc))
    assert f"[features.{key}] {message}" in found, found


def test_feature_count_keys_are_plain_counts():
    text = (reelsets_dir() / "bier_haus_oktober_fest.toml").read_text(encoding="utf-8")
    doc = tomlkit.parse(text)
    doc["features"]["free_spins_award"]["²"] = 5
    doc["features"]["free_spins_award"]["99999999999"] = 5
    found = messages(tomlkit.dumps(doc))
    assert "[features.free_spins_award] key '²' is not a count (a whole number 1..10,000)" in found, found
    assert "[features.free_spins_award] key '99999999999' is not a count (a whole number 1..10,000)" in found, found


def test_limits_are_documented():
    doc = (ROOT / "docs" / "reelset-format.md").read_text(encoding="utf-8")
    section = doc.split("## Limits", 1)[1].split("\n## ", 1)[0]
    for value in schema.LIMITS.values():
        assert f"{value:,}" in section, value


def test_the_pay_unit_bound_is_what_the_engines_use():
    """The validation's pay unit is :func:`workbench.pays.scale.pay_scale`'s: a valid file's largest pay fits 31 bits."""
    from workbench.pays.scale import pay_scale

    text = _sub(r"^line_bet = 1 ", "line_bet = 0.25\ncost = 2.5\n").replace("cost = 10 ", "")
    text = text.replace("CHERRY = { 2 = 2,", "CHERRY = { 2 = 0.125,")
    game = loads_game(text, "t.toml")
    scale = pay_scale(game)
    assert scale.denominator == 32 and scale.cost_units == 80
    top = max(p for pays in game.paytable.values() for p in pays.values())
    assert scale.units(game.bet.credits(top, "line_bet")) < 2**31
    assert game.bet.cost == Fraction(5, 2)


def _variant(name: str, edit) -> list[str]:
    doc = tomlkit.parse((reelsets_dir() / f"{name}.toml").read_text(encoding="utf-8"))
    edit(doc)
    return messages(tomlkit.dumps(doc))


def _set_entry(table: str, index: int, field: str, value):
    def edit(doc):
        doc["tables"][table]["entries"][index][field] = value
    return edit


@pytest.mark.parametrize("game, table, index, field, value, message", [
    ("bier_haus_oktober_fest", "heidi_wheel", 0, "value", 2**63,
     "[tables.heidi_wheel.entries[0]] a cash award of 9223372036854775808 is too large: at most 1,000,000,000 x bet multiplier"),
    ("bier_haus_oktober_fest", "heidi_wheel", 9, "value", 10**6,
     "[tables.heidi_wheel.entries[9]] a free_spins award of 1000000 spins is too large: at most 10,000"),
    ("bier_haus_oktober_fest", "beer_reels", 0, "reels", 10**30,
     "[tables.beer_reels.entries[0]] reels 1000000000000000000000000000000 is too large: at most 1,000"),
    ("bier_haus_oktober_fest", "mug_size", 0, "size", True, "[tables.mug_size.entries[0]] size must be a whole number >= 1"),
    ("super_10_stars", "wheel", 0, "value", 2**63, "[tables.wheel.entries[0].value] value 9223372036854775808 is too large: "
                                                   "at most 1,000,000,000 x line bet"),
    ("super_10_stars", "bonus_game", 0, "multiplier", 10**7, "[tables.bonus_game.entries[0].multiplier] multiplier 10000000 is "
                                                            "too large: at most 1,000,000"),
])
def test_game_module_checks_bound_table_values(game, table, index, field, value, message):
    found = _variant(game, _set_entry(table, index, field, value))
    assert message in found, found


def test_bier_haus_jackpots_and_cap_stay_in_range():
    def rate(doc):
        doc["jackpots"]["Epic"]["pot_rate"] = 0.0
        doc["jackpots"]["Major"]["must_drop"] = float("inf")
    found = _variant("bier_haus_oktober_fest", rate)
    assert any(m.startswith("[jackpots.Epic.pot_rate] must be at least 1e-06: a pot fed 0.0 of each wager") for m in found), found
    assert "[jackpots.Major.must_drop] expected a finite number, got inf" in found, found

    def cap(doc):
        doc["features"]["reference_stake"] = 1e-9
    found = _variant("bier_haus_oktober_fest", cap)
    assert any(m.startswith("[features.max_win] max_win 250000 at the reference stake 1e-09 is 2.5e+14 total bets") for m in found), found


def test_super_10_frenzy_total_stays_in_range():
    def edit(doc):
        doc["features"]["frenzy_limit"] = 10**9
    found = _variant("super_10_stars", edit)
    assert any("lets the Frenzy total pass 1,000,000,000 x total bet" in m for m in found), found


def test_max_visible_counts_match_the_window_by_window_count():
    """The linear-time count of visible instances equals counting every window (random strips)."""
    from workbench.model.strips import Strip, max_visible_instances, tall_instance_starts

    def by_window(strip, sym, height, rows):
        n = len(strip)
        starts = tall_instance_starts(strip.symbols, sym, height) if height > 1 else [i for i, s in enumerate(strip.symbols) if s == sym]
        return max(sum(1 for s in starts if (s - top) % n < rows or (s - top) % n + height > n) for top in range(n))

    rng = random.Random(SEED)
    for _ in range(3000):
        height, rows = rng.randint(1, 3), rng.randint(1, 6)
        names: list = []
        for _ in range(rng.randint(1, 10)):
            names += ["T"] * height if rng.random() < 0.4 else [rng.choice("AB")]
        strip = Strip(tuple(names))
        assert max_visible_instances(strip, "T", height, rows) == by_window(strip, "T", height, rows), (names, height, rows)


def test_a_long_key_is_shortened_in_messages():
    problems = problems_of(CLASSIC.replace("[grid]", "[grid]\n" + "x" * 100_000 + " = 1"))
    assert len(problems) == 1 and len(str(problems[0])) < 400, str(problems[0])[:500]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_file_is_refused_after_reading_its_limit():
    start = time.perf_counter()
    with pytest.raises(ReelsetError) as info:
        load_game("/dev/zero")
    assert time.perf_counter() - start < 1.0
    assert [p.message for p in info.value.problems] == [
        f"file is larger than {MAX_FILE_BYTES:,} bytes: a reelset file may have at most {MAX_FILE_BYTES:,} bytes (1 MiB)"]


def test_the_largest_strip_set_weights_give_exact_par_numbers():
    """Valid strip-set weights near 2**31 mixed with another set: the PAR sheet's integer counts do
    not overflow 64 bits (they did, silently, while hit counts were numpy int64), and the mixed
    RTP is exactly the weighted mean of the sets' own RTPs."""
    from workbench import par

    text = (reelsets_dir() / "super_10_stars.toml").read_text(encoding="utf-8")

    def rtp(base: int, bonus: int) -> Fraction:
        game = loads_game(text.replace("weight = 88", f"weight = {base}", 1).replace("weight = 12", f"weight = {bonus}", 1), "t.toml")
        with warnings.catch_warnings():
            warnings.filterwarnings("error", category=RuntimeWarning)
            return par(game, full_cycle=False).rtp_exact

    big = 2_147_483_600
    alone = rtp(1, 0), rtp(0, 1)
    assert rtp(big, 12) == (big * alone[0] + 12 * alone[1]) / (big + 12)
