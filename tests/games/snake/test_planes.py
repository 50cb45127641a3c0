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


def test_intervention_cases_follow_the_rules_on_the_edited_board() -> None:
    from gamegrammar.games.snake.grammar import SENSE_OF, SnakeCodec, sense_token
    from gamegrammar.games.snake.rules import body_neighbours

    kinds: set[str] = set()
    for e in range(8):
        record = GAME.play_episode(BOARD, SnakeCodec(sense=True), ("careless", "random")[e % 2], 5, e)
        tokens, states = record.tokens, GAME.trace(record.tokens, BOARD)
        starts = [i for i, t in enumerate(tokens) if t == "TICK"]
        for case in GAME.intervention_cases(tokens, states, BOARD):
            if case.chance is not None:
                continue  # the spawn's: test_spawn_cases_give_the_rules_chance_on_both_boards
            kinds.add(case.kind)
            state = states[case.tick]
            assert case.offset == 1 and tokens[starts[case.tick] + 1].startswith("INPUT_")
            assert case.actual == tokens[starts[case.tick] + 2] == sense_token(body_neighbours(state))
            (plane, cell, value), (other, same_cell, other_value) = case.edits
            assert (plane, other, same_cell, other_value) == ("body", "empty", cell, 1 - value)
            xy = (cell % BOARD.width, cell // BOARD.width)
            assert abs(xy[0] - state.head[0]) + abs(xy[1] - state.head[1]) == 1  # a neighbour of the head
            assert xy != state.food and xy != state.body[-1]  # never the food's cell nor the tail's
            if value:  # the edited board: the cell a middle segment of the body
                edited = SnakeState((state.head, xy, *state.body[1:]), state.direction, state.food, state.score, state.tick)
                assert case.kind == "add body" and xy not in state.body
            else:
                edited = SnakeState(tuple(c for c in state.body if c != xy), state.direction, state.food, 0, 0)
                assert case.kind in ("remove neck", "remove body") and (case.kind == "remove neck") == (xy == state.body[1])
            assert case.expected == sense_token(body_neighbours(edited)) != case.actual
            assert case.expected in SENSE_OF
    assert kinds == {"add body", "remove neck", "remove body"}
    # Grammar v1 writes no SENSE word: nothing to check the edit against at the input.
    record = GAME.play_episode(BOARD, CodecConfig(), "greedy", 5, 0)
    cases = GAME.intervention_cases(record.tokens, GAME.trace(record.tokens, BOARD), BOARD)
    assert cases and all(case.chance is not None for case in cases)


def test_spawn_cases_give_the_rules_chance_on_both_boards() -> None:
    """At FOOD_SPAWN: a free cell made body (probability 1/N, then 0) and a body cell made free (0, then 1/(N+1)),
    the cell's X the path and its Y the expected word, on the board after the tick (the one the spawn was drawn on)."""
    from gamegrammar.games.snake.planes import spawn_cases
    from gamegrammar.games.snake.rules import empty_cells

    kinds: dict[str, int] = {}
    for e in range(6):
        record = GAME.play_episode(BOARD, CodecConfig(), "greedy", 5, e)
        tokens, states = record.tokens, GAME.trace(record.tokens, BOARD)
        starts = [i for i, t in enumerate(tokens) if t == "TICK"]
        for case in spawn_cases(tokens, states, BOARD):
            kinds[case.kind] = kinds.get(case.kind, 0) + 1
            at = starts[case.tick] + case.offset
            assert tokens[at] == case.probe == "FOOD_SPAWN" and case.board == 1 and case.actual == tokens[at + 1]
            state = states[case.tick + 1]
            assert (tokens[at + 1], tokens[at + 2]) == (f"X{state.food[0]}", f"Y{state.food[1]}")  # the board it was drawn on
            (plane, cell, value), (other, same, other_value) = case.edits
            assert (plane, other, same, other_value) == ("body", "empty", cell, 1 - value)
            xy = (cell % BOARD.width, cell // BOARD.width)
            assert case.path == (f"X{xy[0]}",) and case.expected == f"Y{xy[1]}" and xy != state.food
            n = len(empty_cells(state.body, BOARD))
            if value:
                assert case.kind == "add body (spawn)" and xy not in state.body and case.chance == (1 / n, 0.0)
            else:
                assert case.kind == "remove body (spawn)" and xy in state.body[1:] and case.chance == (0.0, 1 / (n + 1))
    assert kinds.get("add body (spawn)", 0) > 5 and kinds.get("remove body (spawn)", 0) > 5
