"""The file layer: reelset TOML text <-> :class:`~workbench.model.Game`.

- :mod:`.toml`: parsing with the line of every key (for messages);
- :mod:`.atomic`: writes that leave the old or the new file, never a broken one;
- :mod:`.schema`: validation of each section, every problem with file, line and key;
- :mod:`.store`: finding, loading and saving files (edits rewrite only the edited values).
"""

from .schema import FORMAT_VERSION, REELSET_SUFFIX, build_game
from .store import (
    Saved,
    format_strip_text,
    load_game,
    loads_game,
    reelsets_dir,
    render_text,
    resolve_game_path,
    save_game,
    shipped_games,
    example_games,
    validate_file,
)
from .atomic import atomic_write_text, write_output
from .toml import SourceText, parse_text, read_document

__all__ = [
    "FORMAT_VERSION",
    "REELSET_SUFFIX",
    "Saved",
    "SourceText",
    "atomic_write_text",
    "write_output",
    "build_game",
    "format_strip_text",
    "load_game",
    "loads_game",
    "parse_text",
    "read_document",
    "reelsets_dir",
    "render_text",
    "resolve_game_path",
    "save_game",
    "shipped_games",
    "example_games",
    "validate_file",
]
