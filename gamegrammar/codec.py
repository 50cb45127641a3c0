"""Token grammar v1: the one place that knows how events and states are written as tokens.

Encoding turns a game's events and states into token strings; `parse` reads
them back, element by element with token positions, and raises `GrammarError`
at the first token the grammar does not allow. Decoding and the evaluator both
use `parse`, so there is no second copy of the grammar.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gamegrammar.errors import GameGrammarError
from gamegrammar.events import Event, Salience
from gamegrammar.games.snake import Cell, Direction, SnakeConfig, SnakeState

SPECIAL_TOKENS = ["PAD", "UNK", "BOS", "EOS"]
END_EVENTS = ("DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT")
_WORDS = ["TICK", "SNAP", "PLAYER", "BODY", "FOOD", "SCORE", "MOVE", "EAT", "GROW", "FOOD_SPAWN", *END_EVENTS]
_DIRS = [d.name for d in Direction]
_BODY_TOKEN = {d: f"B_{d.name}" for d in Direction}
_BODY_DIRECTION = {token: d for d, token in _BODY_TOKEN.items()}
_SALIENCE = {
    "TICK": Salience.TICK,
    "INPUT": Salience.MOVEMENT,
    "MOVE": Salience.MOVEMENT,
    "DIE_WALL": Salience.COLLISION,
    "DIE_SELF": Salience.COLLISION,
    "EAT": Salience.RULE_EFFECT,
    "GROW": Salience.RULE_EFFECT,
    "FOOD_SPAWN": Salience.RULE_EFFECT,
    "SCORE": Salience.RULE_EFFECT,
    "WIN": Salience.PHASE,
    "TIMEOUT": Salience.PHASE,
}
_ENTITY = {"TICK": "game", "FOOD_SPAWN": "food", "SCORE": "game", "WIN": "game", "TIMEOUT": "game"}


@dataclass(frozen=True)
class CodecConfig:
    """keyframe_interval K: a keyframe at tick 0 and after every K-th tick (0 = only the first).
    min_salience: events below it are dropped (summary grammars; the strict evaluator needs 0)."""

    keyframe_interval: int = 0
    min_salience: int = Salience.TICK

    def __post_init__(self) -> None:
        if self.keyframe_interval < 0:
            raise GameGrammarError(f"keyframe_interval must be >= 0, got {self.keyframe_interval}")
        if not Salience.TICK <= self.min_salience <= Salience.PHASE:
            raise GameGrammarError(f"min_salience must be between 0 and 4, got {self.min_salience}")

    def keyframe_after(self, tick: int) -> bool:
        return self.keyframe_interval > 0 and tick % self.keyframe_interval == 0

    def to_dict(self) -> dict[str, int]:
        return {"keyframe_interval": self.keyframe_interval, "min_salience": int(self.min_salience)}


def vocabulary(config: SnakeConfig) -> list[str]:
    """Every token of grammar v1 for this board; values are exact, never capped."""
    return [
        *SPECIAL_TOKENS,
        *_WORDS,
        *(f"INPUT_{d}" for d in _DIRS),
        *(f"DIR_{d}" for d in _DIRS),
        *_BODY_TOKEN.values(),
        *(f"X{x}" for x in range(config.width)),
        *(f"Y{y}" for y in range(config.height)),
        *(f"LEN{n}" for n in range(1, config.cells + 1)),
        *(f"V{s}" for s in range(config.cells)),
    ]


# ---------------------------------------------------------------- encoding


def keyframe_tokens(state: SnakeState) -> list[str]:
    x, y = state.head
    tokens = ["SNAP", "PLAYER", f"X{x}", f"Y{y}", f"DIR_{state.direction.name}", f"LEN{state.length}", "BODY"]
    for (ax, ay), (bx, by) in zip(state.body, state.body[1:]):
        tokens.append(_BODY_TOKEN[_step_direction(bx - ax, by - ay)])
    tokens.append("FOOD")
    if state.food is not None:
        tokens += [f"X{state.food[0]}", f"Y{state.food[1]}"]
    tokens += ["SCORE", f"V{state.score}"]
    return tokens


def _step_direction(dx: int, dy: int) -> Direction:
    for d in Direction:
        if d.delta == (dx, dy):
            return d
    raise ValueError(f"body segments are not adjacent: step ({dx}, {dy})")


def event_tokens(event: Event) -> list[str]:
    p = event.payload
    if event.type == "INPUT":
        return [f"INPUT_{p['dir']}"]
    if event.type in ("MOVE", "FOOD_SPAWN"):
        return [event.type, f"X{p['x']}", f"Y{p['y']}"]
    if event.type == "GROW":
        return ["GROW", f"LEN{p['length']}"]
    if event.type == "SCORE":
        return ["SCORE", f"V{p['score']}"]
    return [event.type]


class EpisodeEncoder:
    """Streams one episode into tokens: `start(state)`, then `tick(events, state_after, done)`."""

    def __init__(self, codec: CodecConfig | None = None) -> None:
        self.codec = codec or CodecConfig()
        self.tokens: list[str] = []

    def start(self, state: SnakeState) -> None:
        self.tokens = ["BOS", *keyframe_tokens(state)]

    def tick(self, events: Sequence[Event], state: SnakeState, done: bool) -> None:
        for event in events:
            if event.salience >= self.codec.min_salience:
                self.tokens += event_tokens(event)
        if done:
            self.tokens.append("EOS")
        elif self.codec.keyframe_after(state.tick):
            self.tokens += keyframe_tokens(state)


# ---------------------------------------------------------------- parsing


class GrammarError(ValueError):
    """The token at `index` is not allowed by grammar v1."""

    def __init__(self, index: int, message: str, at_end: bool = False) -> None:
        super().__init__(f"token {index}: {message}")
        self.index = index
        self.message = message
        self.at_end = at_end  # the sequence stopped mid-element: cut off, not malformed


@dataclass
class Keyframe:
    """A parsed keyframe; `state` is None when the body chain is not a valid snake."""

    start: int
    end: int
    head: Cell
    direction: Direction
    length: int
    body_steps: list[Direction]
    food: Cell | None
    score: int
    positions: dict[str, int] = field(default_factory=dict)

    def body(self) -> tuple[Cell, ...]:
        cells = [self.head]
        for d in self.body_steps:
            dx, dy = d.delta
            cells.append((cells[-1][0] + dx, cells[-1][1] + dy))
        return tuple(cells)

    def state(self, tick: int) -> SnakeState:
        return SnakeState(self.body(), self.direction, self.food, self.score, tick)


@dataclass
class Tick:
    """A parsed tick; `positions` maps each element to its token index, for first-violation reports."""

    start: int
    end: int
    number: int
    input: Direction
    outcome: str  # MOVE, EAT, DIE_WALL or DIE_SELF
    move: Cell | None = None
    length: int | None = None
    spawn: Cell | None = None
    score: int | None = None
    end_event: str | None = None  # DIE_WALL, DIE_SELF, WIN or TIMEOUT
    keyframe: Keyframe | None = None
    positions: dict[str, int] = field(default_factory=dict)

    def events(self) -> list[Event]:
        t = self.number
        out = [Event("TICK", t, Salience.TICK, "game"), _event("INPUT", t, dir=self.input.name)]
        if self.outcome in ("DIE_WALL", "DIE_SELF"):
            return [*out, _event(self.outcome, t)]
        if self.outcome == "EAT":
            out.append(_event("EAT", t))
        out.append(_event("MOVE", t, x=self.move[0], y=self.move[1]))
        if self.outcome == "EAT":
            out.append(_event("GROW", t, length=self.length))
            if self.spawn is not None:
                out.append(_event("FOOD_SPAWN", t, x=self.spawn[0], y=self.spawn[1]))
            out.append(_event("SCORE", t, score=self.score))
        if self.end_event in ("WIN", "TIMEOUT"):
            out.append(_event(self.end_event, t))
        return out


def _event(kind: str, tick: int, **payload: object) -> Event:
    return Event(kind, tick, _SALIENCE[kind], _ENTITY.get(kind, "snake"), payload)


class _Reader:
    def __init__(self, tokens: Sequence[str]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def fail(self, message: str) -> GrammarError:
        found = self.peek()
        where = "end of sequence" if found is None else repr(found)
        return GrammarError(self.i, f"{message}, found {where}", at_end=found is None)

    def word(self, expected: str) -> int:
        if self.peek() != expected:
            raise self.fail(f"expected {expected}")
        self.i += 1
        return self.i - 1

    def number(self, prefix: str) -> int:
        token = self.peek()
        if token is None or not token.startswith(prefix) or not token[len(prefix) :].isdigit():
            raise self.fail(f"expected {prefix}<n>")
        self.i += 1
        return int(token[len(prefix) :])

    def choice(self, prefix: str, options: dict[str, Direction]) -> Direction:
        token = self.peek()
        if token is None or not token.startswith(prefix) or token[len(prefix) :] not in options:
            raise self.fail(f"expected {prefix}<direction>")
        self.i += 1
        return options[token[len(prefix) :]]

    def cell(self) -> Cell:
        return self.number("X"), self.number("Y")


_DIRECTIONS = {d.name: d for d in Direction}


def _keyframe(r: _Reader) -> Keyframe:
    start = r.word("SNAP")
    r.word("PLAYER")
    pos = {"head": r.i}
    head = r.cell()
    pos["direction"] = r.i
    direction = r.choice("DIR_", _DIRECTIONS)
    pos["length"] = r.i
    length = r.number("LEN")
    pos["body"] = r.word("BODY")
    steps = []
    while r.peek() in _BODY_DIRECTION:
        steps.append(_BODY_DIRECTION[r.tokens[r.i]])
        r.i += 1
    pos["food"] = r.word("FOOD")
    food = r.cell() if r.peek() != "SCORE" else None
    pos["score"] = r.word("SCORE") + 1
    score = r.number("V")
    return Keyframe(start, r.i, head, direction, length, steps, food, score, pos)


def _tick(r: _Reader, number: int) -> Tick:
    start = r.word("TICK")
    pos = {"input": r.i}
    action = r.choice("INPUT_", _DIRECTIONS)
    pos["outcome"] = r.i
    token = r.peek()
    tick = Tick(start, start, number, action, token or "")
    if token in ("DIE_WALL", "DIE_SELF"):
        r.i += 1
        tick.end_event = token
    elif token in ("MOVE", "EAT"):
        if token == "EAT":
            r.i += 1
        pos["move"] = r.word("MOVE") + 1
        tick.move = r.cell()
        if token == "EAT":
            pos["grow"] = r.word("GROW")
            tick.length = r.number("LEN")
            if r.peek() == "FOOD_SPAWN":
                pos["spawn"] = r.word("FOOD_SPAWN") + 1
                tick.spawn = r.cell()
            pos["score"] = r.word("SCORE") + 1
            tick.score = r.number("V")
            if r.peek() == "WIN":
                pos["end"] = r.i
                r.i += 1
                tick.end_event = "WIN"
        if tick.end_event is None and r.peek() == "TIMEOUT":
            pos["end"] = r.i
            r.i += 1
            tick.end_event = "TIMEOUT"
    else:
        raise r.fail("expected an outcome (MOVE, EAT, DIE_WALL or DIE_SELF)")
    if tick.end_event is None and r.peek() == "SNAP":
        tick.keyframe = _keyframe(r)
    tick.end = r.i
    tick.positions = pos
    return tick


def parse(tokens: Sequence[str]) -> Iterator[Keyframe | Tick]:
    """Yield the first keyframe, then each tick, as far as the grammar allows; then check EOS.

    Raises GrammarError at the first token that breaks grammar v1. Whether the
    sequence is *complete* (ends in an end event and EOS) is the caller's
    question: a prefix that simply stops is not a grammar error here.
    """
    r = _Reader(tokens)
    r.word("BOS")
    yield _keyframe(r)
    number = 0
    while r.peek() == "TICK":
        number += 1
        tick = _tick(r, number)
        yield tick
        if tick.end_event is not None:
            if r.peek() is not None:
                r.word("EOS")
            break
    if r.peek() is not None:
        raise r.fail("expected TICK or EOS" if r.peek() != "EOS" else "EOS before an end event")


@dataclass
class DecodedEpisode:
    initial: SnakeState
    events: list[Event]
    keyframes: dict[int, SnakeState]
    end_reason: str | None


def decode(tokens: Sequence[str] | str) -> DecodedEpisode:
    """Rebuild the events and keyframe states of a full-salience episode."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    items = parse(tokens)
    first = next(items)
    assert isinstance(first, Keyframe)
    initial = first.state(0)
    events: list[Event] = []
    keyframes = {0: initial}
    end = None
    for tick in items:
        assert isinstance(tick, Tick)
        events += tick.events()
        end = tick.end_event
        if tick.keyframe is not None:
            keyframes[tick.number] = tick.keyframe.state(tick.number)
    return DecodedEpisode(initial, events, keyframes, end)
