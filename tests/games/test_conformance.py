"""The conformance kit on every registered game (a game is tested by being registered), and the kit on broken games."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gamegrammar.core.verdict import make_verdict
from gamegrammar.games import conformance, game_names, load_game
from gamegrammar.games.conformance import CHECKS, CODECS, ConformanceError, Skipped, play, run_check
from gamegrammar.games.snake import SnakeSpec
from gamegrammar.games.snake.rules import SnakeConfig


def _cases() -> list:
    cases = []
    for game in game_names():
        spec = load_game(game)
        for ci, config in enumerate(spec.test_configs()):
            facts = "-".join(str(v) for v in spec.describe_config(config).values())
            for ki, codec in enumerate(CODECS):
                for check in CHECKS:
                    cases.append(pytest.param(game, ci, ki, check, id=f"{game}-{facts}-K{codec.keyframe_interval}-{check}"))
    return cases


@pytest.mark.parametrize(("game", "config_index", "codec_index", "check"), _cases())
def test_registered_game_conforms(game, config_index, codec_index, check):
    played = conformance.played(game, config_index, codec_index)
    try:
        run_check(check, played)
    except Skipped as why:
        pytest.skip(str(why))


# ---------------------------------------------------------------- the kit catches what it should


@pytest.fixture(scope="module")
def small():
    return SnakeConfig(5, 5, 40)


def _check(spec, config, name):
    run_check(name, play(spec, config, CODECS[1], seed=3, episodes=2))


class _ShortTrace(SnakeSpec):
    def trace(self, tokens, config):
        return super().trace(tokens, config)[:-1]


class _LenientFast(SnakeSpec):
    def validate_many(self, sequences, config, codec=None):
        verdicts = super().validate_many(sequences, config, codec)
        return [verdicts[0]] * len(verdicts)


class _NoTrace(SnakeSpec):
    def trace(self, tokens, config):
        raise NotImplementedError


class _NoBatch(SnakeSpec):
    play_batch = None


class _MiscountedScore(SnakeSpec):
    def summarize_episode(self, tokens):
        return dataclasses.replace(super().summarize_episode(tokens), score=-1)


class _SpawnXOnly(SnakeSpec):
    def chance_targets(self, tokens, config):
        return [(at, dist) for at, dist in super().chance_targets(tokens, config) if tokens[at][0] == "X"]


class _NoStartRule(SnakeSpec):
    """An evaluator that never checks the start (what the toolkit had before issue 43)."""

    def validate(self, tokens, config, codec=None):
        verdict = super().validate(tokens, config, codec)
        first = {rule: at for rule, at in verdict.positions.items() if rule != "start_position"}
        return make_verdict(first, verdict.lenient, self.rules)


class _EverySymmetry(SnakeSpec):
    """Augmentation with all eight symmetries of an even board, four of which move the start."""

    def symmetries(self, tokenizer, config):
        transform = super().symmetries(tokenizer, config)
        transform.names = transform.all_names
        return transform


class _TwoMovers(SnakeSpec):
    """Metadata that says two players move each tick, where the grammar writes one input."""

    def to_move(self, state):
        return (0, 1)


class _UndeclaredReplay(SnakeSpec):
    capabilities = SnakeSpec.capabilities - {"replay"}


class _DesignReadOff(SnakeSpec):
    """An evaluator that reads the design off each sequence whatever the codec declares."""

    def validate(self, tokens, config, codec=None):
        return super().validate(tokens, config, None)


@pytest.mark.parametrize(
    ("spec", "check", "message"),
    [
        (_NoStartRule(), "openings", "is not refused inside the opening"),
        (_TwoMovers(), "game_type", "to_move before tick 1 is \\(0, 1\\)"),
        (_UndeclaredReplay(), "capabilities", "capability replay is not declared but works"),
        (_DesignReadOff(), "design_words", "passes declared as the codec's design"),
        (_ShortTrace(), "trace", "conformance check 'trace' failed for snake .* agent random episode 0"),
        (_LenientFast(), "fast_evaluator", "validate_many .* differs from validate"),
        (_NoTrace(), "trace", "trace: NotImplementedError"),
        (_MiscountedScore(), "endings", "summarize_episode gives"),
        (_SpawnXOnly(), "chance_targets", "chance targets at .*, but its chance tokens are at"),
    ],
    ids=[
        "no-start-rule",
        "two-movers",
        "undeclared-replay",
        "design-read-off",
        "short-trace",
        "lenient-fast",
        "no-trace",
        "miscounted-score",
        "spawn-x-only",
    ],
)
def test_the_kit_fails_loudly_naming_check_and_episode(small, spec, check, message):
    with pytest.raises(ConformanceError, match=message):
        _check(spec, small, check)


def test_the_kit_refuses_augmentation_that_moves_the_start():
    even = SnakeConfig(4, 4, 40)  # its start (2, 2) is one of four centre cells: six symmetries move it
    _check(SnakeSpec(), even, "symmetries")
    with pytest.raises(ConformanceError, match=r"symmetry (rot90|rot180|rot270|flip_x|flip_y|anti_transpose) breaks \['start_position'\]"):
        _check(_EverySymmetry(), even, "symmetries")


def test_optional_parts_skip(small):
    with pytest.raises(Skipped, match="no batch engine"):
        _check(_NoBatch(), small, "batch_engine")
    with pytest.raises(Skipped, match="square"):
        _check(SnakeSpec(), SnakeConfig(5, 6, 40), "symmetries")


def test_mutations_are_deterministic(small):
    tokens = SnakeSpec().play_episode(small, CODECS[0], "greedy", 0, 0).tokens
    vocab = SnakeSpec().vocabulary(small)
    for kind in conformance.MUTATIONS:
        a = conformance.mutate(tokens, vocab, np.random.default_rng(5), kind)
        assert a == conformance.mutate(tokens, vocab, np.random.default_rng(5), kind)
        assert a[0] == "BOS" and len(a) >= 1
    assert conformance.mutate(["BOS"], vocab, np.random.default_rng(0), "delete") == ["BOS"]


def test_check_game_runs_everything_and_reports_skips():
    skipped = conformance.check_game(load_game("snake"), episodes=1, seed=1)
    assert set(skipped) == {"symmetries"}  # the 5x7 test board is not square
    assert all("5x7" in why for why in skipped["symmetries"])


class _EditsToWhatIs(SnakeSpec):
    """Interventions whose edits set each cell to what it already holds: a case that changes nothing."""

    def intervention_cases(self, tokens, states, config):
        return [
            dataclasses.replace(case, edits=tuple((plane, cell, 1 - value) for plane, cell, value in case.edits))
            for case in super().intervention_cases(tokens, states, config)
        ]


def test_the_kit_checks_intervention_cases_in_the_sense_design(small):
    from gamegrammar.games.snake.grammar import SnakeCodec

    sense = play(SnakeSpec(), small, SnakeCodec(sense=True), seed=3, episodes=3)
    assert any(sense.spec.intervention_cases(r.tokens, r.states, small) for r in sense.records)  # the check has cases to read
    run_check("intervention_cases", sense)
    with pytest.raises(ConformanceError, match="edits a cell to what it is"):
        run_check("intervention_cases", play(_EditsToWhatIs(), small, SnakeCodec(sense=True), seed=3, episodes=3))
