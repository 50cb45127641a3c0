"""What every game's scripted agents share: the `Agent` contract, and the agent mix of a corpus.

A game's agents live in its package (`GameSpec.new_agent`); each is seeded like the
game, so an episode is a function of (seed, episode) alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError


class Agent:
    """Base class: `reset(seed, episode)` then `act(state)` once per tick."""

    name = "agent"

    def __init__(self, config: Any) -> None:
        self.config = config
        self.seed = 0
        self.episode = 0

    def reset(self, seed: int, episode: int) -> None:
        self.seed, self.episode = seed, episode

    def act(self, state: Any) -> Any:
        raise NotImplementedError


SLIP_EVERY, SLIP_SHIFT = 10, 32


def slips(draw: int) -> bool:
    """A careless agent's coin, one tick in SLIP_EVERY: the draw's high bits, apart from the low bits that pick.

    Why one coin for every game: a careless agent is a scripted one that now and then moves at random, deadly or not,
    so that a corpus shows every input, not only the ones a careful agent picks."""
    return (draw >> SLIP_SHIFT) % SLIP_EVERY == 0


def unknown_agent(name: str, known: Sequence[str]) -> GameGrammarError:
    return GameGrammarError(f"unknown agent {name!r}; choose from {', '.join(known)}")


def parse_agent_mix(spec: str, known: Sequence[str]) -> dict[str, float]:
    """'random=0.4,greedy=0.6' -> normalised weights, checked against the game's agents."""
    mix: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, sep, weight = part.partition("=")
        name = name.strip()
        if name not in known:
            raise unknown_agent(name, known)
        try:
            value = float(weight) if sep else 1.0
        except ValueError:
            raise GameGrammarError(f"agent weight {weight!r} for {name!r} is not a number") from None
        if not 0 <= value < math.inf:  # refuses nan and inf too
            raise GameGrammarError(f"agent weight for {name!r} must be a finite number >= 0, got {weight}")
        mix[name] = mix.get(name, 0.0) + value
    total = sum(mix.values())
    if not mix or not total > 0:
        raise GameGrammarError(f"agent weights must sum to a positive number, got {spec!r}")
    return {name: w / total for name, w in mix.items() if w > 0}


def agent_for_episode(mix: dict[str, float], seed: int, episode: int, purpose: int = rng.Purpose.AGENT_PICK) -> str:
    """The agent that plays episode i: a weighted draw keyed by (seed, i, purpose), in the mix's order."""
    u = rng.unit(seed, episode, 0, purpose)
    cumulative = 0.0
    names = list(mix)
    for name in names:
        cumulative += mix[name]
        if u < cumulative:
            return name
    return names[-1]


def agents_for_episodes(mix: dict[str, float], seed: int, episodes: np.ndarray, purpose: int = rng.Purpose.AGENT_PICK) -> np.ndarray:
    """`agent_for_episode` for many episodes, as positions in `list(mix)`: the same floats compared in the same order."""
    u = (rng.draw_np(seed, np.asarray(episodes, np.int64), 0, purpose) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    names = list(mix)
    cumulative, bounds = 0.0, []
    for name in names:
        cumulative += mix[name]
        bounds.append(cumulative)
    pick = np.full(len(u), len(names) - 1)
    for i in reversed(range(len(names))):
        pick[u < bounds[i]] = i
    return pick
