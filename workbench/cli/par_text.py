"""The text of ``workbench par``: the PAR sheet's figures and tables as a test lab reads them."""

from __future__ import annotations

from .outputs import plain_number


def render_par_text(sheet, z: float | None = None) -> str:
    import pandas as pd

    with pd.option_context("display.width", 140, "display.max_columns", 20, "display.max_rows", 500, "display.max_colwidth", None,
                           "display.float_format", plain_number):
        parts = [
            f"PAR sheet: {sheet.game.name} ({getattr(sheet, 'covers', 'base game') if sheet.mode == 'base' else sheet.mode + ' game'})",
            "=" * 60,
            *_summary_lines(sheet),
            "",
            "Symbol counts",
            sheet.symbol_counts.to_string(),
            "",
            _combinations_heading(sheet),
            sheet.combinations.to_string(index=False),
            *_lint_lines(sheet),
        ]
        if len(sheet.scatter_pays):
            parts += ["", "Scatter pays", sheet.scatter_pays.to_string(index=False)]
        if len(sheet.triggers):
            parts += ["", "Feature triggers", sheet.triggers.to_string(index=False)]
        parts += ["", "Prize structure (x total bet)", sheet.prize_structure.to_string(index=False)]
        parts += ["", *par_conventions_lines(sheet, z)]
        awards = sheet.awards
        basis = "each distinct spin win, exact over the full cycle" if sheet.distribution is not None else \
            "each single award on its own (no full-cycle distribution)"
        if len(awards) <= AWARD_ROWS_SHOWN:
            parts += ["", f"Awards by value (x total bet; {basis})", awards.to_string(index=False)]
        else:
            parts += ["", f"Awards by value: {len(awards):,} distinct values ({basis}); the .xlsx workbook (--xlsx) lists them all"]
        parts.append("")
    return "\n".join(parts)


AWARD_ROWS_SHOWN = 60  # the awards-by-value table is printed when it has at most this many rows


def _lint_lines(sheet) -> list[str]:
    """Design warnings the combinations table shows (a higher count as frequent as a lower one; workbench.lints)."""
    from ..lints import par_warning_lines

    return par_warning_lines(sheet)


def _summary_lines(sheet) -> list[str]:
    """The PAR summary, one left-aligned ``figure  value  unit`` line per figure of the catalogue
    (:mod:`workbench.figures`; a long note does not push the numbers right)."""
    from ..figures import FRACTION, TEXT, shown

    rows = [("game", sheet.game.name, "", TEXT), ("mode", sheet.mode, "", TEXT)]
    rows += [(v.label, shown(v.value, v.kind), "" if v.kind == TEXT else v.unit, v.kind) for v in sheet.figures()]
    width = max(len(row[0]) for row in rows)
    # numbers right-aligned on the widest of them; an exact fraction (hundreds of digits for some games) is not a
    # column to align on: it is written as it is, left-aligned
    aligned = [value for _, value, unit, kind in rows if unit and kind != FRACTION]
    size = max(map(len, aligned)) if aligned else 0
    lines = [f"{label:{width}s}  {value:>{size}s}  {unit}".rstrip() if unit and kind != FRACTION
             else f"{label:{width}s}  {value}  {unit}".rstrip() for label, value, unit, kind in rows]
    from ..simulate import exactness

    exact, why = exactness(sheet.game)
    if sheet.mode == "base" and not exact:
        lines.append(f"{'whole game':{width}s}  not in this sheet: {why}; `workbench rtp` gives the whole-game RTP")
    return lines


def _combinations_heading(sheet) -> str:
    unit = {"line_bet": "x line bet", "total_bet": "x total bet", "bet_multiplier": "x bet multiplier"}[sheet.game.bet.line_pay_unit]
    direction = {"left_to_right": "", "right_to_left": ", read right to left", "both_ways": ", both ways"}[sheet.game.pays.direction]
    rule = sheet.game.rule  # the heading is the pay rule's (model.rules)
    return rule.heading.format(unit=unit, direction=direction, title=rule.title.capitalize())


def par_conventions_lines(sheet, z: float | None = None) -> list[str]:
    """The figures labs print under other conventions, each labelled."""
    z_printed = 1.65 if z is None else z
    how = "as printed on many sheets" if z is None else "given with --z"
    hit, std = (sheet.source(f) if hasattr(sheet, "source") else "exact" for f in ("hit_frequency", "std"))
    rows = [
        ("hit frequency, whole spin (a spin with any win)", f"{100 * sheet.hit_frequency:9.4f} %"
         + ("" if hit == "exact" else f"  {hit}")),
        ("hit frequency, PAR-sheet (each line, ways or scatter win is a hit)", f"{100 * sheet.par_hit_frequency:9.4f} %"),
        ("volatility index, z = 1.6449 (90 %)", f"{sheet.volatility_index(0.90):9.4f}" + ("" if std == "exact" else f"  {std}")),
        (f"volatility index, z = {z_printed:g} ({how})", f"{sheet.volatility_index(z=z_printed):9.4f}"
         + ("" if std == "exact" else f"  {std}")),
    ]
    covers = getattr(sheet, "covers", "base game") if sheet.mode == "base" else f"mode {sheet.mode}"
    return [f"PAR-sheet conventions ({covers}, x total bet)", *(f"  {label:<68s}{value}" for label, value in rows)]
