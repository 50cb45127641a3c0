"""Turn a token sequence into one board per tick, through the one rules implementation.

The replay starts from the first keyframe and advances each parsed tick: where the written tick
is the rules' (`trace.follow`), the frame is the rules' state. Model samples break the rules, and
a replay exists to show how, so where the written tick departs from them the frame shows what the
sequence wrote (the written heads, eats, eliminations and spawns) and remembers what the rules
would have done (`rules_say`, and the heads they would have given). A keyframe, a complete
written state, is what the next tick starts from. A grammar error ends the frames at the last
tick that parsed.

Which rule breaks first, and where, is the strict evaluator's answer (`validity.validate`),
mapped onto the frames here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from gamegrammar.games.battlesnake.grammar import DIE_TOKEN, GrammarError, Keyframe, Tick, as_pairs, parse, read_cell
from gamegrammar.games.battlesnake.rules import (
    MAX_HEALTH,
    BattlesnakeConfig,
    BattlesnakeState,
    Cell,
    Move,
    Snake,
    advance,
    snake_id,
    sorted_food,
)
from gamegrammar.games.battlesnake.rules import (
    step as move_cell,
)
from gamegrammar.games.battlesnake.trace import follow
from gamegrammar.games.battlesnake.validity import validate
from gamegrammar.replay import frames as shared

# One line per rule, for the message shown at the first violation (the rule names are the evaluator's).
RULE_HINTS: dict[str, str] = {
    "grammar": "the sequence does not parse under the grammar",
    "complete": "the episode is not complete (BOS keyframe ... end event EOS)",
    "keyframe_schedule": "a keyframe exactly after every K-th tick of the design (K = 0: only the opening one)",
    "in_bounds": "a cell written off the board",
    "move_follows_input": "the head is not the old head moved by the input (or OUT is wrong)",
    "tail_freed": "FREE does not name the cell the tail left",
    "wall_collision": "DIE_WALL written iff the head left the board",
    "self_collision": "DIE_SELF written iff the head hit its own body",
    "body_collision": "DIE_BODY written iff the head hit another snake's body",
    "head_collision": "DIE_HEAD written iff the head met a head at least as long",
    "starvation": "DIE_HEALTH written iff the health ran out",
    "start_position": "the first keyframe is not a start the placement rules make",
    "eat_iff_food": "EAT written iff the head is on food",
    "grow_after_eat": "EAT's LEN must be the length before the tick + 1",
    "health_reset": "EAT's health must be H100",
    "spawn_allowed": "food spawned on a cell that is not open (a snake, food, or next to a head)",
    "minimum_food": "not as many spawns as the standard map makes",
    "keyframe_matches_state": "the keyframe differs from the replayed state",
    "end_when_decided": "the end word is not the one the eliminations decide",
    "timeout_at_limit": "TIMEOUT exactly when an undecided episode reaches max_ticks",
    "end_is_final": "something other than EOS after an end event",
}
_NO_CELL = ("grammar", "complete", "end_is_final", "timeout_at_limit", "end_when_decided", "minimum_food")


@dataclass(frozen=True)
class Frame:
    """The board after one tick (tick 0: the first keyframe) and the tokens that wrote it.

    `start`/`end` is the token span of the tick (for tick 0, BOS and the keyframe); `died` the snakes
    eliminated in this tick, as written. `rules_say` is None when the written tick is the rules';
    otherwise what the rules would have written differently (e.g. "S1 X6 Y5; S2 survives"), and
    `rules_heads` the heads they would have given where the written ones differ.
    """

    tick: int
    state: BattlesnakeState
    start: int
    end: int
    end_event: str | None = None
    died: tuple[int, ...] = ()
    rules_say: str | None = None
    rules_heads: tuple[tuple[int, Cell], ...] = ()


@dataclass(frozen=True)
class Violation(shared.Violation):
    """The strict evaluator's first broken rule, placed on a frame (and on a cell and a snake, where it names one)."""

    snake: int | None = None


@dataclass(frozen=True)
class Replay(shared.BaseReplay[BattlesnakeConfig, Frame, Violation]):
    """A Battlesnake sequence, its frames, and the strict verdict; a violation is placed on the snake whose element holds it."""

    hints: ClassVar[Mapping[str, str]] = RULE_HINTS

    def _violation(self, rule: str, index: int, frame: int) -> Violation:
        snake = _snake_before(self.tokens, index, self.frames[frame].start if self.frames else 0)
        cell = shared.cell_at(self.tokens, index, read_cell)
        if cell is None and self.frames and snake is not None and rule not in _NO_CELL:
            shown = self.frames[frame].state.snakes
            if snake < len(shown) and shown[snake].body:
                cell = shown[snake].head
        return Violation(rule, index, frame, cell, self.message(rule, index, frame), snake)


def _snake_before(tokens: Sequence[str], index: int, floor: int) -> int | None:
    """The snake whose element holds token `index`: the nearest snake token Sk at or before it (not before `floor`)."""
    for at in range(min(index, len(tokens) - 1), max(floor, 0) - 1, -1):
        t = tokens[at]
        if t.startswith("S") and t[1:].isdigit():
            return int(t[1:])
    return None


def _words(k: int, head: Cell, on_board: bool, ate: bool) -> str:
    where = f"X{head[0]} Y{head[1]}" if on_board else "OUT"
    return f"S{k} {where}" + (" EAT" if ate else "")


def step(state: BattlesnakeState, tick: Tick, config: BattlesnakeConfig) -> tuple[BattlesnakeState, str | None, dict[int, Cell]]:
    """The state after one written tick, what the rules would have written where the sequence departs from them,
    and the heads the rules would have given there."""
    followed = follow(state, tick, config)
    if followed is not None:
        return followed, None, {}
    inputs: list[Move | None] = [None] * len(state.snakes)
    for m in tick.moves:
        if m.snake < len(inputs):
            inputs[m.snake] = m.input
    _, turn = advance(state, inputs, config)
    ruled = {k: j for j, k in enumerate(turn.movers)}
    snakes = list(state.snakes)
    notes: list[str] = []
    rules_heads: dict[int, Cell] = {}
    food = set(state.food)
    for m in tick.moves:
        k = m.snake
        if k >= len(snakes) or not snakes[k].body:
            continue
        s = snakes[k]
        natural = move_cell(s.head, m.input)
        head = m.head if m.head is not None else natural
        body = (head, *s.body[:-1])
        health = s.health - 1
        if m.eat:
            body = (*body, body[-1])
            health = m.health if m.health is not None else MAX_HEALTH
            food.discard(head)
        snakes[k] = Snake(body, health, "", s.id or snake_id(k), s.name)
        j = ruled.get(k)
        if j is not None:
            rule_head, on_board = turn.heads[j], config.in_bounds(turn.heads[j])
            written_on = m.head is not None
            if (written_on, m.head if written_on else None) != (on_board, rule_head if on_board else None) or m.eat != turn.ate[j]:
                notes.append(_words(k, rule_head, on_board, turn.ate[j]))
                if on_board:
                    rules_heads[k] = rule_head
    written = {d.snake: d.cause for d in tick.deaths}
    for k, cause in written.items():
        if k < len(snakes):
            s = snakes[k]
            snakes[k] = Snake(s.body, s.health, cause, s.id, s.name)
    for k in sorted(set(written) | set(turn.eliminated)):
        if written.get(k) != turn.eliminated.get(k):
            notes.append(f"S{k} {DIE_TOKEN[turn.eliminated[k]]}" if k in turn.eliminated else f"S{k} survives")
    after = BattlesnakeState(tuple(snakes), sorted_food(food | set(tick.spawns)), tick.number)
    return after, "; ".join(notes) or None, rules_heads


def replay(tokens: Sequence[str] | str, config: BattlesnakeConfig) -> Replay:
    """Frames of a token sequence (valid or not) and the strict verdict; never raises on a bad sequence. A cells
    sequence is shown in the pair spelling (`grammar.as_pairs`), which the frames' token positions index."""
    tokens = as_pairs(tokens.split() if isinstance(tokens, str) else tokens)[0]
    frames: list[Frame] = []
    error: GrammarError | None = None
    try:
        items = parse(tokens, to_eos=True)  # to_eos: ticks written after an end event are shown too
        first = next(items)
        assert isinstance(first, Keyframe)
        state = first.state(0, config.num_snakes)
        frames.append(Frame(0, state, 0, first.end))
        for tick in items:
            assert isinstance(tick, Tick)
            after, rules_say, rules_heads = step(state, tick, config)
            died = tuple(k for k in state.alive if k < len(after.snakes) and not after.snakes[k].alive)
            frames.append(Frame(tick.number, after, tick.start, tick.end, tick.end_event, died, rules_say, tuple(rules_heads.items())))
            state = _carry(tick.keyframe.state(tick.number, config.num_snakes), after) if tick.keyframe is not None else after
    except GrammarError as err:
        error = err
    return Replay(tokens, config, frames, validate(tokens, config), error)


def _carry(shown: BattlesnakeState, before: BattlesnakeState) -> BattlesnakeState:
    """A keyframe's state, keeping what it cannot show: the last body and cause of each eliminated snake."""
    snakes = list(shown.snakes)
    for k, s in enumerate(snakes):
        if not s.alive and k < len(before.snakes) and not before.snakes[k].alive:
            snakes[k] = before.snakes[k]
    return BattlesnakeState(tuple(snakes), shown.food, shown.tick)
