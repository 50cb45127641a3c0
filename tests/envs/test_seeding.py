"""Which (seed, episode) a reset plays: the corpus keys behind gymnasium's seeding."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.envs.seeding import check_seed, next_key


def test_next_key():
    rng = np.random.default_rng(0)
    assert next_key(7, None, rng, None) == (7, 0)
    assert next_key(7, (3, 4), rng, None) == (7, 0)  # a seed starts over
    assert next_key(None, (3, 4), rng, None) == (3, 5)  # no seed: the next episode
    assert next_key(None, (3, 4), rng, {"episode": 9}) == (3, 9)
    assert next_key(7, None, rng, {"episode": np.int64(2), "other": 1}) == (7, 2)
    seed, episode = next_key(None, None, np.random.default_rng(1), None)  # unseeded: a seed from the env's np_random
    assert episode == 0 and (seed, 0) == next_key(None, None, np.random.default_rng(1), None)


@pytest.mark.parametrize("bad", [-1, 2**63, 1.0, "1", True])
def test_bad_seeds_and_episodes_are_refused(bad):
    with pytest.raises(GameGrammarError, match="seed"):
        check_seed(bad)
    with pytest.raises(GameGrammarError, match="episode"):
        next_key(0, None, np.random.default_rng(0), {"episode": bad})
    assert check_seed(None) is None and check_seed(np.uint64(5)) == 5
