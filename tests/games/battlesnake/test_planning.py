from __future__ import annotations

import pytest

from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.agents import make_agent, safest_moves
from gamegrammar.games.battlesnake.grammar import INPUT_TOKEN, BattlesnakeCodec, input_tokens
from gamegrammar.games.battlesnake.planning import WrittenBoard, read_board, safe_input
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeGame


def _played(config: BattlesnakeConfig, codec: BattlesnakeCodec, episode: int):
    """(tokens written up to each tick's end, the state after it) for one game of safe, greedy and space agents."""
    game = load_game("battlesnake")
    sim = BattlesnakeGame(config)
    state = sim.reset(5, episode)
    agents = [make_agent(("safe", "greedy", "space", "random")[k % 4], config, k) for k in range(config.num_snakes)]
    for agent in agents:
        agent.seed, agent.episode = 5, episode
    encoder = game.new_encoder(codec, config)
    encoder.start(state)
    seen = [(list(encoder.tokens), state)]
    done = False
    while not done:
        moves = [agents[k].act(state) if s.alive else None for k, s in enumerate(state.snakes)]
        state, events, done = sim.step(moves)
        encoder.tick(events, state, done)
        seen.append((list(encoder.tokens), state))
    return seen


def _same_board(board: WrittenBoard, state) -> None:
    read = board.state()
    assert read.food == state.food
    for k in state.alive:
        assert read.snakes[k].body == state.snakes[k].body, k
        assert read.snakes[k].health == state.snakes[k].health, k
    assert set(read.alive) == set(state.alive)


@pytest.mark.parametrize(
    ("config", "codec"),
    [
        (BattlesnakeConfig(11, 11, 2), BattlesnakeCodec()),  # the duel, its keyframe at the start only
        (BattlesnakeConfig(7, 7, 4, max_ticks=80), BattlesnakeCodec(10, tails=True)),  # FREE cells, keyframes every 10
        (BattlesnakeConfig(11, 11, 2), BattlesnakeCodec(smell=True)),  # a SMELL word after each input
        (BattlesnakeConfig(7, 7, 4, max_ticks=80), BattlesnakeCodec(10, tails=True, cells=True)),  # a cell a word
        (BattlesnakeConfig(7, 7, 4, max_ticks=80), BattlesnakeCodec(sense=True, hits=True)),  # SENSE, HIT and MEET words
    ],
)
def test_the_written_board_is_the_true_board_after_every_tick(config, codec):
    for episode in range(3):
        for tokens, state in _played(config, codec, episode):
            _same_board(read_board(tokens), state)


def test_a_history_read_once_goes_on_into_a_rollouts_words():
    config, codec = BattlesnakeConfig(11, 11, 2), BattlesnakeCodec()
    seen = _played(config, codec, 1)
    history, _ = seen[len(seen) // 2]
    tokens, state = seen[len(seen) // 2 + 3]
    rollout = tokens[len(history) :]
    _same_board(read_board(history, rollout), state)
    _same_board(read_board(history, rollout), state)  # the kept reading of the history is not changed by a rollout
    _same_board(read_board(history), seen[len(seen) // 2][1])


def test_the_safe_input_is_the_safe_agents_choice_on_the_true_board():
    config, codec = BattlesnakeConfig(11, 11, 2), BattlesnakeCodec()
    moves = set(input_tokens())
    checked = 0
    for episode in range(2):
        for tokens, state in _played(config, codec, episode)[:-1]:
            safest = {INPUT_TOKEN[m] for m in safest_moves(state, 0, config)}
            picks = {safe_input([*tokens, "TICK", "S0"], [], moves, config, u) for u in (0.0, 0.3, 0.6, 0.99)}
            assert picks == safest  # every candidate is reached by some draw: 4 draws, at most 4 candidates
            checked += 1
    assert checked > 20


def test_the_safe_input_keeps_to_the_allowed_moves_and_reads_nothing_from_nothing():
    config, codec = BattlesnakeConfig(11, 11, 2), BattlesnakeCodec()
    tokens, state = _played(config, codec, 0)[3]
    history = [*tokens, "TICK", "S0"]
    safest = [INPUT_TOKEN[m] for m in safest_moves(state, 0, config)]
    assert safe_input(history, [], {safest[-1]}, config, 0.9) == safest[-1]
    others = set(input_tokens()) - set(safest)
    assert safe_input(history, [], others, config, 0.0) is None  # none of the safest allowed: the planner draws
    assert safe_input([], [], set(input_tokens()), config, 0.5) is None
    assert safe_input([*tokens, "TICK", "S7"], [], set(input_tokens()), config, 0.5) is None  # a snake with no body
