"""Snake 0 driven from outside: its place, fate, length and lifetime agree with the scalar engine's states."""

from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.batch_agents import AGENT_NAMES, lineup_codes
from gamegrammar.games.battlesnake.control import FATES, play_controlled
from gamegrammar.games.battlesnake.grammar import DIE_TOKEN, BattlesnakeCodec
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig

GAME = load_game("battlesnake")


def reference(config: BattlesnakeConfig, lineup: list[str], seed: int, episode: int) -> tuple[int, str, int, int]:
    """(place, fate, length, ticks) of snake 0 read off the scalar engine's states."""
    record = GAME.play_episode(config, BattlesnakeCodec(), ",".join(lineup), seed, episode)
    states = record.states
    out = [next((t for t, s in enumerate(states) if not s.snakes[k].alive), record.ticks + 1) for k in range(config.num_snakes)]
    place = 1 + sum(out[k] > out[0] for k in range(1, config.num_snakes))
    last = states[-1].snakes[0]
    if last.alive:
        fate = "WIN" if record.end == "WIN" else "TIMEOUT"
    elif record.end == "DRAW" and out[0] == record.ticks:
        fate = "DRAW"
    else:
        fate = DIE_TOKEN[last.cause]
    return place, fate, last.length, min(out[0], record.ticks)


@pytest.mark.parametrize(
    "config", [BattlesnakeConfig(7, 7, 4, max_ticks=60), BattlesnakeConfig(5, 5, 2, max_ticks=30), BattlesnakeConfig(5, 6, 1, max_ticks=25)]
)
def test_snake_zeros_lot_matches_the_scalar_engine(config):
    mix = {"random": 0.3, "safe": 0.2, "greedy": 0.3, "space": 0.2}
    episodes = np.arange(40)
    result = play_controlled(config, BattlesnakeCodec(), 3, episodes, "greedy", mix)
    codes = lineup_codes(mix, 3, episodes, config.num_snakes)
    seen = set()
    for e in episodes:
        lineup = ["greedy", *(AGENT_NAMES[c] for c in codes[e, 1:])]
        place, fate, length, ticks = reference(config, lineup, 3, int(e))
        assert (int(result.place[e]), FATES[result.fate[e]], int(result.score[e]), int(result.ticks[e])) == (place, fate, length, ticks)
        seen.add(fate)
    assert len(seen) >= 2


def test_a_controller_that_moves_into_its_neck_is_refused():
    config = BattlesnakeConfig(7, 7, 2, max_ticks=20)

    def into_the_neck(games, mask, draws):
        if mask.all():
            return np.zeros(len(games), np.int64)
        return np.argmin(mask, axis=1)  # the one move the mask rules out

    with pytest.raises(GameGrammarError, match="forbids"):
        play_controlled(config, BattlesnakeCodec(), 0, np.arange(4), into_the_neck, {"greedy": 1.0})
