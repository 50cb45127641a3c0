"""Whole Snake episodes on the batch engine, written straight to token ids.

`play_batch` steps every game of a batch with the batch rules (`batch`), asks a
policy for each tick's inputs (the scripted agents of `batch_agents`, or any
callable), and writes grammar v1 in the codec's design (tail events, head first
or sense, each with or without the spawn column or the body list) as token ids, byte for byte what
the scalar `EpisodeEncoder` + `GameTokenizer` write (tests/games/snake/test_batch.py).
`keyframe_token_ids` is the one batch keyframe encoder: the corpus writer uses
it, and the fast evaluator compares written keyframes with it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamegrammar.core import rng
from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import BatchResult, CodecConfig
from gamegrammar.core.rng import episode_keys, keyed_draw, tick_keys
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.games.snake.batch import (
    DIE_SELF,
    DIE_WALL,
    EAT,
    END_TIMEOUT,
    END_WIN,
    GOES_ON,
    MOVE,
    Probe,
    Resolution,
    SnakeBatch,
    advance,
    body_neighbours,
    end_codes,
    probe,
    resolve,
    spawn_food,
)
from gamegrammar.games.snake.grammar import (
    COLUMN_WORDS,
    SENSE_TOKENS,
    body_list_of,
    head_first_of,
    sense_of,
    spawn_column_of,
    tail_events_of,
    vocabulary,
)
from gamegrammar.games.snake.rules import EVENTS, Direction, SnakeConfig

# ---------------------------------------------------------------- tokens


class TokenTable:
    """Token ids of the grammar for one board, as lookup arrays (every token has the same id with or without the
    tail-events option: its FREE follows grammar v1's tokens, the sense option's words follow it, the spawn column's last)."""

    def __init__(self, config: SnakeConfig) -> None:
        tok = GameTokenizer(vocabulary(config))
        ids = tok.ids
        self.dtype = tok.dtype
        self.word = {w: ids[w] for w in tok.tokens if w.isupper() and not w[-1].isdigit()}
        dt = self.dtype
        self.input = np.array([ids[f"INPUT_{d.name}"] for d in Direction], dt)
        self.dir = np.array([ids[f"DIR_{d.name}"] for d in Direction], dt)
        self.body = np.array([ids[f"B_{d.name}"] for d in Direction], dt)
        self.x = np.array([ids[f"X{x}"] for x in range(config.width)], dt)
        self.y = np.array([ids[f"Y{y}"] for y in range(config.height)], dt)
        self.len = np.array([ids["UNK"], *(ids[f"LEN{n}"] for n in range(1, config.cells + 1))], dt)
        self.value = np.array([ids[f"V{s}"] for s in range(config.cells)], dt)
        self.sense = np.array([ids[token] for token in SENSE_TOKENS], dt)  # by mask: bit d for Direction d
        self.column = np.array([ids[token] for token in COLUMN_WORDS], dt)  # by "the snake is on the cell"


# Columns of one tick, in grammar order, each with the event it belongs to (its salience decides whether the
# codec keeps it; the EOS is structure, never dropped). The head-first design (`head_first_of(codec)`) writes the
# head's cell before the outcome word: its own order of the same columns, with DIE_SELF after the cell. The
# spawn-column option (`spawn_column_of(codec)`) puts one SPAWN_COLUMN column per board row between SPAWN_X and SPAWN_Y,
# the body-list option (`body_list_of(codec)`) two LISTED columns per cell behind the longest grown head before FOOD_SPAWN.
_COLUMN_EVENTS = {
    "TICK": "TICK",
    "INPUT": "INPUT",
    "SENSE": "INPUT",
    "FREE": "FREE",
    "FREE_X": "FREE",
    "FREE_Y": "FREE",
    "DIE": "DIE_WALL",
    "EAT": "EAT",
    "MOVE": "MOVE",
    "MOVE_X": "MOVE",
    "MOVE_Y": "MOVE",
    "DIE_SELF": "DIE_SELF",
    "GROW": "GROW",
    "LEN": "GROW",
    "FOOD_SPAWN": "FOOD_SPAWN",
    "SPAWN_X": "FOOD_SPAWN",
    "SPAWN_COLUMN": "FOOD_SPAWN",
    "LISTED": "FOOD_SPAWN",
    "SPAWN_Y": "FOOD_SPAWN",
    "SCORE": "SCORE",
    "VALUE": "SCORE",
    "WIN": "WIN",
    "TIMEOUT": "TIMEOUT",
    "EOS": None,
}
_V1_ORDER = ("TICK", "INPUT", "SENSE", "FREE", "FREE_X", "FREE_Y", "DIE", "EAT", "MOVE", "MOVE_X", "MOVE_Y", "GROW", "LEN")
_HEAD_FIRST_ORDER = ("TICK", "INPUT", "DIE", "MOVE_X", "MOVE_Y", "EAT", "MOVE", "DIE_SELF", "GROW", "LEN")
_EAT_TAIL = ("FOOD_SPAWN", "SPAWN_X", "SPAWN_Y", "SCORE", "VALUE", "WIN", "TIMEOUT", "EOS")


def _columns(head_first: bool, column_rows: int = 0, listed: int = 0) -> list[tuple[str, int]]:
    """(name, salience) of each column of a tick; `column_rows` SPAWN_COLUMN columns after SPAWN_X (the board's
    height with the spawn-column option, else none); `listed` cells' LISTED columns (two each) before FOOD_SPAWN."""
    spawn_x = _EAT_TAIL.index("SPAWN_X") + 1
    head = (_HEAD_FIRST_ORDER if head_first else _V1_ORDER) + ("LISTED",) * (2 * listed)
    order = head + _EAT_TAIL[:spawn_x] + ("SPAWN_COLUMN",) * column_rows + _EAT_TAIL[spawn_x:]
    return [(name, EVENTS[_COLUMN_EVENTS[name]][0] if _COLUMN_EVENTS[name] else Salience.PHASE + 1) for name in order]


def _write_keyframes(log: TokenLog, t: TokenTable, batch: SnakeBatch, rows: np.ndarray, games: np.ndarray, bos: bool = False) -> None:
    """SNAP PLAYER Xx Yy DIR_d LENn BODY b{n-1} FOOD [Xx Yy] SCORE Vs for the games at `rows`."""
    if not rows.size:
        return
    log.write(games, *keyframe_token_ids(t, batch, rows, bos))


def keyframe_token_ids(t: TokenTable, batch: SnakeBatch, rows: np.ndarray, bos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The keyframes of the games at `rows` as (ids, mask), one row each: row i's tokens are ids[i][mask[i]].

    The one batch keyframe encoder: the corpus writer uses it, and an evaluator
    compares written keyframes with it.
    """
    cfg = batch.config
    length = batch.length[rows]
    steps = int(length.max()) - 1
    m = len(rows)
    head = 1 if bos else 0
    ids = np.empty((m, head + 7 + steps + 5), t.dtype)
    mask = np.ones(ids.shape, bool)
    if bos:
        ids[:, 0] = t.word["BOS"]
    w = t.word
    ids[:, head : head + 7] = [w["SNAP"], w["PLAYER"], 0, 0, 0, 0, w["BODY"]]
    ids[:, head + 2] = t.x[batch.head_x[rows]]
    ids[:, head + 3] = t.y[batch.head_y[rows]]
    ids[:, head + 4] = t.dir[batch.direction[rows]]
    ids[:, head + 5] = t.len[length]
    if steps:
        idx = (batch.start[rows][:, None] + np.arange(steps + 1)) % cfg.cells
        cells = batch.ring[rows[:, None], idx].astype(np.int64)
        diff = cells[:, 1:] - cells[:, :-1]
        d = np.where(diff == -cfg.width, 0, np.where(diff == cfg.width, 1, np.where(diff == -1, 2, 3)))
        ids[:, head + 7 : head + 7 + steps] = t.body[d]
        mask[:, head + 7 : head + 7 + steps] = np.arange(steps) < (length - 1)[:, None]
    tail = head + 7 + steps
    food = batch.food[rows]
    has_food = food >= 0
    ids[:, tail] = w["FOOD"]
    ids[:, tail + 1] = t.x[np.where(has_food, food % cfg.width, 0)]
    ids[:, tail + 2] = t.y[np.where(has_food, food // cfg.width, 0)]
    mask[:, tail + 1] = mask[:, tail + 2] = has_food
    ids[:, tail + 3] = w["SCORE"]
    ids[:, tail + 4] = t.value[batch.score[rows]]
    return ids, mask


Observer = Callable[[SnakeBatch, np.ndarray, Resolution], None]
# policy(batch, games, draws, probe) -> one input per running game: `games` are the running games' positions in
# `episodes`, `draws` this tick's AGENT draws for them, `probe` every direction's outcome (batch.probe(batch)).
Policy = Callable[[SnakeBatch, np.ndarray, np.ndarray, Probe], np.ndarray]


def play_batch(
    config: SnakeConfig,
    codec: CodecConfig,
    seed: int,
    episodes: np.ndarray,
    policy: Policy,
    observer: Observer | None = None,
    log: TokenLog | None = None,
) -> BatchResult:
    """Play whole episodes, all at once, writing token ids as the scalar encoder would.

    `policy` chooses every running game's input each tick; `scripted_policy(agent_codes)`
    plays the scripted agents exactly as the scalar engine does.

    Finished games are dropped from the arrays as they end, so late ticks cost
    only what is still running. `observer(batch, games, resolution)` is called
    after every tick with the running games (before they are dropped): tests
    compare those states with the scalar engine's.
    """
    episodes = np.asarray(episodes, np.int64)
    n = len(episodes)
    table = TokenTable(config)
    w = table.word
    tails = tail_events_of(codec)
    head_first = head_first_of(codec)
    column_rows = config.height if spawn_column_of(codec) else 0
    columns = _columns(head_first, column_rows)
    sense = sense_of(codec)
    listing = body_list_of(codec)
    dropped = {  # by name: the listed cells of an eat move the columns after them
        name
        for name, salience in columns
        if salience < codec.min_salience or (name.startswith("FREE") and not tails) or (name == "SENSE" and not sense)
    }
    dense = not dropped & {"TICK", "INPUT", "MOVE"}
    log = TokenLog(n) if log is None else log  # a caller's log lets a model read each game's tokens as they are written
    ticks = np.zeros(n, np.int64)
    scores = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    keys = episode_keys(seed, episodes)
    batch = SnakeBatch.initial(config, seed, episodes)
    games = np.arange(n)
    _write_keyframes(log, table, batch, games, games, bos=True)
    tick_key = tick_keys(keys, 0)
    for t in range(1, config.max_ticks + 1):
        if not len(batch):
            break
        pr = probe(batch)
        actions = policy(batch, games, keyed_draw(tick_key, rng.Purpose.AGENT), pr)
        res = resolve(batch, actions, pr)
        freed = batch.tail() if tails else None  # the cell the tail leaves, read before the move (rules.freed_cell)
        sensed = body_neighbours(pr) if sense else None  # rules.body_neighbours, as a mask
        advance(batch, res)
        tick_key = tick_keys(keys[games], t)  # serves this tick's food and the next tick's agents
        outcome = res.outcome
        ate = np.flatnonzero(outcome == EAT)
        if ate.size:
            batch.food[ate] = spawn_food(batch, ate, keyed_draw(tick_key[ate], rng.Purpose.FOOD))
        end = end_codes(batch, res)
        win, timeout = end == END_WIN, end == END_TIMEOUT
        done = end != GOES_ON
        if observer is not None:
            observer(batch, games, res)

        plain = (outcome == MOVE) & ~done
        if dense and plain.any():  # most ticks of most games: TICK INPUT_d [FREE Xx Yy] MOVE Xx Yy, or TICK INPUT_d Xx Yy MOVE
            p = np.flatnonzero(plain)
            ids = np.empty((len(p), 5 + (3 if freed is not None else 0) + (1 if sensed is not None else 0)), table.dtype)
            ids[:, 0] = w["TICK"]
            ids[:, 1] = table.input[actions[p]]
            if sensed is not None:
                ids[:, 2] = table.sense[sensed[p]]
            if freed is not None:
                ids[:, 2] = w["FREE"]
                ids[:, 3] = table.x[freed[p] % config.width]
                ids[:, 4] = table.y[freed[p] // config.width]
            word, x, y = (-1, -3, -2) if head_first else (-3, -2, -1)
            ids[:, word] = w["MOVE"]
            ids[:, x] = table.x[batch.head_x[p]]
            ids[:, y] = table.y[batch.head_y[p]]
            log.write_dense(games[p], ids)
            rest = np.flatnonzero(~plain)
        else:
            rest = np.arange(len(batch))
        if rest.size:
            tail = freed[rest] if freed is not None else None
            cells = (res.x[rest], res.y[rest]) if head_first else None
            near = sensed[rest] if sensed is not None else None
            _write_tick(
                log,
                table,
                batch,
                rest,
                games[rest],
                actions[rest],
                outcome[rest],
                win[rest],
                timeout[rest],
                tail,
                dropped,
                cells,
                near,
                column_rows,
                listing and codec.min_salience <= EVENTS["FOOD_SPAWN"][0],
            )

        if done.any():
            d = np.flatnonzero(done)
            g = games[d]
            ticks[g] = t
            scores[g] = batch.score[d]
            ends[g] = end[d]
        if codec.keyframe_after(t):
            live = np.flatnonzero(~done)
            _write_keyframes(log, table, batch, live, games[live])
        if done.any():
            keep = np.flatnonzero(~done)
            batch = batch.take(keep)
            games = games[keep]
            tick_key = tick_key[keep]
    tokens, lengths = log.assemble(table.dtype)
    return BatchResult(tokens, lengths, ticks, scores, ends)


def _write_tick(
    log: TokenLog,
    t: TokenTable,
    batch: SnakeBatch,
    rows: np.ndarray,
    games: np.ndarray,
    actions: np.ndarray,
    outcome: np.ndarray,
    win: np.ndarray,
    timeout: np.ndarray,
    freed: np.ndarray | None,
    dropped: set[str],
    cells: tuple[np.ndarray, np.ndarray] | None = None,
    sensed: np.ndarray | None = None,
    column_rows: int = 0,
    listing: bool = False,
) -> None:
    """The general path: every optional token of a tick, masked per game (`freed`: each tail's cell before the
    tick, with the tail-events option; `cells`: the cell each head moves or runs into, with the head-first one;
    `sensed`: each head's deadly body neighbours as a mask, with the sense one; `column_rows`: the board's height
    with the spawn-column option, whose words come from `batch`, the state after the tick: the grown body;
    `listing`: the body-list option, whose cells come from the same grown body)."""
    cfg = batch.config
    w = t.word
    m = len(rows)
    dead = outcome >= DIE_WALL
    eat = outcome == EAT
    alive = ~dead
    food = batch.food[rows]
    spawned = eat & (food >= 0)
    length = batch.length[rows]
    listed = int(length[spawned].max()) - 1 if listing and spawned.any() else 0
    columns = _columns(cells is not None, column_rows, listed)
    col = {name: i for i, (name, _) in reversed(list(enumerate(columns)))}  # a name's first column
    ids = np.zeros((m, len(columns)), t.dtype)
    mask = np.zeros(ids.shape, bool)

    def put(name: str, value: np.ndarray | int, where: np.ndarray | bool) -> None:
        if name in col:
            ids[:, col[name]] = value
            mask[:, col[name]] = where

    put("TICK", w["TICK"], True)
    put("INPUT", t.input[actions], True)
    if sensed is not None:
        put("SENSE", t.sense[sensed], True)
    if freed is not None:  # the tail leaves on a move, and before the self-collision check (rules.freed_cell)
        leaves = (outcome == MOVE) | (outcome == DIE_SELF)
        put("FREE", w["FREE"], leaves)
        put("FREE_X", t.x[freed % cfg.width], leaves)
        put("FREE_Y", t.y[freed // cfg.width], leaves)
    if cells is None:
        put("DIE", np.where(outcome == DIE_WALL, w["DIE_WALL"], w["DIE_SELF"]), dead)
        put("MOVE", w["MOVE"], alive)
        put("MOVE_X", t.x[batch.head_x[rows]], alive)
        put("MOVE_Y", t.y[batch.head_y[rows]], alive)
    else:  # the cell before the outcome word; none on a wall death (off the board), no MOVE word on an eat
        self_death = outcome == DIE_SELF
        written = alive | self_death
        put("DIE", w["DIE_WALL"], outcome == DIE_WALL)
        put("MOVE_X", t.x[np.where(written, cells[0], 0)], written)
        put("MOVE_Y", t.y[np.where(written, cells[1], 0)], written)
        put("MOVE", w["MOVE"], outcome == MOVE)
        put("DIE_SELF", w["DIE_SELF"], self_death)
    put("EAT", w["EAT"], eat)
    put("GROW", w["GROW"], eat)
    put("LEN", t.len[length], eat)
    if listed:  # the grown body behind the head, neck first: the ring from the head on, as keyframe_token_ids reads it
        ring = (batch.start[rows][:, None] + 1 + np.arange(listed)) % cfg.cells
        body = batch.ring[rows[:, None], ring].astype(np.int64)
        first = col["LISTED"]
        ids[:, first : first + 2 * listed : 2] = t.x[body % cfg.width]
        ids[:, first + 1 : first + 2 * listed : 2] = t.y[body // cfg.width]
        kept = spawned[:, None] & (np.arange(listed) < (length - 1)[:, None])
        mask[:, first : first + 2 * listed] = np.repeat(kept, 2, axis=1)
    put("FOOD_SPAWN", w["FOOD_SPAWN"], spawned)
    put("SPAWN_X", t.x[np.where(spawned, food % cfg.width, 0)], spawned)
    if column_rows:  # rules.column_occupancy of the spawn's column, row 0 first, read off the occupancy grid
        s = np.flatnonzero(spawned)
        occupied = np.zeros((m, column_rows), bool)
        occupied[s] = batch.occ[rows[s, None], food[s, None] % cfg.width + cfg.width * np.arange(column_rows)]
        first = col["SPAWN_COLUMN"]
        ids[:, first : first + column_rows] = t.column[occupied.view(np.uint8)]  # 0 or 1: an index, not a mask
        mask[:, first : first + column_rows] = spawned[:, None]
    put("SPAWN_Y", t.y[np.where(spawned, food // cfg.width, 0)], spawned)
    put("SCORE", w["SCORE"], eat)
    put("VALUE", t.value[batch.score[rows]], eat)
    put("WIN", w["WIN"], win)
    put("TIMEOUT", w["TIMEOUT"], timeout)
    put("EOS", w["EOS"], dead | win | timeout)
    if dropped:
        mask[:, [i for i, (name, _) in enumerate(columns) if name in dropped]] = False
    log.write(games, ids, mask)
