"""Battlesnake's Zobrist features: incremental keys equal keys from scratch; distinct states get distinct keys."""

from __future__ import annotations

import itertools

import pytest

from gamegrammar.core.zobrist import OutsideSpace, table
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Snake
from gamegrammar.games.battlesnake.zobrist import feature_changes, feature_space, state_features


def keys_from_scratch(states: list[BattlesnakeState], config: BattlesnakeConfig) -> list[int]:
    t = table(*feature_space(config))
    return [t.hash(state_features(s, config)) for s in states]


def keys_incremental(states: list[BattlesnakeState], config: BattlesnakeConfig) -> list[int]:
    t = table(*feature_space(config))
    keys = [t.hash(state_features(states[0], config))]
    for before, after in itertools.pairwise(states):
        keys.append(t.update(keys[-1], *feature_changes(before, after, config)))
    return keys


def test_incremental_keys_equal_keys_from_scratch_at_every_turn():
    turns = eliminations = eats = 0
    for config in GAME.test_configs():  # two snakes, one snake, four snakes on 11x11
        for episode in range(12):
            agents = ",".join(GAME.episode_agents(GAME.default_agents, 4, episode, config))
            record = GAME.play_episode(config, BattlesnakeCodec(), agents, seed=4, episode=episode)
            assert keys_incremental(record.states, config) == keys_from_scratch(record.states, config)
            turns += len(record.states) - 1
            for before, after in itertools.pairwise(record.states):
                eliminations += len(before.alive) - len(after.alive)
                eats += sum(now.length > was.length for was, now in zip(before.snakes, after.snakes) if now.alive)
    assert turns > 1000 and eliminations > 20 and eats > 20


def _bodies(config: BattlesnakeConfig) -> list[tuple[tuple[int, int], ...]]:
    """Bodies of one or two distinct cells, with zero to two more segments stacked on the tail."""
    cells = [(x, y) for y in range(config.height) for x in range(config.width)]
    paths = [(c,) for c in cells] + [(a, b) for a in cells for b in cells if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1]
    return [(*p, *(p[-1],) * extra) for p in paths for extra in range(3)]


def test_distinct_states_get_distinct_keys_on_a_small_board():
    config = BattlesnakeConfig(3, 3, 2, max_ticks=20)
    t = table(*feature_space(config))
    dead = Snake((), 0, "wall-collision")
    snakes = [dead] + [Snake(body, health) for body in _bodies(config) for health in (100, 7)]
    keys, states = set(), 0
    for first, second in itertools.product(snakes, snakes):
        if set(first.body) & set(second.body):
            continue
        for food in [(), ((0, 0),), ((2, 1),)]:
            if set(food) & (set(first.body) | set(second.body)):
                continue
            keys.add(t.hash(state_features(BattlesnakeState((first, second), food), config)))
            states += 1
    assert states > 20_000 and len(keys) == states  # order, stacking, health, which snake, which food: all in the key


def test_eliminated_snakes_and_the_clock_are_not_the_state():
    config = BattlesnakeConfig(7, 7, 2, max_ticks=60)
    alive = Snake(((1, 1), (1, 2), (1, 2)), 90)
    a = BattlesnakeState((alive, Snake(((5, 5), (5, 4)), 3, "head-collision")), ((3, 3),), tick=4)
    b = BattlesnakeState((alive, Snake(((2, 5), (2, 4)), 60, "out-of-health")), ((3, 3),), tick=40)
    assert keys_from_scratch([a], config) == keys_from_scratch([b], config)
    swapped = BattlesnakeState((a.snakes[1], alive), a.food)
    assert keys_from_scratch([a], config) != keys_from_scratch([swapped], config)


def test_states_outside_the_space_have_no_key():
    config = BattlesnakeConfig(7, 7, 2, max_ticks=60)
    for snakes in [
        (Snake(((0, 0), (-1, 0))),),  # off the board
        (Snake(((0, 0),), 150),),  # health above 100
        (Snake(((0, 0),)), Snake(((3, 3),)), Snake(((5, 5),))),  # a third snake in a game of two
    ]:
        with pytest.raises(OutsideSpace):
            table(*feature_space(config)).hash(state_features(BattlesnakeState(snakes, ()), config))


def test_the_spec_exposes_the_features():
    config = BattlesnakeConfig(7, 7, 2, max_ticks=60)
    state = BattlesnakeState((Snake(((1, 1),) * 3), Snake(((5, 5),) * 3)), ((3, 3),))
    assert GAME.feature_space(config) == feature_space(config)
    assert GAME.state_features(state, config) == state_features(state, config)
    assert GAME.state_keys_batch is None  # novelty follows its episodes through `trace`
