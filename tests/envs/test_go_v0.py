"""The Go AEC environment: PettingZoo's api_test, the engine's episodes replayed to their tokens, planes and rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.envs import go_v0
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go.planes import FEATURES, feature_planes
from gamegrammar.games.go.rules import PASS, GoState, advance, parse_vertex


@pytest.mark.parametrize("kwargs", [{"size": 5, "max_ticks": 60}, {"size": 9}])
def test_pettingzoo_api_test_passes(kwargs):
    api_test(go_v0.env(**kwargs), num_cycles=400)


def test_engine_episodes_replay_to_their_tokens_and_rewards():
    config = GoConfig(7, max_ticks=80)
    env = go_v0.env(size=7, max_ticks=80, keyframe_interval=5)
    for episode in range(4):
        record = GAME.play_episode(config, CodecConfig(5), "random,capture", 5, episode)
        env.reset(seed=5)
        tokens = list(env.infos["black_0"]["tokens"])
        for state, after in zip(record.states, record.states[1:]):
            agent = env.agent_selection
            assert agent == ("black_0", "white_0")[state.to_play]
            observation, *_ = env.last()
            move = after.moves[-1]
            action = 49 if move == PASS else move
            assert observation["action_mask"][action] == 1
            env.step(action)
            tokens += env.infos[agent]["tokens"]
        assert tokens == record.tokens
        won = record.tokens[-3]
        assert env.rewards["black_0"] == (1.0 if won == "B_WINS" else -1.0) == -env.rewards["white_0"]
        assert all(env.terminations.values()) != all(env.truncations.values())
        assert "result" in env.infos["black_0"]


def test_an_illegal_action_is_refused():
    env = go_v0.env(size=5)
    env.reset()
    env.step(12)
    with pytest.raises(ValueError, match="not legal"):
        env.step(12)


def test_the_planes_from_each_players_view():
    state = GoState.empty(5)
    for move in ("B3", "B2", "A2", "C2", "B1"):  # Black: B3, A2, B1 around B2 (White: B2, C2)
        state, _ = advance(state, parse_vertex(move, 5))
    planes = feature_planes(state, state.to_play)  # White to move
    assert planes.shape == (len(FEATURES), 5, 5) and FEATURES[9] == "forbidden"
    a1 = (0, 0)
    assert planes[0][1, 1] == 1 and planes[1][2, 1] == 1 and planes[2][a1] == 1  # B2 is White's, B3 Black's
    assert planes[7][0, 1] == 1 and planes[8][1, 2] == 1  # B1 last, C2 before
    assert planes[9][a1] == 1  # A1 is suicide for White
    assert planes[5][1, 1] == planes[5][1, 2] == 1  # the B2-C2 group has three liberties: C1, C3, D2
    assert feature_planes(state, 1 - state.to_play)[9].sum() == 0  # the forbidden points are the mover's only
    assert np.all(planes[10] == 1)
