"""GameGPT: a small causal transformer over game-event tokens, with a KV cache for sampling.

Written to be read in one sitting: token + learned position embeddings, pre-norm
blocks (attention through `scaled_dot_product_attention`, then an MLP), a final
LayerNorm and an output head tied to the token embedding. Decoding on a CPU attends
through our own kernels instead (`kernels.row_attention`, `kernels.branch_attention`), where they can be built.

The KV cache holds every layer's keys and values for a batch of sequences that
all sit at the same position `pos`; `forward(idx, cache=cache)` appends idx's
keys/values and advances `pos`, so sampling costs one token of work per step.
A cache with per-row `lengths` lets rows sit at different positions (games that
wrote different numbers of tokens), so one forward pass serves them all. A `BranchCache`
continues each row of such a cache several ways at once (a planner's rollouts), reading the
rows' shared history in place instead of copying it per branch.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import SPECIAL_TOKENS
from gamegrammar.model import kernels

IGNORE_INDEX = -100  # targets at PAD positions; skipped by the loss


@dataclass(frozen=True)
class GPTConfig:
    """The model's shape. vocab_size comes from the corpus tokenizer."""

    vocab_size: int = 252
    block_size: int = 1536  # the position table: the longest context the model can see
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
    bias: bool = True
    # Tick embedding: rows for 0..tick_table-1 ticks since the last BOS (0 = off). Derived from the tokens
    # themselves (a count of TICK tokens), it gives the model the game clock that TIMEOUT depends on,
    # as token positions give it the place in the sequence.
    tick_table: int = 0
    # Rotary position embeddings in attention instead of a learned position table: "the coordinate a few
    # tokens back" is then the same pattern at every position, which is most of what MOVE needs.
    rope: bool = False
    tick_id: int | None = None  # the game's tick token (GameSpec.tick_token), linked from the corpus like vocab_size
    bos_id: int = SPECIAL_TOKENS.index("BOS")  # every game's vocabulary starts with the special tokens

    def __post_init__(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            if getattr(self, name) < 1:
                raise GameGrammarError(f"model {name} must be at least 1, got {getattr(self, name)}")
        if self.n_embd % self.n_head:
            raise GameGrammarError(f"model n_embd ({self.n_embd}) must be divisible by n_head ({self.n_head})")
        if self.rope and (self.n_embd // self.n_head) % 2:
            raise GameGrammarError(f"rotary embeddings need an even head size, got {self.n_embd // self.n_head}")
        if self.tick_table < 0:
            raise GameGrammarError(f"model tick_table must be >= 0, got {self.tick_table}")
        if not 0 <= self.dropout < 1:
            raise GameGrammarError(f"model dropout must be in [0, 1), got {self.dropout}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GPTConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


# Named shapes. vocab_size is filled in from the corpus; everything else can be overridden.
PRESETS: dict[str, GPTConfig] = {
    # The original implementation's size (2 layers, 32 wide, 4 heads, context 64), for comparisons at equal size.
    "gg31k": GPTConfig(block_size=64, n_layer=2, n_head=4, n_embd=32, rope=True),
    # The default on CPU: a whole 10x10, 200-tick episode (the longest of 2000 default episodes has 1255 tokens) fits.
    # The tick clock (see GPTConfig.tick_table) covers the default 200-tick limit; rotary positions.
    "gg-cpu": GPTConfig(block_size=1536, n_layer=4, n_head=4, n_embd=128, tick_table=256, rope=True),
    # For a GPU.
    "gg-gpu": GPTConfig(block_size=1536, n_layer=8, n_head=8, n_embd=384, dropout=0.1, tick_table=256, rope=True),
}


def preset(name: str | GPTConfig, **overrides: Any) -> GPTConfig:
    """The preset `name` (or a config) with some fields replaced (None values are ignored)."""
    if isinstance(name, GPTConfig):
        base = name
    elif name in PRESETS:
        base = PRESETS[name]
    else:
        raise GameGrammarError(f"unknown model preset {name!r}; choose from {', '.join(PRESETS)}")
    return replace(base, **{k: v for k, v in overrides.items() if v is not None})


CHECKED_CACHE_BYTES = 256 << 20  # caches larger than this are checked against the free memory before they are made


def available_memory(device: torch.device) -> int | None:
    """Bytes free for a new tensor on `device` (the kernel's MemAvailable on a CPU), or None where it cannot be told.

    A KV cache larger than this would be killed by the kernel (CPU) or fail deep in a forward pass (CUDA), after
    minutes of work; asked first, the user gets one line naming the batch size instead.
    """
    if device.type == "cuda":
        return torch.cuda.mem_get_info(device)[0]
    if device.type == "cpu":
        try:
            with open("/proc/meminfo") as f:
                for line in f:
                    if line.startswith("MemAvailable:"):
                        return int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            return None
    return None


class KVCache:
    """Keys and values of every layer for a batch of sequences, all at the same position `pos`.

    k, v: [n_layer, batch, n_head, max_len, head_dim]; positions < pos are filled.

    With `lengths` (a [batch] tensor) each row has its own position instead: a forward pass writes row b's
    tokens at lengths[b].. and its queries see that row's keys up to themselves only, so rows of different
    lengths share one pass (a row padded on the right: its next pass, from its real length, writes over the
    padding's entries). Keys a row never wrote are masked, never read as values: `zeros` makes such a cache.
    """

    def __init__(self, k: Tensor, v: Tensor, pos: int = 0, lengths: Tensor | None = None) -> None:
        self.k, self.v, self.pos, self.lengths = k, v, pos, lengths
        self._pass: RowPass | None = None  # `row_pass`'s, for these lengths and real tokens
        # Ticks since the last BOS before the cached tokens begin + those cached: the tick embedding's clock.
        # A window that starts mid-episode sets it to the ticks before the window.
        self.ticks = torch.zeros(k.shape[1], dtype=torch.long, device=k.device)

    @property
    def batch_size(self) -> int:
        return self.k.shape[1]

    @property
    def max_len(self) -> int:
        return self.k.shape[3]

    def row_pass(self, T: int, counts: Tensor | None = None) -> RowPass:
        """For a pass feeding T tokens a row at the rows' own lengths (the first counts[b] of them real, default all):
        where each new entry goes and which keys each query sees. The same for every layer, so made once a pass."""
        lengths = self.lengths
        assert lengths is not None
        if self._pass is None or self._pass.lengths is not lengths or self._pass.T != T or self._pass.counts is not counts:
            self._pass = RowPass(lengths, T, counts, self.k.shape[2], self.k.shape[3])
        return self._pass

    def select(self, rows: Tensor) -> None:
        """Keep only these batch rows (in this order), so finished sequences stop costing work.

        Only the filled positions (< pos) are copied. Rows in increasing order (what a sampler dropping its
        finished rows asks for) are moved down in place, so no memory is allocated and rows that stay put
        are not copied at all; k and v then become views of the first rows of the same memory.
        """
        rows = rows.to(self.k.device)
        order = rows.tolist()
        n, pos = len(order), self.pos
        if all(a < b for a, b in itertools.pairwise(order)):
            for i, r in enumerate(order):  # r >= i: each row is read before anything is written over it
                if r != i:
                    self.k[:, i, :, :pos].copy_(self.k[:, r, :, :pos])
                    self.v[:, i, :, :pos].copy_(self.v[:, r, :, :pos])
            self.k, self.v = self.k[:, :n], self.v[:, :n]
        else:
            k, v = self.k.new_empty(self.k[:, :n].shape), self.v.new_empty(self.v[:, :n].shape)
            k[:, :, :, :pos], v[:, :, :, :pos] = self.k[:, rows, :, :pos], self.v[:, rows, :, :pos]
            self.k, self.v = k, v
        self.ticks = self.ticks[rows]
        if self.lengths is not None:
            self.lengths = self.lengths[rows]


SPAN_COST = 2048  # an attention call's fixed cost, in the cost of reading one more key for that many rows
SPAN_BLOCKS = 256  # rows where a run may start, at most (evaluate's default batch: every row)


def attention_spans(ends: np.ndarray, call_cost: int = SPAN_COST) -> list[tuple[int, int, int]]:
    """Runs (first, stop, end) of consecutive rows such that attending each run up to its own last key (`end`, the most
    of its rows' `ends`) reads the fewest keys, counting each run's call as `call_cost` keys. Rows with end 0 need
    nothing. Rows of one pass sit at very different lengths when sequences start as others finish: one call up to the
    longest row would read every short row's masked keys too. Past SPAN_BLOCKS rows, runs start only at every g-th row
    (g rows a block), so that a pass of a thousand rows on a GPU does not wait on this."""
    n = len(ends)
    if n == 0 or int(ends.max()) * n - int(ends.sum()) <= call_cost:
        return [(0, n, int(ends.max()) if n else 0)]
    g = -(-n // SPAN_BLOCKS)
    bounds = np.arange(0, n + g, g).clip(max=n)  # block k is rows bounds[k] .. bounds[k + 1] - 1
    tops = np.maximum.reduceat(ends, bounds[:-1])
    blocks = len(tops)
    best = np.zeros(blocks + 1)
    start = np.zeros(blocks + 1, dtype=np.int64)
    for j in range(1, blocks + 1):  # best[j]: the cheapest split of blocks 0..j-1; its last run starts at block start[j]
        firsts = np.arange(j - 1, -1, -1)
        cost = best[firsts] + (bounds[j] - bounds[firsts]) * np.maximum.accumulate(tops[j - 1 :: -1]) + call_cost
        t = int(cost.argmin())
        best[j], start[j] = cost[t], firsts[t]
    spans, j = [], blocks
    while j > 0:
        i = int(start[j])
        spans.append((int(bounds[i]), int(bounds[j]), int(tops[i:j].max())))
        j = i
    return spans[::-1]


class RowPass:
    """A pass of T tokens a row into a cache whose rows sit at their own lengths: each new key's index in a layer's rows
    of keys viewed as [-1, head_dim] (in (row, head, token) order), the attention mask [B, 1, T, end] and the rows'
    spans (`attention_spans`), each attended up to its own last key and its own last real query."""

    def __init__(self, lengths: Tensor, T: int, counts: Tensor | None, heads: int, room: int) -> None:
        self.lengths, self.T, self.counts = lengths, T, counts
        B, device = lengths.shape[0], lengths.device
        positions = lengths[:, None] + torch.arange(T, device=device)  # [B, T]
        self.end = int(positions[:, -1].max()) + 1
        self.mask = torch.arange(self.end, device=device) <= positions[:, None, :, None]
        rows = torch.arange(B, device=device)[:, None] * heads + torch.arange(heads, device=device)[None, :]  # [B, H]
        self.flat = (rows[:, :, None] * room + positions[:, None, :]).reshape(-1)
        self.spans: list[tuple[int, int, int, int]] | None = None  # (first, stop, queries, end); None: one call, all
        if counts is not None and B > 1:
            n = counts.cpu().numpy()
            ends = np.where(n > 0, lengths.cpu().numpy() + n, 0)
            runs = attention_spans(ends, SPAN_COST)
            if len(runs) > 1 or runs[0][2] < self.end or int(n.max()) < T:
                self.spans = [(a, b, int(n[a:b].max()), e) for a, b, e in runs]


class BranchCache(KVCache):
    """Several continuations (branches) of each row of a per-row-lengths cache, sharing that row's entries.

    The shared prefix, `prefix_k`/`prefix_v` [n_layer, groups, n_head, >= P, head_dim] with `prefix_lengths` [groups],
    is never copied per branch and never written: a planner branching every running game into a dozen rollouts would
    otherwise copy each game's history a dozen times per move (in bf16 on a CPU it is copied once, see below).
    Branches are laid out group-major, `per_group` to a group (branch b continues group b // per_group); each writes
    its own tokens into its own `k`/`v` [n_layer, branches, n_head, max_len, head_dim], every branch the same number of
    tokens per pass (so `lengths` stay equal to `pos`), at absolute positions prefix_lengths[group] + lengths.
    """

    def __init__(self, prefix_k: Tensor, prefix_v: Tensor, prefix_lengths: Tensor, per_group: int, max_len: int) -> None:
        layers, groups, heads, _, head_dim = prefix_k.shape
        shape = (layers, groups * per_group, heads, max_len, head_dim)
        # Uninitialised: every branch writes each position before any query reads it (all branches move in step).
        k = torch.empty(shape, dtype=prefix_k.dtype, device=prefix_k.device)
        super().__init__(k, torch.empty_like(k), lengths=torch.zeros(groups * per_group, dtype=torch.long, device=k.device))
        self.prefix_lengths = prefix_lengths.to(k.device)
        longest = int(self.prefix_lengths.max()) if len(self.prefix_lengths) else 0
        self.prefix_k, self.prefix_v = prefix_k[:, :, :, :longest], prefix_v[:, :, :, :longest]
        self.kernel = kernels.serves(k.device, k.dtype, head_dim) and head_dim % 16 == 0  # `kernels.branch_attention`'s
        if k.device.type == "cpu" and k.dtype != torch.float32 and not self.kernel:
            # torch's CPU batched matmul in reduced precision copies a sliced operand on every call (2-4x slower per
            # pass, measured in bf16): such a prefix is copied once, here, into one block. float32 reads it in place.
            self.prefix_k, self.prefix_v = self.prefix_k.contiguous(), self.prefix_v.contiguous()
        self.per_group = per_group
        self.offset = self.prefix_lengths.repeat_interleave(per_group)  # each branch's absolute position at its start

    def attend(self, q: Tensor, k: Tensor, v: Tensor, layer: int, counts: Tensor | None = None) -> Tensor:
        """Attention of the branches' new queries over their group's prefix and their own entries, one softmax: [B, T, C]
        from our CPU kernel, which reads each group's prefix once for all its branches, else [B, H, T, D]. `counts`: the
        real tokens of each branch this pass (a packed pass: T or 0, a branch that has stopped)."""
        B, H, T, D = q.shape
        start, end = self.pos, self.pos + T  # every branch has written `pos` tokens of its own (they move in step)
        self.k[layer, :, :, start:end] = k
        self.v[layer, :, :, start:end] = v
        if self.kernel and not (torch.is_grad_enabled() and q.requires_grad):
            live = torch.ones(B, dtype=torch.bool) if counts is None else counts.cpu() > 0
            y = kernels.branch_attention(
                q,
                self.prefix_k[layer],
                self.prefix_v[layer],
                self.prefix_lengths,
                self.per_group,
                self.k[layer],
                self.v[layer],
                start,
                live,
            )
            if y is not None:
                return y.view(B, T, H * D)
        own_k, own_v = self.k[layer, :, :, :end], self.v[layer, :, :, :end]
        scale = 1.0 / math.sqrt(D)
        own = (q @ own_k.transpose(-1, -2)) * scale  # [B, H, T, end]
        if T > 1:
            own = own.masked_fill(torch.ones(T, end, dtype=torch.bool, device=q.device).triu(start + 1), -math.inf)
        G, n, P = B // self.per_group, self.per_group, self.prefix_k.shape[3]
        pk, pv = self.prefix_k[layer], self.prefix_v[layer]  # [G, H, P, D]
        grouped = q.view(G, n, H, T, D).transpose(1, 2).reshape(G, H, n * T, D)  # a group's queries against its prefix once
        shared = (grouped @ pk.transpose(-1, -2)) * scale  # [G, H, n*T, P]
        shared = shared.masked_fill((torch.arange(P, device=q.device) >= self.prefix_lengths[:, None])[:, None, None, :], -math.inf)
        shared = shared.view(G, H, n, T, P).transpose(1, 2).reshape(B, H, T, P)
        w = torch.softmax(torch.cat([shared, own], dim=-1), dim=-1)
        w_shared = w[..., :P].reshape(G, n, H, T, P).transpose(1, 2).reshape(G, H, n * T, P)
        y_shared = (w_shared @ pv).view(G, H, n, T, D).transpose(1, 2).reshape(B, H, T, D)
        return y_shared + w[..., P:] @ own_v


def rotary_tables(head_dim: int, length: int, base: float = 10000.0) -> tuple[Tensor, Tensor]:
    """cos and sin tables [length, head_dim/2] for rotating query/key pairs by position."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2).float() / head_dim)
    angles = torch.outer(torch.arange(length).float(), inv_freq)
    return angles.cos(), angles.sin()


def rotate(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotate each (first half, second half) pair of x [B, H, T, D] by its position's angle."""
    a, b = x.chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)


class Packed:
    """The real tokens of a [B, T] batch whose rows are padded to different lengths, packed into [N, ...].

    Everything but attention works token by token, so it runs on the N real tokens only; attention unpacks them
    to the batch's shape (padding as zeros) and packs its output back. Where rows need very different numbers of
    tokens (games each writing their own tick), that leaves the padding's work undone.
    """

    def __init__(self, real: Tensor) -> None:
        self.shape = tuple(real.shape)  # (B, T)
        self.index = torch.nonzero(real.reshape(-1)).squeeze(1)
        self.counts = real.sum(1)  # real tokens of each row (a row's real tokens come first)

    def pack(self, x: Tensor) -> Tensor:
        return x.reshape(-1, *x.shape[2:])[self.index]

    def unpack(self, x: Tensor) -> Tensor:
        full = x.new_zeros(self.shape[0] * self.shape[1], *x.shape[1:])
        full[self.index] = x
        return full.view(*self.shape, *x.shape[1:])


def _own_attention(q: Tensor, cache: KVCache, layer: int, lengths: Tensor, counts: Tensor | int) -> Tensor | None:
    """Decoding attention by our own CPU kernel (`kernels.row_attention`), or None where torch's is used: off the CPU,
    where a gradient is wanted, without a compiler. [B, T, H, D]."""
    if q.device.type != "cpu" or (torch.is_grad_enabled() and q.requires_grad):
        return None
    if isinstance(counts, int):
        counts = lengths.new_full((q.shape[0],), counts)
    return kernels.row_attention(q, cache.k[layer], cache.v[layer], lengths, counts)


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.qkv = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = config.dropout
        self.resid_dropout = nn.Dropout(config.dropout)

    def forward(
        self,
        x: Tensor,
        cache: KVCache | None = None,
        layer: int = 0,
        rope: tuple[Tensor, Tensor] | None = None,
        packed: Packed | None = None,
    ) -> Tensor:
        qkv = self.qkv(x)
        if packed is not None:  # x holds only the real tokens of a [B, T] batch: attention sees the batch's shape
            qkv = packed.unpack(qkv)
        B, T, C = qkv.shape[0], qkv.shape[1], qkv.shape[2] // 3
        # [B, T, 3C] -> three [B, n_head, T, head_dim]
        q, k, v = qkv.view(B, T, 3, self.n_head, C // self.n_head).permute(2, 0, 3, 1, 4)
        if rope is not None:  # keys enter the cache already rotated to their absolute positions
            q, k = rotate(q, *rope), rotate(k, *rope)
        dropout_p = self.dropout if self.training else 0.0
        if cache is None:
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, is_causal=True)
        elif isinstance(cache, BranchCache):
            y = cache.attend(q, k, v, layer, None if packed is None else packed.counts)
        elif cache.lengths is not None:  # rows at their own positions: write each row's keys there, mask per row
            rp = cache.row_pass(T, None if packed is None else packed.counts)
            # One index_copy_ of (row, head, token) rows, no scatter per element: a per-row cache is the first rows of a
            # store made for it (play's, the speculative sampler's), so each layer's rows are one contiguous block.
            D = k.shape[-1]
            cache.k[layer].view(-1, D).index_copy_(0, rp.flat, k.reshape(-1, D))
            cache.v[layer].view(-1, D).index_copy_(0, rp.flat, v.reshape(-1, D))
            own = _own_attention(q, cache, layer, cache.lengths, rp.T if packed is None else packed.counts)
            if own is not None:
                y = own.view(B, T, C)
            elif rp.spans is None:
                k, v = cache.k[layer, :, :, : rp.end], cache.v[layer, :, :, : rp.end]
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=rp.mask, dropout_p=dropout_p)
            else:  # each run of rows up to its own last key and real query; the padding's outputs stay 0
                y = torch.zeros_like(q)
                for a, b, t, e in rp.spans:
                    if t:
                        y[a:b, :, :t] = F.scaled_dot_product_attention(
                            q[a:b, :, :t], cache.k[layer, a:b, :, :e], cache.v[layer, a:b, :, :e], attn_mask=rp.mask[a:b, :, :t, :e]
                        )
        else:
            start, end = cache.pos, cache.pos + T
            cache.k[layer, :, :, start:end] = k
            cache.v[layer, :, :, start:end] = v
            k, v = cache.k[layer, :, :, :end], cache.v[layer, :, :, :end]
            own = _own_attention(q, cache, layer, torch.full((B,), start, dtype=torch.long), T)
            if own is not None:
                y = own.view(B, T, C)
            else:
                # Query i (absolute position start+i) sees keys 0..start+i; one new token sees everything cached.
                mask = None if T == 1 else torch.ones(T, end, dtype=torch.bool, device=x.device).tril(diagonal=start)
                y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=dropout_p)
        if y.dim() == 4:
            y = y.transpose(1, 2).reshape(B, T, C)
        if packed is not None:
            y = packed.pack(y)
        return self.resid_dropout(self.proj(y))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.dropout(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """Pre-norm: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(
        self,
        x: Tensor,
        cache: KVCache | None = None,
        layer: int = 0,
        rope: tuple[Tensor, Tensor] | None = None,
        packed: Packed | None = None,
    ) -> Tensor:
        x = x + self.attn(self.ln_1(x), cache, layer, rope, packed)
        return x + self.mlp(self.ln_2(x))


class GameGPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        if config.tick_table and config.tick_id is None:  # presets are templates: the corpus fills tick_id in
            raise GameGrammarError("the tick clock (tick_table > 0) needs tick_id, the game's tick token id (linked from the corpus)")
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = None if config.rope else nn.Embedding(config.block_size, config.n_embd)
        if config.rope:
            cos, sin = rotary_tables(config.n_embd // config.n_head, config.block_size)
            self.register_buffer("rope_cos", cos, persistent=False)
            self.register_buffer("rope_sin", sin, persistent=False)
        self.wtick = nn.Embedding(config.tick_table, config.n_embd) if config.tick_table else None
        self.drop = nn.Dropout(config.dropout)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.ln_f = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.head.weight = self.wte.weight  # tied: one matrix reads and writes tokens
        self.apply(self._init_weights)
        # GPT-2: scale the residual projections down with depth so the residual stream stays O(1).
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self, non_embedding: bool = False) -> int:
        """Parameters counted once (the tied head is the token embedding)."""
        n = sum(p.numel() for p in self.parameters())
        return n - self.wpe.weight.numel() if non_embedding and self.wpe is not None else n

    def describe(self) -> str:
        """One line for reports: the shape and the parameter count."""
        c = self.config
        return f"{c.n_layer} layers, {c.n_embd} wide, {c.n_head} heads, context {c.block_size}, {self.num_params():,} parameters"

    def weights_sha256(self) -> str:
        """A hash of every weight and buffer (names, dtypes, shapes, bytes): which model a resumable run belongs to."""
        h = hashlib.sha256()
        for name, tensor in sorted(self.state_dict().items()):
            t = tensor.detach().cpu().contiguous()
            h.update(f"{name}:{t.dtype}:{tuple(t.shape)}".encode())
            h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
        return h.hexdigest()

    def new_cache(self, batch_size: int, max_len: int | None = None) -> KVCache:
        """An empty cache for `batch_size` sequences of up to `max_len` (default block_size) tokens."""
        max_len = self.config.block_size if max_len is None else max_len
        if not 1 <= max_len <= self.config.block_size:
            raise GameGrammarError(f"cache length {max_len} must be between 1 and the model's context ({self.config.block_size} tokens)")
        p = next(self.parameters())
        c = self.config
        shape = (c.n_layer, batch_size, c.n_head, max_len, c.n_embd // c.n_head)
        need = 2 * math.prod(shape) * p.element_size()
        free = available_memory(p.device) if need > CHECKED_CACHE_BYTES else None
        if free is not None and need > free:
            raise GameGrammarError(
                f"a KV cache for {batch_size} sequences of {max_len} tokens needs {need / 2**30:.1f} GiB, but {p.device.type} has "
                f"{free / 2**30:.1f} GiB free: lower the batch size (--batch-size)"
            )
        # Uninitialised: attention reads only positions < pos, each written before it is read; zeroing
        # hundreds of MB would cost more than many decode steps on a small CPU.
        return KVCache(torch.empty(shape, device=p.device, dtype=p.dtype), torch.empty(shape, device=p.device, dtype=p.dtype))

    def tick_clock(self, idx: Tensor, cache: KVCache | None = None) -> Tensor:
        """Ticks since the last BOS at every position (TICK tokens counted, the current one included); with a cache,
        counted on from its clock, which is then set to the clock after idx."""
        c = self.clock_from(idx, None if cache is None else cache.ticks)
        if cache is not None:
            cache.ticks = c[:, -1].clone()
        return c

    def clock_from(self, idx: Tensor, ticks: Tensor | None = None) -> Tensor:
        """`tick_clock` of idx [B, T] for rows whose clock stood at `ticks` [B] before it (0 without), stored nowhere."""
        c = torch.cumsum(idx == self.config.tick_id, dim=1)
        if ticks is not None:
            c = c + ticks[:, None]
        # c never decreases along a row, so its value at the last BOS so far is a running max.
        at_bos = torch.where(idx == self.config.bos_id, c, torch.zeros_like(c))
        return c - torch.cummax(at_bos, dim=1).values

    def forward(
        self, idx: Tensor, targets: Tensor | None = None, *, cache: KVCache | None = None, real: Tensor | None = None
    ) -> tuple[Tensor, Tensor | None]:
        """Logits [B, T, V] and, given targets (IGNORE_INDEX where none), the mean cross-entropy.

        With a cache, idx continues the cached sequences at positions cache.pos .. cache.pos+T-1. `real` ([B, T]
        bool, with no targets) marks the tokens that are not padding: only those are computed, and the logits are
        theirs alone, [N, V] in row-major order.
        """
        B, T = idx.shape
        start = 0 if cache is None else cache.pos if cache.lengths is None else int(cache.lengths.max())
        limit = self.config.block_size if cache is None else cache.max_len
        if start + T > limit and (cache is None or cache.lengths is None or start + T > cache.max_len):
            what = "the model's position table" if cache is None or limit == self.config.block_size else "the KV cache"
            raise GameGrammarError(f"context of {start + T} tokens is longer than {what} ({limit} tokens)")
        if cache is not None and cache.batch_size != B:
            raise GameGrammarError(f"batch of {B} sequences does not match the KV cache's {cache.batch_size}")
        pos = torch.arange(start, start + T, device=idx.device)
        if cache is not None and cache.lengths is not None:
            # [B, T]: each row's own positions. A cache with room past the context holds padding there (a row padded
            # to a longer row's width): its positions are clamped to the last, and nothing reads what it writes.
            at = cache.lengths + cache.offset if isinstance(cache, BranchCache) else cache.lengths
            pos = (at[:, None] + torch.arange(T, device=idx.device)).clamp_(max=self.config.block_size - 1)
        x = self.wte(idx)
        rope = None
        if self.wpe is not None:
            x = x + self.wpe(pos)
        else:
            rope = (self.rope_cos[pos], self.rope_sin[pos])
            if pos.dim() == 2:  # [B, T, D/2] -> [B, 1, T, D/2]: the same angles for every head
                rope = (rope[0][:, None], rope[1][:, None])
        if self.wtick is not None:
            x = x + self.wtick(self.tick_clock(idx, cache).clamp_(max=self.config.tick_table - 1))
        x = self.drop(x)
        packed = None
        if real is not None:
            if targets is not None:
                raise GameGrammarError("a packed forward pass (real=...) computes no loss")
            packed = Packed(real)
            x = packed.pack(x)
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer, rope, packed)
        logits = self.head(self.ln_f(x))
        if cache is not None:
            cache.pos += T
            if cache.lengths is not None:
                cache.lengths = cache.lengths + T
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.reshape(-1), ignore_index=IGNORE_INDEX)
        return logits, loss
