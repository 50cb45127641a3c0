"""Snake for thousands of games at once: the rules of `games/snake.py` on NumPy arrays.

Why a second engine: corpus generation through the scalar reference runs at a few
hundred thousand tokens per second; stepping every game of a batch with array
operations is one to two orders of magnitude faster. It is *not* a second copy
of the rules in spirit: tests/test_snake_batch.py replays it against the scalar
`SnakeGame` and the scalar agents tick by tick and token by token.

Reusable API (a vectorized evaluator can drive it with inputs read from tokens):

- `SnakeBatch`: the states of n games as arrays, row i is game i. Cells are
  flat indices ``y * width + x``; `food` is -1 once the board is full. The body
  lives in a ring buffer (`ring`, `start`, `length`, head first) beside an
  occupancy grid (`occ`). Build one with `SnakeBatch.initial(config, seed,
  episodes)` or `SnakeBatch.from_states(states, config)`; read game i back with
  `.state(i)` (a scalar `SnakeState`); `.take(rows)` keeps a subset (a slice
  of rows gives views, so stepping it updates the parent batch).
  `SnakeBatch.from_cells(config, cells, length, ...)` builds many states from
  arrays without per-game Python.
- `probe(batch) -> Probe`: for each game and each of the 4 directions, the next
  head and the outcome (MOVE, EAT, DIE_WALL, DIE_SELF) if the snake went there.
- `body_neighbours(probe) -> mask`: for each game, the directions in which the
  head's neighbour is deadly body (`rules.body_neighbours`), bit d for direction d.
- `resolve(batch, actions, probe=None) -> Resolution`: what the rules make of one
  input per game (a reversing input is ignored), like `snake.resolve`.
- `resolve_taken(batch, actions) -> Resolution`: the same, computing only the
  direction taken (a quarter of the work) for callers that know the inputs.
  Both go through `outcomes_at(batch, x, y)`, the one statement of what a move
  runs into.
- `advance(batch, resolution)`: applies a resolution in place, like
  `snake.advance`; eaters get ``food == -1`` until food is placed.
- `spawn_food(batch, rows, draws)`: the (draw mod k)-th empty cell, row-major,
  for the given rows (-1 when the board is full), like `snake.spawn_food`.
- `step(batch, actions, food=None, seed=0, episodes=None) -> Resolution`:
  resolve + advance + food. With `food` (one cell per game, read where the
  outcome is EAT) the spawns are supplied from outside, e.g. the FOOD_SPAWN
  tokens of a sequence under evaluation, instead of drawn from the RNG.

This module is rules only: the scripted agents on a batch are `batch_agents`, and
whole episodes written as token ids `rollout`.

Outcome codes: MOVE 0, EAT 1, DIE_WALL 2, DIE_SELF 3 (`OUTCOMES` maps them to
`snake.Outcome`). Directions: `snake.Direction` values (U 0, D 1, L 2, R 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from gamegrammar.core import rng
from gamegrammar.games.snake.rules import END_REASONS, Direction, Outcome, SnakeConfig, SnakeState, start_cell

MOVE, EAT, DIE_WALL, DIE_SELF = 0, 1, 2, 3
OUTCOMES = (Outcome.MOVE, Outcome.EAT, Outcome.DIE_WALL, Outcome.DIE_SELF)
END_WALL, END_SELF, END_WIN, END_TIMEOUT = (END_REASONS.index(e) for e in ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"))
GOES_ON = -1

DIRS = np.arange(4)
DX = np.array([Direction(d).delta[0] for d in range(4)])
DY = np.array([Direction(d).delta[1] for d in range(4)])
OPPOSITE = np.array([Direction(d).opposite for d in range(4)])
SENSE_BITS = 1 << DIRS  # a direction mask's bit for each direction (the sense words are named by these masks)


@dataclass
class SnakeBatch:
    """The states of n games; every array has the games along axis 0 (int64 unless noted)."""

    config: SnakeConfig
    head_x: np.ndarray
    head_y: np.ndarray
    direction: np.ndarray
    food: np.ndarray  # flat cell, -1 when the board is full
    score: np.ndarray
    tick: np.ndarray
    length: np.ndarray
    start: np.ndarray  # ring position of the head; segment i is ring[(start + i) % cells]
    ring: np.ndarray  # (n, cells) int16 (int32 on boards over 32767 cells) flat cells
    occ: np.ndarray  # (n, cells) bool: on the body

    _PER_GAME = ("head_x", "head_y", "direction", "food", "score", "tick", "length", "start", "ring", "occ")

    def __len__(self) -> int:
        return len(self.head_x)

    @classmethod
    def empty(cls, config: SnakeConfig, n: int) -> SnakeBatch:
        z = np.zeros(n, np.int64)
        cells = config.cells
        ring = np.zeros((n, cells), np.int16 if cells < 1 << 15 else np.int32)
        return cls(config, z, z.copy(), z.copy(), z - 1, z.copy(), z.copy(), z + 1, z.copy(), ring, np.zeros((n, cells), bool))

    @classmethod
    def initial(cls, config: SnakeConfig, seed: int | np.ndarray, episodes: np.ndarray) -> SnakeBatch:
        """Start states, exactly `rules.initial_state` for each episode (`seed` may be an array: one per game)."""
        episodes = np.asarray(episodes, np.int64)
        n = len(episodes)
        b = cls.empty(config, n)
        x, y = start_cell(config)
        b.head_x[:], b.head_y[:] = x, y
        head = y * config.width + x
        b.ring[:, 0] = head
        b.occ[:, head] = True
        b.direction[:] = (rng.draw_np(seed, episodes, 0, rng.Purpose.START_DIRECTION) % np.uint64(4)).astype(np.int64)
        b.food[:] = spawn_food(b, np.arange(n), rng.draw_np(seed, episodes, 0, rng.Purpose.FOOD))
        return b

    @classmethod
    def from_states(cls, states: Sequence[SnakeState], config: SnakeConfig) -> SnakeBatch:
        """A batch holding explicit states (keyframes, say)."""
        b = cls.empty(config, len(states))
        w = config.width
        for i, s in enumerate(states):
            b.head_x[i], b.head_y[i] = s.head
            b.direction[i] = int(s.direction)
            b.food[i] = -1 if s.food is None else s.food[1] * w + s.food[0]
            b.score[i], b.tick[i], b.length[i] = s.score, s.tick, s.length
            cells = [y * w + x for x, y in s.body]
            b.ring[i, : len(cells)] = cells
            b.occ[i, cells] = True
        return b

    @classmethod
    def from_cells(
        cls, config: SnakeConfig, cells: np.ndarray, length: np.ndarray, direction: np.ndarray, food: np.ndarray, score: np.ndarray
    ) -> SnakeBatch:
        """A batch at tick 0 from arrays: `cells` (n, k) holds each body's flat cells head first, the first
        `length` of each row used. The vectorized `from_states`: no per-game Python (keyframes of many sequences)."""
        cells = np.asarray(cells, np.int64)
        length = np.asarray(length, np.int64)
        n = len(length)
        b = cls.empty(config, n)
        w = config.width
        b.head_x[:], b.head_y[:] = cells[:, 0] % w, cells[:, 0] // w
        b.direction[:], b.food[:], b.score[:], b.length[:] = direction, food, score, length
        used = np.arange(cells.shape[1]) < length[:, None]
        k = min(cells.shape[1], config.cells)
        b.ring[:, :k] = np.where(used, cells, 0)[:, :k]
        rows = np.broadcast_to(np.arange(n)[:, None], cells.shape)
        b.occ[rows[used], cells[used]] = True
        return b

    def body(self, i: int) -> tuple[tuple[int, int], ...]:
        cap, w = self.config.cells, self.config.width
        cells = self.ring[i, (self.start[i] + np.arange(self.length[i])) % cap]
        return tuple((int(c) % w, int(c) // w) for c in cells)

    def state(self, i: int) -> SnakeState:
        """Game i as a scalar `SnakeState`."""
        w = self.config.width
        food = None if self.food[i] < 0 else (int(self.food[i]) % w, int(self.food[i]) // w)
        return SnakeState(self.body(i), Direction(int(self.direction[i])), food, int(self.score[i]), int(self.tick[i]))

    def take(self, rows: np.ndarray) -> SnakeBatch:
        """The games at `rows` (indices or a boolean mask), copied."""
        return SnakeBatch(self.config, *(getattr(self, name)[rows] for name in self._PER_GAME))

    def copy(self) -> SnakeBatch:
        return SnakeBatch(self.config, *(getattr(self, name).copy() for name in self._PER_GAME))

    def tail(self) -> np.ndarray:
        """The flat cell of each game's last segment (its head when the length is 1)."""
        return self.ring[np.arange(len(self)), _ring_index(self.start + self.length - 1, self.config.cells)]


assert [f.name for f in fields(SnakeBatch)][1:] == list(SnakeBatch._PER_GAME)


@dataclass
class Probe:
    """Per game and direction (n, 4): the next head and the outcome of going there."""

    x: np.ndarray
    y: np.ndarray
    cell: np.ndarray  # flat cell, clipped to 0 where out of bounds
    outcome: np.ndarray


def outcomes_at(batch: SnakeBatch, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(flat cell, outcome) of each game's head going to (x, y); x, y are (n,) or (n, k): the one place that says
    what a move runs into, shared by `probe` (all four directions) and `resolve_taken` (the one taken)."""
    cfg = batch.config
    n = len(batch)
    per_game = (slice(None),) + (None,) * (x.ndim - 1)  # broadcast one value per game over any trailing axis
    inside = (x >= 0) & (x < cfg.width) & (y >= 0) & (y < cfg.height)
    cell = np.where(inside, y * cfg.width + x, 0)
    eat = inside & (cell == batch.food[per_game])
    # the tail retracts first, so its cell is free; food is never on the body
    hit = batch.occ.reshape(-1)[cell + (np.arange(n) * cfg.cells)[per_game]] & (cell != batch.tail()[per_game])
    outcome = np.where(inside, np.where(eat, EAT, np.where(hit, DIE_SELF, MOVE)), DIE_WALL)
    return cell, outcome


def probe(batch: SnakeBatch) -> Probe:
    """Outcomes of all four directions at once (reversal is not applied here: see `resolve`)."""
    x = batch.head_x[:, None] + DX
    y = batch.head_y[:, None] + DY
    cell, outcome = outcomes_at(batch, x, y)
    return Probe(x, y, cell, outcome)


def body_neighbours(pr: Probe) -> np.ndarray:
    """`rules.body_neighbours` for every game, from its probe, as a mask: bit d where going d runs into the body."""
    return (pr.outcome == DIE_SELF) @ SENSE_BITS


@dataclass
class Resolution:
    """One resolved tick per game: the direction taken, the outcome and the next head."""

    action: np.ndarray  # the input as given (what INPUT_d shows)
    direction: np.ndarray
    outcome: np.ndarray
    x: np.ndarray
    y: np.ndarray
    cell: np.ndarray


def resolve(batch: SnakeBatch, actions: np.ndarray, pr: Probe | None = None) -> Resolution:
    """`snake.resolve` for every game: an input opposite to the current direction is ignored."""
    actions = np.asarray(actions, np.int64)
    direction = np.where(actions == OPPOSITE[batch.direction], batch.direction, actions)
    pr = pr or probe(batch)
    rows = np.arange(len(batch))
    return Resolution(
        actions, direction, pr.outcome[rows, direction], pr.x[rows, direction], pr.y[rows, direction], pr.cell[rows, direction]
    )


def resolve_taken(batch: SnakeBatch, actions: np.ndarray) -> Resolution:
    """`resolve` for the direction taken only: the same Resolution for a quarter of `probe`'s work.

    For callers that know the input already (an evaluator replaying written
    inputs) and have no use for the other three directions.
    """
    actions = np.asarray(actions, np.int64)
    direction = np.where(actions == OPPOSITE[batch.direction], batch.direction, actions)
    x = batch.head_x + DX[direction]
    y = batch.head_y + DY[direction]
    cell, outcome = outcomes_at(batch, x, y)
    return Resolution(actions, direction, outcome, x, y, cell)


def _ring_index(i: np.ndarray, cells: int) -> np.ndarray:
    """i % cells for 0 <= i < 2 * cells (a segment's ring position), without a division."""
    return np.where(i >= cells, i - cells, i)


def advance(batch: SnakeBatch, res: Resolution) -> None:
    """`snake.advance` in place; eaters are left with food -1 for `spawn_food` (or the caller) to fill."""
    cells = batch.config.cells
    occ = batch.occ.reshape(-1)
    batch.direction[:] = res.direction
    batch.tick += 1
    moved = np.flatnonzero(res.outcome == MOVE)
    if moved.size:  # clear the tail first: the head may enter the cell it leaves
        tail = batch.ring[moved, _ring_index(batch.start[moved] + batch.length[moved] - 1, cells)]
        occ[moved * cells + tail] = False
    alive = np.flatnonzero(res.outcome <= EAT)
    if alive.size:
        start = batch.start[alive] - 1
        start[start < 0] = cells - 1
        batch.start[alive] = start
        cell = res.cell[alive]
        batch.ring[alive, start] = cell
        occ[alive * cells + cell] = True
        batch.head_x[alive] = res.x[alive]
        batch.head_y[alive] = res.y[alive]
    ate = np.flatnonzero(res.outcome == EAT)
    if ate.size:
        batch.length[ate] += 1
        batch.score[ate] += 1
        batch.food[ate] = -1


def spawn_food(batch: SnakeBatch, rows: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """For each row, the (draw mod k)-th of its k empty cells in row-major order; -1 if there is none."""
    empty = ~batch.occ[rows]
    k = empty.sum(axis=1)
    pick = np.asarray(draws, np.uint64) % np.maximum(k, 1).astype(np.uint64)
    seen = np.cumsum(empty, axis=1, dtype=np.int32)
    cell = (seen <= pick.astype(np.int64)[:, None]).sum(axis=1)
    return np.where(k > 0, cell, -1)


def step(
    batch: SnakeBatch, actions: np.ndarray, food: np.ndarray | None = None, seed: int = 0, episodes: np.ndarray | None = None
) -> Resolution:
    """One tick for every game (all must be running): resolve, advance, place food.

    Food after an eat comes from `food` (flat cells, -1 = board full) when given,
    else from the RNG keyed by (seed, episodes, tick) like the scalar engine.
    """
    res = resolve(batch, actions)
    advance(batch, res)
    ate = np.flatnonzero(res.outcome == EAT)
    if ate.size:
        if food is not None:
            batch.food[ate] = np.asarray(food)[ate]
        else:
            eps = np.arange(len(batch)) if episodes is None else np.asarray(episodes)
            batch.food[ate] = spawn_food(batch, ate, rng.draw_np(seed, eps[ate], batch.tick[ate], rng.Purpose.FOOD))
    return res


def end_codes(batch: SnakeBatch, res: Resolution) -> np.ndarray:
    """`rules.end_reason` for every game after `advance` and food: its END_REASONS index, GOES_ON when it goes on."""
    outcome = res.outcome
    win = (outcome == EAT) & (batch.food < 0)  # an eat that left no empty cell
    timeout = batch.tick >= batch.config.max_ticks
    codes = np.where(timeout, END_TIMEOUT, GOES_ON)
    codes = np.where(win, END_WIN, codes)
    return np.where(outcome == DIE_WALL, END_WALL, np.where(outcome == DIE_SELF, END_SELF, codes))
