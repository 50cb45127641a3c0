"""The number format a model computes in when it samples or plays: float32, bfloat16, bf16 matmuls beside a float32
KV cache ("mixed"), or chosen by measurement.

Which pays depends on the CPU, the model's shape and the pass, and a matmul alone does not tell (docs/speed.md). On an
Intel CPU with AMX, bf16 matmuls run 2.6-7.8x fp32's and torch's attention reads a bf16 KV cache at about fp32's
bytes/s: bfloat16 is fastest. On an AMD EPYC with AVX-512 BF16 but no AMX, bf16 matmuls run 2.6-3.1x fp32's too, but
torch's bf16 attention over one query a row reads 4 GB/s against fp32's 21: a pass of one token a row (`dream`,
`--draft none`) runs 0.6-0.8x float32 in bfloat16 and 1.0-1.3x in mixed (matmuls in bf16, the KV cache and
attention in float32), while a pass of four or more (`evaluate`'s drafted passes, `play`'s passes of a tick) runs
1.4-1.7x in bfloat16 (those figures are torch's attention's; where our own decoding attention serves, `kernels`, a
bf16 cache is read at float32's bytes/s or better). Without bf16 units (AVX2 only) everything bf16 is 5-50x slower. So `auto` times the pass the
command repeats (`PROBE_ROWS` rows at their own positions over `PROBE_CONTEXT` cached tokens, each fed the command's
tokens a pass) with the model itself in each format, and takes the fastest where it is clearly faster than float32;
the choice, and why, is reported beside the figures it produced. Samples depend on the format (its rounding changes
which token a draw lands on now and then), so a run's journal and report name it. Training, teacher forcing and the
probes stay in float32: only generation is cast, and on a copy.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gamegrammar.core.errors import GameGrammarError

DTYPE_CHOICES = ("auto", "float32", "bfloat16", "mixed")
MIN_SPEEDUP = 1.2  # `auto` leaves float32 only for a format whose pass is at least this much faster
PROBE_ROWS = 64  # the pass `auto` times: rows ...
PROBE_CONTEXT = 384  # ... over this many cached tokens (a Snake game's length; less where the context is shorter)
DRAFTED_TOKENS = 12  # new tokens a row in a drafted sampler's pass (models/snake: 10.5 on average, up to 17: the
# rules' five and two guessed ticks; with our own attention the format that wins at 4 can lose at 12, docs/speed.md)
TICK_TOKENS = 4  # new tokens a row in a pass of play's tick (about 5 on models/snake)


@dataclass(frozen=True)
class Precision:
    """The format generation runs in and why: `reason` is what a report prints beside it. `dtype` is the activations',
    the KV cache's and attention's; `matmuls`, where set, the Linear layers' weights and products instead."""

    dtype: torch.dtype
    reason: str
    matmuls: torch.dtype | None = None

    @property
    def name(self) -> str:
        return "mixed" if self.matmuls is not None else str(self.dtype).removeprefix("torch.")

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


FORMATS = {
    "float32": (torch.float32, None),
    "bfloat16": (torch.bfloat16, None),
    "mixed": (torch.float32, torch.bfloat16),
}


class LinearIn(nn.Module):
    """A Linear layer computing in its weights' dtype on activations of another: x is cast in, the product cast back.
    The weights keep their names (`weight`, `bias`), so a model's state and its hash name the format."""

    def __init__(self, linear: nn.Linear | LinearIn, dtype: torch.dtype) -> None:
        super().__init__()
        self.weight = nn.Parameter(linear.weight.detach().to(dtype), requires_grad=False)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().to(dtype), requires_grad=False)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x.to(self.weight.dtype), self.weight, self.bias).to(x.dtype)


def cast_for_generation(model: nn.Module, precision: Precision) -> nn.Module:
    """Cast `model` in place to `precision` and return it. With `matmuls`, every Linear layer of the blocks computes in
    that dtype; the tied output head stays with the token embedding (a vocabulary-wide matmul, under 1% of a pass)."""
    model.to(precision.dtype)
    if precision.matmuls is not None:
        for module in list(model.modules()):
            for child_name, child in module.named_children():
                if child is not getattr(model, "head", None) and isinstance(child, nn.Linear | LinearIn):
                    setattr(module, child_name, LinearIn(child, precision.matmuls))
    return model


def format_of(model: nn.Module) -> tuple[torch.dtype, torch.dtype | None]:
    """(dtype, matmuls) of a model as `cast_for_generation` leaves it."""
    dtype = next(model.parameters()).dtype
    inner = [m.weight.dtype for m in model.modules() if isinstance(m, LinearIn)]
    return dtype, (inner[0] if inner and inner[0] != dtype else None)


def for_generation(model: nn.Module, precision: Precision) -> nn.Module:
    """The model to generate with: itself where it is in that format already, else a cast copy (the original keeps its
    precision for teacher forcing and probes)."""
    if format_of(model) == (precision.dtype, precision.matmuls):
        return model
    return cast_for_generation(copy.deepcopy(model), precision)


class _Pass:
    """One pass of `model` feeding `tokens` tokens to each of `rows` rows over `context` cached ones, the rows at their
    own positions as the samplers' and play's caches hold them. The cache is zeros (uninitialised memory could hold
    denormal floats, which x86 CPUs compute slowly): attention costs the same whatever the keys hold."""

    def __init__(self, model: nn.Module, rows: int, tokens: int, context: int) -> None:
        self.model, self.rows, self.context = model, rows, context
        self.cache = model.new_cache(rows, context + tokens)
        self.cache.k.zero_(), self.cache.v.zero_()
        self.fed = torch.full((rows, tokens), model.config.bos_id, dtype=torch.long, device=self.cache.k.device)

    def seconds(self) -> float:
        self.cache.lengths = torch.full((self.rows,), self.context, device=self.cache.k.device)
        with torch.no_grad():
            start = time.perf_counter()
            self.model(self.fed, cache=self.cache)
            return time.perf_counter() - start


_speedups: dict[tuple, dict[str, float]] = {}  # by (model config, tokens, threads): a command asks once per model


def format_speedups(model: nn.Module, tokens: int = 1, calls: int = 4) -> dict[str, float]:
    """float32 time / each format's time for a pass of this model feeding `tokens` tokens a row, on this CPU (measured
    once per shape, tokens and threads): the best of `calls` passes each, after a warm-up (kernel selection, weight
    packing), the formats taking turns so that a moment of another load weighs on all of them alike."""
    key = (model.config, tokens, torch.get_num_threads())
    if key not in _speedups:
        tokens = min(tokens, model.config.block_size - 1)
        context = min(PROBE_CONTEXT, model.config.block_size - tokens)
        passes = {
            name: _Pass(for_generation(model, Precision(dtype, "probe", matmuls)), PROBE_ROWS, tokens, context)
            for name, (dtype, matmuls) in FORMATS.items()
        }
        for probe in passes.values():
            probe.seconds()
        best = {name: probe.seconds() for name, probe in passes.items()}
        for _ in range(calls - 1):
            for name, probe in passes.items():
                best[name] = min(best[name], probe.seconds())
        _speedups[key] = {name: best["float32"] / t for name, t in best.items()}
    return _speedups[key]


def choose_precision(name: str, model: nn.Module, tokens: int = 1) -> Precision:
    """What `--dtype NAME` means for this model (a GameGPT) on its device, for a command whose passes feed `tokens`
    tokens a row."""
    if name not in DTYPE_CHOICES:
        raise GameGrammarError(f"--dtype must be one of {', '.join(DTYPE_CHOICES)}, got {name!r}")
    if name != "auto":
        dtype, matmuls = FORMATS[name]
        return Precision(dtype, "asked for", matmuls)
    device = next(model.parameters()).device
    if device.type != "cpu":  # on a GPU the sampler's masked bf16 attention falls back to a slow kernel (docs/speed.md)
        return Precision(torch.float32, f"auto: float32 on {device.type}")
    speedups = format_speedups(model, tokens)
    best = max(speedups, key=speedups.__getitem__)
    said = f"auto: a pass of {tokens} token{'s' if tokens > 1 else ''} a row of this model runs " + ", ".join(
        f"{speedups[n]:.2f}x in {n}" for n in FORMATS if n != "float32"
    )
    said += " against float32 on this CPU"
    if best == "float32" or speedups[best] < MIN_SPEEDUP:
        return Precision(torch.float32, f"{said}: none reaches {MIN_SPEEDUP}x")
    dtype, matmuls = FORMATS[best]
    return Precision(dtype, said, matmuls)
