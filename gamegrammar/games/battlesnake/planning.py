"""What a planner reads off written Battlesnake tokens: every snake's body, health and fate, and the food, as the tokens say.

A planner dreaming inside the model needs later inputs for its rollouts, its own snake's and the others'. The model's
own policy imitates a mix of agents that die often, and a uniform one walks into bodies; the safe agent (a sure move
where there is one) was the best rollout policy on the rules (docs/battlesnake.md), but it reads the true state, which
a dream does not have. `WrittenBoard` reads the state the tokens have written instead, forward from the keyframe: a
move's new head (the first cell after its input that is not a FREE one, in either spelling; a SMELL, SENSE, HIT or MEET word
changes nothing), the length its EAT writes, health counted
down a move at a time and reset by EAT, food from keyframes and SPAWN less what an EAT takes, and DIE_* words. The
safe agent's candidates are then computed on that board (`agents.safest_moves`). Where the tokens are wrong, so is the
reading: a rollout plays on the dream's own terms, which is the point.

Reading a game's history is the costly part, and every rollout of a move reads the same one: `safe_input` keeps the
reading of the last histories it saw and reads only the rollout's own words on top of a copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gamegrammar.games.battlesnake.agents import safest_moves
from gamegrammar.games.battlesnake.grammar import (
    INPUT_OF,
    INPUT_TOKEN,
    SENSE_OF,
    SMELL_OF,
    GrammarError,
    as_pairs,
    cell_of_word,
    read_keyframe,
    token_value,
)
from gamegrammar.games.battlesnake.rules import MAX_HEALTH, BattlesnakeConfig, BattlesnakeState, Cell, Snake, snake_id, sorted_food

_DEATHS = frozenset(("DIE_HEALTH", "DIE_WALL", "DIE_SELF", "DIE_BODY", "DIE_HEAD"))
_CACHED = 64  # histories whose reading is kept (a move's rollouts read one per running game)


@dataclass
class WrittenBoard:
    """The board as the tokens wrote it, read a word at a time (`read`), so that a history's reading goes on into a
    rollout's words. A word that does not fit where it stands changes nothing."""

    bodies: dict[int, list[Cell]] = field(default_factory=dict)  # head first, a stacked tail repeated
    health: dict[int, int] = field(default_factory=dict)
    out: set[int] = field(default_factory=set)
    food: set[Cell] = field(default_factory=set)
    tick: int = 0
    snake: int | None = None  # the last Sk word's k
    mover: int | None = None  # the snake whose move is being read
    expect: str | None = None  # what the next cell (or LEN) is: "head", "free", "spawn", "length"
    x: int | None = None  # an X word waiting for its Y
    keyframe: list[str] | None = None  # a keyframe's words, parsed whole once it ends

    def copy(self) -> WrittenBoard:
        return WrittenBoard(
            {k: list(body) for k, body in self.bodies.items()},
            dict(self.health),
            set(self.out),
            set(self.food),
            self.tick,
            self.snake,
            self.mover,
            self.expect,
            self.x,
            None if self.keyframe is None else list(self.keyframe),
        )

    def read(self, words: Iterable[str]) -> WrittenBoard:
        for word in words:
            self._word(word)
        return self

    def _word(self, word: str) -> None:
        if self.keyframe is not None:
            if word not in ("TICK", "EOS"):  # a keyframe ends a tick (or the start): the next tick or EOS ends it
                self.keyframe.append(word)
                return
            self._end_keyframe()
        if word == "SNAP":
            self.keyframe = [word]
            return
        cell = cell_of_word(word)  # the cells design's word: a whole cell
        if cell is not None:
            self.x = None
            self._place(cell)
            return
        x, y = token_value(word, "X"), token_value(word, "Y")
        if x is not None:
            self.x = x
            return
        if y is not None and self.x is not None:
            self._place((self.x, y))
        self.x = None
        if y is not None:
            return
        k = token_value(word, "S")
        length = token_value(word, "LEN")
        expect, self.expect = self.expect, None
        if k is not None:
            self.snake = k
        elif word in INPUT_OF and self.snake is not None:
            self.mover, self.expect = self.snake, "head"
        elif word in SMELL_OF or word in SENSE_OF or word == "HIT":  # option words after an input: the head still comes
            self.expect = expect
        elif word == "FREE" and expect == "head":
            self.expect = "free"
        elif word == "EAT" and self.mover is not None and self.bodies.get(self.mover):
            self.food.discard(self.bodies[self.mover][0])
            self.health[self.mover] = MAX_HEALTH
            self.expect = "length"
        elif length is not None and expect == "length" and self.mover is not None:
            body = self.bodies[self.mover]
            body.extend([body[-1]] * (length - len(body)))  # the tail stays where it was: stacked
        elif word in _DEATHS and self.snake is not None:
            self.out.add(self.snake)
        elif word == "SPAWN":
            self.expect = "spawn"
        elif word == "TICK":
            self.tick += 1
            self.snake = self.mover = None

    def _place(self, cell: Cell) -> None:
        expect, self.expect = self.expect, None
        if expect == "head" and self.mover is not None and self.bodies.get(self.mover):
            body = self.bodies[self.mover]
            body.insert(0, cell)
            body.pop()  # the tail moves up; an EAT after it grows the body back
            self.health[self.mover] = self.health.get(self.mover, MAX_HEALTH) - 1
        elif expect == "free":  # the cell the tail left (the tails design): the length already tells it
            self.expect = "head"
        elif expect == "spawn":
            self.food.add(cell)

    def _end_keyframe(self) -> None:
        """A keyframe's whole board (the grammar's own reading of it); a dream's broken one changes nothing."""
        words, self.keyframe = self.keyframe or [], None
        try:
            frame = read_keyframe(as_pairs(words)[0], 0)
        except GrammarError:
            return
        shown = {s.snake: s for s in frame.snakes}
        self.out |= set(self.bodies) - set(shown)
        self.bodies = {k: list(s.body()) for k, s in shown.items()}
        self.health = {k: s.health for k, s in shown.items()}
        self.food = set(frame.food)

    def state(self) -> BattlesnakeState:
        """The board as a `BattlesnakeState` (a snake with no body written counts as out)."""
        board = self.copy()
        if board.keyframe is not None:
            board._end_keyframe()
        count = max([*board.bodies, *board.out], default=-1) + 1
        snakes = []
        for k in range(count):
            body = tuple(board.bodies.get(k, ()))
            cause = "out" if k in board.out or not body else ""
            snakes.append(Snake(body, board.health.get(k, MAX_HEALTH), cause, snake_id(k)))
        return BattlesnakeState(tuple(snakes), sorted_food(board.food), board.tick)


class _Readings:
    """The reading of the last histories a planner passed (their list object, its length and the board)."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[Sequence[str], int, WrittenBoard]] = {}

    def of(self, history: Sequence[str]) -> WrittenBoard:
        kept = self.kept.get(id(history))
        if kept is not None and kept[0] is history and kept[1] == len(history):
            return kept[2]
        board = WrittenBoard().read(history)
        if len(self.kept) >= _CACHED:
            self.kept.clear()
        self.kept[id(history)] = (history, len(history), board)
        return board


_READINGS = _Readings()


def read_board(history: Sequence[str], words: Sequence[str] = ()) -> WrittenBoard:
    """The board the tokens last wrote: the game's real `history` (its reading kept), then a rollout's `words`."""
    board = _READINGS.of(history).copy() if history else WrittenBoard()
    return board.read(words)


def safe_input(history: Sequence[str], words: Sequence[str], allowed: Iterable[str], config: BattlesnakeConfig, u: float) -> str | None:
    """The safe agent's input for the snake whose input slot this is (the Sk word last written), on the written board:
    uniform (by `u` in [0, 1)) among its safest allowed moves; None where the board has no body for it."""
    last = words[-1] if words else history[-1] if history else None
    k = token_value(last, "S")
    board = read_board(history, words)
    if k is None or not board.bodies.get(k):
        return None
    moves = [m for m in safest_moves(board.state(), k, config) if INPUT_TOKEN[m] in set(allowed)]
    if not moves:
        return None
    return INPUT_TOKEN[moves[min(int(u * len(moves)), len(moves) - 1)]]
