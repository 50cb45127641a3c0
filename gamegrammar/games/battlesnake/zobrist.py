"""Battlesnake's state identity for novelty: Zobrist features of a state and their change per turn.

Two states are the same when the same snakes are alive, each with the same body (cells in
order, head first, a stacked tail included), the same health, and the same food lies on the
board: what a keyframe shows, less the tick. Snakes keep their identity (snake 0 in one corner
and snake 1 in another is not the mirror state). Eliminated snakes are gone from the board and
have no features. Features:
- every cell of snake k's body holds one code of its own: HEAD, or a pointer, the move from the
  segment to the one before it (towards the head). A segment stacked on the one before it (a
  tail that stays for a turn after an eat; the three stacked segments at the start) adds none;
- snake k's two extra slots after the cells hold its length (which says how many segments are
  stacked on the tail) and its health;
- each food cell holds FOOD.
A body whose stacked segments lie anywhere but at the tail has the key of the body with them
moved to the tail; the rules make no such body, only a written keyframe can.

A turn changes a few features per snake (`feature_changes`): the head enters a cell, the tail
leaves its cell unless it was stacked, length and health change; an eliminated snake's features
all go; eaten food goes and spawned food comes.
"""

from __future__ import annotations

import itertools

from gamegrammar.core.zobrist import Feature, OutsideSpace
from gamegrammar.games.battlesnake.rules import MAX_HEALTH, BattlesnakeConfig, BattlesnakeState, Cell, Move, Snake

HEAD = 0
PER_SNAKE = 1 + len(Move)  # HEAD and the four pointers 1 + move, snake k's codes offset by k * PER_SNAKE
_POINTER = {move.delta: 1 + int(move) for move in Move}


def food_code(config: BattlesnakeConfig) -> int:
    return PER_SNAKE * config.num_snakes


def feature_space(config: BattlesnakeConfig) -> tuple[int, int]:
    """Every cell, row-major from the bottom-left, then two slots per snake (length, health); codes: each snake's HEAD
    and pointers and FOOD on cells, lengths up to the longest snake the board holds, health 0..100."""
    return config.cells + 2 * config.num_snakes, max(food_code(config) + 1, config.max_length + 1, MAX_HEALTH + 1)


def _slot(cell: Cell, config: BattlesnakeConfig) -> int:
    if not config.in_bounds(cell):
        raise OutsideSpace(f"cell {cell} is off the {config.width}x{config.height} board")
    return cell[1] * config.width + cell[0]


def _pointer(k: int, cell: Cell, towards: Cell) -> int:
    code = _POINTER.get((towards[0] - cell[0], towards[1] - cell[1]))
    if code is None:
        raise OutsideSpace(f"body cells {cell} and {towards} are not adjacent")
    return k * PER_SNAKE + code


def _snake_features(k: int, snake: Snake, config: BattlesnakeConfig) -> list[Feature]:
    if k >= config.num_snakes:
        raise OutsideSpace(f"snake {k} in a game of {config.num_snakes} snakes")
    body = snake.body
    if not body:
        raise OutsideSpace(f"snake {k} is alive without a body")
    out = [(_slot(body[0], config), k * PER_SNAKE + HEAD)]
    out += [(_slot(cell, config), _pointer(k, cell, before)) for before, cell in itertools.pairwise(body) if cell != before]
    lengths = config.cells + 2 * k
    return [*out, (lengths, snake.length), (lengths + 1, snake.health)]


def state_features(state: BattlesnakeState, config: BattlesnakeConfig) -> list[Feature]:
    out = []
    for k, snake in enumerate(state.snakes):
        if snake.alive:
            out += _snake_features(k, snake, config)
    food = food_code(config)
    return out + [(_slot(cell, config), food) for cell in state.food]


def feature_changes(before: BattlesnakeState, after: BattlesnakeState, config: BattlesnakeConfig) -> tuple[list[Feature], list[Feature]]:
    """(removed, added) features of the turn from `before` to `after`, from what each snake did."""
    removed: list[Feature] = []
    added: list[Feature] = []
    for k, was in enumerate(before.snakes):
        if not was.alive:
            continue
        now = after.snakes[k]
        if not now.alive:  # eliminated this turn: gone from the board
            removed += _snake_features(k, was, config)
            continue
        old, new = was.head, now.head
        removed.append((_slot(old, config), k * PER_SNAKE + HEAD))
        added += [(_slot(new, config), k * PER_SNAKE + HEAD), (_slot(old, config), _pointer(k, old, new))]
        tail = was.body[-1]
        ahead = was.body[-2] if was.length > 1 else new  # the segment before the tail after the move
        if tail != ahead:  # the tail leaves its cell (a stacked tail stays)
            removed.append((_slot(tail, config), _pointer(k, tail, ahead)))
        lengths = config.cells + 2 * k
        if now.length != was.length:
            removed.append((lengths, was.length))
            added.append((lengths, now.length))
        if now.health != was.health:
            removed.append((lengths + 1, was.health))
            added.append((lengths + 1, now.health))
    food = food_code(config)
    kept = set(before.food) & set(after.food)
    removed += [(_slot(cell, config), food) for cell in before.food if cell not in kept]
    added += [(_slot(cell, config), food) for cell in after.food if cell not in kept]
    return removed, added
