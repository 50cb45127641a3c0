"""Go's batch engine writes byte for byte what the scalar engine writes, for every agent, codec and board."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go import batch as go_batch
from gamegrammar.games.go.rules import GoState, advance, area, legal_plays, parse_vertex
from tests.games.go.conftest import needs_gnugo


def _compare(config, codec, codes, seed=3):
    tok = GameTokenizer(GAME.vocabulary(config))
    episodes = np.arange(len(codes))
    result = GAME.play_batch(config, codec, seed, episodes, np.array(codes))
    ends = np.cumsum(result.lengths)
    for i, row in enumerate(codes):
        record = GAME.play_episode(config, codec, ",".join(GAME.agent_names[c] for c in row), seed, i)
        got = tok.decode(result.tokens[ends[i] - result.lengths[i] : ends[i]])
        assert got == record.tokens, (row, i)
        assert (result.ticks[i], result.scores[i], GAME.end_events[result.ends[i]]) == (record.ticks, record.score, record.end)


@pytest.mark.parametrize(
    ("config", "codec"),
    [
        (GoConfig(5, komi=0.0, max_ticks=100), CodecConfig(0)),
        (GoConfig(7, max_ticks=40), CodecConfig(3)),
        (GoConfig(9), CodecConfig(7)),
        (GoConfig(9, komi=7.0), CodecConfig(0, 3)),  # moves dropped: only the captures and the end are written
        (GoConfig(13, max_ticks=120), CodecConfig(0)),
    ],
    ids=["5x5", "7x7-limit", "9x9-K7", "9x9-salience3", "13x13"],
)
def test_batch_equals_scalar(config, codec):
    _compare(config, codec, [[e % 2, (e // 2) % 2] for e in range(12)])


@needs_gnugo
def test_episodes_with_gnugo_take_the_scalar_path_in_their_place():
    _compare(GoConfig(5, max_ticks=60), CodecConfig(2), [[0, 1], [2, 0], [1, 1], [1, 2]])


def test_the_batch_rules_agree_with_the_scalar_rules_on_every_point():
    """Legality (superko included), captures and areas on positions of real games, point by point."""
    config = GoConfig(7, max_ticks=150)
    for episode in range(4):
        record = GAME.play_episode(config, CodecConfig(), "capture", 9, episode)
        for state in record.states[1:-1:3]:
            batch = go_batch.GoBatch(config, 1)
            replay = GoState.empty(7)
            for move in state.moves:  # the batch's history follows the game's
                a = go_batch.analyse(batch)
                legal = go_batch.plays(batch, a, replay.colour)
                go_batch.apply(batch, a, legal, np.array([move]))
                replay, _ = advance(replay, move)
            a = go_batch.analyse(batch)
            legal = go_batch.plays(batch, a, state.colour)
            assert np.flatnonzero(legal.legal.ravel()).tolist() == legal_plays(state)
            assert batch.board[0].tobytes() == state.board and int(batch.key[0]) == state.key
            black, white = go_batch.areas(batch.grid)
            assert (int(black[0]), int(white[0])) == area(state.board, 7)
    assert parse_vertex("A1", 7) == 0
