"""The Battlesnake PettingZoo environment: PettingZoo's own API and seed tests, and the engine's episodes replayed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.envs import battlesnake_v0
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec, cell_of_word
from gamegrammar.games.battlesnake.planes import feature_planes
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, Move

CONFIGS = [
    {"num_snakes": 4, "width": 11, "height": 11},
    {"num_snakes": 2, "width": 7, "height": 7, "max_ticks": 40},
    {"num_snakes": 1, "width": 5, "height": 6, "max_ticks": 30, "minimum_food": 2},
]


@pytest.fixture(autouse=True)
def strict():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the test suites' warnings count as failures
        yield


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_pettingzoo_parallel_api_and_seed_tests_pass(kwargs):
    parallel_api_test(battlesnake_v0.parallel_env(**kwargs), num_cycles=1000)
    parallel_seed_test(lambda: battlesnake_v0.parallel_env(**kwargs))


def test_pettingzoo_aec_api_test_passes():
    api_test(battlesnake_v0.env(num_snakes=2, width=7, height=7, max_ticks=40), num_cycles=200)


@pytest.mark.parametrize(
    ("kwargs", "lineup", "smell", "cells", "sense"),
    [
        (CONFIGS[0], "safe,greedy,space,random", False, False, False),
        (CONFIGS[1], "space,greedy", True, False, False),
        (CONFIGS[1], "safe,space", False, True, True),
    ],
)
def test_engine_episodes_replay_to_their_tokens(kwargs, lineup, smell, cells, sense):
    """Episodes of the game's reference engine, their inputs played through the env: the same tokens, end and agents
    (in the smell, cells and sense designs too: the env writes the codec it is given)."""
    config = BattlesnakeConfig(**{"max_ticks": 300, **kwargs})
    codec = BattlesnakeCodec(keyframe_interval=4, smell=smell, cells=cells, sense=sense)
    env = battlesnake_v0.parallel_env(**config.to_dict(), keyframe_interval=4, smell=smell, cells=cells, sense=sense)
    for episode in range(3):
        record = GAME.play_episode(config, codec, lineup, 17, episode)
        inputs: dict[int, dict[int, int]] = {}
        for e in record.events:
            if e.type == "INPUT":
                inputs.setdefault(e.tick, {})[e.payload["snake"]] = int(Move[e.payload["move"]])
        _, infos = env.reset(seed=17, options={"episode": episode})
        tokens = list(infos["snake_0"]["tokens"])
        for tick in sorted(inputs):
            assert sorted(env.agents) == sorted(f"snake_{k}" for k in inputs[tick])
            *_, infos = env.step({f"snake_{k}": a for k, a in inputs[tick].items()})
            tokens += next(iter(infos.values()))["tokens"]
        assert tokens == record.tokens == env.tokens
        assert any(t.startswith("SMELL_") for t in tokens) == smell and any(cell_of_word(t) for t in tokens) == cells
        assert any(t.startswith("SENSE_") for t in tokens) == sense
        assert env.agents == [] and env.game.end_reason == record.end


def test_observations_masks_rewards_and_agents():
    env = battlesnake_v0.parallel_env(
        num_snakes=2, width=7, height=7, max_ticks=50, survival_reward=0.5, win_reward=10.0, elimination_reward=-3.0
    )
    obs, infos = env.reset(seed=3)
    assert env.agents == ["snake_0", "snake_1"]
    for k, agent in enumerate(env.agents):
        np.testing.assert_array_equal(obs[agent], feature_planes(env.game.state, env.config, k))
        assert obs[agent] in env.observation_space(agent)
        assert infos[agent]["action_mask"].tolist() == [1, 1, 1, 1]  # a stacked start body has no neck
    rng = np.random.default_rng(0)
    while env.agents:
        before = list(env.agents)
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        obs, rewards, terminations, truncations, infos = env.step(actions)
        assert sorted(rewards) == sorted(obs) == sorted(infos) == sorted(before)
        end = env.game.end_reason
        for a in before:
            s = env.game.state.snakes[int(a[-1])]
            assert rewards[a] == (0.5 + (10.0 if end == "WIN" else 0.0) if s.alive else -3.0)
            assert terminations[a] == (not s.alive or end in ("WIN", "DRAW")) and truncations[a] == (s.alive and end == "TIMEOUT")
            assert (a in env.agents) == (s.alive and end is None)
            if not s.alive:
                assert infos[a]["cause"] and infos[a]["action_mask"].sum() == 0
            else:
                neck = next(c for c in s.body[1:] if c != s.head)
                mask = infos[a]["action_mask"]
                assert mask.dtype == np.int8 and mask.sum() == 3
                assert [tuple(np.add(s.head, m.delta)) != neck for m in Move] == mask.astype(bool).tolist()
    assert env.game.end_reason in ("WIN", "DRAW", "TIMEOUT")


def test_seeding_and_misuse():
    env = battlesnake_v0.parallel_env(num_snakes=2, width=7, height=7)
    first, _ = env.reset(seed=5)
    env.reset()
    assert env.key == (5, 1)
    again, _ = env.reset(seed=5)
    for agent in first:
        np.testing.assert_array_equal(first[agent], again[agent])
    with pytest.raises(GameGrammarError, match="seed"):
        env.reset(seed=-1)
    env.reset(seed=5)
    with pytest.raises(ValueError, match="snake_1"):
        env.step({"snake_0": 0})
    with pytest.raises(ValueError, match="action"):
        env.step({"snake_0": 0, "snake_1": 7})
    with pytest.raises(GameGrammarError, match="num_snakes"):
        battlesnake_v0.parallel_env(num_snakes=9)


def test_render_and_state():
    env = battlesnake_v0.parallel_env(num_snakes=4, width=11, height=11, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text.count("\n") == 12 and all(str(k) in text for k in range(4))
    assert env.state().shape == (3, 11, 11)
