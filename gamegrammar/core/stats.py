"""Intervals for ratios over grouped rows: the episode, not the row, is the unit a probe or an edit is read over."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def grouped_ratio_interval(
    numerators: Sequence[float], denominators: Sequence[float], resamples: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval for sum(numerators) / sum(denominators), resampling the groups.

    One numerator and denominator per group (an episode): rows of one episode are not independent (a probe
    right about one tick of a game is likely right about the next), so the episode is the unit resampled.
    F1 is such a ratio (2 tp over 2 tp + fp + fn), and so are accuracy and a success rate. No groups: (0, 1).
    """
    num, den = np.asarray(numerators, dtype=np.float64), np.asarray(denominators, dtype=np.float64)
    if len(num) != len(den):
        raise ValueError(f"{len(num)} numerators but {len(den)} denominators")
    if not len(num) or den.sum() <= 0:
        return 0.0, 1.0
    pick = np.random.default_rng(seed).integers(0, len(num), size=(resamples, len(num)))
    top, bottom = num[pick].sum(1), den[pick].sum(1)
    ratios = top[bottom > 0] / bottom[bottom > 0]
    low, high = np.quantile(ratios, [0.025, 0.975])
    return float(low), float(high)
