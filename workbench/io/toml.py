"""Reading and writing reelset files: TOML text, comments and layout preserved.

The parsing itself is tomlkit's (a style-preserving TOML library: parsing and
dumping an unchanged document gives the same bytes back).  This module adds
what tomlkit does not give: the line of every key and array element, so that
validation messages can say *where* a problem is, and an atomic save.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from ..errors import Problem, ReelsetError, format_key

KeyPath = tuple  # of str (table keys) and int (array indices)


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

    def problem(self, path: KeyPath, message: str, line: int | None = None) -> Problem:
        return Problem(self.path, format_key(path), message, line or self.line_of(path))


def read_document(path: str | os.PathLike) -> tuple[tomlkit.TOMLDocument, SourceText]:
    """Read and parse a reelset file; raise :class:`ReelsetError` if it is not TOML text."""
    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ReelsetError([Problem(name, "", "file not found")]) from None
    except IsADirectoryError:
        raise ReelsetError([Problem(name, "", "is a directory, not a reelset file")]) from None
    except OSError as exc:
        raise ReelsetError([Problem(name, "", f"cannot read file: {exc.strerror}")]) from None
    return parse_text(raw, name)


def parse_text(raw: bytes | str, name: str = "<text>") -> tuple[tomlkit.TOMLDocument, SourceText]:
    """Parse reelset text (bytes or str); raise :class:`ReelsetError` on non-text or bad TOML."""
    if isinstance(raw, bytes):
        if b"\x00" in raw:
            raise ReelsetError([Problem(name, "", "not a text file (contains NUL bytes)")])
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise ReelsetError(
                [Problem(name, "", f"not UTF-8 text (byte {exc.start})", line)]
            ) from None
    else:
        text = raw
    try:
        doc = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        # tomlkit's message ends with "at line L col C"; keep only the reason.
        reason = str(exc).split(" at line ")[0]
        raise ReelsetError([Problem(name, "", f"not valid TOML: {reason}", exc.line)]) from None
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
        chunk = self.text[self.pos : self.pos + n]
        self.line += chunk.count("\n")
        self.pos += n

    def skip_ws(self, newlines: bool) -> None:
        while self.pos < len(self.text):
            c = self.peek()
            if c in " \t\r" or (newlines and c == "\n"):
                self.advance()
            elif c == "#":
                while self.pos < len(self.text) and self.peek() != "\n":
                    self.advance()
            else:
                return

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
            if c in "\"'":
                parts.append(self.quoted_key(c))
            else:
                start = self.pos
                while self.peek() and (self.peek().isalnum() or self.peek() in "_-"):
                    self.advance()
                parts.append(self.text[start : self.pos])
            self.skip_ws(newlines=False)
            if self.peek() == ".":
                self.advance()
                continue
            return parts

    def quoted_key(self, quote: str) -> str:
        self.advance()
        out = []
        while self.peek() != quote:
            if quote == '"' and self.peek() == "\\":
                out.append(self.text[self.pos : self.pos + 2])
                self.advance(2)
                continue
            out.append(self.peek())
            self.advance()
        self.advance()
        raw = "".join(out)
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
        elif c in "\"'":
            self.string(path)
        else:
            while self.peek() and self.peek() not in ",]}\n#":
                self.advance()

    def string(self, path: KeyPath) -> None:
        quote = self.peek()
        if self.text.startswith(quote * 3, self.pos):
            self.advance(3)
            self.source.string_starts[tuple(path)] = (self.line, self.peek() == "\n" or self.text.startswith("\r\n", self.pos))
            end = quote * 3
            while not self.text.startswith(end, self.pos):
                if quote == '"' and self.peek() == "\\":
                    self.advance(2)
                else:
                    self.advance()
            self.advance(3)
            # up to two more quotes may belong to the content
            while self.peek() == quote:
                self.advance()
        else:
            self.advance()
            self.source.string_starts[tuple(path)] = (self.line, False)
            while self.peek() != quote:
                if quote == '"' and self.peek() == "\\":
                    self.advance(2)
                else:
                    self.advance()
            self.advance()

    def array(self, path: KeyPath) -> None:
        self.advance()  # '['
        index = 0
        while True:
            self.skip_ws(newlines=True)
            if self.peek() == "]":
                self.advance()
                return
            element = tuple(path) + (index,)
            self.record(element)
            self.value(element)
            index += 1
            self.skip_ws(newlines=True)
            if self.peek() == ",":
                self.advance()

    def inline_table(self, path: KeyPath) -> None:
        self.advance()  # '{'
        while True:
            self.skip_ws(newlines=True)
            if self.peek() == "}":
                self.advance()
                return
            line = self.line
            keys = self.key()
            sub = tuple(path) + tuple(keys)
            self.record(sub, line)
            self.skip_ws(newlines=False)
            self.advance()  # '='
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
