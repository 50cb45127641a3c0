from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.snake.rules import Direction, Outcome, SnakeConfig, SnakeGame, SnakeState, advance, initial_state, resolve

END_EVENTS = {"DIE_WALL", "DIE_SELF", "WIN", "TIMEOUT"}


def play(config: SnakeConfig, seed: int, episode: int, actions: list[int]):
    """Play actions (cycled) until the episode ends; yield (before, action, after, events, done)."""
    game = SnakeGame(config)
    state = game.reset(seed, episode)
    i = 0
    done = False
    while not done:
        action = Direction(actions[i % len(actions)])
        before = state
        state, events, done = game.step(action)
        yield before, action, state, events, done
        i += 1


boards = st.tuples(st.integers(4, 9), st.integers(4, 9), st.integers(1, 300))


@settings(max_examples=150, deadline=None)
@given(board=boards, seed=st.integers(0, 2**32), actions=st.lists(st.integers(0, 3), min_size=1, max_size=60))
def test_invariants_hold_on_any_action_sequence(board, seed, actions):
    config = SnakeConfig(*board)
    ticks = 0
    for before, action, after, events, done in play(config, seed, 0, actions):
        ticks += 1
        assert len(set(after.body)) == after.length, "body overlaps itself"
        assert after.length == 1 + after.score
        assert after.food is None or after.food not in after.body
        assert all(config.in_bounds(c) for c in after.body)
        if action == before.direction.opposite:
            assert after.direction == before.direction, "a reversal must be ignored"
        types = [e.type for e in events]
        ends = [t for t in types if t in END_EVENTS]
        assert len(ends) == (1 if done else 0)
        if done:
            assert types[-1] in END_EVENTS
        assert all(e.tick == after.tick == ticks for e in events)
    assert ticks <= config.max_ticks


def test_start_follows_the_rules():
    config = SnakeConfig(10, 10)
    directions = set()
    for episode in range(40):
        state = initial_state(config, 5, episode)
        assert state.body == ((5, 5),) and state.score == 0 and state.tick == 0
        assert state.food is not None and state.food != (5, 5)
        directions.add(state.direction)
    assert directions == set(Direction)


def test_reset_is_a_pure_function_of_seed_and_episode():
    a, b = SnakeGame(), SnakeGame()
    assert a.reset(3, 7) == b.reset(3, 7)
    assert a.reset(3, 7) != a.reset(3, 8) or a.reset(3, 7) != a.reset(4, 7)


def test_wall_death_leaves_the_snake_in_place():
    config = SnakeConfig(4, 4)
    state = SnakeState(((3, 1),), Direction.R, (0, 0))
    direction, outcome, _ = resolve(state, config, Direction.R)
    assert outcome is Outcome.DIE_WALL
    assert advance(state, direction, outcome, (4, 1), None).body == ((3, 1),)


def test_moving_into_the_tail_cell_is_legal_but_into_the_body_is_not():
    config = SnakeConfig(6, 6)
    # a 2x2 loop: head (1,1), then (1,2), (2,2), tail (2,1); moving R enters the tail's cell
    loop = SnakeState(((1, 1), (1, 2), (2, 2), (2, 1)), Direction.U, (5, 5), score=3)
    assert resolve(loop, config, Direction.R)[1] is Outcome.MOVE
    longer = SnakeState(((1, 1), (1, 2), (2, 2), (2, 1), (3, 1)), Direction.U, (5, 5), score=4)
    assert resolve(longer, config, Direction.R)[1] is Outcome.DIE_SELF


def test_eating_grows_spawns_and_scores():
    game = SnakeGame.from_state(SnakeState(((1, 1),), Direction.R, (2, 1)), SnakeConfig(5, 5), seed=1)
    state, events, done = game.step(Direction.R)
    assert [e.type for e in events] == ["TICK", "INPUT", "EAT", "MOVE", "GROW", "FOOD_SPAWN", "SCORE"]
    assert state.body == ((2, 1), (1, 1)) and state.score == 1 and state.food not in state.body and not done


def test_full_board_is_a_win():
    # 4x4 board: a boustrophedon body of 15 cells from (1,0) to (0,3), the food on (0,0)
    path = [(x if y % 2 == 0 else 3 - x, y) for y in range(4) for x in range(4)]
    state = SnakeState(tuple(path[1:]), Direction.L, (0, 0), score=14, tick=50)
    game = SnakeGame.from_state(state, SnakeConfig(4, 4))
    after, events, done = game.step(Direction.L)
    assert done and game.end_reason == "WIN"
    assert [e.type for e in events][-3:] == ["GROW", "SCORE", "WIN"] and after.food is None


def test_timeout_at_the_tick_limit():
    config = SnakeConfig(8, 8, max_ticks=3)
    steps = list(play(config, 0, 0, [0, 2, 1, 3]))
    assert len(steps) <= 3
    last_events = [e.type for e in steps[-1][3]]
    assert last_events[-1] in END_EVENTS
    if len(steps) == 3 and last_events[-1] not in ("DIE_WALL", "DIE_SELF"):
        assert last_events[-1] == "TIMEOUT"


def test_step_after_the_end_is_refused():
    game = SnakeGame(SnakeConfig(4, 4, max_ticks=1))
    game.reset(0)
    game.step(game.legal_actions()[0])
    with pytest.raises(RuntimeError):
        game.step(Direction.U)


@pytest.mark.parametrize(("w", "h"), [(3, 10), (10, 2), (0, 0)])
def test_boards_smaller_than_4x4_are_refused(w, h):
    with pytest.raises(GameGrammarError, match="between 4x4"):
        SnakeConfig(w, h)


@pytest.mark.parametrize("values", [{"width": 5000, "height": 5000}, {"max_ticks": 100_000_000}, {"width": 10.5}, {"max_ticks": 0}])
def test_configs_out_of_bounds_are_refused_in_one_line(values):
    with pytest.raises(GameGrammarError, match="must be"):
        SnakeConfig(**values)
