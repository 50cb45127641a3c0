from __future__ import annotations

import json
from functools import cache

import pytest

from gamegrammar import conformance
from gamegrammar.conformance import CHECKS, Skipped, run_check
from gamegrammar.corpus import Corpus, CorpusSpec, generate
from gamegrammar.errors import GameGrammarError
from gamegrammar.events import Salience
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import (
    EXAMPLE,
    EXAMPLE_TAILS,
    EXAMPLE_TAILS_SELF,
    CodecConfig,
    GrammarAutomaton,
    GrammarError,
    SnakeCodec,
    Tick,
    codec_vocabulary,
    decode,
    parse,
    vocabulary,
)
from gamegrammar.games.snake.rules import SnakeConfig


def episode(config: SnakeConfig, codec: CodecConfig, agent_name: str, seed: int, ep: int):
    record = GAME.play_episode(config, codec, agent_name, seed, ep)
    return record.tokens, record.events, {s.tick: s for s in record.states}, record.end


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 1, 7])
def test_round_trip_rebuilds_events_and_states(board, interval):
    config, codec = SnakeConfig(*board), CodecConfig(keyframe_interval=interval)
    vocab = set(vocabulary(config))
    count = 0
    for agent in AGENTS:
        for ep in range(120):
            tokens, events, states, end = episode(config, codec, agent, 2, ep)
            assert set(tokens) <= vocab
            decoded = decode(tokens)
            assert decoded.events == events
            assert decoded.initial == states[0]
            assert decoded.end_reason == end
            for tick, state in decoded.keyframes.items():
                assert state == states[tick]
            expected = {0} | {t for t in states if interval and t % interval == 0 and t < max(states)}
            assert set(decoded.keyframes) == expected
            count += 1
    assert count == 360


def test_the_design_example_parses():
    text = (
        "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X8 Y5 SCORE V0 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R MOVE X7 Y5 "
        "TICK INPUT_R EAT MOVE X8 Y5 GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1 TICK INPUT_D MOVE X8 Y6 TICK INPUT_R DIE_WALL EOS"
    )
    decoded = decode(text)
    assert decoded.end_reason == "DIE_WALL"
    assert [e.type for e in decoded.events if e.tick == 3] == ["TICK", "INPUT", "EAT", "MOVE", "GROW", "FOOD_SPAWN", "SCORE"]


def test_keyframe_shows_only_what_has_happened():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(keyframe_interval=1), "greedy", 0, 0)
    # every keyframe comes after its tick's events: the token before SNAP ends a tick (or is the BOS keyframe start)
    snaps = [i for i, t in enumerate(tokens) if t == "SNAP"]
    assert snaps[0] == 1
    assert all(tokens[i - 1] not in ("TICK", "EAT", "BOS") for i in snaps[1:])
    assert "SNAP" not in tokens[tokens.index("EOS") - 3 :]


def test_salience_threshold_drops_low_events():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(min_salience=Salience.COLLISION), "greedy", 0, 1)
    assert "TICK" not in tokens and "MOVE" not in tokens and not any(t.startswith("INPUT_") for t in tokens)
    assert "EAT" in tokens and tokens[-2] in ("DIE_WALL", "DIE_SELF", "TIMEOUT", "WIN")


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("SNAP", 0),
        ("BOS SNAP PLAYER X1 Y1 DIR_Q", 5),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK MOVE X1 Y0", 14),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_U GROW", 15),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 EOS", 13),
    ],
)
def test_grammar_errors_point_at_the_first_bad_token(text, index):
    with pytest.raises(GrammarError) as err:
        list(parse(text.split()))
    assert err.value.index == index and not err.value.at_end


def test_a_cut_off_sequence_is_not_malformed():
    tokens, *_ = episode(SnakeConfig(), CodecConfig(), "greedy", 0, 3)
    for cut in (2, 9, 20, len(tokens) - 1):
        try:
            list(parse(tokens[:cut]))
        except GrammarError as err:
            assert err.at_end


def test_bad_codec_options_are_refused():
    with pytest.raises(GameGrammarError):
        CodecConfig(keyframe_interval=-1)
    with pytest.raises(GameGrammarError):
        CodecConfig(min_salience=7)


def test_vocabulary_is_exact_for_the_board():
    vocab = vocabulary(SnakeConfig(6, 5))
    assert "X5" in vocab and "X6" not in vocab and "Y4" in vocab and "Y5" not in vocab
    assert "LEN30" in vocab and "LEN31" not in vocab and "V29" in vocab and "V30" not in vocab
    assert len(vocab) == len(set(vocab))


# ---------------------------------------------------------------- the tail-events option


def without_free(tokens: list[str]) -> list[str]:
    """The tokens with every `FREE Xx Yy` taken out: what grammar v1 writes of the same episode."""
    out, i = [], 0
    while i < len(tokens):
        if tokens[i] == "FREE":
            i += 3
            continue
        out.append(tokens[i])
        i += 1
    return out


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
def test_tail_events_round_trip_and_name_the_cell_the_tail_leaves(board, interval):
    config = SnakeConfig(*board)
    tails, plain = SnakeCodec(interval, tail_events=True), CodecConfig(interval)
    vocab = set(codec_vocabulary(config, tails))
    for agent in AGENTS:
        for ep in range(25):
            record = GAME.play_episode(config, tails, agent, 2, ep)
            assert set(record.tokens) <= vocab
            assert without_free(record.tokens) == GAME.play_episode(config, plain, agent, 2, ep).tokens
            decoded = decode(record.tokens)
            assert decoded.events == record.events  # FREE cells are not events: the same events as grammar v1
            assert decoded.end_reason == record.end
            assert all(state == record.states[tick] for tick, state in decoded.keyframes.items())
            for tick in (t for t in parse(record.tokens) if isinstance(t, Tick)):
                before = record.states[tick.number - 1]
                leaves = tick.outcome in ("MOVE", "DIE_SELF")
                assert tick.free == (before.body[-1] if leaves else None)
                if leaves:
                    assert record.tokens[tick.positions["free"] - 1] == "FREE" and tick.positions["outcome"] == tick.positions["free"] + 2


def test_the_tail_events_examples_are_the_v1_example_with_free_cells():
    assert without_free(EXAMPLE_TAILS.split()) == EXAMPLE.split()
    assert decode(EXAMPLE_TAILS).events == decode(EXAMPLE).events
    ticks = [t for t in parse(EXAMPLE_TAILS_SELF.split()) if isinstance(t, Tick)]
    assert [(t.free, t.outcome) for t in ticks] == [((5, 6), "MOVE"), ((6, 6), "MOVE"), ((7, 6), "DIE_SELF")]


def test_tail_events_keep_every_v1_id_and_add_free_last():
    config = SnakeConfig(6, 5)
    v1, both = vocabulary(config, tail_events=False), vocabulary(config)
    assert both == [*v1, "FREE"] and GAME.vocabulary(config) == both
    assert codec_vocabulary(config, CodecConfig()) == codec_vocabulary(config, SnakeCodec()) == v1
    assert codec_vocabulary(config, SnakeCodec(tail_events=True)) == both
    assert GAME.codec_vocabulary(config, SnakeCodec(tail_events=True)) == both


def test_the_codec_names_the_option_only_when_it_is_on():
    assert SnakeCodec(3, 1).to_dict() == CodecConfig(3, 1).to_dict()  # grammar v1 manifests are unchanged
    assert SnakeCodec(3, 1, tail_events=True).to_dict() == {"keyframe_interval": 3, "min_salience": 1, "tail_events": True}
    assert GAME.codec_type is SnakeCodec and [f.option for f in GAME.codec_flags()] == ["--tail-events"]
    old = CorpusSpec.from_dict(CorpusSpec(game=SnakeConfig(5, 5, 30), episodes=3).to_dict())
    assert old.codec == SnakeCodec() and not old.codec.tail_events  # a spec without the field reads as the option off
    new = CorpusSpec(game=SnakeConfig(5, 5, 30), codec=SnakeCodec(tail_events=True), episodes=3)
    assert CorpusSpec.from_dict(new.to_dict()).codec == SnakeCodec(tail_events=True)
    assert CorpusSpec(game=SnakeConfig(5, 5, 30), codec=CodecConfig(2), episodes=3).codec == SnakeCodec(2)
    with pytest.raises(GameGrammarError, match="tail_events"):
        SnakeCodec(tail_events="yes")


def test_tail_events_corpus_has_its_own_tokenizer_and_v1_keeps_its_own(tmp_path):
    config = SnakeConfig(5, 5, 30)
    for codec, size in (
        (CodecConfig(), len(vocabulary(config, tail_events=False))),
        (SnakeCodec(tail_events=True), len(vocabulary(config))),
    ):
        out = tmp_path / str(size)
        generate(CorpusSpec(game=config, codec=codec, episodes=20, seed=1), out)
        corpus = Corpus(out)
        assert len(corpus.tokenizer) == size and corpus.codec == SnakeCodec(**codec.to_dict())
        assert ("FREE" in corpus.episode_tokens(0)) == (size == len(vocabulary(config)))
        assert ("tail_events" in json.loads((out / "manifest.json").read_text())["spec"]["codec"]) == (size == len(vocabulary(config)))


def test_free_has_a_moves_salience():
    config = SnakeConfig(6, 6, 60)
    kept = GAME.play_episode(config, SnakeCodec(min_salience=Salience.MOVEMENT, tail_events=True), "greedy", 0, 1).tokens
    assert "FREE" in kept and "TICK" not in kept
    dropped = GAME.play_episode(config, SnakeCodec(min_salience=Salience.COLLISION, tail_events=True), "greedy", 0, 1).tokens
    assert dropped == GAME.play_episode(config, CodecConfig(min_salience=Salience.COLLISION), "greedy", 0, 1).tokens


@pytest.mark.parametrize(
    ("text", "index", "at_end"),
    [
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_U FREE X1 MOVE X1 Y0", 17, False),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_U FREE X1 Y1 FREE X1 Y1", 18, False),
        ("BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_U FREE X1 Y1", 18, True),
    ],
)
def test_a_free_cell_must_be_a_cell_followed_by_an_outcome(text, index, at_end):
    with pytest.raises(GrammarError) as err:
        list(parse(text.split()))
    assert err.value.index == index and err.value.at_end == at_end


def test_the_automaton_knows_both_designs():
    config = SnakeConfig(5, 5, 40)
    episodes = [
        GAME.play_episode(config, SnakeCodec(2, tail_events=tails), agent, 3, ep).tokens
        for tails in (False, True)
        for agent in AGENTS
        for ep in range(4)
    ]

    def accepts(automaton: GrammarAutomaton, tokens: list[str]) -> bool:
        state = automaton.start()
        for token in tokens:
            if token not in automaton.allowed(state):
                return False
            state = automaton.step(state, token)
        return automaton.allowed(state) == frozenset()

    assert all(accepts(GAME.automaton(config), tokens) for tokens in episodes)  # either design (GameSpec.automaton)
    v1, tails = episodes[: len(episodes) // 2], episodes[len(episodes) // 2 :]
    assert all(accepts(GrammarAutomaton(config, tail_events=False), t) for t in v1)
    assert not any(accepts(GrammarAutomaton(config, tail_events=False), t) for t in tails)
    assert all(accepts(GrammarAutomaton(config, tail_events=True), t) for t in tails)
    assert not any(accepts(GrammarAutomaton(config, tail_events=True), t) for t in v1 if "MOVE" in t)


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("config_index", [0, 1, 2])
def test_the_tail_events_option_keeps_the_game_contract(config_index, check):
    """The conformance kit's every check (tests/test_conformance.py runs grammar v1) on the tail-events design."""
    try:
        run_check(check, _played_with_tails(config_index))
    except Skipped as why:
        pytest.skip(str(why))


@cache
def _played_with_tails(config_index: int):
    return conformance.play(GAME, GAME.test_configs()[config_index], SnakeCodec(3, tail_events=True))
