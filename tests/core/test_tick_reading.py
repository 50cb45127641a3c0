"""One written tick read from a known state, on a toy game: the state is a tick count, a tick writes `TICK` (and
`SNAP Tn`, its keyframe, where it has one); the rules break `odd` on odd ticks."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gamegrammar.core.episode_grammar import expect_word, fail, read_episode
from gamegrammar.core.tick_reading import PAST_LIMIT, read_tick


@dataclass(frozen=True)
class State:
    tick: int


@dataclass
class Snap:
    start: int
    end: int
    tick: int


@dataclass
class Tick:
    start: int
    end: int
    number: int
    end_event: str | None = None
    keyframe: Snap | None = None


def _snap(tokens, i):
    j = expect_word(tokens, i, "SNAP")
    try:
        return Snap(i, j + 1, int(tokens[j].removeprefix("T")))
    except (IndexError, ValueError):
        raise fail(tokens, j, "expected T<n>") from None


def parse(tokens):
    return read_episode(tokens, _snap, lambda tokens, i, number, previous: Tick(i, expect_word(tokens, i, "TICK"), number))


def read(state, tokens, max_ticks=10, follow=lambda s, t: State(t.number)):
    def check(before, tick, found):
        if tick.number % 2:
            found.note("odd", tick.start)

    return read_tick(
        state,
        tokens.split(),
        keyframe=["SNAP", f"T{state.tick}"],
        parse=parse,
        check=check,
        follow=follow,
        agrees=lambda tick, after: tick.keyframe.tick == after.tick,
        max_ticks=max_ticks,
    )


def test_a_tick_is_numbered_after_the_state_checked_and_followed():
    even = read(State(3), "TICK")
    assert even.state == State(4) and even.broken == ()
    odd = read(State(4), "TICK")
    assert odd.state == State(5) and odd.broken == ("odd",)


def test_a_keyframe_that_disagrees_stops_the_state_but_not_the_check():
    assert read(State(3), "TICK SNAP T4").state == State(4)
    assert read(State(3), "TICK SNAP T9").state is None
    assert read(State(3), "TICK", follow=lambda s, t: None).state is None


def test_a_tick_past_the_limit_has_no_state_and_breaks_the_limit_at_least():
    past = read(State(10), "TICK", max_ticks=10)
    assert past.state is None and past.broken == ("odd",)
    assert read(State(11), "TICK", max_ticks=10).broken == (PAST_LIMIT,)


def test_what_the_grammar_refuses_is_a_grammar_break_and_more_than_one_tick_is_a_caller_error():
    refused = read(State(0), "TICK SNAP")
    assert refused.state is None and refused.broken == ("grammar",)
    with pytest.raises(ValueError, match="one whole tick"):
        read(State(0), "TICK TICK")
