"""Go's grammar: the documented example is a real episode, encoder and parser agree, and the parser's errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go.grammar import GrammarError, decode, input_tokens, parse, vocabulary

DOCS = Path(__file__).parents[3] / "docs" / "grammar.md"


def test_the_documented_example_is_episode_190_of_seed_0():
    text = DOCS.read_text().split("## Go", 1)[1]
    block = re.search(r"```\n(BOS SNAP BLACK.*?)```", text, re.S).group(1)
    record = GAME.play_episode(GoConfig(5, komi=0.5), CodecConfig(), "capture", 0, 190)
    assert block.split() == record.tokens


def test_inputs_are_moves_and_stones_are_other_words():
    config = GoConfig(9)
    vocab, inputs = vocabulary(config), input_tokens(config)
    assert "D4" in inputs and "d4" in vocab and "d4" not in inputs and {"PASS", "RESIGN"} <= set(inputs)
    assert len(vocab) == 265 and vocab[:4] == ["PAD", "UNK", "BOS", "EOS"]


def test_decode_reads_back_the_events_and_the_parser_refuses_what_the_grammar_does_not_write():
    record = GAME.play_episode(GoConfig(7, max_ticks=80), CodecConfig(4), "random", 1, 2)
    assert decode(record.tokens) == record.events
    for bad, at in (
        ("BOS SNAP BLACK WHITE TICK", 4),
        ("BOS SNAP BLACK WHITE TO_BLACK TICK d4", 6),
        ("BOS SNAP BLACK WHITE TO_BLACK TICK PASS TAKE", 7),
    ):
        with pytest.raises(GrammarError) as err:
            list(parse(bad.split(), 9))
        assert err.value.index == at, bad
    with pytest.raises(GrammarError, match="end of sequence"):
        list(parse(["BOS", "SNAP", "BLACK", "WHITE", "TO_BLACK", "TICK", "D4", "TAKE"], 9))
