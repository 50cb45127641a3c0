"""Counter-based randomness: every draw is a pure function of (seed, episode, tick, purpose).

A scalar engine, a vectorized engine and any number of workers therefore draw the
same numbers without sharing state, and any episode can be regenerated alone.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


class Purpose(IntEnum):
    START_DIRECTION = 1
    FOOD = 2
    AGENT = 3
    AGENT_PICK = 4
    SPLIT = 5
    ZOBRIST = 6  # the keys of Zobrist hashing (gamegrammar.core.zobrist): draw(0, slot, code, ZOBRIST)
    TOKEN = 7  # a model's sampled token: draw(seed, sequence, position, TOKEN) (gamegrammar.model.decoding)


def mix64(z: int) -> int:
    """SplitMix64 finaliser on Python ints (wrapping at 64 bits)."""
    z = (z + _GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * _M1) & _MASK
    z = ((z ^ (z >> 27)) * _M2) & _MASK
    return z ^ (z >> 31)


def draw(seed: int, episode: int, tick: int, purpose: int) -> int:
    """A 64-bit random integer determined by its four keys alone."""
    z = mix64(seed & _MASK)
    z = mix64(z ^ (episode & _MASK))
    z = mix64(z ^ (tick & _MASK))
    return mix64(z ^ (purpose & _MASK))


def choose(seed: int, episode: int, tick: int, purpose: int, k: int) -> int:
    """Index of the chosen one of k candidates: (hash mod k)."""
    return draw(seed, episode, tick, purpose) % k


def unit(seed: int, episode: int, tick: int, purpose: int) -> float:
    """A float in [0, 1) with 53 random bits, identical in Python and NumPy."""
    return (draw(seed, episode, tick, purpose) >> 11) * (1.0 / (1 << 53))


def mix64_np(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser on uint64 arrays (NumPy wraps modulo 2**64)."""
    z = z.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        z += np.uint64(_GOLDEN)
        z ^= z >> np.uint64(30)
        z *= np.uint64(_M1)
        z ^= z >> np.uint64(27)
        z *= np.uint64(_M2)
        z ^= z >> np.uint64(31)
    return z


def draw_np(seed: int | np.ndarray, episode: np.ndarray, tick: np.ndarray | int, purpose: int) -> np.ndarray:
    """Vectorized `draw`: the same numbers for arrays of episodes and ticks (and of seeds: one per game, as the vector env has)."""
    seeds = seed.astype(np.uint64) if isinstance(seed, np.ndarray) else np.asarray(seed & _MASK, dtype=np.uint64)  # int64 wraps
    z = mix64_np(seeds)
    z = mix64_np(z ^ np.asarray(episode, dtype=np.int64).astype(np.uint64))
    z = mix64_np(z ^ np.asarray(tick, dtype=np.int64).astype(np.uint64))
    return mix64_np(z ^ np.uint64(purpose))


def episode_keys(seed: int, episodes: np.ndarray) -> np.ndarray:
    """The (seed, episode) prefix of `rng.draw`, computed once per episode."""
    z = mix64_np(np.asarray(seed & ((1 << 64) - 1), dtype=np.uint64))
    return mix64_np(z ^ np.asarray(episodes, np.int64).astype(np.uint64))


def tick_keys(keys: np.ndarray, tick: int) -> np.ndarray:
    return mix64_np(keys ^ np.uint64(tick))


def keyed_draw(tick_key: np.ndarray, purpose: int) -> np.ndarray:
    """`rng.draw(seed, episode, tick, purpose)` from a `tick_keys` value."""
    return mix64_np(tick_key ^ np.uint64(purpose))
