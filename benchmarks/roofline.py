"""What this machine can do for a GameGPT's forward passes: its peak matmul FLOP/s at the model's shapes and its
memory read bandwidth, measured in the run that uses them, and the bound they set on a run's passes.

A pass of B rows, N new tokens and K cached keys per row must read every weight once (whatever B) and every row's
keys and values once per layer, and do 2 FLOPs per weight per new token plus attention's 4·d per (query, key) pair
per layer. Its time is at least the larger of bytes / bandwidth and FLOPs / peak; a run's bound is the sum over its
passes, so a run of long contexts or small batches is held to what those cost, not to a best case. `Recorder` logs
the passes of a real run (wrapping the model's forward), so the bound is computed from exactly what the run did.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch
from torch import Tensor

from gamegrammar.model import GameGPT


def _best_seconds(fn, seconds: float = 1.0) -> float:
    """The fastest of as many calls as fit in `seconds` (at least 5): a peak is what the machine can do, so the
    best call is the one least disturbed by whatever else runs."""
    fn()  # warm: page faults, kernel selection
    best, calls, began = float("inf"), 0, time.perf_counter()
    while calls < 5 or time.perf_counter() - began < seconds:
        start = time.perf_counter()
        fn()
        best, calls = min(best, time.perf_counter() - start), calls + 1
    return best


def matmul_flops(rows: int, n_embd: int, dtype: torch.dtype, device: torch.device) -> float:
    """Peak FLOP/s of the model's own matmuls (a batch of `rows` tokens through qkv, the MLP's two, the head)."""
    shapes = [(n_embd, 3 * n_embd), (n_embd, 4 * n_embd), (4 * n_embd, n_embd)]
    x = {k: torch.randn(rows, k, device=device, dtype=dtype) for k, _ in shapes}
    w = [torch.randn(k, n, device=device, dtype=dtype) for k, n in shapes]

    def run() -> None:
        for (k, _), m in zip(shapes, w):
            x[k] @ m
        if device.type == "cuda":
            torch.cuda.synchronize()

    flops = sum(2 * rows * k * n for k, n in shapes)
    return flops / _best_seconds(run)


def read_bandwidth(device: torch.device, megabytes: int = 512) -> float:
    """Bytes/s read from memory: a sum over a buffer far larger than the caches, filled first (untouched pages would
    read the kernel's shared zero page, from cache)."""
    x = torch.rand(megabytes * 2**20 // 4, device=device)

    def run() -> None:
        x.sum().item()

    return x.numel() * 4 / _best_seconds(run)


@dataclass(frozen=True)
class Machine:
    """Measured limits: fp32 and bf16 matmul FLOP/s, memory read bytes/s."""

    flops: float
    flops_bf16: float
    bandwidth: float
    threads: int

    @classmethod
    def measure(cls, model: GameGPT, rows: int = 256) -> Machine:
        device = next(model.parameters()).device
        n = model.config.n_embd
        return cls(
            matmul_flops(rows, n, torch.float32, device),
            matmul_flops(rows, n, torch.bfloat16, device),
            read_bandwidth(device),
            torch.get_num_threads(),
        )

    def peak(self, dtype: torch.dtype) -> float:
        """The matmul peak a model computing in `dtype` is held to."""
        return self.flops_bf16 if dtype == torch.bfloat16 else self.flops

    def describe(self) -> str:
        return (
            f"this machine ({self.threads} threads): matmul {self.flops / 1e9:,.0f} GFLOP/s fp32, {self.flops_bf16 / 1e9:,.1f} GFLOP/s bf16 "
            f"(at the model's shapes); memory read {self.bandwidth / 1e9:,.1f} GB/s"
        )


@dataclass
class Recorder:
    """The passes of a run: (new tokens, (query, key) pairs, keys summed over rows) of each."""

    model: GameGPT
    passes: list[tuple[int, int, int]] = field(default_factory=list)

    def __enter__(self) -> Recorder:
        forward = self.model.forward

        def recorded(idx: Tensor, targets: Tensor | None = None, *, cache=None, real: Tensor | None = None):
            B, T = idx.shape
            new = int(real.sum()) if real is not None else B * T
            if cache is None:
                before = torch.zeros(B, dtype=torch.long)
            elif cache.lengths is not None:
                before = cache.lengths.cpu()
            else:
                before = torch.full((B,), cache.pos)
            keys = before[:, None] + torch.arange(1, T + 1)  # query t of a row sees its cached keys and t+1 new ones
            counted = keys if real is None else keys * real.cpu()
            rows_keys = before + (T if real is None else real.cpu().sum(1))  # what each row must read: its own keys
            self.passes.append((new, int(counted.sum()), int(rows_keys.sum())))
            return forward(idx, targets, cache=cache, real=real)

        self.model.forward = recorded  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self.model.forward  # the class's forward again

    def bound_seconds(self, machine: Machine) -> float:
        """The least time this run's passes can take on `machine`, in the format the model computes in: its weights'
        bytes, its KV cache's width (the embedding's dtype) and the matmul peak of its blocks' Linear weights."""
        c = self.model.config
        m = self.model
        weights = sum(p.numel() for p in m.parameters())
        weight_bytes = sum(p.numel() * p.element_size() for p in m.parameters())
        width = m.wte.weight.element_size()
        peak = machine.peak(m.blocks[0].mlp.fc.weight.dtype)
        lookups = sum(e.weight.numel() for e in (m.wpe, m.wtick) if e is not None)  # the tied head is a matmul: counted
        matmul_params = weights - lookups
        total = 0.0
        for new, pairs, keys in self.passes:
            kv_bytes = 2 * c.n_layer * keys * c.n_embd * width
            flops = 2 * matmul_params * new + 4 * c.n_layer * c.n_embd * pairs
            total += max((weight_bytes + kv_bytes) / machine.bandwidth, flops / peak)
        return total
