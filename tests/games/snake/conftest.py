"""Snake's shared fixtures: small corpora in the tail-events, head-first, sense and spawn-column designs, made once per test run."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tails_corpus(tmp_path_factory: pytest.TempPathFactory):
    """The tiny corpus's settings (10x10, 200 ticks, default agent mix) with the tail-events option on."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec

    out = tmp_path_factory.mktemp("tails-corpus")
    generate(CorpusSpec(codec=SnakeCodec(tail_events=True), episodes=120, seed=11, shard_episodes=50), out)
    return out


@pytest.fixture(scope="session")
def head_first_corpus(tmp_path_factory: pytest.TempPathFactory):
    """The tiny corpus's settings (10x10, 200 ticks, default agent mix, seed 11) with the head-first option on: the
    same games as `tiny_corpus`, written with each tick's cell before its outcome word."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec

    out = tmp_path_factory.mktemp("head-first-corpus")
    generate(CorpusSpec(codec=SnakeCodec(head_first=True), episodes=120, seed=11, shard_episodes=50), out)
    return out


@pytest.fixture(scope="session")
def sense_corpus(tmp_path_factory: pytest.TempPathFactory):
    """The tiny corpus's settings (10x10, 200 ticks, default agent mix, seed 11) with the sense option on: the same
    games as `tiny_corpus`, each input followed by its SENSE word."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec

    out = tmp_path_factory.mktemp("sense-corpus")
    generate(CorpusSpec(codec=SnakeCodec(sense=True), episodes=120, seed=11, shard_episodes=50), out)
    return out


@pytest.fixture(scope="session")
def column_corpus(tmp_path_factory: pytest.TempPathFactory):
    """The tiny corpus's settings (10x10, 200 ticks, seed 11) with the spawn-column and sense options on, greedy and
    careless games (many eats, so many column words): each spawn's column written out between its X and Y."""
    from gamegrammar.data.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec

    out = tmp_path_factory.mktemp("column-corpus")
    codec = SnakeCodec(sense=True, spawn_column=True)
    generate(CorpusSpec(codec=codec, agents={"greedy": 0.5, "careless": 0.5}, episodes=120, seed=11, shard_episodes=50), out)
    return out
