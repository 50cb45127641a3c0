"""The batch-engine vector env is SyncVectorEnv over N SnakeEnv, step for step: observations, rewards, ends, infos."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import SyncVectorEnv

from gamegrammar.envs import SNAKE_ID, SnakeEnv, SnakeVectorEnv


def pair(n: int, **kwargs) -> tuple[SyncVectorEnv, SnakeVectorEnv]:
    record = kwargs.pop("record_tokens", False)
    return SyncVectorEnv([lambda: SnakeEnv(**kwargs) for _ in range(n)]), SnakeVectorEnv(n, record_tokens=record, **kwargs)


def assert_same(a, b, what: str, keys: list[str] | None = None) -> None:
    if keys is not None:  # infos: only these keys of the single envs' (and their masks)
        a = {k: a[k] for k in keys + [f"_{k}" for k in keys]}
        b = {k: b[k] for k in keys + [f"_{k}" for k in keys]}
    assert data_equivalence(a, b, exact=True), what


def run(sync, vec, steps: int, seed: int, info_keys: list[str] | None = None) -> int:
    """Step both with the same random actions; the number of episode ends seen."""
    for x, y, what in zip(sync.reset(seed=seed), vec.reset(seed=seed), ("obs", "infos")):
        assert_same(x, y, f"reset {what}", info_keys if what == "infos" else None)
    actions = np.random.default_rng(seed)
    ends = 0
    for t in range(steps):
        a = actions.integers(0, 4, sync.num_envs)
        for x, y, what in zip(sync.step(a), vec.step(a), ("obs", "reward", "terminated", "truncated", "infos")):
            assert_same(x, y, f"step {t} {what}", info_keys if what == "infos" else None)
        ends += int(vec._autoreset.sum())
    return ends


def test_same_trajectories_as_sync_vector_env_with_tokens():
    sync, vec = pair(12, width=5, height=4, max_ticks=25, keyframe_interval=3, death_reward=-1.0, win_reward=3.0, record_tokens=True)
    assert run(sync, vec, 150, seed=7) > 50  # many autoresets, TIMEOUTs included (25 ticks)


def test_same_trajectories_on_the_default_board():
    sync, vec = pair(16)
    assert run(sync, vec, 120, seed=0, info_keys=["action_mask", "score"]) > 0
    _, infos = vec.reset(seed=0)
    assert set(infos) == {"action_mask", "_action_mask", "score", "_score"}
    assert infos["action_mask"].dtype == np.int8 and infos["action_mask"].shape == (16, 4)


def test_make_vec_uses_the_batch_engine():
    vec = gymnasium.make_vec(SNAKE_ID, num_envs=4, width=6, height=6, max_ticks=30)
    assert isinstance(vec.unwrapped, SnakeVectorEnv) and vec.unwrapped.config.width == 6
    obs, _ = vec.reset(seed=1)
    assert obs.shape == (4, 8, 6, 6) and obs in vec.observation_space
    sync = gymnasium.make_vec(SNAKE_ID, num_envs=4, vectorization_mode="sync", width=6, height=6, max_ticks=30)
    assert isinstance(sync, SyncVectorEnv)
    np.testing.assert_array_equal(sync.reset(seed=1)[0], obs)


def test_seeds_and_partial_resets_match_sync():
    sync, vec = pair(5, width=6, height=6, max_ticks=40)
    seeds = [3, None, 11, 3, 0]
    first = [3, 2**63 - 1, 11, 3, 0]  # the largest seed too: the batch engine's keys are uint64 arrays
    np.testing.assert_array_equal(sync.reset(seed=first)[0], vec.reset(seed=first)[0])
    assert vec.seeds.tolist() == first and vec.episodes.tolist() == [0] * 5
    for _ in range(3):
        a = np.array([3, 3, 1, 1, 0])
        sync.step(a)
        vec.step(a)
    mask = np.array([True, False, True, False, False])
    x, y = sync.reset(seed=seeds, options={"reset_mask": mask.copy()})[0], vec.reset(seed=seeds, options={"reset_mask": mask.copy()})[0]
    np.testing.assert_array_equal(x, y)
    assert vec.episodes.tolist() == [0, 0, 0, 0, 0]
    vec.reset(options={"episode": 4})
    assert vec.episodes.tolist() == [4] * 5
    vec.reset()
    assert vec.episodes.tolist() == [5] * 5 and vec.seeds.tolist() == first


def test_misuse_is_refused():
    vec = SnakeVectorEnv(3)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step([0, 0, 0])
    with pytest.raises(RuntimeError, match="first reset"):
        vec.reset(options={"reset_mask": np.array([True, False, False])})
    vec.reset(seed=0)
    for bad in ([0, 0], [0, 4, 0], [0.5, 0, 0]):
        with pytest.raises(ValueError, match="actions"):
            vec.step(bad)
    with pytest.raises(ValueError, match="one seed per game"):
        vec.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="num_envs"):
        SnakeVectorEnv(0)
