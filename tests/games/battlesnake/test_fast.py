"""Battlesnake's fast evaluator gives exactly the reference `validate`'s verdicts: on episodes, prefixes and mutations."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.batch_agents import lineup_codes
from gamegrammar.games.battlesnake.fast import CUT, SLOW, VALID, fast_status, validate_fast
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec, as_pairs, cell_of_word, vocabulary
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig
from gamegrammar.games.battlesnake.validity import validate
from gamegrammar.games.conformance import MUTATIONS, mutate

SMALL = BattlesnakeConfig(7, 7, 2, max_ticks=60)
CROWD = BattlesnakeConfig(11, 11, 4, max_ticks=40)
FEAST = BattlesnakeConfig(7, 7, 3, minimum_food=3, food_spawn_chance=100, max_ticks=40)  # several spawns a tick
DESIGNS = {  # name: (config, codec): every design, with and without keyframes after the opening
    "plain": (SMALL, BattlesnakeCodec()),
    "tails, keyframes 5": (SMALL, BattlesnakeCodec(keyframe_interval=5, tails=True)),
    "plain, 4 snakes, keyframes 7": (CROWD, BattlesnakeCodec(keyframe_interval=7)),
    "tails, feast": (FEAST, BattlesnakeCodec(tails=True)),
    "smell, feast": (FEAST, BattlesnakeCodec(smell=True)),
    "smell and tails, keyframes 6": (SMALL, BattlesnakeCodec(keyframe_interval=6, tails=True, smell=True)),
    "sense, 4 snakes, keyframes 7": (CROWD, BattlesnakeCodec(keyframe_interval=7, sense=True)),
    "hits": (SMALL, BattlesnakeCodec(hits=True)),
    "sense and hits, 4 snakes, keyframes 7": (CROWD, BattlesnakeCodec(keyframe_interval=7, sense=True, hits=True)),
}


@cache
def episodes(name: str, n: int = 40) -> list[list[str]]:
    """n episodes of the default agent mix, written by the batch engine in the design `name` (of DESIGNS or CELLS)."""
    config, codec = {**DESIGNS, **CELLS}[name]
    eps = np.arange(n)
    res = GAME.play_batch(config, codec, 3, eps, lineup_codes(dict(GAME.default_agents), 3, eps, config.num_snakes))
    vocab = vocabulary(config)
    starts = np.cumsum(res.lengths) - res.lengths
    return [[vocab[i] for i in res.tokens[a : a + k].tolist()] for a, k in zip(starts, res.lengths)]


def as_ids(seq: list[str], config: BattlesnakeConfig) -> np.ndarray:
    ids = {t: i for i, t in enumerate(vocabulary(config))}
    return np.array([ids[t] for t in seq], np.int64)


def assert_same(seqs: list[list[str]], config: BattlesnakeConfig, codec: BattlesnakeCodec | None = None) -> list:
    """Fast and reference verdicts agree exactly, on tokens and on ids, declared (by `codec`) or not."""
    design = (
        {}
        if codec is None
        else {
            "tails": codec.tails,
            "smell": codec.smell,
            "sense": codec.sense,
            "hits": codec.hits,
            "keyframe_interval": codec.keyframe_interval,
        }
    )
    want = [validate(s, config, **design) for s in seqs]
    for form in (seqs, [as_ids(s, config) for s in seqs]):
        got = validate_fast(form, config, min_batch=1, **design)
        assert len(got) == len(want)
        for seq, g, w in zip(seqs, got, want):
            assert g == w, " ".join(seq)
    return want


@pytest.mark.parametrize("name", list(DESIGNS))
def test_corpus_episodes_take_the_fast_path_and_are_valid(name):
    config, codec = DESIGNS[name]
    seqs = episodes(name)
    assert (fast_status(seqs, config) == VALID).all()
    assert (fast_status(seqs, config, codec.tails, codec.keyframe_interval, codec.smell, codec.sense, codec.hits) == VALID).all()
    assert all(v.valid for v in assert_same(seqs, config, codec))
    assert GAME.validate_many([as_ids(s, config) for s in seqs], config, codec) == [validate(s, config) for s in seqs]


def test_the_feast_spawns_several_food_a_tick():
    assert any(" ".join(s).count("SPAWN") > len(s) // 60 for s in episodes("tails, feast"))


@pytest.mark.parametrize("name", list(DESIGNS))
def test_every_prefix_is_judged_like_the_reference(name):
    config, codec = DESIGNS[name]
    seq = min((s for s in episodes(name) if s.count("EAT") >= 2), key=len)
    prefixes = [seq[:k] for k in range(len(seq) + 1)]
    status = fast_status(prefixes, config)
    assert status[-1] == VALID
    assert (status[40:-1] == CUT).mean() > 0.6  # most cut-offs are answered without the reference
    assert_same(prefixes, config)
    assert_same(prefixes, config, codec)


@pytest.mark.parametrize("kind", MUTATIONS)
def test_every_kind_of_mutation(kind):
    """The conformance kit's corruptions (one or two each) of episodes in every design, declared and not."""
    for name, (config, codec) in DESIGNS.items():
        rng = np.random.default_rng([len(name), MUTATIONS.index(kind)])
        vocab = vocabulary(config)
        mutated = []
        for seq in episodes(name)[:12]:
            for count in (1, 2):
                out = seq
                for _ in range(count):
                    out = mutate(out, vocab, rng, kind)
                mutated.append(out)
        want = assert_same(mutated, config)
        assert_same(mutated, config, codec)
        if kind != "truncate":
            assert sum(not v.valid for v in want) > len(mutated) // 2


def test_values_swapped_for_others_of_their_kind():
    """Cells, lengths, health and inputs replaced by another of the same kind: the grammar holds, only the replay tells."""
    vocab = vocabulary(SMALL)
    kinds = [[t for t in vocab if t[:1] == p and t[1:].isdigit()] for p in ("X", "Y", "H")]
    kinds += [[t for t in vocab if t.startswith("LEN")], ["UP", "DOWN", "LEFT", "RIGHT"], [t for t in vocab if t.startswith("DIE_")]]
    kinds += [[t for t in vocab if t.startswith("SMELL_")], [t for t in vocab if t.startswith("SENSE_")], ["HIT", "MEET"]]
    kind_of = {t: k for k in kinds for t in k}
    rng = np.random.default_rng(5)
    for name in (
        "tails, keyframes 5",
        "smell and tails, keyframes 6",
        "sense, 4 snakes, keyframes 7",
        "sense and hits, 4 snakes, keyframes 7",
    ):
        config, codec = DESIGNS[name]
        mutated = []
        for seq in episodes(name)[:20]:
            places = [i for i, t in enumerate(seq) if t in kind_of]
            for i in rng.choice(places, 6, replace=False).tolist():
                mutated.append([*seq[:i], str(rng.choice(kind_of[seq[i]])), *seq[i + 1 :]])
        want = assert_same(mutated, config, codec)
        assert sum(not v.valid for v in want) > len(mutated) // 2


def test_spawns_the_map_cannot_make_go_to_the_reference():
    config, _ = DESIGNS["plain"]
    seq = next(s for s in episodes("plain") if "SPAWN" in s)
    at = seq.index("SPAWN")
    head = seq[at - 2 : at]  # a cell just written: a head, never open to food
    onto_a_head = [*seq[: at + 1], *head, *seq[at + 3 :]]
    twice = [*seq[: at + 3], *seq[at : at + 3], *seq[at + 3 :]]
    none = [*seq[:at], *seq[at + 3 :]]  # where it was owed, or by chance (then valid)
    assert (fast_status([onto_a_head, twice], config) == SLOW).all()
    want = assert_same([onto_a_head, twice, none], config)
    assert not want[0].valid and not want[1].valid


def test_the_spawn_chance_rule_is_the_configs():
    """At 100%, a tick above the minimum without a spawn: the official draw allows it (99%), the exact chance does not."""
    official = BattlesnakeConfig(7, 7, 2, food_spawn_chance=100, max_ticks=30)
    exact = BattlesnakeConfig(7, 7, 2, food_spawn_chance=100, max_ticks=30, exact_spawn_chance=True)
    eps = np.arange(8)
    res = GAME.play_batch(exact, BattlesnakeCodec(), 1, eps, lineup_codes(dict(GAME.default_agents), 1, eps, 2))
    vocab = vocabulary(exact)
    starts = np.cumsum(res.lengths) - res.lengths
    seqs = [[vocab[i] for i in res.tokens[a : a + k].tolist()] for a, k in zip(starts, res.lengths)]
    dropped = []
    for seq in seqs:
        at = seq.index("SPAWN")
        dropped.append([*seq[:at], *seq[at + 3 :]])
    assert (fast_status(seqs, exact) == VALID).all() and (fast_status(seqs, official) == VALID).all()
    assert [v.valid for v in assert_same(dropped, exact)] == [False] * len(dropped)
    by_official = assert_same(dropped, official)
    assert any(v.valid for v in by_official)  # some drop a chance spawn, which the official draw may skip


def test_tokens_outside_the_vocabulary_and_small_calls_go_to_the_reference():
    config, _ = DESIGNS["plain"]
    seqs = episodes("plain")[:3]
    foreign = [*seqs[0][:10], "X99", *seqs[0][11:]]
    ids = as_ids(seqs[1], config)
    ids[5] = len(vocabulary(config)) + 3
    status = fast_status([foreign, ids, seqs[2], []], config)
    assert status.tolist() == [SLOW, SLOW, VALID, SLOW]
    got = validate_fast([foreign, ids, seqs[2]], config)  # fewer than MIN_BATCH: the reference alone
    assert not got[0].valid and not got[1].valid and got[2].valid


CELLS = {  # the cells design (one word a cell): the spec respells it for the evaluators and maps positions back
    "cells": (SMALL, BattlesnakeCodec(cells=True)),
    "cells, tails and smell, keyframes 5, feast": (FEAST, BattlesnakeCodec(keyframe_interval=5, tails=True, smell=True, cells=True)),
    "cells and sense": (SMALL, BattlesnakeCodec(cells=True, sense=True)),
    "cells, sense and hits": (SMALL, BattlesnakeCodec(cells=True, sense=True, hits=True)),
}


def assert_spec_same(seqs: list[list[str]], config: BattlesnakeConfig, codec: BattlesnakeCodec | None) -> list:
    """The spec's many-at-once verdicts are its one-at-a-time ones, on tokens and on ids."""
    want = [GAME.validate(s, config, codec) for s in seqs]
    for form in (seqs, [as_ids(s, config) for s in seqs]):
        assert GAME.validate_many(form, config, codec) == want
    return want


@pytest.mark.parametrize("name", list(CELLS))
def test_the_cells_design_is_judged_through_its_pair_spelling(name):
    config, codec = CELLS[name]
    seqs = episodes(name, 40)  # at least validate_fast's MIN_BATCH: the batch replay answers, not its reference fallback
    assert all(v.valid for v in assert_spec_same(seqs, config, codec))
    respelled = [as_pairs(s)[0] for s in seqs]  # what the spec hands the batch replay: answered there, not by the reference
    assert (fast_status(respelled, config, codec.tails, codec.keyframe_interval, codec.smell, codec.sense, codec.hits) == VALID).all()
    assert all(v.valid for v in assert_spec_same(seqs, config, None))  # read off the sequence
    pair_codec = BattlesnakeCodec(codec.keyframe_interval, tails=codec.tails, smell=codec.smell, sense=codec.sense, hits=codec.hits)
    assert not any(v.valid for v in assert_spec_same(seqs, config, pair_codec))  # cell words are not the pair design's
    seq = min(seqs, key=len)
    assert_spec_same([seq[:k] for k in range(0, len(seq) + 1, 3)], config, codec)  # prefixes
    # a cell word moved: the verdict points at that word of the cells sequence
    at = next(i for i, t in enumerate(seq) if i > seq.index("TICK") and cell_of_word(t) is not None)  # a head
    x, y = cell_of_word(seq[at])  # type: ignore[misc]
    moved = [*seq[:at], f"X{(x + 2) % config.width}Y{y}", *seq[at + 1 :]]
    bare = [*seq[:at], f"X{x}", f"Y{y}", *seq[at + 1 :]]
    for bad in (moved, bare):
        verdict = assert_spec_same([bad], config, codec)[0]
        assert not verdict.valid and verdict.first_violation == at
    assert assert_spec_same([bare], config, codec)[0].violations[0] == "grammar"


@pytest.mark.parametrize("kind", MUTATIONS)
def test_every_kind_of_mutation_of_the_cells_design(kind):
    for name, (config, codec) in CELLS.items():
        rng = np.random.default_rng([len(name), MUTATIONS.index(kind), 7])
        vocab = vocabulary(config)
        mutated = [mutate(seq, vocab, rng, kind) for seq in episodes(name, 40)]
        want = assert_spec_same(mutated, config, codec)
        assert_spec_same(mutated, config, None)
        if kind != "truncate":
            assert sum(not v.valid for v in want) > len(mutated) // 2


def test_cell_words_swapped_for_others():
    config, codec = CELLS["cells, tails and smell, keyframes 5, feast"]
    words = [w for w in vocabulary(config) if cell_of_word(w) is not None]
    rng = np.random.default_rng(11)
    mutated = []
    for seq in episodes("cells, tails and smell, keyframes 5, feast", 40)[:10]:
        places = [i for i, t in enumerate(seq) if cell_of_word(t) is not None]
        for i in rng.choice(places, 4, replace=False).tolist():
            mutated.append([*seq[:i], str(rng.choice(words)), *seq[i + 1 :]])
    want = assert_spec_same(mutated, config, codec)
    assert sum(not v.valid for v in want) > len(mutated) // 2


def test_cell_ids_the_tables_cannot_respell_take_the_string_path():
    """An id outside the vocabulary, or a bare X word where the cells design is declared, in a batch large enough for
    the batch replay: the verdict is the one-at-a-time spec's on the token strings."""
    config, codec = CELLS["cells"]
    seqs = [as_ids(s, config) for s in episodes("cells", 40)]
    outside, bare = seqs[0].copy(), seqs[1].copy()
    outside[5] = len(vocabulary(config)) + 3
    at = next(i for i, t in enumerate(episodes("cells", 40)[1]) if i > 20 and cell_of_word(t) is not None)
    bare[at] = vocabulary(config).index("X3")
    got = GAME.validate_many([outside, bare, *seqs[2:]], config, codec)
    names = vocabulary(config)
    for seq, verdict in zip((outside, bare), got):
        assert verdict == GAME.validate([names[i] if i < len(names) else f"<id {i}>" for i in seq.tolist()], config, codec)
        assert not verdict.valid
    assert got[1].violations[0] == "grammar" and got[1].first_violation == at
    assert all(v.valid for v in got[2:])
