"""The board in the API's JSON shape and `step_board`: hand-written boards, the engine's own games, one-line errors."""

from __future__ import annotations

import copy

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.battlesnake import GAME, board_from_state, state_from_board, step_board
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, Move


def pts(*cells):
    return [{"x": x, "y": y} for x, y in cells]


def api_snake(sid, body, health=90, **extra):
    return {"id": sid, "name": sid.title(), "health": health, "body": pts(*body), "head": pts(body[0])[0], "length": len(body), **extra}


# A position as a snake server receives it (extra fields such as latency and shout are kept as they are).
BOARD = {
    "height": 11,
    "width": 11,
    "food": pts((5, 5), (9, 0), (2, 6)),
    "hazards": [],
    "snakes": [
        api_snake("snake-508e96ac", [(0, 0), (1, 0), (2, 0)], 54, latency="111", shout="why are we shouting??"),
        api_snake("snake-b67f4906", [(5, 4), (5, 3), (6, 3), (6, 2)], 16, latency="222", shout="I'm not really sure..."),
    ],
}


def test_a_hand_written_board_steps_like_the_rules_say():
    before = copy.deepcopy(BOARD)
    after, eliminated = step_board(BOARD, {"snake-508e96ac": "up", "snake-b67f4906": "up"})
    assert before == BOARD  # the input is not modified
    assert eliminated == {}
    a, b = after["snakes"]
    assert a == {**BOARD["snakes"][0], "health": 53, "body": pts((0, 1), (0, 0), (1, 0)), "head": {"x": 0, "y": 1}, "length": 3}
    assert b["body"] == pts((5, 5), (5, 4), (5, 3), (6, 3), (6, 3))  # ate: the last segment doubled
    assert (b["health"], b["length"], b["head"]) == (100, 5, {"x": 5, "y": 5})
    assert b["shout"] == "I'm not really sure..."
    assert after["food"] == pts((9, 0), (2, 6))  # row-major from the bottom-left
    assert after["width"] == 11 and after["hazards"] == []


def test_eliminations_name_their_causes_and_leave_the_board():
    board = {
        "width": 7,
        "height": 7,
        "food": pts((3, 3)),
        "snakes": [
            api_snake("wall", [(0, 6), (0, 5), (0, 4)]),
            api_snake("hungry", [(6, 6), (6, 5), (6, 4)], health=1),
            api_snake("short", [(2, 3), (1, 3), (0, 3)]),
            api_snake("long", [(4, 3), (5, 3), (5, 2), (5, 1)]),
            api_snake("self", [(2, 1), (2, 0), (3, 0), (3, 1), (3, 2)]),
        ],
    }
    moves = {"wall": "up", "hungry": "left", "short": "right", "long": "left", "self": "right"}
    after, eliminated = step_board(board, moves)
    assert eliminated == {
        "wall": "wall-collision",
        "hungry": "out-of-health",
        "short": "head-collision",
        "self": "snake-self-collision",
    }
    (long,) = after["snakes"]
    assert long["id"] == "long" and long["length"] == 5 and long["health"] == 100
    assert after["food"] == []


def test_a_body_collision_and_the_simultaneous_rule():
    board = {
        "width": 11,
        "height": 11,
        "food": [],
        "snakes": [api_snake("a", [(2, 2), (1, 2), (0, 2)]), api_snake("b", [(2, 3), (3, 3), (3, 2), (3, 1)])],
    }
    _, eliminated = step_board(board, {"a": "right", "b": "down"})
    assert eliminated == {"a": "snake-collision", "b": "snake-collision"}


def test_an_unknown_move_continues_along_the_neck():
    board = {"width": 11, "height": 11, "food": [], "snakes": [api_snake("a", [(5, 5), (4, 5), (3, 5)]), api_snake("b", [(8, 8)] * 3)]}
    after, _ = step_board(board, {"a": "sideways", "b": None})
    assert after["snakes"][0]["head"] == {"x": 6, "y": 5}  # continues right
    assert after["snakes"][1]["head"] == {"x": 8, "y": 9}  # no distinct neck: up
    after, _ = step_board(board, {"a": "UP", "b": 3})  # case matters, like the official engine
    assert after["snakes"][0]["head"] == {"x": 6, "y": 5}


def test_spawning_food_is_keyed_by_seed_and_turn():
    board = {"width": 11, "height": 11, "food": [], "snakes": [api_snake("a", [(5, 5), (4, 5), (3, 5)])]}
    plain, _ = step_board(board, {"a": "up"})
    assert plain["food"] == []
    spawned, _ = step_board(board, {"a": "up"}, spawn_food=True, seed=4, turn=10)
    assert len(spawned["food"]) == 1  # below minimum_food (1): the shortfall
    assert step_board(board, {"a": "up"}, spawn_food=True, seed=4, turn=10) == (spawned, {})
    many, _ = step_board(board, {"a": "up"}, spawn_food=True, seed=4, turn=10, minimum_food=5)
    assert len(many["food"]) == 5


def test_step_board_replays_the_engine_turn_by_turn():
    config = BattlesnakeConfig(11, 11, 4, max_ticks=60)
    checked = 0
    for episode in range(6):
        record = GAME.play_episode(config, CodecConfig(), "safe,greedy,space,random", 9, episode)
        inputs = {}
        for e in record.events:
            if e.type == "INPUT":
                inputs.setdefault(e.tick, {})[f"S{e.payload['snake']}"] = Move[e.payload["move"]].word
        for t in range(record.ticks):
            before, after = record.states[t], record.states[t + 1]
            got, eliminated = step_board(board_from_state(before, config), inputs[t + 1], spawn_food=True, seed=9, turn=t, episode=episode)
            assert got == board_from_state(after, config)
            assert eliminated == {
                f"S{e.payload['snake']}": e.payload["cause"] for e in record.events if e.type == "DIE" and e.tick == t + 1
            }
            checked += 1
    assert checked > 100


def test_board_and_state_round_trip():
    config = BattlesnakeConfig(7, 7, 2)
    state = GAME.play_episode(config, CodecConfig(), "safe", 1, 1).states[3]
    board = board_from_state(state, config)
    assert set(board) == {"width", "height", "food", "hazards", "snakes"}
    assert set(board["snakes"][0]) == {"id", "name", "health", "body", "head", "length"}
    back, back_config = state_from_board(board, turn=3)
    assert (back_config.width, back_config.height, back_config.num_snakes) == (7, 7, len(state.alive))
    assert back.food == state.food and back.tick == 3
    assert [(s.id, s.body, s.health) for s in back.snakes] == [(s.id, s.body, s.health) for s in state.snakes if s.alive]
    assert board_from_state(back, back_config) == board


def _with(**changes):
    board = copy.deepcopy(BOARD)
    for key, value in changes.items():
        board[key] = value
    return board


def _snake_with(i, **changes):
    board = copy.deepcopy(BOARD)
    board["snakes"][i].update(changes)
    return board


MOVES = {"snake-508e96ac": "up", "snake-b67f4906": "up"}


@pytest.mark.parametrize(
    ("board", "moves", "message"),
    [
        (_snake_with(0, body=[], length=0), MOVES, "snake 'snake-508e96ac' has zero length"),
        (
            _snake_with(1, body=pts((5, 11), (5, 10), (5, 9)), head={"x": 5, "y": 11}, length=3),
            MOVES,
            r"body\[0\] \(5, 11\) is off the 11x11 board",
        ),
        (_snake_with(1, body=pts((5, 4), (5, 3), (5, -1))), MOVES, r"body\[2\] \(5, -1\) is off the 11x11 board"),
        (BOARD, {**MOVES, "snake-ghost": "left"}, "a move for unknown snake 'snake-ghost'"),
        (BOARD, {"snake-508e96ac": "up"}, "no move for snake 'snake-b67f4906'"),
        (
            _with(width=2, height=2, food=[], snakes=[api_snake("a", [(0, 0)]), api_snake("b", [(1, 1)])]),
            {"a": "up", "b": "up"},
            "board 2x2 is too small for 2 snakes",
        ),
        (_with(snakes=[api_snake(f"s{i}", [(i, 1)]) for i in range(9)]), {}, "the board has 9 snakes; at most 8"),
        (_with(snakes=[]), {}, "the board has no snakes"),
        (_with(hazards=pts((1, 1))), MOVES, "the board has hazards"),
        ({"width": 11, "snakes": []}, {}, "the board has no 'height'"),
        ([], {}, "a board must be a JSON object"),
        (_with(width="11"), MOVES, "board width must be an integer"),
        (_snake_with(0, id="snake-b67f4906"), MOVES, "two snakes have the id 'snake-b67f4906'"),
        (_snake_with(0, body=pts((0, 0), (2, 0), (3, 0))), MOVES, r"body\[1\] \(2, 0\) is not next to body\[0\]"),
        (_snake_with(0, head={"x": 1, "y": 1}), MOVES, "head .* is not body\\[0\\]"),
        (_snake_with(0, length=7), MOVES, "length 7 differs from its 3 body segments"),
        (_snake_with(0, health=101), MOVES, "health must be between 0 and 100, got 101"),
        (_snake_with(0, body=[{"x": 0}]), MOVES, "must be a point"),
        (_with(food=pts((11, 0))), MOVES, r"food\[0\] \(11, 0\) is off the 11x11 board"),
        (_with(food=pts((1, 1), (1, 1))), MOVES, "lists a food cell twice"),
        (BOARD, ["up", "up"], "moves must map snake ids to move words"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_input_gets_one_line_errors(board, moves, message):
    with pytest.raises(GameGrammarError, match=message) as err:
        step_board(board, moves)
    assert "\n" not in str(err.value)
