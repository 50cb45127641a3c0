"""Battlesnake with snake 0 driven from outside the package (a scripted agent by name, or a controller such as a
model) against scripted opponents, and snake 0's lot: its fate, place, final length and lifetime.

`play_controlled` is `GameSpec.play_controlled` for Battlesnake. The opponents (snakes 1..N-1) are an agent mix
drawn per episode and snake exactly as a corpus lineup draws them (`batch_agents.lineup_codes`), so every player
of a comparison meets the same opponents on the same episode. A controller picks snake 0's move among the four
but the one straight back into its neck (the move the environment's action mask rules out: always fatal).

Placement is by survival: 1 + the number of snakes that outlasted snake 0 (eliminated on a later tick, or
standing at the end while it was not); snakes eliminated on the same tick share the better place, so a draw is
a shared first place. Snake 0's fate is WIN (the last standing), TIMEOUT (standing at the tick limit), DRAW
(eliminated with every other snake left, on the last tick) or its death (DIE_WALL, DIE_HEAD, ...).
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.agents import unknown_agent
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import BatchResult, CodecConfig, Controller, PlayerResult
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.games.battlesnake.batch import ALIVE, END_DRAW, END_WIN, BattlesnakeBatch, TurnBatch
from gamegrammar.games.battlesnake.batch_agents import AGENT_NAMES, agent_moves, lineup_codes, scripted_policy
from gamegrammar.games.battlesnake.grammar import DIE_TOKEN
from gamegrammar.games.battlesnake.rollout import Policy, play_batch
from gamegrammar.games.battlesnake.rules import CAUSES, BattlesnakeConfig

FATES = ("WIN", "DRAW", "TIMEOUT", *(DIE_TOKEN[c] for c in CAUSES))  # a death's fate: 3 + its cause code - 1
_RANDOM = AGENT_NAMES.index("random")


def neck_mask(batch: BattlesnakeBatch, snake: int = 0) -> np.ndarray:
    """(n, 4) bool: every move of `snake` but the one into its neck (all four without a distinct neck)."""
    head, neck = batch.heads[:, snake], batch.segment(1)[:, snake]
    target = head[:, None] + batch.board.delta
    has_neck = (batch.length[:, snake] >= 2) & (neck != head)
    return ~((target == neck[:, None]) & has_neck[:, None])


def controlled_policy(controller: Controller, codes: np.ndarray) -> Policy:
    """The rollout policy with snake 0 played by a controller and snake k >= 1 of game g by the agent codes[g, k]."""
    codes = np.array(codes, np.int64)
    codes[:, 0] = _RANDOM  # snake 0's scripted move is overwritten: the cheapest agent computes it

    def policy(batch: BattlesnakeBatch, games: np.ndarray, draws: np.ndarray) -> np.ndarray:
        moves = agent_moves(batch, codes[games], draws)
        rows = np.flatnonzero(batch.alive[:, 0])
        if rows.size:
            mask = neck_mask(batch)[rows]
            chosen = np.asarray(controller(games[rows], mask, draws[rows, 0]), np.int64)
            if chosen.shape != rows.shape or not mask[np.arange(len(rows)), chosen].all():
                raise GameGrammarError("the controller played a move the action mask forbids")
            moves[rows, 0] = chosen
        return moves

    return policy


class Standings:
    """An observer of `rollout.play_batch` that records each snake's elimination tick and cause, and snake 0's length."""

    def __init__(self, n: int, num_snakes: int) -> None:
        self.out = np.zeros((n, num_snakes), np.int64)  # the tick each snake was eliminated on; 0 = standing
        self.cause = np.zeros((n, num_snakes), np.int64)  # its cause code (ALIVE while standing)
        self.length = np.zeros(n, np.int64)  # snake 0's length (kept once it is eliminated)

    def __call__(self, batch: BattlesnakeBatch, games: np.ndarray, turn: TurnBatch) -> None:
        g, k = np.nonzero(turn.eliminated != ALIVE)
        self.out[games[g], k] = batch.tick[g]
        self.cause[games[g], k] = turn.eliminated[g, k]
        self.length[games] = batch.length[:, 0]

    def result(self, episodes: BatchResult) -> PlayerResult:
        """Snake 0's lot in the finished episodes."""
        ticks, ends = episodes.ticks, episodes.ends
        lasted = np.where(self.out > 0, self.out, ticks[:, None] + 1)  # standing at the end outlasts any elimination
        place = 1 + (lasted[:, 1:] > lasted[:, :1]).sum(axis=1)
        died = self.out[:, 0] > 0
        fate = np.where(ends == END_WIN, FATES.index("WIN"), FATES.index("TIMEOUT"))
        fate = np.where(died, 2 + self.cause[:, 0], fate)
        fate = np.where(died & (ends == END_DRAW) & (self.out[:, 0] == ticks), FATES.index("DRAW"), fate)
        return PlayerResult(episodes, self.length.copy(), np.where(died, self.out[:, 0], ticks), fate, FATES, place)


def play_controlled(
    config: BattlesnakeConfig,
    codec: CodecConfig,
    seed: int,
    episodes: np.ndarray,
    player: str | Controller,
    opponents: dict[str, float],
    log: TokenLog | None = None,
) -> PlayerResult:
    """Episodes of `seed` with snake 0 played by `player` (an agent's name or a controller), the others by `opponents`."""
    episodes = np.asarray(episodes, np.int64)
    for name in opponents:
        if name not in AGENT_NAMES:
            raise unknown_agent(name, AGENT_NAMES)
    codes = lineup_codes(opponents, seed, episodes, config.num_snakes)
    if isinstance(player, str):
        if player not in AGENT_NAMES:
            raise unknown_agent(player, AGENT_NAMES)
        codes[:, 0] = AGENT_NAMES.index(player)
        policy = scripted_policy(codes)
    else:
        policy = controlled_policy(player, codes)
    standings = Standings(len(episodes), config.num_snakes)
    result = play_batch(config, codec, seed, episodes, policy, observer=standings, log=log)
    return standings.result(result)
