"""The distributions Snake's chance draws from, read off a written episode: exact training targets for its spawns.

A food spawn is one draw, uniform over the cells the grown body leaves empty (`rules.empty_cells`). Its tokens
written out are that draw's one sample, so almost all of their loss is noise no model can remove, and the part
that can be learned (no mass on the body) is a weak, one-sided signal. The state at every spawn is known from
the episode itself (`trace`), so the whole distribution can be shown instead: the spawn's X is drawn with
probability (empty cells in column x) / (empty cells), and its Y, given the column written, uniformly among that
column's empty rows (in the spawn-column design after the column's words, which the column decides).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gamegrammar.games.snake.grammar import GrammarError, Keyframe, parse
from gamegrammar.games.snake.rules import SnakeConfig, empty_cells
from gamegrammar.games.snake.trace import trace


def spawn_distributions(tokens: Sequence[str], config: SnakeConfig) -> list[tuple[int, dict[str, float]]]:
    """(index in `tokens`, {token: probability}) for each spawn's X and Y token, as far as the episode's ticks can be
    followed: `tokens` start at BOS and may stop anywhere (a training window's last episode is cut off)."""
    states = trace(tokens, config)
    out: list[tuple[int, dict[str, float]]] = []
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                continue
            if item.number >= len(states):  # past what the rules could follow
                break
            at = item.positions.get("spawn")
            if at is None or item.spawn is None:
                continue
            cells = empty_cells(states[item.number].body, config)
            if not cells:
                continue
            columns = Counter(x for x, _ in cells)
            out.append((at, {f"X{x}": n / len(cells) for x, n in sorted(columns.items())}))
            x = item.spawn[0]
            rows = [y for cx, y in cells if cx == x]
            at_y = item.positions.get("spawn_y", at + 1)
            if rows and at_y < len(tokens):
                out.append((at_y, {f"Y{y}": 1 / len(rows) for y in rows}))
    except GrammarError:  # the cut-off tick at a window's end
        pass
    return out
