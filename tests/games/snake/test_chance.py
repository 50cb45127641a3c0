"""spawn_distributions: each spawn's exact distribution is the engine's empty cells, in every design, however cut."""

from __future__ import annotations

from collections import Counter

import pytest

from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.chance import spawn_distributions
from gamegrammar.games.snake.grammar import SnakeCodec
from gamegrammar.games.snake.rules import SnakeConfig

BOARD = SnakeConfig(width=6, height=5, max_ticks=120)
DESIGNS = {
    "v1": {},
    "sense": {"sense": True},
    "column": {"sense": True, "spawn_column": True},
    "list": {"body_list": True},
    "head-first": {"head_first": True},
    "tails": {"tail_events": True},
    "keyframes": {"keyframe_interval": 5},
}


def engine_targets(record, config: SnakeConfig) -> list[dict[str, float]]:
    """From the engine's own states: after each spawn, X over the grown body's empty cells, then Y in the column drawn."""
    out = []
    for event in record.events:
        if event.type != "FOOD_SPAWN":
            continue
        body = set(record.states[event.tick].body)
        empty = [(x, y) for x in range(config.width) for y in range(config.height) if (x, y) not in body]
        columns = Counter(x for x, _ in empty)
        out.append({f"X{x}": n / len(empty) for x, n in columns.items()})
        rows = [y for x, y in empty if x == event.payload["x"]]
        out.append({f"Y{y}": 1 / len(rows) for y in rows})
    return out


@pytest.mark.parametrize("design", DESIGNS)
def test_each_spawn_is_the_engines_empty_cells(design):
    codec = SnakeCodec(**DESIGNS[design])
    spawns = 0
    for episode in range(6):
        record = GAME.play_episode(BOARD, codec, "greedy", 3, episode)
        found = spawn_distributions(record.tokens, BOARD)
        expected = engine_targets(record, BOARD)
        assert len(found) == len(expected)
        for (_, dist), want in zip(found, expected):
            assert dist.keys() == want.keys() and list(dist.values()) == pytest.approx([want[k] for k in dist])
        for at, dist in found:  # at each position the token written is one the distribution can draw
            assert record.tokens[at] in dist and sum(dist.values()) == pytest.approx(1)
            assert record.tokens[at][0] == ("X" if record.tokens[at - 1] == "FOOD_SPAWN" else "Y")
        spawns += len(found) // 2
    assert spawns > 10


def test_a_cut_off_episode_gives_the_spawns_it_holds_whole():
    record = GAME.play_episode(BOARD, SnakeCodec(sense=True, spawn_column=True), "greedy", 3, 1)
    whole = spawn_distributions(record.tokens, BOARD)
    assert len(whole) >= 4
    for cut in range(len(record.tokens)):
        part = spawn_distributions(record.tokens[:cut], BOARD)
        assert part == whole[: len(part)]
        assert all(at < cut for at, _ in part)
        assert len(part) >= len([at for at, _ in whole if at < cut]) - 2  # at most the cut-off tick's spawn is missing


def test_a_sequence_the_rules_cannot_follow_gives_no_target_past_that_point():
    record = GAME.play_episode(BOARD, SnakeCodec(), "greedy", 3, 2)
    tokens = list(record.tokens)
    first = next(i for i, t in enumerate(tokens) if t == "FOOD_SPAWN")
    tokens[first + 1] = "X9"  # off the 6-wide board: the trace stops before this tick
    assert spawn_distributions(tokens, BOARD) == []
    assert spawn_distributions([], BOARD) == []


def test_the_game_declares_it_and_a_game_without_it_refuses_in_one_line():
    from gamegrammar.core.errors import GameGrammarError
    from gamegrammar.core.gamespec import GameSpec

    record = GAME.play_episode(BOARD, SnakeCodec(), "greedy", 3, 0)
    assert GAME.chance_targets(record.tokens, BOARD) == spawn_distributions(record.tokens, BOARD)
    with pytest.raises(GameGrammarError, match="snake does not declare the distributions its chance draws from"):
        GameSpec.chance_targets(GAME, [], BOARD)  # the contract's default
