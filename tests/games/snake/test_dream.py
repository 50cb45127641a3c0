"""Snake's part of a dream: its agents' inputs as tokens, and one written tick read from the state before it."""

from __future__ import annotations

import pytest

from gamegrammar.games import load_game
from gamegrammar.games.snake.dream import PAST_LIMIT, read_tick

GAME = load_game("snake")


def ticks_of(tokens: list[str]) -> list[list[str]]:
    """The whole ticks of an episode: from each TICK to the next (the last one with its EOS)."""
    starts = [i for i, t in enumerate(tokens) if t == "TICK"]
    return [tokens[a:b] for a, b in zip(starts, [*starts[1:], len(tokens)])]


@pytest.mark.parametrize("config", GAME.test_configs())
@pytest.mark.parametrize("keyframes", [0, 3])
def test_reading_tick_by_tick_is_the_trace_and_breaks_nothing(config, keyframes):
    codec = GAME.codec_type(keyframe_interval=keyframes)
    for agent in GAME.agent_names:
        for episode in range(4):
            record = GAME.play_episode(config, codec, agent, 5, episode)
            states = [GAME.trace(record.tokens, config)[0]]
            for tick in ticks_of(record.tokens):
                reading = read_tick(states[-1], tick, config)
                assert reading.broken == ()
                states.append(reading.state)
            assert states == record.states


def test_the_agents_inputs_are_the_ones_the_engine_plays():
    config = GAME.make_config(width=6, height=6, max_ticks=50)
    for agent in GAME.agent_names:
        record = GAME.play_episode(config, GAME.codec_type(), agent, 2, 7)
        policy = GAME.input_policy(agent, config)
        policy.reset(2, 7)
        assert [policy.inputs(s) for s in record.states[:-1]] == [tick[1:2] for tick in ticks_of(record.tokens)]


START = "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0"  # food two cells ahead
NEXT_TO_FOOD = "BOS SNAP PLAYER X6 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0"


def _read(tokens: str, config=None, start: str = START):
    config = config or GAME.make_config()
    return read_tick(GAME.trace(start.split(), config)[0], tokens.split(), config)


def test_a_broken_tick_names_the_rules_and_stops_where_the_rules_cannot_follow():
    assert _read("TICK INPUT_R MOVE X6 Y5").broken == ()
    wrong_cell = _read("TICK INPUT_R MOVE X6 Y4")
    assert wrong_cell.broken == ("move_follows_input",) and wrong_cell.state is None
    wrong_death = _read("TICK INPUT_R DIE_WALL EOS")
    assert wrong_death.broken == ("wall_death",) and wrong_death.state is None
    assert _read("TICK INPUT_R MOVE EOS").broken == ("grammar",)


def test_wrong_values_break_a_rule_but_the_state_goes_on():
    eat = _read("TICK INPUT_R EAT MOVE X7 Y5 GROW LEN3 FOOD_SPAWN X0 Y0 SCORE V1", start=NEXT_TO_FOOD)
    assert eat.broken == ("grow_after_eat",) and eat.state is not None and eat.state.length == 2
    on_body = _read("TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 FOOD_SPAWN X7 Y5 SCORE V1", start=NEXT_TO_FOOD)
    assert on_body.broken == ("spawn_on_empty",) and on_body.state is None  # a spawn the rules do not allow


def test_a_missing_end_at_the_end_of_a_whole_tick_is_missing_and_a_tick_past_the_limit_is_broken():
    config = GAME.make_config(max_ticks=1)
    assert _read("TICK INPUT_R MOVE X6 Y5 TIMEOUT EOS", config).broken == ()
    late = _read("TICK INPUT_R MOVE X6 Y5", config)  # a whole tick (the next one follows): TIMEOUT is missing
    assert late.broken == ("timeout_at_limit",) and late.state is not None and late.state.tick == 1
    past = read_tick(late.state, ["TICK", "INPUT_D", "MOVE", "X6", "Y6"], config)
    assert past.broken == (PAST_LIMIT,) and past.state is None


@pytest.mark.parametrize("config", GAME.test_configs())
def test_reading_head_first_ticks_is_the_trace_and_breaks_nothing(config):
    codec = GAME.codec_type(keyframe_interval=3, head_first=True)
    for agent in GAME.agent_names:
        for episode in range(4):
            record = GAME.play_episode(config, codec, agent, 5, episode)
            states = [GAME.trace(record.tokens, config)[0]]
            for tick in ticks_of(record.tokens):
                reading = GAME.read_tick(states[-1], tick, config, codec)
                assert reading.broken == () and reading == read_tick(states[-1], tick, config, head_first=None)
                states.append(reading.state)
            assert states == record.states


def test_a_head_first_tick_is_held_to_the_codecs_order():
    config = GAME.make_config()
    head_first, v1 = GAME.codec_type(head_first=True), GAME.codec_type()
    state = GAME.trace(START.split(), config)[0]
    assert GAME.read_tick(state, ["TICK", "INPUT_R", "X6", "Y5", "MOVE"], config, head_first).broken == ()
    as_v1 = GAME.read_tick(state, ["TICK", "INPUT_R", "X6", "Y5", "MOVE"], config, v1)  # a grammar v1 model's codec: the other order
    assert as_v1.broken == ("grammar",) and as_v1.state is None
    assert GAME.read_tick(state, ["TICK", "INPUT_R", "MOVE", "X6", "Y5"], config, head_first).broken == ("grammar",)
    assert _read("TICK INPUT_R X6 Y4 MOVE").broken == ("move_follows_input",)  # read off the tick without a codec
    next_to_food = GAME.trace(NEXT_TO_FOOD.split(), config)[0]
    eat = GAME.read_tick(
        next_to_food, ["TICK", "INPUT_R", "X7", "Y5", "EAT", "GROW", "LEN2", "FOOD_SPAWN", "X0", "Y0", "SCORE", "V1"], config, head_first
    )
    assert eat.broken == () and eat.state.head == (7, 5) and eat.state.length == 2


SELF_START = "BOS SNAP PLAYER X6 Y6 DIR_R LEN6 BODY B_L B_U B_R B_R B_D FOOD X2 Y7 SCORE V5"  # EXAMPLE_HEAD_FIRST_SELF after tick 2


def test_a_head_first_self_death_is_read_with_the_cell_it_runs_into():
    codec = GAME.codec_type(head_first=True)
    config = GAME.make_config()
    state = GAME.trace(SELF_START.split(), config)[0]
    death = GAME.read_tick(state, ["TICK", "INPUT_U", "X6", "Y5", "DIE_SELF", "EOS"], config, codec)
    assert death.broken == () and death.state is not None and death.state.head == (6, 6)
    wrong = GAME.read_tick(state, ["TICK", "INPUT_U", "X7", "Y5", "DIE_SELF", "EOS"], config, codec)
    assert wrong.broken == ("move_follows_input",) and wrong.state is None
    missing = GAME.read_tick(state, ["TICK", "INPUT_U", "DIE_SELF", "EOS"], config, codec)
    assert missing.broken == ("grammar",) and missing.state is None
