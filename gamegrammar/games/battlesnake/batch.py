"""Battlesnake for thousands of games at once: the rules of `rules.py` on NumPy arrays.

Why a second engine: the scalar reference writes a corpus at some tens of thousands of
tokens per second; stepping every game of a batch with array operations is an order of
magnitude faster. It restates no rule in spirit: tests/games/battlesnake/test_batch.py
replays it against `rules.BattlesnakeGame` tick by tick, state by state.

Cells are flat indices on the board padded by one cell all round, `(y + 1) * (W + 2) + (x + 1)`:
a head that leaves the board lands on the padding (a wall collision) instead of wrapping, and
ascending cell order is still row-major from the bottom-left (the order of food and spawns).

- `BattlesnakeBatch`: n games, N snakes each. Bodies live in ring buffers (`ring`, `start`,
  `length`, head first) beside per-snake occupancy counts (`occ`, zero for eliminated snakes,
  whose last body stays in the ring for `state`). `initial(config, seed, episodes)`,
  `from_states(states, config)`, `.state(i)` (a scalar `BattlesnakeState`), `.take(rows)`.
- `advance(batch, moves) -> TurnBatch`: steps 2 to 5 of a turn (move, starvation, feed,
  eliminate), like `rules.advance`.
- `open_cells(batch, rows)`, `spawn_range(batch, rows, room)`, `draw_spawns(batch, keys)`: step 6, like
  `rules.spawn_cells`, `rules.spawn_range` and `rules.draw_spawns` (the (draw mod k)-th open cell, row-major).
- `end_codes(batch, turn)`: `rules.end_reason` as an `END_REASONS` index, `GOES_ON` while a game goes on;
  `final_lengths(batch, turn)`: `rules.final_length`, the score.

This module is rules only: the agents on a batch are `batch_agents`, whole episodes as
token ids `rollout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache, cached_property

import numpy as np

from gamegrammar.core.rng import keyed_draw
from gamegrammar.games.battlesnake.rules import (
    BODY_COLLISION,
    CAUSES,
    END_REASONS,
    HEAD_COLLISION,
    MAX_HEALTH,
    OUT_OF_HEALTH,
    SELF_COLLISION,
    WALL_COLLISION,
    BattlesnakeConfig,
    BattlesnakeState,
    Draw,
    Move,
    Snake,
    initial_state,
    purpose,
    snake_id,
    spawn_hit,
)

GOES_ON = -1
END_WIN, END_DRAW, END_DEATH, END_TIMEOUT = (END_REASONS.index(e) for e in ("WIN", "DRAW", "DEATH", "TIMEOUT"))
ALIVE = 0  # cause code of a live snake; an eliminated one's is 1 + its index in CAUSES
MOVES = np.array([int(m) for m in Move])


@dataclass(frozen=True)
class Board:
    """The padded board of a config: cell arithmetic shared by the batch rules, agents and writer."""

    width: int
    height: int

    @property
    def pw(self) -> int:
        return self.width + 2

    @property
    def cells(self) -> int:
        return self.pw * (self.height + 2)

    @cached_property
    def delta(self) -> np.ndarray:
        """The step of each Move (U D L R) in padded cells."""
        return _frozen(np.array([self.pw, -self.pw, -1, 1]))

    @cached_property
    def on_board(self) -> np.ndarray:
        """(cells,) bool: the cells of the board proper (not the padding)."""
        x, y = self.xy(np.arange(self.cells))
        return _frozen((x >= 0) & (x < self.width) & (y >= 0) & (y < self.height))

    def cell(self, x: np.ndarray | int, y: np.ndarray | int) -> np.ndarray:
        return (np.asarray(y) + 1) * self.pw + np.asarray(x) + 1

    def xy(self, cell: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cell = np.asarray(cell, np.int64)
        return cell % self.pw - 1, cell // self.pw - 1

    def dtype(self) -> type:
        return np.int16 if self.cells < 1 << 15 else np.int32


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False  # shared by every batch of the board (`board_of` caches it)
    return a


@cache
def board_of(width: int, height: int) -> Board:
    """The board of a size, made once: its tables are read every tick."""
    return Board(width, height)


@dataclass
class BattlesnakeBatch:
    """The states of n games of N snakes; every array has the games along axis 0."""

    config: BattlesnakeConfig
    tick: np.ndarray  # (n,) int64
    ring: np.ndarray  # (n, N, cap) padded cells; segment i of snake k is ring[g, k, (start + i) % cap]
    start: np.ndarray  # (n, N) int64: ring position of the head
    length: np.ndarray  # (n, N) int64
    health: np.ndarray  # (n, N) int64
    cause: np.ndarray  # (n, N) int8: ALIVE, or 1 + the index of the elimination cause in CAUSES
    occ: np.ndarray  # (n, N, cells) int8: segments of each live snake on each cell (zero once eliminated)
    food: np.ndarray  # (n, cells) bool

    _PER_GAME = ("tick", "ring", "start", "length", "health", "cause", "occ", "food")

    def __len__(self) -> int:
        return len(self.tick)

    @property
    def board(self) -> Board:
        return board_of(self.config.width, self.config.height)

    @property
    def cap(self) -> int:
        return self.ring.shape[2]

    @property
    def alive(self) -> np.ndarray:
        return self.cause == ALIVE

    def segment(self, i: int | np.ndarray) -> np.ndarray:
        """(n, N) padded cells of segment i of every snake (i may be an (n, N) array; clipped to the tail)."""
        i = np.minimum(i, self.length - 1)
        n, num, cap = self.ring.shape
        at = (self.start + i) % cap + np.arange(0, n * num * cap, cap).reshape(n, num)  # flat: one gather
        return self.ring.reshape(-1)[at].astype(np.int64)

    @property
    def heads(self) -> np.ndarray:
        return self.segment(0)

    @property
    def tails(self) -> np.ndarray:
        return self.segment(self.length - 1)

    @classmethod
    def empty(cls, config: BattlesnakeConfig, n: int) -> BattlesnakeBatch:
        board = Board(config.width, config.height)
        k = config.num_snakes
        z = np.zeros((n, k), np.int64)
        cap = config.max_length + 1
        return cls(
            config,
            np.zeros(n, np.int64),
            np.zeros((n, k, cap), board.dtype()),
            z.copy(),
            z.copy(),
            z.copy(),
            np.zeros((n, k), np.int8),
            np.zeros((n, k, board.cells), np.int8),
            np.zeros((n, board.cells), bool),
        )

    @classmethod
    def from_states(cls, states: Sequence[BattlesnakeState], config: BattlesnakeConfig) -> BattlesnakeBatch:
        """A batch holding explicit states (starts, keyframes, positions from the API)."""
        b = cls.empty(config, len(states))
        pw = b.board.pw
        rows, snakes, cells = [], [], []
        for i, s in enumerate(states):
            b.tick[i] = s.tick
            b.food[i, [(y + 1) * pw + x + 1 for x, y in s.food]] = True
            for k, snake in enumerate(s.snakes):
                body = [(y + 1) * pw + x + 1 for x, y in snake.body]
                b.ring[i, k, : len(body)] = body
                b.length[i, k] = len(body)
                b.health[i, k] = snake.health
                if snake.alive:
                    rows += [i] * len(body)
                    snakes += [k] * len(body)
                    cells += body
                else:
                    b.cause[i, k] = 1 + CAUSES.index(snake.cause) if snake.cause in CAUSES else len(CAUSES) + 1
        np.add.at(b.occ, (np.array(rows, np.int64), np.array(snakes, np.int64), np.array(cells, np.int64)), 1)
        return b

    @classmethod
    def initial(cls, config: BattlesnakeConfig, seed: int, episodes: np.ndarray) -> BattlesnakeBatch:
        """Start states, exactly `rules.initial_state` for each episode (placement is a few draws per game)."""
        return cls.from_states([initial_state(config, seed, int(e)) for e in np.asarray(episodes).tolist()], config)

    def body(self, i: int, k: int) -> tuple[tuple[int, int], ...]:
        cells = self.ring[i, k, (self.start[i, k] + np.arange(self.length[i, k])) % self.cap]
        x, y = self.board.xy(cells)
        return tuple(zip(x.tolist(), y.tolist()))

    def state(self, i: int) -> BattlesnakeState:
        """Game i as a scalar `BattlesnakeState` (eliminated snakes keep their last body, as the scalar engine's do)."""
        snakes = []
        for k in range(self.config.num_snakes):
            c = int(self.cause[i, k])
            cause = "" if c == ALIVE else CAUSES[c - 1] if c <= len(CAUSES) else "unknown"
            snakes.append(Snake(self.body(i, k), int(self.health[i, k]), cause, snake_id(k)))
        x, y = self.board.xy(np.flatnonzero(self.food[i]))
        return BattlesnakeState(tuple(snakes), tuple(zip(x.tolist(), y.tolist())), int(self.tick[i]))

    def take(self, rows: np.ndarray) -> BattlesnakeBatch:
        """The games at `rows` (indices or a boolean mask), copied."""
        rows = np.asarray(rows)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows  # np.take on indices: the quickest copy
        return BattlesnakeBatch(self.config, *(np.take(getattr(self, name), rows, axis=0) for name in self._PER_GAME))

    def copy(self) -> BattlesnakeBatch:
        return BattlesnakeBatch(self.config, *(getattr(self, name).copy() for name in self._PER_GAME))


assert [f.name for f in fields(BattlesnakeBatch)][1:] == list(BattlesnakeBatch._PER_GAME)


@dataclass
class TurnBatch:
    """What `advance` did, per game and snake (n, N), like `rules.Turn`: movers (alive before the turn), the
    move made, the new head (a padded cell, off the board for a wall collision), whether it ate, the cell its
    tail left (-1 when the tail stayed), and the cause code of an elimination this turn (ALIVE for none)."""

    movers: np.ndarray
    moves: np.ndarray
    heads: np.ndarray
    ate: np.ndarray
    freed: np.ndarray
    eliminated: np.ndarray


def default_moves(batch: BattlesnakeBatch) -> np.ndarray:
    """(n, N) `rules.default_move`: along the neck, up without a distinct neck."""
    head, neck = batch.heads, batch.segment(1)
    diff = head - neck
    pw = batch.board.pw
    out = np.select([diff == pw, diff == -pw, diff == -1, diff == 1], [Move.U, Move.D, Move.L, Move.R], int(Move.U))
    return np.where(batch.length >= 2, out, int(Move.U))


def advance(batch: BattlesnakeBatch, moves: np.ndarray) -> TurnBatch:
    """Steps 2 to 5 of a turn for every game, in place: move, starvation, feed, eliminate; tick + 1.

    `moves` (n, N) holds each snake's Move; entries of eliminated snakes are ignored, and -1 (no valid
    move word) makes a snake continue along its neck.
    """
    n, num = batch.cause.shape
    board = batch.board
    cells, cap = board.cells, batch.cap
    movers = batch.alive
    moves = np.asarray(moves)
    if (moves < 0).any():
        moves = np.where(moves < 0, default_moves(batch), moves)
    moves = np.where(movers, moves, -1)
    # every (game, snake) array is read and written through flat views, at gk = game * N + snake
    ring, start_of, length_of, health = _flat(batch.ring), _flat(batch.start), _flat(batch.length), _flat(batch.health)
    occ = _flat(batch.occ)
    gk = np.flatnonzero(movers)
    start, length = start_of[gk], length_of[gk]
    at = gk * cap
    head = ring[at + start].astype(np.int64)
    tail = ring[at + (start + length - 1) % cap].astype(np.int64)
    before_tail = ring[at + (start + length - 2) % cap].astype(np.int64)
    freed = np.full(n * num, -1, np.int64)
    freed[gk] = np.where((length == 1) | (tail != before_tail), tail, -1)
    new_head = head + board.delta[moves.reshape(-1)[gk]]
    base = gk * cells
    occ[base + tail] -= 1  # each (game, snake) once per statement: no repeated index
    occ[base + new_head] += 1
    start = (start - 1) % cap
    start_of[gk] = start
    ring[at + start] = new_head
    health[gk] -= 1
    heads = np.full(n * num, -1, np.int64)
    heads[gk] = new_head
    # feed: every mover on food eats (several on one food all eat), then the food goes
    food = _flat(batch.food)
    eats = food[gk // num * cells + new_head]
    ate = np.zeros(n * num, bool)
    ate[gk] = eats
    if eats.any():
        e, es, el = gk[eats], start[eats], length[eats]
        last = ring[e * cap + (es + el - 1) % cap]
        ring[e * cap + (es + el) % cap] = last
        occ[e * cells + last.astype(np.int64)] += 1
        length_of[e] += 1
        health[e] = MAX_HEALTH
        food[e // num * cells + new_head[eats]] = False
    heads, ate = heads.reshape(n, num), ate.reshape(n, num)
    eliminated = eliminations(batch, movers, heads)
    dg, dk = np.nonzero(eliminated)
    batch.cause[dg, dk] = eliminated[dg, dk]
    batch.occ[dg, dk] = 0
    batch.tick += 1
    return TurnBatch(movers, moves, heads, ate, freed.reshape(n, num), eliminated)


def row_counts(a: np.ndarray) -> np.ndarray:
    """(n,) int64 `a.sum(axis=1)` of a narrow (n, k) array, column by column: NumPy's reduction over a short last
    axis costs several times as much."""
    out = np.zeros(len(a), np.int64)
    for j in range(a.shape[1]):
        out += a[:, j]
    return out


def _flat(a: np.ndarray) -> np.ndarray:
    """A flat view of a batch array, written through (never a copy: raises on an array that is not contiguous)."""
    view = a.view()
    view.shape = (a.size,)
    return view


def eliminations(batch: BattlesnakeBatch, movers: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """(n, N) cause codes of step 5 on bodies that have moved and fed (ALIVE where none), like `rules.eliminations`."""
    n, num = movers.shape
    on_board = batch.board.on_board
    starved = movers & (batch.health <= 0)
    wall = movers & ~starved & ~on_board[np.maximum(heads, 0)]
    remaining = movers & ~starved & ~wall
    codes = np.zeros((n, num), np.int8)
    codes[starved] = 1 + CAUSES.index(OUT_OF_HEALTH)
    codes[wall] = 1 + CAUSES.index(WALL_COLLISION)
    # A collision needs a second segment on a head's cell: every snake's segments on each head (one gather per
    # snake, summed) find the few games where a head has company, and only those are looked at further
    cells = batch.occ.shape[2]
    safe_heads = np.where(remaining, heads, 0)
    occ = _flat(batch.occ)
    at = np.arange(0, n * num * cells, num * cells)[:, None] + safe_heads  # (g, snake 0, head of k)
    crowd = occ[at].astype(np.int16)
    for j in range(1, num):
        crowd += occ[at + j * cells]
    rows = np.unique(np.flatnonzero(remaining & (crowd >= 2)) // num)
    if rows.size:
        # occ_at[g, k, j]: segments of snake j on snake k's head
        sub = batch.occ[rows]
        occ_at = sub[np.arange(len(rows))[:, None, None], np.arange(num)[None, None, :], safe_heads[rows][:, :, None]].astype(np.int64)
        safe_heads, remaining, length = safe_heads[rows], remaining[rows], batch.length[rows]
        same = safe_heads[:, :, None] == safe_heads[:, None, :]
        other = ~np.eye(num, dtype=bool)[None] & remaining[:, None, :]
        own = occ_at[:, np.arange(num), np.arange(num)] >= 2
        body = (other & (occ_at - same >= 1)).any(axis=2)
        head = (other & same & (length[:, :, None] <= length[:, None, :])).any(axis=2)
        found = codes[rows]  # the first cause that holds: own body, another's body, a head-to-head lost
        for cause, hit in ((HEAD_COLLISION, head), (BODY_COLLISION, body), (SELF_COLLISION, own)):
            found[remaining & hit] = 1 + CAUSES.index(cause)
        codes[rows] = found
    return codes


# ---------------------------------------------------------------- food


def open_cells(batch: BattlesnakeBatch, rows: np.ndarray) -> np.ndarray:
    """(len(rows), cells) bool: where food may spawn in the games at `rows` (an array of indices), like
    `rules.spawn_cells`: on the board, not food, not a live snake, not next to a live snake's head."""
    board = batch.board
    blocked = batch.food[rows]
    for k in range(batch.config.num_snakes):  # snake by snake: `any` over the short snake axis is slower
        blocked |= batch.occ[rows, k] != 0
    r, k = np.nonzero(batch.alive[rows])
    g = rows[r]
    head = batch.ring[g, k, batch.start[g, k]].astype(np.int64)  # `heads`, at the rows alone
    for d in board.delta:
        blocked[r, head + d] = True
    return board.on_board & ~blocked


def nth_open(open_rows: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """The pick-th True cell of each row (row-major), as `list.pop(pick)` on the list of open cells."""
    seen = np.cumsum(open_rows, axis=1, dtype=np.int32)
    return (seen <= pick[:, None]).sum(axis=1)


def shortfalls(batch: BattlesnakeBatch) -> np.ndarray:
    """(n,) food missing below `minimum_food` in each game (negative above it)."""
    return batch.config.minimum_food - cell_counts(batch.food)


def cell_counts(food: np.ndarray) -> np.ndarray:
    """(n,) True cells in each row of an (n, cells) board (food, open cells), summed in int32: NumPy's default int64
    sum of bools is 2-3x slower."""
    return food.sum(axis=1, dtype=np.int32).astype(np.int64)


def spawn_range(batch: BattlesnakeBatch, rows: np.ndarray, room: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fewest, most) food step 6 spawns in the games at `rows` when `room` cells are open to it, like
    `rules.spawn_range`: the shortfall (as far as the room allows), else none or one by the spawn chance."""
    shortfall = batch.config.minimum_food - cell_counts(batch.food[rows])  # `shortfalls`, at the rows alone
    percent = batch.config.spawn_percent
    chance_most = np.minimum(1, room) if percent > 0 else np.zeros_like(room)
    chance_fewest = chance_most if percent >= 100 else np.zeros_like(room)
    owed = np.minimum(np.maximum(shortfall, 0), room)
    return np.where(shortfall > 0, owed, chance_fewest), np.where(shortfall > 0, owed, chance_most)


def draw_spawns(batch: BattlesnakeBatch, tick_key: np.ndarray) -> np.ndarray:
    """Step 6 for every game, in place, with each game's draws keyed by `tick_key` (its (seed, episode, tick)
    key): (n, m) padded cells spawned, in spawn order, -1 past each game's last. Like `rules.draw_spawns`."""
    config = batch.config
    n = len(batch)
    shortfall = shortfalls(batch)
    chance = np.zeros(n, bool)
    if config.spawn_percent > 0:
        chance = spawn_hit((keyed_draw(tick_key, Draw.FOOD_CHANCE) % np.uint64(100)).astype(np.int64), config)
    rows = np.flatnonzero((shortfall > 0) | chance)
    if not rows.size:
        return np.full((n, 0), -1, np.int64)
    open_rows = open_cells(batch, rows)
    room = cell_counts(open_rows)
    count = spawn_range(batch, rows, room)[1]  # the shortfall, or the one food the chance drew
    spawned = np.full((n, int(count.max())), -1, np.int64)
    for j in range(spawned.shape[1]):
        live = np.flatnonzero(count > j)
        r = rows[live]
        pick = (keyed_draw(tick_key[r], purpose(Draw.FOOD_CELL, j)) % room[live].astype(np.uint64)).astype(np.int64)
        cell = nth_open(open_rows[live], pick)
        open_rows[live, cell] = False
        room[live] -= 1
        batch.food[r, cell] = True
        spawned[r, j] = cell
    return spawned


# ---------------------------------------------------------------- ends


def end_codes(batch: BattlesnakeBatch) -> np.ndarray:
    """`rules.end_reason` for every game after its turn: its END_REASONS index, GOES_ON while it goes on."""
    alive = row_counts(batch.alive)
    if batch.config.num_snakes >= 2:
        decided = np.where(alive == 1, END_WIN, np.where(alive == 0, END_DRAW, GOES_ON))
    else:
        decided = np.where(alive == 0, END_DEATH, GOES_ON)
    timeout = (decided == GOES_ON) & (batch.tick >= batch.config.max_ticks)
    return np.where(timeout, END_TIMEOUT, decided)


def final_lengths(batch: BattlesnakeBatch, turn: TurnBatch) -> np.ndarray:
    """`rules.final_length` for every game: the longest snake standing, else the longest eliminated this turn."""
    alive = batch.alive
    standing = np.where(alive, batch.length, 0).max(axis=1)
    last = np.where(turn.eliminated != ALIVE, batch.length, 0).max(axis=1)
    return np.where(alive.any(axis=1), standing, last)
