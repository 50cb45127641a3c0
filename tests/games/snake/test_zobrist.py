"""Snake's Zobrist features: incremental keys equal keys from scratch; distinct states get distinct keys; the batch path agrees."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

from gamegrammar.core.zobrist import OutsideSpace, table
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.grammar import CodecConfig, SnakeCodec
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState
from gamegrammar.games.snake.zobrist import feature_changes, feature_space, state_features, state_keys_batch


def keys_from_scratch(states: list[SnakeState], config: SnakeConfig) -> list[int]:
    t = table(*feature_space(config))
    return [t.hash(state_features(s, config)) for s in states]


def keys_incremental(states: list[SnakeState], config: SnakeConfig) -> list[int]:
    t = table(*feature_space(config))
    keys = [t.hash(state_features(states[0], config))]
    for before, after in itertools.pairwise(states):
        keys.append(t.update(keys[-1], *feature_changes(before, after, config)))
    return keys


@pytest.mark.parametrize("config", GAME.test_configs(), ids=str)
def test_incremental_keys_equal_keys_from_scratch_at_every_tick(config):
    ticks = 0
    for episode in range(60):
        agent = GAME.agent_names[episode % len(GAME.agent_names)]
        record = GAME.play_episode(config, CodecConfig(), agent, seed=5, episode=episode)
        assert keys_incremental(record.states, config) == keys_from_scratch(record.states, config)
        ticks += len(record.states) - 1
    assert ticks > 1000  # eats, deaths against walls and bodies, timeouts: every kind of tick


def _bodies(config: SnakeConfig, length: int) -> list[tuple[tuple[int, int], ...]]:
    """Every self-avoiding body of `length` cells on the board, head first."""
    out = [((x, y),) for y in range(config.height) for x in range(config.width)]
    for _ in range(length - 1):
        longer = []
        for body in out:
            x, y = body[-1]
            for d in Direction:
                cell = (x + d.delta[0], y + d.delta[1])
                if config.in_bounds(cell) and cell not in body:
                    longer.append((*body, cell))
        out = longer
    return out


def test_distinct_states_get_distinct_keys_on_a_small_board():
    config = SnakeConfig(4, 4, 40)
    t = table(*feature_space(config))
    cells = [(x, y) for y in range(4) for x in range(4)]
    keys, states = set(), 0
    for length in range(1, 5):
        for body in _bodies(config, length):
            for food in [None, *(c for c in cells if c not in body)]:
                for direction in Direction:
                    keys.add(t.hash(state_features(SnakeState(body, direction, food), config)))
                    states += 1
    assert states > 20_000 and len(keys) == states  # the order of the body is in the key, not just its cells


def test_the_clock_and_the_score_are_not_the_state():
    config = SnakeConfig(6, 6, 50)
    a = SnakeState(((2, 2), (2, 3)), Direction.U, (4, 4), score=1, tick=7)
    b = dataclasses.replace(a, score=5, tick=30)
    assert keys_from_scratch([a], config) == keys_from_scratch([b], config)
    reversed_body = SnakeState(((2, 3), (2, 2)), Direction.U, (4, 4))
    assert keys_from_scratch([a], config) != keys_from_scratch([reversed_body], config)


def test_a_state_off_the_board_has_no_key():
    config = SnakeConfig(5, 5, 20)
    with pytest.raises(OutsideSpace):
        state_features(SnakeState(((0, 0), (-1, 0)), Direction.R, (3, 3)), config)


def _episodes(config: SnakeConfig, codec: CodecConfig, count: int, seed: int = 3) -> list[np.ndarray]:
    episodes = np.arange(count)
    result = GAME.play_batch(config, codec, seed, episodes, GAME.episode_agent_codes(GAME.default_agents, seed, episodes, config))
    return np.split(result.tokens, np.cumsum(result.lengths)[:-1])


def _generic_keys(ids: list[np.ndarray], config: SnakeConfig) -> list[list[int]]:
    vocab = GAME.vocabulary(config)
    return [keys_incremental(GAME.trace([vocab[i] for i in e.tolist()], config), config) for e in ids]


@pytest.mark.parametrize("tail_events", [False, True], ids=["v1", "tail-events"])
@pytest.mark.parametrize("config", GAME.test_configs(), ids=str)
def test_the_batch_path_gives_the_trace_keys(config, tail_events):
    codec = SnakeCodec(keyframe_interval=7, tail_events=tail_events)
    ids = _episodes(config, codec, 150)
    assert any(GAME.vocabulary(config).index("FREE") in e for e in ids) == tail_events
    keys, counts = state_keys_batch(ids, config, codec, table(*feature_space(config)))
    assert [k.tolist() for k in np.split(keys, np.cumsum(counts)[:-1])] == _generic_keys(ids, config)


def test_the_batch_path_reads_a_first_keyframe_with_a_long_body():
    """Episodes cut at a later keyframe start with a snake of several cells."""
    config = SnakeConfig(5, 5, 200)
    codec = CodecConfig(keyframe_interval=3)
    vocab = GAME.vocabulary(config)
    snap, bos = vocab.index("SNAP"), vocab.index("BOS")
    cut = []
    for e in _episodes(config, codec, 200, seed=8):
        starts = np.flatnonzero(e == snap)
        longest = max(starts[1:], key=lambda s: int(e[s + 5]), default=None)  # the keyframe with the longest body
        if longest is not None:
            cut.append(np.concatenate([[bos], e[longest:]]))
    assert max(int(vocab[e[6]][3:]) for e in cut) >= 4
    keys, counts = state_keys_batch(cut, config, codec, table(*feature_space(config)))
    assert [k.tolist() for k in np.split(keys, np.cumsum(counts)[:-1])] == _generic_keys(cut, config)


def test_the_batch_path_declines_a_layout_it_does_not_read():
    config = SnakeConfig(5, 5, 30)
    t = table(*feature_space(config))
    assert state_keys_batch([], config, CodecConfig(), t)[0].tolist() == []
    assert state_keys_batch([], config, CodecConfig(min_salience=1), t) is None
    Optioned = dataclasses.make_dataclass(
        "Optioned", [("extra", bool, dataclasses.field(default=False))], bases=(CodecConfig,), frozen=True
    )
    assert state_keys_batch([], config, Optioned(extra=True), t) is None
    assert state_keys_batch([], config, Optioned(), t) is not None


def test_the_spec_exposes_the_features():
    config = SnakeConfig(6, 6, 50)
    state = SnakeState(((2, 2),), Direction.L, (1, 1))
    assert GAME.feature_space(config) == feature_space(config)
    assert GAME.state_features(state, config) == state_features(state, config)
    assert GAME.state_keys_batch is not None


@pytest.mark.parametrize("config", GAME.test_configs(), ids=str)
def test_the_batch_path_declines_head_first_and_the_trace_keys_are_grammar_v1s(config):
    """The batch path reads grammar v1's tick layout (and FREE cells), not the head-first one: it returns None, so novelty
    falls back to the trace, whose keys are those of the same games written in grammar v1."""
    t = table(*feature_space(config))
    codec = SnakeCodec(keyframe_interval=7, head_first=True)
    ids = _episodes(config, codec, 150)
    v1_ids = _episodes(config, SnakeCodec(keyframe_interval=7), 150)  # the same games (seed, episodes, agents)
    assert [len(a) for a in ids] != [len(b) for b in v1_ids]  # written differently (no MOVE word on an eat, a self-death's cell)
    assert state_keys_batch(ids, config, codec, t) is None and state_keys_batch([], config, codec, t) is None
    keys, counts = state_keys_batch(v1_ids, config, SnakeCodec(keyframe_interval=7), t)
    assert _generic_keys(ids, config) == [k.tolist() for k in np.split(keys, np.cumsum(counts)[:-1])]


def test_novelty_reads_a_head_first_corpus_like_its_v1_twin(head_first_corpus, tiny_corpus):
    from gamegrammar.data.corpus import Corpus
    from gamegrammar.data.novelty import corpus_states, sequence_state_keys

    corpus, v1 = Corpus(head_first_corpus), Corpus(tiny_corpus)  # the same games in the two designs
    assert GAME.state_keys_batch([], corpus.game, corpus.codec, table(*feature_space(corpus.game))) is None  # novelty falls back
    a, b = corpus_states(corpus, "train", 40, cache=False), corpus_states(v1, "train", 40, cache=False)
    assert np.array_equal(a.keys, b.keys) and (a.states, a.episodes) == (b.states, b.episodes) and a.states > 40
    row = int(corpus.split("train")[0])
    assert np.array_equal(
        sequence_state_keys(corpus.episode_tokens(row), corpus.game), sequence_state_keys(v1.episode_tokens(row), v1.game)
    )
