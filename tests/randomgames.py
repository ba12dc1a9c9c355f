"""Hypothesis strategy producing small random line games as reelset text.

Random grids (2-4 reels, 1-3 rows, rows may differ per reel), 1-4 paylines,
regular symbols, 0-2 wilds with random substitution sets, 1-row and 2-row
scatters counted anywhere or on adjacent reels, partial or full visibility,
tall regular symbols, optional stop weights (zeros included) and one or two
base strip sets chosen by weight.  Small enough for brute-force enumeration.
"""

from __future__ import annotations

from hypothesis import strategies as st


def _pays_table(draw, max_count: int, allow_empty: bool = True) -> dict:
    counts = draw(st.lists(st.integers(1, max_count), min_size=0 if allow_empty else 1, max_size=max_count, unique=True))
    values = sorted(draw(st.lists(st.integers(0, 60), min_size=len(counts), max_size=len(counts))))
    return dict(zip(sorted(counts), values))


def _fmt_pays(pays: dict) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in pays.items()) + " }"


@st.composite
def random_game_text(draw, max_reels: int = 4, max_stops: int = 6) -> str:
    reels = draw(st.integers(2, max_reels))
    rows = [draw(st.integers(1, 3)) for _ in range(reels)]
    n_regular = draw(st.integers(1, 4))
    n_wild = draw(st.integers(0, 2))
    has_scatter = draw(st.booleans())
    scatter_height = draw(st.integers(1, 2)) if has_scatter else 1
    tall_regular = draw(st.booleans())
    regular = [f"R{i}" for i in range(n_regular)]
    wilds = [f"W{i}" for i in range(n_wild)]
    symbols = {}
    for i, name in enumerate(regular):
        height = 2 if (tall_regular and i == 0) else 1
        symbols[name] = "{ height = 2 }" if height == 2 else "{}"
    for name in wilds:
        subs = draw(st.lists(st.sampled_from(regular), unique=True))
        if draw(st.booleans()):
            symbols[name] = '{ kind = "wild" }'
        else:
            symbols[name] = '{ kind = "wild", substitutes = [' + ", ".join(f'"{s}"' for s in subs) + "] }"
    if has_scatter:
        symbols["S"] = '{ kind = "scatter"' + (f", height = {scatter_height}" if scatter_height > 1 else "") + " }"
    all_names = list(symbols)

    lines = []
    for _ in range(draw(st.integers(1, 4))):
        lines.append([draw(st.integers(0, rows[r] - 1)) for r in range(reels)])

    paytable = {}
    for name in regular + wilds:
        if draw(st.integers(0, 4)) > 0:
            pays = _pays_table(draw, reels)
            if pays:
                paytable[name] = pays

    def strip(reel: int) -> str:
        length = draw(st.integers(max(rows[reel] + 1, 2), max_stops))
        tokens: list[str] = []
        while len(tokens) < length:
            name = draw(st.sampled_from(all_names))
            h = 2 if (name == "S" and scatter_height == 2) or (tall_regular and name == regular[0]) else 1
            tokens += [name] * h
        if draw(st.booleans()):
            weights = [draw(st.integers(0, 3)) for _ in tokens]
            if sum(weights) == 0:
                weights[0] = 1
            return " ".join(f"{t}:{w}" for t, w in zip(tokens, weights))
        return " ".join(tokens)

    strip_sets = []
    for k in range(draw(st.integers(1, 2))):
        reels_text = "\n".join(f'reel{r + 1} = "{strip(r)}"' for r in range(reels))
        weight = draw(st.integers(1, 3))
        strip_sets.append(f'[strip_sets.base{k}]\nmode = "base"\nweight = {weight}\n{reels_text}\n')

    scatter_text = ""
    if has_scatter:
        counting = draw(st.sampled_from(["anywhere", "adjacent_from_first_reel"]))
        visibility = draw(st.sampled_from(["partial", "full"]))
        pays = _pays_table(draw, 6)
        scatter_text = (
            f'[scatters.S]\nsymbols = ["S"]\ncounting = "{counting}"\nvisibility = "{visibility}"\n'
            f'pays = {_fmt_pays(pays)}\nunit = "{draw(st.sampled_from(["total_bet", "line_bet", "bet_multiplier"]))}"\n\n'
            '[triggers.bonus]\nscatter = "S"\nmin_count = 2\n'
        )
    cost = draw(st.sampled_from([len(lines), 2 * len(lines), 3]))
    text = f"""format_version = 1
name = "random"
game_module = "classic"

[grid]
reels = {reels}
rows = [{", ".join(map(str, rows))}]

[bet]
lines = {len(lines)}
cost = {cost}
line_bet = 1
cost_reason = "random test game: the cost is drawn apart from the lines"

[symbols]
{chr(10).join(f"{k} = {v}" for k, v in symbols.items())}

[paytable]
{chr(10).join(f"{k} = {_fmt_pays(v)}" for k, v in paytable.items())}

[paylines]
lines = [{", ".join("[" + ", ".join(map(str, l)) + "]" for l in lines)}]

{scatter_text}
{chr(10).join(strip_sets)}
"""
    return text


def with_upper_end(draw, pays: dict, top: int) -> dict:
    """Sometimes a band with an upper end: a count above the top listed one that pays 0 (it and more pay nothing)."""
    highest = max(pays)
    if highest < top and draw(st.integers(0, 2)) == 0:
        pays = {**pays, draw(st.integers(highest + 1, top)): 0}
    return pays
