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
- `agent_actions(batch, agent_codes, draws)`: the three scripted agents of
  `gamegrammar.agents`, codes in `AGENT_NAMES` order, with their exact
  tie-breaking (`candidates[draw % len(candidates)]`, candidates U, D, L, R).
- `keyframe_token_ids(table, batch, rows, bos=False) -> (ids, mask)`: the
  keyframes of some games as token ids (row i is ids[i][mask[i]]).
- `play_batch(config, codec, seed, episodes, agent_codes) -> BatchResult`: whole
  episodes written straight to token ids (grammar v1, every `CodecConfig`
  option), identical to `EpisodeEncoder` + `GameTokenizer` on the scalar path.

Outcome codes: MOVE 0, EAT 1, DIE_WALL 2, DIE_SELF 3 (`OUTCOMES` maps them to
`snake.Outcome`). Directions: `snake.Direction` values (U 0, D 1, L 2, R 3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

import numpy as np

from gamegrammar import rng
from gamegrammar.agents import AGENTS
from gamegrammar.codec import END_EVENTS, CodecConfig
from gamegrammar.events import Salience
from gamegrammar.games.snake import Direction, Outcome, SnakeConfig, SnakeState
from gamegrammar.tokenizer import GameTokenizer

MOVE, EAT, DIE_WALL, DIE_SELF = 0, 1, 2, 3
OUTCOMES = (Outcome.MOVE, Outcome.EAT, Outcome.DIE_WALL, Outcome.DIE_SELF)
AGENT_NAMES = list(AGENTS)  # an agent's code is its position here (as in the corpus index)
END_WALL, END_SELF, END_WIN, END_TIMEOUT = (END_EVENTS.index(e) for e in ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"))

DIRS = np.arange(4)
DX = np.array([Direction(d).delta[0] for d in range(4)])
DY = np.array([Direction(d).delta[1] for d in range(4)])
OPPOSITE = np.array([Direction(d).opposite for d in range(4)])


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
    def initial(cls, config: SnakeConfig, seed: int, episodes: np.ndarray) -> SnakeBatch:
        """Start states, exactly `snake.initial_state` for each episode."""
        episodes = np.asarray(episodes, np.int64)
        n = len(episodes)
        b = cls.empty(config, n)
        b.head_x[:] = config.width // 2
        b.head_y[:] = config.height // 2
        head = config.height // 2 * config.width + config.width // 2
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


def agent_actions(batch: SnakeBatch, agent_codes: np.ndarray, draws: np.ndarray, pr: Probe | None = None) -> np.ndarray:
    """The scripted agents' inputs: codes index `AGENT_NAMES`; `draws` are the AGENT draws of this tick.

    Each agent is a preference over its candidate directions (random: the legal
    ones, all equal; greedy: the safe ones, nearer the food is better; wall
    follower: the safe ones, next to a wall first, then straight on); the pick
    is `candidates[draw % len(candidates)]` among the best, as in agents.py.
    Preferences are small positive numbers (0 = not a candidate), so the
    arithmetic stays in small integers: this is the hottest function of corpus generation.
    """
    cfg = batch.config
    pr = pr or probe(batch)
    codes = np.asarray(agent_codes)
    legal = _LEGAL[batch.direction]
    survive = legal & (pr.outcome <= EAT)
    base = np.where(((codes == _RANDOM) | ~survive.any(axis=1))[:, None], legal, survive)  # no safe move: any legal one
    food = batch.food
    has_food = (food >= 0)[:, None]
    x, y = pr.x, pr.y
    distance = np.abs(x - (food % cfg.width)[:, None]) + np.abs(y - (food // cfg.width)[:, None])
    closeness = np.where(has_food, cfg.width + cfg.height + 2 - distance, 0)  # >= 0: the probe is at most a cell off the board
    near_wall = (x == 0) | (y == 0) | (x == cfg.width - 1) | (y == cfg.height - 1)
    wall_pref = 2 * near_wall + _STRAIGHT[batch.direction]
    preference = np.where((codes == _GREEDY)[:, None], closeness, np.where((codes == _WALL)[:, None], wall_pref, 0))
    preference = np.where(base, preference + 1, 0)
    c = (preference == preference.max(axis=1)[:, None]).view(np.int8)  # the candidates
    upto0, upto1 = c[:, 0], c[:, 0] + c[:, 1]
    upto2 = upto1 + c[:, 2]
    k = upto2 + c[:, 3]
    pick = (np.asarray(draws, np.uint64) % np.uint64(12)).astype(np.int8) % k  # k divides 12: the same as draw % k
    return (upto0 <= pick).astype(np.int64) + (upto1 <= pick) + (upto2 <= pick)  # the index of the pick-th candidate


_RANDOM, _GREEDY, _WALL = (AGENT_NAMES.index(name) for name in ("random", "greedy", "wall_follower"))
_LEGAL = OPPOSITE[:, None] != DIRS  # [current direction, input]: not a reversal
_STRAIGHT = np.eye(4, dtype=np.int64)  # [current direction, input]: straight on


# ---------------------------------------------------------------- randomness keyed per episode


def episode_keys(seed: int, episodes: np.ndarray) -> np.ndarray:
    """The (seed, episode) prefix of `rng.draw`, computed once per episode."""
    z = rng.mix64_np(np.asarray(seed & ((1 << 64) - 1), dtype=np.uint64))
    return rng.mix64_np(z ^ np.asarray(episodes, np.int64).astype(np.uint64))


def tick_keys(keys: np.ndarray, tick: int) -> np.ndarray:
    return rng.mix64_np(keys ^ np.uint64(tick))


def keyed_draw(tick_key: np.ndarray, purpose: int) -> np.ndarray:
    """`rng.draw(seed, episode, tick, purpose)` from a `tick_keys` value."""
    return rng.mix64_np(tick_key ^ np.uint64(purpose))


# ---------------------------------------------------------------- tokens


class TokenTable:
    """Token ids of grammar v1 for one board, as lookup arrays."""

    def __init__(self, config: SnakeConfig) -> None:
        tok = GameTokenizer.for_game(config)
        ids = tok.ids
        self.dtype = tok.dtype
        self.word = {w: ids[w] for w in tok.tokens if w.isupper() and not w[-1].isdigit()}
        dt = self.dtype
        self.input = np.array([ids[f"INPUT_{d.name}"] for d in Direction], dt)
        self.dir = np.array([ids[f"DIR_{d.name}"] for d in Direction], dt)
        self.body = np.array([ids[f"B_{d.name}"] for d in Direction], dt)
        self.x = np.array([ids[f"X{x}"] for x in range(config.width)], dt)
        self.y = np.array([ids[f"Y{y}"] for y in range(config.height)], dt)
        self.len = np.array([ids["UNK"], *(ids[f"LEN{n}"] for n in range(1, config.cells + 1))], dt)
        self.value = np.array([ids[f"V{s}"] for s in range(config.cells)], dt)


# Columns of one tick, in grammar order, with the salience of the event each belongs to.
_TICK_COLUMNS = [
    ("TICK", Salience.TICK),
    ("INPUT", Salience.MOVEMENT),
    ("DIE", Salience.COLLISION),
    ("EAT", Salience.RULE_EFFECT),
    ("MOVE", Salience.MOVEMENT),
    ("MOVE_X", Salience.MOVEMENT),
    ("MOVE_Y", Salience.MOVEMENT),
    ("GROW", Salience.RULE_EFFECT),
    ("LEN", Salience.RULE_EFFECT),
    ("FOOD_SPAWN", Salience.RULE_EFFECT),
    ("SPAWN_X", Salience.RULE_EFFECT),
    ("SPAWN_Y", Salience.RULE_EFFECT),
    ("SCORE", Salience.RULE_EFFECT),
    ("VALUE", Salience.RULE_EFFECT),
    ("WIN", Salience.PHASE),
    ("TIMEOUT", Salience.PHASE),
    ("EOS", Salience.PHASE + 1),  # structure, never dropped
]
_COL = {name: i for i, (name, _) in enumerate(_TICK_COLUMNS)}


class _TokenLog:
    """Token chunks written tick by tick; each chunk holds one run of tokens per game, games ascending.

    Positions are resolved once at the end (`assemble`), when every episode's
    length and so its offset is known: one scatter per chunk, no per-token bookkeeping.
    """

    def __init__(self, n: int) -> None:
        self.cursor = np.zeros(n, np.int64)
        # (games, cursor before, counts or None for dense rows, tokens: flat or (games, width))
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]] = []

    def write(self, games: np.ndarray, ids: np.ndarray, mask: np.ndarray) -> None:
        """Append the masked ids of each row (row-major) to the episode of `games[row]`."""
        counts = mask.sum(axis=1)
        self.chunks.append((games, self.cursor[games], counts, ids[mask]))
        self.cursor[games] += counts

    def write_dense(self, games: np.ndarray, ids: np.ndarray) -> None:
        """Append every id of each row: the fast path for rows without optional tokens."""
        self.chunks.append((games, self.cursor[games], None, ids))
        self.cursor[games] += ids.shape[1]

    def assemble(self, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        """Episode-major flat tokens and each episode's length."""
        lengths = self.cursor.copy()
        offsets = np.cumsum(lengths) - lengths
        flat = np.empty(int(lengths.sum()), dtype)
        for games, before, counts, tokens in self.chunks:
            start = offsets[games] + before
            if counts is None:
                flat[start[:, None] + np.arange(tokens.shape[1])] = tokens
            else:
                run_start = np.cumsum(counts) - counts
                flat[np.arange(len(tokens)) + np.repeat(start - run_start, counts)] = tokens
        return flat, lengths


def _write_keyframes(log: _TokenLog, t: TokenTable, batch: SnakeBatch, rows: np.ndarray, games: np.ndarray, bos: bool = False) -> None:
    """SNAP PLAYER Xx Yy DIR_d LENn BODY b{n-1} FOOD [Xx Yy] SCORE Vs for the games at `rows`."""
    if not rows.size:
        return
    log.write(games, *keyframe_token_ids(t, batch, rows, bos))


def keyframe_token_ids(t: TokenTable, batch: SnakeBatch, rows: np.ndarray, bos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The keyframes of the games at `rows` as (ids, mask), one row each: row i's tokens are ids[i][mask[i]].

    The one batch keyframe encoder: the corpus writer uses it, and an evaluator
    compares written keyframes with it.
    """
    cfg = batch.config
    length = batch.length[rows]
    steps = int(length.max()) - 1
    m = len(rows)
    head = 1 if bos else 0
    ids = np.empty((m, head + 7 + steps + 5), t.dtype)
    mask = np.ones(ids.shape, bool)
    if bos:
        ids[:, 0] = t.word["BOS"]
    w = t.word
    ids[:, head : head + 7] = [w["SNAP"], w["PLAYER"], 0, 0, 0, 0, w["BODY"]]
    ids[:, head + 2] = t.x[batch.head_x[rows]]
    ids[:, head + 3] = t.y[batch.head_y[rows]]
    ids[:, head + 4] = t.dir[batch.direction[rows]]
    ids[:, head + 5] = t.len[length]
    if steps:
        idx = (batch.start[rows][:, None] + np.arange(steps + 1)) % cfg.cells
        cells = batch.ring[rows[:, None], idx].astype(np.int64)
        diff = cells[:, 1:] - cells[:, :-1]
        d = np.where(diff == -cfg.width, 0, np.where(diff == cfg.width, 1, np.where(diff == -1, 2, 3)))
        ids[:, head + 7 : head + 7 + steps] = t.body[d]
        mask[:, head + 7 : head + 7 + steps] = np.arange(steps) < (length - 1)[:, None]
    tail = head + 7 + steps
    food = batch.food[rows]
    has_food = food >= 0
    ids[:, tail] = w["FOOD"]
    ids[:, tail + 1] = t.x[np.where(has_food, food % cfg.width, 0)]
    ids[:, tail + 2] = t.y[np.where(has_food, food // cfg.width, 0)]
    mask[:, tail + 1] = mask[:, tail + 2] = has_food
    ids[:, tail + 3] = w["SCORE"]
    ids[:, tail + 4] = t.value[batch.score[rows]]
    return ids, mask


@dataclass
class BatchResult:
    """Whole episodes of one batch: flat token ids (episode-major) and per-episode facts."""

    tokens: np.ndarray
    lengths: np.ndarray
    ticks: np.ndarray
    scores: np.ndarray
    ends: np.ndarray  # position in codec.END_EVENTS


Observer = Callable[[SnakeBatch, np.ndarray, Resolution], None]


def play_batch(
    config: SnakeConfig,
    codec: CodecConfig,
    seed: int,
    episodes: np.ndarray,
    agent_codes: np.ndarray,
    observer: Observer | None = None,
) -> BatchResult:
    """Play whole episodes, all at once, writing token ids as the scalar encoder would.

    Finished games are dropped from the arrays as they end, so late ticks cost
    only what is still running. `observer(batch, games, resolution)` is called
    after every tick with the running games (before they are dropped): tests
    compare those states with the scalar engine's.
    """
    episodes = np.asarray(episodes, np.int64)
    codes = np.asarray(agent_codes, np.int64)
    n = len(episodes)
    table = TokenTable(config)
    w = table.word
    dropped = [i for i, (_, salience) in enumerate(_TICK_COLUMNS) if salience < codec.min_salience]
    dense = not any(_TICK_COLUMNS[i][0] in ("TICK", "INPUT", "MOVE") for i in dropped)
    log = _TokenLog(n)
    ticks = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    keys = episode_keys(seed, episodes)
    batch = SnakeBatch.initial(config, seed, episodes)
    games = np.arange(n)
    _write_keyframes(log, table, batch, games, games, bos=True)
    tick_key = tick_keys(keys, 0)
    for t in range(1, config.max_ticks + 1):
        if not len(batch):
            break
        pr = probe(batch)
        actions = agent_actions(batch, codes[games], keyed_draw(tick_key, rng.Purpose.AGENT), pr)
        res = resolve(batch, actions, pr)
        advance(batch, res)
        tick_key = tick_keys(keys[games], t)  # serves this tick's food and the next tick's agents
        outcome = res.outcome
        ate = np.flatnonzero(outcome == EAT)
        if ate.size:
            batch.food[ate] = spawn_food(batch, ate, keyed_draw(tick_key[ate], rng.Purpose.FOOD))
        dead = outcome >= DIE_WALL
        win = (outcome == EAT) & (batch.food < 0)
        timeout = ~dead & ~win & (t >= config.max_ticks)
        done = dead | win | timeout
        if observer is not None:
            observer(batch, games, res)

        plain = (outcome == MOVE) & ~done
        if dense and plain.any():  # most ticks of most games: TICK INPUT_d MOVE Xx Yy
            p = np.flatnonzero(plain)
            ids = np.empty((len(p), 5), table.dtype)
            ids[:, 0] = w["TICK"]
            ids[:, 1] = table.input[actions[p]]
            ids[:, 2] = w["MOVE"]
            ids[:, 3] = table.x[batch.head_x[p]]
            ids[:, 4] = table.y[batch.head_y[p]]
            log.write_dense(games[p], ids)
            rest = np.flatnonzero(~plain)
        else:
            rest = np.arange(len(batch))
        if rest.size:
            _write_tick(log, table, batch, rest, games[rest], actions[rest], outcome[rest], win[rest], timeout[rest], dropped)

        if done.any():
            d = np.flatnonzero(done)
            g = games[d]
            ticks[g] = t
            scores[g] = batch.score[d]
            end_of_outcome = np.where(outcome[d] == DIE_WALL, END_WALL, END_SELF)
            ends[g] = np.where(outcome[d] >= DIE_WALL, end_of_outcome, np.where(win[d], END_WIN, END_TIMEOUT))
        if codec.keyframe_after(t):
            live = np.flatnonzero(~done)
            _write_keyframes(log, table, batch, live, games[live])
        if done.any():
            keep = np.flatnonzero(~done)
            batch = batch.take(keep)
            games = games[keep]
            tick_key = tick_key[keep]
    tokens, lengths = log.assemble(table.dtype)
    return BatchResult(tokens, lengths, ticks, scores, ends)


def _write_tick(
    log: _TokenLog,
    t: TokenTable,
    batch: SnakeBatch,
    rows: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    outcome: np.ndarray,
    win: np.ndarray,
    timeout: np.ndarray,
    dropped: list[int],
) -> None:
    """The general path: every optional token of a tick, masked per game."""
    cfg = batch.config
    w = t.word
    m = len(rows)
    ids = np.zeros((m, len(_TICK_COLUMNS)), t.dtype)
    mask = np.zeros(ids.shape, bool)
    dead = outcome >= DIE_WALL
    eat = outcome == EAT
    alive = ~dead
    food = batch.food[rows]
    spawned = eat & (food >= 0)

    def put(name: str, value: np.ndarray | int, where: np.ndarray | bool) -> None:
        ids[:, _COL[name]] = value
        mask[:, _COL[name]] = where

    put("TICK", w["TICK"], True)
    put("INPUT", t.input[actions], True)
    put("DIE", np.where(outcome == DIE_WALL, w["DIE_WALL"], w["DIE_SELF"]), dead)
    put("EAT", w["EAT"], eat)
    put("MOVE", w["MOVE"], alive)
    put("MOVE_X", t.x[batch.head_x[rows]], alive)
    put("MOVE_Y", t.y[batch.head_y[rows]], alive)
    put("GROW", w["GROW"], eat)
    put("LEN", t.len[batch.length[rows]], eat)
    put("FOOD_SPAWN", w["FOOD_SPAWN"], spawned)
    put("SPAWN_X", t.x[np.where(spawned, food % cfg.width, 0)], spawned)
    put("SPAWN_Y", t.y[np.where(spawned, food // cfg.width, 0)], spawned)
    put("SCORE", w["SCORE"], eat)
    put("VALUE", t.value[batch.score[rows]], eat)
    put("WIN", w["WIN"], win)
    put("TIMEOUT", w["TIMEOUT"], timeout)
    put("EOS", w["EOS"], dead | win | timeout)
    mask[:, dropped] = False
    log.write(games, ids, mask)
