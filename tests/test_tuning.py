"""The RTP tuner (workbench.tuning, `workbench tune`).

Each game below is first pushed off its RTP (a few stops of its base strips
changed), then tuned back to the RTP of the game as shipped; the tuned game
must be within the tolerance, keep every --keep band (re-measured exactly
here, not taken from the tuner), keep the strip rules (it validates; reel
lengths and every symbol that may not vary are as they were) and load in the
strip editor.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from workbench.cli import EXIT_UNREACHED, main
from workbench.errors import TargetUnreachableError, TuningError
from workbench.io import load_game, resolve_game_path
from workbench.tuning import (FeatureTerms, Keep, measure, parse_keep, tune, tune_versions, version_path,
                              versions_table)
from workbench.widgets import StripEditor

TOLERANCE = 0.0001


def off_target_copy(name: str, tmp_path, shift: int = 2):
    """A copy of ``name`` with ``shift`` stops of its most common varied symbol on reel 1 of the base strip set
    turned into the least common one (so its RTP is off), saved to ``tmp_path``."""
    game = load_game(name)
    path = tmp_path / resolve_game_path(name).name
    path.write_text(game.text)
    game = load_game(path)
    set_name = "base"
    from workbench.tuning import _resolve_vary

    vary = _resolve_vary(game, set_name, None)
    reel = min(vary)
    strip = list(game.strip_sets[set_name].reels[reel].symbols)
    counts = Counter(s for s in strip if s in vary[reel])
    common = counts.most_common()[0][0]
    rare = counts.most_common()[-1][0]
    changed = 0
    for k, s in enumerate(strip):
        if s == common and changed < shift:
            strip[k] = rare
            changed += 1
    off = game.with_strip(set_name, reel + 1, strip, game.strip_sets[set_name].reels[reel].weights)
    from workbench.io import save_game

    save_game(off, path)
    return load_game(path)


def assert_strip_rules_kept(original, tuned, strip_set, varied, stop_weights=False):
    for old, new in zip(original.strip_sets[strip_set].reels, tuned.strip_sets[strip_set].reels):
        assert len(old.symbols) == len(new.symbols)
        if stop_weights:
            assert sum(old.weights) == sum(new.weights)
        else:
            assert old.weights == new.weights
        for k, (a, b) in enumerate(zip(old.symbols, new.symbols)):
            if a != b:
                assert a in varied and b in varied, f"stop {k + 1}: {a} -> {b} outside the varied symbols"
        fixed_old = Counter(s for s in old.symbols if s not in varied)
        fixed_new = Counter(s for s in new.symbols if s not in varied)
        assert fixed_old == fixed_new
    for name, other in original.strip_sets.items():
        if name != strip_set:
            assert other == tuned.strip_sets[name]


CASES = [
    # (game, keeps)
    ("classic_tens", ["hit_frequency", "volatility_index_90=4.15±0.2"]),
    ("super_10_stars", ["hit_frequency"]),
    ("bier_haus_oktober_fest", ["hit_frequency", "trigger:free_spins"]),
    ("examples/ways_243", ["hit_frequency"]),
    ("examples/multiplier_wild_lines", ["hit_frequency", "volatility_index_95"]),
]


@pytest.mark.parametrize("name,keeps", CASES, ids=[c[0] for c in CASES])
def test_tuner_brings_an_off_target_copy_back_to_its_rtp(name, keeps, tmp_path):
    shipped = load_game(name)
    off = off_target_copy(name, tmp_path)
    terms = FeatureTerms.estimate(off, 0.002, seed=3)
    target = measure(shipped, terms=terms)["rtp"]
    start = measure(off, terms=terms)
    assert abs(start["rtp"] - target) > 10 * TOLERANCE, "the copy must start off target"
    # the search alone (confirm=False): its figures, with the terms held, are in the bands; an exact RTP is confirmed
    # anyway (tests/test_tuning_confirm.py checks the confirmation of games with features)
    result = tune(off, target, keep=keeps, terms=terms, tolerance=TOLERANCE, confirm=False)
    assert result.in_band and result.reached == (not terms.present)
    assert result.status == ("not confirmed" if terms.present else "reached")
    assert abs(result.after["rtp"] - target) <= TOLERANCE
    # re-measure the tuned game from its saved file: the figures are the file's, not the tuner's
    out = tmp_path / "tuned.toml"
    result.save(out)
    saved = load_game(out)
    again = measure(saved, terms=terms)
    assert abs(again["rtp"] - target) <= TOLERANCE
    for text in keeps:
        keep = parse_keep(text, start)
        assert keep.holds(again[keep.metric]), f"{text}: {again[keep.metric]} outside [{keep.low}, {keep.high}]"
    assert_strip_rules_kept(off, saved, result.strip_set, set(result.vary))
    assert len(result.changes) == sum(a != b for o, n in zip(off.strip_sets["base"].reels, saved.strip_sets["base"].reels)
                                      for a, b in zip(o.symbols, n.symbols))
    assert result.rtp_ci95 == (terms.ci95 if terms.present else 0.0)
    # the result opens in the strip editor, with the tuned strips
    editor = StripEditor(out)
    assert editor.reel_editors[0].text.value == saved.strip_sets["base"].reels[0].to_text()


def test_save_changes_only_the_tuned_strips(tmp_path):
    off = off_target_copy("classic_tens", tmp_path)
    result = tune(off, 0.94, terms=FeatureTerms.none())
    changed_reels = {c.reel for c in result.changes}
    diff_lines = [l for l in result.diff.splitlines() if l.startswith(("+", "-")) and not l.startswith(("+++", "---"))]
    assert diff_lines and all(l[1:].lstrip().startswith("reel") for l in diff_lines)
    assert {int(l[1:].split("=")[0].strip()[4:]) for l in diff_lines} == changed_reels
    # the original file is untouched until asked
    assert load_game(off.path).text == off.text


def test_keep_parsing():
    current = {"hit_frequency": 0.30, "volatility_index_90": 8.0, "trigger:free_spins": 1 / 150, "rtp": 0.9, "max_win": 100.0}
    assert parse_keep("hit_frequency=0.28±0.01", current) == Keep("hit_frequency", 0.28 - 0.01, 0.28 + 0.01, "hit_frequency=0.28±0.01")
    k = parse_keep("trigger:free_spins=1/150±10%", current)
    assert k.low == pytest.approx(1 / 150 * 0.9) and k.high == pytest.approx(1 / 150 * 1.1)
    k = parse_keep("volatility_index_90", current)
    assert (k.low, k.high) == (pytest.approx(7.92), pytest.approx(8.08))
    k = parse_keep("hit_frequency=28%+-1", current)
    assert (k.low, k.high) == (pytest.approx(-0.72), pytest.approx(1.28))
    for bad, message in [("hitfreq", "did you mean 'hit_frequency'"), ("rtp=0.9", "unknown figure 'rtp'"),
                         ("hit_frequency=abc", "not a number"), ("hit_frequency=0.3±-1", "tolerance of 0 or more"),
                         ("=3", "write NAME")]:
        with pytest.raises(TuningError, match=message):
            parse_keep(bad, current)


def test_bad_requests_are_clear_errors():
    game = load_game("classic_tens")
    with pytest.raises(TuningError, match="unknown symbol 'ACE'"):
        tune(game, 0.94, vary=["ACE", "PLUM"])
    with pytest.raises(TuningError, match="no strip set 'bse'.*did you mean 'base'"):
        tune(game, 0.94, strip_set="bse")
    with pytest.raises(TuningError, match="no mode 'ante'"):
        tune(game, 0.94, mode="ante")
    with pytest.raises(TuningError, match="fraction of total bet"):
        tune(game, 96.0)
    with pytest.raises(TuningError, match="max-changes"):
        tune(game, 0.94, max_changes=0)


def test_unreachable_target_names_the_binding_constraint():
    game = load_game("classic_tens")
    with pytest.raises(TargetUnreachableError) as info:
        tune(game, 0.90, max_changes=1, terms=FeatureTerms.none())
    err = info.value
    assert err.binding == "max_changes"
    assert "--max-changes 1 binds" in str(err) and "closest reachable RTP is" in str(err)
    closest = err.closest
    assert len(closest.changes) <= 1 and not closest.reached
    assert f"{closest.rtp * 100:.4f} %" in str(err)
    # a kept band that cannot hold with the RTP moved that far
    with pytest.raises(TargetUnreachableError) as info:
        tune(game, 0.85, keep=["hit_frequency=0.4841±0.0001", "volatility_index_90=4.1538±0.0001"], terms=FeatureTerms.none(),
             max_steps=4)
    assert info.value.binding.startswith("keep:") or info.value.binding in ("vary", "search")
    assert "cannot be reached" in str(info.value)


def test_versions_share_the_special_symbols_and_differ_only_in_varied_ones(tmp_path):
    game = load_game("examples/ways_243")
    results = tune_versions(game, [0.96, 0.94, 0.92], keep=["hit_frequency=0.40±0.02"])
    for r in results:
        assert r.reached and abs(r.rtp - r.target) <= TOLERANCE
        assert_strip_rules_kept(game, r.game, "base", set(r.vary))
        assert not {c.old for c in r.changes} & {"WILD", "SCATTER"}
    table = versions_table(results)
    assert list(table.columns) == ["target 96.00 %", "target 94.00 %", "target 92.00 %"]
    text = table.to_string()
    assert "e-0" not in text and "{" not in text
    assert version_path(tmp_path / "ways.toml", 0.9618).name == "ways_rtp9618.toml"


def test_cli_tune_writes_versions_and_reports_json(tmp_path, capsys):
    out = tmp_path / "classic.toml"
    status = main(["tune", "classic_tens", "--targets", "96%,0.94", "--keep", "hit_frequency", "--out", str(out), "--json"])
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["reached"] for d in data] == [True, True]
    for d, t in zip(data, (0.96, 0.94)):
        path = version_path(out, t)
        assert d["saved_to"] == str(path)
        assert abs(measure(load_game(path))["rtp"] - t) <= TOLERANCE
    status = main(["tune", "classic_tens", "--target-rtp", "0.90", "--max-changes", "1"])
    printed = capsys.readouterr().out
    assert status == EXIT_UNREACHED and "NOT REACHED" in printed and "--max-changes 1 binds" in printed
    with pytest.raises(SystemExit) as exit_info:  # argparse's own error
        main(["tune", "classic_tens", "--target-rtp", "96.18"])
    assert exit_info.value.code == 2 and "looks like a percentage" in capsys.readouterr().err
    assert main(["tune", "classic_tens", "--target-rtp", "0.95", "--keep", "hitfreq"]) == 2
    assert "did you mean 'hit_frequency'" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# weights as decision variables
# ---------------------------------------------------------------------------
def test_table_weights_tune_a_random_feature_rate_with_held_feature_means(tmp_path):
    """Bier Haus's base random feature table ("out of 100000 so the beer weight can fine-tune the RTP"): its
    weights move the trigger states' probabilities; the states' means are held from the estimate."""
    game = load_game("bier_haus_oktober_fest")
    terms = FeatureTerms.estimate(game, 0.002, seed=5)
    now = measure(game, terms=terms, strata=True)["rtp"]
    result = tune(game, now - 0.003, vary=(), tables=["base_random_feature"], terms=terms, tolerance=TOLERANCE,
                  confirm=False)
    assert result.in_band and not result.changes and result.weight_changes
    assert all(c.where == "table base_random_feature" for c in result.weight_changes)
    old, new = game.tables["base_random_feature"], result.game.tables["base_random_feature"]
    assert sum(new.weights) == sum(old.weights)  # "out of 100000" still
    out = tmp_path / "bh.toml"
    result.save(out)
    assert abs(measure(load_game(out), terms=terms, strata=True)["rtp"] - (now - 0.003)) <= TOLERANCE
    assert load_game(out).strip_sets == game.strip_sets
    # the result opens in the table editor with the tuned weights
    from workbench.widgets import TableWeightsEditor

    editor = TableWeightsEditor(out)
    assert tuple(box.value for box in editor.tables["base_random_feature"].weights) == new.weights


def test_coarse_strip_set_weights_are_refined_with_a_note():
    game = load_game("super_10_stars")
    terms = FeatureTerms.estimate(game, 0.002, seed=5)
    now = measure(game, terms=terms, strata=True)["rtp"]
    result = tune(game, now + 0.003, vary=(), strip_set_weights=True, terms=terms, tolerance=TOLERANCE, confirm=False)
    assert result.in_band
    assert result.notes and "multiplied by" in result.notes[0] and "the same probabilities" in result.notes[0]
    sets = [result.game.strip_sets[n].weight for n in ("base", "base_bonus")]
    assert sum(sets) == 100 * 10 ** (len(str(sum(sets))) - 3)  # 88 + 12 scaled by a power of ten
    assert sets[1] / sum(sets) > 12 / 100  # more of the bonus strips: a higher RTP


def test_a_table_that_only_feeds_a_simulated_mean_is_refused():
    game = load_game("super_10_stars")
    with pytest.raises(TuningError, match="table wheel moves no exact figure.*holds from one estimate"):
        tune(game, 0.95, vary=(), tables=["wheel"], terms=FeatureTerms.estimate(game, 0.002, seed=5))
    with pytest.raises(TuningError, match="no table 'whel'.*did you mean 'wheel'"):
        tune(game, 0.95, tables=["whel"])


def test_stop_weights_and_award_tables_are_exact_variables():
    classic = load_game("examples/classic_any_bar")
    result = tune(classic, 0.93, vary=(), stop_weights=True, keep=["hit_frequency"], terms=FeatureTerms.none())
    assert result.reached and not result.changes and result.weight_changes
    for old, new in zip(classic.strip_sets["base"].reels, result.game.strip_sets["base"].reels):
        assert old.symbols == new.symbols and sum(old.weights) == sum(new.weights)
    pick = load_game("examples/line_bonus_pick")
    result = tune(pick, 0.96, vary=(), tables=["pick_awards"], terms=FeatureTerms.none())
    assert result.reached and result.rtp_source == "exact"
    assert abs(measure(result.game)["rtp"] - 0.96) <= TOLERANCE


# ---------------------------------------------------------------------------
# every gallery game
# ---------------------------------------------------------------------------
from workbench.io import example_games  # noqa: E402
from workbench.simulate import round_model  # noqa: E402

# the variables each gallery game is tuned with (default: its symbol counts); see docs/tuning.md, "Limits"
GALLERY_VARIABLES = {"examples/classic_any_bar": {"vary": (), "stop_weights": True}}
# symbol swaps price this game only approximately (its pays depend on where each stop sits): the tuner may stop
# short, and must then say so, with a valid closest result
GALLERY_MAY_STOP_SHORT = {"examples/pay_anywhere_6x5", "examples/pay_anywhere_tumble"}
@pytest.mark.parametrize("name", example_games())
def test_tuner_on_every_gallery_game(name):
    game = load_game(name)
    featured = [s for s in round_model(game).strata if s.probability > 0]
    # feature games (declared free spins) tune their base strips to a whole-game target, the feature terms held;
    # a tumble game's terms only show that the whole game is refused, so a coarse estimate does
    coarse = any(s.moves_with_base_strips for s in featured)
    terms = FeatureTerms.estimate(game, 0.02 if coarse else 0.002, 5) if featured else FeatureTerms.none()
    if terms.moves_with_base_strips:
        # a tumble game's cascades move with every stop: the whole game is refused, the first drop is tuned alone
        assert terms.moves_with_base_strips == ("tumble",)
        with pytest.raises(TuningError, match="depends on every stop of the base strips \\(a tumble's cascades\\)"):
            tune(game, measure(game, terms=terms)["rtp"] - 0.005, terms=terms)
        terms = FeatureTerms.base_only()
    target = measure(game, terms=terms)["rtp"] - 0.005
    options = GALLERY_VARIABLES.get(name, {})
    try:
        result = tune(game, target, terms=terms, tolerance=TOLERANCE, confirm=False, **options)
    except TargetUnreachableError as exc:
        assert name in GALLERY_MAY_STOP_SHORT, str(exc)
        assert "cannot be reached" in str(exc) and exc.binding
        result = exc.closest
    else:
        assert result.in_band and abs(result.after["rtp"] - target) <= TOLERANCE
        assert abs(measure(result.game, terms=terms)["rtp"] - target) <= TOLERANCE
    from workbench.io import loads_game, render_text

    reloaded = loads_game(render_text(result.game), "tuned.toml")  # the tuned text validates
    assert_strip_rules_kept(game, reloaded, "base", set(result.vary), options.get("stop_weights", False))


# ---------------------------------------------------------------------------
# random games (hypothesis)
# ---------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hyp import examples
from hypothesis import strategies as st  # noqa: E402

from randomgames import random_game_text  # noqa: E402


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=random_game_text(max_reels=4, max_stops=8), delta=st.sampled_from([-0.05, -0.01, 0.01, 0.05]))
def test_tuner_on_random_games_keeps_its_word(text, delta):
    """Whatever the game: the tuner reaches the band or says it cannot; the figures it reports are the tuned
    file's own (re-measured here); the tuned text validates; only varied symbols moved, reel lengths and weights
    are as they were."""
    from workbench.io import loads_game, render_text

    game = loads_game(text, "random.toml")
    start = measure(game)
    if not 0 < start["rtp"] < 5:
        return  # nothing to tune, or no game a designer would make
    target = start["rtp"] * (1 + delta)
    try:
        result = tune(game, target, terms=FeatureTerms.none(), max_steps=6)
    except TargetUnreachableError as exc:
        result = exc.closest
        assert "cannot be reached" in str(exc)
        assert not result.reached
    except TuningError as exc:
        assert "nothing to vary" in str(exc) or "no reel holds two" in str(exc)
        return
    else:
        assert result.reached and abs(result.rtp - target) <= TOLERANCE
    tuned = loads_game(render_text(result.game), "tuned.toml")
    again = measure(tuned)
    for key, value in result.after.items():
        assert again[key] == pytest.approx(value, rel=1e-12, abs=1e-15), key
    assert_strip_rules_kept(game, tuned, result.strip_set, set(result.vary))
    assert len(result.changes) == sum(a != b for o, n in zip(game.strip_sets[result.strip_set].reels,
                                                              tuned.strip_sets[result.strip_set].reels)
                                      for a, b in zip(o.symbols, n.symbols))


def test_feature_mode_strips_are_tuned_per_spin_or_refused():
    game = load_game("super_10_stars")
    with pytest.raises(TuningError, match="played inside a simulated feature.*--base-only --mode free_spins"):
        tune(game, 0.95, mode="free_spins", terms=FeatureTerms.estimate(game, 0.002, seed=5))
    per_spin = measure(game, "free_spins")["rtp"]
    result = tune(game, per_spin - 0.01, mode="free_spins", terms=FeatureTerms.base_only())
    assert result.reached and result.strip_set == "free_spins"
    assert result.rtp_source == "exact, per spin of mode free_spins"
    assert result.table()["figure"][0] == "RTP per spin of mode free_spins (exact)"
    assert all(c.strip_set == "free_spins" for c in result.changes)
    assert result.game.strip_sets["base"] == game.strip_sets["base"]


def test_a_tumble_game_is_refused_before_its_feature_terms_are_estimated(monkeypatch):
    """Whole-game tuning of a tumble game moves parts held by nothing (its cascades follow every base stop): the
    tuner says so at once, from the round model, instead of after estimating the terms it would then refuse."""
    import workbench.tuning.confirm as confirm

    monkeypatch.setattr(confirm, "held_terms", lambda *a, **k: pytest.fail("the terms were estimated before refusing"))
    game = load_game("examples/pay_anywhere_tumble")
    with pytest.raises(TuningError, match="\\('tumble'\\) depends on every stop of the base strips"):
        tune(game, 0.95)
