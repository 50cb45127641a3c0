"""The model plans a turn-based game's moves (Go through GTP): before each genmove it searches inside its own dreams.

`PlannerPolicy` takes `ModelPolicy`'s place in the GTP engine. Given the game so far (up to the tick token of the move
asked for) and the legal moves, it keeps the model's `candidates` most likely legal moves (its policy as the prior,
the usual pruning of a wide game), and for each writes `rollouts` continuations `horizon` plies long:

- `simulator="model"`: the model writes them, the candidate forced: the captures it says the move makes, both
  players' later moves and theirs, sampled from its own distribution at `temperature` (a dream: nothing here reads
  the rules). Every rollout of every candidate goes through one forward pass per token, continuing the real game's
  cached history (`gpt.BranchCache`: the history is computed once per move, never copied per rollout).
- `simulator="rules"`: the rules write them from the real game (`GameSpec.simulate_plies`: the game's cheap default
  policy for both players, its draws from the planner's seed), the upper bound of planning in the dreams.

A rollout is scored off its tokens alone (`GameSpec.planner_value`: Go's area margin, with komi, of the board the
tokens wrote, for the player to move, or the result where one is written); a candidate's value is the mean of its
rollouts', and the best is played, ties going to the model's preference. Draws are a function of (seed, the move's
tick, the rollout), so a game is a function of the moves played, the model and the settings.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from gamegrammar.act.gtp_player import ModelPolicy
from gamegrammar.act.planner import PlanStats
from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, GameSpec
from gamegrammar.model.gpt import BranchCache

SIMULATORS = ("model", "rules")
ROLLOUT_DRAW = 0x6774  # the purpose of the planner's own draws (rng.draw), apart from the engine's


@dataclass(frozen=True)
class TurnPlanConfig:
    """How the planner searches: `rollouts` continuations of `horizon` plies for each of the model's `candidates`
    most likely legal moves, in `simulator`."""

    candidates: int = 8
    rollouts: int = 4
    horizon: int = 8
    simulator: str = "model"
    temperature: float = 1.0  # the dream's sampling temperature (the model simulator)
    max_ply_tokens: int = 12  # a dream's room per ply (a move, TAKE and its stones); it stops where its room ends

    def __post_init__(self) -> None:
        for name in ("candidates", "rollouts", "horizon", "max_ply_tokens"):
            if getattr(self, name) < 1:
                raise GameGrammarError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.simulator not in SIMULATORS:
            raise GameGrammarError(f"--simulator must be one of {', '.join(SIMULATORS)}, got {self.simulator!r}")
        if not self.temperature > 0:
            raise GameGrammarError(f"--rollout-temperature must be > 0, got {self.temperature}")


class PlannerPolicy:
    """`policy(tokens, legal) -> token`, as `ModelPolicy`, with a search before each move (see the module)."""

    def __init__(self, policy: ModelPolicy, game: GameSpec, config: Any, codec: CodecConfig, plan: TurnPlanConfig, seed: int = 0) -> None:
        game.planner_value([], [], config)  # a game without a turn planner refuses here, in one line
        self.policy, self.game, self.config, self.codec, self.plan, self.seed = policy, game, config, codec, plan, seed
        self.model, self.tokenizer = policy.model, policy.tokenizer
        self.stop_ids = {self.tokenizer.ids[w] for w in ("EOS", *game.end_events) if w in self.tokenizer.ids}
        self.tick_id = self.tokenizer.ids[game.tick_token]
        self.stats = PlanStats()
        self.last_values: dict[str, float] = {}  # the last move's candidates and their values

    def __call__(self, tokens: Sequence[str], legal: Sequence[str]) -> str:
        if not legal:
            raise GameGrammarError("no legal move to choose from")
        start = time.perf_counter()
        plan, history = self.plan, list(tokens)
        ticks = sum(w == self.game.tick_token for w in history)
        prior, cache = self._prefix(history)
        scores = prior[[self.tokenizer.ids[t] for t in legal]]
        order = [legal[i] for i in torch.argsort(scores, descending=True, stable=True)[: plan.candidates].tolist()]
        moves = [m for m in order for _ in range(plan.rollouts)]
        keys = [rng.draw(self.seed, ticks, k, ROLLOUT_DRAW) for k in range(len(moves))]
        if plan.simulator == "model":
            rollouts = self._dream(cache, moves, keys[0], len(history))
        else:
            rollouts = [
                self.game.simulate_plies(history, m, plan.horizon, self.config, self.codec, key) for m, key in zip(moves, keys, strict=True)
            ]
        values = np.zeros(len(order))
        for n, words in enumerate(rollouts):
            values[n // plan.rollouts] += self.game.planner_value(history, words, self.config) / plan.rollouts
        best = order[int(np.argmax(values))]  # the first best: ties go to the model's preference
        self.stats.moves += 1
        self.stats.rollouts += len(rollouts)
        self.stats.seconds += time.perf_counter() - start
        self.last_values = dict(zip(order, values.round(3).tolist(), strict=True))
        return best

    def _room(self, length: int) -> tuple[int, int]:
        """(the window's first token, the dream's tokens): a history longer than the context leaves the dream room."""
        context = self.model.config.block_size
        steps = self.plan.horizon * self.plan.max_ply_tokens if self.plan.simulator == "model" else 0
        steps = min(steps, context // 2)
        return max(0, length - (context - steps)), steps

    @torch.no_grad()
    def _prefix(self, history: list[str]) -> tuple[torch.Tensor, Any]:
        """The model's logits after the real game (its prior) and the cache of the history's window."""
        ids = self.tokenizer.encode(history)
        first, _ = self._room(len(ids))
        window = torch.tensor([ids[first:]], device=self.policy.device)
        cache = self.model.new_cache(1, window.shape[1])
        cache.ticks = torch.tensor([sum(i == self.tick_id for i in ids[:first])], device=self.policy.device)
        logits = self.model(window, cache=cache)[0][0, -1].float().cpu()
        return logits, cache

    @torch.no_grad()
    def _dream(self, cache: Any, moves: list[str], seed: int, length: int) -> list[list[str]]:
        """Each rollout written by the model from its forced move on, all in one batch, a token per pass, its draws
        from `seed`."""
        plan, tok = self.plan, self.tokenizer
        _, steps = self._room(length)
        n = len(moves)
        device = self.policy.device
        branches = BranchCache(cache.k, cache.v, torch.tensor([cache.pos], device=device), n, steps + 1)
        branches.ticks = cache.ticks.repeat(n)
        words: list[list[str]] = [[m] for m in moves]
        fed = torch.tensor([tok.ids[m] for m in moves], device=device)
        alive = np.ones(n, bool)
        plies = np.ones(n, np.int64)
        generator = torch.Generator().manual_seed(seed & ((1 << 63) - 1))
        for _ in range(steps):
            logits = self.model(fed[:, None], cache=branches)[0][:, -1].float().cpu()
            self.stats.rollout_tokens += int(alive.sum())
            self.stats.rollout_passes += 1
            picks = torch.multinomial(torch.softmax(logits / plan.temperature, -1), 1, generator=generator)[:, 0]
            for i in np.flatnonzero(alive):
                pick = int(picks[i])
                if pick == self.tick_id:
                    plies[i] += 1
                    if plies[i] > plan.horizon:  # the next ply is past the horizon
                        alive[i] = False
                        continue
                words[i].append(tok.tokens[pick])
                if pick in self.stop_ids:
                    alive[i] = False
            if not alive.any():
                break
            fed = picks.to(device)
        return words
