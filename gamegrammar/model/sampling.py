"""Batched generation with the KV cache.

All rows of a batch advance together, so they share the cache position. Prompts
of different lengths are handled by prefilling the shortest common prefix and
then *forcing* each row's remaining prompt tokens through the decode loop. Rows
that finish (EOS or the length cap) leave the batch and the cache, so they stop
costing work (in bulk, once a quarter of the rows are done, since leaving moves
cache rows). When the cache is full (the sequence is longer than the model's
context) the window slides: the cache is rebuilt from the last half-context of
every row. Models whose context covers whole episodes never slide.

What keeps it fast on a small CPU (benchmarks/bench_sampling.py measures it against the
sampler before): one cache for the whole call, refilled in place by every batch and every
slide, since allocating hundreds of MB costs more than many decode steps; finished rows
leave by moving the rows after them down in place, only the filled positions; the grammar
mask is two table lookups per step for the whole batch (`GrammarMask`); and no per-row
Python in the loop. The samples are the same as the simple loop's, token for token.

With a rules draft (`draft=`) the prompts go instead through the speculative sampler's pool
(`gamegrammar.model.speculative.drafted_pool`): several tokens a pass, sequences finishing in any order, the same
samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.gamespec import Automaton, RuleDraft
from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model.decoding import SamplingConfig, SamplingStats, filter_logits, keyed_tokens, keyed_uniforms, next_tokens
from gamegrammar.model.gpt import GameGPT, KVCache
from gamegrammar.model.speculative import DraftStore, IdDraft, drafted_pool

__all__ = ["GrammarMask", "SamplingConfig", "SamplingProgress", "SamplingStats", "filter_logits", "generate", "next_tokens"]


class GrammarMask:
    """Grammar-constrained decoding for a whole batch at once: automaton states numbered as they are met.

    A row's state is an index into two tables over the vocabulary: `allowed` (the row's mask) and `next`
    (the state after each token, filled the first time a (state, token) pair occurs). A step is then two
    tensor lookups for all rows; the automaton (Python) runs only for the pairs not met before in this call.
    """

    UNKNOWN = -1

    def __init__(self, tokenizer: GameTokenizer, automaton: Automaton, device: torch.device) -> None:
        self.automaton, self.tokenizer, self.device = automaton, tokenizer, device
        self.states: list[tuple] = []
        self.index: dict[tuple, int] = {}
        self._rows: dict[frozenset[str], Tensor] = {}  # allowed set -> its mask row
        self._steps: dict[tuple[int, int], int] = {}  # (state, token) -> state: the table's source, while it grows
        self.allowed = torch.zeros(0, len(tokenizer), dtype=torch.bool, device=device)
        self.next = torch.full((0, len(tokenizer)), self.UNKNOWN, dtype=torch.long, device=device)

    def state_id(self, state: tuple) -> int:
        """The number of an automaton state, its mask row added the first time it is met."""
        found = self.index.get(state)
        if found is not None:
            return found
        n = len(self.states)
        if n == len(self.allowed):  # grow both tables by doubling
            more = max(64, n)
            self.allowed = torch.cat((self.allowed, self.allowed.new_zeros(more, self.allowed.size(1))))
            self.next = torch.cat((self.next, self.next.new_full((more, self.next.size(1)), self.UNKNOWN)))
        allowed = self.automaton.allowed(state)
        row = self._rows.get(allowed)
        if row is None:
            row = torch.zeros(len(self.tokenizer), dtype=torch.bool, device=self.device)
            ids = self.tokenizer.ids  # an automaton may allow words of a grammar option this vocabulary lacks
            row[[ids[t] for t in allowed if t in ids]] = True
            self._rows[allowed] = row
        self.allowed[n] = row
        self.states.append(state)
        self.index[state] = n
        return n

    def start(self, rows: int) -> Tensor:
        return torch.full((rows,), self.state_id(self.automaton.start()), dtype=torch.long, device=self.device)

    def mask(self, states: Tensor) -> Tensor:
        """[rows, vocab]: the tokens the grammar allows next in each row."""
        return self.allowed[states]

    def step(self, states: Tensor, token_ids: Tensor) -> Tensor:
        """Every row's state after its token; a token the grammar forbids (only a prompt can hold one) is an error."""
        nxt = self.next[states, token_ids]
        new = torch.nonzero(nxt < 0).squeeze(-1)
        if len(new):  # pairs not in the table yet: ask the automaton once each
            s, t = states[new], token_ids[new]
            found = torch.tensor([self._transition(*pair) for pair in zip(s.tolist(), t.tolist())], device=self.device)
            self.next[s, t] = nxt[new] = found
        return nxt

    def _transition(self, state: int, token_id: int) -> int:
        found = self._steps.get((state, token_id))
        if found is None:
            token = self.tokenizer.tokens[token_id]
            nxt = self.automaton.step(self.states[state], token)
            if nxt is None:
                what = self.states[state][0]
                raise GameGrammarError(f"the grammar does not allow {token!r} here (state {what}): is the prompt a valid prefix?")
            found = self._steps[state, token_id] = self.state_id(nxt)
        return found


@dataclass
class SamplingProgress:
    """Where a `generate` call stands between two batches: the finished sequences, for the first len(sequences)
    prompts. Enough to carry on token for token after an interruption: every draw is keyed by its sequence and
    position (`decoding.keyed_uniforms`), so the rest is sampled as it would have been."""

    sequences: list[list[int]]


@torch.inference_mode()
def generate(
    model: GameGPT,
    prompts: list[list[int]],
    eos_id: int,
    config: SamplingConfig | None = None,
    stats: SamplingStats | None = None,
    grammar: tuple[GameTokenizer, Automaton] | None = None,
    progress: Callable[[int], None] | None = None,
    resume: SamplingProgress | None = None,
    after_batch: Callable[[SamplingProgress], None] | None = None,
    draft: tuple[GameTokenizer, Callable[[], RuleDraft]] | None = None,
) -> list[list[int]]:
    """Continue every prompt until EOS or `config.max_length` tokens; returns whole sequences (prompt included).

    `grammar` (the tokenizer and the game's grammar automaton, `GameSpec.automaton(config)`) is needed only
    with `config.constrained`. `progress` is called with the number of sequences that have just finished, as
    they finish: a batch of a thousand takes minutes on a CPU. `after_batch` hears where the call stands after
    each batch, and `resume` starts from such a point (same model, prompts and config): the result is the same
    as an uninterrupted call's, and `stats` then counts only the batches this call samples.

    `draft` (the tokenizer and a maker of the game's rules draft, `GameSpec.rule_draft`) samples speculatively
    (`gamegrammar.model.speculative`): the same samples in fewer passes (the same up to rounding: a pass of several
    tokens rounds the logits a little differently). It is not used with `config.constrained`.
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
    out: list[list[int]] = []
    if resume is not None:
        if len(resume.sequences) > len(prompts):
            raise GameGrammarError(f"cannot resume after {len(resume.sequences)} of {len(prompts)} sequences")
        out = [list(seq) for seq in resume.sequences]
    mask = GrammarMask(*grammar, device) if config.constrained and grammar is not None else None
    if len(out) == len(prompts):
        return out  # a resumed run that had finished sampling: no cache to allocate
    # One cache for every batch: allocating (and page-faulting) hundreds of MB per batch or per slide costs
    # more than many decode steps on a small CPU.
    rows, context = min(config.batch_size, len(prompts)), min(model.config.block_size, config.max_length)
    drafted = draft is not None and not config.constrained
    store = DraftStore(model, rows, context) if drafted else model.new_cache(rows, context)

    if isinstance(store, DraftStore) and draft is not None:
        _generate_drafted(model, prompts, out, eos_id, config, store, stats, draft, progress, after_batch)
        return out
    for first in range(len(out), len(prompts), config.batch_size):
        start = time.perf_counter()
        batch = prompts[first : first + config.batch_size]
        numbers = list(range(first, first + len(batch)))  # each row's sequence: the key of its draws
        cache = KVCache(store.k[:, : len(batch)], store.v[:, : len(batch)])
        out += _generate_batch(model, batch, numbers, eos_id, config, cache, stats, mask, progress)
        if device.type == "cuda":
            torch.cuda.synchronize()
        stats.seconds += time.perf_counter() - start
        stats.sequences += len(batch)
        if after_batch is not None:
            after_batch(SamplingProgress(out))
    return out


def _generate_drafted(
    model: GameGPT,
    prompts: list[list[int]],
    out: list[list[int]],
    eos_id: int,
    config: SamplingConfig,
    store: DraftStore,
    stats: SamplingStats,
    draft: tuple[GameTokenizer, Callable[[], RuleDraft]],
    progress: Callable[[int], None] | None,
    after_batch: Callable[[SamplingProgress], None] | None,
) -> None:
    """`generate`'s speculative way: `out` (the finished first sequences) extended to every prompt.

    The prompts go through one pool (`speculative.drafted_pool`) and finish in any order; `out` grows by the finished
    first ones, and `after_batch` hears of it each time it has grown by a batch. A sequence whose context filled, and a
    prompt longer than the context, are finished after the pool by the plain loop's sliding window, as the plain loop
    would go on at that point."""
    tokenizer, make = draft
    context = store.positions
    device = store.k.device
    mark = time.perf_counter()

    def clock() -> None:  # the seconds since the last mark, counted
        nonlocal mark
        if device.type == "cuda":
            torch.cuda.synchronize()
        now = time.perf_counter()
        stats.seconds += now - mark
        mark = now

    pool = [n for n in range(len(out), len(prompts)) if len(prompts[n]) <= context]
    # the plain loop's, after the pool: each with what it goes on from (its prompt, or its sequence where its context filled)
    later = {n: prompts[n] for n in range(len(out), len(prompts)) if len(prompts[n]) > context}
    done: dict[int, list[int]] = {}
    filled: set[int] = set()
    reported = len(out)

    def advance() -> None:  # the finished first sequences into `out`, and on record each batch of them
        nonlocal reported
        while len(out) in done:
            out.append(done.pop(len(out)))
            stats.sequences += 1
        if after_batch is not None and (len(out) - reported >= config.batch_size or len(out) == len(prompts)):
            clock()
            after_batch(SamplingProgress(out))
            reported = len(out)

    def finished(index: int, seq: list[int], full: bool) -> None:
        number = pool[index]
        if full:
            filled.add(number)
            later[number] = seq
            return
        if progress:
            progress(1)
        done[number] = seq
        if number == len(out):
            advance()

    drafted_pool(
        model,
        [prompts[n] for n in pool],
        pool,
        eos_id,
        tokenizer.pad_id,
        config,
        store,
        stats,
        lambda: IdDraft(make(), tokenizer),
        finished,
    )
    rest = sorted(later)
    for first in range(0, len(rest), config.batch_size):
        numbers = rest[first : first + config.batch_size]
        # a row whose context filled slides to its last half now, as the plain loop does at that point; a prompt longer
        # than the context starts as the plain loop starts it
        for rows, window in (([n for n in numbers if n in filled], max(1, context // 2)), ([n for n in numbers if n not in filled], None)):
            if rows:
                cache = KVCache(store.k[:, : len(rows), :, :context], store.v[:, : len(rows), :, :context])
                more = _generate_batch(model, [later[n] for n in rows], rows, eos_id, config, cache, stats, None, progress, window)
                done.update(zip(rows, more))
        advance()
    clock()


def _generate_batch(
    model: GameGPT,
    prompts: list[list[int]],
    numbers: list[int],
    eos_id: int,
    config: SamplingConfig,
    cache: KVCache,
    stats: SamplingStats,
    mask: GrammarMask | None = None,
    progress: Callable[[int], None] | None = None,
    window: int | None = None,
) -> list[list[int]]:
    """One batch through the decode loop (`window`: the first pass's window, if not the whole prompt up to the context). Per step: one forward pass, one draw for the whole batch, and a few
    tensor ops; Python-side bookkeeping is plain ints (no per-row loops)."""
    B, cap = len(prompts), config.max_length
    length = min(map(len, prompts))  # every active row holds `length` tokens
    if length >= cap:  # every prompt fills the cap: nothing to write
        if progress:
            progress(B)
        return [list(p) for p in prompts]
    device = cache.k.device
    context, tick_id = model.config.block_size, model.config.tick_id
    longest = max(map(len, prompts))
    tokens = torch.zeros(B, cap, dtype=torch.long, device=device)
    for i, p in enumerate(prompts):
        tokens[i, : len(p)] = torch.tensor(p, device=device)
    prompt_len = torch.tensor([len(p) for p in prompts], device=device)
    keys = np.asarray(numbers, np.int64)
    lengths = torch.full((B,), cap, device=device)  # final length of each row
    active = torch.arange(B, device=device)  # rows in the cache, in cache order
    alive = torch.ones(B, dtype=torch.bool, device=device)  # ... of which these are still being written
    riding = 0  # rows in the cache that are finished: they ride along until compaction, what they write is dropped

    def prefill(window: int) -> Tensor:
        cache.pos = 0  # (re)fill the cache in place: a slide reuses its memory
        # the game clock of a window that starts mid-episode: the ticks before it (rows hold one episode each)
        cache.ticks = (tokens[active, : length - window] == tick_id).sum(1) if tick_id is not None else torch.zeros_like(active)
        logits, _ = model(tokens[active, length - window : length], cache=cache)
        return logits[:, -1]

    last = prefill(min(length, context) if window is None else window)
    states = None
    if mask is not None:
        states = mask.start(B)
        for t in range(length):
            states = mask.step(states, tokens[:, t])
    while True:
        if mask is not None:
            allowed = mask.mask(states[active])
            if riding:
                allowed[~alive] = True  # finished rows riding along until compaction: anything goes, nothing is kept
            last = last.masked_fill(~allowed, float("-inf"))
        u = keyed_uniforms(config.seed, keys[active.cpu().numpy()], np.full(len(active), length), device) if config.temperature else None
        chosen = keyed_tokens(last, config, u)
        if length < longest:  # some rows are still reading their prompt: their next token is forced
            forced = length < prompt_len[active]
            chosen = torch.where(forced, tokens[active, length], chosen)
            free = ~forced & alive
            stats.generated_tokens += int(free.sum())
            ends = free & (chosen == eos_id)
        else:
            stats.generated_tokens += len(active) - riding
            ends = chosen == eos_id
            if riding:
                ends &= alive
        tokens[active, length] = chosen  # finished rows write too, past their end: nothing reads it
        if mask is not None:
            if riding:
                rows = active[alive]
                states[rows] = mask.step(states[rows], chosen[alive])
            else:
                states[active] = mask.step(states[active], chosen)
        length += 1
        done = alive if length >= cap else ends
        if bool(done.any()):
            if progress:
                progress(int(done.sum()))
            lengths[active[done]] = length
            alive = alive & ~done
            riding = len(active) - int(alive.sum())
            if riding == len(active):
                break
            # Finished rows leave the cache in bulk: a compaction moves cache rows, so wait
            # until a quarter of the rows are finished (until then they ride along).
            if riding * 4 >= len(active):
                keep = torch.nonzero(alive).squeeze(-1)
                active, alive, chosen = active[keep], alive[keep], chosen[keep]
                cache.select(keep)
                riding = 0
        if cache.pos == cache.max_len:  # the context is full: slide the window
            stats.slides += 1
            last = prefill(max(1, context // 2))
        else:
            logits, _ = model(chosen[:, None], cache=cache)
            last = logits[:, -1]
        stats.passes += 1
    rows = tokens[:, : int(lengths.max())].tolist()
    return [row[:n] for row, n in zip(rows, lengths.tolist())]
