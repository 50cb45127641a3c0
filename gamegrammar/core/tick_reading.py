"""One written tick read from a known state (`GameSpec.read_tick`), the way every game reads it.

A dream advances tick by tick, so each game reads a tick as its trace and its strict evaluator would, but from the
state before it: the tick is parsed behind a keyframe of that state (every grammar parses ticks only after a
keyframe), numbered as the state's next tick, checked, and followed. Which rules are checked and how a state is
followed are the game's; the order of those steps, and what each failure reads as, live here once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from gamegrammar.core.episode_grammar import GrammarError
from gamegrammar.core.gamespec import TickReading
from gamegrammar.core.verdict import Findings

PAST_LIMIT = "timeout_at_limit"  # the rule a tick written after the tick limit breaks (the game was over)


class TickedState(Protocol):
    """A game state that knows its tick."""

    @property
    def tick(self) -> int: ...


StateT = TypeVar("StateT", bound=TickedState)


def read_tick(
    state: StateT,
    tokens: Sequence[str],
    *,
    keyframe: Sequence[str],
    parse: Callable[[Sequence[str]], Iterable[Any]],
    check: Callable[[StateT, Any, Findings], object],
    follow: Callable[[StateT, Any], StateT | None],
    agrees: Callable[[Any, StateT], bool],
    max_ticks: int,
) -> TickReading:
    """One whole tick (`tokens`: TICK up to the next TICK, keyframe and EOS included) read after `state`.

    `keyframe` is the state written as a keyframe, behind which `parse` reads the tick; `check(state, tick, found)`
    notes the rules the tick breaks, `follow(state, tick)` is the state after it (None where the rules cannot follow
    it), and `agrees(tick, after)` says whether the keyframe the tick ends with is that state: no state is followed
    past one that is not. A tick past `max_ticks` has no state after it (the game was over) and breaks PAST_LIMIT
    at least.
    """
    head = ["BOS", *keyframe]
    seq = [*head, *tokens]
    found = Findings(len(seq) + 1)  # the tick is whole: an element missing at its end is missing, not cut off
    try:
        items = list(parse(seq))
    except GrammarError:
        return TickReading(None, ("grammar",))
    ticks = items[1:]  # the first element is the keyframe, every later one a tick
    if len(ticks) != 1 or ticks[0].start != len(head):
        raise ValueError(f"read_tick reads one whole tick, got {len(ticks)} in {' '.join(tokens)!r}")
    tick = ticks[0]
    tick.number = state.tick + 1
    check(state, tick, found)
    broken = tuple(sorted(found.first, key=found.first.__getitem__))
    if tick.number > max_ticks:  # trace stops here: the game was over
        return TickReading(None, broken or (PAST_LIMIT,))
    after = follow(state, tick)
    if after is not None and tick.keyframe is not None and not agrees(tick, after):
        after = None  # trace follows no further than a keyframe that disagrees with the state
    return TickReading(after, broken)
