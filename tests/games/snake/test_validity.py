"""Snake's strict replay evaluator: every rule is caught alone, at the right token, and real episodes all pass."""

from __future__ import annotations

import itertools
import json
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamegrammar.core.verdict import Verdict, make_verdict
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.evaluation import summarize, validate_many
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.grammar import (
    END_EVENTS,
    EXAMPLE,
    EXAMPLE_BODY_LIST,
    EXAMPLE_HEAD_FIRST,
    EXAMPLE_HEAD_FIRST_SELF,
    EXAMPLE_SENSE,
    EXAMPLE_SPAWN_COLUMN,
    EXAMPLE_TAILS,
    EXAMPLE_TAILS_SELF,
    CodecConfig,
    GrammarError,
    SnakeCodec,
    parse,
    uses_head_first,
    vocabulary,
)
from gamegrammar.games.snake.rules import SnakeConfig
from gamegrammar.games.snake.validity import RULE_NAMES, RULES, TIERS, lenient_tiers
from gamegrammar.games.snake.validity import validate as strict

BOARD = SnakeConfig()

BASE = EXAMPLE  # a valid 10x10 episode: eats on tick 2, a keyframe after tick 3, dies in the top wall on tick 8
TAILS = EXAMPLE_TAILS  # BASE in the tail-events design: FREE and the tail's cell before every MOVE
TAILS_SELF = EXAMPLE_TAILS_SELF  # a length-6 snake twice moves into the cell its tail leaves, then into its body
SENSE = EXAMPLE_SENSE  # TAILS_SELF's game in the sense design: SENSE_R, SENSE_U, SENSE_UL after the three inputs
COLUMN = EXAMPLE_SPAWN_COLUMN  # an eat whose spawn column (X5) holds the old head (row 5) and the tail (row 6)
COLUMN_WORDS = "FOOD_SPAWN X5 VAC VAC VAC VAC VAC OCC OCC VAC VAC VAC Y2"
LISTED = EXAMPLE_BODY_LIST  # COLUMN's eat in the body-list design: the six cells behind the new head, then the spawn
LIST = "LEN7 X5 Y5 X6 Y5 X7 Y5 X7 Y6 X6 Y6 X5 Y6 FOOD_SPAWN"
# A start as the rules write it, and one a cell to its left (a flip of the board moves the start there), both timing out.
START = "BOS SNAP PLAYER X5 Y5 DIR_R LEN1 BODY FOOD X9 Y9 SCORE V0 TICK INPUT_R MOVE X6 Y5 TICK INPUT_R MOVE X7 Y5 TIMEOUT EOS"
START_BESIDE = START.replace("X5 Y5", "X4 Y5").replace("X6 Y5", "X5 Y5").replace("X7 Y5", "X6 Y5")
# A snake curled round so that turning right runs into its own body (not its tail).
CURLED = "BOS SNAP PLAYER X5 Y5 DIR_U LEN5 BODY B_D B_R B_U B_U FOOD X0 Y0 SCORE V4 "


def validate(tokens: list[str] | str, config: SnakeConfig, **design: bool | int | None) -> Verdict:
    """The strict verdict but for `start_position`: most fixtures here open mid-game (a curled snake, a long one) to
    reach a rule within a tick or two. The start is checked alone by `strict` (its cases, and every real episode)."""
    verdict = strict(tokens, config, **design)
    return make_verdict({r: i for r, i in verdict.positions.items() if r != "start_position"}, verdict.lenient, RULES)


def play(config: SnakeConfig, codec: CodecConfig, agent_name: str, seed: int, episode: int) -> list[str]:
    return GAME.play_episode(config, codec, agent_name, seed, episode).tokens


def nth(tokens: list[str], token: str, k: int = 0) -> int:
    """Index of the k-th occurrence of token."""
    return [i for i, t in enumerate(tokens) if t == token][k]


def assert_only(verdict: Verdict, rule: str, index: int) -> None:
    assert verdict.violations == [rule], verdict
    assert verdict.first_violation == index
    assert verdict.positions == {rule: index}
    assert not verdict.valid
    broken_tier = next(tier for tier, rules in RULES.items() if rule in rules)
    assert verdict.tiers == {tier: tier not in (broken_tier, "full") for tier in TIERS}


def test_the_base_sequences_are_valid():
    for text in (BASE, CURLED + "TICK INPUT_R DIE_SELF EOS", TAILS, TAILS_SELF):
        verdict = validate(text.split(), BOARD)
        assert verdict.valid, verdict
        assert verdict.violations == [] and verdict.first_violation is None
        assert all(verdict.tiers.values()) and all(verdict.lenient.values())


def test_reversal_is_ignored_and_the_tail_cell_is_free():
    reversal = BASE.replace("TICK INPUT_R MOVE X6 Y5", "TICK INPUT_L MOVE X6 Y5")
    assert validate(reversal.split(), BOARD).valid
    into_tail = "BOS SNAP PLAYER X5 Y5 DIR_U LEN4 BODY B_D B_R B_U FOOD X0 Y0 SCORE V3 TICK INPUT_R MOVE X6 Y5 TIMEOUT EOS"
    assert validate(into_tail.split(), SnakeConfig(max_ticks=1)).valid


def mutate(text: str, old: str, new: str, count: int = 1) -> list[str]:
    assert old in text
    return text.replace(old, new, count).split()


# Food spawned off the board (the keyframe after it shows the same food, so only in_bounds breaks).
OFF_BOARD_SPAWN = BASE.replace("FOOD_SPAWN X2 Y7", "FOOD_SPAWN X12 Y7").replace("FOOD X2 Y7 SCORE V1", "FOOD X12 Y7 SCORE V1").split()

# (rule, mutated sequence, config, the token the first violation points at: (token, occurrence) or an index)
CASES = [
    ("grammar", mutate(BASE, "TICK INPUT_R MOVE X6 Y5", "TICK INPUT_R GROW X6 Y5"), BOARD, ("GROW", 0)),
    ("grammar", ["SNAP", *BASE.split()[2:]], BOARD, 0),
    ("complete", BASE.split()[:-6], BOARD, len(BASE.split()) - 6),  # cut off at a tick boundary
    ("complete", BASE.split()[:-9], BOARD, len(BASE.split()) - 9),  # cut off inside a tick
    ("complete", mutate(BASE, "TICK INPUT_U DIE_WALL EOS", "EOS"), BOARD, ("EOS", 0)),  # EOS before an end event
    ("complete", [*BASE.split(), "TICK"], BOARD, len(BASE.split())),  # something after EOS
    ("complete", [], BOARD, 0),
    ("in_bounds", OFF_BOARD_SPAWN, BOARD, ("X12", 0)),
    (
        "in_bounds",
        mutate(BASE, "X5 Y5 DIR_R LEN1 BODY FOOD X7 Y5 SCORE V0", "X9 Y5 DIR_L LEN2 BODY B_R FOOD X7 Y5 SCORE V1"),
        BOARD,
        8,
    ),  # tail off the board
    ("move_follows_input", mutate(BASE, "MOVE X6 Y5", "MOVE X6 Y6"), BOARD, ("X6", 0)),
    ("wall_death", mutate(BASE, "TICK INPUT_U DIE_WALL", "TICK INPUT_R DIE_WALL"), BOARD, ("DIE_WALL", 0)),
    ("self_death", (CURLED + "TICK INPUT_L DIE_SELF EOS").split(), BOARD, ("DIE_SELF", 0)),
    ("self_death", (CURLED + "TICK INPUT_R MOVE X6 Y5 TICK INPUT_U DIE_WALL EOS").split(), BOARD, ("MOVE", 0)),
    ("eat_iff_food", mutate(BASE, "EAT MOVE X7 Y5 GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1", "MOVE X7 Y5"), BOARD, ("MOVE", 1)),
    ("eat_iff_food", mutate(BASE, "MOVE X6 Y5", "EAT MOVE X6 Y5 GROW LEN2 FOOD_SPAWN X1 Y1 SCORE V1"), BOARD, ("EAT", 0)),
    ("grow_after_eat", mutate(BASE, "GROW LEN2", "GROW LEN3"), BOARD, ("LEN3", 0)),
    ("score_after_eat", mutate(BASE, "FOOD_SPAWN X2 Y7 SCORE V1", "FOOD_SPAWN X2 Y7 SCORE V2"), BOARD, ("V2", 0)),
    ("spawn_on_empty", mutate(BASE, "FOOD_SPAWN X2 Y7", "FOOD_SPAWN X6 Y5"), BOARD, ("X6", 1)),
    ("spawn_on_empty", mutate(BASE, "FOOD_SPAWN X2 Y7 SCORE V1", "SCORE V1"), BOARD, ("SCORE", 1)),
    ("keyframe_matches_state", mutate(BASE, "DIR_U LEN2", "DIR_R LEN2"), BOARD, ("DIR_R", 1)),
    ("keyframe_matches_state", mutate(BASE, "LEN2 BODY B_D FOOD X2 Y7 SCORE V1", "LEN2 BODY B_D FOOD X2 Y7 SCORE V4"), BOARD, ("V4", 0)),
    ("keyframe_matches_state", mutate(BASE, "LEN1 BODY FOOD", "LEN2 BODY FOOD"), BOARD, ("LEN2", 0)),  # impossible first keyframe
    ("keyframe_matches_state", mutate(BASE, "LEN1 BODY FOOD X7 Y5", "LEN1 BODY FOOD X5 Y5"), BOARD, 9),  # food on the body
    ("end_is_final", mutate(BASE, "DIE_WALL EOS", "DIE_WALL TICK INPUT_R MOVE X8 Y0 EOS"), BOARD, ("TICK", 8)),
    (
        "end_is_final",
        mutate(BASE, "DIE_WALL EOS", "DIE_WALL SNAP PLAYER X7 Y0 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 EOS"),
        BOARD,
        ("SNAP", 3),
    ),
    (
        "timeout_at_limit",
        mutate(BASE, "SNAP PLAYER X7 Y1 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 TICK INPUT_U MOVE X7 Y0 TICK INPUT_U DIE_WALL", "TIMEOUT"),
        SnakeConfig(max_ticks=7),
        ("TIMEOUT", 0),
    ),  # early
    ("timeout_at_limit", BASE.split(), SnakeConfig(max_ticks=7), ("TICK", 7)),  # alive at the limit, no TIMEOUT
    # the start: the head beside (W//2, H//2) (what a symmetry of an even board writes), then a score that is not 0
    ("start_position", START_BESIDE.split(), SnakeConfig(max_ticks=2), ("X4", 0)),
    ("start_position", mutate(START, "SCORE V0", "SCORE V2"), SnakeConfig(max_ticks=2), ("V2", 0)),
    # the keyframe schedule: BASE's keyframe after tick 6 left out (its first, after tick 3, sets the interval)
    ("keyframe_schedule", mutate(BASE, "SNAP PLAYER X7 Y1 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1 ", ""), BOARD, ("TICK", 6)),
    # the tail-events design: a wrong cell (at the wrong coordinate), a missing FREE (where it belongs), a FREE where the
    # tail stays (an eat, a wall death), and a missing FREE before DIE_SELF
    ("tail_freed", mutate(TAILS, "FREE X5 Y5 MOVE X6 Y5", "FREE X4 Y5 MOVE X6 Y5"), BOARD, ("X4", 0)),
    ("tail_freed", mutate(TAILS, "FREE X6 Y5 MOVE X7 Y4", "FREE X6 Y4 MOVE X7 Y4"), BOARD, ("Y4", 0)),
    ("tail_freed", mutate(TAILS, "TICK INPUT_U FREE X7 Y5 MOVE X7 Y3", "TICK INPUT_U MOVE X7 Y3"), BOARD, ("MOVE", 3)),
    ("tail_freed", mutate(TAILS, "INPUT_R EAT MOVE X7 Y5", "INPUT_R FREE X6 Y5 EAT MOVE X7 Y5"), BOARD, ("FREE", 1)),
    ("tail_freed", mutate(TAILS, "INPUT_U DIE_WALL", "INPUT_U FREE X7 Y1 DIE_WALL"), BOARD, ("FREE", 6)),
    ("tail_freed", mutate(TAILS_SELF, "FREE X7 Y6 DIE_SELF", "DIE_SELF"), BOARD, ("DIE_SELF", 0)),
    # the sense design: a word that misses the neck, one that misses the body above the head, a missing word (reported
    # where it belongs), and a word that names the tail's cell, which is free
    ("body_sensed", mutate(SENSE, "INPUT_D SENSE_R", "INPUT_D SENSE_NONE"), BOARD, ("SENSE_NONE", 0)),
    ("body_sensed", mutate(SENSE, "INPUT_U SENSE_UL", "INPUT_U SENSE_L"), BOARD, ("SENSE_L", 0)),
    ("body_sensed", mutate(SENSE, "INPUT_R SENSE_U MOVE", "INPUT_R MOVE"), BOARD, ("MOVE", 1)),
    ("body_sensed", mutate(SENSE, "INPUT_D SENSE_R", "INPUT_D SENSE_DR"), BOARD, ("SENSE_DR", 0)),
    # the spawn-column design: a body cell written VAC, an empty one written OCC, a word short (reported at the Y),
    # a word too many, and no words at all in a sequence declared (by its other spawn) in the design
    ("column_sensed", mutate(COLUMN, COLUMN_WORDS, COLUMN_WORDS.replace("OCC OCC", "VAC OCC")), BOARD, 33),
    ("column_sensed", mutate(COLUMN, COLUMN_WORDS, COLUMN_WORDS.replace("X5 VAC", "X5 OCC")), BOARD, 28),
    ("column_sensed", mutate(COLUMN, COLUMN_WORDS, COLUMN_WORDS.replace("VAC Y2", "Y2")), BOARD, ("Y2", 0)),
    ("column_sensed", mutate(COLUMN, COLUMN_WORDS, COLUMN_WORDS.replace("VAC Y2", "VAC VAC Y2")), BOARD, 38),
    # the body-list design: a wrong neck (the head's own cell), a wrong Y near the tail, a cell short (reported at the
    # FOOD_SPAWN word) and a cell too many (at the extra cell)
    ("body_listed", mutate(LISTED, LIST, LIST.replace("LEN7 X5 Y5", "LEN7 X4 Y5")), BOARD, 26),
    ("body_listed", mutate(LISTED, LIST, LIST.replace("X6 Y6 X5", "X6 Y7 X5")), BOARD, 35),
    ("body_listed", mutate(LISTED, LIST, LIST.replace("X5 Y6 FOOD_SPAWN", "FOOD_SPAWN")), BOARD, ("FOOD_SPAWN", 0)),
    ("body_listed", mutate(LISTED, LIST, LIST.replace("X5 Y6 FOOD_SPAWN", "X5 Y6 X4 Y6 FOOD_SPAWN")), BOARD, 38),
]


@pytest.mark.parametrize(("rule", "tokens", "config", "where"), CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_each_rule_is_caught_alone_at_its_first_token(rule, tokens, config, where):
    index = nth(tokens, *where) if isinstance(where, tuple) else where
    assert_only((strict if rule == "start_position" else validate)(tokens, config), rule, index)


def test_every_rule_has_a_case():
    assert {case[0] for case in CASES} == set(RULE_NAMES)


def test_the_valid_timeout_and_win_endings_pass():
    timeout = mutate(BASE, "TICK INPUT_U DIE_WALL", "TIMEOUT")  # alive at tick 7
    assert validate(timeout, SnakeConfig(max_ticks=7)).valid
    assert_only(validate(timeout, SnakeConfig(max_ticks=8)), "timeout_at_limit", nth(timeout, "TIMEOUT"))


def test_the_earliest_of_several_violations_is_first():
    tokens = mutate(BASE, "GROW LEN2", "GROW LEN3")
    tokens = " ".join(tokens).replace("TICK INPUT_U DIE_WALL", "TICK INPUT_R DIE_WALL").split()
    verdict = validate(tokens, BOARD)
    assert verdict.violations == ["grow_after_eat", "wall_death"]
    assert verdict.first_violation == nth(tokens, "LEN3")
    assert not verdict.tiers["physical"] and not verdict.tiers["rules"] and verdict.tiers["structural"]


def test_state_dependent_rules_wait_for_the_next_keyframe_after_a_divergence():
    # After a wrong move the state is unknown; the keyframe after tick 3 re-establishes it,
    # so a wall death the rules do not allow on tick 8 is still caught.
    tokens = mutate(BASE, "MOVE X6 Y5", "MOVE X6 Y6")
    tokens = " ".join(tokens).replace("TICK INPUT_U DIE_WALL", "TICK INPUT_R DIE_WALL").split()
    verdict = validate(tokens, BOARD)
    assert verdict.violations == ["move_follows_input", "wall_death"]


def test_a_tick_cut_off_inside_its_keyframe_is_still_checked():
    tokens = mutate(BASE, "TICK INPUT_U MOVE X7 Y4 SNAP", "TICK INPUT_U MOVE X7 Y5 SNAP")
    cut = tokens[: nth(tokens, "SNAP", 1) + 3]
    verdict = validate(cut, BOARD)
    assert verdict.violations == ["move_follows_input", "complete"]
    assert verdict.positions == {"move_follows_input": nth(cut, "X7", 2), "complete": len(cut)}


def test_anything_but_eos_after_the_end_breaks_end_is_final():
    cut_tick = [*BASE.split()[:-1], "TICK", "INPUT_U"]
    verdict = validate(cut_tick, BOARD)
    assert verdict.violations == ["end_is_final", "complete"] and verdict.first_violation == len(BASE.split()) - 1
    garbage = [*BASE.split()[:-1], "GROW", "EOS"]
    assert validate(garbage, BOARD).violations == ["grammar", "end_is_final"]


def test_a_missing_win_is_caught():
    config = SnakeConfig(4, 4, 400)
    for ep in range(300):  # greedy wins about 7% of 4x4 games
        tokens = play(config, CodecConfig(), "greedy", 0, ep)
        if tokens[-2] == "WIN":
            break
    else:
        pytest.fail("no WIN among these episodes")
    assert validate(tokens, config).valid
    verdict = validate([*tokens[:-2], "EOS"], config)
    assert verdict.violations == ["complete", "spawn_on_empty"]  # both at the EOS; ties go in RULE_NAMES order
    assert verdict.first_violation == len(tokens) - 2


# ---------------------------------------------------------------- the tail-events design


def test_a_spawn_on_the_body_in_the_spawn_column_design_is_reported_at_its_row():
    tokens = mutate(COLUMN, "OCC VAC VAC VAC Y2", "OCC VAC VAC VAC Y6")  # the tail's row, written OCC just before
    assert_only(validate(tokens, BOARD), "spawn_on_empty", nth(tokens, "Y6"))
    # grammar v1 reports the same spawn at its X
    v1 = mutate(BASE, "FOOD_SPAWN X2 Y7", "FOOD_SPAWN X7 Y5")
    assert_only(validate(v1, BOARD), "spawn_on_empty", nth(v1, "FOOD_SPAWN") + 1)


def test_the_spawn_column_design_is_declared_or_read_off_the_sequence():
    without = mutate(COLUMN, COLUMN_WORDS, "FOOD_SPAWN X5 Y2")
    assert validate(without, BOARD).valid and validate(COLUMN, BOARD).valid
    assert validate(COLUMN, BOARD, spawn_column=True).valid
    assert_only(validate(without, BOARD, spawn_column=True), "column_sensed", nth(without, "Y2"))
    assert_only(validate(BASE, BOARD, spawn_column=True), "column_sensed", nth(BASE.split(), "FOOD_SPAWN") + 2)
    # declared off, the design's words are not the grammar's: an error at the first of them
    assert_only(validate(COLUMN, BOARD, spawn_column=False), "grammar", nth(COLUMN.split(), "VAC"))


def test_the_body_list_design_is_declared_or_read_off_the_sequence():
    without = mutate(LISTED, LIST, "LEN7 FOOD_SPAWN")
    assert validate(without, BOARD).valid and validate(LISTED, BOARD).valid
    assert validate(LISTED, BOARD, body_list=True).valid
    assert_only(validate(without, BOARD, body_list=True), "body_listed", nth(without, "FOOD_SPAWN"))
    # declared off, the listed cells are not the grammar's: an error at the first of them
    assert_only(validate(LISTED, BOARD, body_list=False), "grammar", nth(LISTED.split(), "LEN7") + 1)
    off = mutate(LISTED, "X6 Y6 X5 Y6 FOOD_SPAWN", "X6 Y6 X5 Y6 X5 Y10 FOOD_SPAWN")  # an extra cell, off the board too
    assert validate(off, BOARD).violations == ["in_bounds", "body_listed"]
    # a spawn on a cell the list has just named is a spawn on the body, reported at its X as in grammar v1
    on_list = mutate(LISTED, "FOOD_SPAWN X5 Y2", "FOOD_SPAWN X7 Y6")
    assert_only(validate(on_list, BOARD), "spawn_on_empty", nth(on_list, "FOOD_SPAWN") + 1)


def test_spawn_column_and_body_list_episodes_pass_in_every_combination():
    config = SnakeConfig(6, 5, 80)
    for other, spawn in itertools.product((None, "sense", "head_first", "tail_events"), ("spawn_column", "body_list")):
        codec = SnakeCodec(2, **{spawn: True}, **({other: True} if other else {}))
        for agent in AGENTS:
            for ep in range(8):
                tokens = play(config, codec, agent, 3, ep)
                verdict = GAME.validate(tokens, config, codec)
                assert verdict.valid, (other, agent, ep, verdict)


def test_the_sense_design_is_declared_or_read_off_the_sequence():
    missing = mutate(SENSE, "INPUT_R SENSE_U MOVE", "INPUT_R MOVE")
    assert_only(validate(missing, BOARD, sense=False), "grammar", nth(missing, "SENSE_R"))  # declared v1: no SENSE word
    assert validate(SENSE, BOARD, sense=True).valid and validate(BASE, BOARD).valid
    assert_only(validate(BASE, BOARD, sense=True), "body_sensed", nth(BASE.split(), "MOVE", 0))  # v1 held to the design


def test_a_sequence_that_mixes_the_designs_is_invalid():
    # grammar v1 with one (correct) FREE on tick 1: the sequence is read as the tail-events design, so the next move
    # without its FREE breaks tail_freed there
    mixed = mutate(BASE, "TICK INPUT_R MOVE X6 Y5", "TICK INPUT_R FREE X5 Y5 MOVE X6 Y5")
    assert_only(validate(mixed, BOARD), "tail_freed", nth(mixed, "MOVE", 2))
    # the tail-events design with one FREE left out: caught at its tick, wherever it is
    for k in range(6):
        tokens = TAILS.split()
        at = nth(tokens, "FREE", k)
        del tokens[at : at + 3]
        assert_only(validate(tokens, BOARD), "tail_freed", at)


def test_a_free_cell_off_the_board_breaks_in_bounds_and_tail_freed():
    tokens = mutate(TAILS, "FREE X7 Y5 MOVE X7 Y3", "FREE X17 Y5 MOVE X7 Y3")
    verdict = validate(tokens, BOARD)
    assert verdict.violations == ["in_bounds", "tail_freed"] and verdict.positions == dict.fromkeys(verdict.violations, nth(tokens, "X17"))


def test_without_a_state_a_free_must_still_go_with_a_move_or_a_self_death():
    # after a wrong move the state is unknown until the keyframe after tick 3; a FREE before the eat of tick 2 is
    # still caught (it goes with an EAT), a right-looking one before a MOVE is not
    wrong_move = mutate(TAILS, "MOVE X6 Y5", "MOVE X6 Y6")
    assert validate(wrong_move, BOARD).violations == ["move_follows_input"]
    extra = mutate(" ".join(wrong_move), "INPUT_R EAT", "INPUT_R FREE X1 Y1 EAT")
    verdict = validate(extra, BOARD)
    assert verdict.violations == ["move_follows_input", "tail_freed"] and verdict.positions["tail_freed"] == nth(extra, "FREE", 1)


def test_the_fast_path_routes_the_tail_events_design_to_the_reference(tails_corpus):
    corpus = Corpus(tails_corpus)
    rows = range(len(corpus))
    as_ids = validate_many([corpus.episode_ids(row) for row in rows], corpus.game)
    as_tokens = validate_many([corpus.episode_tokens(row) for row in rows], corpus.game)
    assert all(v.valid and all(v.lenient.values()) for v in as_ids) and as_ids == as_tokens
    mutants = []
    for row in rows:
        tokens = corpus.episode_tokens(row)
        if "FREE" in tokens:
            at = len(tokens) // 2
            at = at + tokens[at:].index("FREE")
            mutants.append([*tokens[: at + 1], "X0" if tokens[at + 1] != "X0" else "X1", *tokens[at + 2 :]])
    verdicts = validate_many(mutants, corpus.game)
    assert verdicts == [validate(m, corpus.game) for m in mutants]
    assert all(v.violations[:1] == ["tail_freed"] for v in verdicts)


# ---------------------------------------------------------------- the head-first design

HF = EXAMPLE_HEAD_FIRST  # BASE in the head-first design: each cell before its outcome word, no MOVE word on the eat
HF_SELF = EXAMPLE_HEAD_FIRST_SELF  # the snake of TAILS_SELF: tick 3 writes X6 Y5, the body cell it runs into (token 30)


def test_the_head_first_sequences_are_valid_read_off_the_sequence_or_declared():
    for text in (HF, HF_SELF):
        for verdict in (
            strict(text.split(), BOARD),
            strict(text, BOARD, head_first=True),
            GAME.validate(text.split(), BOARD, SnakeCodec(keyframe_interval=3, head_first=True)),
        ):
            if text == HF_SELF:  # it opens mid-game, a length-6 snake: only its start is not the rules'
                assert verdict.violations == ["start_position"], verdict
                continue
            assert verdict.valid and all(verdict.lenient.values()), verdict


HF_CASES = [
    # the cell a self-death runs into is held to the input like a MOVE's cell
    ("move_follows_input", mutate(HF_SELF, "X6 Y5 DIE_SELF", "X6 Y4 DIE_SELF"), 30),
    ("move_follows_input", mutate(HF_SELF, "X6 Y5 DIE_SELF", "X7 Y5 DIE_SELF"), 30),  # on the body, but not where the head goes
    ("move_follows_input", mutate(HF, "TICK INPUT_R X6 Y5 MOVE", "TICK INPUT_R X6 Y4 MOVE"), 15),
    ("move_follows_input", mutate(HF, "X7 Y5 EAT", "X7 Y6 EAT"), 20),  # the eat's cell
    ("self_death", mutate(HF_SELF, "X6 Y6 MOVE TICK INPUT_U X6 Y5 DIE_SELF", "X6 Y6 DIE_SELF"), 27),  # a death the rules do not make
    ("self_death", mutate(HF_SELF, "X6 Y5 DIE_SELF EOS", "X6 Y5 MOVE TICK INPUT_U DIE_WALL EOS"), 32),  # a move into the body
    ("eat_iff_food", mutate(HF, "X6 Y5 MOVE", "X6 Y5 EAT GROW LEN2 FOOD_SPAWN X0 Y0 SCORE V1"), 17),
    ("wall_death", mutate(HF, "TICK INPUT_U X7 Y0 MOVE TICK INPUT_U DIE_WALL", "TICK INPUT_U DIE_WALL"), 78),  # a wall death one tick early
]


@pytest.mark.parametrize(("rule", "tokens", "index"), HF_CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(HF_CASES)])
def test_each_rule_is_caught_alone_at_its_first_token_in_the_head_first_design(rule, tokens, index):
    assert_only(validate(tokens, BOARD), rule, index)
    assert validate(tokens, BOARD, head_first=True) == validate(tokens, BOARD)  # read off the sequence: the same design


def test_a_self_death_cell_off_the_board_breaks_in_bounds_with_or_without_a_state():
    off = mutate(HF_SELF, "X6 Y5 DIE_SELF", "X6 Y10 DIE_SELF")
    verdict = validate(off, BOARD)
    assert verdict.violations == ["in_bounds", "move_follows_input"] and verdict.positions == {"in_bounds": 30, "move_follows_input": 30}
    # after a wrong move the state is unknown: the cell is still on no board
    unknown = mutate(" ".join(off), "TICK INPUT_D X5 Y6 MOVE", "TICK INPUT_D X5 Y4 MOVE")
    verdict = validate(unknown, BOARD)
    assert verdict.violations == ["move_follows_input", "in_bounds"] and verdict.positions == {"move_follows_input": 20, "in_bounds": 30}
    assert validate(mutate(" ".join(unknown), "X6 Y10", "X6 Y5"), BOARD).violations == ["move_follows_input"]


def test_a_head_first_sequence_declared_as_grammar_v1_breaks_the_grammar_and_the_other_way_round():
    for verdict in (validate(HF, BOARD, head_first=False), GAME.validate(HF.split(), BOARD, SnakeCodec(keyframe_interval=3))):
        assert verdict.violations == ["grammar"] and verdict.first_violation == 15  # X6, where v1 writes MOVE
    for verdict in (
        validate(BASE, BOARD, head_first=True),
        GAME.validate(BASE.split(), BOARD, SnakeCodec(keyframe_interval=3, head_first=True)),
    ):
        assert verdict.violations == ["grammar"] and verdict.first_violation == 15  # MOVE, where the cell belongs
    self_as_v1 = validate(HF_SELF.split(), BOARD, head_first=False, tails=False)  # opens mid-game: start_position aside
    assert self_as_v1.violations == ["grammar"] and self_as_v1.first_violation == 20
    assert GAME.validate(BASE.split(), BOARD, SnakeCodec(keyframe_interval=3)).valid
    assert GAME.validate(TAILS.split(), BOARD, SnakeCodec(keyframe_interval=3, tail_events=True)).valid


def test_a_sequence_that_mixes_the_orders_is_a_grammar_error_at_the_first_tick_in_the_other_order():
    late_v1 = mutate(HF, "TICK INPUT_U X7 Y3 MOVE", "TICK INPUT_U MOVE X7 Y3")
    at = next(i for i in range(len(late_v1)) if late_v1[i - 2 : i + 3] == ["TICK", "INPUT_U", "MOVE", "X7", "Y3"])  # tick 4's MOVE
    late_hf = mutate(BASE, "TICK INPUT_U MOVE X7 Y3", "TICK INPUT_U X7 Y3 MOVE")
    for tokens, index in ((late_v1, at), (late_hf, late_hf.index("Y3") - 1)):
        verdict = validate(tokens, BOARD)
        assert verdict.violations == ["grammar"] and verdict.first_violation == index, verdict
        assert not verdict.tiers["structural"] and verdict.tiers["physical"] and verdict.tiers["rules"]


def test_lenient_physical_reads_head_first_cells_in_an_unparseable_sequence():
    unparseable = mutate(HF, "GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1", "GROW LEN2 FOOD_SPAWN X2 Y7")  # SCORE left out: a grammar error
    verdict = validate(unparseable, BOARD)
    assert verdict.violations == ["grammar"] and verdict.lenient["physical"] and lenient_tiers(unparseable, BOARD)["physical"]
    for old, new in (("X7 Y3 MOVE", "X7 Y8 MOVE"), ("X6 Y5 MOVE", "X4 Y5 MOVE"), ("X7 Y5 EAT", "X9 Y9 EAT"), ("X7 Y1 MOVE", "X7 Y11 MOVE")):
        teleport = mutate(" ".join(unparseable), old, new)  # a cell that is not next to the head, or off the board
        verdict = validate(teleport, BOARD)
        assert "grammar" in verdict.violations and not verdict.lenient["physical"] and verdict.lenient["structural"], (old, new)
    wrong_input = mutate(" ".join(unparseable), "TICK INPUT_R X6 Y5 MOVE", "TICK INPUT_D X6 Y5 MOVE")  # adjacent: physical enough
    assert validate(wrong_input, BOARD).lenient["physical"]
    # and in a sequence that parses, from the parsed ticks
    assert not validate(mutate(HF, "X7 Y3 MOVE", "X7 Y8 MOVE"), BOARD).lenient["physical"]
    assert validate(mutate(HF, "TICK INPUT_R X6 Y5 MOVE", "TICK INPUT_D X6 Y5 MOVE"), BOARD).lenient["physical"]


def test_a_head_first_corpus_is_valid_read_off_its_episodes_and_declared(head_first_corpus):
    corpus = Corpus(head_first_corpus)
    episodes = [corpus.episode_tokens(row) for row in range(len(corpus))]
    assert sum(uses_head_first(e) for e in episodes) == len(episodes)
    for codec in (None, corpus.codec):
        verdicts = validate_many(episodes, corpus.game, codec)
        assert all(v.valid and all(v.lenient.values()) for v in verdicts)
    assert {e[-2] for e in episodes} >= {"DIE_WALL", "DIE_SELF", "TIMEOUT"}
    assert [GAME.validate(e, corpus.game, SnakeCodec()).violations for e in episodes[:40]] == [["grammar"]] * 40


def test_validate_many_holds_a_head_first_sequence_to_a_declared_v1_codec_like_validate():
    v1 = SnakeCodec()
    want = GAME.validate(HF.split(), BOARD, v1)
    assert want.violations == ["grammar"]
    assert [v.to_json() for v in validate_many([HF.split()] * 3, BOARD, v1)] == [want.to_json()] * 3  # the reference alone
    assert [v.to_json() for v in validate_many([HF.split()] * 70, BOARD, v1)] == [want.to_json()] * 70  # the fast path


# ---------------------------------------------------------------- real episodes


@pytest.mark.parametrize(
    ("config", "codec", "agents", "episodes"),
    [
        (SnakeConfig(), CodecConfig(), {"random": 0.4, "greedy": 0.4, "wall_follower": 0.2}, 120),
        (SnakeConfig(), CodecConfig(keyframe_interval=10), {"random": 0.4, "greedy": 0.4, "wall_follower": 0.2}, 60),
        (SnakeConfig(7, 5, 60), CodecConfig(keyframe_interval=1), {"random": 0.5, "greedy": 0.5}, 60),
        (SnakeConfig(4, 4, 400), CodecConfig(keyframe_interval=3), {"greedy": 1.0}, 120),
        (SnakeConfig(), SnakeCodec(tail_events=True), {"random": 0.4, "greedy": 0.4, "wall_follower": 0.2}, 200),
        (SnakeConfig(4, 4, 400), SnakeCodec(keyframe_interval=3, tail_events=True), {"greedy": 1.0}, 120),
        (SnakeConfig(), SnakeCodec(head_first=True), {"random": 0.4, "greedy": 0.4, "wall_follower": 0.2}, 200),
        (SnakeConfig(4, 4, 400), SnakeCodec(keyframe_interval=3, head_first=True), {"greedy": 1.0}, 120),
    ],
)
def test_every_generated_episode_passes_every_rule(tmp_path, config, codec, agents, episodes):
    out = tmp_path / "corpus"
    generate(CorpusSpec(game=config, codec=codec, agents=agents, episodes=episodes, seed=3), out)
    corpus = Corpus(out)
    verdicts = validate_many((corpus.episode_tokens(row) for row in range(len(corpus))), config)
    bad = [(row, v.violations) for row, v in enumerate(verdicts) if not v.valid or not all(v.lenient.values())]
    assert bad == []
    summary = summarize(verdicts, RULES)
    assert summary["tiers"]["full"]["passed"] == episodes and summary["first_violations"] == dict.fromkeys(RULE_NAMES, 0)
    if config.width == 4:
        assert (corpus.index["end"] == END_EVENTS.index("WIN")).any()  # the WIN rules were exercised


# ---------------------------------------------------------------- lenient tiers


def test_lenient_tiers_forgive_a_cut_off_sequence():
    tokens = BASE.split()[:20]
    verdict = validate(tokens, BOARD)
    assert verdict.violations == ["complete"] and not verdict.tiers["structural"]
    assert verdict.lenient == {"structural": False, "physical": True, "rules": True, "full": False}


def test_lenient_physical_ignores_the_input_but_not_teleports():
    wrong_input = mutate(BASE, "TICK INPUT_R MOVE X6 Y5", "TICK INPUT_D MOVE X6 Y5")
    verdict = validate(wrong_input, BOARD)
    assert verdict.violations == ["move_follows_input"] and verdict.lenient["physical"]
    teleport = mutate(BASE, "MOVE X6 Y5", "MOVE X6 Y7")
    assert not validate(teleport, BOARD).lenient["physical"]


def test_lenient_rules_need_grow_and_score_after_eat_only():
    no_score = mutate(BASE, "GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1", "GROW LEN2 FOOD_SPAWN X2 Y7")
    verdict = validate(no_score, BOARD)
    assert verdict.violations == ["grammar"] and not verdict.lenient["rules"] and verdict.lenient["structural"]
    stray_grow = mutate(BASE, "MOVE X6 Y5", "MOVE X6 Y5 GROW LEN2")
    assert not validate(stray_grow, BOARD).lenient["rules"]
    wrong_values = mutate(BASE, "GROW LEN2 FOOD_SPAWN X2 Y7 SCORE V1", "GROW LEN9 FOOD_SPAWN X2 Y7 SCORE V7")
    assert validate(wrong_values, BOARD).lenient["rules"]


# ---------------------------------------------------------------- properties

VOCAB = vocabulary(BOARD)


DESIGNS = ({}, {"tail_events": True}, {"head_first": True})  # grammar v1 and its two options


@cache
def episode_pool() -> tuple[tuple[str, ...], ...]:
    return tuple(
        tuple(play(BOARD, SnakeCodec(keyframe_interval=k, **design), agent, 5, ep))
        for agent in AGENTS
        for ep in range(4)
        for k in (0, 4)
        for design in DESIGNS
    )


def check_invariants(verdict: Verdict, tokens: list[str]) -> None:
    assert set(verdict.violations) <= set(RULE_NAMES)
    assert verdict.valid == (not verdict.violations) == verdict.tiers["full"]
    assert verdict.first_violation == (min(verdict.positions.values()) if verdict.positions else None)
    assert all(0 <= i <= len(tokens) for i in verdict.positions.values())
    for tier, rules in RULES.items():
        assert verdict.tiers[tier] == (not set(rules) & set(verdict.violations))
    assert verdict.lenient["full"] == (verdict.lenient["structural"] and verdict.lenient["physical"] and verdict.lenient["rules"])
    json.dumps(verdict.to_json())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(VOCAB), max_size=60), st.booleans())
def test_random_token_sequences_get_a_verdict(tokens, with_bos):
    tokens = ["BOS", *tokens] if with_bos else tokens
    verdict = validate(tokens, BOARD)
    check_invariants(verdict, tokens)


edits = st.lists(
    st.tuples(st.sampled_from(["replace", "insert", "delete"]), st.integers(0, 10_000), st.sampled_from(VOCAB)), min_size=1, max_size=4
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), edits)
def test_mutated_episodes_get_a_verdict(which, changes):
    tokens = list(episode_pool()[which % len(episode_pool())])
    for kind, where, token in changes:
        i = where % (len(tokens) + (kind == "insert"))
        if kind == "replace":
            tokens[i] = token
        elif kind == "insert":
            tokens.insert(i, token)
        elif len(tokens) > 1:
            del tokens[i]
    verdict = validate(tokens, BOARD)
    check_invariants(verdict, tokens)
    try:
        list(parse(tokens, to_eos=True))
    except GrammarError:
        return
    # A sequence that parses to its end gets the same lenient verdict from the token scan.
    assert lenient_tiers(tokens, BOARD) == verdict.lenient


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_every_prefix_of_a_valid_episode_is_only_incomplete(which, cut):
    tokens = list(episode_pool()[which % len(episode_pool())])
    prefix = tokens[: cut % len(tokens)]
    verdict = validate(prefix, BOARD)
    assert verdict.violations == ["complete"]
    assert verdict.lenient["physical"] and verdict.lenient["rules"] and not verdict.lenient["structural"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([(10, 10, 200), (4, 4, 300), (6, 5, 40)]),
    st.sampled_from(list(AGENTS)),
    st.integers(0, 2**31),
    st.integers(0, 5),
)
def test_played_episodes_are_always_valid(board, agent, seed, interval):
    config = SnakeConfig(*board)
    tokens = play(config, SnakeCodec(keyframe_interval=interval, **DESIGNS[seed % 3]), agent, seed, 0)
    verdict = validate(tokens, config)
    assert verdict.valid, verdict
    assert all(verdict.lenient.values())


def test_a_declared_design_holds_a_sequence_to_it():
    """A tail-events model that leaves its FREE cells out is not judged as grammar v1 once its codec is given."""
    from gamegrammar.games.snake.grammar import SnakeCodec

    bare = TAILS.replace(" FREE", " DROP").split()
    bare = [t for i, t in enumerate(bare) if t != "DROP" and not (i and bare[i - 1] == "DROP") and not (i > 1 and bare[i - 2] == "DROP")]
    assert bare == BASE.split()  # the same episode, written without its tail events
    assert validate(bare, BOARD).valid  # read off the sequence: grammar v1, valid
    codec = SnakeCodec(keyframe_interval=3, tail_events=True)
    declared = GAME.validate(bare, BOARD, codec)
    assert not declared.valid and declared.violations[0] == "tail_freed"
    assert [v.to_json() for v in validate_many([bare] * 70, BOARD, codec)] == [declared.to_json()] * 70
    assert GAME.validate(TAILS.split(), BOARD, codec).valid
    assert GAME.validate(BASE.split(), BOARD, SnakeCodec(keyframe_interval=3)).valid


# ---------------------------------------------------------------- facts the rules and the declared design fix


def test_a_start_the_rules_never_write_breaks_start_position_alone():
    assert strict(START, SnakeConfig(max_ticks=2)).valid
    assert_only(strict(START_BESIDE, SnakeConfig(max_ticks=2)), "start_position", 3)
    for old, new, at in (("X5 Y5 DIR_R", "X5 Y4 DIR_R", 4), ("SCORE V0", "SCORE V1", 12)):
        tokens = START.replace(old, new, 1).replace("X6 Y5", "X6 Y4").replace("X7 Y5", "X7 Y4") if "Y4" in new else START.replace(old, new)
        assert_only(strict(tokens, SnakeConfig(max_ticks=2)), "start_position", at)
    # a longer snake at the start cell: LEN2 and its body step, reported at LEN
    longer = "BOS SNAP PLAYER X5 Y5 DIR_R LEN2 BODY B_L FOOD X9 Y9 SCORE V1 TICK INPUT_R MOVE X6 Y5 TIMEOUT EOS"
    assert_only(strict(longer, SnakeConfig(max_ticks=1)), "start_position", 6)


def test_a_keyframe_no_tick_can_reach_is_impossible():
    """What every tick keeps true: the score is LEN - 1, and a snake of two cells or more heads away from its neck."""
    after_3 = "SNAP PLAYER X7 Y4 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1"
    for wrong, at in ((after_3.replace("DIR_U", "DIR_D"), "DIR_D"), (after_3.replace("SCORE V1", "SCORE V3"), "V3")):
        tokens = mutate(BASE, after_3, wrong)
        assert_only(validate(tokens, BOARD), "keyframe_matches_state", nth(tokens, at))
        # after a divergence the state is unknown, and an impossible keyframe is not followed either
        diverged = mutate(" ".join(tokens), "TICK INPUT_U MOVE X7 Y4", "TICK INPUT_U MOVE X7 Y3")
        assert validate(diverged, BOARD).violations == ["move_follows_input", "keyframe_matches_state"]


def test_a_keyframe_off_the_declared_schedule_breaks_keyframe_schedule_alone():
    tokens = BASE.split()
    assert strict(tokens, BOARD, keyframe_interval=3).valid
    assert_only(strict(tokens, BOARD, keyframe_interval=0), "keyframe_schedule", nth(tokens, "SNAP", 1))  # only the opening
    assert_only(strict(tokens, BOARD, keyframe_interval=2), "keyframe_schedule", nth(tokens, "TICK", 2))  # missing after tick 2
    assert_only(strict(tokens, BOARD, keyframe_interval=6), "keyframe_schedule", nth(tokens, "SNAP", 1))  # after 3: extra
    # cut off just where a keyframe is due: the cut-off is complete's, not a missing keyframe
    cut = tokens[: nth(tokens, "SNAP", 1)]
    assert_only(strict(cut, BOARD, keyframe_interval=3), "complete", len(cut))


def test_the_keyframe_interval_is_read_off_an_undeclared_sequence():
    tokens = BASE.split()
    assert strict(tokens, BOARD).valid  # the keyframe after tick 3 sets K = 3, and tick 6 has one
    extra = mutate(BASE, "TICK INPUT_U MOVE X7 Y0", "TICK INPUT_U MOVE X7 Y0 SNAP PLAYER X7 Y0 DIR_U LEN2 BODY B_D FOOD X2 Y7 SCORE V1")
    assert_only(strict(extra, BOARD), "keyframe_schedule", nth(extra, "SNAP", 3))


@pytest.mark.parametrize(
    ("declared", "text", "word"),
    [
        ({"sense": True}, TAILS, "FREE"),  # a tail-events word in the sense design
        ({"tails": True}, SENSE, "SENSE_R"),
        ({}, LISTED, "X5"),  # grammar v1 declared: a listed cell where FOOD_SPAWN belongs
        ({"sense": True, "spawn_column": False}, SENSE.replace("TICK INPUT_D SENSE_R", "TICK INPUT_D SENSE_R", 1), None),
        ({}, COLUMN, "VAC"),
    ],
)
def test_a_word_of_a_design_not_declared_is_a_grammar_error(declared, text, word):
    design = dict.fromkeys(("tails", "head_first", "sense", "spawn_column", "body_list"), False) | declared
    verdict = validate(text, BOARD, **design)
    if word is None:  # the design's own words only: no grammar error
        assert "grammar" not in verdict.positions, verdict
        return
    tokens = text.split()
    at = nth(tokens, word) if word != "X5" else nth(tokens, "LEN7") + 1
    assert verdict.violations[0] == "grammar" and verdict.positions["grammar"] == at, verdict
    assert "grammar" not in validate(text, BOARD).positions  # undeclared, the words say which design it is
