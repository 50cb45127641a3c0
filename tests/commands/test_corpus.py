"""gamegrammar corpus stats: counts, and the corpus's states, distinct states by split (Zobrist keys)."""

from __future__ import annotations

import json

import pytest

from gamegrammar.cli import main
from gamegrammar.core.zobrist import unique_keys
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.data.novelty import corpus_states
from gamegrammar.games.snake.rules import SnakeConfig


@pytest.fixture(scope="module")
def corpus_path(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("stats") / "corpus"
    generate(CorpusSpec(game=SnakeConfig(6, 6, 60), episodes=80, seed=4, shard_episodes=40, val_fraction=0.25), out)
    return out


def test_stats_report_states_and_distinct_states(corpus_path, capsys):
    corpus = Corpus(corpus_path)
    train, val = corpus_states(corpus, "train", cache=False), corpus_states(corpus, "val", cache=False)
    distinct = len(unique_keys(list(train.keys) + list(val.keys)))
    assert main(["corpus", "stats", str(corpus_path)]) == 0
    out = capsys.readouterr().out
    assert f"states      {train.states + val.states}  (train {train.states}, val {val.states})" in out
    assert f"distinct    {distinct}  (train {len(train.keys)}, val {len(val.keys)}, " in out and "not in train" in out
    assert (corpus_path / "states-train.npz").exists()  # a second look reads the cache

    assert main(["corpus", "stats", str(corpus_path), "--json"]) == 0
    states = json.loads(capsys.readouterr().out)["states"]
    assert states["total"] == train.states + val.states and states["distinct"] == distinct
    assert states["train"] == {"states": train.states, "distinct": len(train.keys)}
    assert 0 < states["val"]["distinct_not_in_train"] <= len(val.keys)


def test_states_can_be_skipped(corpus_path, capsys):
    assert main(["corpus", "stats", str(corpus_path), "--no-states", "--json"]) == 0
    assert "states" not in json.loads(capsys.readouterr().out)
