"""Battlesnake's tests run with the game registered by name (until the registry's BUILTIN lists it), and share a small corpus."""

from __future__ import annotations

import pytest

from gamegrammar.games import register_game

register_game("battlesnake", "gamegrammar.games.battlesnake:GAME")


@pytest.fixture(scope="session")
def bs_corpus(tmp_path_factory: pytest.TempPathFactory):
    """A small Battlesnake corpus (7x7, 4 snakes, 60 ticks, keyframes every 10 ticks, default agent mix), made once."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.battlesnake import BattlesnakeConfig
    from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec

    out = tmp_path_factory.mktemp("bs_corpus")
    spec = CorpusSpec(game=BattlesnakeConfig(7, 7, 4, max_ticks=60), codec=BattlesnakeCodec(10), episodes=30, seed=3, shard_episodes=30)
    generate(spec, out)
    return out
