from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.data.corpus import Corpus
from gamegrammar.games import tokenizer_for
from gamegrammar.games.snake.rules import SnakeConfig


def test_hf_tokenizer_from_file_agrees_with_stored_ids(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    hf = Tokenizer.from_file(str(tiny_corpus / "tokenizer.json"))
    for row in range(len(corpus)):
        ids = corpus.episode_ids(row)
        text = " ".join(corpus.episode_tokens(row))
        assert hf.encode(text).ids == ids.tolist()
        assert hf.decode(ids.tolist(), skip_special_tokens=False).split() == text.split()


def test_round_trip_through_json():
    tok = tokenizer_for(SnakeConfig(7, 9))
    again = GameTokenizer.from_json(tok.to_json())
    assert again.tokens == tok.tokens and again.sha256() == tok.sha256()
    assert tok.dtype == np.uint16


def test_unknown_tokens_are_a_clear_error():
    tok = tokenizer_for(SnakeConfig())
    with pytest.raises(GameGrammarError, match="unknown token 'X10'"):
        tok.encode(["BOS", "X10"])


def test_vocabulary_depends_on_the_board():
    assert tokenizer_for(SnakeConfig(10, 10)).sha256() != tokenizer_for(SnakeConfig(10, 11)).sha256()


def test_a_file_that_is_not_a_tokenizer_is_one_line(tmp_path):
    path = tmp_path / "tokenizer.json"
    for text, message in (('{"bad": 1}', "no 'model' in it"), ("[1]", "not a gamegrammar tokenizer"), ("{", "not a gamegrammar tokenizer")):
        path.write_text(text)
        with pytest.raises(GameGrammarError, match=message):
            GameTokenizer.from_file(path)
    with pytest.raises(GameGrammarError, match=r"cannot read tokenizer .*No such file"):
        GameTokenizer.from_file(tmp_path / "missing.json")
