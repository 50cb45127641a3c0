"""The optimizers: Newton-Schulz orthogonalization, Muon, and Muon + AdamW as one resumable optimizer."""

from __future__ import annotations

import copy
import dataclasses

import pytest
import torch

from gamegrammar.model import PRESETS, GameGPT
from gamegrammar.training.optim import Muon, MuonAdamW, build_optimizer, hidden_matrices, orthogonalize


def tiny_gpt(seed: int = 0) -> GameGPT:
    torch.manual_seed(seed)
    return GameGPT(dataclasses.replace(PRESETS["gg31k"], vocab_size=40))


def train(model: GameGPT, optimizer: torch.optim.Optimizer, steps: int, seed: int = 1) -> None:
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        idx = torch.randint(0, 40, (2, 16), generator=gen)
        optimizer.zero_grad()
        model(idx, idx)[1].backward()
        optimizer.step()


@pytest.mark.parametrize("shape", [(64, 16), (16, 64), (32, 32)])
def test_orthogonalize_flattens_the_singular_values(shape):
    torch.manual_seed(0)
    g = torch.randn(*shape) @ torch.diag(torch.logspace(0, 1, shape[1]))  # singular values spread 3x to 200x
    assert torch.linalg.svdvals(g).max() > 3 * torch.linalg.svdvals(g).min()
    s = torch.linalg.svdvals(orthogonalize(g))
    assert s.max() < 1.25 and s.min() > 0.6  # the quintic iteration lands near 1, not on it
    assert orthogonalize(g).shape == g.shape


def test_muon_takes_matrices_only():
    with pytest.raises(ValueError, match="2-D parameters only"):
        Muon([torch.nn.Parameter(torch.zeros(3))])


def test_build_optimizer_puts_every_parameter_in_one_place():
    model = tiny_gpt()
    adamw = build_optimizer(model, "adamw", lr=1e-3, weight_decay=0.1, betas=(0.9, 0.95), muon_lr=0.02)
    assert isinstance(adamw, torch.optim.AdamW)
    muon = build_optimizer(model, "muon", lr=1e-3, weight_decay=0.1, betas=(0.9, 0.95), muon_lr=0.02)
    assert isinstance(muon, MuonAdamW)
    for optimizer in (adamw, muon):
        placed = [p for group in optimizer.param_groups for p in group["params"]]
        assert len(placed) == len({id(p) for p in placed}) == len(list(model.parameters()))
    on_muon = {id(p) for p in muon.param_groups[0]["params"]}
    assert on_muon == {id(p) for p in hidden_matrices(model)}
    assert id(model.wte.weight) not in on_muon  # the embedding, tied to the head, stays on AdamW
    assert [g["lr"] for g in muon.param_groups] == [0.02, 1e-3, 1e-3]


def test_muon_trains_and_a_schedule_scales_every_group():
    model = tiny_gpt()
    optimizer = build_optimizer(model, "muon", lr=1e-2, weight_decay=0.0, betas=(0.9, 0.95), muon_lr=0.05)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 0.5)
    assert [g["lr"] for g in optimizer.param_groups] == [0.025, 5e-3, 5e-3]
    before = [p.detach().clone() for p in model.parameters()]
    train(model, optimizer, 3)
    scheduler.step()
    assert all(not torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))
    assert all(p in optimizer.state for p in model.parameters())  # both halves keep their state in one place


def test_a_resumed_muon_adamw_continues_exactly():
    """state_dict() holds both halves' state: a reload continues as if never stopped (what --ckpt_path last needs)."""
    kwargs = {"lr": 1e-2, "weight_decay": 0.1, "betas": (0.9, 0.95), "muon_lr": 0.05}
    straight = tiny_gpt()
    optimizer = build_optimizer(straight, "muon", **kwargs)
    train(straight, optimizer, 4)
    saved_model = {k: v.clone() for k, v in straight.state_dict().items()}
    saved_state = copy.deepcopy(optimizer.state_dict())  # state_dict() shares the live tensors
    train(straight, optimizer, 3, seed=2)

    resumed = tiny_gpt(seed=5)
    resumed.load_state_dict(saved_model)
    optimizer = build_optimizer(resumed, "muon", **kwargs)
    optimizer.load_state_dict(saved_state)
    train(resumed, optimizer, 3, seed=2)
    for a, b in zip(straight.parameters(), resumed.parameters(), strict=True):
        torch.testing.assert_close(a, b)
