"""Sampling throughput: batched KV-cache generation against full recomputation, at sequence length L.

Run from the repository root:  python -m benchmarks.bench_sampling  [--quick] [--length 1000] [--json PATH]

The baseline recomputes the whole prefix for every new token (what a model without a
KV cache must do; its total is summed from timed steps spread over the sequence); both run the same model on the same batch, measured in the same
run, so their ratio is what the cache buys. EOS is masked out so every sequence runs
to exactly L tokens. Also a table of KV-cache throughput against batch size.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from gamegrammar.model import GameGPT, preset
from gamegrammar.sampling import SamplingConfig, SamplingStats, generate

VOCAB = 250
NO_EOS = -1  # an id no model emits: sequences run to max_length


@torch.no_grad()
def full_recompute(model: GameGPT, batch: int, length: int, probes: int = 12) -> float:
    """Seconds to write `length` tokens per row by re-running the whole prefix at every step.

    Step t costs one forward pass over t tokens and nothing else, so the total is
    measured by timing `probes` steps spread evenly over 1..length-1 and summing
    the interpolated step times: the same figure, without minutes of waiting.
    """
    seq = torch.randint(0, VOCAB, (batch, length))
    points = torch.linspace(1, length - 1, probes).round().long().unique().tolist()
    times = []
    for t in points:
        start = time.perf_counter()
        logits, _ = model(seq[:, :t])
        torch.multinomial(torch.softmax(logits[:, -1].float(), -1), 1)
        times.append(time.perf_counter() - start)
    steps = torch.arange(1, length).float()
    return float(np.interp(steps.numpy(), points, times).sum())


def kv_cache(model: GameGPT, batch: int, length: int) -> tuple[float, int]:
    stats = SamplingStats()
    generate(model, [[2]] * batch, NO_EOS, SamplingConfig(max_length=length, batch_size=batch, seed=0), stats)
    return stats.seconds, stats.generated_tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds in all, for a smoke test")
    parser.add_argument("--preset", default="gg-cpu")
    parser.add_argument("--length", type=int, default=None, help="tokens per sequence (default 1000, quick 200)")
    parser.add_argument("--batch", type=int, default=None, help="sequences per batch (default 32, quick 8)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    length = args.length or (200 if args.quick else 1000)
    batch = args.batch or (8 if args.quick else 32)
    torch.manual_seed(0)
    model = GameGPT(preset(args.preset, vocab_size=VOCAB, block_size=max(length, 64), tick_id=4)).eval()  # any id: the clock counts it
    print(
        f"sampling: {args.preset} ({model.num_params():,} parameters), {batch} sequences x {length} tokens, {torch.get_num_threads()} threads"
    )
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
    for b in (1, 8, 32, 128) if not args.quick else (1, 8):
        seconds, n = kv_cache(model, b, length // 2)
        scaling[b] = n / seconds
        print(f"{b:>8}{scaling[b]:>12,.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tokens_per_s": rows, "batch_scaling": scaling, "length": length, "batch": batch}, f, indent=2)


if __name__ == "__main__":
    main()
