"""The states a token sequence describes, as far as the rules can follow it.

A trace starts from the first keyframe and advances each parsed tick with `rules.advance`, taking
the spawned food from the written SPAWN cells (the one thing the rules leave to chance). It stops
after the last tick the rules can produce from the state before it, so it ends before:
- a tick whose heads (or OUT), eats or eliminations are not the rules' for its inputs;
- a tick whose spawns are off the open cells or not as many as the standard map makes;
- the tick after a keyframe that differs from the traced state;
- a tick past the tick limit, or a grammar error.
Wrong LEN, H or FREE values do not stop it (the rules decide them, as the strict evaluator says).
For every valid episode the trace is the engine's states.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.episode_grammar import trace_states
from gamegrammar.games.battlesnake.grammar import Keyframe, Tick, parse
from gamegrammar.games.battlesnake.rules import (
    BattlesnakeConfig,
    BattlesnakeState,
    Move,
    advance,
    spawn_cells,
    spawn_range,
    with_food,
)


def follow(state: BattlesnakeState, tick: Tick, config: BattlesnakeConfig) -> BattlesnakeState | None:
    """The state after a written tick when the rules produce that tick from `state`; None where they do not."""
    if list(state.alive) != tick.movers:
        return None
    inputs: list[Move | None] = [None] * len(state.snakes)
    for m in tick.moves:
        inputs[m.snake] = m.input
    after, turn = advance(state, inputs, config)
    for j, m in enumerate(tick.moves):
        head = turn.heads[j]
        if (m.head is None) != (not config.in_bounds(head)) or (m.head is not None and m.head != head) or m.eat != turn.ate[j]:
            return None
    if {d.snake: d.cause for d in tick.deaths} != turn.eliminated:
        return None
    if not tick.spawns and len(after.food) >= config.minimum_food and config.spawn_percent < 100:
        return after  # no spawn, none owed
    open_cells = spawn_cells(after, config)
    fewest, most = spawn_range(after, config, len(open_cells))
    if not fewest <= len(tick.spawns) <= most or len(set(tick.spawns)) != len(tick.spawns) or not set(tick.spawns) <= set(open_cells):
        return None
    return with_food(after, tick.spawns)


def agrees(kf: Keyframe, state: BattlesnakeState) -> bool:
    """Does a keyframe show exactly the live snakes and food of `state`?"""
    if kf.alive != list(state.alive) or kf.food != list(state.food):
        return False
    return all(s.body() == state.snakes[s.snake].body and s.health == state.snakes[s.snake].health for s in kf.snakes)


def trace(tokens: Sequence[str] | str, config: BattlesnakeConfig) -> list[BattlesnakeState]:
    """The state at tick 0 (the first keyframe, as written) and after each tick the rules can follow."""
    tokens = tokens.split() if isinstance(tokens, str) else tokens
    return trace_states(
        parse(tokens), lambda kf: kf.state(0, config.num_snakes), lambda state, tick: follow(state, tick, config), agrees, config.max_ticks
    )
