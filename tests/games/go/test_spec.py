"""Go as a registered game: listed by `gamegrammar games`, generated into a corpus, its agents and its summary."""

from __future__ import annotations

import json

import pytest

from gamegrammar.cli import main
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import game_names, load_game
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go.agents import candidates, lineup, make_agent, parse_lineup
from gamegrammar.games.go.fidelity import OUTCOMES
from gamegrammar.games.go.rules import PASS
from tests.games.go.conftest import needs_gnugo


def test_go_is_built_in_and_listed(capsys):
    assert "go" in game_names() and load_game("go") is GAME
    assert main(["games", "--json"]) == 0
    go = next(g for g in json.loads(capsys.readouterr().out) if g["name"] == "go")
    assert go["default_config"] == {"size": 9, "komi": 7.5, "max_ticks": 324}
    assert go["game_type"] == {"min_players": 2, "max_players": 2, "dynamics": "sequential", "chance": "deterministic"}
    assert go["agents"] == ["random", "capture", "gnugo"] and go["end_events"] == ["TWO_PASSES", "MOVE_LIMIT", "RESIGNATION"]


def test_generate_writes_a_corpus_the_evaluator_accepts(tmp_path):
    config = GoConfig(7, max_ticks=100)
    generate(CorpusSpec(game=config, codec=CodecConfig(10), episodes=12, seed=2, shard_episodes=12), tmp_path, engine="scalar")
    corpus = Corpus(tmp_path)
    assert corpus.spec.game_name == "go" and len(corpus) == 12
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        assert GAME.validate(tokens, config, corpus.codec).valid
        summary = GAME.summarize_episode(tokens)
        assert summary.ticks == corpus.index[row]["ticks"] and summary.score == corpus.index[row]["score"]
        assert set(summary.outcomes) <= set(OUTCOMES) and len(summary.outcomes) == 2


def test_agents_are_deterministic_and_mixed_per_player():
    config = GoConfig(5)
    a = GAME.play_episode(config, CodecConfig(), "random,capture", 4, 7)
    b = GAME.play_episode(config, CodecConfig(), "random,capture", 4, 7)
    assert a.tokens == b.tokens and a.tokens != GAME.play_episode(config, CodecConfig(), "random,capture", 4, 8).tokens
    assert parse_lineup("random") == ["random", "random"]
    with pytest.raises(GameGrammarError, match="one agent per player"):
        parse_lineup("random,capture,random")
    with pytest.raises(GameGrammarError, match="unknown agent"):
        make_agent("nope", config)
    mix = {"random": 0.5, "capture": 0.5}
    drawn = {lineup(mix, 0, e) for e in range(40)}
    assert len(drawn) == 4  # each player's agent is drawn on its own
    assert all(GAME.episode_agents(mix, 0, e, config) == lineup(mix, 0, e) for e in range(5))


def test_random_passes_only_when_every_play_fills_its_own_eye():
    record = GAME.play_episode(GoConfig(5), CodecConfig(), "random", 0, 0)
    states, moves = record.states, [s.moves[-1] for s in record.states[1:]]
    for state, move in zip(states, moves):
        assert (move == PASS) == (not candidates(state))


def test_capture_takes_the_largest_capture():
    config = GoConfig(7, max_ticks=150)
    seen = 0
    for episode in range(6):
        record = GAME.play_episode(config, CodecConfig(), "capture", 1, episode)
        for state, after in zip(record.states, record.states[1:]):
            most = max((len(c) for _, c in candidates(state)), default=0)
            if most:
                seen += 1
                assert sum(after.prisoners) - sum(state.prisoners) == most
    assert seen > 10


@needs_gnugo
def test_gnugo_plays_legal_moves_as_an_agent():
    config = GoConfig(5, max_ticks=60)
    record = GAME.play_episode(config, CodecConfig(), "gnugo,random", 3, 0)
    assert GAME.validate(record.tokens, config).valid
    again = GAME.play_episode(config, CodecConfig(), "gnugo,random", 3, 0)
    assert again.tokens == record.tokens  # seeded per episode: the same game again


def test_every_board_size_has_a_vocabulary_of_distinct_words():
    for size in range(5, 20):
        vocab = GAME.vocabulary(GoConfig(size))
        assert len(vocab) == len(set(vocab)) == 4 + 17 + 2 * size * size + size * size + 1, size
