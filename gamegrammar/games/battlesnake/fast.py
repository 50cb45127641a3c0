"""Battlesnake's strict verdicts for thousands of sequences at once: `validate_fast`.

Why: the reference `validity.validate` parses and replays one sequence at a time in Python (some 70
default-corpus episodes a second); reports over thousands of model samples and whole-corpus checks
want much more, with the same verdicts.

The idea (as Snake's `games.snake.fast`). A sequence is valid exactly when it is, token for token,
what the game itself writes when it replays the sequence's own inputs through the rules from its
opening keyframe, with the sequence's own food spawns (each checked to be one the standard map
could make). So nothing here restates a rule or the grammar: every sequence of a call is replayed
at once by the batch engine (`batch.advance`, `batch.open_cells`, `batch.spawn_range`,
`batch.end_codes`) and written by the corpus writer's encoder (`rollout.keyframe_token_ids`,
`rollout._tick_token_ids`, the codec's keyframe schedule), and the ids written are compared with
the sequence's. The opening must be a start: it is parsed with the grammar and checked with the
reference's own `validity.check_start`, once per distinct opening of a call.

Steps, per chunk of sequences: (1) one flat id array (token strings are looked up in the vocabulary);
(2) what each sequence writes, for all at once: every input word (its snake is the token before it,
its tick the number of TICKs before it) and every SPAWN cell; the design (tails, smell, sense and hits: declared,
else any FREE, any SMELL word, any SENSE word, any HIT or MEET) and the keyframe interval (declared, else the number of the first tick followed by a SNAP,
as `validate` reads it); (3) the openings, parsed and checked (each distinct one once: corpora and
samples repeat a few hundred starts); (4) per (design, interval) group, the replay: each tick
`advance` with the written inputs, the written spawns placed after checking their number against
`spawn_range` and their cells against `open_cells`, then the tick's and any keyframe's ids
compared, as they are written, with the sequence's at the same places (`_Match`: nothing is kept);
a game stops at its end, after its last written tick or at its first difference; (5) the verdict:
no difference, all written and ending in EOS is VALID; a prefix of what the rules write, without
EOS, is CUT (the reference's verdict for a sequence cut off after ticks that obey the rules:
`complete` broken at its length; a cut-off last tick is not replayed by the reference and only
compared here as far as it goes).

Where the time goes (issue 46, `python -m benchmarks.bench_evaluator --game battlesnake`): the
replay's NumPy work on arrays of a few thousand (game, snake) rows, where reductions over a short
axis and concatenations cost more than the arithmetic; the batch engine's hot paths are written
for that (flat views, column-by-column sums, in-place sections) and this module skips what the
verdict does not need (stopped games stay idle in the batch rather than being copied out every
tick, a snake whose input is not written moves anywhere: its missing word already decides).

Every other sequence (any mismatch, a token outside the board's vocabulary, an opening that is
not a start, a spawn the map could not make, a written FREE in a sequence declared plain, a
reduced-salience sequence) goes, unchanged, to the reference `validate`, which names the rules it
breaks. So the fast path only ever decides "obeys everything", and its verdicts equal the
reference's exactly: tests/games/battlesnake/test_fast.py checks it on episodes of both designs,
their prefixes and every kind of mutation the conformance kit makes, and
`python -m benchmarks.bench_evaluator --game battlesnake` on whole corpora (with `--agreement`, on
both designs). Invalid sequences cost the reference's time, as in Snake. Calls with few sequences
go to the reference (`MIN_BATCH`): the replay pays NumPy's per-call cost once per tick of the
longest sequence, whatever the batch size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import itemgetter

import numpy as np

from gamegrammar.core.verdict import CUT, SLOW, VALID, Findings, TokenSequence, Verdict, fast_verdicts, is_ids, token_strings
from gamegrammar.games.battlesnake.batch import (
    BattlesnakeBatch,
    advance,
    cell_counts,
    end_codes,
    open_cells,
    row_counts,
    shortfalls,
    spawn_range,
)
from gamegrammar.games.battlesnake.grammar import INPUT_TOKEN, BattlesnakeCodec, GrammarError, parse, vocabulary
from gamegrammar.games.battlesnake.rollout import TokenTable, _tick_token_ids, keyframe_token_ids, words_beside
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Move, snake_id
from gamegrammar.games.battlesnake.validity import RULES, check_start, validate

__all__ = ["CUT", "SLOW", "VALID", "fast_status", "validate_fast"]  # the status codes are the core's
CHUNK = 8_192  # sequences replayed together: NumPy's per-call cost amortized, memory bounded
MIN_BATCH = 32  # below this many sequences a call goes to the reference


class _Tables:
    """The vocabulary's ids by role, as lookup arrays indexed by token id (-1: not that role)."""

    def __init__(self, config: BattlesnakeConfig) -> None:
        self.tokens = vocabulary(config)
        self.index = {t: i for i, t in enumerate(self.tokens)}
        self.table = TokenTable(config)
        size = len(self.tokens)
        ids = self.index

        def role(pairs: Iterable[tuple[str, int]], dtype: type = np.int64) -> np.ndarray:
            out = np.full(size, -1, dtype)
            for token, value in pairs:
                out[ids[token]] = value
            return out

        self.move = role(((INPUT_TOKEN[m], int(m)) for m in Move), np.int8)  # read at every token: the smallest
        self.snake = role((snake_id(k), k) for k in range(config.num_snakes))
        self.x = role((f"X{v}", v) for v in range(config.width))
        self.y = role((f"Y{v}", v) for v in range(config.height))
        self.word = {w: ids[w] for w in ("BOS", "EOS", "TICK", "SNAP", "SPAWN", "FREE", "FOOD", "EAT", "HIT", "MEET")}


@lru_cache(maxsize=8)
def _tables(config: BattlesnakeConfig) -> _Tables:
    return _Tables(config)


def validate_fast(
    sequences: Iterable[TokenSequence | str],
    config: BattlesnakeConfig,
    *,
    min_batch: int = MIN_BATCH,
    tails: bool | None = None,
    keyframe_interval: int | None = None,
    smell: bool | None = None,
    sense: bool | None = None,
    hits: bool | None = None,
) -> list[Verdict]:
    """`validate` for each sequence, exactly, many at once.

    A sequence is a list of tokens, a space-separated string, or token ids (as the sampler and the corpus hold
    them: the quickest). `tails`, `smell`, `sense`, `hits` and `keyframe_interval` declare the design and the schedule as `validate`
    takes them (None reads them off each sequence). Calls with fewer than `min_batch` sequences go to the reference.
    """
    tb = _tables(config)
    seqs = [s.split() if isinstance(s, str) else s for s in sequences]

    def reference(seq: TokenSequence) -> Verdict:
        strings = token_strings(seq, tb.tokens)
        return validate(strings, config, tails=tails, keyframe_interval=keyframe_interval, smell=smell, sense=sense, hits=hits)

    if len(seqs) < min_batch:
        return [reference(s) for s in seqs]

    def status(part: Sequence[TokenSequence]) -> np.ndarray:
        return fast_status(part, config, tails, keyframe_interval, smell, sense, hits)

    return fast_verdicts(seqs, status, reference, RULES, CHUNK)


# ---------------------------------------------------------------- reading what is written


def _flat_ids(seqs: Sequence[TokenSequence], tb: _Tables) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flat ids, lengths, rows) of the sequences made only of known tokens (not empty), back to back."""
    arrays: list[np.ndarray] = []
    rows: list[int] = []
    size = len(tb.tokens)
    for i, seq in enumerate(seqs):
        if not len(seq):
            continue
        if is_ids(seq):
            a = seq if isinstance(seq, np.ndarray) and seq.dtype.kind in "iu" else np.asarray(seq, np.int64)
            if a.min() < 0 or a.max() >= size:
                continue  # ids outside the vocabulary: the reference explains them
        else:
            try:
                got = itemgetter(*seq)(tb.index)  # one C loop per sequence
            except KeyError:  # a token from another board, or not a token
                continue
            a = np.array(got if isinstance(got, tuple) else (got,), np.int64)
        arrays.append(a)
        rows.append(i)
    lengths = np.fromiter(map(len, arrays), np.int64, len(arrays))
    dtype = tb.table.dtype  # the vocabulary's smallest: every pass over the flat ids reads a quarter of int64's bytes
    flat = np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)
    return flat, lengths, np.array(rows, np.int64)


def _opening(tokens: Sequence[str], config: BattlesnakeConfig) -> BattlesnakeState | None:
    """The state of an opening keyframe (BOS SNAP ... up to the first TICK) that is a start, else None."""
    try:
        kf = next(parse(tokens))
    except (GrammarError, StopIteration):
        return None
    if kf.end != len(tokens):
        return None
    found = Findings(len(tokens))
    state = check_start(kf, config, found)  # type: ignore[arg-type]
    return state if state is not None and not found.first else None


def fast_status(
    seqs: Sequence[TokenSequence],
    config: BattlesnakeConfig,
    tails: bool | None = None,
    keyframe_interval: int | None = None,
    smell: bool | None = None,
    sense: bool | None = None,
    hits: bool | None = None,
) -> np.ndarray:
    """Per sequence (token lists or ids): VALID, CUT (a valid prefix, no EOS) or SLOW (ask the reference)."""
    tb = _tables(config)
    status = np.full(len(seqs), SLOW, np.int8)
    flat, lengths, rows = _flat_ids(seqs, tb)
    if not len(rows):
        return status
    n = len(rows)
    word = tb.word
    where = _Where(flat, lengths, word["TICK"])
    start, written_ticks = where.start, where.ticks
    first_tick = start + lengths  # where each opening ends: its first TICK, else the sequence's end
    has_tick = written_ticks > 0
    first_tick[has_tick] = where.tick_at[np.searchsorted(where.tick_at, start[has_tick])]
    design = _read_off(where, flat == word["FREE"], n) if tails is None else np.full(n, tails)
    smelly = _read_off(where, np.isin(flat, tb.table.smell), n) if smell is None else np.full(n, smell)
    sensing = _read_off(where, np.isin(flat, tb.table.sense), n) if sense is None else np.full(n, sense)
    marks = (flat == word["HIT"]) | (flat == word["MEET"])
    hitting = _read_off(where, marks, n) if hits is None else np.full(n, hits)
    if keyframe_interval is None:
        snaps = np.flatnonzero(flat == word["SNAP"])
        snap_seq = where.seq(snaps)
        snap_tick = where.tick(snaps, snap_seq)
        snap_seq, snap_tick = snap_seq[snap_tick > 0], snap_tick[snap_tick > 0]
        first = np.unique(snap_seq, return_index=True)
        interval = np.zeros(n, np.int64)
        interval[first[0]] = snap_tick[first[1]]
    else:
        interval = np.full(n, keyframe_interval, np.int64)

    ends = flat[start + lengths - 1] == word["EOS"]
    # the openings: a start of this config, or the reference's; each distinct opening parsed and checked once
    states: list[BattlesnakeState | None] = []
    names = tb.tokens
    known: dict[bytes, BattlesnakeState | None] = {}
    for a, b in zip(start.tolist(), first_tick.tolist()):
        key = flat[a:b].tobytes()
        if key not in known:
            opening = flat[a:b].tolist()
            known[key] = _opening([names[t] for t in opening], config) if opening[0] == word["BOS"] else None
        states.append(known[key])
    ok = np.array([s is not None for s in states], bool)

    # the inputs: (sequence, tick, snake) -> move; and the spawns: (sequence, tick, j) -> padded cell
    at = np.flatnonzero(tb.move[flat] >= 0)
    seq = where.seq(at)
    after = at > start[seq]
    at, seq = at[after], seq[after]
    snake = tb.snake[flat[at - 1]]
    tick = where.tick(at, seq)
    bad_input = (snake < 0) | (tick == 0)
    ok[seq[bad_input]] = False
    horizon = int(min(written_ticks.max(initial=0), config.max_ticks))
    keep = ~bad_input & (tick <= horizon)
    moves = np.full((n, horizon + 2, config.num_snakes), -1, np.int8)
    cell = (seq[keep] * (horizon + 2) + tick[keep]) * config.num_snakes + snake[keep]  # one flat scatter
    moves.reshape(-1)[cell] = tb.move[flat[at[keep]]]
    spawns, spawn_ok = _written_spawns(flat, where, n, horizon, tb, config)
    ok &= spawn_ok

    # the replay, compared token for token with what each sequence wrote as it is written
    gen_len = np.zeros(n, np.int64)
    following = np.full(n, -1, np.int64)  # the token the rules write just past a sequence's end (-1: none)
    designs = zip(design[ok].tolist(), smelly[ok].tolist(), sensing[ok].tolist(), hitting[ok].tolist(), interval[ok].tolist())
    for t, sm, se, h, k in set(designs):
        group = np.flatnonzero(ok & (design == t) & (smelly == sm) & (sensing == se) & (hitting == h) & (interval == k))
        codec = BattlesnakeCodec(keyframe_interval=k, tails=t, smell=sm, sense=se, hits=h)
        match = _Match(flat, start[group], lengths[group])
        fine = _replay(config, codec, [states[i] for i in group], moves[group], spawns[group], written_ticks[group], tb, match)
        ok[group[~fine | match.differs]] = False
        gen_len[group] = match.cursor
        following[group] = match.following

    ok &= lengths <= gen_len
    code = np.where(ok, np.where(ends & (lengths == gen_len), VALID, CUT), SLOW)
    code[ok & ends & (lengths != gen_len)] = SLOW  # an EOS the rules write nowhere but at the end: never a match
    # A cut that leaves a complete-looking item the rules write more of: the reference replays that item and notes
    # what is missing at the cut (a head whose EAT is cut off, its MEET or not; a keyframe whose food list is): its
    # verdict, not CUT.
    short = np.flatnonzero((code == CUT) & (lengths < gen_len))
    following = following[short]
    before = flat[start[short] + lengths[short] - 1]
    food_list = (tb.x[following] >= 0) & ((before == word["FOOD"]) | (tb.y[before] >= 0))
    eat_due = (following == word["EAT"]) | (following == word["MEET"])  # a MEET may stand between a head and its EAT
    code[short[eat_due | food_list]] = SLOW
    status[rows] = code
    return status


def _read_off(where: _Where, written: np.ndarray, n: int) -> np.ndarray:
    """(n,) bool: the sequences that write any of the words `written` marks (a design read off its words)."""
    return np.bincount(where.seq(np.flatnonzero(written)), minlength=n) > 0


class _Where:
    """Which sequence and which tick (0: the opening) a position of the flat ids belongs to, for the positions
    asked about: NumPy passes over every token are the prelude's cost, so only the TICKs are counted for all."""

    def __init__(self, flat: np.ndarray, lengths: np.ndarray, tick: int) -> None:
        is_tick = flat == tick
        self.through = np.cumsum(is_tick, dtype=np.int32)  # TICKs at or before each position
        self.start = np.cumsum(lengths) - lengths
        self.end = self.start + lengths
        self.before = self.through[self.start] - is_tick[self.start]  # TICKs before each sequence
        self.ticks = (self.through[self.end - 1] - self.before).astype(np.int64)  # TICKs each sequence writes
        self.tick_at = np.flatnonzero(is_tick)

    def seq(self, at: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.start, at, side="right") - 1

    def tick(self, at: np.ndarray, seq: np.ndarray) -> np.ndarray:
        return (self.through[at] - self.before[seq]).astype(np.int64)


def _written_spawns(
    flat: np.ndarray, where: _Where, n: int, horizon: int, tb: _Tables, config: BattlesnakeConfig
) -> tuple[np.ndarray, np.ndarray]:
    """(n, horizon + 2, most) padded cells each sequence spawns per tick, in written order (-1 past the last), and
    which sequences' spawns could be read (a SPAWN without a cell on the board: the reference's)."""
    at = np.flatnonzero(flat == tb.word["SPAWN"])
    seq = where.seq(at)
    tick = where.tick(at, seq)
    ok = np.ones(n, bool)
    complete = at + 2 < where.end[seq]
    x = np.where(complete, tb.x[flat[np.minimum(at + 1, len(flat) - 1)]], -1)
    y = np.where(complete, tb.y[flat[np.minimum(at + 2, len(flat) - 1)]], -1)
    bad = complete & ((x < 0) | (y < 0) | (tick == 0))
    ok[seq[bad]] = False
    use = complete & ~bad & (tick <= horizon)  # a SPAWN cut off at the end is not replayed, as in the reference
    at, seq, x, y, tick = at[use], seq[use], x[use], y[use], tick[use]
    key = seq * (horizon + 2) + tick
    run_start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    rank = np.arange(len(key)) - np.repeat(run_start, np.diff(np.r_[run_start, len(key)]))
    width = max(int(rank.max(initial=-1)) + 1, 1)
    spawns = np.full((n, horizon + 2, width), -1, np.int64)
    spawns[seq, tick, rank] = (y + 1) * (config.width + 2) + x + 1
    return spawns, ok


# ---------------------------------------------------------------- the replay


class _Match:
    """What the replay writes, compared as it is written with what each game's sequence wrote there (nothing is
    kept): whether they differ, how many tokens the rules wrote, and the one they wrote just past its end."""

    def __init__(self, flat: np.ndarray, begin: np.ndarray, length: np.ndarray) -> None:
        self.flat, self.begin, self.end = flat, begin, begin + length  # each game's written ids: flat[begin:end]
        self.cursor = np.zeros(len(begin), np.int64)
        self.differs = np.zeros(len(begin), bool)
        self.following = np.full(len(begin), -1, np.int64)

    def write(self, games: np.ndarray, ids: np.ndarray, mask: np.ndarray) -> None:
        """The masked ids of each row (row-major, as `TokenLog.write` takes them) follow game `games[row]`'s."""
        width = mask.shape[1]
        pos = np.flatnonzero(mask)  # row-major: each row's tokens in order
        tokens = np.ascontiguousarray(ids).reshape(-1)[pos]
        row = pos // width
        counts = np.bincount(row, minlength=len(games))
        at = self.begin[games] + self.cursor[games]  # where each row's tokens go in `flat`
        self.cursor[games] += counts
        where = (at - (np.cumsum(counts) - counts))[row] + np.arange(len(tokens))
        if (at + counts > self.end[games]).any():  # rows past their sequence's end: compare what lies inside
            end = self.end[games][row]
            inside = where < end
            bad = np.zeros(len(tokens), bool)
            bad[inside] = self.flat[where[inside]] != tokens[inside]
            next_one = where == end  # the token the rules write just past the end
            self.following[games[row[next_one]]] = tokens[next_one]
        else:
            bad = self.flat[where] != tokens
        if bad.any():
            self.differs[games[row[bad]]] = True


def _batch_of(states: list[BattlesnakeState], config: BattlesnakeConfig) -> BattlesnakeBatch:
    """The batch of the openings' states, each distinct one built once."""
    index: dict[int, int] = {}
    order = np.array([index.setdefault(id(s), len(index)) for s in states], np.int64)
    distinct = list({id(s): s for s in states}.values())
    return BattlesnakeBatch.from_states(distinct, config).take(order)


def _replay(
    config: BattlesnakeConfig,
    codec: BattlesnakeCodec,
    states: list[BattlesnakeState | None],
    moves: np.ndarray,
    spawns: np.ndarray,
    written_ticks: np.ndarray,
    tb: _Tables,
    match: _Match,
) -> np.ndarray:
    """Replay each game from its opening with its written inputs and spawns, comparing what the rules write with
    `match`, as far as it ends, its written ticks go or it differs; whether every written spawn was one the map
    could make.

    Games that stop stay in the batch, idle, until a quarter of its rows are: a copy of the batch costs more than
    stepping a few idle games. Their moves, spawns and tokens are ignored; so is the move of a snake whose input is
    not written (the rules write its input word there, which the sequence lacks: it differs, or is cut before it)."""
    t_ids = tb.table
    m = len(states)
    batch = _batch_of(states, config)  # type: ignore[arg-type]
    games = np.arange(m)
    match.write(games, *keyframe_token_ids(t_ids, batch, games, bos=True))
    fine = np.ones(m, bool)
    going = np.ones(m, bool)  # per row of the batch
    tails = codec.tails
    for t in range(1, min(int(written_ticks.max(initial=0)), config.max_ticks) + 1):
        going &= (written_ticks[games] >= t) & ~match.differs[games] & fine[games]
        if 4 * int(going.sum()) <= 3 * len(games):
            batch, games, going = batch.take(going), games[going], going[going]
        if not len(games):
            break
        idle = not going.all()
        now = np.maximum(moves[games, t], 0).astype(np.int64)
        spawned = spawns[games, t]
        if idle:
            spawned = np.where(going[:, None], spawned, -1)
        beside = words_beside(batch, codec)
        turn = advance(batch, now)
        fine[games[~_place_spawns(batch, spawned) & going]] = False
        end = end_codes(batch)
        ids, mask = _tick_token_ids(t_ids, batch, turn, spawned, end, codec, tails, *beside)
        if idle:
            match.write(games[going], ids[going], mask[going])
        else:
            match.write(games, ids, mask)
        going &= end < 0
        if codec.keyframe_after(t):
            live = np.flatnonzero(going)
            if live.size:
                match.write(games[live], *keyframe_token_ids(t_ids, batch, live))
    return fine


def _place_spawns(batch: BattlesnakeBatch, spawned: np.ndarray) -> np.ndarray:
    """Put the written spawns (n, w) on the board; per game, whether step 6 could have made them: as many as
    `spawn_range` allows, each on a distinct cell open to food (`open_cells`)."""
    n = len(batch)
    count = row_counts(spawned >= 0)
    percent = batch.config.spawn_percent
    rows = np.flatnonzero((count > 0) | (shortfalls(batch) > 0) | (percent >= 100))
    fine = np.ones(n, bool)
    if not rows.size:
        return fine
    open_rows = open_cells(batch, rows)
    fewest, most = spawn_range(batch, rows, cell_counts(open_rows))
    good = (fewest <= count[rows]) & (count[rows] <= most)
    r = np.arange(len(rows))
    for j in range(spawned.shape[1]):
        cell = spawned[rows, j]
        has = cell >= 0
        safe = np.maximum(cell, 0)
        good &= ~has | open_rows[r, safe]
        open_rows[r[has], safe[has]] = False
        batch.food[rows[has], safe[has]] = True
    fine[rows] = good
    return fine
