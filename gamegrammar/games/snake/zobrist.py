"""Snake's state identity for novelty: Zobrist features of a state, their change per tick, and a batch path.

Two states are the same when the snake's body (cells, in order from head to tail), its
direction and the food cell are: what a keyframe shows, less the tick (the clock, not the
position) and the score (always length - 1 in a game the rules play). Features:
- every body cell holds one code: HEAD for the head, otherwise a pointer, the direction from
  the segment to the one before it (towards the head), so the order is part of the key: the
  head and the pointers give the whole chain;
- the food cell holds FOOD (no feature once the board is full);
- one extra slot after the cells holds the direction (code 0..3), which decides which input is
  a reversal (a one-cell snake, or one that has just died, has no neck to show it).

A tick changes a handful of features (`feature_changes`): the head enters a cell (HEAD there,
the old head's HEAD becomes a pointer), the tail leaves its cell unless the snake ate, the food
moves after an eat, the direction turns. A death leaves the body where it was: the state after it has
the key of the one before unless the direction turned.

`state_keys_batch` computes the same keys for whole valid episodes straight from token ids,
with arrays: the tail that leaves at a tick is the head of `length` moves earlier, so every
tick's change is a few table lookups, and the keys are prefix XORs of the changes.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from gamegrammar.core.gamespec import CodecConfig
from gamegrammar.core.zobrist import Feature, OutsideSpace, ZobristTable, chain
from gamegrammar.games.snake import grammar
from gamegrammar.games.snake.rules import Cell, Direction, SnakeConfig, SnakeState

HEAD = 0
FOOD = 1 + len(Direction)  # codes 1..4: the pointer 1 + d, d the direction towards the segment before
CODES = FOOD + 1
_POINTER = {d.delta: 1 + int(d) for d in Direction}


def feature_space(config: SnakeConfig) -> tuple[int, int]:
    """Every cell, row-major, then the direction slot; codes HEAD, the four pointers, FOOD."""
    return config.cells + 1, CODES


def _slot(cell: Cell, config: SnakeConfig) -> int:
    if not config.in_bounds(cell):
        raise OutsideSpace(f"cell {cell} is off the {config.width}x{config.height} board")
    return cell[1] * config.width + cell[0]


def _pointer(cell: Cell, towards: Cell) -> int:
    code = _POINTER.get((towards[0] - cell[0], towards[1] - cell[1]))
    if code is None:
        raise OutsideSpace(f"body cells {cell} and {towards} are not adjacent")
    return code


def state_features(state: SnakeState, config: SnakeConfig) -> list[Feature]:
    body = state.body
    out = [(_slot(body[0], config), HEAD)]
    out += [(_slot(cell, config), _pointer(cell, before)) for before, cell in itertools.pairwise(body)]
    if state.food is not None:
        out.append((_slot(state.food, config), FOOD))
    out.append((config.cells, int(state.direction)))
    return out


def feature_changes(before: SnakeState, after: SnakeState, config: SnakeConfig) -> tuple[list[Feature], list[Feature]]:
    """(removed, added) features of the tick from `before` to `after`, from what the tick did."""
    removed: list[Feature] = []
    added: list[Feature] = []
    if after.direction != before.direction:
        removed.append((config.cells, int(before.direction)))
        added.append((config.cells, int(after.direction)))
    if after.head != before.head:  # MOVE or EAT (a death leaves the body where it was)
        old, new = before.head, after.head
        removed.append((_slot(old, config), HEAD))
        added += [(_slot(new, config), HEAD), (_slot(old, config), _pointer(old, new))]
        if after.length == before.length:  # no eat: the tail leaves its cell (a one-cell snake's tail is its old head)
            tail = before.body[-1]
            removed.append((_slot(tail, config), _pointer(tail, before.body[-2] if before.length > 1 else new)))
    if after.food != before.food:
        if before.food is not None:
            removed.append((_slot(before.food, config), FOOD))
        if after.food is not None:
            added.append((_slot(after.food, config), FOOD))
    return removed, added


# ---------------------------------------------------------------- the batch path


READS = ("tail_events",)  # the game's grammar options the batch path reads (FREE Xx Yy before a tick's outcome)


def _readable(codec: CodecConfig) -> bool:
    """Full salience, and every other option of the game's own at its default: the token layouts the batch path reads."""
    base = {f.name for f in dataclasses.fields(CodecConfig)}
    extra = [f for f in dataclasses.fields(codec) if f.name not in base and f.name not in READS]
    return codec.min_salience == 0 and all(getattr(codec, f.name) == f.default for f in extra)


def state_keys_batch(
    episodes: Sequence[np.ndarray], config: SnakeConfig, codec: CodecConfig, table: ZobristTable
) -> tuple[np.ndarray, np.ndarray] | None:
    """The key of every state of whole valid episodes (token ids), episode after episode, and how many each has.

    The same keys as `trace` with `feature_changes` (the tests check it); None for a codec whose
    layout this path does not read (the caller then follows each episode through `trace`).
    """
    if not _readable(codec):
        return None
    if not len(episodes):
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    vocab = grammar.vocabulary(config)
    tid = {t: i for i, t in enumerate(vocab)}
    xval = np.full(len(vocab), -1, np.int64)
    yval = np.full(len(vocab), -1, np.int64)
    for x in range(config.width):
        xval[tid[f"X{x}"]] = x
    for y in range(config.height):
        yval[tid[f"Y{y}"]] = y
    lengths = np.array([len(e) for e in episodes], np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    flat = np.concatenate([np.asarray(e) for e in episodes]).astype(np.int64)
    n = len(episodes)

    tpos = np.flatnonzero(flat == tid["TICK"])
    ep = np.searchsorted(starts, tpos, side="right") - 1
    counts = np.bincount(ep, minlength=n)

    # the first keyframes: SNAP PLAYER Xx Yy DIR_d LENn BODY b{n-1} FOOD [Xx Yy] SCORE Vs after BOS
    init_dir = flat[starts + 5] - tid["DIR_U"]  # DIR_U, DIR_D, DIR_L, DIR_R: Direction order
    body_len = flat[starts + 6] - tid["LEN1"] + 1
    segment = _ranks(body_len)  # j: the j-th body cell of its episode, head first
    owner = np.repeat(np.arange(n), body_len)
    step = np.zeros(len(segment), np.int64)  # the direction from cell j - 1 to cell j (B_d tokens), 0 for the head
    later = segment > 0
    step[later] = flat[starts[owner[later]] + 7 + segment[later]] - tid["B_U"]
    dx = np.where(later, np.array([d.delta[0] for d in Direction])[step], 0)
    dy = np.where(later, np.array([d.delta[1] for d in Direction])[step], 0)
    bx = xval[flat[starts + 3]][owner] + _segment_cumsum(dx, body_len)
    by = yval[flat[starts + 4]][owner] + _segment_cumsum(dy, body_len)
    opposite = np.array([int(d.opposite) for d in Direction])
    food_at = starts + 8 + body_len - 1  # the FOOD word
    fed = flat[food_at + 1] != tid["SCORE"]
    slots = np.concatenate(
        [by * config.width + bx, (yval[flat[food_at + 2]] * config.width + xval[flat[food_at + 1]])[fed], np.full(n, config.cells)]
    )
    codes = np.concatenate([np.where(later, 1 + opposite[step], HEAD), np.full(int(fed.sum()), FOOD), init_dir])
    initial_keys = table.hash_many(slots, codes, np.concatenate([owner, np.flatnonzero(fed), np.arange(n)]), n)

    # every tick's input, outcome and new head (after FREE Xx Yy, the cell the tail leaves, with the tail-events option)
    inputs = flat[tpos + 1] - tid["INPUT_U"]  # INPUT_U, INPUT_D, INPUT_L, INPUT_R: Direction order
    at = tpos + 2
    if "FREE" in tid:
        at = at + 3 * (flat[at] == tid["FREE"])
    outcome = flat[at]
    eat = outcome == tid["EAT"]
    moved = eat | (outcome == tid["MOVE"])
    mpos = (at + 1 + eat)[moved]
    mx, my = xval[flat[mpos]], yval[flat[mpos + 1]]
    mep = ep[moved]

    # the head history of each episode: its initial body (tail first), then each new head
    moves = np.bincount(mep, minlength=n)
    hist_len = body_len + moves
    hoff = np.concatenate([[0], np.cumsum(hist_len)[:-1]])
    hx = np.zeros(int(hist_len.sum()), np.int64)
    hy = np.zeros_like(hx)
    init_at = hoff[owner] + body_len[owner] - 1 - segment  # tail first
    hx[init_at], hy[init_at] = bx, by
    move_rank = _ranks(moves)  # i: the i-th move of its episode
    new = hoff[mep] + body_len[mep] + move_rank
    hx[new], hy[new] = mx, my
    cur = new - 1
    meat = eat[moved]
    eats_before = np.cumsum(meat) - meat
    eats_before -= np.repeat(np.concatenate([[0], np.cumsum(np.bincount(mep[meat], minlength=n))[:-1]]), moves)
    tail = hoff[mep] + move_rank - eats_before  # the snake's length is body_len + eats_before
    pointer = _pointers(hx, hy)

    def slot(i: np.ndarray) -> np.ndarray:
        return hy[i] * config.width + hx[i]

    keys = table.keys
    delta = np.zeros(len(tpos), np.uint64)
    head_change = keys[slot(new), HEAD] ^ keys[slot(cur), HEAD] ^ keys[slot(cur), pointer(cur, new)]
    tail_change = np.where(meat, np.uint64(0), keys[slot(tail), pointer(tail, tail + 1)])
    food_change = np.where(meat, keys[slot(new), FOOD], np.uint64(0))  # an eat's head is on the food it eats
    delta[moved] = head_change ^ tail_change ^ food_change
    spos = np.flatnonzero(flat == tid["FOOD_SPAWN"])
    delta[np.searchsorted(tpos, spos, side="right") - 1] ^= keys[yval[flat[spos + 2]] * config.width + xval[flat[spos + 1]], FOOD]

    # the direction: a move's own; a death turns to the input unless it is a reversal
    direction = np.full(len(tpos), -1, np.int64)
    direction[moved] = pointer(cur, new) - 1
    before = np.roll(direction, 1)
    episode_first = np.ones(len(tpos), bool)
    episode_first[1:] = ep[1:] != ep[:-1]
    before[episode_first] = init_dir[ep[episode_first]]
    direction = np.where(moved, direction, np.where(inputs == opposite[before], before, inputs))
    delta ^= keys[config.cells, before] ^ keys[config.cells, direction]
    return chain(initial_keys, delta, counts), counts + 1


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """0..size-1 for each group, groups after each other."""
    total = int(sizes.sum())
    return np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def _segment_cumsum(values: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Running sums that restart with each group, groups after each other."""
    total = np.cumsum(values)
    ends = np.cumsum(sizes)
    before = np.concatenate([[0], total[ends[:-1] - 1]]) if len(sizes) else np.zeros(0, np.int64)
    return total - np.repeat(before, sizes)


def _pointers(hx: np.ndarray, hy: np.ndarray) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """pointer(a, b): the pointer code of history cell a towards the adjacent history cell b, vectorized."""
    table = np.zeros(9, np.int64)
    for (dx, dy), code in _POINTER.items():
        table[(dx + 1) * 3 + dy + 1] = code

    def pointer(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return table[(hx[b] - hx[a] + 1) * 3 + hy[b] - hy[a] + 1]

    return pointer
