"""Token grammar v1: the one place that knows how events and states are written as tokens.

Encoding turns a game's events and states into token strings; `parse` reads
them back, element by element with token positions, and raises `GrammarError`
at the first token the grammar does not allow. Decoding and the evaluator both
use `parse`, so there is no second copy of the grammar.

Option: tail events (`SnakeCodec(tail_events=True)`, `generate --tail-events`;
docs/grammar.md). In grammar v1 the body at tick t is the last LEN head cells,
so to know whether a cell is occupied the model must count back LEN ticks.
With the option every tick on which the tail leaves a cell writes it,
`FREE Xx Yy`, right after the input and before the outcome:

    tick := TICK INPUT_d [FREE Xx Yy] outcome [keyframe]

The rules retract the tail before the self-collision check (`rules.freed_cell`),
so FREE comes before MOVE and before DIE_SELF (the cell it names is free when
the head moves, which is why the head may enter it), and never on an eat (the
snake grows) or a wall death (checked before anything moves). "Is this cell
occupied" becomes "was it last written as a head or as a FREE", and FREE's
presence alone says the head stays on the board and does not eat. FREE is
written by the encoder from the state before the tick (it is not one of the
rules' events, so `decode` gives the same events in both designs); it has a
move's salience.

Option: head first (`SnakeCodec(head_first=True)`, `generate --head-first`;
docs/grammar.md). In grammar v1 the outcome word comes before the cell the head
moves to, so to write DIE_SELF the model must work out that cell and look it up
in the body in one step. With the option the head's new cell comes first, then
the outcome word:

    tick := TICK INPUT_d (DIE_WALL | Xx Yy (MOVE | EAT GROW ... | DIE_SELF)) [TIMEOUT] [keyframe]

On a DIE_SELF the cell is the one the head runs into (on the body); a wall death
writes none (it is off the board); an eat drops the MOVE word (the cell says
where the head went). "Does the head die" becomes "was the cell just written
written again as a head within the last LEN ticks", one attention lookup. The
option adds no token (the vocabulary is grammar v1's) and about as many tokens
per episode; the events are the same as grammar v1's. It is a third design, not
combined with tail events.

One parser and one vocabulary serve all designs: `parse` accepts an optional
FREE cell before any outcome (whether it belongs there is the evaluator's rule
`tail_freed`), and FREE is the vocabulary's last token, so every grammar v1
token keeps its id; a corpus written without the option has grammar v1's
vocabulary exactly (`vocabulary(config, tail_events=False, sense=False, spawn_column=False)`), byte for byte
what it was before the option existed. A sequence is read as the tail-events
design when it holds any FREE (`uses_tail_events`).

Option: sense (`SnakeCodec(sense=True)`, `generate --sense`; docs/grammar.md).
Grammar v1 supervises "where the body is" only on the rare tick whose input
runs into it. With the option every tick writes, right after the input, one
token naming the directions in which the head's neighbour is a body cell it
would die on (`rules.body_neighbours`, from the state before the tick):

    tick := TICK INPUT_d SENSE_s outcome [keyframe]      s: U, D, L, R in that order, or NONE

so every tick asks the body lookup of all four neighbours. It is a fourth
design, combined with no other; its sixteen words follow FREE in the vocabulary.

Option: spawn column (`SnakeCodec(spawn_column=True)`, `generate --spawn-column`;
docs/grammar.md). A food spawn must land on a cell off the body, which needs the
whole body, and a spawn written as `FOOD_SPAWN Xx Yy` asks for it in one step and
supervises it weakly (a guess blind to the body is right 88% of the time). With the
option the spawn's column is written out between its X and its Y, one word per row
from the top, OCC where the grown snake is on the cell and VAC where it is not
(`rules.column_occupancy`):

    FOOD_SPAWN Xx c_0 c_1 ... c_{H-1} Yy      c: OCC | VAC

so every eat asks the body lookup of H cells, and the row is then chosen among the
rows just written VAC. The words have the spawn's salience. The option combines
with any one of the other three (it changes only the spawn); its two words follow
the SENSE words in the vocabulary.

Option: body list (`SnakeCodec(body_list=True)`, `generate --body-list`;
docs/grammar.md). The spawn needs the whole body, and in the designs above the
model must find it across the episode (the last LEN head cells) in the one step
that writes the spawn's cell. With the option an eat that spawns food writes the
grown body's cells behind the head, neck first, between `GROW LENn` and the spawn:

    EAT MOVE Xx Yy GROW LENn (Xx Yy){n-1} FOOD_SPAWN Xx Yy SCORE Vs

each listed cell being the head's cell one tick before the last (`rules` keeps the
body head first), so the list is a chain of copies from the moves, and the spawn
becomes "a cell that is neither the head nor just listed", a lookup over a few
dozen tokens. The cells have the spawn's salience and add no word to the
vocabulary. The option combines with any one of the first three designs; it is
another design for the spawn than the spawn column, not combined with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from gamegrammar.core.episode_grammar import GrammarError as GrammarError  # the error the game's parser raises
from gamegrammar.core.episode_grammar import episode_prefix as prefix_of
from gamegrammar.core.episode_grammar import expect_word, fail, read_episode, token_at
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Event
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig
from gamegrammar.games.snake.rules import (
    END_REASONS,
    EVENTS,
    Cell,
    Direction,
    Outcome,
    SnakeConfig,
    SnakeState,
    body_neighbours,
    column_occupancy,
    direction_between,
    freed_cell,
)
from gamegrammar.games.snake.rules import event as _event  # the rules make the events; the parser rebuilds the same ones

__all__ = ["SPECIAL_TOKENS", "CodecConfig", "SnakeCodec"]  # CodecConfig re-exported: the codec config every game shares
END_EVENTS = END_REASONS  # the grammar writes each as a word of its own
_WORDS = ["TICK", "SNAP", "PLAYER", "BODY", "FOOD", "SCORE", "MOVE", "EAT", "GROW", "FOOD_SPAWN", *END_EVENTS]
_DIRS = [d.name for d in Direction]
_BODY_TOKEN = {d: f"B_{d.name}" for d in Direction}
_BODY_DIRECTION = {token: d for d, token in _BODY_TOKEN.items()}
FREE = "FREE"  # the tail-events option's one word: the vocabulary's last token
_FREE_SALIENCE = EVENTS[FREE][0]  # a move's: kept and dropped with the MOVE
_MOVE_SALIENCE = EVENTS["MOVE"][0]  # the head-first cells': kept and dropped with the MOVE


def sense_token(directions: Sequence[Direction]) -> str:
    """The sense option's word for the directions in which the head's neighbour is deadly body."""
    return "SENSE_" + ("".join(d.name for d in sorted(directions)) or "NONE")


SENSE_TOKENS = [sense_token([d for d in Direction if mask >> d & 1]) for mask in range(16)]
SENSE_OF = {token: tuple(d for d in Direction if mask >> d & 1) for mask, token in enumerate(SENSE_TOKENS)}
COLUMN_WORDS = ("VAC", "OCC")  # the spawn-column option's words, indexed by "the snake is on the cell"
COLUMN_OF = {word: bool(occupied) for occupied, word in enumerate(COLUMN_WORDS)}


def column_tokens(occupied: Sequence[bool]) -> list[str]:
    """The spawn-column option's words for one column, top row first."""
    return [COLUMN_WORDS[o] for o in occupied]


@dataclass(frozen=True)
class SnakeCodec(CodecConfig):
    """A codec with Snake's grammar options: `tail_events` writes `FREE Xx Yy`, the cell the tail leaves, each tick;
    `head_first` writes the head's new cell before the outcome word; `sense` writes after each input the directions in
    which the head's neighbour is deadly body. At most one of those three: they are separate designs. `spawn_column`
    writes the spawn's column, cell by cell, between its X and Y; `body_list` writes the grown body's cells behind the
    head before each spawn. Either goes with any of the three, not both together.

    `to_dict` names an option only when it is on, so a corpus written without them has the manifest it had before
    the options existed (and one written before them reads as the options off).
    """

    # Each help is its `generate` flag's (`--tail-events`), which adds the game it belongs to.
    tail_events: bool = field(default=False, metadata={"help": "write FREE Xx Yy, the cell the tail leaves, each tick"})
    head_first: bool = field(default=False, metadata={"help": "write the head's new cell before the outcome word"})
    sense: bool = field(
        default=False, metadata={"help": "write after each input the directions in which the head's neighbour is deadly body"}
    )
    spawn_column: bool = field(
        default=False, metadata={"help": "write a food spawn's column, OCC or VAC cell by cell, between its X and Y"}
    )
    body_list: bool = field(default=False, metadata={"help": "write the grown body's cells behind the head before each food spawn"})
    OPTIONS: ClassVar[tuple[str, ...]] = ("tail_events", "head_first", "sense", "spawn_column", "body_list")
    EXCLUSIVE: ClassVar[tuple[str, ...]] = ("tail_events", "head_first", "sense")
    SPAWN_DESIGNS: ClassVar[tuple[str, ...]] = ("spawn_column", "body_list")

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in self.OPTIONS:
            value = getattr(self, name)
            if not isinstance(value, (bool, int)) or value not in (0, 1):
                raise GameGrammarError(f"{name} must be true or false, got {value!r}")
            object.__setattr__(self, name, bool(value))
        if sum(getattr(self, name) for name in self.EXCLUSIVE) > 1:
            raise GameGrammarError(f"{', '.join(self.EXCLUSIVE)} are separate grammar designs: choose one")
        if sum(getattr(self, name) for name in self.SPAWN_DESIGNS) > 1:
            raise GameGrammarError(f"{' and '.join(self.SPAWN_DESIGNS)} are separate designs of the spawn: choose one")

    def to_dict(self) -> dict[str, int]:
        options = {name: True for name in self.OPTIONS if getattr(self, name)}
        return {**super().to_dict(), **options}


def tail_events_of(codec: CodecConfig | None) -> bool:
    """Does this codec write tail events? (Any game's CodecConfig does not.)"""
    return bool(getattr(codec, "tail_events", False))


def sense_of(codec: CodecConfig | None) -> bool:
    """Does this codec write each tick's sense of the body around the head? (Any game's CodecConfig does not.)"""
    return bool(getattr(codec, "sense", False))


def head_first_of(codec: CodecConfig | None) -> bool:
    """Does this codec write the head's new cell before the outcome word? (Any game's CodecConfig does not.)"""
    return bool(getattr(codec, "head_first", False))


def spawn_column_of(codec: CodecConfig | None) -> bool:
    """Does this codec write each spawn's column between its X and Y? (Any game's CodecConfig does not.)"""
    return bool(getattr(codec, "spawn_column", False))


def body_list_of(codec: CodecConfig | None) -> bool:
    """Does this codec write the grown body's cells before each spawn? (Any game's CodecConfig does not.)"""
    return bool(getattr(codec, "body_list", False))


def refused_options(tails: bool | None, sense: bool | None, spawn_column: bool | None, body_list: bool | None) -> frozenset[str]:
    """The options whose words `parse` refuses: those a design declares off (False); None leaves an option open."""
    declared = {"tail_events": tails, "sense": sense, "spawn_column": spawn_column, "body_list": body_list}
    return frozenset(name for name, on in declared.items() if on is False)


def design_of(codec: CodecConfig | None) -> dict[str, bool]:
    """The design a codec writes, as the evaluator's keyword arguments (`validate(..., **design_of(codec))`)."""
    return {
        "tails": tail_events_of(codec),
        "head_first": head_first_of(codec),
        "sense": sense_of(codec),
        "spawn_column": spawn_column_of(codec),
        "body_list": body_list_of(codec),
    }


# grammar v1's worked example on the default 10x10 board (docs/grammar.md), written with a keyframe interval of 3:
# eats on tick 2, keyframes after ticks 3 and 6, dies in the top wall on tick 8. A valid episode, for documentation
# and tests.
EXAMPLE = (
    "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 "
    "TICK INPUT_R MOVE X6 Y5 "
    "TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1 "
    "TICK INPUT_U MOVE X7 Y4 SNAP PLAYER X7 Y4 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U MOVE X7 Y3 TICK INPUT_U MOVE X7 Y2 TICK INPUT_U MOVE X7 Y1 SNAP PLAYER X7 Y1 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U MOVE X7 Y0 "
    "TICK INPUT_U DIE_WALL EOS"
)

# The same episode in the tail-events design: FREE and the cell the tail leaves before every MOVE; none on the eat
# (the snake grows) nor on the wall death (nothing moves). Tick 3 frees X6 Y5, the tail that stayed on the eat.
EXAMPLE_TAILS = (
    "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 "
    "TICK INPUT_R FREE X5 Y5 MOVE X6 Y5 "
    "TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1 "
    "TICK INPUT_U FREE X6 Y5 MOVE X7 Y4 SNAP PLAYER X7 Y4 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U FREE X7 Y5 MOVE X7 Y3 TICK INPUT_U FREE X7 Y4 MOVE X7 Y2 TICK INPUT_U FREE X7 Y3 MOVE X7 Y1 "
    "SNAP PLAYER X7 Y1 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U FREE X7 Y2 MOVE X7 Y0 "
    "TICK INPUT_U DIE_WALL EOS"
)

# A self-death in the tail-events design, from a keyframe: a snake of length 6 in a 3x2 loop moves twice into the
# cell its tail leaves (legal: FREE names it first), then turns into its body; the tail (X7 Y6) still retracts
# before the self-collision check, so FREE comes before DIE_SELF too.
EXAMPLE_TAILS_SELF = (
    "BOS SNAP PLAYER X5 Y5 DIR_L LEN6 BODY B_R B_R B_D B_L B_L FOOD X2 Y7 SCORE V5 "
    "TICK INPUT_D FREE X5 Y6 MOVE X5 Y6 "
    "TICK INPUT_R FREE X6 Y6 MOVE X6 Y6 "
    "TICK INPUT_U FREE X7 Y6 DIE_SELF EOS"
)


# grammar v1's worked example in the head-first design: each cell before its outcome word, the eat without its MOVE
# word, the wall death without a cell (the head would leave the board).
EXAMPLE_HEAD_FIRST = (
    "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 "
    "TICK INPUT_R X6 Y5 MOVE "
    "TICK INPUT_R X7 Y5 EAT GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1 "
    "TICK INPUT_U X7 Y4 MOVE SNAP PLAYER X7 Y4 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U X7 Y3 MOVE TICK INPUT_U X7 Y2 MOVE TICK INPUT_U X7 Y1 MOVE SNAP PLAYER X7 Y1 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 "
    "TICK INPUT_U X7 Y0 MOVE "
    "TICK INPUT_U DIE_WALL EOS"
)

# A self-death in the head-first design: the snake of EXAMPLE_TAILS_SELF turns into its body at X6 Y5, which it
# writes before DIE_SELF.
EXAMPLE_HEAD_FIRST_SELF = (
    "BOS SNAP PLAYER X5 Y5 DIR_L LEN6 BODY B_R B_R B_D B_L B_L FOOD X2 Y7 SCORE V5 "
    "TICK INPUT_D X5 Y6 MOVE "
    "TICK INPUT_R X6 Y6 MOVE "
    "TICK INPUT_U X6 Y5 DIE_SELF EOS"
)

# The self-death of EXAMPLE_TAILS_SELF in the sense design: a SENSE word after each input. Before the first tick only
# the neck (right) is deadly, the tail's cell below being free; before the last the body above the head is too.
EXAMPLE_SENSE = (
    "BOS SNAP PLAYER X5 Y5 DIR_L LEN6 BODY B_R B_R B_D B_L B_L FOOD X2 Y7 SCORE V5 "
    "TICK INPUT_D SENSE_R MOVE X5 Y6 "
    "TICK INPUT_R SENSE_U MOVE X6 Y6 "
    "TICK INPUT_U SENSE_UL DIE_SELF EOS"
)

# An eat in the spawn-column design: the snake of EXAMPLE_TAILS_SELF eats at X4 Y5, and the food spawns in column 5,
# whose rows 5 and 6 the grown snake covers (its old head and its tail), so the spawn's column reads OCC there.
EXAMPLE_SPAWN_COLUMN = (
    "BOS SNAP PLAYER X5 Y5 DIR_L LEN6 BODY B_R B_R B_D B_L B_L FOOD X4 Y5 SCORE V5 "
    "TICK INPUT_L EAT MOVE X4 Y5 GROW LEN7 FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC Y2 SCORE V6 "
    "TICK INPUT_L MOVE X3 Y5 TICK INPUT_L MOVE X2 Y5 TICK INPUT_L MOVE X1 Y5 TICK INPUT_L MOVE X0 Y5 "
    "TICK INPUT_L DIE_WALL EOS"
)

# The eat of EXAMPLE_SPAWN_COLUMN in the body-list design: the grown snake's six cells behind its new head, neck first
# (the old head X5 Y5, then along the old body to the tail X5 Y6), then the spawn.
EXAMPLE_BODY_LIST = (
    "BOS SNAP PLAYER X5 Y5 DIR_L LEN6 BODY B_R B_R B_D B_L B_L FOOD X4 Y5 SCORE V5 "
    "TICK INPUT_L EAT MOVE X4 Y5 GROW LEN7 X5 Y5 X6 Y5 X7 Y5 X7 Y6 X6 Y6 X5 Y6 FOOD_SPAWN X5 Y2 SCORE V6 "
    "TICK INPUT_L MOVE X3 Y5 TICK INPUT_L MOVE X2 Y5 TICK INPUT_L MOVE X1 Y5 TICK INPUT_L MOVE X0 Y5 "
    "TICK INPUT_L DIE_WALL EOS"
)


def vocabulary(config: SnakeConfig, *, tail_events: bool = True, sense: bool = True, spawn_column: bool = True) -> list[str]:
    """Every token of the grammar for this board, every design: grammar v1's, then FREE, then the SENSE words, then
    the spawn column's words; values are exact, never capped.

    `tail_events=False`, `sense=False` and `spawn_column=False` leave FREE, the SENSE words and VAC/OCC out: grammar
    v1's own vocabulary, the tokenizer of a corpus without the options. The options' words come last so that every
    other token has the same id in all of them.
    """
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
        *([FREE] if tail_events else []),
        *(SENSE_TOKENS if sense else []),
        *(COLUMN_WORDS if spawn_column else ()),
    ]


def codec_vocabulary(config: SnakeConfig, codec: CodecConfig) -> list[str]:
    """The vocabulary of a corpus written with `codec`: grammar v1's, plus FREE with the tail-events option; with the
    sense option FREE too (unused, so the SENSE words' ids are those of the full vocabulary), then the SENSE words;
    with the spawn-column option every word before its own (the full vocabulary)."""
    column = spawn_column_of(codec)
    sense = sense_of(codec) or column
    return vocabulary(config, tail_events=tail_events_of(codec) or sense, sense=sense, spawn_column=column)


def input_tokens() -> list[str]:
    """The tokens an agent's input is written as."""
    return [f"INPUT_{d}" for d in _DIRS]


def chance_tokens(config: SnakeConfig, codec: CodecConfig | None) -> list[tuple[str, tuple[int, ...]]]:
    """The food spawn's X and Y, counted from FOOD_SPAWN: the spawn column's H words go between them."""
    return [("FOOD_SPAWN", (1, 2 + config.height if spawn_column_of(codec) else 2))]


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
    try:
        return direction_between((0, 0), (dx, dy))
    except ValueError:
        raise ValueError(f"body segments are not adjacent: step ({dx}, {dy})") from None


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


def tick_outcome(events: Sequence[Event]) -> Outcome:
    """The outcome of a tick from its events (grammar order: an EAT, a death, or else a MOVE)."""
    for event in events:
        if event.type in ("EAT", "DIE_WALL", "DIE_SELF"):
            return Outcome(event.type)
    return Outcome.MOVE


class EpisodeEncoder:
    """Streams one episode into tokens: `start(state)`, then `tick(events, state_after, done)`.

    With the tail-events option (`SnakeCodec(tail_events=True)`) it keeps the state before each tick, whose tail
    cell `FREE Xx Yy` names, written just before the outcome's event. With the head-first option it writes each
    tick's cell before its outcome word (the cell a DIE_SELF runs into comes from the state before and the input).
    With the spawn-column option a FOOD_SPAWN's column words come from the state after the tick (the grown body),
    and with the body-list option the listed cells before it.
    """

    def __init__(self, codec: CodecConfig | None = None, config: SnakeConfig | None = None) -> None:
        self.codec = codec or CodecConfig()
        self.config = config
        self.tail_events = tail_events_of(self.codec)
        self.head_first = head_first_of(self.codec)
        self.sense = sense_of(self.codec)
        self.spawn_column = spawn_column_of(self.codec)
        self.body_list = body_list_of(self.codec)
        if self.spawn_column and config is None:
            raise ValueError("the spawn-column encoder needs the board's config (its column height)")
        self.tokens: list[str] = []
        self._before: SnakeState | None = None

    def start(self, state: SnakeState) -> None:
        self.tokens = ["BOS", *keyframe_tokens(state)]
        self._before = state

    def tick(self, events: Sequence[Event], state: SnakeState, done: bool) -> None:
        freed = None
        if self.tail_events and self.codec.min_salience <= _FREE_SALIENCE:
            if self._before is None:
                raise ValueError("the tail-events encoder needs start(state) before the first tick")
            freed = freed_cell(self._before, tick_outcome(events))
        kept = [event for event in events if event.salience >= self.codec.min_salience]
        if self.head_first:
            self.tokens += self._head_first(kept, state)
        else:
            for event in kept:
                if freed is not None and event.type in ("MOVE", "DIE_SELF"):
                    self.tokens += [FREE, f"X{freed[0]}", f"Y{freed[1]}"]
                self.tokens += self._event_tokens(event, state)
                if self.sense and event.type == "INPUT":
                    if self._before is None:
                        raise ValueError("the sense encoder needs start(state) before the first tick")
                    self.tokens.append(sense_token(body_neighbours(self._before)))
        self._before = state
        if done:
            self.tokens.append("EOS")
        elif self.codec.keyframe_after(state.tick):
            self.tokens += keyframe_tokens(state)

    def _head_first(self, kept: Sequence[Event], after: SnakeState) -> list[str]:
        """A tick's kept events in the head-first order: the cell, then the outcome word (MOVE, EAT or DIE_SELF).

        Cells have a move's salience: where the codec drops MOVE it drops them too (and the tick reads as v1's).
        """
        before = self._before
        if before is None:
            raise ValueError("the head-first encoder needs start(state) before the first tick")
        cells = self.codec.min_salience <= _MOVE_SALIENCE
        eat = any(event.type == "EAT" for event in kept)
        tokens: list[str] = []
        for event in kept:
            if event.type == "MOVE":
                tokens += [f"X{event.payload['x']}", f"Y{event.payload['y']}", "EAT" if eat else "MOVE"]
            elif event.type == "DIE_SELF" and cells:  # the cell it runs into: one step in the direction taken
                dx, dy = after.direction.delta
                tokens += [f"X{before.head[0] + dx}", f"Y{before.head[1] + dy}", "DIE_SELF"]
            elif event.type != "EAT" or not cells:
                tokens += self._event_tokens(event, after)
        return tokens

    def _event_tokens(self, event: Event, after: SnakeState) -> list[str]:
        """An event's tokens; with the spawn-column option a FOOD_SPAWN's column words go between its X and Y, with
        the body-list option the grown body's cells behind the head before it."""
        tokens = event_tokens(event)
        if self.spawn_column and event.type == "FOOD_SPAWN":
            x = event.payload["x"]
            tokens[2:2] = column_tokens(column_occupancy(after.body, x, self.config))  # type: ignore[arg-type]
        elif self.body_list and event.type == "FOOD_SPAWN":
            tokens[0:0] = body_list_tokens(after.body)
        return tokens


def body_list_tokens(body: Sequence[Cell]) -> list[str]:
    """The body-list option's cells: every cell of a body behind its head, neck first."""
    return [token for x, y in body[1:] for token in (f"X{x}", f"Y{y}")]


# ---------------------------------------------------------------- parsing


_STEP = [d.delta for d in sorted(Direction)]  # indexed by the IntEnum itself: faster than d.delta in a loop


@dataclass(slots=True)
class Keyframe:
    """A parsed keyframe; `positions` gives the token index of each field (for violation reports).

    positions: head (X), direction, length (LEN), body (the BODY word; step k is at body+1+k),
    food (the FOOD word), score (the V value).
    """

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
        x, y = self.head
        cells = [self.head]
        for d in self.body_steps:
            dx, dy = _STEP[d]
            x, y = x + dx, y + dy
            cells.append((x, y))
        return tuple(cells)

    def state(self, tick: int) -> SnakeState:
        return SnakeState(self.body(), self.direction, self.food, self.score, tick)


@dataclass(slots=True)
class Tick:
    """A parsed tick; `positions` maps each element to its token index, for first-violation reports.

    positions: input, free (X of the FREE cell, tail-events design only), cell (X of the cell before the outcome
    word, head-first design only), outcome (the DIE_*/EAT/MOVE word), move (X of the MOVE's cell: after MOVE in
    grammar v1, before the outcome word in the head-first design), grow (the GROW word), length (LEN), spawn (X of
    FOOD_SPAWN), column and spawn_y (the first column word and the spawn's Y, spawn-column design only), listed (X
    of the first listed cell, body-list design only), score (V of SCORE), end (WIN or TIMEOUT).
    """

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
    free: Cell | None = None  # the FREE cell written before the outcome (tail-events design), not an event
    cell: Cell | None = None  # the cell written before the outcome word (head-first design): `move`, or where a DIE_SELF runs
    sense: tuple[Direction, ...] | None = None  # the SENSE word after the input (sense design), not an event
    column: tuple[bool, ...] | None = None  # the spawn's column words, top row first (spawn-column design), not events
    listed: tuple[Cell, ...] | None = None  # the cells listed before the spawn, neck first (body-list design), not events

    def events(self) -> list[Event]:
        t = self.number
        out = [_event("TICK", t), _event("INPUT", t, dir=self.input.name)]
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


# The parser is written as straight-line code over token lookups (no reader object, no method call per
# token) because the evaluator parses every sampled sequence: it is the hot loop of a validity report.
_INPUT_OF = {f"INPUT_{d.name}": d for d in Direction}
_DIR_OF = {f"DIR_{d.name}": d for d in Direction}
_PREFIXES = ("X", "Y", "LEN", "V")
# Fast lookup of the usual values; any other <prefix><digits> is still accepted through _number.
_VALUE_OF = {p: {f"{p}{v}": v for v in range(1024)} for p in _PREFIXES}
_XS, _YS = _VALUE_OF["X"], _VALUE_OF["Y"]


def _number(tokens: Sequence[str], i: int, prefix: str) -> int:
    """The value of a <prefix><digits> token at i (any value: bounds are the evaluator's question)."""
    token = token_at(tokens, i)
    value = _VALUE_OF[prefix].get(token)  # type: ignore[arg-type]
    if value is not None:
        return value
    digits = token[len(prefix) :] if token is not None and token.startswith(prefix) else ""
    if not (digits.isascii() and digits.isdigit()):
        raise fail(tokens, i, f"expected {prefix}<n>")
    return int(digits)


def _cell(tokens: Sequence[str], i: int) -> Cell:
    n = len(tokens)
    if i + 1 < n:
        x, y = _XS.get(tokens[i]), _YS.get(tokens[i + 1])
        if x is not None and y is not None:
            return x, y
    return _number(tokens, i, "X"), _number(tokens, i + 1, "Y")


def read_cell(tokens: Sequence[str], i: int) -> Cell:
    """The cell written as `Xx Yy` at token i; GrammarError if those two tokens are not one."""
    return _cell(tokens, i)


def read_keyframe(tokens: Sequence[str], i: int) -> Keyframe:
    """The keyframe written from its SNAP at token i; GrammarError if it is not one."""
    return _keyframe(tokens, i)


def _keyframe(tokens: Sequence[str], i: int) -> Keyframe:
    """SNAP PLAYER Xx Yy DIR_d LENn BODY b* FOOD [Xx Yy] SCORE Vs, starting at i."""
    start = i
    i = expect_word(tokens, expect_word(tokens, i, "SNAP"), "PLAYER")
    head = _cell(tokens, i)
    pos = {"head": i, "direction": i + 2, "length": i + 3, "body": i + 4}
    direction = _DIR_OF.get(token_at(tokens, i + 2))  # type: ignore[arg-type]
    if direction is None:
        raise fail(tokens, i + 2, "expected DIR_<direction>")
    length = _number(tokens, i + 3, "LEN")
    i = expect_word(tokens, i + 4, "BODY")
    steps = []
    n = len(tokens)
    while i < n and tokens[i] in _BODY_DIRECTION:
        steps.append(_BODY_DIRECTION[tokens[i]])
        i += 1
    pos["food"] = i
    i = expect_word(tokens, i, "FOOD")
    food = None
    if token_at(tokens, i) != "SCORE":
        food = _cell(tokens, i)
        i += 2
    i = expect_word(tokens, i, "SCORE")
    pos["score"] = i
    score = _number(tokens, i, "V")
    return Keyframe(start, i + 1, head, direction, length, steps, food, score, pos)


def _tick(tokens: Sequence[str], i: int, number: int, head_first: bool | None = None, refuse: frozenset[str] = frozenset()) -> Tick:
    """TICK INPUT_d outcome, starting at i (which holds TICK); `parse` adds the keyframe that may follow.

    `head_first`: the design the tick must follow (True: the cell before the outcome word; False: grammar v1's
    order; None: either, read off the tick). `refuse`: the options (`SnakeCodec.OPTIONS` names) whose words are
    grammar errors here, those a declared design does not write.
    """
    start = i
    n = len(tokens)
    action = _INPUT_OF.get(tokens[i + 1]) if i + 1 < n else None
    if action is None:
        raise fail(tokens, i + 1, "expected INPUT_<direction>")
    i += 2
    outcome = tokens[i] if i < n else None
    pos = {"input": start + 1}
    free = cell = sense = None
    if outcome is not None and outcome in SENSE_OF:  # the sense design: the deadly body around the head
        if "sense" in refuse:
            raise fail(tokens, i, "expected an outcome (a SENSE word is the sense design's, not this one's)")
        if head_first:
            raise fail(tokens, i, "expected the head's cell Xx Yy or DIE_WALL (head-first design)")
        pos["sense"] = i
        sense = SENSE_OF[outcome]
        i += 1
        outcome = tokens[i] if i < n else None
    if outcome == "FREE":  # the tail-events design: the cell the tail leaves, before the outcome
        if "tail_events" in refuse:
            raise fail(tokens, i, "expected an outcome (FREE is the tail-events design's, not this one's)")
        if head_first:
            raise fail(tokens, i, "expected the head's cell Xx Yy or DIE_WALL (head-first design)")
        pos["free"] = i + 1
        free = _cell(tokens, i + 1)
        i += 3
        outcome = tokens[i] if i < n else None
    if outcome is not None and outcome[0] == "X" and head_first is not False and free is None:  # the head-first design
        pos["cell"] = i
        cell = _cell(tokens, i)
        i += 2
        outcome = tokens[i] if i < n else None
        if outcome not in ("MOVE", "EAT", "DIE_SELF"):
            raise fail(tokens, i, "expected MOVE, EAT or DIE_SELF after the head's cell")
    elif head_first and outcome != "DIE_WALL":
        raise fail(tokens, i, "expected the head's cell Xx Yy or DIE_WALL (head-first design)")
    pos["outcome"] = i
    move = spawn = length = score = end_event = column = listed = None
    if cell is not None and outcome != "DIE_SELF":
        move = cell
        pos["move"] = pos["cell"]
        i += 1
    if outcome == "MOVE" or outcome == "EAT":
        eat = outcome == "EAT"
        if move is None:
            i = expect_word(tokens, i + 1, "MOVE") if eat else i + 1
            pos["move"] = i
            x, y = (_XS.get(tokens[i]), _YS.get(tokens[i + 1])) if i + 1 < n else (None, None)
            move = (x, y) if x is not None and y is not None else _cell(tokens, i)  # _cell inlined on the hot path
            i += 2
        if eat:
            pos["grow"] = i
            pos["length"] = i = expect_word(tokens, i, "GROW")
            length = _number(tokens, i, "LEN")
            i += 1
            if i < n and tokens[i][0] == "X":  # the body-list design: the grown body behind the head, then the spawn
                if "body_list" in refuse:
                    raise fail(tokens, i, "expected FOOD_SPAWN or SCORE (a listed cell is the body-list design's, not this one's)")
                pos["listed"] = i
                cells = []
                while i < n and tokens[i][0] == "X":
                    x, y = (_XS.get(tokens[i]), _YS.get(tokens[i + 1])) if i + 1 < n else (None, None)
                    cells.append((x, y) if x is not None and y is not None else _cell(tokens, i))
                    i += 2
                listed = tuple(cells)
                if token_at(tokens, i) != "FOOD_SPAWN":
                    raise fail(tokens, i, "expected a listed cell Xx Yy or FOOD_SPAWN after the listed body")
            if token_at(tokens, i) == "FOOD_SPAWN":
                pos["spawn"] = i = i + 1
                if i + 1 < n and tokens[i + 1] in COLUMN_OF:  # the spawn-column design: the column, then the row
                    if "spawn_column" in refuse:
                        raise fail(tokens, i + 1, "expected Yy (a column word is the spawn-column design's, not this one's)")
                    x = _number(tokens, i, "X")
                    pos["column"] = j = i + 1
                    words = []
                    while j < n and tokens[j] in COLUMN_OF:
                        words.append(COLUMN_OF[tokens[j]])
                        j += 1
                    pos["spawn_y"] = j
                    spawn, column = (x, _number(tokens, j, "Y")), tuple(words)
                    i = j + 1
                else:
                    spawn = _cell(tokens, i)
                    i += 2
            pos["score"] = i = expect_word(tokens, i, "SCORE")
            score = _number(tokens, i, "V")
            i += 1
            if token_at(tokens, i) == "WIN":
                pos["end"] = i
                i += 1
                end_event = "WIN"
        if end_event is None and i < n and tokens[i] == "TIMEOUT":
            pos["end"] = i
            i += 1
            end_event = "TIMEOUT"
    elif outcome == "DIE_WALL" or outcome == "DIE_SELF":
        i += 1
        end_event = outcome
    else:
        raise fail(tokens, i, "expected an outcome (MOVE, EAT, DIE_WALL or DIE_SELF)")
    return Tick(start, i, number, action, outcome, move, length, spawn, score, end_event, None, pos, free, cell, sense, column, listed)


def uses_head_first(tokens: Sequence[str]) -> bool:
    """Is a sequence written in the head-first design? It is when its first tick that writes a cell writes it
    before the outcome word (`parse` holds every later tick to the design of the first)."""
    n = len(tokens)
    for i in range(n - 2):
        if tokens[i] == "TICK" and tokens[i + 1] in _INPUT_OF:
            after = tokens[i + 2]
            if after in ("MOVE", "EAT", "FREE", "DIE_SELF") or after in SENSE_OF:
                return False
            if after[0] == "X":
                return True
    return False


def uses_tail_events(tokens: Sequence[str]) -> bool:
    """Is a sequence written in the tail-events design? It is when it holds any FREE (whether each FREE stands where
    the rules put one, and only there, is the evaluator's rule `tail_freed`)."""
    return FREE in tokens


def uses_sense(tokens: Sequence[str]) -> bool:
    """Is a sequence written in the sense design? It is when it holds any SENSE word."""
    return any(token in SENSE_OF for token in tokens)


def uses_spawn_column(tokens: Sequence[str]) -> bool:
    """Is a sequence written in the spawn-column design? It is when it holds any column word (VAC or OCC)."""
    return any(token in COLUMN_OF for token in tokens)


def uses_body_list(tokens: Sequence[str]) -> bool:
    """Is a sequence written in the body-list design? It is when an eat's `GROW LENn` is followed by a cell (in the
    other designs by FOOD_SPAWN or SCORE). The GROW words are found by `index`, a scan in C: the evaluator asks this of
    every sequence."""
    n, i = len(tokens), -1
    try:
        while True:
            i = tokens.index("GROW", i + 1)
            if i + 2 < n and tokens[i + 2][:1] == "X":
                return True
    except ValueError:
        return False


def parse(
    tokens: Sequence[str], *, to_eos: bool = False, head_first: bool | None = None, refuse: frozenset[str] = frozenset()
) -> Iterator[Keyframe | Tick]:
    """Yield the first keyframe, then each tick, as far as the grammar allows; then check EOS.

    Every design parses: an optional `FREE Xx Yy` after any input, before the outcome (`Tick.free`), and the
    head-first order (`Tick.cell`). The order is one per sequence: `head_first` declares it (the codec's), and
    None takes it from the first tick that writes a cell; a tick in the other order is a grammar error. `refuse`
    names the options (of `SnakeCodec.OPTIONS`) whose words are grammar errors: a declared design's grammar has
    only its own words (`refused_options`).

    Raises GrammarError at the first token that breaks grammar v1. Whether the
    sequence is *complete* (ends in an end event and EOS) is the caller's
    question: a prefix that simply stops is not a grammar error here.

    By default the episode must also end properly: nothing but EOS after an end
    event, no EOS before one, nothing after EOS. With `to_eos=True` only the
    bare grammar (`BOS keyframe tick* EOS`, a keyframe allowed after any
    outcome) is enforced and parsing stops at the first EOS without looking
    further: the strict evaluator wants to read ticks written after an end
    event, and report them as its own rule rather than as a grammar error.
    The last element's `end` is then the index of that EOS (or len(tokens)).

    A tick whose keyframe breaks the grammar is yielded (without it) before the
    error is raised, so a sequence cut off inside a keyframe still shows its
    last tick's events.
    """
    design = head_first

    def tick(tokens: Sequence[str], i: int, number: int, previous: Keyframe | Tick) -> Tick:
        nonlocal design
        read = _tick(tokens, i, number, design, refuse)
        if design is None and read.outcome != "DIE_WALL":
            design = read.cell is not None
        return read

    return read_episode(tokens, _keyframe, tick, to_eos=to_eos)


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


def episode_prefix(tokens: Sequence[str], ticks: int) -> list[str]:
    """The first keyframe and the first `ticks` ticks of an episode: a prompt from real play."""
    return prefix_of(tokens, parse(tokens), ticks)


# ---------------------------------------------------------------- constrained decoding


class GrammarAutomaton:
    """Which tokens grammar v1 allows next: an action mask for sampling, never a rules check.

    It knows the grammar only (word order, value kinds, the body chain's length
    from LEN), not the rules: a constrained model can still move the wrong way.
    A row's state is a small tuple; `allowed(state)` is the set of next tokens and
    `step(state, token)` the next state (None where the grammar says no).

    `tail_events`: False is grammar v1 alone; True the tail-events design (after
    the input FREE, EAT or DIE_WALL; after the FREE cell MOVE or DIE_SELF); None
    (`GameSpec.automaton`) either, tick by tick: a FREE cell is allowed after any
    input, and is followed by MOVE or DIE_SELF. `head_first`: True is the
    head-first design (after the input a cell or DIE_WALL; after the cell MOVE, EAT
    or DIE_SELF, and an EAT goes on with GROW); None (the default) allows that
    order beside the others, tick by tick. `sense`: True is the sense design (after
    the input a SENSE word, then grammar v1's outcome); None allows a SENSE word
    after any input. `spawn_column`: True is the spawn-column design (after a
    spawn's X exactly H column words, then its Y); None allows either after the X.
    `body_list`: True is the body-list design (after an eat's LENn exactly n - 1
    cells, then FOOD_SPAWN, unless n fills the board); None allows any number of
    cells there, each pair followed by another or by FOOD_SPAWN.

    With `head_first` None the order is one per sequence, as `parse` holds it: the
    first tick that writes a cell or an outcome word other than DIE_WALL commits the
    sequence to the head-first automaton or to the other order's, and its states
    are then ("order", head_first, the committed automaton's state).
    """

    def __init__(
        self,
        config: SnakeConfig,
        tail_events: bool | None = None,
        head_first: bool | None = None,
        sense: bool | None = None,
        spawn_column: bool | None = None,
        body_list: bool | None = None,
    ) -> None:
        self.cells = config.cells
        self.height = config.height
        self.spawn_column = spawn_column
        self.body_list = body_list
        self.orders = None
        if head_first is None:  # the first tick commits a sequence to one order (parse reads it so)
            self.orders = tuple(GrammarAutomaton(config, tail_events, order, sense, spawn_column, body_list) for order in (False, True))
        vocab = vocabulary(config)
        xs = frozenset(t for t in vocab if t[0] == "X" and t[1:].isdigit())
        ys = frozenset(t for t in vocab if t[0] == "Y" and t[1:].isdigit())
        lens = frozenset(t for t in vocab if t.startswith("LEN"))
        values = frozenset(t for t in vocab if t[0] == "V" and t[1:].isdigit())
        inputs = frozenset(f"INPUT_{d}" for d in _DIRS)
        dirs = frozenset(f"DIR_{d}" for d in _DIRS)
        body = frozenset(_BODY_TOKEN.values())
        one = frozenset
        outcomes = one({"MOVE", "EAT", "DIE_WALL", "DIE_SELF"})
        if tail_events is not False:  # a FREE cell may come first; in the tail-events design MOVE and DIE_SELF only after it
            outcomes = one({FREE, "EAT", "DIE_WALL"}) if tail_events else outcomes | {FREE}
        if head_first:
            outcomes = xs | {"DIE_WALL"}
        elif head_first is None and not tail_events:
            outcomes = outcomes | xs
        senses = frozenset(SENSE_TOKENS)
        if sense:
            outcomes = senses
        elif sense is None and not tail_events and not head_first:
            outcomes = outcomes | senses
        # state name -> allowed tokens (chain/food states depend on the keyframe's LEN: see allowed())
        self.sets: dict[str, frozenset[str]] = {
            "start": one({"BOS"}),
            "kf_snap": one({"SNAP"}),
            "kf_player": one({"PLAYER"}),
            "kf_x": xs,
            "kf_y": ys,
            "kf_dir": dirs,
            "kf_len": lens,
            "kf_body": one({"BODY"}),
            "kf_chain": body,
            "kf_food": one({"FOOD"}),
            "kf_food_x": xs | {"SCORE"},
            "kf_food_y": ys,
            "kf_score": one({"SCORE"}),
            "kf_v": values,
            "tick": one({"TICK"}),
            "input": inputs,
            "outcome": outcomes,
            "free_x": xs,
            "free_y": ys,
            "after_free": one({"MOVE", "DIE_SELF"}),
            "after_sense": one({"MOVE", "EAT", "DIE_WALL", "DIE_SELF"}),
            "cell_y": ys,
            "after_cell": one({"MOVE", "EAT", "DIE_SELF"}),
            "eat_move": one({"MOVE"}),
            "move_x": xs,
            "move_y": ys,
            "after_move": one({"TICK", "TIMEOUT", "SNAP"}),
            "grow": one({"GROW"}),
            "len": lens,
            "spawn_or_score": one({"FOOD_SPAWN", "SCORE"}),
            "list_or_spawn": xs | {"FOOD_SPAWN", "SCORE"},
            "listed_x": xs,
            "listed_y": ys,
            "after_listed": xs | {"FOOD_SPAWN"},
            "spawn": one({"FOOD_SPAWN"}),
            "spawn_x": xs,
            "spawn_y": ys,
            "spawn_y_or_column": ys | frozenset(COLUMN_WORDS),
            "spawn_column": frozenset(COLUMN_WORDS),
            "score": one({"SCORE"}),
            "v": values,
            "after_eat": one({"TICK", "TIMEOUT", "SNAP", "WIN"}),
            "end": one({"EOS"}),
            "done": one(),
        }

    def start(self) -> tuple:
        return ("start",)

    def allowed(self, state: tuple) -> frozenset[str]:
        name = state[0]
        if name == "order":
            return self.orders[state[1]].allowed(state[2])
        if name == "kf_chain":  # exactly LEN-1 body steps, then FOOD
            return self.sets["kf_chain"] if state[1] > 0 else self.sets["kf_food"]
        if name == "kf_food_x" and state[1] < self.cells:  # no food only on a full board
            return self.sets["kf_x"]
        if name == "spawn_column":  # exactly H column words, then the row
            return self.sets["spawn_column"] if state[1] > 0 else self.sets["spawn_y"]
        if name == "listed_x" and state[1] == 0:  # the body-list design: n - 1 cells, then the spawn
            return self.sets["spawn"]
        return self.sets[name]

    def step(self, state: tuple, token: str) -> tuple | None:
        if token not in self.allowed(state):
            return None
        name = state[0]
        if name == "order" or (name == "outcome" and self.orders is not None and token != "DIE_WALL"):
            order = state[1] if name == "order" else token[0] == "X"
            inner = self.orders[order].step(state[2] if name == "order" else state, token)
            return None if inner is None else ("order", order, inner)
        if name in _NEXT:
            return (_NEXT[name],)
        if name == "kf_len":
            return ("kf_body", int(token[3:]))
        if name == "kf_body":
            return ("kf_chain", state[1] - 1, state[1])
        if name == "kf_chain":
            return ("kf_food_x", state[2]) if token == "FOOD" else ("kf_chain", state[1] - 1, state[2])
        if name == "kf_food_x":
            return ("kf_v",) if token == "SCORE" else ("kf_food_y",)
        if name == "outcome" and token[0] == "X":  # head-first: the cell, then its outcome word
            return ("cell_y",)
        if name == "outcome" and token in SENSE_OF:  # sense: the word, then grammar v1's outcome
            return ("after_sense",)
        if name == "after_cell":
            return {"MOVE": ("after_move",), "EAT": ("grow",), "DIE_SELF": ("end",)}[token]
        if name == "outcome" or name == "after_free" or name == "after_sense":
            return {"MOVE": ("move_x", "move"), "EAT": ("eat_move",), "DIE_WALL": ("end",), "DIE_SELF": ("end",), FREE: ("free_x",)}[token]
        if name == "eat_move":
            return ("move_x", "eat")
        if name == "move_x":
            return ("move_y", state[1])
        if name == "move_y":
            return ("after_move",) if state[1] == "move" else ("grow",)
        if name == "len":  # the body-list design: the grown body's n - 1 cells behind the head (none on a full board)
            length = int(token[3:])
            if self.body_list and length < self.cells:
                return ("listed_x", length - 1)
            return ("list_or_spawn",) if self.body_list is None else ("spawn_or_score",)
        if name == "listed_x":
            return ("spawn_x",) if token == "FOOD_SPAWN" else ("listed_y", state[1] - 1)
        if name == "listed_y":
            return ("listed_x", state[1]) if state[1] is not None else ("after_listed",)
        if name == "list_or_spawn" or name == "after_listed":
            if token[0] == "X":
                return ("listed_y", None)
            return ("spawn_x",) if token == "FOOD_SPAWN" else ("v",)
        if name == "spawn_or_score":
            return ("spawn_x",) if token == "FOOD_SPAWN" else ("v",)
        if name == "spawn_x":
            return {True: ("spawn_column", self.height), False: ("spawn_y",), None: ("spawn_y_or_column",)}[self.spawn_column]
        if name == "spawn_y_or_column" or name == "spawn_column":
            return ("spawn_column", (state[1] if name == "spawn_column" else self.height) - 1) if token in COLUMN_OF else ("score",)
        # after_move / after_eat
        return {"TICK": ("input",), "SNAP": ("kf_player",)}.get(token, ("end",))  # TIMEOUT or WIN end it


# The states whose successor does not depend on the token.
_NEXT = {
    "start": "kf_snap",
    "kf_snap": "kf_player",
    "kf_player": "kf_x",
    "kf_x": "kf_y",
    "kf_y": "kf_dir",
    "kf_dir": "kf_len",
    "kf_food_y": "kf_score",
    "kf_score": "kf_v",
    "kf_v": "tick",
    "tick": "input",
    "input": "outcome",
    "free_x": "free_y",
    "free_y": "after_free",
    "cell_y": "after_cell",
    "grow": "len",
    "spawn_y": "score",
    "score": "v",
    "v": "after_eat",
    "end": "done",
}
