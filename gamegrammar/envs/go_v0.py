"""Go behind PettingZoo's `AECEnv`: two agents, "black_0" and "white_0", moving in turn (GO.md's rules).

    from gamegrammar.envs import go_v0
    env = go_v0.env(size=9, komi=7.5)

The game is `GoGame`, the one reference implementation of the rules. Black moves first; `agent_selection` is the
player to move. Actions: `Discrete(N * N + 1)`, a point (p = y * N + x, A1 = 0) or N * N, a pass; an action the rules
refuse raises ValueError (`observation["action_mask"]` gives the legal ones, pass always among them). Observations
are a dict: "observation", the (11, N, N) float32 feature planes of `gamegrammar.games.go.planes` from the observing
agent's point of view (its stones, the opponent's, empty, liberties 1/2/3/>=4, the last two moves, the points
forbidden to it when it is to move, ones), and "action_mask" (int8, zeros for the agent not to move). The episode
ends on two passes (terminations) or at the move limit (truncations), and is then scored by area with komi: +1 to the
winner, -1 to the loser, 0 each for a draw. Each agent's info holds the tokens written so far through Go's grammar
("tokens") and the result as SGF writes it once the game is over ("result").
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.grammar import EpisodeEncoder
from gamegrammar.games.go.gtp_engine import render
from gamegrammar.games.go.planes import PLANES, feature_planes, legal_mask
from gamegrammar.games.go.rules import BLACK, PASS, GoConfig, GoGame, final_result, result_of

__all__ = ["GoAECEnv", "env", "raw_env"]

AGENTS = ("black_0", "white_0")  # as PettingZoo's own Go environment names them


class GoAECEnv(AECEnv):
    """A game of Go; `size`, `komi`, `max_ticks` are `GoConfig`'s (max_ticks 0: 4 N^2)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "go_v0", "render_modes": ["ansi"], "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self, size: int = 9, komi: float = 7.5, max_ticks: int = 0, *, keyframe_interval: int = 0, render_mode: str | None = None
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.config = GoConfig(size, komi, max_ticks)
        self.codec = CodecConfig(keyframe_interval)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        points = size * size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (PLANES, size, size), np.float32),
                    "action_mask": spaces.Box(0, 1, (points + 1,), np.int8),
                }
            )
            for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(points + 1) for a in AGENTS}
        self.game = GoGame(self.config)
        self._encoder = EpisodeEncoder(self.codec)
        self._mask: np.ndarray | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game on the empty board (nothing in Go is drawn: the seed changes nothing)."""
        state = self.game.reset(0 if seed is None else int(seed), 0)
        self._encoder.start(state)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {"tokens": list(self._encoder.tokens)} for a in AGENTS}
        self.agent_selection = AGENTS[state.to_play]
        self._mask = None

    def _legal(self) -> np.ndarray:
        if self._mask is None:
            self._mask = legal_mask(self.game.state)
        return self._mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.game.state
        player = AGENTS.index(agent)
        mine = state.to_play == player and not self.game.done
        mask = self._legal() if mine else np.zeros(self.config.points + 1, np.int8)
        return {"observation": feature_planes(state, player, mask if mine else None), "action_mask": mask.copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if not (0 <= action <= self.config.points) or not self._legal()[action]:
            raise ValueError(f"action {action} is not legal for {agent} (see observation['action_mask'])")
        self._cumulative_rewards[agent] = 0.0
        before = len(self._encoder.tokens)
        state, events, done = self.game.step(PASS if action == self.config.points else action)
        self._encoder.tick(events, state, done)
        self._mask = None
        tokens = self._encoder.tokens[before:]
        self.rewards = {a: 0.0 for a in AGENTS}
        if done:
            _, _, won = final_result(state, self.config)
            for k, a in enumerate(AGENTS):
                self.rewards[a] = 0.0 if won is None else (1.0 if won == BLACK + k else -1.0)
                limit = self.game.end_reason == "MOVE_LIMIT"
                self.terminations[a], self.truncations[a] = not limit, limit
        for a in AGENTS:
            self.infos[a] = {"tokens": tokens, **({"result": result_of(state, self.config)} if done else {})}
        self.agent_selection = AGENTS[state.to_play]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return render(self.game.state) + "\n"

    def close(self) -> None:
        pass


raw_env = GoAECEnv


def env(**kwargs: Any) -> GoAECEnv:
    """The AEC environment (keyword arguments of `GoAECEnv`)."""
    return GoAECEnv(**kwargs)
