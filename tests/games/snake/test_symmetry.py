from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.corpus import Corpus, CorpusSpec, generate
from gamegrammar.errors import GameGrammarError
from gamegrammar.games import tokenizer_for
from gamegrammar.games.snake.grammar import CodecConfig, Tick, parse
from gamegrammar.games.snake.rules import SnakeConfig, body_neighbours
from gamegrammar.games.snake.symmetry import SYMMETRIES, SymmetryTransform
from gamegrammar.games.snake.trace import trace
from gamegrammar.games.snake.validity import validate


@pytest.fixture(scope="module")
def keyframed_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("aug")
    generate(CorpusSpec(SnakeConfig(7, 7, 150), CodecConfig(keyframe_interval=4), episodes=150, seed=3), out)
    return Corpus(out)


def test_every_symmetry_of_every_episode_passes_the_strict_evaluator(
    keyframed_corpus, tiny_corpus, tails_corpus, head_first_corpus, sense_corpus
):
    corpora = (Corpus(tiny_corpus), Corpus(tails_corpus), Corpus(head_first_corpus), Corpus(sense_corpus))
    for corpus in (keyframed_corpus, *corpora):
        transform = SymmetryTransform(corpus.tokenizer, corpus.game)
        for row in range(len(corpus)):
            tokens = corpus.episode_tokens(row)
            images = set()
            for name in SYMMETRIES:
                out = transform.apply_tokens(tokens, name)
                verdict = validate(out, corpus.game)
                assert verdict.valid, (name, row, verdict.violations)
                images.add(tuple(out))
            assert len(images) > 1


def test_the_group_acts_as_it_should(keyframed_corpus):
    transform = SymmetryTransform(keyframed_corpus.tokenizer, keyframed_corpus.game)
    ids = np.asarray(keyframed_corpus.episode_ids(0))
    twice = transform.apply(transform.apply(ids, "rot90"), "rot90")
    assert np.array_equal(twice, transform.apply(ids, "rot180"))
    for involution in ("flip_x", "flip_y", "transpose", "anti_transpose", "rot180"):
        assert np.array_equal(transform.apply(transform.apply(ids, involution), involution), ids)
    assert np.array_equal(transform.apply(ids, "identity"), ids)


def test_non_square_boards_are_refused():
    config = SnakeConfig(6, 8)
    with pytest.raises(GameGrammarError, match="square"):
        SymmetryTransform(tokenizer_for(config), config)


def test_the_free_cell_moves_with_the_board(tails_corpus):
    corpus = Corpus(tails_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    tokens = corpus.episode_tokens(0)
    at = tokens.index("FREE")
    x, y = int(tokens[at + 1][1:]), int(tokens[at + 2][1:])
    for name, f in SYMMETRIES.items():
        image = transform.apply_tokens(tokens, name)
        nx, ny = f(x, y, corpus.game.width - 1)
        assert image[at] == "FREE" and image[at + 1 : at + 3] == [f"X{nx}", f"Y{ny}"]


def test_the_head_first_cell_moves_with_the_board(head_first_corpus):
    corpus = Corpus(head_first_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        if tokens[-2] == "DIE_SELF":
            break
    else:
        pytest.fail("no self-death in the head-first corpus")
    cells = [i + 1 for i, t in enumerate(tokens) if t.startswith("INPUT_") and tokens[i + 1] != "DIE_WALL"]
    assert tokens[cells[-1] + 2] == "DIE_SELF"  # the last one is the cell the head runs into
    for name, f in SYMMETRIES.items():
        image = transform.apply_tokens(tokens, name)
        for at in cells:
            nx, ny = f(int(tokens[at][1:]), int(tokens[at + 1][1:]), corpus.game.width - 1)
            assert image[at : at + 2] == [f"X{nx}", f"Y{ny}"] and image[at + 2] == tokens[at + 2], (name, at)


def test_the_sense_words_turn_with_the_board(sense_corpus):
    """Every SENSE word of every image names the deadly body around the head of the image's own states."""
    corpus = Corpus(sense_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    for row in range(20):
        for name in SYMMETRIES:
            image = transform.apply_tokens(corpus.episode_tokens(row), name)
            states = trace(image, corpus.game)
            ticks = [t for t in parse(image) if isinstance(t, Tick)]
            assert len(states) == len(ticks) + 1 and all(t.sense == body_neighbours(states[t.number - 1]) for t in ticks)
