"""Batched generation with the KV cache.

All rows of a batch advance together, so they share the cache position. Prompts
of different lengths are handled by prefilling the shortest common prefix and
then *forcing* each row's remaining prompt tokens through the decode loop. Rows
that finish (EOS or the length cap) leave the batch and the cache, so they stop
costing work (in bulk, once a quarter of the rows are done, since leaving copies the cache). When the cache is full (the sequence is longer than the model's
context) the window slides: the cache is rebuilt from the last half-context of
every row. Models whose context covers whole episodes never slide.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch
from torch import Tensor

from gamegrammar.errors import GameGrammarError
from gamegrammar.gamespec import Automaton
from gamegrammar.model import GameGPT
from gamegrammar.tokenizer import GameTokenizer


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


class GrammarMask:
    """Grammar-constrained decoding: per-row automaton states and the [rows, vocab] mask they allow."""

    def __init__(self, tokenizer: GameTokenizer, automaton: Automaton, device: torch.device) -> None:
        self.automaton = automaton
        self.tokenizer, self.device = tokenizer, device
        self._masks: dict[frozenset[str], Tensor] = {}

    def start(self) -> tuple:
        return self.automaton.start()

    def mask(self, states: list[tuple]) -> Tensor:
        rows = []
        for state in states:
            allowed = self.automaton.allowed(state)
            if allowed not in self._masks:
                m = torch.zeros(len(self.tokenizer), dtype=torch.bool, device=self.device)
                m[[self.tokenizer.ids[t] for t in allowed]] = True
                self._masks[allowed] = m
            rows.append(self._masks[allowed])
        return torch.stack(rows)

    def step(self, state: tuple, token_id: int) -> tuple:
        token = self.tokenizer.tokens[token_id]
        nxt = self.automaton.step(state, token)
        if nxt is None:
            raise GameGrammarError(f"the grammar does not allow {token!r} here (state {state[0]}): is the prompt a valid prefix?")
        return nxt


@dataclass
class SamplingStats:
    sequences: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0
    slides: int = 0

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.seconds if self.seconds else 0.0


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


@torch.no_grad()
def generate(
    model: GameGPT,
    prompts: list[list[int]],
    eos_id: int,
    config: SamplingConfig | None = None,
    stats: SamplingStats | None = None,
    grammar: tuple[GameTokenizer, Automaton] | None = None,
) -> list[list[int]]:
    """Continue every prompt until EOS or `config.max_length` tokens; returns whole sequences (prompt included).

    `grammar` (the tokenizer and the game's grammar automaton, `GameSpec.automaton(config)`) is needed only
    with `config.constrained`.
    """
    config = config or SamplingConfig()
    if config.constrained and grammar is None:
        raise GameGrammarError("constrained sampling needs the tokenizer and the game's grammar automaton")
    if not prompts or any(not p for p in prompts):
        raise GameGrammarError("every prompt needs at least one token")
    if max(map(len, prompts)) > config.max_length:
        raise GameGrammarError(f"a prompt is longer than max_length ({config.max_length})")
    stats = stats if stats is not None else SamplingStats()
    model.eval()
    device = next(model.parameters()).device
    generator = torch.Generator(device=device).manual_seed(config.seed)
    mask = GrammarMask(*grammar, device) if config.constrained and grammar is not None else None
    out: list[list[int]] = []
    start = time.perf_counter()
    for first in range(0, len(prompts), config.batch_size):
        out += _generate_batch(model, prompts[first : first + config.batch_size], eos_id, config, generator, device, stats, mask)
    if device.type == "cuda":
        torch.cuda.synchronize()
    stats.seconds += time.perf_counter() - start
    stats.sequences += len(prompts)
    return out


def _generate_batch(
    model: GameGPT,
    prompts: list[list[int]],
    eos_id: int,
    config: SamplingConfig,
    generator: torch.Generator,
    device: torch.device,
    stats: SamplingStats,
    mask: GrammarMask | None = None,
) -> list[list[int]]:
    B, cap = len(prompts), config.max_length
    context = model.config.block_size
    tokens = torch.zeros(B, cap, dtype=torch.long, device=device)
    prompt_len = torch.tensor([len(p) for p in prompts], device=device)
    for i, p in enumerate(prompts):
        tokens[i, : len(p)] = torch.tensor(p, device=device)
    lengths = torch.full((B,), cap, device=device)  # final length of each row
    active = torch.arange(B, device=device)  # rows in the cache, in cache order
    alive = torch.ones(B, dtype=torch.bool, device=device)  # ... of which these are still being written
    length = int(prompt_len.min())  # every active row holds `length` tokens
    tick_id = model.config.tick_id

    def prefill(window: int) -> tuple[Tensor, object]:
        cache = model.new_cache(len(active), min(context, cap))
        # the game clock of a window that starts mid-episode: the ticks before it (rows hold one episode each)
        if tick_id is not None:
            cache.ticks = (tokens[active, : length - window] == tick_id).sum(1)
        logits, _ = model(tokens[active, length - window : length], cache=cache)
        return logits[:, -1], cache

    last, cache = prefill(min(length, context))
    states: list[tuple] = []
    if mask is not None:
        for p in prompts:
            state = mask.start()
            for t in p[:length]:
                state = mask.step(state, t)
            states.append(state)
    while True:
        forced = length < prompt_len[active]
        if mask is not None:
            allowed = mask.mask([states[r] for r in active.tolist()])
            allowed[~alive] = True  # finished rows riding along until compaction: anything goes, nothing is kept
            last = last.masked_fill(~allowed, float("-inf"))
        sampled = next_tokens(last, config, generator)
        chosen = torch.where(forced, tokens[active, length], sampled)
        tokens[active[alive], length] = chosen[alive]
        if mask is not None:
            for r, t, a in zip(active.tolist(), chosen.tolist(), alive.tolist()):
                if a:
                    states[r] = mask.step(states[r], t)
        stats.generated_tokens += int((~forced & alive).sum())
        length += 1
        done = alive & ((~forced & (chosen == eos_id)) | (length >= cap))
        if bool(done.any()):
            lengths[active[done]] = length
            alive &= ~done
            if not bool(alive.any()):
                break
            # Finished rows leave the cache in bulk: a compaction copies the whole cache, so wait
            # until a quarter of the rows are finished (until then they ride along, unwritten).
            if int((~alive).sum()) * 4 >= len(active):
                keep = torch.nonzero(alive).squeeze(-1)
                active, alive, chosen = active[keep], alive[keep], chosen[keep]
                cache.select(keep)
        if cache.pos == cache.max_len:  # the context is full: slide the window
            stats.slides += 1
            last, cache = prefill(max(1, context // 2))
        else:
            logits, _ = model(chosen[:, None], cache=cache)
            last = logits[:, -1]
    return [tokens[i, : lengths[i]].tolist() for i in range(B)]
