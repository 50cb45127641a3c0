"""The analysis document: tier 2 renders through the game that wrote it, and JSON keeps only plain values."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.interpret.analysis import json_ready, markdown_sections, render_markdown

TIER2 = {
    "game": "snake",
    "emergence": {
        "episodes": 1,
        "rules": {"eat_when_food": {"count": 2, "mean_prob": 0.5, "accuracy": 1.0, "by": {"tick": {"1": {"count": 2, "mean_prob": 0.5}}}}},
        "contexts": {"tick": ["1"]},
    },
    "counterfactuals": {
        "episodes": 1,
        "model": {"food_ahead": {"count": 0, "mandated": "EAT"}},
        "untrained": {"food_ahead": {"count": 0, "mandated": "EAT"}},
        "examples": {},
    },
}


def test_json_leaves_out_what_only_renders_need():
    analysis = {"tier2": dict(TIER2), "tier3": {"episodes": 3, "arrays": {"labels": np.zeros(3)}}, "meta": {"name": "x"}}
    clean = json_ready(analysis)
    assert "game" not in clean["tier2"] and "arrays" not in clean["tier3"]
    assert analysis["tier2"]["game"] == "snake" and "arrays" in analysis["tier3"]  # the in-memory dict is untouched
    json.dumps(clean)


def test_tier2_renders_through_its_game():
    lines = markdown_sections({"tier2": TIER2})
    assert lines[1].startswith("## Tier 2: rule emergence (1 held-out episodes")
    assert "| eat_when_food | 2 | 0.500 | 1.000 |" in "\n".join(lines)
    assert render_markdown({"meta": {"name": "x"}, "tier2": TIER2}).startswith("# Analysis: x\n")


def test_tier2_without_its_game_is_a_clear_error():
    with pytest.raises(GameGrammarError, match="which game"):
        markdown_sections({"tier2": {k: v for k, v in TIER2.items() if k != "game"}})
