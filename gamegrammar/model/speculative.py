"""Speculative sampling with the game's rules as the draft: several tokens a pass where the rules fix them.

A plain decode step reads every row's whole KV cache to write one token a row, and on a CPU that reading is most of
a step. Yet most tokens of a game follow from what came before (in Snake 80%: the SENSE word, the outcome and its
cell, GROW, the score, the next TICK; `GameSpec.rule_draft` says which, token by token). So each row here feeds, in
one pass, the token it drew last and the tokens its rules draft proposes after it, and the pass's logits verify them
all: at each position the token is drawn as the plain loop draws it there (the same keyed uniform number,
`decoding.keyed_tokens`), a proposed token is kept while the draw is that token, and the first draw that differs is
the row's next token. This is speculative sampling (Leviathan et al. 2023; Chen et al. 2023) with a draft that puts
all its mass on one token, coupled to the plain loop's draws: a proposed token is kept with the model's probability
of it, and a refused one is replaced by a draw from the rest of the distribution, so each sequence is exactly the one
the plain loop writes for the seed, up to the rounding of logits computed several tokens a pass. A draft that stops
proposing (the row left the rules) costs nothing: that row feeds one token a pass.

Rows sit at their own positions in one cache (`KVCache.lengths`); only the fed tokens are computed
(`GameGPT.forward(real=...)`). A row whose context is full is handed back to the caller, which finishes it with the
plain loop's sliding window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import torch
from torch import Tensor

from gamegrammar.core.gamespec import RuleDraft
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model.decoding import SamplingConfig, SamplingStats, keyed_tokens, keyed_uniforms
from gamegrammar.model.gpt import GameGPT, KVCache

MAX_PROPOSAL = 16  # proposed tokens a row feeds in one pass at most (Snake's rules fix 5 between inputs; it guesses 2 ticks more)


class TokenDraft(Protocol):
    """A rules draft on token ids: fed every token of its sequence, it proposes the ids the rules fix next."""

    def feed(self, token: int) -> None: ...

    def proposal(self, limit: int) -> list[int]: ...


class IdDraft:
    """A game's `RuleDraft` (words) on the model's token ids."""

    def __init__(self, draft: RuleDraft, tokenizer: GameTokenizer) -> None:
        self.draft, self.words, self.ids = draft, tokenizer.tokens, tokenizer.ids

    def feed(self, token: int) -> None:
        self.draft.feed(self.words[token])

    def proposal(self, limit: int) -> list[int]:
        out = []
        for word in self.draft.proposal()[:limit]:
            token = self.ids.get(word)
            if token is None:  # a word this vocabulary lacks: the model cannot write it, nothing to verify
                break
            out.append(token)
        return out


class DraftStore:
    """The KV cache of every batch of one call, with room past the context for a pass's padding.

    Masked keys are never read as values, but a masked key's value must still be a number (0 x NaN is NaN): every
    position a pass may read is zeroed once, as passes first reach it, and holds numbers from then on.
    """

    def __init__(self, model: GameGPT, rows: int, positions: int) -> None:
        c, p = model.config, next(model.parameters())
        shape = (c.n_layer, rows, c.n_head, positions + MAX_PROPOSAL + 1, c.n_embd // c.n_head)
        self.k = torch.empty(shape, dtype=p.dtype, device=p.device)
        self.v = torch.empty(shape, dtype=p.dtype, device=p.device)
        self.positions = positions  # positions a row may fill (the model's context, or less)
        self.clean = 0

    def view(self, rows: int, lengths: Tensor, reach: int) -> KVCache:
        """The first `rows` rows, at their own lengths, with every position below `reach` holding numbers."""
        if reach > self.clean:  # a slab at a time: a few positions of every row and head is a slow strided fill
            reach = min(self.k.shape[3], max(reach, self.clean + 256))
            self.k[:, :, :, self.clean : reach] = 0
            self.v[:, :, :, self.clean : reach] = 0
            self.clean = reach
        return KVCache(self.k[:, :rows], self.v[:, :rows], lengths=lengths)

    def move_rows(self, keep: list[int], filled: list[int]) -> None:
        """Rows `keep` (increasing) become rows 0.. in place, each its first `filled` positions."""
        for i, (r, n) in enumerate(zip(keep, filled)):
            if r != i:
                self.k[:, i, :, :n].copy_(self.k[:, r, :, :n])
                self.v[:, i, :, :n].copy_(self.v[:, r, :, :n])


def drafted_batch(
    model: GameGPT,
    prompts: list[list[int]],
    numbers: list[int],
    eos_id: int,
    pad_id: int,
    config: SamplingConfig,
    store: DraftStore,
    stats: SamplingStats,
    new_draft: Callable[[], TokenDraft],
    progress: Callable[[int], None] | None = None,
) -> tuple[list[list[int]], list[int]]:
    """One batch: every sequence continued to EOS or `config.max_length`, and the rows whose context filled first.

    `numbers` are the sequences' numbers in the call, the keys of their draws; no prompt may be longer than the store's
    positions. The rows whose context filled (returned by index, their sequences as far as written) are for the caller
    to continue with a sliding window; `progress` hears of the others as they finish.
    """
    device = store.k.device
    cap, room = config.max_length, store.positions
    seqs = [list(p) for p in prompts]
    drafts = [new_draft() for _ in prompts]
    for draft, prompt in zip(drafts, prompts):
        for token in prompt:
            draft.feed(token)
    if any(len(p) > room for p in prompts):
        raise ValueError("a prompt longer than the context is the plain loop's to sample")
    overflow: list[int] = []
    done_now = sum(len(p) >= cap for p in prompts)
    if progress and done_now:
        progress(done_now)
    order = [r for r, p in enumerate(prompts) if len(p) < cap]  # rows in the cache, in cache order
    cached = [0] * len(order)  # tokens of each row in its cache row; the row's last token is not yet fed
    ticks = torch.zeros(len(order), dtype=torch.long, device=device)
    if order and max(len(prompts[r]) for r in order) > 1:  # prefill every row's prompt but its last token, one pass
        width = max(len(prompts[r]) for r in order) - 1
        x = torch.full((len(order), width), pad_id, dtype=torch.long)
        for i, r in enumerate(order):
            x[i, : len(prompts[r]) - 1] = torch.tensor(prompts[r][:-1])
        real = torch.arange(width)[None, :] < torch.tensor([len(prompts[r]) - 1 for r in order])[:, None]
        cache = store.view(len(order), torch.zeros(len(order), dtype=torch.long, device=device), width)
        cache.ticks = ticks
        model(x.to(device), cache=cache, real=real.to(device))
        ticks = cache.ticks  # the padding is no tick and no BOS: the clock after each prompt's last real token
        cached = [len(prompts[r]) - 1 for r in order]
    alive = [True] * len(order)
    while order:
        n = len(order)
        proposals: list[list[int]] = []
        for i, r in enumerate(order):
            if not alive[i]:
                proposals.append([])
                continue
            limit = min(MAX_PROPOSAL, cap - len(seqs[r]) - 1, room - 1 - cached[i])
            proposals.append(drafts[r].proposal(limit) if limit > 0 else [])
        counts = [1 + len(p) if alive[i] else 0 for i, p in enumerate(proposals)]
        width = max(counts)
        x = torch.full((n, width), pad_id, dtype=torch.long)
        for i, r in enumerate(order):
            if alive[i]:
                x[i, : counts[i]] = torch.tensor([seqs[r][-1], *proposals[i]])
        count_t = torch.tensor(counts)
        real = torch.arange(width)[None, :] < count_t[:, None]
        lengths = torch.tensor(cached)
        cache = store.view(n, lengths.to(device), int((lengths + width).max()))
        cache.ticks = ticks
        x_dev = x.to(device)
        logits, _ = model(x_dev, cache=cache, real=real.to(device))
        stats.passes += 1
        # Packed logits: row i's fed tokens are at offsets[i] .. offsets[i] + counts[i] - 1, and the one at offsets[i] + j
        # is the distribution of the token at position len(seq) + j of the row's sequence, where proposed token j (0-based)
        # stands if j < its number of proposals. Every position is drawn at once, as the plain loop would draw it.
        offsets = torch.cumsum(count_t, 0) - count_t
        rows_of = np.repeat(np.arange(n), counts)
        places = np.concatenate([np.arange(c) for c in counts]) + np.repeat([len(seqs[r]) for r in order], counts)
        u = keyed_uniforms(config.seed, np.asarray(numbers)[np.asarray(order)][rows_of], places, device) if config.temperature else None
        drawn = keyed_tokens(logits, config, u)  # [N]: the token at each position, given the fed tokens before it
        lens = torch.tensor([len(p) for p in proposals])
        proposed = torch.arange(width - 1)[None, :] < lens[:, None]  # [n, width - 1]
        at = (offsets[:, None] + torch.arange(width - 1)[None, :])[proposed].to(device)
        agree = torch.zeros(n, width - 1, dtype=torch.long, device=device)
        agree[proposed.to(device)] = (drawn[at] == x_dev[:, 1:][proposed.to(device)]).long()
        kept = agree.cumprod(dim=1).sum(1)  # each row's proposed tokens drawn as proposed, before the first that is not
        chosen = drawn[(offsets.to(device) + kept).clamp_(max=len(drawn) - 1)]  # the first draw that differs, or the one after
        kept_list, chosen_list = kept.tolist(), chosen.tolist()
        if model.config.tick_id is not None:  # the clock after each row's kept tokens, not after its refused ones
            ticks = model.clock_from(x_dev, ticks).gather(1, kept[:, None]).squeeze(1)
        stats.proposed += int(lens.sum())
        for i, r in enumerate(order):
            if not alive[i]:
                continue
            k = kept_list[i]
            stats.accepted += k
            new = proposals[i][:k]
            ended = eos_id in new
            if ended:
                new = new[: new.index(eos_id) + 1]
            else:
                new.append(chosen_list[i])
                ended = chosen_list[i] == eos_id
            seqs[r] += new
            stats.generated_tokens += len(new)
            for token in new:
                drafts[r].feed(token)
            cached[i] += 1 + k
            if ended or len(seqs[r]) >= cap:
                alive[i] = False
                if progress:
                    progress(1)
            elif cached[i] >= room:  # no room for its next token: the caller slides its window
                alive[i] = False
                overflow.append(r)
        dead = n - sum(alive)
        if dead == n:
            break
        if dead * 4 >= n:  # finished rows leave the cache in bulk, as in the plain loop
            keep = [i for i in range(n) if alive[i]]
            store.move_rows(keep, [cached[i] for i in keep])
            order = [order[i] for i in keep]
            cached = [cached[i] for i in keep]
            alive = [True] * len(keep)
            ticks = ticks[torch.tensor(keep, device=device)]
    return seqs, sorted(overflow)
