"""Our CPU decoding attention equals torch's, for every path of the kernel, and the model falls back to torch's."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from gamegrammar.model import GameGPT, GPTConfig, kernels
from gamegrammar.model.gpt import KVCache

pytestmark = pytest.mark.skipif(kernels.library() is None, reason="no C++ compiler: the kernel cannot be built here")


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, lengths: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
    """torch's attention row by row, in float32: query t of row b sees keys 0 .. lengths[b] + t."""
    B, H, T, D = q.shape
    y = torch.zeros(B, T, H, D)
    for b in range(B):
        n, length = int(counts[b]), int(lengths[b])
        if n:
            mask = torch.arange(length + n)[None, :] <= (length + torch.arange(n))[:, None]
            out = F.scaled_dot_product_attention(
                q[b : b + 1, :, :n].float(), k[b : b + 1, :, : length + n].float(), v[b : b + 1, :, : length + n].float(), attn_mask=mask
            )
            y[b, :n] = out[0].transpose(0, 1)
    return y


def case(dtype: torch.dtype, heads: int, head_dim: int, counts: list[int], seed: int = 0):
    """Queries as a model makes them (a permuted view of one projection), a cache with spare rows and room."""
    torch.manual_seed(seed)
    B, T = len(counts), max(counts)
    qkv = torch.randn(B, T, 3, heads, head_dim).to(dtype)
    q = qkv.permute(2, 0, 3, 1, 4)[0]  # [B, H, T, D], not contiguous
    k = torch.randn(B + 3, heads, 200, head_dim).to(dtype)
    v = torch.randn(B + 3, heads, 200, head_dim).to(dtype)
    lengths = torch.randint(0, 150, (B,))
    lengths[0] = 0  # a row with nothing cached before its queries
    return q, k, v, lengths, torch.tensor(counts)


# Counts that reach every path: one query alone (head sizes of 16s) or in 8 lanes (else), up to 8 in half-width
# vectors, 9-16 in full ones, 17 as 16 and then 1, 20 as 16 and then 4; 0 writes nothing.
COUNTS = [0, 1, 2, 5, 8, 9, 16, 17, 20, 3]


@pytest.mark.parametrize("head_dim", [8, 32, 48])
def test_float32_equals_torch(head_dim: int) -> None:
    q, k, v, lengths, counts = case(torch.float32, 3, head_dim, COUNTS)
    y = kernels.row_attention(q, k, v, lengths, counts)
    assert y is not None and y.shape == (len(COUNTS), max(COUNTS), 3, head_dim)
    torch.testing.assert_close(y, reference(q, k, v, lengths, counts), atol=2e-6, rtol=1e-5)
    assert not y[0].any() and not y[1, 1:].any()  # nothing past a row's real queries


def test_bfloat16_equals_torch_to_its_rounding() -> None:
    q, k, v, lengths, counts = case(torch.bfloat16, 2, 48, COUNTS)
    y = kernels.row_attention(q, k, v, lengths, counts)
    assert y is not None and y.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), reference(q, k, v, lengths, counts), atol=1e-2, rtol=1e-2)


def test_a_query_does_not_depend_on_the_others_in_its_pass() -> None:
    """Within a path, a query's output is the same bits whatever else its row feeds: rows of 3 and 6 queries (both
    in half-width lanes), the 3 the same queries at the same positions."""
    q, k, v, lengths, _ = case(torch.float32, 2, 32, [6])
    six = kernels.row_attention(q, k, v, lengths, torch.tensor([6]))
    three = kernels.row_attention(q[:, :, :3], k, v, lengths, torch.tensor([3]))
    assert torch.equal(six[:, :3], three)


def branch_case(dtype: torch.dtype, per_group: int, T: int, prefix: list[int], seed: int = 0):
    """A planner's branches as BranchCache holds them: each group's prefix a slice of a larger store, the branches' own
    keys (`own` written before this pass's T) in a cache with room to spare, queries a permuted view."""
    torch.manual_seed(seed)
    H, D, G, own = 3, 32, len(prefix), 5
    B = G * per_group
    q = torch.randn(B, T, 3, H, D).to(dtype).permute(2, 0, 3, 1, 4)[0]
    pk, pv = (torch.randn(G + 2, H, 90, D).to(dtype)[:, :, : max(prefix)] for _ in "kv")
    k, v = (torch.randn(B + 1, H, own + T + 4, D).to(dtype) for _ in "kv")
    return q, pk, pv, torch.tensor(prefix), per_group, k, v, own


def branch_reference(q, pk, pv, plen, per_group, k, v, own, live) -> torch.Tensor:
    """torch's attention branch by branch over its group's prefix and then its own keys, in float32."""
    B, H, T, D = q.shape
    y = torch.zeros(B, T, H, D)
    for b in range(B):
        if live[b]:
            g, n = b // per_group, int(plen[b // per_group])
            keys = torch.cat([pk[g, :, :n], k[b, :, : own + T]], dim=1).float()
            values = torch.cat([pv[g, :, :n], v[b, :, : own + T]], dim=1).float()
            mask = torch.arange(n + own + T)[None, :] <= (n + own + torch.arange(T))[:, None]
            y[b] = F.scaled_dot_product_attention(q[b : b + 1].float(), keys[None], values[None], attn_mask=mask)[0].transpose(0, 1)
    return y


# Groups of branches that reach every block: up to 8 queries in half-width lanes, 9-16 in full ones, more in blocks of 16
# (two queries a branch double them); a group with no prefix.
@pytest.mark.parametrize(("per_group", "T"), [(1, 1), (6, 1), (12, 1), (20, 1), (6, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_branches_equal_torch(per_group: int, T: int, dtype: torch.dtype) -> None:
    args = branch_case(dtype, per_group, T, [40, 0, 77])
    live = torch.ones(3 * per_group, dtype=torch.bool)
    live[1] = False  # a branch that has stopped: nothing written
    y = kernels.branch_attention(*args, live)
    assert y is not None and y.shape == (3 * per_group, T, 3, 32) and y.dtype == dtype
    tolerance = 2e-6 if dtype == torch.float32 else 1e-2
    torch.testing.assert_close(y.float(), branch_reference(*args, live), atol=tolerance, rtol=tolerance * 5)
    if per_group > 1:
        assert not y[1].any()


def test_a_branch_does_not_depend_on_the_other_branches_or_groups() -> None:
    """Bit for bit: a group's branches computed with the other groups and some branches stopped, or alone."""
    q, pk, pv, plen, n, k, v, own = branch_case(torch.float32, 6, 1, [40, 25])
    every = kernels.branch_attention(q, pk, pv, plen, n, k, v, own, torch.ones(12, dtype=torch.bool))
    live = torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool)
    alone = kernels.branch_attention(q[6:], pk[1:], pv[1:], plen[1:], n, k[6:], v[6:], own, live)
    assert torch.equal(every[6:][live], alone[live])


def test_head_sizes_the_branch_kernel_does_not_take() -> None:
    q, pk, pv, plen, n, k, v, own = branch_case(torch.float32, 2, 1, [10])
    assert kernels.branch_attention(q[..., :24], pk[..., :24], pv[..., :24], plen, n, k[..., :24], v[..., :24], own, torch.ones(2)) is None


def test_the_model_decodes_alike_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached forward at the rows' own lengths (the sampler's and play's) and at one position (the plain loop's)."""
    torch.manual_seed(0)
    model = GameGPT(GPTConfig(vocab_size=20, block_size=64, n_layer=2, n_head=2, n_embd=64, rope=True)).eval()
    prompt = torch.randint(4, 20, (3, 12))

    def decode(per_row: bool) -> torch.Tensor:
        c = model.config
        shape = (c.n_layer, 3, c.n_head, 40, c.n_embd // c.n_head)
        with torch.no_grad():
            lengths = torch.zeros(3, dtype=torch.long) if per_row else None
            cache = KVCache(torch.zeros(shape), torch.zeros(shape), lengths=lengths)
            first = model(prompt[:, :9], cache=cache)[0]
            return torch.cat([first, model(prompt[:, 9:], cache=cache)[0]], dim=1)

    for per_row in (True, False):
        ours = decode(per_row)
        monkeypatch.setattr(kernels, "library", lambda: None)
        theirs = decode(per_row)
        monkeypatch.undo()
        with torch.no_grad():
            whole = model(prompt)[0]
        torch.testing.assert_close(ours, theirs, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(ours, whole, atol=1e-5, rtol=1e-5)


def test_switched_off_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(kernels.ENV, "0")
    assert kernels.library() is None
    assert not kernels.serves(torch.device("cpu"), torch.float32, 32)
    q, k, v, lengths, counts = case(torch.float32, 1, 16, [2])
    assert kernels.row_attention(q, k, v, lengths, counts) is None


def test_built_once_per_cpu_into_the_cache(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = kernels._build()
    assert built is not None
    assert [p.suffix for p in (tmp_path / "gamegrammar" / "kernels").iterdir()] == [".so"]  # no temporary left behind
