"""Battlesnake's rules, one test (or more) per fact of ../shared/BATTLESNAKE.md, the subtle ones included."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Salience
from gamegrammar.games.battlesnake.rules import (
    BODY_COLLISION,
    END_REASONS,
    EVENTS,
    HEAD_COLLISION,
    MAX_HEALTH,
    OUT_OF_HEALTH,
    SELF_COLLISION,
    WALL_COLLISION,
    BattlesnakeConfig,
    BattlesnakeGame,
    BattlesnakeState,
    Move,
    Snake,
    advance,
    bad_start_head,
    decided,
    default_move,
    diagonal_food_cells,
    draw_spawns,
    end_reason,
    fixed_start_groups,
    initial_state,
    snake_id,
    sorted_food,
    spawn_cells,
    spawn_hit,
    spawn_range,
    start_food_outcomes,
    start_food_possible,
    start_head_options,
)

CFG = BattlesnakeConfig(11, 11, 2)


def snake(*cells, health=MAX_HEALTH):
    return Snake(tuple(cells), health)


def board(*snakes, food=(), tick=0):
    return BattlesnakeState(tuple(Snake(s.body, s.health, s.cause, snake_id(k)) for k, s in enumerate(snakes)), sorted_food(food), tick)


def turn(state, *moves, config=CFG):
    return advance(state, list(moves), config)


# ---------------------------------------------------------------- board and moves


def test_the_origin_is_bottom_left_and_up_is_y_plus_one():
    start = board(snake((5, 5), (5, 5), (5, 5)))
    heads = {m: turn(start, m)[0].snakes[0].head for m in Move}
    assert heads == {Move.U: (5, 6), Move.D: (5, 4), Move.L: (4, 5), Move.R: (6, 5)}
    assert [m.word for m in Move] == ["up", "down", "left", "right"]


def test_a_move_adds_a_head_drops_the_last_segment_and_costs_one_health():
    after, facts = turn(board(snake((5, 5), (5, 4), (5, 3), health=50)), Move.U)
    assert after.snakes[0].body == ((5, 6), (5, 5), (5, 4))
    assert after.snakes[0].health == 49 and after.tick == 1
    assert facts.freed == ((5, 3),) and facts.eliminated == {}


def test_every_snake_moves_at_once():
    after, facts = turn(board(snake((1, 1), (1, 0), (0, 0)), snake((5, 5), (5, 4), (5, 3))), Move.R, Move.L)
    assert [s.head for s in after.snakes] == [(2, 1), (4, 5)]
    assert facts.movers == (0, 1) and facts.moves == (Move.R, Move.L)


def test_no_valid_move_continues_from_the_neck_to_the_head():
    assert default_move([(5, 5), (4, 5), (3, 5)]) is Move.R
    assert default_move([(5, 5), (5, 6)]) is Move.D
    after, facts = turn(board(snake((5, 5), (4, 5), (3, 5))), None)
    assert after.snakes[0].head == (6, 5) and facts.moves == (Move.R,)


def test_without_a_distinct_neck_the_default_move_is_up():
    assert default_move([(5, 5), (5, 5), (5, 5)]) is Move.U
    assert default_move([(5, 5)]) is Move.U
    assert turn(board(snake((5, 5), (5, 5), (5, 5))), None)[0].snakes[0].head == (5, 6)


def test_moving_back_into_the_neck_is_not_prevented_it_is_a_self_collision():
    after, facts = turn(board(snake((5, 5), (5, 4), (5, 3))), Move.D)
    assert after.snakes[0].head == (5, 4)
    assert facts.eliminated == {0: SELF_COLLISION}


def test_a_head_may_enter_the_cell_its_own_tail_just_left():
    loop = snake((5, 5), (5, 4), (6, 4), (6, 5))  # the tail (6, 5) is right of the head
    after, facts = turn(board(loop), Move.R)
    assert after.snakes[0].body == ((6, 5), (5, 5), (5, 4), (6, 4)) and facts.eliminated == {}


def test_a_head_may_enter_the_cell_another_snakes_tail_just_left_but_not_its_neck():
    a, b = snake((6, 1), (7, 1), (7, 2)), snake((4, 0), (5, 0), (6, 0))  # a goes down to (6, 0), b's tail, which leaves
    assert turn(board(a, b), Move.D, Move.U)[1].eliminated == {}
    a, b = snake((3, 1), (2, 1), (2, 0)), snake((5, 1), (4, 1), (4, 0))  # a goes to (4, 1): b's neck, which stays
    assert turn(board(a, b), Move.R, Move.R)[1].eliminated == {0: BODY_COLLISION}


# ---------------------------------------------------------------- starvation and feeding


def test_health_runs_out_one_point_a_turn():
    state = board(snake((5, 5), (5, 4), (5, 3), health=2))
    state, facts = turn(state, Move.U)
    assert state.snakes[0].health == 1 and facts.eliminated == {}
    state, facts = turn(state, Move.U)
    assert state.snakes[0].health == 0 and facts.eliminated == {0: OUT_OF_HEALTH}


def test_eating_restores_health_and_grows_by_duplicating_the_last_segment():
    state = board(snake((5, 5), (5, 4), (5, 3), health=50), food=[(5, 6), (0, 0)])
    after, facts = turn(state, Move.U)
    assert after.snakes[0].body == ((5, 6), (5, 5), (5, 4), (5, 4))
    assert after.snakes[0].health == MAX_HEALTH and facts.ate == (True,)
    assert after.food == ((0, 0),)


def test_the_tail_of_a_snake_that_ate_stays_for_a_turn():
    fed, _ = turn(board(snake((5, 5), (5, 4), (5, 3)), food=[(5, 6)]), Move.U)
    after, facts = turn(fed, Move.U)
    assert after.snakes[0].body == ((5, 7), (5, 6), (5, 5), (5, 4))  # (5, 4) is still the tail
    assert facts.freed == (None,)
    # so a snake entering that tail cell dies, where entering a tail that moves on is safe
    other = snake((6, 4), (7, 4), (8, 4))  # moves left into (5, 4), the stacked tail
    assert turn(board(*fed.snakes, other), Move.U, Move.L)[1].eliminated == {1: BODY_COLLISION}
    unfed, _ = turn(board(snake((5, 5), (5, 4), (5, 3), (5, 2))), Move.U)  # its tail (5, 3) moves on next turn
    other = snake((6, 3), (7, 3), (8, 3))  # moves left into (5, 3)
    assert turn(board(*unfed.snakes, other), Move.U, Move.L)[1].eliminated == {}


def test_eating_on_the_last_point_of_health_survives():
    after, facts = turn(board(snake((5, 5), (5, 4), (5, 3), health=1), food=[(5, 6)]), Move.U)
    assert facts.eliminated == {} and after.snakes[0].health == MAX_HEALTH
    after, facts = turn(board(snake((5, 5), (5, 4), (5, 3), health=1), food=[(5, 6)]), Move.R)
    assert facts.eliminated == {0: OUT_OF_HEALTH}


def test_snakes_meeting_on_one_food_all_eat_it():
    a, b = snake((4, 5), (3, 5), (2, 5)), snake((6, 5), (7, 5), (8, 5), (9, 5))
    after, facts = turn(board(a, b, food=[(5, 5)]), Move.R, Move.L)
    assert facts.ate == (True, True) and after.food == ()
    assert [s.length for s in after.snakes] == [4, 5]  # lengths after feeding: the shorter one dies
    assert facts.eliminated == {0: HEAD_COLLISION}
    assert after.snakes[1].health == MAX_HEALTH


def test_a_snake_that_eats_and_is_then_eliminated_still_removes_the_food():
    a, b = snake((4, 5), (3, 5), (2, 5)), snake((6, 5), (7, 5), (8, 5))
    after, facts = turn(board(a, b, food=[(5, 5)]), Move.R, Move.L)
    assert facts.eliminated == {0: HEAD_COLLISION, 1: HEAD_COLLISION}
    assert after.food == ()
    assert [s.length for s in after.snakes] == [4, 4]  # both grew before they died
    coil = board(snake((5, 5), (5, 4), (6, 4), (6, 5), (6, 6), (5, 6), (4, 6)), food=[(5, 6)])
    after, facts = turn(coil, Move.U)  # (5, 6) is food and its own body: it eats, then dies
    assert facts.ate == (True,) and facts.eliminated == {0: SELF_COLLISION} and after.food == ()


def test_eating_comes_before_the_head_to_head_comparison():
    # equal lengths meet on food: both eat (one segment more each) and both die
    a, b = snake((4, 5), (3, 5), (2, 5), health=1), snake((6, 5), (7, 5), (8, 5), health=1)
    after, facts = turn(board(a, b, food=[(5, 5)]), Move.R, Move.L)
    assert facts.eliminated == {0: HEAD_COLLISION, 1: HEAD_COLLISION}  # fed first: not starved, and still equal
    # a starving longer snake that eats on the meeting cell wins
    a, b = snake((4, 5), (3, 5), (2, 5), (1, 5), health=1), snake((6, 5), (7, 5), (8, 5))
    after, facts = turn(board(a, b, food=[(5, 5)]), Move.R, Move.L)
    assert facts.eliminated == {1: HEAD_COLLISION} and after.snakes[0].health == MAX_HEALTH
    assert after.snakes[0].length == 5


# ---------------------------------------------------------------- eliminations


def test_out_of_health_is_checked_before_the_wall():
    after, facts = turn(board(snake((0, 5), (1, 5), (2, 5), health=1)), Move.L)
    assert facts.eliminated == {0: OUT_OF_HEALTH}
    after, facts = turn(board(snake((0, 5), (1, 5), (2, 5), health=2)), Move.L)
    assert facts.eliminated == {0: WALL_COLLISION} and after.snakes[0].head == (-1, 5)


@pytest.mark.parametrize(
    ("body", "move"),
    [([(0, 5), (1, 5), (2, 5)], Move.L), ([(10, 5), (9, 5)], Move.R), ([(5, 0), (5, 1)], Move.D), ([(5, 10), (5, 9)], Move.U)],
)
def test_leaving_the_board_on_any_side_is_a_wall_collision(body, move):
    assert turn(board(snake(*body)), move)[1].eliminated == {0: WALL_COLLISION}


def test_starved_snakes_are_no_obstacle():
    a = snake((5, 5), (5, 4), (5, 3), health=1)  # starves this turn
    b = snake((4, 5), (3, 5), (2, 5))  # moves right into a's old head, a body cell after a's move
    _, facts = turn(board(a, b), Move.U, Move.R)
    assert facts.eliminated == {0: OUT_OF_HEALTH}
    # and a starved snake loses no head-to-head: the other survives, shorter or not
    a = snake((4, 5), (3, 5), (2, 5), (1, 5), health=1)
    b = snake((6, 5), (7, 5), (8, 5))
    assert turn(board(a, b), Move.R, Move.L)[1].eliminated == {0: OUT_OF_HEALTH}


def test_out_of_bounds_snakes_are_no_obstacle():
    a = snake((0, 5), (0, 4), (0, 3))  # leaves the board to the left; its body stays at (0, 5), (0, 4)
    b = snake((1, 4), (2, 4), (3, 4))  # moves left into (0, 4)
    assert turn(board(a, b), Move.L, Move.L)[1].eliminated == {0: WALL_COLLISION}


def test_collisions_are_simultaneous_an_eliminated_snake_still_blocks():
    # b dies head-to-head with the longer c; a runs into b's body in the same turn and dies too
    b = snake((3, 3), (3, 4), (3, 5))
    c = snake((5, 3), (6, 3), (7, 3), (8, 3))  # b and c meet at (4, 3): b, shorter, dies
    a = snake((2, 4), (1, 4), (0, 4))  # a moves into (3, 4), part of b's body after b's move
    _, facts = turn(board(a, b, c), Move.R, Move.R, Move.L)
    assert facts.eliminated == {0: BODY_COLLISION, 1: HEAD_COLLISION}
    # two heads each on the other's body: both die
    a, b = snake((2, 2), (1, 2), (0, 2)), snake((2, 3), (3, 3), (3, 2), (3, 1))
    _, facts = turn(board(a, b), Move.R, Move.D)  # a to (3, 2), b's body; b to (2, 2), a's body
    assert facts.eliminated == {0: BODY_COLLISION, 1: BODY_COLLISION}


def test_equal_lengths_both_die_head_to_head_and_the_shorter_dies_alone():
    a, b = snake((4, 5), (3, 5), (2, 5)), snake((6, 5), (7, 5), (8, 5))
    assert turn(board(a, b), Move.R, Move.L)[1].eliminated == {0: HEAD_COLLISION, 1: HEAD_COLLISION}
    b = snake((6, 5), (7, 5), (8, 5), (9, 5))
    after, facts = turn(board(a, b), Move.R, Move.L)
    assert facts.eliminated == {0: HEAD_COLLISION} and after.snakes[1].alive and after.snakes[1].head == (5, 5)


def test_self_then_body_then_head():
    # a's head lands on its own body and on b's head: self-collision
    a = snake((5, 5), (5, 6), (6, 6), (6, 5), (6, 4))  # moving right hits (6, 5), its own body
    b = snake((7, 5), (8, 5), (9, 5))  # moving left meets a there... on a's body: b dies of snake-collision
    _, facts = turn(board(a, b), Move.R, Move.L)
    assert facts.eliminated == {0: SELF_COLLISION, 1: BODY_COLLISION}
    # two heads meeting on a third snake's body: snake-collision, not head-collision
    c = snake((5, 4), (5, 5), (5, 6), (5, 7))  # c moves down; (5, 5), (5, 6) stay its body
    a, b = snake((4, 5), (3, 5), (2, 5)), snake((6, 5), (7, 5), (8, 5))
    assert turn(board(a, b, c), Move.R, Move.L, Move.D)[1].eliminated == {0: BODY_COLLISION, 1: BODY_COLLISION}


# ---------------------------------------------------------------- food spawns


def test_minimum_food_spawns_the_shortfall_on_open_cells():
    config = BattlesnakeConfig(7, 7, 1, minimum_food=3)
    state = board(snake((3, 3), (3, 2), (3, 1)), food=[(0, 0)], tick=4)
    spawned = draw_spawns(state, config, 0, 0)
    assert len(spawned) == 2 and len(set(spawned)) == 2
    assert set(spawned) <= set(spawn_cells(state, config))
    assert spawn_range(state, config, 40) == (2, 2)


def test_spawns_never_go_on_a_snake_on_food_or_next_to_a_head():
    config = BattlesnakeConfig(5, 5, 2)
    live = snake((2, 2), (2, 1), (2, 0))
    dead = Snake(((4, 4), (4, 3), (4, 2)), 0, OUT_OF_HEALTH)
    state = board(live, dead, food=[(0, 0)])
    cells = set(spawn_cells(state, config))
    assert not cells & {(2, 2), (2, 1), (2, 0), (0, 0), (1, 2), (3, 2), (2, 3)}
    assert {(4, 4), (4, 3), (4, 2)} <= cells  # an eliminated snake is gone
    assert len(cells) == 25 - 7


def test_the_shortfall_is_capped_by_the_open_cells():
    config = BattlesnakeConfig(3, 3, 1, minimum_food=9)
    state = board(snake((1, 1), (1, 1), (1, 1)))
    assert sorted(draw_spawns(state, config, 0, 0)) == [(0, 0), (0, 2), (2, 0), (2, 2)]


@pytest.mark.parametrize(
    ("chance", "exact", "low", "high"),
    [
        (0, False, 0, 0),
        (1, False, 0, 0),  # the official draw: (100 - roll) < 1 never holds
        (15, False, 0.11, 0.17),  # 14%
        (50, False, 0.45, 0.53),  # 49%
        (100, False, 0.98, 1),  # 99%: a tick above the minimum may spawn nothing
        (0, True, 0, 0),
        (15, True, 0.12, 0.18),
        (50, True, 0.46, 0.54),
        (100, True, 1, 1),
    ],
)
def test_above_the_minimum_one_food_spawns_with_the_spawn_chance(chance, exact, low, high):
    config = BattlesnakeConfig(11, 11, 1, food_spawn_chance=chance, exact_spawn_chance=exact)
    counts = Counter()
    for tick in range(1, 2001):
        counts[len(draw_spawns(board(snake((5, 5), (5, 4), (5, 3)), food=[(0, 0)], tick=tick), config, 7, 0))] += 1
    assert set(counts) <= {0, 1}
    assert low <= counts[1] / 2000 <= high


@pytest.mark.parametrize("chance", [0, 1, 2, 15, 50, 99, 100])
def test_the_official_draw_spawns_on_chance_minus_one_rolls_of_100(chance):
    """`100 - rand.Intn(100) < chance`, the official engine's test, on ints and on the batch engine's arrays alike."""
    official, exact = (BattlesnakeConfig(food_spawn_chance=chance, exact_spawn_chance=e) for e in (False, True))
    rolls = np.arange(100)
    assert sum(spawn_hit(r, official) for r in range(100)) == max(chance - 1, 0) == int(spawn_hit(rolls, official).sum())
    assert sum(spawn_hit(r, exact) for r in range(100)) == chance == int(spawn_hit(rolls, exact).sum())
    assert official.spawn_percent == max(chance - 1, 0) and exact.spawn_percent == chance
    assert [r for r in range(100) if spawn_hit(r, official)] == list(range(101 - chance, 100))  # the highest rolls


def test_spawns_are_keyed_by_seed_episode_and_tick():
    config = BattlesnakeConfig(11, 11, 1, minimum_food=2)
    state = board(snake((5, 5), (5, 4), (5, 3)), tick=3)
    assert draw_spawns(state, config, 1, 2) == draw_spawns(state, config, 1, 2)
    draws = {draw_spawns(state, config, s, e) for s in range(4) for e in range(4)}
    assert len(draws) > 10


# ---------------------------------------------------------------- start


@pytest.mark.parametrize("size", [7, 11, 19])
@pytest.mark.parametrize("count", [1, 2, 4, 5, 8])
def test_start_placement_and_initial_food_on_square_boards(size, count):
    config = BattlesnakeConfig(size, size, count)
    corners, edges = fixed_start_groups(config)
    mn, md, mx = 1, (size - 1) // 2, size - 2
    assert corners == [(mn, mn), (mn, mx), (mx, mn), (mx, mx)] and edges == [(mn, md), (md, mn), (md, mx), (mx, md)]
    centre = ((size - 1) // 2, (size - 1) // 2)
    firsts, orders = Counter(), set()
    for episode in range(60):
        state = initial_state(config, 5, episode)
        heads = [s.head for s in state.snakes]
        assert all(s.body == (s.head,) * 3 and s.health == 100 and s.alive for s in state.snakes)
        first, second = (corners, edges) if heads[0] in corners else (edges, corners)
        assert set(heads[:4]) <= set(first) and set(heads[4:]) <= set(second) and len(set(heads)) == count
        firsts["corner" if first is corners else "edge"] += 1
        orders.add(tuple(heads))
        assert bad_start_head(heads, config) is None
        food = set(state.food)
        assert centre in food
        if count > 4 and size < 11:
            assert food == {centre}  # small boards with more than 4 snakes: only the centre
        else:
            assert len(food) == count + 1
            for head in heads:  # one food on a diagonal, away from the centre, never a corner
                near = {f for f in food if abs(f[0] - head[0]) == 1 and abs(f[1] - head[1]) == 1}
                assert near and all(f not in {(0, 0), (0, size - 1), (size - 1, 0), (size - 1, size - 1)} for f in near)
        assert start_food_possible(heads, state.food, config)
    assert set(firsts) == {"corner", "edge"}  # the coin decides which group goes first
    assert len(orders) >= 6  # each group shuffled


def test_diagonal_start_food_lies_away_from_the_centre():
    config = BattlesnakeConfig(11, 11, 4)
    assert diagonal_food_cells((1, 1), [], config) == [(0, 2), (2, 0)]  # (0, 0) is a corner, (2, 2) towards the centre
    assert diagonal_food_cells((1, 5), [], config) == [(0, 4), (0, 6)]
    assert diagonal_food_cells((5, 9), [(4, 10)], config) == [(6, 10)]  # not food already
    assert diagonal_food_cells((6, 6), [], BattlesnakeConfig(11, 11, 1)) == [(5, 7), (7, 5), (7, 7)]
    assert (5, 5) not in diagonal_food_cells((4, 4), [], config)  # never the centre


@pytest.mark.parametrize(("width", "height", "count"), [(5, 9, 3), (6, 6, 4), (12, 8, 8), (3, 3, 2)])
def test_other_boards_start_like_the_official_random_placement(width, height, count):
    config = BattlesnakeConfig(width, height, count)
    assert not config.fixed_start
    for episode in range(30):
        state = initial_state(config, 1, episode)
        heads = [s.head for s in state.snakes]
        assert len(set(heads)) == count and all((x + y) % 2 == 0 for x, y in heads) and config.centre not in heads
        assert all(s.body == (s.head,) * 3 for s in state.snakes)
        open_cells = set(spawn_cells(board(*state.snakes), config))
        assert set(state.food) <= open_cells and len(state.food) == min(count, len(open_cells))
        assert bad_start_head(heads, config) is None and start_food_possible(heads, state.food, config)


@pytest.mark.parametrize(("width", "height", "count"), [(11, 11, 2), (11, 11, 6), (7, 7, 5), (6, 8, 3)])
def test_start_head_options_hold_every_drawn_start_cell(width, height, count):
    config = BattlesnakeConfig(width, height, count)
    for episode in range(40):
        heads = [s.head for s in initial_state(config, 2, episode).snakes]
        for k, head in enumerate(heads):
            options = start_head_options(heads[:k], config)
            assert head in options and not set(options) & set(heads[:k])
            if config.fixed_start:  # 8 cells for the first snake, then what its group (or from the fifth, the other) has left
                assert len(options) == (8 if k == 0 else 4 - k if k < 4 else 8 - k)


@pytest.mark.parametrize("count", [1, 2, 4, 8])
def test_start_food_outcomes_hold_every_drawn_food_and_sum_to_one(count):
    config = BattlesnakeConfig(11, 11, count)
    for episode in range(20):
        state = initial_state(config, 4, episode)
        outcomes = start_food_outcomes([s.head for s in state.snakes], config)
        assert state.food in outcomes and sum(outcomes.values()) == pytest.approx(1.0)
        assert all(start_food_possible([s.head for s in state.snakes], food, config) for food in outcomes)
    with pytest.raises(ValueError, match="random start"):
        start_food_outcomes([(0, 0)], BattlesnakeConfig(6, 8, 1))


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"num_snakes": 0}, "num_snakes must be between 1 and 8, got 0"),
        ({"num_snakes": 9}, "num_snakes must be between 1 and 8, got 9"),
        ({"width": 2, "height": 2, "num_snakes": 2}, "board 2x2 is too small for 2 snakes"),
        ({"width": 3, "height": 3, "num_snakes": 5}, "board 3x3 is too small for 5 snakes"),
        ({"width": 0}, "board must be between 1x1"),
        ({"width": 5000, "height": 5000}, "board must be between 1x1 and 25x25"),
        ({"food_spawn_chance": 101}, "food_spawn_chance must be a percentage"),
        ({"minimum_food": -1}, "minimum_food must be >= 0"),
        ({"max_ticks": 0}, "max_ticks must be between 1"),
        ({"max_ticks": 100_000_000}, "max_ticks must be between 1 and 100000"),
        ({"width": 7.5}, "width must be an integer"),
    ],
)
def test_bad_configs_get_one_line_errors(values, message):
    with pytest.raises(GameGrammarError, match=message) as err:
        BattlesnakeConfig(**values)
    assert "\n" not in str(err.value)


def test_config_defaults_and_dict():
    config = BattlesnakeConfig()
    assert config.to_dict() == {
        "width": 11,
        "height": 11,
        "num_snakes": 4,
        "minimum_food": 1,
        "food_spawn_chance": 15,
        "max_ticks": 300,
        "exact_spawn_chance": False,
    }
    assert config.game == "battlesnake" and config.fixed_start and config.centre == (5, 5)


# ---------------------------------------------------------------- ends and the simulator


def test_a_game_of_two_or_more_ends_when_at_most_one_is_left():
    config = BattlesnakeConfig(11, 11, 3)
    assert [decided(n, config) for n in (3, 2, 1, 0)] == [None, None, "WIN", "DRAW"]
    solo = BattlesnakeConfig(11, 11, 1)
    assert [decided(n, solo) for n in (1, 0)] == [None, "DEATH"]
    assert set(END_REASONS) == {"WIN", "DRAW", "DEATH", "TIMEOUT"}


def test_the_tick_limit_ends_an_undecided_game_with_timeout_and_a_decided_one_with_its_end():
    config = BattlesnakeConfig(11, 11, 2, max_ticks=5)
    two = board(snake((1, 1), (1, 1), (1, 1)), snake((9, 9), (9, 9), (9, 9)), tick=5)
    assert end_reason(two, config) == "TIMEOUT"
    dead = BattlesnakeState((two.snakes[0], Snake(two.snakes[1].body, 0, OUT_OF_HEALTH, "S1")), (), 5)
    assert end_reason(dead, config) == "WIN"
    assert end_reason(BattlesnakeState(two.snakes, (), 4), config) is None


def test_the_simulator_plays_one_action_per_snake_and_reports_events_in_grammar_order():
    config = BattlesnakeConfig(11, 11, 2, max_ticks=50)
    game = BattlesnakeGame(config)
    state = game.reset(3, 4)
    assert state == initial_state(config, 3, 4)
    assert game.legal_actions() == [list(Move), list(Move)]
    with pytest.raises(ValueError, match="one action per snake"):
        game.step([Move.U])
    with pytest.raises(ValueError, match="no move for live snake 1"):
        game.step([Move.U, None])
    state, events, done = game.step([Move.U, Move.D])
    types = [e.type for e in events]
    assert types[:5] == ["TICK", "INPUT", "MOVE", "INPUT", "MOVE"] and not done
    assert all(e.salience == EVENTS[e.type][0] for e in events)
    assert EVENTS["DIE"][0] == Salience.COLLISION and EVENTS["WIN"][0] == Salience.PHASE


def test_the_simulator_continues_from_any_state():
    config = BattlesnakeConfig(11, 11, 2, food_spawn_chance=0)
    a, b = snake((4, 5), (3, 5), (2, 5)), snake((6, 5), (7, 5), (8, 5), (9, 5))
    game = BattlesnakeGame.from_state(board(a, b, food=[(0, 0)]), config)
    _, events, done = game.step([Move.R, Move.L])
    assert done and game.end_reason == "WIN"
    assert [e.type for e in events][-2:] == ["DIE", "WIN"]
    assert events[-2].payload == {"snake": 0, "cause": HEAD_COLLISION}
    with pytest.raises(RuntimeError, match="over"):
        game.step([Move.R, Move.L])
