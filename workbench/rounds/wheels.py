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

from ..model.params import Param, describe

MAX_WHEEL_SPINS = 100  # wheel spins of one award when the file declares no wheel_max_spins
WHEEL_AWARDS = ("cash", "free_spins", "meter_spins", "respin")
MAX_WHEEL_CASH = 1_000_000  # a cash segment, x total bet
MAX_SEGMENT_SPINS = 10_000  # free or meter spins of one segment

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


def check_wheel(features: dict, report, refs: dict) -> None:
    """The wheel's cross-checks (key paths from the file root): its keys need ``wheel``; every segment a known
    award with a value of the right kind; the wheel can stop; meter spins have a mode and the mode a meter spin."""
    if "wheel" not in features:
        for key in ("wheel_on_retrigger", "wheel_repeat_cash", "wheel_max_spins", "meter_spins_mode"):
            if key in features:
                report(("features", key), f"{key} needs wheel = \"TABLE\" (the wheel's segments)")
        return
    table = refs["table"][features["wheel"]]
    kinds = _check_segments(table, report)
    if kinds is None:
        return
    if not any(w > 0 and not again for (_, again), w in zip(kinds, table.weights)):
        report(("tables", table.name, "entries"), "every segment of weight spins the wheel again: the award would never "
                                                  "stop (give some segment again = false and a weight above 0)")
    metered = any(kind == "meter_spins" for kind, _ in kinds)
    if metered and "meter_spins_mode" not in features:
        report(("features", "wheel"), f"[tables.{table.name}] awards meter spins: give meter_spins_mode = the strip-set "
                                      "mode they are played on")
    elif "meter_spins_mode" in features and not metered:
        report(("features", "meter_spins_mode"), f"meter_spins_mode needs a meter_spins segment on the wheel "
                                                 f"[tables.{table.name}]")


def _check_segments(table, report) -> list | None:
    """Each entry of a wheel table: a known ``award``, its ``value`` (cash: a number 0..MAX_WHEEL_CASH x total bet;
    spins: a whole number; respin: none), ``again`` a bool.  Returns [(award, spins again)] or None on a problem."""
    out = []
    ok = True
    for i, entry in enumerate(table.entries):
        path = ("tables", table.name, "entries", i)
        extra = sorted(set(entry) - {"award", "value", "again"})
        kind = entry.get("award")
        if extra:
            report(path + (extra[0],), f"unknown key {extra[0]!r} in a wheel segment ({{ award = ..., value = ..., "
                                       "weight = w }, optional again = true)")
            ok = False
        if kind not in WHEEL_AWARDS:
            report(path + ("award",), f"award must be one of {', '.join(WHEEL_AWARDS)}, got {describe(kind)}")
            ok = False
            continue
        value = entry.get("value")
        if kind == "respin":
            if value is not None:
                report(path + ("value",), "a respin segment awards nothing but another spin of the wheel: leave value out")
                ok = False
            if entry.get("again", True) is not True:
                report(path + ("again",), "a respin segment always spins the wheel again")
                ok = False
        elif kind == "cash":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= Fraction(str(value)) <= MAX_WHEEL_CASH:
                report(path + ("value",), f"a cash segment's value is x total bet, 0 to {MAX_WHEEL_CASH:,}, got {_got(value)}")
                ok = False
        elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEGMENT_SPINS:
            report(path + ("value",), f"a {kind} segment's value is a whole number of spins 0 to {MAX_SEGMENT_SPINS:,}, "
                                      f"got {_got(value)}")
            ok = False
        again = entry.get("again", kind == "respin")
        if not isinstance(again, bool):
            report(path + ("again",), f"again must be true or false, got {describe(again)}")
            ok = False
        out.append((kind, kind == "respin" or again is True))
    return out if ok else None


def _got(value) -> str:
    return "none" if value is None else describe(value)


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
        limit = (f"never ended by {most}" if v.limit == 0
                 else f"ended by {most} less than once in 1,000,000,000,000 awards" if v.limit < Fraction(1, 10**12)
                 else f"ended by {most} about once in {float(1 / v.limit):,.0f} awards")
        value = (f"one award (exact): {float(v.cash):,.4f} x total bet cash, {float(v.free_spins):,.4f} free spins{meter}, "
                 f"{float(v.wheel_spins):,.4f} wheel spins; {limit}")
    when = "every trigger and retrigger" if f.get("wheel_on_retrigger", True) else "every trigger (not retriggers)"
    repeat = "" if f.get("wheel_repeat_cash", True) else "; a cash prize cannot repeat within one award"
    return f"[tables.{f['wheel']}] with {when}{repeat}; {value}"
