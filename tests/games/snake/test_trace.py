"""trace: the states a sequence describes are the engine's for every real episode, and stop where the rules cannot follow."""

from __future__ import annotations

import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import (
    EXAMPLE,
    EXAMPLE_BODY_LIST,
    EXAMPLE_HEAD_FIRST,
    EXAMPLE_HEAD_FIRST_SELF,
    EXAMPLE_SENSE,
    EXAMPLE_SPAWN_COLUMN,
    EXAMPLE_TAILS,
    EXAMPLE_TAILS_SELF,
    SnakeCodec,
)
from gamegrammar.games.snake.replay import replay
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.trace import trace

BOARD = SnakeConfig()
BASE_TEXT = EXAMPLE  # a valid 10x10 episode: eats on tick 2, a keyframe after tick 3, dies in the top wall on tick 8
BASE = BASE_TEXT.split()


def edit(tokens: list[str], index: int, *new: str) -> list[str]:
    return [*tokens[:index], *new, *tokens[index + len(new) :]]


@pytest.mark.parametrize(
    ("config", "interval"),
    [(BOARD, 0), (BOARD, 5), (SnakeConfig(6, 5, 40), 1), (SnakeConfig(4, 4, 300), 3)],
)
def test_trace_is_the_engines_states(config: SnakeConfig, interval: int) -> None:
    for agent in AGENTS:
        for episode in range(3):
            record = GAME.play_episode(config, CodecConfig(keyframe_interval=interval), agent, 7, episode)
            assert trace(record.tokens, config) == record.states
            assert GAME.trace(record.tokens, config) == record.states
            assert [f.state for f in replay(record.tokens, config).frames] == record.states


def test_a_valid_sequence_traces_to_the_end() -> None:
    states = trace(BASE, BOARD)
    assert len(states) == 9 and states[-1].tick == 8 and states[-1].head == (7, 0) and states[-1].score == 1
    assert trace(" ".join(BASE), BOARD) == states  # one space-separated string works too


@pytest.mark.parametrize(
    ("broken", "ticks"),
    [
        (edit(BASE, BASE.index("X6"), "X5", "Y4"), 0),  # tick 1 moves where the input does not lead
        (edit(BASE, BASE.index("MOVE"), "EAT", "MOVE"), 0),  # an EAT with no food there (the grammar then fails)
        (edit(BASE, BASE.index("FOOD_SPAWN") + 1, "X6", "Y5"), 1),  # food spawned on the body
        (edit(BASE, BASE.index("SNAP", 5) + 2, "X2", "Y2"), 3),  # the keyframe after tick 3 is not the state
        (edit(BASE, BASE.index("DIE_WALL"), "DIE_SELF"), 7),  # the wrong death
        (BASE[:33], 2),  # cut off in tick 3: the ticks that parsed
        (BASE[:3], -1),  # not even a keyframe
    ],
)
def test_trace_stops_where_the_rules_cannot_follow(broken: list[str], ticks: int) -> None:
    states = trace(broken, BOARD)
    assert len(states) == ticks + 1
    assert states == trace(BASE, BOARD)[: ticks + 1]


def test_wrong_grow_and_score_values_do_not_stop_the_trace() -> None:
    bad = edit(BASE, BASE.index("V1"), "V3")
    assert trace(bad, BOARD) == trace(BASE, BOARD)


def test_trace_stops_at_the_tick_limit() -> None:
    config = SnakeConfig(max_ticks=4)  # BASE goes on past tick 4 without a TIMEOUT
    assert len(trace(BASE, config)) == 5


def test_trace_follows_the_tail_events_design_and_stops_at_a_wrong_free() -> None:
    for agent in AGENTS:
        record = GAME.play_episode(SnakeConfig(6, 6, 60), SnakeCodec(2, tail_events=True), agent, 4, 1)
        assert trace(record.tokens, SnakeConfig(6, 6, 60)) == record.states
    tails = EXAMPLE_TAILS.split()
    assert trace(tails, BOARD) == trace(BASE, BOARD)
    assert len(trace(edit(tails, tails.index("FREE") + 1, "X4"), BOARD)) == 1  # tick 1 frees the wrong cell
    missing = [*tails[: tails.index("FREE", 20)], *tails[tails.index("FREE", 20) + 3 :]]  # tick 3 frees nothing
    assert len(trace(missing, BOARD)) == 3


@pytest.mark.parametrize(("config", "interval"), [(SnakeConfig(6, 6, 60), 2), (SnakeConfig(4, 4, 300), 0)])
def test_trace_follows_the_head_first_design(config: SnakeConfig, interval: int) -> None:
    for agent in AGENTS:
        for episode in range(3):
            record = GAME.play_episode(config, SnakeCodec(interval, head_first=True), agent, 4, episode)
            assert trace(record.tokens, config) == record.states
            assert [f.state for f in replay(record.tokens, config).frames] == record.states


def test_trace_stops_at_a_head_first_cell_that_is_not_the_heads_next_cell() -> None:
    hf = EXAMPLE_HEAD_FIRST.split()
    assert trace(hf, BOARD) == trace(BASE, BOARD)
    assert len(trace(edit(hf, hf.index("X6"), "X5", "Y4"), BOARD)) == 1  # tick 1 writes a cell the input does not lead to
    eat = hf.index("EAT") - 2
    assert len(trace(edit(hf, eat, "X7", "Y6"), BOARD)) == 2  # tick 2 eats on another cell
    this_self = EXAMPLE_HEAD_FIRST_SELF.split()
    states = trace(this_self, BOARD)
    assert states == trace(EXAMPLE_TAILS_SELF, BOARD) and len(states) == 4 and states[-1].head == (6, 6)  # a death moves nothing
    at = this_self.index("DIE_SELF") - 2
    for cell in (("X7", "Y5"), ("X6", "Y7"), ("X6", "Y12")):  # on the body but not ahead, ahead of nothing, off the board
        assert trace(edit(this_self, at, *cell), BOARD) == states[:3], cell
    assert trace(edit(this_self, at + 2, "MOVE"), BOARD) == states[:3]  # the rules say DIE_SELF, not MOVE


def test_trace_follows_the_sense_design_and_stops_at_a_wrong_sense_word() -> None:
    for agent in AGENTS:
        record = GAME.play_episode(SnakeConfig(6, 6, 60), SnakeCodec(2, sense=True), agent, 4, 1)
        assert trace(record.tokens, SnakeConfig(6, 6, 60)) == record.states
    sense = EXAMPLE_SENSE.split()
    states = trace(sense, BOARD)
    assert states == trace(EXAMPLE_TAILS_SELF, BOARD) and len(states) == 4
    assert trace(edit(sense, sense.index("SENSE_U"), "SENSE_NONE"), BOARD) == states[:2]  # tick 2 misses the neck
    assert trace([*sense[: sense.index("SENSE_U")], *sense[sense.index("SENSE_U") + 1 :]], BOARD) == states[:2]  # no word


def test_trace_follows_the_spawn_column_design_and_stops_at_a_wrong_column_word() -> None:
    for agent in AGENTS:
        record = GAME.play_episode(SnakeConfig(6, 6, 60), SnakeCodec(2, sense=True, spawn_column=True), agent, 4, 1)
        assert trace(record.tokens, SnakeConfig(6, 6, 60)) == record.states
    column = EXAMPLE_SPAWN_COLUMN.split()
    states = trace(column, BOARD)
    assert len(states) == 7 and states[1].food == (5, 2)
    occupied = column.index("OCC")
    assert trace(edit(column, occupied, "VAC"), BOARD) == states[:1]  # the eat's column misses the old head
    assert trace(edit(column, occupied - 1, "OCC"), BOARD) == states[:1]  # an empty cell written OCC


def test_trace_follows_the_body_list_design_and_stops_at_a_wrong_listed_cell() -> None:
    for agent in AGENTS:
        record = GAME.play_episode(SnakeConfig(6, 6, 60), SnakeCodec(2, sense=True, body_list=True), agent, 4, 1)
        assert trace(record.tokens, SnakeConfig(6, 6, 60)) == record.states
    listed = EXAMPLE_BODY_LIST.split()
    states = trace(listed, BOARD)
    assert len(states) == 7 and states[1].food == (5, 2) and states[1].body[1:] == ((5, 5), (6, 5), (7, 5), (7, 6), (6, 6), (5, 6))
    tail = listed.index("FOOD_SPAWN") - 1
    assert trace(edit(listed, tail, "Y7"), BOARD) == states[:1]  # the tail listed a cell off
    short = [*listed[: tail - 1], *listed[tail + 1 :]]  # the tail left out
    assert trace(short, BOARD) == states[:1]
