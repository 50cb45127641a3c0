"""What world-state probes read of a Snake state (cell planes, scalars and class targets), and the edits of it whose
consequence the rules fix (interventions)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gamegrammar.core.gamespec import InterventionCase, ProbeTargets
from gamegrammar.games.snake.grammar import SENSE_OF, sense_token
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState, body_neighbours, empty_cells

PLANES = ("head", "body", "food", "empty")


def state_planes(state: SnakeState, config: SnakeConfig) -> np.ndarray:
    """[4, H*W] binary planes (head, body without the head, food, empty) of a state, cells row-major."""
    planes = np.zeros((len(PLANES), config.height, config.width), dtype=np.uint8)
    x, y = state.head
    if config.in_bounds(state.head):
        planes[0, y, x] = 1
    for bx, by in state.body[1:]:
        if config.in_bounds((bx, by)):
            planes[1, by, bx] = 1
    if state.food is not None:
        planes[2, state.food[1], state.food[0]] = 1
    planes[3] = 1 - planes[:3].max(0)
    return planes.reshape(len(PLANES), -1)


def probe_targets(state: SnakeState, config: SnakeConfig) -> ProbeTargets:
    """The four planes; length and score; the direction and the head and food coordinates as classes.

    Coordinates are classes as well as planes because a linear code of a coordinate need not
    be a linear code of 100 one-hot cells. With no food (a full board) the food's class is
    the extra one: x = width, y = height.
    """
    food = state.food if state.food is not None else (config.width, config.height)
    return ProbeTargets(
        planes=dict(zip(PLANES, state_planes(state, config))),
        scalars={"length": state.length, "score": state.score},
        classes={
            "direction": (int(state.direction), len(Direction)),
            "head_x": (state.head[0], config.width),
            "head_y": (state.head[1], config.height),
            "food_x": (food[0], config.width + 1),
            "food_y": (food[1], config.height + 1),
        },
    )


def intervention_cases(tokens: Sequence[str], states: Sequence[SnakeState], config: SnakeConfig) -> list[InterventionCase]:
    """The SENSE word's cases (`sense_cases`), then the food spawn's (`spawn_cases`)."""
    return [*sense_cases(tokens, states, config), *spawn_cases(tokens, states, config)]


SPAWN_WORD = "FOOD_SPAWN"


def spawn_cases(tokens: Sequence[str], states: Sequence[SnakeState], config: SnakeConfig) -> list[InterventionCase]:
    """At each FOOD_SPAWN followed by its X and Y words: one free cell made body, and one body cell (not the head)
    made free, each drawn by a seeded coin from the tick.

    The rules draw the spawn uniformly among the cells the snake leaves free after the tick's move (states[tick + 1]'s
    body), so on the real board a free cell has probability 1/N and a body cell 0, and on the edited board the added
    cell 0 and the freed one 1/(N + 1). The model's probability of a cell is that of its X word at FOOD_SPAWN times its
    Y word after that X: the case's path and expected word. The food's own cell is left alone.
    """
    out: list[InterventionCase] = []
    tick, start = -1, 0
    for i, token in enumerate(tokens):
        if token == "TICK":
            tick, start = tick + 1, i
        if token != SPAWN_WORD or tick + 1 >= len(states) or i + 2 >= len(tokens):
            continue
        if not (tokens[i + 1].startswith("X") and tokens[i + 2].startswith("Y")):
            continue  # a design that writes more between them (spawn_column) has no case
        state = states[tick + 1]
        empty = empty_cells(state.body, config)  # what the rules drew the food from
        free, n = [c for c in empty if c != state.food], len(empty)
        rng = np.random.default_rng([tick, i])
        picks = []
        if free:
            picks.append(("add body (spawn)", free[int(rng.integers(len(free)))], 1, (1.0 / n, 0.0)))
        if len(state.body) > 1:
            picks.append(("remove body (spawn)", state.body[1 + int(rng.integers(len(state.body) - 1))], 0, (0.0, 1.0 / (n + 1))))
        for kind, (x, y), value, chance in picks:
            index = y * config.width + x
            edits = (("body", index, value), ("empty", index, 1 - value))
            out.append(InterventionCase(tick, i - start, kind, edits, f"Y{y}", tokens[i + 1], SPAWN_WORD, 1, (f"X{x}",), chance))
    return out


def sense_cases(tokens: Sequence[str], states: Sequence[SnakeState], config: SnakeConfig) -> list[InterventionCase]:
    """At each input word followed by a SENSE word: a body cell added on each empty neighbour of the head, and each
    deadly body neighbour taken away; the SENSE word the rules write for the edited board is the expected next token.

    The edited board is the real one with one cell's occupant changed (body planes and empty plane together), and
    the word is `rules.body_neighbours` of it: an added cell is a middle segment, between the head and the tail, so
    deadly (a snake of one, whose added cell would be its tail, gets none); a removed one is gone.
    The tail's cell is left alone (body on the planes, yet not deadly), as are the food's and cells off the board.
    Grammar v1 writes no SENSE word and gets no case.
    """
    out: list[InterventionCase] = []
    tick = -1
    for i, token in enumerate(tokens):
        if token == "TICK":
            tick += 1
        if tick >= len(states) or i + 2 >= len(tokens) or not token.startswith("INPUT_") or tokens[i + 1] not in SENSE_OF:
            continue
        if tokens[i - 1] != "TICK":
            continue
        state = states[tick]
        deadly = set(body_neighbours(state))
        if sense_token(sorted(deadly)) != tokens[i + 1]:  # the written word is not the rules': nothing to edit from
            continue
        hx, hy = state.head
        for d in Direction:
            cell = (hx + d.delta[0], hy + d.delta[1])
            if not config.in_bounds(cell) or cell == state.food or cell == state.body[-1]:
                continue
            index = cell[1] * config.width + cell[0]
            if cell in state.body:
                if d not in deadly:
                    continue
                kind = "remove neck" if len(state.body) > 1 and cell == state.body[1] else "remove body"
                edits, after = (("body", index, 0), ("empty", index, 1)), deadly - {d}
            elif len(state.body) > 1:  # a snake of one has no tail to keep last: the added cell would be it
                kind, edits, after = "add body", (("body", index, 1), ("empty", index, 0)), deadly | {d}
            else:
                continue
            out.append(InterventionCase(tick, 1, kind, edits, sense_token(sorted(after)), tokens[i + 1]))
    return out
