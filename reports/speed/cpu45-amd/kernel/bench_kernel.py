"""A decode attention of our own in C (decode_attention.c beside this script), against torch's attention, one layer of a
sampling pass. Tried for issue 45 on the AMD EPYC host and not shipped (docs/speed.md, "A decode attention in C").

    python reports/speed/cpu45-amd/kernel/bench_kernel.py [--quick] [--json PATH]

The C file is compiled with the machine's compiler (-O3 -march=native -fopenmp) into ~/.cache/gamegrammar/native and
called through ctypes; torch's path is the model's (`torch_attention`, as gpt.py's CausalSelfAttention). Rows of a cache at their own lengths (half to
all of a 700-token context), T queries a row (1: one token a pass; 4, 12, 17: drafted passes and `play`'s ticks).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import time
from functools import cache
from pathlib import Path

import torch
from torch import Tensor

from gamegrammar.cli import OneLineParser, run_guarded
from gamegrammar.model.gpt import RowPass

SOURCE = Path(__file__).with_name("decode_attention.c")  # beside this script
FLAGS = ("-O3", "-march=native", "-fopenmp", "-fPIC", "-shared", "-fno-math-errno")
LIBS = ("-lm",)
DTYPES = {torch.float32: "attend_float32", torch.bfloat16: "attend_bfloat16"}
# Queries a row a call at most: sampling feeds 1, a drafted pass up to speculative.MAX_PROPOSAL + 1 = 17; a longer
# prompt read at once (a window in `dream`, the probes) is many queries over few keys, torch's blocked kernel's case.
MAX_QUERIES = 32
_ARGTYPES = [ctypes.c_void_p] * 6 + [ctypes.c_int] * 4 + [ctypes.c_int64] * 2 + [ctypes.c_float, ctypes.c_int]


def enabled() -> bool:
    return os.environ.get("GAMEGRAMMAR_NATIVE", "1") != "0"


def cache_dir() -> Path:
    root = os.environ.get("GAMEGRAMMAR_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "gamegrammar")
    return Path(root) / "native"


def _compiler() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    return None


def build(compiler: str | None = None, into: Path | None = None) -> Path | None:
    """The shared library, compiled if not cached yet; None where it cannot be built here."""
    compiler = compiler or _compiler()
    if compiler is None or not SOURCE.exists():
        return None
    try:
        version = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    key = hashlib.sha256("\0".join([SOURCE.read_text(), compiler, version, *FLAGS, *LIBS]).encode()).hexdigest()[:16]
    folder = into or cache_dir()
    target = folder / f"decode_attention-{key}.so"
    if target.exists():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            built = Path(tmp) / target.name
            done = subprocess.run([compiler, *FLAGS, str(SOURCE), "-o", str(built), *LIBS], capture_output=True, timeout=120)
            if done.returncode != 0:
                return None
            os.replace(built, target)  # atomic: a concurrent build of the same key writes the same file
    except (OSError, subprocess.SubprocessError):
        return None
    return target


@cache
def _library() -> ctypes.CDLL | None:
    if not enabled():
        return None
    path = build()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(str(path))
    except OSError:
        return None
    for name in DTYPES.values():
        getattr(lib, name).argtypes = _ARGTYPES
        getattr(lib, name).restype = ctypes.c_int
    return lib


def available() -> bool:
    """Can this process use the kernel? (Builds it on first call.)"""
    return _library() is not None


def decode_attention(q: Tensor, k: Tensor, v: Tensor, lengths: Tensor, counts: Tensor) -> Tensor | None:
    """Attention of q [B, H, T, D] over a cache layer's k, v [B, H, room, D] in which row b holds lengths[b] keys before
    this pass and then its counts[b] new ones (query t of row b sees keys 0 .. lengths[b] + t); queries past counts[b]
    come out as zeros. None where the kernel does not apply (then use torch's attention)."""
    lib = _library()
    if lib is None or q.device.type != "cpu" or k.dtype not in DTYPES or v.dtype != k.dtype or k.stride() != v.stride():
        return None
    B, H, T, D = q.shape
    if T > MAX_QUERIES or k.stride(3) != 1 or k.stride(2) != D or int((lengths + counts).max()) > k.shape[2]:
        return None
    qf = q.to(torch.float32).contiguous()
    out = torch.empty_like(qf)
    lengths = lengths.to(torch.int64).contiguous()
    counts = counts.to(torch.int64).contiguous()
    failed = getattr(lib, DTYPES[k.dtype])(
        qf.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lengths.data_ptr(), counts.data_ptr(),
        B, H, T, D, k.stride(0), k.stride(1), 1.0 / math.sqrt(D), torch.get_num_threads(),
    )  # fmt: skip
    if failed:
        raise MemoryError("decode attention: out of memory for its scores")
    return out if q.dtype == torch.float32 else out.to(q.dtype)


SHAPES = [("models/snake", 8, 48, 700), ("gg-cpu", 4, 32, 700)]  # (name, heads, head dim, context)


def torch_attention(rp: RowPass, q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    """The model's attention over a per-row cache (gamegrammar/model/gpt.py, CausalSelfAttention)."""
    if rp.spans is None:
        return torch.nn.functional.scaled_dot_product_attention(q, k[:, :, : rp.end], v[:, :, : rp.end], attn_mask=rp.mask)
    y = torch.zeros_like(q)
    for a, b, t, e in rp.spans:
        if t:
            y[a:b, :, :t] = torch.nn.functional.scaled_dot_product_attention(
                q[a:b, :, :t], k[a:b, :, :e], v[a:b, :, :e], attn_mask=rp.mask[a:b, :, :t, :e]
            )
    return y


def best_of(repeats: int, fn, *args) -> float:
    fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = OneLineParser(prog="python reports/speed/cpu45-amd/kernel/bench_kernel.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one shape, batch 64, fewer repeats")
    parser.add_argument("--json", default=None, help="also write the rows here")
    args = parser.parse_args()
    if not available():
        print("the C decode attention is not available here (no C compiler, or GAMEGRAMMAR_NATIVE=0): nothing to compare")
        return 0
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads")
    print("| shape | dtype | batch | queries a row | keys a row (mean) | torch ms | GB/s | kernel ms | GB/s | kernel vs torch |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    g = torch.Generator().manual_seed(0)
    for name, heads, dim, context in SHAPES[:1] if args.quick else SHAPES:
        for batch in (64,) if args.quick else (64, 256):
            cache = torch.randn(2, batch, heads, context, dim, generator=g)
            for dtype in (torch.float32, torch.bfloat16):
                k, v = (c.to(dtype) for c in cache)
                for T in (1, 4, 12, 17):
                    lengths = torch.randint(context // 2, context - T, (batch,), generator=g)
                    counts = torch.full((batch,), T, dtype=torch.long)
                    q = torch.randn(batch, heads, T, dim, generator=g).to(dtype)
                    rp = RowPass(lengths, T, counts, heads, context)
                    read = 2 * int((lengths + T).sum()) * heads * dim * k.element_size()
                    repeats = 3 if args.quick else 7
                    ours = best_of(repeats, decode_attention, q, k, v, lengths, counts)
                    theirs = best_of(repeats, torch_attention, rp, q, k, v)
                    row = {"shape": name, "dtype": str(dtype).removeprefix("torch."), "batch": batch, "queries": T,
                           "keys": float((lengths + T).float().mean()), "torch_ms": theirs * 1e3, "kernel_ms": ours * 1e3,
                           "torch_gbs": read / theirs / 1e9, "kernel_gbs": read / ours / 1e9, "speedup": theirs / ours}  # fmt: skip
                    rows.append(row)
                    print(
                        f"| {name} | {row['dtype']} | {batch} | {T} | {row['keys']:.0f} | {row['torch_ms']:.2f} | {row['torch_gbs']:.1f} | "
                        f"{row['kernel_ms']:.2f} | {row['kernel_gbs']:.1f} | {row['speedup']:.2f}x |"
                    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded(main, "bench_attention"))
