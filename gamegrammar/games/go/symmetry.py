"""The 8 symmetries of the Go board on token ids: augmentation that maps every game to one the rules can play.

The rules are the same under any rotation or reflection of the board (captures, suicide, superko and the area
follow the stones, and the start, the empty board, is kept by all eight), so every symmetry maps a game the rules
can write to another one: `names` holds all eight. A move `D4` maps to the move on the image point and a stone
`d4` to the stone there; passes, resignations, counts and words stay. The grammar lists stones in point order (a
TAKE's captured stones, a keyframe's stones of each colour), which a symmetry does not keep, so each run of stone
tokens is sorted again after mapping. A run is whole in a window that holds its end; a window cut inside a run (a
packed window ending in a TAKE of several stones) keeps the stones it shows, sorted among themselves.
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.board_symmetry import SYMMETRIES
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games.go.grammar import stone
from gamegrammar.games.go.rules import GoConfig, vertex


class GoSymmetries:
    """Per-symmetry id lookup tables for one board's vocabulary (`GameSpec.symmetries`)."""

    all_names = tuple(SYMMETRIES)
    names = all_names  # the empty start is symmetric: every image is a game the rules can write

    def __init__(self, tokenizer: GameTokenizer, config: GoConfig) -> None:
        self.tokenizer = tokenizer
        size, ids = config.size, tokenizer.ids
        n = size - 1
        self.rank = np.full(len(tokenizer), -1, np.int64)  # a stone's point (its place in point order), -1 elsewhere
        for p in range(size * size):
            self.rank[ids[stone(p, size)]] = p
        self.tables: dict[str, np.ndarray] = {}
        for name, f in SYMMETRIES.items():
            table = np.arange(len(tokenizer))
            for p in range(size * size):
                x, y = f(p % size, p // size, n)
                q = y * size + x
                table[ids[vertex(p, size)]] = ids[vertex(q, size)]
                table[ids[stone(p, size)]] = ids[stone(q, size)]
            self.tables[name] = table

    def apply(self, ids: np.ndarray, name: str) -> np.ndarray:
        """The transformed copy of a window of ids, each run of stones in point order again."""
        out = self.tables[name][ids]
        if name == "identity" or not len(out):
            return out
        rank = self.rank[out]
        is_stone = rank >= 0
        starts = is_stone & ~np.concatenate(([False], is_stone[:-1]))
        group = np.cumsum(~is_stone | starts)  # every other token alone, each run of stones one group
        return out[np.lexsort((rank, group))]

    def apply_tokens(self, tokens: list[str], name: str) -> list[str]:
        return self.tokenizer.decode(self.apply(np.array(self.tokenizer.encode(tokens)), name))
