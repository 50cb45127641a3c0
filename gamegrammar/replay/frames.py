"""Placing the strict verdict on a replay's frames, the same for every game.

A game's `Replay` is a `BaseReplay` with its own config, frames and violation type; the base and
these helpers answer the questions every renderer asks: which frame a token belongs to, which
cell a token writes, what broke first and the one line that tells a reader so. A game says only
where on its board a violation falls (`BaseReplay._violation`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar, Generic, Protocol, TypeVar

from gamegrammar.core.verdict import Verdict

Cell = tuple[int, int]


class Span(Protocol):
    """What a frame has in every game: its tick, its tokens' span, and what the rules give where the
    sequence departs from them (None where it does not)."""

    tick: int
    start: int
    end: int
    rules_say: str | None


class ParseError(Protocol):
    """What a game's GrammarError tells: the token index where the sequence stops parsing, and why."""

    index: int
    message: str


@dataclass(frozen=True)
class Violation:
    """The strict evaluator's first broken rule, placed on a frame (and on a cell, where it names one)."""

    rule: str
    index: int  # token index (len(tokens) when the sequence is cut off)
    frame: int
    cell: Cell | None
    message: str


def frame_of(frames: Sequence[Span], index: int) -> int:
    """The frame a token index belongs to (the last frame for tokens after the last parsed tick)."""
    if not frames:
        return 0
    return max(0, bisect.bisect_right([f.start for f in frames], index) - 1)


def cell_at(tokens: Sequence[str], index: int, read_cell: Callable[[Sequence[str], int], Cell]) -> Cell | None:
    """The cell written at a token index, when the index points at the X or Y of an `Xx Yy` pair.

    `read_cell` is the game's reader; its grammar errors are ValueErrors, and a pair that does not
    read is no cell.
    """
    for at in (index, index - 1):
        if 0 <= at < len(tokens) - 1 and tokens[at].startswith("X") and tokens[at + 1].startswith("Y"):
            try:
                return read_cell(tokens, at)
            except ValueError:
                return None
    return None


def violation_message(
    tokens: Sequence[str],
    frames: Sequence[Span],
    frame: int,
    rule: str,
    index: int,
    grammar_message: str | None,
    hints: Mapping[str, str],
) -> str:
    """The line shown at the first violation: where, which rule, the token found, why, and what the rules give.

    A grammar error explains itself (`grammar_message`, the parser's words); any other rule is
    explained by the game's one-line hint.
    """
    found = repr(tokens[index]) if index < len(tokens) else "the end of the sequence"
    detail = grammar_message if rule == "grammar" and grammar_message is not None else hints.get(rule, rule)
    where = f"tick {frames[frame].tick}: " if frames else ""
    message = f"{where}{rule} at token {index} ({found}): {detail}"
    if frames and frames[frame].rules_say:
        message += f"; the rules give {frames[frame].rules_say}"
    return message


def summary(frames: Sequence[object], first_message: str | None) -> str:
    """One line: how many ticks replayed, and valid or where it first breaks."""
    ticks = f"{len(frames) - 1} ticks" if frames else "no frames"
    return f"{ticks}; valid" if first_message is None else f"{ticks}; first violation: {first_message}"


ConfigT = TypeVar("ConfigT")
FrameT = TypeVar("FrameT", bound=Span)
ViolationT = TypeVar("ViolationT", bound=Violation)


@dataclass(frozen=True)
class BaseReplay(Generic[ConfigT, FrameT, ViolationT]):
    """A token sequence, its frames, and the strict evaluator's verdict on it.

    A game's subclass gives `hints` (one line per rule) and `_violation`, which places the first
    broken rule on its board; the rest reads the same in every game.
    """

    hints: ClassVar[Mapping[str, str]] = {}

    tokens: list[str]
    config: ConfigT
    frames: list[FrameT]
    verdict: Verdict
    grammar_error: ParseError | None = None

    def frame_of(self, index: int) -> int:
        """The frame a token index belongs to (the last frame for tokens after the last parsed tick)."""
        return frame_of(self.frames, index)

    @cached_property  # renderers ask once per frame
    def first_violation(self) -> ViolationT | None:
        v = self.verdict
        if v.first_violation is None:
            return None
        rule, index = v.violations[0], v.first_violation
        return self._violation(rule, index, self.frame_of(index))

    def _violation(self, rule: str, index: int, frame: int) -> ViolationT:
        """The first broken rule, at token `index` in frame `frame`, as the game's Violation."""
        raise NotImplementedError

    def message(self, rule: str, index: int, frame: int) -> str:
        """The line shown at the first violation (see `violation_message`)."""
        said = None if self.grammar_error is None else self.grammar_error.message
        return violation_message(self.tokens, self.frames, frame, rule, index, said, self.hints)

    def summary(self) -> str:
        """One line: how many ticks replayed, and valid or where it first breaks."""
        first = self.first_violation
        return summary(self.frames, None if first is None else first.message)
