"""The game flags every command shares: each says what it is and every game's own default, the chosen game's first."""

from __future__ import annotations

import re

import pytest

from gamegrammar.cli import main
from gamegrammar.commands.game_args import flag_help, game_on_command_line
from gamegrammar.core.gamespec import ConfigFlag
from gamegrammar.games import game_names, load_game


def help_of(capsys, monkeypatch, *argv: str) -> dict[str, str]:
    """option -> its help, from `gamegrammar ARGV --help` printed with room for one line each."""
    monkeypatch.setenv("COLUMNS", "300")
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    flags: dict[str, str] = {}
    for entry in re.split(r"\n  (?=--)", capsys.readouterr().out):  # an option, its metavar, its help (maybe on the next line)
        option, _, rest = entry.partition(" ")
        flags[option] = " ".join(re.split(r"\s{2,}|\n", rest.strip().split("\n\n")[0], maxsplit=1)[-1].split())
    return flags


@pytest.mark.parametrize("command", ["generate", "evaluate", "replay", "play"])
def test_game_flags_give_each_games_default_the_default_games_first(capsys, monkeypatch, command):
    flags = help_of(capsys, monkeypatch, command)
    assert flags["--width"] == "board width in cells (snake: 10, battlesnake: 11; not go)"
    assert flags["--height"] == "board height in cells (snake: 10, battlesnake: 11; not go)"
    assert flags["--max-ticks"].endswith("(snake: 200, battlesnake: 300, go: 0)")
    assert flags["--size"].endswith("(go only: 9)") and flags["--komi"].endswith("(go only: 7.5)")
    assert flags["--num-snakes"].endswith("(battlesnake only: 4)")
    assert flags["--food-spawn-chance"].startswith("percent chance") and flags["--food-spawn-chance"].endswith("(battlesnake only: 15)")
    assert "default: snake" in flags["--game"]


def test_the_chosen_games_defaults_come_first(capsys, monkeypatch):
    flags = help_of(capsys, monkeypatch, "generate", "--game", "battlesnake")
    assert flags["--width"].endswith("(battlesnake: 11, snake: 10; not go)")
    assert flags["--max-ticks"].endswith("(battlesnake: 300, go: 0, snake: 200)")
    assert help_of(capsys, monkeypatch, "generate")["--width"].endswith("(snake: 10, battlesnake: 11; not go)")  # not left over


def test_grammar_options_say_what_they_write_and_whose_they_are(capsys, monkeypatch):
    flags = help_of(capsys, monkeypatch, "generate")
    assert flags["--sense"].startswith("write after each input") and flags["--sense"].endswith("(snake, battlesnake; not go)")
    assert flags["--tails"].endswith("(battlesnake only)")
    assert not [option for option, text in flags.items() if "default: off" in text]


def test_every_flag_of_every_command_says_what_it_is():
    import argparse

    from gamegrammar.cli import build_parser

    def silent(parser: argparse.ArgumentParser, prefix: str):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from silent(sub, f"{prefix} {name}")
            elif action.help != argparse.SUPPRESS and len((action.help or "").split()) < 2:
                yield f"{prefix} {'/'.join(action.option_strings) or action.dest}"

    assert list(silent(build_parser(), "gamegrammar")) == []


@pytest.mark.parametrize("name", game_names())
def test_every_games_config_and_grammar_fields_explain_their_flags(name):
    """A game's flags explain themselves: each config and grammar-option field carries its help in its metadata."""
    game = load_game(name)
    assert [f.name for f in [*game.config_flags(), *game.codec_flags()] if len(f.help.split()) < 3] == []


def test_a_flag_of_some_games_names_those_without_it(monkeypatch):
    monkeypatch.setattr("gamegrammar.commands.game_args.game_names", lambda: ["a", "b", "c"])
    flag = ConfigFlag("lives", int, 3, "lives each player starts with")
    assert flag_help([("a", flag), ("b", ConfigFlag("lives", int, 5))]) == "lives each player starts with (a: 3, b: 5; not c)"
    assert flag_help([("c", flag)]) == "lives each player starts with (c only: 3)"
    assert flag_help([("a", flag), ("b", flag)], defaults=False) == "lives each player starts with (a, b; not c)"


def test_the_game_on_a_command_line():
    assert game_on_command_line(["generate", "--game", "battlesnake", "--help"]) == "battlesnake"
    assert game_on_command_line(["replay", "--game=battlesnake"]) == "battlesnake"
    assert game_on_command_line(["generate", "--help"]) is None
