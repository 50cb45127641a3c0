"""The model plans: at each move it searches inside its own dreams, or, as the upper bound, inside the rules.

`PlannerAgent` plays player 0 wherever a `ModelAgent` plays (`play_games`, `gamegrammar play --planner`). Each tick,
for every running game, it feeds the model what the engine wrote (the model agent's KV store, one row per game), and
then, for each input the action mask allows, writes `rollouts` continuations of the game `horizon` ticks long:

- `simulator="model"`: the model writes them, a dream from the game's real history with the input forced: its
  outcomes, its chance events (food) and, with `rollout_policy="model"`, the later inputs too (sampled from its own
  distribution at `temperature`, under the grammar's mask); with `rollout_policy="random"` the later inputs are
  uniform among the input tokens; with `rollout_policy="heuristic"` they are the game's cheap default read off the
  tokens written so far (`GameSpec.planner_input`: Snake's greedy choice on the dreamed head, body and food); a
  scripted agent's name is refused there: it reads the true state. Nothing here
  reads the rules: a rollout is scored off its tokens alone (`GameSpec.planner_outcome`: what player 0 gained, whether
  it is out; `GameSpec.planner_leaf`: the heuristic of where it ends).
- `simulator="rules"`: the rules write them from the real state (`GameSpec.simulate_tick`, its chance drawn from
  the planner's own seed, never the real game's), the later inputs chosen as above; with the model's policy the
  model reads the rules' tokens to choose them, so both simulators cost the same model tokens at the same
  (rollouts, horizon); with the random policy, or a scripted agent of the game (`rollout_policy="greedy"`: its input
  on the rollout's true state, its draws from the planner's seed), the rules need no model at all.

An input's value is the mean over its rollouts of their returns: the gains, less `death_cost` x out x (2 - (t - 1) /
horizon), where t is the tick the rollout ends out in (a death now costs about twice one at the horizon, so that of two
doomed inputs the later doom wins and a move into certain death never beats an escape), plus, for a rollout not out,
`leaf_weight` x the game's heuristic of where it ends (`GameSpec.planner_leaf`, off the tokens: Snake's closeness to
the food, so that food beyond the horizon still pulls); whatever happens in the rollout's t-th tick counts
`discount`^(t - 1) (of two inputs that eat alike, the sooner eater wins); the planner plays the best, ties going to the
model's own preference (its scores of the inputs at the real prompt).

With `planner="mcts"` the same rollouts are MCTS simulations (`_Tree`): PUCT over player 0's inputs with the model's
policy as the prior, open loop (a node is the inputs from the root; chance is drawn afresh each simulation), each
simulation one rollout of at most `horizon` ticks whose inputs are the tree's inside it and the rollout policy's past
its leaf; the root's most visited input is played. On the rules, a tick is stepped as soon as player 0's input is
written; the other players' inputs are the rules' default policy's (`GameSpec.simulate_tick`).

What makes it affordable: every branch of every running game goes through one forward pass per token step. The
branches share their game's history (`BranchCache`: one prefix per game, never copied per branch), and each writes
only its own few tokens. A branch stops at its horizon (its next tick token), at an end
event or EOS, or where its position would pass the model's context.

Rollouts are random in a way that is a function of the real game: every uniform is hashed from the engine's keyed
draw for that game and tick (the one a sampling model agent uses), the branch and the step (the lookahead's k-th rollout
of every input shares one stream: common random numbers, so that chance weighs alike on the inputs compared), so a game is a function
of (seed, episode), the model and the settings, whatever the batch (up to the float rounding of batched passes).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gamegrammar.act.play import DEFAULT_BATCH, ModelAgent, TokenTap, _Controller, uniform
from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, GameSpec
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model.gpt import BranchCache, GameGPT
from gamegrammar.training.checkpoint import load_checkpoint

PLANNERS = ("lookahead", "mcts")
SIMULATORS = ("model", "rules")
ROLLOUT_POLICIES = ("model", "random", "heuristic")  # and, on the rules, any scripted agent of the game
PLANNER = "planner"  # the planner's name in reports
ROOM_PER_TICK = 12  # context a history leaves free per rollout tick (a Snake tick writes 5-14 tokens)


@dataclass(frozen=True)
class PlannerConfig:
    """How the planner searches: `rollouts` continuations of `horizon` ticks per legal input, in `simulator`."""

    planner: str = "lookahead"
    rollouts: int = 2
    horizon: int = 4
    simulator: str = "model"
    rollout_policy: str = "model"  # who chooses a rollout's later inputs: the model, uniformly at random, the game's
    # heuristic read off the tokens, or (rules) a scripted agent
    temperature: float = 1.0  # the model's sampling inside a rollout (its outcomes, chance events and inputs)
    death_cost: float = 10.0  # what being out costs, in player 0's score
    prior_weight: float = 0.0  # the model's log-probability of an input, times this, added to its searched value
    max_tick_tokens: int = 16  # a rollout's tokens per tick on average at most: a runaway dream stops there
    simulations: int = 32  # MCTS: simulations per move, each one rollout of at most `horizon` ticks from the root
    c_puct: float = 1.25  # MCTS: the prior's weight against the normalised returns
    parallel_simulations: int = 1  # MCTS: simulations of a game written in the same passes (in-flight visits apart)
    discount: float = 1.0  # a gain (or death) in a rollout's t-th tick counts discount ** (t - 1)
    leaf_weight: float = 0.0  # the game's heuristic of where a rollout ends (`GameSpec.planner_leaf`), times this

    def __post_init__(self) -> None:
        for name, value, choices in (("planner", self.planner, PLANNERS), ("simulator", self.simulator, SIMULATORS)):
            if value not in choices:
                raise GameGrammarError(f"unknown {name} {value!r}; choose from {', '.join(choices)}")
        if self.scripted and self.simulator == "model":
            raise GameGrammarError(
                f"rollout policy {self.rollout_policy!r} is a scripted agent: it reads the true state, so it plays only on "
                f"the rules simulator; on the model choose from {', '.join(ROLLOUT_POLICIES)}"
            )
        for name in ("rollouts", "horizon", "max_tick_tokens", "simulations", "parallel_simulations"):
            if getattr(self, name) < 1:
                raise GameGrammarError(f"the planner's {name.replace('_', ' ')} must be at least 1, got {getattr(self, name)}")
        if not 0 < self.temperature < float("inf"):
            raise GameGrammarError(f"the planner's rollout temperature must be a finite number > 0, got {self.temperature}")
        for name in ("death_cost", "prior_weight", "c_puct", "leaf_weight"):
            if not 0 <= getattr(self, name) < float("inf"):
                raise GameGrammarError(f"the planner's {name.replace('_', ' ')} must be a finite number >= 0, got {getattr(self, name)}")
        if not 0 < self.discount <= 1:
            raise GameGrammarError(f"the planner's discount must be in (0, 1], got {self.discount}")

    @property
    def scripted(self) -> bool:
        """Are a rollout's later inputs a scripted agent's (a name the game knows, not the model or random)?"""
        return self.rollout_policy not in ROLLOUT_POLICIES

    @property
    def needs_model(self) -> bool:
        """Do its rollouts go through the model (all but the lookahead on the rules with random inputs: MCTS reads the
        model's policy at every node it expands)?"""
        return self.planner == "mcts" or self.simulator == "model" or self.rollout_policy == "model"


@dataclass
class PlanStats:
    """What planning cost: moves decided, the model tokens its rollouts fed, token steps (forward passes), seconds."""

    moves: int = 0
    rollouts: int = 0
    rollout_tokens: int = 0
    rollout_passes: int = 0
    seconds: float = 0.0  # the whole controller: the real history's pass, the rollouts and the choice

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        if self.moves:
            out |= {
                "tokens_per_move": round(self.rollout_tokens / self.moves, 1),
                "seconds_per_move": round(self.seconds / self.moves, 5),
                "moves_per_second": round(self.moves / self.seconds, 2) if self.seconds else None,
            }
        return out


class PlannerAgent(ModelAgent):
    """A GameGPT that chooses player 0's input by searching: `PlannerConfig` says how (see the module)."""

    name = PLANNER

    def __init__(
        self,
        model: GameGPT,
        tokenizer: GameTokenizer,
        game: GameSpec,
        config: Any,
        codec: CodecConfig | None = None,
        *,
        plan: PlannerConfig | None = None,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        super().__init__(model, tokenizer, game, config, codec, temperature=0.0, batch_size=batch_size, recompute=False)
        self.plan = plan or PlannerConfig()
        game.planner_outcome([])  # a game no planner can score refuses here, in one line
        if self.plan.simulator == "rules":
            game.simulate_tick  # noqa: B018  (the method; it refuses when called on a game without one)
        if self.plan.rollout_policy == "heuristic":
            game.planner_input([], [], (), config, 0.0)  # a game without one refuses here, in one line
        # the scripted rollout policy (rules only): an unknown agent is refused here, in one line
        self.scripted = game.input_policy(self.plan.rollout_policy, config) if self.plan.scripted else None
        self.automaton = game.automaton(config, self.codec)
        self.input_words = game.input_tokens(config)
        self.stop_words = frozenset(game.end_events) | {"EOS"}
        self.stats = PlanStats()

    @classmethod
    def from_checkpoint(  # type: ignore[override]
        cls, path: str | Path, *, plan: PlannerConfig | None = None, batch_size: int = DEFAULT_BATCH, device: str | torch.device = "cpu"
    ) -> PlannerAgent:
        """The planner on the model of a training checkpoint (.ckpt) or an exported model directory."""
        loaded = load_checkpoint(path, map_location=device)
        return cls(loaded.model, loaded.tokenizer, loaded.game_spec, loaded.game, loaded.codec, plan=plan, batch_size=batch_size)

    def fingerprint(self, config: Any, codec: CodecConfig, seed: int, opponents: dict[str, float] | None) -> str:
        from gamegrammar.act.play_journal import play_fingerprint

        return play_fingerprint({"model": super().fingerprint(config, codec, seed, opponents), "plan": asdict(self.plan)})

    def controller(self, log: TokenTap) -> _PlanningController:  # type: ignore[override]
        return _PlanningController(self, log)


def _log_softmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities of the allowed inputs under the model's scores (0 where not allowed: never chosen anyway)."""
    z = np.where(mask, scores, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return np.where(mask, z - np.log(np.exp(z).sum(axis=1, keepdims=True)), 0.0)


@dataclass
class _Branch:
    """One rollout: what it wrote, its grammar state, its ticks, and (on the rules) its state and queued tokens."""

    game: int  # position in the controller's `games`
    input: int  # the root input, a position in the input tokens
    auto: tuple
    words: list[str] = field(default_factory=list)
    ticks: int = 1  # the root tick counts
    state: Any = None
    queue: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # the tick's inputs chosen so far (rules)
    alive: bool = True
    tree: _Tree | None = None  # MCTS: the game's search tree while the branch is in it (None once it left)
    path: list[tuple[tuple[int, ...], int]] = field(default_factory=list)  # MCTS: (node, input) pairs it took


@dataclass
class _Node:
    """One of player 0's decisions in the tree (open loop: the inputs from the root name it, whatever chance did):
    the prior of each input, and its visits, in-flight visits and summed returns."""

    prior: np.ndarray
    legal: np.ndarray
    n: np.ndarray
    w: np.ndarray
    flight: np.ndarray
    doomed: np.ndarray  # visits that ended with player 0 out in the input's own tick

    def open(self) -> np.ndarray:
        """The legal inputs not refuted: an input whose every visit ended with player 0 out in its own tick is dropped
        while a sibling is not so refuted (on the rules the first such visit is a proof in Snake; on the model it is
        the model's own word)."""
        refuted = (self.n > 0) & (self.doomed >= self.n)
        keep = self.legal & ~refuted
        return keep if keep.any() else self.legal

    def played_visits(self) -> np.ndarray:
        """Each input's visits, for choosing the move played: -1 for a refuted input wherever an input not refuted
        was tried (a refuted one is played only where no sibling was tried and survived its tick)."""
        open_ = self.open()
        tried_open = (open_ & (self.n > 0)).any()
        return np.where(open_ | ~tried_open, self.n, -1)

    @classmethod
    def of(cls, scores: np.ndarray, legal: np.ndarray) -> _Node:
        """A node whose prior is the softmax of the model's scores over the legal inputs."""
        z = np.where(legal, scores, -np.inf)
        p = np.exp(z - z.max())
        zeros = np.zeros(len(scores))
        return cls(p / p.sum(), legal, zeros, zeros.copy(), zeros.copy(), zeros.copy())


class _Tree:
    """One game's search tree at one move: PUCT over normalised returns.

    A simulation's return (the lookahead's score of a rollout from the root) is backed up to every decision on its
    path. Returns are normalised by the least and greatest seen in this tree (as MuZero does), so that the exploration
    constant means the same whatever the death cost. An input not yet tried is valued as the best return seen
    (optimistic first play), so that every input of a node is tried once before the prior weighs between them: with
    the parent's mean instead, a confident prior that walks into a wall keeps every simulation on the wall until
    sqrt(N) outgrows its odds. One simulation still plays the prior's argmax."""

    def __init__(self, root: _Node, c_puct: float) -> None:
        self.root, self.c = root, c_puct
        self.nodes: dict[tuple[int, ...], _Node] = {(): root}
        self.lo, self.hi = np.inf, -np.inf

    def _q(self, x: np.ndarray | float) -> np.ndarray | float:
        return (x - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.0 * x

    def select(self, node: _Node) -> int:
        """The input PUCT picks (in-flight visits count as visits), marked in flight."""
        visits = node.n + node.flight
        q = np.where(node.n > 0, self._q(node.w / np.maximum(node.n, 1)), 1.0)
        u = self.c * node.prior * np.sqrt(max(visits.sum(), 1.0)) / (1.0 + visits)
        a = int(np.where(node.open(), q + u, -np.inf).argmax())
        node.flight[a] += 1
        return a

    def backup(self, path: list[tuple[tuple[int, ...], int]], value: float, out_tick: int) -> None:
        """A simulation's return to every decision on its path; `out_tick` the tick player 0 went out in (0: never)."""
        self.lo, self.hi = min(self.lo, value), max(self.hi, value)
        for depth, (key, a) in enumerate(path):
            node = self.nodes[key]
            node.flight[a] -= 1
            node.n[a] += 1
            node.w[a] += value
            node.doomed[a] += out_tick == depth + 1


class _PlanningController(_Controller):
    """The model agent's store and feeding, and the search on top: a rollout batch per tick."""

    def __init__(self, agent: PlannerAgent, log: TokenTap) -> None:
        super().__init__(agent, log)
        self.planner = agent
        if agent.plan.needs_model:  # a history slides early enough to leave its rollouts room in the context
            self.reserve = min(agent.plan.horizon * ROOM_PER_TICK, agent.model.config.block_size // 4)
        n = len(log.cursor)
        self.auto: list[tuple | None] = [None] * n  # each game's grammar state after log.ids[g, :auto_at[g]]
        self.auto_at = np.zeros(n, np.int64)
        self.state: list[Any] = [None] * n  # the rules' state (simulator="rules")
        self.masks: dict[frozenset[str], int] = {}
        self.mask_rows: list[np.ndarray] = []
        self.mask_table: torch.Tensor | None = None
        self.input_set = frozenset(agent.input_words)
        self.prompt = agent.game.input_prompt(agent.config)
        self.input_ids = torch.tensor([agent.tokenizer.ids[w] for w in agent.input_words], device=self.device)
        self.histories: list[list[str] | None] = []  # the games' real tokens at this move, where the search reads them

    def __call__(self, games: np.ndarray, mask: np.ndarray, draws: np.ndarray) -> np.ndarray:
        agent, start = self.planner, time.perf_counter()
        games = np.asarray(games, np.int64)
        before = self.fed[games].copy()
        prior = self.scores(games)  # the real history into the store; the model's own scores of the inputs
        roots = self._follow(games, before)
        mask, draws = np.asarray(mask, bool), np.asarray(draws, np.uint64)
        if agent.plan.planner == "mcts":
            choice = self._mcts(games, mask, draws, roots, prior)
        else:
            values = self._plan(games, mask, draws, roots)
            ranked = np.where(mask, values + agent.plan.prior_weight * _log_softmax(prior, mask), -np.inf)
            best = ranked.max(axis=1, keepdims=True)
            choice = np.where(ranked >= best - 1e-9, prior, -np.inf).argmax(axis=1)  # ties: the model's preference
        agent.stats.moves += len(games)
        agent.stats.seconds += time.perf_counter() - start
        return choice

    # ------------------------------------------------------------ following the real game

    def _words(self, g: int, lo: int, hi: int) -> list[str]:
        tokens = self.planner.tokenizer.tokens
        return [tokens[i] for i in self.log.ids[g, lo:hi]]

    def _follow(self, games: np.ndarray, before: np.ndarray) -> list[tuple[tuple, Any]]:
        """Each game's grammar state after its history and the prompt, and (rules) its real state now."""
        agent, auto_of = self.planner, self.planner.automaton
        game, config, codec = agent.game, agent.config, agent.codec
        prompt = game.input_prompt(config)
        roots = []
        for i, g in enumerate(games):
            cursor = int(self.log.cursor[g])
            state = self.auto[g] if self.auto[g] is not None else auto_of.start()
            for word in self._words(g, int(self.auto_at[g]), cursor):
                state = auto_of.step(state, word)
                if state is None:
                    raise GameGrammarError(f"the engine wrote a tick the grammar of {game.name} does not allow")
            self.auto[g], self.auto_at[g] = state, cursor
            for word in prompt:
                state = auto_of.step(state, word)
            real = None
            if agent.plan.simulator == "rules":  # the rules follow the real game, a tick at a time
                if before[i] == 0:
                    real = game.trace(self._words(g, 0, cursor), config)[0]
                else:
                    reading = game.read_tick(self.state[g], self._words(g, int(before[i]) - len(prompt), cursor), config, codec)
                    if reading.state is None:
                        raise GameGrammarError(f"the rules could not follow the real game of {game.name}: {reading.broken}")
                    real = reading.state
                self.state[g] = real
            roots.append((state, real))
        return roots

    # ------------------------------------------------------------ the search

    def _mask_index(self, auto: tuple) -> int:
        allowed = self.planner.automaton.allowed(auto)
        at = self.masks.get(allowed)
        if at is None:
            tok = self.planner.tokenizer
            row = np.zeros(len(tok), bool)
            row[[tok.ids[w] for w in allowed if w in tok.ids]] = True
            at = self.masks[allowed] = len(self.mask_rows)
            self.mask_rows.append(row)
            self.mask_table = None
        return at

    def _branches(
        self, games: np.ndarray, draws: np.ndarray, roots: list[tuple[tuple, Any]], inputs: np.ndarray, salt: int, streams: int = 0
    ):
        """Branches of every game from its root, `inputs[i]` the root inputs of game i's (the same count each; -1: not
        searched), in the store's row order, with their keys, their room in the context and a cache over the history.
        `streams` > 0: branch j of a game draws the j % streams-th stream of chance, so that the lookahead's inputs meet
        the same food and dice (common random numbers: their values differ by the input, not by luck)."""
        agent, plan = self.planner, self.planner.plan
        words, automaton = agent.input_words, agent.automaton
        prompt = agent.game.input_prompt(agent.config)
        per_game = inputs.shape[1]
        # Branches follow the store's row order (every running game has a row, and only they): a group per row.
        order = self.row[games]
        position = np.empty(len(games), np.int64)
        position[order] = np.arange(len(games))  # the game (position in `games`) of each store row
        branches: list[_Branch] = []
        for r in range(len(games)):
            i = int(position[r])
            auto, real = roots[i]
            for a in inputs[i]:
                b = _Branch(i, int(a), auto, state=real, alive=bool(a >= 0))
                if b.alive:
                    b.auto = automaton.step(auto, words[a])
                    b.words += [*prompt, words[a]]
                    if plan.simulator == "rules":
                        b.pending.append(words[a])
                branches.append(b)
        local = np.arange(per_game, dtype=np.uint64) % np.uint64(streams or per_game)
        local = np.tile(local, len(games)) + np.uint64(per_game * salt)
        keys = np.repeat(draws[position], per_game) ^ rng.mix64_np(local + np.uint64(0x9E3779B97F4A7C15))
        block = agent.model.config.block_size
        prefix = self.cached[self.game_of_row]
        room = np.repeat(block - prefix if plan.needs_model else np.full_like(prefix, 1 << 30), per_game)  # positions left to write
        steps = int(min(plan.horizon * plan.max_tick_tokens, room.max()))
        cache = None
        if plan.needs_model and steps > 0:
            cache = BranchCache(
                self.k[:, : len(games)],
                self.v[:, : len(games)],
                torch.from_numpy(prefix).to(self.device),
                per_game,
                steps,  # type: ignore[index]
            )
            cache.ticks = self.ticks[torch.from_numpy(self.game_of_row).to(self.device)].repeat_interleave(per_game)
        return branches, keys, room, steps, cache

    @torch.no_grad()  # without it each pass's graph is kept, through the cache, and memory grows by ~65 MB a move
    def _plan(self, games: np.ndarray, mask: np.ndarray, draws: np.ndarray, roots: list[tuple[tuple, Any]]) -> np.ndarray:
        """Each input's value in each game (games, inputs): the mean over its rollouts; masked inputs are not searched."""
        plan, words = self.planner.plan, self.planner.input_words
        inputs = np.repeat(np.where(mask, np.arange(len(words)), -1), plan.rollouts, axis=1)
        histories = self.histories = self._histories(games)
        branches = self._run(*self._branches(games, draws, roots, inputs, 0, streams=plan.rollouts))
        values = np.zeros((len(games), len(words)))
        for b in branches:
            if b.words:
                values[b.game, b.input] += self._value(b, histories[b.game]) / plan.rollouts
        return values

    def _histories(self, games: np.ndarray) -> list[list[str] | None]:
        """Each game's real tokens so far, where the leaf or the heuristic rollout policy reads them (None: neither is on)."""
        if not self.planner.plan.leaf_weight and self.planner.plan.rollout_policy != "heuristic":
            return [None] * len(games)
        return [self._words(int(g), 0, int(self.log.cursor[g])) for g in games]

    def _value(self, b: _Branch, history: list[str] | None = None) -> float:
        """A rollout's return (see the module): what player 0 gained, less the death cost (twice as much for a death now
        as at the horizon), plus the weighted heuristic where it lives on (`history`: its game's real tokens), each
        tick's part discounted."""
        plan, game = self.planner.plan, self.planner.game
        gain, out = game.planner_outcome(b.words)
        if plan.discount < 1 and gain:  # each tick's gain, scored off that tick's tokens alone
            starts = [i for i, w in enumerate(b.words) if w == game.tick_token] + [len(b.words)]
            ticks = [b.words[lo:hi] for lo, hi in itertools.pairwise(starts)]
            gain = sum(plan.discount**t * game.planner_outcome(tick)[0] for t, tick in enumerate(ticks))
        late = (b.ticks - 1) / plan.horizon  # 0 for a death in the root tick: sooner is worse
        end = plan.discount ** (b.ticks - 1)
        if out:
            return gain - plan.death_cost * (2 - late) * end
        leaf = game.planner_leaf([*history, *b.words]) if plan.leaf_weight and history is not None else 0.0
        return gain + plan.leaf_weight * leaf * end

    @torch.no_grad()
    def _mcts(
        self, games: np.ndarray, mask: np.ndarray, draws: np.ndarray, roots: list[tuple[tuple, Any]], prior: np.ndarray
    ) -> np.ndarray:
        """PUCT over player 0's inputs, the model's policy as the prior: each game's input visited most (see `_Tree`)."""
        plan = self.planner.plan
        trees = [_Tree(_Node.of(prior[i], mask[i]), plan.c_puct) for i in range(len(games))]
        histories = self.histories = self._histories(games)
        done = 0
        while done < plan.simulations:
            width = min(plan.parallel_simulations, plan.simulations - done)
            inputs = np.array([[t.select(t.root) for _ in range(width)] for t in trees], np.int64)
            made = self._branches(games, draws, roots, inputs, done)
            for b in made[0]:
                b.tree, b.path = trees[b.game], [((), b.input)]
            for b in self._run(*made):
                out = self.planner.game.planner_outcome(b.words)[1]
                trees[b.game].backup(b.path, self._value(b, histories[b.game]), b.ticks if out else 0)
            done += width
        visits = np.stack([t.root.played_visits() for t in trees])
        most = mask & (visits >= visits.max(axis=1, keepdims=True))
        return np.where(most, prior, -np.inf).argmax(axis=1)  # ties: the model's preference

    def _run(self, branches: list[_Branch], keys: np.ndarray, room: np.ndarray, steps: int, cache: BranchCache | None) -> list[_Branch]:
        """Write the branches forward, a token per pass, until each stops (horizon, end, context)."""
        agent, plan = self.planner, self.planner.plan
        tok, automaton, game = agent.tokenizer, agent.automaton, agent.game
        fed = np.array([tok.ids[b.words[-1]] if b.alive else tok.pad_id for b in branches], np.int64)  # the root input
        for b, r in zip(branches, room, strict=True):
            if b.alive and r < 1:
                b.alive = False
        for n, b in enumerate(branches):
            if b.alive and plan.simulator == "rules":
                b.queue = self._simulate(b, int(keys[n]))  # the root tick (the others' inputs: the rules' default policy)
        # MCTS on the rules with random rollouts reads the model only in the tree: once every branch has left it, the
        # rest of the simulation is the rules' and the dice's alone.
        model_free = plan.planner == "mcts" and plan.simulator == "rules" and plan.rollout_policy in ("random", "heuristic")
        for step in range(steps):
            alive = np.array([b.alive for b in branches])
            if not alive.any():
                break
            if model_free and cache is not None and not any(b.alive and b.tree is not None for b in branches):
                cache = None
            logits = None
            if cache is not None:
                real = torch.from_numpy(alive[:, None]).to(self.device)
                out, _ = agent.model(torch.from_numpy(fed[:, None]).to(self.device), cache=cache, real=real)
                logits = out.float()
                agent.stats.rollout_tokens += int(alive.sum())
                agent.stats.rollout_passes += 1
            u = uniform(rng.mix64_np(keys ^ np.uint64(step + 1)))
            picks = self._sample(logits, [b for b in branches if b.alive], u[alive])
            for j, n in enumerate(np.flatnonzero(alive)):
                b = branches[n]
                # the rules' chance and a scripted policy's draws are keyed by the tick: the branch's key alone seeds them,
                # so that branches sharing a stream meet the same food where they eat in the same tick
                word = self._next(b, picks[j], u[n], int(keys[n]), None if logits is None else logits[j])
                if word is None:
                    continue
                b.words.append(word)
                b.auto = automaton.step(b.auto, word)
                if word in agent.stop_words or b.auto is None or step + 2 > room[n]:
                    b.alive = False
                elif word == game.tick_token:
                    b.ticks += 1
                    if b.ticks > plan.horizon:
                        b.alive = False
                fed[n] = tok.ids[word]
        agent.stats.rollouts += sum(1 for b in branches if b.words)
        return branches

    def _sample(self, logits: torch.Tensor | None, alive: list[_Branch], u: np.ndarray) -> np.ndarray:
        """The model's draw for each alive branch under its grammar mask, at the rollout temperature (-1: no model)."""
        if logits is None:
            return np.full(len(alive), -1, np.int64)
        index = torch.tensor([self._mask_index(b.auto) for b in alive], dtype=torch.long)
        if self.mask_table is None:
            self.mask_table = torch.from_numpy(np.stack(self.mask_rows)).to(self.device)
        allowed = self.mask_table[index.to(self.device)]
        z = torch.where(allowed, logits / self.planner.plan.temperature, torch.full_like(logits, -torch.inf))
        p = torch.softmax(z, dim=-1)
        cdf = torch.cumsum(p, dim=-1)
        pick = (cdf <= torch.from_numpy(u).to(cdf)[:, None] * cdf[:, -1:]).sum(dim=-1)
        pick = torch.minimum(pick, torch.tensor(logits.shape[1] - 1, device=pick.device))
        return pick.cpu().numpy()

    def _next(self, b: _Branch, pick: int, u: float, seed: int, logits: torch.Tensor | None) -> str | None:
        """The branch's next token: a queued rules token, an input (the tree's, else the rollout policy's), the one
        token the grammar allows, or the model's draw."""
        agent, plan = self.planner, self.planner.plan
        if b.queue:
            return b.queue.pop(0)
        allowed = agent.automaton.allowed(b.auto)
        if allowed and allowed <= self.input_set:  # an input slot
            word = None
            if b.tree is not None and b.words[-len(self.prompt) :] == self.prompt:  # player 0's, in the tree
                word = self._descend(b, allowed, logits)
            if word is None and plan.rollout_policy == "heuristic":
                word = agent.game.planner_input(self.histories[b.game] or [], b.words, allowed, agent.config, u)
            if word is None and plan.rollout_policy in ("random", "heuristic"):
                options = sorted(allowed, key=agent.input_words.index)
                word = options[min(int(u * len(options)), len(options) - 1)]
            elif word is None and agent.scripted is not None:  # its draws: the planner's seed for this branch and step
                agent.scripted.reset(seed & ((1 << 63) - 1), 0)
                word = agent.scripted.inputs(b.state)[0]
            elif word is None:
                word = agent.tokenizer.tokens[pick]
            if plan.simulator == "rules":
                b.pending.append(word)
                b.queue = self._simulate(b, seed, 1)
            return word
        if len(allowed) == 1:
            return next(iter(allowed))
        if plan.simulator == "rules" or pick < 0:
            raise GameGrammarError(f"the rules' rollout of {agent.game.name} left a token to the model after {b.words[-3:]}")
        return agent.tokenizer.tokens[pick]

    def _descend(self, b: _Branch, allowed: frozenset[str], logits: torch.Tensor | None) -> str | None:
        """MCTS at player 0's input slot: PUCT where the node was reached before; else it is the leaf: its prior is the
        model's policy here (over the allowed inputs), and the branch leaves the tree for the rollout policy."""
        assert b.tree is not None and logits is not None
        words = self.planner.input_words
        node_key = (*b.path[-1][0], b.path[-1][1])
        node = b.tree.nodes.get(node_key)
        if node is None:
            legal = np.array([w in allowed for w in words])
            b.tree.nodes[node_key] = _Node.of(logits[self.input_ids].cpu().numpy().astype(np.float64), legal)
            b.tree = None
            return None
        a = b.tree.select(node)
        b.path.append((node_key, a))
        return words[a]

    def _simulate(self, b: _Branch, seed: int, unwritten: int = 0) -> list[str]:
        """The rules' tick on the branch's inputs: the tokens after those the branch wrote (and the `unwritten` it is
        about to write), then the next tick token."""
        agent = self.planner
        state, written, ended = agent.game.simulate_tick(b.state, b.pending, agent.config, agent.codec, seed & ((1 << 63) - 1))
        tick = len(b.words) - 1 - b.words[::-1].index(agent.game.tick_token)  # the tick's tokens so far: written[:len]
        b.state, b.pending = state, []
        return written[len(b.words) - tick + unwritten :] + ([] if ended else [agent.game.tick_token])
