"""Fidelity to the corpus, for any game: distances between distributions, and the teacher-forced check."""

from __future__ import annotations

from collections import Counter

import numpy as np

from gamegrammar.core.gamespec import EpisodeSummary
from gamegrammar.data.corpus import Corpus
from gamegrammar.evaluation.fidelity import compare_distributions, end_labels, ks_statistic, summarize_episodes, total_variation
from gamegrammar.games import load_game


def test_corpus_against_itself_is_at_distance_zero(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    index = corpus.index
    samples = summarize_episodes([corpus.episode_tokens(r) for r in range(len(corpus))], corpus.game)
    d = compare_distributions(samples, index["ticks"], index["score"], index["end"], corpus.game)
    assert d["length_ticks"]["tv"] == d["score"]["tv"] == d["end_reason"]["tv"] == 0.0
    assert d["end_reason"]["labels"] == [*load_game("snake").end_events, "none"]
    short = [EpisodeSummary(1, 0, "DIE_WALL") for _ in samples]
    d = compare_distributions(short, index["ticks"], index["score"], index["end"], corpus.game)
    assert d["length_ticks"]["tv"] > 0.5 and d["end_reason"]["tv"] > 0.3


def test_any_game_names_its_own_end_reasons(coin):
    samples = summarize_episodes(["BOS TICK H END EOS", "BOS TICK H TICK", "BOS TICK TIMEOUT EOS"], coin)
    assert [s.end for s in samples] == ["END", "none", "TIMEOUT"]
    d = compare_distributions(samples, np.array([1, 1]), np.array([1, 0]), np.array([0, 1]), coin)
    assert d["end_reason"]["labels"] == ["END", "TIMEOUT", "none"] == end_labels(load_game("coin"))
    assert d["end_reason"]["sample"] == [1 / 3, 1 / 3, 1 / 3] and d["end_reason"]["corpus"] == [0.5, 0.5, 0.0]
    assert d["length_ticks"]["bins"] == [0, 4, 5]  # the tick limit has a bin of its own


def test_distances():
    assert total_variation(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == 1.0
    assert ks_statistic(np.array([1, 2, 3]), np.array([1, 2, 3])) == 0.0
    assert ks_statistic(np.array([0, 0]), np.array([5, 5])) == 1.0


def test_teacher_forced_windows_score_every_position_once(untrained_teacher_forced):
    tokens, result = untrained_teacher_forced  # 6 episodes, longer than the 64-token context
    game = load_game("snake")
    assert result["positions"] == sum(len(game.rule_determined_positions(t)) for t in tokens)
    assert 0 <= result["accuracy"] <= 1 and result["episodes"] == 6
    # the categories grammar v1 writes, in the game's order; another design's (tail events' "free", say) are not listed
    written = {c for t in tokens for _, c, _ in game.rule_determined_positions(t)}
    assert list(result["categories"]) == [c for c in game.teacher_categories if c in written] and "free" not in written
    # every tick's outcome, once, under the outcome the rules dictate
    kinds = Counter(t[i + 1] for t in tokens for i, tok in enumerate(t) if tok.startswith("INPUT_"))
    assert {k: v["count"] for k, v in result["outcomes"].items()} == dict(kinds)
    assert sum(v["count"] for v in result["outcomes"].values()) <= result["categories"]["outcome"]["count"]


def test_the_players_fates_are_compared_for_games_with_several_players():
    from gamegrammar.games.battlesnake.rules import BattlesnakeConfig

    config = BattlesnakeConfig(7, 7, 2, max_ticks=30)
    labels = list(load_game("battlesnake").outcome_labels)
    corpus = [EpisodeSummary(5, 4, "WIN", ("wall-collision", "survived"))] * 2
    samples = [EpisodeSummary(5, 4, "WIN", ("head-collision", "survived")), corpus[0]]
    ends = np.zeros(2, np.int64)
    d = compare_distributions(samples, np.array([5, 5]), np.array([4, 4]), ends, config, corpus)
    assert d["outcomes"]["labels"] == labels and d["outcomes"]["tv"] == 0.25  # one fate of four moved
    assert d["outcomes"]["corpus"][labels.index("survived")] == 0.5
    assert "outcomes" not in compare_distributions(samples, np.array([5, 5]), np.array([4, 4]), ends, config)
