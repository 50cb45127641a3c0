"""Speculative sampling with a draft writes exactly the plain loop's samples, whatever the draft proposes."""

from __future__ import annotations

import pytest
import torch

from gamegrammar.core.tokenizer import GameTokenizer
from gamegrammar.model import GameGPT, GPTConfig
from gamegrammar.model.sampling import SamplingConfig, SamplingStats, generate

EOS = 3
WORDS = ["PAD", "UNK", "BOS", "EOS", *[f"W{i}" for i in range(16)]]


def tiny_model(block_size: int = 64, seed: int = 0, clock: bool = False) -> GameGPT:
    """With `clock`, W0 is the tick word and the model reads the tick clock (as the shipped Snake model does)."""
    torch.manual_seed(seed)
    ticks = {"tick_table": 16, "tick_id": 4, "bos_id": 2} if clock else {}
    return GameGPT(GPTConfig(vocab_size=len(WORDS), block_size=block_size, n_layer=2, n_head=2, n_embd=16, **ticks)).eval()


class PatternDraft:
    """Proposes the next `span` words of a fixed cycle after each word it recognises: right now and then, wrong mostly."""

    def __init__(self, span: int = 5) -> None:
        self.last, self.span = "BOS", span

    def feed(self, token: str) -> None:
        self.last = token

    def proposal(self) -> list[str]:
        if not self.last.startswith("W"):
            return ["W0", "W1", "EOS"][: self.span]
        start = int(self.last[1:]) + 1
        return [f"W{(start + i) % 16}" for i in range(self.span)]


class OracleDraft:
    """Proposes the continuation its row's known sample takes (drafts are made in row order): always what is drawn."""

    def __init__(self, sample: list[str]) -> None:
        self.sample, self.seen = sample, 0

    def feed(self, token: str) -> None:
        assert token == self.sample[self.seen]
        self.seen += 1

    def proposal(self) -> list[str]:
        return self.sample[self.seen : self.seen + 6]


@pytest.fixture
def tokenizer() -> GameTokenizer:
    return GameTokenizer(WORDS)


@pytest.mark.parametrize(
    ("temperature", "top_k", "max_length", "block_size", "batch_size", "clock"),
    [
        (1.0, None, 40, 64, 4, False),
        (0.0, None, 40, 64, 3, False),
        (0.8, 5, 30, 64, 8, False),
        (1.0, None, 50, 16, 3, False),  # slides
        (1.0, None, 40, 64, 4, True),  # refused proposals hold tick words: the clock counts only the kept ones
        (1.0, None, 50, 16, 3, True),
    ],
)
def test_a_drafted_run_writes_the_plain_loops_samples(tokenizer, temperature, top_k, max_length, block_size, batch_size, clock):
    model = tiny_model(block_size, clock=clock)
    prompts = [[2]] * 5 + [[2, 5, 6]] * 2 + [[2, 7, 8, 9, 10]]
    config = SamplingConfig(temperature, top_k, None, max_length, batch_size, seed=11)
    plain = generate(model, prompts, EOS, config)
    stats = SamplingStats()
    drafted = generate(model, prompts, EOS, config, stats, draft=(tokenizer, PatternDraft))
    assert drafted == plain
    assert stats.proposed > 0 and stats.generated_tokens == sum(map(len, plain)) - sum(map(len, prompts))


def test_a_draft_that_is_always_right_writes_the_same_in_fewer_passes(tokenizer):
    model, prompts = tiny_model(), [[2]] * 6
    config = SamplingConfig(max_length=40, batch_size=6, seed=2)
    plain_stats, drafted_stats = SamplingStats(), SamplingStats()
    plain = generate(model, prompts, EOS, config, plain_stats)
    words = iter([tokenizer.decode(s) for s in plain])
    drafted = generate(model, prompts, EOS, config, drafted_stats, draft=(tokenizer, lambda: OracleDraft(next(words))))
    assert drafted == plain
    assert drafted_stats.accepted == drafted_stats.proposed > 0
    assert drafted_stats.passes * 4 < plain_stats.passes  # up to 7 tokens a pass instead of 1


def test_samples_do_not_depend_on_the_batch_size(tokenizer):
    model, prompts = tiny_model(), [[2]] * 7
    runs = [generate(model, prompts, EOS, SamplingConfig(max_length=30, batch_size=b, seed=3)) for b in (1, 3, 7)]
    runs.append(generate(model, prompts, EOS, SamplingConfig(max_length=30, batch_size=2, seed=3), draft=(tokenizer, PatternDraft)))
    assert all(run == runs[0] for run in runs)
