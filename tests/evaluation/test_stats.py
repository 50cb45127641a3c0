"""Wilson intervals (every rate in a report carries one) and intervals over seeds."""

from __future__ import annotations

import math

import pytest

from gamegrammar.evaluation import wilson_interval
from gamegrammar.evaluation.stats import mean_interval


def test_wilson_interval():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.1611, abs=1e-4)
    lo, hi = wilson_interval(20, 20)
    assert lo == pytest.approx(0.8389, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(19, 20)
    assert lo == pytest.approx(0.7639, abs=1e-4) and hi == pytest.approx(0.9911, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo + hi) / 2 == pytest.approx(0.5) and lo == pytest.approx(0.2366, abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_mean_interval_is_student_t_over_seeds() -> None:
    mean, lo, hi = mean_interval([0.4, 0.5, 0.6])
    assert mean == pytest.approx(0.5)
    assert (hi - mean) == pytest.approx(4.303 * 0.1 / 3**0.5)  # sd 0.1, 2 degrees of freedom
    assert lo == pytest.approx(2 * mean - hi)
    assert mean_interval([0.7]) == (0.7, -math.inf, math.inf)
    assert mean_interval([0.2, 0.2]) == (0.2, 0.2, 0.2)
    with pytest.raises(ValueError):
        mean_interval([])
