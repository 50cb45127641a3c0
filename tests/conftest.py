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
