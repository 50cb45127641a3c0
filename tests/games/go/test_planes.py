"""Probe targets of a Go position: sides relative to the player to move, agreeing with the colours and the board."""

from __future__ import annotations

import itertools

import numpy as np

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go.planes import PROBE_PLANES, feature_planes, probe_targets
from gamegrammar.games.go.rules import BLACK, WHITE, GoState

BOARD = GoConfig(size=5, max_ticks=60)


def traced_states(episodes: int = 3) -> list[GoState]:
    out = []
    for e in range(episodes):
        record = GAME.play_episode(BOARD, CodecConfig(), ("random", "capture")[e % 2], 3, e)
        out += GAME.trace(record.tokens, BOARD)
    return out


def test_go_declares_probes_and_its_board_shape() -> None:
    assert "probes" in GAME.capabilities
    assert GAME.board_shape(BOARD) == (5, 5)


def test_mine_and_theirs_are_the_colours_seen_from_the_player_to_move() -> None:
    states = traced_states()
    assert len({s.to_play for s in states}) == 2 and any(np.frombuffer(s.board, np.int8).any() for s in states)
    for s in states:
        t = GAME.probe_targets(s, BOARD)
        assert list(t.planes) == list(PROBE_PLANES) and all(p.shape == (25,) and p.dtype == np.uint8 for p in t.planes.values())
        board = np.frombuffer(s.board, np.int8)
        assert (t.planes["black"] == (board == BLACK)).all() and (t.planes["white"] == (board == WHITE)).all()
        mine, theirs = ("black", "white") if s.to_play == 0 else ("white", "black")
        assert (t.planes["mine"] == t.planes[mine]).all() and (t.planes["theirs"] == t.planes[theirs]).all()
        assert (t.planes["mine"] + t.planes["theirs"] + t.planes["empty"] == 1).all()  # every point is one of the three
        own = feature_planes(s, s.to_play)  # the AlphaGo-style planes of the same side agree
        assert (own[0].ravel() == t.planes["mine"]).all() and (own[1].ravel() == t.planes["theirs"]).all()
        assert t.scalars == {"my_stones": t.planes["mine"].sum(), "their_stones": t.planes["theirs"].sum()}
        assert t.classes == {"to_play": (s.to_play, 2)}


def test_a_capture_empties_the_captured_points() -> None:
    for e in range(6):
        states = GAME.trace(GAME.play_episode(BOARD, CodecConfig(), "capture", 3, e).tokens, BOARD)
        for s, after in itertools.pairwise(states):
            before, now = probe_targets(s), probe_targets(after)
            taken = before.planes["theirs"].astype(bool) & now.planes["empty"].astype(bool)
            if taken.any():  # the opponent's stones the move took: empty now, and its count smaller by as many
                assert now.scalars["my_stones"] == before.scalars["their_stones"] - taken.sum()
                assert now.scalars["their_stones"] == before.scalars["my_stones"] + 1
                return
    raise AssertionError("no capture in these games: the test needs one")
