from __future__ import annotations

import pytest

from gamegrammar.errors import GameGrammarError
from gamegrammar.games.snake.agents import AGENTS, make_agent
from gamegrammar.games.snake.rules import SnakeConfig, SnakeGame


def run(agent_name: str, episodes: int, config: SnakeConfig | None = None):
    config = config or SnakeConfig()
    game, agent = SnakeGame(config), make_agent(agent_name, config)
    scores, wall_ticks, ticks = [], 0, 0
    for ep in range(episodes):
        state = game.reset(9, ep)
        agent.reset(9, ep)
        done = False
        while not done:
            action = agent.act(state)
            assert action in game.legal_actions(state)
            state, _, done = game.step(action)
            ticks += 1
            wall_ticks += config.next_to_wall(state.head)
        scores.append(state.score)
    return scores, wall_ticks / ticks


def test_greedy_eats_far_more_than_random():
    greedy, _ = run("greedy", 200)
    random, _ = run("random", 200)
    assert sum(greedy) > 10 * max(1, sum(random))


def test_wall_follower_spends_most_ticks_next_to_a_wall():
    _, wall_share = run("wall_follower", 200)
    _, random_share = run("random", 200)
    assert wall_share > 0.8 > random_share


def test_agents_are_deterministic_given_seed_and_episode():
    for name in AGENTS:
        assert run(name, 5) == run(name, 5)


def test_unknown_agent_is_refused():
    with pytest.raises(GameGrammarError, match="unknown agent"):
        make_agent("nope", SnakeConfig())
