"""Turn a Go token sequence into one board per move, through the one rules implementation.

The replay starts from the first keyframe and plays each parsed tick's move with the rules (`rules.attempt`). Where
the written tick is the rules' (the move allowed, TAKE listing exactly the stones it removes), the frame is the rules'
board. Where it departs, the frame remembers what the rules say (`rules_say`): a play they refuse is shown where it
was written but not placed (the board stays, the turn passes, as a reader would carry on), and a wrong TAKE list is
shown as written (`taken`) over the rules' board, which is what the evaluator follows too. A later keyframe, a
complete written board, is what the next move starts from. A grammar error ends the frames at the last tick that
parsed. Which rule breaks first, and where, is the strict evaluator's answer (`validity.validate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from gamegrammar.games.go.grammar import GrammarError, Keyframe, Tick, parse
from gamegrammar.games.go.rules import PASS, RESIGN, GoConfig, GoState, attempt, vertex
from gamegrammar.games.go.trace import opening_state
from gamegrammar.games.go.validity import validate
from gamegrammar.games.go.zobrist import position_key
from gamegrammar.replay import frames as shared

# One line per rule, for the message shown at the first violation (the rule names are the evaluator's).
RULE_HINTS: dict[str, str] = {
    "grammar": "the sequence does not parse under the grammar",
    "complete": "the episode is not complete (BOS keyframe ... end EOS)",
    "keyframe_schedule": "a keyframe exactly after every K-th tick of the design (K = 0: only the opening one)",
    "play_on_empty": "a play on a point that holds a stone",
    "suicide": "a play that leaves its own group without a liberty and captures nothing",
    "captures": "TAKE must list exactly the stones the play removes, in point order (none: no TAKE)",
    "keyframe_matches_state": "the keyframe differs from the replayed board",
    "start_position": "the game does not start on the empty board with Black to move",
    "turn_order": "the keyframe names the wrong player to move",
    "superko": "a play that repeats an earlier position",
    "two_passes_end": "two passes end the game (and TWO_PASSES only after two)",
    "move_limit": "the game ends in MOVE_LIMIT exactly at the move limit",
    "area_score": "AREA must write both colours' areas of the final board",
    "result": "the result must follow from the areas and komi (after a resignation the opponent wins)",
    "end_is_final": "something other than EOS after the end",
}
REFUSED = {"occupied": "play_on_empty", "suicide": "suicide", "superko": "superko"}


@dataclass(frozen=True)
class Frame:
    """The board after one tick (tick 0: the first keyframe) and the tokens that wrote it.

    `move` is the tick's move (a point, PASS or RESIGN; None at tick 0), `player` who made it (0 Black), `taken` the
    points its TAKE lists as written, `placed` whether the stone stands (False for a play the rules refuse).
    `rules_say` is None when the written tick is the rules'; otherwise what they say instead. `area` and `result`
    are the end's as written."""

    tick: int
    state: GoState
    start: int
    end: int
    move: int | None = None
    player: int = 0
    taken: tuple[int, ...] = ()
    placed: bool = True
    end_event: str | None = None
    area: tuple[int, int] | None = None
    result: str | None = None
    rules_say: str | None = None

    def move_text(self, size: int) -> str:
        """ "B D4", "W pass", "" at tick 0."""
        if self.move is None:
            return ""
        what = "pass" if self.move == PASS else "resigns" if self.move == RESIGN else vertex(self.move, size)
        return f"{'BW'[self.player]} {what}"


@dataclass(frozen=True)
class Violation(shared.Violation):
    """The strict evaluator's first broken rule, placed on a frame (and on a point, where it names one)."""


@dataclass(frozen=True)
class Replay(shared.BaseReplay[GoConfig, Frame, Violation]):
    """A Go sequence, its frames, and the strict verdict; a violation is placed on the point its token names."""

    hints: ClassVar[Mapping[str, str]] = RULE_HINTS

    def _violation(self, rule: str, index: int, frame: int) -> Violation:
        cell = _point_at(self.tokens, index, self.config.size)
        if cell is None and self.frames and self.frames[frame].move is not None and self.frames[frame].move >= 0:
            p = self.frames[frame].move
            cell = (p % self.config.size, p // self.config.size)
        return Violation(rule, index, frame, cell, self.message(rule, index, frame))


def _point_at(tokens: Sequence[str], index: int, size: int) -> tuple[int, int] | None:
    """The point a move or stone token at `index` names, if it names one on this board."""
    if not 0 <= index < len(tokens):
        return None
    t = tokens[index].upper()
    columns = [vertex(x, size)[0] for x in range(size)]
    if len(t) < 2 or t[0] not in columns or not t[1:].isdigit() or not 1 <= int(t[1:]) <= size:
        return None
    return columns.index(t[0]), int(t[1:]) - 1


def step(state: GoState, tick: Tick) -> tuple[GoState, bool, str | None]:
    """The board after one written tick, whether the stone stands, and what the rules say where the tick departs."""
    refusal, after, done = attempt(state, tick.move)
    if after is None or done is None:
        carried = GoState(state.size, state.board, state.tick + 1, 0, state.key, state.seen, state.history, (*state.moves, tick.move))
        return carried, False, f"{vertex(tick.move, state.size)} is refused ({refusal})"
    written = sorted(p for p, _ in tick.taken)
    if written != sorted(done.captured):
        says = "TAKE " + " ".join(vertex(q, state.size).lower() for q in done.captured) if done.captured else "no capture"
        return after, True, says
    return after, True, None


def replay(tokens: Sequence[str] | str, config: GoConfig) -> Replay:
    """Frames of a token sequence (valid or not) and the strict verdict; never raises on a bad sequence."""
    tokens = tokens.split() if isinstance(tokens, str) else list(tokens)
    frames: list[Frame] = []
    error: GrammarError | None = None
    size = config.size
    try:
        items = parse(tokens, size, to_eos=True)  # to_eos: ticks written after the end are shown too
        first = next(items)
        assert isinstance(first, Keyframe)
        state = opening_state(first, size)
        frames.append(Frame(0, state, 0, first.end))
        for tick in items:
            assert isinstance(tick, Tick)
            after, placed, says = step(state, tick)
            taken = tuple(p for p, _ in tick.taken)
            frames.append(
                Frame(
                    tick.number,
                    after,
                    tick.start,
                    tick.end,
                    tick.move,
                    tick.player,
                    taken,
                    placed,
                    tick.end_event,
                    tick.area,
                    tick.result,
                    says,
                )
            )
            state = after
            if tick.keyframe is not None:  # a complete written board: the next move starts there
                board = tick.keyframe.board(size)
                key = position_key(board, size)
                state = GoState(size, board, after.tick, int(tick.keyframe.passed), key, frozenset({key}), (board,), after.moves)
    except GrammarError as err:
        error = err
    except StopIteration:
        error = None
    return Replay(tokens, config, frames, validate(tokens, config), error)
