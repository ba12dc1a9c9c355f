"""Bier Haus Oktober Fest (WMS / Scientific Games): rules as features over shared blocks.

Rules (see docs/games/bier_haus_oktober_fest.md for each rule's reading and test):

- 6x6, 50 lines; WILD (beer) substitutes for all but the Heidi scatters;
  on any spin one or more reels may fill with beer and act as WILD, and
  Bigger Mugs (square wild overlays of several sizes) may fall;
- Green, Purple and Red Heidi scatters are 2 rows tall and count when only
  half visible; Red Heidi only on reel 4, at most one visible;
- 5 or more Heidis on adjacent reels from reel 1 award free spins by count
  (``free_spins_award``), retriggering the same way without limit, on the
  alternate ``free_spins`` strips at the triggering bet;
- every Purple Heidi in a trigger becomes a Persisting Wild at its position
  from the next free spin to the end of the feature;
- a Red Heidi in a trigger awards a spin of Heidi's Wheel (before free spins,
  and again on retriggers): cash prizes (x bet multiplier) with an extra spin
  that cannot repeat a cash prize already won, Bigger Mugs Spins, Hans
  Spins, both, or extra free spins;
- Hans Spins (free spins only): up to 10 Hans Wilds at random positions except
  persisting-wild positions; wheel-awarded Hans and Bigger Mugs spins wait in
  meters and happen on random free spins, all of them before the end;
- the feature's winning combinations are worth at least ``bonus_guarantee``
  x bet multiplier;
- any single game (the paid spin and everything it triggers) pays at most
  ``max_win`` in currency: the feature ends when it is reached;
- Mega Drop jackpots (``jackpots``) are simulated on their own stream.
"""

from __future__ import annotations


from ...model.params import Param
from ...registry import RoundTemplate

MAX_MUGS = 8  # most Bigger Mugs one spin can drop
# bounds that keep every value inside the compiled round's 64-bit integers (see check_features)
MAX_TABLE_COUNT = 1_000  # reels, mugs, size, wilds of one random-feature table entry
MAX_SPINS = 10_000  # free spins of one award; meter spins of one wheel segment
MAX_CASH = 10**9  # a wheel cash prize, x bet multiplier
MAX_CAP_TOTAL_BETS = 10**9  # max_win / reference_stake

FEATURES = {
    "wild_symbol": Param("symbol", "the WILD symbol (beer); beer reels, mugs, persisting and Hans wilds become it"),
    "heidi_scatter": Param("scatter", "scatter group of all Heidis (adjacent from reel 1)"),
    "purple_heidi": Param("symbol", "Purple Heidi: becomes a Persisting Wild when in a trigger"),
    "red_heidi": Param("symbol", "Red Heidi: a Heidi's Wheel spin when in a trigger"),
    "trigger_count": Param("int", "Heidis needed on adjacent reels from reel 1", min=1),
    "free_spins_award": Param("count_map", "free spins by number of Heidis in the trigger", min=0),
    "free_spins_mode": Param("mode", "strip-set mode of the free spins"),
    "base_random_feature": Param("table", "per base spin: feature = none | beer_reels | bigger_mugs"),
    "free_spins_random_feature": Param("table", "per free spin: feature = none | beer_reels | bigger_mugs | hans"),
    "beer_reels": Param("table", "how many reels fill with beer: reels"),
    "mug_count": Param("table", "how many mugs fall: mugs"),
    "mug_size": Param("table", "size of each mug in rows and reels: size"),
    "hans_wilds": Param("table", "how many Hans Wilds a Hans Spin adds: wilds (at most 10)"),
    "heidi_wheel": Param("table", "wheel segments: award = cash (value x bet multiplier) | mugs | hans | mugs_and_hans | free_spins (value)"),
    "bonus_guarantee": Param("int", "minimum feature win from winning combinations, x bet multiplier", min=0),
    "max_win": Param("number", "max win of any single game, in currency", min=0),
    "reference_stake": Param("number", "total bet (currency) the RTP is quoted for", min=0),
}


def check_features(features: dict, report, refs: dict) -> None:
    """Cross-checks of the feature parameters beyond their types."""
    tables = refs["table"]
    needs = {
        "base_random_feature": ("feature", ("none", "beer_reels", "bigger_mugs")),
        "free_spins_random_feature": ("feature", ("none", "beer_reels", "bigger_mugs", "hans")),
        "beer_reels": ("reels", None),
        "mug_count": ("mugs", None),
        "mug_size": ("size", None),
        "hans_wilds": ("wilds", None),
    }
    for key, (field, choices) in needs.items():
        name = features[key]
        for i, entry in enumerate(tables[name].entries):
            if field not in entry:
                report(("tables", name, "entries", i), f"entry needs {field!r}")
            elif choices and entry[field] not in choices:
                report(("tables", name, "entries", i), f"{field} must be one of {', '.join(choices)}, got {entry[field]!r}")
            elif not choices and (not _whole(entry[field]) or entry[field] < 1):
                report(("tables", name, "entries", i), f"{field} must be a whole number >= 1")
            elif not choices and entry[field] > MAX_TABLE_COUNT:
                report(("tables", name, "entries", i), f"{field} {entry[field]} is too large: at most {MAX_TABLE_COUNT:,}")
    for i, entry in enumerate(tables[features["hans_wilds"]].entries):
        if isinstance(entry.get("wilds"), int) and entry["wilds"] > 10:
            report(("tables", features["hans_wilds"], "entries", i), "a Hans Spin adds at most 10 Hans Wilds")
    wheel = features["heidi_wheel"]
    for i, entry in enumerate(tables[wheel].entries):
        award = entry.get("award")
        if award not in ("cash", "mugs", "hans", "mugs_and_hans", "free_spins"):
            report(("tables", wheel, "entries", i), f"award must be cash, mugs, hans, mugs_and_hans or free_spins, got {award!r}")
        elif award != "mugs_and_hans" and (not _whole(entry.get("value")) or entry["value"] < 1):
            unit = " (x bet multiplier)" if award == "cash" else ""
            report(("tables", wheel, "entries", i), f"a {award} award needs a value that is a whole number >= 1{unit}")
        elif award == "cash" and entry["value"] > MAX_CASH:
            report(("tables", wheel, "entries", i), f"a cash award of {entry['value']} is too large: at most {MAX_CASH:,} x bet multiplier")
        elif award in ("mugs", "hans", "free_spins") and entry["value"] > MAX_SPINS:
            report(("tables", wheel, "entries", i), f"a {award} award of {entry['value']} spins is too large: at most {MAX_SPINS:,}")
    if not any(e.get("award") != "cash" and w > 0 for e, w in zip(tables[wheel].entries, tables[wheel].weights)):
        report(("tables", wheel), "the wheel needs at least one segment with weight that is not a cash prize (cash spins again)")
    for i, entry in enumerate(tables[features["mug_count"]].entries):
        if isinstance(entry.get("mugs"), int) and entry["mugs"] > MAX_MUGS:
            report(("tables", features["mug_count"], "entries", i), f"at most {MAX_MUGS} mugs can fall at once")
    # wheel-awarded Hans / Bigger Mugs spins must all fit in the free spins of the award that brings them
    award = {int(k): v for k, v in features["free_spins_award"].items()}
    trigger = features["trigger_count"]
    fewest = min([v for k, v in award.items() if k >= trigger] + [max([v for k, v in award.items() if k <= trigger], default=0)])
    for i, entry in enumerate(tables[wheel].entries):
        award_kind = entry.get("award")
        meter = 3 if award_kind == "mugs_and_hans" else entry.get("value") if award_kind in ("mugs", "hans") else 0
        if isinstance(meter, (int, float)) and meter > fewest:
            report(("tables", wheel, "entries", i),
                   f"{award_kind} awards {meter} meter spins, more than the {fewest} free spins of the smallest trigger: "
                   "they could not all be played")
    for k, v in award.items():
        if not _whole(v):
            report(("features", "free_spins_award"), f"free spins for {k} Heidis must be a whole number, got {v!r}")
        elif v > MAX_SPINS:
            report(("features", "free_spins_award"), f"{v} free spins for {k} Heidis is too many: at most {MAX_SPINS:,}")
    if features["reference_stake"] <= 0:
        report(("features", "reference_stake"), "the reference stake must be above 0 (currency)")
    elif features["max_win"] / features["reference_stake"] > MAX_CAP_TOTAL_BETS:
        report(("features", "max_win"), f"max_win {features['max_win']} at the reference stake {features['reference_stake']} is "
                                         f"{features['max_win'] / features['reference_stake']:.3g} total bets: at most {MAX_CAP_TOTAL_BETS:,}")
    if award.get(trigger, 0) < 1 and not any(k <= trigger and v >= 1 for k, v in award.items()):
        report(("features", "free_spins_award"), f"a trigger of {trigger} Heidis (trigger_count) would award no free spins")
    if any(k < trigger for k in award):
        report(("features", "free_spins_award"),
               f"counts below trigger_count ({trigger}) can never be awarded: {sorted(k for k in award if k < trigger)}")
    _check_heidis(features, report, refs)


def _check_heidis(features: dict, report, refs: dict) -> None:
    """What the compiled round assumes of the Heidis, checked so that a file it cannot play is refused.

    The round reads a trigger as a chain of reels from reel 1 showing a Heidi (the Purple Heidis on that chain
    become Persisting Wilds, a Red Heidi on it spins the wheel), and tells Purple from Red by symbol: the Heidi
    group must count ``adjacent_from_first_reel``, and ``purple_heidi`` and ``red_heidi`` must be two different
    members of it.  (A file counting "anywhere", or naming one symbol for both, validated before and was priced
    by its exact trigger states as it reads, but played otherwise: two methods, two answers.)
    """
    group = refs["scatter"].get(features["heidi_scatter"])
    if group is None:
        return
    if group.counting != "adjacent_from_first_reel":
        report(("scatters", features["heidi_scatter"], "counting"),
               f"the bier_haus round counts its Heidis on adjacent reels from reel 1 (Persisting Wilds and the wheel "
               f"are read from that chain): set counting = \"adjacent_from_first_reel\" (it is {group.counting!r})")
    for key in ("purple_heidi", "red_heidi"):
        if features[key] not in group.symbols:
            report(("features", key), f"{features[key]!r} is not one of the Heidis of scatter group "
                                      f"{features['heidi_scatter']!r} ({', '.join(group.symbols)})")
    if features["purple_heidi"] == features["red_heidi"]:
        report(("features", "red_heidi"), f"red_heidi and purple_heidi are both {features['red_heidi']!r}: the round tells "
                                          "a Persisting Wild from a wheel spin by symbol, so they must differ")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def round_bound(game, stake=None):
    """What one round pays at most at ``stake`` (:class:`~workbench.registry.RoundBound`, see
    :mod:`workbench.rounds.bounds`).  Retriggers have no limit, so only ``max_win`` bounds a round: the free spins
    stop once the round's total reaches the cap, so everything paid is at most the cap plus what the spins before
    the loop and one more spin add (a screen S each: lines, the random feature's change, a free spin; the wheel's
    cash prizes W, each at most once per award), plus ``bonus_guarantee``; the cap's negative correction takes at
    most as much again.  Without ``max_win`` (0) there is no bound (``units`` None)."""
    from fractions import Fraction

    from ...pays.scale import pay_scale
    from ...registry import RoundBound
    from ...rounds.bounds import screen_units

    f = game.features
    if not f["max_win"] > 0:
        return RoundBound(None, ("features", "max_win"), "without max_win (0) the free spins retrigger without limit")
    stake = Fraction(str(f["reference_stake"] if stake is None else stake))
    if stake <= 0:
        return RoundBound(None, ("features", "reference_stake"), f"stake {float(stake):g} is not above 0")
    scale = pay_scale(game)

    def unit(x) -> int:
        return scale.units(game.bet.credits(Fraction(str(x)), "bet_multiplier"))

    cap = int(Fraction(str(f["max_win"])) / stake * scale.cost_units)
    screen = screen_units(game)
    wheel = game.tables[f["heidi_wheel"]]
    cash = sum(unit(v) for v in {e.get("value", 0) for e in wheel.entries if e.get("award") == "cash"})
    guarantee = unit(f["bonus_guarantee"])
    paid = cap + 3 * screen + 2 * cash + guarantee
    return RoundBound(2 * paid + 2 * screen, ("features", "max_win"),
                      f"max_win {f['max_win']} at stake {float(stake):g} is {cap:,} pay units; a screen pays at most "
                      f"{screen:,}, the wheel's cash prizes {cash:,}")


TEMPLATE = RoundTemplate(
    name="bier_haus",
    build="workbench.games.bier_haus.play:round_model",
    params=FEATURES,
    check=check_features,
    summary=__doc__.strip().split("\n\n")[0].replace("\n", " "),
    bound=round_bound,
)
