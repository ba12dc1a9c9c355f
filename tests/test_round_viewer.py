"""The round viewer widget (workbench.widgets.RoundViewer) driven from code: find, replay, step, bad input."""

from __future__ import annotations

import re

from workbench.io import load_game
from workbench.plot_layout import layout_problems
from workbench.plot_rounds import screen_figure
from workbench.simulate import simulate
from workbench.widgets import RoundViewer


def test_the_viewer_replays_the_largest_win_and_steps_through_its_screens():
    viewer = RoundViewer("super_10_stars", seed=4, spins=100_000)
    run = simulate(load_game("super_10_stars"), 100_000, 4)
    assert viewer.replayed.round == run.max_win_round.round and viewer.replayed.win_units == run.max_win_units
    steps = len(viewer.trace.steps)
    assert re.fullmatch(rf"step <b>1</b> of {steps} · total so far [\d,.]+ x total bet", viewer.step_label.value)
    assert viewer.prev_button.disabled and (steps == 1) == viewer.next_button.disabled
    first = bytes(viewer.picture.value)
    assert first.startswith(b"\x89PNG")
    if steps > 1:
        viewer.next_button.click()
        assert viewer.step == 1 and bytes(viewer.picture.value) != first and not viewer.prev_button.disabled
        viewer.prev_button.click()
        assert viewer.step == 0
    viewer.where.value = "win >= 50"
    viewer.find_button.click()
    assert viewer.found.options and all(int(v) >= 0 for _, v in viewer.found.options)
    assert "round(s) where <b>win &gt;= 50</b>" in viewer.status.value
    viewer.found.value = viewer.found.options[-1][1]
    viewer.replay_button.click()
    assert viewer.replayed.round == viewer.found.options[-1][1] and viewer.replayed.win >= 50


def test_bad_input_is_shown_and_a_round_without_screens_says_so(monkeypatch):
    """A ways round (its reels' outcomes compressed: the trace turns its virtual stops back into windows) is drawn;
    a trace without screens (no template records none today: forced here) says so instead of drawing nothing."""
    from workbench.simulate import trace
    from workbench.simulate.trace import RoundTrace

    viewer = RoundViewer("examples/ways_243", seed=1, spins=20_000)
    assert viewer.replayed is not None and viewer.trace.steps and viewer.step_label.value.startswith("step <b>1</b> of ")
    assert len(viewer.trace.steps[0].screen) == 5 and viewer.picture.layout.display != "none"
    monkeypatch.setattr(trace, "trace_round", lambda model, replayed: RoundTrace(steps=(), amounts={}, counters={}))
    viewer.replay_button.click()
    assert "not recorded" in viewer.step_label.value and viewer.picture.layout.display == "none"
    viewer.where.value = "bogus >= 1"
    viewer.find_button.click()
    assert "wb-error" in viewer.status.value and "bogus" in viewer.status.value
    viewer.game_box.value = "no_such_game"
    viewer.find_button.click()
    assert "no_such_game" in viewer.status.value and "Traceback" not in viewer.status.value


def test_screen_figures_are_laid_out_cleanly():
    viewer = RoundViewer("examples/cluster_tumble_7x7", seed=2, spins=20_000)
    game = load_game("examples/cluster_tumble_7x7")
    for step in viewer.trace.steps[:3]:
        figure = screen_figure(step, game, total_text="1.5 x total bet", of_steps=len(viewer.trace.steps))
        assert layout_problems(figure) == []


def test_the_outlined_wins_of_a_screen_pay_what_the_round_paid_on_its_lines():
    """classic_tens (10 lines, 1 pay unit per line bet): the reference's line wins on a traced round's screen, the
    cells outlined, add up to the round's lines component."""
    from workbench.plot_rounds import winning_cells
    from workbench.reference.pays import line_wins
    from workbench.simulate.engine import round_model
    from workbench.simulate.replay import find_rounds
    from workbench.simulate.trace import trace_round

    game = load_game("classic_tens")
    model = round_model(game)
    assert game.bet.lines == model.params.cost_units == 10 and game.bet.line_bet == 1
    for replayed in find_rounds(game, 3, 20_000, "lines > 0", limit=8).rounds:
        screen = trace_round(model, replayed).steps[0].screen
        cells, words = winning_cells(game, screen)
        paid = sum(w.paid for k, line in enumerate(game.paylines)
                   for w in line_wins(game, [screen[r][row] for r, row in enumerate(line)], k))
        assert paid == replayed.components["lines"] and words and cells
        assert all(0 <= r < game.reels and 0 <= row < len(screen[r]) for r, row in cells)


def test_the_report_draws_the_first_screen_the_biggest_step_and_the_last():
    from types import SimpleNamespace

    from workbench.report.max_win_round import chosen_steps

    steps = tuple(SimpleNamespace(index=k, total_units=t) for k, t in enumerate([0, 5, 5, 90, 95, 100]))
    assert [s.index for s in chosen_steps(steps)] == [0, 3, 5]
    assert [s.index for s in chosen_steps(steps[:1])] == [0] and chosen_steps(()) == []
    assert [s.index for s in chosen_steps(steps[:2])] == [0, 1]
