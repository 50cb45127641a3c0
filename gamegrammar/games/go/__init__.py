"""Go (../shared/GO.md): the third game, two players in turn on a 5x5 to 19x19 board (default 9x9).

Modules, lowest layer first:
  zobrist        the Zobrist keys of points and colours (positional superko, novelty)
  rules          the rules: one reference implementation (scalar simulator, area scoring, coordinates)
  gtp            GTP from the controller's side: GNU Go as a process
  grammar        the token grammar: vocabulary, encoder, parser
  agents         random, capture (scalar), gnugo (GNU Go through GTP)
  episode        one episode through the scalar reference engine
  batch          the rules on NumPy arrays, thousands of games at once; rollout: whole episodes as token ids
  referee        the differential test against GNU Go
  validity       the strict evaluator
  fidelity       what fidelity and teacher forcing read of a sequence
  trace          the states a sequence describes
  planes         feature planes of a position, and what world-state probes read of it
  symmetry       the 8 board symmetries on token ids (augmentation)
  replay         replays: ASCII, GIF, HTML (the renderer)

`GAME` is the plug-in object the registry finds (`gamegrammar.games.load_game("go")`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from gamegrammar.core.agents import agents_for_episodes
from gamegrammar.core.gamespec import BatchResult, CodecConfig, EpisodeRecord, EpisodeSummary, GameSpec, GameType, ProbeTargets
from gamegrammar.core.rng import Purpose
from gamegrammar.games.go import fidelity as _fidelity
from gamegrammar.games.go import grammar as _grammar
from gamegrammar.games.go import validity as _validity
from gamegrammar.games.go import zobrist as _zobrist
from gamegrammar.games.go.agents import AGENTS, lineup, make_agent
from gamegrammar.games.go.episode import play_episode
from gamegrammar.games.go.gtp import gnugo_missing
from gamegrammar.games.go.rules import GoConfig, GoState, purpose

AGENT_NAMES = list(AGENTS)

__all__ = ["GAME", "GoConfig", "GoSpec"]

SIGNED_SCORE_BINS = (-(10**9), -40, -20, -10, -5, -2, 0, 1, 3, 6, 11, 21, 41, 10**9)  # Black's area less White's


class GoSpec(GameSpec):
    name = "go"
    description = "Go on an N x N board: two players in turn, captures, positional superko, area scoring with komi"
    config_type = GoConfig
    end_events = _grammar.END_EVENTS  # TWO_PASSES, MOVE_LIMIT, RESIGNATION
    agent_names = tuple(AGENTS)
    outside_agents = ("gnugo",)
    default_agents: ClassVar[dict[str, float]] = {"random": 0.5, "capture": 0.5}  # GNU Go only when asked for
    tick_token = "TICK"
    keyframe_token = "SNAP"
    rules = _validity.RULES
    teacher_categories = _fidelity.CATEGORIES
    outcome_labels = _fidelity.OUTCOMES
    score_bins = SIGNED_SCORE_BINS
    game_type = GameType(2, 2, "sequential", "deterministic")  # nothing is drawn but the agents' moves
    capabilities = frozenset(
        ("batch_engine", "novelty", "gtp", "records", "emergence", "symmetries", "moves", "replay", "probes", "turn_plan")
    )
    record_format = "SGF"

    def num_players(self, config: GoConfig) -> int:
        return 2

    def to_move(self, state: GoState) -> tuple[int, ...]:
        """The player whose turn it is: Black (0) on even ticks, White (1) on odd ones."""
        return (state.to_play,)

    def describe_config(self, config: GoConfig) -> dict[str, Any]:
        return {"board": f"{config.size}x{config.size}", "komi": config.komi, "max_ticks": config.max_ticks}

    # -- grammar

    def vocabulary(self, config: GoConfig) -> list[str]:
        return _grammar.vocabulary(config)

    def input_tokens(self, config: GoConfig) -> list[str]:
        return _grammar.input_tokens(config)

    def new_encoder(self, codec: CodecConfig, config: GoConfig) -> _grammar.EpisodeEncoder:
        return _grammar.EpisodeEncoder(codec)

    def decode_events(self, tokens: Sequence[str]) -> list[Any]:
        return _grammar.decode(tokens)

    def episode_prefix(self, tokens: Sequence[str], ticks: int) -> list[str]:
        return _grammar.episode_prefix(tokens, ticks)

    def test_configs(self) -> list[GoConfig]:
        """A 5x5 board long enough for two passes, a 7x7 one cut by the move limit, and the default 9x9."""
        return [GoConfig(5, komi=0.0, max_ticks=100), GoConfig(7, max_ticks=40), GoConfig(9, komi=7.0)]

    # -- engines

    def agent_unavailable(self, name: str) -> str | None:
        """GNU Go is an outside program: where it is missing its agent cannot play (the reason says how to install it)."""
        return gnugo_missing() if name == "gnugo" else None

    def new_agent(self, name: str, config: GoConfig) -> Any:
        """Black's agent (`agents.make_agent(name, config, 1)` for White's)."""
        return make_agent(name, config, 0)

    def episode_agents(self, mix: dict[str, float], seed: int, episode: int, config: GoConfig) -> tuple[str, ...]:
        """Each player's agent in a corpus with this mix (Black's is the core's per-episode draw)."""
        return lineup(mix, seed, episode)

    def play_episode(self, config: GoConfig, codec: CodecConfig, agent: str, seed: int, episode: int) -> EpisodeRecord:
        """`agent` is one agent name (both players play it) or a lineup "black,white", e.g. "random,gnugo"."""
        return play_episode(config, codec, agent, seed, episode)

    @staticmethod
    def play_batch(config: GoConfig, codec: CodecConfig, seed: int, episodes: np.ndarray, agent_codes: np.ndarray) -> BatchResult:
        """The batch engine. `agent_codes` is (E,): both players of episode e play agent_codes[e] (as `play_episode` with
        one agent name), or (E, 2): Black's and White's (`episode_agent_codes`, a mixed corpus)."""
        from gamegrammar.games.go.rollout import play_batch

        codes = np.asarray(agent_codes, np.int64)
        if codes.ndim == 1:
            codes = np.repeat(codes[:, None], 2, axis=1)
        if codes.shape != (len(episodes), 2):
            raise ValueError(f"agent_codes must be (episodes,) or (episodes, 2), got {codes.shape}")
        return play_batch(config, codec, seed, episodes, codes)

    @staticmethod
    def episode_agent_codes(mix: dict[str, float], seed: int, episodes: np.ndarray, config: GoConfig) -> np.ndarray:
        """(E, 2) agent codes: `episode_agents` for many episodes at once (column 0, Black's, is the core's draw)."""
        codes = np.array([AGENT_NAMES.index(name) for name in mix])
        return np.stack([codes[agents_for_episodes(mix, seed, episodes, purpose(Purpose.AGENT_PICK, k))] for k in range(2)], axis=1)

    # -- evaluation

    def validate(self, tokens: Sequence[str], config: GoConfig, codec: CodecConfig | None = None) -> Any:
        """A codec declares the keyframe interval the sequence is held to; None reads it off the sequence."""
        return _validity.validate(tokens, config, keyframe_interval=None if codec is None else codec.keyframe_interval)

    def opening_perturbations(self, tokens: Sequence[str], config: GoConfig) -> list[tuple[str, list[str]]]:
        return _validity.opening_perturbations(tokens, config)

    def summarize_episode(self, tokens: Sequence[str]) -> EpisodeSummary:
        return _fidelity.summarize_episode(tokens)

    def rule_determined_positions(self, tokens: Sequence[str]) -> list[tuple[int, str, str]]:
        return _fidelity.rule_determined_positions(tokens)

    def symmetries(self, tokenizer: Any, config: GoConfig) -> Any:
        """All 8 symmetries of the board (`symmetry.GoSymmetries`): the empty start is kept by each."""
        from gamegrammar.games.go.symmetry import GoSymmetries

        return GoSymmetries(tokenizer, config)

    def move_choices(self, tokens: Sequence[str], config: GoConfig) -> list[tuple[int, frozenset[str]]]:
        return _fidelity.move_choices(tokens, config)

    def exact_groups(self, tokens: Sequence[str]) -> list[tuple[str, list[int]]]:
        return _fidelity.exact_groups(tokens)

    # -- states

    def trace(self, tokens: Sequence[str], config: GoConfig) -> list[GoState]:
        from gamegrammar.games.go.trace import trace

        return trace(tokens, config)

    def probe_targets(self, state: GoState, config: GoConfig) -> ProbeTargets:
        """Mine / theirs / empty and black / white points, for the player to move (`planes.probe_targets`)."""
        from gamegrammar.games.go.planes import probe_targets

        return probe_targets(state)

    def board_shape(self, config: GoConfig) -> tuple[int, int]:
        return config.size, config.size

    def renderer(self) -> Any:
        """Replays as ASCII, GIF and HTML, the last move and each capture marked (`gamegrammar.games.go.replay`)."""
        from gamegrammar.games.go import replay

        return replay

    def emergence(self) -> Any:
        from gamegrammar.games.go import emergence

        return emergence

    # -- planning (gamegrammar.act.gtp_planner)

    def planner_value(self, history: Sequence[str], words: Sequence[str], config: GoConfig) -> float:
        """The area margin, with komi, of the board the tokens wrote, for the player to move at the end of `history`;
        a written result instead where the words reach one (`planning.WrittenGo`)."""
        from gamegrammar.games.go.planning import planner_value

        return planner_value(history, words, config)

    def simulate_plies(self, history: Sequence[str], move: str, plies: int, config: GoConfig, codec: CodecConfig, seed: int) -> list[str]:
        from gamegrammar.games.go.planning import simulate_plies

        return simulate_plies(history, move, plies, config, codec, seed)

    # -- the Go world's protocol and records

    def gtp_engine(self, config: GoConfig, agent: str, policy: Any = None, codec: CodecConfig | None = None) -> Any:
        """A GTP v2 engine on these rules, genmove from the scripted agent `agent`, or from `policy` (a model reading
        the game in this grammar, written with `codec`) where one is given (`gtp_engine.GoGtpEngine`)."""
        from gamegrammar.games.go.gtp_engine import GoGtpEngine

        return GoGtpEngine(config, agent, policy=policy, codec=codec)

    def read_records(self, text: str, config: GoConfig, codec: CodecConfig | None = None) -> list[Any]:
        """SGF games as episodes (`sgf.read_records`): each game's tokens, or the RecordError that refuses it."""
        from gamegrammar.games.go.sgf import read_records

        return read_records(text, config, codec)

    def write_record(self, tokens: Sequence[str], config: GoConfig) -> str:
        """An episode as an SGF game (`sgf.write_record`)."""
        from gamegrammar.games.go.sgf import write_record

        return write_record(tokens, config)

    # -- state identity (novelty): gamegrammar/games/go/zobrist.py

    def feature_space(self, config: GoConfig) -> tuple[int, int]:
        return _zobrist.feature_space(config.size)

    def state_features(self, state: GoState, config: GoConfig) -> list[tuple[int, int]]:
        return _zobrist.state_features(state.board, state.to_play, state.passes == 1, config.size)

    def feature_changes(self, before: GoState, after: GoState, config: GoConfig) -> Any:
        turn, passed = (before.to_play, after.to_play), (before.passes == 1, after.passes == 1)
        return _zobrist.feature_changes(before.board, after.board, turn, passed, config.size)


GAME = GoSpec()
