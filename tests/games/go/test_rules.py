"""Go's rules (GO.md): coordinates both ways, captures, suicide, positional superko, the end, area scoring, Zobrist keys."""

from __future__ import annotations

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games.go.agents import make_agent
from gamegrammar.games.go.rules import (
    BLACK,
    PASS,
    RESIGN,
    WHITE,
    GoConfig,
    GoGame,
    GoState,
    IllegalMove,
    advance,
    area,
    end_reason,
    is_own_eye,
    legal_plays,
    legality,
    parse_sgf_point,
    parse_vertex,
    result_of,
    result_string,
    sgf_point,
    vertex,
)
from gamegrammar.games.go.zobrist import position_key
from tests.games.go.conftest import board_of, state_of

KO = """
. . . . .
. . . . .
. X O . .
X O . O .
. X O . .
"""


def test_config_defaults_and_refusals():
    config = GoConfig()
    assert (config.size, config.komi, config.max_ticks) == (9, 7.5, 324)  # GO.md: 9x9, komi 7.5, 4 N^2 turns
    assert GoConfig(19).max_ticks == 4 * 361 and GoConfig(5, komi=6).komi == 6.0
    assert GoConfig(**config.to_dict()) == config
    for bad in ({"size": 4}, {"size": 20}, {"komi": 7.25}, {"komi": True}, {"max_ticks": -1}):
        with pytest.raises(GameGrammarError):
            GoConfig(**bad)


@pytest.mark.parametrize("size", [5, 9, 19])
def test_coordinates_both_ways(size):
    assert vertex(0, size) == "A1" and vertex(size * size - 1, size) == f"{'ABCDEFGHJKLMNOPQRST'[size - 1]}{size}"
    assert sgf_point(0, size) == "a" + "abcdefghijklmnopqrs"[size - 1]  # SGF counts rows from the top
    for p in range(size * size):
        assert parse_vertex(vertex(p, size), size) == p == parse_vertex(vertex(p, size).lower(), size)
        assert parse_sgf_point(sgf_point(p, size), size) == p
    assert parse_vertex("pass", size) == PASS and parse_sgf_point("", size) == PASS and sgf_point(PASS, size) == ""
    assert vertex(8 * 9 + 8, 9) == "J9" and sgf_point(8 * 9 + 8, 9) == "ia"  # no I column in GTP; SGF's letters go on
    for bad in ("I3", "Z1", "A0", f"A{size + 1}", "3A", ""):
        with pytest.raises(ValueError):
            parse_vertex(bad, size)


def test_a_capture_removes_the_whole_group_and_counts_prisoners():
    state = state_of(
        """
        . . . . .
        . X X . .
        X O O X .
        . X O X .
        . . . . .
        """
    )
    after, done = advance(state, parse_vertex("C1", 5))
    assert list(done.captured) == sorted(done.captured)  # point order
    assert sorted(vertex(p, 5) for p in done.captured) == ["B3", "C2", "C3"] and after.prisoners == (3, 0)
    assert after.board.count(WHITE) == 0 and after.key == position_key(after.board, 5)


def test_suicide_is_refused_unless_it_captures():
    corner = state_of(
        """
        . . . . .
        . . . . .
        . . . . .
        X . . . .
        . X . . .
        """,
        to_play=1,
    )
    assert legality(corner, parse_vertex("A1", 5))[0] == "suicide"
    with pytest.raises(IllegalMove, match="suicide"):
        advance(corner, parse_vertex("A1", 5))
    capturing = state_of(
        """
        . . . . .
        . . . . .
        O . . . .
        X O . . .
        . X O . .
        """,
        to_play=1,
    )
    _, done = advance(capturing, parse_vertex("A1", 5))  # no liberty of its own until it captures A2 and B1
    assert sorted(vertex(p, 5) for p in done.captured) == ["A2", "B1"]


def test_simple_ko_and_positional_superko():
    state = state_of(KO)
    state, done = advance(state, parse_vertex("C2", 5))  # Black takes the ko
    assert [vertex(p, 5) for p in done.captured] == ["B2"]
    assert legality(state, parse_vertex("B2", 5))[0] == "superko"  # White's retake repeats the position before
    assert parse_vertex("B2", 5) not in legal_plays(state)
    state, _ = advance(state, parse_vertex("E5", 5))  # a threat elsewhere...
    state, _ = advance(state, parse_vertex("E4", 5))  # ...answered
    assert legality(state, parse_vertex("B2", 5))[0] is None  # the board now differs from every earlier one


def test_superko_looks_at_every_earlier_position_not_only_the_last():
    state = state_of(KO)
    start = state.board
    for move in ("C2", "E5", "PASS"):  # Black takes, White plays away, Black passes: the position before Black's take is 2 back
        state, _ = advance(state, parse_vertex(move, 5))
    # White retaking would give the start plus White's E5: never seen; take E5 away by hand to recreate the start itself
    forged = GoState(state.size, state.board, state.tick, 0, state.key, state.seen, state.history, state.moves)
    assert forged.history[0] == start and legality(forged, parse_vertex("B2", 5))[0] is None
    assert position_key(start, 5) in state.seen


def test_passes_and_the_move_limit_end_the_game_and_a_pass_is_always_legal():
    config = GoConfig(5, max_ticks=3)
    game = GoGame(config)
    state = game.reset(0, 0)
    state, events, done = game.step(PASS)
    assert not done and state.passes == 1 and [e.type for e in events] == ["TICK", "PASS"]
    state, events, done = game.step(parse_vertex("C3", 5))
    assert not done and state.passes == 0
    state, events, done = game.step(PASS)
    assert (
        done and game.end_reason == "MOVE_LIMIT" and [e.type for e in events][-3:] == ["AREA", "W_WINS", "MOVE_LIMIT"]
    )  # White played C3: all 25 points
    two = GoState.empty(5)
    for _ in range(2):
        two, _ = advance(two, PASS)
    assert end_reason(two, GoConfig(5, max_ticks=2)) == "TWO_PASSES"  # the decision wins over the limit on the same turn
    resigned, _ = advance(GoState.empty(5), RESIGN)
    assert end_reason(resigned, GoConfig(5)) == "RESIGNATION" and result_of(resigned, GoConfig(5)) == "W+R"


def test_area_scoring_counts_stones_and_regions_reaching_one_colour():
    board = board_of(
        """
        . X O . .
        . X O . .
        X X O O O
        . . . . .
        . . . . .
        """
    )
    # Black: 4 stones + the 2 empty points top-left; White: 5 stones + the 4 top-right; the 10 below reach both
    assert area(board, 5) == (6, 9)
    assert area(bytes(25), 5) == (0, 0)
    assert (
        result_string(7, 9, 0.5) == "W+2.5"
        and result_string(41, 33, 7.5) == "B+0.5"
        and result_string(40, 33, 7.5) == "W+0.5"
        and result_string(9, 2, 7.0) == "0"
    )


def test_the_eye_rule():
    board = board_of(
        """
        . X . X .
        X . X . X
        . X O X .
        X . X . X
        O X . X .
        """
    )
    assert is_own_eye(board, parse_vertex("A5", 5), BLACK, 5)  # a corner: no opponent diagonal
    assert is_own_eye(board, parse_vertex("B4", 5), BLACK, 5)  # inside: one opponent diagonal (C3) is allowed
    assert not is_own_eye(board, parse_vertex("B2", 5), BLACK, 5)  # inside with two opponent diagonals (A1, C3)
    assert not is_own_eye(board, parse_vertex("E1", 5), WHITE, 5)


def test_zobrist_keys_follow_every_move_by_xor():
    config = GoConfig(7, max_ticks=120)
    for episode in range(3):
        game = GoGame(config)
        state = game.reset(5, episode)
        agents = [make_agent("capture", config, k) for k in range(2)]
        for agent in agents:
            agent.reset(5, episode)
        done = False
        while not done:
            state, _, done = game.step(agents[state.to_play].act(state))
            assert state.key == position_key(state.board, 7)
            assert len(state.history) == len(set(state.history))  # positional superko: no position twice
