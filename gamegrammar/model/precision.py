"""The number format a model computes in when it samples or plays: float32, bfloat16, or chosen by measurement.

Whether bfloat16 pays depends on the CPU and on the model's shape, and a matmul alone does not tell: on an Intel
CPU with AMX, bf16 matmuls run 2.6-7.8x fp32's and torch's attention reads a bf16 KV cache at about fp32's bytes/s,
so a decode pass is up to 1.7x faster; on an AMD EPYC with AVX-512 BF16 but no AMX the matmuls still run 2.6-3.1x
fp32's, yet torch's bf16 attention reads 4 GB/s against fp32's 21, so the same pass is 2x slower; without any bf16
units (AVX2 only) everything bf16 is 5-50x slower (docs/speed.md). So `auto` times a decode pass of the model
itself (`PROBE_ROWS` rows over `PROBE_CONTEXT` cached tokens) once in each dtype and takes bf16 only where that is
clearly faster; the choice, and why, is reported beside the figures it produced. Samples depend on the dtype (its
rounding changes which token a draw lands on now and then), so a run's journal and report name it. Training, teacher forcing and the probes
stay in float32: only generation is cast, and on a copy.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import torch

from gamegrammar.core.errors import GameGrammarError

DTYPE_CHOICES = ("auto", "float32", "bfloat16")
BF16_MIN_SPEEDUP = 1.2  # `auto` takes bf16 where a decode pass is at least this much faster than in fp32
PROBE_ROWS = 64  # the decode pass `auto` times: rows ...
PROBE_CONTEXT = 384  # ... over this many cached tokens (a Snake game's length; less where the context is shorter)


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


def _best_pass_seconds(model: torch.nn.Module, rows: int, context: int, calls: int = 3) -> float:
    """The fastest of `calls` one-token passes of `model` (after a warm-up) for `rows` rows over `context` cached
    tokens: the step a sampler repeats. The cache is zeros (uninitialised memory could hold denormal floats, which
    x86 CPUs compute slowly): attention costs the same whatever the keys hold."""
    cache = model.new_cache(rows, context + 1)
    cache.k.zero_(), cache.v.zero_()
    token = torch.full((rows, 1), model.config.bos_id, dtype=torch.long, device=cache.k.device)
    best = float("inf")
    with torch.no_grad():
        for call in range(calls + 1):
            cache.pos = context
            start = time.perf_counter()
            model(token, cache=cache)
            if call:  # the first call warms up: kernel selection, weight packing
                best = min(best, time.perf_counter() - start)
    return best


_speedups: dict[tuple, float] = {}  # by (model config, torch threads): a command asks once per model


def bf16_decode_speedup(model: torch.nn.Module) -> float:
    """fp32 time / bf16 time of a decode pass of this model on this CPU (measured once per shape and thread count)."""
    key = (model.config, torch.get_num_threads())
    if key not in _speedups:
        context = min(PROBE_CONTEXT, model.config.block_size - 1)
        times = {
            dtype: _best_pass_seconds(for_generation(model, Precision(dtype, "probe")), PROBE_ROWS, context)
            for dtype in (torch.float32, torch.bfloat16)
        }
        _speedups[key] = times[torch.float32] / times[torch.bfloat16]
    return _speedups[key]


def choose_precision(name: str, model: torch.nn.Module) -> Precision:
    """What `--dtype NAME` means for this model (a GameGPT) on its device."""
    if name not in DTYPE_CHOICES:
        raise GameGrammarError(f"--dtype must be one of {', '.join(DTYPE_CHOICES)}, got {name!r}")
    if name == "float32":
        return Precision(torch.float32, "asked for")
    if name == "bfloat16":
        return Precision(torch.bfloat16, "asked for")
    device = next(model.parameters()).device
    if device.type != "cpu":  # on a GPU the sampler's masked bf16 attention falls back to a slow kernel (docs/speed.md)
        return Precision(torch.float32, f"auto: float32 on {device.type}")
    speedup = bf16_decode_speedup(model)
    said = f"auto: a decode pass of this model runs {speedup:.2f}x as fast in bf16 as in fp32 on this CPU"
    if speedup >= BF16_MIN_SPEEDUP:
        return Precision(torch.bfloat16, said)
    return Precision(torch.float32, f"{said}, below {BF16_MIN_SPEEDUP}x")


def for_generation(model: torch.nn.Module, precision: Precision) -> torch.nn.Module:
    """The model to generate with: itself in its own dtype, else a cast copy (the original keeps its precision for
    teacher forcing and probes)."""
    if next(model.parameters()).dtype == precision.dtype:
        return model
    return copy.deepcopy(model).to(precision.dtype)
