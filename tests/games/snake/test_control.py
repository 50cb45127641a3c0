"""Snake driven from outside: scripted agents play as their batch engine does; a masked input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, scripted_policy
from gamegrammar.games.snake.control import LEGAL, play_controlled
from gamegrammar.games.snake.grammar import END_EVENTS
from gamegrammar.games.snake.rollout import play_batch
from gamegrammar.games.snake.rules import Direction, SnakeConfig

CONFIG = SnakeConfig(5, 5, 40)


def test_legal_inputs_are_the_non_reversals():
    for d in Direction:
        assert [Direction(i) for i in np.flatnonzero(LEGAL[d])] == [x for x in Direction if x != d.opposite]


@pytest.mark.parametrize("agent", AGENT_NAMES)
def test_a_scripted_player_plays_as_the_batch_engine(agent):
    episodes = np.arange(30)
    result = play_controlled(CONFIG, CodecConfig(keyframe_interval=3), 2, episodes, agent)
    engine = play_batch(CONFIG, CodecConfig(keyframe_interval=3), 2, episodes, scripted_policy(np.full(30, AGENT_NAMES.index(agent))))
    assert np.array_equal(result.episodes.tokens, engine.tokens)
    assert np.array_equal(result.score, engine.scores) and np.array_equal(result.ticks, engine.ticks)
    assert result.fates == tuple(END_EVENTS) and result.place is None


def test_a_controller_sees_every_running_game_and_may_not_reverse():
    calls = []

    def first_allowed(games, mask, draws):
        calls.append((games.copy(), mask.copy(), draws.dtype))
        return np.argmax(mask, axis=1)

    result = play_controlled(CONFIG, CodecConfig(), 0, np.arange(6), first_allowed)
    assert len(calls) == result.ticks.max() and list(calls[0][0]) == list(range(6))
    assert all(m.sum(axis=1).tolist() == [3] * len(g) for g, m, _ in calls) and calls[0][2] == np.uint64

    def reverse(games, mask, draws):
        return np.argmin(mask, axis=1)

    with pytest.raises(GameGrammarError, match="forbids"):
        play_controlled(CONFIG, CodecConfig(), 0, np.arange(3), reverse)
