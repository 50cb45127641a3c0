"""The distributions Battlesnake's chance draws from, read off a written episode: exact training targets.

The start: each snake's start cell is drawn uniformly from what `rules.start_head_options` leaves it given the
snakes before it, so its X has probability (options in column x) / (options) and its Y, given the column written,
is uniform among that column's options. The start food (fixed starts: square boards from 7x7) is written in
keyframe order (`sorted_food`), not in the order drawn, so each of its cells is trained on the distribution of
the next written cell given those written before it, over every food the start could place
(`rules.start_food_outcomes`). A random start's food keeps its drawn targets.

The standard map spawns food one cell at a time, each uniform over the cells still open to it (`rules.spawn_cells`:
not food, not a live snake, not beside a live head, nor a cell spawned on earlier in the tick), and writes the cells
in that order. So each SPAWN's X is drawn with probability (open cells in column x) / (open cells), and its Y,
given the column written, uniformly among that column's open rows. Whether food spawns at all is chance too
(`food_spawn_chance`); that choice is not a spawn's cell and keeps its drawn target.

In the cells design (`BattlesnakeCodec(cells=True)`) a cell is one word, drawn from the joint distribution over
cells: the same draws, not factored into a column and a row.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamegrammar.core.gamespec import uniform_cell_targets
from gamegrammar.emergence.rule_emergence import traced_ticks
from gamegrammar.games.battlesnake.grammar import GrammarError, Keyframe, as_pairs, cell_of_word, cell_word, parse
from gamegrammar.games.battlesnake.rules import (
    START_LENGTH,
    BattlesnakeConfig,
    Cell,
    centre_food_only,
    spawn_cells,
    start_food_outcomes,
    start_head_options,
)
from gamegrammar.games.battlesnake.trace import trace


def chance_distributions(tokens: Sequence[str], config: BattlesnakeConfig) -> list[tuple[int, dict[str, float]]]:
    """`GameSpec.chance_targets`: the start's chance tokens, then each spawn's (a cell word's where they are written)."""
    if not any(cell_of_word(t) for t in tokens):
        return [*start_distributions(tokens, config), *spawn_distributions(tokens, config)]
    pairs, origin = as_pairs(tokens)
    found = [*start_distributions(pairs, config, joint=True), *spawn_distributions(pairs, config, joint=True)]
    return [(origin[i], dist) for i, dist in found]


def _cell_targets(cells: Sequence[Cell], x_at: int, column: int, joint: bool) -> list[tuple[int, dict[str, float]]]:
    """One cell drawn uniformly from `cells`, written at x_at: `uniform_cell_targets`, or one cell word's target."""
    if not joint:
        return uniform_cell_targets(cells, x_at, column, x_at + 1)
    return [(x_at, {cell_word(c): 1 / len(cells) for c in sorted(cells)})] if cells else []


def start_offsets(config: BattlesnakeConfig, cells: bool = False) -> tuple[int, ...]:
    """Where an opening keyframe writes the start's chance, counted from BOS (`GameSpec.chance_tokens`): each snake's
    start cell in `BOS SNAP (Sk Xx Yy LEN3 H100 B_S B_S)+ FOOD (Xx Yy)*`, then on a fixed start each food's cell (one per
    snake and the centre, or the centre alone: a fixed start's count of food is set by the board). `cells`: a cell is
    one word."""
    width = 1 if cells else 2  # the words of a cell
    per_snake = 3 + width + START_LENGTH - 1  # Sk, the head, LENn Hh, then a step per segment after the head
    heads = [2 + per_snake * k + 1 + o for k in range(config.num_snakes) for o in range(width)]
    if not config.fixed_start:
        return tuple(heads)
    food = 1 if centre_food_only(config) else config.num_snakes + 1
    first = 2 + per_snake * config.num_snakes + 1
    return (*heads, *range(first, first + width * food))


def start_distributions(tokens: Sequence[str], config: BattlesnakeConfig, joint: bool = False) -> list[tuple[int, dict[str, float]]]:
    """(index in `tokens`, {token: probability}) for each start cell's X and Y and, on a fixed start, each start
    food's, once the opening keyframe is written whole (`tokens` start at BOS; one cut off inside its opening, at a
    training window's end, keeps its drawn targets there). `joint`: each cell's one target over cell words, at its X."""
    try:
        opening = next(iter(parse(tokens)))
    except (GrammarError, StopIteration):  # cut off inside the opening keyframe
        return []
    if not isinstance(opening, Keyframe):
        return []
    heads = [frame.head for frame in opening.snakes]
    if [frame.snake for frame in opening.snakes] != list(range(config.num_snakes)):
        return []  # not a start the rules write (a corpus episode always is)
    out: list[tuple[int, dict[str, float]]] = []
    for k, frame in enumerate(opening.snakes):
        out += _cell_targets(start_head_options(heads[:k], config), frame.at + 1, frame.head[0], joint)
    if config.fixed_start:
        out += written_set_targets(start_food_outcomes(heads, config), opening.food, opening.food_at + 1, joint)
    return [(i, dist) for i, dist in out if i < len(tokens)]


def written_set_targets(
    outcomes: dict[tuple[Cell, ...], float], written: Sequence[Cell], at: int, joint: bool = False
) -> list[tuple[int, dict[str, float]]]:
    """Targets of cells written `Xx Yy` from `at` on, one outcome of `outcomes` (cell tuples with probabilities): each
    X over the outcomes that agree with the cells written before it, each Y over those that also share its column.
    `joint`: each cell's one target over cell words, at its X, over the outcomes that agree with the cells before it."""
    out: list[tuple[int, dict[str, float]]] = []
    for j, (x, _) in enumerate(written):
        agree = {o: p for o, p in outcomes.items() if len(o) > j and list(o[:j]) == list(written[:j])}
        total = sum(agree.values())
        if not total:
            break  # a food the start could not place: nothing after it is read
        if joint:
            words: dict[str, float] = {}
            for o, p in agree.items():
                words[cell_word(o[j])] = words.get(cell_word(o[j]), 0.0) + p / total
            out.append((at + 2 * j, dict(sorted(words.items()))))
            continue
        columns: dict[str, float] = {}
        for o, p in agree.items():
            columns[f"X{o[j][0]}"] = columns.get(f"X{o[j][0]}", 0.0) + p / total
        rows: dict[str, float] = {}
        in_column = sum(p for o, p in agree.items() if o[j][0] == x)
        for o, p in agree.items():
            if o[j][0] == x:
                rows[f"Y{o[j][1]}"] = rows.get(f"Y{o[j][1]}", 0.0) + p / in_column
        out.append((at + 2 * j, dict(sorted(columns.items()))))
        if rows:
            out.append((at + 2 * j + 1, dict(sorted(rows.items()))))
    return out


def spawn_distributions(tokens: Sequence[str], config: BattlesnakeConfig, joint: bool = False) -> list[tuple[int, dict[str, float]]]:
    """(index in `tokens`, {token: probability}) for each spawn's X and Y token, as far as the episode's ticks can be
    followed: `tokens` start at BOS and may stop anywhere (a training window's last episode is cut off). `joint`: each
    spawn's one target over cell words, at its X."""
    states = trace(tokens, config)
    out: list[tuple[int, dict[str, float]]] = []
    try:
        for item, _ in traced_ticks(parse(tokens), len(states)):
            open_cells = [*spawn_cells(states[item.number], config), *item.spawns]  # before this tick's spawns
            for cell, at in zip(item.spawns, item.spawn_at):
                out += [(i, dist) for i, dist in _cell_targets(open_cells, at, cell[0], joint) if i < len(tokens)]
                open_cells.remove(cell)
    except GrammarError:  # the cut-off tick at a window's end
        pass
    return out
