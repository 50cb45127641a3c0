"""spawn_distributions: each food spawn's exact distribution is the standard map's open cells, in spawn order."""

from __future__ import annotations

from collections import Counter

import pytest

from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.chance import spawn_distributions
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, spawn_cells

BOARD = BattlesnakeConfig(7, 7, 2, minimum_food=2, food_spawn_chance=40, max_ticks=60)


def engine_targets(record, config: BattlesnakeConfig) -> list[dict[str, float]]:
    """From the engine's states: each tick's open cells before its spawns (after them, plus the cells spawned on),
    narrowed by each spawn in the order drawn."""
    out = []
    for t, state in enumerate(record.states[1:], start=1):
        spawned = [(e.payload["x"], e.payload["y"]) for e in record.events if e.tick == t and e.type == "SPAWN"]
        open_cells = set(spawn_cells(state, config)) | set(spawned)
        for x_drawn, y_drawn in spawned:
            columns = Counter(x for x, _ in open_cells)
            out.append({f"X{x}": n / len(open_cells) for x, n in columns.items()})
            rows = [y for x, y in open_cells if x == x_drawn]
            out.append({f"Y{y}": 1 / len(rows) for y in rows})
            open_cells.discard((x_drawn, y_drawn))
    return out


@pytest.mark.parametrize("codec", [BattlesnakeCodec(), BattlesnakeCodec(keyframe_interval=4)], ids=["plain", "keyframes"])
def test_each_spawn_is_the_engines_open_cells(codec):
    spawns = 0
    for episode in range(6):
        record = GAME.play_episode(BOARD, codec, ("random", "greedy", "space")[episode % 3], 5, episode)
        found = spawn_distributions(record.tokens, BOARD)
        expected = engine_targets(record, BOARD)
        assert len(found) == len(expected)
        for (at, dist), want in zip(found, expected):
            assert dist.keys() == want.keys() and list(dist.values()) == pytest.approx([want[k] for k in dist])
            assert record.tokens[at] in dist
        spawns += len(found) // 2
    assert spawns > 10


def test_a_cut_off_episode_gives_the_spawns_it_holds_whole():
    record = GAME.play_episode(BOARD, BattlesnakeCodec(), "greedy", 5, 1)
    whole = spawn_distributions(record.tokens, BOARD)
    for cut in range(0, len(record.tokens), 7):
        part = spawn_distributions(record.tokens[:cut], BOARD)
        assert part == whole[: len(part)] and all(at < cut for at, _ in part)
    assert GAME.chance_targets(record.tokens, BOARD) == whole
