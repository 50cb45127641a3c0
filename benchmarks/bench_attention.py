"""Decoding attention on the CPU: our kernel (gamegrammar/model/row_attention.cpp) against torch's attention as the
model called it before, in the same run, at the shipped models' head shapes.

    python -m benchmarks.bench_attention            # float32 and bfloat16, 1 to 17 queries a row
    python -m benchmarks.bench_attention --quick

Each row is one layer of a decoding pass: `batch` rows each feeding `queries` tokens after `context` cached ones (a
plain step feeds 1, a drafted pass of `evaluate` up to 17, a tick of `play` about 5). torch's side is
`scaled_dot_product_attention` over the rows' keys up to the longest, with the per-row mask, as `gpt.py` calls it where
the kernel is not built; ours reads each row's keys once for all its queries. Bytes are the keys and values read once
a row; GB/s against the memory read bandwidth measured in the same run (benchmarks/roofline.py) says how near each is
to what the memory allows.
"""

from __future__ import annotations

import json
import time

import torch
import torch.nn.functional as F

from benchmarks.roofline import read_bandwidth
from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.core.errors import GameGrammarError
from gamegrammar.model import kernels

SHAPES = {"models/snake (8 heads x 48)": (8, 48), "gg-cpu (4 heads x 32)": (4, 32)}
CASES = [(64, 1), (256, 1), (64, 4), (256, 12), (256, 17)]  # (batch, queries a row)


def torch_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    B, _, T, _ = q.shape
    positions = lengths[:, None] + torch.arange(T)
    end = int(positions[:, -1].max()) + 1
    mask = torch.arange(end) <= positions[:, None, :, None]
    return F.scaled_dot_product_attention(q, k[:B, :, :end], v[:B, :, :end], attn_mask=mask)


def best(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_attention", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one shape, small batches")
    parser.add_argument("--context", type=int, default=500, help="cached tokens before each row's queries (default 500)")
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per row, the best kept (default 5)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if kernels.library() is None:
        raise GameGrammarError("the kernel could not be built here (no C++ compiler, or GAMEGRAMMAR_KERNELS=0)")
    torch.manual_seed(0)
    bandwidth = read_bandwidth(torch.device("cpu"))
    print(f"threads {torch.get_num_threads()}; memory read {bandwidth / 1e9:.1f} GB/s; context {args.context} tokens")
    shapes = dict(list(SHAPES.items())[:1]) if args.quick else SHAPES
    cases = [(16, 1), (16, 12)] if args.quick else CASES
    rows = []
    print("| heads | dtype | batch | queries a row | torch ms (GB/s) | ours ms (GB/s) | ours / torch |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, (heads, head_dim) in shapes.items():
        for dtype in (torch.float32, torch.bfloat16):
            for batch, queries in cases:
                room = args.context + queries + 64
                q = torch.randn(batch, heads, queries, head_dim).to(dtype)
                k = torch.randn(batch, heads, room, head_dim).to(dtype)
                v = torch.randn(batch, heads, room, head_dim).to(dtype)
                lengths = torch.full((batch,), args.context)
                counts = torch.full((batch,), queries)
                theirs = best(lambda: torch_attention(q, k, v, lengths), args.repeats)  # noqa: B023
                ours = best(lambda: kernels.row_attention(q, k, v, lengths, counts), args.repeats)  # noqa: B023
                gb = batch * heads * (args.context + queries) * head_dim * 2 * q.element_size() / 1e9
                name = str(dtype).removeprefix("torch.")
                print(
                    f"| {label} | {name} | {batch} | {queries} | {theirs * 1e3:.2f} ({gb / theirs:.1f}) | "
                    f"{ours * 1e3:.2f} ({gb / ours:.1f}) | **{theirs / ours:.2f}x** |",
                    flush=True,
                )
                rows.append(
                    {"shape": label, "dtype": name, "batch": batch, "queries": queries, "torch_s": theirs, "ours_s": ours, "gigabytes": gb}
                )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bandwidth": bandwidth, "threads": torch.get_num_threads(), "context": args.context, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_attention"))
