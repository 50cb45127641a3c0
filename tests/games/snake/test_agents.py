from __future__ import annotations

import pytest

from gamegrammar.core import rng
from gamegrammar.core.agents import slips
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.snake.agents import AGENTS, make_agent
from gamegrammar.games.snake.rules import Outcome, SnakeConfig, SnakeGame, legal_directions, resolve


def play(agent_name: str, seed: int, episodes: int, config: SnakeConfig | None = None):
    """Every decision of the agent's episodes: (episode, state, action, next state, done)."""
    config = config or SnakeConfig()
    game, agent = SnakeGame(config), make_agent(agent_name, config)
    for ep in range(episodes):
        state = game.reset(seed, ep)
        agent.reset(seed, ep)
        done = False
        while not done:
            action = agent.act(state)
            assert action in game.legal_actions(state)
            after, _, done = game.step(action)
            yield ep, state, action, after, done
            state = after


def run(agent_name: str, episodes: int, config: SnakeConfig | None = None):
    config = config or SnakeConfig()
    scores, wall_ticks, ticks = [], 0, 0
    for _, _, _, after, done in play(agent_name, 9, episodes, config):
        ticks += 1
        wall_ticks += config.next_to_wall(after.head)
        if done:
            scores.append(after.score)
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
    greedy, random = make_agent("greedy", config), make_agent("random", config)
    slipped = ticks = 0
    for ep, state, action, _, _ in play("careless", 4, 60, config):
        greedy.reset(4, ep)
        random.reset(4, ep)
        slip = slips(rng.draw(4, ep, state.tick, rng.Purpose.AGENT))
        assert action == (random if slip else greedy).act(state)
        slipped, ticks = slipped + slip, ticks + 1
    assert 0.07 < slipped / ticks < 0.13


def deaths_beside_a_safe_move(agent_name: str, episodes: int) -> int:
    """DIE_SELF ticks on which some legal move would have lived."""
    config = SnakeConfig()
    count = 0
    for _, state, action, _, _ in play(agent_name, 2, episodes, config):
        outcomes = {resolve(state, config, d)[1] for d in legal_directions(state.direction)}
        count += resolve(state, config, action)[1] is Outcome.DIE_SELF and bool(outcomes & {Outcome.MOVE, Outcome.EAT})
    return count


def test_only_the_careless_agent_enters_its_body_while_a_safe_move_exists():
    assert deaths_beside_a_safe_move("greedy", 40) == deaths_beside_a_safe_move("wall_follower", 40) == 0
    assert deaths_beside_a_safe_move("careless", 40) >= 5


def test_an_agents_policy_is_the_share_of_its_draws_that_pick_each_input():
    """policy() is what act() does over the draws: a distribution over the legal inputs, the careless agent's
    greedy's with a tenth spread over all three, and the input each agent actually made is one it can make."""
    config = SnakeConfig()
    agents = {name: make_agent(name, config) for name in AGENTS}
    for ep, state, action, _, _ in play("careless", 5, 8, config):
        policies = {name: agent.policy(state) for name, agent in agents.items()}
        legal = set(legal_directions(state.direction))
        for policy in policies.values():
            assert set(policy) <= legal and sum(policy.values()) == pytest.approx(1.0)
        assert policies["random"] == pytest.approx({d: 1 / 3 for d in legal})
        for d in legal:
            expected = 0.9 * policies["greedy"].get(d, 0.0) + 0.1 / 3
            assert policies["careless"].get(d, 0.0) == pytest.approx(expected)
        assert policies["careless"][action] > 0
        agents["careless"].reset(5, ep)
        assert agents["careless"].act(state) == action  # policy() leaves the agent's own draws alone
