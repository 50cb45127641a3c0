"""A trained model as a policy in these environments: it reads the episode's tokens and writes the next input.

The model learned episodes as `... TICK <input> <outcome> ...`: after the tick token it predicts the agent's input.
`ModelPolicy` keeps the episode's tokens from each step's `info["tokens"]`, appends the game's tick token and reads
the model's distribution over the game's input tokens (`GameSpec.input_tokens`, whose order is the environment's
action order), restricted to the inputs `info["action_mask"]` allows, at a chosen temperature. Sampling uses its own
seeded generator, so a policy with the same seed plays the same game. The KV cache carries over from step to step, so
a step costs the new tokens only (a sliding window past the model's context, as in `gamegrammar.model.sampling`).

For games with one input per tick written right after the tick token (Snake); make the environment with
`env_kwargs` so that it writes the tokens the model was trained on (board, tick limit, codec). For many games at
once, on any game's batch engine, `gamegrammar.act.play.ModelAgent` makes the same choice for a whole batch per forward pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import CodecConfig, GameSpec
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model.gpt import GameGPT, KVCache
from gamegrammar.training.checkpoint import load_checkpoint


class ModelPolicy:
    """`policy(obs, info) -> action`: a GameGPT choosing among the allowed inputs."""

    def __init__(
        self,
        model: GameGPT,
        tokenizer: GameTokenizer,
        game: GameSpec,
        config: Any,
        codec: CodecConfig | None = None,
        *,
        temperature: float = 1.0,
        seed: int = 0,
    ) -> None:
        if not 0 <= temperature < float("inf"):
            raise GameGrammarError(f"temperature must be a finite number >= 0, got {temperature}")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.game, self.config = game, config
        self.codec = codec or CodecConfig()
        self.temperature = float(temperature)
        self.seed = seed
        self.inputs = list(game.input_tokens(config))
        self.input_ids = torch.tensor(tokenizer.encode(self.inputs))
        self.tick_id = tokenizer.ids[game.tick_token]
        self.generator = torch.Generator().manual_seed(seed)
        self.history: list[int] = []  # the episode's token ids so far
        self._cache: KVCache | None = None
        self._fed: list[int] = []  # the ids the cache has seen, from the episode's start (it may hold only a window)

    @classmethod
    def from_checkpoint(cls, path: str | Path, *, temperature: float = 1.0, seed: int = 0, device: str = "cpu") -> ModelPolicy:
        """The model of a training checkpoint (.ckpt) or an exported model directory."""
        loaded = load_checkpoint(path, map_location=device)
        return cls(loaded.model, loaded.tokenizer, loaded.game_spec, loaded.game, loaded.codec, temperature=temperature, seed=seed)

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """Keyword arguments that make an environment write this model's tokens: its game config and codec."""
        return {**self.config.to_dict(), **self.codec.to_dict()}  # the game's grammar options too (tail events, tails)

    def reset(self, seed: int | None = None) -> None:
        """Forget the episode (a reset's tokens, starting with BOS, do this too); reseed the sampler if `seed` is given."""
        self.history, self._cache, self._fed = [], None, []
        if seed is not None:
            self.seed = seed
            self.generator.manual_seed(seed)

    def observe(self, tokens: Sequence[str]) -> None:
        """Add a step's (or a reset's) tokens to the episode."""
        try:
            ids = self.tokenizer.encode(tokens)
        except GameGrammarError as err:
            raise GameGrammarError(f"{err}: make the environment with this policy's env_kwargs ({self.env_kwargs})") from None
        if ids and ids[0] == self.tokenizer.bos_id:
            self.reset()
        self.history += ids

    def __call__(self, obs: Any, info: dict[str, Any]) -> int:
        """The action for the step after `info` (the info of the last reset or step)."""
        if "tokens" not in info or "action_mask" not in info:
            raise GameGrammarError('ModelPolicy reads info["tokens"] and info["action_mask"]; this environment gives neither')
        self.observe(info["tokens"])
        return self.act(info["action_mask"])

    def act(self, action_mask: Sequence[int] | np.ndarray | None = None) -> int:
        """Sample the next input among those `action_mask` allows (all when None); its index is the action."""
        if not self.history:
            raise GameGrammarError("the policy has seen no episode yet: pass it the info of a reset first")
        mask = np.ones(len(self.inputs), bool) if action_mask is None else np.asarray(action_mask).astype(bool)
        if mask.shape != (len(self.inputs),) or not mask.any():
            raise GameGrammarError(f"the action mask must allow at least one of {len(self.inputs)} actions, got {action_mask!r}")
        allowed = np.flatnonzero(mask)
        with torch.no_grad():
            logits = self._next_logits([*self.history, self.tick_id])
        scores = logits[self.input_ids[allowed].to(logits.device)].float().cpu()
        if self.temperature == 0:
            return int(allowed[int(scores.argmax())])
        probs = torch.softmax(scores / self.temperature, dim=-1)
        return int(allowed[int(torch.multinomial(probs, 1, generator=self.generator))])

    def _next_logits(self, ids: list[int]) -> torch.Tensor:
        """The model's logits after `ids`, feeding the cache only what it has not seen."""
        new = ids[len(self._fed) :]
        cache = self._cache
        if cache is None or ids[: len(self._fed)] != self._fed or not new or cache.pos + len(new) > cache.max_len:
            block = self.model.config.block_size
            start = 0 if len(ids) <= block else len(ids) - max(1, block // 2)  # past the context: the last half of it
            cache = self.model.new_cache(1)
            cache.ticks[:] = sum(1 for i in ids[:start] if i == self.tick_id)  # the game clock before the window
            new = ids[start:]
        device = cache.k.device
        logits, _ = self.model(torch.tensor([new], device=device), cache=cache)
        self._cache, self._fed = cache, list(ids)
        return logits[0, -1]
