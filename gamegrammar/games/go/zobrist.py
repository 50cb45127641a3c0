"""Go's Zobrist keys: one 64-bit key per point and colour, XORed in and out as stones come and go (GO.md, superko).

The key of a position (the stones on the board, not whose turn it is) is the XOR of the keys of its stones, so the
empty board's key is 0 and a play costs a few XORs however many stones it captures: the placed stone's key in, each
captured stone's key out. The keys are the project's (`gamegrammar.core.zobrist`): the key of a stone of colour c on
point p is that table's (slot p, code c), the same in every process. Novelty's state identity uses the same features
(`feature_space`, `state_features`), and two more slots for what the stones alone do not say: the player to move and
whether the last move was a pass.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from gamegrammar.core.zobrist import Feature, OutsideSpace, table

CODES = 3  # EMPTY (never hashed), BLACK, WHITE


@lru_cache(maxsize=32)
def point_keys(size: int) -> tuple[tuple[int, ...], ...]:
    """keys[colour][point] as Python ints (colour 0, empty, has none: zeros), for the scalar rules."""
    keys = table(size * size + 2, CODES).keys[: size * size]
    return tuple(tuple(0 for _ in range(size * size)) if c == 0 else tuple(int(k) for k in keys[:, c]) for c in range(CODES))


@lru_cache(maxsize=32)
def point_keys_np(size: int) -> np.ndarray:
    """(3, N*N) uint64: the same keys for the batch engine (row 0, empty, zeros)."""
    keys = table(size * size + 2, CODES).keys[: size * size].T.copy()
    keys[0] = 0
    return keys


def position_key(board: bytes | bytearray, size: int) -> int:
    """The key of a position from scratch: the XOR of its stones' keys (0 for the empty board)."""
    keys = point_keys(size)
    key = 0
    for p, colour in enumerate(board):
        if colour:
            key ^= keys[colour][p]
    return key


# ---------------------------------------------------------------- novelty: the state's features


def feature_space(size: int) -> tuple[int, int]:
    """Every point, then two slots: the player to move (code 0 or 1) and a pass just played (code 1)."""
    return size * size + 2, CODES


def state_features(board: bytes, to_play: int, passed: bool, size: int) -> list[Feature]:
    """The stones, the player to move, and a pass just played (the state a keyframe shows)."""
    if len(board) != size * size:
        raise OutsideSpace(f"a board of {len(board)} points is not {size}x{size}")
    out = [(p, c) for p, c in enumerate(board) if c]
    out.append((size * size, to_play))
    if passed:
        out.append((size * size + 1, 1))
    return out


def feature_changes(
    board: bytes, after: bytes, turn: tuple[int, int], passed: tuple[bool, bool], size: int
) -> tuple[list[Feature], list[Feature]]:
    """(removed, added) features of one move: the stones that came and went (a few, however many were captured), the
    player to move (`turn`, before and after) and the pass flag (`passed`, before and after)."""
    removed = [(p, c) for p, (c, d) in enumerate(zip(board, after)) if c != d and c]
    added = [(p, d) for p, (c, d) in enumerate(zip(board, after)) if c != d and d]
    slot = size * size
    if turn[0] != turn[1]:
        removed.append((slot, turn[0]))
        added.append((slot, turn[1]))
    if passed[0] != passed[1]:
        (added if passed[1] else removed).append((slot + 1, 1))
    return removed, added
