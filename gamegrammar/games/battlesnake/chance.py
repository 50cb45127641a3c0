"""The distributions Battlesnake's food spawns are drawn from, read off a written episode: exact training targets.

The standard map spawns food one cell at a time, each uniform over the cells still open to it (`rules.spawn_cells`:
not food, not a live snake, not beside a live head, nor a cell spawned on earlier in the tick), and writes the cells
in that order. So each SPAWN's X is drawn with probability (open cells in column x) / (open cells), and its Y,
given the column written, uniformly among that column's open rows. Whether food spawns at all is chance too
(`food_spawn_chance`); that choice is not a spawn's cell and keeps its drawn target.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import uniform_cell_targets
from gamegrammar.emergence.rule_emergence import traced_ticks
from gamegrammar.games.battlesnake.grammar import GrammarError, parse
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, spawn_cells
from gamegrammar.games.battlesnake.trace import trace


def spawn_distributions(tokens: Sequence[str], config: BattlesnakeConfig) -> list[tuple[int, dict[str, float]]]:
    """(index in `tokens`, {token: probability}) for each spawn's X and Y token, as far as the episode's ticks can be
    followed: `tokens` start at BOS and may stop anywhere (a training window's last episode is cut off)."""
    states = trace(tokens, config)
    out: list[tuple[int, dict[str, float]]] = []
    try:
        for item, _ in traced_ticks(parse(tokens), len(states)):
            open_cells = [*spawn_cells(states[item.number], config), *item.spawns]  # before this tick's spawns
            for cell, at in zip(item.spawns, item.spawn_at):
                out += [(i, dist) for i, dist in uniform_cell_targets(open_cells, at, cell[0], at + 1) if i < len(tokens)]
                open_cells.remove(cell)
    except GrammarError:  # the cut-off tick at a window's end
        pass
    return out
