from __future__ import annotations

from collections import Counter

import numpy as np

from gamegrammar.corpus import Corpus
from gamegrammar.evaluation.fidelity import (
    CATEGORIES,
    compare_distributions,
    ks_statistic,
    rule_determined_positions,
    summarize_episode,
    total_variation,
)


def test_episode_summaries_match_the_corpus_index(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    for row in range(len(corpus)):
        s = summarize_episode(corpus.episode_tokens(row))
        assert (s.ticks, s.score) == (corpus.index["ticks"][row], corpus.index["score"][row])
    cut = summarize_episode(corpus.episode_tokens(0)[:20])
    assert cut.end == "none"


def test_corpus_against_itself_is_at_distance_zero(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    samples = [summarize_episode(corpus.episode_tokens(r)) for r in range(len(corpus))]
    d = compare_distributions(samples, corpus.index["ticks"], corpus.index["score"], corpus.index["end"], corpus.game.max_ticks)
    assert d["length_ticks"]["tv"] == d["score"]["tv"] == d["end_reason"]["tv"] == 0.0
    short = [s.__class__(1, 0, "DIE_WALL") for s in samples]
    d = compare_distributions(short, corpus.index["ticks"], corpus.index["score"], corpus.index["end"], corpus.game.max_ticks)
    assert d["length_ticks"]["tv"] > 0.5 and d["end_reason"]["tv"] > 0.3


def test_distances():
    assert total_variation(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == 1.0
    assert ks_statistic(np.array([1, 2, 3]), np.array([1, 2, 3])) == 0.0
    assert ks_statistic(np.array([0, 0]), np.array([5, 5])) == 1.0


def test_rule_determined_positions_skip_inputs_spawns_and_the_opening(tiny_corpus):
    tokens = Corpus(tiny_corpus).episode_tokens(0)
    positions = dict(rule_determined_positions(tokens))
    assert all(p >= 13 for p in positions)
    assert not any(tokens[p].startswith("INPUT_") for p in positions)
    for p, t in enumerate(tokens):
        if t == "FOOD_SPAWN":
            assert p in positions or p - 1 in positions  # the spawn word is determined, its cell is not
            assert p + 1 not in positions and p + 2 not in positions
    assert set(positions.values()) <= set(CATEGORIES)


def test_teacher_forced_windows_score_every_position_once(untrained_teacher_forced):
    tokens, result = untrained_teacher_forced  # 6 episodes, longer than the 64-token context
    assert result["positions"] == sum(len(rule_determined_positions(t)) for t in tokens)
    assert 0 <= result["accuracy"] <= 1 and result["episodes"] == 6
    # every tick's outcome, once, under the outcome the rules dictate
    kinds = Counter(t[i + 1] for t in tokens for i, tok in enumerate(t) if tok.startswith("INPUT_"))
    assert {k: v["count"] for k, v in result["outcomes"].items()} == dict(kinds)
    assert sum(v["count"] for v in result["outcomes"].values()) <= result["categories"]["outcome"]["count"]
