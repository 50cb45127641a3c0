"""What a planner reads off written Snake tokens: where the head, the body and the food are, as the tokens say.

A planner dreaming inside the model needs later inputs for its rollouts and a value where a rollout stops. The model's
own policy imitates agents that follow walls and die, and a uniform one starves; the greedy agent feeds the snake but
reads the true state, which a dream does not have. This reads the state the tokens have written instead, tick by tick
from the last: each tick's head cell (the first cell it writes but a FREE one, in every design), the length from its last LEN word,
the food from its last FOOD_SPAWN, and a keyframe's whole state where one is reached (read by the grammar). `toward_food` then chooses as
greedy does; `food_closeness` is the leaf. Where the tokens are wrong, so is the reading: a rollout plays on the dream's
own terms, which is the point.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field

from gamegrammar.core.episode_grammar import GrammarError
from gamegrammar.games.snake.grammar import read_keyframe
from gamegrammar.games.snake.rules import Direction, SnakeConfig, direction_between

Cell = tuple[int, int]
_STOPS = frozenset({"TICK", "SCORE", "EOS", "SNAP"})


def _number(word: str, axis: str) -> int | None:
    return int(word[1:]) if word[:1] == axis and word[1:].isdigit() else None


def _first_cell(seq: Sequence[str], lo: int, hi: int) -> Cell | None:
    """The first cell written in seq[lo:hi] as an X word followed by a Y word, but the one a tail leaves (FREE X Y)."""
    for i in range(lo, hi - 1):
        x, y = _number(seq[i], "X"), _number(seq[i + 1], "Y")
        if x is not None and y is not None and (i == 0 or seq[i - 1] != "FREE"):
            return x, y
    return None


def _named_cell(seq: Sequence[str], at: int, hi: int) -> Cell | None:
    """The cell a word at `at` names (FOOD, FOOD_SPAWN): the first X word and the first Y word after it, whatever lies
    between (the spawn-column design writes the column's cells between them)."""
    x = y = None
    for i in range(at + 1, hi):
        word = seq[i]
        if word in _STOPS:
            break
        x = _number(word, "X") if x is None else x
        y = _number(word, "Y") if y is None else y
        if x is not None and y is not None:
            return x, y
    return None


def _ticks(history: Sequence[str], words: Sequence[str]) -> Iterator[tuple[Sequence[str], int, int]]:
    """(sequence, lo, hi) of each tick, the last first: the rollout's, then the history's (its keyframe at BOS last)."""
    for seq in (words, history):
        hi = len(seq)
        for i in range(len(seq) - 1, -1, -1):
            if seq[i] == "TICK" or i == 0:
                yield seq, i, hi
                hi = i


@dataclass
class WrittenState:
    """The state as the tokens last wrote it: head first, as far back as the length (or a keyframe) reaches."""

    heads: list[Cell] = field(default_factory=list)
    length: int | None = None
    food: Cell | None = None
    heading: Direction | None = None  # the way the head last went (a keyframe's DIR where no two heads are read)

    @property
    def body(self) -> list[Cell]:
        return self.heads[: self.length or len(self.heads)]

    def _tick(self, seq: Sequence[str], lo: int, hi: int) -> bool:
        """Read one tick (or BOS's keyframe); True once nothing older can change the reading."""
        for i in range(lo, hi):
            if seq[i] == "SNAP":  # a keyframe: the state after this tick, whole (the grammar's own reading of it)
                try:
                    keyframe = read_keyframe(seq, i)
                except GrammarError:  # a dream's broken keyframe: read the tick as if it had none
                    break
                self.heading = keyframe.direction if self.heading is None and not self.heads else self.heading
                self.length = keyframe.length if self.length is None else self.length
                self.food = keyframe.food if self.food is None else self.food
                self.heads += keyframe.body()
                return True
        for i in range(hi - 1, lo - 1, -1):
            word = seq[i]
            if word.startswith("LEN") and word[3:].isdigit() and self.length is None:
                self.length = int(word[3:])
            elif word == "FOOD_SPAWN" and self.food is None:
                self.food = _named_cell(seq, i, hi)
        head = _first_cell(seq, lo, hi)
        if head is not None:
            self.heads.append(head)
        return self.length is not None and len(self.heads) >= max(self.length, 2) and self.food is not None


def read_written_state(history: Sequence[str], words: Sequence[str] = ()) -> WrittenState | None:
    """The state the tokens last wrote (the game's real `history`, then a rollout's `words`); None where no head is."""
    state = WrittenState()
    for seq, lo, hi in _ticks(history, words):
        if state._tick(seq, lo, hi):
            break
    if not state.heads:
        return None
    if len(state.heads) > 1:
        with suppress(ValueError):  # a dream's head that jumped keeps the heading read before
            state.heading = direction_between(state.heads[1], state.heads[0])
    return state


def food_closeness(tokens: Sequence[str]) -> float:
    """Minus the Manhattan distance from the head to the food, both as last written; 0 where either is not found."""
    state = read_written_state(tokens)
    if state is None or state.food is None:
        return 0.0
    (hx, hy), (fx, fy) = state.heads[0], state.food
    return -float(abs(hx - fx) + abs(hy - fy))


def toward_food(history: Sequence[str], words: Sequence[str], allowed: Iterable[str], config: SnakeConfig, u: float) -> str | None:
    """Greedy's input on the written state: among the allowed inputs whose cell is on the board and off the body (all of
    them where none is), those closest to the food, `u` in [0, 1) choosing among ties; None where nothing is read."""
    state = read_written_state(history, words)
    if state is None:
        return None
    body, food, heading = state.body, state.food, state.heading
    head = body[0]
    options: dict[Direction, str] = {}  # where each input takes the head: one against the heading is ignored by the game
    for word in sorted(allowed, key=lambda w: (heading is not None and w == f"INPUT_{heading.opposite.name}", w)):
        name = word.removeprefix("INPUT_")
        if name in Direction.__members__:
            d = Direction[name]
            options.setdefault(heading if heading is not None and d == heading.opposite else d, word)
    if not options:
        return None

    def next_cell(d: Direction) -> Cell:
        return head[0] + d.delta[0], head[1] + d.delta[1]

    def distance(d: Direction) -> int:
        x, y = next_cell(d)
        return abs(x - food[0]) + abs(y - food[1]) if food is not None else 0

    def safe(d: Direction) -> bool:  # the tail's cell is free: it leaves as the head comes (unless the head eats)
        x, y = cell = next_cell(d)
        return 0 <= x < config.width and 0 <= y < config.height and (cell == food or cell not in body[:-1])

    choices = [d for d in options if safe(d)] or list(options)
    best = min(distance(d) for d in choices)
    choices = [d for d in choices if distance(d) == best]
    return options[choices[min(int(u * len(choices)), len(choices) - 1)]]
