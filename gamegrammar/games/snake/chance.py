"""The distributions Snake's chance draws from, read off a written episode: exact training targets for its spawns.

A food spawn is one draw, uniform over the cells the grown body leaves empty (`rules.empty_cells`). Its tokens
written out are that draw's one sample, so almost all of their loss is noise no model can remove, and the part
that can be learned (no mass on the body) is a weak, one-sided signal. The state at every spawn is known from
the episode itself (`trace`), so the whole distribution can be shown instead: the spawn's X is drawn with
probability (empty cells in column x) / (empty cells), and its Y, given the column written, uniformly among that
column's empty rows (in the spawn-column design after the column's words, which the column decides).
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import uniform_cell_targets
from gamegrammar.emergence.rule_emergence import traced_ticks
from gamegrammar.games.snake.grammar import GrammarError, parse
from gamegrammar.games.snake.rules import SnakeConfig, empty_cells
from gamegrammar.games.snake.trace import trace


def spawn_distributions(tokens: Sequence[str], config: SnakeConfig) -> list[tuple[int, dict[str, float]]]:
    """(index in `tokens`, {token: probability}) for each spawn's X and Y token, as far as the episode's ticks can be
    followed: `tokens` start at BOS and may stop anywhere (a training window's last episode is cut off)."""
    states = trace(tokens, config)
    out: list[tuple[int, dict[str, float]]] = []
    try:
        for item, _ in traced_ticks(parse(tokens), len(states)):
            at = item.positions.get("spawn")
            if at is not None and item.spawn is not None:
                y_at = item.positions.get("spawn_y", at + 1)  # after the column's words in the spawn-column design
                found = uniform_cell_targets(empty_cells(states[item.number].body, config), at, item.spawn[0], y_at)
                out += [(i, dist) for i, dist in found if i < len(tokens)]
    except GrammarError:  # the cut-off tick at a window's end
        pass
    return out
