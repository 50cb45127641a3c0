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
