"""What Snake's fidelity measures read: episode summaries, and the tokens its rules determine."""

from __future__ import annotations

from collections import Counter

from gamegrammar.corpus import Corpus
from gamegrammar.games.snake.fidelity import CATEGORIES, rule_determined_positions, summarize_episode


def test_episode_summaries_match_the_corpus_index(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    for row in range(len(corpus)):
        s = summarize_episode(corpus.episode_tokens(row))
        assert (s.ticks, s.score) == (corpus.index["ticks"][row], corpus.index["score"][row])
    cut = summarize_episode(corpus.episode_tokens(0)[:20])
    assert cut.end == "none"


def test_rule_determined_positions_skip_inputs_spawns_and_the_opening(tiny_corpus):
    tokens = Corpus(tiny_corpus).episode_tokens(0)
    found = rule_determined_positions(tokens)
    positions = {p: c for p, c, _ in found}
    assert len(positions) == len(found)  # one category per position
    assert all(p >= 13 for p in positions)
    assert not any(tokens[p].startswith("INPUT_") for p in positions)
    for p, t in enumerate(tokens):
        if t == "FOOD_SPAWN":
            assert p in positions or p - 1 in positions  # the spawn word is determined, its cell is not
            assert p + 1 not in positions and p + 2 not in positions
    assert set(positions.values()) <= set(CATEGORIES)


def test_the_kind_is_the_outcome_right_after_each_input(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    for row in range(10):
        tokens = corpus.episode_tokens(row)
        kinds = {p: k for p, _, k in rule_determined_positions(tokens) if k}
        assert kinds == {i + 1: tokens[i + 1] for i, t in enumerate(tokens) if t.startswith("INPUT_")}
        assert Counter(kinds.values()).keys() <= {"MOVE", "EAT", "DIE_WALL", "DIE_SELF"}
