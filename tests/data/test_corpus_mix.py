"""Several corpora read as one, and corpora of games played outside `generate` (a model's)."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.act.play import play_games
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.data.corpus import OUTSIDE_AGENT, Corpus, CorpusMix, CorpusSpec, corpus_stats, generate, open_corpus, write_played
from gamegrammar.games import load_game
from gamegrammar.games.snake.rules import SnakeConfig


def played_corpus(real: Corpus, out, episodes=12, agent="greedy") -> Corpus:
    """Games played through `play_games` (as the model's are) and written with `write_played`."""
    eps = np.arange(100, 100 + episodes)
    result = play_games(real.game_spec, real.game, real.codec, 9, eps, agent)
    write_played(out, real.game, real.codec, real.tokenizer, 9, eps, result.episodes, {"agent": "selfplay", "note": "test"})
    return Corpus(out)


def test_played_games_make_a_corpus(tiny_corpus, tmp_path):
    real = Corpus(tiny_corpus)
    corpus = played_corpus(real, tmp_path / "played")
    assert len(corpus) == 12 and list(corpus.index["episode"]) == list(range(100, 112))
    assert len(corpus.split("train")) == 12 and not len(corpus.split("val"))
    assert (corpus.index["agent"] == OUTSIDE_AGENT).all() and corpus.agent(0) == "selfplay"
    assert corpus.manifest["origin"]["note"] == "test" and corpus.spec.agents == {}
    again = real.game_spec.play_controlled(real.game, real.codec, 9, np.arange(100, 112), "greedy")
    starts = np.cumsum(again.episodes.lengths) - again.episodes.lengths
    for row in range(12):
        assert np.array_equal(corpus.episode_ids(row), again.episodes.tokens[starts[row] : starts[row] + again.episodes.lengths[row]])
    assert corpus.index["score"].tolist() == again.episodes.scores.tolist()
    assert corpus_stats(corpus)["agents"]["selfplay"]["episodes"] == 12
    with pytest.raises(GameGrammarError, match="already holds"):
        played_corpus(real, tmp_path / "played")


def test_a_mix_reads_every_corpus_in_order(tiny_corpus, tmp_path):
    real = Corpus(tiny_corpus)
    played = played_corpus(real, tmp_path / "played")
    mix = open_corpus([str(tiny_corpus), str(tmp_path / "played")])
    assert isinstance(mix, CorpusMix) and len(mix) == len(real) + len(played)
    assert list(mix.part_rows(1)) == list(range(len(real), len(mix)))
    assert len(mix.split("train")) == len(real.split("train")) + 12 and len(mix.split("val")) == len(real.split("val"))
    assert np.array_equal(mix.episode_ids(3), real.episode_ids(3))
    assert np.array_equal(mix.episode_ids(len(real) + 5), played.episode_ids(5))
    assert mix.agent(len(real)) == "selfplay" and mix.agent(0) == real.agent(0)
    assert mix.tokenizer.sha256() == real.tokenizer.sha256() and mix.game == real.game
    assert isinstance(open_corpus(str(tiny_corpus)), Corpus) and isinstance(open_corpus([str(tiny_corpus)]), Corpus)


def test_a_mix_refuses_another_game_config(tiny_corpus, tmp_path):
    generate(CorpusSpec(game=SnakeConfig(6, 6, 50), episodes=10, seed=1), tmp_path / "other")
    with pytest.raises(GameGrammarError, match="different game configs"):
        CorpusMix([tiny_corpus, tmp_path / "other"])
    generate(CorpusSpec(codec=CodecConfig(keyframe_interval=5), episodes=10, seed=1), tmp_path / "keyframes")
    with pytest.raises(GameGrammarError, match="different codecs"):
        CorpusMix([tiny_corpus, tmp_path / "keyframes"])


def test_write_played_needs_one_result_per_episode(tiny_corpus, tmp_path):
    real = Corpus(tiny_corpus)
    result = play_games(load_game("snake"), real.game, real.codec, 0, np.arange(3), "random")
    with pytest.raises(GameGrammarError, match="one result per episode"):
        write_played(tmp_path / "bad", real.game, real.codec, real.tokenizer, 0, np.arange(2), result.episodes, {"agent": "x"})
