"""Whole Go episodes on the batch engine, written straight to token ids: byte for byte the scalar engine's.

`play_batch` steps every game of a chunk with the batch rules (`batch`), plays the scripted agents on arrays (the
same candidates in point order and the same draws as `agents.py`: the (draw mod count)-th), and writes the grammar of
`grammar.py` as token ids through a `TokenLog`, for every codec setting (keyframe_interval, min_salience);
tests/games/go/test_batch.py and the conformance kit check it. A tick is one row of fixed columns per game (TICK, the
move, TAKE and up to the most stones any game of the batch captured this tick, AREA Vb Vw, the result, the end word,
EOS) and a mask of the columns that game writes. GNU Go is an outside process, one move at a time: episodes it plays
in go through the scalar engine (`episode.play_episode`), and their tokens take their place among the others.
"""

from __future__ import annotations

import numpy as np

from gamegrammar.core.gamespec import BatchResult, CodecConfig
from gamegrammar.core.rng import episode_keys, keyed_draw, tick_keys
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.games.go.agents import AGENTS
from gamegrammar.games.go.batch import MEMORY, Analysis, GoBatch, Plays, analyse, apply, areas, eyes, plays, safe_plays
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.grammar import END_EVENTS, TURN_WORDS, stone, vertices, vocabulary
from gamegrammar.games.go.rules import BLACK, EVENTS, RESULT_WORDS, WHITE, Draw, GoConfig, purpose

AGENT_NAMES = list(AGENTS)  # an agent's code is its position here (as in the corpus index)
RANDOM, CAPTURE, GNUGO = (AGENT_NAMES.index(name) for name in ("random", "capture", "gnugo"))


class TokenTable:
    """Token ids of the grammar for one board, as lookup arrays."""

    def __init__(self, config: GoConfig) -> None:
        tok = GameTokenizer(vocabulary(config))
        ids, self.dtype = tok.ids, tok.dtype
        self.tokenizer = tok
        self.word = {w: ids[w] for w in ("BOS", "EOS", "TICK", "SNAP", "BLACK", "WHITE", "PASSED", "PASS", "TAKE", "AREA")}
        self.move = np.array([ids[v] for v in vertices(config.size)], self.dtype)
        self.stone = np.array([ids[stone(p, config.size)] for p in range(config.points)], self.dtype)
        self.count = np.array([ids[f"V{k}"] for k in range(config.points + 1)], self.dtype)
        self.turn = np.array([ids[w] for w in TURN_WORDS], self.dtype)
        self.result = {colour: ids[w] for colour, w in RESULT_WORDS.items()}
        self.end = np.array([ids[w] for w in END_EVENTS], self.dtype)


def _pick(candidates: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The (draw mod count)-th True of each row, in point order; -1 (a pass) where a row has none."""
    count = candidates.sum(axis=1)
    pick = (draws % np.maximum(count, 1).astype(np.uint64)).astype(np.int64)
    chosen = (np.cumsum(candidates, axis=1) <= pick[:, None]).sum(axis=1)
    return np.where(count > 0, chosen, -1)


def agent_moves(batch: GoBatch, a: Analysis, legal: Plays, codes: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Each game's move by its mover's agent (`codes`): random, or capture (the most stones, else a safe play)."""
    n = len(batch)
    choice = (legal.legal & ~eyes(batch, a, legal.colour)).reshape(n, -1)
    capture = np.flatnonzero(codes == CAPTURE)
    if len(capture):
        c = choice[capture]
        took = np.where(c, legal.captured.reshape(n, -1)[capture], 0)
        most = took.max(axis=1)
        best = c & (took == most[:, None])
        calm = c.copy()
        quiet = np.flatnonzero(most == 0)
        if len(quiet):
            size = batch.config.size
            keep = safe_plays(batch, a, legal.colour, capture[quiet], c[quiet].reshape(len(quiet), size, size)).reshape(len(quiet), -1)
            calm[quiet] = np.where(keep.any(axis=1)[:, None], keep, c[quiet])
        choice[capture] = np.where((most > 0)[:, None], best, calm)
    return _pick(choice, draws)


def keyframe_ids(t: TokenTable, board: np.ndarray, turn: int, passed: np.ndarray, bos: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Keyframes of boards (m, P) with `turn` to move, as (ids, mask): SNAP BLACK stones WHITE stones TO_x [PASSED]."""
    m, points = board.shape
    lead = [t.word["BOS"]] if bos else []
    head = np.broadcast_to(np.array([*lead, t.word["SNAP"], t.word["BLACK"]], t.dtype), (m, len(lead) + 2))
    stones = np.broadcast_to(t.stone, (m, points))
    ids = np.concatenate(
        [
            head,
            stones,
            np.full((m, 1), t.word["WHITE"], t.dtype),
            stones,
            np.full((m, 1), t.turn[turn], t.dtype),
            np.full((m, 1), t.word["PASSED"], t.dtype),
        ],
        axis=1,
    )
    mask = np.concatenate(
        [np.ones(head.shape, bool), board == BLACK, np.ones((m, 1), bool), board == WHITE, np.ones((m, 1), bool), passed[:, None]], axis=1
    )
    return ids, mask


def _tick_ids(
    t: TokenTable,
    move: np.ndarray,
    removed: np.ndarray,
    end: np.ndarray,
    scored: tuple[np.ndarray, np.ndarray, np.ndarray],
    codec: CodecConfig,
) -> tuple[np.ndarray, np.ndarray]:
    """One tick of every game as (ids, mask), as `EpisodeEncoder.tick` writes it (salience floors included)."""
    m = len(move)
    floor = codec.min_salience
    keep = {kind: EVENTS[kind][0] >= floor for kind in ("TICK", "PLAY", "TAKE")}
    counts = removed.sum(axis=1)
    width = int(counts.max(initial=0))
    g, p = np.nonzero(removed)
    rank = np.arange(len(g)) - np.repeat(np.cumsum(counts) - counts, counts)
    taken = np.zeros((m, width), t.dtype)
    taken[g, rank] = t.stone[p]
    done = end >= 0
    black, white, won = scored
    ids = np.concatenate(
        [
            np.full((m, 1), t.word["TICK"], t.dtype),
            np.where(move >= 0, t.move[np.maximum(move, 0)], t.word["PASS"]).astype(t.dtype)[:, None],
            np.full((m, 1), t.word["TAKE"], t.dtype),
            taken,
            np.full((m, 1), t.word["AREA"], t.dtype),
            t.count[black][:, None],
            t.count[white][:, None],
            np.array([t.result[None], t.result[BLACK], t.result[WHITE]], t.dtype)[won][:, None],
            t.end[np.maximum(end, 0)][:, None],
            np.full((m, 1), t.word["EOS"], t.dtype),
        ],
        axis=1,
    )
    has = counts > 0
    mask = np.concatenate(
        [
            np.full((m, 1), keep["TICK"]),
            np.full((m, 1), keep["PLAY"]),
            (has & keep["TAKE"])[:, None],
            (np.arange(width)[None, :] < counts[:, None]) & keep["TAKE"],
            np.repeat(done[:, None], 6, axis=1),  # the end's words are PHASE events: never dropped
        ],
        axis=1,
    )
    return ids, mask


def _scores(grid: np.ndarray, done: np.ndarray, config: GoConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Black's area, White's area, the winning colour or 0 for a draw) of the games that end (zeros elsewhere)."""
    black = np.zeros(len(grid), np.int64)
    white = np.zeros(len(grid), np.int64)
    if done.any():
        black[done], white[done] = areas(grid[done])
    margin = black - white - config.komi
    return black, white, np.where(margin > 0, BLACK, np.where(margin < 0, WHITE, 0))


def _play_chunk(config: GoConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, codes: np.ndarray, t: TokenTable) -> BatchResult:
    n = len(episodes)
    log = TokenLog(n)
    ticks, scores, ends = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    batch = GoBatch(config, n)
    games = np.arange(n)
    keys = episode_keys(seed, episodes)
    log.write(games, *keyframe_ids(t, batch.board, 0, np.zeros(n, bool), bos=True))
    for tick in range(1, config.max_ticks + 1):
        if not len(batch):
            break
        player = (tick - 1) % 2
        colour = BLACK + player
        a = analyse(batch)
        legal = plays(batch, a, colour)
        draws = keyed_draw(tick_keys(keys[games], tick - 1), purpose(Draw.AGENT_MOVE, player))
        move = agent_moves(batch, a, legal, codes[games, player], draws)
        removed = apply(batch, a, legal, move)
        end = np.where(batch.passes >= 2, 0, np.where(tick >= config.max_ticks, 1, -1))
        done = end >= 0
        scored = _scores(batch.grid, done, config)
        log.write(games, *_tick_ids(t, move, removed, end, scored, codec))
        if done.any():
            d = np.flatnonzero(done)
            ticks[games[d]] = tick
            scores[games[d]] = scored[0][d] - scored[1][d]
            ends[games[d]] = end[d]
            keep = np.flatnonzero(~done)
        if codec.keyframe_after(tick):
            live = np.flatnonzero(~done)
            if live.size:
                log.write(games[live], *keyframe_ids(t, batch.board[live], tick % 2, batch.passes[live] == 1))
        if done.any():
            batch = batch.take(keep)
            games = games[keep]
    tokens, lengths = log.assemble(t.dtype)
    return BatchResult(tokens, lengths, ticks, scores, ends)


def chunk_games(config: GoConfig) -> int:
    """Games stepped together: as many as MEMORY bytes of board history hold (each game keeps one board per turn)."""
    return max(16, MEMORY // ((config.max_ticks + 1) * config.points))


def play_batch(config: GoConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, codes: np.ndarray) -> BatchResult:
    """Whole episodes, `codes` (E, 2) each player's agent (positions in AGENT_NAMES), as the scalar engine writes them."""
    episodes = np.asarray(episodes, np.int64)
    codes = np.asarray(codes, np.int64)
    t = TokenTable(config)
    outside = (codes == GNUGO).any(axis=1)
    parts: list[tuple[np.ndarray, BatchResult]] = []
    inside = np.flatnonzero(~outside)
    step = chunk_games(config)
    for lo in range(0, len(inside), step):
        rows = inside[lo : lo + step]
        parts.append((rows, _play_chunk(config, codec, seed, episodes[rows], codes[rows], t)))
    for row in np.flatnonzero(outside):
        record = play_episode(config, codec, ",".join(AGENT_NAMES[c] for c in codes[row]), seed, int(episodes[row]))
        ids = np.asarray(t.tokenizer.encode(record.tokens), t.dtype)
        one = BatchResult(
            ids, np.array([len(ids)]), np.array([record.ticks]), np.array([record.score]), np.array([END_EVENTS.index(record.end)])
        )
        parts.append((np.array([row]), one))
    return _in_order(parts, len(episodes), t.dtype)


def _in_order(parts: list[tuple[np.ndarray, BatchResult]], n: int, dtype: np.dtype) -> BatchResult:
    """One BatchResult of parts that each hold some of the episodes (their rows), episode-major in row order."""
    lengths, ticks, scores, ends = (np.zeros(n, np.int64) for _ in range(4))
    pieces: list[np.ndarray | None] = [None] * n
    for rows, result in parts:
        starts = np.cumsum(result.lengths) - result.lengths
        for j, row in enumerate(rows.tolist()):
            pieces[row] = result.tokens[starts[j] : starts[j] + result.lengths[j]]
        lengths[rows], ticks[rows], scores[rows], ends[rows] = result.lengths, result.ticks, result.scores, result.ends
    tokens = np.concatenate([p for p in pieces if p is not None]) if n else np.zeros(0, dtype)
    return BatchResult(tokens.astype(dtype, copy=False), lengths, ticks, scores, ends)
