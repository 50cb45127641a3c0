from __future__ import annotations

import numpy as np
import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import tokenizer_for
from gamegrammar.games.snake.grammar import CodecConfig, SnakeCodec, Tick, column_tokens, design_of, parse
from gamegrammar.games.snake.rules import SnakeConfig, body_neighbours, column_occupancy
from gamegrammar.games.snake.symmetry import SYMMETRIES, TRANSPOSING, SymmetryTransform
from gamegrammar.games.snake.trace import trace
from gamegrammar.games.snake.validity import validate


def assert_image_valid(verdict, name: str, transform: SymmetryTransform, *where) -> None:
    """An image is a valid game from its start: wholly valid under the symmetries that keep the rules' start (those
    augmentation uses), and breaking `start_position` alone under the others (the start cell moved)."""
    if name in transform.names:
        assert verdict.valid, (name, *where, verdict.violations, verdict.positions)
    else:
        assert verdict.violations == ["start_position"], (name, *where, verdict.violations, verdict.positions)


def test_augmentation_uses_the_symmetries_that_keep_the_start():
    for side, kept in ((10, {"identity", "transpose"}), (4, {"identity", "transpose"}), (7, set(SYMMETRIES)), (5, set(SYMMETRIES))):
        config = SnakeConfig(side, side, 50)
        transform = SymmetryTransform(tokenizer_for(config), config)
        assert set(transform.names) == kept and transform.all_names == tuple(SYMMETRIES)


@pytest.fixture(scope="module")
def keyframed_corpus(tmp_path_factory):
    out = tmp_path_factory.mktemp("aug")
    generate(CorpusSpec(SnakeConfig(7, 7, 150), CodecConfig(keyframe_interval=4), episodes=60, seed=3), out)
    return Corpus(out)


def test_every_symmetry_of_every_episode_passes_the_strict_evaluator(
    keyframed_corpus, tiny_corpus, tails_corpus, head_first_corpus, sense_corpus
):
    corpora = (Corpus(tiny_corpus), Corpus(tails_corpus), Corpus(head_first_corpus), Corpus(sense_corpus))
    for corpus in (keyframed_corpus, *corpora):
        transform = SymmetryTransform(corpus.tokenizer, corpus.game)
        ends = set()
        for row in range(min(len(corpus), 60)):  # every ending and every design's words are among the first 60 games
            tokens = corpus.episode_tokens(row)
            ends.add(tokens[-2])
            images = set()
            for name in SYMMETRIES:
                out = transform.apply_tokens(tokens, name)
                assert_image_valid(validate(out, corpus.game), name, transform, row)
                images.add(tuple(out))
            assert len(images) > 1
        assert ends >= {"DIE_WALL", "DIE_SELF", "TIMEOUT"}, ends


def test_the_group_acts_as_it_should(keyframed_corpus):
    transform = SymmetryTransform(keyframed_corpus.tokenizer, keyframed_corpus.game)
    ids = np.asarray(keyframed_corpus.episode_ids(0))
    twice = transform.apply(transform.apply(ids, "rot90"), "rot90")
    assert np.array_equal(twice, transform.apply(ids, "rot180"))
    for involution in ("flip_x", "flip_y", "transpose", "anti_transpose", "rot180"):
        assert np.array_equal(transform.apply(transform.apply(ids, involution), involution), ids)
    assert np.array_equal(transform.apply(ids, "identity"), ids)


def test_non_square_boards_are_refused():
    config = SnakeConfig(6, 8)
    with pytest.raises(GameGrammarError, match="square"):
        SymmetryTransform(tokenizer_for(config), config)


def test_the_free_cell_moves_with_the_board(tails_corpus):
    corpus = Corpus(tails_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    tokens = corpus.episode_tokens(0)
    at = tokens.index("FREE")
    x, y = int(tokens[at + 1][1:]), int(tokens[at + 2][1:])
    for name, f in SYMMETRIES.items():
        image = transform.apply_tokens(tokens, name)
        nx, ny = f(x, y, corpus.game.width - 1)
        assert image[at] == "FREE" and image[at + 1 : at + 3] == [f"X{nx}", f"Y{ny}"]


def test_the_head_first_cell_moves_with_the_board(head_first_corpus):
    corpus = Corpus(head_first_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        if tokens[-2] == "DIE_SELF":
            break
    else:
        pytest.fail("no self-death in the head-first corpus")
    cells = [i + 1 for i, t in enumerate(tokens) if t.startswith("INPUT_") and tokens[i + 1] != "DIE_WALL"]
    assert tokens[cells[-1] + 2] == "DIE_SELF"  # the last one is the cell the head runs into
    for name, f in SYMMETRIES.items():
        image = transform.apply_tokens(tokens, name)
        for at in cells:
            nx, ny = f(int(tokens[at][1:]), int(tokens[at + 1][1:]), corpus.game.width - 1)
            assert image[at : at + 2] == [f"X{nx}", f"Y{ny}"] and image[at + 2] == tokens[at + 2], (name, at)


def test_the_sense_words_turn_with_the_board(sense_corpus):
    """Every SENSE word of every image names the deadly body around the head of the image's own states."""
    corpus = Corpus(sense_corpus)
    transform = SymmetryTransform(corpus.tokenizer, corpus.game)
    for row in range(20):
        for name in SYMMETRIES:
            image = transform.apply_tokens(corpus.episode_tokens(row), name)
            states = trace(image, corpus.game)
            ticks = [t for t in parse(image) if isinstance(t, Tick)]
            assert len(states) == len(ticks) + 1 and all(t.sense == body_neighbours(states[t.number - 1]) for t in ticks)


# ---------------------------------------------------------------- the spawn-column design

COLUMN_CODECS = {
    "column": SnakeCodec(spawn_column=True),
    "sense": SnakeCodec(sense=True, spawn_column=True, keyframe_interval=16),
    "head_first": SnakeCodec(head_first=True, spawn_column=True),
    "tails": SnakeCodec(tail_events=True, spawn_column=True),
}


@pytest.fixture(scope="module", params=list(COLUMN_CODECS))
def column_design(request, tmp_path_factory):
    """A spawn-column corpus (greedy and careless games: many eats) with one of the other options, by the scalar engine."""
    out = tmp_path_factory.mktemp(f"aug-column-{request.param}")
    spec = CorpusSpec(codec=COLUMN_CODECS[request.param], agents={"greedy": 0.5, "careless": 0.5}, episodes=30, seed=5)
    generate(spec, out, engine="scalar")
    corpus = Corpus(out)
    return corpus, SymmetryTransform(corpus.tokenizer, corpus.game)


def test_every_symmetry_of_every_column_episode_passes_the_strict_evaluator(column_design):
    """Whole episodes: each spawn's cell moves with the board, and its words are the column of the image's own body."""
    corpus, transform = column_design
    config = corpus.game
    spawns = 0
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        spawns += tokens.count("FOOD_SPAWN")
        for name in SYMMETRIES:
            image = transform.apply_tokens(tokens, name)
            assert_image_valid(validate(image, config, **design_of(corpus.codec)), name, transform, row)
            states = trace(image, config)
            ticks = [t for t in parse(image) if isinstance(t, Tick)]
            assert len(states) == len(ticks) + 1
            for t in ticks:
                if t.spawn is not None:
                    assert t.column == column_occupancy(states[t.number].body, t.spawn[0], config), (name, row, t.number)
    assert spawns > 100


def test_the_group_acts_as_it_should_on_column_episodes(column_design):
    corpus, transform = column_design
    ids = np.asarray(corpus.episode_ids(0))
    assert np.array_equal(transform.apply(transform.apply(ids, "rot90"), "rot90"), transform.apply(ids, "rot180"))
    for involution in ("flip_x", "flip_y", "transpose", "anti_transpose", "rot180"):
        assert np.array_equal(transform.apply(transform.apply(ids, involution), involution), ids)


def test_cut_windows_are_prefixes_of_the_images(column_design):
    """Packed windows (from a BOS, or from a mid-episode keyframe, running on into the next episodes) cut anywhere,
    every position of a column block included, read as their whole episodes' images cut at the same length; where the
    cut leaves a transposing symmetry without the spawn's Y (which fixes its new X), the spawn's new X is a free cell
    of its new row, and the words as many of that column's as fit."""
    corpus, transform = column_design
    config, tok = corpus.game, corpus.tokenizer
    h = config.height
    traced: dict[tuple[str, int], tuple[list[Tick], list]] = {}  # each image's ticks and states, read once
    for first in range(0, 6, 2):
        episodes = [np.asarray(corpus.episode_ids(r), np.int64) for r in range(first, first + 3)]
        for begin in [0, *np.flatnonzero(episodes[0] == tok.ids["SNAP"])[1:2]]:  # the BOS, and a keyframe if any
            whole = np.concatenate([episodes[0][begin:], *episodes[1:]])
            starts = np.cumsum([-begin, *(len(e) for e in episodes)])  # each episode's BOS in `whole`
            spawns = np.flatnonzero(whole[:-1] == tok.ids["FOOD_SPAWN"]) + 1
            cuts = {c for p in spawns[:4] for c in range(p - 1, p + h + 4)} | set(range(2, len(whole), 97))
            for name in SYMMETRIES:
                images = [transform.apply(e, name) for e in episodes]
                image = np.concatenate(images)[begin:]
                for cut in sorted(c for c in cuts if 1 < c <= len(whole)):
                    got = transform.apply(whole[:cut], name)
                    cut_spawn = [p for p in spawns if p < cut <= p + h + 1]
                    if name in TRANSPOSING and cut_spawn:
                        p = cut_spawn[0]
                        assert np.array_equal(got[:p], image[:p]), (name, cut)
                        e = int(np.searchsorted(starts, p, side="right")) - 1
                        if (name, first + e) not in traced:
                            tokens = tok.decode(images[e])
                            traced[name, first + e] = ([t for t in parse(tokens) if isinstance(t, Tick)], trace(tokens, config))
                        ticks, states = traced[name, first + e]
                        tick = next(t for t in ticks if t.positions.get("spawn") == p - starts[e])
                        body = states[tick.number].body
                        x = int(tok.tokens[got[p]][1:])
                        assert tok.tokens[got[p]][0] == "X" and (x, tick.spawn[1]) not in body, (name, cut)
                        words = column_tokens(column_occupancy(body, x, config))[: cut - p - 1]
                        assert tok.decode(got[p + 1 :]) == words, (name, cut)
                    elif name in TRANSPOSING and transform.is_x[whole[cut - 1]]:  # a lone X, as in the other designs
                        assert np.array_equal(got[:-1], image[: cut - 1]) and got[-1] == whole[cut - 1], (name, cut)
                    else:
                        assert np.array_equal(got, image[:cut]), (name, cut)


def test_a_full_vocabulary_maps_other_designs_as_their_own_does(tiny_corpus):
    """VAC/OCC in the vocabulary (as in `tokenizer_for(config)`, which the conformance checks use) do not make a
    window without column words read as the spawn-column design."""
    corpus = Corpus(tiny_corpus)
    own, full = SymmetryTransform(corpus.tokenizer, corpus.game), SymmetryTransform(tokenizer_for(corpus.game), corpus.game)
    for row in range(10):
        ids = np.asarray(corpus.episode_ids(row))
        for name in SYMMETRIES:
            assert np.array_equal(own.apply(ids, name), full.apply(ids, name))


# ---------------------------------------------------------------- the body-list design


@pytest.mark.parametrize("other", [None, "sense", "head_first", "tail_events"])
def test_every_symmetry_of_every_body_list_episode_passes_the_strict_evaluator(other):
    """The listed cells are `Xx Yy` pairs like every other cell, so the token-local map keeps them the image's body."""
    from gamegrammar.games import load_game

    config, game = SnakeConfig(), load_game("snake")
    codec = SnakeCodec(body_list=True, **({other: True} if other else {}))
    tokenizer = GameTokenizer(game.codec_vocabulary(config, codec))
    transform = SymmetryTransform(tokenizer, config)
    spawns = 0
    for ep in range(12):
        tokens = game.play_episode(config, codec, "greedy" if ep % 2 else "careless", 3, ep).tokens
        spawns += tokens.count("FOOD_SPAWN")
        for name in SYMMETRIES:
            image = tokenizer.decode(transform.apply(np.asarray(tokenizer.encode(tokens)), name))
            assert_image_valid(validate(image, config, **design_of(codec)), name, transform, ep)
    assert spawns > 20
