"""Battlesnake's token grammar: the one place that knows how events and states are written as tokens.

```
episode  := BOS keyframe tick* EOS
keyframe := SNAP snake+ FOOD cell*                    every live snake (by index), then all food (row-major)
snake    := Sk cell LENn Hh b{n-1}                    head, length, health, then each segment's step from the one before
b        := B_U | B_D | B_L | B_R | B_S               B_S: the same cell (a stacked tail)
tick     := TICK move+ death* spawn* [end] [keyframe]
move     := Sk d [SMELL_s] [SENSE_s] [HIT] [FREE cell] (cell [MEET] [EAT LENn H100] | OUT)
                                                      one per snake alive before the tick, by index: its input d,
                                                      [the food beside its head: the smell design], [the bodies
                                                      beside it: the sense design], [its head lands on a body: the
                                                      hits design], [the cell its tail left: the tails design], its
                                                      new head (or OUT: off the board), [it lands on an earlier
                                                      mover's new head: the hits design], [it ate: its new length,
                                                      health reset]
death    := Sk DIE_HEALTH | DIE_WALL | DIE_SELF | DIE_BODY | DIE_HEAD     by index, each a snake that moved this tick
spawn    := SPAWN cell                                in the order food spawned
end      := WIN | DRAW | DEATH | TIMEOUT
cell     := Xx Yy | XxYy (the cells design)           d := UP | DOWN | LEFT | RIGHT
s        := the directions U, D, L, R (in that order) whose neighbour of the head holds food (SMELL) or a
            body segment that stays through the move (SENSE), or NONE
```

Decisions, and why:
- Causal: the phases of a turn are written in the order they happen. A snake's input, head and
  eating depend on nothing another snake does this turn, so each snake's are written together;
  eliminations depend on every snake's move, so they come after all the moves; spawns depend on
  the eliminations (a dead snake's head blocks nothing), so they come after them; the end is the
  next turn's game-over check, so it comes last. A keyframe shows the state after its tick, after
  the tick's events, and never after the end.
- Exact: the vocabulary comes from the config (X0..X{W-1}, Y0..Y{H-1}, S0..S{n-1}, LEN3 up to the
  longest possible snake, H1..H100); nothing is capped.
- Entities: every per-snake element starts with its snake's token Sk, so the model can attend by snake.
- Health is written only where it is not the plain countdown: in keyframes, and as H100 after EAT.
  Between keyframes the model must count ticks since a snake last ate, as it must track bodies from moves.
- Complete keyframes (every live snake's body and health, all food) rebuild the state alone: the
  evaluator and a sliding-window sampler can start from any of them.
- Two designs, one vocabulary (the learnability comparison of the issue): by default a move writes
  the new head only, and the model must remember where each body ends; with `tails=True`
  (`BattlesnakeCodec(tails=True)`, or `EpisodeEncoder(codec, tails=True)`) it also writes
  `FREE cell`, the cell the snake's tail left (none when the tail stays: the turn after it ate, or
  at the start), before the new head, so "is this cell occupied" is "was it last written as a head
  or as a FREE". The parser reads both unless it is told the design (`parse(..., tails=False)`: a
  FREE is then a grammar error at that word, as in the automaton of that design); the strict
  evaluator checks FREE cells whenever a sequence has any, and holds a declared design to its words.
- The smell option (`BattlesnakeCodec(smell=True)`, `generate --smell`; with or without tails) writes
  after each input the directions in which the head's neighbour holds food, on the board before the
  move: `S0 LEFT SMELL_UL X3 Y5 EAT LEN4 H100`. Food is written once (a keyframe or a SPAWN) and must
  be carried until a head reaches it; models of the plain design learned everything but that (a
  missed or invented EAT first broke 660 of 1000 duels). The word asks for the food around every head
  on every move, as Snake's SENSE words ask for the body; an EAT is then the input's direction being
  in it. Its 16 words follow the plain vocabulary, so a plain corpus's token ids are unchanged; the
  strict evaluator's `food_smelled` holds a smell sequence to them.
- The cells option (`BattlesnakeCodec(cells=True)`, `generate --cells`; with any other option) writes every cell as
  one word, `X3Y5` for `X3 Y5`, as Go writes a point: whether a head meets food, a body or another head is then
  whether two words are the same, one attention lookup, where the pair spelling asks the model to match two tokens
  at once. It is a respelling and nothing more (`as_cells` and `as_pairs` turn one into the other), so the parser,
  the evaluator and every reader of the pair spelling read a cells sequence through `as_pairs`, with positions
  mapped back. Its words follow the plain and the SMELL words (a cells corpus's vocabulary has all three).
- The sense option (`BattlesnakeCodec(sense=True)`, `generate --sense`; with any other option) writes after each
  input (and its SMELL word) the directions in which the head's neighbour holds a body segment that stays through the
  move: every live snake's body but its last segment, which its tail leaves (a stacked tail stays), on the board
  before the move: `S0 LEFT SENSE_UR X3Y5`. It is Snake's SENSE word for this game: models of the other designs
  wrote the heads and the food and still half of the deaths, because a body is written once (a keyframe) and then
  only as heads that pass; the word asks for the bodies around every head on every move, and a self or body
  collision is then the input's direction being in it (unless the body's snake leaves the board or starves in the
  same turn, which the evaluator's rules still decide). Walls are not in it: the head's own cell shows them. Its 16
  words come last in the vocabulary, so every other corpus keeps its ids; the strict evaluator's `body_sensed` holds
  a sense sequence to them.
- The hits option (`BattlesnakeCodec(hits=True)`, `generate --hits`; with any other option) writes the two facts of
  the board that a collision is made of, where the move that makes them is written: `HIT` after the input (and its
  SMELL and SENSE words) when the head lands on a segment that stays through the move (the SENSE word's bit of the
  input), and `MEET` after the new head when an earlier mover's new head is on the same cell this tick:
  `S0 UP SENSE_ULR HIT X2Y1` (then `S0 DIE_SELF`), `S1 UP SENSE_DL X5Y3 MEET` (S0's new head was X5Y3). Why: models of every other design wrote the walls' deaths (the head's
  own word, OUT, shows them) and almost none of the others, even with SENSE words 95% right beside the input: the
  death section, written after every move, had to combine two words of an earlier entry, where a wall death only
  copies a word. HIT and MEET make a body or head-on death a copy as well (which snake dies of a MEET is still the
  lengths' question, and a body whose snake leaves the board or starves this turn kills nobody: the evaluator's
  rules decide). Its two words come last in the vocabulary; the strict evaluator's `collision_marked` holds a hits
  sequence to them.
- Salience (`EVENTS` in rules.py): inputs, heads and FREE are MOVEMENT, eliminations COLLISION, EAT
  and SPAWN RULE_EFFECT, ends PHASE. A codec's min_salience drops events; a snake token Sk is kept
  before the first kept element of its move. The strict evaluator needs full salience.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache

from gamegrammar.core.episode_grammar import GrammarError as GrammarError  # the error the game's parser raises
from gamegrammar.core.episode_grammar import episode_prefix as prefix_of
from gamegrammar.core.episode_grammar import expect_word, fail, read_episode, token_at
from gamegrammar.core.events import Event
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig
from gamegrammar.games.battlesnake.rules import (
    CAUSES,
    END_REASONS,
    MAX_HEALTH,
    START_LENGTH,
    BattlesnakeConfig,
    BattlesnakeState,
    Cell,
    Move,
    Snake,
    event,
    move_between,
    snake_id,
    sorted_food,
    step,
)

END_EVENTS = END_REASONS
INPUT_TOKEN = {Move.U: "UP", Move.D: "DOWN", Move.L: "LEFT", Move.R: "RIGHT"}
INPUT_OF = {t: m for m, t in INPUT_TOKEN.items()}
DIE_TOKEN = dict(zip(CAUSES, ("DIE_HEALTH", "DIE_WALL", "DIE_SELF", "DIE_BODY", "DIE_HEAD")))
CAUSE_OF = {t: c for c, t in DIE_TOKEN.items()}
STEP_TOKEN: dict[Move | None, str] = {Move.U: "B_U", Move.D: "B_D", Move.L: "B_L", Move.R: "B_R", None: "B_S"}
STEP_OF = {t: m for m, t in STEP_TOKEN.items()}
_WORDS = ["TICK", "SNAP", "FOOD", "EAT", "OUT", "SPAWN", "FREE", *END_EVENTS]


def smell_token(mask: int) -> str:
    """The smell option's word for a mask of directions (bit m: the neighbour in direction Move(m) holds food)."""
    return "SMELL_" + ("".join(m.name for m in Move if mask >> m & 1) or "NONE")


SMELL_TOKENS = [smell_token(mask) for mask in range(16)]
SMELL_OF = {token: mask for mask, token in enumerate(SMELL_TOKENS)}


def sense_token(mask: int) -> str:
    """The sense option's word for a mask of directions (bit m: the neighbour in direction Move(m) holds a body)."""
    return "SENSE_" + ("".join(m.name for m in Move if mask >> m & 1) or "NONE")


SENSE_TOKENS = [sense_token(mask) for mask in range(16)]
SENSE_OF = {token: mask for mask, token in enumerate(SENSE_TOKENS)}
HIT_WORDS = ["HIT", "MEET"]  # the hits option's words: a head on a staying body, a head on an earlier mover's new head


@dataclass(frozen=True)
class BattlesnakeCodec(CodecConfig):
    """A codec with this game's grammar options: `tails` writes the cell each tail leaves (the second design); `smell`
    writes after each input the food beside the head. `to_dict` names `smell` only when it is on, so a corpus written
    without it has the manifest it had before the option existed."""

    # Each help is its `generate` flag's (`--tails`), which adds the game it belongs to.
    tails: bool = field(default=False, metadata={"help": "write FREE and the cell a snake's tail leaves before its new head"})
    smell: bool = field(default=False, metadata={"help": "write after each input the directions in which the head's neighbour holds food"})
    cells: bool = field(default=False, metadata={"help": "write every cell as one word (X3Y5) instead of two (X3 Y5)"})
    sense: bool = field(
        # Snake's --sense help, word for word: one flag, the same word in both games (here: a body that stays through the move)
        default=False,
        metadata={"help": "write after each input the directions in which the head's neighbour is deadly body"},
    )
    hits: bool = field(
        default=False,
        metadata={"help": "write HIT where a head lands on a body that stays and MEET where it lands on another new head"},
    )

    def to_dict(self) -> dict[str, int]:
        options = {name: 1 for name in ("smell", "cells", "sense", "hits") if getattr(self, name)}
        return {**super().to_dict(), "tails": int(self.tails), **options}


def smell_of(codec: CodecConfig | None) -> bool:
    """Does this codec write the smell words? (Any other game's CodecConfig does not.)"""
    return bool(getattr(codec, "smell", False))


def cells_of(codec: CodecConfig | None) -> bool:
    """Does this codec write each cell as one word?"""
    return bool(getattr(codec, "cells", False))


def sense_of(codec: CodecConfig | None) -> bool:
    """Does this codec write the sense words?"""
    return bool(getattr(codec, "sense", False))


def hits_of(codec: CodecConfig | None) -> bool:
    """Does this codec write the HIT and MEET words?"""
    return bool(getattr(codec, "hits", False))


def vocabulary(config: BattlesnakeConfig, *, smell: bool = True, cells: bool = True, sense: bool = True, hits: bool = True) -> list[str]:
    """Every token of the grammar for this config; values are exact, never capped. The smell words come after the
    plain ones, then the cell words, the sense words and the hits words (`smell=False`, ..., `hits=False` leaves them
    out: the vocabulary of a corpus written without them, `codec_vocabulary`)."""
    return [
        *SPECIAL_TOKENS,
        *_WORDS,
        *INPUT_TOKEN.values(),
        *DIE_TOKEN.values(),
        *STEP_TOKEN.values(),
        *(snake_id(k) for k in range(config.num_snakes)),
        *(f"X{x}" for x in range(config.width)),
        *(f"Y{y}" for y in range(config.height)),
        *(f"LEN{n}" for n in range(START_LENGTH, config.max_length + 1)),
        *(f"H{h}" for h in range(1, MAX_HEALTH + 1)),
        *(SMELL_TOKENS if smell else []),
        *(cell_words(config) if cells else []),
        *(SENSE_TOKENS if sense else []),
        *(HIT_WORDS if hits else []),
    ]


def codec_vocabulary(config: BattlesnakeConfig, codec: CodecConfig) -> list[str]:
    """The vocabulary of a corpus written with `codec`: each option's words where it writes them or where a later
    option's words follow them (so that every word keeps the id it has in the whole vocabulary)."""
    hits = hits_of(codec)
    sense = sense_of(codec) or hits
    cells = cells_of(codec) or sense
    return vocabulary(config, smell=smell_of(codec) or cells, cells=cells, sense=sense, hits=hits)


def input_tokens() -> list[str]:
    """The tokens an agent's input is written as."""
    return list(INPUT_TOKEN.values())


# ---------------------------------------------------------------- encoding


def cell_tokens(cell: Cell, cells: bool = False) -> list[str]:
    """A cell as the grammar writes it: `Xx Yy`, or with the cells option the one word `XxYy`."""
    return [cell_word(cell)] if cells else [f"X{cell[0]}", f"Y{cell[1]}"]


def cell_word(cell: Cell) -> str:
    return f"X{cell[0]}Y{cell[1]}"


def cell_words(config: BattlesnakeConfig) -> list[str]:
    """The cells option's words, column by column."""
    return [cell_word((x, y)) for x in range(config.width) for y in range(config.height)]


def keyframe_tokens(state: BattlesnakeState, cells: bool = False) -> list[str]:
    tokens = ["SNAP"]
    for k, s in enumerate(state.snakes):
        if not s.alive:
            continue
        tokens += [snake_id(k), *cell_tokens(s.head, cells), f"LEN{s.length}", f"H{s.health}"]
        for a, b in zip(s.body, s.body[1:]):
            tokens.append(STEP_TOKEN[None if a == b else move_between(a, b)])
    tokens.append("FOOD")
    for cell in state.food:
        tokens += cell_tokens(cell, cells)
    return tokens


@cache
def cell_of_word(token: str) -> Cell | None:
    """The cell a cells-option word `XxYy` names, or None for any other token."""
    if not token.startswith("X"):
        return None
    x, sep, y = token[1:].partition("Y")
    if not sep or not (x.isascii() and x.isdigit() and y.isascii() and y.isdigit()):
        return None
    return int(x), int(y)


NOT_IN_DESIGN = "~"  # marks, in `as_pairs`'s output, a word the declared design does not have: no grammar reads it


def as_cells(tokens: Sequence[str]) -> list[str]:
    """The cells spelling of a sequence: every `Xx Yy` pair as the word `XxYy`."""
    out: list[str] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        if i + 1 < n and token_value(token, "X") is not None and token_value(tokens[i + 1], "Y") is not None:
            out.append(token + tokens[i + 1])
            i += 2
        else:
            out.append(token)
            i += 1
    return out


def as_pairs(tokens: Sequence[str], cells: bool | None = None) -> tuple[list[str], list[int]]:
    """The pair spelling of a sequence, which the parser and the evaluator read, and for each of its tokens the index
    of the token it was written from (both halves of a cell word come from the word).

    `cells` declares the design as `parse` takes options: True (the cells design) marks a bare `Xx` or `Yy` word as
    not the design's (`NOT_IN_DESIGN`: the parser stops there, a grammar error at that word); False leaves cell words
    as they are (the pair grammar stops at them); None reads both spellings."""
    out: list[str] = []
    origin: list[int] = []
    for i, token in enumerate(tokens):
        cell = cell_of_word(token)
        if cell is not None and cells is not False:
            out += [f"X{cell[0]}", f"Y{cell[1]}"]
            origin += [i, i]
            continue
        if cells and (token_value(token, "X") is not None or token_value(token, "Y") is not None):
            token = NOT_IN_DESIGN + token
        out.append(token)
        origin.append(i)
    return out, origin


class EpisodeEncoder:
    """Streams one episode into tokens: `start(state)`, then `tick(events, state_after, done)`.

    With `tails` (from a `BattlesnakeCodec`, or given) each move also writes the cell the tail left,
    worked out from the state before and after the tick; with `smell`, the food beside the head before it; with
    `sense`, the bodies beside it; with `hits`, HIT and MEET where a head lands on a body or on another new head; with
    `cells`, every cell as one word.
    """

    def __init__(self, codec: CodecConfig | None = None, *, tails: bool | None = None) -> None:
        self.codec = codec or CodecConfig()
        self.tails = bool(getattr(self.codec, "tails", False)) if tails is None else tails
        self.smell = smell_of(self.codec)
        self.sense = sense_of(self.codec)
        self.hits = hits_of(self.codec)
        self.cells = cells_of(self.codec)
        self.tokens: list[str] = []
        self.state: BattlesnakeState | None = None

    def start(self, state: BattlesnakeState) -> None:
        self.tokens = ["BOS", *keyframe_tokens(state, self.cells)]
        self.state = state

    def tick(self, events: Sequence[Event], state: BattlesnakeState, done: bool) -> None:
        before = self.state
        out = self.tokens
        floor = self.codec.min_salience
        named = -1  # the snake whose move is being written (its Sk is out)
        landed: set[Cell] = set()  # the new heads written so far this tick (the hits design's MEET)
        for ev in events:
            kind = ev.type
            if ev.salience < floor:
                continue
            p = ev.payload
            if kind in ("INPUT", "MOVE", "OUT", "EAT"):
                k = p["snake"]
                if named != k:
                    out.append(snake_id(k))
                    named = k
                if kind == "INPUT":
                    out.append(INPUT_TOKEN[Move[p["move"]]])
                    if self.smell or self.sense or self.hits:
                        if before is None:
                            raise ValueError("the smell, sense and hits encoders need start(state) before the first tick")
                        if self.smell:
                            out.append(SMELL_TOKENS[food_beside(before, k)])
                        bodies = body_beside(before, k) if self.sense or self.hits else 0
                        if self.sense:
                            out.append(SENSE_TOKENS[bodies])
                        if self.hits and bodies >> Move[p["move"]] & 1:
                            out.append("HIT")
                    continue
                if kind == "EAT":
                    out += ["EAT", f"LEN{p['length']}", f"H{p['health']}"]
                    continue
                if self.tails and before is not None:
                    freed = tail_left(before.snakes[k].body)
                    if freed is not None:
                        out += ["FREE", *cell_tokens(freed, self.cells)]
                if kind == "MOVE":
                    head = (p["x"], p["y"])
                    out += cell_tokens(head, self.cells)
                    if self.hits and head in landed:
                        out.append("MEET")
                    landed.add(head)
                else:
                    out.append("OUT")
                continue
            named = -1
            if kind == "DIE":
                out += [snake_id(p["snake"]), DIE_TOKEN[p["cause"]]]
            elif kind == "SPAWN":
                out += ["SPAWN", *cell_tokens((p["x"], p["y"]), self.cells)]
            else:  # TICK and the end events are one word each
                out.append(kind)
        self.state = state
        if done:
            out.append("EOS")
        elif self.codec.keyframe_after(state.tick):
            out += keyframe_tokens(state, self.cells)


def food_beside(state: BattlesnakeState, k: int) -> int:
    """The smell word's mask for snake k: bit m where the neighbour of its head in direction Move(m) holds food."""
    head, food = state.snakes[k].head, state.food
    return sum(1 << m for m in Move if step(head, m) in food)


def body_beside(state: BattlesnakeState, k: int) -> int:
    """The sense word's mask for snake k: bit m where the neighbour of its head in direction Move(m) holds a segment
    that stays through the move (any live snake's body but its last segment; a stacked tail's cell stays)."""
    staying = {cell for s in state.snakes if s.alive for cell in s.body[:-1]}
    head = state.snakes[k].head
    return sum(1 << m for m in Move if step(head, m) in staying)


def tail_left(body: Sequence[Cell]) -> Cell | None:
    """The cell a body's tail leaves when it moves: None when the tail is stacked (it stays)."""
    if len(body) >= 2 and body[-1] == body[-2]:
        return None
    return body[-1]


# ---------------------------------------------------------------- parsing


@dataclass(slots=True)
class SnakeFrame:
    """One snake of a keyframe; `at` is the index of its Sk token (head X at +1, LEN at +3, H at +4, step j at +5+j)."""

    snake: int
    head: Cell
    length: int
    health: int
    steps: list[Move | None]
    at: int

    def body(self) -> tuple[Cell, ...]:
        cells = [self.head]
        for move in self.steps:
            cells.append(cells[-1] if move is None else step(cells[-1], move))
        return tuple(cells)


@dataclass(slots=True)
class Keyframe:
    """A parsed keyframe; `food_at` is the index of the FOOD word (food j's X at food_at + 1 + 2j)."""

    start: int
    end: int
    snakes: list[SnakeFrame]
    food: list[Cell]
    food_at: int

    @property
    def alive(self) -> list[int]:
        return [s.snake for s in self.snakes]

    def state(self, tick: int, num_snakes: int) -> BattlesnakeState:
        """The state the keyframe shows; snakes it does not list are eliminated, their bodies unknown (empty)."""
        shown = {s.snake: s for s in self.snakes}
        snakes = []
        for k in range(max(num_snakes, max(shown, default=-1) + 1)):
            frame = shown.get(k)
            if frame is None:
                snakes.append(Snake((), 0, "unknown", snake_id(k)))
            else:
                snakes.append(Snake(frame.body(), frame.health, "", snake_id(k)))
        return BattlesnakeState(tuple(snakes), sorted_food(self.food), tick)


@dataclass(slots=True)
class MoveEntry:
    """One snake's move in a tick. positions: snake (Sk), input, smell (the SMELL word), sense (the SENSE word), hit (HIT),
    free (X of the FREE cell), head (X, or OUT), meet (MEET), after (the token after the head and its MEET: EAT or the
    next element), length (LEN), health (H)."""

    snake: int
    input: Move
    head: Cell | None  # None: OUT, off the board
    smell: int | None = None  # the SMELL word's mask of directions (smell design), not an event
    sense: int | None = None  # the SENSE word's mask of directions (sense design), not an event
    hit: bool = False  # a HIT word was written (hits design), not an event
    meet: bool = False  # a MEET word was written (hits design)
    free: Cell | None = None
    eat: bool = False
    length: int | None = None
    health: int | None = None
    positions: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class Death:
    snake: int
    cause: str  # the official cause name
    at: int  # index of the Sk token (the DIE word is at + 1)


@dataclass(slots=True)
class Tick:
    """A parsed tick. positions: deaths (where the death section starts), spawns (where the spawn section
    starts), end (the end word, or where it would be: after the spawns)."""

    start: int
    end: int
    number: int
    moves: list[MoveEntry]
    deaths: list[Death]
    spawns: list[Cell]
    spawn_at: list[int]  # X of each spawn's cell
    end_event: str | None
    positions: dict[str, int]
    keyframe: Keyframe | None = None

    @property
    def movers(self) -> list[int]:
        return [m.snake for m in self.moves]

    @property
    def alive_after(self) -> list[int]:
        """The snakes left after this tick as written (the keyframe's, if it has one)."""
        if self.keyframe is not None:
            return self.keyframe.alive
        dead = {d.snake for d in self.deaths}
        return [k for k in self.movers if k not in dead]

    def events(self) -> list[Event]:
        t = self.number
        out = [event("TICK", t)]
        for m in self.moves:
            out.append(event("INPUT", t, snake=m.snake, move=m.input.name))
            if m.head is None:
                out.append(event("OUT", t, snake=m.snake))
            else:
                out.append(event("MOVE", t, snake=m.snake, x=m.head[0], y=m.head[1]))
            if m.eat:
                out.append(event("EAT", t, snake=m.snake, length=m.length, health=m.health))
        out += [event("DIE", t, snake=d.snake, cause=d.cause) for d in self.deaths]
        out += [event("SPAWN", t, x=x, y=y) for x, y in self.spawns]
        if self.end_event is not None:
            out.append(event(self.end_event, t))
        return out


_PREFIXES = ("X", "Y", "S", "LEN", "H")
_VALUE_OF = {p: {f"{p}{v}": v for v in range(1024)} for p in _PREFIXES}  # fast lookup of the usual values


def token_value(token: str | None, prefix: str) -> int | None:
    """The value of a <prefix><digits> token (any value: bounds are the evaluator's question), or None."""
    if token is None:
        return None
    value = _VALUE_OF[prefix].get(token)
    if value is not None:
        return value
    if not token.startswith(prefix):
        return None
    digits = token[len(prefix) :]
    return int(digits) if digits.isascii() and digits.isdigit() else None


def _number(tokens: Sequence[str], i: int, prefix: str) -> int:
    value = token_value(token_at(tokens, i), prefix)
    if value is None:
        raise fail(tokens, i, f"expected {prefix}<n>")
    return value


def _cell(tokens: Sequence[str], i: int) -> Cell:
    return _number(tokens, i, "X"), _number(tokens, i + 1, "Y")


def read_cell(tokens: Sequence[str], i: int) -> Cell:
    """The cell written as `Xx Yy` at token i; GrammarError if those two tokens are not one."""
    return _cell(tokens, i)


def _snake(token: str | None) -> int | None:
    return token_value(token, "S")


def read_keyframe(tokens: Sequence[str], i: int) -> Keyframe:
    """SNAP (Sk Xx Yy LENn Hh b*)+ FOOD (Xx Yy)*, starting at i."""
    start = i
    i = expect_word(tokens, i, "SNAP")
    snakes: list[SnakeFrame] = []
    n = len(tokens)
    while True:
        k = _snake(token_at(tokens, i))
        if k is None:
            if not snakes:
                raise fail(tokens, i, "expected a snake S<k>")
            break
        if snakes and k <= snakes[-1].snake:
            raise fail(tokens, i, f"expected a snake after S{snakes[-1].snake} (by index) or FOOD")
        head = _cell(tokens, i + 1)
        length = _number(tokens, i + 3, "LEN")
        health = _number(tokens, i + 4, "H")
        j = i + 5
        steps: list[Move | None] = []
        while j < n and tokens[j] in STEP_OF:
            steps.append(STEP_OF[tokens[j]])
            j += 1
        snakes.append(SnakeFrame(k, head, length, health, steps, i))
        i = j
    food_at = i
    i = expect_word(tokens, i, "FOOD")
    food = []
    while token_value(token_at(tokens, i), "X") is not None:
        food.append(_cell(tokens, i))
        i += 2
    return Keyframe(start, i, snakes, food, food_at)


def _tick(
    tokens: Sequence[str],
    i: int,
    number: int,
    movers: Sequence[int],
    tails: bool | None = None,
    smell: bool | None = None,
    sense: bool | None = None,
    hits: bool | None = None,
) -> Tick:
    """TICK move+ death* spawn* [end], starting at i (which holds TICK), for the snakes `movers`.

    `tails` False: a design without FREE is declared (a FREE is a grammar error at that word); `smell` False the
    same for a SMELL word, `sense` False for a SENSE word, `hits` False for HIT and MEET."""
    start = i
    i += 1
    moves = []
    for k in movers:
        name = snake_id(k)
        if token_at(tokens, i) != name:
            raise fail(tokens, i, f"expected {name}, the next snake to move")
        move = INPUT_OF.get(token_at(tokens, i + 1))  # type: ignore[arg-type]
        if move is None:
            raise fail(tokens, i + 1, "expected a move (UP, DOWN, LEFT or RIGHT)")
        entry = MoveEntry(k, move, None, positions={"snake": i, "input": i + 1})
        i += 2
        for option, words, allowed in (("smell", SMELL_OF, smell), ("sense", SENSE_OF, sense)):  # in this order
            mask = words.get(token_at(tokens, i))  # type: ignore[arg-type]
            if mask is None:
                continue
            if allowed is False:
                word = option.upper()
                raise fail(tokens, i, f"expected a head cell X<n> Y<n> or OUT ({word} words are the {option} design's, not this one's)")
            setattr(entry, option, mask)
            entry.positions[option] = i
            i += 1
        i = _mark(tokens, i, entry, "HIT", hits, "a head cell X<n> Y<n> or OUT")
        if token_at(tokens, i) == "FREE":
            if tails is False:
                raise fail(tokens, i, "expected a head cell X<n> Y<n> or OUT (FREE is the tails design's word, not this one's)")
            entry.positions["free"] = i + 1
            entry.free = _cell(tokens, i + 1)
            i += 3
        entry.positions["head"] = i
        if token_at(tokens, i) == "OUT":
            i += 1
        else:
            if token_value(token_at(tokens, i), "X") is None:
                raise fail(tokens, i, "expected a head cell X<n> Y<n>, OUT" + ("" if "free" in entry.positions else " or FREE"))
            entry.head = _cell(tokens, i)
            i += 2
            i = _mark(tokens, i, entry, "MEET", hits, "EAT or the next element")
            if token_at(tokens, i) == "EAT":
                entry.eat = True
                entry.positions["length"] = i + 1
                entry.length = _number(tokens, i + 1, "LEN")
                entry.positions["health"] = i + 2
                entry.health = _number(tokens, i + 2, "H")
                entry.positions["after"] = i
                i += 3
        entry.positions.setdefault("after", i)
        moves.append(entry)
    positions = {"deaths": i}
    deaths: list[Death] = []
    moved = set(movers)
    while (k := _snake(token_at(tokens, i))) is not None:
        if k not in moved or (deaths and k <= deaths[-1].snake):
            raise fail(tokens, i, "expected the death of a snake that moved this tick, by index")
        cause = CAUSE_OF.get(token_at(tokens, i + 1))  # type: ignore[arg-type]
        if cause is None:
            raise fail(tokens, i + 1, "expected DIE_<cause>")
        deaths.append(Death(k, cause, i))
        i += 2
    positions["spawns"] = i
    spawns, spawn_at = [], []
    while token_at(tokens, i) == "SPAWN":
        spawns.append(_cell(tokens, i + 1))
        spawn_at.append(i + 1)
        i += 3
    positions["end"] = i
    end_event = None
    if token_at(tokens, i) in END_EVENTS:
        end_event = tokens[i]
        i += 1
    return Tick(start, i, number, moves, deaths, spawns, spawn_at, end_event, positions)


def _mark(tokens: Sequence[str], i: int, entry: MoveEntry, word: str, hits: bool | None, expected: str) -> int:
    """The hits design's HIT or MEET at i, if it is written there (a grammar error where the design is declared
    without it): the index after it."""
    if token_at(tokens, i) != word:
        return i
    if hits is False:
        raise fail(tokens, i, f"expected {expected} ({word} is the hits design's word, not this one's)")
    setattr(entry, word.lower(), True)
    entry.positions[word.lower()] = i
    return i + 1


def parse(
    tokens: Sequence[str],
    *,
    to_eos: bool = False,
    tails: bool | None = None,
    smell: bool | None = None,
    sense: bool | None = None,
    hits: bool | None = None,
) -> Iterator[Keyframe | Tick]:
    """Yield the first keyframe, then each tick, as far as the grammar allows; then check EOS.

    Raises GrammarError at the first token the grammar does not allow. A prefix that simply stops
    is not a grammar error here (whether the sequence is complete is the caller's question); its
    error says `at_end`. The snakes that must move in a tick are those left after the tick before
    (as written: its movers less its deaths), or those of the keyframe before it.

    By default the episode must also end properly: nothing but EOS after an end event, no EOS
    before one, nothing after EOS. With `to_eos=True` only the bare grammar is enforced and parsing
    stops at the first EOS: the strict evaluator reads ticks written after an end event and reports
    them as its own rule. A tick whose keyframe breaks the grammar is yielded (without it) before
    the error is raised.

    `tails` declares the design: False (the plain design) makes a FREE a grammar error at that word;
    True or None (not declared) read FREE cells wherever they are written (whether they are where
    the tails design puts them is the evaluator's `tail_freed`). `smell` declares the smell option the same way
    (whether each SMELL word is right, or missing, is the evaluator's `food_smelled`), `sense` the sense option
    (the evaluator's `body_sensed`) and `hits` the hits option (`collision_marked`).
    """

    def tick(tokens: Sequence[str], i: int, number: int, previous: Keyframe | Tick) -> Tick:
        movers = previous.alive if isinstance(previous, Keyframe) else previous.alive_after
        return _tick(tokens, i, number, movers, tails, smell, sense, hits)

    return read_episode(tokens, read_keyframe, tick, to_eos=to_eos)


@dataclass
class DecodedEpisode:
    initial: BattlesnakeState
    events: list[Event]
    keyframes: dict[int, Keyframe]
    end_reason: str | None


def decode(tokens: Sequence[str] | str, num_snakes: int | None = None) -> DecodedEpisode:
    """The events and keyframes of a full-salience episode (FREE cells, a derived annotation, are not events)."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    items = parse(tokens)
    first = next(items)
    assert isinstance(first, Keyframe)
    initial = first.state(0, num_snakes if num_snakes is not None else len(first.snakes))
    events: list[Event] = []
    keyframes = {0: first}
    end = None
    for tick in items:
        assert isinstance(tick, Tick)
        events += tick.events()
        end = tick.end_event
        if tick.keyframe is not None:
            keyframes[tick.number] = tick.keyframe
    return DecodedEpisode(initial, events, keyframes, end)


def episode_prefix(tokens: Sequence[str], ticks: int) -> list[str]:
    """The first keyframe and the first `ticks` ticks of an episode: a prompt from real play."""
    return prefix_of(tokens, parse(tokens), ticks)


# ---------------------------------------------------------------- constrained decoding


class GrammarAutomaton:
    """Which tokens the grammar allows next: an action mask for sampling, never a rules check.

    It knows the grammar (word order, value kinds, which snakes must move: those left after the tick
    before, a body chain as long as its LEN), not the rules: a constrained model can still move the
    wrong way, or write a death the rules do not allow. A state is a small tuple of ints;
    `allowed(state)` is the set of next tokens and `step(state, token)` the next state (None where the
    grammar says no). Snake sets are bit masks. `tails` is the design, as `parse` takes it: False
    allows no FREE (the plain design's grammar); True or None allow one before any head. `smell` True
    asks for a SMELL word after every input (the smell design), False allows none, None allows one; `sense` the same
    for a SENSE word after it. `hits` False allows no HIT or MEET; True or None allow each where it may stand (whether
    it belongs there is the rules').
    """

    def __init__(
        self,
        config: BattlesnakeConfig,
        tails: bool | None = None,
        smell: bool | None = None,
        sense: bool | None = None,
        hits: bool | None = None,
    ) -> None:
        vocab = vocabulary(config)
        self.n = config.num_snakes
        self.tails = tails
        self.smell = smell
        self.sense = sense
        self.hits = hits
        self.smells = frozenset(SMELL_TOKENS)
        self.senses = frozenset(SENSE_TOKENS)
        self.xs = frozenset(t for t in vocab if token_value(t, "X") is not None)
        self.ys = frozenset(t for t in vocab if token_value(t, "Y") is not None)
        self.lens = frozenset(t for t in vocab if token_value(t, "LEN") is not None)
        self.hs = frozenset(t for t in vocab if token_value(t, "H") is not None)
        self.inputs = frozenset(INPUT_TOKEN.values())
        self.dies = frozenset(DIE_TOKEN.values())
        self.steps = frozenset(STEP_TOKEN.values())
        self.ends = frozenset(END_EVENTS)
        self.snakes = [snake_id(k) for k in range(self.n)]
        self._cache: dict[tuple, frozenset[str]] = {}

    # States (phase, ...):
    #   ("bos",) ("snap",) ("kf_sk", prev, listed) ("kf_x"|"kf_y", k, listed) ("kf_len", k, listed) ("kf_h", k, listed, steps)
    #   ("kf_step", k, listed, left) ("kf_food", listed) ("kf_food_y", listed)
    #   ("mv_sk", movers, left) ("mv_in", movers, left) ("mv_smell"|"mv_sense"|"mv_hit", movers, left) ("mv_free_or_head", movers, left)
    #   ("mv_free_x"|"mv_free_y", movers, left)
    #   ("mv_head", movers, left) ("mv_y", movers, left) ("mv_after"|"mv_met", movers, left) ("eat_len"|"eat_h", movers, left)
    #   ("post", movers, dead, prev, spawned) ("die", movers, dead, k) ("sp_x"|"sp_y", movers, dead) ("eos",) ("done",)
    # `left` is the mask of movers still to write, lowest first; the current mover is its lowest bit.

    def start(self) -> tuple:
        return ("bos",)

    def allowed(self, state: tuple) -> frozenset[str]:
        found = self._cache.get(state)
        if found is None:
            found = self._cache[state] = frozenset(self._allowed(state))
        return found

    def _after_move(self, movers: int, left: int) -> set[str]:
        """What may follow a finished move: the next mover's Sk, or the post-move section."""
        rest = left & (left - 1)
        if rest:
            return {self.snakes[(rest & -rest).bit_length() - 1]}
        return self._allowed(("post", movers, 0, -1, 0))

    def _allowed(self, state: tuple) -> set[str]:
        phase = state[0]
        if phase == "bos":
            return {"BOS"}
        if phase == "snap":
            return {"SNAP"}
        if phase == "kf_sk":
            prev, listed = state[1], state[2]
            out = {self.snakes[k] for k in range(prev + 1, self.n)}
            return out | {"FOOD"} if listed else out
        if phase == "kf_x":
            return set(self.xs)
        if phase == "kf_y":
            return set(self.ys)
        if phase == "kf_len":
            return set(self.lens)
        if phase == "kf_h":
            return set(self.hs)
        if phase == "kf_step":
            return set(self.steps)
        if phase == "kf_food":
            return set(self.xs) | {"TICK"}
        if phase == "kf_food_y":
            return set(self.ys)
        if phase == "mv_sk":
            left = state[2]
            if not left:
                return self._allowed(("post", state[1], 0, -1, 0))
            return {self.snakes[(left & -left).bit_length() - 1]}
        if phase == "mv_in":
            return set(self.inputs)
        if phase == "mv_smell":
            out = set(self.smells)
            return out if self.smell else out | self._allowed(self._after_smell(*state[1:]))
        if phase == "mv_sense":
            out = set(self.senses)
            return out if self.sense else out | self._allowed(self._after_sense(*state[1:]))
        if phase == "mv_hit":
            return {"HIT"} | self._allowed(("mv_free_or_head", *state[1:]))
        if phase == "mv_free_or_head":
            return set(self.xs) | ({"OUT"} if self.tails is False else {"OUT", "FREE"})
        if phase == "mv_free_x":
            return set(self.xs)
        if phase in ("mv_free_y", "mv_y"):
            return set(self.ys)
        if phase == "mv_head":
            return set(self.xs) | {"OUT"}
        if phase == "mv_after":
            return {"EAT"} | self._after_move(state[1], state[2]) | ({"MEET"} if self.hits is not False else set())
        if phase == "mv_met":
            return {"EAT"} | self._after_move(state[1], state[2])
        if phase == "eat_len":
            return set(self.lens)
        if phase == "eat_h":
            return set(self.hs)
        if phase == "post":
            movers, _, prev, spawned = state[1:]
            out = {"SPAWN", "TICK", "SNAP"} | self.ends
            if not spawned:
                out |= {self.snakes[k] for k in range(prev + 1, self.n) if movers >> k & 1}
            return out
        if phase == "die":
            return set(self.dies)
        if phase == "sp_x":
            return set(self.xs)
        if phase == "sp_y":
            return set(self.ys)
        if phase == "eos":
            return {"EOS"}
        return set()

    def _after_smell(self, movers: int, left: int) -> tuple:
        """The state after an input and its SMELL word (or where it would be): a SENSE word's, unless none is allowed."""
        return ("mv_sense", movers, left) if self.sense is not False else self._after_sense(movers, left)

    def _after_sense(self, movers: int, left: int) -> tuple:
        """The state after the SENSE word (or where it would be): a HIT's, unless none is allowed."""
        return ("mv_free_or_head" if self.hits is False else "mv_hit", movers, left)

    def _finish_move(self, movers: int, left: int) -> tuple:
        rest = left & (left - 1)
        return ("mv_sk", movers, rest) if rest else ("post", movers, 0, -1, 0)

    def step(self, state: tuple, token: str) -> tuple | None:
        if token not in self.allowed(state):
            return None
        phase = state[0]
        if phase == "bos":
            return ("snap",)
        if phase == "snap":
            return ("kf_sk", -1, 0)
        if phase == "kf_sk":
            if token == "FOOD":
                return ("kf_food", state[2])
            k = int(token[1:])
            return ("kf_x", k, state[2] | 1 << k)
        if phase == "kf_x":
            return ("kf_y", state[1], state[2])
        if phase == "kf_y":
            return ("kf_len", state[1], state[2])
        if phase == "kf_len":
            return ("kf_h", state[1], state[2], int(token[3:]) - 1)
        if phase == "kf_h":
            k, listed, left = state[1:]
            return ("kf_step", k, listed, left) if left > 0 else ("kf_sk", k, listed)
        if phase == "kf_step":
            k, listed, left = state[1:]
            return ("kf_step", k, listed, left - 1) if left > 1 else ("kf_sk", k, listed)
        if phase == "kf_food":
            if token == "TICK":
                return self._tick(state[1])
            return ("kf_food_y", state[1])
        if phase == "kf_food_y":
            return ("kf_food", state[1])
        if phase == "mv_sk":
            if not state[2]:  # no snake left to move: the post-move section
                return self.step(("post", state[1], 0, -1, 0), token)
            return ("mv_in", state[1], state[2])
        if phase == "mv_in":
            return ("mv_smell", state[1], state[2]) if self.smell is not False else self._after_smell(state[1], state[2])
        if phase == "mv_smell":
            if token in self.smells:
                return self._after_smell(state[1], state[2])
            return self.step(self._after_smell(state[1], state[2]), token)
        if phase == "mv_sense":
            if token in self.senses:
                return self._after_sense(state[1], state[2])
            return self.step(self._after_sense(state[1], state[2]), token)
        if phase == "mv_hit":
            if token == "HIT":
                return ("mv_free_or_head", state[1], state[2])
            return self.step(("mv_free_or_head", state[1], state[2]), token)
        if phase in ("mv_free_or_head", "mv_head"):
            if token == "FREE":
                return ("mv_free_x", state[1], state[2])
            if token == "OUT":
                return self._finish_move(state[1], state[2])
            return ("mv_y", state[1], state[2])
        if phase == "mv_free_x":
            return ("mv_free_y", state[1], state[2])
        if phase == "mv_free_y":
            return ("mv_head", state[1], state[2])
        if phase == "mv_y":
            return ("mv_after", state[1], state[2])
        if phase in ("mv_after", "mv_met"):
            if token == "EAT":
                return ("eat_len", state[1], state[2])
            if token == "MEET":
                return ("mv_met", state[1], state[2])
            return self.step(self._finish_move(state[1], state[2]), token)
        if phase == "eat_len":
            return ("eat_h", state[1], state[2])
        if phase == "eat_h":
            return self._finish_move(state[1], state[2])
        if phase == "post":
            movers, dead = state[1:3]
            if token == "SPAWN":
                return ("sp_x", movers, dead)
            if token == "TICK":
                return self._tick(movers & ~dead)
            if token == "SNAP":
                return ("kf_sk", -1, 0)
            if token in self.ends:
                return ("eos",)
            k = int(token[1:])
            return ("die", movers, dead | 1 << k, k)
        if phase == "die":
            return ("post", state[1], state[2], state[3], 0)
        if phase == "sp_x":
            return ("sp_y", state[1], state[2])
        if phase == "sp_y":
            return ("post", state[1], state[2], self.n, 1)
        if phase == "eos":
            return ("done",)
        return None

    def _tick(self, alive: int) -> tuple:
        return ("mv_sk", alive, alive)


class CellsAutomaton:
    """The grammar automaton of the cells design: the pair design's (`GrammarAutomaton`), a cell word taken as its X
    and its Y at once. A bare X or Y word is not the design's and never allowed; states are the pair automaton's."""

    def __init__(self, pairs: GrammarAutomaton, config: BattlesnakeConfig) -> None:
        self.pairs = pairs
        self.halves = {cell_word((x, y)): (f"X{x}", f"Y{y}") for x in range(config.width) for y in range(config.height)}
        self.by_column: dict[str, list[tuple[str, str]]] = {}
        for word, (x, y) in self.halves.items():
            self.by_column.setdefault(x, []).append((y, word))
        self._cache: dict[tuple, frozenset[str]] = {}

    def start(self) -> tuple:
        return self.pairs.start()

    def allowed(self, state: tuple) -> frozenset[str]:
        found = self._cache.get(state)
        if found is None:
            pairs = self.pairs
            base = pairs.allowed(state)
            out = set(base - pairs.xs - pairs.ys)
            for x in base & pairs.xs:
                rows = pairs.allowed(pairs.step(state, x))  # type: ignore[arg-type]
                out.update(word for y, word in self.by_column[x] if y in rows)
            found = self._cache[state] = frozenset(out)
        return found

    def step(self, state: tuple, token: str) -> tuple | None:
        if token not in self.allowed(state):
            return None
        halves = self.halves.get(token)
        if halves is None:
            return self.pairs.step(state, token)
        return self.pairs.step(self.pairs.step(state, halves[0]), halves[1])  # type: ignore[arg-type]
