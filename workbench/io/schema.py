"""Validation of a reelset's data, section by section, into a :class:`~workbench.model.Game`.

Every problem is collected with its file, line and key path; the build
raises one :class:`~workbench.errors.ReelsetError` carrying all of them.
Strip rules are the model's (:func:`workbench.model.check_strip`); the
``[features]`` section is checked against the parameters the named round
template declares (:mod:`workbench.registry`), without importing its
compiled code.

Every number is bounded to what the engines hold (the *Limits* section of
docs/reelset-format.md lists each bound): the exact engine and the simulator
count money in integer *pay units* (credits per bet multiplier times the
least common denominator of the cost and all pays, see
:mod:`workbench.pays.scale`) in 64-bit integers, with single pays packed in
31 bits; weights are 31-bit integers.  A file inside the limits never makes
an engine overflow; a file outside them is a problem naming the bound.
"""

from __future__ import annotations

import difflib

from .. import registry
from ..errors import Problem
from ..model import Game, freeze
from .limits import (  # noqa: F401 (the limits are part of this module's interface: io, tests and docs read them here)
    CLUSTER_MAX_CELLS, FEATURE_COST_RATIO, FORMAT_VERSION, LIMITS, MAX_DECIMALS, MAX_MULTIPLIER, MAX_PAY,
    MAX_PAY_DENOMINATOR, MAX_PAYLINES, MAX_PLAYED_SETS, MAX_PROBLEMS, MAX_REELS, MAX_ROWS, MAX_STRIP_SETS, MAX_STRIP_STOPS, MAX_SYMBOLS,
    MAX_TABLE_ENTRIES, MAX_TALL, MAX_UNITS, MAX_WEIGHT, NAME_RE, REELSET_SUFFIX, REQUIRED_TOP, SIMULATOR_VIRTUAL_STOPS,
    TOP_KEYS, UNIT_TEXT, show_value, cap_problems,
)
from .toml import SourceText
from .sections.choices import ChoiceSections
from .sections.expectations import ExpectationSections
from .sections.jackpots import JackpotSections
from .sections.layout import LayoutSections
from .sections.mystery import MysterySections
from .sections.played import PlayedSections
from .sections.pays import PaySections
from .sections.strips import StripSections
from .sections.values import ValueChecks


class _Builder(ValueChecks, LayoutSections, PaySections, StripSections, JackpotSections,
               ChoiceSections, MysterySections, PlayedSections, ExpectationSections):
    """Builds a :class:`~workbench.model.Game` from a reelset's data, one section per mixin; every problem is collected
    before one :class:`~workbench.errors.ReelsetError` is raised."""

    def __init__(self, data: dict, source: SourceText):
        self.data = data
        self.source = source
        self.problems: list[Problem] = []
        self.positions = MAX_REELS * MAX_ROWS  # symbols on the screen, once the grid is known
        self.rule_unknown = False  # [pays] rule was not understood: skip the checks that depend on it

    # -- sections --------------------------------------------------------
    def header(self) -> tuple:
        """The top-level keys: (format version, name, description, round template name or None)."""
        data = self.data
        self.check_keys((), data, TOP_KEYS, REQUIRED_TOP)
        version = data.get("format_version")
        if "format_version" in data:
            if self.integer(("format_version",), version) is not None and version != FORMAT_VERSION:
                self.problem(("format_version",), f"unknown format version {show_value(version)} (this workbench reads version {FORMAT_VERSION})")
                raise self.fail()
        name = self.string(("name",), data["name"], what="game name") if "name" in data else None
        description = self.string(("description",), data.get("description", "")) or ""
        module_name = None
        if "game_module" in data:
            module_name = self.string(("game_module",), data["game_module"])
            if module_name is not None and registry.find_template(module_name) is None:
                known = registry.names()
                hint = difflib.get_close_matches(module_name, list(known), n=1)
                suggestion = f" (did you mean {hint[0]!r}?)" if hint else ""
                self.problem(("game_module",), f"unknown game module {module_name!r}: no round template of that name{suggestion} "
                             f"(known: {', '.join(known)})")
                module_name = None
        return version, name, description, module_name

    def build(self) -> Game:
        data = self.data
        version, name, description, module_name = self.header()
        pays = self.pay_rule(data.get("pays", {}))
        reels, rows = self.grid(data.get("grid"))
        heights = self.heights(data.get("grid"), reels, rows, pays)
        if rows:
            self.positions = sum(rows)
        symbols = self.symbols(data.get("symbols"), reels)
        groups = self.groups(data.get("groups", {}), symbols)
        rule = pays.definition
        if groups and not rule.groups_pay:
            self.problem(("groups",), f"a {pays.rule} game pays each symbol's own count: groups do not pay in it "
                                      "(remove [groups])")
        if rule.paylines and not self.rule_unknown:
            if "paylines" not in data:
                self.problem((), "missing required section or key 'paylines' (a lines game needs its paylines)")
            paylines = self.paylines(data.get("paylines"), reels, rows)
        else:
            if "paylines" in data:
                self.problem(("paylines",), f"a {pays.rule} game has no paylines: remove [paylines] (or set [pays] rule = \"lines\")")
            paylines = ()
        bet = self.bet(data.get("bet"), paylines, pays)
        line_unit = bet.line_pay_unit if bet is not None else "line_bet"
        paytable = self.paytable(data.get("paytable"), symbols, reels, line_unit, groups, pays)
        if rule.check is not None:  # what else the rule refuses (model.rules)
            rule.check(self.problem, rows, symbols, groups, paytable)
        scatters = self.scatters(data.get("scatters", {}), symbols, reels, rows)
        strip_sets = self.strip_sets(data.get("strip_sets"), symbols, reels, rows)
        symbols = self.mode_symbols(symbols, strip_sets)
        tables = self.tables(data.get("tables", {}))
        self.multiplier_tables(symbols, tables, pays)
        self.mystery_tables(symbols, tables, strip_sets)
        self.wild_reel_tables(strip_sets, tables)
        if not self.problems:  # what every mode plays: mystery reveals x wild reels, within the engines' bounds
            self.played_strip_sets(symbols, strip_sets, tables, reels, rows)
        self.template_features(module_name, pays, groups, symbols, heights)
        triggers = self.triggers(data.get("triggers", {}), scatters, symbols, tables, pays, reels, module_name)
        awards = self.award_values(triggers, tables)
        self.pay_units(bet, paytable, scatters, awards)
        bet_modes = self.bet_modes(data.get("bet_modes", {}), strip_sets, module_name, tables)
        jackpots = self.jackpots(data.get("jackpots", {}), bet, bet_modes)
        features = self.table(("features",), data.get("features", {})) or {}
        choices, amounts = self.choices(data.get("choices", {}), module_name, features), []
        if module_name is not None:
            before = len(self.problems)
            grid = {"heights": heights, "groups": groups, "rows": rows}

            def check(merged):  # the template's checks of [features] parameters
                self.features(module_name, merged, symbols, strip_sets, tables, triggers, scatters, bet_modes, pays, grid)
            check(features)
            amounts = self.feature_amounts(module_name, features, tables) if len(self.problems) == before else []
            if len(self.problems) == before:  # each bet mode's and option's own parameters, as the template checks them
                amounts += self.bet_mode_features(module_name, features, bet_modes, tables, check)
                amounts += self.override_features(module_name, features, self.choice_overrides(choices), tables, check)
            if amounts:  # the template's paid amounts share the pay unit: checked with the pays, reported at their keys
                self.pay_units(bet, paytable, scatters, awards, amounts)
        features = self.played_features(features, choices)
        raw_modes = data.get("bet_modes")
        expectations = self.expectations(data.get("expectations"), raw_modes if isinstance(raw_modes, dict) else {})
        template = registry.find_template(module_name) if module_name is not None else None

        if self.problems:
            raise self.fail()
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
            pays=pays,
            groups=freeze(groups),
            heights=heights,
            bet_modes=freeze(bet_modes),
            jackpots=jackpots,
            choices=freeze(choices),
            expectations=expectations,
            exact_part=template.exact_part if template is not None else "base game",
            feature_money=tuple(value for _, value, _ in amounts),
            path=self.source.path,
            text=self.source.text,
        )


def build_game(data: dict, source: SourceText) -> Game:
    """Validate plain data from a reelset file and build the :class:`Game`.

    Raises :class:`~workbench.errors.ReelsetError` with every problem found
    (at most :data:`MAX_PROBLEMS` listed, then one saying how many more).
    """
    return _Builder(data, source).build()
