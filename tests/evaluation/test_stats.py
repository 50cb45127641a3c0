"""Wilson intervals: every rate in a report carries one."""

from __future__ import annotations

import pytest

from gamegrammar.evaluation import wilson_interval


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
