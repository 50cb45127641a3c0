"""Snake behind gymnasium's `Env`: the scalar reference engine, an observation a network can read, and the tokens.

`SnakeEnv` steps `SnakeGame` (the one reference implementation of the rules), so what it plays is what the corpus
engines play: `reset(seed=s, options={"episode": i})` then the inputs of episode i of a corpus generated with
`--seed s` give that episode's tokens back, token for token (tests/envs/test_snake.py). Each step's `info` carries the
tick's events and their tokens through the Snake grammar's encoder, so any policy's play can be written as a corpus.

Observation: `(8, H, W)` float32 planes in {0, 1}, row y of the array being the board's row y (y grows downwards):
0 every board cell, 1 food, 2 the body without the head, 3 the head, 4..7 the current direction (U, D, L, R) as
one constant plane each. Actions: `Discrete(4)` in `Direction` order (U, D, L, R), the order of the grammar's input
tokens; an input opposite to the direction is ignored by the rules (the snake goes on), and `info["action_mask"]`
marks the other three.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from gamegrammar.core.events import Event
from gamegrammar.envs.seeding import check_seed, next_key
from gamegrammar.games.snake.grammar import EpisodeEncoder, SnakeCodec
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeGame, SnakeState

PLANES = ("board", "food", "body", "head", "dir_U", "dir_D", "dir_L", "dir_R")
DIRECTION_PLANE = PLANES.index("dir_U")
# [current direction, input] -> 1 where the input is not a reversal (the rules ignore a reversal)
MASKS = np.array([[int(d != current.opposite) for d in Direction] for current in Direction], dtype=np.int8)


def observation_space(config: SnakeConfig) -> spaces.Box:
    return spaces.Box(0.0, 1.0, shape=(len(PLANES), config.height, config.width), dtype=np.float32)


def observe(state: SnakeState, config: SnakeConfig) -> np.ndarray:
    """The observation planes of a state (see the module docstring)."""
    planes = np.zeros((len(PLANES), config.height, config.width), dtype=np.float32)
    planes[0] = 1.0
    if state.food is not None:
        planes[1, state.food[1], state.food[0]] = 1.0
    for x, y in state.body[1:]:
        planes[2, y, x] = 1.0
    planes[3, state.head[1], state.head[0]] = 1.0  # a snake that hit the wall has not moved: its head is on the board
    planes[DIRECTION_PLANE + int(state.direction)] = 1.0
    return planes


def action_mask(direction: Direction) -> np.ndarray:
    """np.int8 [4]: 1 for the inputs that are not a reversal of `direction`."""
    return MASKS[int(direction)].copy()


class SnakeEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One Snake game per episode through the scalar reference engine.

    Rewards: `food_reward` per food eaten, `death_reward` on DIE_WALL or DIE_SELF, `win_reward` on WIN (a full
    board). `terminated` on a death or a win, `truncated` when the tick limit (`max_ticks`) ends the episode.
    The codec settings (`keyframe_interval`, `min_salience`, `tail_events`, `head_first`, `sense`, `spawn_column`, `body_list`) only change `info["tokens"]`: use the corpus's (or the
    model's, see `ModelPolicy.env_kwargs`) to get its tokens.

    info: "action_mask" (np.int8 [4]), "events" (the tick's `Event`s; none at reset), "tokens" (their tokens, with the
    keyframes and EOS the codec writes; at reset BOS and the first keyframe), "score".
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 8}

    def __init__(
        self,
        width: int = 10,
        height: int = 10,
        max_ticks: int = 200,
        *,
        food_reward: float = 1.0,
        death_reward: float = 0.0,
        win_reward: float = 0.0,
        keyframe_interval: int = 0,
        min_salience: int = 0,
        tail_events: bool = False,
        head_first: bool = False,
        sense: bool = False,
        spawn_column: bool = False,
        body_list: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = SnakeConfig(width, height, max_ticks)
        self.codec = SnakeCodec(keyframe_interval, min_salience, tail_events, head_first, sense, spawn_column, body_list)
        self.food_reward, self.death_reward, self.win_reward = float(food_reward), float(death_reward), float(win_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(self.config)
        self.action_space = spaces.Discrete(len(Direction))
        self.game = SnakeGame(self.config)
        self.key: tuple[int, int] | None = None  # (seed, episode) of the episode being played
        self._encoder = EpisodeEncoder(self.codec, self.config)

    @property
    def tokens(self) -> list[str]:
        """The episode's tokens so far (what the `info["tokens"]` of its reset and steps add up to)."""
        return list(self._encoder.tokens)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Episode 0 of `seed`; without one, the next episode of the last seed; `options={"episode": i}` picks it."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        self.key = next_key(seed, self.key, self.np_random, options)
        state = self.game.reset(*self.key)
        self._encoder.start(state)
        return observe(state, self.config), self._info(state, [], list(self._encoder.tokens))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game.state is None:
            raise RuntimeError("call reset() before step()")
        if self.game.done:
            raise RuntimeError("the episode is over; call reset()")
        if not self.action_space.contains(action):
            raise ValueError(f"action must be one of 0..3 (U, D, L, R), got {action!r}")
        before = len(self._encoder.tokens)
        state, events, done = self.game.step(Direction(int(action)))
        self._encoder.tick(events, state, done)
        end = self.game.end_reason
        reward = self.food_reward * _ate(events)
        if end in ("DIE_WALL", "DIE_SELF"):
            reward += self.death_reward
        elif end == "WIN":
            reward += self.win_reward
        terminated = end in ("DIE_WALL", "DIE_SELF", "WIN")
        truncated = end == "TIMEOUT"
        return observe(state, self.config), reward, terminated, truncated, self._info(state, events, self._encoder.tokens[before:])

    def _info(self, state: SnakeState, events: list[Event], tokens: list[str]) -> dict[str, Any]:
        return {"action_mask": action_mask(state.direction), "events": events, "tokens": tokens, "score": state.score}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game.state is None:
            return None
        return render_text(self.game.state, self.config)


def _ate(events: list[Event]) -> int:
    return int(any(e.type == "EAT" for e in events))


_HEAD = {Direction.U: "^", Direction.D: "v", Direction.L: "<", Direction.R: ">"}


def render_text(state: SnakeState, config: SnakeConfig) -> str:
    """The board as text: `.` empty, `o` body, the head as an arrow of its direction, `*` food."""
    rows = [["."] * config.width for _ in range(config.height)]
    if state.food is not None:
        rows[state.food[1]][state.food[0]] = "*"
    for x, y in state.body[1:]:
        rows[y][x] = "o"
    rows[state.head[1]][state.head[0]] = _HEAD[state.direction]
    lines = [" ".join(row) for row in rows]
    return "\n".join([*lines, f"tick {state.tick}  score {state.score}  length {state.length}"]) + "\n"
