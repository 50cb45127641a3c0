"""The GPT and what runs it without Lightning: its forward pass, its hidden states, and batched sampling.

  gpt             GameGPT, GPTConfig, the presets and the KV cache
  hidden          hidden states and next-token log-probabilities over whole episodes, for the analyses
  sampling        batched generation with the KV cache, under the grammar's mask
  sample_journal  a sampling run's journal, so that an interrupted `sample` or `evaluate` carries on

Game-agnostic: it reads token ids and the grammar's automaton (`GameSpec`), never a game. The GPT's names are
re-exported here, so `from gamegrammar.model import GameGPT, GPTConfig` reads as it always did.
"""

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
    "preset",
    "rotary_tables",
    "rotate",
]
