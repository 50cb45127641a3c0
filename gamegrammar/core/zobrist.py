"""Zobrist hashing: one 64-bit key per game state, updated tick by tick with a few XORs (the Go-engine technique).

A game describes a state as features `(slot, code)`: a slot is a board cell or one of the
game's extra slots (a direction, a snake's length or health), a code is what occupies it. The
key of a state is the XOR of its features' keys. XOR is its own inverse, so a tick that
changes a few features changes the key by XOR-ing out the removed ones and in the added ones:
following a game costs a few XORs per tick, whatever the board's size, and gives the same key
as hashing the state from scratch. (The key is a function of the feature multiset modulo 2: a
feature listed twice cancels, so a game lists each feature of a state once.)

The key of (slot, code) is `rng.draw(0, slot, code, Purpose.ZOBRIST)`, the project's
counter-based randomness: the same in every process and for every table shape, so keys
computed anywhere, at any time, compare. With 64-bit keys, two of ten million distinct states
share a key with probability about 3e-6 (the birthday bound n^2 / 2^65).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from gamegrammar.core import rng

Feature = tuple[int, int]  # (slot, code)


class OutsideSpace(ValueError):
    """A state or feature outside a game's feature space (a cell off the board, say): it has no key."""


class ZobristTable:
    """The keys of a feature space of `slots` x `codes`: `keys[slot, code]` (uint64)."""

    def __init__(self, slots: int, codes: int) -> None:
        if slots < 1 or codes < 1:
            raise ValueError(f"a Zobrist table needs at least one slot and one code, got {slots} x {codes}")
        self.slots, self.codes = slots, codes
        self.keys = rng.draw_np(0, np.arange(slots)[:, None], np.arange(codes)[None, :], rng.Purpose.ZOBRIST)
        self._rows = self.keys.tolist()  # Python ints: the scalar path XORs these without NumPy's per-call cost

    @property
    def shape(self) -> tuple[int, int]:
        return self.slots, self.codes

    def _key(self, slot: int, code: int) -> int:
        if not (0 <= slot < self.slots and 0 <= code < self.codes):
            raise OutsideSpace(f"feature ({slot}, {code}) is outside the table's {self.slots} slots x {self.codes} codes")
        return self._rows[slot][code]

    def hash(self, features: Iterable[Feature]) -> int:
        """The key of a state from scratch: the XOR of its features' keys (0 for no features)."""
        key = 0
        for slot, code in features:
            key ^= self._key(slot, code)
        return key

    def update(self, key: int, removed: Iterable[Feature], added: Iterable[Feature]) -> int:
        """The key after a change: `key` with the removed features XOR-ed out and the added ones XOR-ed in."""
        for slot, code in removed:
            key ^= self._key(slot, code)
        for slot, code in added:
            key ^= self._key(slot, code)
        return key

    def lookup(self, slots: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Vectorized keys of many features (uint64, the broadcast shape of `slots` and `codes`)."""
        slots, codes = np.asarray(slots), np.asarray(codes)
        if slots.size and (slots.min() < 0 or slots.max() >= self.slots or codes.min() < 0 or codes.max() >= self.codes):
            raise OutsideSpace(f"features outside the table's {self.slots} slots x {self.codes} codes")
        return self.keys[slots, codes]

    def hash_many(self, slots: np.ndarray, codes: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
        """Keys of `count` states from scratch at once: feature i (slots[i], codes[i]) belongs to state groups[i]."""
        out = np.zeros(count, np.uint64)
        np.bitwise_xor.at(out, np.asarray(groups, np.int64), self.lookup(slots, codes))
        return out


@lru_cache(maxsize=16)
def table(slots: int, codes: int) -> ZobristTable:
    """The (cached) table of a feature space; tables of any shape agree on the keys they share."""
    return ZobristTable(slots, codes)


def chain(initial: np.ndarray, deltas: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Keys of every state of many games at once from their first keys and per-tick changes.

    Game g has `counts[g]` ticks; `deltas` holds each tick's change (the XOR of the keys of the
    features it removed and added), game after game. The result holds, game after game, the first
    key and then the key after each tick: `counts[g] + 1` keys per game (prefix XORs, no loop).
    """
    initial = np.asarray(initial, np.uint64)
    counts = np.asarray(counts, np.int64)
    sizes = counts + 1
    if not len(sizes):
        return np.zeros(0, np.uint64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    values = np.zeros(int(sizes.sum()), np.uint64)
    changes = np.ones(len(values), bool)
    changes[starts] = False
    values[changes] = np.asarray(deltas, np.uint64)
    values[starts] = initial
    prefix = np.bitwise_xor.accumulate(values)
    before = np.zeros(len(starts), np.uint64)  # the prefix just before each game: XOR-ed out to restart there
    before[1:] = prefix[starts[1:] - 1]
    return prefix ^ np.repeat(before, sizes)


def unique_keys(keys: np.ndarray) -> np.ndarray:
    """Sorted unique keys. By sorting: NumPy 2.4's `np.unique` (hash-based) takes 40 times as long on uint64 keys."""
    keys = np.sort(np.asarray(keys, np.uint64))
    if len(keys) < 2:
        return keys
    keep = np.ones(len(keys), bool)
    keep[1:] = keys[1:] != keys[:-1]
    return keys[keep]


def member(keys: np.ndarray, known: np.ndarray) -> np.ndarray:
    """keys[i] in known, for sorted unique `known` (a binary search each; `np.isin` sorts through `np.unique`)."""
    keys = np.asarray(keys, np.uint64)
    if not len(known):
        return np.zeros(len(keys), bool)
    at = np.minimum(np.searchsorted(known, keys), len(known) - 1)
    return known[at] == keys
