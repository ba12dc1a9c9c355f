"""An editing session on one reelset file: the version on disk, the current
version and the undo history.

No widgets here: the editors in this package drive an :class:`EditSession`
and only display what it holds, so the editing rules are the same from a
notebook, a browser or a test.  Every version in the session is a validated,
immutable :class:`~workbench.model.Game`; invalid edits raise
:class:`~workbench.errors.ReelsetError` before they reach the session, so an
invalid version can never be saved.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model import Game
from ..io import Saved, load_game, save_game


def rebase(values_from: Game, onto: Game) -> Game:
    """``onto`` with the editable values (strips, strip-set weights, table weights) of ``values_from``.

    Used to bring an older version back after the file was saved: the saved
    game is the base its edits must be written against.  Strip sets or tables
    that do not exist in ``onto`` are skipped.
    """
    game = onto
    for name, wanted in values_from.strip_sets.items():
        current = game.strip_sets.get(name)
        if current is None:
            continue
        for reel, (strip, now) in enumerate(zip(wanted.reels, current.reels), start=1):
            if strip != now:
                game = game.with_strip(name, reel, strip.symbols, strip.weights)
        if wanted.weight != current.weight:
            game = game.with_strip_set_weight(name, wanted.weight)
    for name, table in values_from.tables.items():
        current = game.tables.get(name)
        if current is not None and len(current.weights) == len(table.weights) and current.weights != table.weights:
            game = game.with_table_weights(name, table.weights)
    return game


class EditSession:
    """One reelset file being edited.

    ``saved`` is the game as it is on disk (as last loaded or saved),
    ``game`` the current version, ``history`` the previous versions (undo
    stack, most recent last).  ``reelset`` is a shipped reelset name, a path,
    or a loaded :class:`Game` that knows its path.
    """

    def __init__(self, reelset: str | os.PathLike | Game):
        game = reelset if isinstance(reelset, Game) else load_game(reelset)
        if not game.path:
            raise ValueError("the game to edit must have been loaded from a file (it has no path)")
        self.saved: Game = game
        self.game: Game = game
        self.history: list[Game] = []

    @property
    def path(self) -> Path:
        """The reelset file this session reads and writes."""
        return Path(self.saved.path)

    @property
    def dirty(self) -> bool:
        """True if the current version differs from the file on disk."""
        return self.game != self.saved

    @property
    def can_undo(self) -> bool:
        return bool(self.history)

    def apply(self, game: Game) -> None:
        """Make ``game`` (an already validated edit of the current version) current."""
        self.history.append(self.game)
        self.game = game

    def undo(self) -> bool:
        """Go back to the previous version; False if there is none."""
        if not self.history:
            return False
        previous = self.history.pop()
        if previous.text != self.saved.text:
            # the file was saved since: express the old values as edits of the saved file
            previous = rebase(previous, self.saved)
        self.game = previous
        return True

    def save(self) -> Saved:
        """Validate and atomically write the current version (see :func:`workbench.save_game`).

        Raises :class:`~workbench.errors.ReelsetError` if the file changed on disk since it was
        loaded, or if the text to write does not validate.  The undo history
        is kept: older versions are re-based on the saved file when undone.
        """
        saved = save_game(self.game)
        self.saved = saved.game
        self.game = saved.game
        return saved

    def reload(self) -> None:
        """Read the file again, dropping unsaved edits and the undo history."""
        fresh = load_game(self.path)
        self.saved = fresh
        self.game = fresh
        self.history.clear()


__all__ = ["EditSession", "rebase"]
