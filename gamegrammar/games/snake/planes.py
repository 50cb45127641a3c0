"""What world-state probes read of a Snake state: cell planes, scalars and class targets."""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import ProbeTargets
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState

PLANES = ("head", "body", "food", "empty")


def state_planes(state: SnakeState, config: SnakeConfig) -> np.ndarray:
    """[4, H*W] binary planes (head, body without the head, food, empty) of a state, cells row-major."""
    planes = np.zeros((len(PLANES), config.height, config.width), dtype=np.uint8)
    x, y = state.head
    if config.in_bounds(state.head):
        planes[0, y, x] = 1
    for bx, by in state.body[1:]:
        if config.in_bounds((bx, by)):
            planes[1, by, bx] = 1
    if state.food is not None:
        planes[2, state.food[1], state.food[0]] = 1
    planes[3] = 1 - planes[:3].max(0)
    return planes.reshape(len(PLANES), -1)


def probe_targets(state: SnakeState, config: SnakeConfig) -> ProbeTargets:
    """The four planes; length and score; the direction and the head and food coordinates as classes.

    Coordinates are classes as well as planes because a linear code of a coordinate need not
    be a linear code of 100 one-hot cells. With no food (a full board) the food's class is
    the extra one: x = width, y = height.
    """
    food = state.food if state.food is not None else (config.width, config.height)
    return ProbeTargets(
        planes=dict(zip(PLANES, state_planes(state, config))),
        scalars={"length": state.length, "score": state.score},
        classes={
            "direction": (int(state.direction), len(Direction)),
            "head_x": (state.head[0], config.width),
            "head_y": (state.head[1], config.height),
            "food_x": (food[0], config.width + 1),
            "food_y": (food[1], config.height + 1),
        },
    )
