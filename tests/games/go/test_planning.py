from __future__ import annotations

import pytest

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games import load_game
from gamegrammar.games.go.planning import WrittenGo, simulate_plies
from gamegrammar.games.go.rules import BLACK, WHITE, GoConfig, area
from gamegrammar.games.go.trace import trace

CONFIG = GoConfig(5, komi=0.5)
GAME = load_game("go")


def _ticks(tokens: list[str]) -> list[int]:
    return [i for i, word in enumerate(tokens) if word == "TICK"]


@pytest.mark.parametrize("agent", ["random", "capture"])
def test_the_written_board_is_the_rules_board_after_every_tick(agent):
    captured = 0
    for episode in range(6):
        tokens = list(GAME.play_episode(CONFIG, CodecConfig(), agent, 1, episode).tokens)
        captured += tokens.count("TAKE")
        for at in [*_ticks(tokens)[1:], len(tokens)]:
            state = trace(tokens[:at], CONFIG)[-1]
            board = WrittenGo(CONFIG.size).read(tokens[:at])
            assert bytes(board.board) == state.board
            assert board.to_move == state.colour
    assert captured > 0  # the games had captures to lift


def test_the_value_is_the_area_margin_for_the_player_to_move_or_the_written_result():
    tokens = ["BOS", "SNAP", "BLACK", "WHITE", "TO_BLACK", "TICK", "C3", "TICK"]  # Black played C3: White to move
    black, white = area(trace(tokens, CONFIG)[-1].board, CONFIG.size)
    assert (black, white) == (25, 0)
    assert GAME.planner_value(tokens, [], CONFIG) == -(25 - 0.5)  # White, to move, is 24.5 behind
    assert GAME.planner_value(tokens[:-2], [], CONFIG) == 0 - 0.5  # Black to move on the empty board: komi
    assert GAME.planner_value(tokens, ["B2", "AREA", "V2", "V1", "W_WINS", "TWO_PASSES"], CONFIG) == 25.0
    resigned = WrittenGo(CONFIG.size).read([*tokens, "PASS", "TICK", "RESIGN", "W_WINS"])  # Black resigned
    assert resigned.value(BLACK, CONFIG.komi) == -25.0 and resigned.value(WHITE, CONFIG.komi) == 25.0


def test_a_dream_is_read_as_written_even_where_the_rules_would_refuse_it():
    tokens = ["BOS", "SNAP", "BLACK", "WHITE", "TO_BLACK", "TICK", "C3", "TICK", "C3", "TICK", "B2", "TAKE", "c3", "d4"]
    board = WrittenGo(CONFIG.size).read(tokens)
    assert sum(board.board) == BLACK  # White wrote its stone on Black's C3, a TAKE lifted it (and an empty d4): B2 is left
    assert board.to_move == WHITE


def test_the_rules_rollout_writes_the_move_and_what_follows_in_the_grammar():
    tokens = list(GAME.play_episode(CONFIG, CodecConfig(), "random", 1, 0).tokens)
    history = tokens[: _ticks(tokens)[4] + 1]  # up to the tick token of the fifth move
    state = trace(history, CONFIG)[-1]
    legal = next(f"{'ABCDE'[p % 5]}{p // 5 + 1}" for p in range(25) if state.board[p] == 0)
    words = simulate_plies(history, legal, 6, CONFIG, CodecConfig(), seed=3)
    assert words[0] == legal and words.count("TICK") == 5
    assert simulate_plies(history, legal, 6, CONFIG, CodecConfig(), seed=3) == words
    assert simulate_plies(history, legal, 6, CONFIG, CodecConfig(), seed=4) != words
    after = trace([*history, *words], CONFIG)[-1]
    assert bytes(WrittenGo(CONFIG.size).read([*history, *words]).board) == after.board
    assert GAME.simulate_plies(history, "PASS", 1, CONFIG, CodecConfig(), 0) == ["PASS"]
