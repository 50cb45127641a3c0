"""What every game's token grammar shares: its error, its one-token reads, and the frame of an episode.

Every game writes an episode as `BOS keyframe tick* EOS`, a tick sometimes followed by a keyframe, and its parser is
held to the same contract: it yields the first keyframe and then each tick as far as the grammar allows, raises
`GrammarError` at the first token the grammar refuses, and tells a sequence that simply stops (`at_end`) from a
malformed one. A game's grammar module reads its own keyframes and ticks; the frame around them lives here once,
so both games cut, close and report an episode the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar


class GrammarError(ValueError):
    """The token at `index` is not allowed by the grammar."""

    def __init__(self, index: int, message: str, at_end: bool = False) -> None:
        super().__init__(f"token {index}: {message}")
        self.index = index
        self.message = message
        self.at_end = at_end  # the sequence stopped mid-element: cut off, not malformed


class Element(Protocol):
    """A parsed keyframe or tick: where it starts and ends (the index after its last token)."""

    start: int
    end: int


class TickElement(Element, Protocol):
    """A parsed tick, as the episode frame reads it."""

    number: int
    end_event: str | None
    keyframe: Element | None


K = TypeVar("K", bound=Element)
S = TypeVar("S")
T = TypeVar("T", bound=TickElement)


def token_at(tokens: Sequence[str], i: int) -> str | None:
    """Token i, or None past the end (a sequence that stops there)."""
    return tokens[i] if i < len(tokens) else None


def fail(tokens: Sequence[str], i: int, message: str) -> GrammarError:
    """The error for token i: `message` and what was found, `at_end` when nothing was."""
    found = token_at(tokens, i)
    where = "end of sequence" if found is None else repr(found)
    return GrammarError(i, f"{message}, found {where}", at_end=found is None)


def expect_word(tokens: Sequence[str], i: int, expected: str) -> int:
    """The index after token i, which must be `expected`."""
    if token_at(tokens, i) != expected:
        raise fail(tokens, i, f"expected {expected}")
    return i + 1


def read_episode(
    tokens: Sequence[str],
    read_keyframe: Callable[[Sequence[str], int], K],
    read_tick: Callable[[Sequence[str], int, int, K | T], T],
    *,
    to_eos: bool = False,
) -> Iterator[K | T]:
    """The first keyframe, then each tick (with the keyframe written after it, if any), as far as the grammar allows;
    then the episode's close.

    `read_keyframe(tokens, i)` reads the keyframe whose first token is i; `read_tick(tokens, i, number, previous)`
    reads tick `number` starting at i, `previous` being the element before it (the first keyframe, or the tick before
    with its keyframe). By default the episode must end properly: nothing but EOS after an end event, no EOS before
    one, nothing after EOS. With `to_eos` only the bare grammar is enforced (a keyframe may follow any tick) and
    reading stops at the first EOS: a strict evaluator reads ticks written after an end event as a rule of its own.
    A tick whose keyframe breaks the grammar is yielded without it before the error is raised, so a sequence cut off
    inside a keyframe still shows its last tick.
    """
    n = len(tokens)
    i = expect_word(tokens, 0, "BOS")
    first = read_keyframe(tokens, i)
    yield first
    i = first.end
    previous: K | T = first
    number = 0
    while i < n and tokens[i] == "TICK":
        number += 1
        tick = read_tick(tokens, i, number, previous)
        i = tick.end
        if i < n and tokens[i] == "SNAP" and (tick.end_event is None or to_eos):
            try:
                tick.keyframe = read_keyframe(tokens, i)
            except GrammarError:
                yield tick  # its events parsed: the caller may check them before the keyframe's error
                raise
            tick.end = i = tick.keyframe.end
        previous = tick
        yield tick
        if tick.end_event is not None and not to_eos:
            if i < n:
                i = expect_word(tokens, i, "EOS")
            break
    if i < n and not (to_eos and tokens[i] == "EOS"):
        if i > 0 and tokens[i - 1] == "EOS":
            raise fail(tokens, i, "expected nothing after EOS")
        raise fail(tokens, i, "expected TICK or EOS" if tokens[i] != "EOS" else "EOS before an end event")


def episode_prefix(tokens: Sequence[str], elements: Iterable[Element], ticks: int) -> list[str]:
    """The first keyframe and the first `ticks` ticks of an episode (`elements`, its parse): a prompt from real play."""
    end = 0
    for k, item in enumerate(elements):
        if k > 0 and item.number > ticks:  # type: ignore[attr-defined]  # every element after the first is a tick
            break
        end = item.end
    return list(tokens[:end])


def trace_states(
    elements: Iterable[Any],
    opening: Callable[[Any], S],
    follow: Callable[[S, Any], S | None],
    agrees: Callable[[Any, S], bool],
    max_ticks: int,
) -> list[S]:
    """A game's `trace` from its parse (`elements`: the first keyframe, then the ticks): the opening's state, then the
    state after each tick the rules can follow (`follow`, None where they cannot), stopping at a grammar error, past
    `max_ticks`, and after a keyframe that does not show the followed state (`agrees`)."""
    states: list[S] = []
    try:
        for k, item in enumerate(elements):
            if k == 0:
                states.append(opening(item))
                continue
            if item.number > max_ticks:
                break
            after = follow(states[-1], item)
            if after is None:
                break
            states.append(after)
            if item.keyframe is not None and not agrees(item.keyframe, after):
                break
    except GrammarError:
        pass
    return states


# ---------------------------------------------------------------- the frame's rules, for a strict evaluator

Note = Callable[[str, int], None]
"""note(rule, index): a strict evaluator's record that `rule` breaks at token `index` (`verdict.Findings.note`)."""


def note_grammar_error(note: Note, err: GrammarError, n: int, *, ended: bool, stop: int) -> None:
    """The frame's rules a grammar error in a sequence of `n` tokens breaks: `complete` where the sequence stops
    mid-element, `grammar` elsewhere; and, once an end event was read (`ended`), `end_is_final` at `stop`, where the
    reading stopped: whatever stands there, it is not the EOS."""
    note("complete" if err.at_end else "grammar", err.index)
    if ended and stop < n:
        note("end_is_final", stop)


def note_close(note: Note, n: int, *, ended: bool, stop: int) -> None:
    """How a sequence of `n` tokens that parses to `stop` (its first EOS, or n) breaks `complete`: cut off, an EOS
    before any end event, or something after the EOS."""
    if stop >= n:
        note("complete", n)  # cut off
    elif not ended:
        note("complete", stop)  # EOS before any end event
    elif stop + 1 < n:
        note("complete", stop + 1)  # something after the EOS


class KeyframeSchedule:
    """The frame's rule `keyframe_schedule`: a keyframe after exactly the ticks where the codec writes one.

    The codec writes the opening keyframe and one after every K-th tick (`CodecConfig.keyframe_after`; K = 0: only
    the opening), never after an end event (a keyframe there is `end_is_final`'s). `interval` declares K (the
    corpus's or the checkpoint's codec); None reads it off the sequence: the number of the first tick followed by a
    keyframe is K, and every later tick is held to it.
    """

    __slots__ = ("interval", "word")

    def __init__(self, interval: int | None, keyframe_word: str) -> None:
        if interval is not None and interval < 0:
            raise ValueError(f"keyframe interval must be >= 0, got {interval}")
        self.interval, self.word = interval, keyframe_word

    def check(self, note: Note, tokens: Sequence[str], tick: TickElement) -> None:
        """Note an extra keyframe at its first token, a missing one where it should begin (not where the sequence
        stops: a cut-off is `complete`'s). A keyframe that broke the grammar still counts as written."""
        if tick.end_event is not None:
            return
        at = tick.keyframe.start if tick.keyframe is not None else tick.end
        written = tick.keyframe is not None or token_at(tokens, at) == self.word
        if self.interval is None:
            if written:
                self.interval = tick.number  # the first keyframe after a tick fixes the interval
            return
        due = self.interval > 0 and tick.number % self.interval == 0
        if written != due and at < len(tokens):
            note("keyframe_schedule", at)
