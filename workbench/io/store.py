"""Reelset files on disk: find, load, validate, render edits, save atomically.

Saving rewrites only the values that were edited, so comments and layout
survive and diffs stay small; the new text is validated before anything is
written, and written atomically.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

import tomlkit

from ..errors import GameNotFoundError, Problem, ReelsetError
from ..model import Game, Strip
from .schema import REELSET_SUFFIX, build_game
from .atomic import atomic_write_text
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
