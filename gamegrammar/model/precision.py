"""The number format a model computes in when it samples or plays: float32, bfloat16, or chosen by measurement.

Whether bfloat16 pays depends on the CPU, not on the model: with native bf16 matrix units (AMX, AVX-512 BF16)
its matmuls run several times faster than fp32 and its KV cache is half the bytes to read, while on a CPU
without them (AVX2 only) torch's bf16 is 5-50 times slower than fp32 (docs/speed.md). So `auto` times the
model's own matmul shape once in each dtype and takes bf16 only where it is clearly faster; the choice, and why,
is reported beside the figures it produced. Samples depend on the dtype (its rounding changes which token a
draw lands on now and then), so a run's journal and report name it. Training, teacher forcing and the probes
stay in float32: only generation is cast, and on a copy.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from functools import cache

import torch

from gamegrammar.core.errors import GameGrammarError

DTYPE_CHOICES = ("auto", "float32", "bfloat16")
BF16_MIN_SPEEDUP = 1.5  # `auto` takes bf16 where its matmuls are at least this much faster than fp32's


@dataclass(frozen=True)
class Precision:
    """The dtype generation runs in and why: `reason` is what a report prints beside it."""

    dtype: torch.dtype
    reason: str

    @property
    def name(self) -> str:
        return str(self.dtype).removeprefix("torch.")

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


def _best_linear_seconds(x: torch.Tensor, w: torch.Tensor, calls: int = 7) -> float:
    torch.nn.functional.linear(x, w)  # warm up: kernel selection, weight packing
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        torch.nn.functional.linear(x, w)
        best = min(best, time.perf_counter() - start)
    return best


@cache
def bf16_matmul_speedup(width: int, rows: int = 256) -> float:
    """fp32 time / bf16 time of a [rows, width] x [width, 4*width] matmul on this CPU (the MLP's first layer)."""
    times = {}
    for dtype in (torch.float32, torch.bfloat16):
        times[dtype] = _best_linear_seconds(torch.randn(rows, width, dtype=dtype), torch.randn(4 * width, width, dtype=dtype))
    return times[torch.float32] / times[torch.bfloat16]


def choose_precision(name: str, device: torch.device, width: int) -> Precision:
    """What `--dtype NAME` means for a model `width` wide on `device`."""
    if name not in DTYPE_CHOICES:
        raise GameGrammarError(f"--dtype must be one of {', '.join(DTYPE_CHOICES)}, got {name!r}")
    if name == "float32":
        return Precision(torch.float32, "asked for")
    if name == "bfloat16":
        return Precision(torch.bfloat16, "asked for")
    if device.type != "cpu":  # on a GPU the sampler's masked bf16 attention falls back to a slow kernel (docs/speed.md)
        return Precision(torch.float32, f"auto: float32 on {device.type}")
    speedup = bf16_matmul_speedup(width)
    if speedup >= BF16_MIN_SPEEDUP:
        return Precision(torch.bfloat16, f"auto: this CPU's bf16 matmuls run {speedup:.1f}x its fp32 ones")
    return Precision(torch.float32, f"auto: this CPU's bf16 matmuls run {speedup:.2f}x its fp32 ones, below {BF16_MIN_SPEEDUP}x")


def for_generation(model: torch.nn.Module, precision: Precision) -> torch.nn.Module:
    """The model to generate with: itself in its own dtype, else a cast copy (the original keeps its precision for
    teacher forcing and probes)."""
    if next(model.parameters()).dtype == precision.dtype:
        return model
    return copy.deepcopy(model).to(precision.dtype)
