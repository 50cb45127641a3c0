"""Turn a token sequence into one board state per tick, through the one rules implementation.

The replay starts from the first keyframe (`Keyframe.state(0)`) and advances
each parsed tick with `gamegrammar.games.snake.resolve` and `advance`; the food
spawned after an eat is the cell the FOOD_SPAWN token wrote. Model samples break
the rules, and a replay exists to show how, so where the written events depart
from the rules the frame shows what the sequence wrote (the MOVE cell becomes
the new head, a written death stops the snake) and remembers what the rules
would have done. A keyframe, being a complete written state, is what the next
tick starts from. A grammar error ends the frames at the last tick that parsed.

Which rule breaks first, and where, is the strict evaluator's answer
(`gamegrammar.games.snake.validity.validate`), mapped onto the frames here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from gamegrammar.games.snake.grammar import GrammarError, Keyframe, Tick, parse, read_cell, uses_head_first
from gamegrammar.games.snake.rules import Cell, Outcome, SnakeConfig, SnakeState, advance, direction_between, resolve
from gamegrammar.games.snake.validity import validate
from gamegrammar.replay import frames as shared
from gamegrammar.replay.frames import Violation

# One line per rule, for the message shown at the first violation (the rule names are the evaluator's).
RULE_HINTS: dict[str, str] = {
    "grammar": "the sequence does not parse under its design's grammar",
    "complete": "the episode is not complete (BOS keyframe ... end event EOS)",
    "keyframe_schedule": "a keyframe exactly after every K-th tick of the design (K = 0: only the opening one)",
    "start_position": "the game starts with the head alone at (W//2, H//2), LEN1, SCORE V0",
    "in_bounds": "a cell written off the board",
    "move_follows_input": "the MOVE cell is not head + direction",
    "tail_freed": "FREE must name the cell the tail leaves, on every move and self-collision and only then",
    "body_sensed": "SENSE must name the directions in which the head's neighbour is deadly body, every tick",
    "column_sensed": "after FOOD_SPAWN Xx, one word per row of that column: OCC where the snake is, VAC elsewhere",
    "body_listed": "after GROW LENn, the grown body's n - 1 cells behind the head, neck first, then FOOD_SPAWN",
    "wall_death": "DIE_WALL written iff the next head is off the board",
    "self_death": "DIE_SELF written iff the snake runs into itself",
    "eat_iff_food": "EAT written iff the next head is the food",
    "grow_after_eat": "GROW must give the length before the tick + 1",
    "score_after_eat": "SCORE must give the score before the tick + 1",
    "spawn_on_empty": "food must spawn on an empty cell (WIN only when none is left)",
    "keyframe_matches_state": "the keyframe differs from the replayed state",
    "end_is_final": "something other than EOS after an end event",
    "timeout_at_limit": "TIMEOUT exactly when an alive episode reaches max_ticks",
}


@dataclass(frozen=True)
class Frame:
    """The board after one tick (tick 0: the first keyframe) and the tokens that wrote it.

    `start`/`end` is the token span of the tick (for tick 0, BOS and the keyframe).
    `rules_say` is None when the written outcome is the rules' outcome; otherwise
    it is what the rules would have written (e.g. "MOVE X6 Y5"), and `rules_head`
    the head cell they would have given.
    """

    tick: int
    state: SnakeState
    start: int
    end: int
    end_event: str | None = None
    rules_say: str | None = None
    rules_head: Cell | None = None

    @property
    def dead(self) -> bool:
        return self.end_event in ("DIE_WALL", "DIE_SELF")


@dataclass(frozen=True)
class Replay(shared.BaseReplay[SnakeConfig, Frame, Violation]):
    """A Snake sequence, its frames, and the strict verdict; a violation that names no cell is shown on the head."""

    hints: ClassVar[Mapping[str, str]] = RULE_HINTS

    def _violation(self, rule: str, index: int, frame: int) -> Violation:
        cell = shared.cell_at(self.tokens, index, read_cell)
        if cell is None and self.frames and rule not in ("grammar", "complete", "end_is_final", "timeout_at_limit"):
            cell = self.frames[frame].state.head
        return Violation(rule, index, frame, cell, self.message(rule, index, frame))


def _outcome_words(outcome: Outcome, head: Cell, head_first: bool = False) -> str:
    """What the rules write for an outcome, in the sequence's design (head first: the cell before the word)."""
    cell = f"X{head[0]} Y{head[1]}"
    if head_first:
        return outcome.value if outcome is Outcome.DIE_WALL else f"{cell} {outcome.value}"
    if outcome is Outcome.MOVE:
        return f"MOVE {cell}"
    if outcome is Outcome.EAT:
        return f"EAT MOVE {cell}"
    return outcome.value


def step(state: SnakeState, tick: Tick, config: SnakeConfig, head_first: bool = False) -> tuple[SnakeState, str | None, Cell | None]:
    """The state after one written tick, and what the rules would have written when the sequence departs from them.

    Follows the rules exactly when the written outcome agrees with `resolve`;
    otherwise applies the written outcome with `advance` (the written MOVE cell
    as the new head), so a broken sequence is shown as written.
    """
    direction, outcome, head = resolve(state, config, tick.input)
    written = Outcome(tick.outcome)
    move = tick.move
    if written is outcome and (move is None or move == head):
        return advance(state, direction, outcome, head, tick.spawn), None, None
    rules_say = _outcome_words(outcome, head, head_first)
    rules_head = head if outcome in (Outcome.MOVE, Outcome.EAT) else None
    if move is None:  # a written death where the rules say otherwise: the snake stops where it is
        return advance(state, direction, written, head, None), rules_say, rules_head
    if abs(move[0] - state.head[0]) + abs(move[1] - state.head[1]) == 1:
        direction = direction_between(state.head, move)
    return advance(state, direction, written, move, tick.spawn), rules_say, rules_head


def replay(tokens: Sequence[str] | str, config: SnakeConfig) -> Replay:
    """Frames of a token sequence (valid or not) and the strict verdict; never raises on a bad sequence."""
    tokens = tokens.split() if isinstance(tokens, str) else list(tokens)
    frames: list[Frame] = []
    error: GrammarError | None = None
    head_first = uses_head_first(tokens)
    try:
        items = parse(tokens, to_eos=True)  # to_eos: ticks written after an end event are shown too
        first = next(items)
        assert isinstance(first, Keyframe)
        state = first.state(0)
        frames.append(Frame(0, state, 0, first.end))
        for tick in items:
            assert isinstance(tick, Tick)
            after, rules_say, rules_head = step(state, tick, config, head_first)
            frames.append(Frame(tick.number, after, tick.start, tick.end, tick.end_event, rules_say, rules_head))
            # A keyframe is a complete written state: the next tick starts from it (as the evaluator follows it).
            state = tick.keyframe.state(tick.number) if tick.keyframe is not None else after
    except GrammarError as err:
        error = err
    return Replay(tokens, config, frames, validate(tokens, config), error)
