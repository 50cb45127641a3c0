"""Snake's fast evaluator gives exactly the reference `validate`'s verdicts: on episodes, prefixes and mutations."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache

import numpy as np
import pytest

from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.evaluation import validate_many
from gamegrammar.games.snake import batch as sb
from gamegrammar.games.snake import fast
from gamegrammar.games.snake.fast import CUT, SLOW, VALID, fast_status, validate_fast
from gamegrammar.games.snake.grammar import COLUMN_WORDS, SENSE_TOKENS, SnakeCodec, vocabulary
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.validity import validate

BOARD = SnakeConfig()
SMALL = SnakeConfig(4, 4, 400)


@cache
def episodes(
    config: SnakeConfig, keyframe_interval: int, agents: tuple[tuple[str, float], ...], n: int, tmp: str, design: tuple[str, ...] = ()
) -> list[list[str]]:
    """Episodes of a corpus written in grammar v1 or with the codec options `design` on."""
    out = f"{tmp}/corpus-{config.width}x{config.height}-{keyframe_interval}-{n}-{'-'.join(design) or 'v1'}"
    codec = SnakeCodec(keyframe_interval=keyframe_interval, **dict.fromkeys(design, True))
    generate(CorpusSpec(game=config, codec=codec, agents=dict(agents), episodes=n, seed=5), out)
    corpus = Corpus(out)
    return [corpus.episode_tokens(row) for row in range(len(corpus))]


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[SnakeConfig, list[list[str]]]]:
    tmp = str(tmp_path_factory.mktemp("fast"))
    mix = (("random", 0.4), ("greedy", 0.4), ("wall_follower", 0.2))
    return {
        "10x10": (BOARD, episodes(BOARD, 0, mix, 150, tmp)),
        "10x10 keyframes 5": (BOARD, episodes(BOARD, 5, mix, 60, tmp)),
        "4x4 greedy": (SMALL, episodes(SMALL, 0, (("greedy", 1.0),), 80, tmp)),
        "4x4 keyframes 5": (SMALL, episodes(SMALL, 5, (("greedy", 1.0),), 40, tmp)),
    }


def as_ids(seq: list[str] | str, config: SnakeConfig) -> np.ndarray:
    """Token ids, as the sampler writes them; a token the board does not have gets an id past the vocabulary."""
    tokens = seq.split() if isinstance(seq, str) else seq
    ids = {t: i for i, t in enumerate(vocabulary(config))}
    return np.array([ids.get(t, len(ids) + 7) for t in tokens], np.int64)


@lru_cache(maxsize=4096)
def _reference(key: tuple, config: SnakeConfig, design: tuple[tuple[str, bool | None], ...]):
    """The reference's verdict, once per sequence, board and declared design (keyed by the sequence's tokens, or its text)."""
    return validate(key[1] if key[0] else list(key[1]), config, **dict(design))


def reference(seq: list[str] | str, config: SnakeConfig, **design: bool | None):
    """`validate`, asked once for each distinct sequence: the id path's tokens are most often the token path's own."""
    key = (True, seq) if isinstance(seq, str) else (False, tuple(seq))
    return _reference(key, config, tuple(sorted(design.items())))


def assert_same(sequences: list, config: SnakeConfig) -> list:
    """Fast and reference verdicts agree exactly, field by field, on tokens and on ids; returns the fast ones."""
    verdicts = validate_fast(sequences, config, min_batch=1)
    assert len(verdicts) == len(sequences)
    for seq, got in zip(sequences, verdicts):
        want = reference(seq, config)
        assert (got.to_json(), got.positions) == (want.to_json(), want.positions), " ".join(seq) if isinstance(seq, list) else seq
    ids = [as_ids(s, config) for s in sequences]
    from_ids = validate_fast(ids, config, min_batch=1)
    tables = fast._tables(config)
    for seq, ids_of_seq, got, by_tokens in zip(sequences, ids, from_ids, verdicts):
        want = reference(fast._as_tokens(ids_of_seq, tables), config)  # an id past the vocabulary is no token at all
        assert (got.to_json(), got.positions) == (want.to_json(), want.positions), seq
        if (ids_of_seq < len(tables.tokens)).all():
            assert (got.to_json(), got.positions) == (by_tokens.to_json(), by_tokens.positions), seq
    return verdicts


@pytest.mark.parametrize("name", ["10x10", "10x10 keyframes 5", "4x4 greedy", "4x4 keyframes 5"])
def test_corpus_episodes_are_valid_and_take_the_fast_path(corpora, name):
    config, seqs = corpora[name]
    assert (fast_status(seqs, config) == VALID).all()
    assert all(v.valid for v in assert_same(seqs, config))


def test_the_4x4_corpus_has_wins(corpora):
    _, seqs = corpora["4x4 greedy"]
    assert any(s[-2] == "WIN" for s in seqs)


def short_eaters(seqs: list[list[str]], count: int) -> list[list[str]]:
    """The `count` shortest episodes of 200 tokens or more that eat at least twice (a grown body, spawns, a later keyframe
    where the design has them): every prefix of each is checked against the reference, which costs the square of an episode's length."""
    return sorted((seq for seq in seqs if seq.count("EAT") >= 2 and len(seq) >= 200), key=len)[:count]


@pytest.mark.slow
def test_every_prefix_is_judged_like_the_reference(corpora):
    for name, count in (("10x10", 2), ("10x10 keyframes 5", 2), ("4x4 greedy", 2), ("4x4 keyframes 5", 2)):
        config, seqs = corpora[name]
        for seq in short_eaters(seqs, count):
            prefixes = [seq[:k] for k in range(len(seq) + 1)]
            status = fast_status(prefixes, config)
            assert status[-1] == VALID
            assert (status[20:-1] == CUT).mean() > 0.9  # cut-offs are answered without the reference
            assert_same(prefixes, config)


def mutations(seq: list[str], vocab: list[str], rng: np.random.Generator, count: int) -> list[list[str]]:
    """Single-token replacements, insertions and deletions at random places."""
    out = []
    for _ in range(count):
        i = int(rng.integers(len(seq)))
        kind = rng.integers(3)
        token = vocab[int(rng.integers(len(vocab)))]
        if kind == 0:
            out.append([*seq[:i], token, *seq[i + 1 :]])
        elif kind == 1:
            out.append([*seq[:i], token, *seq[i:]])
        else:
            out.append([*seq[:i], *seq[i + 1 :]])
    return out


@pytest.mark.parametrize("name", ["10x10", "10x10 keyframes 5", "4x4 greedy", "4x4 keyframes 5"])
def test_random_single_token_mutations(corpora, name):
    config, seqs = corpora[name]
    rng = np.random.default_rng(7)
    vocab = vocabulary(config)
    mutated = [m for seq in seqs[:8] for m in mutations(seq, vocab, rng, 30)]
    mutated += [m[: int(rng.integers(len(m) + 1))] for m in mutated[::4]]  # mutated and cut off
    fast = assert_same(mutated, config)
    assert sum(not v.valid for v in fast) > len(mutated) // 2


def test_mutations_that_keep_the_grammar(corpora):
    """Values swapped for others of the same kind: the grammar holds, so only the replay can tell."""
    config, seqs = corpora["10x10"]
    rng = np.random.default_rng(11)
    kinds = [[t for t in vocabulary(config) if t.startswith(p) and t[len(p) :].isdigit()] for p in ("X", "Y", "LEN", "V")]
    kinds += [[f"{p}_{d}" for d in "UDLR"] for p in ("INPUT", "DIR", "B")]
    kinds.append(["DIE_WALL", "DIE_SELF", "MOVE"])
    kind_of = {t: k for k in kinds for t in k}
    mutated = []
    for seq in seqs[:30]:
        places = [i for i, t in enumerate(seq) if t in kind_of]
        for i in rng.choice(places, 25):
            mutated.append([*seq[:i], str(rng.choice(kind_of[seq[i]])), *seq[i + 1 :]])
    assert_same(mutated, config)


def test_self_collisions_written_as_moves(corpora):
    """A death the rules dictate, written as a plain move into the body (or a move as a death)."""
    config, seqs = corpora["10x10"]
    mutated = []
    for seq in [seq for seq in seqs if seq[-2] == "DIE_SELF"][:6]:
        if seq[-2] == "DIE_SELF":
            mutated.append(seq)
            for cell in ("X0 Y0", "X5 Y5", "X9 Y9"):
                mutated.append([*seq[:-2], "MOVE", *cell.split(), "TIMEOUT", "EOS"])
            body_cells = [i for i, t in enumerate(seq) if t == "MOVE"]
            for i in body_cells[-6:]:  # every recent head is a body cell now
                mutated.append([*seq[:-2], "MOVE", seq[i + 1], seq[i + 2], *seq[-2:]])
                mutated.append([*seq[:-2], "MOVE", seq[i + 1], seq[i + 2], "TICK", *seq[-3:]])
    assert mutated
    assert_same(mutated, config)


def test_tokens_of_other_boards_and_odd_inputs():
    seqs = [
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R MOVE X12 Y5 EOS",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R DIE_WALL EOS",
        "",
        "EOS",
        "BOS",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 EOS",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V99 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 "
        "FOOD_SPAWN X0 Y0 SCORE V100 TICK INPUT_U DIE_WALL EOS",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V99 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2",
        "hello world",
        # an eat past the last score the vocabulary has, then a keyframe (cut off, and complete)
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V99 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 "
        "FOOD_SPAWN X0 Y0 SCORE V0 SNAP PLAYER X7 Y5 DIR_R LEN2 BODY B_L FOOD X0 Y0 SCORE V0",
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V99 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R EAT MOVE X7 Y5 GROW LEN2 "
        "FOOD_SPAWN X0 Y0 SCORE V0 SNAP PLAYER X7 Y5 DIR_R LEN2 BODY B_L FOOD X0 Y0 SCORE V0 TICK INPUT_U DIE_WALL EOS",
    ]
    assert_same(seqs, BOARD)
    assert_same([s.split() for s in seqs], SnakeConfig(12, 12))
    assert_same(seqs, SMALL)


def test_validate_many_routes_through_the_fast_path(corpora, monkeypatch):
    config, seqs = corpora["10x10"]
    mixed = [seqs[0], seqs[1][:40], " ".join(seqs[2]), [*seqs[3][:-2], "EOS"], []] * 8  # a generator of 40
    assert list(fast_status([s.split() if isinstance(s, str) else s for s in mixed], config)[:5]) == [VALID, CUT, VALID, SLOW, SLOW]
    want = [(v.to_json(), v.positions) for v in map(validate, mixed, [config] * len(mixed))]
    calls = []
    monkeypatch.setattr(fast, "validate", lambda seq, cfg, **design: calls.append(seq) or validate(seq, cfg, **design))
    assert [(v.to_json(), v.positions) for v in validate_many(iter(mixed), config)] == want
    assert len(calls) == 16  # only the two broken ones of each five went to the reference
    calls.clear()
    assert [(v.to_json(), v.positions) for v in validate_many(mixed[:5], config)] == want[:5]
    assert len(calls) == 5  # a handful goes to the reference directly


def test_ids_lists_arrays_and_tokens_mix(corpora):
    config, seqs = corpora["10x10"]
    ids = [as_ids(s, config) for s in seqs[:40]]
    mixed = [ids[0], ids[1].tolist(), seqs[2], ids[3][:50], np.zeros(0, np.int64), [*ids[5][:-2].tolist(), 10_000], " ".join(seqs[6])] * 6
    want = [(v.to_json(), v.positions) for v in (validate(fast._as_tokens(s, fast._tables(config)), config) for s in mixed)]
    assert [(v.to_json(), v.positions) for v in validate_many(mixed, config)] == want
    assert [v.valid for v in validate_many(ids, config)] == [True] * 40


def marker_ticks(sense: str = "", column: str = "") -> set[str]:
    """The ticks the writers give on the marker values: grammar v1's, with the sense design's word after the input
    and the spawn column's words between the spawn's X and Y."""
    tick = " ".join(["TICK INPUT_U", *sense.split()])
    eat = f"{tick} EAT MOVE X1 Y2 GROW LEN3"
    spawn = " ".join(["FOOD_SPAWN X4", *column.split(), "Y5"])
    return {
        f"{tick} MOVE X1 Y2",
        f"{tick} MOVE X1 Y2 TIMEOUT EOS",
        f"{eat} {spawn} SCORE V6",
        f"{eat} {spawn} SCORE V6 TIMEOUT EOS",
        f"{eat} SCORE V6 WIN EOS",  # a win at the tick limit is a win
        f"{tick} DIE_WALL EOS",
        f"{tick} DIE_SELF EOS",
    }


def test_the_tick_shapes_are_read_off_the_writers():
    """What the reader takes from the engine and the encoder: grammar v1's tick shapes, and the opening's layout."""
    shapes = fast._tick_shapes()
    assert {" ".join(s.tokens) for s in shapes.shapes} == marker_ticks()
    assert (shapes.input_col, shapes.outcome_col, shapes.win_col) == (1, 2, 8)
    eat_shape = shapes.shape(sb.EAT)
    assert (eat_shape.cell, eat_shape.length, eat_shape.spawn, eat_shape.score) == ((4, 5), (7,), (9, 10), (12,))
    opening = fast._opening()  # BOS SNAP PLAYER X Y DIR LEN BODY [steps] FOOD X Y SCORE V
    assert (opening.x, opening.y, opening.direction, opening.length, opening.steps) == (3, 4, 5, 6, 8)
    assert (opening.food, opening.score, opening.score_no_food) == ((9, 10), 12, 10)


def test_tail_events_sequences_go_to_the_reference(tails_corpus):
    corpus = Corpus(tails_corpus)
    tails = [corpus.episode_tokens(row) for row in range(len(corpus))]
    v1 = [[t for k, t in enumerate(seq) if "FREE" not in seq[max(0, k - 2) : k + 1]] for seq in tails]  # FREE cells taken out
    assert all(validate(seq, corpus.game).valid for seq in v1)
    status = fast_status([*tails, *v1], corpus.game)
    assert (status[: len(tails)] == SLOW).tolist() == ["FREE" in seq for seq in tails] and (status[len(tails) :] == VALID).all()
    assert_same([*tails[:20], *(seq[: len(seq) // 2] for seq in tails[:20])], corpus.game)


# ---------------------------------------------------------------- the head-first design


def assert_same_declared(sequences: list, config: SnakeConfig, **design: bool | None) -> list:
    """validate_fast with a declared design gives the reference's verdicts with that design, on tokens and on ids."""
    tables = fast._tables(config)
    verdicts = validate_fast(sequences, config, min_batch=1, **design)
    from_ids = validate_fast([as_ids(s, config) for s in sequences], config, min_batch=1, **design)
    for seq, got, got_ids in zip(sequences, verdicts, from_ids):
        want = reference(seq, config, **design)
        assert (got.to_json(), got.positions) == (want.to_json(), want.positions), " ".join(seq)
        want_ids = reference(fast._as_tokens(as_ids(seq, config), tables), config, **design)
        assert (got_ids.to_json(), got_ids.positions) == (want_ids.to_json(), want_ids.positions), " ".join(seq)
    return verdicts


@pytest.fixture(scope="module")
def head_first(head_first_corpus) -> tuple[SnakeConfig, list[list[str]]]:
    corpus = Corpus(head_first_corpus)
    return corpus.game, [corpus.episode_tokens(row) for row in range(len(corpus))]


def test_head_first_sequences_never_take_the_fast_path_and_get_the_references_verdicts(head_first, as_v1):
    config, seqs = head_first
    v1 = [as_v1(seq) for seq in seqs]
    assert all(validate(seq, config).valid for seq in v1) and v1 != seqs
    status = fast_status([*seqs, *v1], config)
    assert (status[: len(seqs)] == SLOW).all() and (status[len(seqs) :] == VALID).all()
    assert all(v.valid for v in assert_same(seqs[:20], config))  # no codec: read off each sequence
    assert all(v.valid for v in assert_same_declared(seqs[:20], config, head_first=True))
    cut = [seq[:k] for seq in seqs[:2] for k in range(0, min(len(seq), 300) + 1, 2)]  # prefixes: a cut-off head-first tick too
    assert_same(cut, config)
    assert all(v.violations == ["complete"] for v in assert_same_declared([c for c in cut if c], config, head_first=True))


def test_head_first_mutations_get_the_references_verdicts(head_first, as_v1):
    config, seqs = head_first
    rng = np.random.default_rng(5)
    vocab = vocabulary(config, tail_events=False, sense=False, spawn_column=False)
    mutated = [m for seq in seqs[:8] for m in mutations(seq, vocab, rng, 20)]
    mutated += [m[: int(rng.integers(len(m) + 1))] for m in mutated[::5]]  # mutated and cut off
    # a later tick written in grammar v1's order, and a v1 episode with one tick written head first
    for seq in seqs[:20]:
        ticks = [i for i, t in enumerate(seq) if t.startswith("INPUT_") and seq[i + 3 : i + 4] == ["MOVE"]]
        if len(ticks) > 2:
            i = ticks[len(ticks) // 2]
            mutated.append([*seq[: i + 1], "MOVE", seq[i + 1], seq[i + 2], *seq[i + 4 :]])
            v1 = as_v1(seq)
            j = [k for k, t in enumerate(v1) if t.startswith("INPUT_") and v1[k + 1] == "MOVE"][len(ticks) // 2]
            mutated.append([*v1[: j + 1], v1[j + 2], v1[j + 3], "MOVE", *v1[j + 4 :]])
    for declared in (None, True):
        verdicts = validate_fast(mutated, config, min_batch=1, head_first=declared)
        assert verdicts == [validate(m, config, head_first=declared) for m in mutated]
        assert sum(not v.valid for v in verdicts) > len(mutated) // 2
    assert_same(mutated, config)  # no codec, on tokens and ids
    assert_same_declared(mutated[::3], config, head_first=True)


def test_a_head_first_self_death_written_elsewhere_gets_the_references_verdict(head_first):
    """The cell a self-death runs into, moved, dropped, or written as a move (the fast path never sees it as valid)."""
    config, seqs = head_first
    mutated = []
    for seq in [seq for seq in seqs if seq[-2] == "DIE_SELF"][:6]:
        x, y = seq[-4:-2]
        mutated += [
            [*seq[:-4], "X0", y, *seq[-2:]],
            [*seq[:-4], x, "Y99", *seq[-2:]],
            [*seq[:-4], *seq[-2:]],  # no cell: a v1 self-death in a head-first sequence
            [*seq[:-2], "MOVE", "TIMEOUT", "EOS"],
            [*seq[:-2], "MOVE", *seq[-5:]],
        ]
    assert mutated
    for declared in (None, True):
        assert_same_declared(mutated, config, head_first=declared)
    assert_same(mutated, config)
    assert any(v.violations[:1] == ["move_follows_input"] for v in validate_fast(mutated, config, min_batch=1))


def test_a_declared_grammar_v1_holds_head_first_sequences_to_it_on_the_fast_path_too(head_first):
    config, seqs = head_first
    assert all(validate(seq, config, head_first=False).violations == ["grammar"] for seq in seqs[:5])
    assert_same_declared(seqs[:5], config, head_first=False)


# ---------------------------------------------------------------- the sense design, with and without the spawn column

DESIGNS = {"sense": ("sense",), "sense + spawn column": ("sense", "spawn_column")}  # the codec options of each
NAMES = ["10x10", "10x10 keyframes 5", "4x4 greedy", "4x4 careless keyframes 5"]


@pytest.fixture(scope="module")
def design_corpora(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[SnakeConfig, list[list[str]]]]]:
    """Corpora in each design: careless games die in their own body, greedy ones on 4x4 grow long and eat often."""
    tmp = str(tmp_path_factory.mktemp("fast-designs"))
    mix = (("random", 0.3), ("greedy", 0.3), ("careless", 0.4))
    small = (("greedy", 0.5), ("careless", 0.5))
    return {
        design: {
            "10x10": (BOARD, episodes(BOARD, 0, mix, 150, tmp, options)),
            "10x10 keyframes 5": (BOARD, episodes(BOARD, 5, mix, 60, tmp, options)),
            "4x4 greedy": (SMALL, episodes(SMALL, 0, (("greedy", 1.0),), 80, tmp, options)),
            "4x4 careless keyframes 5": (SMALL, episodes(SMALL, 5, small, 60, tmp, options)),
        }
        for design, options in DESIGNS.items()
    }


def declared(design: str, on: bool | None = True) -> dict[str, bool | None]:
    return dict.fromkeys(DESIGNS[design], on)


def assert_same_design(sequences: list, config: SnakeConfig, design: str) -> list:
    """The reference's verdicts with the design read off each sequence, declared on, and (on a third) declared off."""
    verdicts = assert_same(sequences, config)
    assert_same_declared(sequences, config, **declared(design))
    assert_same_declared(sequences[::3], config, **declared(design, False))
    return verdicts


def without(seq: list[str], words: Iterable[str]) -> list[str]:
    words = set(words)
    return [t for t in seq if t not in words]


@pytest.mark.parametrize("design", DESIGNS)
def test_the_design_corpora_write_deadly_body_columns_and_self_deaths(design_corpora, design):
    corpora = design_corpora[design]
    for name in NAMES:
        _, seqs = corpora[name]
        words = {t for seq in seqs for t in seq if t in SENSE_TOKENS}
        assert len(words) >= 6, (name, words)  # the neck alone (one direction) is not all they say
        if "spawn_column" in DESIGNS[design]:
            assert sum(seq.count("OCC") for seq in seqs) > 20, name
    assert sum(seq[-2] == "DIE_SELF" for seq in corpora["10x10"][1]) >= 10
    assert any(seq[-2] == "WIN" for seq in corpora["4x4 greedy"][1])


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("name", NAMES)
def test_design_episodes_are_valid_and_take_the_fast_path(design_corpora, design, name):
    config, seqs = design_corpora[design][name]
    for on in (None, True):
        assert (fast_status(seqs, config, **declared(design, on)) == VALID).all()
    # declared off, the design's words are grammar errors: the reference's to report
    assert (fast_status(seqs, config, **declared(design, False)) == SLOW).all()
    assert all(v.violations[0] == "grammar" for v in validate_fast(seqs[::7], config, **declared(design, False)))
    assert all(v.valid for v in assert_same_design(seqs, config, design))


@pytest.mark.parametrize("design", DESIGNS)
def test_every_prefix_in_a_design_is_judged_like_the_reference(design_corpora, design):
    for name in NAMES:
        config, seqs = design_corpora[design][name]
        for seq in short_eaters(seqs, 1):
            prefixes = [seq[:k] for k in range(len(seq) + 1)]
            for on in (None, True):
                status = fast_status(prefixes, config, **declared(design, on))
                assert status[-1] == VALID
                # cut-offs are answered without the reference (not inside a spawn: its cell is not known yet)
                assert (status[20:-1] == CUT).mean() > 0.8
            assert_same_design(prefixes, config, design)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("name", NAMES)
def test_random_single_token_mutations_in_a_design(design_corpora, design, name):
    config, seqs = design_corpora[design][name]
    rng = np.random.default_rng(13)
    vocab = vocabulary(config)  # the SENSE and column words included
    mutated = [m for seq in seqs[:4] for m in mutations(seq, vocab, rng, 30)]
    mutated += [m[: int(rng.integers(len(m) + 1))] for m in mutated[::4]]  # mutated and cut off
    verdicts = assert_same_design(mutated, config, design)
    assert sum(not v.valid for v in verdicts) > len(mutated) // 2


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("name", ["10x10", "4x4 careless keyframes 5"])
def test_mutations_that_keep_the_grammar_in_a_design(design_corpora, design, name):
    """Values, SENSE and column words included, swapped for others of the same kind: only the replay can tell."""
    config, seqs = design_corpora[design][name]
    rng = np.random.default_rng(17)
    kinds = [[t for t in vocabulary(config) if t.startswith(p) and t[len(p) :].isdigit()] for p in ("X", "Y", "LEN", "V")]
    kinds += [[f"{p}_{d}" for d in "UDLR"] for p in ("INPUT", "DIR", "B")]
    kinds += [["DIE_WALL", "DIE_SELF", "MOVE"], SENSE_TOKENS, list(COLUMN_WORDS)]
    kind_of = {t: k for k in kinds for t in k}
    mutated = []
    for seq in seqs[:8]:
        places = [i for i, t in enumerate(seq) if t in kind_of]
        words = [i for i, t in enumerate(seq) if t in SENSE_TOKENS or t in COLUMN_WORDS]
        for i in [*rng.choice(places, 20), *rng.choice(words, 10)]:
            mutated.append([*seq[:i], str(rng.choice(kind_of[seq[i]])), *seq[i + 1 :]])
    verdicts = assert_same_design(mutated, config, design)
    first = [v.violations[:1] for v in verdicts]
    assert first.count(["body_sensed"]) > len(mutated) // 10
    if "spawn_column" in DESIGNS[design]:
        assert first.count(["column_sensed"]) > len(mutated) // 50


@pytest.mark.parametrize("design", DESIGNS)
def test_sense_words_left_out_moved_or_added(design_corpora, design):
    """The design without its SENSE words, and sequences with one word dropped, doubled or swapped."""
    config, seqs = design_corpora[design]["10x10"]
    bare = [without(seq, SENSE_TOKENS) for seq in seqs]
    status = fast_status([*seqs, *bare], config)
    assert (status[: len(seqs)] == VALID).all()  # each read off its sequence
    columns = [any(t in COLUMN_WORDS for t in seq) for seq in bare]  # the spawn column alone is the reference's
    assert (status[len(seqs) :] == np.where(columns, SLOW, VALID)).all()
    assert (fast_status(bare, config, sense=True) == SLOW).all()
    assert all(v.violations == ["body_sensed"] for v in assert_same_declared(bare[:20], config, **declared(design)))
    mutated = []
    for seq in seqs[:15]:
        senses = [i for i, t in enumerate(seq) if t in SENSE_TOKENS]
        i, j = senses[len(senses) // 2], senses[-1]
        mutated += [
            [*seq[:i], *seq[i + 1 :]],  # one word left out
            [*seq[:i], seq[i], *seq[i:]],  # one word twice
            [*seq[:j], *seq[j + 1 :]],  # the last tick's word left out
            [*seq[:i], seq[j], *seq[i + 1 : j], seq[i], *seq[j + 1 :]],  # two ticks' words swapped
            [*seq[: i + 1], *without(seq[i + 1 :], SENSE_TOKENS)],  # no words from the middle on
        ]
    assert_same_design(mutated, config, design)
    assert_same_design([m[: len(m) // 2] for m in mutated], config, design)


def test_column_words_left_out_moved_or_added(design_corpora):
    """The sense design written where the spawn column is declared, and spawns with a word dropped, added or flipped."""
    design = "sense + spawn column"
    config, seqs = design_corpora[design]["4x4 careless keyframes 5"]
    sense_only = [without(seq, COLUMN_WORDS) for seq in seqs]
    assert (fast_status(sense_only, config) == VALID).all()
    assert (fast_status(sense_only, config, spawn_column=True) == SLOW).all()
    spawning = [s for s in sense_only if "FOOD_SPAWN" in s][:20]
    assert all(v.violations == ["column_sensed"] for v in assert_same_declared(spawning, config, **declared(design)))
    mutated = []
    for seq in seqs[:30]:
        spawns = [i for i, t in enumerate(seq) if t == "FOOD_SPAWN"]
        for i in spawns[:: max(1, len(spawns) // 3)]:
            k = i + 2 + int(np.argmax([t == "OCC" for t in seq[i + 2 : i + 6]]))  # an OCC word if there is one
            flipped = "VAC" if seq[k] == "OCC" else "OCC"
            mutated += [
                [*seq[:k], *seq[k + 1 :]],  # one word left out
                [*seq[:k], seq[k], *seq[k:]],  # one word more
                [*seq[:k], flipped, *seq[k + 1 :]],  # one word wrong
                [*seq[: i + 2], *seq[i + 6 :]],  # none
            ]
    assert len(mutated) > 40
    assert_same_design(mutated, config, design)
    assert not any(v.valid for v in validate_fast(mutated, config, **declared(design)))  # read off, a spawn alone's "none" is valid
    assert_same_design([m[: len(m) // 2] for m in mutated], config, design)


@pytest.mark.parametrize("design", DESIGNS)
def test_self_collisions_written_otherwise_in_a_design(design_corpora, design):
    """A self-death the rules dictate written as a move, or its SENSE word changed; a move written as a death."""
    config, seqs = design_corpora[design]["10x10"]
    mutated = []
    for seq in [seq for seq in seqs if seq[-2] == "DIE_SELF"][:5]:
        mutated.append(seq)
        for cell in ("X0 Y0", "X5 Y5"):
            mutated.append([*seq[:-2], "MOVE", *cell.split(), "TIMEOUT", "EOS"])
        for word in ("SENSE_NONE", "SENSE_UDLR"):
            mutated.append([*seq[:-3], word, *seq[-2:]])
        moves = [i for i, t in enumerate(seq) if t == "MOVE"]
        for i in moves[-4:]:  # every recent head is a body cell now
            mutated.append([*seq[:-2], "MOVE", seq[i + 1], seq[i + 2], *seq[-2:]])
            mutated.append([*seq[:-2], "MOVE", seq[i + 1], seq[i + 2], "TICK", *seq[-4:]])
        i = moves[len(moves) // 2]
        mutated.append([*seq[:i], "DIE_SELF", "EOS"])
    assert len(mutated) > 40
    verdicts = assert_same_design(mutated, config, design)
    assert any(v.violations[:1] == ["self_death"] for v in verdicts)


def test_the_design_tick_shapes_are_read_off_the_writers():
    sense = fast._tick_shapes(fast.FAST_DESIGNS["sense"])
    assert {" ".join(s.tokens) for s in sense.shapes} == marker_ticks("SENSE_NONE")
    assert (sense.input_col, sense.sense_col, sense.outcome_col, sense.win_col) == (1, 2, 3, 9)
    assert fast._tick_shapes().sense_col is None
    for height in (4, 10):
        column = fast._tick_shapes(fast.FAST_DESIGNS["sense + spawn column"], height)
        assert {" ".join(s.tokens) for s in column.shapes} == marker_ticks("SENSE_NONE", "VAC " * height)
        eat = column.shape(sb.EAT)
        assert (eat.spawn, eat.column) == ((10, 11 + height), tuple(range(11, 11 + height)))


@pytest.mark.parametrize("design", DESIGNS)
def test_validate_many_routes_design_sequences_through_the_fast_path(design_corpora, design, monkeypatch):
    config, seqs = design_corpora[design]["10x10"]
    broken = [*seqs[3][:-3], "SENSE_NONE", "DIE_SELF", "EOS"] if seqs[3][-2] == "DIE_SELF" else [*seqs[3][:-2], "EOS"]
    mixed = [seqs[0], seqs[1][:40], " ".join(seqs[2]), broken, []] * 8
    calls = []
    monkeypatch.setattr(fast, "validate", lambda seq, cfg, **design: calls.append(design) or validate(seq, cfg, **design))
    for codec in (None, SnakeCodec(**declared(design))):
        options = {} if codec is None else declared(design)
        want = [(v.to_json(), v.positions) for v in (validate(s, config, **options) for s in mixed)]
        calls.clear()
        assert [(v.to_json(), v.positions) for v in validate_many(iter(mixed), config, codec)] == want
        assert len(calls) == 16  # only the two broken ones of each five went to the reference
