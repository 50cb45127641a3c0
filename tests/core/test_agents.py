"""The agent mix of a corpus, for any game."""

from __future__ import annotations

import pytest

from gamegrammar.core.agents import agent_for_episode, parse_agent_mix
from gamegrammar.core.errors import GameGrammarError

KNOWN = ("random", "greedy", "wall_follower")


def test_agent_mix_parsing_and_errors():
    assert parse_agent_mix("random=1,greedy=3", KNOWN) == {"random": 0.25, "greedy": 0.75}
    assert parse_agent_mix("greedy", KNOWN) == {"greedy": 1.0}
    with pytest.raises(GameGrammarError, match="unknown agent 'smart'"):
        parse_agent_mix("smart=1", KNOWN)
    with pytest.raises(GameGrammarError, match="positive"):
        parse_agent_mix("random=0,greedy=0", KNOWN)
    with pytest.raises(GameGrammarError, match="not a number"):
        parse_agent_mix("random=lots", KNOWN)


def test_agent_mix_is_respected():
    mix = {"random": 0.5, "greedy": 0.3, "wall_follower": 0.2}
    picks = [agent_for_episode(mix, 1, ep) for ep in range(5000)]
    for name, weight in mix.items():
        assert abs(picks.count(name) / 5000 - weight) < 0.03
