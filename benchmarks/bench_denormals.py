"""What flushing denormal floats buys on a CPU: a trained model's training steps with denormals kept (torch's default)
and flushed (what importing gamegrammar.model sets), each in a fresh process, in the same run.

    python -m benchmarks.bench_denormals                                   # models/snake-cpu and models/battlesnake
    python -m benchmarks.bench_denormals --ckpt runs/bs-cpu-long/checkpoints/last.ckpt --steps 5

A model learns attention weights and gradients small enough to fall below float32's normal range, and x86 CPUs
compute on such numbers tens of times slower; an untrained model of the same shape has few (its row is the control).
The mode is per thread and copied into each thread torch starts, so each setting runs in its own process, set before
torch's first parallel op. A step is a forward and backward pass (no optimizer step, so every step sees the same
weights) on windows of a corpus generated from the model's own corpus spec, at its context and batch size of 2.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gamegrammar.cli import OneLineParser, run_guarded

MODELS = Path(__file__).resolve().parents[1] / "models"
DEFAULT_CHECKPOINTS = [MODELS / "snake-cpu", MODELS / "battlesnake"]


def child(ckpt: str, corpus: str, steps: int, denormals: str, untrained: bool) -> dict[str, float]:
    """Runs in the measuring process: seconds per step (median) of `ckpt`'s model, or an untrained one of its shape."""
    import torch

    from gamegrammar.data.corpus import Corpus
    from gamegrammar.model import GameGPT  # importing the package flushes denormals; the line below sets this row's mode
    from gamegrammar.training.checkpoint import load_checkpoint
    from gamegrammar.training.lightning import window_loader

    torch.set_flush_denormal(denormals == "flush")  # before torch's thread pool starts: its threads copy this mode
    loaded = load_checkpoint(ckpt)
    model = GameGPT(loaded.model.config) if untrained else loaded.model
    model.train()
    opened = Corpus(corpus)
    size = model.config.block_size
    x, y = next(iter(window_loader(opened, opened.split("train"), size, "packed", batch_size=2, shuffle=False)))[:2]
    times = []
    for _ in range(steps + 1):  # the first is a warm-up
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        _, loss = model(x, y)
        loss.backward()
        times.append(time.perf_counter() - start)
    return {"step_s": statistics.median(times[1:])}


def measure(ckpt: str, corpus: str, steps: int, denormals: str, untrained: bool) -> dict[str, float]:
    args = [sys.executable, "-m", "benchmarks.bench_denormals", "--child", ckpt, corpus, str(steps), denormals, str(int(untrained))]
    done = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def corpus_for(ckpt: str, out: Path) -> None:
    """A small corpus of the model's own game, grammar and agents (its corpus spec, 400 episodes)."""
    from dataclasses import replace

    from gamegrammar.data.corpus import generate
    from gamegrammar.training.checkpoint import load_checkpoint

    spec = load_checkpoint(ckpt).spec
    generate(replace(spec, episodes=400, shard_episodes=400, val_fraction=0.05), out)


def main() -> int:
    argv = sys.argv[1:]
    if argv[:1] == ["--child"]:  # the measuring process (`measure`)
        ckpt, corpus, steps, denormals, untrained = argv[1:]
        print(json.dumps(child(ckpt, corpus, int(steps), denormals, untrained == "1")))
        return 0
    parser = OneLineParser(prog="python -m benchmarks.bench_denormals", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--ckpt", action="append", help="a checkpoint or exported model (repeatable; default: models/snake-cpu, models/battlesnake)"
    )
    parser.add_argument("--steps", type=int, default=5, help="timed steps per row (after one warm-up)")
    parser.add_argument("--quick", action="store_true", help="2 steps a row, the first default model only")
    args = parser.parse_args(argv)
    checkpoints = args.ckpt or [str(p) for p in DEFAULT_CHECKPOINTS if p.is_dir()][: 1 if args.quick else None]
    steps = 2 if args.quick else args.steps
    print("| model | weights | kept: s/step | flushed: s/step | kept / flushed |")
    print("| --- | --- | --- | --- | --- |")
    for ckpt in checkpoints:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = str(Path(tmp) / "corpus")
            corpus_for(ckpt, Path(corpus))
            for untrained in (False, True):
                kept = measure(ckpt, corpus, steps, "keep", untrained)
                flushed = measure(ckpt, corpus, steps, "flush", untrained)
                weights = "untrained (same shape)" if untrained else "trained"
                ratio = kept["step_s"] / flushed["step_s"]
                print(f"| {ckpt} | {weights} | {kept['step_s']:.3f} | {flushed['step_s']:.3f} | {ratio:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_denormals"))
