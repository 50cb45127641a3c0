"""Confidence intervals for pass rates: 20 samples prove little, so every rate carries one."""

from __future__ import annotations

import math


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for k successes out of n (95% for z=1.96).

    Chosen over the normal approximation because it stays inside [0, 1] and is
    sensible at k=0 or k=n, exactly the cases a validity report hits (every
    sample valid, or none). n=0 carries no information: (0, 1).
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# Two-sided 95% quantiles of Student's t for 1..10 degrees of freedom; beyond, the normal's 1.96 is within 6%.
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean of a few runs' figures (one per seed) and its 95% Student-t interval.

    Seeds, not samples, are the unit when comparing training recipes: one seed moves strict validity by ten points,
    far more than the Wilson interval of its own thousand samples. A single value has no spread: (v, -inf, inf).
    """
    n = len(values)
    if n == 0:
        raise ValueError("need at least one value")
    mean = sum(values) / n
    if n == 1:
        return mean, -math.inf, math.inf
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = (_T95[n - 2] if n - 1 <= len(_T95) else 1.96) * sd / math.sqrt(n)
    return mean, mean - half, mean + half
