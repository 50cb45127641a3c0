"""The states a token sequence describes, as far as the rules can follow it.

A trace starts from the first keyframe (as written: the empty board of a real game) and advances each parsed tick with
`rules.advance`. It stops after the last tick the rules can produce from the state before it, so it ends before:
- a play the rules refuse (on a stone, suicide, superko);
- the tick after a keyframe that differs from the traced state;
- a tick past the move limit, or a grammar error.
Wrong TAKE lists, AREA counts and result words do not stop it (the rules decide them, as the strict evaluator says).
For every valid episode the trace is the engine's states.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.episode_grammar import trace_states
from gamegrammar.games.go.grammar import Keyframe, Tick, parse
from gamegrammar.games.go.rules import GoConfig, GoState, attempt
from gamegrammar.games.go.zobrist import position_key


def follow(state: GoState, tick: Tick) -> GoState | None:
    """The state after a written tick when the rules allow its move from `state`; None where they do not."""
    return attempt(state, tick.move)[1]


def agrees(kf: Keyframe, state: GoState) -> bool:
    """Does a keyframe show exactly the board of `state`, its player to move and its pass?"""
    return kf.board(state.size) == state.board and kf.to_play == state.to_play and kf.passed == (state.passes == 1)


def opening_state(kf: Keyframe, size: int) -> GoState:
    """The state the first keyframe shows (a start of the rules shows the empty board)."""
    board = kf.board(size)
    key = position_key(board, size)
    return GoState(size, board, 0, int(kf.passed), key, frozenset({key}), (board,))


def trace(tokens: Sequence[str] | str, config: GoConfig) -> list[GoState]:
    """The state at tick 0 (the first keyframe, as written) and after each tick the rules can follow."""
    tokens = tokens.split() if isinstance(tokens, str) else tokens
    return trace_states(parse(tokens, config.size), lambda kf: opening_state(kf, config.size), follow, agrees, config.max_ticks)
