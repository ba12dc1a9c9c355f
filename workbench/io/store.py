"""Reelset files on disk: find, load, validate, render edits, save atomically.

Saving rewrites only the values that were edited, so comments, layout and
line endings survive and diffs stay small; the new text is validated before
anything is written, and written atomically (:mod:`.atomic`: lock, temp file,
fsync, rename, ``NAME.bak``), refusing to overwrite a change made on disk.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

import tomlkit
import tomlkit.items

from ..errors import GameNotFoundError, Problem, ReelsetError
from ..model import Game, Strip
from .schema import REELSET_SUFFIX, build_game
from .atomic import write_file_atomic
from .toml import parse_text, read_document


def reelsets_dir() -> Path:
    """Folder of the shipped reelsets (``$WORKBENCH_REELSETS`` overrides)."""
    env = os.environ.get("WORKBENCH_REELSETS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "reelsets"


def shipped_games() -> list[str]:
    """Names of the reelsets shipped in ``reelsets/``."""
    folder = reelsets_dir()
    return sorted(p.stem for p in folder.glob(f"*{REELSET_SUFFIX}"))


EXAMPLES_FOLDER = "examples"


def example_games() -> list[str]:
    """Names of the gallery reelsets in ``reelsets/examples/`` (``examples/<name>``, usable wherever a shipped
    name is: ``workbench par examples/ways_243``)."""
    folder = reelsets_dir() / EXAMPLES_FOLDER
    return sorted(f"{EXAMPLES_FOLDER}/{p.stem}" for p in folder.glob(f"*{REELSET_SUFFIX}"))


def resolve_game_path(game: str | os.PathLike) -> Path:
    """A path to an existing reelset file, or the name of a shipped one."""
    path = Path(game)
    shown = str(game) if len(str(game)) <= 200 else f"{str(game)[:200]}... ({len(str(game)):,} characters)"
    try:
        if path.exists():
            return path
        candidate = reelsets_dir() / f"{game}{REELSET_SUFFIX}"
        if candidate.exists():
            return candidate
    except OSError as exc:  # e.g. a name longer than the file system allows
        raise GameNotFoundError(f"{shown}: not a usable path ({exc.strerror or exc})") from None
    known = ", ".join(shipped_games()) or "none"
    raise GameNotFoundError(f"{shown}: no such file, and not a shipped reelset (shipped: {known})")


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
    if multiline and text.startswith("\n"):
        # `"""` then a newline, as in the file: that first newline is not part of the value
        # (TOML trims it); tomlkit.string would keep the value's leading newline by writing
        # a second one, i.e. a blank line at the top of the strip.
        body = tomlkit.string(text[1:], multiline=True)
        new = tomlkit.items.String(body.type, str(body), "\n" + body.as_string()[3:-3], tomlkit.items.Trivia())
    else:
        new = tomlkit.string(text, multiline=multiline)
    new.trivia.comment_ws = trivia.comment_ws
    new.trivia.comment = trivia.comment
    new.trivia.trail = trivia.trail
    table[key] = new


@dataclass(frozen=True)
class Saved:
    """Result of :func:`save_game`: the game as now on disk and the diff written.

    ``path`` is the path as given (or as the game was loaded), ``target`` the
    real file written (symlinks followed), ``backup`` the ``NAME.bak`` now
    holding the previous version (None if nothing was written or the file is
    new), ``cleaned`` the stale temp files of earlier crashed saves that this
    save removed (so the editor can say so), ``written`` False when the file
    already held exactly this text.
    """

    game: Game
    diff: str
    path: Path
    target: Path | None = None
    backup: Path | None = None
    cleaned: tuple[Path, ...] = ()
    written: bool = True


def keep_line_endings(text: str, original: str) -> str:
    """``text`` with the line endings of ``original``: a CRLF file stays CRLF.

    tomlkit keeps the line endings of the lines it does not touch, but a
    rewritten multi-line strip is joined with LF; if ``original`` uses
    only CRLF, every line ending of ``text`` becomes CRLF.  Files with mixed
    or LF endings get ``text`` unchanged.
    """
    if "\r\n" in original and "\n" not in original.replace("\r\n", ""):
        return text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def save_game(game: Game, path: str | os.PathLike | None = None, *, force: bool = False,
              lock_timeout: float | None = None) -> Saved:
    """Validate and atomically write ``game`` to ``path`` (default: where it was loaded).

    Returns the saved game (re-read from the new text) and the unified diff
    against what was on disk.  The text keeps the file's line endings; a
    symlink is followed (its target is written, the link kept); the previous
    version is kept as ``NAME.bak``; the writing steps (lock, temp file,
    fsync, rename, folder fsync) are those of
    :func:`workbench.io.atomic.write_file_atomic`.

    Refuses (:class:`ReelsetError` naming the file and the reason) if the new
    text is invalid; if the file changed on disk since the game was loaded
    (compared byte for byte with the text it was loaded from, whatever the
    spelling of the two paths; unless ``force``), so no saved work is silently
    overwritten; if another save of the same file holds its lock for more
    than ``lock_timeout`` seconds; if the file is read-only, the folder does
    not exist, the disk is full, ...  The file is unchanged after any failure.
    """
    if path is None and (not game.path or (game.path.startswith("<") and game.path.endswith(">"))):
        raise ReelsetError([Problem(game.name or "<game>", "", "not saved: the game was not loaded from a file; give a path to save to")])
    target = Path(path if path is not None else game.path)
    text = keep_line_endings(render_text(game), game.text)
    saved = loads_game(text, str(target))  # full validation of exactly what will be written
    loaded_from = os.path.realpath(game.path) if game.path else None
    expected = game.text.encode("utf-8")

    def check(real: Path, current: bytes | None) -> None:
        if force or current is None or loaded_from != str(real):
            return
        if current != expected:
            raise ReelsetError([Problem(str(target), "", "the file changed on disk since it was loaded "
                                        "(saved by another editor or session); reload it or save with force")])

    def error(name: str, reason: str) -> ReelsetError:
        return ReelsetError([Problem(name, "", f"not saved: {reason}")])

    result = write_file_atomic(target, text.encode("utf-8"), check=check, backup=True,
                               lock_timeout=lock_timeout, error=error)
    old = result.previous.decode("utf-8", errors="replace") if result.previous is not None else ""
    diff = "".join(
        difflib.unified_diff(old.splitlines(keepends=True), text.splitlines(keepends=True), fromfile=f"{target} (saved)", tofile=f"{target} (new)")
    )
    return Saved(game=saved, diff=diff, path=target, target=result.path, backup=result.backup,
                 cleaned=result.cleaned, written=result.written)
