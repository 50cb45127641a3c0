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
(`GameGPT.forward(real=...)`). The prompts go through one pool of rows (`drafted_pool`): the places of finished rows go
to waiting prompts, so passes stay full until the prompts run out, instead of each batch's last hundreds of passes
serving its few longest games; the rows are kept longest first, and attention reads each run of rows only up to its
own longest (`gpt.attention_spans`). A row whose context is full is handed back to the caller, which finishes it with
the plain loop's sliding window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np
import torch
from torch import Tensor

from gamegrammar.core.gamespec import RuleDraft
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model import kernels
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

    Masked keys are never read as values, but torch's attention still multiplies them, so a masked key's value must be
    a number (0 x NaN is NaN): every position a pass may read is zeroed once, as passes first reach it, and holds
    numbers from then on. Our own attention (`kernels`) reads only the keys each row wrote: nothing to zero.
    """

    def __init__(self, model: GameGPT, rows: int, positions: int) -> None:
        c, p = model.config, next(model.parameters())
        shape = (c.n_layer, rows, c.n_head, positions + MAX_PROPOSAL + 1, c.n_embd // c.n_head)
        self.k = torch.empty(shape, dtype=p.dtype, device=p.device)
        self.v = torch.empty(shape, dtype=p.dtype, device=p.device)
        self.positions = positions  # positions a row may fill (the model's context, or less)
        self.clean = 0
        if kernels.serves(self.k.device, self.k.dtype, shape[-1]):  # our attention reads only keys a row wrote
            self.clean = shape[3]

    def view(self, rows: int, lengths: Tensor, reach: int) -> KVCache:
        """The first `rows` rows, at their own lengths, with every position below `reach` holding numbers."""
        if reach > self.clean:  # a slab at a time: a few positions of every row and head is a slow strided fill
            reach = min(self.k.shape[3], max(reach, self.clean + 256))
            self.k[:, :, :, self.clean : reach] = 0
            self.v[:, :, :, self.clean : reach] = 0
            self.clean = reach
        return KVCache(self.k[:, :rows], self.v[:, :rows], lengths=lengths)

    def move_rows(self, keep: list[int], filled: list[int]) -> None:
        """Rows `keep` (distinct, in any order) become rows 0.. in place, each its first `filled` positions.

        Each row is copied once: a row whose place is free takes its row first, which frees that one's place, and so on
        down the chain; what is left are cycles, each broken by one row set aside."""
        source = {i: r for i, r in enumerate(keep) if r != i}
        needed = set(source.values())  # rows whose contents some place still waits for
        size = dict(zip(keep, filled))  # the positions of each kept row to copy

        def copy(to: int, row: int) -> None:
            n = size[row]
            self.k[:, to, :, :n].copy_(self.k[:, row, :, :n])
            self.v[:, to, :, :n].copy_(self.v[:, row, :, :n])

        for place in list(source):
            while place in source and place not in needed:  # its contents are no one's: it may be written
                row = source.pop(place)
                copy(place, row)
                needed.discard(row)
                place = row
        while source:  # cycles
            start = next(iter(source))
            n = size[start]
            aside = (self.k[:, start, :, :n].clone(), self.v[:, start, :, :n].clone())
            place = start
            while source[place] != start:
                row = source.pop(place)
                copy(place, row)
                place = row
            del source[place]
            self.k[:, place, :, :n].copy_(aside[0])
            self.v[:, place, :, :n].copy_(aside[1])


def drafted_pool(
    model: GameGPT,
    prompts: list[list[int]],
    numbers: list[int],
    eos_id: int,
    pad_id: int,
    config: SamplingConfig,
    store: DraftStore,
    stats: SamplingStats,
    new_draft: Callable[[], TokenDraft],
    finished: Callable[[int, list[int], bool], None],
) -> None:
    """Every prompt continued to EOS or `config.max_length`, through a pool of the store's rows.

    `numbers` are the sequences' numbers in the call, the keys of their draws; no prompt may be longer than the store's
    positions. `finished(index, sequence, filled)` hears of each prompt as it ends, in any order, with `filled` true
    where its context filled first (the sequence as far as written, for the caller to continue with a sliding window).

    A batch run to its end would spend its last hundreds of passes on its few longest games; here the finished rows'
    places go to the next prompts when an eighth of the pool has finished (the rows that go on move down first, the
    longest first), so every pass is nearly full until the prompts run out. Rows then sit at very different lengths,
    and attention reads each run of rows only up to its own longest (`gpt.attention_spans`).
    A new row feeds its prompt at most `MAX_PROPOSAL + 1` tokens a pass, then draws.
    """
    device = store.k.device
    cap, room, piece = config.max_length, store.positions, MAX_PROPOSAL + 1
    if any(len(p) > room for p in prompts):
        raise ValueError("a prompt longer than the context is the plain loop's to sample")
    waiting = iter(range(len(prompts)))
    slots = store.k.shape[1]
    order: list[int] = []  # the prompt in each cache row, in cache order
    seqs: list[list[int]] = []  # ... its sequence so far
    drafts: list[TokenDraft] = []
    cached: list[int] = []  # tokens of each row's sequence in its cache row (the rest are fed next)
    alive: list[bool] = []
    ticks = torch.zeros(0, dtype=torch.long, device=device)

    def take(rows: int) -> None:
        """Fill up to `rows` places at the end of the pool with waiting prompts."""
        nonlocal ticks
        new = 0
        while new < rows:
            r = next(waiting, None)
            if r is None:
                break
            if len(prompts[r]) >= cap:  # nothing to write
                finished(r, list(prompts[r]), False)
                continue
            draft = new_draft()
            for token in prompts[r]:
                draft.feed(token)
            order.append(r), seqs.append(list(prompts[r])), drafts.append(draft), cached.append(0), alive.append(True)
            new += 1
        ticks = torch.cat([ticks, torch.zeros(new, dtype=torch.long, device=device)])

    take(slots)
    while order:
        n = len(order)
        fed: list[list[int]] = []  # each row's tokens this pass: the rest of its sequence (a piece of a prompt), then its proposal
        drawing: list[int] = []  # how many of them are its own (not proposed): draws start at the last of these; 0: no draws
        for i in range(n):
            if not alive[i]:
                fed.append([]), drawing.append(0)
                continue
            own = seqs[i][cached[i] : cached[i] + piece]
            if cached[i] + len(own) < len(seqs[i]):  # more prompt to come: no draws yet
                fed.append(own), drawing.append(0)
                continue
            limit = min(piece - len(own), cap - len(seqs[i]) - 1, room - cached[i] - len(own))  # at most `piece` fed in all
            fed.append(own + (drafts[i].proposal(limit) if limit > 0 else [])), drawing.append(len(own))
        counts = [len(f) for f in fed]
        width = max(counts)
        x = torch.full((n, width), pad_id, dtype=torch.long)
        for i, f in enumerate(fed):
            if f:
                x[i, : len(f)] = torch.tensor(f)
        real = torch.arange(width)[None, :] < torch.tensor(counts)[:, None]
        # a finished row riding along until the next move reads nothing: it counts as empty
        lengths = torch.tensor([c if a else 0 for c, a in zip(cached, alive)])
        cache = store.view(n, lengths.to(device), int((lengths + width).max()))
        cache.ticks = ticks
        x_dev = x.to(device)
        logits, _ = model(x_dev, cache=cache, real=real.to(device))
        stats.passes += 1
        # Packed logits: row i's fed tokens are at offsets[i] .. offsets[i] + counts[i] - 1. The one at offsets[i] + o - 1 + j
        # (o = drawing[i]) is the distribution of the token at position len(seq) + j, where proposed token j (0-based)
        # stands if there is one. Each such position is drawn at once, as the plain loop would draw it.
        offsets = np.cumsum(counts) - counts
        rows = [i for i in range(n) if drawing[i]]
        spans = [counts[i] - drawing[i] + 1 for i in rows]  # positions drawn for each drawing row
        at = np.concatenate([offsets[i] + drawing[i] - 1 + np.arange(m) for i, m in zip(rows, spans)]) if rows else np.zeros(0, np.int64)
        places = np.concatenate([len(seqs[i]) + np.arange(m) for i, m in zip(rows, spans)]) if rows else np.zeros(0, np.int64)
        keys = np.repeat(np.asarray(numbers)[[order[i] for i in rows]], spans) if rows else np.zeros(0, np.int64)
        u = keyed_uniforms(config.seed, keys, places, device) if config.temperature and len(at) else None
        drawn = keyed_tokens(logits[torch.from_numpy(at).to(device)], config, u).tolist()
        # the clock after each row's tokens that stay: its own and its kept proposals, not its refused ones
        last = [drawing[i] - 1 if drawing[i] else max(counts[i] - 1, 0) for i in range(n)]
        first = 0
        for i, m in zip(rows, spans):
            d, proposal = drawn[first : first + m], fed[i][drawing[i] :]
            first += m
            k = 0
            while k < len(proposal) and d[k] == proposal[k]:
                k += 1
            stats.proposed += len(proposal)
            stats.accepted += k
            new = proposal[:k]
            ended = eos_id in new
            if ended:
                new = new[: new.index(eos_id) + 1]
            else:
                new.append(d[k])
                ended = d[k] == eos_id
            seqs[i] += new
            for token in new:
                drafts[i].feed(token)
            cached[i] += drawing[i] + k
            last[i] += k
            if ended or len(seqs[i]) >= cap or cached[i] >= room:  # done, or no room for its next token
                alive[i] = False
                stats.generated_tokens += len(seqs[i]) - len(prompts[order[i]])
                finished(order[i], seqs[i], not ended and len(seqs[i]) < cap)
        for i in range(n):
            if fed[i] and not drawing[i]:
                cached[i] += counts[i]
        if model.config.tick_id is not None:
            ticks = model.clock_from(x_dev, ticks).gather(1, torch.tensor(last, device=device)[:, None]).squeeze(1)
        dead = n - sum(alive)
        if dead * 8 >= n:  # finished rows leave in bulk (a move copies cache rows), new ones come in
            # the rows that go on, longest first: runs of rows of like lengths are what attention saves on
            keep = sorted((i for i in range(n) if alive[i]), key=lambda i: -cached[i])
            store.move_rows(keep, [cached[i] for i in keep])
            order, seqs, drafts, cached = ([xs[i] for i in keep] for xs in (order, seqs, drafts, cached))
            alive = [True] * len(keep)
            ticks = ticks[torch.tensor(keep, dtype=torch.long, device=device)]
            take(slots - len(keep))
