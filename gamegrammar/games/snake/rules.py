"""Snake: the one reference implementation of the rules.

The simulator, the codec's decoder and the evaluator's replay all go through
`resolve` and `advance`; nothing else in the project decides what a move does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum
from typing import ClassVar

from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Event, Salience
from gamegrammar.core.simulator import Simulator

Cell = tuple[int, int]


class Direction(IntEnum):
    U = 0
    D = 1
    L = 2
    R = 3

    @property
    def delta(self) -> Cell:
        return _DELTA[self]

    @property
    def opposite(self) -> Direction:
        return _OPPOSITE[self]


DIRECTIONS: tuple[Direction, ...] = tuple(Direction)  # iterating the Enum class itself costs a generator per pass
_DELTA = {Direction.U: (0, -1), Direction.D: (0, 1), Direction.L: (-1, 0), Direction.R: (1, 0)}
_OPPOSITE = {Direction.U: Direction.D, Direction.D: Direction.U, Direction.L: Direction.R, Direction.R: Direction.L}
_DIRECTION_OF_DELTA = {delta: d for d, delta in _DELTA.items()}
_LEGAL = {d: tuple(other for other in DIRECTIONS if other != _OPPOSITE[d]) for d in DIRECTIONS}


def direction_between(a: Cell, b: Cell) -> Direction:
    """The direction of the step from cell a to the adjacent cell b."""
    d = _DIRECTION_OF_DELTA.get((b[0] - a[0], b[1] - a[1]))
    if d is None:
        raise ValueError(f"cells {a} and {b} are not adjacent")
    return d


# Limits, so that a typo fails in one line rather than after minutes of allocating: the vocabulary has 2*W*H
# value tokens (ids must fit uint16), and the batch engine holds a W*H ring per game.
MAX_SIDE = 64
MAX_TICKS = 100_000


@dataclass(frozen=True)
class SnakeConfig:
    game: ClassVar[str] = "snake"
    # The help of each field is its command-line flag's (`generate --width`), with the game's default added there.
    width: int = field(default=10, metadata={"help": "board width in cells", "metavar": "W"})
    height: int = field(default=10, metadata={"help": "board height in cells", "metavar": "H"})
    max_ticks: int = field(default=200, metadata={"help": "ticks an episode may last; it ends in TIMEOUT there", "metavar": "N"})

    def __post_init__(self) -> None:
        for name in ("width", "height", "max_ticks"):
            if not isinstance(getattr(self, name), int) or isinstance(getattr(self, name), bool):
                raise GameGrammarError(f"{name} must be an integer, got {getattr(self, name)!r}")
        if not (4 <= self.width <= MAX_SIDE and 4 <= self.height <= MAX_SIDE):
            raise GameGrammarError(f"board must be between 4x4 and {MAX_SIDE}x{MAX_SIDE}, got {self.width}x{self.height}")
        if not 1 <= self.max_ticks <= MAX_TICKS:
            raise GameGrammarError(f"max_ticks must be between 1 and {MAX_TICKS}, got {self.max_ticks}")

    @property
    def cells(self) -> int:
        return self.width * self.height

    def in_bounds(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def next_to_wall(self, cell: Cell) -> bool:
        x, y = cell
        return x == 0 or y == 0 or x == self.width - 1 or y == self.height - 1

    def to_dict(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height, "max_ticks": self.max_ticks}


@dataclass(frozen=True)
class SnakeState:
    """Everything a keyframe shows: the state is rebuilt from it alone."""

    body: tuple[Cell, ...]  # head first
    direction: Direction
    food: Cell | None  # None only once the board is full
    score: int = 0
    tick: int = 0

    @property
    def head(self) -> Cell:
        return self.body[0]

    @property
    def length(self) -> int:
        return len(self.body)


class Outcome(Enum):
    MOVE = "MOVE"
    EAT = "EAT"
    DIE_WALL = "DIE_WALL"
    DIE_SELF = "DIE_SELF"


def legal_directions(direction: Direction) -> list[Direction]:
    """The three non-reversing directions, in Direction order."""
    return list(_LEGAL[direction])


def next_direction(current: Direction, requested: Direction) -> Direction:
    """An input opposite to the current direction is ignored."""
    return current if requested == current.opposite else requested


def resolve(state: SnakeState, config: SnakeConfig, action: Direction) -> tuple[Direction, Outcome, Cell]:
    """What the rules make of one input: the new direction, the outcome and the next head."""
    direction = state.direction if action == _OPPOSITE[state.direction] else action  # next_direction, inlined: the hot path
    dx, dy = _DELTA[direction]
    body = state.body
    x, y = body[0][0] + dx, body[0][1] + dy
    head = (x, y)
    if not (0 <= x < config.width and 0 <= y < config.height):
        return direction, Outcome.DIE_WALL, head
    if head == state.food:
        return direction, Outcome.EAT, head
    if head in body and (head != body[-1] or head in body[:-1]):  # the tail retracts first, so its cell is free
        return direction, Outcome.DIE_SELF, head
    return direction, Outcome.MOVE, head


def freed_cell(state: SnakeState, outcome: Outcome) -> Cell | None:
    """The cell the tail leaves on a tick with this outcome, from the state before it (the tail-events grammar writes it).

    On a MOVE, and on a DIE_SELF too: the tail retracts before the self-collision check (which is why the head may
    enter the cell it leaves), though a death then leaves the snake where it was. None on an eat (the snake grows)
    and on a wall death (checked before anything moves).
    """
    return state.body[-1] if outcome is Outcome.MOVE or outcome is Outcome.DIE_SELF else None


def body_neighbours(state: SnakeState) -> tuple[Direction, ...]:
    """The directions in which the head's neighbour is a body cell the head would die on, in Direction order.

    The tail's cell is not one: it retracts before the self-collision check. The sense grammar option writes these.
    """
    deadly = state.body[:-1]
    hx, hy = state.head
    return tuple(d for d in DIRECTIONS if (hx + _DELTA[d][0], hy + _DELTA[d][1]) in deadly)


def column_occupancy(body: tuple[Cell, ...], x: int, config: SnakeConfig) -> tuple[bool, ...]:
    """For each row of column x, top to bottom: is the snake on that cell? The spawn-column grammar option writes
    these after `FOOD_SPAWN Xx`, for the grown body the food spawns beside (the head on the eaten cell included)."""
    rows = {cy for cx, cy in body if cx == x}
    return tuple(y in rows for y in range(config.height))


def advance(state: SnakeState, direction: Direction, outcome: Outcome, head: Cell, food: Cell | None) -> SnakeState:
    """The state after a resolved tick; `food` is the spawned cell after an eat (None if the board is full)."""
    tick = state.tick + 1
    if outcome in (Outcome.DIE_WALL, Outcome.DIE_SELF):
        return replace(state, direction=direction, tick=tick)
    if outcome is Outcome.EAT:
        return SnakeState((head, *state.body), direction, food, state.score + 1, tick)
    return SnakeState((head, *state.body[:-1]), direction, state.food, state.score, tick)


def empty_cells(body: tuple[Cell, ...], config: SnakeConfig) -> list[Cell]:
    """Cells not on the body, row-major: the fixed order random spawns choose from."""
    occupied = set(body)
    return [(x, y) for y in range(config.height) for x in range(config.width) if (x, y) not in occupied]


def spawn_food(body: tuple[Cell, ...], config: SnakeConfig, seed: int, episode: int, tick: int) -> Cell | None:
    cells = empty_cells(body, config)
    if not cells:
        return None
    return cells[rng.choose(seed, episode, tick, rng.Purpose.FOOD, len(cells))]


def start_cell(config: SnakeConfig) -> Cell:
    """Where every episode starts: the head alone at (W//2, H//2), score 0 (the direction and the food are drawn)."""
    return config.width // 2, config.height // 2


def initial_state(config: SnakeConfig, seed: int, episode: int) -> SnakeState:
    head = start_cell(config)
    direction = Direction(rng.choose(seed, episode, 0, rng.Purpose.START_DIRECTION, 4))
    return SnakeState((head,), direction, spawn_food((head,), config, seed, episode, 0))


# Why an episode ends: every episode's last event is one of these (their order is the corpus index's end code).
END_REASONS = ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT")

# Every event of a tick: its salience and the entity it concerns. The one table (the grammar and the batch
# token writer read it too).
EVENTS: dict[str, tuple[Salience, str]] = {
    "TICK": (Salience.TICK, "game"),
    "INPUT": (Salience.MOVEMENT, "snake"),
    "DIE_WALL": (Salience.COLLISION, "snake"),
    "DIE_SELF": (Salience.COLLISION, "snake"),
    "EAT": (Salience.RULE_EFFECT, "snake"),
    "MOVE": (Salience.MOVEMENT, "snake"),
    "GROW": (Salience.RULE_EFFECT, "snake"),
    "FOOD_SPAWN": (Salience.RULE_EFFECT, "food"),
    "SCORE": (Salience.RULE_EFFECT, "game"),
    "WIN": (Salience.PHASE, "game"),
    "TIMEOUT": (Salience.PHASE, "game"),
    # The cell the tail leaves (`freed_cell`): not an event of `tick_events` but what the tail-events grammar option
    # writes before the outcome, derived from the state; its salience is a move's.
    "FREE": (Salience.MOVEMENT, "snake"),
}


def event(kind: str, tick: int, **payload: object) -> Event:
    """An event of this game, with its salience and entity from `EVENTS`."""
    salience, entity = EVENTS[kind]
    return Event(kind, tick, salience, entity, payload)


def end_reason(outcome: Outcome, board_full: bool, tick: int, config: SnakeConfig) -> str | None:
    """Why the episode ends after this tick, or None: a death, a full board after an eat (WIN), the tick limit."""
    if outcome in (Outcome.DIE_WALL, Outcome.DIE_SELF):
        return outcome.value
    if outcome is Outcome.EAT and board_full:
        return "WIN"
    return "TIMEOUT" if tick >= config.max_ticks else None


def tick_events(
    before: SnakeState, after: SnakeState, action: Direction, outcome: Outcome, config: SnakeConfig
) -> tuple[list[Event], str | None]:
    """The events of one tick, in grammar order, and the end reason if the episode ended."""
    t = after.tick
    end = end_reason(outcome, after.food is None, t, config)
    events = [event("TICK", t), event("INPUT", t, dir=action.name)]
    if outcome in (Outcome.DIE_WALL, Outcome.DIE_SELF):
        return [*events, event(outcome.value, t)], end
    if outcome is Outcome.EAT:
        events.append(event("EAT", t))
    events.append(event("MOVE", t, x=after.head[0], y=after.head[1]))
    if outcome is Outcome.EAT:
        events.append(event("GROW", t, length=after.length))
        if after.food is not None:
            events.append(event("FOOD_SPAWN", t, x=after.food[0], y=after.food[1]))
        events.append(event("SCORE", t, score=after.score))
    if end is not None:
        events.append(event(end, t))
    return events, end


class SnakeGame(Simulator[SnakeConfig, SnakeState]):
    """The scalar simulator: slow, obvious, and the reference every faster engine is tested against."""

    config_type = SnakeConfig

    def _start(self, seed: int, episode: int) -> SnakeState:
        return initial_state(self.config, seed, episode)

    def legal_actions(self, state: SnakeState | None = None) -> list[Direction]:
        return legal_directions((state or self.state).direction)

    def step(self, action: Direction) -> tuple[SnakeState, list[Event], bool]:
        before = self._state_before_step()
        action = action if type(action) is Direction else Direction(action)
        direction, outcome, head = resolve(before, self.config, action)
        food = None
        if outcome is Outcome.EAT:
            food = spawn_food((head, *before.body), self.config, self.seed, self.episode, before.tick + 1)
        self.state = advance(before, direction, outcome, head, food)
        events, self.end_reason = tick_events(before, self.state, action, outcome, self.config)
        self.done = self.end_reason is not None
        return self.state, events, self.done
