"""Feature planes of a Go position, as AlphaGo-style networks read a board (GO.md), from one player's point of view.

`feature_planes(state, player)` is (PLANES, N, N) float32, row y of the array the board's row y (A1 at [.., 0, 0]):
  0 the player's stones        1 the opponent's stones       2 empty points
  3..6 stones whose group has 1, 2, 3, >= 4 liberties (either colour)
  7 the last move (a point; none after a pass)               8 the move before it
  9 points forbidden to the player, when it is to move: empty but refused (suicide, positional superko)
  10 ones (the board's extent, for padded convolutions)
`legal_mask(state)` is the player to move's legal actions: every point (point order), then pass.
`probe_targets(state)` is what world-state probes read of a position (mine / theirs for the player to move).
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import ProbeTargets
from gamegrammar.games.go.rules import EMPTY, PASS, GoState, colour_of, legal_plays, opponent

FEATURES = (
    "mine",
    "theirs",
    "empty",
    "liberties_1",
    "liberties_2",
    "liberties_3",
    "liberties_4+",
    "last_move",
    "move_before",
    "forbidden",
    "ones",
)
PLANES = len(FEATURES)


def legal_mask(state: GoState) -> np.ndarray:
    """(N * N + 1,) int8: 1 for each point the player to move may play on, and for pass (the last action)."""
    mask = np.zeros(state.size * state.size + 1, np.int8)
    mask[legal_plays(state)] = 1
    mask[-1] = 1
    return mask


def feature_planes(state: GoState, player: int, mask: np.ndarray | None = None) -> np.ndarray:
    """The planes of `FEATURES` for `player` (0 Black, 1 White); `mask` is `legal_mask(state)` when already known."""
    size = state.size
    board = np.frombuffer(state.board, np.int8).reshape(size, size)
    out = np.zeros((PLANES, size, size), np.float32)
    mine = colour_of(player)
    out[0] = board == mine
    out[1] = board == opponent(mine)
    out[2] = board == EMPTY
    position = state.position()
    libs = np.zeros(size * size, np.int64)
    for group in position.groups:
        libs[list(group.stones)] = len(group.liberties)
    libs = libs.reshape(size, size)
    for k, count in enumerate((1, 2, 3)):
        out[3 + k] = libs == count
    out[6] = libs >= 4
    for plane, back in ((7, 1), (8, 2)):
        if len(state.moves) >= back and state.moves[-back] >= 0:
            out[plane].flat[state.moves[-back]] = 1
    if state.to_play == player:
        allowed = legal_mask(state) if mask is None else mask
        out[9] = (board == EMPTY) & (allowed[:-1].reshape(size, size) == 0)
    out[10] = 1
    return out


PROBE_PLANES = ("mine", "theirs", "empty", "black", "white")
"""What world-state probes read of a point: the stones of the player to move and of its opponent (Othello-GPT's
relabelling, which made its board linear), the empty points, and the same stones by colour, to compare the two."""


def probe_targets(state: GoState) -> ProbeTargets:
    """The planes of `PROBE_PLANES` (row-major points), the stone counts of each side as scalars, and the player to
    move as a class (Black 0, White 1): a probe of mine/theirs needs it to turn colours into sides."""
    board = np.frombuffer(state.board, np.int8)
    mine = colour_of(state.to_play)
    planes = {
        "mine": board == mine,
        "theirs": board == opponent(mine),
        "empty": board == EMPTY,
        "black": board == colour_of(0),
        "white": board == colour_of(1),
    }
    return ProbeTargets(
        planes={name: plane.astype(np.uint8) for name, plane in planes.items()},
        scalars={"my_stones": float(planes["mine"].sum()), "their_stones": float(planes["theirs"].sum())},
        classes={"to_play": (state.to_play, 2)},
    )


__all__ = ["FEATURES", "PASS", "PLANES", "PROBE_PLANES", "feature_planes", "legal_mask", "probe_targets"]
