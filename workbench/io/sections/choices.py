"""``[choices.NAME]``: a choice the player makes in the round, each option its own ``[features]`` parameters.

A mixin of the reelset builder (:mod:`workbench.io.schema`).  The options are
checked as the round template checks ``[features]`` (merged over it, a problem
reported at the option's key) by the builder's ``override_features``; the
game's own ``[features]`` become those of the option ``played``.
"""

from __future__ import annotations

from typing import Any

from ... import registry
from ...model import PlayerChoice, freeze
from ...model.params import describe
from ..limits import show_name

CHOICE_KEYS = {
    "played": "the option the game's figures are quoted for",
    "options": "{ OPTION = { [features] parameters }, ... }: what the round plays when the player picks each",
    "description": "free text",
}


class ChoiceSections:
    """``[choices.*]`` into :class:`~workbench.model.PlayerChoice` records."""

    def choices(self, value: Any, module_name, features: dict) -> dict:
        if self.table(("choices",), value) is None or not value:
            return {}
        template = registry.find_template(module_name) if module_name is not None else None
        out: dict = {}
        owner: dict = {}  # [features] parameter -> the choice whose options set it
        for name, spec in value.items():
            path = ("choices", name)
            if not self.name_key(path, "player choice") or self.table(path, spec) is None:
                continue
            if template is not None and not template.declared_pays:
                self.problem(path, f"player choices are played by the declared round templates (classic, free_spins, "
                                   f"hold_and_respin, tumble); {module_name!r} plays its own rounds")
                continue
            self.check_keys(path, spec, CHOICE_KEYS, ("played", "options"))
            options = self._options(path, spec.get("options")) if "options" in spec else None
            played = self.string(path + ("played",), spec["played"], what="option") if "played" in spec else None
            if played is not None and options is not None and played not in options:
                self.problem(path + ("played",), f"{show_name(played)} is not one of the options ({', '.join(options)})")
                played = None
            description = spec.get("description", "")
            if not isinstance(description, str):
                self.problem(path + ("description",), f"expected a string, got {describe(description)}")
            for option, params in (options or {}).items():
                for key in params:
                    if owner.setdefault(key, name) != name:
                        self.problem(path + ("options", option, key),
                                     f"[features] parameter {key!r} is already set by choice {owner[key]!r}: each parameter "
                                     "belongs to one choice (join the two choices into one with every combination)")
            if options is None or played is None or module_name is None:
                continue
            keys = {k for params in options.values() for k in params}
            out[name] = PlayerChoice(name, played, freeze(options), freeze({k: features[k] for k in keys if k in features}),
                                     description if isinstance(description, str) else "")
        return out

    def _options(self, path: tuple, options: Any) -> dict | None:
        """``options``: at least two, each a table of ``[features]`` parameters (empty: ``[features]`` as written)."""
        if self.table(path + ("options",), options, "table of options") is None:
            return None
        parsed = {}
        for option, params in options.items():
            opath = path + ("options", option)
            if self.name_key(opath, "option") and self.table(opath, params, "table of [features] parameters") is not None:
                parsed[option] = params
        if len(options) < 2:
            self.problem(path + ("options",), f"a choice needs two options or more, got {len(options)}")
            return None
        return parsed if len(parsed) == len(options) else None

    def choice_overrides(self, choices: dict) -> list:
        """``(path, parameters as written)`` of every option, for ``override_features``."""
        return [(("choices", name, "options", option), self.data["choices"][name]["options"][option])
                for name, choice in choices.items() for option in choice.options]

    @staticmethod
    def played_features(features: dict, choices: dict) -> dict:
        """``[features]`` as the game plays them: each choice's ``played`` option over the parameters written."""
        merged = dict(features)
        for choice in choices.values():
            merged.update(choice.options[choice.played])
        return merged
