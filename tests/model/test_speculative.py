"""Speculative sampling with a draft writes exactly the plain loop's samples, whatever the draft proposes."""

from __future__ import annotations

import itertools

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


@pytest.mark.parametrize("block_size", [64, 24], ids=["fits", "slides"])
def test_prompts_of_any_length_join_the_pool_as_others_finish(tokenizer, block_size):
    """More prompts than rows: each finished row's place goes to a waiting prompt, fed a piece a pass when it is long,
    beside rows far along theirs; a prompt longer than the context is the plain loop's. The plain loop's samples."""
    model = tiny_model(block_size)
    prompts = [[2, *[5 + i % 11 for i in range(n)]] for n in (0, 30, 0, 19, 2, 0, 45, 0, 17, 0)]
    config = SamplingConfig(max_length=70, batch_size=3, seed=5)
    plain = generate(model, prompts, EOS, config)
    stats = SamplingStats()
    drafted = generate(model, prompts, EOS, config, stats, draft=(tokenizer, PatternDraft))
    assert drafted == plain and stats.sequences == len(prompts)
    assert stats.generated_tokens == sum(map(len, plain)) - sum(map(len, prompts))


def test_a_drafted_run_records_its_finished_first_sequences_and_resumes_from_them(tokenizer):
    from gamegrammar.model.sampling import SamplingProgress

    model, prompts = tiny_model(), [[2]] * 9
    config = SamplingConfig(max_length=40, batch_size=2, seed=4)
    whole = generate(model, prompts, EOS, config, draft=(tokenizer, PatternDraft))
    seen: list[SamplingProgress] = []
    generate(
        model, prompts, EOS, config, draft=(tokenizer, PatternDraft), after_batch=lambda p: seen.append(SamplingProgress(list(p.sequences)))
    )
    counts = [len(p.sequences) for p in seen]
    assert counts == sorted(counts) and counts[-1] == 9 and all(b - a >= 2 for a, b in itertools.pairwise(counts[:-1]))
    assert all(p.sequences == whole[: len(p.sequences)] for p in seen)
    assert generate(model, prompts, EOS, config, resume=seen[0], draft=(tokenizer, PatternDraft)) == whole


def test_the_store_moves_rows_in_any_order_in_place():
    from gamegrammar.model.speculative import DraftStore

    store = DraftStore(tiny_model(), 6, 10)
    store.k.copy_(torch.randn_like(store.k))
    store.v.copy_(torch.randn_like(store.v))
    before_k, before_v = store.k.clone(), store.v.clone()
    keep, filled = [3, 0, 5, 1, 2], [4, 7, 2, 9, 1]  # chains into rows no one keeps, and a cycle (0 -> 1 -> 3 -> 0)
    store.move_rows(keep, filled)
    for place, (row, n) in enumerate(zip(keep, filled)):
        assert torch.equal(store.k[:, place, :, :n], before_k[:, row, :, :n])
        assert torch.equal(store.v[:, place, :, :n], before_v[:, row, :, :n])
