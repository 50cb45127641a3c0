"""The command line as a user meets it: every mistake is one line on stderr, exit code 2."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gamegrammar.cli import main, run_guarded
from gamegrammar.core.errors import GameGrammarError


def gg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gamegrammar.cli", *args], capture_output=True, text=True)


def test_generate_stats_and_export(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["generate", "--episodes", "30", "--seed", "2", "--out", str(out), "--quiet", "--width", "6", "--height", "6"]) == 0
    assert main(["corpus", "stats", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "episodes    30" in printed and "greedy" in printed
    assert main(["corpus", "export", str(out), "--limit", "5", "--out", str(tmp_path / "e.txt")]) == 0
    lines = (tmp_path / "e.txt").read_text().splitlines()
    assert len(lines) == 5 and all(line.startswith("BOS SNAP") and line.endswith("EOS") for line in lines)
    assert main(["corpus", "export", str(out), "--split", "val"]) == 0


def test_games_lists_the_registered_games(capsys):
    assert main(["games"]) == 0
    printed = capsys.readouterr().out
    assert "\nsnake: " in printed and printed.startswith("battlesnake: ") and "vocabulary" in printed and "DIE_WALL" in printed
    assert main(["games", "--json"]) == 0
    games = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    assert games["snake"]["vocab_size"] > 4 and games["snake"]["batch_engine"]
    assert games["battlesnake"]["rules"]["physical"][-1] == "starvation"
    assert games["battlesnake"]["game_type"] == {"min_players": 1, "max_players": 8, "dynamics": "simultaneous", "chance": "sampled"}
    assert "symmetries" in games["snake"]["capabilities"] and "symmetries" not in games["battlesnake"]["capabilities"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["generate", "--agents", "smart=1", "--out", "{tmp}/x"], "unknown agent 'smart'"),
        (["generate", "--agents", "random=0", "--out", "{tmp}/x"], "sum to a positive number"),
        (["generate", "--width", "3", "--out", "{tmp}/x"], "between 4x4"),
        (["generate", "--episodes", "0", "--out", "{tmp}/x"], "--episodes must be at least 1"),
        (["generate", "--out", "{tmp}/full"], "--overwrite"),
        (["corpus", "stats", "{tmp}/nothing"], "does not exist"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, args, message):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    result = gg(*(a.format(tmp=tmp_path) for a in args))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "the following arguments are required: COMMAND (see `gamegrammar --help`)"),
        (["fly"], "argument COMMAND: invalid choice: 'fly'"),
        (["generate", "--episodes", "5"], "generate: the following arguments are required: --out (see `gamegrammar generate --help`)"),
        (["evaluate", "--num", "many"], "evaluate: argument --num: invalid int value: 'many'"),
        (["export", "--ckpt", "a", "b"], "export: unrecognized arguments: --ckpt (see `gamegrammar export --help`)"),
        (["corpus", "stats", "c", "--bogus"], "corpus stats: unrecognized arguments: --bogus (see `gamegrammar corpus stats --help`)"),
    ],
)
def test_usage_mistakes_are_one_line_naming_the_command(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("gamegrammar: error: ") and err.count("\n") == 1 and message in err and "usage:" not in err


def test_help_still_prints_the_usage(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["generate", "--help"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("usage: gamegrammar generate")


def test_the_parser_reads_the_game_off_the_command_line_for_its_help():
    """`generate --game battlesnake --help` leads with Battlesnake's defaults: the game is read before the parsers exist."""
    from gamegrammar.cli import build_parser

    def width_help(argv: list[str]) -> str:
        generate = build_parser(argv)._subparsers._group_actions[0].choices["generate"]
        return next(a.help for a in generate._actions if "--width" in a.option_strings)

    assert width_help(["generate", "--game", "battlesnake", "--help"]).endswith("(battlesnake: 11, snake: 10; not go)")
    assert width_help(["generate", "--help"]).endswith("(snake: 10, battlesnake: 11; not go)")
    assert width_help(["generate", "--game", "chess", "--help"]).endswith("(snake: 10, battlesnake: 11; not go)")  # refused when run


def test_running_out_of_device_memory_is_one_line(monkeypatch, capsys):
    from types import SimpleNamespace

    import torch

    from gamegrammar import cli

    def run(args):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")

    monkeypatch.setattr(cli.argparse.ArgumentParser, "parse_known_args", lambda self, argv: (SimpleNamespace(run=run), []))
    assert cli.main(["sample"]) == 2
    assert capsys.readouterr().err == "gamegrammar: error: out of GPU memory: lower the batch size (--batch-size)\n"


def _raises(error: BaseException):
    def entry() -> int:
        raise error

    return entry


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (GameGrammarError("corpus data/x does not exist\nmore"), 2, "bench: error: corpus data/x does not exist\n"),
        (FileNotFoundError(2, "No such file or directory", "runs/x"), 2, "bench: error: runs/x: No such file or directory\n"),
        (KeyboardInterrupt(), 130, "bench: interrupted\n"),
    ],
)
def test_run_guarded_gives_a_users_mistake_one_line_under_the_programs_name(capsys, error, code, line):
    assert run_guarded(_raises(error), "bench") == code
    assert capsys.readouterr().err == line


def test_sigterm_raises_where_the_command_is_and_exits_143_and_the_handler_is_restored(capsys):
    """SIGTERM unwinds like Ctrl-C: the `finally` of the work runs (where atomic writes and worker pools clean up)."""
    import os
    import signal

    before = signal.getsignal(signal.SIGTERM)
    unwound = []

    def work() -> int:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs between bytecodes, at the latest a moment later
                time.sleep(0.01)
            return 0
        finally:
            unwound.append(True)

    assert run_guarded(work, "bench") == 143
    assert capsys.readouterr().err == "bench: terminated\n"
    assert unwound == [True] and signal.getsignal(signal.SIGTERM) == before


def test_run_guarded_keeps_a_bugs_traceback():
    with pytest.raises(ZeroDivisionError):
        run_guarded(_raises(ZeroDivisionError()), "bench")


BENCHMARKS = sorted(p.stem for p in (Path(__file__).parent.parent / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmarks_usage_mistake_is_one_line(monkeypatch, capsys, name):
    """Every benchmark parses with the CLI's parser and runs under its guard, so `--bogus` is one line, not a usage block."""
    module = importlib.import_module(f"benchmarks.{name}")
    monkeypatch.setattr(sys, "argv", [name, "--bogus"])
    assert run_guarded(module.main, name) == 2
    err = capsys.readouterr().err
    assert err == f"{name}: error: unrecognized arguments: --bogus (see `python -m benchmarks.{name} --help`)\n"
