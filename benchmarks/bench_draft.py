"""Speculative sampling with the rules as the draft, against one token a pass, on a trained model.

Run from the repository root:  python -m benchmarks.bench_draft  [--ckpt models/snake] [--num 256] [--batch-size 256]
                               [--dtype auto] [--quick] [--json PATH]

Both ways sample the same prompts (BOS) with the same seed, one after the other in this run, through
`gamegrammar.model.sampling.generate` as `sample` and `evaluate` call it (`--draft rules` and `--draft none`):
tokens/s, forward passes, the tokens the rules proposed and the model's draws kept, and how many samples are
identical (all of them in float32; in bf16 a pass of several tokens rounds the logits a little differently, and a
draw near a boundary moves now and then), and each way against the machine: the least time its own forward passes
can take here (benchmarks/roofline.py: the weights read once a pass, each row's keys and values once a layer, the
FLOPs at the matmul peak measured in this run), and the tokens/s achieved against it. A pass of several tokens reads
the cache once for all of them, so the draft raises the bound as well as the rate. A draft saves passes only where a
model writes what the rules fix, so the weights must be trained: an untrained model leaves the rules at once. The
format is the one `evaluate` would take (`--dtype auto`, timed for a drafted pass). Timings depend on what else the
machine is doing: compare figures from one run.
"""

from __future__ import annotations

import json
import time

import torch

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.commands.sample import default_max_length
from gamegrammar.model.precision import DRAFTED_TOKENS, DTYPE_CHOICES, choose_precision, for_generation
from gamegrammar.model.sampling import SamplingConfig, SamplingStats, generate
from gamegrammar.training.checkpoint import load_checkpoint

from .roofline import Machine, Recorder


def main() -> int:
    parser = OneLineParser(prog="python -m benchmarks.bench_draft", description=__doc__.splitlines()[0])
    parser.add_argument("--ckpt", default="models/snake", help="a trained model whose game has a rules draft (default: %(default)s)")
    parser.add_argument("--num", type=int, default=256, help="samples each way (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=256, help="(default: %(default)s, as `evaluate`)")
    parser.add_argument("--dtype", choices=DTYPE_CHOICES, default="auto", help="(default: %(default)s, as `evaluate`)")
    parser.add_argument("--quick", action="store_true", help="32 samples")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    loaded = load_checkpoint(args.ckpt)
    game, config, codec, tokenizer = loaded.game_spec, loaded.game, loaded.codec, loaded.tokenizer
    if game.rule_draft(config, codec) is None:
        parser.error(f"{args.ckpt}: {game.name} has no rules draft for its design")
    precision = choose_precision(args.dtype, loaded.model, DRAFTED_TOKENS)  # as `evaluate` chooses: its passes are drafted
    model = for_generation(loaded.model, precision)
    num = 32 if args.quick else args.num
    max_length = default_max_length(model.config.block_size, loaded.longest_episode)  # as `evaluate` caps its samples
    sampling = SamplingConfig(max_length=max_length, batch_size=args.batch_size, seed=0)
    print(
        f"{args.ckpt}: {model.describe()}; computing in {precision}; {num} samples, batch {args.batch_size}; torch threads {torch.get_num_threads()}"
    )
    machine = Machine.measure(model)
    print(machine.describe())
    rows, out = [], {}
    for name in ("rules", "none"):
        stats = SamplingStats()
        draft = (tokenizer, lambda: game.rule_draft(config, codec)) if name == "rules" else None
        with Recorder(model) as recorder:  # the passes this run made: the bound is theirs
            start = time.perf_counter()
            out[name] = generate(model, [[tokenizer.bos_id]] * num, tokenizer.eos_id, sampling, stats, draft=draft)
            seconds = time.perf_counter() - start
        bound = recorder.bound_seconds(machine)
        rows.append(
            {
                "draft": name,
                "seconds": seconds,
                "tokens": stats.generated_tokens,
                "tokens_per_s": stats.generated_tokens / seconds,
                "passes": stats.passes,
                "tokens_per_pass_per_batch": stats.tokens_per_pass,
                "proposed": stats.proposed,
                "kept": stats.accepted,
                "bound_tokens_per_s": stats.generated_tokens / bound,
                "of_bound": bound / seconds,
            }
        )
    same = sum(a == b for a, b in zip(out["rules"], out["none"]))
    print(
        "| draft | seconds | tokens | tokens/s | forward passes | proposed | kept | against one token a pass | bound tokens/s | of bound |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['draft']} | {r['seconds']:.1f} | {r['tokens']:,} | {r['tokens_per_s']:,.0f} | {r['passes']:,} | {r['proposed']:,} "
            f"| {r['kept']:,} | {r['tokens_per_s'] / rows[1]['tokens_per_s']:.2f}x | {r['bound_tokens_per_s']:,.0f} | {r['of_bound']:.0%} |"
        )
    print(f"identical samples: {same} of {num}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"rows": rows, "identical": same, "samples": num, "dtype": str(precision), "machine": machine.describe()}, f, indent=2
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_draft"))
