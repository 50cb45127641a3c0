"""Snake with its one player driven from outside the package: a scripted agent by name, or a controller (a model).

`play_controlled` is `GameSpec.play_controlled` for Snake: the batch engine (`rollout.play_batch`) plays
every game, and each tick the controller picks the input of every running game among the three that
are not a reversal (the inputs `legal_directions` allows; a reversal would be ignored by the rules).
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.agents import unknown_agent
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, Controller, PlayerResult
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.games.snake.batch import DIRS, OPPOSITE, Probe, SnakeBatch
from gamegrammar.games.snake.batch_agents import AGENT_NAMES, scripted_policy
from gamegrammar.games.snake.grammar import END_EVENTS
from gamegrammar.games.snake.rollout import Policy, play_batch
from gamegrammar.games.snake.rules import SnakeConfig

LEGAL = OPPOSITE[:, None] != DIRS  # [current direction, input]: not a reversal


def controlled_policy(controller: Controller) -> Policy:
    """The rollout policy of a controller: every running game's input, among the non-reversing ones."""

    def policy(batch: SnakeBatch, games: np.ndarray, draws: np.ndarray, pr: Probe) -> np.ndarray:
        mask = LEGAL[batch.direction]
        inputs = np.asarray(controller(games, mask, np.asarray(draws, np.uint64)), np.int64)
        if inputs.shape != (len(games),) or not mask[np.arange(len(games)), inputs].all():
            raise GameGrammarError("the controller played an input the action mask forbids")
        return inputs

    return policy


def play_controlled(
    config: SnakeConfig,
    codec: CodecConfig,
    seed: int,
    episodes: np.ndarray,
    player: str | Controller,
    opponents: dict[str, float] | None = None,
    log: TokenLog | None = None,
) -> PlayerResult:
    """Episodes of `seed` played by `player` (a scripted agent's name or a controller) on the batch engine."""
    if opponents:
        raise GameGrammarError("Snake has one player: it has no opponents")
    episodes = np.asarray(episodes, np.int64)
    if isinstance(player, str):
        if player not in AGENT_NAMES:
            raise unknown_agent(player, AGENT_NAMES)
        policy = scripted_policy(np.full(len(episodes), AGENT_NAMES.index(player)))
    else:
        policy = controlled_policy(player)
    result = play_batch(config, codec, seed, episodes, policy, log=log)
    return PlayerResult(result, result.scores, result.ticks, result.ends, tuple(END_EVENTS))
