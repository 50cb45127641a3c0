"""Training throughput per model preset (the original implementation's 3 tokens/s is quoted from the design notes, not
measured here, so no ratio is taken against it).

    python -m benchmarks.bench_training                  # CPU (and GPU if present), ~1-2 minutes
    python benchmarks/bench_training.py --corpus data/corpus --steps 20

Times the real training pieces (CorpusDataModule's windows and collate, GameGPT,
the config's optimizer, gradient clipping) in a plain loop: it measures the model and
data path, not Lightning's small per-step bookkeeping. Each preset runs with the batch
size, window mode, augmentation and optimizer of its config in configs/
(`--optimizer adamw,muon`, `--windows episode,packed`, `--chance-targets drawn,exact`, `--batch-size 32,128` and
`--compile off,on` time each of those instead; exact chance targets read each window's spawns in the loader and score
them in the loss). Tokens are target tokens (padding excluded). For the default CPU preset it also splits a step into
data-loader time and model time.

On a GPU each row also gives its model FLOPs utilization: FLOPs per token 6N + 12·L·d·T (N parameters, L layers, d
wide, context T: PaLM's count, attention taken as full), times the model's tokens/s (data loading excluded: training's
loader workers run beside the GPU), over the chip's dense bf16 peak as its maker states it (`MFU spec`) and over the
peak of a large bf16 matmul measured in this run (`MFU meas`).
"""

from __future__ import annotations

import inspect
import tempfile
import time
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import get_args

import torch
import yaml

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.data.corpus import Corpus, CorpusSpec, generate
from gamegrammar.model import IGNORE_INDEX, GameGPT, preset
from gamegrammar.training.lightning import ChanceTargets, GameGPTModule, Windows, window_loader
from gamegrammar.training.optim import build_optimizer

# Dense bf16 tensor-core peaks as the makers state them (no sparsity), by the name torch reports.
SPEC_BF16_FLOPS = {"H100 PCIe": 756e12, "H100": 989e12, "H200": 989e12, "A100": 312e12, "L4": 121e12}
ORIGINAL_TOKENS_PER_S = 3.0  # DESIGN.md: about 21 s per 64-token step on 2 cores
CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def data_settings(name: str) -> dict:
    """The `data:` section of configs/<name>.yaml: batch_size, windows, augment."""
    data = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())["data"]
    return {"batch_size": data.get("batch_size", 16), "windows": data.get("windows", "episode"), "augment": data.get("augment", False)}


def optimizer_settings(name: str) -> dict:
    """The optimizer fields of the `model:` section of configs/<name>.yaml (GameGPTModule's defaults where absent)."""
    model = yaml.safe_load((CONFIGS / f"{name}.yaml").read_text())["model"]
    defaults = {k: v.default for k, v in inspect.signature(GameGPTModule).parameters.items()}
    fields = {k: model.get(k, defaults[k]) for k in ("optimizer", "lr", "weight_decay", "betas", "muon_lr")}
    return {"name": fields.pop("optimizer"), **fields, "betas": tuple(fields["betas"])}


@dataclass
class Result:
    preset: str
    device: str
    optimizer: str
    params: int
    tokens_per_s: float
    data_s: float  # per step
    model_s: float  # per step
    chance: str = "drawn"  # the chance targets the loader gave
    flops_per_token: float = 0.0

    @property
    def model_flops(self) -> float:
        """FLOP/s over the model's time alone."""
        return self.flops_per_token * self.tokens_per_s * (self.data_s + self.model_s) / self.model_s


def flops_per_token(model: GameGPT) -> float:
    """6N + 12·L·d·T: a training step's FLOPs per token (forward and backward; PaLM's count)."""
    c = model.config
    return 6 * model.num_params() + 12 * c.n_layer * c.n_embd * c.block_size


def spec_peak(device: str) -> tuple[str, float | None]:
    """The chip's name and its maker's dense bf16 peak, where known."""
    if device != "cuda":
        return "cpu", None
    name = torch.cuda.get_device_name()
    return name, next((flops for key, flops in SPEC_BF16_FLOPS.items() if key in name), None)


def measured_peak(device: str, n: int = 8192) -> float:
    """FLOP/s of an n×n×n bf16 matmul on `device`, the best of ten after a warm-up."""
    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    best = float("inf")
    for i in range(11):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        a @ b
        torch.cuda.synchronize()
        if i:
            best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best


def bench(
    corpus: Corpus, name: str, device: str, steps: int, data: dict, optim: dict, chance: str = "drawn", compile: bool = False
) -> Result:
    torch.manual_seed(0)
    config = preset(name, vocab_size=len(corpus.tokenizer), tick_id=corpus.tokenizer.ids[corpus.game_spec.tick_token])
    module = GameGPTModule(config, compile=compile).to(device)  # its training_loss scores exact chance targets
    module.setup("bench")  # compiles the model's forward when asked, as training does
    model: GameGPT = module.model.train()
    opt_name = optim["name"]
    opt = build_optimizer(model, opt_name, **{k: v for k, v in optim.items() if k != "name"})
    loader = window_loader(
        corpus, corpus.split("train"), config.block_size, data["windows"], data["batch_size"], data["augment"], chance_targets=chance
    )
    use_bf16 = device == "cuda" and torch.cuda.is_bf16_supported()
    data_s = model_s = 0.0
    tokens = 0
    it = iter(loader)
    warm = 4 if compile else 2  # a compiled model's first steps compile (forward, then backward)
    for step in range(steps + warm):  # the warm-up steps are not counted
        t0 = time.perf_counter()
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            batch = next(it)
        x, y = batch[0].to(device), batch[1].to(device)
        soft = tuple(t.to(device) for t in batch[2]) if len(batch) > 2 else None
        t1 = time.perf_counter()
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=use_bf16):
            loss = module.training_loss(x, y, soft)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if device == "cuda":
            torch.cuda.synchronize()
        t2 = time.perf_counter()
        if step >= warm:
            data_s += t1 - t0
            model_s += t2 - t1
            tokens += int((y != IGNORE_INDEX).sum())
    return Result(
        name,
        device,
        opt_name,
        model.num_params(),
        tokens / (data_s + model_s),
        data_s / steps,
        model_s / steps,
        chance,
        flops_per_token(model),
    )


def main() -> None:
    parser = OneLineParser(prog="python -m benchmarks.bench_training", description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="corpus directory (default: generate 400 default episodes in a temporary directory)")
    parser.add_argument("--steps", type=int, default=None, help="timed steps per preset (default: 30 for gg31k, 6 for larger presets)")
    parser.add_argument("--presets", default=None, help="comma-separated (default: gg31k,gg-cpu on CPU; gg-gpu too on a GPU)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--optimizer", default=None, help="comma-separated optimizers to time, e.g. adamw,muon (default: each config's)")
    parser.add_argument(
        "--windows", default=None, help="comma-separated window modes to time, e.g. episode,packed (default: each config's)"
    )
    parser.add_argument("--chance-targets", default="drawn", help="comma-separated, e.g. drawn,exact (default: drawn)")
    parser.add_argument("--batch-size", default=None, help="comma-separated batch sizes to time, e.g. 32,128 (default: each config's)")
    parser.add_argument("--compile", default="off", help="comma-separated: off, on (torch.compile of the model) (default: off)")
    parser.add_argument("--fused", default="off", help="comma-separated: off, on (AdamW's fused step; CUDA only) (default: off)")
    parser.add_argument(
        "--matmul-precision", default="highest", help="comma-separated torch float32 matmul precisions, e.g. highest,high (TF32)"
    )
    parser.add_argument("--device", default=None, help="cpu or cuda (default: the CPU, and the GPU too where there is one)")
    parser.add_argument(
        "--episodes", type=int, default=400, help="episodes of the generated corpus when --corpus is not given (default 400)"
    )
    args = parser.parse_args()
    compiles, fuseds = args.compile.split(","), args.fused.split(",")
    for flag, values in (("--compile", compiles), ("--fused", fuseds)):
        if set(values) - {"off", "on"}:
            parser.error(f"{flag}: choose from off, on, got {','.join(values)}")
    unknown = set(args.windows.split(",") if args.windows else ()) - set(get_args(Windows))
    if unknown:
        parser.error(f"unknown window mode {', '.join(sorted(unknown))}; choose from {', '.join(get_args(Windows))}")
    chances = args.chance_targets.split(",")
    if set(chances) - set(get_args(ChanceTargets)):
        parser.error(f"--chance-targets: choose from {', '.join(get_args(ChanceTargets))}, got {args.chance_targets}")
    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        path = args.corpus
        if path is None:
            path = Path(tmp) / "corpus"
            generate(CorpusSpec(episodes=args.episodes, seed=0), path)
        corpus = Corpus(path)
        devices = [args.device] if args.device else ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
        peaks = {d: (spec_peak(d)[1], measured_peak(d) if d == "cuda" else None) for d in devices}  # (maker's, measured)
        print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads; corpus {path}: {len(corpus)} episodes")
        for device, (spec, measured) in peaks.items():
            if device == "cuda":
                stated = f"{spec / 1e12:,.0f} TFLOP/s (maker's figure)" if spec else "not known here"
                print(
                    f"{spec_peak(device)[0]}: dense bf16 peak {stated}; an 8192³ bf16 matmul measured now: {measured / 1e12:,.0f} TFLOP/s"
                )
        print(
            f"{'preset':<8}{'device':>7}{'optimizer':>10}{'params':>12}{'batch':>7}{'windows':>9}{'chance':>8}{'tokens/s':>11}"
            f"{'data ms/step':>14}{'model ms/step':>15}{'compile':>8}{'fused':>6}{'fp32 mm':>8}{'TFLOP/s':>9}{'MFU spec':>9}{'MFU meas':>9}"
        )
        results = []
        for device in devices:
            names = args.presets.split(",") if args.presets else ["gg31k", "gg-cpu"] + (["gg-gpu"] if device == "cuda" else [])
            for name in names:
                steps = args.steps or (30 if name == "gg31k" or device == "cuda" else 6)
                data = data_settings(name)
                optim = optimizer_settings(name)
                batches = [int(b) for b in args.batch_size.split(",")] if args.batch_size else [data["batch_size"]]
                windows_modes = args.windows.split(",") if args.windows else [data["windows"]]
                opt_names = args.optimizer.split(",") if args.optimizer else [optim["name"]]
                settings = product(windows_modes, batches, compiles, opt_names, fuseds, chances, args.matmul_precision.split(","))
                for windows, batch, compiled, opt_name, fused, chance, precision in settings:
                    torch.set_float32_matmul_precision(precision)
                    r = bench(
                        corpus,
                        name,
                        device,
                        steps,
                        {**data, "windows": windows, "batch_size": batch},
                        {**optim, "name": opt_name, "fused": fused == "on" or None},
                        chance,
                        compiled == "on",
                    )
                    results.append(r)
                    spec, measured = peaks[device]
                    mfu = "".join(f"{r.model_flops / p:>9.1%}" if p else f"{'-':>9}" for p in (spec, measured))
                    print(
                        f"{r.preset:<8}{r.device:>7}{r.optimizer:>10}{r.params:>12,}{batch:>7}{windows:>9}{chance:>8}"
                        f"{r.tokens_per_s:>11,.0f}{1e3 * r.data_s:>14.1f}{1e3 * r.model_s:>15.1f}{compiled:>8}{fused:>6}{precision:>8}"
                        f"{r.model_flops / 1e12:>9.3g}{mfu}",
                        flush=True,
                    )
        cpu = next((r for r in results if r.preset == "gg-cpu" and r.device == "cpu" and r.chance == chances[0]), None)
        if cpu:
            share = cpu.data_s / (cpu.data_s + cpu.model_s)
            print(
                f"gg-cpu on CPU ({cpu.chance} chance targets): data loading {1e3 * cpu.data_s:.1f} ms vs model "
                f"{1e3 * cpu.model_s:.1f} ms per step ({share:.1%} in data)"
            )
        print(
            f"original implementation, as the design notes quote it (another machine; not measured here): {ORIGINAL_TOKENS_PER_S:g} "
            "tokens/s (2 layers, 32 wide, context 64, pure Python)"
        )


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_training"))
