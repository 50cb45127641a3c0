"""Our own CPU attention for decoding (row_attention.cpp), built on first use with the machine's C++ compiler.

torch's CPU attention runs a decode step's shapes (a few queries a row, head size 32-48) far below this machine's
bandwidth and matmul peak, bfloat16 most of all (docs/speed.md). The kernel is compiled once per CPU (with
-march=native, so the cached library is keyed by the CPU's flags as well as the source) into the user's cache
directory, atomically, and loaded with ctypes: no torch headers, no build step at install. Where there is no compiler,
or `GAMEGRAMMAR_KERNELS=0`, or the tensors are not on a CPU, callers fall back to torch's attention: the same
figures up to rounding.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import torch
from torch import Tensor

SOURCE = Path(__file__).with_name("row_attention.cpp")
FLAGS = ["-O3", "-march=native", "-fopenmp", "-ffp-contract=fast", "-shared", "-fPIC"]
ENV = "GAMEGRAMMAR_KERNELS"  # 0: never build nor use the kernel
HEAD_MAX = 256  # the kernel's DMAX

_lock = threading.Lock()
_library: ctypes.CDLL | None = None
_tried = False


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gamegrammar" / "kernels"


def _cpu_key() -> str:
    """What -march=native compiles for: the CPU's model and flags (a cache shared by two CPUs keeps one build each)."""
    text = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features", "model name")):
                    text += line
                if line.strip() == "":
                    break
    except OSError:
        pass
    return text


def _build() -> ctypes.CDLL | None:
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if compiler is None:
        return None
    digest = hashlib.sha256(SOURCE.read_bytes() + " ".join([compiler, *FLAGS]).encode() + _cpu_key().encode()).hexdigest()[:16]
    target = cache_dir() / f"row_attention-{digest}.so"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            built = Path(tmp) / target.name
            done = subprocess.run([compiler, *FLAGS, "-o", str(built), str(SOURCE)], capture_output=True, text=True)
            if done.returncode != 0 or not built.exists():
                return None
            os.replace(built, target)  # atomic: a second process sees the whole library or none
    library = ctypes.CDLL(str(target))
    library.row_attention.restype = ctypes.c_int
    pointer, longs, integer = ctypes.c_void_p, ctypes.POINTER(ctypes.c_long), ctypes.c_int
    library.row_attention.argtypes = [pointer, longs, pointer, pointer, longs, pointer, pointer, integer, integer, integer]
    library.row_attention.argtypes += [pointer, longs, integer, integer]
    library.branch_attention.restype = ctypes.c_int
    library.branch_attention.argtypes = [pointer, longs, integer, pointer, pointer, longs, pointer, integer, pointer, pointer]
    library.branch_attention.argtypes += [longs, integer, pointer, integer, integer, integer, pointer, longs, integer, integer]
    return library


def library() -> ctypes.CDLL | None:
    """The built kernel, or None where it cannot be had (no compiler, switched off): built at most once a process."""
    global _library, _tried
    if os.environ.get(ENV, "1") == "0":
        return None
    with _lock:
        if not _tried:
            _tried = True
            try:
                _library = _build()
            except OSError:
                _library = None
    return _library


def serves(device: torch.device, dtype: torch.dtype, head_dim: int) -> bool:
    """Will `row_attention` take a cache of this kind (so that positions no row has written are never read)?"""
    return device.type == "cpu" and dtype in (torch.float32, torch.bfloat16) and head_dim <= HEAD_MAX and library() is not None


def _strides(*values: int) -> ctypes.Array:
    return (ctypes.c_long * len(values))(*values)


def row_attention(q: Tensor, k: Tensor, v: Tensor, lengths: Tensor, counts: Tensor) -> Tensor | None:
    """Attention for rows at their own lengths, or None where the kernel does not apply (the caller uses torch's).

    q [B, H, T, D]: row b's first counts[b] queries are real, at positions lengths[b] + t, and see keys 0 ..
    lengths[b] + t of k, v [>= B, H, room, D] (one layer of the cache, those keys already written). Returns y [B, T, H,
    D] (zeros past counts[b]), ready to be viewed as [B, T, H * D]."""
    if not serves(q.device, q.dtype, q.shape[-1]) or not k.dtype == v.dtype == q.dtype:
        return None
    if q.stride(-1) != 1 or k.stride(-1) != 1 or k.stride() != v.stride() or k.stride(2) != k.shape[-1]:
        return None
    lib = library()
    assert lib is not None  # serves() built it
    B, H, T, D = q.shape
    y = q.new_zeros(B, T, H, D)
    lengths = lengths.to(torch.int64).contiguous()
    counts = counts.to(torch.int64).contiguous()
    status = lib.row_attention(
        q.data_ptr(),
        _strides(q.stride(0), q.stride(1), q.stride(2)),
        k.data_ptr(),
        v.data_ptr(),
        _strides(k.stride(0), k.stride(1)),
        lengths.data_ptr(),
        counts.data_ptr(),
        B,
        H,
        D,
        y.data_ptr(),
        _strides(y.stride(0), y.stride(2), y.stride(1)),
        int(q.dtype == torch.bfloat16),
        torch.get_num_threads(),
    )
    return y if status == 0 else None


def branch_attention(
    q: Tensor, prefix_k: Tensor, prefix_v: Tensor, prefix_lengths: Tensor, per_group: int, k: Tensor, v: Tensor, own: int, live: Tensor
) -> Tensor | None:
    """A planner's branches (`gpt.BranchCache`), or None where the kernel does not apply (the caller uses torch's).

    q [B, H, T, D], B = groups x per_group, branch b continuing group b // per_group: each query sees its group's
    prefix, prefix_k, prefix_v [>= groups, H, room, D] up to prefix_lengths[group], then its branch's own keys k, v [>= B,
    H, room, D], query t keys 0 .. own + t. A group's queries read its prefix once, together. Returns y [B, T, H, D],
    zeros where live[b] is 0. Head sizes that are multiples of 16."""
    D = q.shape[-1]
    if not serves(q.device, q.dtype, D) or D % 16 or not prefix_k.dtype == k.dtype == q.dtype:
        return None
    for t in (prefix_k, prefix_v, k, v):
        if t.stride(-1) != 1 or t.stride(2) != D:
            return None
    if q.stride(-1) != 1 or prefix_k.stride() != prefix_v.stride() or k.stride() != v.stride():
        return None
    lib = library()
    assert lib is not None  # serves() built it
    B, H, T, _ = q.shape
    y = q.new_zeros(B, T, H, D)
    lengths = prefix_lengths.to(torch.int64).contiguous()
    live = live.to(torch.int64).contiguous()
    status = lib.branch_attention(
        q.data_ptr(),
        _strides(q.stride(0), q.stride(1), q.stride(2)),
        T,
        prefix_k.data_ptr(),
        prefix_v.data_ptr(),
        _strides(prefix_k.stride(0), prefix_k.stride(1)),
        lengths.data_ptr(),
        per_group,
        k.data_ptr(),
        v.data_ptr(),
        _strides(k.stride(0), k.stride(1)),
        own,
        live.data_ptr(),
        B // per_group,
        H,
        D,
        y.data_ptr(),
        _strides(y.stride(0), y.stride(2), y.stride(1)),
        int(q.dtype == torch.bfloat16),
        torch.get_num_threads(),
    )
    return y if status == 0 else None
