"""The one plug-in point: what the core needs from a game, and nothing more.

A game is one package under `gamegrammar/games/<name>/` whose `GAME` object is an
instance of a `GameSpec` subclass. The core (corpus, tokenizer, model, training,
sampling, evaluation, interpretability, checkpoints, commands) reaches a game only
through this object, found by name with `gamegrammar.games.load_game(name)`; the
corpus manifest's `game` field names it. Nothing in the core names a game's tokens
or types.

The contract, in OpenSpiel's spirit (a game object that makes states; here it also
makes everything the pipeline needs around them), is a required core, declarative
metadata, and optional capabilities.

Metadata: `game_type` (a `GameType`: how many players, whether they move at once or in
turn, whether chance acts), `num_players(config)` and `to_move(state)` (the players whose
input the next tick takes: every live one in a simultaneous game, one in a sequential one).

The required core:

- config: a frozen dataclass (`config_type`) with `to_dict()`, a `game` class
  variable naming its game, and a `max_ticks` field (every game has a tick limit
  for corpora). Its int/float/bool fields become the flags of `generate`, each explained by its field's
  `metadata={"help": ...}` (a phrase saying what it is; the commands add each game's default).
- the grammar: `vocabulary(config)` starts with `SPECIAL_TOKENS`; `tick_token`
  starts every tick (the model's game clock counts it); `input_tokens(config)`
  are the agents' inputs; `automaton(config)` is the grammar as an action mask.
- engines: `play_episode` (the scalar reference: simulator, agent, encoder) and
  optionally `play_batch` (vectorized, byte-identical); both are keyed by
  (seed, episode) alone.
- the strict evaluator: `rules` (rule names by tier), `validate`, `validate_many`.
- fidelity: `summarize_episode` (ticks, score, end reason) and
  `rule_determined_positions` (what teacher forcing scores).
- states: `trace(tokens, config)`, the states a token sequence describes.

The optional capabilities (`CAPABILITIES`), each a few methods; a game declares the ones it
has in `capabilities`, and the others raise `GameGrammarError` with a one-line reason (the
defaults below do), which the commands pass on: `batch_engine` (`play_batch`), `automaton`
(constrained sampling), `symmetries` (augmentation), `chance` (`chance_targets`), `play` (a
model plays the game: `input_prompt`, `play_controlled`), `dream` (the model as the game:
`input_policy`, `read_tick`), `novelty` (Zobrist state identity: `feature_space`,
`state_features`, `feature_changes`, optionally `state_keys_batch`), `probes`
(`probe_targets`, `board_shape`), `replay` (`renderer`), `emergence` (tier 2) and `statistics`
(tier 3's `episode_statistics`, and optionally `agent_log_likelihoods`, its ceiling).

`gamegrammar.games.conformance` checks any registered game against this contract.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import numpy as np

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.events import Event, Salience

if TYPE_CHECKING:
    from gamegrammar.core.agents import Agent
    from gamegrammar.core.tokenizer import GameTokenizer
    from gamegrammar.core.tokenlog import TokenLog
    from gamegrammar.core.verdict import Verdict

SPECIAL_TOKENS = ("PAD", "UNK", "BOS", "EOS")  # ids 0..3 in every game's vocabulary


@dataclass(frozen=True)
class CodecConfig:
    """How episodes are written, for any game.

    keyframe_interval K: a keyframe at tick 0 and after every K-th tick (0 = only the first).
    min_salience: events below it are dropped (summary grammars; the strict evaluator needs 0).
    """

    keyframe_interval: int = 0
    min_salience: int = Salience.TICK

    def __post_init__(self) -> None:
        if self.keyframe_interval < 0:
            raise GameGrammarError(f"keyframe_interval must be >= 0, got {self.keyframe_interval}")
        if not Salience.TICK <= self.min_salience <= Salience.PHASE:
            raise GameGrammarError(f"min_salience must be between 0 and 4, got {self.min_salience}")

    def keyframe_after(self, tick: int) -> bool:
        return self.keyframe_interval > 0 and tick % self.keyframe_interval == 0

    def to_dict(self) -> dict[str, int]:
        return {"keyframe_interval": self.keyframe_interval, "min_salience": int(self.min_salience)}


class GameConfig(Protocol):
    """What the core reads of any game's config."""

    game: ClassVar[str]
    max_ticks: int

    def to_dict(self) -> dict[str, Any]: ...


@dataclass
class EpisodeRecord:
    """One episode through a game's scalar reference engine: its tokens, events and every state (tick 0 first)."""

    tokens: list[str]
    events: list[Event]
    states: list[Any]
    end: str  # one of the game's end_events
    ticks: int
    score: int


@dataclass
class BatchResult:
    """Whole episodes from a batch engine: flat token ids (episode-major) and per-episode facts."""

    tokens: np.ndarray
    lengths: np.ndarray
    ticks: np.ndarray
    scores: np.ndarray
    ends: np.ndarray  # position in the game's end_events


Controller = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
"""controller(games, mask, draws) -> inputs: player 0's input in each game of `games` (positions in the episodes) whose
player 0 moves this tick, as positions in `input_tokens`. mask (m, inputs) bool: the inputs it may play (at least one);
draws (m,) uint64: its draw of this tick, keyed by (seed, episode, tick) like a scripted agent's (a sampler's randomness).
What the engine has written so far is in the `TokenLog` passed to `GameSpec.play_controlled`."""


@dataclass
class PlayerResult:
    """Episodes where player 0 was one agent (`GameSpec.play_controlled`): what the engine wrote, and that player's lot."""

    episodes: BatchResult
    score: np.ndarray  # (E,) its score: the game's with one player; with several its own (Battlesnake: its final length)
    ticks: np.ndarray  # (E,) the ticks it played: to the end, or to its elimination
    fate: np.ndarray  # (E,) its fate, a position in `fates`
    fates: tuple[str, ...]  # the fates it can meet: one player's are the game's end events
    place: np.ndarray | None = None  # (E,) 1 = the last standing, ties sharing the better place; None with one player


@dataclass
class EpisodeSummary:
    """What fidelity compares with the corpus: ticks, last score and end reason, read as far as the grammar allows."""

    ticks: int
    score: int
    end: str  # one of the game's end_events, or "none"
    outcomes: tuple[str, ...] = ()  # each player's fate, one of the spec's outcome_labels (games with several players)


@dataclass
class ProbeTargets:
    """What the world-state probes read from one state.

    planes: {name: [H*W] 0/1 array} cell planes (one binary probe per cell);
    scalars: {name: value} regression targets; classes: {name: (value, number of classes)}.
    """

    planes: dict[str, np.ndarray] = field(default_factory=dict)
    scalars: dict[str, float] = field(default_factory=dict)
    classes: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class InterventionCase:
    """One causal test of the world-state probes: edit the board the model holds, and the rules say what comes next.

    At the token `offset` of tick `tick` (0: the tick token; the state is the one before that tick, `trace`'s
    states[tick]) the hidden state is moved along the probes of `edits` ((plane, cell, value): a cell of a
    `probe_targets` plane set to 0 or 1). On the edited board the rules write `expected` as the next token; on the
    real one they write `actual`. A case whose `expected` is `actual` tests nothing, so a game gives none.

    Where the rules draw the next words by chance (Snake's food spawn), `chance` gives the rules' probability of
    `path` then `expected` on the real board and on the edited one, and the edit succeeds when the model's
    probability of them moves past the midpoint, to the edited board's side (an added body cell gets no food).
    """

    tick: int
    offset: int
    kind: str  # what the edit does, for the tables ("add body", ...)
    edits: tuple[tuple[str, int, int], ...]
    expected: str
    actual: str
    probe: int | str | None = None  # the probes that edit: None, those at `offset`; a word, those read at that word
    board: int = 0  # the edits change trace's states[tick + board] (a word's probes read the state after its tick: 1)
    path: tuple[str, ...] = ()  # the words fed after the edited token, before `expected`
    chance: tuple[float, float] | None = None  # the rules' P(path, then expected) on the real and on the edited board

    @property
    def key(self) -> int | str:
        """Where the probes that edit it were read: an offset from the tick token, or a word."""
        return self.offset if self.probe is None else self.probe


class Encoder(Protocol):
    """Streams one episode into tokens: `start(state)`, then `tick(events, state_after, done)` per tick."""

    tokens: list[str]

    def start(self, state: Any) -> None: ...

    def tick(self, events: Sequence[Event], state: Any, done: bool) -> None: ...


class Automaton(Protocol):
    """The grammar as an action mask: `allowed(state)` is the set of next tokens, `step(state, token)` the next state."""

    def start(self) -> tuple: ...

    def allowed(self, state: tuple) -> frozenset[str]: ...

    def step(self, state: tuple, token: str) -> tuple | None: ...


class RuleDraft(Protocol):
    """One sequence followed as it is written, ahead of it by what the rules fix (`GameSpec.rule_draft`).

    Fed every token of the sequence (its prompt too), `proposal()` is the run of tokens the rules make certain next,
    up to the next token they leave free (a player's input, a chance draw), and optionally guesses past it (a likely
    input and what the rules write for it); empty where the rules are left. A speculative sampler verifies them all in
    one pass, and a wrong guess costs only the pass's later tokens: the samples are the model's whatever is proposed.
    """

    def feed(self, token: str) -> None: ...

    def proposal(self) -> list[str]: ...


@dataclass
class TickReading:
    """One written tick read from the state before it (`GameSpec.read_tick`): a dream's step, and its agreement."""

    state: Any | None  # the state after the tick as `trace` follows it; None where the rules cannot follow it
    broken: tuple[str, ...]  # the strict rules the tick breaks from the state before it, by position; () = the rules could write it


class InputPolicy(Protocol):
    """Scripted agents choosing one tick's inputs on a state, written as the grammar's input tokens (every player's, in
    grammar order): what a dream forces into the sequence. Seeded like the game: `reset(seed, episode)` first."""

    def reset(self, seed: int, episode: int) -> None: ...

    def inputs(self, state: Any) -> list[str]: ...


def uniform_cell_targets(cells: Sequence[tuple[int, int]], x_at: int, column: int, y_at: int) -> list[tuple[int, dict[str, float]]]:
    """`GameSpec.chance_targets` of one cell drawn uniformly from `cells` and written `Xx` (at x_at) then `Yy` (at y_at):
    X with probability (cells in column x) / (cells); Y, given the column written (`column`), uniform over its rows."""
    if not cells:
        return []
    columns = Counter(x for x, _ in cells)
    rows = sorted(y for x, y in cells if x == column)
    out = [(x_at, {f"X{x}": n / len(cells) for x, n in sorted(columns.items())})]
    return [*out, (y_at, {f"Y{y}": 1 / len(rows) for y in rows})] if rows else out


class Symmetries(Protocol):
    """Board symmetries on token ids, for augmentation inside the data loader.

    `names`: those augmentation draws from, each mapping every episode the rules can write to one they can write (a
    symmetry that moves a start the rules fix is left out); `all_names`: the board's, for the conformance kit's check
    that exactly the images under `names` are valid."""

    names: Sequence[str]
    all_names: Sequence[str]

    def apply(self, ids: np.ndarray, name: str) -> np.ndarray: ...


MovePolicy = Callable[[Sequence[str], Sequence[str]], str]
"""policy(tokens, legal) -> token: a player choosing its move from the game written so far (ending with the tick
token of the move to choose) among the input tokens the rules allow (`act.gtp_player.ModelPolicy`)."""


@dataclass(frozen=True)
class GameType:
    """What kind of game a game is, declared rather than read off its grammar (OpenSpiel's GameType).

    players: the least and most players a config may have. dynamics: "simultaneous" (every live player gives an input
    each tick, and the tick resolves them together: Battlesnake) or "sequential" (one player moves per tick, in turn:
    a one-player game is sequential too). chance: "sampled" where the game draws from its own seeded randomness (Snake's
    food, Battlesnake's starts and spawns; `chance_tokens` names where it is written), "deterministic" where nothing
    is drawn but the agents' inputs. Every game here is of perfect information.
    """

    min_players: int
    max_players: int
    dynamics: str  # "simultaneous" | "sequential"
    chance: str  # "sampled" | "deterministic"

    DYNAMICS: ClassVar[tuple[str, ...]] = ("simultaneous", "sequential")
    CHANCE: ClassVar[tuple[str, ...]] = ("sampled", "deterministic")

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"players must satisfy 1 <= min <= max, got {self.min_players}..{self.max_players}")
        if self.dynamics not in self.DYNAMICS or self.chance not in self.CHANCE:
            raise ValueError(f"dynamics must be one of {self.DYNAMICS} and chance one of {self.CHANCE}")


CAPABILITIES: dict[str, str] = {
    "batch_engine": "play_batch: a vectorized engine, byte-identical to play_episode",
    "automaton": "automaton: the grammar as an action mask (constrained sampling)",
    "symmetries": "symmetries: board symmetries on token ids (augmentation)",
    "chance": "chance_targets: the distribution each chance token was drawn from (exact training targets)",
    "play": "input_prompt, play_controlled: a model plays the real game",
    "dream": "input_policy, read_tick: a scripted agent plays inside the model's game",
    "plan": "planner_outcome, simulate_tick: a planner scores rollouts (the model's dreams, or the rules' own)",
    "turn_plan": "planner_value, simulate_plies: a turn-based game's planner scores the moves it may play, in the "
    "model's dreams or the rules' own (through GTP's genmove)",
    "novelty": "feature_space, state_features, feature_changes: Zobrist state identity",
    "probes": "probe_targets, board_shape: what world-state probes read of a state",
    "replay": "renderer: replays in the terminal, GIF and HTML",
    "emergence": "emergence: tier 2, rule emergence and counterfactual probes",
    "statistics": "episode_statistics: tier 3's hand-made statistics of an episode (agent_log_likelihoods, optional: its ceiling)",
    "gtp": "gtp_engine: the game as a GTP engine on stdin and stdout (Go programs' protocol)",
    "records": "read_records, write_record: the game world's own record files (Go: SGF) in and out",
    "moves": "move_choices, exact_groups: the inputs the rules allow at each move, the tokens they fix together (evaluate's move measures)",
}
"""The optional capabilities of `GameSpec`, each with the methods that make it."""


@dataclass(frozen=True)
class ConfigFlag:
    """One command-line flag of a game config (`--max-ticks` for the field max_ticks).

    help and metavar come from the field's metadata (`field(default=..., metadata={"help": ..., "metavar": ...})`),
    so a game's flags explain themselves wherever the commands offer them.
    """

    name: str
    type: type
    default: Any
    help: str = ""
    metavar: str | None = None

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


def _flags(cls: type) -> list[ConfigFlag]:
    out = []
    for f in dataclasses.fields(cls):
        if f.default is dataclasses.MISSING or not isinstance(f.default, (int, float, bool)):
            continue
        out.append(ConfigFlag(f.name, type(f.default), f.default, f.metadata.get("help", ""), f.metadata.get("metavar")))
    return out


class GameSpec:
    """Base class of every game's plug-in object. Subclasses set the class attributes and implement the methods.

    Methods that a game does not support raise `GameGrammarError` with a one-line reason
    (the defaults below do), so the commands can pass that on to the user.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    config_type: ClassVar[type]
    end_events: ClassVar[tuple[str, ...]]  # every episode's last event is one of these; their order is the index's `end` code
    agent_names: ClassVar[tuple[str, ...]]  # their order is the index's `agent` code
    outside_agents: ClassVar[tuple[str, ...]] = ()  # of agent_names: those that run an outside program (GNU Go), slow to play
    default_agents: ClassVar[dict[str, float]]  # the agent mix `generate` uses by default
    codec_type: ClassVar[type] = CodecConfig  # a game's grammar options extend CodecConfig with fields of their own
    tick_token: ClassVar[str]  # starts every tick: the model's game clock counts these
    keyframe_token: ClassVar[str | None] = None  # starts every keyframe (a complete state): training's keyframe windows start there
    rules: ClassVar[dict[str, tuple[str, ...]]]  # the strict evaluator's rule names by tier (structural, physical, rules)
    teacher_categories: ClassVar[tuple[str, ...]]  # categories of `rule_determined_positions`
    outcome_labels: ClassVar[tuple[str, ...]] = ()  # each player's possible fates (EpisodeSummary.outcomes); () = one player
    score_bins: ClassVar[tuple[int, ...]] = (0, 1, 2, 3, 5, 10, 15, 20, 30, 40, 60, 10**9)  # fidelity's bin edges of scores
    game_type: ClassVar[GameType] = GameType(1, 1, "sequential", "sampled")
    capabilities: ClassVar[frozenset[str]] = frozenset()  # of CAPABILITIES: the optional parts the game implements
    # the `probe_targets` plane holding one cell, the player's own head, around which the probes also relabel the board
    # ("where is each cell from me": Othello-GPT's mine / theirs); None where the game has no such cell (Go)
    probe_anchor: ClassVar[str | None] = None
    # where the probes read, by offset from each tick token: the tick token and the token after it (Snake: the input
    # word, after which a sense grammar writes which of the head's neighbours are body); a game adds the tokens where
    # its model works out the state (Battlesnake: snake 0's move word and its X), or a word (str) whose next token needs
    # the board, read at its first place in a tick against the state after that tick (Snake: FOOD_SPAWN, whose cell
    # must be free); the first position must be an offset (it splits the episodes for every position)
    probe_positions: ClassVar[tuple[tuple[str, int | str], ...]] = (("tick", 0), ("tick+1", 1))

    # -- metadata

    def num_players(self, config: Any) -> int:
        """How many players a game of this config has (one, unless the game's type allows more)."""
        return self.game_type.min_players

    def to_move(self, state: Any) -> tuple[int, ...]:
        """The players whose input the next tick takes, read from the state: in a one-player game, the player (none once
        the game is over is the caller's business: `trace` ends there)."""
        return (0,)

    # -- config

    def make_config(self, **values: Any) -> Any:
        """A config from keyword values (None = the default)."""
        return self.config_type(**{k: v for k, v in values.items() if v is not None})

    def config_from_dict(self, d: dict[str, Any]) -> Any:
        return self.config_type(**d)

    def config_flags(self) -> list[ConfigFlag]:
        """The config's plain fields, as `generate` (and friends) offer them on the command line."""
        return _flags(self.config_type)

    def codec_flags(self) -> list[ConfigFlag]:
        """The game's own grammar options (fields of `codec_type` beyond CodecConfig's), as `generate` offers them."""
        base = {f.name for f in dataclasses.fields(CodecConfig)}
        return [flag for flag in _flags(self.codec_type) if flag.name not in base]

    def describe_config(self, config: Any) -> dict[str, Any]:
        """A few facts of a config for people (corpus stats, reports): {"board": "10x10", "max_ticks": 200}, say."""
        return {"max_ticks": config.max_ticks}

    # -- grammar

    def vocabulary(self, config: Any) -> list[str]:
        raise NotImplementedError

    def codec_vocabulary(self, config: Any, codec: CodecConfig) -> list[str]:
        """The vocabulary of a corpus written with `codec` (its tokenizer): `vocabulary(config)` unless a grammar option
        adds words. Such a game lists them last in `vocabulary` and leaves out here those `codec` does not write, so
        every token keeps its id and a corpus without the option keeps the tokenizer it had before the option."""
        return self.vocabulary(config)

    def input_tokens(self, config: Any) -> list[str]:
        """The tokens an agent's input is written as (training can weight the outcome that follows one)."""
        raise NotImplementedError

    def chance_tokens(self, config: Any, codec: CodecConfig) -> list[tuple[str, tuple[int, ...]]]:
        """Where the game's chance is written (training can weight it): pairs (word, offsets), the tokens `offsets`
        places after each `word`. Snake's food spawn is ("FOOD_SPAWN", (1, 2)), its X and Y; a game without chance
        has none."""
        return []

    def chance_targets(self, tokens: Sequence[str], config: Any) -> list[tuple[int, dict[str, float]]]:
        """The exact distribution behind each token the game's chance wrote in one episode (`tokens` from its BOS,
        possibly cut off anywhere): pairs (index in `tokens`, {token: probability}). Training can show the model these
        instead of the one draw written (`--data.chance_targets exact`)."""
        raise GameGrammarError(f"{self.name} does not declare the distributions its chance draws from")

    def automaton(self, config: Any, codec: CodecConfig | None = None) -> Automaton:
        """The grammar's automaton on this board: of the design `codec` writes, or (None) of any of the game's designs."""
        raise GameGrammarError(f"{self.name} has no grammar automaton for constrained sampling")

    def new_encoder(self, codec: CodecConfig, config: Any) -> Encoder:
        """An encoder of one episode on this board (`config`) in the grammar `codec` writes."""
        raise NotImplementedError

    def decode_events(self, tokens: Sequence[str]) -> list[Event]:
        """The events a full-salience episode's tokens describe (the encoder's inverse; GrammarError-free input)."""
        raise NotImplementedError

    def episode_prefix(self, tokens: Sequence[str], ticks: int) -> list[str]:
        """The first keyframe and the first `ticks` ticks of an episode: a prompt from real play."""
        raise NotImplementedError

    def test_configs(self) -> list[Any]:
        """Small configs the conformance kit plays (boards where every end reason happens quickly, say)."""
        return [self.make_config()]

    # -- engines

    def new_agent(self, name: str, config: Any) -> Agent:
        raise NotImplementedError

    def agent_unavailable(self, name: str) -> str | None:
        """Why the scripted agent `name` cannot play on this machine (an outside program it needs is missing), as one
        line saying how to get it; None when it can. The conformance kit plays the available agents only."""
        return None

    def episode_agents(self, mix: dict[str, float], seed: int, episode: int, config: Any) -> tuple[str, ...]:
        """The agents that play episode `episode` of a corpus with this mix, one per player; the first one's code is the
        corpus index's `agent`. One player: the core's per-episode draw."""
        from gamegrammar.core.agents import agent_for_episode

        return (agent_for_episode(mix, seed, episode),)

    def episode_agent_codes(self, mix: dict[str, float], seed: int, episodes: np.ndarray, config: Any) -> np.ndarray:
        """`episode_agents` for many episodes as codes (positions in `agent_names`), what the batch engine takes:
        (E,) with one player, (E, players) otherwise; column 0 is the corpus index's `agent`."""
        from gamegrammar.core.agents import agents_for_episodes

        codes = np.array([self.agent_names.index(name) for name in mix])
        return codes[agents_for_episodes(mix, seed, episodes)]

    def play_episode(self, config: Any, codec: CodecConfig, agent: str, seed: int, episode: int) -> EpisodeRecord:
        """Episode `episode` of `seed` through the scalar reference engine and agent, encoded as it goes."""
        raise NotImplementedError

    play_batch: Callable[..., BatchResult] | None = None
    """Optional vectorized engine: play_batch(config, codec, seed, episodes, agent_codes) -> BatchResult, byte-identical."""

    def input_policy(self, agent: str, config: Any) -> InputPolicy:
        """The scripted agent `agent` (what `play_episode` takes) choosing every player's inputs on a state, as tokens."""
        raise GameGrammarError(f"{self.name} has no input policy for dreams")

    def input_prompt(self, config: Any) -> list[str]:
        """The tokens an engine writes in a tick before player 0's input: what a model is given before it writes one."""
        raise GameGrammarError(f"{self.name} has no input prompt: a model cannot play it")

    def play_controlled(
        self,
        config: Any,
        codec: CodecConfig,
        seed: int,
        episodes: np.ndarray,
        player: str | Controller,
        opponents: dict[str, float] | None = None,
        log: TokenLog | None = None,
    ) -> PlayerResult:
        """Episodes on the batch engine with player 0 played by `player`, a scripted agent's name or a `Controller` (a
        model), the other players by the agent mix `opponents` (None: the game's default mix), drawn per episode and
        player; the engine writes through `log` (a fresh one when None), so a controller can read each game's tokens."""
        raise GameGrammarError(f"{self.name} has no engine a model can play in (GameSpec.play_controlled)")

    def planner_outcome(self, tokens: Sequence[str]) -> tuple[float, bool]:
        """What player 0 gains in a written continuation of its game (the tokens after an input prompt, as a planner's
        rollout writes them: the model's dream or the rules' ticks) and whether it is out by their end. Read off the
        tokens alone, so that a planner on the model never consults the rules."""
        raise GameGrammarError(f"{self.name} cannot score a rollout: no planner plays it")

    def planner_leaf(self, tokens: Sequence[str]) -> float:
        """A heuristic value of where a written game stands at its end, for player 0 (higher is better; 0 where the
        game has none): what a planner adds, weighted, to a rollout that stopped at its horizon with nothing gained
        yet told apart. Read off the tokens alone (the real history's and the rollout's), like `planner_outcome`."""
        return 0.0

    def planner_input(self, history: Sequence[str], words: Sequence[str], allowed: Iterable[str], config: Any, u: float) -> str | None:
        """A cheap default for player 0's later inputs in a rollout (`rollout_policy="heuristic"`), chosen among the
        `allowed` input tokens on what the tokens say (the game's real `history`, then the rollout's `words`), like the
        leaf: a scripted agent reads the true state, which a dream does not have. `u` in [0, 1) breaks ties; None where
        nothing can be read (the planner then draws uniformly)."""
        raise GameGrammarError(f"{self.name} has no heuristic rollout policy read off the tokens; choose model or random")

    def simulate_tick(self, state: Any, inputs: Sequence[str], config: Any, codec: CodecConfig, seed: int) -> tuple[Any, list[str], bool]:
        """The rules' tick from `state` with `inputs` (player 0's input token first; a player to move past the inputs
        given plays the game's cheap default rollout policy), its chance and that policy's draws from `seed` (a
        planner's own, never the real game's): the state after, the tick's tokens as `codec` writes them (from the tick
        token on, EOS included where the game ends) and whether it ended. The rules as a planner's simulator: the
        upper bound of planning in the model's dreams."""
        raise GameGrammarError(f"{self.name} has no rules simulator for a planner")

    def planner_value(self, history: Sequence[str], words: Sequence[str], config: Any) -> float:
        """A turn-based game's value, for the player to move at the end of `history` (the real game, up to the tick
        token of the move to choose), of where `words` (a move and what follows it: the model's dream, or the rules'
        `simulate_plies`) leave the game, read off the tokens alone, so that a planner on the model never consults the
        rules (higher is better)."""
        raise GameGrammarError(f"{self.name} cannot score a turn-based rollout: no turn planner plays it")

    def simulate_plies(self, history: Sequence[str], move: str, plies: int, config: Any, codec: CodecConfig, seed: int) -> list[str]:
        """The rules' continuation of the real game `history` (up to the tick token of the move to choose): `move`,
        then `plies - 1` moves of the game's cheap default policy for whoever is to move, its draws from `seed` (a
        planner's own); the tokens as `codec` writes them, from `move` on (a tick token before each later move, the
        end where the game ends). The upper bound of planning in the model's dreams."""
        raise GameGrammarError(f"{self.name} has no rules simulator for a turn planner")

    # -- evaluation

    def validate(self, tokens: Sequence[str], config: Any, codec: CodecConfig | None = None) -> Verdict:
        """The strict verdict of one sequence. `codec` (the corpus's or the checkpoint's) declares the design the
        sequence must follow, its grammar options and its keyframe interval; None lets the game read them off the
        sequence."""
        raise NotImplementedError

    def rules_for(self, codec: CodecConfig | None) -> dict[str, tuple[str, ...]]:
        """The rules, by tier, that judge sequences of the design `codec` writes (None: any design): a grammar option's
        rules are left out where the design does not write the option, so a report does not list them as passed."""
        return self.rules

    def opening_perturbations(self, tokens: Sequence[str], config: Any) -> list[tuple[str, list[str]]]:
        """Named variants of one valid episode in which only the opening keyframe is changed into a state no start of
        the rules can be (it still parses): the conformance kit requires each to be invalid, first broken there."""
        raise GameGrammarError(f"{self.name} names no impossible openings")

    def validate_many(
        self, sequences: Sequence[Sequence[str] | Sequence[int] | np.ndarray], config: Any, codec: CodecConfig | None = None
    ) -> list[Verdict]:
        """`validate` for many sequences (token lists, or token ids); a game may answer faster than one by one."""
        tokens = self.vocabulary(config)
        out = []
        for seq in sequences:
            if len(seq) and not isinstance(seq[0], str):
                seq = [tokens[i] if 0 <= i < len(tokens) else f"<id {i}>" for i in np.asarray(seq).tolist()]
            out.append(self.validate(seq, config, codec))
        return out

    def summarize_episode(self, tokens: Sequence[str]) -> EpisodeSummary:
        raise NotImplementedError

    def rule_determined_positions(self, tokens: Sequence[str]) -> list[tuple[int, str, str]]:
        """(position, category, kind) of every token the rules fix given the history and the inputs.

        category is one of `teacher_categories`; kind names the tick outcome the rules dictate at the token
        that follows an input ("" elsewhere), for the teacher-forced breakdown by outcome kind.
        """
        raise NotImplementedError

    def rule_draft(self, config: Any, codec: CodecConfig) -> RuleDraft | None:
        """A fresh draft for one sequence of this design (speculative sampling), or None where the game has none."""
        return None

    def move_choices(self, tokens: Sequence[str], config: Any) -> list[tuple[int, frozenset[str]]]:
        """(position, legal inputs) of every input a player chose in an episode from the rules' start: where the input
        token stands and the inputs the rules allow there (the legal-move rate of a turn-based game). The rules follow
        the episode up to its first input they refuse, which is the last choice listed."""
        raise GameGrammarError(f"{self.name} does not list its legal moves (no legal-move rate)")

    def exact_groups(self, tokens: Sequence[str]) -> list[tuple[str, list[int]]]:
        """(name, positions) of the groups of tokens the rules fix together, each scored right only when every one of
        its tokens is (Go: a capture's TAKE, its stones and the token that closes the list; the end's words)."""
        raise GameGrammarError(f"{self.name} names no groups of rule-determined tokens")

    # -- states

    def trace(self, tokens: Sequence[str], config: Any) -> list[Any]:
        """The states a token sequence describes, tick 0 first, as far as the rules can follow it."""
        raise NotImplementedError

    def read_tick(self, state: Any, tokens: Sequence[str], config: Any, codec: CodecConfig) -> TickReading:
        """One whole written tick (`tokens`: from its tick token to the next one, keyframe and EOS included) read after
        `state`: the trace and the strict evaluator one tick at a time from a known state, as a dream advances.
        A chain of readings over a valid episode's ticks gives `trace`'s states and breaks no rule."""
        raise GameGrammarError(f"{self.name} cannot read a tick from a state (dreams need it)")

    def probe_targets(self, state: Any, config: Any) -> ProbeTargets:
        raise GameGrammarError(f"{self.name} has no world-state probe targets")

    def board_shape(self, config: Any) -> tuple[int, int]:
        """(height, width) of the cell planes of `probe_targets`."""
        raise GameGrammarError(f"{self.name} has no board planes")

    def intervention_cases(self, tokens: Sequence[str], states: Sequence[Any], config: Any) -> list[InterventionCase]:
        """The causal tests of one episode (`states`: its `trace`) whose outcome its rules fix: none by default (the
        probes' interventions are then reported as not checked)."""
        return []

    # -- state identity: Zobrist keys for novelty (gamegrammar.core.zobrist, gamegrammar.data.novelty)

    def feature_space(self, config: Any) -> tuple[int, int]:
        """(slots, codes) of `state_features`: board cells and the game's extra slots, and what may occupy them."""
        raise GameGrammarError(f"{self.name} has no state features for novelty")

    def state_features(self, state: Any, config: Any) -> list[tuple[int, int]]:
        """The features (slot, code) of one state of `trace`, each once: two states are the same when their features
        are (the rules' state, not the tick). Raises `zobrist.OutsideSpace` for a state outside the feature space."""
        raise GameGrammarError(f"{self.name} has no state features for novelty")

    def feature_changes(self, before: Any, after: Any, config: Any) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """(removed, added) features of one tick, `before` and `after` consecutive states of a trace: the incremental
        path of the keys. A game finds them from what the tick did (a head enters a cell, a tail leaves one); this
        default, correct for any game but not incremental, removes every feature of `before` and adds those of `after`."""
        return self.state_features(before, config), self.state_features(after, config)

    state_keys_batch: Callable[..., tuple[np.ndarray, np.ndarray]] | None = None
    """Optional fast path of novelty: state_keys_batch(episodes, config, codec, table) -> (keys, counts), the keys of every
    state of whole episodes (token id arrays) that the strict evaluator finds valid, episode after episode, and how many
    each has; the same keys as following each episode through `trace` and `feature_changes`."""

    # -- optional parts

    def symmetries(self, tokenizer: GameTokenizer, config: Any) -> Symmetries:
        raise GameGrammarError(f"{self.name} has no symmetries for augmentation")

    def renderer(self) -> Any:
        """The replay command's backend: a module-like object with replay(tokens, config) -> rp (rp.frames, a list of
        frames from tick 0, and rp.summary(), one line), render_frame(rp, i), play(rp, delay=), write_gif(rp, path, cell=,
        frame_ms=) and write_html(rp, path, start_tick=, title=)."""
        raise GameGrammarError(f"{self.name} has no replay renderer")

    def emergence(self) -> Any:
        """A module-like object with tier2(model, ids, tokens, tokenizer, config, seed=, baseline=), markdown(result), plot(result, out)."""
        raise GameGrammarError(f"{self.name} has no rule-emergence analysis (tier 2)")

    def gtp_engine(self, config: Any, agent: str, policy: MovePolicy | None = None, codec: CodecConfig | None = None) -> Any:
        """An engine speaking GTP (the Go Text Protocol) for this game, whose moves come from the scripted agent
        `agent`, or from `policy` where one is given (a model: it reads the game written with `codec`): an object with
        serve(stdin, stdout)."""
        raise GameGrammarError(f"{self.name} has no GTP engine (GTP is Go's protocol)")

    record_format: ClassVar[str] = ""  # the name of the game world's record format ("SGF"), where it has one

    def read_records(self, text: str, config: Any, codec: CodecConfig | None = None) -> list[list[str] | GameGrammarError]:
        """The games of one record file's text, each as an episode's tokens in the grammar `codec` writes, or as the
        error that refuses it (a game this config and these rules cannot have been)."""
        raise GameGrammarError(f"{self.name} has no game-record format to read")

    def write_record(self, tokens: Sequence[str], config: Any) -> str:
        """One episode (tokens, as far as the rules follow it) as a game record file's text."""
        raise GameGrammarError(f"{self.name} has no game-record format to write")

    statistic_names: ClassVar[tuple[str, ...]] = ()

    def episode_statistics(self, tokens: Sequence[str], config: Any) -> np.ndarray:
        """Hand-made statistics of one episode (`statistic_names`), the play-style baseline of tier 3."""
        raise GameGrammarError(f"{self.name} has no episode statistics (tier 3)")

    def agent_log_likelihoods(self, tokens: Sequence[str], agents: Sequence[str], config: Any) -> np.ndarray:
        """log P(the episode's inputs | agent) for each named agent under its own policy: tier 3's ceiling (optional)."""
        raise GameGrammarError(f"{self.name} has no agents' policies to read inputs with (tier 3's ceiling)")
