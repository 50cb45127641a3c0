"""The dream report renders from its dict alone, with or without its optional sections."""

from __future__ import annotations

import json

from gamegrammar.evaluation.dream_report import render_markdown, write_report
from gamegrammar.evaluation.survival import kaplan_meier


def _report() -> dict:
    horizon = kaplan_meier([1, 3, 3], [True, False, True])
    horizon["unbroken_dreams"] = {"n": 1, "rate": 1 / 3, "ci95": [0.06, 0.79]}
    return {
        "meta": {"name": "r", "agent": "greedy"},
        "dreams": {"n": 3, "stops": {"end": 2, "broken": 1}, "mean_ticks": 2.3, "max_ticks": 3, "tokens": 60},
        "agreement": {
            "ticks": 7,
            "agreeing": 5,
            "rate": 5 / 7,
            "ci95": [0.36, 0.92],
            "broken_rules": {"move_follows_input": 2},
            "by_tick": [{"ticks": "1-20", "n": 7, "agreeing": 5, "rate": 5 / 7}],
        },
        "horizon": horizon,
        "real_games": {"n": 3, "still_running": [1.0, 0.67, 0.33]},
    }


def test_a_report_without_fidelity_or_novelty_renders():
    md = render_markdown(_report())
    assert "71.4% [36.0%, 92.0%]" in md and "`move_follows_input` | 2" in md
    assert "Median horizon: 3 ticks" in md and "Fidelity" not in md and "Novelty" not in md
    assert "| 1 | 3 | 66.7% |" in md  # S(1) = 2/3 with all three at risk


def test_write_report_writes_all_three(tmp_path):
    path = write_report(_report(), tmp_path / "out")
    assert path.read_text().startswith("# Dream report: r")
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["plots"] == ["survival.png"] and (tmp_path / "out" / "survival.png").stat().st_size > 1000
