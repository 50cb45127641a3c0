"""The game registry: built-in games by module path, plug-ins by entry point or `register_game`, one-line errors."""

from __future__ import annotations

import pytest

from gamegrammar import games
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import game_names, game_of, load_game, register_game, tokenizer_for
from gamegrammar.games.snake import GAME, SnakeSpec
from gamegrammar.games.snake.rules import SnakeConfig


@pytest.fixture
def registry(monkeypatch):
    """A registry this test may change; the real one comes back afterwards."""
    monkeypatch.setattr(games, "_registry", dict(games._registry))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))


def test_snake_is_built_in():
    assert "snake" in game_names()
    assert load_game("snake") is GAME
    assert game_of(SnakeConfig(6, 5)) is GAME
    assert tokenizer_for(SnakeConfig(6, 5)).tokens == GAME.vocabulary(SnakeConfig(6, 5))


def test_unknown_game_is_one_line_naming_the_known_ones():
    with pytest.raises(GameGrammarError, match=r"unknown game 'nope'; choose from .*snake"):
        load_game("nope")


def test_a_config_must_name_its_game():
    with pytest.raises(GameGrammarError, match="names no game"):
        game_of(object())


class _Snake2(SnakeSpec):
    name = "snake2"


SNAKE2 = _Snake2()


def test_register_by_object_and_by_path(registry):
    register_game("snake2", SNAKE2)
    assert load_game("snake2") is SNAKE2 and "snake2" in game_names()
    register_game("snake2", f"{__name__}:SNAKE2")  # a path replaces the object, imported on first use
    assert load_game("snake2").name == "snake2"


def test_a_game_must_call_itself_by_its_registered_name(registry):
    register_game("other", "gamegrammar.games.snake:GAME")
    with pytest.raises(GameGrammarError, match="registered as game 'other' but calls itself 'snake'"):
        load_game("other")
