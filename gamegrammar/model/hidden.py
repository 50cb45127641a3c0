"""Hidden states and next-token log-probabilities of a GameGPT over whole episodes, for the analyses.

Game-agnostic: it reads token ids and the model, never a game. Every analysis reads
its numbers against `random_like(model)`, an untrained twin of the same shape.

The model is not changed for this: per-layer states come from forward hooks on
`model.blocks[i]` (and a pre-hook on the first block for the embeddings, a hook
on `model.ln_f` for the final normalised state that the output head reads), so
whatever the model's forward does (tick clock, caches) stays the one truth.

Episodes longer than the model's context are read in windows that overlap by
half a context, as `fidelity.teacher_forced` does; each position's outputs come
from the first window that covers it after the previous window's end, so every
position but those of the first window sees at least half a context of history.
The game clock (ticks since BOS) of a window that starts mid-episode is carried
through a KV cache, as the sampler does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch import Tensor

from gamegrammar.model.gpt import GameGPT, KVCache


def random_like(model: GameGPT, seed: int = 0) -> GameGPT:
    """A randomly initialised model of the same shape: the floor every learned number is read against."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        fresh = GameGPT(model.config)
    return fresh.to(next(model.parameters()).device).eval()


def layer_names(model: GameGPT) -> list[str]:
    """Readable names of the residual-stream states: the embeddings, each block's output, and the final LayerNorm's."""
    return ["embed", *(f"block{i + 1}" for i in range(len(model.blocks))), "final"]


@dataclass
class EpisodeOutputs:
    """logp[t] holds log P(token t+1 | tokens 0..t); hidden[name][t] the state at input position t."""

    logp: Tensor  # [T, V] float32 on the CPU
    hidden: dict[str, Tensor] = field(default_factory=dict)  # name -> [T, C] float32 on the CPU


@contextmanager
def capture(model: GameGPT, names: Sequence[str]) -> Iterator[dict[str, Tensor]]:
    """While open, every forward stores the named layers' outputs ([B, T, C]) in the yielded dict."""
    known = layer_names(model)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown layer(s) {unknown}; choose from {known}")
    store: dict[str, Tensor] = {}
    handles = []

    def keep(name: str):
        def hook(_module, _inputs, output):
            store[name] = output.detach()

        return hook

    if "embed" in names:
        handles.append(model.blocks[0].register_forward_pre_hook(lambda _m, args: store.__setitem__("embed", args[0].detach())))
    for i, block in enumerate(model.blocks):
        if f"block{i + 1}" in names:
            handles.append(block.register_forward_hook(keep(f"block{i + 1}")))
    if "final" in names:
        handles.append(model.ln_f.register_forward_hook(keep("final")))
    try:
        yield store
    finally:
        for h in handles:
            h.remove()


def _windows(length: int, context: int) -> list[tuple[int, int, int]]:
    """(start, end, keep_from) of each window: positions keep_from..end-1 take their outputs from it."""
    out, start, scored_to = [], 0, 0
    step = max(1, context // 2)
    while True:
        end = min(length, start + context)
        out.append((start, end, scored_to))
        scored_to = end
        if end == length:
            return out
        start += step


def _device(model: GameGPT) -> torch.device:
    return next(model.parameters()).device


@torch.no_grad()
def iter_outputs(
    model: GameGPT, episodes: Sequence[Sequence[int]], layers: Sequence[str] = (), batch_size: int = 16
) -> Iterator[EpisodeOutputs]:
    """EpisodeOutputs for each episode, in order, computed in batches of windows (one episode at a time in memory)."""
    model.eval()
    device = _device(model)
    context, tick_id = model.config.block_size, model.config.tick_id
    pending: list[tuple[int, list[int], int, int, int, int]] = []  # (episode, window ids, start, keep_from, end, ticks before)
    results: dict[int, EpisodeOutputs] = {}
    sizes: dict[int, int] = {}
    for e, ids in enumerate(episodes):
        ids = [int(t) for t in ids]
        sizes[e] = len(ids)
        for start, end, keep_from in _windows(len(ids), context):
            pending.append((e, ids[start:end], start, keep_from, end, sum(t == tick_id for t in ids[:start])))
        if len(pending) >= batch_size or e == len(episodes) - 1:
            for lo in range(0, len(pending), batch_size):
                _run_chunk(model, pending[lo : lo + batch_size], layers, results, sizes, device)
            pending = []
            for done in sorted(results):
                yield results.pop(done)


def _run_chunk(model: GameGPT, chunk, layers, results: dict[int, EpisodeOutputs], sizes: dict[int, int], device) -> None:
    width = max(len(w) for _, w, _, _, _, _ in chunk)
    batch = torch.zeros(len(chunk), width, dtype=torch.long, device=device)  # padding after a window cannot reach it (causal)
    for i, (_, w, _, _, _, _) in enumerate(chunk):
        batch[i, : len(w)] = torch.tensor(w, device=device)
    cache = model.new_cache(len(chunk), width)
    cache.ticks = torch.tensor([c[5] for c in chunk], device=device)
    with capture(model, layers) as store:
        logits = model(batch, cache=cache)[0]
    logp = torch.log_softmax(logits.float(), -1).cpu()
    states = {name: store[name].float().cpu() for name in layers}
    for i, (e, _, start, keep_from, end, _) in enumerate(chunk):
        if e not in results:
            n = sizes[e]
            results[e] = EpisodeOutputs(torch.empty(n, logp.shape[-1]), {name: torch.empty(n, states[name].shape[-1]) for name in layers})
        out = results[e]
        a, b = keep_from - start, end - start
        out.logp[keep_from:end] = logp[i, a:b]
        for name in layers:
            out.hidden[name][keep_from:end] = states[name][i, a:b]


def run_episodes(
    model: GameGPT, episodes: Sequence[Sequence[int]], layers: Sequence[str] = (), batch_size: int = 16
) -> list[EpisodeOutputs]:
    """All of `iter_outputs` at once (small inputs only: it keeps a [T, V] array per episode)."""
    return list(iter_outputs(model, episodes, layers, batch_size))


@torch.no_grad()
def next_logprobs(model: GameGPT, prefixes: Sequence[Sequence[int]], batch_size: int = 32) -> Tensor:
    """[N, V] log P(next token | prefix) for each prefix, read from its last `block_size` tokens (clock carried)."""
    model.eval()
    device = _device(model)
    context, tick_id = model.config.block_size, model.config.tick_id
    out = torch.empty(len(prefixes), model.config.vocab_size)
    order = sorted(range(len(prefixes)), key=lambda i: len(prefixes[i]))  # similar lengths together: less padding
    for lo in range(0, len(order), batch_size):
        rows = order[lo : lo + batch_size]
        windows, before = [], []
        for r in rows:
            ids = [int(t) for t in prefixes[r]]
            start = max(0, len(ids) - context)
            windows.append(ids[start:])
            before.append(sum(t == tick_id for t in ids[:start]))
        width = max(len(w) for w in windows)
        batch = torch.zeros(len(rows), width, dtype=torch.long, device=device)
        for i, w in enumerate(windows):
            batch[i, : len(w)] = torch.tensor(w, device=device)
        cache = model.new_cache(len(rows), width)
        cache.ticks = torch.tensor(before, device=device)
        logits = model(batch, cache=cache)[0]
        last = torch.tensor([len(w) - 1 for w in windows], device=device)
        picked = logits[torch.arange(len(rows), device=device), last]
        out[torch.tensor(rows)] = torch.log_softmax(picked.float(), -1).cpu()
    return out


def branch_logprobs(
    model: GameGPT, ids: Sequence[int], points: Sequence[int], candidates: Sequence[int], batch_size: int = 32
) -> list[Tensor]:
    """For each point p: [K, V] log P(next | ids[:p] + [c]) for each of the K candidate tokens c.

    `branch_sequences` with one token per candidate, the same K at every point: asking "what follows
    each possible X?" costs one token per candidate rather than a whole prefix.
    """
    one = torch.tensor([int(c) for c in candidates], dtype=torch.long)[None, :, None].expand(len(points), -1, -1)
    return [b[:, 0] for b in branch_sequences(model, ids, points, one, batch_size)]


@torch.no_grad()
def branch_sequences(
    model: GameGPT, ids: Sequence[int], points: Sequence[int], candidates: Tensor | Sequence[Sequence[Sequence[int]]], batch_size: int = 32
) -> list[Tensor]:
    """For the i-th point p: [K, L, V] log P(next | ids[:p] + c[: j + 1]) at each j < L, for each of its K candidate
    sequences c (candidates[i], [K, L]: K and L the same at every point, the sequences the point's own).

    The prefix is run once and its KV cache copied into K branches, each fed its L tokens, so
    asking "what follows each possible X and the words after it?" costs L tokens per candidate
    rather than a whole prefix; every j is returned, so a candidate's own tokens can be scored
    (the log-prob of c[j + 1] is at j) beside what follows it (at L - 1). Points whose prefix
    and branch fit the context share one forward of the episode's start; later points read
    their last block_size - L tokens, all of one length, so they are batched.
    """
    if not len(points):
        return []
    model.eval()
    device = _device(model)
    context, tick_id = model.config.block_size, model.config.tick_id
    ids = [int(t) for t in ids]
    seqs = torch.as_tensor(candidates, dtype=torch.long)
    if seqs.dim() != 3 or len(seqs) != len(points) or not 1 <= seqs.shape[2] < context:
        raise ValueError(f"candidates must be [points, K, L] with 1 <= L < {context} (the context), got {list(seqs.shape)}")
    k, n = seqs.shape[1], seqs.shape[2]
    first: dict[tuple[int, ...], int] = {}  # a point asked twice with the same candidates is branched once
    same = [first.setdefault((points[i], *seqs[i].flatten().tolist()), i) for i in range(len(points))]
    clock = [0]
    for t in ids:
        clock.append(clock[-1] + (t == tick_id))  # clock[p]: TICK tokens among ids[:p]
    out: dict[int, Tensor] = {}

    def branch(src: KVCache, rows: list[int], length: int, which: list[int]) -> None:
        shape = list(src.k.shape)
        shape[1], shape[3] = k * len(rows), length + n
        kk = torch.empty(shape, device=device, dtype=src.k.dtype)  # every slot is filled: the prefix copied, the branch written
        vv = torch.empty(shape, device=device, dtype=src.v.dtype)
        r = torch.tensor(rows, device=device)
        kk[:, :, :, :length] = src.k[:, r, :, :length].repeat_interleave(k, dim=1)
        vv[:, :, :, :length] = src.v[:, r, :, :length].repeat_interleave(k, dim=1)
        cache = KVCache(kk, vv, pos=length)
        cache.ticks = torch.tensor([clock[points[i]] for i in which for _ in range(k)], device=device)
        logits = model(seqs[which].reshape(-1, n).to(device), cache=cache)[0]
        logp = torch.log_softmax(logits.float(), -1).cpu()
        for j, i in enumerate(which):
            out[i] = logp[j * k : (j + 1) * k]

    width = context - n
    order = sorted(set(same), key=lambda i: points[i])
    short = [i for i in order if points[i] <= width]
    if short:
        shared = model.new_cache(1, points[short[-1]])
        model(torch.tensor([ids[: points[short[-1]]]], device=device), cache=shared)
        for i in short:
            branch(shared, [0], points[i], [i])
    long = [i for i in order if points[i] > width]
    step = max(1, batch_size // max(1, k) + 1)
    for lo in range(0, len(long), step):
        which = long[lo : lo + step]
        ps = [points[i] for i in which]
        src = model.new_cache(len(ps), width)
        src.ticks = torch.tensor([clock[p - width] for p in ps], device=device)
        model(torch.tensor([ids[p - width : p] for p in ps], device=device), cache=src)
        branch(src, list(range(len(ps))), width, which)
    return [out[i] for i in same]


def edited_logprobs(
    model: GameGPT, episodes: Sequence[Sequence[int]], prefixes: Sequence[tuple[int, Sequence[int]]], max_tail: int = 64
) -> Tensor:
    """[N, V] log P(next | prefix) for each (episode index, prefix), what `next_logprobs` gives for the prefixes.

    A counterfactual probe is an episode's own tokens up to some point and then a few others (an edited input,
    the words after it, a tick's other snakes), and its control the same with the real ones. Such a prefix, at
    most `max_tail` tokens (and a quarter context) past the start it shares with its episode, is a branch of one
    cached forward of the episode (`branch_sequences`, the same windows): an episode is read once for all its
    prefixes of one tail length, and a point's window once for all the tails there. Any other prefix is run whole.
    """
    out = torch.empty(len(prefixes), model.config.vocab_size)
    limit = min(max_tail, model.config.block_size // 4)  # longer tails: a branch saves little over a whole prefix
    shared = []
    for e, ids in prefixes:
        own = episodes[e]
        shared.append(next((j for j, (a, b) in enumerate(zip(ids, own)) if int(a) != int(b)), min(len(ids), len(own))))
    # A prefix wholly the episode's own (a control) may branch anywhere: where an edited prefix of the same
    # episode and length does, so the two share a window.
    edited_tails = {(e, len(ids)): len(ids) - cut for (e, ids), cut in zip(prefixes, shared) if cut < len(ids)}
    at: dict[tuple[int, int], dict[int, list[int]]] = {}  # (episode, tail length) -> point -> the prefixes there
    whole = []
    for i, ((e, ids), cut) in enumerate(zip(prefixes, shared)):
        if cut == len(ids):
            cut = len(ids) - min(edited_tails.get((e, len(ids)), 1), len(ids) - 1)
        if cut > 0 and len(ids) - cut <= limit:
            at.setdefault((e, len(ids) - cut), {}).setdefault(cut, []).append(i)
        else:
            whole.append(i)
    if whole:
        out[whole] = next_logprobs(model, [prefixes[i][1] for i in whole])
    for (e, _), by_point in at.items():
        points = sorted(by_point)
        k = max(len(rows) for rows in by_point.values())
        asked = [by_point[p] + by_point[p][-1:] * (k - len(by_point[p])) for p in points]  # k at every point: repeat the last
        tails = [[[int(t) for t in prefixes[i][1][p:]] for i in rows] for p, rows in zip(points, asked)]
        for p, branch in zip(points, branch_sequences(model, episodes[e], points, tails)):
            for j, i in enumerate(by_point[p]):
                out[i] = branch[j, -1]
    return out
