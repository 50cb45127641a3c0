"""Go's rules (../shared/GO.md, to the letter): the one reference implementation.

The simulator, the grammar's decoder, the trace, the strict evaluator, the GTP engine, the SGF reader and the
PettingZoo environment all go through `advance` (one move), `Position` (what every play on a board would do) and
`area` (the score); nothing else decides what a move does.

Points: p = y * N + x, x the column from the left (`A`), y the row from the bottom (`1`): `A1` is point 0, the
bottom-left; "point order" is ascending p, row by row from the bottom. GTP writes columns `A`..`T` without `I`
(`vertex`); SGF writes two letters `aa`..`ss` from the top-left, and an empty value for a pass (`sgf_point`).

A move, by the player to move (Black at tick 0, then alternately, passes counted):
1. a play puts a stone of the mover's colour on an empty point (a play on a stone is refused: `occupied`);
2. every opponent group (a maximal 4-connected set of one colour's stones) left without a liberty (an empty
   4-neighbour) is removed: captured;
3. if the mover's own group then has no liberty the play is suicide, refused (`suicide`);
4. positional superko: a play whose position (the stones, not whose turn it is) repeats any earlier position of the
   game, the empty start included, is refused (`superko`). Positions are tracked by Zobrist keys (`zobrist.py`),
   XORed as stones come and go; a key match is confirmed on the boards themselves;
5. a pass is always legal; two passes in a row end the game (TWO_PASSES); so does the move limit (`max_ticks`
   turns, passes counted: MOVE_LIMIT), the game then scored as it stands; a resignation (an engine's `resign`) ends
   it at once (RESIGNATION), the opponent winning. A game decided on the last turn ends with the decision.

Scoring (area, Tromp-Taylor): a player's area is their stones plus the empty points that reach (through empty
points) only their colour; no stone is removed as dead. White adds komi. The result is written as SGF and GTP
write it: `B+3.5`, `W+7.5`, `0` for a draw, `B+R` / `W+R` for a resignation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from typing import ClassVar

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Event, Salience
from gamegrammar.core.simulator import Simulator
from gamegrammar.games.go.zobrist import point_keys

EMPTY, BLACK, WHITE = 0, 1, 2
PASS, RESIGN = -1, -2  # moves that are not points
MIN_SIZE, MAX_SIZE = 5, 19
MAX_TICKS = 100_000
COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP's columns: no I
SGF_LETTERS = "abcdefghijklmnopqrs"
COLOUR_NAME = {BLACK: "black", WHITE: "white"}
END_REASONS = ("TWO_PASSES", "MOVE_LIMIT", "RESIGNATION")


class Draw(IntEnum):
    """This game's random-draw purposes, above `rng.Purpose` (a sub-index k is added as k << 8: the player)."""

    AGENT_MOVE = 16
    ENGINE_SEED = 17  # the random seed an outside engine (GNU Go) is given for an episode


def purpose(base: int, k: int = 0) -> int:
    return int(base) + (k << 8)


def colour_of(player: int) -> int:
    """Player 0 plays Black, player 1 White."""
    return BLACK + player


def opponent(colour: int) -> int:
    return BLACK + WHITE - colour


# ---------------------------------------------------------------- config


@dataclass(frozen=True)
class GoConfig:
    """An N x N board, komi, and the move limit (0: GO.md's default, 4 N^2 turns)."""

    game: ClassVar[str] = "go"
    # The help of each field is its command-line flag's (`generate --size`), with the game's default added there.
    size: int = field(default=9, metadata={"help": "board size N: an N x N board, from 5 to 19", "metavar": "N"})
    komi: float = field(default=7.5, metadata={"help": "points White adds to its area (with a half point, no draws)", "metavar": "K"})
    max_ticks: int = field(
        default=0, metadata={"help": "turns a game may last, passes counted; it ends in MOVE_LIMIT there (0: 4 N^2)", "metavar": "N"}
    )

    def __post_init__(self) -> None:
        for name in ("size", "max_ticks"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise GameGrammarError(f"{name} must be an integer, got {value!r}")
        if not MIN_SIZE <= self.size <= MAX_SIZE:
            raise GameGrammarError(f"size must be between {MIN_SIZE} and {MAX_SIZE}, got {self.size}")
        komi = self.komi
        if isinstance(komi, bool) or not isinstance(komi, (int, float)) or (2 * komi) % 1 or abs(komi) > self.size * self.size:
            raise GameGrammarError(
                f"komi must be a multiple of 0.5 no larger than the board's {self.size * self.size} points, got {komi!r}"
            )
        object.__setattr__(self, "komi", float(komi))
        if self.max_ticks == 0:
            object.__setattr__(self, "max_ticks", 4 * self.size * self.size)
        if not 1 <= self.max_ticks <= MAX_TICKS:
            raise GameGrammarError(f"max_ticks must be between 1 and {MAX_TICKS} (0: 4 N^2), got {self.max_ticks}")

    @property
    def points(self) -> int:
        return self.size * self.size

    @property
    def width(self) -> int:  # the replay chrome's name for a side (a Go board is square)
        return self.size

    @property
    def height(self) -> int:
        return self.size

    def in_bounds(self, cell: tuple[int, int]) -> bool:
        return 0 <= cell[0] < self.size and 0 <= cell[1] < self.size

    def to_dict(self) -> dict[str, int | float]:
        return {"size": self.size, "komi": self.komi, "max_ticks": self.max_ticks}


# ---------------------------------------------------------------- coordinates


def vertex(p: int, size: int) -> str:
    """GTP's name of a point (`A1` the bottom-left), `PASS` or `RESIGN`."""
    if p == PASS:
        return "PASS"
    if p == RESIGN:
        return "RESIGN"
    return f"{COLUMNS[p % size]}{p // size + 1}"


def parse_vertex(text: str, size: int) -> int:
    """A point from GTP's vertex (any case), PASS for `pass`; ValueError for anything else or off the board."""
    word = text.strip().upper()
    if word == "PASS":
        return PASS
    if len(word) < 2 or word[0] not in COLUMNS or not word[1:].isdigit():
        raise ValueError(f"{text!r} is not a vertex")
    x, y = COLUMNS.index(word[0]), int(word[1:]) - 1
    if not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"{text!r} is off the {size}x{size} board")
    return y * size + x


def sgf_point(p: int, size: int) -> str:
    """SGF's name of a point: column then row letters from the top-left; "" for a pass."""
    if p == PASS:
        return ""
    return SGF_LETTERS[p % size] + SGF_LETTERS[size - 1 - p // size]


def parse_sgf_point(text: str, size: int) -> int:
    """A point from SGF's two letters (PASS for "", and for `tt` on boards up to 19x19, the old pass)."""
    if text == "" or (text == "tt" and size <= 19):
        return PASS
    if len(text) != 2 or any(c not in SGF_LETTERS[:size] for c in text):
        raise ValueError(f"{text!r} is not a point of a {size}x{size} board")
    return (size - 1 - SGF_LETTERS.index(text[1])) * size + SGF_LETTERS.index(text[0])


@lru_cache(maxsize=32)
def neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """The on-board 4-neighbours of every point."""
    out = []
    for p in range(size * size):
        x, y = p % size, p // size
        out.append(tuple(q for q, ok in ((p - size, y > 0), (p - 1, x > 0), (p + 1, x < size - 1), (p + size, y < size - 1)) if ok))
    return tuple(out)


@lru_cache(maxsize=32)
def diagonals(size: int) -> tuple[tuple[int, ...], ...]:
    """The on-board diagonal neighbours of every point."""
    out = []
    for p in range(size * size):
        x, y = p % size, p // size
        out.append(tuple((y + dy) * size + x + dx for dx in (-1, 1) for dy in (-1, 1) if 0 <= x + dx < size and 0 <= y + dy < size))
    return tuple(out)


# ---------------------------------------------------------------- a board's groups


@dataclass(frozen=True)
class Group:
    colour: int
    stones: tuple[int, ...]  # point order
    liberties: frozenset[int]


class Position:
    """A board read once: its groups and their liberties, so that what any play would do is a few lookups.

    `outcome(p, colour)` is (refusal, captured): refusal "occupied" or "suicide" (None for a play the board allows:
    superko is the history's question, `legal`), captured the stones the play removes, in point order.
    """

    __slots__ = ("board", "group_of", "groups", "size")

    def __init__(self, board: bytes, size: int) -> None:
        self.board, self.size = board, size
        nbrs = neighbours(size)
        group_of = [-1] * (size * size)
        groups: list[Group] = []
        for start, colour in enumerate(board):
            if not colour or group_of[start] >= 0:
                continue
            index = len(groups)
            group_of[start] = index
            stones, liberties, stack = [start], set(), [start]
            while stack:
                p = stack.pop()
                for q in nbrs[p]:
                    c = board[q]
                    if c == EMPTY:
                        liberties.add(q)
                    elif c == colour and group_of[q] < 0:
                        group_of[q] = index
                        stones.append(q)
                        stack.append(q)
            groups.append(Group(colour, tuple(sorted(stones)), frozenset(liberties)))
        self.group_of, self.groups = group_of, groups

    def outcome(self, p: int, colour: int) -> tuple[str | None, tuple[int, ...]]:
        board = self.board
        if board[p] != EMPTY:
            return "occupied", ()
        other = opponent(colour)
        captured: list[int] = []
        seen: list[int] = []
        breathes = False
        for q in neighbours(self.size)[p]:
            c = board[q]
            if c == EMPTY:
                breathes = True
                continue
            g = self.group_of[q]
            if g in seen:
                continue
            seen.append(g)
            group = self.groups[g]
            if c == other and len(group.liberties) == 1:
                captured.extend(group.stones)
            elif c == colour and len(group.liberties) > 1:
                breathes = True
        if captured:
            return None, tuple(sorted(captured))
        return (None if breathes else "suicide"), ()

    def liberties_after(self, p: int, colour: int) -> int:
        """The liberties of the group a play at p makes, for a play that captures nothing."""
        libs: set[int] = set()
        for q in neighbours(self.size)[p]:
            c = self.board[q]
            if c == EMPTY:
                libs.add(q)
            elif c == colour:
                libs |= self.groups[self.group_of[q]].liberties
        libs.discard(p)
        return len(libs)


def outcome(board: bytes, p: int, colour: int, size: int) -> tuple[str | None, tuple[int, ...]]:
    """`Position.outcome` of one play, reading only the groups next to p (a flood fill each): a single move's check."""
    if board[p] != EMPTY:
        return "occupied", ()
    nbrs = neighbours(size)
    other = opponent(colour)
    captured: set[int] = set()
    breathes = False
    done: set[int] = set()
    for q in nbrs[p]:
        c = board[q]
        if c == EMPTY:
            breathes = True
            continue
        if q in done:
            continue
        stones, liberties, stack = {q}, set(), [q]
        while stack:
            r = stack.pop()
            for s in nbrs[r]:
                d = board[s]
                if d == EMPTY:
                    liberties.add(s)
                elif d == c and s not in stones:
                    stones.add(s)
                    stack.append(s)
        done |= stones
        if c == other and liberties == {p}:
            captured |= stones
        elif c == colour and len(liberties) > 1:
            breathes = True
    if captured:
        return None, tuple(sorted(captured))
    return (None if breathes else "suicide"), ()


def place(board: bytes, p: int, colour: int, captured: Iterable[int]) -> bytes:
    """The board after a play at p that captures `captured` (already known to be allowed)."""
    out = bytearray(board)
    out[p] = colour
    for q in captured:
        out[q] = EMPTY
    return bytes(out)


def is_own_eye(board: bytes, p: int, colour: int, size: int) -> bool:
    """GO.md's eye: an empty point whose 4-neighbours are all `colour` (or the edge) and whose diagonal neighbours
    hold at most one opponent stone, none when the point is on the edge."""
    if board[p] != EMPTY or any(board[q] != colour for q in neighbours(size)[p]):
        return False
    other = opponent(colour)
    enemies = sum(board[q] == other for q in diagonals(size)[p])
    on_edge = len(neighbours(size)[p]) < 4
    return enemies == 0 if on_edge else enemies <= 1


def area(board: bytes, size: int) -> tuple[int, int]:
    """(Black's area, White's area) by the area rule: stones, and empty regions that reach only that colour."""
    counts = [0, 0, 0]
    nbrs = neighbours(size)
    seen = [False] * (size * size)
    for start, colour in enumerate(board):
        if colour:
            counts[colour] += 1
            continue
        if seen[start]:
            continue
        seen[start] = True
        region, reaches, stack = 0, 0, [start]
        while stack:
            p = stack.pop()
            region += 1
            for q in nbrs[p]:
                c = board[q]
                if c == EMPTY:
                    if not seen[q]:
                        seen[q] = True
                        stack.append(q)
                else:
                    reaches |= c  # 1 black, 2 white, 3 both
        if reaches in (BLACK, WHITE):
            counts[reaches] += region
    return counts[BLACK], counts[WHITE]


def winner(black: int, white: int, komi: float) -> int | None:
    """The winning colour by area and komi; None for a draw."""
    margin = black - white - komi
    return BLACK if margin > 0 else WHITE if margin < 0 else None


def result_string(black: int, white: int, komi: float) -> str:
    """The result as SGF and GTP write it: `B+3.5`, `W+7.5`, `0` for a draw."""
    margin = black - white - komi
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


# ---------------------------------------------------------------- state and moves


@dataclass(frozen=True)
class GoState:
    """Everything the rules read: the board (one byte per point: 0 empty, 1 black, 2 white), the turn, the passes
    just played, and the history superko needs: every position so far (boards) and their Zobrist keys."""

    size: int
    board: bytes
    tick: int = 0
    passes: int = 0  # passes in a row just played
    key: int = 0  # the position's Zobrist key
    seen: frozenset[int] = frozenset({0})  # the keys of every position so far, the empty start's (0) included
    history: tuple[bytes, ...] = ()  # every position so far (each once), the start first
    moves: tuple[int, ...] = ()  # every move so far: points, PASS, RESIGN
    prisoners: tuple[int, int] = (0, 0)  # stones captured by Black, by White

    @classmethod
    def empty(cls, size: int) -> GoState:
        board = bytes(size * size)
        return cls(size, board, history=(board,))

    @property
    def to_play(self) -> int:
        """The player to move: 0 (Black) on even ticks, 1 (White) on odd ones."""
        return self.tick % 2

    @property
    def colour(self) -> int:
        return colour_of(self.to_play)

    @property
    def last_move(self) -> int | None:
        return self.moves[-1] if self.moves else None

    def position(self) -> Position:
        return Position(self.board, self.size)


class IllegalMove(GameGrammarError):
    """A move the rules refuse; `reason` is occupied, suicide or superko."""

    def __init__(self, move: int, size: int, reason: str) -> None:
        super().__init__(f"illegal move {vertex(move, size)}: {reason}")
        self.reason = reason


def repeats(state: GoState, key: int, board: bytes) -> bool:
    """Would `board` (its key `key`) repeat a position of the game so far? A key match confirmed on the boards."""
    return key in state.seen and board in state.history


def legality(state: GoState, p: int, position: Position | None = None) -> tuple[str | None, tuple[int, ...], bytes, int]:
    """(refusal, captured, board after, key after) of a play at p by the player to move; refusal None when legal."""
    if position is None:
        refusal, captured = outcome(state.board, p, state.colour, state.size)
    else:
        refusal, captured = position.outcome(p, state.colour)
    if refusal is not None:
        return refusal, (), state.board, state.key
    keys = point_keys(state.size)
    colour = state.colour
    key = state.key ^ keys[colour][p]
    other = keys[opponent(colour)]
    for q in captured:
        key ^= other[q]
    board = place(state.board, p, colour, captured)
    if repeats(state, key, board):
        return "superko", captured, board, key
    return None, captured, board, key


def legal_plays(state: GoState, position: Position | None = None) -> list[int]:
    """Every point the player to move may play on, in point order (a pass is always legal too)."""
    position = position or state.position()
    return [p for p in range(state.size * state.size) if state.board[p] == EMPTY and legality(state, p, position)[0] is None]


@dataclass(frozen=True)
class Move:
    """What one move did: the move (a point, PASS or RESIGN), by whom, and the stones it captured (point order)."""

    move: int
    player: int
    captured: tuple[int, ...] = ()


def advance(state: GoState, move: int) -> tuple[GoState, Move]:
    """One move by the player to move; IllegalMove for a play the rules refuse."""
    refusal, after, done = attempt(state, move)
    if refusal is not None:
        raise IllegalMove(move, state.size, refusal)
    assert after is not None and done is not None
    return after, done


def attempt(state: GoState, move: int) -> tuple[str | None, GoState | None, Move | None]:
    """(refusal, state after, what the move did): `advance` without the exception, refusal None for a legal move
    ("occupied", "suicide", "superko" or "off the board" otherwise, and no state after)."""
    player, size = state.to_play, state.size
    if move in (PASS, RESIGN):
        after = GoState(
            size,
            state.board,
            state.tick + 1,
            state.passes + 1 if move == PASS else state.passes,
            state.key,
            state.seen,
            state.history,
            (*state.moves, move),
            state.prisoners,
        )
        return None, after, Move(move, player)
    if not 0 <= move < size * size:
        return "off the board", None, None
    refusal, captured, board, key = legality(state, move)
    if refusal is not None:
        return refusal, None, None
    prisoners = list(state.prisoners)
    prisoners[player] += len(captured)
    after = GoState(
        size,
        board,
        state.tick + 1,
        0,
        key,
        state.seen | {key},
        (*state.history, board),
        (*state.moves, move),
        (prisoners[0], prisoners[1]),
    )
    return None, after, Move(move, player, captured)


def end_reason(state: GoState, config: GoConfig) -> str | None:
    """Why the game ends after the move that led to `state`, or None: a resignation, two passes, else the limit."""
    if state.moves and state.moves[-1] == RESIGN:
        return "RESIGNATION"
    if state.passes >= 2:
        return "TWO_PASSES"
    if state.tick >= config.max_ticks:
        return "MOVE_LIMIT"
    return None


def final_result(state: GoState, config: GoConfig) -> tuple[int, int, int | None]:
    """(Black's area, White's area, the winning colour or None for a draw) of a finished game; after a resignation
    the areas are the board's as it stands and the winner is the resigner's opponent."""
    black, white = area(state.board, state.size)
    if state.moves and state.moves[-1] == RESIGN:
        return black, white, opponent(colour_of((state.tick - 1) % 2))
    return black, white, winner(black, white, config.komi)


def result_of(state: GoState, config: GoConfig) -> str:
    """A finished game's result as SGF writes it (`B+3.5`, `W+R`, `0`)."""
    black, white, won = final_result(state, config)
    if state.moves and state.moves[-1] == RESIGN:
        return f"{'B' if won == BLACK else 'W'}+R"
    return result_string(black, white, config.komi)


def episode_score(black: int, white: int) -> int:
    """An episode's score (the corpus index's): Black's area less White's, komi not counted (the result says who won)."""
    return black - white


# ---------------------------------------------------------------- events


RESULT_WORDS = {BLACK: "B_WINS", WHITE: "W_WINS", None: "DRAW"}

# Every event of a tick: its salience and the entity it concerns. The one table (the grammar reads it too).
EVENTS: dict[str, tuple[Salience, str]] = {
    "TICK": (Salience.TICK, "game"),
    "PLAY": (Salience.MOVEMENT, "player"),
    "PASS": (Salience.MOVEMENT, "player"),
    "RESIGN": (Salience.MOVEMENT, "player"),
    "TAKE": (Salience.RULE_EFFECT, "player"),
    "AREA": (Salience.PHASE, "game"),
    "B_WINS": (Salience.PHASE, "game"),
    "W_WINS": (Salience.PHASE, "game"),
    "DRAW": (Salience.PHASE, "game"),
    "TWO_PASSES": (Salience.PHASE, "game"),
    "MOVE_LIMIT": (Salience.PHASE, "game"),
    "RESIGNATION": (Salience.PHASE, "game"),
}


def event(kind: str, tick: int, **payload: object) -> Event:
    salience, entity = EVENTS[kind]
    return Event(kind, tick, salience, entity, payload)


def tick_events(done: Move, after: GoState, end: str | None, config: GoConfig) -> list[Event]:
    """The events of one tick, in grammar order: TICK; PLAY (and TAKE: the stones it captured), PASS or RESIGN; at
    the end, AREA (unless resigned), the result and the end event."""
    t, size = after.tick, after.size
    out = [event("TICK", t)]
    if done.move == PASS:
        out.append(event("PASS", t, player=done.player))
    elif done.move == RESIGN:
        out.append(event("RESIGN", t, player=done.player))
    else:
        out.append(event("PLAY", t, player=done.player, point=vertex(done.move, size)))
        if done.captured:
            out.append(event("TAKE", t, player=done.player, stones=tuple(vertex(q, size) for q in done.captured)))
    if end is not None:
        black, white, won = final_result(after, config)
        if end != "RESIGNATION":
            out.append(event("AREA", t, black=black, white=white))
        out.append(event(RESULT_WORDS[won], t))
        out.append(event(end, t))
    return out


# ---------------------------------------------------------------- the simulator


class GoGame(Simulator[GoConfig, GoState]):
    """The scalar simulator: slow, obvious, and the reference every faster engine is tested against.

    `step(move)` takes the player to move's move: a point (`parse_vertex`), PASS or RESIGN.
    """

    config_type = GoConfig

    def __init__(self, config: GoConfig | None = None, state: GoState | None = None) -> None:
        super().__init__(config, state)
        self.last: Move | None = None

    def _start(self, seed: int, episode: int) -> GoState:
        return GoState.empty(self.config.size)  # nothing is drawn: every game starts on the empty board

    def legal_actions(self, state: GoState | None = None) -> list[int]:
        """The legal plays in point order, then PASS (always legal)."""
        state = state or self.state
        assert state is not None
        return [*legal_plays(state), PASS]

    def step(self, action: int) -> tuple[GoState, list[Event], bool]:
        before = self._state_before_step()
        self.state, self.last = advance(before, int(action))
        self.end_reason = end_reason(self.state, self.config)
        self.done = self.end_reason is not None
        return self.state, tick_events(self.last, self.state, self.end_reason, self.config), self.done
