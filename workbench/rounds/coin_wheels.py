"""Wheel coins of the hold-and-respin feature: a ``coin_values`` entry ``{ wheel = "TABLE", weight = w }`` is a coin
whose value is one award of a wheel, spun when the coin lands.

The wheel is a ``[tables.*]`` of segments ``{ award = "cash", value = x total bet }`` and ``{ award = "respin" }``
(``again = true`` on a cash segment: it pays, then the wheel spins once more), as a trigger's bonus wheel.  The coin's
value is the award's total cash; from then on it is a value coin: collectors collect it, multiplier coins multiply it
(component ``coins``).  ``coin_wheel_repeat_cash = false``: a cash prize won cannot be won again within one award;
``coin_wheel_max_spins``: the safety maximum of wheel spins in one award.  One wheel table per coin table (several
entries may name it, each with its own weight).

The wheel's exact value per award (mean, spread, chance of nothing, largest) comes from :mod:`workbench.exact.wheels`;
the feature around it is simulated, as every hold-and-respin feature is.
"""

from __future__ import annotations

from ..model.params import Param, describe
from ..model.wheel_segments import (BONUS_WHEEL_AWARDS, MAX_AWARD_STATES, MAX_WHEEL_SPINS, award_states,
                                    check_segments, check_stops)

COIN_WHEEL_PARAMS = {
    "coin_wheel_repeat_cash": Param("bool", "false: a cash prize a wheel coin's award won cannot be won again within "
                                            "that award (absent: true)", required=False),
    "coin_wheel_max_spins": Param("int", f"most wheel spins of one wheel coin's award, a safety maximum (absent: "
                                         f"{MAX_WHEEL_SPINS})", required=False, min=1, max=10_000),
}


def coin_wheel_table(game) -> str | None:
    """The name of the wheel ``game``'s wheel coins spin (None: no wheel coin)."""
    f = game.features
    if "coin_values" not in f:
        return None
    return next((e["wheel"] for e in game.tables[f["coin_values"]].entries if "wheel" in e), None)


def check_coin_wheel(features: dict, report, refs: dict) -> None:
    """The wheel coins' checks (key paths from the file root): each names a known table of cash and respin
    segments that can stop and whose exact value stays within the states it may visit; one wheel per coin table;
    the wheel keys need a wheel coin."""
    table = refs["table"][features["coin_values"]]
    named = []
    for i, entry in enumerate(table.entries):
        if "wheel" not in entry:
            continue
        name = entry["wheel"]
        path = ("tables", table.name, "entries", i, "wheel")
        if not isinstance(name, str) or name not in refs["table"]:
            report(path, f"a wheel coin names the wheel it spins: wheel = \"TABLE\" (a [tables.*] of segments), got "
                         f"{describe(name)}" + (f"; known tables: {', '.join(sorted(refs['table']))}" if refs["table"] else ""))
            continue
        if named and name != named[0]:
            report(path, f"the wheel coins of one coin table spin one wheel ([tables.{named[0]}]), not also "
                         f"[tables.{name}]")
            continue
        named.append(name)
    if not named:
        if not any("wheel" in e for e in table.entries):  # a misnamed wheel coin was reported above
            for key in COIN_WHEEL_PARAMS:
                if key in features:
                    report(("features", key), f"{key} needs a wheel coin in [tables.{table.name}] "
                                              "({ wheel = \"TABLE\", weight = w })")
        return
    wheel = refs["table"][named[0]]
    kinds = check_segments(wheel, report, BONUS_WHEEL_AWARDS, where="a wheel coin's award is its cash")
    if kinds is None or not check_stops(wheel, kinds, report):
        return
    repeat = features.get("coin_wheel_repeat_cash", True)
    most = int(features.get("coin_wheel_max_spins", MAX_WHEEL_SPINS))
    states = award_states(wheel, bool(repeat), most)
    if states > MAX_AWARD_STATES:
        report(("features", "coin_wheel_max_spins"), f"the exact value of one award of wheel [tables.{wheel.name}] would "
                                                     f"visit up to {states:,} states (at most {MAX_AWARD_STATES:,}): "
                                                     "lower coin_wheel_max_spins, let cash prizes repeat "
                                                     "(coin_wheel_repeat_cash = true) or use fewer distinct cash prizes "
                                                     "that spin again")


def coin_wheel_draw(game):
    """The compiled draw of a wheel coin's value (``simulate.steps.wheels.AwardDraw``, pay units); the empty plain
    draw without wheel coins."""
    import numpy as np

    from ..simulate.steps.wheels import plain_award
    from .wheels import table_award_draw

    name = coin_wheel_table(game)
    if name is None:
        return plain_award(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    f = game.features
    return table_award_draw(game, game.tables[name], "total_bet", bool(f.get("coin_wheel_repeat_cash", True)),
                            int(f.get("coin_wheel_max_spins", MAX_WHEEL_SPINS)))


def coin_wheel_value(game):
    """The exact value of one wheel coin's award, x total bet (:class:`workbench.exact.wheels.WheelValue`)."""
    from ..exact.wheels import segments_of, wheel_value

    f = game.features
    return wheel_value(segments_of(game.tables[coin_wheel_table(game)]), bool(f.get("coin_wheel_repeat_cash", True)),
                       int(f.get("coin_wheel_max_spins", MAX_WHEEL_SPINS)))


def coin_wheel_summary(game) -> str:
    """The wheel coins in words with the exact value of one award (for the report's overview and the table editor);
    "" without them."""
    from .wheels import limit_text

    name = coin_wheel_table(game)
    if name is None:
        return ""
    f = game.features
    table = game.tables[f["coin_values"]]
    chance = sum(w for e, w in zip(table.entries, table.weights) if "wheel" in e) / sum(table.weights)
    v = coin_wheel_value(game)
    repeat = "" if f.get("coin_wheel_repeat_cash", True) else "; a cash prize cannot repeat within one award"
    most = f"coin_wheel_max_spins {int(f.get('coin_wheel_max_spins', MAX_WHEEL_SPINS)):,}"
    return (f"[tables.{name}] spun by a wheel coin ({chance:.4%} of the coins of [tables.{table.name}]), the award's "
            f"cash its value{repeat}; one award (exact): mean {float(v.cash):,.4f} x total bet, standard deviation "
            f"{float(v.cash_variance) ** 0.5:,.4f} x total bet, pays nothing {float(v.cash_zero):.4%} of the time, at "
            f"most {float(v.cash_max):,.4f} x total bet, {float(v.wheel_spins):,.4f} wheel spins; "
            f"{limit_text(v.limit, most)}")


def coin_wheel_summaries(game) -> dict:
    """{wheel table: its wheel coins in words} over the game and every bet mode playing a coin table of its own
    (``features = { coin_values = ... }``), the bet mode named; {} without wheel coins."""
    out = {}
    for mode in [None, *game.all_bet_modes]:
        played = game if mode is None else game.in_bet_mode(mode)
        name = coin_wheel_table(played)
        if name is not None and name not in out:
            where = "" if mode is None else f"bet mode {mode}: "
            out[name] = where + coin_wheel_summary(played)
    return out
