"""Symmetry augmentation: the 8 symmetries of a square board map valid episodes to valid episodes.

A symmetry moves every cell, and turns every direction with it (inputs, the keyframe
direction and the body chain). It works on token ids, so it can run inside the data
loader: non-transposing symmetries are a per-token lookup; the transposing ones also
swap the two tokens of every `Xx Yy` pair, because x and y trade places. Every cell is
such a pair, the tail-events design's `FREE Xx Yy` included (the word FREE maps to itself);
the sense design's words turn their directions.

The spawn-column design (a corpus whose tokenizer holds VAC/OCC) is not token-local: a
spawn's X is followed by its column's words, then its Y, so the spawn's pair is swapped
across the words; and the words describe the spawn's column, which a symmetry turns into
another line of the board (a row, when it transposes). So `apply` follows the body on
the transformed ids (the body is the last LEN head cells, from the last keyframe on) and
writes each spawn's words afresh. Windows start at a keyframe (an episode's BOS, or a
`keyframe` window's start), so every spawn's body is known; a spawn whose body a window
does not show (a `random` window's first LEN moves) keeps its words mapped token by token.
A window cut inside a spawn's block under a transposing symmetry lacks the spawn's Y,
which fixes its new X: that X is drawn among the free cells of the spawn's new row (as
the simulator's spawn is drawn among the free cells), with a generator seeded by the
window, so the prefix is a valid one and `apply` stays a function of its arguments.

Only the symmetries that keep the rules' start are used (`names`). The start cell
(W//2, H//2) is the centre of an odd board, which every symmetry keeps; on an even board
it is one of the four centre cells, and only the identity and the transpose (the mirror
in the diagonal through it) keep it: the other six would teach starts no seed can
produce, which the evaluator's `start_position` rule refuses. `all_names` holds the
eight, for the conformance kit's check that exactly the kept ones give valid episodes.
"""

from __future__ import annotations

import zlib

import numpy as np

from gamegrammar.core.board_symmetry import SYMMETRIES, TRANSPOSING
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games.snake.grammar import COLUMN_WORDS, SENSE_OF, sense_token
from gamegrammar.games.snake.rules import Direction, SnakeConfig, start_cell

Cell = tuple[int, int]

_HEAD, _KEYFRAME, _SPAWN = 1, 2, 3  # what the spawn-column trace reads at a position


def _turn(name: str, d: Direction, n: int) -> Direction:
    f = SYMMETRIES[name]
    ax, ay = f(1, 1, n)
    bx, by = f(1 + d.delta[0], 1 + d.delta[1], n)
    return next(e for e in Direction if e.delta == (bx - ax, by - ay))


def start_symmetries(config: SnakeConfig) -> tuple[str, ...]:
    """The symmetries of a square board that keep the start cell (W//2, H//2): those that map every episode the rules
    can write to one they can write (the rest of the start, a random direction and food on a random empty cell, is
    drawn uniformly, so any symmetry keeps it possible)."""
    n, centre = config.width - 1, start_cell(config)
    return tuple(name for name, f in SYMMETRIES.items() if f(*centre, n) == centre)


class SymmetryTransform:
    """Per-symmetry id lookup tables for one square board's vocabulary (and, in the spawn-column design, what it takes
    to write each spawn's column afresh).

    `names`: the symmetries augmentation draws from, those that keep the rules' start (`start_symmetries`);
    `all_names`: the board's eight."""

    all_names = tuple(SYMMETRIES)

    def __init__(self, tokenizer: GameTokenizer, config: SnakeConfig) -> None:
        if config.width != config.height:
            raise GameGrammarError(f"symmetry augmentation needs a square board, got {config.width}x{config.height}")
        self.tokenizer = tokenizer
        self.names = start_symmetries(config)
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
        self.is_column: np.ndarray | None = None  # the spawn-column design's words, where the vocabulary has them
        if all(word in ids for word in COLUMN_WORDS):
            self._column_lookups(tokenizer, config)

    def _column_lookups(self, tokenizer: GameTokenizer, config: SnakeConfig) -> None:
        """Lookups for following the body on ids: values of X/Y/LEN tokens, body-chain steps, where head cells stand."""
        ids = tokenizer.ids
        self.side = config.width
        self.column_ids = np.array([ids[word] for word in COLUMN_WORDS])  # indexed by "the snake is on the cell"
        self.is_column = np.zeros(len(tokenizer), bool)
        self.is_column[self.column_ids] = True
        self.spawn_id, self.snap_id = ids["FOOD_SPAWN"], ids["SNAP"]
        self.value = [-1] * len(tokenizer)  # X/Y/LEN tokens' values
        for prefix, values in (("X", range(config.width)), ("Y", range(config.height)), ("LEN", range(1, config.cells + 1))):
            for v in values:
                self.value[ids[f"{prefix}{v}"]] = v
        self.step = {ids[f"B_{d.name}"]: d.delta for d in Direction}
        # A head cell's X follows MOVE (grammar v1's order) or the input (the head-first design's cell).
        self.before_head = np.zeros(len(tokenizer), bool)
        self.before_head[[ids["MOVE"], *(ids[f"INPUT_{d.name}"] for d in Direction)]] = True

    def apply(self, ids: np.ndarray, name: str) -> np.ndarray:
        """The transformed copy of a window of ids (it may start or end mid-pair)."""
        out = self.tables[name][ids]
        if self.is_column is not None and self.is_column[ids].any():
            return self._apply_columns(ids, out, name)
        if name in TRANSPOSING:
            # Every X is followed by its Y: after mapping, the pair reads (Y', X'); swap it back.
            xs = np.flatnonzero(self.is_x[ids[:-1]])
            out[xs], out[xs + 1] = out[xs + 1], out[xs].copy()
            if len(ids) and self.is_x[ids[-1]]:  # a window cut inside a pair: its lone X cannot be mapped alone
                out[-1] = ids[-1]
        return out

    def _apply_columns(self, ids: np.ndarray, out: np.ndarray, name: str) -> np.ndarray:
        """`apply` in the spawn-column design: each spawn's pair swapped across its words, the words written afresh."""
        if name == "identity":
            return out
        n, h = len(ids), self.side
        spawns = np.flatnonzero(ids[:-1] == self.spawn_id) + 1  # each spawn's X
        transposing = name in TRANSPOSING
        if transposing:
            xs = np.flatnonzero(self.is_x[ids[:-1]])
            xs = xs[np.isin(xs, spawns, invert=True)]
            out[xs], out[xs + 1] = out[xs + 1], out[xs].copy()
            if self.is_x[ids[-1]] and ids[-2] != self.spawn_id:  # a lone X at the end, as in the other designs
                out[-1] = ids[-1]
            whole = spawns[spawns + h + 1 < n]
            out[whole], out[whole + h + 1] = out[whole + h + 1], out[whole].copy()
        marks = np.zeros(n, np.int8)
        marks[np.flatnonzero(self.is_x[ids[1:]] & self.before_head[ids[:-1]]) + 1] = _HEAD
        marks[ids == self.snap_id] = _KEYFRAME
        marks[spawns] = _SPAWN
        at = np.flatnonzero(marks)
        tokens, value, step = out.tolist(), self.value, self.step
        history: list[Cell] = []  # head cells, oldest first: the body is the last LEN of them
        for p, mark in zip(at.tolist(), marks[at].tolist()):
            if mark == _HEAD:
                if p + 1 < n:
                    history.append((value[tokens[p]], value[tokens[p + 1]]))
            elif mark == _KEYFRAME:  # SNAP PLAYER Xx Yy DIR_d LENn BODY chain: the body, head first
                if p + 3 >= n:
                    break
                x, y = value[tokens[p + 2]], value[tokens[p + 3]]
                history = [(x, y)]
                for q in range(p + 7, n):
                    if tokens[q] not in step:
                        break
                    dx, dy = step[tokens[q]]
                    x, y = x + dx, y + dy
                    history.append((x, y))
                history.reverse()
            else:
                length = value[tokens[p - 2]] if p >= 2 else -1  # GROW LENn FOOD_SPAWN Xx: the grown length
                if length < 1 or len(history) < length:
                    continue  # a body the window does not show: the words stay as mapped
                body = history[-length:]
                if transposing and p + h + 1 >= n:  # its Y cut off: the new X drawn among its new row's free cells
                    row = value[tokens[p]]  # the mapped X is the new Y
                    free = sorted({*range(h)} - {bx for bx, by in body if by == row})
                    x = free[int(np.random.default_rng(zlib.crc32(ids.tobytes())).integers(len(free)))]
                    out[p] = self.x_ids[x]
                else:
                    x = value[tokens[p]]
                occupied = np.zeros(h, np.intp)
                occupied[[by for bx, by in body if bx == x]] = 1
                words = min(h, n - 1 - p)
                out[p + 1 : p + 1 + words] = self.column_ids[occupied[:words]]
        return out

    def apply_tokens(self, tokens: list[str], name: str) -> list[str]:
        return self.tokenizer.decode(self.apply(np.array(self.tokenizer.encode(tokens)), name))
