"""Optimizers for GameGPT: AdamW, or Muon on the blocks' matrices with AdamW on the rest.

Muon orthogonalizes each matrix's momentum (Newton-Schulz) before the update, which trains
small transformers in fewer tokens than AdamW; it is meant for the hidden 2-D weights only,
so embeddings (tied to the output head), norms and biases stay on AdamW.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

import torch
from torch import nn

OptimizerName = Literal["adamw", "muon"]


NS_COEFFICIENTS = (3.4445, -4.775, 2.0315)  # Keller Jordan's quintic Newton-Schulz iteration, as torch.optim.Muon uses


def orthogonalize(g: torch.Tensor, steps: int = 5) -> torch.Tensor:
    """Newton-Schulz approximation of U V^T for g = U S V^T, in float32.

    torch.optim.Muon computes this in bfloat16, which CPUs without bf16 units run ~30x slower than float32.
    """
    a, b, c = NS_COEFFICIENTS
    x = g.float()
    tall = x.size(0) > x.size(1)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=1e-7)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * gram @ gram) @ x
    return (x.T if tall else x).to(g.dtype)


def evaluate_closure(closure: Callable[[], float] | None) -> float | None:
    """The loss from an optimizer's closure (forward and backward), as torch's optimizers run it."""
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


class Muon(torch.optim.Optimizer):
    """SGD with Nesterov momentum whose update is orthogonalized, for 2-D parameters only.

    The step is scaled by sqrt(max(1, rows/cols)) as in the original; weight decay is decoupled (lr * wd).
    """

    def __init__(
        self, params: Iterable[Any], lr: float = 0.02, momentum: float = 0.95, weight_decay: float = 0.0, ns_steps: int = 5
    ) -> None:
        super().__init__(params, {"lr": lr, "momentum": momentum, "weight_decay": weight_decay, "ns_steps": ns_steps})
        for group in self.param_groups:
            if any(p.dim() != 2 for p in group["params"]):
                raise ValueError("Muon takes 2-D parameters only; give the others to AdamW")

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        loss = evaluate_closure(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                buf = self.state[p].setdefault("momentum_buffer", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(p.grad)
                update = orthogonalize(p.grad.add(buf, alpha=group["momentum"]), group["ns_steps"])
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(update, alpha=-group["lr"] * max(1.0, p.size(0) / p.size(1)) ** 0.5)
        return loss


def hidden_matrices(model: nn.Module) -> list[nn.Parameter]:
    """The 2-D weights of the transformer blocks: what Muon is for (not embeddings, not the head)."""
    return [p for name, p in model.named_parameters() if p.dim() == 2 and name.startswith("blocks.")]


class MuonAdamW(torch.optim.Optimizer):
    """Muon for `muon_params` and torch.optim.AdamW for `adamw_groups`, as one optimizer.

    One object, so Lightning's automatic optimization, gradient clipping, learning-rate schedulers
    (each group keeps its own base rate) and checkpoints work unchanged. The two inner optimizers
    share this one's param_groups and state, so state_dict() holds both.
    """

    def __init__(
        self,
        muon_params: Iterable[nn.Parameter],
        adamw_groups: list[dict[str, Any]],
        *,
        muon_lr: float,
        lr: float,
        weight_decay: float,
        betas: tuple[float, float],
        fused: bool | None = None,
    ) -> None:
        self._muon = Muon([{"params": list(muon_params)}], lr=muon_lr, weight_decay=weight_decay)
        self._adamw = torch.optim.AdamW(adamw_groups, lr=lr, betas=betas, fused=fused)
        self._n_muon = len(self._muon.param_groups)
        super().__init__([*self._muon.param_groups, *self._adamw.param_groups], defaults={})
        self._link()

    def _link(self) -> None:
        self._muon.param_groups = self.param_groups[: self._n_muon]
        self._adamw.param_groups = self.param_groups[self._n_muon :]
        self._muon.state = self._adamw.state = self.state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        super().load_state_dict(state_dict)  # replaces param_groups and state: point the inner optimizers at the new ones
        self._link()

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        loss = evaluate_closure(closure)
        self._muon.step()
        self._adamw.step()
        return loss


def build_optimizer(
    model: nn.Module,
    name: OptimizerName,
    *,
    lr: float,
    weight_decay: float,
    betas: tuple[float, float],
    muon_lr: float,
    fused: bool | None = None,
) -> torch.optim.Optimizer:
    """AdamW with weight decay on matrices only; or Muon on the blocks' matrices and AdamW on the rest. `fused`: AdamW's
    one-kernel step (CUDA parameters only; None is torch's default, its multi-tensor step)."""
    muon = hidden_matrices(model) if name == "muon" else []
    rest = [p for p in model.parameters() if all(p is not m for m in muon)]
    groups = [
        {"params": [p for p in rest if p.dim() >= 2], "weight_decay": weight_decay},
        {"params": [p for p in rest if p.dim() < 2], "weight_decay": 0.0},
    ]
    if name == "adamw":
        return torch.optim.AdamW(groups, lr=lr, betas=betas, fused=fused)
    return MuonAdamW(muon, groups, muon_lr=muon_lr, lr=lr, weight_decay=weight_decay, betas=betas, fused=fused)
