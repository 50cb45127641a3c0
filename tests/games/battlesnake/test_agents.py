"""Battlesnake's agents: what each strategy chooses, determinism from (seed, episode, tick, snake), per-snake lineups."""

from __future__ import annotations

from collections import Counter

import pytest

from gamegrammar.core import rng
from gamegrammar.core.agents import Agent, agent_for_episode, slips
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.agents import (
    AGENTS,
    DIES,
    RISKY,
    SURE,
    cell_mask,
    flood_area,
    lineup,
    make_agent,
    non_reversing,
    parse_lineup,
    safety,
)
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Draw, Move, Snake, purpose, snake_id, sorted_food

CFG = BattlesnakeConfig(11, 11, 2)


def board(*bodies, health=(), food=(), tick=0):
    snakes = tuple(Snake(tuple(b), health[k] if k < len(health) else 100, "", snake_id(k)) for k, b in enumerate(bodies))
    return BattlesnakeState(snakes, sorted_food(food), tick)


def choices(name, state, snake=0, config=CFG, episodes=40):
    agent = make_agent(name, config, snake)
    out = Counter()
    for e in range(episodes):
        agent.reset(0, e)
        out[agent.act(state)] += 1
    return out


def test_every_agent_is_a_core_agent_with_its_name():
    assert set(AGENTS) == {"random", "safe", "greedy", "space", "careless"} == set(GAME.agent_names)
    for name in AGENTS:
        agent = make_agent(name, CFG, 1)
        assert isinstance(agent, Agent) and agent.name == name and agent.snake == 1
    with pytest.raises(GameGrammarError, match="unknown agent 'smart'"):
        make_agent("smart", CFG)


def test_random_picks_uniformly_among_the_moves_that_do_not_reverse():
    state = board([(5, 5), (5, 4), (5, 3)], [(9, 9)] * 3)
    assert non_reversing(state, 0) == [Move.U, Move.L, Move.R]
    assert non_reversing(state, 1) == list(Move)  # no distinct neck at the start
    counts = choices("random", state, episodes=600)
    assert set(counts) == {Move.U, Move.L, Move.R}
    assert all(150 <= c <= 250 for c in counts.values())


def test_safety_in_detail():
    me = [(1, 5), (1, 4), (1, 3)]
    rival = [(2, 6), (3, 6), (4, 6)]  # head (2, 6) can move to (1, 6) and (2, 5)
    rated = safety(board(me, rival), 0, CFG)
    assert rated == {Move.U: RISKY, Move.D: DIES, Move.L: SURE, Move.R: RISKY}
    shorter = [(2, 6), (3, 6)]  # a shorter rival is no risk
    assert safety(board(me, shorter), 0, CFG) == {Move.U: SURE, Move.D: DIES, Move.L: SURE, Move.R: SURE}
    wall = [(0, 5), (1, 5), (2, 5)]
    assert safety(board(wall), 0, BattlesnakeConfig(11, 11, 1))[Move.L] == DIES
    hungry = board([(5, 5), (5, 4), (5, 3)], health=[1], food=[(6, 5)])
    assert safety(hungry, 0, BattlesnakeConfig(11, 11, 1)) == {Move.U: DIES, Move.D: DIES, Move.L: DIES, Move.R: SURE}
    tail = board([(5, 5), (5, 4), (6, 4), (6, 5)])  # its own tail (6, 5) moves on: safe to follow
    assert safety(tail, 0, BattlesnakeConfig(11, 11, 1))[Move.R] == SURE


def test_safe_takes_sure_moves_then_risky_ones():
    me = [(1, 5), (1, 4), (1, 3)]
    rival = [(2, 6), (3, 6), (4, 6)]
    assert set(choices("safe", board(me, rival))) == {Move.L}
    cornered = board([(0, 10), (0, 9), (0, 8)], [(2, 10), (3, 10), (4, 10)])  # only right, next to the rival's reach
    assert set(choices("safe", cornered)) == {Move.R}


def test_greedy_heads_for_the_nearest_food_among_safe_moves():
    state = board([(5, 5), (5, 4), (5, 3)], [(9, 9)] * 3, food=[(8, 5), (0, 0)])
    assert set(choices("greedy", state)) == {Move.R}
    blocked = board([(5, 5), (5, 4), (5, 3)], [(6, 6), (6, 5), (6, 4), (6, 3)], food=[(8, 5)])  # right is the rival's body
    assert Move.R not in choices("greedy", blocked)


def test_space_prefers_the_larger_region_and_food_when_hungry():
    # left and down lead into a 3-cell corner pocket closed by the rival's body; right leads to the open board
    me = [(1, 1), (1, 2), (0, 2), (0, 3)]
    rival = [(3, 3), (3, 2), (3, 1), (3, 0), (2, 0), (1, 0)]
    state = board(me, rival)
    assert safety(state, 0, CFG) == {Move.U: DIES, Move.D: SURE, Move.L: SURE, Move.R: SURE}
    blocked = cell_mask((c for s in state.snakes for c in s.body[:-1]), CFG)
    assert flood_area((0, 1), blocked, CFG) == flood_area((1, 0), blocked, CFG) == 3
    assert set(choices("space", state)) == {Move.R}
    assert len(choices("safe", state)) == 3
    hungry = board([(5, 5), (5, 4), (5, 3)], health=[10], food=[(5, 8)])
    assert set(choices("space", hungry, config=BattlesnakeConfig(11, 11, 1))) == {Move.U}


def test_flood_area_counts_reachable_open_cells():
    config = BattlesnakeConfig(5, 5, 1)
    assert flood_area((0, 0), 0, config) == 25
    column = cell_mask([(2, y) for y in range(5)], config)
    assert flood_area((0, 0), column, config) == 10 and flood_area((4, 4), column, config) == 10
    assert flood_area((2, 2), column, config) == 0 and flood_area((5, 0), 0, config) == 0


def test_careless_plays_space_but_slips_to_any_move_one_tick_in_ten():
    state = board([(5, 5), (5, 4), (5, 3)], [(1, 9), (1, 8), (1, 7)], tick=7)
    space, careless = make_agent("space", CFG, 0), make_agent("careless", CFG, 0)
    counts, slipped = Counter(), 0
    for e in range(800):
        space.reset(0, e)
        careless.reset(0, e)
        slip = slips(rng.draw(0, e, state.tick, purpose(Draw.AGENT_MOVE, 0)))
        move = careless.act(state)
        if slip:
            counts[move] += 1
        else:
            assert move == space.act(state)
        slipped += slip
    assert 0.07 < slipped / 800 < 0.13
    assert set(counts) == set(Move)  # the reversal into its neck (DOWN) among them, which no other agent plays


@pytest.mark.parametrize("name", ["random", "safe", "greedy", "space", "careless"])
def test_agents_are_deterministic_per_seed_episode_tick_and_snake(name):
    config = BattlesnakeConfig(7, 7, 2, max_ticks=40)
    first = GAME.play_episode(config, CodecConfig(), name, 3, 5).tokens
    assert first == GAME.play_episode(config, CodecConfig(), name, 3, 5).tokens
    others = {tuple(GAME.play_episode(config, CodecConfig(), name, s, 5).tokens) for s in range(4, 8)}
    assert tuple(first) not in others and len(others) > 1


def test_snakes_draw_independently():
    state = board([(5, 5)] * 3, [(5, 5)] * 3)  # the same position for both: their draws still differ
    a, b = make_agent("random", CFG, 0), make_agent("random", CFG, 1)
    picks = []
    for e in range(50):
        a.reset(1, e)
        b.reset(1, e)
        picks.append(a.act(state) == b.act(state))
    assert 5 < sum(picks) < 25


def test_a_lineup_gives_each_snake_its_agent():
    config = BattlesnakeConfig(7, 7, 4, max_ticks=30)
    assert parse_lineup("safe", config) == ["safe"] * 4
    assert parse_lineup("safe, greedy,space,random", config) == ["safe", "greedy", "space", "random"]
    with pytest.raises(GameGrammarError, match="one agent per snake: 4 expected, got 2"):
        parse_lineup("safe,greedy", config)
    with pytest.raises(GameGrammarError, match="unknown agent 'clever'"):
        parse_lineup("safe,greedy,space,clever", config)
    mixed = GAME.play_episode(config, CodecConfig(), "random,space,space,space", 0, 0)
    assert mixed.tokens != GAME.play_episode(config, CodecConfig(), "space", 0, 0).tokens


def test_corpus_lineups_agree_with_the_cores_episode_draw_for_snake_0():
    mix = {"random": 0.1, "safe": 0.3, "greedy": 0.3, "space": 0.3}
    counts = Counter()
    for episode in range(400):
        names = lineup(mix, 2, episode, 4)
        assert names[0] == agent_for_episode(mix, 2, episode)
        assert names == GAME.episode_agents(mix, 2, episode, BattlesnakeConfig())
        counts.update(names)
    assert 0.05 < counts["random"] / 1600 < 0.15 and 0.25 < counts["space"] / 1600 < 0.35
    assert len({lineup(mix, 2, e, 4) for e in range(50)}) > 30  # snakes differ within and across episodes
