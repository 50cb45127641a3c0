"""What a planner reads off written Snake tokens is the true state, in every design, and its input is greedy's."""

from __future__ import annotations

import pytest

from gamegrammar.games import load_game
from gamegrammar.games.snake.agents import GreedyAgent
from gamegrammar.games.snake.planning import food_closeness, read_written_state, toward_food

GAME = load_game("snake")
DESIGNS = [{}, {"sense": True}, {"head_first": True}, {"tail_events": True}, {"spawn_column": True}, {"body_list": True}]


def tick_ends(tokens: list[str]) -> list[int]:
    """Where each state of an episode has been written: before each TICK (the first after BOS's keyframe)."""
    return [i for i, t in enumerate(tokens) if t == "TICK"]


@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: next(iter(d), "v1"))
@pytest.mark.parametrize("keyframes", [0, 3])
def test_the_written_state_is_the_true_state(design, keyframes):
    config = GAME.make_config(width=7, height=6, max_ticks=120)
    codec = GAME.codec_type(keyframe_interval=keyframes, **design)
    for agent in ("greedy", "random", "careless"):
        for episode in range(3):
            record = GAME.play_episode(config, codec, agent, 4, episode)
            for state, end in zip(record.states, tick_ends(record.tokens), strict=False):
                for cut in range(0, end, max(1, end // 3)):  # the history and the rollout split anywhere at a tick
                    if cut and record.tokens[cut] != "TICK":
                        continue
                    read = read_written_state(record.tokens[:cut], record.tokens[cut:end])
                    assert read is not None
                    assert read.body == list(state.body)
                    assert read.food == state.food
                    if len(state.body) > 1 or state.tick > 0:
                        assert read.heading == state.direction
                (hx, hy), (fx, fy) = state.body[0], state.food
                assert food_closeness(record.tokens[:end]) == -(abs(hx - fx) + abs(hy - fy))


def test_its_input_is_one_greedy_could_play():
    config = GAME.make_config()
    codec = GAME.codec_type(sense=True, keyframe_interval=0)
    inputs = GAME.input_tokens(config)
    greedy = GreedyAgent(config)
    seen = 0
    for episode in range(4):
        record = GAME.play_episode(config, codec, "careless", 9, episode)  # greedy's states, and its slips' too
        for state, end in zip(record.states, tick_ends(record.tokens), strict=False):
            written = record.tokens[:end]
            greedy_set = {d.name for d in greedy.policy(state)}
            chosen = {toward_food(written, ["TICK"], inputs, config, u).removeprefix("INPUT_") for u in (0.0, 0.34, 0.67, 0.99)}
            assert chosen == greedy_set
            seen += 1
    assert seen > 100


def test_nothing_written_reads_nothing():
    config = GAME.make_config()
    assert read_written_state([], ["TICK"]) is None
    assert toward_food([], ["TICK"], GAME.input_tokens(config), config, 0.5) is None
    assert food_closeness(["TICK", "INPUT_L"]) == 0.0
    # an input against the way the head goes is taken for going on: here straight into the wall ahead
    start = ["BOS", "SNAP", "PLAYER", "X9", "Y5", "DIR_R", "LEN1", "BODY", "FOOD", "X0", "Y5", "SCORE", "V0"]
    assert toward_food(start, ["TICK"], ["INPUT_L", "INPUT_R", "INPUT_U"], config, 0.0) == "INPUT_U"
    assert toward_food(start, ["TICK"], ["INPUT_L", "INPUT_R"], config, 0.0) == "INPUT_R"  # every input dies: the direct word
