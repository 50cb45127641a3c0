"""spawn_distributions: each food spawn's exact distribution is the standard map's open cells, in spawn order."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.chance import spawn_distributions, start_distributions, start_offsets, written_set_targets
from gamegrammar.games.battlesnake.grammar import BattlesnakeCodec, keyframe_tokens
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, initial_state, spawn_cells

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
    assert GAME.chance_targets(record.tokens, BOARD) == start_distributions(record.tokens, BOARD) + whole


def opening_probability(tokens: list[str], config: BattlesnakeConfig) -> float:
    return math.prod(dist[tokens[at]] for at, dist in start_distributions(tokens, config))


def test_the_start_targets_are_the_distribution_the_duel_opening_is_drawn_from():
    """Every opening of a duel on 11x11 (96: 8 cells for S0, 3 left in its group for S1, 2 x 2 diagonal foods), by the
    product of its targets, against the engine's frequencies in 8000 starts (noise alone gives a TV near 0.04)."""
    config, n = BattlesnakeConfig(11, 11, 2), 8000
    seen = Counter(tuple(["BOS", *keyframe_tokens(initial_state(config, 9, e))]) for e in range(n))
    model = {opening: opening_probability(list(opening), config) for opening in seen}
    assert len(seen) == 96 and sum(model.values()) == pytest.approx(1.0)
    assert 0.5 * sum(abs(count / n - model[o]) for o, count in seen.items()) < 0.08
    opening = next(iter(seen))
    assert [at for at, _ in start_distributions(list(opening), config)] == list(start_offsets(config))
    assert start_offsets(config) == (3, 4, 10, 11, 17, 18, 19, 20, 21, 22)  # S0's cell, S1's, three food


def test_start_targets_cover_each_head_and_on_a_random_start_no_food():
    random_start = BattlesnakeConfig(6, 8, 3)
    tokens = ["BOS", *keyframe_tokens(initial_state(random_start, 1, 0))]
    found = start_distributions(tokens, random_start)
    assert [at for at, _ in found] == [3, 4, 10, 11, 17, 18] == list(start_offsets(random_start))  # three snakes, no food
    assert all(tokens[at] in dist and sum(dist.values()) == pytest.approx(1.0) for at, dist in found)
    assert start_distributions(tokens[:9], random_start) == []  # an opening cut off at a window's end keeps its draws
    assert start_distributions(["BOS", "TICK"], random_start) == []


def test_written_set_targets_condition_on_the_cells_written_before():
    outcomes = {((0, 1), (2, 3)): 0.5, ((0, 1), (4, 3)): 0.25, ((1, 1), (2, 3)): 0.25}
    assert written_set_targets(outcomes, [(0, 1), (4, 3)], 10) == [
        (10, {"X0": 0.75, "X1": 0.25}),
        (11, {"Y1": 1.0}),
        (12, {"X2": 2 / 3, "X4": 1 / 3}),
        (13, {"Y3": 1.0}),
    ]
    assert written_set_targets(outcomes, [(3, 3), (0, 1)], 0) == [(0, {"X0": 0.75, "X1": 0.25})]  # impossible: stop


@pytest.mark.parametrize("config", [BOARD, BattlesnakeConfig(11, 11, 2, max_ticks=60)], ids=["random start", "fixed start"])
def test_the_cells_design_draws_each_cell_word_from_the_joint(config):
    """One target per cell word, at the word: the same draw as the pair design's column then row (its column and
    row margins are the pair targets), every start and spawn cell, on the word written."""
    from gamegrammar.games.battlesnake.grammar import as_pairs, cell_of_word

    codec = BattlesnakeCodec(cells=True, keyframe_interval=4)
    marks = dict(GAME.chance_tokens(config, codec))
    for episode in range(4):
        record = GAME.play_episode(config, codec, "greedy", 5, episode)
        tokens = record.tokens
        pairs, origin = as_pairs(tokens)
        want = dict(GAME.chance_targets(pairs, config))
        found = GAME.chance_targets(tokens, config)
        assert found and all(cell_of_word(tokens[i]) is not None for i, _ in found)
        assert sorted(i for i, _ in found) == sorted(origin[i] for i in want if pairs[i].startswith("X"))
        for i, dist in found:
            assert math.isclose(sum(dist.values()), 1.0) and dist[tokens[i]] > 0
            x_at = origin.index(i)
            columns: Counter = Counter()
            for word, p in dist.items():
                columns[f"X{cell_of_word(word)[0]}"] += p  # type: ignore[index]
            assert columns.keys() == want[x_at].keys() and all(math.isclose(columns[k], v) for k, v in want[x_at].items())
            x = cell_of_word(tokens[i])[0]  # type: ignore[index]
            rows = {f"Y{cell_of_word(w)[1]}": p / columns[f"X{x}"] for w, p in dist.items() if cell_of_word(w)[0] == x}  # type: ignore[index]
            assert rows.keys() == want[x_at + 1].keys() and all(math.isclose(rows[k], v) for k, v in want[x_at + 1].items())
        start = {i for i, _ in found if i < tokens.index("TICK")}
        assert start == set(marks["BOS"])  # the offsets name exactly the opening's chance words
        spawned = {i for i, _ in found if i > tokens.index("TICK")}
        assert spawned == {i + 1 for i, t in enumerate(tokens) if t == "SPAWN"} and marks["SPAWN"] == (1,)
