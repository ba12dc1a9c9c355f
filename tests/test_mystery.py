"""Mystery symbols ([symbols] M = { kind = "mystery", reveal = "TABLE" }, workbench/model/mystery.py): every mystery
symbol of the strip set a spin chooses shows the same symbol, drawn once from its table.

Checked three ways: the exact engines price the played strip sets (one per reveal, Game.played_strip_sets); the slow
reference draws the reveal itself (reference.spin_set) and enumerates every reveal with its probability
(reference.reveal_mixture), and its exact cycle, RTP and win distribution equal the engines' on random lines and ways
games (hypothesis); the compiled rounds (classic, free spins, tumble) agree with the exact figures, with the slow
reference feature, and end to end on the gallery game.  Bad files name the file, the line and the key.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hyp import examples
from test_rounds_free_spins import assert_strata_equal_the_reference, lines_text
from workbench import reference
from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game
from workbench.model.mystery import played_sets
from workbench.pays.scale import pay_scale
from workbench.simulate import estimate_rtp, simulate

GALLERY = Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "mystery_stacks.toml"
SETTINGS = settings(max_examples=examples(25), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def reveal_table(name: str, entries: list) -> str:
    rows = ", ".join(f'{{ symbol = "{s}", weight = {w} }}' for s, w in entries)
    return f"\n[tables.{name}]\nentries = [{rows}]\n"


@st.composite
def mystery_games(draw) -> str:
    """A small lines or ways game with one or two mystery symbols (M on any set, N on some), table wilds sometimes,
    two strip sets of the base mode sometimes (one may hold no mystery)."""
    rule = draw(st.sampled_from(["lines", "ways"]))
    reels, rows = draw(st.sampled_from([(3, 1), (3, 2), (4, 1)]))
    wild = 'WILD = { kind = "wild", multiplier = "wm" }' if draw(st.booleans()) else 'WILD = { kind = "wild" }'
    two = draw(st.booleans())
    symbols = ["A", "B", "WILD", "S", "M"] + (["N"] if two else [])

    def entries(choices) -> list:
        picked = draw(st.lists(st.sampled_from(choices), min_size=1, max_size=3))
        weights = draw(st.lists(st.integers(0, 3), min_size=len(picked), max_size=len(picked)))
        if not any(weights):
            weights[0] = 1
        return list(zip(picked, weights))

    def strip() -> str:
        n = draw(st.integers(rows + 1, 4))
        return " ".join(draw(st.lists(st.sampled_from(symbols), min_size=n, max_size=n)))

    sets = [[strip() for _ in range(reels)] for _ in range(2 if draw(st.booleans()) else 1)]
    set_text = "".join(f'\n[strip_sets.s{k}]\nmode = "base"\nweight = {k + 1}\n'
                       + "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(s)) + "\n" for k, s in enumerate(sets))
    lines = [[draw(st.integers(0, rows - 1)) for _ in range(reels)] for _ in range(2)]
    rule_text = (f'[pays]\nrule = "lines"\n\n[bet]\nlines = 2\ncost = 2\nline_bet = 1\n\n[paylines]\nlines = {lines}\n'
                 if rule == "lines" else '[pays]\nrule = "ways"\n\n[bet]\ncost = 4\nline_bet = 1\n')
    return f"""format_version = 1
name = "Random mystery game"
game_module = "classic"

[grid]
reels = {reels}
rows = {rows}

{rule_text}
[symbols]
A = {{}}
B = {{}}
{wild}
S = {{ kind = "scatter" }}
M = {{ kind = "mystery", reveal = "rm" }}
{'N = { kind = "mystery", reveal = "rn" }' if two else ''}

[paytable]
A = {{ 2 = 1, 3 = 4 }}
B = {{ 3 = 2 }}
WILD = {{ 3 = 10 }}

[scatters.S]
symbols = ["S"]
pays = {{ 2 = 3 }}
{reveal_table("rm", entries(["A", "B", "WILD", "S"]))}
{reveal_table("rn", entries(["A", "B", "S"])) if two else ""}
[tables.wm]
entries = [{{ multiplier = 2, weight = 1 }}, {{ multiplier = 3, weight = 2 }}]
{set_text}"""


def reference_mixture(game, mode: str = "base") -> tuple[Fraction, Counter]:
    """RTP (x total bet) and win distribution {credits: probability} of a spin, from the reference's own reveals and
    its stop-by-stop cycle of each revealed set."""
    rtp, dist = Fraction(0), Counter()
    for strip_set, p in reference.reveal_mixture(game, mode):
        ref = reference.enumerate_cycle(game, strip_set)
        for win, w in ref["wins"].items():
            dist[win] += p * Fraction(w, ref["cycle"])
            rtp += p * Fraction(w, ref["cycle"]) * win / game.bet.cost
    return rtp, dist


@SETTINGS
@given(mystery_games())
def test_exact_engines_price_every_reveal_as_the_reference(text):
    assert_exact_equals_the_reference(loads_game(text, "mystery.toml"))


def assert_exact_equals_the_reference(game) -> None:
    """The exact PAR's RTP and full-cycle win distribution equal :func:`reference_mixture`'s, as fractions."""
    rtp, dist = reference_mixture(game)
    sheet = par(game, full_cycle=True)
    assert sheet.rtp_exact == rtp
    scale = pay_scale(game)
    total = sum(int(h) for h in sheet.distribution.hits)
    fast = Counter({Fraction(int(u), scale.denominator): Fraction(int(h), total)
                    for u, h in zip(sheet.distribution.wins_units, sheet.distribution.hits) if h})
    assert fast == +dist


def test_played_sets_keep_every_sets_share_and_merge_repeated_entries():
    text = lines_text('free_spins = { 2 = 3 }', base=["A M C SCAT D", "A B SCAT C D", "A B C D SCAT"])
    text = text.replace("D = {}\n", 'D = {}\nM = { kind = "mystery", reveal = "rev" }\n', 1)
    text = text.replace('[strip_sets.base]\nmode = "base"\n', '[strip_sets.base]\nmode = "base"\nweight = 3\n')
    text += '\n[strip_sets.plain]\nmode = "base"\nweight = 1\nreel1 = "A B C"\nreel2 = "A B C"\nreel3 = "A B C"\n'
    text += reveal_table("rev", [("A", 2), ("B", 0), ("A", 2), ("D", 2)])
    game = loads_game(text, "played.toml")
    sets = played_sets(game, game.strip_sets_for("base"))
    # A's two entries are one reveal (weight 4 of 6), B (weight 0) none; the plain set keeps its quarter
    assert [(s.name, s.weight) for s in sets] == [("base (M=A)", 2), ("base (M=D)", 1), ("plain", 1)]
    assert sets[0].reels[0].symbols == ("A", "A", "C", "SCAT", "D")
    assert game.strip_sets_for("base")[0].reels[0].symbols[1] == "M"  # the file's sets stay as written
    assert sum(Fraction(s.weight, 4) for s in sets if s.name.startswith("base")) == Fraction(3, 4)


def free_spins_mystery_game() -> object:
    """The 3x3 free-spins test game whose free strips hold a mystery M that reveals WILD, A or SCAT."""
    text = lines_text('free_spins = { 2 = 3 }\nretrigger = { 2 = 2 }\nmax_free_spins = 20',
                      free=["A B M SCAT D A M C D", "A M SCAT C D A B C D", "A B C D SCAT M WILD C D"])
    text = text.replace("D = {}\n", 'D = {}\nM = { kind = "mystery", reveal = "rev" }\n', 1)
    return loads_game(text + reveal_table("rev", [("WILD", 1), ("A", 3), ("SCAT", 1)]), "free_mystery.toml")


def test_free_spins_reveals_equal_the_slow_reference():
    """Mystery symbols on the free-spin strips: each trigger count's compiled feature mean equals the slow reference
    feature's, which draws the reveal itself (both simulated: within 4.5 combined standard errors)."""
    game = free_spins_mystery_game()
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.01, seed=31), 32, 3000)


def test_gallery_mystery_game_end_to_end_agrees_with_exact_plus_conditional():
    game = load_game(GALLERY)
    assert {s.kind for s in game.symbols.values()} >= {"mystery"}
    result = simulate(game, 1_000_000, seed=33)
    est = estimate_rtp(game, precision=0.002, seed=34)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
    # the base game's lines are exact, reveals included, and the simulation's lines agree with them
    lines = par(game).parts["lines"].rtp_exact
    assert est.components["lines"].value == pytest.approx(float(lines), abs=1e-12)
    assert abs(result.components["lines"].value - float(lines)) < 4.5 * result.components["lines"].ci95 / 1.96


def test_a_tumble_game_reveals_once_per_drop_and_agrees_with_its_exact_first_drop():
    """The gallery's pay-anywhere tumble game with a mystery on its strips: the exact first drop prices the reveal,
    and the simulated chain agrees with exact + conditional."""
    text = (GALLERY.parent / "pay_anywhere_tumble.toml").read_text()
    sets = text.index("\n[strip_sets.")
    body = text[sets:]
    first_reel = body.index('reel1 = """\n') + len('reel1 = """\n')
    body = body[:first_reel] + "MYSTERY MYSTERY " + body[first_reel:]
    head = text[:sets].replace("[symbols]\n", '[symbols]\nMYSTERY = { kind = "mystery", reveal = "mystery" }\n', 1)
    paying = [name for name in loads_game(text, "t.toml").paytable][:3]
    game = loads_game(head + reveal_table("mystery", [(n, k + 1) for k, n in enumerate(paying)]) + body, "tumble_mystery.toml")
    assert any("MYSTERY" in s.name for s in game.played_strip_sets("base"))
    result = simulate(game, 300_000, seed=35)
    est = estimate_rtp(game, precision=0.004, seed=36)
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)


def test_the_reference_spin_draws_each_mystery_once_per_spin():
    game = free_spins_mystery_game()
    rng = random.Random(37)
    shown = Counter()
    for _ in range(4000):
        strip_set = reference.spin_set(game, "free", rng)
        reveals = {x for strip, raw in zip(strip_set.reels, game.strip_sets["free"].reels)
                   for x, y in zip(strip.symbols, raw.symbols) if y == "M"}
        assert len(reveals) == 1  # the same symbol on every reel
        shown[reveals.pop()] += 1
    assert abs(shown["A"] / 4000 - 0.6) < 0.03 and abs(shown["WILD"] / 4000 - 0.2) < 0.03


BAD = [
    ('M = { kind = "mystery" }', "", ("symbols", "M"), "a mystery symbol needs reveal"),
    ('M = { kind = "mystery", reveal = "nope" }', "", ("symbols", "M", "reveal"), "unknown table 'nope'"),
    ('M = { kind = "mystery", reveal = 3 }', "", ("symbols", "M", "reveal"), "reveal must be the name"),
    ('M = { reveal = "rev" }', reveal_table("rev", [("A", 1)]), ("symbols", "M", "reveal"), "only mystery symbols reveal"),
    ('M = { kind = "mystery", reveal = "rev" }', reveal_table("rev", [("Q", 1)]), ("tables", "rev", "entries", 0, "symbol"),
     "unknown symbol 'Q'"),
    ('M = { kind = "mystery", reveal = "rev" }\nM2 = { kind = "mystery", reveal = "rev" }', reveal_table("rev", [("M2", 1)]),
     ("tables", "rev", "entries", 0, "symbol"), "is a mystery symbol itself"),
    ('M = { kind = "mystery", reveal = "rev" }\nTALL = { height = 2 }', reveal_table("rev", [("TALL", 1)]),
     ("tables", "rev", "entries", 0, "symbol"), "2 rows tall"),
    ('M = { kind = "mystery", reveal = "rev" }\nR3 = { reels = [3] }', reveal_table("rev", [("A", 1), ("R3", 1)]),
     ("tables", "rev", "entries", 1, "symbol"), "may not appear on reel 1"),
    ('M = { kind = "mystery", reveal = "rev" }\nFS = { modes = ["free"] }', reveal_table("rev", [("FS", 1)]),
     ("tables", "rev", "entries", 0, "symbol"), "may not appear on the strips of mode 'base'"),
    ('M = { kind = "mystery", reveal = "rev" }\nONE = { max_visible = 1 }', reveal_table("rev", [("ONE", 1)]),
     ("tables", "rev", "entries", 0, "symbol"), "max_visible"),
    ('M = { kind = "mystery", reveal = "rev" }', '\n[tables.rev]\nentries = [{ symbol = "A", weight = 1, pays = 2 }]\n',
     ("tables", "rev", "entries", 0, "pays"), "unknown key 'pays'"),
    ('M = { kind = "mystery", reveal = "rev", height = 2 }', reveal_table("rev", [("A", 1)]), ("symbols", "M", "height"),
     "one row tall"),
]


@pytest.mark.parametrize("symbol, table, key, message", BAD)
def test_bad_mystery_symbols_name_file_line_and_key(symbol, table, key, message):
    text = lines_text('free_spins = { 2 = 3 }', base=["A M C SCAT D A B", "A B SCAT C D", "A B C D SCAT"])
    text = text.replace("D = {}\n", "D = {}\n" + symbol + "\n", 1) + table
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bad_mystery.toml")
    dotted = "".join(f"[{k}]" if isinstance(k, int) else ("." if i else "") + k for i, k in enumerate(key))
    problems = info.value.problems
    assert any(p.key == dotted and message in p.message and p.line and p.file == "bad_mystery.toml"
               for p in problems), problems


def test_a_mystery_symbol_cannot_pay_of_its_own():
    text = lines_text('free_spins = { 2 = 3 }', base=["A M C SCAT D A B", "A B SCAT C D", "A B C D SCAT"])
    text = text.replace("D = {}\n", 'D = {}\nM = { kind = "mystery", reveal = "rev" }\n', 1)
    text = text.replace("D = { 3 = 4 }\n", "D = { 3 = 4 }\nM = { 3 = 9 }\n", 1) + reveal_table("rev", [("A", 1)])
    with pytest.raises(ReelsetError) as info:
        loads_game(text, "bad_mystery.toml")
    assert any(p.key.startswith("paytable.M") for p in info.value.problems), info.value.problems


def test_the_table_editor_edits_a_reveal_table_and_the_exact_rtp_follows(tmp_path):
    """The table-weights editor labels a reveal table as the mystery's reveal, and a weight edit moves the exact
    base-game RTP to the price of the edited file."""
    import shutil

    from workbench.widgets import TableWeightsEditor

    path = tmp_path / "mystery_stacks.toml"
    shutil.copyfile(GALLERY, path)
    editor = TableWeightsEditor(path)
    reveal = editor.tables["base_reveal"]
    assert "mystery reveal" in reveal.ev.value and "every MYSTERY" in reveal.ev.value
    before = par(editor.session.game).rtp_exact
    reveal.weights[0].value = 8  # SEVEN revealed more often
    after = par(editor.session.game).rtp_exact
    assert after > before
    assert after == par(load_game(path).with_table_weights("base_reveal", [8, 6, 10, 10, 12, 12, 12])).rtp_exact


def test_a_second_look_at_the_largest_mode_reanalyses_no_strip_set(monkeypatch):
    """mystery_stacks' free spins play 385 strip sets (one per reveal): the report reads that mode's sheet three
    times (PAR of every mode, compliance, workbook), so all of one mode's analyses must fit the strip-set cache."""
    import importlib

    from workbench.exact import analysis

    par_module = importlib.import_module("workbench.exact.par")  # the module (workbench.exact.par is its function)

    game = load_game("examples/mystery_stacks")
    first = par(game, "free_spins", full_cycle=False)
    assert len(game.played_strip_sets("free_spins")) > 300
    calls = []
    monkeypatch.setattr(par_module, "analyse_strip_set",
                        lambda *a, **k: calls.append(1) or analysis.analyse_strip_set(*a, **k))
    second = par(game, "free_spins", full_cycle=False)
    assert calls == [] and second.rtp_exact == first.rtp_exact
