"""The frame every game's scalar simulator shares: its bookkeeping of seed, episode and end, and the guards of `step`.

A game's reference simulator (the `events.Game` contract) differs only in how a state starts and how a tick
advances it. What a simulator remembers between calls, how it continues from an explicit state (a keyframe) and
when a step is refused are the same for every game, so they live here once.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

ConfigT = TypeVar("ConfigT")
StateT = TypeVar("StateT")
SimT = TypeVar("SimT", bound="Simulator[Any, Any]")


class Simulator(Generic[ConfigT, StateT]):
    """A game's scalar simulator, keyed by (seed, episode) alone: subclasses set `config_type`, implement `_start` and
    `step`, and begin each step with `_state_before_step()`."""

    config_type: ClassVar[type]  # the game's config; its defaults are the simulator's when none is given

    def __init__(self, config: ConfigT | None = None, state: StateT | None = None) -> None:
        self.config: ConfigT = config or self.config_type()
        self.state = state
        self.seed = 0
        self.episode = 0
        self.done = False
        self.end_reason: str | None = None

    @classmethod
    def from_state(cls: type[SimT], state: Any, config: Any, seed: int = 0, episode: int = 0) -> SimT:
        """A game that continues from an explicit state (a keyframe, say)."""
        game = cls(config, state)
        game.seed, game.episode = seed, episode
        return game

    def reset(self, seed: int, episode: int = 0) -> StateT:
        self.seed, self.episode = seed, episode
        self.done, self.end_reason = False, None
        self.state = self._start(seed, episode)
        return self.state

    def _start(self, seed: int, episode: int) -> StateT:
        """The first state of episode `episode` of `seed`."""
        raise NotImplementedError

    def _state_before_step(self) -> StateT:
        """The state a step advances; RuntimeError before the first reset and once the episode is over."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.done:
            raise RuntimeError("the episode is over; call reset()")
        return self.state
