"""Shared fixtures: tests never reach the network and build their own tiny corpora."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory: pytest.TempPathFactory):
    """A small default-settings corpus (10x10, 200 ticks, default agent mix), made once per test run."""
    from gamegrammar.corpus import CorpusSpec, generate

    out = tmp_path_factory.mktemp("corpus")
    generate(CorpusSpec(episodes=120, seed=11, shard_episodes=50), out)
    return out


@pytest.fixture(scope="session")
def untrained_teacher_forced(tiny_corpus):
    """(tokens, result) of the teacher-forced check of an untrained tiny model on the corpus's first 6 episodes."""
    import torch

    from gamegrammar.corpus import Corpus
    from gamegrammar.evaluation.fidelity import teacher_forced
    from gamegrammar.model import GameGPT, GPTConfig

    corpus = Corpus(tiny_corpus)
    ids = [corpus.episode_ids(r) for r in range(6)]
    tokens = [corpus.episode_tokens(r) for r in range(6)]
    torch.manual_seed(0)
    config = GPTConfig(vocab_size=len(corpus.tokenizer), block_size=64, n_layer=1, n_head=2, n_embd=16, tick_table=256, tick_id=corpus.tokenizer.ids["TICK"])
    return tokens, teacher_forced(GameGPT(config), ids, tokens)
