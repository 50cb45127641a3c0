"""What Snake's fidelity measures read: episode summaries, and the tokens its rules determine."""

from __future__ import annotations

from collections import Counter

from gamegrammar.data.corpus import Corpus
from gamegrammar.games.snake.fidelity import CATEGORIES, rule_determined_positions, summarize_episode


def test_episode_summaries_match_the_corpus_index(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    for row in range(len(corpus)):
        s = summarize_episode(corpus.episode_tokens(row))
        assert (s.ticks, s.score) == (corpus.index["ticks"][row], corpus.index["score"][row])
    cut = summarize_episode(corpus.episode_tokens(0)[:20])
    assert cut.end == "none"


def test_rule_determined_positions_skip_inputs_spawns_and_the_opening(tiny_corpus):
    tokens = Corpus(tiny_corpus).episode_tokens(0)
    found = rule_determined_positions(tokens)
    positions = {p: c for p, c, _ in found}
    assert len(positions) == len(found)  # one category per position
    assert all(p >= 13 for p in positions)
    assert not any(tokens[p].startswith("INPUT_") for p in positions)
    for p, t in enumerate(tokens):
        if t == "FOOD_SPAWN":
            assert p in positions or p - 1 in positions  # the spawn word is determined, its cell is not
            assert p + 1 not in positions and p + 2 not in positions
    assert set(positions.values()) <= set(CATEGORIES)


def test_the_kind_is_the_outcome_right_after_each_input(tiny_corpus):
    corpus = Corpus(tiny_corpus)
    for row in range(10):
        tokens = corpus.episode_tokens(row)
        kinds = {p: k for p, _, k in rule_determined_positions(tokens) if k}
        assert kinds == {i + 1: tokens[i + 1] for i, t in enumerate(tokens) if t.startswith("INPUT_")}
        assert Counter(kinds.values()).keys() <= {"MOVE", "EAT", "DIE_WALL", "DIE_SELF"}


def test_tail_events_are_rule_determined_as_free_and_the_kind_stays_on_the_outcome_word(tails_corpus):
    corpus = Corpus(tails_corpus)
    for row in range(10):
        tokens = corpus.episode_tokens(row)
        found = rule_determined_positions(tokens)
        free = sorted(p for p, c, _ in found if c == "free")
        starts = [i for i, t in enumerate(tokens) if t == "FREE"]
        assert free == sorted(i + k for i in starts for k in range(3))  # the word and its cell
        kinds = {p: k for p, _, k in found if k}
        outcome = {"MOVE", "EAT", "DIE_WALL", "DIE_SELF"}
        assert kinds == {i: tokens[i] for i, t in enumerate(tokens) if t in outcome and tokens[i - 1] != "EAT"}
        s = summarize_episode(tokens)
        assert (s.ticks, s.score) == (corpus.index["ticks"][row], corpus.index["score"][row])
    assert "free" in CATEGORIES


def test_head_first_cells_are_rule_determined_as_moves_and_the_kind_stays_on_the_outcome_word(head_first_corpus, tiny_corpus):
    corpus, v1 = Corpus(head_first_corpus), Corpus(tiny_corpus)  # the same games (spec and seed), in the two designs
    self_deaths = 0
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        found = rule_determined_positions(tokens)
        positions = {p: c for p, c, _ in found}
        assert len(positions) == len(found)
        inputs = [i for i, t in enumerate(tokens) if t.startswith("INPUT_")]
        assert not any(tokens[p].startswith("INPUT_") for p in positions)
        # the two tokens after each input are the head's cell (a self-death's too), category "move"; a wall death has none
        cells = [i for i in inputs if tokens[i + 1] != "DIE_WALL"]
        assert sorted(p for p, c in positions.items() if c == "move") == sorted(i + k for i in cells for k in (1, 2))
        kinds = {p: k for p, _, k in found if k}
        assert kinds == {i + 3 if i in cells else i + 1: tokens[i + 3] if i in cells else tokens[i + 1] for i in inputs}
        assert all(positions[p] == "outcome" for p in kinds) and set(kinds.values()) <= {"MOVE", "EAT", "DIE_WALL", "DIE_SELF"}
        # what the rules do not determine is the same in both designs: the inputs, the spawned cells, the opening
        other = v1.episode_tokens(row)
        assert len(tokens) - len(found) == len(other) - len(rule_determined_positions(other))
        s = summarize_episode(tokens)
        assert s == summarize_episode(other) and (s.ticks, s.score) == (corpus.index["ticks"][row], corpus.index["score"][row])
        self_deaths += tokens[-2] == "DIE_SELF"
    assert self_deaths > 0


def test_sense_words_are_rule_determined_as_sense(sense_corpus, tiny_corpus):
    corpus, v1 = Corpus(sense_corpus), Corpus(tiny_corpus)  # the same games (spec and seed), in the two designs
    for row in range(10):
        tokens = corpus.episode_tokens(row)
        found = rule_determined_positions(tokens)
        assert sorted(p for p, c, _ in found if c == "sense") == [i for i, t in enumerate(tokens) if t.startswith("SENSE_")]
        kinds = {p: k for p, _, k in found if k}  # the kind stays on the outcome word, right after the SENSE word
        assert sorted(kinds) == [i + 2 for i, t in enumerate(tokens) if t.startswith("INPUT_")]
        other = v1.episode_tokens(row)  # the rest is grammar v1's: one more determined token per tick
        assert len(found) - len(rule_determined_positions(other)) == len(tokens) - len(other)
        assert summarize_episode(tokens) == summarize_episode(other)
    assert "sense" in CATEGORIES


def test_spawn_column_words_are_rule_determined_as_column():
    from gamegrammar.games.snake import GAME
    from gamegrammar.games.snake.grammar import COLUMN_OF, SnakeCodec
    from gamegrammar.games.snake.rules import SnakeConfig

    config = SnakeConfig()
    for ep in range(6):
        tokens = GAME.play_episode(config, SnakeCodec(sense=True, spawn_column=True), "greedy", 1, ep).tokens
        other = GAME.play_episode(config, SnakeCodec(sense=True), "greedy", 1, ep).tokens  # the same game without the words
        found = rule_determined_positions(tokens)
        column = sorted(p for p, c, _ in found if c == "column")
        assert column == [i for i, t in enumerate(tokens) if t in COLUMN_OF] and column
        assert len(found) - len(rule_determined_positions(other)) == len(tokens) - len(other)
        assert summarize_episode(tokens) == summarize_episode(other)
    assert "column" in CATEGORIES


def test_listed_cells_are_rule_determined_as_listed_and_the_spawn_word_after_them_as_presence():
    from gamegrammar.games.snake import GAME
    from gamegrammar.games.snake.grammar import SnakeCodec, parse
    from gamegrammar.games.snake.rules import SnakeConfig

    config = SnakeConfig()
    listed_total = 0
    for ep in range(6):
        tokens = GAME.play_episode(config, SnakeCodec(sense=True, body_list=True), "greedy", 1, ep).tokens
        other = GAME.play_episode(config, SnakeCodec(sense=True), "greedy", 1, ep).tokens  # the same game without the list
        found = rule_determined_positions(tokens)
        listed = sorted(p for p, c, _ in found if c == "listed")
        ticks = [t for t in parse(tokens) if getattr(t, "listed", None)]
        assert listed == [i for t in ticks for i in range(t.positions["listed"], t.positions["spawn"] - 1)]
        presence = sorted(p for p, c, _ in found if c == "spawn_presence")
        assert all(tokens[p] in ("FOOD_SPAWN", "SCORE") for p in presence) and len(presence) == tokens.count("GROW")
        assert len({p for p, _, _ in found}) == len(found)  # one category per position
        assert len(found) - len(rule_determined_positions(other)) == len(tokens) - len(other)
        assert summarize_episode(tokens) == summarize_episode(other)
        listed_total += len(listed)
    assert listed_total > 0 and "listed" in CATEGORIES
