"""The feature planes of BATTLESNAKE.md, from one snake's point of view, and what world-state probes read of a state."""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import ProbeTargets
from gamegrammar.games.battlesnake.rules import MAX_HEALTH, BattlesnakeConfig, BattlesnakeState

FEATURES = ("board", "food", "own_body", "own_head", "other_bodies", "other_heads", "hazards", "health")
PROBE_PLANES = ("food", "own_body", "own_head", "other_bodies", "other_heads")  # the binary planes that vary


def feature_planes(state: BattlesnakeState, config: BattlesnakeConfig, snake: int = 0) -> np.ndarray:
    """An (8, H, W) float32 array, row y of the array being the board's y: 0 every cell (1.0), 1 food, 2 the snake's
    body without its head, 3 its head, 4 other live snakes' bodies without their heads, 5 their heads, 6 hazards
    (none in the standard rules), 7 its health / 100 on every cell. An eliminated snake has no body and health 0."""
    planes = np.zeros((len(FEATURES), config.height, config.width), dtype=np.float32)
    planes[0] = 1.0
    for x, y in state.food:
        planes[1, y, x] = 1.0
    for k, s in enumerate(state.snakes):
        if not s.alive:
            continue
        own = k == snake
        for x, y in s.body[1:]:
            if config.in_bounds((x, y)):
                planes[2 if own else 4, y, x] = 1.0
        x, y = s.head
        if config.in_bounds((x, y)):
            planes[3 if own else 5, y, x] = 1.0
    me = state.snakes[snake] if snake < len(state.snakes) else None
    planes[7] = (me.health if me is not None and me.alive else 0) / MAX_HEALTH
    return planes


def probe_targets(state: BattlesnakeState, config: BattlesnakeConfig) -> ProbeTargets:
    """Snake 0's view: the five binary planes that vary (board and hazards are constant, health is a scalar);
    snake 0's health and length and the number of live snakes as scalars; its head's coordinates as classes
    (the extra class, width or height, when it is eliminated)."""
    planes = feature_planes(state, config, 0)
    flat = {name: planes[FEATURES.index(name)].reshape(-1).astype(np.uint8) for name in PROBE_PLANES}
    me = state.snakes[0]
    head = me.head if me.alive else (config.width, config.height)
    return ProbeTargets(
        planes=flat,
        scalars={
            "health": float(me.health if me.alive else 0),
            "length": float(me.length if me.alive else 0),
            "alive": float(len(state.alive)),
        },
        classes={"head_x": (head[0], config.width + 1), "head_y": (head[1], config.height + 1)},
    )
