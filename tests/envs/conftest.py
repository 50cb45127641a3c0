"""Fixtures of the environment tests: small Snake corpora to replay, a tiny untrained model to play."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def small_snake_corpus(tmp_path_factory: pytest.TempPathFactory):
    """4x4 boards, 80 ticks, a keyframe every 3 ticks: every end reason (DIE_WALL, DIE_SELF, WIN, TIMEOUT) occurs."""
    from gamegrammar.core.gamespec import CodecConfig
    from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
    from gamegrammar.games.snake.rules import SnakeConfig

    out = tmp_path_factory.mktemp("envs") / "corpus"
    generate(CorpusSpec(game=SnakeConfig(4, 4, 80), codec=CodecConfig(keyframe_interval=3), episodes=60, seed=5, shard_episodes=30), out)
    return Corpus(out)


@pytest.fixture(scope="session")
def tiny_snake_model():
    """(model, tokenizer, config, codec): an untrained 1-layer GameGPT for 6x6 Snake with a short context (48 tokens),
    so that an episode outgrows it and the policy's window slides."""
    import torch

    from gamegrammar.core.gamespec import CodecConfig
    from gamegrammar.games import tokenizer_for
    from gamegrammar.games.snake.rules import SnakeConfig
    from gamegrammar.model import GameGPT, GPTConfig

    config = SnakeConfig(6, 6, 60)
    tokenizer = tokenizer_for(config)
    torch.manual_seed(0)
    gpt = GPTConfig(
        vocab_size=len(tokenizer), block_size=48, n_layer=1, n_head=2, n_embd=16, tick_table=64, rope=True, tick_id=tokenizer.ids["TICK"]
    )
    return GameGPT(gpt).eval(), tokenizer, config, CodecConfig(keyframe_interval=5)
