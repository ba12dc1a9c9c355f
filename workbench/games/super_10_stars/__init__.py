"""Super 10 Stars (Red Rake Gaming): rules as features over shared building blocks.

Rules (see docs/games/super_10_stars.md for each rule's reading and test):

- 5x3, 30 lines, highest win per line, line wins added; golden and silver
  scatters pay by count x total bet; Bonus symbols pay 1 x total bet each;
- Super 7 (reel 3 only): expands to a wild reel 3 for that spin and awards a
  respin of the other reels with reel 3 held wild;
- Super 10 (reel 3 only, 3 rows tall) fully visible: the Super 10 mini game,
  one draw of table ``super10_reel``: a cash prize (x total bet), the Frenzy
  Wheel, or immediate free spins on strip set mode ``super10_free_spins``;
- Frenzy Wheel: the player picks a colour; each draw of ``frenzy_wheel`` adds
  its multiplier; a matching colour draws again; a mismatch or a total above
  ``frenzy_limit`` ends it; pays the total x total bet.  Both choices are
  played out in every round (independent draws) so each option's RTP is
  reported; the round pays the option named by ``frenzy_choice``;
- 3 Wheel symbols (reels 1, 3, 5): one draw of ``wheel`` paying value x line bet;
- 3 Bonus symbols (reels 2, 3, 4): one draw of ``bonus_game`` sets the free
  spins and their multiplier; free spins use mode ``free_spins`` strips; 3
  Bonus symbols during free spins add the same number of spins again, up to
  ``max_free_spins`` in total.
"""

from __future__ import annotations

from ...model.params import Param
from ...registry import RoundTemplate

# what a round pays, by component (see workbench.simulate.model); the compiled round uses these slots
COMPONENTS = (
    "lines",
    "scatter:GOLD",
    "scatter:SILVER",
    "scatter:BONUS",
    "super7",
    "wheel",
    "super10_cash",
    "frenzy",
    "super10_free_spins",
    "free_spins",
    "option:frenzy_red",
    "option:frenzy_green",
)

FEATURES = {
    "wild_symbol": Param("symbol", "the symbol a Super 7 reel turns into"),
    "super7_reel": Param("int", "reel (1-based) carrying Super 7 and Super 10", min=1),
    "super7_scatter": Param("scatter", "scatter group counting visible Super 7 symbols"),
    "super10_scatter": Param("scatter", "scatter group counting fully visible Super 10 symbols"),
    "wheel_scatter": Param("scatter", "scatter group counting Wheel symbols"),
    "bonus_scatter": Param("scatter", "scatter group counting Bonus symbols"),
    "gold_scatter": Param("scatter", "golden Super 5 Stars scatter group"),
    "silver_scatter": Param("scatter", "silver Super 5 Stars scatter group"),
    "wheel_trigger": Param("int", "Wheel symbols needed for a wheel spin", min=1),
    "bonus_trigger": Param("int", "Bonus symbols needed for the free spins mini game (also retriggers)", min=1),
    "wheel_table": Param("table", "wheel segments: value (x line bet)"),
    "super10_table": Param("table", "Super 10 mini game: award = cash (value x total bet) | frenzy | free_spins (spins)"),
    "frenzy_table": Param("table", "Frenzy Wheel segments: colour (red/green), multiplier (x total bet)"),
    "frenzy_limit": Param("number", "a total multiplier above this ends the Frenzy Wheel", min=1),
    "frenzy_choice": Param("str", "colour the player picks in the played round", choices=("red", "green")),
    "bonus_table": Param("table", "free spins mini game: spins, multiplier"),
    "max_free_spins": Param("int", "most free spins one feature can award in total", min=1),
    "free_spins_mode": Param("mode", "strip-set mode of the Bonus free spins"),
    "super10_free_spins_mode": Param("mode", "strip-set mode of the Super 10 free spins"),
}


# bounds that keep every amount inside the compiled round's 64-bit integers (see check_features)
MAX_VALUE = 10**9  # a wheel value (x line bet), a cash prize or the Frenzy total (x total bet)
MAX_MULTIPLIER = 10**6  # a free-spins multiplier
MAX_SPINS = 10_000  # free spins of one Super 10 award


def check_features(features: dict, report, refs: dict) -> None:
    """Cross-checks of the feature parameters beyond their types.

    Everything the compiled round relies on is checked here, so a bad file is
    a :class:`~workbench.errors.ReelsetError` naming the key, never a crash or
    a silently truncated value (tables become int64/float64 arrays).
    """
    tables = refs["table"]
    strip_sets = refs["strip_set"]
    scatters = refs["scatter"]
    symbols = refs["symbol"]

    def whole(v, low):
        return isinstance(v, int) and not isinstance(v, bool) and v >= low

    def number(v, low):
        return isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v < float("inf")

    for key, fields in (("wheel_table", ("value",)), ("frenzy_table", ("colour", "multiplier")), ("bonus_table", ("spins", "multiplier"))):
        table = tables[features[key]]
        for i, entry in enumerate(table.entries):
            for field in fields:
                if field not in entry:
                    report(("tables", features[key], "entries", i), f"entry needs {field!r}")
    wheel = features["wheel_table"]
    for i, entry in enumerate(tables[wheel].entries):
        if "value" in entry and not whole(entry["value"], 0):
            report(("tables", wheel, "entries", i, "value"), f"value must be a whole number >= 0 (x line bet), got {entry['value']!r}")
        elif "value" in entry and entry["value"] > MAX_VALUE:
            report(("tables", wheel, "entries", i, "value"), f"value {entry['value']} is too large: at most {MAX_VALUE:,} x line bet")
    bonus = features["bonus_table"]
    for i, entry in enumerate(tables[bonus].entries):
        if "spins" in entry and not whole(entry["spins"], 1):
            report(("tables", bonus, "entries", i, "spins"), f"spins must be a whole number >= 1, got {entry['spins']!r}")
        elif "spins" in entry and entry["spins"] > features["max_free_spins"]:
            report(("tables", bonus, "entries", i, "spins"), f"{entry['spins']} spins is more than max_free_spins = {features['max_free_spins']}")
        if "multiplier" in entry and not whole(entry["multiplier"], 1):
            report(("tables", bonus, "entries", i, "multiplier"), f"multiplier must be a whole number >= 1, got {entry['multiplier']!r}")
        elif "multiplier" in entry and entry["multiplier"] > MAX_MULTIPLIER:
            report(("tables", bonus, "entries", i, "multiplier"), f"multiplier {entry['multiplier']} is too large: at most {MAX_MULTIPLIER:,}")
    for i, entry in enumerate(tables[features["super10_table"]].entries):
        award = entry.get("award")
        if award not in ("cash", "frenzy", "free_spins"):
            report(("tables", features["super10_table"], "entries", i), f"award must be cash, frenzy or free_spins, got {award!r}")
        elif award == "cash" and "value" not in entry:
            report(("tables", features["super10_table"], "entries", i), "a cash award needs value (x total bet)")
        elif award == "cash" and not number(entry["value"], 0):
            report(("tables", features["super10_table"], "entries", i, "value"), f"value must be a number >= 0 (x total bet), got {entry['value']!r}")
        elif award == "cash" and entry["value"] > MAX_VALUE:
            report(("tables", features["super10_table"], "entries", i, "value"), f"value {entry['value']} is too large: at most {MAX_VALUE:,} x total bet")
        elif award == "free_spins" and "spins" not in entry:
            report(("tables", features["super10_table"], "entries", i), "a free_spins award needs spins")
        elif award == "free_spins" and not whole(entry["spins"], 1):
            report(("tables", features["super10_table"], "entries", i, "spins"), f"spins must be a whole number >= 1, got {entry['spins']!r}")
        elif award == "free_spins" and entry["spins"] > MAX_SPINS:
            report(("tables", features["super10_table"], "entries", i, "spins"), f"{entry['spins']} spins is too many: at most {MAX_SPINS:,}")
    frenzy = tables[features["frenzy_table"]]
    for i, entry in enumerate(frenzy.entries):
        if entry.get("colour") not in ("red", "green"):
            report(("tables", features["frenzy_table"], "entries", i), "colour must be red or green")
        elif "multiplier" in entry and not number(entry["multiplier"], 0):
            report(("tables", features["frenzy_table"], "entries", i, "multiplier"), f"multiplier must be a number >= 0, got {entry['multiplier']!r}")
        elif "multiplier" in entry and entry["multiplier"] + features["frenzy_limit"] > MAX_VALUE:
            # the wheel stops once its total passes frenzy_limit: the total is at most the limit plus one multiplier
            report(("tables", features["frenzy_table"], "entries", i, "multiplier"),
                   f"multiplier {entry['multiplier']} with frenzy_limit {features['frenzy_limit']} lets the Frenzy total pass "
                   f"{MAX_VALUE:,} x total bet")
    for colour in ("red", "green"):
        # a choice that always matches and never adds would spin forever
        drawn = [e for e, w in zip(frenzy.entries, frenzy.weights) if w > 0]
        if drawn and all(e.get("colour") == colour and e.get("multiplier") == 0 for e in drawn):
            report(("tables", features["frenzy_table"], "entries"), f"the Frenzy Wheel never ends for {colour}: every segment is {colour} with multiplier 0")
    for name, group in scatters.items():
        # the round books scatter pays under its fixed components: any other paying group would go unpaid
        if any(pay > 0 for pay in group.pays.values()) and f"scatter:{name}" not in COMPONENTS:
            report(("scatters", name, "pays"), "only the scatter groups GOLD, SILVER and BONUS can pay in this game module")
    wild = features["wild_symbol"]
    if symbols[wild].kind != "wild":
        report(("features", "wild_symbol"), f"{wild} is not a wild symbol")
    # Super 7 and Super 10 live on the reel the code expands (super7_reel)
    reel = features["super7_reel"]
    n_reels = len(next(iter(strip_sets.values())).reels) if strip_sets else reel
    if reel > n_reels:
        report(("features", "super7_reel"), f"reel {reel} does not exist (1..{n_reels})")
    special = set(scatters[features["super7_scatter"]].symbols) | set(scatters[features["super10_scatter"]].symbols)
    for name, strip_set in strip_sets.items():
        for r, strip in enumerate(strip_set.reels, start=1):
            wrong = sorted(special & set(strip.symbols)) if r != reel else []
            if wrong:
                report(("strip_sets", name, f"reel{r}"), f"{', '.join(wrong)} may only be on reel super7_reel = {reel}")
    # the par sheet's trigger frequencies must be the ones the round uses
    starts = (("wheel_scatter", features["wheel_trigger"], "features.wheel_trigger"),
              ("bonus_scatter", features["bonus_trigger"], "features.bonus_trigger"),
              ("super7_scatter", 1, "one Super 7"), ("super10_scatter", 1, "one Super 10"))
    for name, trigger in refs["trigger"].items():
        for group, need, why in starts:
            if trigger.scatter == features[group] and trigger.min_count != need:
                report(("triggers", name, "min_count"), f"is {trigger.min_count} but the round starts this feature on {need} ({why})")
    # free spins are played on special reels (rules: no golden scatter, no Wheel; Super 10's also no Bonus);
    # the free spins play neither the Super 7 nor the Super 10 feature
    banned = {
        "free_spins_mode": ("gold_scatter", "wheel_scatter", "super7_scatter", "super10_scatter"),
        "super10_free_spins_mode": ("gold_scatter", "wheel_scatter", "bonus_scatter", "super7_scatter", "super10_scatter"),
    }
    for mode_key, groups in banned.items():
        not_here = set()
        for group in groups:
            not_here |= set(scatters[features[group]].symbols)
        for name, strip_set in strip_sets.items():
            if strip_set.mode != features[mode_key]:
                continue
            for r, strip in enumerate(strip_set.reels, start=1):
                wrong = sorted(not_here & set(strip.symbols))
                if wrong:
                    report(("strip_sets", name, f"reel{r}"), f"{', '.join(wrong)} may not be on the {mode_key} strips ({strip_set.mode!r})")


def round_bound(game, stake=None):
    """What one round pays at most (:class:`~workbench.registry.RoundBound`, see :mod:`workbench.rounds.bounds`):
    a screen S (lines and scatters at their largest), the Super 7's two screens and correction (3 S), the wheel's
    largest value, the Super 10 award (its largest cash, both Frenzy totals and the one played, or its free spins
    x S) and ``max_free_spins`` free spins x S x the bonus table's largest multiplier."""
    import math

    from ...pays.scale import pay_scale
    from ...registry import RoundBound
    from ...rounds.bounds import screen_units

    f = game.features
    scale = pay_scale(game)
    screen = screen_units(game)
    cost = scale.cost_units
    line_bet = scale.units(game.bet.credits(1, "line_bet"))
    tables = game.tables

    def top(table: str, field: str, keep=lambda e: True) -> float:
        return max([e[field] for e in tables[table].entries if keep(e) and isinstance(e.get(field), (int, float))] + [0])

    wheel = int(top(f["wheel_table"], "value")) * line_bet
    cash = math.ceil(top(f["super10_table"], "value", lambda e: e.get("award") == "cash") * cost)
    frenzy = 3 * math.ceil((float(f["frenzy_limit"]) + top(f["frenzy_table"], "multiplier")) * cost)
    super10_spins = int(top(f["super10_table"], "spins", lambda e: e.get("award") == "free_spins"))
    spins = int(f["max_free_spins"])
    multiplier = int(top(f["bonus_table"], "multiplier"))
    free = spins * screen * max(multiplier, 1)
    units = 4 * screen + wheel + cash + frenzy + super10_spins * screen + free
    parts = [(free, ("features", "max_free_spins") if spins >= multiplier else ("tables", f["bonus_table"], "entries")),
             (wheel, ("tables", f["wheel_table"], "entries")), (cash + frenzy, ("tables", f["super10_table"], "entries")),
             (4 * screen, ("paytable",))]
    key = max(parts, key=lambda p: p[0])[1]
    return RoundBound(units, key, f"a screen of at most {screen:,} pay units, {spins:,} free spins (max_free_spins) x "
                                  f"multiplier {multiplier:,}, the wheel and Super 10 awards")


TEMPLATE = RoundTemplate(
    name="super_10_stars",
    build="workbench.games.super_10_stars.play:round_model",
    params=FEATURES,
    check=check_features,
    summary=__doc__.strip().split("\n\n")[0].replace("\n", " "),
    bound=round_bound,
)
