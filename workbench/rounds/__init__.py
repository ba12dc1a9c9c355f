"""Round templates shipped with the workbench (see :mod:`workbench.registry`).

- ``classic`` (:mod:`.plain`): one spin paying its pay rule (lines here,
  ways in :mod:`.ways`, pay anywhere in :mod:`.anywhere`), scatters and a
  declared bonus award table; everything it pays is exact, so its simulation
  cross-checks the simulator against :mod:`workbench.exact`.
- ``free_spins`` (:mod:`.free_spins`): the classic spin plus a free-spins
  feature declared in ``[features]`` (:data:`FREE_SPINS_PARAMS`): awards by
  trigger count, retriggers with a limit, its own strip sets, a fixed or
  growing win multiplier, a minimum feature win and a feature cap.
- ``hold_and_respin`` (:mod:`.respins`): the classic spin plus a coin feature
  (:data:`HOLD_AND_RESPIN_PARAMS`).
- ``tumble`` (:mod:`.tumble`): tumbling spins on scatter_pays, ways, lines or
  cluster games with a cascade ladder, multiplier symbols and optional free
  spins (:data:`TUMBLE_PARAMS`).

A template's compiled module is imported only when a game is simulated; this
package itself is light.  The shipped games' bespoke rounds live in
:mod:`workbench.games`.
"""

from __future__ import annotations

from ..model.params import Param, parse_count
from ..registry import RoundTemplate
from .coin_wheels import COIN_WHEEL_PARAMS, check_coin_wheel
from .persisting_wilds import PERSISTING_WILDS_PARAMS, check_persisting_wilds
from .random_wilds import RANDOM_WILDS_PARAMS, check_base_random_wilds, check_random_wilds, check_screen_wilds
from .wheels import TUMBLE_WHEEL_AWARDS, WHEEL_PARAMS, check_wheel, tumble_wheel_params

PLAIN = RoundTemplate(
    name="classic",
    build="workbench.rounds.plain:round_model",
    summary="One spin paying its pay rule (lines, ways or pay anywhere), scatters and a declared bonus award; no feature "
            "rounds; everything it pays is computed exactly.",
    declared_pays=True,
    bound="workbench.rounds.bounds:classic_bound",
)

MAX_FREE_SPINS = 10_000  # most free spins one feature plays when the file declares no max_free_spins (and the upper bound)
MAX_MULTIPLIER = 10_000  # a free-spin win multiplier, start or reached by growth
MULTIPLIER_GROWTH = ("none", "per_spin", "per_win")
MULTIPLIER_WILDS = ("multiply", "add")  # the free spins' multiplier x a line's wild multiplier, or the two added up
FREE_SPIN_WILDS = ("none", "sticky", "expanding", "walking", "expanding_sticky")
CHAIN_SCATTERS = ("none", "trigger", "paid")  # the tumble's scatters: first drop only, or the whole chain (and paid)
LADDER_GROWS = ("cascade", "spin", "win")  # the free spins' ladder climbs per winning cascade, free spin or winning free spin
LADDER_APPLIES = ("drop", "chain")  # each drop's win x its rung, or the chain's total x the rung it reached
MULTIPLIER_SYMBOLS = ("multiply", "add")  # the multiplier symbols' total multiplies the chain, or adds to its rung
POSITIONS_IN = ("all", "free_spins")  # position multipliers in the base game and the free spins, or the free spins only
POSITIONS_KEEP = ("spin", "feature")  # the grid restarts every spin, or the free spins keep one for the feature
MAX_POSITION_VALUES = 1000  # entries of position_multipliers
POSITION_RULES = ("lines", "ways", "scatter_pays", "cluster")  # pay rules whose wins' cells the tumble multiplies

FREE_SPINS_PARAMS = {
    "trigger": Param("trigger", "the scatter trigger ([triggers.*] with scatter = ...) that starts the free spins"),
    "free_spins": Param("count_map", "free spins awarded by the trigger's scatter count (counts above the largest key "
                                     "award the largest key's spins); exactly one of free_spins and free_spins_table",
                        required=False, min=0, max=MAX_FREE_SPINS),
    "free_spins_table": Param("table", "free spins drawn from a [tables.*] when the feature starts: entries { spins = n, "
                                       "weight = w }, optional count = c (entries of the largest count not above the "
                                       "trigger's count); exactly one of free_spins and free_spins_table",
                              required=False),
    "free_spins_mode": Param("mode", "strip-set mode the free spins are played on (its strip sets chosen by weight)"),
    "retrigger": Param("count_map", "extra free spins by the trigger's scatter count on a free spin (absent: no "
                                    "retriggers)", required=False, min=0, max=MAX_FREE_SPINS),
    "retrigger_min_count": Param("int", "scatters a free spin needs to retrigger (absent: the trigger's min_count); may "
                                        "be fewer than the trigger needs", required=False, min=1, max=10_000),
    "retrigger_table": Param("table", "extra free spins drawn from a [tables.*] on each retrigger (entries as "
                                      "free_spins_table's; at most one of retrigger and retrigger_table)", required=False),
    "max_free_spins": Param("int", f"most free spins one feature plays, retriggers included (absent: {MAX_FREE_SPINS:,})",
                            required=False, min=1, max=MAX_FREE_SPINS),
    "multiplier": Param("int", "win multiplier of the free spins: each free spin pays its screen x this (absent: 1)",
                        required=False, min=1, max=MAX_MULTIPLIER),
    "multiplier_growth": Param("str", "how the multiplier grows: none, per_spin (after every free spin) or per_win "
                                      "(after every winning free spin)", required=False, choices=MULTIPLIER_GROWTH),
    "multiplier_step": Param("int", "what the multiplier grows by each time (absent: 1)", required=False, min=0,
                             max=MAX_MULTIPLIER),
    "max_multiplier": Param("int", f"the multiplier grows no further than this (absent: {MAX_MULTIPLIER:,})",
                            required=False, min=1, max=MAX_MULTIPLIER),
    "multiplier_wilds": Param("str", "how the multiplier meets a line win's multiplier wilds: multiply (x3 with a x2 "
                                     "wild pays x6) or add (x3 + x2 = x5; a line without a multiplier wild pays x3); "
                                     "add needs a lines game and a multiplier of 2 or more that does not grow",
                              required=False, choices=MULTIPLIER_WILDS),
    "free_spins_wilds": Param("str", "wilds of the free spins (lines games): none, sticky (a landed wild stays to the end "
                                     "of the feature), expanding (it fills its reel for that spin), walking (it moves "
                                     "one reel left on every later spin) or expanding_sticky (it fills its reel and stays "
                                     "there to the end, at most one per reel, a multiplier drawn from its table when it "
                                     "lands kept by the whole reel)", required=False, choices=FREE_SPIN_WILDS),
    "wild_symbol": Param("symbol", "the wild that sticks, expands or walks, is dropped, or that scatters turn into "
                                   "(needed with free_spins_wilds, free_spins_random_wilds, base_random_wilds and "
                                   "free_spins_persisting_wilds)", required=False),
    "min_feature_win": Param("number", "the least a feature pays, x total bet (absent: 0)", required=False, min=0,
                             max=1_000_000, pays=True),
    "feature_cap": Param("number", "the most a feature pays, x total bet: it ends when reached (absent: no cap)",
                         required=False, min=0, max=1_000_000, pays=True),
    **WHEEL_PARAMS,
    **RANDOM_WILDS_PARAMS,
    **PERSISTING_WILDS_PARAMS,
}


def check_round_limits(refs: dict, report, round_name: str, rules: tuple = ("lines", "ways"), *, table_wilds: bool = True,
                       awards: bool = True, heights: bool = True, groups: bool = False, mode_symbols: bool = True) -> None:
    """What a feature round does not play, reported where the file says it (the round model refuses the same):
    pay rules other than ``rules``; with ``table_wilds``, wilds whose multiplier is drawn from a table; with
    ``awards``, bonus award tables; with ``heights``, reel heights drawn per spin; with ``groups``, [groups]; without
    ``mode_symbols``, wilds that change per mode (``by_mode``)."""
    rule = refs["pays"].rule
    if rule not in rules:
        report(("pays", "rule"), f"the {round_name} round plays {' and '.join(rules)} games; [pays] rule = {rule!r} is not "
                                 "supported yet")
    for name, sym in refs["symbol"].items():
        if table_wilds and any(v.multiplier_table is not None for v in sym.variants):
            report(("symbols", name, "multiplier"), f"the {round_name} round does not play wilds whose multiplier is drawn "
                                                    "per landing yet; give the wild a fixed multiplier")
        elif not mode_symbols and sym.by_mode:
            report(("symbols", name, "by_mode"), f"the {round_name} round plays every mode with the same symbols: "
                                                 "by_mode is not supported by it yet")
    for name, trigger in refs["trigger"].items():
        if awards and trigger.award is not None:
            report(("triggers", name, "award"), f"the {round_name} round does not pay bonus award tables")
    if heights and refs.get("heights"):
        report(("grid", "heights"), f"the {round_name} round needs a fixed screen: reel heights drawn per spin are not "
                                    "supported")
    if groups and refs.get("groups"):
        report(("groups",), f"the {round_name} round does not pay [groups] (mixed combinations)")


def check_buy_counts(refs: dict, min_count: int, what: str, report) -> None:
    """A bought feature starts from a count the trigger could give: at least its ``min_count``."""
    for name, mode in refs.get("bet_modes", {}).items():
        key = "buy_count_table" if mode.buy_counts else "buy_count"
        for count, _ in () if mode.prize else mode.bought_counts:  # a prize mode starts from an empty screen
            if count < min_count:
                report(("bet_modes", name, key), f"{key} {'count ' if mode.buy_counts else ''}{count} is below the trigger's "
                                                 f"min_count ({min_count}): a bought feature starts as a trigger of "
                                                 f"{min_count} or more {what} would")
                break


def check_prize_strips(refs: dict, coins, report) -> None:
    """A prize mode's boards land coins (a symbol of the scatter group ``coins``) from its strips: some strip set of
    its mode shows one."""
    for name, mode in refs.get("bet_modes", {}).items():
        if mode.prize_strips is None:
            continue
        sets = [s for s in refs["strip_set"].values() if s.mode == mode.prize_strips and s.weight > 0]
        if not any(sym in coins.symbols for s in sets for strip in s.reels for sym in strip.symbols):
            report(("bet_modes", name, "strip_sets"), f"the prize mode's strips (mode {mode.prize_strips!r}) hold no "
                                                      f"{' or '.join(coins.symbols)}: no board could land a coin")


def check_forced_screens(refs: dict, report, round_name: str, trigger=None) -> None:
    """``[bet_modes.*] forced_screen = "paid"``: the free-spins round draws the screen (``trigger``: its scatter
    trigger) on fixed reels; other rounds (``trigger`` None) do not pay one yet."""
    for name, mode in refs.get("bet_modes", {}).items():
        if mode.forced_screen != "paid":
            continue
        where = ("bet_modes", name, "forced_screen")
        if trigger is None:
            report(where, f"the {round_name} round does not pay a forced trigger screen yet: leave forced_screen out "
                          "(the bought feature starts at once)")
        elif refs.get("heights"):
            report(where, "a forced trigger screen needs fixed reel heights ([grid] heights draws them per spin)")


def check_free_spins(features: dict, report, refs: dict) -> None:
    """Cross-checks of a free-spins game's ``[features]`` beyond their types (key paths from the file root)."""
    trigger = refs["trigger"][features["trigger"]]
    where = ("features", "trigger")
    if trigger.scatter is None:
        report(where, f"[triggers.{trigger.name}] is a combination trigger; the free spins start from a scatter trigger "
                      "(scatter = \"GROUP\")")
    if trigger.award is not None:
        report(where, f"[triggers.{trigger.name}] pays a bonus award table; a trigger starts one feature: give the free "
                      "spins a trigger of their own")
    retrigger_min = features.get("retrigger_min_count", trigger.min_count)
    if "retrigger_min_count" in features and "retrigger" not in features and "retrigger_table" not in features:
        report(("features", "retrigger_min_count"), "retrigger_min_count needs retrigger or retrigger_table (the spins a "
                                                    "retrigger adds)")
    for key, least, what in (("free_spins", trigger.min_count, "the trigger's min_count"),
                             ("retrigger", retrigger_min, "retrigger_min_count" if "retrigger_min_count" in features
                              else "the trigger's min_count")):
        spins = features.get(key, {})
        for count, value in spins.items():
            number = parse_count(count)
            if isinstance(value, float) and not value.is_integer():
                report(("features", key), f"free spins for {count} must be a whole number, got {value!r}")
            elif number is not None and number < least:
                report(("features", key), f"count {count} is below {what} ({least}): a "
                                          f"{key.replace('_', ' ')} needs at least {least}")
    check_buy_counts(refs, trigger.min_count, "scatters", report)
    for fixed, drawn in (("free_spins", "free_spins_table"), ("retrigger", "retrigger_table")):
        if fixed in features and drawn in features:
            report(("features", drawn), f"give {fixed} (spins by count) or {drawn} (spins drawn from a table), not both")
        elif drawn in features:
            _check_spins_table(refs["table"][features[drawn]], drawn,
                               retrigger_min if drawn == "retrigger_table" else trigger.min_count, report)
    if "free_spins" not in features and "free_spins_table" not in features:
        report(("features",), "the free spins need free_spins = { count = spins } or free_spins_table = \"TABLE\"")
    elif "free_spins" in features:
        award = {parse_count(k): v for k, v in features["free_spins"].items()}
        if not any(v >= 1 for v in award.values()):
            report(("features", "free_spins"), "every count awards 0 free spins: the feature would never play")
    if features["free_spins_mode"] == "base":
        report(("features", "free_spins_mode"), "the free spins need strip sets of their own mode (not \"base\")")
    _check_free_spins_wilds(features, report, refs)
    _check_multiplier_wilds(features, report, refs)
    growth = features.get("multiplier_growth", "none")
    for key in ("multiplier_step", "max_multiplier"):
        if key in features and growth == "none":
            report(("features", key), f"{key} needs multiplier_growth = \"per_spin\" or \"per_win\"")
    if features.get("max_multiplier", MAX_MULTIPLIER) < features.get("multiplier", 1):
        report(("features", "max_multiplier"), f"max_multiplier {features['max_multiplier']} is below the starting "
                                               f"multiplier {features.get('multiplier', 1)}")
    if features.get("feature_cap", 1) <= 0:
        report(("features", "feature_cap"), "feature_cap must be above 0 x total bet (leave it out for no cap)")
    elif "feature_cap" in features and features["feature_cap"] < features.get("min_feature_win", 0):
        report(("features", "feature_cap"), f"feature_cap {features['feature_cap']} is below min_feature_win "
                                            f"{features['min_feature_win']} (x total bet)")


def _check_spins_table(table, key: str, min_count: int, report) -> None:
    """The entries of a free-spins table (``free_spins_table`` / ``retrigger_table``): ``spins`` = a whole number
    0..MAX_FREE_SPINS, optional ``count`` = the least trigger count the entry is drawn for (every entry or none),
    a positive total weight for each count, and some entry of positive weight awarding 1 spin or more."""
    from ..model.params import MAX_COUNT, describe

    by_count: dict = {}
    ok = True
    for i, (entry, weight) in enumerate(zip(table.entries, table.weights)):
        path = ("tables", table.name, "entries", i)
        extra = sorted(set(entry) - {"spins", "count"})
        if extra:
            report(path + (extra[0],), f"unknown key {extra[0]!r} in a free-spins table entry (read by [features] {key}: "
                                       "{ spins = n, weight = w }, optional count = c)")
            ok = False
        spins = entry.get("spins")
        if spins is None:
            report(path, f"a free-spins table entry needs spins = n (read by [features] {key})")
            ok = False
        elif isinstance(spins, bool) or not isinstance(spins, int) or not 0 <= spins <= MAX_FREE_SPINS:
            report(path + ("spins",), f"spins must be a whole number 0 to {MAX_FREE_SPINS:,}, got {describe(spins)}")
            ok = False
        if "count" in entry:
            count = parse_count(entry["count"]) if isinstance(entry["count"], int) else None
            if count is None:
                report(path + ("count",), f"count must be a whole number 1 to {MAX_COUNT:,}, got {describe(entry['count'])}")
                ok = False
            elif count < min_count:
                report(path + ("count",), f"count {count} is below the trigger's min_count ({min_count})")
                ok = False
            else:
                by_count.setdefault(count, []).append((spins, weight))
        else:
            by_count.setdefault(None, []).append((spins, weight))
    if not ok:
        return
    if None in by_count and len(by_count) > 1:
        report(("tables", table.name, "entries"), f"either every entry of a free-spins table names its count or none "
                                                  f"does (read by [features] {key})")
        return
    for count, rows in sorted(by_count.items(), key=lambda kv: kv[0] or 0):
        if sum(w for _, w in rows) == 0:
            report(("tables", table.name, "entries"), f"the entries for count {count} have weights adding up to 0")
    if not any(s >= 1 and w > 0 for rows in by_count.values() for s, w in rows):
        report(("tables", table.name, "entries"), f"every entry awards 0 free spins (read by [features] {key}): "
                                                  + ("the feature would never play" if key == "free_spins_table"
                                                     else "leave retrigger_table out for no retriggers"))


def _check_multiplier_wilds(features: dict, report, refs: dict) -> None:
    """``multiplier_wilds = "add"``: a line's multipliers add up, which the compiled free spins price with one line
    automaton per multiplier; so a lines game and one fixed multiplier above x1."""
    if features.get("multiplier_wilds", "multiply") != "add":
        return
    where = ("features", "multiplier_wilds")
    if not refs["pays"].definition.paylines:
        report(where, f"multiplier_wilds = \"add\" adds a line's wild multipliers to the free-spins multiplier: it is "
                      f"played on lines games (this one pays {refs['pays'].rule}); use multiplier_wilds = \"multiply\"")
    elif features.get("multiplier_growth", "none") != "none":
        report(where, "multiplier_wilds = \"add\" needs a multiplier that does not grow (multiplier_growth = \"none\"): "
                      "which of a line's wins pays most under the sum depends on the multiplier")
    elif int(features.get("multiplier", 1)) < 2:
        report(where, "multiplier_wilds = \"add\" adds the wilds' multipliers to the free-spins multiplier, which is x1 "
                      "here (the same as \"multiply\"): give multiplier = 2 or more, or leave multiplier_wilds out")


def _check_free_spins_wilds(features: dict, report, refs: dict) -> None:
    """Sticky, expanding or walking wilds of the free spins: a lines game, a one-row wild named, one-row scatters."""
    wilds = features.get("free_spins_wilds", "none")
    if wilds != "none" and not refs["pays"].definition.paylines:
        report(("features", "free_spins_wilds"), f"{wilds} wilds are played on lines games (this one pays {refs['pays'].rule})")
    elif wilds != "none":
        check_screen_wilds(features, report, refs, ("features", "free_spins_wilds"),
                           f"{wilds} wilds need wild_symbol = the wild that is {wilds}",
                           f"{wilds} wilds count scatters on the final screen")
    elif "wild_symbol" in features and not ({"free_spins_random_wilds", "base_random_wilds",
                                             "free_spins_persisting_wilds"} & set(features)):
        report(("features", "wild_symbol"), "wild_symbol needs free_spins_wilds = \"sticky\", \"expanding\", \"walking\" or "
                                            "\"expanding_sticky\", free_spins_random_wilds, base_random_wilds or "
                                            "free_spins_persisting_wilds")


def check_free_spins_round(features: dict, report, refs: dict) -> None:
    """The ``free_spins`` template's checks: the feature's (:func:`check_free_spins`) and what its round plays."""
    check_round_limits(refs, report, "free-spins", heights=False, table_wilds=False)
    check_free_spins(features, report, refs)
    check_wheel(features, report, refs)
    check_random_wilds(features, report, refs)
    check_base_random_wilds(features, report, refs)
    check_persisting_wilds(features, report, refs)
    check_forced_screens(refs, report, "free-spins", refs["trigger"][features["trigger"]])
    mode = features.get("free_spins_mode")
    if features.get("free_spins_wilds", "none") not in ("none", "expanding_sticky"):  # the one that draws on landing
        drawn = [name for name, sym in refs["symbol"].items() if sym.in_mode(mode).multiplier_table is not None]
        if drawn:
            report(("features", "free_spins_wilds"), f"sticky, expanding and walking wilds are not played beside wilds "
                                                     f"whose multiplier is drawn per landing ({drawn[0]} in mode {mode!r})")


FREE_SPINS = RoundTemplate(
    name="free_spins",
    build="workbench.rounds.free_spins:round_model",
    params=FREE_SPINS_PARAMS,
    check=check_free_spins_round,
    summary="The classic spin (lines or ways, scatters) plus declared free spins: spins by trigger count or drawn from a "
            "weighted table, retriggers up to a limit, their own strip sets, a fixed or growing win multiplier, sticky, "
            "expanding or walking wilds, a wheel award (cash, extra and meter spins, re-spins), a minimum feature win and a "
            "feature cap; the base game is exact, the feature "
            "simulated (exact + conditional by trigger count).",
    declared_pays=True,
    buys=True,
    bound="workbench.rounds.bounds:free_spins_bound",
)


JACKPOTS = ("mini", "minor", "major")
MAX_CELLS_VALUE = 1_000_000  # a coin value or jackpot, x total bet

HOLD_AND_RESPIN_PARAMS = {
    "trigger": Param("trigger", "the scatter trigger ([triggers.*] on the coin scatter group, min_count = coins needed, "
                                "e.g. 6) that starts the hold and respin feature"),
    "coin_values": Param("table", "value of each coin, drawn when it lands: entries value = x total bet, jackpot = "
                                  "\"mini\" | \"minor\" | \"major\", collector = true (collects the value coins on "
                                  "the screen), multiplier = m (the coins' total x m at the end) or wheel = \"TABLE\" "
                                  "(its value: one award of that wheel of cash and respin segments)", pays="value"),
    "respins": Param("int", "respins granted at the start and again whenever a new coin lands (absent: 3)",
                     required=False, min=1, max=100),
    "respin_coin_weight": Param("int", "on a respin each empty cell shows a new coin with this weight ...", min=0,
                                max=10**9),
    "respin_blank_weight": Param("int", "... against this one (nothing lands)", min=0, max=10**9),
    "mini": Param("number", "the Mini jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE, pays=True),
    "minor": Param("number", "the Minor jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE, pays=True),
    "major": Param("number", "the Major jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE, pays=True),
    "grand": Param("number", "the Grand jackpot, x total bet, paid on top when coins fill the screen (absent: none)",
                   required=False, min=0, max=MAX_CELLS_VALUE, pays=True),
    **COIN_WHEEL_PARAMS,
}


def check_hold_and_respin(features: dict, report, refs: dict) -> None:
    """Cross-checks of a hold-and-respin game's ``[features]`` (key paths from the file root)."""
    check_round_limits(refs, report, "hold-and-respin")
    cells = sum(refs.get("rows") or ())
    for name, mode in refs.get("bet_modes", {}).items():
        top = max([c for c, _ in mode.bought_counts], default=0)
        if cells and mode.buy and top > cells:
            report(("bet_modes", name, "buy_count_table" if mode.buy_counts else "buy_count"),
                   f"bet mode {name!r} buys {top} coins, more than the {cells} cells of the screen")
    trigger = refs["trigger"][features["trigger"]]
    if trigger.scatter is None:
        report(("features", "trigger"), f"[triggers.{trigger.name}] is a combination trigger; hold and respin starts from "
                                        "coins counted by a scatter group (scatter = \"COINS\")")
    elif refs["scatter"][trigger.scatter].counting != "anywhere":
        report(("features", "trigger"), f"the coins of [scatters.{trigger.scatter}] must be counted anywhere on the screen")
    if trigger.award is not None:
        report(("features", "trigger"), f"[triggers.{trigger.name}] pays a bonus award table; give hold and respin a "
                                        "trigger of its own")
    check_buy_counts(refs, trigger.min_count, "coins", report)
    if trigger.scatter is not None:
        check_prize_strips(refs, refs["scatter"][trigger.scatter], report)
    check_forced_screens(refs, report, "hold-and-respin")
    table = refs["table"][features["coin_values"]]
    for i, entry in enumerate(table.entries):
        path = ("tables", table.name, "entries", i)
        keys = set(entry) - {"weight"}
        if keys == {"value"}:
            value = entry["value"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_CELLS_VALUE:
                report(path + ("value",), f"a coin value is a number 0 to {MAX_CELLS_VALUE:,} (x total bet), got {value!r}")
        elif keys == {"collector"}:
            if entry["collector"] is not True:
                report(path + ("collector",), f"collector = true marks a collector coin, got {entry['collector']!r}")
        elif keys == {"multiplier"}:
            m = entry["multiplier"]
            if isinstance(m, bool) or not isinstance(m, int) or not 2 <= m <= MAX_MULTIPLIER:
                report(path + ("multiplier",), f"a multiplier coin's multiplier is a whole number 2 to "
                                               f"{MAX_MULTIPLIER:,}, got {m!r}")
        elif keys == {"wheel"}:
            pass  # checked with the wheel (check_coin_wheel)
        elif keys == {"jackpot"}:
            if entry["jackpot"] not in JACKPOTS:
                report(path + ("jackpot",), f"jackpot must be one of {', '.join(JACKPOTS)}, got {entry['jackpot']!r}")
            elif entry["jackpot"] not in features:
                report(path + ("jackpot",), f"a {entry['jackpot']} coin needs [features] {entry['jackpot']} = its value "
                                            "(x total bet)")
        else:
            report(path, "a coin is value = x total bet, jackpot = \"mini\" | \"minor\" | \"major\", collector = true, "
                         "multiplier = m or wheel = \"TABLE\" (exactly one of these)")
    check_coin_wheel(features, report, refs)
    if features["respin_coin_weight"] + features["respin_blank_weight"] <= 0:
        report(("features", "respin_blank_weight"), "respin_coin_weight + respin_blank_weight must be above 0")


HOLD_AND_RESPIN = RoundTemplate(
    name="hold_and_respin",
    build="workbench.rounds.respins:round_model",
    params=HOLD_AND_RESPIN_PARAMS,
    check=check_hold_and_respin,
    summary="The classic spin (lines or ways, scatters) plus a hold and respin coin feature: enough coins start it; coins "
            "stick, each with a value (x total bet), a fixed jackpot (mini, minor, major), a collector, a multiplier or a "
            "wheel award drawn from a table; respins reset when a new coin lands; a full screen adds the grand jackpot. The base game is exact, the feature "
            "simulated (exact + conditional by starting coin count).",
    declared_pays=True,
    buys=True,
    prize_modes=True,
    bound="workbench.rounds.bounds:hold_and_respin_bound",
)


TUMBLE_RULES = ("scatter_pays", "ways", "lines", "cluster")
MAX_CASCADES = 1000  # cascades of one spin's chain when the file declares no max_cascades (and the upper bound)

TUMBLE_PARAMS = {
    "cascade_multipliers": Param("int_list", "win multiplier of each drop of a spin's chain in the base game: the first "
                                             "drop pays x the first entry, the next cascade x the second, ... (the last "
                                             "repeats; absent: [1])", required=False, min=1, max=MAX_MULTIPLIER),
    "free_spins_cascade_multipliers": Param("int_list", "the same ladder in free spins (absent: the base game's)",
                                            required=False, min=1, max=MAX_MULTIPLIER),
    "free_spins_ladder_carries": Param("bool", "free spins: the ladder climbs on from spin to spin (a spin's first drop one "
                                               "step above where the last winning spin ended) instead of restarting "
                                               "(absent: false)", required=False),
    "ladder_step": Param("int", "the ladder as a global multiplier: after its last entry each further rung is this much "
                                "higher (absent: the last entry repeats)", required=False, min=1, max=MAX_MULTIPLIER),
    "ladder_cap": Param("int", "the highest rung a ladder_step ladder climbs to (absent: no cap)", required=False, min=1,
                        max=MAX_MULTIPLIER),
    "ladder_applies": Param("str", "what a rung multiplies: drop (each drop's win x its own rung) or chain (the chain's "
                                   "total x the rung it reached) (absent: drop)", required=False, choices=LADDER_APPLIES),
    "free_spins_ladder_step": Param("int", "the free spins' ladder as a global multiplier: after its last entry each "
                                           "further rung is this much higher (absent: the base game's ladder_step)",
                                    required=False, min=1, max=MAX_MULTIPLIER),
    "free_spins_ladder_cap": Param("int", "the highest rung the free spins' ladder climbs to (absent: the base game's "
                                          "ladder_cap)", required=False, min=1, max=MAX_MULTIPLIER),
    "free_spins_ladder_grows": Param("str", "what moves the free spins' ladder a rung up: cascade (each winning cascade), "
                                            "spin (each free spin after the first, for the whole feature; the cascades "
                                            "of a spin stay on its rung) or win (each free spin whose drops win, for "
                                            "the next spins) (absent: cascade)", required=False,
                                     choices=LADDER_GROWS),
    "multiplier_symbols": Param("str", "what the multiplier symbols' total does to a winning chain: multiply (its pay "
                                       "x the total) or add (the total is added to the rung that multiplies the chain; "
                                       "needs ladder_applies = chain) (absent: multiply)", required=False,
                                choices=MULTIPLIER_SYMBOLS),
    "position_multipliers": Param("int_list", "a grid cell's multiplier after the 1st, 2nd, ... win on it (the last "
                                              "repeats; 0 marks the cell only); a win (cluster, symbol anywhere, ways, "
                                              "line) pays x the sum of its cells' multipliers (x1 when 0) (absent: none)",
                                  required=False, min=0, max=MAX_MULTIPLIER),
    "position_multipliers_in": Param("str", "where the grid plays: all (base game and free spins) or free_spins "
                                            "(absent: all)", required=False, choices=POSITIONS_IN),
    "position_multipliers_keep": Param("str", "how long the grid lives: spin (it restarts with every spin: one chain) "
                                              "or feature (the free spins keep one grid for the whole feature) (absent: "
                                              "spin)", required=False, choices=POSITIONS_KEEP),
    "max_cascades": Param("int", f"most cascades of one spin's chain (absent: {MAX_CASCADES:,}; 0: no tumbles, each "
                                 "spin pays its spun screen only)", required=False, min=0, max=MAX_CASCADES),
    "refill_mode": Param("mode", "strip-set mode whose strips drop the new symbols, from a stop drawn per spin (absent: "
                                 "each reel's own strip continues above the window)", required=False),
    "multiplier_symbol": Param("symbol", "a one-row bonus symbol carrying a multiplier drawn from multiplier_values when "
                                         "it lands; it stays on the screen", required=False),
    "multiplier_values": Param("table", "the multiplier symbol's values: entries value = the multiplier, weight",
                               required=False),
    "persistent_multiplier": Param("bool", "free spins: multiplier symbols add to a feature multiplier that multiplies "
                                           "every later winning chain (absent: true)", required=False),
    "trigger": Param("trigger", "the scatter trigger that starts the free spins, counted on a spin's first drop",
                     required=False),
    "free_spins": Param("count_map", "free spins awarded by the trigger's count on the first drop (needed with trigger; "
                                     "counts above the largest key award the largest key's spins)", required=False, min=0,
                        max=MAX_FREE_SPINS),
    "free_spins_mode": Param("mode", "strip-set mode the free spins are played on (needed with trigger)", required=False),
    "retrigger": FREE_SPINS_PARAMS["retrigger"],
    "max_free_spins": FREE_SPINS_PARAMS["max_free_spins"],
    "free_spins_per_scatter": Param("int", "free spins per scatter of the trigger's count instead of free_spins (2: "
                                           "4 scatters award 8)", required=False, min=1, max=MAX_FREE_SPINS),
    "retrigger_per_scatter": Param("int", "spins a retrigger adds per scatter instead of retrigger", required=False, min=1,
                                          max=MAX_FREE_SPINS),
    "chain_scatters": Param("str", "scatters counted over the whole chain: none (the first drop only), trigger (those "
                                   "that drop in during the cascades count for triggers and retriggers) or paid (they "
                                   "also pay: the scatter pays of the final screen, the rest of them in tumble) (absent: "
                                   "none)", required=False, choices=CHAIN_SCATTERS),
    **tumble_wheel_params(),
}


def check_tumble(features: dict, report, refs: dict) -> None:
    """Cross-checks of a tumble game's ``[features]`` (key paths from the file root)."""
    check_round_limits(refs, report, "tumble", TUMBLE_RULES, table_wilds=False, groups=True, mode_symbols=False)
    check_forced_screens(refs, report, "tumble")
    if refs["pays"].definition.directions and refs["pays"].direction != "left_to_right":
        report(("pays", "direction"), "the tumble round pays lines left to right only")
    symbols = refs["symbol"]
    for name, sym in symbols.items():
        if sym.height != 1:
            report(("symbols", name, "height"), f"a tumble game's symbols are one row tall ({name} is {sym.height})")
        if sym.carries_multiplier:
            report(("symbols", name, "multiplier"), "the tumble round does not play multiplier wilds: use "
                                                   "[features] multiplier_symbol")
    if ("multiplier_symbol" in features) != ("multiplier_values" in features):
        report(("features", "multiplier_symbol" if "multiplier_symbol" in features else "multiplier_values"),
               "multiplier_symbol and multiplier_values go together (the symbol and the table of its values)")
    if "multiplier_symbol" in features and "multiplier_values" in features:
        sym = symbols[features["multiplier_symbol"]]
        if sym.kind != "bonus":
            report(("features", "multiplier_symbol"), f"{sym.name!r} must be a bonus symbol (kind = \"bonus\"): it pays "
                                                      "nothing and is never removed by a win")
        table = refs["table"][features["multiplier_values"]]
        for i, entry in enumerate(table.entries):
            value = entry.get("value")
            if set(entry) - {"weight"} != {"value"} or isinstance(value, bool) or not isinstance(value, int) \
                    or not 1 <= value <= MAX_MULTIPLIER:
                report(("tables", table.name, "entries", i), f"a multiplier symbol's entry is value = a whole number 1 to "
                                                             f"{MAX_MULTIPLIER:,} (and its weight), got {entry!r}")
    check_ladders(features, report)
    check_positions(features, report, refs["pays"])
    fs_keys = ("free_spins", "free_spins_mode", "retrigger", "max_free_spins", "free_spins_ladder_step",
               "free_spins_ladder_cap", "free_spins_ladder_grows", "wheel")
    if "trigger" not in features:
        for key in fs_keys + ("free_spins_per_scatter", "retrigger_per_scatter", "chain_scatters"):
            if key in features:
                report(("features", key), f"{key} needs trigger = the scatter trigger that starts the free spins")
        for name, mode in refs.get("bet_modes", {}).items():
            if mode.buy:
                report(("bet_modes", name, "buy"), "a bought feature needs free spins ([features] trigger = ...)")
        return
    for fixed, per in (("free_spins", "free_spins_per_scatter"), ("retrigger", "retrigger_per_scatter")):
        if fixed in features and per in features:
            report(("features", per), f"give {fixed} (spins by count) or {per} (spins per scatter), not both")
    if "free_spins" not in features and "free_spins_per_scatter" not in features:
        report(("features", "free_spins"), "free spins need free_spins (or free_spins_per_scatter) with trigger")
    if "free_spins_mode" not in features:
        report(("features", "free_spins_mode"), "free spins need free_spins_mode (with trigger)")
    if "free_spins_mode" in features and ("free_spins" in features or "free_spins_per_scatter" in features):
        least = str(refs["trigger"][features["trigger"]].min_count)
        checked = dict(features)  # a per-scatter award passes the map checks as an award at the trigger's least count
        for key in ("free_spins", "retrigger"):
            if f"{key}_per_scatter" in features:
                checked[key] = {least: 1}
        check_free_spins(checked, report, refs)
    check_wheel(features, report, refs, TUMBLE_WHEEL_AWARDS, "the tumble template's wheel has no meter spins")
    if features.get("refill_mode") == "base":
        report(("features", "refill_mode"), "refill strips need strip sets of their own mode (not \"base\")")


def check_ladders(features: dict, report) -> None:
    """The ladders of a tumble game as global multipliers: a cap needs a step and is above the listed rungs; growth
    per free spin carries through the feature by itself; symbols add to a rung that multiplies the chain."""
    base = features.get("cascade_multipliers") or [1]
    for prefix, ladder, step_key in (("", base, "ladder_step"),
                                     ("free_spins_", features.get("free_spins_cascade_multipliers") or base,
                                      "free_spins_ladder_step")):
        cap_key = prefix + "ladder_cap"
        if cap_key not in features:
            continue
        step = features.get(step_key, features.get("ladder_step") if prefix else None)
        if step is None:
            report(("features", cap_key), f"a cap needs {step_key}: without a step the ladder's last entry repeats, so "
                                          "it never climbs to a cap")
        elif isinstance(features[cap_key], int) and all(isinstance(v, int) for v in ladder) \
                and features[cap_key] < max(ladder):
            report(("features", cap_key), f"the cap {features[cap_key]:,} is below the ladder's entry {max(ladder):,}: "
                                          "raise the cap or lower the entry")
    if features.get("free_spins_ladder_grows") in ("spin", "win") and features.get("free_spins_ladder_carries"):
        report(("features", "free_spins_ladder_carries"), "a ladder growing per free spin (or winning free spin) "
                                                          "already carries through the feature: drop "
                                                          "free_spins_ladder_carries")
    if features.get("multiplier_symbols") == "add":
        if "multiplier_symbol" not in features:
            report(("features", "multiplier_symbols"), "multiplier_symbols = \"add\" needs multiplier_symbol (and "
                                                       "multiplier_values)")
        if features.get("ladder_applies", "drop") != "chain":
            report(("features", "multiplier_symbols"), "symbols that add to the rung need ladder_applies = \"chain\" "
                                                       "(one rung multiplies the chain's total)")


def check_positions(features: dict, report, pays) -> None:
    """Cross-checks of the position multipliers of a tumble game's ``[features]`` (key paths from the file root)."""
    values = features.get("position_multipliers")
    for key in ("position_multipliers_in", "position_multipliers_keep"):
        if key in features and values is None:
            report(("features", key), f"{key} needs position_multipliers (a cell's multiplier after each win on it)")
    if values is None:
        return
    if pays.rule not in POSITION_RULES:  # the rules whose wins' cells the tumble knows
        report(("features", "position_multipliers"), f"position multipliers are played on {', '.join(POSITION_RULES)} "
                                                     f"pays, not [pays] rule = {pays.rule!r}")
    if isinstance(values, list):
        if not values or len(values) > MAX_POSITION_VALUES:
            report(("features", "position_multipliers"), f"list 1 to {MAX_POSITION_VALUES:,} multipliers, one per "
                                                         "win on a cell (the last repeats)")
        falls = [i for i in range(1, len(values)) if isinstance(values[i], int) and isinstance(values[i - 1], int)
                 and values[i] < values[i - 1]]
        if falls:
            i = falls[0]
            report(("features", "position_multipliers"), f"a cell's multiplier never falls: entry {i + 1} ({values[i]:,}) "
                                                         f"is below entry {i} ({values[i - 1]:,})")
    needs_feature = features.get("position_multipliers_in") == "free_spins" or \
        features.get("position_multipliers_keep") == "feature"
    if needs_feature and "trigger" not in features:
        report(("features", "position_multipliers_in" if features.get("position_multipliers_in") == "free_spins"
                else "position_multipliers_keep"), "free-spin position multipliers need free spins ([features] trigger)")


TUMBLE = RoundTemplate(
    name="tumble",
    build="workbench.rounds.tumble:round_model",
    params=TUMBLE_PARAMS,
    check=check_tumble,
    summary="Tumbling spins (pay anywhere, ways, lines or cluster pays): a win's symbols are removed, the rest fall and new "
            "ones drop in from the strip above (or refill strips) while the chain wins; a cascade multiplier ladder; "
            "multiplier symbols that multiply a winning chain (and add up over free spins); optional free spins from a "
            "scatter trigger on the first drop. The first drop is exact, the chain and the free spins simulated (exact + "
            "conditional: a tumble stratum and one per trigger count).",
    declared_pays=True,
    buys=True,
    exact_part="first drop",
    bound="workbench.rounds.bounds:tumble_bound",
)
