"""Snake: the first game, and the reference for what a game package holds.

Modules, lowest layer first (an import-linter contract keeps the order):
  rules          the rules: one reference implementation (scalar simulator)
  batch          the same rules on arrays, for thousands of games at once
  agents         scripted agents (scalar), batch_agents: the same agents on a batch
  grammar        token grammar v1 and its options (tail events, head first, sense, spawn column, body list): vocabulary, encoder, parser, automaton
  rollout        whole episodes on the batch engine, written straight to token ids
  validity, fast the strict evaluator (reference, and its batch replay)
  fidelity       what fidelity and teacher forcing read of a sequence
  trace, planes  the states a sequence describes; what probes read of a state
  symmetry       the 8 board symmetries on token ids (augmentation)
  emergence, statistics, replay   tier 2, tier 3's play-style statistics, replays
  chance         the distribution each spawn was drawn from, read off an episode (exact training targets)
  planning       what a planner reads off written tokens: the leaf's closeness to food, greedy's input on a dream
  draft          what the rules fix next in a sequence being written: the draft speculative sampling verifies

`GAME` is the plug-in object the registry finds (`gamegrammar.games.load_game("snake")`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from gamegrammar.core.gamespec import (
    CAPABILITIES,
    BatchResult,
    CodecConfig,
    EpisodeRecord,
    EpisodeSummary,
    GameSpec,
    GameType,
    PlayerResult,
    ProbeTargets,
)
from gamegrammar.games.snake import fidelity as _fidelity
from gamegrammar.games.snake import grammar as _grammar
from gamegrammar.games.snake import statistics as _statistics
from gamegrammar.games.snake import validity as _validity
from gamegrammar.games.snake.agents import AGENTS
from gamegrammar.games.snake.planes import SPAWN_WORD
from gamegrammar.games.snake.rules import SnakeConfig, SnakeGame, SnakeState


class SnakeSpec(GameSpec):
    name = "snake"
    description = "one snake on a W x H grid: move, eat, grow; dies on a wall or its own body"
    config_type = SnakeConfig
    codec_type = (
        _grammar.SnakeCodec
    )  # the grammar options (`generate --tail-events`, `--head-first`, `--sense`, `--spawn-column`, `--body-list`)
    end_events = _grammar.END_EVENTS
    agent_names = tuple(AGENTS)
    default_agents: ClassVar[dict[str, float]] = {"random": 0.4, "greedy": 0.4, "wall_follower": 0.2}
    tick_token = "TICK"
    keyframe_token = "SNAP"
    rules = _validity.RULES
    teacher_categories = tuple(_fidelity.CATEGORIES)
    statistic_names = _statistics.NAMES
    game_type = GameType(1, 1, "sequential", "sampled")  # one player; the start's direction and the food are drawn
    probe_anchor = "head"
    # and where a food spawn must avoid every body cell: the body is read there better than at any tick (issue 50)
    probe_positions = (("tick", 0), ("tick+1", 1), ("spawn", SPAWN_WORD))
    # all but Go's protocol, records and move measures, and the turn-based planner
    capabilities = frozenset(CAPABILITIES) - {"gtp", "records", "moves", "turn_plan"}

    def describe_config(self, config: SnakeConfig) -> dict[str, Any]:
        return {"board": f"{config.width}x{config.height}", "max_ticks": config.max_ticks}

    # -- grammar

    def vocabulary(self, config: SnakeConfig) -> list[str]:
        return _grammar.vocabulary(config)  # every design: grammar v1's tokens, then FREE, the SENSE words, VAC and OCC

    def codec_vocabulary(self, config: SnakeConfig, codec: CodecConfig) -> list[str]:
        return _grammar.codec_vocabulary(config, codec)  # grammar v1's alone unless the codec writes an option's words

    def input_tokens(self, config: SnakeConfig) -> list[str]:
        return _grammar.input_tokens()

    def chance_tokens(self, config: SnakeConfig, codec: CodecConfig) -> list[tuple[str, tuple[int, ...]]]:
        return _grammar.chance_tokens(config, codec)

    def chance_targets(self, tokens: Sequence[str], config: SnakeConfig) -> list[tuple[int, dict[str, float]]]:
        from gamegrammar.games.snake.chance import spawn_distributions

        return spawn_distributions(tokens, config)

    def automaton(self, config: SnakeConfig, codec: CodecConfig | None = None) -> _grammar.GrammarAutomaton:
        if codec is None:  # any design, one per sequence
            return _grammar.GrammarAutomaton(config)
        design = _grammar.design_of(codec)
        return _grammar.GrammarAutomaton(config, tail_events=design.pop("tails"), **design)

    def new_encoder(self, codec: CodecConfig, config: SnakeConfig) -> _grammar.EpisodeEncoder:
        return _grammar.EpisodeEncoder(codec, config)

    def decode_events(self, tokens: Sequence[str]) -> list[Any]:
        return _grammar.decode(tokens).events

    def episode_prefix(self, tokens: Sequence[str], ticks: int) -> list[str]:
        return _grammar.episode_prefix(tokens, ticks)

    def test_configs(self) -> list[SnakeConfig]:
        return [SnakeConfig(4, 4, 40), SnakeConfig(5, 7, 60), SnakeConfig()]

    # -- engines

    def input_prompt(self, config: SnakeConfig) -> list[str]:
        return [self.tick_token]

    def play_controlled(
        self,
        config: SnakeConfig,
        codec: CodecConfig,
        seed: int,
        episodes: np.ndarray,
        player: Any,
        opponents: dict[str, float] | None = None,
        log: Any = None,
    ) -> PlayerResult:
        from gamegrammar.games.snake.control import play_controlled

        return play_controlled(config, codec, seed, episodes, player, opponents, log)

    def new_agent(self, name: str, config: SnakeConfig) -> Any:
        from gamegrammar.games.snake.agents import make_agent

        return make_agent(name, config)

    def new_game(self, config: SnakeConfig) -> SnakeGame:
        return SnakeGame(config)

    def play_episode(self, config: SnakeConfig, codec: CodecConfig, agent: str, seed: int, episode: int) -> EpisodeRecord:
        sim = SnakeGame(config)
        player = self.new_agent(agent, config)
        state = sim.reset(seed, episode)
        player.reset(seed, episode)
        encoder = self.new_encoder(codec, config)
        encoder.start(state)
        events, states, done = [], [state], False
        while not done:
            state, tick_events, done = sim.step(player.act(state))
            encoder.tick(tick_events, state, done)
            events += tick_events
            states.append(state)
        return EpisodeRecord(encoder.tokens, events, states, sim.end_reason or "", state.tick, state.score)

    @staticmethod
    def play_batch(config: SnakeConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, agent_codes: np.ndarray) -> BatchResult:
        from gamegrammar.games.snake.batch_agents import scripted_policy
        from gamegrammar.games.snake.rollout import play_batch

        return play_batch(config, codec, seed, episodes, scripted_policy(agent_codes))

    # -- evaluation

    def validate(self, tokens: Sequence[str], config: SnakeConfig, codec: CodecConfig | None = None) -> Any:
        return _validity.validate(tokens, config, **_declared(codec))

    def validate_many(self, sequences: Sequence[Any], config: SnakeConfig, codec: CodecConfig | None = None) -> list[Any]:
        from gamegrammar.games.snake.fast import validate_fast

        return validate_fast(sequences, config, **_declared(codec))

    def rules_for(self, codec: CodecConfig | None) -> dict[str, tuple[str, ...]]:
        return _validity.rules_for(None if codec is None else _grammar.design_of(codec))

    def opening_perturbations(self, tokens: Sequence[str], config: SnakeConfig) -> list[tuple[str, list[str]]]:
        return _validity.opening_perturbations(tokens, config)

    def summarize_episode(self, tokens: Sequence[str]) -> EpisodeSummary:
        return _fidelity.summarize_episode(tokens)

    def rule_determined_positions(self, tokens: Sequence[str]) -> list[tuple[int, str, str]]:
        return _fidelity.rule_determined_positions(tokens)

    # -- states

    def rule_draft(self, config: SnakeConfig, codec: CodecConfig) -> Any:
        from gamegrammar.games.snake.draft import rule_draft

        return rule_draft(config, codec)

    def trace(self, tokens: Sequence[str], config: SnakeConfig) -> list[SnakeState]:
        from gamegrammar.games.snake.trace import trace

        return trace(tokens, config)

    def probe_targets(self, state: SnakeState, config: SnakeConfig) -> ProbeTargets:
        from gamegrammar.games.snake.planes import probe_targets

        return probe_targets(state, config)

    def board_shape(self, config: SnakeConfig) -> tuple[int, int]:
        return config.height, config.width

    def intervention_cases(self, tokens: Sequence[str], states: Sequence[SnakeState], config: SnakeConfig) -> list[Any]:
        from gamegrammar.games.snake.planes import intervention_cases

        return intervention_cases(tokens, states, config)

    # -- optional parts

    def symmetries(self, tokenizer: Any, config: SnakeConfig) -> Any:
        from gamegrammar.games.snake.symmetry import SymmetryTransform

        return SymmetryTransform(tokenizer, config)

    def renderer(self) -> Any:
        from gamegrammar.games.snake import replay

        return replay

    def emergence(self) -> Any:
        from gamegrammar.games.snake import emergence

        return emergence

    def episode_statistics(self, tokens: Sequence[str], config: SnakeConfig) -> np.ndarray:
        return _statistics.episode_statistics(tokens, config)

    def agent_log_likelihoods(self, tokens: Sequence[str], agents: Sequence[str], config: SnakeConfig) -> np.ndarray:
        return _statistics.agent_log_likelihoods(tokens, agents, config)

    # -- dreams (gamegrammar.act.dream)

    def input_policy(self, agent: str, config: SnakeConfig) -> Any:
        from gamegrammar.games.snake.dream import ScriptedInputs

        return ScriptedInputs(agent, config)

    def read_tick(self, state: SnakeState, tokens: Sequence[str], config: SnakeConfig, codec: CodecConfig) -> Any:
        from gamegrammar.games.snake.dream import read_tick

        return read_tick(state, tokens, config, **_grammar.design_of(codec))

    # -- planning (gamegrammar.act.planner)

    def planner_outcome(self, tokens: Sequence[str]) -> tuple[float, bool]:
        return float(sum(t == "EAT" for t in tokens)), any(t in _DEATHS for t in tokens)

    def planner_leaf(self, tokens: Sequence[str]) -> float:
        from gamegrammar.games.snake.planning import food_closeness

        return food_closeness(tokens)

    def planner_input(
        self, history: Sequence[str], words: Sequence[str], allowed: Iterable[str], config: SnakeConfig, u: float
    ) -> str | None:
        from gamegrammar.games.snake.planning import toward_food

        return toward_food(history, words, allowed, config, u)

    def simulate_tick(
        self, state: SnakeState, inputs: Sequence[str], config: SnakeConfig, codec: CodecConfig, seed: int
    ) -> tuple[SnakeState, list[str], bool]:
        from gamegrammar.games.snake.rules import Direction

        sim = SnakeGame.from_state(state, config, seed, 0)  # the food it spawns is drawn from the planner's seed
        after, events, done = sim.step(Direction[inputs[0].removeprefix("INPUT_")])
        encoder = self.new_encoder(codec, config)
        encoder.start(state)
        written = len(encoder.tokens)
        encoder.tick(events, after, done)
        return after, encoder.tokens[written:], done

    # -- state identity (novelty): gamegrammar/games/snake/zobrist.py

    def feature_space(self, config: SnakeConfig) -> tuple[int, int]:
        from gamegrammar.games.snake.zobrist import feature_space

        return feature_space(config)

    def state_features(self, state: SnakeState, config: SnakeConfig) -> list[tuple[int, int]]:
        from gamegrammar.games.snake.zobrist import state_features

        return state_features(state, config)

    def feature_changes(self, before: SnakeState, after: SnakeState, config: SnakeConfig) -> Any:
        from gamegrammar.games.snake.zobrist import feature_changes

        return feature_changes(before, after, config)

    @staticmethod
    def state_keys_batch(episodes: Sequence[np.ndarray], config: SnakeConfig, codec: CodecConfig, table: Any) -> Any:
        from gamegrammar.games.snake.zobrist import state_keys_batch

        return state_keys_batch(episodes, config, codec, table)


_DEATHS = ("DIE_WALL", "DIE_SELF")


def _declared(codec: CodecConfig | None) -> dict[str, Any]:
    """What a codec declares to the evaluator: its design and its keyframe interval (nothing: read off each sequence).
    A plain `CodecConfig` declares grammar v1 with its interval."""
    if codec is None:
        return {}
    return {**_grammar.design_of(codec), "keyframe_interval": codec.keyframe_interval}


GAME = SnakeSpec()
