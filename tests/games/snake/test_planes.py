"""Probe targets of a Snake state: planes that partition the board, scalars and classes that agree with them."""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.planes import PLANES, probe_targets, state_planes
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState

BOARD = SnakeConfig(6, 5, 60)


def states(episodes: int = 6) -> list[SnakeState]:
    out = []
    for e in range(episodes):
        out += GAME.play_episode(BOARD, CodecConfig(), ("random", "greedy", "wall_follower")[e % 3], 5, e).states
    return out


def test_planes_partition_the_board() -> None:
    for s in states():
        planes = state_planes(s, BOARD)
        assert planes.shape == (4, 30) and planes.dtype == np.uint8
        assert (planes.sum(0) == 1).all()  # each cell is exactly one of head, body, food, empty
        assert planes[0].sum() == 1 and planes[1].sum() == s.length - 1 and planes[2].sum() == (s.food is not None)
        x, y = s.head
        assert planes[0, y * 6 + x] == 1


def test_targets_agree_with_the_state() -> None:
    for s in states(3):
        t = GAME.probe_targets(s, BOARD)
        assert list(t.planes) == list(PLANES) and list(t.scalars) == ["length", "score"]
        assert list(t.classes) == ["direction", "head_x", "head_y", "food_x", "food_y"]
        assert all((t.planes[name] == row).all() for name, row in zip(PLANES, state_planes(s, BOARD)))
        assert t.scalars == {"length": s.length, "score": s.score}
        assert t.classes["direction"] == (int(s.direction), 4)
        assert t.classes["head_x"] == (s.head[0], 6) and t.classes["head_y"] == (s.head[1], 5)
        assert t.classes["food_x"] == (s.food[0], 7) and t.classes["food_y"] == (s.food[1], 6)
    assert GAME.board_shape(BOARD) == (5, 6)


def test_no_food_is_the_extra_class() -> None:
    full = SnakeState(((0, 0), (1, 0)), Direction.L, None)  # food None: the state of a full board
    t = probe_targets(full, BOARD)
    assert t.classes["food_x"] == (6, 7) and t.classes["food_y"] == (5, 6) and t.planes["food"].sum() == 0
