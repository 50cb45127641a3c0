"""Which (seed, episode) a reset plays: the corpus engines' counter-based keys behind gymnasium's `reset(seed=...)`.

Every random draw of a game is a pure function of (seed, episode, tick, purpose) (`gamegrammar.core.rng`), so an
environment needs no random state of its own: `reset(seed=s)` plays episode 0 of seed s, a later `reset()` the next
episode of the same seed, and `options={"episode": i}` picks episode i. Episode i of seed s through an environment is
then episode i of a corpus generated with `--seed s`, draw for draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from gamegrammar.core.errors import GameGrammarError

SEED_LIMIT = 1 << 63  # the corpus's bound on --seed; episode numbers share it


def check_seed(seed: Any) -> int | None:
    """`seed` as an int (None stays None); a GameGrammarError unless it is an integer in [0, 2**63)."""
    return None if seed is None else _count(seed, "seed")


def _count(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) < SEED_LIMIT:
        raise GameGrammarError(f"{what} must be an integer in [0, 2**63), got {value!r}")
    return int(value)


def next_key(
    seed: int | None, current: tuple[int, int] | None, np_random: np.random.Generator, options: Mapping[str, Any] | None
) -> tuple[int, int]:
    """The (seed, episode) of a reset.

    seed given: episode 0 of that seed. No seed: the episode after `current` (the last reset's key), or, on the first
    reset of an unseeded environment, episode 0 of a seed drawn from its `np_random`. `options["episode"]`, when given,
    replaces the episode.
    """
    if seed is not None:
        key = (_count(seed, "seed"), 0)
    elif current is None:
        key = (int(np_random.integers(SEED_LIMIT)), 0)
    else:
        key = (current[0], current[1] + 1)
    episode = (options or {}).get("episode")
    if episode is not None:
        key = (key[0], _count(episode, 'options["episode"]'))
    return key
