"""Kaplan-Meier survival curves: how long something lasts when some runs end before it happens.

A dream's horizon is the number of ticks until its first broken rule; a dream that ends (the game is
over) or is cut off without one tells only that the horizon is longer than its ticks: it is censored
there. Counting censored dreams as "never broke" would flatter short dreams, and dropping them would
bias towards the ones that broke; Kaplan-Meier uses each for exactly as long as it was watched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

Z95 = 1.96


def kaplan_meier(times: Sequence[int], events: Sequence[bool]) -> dict[str, Any]:
    """The survival curve S(t) = P(no event through tick t) of discrete times, each an event or censored there.

    times[i]: the tick of run i's event (events[i] True) or the last tick it was watched (False). A run is at
    risk at tick t when times[i] >= t. Returns `curve` (one row per tick 1..max: at_risk, events, censored,
    survival and its 95% interval by Greenwood's formula), `median` (the first tick with S <= 0.5, None if
    the curve never falls that low) and the counts.
    """
    t = np.asarray(times, dtype=np.int64)
    e = np.asarray(events, dtype=bool)
    if t.shape != e.shape:
        raise ValueError(f"times and events differ in length: {t.shape} vs {e.shape}")
    curve = []
    survival, greenwood, median = 1.0, 0.0, None
    for tick in range(1, int(t.max()) + 1 if len(t) else 1):
        at_risk = int((t >= tick).sum())
        died = int(((t == tick) & e).sum())
        if at_risk:
            survival *= 1 - died / at_risk
            greenwood += died / (at_risk * (at_risk - died)) if died < at_risk else 0.0
        half = Z95 * survival * math.sqrt(greenwood)
        curve.append(
            {
                "tick": tick,
                "at_risk": at_risk,
                "events": died,
                "censored": int(((t == tick) & ~e).sum()),
                "survival": survival,
                "ci95": [max(0.0, survival - half), min(1.0, survival + half)],
            }
        )
        if median is None and survival <= 0.5:
            median = tick
    return {"runs": len(t), "events": int(e.sum()), "censored": int((~e).sum()), "median": median, "curve": curve}


def survival_at(km: dict[str, Any], tick: int) -> float:
    """S(tick) of a `kaplan_meier` result (1 before the first tick; the last value after the curve ends)."""
    if tick < 1 or not km["curve"]:
        return 1.0
    return km["curve"][min(tick, len(km["curve"])) - 1]["survival"]
