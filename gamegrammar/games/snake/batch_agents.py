"""Snake's scripted agents (`agents.py`) on a batch: the same choices, for thousands of games at once.

tests/games/snake/test_batch.py plays them against the scalar agents tick by tick.
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.agents import SLIP_EVERY, SLIP_SHIFT
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.batch import DIRS, EAT, OPPOSITE, Probe, SnakeBatch, probe

AGENT_NAMES = list(AGENTS)  # an agent's code is its position here (as in the corpus index)


def agent_actions(batch: SnakeBatch, agent_codes: np.ndarray, draws: np.ndarray, pr: Probe | None = None) -> np.ndarray:
    """The scripted agents' inputs: codes index `AGENT_NAMES`; `draws` are the AGENT draws of this tick.

    Each agent is a preference over its candidate directions (random: the legal
    ones, all equal; greedy: the safe ones, nearer the food is better; wall
    follower: the safe ones, next to a wall first, then straight on; careless:
    greedy's, or random's on a tick its coin slips); the pick
    is `candidates[draw % len(candidates)]` among the best, as in agents.py.
    Preferences are small positive numbers (0 = not a candidate), so the
    arithmetic stays in small integers: this is the hottest function of corpus generation.
    """
    cfg = batch.config
    pr = pr or probe(batch)
    codes = np.asarray(agent_codes)
    legal = _LEGAL[batch.direction]
    survive = legal & (pr.outcome <= EAT)
    draws = np.asarray(draws, np.uint64)
    random, greedy = codes == _RANDOM, codes == _GREEDY
    careless = codes == _CARELESS
    if careless.any():  # the coin's uint64 arithmetic only where some game needs it
        slip = careless & ((draws >> np.uint64(SLIP_SHIFT)) % np.uint64(SLIP_EVERY) == 0)
        random, greedy = random | slip, greedy | (careless & ~slip)
    base = np.where((random | ~survive.any(axis=1))[:, None], legal, survive)  # no safe move: any legal one
    food = batch.food
    has_food = (food >= 0)[:, None]
    x, y = pr.x, pr.y
    distance = np.abs(x - (food % cfg.width)[:, None]) + np.abs(y - (food // cfg.width)[:, None])
    closeness = np.where(has_food, cfg.width + cfg.height + 2 - distance, 0)  # >= 0: the probe is at most a cell off the board
    near_wall = (x == 0) | (y == 0) | (x == cfg.width - 1) | (y == cfg.height - 1)
    wall_pref = 2 * near_wall + _STRAIGHT[batch.direction]
    preference = np.where(greedy[:, None], closeness, np.where((codes == _WALL)[:, None], wall_pref, 0))
    preference = np.where(base, preference + 1, 0)
    c = (preference == preference.max(axis=1)[:, None]).view(np.int8)  # the candidates
    upto0, upto1 = c[:, 0], c[:, 0] + c[:, 1]
    upto2 = upto1 + c[:, 2]
    k = upto2 + c[:, 3]
    pick = (draws % np.uint64(12)).astype(np.int8) % k  # k divides 12: the same as draw % k
    return (upto0 <= pick).astype(np.int64) + (upto1 <= pick) + (upto2 <= pick)  # the index of the pick-th candidate


_RANDOM, _GREEDY, _WALL, _CARELESS = (AGENT_NAMES.index(name) for name in ("random", "greedy", "wall_follower", "careless"))
_LEGAL = OPPOSITE[:, None] != DIRS  # [current direction, input]: not a reversal
_STRAIGHT = np.eye(4, dtype=np.int64)  # [current direction, input]: straight on


def scripted_policy(agent_codes: np.ndarray):
    """The rollout policy of the scripted agents: game i is played by the agent of code agent_codes[i]."""
    codes = np.asarray(agent_codes, np.int64)

    def policy(batch: SnakeBatch, games: np.ndarray, draws: np.ndarray, pr: Probe) -> np.ndarray:
        return agent_actions(batch, codes[games], draws, pr)

    return policy
