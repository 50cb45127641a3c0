"""Go's rules on NumPy arrays: thousands of games at once, move for move what `rules.py` does.

Every game of a batch is at the same tick, so one colour moves in all of them. Boards are kept padded, (n, N+2, N+2)
with EDGE around the board, so that a point's four neighbours and four diagonals are views of the same array shifted
by one (no gather). A tick reads each board once (`analyse`): its groups (`scipy.ndimage.label`, 4-connected within
each board), their liberties (each empty point counted once per group it touches) and sizes; from these every point's
play is known at once (`plays`): refused on a stone or as suicide, what it captures, the key of the position after it,
and positional superko, a key match against the game's history (a bit filter first, then the keys, then the boards
themselves, as GO.md asks). `apply` plays one move per game; `areas` scores boards by the area rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import ndimage

from gamegrammar.games.go.rules import BLACK, EMPTY, WHITE, GoConfig
from gamegrammar.games.go.zobrist import point_keys_np

EDGE = 3  # what lies beyond the board's edge, on the padding
_PLANE = np.zeros((3, 3, 3), bool)
_PLANE[1] = [[0, 1, 0], [1, 1, 1], [0, 1, 0]]  # four-neighbour connectivity within one board only
STEPS = ((-1, 0), (0, -1), (0, 1), (1, 0))  # (dy, dx) of the four neighbours, in point order: below, left, right, above
DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FILTER_BITS = 14  # a game's history filter: 2**14 bits, indexed by a key's top bits
MEMORY = 1 << 26  # bytes of board history a chunk of games may hold


def shifted(a: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """The view of a padded (n, N+2, N+2) array that holds, at each point of the board, its neighbour (dy, dx)."""
    h, w = a.shape[1] - 2, a.shape[2] - 2
    return a[:, 1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]


def inner(a: np.ndarray) -> np.ndarray:
    """The board itself: the view of a padded array without its padding."""
    return a[:, 1:-1, 1:-1]


@lru_cache(maxsize=32)
def point_index(size: int) -> np.ndarray:
    """(N+2, N+2) int32: each point's index p = y * N + x, -1 on the padding."""
    out = np.full((size + 2, size + 2), -1, np.int32)
    out[1:-1, 1:-1] = np.arange(size * size).reshape(size, size)
    return out


@lru_cache(maxsize=32)
def on_edge(size: int) -> np.ndarray:
    """(N, N) bool: points with fewer than four neighbours on the board."""
    out = np.zeros((size, size), bool)
    out[0, :] = out[-1, :] = out[:, 0] = out[:, -1] = True
    return out


class GoBatch:
    """n games at one tick: padded boards (n, N+2, N+2) int8, their groups, keys, passes in a row, and the history
    superko needs. A group's id is row * (P + 1) + 1 + the point of its latest stone (unique: that stone stands while
    the group does); `gsize` and `gkey` (n, P + 1) hold each id's stones and Zobrist key (the XOR of its stones')."""

    def __init__(self, config: GoConfig, n: int) -> None:
        size, points = config.size, config.points
        self.config = config
        self.grid = np.full((n, size + 2, size + 2), EDGE, np.int8)
        inner(self.grid)[:] = EMPTY
        self.label = np.zeros(self.grid.shape, np.int32)
        self.gsize = np.zeros((n, points + 1), np.int32)
        self.gkey = np.zeros((n, points + 1), np.uint64)
        self.key = np.zeros(n, np.uint64)
        self.passes = np.zeros(n, np.int64)
        plays = config.max_ticks + 1
        # The history, kept in place while games end (`slot`: each game's row of it): every position's key, the empty
        # start's (0) first, its board, how many, and the filter of their keys.
        self.slot = np.arange(n)
        self.history = np.zeros((n, plays), np.uint64)
        self.boards = np.zeros((n, plays, points), np.int8)
        self.count = np.ones(n, np.int64)
        self.filter = np.zeros((n, 1 << (FILTER_BITS - 6)), np.uint64)
        self._set_filter(np.arange(n), self.key)

    def __len__(self) -> int:
        return len(self.grid)

    @property
    def board(self) -> np.ndarray:
        """(n, P) the boards in point order (a copy)."""
        return inner(self.grid).reshape(len(self), -1)

    def _set_filter(self, games: np.ndarray, keys: np.ndarray) -> None:
        bit = (keys >> np.uint64(64 - FILTER_BITS)).astype(np.int64)
        np.bitwise_or.at(self.filter, (self.slot[games], bit >> 6), np.uint64(1) << (bit & 63).astype(np.uint64))

    def record(self, games: np.ndarray) -> None:
        """Add the current position of `games` (just played) to their history and filter."""
        slot = self.slot[games]
        at = self.count[slot]
        self.history[slot, at] = self.key[games]
        self.boards[slot, at] = self.board[games]
        self.count[slot] = at + 1
        self._set_filter(games, self.key[games])

    def take(self, keep: np.ndarray) -> GoBatch:
        out = GoBatch.__new__(GoBatch)
        out.config = self.config
        for name in ("grid", "key", "passes", "slot", "gsize", "gkey"):
            setattr(out, name, getattr(self, name)[keep])
        out.history, out.boards, out.count, out.filter = self.history, self.boards, self.count, self.filter
        shift = ((keep - np.arange(len(keep))) * (self.config.points + 1)).astype(np.int32)[:, None, None]
        label = self.label[keep]
        out.label = np.where(label > 0, label - shift, 0)  # a group's id follows its game's row
        return out


class Analysis:
    """A batch's liberties, read once a tick. libs: per group id, its liberties; around: per neighbour direction, the
    neighbours' colours, group ids, liberties, and whether that group is the first of its id around the point."""

    def __init__(self, batch: GoBatch) -> None:
        grid, label = batch.grid, batch.label
        self.label = label
        # Contiguous copies of the shifted views: NumPy's element-wise work on strided views is ten times slower.
        colours = [np.ascontiguousarray(shifted(grid, dy, dx)) for dy, dx in STEPS]
        labels = [np.ascontiguousarray(shifted(label, dy, dx)) for dy, dx in STEPS]
        self.empty = empty = inner(grid) == EMPTY
        firsts = []
        for k, lk in enumerate(labels):
            first = lk > 0
            for j in range(k):
                first &= lk != labels[j]
            firsts.append(first)
        at = np.flatnonzero(empty)  # each empty point is a liberty of each group around it, once
        counted = np.concatenate([np.where(f.ravel()[at], lk.ravel()[at], 0) for lk, f in zip(labels, firsts)])
        self.libs = np.bincount(counted, minlength=batch.gsize.size).astype(np.int16)  # at most N * N
        self.libs[0] = 0
        self.around = [(c, lk, self.libs[lk], f) for c, lk, f in zip(colours, labels, firsts)]
        self.empties = np.add.reduce([(c == EMPTY).view(np.int8) for c in colours], dtype=np.int8)  # empty neighbours


def analyse(batch: GoBatch) -> Analysis:
    return Analysis(batch)


@dataclass
class Plays:
    """What a play on each point (n, N, N) by `colour` would do: legal (every rule, superko included), captured (how
    many stones it removes), cap (4 masks: it captures the group of that neighbour), key (the position's key after)."""

    legal: np.ndarray
    captured: np.ndarray
    cap: list[np.ndarray]
    colour: int

    def taken(self, a: Analysis, g: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """(m, 4) the ids of the groups plays on (y, x) of games g capture, 0 where none."""
        return np.stack([np.where(cap[g, y, x], lk[g, y, x], 0) for cap, (_, lk, _, _) in zip(self.cap, a.around)], axis=1)

    def key(self, batch: GoBatch, a: Analysis, g: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The position keys after plays on (y, x) of games g: the game's key, the stone's in, the captured groups' out."""
        size = batch.config.size
        key = batch.key[g] ^ point_keys_np(size)[self.colour][y * size + x]
        took = np.flatnonzero(self.captured[g, y, x] > 0)
        if len(took):
            gkey = batch.gkey.ravel()
            for lk in self.taken(a, g[took], y[took], x[took]).T:
                key[took] ^= gkey[lk]  # gkey[0] is 0: no group
        return key


def plays(batch: GoBatch, a: Analysis, colour: int) -> Plays:
    other = BLACK + WHITE - colour
    empty = a.empty
    breathes = a.empties > 0
    captured = np.zeros(empty.shape, np.int32)
    caps = []
    gsize = batch.gsize.ravel()
    for c, lk, nlibs, first in a.around:
        breathes |= (c == colour) & (nlibs >= 2)
        cap = (c == other) & (nlibs == 1) & first
        caps.append(cap)
        if cap.any():
            captured[cap] += gsize[lk[cap]]
    basic = empty & (breathes | (captured > 0))
    legal = Plays(basic, captured, caps, colour)
    legal.legal = basic & ~_repeats(batch, a, legal)
    return legal


def _repeats(batch: GoBatch, a: Analysis, legal: Plays) -> np.ndarray:
    """Positional superko: which candidate plays repeat a position of their game's history. A key's top bits in the
    game's filter first, then the history's keys, then, for a key that matches, the boards themselves."""
    candidates = legal.legal
    out = np.zeros(candidates.shape, bool)
    n, size = len(candidates), batch.config.size
    g, p = np.nonzero(candidates.reshape(n, -1))
    k = legal.key(batch, a, g, p // size, p % size)
    bit = (k >> np.uint64(64 - FILTER_BITS)).astype(np.int64)
    slot = batch.slot[g]
    maybe = ((batch.filter[slot, bit >> 6] >> (bit & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)
    g, p, k, slot = g[maybe], p[maybe], k[maybe], slot[maybe]
    if not len(g):
        return out
    width = int(batch.count[slot].max())
    same = (batch.history[slot, :width] == k[:, None]) & (np.arange(width)[None, :] < batch.count[slot][:, None])
    hit = same.any(axis=1)
    g, p, at, slot = g[hit], p[hit], same[hit].argmax(axis=1), slot[hit]
    if not len(g):
        return out
    y, x = p // size, p % size
    taken = legal.taken(a, g, y, x)
    labels = inner(a.label)[g].reshape(len(g), -1)
    after = batch.board[g]
    after[((labels[:, :, None] == taken[:, None, :]) & (taken[:, None, :] > 0)).any(axis=2)] = EMPTY
    after[np.arange(len(g)), p] = legal.colour
    out[g, y, x] = (after == batch.boards[slot, at]).all(axis=1)
    return out


def apply(batch: GoBatch, a: Analysis, legal: Plays, move: np.ndarray) -> np.ndarray:
    """Play one move per game (a point legal in `legal`, or -1: a pass); returns (n, P) the stones each captured."""
    n, size = len(batch), batch.config.size
    removed = np.zeros((n, size * size), bool)
    play = move >= 0
    g, p = np.flatnonzero(play), move[play]
    if len(g):
        y, x = p // size, p % size
        took = legal.captured[g, y, x] > 0
        if took.any():
            gc = g[took]
            taken = legal.taken(a, gc, y[took], x[took])
            labels = inner(a.label)[gc].reshape(len(gc), -1)
            removed[gc] = ((labels[:, :, None] == taken[:, None, :]) & (taken[:, None, :] > 0)).any(axis=2)
            gone = removed[gc].reshape(len(gc), size, size)
            for plane, value in ((batch.grid, EMPTY), (batch.label, 0)):
                board = inner(plane)[gc]
                board[gone] = value
                inner(plane)[gc] = board
        _join(batch, g, y, x, legal.colour)
        batch.grid[g, 1 + y, 1 + x] = legal.colour
        batch.key[g] = legal.key(batch, a, g, y, x)
        batch.record(g)
    batch.passes = np.where(play, 0, batch.passes + 1)
    return removed


def _join(batch: GoBatch, g: np.ndarray, y: np.ndarray, x: np.ndarray, colour: int) -> None:
    """Group ids after a stone of `colour` lands on (y, x) of games g: it and the own groups it touches become one
    group, named after it; its size and key are theirs (each counted once) and the stone's."""
    size = batch.config.size
    p = y * size + x
    new = (g * (batch.config.points + 1) + 1 + p).astype(np.int32)
    gsize, gkey = batch.gsize.ravel(), batch.gkey.ravel()
    stones = np.ones(len(g), np.int32)
    key = point_keys_np(size)[colour][p]
    around = [np.where(batch.grid[g, 1 + y + dy, 1 + x + dx] == colour, batch.label[g, 1 + y + dy, 1 + x + dx], 0) for dy, dx in STEPS]
    seen: list[np.ndarray] = []
    for ids in around:  # read before any is renamed
        fresh = ids > 0
        for before in seen:
            fresh &= ids != before
        seen.append(ids)
        rows = np.flatnonzero(fresh)
        if len(rows):  # the games where this neighbour's group joins: its stones take the new id
            sub = batch.label[g[rows]]
            sub = np.where(sub == ids[rows, None, None], new[rows, None, None], sub)
            batch.label[g[rows]] = sub
            stones[rows] += gsize[ids[rows]]
            key[rows] ^= gkey[ids[rows]]
    batch.label[g, 1 + y, 1 + x] = new
    gsize[new], gkey[new] = stones, key


def areas(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Black's, White's) area of padded boards: stones, and the empty regions that reach only that colour."""
    regions, count = ndimage.label(grid == EMPTY, _PLANE)
    board, empty = inner(grid), inner(regions) > 0
    nbrs = [shifted(grid, dy, dx) for dy, dx in STEPS]
    near_black = np.logical_or.reduce([c == BLACK for c in nbrs])
    near_white = np.logical_or.reduce([c == WHITE for c in nbrs])
    region = inner(regions)
    black_ok = np.bincount(region[empty & near_black], minlength=count + 1) > 0
    white_ok = np.bincount(region[empty & near_white], minlength=count + 1) > 0
    owner = np.where(black_ok & ~white_ok, BLACK, np.where(white_ok & ~black_ok, WHITE, EMPTY)).astype(np.int8)
    owner[0] = EMPTY
    point = np.where(empty, owner[region], board)
    n = len(grid)
    return (point == BLACK).reshape(n, -1).sum(axis=1), (point == WHITE).reshape(n, -1).sum(axis=1)


def eyes(batch: GoBatch, a: Analysis, colour: int) -> np.ndarray:
    """(n, N, N) GO.md's eyes of `colour`: empty, every on-board neighbour its stone, at most one opponent diagonal
    (none on the edge)."""
    grid = batch.grid
    other = BLACK + WHITE - colour
    own = np.logical_and.reduce([(c == colour) | (c == EDGE) for c, _, _, _ in a.around])
    enemies = np.add.reduce([np.ascontiguousarray(shifted(grid, dy, dx)) == other for dy, dx in DIAGONALS], dtype=np.int8)
    edge = on_edge(batch.config.size)[None]
    return a.empty & own & np.where(edge, enemies == 0, enemies <= 1)


def safe_plays(batch: GoBatch, a: Analysis, colour: int, rows: np.ndarray, asked: np.ndarray) -> np.ndarray:
    """(m, N, N) for the games `rows` and the plays `asked` (m, N, N), which capture nothing: does the played stone's
    group keep at least two liberties (False where not asked)? They are its empty neighbours and those of the own
    groups it joins, less the point itself: two empty neighbours, or a group with three or more, leave two; else
    (few points) the points to count are the empty neighbour and, of each own group with two, its other one."""
    size = batch.config.size
    plenty = a.empties[rows] >= 2
    for c, _, nlibs, _ in a.around:
        plenty |= (c[rows] == colour) & (nlibs[rows] >= 3)
    out = asked & plenty
    r, y, x = np.nonzero(asked & ~out)
    if not len(r):
        return out
    g = rows[r]
    index = point_index(size)
    here = index[1 + y, 1 + x].astype(np.int64)
    values = []
    for dy, dx in STEPS:
        c = batch.grid[g, 1 + y + dy, 1 + x + dx]
        lk = a.label[g, 1 + y + dy, 1 + x + dx]
        values.append(np.where(c == EMPTY, index[1 + y + dy, 1 + x + dx], -1))
        pair = np.flatnonzero((c == colour) & (a.libs[lk] == 2))
        other = np.full(len(g), -1, np.int64)
        other[pair] = _other_liberty(batch, g[pair], lk[pair], here[pair])
        values.append(other)
    stacked = np.stack(values, axis=1)
    low = np.where(stacked >= 0, stacked, batch.config.points + 1).min(axis=1)
    high = stacked.max(axis=1)
    out[r, y, x] = (high >= 0) & (high != low)
    return out


def _other_liberty(batch: GoBatch, g: np.ndarray, ids: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The liberty other than `known` of each group `ids` (of games g) with two: the empty points next to its stones."""
    stones = batch.label[g] == ids[:, None, None]
    near = np.logical_or.reduce([shifted(stones, dy, dx) for dy, dx in STEPS])
    free = near & (inner(batch.grid[g]) == EMPTY)
    index = point_index(batch.config.size)[1:-1, 1:-1].astype(np.int64)
    return np.where(free, index, 0).sum(axis=(1, 2)) - known
