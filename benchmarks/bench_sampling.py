"""Sampling throughput: today's sampler against the one before it, and the KV cache against full recomputation.

Run from the repository root:  python -m benchmarks.bench_sampling  [--quick] [--threads N] [--repeats N] [--json PATH]
                               [--device cuda] [--preset gg-gpu] [--scaling-batches 1,32,256,1000]

1. This sampler against `baseline_generate`, a faithful copy of the sampler as it was before it was made
   faster (its loop, its per-row grammar mask, a zeroed cache allocated per batch and per slide, compaction
   by copying the whole cache), both measured in this run on the same model, prompts and seed, at the batch
   sizes a self-play loop uses: Snake (gg-cpu, context 1536), Snake with the grammar mask, and Battlesnake
   (gg-cpu at context 1024: its episodes outgrow the context, so the window slides). The untrained models
   write EOS about as often as a game ends (`rare_eos`), so rows end at spread-out lengths as in real
   sampling. Both samplers must return the same sequences: the table says so. Where `--dtype auto` computes in
   another format on this machine (bfloat16, or mixed: bf16 matmuls beside a float32 KV cache), the Snake rows run
   again with today's sampler in it (the sampler before in float32, as it ran; their samples differ by rounding),
   each row held to the bound of its own format.
2. The KV cache against full recomputation (what a model without a cache must do; its total is summed
   from timed steps spread over the sequence), at sequence length L with EOS masked out, and a table of
   KV-cache throughput against batch size.

The weights are random: throughput depends on them only through where EOS falls. Timings depend on what
else the machine is doing: compare figures from one run.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.games import load_game, tokenizer_for
from gamegrammar.model import GameGPT, KVCache, preset
from gamegrammar.model.decoding import keyed_tokens, keyed_uniforms
from gamegrammar.model.precision import Precision, choose_precision, for_generation
from gamegrammar.model.sampling import SamplingConfig, SamplingStats, generate

from .roofline import Machine, Recorder

VOCAB = 250
FLOAT32 = Precision(torch.float32, "the sampler's own")
SAME = {True: "yes", False: "NO", None: "n/a"}  # n/a: a row in another dtype rounds differently, so its samples may differ
NO_EOS = -1  # an id no model emits: sequences run to max_length


# ---------------------------------------------------------------- the sampler before it was made faster


def _baseline_new_cache(model: GameGPT, batch_size: int, max_len: int) -> KVCache:
    """GameGPT.new_cache as it was: the whole cache zeroed."""
    p, c = next(model.parameters()), model.config
    shape = (c.n_layer, batch_size, c.n_head, max_len, c.n_embd // c.n_head)
    return KVCache(torch.zeros(shape, dtype=p.dtype, device=p.device), torch.zeros(shape, dtype=p.dtype, device=p.device))


def _baseline_select(cache: KVCache, rows: Tensor) -> None:
    """KVCache.select as it was: a copy of the kept rows at every position, filled or not."""
    cache.k, cache.v, cache.ticks = cache.k[:, rows], cache.v[:, rows], cache.ticks[rows]


class _BaselineGrammarMask:
    """The per-row grammar mask as it was: a Python automaton step per row and per token."""

    def __init__(self, tokenizer, automaton, device: torch.device) -> None:
        self.automaton, self.tokenizer, self.device = automaton, tokenizer, device
        self._masks: dict[frozenset[str], Tensor] = {}

    def mask(self, states: list[tuple]) -> Tensor:
        rows = []
        for state in states:
            allowed = self.automaton.allowed(state)
            if allowed not in self._masks:
                m = torch.zeros(len(self.tokenizer), dtype=torch.bool, device=self.device)
                ids = self.tokenizer.ids
                m[[ids[t] for t in allowed if t in ids]] = True
                self._masks[allowed] = m
            rows.append(self._masks[allowed])
        return torch.stack(rows)

    def step(self, state: tuple, token_id: int) -> tuple:
        nxt = self.automaton.step(state, self.tokenizer.tokens[token_id])
        if nxt is None:
            raise GameGrammarError(f"the grammar does not allow {self.tokenizer.tokens[token_id]!r} here")
        return nxt


@torch.no_grad()
def baseline_generate(
    model: GameGPT, prompts: list[list[int]], eos_id: int, config: SamplingConfig, stats: SamplingStats, grammar=None
) -> list[list[int]]:
    """gamegrammar.model.sampling.generate as it was before it was made faster (same arguments, same samples). Its
    draws are today's keyed ones (`decoding.keyed_tokens`; it drew from a torch generator then), so that both write the
    same samples: the draw is a few operations a step in either."""
    model.eval()
    device = next(model.parameters()).device
    mask = _BaselineGrammarMask(*grammar, device) if config.constrained and grammar is not None else None
    out: list[list[int]] = []
    start = time.perf_counter()
    for first in range(0, len(prompts), config.batch_size):
        out += _baseline_batch(model, prompts[first : first + config.batch_size], first, eos_id, config, device, stats, mask)
    stats.seconds += time.perf_counter() - start
    stats.sequences += len(prompts)
    return out


def _baseline_batch(model, prompts, first, eos_id, config, device, stats, mask) -> list[list[int]]:
    B, cap = len(prompts), config.max_length
    context = model.config.block_size
    tokens = torch.zeros(B, cap, dtype=torch.long, device=device)
    prompt_len = torch.tensor([len(p) for p in prompts], device=device)
    for i, p in enumerate(prompts):
        tokens[i, : len(p)] = torch.tensor(p, device=device)
    lengths = torch.full((B,), cap, device=device)
    active = torch.arange(B, device=device)
    alive = torch.ones(B, dtype=torch.bool, device=device)
    length = int(prompt_len.min())
    tick_id = model.config.tick_id

    def prefill(window: int):
        cache = _baseline_new_cache(model, len(active), min(context, cap))
        if tick_id is not None:
            cache.ticks = (tokens[active, : length - window] == tick_id).sum(1)
        logits, _ = model(tokens[active, length - window : length], cache=cache)
        return logits[:, -1], cache

    last, cache = prefill(min(length, context))
    states: list[tuple] = []
    if mask is not None:
        for p in prompts:
            state = mask.automaton.start()
            for t in p[:length]:
                state = mask.step(state, t)
            states.append(state)
    while True:
        forced = length < prompt_len[active]
        if mask is not None:
            allowed = mask.mask([states[r] for r in active.tolist()])
            allowed[~alive] = True
            last = last.masked_fill(~allowed, float("-inf"))
        u = keyed_uniforms(config.seed, first + active.cpu().numpy(), np.full(len(active), length), device) if config.temperature else None
        sampled = keyed_tokens(last, config, u)
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
            if int((~alive).sum()) * 4 >= len(active):
                keep = torch.nonzero(alive).squeeze(-1)
                active, alive, chosen = active[keep], alive[keep], chosen[keep]
                _baseline_select(cache, keep)
        if cache.pos == cache.max_len:
            stats.slides += 1
            last, cache = prefill(max(1, context // 2))
        else:
            logits, _ = model(chosen[:, None], cache=cache)
            last = logits[:, -1]
    return [tokens[i, : lengths[i]].tolist() for i in range(B)]


# ---------------------------------------------------------------- today's sampler against the baseline


@dataclass(frozen=True)
class Workload:
    name: str
    model: GameGPT
    eos_id: int
    max_length: int
    runs: tuple[tuple[int, int], ...]  # (batch size, sequences)
    grammar: tuple | None = None
    precision: Precision = FLOAT32  # what today's sampler computes in; the sampler before always ran float32


def rare_eos(model: GameGPT, eos_id: int, mean_length: int) -> GameGPT:
    """Make an untrained model write EOS about once in `mean_length` tokens instead of once in vocab_size.

    Rows then end at lengths spread around a real game's mean, and that decides what sampling costs (how long
    contexts grow, how often rows leave the batch, how often the window slides). EOS's logit is lowered by
    log(mean_length / vocab_size) through the final LayerNorm's bias: the head, tied to the embedding, has none.
    """
    w = model.wte.weight[eos_id]
    with torch.no_grad():
        model.ln_f.bias -= math.log(mean_length / model.config.vocab_size) * w / w.dot(w)
    return model


def workloads(quick: bool, device: torch.device) -> list[Workload]:
    """What a self-play loop samples, at the batch sizes it uses (quick: small and short, a smoke test)."""
    snake, bs = load_game("snake"), load_game("battlesnake")
    snake_config, bs_config = snake.config_type(), bs.config_type()  # the default games
    snake_tok, bs_tok = tokenizer_for(snake_config), tokenizer_for(bs_config)
    torch.manual_seed(0)
    # Snake: gg-cpu (a whole episode fits the context), episodes of ~500 tokens (DESIGN.md), the cap
    # `gamegrammar sample` sets for a Snake corpus (2304 tokens)
    snake_model = GameGPT(preset("gg-cpu", vocab_size=len(snake_tok), tick_id=snake_tok.ids[snake.tick_token])).eval().to(device)
    rare_eos(snake_model, snake_tok.eos_id, 150 if quick else 500)
    # `gamegrammar ouroboros` measures each generation on 200 samples in batches of 64
    snake_cap, snake_runs = (400, ((16, 24),)) if quick else (2304, ((64, 200), (256, 256)))
    # Battlesnake: configs/bs-cpu.yaml's shape (context 1024, no tick clock), episodes of ~2400 tokens (its corpus,
    # keyframes every 20 ticks), and the cap it advises for sampling (6144): the window slides
    context = 256 if quick else 1024
    bs_config_model = preset("gg-cpu", vocab_size=len(bs_tok), block_size=context, tick_table=0, tick_id=bs_tok.ids[bs.tick_token])
    bs_model = GameGPT(bs_config_model).eval().to(device)
    rare_eos(bs_model, bs_tok.eos_id, 600 if quick else 2400)
    # the shipped model's shape (models/snake: gg-gpu, 8 layers, 384 wide, 14M parameters), what `evaluate` samples
    shipped = GameGPT(preset("gg-gpu", vocab_size=len(snake_tok), tick_id=snake_tok.ids[snake.tick_token], dropout=0.0)).eval().to(device)
    rare_eos(shipped, snake_tok.eos_id, 150 if quick else 500)
    shipped_runs = ((8, 8),) if quick else ((64, 64),)
    loads = [
        Workload("snake", snake_model, snake_tok.eos_id, snake_cap, snake_runs),
        Workload("snake, gg-gpu shape", shipped, snake_tok.eos_id, snake_cap, shipped_runs),
        Workload("snake, grammar mask", snake_model, snake_tok.eos_id, snake_cap, snake_runs, (snake_tok, snake.automaton(snake_config))),
        Workload("battlesnake", bs_model, bs_tok.eos_id, context * 6, ((4, 4),) if quick else ((16, 16), (64, 64))),
    ]
    # What `--dtype auto` computes in on this machine: where that is not float32, the same Snake rows again in it, against
    # the sampler before in float32 (as it ran), each held to the bound of its own format
    for w in loads[:2]:
        precision = choose_precision("auto", w.model)
        print(f"--dtype auto for the {w.name} model here: {precision}")
        if precision.name != "float32":
            loads.append(Workload(f"{w.name}, {precision.name}", w.model, w.eos_id, w.max_length, w.runs, precision=precision))
    return loads


def compare(w: Workload, batch: int, sequences: int, machine: Machine, repeats: int = 1) -> dict[str, float]:
    """Both samplers on the same prompts (BOS, seed 0), `repeats` times each, the order alternating
    (baseline first in odd rounds), and the best rate of each: on a shared machine the load drifts."""
    prompts = [[w.model.config.bos_id]] * sequences
    config = SamplingConfig(max_length=w.max_length, batch_size=batch, seed=0, constrained=w.grammar is not None)
    now_model = for_generation(w.model, w.precision)
    rates: dict[str, list[float]] = {"before": [], "now": []}
    out: dict[str, list[list[int]]] = {}
    for r in range(repeats):
        for name in ("before", "now") if r % 2 == 0 else ("now", "before"):
            stats = SamplingStats()
            if name == "before":
                out[name] = baseline_generate(w.model, prompts, w.eos_id, config, stats, w.grammar)
            else:
                with Recorder(now_model) as recorder:  # the passes this run made: the bound is theirs
                    out[name] = generate(now_model, prompts, w.eos_id, config, stats, w.grammar)
                bound = stats.generated_tokens / recorder.bound_seconds(machine)
            rates[name].append(stats.tokens_per_second)
            tokens, slides = stats.generated_tokens, stats.slides
    return {
        "batch": batch,
        "sequences": sequences,
        "tokens": tokens,
        "mean_length": float(np.mean([len(s) for s in out["now"]])),
        "slides": slides,
        "baseline_tokens_per_s": max(rates["before"]),
        "tokens_per_s": max(rates["now"]),
        "speedup": max(rates["now"]) / max(rates["before"]),
        "bound_tokens_per_s": bound,
        "of_bound": max(rates["now"]) / bound,
        "same_samples": out["before"] == out["now"] if w.precision == FLOAT32 else None,  # other rounding: not expected
    }


# ---------------------------------------------------------------- the KV cache against full recomputation


@torch.no_grad()
def full_recompute(model: GameGPT, batch: int, length: int, probes: int = 12) -> float:
    """Seconds to write `length` tokens per row by re-running the whole prefix at every step.

    Step t costs one forward pass over t tokens and nothing else, so the total is
    measured by timing `probes` steps spread evenly over 1..length-1 and summing
    the interpolated step times: the same figure, without minutes of waiting.
    """
    device = next(model.parameters()).device
    seq = torch.randint(0, VOCAB, (batch, length)).to(device)
    points = torch.linspace(1, length - 1, probes).round().long().unique().tolist()
    times = []
    for t in points:
        start = time.perf_counter()
        logits, _ = model(seq[:, :t])
        torch.multinomial(torch.softmax(logits[:, -1].float(), -1), 1).tolist()  # .tolist(): the step is done (on a GPU too)
        times.append(time.perf_counter() - start)
    steps = torch.arange(1, length).float()
    return float(np.interp(steps.numpy(), points, times).sum())


def kv_cache(model: GameGPT, batch: int, length: int) -> tuple[float, int]:
    stats = SamplingStats()
    generate(model, [[2]] * batch, NO_EOS, SamplingConfig(max_length=length, batch_size=batch, seed=0), stats)
    return stats.seconds, stats.generated_tokens


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_sampling", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--preset", default="gg-cpu")
    parser.add_argument("--length", type=int, default=None, help="tokens per sequence against full recomputation (default 1000, quick 200)")
    parser.add_argument("--batch", type=int, default=None, help="sequences per batch against full recomputation (default 32, quick 8)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's, one per core)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each sampler per row, the best kept (default 1)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--device", default="cpu", help="cpu, cuda, ... (default: cpu)")
    parser.add_argument(
        "--skip-baseline", action="store_true", help="leave out part 1 (the sampler before it was made faster; the roofline)"
    )
    parser.add_argument(
        "--dtype", default="float32", choices=("float32", "bfloat16"), help="weights and KV cache of part 2 (default float32)"
    )
    parser.add_argument(
        "--scaling-batches", default=None, help="batch sizes of the throughput table, comma-separated (default 1,8,32,128; quick 1,8)"
    )
    args = parser.parse_args()
    device = torch.device(args.device)
    scaling_batches = (
        [int(b) for b in args.scaling_batches.split(",")] if args.scaling_batches else [1, 8] if args.quick else [1, 8, 32, 128]
    )
    if args.threads:
        torch.set_num_threads(args.threads)
    length = args.length or (200 if args.quick else 1000)
    batch = args.batch or (8 if args.quick else 32)

    best = f", best of {args.repeats} alternating runs each" if args.repeats > 1 else ""
    where = f"{torch.get_num_threads()} threads" if device.type == "cpu" else str(device)
    loads = [] if args.skip_baseline else workloads(args.quick, device)
    machines: dict[int, Machine] = {}  # the peak at each model width's own shapes
    for w in loads:
        if w.model.config.n_embd not in machines:
            machines[w.model.config.n_embd] = machine = Machine.measure(w.model)
            print(f"{machine.describe()}, {w.model.config.n_embd} wide")
    if loads:
        print(
            "bound: each pass's least time, max(bytes read / bandwidth, FLOPs / matmul peak), in the format the row computes in, "
            "summed over the run's own passes (weights once per pass, each row's keys and values once per layer)"
        )
        print(f"\nsampling against the sampler before it was made faster (same run, same samples), {where}{best}")
        print(
            f"{'workload':<30}{'batch':>6}{'seqs':>6}{'tokens':>9}{'mean len':>9}{'slides':>7}{'before tok/s':>14}{'now tok/s':>11}"
            f"{'x before':>9}{'same':>6}{'bound tok/s':>13}{'of bound':>10}"
        )
    against_baseline = []
    for w in loads:
        for b, n in w.runs:
            r = {"workload": w.name, **compare(w, b, n, machines[w.model.config.n_embd], args.repeats)}
            against_baseline.append(r)
            print(
                f"{w.name:<30}{b:>6}{n:>6}{r['tokens']:>9,}{r['mean_length']:>9.0f}{r['slides']:>7}"
                f"{r['baseline_tokens_per_s']:>14,.0f}{r['tokens_per_s']:>11,.0f}{r['speedup']:>9.2f}{SAME[r['same_samples']]:>6}"
                f"{r['bound_tokens_per_s']:>13,.0f}{r['of_bound']:>10.0%}",
                flush=True,
            )

    torch.manual_seed(0)
    model = GameGPT(preset(args.preset, vocab_size=VOCAB, block_size=max(length, 64), tick_id=4)).eval()  # any id: a clock
    model = model.to(device, getattr(torch, args.dtype))
    print(f"\nsampling: {args.preset} ({model.num_params():,} parameters, {args.dtype}), {batch} sequences x {length} tokens, {where}")
    kv_seconds, tokens = kv_cache(model, batch, length)
    full_seconds = full_recompute(model, batch, length)
    rows = {
        "full recompute (baseline)": tokens / full_seconds,
        "KV cache": tokens / kv_seconds,
    }
    print(f"{'method':<28}{'tokens/s':>12}{'x baseline':>12}")
    for name, rate in rows.items():
        print(f"{name:<28}{rate:>12,.0f}{rate / rows['full recompute (baseline)']:>12.1f}")
    scaling = {}
    print(f"\nKV-cache throughput against batch size ({length // 2} tokens per sequence)")
    print(f"{'batch':>8}{'tokens/s':>12}")
    for b in scaling_batches:
        seconds, n = kv_cache(model, b, length // 2)
        scaling[b] = n / seconds
        print(f"{b:>8}{scaling[b]:>12,.0f}")
    if args.json:
        with open(args.json, "w") as f:
            figures = {
                "machines": {width: vars(m) for width, m in machines.items()},
                "against_baseline": against_baseline,
                "tokens_per_s": rows,
                "batch_scaling": scaling,
                "length": length,
                "batch": batch,
            }
            json.dump(figures, f, indent=2)


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_sampling"))
