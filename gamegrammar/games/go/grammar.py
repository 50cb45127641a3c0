"""Go's token grammar: the one place that knows how moves, captures and ends are written as tokens.

```
episode  := BOS keyframe tick* EOS
keyframe := SNAP BLACK s* WHITE s* (TO_BLACK | TO_WHITE) [PASSED]
                                     every stone of each colour in point order, the player to move, a pass just played
tick     := TICK v [TAKE s+] [end | keyframe]      a play, and the stones it captures in point order
          | TICK PASS [end | keyframe]
          | TICK RESIGN result RESIGNATION
end      := AREA Vb Vw result (TWO_PASSES | MOVE_LIMIT)   the areas: counts V0..V{N*N} (not N: a column)
result   := B_WINS | W_WINS | DRAW
v        := A1 | B1 | ... | J9 ...                 a move: GTP's vertex of a point, one token each (no I column)
s        := a1 | b1 | ... | j9 ...                 a stone on that point: the vertex in lower case
```

Decisions, and why (docs/grammar.md has the long form):
- Whose move it is follows from the sequence: Black plays the first tick, then the players alternate, passes
  counted; a tick writes only the move. A model must count, as a Go player does. Keyframes, the windows a sampler
  may start from, say it (TO_BLACK / TO_WHITE), and whether the last move was a pass (PASSED: the next one ends the
  game); the evaluator checks both (`turn_order`, `keyframe_matches_state`).
- Captures are salient events: a play that captures is followed by TAKE and every stone it removes, in point order,
  however far from the play. The rule "a group whose last liberty is filled comes off" is then written where it
  happens, and a model that has not learned it writes a missing or wrong TAKE the evaluator names (`captures`).
- One token per point: a move is GTP's vertex (`D4`), one token as in a game record; a stone (captured, or on a
  keyframe's board) is the same vertex in lower case (`d4`). Moves are the agents' inputs, stones facts of the board:
  apart, an input token is always a move (what training weights and a player samples), and "D4 was played, so d4 is
  a stone" is one more rule to learn. The vocabulary is the board's points, so no point off the board can be named.
- The end is written as the rules score it: AREA with both areas (Tromp-Taylor: stones plus the empty regions that
  reach only that colour), the result that follows with komi, then why the game ended. A resignation has no score:
  RESIGN (the mover's input) is followed by the opponent's win and RESIGNATION.
- Salience (`EVENTS` in rules.py): moves MOVEMENT, captures RULE_EFFECT, the end PHASE.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gamegrammar.core.episode_grammar import GrammarError as GrammarError  # the error the game's parser raises
from gamegrammar.core.episode_grammar import episode_prefix as prefix_of
from gamegrammar.core.episode_grammar import expect_word, fail, read_episode, token_at
from gamegrammar.core.events import Event
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig
from gamegrammar.games.go.rules import (
    BLACK,
    COLUMNS,
    END_REASONS,
    MAX_SIZE,
    PASS,
    RESIGN,
    RESULT_WORDS,
    WHITE,
    GoConfig,
    GoState,
    event,
    vertex,
)

END_EVENTS = END_REASONS  # TWO_PASSES, MOVE_LIMIT, RESIGNATION
RESULTS = tuple(RESULT_WORDS.values())  # B_WINS, W_WINS, DRAW
TURN_WORDS = ("TO_BLACK", "TO_WHITE")  # by player
_WORDS = ["TICK", "SNAP", "BLACK", "WHITE", *TURN_WORDS, "PASSED", "PASS", "RESIGN", "TAKE", "AREA", *RESULTS, *END_EVENTS]
_XY = {f"{COLUMNS[x]}{y + 1}": (x, y) for x in range(MAX_SIZE) for y in range(MAX_SIZE)}  # every move of the largest board
_STONE_XY = {v.lower(): xy for v, xy in _XY.items()}
_NUMBER = {f"V{n}": n for n in range(MAX_SIZE * MAX_SIZE + 1)}


def vertices(size: int) -> list[str]:
    """The board's moves in point order (A1, B1, ... then row 2)."""
    return [vertex(p, size) for p in range(size * size)]


def stone(p: int, size: int) -> str:
    """The token of a stone on point p: its vertex in lower case."""
    return vertex(p, size).lower()


def vocabulary(config: GoConfig) -> list[str]:
    """Every token of the grammar for this board: the words, its moves, its stones, the counts V0..V{N*N}."""
    moves = vertices(config.size)
    return [*SPECIAL_TOKENS, *_WORDS, *moves, *(v.lower() for v in moves), *(f"V{n}" for n in range(config.points + 1))]


def input_tokens(config: GoConfig) -> list[str]:
    """An agent's input: a vertex, PASS or RESIGN."""
    return [*vertices(config.size), "PASS", "RESIGN"]


# ---------------------------------------------------------------- encoding


def keyframe_tokens(state: GoState) -> list[str]:
    size, board = state.size, state.board
    tokens = ["SNAP", "BLACK", *(stone(p, size) for p, c in enumerate(board) if c == BLACK)]
    tokens += ["WHITE", *(stone(p, size) for p, c in enumerate(board) if c == WHITE)]
    tokens.append(TURN_WORDS[state.to_play])
    if state.passes == 1:
        tokens.append("PASSED")
    return tokens


class EpisodeEncoder:
    """Streams one episode into tokens: `start(state)`, then `tick(events, state_after, done)`."""

    def __init__(self, codec: CodecConfig | None = None) -> None:
        self.codec = codec or CodecConfig()
        self.tokens: list[str] = []

    def start(self, state: GoState) -> None:
        self.tokens = ["BOS", *keyframe_tokens(state)]

    def tick(self, events: Sequence[Event], state: GoState, done: bool) -> None:
        out, floor = self.tokens, self.codec.min_salience
        for ev in events:
            if ev.salience < floor:
                continue
            kind, p = ev.type, ev.payload
            if kind == "PLAY":
                out.append(p["point"])
            elif kind == "TAKE":
                out += ["TAKE", *(v.lower() for v in p["stones"])]
            elif kind == "AREA":
                out += ["AREA", f"V{p['black']}", f"V{p['white']}"]
            else:  # TICK, PASS, RESIGN, the results and the end events are one word each
                out.append(kind)
        if done:
            out.append("EOS")
        elif self.codec.keyframe_after(state.tick):
            out += keyframe_tokens(state)


# ---------------------------------------------------------------- parsing


@dataclass(slots=True)
class Keyframe:
    """A parsed keyframe. Stones as (point, index of its token); `turn_at` is the TO_ word's index."""

    start: int
    end: int
    black: list[tuple[int, int]]
    white: list[tuple[int, int]]
    to_play: int
    passed: bool
    white_at: int
    turn_at: int

    def board(self, size: int) -> bytes:
        out = bytearray(size * size)
        for colour, stones in ((BLACK, self.black), (WHITE, self.white)):
            for p, _ in stones:
                out[p] = colour
        return bytes(out)


@dataclass(slots=True)
class Tick:
    """A parsed tick. move: a point, PASS or RESIGN; taken: the stones its TAKE lists (point order as written), with
    their token indexes. positions: move (its token), after (the token after the move: TAKE or what follows),
    end (where the end section starts, or would), area (AREA's Vb; Vw at +1), result (the result word)."""

    start: int
    end: int
    number: int
    move: int
    taken: list[tuple[int, int]]
    area: tuple[int, int] | None
    result: str | None
    end_event: str | None
    positions: dict[str, int] = field(default_factory=dict)
    keyframe: Keyframe | None = None

    @property
    def player(self) -> int:
        """Whose move the sequence says this is: Black on odd ticks."""
        return (self.number - 1) % 2

    def events(self, size: int) -> list[Event]:
        t, player = self.number, self.player
        out = [event("TICK", t)]
        if self.move == PASS:
            out.append(event("PASS", t, player=player))
        elif self.move == RESIGN:
            out.append(event("RESIGN", t, player=player))
        else:
            out.append(event("PLAY", t, player=player, point=vertex(self.move, size)))
            if self.taken:
                out.append(event("TAKE", t, player=player, stones=tuple(vertex(p, size) for p, _ in self.taken)))
        if self.area is not None:
            out.append(event("AREA", t, black=self.area[0], white=self.area[1]))
        if self.result is not None:
            out.append(event(self.result, t))
        if self.end_event is not None:
            out.append(event(self.end_event, t))
        return out


def _point(token: str | None, size: int, table: dict[str, tuple[int, int]] = _XY) -> int | None:
    """The point a move token (or, with `_STONE_XY`, a stone token) names on this board; None for anything else."""
    xy = table.get(token) if token is not None else None
    if xy is None or xy[0] >= size or xy[1] >= size:
        return None
    return xy[1] * size + xy[0]


def _points(tokens: Sequence[str], i: int, size: int) -> tuple[list[tuple[int, int]], int]:
    """The stones written from token i on, with their indexes, and the index after them."""
    out = []
    while (p := _point(token_at(tokens, i), size, _STONE_XY)) is not None:
        out.append((p, i))
        i += 1
    return out, i


def _keyframe(tokens: Sequence[str], i: int, size: int) -> Keyframe:
    """SNAP BLACK v* WHITE v* TO_x [PASSED], starting at i."""
    start = i
    i = expect_word(tokens, i, "SNAP")
    i = expect_word(tokens, i, "BLACK")
    black, i = _points(tokens, i, size)
    if token_at(tokens, i) != "WHITE":
        raise fail(tokens, i, "expected a stone of this board or WHITE")
    white, i = _points(tokens, i + 1, size)
    white_at = i - len(white) - 1
    turn = token_at(tokens, i)
    if turn not in TURN_WORDS:
        raise fail(tokens, i, "expected a stone of this board, TO_BLACK or TO_WHITE")
    passed = token_at(tokens, i + 1) == "PASSED"
    return Keyframe(start, i + 1 + passed, black, white, TURN_WORDS.index(turn), passed, white_at, i)


def _tick(tokens: Sequence[str], i: int, number: int, size: int) -> Tick:
    """TICK move [TAKE v+] [end], starting at i (which holds TICK)."""
    start = i
    i += 1
    word = token_at(tokens, i)
    positions = {"move": i}
    taken: list[tuple[int, int]] = []
    if word == "PASS":
        move = PASS
    elif word == "RESIGN":
        move = RESIGN
    else:
        point = _point(word, size)
        if point is None:
            raise fail(tokens, i, "expected a move: a vertex of this board, PASS or RESIGN")
        move = point
    i += 1
    positions["after"] = i
    if move >= 0 and token_at(tokens, i) == "TAKE":
        taken, i = _points(tokens, i + 1, size)
        if not taken:
            raise fail(tokens, i, "expected a captured stone of this board after TAKE")
    positions["end"] = i
    area, result, end_event = None, None, None
    if move == RESIGN:
        result = token_at(tokens, i)
        if result not in RESULTS:
            raise fail(tokens, i, "expected the result after RESIGN (B_WINS, W_WINS or DRAW)")
        positions["result"] = i
        i = expect_word(tokens, i + 1, "RESIGNATION")
        end_event = "RESIGNATION"
    elif token_at(tokens, i) == "AREA":
        positions["area"] = i + 1
        area = (_count(tokens, i + 1), _count(tokens, i + 2))
        result = token_at(tokens, i + 3)
        if result not in RESULTS:
            raise fail(tokens, i + 3, "expected the result (B_WINS, W_WINS or DRAW)")
        positions["result"] = i + 3
        end_event = token_at(tokens, i + 4)
        if end_event not in ("TWO_PASSES", "MOVE_LIMIT"):
            raise fail(tokens, i + 4, "expected TWO_PASSES or MOVE_LIMIT")
        i += 5
    return Tick(start, i, number, move, taken, area, result, end_event, positions)


def _count(tokens: Sequence[str], i: int) -> int:
    value = _NUMBER.get(token_at(tokens, i))  # type: ignore[arg-type]
    if value is None:
        raise fail(tokens, i, "expected a count V<n>")
    return value


def parse(tokens: Sequence[str], size: int = MAX_SIZE, *, to_eos: bool = False) -> Iterator[Keyframe | Tick]:
    """Yield the first keyframe, then each tick, as far as the grammar allows; then check the close (see
    `gamegrammar.core.episode_grammar.read_episode`). `size` is the board's: a vertex off it is a grammar error."""

    def keyframe(tokens: Sequence[str], i: int) -> Keyframe:
        return _keyframe(tokens, i, size)

    def tick(tokens: Sequence[str], i: int, number: int, previous: Keyframe | Tick) -> Tick:
        return _tick(tokens, i, number, size)

    return read_episode(tokens, keyframe, tick, to_eos=to_eos)


def decode(tokens: Sequence[str] | str, size: int = MAX_SIZE) -> list[Event]:
    """The events of a full-salience episode (keyframes are states, not events)."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    return [e for item in parse(tokens, size) if isinstance(item, Tick) for e in item.events(size)]


def episode_prefix(tokens: Sequence[str], ticks: int) -> list[str]:
    """The first keyframe and the first `ticks` ticks of an episode: a prompt from real play."""
    return prefix_of(tokens, parse(tokens), ticks)
