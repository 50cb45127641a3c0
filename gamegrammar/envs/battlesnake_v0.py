"""Battlesnake behind PettingZoo's `ParallelEnv`: one agent per snake, every snake moving at once.

    from gamegrammar.envs import battlesnake_v0
    env = battlesnake_v0.parallel_env(num_snakes=4, width=11, height=11)

The game is `BattlesnakeGame`, the one reference implementation of the standard rules (../shared/BATTLESNAKE.md),
keyed like the corpus engines: `reset(seed=s, options={"episode": i})` plays episode i of seed s, a later `reset()`
the next episode. Agents are "snake_0".."snake_{n-1}" (snake k of the rules); an agent leaves `agents` after the step
that eliminates it, and every agent still in the game leaves when it ends (terminated on WIN, DRAW or DEATH, truncated
at the tick limit).

Observation of each agent: the `(8, H, W)` float32 feature planes of BATTLESNAKE.md from its own point of view (0
every cell, 1 food, 2 its body without the head, 3 its head, 4 other snakes' bodies, 5 their heads, 6 hazards, 7 its
health / 100), row y of the array being the board's y ((0, 0) is the bottom-left cell). Actions: `Discrete(4)` in
the rules' `Move` order: up (y + 1), down, left, right. `info["action_mask"]` (np.int8 [4]) rules out the one move
that is always fatal, straight back into the neck (every move is legal: the rules make that one a self-collision).
Each agent's info also holds the tick's events and their tokens through the Battlesnake grammar ("events",
"tokens"), as the Snake environment's does.

Rewards (all configurable): `survival_reward` for each tick survived, `win_reward` added for the last snake standing,
`elimination_reward` on the tick a snake is eliminated (a DRAW eliminates every snake left).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec

from gamegrammar.core.events import Event
from gamegrammar.envs.seeding import check_seed, next_key
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec, EpisodeEncoder
from gamegrammar.games.battlesnake.planes import FEATURES, feature_planes
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeGame, BattlesnakeState, Move, step

__all__ = ["BattlesnakeParallelEnv", "env", "parallel_env", "raw_env"]

_NO_MOVES = np.zeros(len(Move), np.int8)


def agent_name(k: int) -> str:
    return f"snake_{k}"


def action_mask(state: BattlesnakeState, k: int) -> np.ndarray:
    """np.int8 [4] for snake k: 1 for every move but the one into its neck (none for an eliminated snake)."""
    s = state.snakes[k]
    if not s.alive:
        return _NO_MOVES.copy()
    neck = next((cell for cell in s.body[1:] if cell != s.head), None)  # a stacked start has no distinct neck
    return np.array([int(neck is None or step(s.head, m) != neck) for m in Move], np.int8)


class BattlesnakeParallelEnv(ParallelEnv):
    """A standard Battlesnake game; the config's fields are keyword arguments (see `BattlesnakeConfig`)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "battlesnake_v0", "render_modes": ["ansi"], "is_parallelizable": True, "render_fps": 4}

    def __init__(
        self,
        num_snakes: int = 4,
        width: int = 11,
        height: int = 11,
        max_ticks: int = 300,
        minimum_food: int = 1,
        food_spawn_chance: int = 15,
        *,
        exact_spawn_chance: bool = False,
        survival_reward: float = 0.01,
        win_reward: float = 1.0,
        elimination_reward: float = -1.0,
        keyframe_interval: int = 0,
        min_salience: int = 0,
        tails: bool = False,
        smell: bool = False,
        cells: bool = False,
        sense: bool = False,
        hits: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = BattlesnakeConfig(width, height, num_snakes, minimum_food, food_spawn_chance, max_ticks, exact_spawn_chance)
        self.codec = BattlesnakeCodec(keyframe_interval, min_salience, tails, smell, cells, sense, hits)
        self.survival_reward, self.win_reward, self.elimination_reward = (
            float(survival_reward),
            float(win_reward),
            float(elimination_reward),
        )
        self.render_mode = render_mode
        self.possible_agents = [agent_name(k) for k in range(num_snakes)]
        self.agents: list[str] = []
        shape = (len(FEATURES), height, width)
        self.observation_spaces = {a: spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(len(Move)) for a in self.possible_agents}
        self.game = BattlesnakeGame(self.config)
        self.key: tuple[int, int] | None = None  # (seed, episode) of the episode being played
        self._np_random: np.random.Generator | None = None
        self._encoder = EpisodeEncoder(self.codec)

    def observation_space(self, agent: str) -> spaces.Box:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def tokens(self) -> list[str]:
        """The episode's tokens so far."""
        return list(self._encoder.tokens)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        """Episode 0 of `seed`; without one, the next episode of the last seed; `options={"episode": i}` picks it."""
        seed = check_seed(seed)
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        self.key = next_key(seed, self.key, self._np_random, options)
        state = self.game.reset(*self.key)
        self._encoder.start(state)
        self.agents = [agent_name(k) for k in state.alive]
        tokens = list(self._encoder.tokens)
        observations = {a: feature_planes(state, self.config, k) for k, a in self._indexed(self.agents)}
        infos = {a: self._info(state, k, [], tokens) for k, a in self._indexed(self.agents)}
        return observations, infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if self.game.state is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            raise RuntimeError("the episode is over; call reset()")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"every agent in the game moves at once: no action for {', '.join(missing)}")
        moves: list[Move | None] = [None] * self.config.num_snakes
        for k, a in self._indexed(self.agents):
            if not self.action_spaces[a].contains(actions[a]):
                raise ValueError(f"the action of {a} must be one of 0..3 (up, down, left, right), got {actions[a]!r}")
            moves[k] = Move(int(actions[a]))
        before = len(self._encoder.tokens)
        state, events, done = self.game.step(moves)
        self._encoder.tick(events, state, done)
        tokens = self._encoder.tokens[before:]
        end = self.game.end_reason
        observations, rewards, terminations, truncations, infos = {}, {}, {}, {}, {}
        for k, a in self._indexed(self.agents):
            alive = state.snakes[k].alive
            reward = self.survival_reward if alive else self.elimination_reward
            if alive and end == "WIN":
                reward += self.win_reward
            observations[a] = feature_planes(state, self.config, k)
            rewards[a] = reward
            terminations[a] = not alive or end in ("WIN", "DRAW", "DEATH")
            truncations[a] = alive and end == "TIMEOUT"
            infos[a] = self._info(state, k, events, tokens)
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def _indexed(self, agents: list[str]) -> list[tuple[int, str]]:
        return [(self.possible_agents.index(a), a) for a in agents]

    @staticmethod
    def _info(state: BattlesnakeState, k: int, events: list[Event], tokens: list[str]) -> dict[str, Any]:
        s = state.snakes[k]
        return {
            "action_mask": action_mask(state, k),
            "events": list(events),
            "tokens": list(tokens),
            "health": s.health,
            "length": s.length,
            "cause": s.cause,
        }

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game.state is None:
            return None
        return render_text(self.game.state, self.config)

    def close(self) -> None:
        pass

    def state(self) -> np.ndarray:
        """The board as a whole (a global state for centralised critics): food and every live snake's body, (3, H, W)
        float32 planes: 0 food, 1 bodies, 2 heads."""
        s = self.game.state
        if s is None:
            raise RuntimeError("call reset() before state()")
        planes = feature_planes(s, self.config, len(s.snakes))  # nobody's point of view: every live snake is an "other" one
        return planes[[1, 4, 5]].copy()


def render_text(state: BattlesnakeState, config: BattlesnakeConfig) -> str:
    """The board as text, the top row first: `.` empty, `*` food, snake k's head the digit k, its body a letter."""
    rows = [["."] * config.width for _ in range(config.height)]
    for x, y in state.food:
        rows[y][x] = "*"
    for k, s in enumerate(state.snakes):
        if not s.alive:
            continue
        for x, y in s.body[1:]:
            if config.in_bounds((x, y)):
                rows[y][x] = "abcdefgh"[k]
        if config.in_bounds(s.head):
            rows[s.head[1]][s.head[0]] = str(k)
    lines = [" ".join(row) for row in reversed(rows)]
    alive = ", ".join(f"{agent_name(k)} health {s.health}" for k, s in enumerate(state.snakes) if s.alive)
    return "\n".join([*lines, f"tick {state.tick}  {alive or 'no snake left'}"]) + "\n"


raw_env = BattlesnakeParallelEnv


def parallel_env(**kwargs: Any) -> BattlesnakeParallelEnv:
    """The ParallelEnv (keyword arguments of `BattlesnakeParallelEnv`)."""
    return BattlesnakeParallelEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv:
    """The same game as an AEC environment (agents acting in turn), through PettingZoo's conversion."""
    return parallel_to_aec(parallel_env(**kwargs))
