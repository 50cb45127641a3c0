"""Intervals over groups: resampling episodes, not rows."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.stats import grouped_ratio_interval


def test_grouped_ratio_interval_resamples_groups() -> None:
    # Every group has the same ratio: no spread, whatever the resampling.
    assert grouped_ratio_interval([1, 2, 3], [2, 4, 6]) == (0.5, 0.5)
    # One group all right and one all wrong: the interval spans most of [0, 1] and holds the pooled ratio 0.5.
    low, high = grouped_ratio_interval([10, 0], [10, 10])
    assert low == 0.0 and high == 1.0
    # Many similar groups: a tight interval around the pooled ratio, wider with fewer groups.
    rng = np.random.default_rng(0)
    num = rng.binomial(20, 0.8, size=200)
    low, high = grouped_ratio_interval(num, np.full(200, 20))
    assert low < num.sum() / 4000 < high and high - low < 0.03
    low5, high5 = grouped_ratio_interval(num[:5], np.full(5, 20))
    assert high5 - low5 > high - low
    assert grouped_ratio_interval([], []) == (0.0, 1.0)
    with pytest.raises(ValueError, match="numerators"):
        grouped_ratio_interval([1], [1, 2])
