"""Battlesnake's token grammar: vocabulary, encoder and parser round trips, both designs, errors, the automaton."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import SPECIAL_TOKENS, CodecConfig
from gamegrammar.games.battlesnake import GAME
from gamegrammar.games.battlesnake.grammar import (
    HIT_WORDS,
    SENSE_OF,
    SENSE_TOKENS,
    SMELL_OF,
    SMELL_TOKENS,
    BattlesnakeCodec,
    GrammarAutomaton,
    GrammarError,
    Keyframe,
    as_cells,
    as_pairs,
    body_beside,
    cell_of_word,
    decode,
    episode_prefix,
    parse,
    tail_left,
    vocabulary,
)
from gamegrammar.games.battlesnake.rules import BattlesnakeConfig, BattlesnakeState, Move, Snake

# exact_spawn_chance: the episodes these tests name were picked under the exact spawn chance (the official draw plays others)
SMALL = BattlesnakeConfig(7, 7, 2, max_ticks=30, exact_spawn_chance=True)
# Episode 25 of seed 0 with greedy snakes on SMALL: both eat on tick 2, the longer S1 wins a head-to-head on tick 8.
EXAMPLE = (
    "BOS SNAP S0 X5 Y3 LEN3 H100 B_S B_S S1 X1 Y3 LEN3 H100 B_S B_S FOOD X0 Y2 X3 Y3 X6 Y4 "
    "TICK S0 UP X5 Y4 S1 RIGHT X2 Y3 "
    "TICK S0 RIGHT X6 Y4 EAT LEN4 H100 S1 RIGHT X3 Y3 EAT LEN4 H100 SPAWN X5 Y1 "
    "TICK S0 DOWN X6 Y3 S1 DOWN X3 Y2 TICK S0 LEFT X5 Y3 S1 RIGHT X4 Y2 TICK S0 UP X5 Y4 S1 DOWN X4 Y1 "
    "TICK S0 RIGHT X6 Y4 S1 RIGHT X5 Y1 EAT LEN5 H100 TICK S0 DOWN X6 Y3 S1 UP X5 Y2 "
    "TICK S0 LEFT X5 Y3 S1 UP X5 Y3 S0 DIE_HEAD SPAWN X5 Y6 WIN EOS"
)
CONFIGS = [SMALL, BattlesnakeConfig(5, 6, 1, minimum_food=2, max_ticks=40), BattlesnakeConfig(11, 11, 4, max_ticks=50)]


def test_the_vocabulary_is_exact_and_starts_with_the_special_tokens():
    vocab = vocabulary(BattlesnakeConfig(11, 11, 4))
    assert tuple(vocab[:4]) == SPECIAL_TOKENS and len(set(vocab)) == len(vocab)
    assert {"S0", "S3", "X10", "Y10", "LEN3", "LEN123", "H1", "H100"} <= set(vocab)
    assert not {"S4", "X11", "Y11", "LEN2", "LEN124", "H0", "H101"} & set(vocab)
    assert set(GAME.end_events) | {"UP", "DOWN", "LEFT", "RIGHT", "FREE", "B_S"} <= set(vocab)
    assert len(vocab) == 4 + 7 + 4 + 4 + 5 + 5 + 4 + 11 + 11 + 121 + 100 + 16 + 121 + 16 + 2
    # the smell words, then the cell words, the sense words and the hits words come last: a corpus without them keeps
    # the plain vocabulary, ids and all
    config = BattlesnakeConfig(11, 11, 4)
    plain = GAME.codec_vocabulary(config, BattlesnakeCodec())
    assert vocab[-2:] == HIT_WORDS == ["HIT", "MEET"]
    for codec in (BattlesnakeCodec(hits=True), BattlesnakeCodec(hits=True, sense=True, cells=True)):
        assert GAME.codec_vocabulary(config, codec) == vocab
    vocab = vocab[:-2]
    assert vocab[-16:] == SENSE_TOKENS and vocab[-16] == "SENSE_NONE"
    for codec in (BattlesnakeCodec(sense=True), BattlesnakeCodec(sense=True, cells=True, tails=True)):
        assert GAME.codec_vocabulary(config, codec) == vocab
    vocab = vocab[:-16]
    cells = vocab[-121:]
    assert cells[:2] == ["X0Y0", "X0Y1"] and cells[-1] == "X10Y10" and all(cell_of_word(w) is not None for w in cells)
    assert plain == vocab[: -16 - 121] and vocab[-137:-121] == SMELL_TOKENS and vocab[-137] == "SMELL_NONE" and "SMELL_UDLR" in vocab
    assert GAME.codec_vocabulary(config, BattlesnakeCodec(smell=True)) == vocab[:-121]
    for codec in (BattlesnakeCodec(cells=True), BattlesnakeCodec(smell=True, cells=True)):  # every word keeps its id
        assert GAME.codec_vocabulary(config, codec) == vocab


def test_the_example_is_what_the_engine_plays():
    assert GAME.play_episode(SMALL, CodecConfig(), "greedy", 0, 25).tokens == EXAMPLE.split()
    decoded = decode(EXAMPLE)
    assert decoded.end_reason == "WIN"
    tick2 = [(e.type, dict(e.payload)) for e in decoded.events if e.tick == 2]
    assert [t for t, _ in tick2] == ["TICK", "INPUT", "MOVE", "EAT", "INPUT", "MOVE", "EAT", "SPAWN"]
    assert tick2[3][1] == {"snake": 0, "length": 4, "health": 100}
    assert [(e.type, dict(e.payload)) for e in decoded.events if e.tick == 8][-3:] == [
        ("DIE", {"snake": 0, "cause": "head-collision"}),
        ("SPAWN", {"x": 5, "y": 6}),
        ("WIN", {}),
    ]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.width}x{c.height}x{c.num_snakes}")
@pytest.mark.parametrize("interval", [0, 1, 7])
def test_round_trip_rebuilds_events_and_keyframe_states(config, interval):
    codec = CodecConfig(keyframe_interval=interval)
    vocab = set(vocabulary(config))
    for episode, agent in enumerate(["random", "safe", "greedy", "space", "safe", "greedy"]):
        record = GAME.play_episode(config, codec, agent, 2, episode)
        assert set(record.tokens) <= vocab
        decoded = decode(record.tokens, config.num_snakes)
        assert decoded.events == record.events
        assert decoded.initial == record.states[0]
        assert decoded.end_reason == record.end
        expected = {0} | {t for t in range(1, record.ticks) if interval and t % interval == 0}
        assert set(decoded.keyframes) == expected
        for tick, kf in decoded.keyframes.items():
            state = record.states[tick]
            assert kf.alive == list(state.alive)
            assert all(s.body() == state.snakes[s.snake].body and s.health == state.snakes[s.snake].health for s in kf.snakes)
            assert kf.food == list(state.food)


def test_keyframes_come_after_their_tick_and_never_after_the_end():
    record = GAME.play_episode(SMALL, CodecConfig(keyframe_interval=1), "safe", 0, 3)
    tokens = record.tokens
    snaps = [i for i, t in enumerate(tokens) if t == "SNAP"]
    assert snaps[0] == 1 and len(snaps) == record.ticks  # tick 0 and after every tick but the last
    assert all(tokens[i - 1] not in ("TICK", "BOS", "EAT") for i in snaps[1:])
    assert tokens[-2] in GAME.end_events and "SNAP" not in tokens[tokens.index(tokens[-2]) :]


def test_the_tails_design_writes_the_cell_each_tail_leaves():
    plain = GAME.play_episode(SMALL, CodecConfig(), "greedy", 0, 25)
    tails = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True), "greedy", 0, 25)
    assert tails.events == plain.events and "FREE" in tails.tokens
    assert [t for i, t in enumerate(tails.tokens) if not _in_free(tails.tokens, i)] == plain.tokens
    assert decode(tails.tokens).events == plain.events
    # tick 1: both tails are stacked, nothing is left; tick 3: S0 (which ate on tick 2) keeps its tail
    text = " ".join(tails.tokens)
    assert "TICK S0 UP X5 Y4 S1 RIGHT X2 Y3 TICK" in text
    assert "TICK S0 DOWN X6 Y3 S1 DOWN X3 Y2 TICK S0 LEFT FREE X5 Y3 X5 Y3" in text  # following its own tail
    assert tail_left([(1, 1), (1, 2), (1, 2)]) is None and tail_left([(1, 1), (1, 2)]) == (1, 2)
    assert BattlesnakeCodec(tails=True).to_dict() == {"keyframe_interval": 0, "min_salience": 0, "tails": 1}


def test_the_smell_option_writes_the_food_beside_each_head():
    """After each input, the directions whose neighbour of the head holds food on the board before the move: an EAT
    is the input's direction being among them. Nothing else changes; the parser and the automaton hold a declared
    design to its words."""
    plain = GAME.play_episode(SMALL, CodecConfig(), "greedy", 0, 25)
    smell = GAME.play_episode(SMALL, BattlesnakeCodec(smell=True), "greedy", 0, 25)
    assert smell.events == plain.events and [t for t in smell.tokens if t not in SMELL_OF] == plain.tokens
    text = " ".join(smell.tokens)
    assert text.startswith(EXAMPLE_START) and "FOOD X0 Y2 X3 Y3 X6 Y4 TICK S0 UP SMELL_NONE X5 Y4 S1 RIGHT SMELL_NONE X2 Y3" in text
    assert "TICK S0 RIGHT SMELL_R X6 Y4 EAT LEN4 H100 S1 RIGHT SMELL_R X3 Y3 EAT LEN4 H100" in text
    moves = [m for item in parse(smell.tokens) if not isinstance(item, Keyframe) for m in item.moves]
    assert all(m.eat == bool(m.smell >> m.input & 1) for m in moves if m.head is not None)
    assert sum(m.eat for m in moves) >= 3
    _assert_declared("smell", smell.tokens, plain.tokens, SMALL, smell.tokens.index("SMELL_NONE"))
    assert list(parse(plain.tokens, smell=True)) == list(parse(plain.tokens))  # missing words: the evaluator's rule
    required = GAME.automaton(SMALL, BattlesnakeCodec(smell=True))
    assert _accepts(required, smell.tokens) and not _accepts(required, plain.tokens)
    assert _accepts(GAME.automaton(SMALL), smell.tokens) and _accepts(GAME.automaton(SMALL), plain.tokens)
    tails = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True, smell=True), "greedy", 0, 25).tokens
    assert "TICK S0 LEFT SMELL_NONE FREE X5 Y3 X5 Y3" in " ".join(tails)
    assert _accepts(GAME.automaton(SMALL, BattlesnakeCodec(tails=True, smell=True)), tails)


def test_the_sense_option_writes_the_bodies_beside_each_head():
    """After each input (and its SMELL word), the directions whose neighbour of the head holds a segment that stays
    through the move: a self or body death is the input's direction being among them, unless the body's snake leaves
    the board or starves in the same turn. Nothing else changes; the parser and the automaton hold a declared design
    to its words."""
    config = BattlesnakeConfig(7, 7, 4, max_ticks=60)
    for episode in range(6):
        plain = GAME.play_episode(config, CodecConfig(), "safe,greedy,random,space", 0, episode)
        sense = GAME.play_episode(config, BattlesnakeCodec(sense=True), "safe,greedy,random,space", 0, episode)
        assert sense.events == plain.events and [t for t in sense.tokens if t not in SENSE_OF] == plain.tokens
        for item in parse(sense.tokens):
            if isinstance(item, Keyframe):
                continue
            died = {d.snake: d.cause for d in item.deaths}
            for m in item.moves:
                assert m.sense is not None and m.positions["sense"] == m.positions["input"] + 1
                if m.sense >> m.input & 1 and died.get(m.snake) not in ("head-collision", "out-of-health"):
                    assert died.get(m.snake) in ("snake-self-collision", "snake-collision"), (episode, item.number, m)
    _assert_declared("sense", sense.tokens, plain.tokens, config, next(i for i, t in enumerate(sense.tokens) if t in SENSE_OF))
    required = GAME.automaton(config, BattlesnakeCodec(sense=True))
    assert _accepts(required, sense.tokens) and not _accepts(required, plain.tokens)
    assert _accepts(GAME.automaton(config), sense.tokens) and _accepts(GAME.automaton(config), plain.tokens)
    every = BattlesnakeCodec(tails=True, smell=True, cells=True, sense=True)
    both = GAME.play_episode(SMALL, every, "greedy", 0, 25).tokens
    assert "TICK S0 LEFT SMELL_NONE SENSE_U FREE X5Y3 X5Y3" in " ".join(both)  # SMELL, then SENSE, then FREE
    assert _accepts(GAME.automaton(SMALL, every), both)


def test_the_sense_word_names_the_segments_that_stay_through_the_move():
    """Every live body but its last segment (which its tail leaves) blocks; a stacked tail's cell stays; an eliminated
    snake's body blocks nothing."""
    me = Snake(((3, 3), (3, 2), (2, 2), (2, 3)))  # my tail (2, 3) is beside my head, to the left: it leaves
    other = Snake(((4, 4), (4, 3), (5, 3), (5, 3)))  # its stacked tail (5, 3) stays; (4, 3) is to my right
    gone = Snake(((3, 4), (3, 5), (3, 6)), cause="snake-collision")  # its head above mine, eliminated
    state = BattlesnakeState((me, other, gone), ())
    assert body_beside(state, 0) == 1 << Move.D | 1 << Move.R
    assert body_beside(replace(state, snakes=(me, other, replace(gone, cause=""))), 0) == 1 << Move.U | 1 << Move.D | 1 << Move.R
    stacked = Snake(((3, 3), (3, 2), (2, 2), (2, 3), (2, 3)))
    assert body_beside(replace(state, snakes=(stacked, other, gone)), 0) == 1 << Move.D | 1 << Move.R | 1 << Move.L
    assert SENSE_TOKENS[body_beside(state, 0)] == "SENSE_DR"


def test_the_hits_option_marks_each_collision_where_the_move_makes_it():
    """HIT after the input where the head lands on a segment that stays (the SENSE mask's bit of the input), MEET after
    the new head where an earlier mover's new head is on that cell: nothing else changes, a HIT is followed by that
    snake's self or body death but where the body's snake leaves the board or starves (or it starves itself), a MEET by
    a head-on death; the parser and the automaton hold a declared design to its words."""
    config = BattlesnakeConfig(7, 7, 4, max_ticks=60)
    seen = {"HIT": 0, "MEET": 0}
    for episode in range(12):
        plain = GAME.play_episode(config, CodecConfig(), "safe,greedy,random,space", 0, episode)
        hits = GAME.play_episode(config, BattlesnakeCodec(hits=True), "safe,greedy,random,space", 0, episode)
        assert hits.events == plain.events and [t for t in hits.tokens if t not in HIT_WORDS] == plain.tokens
        states = iter(GAME.trace(hits.tokens, config))
        before = next(states)
        for item in parse(hits.tokens):
            if isinstance(item, Keyframe):
                continue
            died = {d.snake: d.cause for d in item.deaths}
            heads: list[tuple[int, int]] = []
            for m in item.moves:
                assert m.hit == bool(body_beside(before, m.snake) >> m.input & 1)
                assert m.meet == (m.head is not None and m.head in heads)
                if m.hit:
                    assert m.positions["hit"] == m.positions["input"] + 1 and m.positions["head"] == m.positions["hit"] + 1
                    assert died.get(m.snake) in ("snake-self-collision", "snake-collision", "out-of-health") or set(died.values()) & {
                        "wall-collision",
                        "out-of-health",
                    }
                if m.meet:
                    assert m.positions["meet"] == m.positions["head"] + 2 and "head-collision" in died.values()
                heads += [m.head] if m.head is not None else []
                seen["HIT"] += m.hit
                seen["MEET"] += m.meet
            before = next(states)
    assert seen["HIT"] > 5 and seen["MEET"] > 0, seen
    _assert_declared("hits", hits.tokens, plain.tokens, config, next(i for i, t in enumerate(hits.tokens) if t in HIT_WORDS))
    declared = GAME.automaton(config, BattlesnakeCodec(hits=True))
    assert _accepts(declared, hits.tokens) and _accepts(declared, plain.tokens)  # each word only where it applies
    every = BattlesnakeCodec(tails=True, smell=True, cells=True, sense=True, hits=True)
    example = GAME.play_episode(SMALL, every, "greedy", 0, 25).tokens
    assert "S1 UP SMELL_NONE SENSE_DL FREE X3Y2 X5Y3 MEET S0 DIE_HEAD" in " ".join(example)  # MEET: S1's head on S0's
    assert _accepts(GAME.automaton(SMALL, every), example)


EXAMPLE_START = "BOS SNAP S0 X5 Y3 LEN3 H100 B_S B_S S1 X1 Y3 LEN3 H100 B_S B_S"


@pytest.mark.parametrize("options", [{}, {"tails": True, "smell": True, "keyframe_interval": 3}], ids=["cells", "with tails and smell"])
def test_the_cells_option_writes_each_cell_as_one_word(options):
    """Every `Xx Yy` pair becomes the word `XxYy` and nothing else changes; `as_pairs` takes it back, each pair token
    pointing at the word it came from; a declared design has only its own spelling, for the parser (through
    `as_pairs`) and the automaton alike."""
    pairs = GAME.play_episode(SMALL, BattlesnakeCodec(**options), "greedy", 0, 25)
    cells = GAME.play_episode(SMALL, BattlesnakeCodec(cells=True, **options), "greedy", 0, 25)
    assert cells.events == pairs.events and cells.tokens == as_cells(pairs.tokens) and len(cells.tokens) < len(pairs.tokens)
    assert not any(t[:1] in "XY" and cell_of_word(t) is None for t in cells.tokens)  # no bare X or Y word
    back, origin = as_pairs(cells.tokens)
    assert back == pairs.tokens and len(origin) == len(back)
    assert all(cells.tokens[o] == t or cell_of_word(cells.tokens[o]) is not None for t, o in zip(back, origin))
    if not options:
        assert " ".join(cells.tokens).startswith("BOS SNAP S0 X5Y3 LEN3 H100 B_S B_S S1 X1Y3 LEN3 H100 B_S B_S FOOD X0Y2 X3Y3 X6Y4")
        assert "TICK S0 RIGHT X6Y4 EAT LEN4 H100 S1 RIGHT X3Y3 EAT LEN4 H100 SPAWN X5Y1 TICK" in " ".join(cells.tokens)
    assert BattlesnakeCodec(cells=True).to_dict() == {"keyframe_interval": 0, "min_salience": 0, "tails": 0, "cells": 1}
    assert "cells" not in BattlesnakeCodec().to_dict()
    assert GAME.decode_events(cells.tokens) == pairs.events
    assert GAME.episode_prefix(cells.tokens, 2) == as_cells(GAME.episode_prefix(pairs.tokens, 2))  # in its own spelling
    codec = BattlesnakeCodec(cells=True, **options)
    declared = GAME.automaton(SMALL, codec)
    assert _accepts(declared, cells.tokens) and not _accepts(declared, pairs.tokens)
    assert not _accepts(GAME.automaton(SMALL, BattlesnakeCodec(**options)), cells.tokens)
    state = declared.start()
    for token in cells.tokens[:3]:  # BOS SNAP S0: a head cell comes, as one word
        state = declared.step(state, token)
    assert declared.allowed(state) == {f"X{x}Y{y}" for x in range(7) for y in range(7)}
    marked, _ = as_pairs([*cells.tokens[:3], "X5", "Y3"], cells=True)  # a bare pair in a declared cells sequence
    assert marked[3:] == ["~X5", "~Y3"] and as_pairs(cells.tokens, cells=False)[0] == cells.tokens
    assert cell_of_word("X10Y3") == (10, 3) and cell_of_word("X10") is None and cell_of_word("XY3") is None


def _in_free(tokens, i):
    return tokens[i] == "FREE" or (i >= 1 and tokens[i - 1] == "FREE") or (i >= 2 and tokens[i - 2] == "FREE")


def test_salience_threshold_drops_events_but_keeps_the_snake_named():
    record = GAME.play_episode(SMALL, CodecConfig(min_salience=Salience.COLLISION), "greedy", 0, 25)
    assert "TICK" not in record.tokens and "UP" not in record.tokens and "X6" not in record.tokens[23:]
    text = " ".join(record.tokens)
    assert text.endswith("S0 EAT LEN4 H100 S1 EAT LEN4 H100 SPAWN X5 Y1 S1 EAT LEN5 H100 S0 DIE_HEAD SPAWN X5 Y6 WIN EOS")
    phase = GAME.play_episode(SMALL, CodecConfig(min_salience=Salience.PHASE), "greedy", 0, 25).tokens
    assert phase[-2:] == ["WIN", "EOS"] and "EAT" not in phase


def _error(text):
    with pytest.raises(GrammarError) as err:
        list(parse(text.split()))
    return err.value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("TICK S0 UP X5 Y4 S1 RIGHT", "TICK S1 RIGHT X5 Y4 S1 RIGHT"), "expected S0, the next snake to move"),
        (("TICK S0 UP X5 Y4", "TICK S0 X5 Y4"), "expected a move"),
        (("S0 UP X5 Y4 S1", "S0 UP Y4 S1"), "expected a head cell"),
        (("S0 DIE_HEAD", "S2 DIE_HEAD"), "expected the death of a snake that moved"),
        (("S0 DIE_HEAD", "S0 DIE_HARD"), "expected DIE_<cause>"),
        (("EAT LEN4 H100 S1", "EAT H100 LEN4 S1"), "expected LEN<n>"),
        (("SNAP S0 X5", "SNAP X5"), "expected a snake S<k>"),
        (("S1 X1 Y3 LEN3 H100 B_S B_S FOOD", "S0 X1 Y3 LEN3 H100 B_S B_S FOOD"), "expected a snake after S0"),
        (("WIN EOS", "WIN TICK"), "expected EOS"),
        (("SPAWN X5 Y6 WIN EOS", "SPAWN X5 Y6 EOS"), "EOS before an end event"),
        (("WIN EOS", "WIN EOS EOS"), "expected nothing after EOS"),
        (("BOS SNAP", "SNAP SNAP"), "expected BOS"),
    ],
)
def test_parse_errors_point_at_the_first_bad_token(change, message):
    text = EXAMPLE.replace(*change, 1).split()
    err = _error(" ".join(text))
    assert message in err.message and not err.at_end
    assert err.index == next(i for i, (a, b) in enumerate(zip(text, [*EXAMPLE.split(), None])) if a != b)


def test_a_cut_off_sequence_is_an_error_at_its_end():
    tokens = EXAMPLE.split()[:30]
    err = _error(" ".join(tokens))
    assert err.at_end and err.index == 30


def test_a_snake_eliminated_no_longer_moves():
    text = EXAMPLE.replace("WIN EOS", "TICK S1 UP X5 Y4 TIMEOUT EOS")
    ticks = [item for item in parse(text.split(), to_eos=True) if not isinstance(item, Keyframe)]
    assert ticks[-1].movers == [1]
    assert _error(EXAMPLE.replace("WIN EOS", "TICK S0 UP X5 Y4 S1 UP X5 Y4 TIMEOUT EOS")).message.startswith("expected S1")


def test_episode_prefix_keeps_the_first_keyframe_and_ticks():
    tokens = EXAMPLE.split()
    assert episode_prefix(tokens, 0) == tokens[: tokens.index("TICK")]
    two = episode_prefix(tokens, 2)
    assert two[-3:] == ["SPAWN", "X5", "Y1"] and two.count("TICK") == 2
    assert GAME.episode_prefix(tokens, 100) == tokens[:-1]  # everything but the EOS


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.width}x{c.height}x{c.num_snakes}")
def test_the_automaton_allows_every_real_episode(config):
    automaton = GrammarAutomaton(config)
    for codec in (CodecConfig(keyframe_interval=3), BattlesnakeCodec(tails=True)):
        for episode, agent in enumerate(["random", "safe", "greedy", "space"]):
            tokens = GAME.play_episode(config, codec, agent, 4, episode).tokens
            state = automaton.start()
            for token in tokens:
                state = automaton.step(state, token)
                assert state is not None
            assert automaton.allowed(state) == frozenset()


def test_the_automaton_knows_who_moves_and_how_long_a_body_is():
    automaton = GrammarAutomaton(SMALL)
    state = automaton.start()
    tokens = EXAMPLE.split()
    seen = []
    for token in tokens:
        seen.append(automaton.allowed(state))
        assert automaton.step(state, "PAD") is None
        state = automaton.step(state, token)
    assert seen[0] == {"BOS"} and seen[2] == {"S0", "S1"}
    assert seen[7] == {"B_U", "B_D", "B_L", "B_R", "B_S"} and seen[9] == {"S1", "FOOD"}  # after LEN3 H100: two steps
    tick = tokens.index("TICK")
    assert seen[tick + 1] == {"S0"} and seen[tick + 2] == {"UP", "DOWN", "LEFT", "RIGHT"}
    assert seen[tick + 3] == {f"X{x}" for x in range(7)} | {"OUT", "FREE", "HIT", *SMELL_TOKENS, *SENSE_TOKENS}  # undeclared: any option
    assert seen[tick + 5] == {"EAT", "MEET", "S1"}
    after_moves = seen[tick + 9]  # after the last mover: deaths of movers, spawns, the end, the next tick or a keyframe
    assert after_moves == {"EAT", "MEET", "S0", "S1", "SPAWN", "TICK", "SNAP", *GAME.end_events}
    last = len(tokens) - 1 - tokens[::-1].index("DIE_HEAD")
    assert seen[last + 1] == {"S1", "SPAWN", "TICK", "SNAP", *GAME.end_events}  # deaths go by index: S1's may follow S0's


def test_decode_events_is_the_specs_round_trip():
    record = GAME.play_episode(SMALL, CodecConfig(keyframe_interval=2), "space", 1, 1)
    assert GAME.decode_events(record.tokens) == record.events


def _assert_declared(option, tokens, plain, config, first_word):
    """An option's codec records it (and one without it records nothing, so manifests written before the option read
    the same); a parse or an automaton declared without it refuses its first word and takes the plain design's text."""
    assert BattlesnakeCodec(**{option: True}).to_dict() == {"keyframe_interval": 0, "min_salience": 0, "tails": 0, option: 1}
    assert option not in BattlesnakeCodec().to_dict()
    with pytest.raises(GrammarError) as err:
        list(parse(tokens, **{option: False}))
    assert err.value.index == first_word and f"{option} design" in err.value.message
    forbidden = GAME.automaton(config, BattlesnakeCodec(**{option: False}))
    assert _accepts(forbidden, plain) and not _accepts(forbidden, tokens)


def _accepts(automaton, tokens):
    state = automaton.start()
    for token in tokens:
        state = automaton.step(state, token)
        if state is None:
            return False
    return True


def test_a_declared_design_has_only_its_own_words():
    """Declared plain (tails=False), FREE is a grammar error at that word, for the parser and the automaton alike;
    the tails design and an undeclared reading allow it."""
    tails = GAME.play_episode(SMALL, BattlesnakeCodec(tails=True), "greedy", 0, 3).tokens
    plain = EXAMPLE.split()
    assert list(parse(tails)) == list(parse(tails, tails=True))
    with pytest.raises(GrammarError) as err:
        list(parse(tails, tails=False))
    assert err.value.index == tails.index("FREE") and "tails design" in err.value.message and not err.value.at_end
    assert list(parse(plain, tails=False)) == list(parse(plain))
    declared_plain = GAME.automaton(SMALL, BattlesnakeCodec())
    assert _accepts(declared_plain, plain) and not _accepts(declared_plain, tails)
    assert GAME.automaton(SMALL, CodecConfig()).tails is False  # a plain codec writes the plain design
    for automaton in (GAME.automaton(SMALL, BattlesnakeCodec(tails=True)), GAME.automaton(SMALL)):
        assert _accepts(automaton, plain) and _accepts(automaton, tails)
