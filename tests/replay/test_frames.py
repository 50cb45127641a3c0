"""Placing a verdict on frames: the frame of a token, the cell it writes, the violation's line, the summary."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import ClassVar

import pytest

from gamegrammar.core.verdict import Verdict
from gamegrammar.replay.frames import BaseReplay, cell_at, frame_of, summary, violation_message

FRAMES = [
    SimpleNamespace(tick=0, start=0, rules_say=None),
    SimpleNamespace(tick=1, start=5, rules_say="MOVE X1 Y2"),
    SimpleNamespace(tick=2, start=9, rules_say=None),
]


def read_cell(tokens, at):
    if not tokens[at][1:].isdigit() or not tokens[at + 1][1:].isdigit():
        raise ValueError(f"token {at}: not a cell")
    return int(tokens[at][1:]), int(tokens[at + 1][1:])


@pytest.mark.parametrize(("index", "frame"), [(0, 0), (4, 0), (5, 1), (8, 1), (9, 2), (50, 2)])
def test_frame_of_is_the_frame_whose_span_starts_last_at_or_before(index: int, frame: int) -> None:
    assert frame_of(FRAMES, index) == frame


def test_frame_of_without_frames_is_zero() -> None:
    assert frame_of([], 7) == 0


def test_cell_at_reads_the_pair_from_its_x_or_its_y() -> None:
    tokens = ["TICK", "X3", "Y4", "EAT", "Xq", "Y1", "X2"]
    assert cell_at(tokens, 1, read_cell) == (3, 4) == cell_at(tokens, 2, read_cell)
    assert cell_at(tokens, 0, read_cell) is None and cell_at(tokens, 3, read_cell) is None
    assert cell_at(tokens, 4, read_cell) is None  # a pair that does not read is no cell
    assert cell_at(tokens, 6, read_cell) is None and cell_at(tokens, 99, read_cell) is None  # no Y after it


def test_violation_message_names_the_tick_the_token_the_hint_and_the_rules() -> None:
    tokens = ["BOS", "a", "b", "c", "d", "X9", "Y9", "e", "f", "g"]
    message = violation_message(tokens, FRAMES, 1, "move", 5, None, {"move": "the head did not move"})
    assert message == "tick 1: move at token 5 ('X9'): the head did not move; the rules give MOVE X1 Y2"
    assert violation_message(tokens, FRAMES, 2, "odd", 9, None, {}) == "tick 2: odd at token 9 ('g'): odd"


def test_a_grammar_violation_is_explained_by_the_parser_and_the_end_is_named() -> None:
    said = "expected FOOD"
    message = violation_message(["BOS"], [], 0, "grammar", 1, said, {"grammar": "hint"})
    assert message == "grammar at token 1 (the end of the sequence): expected FOOD"
    assert violation_message(["BOS"], [], 0, "grammar", 0, None, {"grammar": "hint"}).endswith(": hint")


def test_summary() -> None:
    assert summary(FRAMES, None) == "2 ticks; valid"
    assert summary([], "it broke") == "no frames; first violation: it broke"


@dataclass(frozen=True)
class Broken:
    rule: str
    index: int
    frame: int
    message: str


@dataclass(frozen=True)
class Toy(BaseReplay[None, SimpleNamespace, Broken]):
    hints: ClassVar[Mapping[str, str]] = {"move": "the head did not move"}

    def _violation(self, rule: str, index: int, frame: int) -> Broken:
        return Broken(rule, index, frame, self.message(rule, index, frame))


def verdict(*broken: tuple[str, int]) -> Verdict:
    return Verdict({}, {}, [r for r, _ in broken], broken[0][1] if broken else None, dict(broken))


def test_a_base_replay_places_its_first_violation_through_the_game() -> None:
    tokens = ["BOS", "a", "b", "c", "d", "X9", "Y9", "e", "f", "g"]
    rp = Toy(tokens, None, FRAMES, verdict(("move", 5), ("other", 8)))
    assert rp.first_violation == Broken("move", 5, 1, "tick 1: move at token 5 ('X9'): the head did not move; the rules give MOVE X1 Y2")
    assert rp.first_violation is rp.first_violation  # worked out once
    assert rp.summary() == "2 ticks; first violation: " + rp.first_violation.message
    assert rp.frame_of(9) == 2


def test_a_base_replay_without_violations_is_valid_and_a_grammar_error_speaks_for_itself() -> None:
    assert Toy(["BOS"], None, FRAMES, verdict()).first_violation is None
    assert Toy(["BOS"], None, FRAMES, verdict()).summary() == "2 ticks; valid"
    err = SimpleNamespace(index=1, message="expected FOOD")
    rp = Toy(["BOS"], None, [], verdict(("grammar", 1)), err)
    assert rp.first_violation.message == "grammar at token 1 (the end of the sequence): expected FOOD"
    assert rp.summary() == "no frames; first violation: grammar at token 1 (the end of the sequence): expected FOOD"
