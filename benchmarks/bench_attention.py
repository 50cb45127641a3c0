"""Decoding attention on the CPU: our kernel (gamegrammar/model/row_attention.cpp) against torch's attention as the
model called it before, in the same run, at the shipped models' head shapes.

    python -m benchmarks.bench_attention            # float32 and bfloat16, 1 to 17 queries a row, a planner's branches
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
from gamegrammar.model.gpt import BranchCache

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
    branches = branch_table(args.quick, args.repeats)
    if args.json:
        with open(args.json, "w") as f:
            summary = {"bandwidth": bandwidth, "threads": torch.get_num_threads(), "context": args.context, "rows": rows}
            json.dump({**summary, "branches": branches}, f, indent=1)


def branch_table(quick: bool, repeats: int) -> list[dict]:
    """A planner's pass (`gpt.BranchCache.attend`, every layer of models/snake's shape): `games` games of `per_game`
    branches, each game's history of `prefix` tokens shared by its branches, 40 tokens of their own; torch's way (a
    batched matmul of each game's branches against its history) against ours."""
    heads, head_dim, layers, per_game, own = 8, 48, 8, 8, 40
    cases = [(4, 100)] if quick else [(50, 100), (50, 1000)]  # (games, prefix): a planner's first ticks and late game
    print()
    print(f"a planner's branches, one pass of every layer ({layers} layers of {heads} heads x {head_dim}; {per_game} branches a game)")
    print("| dtype | games | history tokens | torch ms | ours ms | ours / torch |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = []
    for dtype in (torch.float32, torch.bfloat16):
        for games, prefix in cases:
            store = torch.randn(2, layers, games, heads, prefix + 16, head_dim).to(dtype)
            cache = BranchCache(store[0], store[1], torch.full((games,), prefix), per_game, own + 8)
            cache.k[:, :, :, :own] = torch.randn(layers, games * per_game, heads, own, head_dim).to(dtype)
            cache.v[:, :, :, :own] = torch.randn(layers, games * per_game, heads, own, head_dim).to(dtype)
            cache.pos = own
            q, k = (torch.randn(games * per_game, heads, 1, head_dim).to(dtype) for _ in "qk")

            def one_pass(c: BranchCache = cache, q: torch.Tensor = q, k: torch.Tensor = k) -> None:
                for layer in range(layers):
                    c.attend(q, k, k, layer)

            ours = best(one_pass, repeats)
            torch_way = BranchCache(store[0], store[1], torch.full((games,), prefix), per_game, own + 8)
            torch_way.kernel, torch_way.k, torch_way.v, torch_way.pos = False, cache.k, cache.v, own
            if dtype != torch.float32:  # as BranchCache does where the kernel is not used
                torch_way.prefix_k, torch_way.prefix_v = torch_way.prefix_k.contiguous(), torch_way.prefix_v.contiguous()
            theirs = best(lambda c=torch_way, q=q, k=k: one_pass(c, q, k), repeats)
            name = str(dtype).removeprefix("torch.")
            print(f"| {name} | {games} | {prefix} | {theirs * 1e3:.1f} | {ours * 1e3:.1f} | **{theirs / ours:.2f}x** |", flush=True)
            rows.append({"dtype": name, "games": games, "prefix": prefix, "torch_s": theirs, "ours_s": ours})
    return rows


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_attention"))
