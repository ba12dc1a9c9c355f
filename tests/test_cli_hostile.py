"""The `workbench` command against hostile arguments: every bad value is refused with exit 2 and
a one-line message naming the option (or path) and the value, before any work starts; never a
traceback.  Run in-process through `workbench.cli.main(argv)`, and a few through a real process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import cli

HUGE = "1" + "0" * 30


def _cases(tmp: Path) -> list[tuple[list[str], int, tuple[str, ...]]]:
    """(argv, exit status, what stderr must name)."""
    a_file = tmp / "plain.txt"
    a_file.write_text("not a folder\n")
    big = tmp / "big.toml"
    with open(big, "wb") as handle:  # sparse: no disk space used
        handle.truncate(cli.MAX_REELSET_BYTES + 1)
    reelset = Path(cli.__file__).resolve().parents[2] / "reelsets" / "classic_tens.toml"
    not_a_checkpoint = tmp / "reelset-copy.toml"
    not_a_checkpoint.write_text(reelset.read_text())
    sim = ["simulate", "classic_tens", "--spins", "1000", "--quiet"]
    rtp = ["rtp", "classic_tens", "--quiet"]
    rep = ["report", "classic_tens", "--quiet"]
    return [
        # the command itself
        ([], 2, ("COMMAND",)),
        (["frobnicate"], 2, ("invalid choice", "frobnicate")),
        (["list", "extra"], 2, ("unrecognized arguments", "extra")),
        (["list"], 0, ()),
        # validate
        (["validate"], 2, ("FILE",)),
        (["validate", "/dev/zero"], 2, ("FILE", "/dev/zero", "not a regular file")),
        (["validate", ""], 2, ("FILE", "empty path")),
        (["validate", "x" * 5000], 2, ("FILE", "5,000 characters", "too long")),
        (["validate", str(big)], 2, ("FILE", str(big), "too large")),
        (["validate", str(tmp / "nonexistent.toml")], 2, ("nonexistent.toml", "not found")),
        (["validate", str(a_file)], 2, (str(a_file),)),
        (["validate", "classic_tens"], 0, ()),
        # par
        (["par"], 2, ("name a GAME",)),
        (["par", "no_such_game"], 2, ("no_such_game",)),
        (["par", "classic_tens", "--mode", "no_such_mode"], 2, ("no_such_mode",)),
        (["par", "classic_tens", "--budget", "-1"], 2, ("--budget", "'-1'")),
        (["par", "classic_tens", "--budget", "0"], 2, ("--budget", "'0'")),
        (["par", "classic_tens", "--budget", "lots"], 2, ("--budget", "'lots'")),
        (["par", "classic_tens", "--xlsx", "/dev/null/x.xlsx"], 2, ("cannot write /dev/null/x.xlsx", "/dev/null is not a folder")),
        (["par", "classic_tens", "--xlsx", str(tmp / "missing" / "x.xlsx")], 2, (f"cannot write {tmp / 'missing' / 'x.xlsx'}", "does not exist")),
        (["par", "classic_tens", "--xlsx", "/dev/null"], 2, ("cannot write /dev/null", "not a regular file")),
        (["par", "--all", "--xlsx", str(a_file)], 2, (f"cannot write {a_file}", "is not a folder")),
        (["par", "classic_tens", "--xlsx", ""], 2, ("--xlsx", "empty path")),
        (["par", "classic_tens", "--xlsx", "a\0b"], 2, ("--xlsx", "NUL")),
        (["par", "/dev/zero"], 2, ("GAME", "/dev/zero")),
        (["par", "classic_tens", "--json", "--xlsx", str(tmp / "ok.xlsx")], 0, ()),
        # simulate
        (sim + ["--spins", HUGE], 2, ("--spins", HUGE, "10,000,000,000,000")),
        (sim + ["--spins", "1e30"], 2, ("--spins", "'1e30'", "10^13")),
        (sim + ["--spins", "0"], 2, ("--spins", "'0'")),
        (sim + ["--spins", "-5"], 2, ("--spins", "'-5'")),
        (sim + ["--spins", "1.5"], 2, ("--spins", "not a whole number", "'1.5'")),
        (sim + ["--spins", "9" * 5000], 2, ("--spins", "5,000 characters")),
        (sim + ["--seed", "-1"], 2, ("--seed", "'-1'")),
        (sim + ["--seed", str(2**63)], 2, ("--seed", str(2**63))),
        (sim + ["--workers", "0"], 2, ("--workers", "'0'")),
        (sim + ["--workers", "1000"], 2, ("--workers", "'1000'", "256")),
        (sim + ["--stake", "nan"], 2, ("--stake", "'nan'")),
        (sim + ["--stake", "inf"], 2, ("--stake", "'inf'")),
        (sim + ["--stake", "-1"], 2, ("--stake", "'-1'")),
        (sim + ["--stake", "0"], 2, ("--stake", "'0'")),
        (sim + ["--stake", "1e999"], 2, ("--stake", "'1e999'")),
        (["simulate", "bier_haus_oktober_fest", "--spins", "10", "--quiet", "--stake", "1e-300"], 2, ("at stake 1e-300",)),
        (["simulate", "bier_haus_oktober_fest", "--spins", "10", "--quiet", "--stake", "1e308"], 2, ("stake 1e+308", "jackpot")),
        (sim + ["--chunk", "1500000"], 2, ("--chunk", "'1500000'", "1,048,576")),
        (sim + ["--chunk", "0"], 2, ("--chunk", "'0'")),
        (sim + ["--scheduler", ""], 2, ("--scheduler", "empty")),
        (sim + ["--checkpoint", "/dev/null/ck"], 2, ("cannot write /dev/null/ck", "/dev/null is not a folder")),
        (sim + ["--checkpoint", str(tmp)], 2, (f"cannot write {tmp}", "is a folder")),
        (sim + ["--checkpoint", "/dev/null"], 2, ("cannot write /dev/null", "not a regular file")),
        (sim + ["--checkpoint", str(not_a_checkpoint)], 2, (str(not_a_checkpoint), "checkpoint")),
        (sim + ["--checkpoint", ""], 2, ("--checkpoint", "empty path")),
        (["simulate", "/dev/zero"], 2, ("GAME", "/dev/zero")),
        (["simulate", "no_such_game"], 2, ("no_such_game",)),
        (sim + ["--spins", "1e3", "--json"], 0, ()),
        # rtp
        (rtp + ["--precision", "inf"], 2, ("--precision", "'inf'")),
        (rtp + ["--precision", "nan"], 2, ("--precision", "'nan'")),
        (rtp + ["--precision", "0"], 2, ("--precision", "'0'")),
        (rtp + ["--precision", "1.5"], 2, ("--precision", "'1.5'")),
        (rtp + ["--max-seconds", "-1"], 2, ("--max-seconds", "'-1'")),
        (rtp + ["--max-seconds", "inf"], 2, ("--max-seconds", "'inf'")),
        (rtp + ["--workers", "-1"], 2, ("--workers", "'-1'")),
        (rtp + ["--seed", "x"], 2, ("--seed", "'x'")),
        (rtp + ["--stake=-inf"], 2, ("--stake", "'-inf'")),
        (rtp + ["--stake", "-inf"], 2, ("--stake", "expected one argument")),
        # report (all refused before the notebook runs)
        (["report", "--quiet"], 2, ("name a GAME",)),
        (rep + ["--out", "/proc/rep"], 2, ("cannot write /proc/rep",)),
        (rep + ["--out", "/dev/null"], 2, ("cannot write /dev/null", "is not a folder")),
        (rep + ["--out", str(a_file / "sub")], 2, (f"cannot write {a_file / 'sub'}", "is not a folder")),
        (rep + ["--stakes", "1", "0"], 2, ("--stakes", "'0'")),
        (rep + ["--stakes", "nan"], 2, ("--stakes", "'nan'")),
        (rep + ["--stakes"], 2, ("--stakes",)),
        (rep + ["--spins", "0"], 2, ("--spins", "'0'")),
        (rep + ["--spins", HUGE], 2, ("--spins", HUGE)),
        (rep + ["--precision", "inf"], 2, ("--precision", "'inf'")),
        (rep + ["--workers", "257"], 2, ("--workers", "'257'")),
        # warm
        (["warm"], 2, ("name a GAME",)),
        (["warm", "no_such_game"], 2, ("no_such_game",)),
        (["warm", "/dev/zero"], 2, ("GAME", "/dev/zero")),
        (["warm", "--all", "--workers", "0"], 2, ("--workers", "'0'")),
    ]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        status = cli.main(argv)
    except SystemExit as exc:  # argparse's own errors (and --help)
        status = exc.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_table_is_big_and_covers_every_command(tmp_path):
    cases = _cases(tmp_path)
    assert len(cases) >= 30
    commands = {argv[0] for argv, _, _ in cases if argv}
    assert commands >= {"validate", "par", "simulate", "rtp", "report", "list", "warm"}


def test_hostile_arguments_are_refused_with_a_message_naming_them(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may be written next to the sources
    failures = []
    # the handlers the process started with (a job started in the background of a shell ignores SIGINT)
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT))
    for argv, expected, named in _cases(tmp_path):
        checkpoint_text = (tmp_path / "reelset-copy.toml").read_text()
        status, out, err = _run(argv, capsys)
        shown = " ".join(a if len(a) < 80 else a[:20] + "..." for a in argv)
        if status != expected:
            failures.append(f"{shown}: exit {status}, expected {expected}: {err[-300:]}")
        if "Traceback" in err:
            failures.append(f"{shown}: traceback: {err[-500:]}")
        for text in named:
            if text not in err:
                failures.append(f"{shown}: {text!r} not in {err[-300:]!r}")
        if expected == 2 and argv[:1] != ["validate"] and not any(line.startswith("workbench") and ("error:" in line or line.startswith("workbench: "))
                                     for line in err.splitlines()):
            failures.append(f"{shown}: no one-line workbench message: {err[-300:]!r}")  # validate: one block per file
        # the stop handlers exist only while a command runs
        if (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) != before:
            failures.append(f"{shown}: signal handlers not restored")
        if (tmp_path / "reelset-copy.toml").read_text() != checkpoint_text:
            failures.append(f"{shown}: a file that is not a checkpoint was overwritten")
    assert not failures, "\n".join(failures)
    assert not (tmp_path / "reports").exists()  # refused reports wrote nothing
    assert (tmp_path / "ok.xlsx").stat().st_size > 0 and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("argv, named", [
    (["simulate", "classic_tens", "--spins", "1e30"], "argument --spins: must be a whole number from 1 to 10,000,000,000,000"),
    (["par", "classic_tens", "--xlsx", "/dev/null/x.xlsx"], "workbench: cannot write /dev/null/x.xlsx: /dev/null is not a folder"),
    (["simulate", "classic_tens", "--checkpoint", "/dev/null/ck"], "workbench: cannot write /dev/null/ck: /dev/null is not a folder"),
    (["report", "classic_tens", "--out", "/proc/rep"], "workbench: cannot write /proc/rep: "),
], ids=["spins", "xlsx", "checkpoint", "report-out"])
def test_hostile_arguments_in_a_real_process(argv, named, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(Path(cli.__file__).resolve().parents[2])})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def test_the_cli_limits_are_the_engines():
    from workbench.simulate import engine, lanes

    assert cli.MAX_SPINS == engine.MAX_SPINS
    assert cli.MAX_WORKERS == engine.MAX_WORKERS
    assert cli.SIMULATE_BLOCK == lanes.SIMULATE_BLOCK == lanes.DEFAULT_CHUNK


def test_importing_installs_no_signal_handler():
    # compared with the handlers the interpreter starts with (inherited: a background job ignores SIGINT)
    code = ("import signal; before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)); "
            "import workbench.cli, workbench.simulate, workbench.simulate.engine; "
            "print(signal.getsignal(signal.SIGTERM) == before[0], signal.getsignal(signal.SIGINT) == before[1])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["True", "True"], proc.stderr


def test_whole_numbers_may_be_written_with_underscores_or_an_exponent():
    parse = cli.whole_number(1, cli.MAX_SPINS)
    assert parse("1_000_000") == parse("1e6") == parse("1000000") == 1_000_000
    assert parse("1e13") == cli.MAX_SPINS
    for bad in ("1e-3", "0x10", "nan", "inf", "", "1e13.5", "1e99999999999"):
        with pytest.raises(Exception):
            parse(bad)


def test_warm_groups_games_by_the_code_they_share():
    """``warm --workers N`` starts the first game of each (round template, pay rule, direction) at once and the rest
    of a group when its first game is cached: every game in exactly one group, groups of one compiled kind."""
    from workbench.cli.commands import _warm_groups
    from workbench.io import example_games, load_game, shipped_games

    names = shipped_games() + example_games()
    groups = _warm_groups(names)
    assert sorted(n for first, rest in groups for n in [first, *rest]) == sorted(names)
    kinds = [{(g.game_module, g.pays.rule, g.pays.direction) for g in map(load_game, [first, *rest])}
             for first, rest in groups]
    assert all(len(k) == 1 for k in kinds) and len({next(iter(k)) for k in kinds}) == len(groups)
    assert any(rest for _, rest in groups)  # the gallery shares code: some group has several games
