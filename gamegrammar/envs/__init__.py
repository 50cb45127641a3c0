"""The games behind the standard RL interfaces: gymnasium for Snake, PettingZoo for Battlesnake.

Importing this package registers `"gamegrammar/Snake-v0"` with gymnasium:

    gymnasium.make("gamegrammar/Snake-v0", width=10, height=10, max_ticks=200)       # SnakeEnv, the scalar engine
    gymnasium.make_vec("gamegrammar/Snake-v0", num_envs=64)                             # SnakeVectorEnv, the batch engine
    gymnasium.make_vec("gamegrammar/Snake-v0", num_envs=64, vectorization_mode="sync")  # 64 SnakeEnv

`battlesnake_v0.parallel_env(num_snakes=4, width=11, height=11)` is the PettingZoo `ParallelEnv` and
`go_v0.env(size=9)` Go's `AECEnv` (imported on demand: `from gamegrammar.envs import battlesnake_v0, go_v0`), and `ModelPolicy.from_checkpoint(path)` plays a trained model
in either (imported on demand too, so that making an environment never imports torch). docs/envs.md has the details.
"""

from __future__ import annotations

from typing import Any

import gymnasium

from gamegrammar.envs.snake import SnakeEnv
from gamegrammar.envs.snake_vector import SnakeVectorEnv

SNAKE_ID = "gamegrammar/Snake-v0"

__all__ = ["SNAKE_ID", "ModelPolicy", "SnakeEnv", "SnakeVectorEnv"]

if SNAKE_ID not in gymnasium.registry:
    gymnasium.register(
        SNAKE_ID,
        entry_point="gamegrammar.envs.snake:SnakeEnv",
        vector_entry_point="gamegrammar.envs.snake_vector:SnakeVectorEnv",
        # no max_episode_steps: the game's own tick limit (max_ticks) truncates, as in the corpus
    )


def __getattr__(name: str) -> Any:
    if name == "ModelPolicy":  # torch and the checkpoint reader, only when a model plays
        from gamegrammar.envs.policy import ModelPolicy

        return ModelPolicy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
