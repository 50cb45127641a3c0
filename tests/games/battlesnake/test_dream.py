"""Battlesnake's part of a dream: every snake's input as tokens, and one written tick read from the state before it."""

from __future__ import annotations

import pytest

from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.dream import PAST_LIMIT

GAME = load_game("battlesnake")


def ticks_of(tokens: list[str]) -> list[list[str]]:
    """The whole ticks of an episode: from each TICK to the next (the last one with its EOS)."""
    starts = [i for i, t in enumerate(tokens) if t == "TICK"]
    return [tokens[a:b] for a, b in zip(starts, [*starts[1:], len(tokens)])]


CODECS = [
    GAME.codec_type(),
    GAME.codec_type(keyframe_interval=3),
    GAME.codec_type(tails=True),
    GAME.codec_type(smell=True),
    GAME.codec_type(keyframe_interval=3, tails=True, cells=True),
    GAME.codec_type(sense=True, hits=True),
]


@pytest.mark.parametrize("config", GAME.test_configs()[:2])
@pytest.mark.parametrize("codec", CODECS, ids=["plain", "keyframes", "tails", "smell", "cells", "sense and hits"])
def test_reading_tick_by_tick_is_the_trace_and_breaks_nothing(config, codec):
    for agent in ("random", "greedy", "space"):
        for episode in range(3):
            record = GAME.play_episode(config, codec, agent, 5, episode)
            states = [GAME.trace(record.tokens, config)[0]]
            for tick in ticks_of(record.tokens):
                reading = GAME.read_tick(states[-1], tick, config, codec)
                assert reading.broken == ()
                states.append(reading.state)
            assert states == GAME.trace(record.tokens, config) == record.states  # eliminated snakes keep their bodies


def test_every_live_snakes_input_in_index_order_as_the_engine_plays_it():
    config = GAME.make_config(width=7, height=7, num_snakes=4, max_ticks=40)
    lineup = "safe,greedy,space,random"
    record = GAME.play_episode(config, GAME.codec_type(), lineup, 2, 1)
    policy = GAME.input_policy(lineup, config)
    policy.reset(2, 1)
    for state, tick in zip(record.states, ticks_of(record.tokens)):
        written = [
            tick[i + 1] for i, t in enumerate(tick[:-1]) if t in {f"S{k}" for k in state.alive} and tick[i + 1] in GAME.input_tokens(config)
        ]
        assert policy.inputs(state) == written


def test_a_broken_tick_names_the_rules():
    config = GAME.make_config(width=7, height=7, num_snakes=2, max_ticks=30)
    codec = GAME.codec_type()
    record = GAME.play_episode(config, codec, "greedy", 0, 0)
    state, tick = record.states[0], ticks_of(record.tokens)[0]
    head = tick.index("S0") + 2  # TICK S0 <input> Xx Yy
    wrong = [*tick[:head], f"X{(int(tick[head][1:]) + 1) % 7}", *tick[head + 1 :]]
    reading = GAME.read_tick(state, wrong, config, codec)
    assert "move_follows_input" in reading.broken and reading.state is None
    assert GAME.read_tick(state, [*tick[:3], "EOS"], config, codec).broken == ("grammar",)
    late = GAME.make_config(width=7, height=7, num_snakes=2, max_ticks=1)
    missing = GAME.read_tick(state, [t for t in tick if t not in ("TIMEOUT", "EOS")], late, codec)
    assert missing.broken == ("timeout_at_limit",) and missing.state is not None
    past = GAME.read_tick(missing.state, ticks_of(record.tokens)[1], late, codec)
    assert past.state is None and PAST_LIMIT in past.broken
