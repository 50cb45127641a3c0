"""The frame of every game's scalar simulator, on a toy game counting to its config's limit."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gamegrammar.core.simulator import Simulator


@dataclass(frozen=True)
class Config:
    limit: int = 3


class Counter(Simulator[Config, int]):
    config_type = Config

    def _start(self, seed: int, episode: int) -> int:
        return seed + episode

    def step(self, action: int) -> tuple[int, list, bool]:
        self.state = self._state_before_step() + action
        self.done = self.state >= self.config.limit
        self.end_reason = "LIMIT" if self.done else None
        return self.state, [], self.done


def test_a_new_simulator_has_the_default_config_and_no_state():
    game = Counter()
    assert game.config == Config() and game.state is None and (game.seed, game.episode, game.done) == (0, 0, False)
    assert Counter(Config(9)).config.limit == 9


def test_reset_starts_an_episode_and_clears_the_last_end():
    game = Counter()
    assert game.reset(1, episode=1) == 2 and (game.seed, game.episode) == (1, 1)
    assert game.step(1) == (3, [], True) and game.end_reason == "LIMIT"
    assert game.reset(0) == 0 and not game.done and game.end_reason is None


def test_from_state_continues_a_given_state_with_its_seed():
    game = Counter.from_state(2, Config(5), seed=7, episode=3)
    assert isinstance(game, Counter) and game.state == 2 and (game.seed, game.episode) == (7, 3)
    assert game.step(1) == (3, [], False)


def test_a_step_is_refused_before_reset_and_after_the_end():
    with pytest.raises(RuntimeError, match="reset"):
        Counter().step(1)
    game = Counter()
    game.reset(0)
    game.step(3)
    with pytest.raises(RuntimeError, match="over"):
        game.step(1)
