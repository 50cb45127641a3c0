"""Snake's rules draft proposes exactly the tokens the rules fix, in every design, and finds its way back after a slip."""

from __future__ import annotations

import pytest

from gamegrammar.core.events import Salience
from gamegrammar.games.snake import GAME
from gamegrammar.games.snake.agents import GreedyAgent
from gamegrammar.games.snake.draft import GUESSED_TICKS, InputGuess, SnakeDraft
from gamegrammar.games.snake.fidelity import rule_determined_positions
from gamegrammar.games.snake.grammar import SnakeCodec
from gamegrammar.games.snake.rules import Direction, SnakeConfig, SnakeState

DESIGNS = {
    "v1": SnakeCodec(),
    "tails, keyframes": SnakeCodec(tail_events=True, keyframe_interval=5),
    "head first": SnakeCodec(head_first=True),
    "sense": SnakeCodec(sense=True),
    "spawn column": SnakeCodec(sense=True, spawn_column=True),
    "body list, keyframes": SnakeCodec(sense=True, body_list=True, keyframe_interval=7),
}


def proposed_positions(tokens: list[str], config: SnakeConfig, codec: SnakeCodec) -> set[int]:
    """Every position the draft said the rules fix while following `tokens`; each is checked against them, and each
    proposal starts with them."""
    draft, out = SnakeDraft(config, codec), set()
    for i, token in enumerate(tokens):
        certain, proposal = draft.certain(), draft.proposal()
        assert certain == tokens[i : i + len(certain)], (i, certain, tokens[i : i + len(certain)])
        assert proposal[: len(certain)] == certain[:16] and len(proposal) <= 16  # a keyframe can be longer
        out |= set(range(i, i + len(certain)))
        draft.feed(token)
        assert not draft.off, (i, tokens[max(0, i - 12) : i + 1])
    assert draft.proposal() == []
    return out


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("config", [SnakeConfig(), SnakeConfig(width=4, height=4, max_ticks=40)], ids=["10x10", "4x4"])
def test_the_draft_proposes_every_token_the_rules_fix(design, config):
    codec = DESIGNS[design]
    for agent in ("greedy", "random", "wall_follower"):
        for episode in range(3):
            tokens = GAME.play_episode(config, codec, agent, 5, episode).tokens
            proposed = proposed_positions(tokens, config, codec)
            fixed = {p for p, _, _ in rule_determined_positions(tokens)}
            assert fixed <= proposed
            # Beyond those: the start's cell, length and score and the first TICK, and the TICK after a later keyframe
            # (fixed by the rules, though `rule_determined_positions` counts the keyframe's SNAP as the tick's flow word).
            opening = tokens.index("TICK")
            assert all(p <= opening or (tokens[p] == "TICK" and tokens[p - 2] == "SCORE") for p in proposed - fixed)


def test_past_a_tick_it_guesses_an_input_and_what_the_rules_write_for_it():
    codec, config = SnakeCodec(sense=True), SnakeConfig()
    tokens = GAME.play_episode(config, codec, "wall_follower", 1, 3).tokens
    draft = SnakeDraft(config, codec)
    for token in tokens[: tokens.index("TICK") + 1]:  # the opening and the first TICK: the first input is next
        draft.feed(token)
    guessed = draft.proposal()
    # before any input, the wall follower's choice: at the centre, the start's direction
    assert draft.certain() == [] and guessed[0] == "INPUT_" + tokens[5].removeprefix("DIR_")
    ticks = guessed.count("TICK")
    assert guessed[1:5] == ["SENSE_NONE", "MOVE", guessed[3], guessed[4]] and ticks == GUESSED_TICKS and guessed[-1] == "TICK"
    for token in guessed:  # what the guess says is a game the rules write: a draft fed it never leaves them
        draft.feed(token)
    assert not draft.off and draft.proposal()[0].startswith("INPUT_")


def test_the_guess_follows_the_agent_whose_candidates_held_the_inputs_written():
    config = SnakeConfig()
    state = SnakeState(((5, 5), (5, 6)), Direction.U, (2, 5))  # food to the left: greedy turns, the wall follower goes on
    guess, greedy = InputGuess(config), GreedyAgent(config).candidates(state)
    assert guess(state) is Direction.U and greedy == [Direction.L]
    guess.written(state, Direction.L)
    assert guess(state) is Direction.L
    for _ in range(3):  # inputs that only random's candidates hold: its choice is the direction kept
        guess.written(state, Direction.R)
    assert guess(state) is Direction.U


def test_a_slip_inside_a_tick_is_followed_again_from_the_next_tick():
    codec, config = SnakeCodec(sense=True), SnakeConfig()
    tokens = GAME.play_episode(config, codec, "greedy", 1, 0).tokens
    eat = tokens.index("EAT")
    slipped = [*tokens[: eat + 2], "EAT", "MOVE", *tokens[eat + 2 :]]  # "EAT MOVE EAT MOVE X.. Y..": a word pair written twice
    draft = SnakeDraft(config, codec)
    for token in slipped[: eat + 3]:
        draft.feed(token)
    assert draft.off and draft.proposal() == []
    resumed = slipped.index("TICK", eat + 3)
    for token in slipped[eat + 3 : resumed + 1]:
        assert draft.proposal() == []
        draft.feed(token)
    assert draft.certain() == [] and draft.proposal()[0].startswith("INPUT_")  # the input is free: a guess
    draft.feed(slipped[resumed + 1])
    proposal = draft.certain()
    assert proposal and proposal == slipped[resumed + 2 : resumed + 2 + len(proposal)]


def test_a_wrong_opening_or_a_word_after_the_end_is_not_followed():
    codec, config = SnakeCodec(sense=True), SnakeConfig()
    tokens = GAME.play_episode(config, codec, "random", 1, 2).tokens
    wrong_start = ["BOS", "SNAP", "PLAYER", "X4", *tokens[4:]]  # the rules start at the centre
    draft = SnakeDraft(config, codec)
    for token in wrong_start:
        draft.feed(token)
        assert draft.proposal() == [] or token in ("BOS", "SNAP", "PLAYER")
    draft = SnakeDraft(config, codec)
    for token in [*tokens, "TICK"]:
        draft.feed(token)
    assert draft.off and draft.proposal() == []


def test_a_summary_design_has_no_draft():
    assert GAME.rule_draft(SnakeConfig(), SnakeCodec(min_salience=Salience.MOVEMENT)) is None
    assert isinstance(GAME.rule_draft(SnakeConfig(), SnakeCodec()), SnakeDraft)
