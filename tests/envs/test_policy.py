"""The model as a policy: only allowed inputs, deterministic given a seed, the cache equal to a full forward pass."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.envs import ModelPolicy, SnakeEnv
from gamegrammar.games import game_of

pytestmark = pytest.mark.usefixtures("one_torch_thread")  # a tiny model: more threads only wait on each other


@pytest.fixture
def policy(tiny_snake_model) -> ModelPolicy:
    model, tokenizer, config, codec = tiny_snake_model
    return ModelPolicy(model, tokenizer, game_of(config), config, codec, temperature=1.0, seed=0)


def episode(policy: ModelPolicy, env: SnakeEnv, seed: int) -> list[int]:
    """Play one episode; every action must be one the mask allows."""
    obs, info = env.reset(seed=seed)
    actions, done = [], False
    while not done:
        action = policy(obs, info)
        assert info["action_mask"][action] == 1, "played a masked move"
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return actions


def test_never_plays_a_masked_move(policy):
    env = SnakeEnv(**policy.env_kwargs)
    played, longest = [], 0
    for seed in range(4):
        played += episode(policy, env, seed)
        longest = max(longest, len(policy.history))
    assert len(set(played)) == 4  # an untrained model spreads over every input the masks allow
    assert longest > policy.model.config.block_size  # the window slid past the context
    for allowed in range(4):
        mask = np.zeros(4, np.int8)
        mask[allowed] = 1
        assert {policy.act(mask) for _ in range(10)} == {allowed}


def test_deterministic_given_a_seed(tiny_snake_model, policy):
    model, tokenizer, config, codec = tiny_snake_model
    env = SnakeEnv(**policy.env_kwargs)
    first = episode(policy, env, 5)
    again = ModelPolicy(model, tokenizer, game_of(config), config, codec, temperature=1.0, seed=0)
    assert episode(again, env, 5) == first
    again.reset(seed=0)
    assert episode(again, env, 5) == first
    greedy = ModelPolicy(model, tokenizer, game_of(config), config, codec, temperature=0)
    assert episode(greedy, env, 5) == episode(greedy, env, 5)


def test_cached_logits_equal_a_full_forward_pass(policy):
    env = SnakeEnv(**policy.env_kwargs)
    obs, info = env.reset(seed=1)
    for _ in range(4):
        obs, _, terminated, truncated, info = env.step(policy(obs, info))
        assert not (terminated or truncated)
    ids = [*policy.history, policy.tick_id]
    assert len(ids) <= policy.model.config.block_size
    with torch.no_grad():
        cached = policy._next_logits(ids)
        full = policy.model(torch.tensor([ids]))[0][0, -1]
    assert torch.allclose(cached, full, atol=1e-5, rtol=1e-5)


def test_from_checkpoint(tmp_path, tiny_snake_model):
    from gamegrammar.data.corpus import CorpusSpec
    from gamegrammar.training.checkpoint import CHECKPOINT_KEY, MODEL_PREFIX

    model, tokenizer, config, codec = tiny_snake_model
    path = tmp_path / "tiny.ckpt"
    torch.save(
        {
            CHECKPOINT_KEY: {
                "gpt_config": model.config.to_dict(),
                "tokenizer_json": tokenizer.to_json(),
                "corpus_spec": CorpusSpec(game=config, codec=codec).to_dict(),
            },
            "state_dict": {MODEL_PREFIX + k: v for k, v in model.state_dict().items()},
        },
        path,
    )
    loaded = ModelPolicy.from_checkpoint(path, temperature=0.7, seed=3)
    assert loaded.env_kwargs == {"width": 6, "height": 6, "max_ticks": 60, "keyframe_interval": 5, "min_salience": 0}
    same = ModelPolicy(model, tokenizer, game_of(config), config, codec, temperature=0.7, seed=3)
    env = SnakeEnv(**loaded.env_kwargs)
    assert episode(loaded, env, 2) == episode(same, env, 2)


def test_misuse_is_refused(policy):
    with pytest.raises(GameGrammarError, match="no episode"):
        policy.act()
    other = SnakeEnv(12, 12, 60)  # not the board the model knows: its head starts on X6, Y6
    obs, info = other.reset(seed=0)
    with pytest.raises(GameGrammarError, match="env_kwargs"):
        policy(obs, info)
    obs, info = SnakeEnv(**policy.env_kwargs).reset(seed=0)
    policy.observe(info["tokens"])
    with pytest.raises(GameGrammarError, match="action mask"):
        policy.act(np.zeros(4, np.int8))
    with pytest.raises(GameGrammarError, match="tokens"):
        policy(obs, {"action_mask": info["action_mask"]})


def test_env_kwargs_carry_the_grammar_options():
    """A model trained with tail events gets an environment that writes them (not grammar v1, silently)."""
    from gamegrammar.envs.snake import SnakeEnv
    from gamegrammar.games.snake.grammar import SnakeCodec
    from gamegrammar.games.snake.rules import SnakeConfig

    policy = ModelPolicy.__new__(ModelPolicy)
    policy.config, policy.codec = SnakeConfig(6, 6, 30), SnakeCodec(tail_events=True)
    env = SnakeEnv(**policy.env_kwargs)
    env.reset(seed=0)
    tokens = list(env.tokens)
    for _ in range(3):
        tokens += env.step(0)[-1]["tokens"]
    assert env.codec.tail_events and "FREE" in tokens


@pytest.mark.parametrize("option", ["head_first", "sense"])
def test_env_kwargs_carry_the_grammar_option(option):
    """A model trained head first (or with sense words) gets an environment that writes its design."""
    from gamegrammar.envs.snake import SnakeEnv
    from gamegrammar.games.snake.grammar import SnakeCodec, uses_head_first, uses_sense
    from gamegrammar.games.snake.rules import SnakeConfig

    policy = ModelPolicy.__new__(ModelPolicy)
    policy.config, policy.codec = SnakeConfig(6, 6, 30), SnakeCodec(2, **{option: True})
    assert policy.env_kwargs == {"width": 6, "height": 6, "max_ticks": 30, "keyframe_interval": 2, "min_salience": 0, option: True}
    env = SnakeEnv(**policy.env_kwargs)
    env.reset(seed=0)
    tokens = list(env.tokens)
    for _ in range(3):
        tokens += env.step(int(env.game.state.direction))[-1]["tokens"]
    assert env.codec == policy.codec and {"head_first": uses_head_first, "sense": uses_sense}[option](tokens)
