"""GameGPT: shapes, causality, the KV cache against the full forward pass, presets, learning."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.model import gpt
from gamegrammar.model.gpt import IGNORE_INDEX, PRESETS, GameGPT, GPTConfig, KVCache, preset


def small(**kw) -> GameGPT:
    torch.manual_seed(0)
    return GameGPT(GPTConfig(**{"vocab_size": 50, "block_size": 32, "n_layer": 2, "n_head": 4, "n_embd": 32, **kw})).eval()


def test_shapes_and_loss_ignores_pad():
    model = small()
    idx = torch.randint(0, 50, (3, 20))
    logits, loss = model(idx)
    assert logits.shape == (3, 20, 50) and loss is None
    targets = torch.randint(0, 50, (3, 20))
    _, loss = model(idx, targets)
    assert loss.ndim == 0 and 3.0 < loss.item() < 5.0  # about ln(50) = 3.9 at init
    # Targets set to IGNORE_INDEX do not count: the loss equals the loss over the kept positions.
    masked = targets.clone()
    masked[:, 10:] = IGNORE_INDEX
    _, loss_masked = model(idx, masked)
    _, loss_prefix = model(idx[:, :10], targets[:, :10])
    torch.testing.assert_close(loss_masked, loss_prefix)


def test_causality():
    model = small()
    idx = torch.randint(0, 50, (2, 24))
    before, _ = model(idx)
    changed = idx.clone()
    changed[:, 15] = (changed[:, 15] + 1) % 50
    after, _ = model(changed)
    assert torch.equal(before[:, :15], after[:, :15])
    assert not torch.allclose(before[:, 15:], after[:, 15:])


@pytest.mark.parametrize("prefix", [1, 7])
def test_kv_cache_matches_full_forward(prefix):
    model = small()
    idx = torch.randint(0, 50, (3, 30))
    full, _ = model(idx)
    cache = model.new_cache(3)
    steps = [model(idx[:, :prefix], cache=cache)[0]]
    t = prefix
    while t < 30:  # mix single tokens and chunks
        n = 1 if t % 3 else 2
        steps.append(model(idx[:, t : t + n], cache=cache)[0])
        t += n
    assert cache.pos == 30
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)


def test_kv_cache_select_rows():
    model = small()
    idx = torch.randint(0, 50, (4, 12))
    full, _ = model(idx)
    cache = model.new_cache(4, max_len=12)
    model(idx[:, :8], cache=cache)
    cache.select(torch.tensor([3, 1]))
    assert cache.batch_size == 2
    out, _ = model(idx[[3, 1], 8:], cache=cache)
    torch.testing.assert_close(out, full[[3, 1], 8:], atol=1e-5, rtol=1e-5)


def test_kv_cache_select_drops_rows_in_place():
    model = small()
    idx = torch.randint(0, 50, (5, 12))
    full, _ = model(idx)
    cache = model.new_cache(5, max_len=12)
    model(idx[:, :6], cache=cache)
    memory = cache.k.data_ptr()
    cache.select(torch.tensor([0, 2, 3]))  # rows in order, as a sampler drops finished ones: moved down, no copy made
    assert cache.batch_size == 3 and cache.k.data_ptr() == memory
    out, _ = model(idx[[0, 2, 3], 6:9], cache=cache)
    torch.testing.assert_close(out, full[[0, 2, 3], 6:9], atol=1e-5, rtol=1e-5)
    cache.select(torch.tensor([1, 2]))
    out, _ = model(idx[[2, 3], 9:], cache=cache)
    torch.testing.assert_close(out, full[[2, 3], 9:], atol=1e-5, rtol=1e-5)


def test_unfilled_cache_positions_are_never_read():
    model = small()
    idx = torch.randint(0, 50, (2, 16))
    full, _ = model(idx)
    cache = model.new_cache(2)  # not zeroed: nothing past `pos` may reach the output
    cache.k.fill_(float("nan"))
    cache.v.fill_(float("nan"))
    steps = [model(idx[:, :5], cache=cache)[0]] + [model(idx[:, t : t + 1], cache=cache)[0] for t in range(5, 16)]
    torch.testing.assert_close(torch.cat(steps, 1), full, atol=1e-5, rtol=1e-5)


def test_context_limits_are_one_line_errors():
    model = small()
    with pytest.raises(GameGrammarError, match="longer than the model's position table"):
        model(torch.zeros(1, 33, dtype=torch.long))
    cache = model.new_cache(1, max_len=8)
    model(torch.zeros(1, 8, dtype=torch.long), cache=cache)
    with pytest.raises(GameGrammarError, match="longer than the KV cache"):
        model(torch.zeros(1, 1, dtype=torch.long), cache=cache)
    with pytest.raises(GameGrammarError, match="cache length"):
        model.new_cache(1, max_len=33)


def test_presets():
    assert set(PRESETS) >= {"gg31k", "gg-cpu", "gg-gpu"}
    tiny = GameGPT(preset("gg31k", vocab_size=250))
    assert (tiny.config.n_layer, tiny.config.n_embd, tiny.config.n_head, tiny.config.block_size) == (2, 32, 4, 64)
    assert 30_000 <= tiny.num_params() <= 36_000  # the original's size class (31K); the tied head is counted once
    assert preset("gg-cpu", n_layer=2, dropout=None).n_layer == 2
    with pytest.raises(GameGrammarError, match=r"unknown model preset 'huge'; choose from gg31k, gg-cpu, gg-gpu"):
        preset("huge")
    with pytest.raises(GameGrammarError, match="divisible"):
        GPTConfig(n_embd=30, n_head=4)


def test_tied_head_and_config_round_trip():
    model = small()
    assert model.head.weight is model.wte.weight
    assert GPTConfig.from_dict(model.config.to_dict()) == model.config


def test_a_few_steps_lower_the_loss():
    model = small(dropout=0.0).train()
    idx = torch.randint(0, 50, (4, 24))
    targets = torch.roll(idx, -1, dims=1)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(30):
        _, loss = model(idx, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]


def test_tick_clock_counts_ticks_since_bos_with_and_without_cache():
    from gamegrammar.games.snake.grammar import vocabulary
    from gamegrammar.games.snake.rules import SnakeConfig

    vocab = vocabulary(SnakeConfig())
    config = GPTConfig(vocab_size=len(vocab), block_size=32, n_layer=1, n_head=2, n_embd=16, tick_table=8, tick_id=vocab.index("TICK"))
    assert vocab[config.tick_id] == "TICK" and vocab[config.bos_id] == "BOS"
    model = GameGPT(config).eval()
    T, B, E = config.tick_id, config.bos_id, 3
    idx = torch.tensor([[B, 9, T, 9, T, 9, E, B, T, 9, T, T]])
    assert model.tick_clock(idx).tolist() == [[0, 0, 1, 1, 2, 2, 2, 0, 1, 1, 2, 3]]
    full, _ = model(idx)
    cache = model.new_cache(1)
    parts = [model(idx[:, a:b], cache=cache)[0] for a, b in ((0, 5), (5, 6), (6, 12))]
    assert torch.allclose(torch.cat(parts, 1), full, atol=1e-5)
    # a window that starts mid-episode gets its clock from cache.ticks
    window = model.new_cache(1)
    window.ticks = torch.tensor([2])
    assert model.tick_clock(idx[:, 5:7], window).tolist() == [[2, 2]]


def test_rotary_model_is_causal_and_its_cache_matches_the_full_pass():
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=30, block_size=40, n_layer=2, n_head=2, n_embd=16, rope=True, tick_table=4, tick_id=4)).eval()
    assert model.wpe is None
    idx = torch.randint(0, 30, (3, 40))
    full, _ = model(idx)
    changed = idx.clone()
    changed[:, 25:] = (changed[:, 25:] + 1) % 30
    assert torch.allclose(model(changed)[0][:, :25], full[:, :25], atol=1e-6)
    cache = model.new_cache(3)
    steps = [model(idx[:, :10], cache=cache)[0]] + [model(idx[:, t : t + 1], cache=cache)[0] for t in range(10, 40)]
    assert torch.allclose(torch.cat(steps, 1), full, atol=1e-5)


def test_the_tick_clock_needs_the_games_tick_token():
    with pytest.raises(GameGrammarError, match="tick_id"):
        GameGPT(GPTConfig(vocab_size=30, block_size=16, n_layer=1, n_head=2, n_embd=16, tick_table=4))


def test_a_cache_larger_than_the_free_memory_is_refused_in_one_line(monkeypatch):
    import gamegrammar.model.gpt as model_module

    model = GameGPT(GPTConfig(vocab_size=20, block_size=64, n_layer=1, n_head=2, n_embd=16))
    need = 2 * 1 * 4096 * 2 * 64 * 8 * 4  # k and v: layers x batch x heads x length x head_dim x float32
    monkeypatch.setattr(model_module, "CHECKED_CACHE_BYTES", 0)
    monkeypatch.setattr(model_module, "available_memory", lambda device: need - 1)
    with pytest.raises(GameGrammarError, match=r"4096 sequences of 64 tokens needs 0\.0 GiB.*lower the batch size"):
        model.new_cache(4096)
    monkeypatch.setattr(model_module, "available_memory", lambda device: need)
    assert model.new_cache(4096).batch_size == 4096


def test_cpu_free_memory_is_read_from_the_kernel():
    from gamegrammar.model.gpt import available_memory

    free = available_memory(torch.device("cpu"))
    assert free is None or free > 0
    assert available_memory(torch.device("meta")) is None  # a device that cannot tell: nothing is refused


@pytest.mark.parametrize("span_cost", [gpt.SPAN_COST, 0], ids=["one call", "a call per run"])
@pytest.mark.parametrize("rope", [True, False])
def test_rows_at_their_own_positions_match_each_rows_own_pass(rope, span_cost, monkeypatch):
    """A cache with per-row lengths: rows fed different numbers of tokens (padded on the right) in shared passes,
    only the real ones computed, give each row's logits of a pass over that row alone; also where attention reads
    each run of rows only up to its own last key and query (`attention_spans`)."""
    monkeypatch.setattr(gpt, "SPAN_COST", span_cost)
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=30, block_size=24, n_layer=2, n_head=2, n_embd=16, rope=rope, tick_table=8, tick_id=4)).eval()
    rows = [torch.randint(5, 30, (n,)) for n in (20, 9, 23)]
    for row in rows:
        row[::3] = 4  # ticks: the clock is carried per row
    alone = [model(row[None])[0][0] for row in rows]
    cuts = [(0, 3, 20), (0, 2, 9), (0, 21, 23)]  # each row's feeds: a long one beside a short one, near the context's end
    shape = (model.config.n_layer, 3, 2, 24 + 16, 8)  # room past the context: a short row's padding, near the end
    cache = KVCache(torch.zeros(shape), torch.zeros(shape), lengths=torch.zeros(3, dtype=torch.long))
    for feed in range(2):
        parts = [row[c[feed] : c[feed + 1]] for row, c in zip(rows, cuts)]
        width = max(map(len, parts))
        idx = torch.zeros(3, width, dtype=torch.long)  # PAD
        real = torch.zeros(3, width, dtype=torch.bool)
        for r, part in enumerate(parts):
            idx[r, : len(part)], real[r, : len(part)] = part, True
        lengths = cache.lengths.clone()
        logits, _ = model(idx, cache=cache, real=real)
        assert logits.shape == (int(real.sum()), 30)  # the real tokens' logits only, row by row
        at = 0
        for r, part in enumerate(parts):
            expected = alone[r][cuts[r][feed] : cuts[r][feed + 1]]
            assert torch.allclose(logits[at : at + len(part)], expected, atol=1e-5), (feed, r)
            at += len(part)
        cache.lengths = lengths + real.sum(1)  # each row's real length: its next feed overwrites its padding
    with pytest.raises(GameGrammarError, match="computes no loss"):
        model(idx, idx, real=real)


def test_attention_spans_read_the_fewest_keys():
    """The runs `attention_spans` picks cost what the best split into runs costs, found by trying every split."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        n, cost = int(rng.integers(1, 8)), int(rng.choice([0, 5, 40]))
        ends = rng.integers(0, 30, n) * rng.integers(0, 2, n)  # rows with end 0 need nothing

        def price(spans, cost=cost):
            return sum((b - a) * e + cost for a, b, e in spans)

        spans = gpt.attention_spans(ends, cost)
        assert [a for a, _, _ in spans] == [0, *[b for _, b, _ in spans[:-1]]] and spans[-1][1] == n
        assert all(e == ends[a:b].max() for a, b, e in spans)
        best = min(
            price([(a, b, int(ends[a:b].max())) for a, b in itertools.pairwise([0, *cuts, n])])
            for k in range(n)
            for cuts in itertools.combinations(range(1, n), k)
        )
        if len(spans) > 1:  # one call whenever splitting cannot save a call's cost
            assert price(spans) == best
        else:
            assert price(spans) <= best + cost


def test_a_pass_of_many_rows_splits_them_at_blocks_and_reads_no_more_than_one_call():
    ends = np.random.default_rng(1).integers(0, 1500, 1000)
    ends[:500] = np.sort(ends[:500])[::-1]  # half sorted longest first, as the pool keeps its rows; half not
    spans = gpt.attention_spans(ends)
    assert spans[0][0] == 0 and spans[-1][1] == 1000 and all(b == c for (_, b, _), (c, _, _) in itertools.pairwise(spans))
    assert all(e == ends[a:b].max() for a, b, e in spans) and len(spans) <= gpt.SPAN_BLOCKS
    assert all(a % 4 == 0 for a, _, _ in spans)  # 1000 rows: runs start at every 4th row
    assert sum((b - a) * e + gpt.SPAN_COST for a, b, e in spans) < 1000 * ends.max() + gpt.SPAN_COST
