"""N Snake games behind gymnasium's `VectorEnv`, stepped together by the batch engine.

Why: `SyncVectorEnv` steps N copies of `SnakeEnv` one after another in Python; `SnakeVectorEnv` steps a `SnakeBatch`
of N games with the batch rules (`games/snake/batch.py`, tested against the scalar engine), so a step of all N games
costs a few array operations. It behaves exactly as `SyncVectorEnv` over N `SnakeEnv`s with the default autoreset
(`NEXT_STEP`): `reset(seed=s)` gives game i the seed s + i; an episode's end is reported by its step, and the next
step resets that game (its action ignored, reward 0) to the next episode of its seed. Same observations, rewards,
terminations, truncations and infos (tests/envs/test_snake_vector.py).

infos: "action_mask" (np.int8 [N, 4]) and "score" for every game; with `record_tokens=True` also "events" and
"tokens" per game as `SnakeEnv` gives them (written per game in Python: slower, for writing corpora from a policy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gamegrammar.core import rng
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.envs.seeding import check_seed, next_key
from gamegrammar.envs.snake import DIRECTION_PLANE, MASKS, PLANES, observation_space
from gamegrammar.games.snake.batch import (
    EAT,
    END_SELF,
    END_TIMEOUT,
    END_WALL,
    END_WIN,
    OUTCOMES,
    SnakeBatch,
    advance,
    end_codes,
    resolve,
    spawn_food,
)
from gamegrammar.games.snake.grammar import EpisodeEncoder
from gamegrammar.games.snake.rules import Direction, SnakeConfig, tick_events

_GAME_ARRAYS = [f.name for f in fields(SnakeBatch) if f.name != "config"]


class SnakeVectorEnv(VectorEnv):
    """`num_envs` Snake games on the batch engine; the arguments of `SnakeEnv` apply to every game."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 8,
        width: int = 10,
        height: int = 10,
        max_ticks: int = 200,
        *,
        food_reward: float = 1.0,
        death_reward: float = 0.0,
        win_reward: float = 0.0,
        keyframe_interval: int = 0,
        min_salience: int = 0,
        record_tokens: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError("SnakeVectorEnv does not render; use SnakeEnv(render_mode='ansi')")
        self.num_envs = num_envs
        self.config = SnakeConfig(width, height, max_ticks)
        self.codec = CodecConfig(keyframe_interval, min_salience)
        self.food_reward, self.death_reward, self.win_reward = float(food_reward), float(death_reward), float(win_reward)
        self.record_tokens = record_tokens
        self.render_mode = None
        self.single_observation_space = observation_space(self.config)
        self.single_action_space = spaces.Discrete(len(Direction))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.seeds = np.zeros(num_envs, np.uint64)  # game i plays episode `episodes[i]` of seed `seeds[i]`
        self.episodes = np.zeros(num_envs, np.int64)
        self.batch: SnakeBatch | None = None
        self._started = np.zeros(num_envs, bool)
        self._autoreset = np.zeros(num_envs, bool)
        self._encoders = [EpisodeEncoder(self.codec, self.config) for _ in range(num_envs)] if record_tokens else []

    # -- reset

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """As `SyncVectorEnv.reset`: seed None, an int s (game i gets s + i) or one per game; `options["reset_mask"]`
        (a bool array) resets only some games; `options["episode"]` picks the episode of every game reset."""
        n = self.num_envs
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seed = check_seed(seed)
            check_seed(seed + n - 1)
            super().reset(seed=seed)
            seeds: list[int | None] = [seed + i for i in range(n)]
        elif seed is None:
            seeds = [None] * n
        else:
            seeds = [check_seed(s) for s in seed]
            if len(seeds) != n:
                raise ValueError(f"one seed per game: {n} expected, got {len(seeds)}")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            rows = np.arange(n)
        else:
            if not isinstance(mask, np.ndarray) or mask.shape != (n,) or mask.dtype != np.bool_ or not mask.any():
                raise ValueError(f'options["reset_mask"] must be a numpy bool array of shape ({n},) with a True in it')
            if self.batch is None:
                raise RuntimeError("the first reset resets every game: call reset() without a reset_mask")
            rows = np.flatnonzero(mask)
        for i in rows:
            current = (int(self.seeds[i]), int(self.episodes[i])) if self._started[i] else None
            self.seeds[i], self.episodes[i] = next_key(seeds[i], current, self.np_random, options)
        self._start(rows)
        self._started[rows] = True
        self._autoreset[rows] = False
        infos = self._infos()
        if mask is not None:
            for key in [k for k in infos if not k.startswith("_")]:
                infos[f"_{key}"] = mask.copy()
        if self.record_tokens:
            self._add_tokens(infos, rows, [[] for _ in rows], [list(self._encoders[i].tokens) for i in rows])
        return self._observe(), infos

    def _start(self, rows: np.ndarray) -> None:
        """Put the games at `rows` at the start of their episodes (`seeds`, `episodes`)."""
        fresh = SnakeBatch.initial(self.config, self.seeds[rows], self.episodes[rows])
        if self.batch is None:
            self.batch = fresh
        else:
            for name in _GAME_ARRAYS:
                getattr(self.batch, name)[rows] = getattr(fresh, name)
        for i in rows if self.record_tokens else ():
            self._encoders[i].start(self.batch.state(int(i)))

    # -- step

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        b = self.batch
        if b is None:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer) or actions.min() < 0 or actions.max() > 3:
            raise ValueError(f"actions must be {self.num_envs} integers in 0..3 (U, D, L, R), got {actions!r}")
        actions = actions.astype(np.int64)
        playing = np.flatnonzero(~self._autoreset)
        before = [b.state(int(i)) for i in playing] if self.record_tokens else []
        # Every game steps (a few array operations); those whose episode ended last step are then put back at the start.
        res = resolve(b, actions)
        advance(b, res)
        ate = np.flatnonzero(res.outcome == EAT)
        if ate.size:
            draws = rng.draw_np(self.seeds[ate], self.episodes[ate], b.tick[ate], rng.Purpose.FOOD)
            b.food[ate] = spawn_food(b, ate, draws)
        end = end_codes(b, res)
        terminated = (end == END_WALL) | (end == END_SELF) | (end == END_WIN)
        truncated = end == END_TIMEOUT
        rewards = (
            self.food_reward * (res.outcome == EAT)
            + self.death_reward * ((end == END_WALL) | (end == END_SELF))
            + self.win_reward * (end == END_WIN)
        )
        events, tokens = [], []
        for j, i in enumerate(playing if self.record_tokens else ()):
            after = b.state(int(i))
            tick, _ = tick_events(before[j], after, Direction(int(actions[i])), OUTCOMES[res.outcome[i]], self.config)
            encoder = self._encoders[i]
            start = len(encoder.tokens)
            encoder.tick(tick, after, bool(terminated[i] or truncated[i]))
            events.append(tick)
            tokens.append(encoder.tokens[start:])
        restart = np.flatnonzero(self._autoreset)
        if restart.size:
            self.episodes[restart] += 1
            self._start(restart)
            rewards[restart] = 0.0
            terminated[restart] = truncated[restart] = False
        self._autoreset = terminated | truncated
        infos = self._infos()
        if self.record_tokens:
            rows = np.concatenate([playing, restart])
            self._add_tokens(infos, rows, [*events, *([] for _ in restart)], [*tokens, *(list(self._encoders[i].tokens) for i in restart)])
        return self._observe(), rewards.astype(np.float64), terminated, truncated, infos

    # -- what the games look like

    def _observe(self) -> np.ndarray:
        """The `SnakeEnv` observation of every game, at once."""
        b = self.batch
        assert b is not None
        n, cfg = len(b), self.config
        rows = np.arange(n)
        obs = np.zeros((n, len(PLANES), cfg.cells), np.float32)
        obs[:, 0] = 1.0
        fed = np.flatnonzero(b.food >= 0)
        obs[fed, 1, b.food[fed]] = 1.0
        head = b.head_y * cfg.width + b.head_x
        obs[:, 2] = b.occ
        obs[rows, 2, head] = 0.0
        obs[rows, 3, head] = 1.0
        obs[rows, DIRECTION_PLANE + b.direction] = 1.0
        return obs.reshape(n, len(PLANES), cfg.height, cfg.width)

    def _infos(self) -> dict[str, Any]:
        b = self.batch
        assert b is not None
        every = np.ones(self.num_envs, bool)
        return {"action_mask": MASKS[b.direction], "_action_mask": every, "score": b.score.copy(), "_score": every.copy()}

    def _add_tokens(self, infos: dict[str, Any], rows: np.ndarray, events: list[list], tokens: list[list[str]]) -> None:
        for key, values in (("events", events), ("tokens", tokens)):
            column = np.full(self.num_envs, None, dtype=object)
            for i, value in zip(rows, values):
                column[i] = value
            present = np.zeros(self.num_envs, bool)
            present[rows] = True
            infos[key], infos[f"_{key}"] = column, present
