"""The episode frame every game's parser is built on, on a toy grammar: `BOS SNAP Vn (TICK [END] [SNAP Vn])* EOS`."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gamegrammar.core.episode_grammar import (
    GrammarError,
    episode_prefix,
    expect_word,
    fail,
    note_close,
    note_grammar_error,
    read_episode,
    token_at,
)


@dataclass
class Snap:
    start: int
    end: int
    value: int


@dataclass
class Tick:
    start: int
    end: int
    number: int
    end_event: str | None
    keyframe: Snap | None = None
    previous: object = None


def read_snap(tokens, i):
    j = expect_word(tokens, i, "SNAP")
    word = token_at(tokens, j)
    if word is None or not word.startswith("V"):
        raise fail(tokens, j, "expected V<n>")
    return Snap(i, j + 1, int(word[1:]))


def read_tick(tokens, i, number, previous):
    j = expect_word(tokens, i, "TICK")
    end = "END" if token_at(tokens, j) == "END" else None
    return Tick(i, j + (end is not None), number, end, previous=previous)


def parse(tokens, to_eos=False):
    return read_episode(tokens, read_snap, read_tick, to_eos=to_eos)


def test_token_reads_and_their_errors():
    tokens = ["BOS", "SNAP"]
    assert token_at(tokens, 1) == "SNAP" and token_at(tokens, 2) is None
    assert expect_word(tokens, 0, "BOS") == 1
    with pytest.raises(GrammarError) as err:
        expect_word(tokens, 1, "TICK")
    assert err.value.index == 1 and not err.value.at_end and "expected TICK, found 'SNAP'" in str(err.value)
    cut = fail(tokens, 2, "expected V<n>")
    assert cut.at_end and cut.index == 2 and cut.message == "expected V<n>, found end of sequence"
    assert isinstance(cut, ValueError)


def test_an_episode_reads_keyframe_then_ticks_each_knowing_the_one_before():
    tokens = ["BOS", "SNAP", "V1", "TICK", "TICK", "SNAP", "V2", "TICK", "END", "EOS"]
    items = list(parse(tokens))
    assert [type(x).__name__ for x in items] == ["Snap", "Tick", "Tick", "Tick"]
    first, one, two, three = items
    assert [t.number for t in (one, two, three)] == [1, 2, 3]
    assert one.previous is first and two.previous is one and three.previous is two
    assert two.keyframe == Snap(5, 7, 2) and two.end == 7  # the keyframe after a tick is its own
    assert three.end_event == "END" and three.end == 9


@pytest.mark.parametrize(
    ("text", "index", "message"),
    [
        ("BOS SNAP V1 TICK END", None, None),  # a prefix that stops is not malformed
        ("BOS SNAP V1 TICK END TICK", 5, "expected EOS"),
        ("BOS SNAP V1 TICK EOS", 4, "EOS before an end event"),
        ("BOS SNAP V1 TICK END EOS TICK", 6, "expected nothing after EOS"),
        ("BOS SNAP V1 V2", 3, "expected TICK or EOS"),
        ("SNAP V1", 0, "expected BOS"),
    ],
)
def test_the_close_of_an_episode(text, index, message):
    tokens = text.split()
    if index is None:
        assert len(list(parse(tokens))) == 2
        return
    with pytest.raises(GrammarError) as err:
        list(parse(tokens))
    assert err.value.index == index and message in err.value.message


def test_to_eos_reads_past_an_end_event_and_stops_at_the_first_eos():
    tokens = ["BOS", "SNAP", "V1", "TICK", "END", "SNAP", "V3", "TICK", "EOS", "TICK"]
    items = list(parse(tokens, to_eos=True))
    assert len(items) == 3 and items[1].keyframe == Snap(5, 7, 3) and items[2].end == 8


def test_a_tick_whose_keyframe_breaks_is_yielded_before_the_error():
    seen = []
    with pytest.raises(GrammarError) as err:
        for item in parse(["BOS", "SNAP", "V1", "TICK", "SNAP"]):
            seen.append(item)
    assert err.value.at_end and len(seen) == 2 and seen[1].keyframe is None


def test_episode_prefix_keeps_the_first_keyframe_and_ticks():
    tokens = ["BOS", "SNAP", "V1", "TICK", "TICK", "SNAP", "V2", "TICK", "END", "EOS"]
    assert episode_prefix(tokens, parse(tokens), 0) == ["BOS", "SNAP", "V1"]
    assert episode_prefix(tokens, parse(tokens), 2) == tokens[:7]
    assert episode_prefix(tokens, parse(tokens), 9) == tokens[:9]


def test_the_frame_rules_a_strict_evaluator_notes():
    noted: list[tuple[str, int]] = []
    note = lambda rule, i: noted.append((rule, i))  # noqa: E731
    note_grammar_error(note, GrammarError(4, "x", at_end=True), 4, ended=False, stop=3)
    note_grammar_error(note, GrammarError(5, "x"), 7, ended=True, stop=5)
    assert noted == [("complete", 4), ("grammar", 5), ("end_is_final", 5)]
    noted.clear()
    note_close(note, 6, ended=True, stop=6)  # cut off
    note_close(note, 6, ended=False, stop=4)  # EOS before an end event
    note_close(note, 6, ended=True, stop=4)  # something after the EOS
    note_close(note, 6, ended=True, stop=5)  # a proper close
    assert noted == [("complete", 6), ("complete", 4), ("complete", 5)]
