"""The GPT and what runs it without Lightning: its forward pass, its hidden states, and batched sampling.

  gpt             GameGPT, GPTConfig, the presets and the KV cache
  hidden          hidden states and next-token log-probabilities over whole episodes, for the analyses
  sampling        batched generation with the KV cache, under the grammar's mask
  sample_journal  a sampling run's journal, so that an interrupted `sample` or `evaluate` carries on

Game-agnostic: it reads token ids and the grammar's automaton (`GameSpec`), never a game. The GPT's names are
re-exported here, so `from gamegrammar.model import GameGPT, GPTConfig` reads as it always did.

Importing it flushes denormal floats to zero on the CPU (`flush_denormals`), for every command that runs a model.
"""

import torch

from gamegrammar.model.gpt import (
    CHECKED_CACHE_BYTES,
    IGNORE_INDEX,
    MLP,
    PRESETS,
    Block,
    CausalSelfAttention,
    GameGPT,
    GPTConfig,
    KVCache,
    available_memory,
    preset,
    rotary_tables,
    rotate,
)


def flush_denormals() -> bool:
    """Compute on this CPU with denormal floats read and written as zero, in this thread and every thread started later.

    Why: as a model trains, some of its attention weights and gradients fall below float32's normal range (about
    1e-38), and x86 CPUs compute on such numbers tens of times slower. A step of bs-cpu-long's training took 0.61 s at
    its start and 1.63 s by step 1250 (same shapes), 0.65 s with denormals flushed: they cost training 2.5x, growing as
    it learned (docs/speed.md). Flushing changes nothing else a float32 model computes: such numbers are 2^-126 of 1.
    The mode is per thread and a new thread copies its creator's, so it must be set before torch starts its thread
    pool (its first parallel op): importing this package does it, and a pool started earlier keeps the old mode.
    Returns False where the CPU cannot (then nothing changes)."""
    return torch.set_flush_denormal(True)


flush_denormals()

__all__ = [
    "CHECKED_CACHE_BYTES",
    "IGNORE_INDEX",
    "MLP",
    "PRESETS",
    "Block",
    "CausalSelfAttention",
    "GPTConfig",
    "GameGPT",
    "KVCache",
    "available_memory",
    "flush_denormals",
    "preset",
    "rotary_tables",
    "rotate",
]
