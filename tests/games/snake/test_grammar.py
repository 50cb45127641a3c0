from __future__ import annotations

import pytest

from gamegrammar.errors import GameGrammarError
from gamegrammar.events import Salience
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import CodecConfig, GrammarError, decode, parse, vocabulary
from gamegrammar.games.snake.rules import SnakeConfig


def episode(config: SnakeConfig, codec: CodecConfig, agent_name: str, seed: int, ep: int):
    record = GAME.play_episode(config, codec, agent_name, seed, ep)
    return record.tokens, record.events, {s.tick: s for s in record.states}, record.end


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 1, 7])
def test_round_trip_rebuilds_events_and_states(board, interval):
    config, codec = SnakeConfig(*board), CodecConfig(keyframe_interval=interval)
    vocab = set(vocabulary(config))
    count = 0
    for agent in AGENTS:
        for ep in range(120):
            tokens, events, states, end = episode(config, codec, agent, 2, ep)
            assert set(tokens) <= vocab
            decoded = decode(tokens)
            assert decoded.events == events
            assert decoded.initial == states[0]
            assert decoded.end_reason == end
            for tick, state in decoded.keyframes.items():
                assert state == states[tick]
            expected = {0} | {t for t in states if interval and t % interval == 0 and t < max(states)}
            assert set(decoded.keyframes) == expected
            count += 1
    assert count == 360


def test_the_design_example_parses():
    text = (
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X8 Y5 SCORE V0 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R MOVE X7 Y5 "
        "TICK INPUT_R EAT MOVE X8 Y5 GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1 TICK INPUT_D MOVE X8 Y6 TICK INPUT_R DIE_WALL EOS"
    )
    decoded = decode(text)
    assert decoded.end_reason == "DIE_WALL"
    assert [e.type for e in decoded.events if e.tick == 3] == ["TICK", "INPUT", "EAT", "MOVE", "GROW", "FOOD_SPAWN", "SCORE"]


def test_keyframe_shows_only_what_has_happened():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(keyframe_interval=1), "greedy", 0, 0)
    # every keyframe comes after its tick's events: the token before SNAP ends a tick (or is the BOS keyframe start)
    snaps = [i for i, t in enumerate(tokens) if t == "SNAP"]
    assert snaps[0] == 1
    assert all(tokens[i - 1] not in ("TICK", "EAT", "BOS") for i in snaps[1:])
    assert "SNAP" not in tokens[tokens.index("EOS") - 3 :]


def test_salience_threshold_drops_low_events():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(min_salience=Salience.COLLISION), "greedy", 0, 1)
    assert "TICK" not in tokens and "MOVE" not in tokens and not any(t.startswith("INPUT_") for t in tokens)
    assert "EAT" in tokens and tokens[-2] in ("DIE_WALL", "DIE_SELF", "TIMEOUT", "WIN")


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("SNAP", 0),
        ("BOS SNAP PLAYER X1 Y1 DIR_Q", 5),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK MOVE X1 Y0", 14),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_U GROW", 15),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 EOS", 13),
    ],
)
def test_grammar_errors_point_at_the_first_bad_token(text, index):
    with pytest.raises(GrammarError) as err:
        list(parse(text.split()))
    assert err.value.index == index and not err.value.at_end


def test_a_cut_off_sequence_is_not_malformed():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(), "greedy", 0, 3)
    for cut in (2, 9, 20, len(tokens) - 1):
        try:
            list(parse(tokens[:cut]))
        except GrammarError as err:
            assert err.at_end


def test_bad_codec_options_are_refused():
    with pytest.raises(GameGrammarError):
        CodecConfig(keyframe_interval=-1)
    with pytest.raises(GameGrammarError):
        CodecConfig(min_salience=7)


def test_vocabulary_is_exact_for_the_board():
    vocab = vocabulary(SnakeConfig(6, 5))
    assert "X5" in vocab and "X6" not in vocab and "Y4" in vocab and "Y5" not in vocab
    assert "LEN30" in vocab and "LEN31" not in vocab and "V29" in vocab and "V30" not in vocab
    assert len(vocab) == len(set(vocab))
