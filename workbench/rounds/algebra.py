"""The multiplier algebra of a game in words: every multiplier a win can meet, in the order the round applies them,
each with the declared rule that says how it combines (for the report's overview and the editors).

Nothing here decides how a round pays: the rounds read the same keys (``[pays] combine`` and ``line_win``, the
symbols' ``multiplier`` and ``by_mode``, and each template's ``[features]``).  This module only reads them back as
one statement, so that a reviewer sees "win x wilds (product) x feature multiplier" instead of five keys in three
sections.  A game without any multiplier gets "".
"""

from __future__ import annotations

from ..model import Game


def multiplier_algebra(game: Game) -> str:
    """The steps from a paytable win to what the round pays, joined by "; " ("" without multipliers)."""
    steps = [s for s in (_wilds(game), *_template_steps(game)) if s]
    if not steps:
        return ""
    return "; ".join(steps)


def _wilds(game: Game) -> str:
    """Multiplier wilds (fixed, drawn per landing, per mode): how several in one win combine."""
    wilds = [s for s in game.symbols.values() if s.kind == "wild"]
    fixed = [s.name for s in wilds if s.carries_multiplier and not any(v.multiplier_table for v in s.variants)]
    drawn = sorted({s.name for s in wilds for v in s.variants if v.multiplier_table is not None})
    per_mode = sorted({s.name for s in wilds if s.by_mode})
    if not (fixed or drawn or per_mode):
        return ""
    where = {"lines": "per line", "ways": "per way"}.get(game.pays.rule, "per win")
    how = "multiply" if game.pays.combine == "product" else "add up"
    names = ", ".join(sorted(set(fixed) | set(drawn) | set(per_mode)))
    text = f"multiplier wilds ({names}): several in one win {how} ([pays] combine = \"{game.pays.combine}\"), {where}"
    if drawn:
        text += f"; {', '.join(drawn)} draw their multiplier per cell when they land"
    if per_mode:
        text += f"; {', '.join(per_mode)} set per mode (by_mode)"
    if game.pays.is_lines and game.pays.line_win == "before_multipliers":
        text += "; a line's win is chosen before its multipliers"
    return text


def _template_steps(game: Game) -> list[str]:
    """The round template's own multipliers, in the order it applies them."""
    f = game.features
    module = game.game_module
    if module == "free_spins":
        return [_free_spins_multiplier(f)]
    if module == "tumble":
        return [_positions(f), _ladder(f), _symbols(f)]
    if module == "hold_and_respin" and any("multiplier" in e for name in ("coin_values",) if name in f
                                           for e in game.tables[f[name]].entries):
        return ["multiplier coins multiply the coins' collected total"]
    return []


def _free_spins_multiplier(f: dict) -> str:
    m = int(f.get("multiplier", 1))
    growth = f.get("multiplier_growth", "none")
    if m == 1 and growth == "none":
        return ""
    if f.get("multiplier_wilds", "multiply") == "add":
        return (f"free spins: a feature multiplier x{m} that a line win's wild multiplier adds to (x{m} and a x3 wild "
                f"pay x{m + 3}, not x{m * 3}; a line without a multiplier wild x{m}; scatter pays x{m}) (sum, "
                "multiplier_wilds = \"add\")")
    text = f"free spins: every free spin's pay (its wins after their wilds' multipliers) x a feature multiplier x{m}"
    if growth != "none":
        when = "free spin" if growth == "per_spin" else "winning free spin"
        text += (f" that grows by {int(f.get('multiplier_step', 1))} after every {when}"
                 + (f" up to x{int(f['max_multiplier']):,}" if "max_multiplier" in f else ""))
    return text + " (product)"


def _positions(f: dict) -> str:
    values = f.get("position_multipliers")
    if not values:
        return ""
    keep = {"spin": "each spin", "feature": "the whole free-spins feature"}.get(f.get("position_multipliers_keep", "spin"),
                                                                               "each spin")
    where = "in the free spins" if f.get("position_multipliers_in") == "free_spins" else "in every spin"
    return (f"position multipliers {where}: a win pays x the sum of its cells' multipliers (x1 while 0); a cell "
            f"steps through {', '.join(f'x{v}' for v in values)} with each win on it, kept for {keep}")


def _ladder(f: dict) -> str:
    base = f.get("cascade_multipliers") or [1]
    free = f.get("free_spins_cascade_multipliers")
    step = f.get("ladder_step")
    free_step = f.get("free_spins_ladder_step")
    if base == [1] and not step and not free and not free_step and "free_spins_ladder_grows" not in f:
        return ""
    rungs = ", ".join(f"x{v}" for v in base) + (f", then +{step} per cascade" if step else "")
    rungs += f" up to x{f['ladder_cap']}" if "ladder_cap" in f else ""
    text = f"global multiplier (cascade ladder) {rungs}"
    if free or free_step or "free_spins_ladder_grows" in f:
        grows = {"spin": "per free spin", "win": "per winning free spin"}.get(f.get("free_spins_ladder_grows"), "per cascade")
        text += (f"; in the free spins {', '.join(f'x{v}' for v in (free or base))}"
                 + (f", +{free_step} {grows}" if free_step else f", a rung {grows}" if "free_spins_ladder_grows" in f else "")
                 + (f" up to x{f['free_spins_ladder_cap']}" if "free_spins_ladder_cap" in f else ""))
    applies = f.get("ladder_applies", "drop")
    return text + ("; each drop's wins x its own rung (per drop)" if applies == "drop"
                   else "; the chain's total x the rung it reached (per chain)")


def _symbols(f: dict) -> str:
    if "multiplier_symbol" not in f:
        return ""
    kept = (" adding up over the free spins" if f.get("persistent_multiplier", True) else "")
    if f.get("multiplier_symbols", "multiply") == "add":
        return (f"multiplier symbols ({f['multiplier_symbol']}): their total on the final screen adds to the rung "
                f"(chain x (rung + total)){kept}")
    return (f"multiplier symbols ({f['multiplier_symbol']}): a winning chain x their total on the final screen "
            f"(after the ladder and the position multipliers: they multiply){kept}")
