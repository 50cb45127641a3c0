"""Novelty: the keys of the states sequences reach, a corpus's keys (batch path, trace path, cache), and novel shares."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gamegrammar.data import novelty
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.data.novelty import corpus_state_keys, corpus_states, sequence_state_keys, state_table
from gamegrammar.data.novelty import novelty as novelty_of
from gamegrammar.games import load_game
from gamegrammar.games.battlesnake import BattlesnakeConfig
from gamegrammar.games.snake.rules import SnakeConfig

SNAKE = SnakeConfig(6, 6, 60)


def _corpus(root: Path, seed: int, game: object = SNAKE, episodes: int = 150) -> Corpus:
    out = root / f"{type(game).__name__}-{seed}"
    generate(CorpusSpec(game=game, episodes=episodes, seed=seed, shard_episodes=60, val_fraction=0.2), out)
    return Corpus(out)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> tuple[Corpus, Corpus]:
    root = tmp_path_factory.mktemp("novelty")
    return _corpus(root, 1), _corpus(root, 2)


def test_sequence_keys_are_the_keys_of_the_traced_states(corpora):
    corpus = corpora[0]
    game, table = corpus.game_spec, state_table(SNAKE)
    for row in range(10):
        tokens = corpus.episode_tokens(row)
        keys = sequence_state_keys(tokens, SNAKE)
        states = game.trace(tokens, SNAKE)
        assert keys.dtype == np.uint64 and len(keys) == len(states) == corpus.index[row]["ticks"] + 1
        assert keys.tolist() == [table.hash(game.state_features(s, SNAKE)) for s in states]


def test_sequence_keys_stop_where_the_rules_stop_following():
    tokens = load_game("snake").play_episode(SNAKE, load_game("snake").codec_type(), "greedy", 0, 3).tokens
    whole = sequence_state_keys(tokens, SNAKE)
    ticks = [i for i, t in enumerate(tokens) if t == "TICK"]
    broken = list(tokens)
    broken[ticks[4] + 3] = "X0" if broken[ticks[4] + 3] != "X0" else "X5"  # the fifth tick's MOVE goes to a cell the rules do not
    assert sequence_state_keys(broken, SNAKE).tolist() == whole[:5].tolist()
    assert sequence_state_keys(["BOS", "TICK"], SNAKE).tolist() == []
    off_board = ["BOS", "SNAP", "PLAYER", "X9", "Y1", "DIR_R", "LEN1", "BODY", "FOOD", "X1", "Y1", "SCORE", "V0", "EOS"]
    assert sequence_state_keys(off_board, SNAKE).tolist() == []  # a keyframe off the board has no key


def test_corpus_keys_are_every_state_of_the_split_sorted_and_unique(corpora):
    corpus = corpora[0]
    rows = corpus.split("train")
    every = np.concatenate([sequence_state_keys(corpus.episode_tokens(int(r)), SNAKE) for r in rows])
    found = corpus_states(corpus, "train", cache=False)
    assert found.keys.tolist() == sorted(set(every.tolist()))
    assert found.states == len(every) and found.episodes == len(rows)
    assert np.array_equal(
        corpus_state_keys(corpus, "train", max_episodes=5), np.unique(every[: int(corpus.index["ticks"][rows[:5]].sum()) + 5])
    )


def test_the_batch_path_and_the_trace_path_agree_on_a_corpus(corpora, monkeypatch):
    corpus = corpora[1]
    fast = corpus_states(corpus, "train", cache=False)
    monkeypatch.setattr(type(corpus.game_spec), "state_keys_batch", None)
    slow = corpus_states(corpus, "train", cache=False)
    assert np.array_equal(fast.keys, slow.keys) and fast.states == slow.states


def test_the_batch_path_leaves_invalid_episodes_to_the_trace(corpora, monkeypatch):
    corpus = corpora[0]
    game = corpus.game_spec
    seen = []
    batch = type(game).state_keys_batch

    def spy(episodes, *args):
        seen.append(len(episodes))
        return batch(episodes, *args)

    truth = corpus_states(corpus, "val", cache=False)
    monkeypatch.setattr(type(game), "state_keys_batch", staticmethod(spy))
    validate = type(game).validate_many
    monkeypatch.setattr(
        type(game),
        "validate_many",
        lambda self, seqs, config: [v if i % 2 else _invalid(v) for i, v in enumerate(validate(self, seqs, config))],
    )
    mixed = corpus_states(corpus, "val", cache=False)
    assert seen == [len(corpus.split("val")) // 2] and np.array_equal(mixed.keys, truth.keys) and mixed.states == truth.states


def _invalid(verdict):
    import dataclasses

    return dataclasses.replace(verdict, tiers={**verdict.tiers, "full": False})


def test_novelty_of_the_corpus_against_itself_is_zero_and_of_another_seed_is_not(corpora):
    mine, other = corpora
    known = corpus_state_keys(mine, "train")
    own = [mine.episode_tokens(int(r)) for r in mine.split("train")]
    result = novelty_of(own, known, SNAKE)
    assert set(result) == {"sequences", "states", "distinct", "novel_states", "novel_share", "novel_distinct_share"}
    assert result["sequences"] == len(own) and result["states"] == corpus_states(mine, "train").states
    assert result["novel_states"] == 0 and result["novel_share"] == 0.0 and result["novel_distinct_share"] == 0.0
    new = novelty_of([other.episode_tokens(int(r)) for r in other.split("val")], known, SNAKE)
    assert 0 < new["novel_states"] <= new["states"] and 0 < new["novel_share"] < 1 and 0 < new["novel_distinct_share"] < 1
    assert new["distinct"] <= new["states"]
    assert novelty_of([" ".join(own[0])], known, SNAKE)["novel_states"] == 0  # a sequence may be one string
    empty = novelty_of([], known, SNAKE)
    assert empty["states"] == 0 and empty["novel_share"] == 0.0


def test_a_whole_split_is_cached_beside_the_corpus(corpora, tmp_path, monkeypatch):
    corpus = _corpus(tmp_path, 5, episodes=40)
    first = corpus_states(corpus, "val")
    assert (corpus.path / "states-val.npz").exists()
    monkeypatch.setattr(novelty, "_states", lambda *a: pytest.fail("the cache was not read"))
    again = corpus_states(Corpus(corpus.path), "val")
    assert np.array_equal(again.keys, first.keys) and again.states == first.states
    monkeypatch.undo()

    np.savez(corpus.path / "states-val.npz", keys=first.keys[:3], states=3, episodes=first.episodes, fingerprint="another corpus")
    assert np.array_equal(corpus_states(corpus, "val").keys, first.keys)  # a foreign cache is recomputed (and replaced)
    assert np.array_equal(corpus_states(corpus, "val").keys, first.keys)

    np.savez(
        corpus.path / "states-val.npz", keys=first.keys[:3], states=3, episodes=first.episodes, fingerprint=novelty._fingerprint(corpus)
    )
    assert np.array_equal(corpus_states(corpus, "val").keys, first.keys)  # keys that miss a fresh look are recomputed

    (corpus.path / "states-val.npz").unlink()
    corpus_states(corpus, "val", max_episodes=3)
    assert not (corpus.path / "states-val.npz").exists()  # part of a split: not cached

    def read_only(*args, **kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(novelty, "atomic_write", read_only)
    assert np.array_equal(corpus_states(corpus, "val").keys, first.keys)


def test_battlesnake_corpora_go_through_the_trace(tmp_path):
    config = BattlesnakeConfig(7, 7, 2, max_ticks=40)
    corpus = _corpus(tmp_path, 1, config, episodes=16)
    known = corpus_state_keys(corpus, "train")
    rows = corpus.split("train")
    assert len(known) and novelty_of([corpus.episode_tokens(int(r)) for r in rows], known, config)["novel_states"] == 0
    assert corpus_states(corpus, "train").states == int(corpus.index["ticks"][rows].sum()) + len(rows)
