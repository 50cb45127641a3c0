"""Tier 3's baseline statistics: exact where they are counts, and different for the scripted agents."""

from __future__ import annotations

import numpy as np
import pytest

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
            assert (row[5], row[6]) == (record.ticks, record.score)
            assert row[4] == (record.tokens[-2] in ("DIE_WALL", "DIE_SELF"))
            assert 0 <= row[0] <= 1 and 0 <= row[1] <= 1 and row[2] >= 0 and 0 <= row[3] <= 1
            stats[agent].append(row)
    mean = {a: np.mean(rows, 0) for a, rows in stats.items()}
    # The wall follower hugs the walls; the random agent turns most.
    assert mean["wall_follower"][1] > max(mean["random"][1], mean["greedy"][1]) + 0.3
    assert mean["random"][0] > mean["wall_follower"][0]
    # Greedy nearly always closes on the food; random and the wall follower do so about half the time.
    assert mean["greedy"][3] > 0.9 > max(mean["random"][3], mean["wall_follower"][3]) + 0.2
    assert mean["greedy"][3] >= mean["careless"][3]


def test_a_death_tick_is_not_counted_as_alive() -> None:
    text = "BOS SNAP PLAYER X1 Y0 DIR_U LEN1 BODY FOOD X5 Y5 SCORE V0 TICK INPUT_U DIE_WALL EOS"
    turn, wall, dist, approach, died, ticks, score = episode_statistics(text.split(), BOARD)
    assert (turn, wall, approach, died, ticks, score) == (0, 1, 0, 1, 1, 0)  # one alive state, next to the wall, no move
    assert dist == 4 + 5


def test_approach_rate_counts_moves_towards_the_food_it_saw() -> None:
    # Food at (5, 8) below a head at (5, 5): two moves down close on it, the move right does not.
    text = (
        "BOS SNAP PLAYER X5 Y5 DIR_D LEN1 BODY FOOD X5 Y8 SCORE V0 TICK INPUT_D MOVE X5 Y6 TICK INPUT_R MOVE X6 Y6 TICK INPUT_D MOVE X6 Y7"
    )
    row = episode_statistics(text.split(), BOARD)
    assert row[3] == 2 / 3 and row[4] == 0 and row[5] == 3


def test_nothing_to_trace_gives_zeros() -> None:
    assert (episode_statistics(["BOS", "TICK"], BOARD) == 0).all()


def test_each_agents_inputs_are_likeliest_under_its_own_code() -> None:
    from gamegrammar.games.snake.statistics import agent_log_likelihoods

    names = sorted(AGENTS)
    for agent in names:
        for e in range(6):
            record = GAME.play_episode(BOARD, CodecConfig(), agent, 12, e)
            ll = agent_log_likelihoods(record.tokens, names, BOARD)
            # every input is one its own code makes, with probability at least a slip's (0.1 / 3) on each tick
            assert ll[names.index(agent)] >= record.ticks * np.log(0.1 / 3)
            if agent == "random":
                assert ll[names.index(agent)] == pytest.approx(record.ticks * np.log(1 / 3))
            assert GAME.agent_log_likelihoods(record.tokens, names, BOARD).tolist() == ll.tolist()
            if agent != "careless":  # careless makes every input greedy makes, so it can come close
                assert names[int(np.argmax(ll))] == agent or ll.max() - ll[names.index(agent)] < 3
    assert agent_log_likelihoods(["BOS", "TICK"], names, BOARD).tolist() == [0.0] * len(names)
