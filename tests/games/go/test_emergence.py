"""Go's tier 2: its rule events match the written episode, the splits add up, and the probes' edits are captures."""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.games.go import GAME, GoConfig
from gamegrammar.games.go import emergence as em
from gamegrammar.model import GameGPT, preset

CONFIG = GoConfig(7, max_ticks=100)


@pytest.fixture(scope="module")
def episodes():
    return [GAME.play_episode(CONFIG, CodecConfig(10), "capture,random", 4, e).tokens for e in range(4)]


def test_rule_events_match_the_written_episode(episodes):
    for tokens in episodes:
        counts = Counter(e.rule for e in em.rule_events(tokens, CONFIG))
        plays = sum(1 for t in tokens if t[0].isupper() and t[0] != "V" and t[1:].isdigit())  # moves (V<n>: counts)
        assert counts["capture"] == tokens.count("TAKE") and counts["capture"] + counts["no_capture"] == plays
        assert counts["no_play_on_stone"] >= tokens.count("TICK") - 1 and counts["area_score"] == counts["result"] == 1


def test_tier2_splits_add_up_and_probes_are_captures(episodes):
    tokenizer = GameTokenizer(GAME.vocabulary(CONFIG))
    torch.manual_seed(0)
    model = GameGPT(preset("gg31k", vocab_size=len(tokenizer), tick_table=256, tick_id=tokenizer.ids["TICK"])).eval()
    ids = [tokenizer.encode(t) for t in episodes]
    result = em.tier2(model, ids, episodes, tokenizer, CONFIG)
    for rule, entry in result["emergence"]["rules"].items():
        assert 0 <= entry.get("mean_prob", 0) <= 1 or entry["count"] == 0
        for context, buckets in entry["by"].items():
            if context != "captured":
                assert sum(b["count"] for b in buckets.values()) == entry["count"], (rule, context)
    probes = em.make_probes(episodes, CONFIG)
    assert probes and all(p.mandated[0] == "TAKE" for p in probes)
    assert all(len(GAME.trace(p.tokens, CONFIG)) == p.tick + 1 for p in probes)  # the edited move is legal
    cf = result["counterfactuals"]["model"]["fill_last_liberty"]
    assert cf["count"] == len(probes) and 0 <= cf["mean_prob"] <= 1
    assert any("fill_last_liberty" in line for line in em.markdown(result))
