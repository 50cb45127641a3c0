"""Battlesnake's plug-in object: the GameSpec contract, through the registry and the conformance kit."""

from __future__ import annotations

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig, GameSpec
from gamegrammar.games import conformance, game_of, load_game, tokenizer_for
from gamegrammar.games.battlesnake import GAME, BattlesnakeConfig, step_board


def test_the_registry_finds_the_game_by_name_and_by_config():
    assert load_game("battlesnake") is GAME and isinstance(GAME, GameSpec)
    assert game_of(BattlesnakeConfig()) is GAME
    assert tokenizer_for(BattlesnakeConfig()).tokens[:4] == list(SPECIAL_TOKENS)
    assert callable(step_board)


def test_the_spec_describes_its_game():
    assert GAME.end_events == ("WIN", "DRAW", "DEATH", "TIMEOUT")
    assert GAME.agent_names == ("random", "safe", "greedy", "space", "careless")
    assert set(GAME.default_agents) <= set(GAME.agent_names) and abs(sum(GAME.default_agents.values()) - 1) < 1e-9
    assert GAME.tick_token == "TICK" and GAME.keyframe_token == "SNAP"
    assert GAME.input_tokens(BattlesnakeConfig()) == ["UP", "DOWN", "LEFT", "RIGHT"]
    assert GAME.describe_config(BattlesnakeConfig()) == {"board": "11x11", "snakes": 4, "max_ticks": 300}
    flags = {f.option: f.default for f in GAME.config_flags()}
    assert flags == {
        "--width": 11,
        "--height": 11,
        "--num-snakes": 4,
        "--minimum-food": 1,
        "--food-spawn-chance": 15,
        "--max-ticks": 300,
        "--exact-spawn-chance": False,
    }
    assert GAME.make_config(width=7, height=None) == BattlesnakeConfig(width=7)
    assert GAME.config_from_dict(BattlesnakeConfig(9, 9, 3).to_dict()) == BattlesnakeConfig(9, 9, 3)
    assert GAME.play_batch is not None


def test_optional_parts_say_they_are_missing_in_one_line():
    tokenizer = tokenizer_for(BattlesnakeConfig())
    for call in (
        lambda: GAME.symmetries(tokenizer, BattlesnakeConfig()),
        lambda: GAME.episode_statistics(["BOS"], BattlesnakeConfig()),
    ):
        with pytest.raises(GameGrammarError):
            call()


def test_play_episode_records_every_state_and_the_score():
    config = BattlesnakeConfig(7, 7, 3, max_ticks=40)
    record = GAME.play_episode(config, CodecConfig(), "safe,greedy,space", 5, 2)
    assert len(record.states) == record.ticks + 1 and record.states[0].tick == 0
    assert record.end == record.tokens[-2] == record.events[-1].type
    standing = [s.length for s in record.states[-1].snakes if s.alive]
    assert record.score == (max(standing) if standing else record.score) and record.score >= 3
    assert GAME.new_agent("space", config).snake == 0


@pytest.mark.parametrize("config_index", range(len(GAME.test_configs())))
def test_the_conformance_kit_passes(config_index):
    config = GAME.test_configs()[config_index]
    for codec in conformance.CODECS:
        played = conformance.play(GAME, config, codec, seed=1, episodes=2)
        for name in conformance.CHECKS:
            try:
                conformance.run_check(name, played)
            except conformance.Skipped as why:
                assert name == "symmetries", why
