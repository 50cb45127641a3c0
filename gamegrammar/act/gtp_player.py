"""The model as a player of a turn-based game's protocol engine (Go's GTP): it chooses the move the engine asks for.

The engine (the game's rules) keeps the game and writes it in the model's grammar, the opponent's moves included,
up to the tick token of the move asked for; `ModelPolicy` reads that sequence and samples one of the moves the rules
allow there at a temperature (the model's distribution restricted to the legal moves and renormalised: the mask
decides legality, the model only which legal move). A game longer than the model's context is read in its last
context's tokens, with the game clock of the ticks before them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model.gpt import GameGPT

DEFAULT_TEMPERATURE = 1.0  # the model's own distribution over legal moves (the one strict validity is measured at)


class ModelPolicy:
    """`policy(tokens, legal) -> token`: one move sampled among `legal` after the sequence `tokens` (which ends with
    the tick token of the move to choose). Seeded: the same games and seed give the same moves."""

    def __init__(self, model: GameGPT, tokenizer: GameTokenizer, temperature: float = DEFAULT_TEMPERATURE, seed: int = 0) -> None:
        if not temperature >= 0:
            raise GameGrammarError(f"--temperature must be >= 0 (0: the most likely legal move), got {temperature}")
        self.model, self.tokenizer, self.temperature = model.eval(), tokenizer, temperature
        self.device = next(model.parameters()).device
        self.generator = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def logits(self, tokens: Sequence[str]) -> torch.Tensor:
        """The model's next-token logits after `tokens` (its last context of them, with the clock of the earlier ones)."""
        ids = self.tokenizer.encode(list(tokens))
        context = self.model.config.block_size
        start = max(0, len(ids) - context)
        window = torch.tensor([ids[start:]], device=self.device)
        cache = self.model.new_cache(1, window.shape[1])
        tick_id = self.model.config.tick_id
        cache.ticks = torch.tensor([sum(i == tick_id for i in ids[:start])], device=self.device)
        return self.model(window, cache=cache)[0][0, -1].float().cpu()

    def __call__(self, tokens: Sequence[str], legal: Sequence[str]) -> str:
        if not legal:
            raise GameGrammarError("no legal move to choose from")
        logits = self.logits(tokens)[[self.tokenizer.ids[t] for t in legal]]
        if self.temperature == 0:
            return legal[int(logits.argmax())]
        probs = torch.softmax(logits / self.temperature, -1)
        return legal[int(torch.multinomial(probs, 1, generator=self.generator))]
