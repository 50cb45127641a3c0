"""Novelty: how many of the states that games reach never occur in a corpus, by Zobrist keys.

Every state a sequence reaches (its `trace`, as far as the rules can follow it) gets a 64-bit
key (`gamegrammar.core.zobrist`): hashed from scratch at the first keyframe, then updated tick by
tick with the features the game says the tick removed and added (`GameSpec.feature_changes`).
What makes two states the same is the game's `state_features` (the rules' state, not the tick).
A corpus's keys are the sorted unique keys of its episodes' states; a sampled, dreamed or played
game's novelty is the share of its states (and of its distinct states) whose keys the training
corpus never reaches.

A corpus is read through the game's batch path where it has one (`GameSpec.state_keys_batch`,
for the episodes the strict evaluator finds valid) and through `trace` otherwise; the keys of a
whole split are cached beside the corpus (`states-<split>.npz`, written atomically; skipped where
the corpus cannot be written), keyed by the manifest, so a second look costs a file read.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gamegrammar.core import zobrist
from gamegrammar.core.io import atomic_write
from gamegrammar.games import game_of

CACHE_VERSION = 1  # bump when a game's state identity changes: older caches are then recomputed
CHUNK = 8192  # corpus episodes read and hashed together


def state_table(config: Any) -> zobrist.ZobristTable:
    """The Zobrist table of a game config's feature space (cached: configs with one space share it)."""
    return zobrist.table(*game_of(config).feature_space(config))


def _follow(states: Sequence[Any], config: Any) -> list[int]:
    """Keys of consecutive states: the first from scratch, each next one by the tick's feature changes."""
    game, table = game_of(config), state_table(config)
    keys: list[int] = []
    if not states:
        return keys
    try:
        key = table.hash(game.state_features(states[0], config))
        keys.append(key)
        for before, after in itertools.pairwise(states):
            removed, added = game.feature_changes(before, after, config)
            key = table.update(key, removed, added)
            keys.append(key)
    except zobrist.OutsideSpace:  # a state off the board (a written keyframe, say): no key, and none after it
        pass
    return keys


def sequence_state_keys(tokens: Sequence[str], config: Any) -> np.ndarray:
    """The uint64 key of every state the sequence reaches (its trace, as far as it is valid), tick 0 first."""
    return np.array(_follow(game_of(config).trace(tokens, config), config), np.uint64)


@dataclass(frozen=True)
class CorpusStates:
    """The states of a corpus split: their sorted unique keys, how many states in all (repeats counted), from how many episodes."""

    keys: np.ndarray
    states: int
    episodes: int


def corpus_states(corpus: Any, split: str = "train", max_episodes: int | None = None, *, cache: bool = True) -> CorpusStates:
    """The states of a split's episodes (the first `max_episodes` of them); a whole split's are cached beside the corpus."""
    rows = corpus.split(split)
    whole = max_episodes is None or max_episodes >= len(rows)
    if not whole:
        rows = rows[: max(0, max_episodes)]
    path = Path(corpus.path) / f"states-{split}.npz"
    fingerprint = _fingerprint(corpus)
    if whole and cache:
        cached = _read_cache(path, fingerprint, corpus, rows)
        if cached is not None:
            return cached
    found = _states(corpus, rows)
    if whole and cache:
        with contextlib.suppress(OSError):  # a read-only corpus: no cache, the same answer
            atomic_write(
                path, lambda f: np.savez(f, keys=found.keys, states=found.states, episodes=found.episodes, fingerprint=fingerprint)
            )
    return found


def corpus_state_keys(corpus: Any, split: str = "train", max_episodes: int | None = None) -> np.ndarray:
    """Sorted unique uint64 keys of every state of the split's episodes (the first `max_episodes` of them)."""
    return corpus_states(corpus, split, max_episodes).keys


def novelty(sequences: Sequence[Sequence[str]], known: np.ndarray, config: Any) -> dict:
    """How new the states of `sequences` are against `known` (sorted unique keys, a corpus's, say).

    sequences, states (every state reached, repeats counted), distinct (unique keys), novel_states (states
    whose key is not known), novel_share (novel_states / states) and novel_distinct_share (the share of the
    distinct states that are not known); the shares are 0.0 when no state was reached.
    """
    known = np.asarray(known, np.uint64)
    if len(known) > 1 and not bool(np.all(known[1:] > known[:-1])):
        known = zobrist.unique_keys(known)
    keys = [sequence_state_keys(s.split() if isinstance(s, str) else s, config) for s in sequences]
    every = np.concatenate(keys) if keys else np.zeros(0, np.uint64)
    distinct = zobrist.unique_keys(every)
    novel = int((~zobrist.member(every, known)).sum())
    novel_distinct = int((~zobrist.member(distinct, known)).sum())
    return {
        "sequences": len(sequences),
        "states": len(every),
        "distinct": len(distinct),
        "novel_states": novel,
        "novel_share": novel / len(every) if len(every) else 0.0,
        "novel_distinct_share": novel_distinct / len(distinct) if len(distinct) else 0.0,
    }


# ---------------------------------------------------------------- reading a corpus


def _states(corpus: Any, rows: np.ndarray) -> CorpusStates:
    game, config = corpus.game_spec, corpus.game
    table = state_table(config)
    uniques, total = [], 0
    for lo in range(0, len(rows), CHUNK):
        episodes = [np.asarray(corpus.episode_ids(int(r))) for r in rows[lo : lo + CHUNK]]
        slow = range(len(episodes))
        if game.state_keys_batch is not None:
            valid = np.array([v.valid for v in game.validate_many(episodes, config)], bool)
            found = game.state_keys_batch([e for e, ok in zip(episodes, valid) if ok], config, corpus.codec, table)
            if found is not None:
                uniques.append(zobrist.unique_keys(found[0]))
                total += len(found[0])
                slow = np.flatnonzero(~valid)
        for i in slow:
            keys = np.array(_follow(game.trace(corpus.tokenizer.decode(episodes[i]), config), config), np.uint64)
            uniques.append(zobrist.unique_keys(keys))
            total += len(keys)
    keys = zobrist.unique_keys(np.concatenate(uniques)) if uniques else np.zeros(0, np.uint64)
    return CorpusStates(keys, total, len(rows))


def _fingerprint(corpus: Any) -> str:
    """What the cached keys depend on: the corpus (its manifest), the game's feature space, this module's version."""
    text = json.dumps([CACHE_VERSION, corpus.manifest, state_table(corpus.game).shape], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _read_cache(path: Path, fingerprint: str, corpus: Any, rows: np.ndarray) -> CorpusStates | None:
    """The cached states, if the cache is of this corpus and agrees with a fresh look at the split's first episode."""
    try:
        with np.load(path, allow_pickle=False) as f:
            if str(f["fingerprint"]) != fingerprint:
                return None
            found = CorpusStates(f["keys"].astype(np.uint64), int(f["states"]), int(f["episodes"]))
    except (OSError, KeyError, ValueError):
        return None
    if found.episodes != len(rows):
        return None
    if len(rows):  # a changed state identity (a game's features) shows in any episode's keys
        probe = np.array(_follow(corpus.game_spec.trace(corpus.episode_tokens(int(rows[0])), corpus.game), corpus.game), np.uint64)
        if not zobrist.member(probe, found.keys).all():
            return None
    return found
