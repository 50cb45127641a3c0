"""The states a token sequence describes, as far as the rules can follow it.

The analyses read states from here (world-state probes, tier 2's rule events, tier 3's
episode statistics), not from the strict evaluator: they need the states, not a verdict.
A trace starts from the first keyframe and advances each parsed tick with `resolve`
and `advance`, the one rules implementation, taking the food cell from the written
FOOD_SPAWN (the one thing the rules leave to chance). It stops after the last tick the
rules can produce from the state before it, so it ends before:
- a tick whose outcome or MOVE cell is not the rules' outcome for its input;
- in the tail-events design (a sequence with any FREE), a tick whose FREE cell is not the
  one the tail leaves, or that writes one where the tail stays, or none where it leaves;
- an eat whose spawn is off the board, on the snake, or missing while a cell is empty, or
  (spawn-column design) whose column words do not match the grown body, or (body-list
  design) whose listed cells are not the grown body's behind the head;
- the tick after a keyframe that differs from the traced state;
- a tick past the tick limit, or a grammar error.
Wrong GROW or SCORE values do not stop it: the rules decide length and score (as the
strict evaluator says). FREE cells change no state (the rules decide where the tail is). For every valid episode the trace is the engine's states.

Replays show a sequence as written, departures included: that is `replay.frames`.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.games.snake.grammar import (
    GrammarError,
    Keyframe,
    Tick,
    parse,
    uses_body_list,
    uses_sense,
    uses_spawn_column,
    uses_tail_events,
)
from gamegrammar.games.snake.rules import (
    Outcome,
    SnakeConfig,
    SnakeState,
    advance,
    body_neighbours,
    column_occupancy,
    empty_cells,
    freed_cell,
    resolve,
)


def follow(
    state: SnakeState,
    tick: Tick,
    config: SnakeConfig,
    tails: bool = False,
    sense: bool = False,
    spawn_column: bool = False,
    body_list: bool = False,
) -> SnakeState | None:
    """The state after a written tick when the rules produce that tick from `state`; None where they do not.

    `tails`: the sequence is in the tail-events design, so the tick's FREE cell must be the one the tail leaves (or
    absent where it leaves none); a tick that writes a FREE cell is held to it anyway. `sense`: likewise, the sense
    design's SENSE word must name the deadly body around the head, and `spawn_column` the spawn-column design's
    words the grown body in the spawn's column, and `body_list` the body-list design's cells the grown body behind
    the head.
    """
    direction, outcome, head = resolve(state, config, tick.input)
    if tick.outcome != outcome.value or (tick.move is not None and tick.move != head) or (tick.cell is not None and tick.cell != head):
        return None
    if (tails or tick.free is not None) and tick.free != freed_cell(state, outcome):
        return None
    if (sense or tick.sense is not None) and tick.sense != body_neighbours(state):
        return None
    spawn = tick.spawn
    if outcome is Outcome.EAT:
        body = (head, *state.body)
        if spawn is None:
            if empty_cells(body, config):  # food must spawn while the board is not full
                return None
        elif not config.in_bounds(spawn) or spawn in body:
            return None
        if (spawn_column or tick.column is not None) and spawn is not None and tick.column != column_occupancy(body, spawn[0], config):
            return None
        if (body_list or tick.listed is not None) and spawn is not None and tick.listed != body[1:]:
            return None
    return advance(state, direction, outcome, head, spawn)


def trace(tokens: Sequence[str] | str, config: SnakeConfig) -> list[SnakeState]:
    """The state at tick 0 (the first keyframe, as written) and after each tick the rules can follow."""
    tokens = tokens.split() if isinstance(tokens, str) else tokens
    tails, sense, column, listed = uses_tail_events(tokens), uses_sense(tokens), uses_spawn_column(tokens), uses_body_list(tokens)
    states: list[SnakeState] = []
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                states.append(item.state(0))
                continue
            if item.number > config.max_ticks:
                break
            after = follow(states[-1], item, config, tails, sense, column, listed)
            if after is None:
                break
            states.append(after)
            if item.keyframe is not None and item.keyframe.state(item.number) != after:
                break
    except GrammarError:
        pass
    return states
