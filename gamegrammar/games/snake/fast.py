"""The strict evaluator's verdicts for thousands of sequences at once: `validate_fast`.

Why: the reference `validity.validate` parses and replays one sequence at a time
in Python (about 1-2k sequences/s); reports over thousands of model samples and
whole-corpus checks want an order of magnitude more, with the same verdicts.

The idea. A sequence is perfectly valid exactly when it is, token for token,
what the game itself would have written: replaying its own inputs through the
rules from its first keyframe, with its own food spawns (checked to land on
empty cells), and encoding what happens. So this module does not check rule by
rule. It replays every sequence at once with the batch rules of `batch`
(`resolve_taken`, `advance`: the rules stay in one place) and, tick by tick,
compares what is written with the tokens those rules dictate (the keyframes
with `rollout.keyframe_token_ids`, the encoder the corpus writer uses).
The first keyframe must be a start (`rules.start_cell`, length 1, score 0), and
later ones must follow the keyframe schedule: after every K-th tick, K the
declared codec's keyframe interval or, undeclared, the number of each
sequence's first tick followed by one (`_keyframe_schedule`). Where a
sequence is cut off (no EOS: a sampler's length cap), only what is there is
compared; the reference's verdict for a cut-off sequence whose complete ticks
all obey the rules is exactly "complete broken at len(tokens)" (its last,
partial tick is not replayed), so that verdict is also given here.

Designs covered (`FAST_DESIGNS`): grammar v1, the sense design (a SENSE word
after every input, compared with `batch.body_neighbours` of the state before the
tick), and the sense design with the spawn column (`--sense --spawn-column`: a
spawn's column words compared with the grown body's cells in that column, read
off the batch's occupancy grid). A sequence is read as a design's when the codec
declares it or, as `validate` reads it, when it holds any of its words (a SENSE
word; VAC or OCC); so sequences of several designs may share a call. The other
designs are the reference's alone, at its speed (`python -m benchmarks.bench_evaluator`
prints both: about a thirtieth of this path's on full episodes): a declared tail-events,
head-first or body-list codec sends every sequence there; undeclared, a sequence
with any FREE, or with column words but no SENSE word (the spawn column alone),
goes there, while the others (a cell right after an input, listed cells) never
match a tick shape here, so they are never VALID and go there too.

Every sequence either matches (valid, or a valid prefix) or goes, unchanged, to
the reference `validate`: tokens outside the board's vocabulary, any mismatch,
anything unusual, and every sequence of a design not covered. The fast path
therefore only decides "obeys everything", never which rule broke, and its
verdicts equal the reference's exactly (tests/games/snake/test_fast.py checks
that on episodes, every prefix of some, and thousands of mutations, in each
design).

The grammar is not restated here. The shapes of a tick (`_TickShapes`: which
tokens each kind of tick holds, and in which columns its values go, per design)
and the layout of an episode's opening (`_Opening`) are read off the writers
themselves: the scalar engine's `rules.tick_events` and the grammar's
`EpisodeEncoder` with the design's codec, run once on marker states, with one
value changed at a time to see which column holds it (for the spawn column, a
body cell moved to each row of the spawn's column in turn). The value lookups come from the corpus writer's
`rollout.TokenTable`.

Steps, per chunk of sequences: (1) one flat id array (token ids are
concatenated; token strings are each mapped to one character, joined and read
back by NumPy: per token only a dict lookup in C); (2) every tick's written facts at once (`_TickFacts`: a tick
starts at its TICK token, so input, SENSE word, outcome, cell, LEN, spawn (and its column words) and SCORE are
read for all ticks of all sequences with a few array operations, and any tick
that is not the last of its sequence must be a plain move or an eat with a
spawn, then nothing or a keyframe up to the next TICK); (3) the first
keyframes, parsed as arrays into a `SnakeBatch`, checked to be possible states
and re-encoded to compare; (4) sequences sorted by their number of ticks, so
the ones still running at tick t are a prefix of the batch (views, no
copying); each tick: `resolve_taken` + `advance` with the written inputs (in
the sense design `probe` + `resolve`, the probe giving `body_neighbours` too), the
written food placed, and the rules' outcome, cell, length and score (and sense,
and the spawn's column) compared with the facts; keyframes after a tick are compared with the state;
(5) each sequence's last tick (a death, WIN, TIMEOUT, EOS or a cut-off) is
recorded in the loop and judged for all at once against the encoder's tick
shapes, as far as the sequence goes. Steps (2) to (5) run once per design, over
that design's sequences of the chunk.

Where the time goes (10,000 default-corpus episodes as ids, one core, 0.3 s): the
replay loop about 60%, the tick facts 20%, the rest encoding, keyframes and
verdicts; from token strings the lookup doubles the time. The sense design costs
more per tick (the replay probes all four directions for the SENSE word), the
spawn column more per eat. Calls with few
sequences go to the reference (`MIN_BATCH`): the replay's cost per tick does
not shrink with the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from operator import itemgetter

import numpy as np

from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.core.verdict import CUT, SLOW, VALID, TokenSequence, Verdict, fast_verdicts, is_ids, token_strings
from gamegrammar.games.snake import batch as sb
from gamegrammar.games.snake.grammar import FREE, EpisodeEncoder, SnakeCodec, vocabulary
from gamegrammar.games.snake.rollout import TokenTable, keyframe_token_ids
from gamegrammar.games.snake.rules import Cell, Direction, Outcome, SnakeConfig, SnakeState, start_cell, tick_events
from gamegrammar.games.snake.validity import RULES, validate

CHUNK = 16_384  # sequences replayed together: large enough to amortize NumPy's per-call cost, small enough for memory
# Below this many sequences a call goes to the reference: the batch replay pays NumPy's per-call cost (some
# 70 calls) once per tick of the longest sequence, about 20 ms for 200 ticks, whatever the batch size.
MIN_BATCH = 32

_NEVER = -2  # an expected id that matches no token
_FREE, _SENSE, _COLUMN = 1, 2, 4  # `_Tables.design_word`: the design a token's presence says a sequence is written in


# ---------------------------------------------------------------- the grammar, read off the writers

# Marker values: each is changed alone to find the columns that hold it. "sense" is the length of the snake before
# the tick, laid out below its head: at 3 its neck is deadly body beside the head, at 1 there is none.
_MARKS = {
    "head": ((1, 2), (3, 0)),
    "length": (3, 4),
    "food": ((4, 5), (0, 3)),
    "score": (6, 7),
    "input": (Direction.U, Direction.L),
    "sense": (1, 3),
}


def _changed(a: Sequence[str], b: Sequence[str]) -> tuple[int, ...]:
    """The columns where two writes of the same shape differ."""
    assert len(a) == len(b), (a, b)
    return tuple(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


def _written_tick(
    codec: SnakeCodec, height: int, outcome: Outcome, full: bool, at_limit: bool, tail_row: int | None = None, **change: object
) -> tuple[list[str], bool]:
    """One tick as the scalar engine's events and the codec's encoder write it (marker values) on a board `height`
    rows high, and whether it ends the episode.

    `full`: an eat fills the board (no food is left); `at_limit`: the tick reaches max_ticks; `tail_row`: the grown
    snake's tail moved into the food's column, at that row (which column word a body cell there changes).
    """
    value = {name: change.get(name, pair[0]) for name, pair in _MARKS.items()}
    config = SnakeConfig(height=height, max_ticks=2)
    tick = config.max_ticks if at_limit else 1
    hx, hy = value["head"]
    length = value["length"] if outcome is Outcome.EAT else 1
    body: tuple[Cell, ...] = tuple((hx, hy + k) for k in range(length))
    if tail_row is not None and length > 1:
        body = (*body[:-1], (value["food"][0], tail_row))  # type: ignore[index]
    after = SnakeState(body, Direction.U, None if full else value["food"], value["score"], tick)
    before_body = tuple((hx, hy + k) for k in range(value["sense"]))
    before = SnakeState(before_body, Direction.U, value["food"], 0, tick - 1)  # tick_events reads the state after
    events, end = tick_events(before, after, value["input"], outcome, config)
    encoder = EpisodeEncoder(codec, config)
    encoder.start(before)  # the encoder reads the state before the tick (the sense words)
    opening = len(encoder.tokens)
    encoder.tick(events, after, end is not None)
    return encoder.tokens[opening:], end is not None


def _first_difference(a: Sequence[str], b: Sequence[str]) -> int:
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


@dataclass(frozen=True)
class _Shape:
    """One kind of tick: its tokens as written (values as markers), and the columns of its values."""

    tokens: tuple[str, ...]
    done: bool  # it ends the episode (and holds the EOS)
    input: tuple[int, ...]  # (INPUT_d,)
    cell: tuple[int, ...]  # (x, y) of the head's cell, () if the tick writes none
    length: tuple[int, ...]  # (LEN,) or ()
    spawn: tuple[int, ...]  # (x, y) of the spawned food, or ()
    score: tuple[int, ...]  # (V,) or ()
    sense: tuple[int, ...]  # (SENSE_s,) in the sense design, else ()
    column: tuple[int, ...]  # the spawn's column words, top row first, in the spawn-column design, else ()

    @property
    def size(self) -> int:
        return len(self.tokens)

    @property
    def values(self) -> frozenset[int]:
        return frozenset((*self.input, *self.cell, *self.length, *self.spawn, *self.score, *self.sense, *self.column))


@dataclass(frozen=True)
class _TickShapes:
    """Every kind of tick, and which kind each (outcome code, board full, at the tick limit) is written as."""

    shapes: tuple[_Shape, ...]
    kind_of: np.ndarray  # [outcome code, full, at_limit] -> index into shapes
    input_col: int  # the input's column, the same in every shape
    sense_col: int | None  # the sense word's column, the same in every shape (None: the design writes none)
    outcome_col: int  # the first column where ticks of different outcomes differ: the outcome's word
    win_col: int  # the column where an eat that fills the board departs from one that spawns food

    def shape(self, outcome: int, full: bool = False, at_limit: bool = False) -> _Shape:
        return self.shapes[self.kind_of[outcome, int(full), int(at_limit)]]


# The designs the fast path reads (`SnakeCodec` options), and the codec each is written with; every other design is
# the reference's.
FAST_DESIGNS = {"v1": SnakeCodec(), "sense": SnakeCodec(sense=True), "sense + spawn column": SnakeCodec(sense=True, spawn_column=True)}


@cache
def _tick_shapes(codec: SnakeCodec = FAST_DESIGNS["v1"], height: int = SnakeConfig.height) -> _TickShapes:
    """The design's tick shapes on a board `height` rows high (the spawn column has a word per row)."""
    index: dict[tuple[str, ...], int] = {}
    shapes: list[_Shape] = []
    kind_of = np.zeros((len(sb.OUTCOMES), 2, 2), np.int64)
    for code, outcome in enumerate(sb.OUTCOMES):
        for full in (False, True):
            for at_limit in (False, True):
                tokens, done = _written_tick(codec, height, outcome, full, at_limit)
                key = tuple(tokens)
                if key not in index:
                    cols = {
                        name: _changed(tokens, _written_tick(codec, height, outcome, full, at_limit, **{name: pair[1]})[0])
                        for name, pair in _MARKS.items()
                    }
                    rows = [_changed(tokens, _written_tick(codec, height, outcome, full, at_limit, row)[0]) for row in range(height)]
                    column = tuple(c for row in rows for c in row)  # one column word per row, top first, or none
                    assert not column or len(column) == height, rows
                    index[key] = len(shapes)
                    shapes.append(
                        _Shape(key, done, cols["input"], cols["head"], cols["length"], cols["food"], cols["score"], cols["sense"], column)
                    )
                kind_of[code, int(full), int(at_limit)] = index[key]
    ((input_col,),) = {s.input for s in shapes}
    (sense,) = {s.sense for s in shapes}
    first = [shapes[kind_of[code, 0, 0]].tokens for code in range(len(sb.OUTCOMES))]
    outcome_col = min(_first_difference(first[0], other) for other in first[1:])
    eat, win = shapes[kind_of[sb.EAT, 0, 0]], shapes[kind_of[sb.EAT, 1, 0]]
    sense_col = sense[0] if sense else None
    return _TickShapes(tuple(shapes), kind_of, input_col, sense_col, outcome_col, _first_difference(eat.tokens, win.tokens))


@dataclass(frozen=True)
class _Opening:
    """Where the fields of an episode's opening (BOS and the first keyframe) are, for a snake of length 1.

    Each body step (LEN - 1 of them, from column `steps` on) moves every later field one column on.
    """

    x: int
    y: int
    direction: int
    length: int
    steps: int
    food: tuple[int, int]  # (x, y) of the food
    score: int  # the score's value with food on the board
    score_no_food: int  # and on a full board (no food cell written)


def _written_opening(
    body: tuple[Cell, ...] = ((1, 2),), direction: Direction = Direction.D, food: Cell | None = (4, 5), score: int = 6
) -> list[str]:
    encoder = EpisodeEncoder()
    encoder.start(SnakeState(body, direction, food, score))
    return encoder.tokens


@cache
def _opening() -> _Opening:
    base = _written_opening()
    x, y = _changed(base, _written_opening(body=((3, 0),)))
    (direction,) = _changed(base, _written_opening(direction=Direction.L))
    food = _changed(base, _written_opening(food=(0, 3)))
    (score,) = _changed(base, _written_opening(score=7))
    (score_no_food,) = _changed(_written_opening(food=None), _written_opening(food=None, score=7))
    two = _written_opening(body=((1, 2), (1, 3)))  # one body step more
    length = _first_difference(base, two)
    (steps,) = _changed(two, _written_opening(body=((1, 2), (2, 2))))
    assert two[:steps] == [*base[:length], two[length], *base[length + 1 : steps]] and two[steps + 1 :] == base[steps:]
    assert len(food) == 2
    return _Opening(x, y, direction, length, steps, (food[0], food[1]), score, score_no_food)


# ---------------------------------------------------------------- per board


@dataclass(frozen=True)
class _Tables:
    """Everything per board that the hot loop looks up, built once per config."""

    config: SnakeConfig
    table: TokenTable
    shapes: _TickShapes
    opening: _Opening
    tokens: list[str]  # id -> token
    char: dict[str, str]  # token -> one character (its id, in a code that NumPy reads back)
    wide: bool  # ids do not fit one byte: characters are read as UTF-32
    sentinel: int  # pad id: every lookup maps it to -1
    word: dict[str, int]
    input_of: np.ndarray  # id -> direction, or -1 (for every lookup: -1 = not that kind of token)
    dir_of: np.ndarray
    body_of: np.ndarray
    x_of: np.ndarray
    y_of: np.ndarray
    len_of: np.ndarray
    v_of: np.ndarray
    outcome_of: np.ndarray  # id -> outcome code of MOVE, EAT, DIE_WALL, DIE_SELF
    sense_of: np.ndarray  # id -> the directions a SENSE word names, as a mask (bit d for Direction d)
    sense_id: np.ndarray  # mask -> id of its SENSE word
    column_of: np.ndarray  # id -> 1 for OCC, 0 for VAC (the spawn column's words)
    column_id: np.ndarray  # occupied (0 or 1) -> id of its word
    design_word: np.ndarray  # id -> _FREE, _SENSE or _COLUMN for the words that mark a design, else 0
    x_cell: np.ndarray  # id -> x for X tokens; y_cell: id -> y * width for Y tokens; both hugely negative otherwise
    y_cell: np.ndarray
    x_id: np.ndarray  # x + 1 -> id of X<x>; off the board (-1, width) -> _NEVER
    y_id: np.ndarray
    len_id: np.ndarray  # length -> id of LEN<length>
    v_id: np.ndarray  # score -> id of V<score>; past the vocabulary -> _NEVER
    width: int  # columns of the longest tick shape
    template: np.ndarray  # (kinds, width + 2) the constant ids of each tick shape, _NEVER in its value columns
    klen: np.ndarray  # tokens in each tick shape
    done: np.ndarray  # the shape ends the episode (and holds the EOS)
    x_col: np.ndarray  # column of the head cell's x in each shape (a scratch column past `width` if none)
    y_col: np.ndarray
    len_col: np.ndarray
    v_col: np.ndarray
    spawn_x_col: np.ndarray
    spawn_y_col: np.ndarray
    column_cols: np.ndarray  # (kinds, column_rows) the columns of the spawn column's words (scratch if none)
    column_rows: int  # words in a spawn's column: the board's height in the spawn-column design, else 0
    full_col: np.ndarray  # the column that shows a full board (the eat that wins), scratch elsewhere
    plain: _Shape  # the shapes a tick that is not its sequence's last may have: a plain move,
    eat: _Shape  # and an eat that spawns food
    eat_words: np.ndarray  # the eat shape's constant columns after its outcome, and their ids
    eat_word_ids: np.ndarray
    spawn_word: int  # the id of the eat shape's token at `shapes.win_col`: the spawn's word (a win writes another)


def _inverse(ids: np.ndarray, size: int, first: int = 0) -> np.ndarray:
    """id -> value for a table of ids by value (values below `first` are not tokens of that kind); -1 elsewhere."""
    out = np.full(size, -1, np.int64)
    out[ids[first:]] = np.arange(first, len(ids))
    return out


@lru_cache(maxsize=16)
def _tables(config: SnakeConfig, codec: SnakeCodec = FAST_DESIGNS["v1"]) -> _Tables:
    """The lookups for one board, and the tick shapes of one of the designs of `FAST_DESIGNS`."""
    tok = GameTokenizer(vocabulary(config))
    ids = tok.ids
    vocab = len(tok)
    wide = vocab >= 255
    code = [i if i < 0xD800 else i + 0x800 for i in range(vocab)]  # skip the surrogates UTF-32 cannot carry
    char = {t: chr(code[i]) for t, i in ids.items()}
    size = vocab + 1  # the sentinel too

    w, cells = config.width, config.cells
    table = TokenTable(config)
    word = dict(table.word)
    never = np.array([_NEVER])
    x_id = np.concatenate([never, table.x.astype(np.int64), never])
    y_id = np.concatenate([never, table.y.astype(np.int64), never])
    len_id = table.len.astype(np.int64).copy()
    len_id[0] = _NEVER
    v_id = np.concatenate([table.value.astype(np.int64), np.full(cells + 2, _NEVER)])  # scores can pass cells - 1
    x_of, y_of = _inverse(table.x, size), _inverse(table.y, size)
    outcome_of = np.full(size, -1, np.int64)
    outcome_of[[word[o.value] for o in sb.OUTCOMES]] = np.arange(len(sb.OUTCOMES))

    ts = _tick_shapes(codec, config.height)
    design_word = np.zeros(size, np.uint8)
    design_word[ids[FREE]], design_word[table.sense], design_word[table.column] = _FREE, _SENSE, _COLUMN
    width = max(s.size for s in ts.shapes)
    scratch = width  # two extra columns where values a kind does not have are written and ignored

    def row(shape: _Shape) -> list[int]:
        values = shape.values
        return [_NEVER if i in values else ids[t] for i, t in enumerate(shape.tokens)] + [_NEVER] * (width + 2 - shape.size)

    def col(cols: tuple[int, ...], k: int) -> int:
        return cols[k] if cols else scratch

    shapes = ts.shapes
    plain, eat = ts.shape(sb.MOVE), ts.shape(sb.EAT)
    win = ts.kind_of[sb.EAT, 1, 0]
    eat_words = np.array([i for i in range(ts.outcome_col + 1, eat.size) if i not in eat.values], np.int64)
    return _Tables(
        config=config,
        table=table,
        shapes=ts,
        opening=_opening(),
        tokens=list(tok.tokens),
        char=char,
        wide=wide,
        sentinel=vocab,
        word=word,
        input_of=_inverse(table.input, size),
        dir_of=_inverse(table.dir, size),
        body_of=_inverse(table.body, size),
        x_of=x_of,
        y_of=y_of,
        len_of=_inverse(table.len, size, first=1),  # table.len[0] is no length
        v_of=_inverse(table.value, size),
        outcome_of=outcome_of,
        sense_of=_inverse(table.sense, size),
        sense_id=table.sense.astype(np.int64),
        column_of=_inverse(table.column, size),
        column_id=table.column.astype(np.int64),
        design_word=design_word,
        x_cell=np.where(x_of >= 0, x_of, -(cells + 1) * 4),
        y_cell=np.where(y_of >= 0, y_of * w, -(cells + 1) * 4),
        x_id=x_id,
        y_id=y_id,
        len_id=len_id,
        v_id=v_id,
        width=width,
        template=np.array([row(s) for s in shapes], np.int64),
        klen=np.array([s.size for s in shapes], np.int64),
        done=np.array([s.done for s in shapes]),
        x_col=np.array([col(s.cell, 0) for s in shapes]),
        y_col=np.array([col(s.cell, 1) for s in shapes]),
        len_col=np.array([col(s.length, 0) for s in shapes]),
        v_col=np.array([col(s.score, 0) for s in shapes]),
        spawn_x_col=np.array([col(s.spawn, 0) for s in shapes]),
        spawn_y_col=np.array([col(s.spawn, 1) for s in shapes]),
        column_cols=np.array([s.column or (scratch,) * len(eat.column) for s in shapes], np.int64).reshape(len(shapes), -1),
        column_rows=len(eat.column),
        full_col=np.array([ts.win_col if k == win else scratch for k in range(len(shapes))]),
        plain=plain,
        eat=eat,
        eat_words=eat_words,
        eat_word_ids=np.array([ids[eat.tokens[i]] for i in eat_words], np.int64),
        spawn_word=ids[eat.tokens[ts.win_col]],
    )


# ---------------------------------------------------------------- verdicts


def _as_tokens(seq: TokenSequence, tb: _Tables) -> Sequence[str]:
    """Token strings for the reference (ids outside the vocabulary become tokens no grammar knows)."""
    return token_strings(seq, tb.tokens)


def validate_fast(
    sequences: Iterable[TokenSequence | str],
    config: SnakeConfig,
    *,
    min_batch: int = MIN_BATCH,
    tails: bool | None = None,
    head_first: bool | None = None,
    sense: bool | None = None,
    spawn_column: bool | None = None,
    body_list: bool | None = None,
    keyframe_interval: int | None = None,
) -> list[Verdict]:
    """`validate` for each sequence, exactly, many at once.

    A sequence is a list of tokens, a space-separated string, or token ids (a list
    of ints or an integer array, as the sampler and the corpus hold them: the
    quickest, no strings to look up). Calls with fewer than `min_batch`
    sequences are answered by the reference alone (it is quicker there). The design is
    declared as `validate` takes it (`tails`, `head_first`, `sense`, `spawn_column`,
    `body_list`; None reads it off each sequence), and so is `keyframe_interval`: the fast path reads grammar v1, the
    sense design, and the sense design with the spawn column (`FAST_DESIGNS`); a
    declared tail-events, head-first or body-list design goes to the reference alone,
    and a sequence of any design not covered, or holding a word of a design declared off,
    is never VALID here, so it goes to the reference too.
    """
    tb = _tables(config)
    seqs = [s.split() if isinstance(s, str) else s for s in sequences]
    design = {
        "tails": tails,
        "head_first": head_first,
        "sense": sense,
        "spawn_column": spawn_column,
        "body_list": body_list,
        "keyframe_interval": keyframe_interval,
    }
    if tails or head_first or body_list or len(seqs) < min_batch:
        return [validate(_as_tokens(s, tb), config, **design) for s in seqs]
    return fast_verdicts(
        seqs,
        lambda part: fast_status(part, config, sense, spawn_column, keyframe_interval),
        lambda seq: validate(_as_tokens(seq, tb), config, **design),
        RULES,
        CHUNK,
    )


# ---------------------------------------------------------------- encoding


def _encode(seqs: Sequence[Sequence[str] | Sequence[int] | np.ndarray], tb: _Tables, pad: int) -> tuple[np.ndarray, ...]:
    """(flat ids padded with the sentinel, start, end) of the sequences made only of known tokens, and their rows."""
    kinds = [is_ids(s) for s in seqs]
    if all(kinds):
        return _encode_ids(seqs, tb, pad)
    if any(kinds):
        seqs = [_as_tokens(s, tb) for s in seqs]
    return _encode_tokens(seqs, tb, pad)  # type: ignore[arg-type]


def _encode_tokens(seqs: Sequence[Sequence[str]], tb: _Tables, pad: int) -> tuple[np.ndarray, ...]:
    char = tb.char
    pieces: list[str] = []
    rows: list[int] = []
    for i, seq in enumerate(seqs):
        try:
            pieces.append("".join(itemgetter(*seq)(char)))  # one C loop per sequence (empty ones raise TypeError)
        except (KeyError, TypeError):  # a token from another board, or not a token: the reference explains it
            continue
        rows.append(i)
    lengths = np.fromiter(map(len, pieces), np.int64, len(pieces))
    text = "".join(pieces)
    if tb.wide:
        flat = np.frombuffer(text.encode("utf-32-le"), np.uint32).astype(np.int32)
        flat[flat >= 0xE000] -= 0x800
    else:
        flat = np.frombuffer(text.encode("latin-1"), np.uint8)
    return _padded(flat, lengths, np.array(rows, np.int64), tb, pad)


def _encode_ids(seqs: Sequence[Sequence[int] | np.ndarray], tb: _Tables, pad: int) -> tuple[np.ndarray, ...]:
    arrays = [np.asarray(s) for s in seqs]
    lengths = np.fromiter(map(len, arrays), np.int64, len(arrays))
    flat = np.concatenate(arrays).astype(np.int32) if arrays else np.zeros(0, np.int32)
    bad = (flat < 0) | (flat >= tb.sentinel) if len(flat) else np.zeros(0, bool)
    good = lengths > 0
    if bad.any():  # ids outside the vocabulary: the reference explains them
        good[np.repeat(np.arange(len(arrays)), lengths)[bad]] = False
        flat = flat[np.repeat(good, lengths)]
    return _padded(flat, lengths[good], np.flatnonzero(good), tb, pad)


def _padded(flat: np.ndarray, lengths: np.ndarray, rows: np.ndarray, tb: _Tables, pad: int) -> tuple[np.ndarray, ...]:
    flat = np.concatenate([flat, np.full(pad, tb.sentinel, flat.dtype)])
    end = np.cumsum(lengths)
    return flat, end - lengths, end, rows


def _match(flat: np.ndarray, pos: np.ndarray, end: np.ndarray, ids: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Do the tokens from `pos` equal each row's ids[mask] (ignoring any past `end`)? And how many are they?"""
    offset = np.cumsum(mask, axis=1) - 1
    at = pos[:, None] + offset
    good = (flat[at] == ids) | ~mask | (at >= end[:, None])
    return good.all(axis=1), offset[:, -1] + 1


# ---------------------------------------------------------------- the replay


def fast_status(
    seqs: Sequence[Sequence[str] | Sequence[int] | np.ndarray],
    config: SnakeConfig,
    sense: bool | None = None,
    spawn_column: bool | None = None,
    keyframe_interval: int | None = None,
) -> np.ndarray:
    """Per sequence (token lists or ids): VALID, CUT (a valid prefix, no EOS) or SLOW (ask the reference).

    `sense`: True holds every sequence to the sense design; None reads the sense design where a sequence holds any
    SENSE word and grammar v1 elsewhere; False (declared off, as `validate` takes it) sends a sequence that holds one
    to the reference, for whom it is a grammar error. `spawn_column` likewise, with the column words (VAC, OCC).
    Each sequence is replayed in the design of `FAST_DESIGNS` it is read as; the spawn column without the sense words
    is the reference's. `keyframe_interval`: where keyframes go (None: each sequence's first keyframe after a tick
    sets it, as `validate` reads it).
    """
    tb = _tables(config)
    status = np.full(len(seqs), SLOW, np.int8)
    flat, start, end, rows = _encode(seqs, tb, pad=2 * (config.cells + 2 * tb.width))
    if not len(rows):
        return status
    tpos = np.flatnonzero(flat[: end[-1]] == tb.word["TICK"])  # where each tick starts, if the sequence is sound
    held = np.bitwise_or.reduceat(tb.design_word[flat[: end[-1]]], start)  # rows are back to back, none empty
    tails = (held & _FREE) > 0  # tail-events sequences: the reference's
    if sense is False:
        tails |= (held & _SENSE) > 0  # words of a design declared off: the reference's grammar errors
    if spawn_column is False:
        tails |= (held & _COLUMN) > 0
    sensed = np.ones(len(rows), bool) if sense else (held & _SENSE) > 0
    columned = np.ones(len(rows), bool) if spawn_column else (held & _COLUMN) > 0
    for codec in FAST_DESIGNS.values():
        group = (sensed == codec.sense) & (columned == codec.spawn_column) & ~tails
        if group.all():  # the common case: one design
            status[rows] = _design_status(flat, tpos, start, end, _tables(config, codec), keyframe_interval)
        elif group.any():
            g = np.flatnonzero(group)
            ticks = tpos[group[np.searchsorted(start, tpos, side="right") - 1]]  # the group's ticks
            status[rows[g]] = _design_status(flat, ticks, start[g], end[g], _tables(config, codec), keyframe_interval)
    return status


def _design_status(
    flat: np.ndarray, tpos: np.ndarray, start: np.ndarray, end: np.ndarray, tb: _Tables, keyframe_interval: int | None
) -> np.ndarray:
    """`fast_status` for the rows of one design (`tpos`: where their ticks start, if they are sound)."""
    status = np.full(len(start), SLOW, np.int8)
    first = np.searchsorted(tpos, start)
    n_ticks = np.searchsorted(tpos, end) - first
    facts = _TickFacts.read(flat, tpos, first, n_ticks, end, tb)
    interval, off_schedule = _keyframe_schedule(facts, n_ticks, keyframe_interval)
    keep = np.flatnonzero((n_ticks >= 1) & (n_ticks <= tb.config.max_ticks) & ~facts.row_bad & ~off_schedule)
    keep = keep[np.argsort(-n_ticks[keep], kind="stable")]  # longest first: the running rows are a prefix
    if not len(keep):
        return status
    start, end, n_ticks, first = start[keep], end[keep], n_ticks[keep], first[keep]
    batch, p, ok = _first_keyframes(flat, start, end, tb)
    ok &= p == tpos[first]  # the first tick follows the keyframe
    status[keep] = _replay(flat, tpos, facts, keep, batch, first, ok, end, n_ticks, interval[keep], tb)
    return status


def _keyframe_schedule(facts: _TickFacts, n_ticks: np.ndarray, declared: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's keyframe interval K (-1: not yet fixed, read off a sequence with no keyframe before its last tick),
    and the rows whose keyframes after their ticks before the last are not exactly every K-th (`keyframe_schedule`).

    Keyframes come at most one per tick, so "every one on a multiple of K, and as many as the multiples of K before
    the last tick" is "exactly there". The last tick's keyframe is `_judge_last`'s.
    """
    rows, ticks = facts.keyframe_row, facts.keyframe_tick
    n = len(n_ticks)
    if declared is None:  # the first keyframe after a tick sets K; a row without one before its last tick has none yet
        none = np.iinfo(np.int64).max
        interval = np.full(n, none, np.int64)
        np.minimum.at(interval, rows, ticks)
        interval[interval == none] = -1
    else:
        interval = np.full(n, declared, np.int64)
    k = interval[rows]
    off = np.zeros(n, bool)
    off[rows[(k <= 0) | (ticks % np.maximum(k, 1) != 0)]] = True
    due = np.where(interval > 0, np.maximum(n_ticks - 1, 0) // np.maximum(interval, 1), 0)
    return interval, off | (np.bincount(rows, minlength=n) != due)


@dataclass
class _TickFacts:
    """What every tick (every TICK token of the chunk) says, read once for all ticks with array operations.

    A tick that is not its sequence's last must be a plain move or an eat with a spawn, the design's shapes
    `tb.plain` and `tb.eat`, then nothing or a keyframe up to the next TICK; `row_bad` marks the sequences with
    one that is not. The replay then only compares numbers: the outcome, the cell, LEN, SCORE, the spawn cell
    (and the SENSE word's directions, the spawn's column words) with what the rules say.
    """

    act: np.ndarray  # the input's direction, -1 if not an input
    sense: np.ndarray | None  # the SENSE word's mask, -1 if not one (None: the design writes none)
    outcome: np.ndarray  # the written outcome (MOVE, EAT, DIE_WALL, DIE_SELF codes), -1 if none
    cell: np.ndarray  # the MOVE cell, negative if not a cell
    length: np.ndarray  # LEN after an eat
    score: np.ndarray  # SCORE after an eat
    spawn: np.ndarray  # the FOOD_SPAWN cell after an eat, negative if none
    column: np.ndarray | None  # (ticks, column_rows) an eat's column words (1 OCC, 0 VAC, -1 neither); None: no words
    keyframe_row: np.ndarray  # for each keyframe after a tick (not a last one): its row (chunk order),
    keyframe_tick: np.ndarray  # the tick's number in its sequence (1 = first),
    keyframe_pos: np.ndarray  # where it starts and how many tokens it has up to the next TICK
    keyframe_size: np.ndarray
    row_bad: np.ndarray  # per row (chunk order)

    @classmethod
    def read(cls, flat: np.ndarray, tpos: np.ndarray, first: np.ndarray, n_ticks: np.ndarray, end: np.ndarray, tb: _Tables) -> _TickFacts:
        plain, eat = tb.plain, tb.eat
        n = len(tpos)
        q = tpos
        act = tb.input_of[flat[q + tb.shapes.input_col]]
        sense_col = tb.shapes.sense_col
        sense = None if sense_col is None else tb.sense_of[flat[q + sense_col]]
        outcome = tb.outcome_of[flat[q + tb.shapes.outcome_col]]
        (x, y) = plain.cell
        cell = tb.x_cell[flat[q + x]] + tb.y_cell[flat[q + y]]
        length = np.zeros(n, np.int64)
        score = np.zeros(n, np.int64)
        spawn = np.full(n, -1, np.int64)
        column = np.full((n, tb.column_rows), -1, np.int8) if tb.column_rows else None
        size = np.full(n, plain.size, np.int64)
        worded = act >= 0  # an input (and in the sense design a SENSE word) where the shapes have them
        if sense is not None:
            worded &= sense >= 0
        shape_ok = worded & (outcome == sb.MOVE)  # a plain move has no other word than its outcome
        eats = np.flatnonzero(outcome == sb.EAT)
        if eats.size:
            w = flat[q[eats, None] + np.arange(eat.size)]
            (x, y), (sx, sy) = eat.cell, eat.spawn
            cell[eats] = tb.x_cell[w[:, x]] + tb.y_cell[w[:, y]]
            length[eats], score[eats] = tb.len_of[w[:, eat.length[0]]], tb.v_of[w[:, eat.score[0]]]
            spawned = w[:, tb.shapes.win_col] == tb.spawn_word  # the word of the spawn (a last tick may be any shape)
            spawn[eats] = np.where(spawned, tb.x_cell[w[:, sx]] + tb.y_cell[w[:, sy]], -1)
            words = (w[:, tb.eat_words] == tb.eat_word_ids).all(axis=1)
            if column is not None:
                column[eats] = tb.column_of[w[:, eat.column]]
                words &= (column[eats] >= 0).all(axis=1)
            shape_ok[eats] = worded[eats] & words & (spawn[eats] >= 0) & (length[eats] > 0) & (score[eats] >= 0)
            size[eats] = eat.size
        # up to the next TICK: nothing, or a keyframe (matched against the state in the replay)
        span = np.diff(q, append=end[-1])
        gap = span - size
        with_kf = (gap > 0) & (flat[np.minimum(q + size, len(flat) - 1)] == tb.word["SNAP"])
        shape_ok &= (gap == 0) | with_kf
        last = np.zeros(n, bool)
        has = n_ticks > 0
        last[(first + n_ticks - 1)[has]] = True
        bad = np.flatnonzero(~shape_ok & ~last)
        row_bad = np.zeros(len(first), bool)
        row_bad[np.searchsorted(first, bad, side="right") - 1] = True
        keyframe = np.flatnonzero(with_kf & shape_ok & ~last)
        row = np.searchsorted(first, keyframe, side="right") - 1  # rows without ticks share `first` with the next
        number = keyframe - first[row] + 1
        return cls(
            act, sense, outcome, cell, length, score, spawn, column, row, number, q[keyframe] + size[keyframe], gap[keyframe], row_bad
        )


def _first_keyframes(flat: np.ndarray, start: np.ndarray, end: np.ndarray, tb: _Tables) -> tuple[sb.SnakeBatch, np.ndarray, np.ndarray]:
    """The batch of states the first keyframes show, where after them each sequence goes on, and which are sound.

    A keyframe is sound when it parses as a possible state (on the board, distinct
    cells, LEN = the chain, food off the body and missing only on a full board)
    that is a start (`rules.start_cell`, LEN1, SCORE V0: rule start_position),
    and its tokens are exactly that state's encoding.
    """
    cfg = tb.config
    w, h, cells = cfg.width, cfg.height, cfg.cells
    m = len(start)
    op = tb.opening
    head = flat[start[:, None] + np.arange(op.steps)]  # BOS SNAP PLAYER Xx Yy DIR_d LENn BODY
    hx, hy = tb.x_of[head[:, op.x]], tb.y_of[head[:, op.y]]
    direction, length = tb.dir_of[head[:, op.direction]], tb.len_of[head[:, op.length]]
    bad = (hx < 0) | (hy < 0) | (direction < 0) | (length < 1)
    length = np.where(bad, 1, length)
    steps = int(length.max()) - 1
    used = np.arange(steps) < (length - 1)[:, None]
    step = tb.body_of[flat[start[:, None] + op.steps + np.arange(steps)]]
    bad |= (used & (step < 0)).any(axis=1)
    step = np.where(used & (step >= 0), step, 0)
    x = hx[:, None] + np.cumsum(np.where(used, sb.DX[step], 0), axis=1)
    y = hy[:, None] + np.cumsum(np.where(used, sb.DY[step], 0), axis=1)
    bad |= (used & ((x < 0) | (x >= w) | (y < 0) | (y >= h))).any(axis=1)
    body = np.concatenate([(hy * w + hx)[:, None], y * w + x], axis=1)
    shift = start + length - 1  # every field after the body steps
    fx, fy = tb.x_of[flat[shift + op.food[0]]], tb.y_of[flat[shift + op.food[1]]]
    has_food = (fx >= 0) & (fy >= 0)
    score = tb.v_of[flat[shift + np.where(has_food, op.score, op.score_no_food)]]
    bad |= score < 0
    x0, y0 = start_cell(cfg)
    start_ok = (hx == x0) & (hy == y0) & (length == 1) & (score == 0)  # rule start_position: the reference's where not
    ok = ~bad
    length = np.where(ok, length, 1)  # unsound rows get a harmless state, replayed but never believed
    ok &= start_ok
    batch = sb.SnakeBatch.from_cells(
        cfg,
        np.where(ok[:, None], body, 0),
        length,
        np.where(ok, direction, 0),
        np.where(ok & has_food, fy * w + fx, -1),
        np.where(ok, score, 0),
    )
    # a possible state: distinct cells, food off the body, and no food only when the board is full
    ok &= batch.occ.sum(axis=1) == length
    food = batch.food
    ok &= ~batch.occ[np.arange(m), np.maximum(food, 0)] | (food < 0)
    ok &= (food < 0) == (length == cells)
    ids, mask = keyframe_token_ids(tb.table, batch, np.arange(m), bos=True)
    same, size = _match(flat, start, end, ids, mask)
    ok &= same & (start + size <= end)
    return batch, start + size, ok


@dataclass
class _LastTicks:
    """What each row's last tick looked like (state after it included), recorded in the loop, judged after it."""

    pos: np.ndarray
    outcome: np.ndarray
    sense: np.ndarray  # the sense word's mask the rules give (the sense design; zeros otherwise)
    x: np.ndarray
    y: np.ndarray
    length: np.ndarray
    score: np.ndarray
    spawn_ok: np.ndarray
    full: np.ndarray
    column: np.ndarray  # (n, column_rows) the ids of the column words the rules give for the spawn written
    kf_same: np.ndarray  # a keyframe follows the tick and matches the state (only as far as the sequence goes)
    kf_size: np.ndarray  # its tokens, 0 when none follows

    @classmethod
    def empty(cls, n: int, column_rows: int) -> _LastTicks:
        z = np.zeros(n, np.int64)
        no = np.zeros(n, bool)
        column = np.zeros((n, column_rows), np.int64)
        return cls(z, z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), z.copy(), no, no.copy(), column, no.copy(), z.copy())


def _replay(
    flat: np.ndarray,
    tpos: np.ndarray,
    facts: _TickFacts,
    keep: np.ndarray,
    batch: sb.SnakeBatch,
    first: np.ndarray,
    ok: np.ndarray,
    end: np.ndarray,
    n_ticks: np.ndarray,
    interval: np.ndarray,
    tb: _Tables,
) -> np.ndarray:
    """Step every sequence through its ticks (rows sorted by n_ticks, longest first) and compare; return statuses.

    Rows with ticks to come are compared here with the facts their ticks wrote;
    a row's last tick (any shape, EOS, or a cut-off) is recorded and judged for
    all rows at once by `_judge_last`.
    """
    cells = tb.config.cells
    n = len(ok)
    last = _LastTicks.empty(n, tb.column_rows)
    column_at = tb.config.width * np.arange(tb.column_rows)  # a column's cells, top row first, from its x
    # running[t] = rows with at least t ticks: rows [0, running[t]) are still going at tick t
    last_tick = int(n_ticks[0])
    running = np.searchsorted(-n_ticks, -np.arange(last_tick + 2), side="right")
    # keyframes after ticks, in replay rows, grouped by tick number
    rank = np.full(len(facts.row_bad), -1)
    rank[keep] = np.arange(n)
    kf_row = rank[facts.keyframe_row]
    kept = np.flatnonzero(kf_row >= 0)
    order = kept[np.argsort(facts.keyframe_tick[kept], kind="stable")]
    kf_row, kf_pos, kf_size = kf_row[order], facts.keyframe_pos[order], facts.keyframe_size[order]
    kf_at = np.searchsorted(facts.keyframe_tick[order], np.arange(last_tick + 2))
    tick = first.copy()  # each row's current tick index
    view, view_m = batch, len(batch)
    for t in range(1, last_tick + 1):
        m, mb = int(running[t]), int(running[t + 1])  # rows [mb, m) end at this tick
        if m != view_m:
            view, view_m = batch.take(slice(0, m)), m
        ti = tick[:m]
        if facts.sense is None:
            res, sensed = sb.resolve_taken(view, facts.act[ti] & 3), None
        else:  # the sense word comes from the state before the tick: all four directions probed, one taken
            pr = sb.probe(view)
            res, sensed = sb.resolve(view, facts.act[ti] & 3, pr), sb.body_neighbours(pr)
        sb.advance(view, res)
        outcome = res.outcome
        # Eats, wherever they are: the food the sequence spawns, if it lands on an empty cell of a board not full.
        eaters = np.flatnonzero(outcome == sb.EAT)
        spawn_ok = full = column = None
        if eaters.size:
            cell = facts.spawn[ti[eaters]]
            full = view.length[eaters] == cells
            spawn_ok = (cell >= 0) & ~full
            spawn_ok &= ~view.occ.reshape(-1)[eaters * cells + np.maximum(cell, 0)]
            view.food[eaters] = np.where(spawn_ok, cell, -1)
            if tb.column_rows:  # rules.column_occupancy: the grown body in the written spawn's column
                column = view.occ[eaters[:, None], np.maximum(cell, 0)[:, None] % tb.config.width + column_at]
        if mb:  # rows with ticks to come: what they wrote must be what the rules say
            tb_ = ti[:mb]
            good = (outcome[:mb] == facts.outcome[tb_]) & (res.cell[:mb] == facts.cell[tb_])
            if sensed is not None:
                good &= sensed[:mb] == facts.sense[tb_]
            k = int(np.searchsorted(eaters, mb))
            if k:
                e = eaters[:k]
                te = tb_[e]
                good[e] &= spawn_ok[:k] & (facts.length[te] == view.length[e]) & (facts.score[te] == view.score[e])
                if column is not None:
                    good[e] &= (facts.column[te] == column[:k]).all(axis=1)
            ok[:mb] &= good
            a, b = kf_at[t], kf_at[t + 1]
            if a < b:  # keyframes after this tick: the state, exactly, filling the gap to the next TICK
                sel = a + np.flatnonzero(ok[kf_row[a:b]])
                if sel.size:
                    rows = kf_row[sel]
                    same, size = _match(flat, kf_pos[sel], end[rows], *keyframe_token_ids(tb.table, view, rows))
                    ok[rows] &= same & (size == kf_size[sel])
        if mb < m:
            _record_last(last, flat, view, res, sensed, tpos[ti[mb:]], mb, m, t, eaters, spawn_ok, full, column, ok, end, tb)
        ti += 1
    return _judge_last(flat, last, ok, end, n_ticks, interval, tb)


def _record_last(
    last: _LastTicks,
    flat: np.ndarray,
    view: sb.SnakeBatch,
    res: sb.Resolution,
    sensed: np.ndarray | None,
    pos: np.ndarray,
    mb: int,
    m: int,
    t: int,
    eaters: np.ndarray,
    spawn_ok: np.ndarray | None,
    full: np.ndarray | None,
    column: np.ndarray | None,
    ok: np.ndarray,
    end: np.ndarray,
    tb: _Tables,
) -> None:
    """Keep what rows [mb, m) (starting their last tick at `pos`) need to be judged; match a keyframe after it now."""
    last.pos[mb:m] = pos
    outcome = last.outcome[mb:m] = res.outcome[mb:m]
    if sensed is not None:
        last.sense[mb:m] = sensed[mb:m]
    last.x[mb:m], last.y[mb:m] = res.x[mb:m], res.y[mb:m]
    last.length[mb:m], last.score[mb:m] = view.length[mb:m], view.score[mb:m]
    if eaters.size:
        k = int(np.searchsorted(eaters, mb))
        e = eaters[k:]
        last.spawn_ok[e], last.full[e] = spawn_ok[k:], full[k:]
        if column is not None:
            last.column[e] = tb.column_id[column[k:].view(np.uint8)]
    if t < tb.config.max_ticks:  # a tick that does not end the episode may be followed by a keyframe
        after = pos + np.where(outcome == sb.EAT, tb.eat.size, tb.plain.size)
        stop = end[mb:m]
        shows = (outcome <= sb.EAT) & (after < stop) & (flat[np.minimum(after, stop)] == tb.word["SNAP"])
        # ok so far, and a score the vocabulary has (this tick is judged later: an eat may have passed V<cells - 1>)
        kf = np.flatnonzero(shows & ok[mb:m] & (view.score[mb:m] < tb.config.cells))
        if kf.size:
            rows = mb + kf
            same, size = _match(flat, after[kf], stop[kf], *keyframe_token_ids(tb.table, view, rows))
            last.kf_same[rows], last.kf_size[rows] = same, size


def _judge_last(
    flat: np.ndarray, last: _LastTicks, ok: np.ndarray, end: np.ndarray, n_ticks: np.ndarray, interval: np.ndarray, tb: _Tables
) -> np.ndarray:
    """Every row's last tick, any shape, against the tokens the encoder would write (as far as the sequence goes).

    A keyframe may follow it where the schedule has one (`interval`: K, or -1 when no keyframe has fixed it yet);
    one that is due and missing leaves tokens that are not a keyframe after the tick, which no shape allows."""
    n = len(ok)
    pos = last.pos
    width = tb.width
    g = flat[pos[:, None] + np.arange(width)]
    shapes, eat = tb.shapes, tb.eat
    # an eat that does not write the spawn's word is judged as the eat that fills the board (WIN)
    wins = (last.outcome == sb.EAT) & (g[:, shapes.win_col] != tb.spawn_word)
    at_limit = n_ticks >= tb.config.max_ticks  # rules.end_reason's tick limit, for every row at once
    kind = shapes.kind_of[last.outcome, wins.astype(np.int64), at_limit.astype(np.int64)]
    expect = tb.template[kind]
    r = np.arange(n)
    i = shapes.input_col
    expect[:, i] = np.where(tb.input_of[g[:, i]] >= 0, g[:, i], _NEVER)
    if shapes.sense_col is not None:
        expect[:, shapes.sense_col] = tb.sense_id[last.sense]
    expect[r, tb.x_col[kind]] = tb.x_id[last.x + 1]
    expect[r, tb.y_col[kind]] = tb.y_id[last.y + 1]
    expect[r, tb.len_col[kind]] = tb.len_id[last.length]
    expect[r, tb.v_col[kind]] = tb.v_id[last.score]
    expect[r, tb.spawn_x_col[kind]] = np.where(last.spawn_ok, g[:, eat.spawn[0]], _NEVER)
    expect[r, tb.spawn_y_col[kind]] = g[:, eat.spawn[1]]
    if tb.column_rows:
        expect[r[:, None], tb.column_cols[kind]] = last.column
    full_col = tb.full_col[kind]
    expect[r, full_col] = np.where(last.full, expect[r, full_col], _NEVER)  # the winning shape only on a full board
    shown = np.minimum(end - pos, tb.klen[kind])  # a cut-off sequence shows only part of its last tick
    good = ok & ((g == expect[:, :width]) | (np.arange(width) >= shown[:, None])).all(axis=1)
    after = pos + tb.klen[kind]
    done = tb.done[kind]
    # a keyframe may follow a tick that does not end the episode (it was matched while the state was at hand)
    with_kf = ~done & (last.kf_size > 0) & (after < end)
    due = (interval < 0) | ((interval > 0) & (n_ticks % np.maximum(interval, 1) == 0))
    good &= ~with_kf | (last.kf_same & due)
    after += np.where(with_kf, last.kf_size, 0)
    good &= after >= end  # nothing may follow (a complete sequence ends with the EOS its end tick holds)
    return np.where(good, np.where(done & (after == end), VALID, CUT), SLOW).astype(np.int8)
