"""Snake's shared fixtures: a small corpus in the tail-events design, made once per test run."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tails_corpus(tmp_path_factory: pytest.TempPathFactory):
    """The tiny corpus's settings (10x10, 200 ticks, default agent mix) with the tail-events option on."""
    from gamegrammar.corpus import CorpusSpec, generate
    from gamegrammar.games.snake.grammar import SnakeCodec

    out = tmp_path_factory.mktemp("tails-corpus")
    generate(CorpusSpec(codec=SnakeCodec(tail_events=True), episodes=120, seed=11, shard_episodes=50), out)
    return out
