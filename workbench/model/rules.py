"""Pay rules as registered objects: what a rule is, what it allows, how it is labelled, and where its parts live.

``[pays] rule = NAME`` names a :class:`Rule` registered here, the way ``game_module`` names a round template.  A
rule says, as data, what the file format, validation, the reports and the round templates need to know of it
(does the game have paylines, do wilds substitute, may a combination trigger read it, how a count is counted, how
its combinations are headed), and names, as ``"module:function"``, its parts in the layers above: the exact
analysis of a strip set, the classic template's round, the bound of one screen's pay, the reference evaluator's
pays of a screen.  Those are imported on first use by the layer that calls them (:func:`part`), so this module,
in the model layer, imports none of them; like the round-template registry, it refers upward by name only.

Code above dispatches through ``game.rule`` (a :class:`Rule`): ``game.rule.paylines``,
``game.rule.heading(...)``, ``part(game.rule, "analysis")(...)``; only the rules' own modules test a rule's name.
A new pay rule is its modules plus one :func:`register` call; ``tests/test_rules.py`` registers a throwaway rule
at run time and prices and simulates a game with it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

#: what a paytable count counts, by rule: symbols on a line or reels of ways (``reels``), symbols anywhere on the
#: screen (``cells``), or cells of one cluster (``cluster``)
COUNTS = ("reels", "cells", "cluster")


@dataclass(frozen=True)
class Rule:
    """A pay rule.

    Facts: ``paylines`` (the game declares ``[paylines]`` and ``[bet] lines``; the line automaton prices it),
    ``runs`` (a win is a run of adjacent reels from reel 1: combination triggers may read it, the reels bound
    its counts), ``counts`` (:data:`COUNTS`), ``directions`` (``[pays] direction`` applies), ``wilds_substitute``,
    ``groups_pay`` (``[groups]`` of symbols pay), ``bonus_awards`` (a trigger may pay a bonus award table,
    priced exactly), ``equal_reels`` (every reel must have the same rows), ``tumbles`` (the tumble template can
    cascade it: its screen pay marks the cells of every win).

    ``awards_each``: every win of a combination is an award of its listed pay (a cluster), rather than a hit
    paying its pay x the wins in it (ways: the mean award per hit).

    ``heights``: reel heights may be drawn per spin (``[grid] heights``).

    Labels: ``paytable_title`` (formatted with ``unit`` and ``side``), ``title`` (words for a report), ``per_hit`` (the combinations table's column of wins per hit, if any)
    and ``per_hit_label`` / ``pays_per`` (" per way"), ``count_label`` (a paytable column: ``"{k} of a kind"``),
    ``heading`` (the combinations table's heading, formatted with ``unit`` and ``direction``), ``hits_counted``
    (what a PAR sheet's hits count, the report's first sentence on them).

    Parts, ``"module:function"`` (None: the rule has none; lines are priced by the line automaton itself):
    ``analysis`` (exact: ``analyse(game, strip_set, scale, full_cycle=, budget=, quick=) -> RuleAnalysis``; ``quick``:
    the editors' figures, see :func:`workbench.exact.par`),
    ``classic_round`` (``round_model(game, stake) -> RoundModel``), ``screen_bound`` (``units(game, scale)``: the
    most one screen pays), ``reference`` (the reference evaluator's ``wins(game, shown, multipliers, rows, out) ->
    records``), ``reference_drop`` (its ``drop(game, shown) -> (pay, cells)`` of a tumble), ``reference_drop_wins`` (the same drop's paid wins, each ``(pay, cells)``: what position multipliers multiply), ``trigger_hit``
    (exact hit frequency of a trigger's paying game), ``award_cross`` (exact sum of weight x starts x screen pay
    for a bonus award).  ``describe(game)``: the rule in words for reports.  Validation: ``wilds_pay`` (a wild
    may have pays of its own), ``pays_where`` (where the rule finds wins, for messages), ``count_what`` (what a
    paytable count counts when it is not reels), ``check(report, rows, symbols, groups, paytable)``: what else the
    rule refuses in a file (``report(key_path, message)``).
    """

    name: str
    title: str
    paylines: bool = False
    runs: bool = False
    counts: str = "reels"
    directions: bool = False
    wilds_substitute: bool = True
    groups_pay: bool = True
    bonus_awards: bool = True
    equal_reels: bool = False
    tumbles: bool = True
    wilds_pay: bool = True
    pays_where: str = "on paylines"
    count_what: str | None = None
    awards_each: bool = False
    per_hit: str | None = None
    per_hit_label: str | None = None
    pays_per: str = ""
    count_label: str = "{k} of a kind"
    paytable_title: str = "{title} pays (x {unit}) by count"
    heights: bool = False
    heading: str = "{title} combinations (pay {unit}; rtp x total bet)"
    hits_counted: str = ("Hits are the screens, over the full cycle of equally likely stop combinations, that pay one "
                         "of the rule's combinations")
    analysis: str | None = None
    classic_round: str | None = None
    screen_bound: str | None = None
    reference: str | None = None
    reference_drop: str | None = None
    reference_drop_wins: str | None = None
    trigger_hit: str | None = None
    award_cross: str | None = None
    describe: Callable = field(default=lambda game: "")
    check: Callable | None = None


_RULES: dict = {}
_PARTS: dict = {}


def register(rule: Rule, *, replace: bool = False) -> Rule:
    """Register ``rule`` under its name (a ValueError if taken, unless ``replace``); returns it."""
    if rule.name in _RULES and not replace:
        raise ValueError(f"a pay rule named {rule.name!r} is registered already")
    _RULES[rule.name] = rule
    for key in [k for k in _PARTS if k[0] == rule.name]:
        del _PARTS[key]
    return rule


def unregister(name: str) -> None:
    """Take the rule ``name`` out (a test's throwaway rule)."""
    _RULES.pop(name, None)
    for key in [k for k in _PARTS if k[0] == name]:
        del _PARTS[key]


def names() -> tuple:
    """The registered rules' names, in registration order."""
    return tuple(_RULES)


def get(name: str) -> Rule:
    """The rule ``name`` (a KeyError naming the known rules if unknown)."""
    try:
        return _RULES[name]
    except KeyError:
        raise KeyError(f"unknown pay rule {name!r} (known: {', '.join(_RULES)})") from None


def part(rule: Rule, what: str):
    """The rule's part ``what`` (an attribute holding ``"module:function"``), imported on first use."""
    key = (rule.name, what)
    if key not in _PARTS:
        where = getattr(rule, what)
        if where is None:
            raise LookupError(f"pay rule {rule.name!r} has no {what}")
        module, _, attr = where.partition(":")
        _PARTS[key] = getattr(importlib.import_module(module), attr)
    return _PARTS[key]


#: most cells of a cluster game's screen (the evaluator's one uint64 bitboard per symbol)
CLUSTER_MAX_CELLS = 64


def _check_scatter_pays(report, rows, symbols, groups, paytable) -> None:
    for name, sym in symbols.items():
        if sym.kind == "wild":
            report(("symbols", name, "kind"), "a scatter_pays game counts symbols anywhere: wilds do not substitute in it")


def _check_cluster(report, rows, symbols, groups, paytable) -> None:
    """What a cluster game cannot have: uneven or too many cells, tall symbols, multiplier wilds, wilds that do
    not join every paying symbol (paylines, ``bet.lines``, ``[groups]`` and ``[grid] heights`` are refused with
    the other rules that have none)."""
    if rows and len(set(rows)) > 1:
        report(("grid", "rows"), f"a cluster game needs the same rows on every reel (got {list(rows)}): "
                                 "clusters join cells of neighbouring reels row by row")
    elif rows and sum(rows) > CLUSTER_MAX_CELLS:
        report(("grid",), f"a cluster game's screen has {sum(rows)} cells ({len(rows)} reels x {rows[0]} rows): "
                          f"at most {CLUSTER_MAX_CELLS}")
    for name, sym in symbols.items():
        path = ("symbols", name)
        if sym.height != 1:
            report(path + ("height",), f"{name} is a tall symbol (height {sym.height}): a cluster game has one "
                                       "symbol per cell (no tall symbols)")
        if sym.kind == "wild" and sym.carries_multiplier:
            report(path + ("multiplier",), f"{name} is a multiplier wild: a cluster game has plain wilds only")
    paying = [n for n, p in paytable.items() if n in symbols and symbols[n].kind != "wild" and any(v > 0 for v in p.values())]
    for name, sym in symbols.items():
        if sym.kind != "wild":
            continue
        missing = [n for n in paying if n not in sym.substitutes]
        if missing:
            report(("symbols", name, "substitutes"),
                   f"in a cluster game a wild joins the clusters of every paying symbol, but {name} does not "
                   f"substitute for {', '.join(missing)}: let it substitute for all of them (or make "
                   f"{missing[0]} pay nothing)")


def _ways_text(game) -> str:
    if game.heights:
        return "ways: adjacent reels from reel 1, any row; reel heights drawn per spin"
    ways = 1
    for rows in game.rows:
        ways *= rows
    return f"{ways:,} ways: adjacent reels from reel 1, any row"


_LINE_DIRECTIONS = {"left_to_right": "lines, left to right", "right_to_left": "lines, right to left",
                    "both_ways": "lines, both ways (a full-length win pays once)"}

LINES = register(Rule(
    "lines", "line", paylines=True, runs=True, directions=True,
    paytable_title="Line pays (x {unit}) by count {side}",
    heading="Line combinations (pay {unit}; hits over the full cycle, all lines{direction}; rtp x total bet)",
    hits_counted=("Hits are counted over the full cycle of equally likely stop combinations (all lines); the "
                  "probability of a line combination is per line and spin"),
    classic_round="workbench.rounds.plain:lines_round_model", screen_bound="workbench.rounds.bounds:lines_units",
    reference="workbench.reference:lines_spin_wins", reference_drop="workbench.reference:lines_drop", reference_drop_wins="workbench.reference:lines_drop_wins", award_cross="workbench.exact.triggers:lines_cross",
    describe=lambda game: _LINE_DIRECTIONS[game.pays.direction]))
WAYS = register(Rule(
    "ways", "ways", runs=True, heights=True, pays_where="on adjacent reels from reel 1", per_hit="ways_per_hit",
    paytable_title="Ways pays (x {unit} per way) by count of adjacent reels from reel 1", per_hit_label="ways per hit", pays_per=" per way",
    heading="Ways combinations (pay {unit} per way; hits: screens paying it, over the full cycle; rtp x total bet)",
    hits_counted=("Hits are the screens, over the full cycle of equally likely stop combinations, that pay a ways "
                  "combination; its RTP counts every way"),
    analysis="workbench.exact.ways:analyse_ways", classic_round="workbench.rounds.ways:round_model",
    screen_bound="workbench.rounds.bounds:ways_units", reference="workbench.reference:ways_spin_wins",
    reference_drop="workbench.reference:ways_drop", reference_drop_wins="workbench.reference:ways_drop_wins",
    trigger_hit="workbench.exact.triggers:ways_trigger_hit", award_cross="workbench.exact.triggers:ways_cross",
    describe=_ways_text))
SCATTER_PAYS = register(Rule(
    "scatter_pays", "pay-anywhere", counts="cells", wilds_substitute=False, groups_pay=False,
    pays_where="anywhere on the screen", count_what="symbols the screen shows", check=_check_scatter_pays,
    paytable_title="Pay-anywhere pays (x {unit}) by count of a symbol anywhere on the screen",
    heading="Pay-anywhere combinations (pay {unit}; count = symbols anywhere on the screen; rtp x total bet)",
    hits_counted=("Hits are the screens, over the full cycle of equally likely stop combinations, on which a "
                  "symbol's count pays"),
    analysis="workbench.exact.anywhere:analyse_scatter_pays", classic_round="workbench.rounds.anywhere:round_model",
    screen_bound="workbench.rounds.bounds:anywhere_units", reference="workbench.reference:anywhere_spin_wins",
    reference_drop="workbench.reference:anywhere_drop", reference_drop_wins="workbench.reference:anywhere_drop_wins",
    trigger_hit="workbench.exact.triggers:analysed_trigger_hit", award_cross="workbench.exact.triggers:anywhere_cross",
    describe=lambda game: "pay anywhere: a count of a symbol anywhere on the screen"))
CLUSTER = register(Rule(
    "cluster", "cluster", counts="cluster", groups_pay=False, bonus_awards=False, equal_reels=True, wilds_pay=False,
    awards_each=True,
    paytable_title="Cluster pays (x {unit} per cluster) by cluster size (largest listed size not above it)",
    pays_where="in clusters of adjacent cells", count_what="cells the screen shows (cluster sizes)", check=_check_cluster,
    per_hit="clusters_per_hit", per_hit_label="clusters per hit", pays_per=" per cluster", count_label="cluster of {k}",
    heading=("Cluster combinations (pay {unit} per cluster; count = cluster size band; hits: screens with such a "
             "cluster, over the full cycle; rtp x total bet)"),
    hits_counted=("Hits are the screens, over the full cycle of equally likely stop combinations, that hold at least "
                  "one cluster of the size band; its RTP counts every such cluster"),
    analysis="workbench.exact.cluster:analyse_cluster", classic_round="workbench.rounds.cluster:round_model",
    screen_bound="workbench.rounds.bounds:cluster_units", reference="workbench.reference:cluster_spin_wins",
    reference_drop="workbench.reference:cluster_drop", reference_drop_wins="workbench.reference:cluster_drop_wins",
    trigger_hit="workbench.exact.triggers:analysed_trigger_hit",
    describe=lambda game: "cluster pays: adjacent cells of a symbol (up, down, left, right), wilds joining; every "
                          "cluster pays"))
