"""Prize modes (issue 29, block 6): a bet mode that plays the hold-and-respin feature alone, from an empty screen.

``[bet_modes.NAME] prize_mode = true`` with ``strip_sets = "MODE"``: no line spin; every board (the first one
included, which is the first of the respins) is a spin of MODE's strips, and each empty cell showing a coin
symbol lands a coin. Checked against a closed form (one coin per board on one reel: a Markov chain over the
coins held), against the slow reference (workbench.reference.hold_and_respin_feature) on random prize strips,
and for bad declarations (file, line, key). The gallery's prize mode (hold_and_respin_coins.toml,
``prize_spins``) is priced both ways by tests/test_consistency.py with every other gallery mode.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyp import examples
from workbench import reference
from workbench.errors import ReelsetError
from workbench.io import loads_game
from workbench.simulate import estimate_rtp, simulate

from test_rounds_respins import MEAN_COIN, coin_text

def prize_text(boards: list[list[str]], mode: str = "", extra: str = "", features: str = "", sets: str = "") -> str:
    """The 3x3 coin game of tests/test_rounds_respins.py with a DEAD blank and a prize mode ``prize`` (cost 20)
    whose boards land from the strips ``boards`` (one strip set, or more in ``sets``); ``mode`` adds lines to the
    bet mode, ``extra`` entries to the coin table."""
    text = coin_text(features, jackpots=extra)
    assert text.count('COIN = { kind = "bonus" }\n') == 1
    text = text.replace('COIN = { kind = "bonus" }\n', 'COIN = { kind = "bonus" }\nDEAD = { kind = "blank" }\n')
    prize = "\n".join(f'reel{i + 1} = "{" ".join(r)}"' for i, r in enumerate(boards))
    return (text + f'\n[bet_modes.prize]\ncost = 20\nprize_mode = true\nstrip_sets = "prize"\n{mode}\n'
            f'\n[strip_sets.prize]\nmode = "prize"\n{prize}\n{sets}\n')


def test_one_coin_per_board_on_one_reel_follows_its_markov_chain():
    """Reel 1 shows one COIN in its 3-row window on every board, at a row drawn uniformly; reels 2 and 3 none. The
    first board lands a coin; with h coins held a board lands one with probability (3 - h) / 3, and 3 boards
    without one end the feature: E[coins] = 1 + 26/27 + (26/27)(19/27), each worth MEAN_COIN x total bet."""
    game = loads_game(prize_text([["COIN", "DEAD", "DEAD"], ["DEAD"] * 3, ["DEAD"] * 3]), "prize.toml").in_bet_mode("prize")
    assert game.bet_mode.prize and game.bet_mode.prize_strips == "prize"
    coins = 1 + Fraction(26, 27) + Fraction(26, 27) * Fraction(19, 27)
    result = simulate(game, 200_000, seed=41)
    cost = float(game.bet_mode.cost)
    assert result.counters["hold_and_respin"] == 200_000 and result.counters["hold_and_respin:full"] == 0
    value = result.components["coins"]
    assert abs(value.value * cost - float(coins * MEAN_COIN)) < 4.5 * value.ci95 * cost / 1.96
    # boards: the first, then for h = 1, 2, the boards until a landing (or 3 misses), and 3 misses at h = 3
    boards = 1
    reach = Fraction(1)
    for held in (1, 2):
        miss = Fraction(held, 3)
        # boards played at h: a landing after k misses (k + 1 boards), or 3 misses (3 boards)
        played = sum((k + 1) * miss**k * (1 - miss) for k in range(3)) + 3 * miss**3
        boards += reach * played
        reach *= 1 - miss**3
    boards += reach * 3
    per_round = result.counters["hold_and_respin:respins"] / 200_000
    assert per_round == pytest.approx(float(boards), rel=0.01), (per_round, float(boards))


def test_strips_of_coins_fill_the_first_board_and_pay_the_grand():
    game = loads_game(prize_text([["COIN"] * 3] * 3, features="grand = 40"), "prize.toml").in_bet_mode("prize")
    result = simulate(game, 20_000, seed=42)
    cost = float(game.bet_mode.cost)
    assert result.counters["hold_and_respin:full"] == 20_000 and result.counters["hold_and_respin:respins"] == 20_000
    assert result.components["jackpot:grand"].value * cost == pytest.approx(40)
    coins = result.components["coins"]
    assert abs(coins.value * cost - float(9 * MEAN_COIN)) < 4.5 * coins.ci95 * cost / 1.96


def test_a_prize_mode_without_strips_lands_by_the_respin_weights():
    """No strip_sets: every board, the first included, lands a coin on each empty cell 1 in 6 (the respin weights);
    the mean coins held at the end, by a recursion over (coins held, respins left), times MEAN_COIN."""
    text = prize_text([["COIN", "DEAD", "DEAD"], ["DEAD"] * 3, ["DEAD"] * 3]).replace('strip_sets = "prize"\n', "", 1)
    game = loads_game(text, "prize.toml").in_bet_mode("prize")
    assert game.bet_mode.prize and game.bet_mode.prize_strips is None
    p, cells = Fraction(1, 6), 9

    @functools.cache
    def coins(held: int, left: int) -> Fraction:
        if left == 0 or held == cells:
            return Fraction(held)
        empty = cells - held
        out = Fraction(0)
        for new in range(empty + 1):
            chance = math.comb(empty, new) * p**new * (1 - p) ** (empty - new)
            out += chance * (coins(held + new, 3) if new else coins(held, left - 1))
        return out

    result = simulate(game, 100_000, seed=43)
    cost = float(game.bet_mode.cost)
    value = result.components["coins"]
    assert abs(value.value * cost - float(coins(0, 3) * MEAN_COIN)) < 4.5 * value.ci95 * cost / 1.96


def random_boards(draw) -> list[list[str]]:
    """Three prize strips of 3-7 stops (a 3-row window shows no stop twice), each stop a COIN 1 in 3."""
    return [draw(st.lists(st.sampled_from(["COIN", "DEAD", "DEAD"]), min_size=3, max_size=7)) for _ in range(3)]


@settings(max_examples=examples(6))
@given(data=st.data())
def test_random_prize_strips_equal_the_slow_reference(data):
    """Random prize strips (one or two strip sets by weight, a collector and a jackpot coin, the grand): every
    component's mean of the compiled prize mode equals the slow reference's within their intervals."""
    boards = random_boards(data.draw)
    sets = ""
    if data.draw(st.booleans()):
        other = random_boards(data.draw)
        weight = data.draw(st.integers(1, 5))
        sets = "\n[strip_sets.prize2]\nmode = \"prize\"\nweight = %d\n" % weight + "\n".join(
            f'reel{i + 1} = "{" ".join(r)}"' for i, r in enumerate(other))
        if not any("COIN" in r for r in boards + other):
            boards[0][0] = "COIN"
    elif not any("COIN" in r for r in boards):
        boards[0][0] = "COIN"
    extra = ',\n  { collector = true, weight = 2 },\n  { jackpot = "mini", weight = 1 }'
    text = prize_text(boards, extra=extra, features="mini = 7\ngrand = 30", sets=sets)
    game = loads_game(text, "prize.toml").in_bet_mode("prize")
    result = simulate(game, 60_000, seed=44)
    rng = random.Random(45)
    runs = [reference.hold_and_respin_feature(game, 0, rng) for _ in range(3000)]
    cost = float(game.bet_mode.cost)
    for component in ("coins", "coins:collected", "jackpot:mini", "jackpot:grand"):
        wins = [float(r.get(component, 0) / game.bet.cost) for r in runs]
        mean, se = statistics.fmean(wins), statistics.stdev(wins) / math.sqrt(len(wins))
        mine = result.components.get(component)
        value, ci = (mine.value * cost, mine.ci95 * cost / 1.96) if mine is not None else (0.0, 0.0)
        both = math.hypot(se, ci)
        assert abs(value - mean) < 4.5 * both + 1e-12, (component, value, mean, both, boards, sets)


def test_the_prize_mode_is_priced_alone_by_its_one_state():
    game = loads_game(prize_text([["COIN", "DEAD", "DEAD"], ["DEAD", "COIN", "DEAD", "DEAD"], ["DEAD"] * 3]), "prize.toml")
    estimate = estimate_rtp(game.in_bet_mode("prize"), precision=0.01, seed=46)
    assert [s.name for s in estimate.strata] == ["hold_and_respin:empty screen (prize mode)"]
    assert estimate.strata[0].probability == 1
    assert 0 < estimate.rtp < 10


@pytest.mark.parametrize("edit, key, message", [
    (("prize_mode = true", "prize_mode = 1"), "bet_modes.prize.prize_mode", "expected true or false"),
    (("prize_mode = true", "prize_mode = true\nbuy = true"), "bet_modes.prize.buy", "leave buy out"),
    (("prize_mode = true", "prize_mode = true\nbuy_count = 4"), "bet_modes.prize.buy_count", "leave buy_count out"),
    (('strip_sets = "prize"', 'strip_sets = "bonus"'), "bet_modes.prize.strip_sets", "no strip set has mode"),
    (('reel1 = "COIN DEAD DEAD"', 'reel1 = "DEAD DEAD DEAD"'), "bet_modes.prize.strip_sets", "hold no COIN"),
    (('game_module = "hold_and_respin"', 'game_module = "free_spins"'), "bet_modes.prize.prize_mode",
     "no feature to play from an empty screen"),
])
def test_bad_prize_modes_name_file_line_and_key(edit, key, message):
    text = prize_text([["COIN", "DEAD", "DEAD"], ["DEAD"] * 3, ["DEAD"] * 3])
    assert edit[0] in text
    with pytest.raises(ReelsetError) as info:
        loads_game(text.replace(edit[0], edit[1], 1), "prize.toml")
    assert any(p.key.startswith(key) and message in p.message and p.line and p.file == "prize.toml"
               for p in info.value.problems), info.value.problems
