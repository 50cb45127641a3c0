from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from gamegrammar.core.agents import agent_for_episode
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.data.corpus import Corpus, CorpusSpec, corpus_stats, generate
from gamegrammar.games.snake.grammar import decode
from gamegrammar.games.snake.rules import SnakeConfig

SPEC = CorpusSpec(episodes=90, seed=5, shard_episodes=20)


def shard_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted((path / "shards").iterdir()))


def test_same_seed_same_bytes_for_any_worker_count(tmp_path):
    generate(SPEC, tmp_path / "one", workers=1)
    generate(SPEC, tmp_path / "two", workers=2)
    assert shard_bytes(tmp_path / "one") == shard_bytes(tmp_path / "two")
    other = CorpusSpec(episodes=90, seed=6, shard_episodes=20)
    generate(other, tmp_path / "three")
    assert shard_bytes(tmp_path / "one") != shard_bytes(tmp_path / "three")


def test_episode_content_depends_only_on_seed_and_index(tmp_path):
    generate(SPEC, tmp_path / "a")
    generate(CorpusSpec(episodes=45, seed=5, shard_episodes=7), tmp_path / "b")
    a, b = Corpus(tmp_path / "a"), Corpus(tmp_path / "b")
    for row in range(45):
        assert a.index["episode"][row] == b.index["episode"][row] == row
        assert np.array_equal(a.episode_ids(row), b.episode_ids(row))


def test_reading_back_episodes_and_splits(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    assert len(corpus) == 120
    train, val = corpus.split("train"), corpus.split("val")
    assert len(train) + len(val) == 120 and len(val) > 0 and not set(train) & set(val)
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        assert tokens[0] == "BOS" and tokens[-1] == "EOS"
        episode = decode(tokens)
        assert episode.end_reason == ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT")[corpus.index["end"][row]]
        assert sum(e.type == "TICK" for e in episode.events) == corpus.index["ticks"][row]
    with pytest.raises(GameGrammarError, match="unknown split"):
        corpus.split("test")


def test_stats(tiny_corpus):
    stats = corpus_stats(Corpus(tiny_corpus))
    assert stats["episodes"] == 120 and stats["tokens"] > 120 * 20
    assert set(stats["agents"]) == {"random", "greedy", "wall_follower"}
    assert sum(a["episodes"] for a in stats["agents"].values()) == 120
    assert stats["length_quantiles"]["min"] <= stats["length_quantiles"]["p50"] <= stats["length_quantiles"]["max"]


def test_existing_output_is_not_clobbered(tmp_path):
    generate(SPEC, tmp_path / "c")
    with pytest.raises(GameGrammarError, match="--overwrite"):
        generate(SPEC, tmp_path / "c")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "notes.txt").write_text("mine")
    with pytest.raises(GameGrammarError, match="not empty"):
        generate(SPEC, tmp_path / "d")
    generate(SPEC, tmp_path / "c", overwrite=True)
    assert len(Corpus(tmp_path / "c")) == 90


def test_truncated_shard_and_foreign_format_are_clear_errors(tmp_path):
    generate(SPEC, tmp_path / "e")
    shard = sorted((tmp_path / "e" / "shards").glob("*.tokens"))[1]
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])
    with pytest.raises(GameGrammarError, match="truncated"):
        Corpus(tmp_path / "e")
    shard.write_bytes(data)
    manifest = json.loads((tmp_path / "e" / "manifest.json").read_text())
    manifest["format_version"] = 99
    (tmp_path / "e" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(GameGrammarError, match="format version 99"):
        Corpus(tmp_path / "e")
    with pytest.raises(GameGrammarError, match="does not exist"):
        Corpus(tmp_path / "missing")


def test_interrupted_generation_resumes_to_the_same_bytes(tmp_path):
    generate(SPEC, tmp_path / "whole")

    def stop_after_two_shards(calls=[0]):  # noqa: B006 - a counter shared by calls
        def progress(n: int) -> None:
            calls[0] += 1
            if calls[0] == 2:
                raise KeyboardInterrupt

        return progress

    with pytest.raises(KeyboardInterrupt):
        generate(SPEC, tmp_path / "part", progress=stop_after_two_shards())
    with pytest.raises(GameGrammarError, match="rerun the same command"):
        Corpus(tmp_path / "part")
    debris = tmp_path / "part" / "shards" / ".00003.tokens.k1ll3d.tmp"  # what a kill mid-write leaves
    debris.write_bytes(b"half a shard")
    generate(SPEC, tmp_path / "part")
    assert shard_bytes(tmp_path / "part") == shard_bytes(tmp_path / "whole")
    assert not debris.exists() and not list((tmp_path / "part").rglob("*.tmp"))


def test_sigkill_leaves_nothing_that_looks_complete(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "gamegrammar.cli", "generate", "--episodes", "600", "--shard-episodes", "30"]
    cmd += ["--engine", "scalar", "--quiet", "--seed", "1", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline and not list((out / "shards").glob("*.tokens")) if out.exists() else True:
        time.sleep(0.05)
        if time.time() > deadline:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "manifest.json").exists()
    for tokens in (out / "shards").glob("*.tokens"):
        index = np.load(tokens.with_name(tokens.name.replace(".tokens", ".index.npy")))
        assert tokens.stat().st_size == index["length"].sum() * 2
    finished = subprocess.run(cmd, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    assert len(Corpus(out)) == 600
    generate(CorpusSpec(SnakeConfig(), episodes=600, seed=1, shard_episodes=30), tmp_path / "ref")
    assert shard_bytes(out) == shard_bytes(tmp_path / "ref")


def test_a_corpus_remembers_the_order_of_its_agent_mix(tmp_path):
    """The mix's order decides which agent each draw picks, so a spec read back must keep it (JSON sorts objects)."""
    spec = CorpusSpec(agents={"wall_follower": 0.5, "random": 0.25, "greedy": 0.25}, episodes=40, seed=3, shard_episodes=40)
    generate(spec, tmp_path / "c")
    corpus = Corpus(tmp_path / "c")
    assert list(corpus.spec.agents) == ["wall_follower", "random", "greedy"]
    assert [corpus.agent(r) for r in range(len(corpus))] == [agent_for_episode(spec.agents, 3, int(e)) for e in corpus.index["episode"]]


def test_a_model_is_refused_a_corpus_of_another_grammar_design_with_the_same_vocabulary(tiny_corpus, tmp_path):
    from types import SimpleNamespace

    from gamegrammar.games.snake.grammar import SnakeCodec

    v1 = Corpus(tiny_corpus)
    generate(CorpusSpec(codec=SnakeCodec(head_first=True), episodes=20, seed=11, shard_episodes=20), tmp_path / "head")
    head = Corpus(tmp_path / "head")
    assert head.tokenizer.sha256() == v1.tokenizer.sha256()  # the option adds no token: only the codec tells them apart
    head_model = SimpleNamespace(tokenizer=head.tokenizer, codec=head.codec, game=head.game)
    head.check_model(head_model)  # its own design: accepted
    with pytest.raises(GameGrammarError, match=r"trained on the grammar options head_first, the corpus .* none"):
        v1.check_model(head_model)
    with pytest.raises(GameGrammarError, match=r"the model was trained on the grammar options none .*head_first"):
        head.check_model(SimpleNamespace(tokenizer=v1.tokenizer, codec=v1.codec, game=v1.game), "the model")
    generate(CorpusSpec(game=SnakeConfig(5, 5, 40), episodes=5), tmp_path / "other")
    other = Corpus(tmp_path / "other")
    other_model = SimpleNamespace(tokenizer=other.tokenizer, codec=other.codec, game=other.game)
    board = f"another game config than the corpus {v1.path}: height is 5 in the model, {v1.game.height} in the corpus; max_ticks"
    with pytest.raises(GameGrammarError, match=board):
        v1.check_model(other_model)
