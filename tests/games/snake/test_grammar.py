from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

import pytest

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Salience
from gamegrammar.core.gamespec import EpisodeRecord
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.games import conformance
from gamegrammar.games.conformance import CHECKS, Skipped, run_check
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import (
    COLUMN_OF,
    COLUMN_WORDS,
    EXAMPLE,
    EXAMPLE_BODY_LIST,
    EXAMPLE_HEAD_FIRST,
    EXAMPLE_HEAD_FIRST_SELF,
    EXAMPLE_SENSE,
    EXAMPLE_SPAWN_COLUMN,
    EXAMPLE_TAILS,
    EXAMPLE_TAILS_SELF,
    SENSE_TOKENS,
    CodecConfig,
    GrammarAutomaton,
    GrammarError,
    SnakeCodec,
    Tick,
    codec_vocabulary,
    decode,
    parse,
    uses_body_list,
    uses_head_first,
    uses_sense,
    uses_spawn_column,
    uses_tail_events,
    vocabulary,
)
from gamegrammar.games.snake.rules import (
    Direction,
    SnakeConfig,
    SnakeState,
    body_neighbours,
    column_occupancy,
    empty_cells,
    legal_directions,
    resolve,
)
from gamegrammar.games.snake.trace import trace


def episode(config: SnakeConfig, codec: CodecConfig, agent_name: str, seed: int, ep: int):
    record = GAME.play_episode(config, codec, agent_name, seed, ep)
    return record.tokens, record.events, {s.tick: s for s in record.states}, record.end


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 1, 7])
def test_round_trip_rebuilds_events_and_states(board, interval):
    config, codec = SnakeConfig(*board), CodecConfig(keyframe_interval=interval)
    vocab = set(vocabulary(config))
    count, ends = 0, set()
    for agent in AGENTS:
        for ep in range(15):
            tokens, events, states, end = episode(config, codec, agent, 2, ep)
            ends.add(end)
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
    assert count == 15 * len(AGENTS)
    assert ends >= {"DIE_WALL", "DIE_SELF", "TIMEOUT"} and ("WIN" in ends or config.cells > 16)  # 4x4 games win too


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


def option_ticks(config: SnakeConfig, codec: SnakeCodec, as_plain) -> Iterator[tuple[EpisodeRecord, Tick, SnakeState]]:
    """A grammar option's round trip on 6 episodes of every agent: its tokens are grammar v1's once `as_plain` takes
    the option out, and decode to the engine's events, end and keyframes. Yields (record, tick, state before it)."""
    plain, vocab = CodecConfig(codec.keyframe_interval), set(codec_vocabulary(config, codec))
    for agent in AGENTS:
        for ep in range(6):
            record = GAME.play_episode(config, codec, agent, 2, ep)
            assert set(record.tokens) <= vocab
            assert as_plain(record.tokens) == GAME.play_episode(config, plain, agent, 2, ep).tokens
            decoded = decode(record.tokens)
            assert decoded.events == record.events  # the option's words are not events: the same events as grammar v1
            assert decoded.end_reason == record.end
            assert all(state == record.states[tick] for tick, state in decoded.keyframes.items())
            for tick in (t for t in parse(record.tokens) if isinstance(t, Tick)):
                yield record, tick, record.states[tick.number - 1]


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
def test_tail_events_round_trip_and_name_the_cell_the_tail_leaves(board, interval):
    for record, tick, before in option_ticks(SnakeConfig(*board), SnakeCodec(interval, tail_events=True), without_free):
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
    v1, both = vocabulary(config, tail_events=False, sense=False, spawn_column=False), vocabulary(config, sense=False, spawn_column=False)
    assert both == [*v1, "FREE"] and GAME.vocabulary(config) == vocabulary(config) == [*both, *SENSE_TOKENS, *COLUMN_WORDS]
    assert codec_vocabulary(config, CodecConfig()) == codec_vocabulary(config, SnakeCodec()) == v1
    assert codec_vocabulary(config, SnakeCodec(tail_events=True)) == both
    assert GAME.codec_vocabulary(config, SnakeCodec(tail_events=True)) == both


def test_the_codec_names_the_option_only_when_it_is_on():
    assert SnakeCodec(3, 1).to_dict() == CodecConfig(3, 1).to_dict()  # grammar v1 manifests are unchanged
    assert SnakeCodec(3, 1, tail_events=True).to_dict() == {"keyframe_interval": 3, "min_salience": 1, "tail_events": True}
    assert GAME.codec_type is SnakeCodec and [f.option for f in GAME.codec_flags()] == [
        "--tail-events",
        "--head-first",
        "--sense",
        "--spawn-column",
        "--body-list",
    ]
    old = CorpusSpec.from_dict(CorpusSpec(game=SnakeConfig(5, 5, 30), episodes=3).to_dict())
    assert old.codec == SnakeCodec() and not old.codec.tail_events  # a spec without the field reads as the option off
    new = CorpusSpec(game=SnakeConfig(5, 5, 30), codec=SnakeCodec(tail_events=True), episodes=3)
    assert CorpusSpec.from_dict(new.to_dict()).codec == SnakeCodec(tail_events=True)
    assert CorpusSpec(game=SnakeConfig(5, 5, 30), codec=CodecConfig(2), episodes=3).codec == SnakeCodec(2)
    with pytest.raises(GameGrammarError, match="tail_events"):
        SnakeCodec(tail_events="yes")


def test_tail_events_corpus_has_its_own_tokenizer_and_v1_keeps_its_own(tmp_path):
    config = SnakeConfig(5, 5, 30)
    tails = len(vocabulary(config, sense=False, spawn_column=False))
    for codec, size in (
        (CodecConfig(), len(vocabulary(config, tail_events=False, sense=False, spawn_column=False))),
        (SnakeCodec(tail_events=True), tails),
    ):
        out = tmp_path / str(size)
        generate(CorpusSpec(game=config, codec=codec, episodes=20, seed=1), out)
        corpus = Corpus(out)
        assert len(corpus.tokenizer) == size and corpus.codec == SnakeCodec(**codec.to_dict())
        assert ("FREE" in corpus.episode_tokens(0)) == (size == tails)
        assert ("tail_events" in json.loads((out / "manifest.json").read_text())["spec"]["codec"]) == (size == tails)


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

    accepts = _accepts
    assert all(accepts(GAME.automaton(config), tokens) for tokens in episodes)  # either design (GameSpec.automaton)
    v1, tails = episodes[: len(episodes) // 2], episodes[len(episodes) // 2 :]
    assert all(accepts(GrammarAutomaton(config, tail_events=False), t) for t in v1)
    assert not any(accepts(GrammarAutomaton(config, tail_events=False), t) for t in tails)
    assert all(accepts(GrammarAutomaton(config, tail_events=True), t) for t in tails)
    assert not any(accepts(GrammarAutomaton(config, tail_events=True), t) for t in v1 if "MOVE" in t)


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("config_index", [0, 1, 2])
@pytest.mark.parametrize("option", ["tail_events", "head_first", "sense", "spawn_column", "sense+spawn_column"])
def test_each_grammar_option_keeps_the_game_contract(option, config_index, check):
    """The conformance kit's every check (tests/games/test_conformance.py runs grammar v1) on each option's design."""
    try:
        run_check(check, _played_with(option, config_index))
    except Skipped as why:
        pytest.skip(str(why))


@cache
def _played_with(option: str, config_index: int):
    codec = SnakeCodec(3, **dict.fromkeys(option.split("+"), True))
    # Three episodes per agent (the kit's default is six; tests/games/test_conformance.py plays those): each check reads
    # every record, and they end in every way the kit's six do.
    played = conformance.play(GAME, GAME.test_configs()[config_index], codec, episodes=3)
    assert {r.end for r in played.records} == {"DIE_WALL", "DIE_SELF", "TIMEOUT"}
    designs = {"tail_events": uses_tail_events, "head_first": uses_head_first, "sense": uses_sense, "spawn_column": uses_spawn_column}
    for name in option.split("+"):
        assert any(designs[name](r.tokens) for r in played.records)  # the kit plays the design it is given
    return played


# ---------------------------------------------------------------- the head-first option


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
def test_head_first_round_trips_and_writes_each_cell_before_its_outcome_word(board, interval, as_v1):
    config = SnakeConfig(*board)
    head_first, plain = SnakeCodec(interval, head_first=True), CodecConfig(interval)
    vocab = set(codec_vocabulary(config, head_first))
    outcomes = set()
    for agent in AGENTS:
        for ep in range(10):
            record = GAME.play_episode(config, head_first, agent, 2, ep)
            v1 = GAME.play_episode(config, plain, agent, 2, ep)
            assert set(record.tokens) <= vocab and "FREE" not in record.tokens
            assert as_v1(record.tokens) == v1.tokens  # the same episode, only the order of each tick differs
            assert record.states == v1.states and record.end == v1.end
            assert uses_head_first(record.tokens) == (record.tokens[15] != "DIE_WALL") and not uses_head_first(v1.tokens)
            decoded = decode(record.tokens)
            assert decoded.events == record.events == v1.events  # the cells are written elsewhere, the events are grammar v1's
            assert decoded.end_reason == record.end
            assert all(state == record.states[tick] for tick, state in decoded.keyframes.items())
            for tick in (t for t in parse(record.tokens) if isinstance(t, Tick)):
                before, p = record.states[tick.number - 1], tick.positions
                outcomes.add(tick.outcome)
                if tick.outcome == "DIE_WALL":
                    assert tick.cell is None and p["outcome"] == p["input"] + 1
                    continue
                assert tick.cell == resolve(before, config, tick.input)[2]  # where the head goes, or runs into the body
                assert p["cell"] == p["input"] + 1 and p["outcome"] == p["cell"] + 2
                assert record.tokens[p["outcome"]] == tick.outcome
                if tick.outcome == "DIE_SELF":
                    assert tick.move is None and tick.cell in before.body
                else:
                    assert tick.move == tick.cell == record.states[tick.number].head
                if tick.outcome == "EAT":
                    assert record.tokens[p["outcome"] + 1] == "GROW"  # no MOVE word on an eat
    assert outcomes >= {"MOVE", "EAT", "DIE_WALL"}


def test_the_head_first_examples_are_the_v1_episodes_with_each_cell_first(as_v1):
    assert as_v1(EXAMPLE_HEAD_FIRST.split()) == EXAMPLE.split()
    assert decode(EXAMPLE_HEAD_FIRST).events == decode(EXAMPLE).events
    assert len(EXAMPLE_HEAD_FIRST.split()) == len(EXAMPLE.split()) - 1  # the eat's MOVE word
    ticks = [t for t in parse(EXAMPLE_HEAD_FIRST_SELF.split()) if isinstance(t, Tick)]
    assert [(t.cell, t.outcome, t.move) for t in ticks] == [((5, 6), "MOVE", (5, 6)), ((6, 6), "MOVE", (6, 6)), ((6, 5), "DIE_SELF", None)]
    assert decode(EXAMPLE_HEAD_FIRST_SELF).events == decode(EXAMPLE_TAILS_SELF).events  # the same episode, a third design
    assert uses_head_first(EXAMPLE_HEAD_FIRST.split()) and uses_head_first(EXAMPLE_HEAD_FIRST_SELF.split())
    assert not any(uses_head_first(t.split()) for t in (EXAMPLE, EXAMPLE_TAILS, EXAMPLE_TAILS_SELF))
    wall_first = [
        "BOS",
        "SNAP",
        "PLAYER",
        "X0",
        "Y5",
        "DIR_L",
        "LEN1",
        "BODY",
        "FOOD",
        "X7",
        "Y5",
        "SCORE",
        "V0",
        "TICK",
        "INPUT_L",
        "DIE_WALL",
        "EOS",
    ]
    assert not uses_head_first(wall_first)  # no tick writes a cell: either design, read as grammar v1
    assert list(parse(wall_first, head_first=True)) and list(parse(wall_first, head_first=False))


def test_head_first_adds_no_token():
    config = SnakeConfig(6, 5)
    assert codec_vocabulary(config, SnakeCodec(head_first=True)) == vocabulary(config, tail_events=False, sense=False, spawn_column=False)
    assert GAME.codec_vocabulary(config, SnakeCodec(2, 1, head_first=True)) == vocabulary(
        config, tail_events=False, sense=False, spawn_column=False
    )


def test_the_codec_names_head_first_only_when_it_is_on():
    assert "head_first" not in SnakeCodec(3, 1).to_dict() and "head_first" not in SnakeCodec(3, 1, tail_events=True).to_dict()
    assert SnakeCodec(3, 1, head_first=True).to_dict() == {"keyframe_interval": 3, "min_salience": 1, "head_first": True}
    assert SnakeCodec(head_first=1).head_first is True  # stored as a bool
    old = CorpusSpec.from_dict(CorpusSpec(game=SnakeConfig(5, 5, 30), episodes=3).to_dict())
    assert not old.codec.head_first  # a spec without the field reads as the option off
    new = CorpusSpec(game=SnakeConfig(5, 5, 30), codec=SnakeCodec(2, head_first=True), episodes=3)
    assert CorpusSpec.from_dict(new.to_dict()).codec == SnakeCodec(2, head_first=True)
    for bad in ("yes", 2, None):
        with pytest.raises(GameGrammarError, match="head_first"):
            SnakeCodec(head_first=bad)


def test_tail_events_and_head_first_together_are_refused_with_a_clear_error(tmp_path, capsys):
    with pytest.raises(GameGrammarError, match="separate grammar designs"):
        SnakeCodec(tail_events=True, head_first=True)
    with pytest.raises(GameGrammarError, match="choose one"):
        SnakeCodec(head_first=True, sense=True)
    with pytest.raises(GameGrammarError, match="choose one"):
        CorpusSpec.from_dict({**CorpusSpec(episodes=3).to_dict(), "codec": {"tail_events": True, "head_first": True}})
    from gamegrammar.cli import main

    out = tmp_path / "both"
    assert main(["generate", "--episodes", "3", "--out", str(out), "--quiet", "--tail-events", "--head-first"]) == 2
    assert "separate grammar designs" in capsys.readouterr().err and not out.exists()


def test_generate_head_first_writes_a_head_first_corpus_with_grammar_v1s_tokenizer(tmp_path, as_v1):
    from gamegrammar.cli import main

    config = SnakeConfig(6, 6, 40)
    out, v1_out = tmp_path / "hf", tmp_path / "v1"
    args = ["generate", "--episodes", "12", "--seed", "4", "--quiet", "--width", "6", "--height", "6", "--max-ticks", "40"]
    assert main([*args, "--out", str(out), "--head-first"]) == 0
    assert main([*args, "--out", str(v1_out)]) == 0
    corpus, v1 = Corpus(out), Corpus(v1_out)
    assert corpus.codec == SnakeCodec(head_first=True) and corpus.game == config
    assert corpus.tokenizer.tokens == v1.tokenizer.tokens == vocabulary(config, tail_events=False, sense=False, spawn_column=False)
    assert json.loads((out / "manifest.json").read_text())["spec"]["codec"]["head_first"] is True
    assert "head_first" not in json.loads((v1_out / "manifest.json").read_text())["spec"]["codec"]
    for row in range(len(corpus)):
        tokens = corpus.episode_tokens(row)
        assert as_v1(tokens) == v1.episode_tokens(row) and (tokens != v1.episode_tokens(row) or tokens[15] == "DIE_WALL")


def test_head_first_cells_have_a_moves_salience(as_v1):
    config = SnakeConfig(6, 6, 60)
    for ep in range(200):  # an episode that eats and then runs into its body
        record = GAME.play_episode(config, SnakeCodec(head_first=True), "greedy", 0, ep)
        if record.end == "DIE_SELF" and "EAT" in record.tokens:
            break
    else:
        pytest.fail("no greedy self-death with an eat")
    kept = GAME.play_episode(config, SnakeCodec(min_salience=Salience.MOVEMENT, head_first=True), "greedy", 0, ep).tokens
    assert "TICK" not in kept and kept[-5].startswith("INPUT_") and (kept[-4][0], kept[-3][0], kept[-2]) == ("X", "Y", "DIE_SELF")
    assert as_v1(kept) == GAME.play_episode(config, CodecConfig(min_salience=Salience.MOVEMENT), "greedy", 0, ep).tokens
    for salience in (Salience.COLLISION, Salience.RULE_EFFECT, Salience.PHASE):  # no MOVE, no cell: grammar v1's tokens
        dropped = GAME.play_episode(config, SnakeCodec(min_salience=salience, head_first=True), "greedy", 0, ep).tokens
        assert dropped == GAME.play_episode(config, CodecConfig(min_salience=salience), "greedy", 0, ep).tokens


HF_START = "BOS SNAP PLAYER X1 Y1 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0"  # 13 tokens: the first tick's input is token 14


@pytest.mark.parametrize(
    ("text", "head_first", "index", "at_end"),
    [
        # one order per sequence: the first tick that writes a cell decides it
        (f"{HF_START} TICK INPUT_U X1 Y0 MOVE TICK INPUT_R MOVE X2 Y0", None, 20, False),
        (f"{HF_START} TICK INPUT_U MOVE X1 Y0 TICK INPUT_R X2 Y0 MOVE", None, 20, False),
        (
            f"{HF_START} TICK INPUT_U X1 Y0 MOVE SNAP PLAYER X1 Y0 DIR_U LEN1 BODY FOOD X2 Y2 SCORE V0 TICK INPUT_R MOVE X2 Y0",
            None,
            32,
            False,
        ),
        # a declared design holds from the first tick
        (f"{HF_START} TICK INPUT_U MOVE X1 Y0", True, 15, False),
        (f"{HF_START} TICK INPUT_U X1 Y0 MOVE", False, 15, False),
        (f"{HF_START} TICK INPUT_U EAT MOVE X1 Y0 GROW LEN2", True, 15, False),
        # after the head's cell only MOVE, EAT or DIE_SELF; an eat goes on with GROW, not a MOVE word
        (f"{HF_START} TICK INPUT_U X1 Y0 DIE_WALL", None, 17, False),
        (f"{HF_START} TICK INPUT_U X1 Y0 GROW LEN2", True, 17, False),
        (f"{HF_START} TICK INPUT_U X1 Y0 EAT MOVE X1 Y0 GROW LEN2", None, 18, False),
        (f"{HF_START} TICK INPUT_U X1 MOVE", None, 16, False),
        # cut off after the cell: not malformed
        (f"{HF_START} TICK INPUT_U X1 Y0", True, 17, True),
        (f"{HF_START} TICK INPUT_U X1 Y0 EAT", None, 18, True),
    ],
)
def test_a_tick_in_the_other_order_is_a_grammar_error_at_its_first_token(text, head_first, index, at_end):
    with pytest.raises(GrammarError) as err:
        list(parse(text.split(), head_first=head_first))
    assert (err.value.index, err.value.at_end) == (index, at_end), err.value


def test_a_declared_order_parses_its_own_design_and_none_parses_either():
    for text in (EXAMPLE_HEAD_FIRST, EXAMPLE_HEAD_FIRST_SELF):
        assert [i.end for i in parse(text.split(), head_first=True)] == [i.end for i in parse(text.split())]
        with pytest.raises(GrammarError) as err:
            list(parse(text.split(), head_first=False))
        first_cell = text.split().index("TICK") + 2
        assert err.value.index == first_cell and text.split()[first_cell][0] == "X"
    with pytest.raises(GrammarError) as err:
        list(parse(EXAMPLE.split(), head_first=True))
    assert err.value.index == 15 and not err.value.at_end  # the MOVE word where the cell should be
    for text in (EXAMPLE, EXAMPLE_TAILS, EXAMPLE_TAILS_SELF):
        assert list(parse(text.split(), head_first=False))
        tokens = text.split()
        with pytest.raises(GrammarError) as err:
            list(parse(tokens, head_first=True))
        first_tick = tokens.index("TICK")
        assert first_tick < err.value.index < tokens.index("TICK", first_tick + 1)  # refused in the first tick


def _accepts(automaton: GrammarAutomaton, tokens: list[str]) -> bool:
    state = automaton.start()
    for token in tokens:
        if token not in automaton.allowed(state):
            return False
        state = automaton.step(state, token)
    return automaton.allowed(state) == frozenset()


def test_the_automaton_knows_the_head_first_design():
    config = SnakeConfig(5, 5, 40)

    def played(**options: bool) -> list[list[str]]:
        return [GAME.play_episode(config, SnakeCodec(2, **options), agent, 3, ep).tokens for agent in AGENTS for ep in range(4)]

    head_first = played(head_first=True)
    v1, tails = played(), played(tail_events=True)
    board = SnakeConfig()
    examples = [EXAMPLE_HEAD_FIRST.split(), EXAMPLE_HEAD_FIRST_SELF.split()]
    for mode in (None, True):
        assert all(_accepts(GrammarAutomaton(board, head_first=mode), t) for t in examples)
        assert all(_accepts(GrammarAutomaton(config, head_first=mode), t) for t in head_first)
    assert all(_accepts(GAME.automaton(config), t) for t in head_first + v1 + tails)  # every design (GameSpec.automaton)
    assert all(_accepts(GrammarAutomaton(config, head_first=None), t) for t in v1)
    assert not any(_accepts(GrammarAutomaton(config, head_first=True), t) for t in v1 if "MOVE" in t)
    assert not _accepts(GrammarAutomaton(board, head_first=True), EXAMPLE.split())
    assert not any(_accepts(GrammarAutomaton(config, head_first=False), t) for t in head_first if uses_head_first(t))
    assert not any(_accepts(GrammarAutomaton(config, tail_events=True), t) for t in head_first if uses_head_first(t))
    # what it allows at each step of a head-first tick
    automaton = GrammarAutomaton(board, head_first=True)
    state = automaton.start()
    for token in EXAMPLE_HEAD_FIRST.split()[:14]:  # ... SCORE V0 TICK
        state = automaton.step(state, token)
    xs = {f"X{x}" for x in range(board.width)}
    assert automaton.allowed(state) == {f"INPUT_{d}" for d in "UDLR"}
    state = automaton.step(state, "INPUT_R")
    assert automaton.allowed(state) == xs | {"DIE_WALL"}
    state = automaton.step(automaton.step(state, "X6"), "Y5")
    assert automaton.allowed(state) == {"MOVE", "EAT", "DIE_SELF"}
    assert automaton.allowed(automaton.step(state, "EAT")) == {"GROW"}
    assert automaton.allowed(automaton.step(state, "MOVE")) == {"TICK", "TIMEOUT", "SNAP"}
    assert automaton.allowed(automaton.step(state, "DIE_SELF")) == {"EOS"}


# ---------------------------------------------------------------- the sense option


def without_sense(tokens: list[str]) -> list[str]:
    return [t for t in tokens if not t.startswith("SENSE_")]


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
def test_sense_round_trips_and_names_the_deadly_body_around_the_head_after_every_input(board, interval):
    seen = set()
    for record, tick, before in option_ticks(SnakeConfig(*board), SnakeCodec(interval, sense=True), without_sense):
        assert tick.sense == body_neighbours(before) and tick.positions["sense"] == tick.positions["input"] + 1
        assert record.tokens[tick.positions["outcome"]] == tick.outcome
        seen.add(len(tick.sense))
    assert {0, 1, 2} <= seen  # nothing, the neck alone, and body beside it


def test_body_neighbours_follow_the_rules_of_the_tail_and_the_neck():
    config = SnakeConfig()
    states = trace(EXAMPLE_SENSE, config)  # length 6 in a 3x2 loop
    assert [body_neighbours(s) for s in states[:3]] == [(Direction.R,), (Direction.U,), (Direction.U, Direction.L)]
    for state in states[:3]:  # a SENSE direction is one the rules kill the head in (the tail's cell is free)
        for d in legal_directions(state.direction):
            assert (resolve(state, config, d)[1].value == "DIE_SELF") == (d in body_neighbours(state))
    two = SnakeState(((2, 2), (3, 2)), Direction.L, (0, 0), 1)
    assert body_neighbours(two) == ()  # the neck of a snake of two is its tail, which retracts first


def test_the_sense_example_is_the_v1_episode_with_a_sense_word_after_each_input():
    tokens = EXAMPLE_SENSE.split()
    ticks = [t for t in parse(tokens) if isinstance(t, Tick)]
    assert [(t.sense, t.outcome) for t in ticks] == [
        ((Direction.R,), "MOVE"),
        ((Direction.U,), "MOVE"),
        ((Direction.U, Direction.L), "DIE_SELF"),
    ]
    assert (
        without_sense(tokens) == EXAMPLE_TAILS_SELF.replace("FREE X5 Y6 ", "").replace("FREE X6 Y6 ", "").replace("FREE X7 Y6 ", "").split()
    )
    assert uses_sense(tokens) and not uses_head_first(tokens) and not uses_tail_events(tokens)
    assert not uses_sense(EXAMPLE.split())


def test_sense_words_follow_free_and_keep_every_other_id():
    config = SnakeConfig(6, 5)
    everything = vocabulary(config, spawn_column=False)
    assert everything == [*vocabulary(config, sense=False, spawn_column=False), *SENSE_TOKENS] and len(set(SENSE_TOKENS)) == 16
    assert codec_vocabulary(config, SnakeCodec(sense=True)) == everything
    assert SENSE_TOKENS[0] == "SENSE_NONE" and SENSE_TOKENS[0b1001] == "SENSE_UR"


def test_a_sense_word_must_follow_the_input_and_precede_the_outcome():
    opening = "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0 TICK "
    for text, index in ((opening + "SENSE_NONE INPUT_R MOVE X6 Y5", 14), (opening + "INPUT_R SENSE_NONE SENSE_NONE", 16)):
        with pytest.raises(GrammarError) as err:
            list(parse(text.split()))
        assert err.value.index == index


def test_the_automaton_knows_the_sense_design():
    config = SnakeConfig()
    played = [GAME.play_episode(config, SnakeCodec(sense=True), agent, 4, ep).tokens for agent in AGENTS for ep in range(6)]
    v1 = [GAME.play_episode(config, CodecConfig(), agent, 4, ep).tokens for agent in AGENTS for ep in range(6)]
    for mode in (True, None):
        assert all(_accepts(GrammarAutomaton(config, sense=mode), t) for t in played)
    assert all(_accepts(GrammarAutomaton(config, sense=None), t) for t in v1)
    assert not any(_accepts(GrammarAutomaton(config, sense=True), t) for t in v1)
    assert not any(_accepts(GrammarAutomaton(config, sense=False, spawn_column=False), t) for t in played)


# ---------------------------------------------------------------- the spawn-column option


def without_column(tokens: list[str]) -> list[str]:
    return [t for t in tokens if t not in COLUMN_OF]


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
@pytest.mark.parametrize("other", [None, "sense", "head_first", "tail_events"])
def test_spawn_column_round_trips_and_writes_the_grown_body_in_the_spawns_column(board, interval, other):
    config = SnakeConfig(*board)
    codec = SnakeCodec(interval, spawn_column=True, **({other: True} if other else {}))
    plain = SnakeCodec(interval, **({other: True} if other else {}))
    spawns = occupied = 0
    for agent in AGENTS:
        for ep in range(4):
            record = GAME.play_episode(config, codec, agent, 2, ep)
            assert without_column(record.tokens) == GAME.play_episode(config, plain, agent, 2, ep).tokens
            assert decode(record.tokens).events == record.events  # the words are not events
            for tick in (t for t in parse(record.tokens) if isinstance(t, Tick)):
                if tick.spawn is None:
                    assert tick.column is None
                    continue
                after = record.states[tick.number]
                assert tick.column == column_occupancy(after.body, tick.spawn[0], config) and len(tick.column) == config.height
                assert tick.positions["spawn_y"] == tick.positions["column"] + config.height == tick.positions["spawn"] + 1 + config.height
                assert not tick.column[tick.spawn[1]]  # the food spawns on a row written VAC
                spawns += 1
                occupied += sum(tick.column)
    assert spawns > 20 and occupied > 0


def test_column_occupancy_reads_the_whole_column_of_the_body():
    config = SnakeConfig(5, 4)
    body = ((2, 1), (2, 2), (3, 2), (3, 3), (2, 3))
    assert column_occupancy(body, 2, config) == (False, True, True, True)
    assert column_occupancy(body, 0, config) == (False,) * 4
    for x in range(config.width):  # the columns' VAC cells are the empty cells the spawn draws from
        empty = {cell for cell in empty_cells(body, config) if cell[0] == x}
        assert empty == {(x, y) for y, occupied in enumerate(column_occupancy(body, x, config)) if not occupied}


def test_the_spawn_column_example():
    tokens = EXAMPLE_SPAWN_COLUMN.split()
    (eat,) = [t for t in parse(tokens) if isinstance(t, Tick) and t.outcome == "EAT"]
    assert eat.spawn == (5, 2) and eat.column == (False,) * 5 + (True, True) + (False,) * 3
    assert uses_spawn_column(tokens) and not uses_sense(tokens) and not uses_spawn_column(EXAMPLE.split())
    assert decode(EXAMPLE_SPAWN_COLUMN).events == decode(" ".join(without_column(tokens))).events


def test_spawn_column_words_come_last_and_keep_every_other_id():
    config = SnakeConfig(6, 5)
    assert vocabulary(config) == [*vocabulary(config, spawn_column=False), "VAC", "OCC"]
    for codec in (SnakeCodec(spawn_column=True), SnakeCodec(spawn_column=True, head_first=True), SnakeCodec(spawn_column=True, sense=True)):
        assert codec_vocabulary(config, codec) == vocabulary(config)
    assert codec_vocabulary(config, SnakeCodec(sense=True)) == vocabulary(config, spawn_column=False)  # unchanged
    assert SnakeCodec(3, sense=True, spawn_column=True).to_dict() == {
        "keyframe_interval": 3,
        "min_salience": 0,
        "sense": True,
        "spawn_column": True,
    }
    assert "spawn_column" not in SnakeCodec(sense=True).to_dict()


def test_spawn_column_words_have_the_spawns_salience():
    config = SnakeConfig(6, 6, 60)
    codec = SnakeCodec(min_salience=Salience.RULE_EFFECT, spawn_column=True)
    kept = GAME.play_episode(config, codec, "greedy", 0, 1).tokens
    assert "FOOD_SPAWN" in kept and "VAC" in kept
    dropped = GAME.play_episode(config, SnakeCodec(min_salience=Salience.PHASE, spawn_column=True), "greedy", 0, 1).tokens
    assert dropped == GAME.play_episode(config, CodecConfig(min_salience=Salience.PHASE), "greedy", 0, 1).tokens


def test_the_encoder_needs_the_board_for_the_column():
    from gamegrammar.games.snake.grammar import EpisodeEncoder

    with pytest.raises(ValueError, match="config"):
        EpisodeEncoder(SnakeCodec(spawn_column=True))


def test_the_automaton_knows_the_spawn_column_design():
    config = SnakeConfig(6, 5, 60)
    played = [GAME.play_episode(config, SnakeCodec(spawn_column=True, sense=True), a, 4, ep).tokens for a in AGENTS for ep in range(6)]
    plain = [GAME.play_episode(config, SnakeCodec(sense=True), a, 4, ep).tokens for a in AGENTS for ep in range(6)]
    assert sum("VAC" in t for t in played) > 5
    for mode in (True, None):
        assert all(_accepts(GrammarAutomaton(config, sense=True, spawn_column=mode), t) for t in played)
    assert all(_accepts(GAME.automaton(config), t) for t in played + plain)
    assert not any(_accepts(GrammarAutomaton(config, spawn_column=True), t) for t in plain if "FOOD_SPAWN" in t)
    assert not any(_accepts(GrammarAutomaton(config, spawn_column=False), t) for t in played if "FOOD_SPAWN" in t)
    example = EXAMPLE_SPAWN_COLUMN.split()
    board = SnakeConfig()
    automaton = GrammarAutomaton(board, spawn_column=True)
    state = automaton.start()
    for token in example[: example.index("FOOD_SPAWN") + 2]:  # ... FOOD_SPAWN X5
        state = automaton.step(state, token)
    for _ in range(board.height):  # exactly H words, then the row
        assert automaton.allowed(state) == set(COLUMN_WORDS)
        state = automaton.step(state, "VAC")
    assert automaton.allowed(state) == {f"Y{y}" for y in range(board.height)}


def test_the_any_design_automaton_holds_a_sequence_to_one_order_as_parse_does():
    """A head-first tick commits the sequence: a later tick in grammar v1's order (or with a FREE cell) is refused,
    since `parse` refuses it; the codec's automaton (`GameSpec.automaton(config, codec)`) is that design's alone."""
    opening = "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X8 Y5 SCORE V0 "
    config = SnakeConfig()
    for second, ok in (("TICK INPUT_R X7 Y5 MOVE", True), ("TICK INPUT_R MOVE X7 Y5", False), ("TICK INPUT_R FREE X6 Y5", False)):
        tokens = (opening + "TICK INPUT_R X6 Y5 MOVE " + second).split()
        automaton, state = GAME.automaton(config), None
        state = automaton.start()
        for token in tokens:
            state = automaton.step(state, token) if state is not None else None
        assert (state is not None) == ok
        if not ok:
            with pytest.raises(GrammarError):
                list(parse(tokens))
    head_first = GAME.automaton(config, SnakeCodec(head_first=True))
    assert _accepts(head_first, EXAMPLE_HEAD_FIRST.split()) and not _accepts(head_first, EXAMPLE.split())
    assert _accepts(GAME.automaton(config, SnakeCodec()), EXAMPLE.split()) and not _accepts(
        GAME.automaton(config, SnakeCodec()), EXAMPLE_SENSE.split()
    )


# ---------------------------------------------------------------- the body-list option


def without_list(tokens: list[str]) -> list[str]:
    """The same tokens with every spawn's listed cells taken out (the cells between an eat's LEN and FOOD_SPAWN)."""
    out: list[str] = []
    listing = False
    for token in tokens:
        listing = (listing or (token.startswith("LEN") and bool(out) and out[-1] == "GROW")) and token != "FOOD_SPAWN"
        if not (listing and token[0] in "XY"):
            out.append(token)
    return out


@pytest.mark.parametrize("board", [(10, 10, 200), (4, 4, 300), (7, 5, 60)])
@pytest.mark.parametrize("interval", [0, 3])
@pytest.mark.parametrize("other", [None, "sense", "head_first", "tail_events"])
def test_body_list_round_trips_and_lists_the_grown_body_behind_the_head(board, interval, other):
    config = SnakeConfig(*board)
    codec = SnakeCodec(interval, body_list=True, **({other: True} if other else {}))
    plain = SnakeCodec(interval, **({other: True} if other else {}))
    spawns = cells = 0
    for agent in AGENTS:
        for ep in range(4):
            record = GAME.play_episode(config, codec, agent, 2, ep)
            assert without_list(record.tokens) == GAME.play_episode(config, plain, agent, 2, ep).tokens
            assert decode(record.tokens).events == record.events  # the listed cells are not events
            for tick in (t for t in parse(record.tokens) if isinstance(t, Tick)):
                if tick.spawn is None:
                    assert tick.listed is None
                    continue
                body = record.states[tick.number].body
                assert tick.listed == body[1:] and len(tick.listed) == tick.length - 1  # neck first, down to the tail
                assert tick.positions["spawn"] == tick.positions["listed"] + 2 * len(tick.listed) + 1
                assert tick.spawn not in body
                spawns += 1
                cells += len(tick.listed)
    assert spawns > 20 and cells > spawns


def test_the_body_list_example():
    tokens = EXAMPLE_BODY_LIST.split()
    (eat,) = [t for t in parse(tokens) if isinstance(t, Tick) and t.outcome == "EAT"]
    assert eat.spawn == (5, 2) and eat.length == 7
    assert eat.listed == ((5, 5), (6, 5), (7, 5), (7, 6), (6, 6), (5, 6))
    assert uses_body_list(tokens) and not uses_spawn_column(tokens) and not uses_body_list(EXAMPLE_SPAWN_COLUMN.split())
    assert not uses_body_list(EXAMPLE.split())  # a keyframe's LEN is followed by BODY, an eat's by FOOD_SPAWN
    assert decode(EXAMPLE_BODY_LIST).events == decode(" ".join(without_list(tokens))).events
    state = parse(tokens)
    first = next(state)
    assert eat.listed == first.body()[:6]  # the old head and the old body, the tail staying on a growth tick


def test_body_list_adds_no_word_and_is_another_design_of_the_spawn_than_the_column():
    config = SnakeConfig(6, 5)
    assert codec_vocabulary(config, SnakeCodec(body_list=True)) == vocabulary(config, tail_events=False, sense=False, spawn_column=False)
    assert codec_vocabulary(config, SnakeCodec(body_list=True, sense=True)) == codec_vocabulary(config, SnakeCodec(sense=True))
    assert SnakeCodec(2, body_list=True).to_dict() == {"keyframe_interval": 2, "min_salience": 0, "body_list": True}
    assert "body_list" not in SnakeCodec(sense=True).to_dict()
    with pytest.raises(GameGrammarError, match="separate designs of the spawn"):
        SnakeCodec(spawn_column=True, body_list=True)


def test_listed_cells_have_the_spawns_salience():
    config = SnakeConfig(6, 6, 60)
    kept = GAME.play_episode(config, SnakeCodec(min_salience=Salience.RULE_EFFECT, body_list=True), "greedy", 0, 1).tokens
    assert uses_body_list(kept)
    dropped = GAME.play_episode(config, SnakeCodec(min_salience=Salience.PHASE, body_list=True), "greedy", 0, 1).tokens
    assert dropped == GAME.play_episode(config, CodecConfig(min_salience=Salience.PHASE), "greedy", 0, 1).tokens


COLUMN_BLOCK = "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC Y2 SCORE"
LIST_BLOCK = "X6 Y6 X5 Y6 FOOD_SPAWN"


@pytest.mark.parametrize(
    ("example", "block", "replace", "index"),
    [
        (EXAMPLE_SPAWN_COLUMN, COLUMN_BLOCK, "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC SCORE", 38),  # no row
        (EXAMPLE_SPAWN_COLUMN, COLUMN_BLOCK, "FOOD_SPAWN VAC X5", 27),  # a word before the column
        (EXAMPLE_BODY_LIST, LIST_BLOCK, "X6 Y6 X5 Y6 SCORE", 38),  # no FOOD_SPAWN after the list
        (EXAMPLE_BODY_LIST, LIST_BLOCK, "X6 Y6 X5 FOOD_SPAWN", 37),  # a listed cell without its Y
    ],
    ids=["column-no-row", "column-word-first", "list-no-spawn", "list-cell-without-y"],
)
def test_the_spawn_designs_words_stand_where_the_grammar_puts_them(example, block, replace, index):
    with pytest.raises(GrammarError) as err:
        list(parse(example.replace(block, replace).split()))
    assert err.value.index == index and not err.value.at_end


@pytest.mark.parametrize(("example", "cut"), [(EXAMPLE_SPAWN_COLUMN, 33), (EXAMPLE_BODY_LIST, 31)], ids=["column", "list"])
def test_a_sequence_stopped_inside_a_spawn_designs_words_is_cut_off_not_malformed(example, cut):
    with pytest.raises(GrammarError) as err:
        list(parse(example.split()[:cut]))
    assert err.value.at_end


def test_the_automaton_knows_the_body_list_design():
    config = SnakeConfig(6, 5, 60)
    played = [GAME.play_episode(config, SnakeCodec(body_list=True, sense=True), a, 4, ep).tokens for a in AGENTS for ep in range(6)]
    plain = [GAME.play_episode(config, SnakeCodec(sense=True), a, 4, ep).tokens for a in AGENTS for ep in range(6)]
    assert sum(uses_body_list(t) for t in played) > 5
    for mode in (True, None):
        assert all(_accepts(GrammarAutomaton(config, sense=True, body_list=mode), t) for t in played)
    assert all(_accepts(GAME.automaton(config), t) for t in played + plain)
    assert all(_accepts(GAME.automaton(config, SnakeCodec(sense=True, body_list=True)), t) for t in played)
    assert not any(_accepts(GrammarAutomaton(config, sense=True, body_list=True), t) for t in plain if "FOOD_SPAWN" in t)
    assert not any(_accepts(GrammarAutomaton(config, sense=True, body_list=False), t) for t in played if uses_body_list(t))
    example = EXAMPLE_BODY_LIST.split()
    automaton = GrammarAutomaton(SnakeConfig(), body_list=True)
    state = automaton.start()
    listed = example.index("LEN7") + 1
    for token in example[:listed]:
        state = automaton.step(state, token)
    xs, ys = {f"X{x}" for x in range(10)}, {f"Y{y}" for y in range(10)}
    for k in range(6):  # exactly LEN - 1 cells, then the spawn
        assert automaton.allowed(state) == xs
        state = automaton.step(automaton.step(state, example[listed + 2 * k]), example[listed + 2 * k + 1])
    assert automaton.allowed(state) == {"FOOD_SPAWN"}
    free = GrammarAutomaton(SnakeConfig(), body_list=None)  # any number of cells, then the spawn
    state = free.start()
    for token in example[:listed]:
        state = free.step(state, token)
    assert free.allowed(state) == xs | {"FOOD_SPAWN", "SCORE"}
    state = free.step(free.step(state, "X5"), "Y5")
    assert free.allowed(state) == xs | {"FOOD_SPAWN"} and ys.isdisjoint(free.allowed(state))
