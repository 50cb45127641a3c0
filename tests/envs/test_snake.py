"""The Snake gymnasium environment: gymnasium's own checker, corpus episodes replayed token for token, seeding."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.envs import SNAKE_ID, SnakeEnv
from gamegrammar.envs.snake import PLANES, observe
from gamegrammar.games.snake.grammar import Tick, parse
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState


def inputs_of(tokens: list[str]) -> list[int]:
    """The inputs an episode's tokens record, one per tick."""
    return [int(item.input) for item in parse(tokens) if isinstance(item, Tick)]


def play(env: SnakeEnv, seed: int, episode: int, actions: list[int]) -> tuple[list[str], list[tuple[float, bool, bool]]]:
    """The tokens of a reset and of every step, and each step's (reward, terminated, truncated)."""
    _, info = env.reset(seed=seed, options={"episode": episode})
    tokens, steps = list(info["tokens"]), []
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        tokens += info["tokens"]
        steps.append((reward, terminated, truncated))
    return tokens, steps


@pytest.mark.parametrize("kwargs", [{}, {"width": 5, "height": 7, "max_ticks": 30, "render_mode": "ansi"}])
def test_gymnasium_env_checker_passes(kwargs):
    env = gymnasium.make(SNAKE_ID, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings count as failures
        check_env(env.unwrapped)


def test_make_passes_the_config():
    env = gymnasium.make(SNAKE_ID, width=10, height=10, max_ticks=200).unwrapped
    assert isinstance(env, SnakeEnv)
    assert env.config == SnakeConfig(10, 10, 200)
    assert env.observation_space.shape == (len(PLANES), 10, 10)
    assert env.observation_space.dtype == np.float32
    assert env.action_space == gymnasium.spaces.Discrete(4)
    with pytest.raises(GameGrammarError, match="board"):
        SnakeEnv(width=2)


def test_corpus_episodes_replay_to_their_tokens(small_snake_corpus):
    corpus = small_snake_corpus
    game = corpus.game
    env = SnakeEnv(game.width, game.height, game.max_ticks, keyframe_interval=corpus.codec.keyframe_interval)
    ends = set()
    for row in range(len(corpus)):
        expected = corpus.episode_tokens(row)
        tokens, steps = play(env, corpus.spec.seed, int(corpus.index["episode"][row]), inputs_of(expected))
        assert tokens == expected, f"episode {row}"
        assert env.tokens == expected
        _, terminated, truncated = steps[-1]
        end = expected[-2]
        ends.add(end)
        assert (terminated, truncated) == (end != "TIMEOUT", end == "TIMEOUT")
        assert not any(t or u for _, t, u in steps[:-1])
        assert sum(r for r, _, _ in steps) == corpus.index["score"][row]
    assert ends == {"DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"}


def test_default_corpus_replays(tiny_corpus):
    from gamegrammar.data.corpus import Corpus

    corpus = Corpus(tiny_corpus)
    env = gymnasium.make(SNAKE_ID, **corpus.game.to_dict(), keyframe_interval=corpus.codec.keyframe_interval)
    for row in range(0, len(corpus), 12):
        expected = corpus.episode_tokens(row)
        assert play(env, corpus.spec.seed, int(corpus.index["episode"][row]), inputs_of(expected))[0] == expected


def test_rewards_are_configurable(small_snake_corpus):
    corpus = small_snake_corpus
    env = SnakeEnv(4, 4, 80, food_reward=0.5, death_reward=-2.0, win_reward=10.0)
    seen = set()
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        _, steps = play(env, corpus.spec.seed, int(corpus.index["episode"][row]), inputs_of(tokens))
        end, score = tokens[-2], int(corpus.index["score"][row])
        bonus = {"DIE_WALL": -2.0, "DIE_SELF": -2.0, "WIN": 10.0, "TIMEOUT": 0.0}[end]
        assert sum(r for r, _, _ in steps) == pytest.approx(0.5 * score + bonus)
        seen.add(end)
    assert seen == {"DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"}


def test_seeding_is_the_corpus_keying():
    env = SnakeEnv(6, 6, 30)
    first, _ = env.reset(seed=3)
    assert env.key == (3, 0)
    second, _ = env.reset()  # the next episode of the same seed
    assert env.key == (3, 1)
    np.testing.assert_array_equal(env.reset(seed=3, options={"episode": 1})[0], second)
    np.testing.assert_array_equal(env.reset(seed=3)[0], first)
    env.reset(options={"episode": 9})
    assert env.key == (3, 9)
    fresh = SnakeEnv(6, 6, 30)
    fresh.reset()  # unseeded: a seed drawn once, then the following episodes
    seed = fresh.key[0]
    fresh.reset()
    assert fresh.key == (seed, 1)
    for bad in (-1, 1 << 63):
        with pytest.raises((GameGrammarError, ValueError)):
            env.reset(seed=bad)
    with pytest.raises(GameGrammarError, match="episode"):
        env.reset(options={"episode": -1})


def test_info_holds_mask_events_and_tokens():
    env = SnakeEnv(6, 6, 30)
    _, info = env.reset(seed=1)
    assert info["events"] == [] and info["tokens"][0] == "BOS"
    direction = env.game.state.direction
    assert info["action_mask"].dtype == np.int8
    assert info["action_mask"].tolist() == [int(d != direction.opposite) for d in Direction]
    _, _, _, _, info = env.step(int(direction.opposite))  # a reversal is ignored by the rules, not refused
    assert env.game.state.direction == direction
    assert [e.type for e in info["events"]][:2] == ["TICK", "INPUT"]
    assert info["tokens"][:2] == ["TICK", f"INPUT_{direction.opposite.name}"]


def test_observation_planes():
    config = SnakeConfig(5, 4, 20)
    state = SnakeState(((2, 1), (2, 2), (1, 2)), Direction.U, (4, 0), 2, 7)
    planes = observe(state, config)
    assert planes.shape == (8, 4, 5) and planes.dtype == np.float32
    assert planes[PLANES.index("board")].sum() == 20
    assert np.argwhere(planes[PLANES.index("food")]).tolist() == [[0, 4]]  # [row y, column x]
    assert np.argwhere(planes[PLANES.index("body")]).tolist() == [[2, 1], [2, 2]]
    assert np.argwhere(planes[PLANES.index("head")]).tolist() == [[1, 2]]
    assert [planes[PLANES.index(f"dir_{d.name}")].max() for d in Direction] == [1, 0, 0, 0]
    assert planes[PLANES.index("dir_U")].min() == 1


def test_misuse_is_refused():
    env = SnakeEnv(6, 6, 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for bad in (4, -1, 1.5, "U"):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(env.game.state.direction))
        done = terminated or truncated
    with pytest.raises(RuntimeError, match="over"):
        env.step(0)
    with pytest.raises(ValueError, match="render_mode"):
        SnakeEnv(render_mode="human")


def test_render_ansi():
    env = SnakeEnv(5, 5, 10, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text.count("\n") == 6 and "tick 0" in text and "*" in text
    assert SnakeEnv().render() is None


def test_head_first_env_writes_the_head_first_tokens_of_the_same_episodes(small_snake_corpus, as_v1):
    from gamegrammar.games.snake.grammar import SnakeCodec, decode
    from gamegrammar.games.snake.validity import validate

    corpus = small_snake_corpus
    game = corpus.game
    env = SnakeEnv(game.width, game.height, game.max_ticks, keyframe_interval=corpus.codec.keyframe_interval, head_first=True)
    v1_env = SnakeEnv(game.width, game.height, game.max_ticks, keyframe_interval=corpus.codec.keyframe_interval)
    assert env.codec == SnakeCodec(corpus.codec.keyframe_interval, head_first=True)
    ends = set()
    for row in range(len(corpus)):
        expected = corpus.episode_tokens(row)
        episode, inputs = int(corpus.index["episode"][row]), inputs_of(expected)
        tokens, steps = play(env, corpus.spec.seed, episode, inputs)
        assert as_v1(tokens) == expected and env.tokens == tokens, f"episode {row}"
        assert decode(tokens).events == decode(expected).events
        assert steps == play(v1_env, corpus.spec.seed, episode, inputs)[1]  # the option changes the tokens only
        assert validate(tokens, game, head_first=True).valid
        ends.add(tokens[-2])
    assert ends == {"DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"}


def test_head_first_info_tokens_are_each_ticks_cell_then_its_outcome_word():
    env = SnakeEnv(6, 6, 30, head_first=True)
    _, info = env.reset(seed=4)
    assert info["tokens"][0] == "BOS" and info["events"] == []
    while True:
        before = env.game.state.head
        _, _, terminated, truncated, info = env.step(int(env.game.state.direction))  # straight on, into the wall
        tokens, kinds = info["tokens"], [e.type for e in info["events"]]
        if "DIE_WALL" in kinds:
            assert tokens == ["TICK", info["tokens"][1], "DIE_WALL", "EOS"] and terminated
            break
        head = env.game.state.head
        assert abs(head[0] - before[0]) + abs(head[1] - before[1]) == 1
        assert tokens[:5] == ["TICK", tokens[1], f"X{head[0]}", f"Y{head[1]}", "EAT" if "EAT" in kinds else "MOVE"]
        assert not truncated


@pytest.mark.parametrize("spawn", ["spawn_column", "body_list"])
def test_spawn_design_env_writes_the_engines_tokens(spawn):
    """`SnakeEnv(spawn_column=True, sense=True)` (or `body_list=True`) writes what the scalar engine writes."""
    from gamegrammar.games.snake import GAME
    from gamegrammar.games.snake.grammar import SnakeCodec, uses_body_list, uses_spawn_column

    config, codec = SnakeConfig(6, 6, 60), SnakeCodec(2, sense=True, **{spawn: True})
    env = SnakeEnv(6, 6, 60, keyframe_interval=2, sense=True, **{spawn: True})
    written = {"spawn_column": uses_spawn_column, "body_list": uses_body_list}[spawn]
    for episode in range(4):
        expected = GAME.play_episode(config, codec, "greedy", 5, episode).tokens
        tokens, _ = play(env, 5, episode, inputs_of(expected))
        assert tokens == expected and "FOOD_SPAWN" in tokens and written(tokens)
