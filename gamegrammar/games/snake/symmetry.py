"""Symmetry augmentation: the 8 symmetries of a square board map valid episodes to valid episodes.

A symmetry moves every cell, and turns every direction with it (inputs, the keyframe
direction and the body chain). It works on token ids, so it can run inside the data
loader: non-transposing symmetries are a per-token lookup; the transposing ones also
swap the two tokens of every `Xx Yy` pair, because x and y trade places. Every cell is
such a pair, the tail-events design's `FREE Xx Yy` included (the word FREE maps to itself);
the sense design's words turn their directions.

The start cell (W//2, H//2) maps to one of the four centre cells: augmented episodes
are valid, but start where the simulator never does. That is the price of the lever.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamegrammar.errors import GameGrammarError
from gamegrammar.games.snake.grammar import SENSE_OF, sense_token
from gamegrammar.games.snake.rules import Direction, SnakeConfig
from gamegrammar.tokenizer import GameTokenizer

Cell = tuple[int, int]

# name -> (x, y, n) -> (x', y') with n = side - 1
SYMMETRIES: dict[str, Callable[[int, int, int], Cell]] = {
    "identity": lambda x, y, n: (x, y),
    "rot90": lambda x, y, n: (n - y, x),
    "rot180": lambda x, y, n: (n - x, n - y),
    "rot270": lambda x, y, n: (y, n - x),
    "flip_x": lambda x, y, n: (n - x, y),
    "flip_y": lambda x, y, n: (x, n - y),
    "transpose": lambda x, y, n: (y, x),
    "anti_transpose": lambda x, y, n: (n - y, n - x),
}
TRANSPOSING = {"rot90", "rot270", "transpose", "anti_transpose"}


def _turn(name: str, d: Direction, n: int) -> Direction:
    f = SYMMETRIES[name]
    ax, ay = f(1, 1, n)
    bx, by = f(1 + d.delta[0], 1 + d.delta[1], n)
    return next(e for e in Direction if e.delta == (bx - ax, by - ay))


class SymmetryTransform:
    """Per-symmetry id lookup tables for one square board's vocabulary."""

    names = tuple(SYMMETRIES)

    def __init__(self, tokenizer: GameTokenizer, config: SnakeConfig) -> None:
        if config.width != config.height:
            raise GameGrammarError(f"symmetry augmentation needs a square board, got {config.width}x{config.height}")
        self.tokenizer = tokenizer
        ids = tokenizer.ids
        n = config.width - 1
        self.x_ids = np.array([ids[f"X{i}"] for i in range(config.width)])
        self.is_x = np.zeros(len(tokenizer), bool)
        self.is_x[self.x_ids] = True
        self.tables: dict[str, np.ndarray] = {}
        for name, f in SYMMETRIES.items():
            table = np.arange(len(tokenizer))
            swap = name in TRANSPOSING
            for d in Direction:
                e = _turn(name, d, n)
                for prefix in ("INPUT_", "DIR_", "B_"):
                    table[ids[prefix + d.name]] = ids[prefix + e.name]
            for token, dirs in SENSE_OF.items():  # the sense design's words: each direction turned
                if token in ids:
                    table[ids[token]] = ids[sense_token([_turn(name, d, n) for d in dirs])]
            # A coordinate's new value depends only on itself: x' on x (or on y when transposing), y' likewise.
            for v in range(config.width):
                if swap:  # X_v fixes the new y, Y_v the new x
                    table[ids[f"X{v}"]] = ids[f"Y{f(v, 0, n)[1]}"]
                    table[ids[f"Y{v}"]] = ids[f"X{f(0, v, n)[0]}"]
                else:
                    table[ids[f"X{v}"]] = ids[f"X{f(v, 0, n)[0]}"]
                    table[ids[f"Y{v}"]] = ids[f"Y{f(0, v, n)[1]}"]
            self.tables[name] = table

    def apply(self, ids: np.ndarray, name: str) -> np.ndarray:
        """The transformed copy of a window of ids (it may start or end mid-pair)."""
        out = self.tables[name][ids]
        if name in TRANSPOSING:
            # Every X is followed by its Y: after mapping, the pair reads (Y', X'); swap it back.
            xs = np.flatnonzero(self.is_x[ids[:-1]])
            out[xs], out[xs + 1] = out[xs + 1], out[xs].copy()
            if len(ids) and self.is_x[ids[-1]]:  # a window cut inside a pair: its lone X cannot be mapped alone
                out[-1] = ids[-1]
        return out

    def apply_tokens(self, tokens: list[str], name: str) -> list[str]:
        return self.tokenizer.decode(self.apply(np.array(self.tokenizer.encode(tokens)), name))
