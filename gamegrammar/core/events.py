"""Events, their salience, and the protocol every game implements."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Generic, Protocol, TypeVar


class Salience(IntEnum):
    """How much an event matters; the codec can drop everything below a threshold."""

    TICK = 0
    MOVEMENT = 1
    COLLISION = 2
    RULE_EFFECT = 3
    PHASE = 4


@dataclass(frozen=True)
class Event:
    type: str
    tick: int
    salience: Salience
    entity: str = ""
    payload: Mapping[str, Any] = field(default_factory=dict)


StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")


class Game(Protocol, Generic[StateT, ActionT]):
    """gymnasium-like contract: randomness is keyed by (seed, episode), never hidden state."""

    def reset(self, seed: int, episode: int = 0) -> StateT: ...

    def step(self, action: ActionT) -> tuple[StateT, list[Event], bool]: ...

    def legal_actions(self, state: StateT) -> list[ActionT]: ...
