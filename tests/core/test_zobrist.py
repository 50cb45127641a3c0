"""Zobrist keys: counter-based, XOR-additive, and the batch helpers agree with the one-by-one definition."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core import rng
from gamegrammar.core.zobrist import OutsideSpace, ZobristTable, chain, member, table, unique_keys


def test_keys_are_the_counter_based_draws_whatever_the_table_shape():
    small, big = ZobristTable(3, 4), ZobristTable(7, 9)
    for slot, code in [(0, 0), (2, 3), (1, 2)]:
        assert small.keys[slot, code] == big.keys[slot, code] == rng.draw(0, slot, code, rng.Purpose.ZOBRIST)
    assert small.keys.dtype == np.uint64 and len(np.unique(big.keys)) == big.keys.size
    assert table(3, 4) is table(3, 4)


def test_hash_is_an_order_free_xor_and_update_moves_between_feature_sets():
    t = ZobristTable(20, 5)
    random = np.random.default_rng(0)
    for _ in range(200):
        a = {(int(s), int(c)) for s, c in random.integers((0, 0), (20, 5), size=(random.integers(0, 12), 2))}
        b = {(int(s), int(c)) for s, c in random.integers((0, 0), (20, 5), size=(random.integers(0, 12), 2))}
        assert t.hash(sorted(a)) == t.hash(sorted(a, reverse=True))
        assert t.update(t.hash(a), a - b, b - a) == t.hash(b)
        assert t.update(t.hash(a), a, b) == t.hash(b)  # remove everything, add everything: the same key
    assert t.hash([]) == 0
    assert t.hash([(1, 1), (1, 1)]) == 0  # a feature listed twice cancels: games list each once


def test_features_outside_the_space_have_no_key():
    t = ZobristTable(4, 3)
    for bad in [(4, 0), (0, 3), (-1, 0), (0, -1)]:
        with pytest.raises(OutsideSpace):
            t.hash([bad])
        with pytest.raises(OutsideSpace):
            t.update(0, [], [bad])
        with pytest.raises(OutsideSpace):
            t.lookup(np.array([bad[0]]), np.array([bad[1]]))


def test_hash_many_is_hash_of_each_group():
    t = ZobristTable(10, 4)
    random = np.random.default_rng(1)
    slots, codes = random.integers(0, 10, 50), random.integers(0, 4, 50)
    groups = random.integers(0, 6, 50)
    many = t.hash_many(slots, codes, groups, 7)
    for g in range(7):
        assert many[g] == t.hash(zip(slots[groups == g].tolist(), codes[groups == g].tolist()))


def test_chain_is_the_running_xor_of_each_game():
    random = np.random.default_rng(2)
    counts = np.array([3, 0, 5, 1, 0])
    initial = random.integers(0, 2**63, len(counts)).astype(np.uint64)
    deltas = random.integers(0, 2**63, int(counts.sum())).astype(np.uint64)
    expected, at = [], 0
    for first, n in zip(initial.tolist(), counts.tolist()):
        key = first
        expected.append(key)
        for d in deltas[at : at + n].tolist():
            key ^= d
            expected.append(key)
        at += n
    assert chain(initial, deltas, counts).tolist() == expected
    assert chain(np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0, np.int64)).tolist() == []


def test_unique_keys_and_member():
    random = np.random.default_rng(3)
    keys = random.integers(0, 2**63, 1000).astype(np.uint64)
    keys = np.concatenate([keys, keys[:300], [np.uint64(2**64 - 1)]])
    known = unique_keys(keys)
    assert np.array_equal(known, np.unique(keys))
    assert member(keys, known).all()
    others = random.integers(0, 2**63, 500).astype(np.uint64)
    assert np.array_equal(member(others, known), np.isin(others, keys))
    assert not member(others, unique_keys(np.zeros(0, np.uint64))).any()
