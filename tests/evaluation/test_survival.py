"""Kaplan-Meier curves: censored runs count for as long as they were watched."""

from __future__ import annotations

import pytest

from gamegrammar.evaluation.survival import kaplan_meier, survival_at


def test_without_censoring_it_is_the_share_still_going():
    km = kaplan_meier([1, 2, 2, 4], [True, True, True, True])
    assert [row["survival"] for row in km["curve"]] == pytest.approx([0.75, 0.25, 0.25, 0.0])
    assert km["median"] == 2 and km["events"] == 4 and km["censored"] == 0
    assert [row["at_risk"] for row in km["curve"]] == [4, 3, 1, 1]


def test_censored_runs_leave_the_risk_set_without_an_event():
    # two break at tick 2; two are censored at tick 1 and tick 3; one breaks at tick 4
    km = kaplan_meier([2, 2, 1, 3, 4], [True, True, False, False, True])
    s = [row["survival"] for row in km["curve"]]
    assert s == pytest.approx([1.0, 1 - 2 / 4, 0.5, 0.0])  # at tick 2 four are at risk (the tick-1 censored one left)
    assert km["curve"][0]["censored"] == 1 and km["curve"][2]["events"] == 0
    assert survival_at(km, 0) == 1.0 and survival_at(km, 2) == pytest.approx(0.5) and survival_at(km, 99) == 0.0


def test_no_events_never_reach_the_median_and_the_interval_holds_the_curve():
    km = kaplan_meier([3, 5, 5], [False, False, False])
    assert km["median"] is None and all(row["survival"] == 1.0 for row in km["curve"])
    mixed = kaplan_meier([1, 2, 3, 3, 5, 8], [True, False, True, False, True, False])
    for row in mixed["curve"]:
        lo, hi = row["ci95"]
        assert 0 <= lo <= row["survival"] <= hi <= 1
    assert kaplan_meier([], [])["curve"] == []
    with pytest.raises(ValueError):
        kaplan_meier([1, 2], [True])
