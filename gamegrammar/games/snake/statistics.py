"""Tier 3's baseline: hand-made statistics of one episode that tell play styles apart without a model."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.trace import trace

NAMES = ("turn_rate", "wall_rate", "food_distance", "ticks", "score")


def episode_statistics(tokens: Sequence[str], config: SnakeConfig) -> np.ndarray:
    """NAMES of one episode, from the states its trace gives (the states the rules produce).

    turn_rate: direction changes per tick; wall_rate and food_distance: over the states the
    snake is alive in, the share with the head next to a wall and the mean Manhattan
    distance from head to food.
    """
    states = trace(tokens, config)
    if not states:  # not even a first keyframe
        return np.zeros(len(NAMES), dtype=np.float64)
    ticks = len(states) - 1
    turns = sum(a.direction != b.direction for a, b in itertools.pairwise(states))
    died = ticks > 0 and states[-1].body == states[-2].body  # a death leaves the body where it was; any other tick moves the head
    alive = states[:-1] if died else states
    wall = sum(config.next_to_wall(s.head) for s in alive)
    dists = [abs(s.head[0] - s.food[0]) + abs(s.head[1] - s.food[1]) for s in alive if s.food is not None]
    return np.array(
        [turns / max(1, ticks), wall / max(1, len(alive)), float(np.mean(dists)) if dists else 0.0, ticks, states[-1].score],
        dtype=np.float64,
    )
