"""Tier 3's baseline statistics: exact where they are counts, and different for the scripted agents."""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.statistics import NAMES, episode_statistics

BOARD = SnakeConfig()


def test_statistics_match_the_engine_and_tell_the_agents_apart() -> None:
    assert GAME.statistic_names == NAMES
    stats: dict[str, list[np.ndarray]] = {a: [] for a in AGENTS}
    for agent in AGENTS:
        for e in range(25):
            record = GAME.play_episode(BOARD, CodecConfig(), agent, 11, e)
            row = GAME.episode_statistics(record.tokens, BOARD)
            assert (row[3], row[4]) == (record.ticks, record.score)
            assert 0 <= row[0] <= 1 and 0 <= row[1] <= 1 and row[2] >= 0
            stats[agent].append(row)
    mean = {a: np.mean(rows, 0) for a, rows in stats.items()}
    # The wall follower hugs the walls; the random agent turns most.
    assert mean["wall_follower"][1] > max(mean["random"][1], mean["greedy"][1]) + 0.3
    assert mean["random"][0] > mean["wall_follower"][0]


def test_a_death_tick_is_not_counted_as_alive() -> None:
    text = "BOS SNAP PLAYER X1 Y0 DIR_U LEN1 BODY FOOD X5 Y5 SCORE V0 TICK INPUT_U DIE_WALL EOS"
    turn, wall, dist, ticks, score = episode_statistics(text.split(), BOARD)
    assert (turn, wall, ticks, score) == (0, 1, 1, 0)  # one alive state, next to the wall
    assert dist == 4 + 5


def test_nothing_to_trace_gives_zeros() -> None:
    assert (episode_statistics(["BOS", "TICK"], BOARD) == 0).all()
