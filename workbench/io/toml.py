"""Reading and writing reelset files: TOML text, comments and layout preserved.

The parsing itself is tomlkit's (a style-preserving TOML library: parsing and
dumping an unchanged document gives the same bytes back).  This module adds
what tomlkit does not give: the line of every key and array element, so that
validation messages can say *where* a problem is, and checks made *before*
parsing so that no file, however large or strange, takes long to refuse:

- at most :data:`MAX_FILE_BYTES` bytes, :data:`MAX_FILE_LINES` lines and
  :data:`MAX_FILE_ITEMS` keys and array elements (tomlkit needs 30-90 us per
  key or element, 10-20 us per line and 1-2 us per byte of comment, so these
  bound a parse to a few seconds);
- UTF-8 text only: a byte-order mark (UTF-8, UTF-16, UTF-32), UTF-16 text
  without one, NUL bytes and other encodings (Latin-1, Windows-1252) are each
  refused with a message saying how to save the file.

A UTF-8 byte-order mark is refused rather than skipped: saving
(:mod:`workbench.io.store`) compares and rewrites the file's exact text, so a
skipped mark would either be lost on save or make every save look like a
change on disk.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field
from typing import Any

import tomlkit
import tomlkit.exceptions

from ..errors import ERROR, Problem, ReelsetError, format_key

KeyPath = tuple  # of str (table keys) and int (array indices)

MAX_FILE_BYTES = 1_048_576  # 1 MiB: about 80 times the largest shipped reelset
MAX_FILE_LINES = 50_000  # outside multi-line strings (a strip may take many lines)
MAX_FILE_ITEMS = 25_000  # keys, array elements and inline tables/arrays ("=", ",", "[", "{" outside strings and comments)

# strings and comments, for skipping them fast (each matches up to its end, or to the end of the
# line or file when unterminated, so a scan never backtracks)
_BASIC_ML = re.compile(r'"""(?:[^"\\]+|\\.|"(?!""))*(?:"""|\Z)', re.S)
_LITERAL_ML = re.compile(r"'''(?:[^']+|'(?!''))*(?:'''|\Z)")
_BASIC = re.compile(r'"(?:[^"\\\n]+|\\.)*"?')
_LITERAL = re.compile(r"'[^'\n]*'?")
_SPECIAL = re.compile(r"[\"'#]")
_WS_NEWLINES = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_WS = re.compile(r"(?:[ \t\r]+|#[^\n]*)*")
_BARE_KEY = re.compile(r"[\w-]*")
_BARE_VALUE = re.compile(r"[^,\]}\n#]*")


@dataclass
class SourceText:
    """The text of one reelset file plus where each key path sits in it."""

    path: str
    text: str
    lines: dict = field(default_factory=dict)  # KeyPath -> 1-based line
    string_starts: dict = field(default_factory=dict)  # KeyPath -> (line, starts_with_newline)

    def line_of(self, path: KeyPath) -> int | None:
        """Line of ``path``, or of its nearest located ancestor."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None

    def line_in_string(self, path: KeyPath, value: str, char_index: int) -> int | None:
        """Line of character ``char_index`` of the string value stored at ``path``."""
        start = self.string_starts.get(tuple(path))
        if start is None:
            return self.line_of(path)
        line, skip_first_newline = start
        return line + int(skip_first_newline) + value.count("\n", 0, char_index)

    def problem(self, path: KeyPath, message: str, line: int | None = None, severity: str = ERROR) -> Problem:
        key = format_key(path)
        if len(key) > 200:  # a hostile key of a megabyte would make every message that long
            key = key[:120] + f"... ({len(key):,} characters)"
        return Problem(self.path, key, message, line or self.line_of(path), severity)


def read_document(path: str | os.PathLike) -> tuple[tomlkit.TOMLDocument, SourceText]:
    """Read and parse a reelset file; raise :class:`ReelsetError` if it is not TOML text.

    Reads at most :data:`MAX_FILE_BYTES` + 1 bytes, so a huge file (or a
    device that never ends) is refused without being read.
    """
    name = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
            size = None
            if len(raw) > MAX_FILE_BYTES:
                try:
                    size = os.fstat(handle.fileno()).st_size
                except OSError:
                    size = None
    except FileNotFoundError:
        raise ReelsetError([Problem(name, "", "file not found")]) from None
    except IsADirectoryError:
        raise ReelsetError([Problem(name, "", "is a directory, not a reelset file")]) from None
    except OSError as exc:
        raise ReelsetError([Problem(name, "", f"cannot read file: {exc.strerror or exc}")]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ReelsetError([_too_large(name, size if size and size > MAX_FILE_BYTES else None)])
    return parse_text(raw, name)


def _too_large(name: str, size: int | None) -> Problem:
    what = f"is {size:,} bytes" if size else f"is larger than {MAX_FILE_BYTES:,} bytes"
    return Problem(name, "", f"file {what}: a reelset file may have at most {MAX_FILE_BYTES:,} bytes (1 MiB)")


def decode_text(raw: bytes, name: str = "<text>") -> str:
    """The text of a reelset file's bytes; :class:`ReelsetError` unless it is UTF-8 text without BOM."""
    if len(raw) > MAX_FILE_BYTES:
        raise ReelsetError([_too_large(name, len(raw))])
    for bom, encoding in ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                          (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16")):
        if raw.startswith(bom):
            raise ReelsetError([Problem(name, "", f"{encoding} text (it starts with a {encoding} byte-order mark): "
                                        "save the file as UTF-8 without byte-order mark")])
    if raw.startswith(codecs.BOM_UTF8):
        raise ReelsetError([Problem(name, "", "starts with a UTF-8 byte-order mark: save the file as UTF-8 without BOM")])
    if b"\x00" in raw:
        half = len(raw) // 2
        if half and max(raw[0::2].count(0), raw[1::2].count(0)) >= 0.9 * half:
            raise ReelsetError([Problem(name, "", "looks like UTF-16 text (a NUL byte next to every character): save the file as UTF-8")])
        line = raw[: raw.index(b"\x00")].count(b"\n") + 1
        raise ReelsetError([Problem(name, "", "not a text file (contains NUL bytes)", line)])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        byte = raw[exc.start]
        raise ReelsetError([Problem(
            name, "",
            f"not UTF-8 text (byte {exc.start}, 0x{byte:02X}, is not valid UTF-8): save the file as UTF-8 "
            "(Latin-1 or Windows-1252 text, for example, has to be converted)",
            line,
        )]) from None


def count_structure(text: str) -> tuple[int, int]:
    """(items, lines) of TOML ``text``, about: items are the ``=``, ``,``, ``[`` and ``{``
    signs outside strings and comments (keys, array elements, inline tables and
    arrays), lines those outside multi-line strings.  Linear time, no backtracking."""
    items = 0
    lines = 1
    pos = 0
    n = len(text)
    while pos < n:
        match = _SPECIAL.search(text, pos)
        end = match.start() if match else n
        segment = text[pos:end]
        items += segment.count("=") + segment.count(",") + segment.count("[") + segment.count("{")
        lines += segment.count("\n")
        if match is None:
            break
        c = text[end]
        if c == "#":
            newline = text.find("\n", end)
            pos = n if newline < 0 else newline
            continue
        if c == '"':
            pattern = _BASIC_ML if text.startswith('"""', end) else _BASIC
        else:
            pattern = _LITERAL_ML if text.startswith("'''", end) else _LITERAL
        pos = max(pattern.match(text, end).end(), end + 1)
    return items, lines


def check_size(text: str, name: str = "<text>") -> None:
    """Refuse (:class:`ReelsetError`) text too large to parse quickly: bytes, lines, items."""
    if len(text) > MAX_FILE_BYTES:
        raise ReelsetError([_too_large(name, None)])
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        line = text.count("\n", 0, exc.start) + 1
        raise ReelsetError([Problem(name, "", f"not valid Unicode text (character {exc.start} is a lone surrogate)", line)]) from None
    if size > MAX_FILE_BYTES:
        raise ReelsetError([_too_large(name, size)])
    items, lines = count_structure(text)
    if lines > MAX_FILE_LINES:
        raise ReelsetError([Problem(name, "", f"file has {lines:,} lines (outside multi-line strings): a reelset file may "
                                    f"have at most {MAX_FILE_LINES:,}")])
    if items > MAX_FILE_ITEMS:
        raise ReelsetError([Problem(name, "", f"file has about {items:,} keys and array elements: a reelset file may have "
                                    f"at most {MAX_FILE_ITEMS:,}")])


def parse_text(raw: bytes | str, name: str = "<text>") -> tuple[tomlkit.TOMLDocument, SourceText]:
    """Parse reelset text (bytes or str); raise :class:`ReelsetError` on non-text, too large or bad TOML.

    The size limits are checked before parsing (see the module docstring), so
    refusing any input takes at most about two seconds.
    """
    if isinstance(raw, bytes):
        text = decode_text(raw, name)
    else:
        text = raw
        if text.startswith("\ufeff"):
            raise ReelsetError([Problem(name, "", "starts with a UTF-8 byte-order mark: save the file as UTF-8 without BOM")])
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise ReelsetError([Problem(name, "", "not a text file (contains NUL bytes)", line)])
    check_size(text, name)
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        # tomlkit's message ends with "at line L col C"; keep only the reason.
        reason = str(exc).split(" at line ")[0]
        # tomlkit reads a NUL character at the end of the text
        reason = reason.replace("Unexpected character: '\\x00'", "unexpected end of file")
        raise ReelsetError([Problem(name, "", f"not valid TOML: {reason}", exc.line)]) from None
    except RecursionError:
        raise ReelsetError([Problem(name, "", "not valid TOML: arrays or tables nested too deeply")]) from None
    except Exception as exc:  # tomlkit raises a few non-ParseError types on odd input
        raise ReelsetError([Problem(name, "", f"not valid TOML: {exc}")]) from None
    source = SourceText(name, text)
    try:
        _Locator(text, source).run()
    except Exception:
        # Locating is a convenience for messages; never let it hide the real problem.
        pass
    return doc, source


def dump_document(doc: tomlkit.TOMLDocument) -> str:
    return tomlkit.dumps(doc)


class _Locator:
    """Skims valid TOML text and records the line of each key and array element.

    tomlkit has already accepted the text, so this only needs to follow the
    structure (tables, dotted keys, arrays, inline tables, strings, comments).
    Runs of whitespace, comments, strings and bare values are skipped with one
    regular-expression match each, so large files are skimmed quickly.
    """

    def __init__(self, text: str, source: SourceText):
        self.text = text
        self.pos = 0
        self.line = 1
        self.source = source
        self.array_table_counts: dict[KeyPath, int] = {}

    # -- character helpers -------------------------------------------------
    def peek(self, n: int = 0) -> str:
        i = self.pos + n
        return self.text[i] if i < len(self.text) else ""

    def advance(self, n: int = 1) -> None:
        self.line += self.text.count("\n", self.pos, self.pos + n)
        self.pos += n

    def advance_to(self, end: int) -> None:
        self.advance(max(end - self.pos, 0))

    def skip_ws(self, newlines: bool) -> None:
        self.advance_to((_WS_NEWLINES if newlines else _WS).match(self.text, self.pos).end())

    def record(self, path: KeyPath, line: int | None = None) -> None:
        self.source.lines.setdefault(tuple(path), line or self.line)

    # -- grammar -----------------------------------------------------------
    def run(self) -> None:
        table: KeyPath = ()
        while True:
            self.skip_ws(newlines=True)
            if self.pos >= len(self.text):
                return
            if self.peek() == "[":
                table = self.header()
            else:
                self.keyval(table)

    def header(self) -> KeyPath:
        line = self.line
        is_array = self.peek(1) == "["
        self.advance(2 if is_array else 1)
        self.skip_ws(newlines=False)
        keys = self.key()
        self.skip_ws(newlines=False)
        self.advance(2 if is_array else 1)
        path = tuple(keys)
        for i in range(1, len(path)):
            self.record(path[:i], line)
        if is_array:
            index = self.array_table_counts.get(path, 0)
            self.array_table_counts[path] = index + 1
            self.record(path, line)
            path = path + (index,)
        self.record(path, line)
        return path

    def key(self) -> list[str]:
        parts = []
        while True:
            self.skip_ws(newlines=False)
            c = self.peek()
            if c in "\"'" and c:
                parts.append(self.quoted_key(c))
            else:
                start = self.pos
                self.advance_to(_BARE_KEY.match(self.text, self.pos).end())
                parts.append(self.text[start : self.pos])
            self.skip_ws(newlines=False)
            if self.peek() == ".":
                self.advance()
                continue
            return parts

    def quoted_key(self, quote: str) -> str:
        start = self.pos
        self.advance_to((_BASIC if quote == '"' else _LITERAL).match(self.text, self.pos).end())
        raw = self.text[start + 1 : self.pos - 1]
        return raw.encode().decode("unicode_escape") if quote == '"' and "\\" in raw else raw

    def keyval(self, table: KeyPath) -> None:
        line = self.line
        keys = self.key()
        path = tuple(table) + tuple(keys)
        for i in range(len(table) + 1, len(path)):
            self.record(path[:i], line)
        self.record(path, line)
        self.skip_ws(newlines=False)
        self.advance()  # '='
        self.skip_ws(newlines=False)
        self.value(path)

    def value(self, path: KeyPath) -> None:
        c = self.peek()
        if c == "[":
            self.array(path)
        elif c == "{":
            self.inline_table(path)
        elif c in "\"'" and c:
            self.string(path)
        else:
            self.advance_to(_BARE_VALUE.match(self.text, self.pos).end())

    def string(self, path: KeyPath) -> None:
        quote = self.peek()
        if self.text.startswith(quote * 3, self.pos):
            after = self.pos + 3
            self.source.string_starts[tuple(path)] = (
                self.line, self.text.startswith("\n", after) or self.text.startswith("\r\n", after))
            self.advance_to((_BASIC_ML if quote == '"' else _LITERAL_ML).match(self.text, self.pos).end())
            # up to two more quotes may belong to the content
            while self.peek() == quote:
                self.advance()
        else:
            self.source.string_starts[tuple(path)] = (self.line, False)
            self.advance_to((_BASIC if quote == '"' else _LITERAL).match(self.text, self.pos).end())

    def array(self, path: KeyPath) -> None:
        self.advance()  # '['
        index = 0
        while True:
            self.skip_ws(newlines=True)
            if self.peek() == "]" or self.pos >= len(self.text):
                self.advance()
                return
            element = tuple(path) + (index,)
            start = self.pos
            self.record(element)
            self.value(element)
            index += 1
            self.skip_ws(newlines=True)
            if self.peek() == ",":
                self.advance()
            elif self.pos == start:  # never loop on text this skimmer does not follow
                self.advance()

    def inline_table(self, path: KeyPath) -> None:
        self.advance()  # '{'
        while True:
            self.skip_ws(newlines=True)
            if self.peek() == "}" or self.pos >= len(self.text):
                self.advance()
                return
            line = self.line
            keys = self.key()
            sub = tuple(path) + tuple(keys)
            self.record(sub, line)
            self.skip_ws(newlines=False)
            self.advance()  # '=' (so every round moves on)
            self.skip_ws(newlines=False)
            self.value(sub)
            self.skip_ws(newlines=True)
            if self.peek() == ",":
                self.advance()


def plain(value: Any) -> Any:
    """tomlkit containers -> plain Python dict/list/str/int/float/bool."""
    if hasattr(value, "unwrap"):
        return value.unwrap()
    return value
