"""Go's tests: boards drawn as text, and a marker for the tests that need GNU Go."""

from __future__ import annotations

import pytest

from gamegrammar.games.go.gtp import gnugo_missing
from gamegrammar.games.go.rules import BLACK, EMPTY, WHITE, GoState
from gamegrammar.games.go.zobrist import position_key

needs_gnugo = pytest.mark.skipif(gnugo_missing() is not None, reason=f"needs GNU Go: {gnugo_missing()}")


def board_of(rows: str) -> bytes:
    """A board from text, the top row first: `.` empty, `X` black, `O` white (as GNU Go's showboard draws it)."""
    lines = [line.split() for line in rows.strip().splitlines()]
    size = len(lines)
    out = bytearray(size * size)
    for r, line in enumerate(lines):
        assert len(line) == size, rows
        for x, c in enumerate(line):
            out[(size - 1 - r) * size + x] = {".": EMPTY, "X": BLACK, "O": WHITE}[c]
    return bytes(out)


def state_of(rows: str, to_play: int = 0) -> GoState:
    """A state on that board with `to_play` to move and a history that starts there."""
    board = board_of(rows)
    size = int(len(board) ** 0.5)
    key = position_key(board, size)
    return GoState(size, board, to_play, 0, key, frozenset({key}), (board,))
