"""What a Go planner reads off written tokens: the board the moves and captures wrote, and its area score.

A planner dreaming inside the model scores a rollout by where the dream leaves the game. Go's grammar writes a move
per tick and, after a capture, TAKE and every stone removed; `WrittenGo` replays exactly that, a move's stone for the
player whose turn the tick is (Black first, then alternating, passes counted, as the grammar says) and the stones a
TAKE names lifted, with no legality checked: a dream that plays on a stone or forgets a capture leaves the board it
wrote. Its value for a colour is the written result where the dream reached one (a win worth the whole board), else
the area score of the written board (Tromp-Taylor: stones and the empty regions that reach one colour only) less
komi. The rules simulator (`simulate_plies`) follows the real game with the rules instead (`trace`) and plays on with the
random agent's policy (uniform among the legal plays that do not fill the mover's own eye; a pass where none is left),
writing its plies in the grammar, so that both simulators are scored by the same reading.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from gamegrammar.core import rng
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go.agents import candidates
from gamegrammar.games.go.grammar import EpisodeEncoder
from gamegrammar.games.go.rules import (
    BLACK,
    EMPTY,
    PASS,
    WHITE,
    GoConfig,
    advance,
    area,
    end_reason,
    opponent,
    parse_vertex,
    tick_events,
)
from gamegrammar.games.go.trace import trace

RESULT_OF = {"B_WINS": BLACK, "W_WINS": WHITE, "DRAW": EMPTY}


@dataclass
class WrittenGo:
    """The board as the tokens wrote it, read a word at a time (`read`): a history's reading goes on into a dream's."""

    size: int
    board: bytearray = field(init=False)
    to_move: int = BLACK
    result: int | None = None  # the colour a written result names (EMPTY: a draw); None while none is written
    section: str | None = None  # where in a keyframe or a tick the reading is: "black", "white", "take", "move"

    def __post_init__(self) -> None:
        self.board = bytearray(self.size * self.size)

    def read(self, words: Iterable[str]) -> WrittenGo:
        for word in words:
            self._word(word)
        return self

    def _point(self, word: str) -> int | None:
        try:
            p = parse_vertex(word, self.size)
        except ValueError:
            return None
        return None if p < 0 else p

    def _word(self, word: str) -> None:
        section, self.section = self.section, None
        if word == "SNAP":
            self.board = bytearray(self.size * self.size)
            self.section = "snap"
        elif word in ("BLACK", "WHITE") and section in ("snap", "black", "white"):
            self.section = word.lower()
        elif word in ("TO_BLACK", "TO_WHITE"):
            self.to_move = BLACK if word == "TO_BLACK" else WHITE
        elif word == "TICK":
            self.section = "move"
        elif section == "move":  # the tick's move: a point, PASS or RESIGN, by the player to move
            p = self._point(word) if word.isupper() else None
            if p is not None:
                self.board[p] = self.to_move
            elif word == "RESIGN":
                self.result = opponent(self.to_move)
            self.to_move = opponent(self.to_move)
        elif word == "TAKE":
            self.section = "take"
        elif word in RESULT_OF and self.result is None:
            self.result = RESULT_OF[word]
        elif section in ("black", "white", "take") and word.islower():
            p = self._point(word)
            if p is not None:
                self.board[p] = EMPTY if section == "take" else BLACK if section == "black" else WHITE
            self.section = section

    def value(self, colour: int, komi: float) -> float:
        """For `colour`: the written result (+-N^2 for a win or a loss, 0 a draw), else its area less the other's, with
        komi (White's)."""
        if self.result is not None:
            return 0.0 if self.result == EMPTY else float(len(self.board)) * (1 if self.result == colour else -1)
        black, white = area(bytes(self.board), self.size)
        margin = black - white - komi
        return margin if colour == BLACK else -margin


def planner_value(history: Sequence[str], words: Sequence[str], config: GoConfig) -> float:
    """The value of the board `history` then `words` wrote, for the player to move at the end of `history`."""
    board = WrittenGo(config.size).read(history)
    colour = board.to_move
    return board.read(words).value(colour, config.komi)


def simulate_plies(history: Sequence[str], move: str, plies: int, config: GoConfig, codec: CodecConfig, seed: int) -> list[str]:
    """`move`, then `plies - 1` random-agent moves, on the rules from the real game `history`, as the grammar writes
    them from `move` on; the draws are (seed, ply)'s."""
    state = trace(history, config)[-1]
    encoder = EpisodeEncoder(codec)
    encoder.start(state)
    written = len(encoder.tokens)
    for ply in range(plies):
        if ply == 0:
            point = PASS if move == "PASS" else parse_vertex(move, config.size)
        else:
            points = [p for p, _ in candidates(state)]
            point = points[rng.choose(seed, 0, ply, 0, len(points))] if points else PASS
        after, done = advance(state, point)
        end = end_reason(after, config)
        encoder.tick(tick_events(done, after, end, config), after, end is not None)
        state = after
        if end is not None:
            break
    return encoder.tokens[written + 1 :]  # the history already ends with the first tick token
