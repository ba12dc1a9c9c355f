"""Round templates shipped with the workbench (see :mod:`workbench.registry`).

- ``classic`` (:mod:`.plain`): one spin paying its pay rule (lines here,
  ways in :mod:`.ways`, pay anywhere in :mod:`.anywhere`), scatters and a
  declared bonus award table; everything it pays is exact, so its simulation
  cross-checks the simulator against :mod:`workbench.exact`.
- ``free_spins`` (:mod:`.free_spins`): the classic spin plus a free-spins
  feature declared in ``[features]`` (:data:`FREE_SPINS_PARAMS`): awards by
  trigger count, retriggers with a limit, its own strip sets, a fixed or
  growing win multiplier, a minimum feature win and a feature cap.

A template's compiled module is imported only when a game is simulated; this
package itself is light.  The shipped games' bespoke rounds live in
:mod:`workbench.games`.
"""

from __future__ import annotations

from ..model.params import Param, parse_count
from ..registry import RoundTemplate

PLAIN = RoundTemplate(
    name="classic",
    build="workbench.rounds.plain:round_model",
    summary="One spin paying its pay rule (lines, ways or pay anywhere), scatters and a declared bonus award; no feature "
            "rounds; everything it pays is computed exactly.",
    declared_pays=True,
)

MAX_FREE_SPINS = 10_000  # most free spins one feature plays when the file declares no max_free_spins (and the upper bound)
MAX_MULTIPLIER = 10_000  # a free-spin win multiplier, start or reached by growth
MULTIPLIER_GROWTH = ("none", "per_spin", "per_win")
FREE_SPIN_WILDS = ("none", "sticky", "expanding", "walking")

FREE_SPINS_PARAMS = {
    "trigger": Param("trigger", "the scatter trigger ([triggers.*] with scatter = ...) that starts the free spins"),
    "free_spins": Param("count_map", "free spins awarded by the trigger's scatter count (counts above the largest key "
                                     "award the largest key's spins)", min=0, max=MAX_FREE_SPINS),
    "free_spins_mode": Param("mode", "strip-set mode the free spins are played on (its strip sets chosen by weight)"),
    "retrigger": Param("count_map", "extra free spins by the trigger's scatter count on a free spin (absent: no "
                                    "retriggers)", required=False, min=0, max=MAX_FREE_SPINS),
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
    "free_spins_wilds": Param("str", "wilds of the free spins (lines games): none, sticky (a landed wild stays to the end "
                                     "of the feature), expanding (it fills its reel for that spin) or walking (it moves "
                                     "one reel left on every later spin)", required=False, choices=FREE_SPIN_WILDS),
    "wild_symbol": Param("symbol", "the wild that sticks, expands or walks (needed with free_spins_wilds)", required=False),
    "min_feature_win": Param("number", "the least a feature pays, x total bet (absent: 0)", required=False, min=0,
                             max=1_000_000),
    "feature_cap": Param("number", "the most a feature pays, x total bet: it ends when reached (absent: no cap)",
                         required=False, min=0, max=1_000_000),
}


def check_buy_counts(refs: dict, min_count: int, what: str, report) -> None:
    """A bought feature starts from a count the trigger could give: at least its ``min_count``."""
    for name, mode in refs.get("bet_modes", {}).items():
        if mode.buy and mode.buy_count is not None and mode.buy_count < min_count:
            report(("bet_modes", name, "buy_count"), f"buy_count {mode.buy_count} is below the trigger's min_count "
                                                   f"({min_count}): a bought feature starts as a trigger of {min_count} "
                                                   f"or more {what} would")


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
    for key in ("free_spins", "retrigger"):
        spins = features.get(key, {})
        for count, value in spins.items():
            number = parse_count(count)
            if isinstance(value, float) and not value.is_integer():
                report(("features", key), f"free spins for {count} must be a whole number, got {value!r}")
            elif number is not None and number < trigger.min_count:
                report(("features", key), f"count {count} is below the trigger's min_count ({trigger.min_count}): a "
                                          f"{key.replace('_', ' ')} needs at least {trigger.min_count}")
    check_buy_counts(refs, trigger.min_count, "scatters", report)
    award = {parse_count(k): v for k, v in features["free_spins"].items()}
    if not any(v >= 1 for v in award.values()):
        report(("features", "free_spins"), "every count awards 0 free spins: the feature would never play")
    if features["free_spins_mode"] == "base":
        report(("features", "free_spins_mode"), "the free spins need strip sets of their own mode (not \"base\")")
    wilds = features.get("free_spins_wilds", "none")
    if wilds != "none" and refs["pays"].rule != "lines":
        report(("features", "free_spins_wilds"), f"{wilds} wilds are played on lines games (this one pays {refs['pays'].rule})")
    elif wilds != "none":
        symbols = refs["symbol"]
        if "wild_symbol" not in features:
            report(("features", "free_spins_wilds"), f"{wilds} wilds need wild_symbol = the wild that is {wilds}")
        elif symbols[features["wild_symbol"]].kind != "wild" or symbols[features["wild_symbol"]].height != 1:
            report(("features", "wild_symbol"), f"{features['wild_symbol']!r} must be a wild one row tall")
        for group in refs["scatter"].values():
            tall = [n for n in group.symbols if symbols[n].height != 1]
            if tall:
                report(("scatters", group.name), f"{wilds} wilds count scatters on the final screen: the symbols of a "
                                                 f"scatter group must be one row tall ({', '.join(tall)} is not)")
    elif "wild_symbol" in features:
        report(("features", "wild_symbol"), "wild_symbol needs free_spins_wilds = \"sticky\", \"expanding\" or \"walking\"")
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


FREE_SPINS = RoundTemplate(
    name="free_spins",
    build="workbench.rounds.free_spins:round_model",
    params=FREE_SPINS_PARAMS,
    check=check_free_spins,
    summary="The classic spin (lines, ways or pay anywhere, scatters) plus declared free spins: spins by trigger count, "
            "retriggers up to a limit, their own strip sets, a fixed or growing win multiplier, a minimum feature win "
            "and a feature cap; the base game is exact, the feature simulated (exact + conditional by trigger count).",
    declared_pays=True,
    buys=True,
)


JACKPOTS = ("mini", "minor", "major")
MAX_CELLS_VALUE = 1_000_000  # a coin value or jackpot, x total bet

HOLD_AND_RESPIN_PARAMS = {
    "trigger": Param("trigger", "the scatter trigger ([triggers.*] on the coin scatter group, min_count = coins needed, "
                                "e.g. 6) that starts the hold and respin feature"),
    "coin_values": Param("table", "value of each coin, drawn when it lands: entries value = x total bet, or jackpot = "
                                  "\"mini\" | \"minor\" | \"major\""),
    "respins": Param("int", "respins granted at the start and again whenever a new coin lands (absent: 3)",
                     required=False, min=1, max=100),
    "respin_coin_weight": Param("int", "on a respin each empty cell shows a new coin with this weight ...", min=0,
                                max=10**9),
    "respin_blank_weight": Param("int", "... against this one (nothing lands)", min=0, max=10**9),
    "mini": Param("number", "the Mini jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE),
    "minor": Param("number", "the Minor jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE),
    "major": Param("number", "the Major jackpot, x total bet", required=False, min=0, max=MAX_CELLS_VALUE),
    "grand": Param("number", "the Grand jackpot, x total bet, paid on top when coins fill the screen (absent: none)",
                   required=False, min=0, max=MAX_CELLS_VALUE),
}


def check_hold_and_respin(features: dict, report, refs: dict) -> None:
    """Cross-checks of a hold-and-respin game's ``[features]`` (key paths from the file root)."""
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
    table = refs["table"][features["coin_values"]]
    for i, entry in enumerate(table.entries):
        path = ("tables", table.name, "entries", i)
        keys = set(entry) - {"weight"}
        if keys == {"value"}:
            value = entry["value"]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_CELLS_VALUE:
                report(path + ("value",), f"a coin value is a number 0 to {MAX_CELLS_VALUE:,} (x total bet), got {value!r}")
        elif keys == {"jackpot"}:
            if entry["jackpot"] not in JACKPOTS:
                report(path + ("jackpot",), f"jackpot must be one of {', '.join(JACKPOTS)}, got {entry['jackpot']!r}")
            elif entry["jackpot"] not in features:
                report(path + ("jackpot",), f"a {entry['jackpot']} coin needs [features] {entry['jackpot']} = its value "
                                            "(x total bet)")
        else:
            report(path, "a coin is value = x total bet, or jackpot = \"mini\" | \"minor\" | \"major\" (one of the two)")
    if features["respin_coin_weight"] + features["respin_blank_weight"] <= 0:
        report(("features", "respin_blank_weight"), "respin_coin_weight + respin_blank_weight must be above 0")


HOLD_AND_RESPIN = RoundTemplate(
    name="hold_and_respin",
    build="workbench.rounds.respins:round_model",
    params=HOLD_AND_RESPIN_PARAMS,
    check=check_hold_and_respin,
    summary="The classic spin (lines or ways, scatters) plus a hold and respin coin feature: enough coins start it; coins "
            "stick, each with a value (x total bet) or a fixed jackpot (mini, minor, major) drawn from a table; respins "
            "reset when a new coin lands; a full screen adds the grand jackpot. The base game is exact, the feature "
            "simulated (exact + conditional by starting coin count).",
    declared_pays=True,
    buys=True,
)
