"""Battlesnake's standard rules: the one reference implementation (../shared/BATTLESNAKE.md, to the letter).

The simulator, the API's `step_board`, the grammar's decoder, the trace and the strict
evaluator's replay all go through `advance` (steps 2 to 5 of a turn: move, starvation,
feed, eliminate) and the food functions (step 6); nothing else decides what a turn does.

Coordinates are the API's: (0, 0) is the bottom-left cell, `U` is y + 1.

A turn, as the official engine runs it:
1. the game is over when at most one snake is left (two or more at the start) or none (one at the start);
2. every live snake moves at once: a new head, the last segment removed (a move straight back into
   the neck is not prevented: it is a self-collision);
3. every live snake loses 1 health;
4. every snake whose head is on food eats it: health back to 100, the last segment duplicated (the tail
   stays for a turn); several snakes on one food all eat; eaten food goes;
5. eliminations in two phases: out-of-health, then wall-collision (gone at once, no obstacle); then,
   simultaneously against the same board, snake-self-collision, snake-collision, head-collision
   (not longer than the other: the shorter dies, equal lengths both die; lengths after feeding);
6. food spawns: the shortfall below `minimum_food`, else one by the spawn chance (below), never on a live
   snake, on food, or on a cell next to a live snake's head.

Start. On square boards of at least 7x7: the corner and edge-midpoint groups of BATTLESNAKE.md
(each shuffled, a coin for which group goes first), three segments stacked, health 100; food on a
diagonal neighbour of each start cell away from the centre (not the centre, not a board corner, not
food already; none of these on boards under 11x11 with more than 4 snakes), then the centre if free.
On other boards (not square, or smaller than 7x7) we do what the official engine does there: each
snake on a random cell with x + y even that is neither the centre nor taken, and one random food per
snake on cells that are not a snake, not food and not next to a head. A config whose board has no
room for its snakes that way is refused with a one-line error.

Randomness is counter-based (`gamegrammar.core.rng`): every draw is a pure function of (seed, episode,
tick, purpose); the purposes of this game are `Draw` (above `rng.Purpose`), a sub-index k folded in
as `purpose + (k << 8)`. "Uniform among k candidates" is the (hash mod k)-th in a fixed order
(row-major from the bottom-left for cells).

The spawn chance is the official engine's by default: its standard map spawns when
`100 - rand.Intn(100) < food_spawn_chance`, a chance of (food_spawn_chance - 1)% (15 gives 14%, 100 gives 99%,
1 never spawns). `exact_spawn_chance=True` (`generate --exact-spawn-chance true`) spawns with exactly
`food_spawn_chance`% instead, as BATTLESNAKE.md words the setting (and as corpora before this option were written).
`spawn_hit` is the one place either is decided; `spawn_percent` is the chance it gives.

Why an episode ends (`END_REASONS`, the corpus index's end codes): WIN (one snake left of two or
more), DRAW (none left of two or more), DEATH (a one-snake game's snake is gone), TIMEOUT (the tick
limit `max_ticks` reached with the game undecided). A game decided on the last tick ends with the
decision, not TIMEOUT.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import ClassVar, TypeVar

from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Event, Salience
from gamegrammar.core.simulator import Simulator

Cell = tuple[int, int]
T = TypeVar("T")  # an int, or a NumPy array of them (`spawn_hit` serves both engines)

MAX_HEALTH = 100
START_LENGTH = 3
MAX_SNAKES = 8
# Limits, so that a typo fails in one line rather than after minutes of allocating (the official boards go to 25x25).
MAX_SIDE = 25
MAX_TICKS = 100_000
FIXED_MIN_SIZE = 7  # square boards from 7x7 use the fixed start cells
MEDIUM_CELLS = 11 * 11  # smaller boards with more than 4 snakes get only the centre food


class Move(IntEnum):
    U = 0
    D = 1
    L = 2
    R = 3

    @property
    def delta(self) -> Cell:
        return _DELTA[self]

    @property
    def opposite(self) -> Move:
        return _OPPOSITE[self]

    @property
    def word(self) -> str:
        """The API's word for the move: "up", "down", "left", "right"."""
        return _WORD[self]


_DELTA = {Move.U: (0, 1), Move.D: (0, -1), Move.L: (-1, 0), Move.R: (1, 0)}
_OPPOSITE = {Move.U: Move.D, Move.D: Move.U, Move.L: Move.R, Move.R: Move.L}
_WORD = {Move.U: "up", Move.D: "down", Move.L: "left", Move.R: "right"}
MOVE_OF_WORD = {word: move for move, word in _WORD.items()}


def step(cell: Cell, move: Move) -> Cell:
    dx, dy = _DELTA[move]
    return cell[0] + dx, cell[1] + dy


def neighbours(cell: Cell) -> list[Cell]:
    """The four cells next to `cell` (some may be off the board), in Move order."""
    x, y = cell
    return [(x, y + 1), (x, y - 1), (x - 1, y), (x + 1, y)]


def move_between(a: Cell, b: Cell) -> Move | None:
    """The move from cell a to cell b, None when they are not adjacent."""
    for move, (dx, dy) in _DELTA.items():
        if (a[0] + dx, a[1] + dy) == b:
            return move
    return None


def default_move(body: Sequence[Cell]) -> Move:
    """What a snake does without a valid move word: it continues from its neck to its head; up without a distinct neck."""
    if len(body) >= 2:
        move = move_between(body[1], body[0])
        if move is not None:
            return move
    return Move.U


def row_major(cell: Cell) -> tuple[int, int]:
    """Sort key of cells: row by row from the bottom-left (y, then x)."""
    return cell[1], cell[0]


# ---------------------------------------------------------------- causes and randomness

OUT_OF_HEALTH = "out-of-health"
WALL_COLLISION = "wall-collision"
SELF_COLLISION = "snake-self-collision"
BODY_COLLISION = "snake-collision"
HEAD_COLLISION = "head-collision"
CAUSES = (OUT_OF_HEALTH, WALL_COLLISION, SELF_COLLISION, BODY_COLLISION, HEAD_COLLISION)


class Draw(IntEnum):
    """This game's random-draw purposes, above `rng.Purpose` (a sub-index k is added as k << 8)."""

    START_CORNERS = 16
    START_EDGES = 17
    START_ORDER = 18
    START_RANDOM = 19
    START_FOOD = 20
    FOOD_CHANCE = 21
    FOOD_CELL = 22
    AGENT_MOVE = 23


def purpose(base: int, k: int = 0) -> int:
    return int(base) + (k << 8)


# ---------------------------------------------------------------- config


@dataclass(frozen=True)
class BattlesnakeConfig:
    """A standard game: board size, number of snakes, the standard map's food settings, the corpus tick limit."""

    game: ClassVar[str] = "battlesnake"
    # The help of each field is its command-line flag's (`generate --num-snakes`), with the game's default added there.
    width: int = field(default=11, metadata={"help": "board width in cells", "metavar": "W"})
    height: int = field(default=11, metadata={"help": "board height in cells", "metavar": "H"})
    num_snakes: int = field(default=4, metadata={"help": "snakes on the board, each played by an agent", "metavar": "N"})
    minimum_food: int = field(
        default=1, metadata={"help": "food always on the board: a tick with less spawns the shortfall", "metavar": "N"}
    )
    food_spawn_chance: int = field(
        default=15, metadata={"help": "percent chance of one more food in a tick that has the minimum", "metavar": "PCT"}
    )
    max_ticks: int = field(default=300, metadata={"help": "ticks an episode may last; it ends in TIMEOUT there", "metavar": "N"})
    exact_spawn_chance: bool = field(
        default=False,
        metadata={
            "help": "true: one more food with exactly PCT percent chance; false: the official engine's draw, PCT - 1 percent",
            "metavar": "BOOL",
        },
    )

    def __post_init__(self) -> None:
        for name in ("width", "height", "num_snakes", "minimum_food", "food_spawn_chance", "max_ticks"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise GameGrammarError(f"{name} must be an integer, got {value!r}")
        if not isinstance(self.exact_spawn_chance, bool):
            raise GameGrammarError(f"exact_spawn_chance must be true or false, got {self.exact_spawn_chance!r}")
        if not (1 <= self.width <= MAX_SIDE and 1 <= self.height <= MAX_SIDE):
            raise GameGrammarError(f"board must be between 1x1 and {MAX_SIDE}x{MAX_SIDE}, got {self.width}x{self.height}")
        if not 1 <= self.num_snakes <= MAX_SNAKES:
            raise GameGrammarError(f"num_snakes must be between 1 and {MAX_SNAKES}, got {self.num_snakes}")
        if self.minimum_food < 0:
            raise GameGrammarError(f"minimum_food must be >= 0, got {self.minimum_food}")
        if not 0 <= self.food_spawn_chance <= 100:
            raise GameGrammarError(f"food_spawn_chance must be a percentage between 0 and 100, got {self.food_spawn_chance}")
        if not 1 <= self.max_ticks <= MAX_TICKS:
            raise GameGrammarError(f"max_ticks must be between 1 and {MAX_TICKS}, got {self.max_ticks}")
        room = start_room(self.width, self.height)
        if self.num_snakes > room:
            raise GameGrammarError(
                f"board {self.width}x{self.height} is too small for {self.num_snakes} snakes (room for {room} start cells)"
            )

    @property
    def cells(self) -> int:
        return self.width * self.height

    @property
    def spawn_percent(self) -> int:
        """The percent chance of a spawn above the minimum: `food_spawn_chance`, one less by the official draw."""
        return self.food_spawn_chance if self.exact_spawn_chance else max(self.food_spawn_chance - 1, 0)

    @property
    def centre(self) -> Cell:
        return (self.width - 1) // 2, (self.height - 1) // 2

    @property
    def fixed_start(self) -> bool:
        """Square boards of at least 7x7 use the fixed start cells; others the official random placement."""
        return self.width == self.height and self.width >= FIXED_MIN_SIZE

    @property
    def max_length(self) -> int:
        """No snake can be longer: every segment but a stacked tail (at most two extra) is a cell of its own."""
        return self.cells + START_LENGTH - 1

    def in_bounds(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def to_dict(self) -> dict[str, int]:
        return {
            "width": self.width,
            "height": self.height,
            "num_snakes": self.num_snakes,
            "minimum_food": self.minimum_food,
            "food_spawn_chance": self.food_spawn_chance,
            "max_ticks": self.max_ticks,
            "exact_spawn_chance": self.exact_spawn_chance,
        }


def _even_start_cells(width: int, height: int) -> list[Cell]:
    """The random placement's cells: x + y even, not the centre, row-major."""
    centre = ((width - 1) // 2, (height - 1) // 2)
    return [(x, y) for y in range(height) for x in range(width) if (x + y) % 2 == 0 and (x, y) != centre]


def start_room(width: int, height: int) -> int:
    """How many snakes a board can start."""
    if width == height and width >= FIXED_MIN_SIZE:
        return MAX_SNAKES
    return len(_even_start_cells(width, height))


# ---------------------------------------------------------------- state


@dataclass(frozen=True)
class Snake:
    """One snake: its body head first, its health, and why it was eliminated ("" while it is alive)."""

    body: tuple[Cell, ...]
    health: int = MAX_HEALTH
    cause: str = ""
    id: str = ""
    name: str = ""

    @property
    def head(self) -> Cell:
        return self.body[0]

    @property
    def length(self) -> int:
        return len(self.body)

    @property
    def alive(self) -> bool:
        return not self.cause


@dataclass(frozen=True)
class BattlesnakeState:
    """Everything a keyframe shows: every snake (eliminated ones keep their last body), the food, the tick.

    Food is kept sorted row-major, so equal boards are equal states whatever order the food came in.
    """

    snakes: tuple[Snake, ...]
    food: tuple[Cell, ...]
    tick: int = 0

    @property
    def alive(self) -> tuple[int, ...]:
        return tuple(k for k, s in enumerate(self.snakes) if s.alive)


def sorted_food(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    return tuple(sorted(set(cells), key=row_major))


def snake_id(k: int) -> str:
    return f"S{k}"


@dataclass(frozen=True)
class Turn:
    """What steps 2 to 5 of one turn did, for the snakes alive before it (`movers`, by index).

    moves: the move each mover made (after the default-move rule); heads: its new head (possibly off
    the board); ate: whether it ate; freed: the cell its tail left (None when the tail stays: a stacked
    tail); eliminated: snake index -> cause, by index.
    """

    movers: tuple[int, ...]
    moves: tuple[Move, ...]
    heads: tuple[Cell, ...]
    ate: tuple[bool, ...]
    freed: tuple[Cell | None, ...]
    eliminated: dict[int, str]


# ---------------------------------------------------------------- a turn


def advance(state: BattlesnakeState, moves: Sequence[Move | None], config: BattlesnakeConfig) -> tuple[BattlesnakeState, Turn]:
    """Steps 2 to 5 of a turn (move, starvation, feed, eliminate): the state before food spawns, tick + 1.

    `moves` holds one entry per snake, by index; entries of eliminated snakes are ignored, and None
    (no valid move word) makes a snake continue along its neck.
    """
    snakes = list(state.snakes)
    movers = state.alive
    applied, heads, freed = [], [], []
    for k in movers:
        s = snakes[k]
        move = moves[k] if k < len(moves) else None
        move = default_move(s.body) if move is None else Move(move)
        head = step(s.head, move)
        body = s.body
        freed.append(body[-1] if len(body) == 1 or body[-1] != body[-2] else None)
        snakes[k] = Snake((head, *body[:-1]), s.health - 1, "", s.id, s.name)
        applied.append(move)
        heads.append(head)
    # feed: every mover whose head is on food eats; the food goes
    food = set(state.food)
    ate = []
    eaten = set()
    for k, head in zip(movers, heads):
        if head in food:
            s = snakes[k]
            snakes[k] = Snake((*s.body, s.body[-1]), MAX_HEALTH, "", s.id, s.name)
            eaten.add(head)
            ate.append(True)
        else:
            ate.append(False)
    food -= eaten
    eliminated = eliminations(snakes, movers, config)
    for k, cause in eliminated.items():
        s = snakes[k]
        snakes[k] = Snake(s.body, s.health, cause, s.id, s.name)
    after = BattlesnakeState(tuple(snakes), sorted_food(food), state.tick + 1)
    return after, Turn(movers, tuple(applied), tuple(heads), tuple(ate), tuple(freed), eliminated)


def eliminations(snakes: Sequence[Snake], movers: Sequence[int], config: BattlesnakeConfig) -> dict[int, str]:
    """Step 5 on bodies that have moved and fed: snake index -> cause, in index order."""
    out: dict[int, str] = {}
    for k in movers:
        s = snakes[k]
        if s.health <= 0:
            out[k] = OUT_OF_HEALTH
        elif not config.in_bounds(s.head):  # "any segment off the board": only the new head can be, the rest was on it
            out[k] = WALL_COLLISION
    remaining = [k for k in movers if k not in out]
    collided: dict[int, str] = {}
    for k in remaining:
        s = snakes[k]
        head = s.head
        if head in s.body[1:]:
            collided[k] = SELF_COLLISION
        elif any(head in snakes[j].body[1:] for j in remaining if j != k):
            collided[k] = BODY_COLLISION
        elif any(head == snakes[j].head and s.length <= snakes[j].length for j in remaining if j != k):
            collided[k] = HEAD_COLLISION
    out.update(collided)
    return dict(sorted(out.items()))


# ---------------------------------------------------------------- food


def spawn_cells(state: BattlesnakeState, config: BattlesnakeConfig) -> list[Cell]:
    """Cells food may spawn on, row-major: not food, not a live snake, not next to a live snake's head."""
    blocked = set(state.food)
    for s in state.snakes:
        if s.alive:
            blocked.update(s.body)
            blocked.update(neighbours(s.head))
    return [(x, y) for y in range(config.height) for x in range(config.width) if (x, y) not in blocked]


def spawn_range(state: BattlesnakeState, config: BattlesnakeConfig, allowed: int) -> tuple[int, int]:
    """(fewest, most) food the standard map spawns on this board when `allowed` cells are open to it."""
    shortfall = config.minimum_food - len(state.food)
    if shortfall > 0:
        n = min(shortfall, allowed)
        return n, n
    if config.spawn_percent <= 0 or allowed == 0:
        return 0, 0
    return (1, 1) if config.spawn_percent >= 100 else (0, 1)


def spawn_hit(roll: T, config: BattlesnakeConfig) -> T:
    """Does a FOOD_CHANCE roll in 0..99 (an int, or an array of them) spawn one food above the minimum? The official
    engine's test, `100 - roll < food_spawn_chance`, unless `exact_spawn_chance` (`roll < food_spawn_chance`)."""
    if config.exact_spawn_chance:
        return roll < config.food_spawn_chance  # type: ignore[operator,return-value]
    return 100 - roll < config.food_spawn_chance  # type: ignore[operator,return-value]


def draw_spawns(state: BattlesnakeState, config: BattlesnakeConfig, seed: int, episode: int) -> tuple[Cell, ...]:
    """Step 6 with the (seed, episode, state.tick) draws: the cells food spawns on, in spawn order."""
    cells = spawn_cells(state, config)
    shortfall = config.minimum_food - len(state.food)
    tick = state.tick
    if shortfall > 0:
        n = min(shortfall, len(cells))
    elif config.spawn_percent > 0 and spawn_hit(rng.choose(seed, episode, tick, Draw.FOOD_CHANCE, 100), config):
        n = min(1, len(cells))
    else:
        n = 0
    out = []
    for j in range(n):
        out.append(cells.pop(rng.choose(seed, episode, tick, purpose(Draw.FOOD_CELL, j), len(cells))))
    return tuple(out)


def with_food(state: BattlesnakeState, cells: Iterable[Cell]) -> BattlesnakeState:
    return replace(state, food=sorted_food((*state.food, *cells)))


# ---------------------------------------------------------------- start


def fixed_start_groups(config: BattlesnakeConfig) -> tuple[list[Cell], list[Cell]]:
    """The corner and edge-midpoint start cells of a square board, unshuffled."""
    mn, md, mx = 1, (config.width - 1) // 2, config.width - 2
    corners = [(mn, mn), (mn, mx), (mx, mn), (mx, mx)]
    edges = [(mn, md), (md, mn), (md, mx), (mx, md)]
    return corners, edges


def _shuffle(cells: list[Cell], seed: int, episode: int, base: int) -> list[Cell]:
    """Fisher-Yates with one keyed draw per swap."""
    out = list(cells)
    for i in range(len(out) - 1, 0, -1):
        j = rng.choose(seed, episode, 0, purpose(base, i), i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def start_heads(config: BattlesnakeConfig, seed: int, episode: int) -> list[Cell]:
    """Each snake's start cell, by index."""
    n = config.num_snakes
    if config.fixed_start:
        corners, edges = fixed_start_groups(config)
        corners = _shuffle(corners, seed, episode, Draw.START_CORNERS)
        edges = _shuffle(edges, seed, episode, Draw.START_EDGES)
        order = corners + edges if rng.choose(seed, episode, 0, Draw.START_ORDER, 2) == 0 else edges + corners
        return order[:n]
    cells = _even_start_cells(config.width, config.height)
    heads = []
    for k in range(n):
        heads.append(cells.pop(rng.choose(seed, episode, 0, purpose(Draw.START_RANDOM, k), len(cells))))
    return heads


def diagonal_food_cells(head: Cell, food: Iterable[Cell], config: BattlesnakeConfig) -> list[Cell]:
    """Where a snake's start food may go: a diagonal neighbour further from the centre on some axis, not the
    centre, not a board corner, not food already."""
    cx, cy = config.centre
    x, y = head
    taken = set(food)
    out = []
    for p in [(x - 1, y - 1), (x - 1, y + 1), (x + 1, y - 1), (x + 1, y + 1)]:
        if p == (cx, cy) or p in taken:
            continue
        away = (p[0] < x < cx) or (cx < x < p[0]) or (p[1] < y < cy) or (cy < y < p[1])
        corner = p[0] in (0, config.width - 1) and p[1] in (0, config.height - 1)
        if away and not corner:
            out.append(p)
    return out


def centre_food_only(config: BattlesnakeConfig) -> bool:
    """Boards smaller than 11x11 with more than 4 snakes get only the centre food."""
    return config.num_snakes > 4 and config.cells < MEDIUM_CELLS


def initial_state(config: BattlesnakeConfig, seed: int, episode: int) -> BattlesnakeState:
    heads = start_heads(config, seed, episode)
    snakes = tuple(Snake((h,) * START_LENGTH, MAX_HEALTH, "", snake_id(k)) for k, h in enumerate(heads))
    food: list[Cell] = []
    if config.fixed_start:
        if not centre_food_only(config):
            for k, head in enumerate(heads):
                options = diagonal_food_cells(head, food, config)
                if options:  # never empty on the boards the fixed start serves; skipped rather than failed
                    food.append(options[rng.choose(seed, episode, 0, purpose(Draw.START_FOOD, k), len(options))])
        if config.centre not in food and config.centre not in heads:
            food.append(config.centre)
    else:
        state = BattlesnakeState(snakes, ())
        for k in range(config.num_snakes):
            cells = spawn_cells(with_food(state, food), config)
            if cells:
                food.append(cells[rng.choose(seed, episode, 0, purpose(Draw.START_FOOD, k), len(cells))])
    return BattlesnakeState(snakes, sorted_food(food), 0)


def start_head_options(heads: Sequence[Cell], config: BattlesnakeConfig) -> list[Cell]:
    """The cells `start_heads` draws snake len(heads)'s start cell from, each equally likely, given the earlier
    snakes' (`heads`): on a fixed start the eight corner and edge cells for the first snake (a group drawn by a coin,
    a cell by its shuffle), then what its group has left up to the fourth, then what the other group has left."""
    if not config.fixed_start:
        return [c for c in _even_start_cells(config.width, config.height) if c not in heads]
    corners, edges = fixed_start_groups(config)
    if not heads:
        return corners + edges
    first = corners if heads[0] in corners else edges
    group = first if len(heads) < 4 else (edges if first is corners else corners)
    return [c for c in group if c not in heads]


def start_food_outcomes(heads: Sequence[Cell], config: BattlesnakeConfig) -> dict[tuple[Cell, ...], float]:
    """Every food a fixed start can place for snakes starting on `heads` (as a keyframe writes it: `sorted_food`),
    with its probability: `initial_state`'s draws, one uniform diagonal cell per snake in turn, then the centre."""
    if not config.fixed_start:
        raise ValueError("the random start's food is not enumerated (min(snakes, open cells) uniform draws)")
    centre = [config.centre] if config.centre not in heads else []
    outcomes: dict[tuple[Cell, ...], float] = {}

    def place(k: int, placed: list[Cell], p: float) -> None:
        if k == len(heads) or centre_food_only(config):
            food = sorted_food([*placed, *centre])
            outcomes[food] = outcomes.get(food, 0.0) + p
            return
        options = diagonal_food_cells(heads[k], placed, config)
        if not options:  # as initial_state: skipped
            place(k + 1, placed, p)
        for cell in options:
            place(k + 1, [*placed, cell], p / len(options))

    place(0, [], 1.0)
    return outcomes


def bad_start_head(heads: Sequence[Cell], config: BattlesnakeConfig) -> int | None:
    """The index of the first snake whose start cell the start rules could not have given it; None if all could.

    Fixed starts: the first four snakes from one group (corners or edge midpoints), the rest from the
    other, all distinct. Random starts: distinct cells with x + y even, not the centre.
    """
    seen: set[Cell] = set()
    if config.fixed_start:
        corners, edges = fixed_start_groups(config)
        first = corners if heads and heads[0] in corners else edges
        second = edges if first is corners else corners
        for k, head in enumerate(heads):
            if head in seen or head not in (first if k < 4 else second):
                return k
            seen.add(head)
        return None
    allowed = set(_even_start_cells(config.width, config.height))
    for k, head in enumerate(heads):
        if head in seen or head not in allowed:
            return k
        seen.add(head)
    return None


def start_food_possible(heads: Sequence[Cell], food: Sequence[Cell], config: BattlesnakeConfig) -> bool:
    """Could the start rules place exactly this food (in any order) for snakes starting on `heads`?"""
    if config.fixed_start:
        return _fixed_food_possible(list(heads), tuple(food), config)
    snakes = tuple(Snake((h,) * START_LENGTH) for h in heads)
    return _random_food_possible(BattlesnakeState(snakes, tuple(food)), config)


def _fixed_food_possible(heads: list[Cell], food: tuple[Cell, ...], config: BattlesnakeConfig) -> bool:
    """Can the fixed start food rules produce exactly `food` (a set) from these start cells?"""
    want = set(food)
    if len(want) != len(food):
        return False
    centre = config.centre if config.centre not in heads else None

    def place(k: int, placed: list[Cell]) -> bool:
        if k == len(heads):
            return set(placed) | ({centre} if centre is not None else set()) == want
        options = diagonal_food_cells(heads[k], placed, config)
        if not options:
            return place(k + 1, placed)
        return any(p in want and place(k + 1, [*placed, p]) for p in options)

    if centre_food_only(config):
        return want == ({centre} if centre is not None else set())
    return place(0, [])


def _random_food_possible(state: BattlesnakeState, config: BattlesnakeConfig) -> bool:
    """Random start food: min(snakes, open cells) food, each on a cell open to spawns (order does not matter)."""
    open_cells = set(spawn_cells(replace(state, food=()), config))
    food = state.food
    return len(set(food)) == len(food) and set(food) <= open_cells and len(food) == min(len(state.snakes), len(open_cells))


# ---------------------------------------------------------------- ends and events

END_REASONS = ("WIN", "DRAW", "DEATH", "TIMEOUT")


def decided(alive: int, config: BattlesnakeConfig) -> str | None:
    """The end a game with `alive` snakes left has reached (WIN, DRAW or DEATH), or None while it goes on."""
    if config.num_snakes >= 2:
        if alive == 1:
            return "WIN"
        return "DRAW" if alive == 0 else None
    return "DEATH" if alive == 0 else None


def end_reason(state: BattlesnakeState, config: BattlesnakeConfig) -> str | None:
    """Why the episode ends after the tick that led to `state`, or None: the game decided, else the tick limit."""
    end = decided(len(state.alive), config)
    if end is None and state.tick >= config.max_ticks:
        return "TIMEOUT"
    return end


def final_length(state: BattlesnakeState, last_eliminated: Iterable[int]) -> int:
    """An episode's score: the length of the longest snake left standing; when none is, of the longest of those
    eliminated on the last tick (the winner's length after a WIN, the tied snakes' after a DRAW)."""
    standing = [s.length for s in state.snakes if s.alive]
    if not standing:
        standing = [state.snakes[k].length for k in last_eliminated]
    return max(standing, default=0)


# Every event of a tick: its salience and the entity kind it concerns (per-snake events carry `snake` in
# their payload). The one table (the grammar reads it too).
EVENTS: dict[str, tuple[Salience, str]] = {
    "TICK": (Salience.TICK, "game"),
    "INPUT": (Salience.MOVEMENT, "snake"),
    "MOVE": (Salience.MOVEMENT, "snake"),
    "OUT": (Salience.MOVEMENT, "snake"),
    "EAT": (Salience.RULE_EFFECT, "snake"),
    "DIE": (Salience.COLLISION, "snake"),
    "SPAWN": (Salience.RULE_EFFECT, "food"),
    "WIN": (Salience.PHASE, "game"),
    "DRAW": (Salience.PHASE, "game"),
    "DEATH": (Salience.PHASE, "game"),
    "TIMEOUT": (Salience.PHASE, "game"),
}


def event(kind: str, tick: int, **payload: object) -> Event:
    """An event of this game, with its salience and entity from `EVENTS`."""
    salience, entity = EVENTS[kind]
    return Event(kind, tick, salience, entity, payload)


def tick_events(
    inputs: Sequence[Move | None], after: BattlesnakeState, turn: Turn, spawned: Sequence[Cell], end: str | None, config: BattlesnakeConfig
) -> list[Event]:
    """The events of one tick, in grammar order: TICK; per mover INPUT, MOVE or OUT, [EAT]; DIE by index;
    SPAWN in spawn order; the end event."""
    t = after.tick
    out = [event("TICK", t)]
    for j, k in enumerate(turn.movers):
        given = inputs[k] if k < len(inputs) and inputs[k] is not None else turn.moves[j]
        out.append(event("INPUT", t, snake=k, move=Move(given).name))
        head = turn.heads[j]
        if config.in_bounds(head):
            out.append(event("MOVE", t, snake=k, x=head[0], y=head[1]))
        else:
            out.append(event("OUT", t, snake=k))
        if turn.ate[j]:
            out.append(event("EAT", t, snake=k, length=after.snakes[k].length, health=MAX_HEALTH))
    out += [event("DIE", t, snake=k, cause=cause) for k, cause in turn.eliminated.items()]
    out += [event("SPAWN", t, x=x, y=y) for x, y in spawned]
    if end is not None:
        out.append(event(end, t))
    return out


# ---------------------------------------------------------------- the simulator


class BattlesnakeGame(Simulator[BattlesnakeConfig, BattlesnakeState]):
    """The scalar simulator: slow, obvious, and the reference every faster engine is tested against.

    `step(actions)` takes one action per snake, by index (a `Move`; entries of eliminated snakes are
    ignored and may be None).
    """

    config_type = BattlesnakeConfig

    def __init__(self, config: BattlesnakeConfig | None = None, state: BattlesnakeState | None = None) -> None:
        super().__init__(config, state)
        self.last_turn: Turn | None = None

    def reset(self, seed: int, episode: int = 0) -> BattlesnakeState:
        self.last_turn = None
        return super().reset(seed, episode)

    def _start(self, seed: int, episode: int) -> BattlesnakeState:
        return initial_state(self.config, seed, episode)

    def legal_actions(self, state: BattlesnakeState | None = None) -> list[list[Move]]:
        """Per snake: every move for a live snake (moving back into the neck is allowed, and fatal), none for the others."""
        state = state or self.state
        assert state is not None
        return [list(Move) if s.alive else [] for s in state.snakes]

    def step(self, actions: Sequence[Move | int | None]) -> tuple[BattlesnakeState, list[Event], bool]:
        before = self._state_before_step()
        if len(actions) != len(before.snakes):
            raise ValueError(f"one action per snake: {len(before.snakes)} expected, got {len(actions)}")
        inputs = [None if a is None else Move(a) for a in actions]
        for k in before.alive:
            if inputs[k] is None:
                raise ValueError(f"no move for live snake {k}")
        after, turn = advance(before, inputs, self.config)
        spawned = draw_spawns(after, self.config, self.seed, self.episode)
        self.state = with_food(after, spawned)
        self.end_reason = end_reason(self.state, self.config)
        self.done = self.end_reason is not None
        self.last_turn = turn
        return self.state, tick_events(inputs, self.state, turn, spawned, self.end_reason, self.config), self.done
