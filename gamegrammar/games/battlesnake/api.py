"""The board in the Battlesnake API's JSON shape, both ways, and `step_board`: one turn on an API board.

The API board is `{"width", "height", "food": [{"x", "y"}], "hazards": [], "snakes": [...]}`, each
snake `{"id", "name", "health", "body": [{"x", "y"}, ...], "head", "length"}` with `body[0]` the head,
as the official engine sends it to a snake's server. `step_board` runs one turn of the standard rules
(`rules.advance`, then optionally the standard map's food spawn) on such a board, so a position taken
from a real game can be checked against what the official engine did.

Every malformed input is refused with a one-line `GameGrammarError` that names what is wrong.
Hazards are not part of the standard rules: a board with hazards is refused rather than misread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.battlesnake.rules import (
    MAX_HEALTH,
    MAX_SNAKES,
    MOVE_OF_WORD,
    BattlesnakeConfig,
    BattlesnakeState,
    Cell,
    Move,
    Snake,
    advance,
    draw_spawns,
    move_between,
    snake_id,
    sorted_food,
    start_room,
    with_food,
)


def _point(cell: Cell) -> dict[str, int]:
    return {"x": cell[0], "y": cell[1]}


def board_from_state(state: BattlesnakeState, config: BattlesnakeConfig) -> dict[str, Any]:
    """The API board of a state: its live snakes (eliminated ones are not on the board) and its food."""
    snakes = []
    for k, s in enumerate(state.snakes):
        if not s.alive:
            continue
        snakes.append(
            {
                "id": s.id or snake_id(k),
                "name": s.name or s.id or snake_id(k),
                "health": s.health,
                "body": [_point(c) for c in s.body],
                "head": _point(s.head),
                "length": s.length,
            }
        )
    return {"width": config.width, "height": config.height, "food": [_point(c) for c in state.food], "hazards": [], "snakes": snakes}


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise GameGrammarError(f"{what} must be an integer, got {value!r}")
    return value


def _cell(value: Any, what: str) -> Cell:
    if not isinstance(value, Mapping) or "x" not in value or "y" not in value:
        raise GameGrammarError(f"{what} must be a point {{'x': int, 'y': int}}, got {value!r}")
    return _int(value["x"], f"{what} x"), _int(value["y"], f"{what} y")


def _list(board: Mapping[str, Any], key: str) -> list:
    value = board.get(key, [])
    if not isinstance(value, list):
        raise GameGrammarError(f"board {key!r} must be a list, got {type(value).__name__}")
    return value


def state_from_board(
    board: Mapping[str, Any],
    *,
    turn: int = 0,
    minimum_food: int = 1,
    food_spawn_chance: int = 15,
    exact_spawn_chance: bool = False,
) -> tuple[BattlesnakeState, BattlesnakeConfig]:
    """The state and config an API board describes (snakes in board order; `turn` becomes the state's tick).

    The config holds the board's size and snake count and the given food settings (the spawn chance the official
    engine's draw gives, unless `exact_spawn_chance`: `BattlesnakeConfig`); its tick limit is
    the turn after the next, so a step never ends an API position by timeout.
    """
    if not isinstance(board, Mapping):
        raise GameGrammarError(f"a board must be a JSON object, got {type(board).__name__}")
    for key in ("width", "height", "snakes"):
        if key not in board:
            raise GameGrammarError(f"the board has no {key!r}")
    width, height = _int(board["width"], "board width"), _int(board["height"], "board height")
    if width < 1 or height < 1:
        raise GameGrammarError(f"board must be at least 1x1, got {width}x{height}")
    if _list(board, "hazards"):
        raise GameGrammarError("the board has hazards; the standard rules have none")
    raw = _list(board, "snakes")
    if not raw:
        raise GameGrammarError("the board has no snakes")
    if len(raw) > MAX_SNAKES:
        raise GameGrammarError(f"the board has {len(raw)} snakes; at most {MAX_SNAKES} are supported")
    room = start_room(width, height)
    if len(raw) > room:
        raise GameGrammarError(f"board {width}x{height} is too small for {len(raw)} snakes")
    snakes, seen = [], set()
    for i, s in enumerate(raw):
        if not isinstance(s, Mapping):
            raise GameGrammarError(f"snake {i} must be a JSON object, got {type(s).__name__}")
        sid = s.get("id")
        if not isinstance(sid, str) or not sid:
            raise GameGrammarError(f"snake {i} has no id")
        if sid in seen:
            raise GameGrammarError(f"two snakes have the id {sid!r}")
        seen.add(sid)
        body_raw = s.get("body")
        if not isinstance(body_raw, list):
            raise GameGrammarError(f"snake {sid!r} has no body list")
        if not body_raw:
            raise GameGrammarError(f"snake {sid!r} has zero length")
        body = tuple(_cell(p, f"snake {sid!r} body[{j}]") for j, p in enumerate(body_raw))
        for j, c in enumerate(body):
            if not (0 <= c[0] < width and 0 <= c[1] < height):
                raise GameGrammarError(f"snake {sid!r} body[{j}] {c} is off the {width}x{height} board")
        for j in range(1, len(body)):
            if body[j] != body[j - 1] and move_between(body[j - 1], body[j]) is None:
                raise GameGrammarError(f"snake {sid!r} body[{j}] {body[j]} is not next to body[{j - 1}] {body[j - 1]}")
        health = _int(s.get("health"), f"snake {sid!r} health")
        if not 0 <= health <= MAX_HEALTH:
            raise GameGrammarError(f"snake {sid!r} health must be between 0 and {MAX_HEALTH}, got {health}")
        if "head" in s and _cell(s["head"], f"snake {sid!r} head") != body[0]:
            raise GameGrammarError(f"snake {sid!r} head {_cell(s['head'], 'head')} is not body[0] {body[0]}")
        if "length" in s and _int(s["length"], f"snake {sid!r} length") != len(body):
            raise GameGrammarError(f"snake {sid!r} length {s['length']} differs from its {len(body)} body segments")
        name = s.get("name", "")
        snakes.append(Snake(body, health, "", sid, name if isinstance(name, str) else ""))
    food = [_cell(p, f"food[{j}]") for j, p in enumerate(_list(board, "food"))]
    for j, c in enumerate(food):
        if not (0 <= c[0] < width and 0 <= c[1] < height):
            raise GameGrammarError(f"food[{j}] {c} is off the {width}x{height} board")
    if len(set(food)) != len(food):
        raise GameGrammarError("the board lists a food cell twice")
    turn = _int(turn, "turn")
    config = BattlesnakeConfig(width, height, len(snakes), minimum_food, food_spawn_chance, max(1, turn + 2), exact_spawn_chance)
    return BattlesnakeState(tuple(snakes), sorted_food(food), turn), config


def _board_out(board: Mapping[str, Any], state: BattlesnakeState) -> dict[str, Any]:
    """The next board: the input board's other fields kept, each surviving snake's dict updated in place of a copy."""
    by_id = {s["id"]: s for s in board["snakes"]}
    snakes = []
    for s in state.snakes:
        if not s.alive:
            continue
        out = dict(by_id[s.id])
        out.update(health=s.health, body=[_point(c) for c in s.body], head=_point(s.head), length=s.length)
        snakes.append(out)
    out = dict(board)
    out.update(food=[_point(c) for c in state.food], snakes=snakes)
    out.setdefault("hazards", [])
    return out


def step_board(
    board: Mapping[str, Any],
    moves: Mapping[str, Any],
    spawn_food: bool = False,
    *,
    seed: int = 0,
    turn: int = 0,
    episode: int = 0,
    minimum_food: int = 1,
    food_spawn_chance: int = 15,
    exact_spawn_chance: bool = False,
) -> tuple[dict[str, Any], dict[str, str]]:
    """One turn of the standard rules on an API board: (next board, {eliminated snake id: cause}).

    `moves` maps every snake's id to "up", "down", "left" or "right"; anything else makes that snake
    continue along its neck ("up" when it has none). With `spawn_food` the standard map then spawns
    food, drawn with the keys (seed, episode, turn + 1): the engine's draws for the turn after `turn`.
    """
    state, config = state_from_board(
        board, turn=turn, minimum_food=minimum_food, food_spawn_chance=food_spawn_chance, exact_spawn_chance=exact_spawn_chance
    )
    if not isinstance(moves, Mapping):
        raise GameGrammarError(f"moves must map snake ids to move words, got {type(moves).__name__}")
    ids = [s.id for s in state.snakes]
    for sid in moves:
        if sid not in ids:
            raise GameGrammarError(f"a move for unknown snake {sid!r}; the board's snakes are {', '.join(map(repr, ids))}")
    chosen: list[Move | None] = []
    for sid in ids:
        if sid not in moves:
            raise GameGrammarError(f"no move for snake {sid!r}")
        word = moves[sid]
        chosen.append(MOVE_OF_WORD.get(word) if isinstance(word, str) else None)
    after, turn_facts = advance(state, chosen, config)
    if spawn_food:
        after = with_food(after, draw_spawns(after, config, seed, episode))
    eliminated = {state.snakes[k].id: cause for k, cause in turn_facts.eliminated.items()}
    return _board_out(board, after), eliminated
