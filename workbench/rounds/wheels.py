"""Wheels as awards (``[features] wheel``): the parameters a round template adds to play a wheel with its trigger,
their checks, and the compiled record (:func:`wheel_params`, built only when a game is simulated).

A wheel is a ``[tables.*]`` whose entries are segments: ``{ award = "cash", value = x total bet }``,
``{ award = "free_spins", value = spins }``, ``{ award = "meter_spins", value = spins }`` (free spins played on the
strips of ``meter_spins_mode``, each on a random one of the feature's spins left) or ``{ award = "respin" }`` (the
wheel spins again); ``again = true`` on any segment spins the wheel once more after its award.  With
``wheel_repeat_cash = false`` a cash prize won cannot be won again within the same award.
"""

from __future__ import annotations

from fractions import Fraction

from ..model.params import Param
from ..model.wheel_segments import MAX_WHEEL_SPINS, WHEEL_AWARDS, check_segments, check_stops

TUMBLE_WHEEL_AWARDS = ("cash", "free_spins", "respin")  # the tumble template has no meter spins

WHEEL_PARAMS = {
    "wheel": Param("table", "a wheel award with every trigger of the feature: a [tables.*] of segments { award = "
                            "\"cash\" | \"free_spins\" | \"meter_spins\" | \"respin\", value = x total bet or spins, "
                            "weight = w }, again = true to spin once more after the award", required=False, pays="value"),
    "wheel_on_retrigger": Param("bool", "a retrigger awards the wheel too (absent: true)", required=False),
    "wheel_repeat_cash": Param("bool", "false: a cash prize won cannot be won again within the same award (every "
                                       "segment showing it is out until the award ends; absent: true)", required=False),
    "wheel_max_spins": Param("int", f"most wheel spins of one award, a safety maximum (absent: {MAX_WHEEL_SPINS})",
                             required=False, min=1, max=10_000),
    "meter_spins_mode": Param("mode", "strip-set mode the wheel's meter spins are played on (needed with a meter_spins "
                                      "segment)", required=False),
}


def tumble_wheel_params() -> dict:
    """The wheel's parameters as the tumble template takes them: no meter spins."""
    out = {k: v for k, v in WHEEL_PARAMS.items() if k != "meter_spins_mode"}
    out["wheel"] = Param("table", "a wheel award with every trigger of the free spins: a [tables.*] of segments { award "
                                  "= \"cash\" | \"free_spins\" | \"respin\", value = x total bet or spins, weight = w }, "
                                  "again = true to spin once more after the award", required=False, pays="value")
    return out


def check_wheel(features: dict, report, refs: dict, kinds: tuple = WHEEL_AWARDS, where: str = "") -> None:
    """The wheel's cross-checks (key paths from the file root): its keys need ``wheel``; every segment an award
    among ``kinds`` with a value of the right kind (``where``: why a kind is not taken); the wheel can stop; meter
    spins have a mode and the mode a meter spin."""
    if "wheel" not in features:
        for key in ("wheel_on_retrigger", "wheel_repeat_cash", "wheel_max_spins", "meter_spins_mode"):
            if key in features:
                report(("features", key), f"{key} needs wheel = \"TABLE\" (the wheel's segments)")
        return
    table = refs["table"][features["wheel"]]
    landed = check_segments(table, report, kinds, where=where)
    if landed is None:
        return
    check_stops(table, landed, report)
    metered = any(kind == "meter_spins" for kind, _ in landed)
    if metered and "meter_spins_mode" not in features:
        report(("features", "wheel"), f"[tables.{table.name}] awards meter spins: give meter_spins_mode = the strip-set "
                                      "mode they are played on")
    elif "meter_spins_mode" in features and not metered:
        report(("features", "meter_spins_mode"), f"meter_spins_mode needs a meter_spins segment on the wheel "
                                                 f"[tables.{table.name}]")


def wheel_params(game, components: list):
    """The compiled wheel of ``game`` (``simulate.steps.wheels.WheelParams``; adds component ``wheel``, the cash it
    pays) or the empty record of a game without one."""
    import numpy as np

    from ..pays.scale import pay_scale
    from ..simulate.steps.wheels import AWARD_KINDS, WheelParams, no_wheel

    f = game.features
    if "wheel" not in f:
        return no_wheel()
    table = game.tables[f["wheel"]]
    scale = pay_scale(game)
    kinds = [entry["award"] for entry in table.entries]
    values = [scale.units(game.bet.credits(Fraction(str(entry["value"])), "total_bet")) if kind == "cash"
              else int(entry.get("value", 0)) for kind, entry in zip(kinds, table.entries)]
    components.append("wheel")
    return WheelParams(
        kind=np.array([AWARD_KINDS[k] for k in kinds], dtype=np.int64),
        value=np.array(values, dtype=np.int64),
        again=np.array([k == "respin" or bool(e.get("again", False)) for k, e in zip(kinds, table.entries)], dtype=np.bool_),
        weights=np.array(table.weights, dtype=np.int64),
        excluded=np.zeros(len(kinds), dtype=np.bool_),
        repeat_cash=bool(f.get("wheel_repeat_cash", True)),
        max_spins=np.int64(f.get("wheel_max_spins", MAX_WHEEL_SPINS)),
        on_retrigger=bool(f.get("wheel_on_retrigger", True)),
        comp=np.int64(len(components) - 1),
    )


def wheel_value(game):
    """The exact value of one award of ``game``'s wheel (:class:`workbench.exact.wheels.WheelValue`)."""
    from ..exact.wheels import segments_of, wheel_value as value

    f = game.features
    return value(segments_of(game.tables[f["wheel"]]), bool(f.get("wheel_repeat_cash", True)),
                 int(f.get("wheel_max_spins", MAX_WHEEL_SPINS)))


def wheel_summary(game) -> str:
    """``game``'s wheel in words with the exact value of one award (for the report's overview and the editors);
    "" without a wheel."""
    f = game.features
    if "wheel" not in f:
        return ""
    try:
        v = wheel_value(game)
    except ValueError as exc:  # too many distinct cash prizes that cannot repeat: say so, keep the rest
        value = f"the exact value of an award is not computed ({exc})"
    else:
        meter = f", {float(v.meter_spins):,.4f} meter spins (mode {f['meter_spins_mode']})" if "meter_spins_mode" in f else ""
        most = f"wheel_max_spins {int(f.get('wheel_max_spins', MAX_WHEEL_SPINS)):,}"
        limit = limit_text(v.limit, most)
        value = (f"one award (exact): {float(v.cash):,.4f} x total bet cash, {float(v.free_spins):,.4f} free spins{meter}, "
                 f"{float(v.wheel_spins):,.4f} wheel spins; {limit}")
    when = "every trigger and retrigger" if f.get("wheel_on_retrigger", True) else "every trigger (not retriggers)"
    repeat = "" if f.get("wheel_repeat_cash", True) else "; a cash prize cannot repeat within one award"
    return f"[tables.{f['wheel']}] with {when}{repeat}; {value}"


def award_draw(game, trigger):
    """The compiled draw of ``trigger``'s bonus award (``simulate.steps.wheels.AwardDraw``): its table drawn once, or
    its wheel of cash and respin segments; values in pay units (``award_unit``)."""
    return table_award_draw(game, game.tables[trigger.award], trigger.award_unit, bool(trigger.award_repeat_cash),
                            int(trigger.award_max_spins))


def table_award_draw(game, table, unit: str, repeat_cash: bool, max_spins: int):
    """The compiled draw (``simulate.steps.wheels.AwardDraw``) of an award from ``table``: a plain table of ``value``
    entries drawn once, or a wheel of cash and respin segments spun as one award (``repeat_cash``, ``max_spins``);
    values in ``unit`` (``total_bet``, ``line_bet``) turned into pay units."""
    import numpy as np

    from ..model.wheel_segments import is_wheel
    from ..pays.scale import pay_scale
    from ..simulate.steps.wheels import AwardDraw, plain_award

    scale = pay_scale(game)
    units = np.array([scale.units(game.bet.credits(Fraction(str(e.get("value", 0))), unit))
                      for e in table.entries], dtype=np.int64)
    weights = np.asarray(table.weights, dtype=np.int64)
    if not is_wheel(table):
        return plain_award(np.cumsum(weights), units)
    n = len(table.entries)
    return AwardDraw(cum=np.cumsum(weights), units=units, wheel=True, weights=weights,
                     again=np.array([e["award"] == "respin" or bool(e.get("again", False)) for e in table.entries],
                                    dtype=np.bool_),
                     cash=np.array([e["award"] == "cash" for e in table.entries], dtype=np.bool_),
                     excluded=np.zeros(n, dtype=np.bool_), repeat_cash=bool(repeat_cash),
                     max_spins=np.int64(max_spins))


def limit_text(limit: Fraction, most: str) -> str:
    """How often the safety maximum ``most`` (its key and value, in words) ends an award of probability ``limit``."""
    if limit == 0:
        return f"never ended by {most}"
    if limit < Fraction(1, 10**12):
        return f"ended by {most} less than once in 1,000,000,000,000 awards"
    return f"ended by {most} about once in {float(1 / limit):,.0f} awards"


def bonus_wheel_summary(game) -> str:
    """The trigger whose bonus ``award`` is a wheel, in words with the exact value of one award (for the report's
    overview and the table editor); "" when no trigger's award is a wheel."""
    from ..model.wheel_segments import is_wheel

    wheels = [t for t in game.triggers.values() if t.award is not None and is_wheel(game.tables[t.award])]
    if not wheels:
        return ""
    trigger = wheels[0]  # validation allows one award trigger
    v = wheel_value_of_award(game, trigger)  # in the table's values: x the award unit
    unit = f"x {trigger.award_unit.replace('_', ' ')}"
    repeat = "" if trigger.award_repeat_cash else "; a cash prize cannot repeat within one award"
    return (f"[tables.{trigger.award}] spun as the bonus award of [triggers.{trigger.name}]{repeat}; one award (exact): "
            f"mean {float(v.cash):,.4f} {unit}, standard deviation {float(v.cash_variance) ** 0.5:,.4f} {unit}, "
            f"pays nothing {float(v.cash_zero):.4%} of the time, at most {float(v.cash_max):,.4f} {unit}, "
            f"{float(v.wheel_spins):,.4f} wheel spins; "
            f"{limit_text(v.limit, f'award_max_spins {trigger.award_max_spins:,}')}")


def wheel_value_of_award(game, trigger):
    """The exact value of one award of ``trigger``'s bonus wheel, in the table's own values
    (:class:`workbench.exact.wheels.WheelValue`)."""
    from ..exact.wheels import segments_of, wheel_value as value

    return value(segments_of(game.tables[trigger.award]), trigger.award_repeat_cash, trigger.award_max_spins)


def wheel_summaries(game) -> dict:
    """{table name: the wheel in words} for every wheel table of ``game``: ``[features] wheel`` and a trigger's
    bonus-award wheel (the wheel coins of hold and respin: :func:`.coin_wheels.coin_wheel_summaries`)."""
    from ..model.wheel_segments import is_wheel

    out = {}
    if "wheel" in game.features:
        out[game.features["wheel"]] = wheel_summary(game)
    for t in game.triggers.values():
        if t.award is not None and is_wheel(game.tables[t.award]):
            out[t.award] = bonus_wheel_summary(game)
    return out
