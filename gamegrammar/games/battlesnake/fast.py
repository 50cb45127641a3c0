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
reference's own `validity.check_start`, once per sequence.

Steps, per chunk of sequences: (1) one flat id array (token strings are looked up in the vocabulary);
(2) what each sequence writes, for all at once: every input word (its snake is the token before it,
its tick the number of TICKs before it) and every SPAWN cell; the design (tails: declared, else any
FREE) and the keyframe interval (declared, else the number of the first tick followed by a SNAP,
as `validate` reads it); (3) the openings, parsed and checked; (4) per (design, interval) group, the
replay: each tick `advance` with the written inputs, the written spawns placed after checking their
number against `spawn_range` and their cells against `open_cells`, then the tick's and any
keyframe's ids written to a `TokenLog`; a game stops at its end or after its last written tick;
(5) the comparison: equal and ending in EOS is VALID; a prefix of what the rules write, without
EOS, is CUT (the reference's verdict for a sequence cut off after ticks that obey the rules:
`complete` broken at its length; a cut-off last tick is not replayed by the reference and only
compared here as far as it goes).

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

from gamegrammar.core.tokenlog import TokenLog
from gamegrammar.core.verdict import CUT, SLOW, VALID, Findings, TokenSequence, Verdict, fast_verdicts, is_ids, token_strings
from gamegrammar.games.battlesnake.batch import BattlesnakeBatch, advance, end_codes, open_cells, shortfalls, spawn_range
from gamegrammar.games.battlesnake.grammar import INPUT_TOKEN, BattlesnakeCodec, GrammarError, parse, vocabulary
from gamegrammar.games.battlesnake.rollout import TokenTable, _tick_token_ids, keyframe_token_ids
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

        def role(pairs: Iterable[tuple[str, int]]) -> np.ndarray:
            out = np.full(size, -1, np.int64)
            for token, value in pairs:
                out[ids[token]] = value
            return out

        self.move = role((INPUT_TOKEN[m], int(m)) for m in Move)
        self.snake = role((snake_id(k), k) for k in range(config.num_snakes))
        self.x = role((f"X{v}", v) for v in range(config.width))
        self.y = role((f"Y{v}", v) for v in range(config.height))
        self.word = {w: ids[w] for w in ("BOS", "EOS", "TICK", "SNAP", "SPAWN", "FREE", "FOOD", "EAT")}


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
) -> list[Verdict]:
    """`validate` for each sequence, exactly, many at once.

    A sequence is a list of tokens, a space-separated string, or token ids (as the sampler and the corpus hold
    them: the quickest). `tails` and `keyframe_interval` declare the design and the schedule as `validate` takes
    them (None reads them off each sequence). Calls with fewer than `min_batch` sequences go to the reference.
    """
    tb = _tables(config)
    seqs = [s.split() if isinstance(s, str) else s for s in sequences]

    def reference(seq: TokenSequence) -> Verdict:
        return validate(token_strings(seq, tb.tokens), config, tails=tails, keyframe_interval=keyframe_interval)

    if len(seqs) < min_batch:
        return [reference(s) for s in seqs]
    return fast_verdicts(seqs, lambda part: fast_status(part, config, tails, keyframe_interval), reference, RULES, CHUNK)


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
            a = np.asarray(seq, np.int64)
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
    flat = np.concatenate(arrays) if arrays else np.zeros(0, np.int64)
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
    seqs: Sequence[TokenSequence], config: BattlesnakeConfig, tails: bool | None = None, keyframe_interval: int | None = None
) -> np.ndarray:
    """Per sequence (token lists or ids): VALID, CUT (a valid prefix, no EOS) or SLOW (ask the reference)."""
    tb = _tables(config)
    status = np.full(len(seqs), SLOW, np.int8)
    flat, lengths, rows = _flat_ids(seqs, tb)
    if not len(rows):
        return status
    n = len(rows)
    start = np.cumsum(lengths) - lengths
    seq_of = np.repeat(np.arange(n), lengths)
    word = tb.word
    is_tick = flat == word["TICK"]
    ticks_through = np.cumsum(is_tick)  # TICKs at or before each position, over the whole flat array
    tick_no = ticks_through - (ticks_through[start] - is_tick[start])[seq_of]  # the tick a token belongs to (0: opening)
    written_ticks = np.bincount(seq_of[is_tick], minlength=n)
    first_tick = start + lengths  # where each opening ends: its first TICK, else the sequence's end
    tick_at = np.flatnonzero(is_tick)
    has_tick = written_ticks > 0
    first_tick[has_tick] = tick_at[np.searchsorted(tick_at, start[has_tick])]
    design = np.bincount(seq_of[flat == word["FREE"]], minlength=n) > 0 if tails is None else np.full(n, tails)
    if keyframe_interval is None:
        snaps = np.flatnonzero((flat == word["SNAP"]) & (tick_no > 0))
        first = np.unique(seq_of[snaps], return_index=True)
        interval = np.zeros(n, np.int64)
        interval[first[0]] = tick_no[snaps[first[1]]]
    else:
        interval = np.full(n, keyframe_interval, np.int64)

    ends = flat[start + lengths - 1] == word["EOS"]
    # the openings: a start of this config, or the reference's
    states: list[BattlesnakeState | None] = []
    names = tb.tokens
    for i in range(n):
        opening = flat[start[i] : first_tick[i]].tolist()
        states.append(_opening([names[t] for t in opening], config) if opening[0] == word["BOS"] else None)
    ok = np.array([s is not None for s in states], bool)

    # the inputs: (sequence, tick, snake) -> move; and the spawns: (sequence, tick, j) -> padded cell
    at = np.flatnonzero(tb.move[flat] >= 0)
    at = at[at > start[seq_of[at]]]
    snake = tb.snake[flat[at - 1]]
    bad_input = (snake < 0) | (tick_no[at] == 0)
    ok[seq_of[at[bad_input]]] = False
    at, snake = at[~bad_input], snake[~bad_input]
    horizon = int(min(written_ticks.max(initial=0), config.max_ticks))
    moves = np.full((n, horizon + 2, config.num_snakes), -1, np.int8)
    keep = tick_no[at] <= horizon
    moves[seq_of[at[keep]], tick_no[at[keep]], snake[keep]] = tb.move[flat[at[keep]]]
    spawns, spawn_ok = _written_spawns(flat, seq_of, start + lengths, tick_no, n, horizon, tb, config)
    ok &= spawn_ok

    generated = np.zeros(0, flat.dtype)
    gen_len = np.zeros(n, np.int64)
    gen_start = np.zeros(n, np.int64)
    for t, k in {(bool(t), int(k)) for t, k in zip(design[ok].tolist(), interval[ok].tolist())}:
        group = np.flatnonzero(ok & (design == t) & (interval == k))
        codec = BattlesnakeCodec(keyframe_interval=k, tails=t)
        ids, glen, spawn_fine = _replay(config, codec, [states[i] for i in group], moves[group], spawns[group], written_ticks[group], tb)
        ok[group[~spawn_fine]] = False
        gen_start[group] = len(generated) + np.cumsum(glen) - glen
        gen_len[group] = glen
        generated = np.concatenate([generated, ids.astype(flat.dtype)])

    # the comparison: each written token against what the rules write at its place
    ok &= lengths <= gen_len
    index = np.arange(len(flat)) - start[seq_of] + gen_start[seq_of]
    inside = ok[seq_of]
    differs = np.zeros(len(flat), bool)
    differs[inside] = generated[index[inside]] != flat[inside]
    ok &= np.bincount(seq_of[differs], minlength=n) == 0
    code = np.where(ok, np.where(ends & (lengths == gen_len), VALID, CUT), SLOW)
    code[ok & ends & (lengths != gen_len)] = SLOW  # an EOS the rules write nowhere but at the end: never a match
    # A cut that leaves a complete-looking item the rules write more of: the reference replays that item and notes
    # what is missing at the cut (a head whose EAT is cut off; a keyframe whose food list is): its verdict, not CUT.
    short = np.flatnonzero((code == CUT) & (lengths < gen_len))
    following = generated[gen_start[short] + lengths[short]]
    before = flat[start[short] + lengths[short] - 1]
    food_list = (tb.x[following] >= 0) & ((before == word["FOOD"]) | (tb.y[before] >= 0))
    code[short[(following == word["EAT"]) | food_list]] = SLOW
    status[rows] = code
    return status


def _written_spawns(
    flat: np.ndarray,
    seq_of: np.ndarray,
    end: np.ndarray,
    tick_no: np.ndarray,
    n: int,
    horizon: int,
    tb: _Tables,
    config: BattlesnakeConfig,
) -> tuple[np.ndarray, np.ndarray]:
    """(n, horizon + 2, most) padded cells each sequence spawns per tick, in written order (-1 past the last), and
    which sequences' spawns could be read (a SPAWN without a cell on the board: the reference's)."""
    at = np.flatnonzero(flat == tb.word["SPAWN"])
    seq = seq_of[at]
    ok = np.ones(n, bool)
    complete = at + 2 < end[seq]
    x = np.where(complete, tb.x[flat[np.minimum(at + 1, len(flat) - 1)]], -1)
    y = np.where(complete, tb.y[flat[np.minimum(at + 2, len(flat) - 1)]], -1)
    bad = complete & ((x < 0) | (y < 0) | (tick_no[at] == 0))
    ok[seq[bad]] = False
    use = complete & ~bad & (tick_no[at] <= horizon)  # a SPAWN cut off at the end is not replayed, as in the reference
    at, seq, x, y = at[use], seq[use], x[use], y[use]
    tick = tick_no[at]
    key = seq * (horizon + 2) + tick
    run_start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    rank = np.arange(len(key)) - np.repeat(run_start, np.diff(np.r_[run_start, len(key)]))
    width = max(int(rank.max(initial=-1)) + 1, 1)
    spawns = np.full((n, horizon + 2, width), -1, np.int64)
    spawns[seq, tick, rank] = (y + 1) * (config.width + 2) + x + 1
    return spawns, ok


# ---------------------------------------------------------------- the replay


def _replay(
    config: BattlesnakeConfig,
    codec: BattlesnakeCodec,
    states: list[BattlesnakeState | None],
    moves: np.ndarray,
    spawns: np.ndarray,
    written_ticks: np.ndarray,
    tb: _Tables,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Replay each game from its opening with its written inputs and spawns, writing what the rules write, as far
    as it ends or its written ticks go: (flat ids, lengths, whether every written spawn was one the map could make)."""
    t_ids = tb.table
    m = len(states)
    batch = BattlesnakeBatch.from_states(states, config)  # type: ignore[arg-type]
    log = TokenLog(m)
    games = np.arange(m)
    log.write(games, *keyframe_token_ids(t_ids, batch, games, bos=True))
    fine = np.ones(m, bool)
    tails = codec.tails
    for t in range(1, min(int(written_ticks.max(initial=0)), config.max_ticks) + 1):
        going = written_ticks[games] >= t
        if not going.all():
            batch, games = batch.take(going), games[going]
        if not len(games):
            break
        turn = advance(batch, moves[games, t].astype(np.int64))
        spawned = spawns[games, t]
        fine[games[~_place_spawns(batch, spawned)]] = False
        end = end_codes(batch)
        log.write(games, *_tick_token_ids(t_ids, batch, turn, spawned, end, codec, tails))
        done = end >= 0
        if codec.keyframe_after(t):
            live = np.flatnonzero(~done)
            if live.size:
                log.write(games[live], *keyframe_token_ids(t_ids, batch, live))
        if done.any():
            batch, games = batch.take(~done), games[~done]
    ids, lengths = log.assemble(t_ids.dtype)
    return ids, lengths, fine


def _place_spawns(batch: BattlesnakeBatch, spawned: np.ndarray) -> np.ndarray:
    """Put the written spawns (n, w) on the board; per game, whether step 6 could have made them: as many as
    `spawn_range` allows, each on a distinct cell open to food (`open_cells`)."""
    n = len(batch)
    count = (spawned >= 0).sum(axis=1)
    percent = batch.config.spawn_percent
    rows = np.flatnonzero((count > 0) | (shortfalls(batch) > 0) | (percent >= 100))
    fine = np.ones(n, bool)
    if not rows.size:
        return fine
    open_rows = open_cells(batch, rows)
    fewest, most = spawn_range(batch, rows, open_rows.sum(axis=1))
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
