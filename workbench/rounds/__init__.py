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
    "min_feature_win": Param("number", "the least a feature pays, x total bet (absent: 0)", required=False, min=0,
                             max=1_000_000),
    "feature_cap": Param("number", "the most a feature pays, x total bet: it ends when reached (absent: no cap)",
                         required=False, min=0, max=1_000_000),
}


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
    award = {parse_count(k): v for k, v in features["free_spins"].items()}
    if not any(v >= 1 for v in award.values()):
        report(("features", "free_spins"), "every count awards 0 free spins: the feature would never play")
    if features["free_spins_mode"] == "base":
        report(("features", "free_spins_mode"), "the free spins need strip sets of their own mode (not \"base\")")
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
)
