"""Battlesnake (standard rules, ../shared/BATTLESNAKE.md): the second game, up to 8 snakes moving at once.

Modules, lowest layer first:
  rules          the rules: one reference implementation (scalar simulator, start placement, food)
  api            the board in the API's JSON shape both ways, and `step_board` (one turn on an API board)
  agents         random, safe, greedy, space, careless: one agent per snake; `lineup` mixes them per snake
  grammar        the token grammar: vocabulary, encoder, parser, automaton (five options: tails, smell, cells, sense, hits)
  batch          the rules on NumPy arrays, many games at once (byte-identical to the scalar engine)
  batch_agents   the agents on a batch; rollout: whole episodes as token ids (`play_batch`)
  validity       the strict evaluator; fast: the same verdicts for many sequences at once (batch replay)
  fidelity       what fidelity and teacher forcing read of a sequence
  trace, planes  the states a sequence describes; the feature planes and probe targets of a state
  replay         frames of any sequence as ASCII, GIF or an HTML player (the renderer)
  emergence      tier 2: teacher-forced probabilities of what the rules mandate
  chance         the distribution each start cell and food spawn was drawn from, read off an episode (exact targets)

`GAME` is the plug-in object the registry finds (`gamegrammar.games.load_game("battlesnake")`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache
from typing import Any, ClassVar

import numpy as np

from gamegrammar.core.gamespec import (
    BatchResult,
    CodecConfig,
    EpisodeRecord,
    EpisodeSummary,
    GameSpec,
    GameType,
    PlayerResult,
    ProbeTargets,
)
from gamegrammar.core.verdict import Verdict, is_ids, token_strings
from gamegrammar.games.battlesnake import fidelity as _fidelity
from gamegrammar.games.battlesnake import grammar as _grammar
from gamegrammar.games.battlesnake import validity as _validity
from gamegrammar.games.battlesnake.agents import AGENTS, lineup, make_agent, parse_lineup
from gamegrammar.games.battlesnake.api import board_from_state, state_from_board, step_board
from gamegrammar.games.battlesnake.rules import (
    MAX_SNAKES,
    BattlesnakeConfig,
    BattlesnakeGame,
    BattlesnakeState,
    Move,
    final_length,
    snake_id,
)

_SNAKE_WORDS = frozenset(snake_id(k) for k in range(MAX_SNAKES))
_DEATH_WORDS = frozenset(_grammar.DIE_TOKEN.values())

__all__ = ["GAME", "BattlesnakeConfig", "BattlesnakeSpec", "board_from_state", "state_from_board", "step_board"]


class BattlesnakeSpec(GameSpec):
    name = "battlesnake"
    description = "Battlesnake standard rules: up to 8 snakes move at once, health runs down, food restores it, heads collide by length"
    config_type = BattlesnakeConfig
    codec_type = _grammar.BattlesnakeCodec
    end_events = _grammar.END_EVENTS  # WIN, DRAW (two or more snakes), DEATH (one snake), TIMEOUT
    agent_names = tuple(AGENTS)
    default_agents: ClassVar[dict[str, float]] = {"random": 0.1, "safe": 0.3, "greedy": 0.3, "space": 0.3}
    tick_token = "TICK"
    keyframe_token = "SNAP"
    rules = _validity.RULES
    teacher_categories = _fidelity.CATEGORIES
    outcome_labels = _fidelity.OUTCOMES
    game_type = GameType(1, MAX_SNAKES, "simultaneous", "sampled")  # the starts and the food are drawn
    probe_anchor = "own_head"
    # TICK S0 <move> X Y ...: the model works out snake 0's head only as it writes the move (its head's column is read
    # at 0.15 at the tick token and 0.99 at the move word, docs/results.md), so the probes read there too; and at a
    # SPAWN, whose cell the rules draw among those no snake or food holds (against the board after its tick)
    probe_positions = (("tick", 0), ("tick+1", 1), ("tick+2", 2), ("tick+3", 3), ("spawn", "SPAWN"))
    capabilities = frozenset(
        ("batch_engine", "automaton", "chance", "play", "dream", "plan", "novelty", "probes", "replay", "emergence")
    )  # no symmetries yet, no tier-3 statistics

    def num_players(self, config: BattlesnakeConfig) -> int:
        return config.num_snakes

    def to_move(self, state: BattlesnakeState) -> tuple[int, ...]:
        """Every live snake: the turn resolves their moves together."""
        return state.alive

    def describe_config(self, config: BattlesnakeConfig) -> dict[str, Any]:
        return {"board": f"{config.width}x{config.height}", "snakes": config.num_snakes, "max_ticks": config.max_ticks}

    # -- grammar

    def vocabulary(self, config: BattlesnakeConfig) -> list[str]:
        return _grammar.vocabulary(config)  # every design's: the plain vocabulary, then the SMELL, cell and SENSE words

    def codec_vocabulary(self, config: BattlesnakeConfig, codec: CodecConfig) -> list[str]:
        return _grammar.codec_vocabulary(config, codec)  # an option's words only where the codec writes them (or later ones)

    def input_tokens(self, config: BattlesnakeConfig) -> list[str]:
        return _grammar.input_tokens()

    def chance_tokens(self, config: BattlesnakeConfig, codec: CodecConfig) -> list[tuple[str, tuple[int, ...]]]:
        from gamegrammar.games.battlesnake.chance import start_offsets

        cells = _grammar.cells_of(codec)
        return [("BOS", start_offsets(config, cells)), ("SPAWN", (1,) if cells else (1, 2))]  # the start's cells, each spawn's

    def chance_targets(self, tokens: Sequence[str], config: BattlesnakeConfig) -> list[tuple[int, dict[str, float]]]:
        from gamegrammar.games.battlesnake.chance import chance_distributions

        return chance_distributions(tokens, config)

    def automaton(self, config: BattlesnakeConfig, codec: CodecConfig | None = None) -> Any:
        options = [_declared(codec, option) for option in ("tails", "smell", "sense", "hits")]  # no codec: any design's words
        pairs = _grammar.GrammarAutomaton(config, *options)
        return _grammar.CellsAutomaton(pairs, config) if _grammar.cells_of(codec) else pairs

    def new_encoder(self, codec: CodecConfig, config: BattlesnakeConfig) -> _grammar.EpisodeEncoder:
        return _grammar.EpisodeEncoder(codec)  # the board is in every keyframe

    def decode_events(self, tokens: Sequence[str]) -> list[Any]:
        return _grammar.decode(_pairs(tokens)[0]).events

    def episode_prefix(self, tokens: Sequence[str], ticks: int) -> list[str]:
        pairs, origin = _pairs(tokens)
        prefix = _grammar.episode_prefix(pairs, ticks)
        return list(tokens[: _origin_of(len(prefix), origin, len(tokens))])  # in the sequence's own spelling

    def test_configs(self) -> list[BattlesnakeConfig]:
        return [
            BattlesnakeConfig(7, 7, 2, max_ticks=60),
            BattlesnakeConfig(5, 6, 1, minimum_food=2, max_ticks=40),
            BattlesnakeConfig(11, 11, 4, max_ticks=80),
        ]

    # -- engines

    def input_prompt(self, config: BattlesnakeConfig) -> list[str]:
        """Snake 0's input follows the tick token and its name (the others' follow its move)."""
        return [self.tick_token, snake_id(0)]

    def play_controlled(
        self,
        config: BattlesnakeConfig,
        codec: CodecConfig,
        seed: int,
        episodes: np.ndarray,
        player: Any,
        opponents: dict[str, float] | None = None,
        log: Any = None,
    ) -> PlayerResult:
        """Snake 0 played by `player` against `opponents` (default: the game's default mix, drawn per snake)."""
        from gamegrammar.games.battlesnake.control import play_controlled

        return play_controlled(config, codec, seed, episodes, player, opponents or dict(self.default_agents), log)

    def new_agent(self, name: str, config: BattlesnakeConfig) -> Any:
        """Snake 0's agent (`agents.make_agent(name, config, snake)` for any other)."""
        return make_agent(name, config, 0)

    def episode_agents(self, mix: dict[str, float], seed: int, episode: int, config: BattlesnakeConfig) -> tuple[str, ...]:
        """Each snake's agent in a corpus with this agent mix (snake 0's is the core's per-episode draw)."""
        return lineup(mix, seed, episode, config.num_snakes)

    def play_episode(self, config: BattlesnakeConfig, codec: CodecConfig, agent: str, seed: int, episode: int) -> EpisodeRecord:
        """`agent` is one agent name (every snake plays it) or a lineup "safe,greedy,space,random" (one per snake)."""
        sim = BattlesnakeGame(config)
        state = sim.reset(seed, episode)
        players = [make_agent(name, config, k) for k, name in enumerate(parse_lineup(agent, config))]
        for player in players:
            player.reset(seed, episode)
        encoder = self.new_encoder(codec, config)
        encoder.start(state)
        events, states, done = [], [state], False
        while not done:
            actions = [player.act(state) if state.snakes[k].alive else None for k, player in enumerate(players)]
            state, tick_events, done = sim.step(actions)
            encoder.tick(tick_events, state, done)
            events += tick_events
            states.append(state)
        assert sim.last_turn is not None
        score = final_length(state, sim.last_turn.eliminated)
        return EpisodeRecord(encoder.tokens, events, states, sim.end_reason or "", state.tick, score)

    @staticmethod
    def play_batch(config: BattlesnakeConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, agent_codes: np.ndarray) -> BatchResult:
        """The batch engine. `agent_codes` is (E,): every snake of episode e plays agent_codes[e] (as `play_episode`
        with one agent name), or (E, num_snakes): a lineup per episode (`episode_agent_codes`, a mixed corpus)."""
        from gamegrammar.games.battlesnake.batch_agents import scripted_policy
        from gamegrammar.games.battlesnake.rollout import play_batch

        codes = np.asarray(agent_codes, np.int64)
        if codes.ndim == 1:
            codes = np.repeat(codes[:, None], config.num_snakes, axis=1)
        if codes.shape != (len(episodes), config.num_snakes):
            raise ValueError(f"agent_codes must be (episodes,) or (episodes, {config.num_snakes}), got {codes.shape}")
        return play_batch(config, codec, seed, episodes, scripted_policy(codes))

    @staticmethod
    def episode_agent_codes(mix: dict[str, float], seed: int, episodes: np.ndarray, config: BattlesnakeConfig) -> np.ndarray:
        """(E, num_snakes) agent codes: `episode_agents` for many episodes at once, what a mixed corpus passes to
        `play_batch` (column 0 is the core's per-episode draw, the corpus index's `agent`)."""
        from gamegrammar.games.battlesnake.batch_agents import lineup_codes

        return lineup_codes(mix, seed, episodes, config.num_snakes)

    # -- evaluation

    def validate(self, tokens: Sequence[str], config: BattlesnakeConfig, codec: CodecConfig | None = None) -> Any:
        """A codec declares the design and the keyframe interval the sequence is held to; None reads both off it."""
        if isinstance(tokens, str):
            tokens = tokens.split()
        pairs, origin = _pairs(tokens, _declared(codec, "cells"))
        return _mapped(_validity.validate(pairs, config, **_declared_design(codec)), origin, len(tokens))

    def validate_many(self, sequences: Sequence[Any], config: BattlesnakeConfig, codec: CodecConfig | None = None) -> list[Any]:
        """All sequences replayed at once (`fast.validate_fast`), the verdicts `validate` gives. The fast evaluator
        reads the pair spelling: a cells sequence is respelled first (token ids by id tables, `_pair_ids`) and its
        verdict's positions mapped back."""
        from gamegrammar.games.battlesnake.fast import validate_fast

        declared = _declared_design(codec)
        cells = _declared(codec, "cells")
        if cells is False:
            return validate_fast(sequences, config, **declared)
        sequences = [seq.split() if isinstance(seq, str) else seq for seq in sequences]
        respelled = [_pair_ids(seq, config, cells) if is_ids(seq) else _pairs(seq, cells) for seq in sequences]
        verdicts = validate_fast([pairs for pairs, _ in respelled], config, **declared)
        return [_mapped(v, origin, len(seq)) for v, seq, (_, origin) in zip(verdicts, sequences, respelled)]

    def rules_for(self, codec: CodecConfig | None) -> dict[str, tuple[str, ...]]:
        """Without the tails design declared, `tail_freed` is no rule of it; without the smell option, `food_smelled`;
        without the sense option, `body_sensed`; without the hits option, `collision_marked`."""
        off = {
            "tail_freed": _declared(codec, "tails") is False,
            "food_smelled": _declared(codec, "smell") is False,
            "body_sensed": _declared(codec, "sense") is False,
            "collision_marked": _declared(codec, "hits") is False,
        }
        return {tier: tuple(r for r in names if not off.get(r)) for tier, names in self.rules.items()}

    def opening_perturbations(self, tokens: Sequence[str], config: BattlesnakeConfig) -> list[tuple[str, list[str]]]:
        """Named variants of a valid episode whose opening keyframe alone is changed into one no start can be."""
        pairs, origin = _pairs(tokens)
        variants = _validity.opening_perturbations(pairs, config)
        return variants if origin is None else [(name, _grammar.as_cells(v)) for name, v in variants]

    def summarize_episode(self, tokens: Sequence[str]) -> EpisodeSummary:
        return _fidelity.summarize_episode(_pairs(tokens)[0])

    def rule_determined_positions(self, tokens: Sequence[str]) -> list[tuple[int, str, str]]:
        """`fidelity.rule_determined_positions`; a cell word is scored once, with its X's category and kind."""
        pairs, origin = _pairs(tokens)
        found = _fidelity.rule_determined_positions(pairs)
        if origin is None:
            return found
        kept: dict[int, tuple[int, str, str]] = {}
        for i, category, kind in found:  # in order: a cell's X before its Y
            kept.setdefault(origin[i], (origin[i], category, kind))
        return sorted(kept.values())

    # -- states

    def trace(self, tokens: Sequence[str], config: BattlesnakeConfig) -> list[BattlesnakeState]:
        from gamegrammar.games.battlesnake.trace import trace

        return trace(_pairs(tokens)[0], config)

    def probe_targets(self, state: BattlesnakeState, config: BattlesnakeConfig) -> ProbeTargets:
        from gamegrammar.games.battlesnake.planes import probe_targets

        return probe_targets(state, config)

    def board_shape(self, config: BattlesnakeConfig) -> tuple[int, int]:
        return config.height, config.width

    # -- optional parts

    def renderer(self) -> Any:
        from gamegrammar.games.battlesnake import replay

        return replay

    def emergence(self) -> Any:
        from gamegrammar.games.battlesnake import emergence

        return emergence

    # -- dreams (gamegrammar.act.dream)

    def input_policy(self, agent: str, config: BattlesnakeConfig) -> Any:
        """Every snake's agent: one name for all, or a lineup "safe,greedy,space,random" (as `play_episode` takes)."""
        from gamegrammar.games.battlesnake.dream import ScriptedInputs

        return ScriptedInputs(agent, config)

    def read_tick(self, state: BattlesnakeState, tokens: Sequence[str], config: BattlesnakeConfig, codec: CodecConfig) -> Any:
        from gamegrammar.games.battlesnake.dream import read_tick

        pairs = _pairs(tokens, _grammar.cells_of(codec))[0]  # the pair spelling: the evaluator's, which it checks with
        tails = bool(getattr(codec, "tails", False))
        return read_tick(state, pairs, config, tails, _grammar.smell_of(codec), _grammar.sense_of(codec), _grammar.hits_of(codec))

    # -- planning (gamegrammar.act.planner)

    WIN_VALUE: ClassVar[float] = 10.0  # a win, in player 0's score: the planner's default death cost, mirrored

    def planner_outcome(self, tokens: Sequence[str]) -> tuple[float, bool]:
        """Snake 0's food eaten, plus `WIN_VALUE` where the rollout ends with it the last standing; out where a death
        names it (read off the tokens: the planner on the model never consults the rules)."""
        eaten, out, won, mover = 0, False, False, None
        for i, word in enumerate(tokens):
            if word in _SNAKE_WORDS:
                mover = word
            elif word == "EAT":
                eaten += mover == "S0"
            elif word in _DEATH_WORDS:
                out |= i > 0 and tokens[i - 1] == "S0"
            elif word == "WIN":
                won = True
        return eaten + (self.WIN_VALUE if won and not out else 0.0), out

    def planner_input(
        self, history: Sequence[str], words: Sequence[str], allowed: Iterable[str], config: BattlesnakeConfig, u: float
    ) -> str | None:
        """The safe agent's input for the snake whose slot it is, on the board the tokens wrote (`planning.safe_input`)."""
        from gamegrammar.games.battlesnake.planning import safe_input

        return safe_input(history, words, allowed, config, u)

    def simulate_tick(
        self, state: BattlesnakeState, inputs: Sequence[str], config: BattlesnakeConfig, codec: CodecConfig, seed: int
    ) -> tuple[BattlesnakeState, list[str], bool]:
        """The others' moves, past the inputs given, from the safe agent (a sure move where there is one), its draws
        from `seed`: a cheap opponent that neither knows nor copies the real opponents' agents."""
        moves: list[Move | None] = [None] * len(state.snakes)
        for j, k in enumerate(state.alive):
            if j < len(inputs):
                moves[k] = _grammar.INPUT_OF[inputs[j]]
            else:
                agent = make_agent("safe", config, k)
                agent.seed, agent.episode = seed, 0
                moves[k] = agent.act(state)
        sim = BattlesnakeGame.from_state(state, config, seed, 0)  # the food it spawns is drawn from the planner's seed
        after, events, done = sim.step(moves)
        encoder = self.new_encoder(codec, config)
        encoder.start(state)
        written = len(encoder.tokens)
        encoder.tick(events, after, done)
        return after, encoder.tokens[written:], done

    # -- state identity (novelty): gamegrammar/games/battlesnake/zobrist.py

    def feature_space(self, config: BattlesnakeConfig) -> tuple[int, int]:
        from gamegrammar.games.battlesnake.zobrist import feature_space

        return feature_space(config)

    def state_features(self, state: BattlesnakeState, config: BattlesnakeConfig) -> list[tuple[int, int]]:
        from gamegrammar.games.battlesnake.zobrist import state_features

        return state_features(state, config)

    def feature_changes(self, before: BattlesnakeState, after: BattlesnakeState, config: BattlesnakeConfig) -> Any:
        from gamegrammar.games.battlesnake.zobrist import feature_changes

        return feature_changes(before, after, config)


def _declared(codec: CodecConfig | None, option: str) -> bool | None:
    """Whether a codec writes an option's words (`tails`, `smell`, `sense`, `hits`, `cells`; a plain `CodecConfig` writes none:
    the plain design); None: no codec, nothing declared."""
    return None if codec is None else bool(getattr(codec, option, False))


def _pairs(tokens: Sequence[str] | str, cells: bool | None = None) -> tuple[Sequence[str], list[int] | None]:
    """The sequence in the pair spelling the parser and the evaluator read (`grammar.as_pairs`), and where each of its
    tokens came from; the sequence itself and None where nothing is respelled (the pair design, the quickest)."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    if cells is False or (cells is None and not any(_grammar.cell_of_word(t) for t in tokens)):
        return tokens, None
    return _grammar.as_pairs(tokens, cells)


def _pair_ids(seq: Any, config: BattlesnakeConfig, cells: bool | None) -> tuple[Any, Any]:
    """`_pairs` on token ids, without token strings: each cell word's id becomes its X's and its Y's (the respelling
    of a sampled or corpus batch, which a string round trip made the slowest part of the cells design's fast path).
    A sequence the id tables cannot respell alone (an id outside the vocabulary; a bare X or Y word where the cells
    design is declared, which `as_pairs` marks) takes the string path."""
    first, second, bare = _id_halves(config)
    a = np.asarray(seq, np.int64)
    if len(a) and (a.min() < 0 or a.max() >= len(first) or (cells and bare[a].any())):
        return _pairs(token_strings(a, _grammar.vocabulary(config)), cells)
    halves = second[a] >= 0
    if not halves.any():
        return seq, None
    counts = 1 + halves
    at = np.cumsum(counts) - counts
    out = np.empty(int(counts.sum()), np.int64)
    out[at] = first[a]
    out[at[halves] + 1] = second[a[halves]]
    return out, np.repeat(np.arange(len(a)), counts)


@cache
def _id_halves(config: BattlesnakeConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per id of the whole vocabulary: the id of its first token in the pair spelling (its X for a cell word, else
    itself), of its second (its Y; -1 for every other word), and whether it is a bare X or Y word."""
    words = _grammar.vocabulary(config)
    index = {w: i for i, w in enumerate(words)}
    first, second = np.arange(len(words)), np.full(len(words), -1)
    bare = np.zeros(len(words), bool)
    for i, word in enumerate(words):
        cell = _grammar.cell_of_word(word)
        if cell is not None:
            first[i], second[i] = index[f"X{cell[0]}"], index[f"Y{cell[1]}"]
        else:
            bare[i] = word[:1] in ("X", "Y") and word[1:].isdigit()
    return first, second, bare


def _origin_of(i: int, origin: Sequence[int] | None, n: int) -> int:
    """Where the pair spelling's token i was written (n past the end)."""
    if origin is None:
        return i
    return int(origin[i]) if i < len(origin) else n


def _mapped(verdict: Verdict, origin: Sequence[int] | None, n: int) -> Verdict:
    """A verdict on the pair spelling, its positions moved to the sequence it was respelled from (n tokens)."""
    if origin is None:
        return verdict
    first = verdict.first_violation
    return replace(
        verdict,
        first_violation=None if first is None else _origin_of(first, origin, n),
        positions={rule: _origin_of(i, origin, n) for rule, i in verdict.positions.items()},
    )


def _declared_design(codec: CodecConfig | None) -> dict[str, Any]:
    """The design and keyframe interval a codec declares, as `validate` and `validate_fast` take them (None: nothing
    declared, both read off the sequence)."""
    if codec is None:
        return {}
    return {
        "keyframe_interval": codec.keyframe_interval,
        "tails": _declared(codec, "tails"),
        "smell": _declared(codec, "smell"),
        "sense": _declared(codec, "sense"),
        "hits": _declared(codec, "hits"),
    }


GAME = BattlesnakeSpec()
