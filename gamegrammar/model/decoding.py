"""What a draw from the model's next-token distribution is: the settings, the filters, the count of what was drawn.

Shared by the plain decode loop (`sampling`) and the one that verifies a rules draft (`speculative`). A sampled
token is the inverse of the distribution's CDF at a uniform number keyed by (seed, sequence, position)
(`gamegrammar.core.rng`): a sequence's draws depend on nothing else, not on the batch it is in, on which rows
finished, or on how many tokens a pass wrote. So both loops write the same samples for a seed (up to rounding of
the logits), any batch size writes the same samples, and an interrupted run carries on exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from gamegrammar.core import rng
from gamegrammar.core.errors import GameGrammarError


@dataclass(frozen=True)
class SamplingConfig:
    temperature: float = 1.0  # 0 = greedy argmax
    top_k: int | None = None
    top_p: float | None = None
    max_length: int = 2048  # total tokens per sequence, prompt included
    batch_size: int = 256
    seed: int = 0
    # Mask tokens the grammar forbids next (an action mask). A user feature; headline numbers never use it.
    constrained: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.temperature < math.inf:  # also refuses nan
            raise GameGrammarError(f"temperature must be a finite number >= 0, got {self.temperature}")
        if self.top_k is not None and self.top_k < 1:
            raise GameGrammarError(f"top_k must be >= 1, got {self.top_k}")
        if self.top_p is not None and not 0 < self.top_p <= 1:  # nan fails this too
            raise GameGrammarError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_length < 2:
            raise GameGrammarError(f"max_length must be >= 2, got {self.max_length}")
        if self.batch_size < 1:
            raise GameGrammarError(f"batch_size must be >= 1, got {self.batch_size}")


@dataclass
class SamplingStats:
    sequences: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0
    slides: int = 0
    passes: int = 0  # forward passes after the prompts' prefill
    proposed: int = 0  # tokens a rules draft proposed (speculative sampling), and those the model's draws kept
    accepted: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds else 0.0

    @property
    def tokens_per_pass(self) -> float:
        return self.generated_tokens / self.passes if self.passes else 0.0


def filter_logits(logits: Tensor, top_k: int | None, top_p: float | None) -> Tensor:
    """Set to -inf every logit outside the top k and outside the top-p nucleus."""
    if top_k is not None and top_k < logits.size(-1):
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1:
        sorted_logits, order = torch.sort(logits, descending=True, dim=-1)
        cumulative = torch.softmax(sorted_logits, dim=-1).cumsum(-1)
        drop = cumulative - torch.softmax(sorted_logits, dim=-1) >= top_p  # keep the token that crosses p
        logits = logits.masked_fill(drop.scatter(-1, order, drop), float("-inf"))
    return logits


def next_tokens(logits: Tensor, config: SamplingConfig, generator: torch.Generator) -> Tensor:
    if config.temperature == 0:
        return logits.argmax(-1)
    logits = filter_logits(logits.float() / config.temperature, config.top_k, config.top_p)
    return torch.multinomial(torch.softmax(logits, -1), 1, generator=generator).squeeze(-1)


def keyed_uniforms(seed: int, sequences: np.ndarray, positions: np.ndarray, device: torch.device) -> Tensor:
    """The uniform number in [0, 1) that picks the token at each (sequence, position) of a seed."""
    bits = rng.draw_np(seed, np.asarray(sequences, np.int64), np.asarray(positions, np.int64), rng.Purpose.TOKEN)
    return torch.from_numpy((bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))).to(device)


def keyed_tokens(logits: Tensor, config: SamplingConfig, u: Tensor | None) -> Tensor:
    """One token per row of logits [rows, vocab]: the argmax at temperature 0, else the filtered distribution's
    inverse CDF at u [rows] (a token of probability 0 is never picked)."""
    if config.temperature == 0 or u is None:
        return logits.argmax(-1)
    probs = torch.softmax(filter_logits(logits.float() / config.temperature, config.top_k, config.top_p), -1)
    cdf = probs.double().cumsum(-1)
    at = (u.to(cdf.dtype) * cdf[:, -1])[:, None]
    return torch.searchsorted(cdf, at, right=True).squeeze(-1).clamp_(max=logits.size(-1) - 1)
