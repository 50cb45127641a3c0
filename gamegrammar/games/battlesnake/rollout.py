"""Whole Battlesnake episodes on the batch engine, written straight to token ids.

`play_batch` steps every game of a batch with the batch rules (`batch`), asks a policy for
each tick's moves (the starter agents of `batch_agents`, or any callable), and writes the
grammar of `grammar.py` as token ids, byte for byte what the scalar `EpisodeEncoder` +
`GameTokenizer` write, for every codec option (keyframe_interval, min_salience, tails, smell, cells, sense, hits);
tests/games/battlesnake/test_batch.py checks it. `keyframe_token_ids` is the batch keyframe
encoder.

A tick is written as one row of fixed columns per game (TICK; per snake Sk d [SMELL_s] [SENSE_s] [HIT] [FREE Xx Yy]
Xx Yy|OUT [MEET] [EAT LENn H100]; per snake Sk DIE_<cause>; per spawn SPAWN Xx Yy; the end word; EOS)
and a mask of the columns that game writes; the masked ids of every row, row-major, are its tokens. With the cells
option a cell's X column holds its one word and its Y column is masked out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gamegrammar.core.gamespec import BatchResult, CodecConfig
from gamegrammar.core.rng import episode_keys, keyed_draw, tick_keys
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.games.battlesnake.batch import (
    ALIVE,
    GOES_ON,
    BattlesnakeBatch,
    TurnBatch,
    advance,
    draw_spawns,
    end_codes,
    final_lengths,
)
from gamegrammar.games.battlesnake.grammar import (
    DIE_TOKEN,
    END_EVENTS,
    INPUT_TOKEN,
    SENSE_TOKENS,
    SMELL_TOKENS,
    STEP_TOKEN,
    cell_word,
    cells_of,
    hits_of,
    sense_of,
    smell_of,
    vocabulary,
)
from gamegrammar.games.battlesnake.rules import CAUSES, EVENTS, MAX_HEALTH, BattlesnakeConfig, Draw, Move, purpose, snake_id


class TokenTable:
    """Token ids of the grammar for one config, as lookup arrays (values index them; cells are padded cells)."""

    def __init__(self, config: BattlesnakeConfig) -> None:
        tok = GameTokenizer(vocabulary(config))
        ids = tok.ids
        dt = self.dtype = tok.dtype
        self.word = {w: ids[w] for w in ("BOS", "EOS", "TICK", "SNAP", "FOOD", "EAT", "OUT", "SPAWN", "FREE", "HIT", "MEET", *END_EVENTS)}
        self.snake = np.array([ids[snake_id(k)] for k in range(config.num_snakes)], dt)
        self.input = np.array([ids[INPUT_TOKEN[m]] for m in Move], dt)
        self.smell = np.array([ids[word] for word in SMELL_TOKENS], dt)  # by mask of directions
        self.sense = np.array([ids[word] for word in SENSE_TOKENS], dt)
        self.die = np.array([ids["UNK"], *(ids[DIE_TOKEN[c]] for c in CAUSES)], dt)  # by cause code
        self.end = np.array([ids[e] for e in END_EVENTS], dt)
        # a step between segments by its padded-cell difference: index diff + pw (0 = B_S)
        pw = config.width + 2
        self.step = np.zeros(2 * pw + 1, dt)
        for move, delta in ((None, 0), (Move.U, pw), (Move.D, -pw), (Move.L, -1), (Move.R, 1)):
            self.step[delta + pw] = ids[STEP_TOKEN[move]]
        self.pw = pw
        cells = pw * (config.height + 2)
        x, y = np.arange(cells) % pw - 1, np.arange(cells) // pw - 1
        self.x = np.array([ids.get(f"X{v}", 0) for v in x], dt)  # by padded cell (0 on the padding: never written)
        self.y = np.array([ids.get(f"Y{v}", 0) for v in y], dt)
        self.cell = np.array([ids.get(cell_word((a, b)), 0) for a, b in zip(x, y)], dt)  # the cells option's words
        self.len = np.zeros(config.max_length + 2, dt)
        for n in range(3, config.max_length + 1):
            self.len[n] = ids[f"LEN{n}"]
        self.health = np.array([0, *(ids[f"H{h}"] for h in range(1, MAX_HEALTH + 1))], dt)


def keyframe_token_ids(
    t: TokenTable, batch: BattlesnakeBatch, rows: np.ndarray, bos: bool = False, cells: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The keyframes of the games at `rows` as (ids, mask): row i's tokens are ids[i][mask[i]].

    SNAP, per live snake by index Sk Xx Yy LENn Hh and a step per further segment, FOOD and every
    food cell row-major (`grammar.keyframe_tokens`); `cells`: each cell as one word.
    """
    m, num = len(rows), batch.config.num_snakes
    alive = batch.alive[rows]
    length = batch.length[rows]
    steps = max(int(np.where(alive, length, 1).max(initial=1)) - 1, 0)
    segments = np.stack([batch.segment(i)[rows] for i in range(steps + 1)], axis=2)  # (m, N, steps + 1)
    head = segments[:, :, 0]
    snakes = np.zeros((m, num, 5 + steps), t.dtype)
    snakes[:, :, 0] = t.snake
    snakes[:, :, 1] = (t.cell if cells else t.x)[head]
    snakes[:, :, 2] = t.y[head]
    snakes[:, :, 3] = t.len[np.where(alive, length, 0)]
    snakes[:, :, 4] = t.health[np.where(alive, batch.health[rows], 0)]
    snakes[:, :, 5:] = t.step[np.clip(segments[:, :, 1:] - segments[:, :, :-1] + t.pw, 0, 2 * t.pw)]
    snake_mask = np.ones(snakes.shape, bool)
    snake_mask[:, :, 5:] = np.arange(steps) < (length - 1)[:, :, None]
    snake_mask[:, :, 2] = not cells
    snake_mask &= alive[:, :, None]
    food = batch.food[rows]
    count = food.sum(axis=1)
    width = int(count.max(initial=0))
    r, cell = np.nonzero(food)
    rank = np.arange(len(r)) - np.repeat(np.cumsum(count) - count, count)
    food_ids = np.zeros((m, width, 2), t.dtype)
    food_ids[r, rank, 0], food_ids[r, rank, 1] = (t.cell if cells else t.x)[cell], t.y[cell]
    food_mask = np.broadcast_to((np.arange(width) < count[:, None])[:, :, None] & np.array([True, not cells]), food_ids.shape)
    lead = np.array([t.word["BOS"], t.word["SNAP"]] if bos else [t.word["SNAP"]], t.dtype)
    ids = np.concatenate(
        [np.broadcast_to(lead, (m, len(lead))), snakes.reshape(m, -1), np.full((m, 1), t.word["FOOD"], t.dtype), food_ids.reshape(m, -1)],
        axis=1,
    )
    mask = np.concatenate(
        [np.ones((m, len(lead)), bool), snake_mask.reshape(m, -1), np.ones((m, 1), bool), food_mask.reshape(m, -1)], axis=1
    )
    return ids, mask


def food_beside(batch: BattlesnakeBatch) -> np.ndarray:
    """(n, N) the smell word's mask of every snake (`grammar.food_beside`): bit m where the neighbour of its head in
    direction Move(m) holds food. Read before a tick's move, as the word describes the board the move starts from."""
    return _beside(batch, batch.food)


def body_beside(batch: BattlesnakeBatch) -> np.ndarray:
    """(n, N) the sense word's mask of every snake (`grammar.body_beside`): bit m where the neighbour of its head in
    direction Move(m) holds a segment that stays through the move (every live body less one count at its tail)."""
    staying = batch.occ.sum(axis=1, dtype=np.int16)  # (n, cells): segments on each cell; eliminated snakes have none
    g, k = np.nonzero(batch.alive)
    np.subtract.at(staying, (g, batch.tails[g, k]), 1)
    return _beside(batch, staying > 0)


def _beside(batch: BattlesnakeBatch, holds: np.ndarray) -> np.ndarray:
    """(n, N) masks of the directions in which the neighbour of each head is a cell where `holds` (n, cells) is true."""
    n, num = batch.length.shape
    beside = batch.heads[:, :, None] + batch.board.delta  # (n, N, 4) padded cells; a live head is never on the padding
    beside = np.clip(beside, 0, holds.shape[1] - 1).reshape(n, -1)
    hit = np.take_along_axis(holds, beside, axis=1).reshape(n, num, 4)
    return hit.astype(np.int64) @ (1 << np.arange(4))


def words_beside(batch: BattlesnakeBatch, codec: CodecConfig) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The smell and the sense masks a codec needs (None for what it does not write; the hits option's HIT is the sense
    mask's bit of the input), read before a tick's move."""
    bodies = sense_of(codec) or hits_of(codec)
    return (food_beside(batch) if smell_of(codec) else None, body_beside(batch) if bodies else None)


def _tick_token_ids(
    t: TokenTable,
    batch: BattlesnakeBatch,
    turn: TurnBatch,
    spawned: np.ndarray,
    end: np.ndarray,
    codec: CodecConfig,
    tails: bool,
    smelled: np.ndarray | None = None,
    sensed: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """One tick of every game as (ids, mask), like `EpisodeEncoder.tick` (salience floors included). `smelled` and
    `sensed` are `words_beside` of the batch before the tick: the smell and sense masks, where the codec needs them.

    Every section is written in place into one (m, columns) pair of arrays, through views (a concatenation of
    2,000-row sections cost more than the rest)."""
    m, num = turn.movers.shape
    floor = codec.min_salience
    keep = {kind: EVENTS[kind][0] >= floor for kind in ("TICK", "INPUT", "MOVE", "EAT", "DIE", "SPAWN")}
    movers, ate = turn.movers, turn.ate
    heads = np.where(movers, turn.heads, 0)
    on = batch.board.on_board[heads]
    moves = np.where(movers, turn.moves, 0)
    free = np.maximum(turn.freed, 0) if tails else np.zeros((m, num), np.int64)
    width = spawned.shape[1]
    columns = 1 + 14 * num + 2 * num + 3 * width + 2
    ids = np.empty((m, columns), t.dtype)
    mask = np.empty((m, columns), bool)
    ids[:, 0] = t.word["TICK"]
    mask[:, 0] = keep["TICK"]
    # per snake: Sk d [SMELL_s] [SENSE_s] [HIT] [FREE Xx Yy] Xx Yy|OUT [MEET] [EAT LENn H100]
    snakes, snake_mask = _section(ids, 1, num, 14), _section(mask, 1, num, 14)
    snakes[:, :, 0] = t.snake
    snake_mask[:, :, 0] = movers & (keep["INPUT"] | keep["MOVE"] | (keep["EAT"] & ate))
    snakes[:, :, 1] = t.input[moves]
    snake_mask[:, :, 1] = movers & keep["INPUT"]
    smell, sense, hits, cells = smell_of(codec), sense_of(codec), hits_of(codec), cells_of(codec)
    xs = t.cell if cells else t.x  # the cells option writes a cell's word in its X column and nothing in its Y column
    if (smell and smelled is None) or ((sense or hits) and sensed is None):
        raise ValueError("the smell, sense and hits options' words need the masks beside each head before the tick (`words_beside`)")
    snakes[:, :, 2] = t.smell[smelled if smell else 0]
    snake_mask[:, :, 2] = movers & keep["INPUT"] & smell
    snakes[:, :, 3] = t.sense[sensed if sense else 0]
    snake_mask[:, :, 3] = movers & keep["INPUT"] & sense
    snakes[:, :, 4] = t.word["HIT"]
    snake_mask[:, :, 4] = movers & keep["INPUT"] & (sensed >> moves & 1 == 1) if hits else False
    snakes[:, :, 5] = t.word["FREE"]
    snakes[:, :, 6] = xs[free]
    snakes[:, :, 7] = t.y[free]
    has_free = movers & keep["MOVE"] & (turn.freed >= 0) if tails else np.zeros((m, num), bool)
    for c in (5, 6, 7):
        snake_mask[:, :, c] = has_free
    snake_mask[:, :, 7] &= not cells
    snakes[:, :, 8] = np.where(on, xs[heads], t.word["OUT"])
    snakes[:, :, 9] = t.y[heads]
    snake_mask[:, :, 8] = movers & keep["MOVE"]
    snake_mask[:, :, 9] = movers & keep["MOVE"] & on & (not cells)
    snakes[:, :, 10] = t.word["MEET"]
    snake_mask[:, :, 10] = movers & keep["MOVE"] & met(heads, movers & on) if hits else False
    snakes[:, :, 11] = t.word["EAT"]
    snakes[:, :, 12] = t.len[np.where(ate, batch.length, 0)]
    snakes[:, :, 13] = t.health[MAX_HEALTH]
    eats = ate & keep["EAT"]
    for c in (11, 12, 13):
        snake_mask[:, :, c] = eats
    # per snake: Sk DIE_<cause>
    at = 1 + 14 * num
    deaths, death_mask = _section(ids, at, num, 2), _section(mask, at, num, 2)
    deaths[:, :, 0] = t.snake
    deaths[:, :, 1] = t.die[turn.eliminated]
    died = (turn.eliminated != ALIVE) & keep["DIE"]
    death_mask[:, :, 0] = died
    death_mask[:, :, 1] = died
    # per spawn: SPAWN Xx Yy
    at += 2 * num
    spawns, spawn_mask = _section(ids, at, width, 3), _section(mask, at, width, 3)
    cell = np.maximum(spawned, 0)
    spawns[:, :, 0] = t.word["SPAWN"]
    spawns[:, :, 1] = xs[cell]
    spawns[:, :, 2] = t.y[cell]
    placed = (spawned >= 0) & keep["SPAWN"]
    for c in range(3):
        spawn_mask[:, :, c] = placed
    spawn_mask[:, :, 2] &= not cells
    done = end != GOES_ON
    ids[:, -2] = t.end[np.maximum(end, 0)]
    ids[:, -1] = t.word["EOS"]
    mask[:, -2] = done  # the end words are PHASE events: never dropped
    mask[:, -1] = done
    return ids, mask


def met(heads: np.ndarray, landed: np.ndarray) -> np.ndarray:
    """(m, N) the hits option's MEET: snake k's new head is on the cell of an earlier snake's (j < k) new head, among
    the snakes that `landed` (moved and stayed on the board)."""
    out = np.zeros(heads.shape, bool)
    for k in range(1, heads.shape[1]):
        same = (heads[:, :k] == heads[:, k : k + 1]) & landed[:, :k]
        out[:, k] = landed[:, k] & same.any(axis=1)
    return out


def _section(a: np.ndarray, start: int, rows: int, width: int) -> np.ndarray:
    """Columns start .. start + rows * width of a 2-D array as an (m, rows, width) view (raises rather than copy)."""
    view = a[:, start : start + rows * width]
    view.shape = (len(a), rows, width)
    return view


def agent_draws(tick_key: np.ndarray, num_snakes: int) -> np.ndarray:
    """(n, N) uint64: each snake's AGENT_MOVE draw (`agents._pick`'s) of the tick whose key is `tick_key`."""
    return np.stack([keyed_draw(tick_key, purpose(Draw.AGENT_MOVE, k)) for k in range(num_snakes)], axis=1)


Observer = Callable[[BattlesnakeBatch, np.ndarray, TurnBatch], None]
# policy(batch, games, draws) -> (n, N) moves of every running game: `games` are the running games' positions in
# `episodes`, `draws` (n, N) this tick's AGENT_MOVE draws (keyed by the tick before the move).
Policy = Callable[[BattlesnakeBatch, np.ndarray, np.ndarray], np.ndarray]


def play_batch(
    config: BattlesnakeConfig,
    codec: CodecConfig,
    seed: int,
    episodes: np.ndarray,
    policy: Policy,
    observer: Observer | None = None,
    log: TokenLog | None = None,
) -> BatchResult:
    """Play whole episodes, all at once, writing token ids as the scalar encoder would.

    `policy` chooses every running game's moves each tick; `batch_agents.scripted_policy(codes)`
    plays the starter agents exactly as the scalar engine does. Finished games are dropped from the
    arrays as they end, so late ticks cost only what is still running. `observer(batch, games, turn)`
    is called after every tick (after food spawns) with the running games, before any is dropped.
    """
    episodes = np.asarray(episodes, np.int64)
    n = len(episodes)
    table = TokenTable(config)
    tails = bool(getattr(codec, "tails", False))
    cells = cells_of(codec)
    log = TokenLog(n) if log is None else log  # a caller's log lets a model read each game's tokens as they are written
    ticks, scores, ends = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    keys = episode_keys(seed, episodes)
    batch = BattlesnakeBatch.initial(config, seed, episodes)
    games = np.arange(n)
    log.write(games, *keyframe_token_ids(table, batch, games, bos=True, cells=cells))
    tick_key = tick_keys(keys, 0)
    for t in range(1, config.max_ticks + 1):
        if not len(batch):
            break
        moves = policy(batch, games, agent_draws(tick_key, config.num_snakes))
        beside = words_beside(batch, codec)
        turn = advance(batch, moves)
        tick_key = tick_keys(keys[games], t)  # serves this tick's food and the next tick's agents
        spawned = draw_spawns(batch, tick_key)
        end = end_codes(batch)
        done = end != GOES_ON
        if observer is not None:
            observer(batch, games, turn)
        log.write(games, *_tick_token_ids(table, batch, turn, spawned, end, codec, tails, *beside))
        if done.any():
            d = np.flatnonzero(done)
            g = games[d]
            ticks[g] = t
            scores[g] = final_lengths(batch, turn)[d]
            ends[g] = end[d]
        if codec.keyframe_after(t):
            live = np.flatnonzero(~done)
            if live.size:
                log.write(games[live], *keyframe_token_ids(table, batch, live, cells=cells))
        if done.any():
            keep = np.flatnonzero(~done)
            batch = batch.take(keep)
            games = games[keep]
            tick_key = tick_key[keep]
    tokens, lengths = log.assemble(table.dtype)
    return BatchResult(tokens, lengths, ticks, scores, ends)
