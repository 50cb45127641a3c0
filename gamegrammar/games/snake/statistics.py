"""Tier 3's baseline: hand-made statistics of one episode that tell play styles apart without a model.

They describe how the snake moves, not which agent's code moved it: turning, hugging walls, chasing the food
(approach_rate: greedy's habit, which the careless agent breaks one tick in ten at most), how long it lived and
what it scored. Tier 3 reads them over the same first ticks the model reads (a prefix of the episode's tokens).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from gamegrammar.games.snake.agents import make_agent
from gamegrammar.games.snake.rules import Direction, SnakeConfig
from gamegrammar.games.snake.trace import trace

NAMES = ("turn_rate", "wall_rate", "food_distance", "approach_rate", "died", "ticks", "score")


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def episode_statistics(tokens: Sequence[str], config: SnakeConfig) -> np.ndarray:
    """NAMES of one episode (or of a prefix of it), from the states its trace gives (the states the rules produce).

    turn_rate: direction changes per tick; wall_rate and food_distance: over the states the snake is alive in,
    the share with the head next to a wall and the mean Manhattan distance from head to food; approach_rate:
    the share of moves that bring the head closer to the food it saw; died: 1 when the last tick killed it.
    """
    states = trace(tokens, config)
    if not states:  # not even a first keyframe
        return np.zeros(len(NAMES), dtype=np.float64)
    ticks = len(states) - 1
    turns = sum(a.direction != b.direction for a, b in itertools.pairwise(states))
    died = ticks > 0 and states[-1].body == states[-2].body  # a death leaves the body where it was; any other tick moves the head
    alive = states[:-1] if died else states
    wall = sum(config.next_to_wall(s.head) for s in alive)
    dists = [_distance(s.head, s.food) for s in alive if s.food is not None]
    moves = [(a, b) for a, b in itertools.pairwise(alive) if a.food is not None]
    closer = sum(_distance(b.head, a.food) < _distance(a.head, a.food) for a, b in moves)
    return np.array(
        [
            turns / max(1, ticks),
            wall / max(1, len(alive)),
            float(np.mean(dists)) if dists else 0.0,
            closer / max(1, len(moves)),
            float(died),
            ticks,
            states[-1].score,
        ],
        dtype=np.float64,
    )


FLOOR = 1e-6  # the probability given to an input an agent never makes (its log stays finite for a linear readout)


def agent_log_likelihoods(tokens: Sequence[str], agents: Sequence[str], config: SnakeConfig) -> np.ndarray:
    """log P(the inputs written | agent) for each agent, each input read under the agent's own policy on the state before it.

    Not a statistic a reader could find without the agents' code: tier 3's ceiling for telling them apart.
    """
    states = trace(tokens, config)
    inputs = [Direction[t.removeprefix("INPUT_")] for t in tokens if t.startswith("INPUT_")][: max(0, len(states) - 1)]
    out = np.zeros(len(agents), dtype=np.float64)
    for i, name in enumerate(agents):
        agent = make_agent(name, config)
        out[i] = sum(np.log(max(FLOOR, agent.policy(state).get(d, 0.0))) for state, d in zip(states, inputs))
    return out
