"""The report's tables of the game itself: overview, pay rule, symbols, paytable, scatters, feature
parameters, strips and weighted tables (what the file says, before any figure is computed).

Amounts are in the unit the file gives them (x line bet or x total bet, said in each table)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from .formats import _frame, fmt_count, fmt_money, fmt_pct, parameters_text
from ..rounds.random_wilds import base_random_wilds_summary, random_wilds_summary
from ..rounds.persisting_wilds import persisting_wilds_summary
from ..model.wheel_segments import is_wheel
from ..rounds.algebra import multiplier_algebra
from ..rounds.coin_wheels import coin_wheel_summaries
from ..rounds.wheels import bonus_wheel_summary, wheel_summary


def _module_summary(game) -> str:
    from ..registry import find_template

    t = find_template(game.game_module)
    return t.summary if t else ""


def _substitutes_text(game, symbol) -> str:
    """What a wild substitutes for, and in which modes it substitutes for other symbols ([symbols] by_mode)."""
    text = _one_substitution(game, symbol)
    for mode, variant in symbol.by_mode:
        if mode != "base" and variant.substitutes != symbol.substitutes:
            text += f"; in mode {mode}: {_one_substitution(game, variant)}"
    return text


def _multiplier_text(game, symbol) -> str:
    """A wild's multiplier: fixed (x2) or drawn per cell from a table (x2 3 : x3 1), and what it is in other modes."""
    if not symbol.is_wild:
        return ""

    def one(variant) -> str:
        if variant.multiplier_table is None:
            return f"x{variant.multiplier}"
        table = game.tables[variant.multiplier_table]
        odds = " : ".join(f"x{e['multiplier']} {w}" for e, w in zip(table.entries, table.weights))
        return f"drawn per cell from {variant.multiplier_table} ({odds})"

    text = one(symbol)
    for mode, variant in symbol.by_mode:
        if mode != "base" and (variant.multiplier, variant.multiplier_table) != (symbol.multiplier, symbol.multiplier_table):
            text += f"; in mode {mode}: {one(variant)}"
    return text


def _one_substitution(game, symbol) -> str:
    if not symbol.is_wild:
        return ""
    others = [n for n, s in game.symbols.items() if not s.is_wild]
    subs = [n for n in others if n in symbol.substitutes]
    missing = [n for n in others if n not in symbol.substitutes]
    if not missing:
        return "all"
    if len(subs) >= len(missing):
        return "all but " + ", ".join(missing)
    return ", ".join(subs)


def pay_rule_text(game) -> str:
    """The pay rule in words: lines (direction, multiplier wilds, groups), ways or pay anywhere."""
    rule = game.pays
    extras = []
    wilds = [s for s in game.symbols.values() if s.multiplier > 1]
    if wilds:
        how = "multiplied together" if rule.combine == "product" else "added"
        extras.append(", ".join(f"{s.name} x{s.multiplier}" for s in wilds) + f" (several in one win: {how})")
    if rule.is_lines and rule.line_win == "before_multipliers":  # [pays] line_win, declared
        extras.append("a line pays its highest paytable win, chosen before multipliers")
    if game.groups:
        extras.append("groups " + ", ".join(f"{g} = {' / '.join(m)}" for g, m in game.groups.items()))
    text = game.rule.describe(game)  # the pay rule in words (model.rules)
    return "; ".join([text, *extras])


def _trigger_text(game, t) -> str:
    where = "on a line from reel 1" if game.pays.is_lines else "on adjacent reels from reel 1"
    text = f"{t.name}: {t.min_count}+ {t.scatter}" if t.combination is None else f"{t.name}: {t.min_count}+ {t.combination} {where}"
    if t.award and is_wheel(game.tables[t.award]):
        text += f", pays one award of wheel {t.award} (bonus wheel: x {t.award_unit.replace('_', ' ')})"
    elif t.award:
        text += f", pays an award from table {t.award} (x {t.award_unit.replace('_', ' ')})"
    return text


def game_overview(game) -> pd.DataFrame:
    """What the game is: file, rules module, grid, bet model, modes, features (one row per item)."""
    bet = game.bet
    stakes = ", ".join(fmt_money(float(s)) for s in bet.stakes) + (f" {bet.currency}" if bet.currency else "") if bet.stakes else "-"
    rows = [
        ("name", game.name),
        ("description", game.description or "-"),
        ("reelset file", Path(game.path).name if game.path else "(in memory)"),
        ("game module (rules)", game.game_module),
        ("module description", _module_summary(game) or "-"),
        ("grid", f"{game.reels} reels x {'/'.join(str(r) for r in game.rows)} rows"
                 + (" (the most; heights drawn per spin)" if game.heights else "")),
        ("pays", pay_rule_text(game)),
        *([("paylines", f"{len(game.paylines)}")] if game.pays.is_lines else []),
        ("total bet", f"{fmt_count(float(bet.cost), 'credit')} x bet multiplier"),
        ("line bet", f"{fmt_count(float(bet.line_bet), 'credit')} x bet multiplier (line pays x {bet.line_pay_unit.replace('_', ' ')})"),
        ("stake ladder", stakes),
        ("strip-set modes", ", ".join(game.modes)),
        ("bet modes", ", ".join(f"{n} ({float(m.cost):g} x total bet{', prize mode' if m.prize else ', buys the feature' if m.buy else ''})"
                                 for n, m in game.all_bet_modes.items())),
        ("strip sets", ", ".join(f"{s.name} ({s.mode}, weight {s.weight})" for s in game.strip_sets.values())),
        ("scatter groups", ", ".join(game.scatters) or "-"),
        ("triggers", ", ".join(_trigger_text(game, t) for t in game.triggers.values()) or "-"),
        ("weighted tables", ", ".join(game.tables) or "-"),
        *([("mystery symbols", mystery_text(game))] if any(s.kind == "mystery" for s in game.symbols.values()) else []),
        *([("wild reels", wild_reels_text(game))] if any(s.wild_reels for s in game.strip_sets.values()) else []),
        *([("multiplier algebra", algebra)] if (algebra := multiplier_algebra(game)) else []),
        *([("wheel award", wheel_summary(game))] if "wheel" in game.features else []),
        *([("bonus wheel", bonus)] if (bonus := bonus_wheel_summary(game)) else []),
        *([("wheel coins", "; ".join(coins.values()))] if (coins := coin_wheel_summaries(game)) else []),
        *([("random wilds", drops)] if (drops := per_bet_mode(game, "free_spins_random_wilds", random_wilds_summary)) else []),
        *([("base random wilds", base_drops)]
          if (base_drops := per_bet_mode(game, "base_random_wilds", base_random_wilds_summary)) else []),
        *([("persisting wilds", persisting_wilds_summary(game))] if "free_spins_persisting_wilds" in game.features else []),
        *([("must-drop jackpots", jackpots_text(game))] if game.jackpots else []),
        *([("player choices", choices_text(game))] if game.choices else []),
    ]
    return pd.DataFrame(rows, columns=["item", "value"]).set_index("item")


def per_bet_mode(game, key: str, summary) -> str:
    """``summary`` of the game where its ``[features]`` have ``key``, and of every bet mode playing a ``key`` of its
    own (``features = { key = ... }``, the bet mode named), joined by "; " ("" when none has it)."""
    texts = []
    for mode in [None, *game.all_bet_modes]:
        played = game if mode is None else game.in_bet_mode(mode)
        if key in played.features and (mode is None or played.features[key] != game.features.get(key)):
            texts.append(("" if mode is None else f"bet mode {mode}: ") + summary(played))
    return "; ".join(texts)


def mystery_text(game) -> str:
    """Each mystery symbol and its reveal table in words (model.mystery): the odds of each symbol it shows."""
    from ..model.mystery import reveal_entries

    def one(name: str) -> str:
        entries = reveal_entries(game, name)
        total = sum(w for _, w in entries)
        odds = ", ".join(f"{symbol} {fmt_pct(w / total, 2)}" for symbol, w in entries)
        return (f"{name}: every {name} of the strip set a spin chooses shows the same symbol, drawn once per spin "
                f"from table {game.symbols[name].reveal} ({odds})")

    return "; ".join(one(n) for n, s in game.symbols.items() if s.kind == "mystery")


def wild_reels_text(game) -> str:
    """Each strip set's wild reels in words (model.wild_reels): which reels turn wild, and how likely."""
    def one(s) -> str:
        wild = s.wild_reels
        if wild.chance is not None:
            odds = ", ".join(f"reel {r + 1} {c} in {wild.out_of:,}" for r, c in enumerate(wild.chance) if c)
            return f"{s.name}: each reel turns wholly {wild.symbol} on its own ({odds})"
        table = game.tables[wild.count]
        total = sum(table.weights)
        odds = ", ".join(f"{e['reels']} {fmt_pct(w / total, 2)}" for e, w in zip(table.entries, table.weights))
        return (f"{s.name}: k of reels {', '.join(map(str, wild.reels))} turn wholly {wild.symbol}, chosen uniformly, "
                f"k from table {wild.count} ({odds})")

    return "; ".join(one(s) for s in game.strip_sets.values() if s.wild_reels is not None)


def choices_text(game) -> str:
    """The ``[choices.*]`` in words: each choice's options and what they play, and the option the figures are for."""
    def one(choice) -> str:
        options = "; ".join(f"{name} ({parameters_text(params or choice.declared) or '[features] as written'})"
                            for name, params in choice.options.items())
        said = f" ({choice.description})" if choice.description else ""
        return f"{choice.name}{said}: the player picks one of {options}; the game's figures are for {choice.played}"
    return ". ".join(one(c) for c in game.choices.values())


def jackpots_text(game) -> str:
    """The ``[jackpots.*]`` tiers in words: must-drop amount (currency), feed, restart and each tier's return."""
    currency = f" {game.bet.currency}" if game.bet.currency else ""
    tiers = "; ".join(
        f"{t.name}: drops by {fmt_money(t.must_drop)}{currency}, fed {fmt_pct(t.pot_rate)} of every wager, restarts at "
        f"{fmt_pct(t.reseed_fraction)} of its drop, returns {fmt_pct(float(t.rtp))} of every wager" for t in game.jackpots)
    total = sum(t.rtp for t in game.jackpots)
    return (f"{tiers}. Together {fmt_pct(float(total))} of every wager (analytic), every bet mode's wager feeding them; "
            "one jackpot per wager (the larger must-drop first); outside the max-win cap")


def _prose(message: str) -> str:
    """A lint message as a lab reads it in a table: file syntax ("[bet]", "{ 3 = 5 }") spelled out."""
    message = re.sub(r"\[(\w+)\]", r"section \1", message)
    return re.sub(r"\{ *([^{}]*?) *\}", r"(\1)", message)


def design_warnings_table(game, sheet=None) -> pd.DataFrame:
    """The game's design warnings (lints, :mod:`workbench.lints`): valid, but probably not what was meant; one row
    per warning with the key and line it names and what to do.  ``sheet``: the base mode's exact PAR sheet, if
    computed (the exact lints reuse it)."""
    from ..lints import lint

    rows = [{"key": p.key or "-", "line": str(p.line) if p.line else "-", "warning": _prose(p.message)}
            for p in lint(game, sheet=sheet)]
    return pd.DataFrame(rows, columns=["key", "line", "warning"])


def symbol_table(game) -> pd.DataFrame:
    """Symbols and their kinds: substitution, height, reels, visibility limit, line pays (x line bet)."""
    rows = []
    for name, s in game.symbols.items():
        pays = game.paytable.get(name, {})
        rows.append({
            "symbol": name,
            "kind": s.kind,
            "substitutes for": _substitutes_text(game, s),
            "multiplier": _multiplier_text(game, s) or "-",
            "height (rows)": s.height,
            "reels": ", ".join(map(str, s.reels)) if s.reels else "all",
            "modes": ", ".join(s.modes) if s.modes is not None else "all",
            "max visible per reel": s.max_visible if s.max_visible is not None else "-",
            pays_column(game): ", ".join(f"{k}: {fmt_money(float(v))}" for k, v in sorted(pays.items())) or "-",
        })
    return _frame(rows, "symbol")


def pays_column(game) -> str:
    """The name of the symbol table's pays column: what a symbol's paytable entry is under the pay rule, and its unit."""
    kind = {"ways": "ways pays (per way)", "scatter_pays": "pays by count anywhere", "cluster": "pays by cluster size"}.get(
        game.pays.rule, "line pays (by count)")
    return f"{kind}, x {game.bet.line_pay_unit.replace('_', ' ')}"


def symbol_title(game) -> str:
    """Caption of the symbol table."""
    return f"Symbols ({pays_column(game)})"


def paytable_table(game) -> pd.DataFrame:
    """Line pays by symbol (rows) and count from the leftmost reel (columns), x the line pay unit
    (cluster games: by listed cluster size, ``cluster of k``: k cells or more, below the next listed size)."""
    listed = game.rule.counts == "cluster"  # cluster sizes: the listed bands, not every count up to the reels
    counts = sorted({k for pays in game.paytable.values() for k in pays}) if listed else range(1, game.reels + 1)
    rows = []
    for name, pays in game.paytable.items():
        row = {"symbol": name}
        for k in counts:
            row[game.rule.count_label.format(k=k)] = fmt_money(float(pays[k])) if k in pays else ""
        rows.append(row)
    df = _frame(rows, "symbol")
    return df.loc[:, (df != "").any(axis=0)] if len(df) else df


def scatter_table(game) -> pd.DataFrame:
    """Scatter groups: symbols, how they count, and pays by count (x their unit)."""
    rows = []
    for name, g in game.scatters.items():
        rows.append({
            "scatter group": name,
            "symbols": ", ".join(g.symbols),
            "counting": g.counting.replace("_", " "),
            "visibility": g.visibility,
            "pays": ", ".join(f"{k}: {fmt_money(float(v))}" for k, v in sorted(g.pays.items())) or "-",
            "unit": "x " + g.unit.replace("_", " "),
        })
    return _frame(rows, "scatter group")


def feature_parameters(game) -> pd.DataFrame:
    """The game module's parameters from ``[features]``: value and meaning (with units)."""
    from ..registry import find_template

    t = find_template(game.game_module)
    declared = t.params if t else {}
    rows = []

    def plain(v, top=True):
        """A parameter value in words: no Python literals, thousands separators."""
        if isinstance(v, dict) or hasattr(v, "items"):
            items = dict(v.items())
            name = items.pop("name", None)
            text = ", ".join(f"{plain(k, False)}: {plain(x, False)}" if not isinstance(k, str) or k.isdigit()
                             else f"{k.replace('_', ' ')} {plain(x, False)}" for k, x in items.items())
            return f"{name} ({text})" if name is not None else text
        if isinstance(v, (list, tuple)):
            return "; ".join(plain(x, False) for x in v) if v else "none"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, (int, float)):
            return fmt_money(v)
        return str(v)

    for name, value in game.features.items():
        spec = declared.get(name)
        rows.append({"parameter": name, "value": plain(value), "meaning": getattr(spec, "doc", "")})
    return _frame(rows, "parameter")


def strip_table(game) -> pd.DataFrame:
    """Every strip: strip set, mode, choice weight, reel, stops, total stop weight, the strip in file notation."""
    rows = []
    for s in game.strip_sets.values():
        for i, strip in enumerate(s.reels, start=1):
            rows.append({"strip set": s.name, "mode": s.mode, "set weight": s.weight, "reel": i, "stops": len(strip),
                         "total weight": strip.total_weight, "strip": strip.to_text()})
    return _frame(rows, ["strip set", "reel"])


def table_lengths(game) -> pd.DataFrame:
    """Weighted tables: entries and total weight."""
    rows = [{"table": t.name, "entries": len(t.entries), "total weight": t.total_weight} for t in game.tables.values()]
    return _frame(rows, "table")


def paytable_title(game) -> str:
    """What the paytable's counts and pays mean under the game's pay rule."""
    unit = game.bet.line_pay_unit.replace("_", " ")
    side = {"left_to_right": "from the leftmost reel", "right_to_left": "from the rightmost reel",
            "both_ways": "from either end (both ways)"}[game.pays.direction]
    return game.rule.paytable_title.format(unit=unit, side=side, title=game.rule.title.capitalize())
