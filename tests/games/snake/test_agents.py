from __future__ import annotations

import pytest

from gamegrammar import rng
from gamegrammar.errors import GameGrammarError
from gamegrammar.games.snake.agents import AGENTS, make_agent, slips
from gamegrammar.games.snake.rules import Outcome, SnakeConfig, SnakeGame, legal_directions, resolve


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


def test_careless_plays_greedy_but_slips_to_random_one_tick_in_ten():
    config = SnakeConfig()
    game = SnakeGame(config)
    careless, greedy, random = (make_agent(name, config) for name in ("careless", "greedy", "random"))
    slipped = ticks = 0
    for ep in range(60):
        state = game.reset(4, ep)
        for agent in (careless, greedy, random):
            agent.reset(4, ep)
        done = False
        while not done:
            action = careless.act(state)
            slip = slips(rng.draw(4, ep, state.tick, rng.Purpose.AGENT))
            assert action == (random if slip else greedy).act(state)
            slipped, ticks = slipped + slip, ticks + 1
            state, _, done = game.step(action)
    assert 0.07 < slipped / ticks < 0.13


def deaths_beside_a_safe_move(agent_name: str, episodes: int) -> int:
    """DIE_SELF ticks on which some legal move would have lived."""
    config = SnakeConfig()
    game, agent = SnakeGame(config), make_agent(agent_name, config)
    count = 0
    for ep in range(episodes):
        state = game.reset(2, ep)
        agent.reset(2, ep)
        done = False
        while not done:
            action = agent.act(state)
            outcomes = {resolve(state, config, d)[1] for d in legal_directions(state.direction)}
            safe_existed = bool(outcomes & {Outcome.MOVE, Outcome.EAT})
            count += resolve(state, config, action)[1] is Outcome.DIE_SELF and safe_existed
            state, _, done = game.step(action)
    return count


def test_only_the_careless_agent_enters_its_body_while_a_safe_move_exists():
    assert deaths_beside_a_safe_move("greedy", 40) == deaths_beside_a_safe_move("wall_follower", 40) == 0
    assert deaths_beside_a_safe_move("careless", 40) >= 5
