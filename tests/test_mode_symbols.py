"""Per-mode symbols ([symbols] X by_mode / modes): a wild's multiplier (fixed or drawn per landing) and
substitution per strip-set mode, and the modes a symbol may appear in.

Checked: validation names file, line and key; the base game is priced with the base mode's symbols and every
other mode with its own (the same figures as a file declaring those symbols outright); a bet mode's strips play
their mode's symbols; the compiled free spins equal the slow reference (workbench.reference.free_spins_feature)
on random lines and ways games, and their closed form (spins x the free mode's exact RTP per spin); the gallery's
1,024-ways game (the designer's draft: a wild x2 / x3 by weight in the free spins only) simulated end to end
agrees with exact + conditional.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.errors import ReelsetError
from workbench.exact import par
from workbench.io import load_game, loads_game
from workbench.simulate import estimate_rtp, simulate

from test_rounds_free_spins import assert_strata_equal_the_reference

DRAFT = Path(__file__).resolve().parent.parent / "reelsets" / "examples" / "ways_1024_free_wild_multipliers.toml"


def small_text(symbols: str = 'W = { kind = "wild", by_mode = { free = { multiplier = 2 } } }', *, rule: str = "lines",
               module: str = "free_spins", features: str | None = None, base=None, free=None, rows: int = 3,
               extra: str = "") -> str:
    """A 3-reel game (lines or ways) with wild W, scatter S starting free spins on 2+, strips of modes base and free."""
    base = base or ["A B W S C A B C", "A S B C W A B C", "A B C S A W B C"]
    free = free or ["A W C S A B W C", "W A B S C A B C", "A B W C S A B W"]
    if features is None:
        features = 'trigger = "fs"\nfree_spins = { 2 = 3 }\nfree_spins_mode = "free"' if module == "free_spins" else ""
    lines = "[paylines]\nlines = [[1, 1, 1], [0, 0, 0], [0, 1, 1]]\n" if rule == "lines" else ""
    bet = "lines = 3\ncost = 3\nline_bet = 1" if rule == "lines" else "cost = 10\nline_bet = 1"
    reels = lambda rs: "\n".join(f'reel{i + 1} = "{r}"' for i, r in enumerate(rs))  # noqa: E731
    return f"""format_version = 1
name = "Mode symbols"
game_module = "{module}"

[grid]
reels = 3
rows = {rows}

[pays]
rule = "{rule}"

[bet]
{bet}

[symbols]
{symbols}
S = {{ kind = "scatter" }}
A = {{}}
B = {{}}
C = {{}}

[paytable]
A = {{ 3 = 20 }}
B = {{ 2 = 2, 3 = 10 }}
C = {{ 3 = 5 }}

{lines}
[scatters.S]
symbols = ["S"]
pays = {{ 3 = 5 }}

[triggers.fs]
scatter = "S"
min_count = 2

[features]
{features}
{extra}
[strip_sets.base]
mode = "base"
{reels(base)}

[strip_sets.free]
mode = "free"
{reels(free)}
"""


def problems(text: str) -> list:
    with pytest.raises(ReelsetError) as err:
        loads_game(text, "bad.toml")
    return err.value.problems


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
BAD = [
    ('W = { kind = "wild" }\nZ = { by_mode = { free = { multiplier = 2 } } }', {}, "symbols.Z.by_mode", "only wild symbols change per mode"),
    ('W = { kind = "wild", by_mode = { fre = { multiplier = 2 } } }', {}, "symbols.W.by_mode.fre",
     "no strip set has mode 'fre' (did you mean 'free'?)"),
    ('W = { kind = "wild", by_mode = { free = { multiplier = 0 } } }', {}, "symbols.W.by_mode.free.multiplier", "at least 1"),
    ('W = { kind = "wild", by_mode = { free = { multiplier = "nope" } } }', {}, "symbols.W.by_mode.free.multiplier",
     "unknown table 'nope'"),
    ('W = { kind = "wild", by_mode = { free = { height = 2 } } }', {}, "symbols.W.by_mode.free.height", "unknown key 'height'"),
    ('W = { kind = "wild", by_mode = { free = {} } }', {}, "symbols.W.by_mode.free", "gives nothing"),
    ('W = { kind = "wild", by_mode = { free = { substitutes = ["A", "Q"] } } }', {}, "symbols.W.by_mode.free.substitutes[1]",
     "unknown symbol 'Q'"),
    ('W = { kind = "wild", by_mode = 3 }', {}, "symbols.W.by_mode", "expected a table"),
    ('W = { kind = "wild", modes = "free" }', {}, "symbols.W.modes", "expected a non-empty list of strip-set mode names"),
    ('W = { kind = "wild", modes = ["base", "bonus"] }', {}, "symbols.W.modes", "no strip set has mode 'bonus'"),
    ('W = { kind = "wild", modes = ["free"] }', {}, "strip_sets.base.reel1",
     "stop 3: W may not appear on the strips of mode 'base' (its modes are free)"),
    ('W = { kind = "wild", by_mode = { free = { multiplier = "wm" } } }',
     {"features": 'trigger = "fs"\nfree_spins = { 2 = 3 }\nfree_spins_mode = "free"\nfree_spins_wilds = "sticky"\n'
                  'wild_symbol = "W"', "extra": "[tables.wm]\nentries = [{ multiplier = 2, weight = 1 }]\n"},
     "features.free_spins_wilds", "not played beside wilds whose multiplier is drawn per landing (W in mode 'free')"),
    ('W = { kind = "wild", by_mode = { free = { substitutes = ["A"] } } }', {"module": "tumble", "features": ""},
     "symbols.W.by_mode", "the tumble round plays every mode with the same symbols"),
]


@pytest.mark.parametrize("symbols, kwargs, key, message", BAD)
def test_bad_mode_symbols_name_file_line_and_key(symbols, kwargs, key, message):
    found = problems(small_text(symbols, **kwargs))
    assert any(p.key == key and message in p.message and p.file == "bad.toml" and p.line for p in found), \
        [(p.key, p.line, p.message) for p in found]


def test_a_bespoke_round_refuses_symbols_that_change_per_mode():
    text = (Path(__file__).resolve().parent.parent / "reelsets" / "super_10_stars.toml").read_text()
    name, spec = re.search(r"^(\w+) = (\{ kind = \"wild\"[^\n]*\})$", text, re.M).groups()
    changed = text.replace(f"{name} = {spec}", f"{name} = {spec[:-1]}, by_mode = {{ base = {{ substitutes = [\"BAR\"] }} }} }}")
    assert changed != text
    found = problems(changed)
    assert any(p.key == f"symbols.{name}.by_mode" and "a wild that changes per mode" in p.message for p in found) or \
        any(p.key.startswith(f"symbols.{name}") for p in found), [(p.key, p.message) for p in found]


def test_the_editor_refuses_a_symbol_off_its_mode():
    game = loads_game(small_text('W = { kind = "wild", modes = ["free"] }', base=[
        "A B C S C A B C", "A S B C B A B C", "A B C S A C B C"]), "ok.toml")
    with pytest.raises(ReelsetError) as err:
        game.with_strip("base", 1, ["A", "W", "B", "C"])
    assert "W may not appear on the strips of mode 'base'" in str(err.value)
    assert game.with_strip("free", 1, ["A", "W", "B", "C", "S"]).strip_sets["free"].reels[0].symbols[1] == "W"


# ---------------------------------------------------------------------------
# each mode priced with its own symbols
# ---------------------------------------------------------------------------
def test_each_mode_is_priced_with_its_symbols():
    """par of a mode equals par of a file declaring that mode's symbols outright (lines and ways, fixed and
    drawn multipliers, substitution)."""
    table = "[tables.wm]\nentries = [{ multiplier = 2, weight = 3 }, { multiplier = 5, weight = 1 }]\n"
    for rule in ("lines", "ways"):
        for free_spec, outright in (
                ('multiplier = 3', 'W = { kind = "wild", multiplier = 3 }'),
                ('multiplier = "wm"', 'W = { kind = "wild", multiplier = "wm" }'),
                ('substitutes = ["A"], multiplier = 2', 'W = { kind = "wild", substitutes = ["A"], multiplier = 2 }')):
            game = loads_game(small_text(f'W = {{ kind = "wild", by_mode = {{ free = {{ {free_spec} }} }} }}', rule=rule,
                                         extra=table), "m.toml")
            plain = loads_game(small_text('W = { kind = "wild" }', rule=rule, extra=table), "p.toml")
            declared = loads_game(small_text(outright, rule=rule, extra=table), "d.toml")
            assert par(game, full_cycle=False).rtp_exact == par(plain, full_cycle=False).rtp_exact  # the base: W plain
            mine, theirs = par(game, "free", full_cycle=False), par(declared, "free", full_cycle=False)
            assert (mine.rtp_exact, mine.cycle) == (theirs.rtp_exact, theirs.cycle), (rule, free_spec)
            assert mine.rtp_exact != par(plain, "free", full_cycle=False).rtp_exact


def test_a_bet_mode_plays_its_strips_symbols():
    text = small_text('W = { kind = "wild", by_mode = { ante = { multiplier = 4 }, free = { multiplier = 2 } } }',
                      extra='[bet_modes.ante]\ncost = 1.5\nstrip_sets = "ante"\n\n[strip_sets.ante]\nmode = "ante"\n'
                            'reel1 = "A B W S C A"\nreel2 = "A S B W A B"\nreel3 = "W B C S A C"\n')
    game = loads_game(text, "ante.toml")
    assert game.symbols["W"].multiplier == 1 and game.in_strip_mode("free").symbols["W"].multiplier == 2
    ante = game.in_bet_mode("ante")
    assert ante.symbols["W"].multiplier == 4  # its strips are the mode's base now, with their symbols
    assert ante.in_strip_mode("free").symbols["W"].multiplier == 2 and ante.in_strip_mode("base:main").symbols["W"].multiplier == 1
    outright = loads_game(text.replace("by_mode = { ante = { multiplier = 4 }, free = { multiplier = 2 } }", "multiplier = 4"), "o.toml")
    assert par(ante, full_cycle=False).rtp_exact == par(outright, "ante", full_cycle=False).rtp_exact


# ---------------------------------------------------------------------------
# the compiled free spins
# ---------------------------------------------------------------------------
def test_feature_mean_is_spins_times_the_free_modes_rtp():
    """No retriggers: a feature pays its spins x the free mode's exact RTP per spin (x total bet), table wilds drawn."""
    for rule in ("lines", "ways"):
        game = loads_game(small_text('W = { kind = "wild", by_mode = { free = { multiplier = "wm" } } }', rule=rule,
                                     extra="[tables.wm]\nentries = [{ multiplier = 2, weight = 3 }, { multiplier = 3, weight = 1 }]\n"),
                          "fs.toml")
        per_spin = par(game, "free", full_cycle=False).rtp
        est = estimate_rtp(game, precision=0.01, seed=4)
        for stratum in est.strata:
            assert abs(stratum.mean_extra - 3 * per_spin) < 4.5 * stratum.ci95 / 1.96, (rule, stratum, 3 * per_spin)


@st.composite
def mode_symbol_games(draw):
    """A random 3-reel lines or ways free-spins game whose wild differs in the free spins: a fixed or drawn multiplier,
    perhaps a narrower substitution, perhaps retriggers (perhaps on fewer scatters than the trigger needs)."""
    rule = draw(st.sampled_from(["lines", "ways"]))
    symbols = ["A", "B", "C", "W", "S"]
    strip = lambda: " ".join(draw(st.lists(st.sampled_from(symbols), min_size=4, max_size=7)))  # noqa: E731
    base = [strip() + " S" for _ in range(3)]
    free = [strip() + " S W" for _ in range(3)]
    multiplier = draw(st.sampled_from(['2', '3', '"wm"']))
    subs = draw(st.sampled_from(["", ', substitutes = ["A", "B"]']))
    retrigger = draw(st.sampled_from(["", "retrigger = { 2 = 1 }\nmax_free_spins = 6",
                                      "retrigger = { 1 = 1, 2 = 2 }\nretrigger_min_count = 1\nmax_free_spins = 7"]))
    spins = draw(st.integers(1, 3))
    features = f'trigger = "fs"\nfree_spins = {{ 2 = {spins} }}\nfree_spins_mode = "free"\n{retrigger}'
    table = "[tables.wm]\nentries = [{ multiplier = 2, weight = %d }, { multiplier = 4, weight = %d }]\n" % (
        draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    return small_text(f'W = {{ kind = "wild", by_mode = {{ free = {{ multiplier = {multiplier}{subs} }} }} }}', rule=rule,
                      features=features, base=base, free=free, rows=draw(st.integers(2, 3)), extra=table)


@settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mode_symbol_games())
def test_compiled_feature_equals_the_slow_reference(text):
    """The compiled feature's mean per trigger count equals workbench.reference.free_spins_feature's (both
    simulated: within 4.5 combined standard errors) on random games whose wild differs in the free spins."""
    game = loads_game(text, "random.toml")
    assert_strata_equal_the_reference(game, estimate_rtp(game, precision=0.01, seed=11, max_seconds=5), 12, 800)


# ---------------------------------------------------------------------------
# the designer's draft (the gallery game)
# ---------------------------------------------------------------------------
def test_the_drafts_base_game_is_exact_with_the_wild_plain():
    game = load_game(DRAFT)
    assert game.symbols["WILD"].multiplier == 1 and game.symbols["WILD"].multiplier_table is None
    free = game.in_strip_mode("free_spins")
    assert free.symbols["WILD"].multiplier_table == "fs_wild"
    declared = ', by_mode = { free_spins = { multiplier = "fs_wild" }, super_free = { multiplier = "super_wild" } }'
    assert declared in DRAFT.read_text()
    plain = loads_game(DRAFT.read_text().replace(declared, ""), "plain.toml")
    assert par(game, full_cycle=False).rtp_exact == par(plain, full_cycle=False).rtp_exact
    assert par(game, "free_spins", full_cycle=False).rtp > 2 * par(plain, "free_spins", full_cycle=False).rtp


def test_the_draft_simulated_end_to_end_agrees_with_exact_plus_conditional():
    game = load_game(DRAFT)
    result = simulate(game, 400_000, seed=21)
    est = estimate_rtp(game, precision=0.004, seed=22)
    assert result.counters["free_spins"] > 0
    both = math.hypot(result.rtp_ci95, est.rtp_ci95) / 1.96
    assert abs(result.rtp - est.rtp) < 4.5 * both, (result.rtp, est.rtp, both)
