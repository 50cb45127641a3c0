"""World-state probes: is the game's state linearly readable from the model's hidden states?

At each tick token (`GameSpec.tick_token`) the model has read everything up to the previous tick, so the
state it would need to predict the coming outcome is the state after that tick.
That state comes from the game's trace of the episode (`GameSpec.trace`, the states
its rules give), and becomes targets through `GameSpec.probe_targets`: binary cell
planes (one binary probe per cell of each plane), scalars (regression) and class
targets (a game might give planes for its pieces, its score as a scalar, a heading
as a class).

Probes are trained on some episodes and tested on others (split by episode, so a
probe cannot memorise an episode's states), linear (logistic / softmax regression,
ridge for the scalars) and a small MLP, on the trained model and on a randomly
initialised model of the same shape: a random transformer already carries some of
the input's information, and only the gap above it is learned.

Probes are plain torch on standardised features, so they run wherever the model does.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from gamegrammar.core.io import save_figure
from gamegrammar.games import game_of
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import iter_outputs, layer_names, random_like


@dataclass
class ProbeData:
    """Features per layer and world-state targets, one row per TICK token (names in the game's order)."""

    features: dict[str, np.ndarray]  # layer -> [N, C] float32
    planes: dict[str, np.ndarray]  # plane -> [N, cells] 0/1 (row-major cells)
    scalars: dict[str, np.ndarray]  # name -> [N] values
    classes: dict[str, tuple[np.ndarray, int]]  # name -> ([N] class ids, number of classes)
    episode: np.ndarray  # [N] the episode each row comes from: the unit of the train/test split

    def __len__(self) -> int:
        return len(self.episode)


def tick_positions(tokens: Sequence[str], tick_token: str) -> list[int]:
    """Where each tick starts: the positions of the tick token, tick 1 first."""
    return [i for i, t in enumerate(tokens) if t == tick_token]


def collect(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    layers: Sequence[str] = ("final",),
    max_ticks_per_episode: int | None = None,
    seed: int = 0,
    batch_size: int = 16,
) -> ProbeData:
    """Hidden states at each TICK token and the targets of the state before that tick (after the previous one).

    Ticks past the end of the episode's trace (where the rules cannot follow it) have no state and are left out.
    """
    game = game_of(config)
    rng = np.random.default_rng(seed)
    feats: dict[str, list[np.ndarray]] = {name: [] for name in layers}
    planes: dict[str, list[np.ndarray]] = {}
    scalars: dict[str, list[float]] = {}
    classes: dict[str, list[int]] = {}
    sizes: dict[str, int] = {}
    episode: list[int] = []
    for e, (toks, out) in enumerate(zip(tokens, iter_outputs(model, episodes, layers, batch_size))):
        states = game.trace(toks, config)
        starts = tick_positions(toks, game.tick_token)[: len(states)]  # tick k starts from states[k - 1]
        ticks = list(enumerate(starts))
        if max_ticks_per_episode is not None and len(ticks) > max_ticks_per_episode:
            keep = np.sort(rng.choice(len(ticks), max_ticks_per_episode, replace=False))
            ticks = [ticks[int(i)] for i in keep]
        if not ticks:
            continue
        where = torch.tensor([start for _, start in ticks])
        for name in layers:
            feats[name].append(out.hidden[name][where].numpy())
        for k, _ in ticks:
            targets = game.probe_targets(states[k], config)
            for name, plane in targets.planes.items():
                planes.setdefault(name, []).append(plane)
            for name, value in targets.scalars.items():
                scalars.setdefault(name, []).append(value)
            for name, (value, size) in targets.classes.items():
                classes.setdefault(name, []).append(value)
                sizes[name] = size
            episode.append(e)
    width = model.config.n_embd
    return ProbeData(
        {name: np.concatenate(f) if f else np.zeros((0, width), np.float32) for name, f in feats.items()},
        {name: np.stack(rows) for name, rows in planes.items()},
        {name: np.array(values) for name, values in scalars.items()},
        {name: (np.array(values, dtype=np.int64), sizes[name]) for name, values in classes.items()},
        np.array(episode),
    )


def split_by_episode(episode: np.ndarray, test_fraction: float = 0.3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Boolean train and test masks over rows; every episode lands wholly on one side."""
    ids = np.unique(episode)
    rng = np.random.default_rng(seed)
    n_test = max(1, round(test_fraction * len(ids))) if len(ids) > 1 else 0
    test_ids = rng.choice(ids, n_test, replace=False)
    test = np.isin(episode, test_ids)
    return ~test, test


# ---------------------------------------------------------------- probe models


def _net(d_in: int, d_out: int, hidden: int) -> nn.Module:
    return nn.Linear(d_in, d_out) if hidden <= 0 else nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, d_out))


def fit_probe(
    x: np.ndarray,
    y: np.ndarray,
    loss: str,
    *,
    hidden: int = 0,
    epochs: int = 40,
    lr: float = 3e-3,
    weight_decay: float = 1e-4,
    batch_size: int = 512,
    min_steps: int = 300,
    classes: Sequence[int] | None = None,
    seed: int = 0,
) -> nn.Module:
    """A linear (hidden=0) or one-hidden-layer probe, trained with Adam.

    loss: "bce" (y [N, K] in {0,1}: K independent binary outputs), "ce" (y [N] or [N, G] class ids,
    `classes` giving each column's number of classes: one softmax head per column), "mse" (y [N, K] real).
    x must already be standardised.
    """
    g = torch.Generator().manual_seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        xt = torch.as_tensor(x, dtype=torch.float32)
        yt = torch.as_tensor(y, dtype=torch.long if loss == "ce" else torch.float32)
        if loss == "ce":
            yt = yt[:, None] if yt.dim() == 1 else yt
            sizes = list(classes) if classes is not None else [int(yt[:, g].max()) + 1 for g in range(yt.shape[1])]
            d_out = sum(sizes)
        else:
            d_out = yt.shape[1]
        net = _net(xt.shape[1], d_out, hidden)
        last = net if hidden <= 0 else net[-1]
        with torch.no_grad():  # start at the prior (the majority baseline), not at logit 0: rare cells need it
            if loss == "bce":
                prior = yt.mean(0).clamp(1e-4, 1 - 1e-4)
                last.bias.copy_(torch.log(prior / (1 - prior)))
            elif loss == "ce":
                last.bias.copy_(
                    torch.cat(
                        [torch.log(torch.bincount(yt[:, g], minlength=k).float().clamp(min=1) / len(yt)) for g, k in enumerate(sizes)]
                    )
                )
            else:
                last.bias.copy_(yt.mean(0))
        opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
        if loss == "ce":
            bounds = np.cumsum([0, *sizes]).tolist()

            def criterion(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                return sum(F.cross_entropy(out[:, a:b], target[:, g]) for g, (a, b) in enumerate(itertools.pairwise(bounds)))
        else:
            criterion = {"bce": nn.BCEWithLogitsLoss(), "mse": nn.MSELoss()}[loss]
        n = len(xt)
        batches = max(1, -(-n // batch_size))
        for _ in range(max(epochs, -(-min_steps // batches))):  # small data: still enough steps to converge
            order = torch.randperm(n, generator=g)
            for lo in range(0, n, batch_size):
                rows = order[lo : lo + batch_size]
                opt.zero_grad()
                criterion(net(xt[rows]), yt[rows]).backward()
                opt.step()
    return net.eval()


def ridge(x: np.ndarray, y: np.ndarray, alpha: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form ridge regression (weights, bias) on standardised x: the classic linear probe for scalars."""
    mean = y.mean(0)
    a = x.T @ x + alpha * np.eye(x.shape[1])
    w = np.linalg.solve(a, x.T @ (y - mean))
    return w, mean


RIDGE_ALPHAS = (0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0)


def ridge_cv(x: np.ndarray, y: np.ndarray, groups: np.ndarray, seed: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """Ridge with alpha chosen on a held-out fifth of the training episodes, then refit on all of them."""
    fit, val = split_by_episode(groups, 0.2, seed)
    alpha = RIDGE_ALPHAS[1]
    if fit.any() and val.any():
        scores = []
        for a in RIDGE_ALPHAS:
            w, b = ridge(x[fit], y[fit], a)
            scores.append(r2((x[val] @ w + b).ravel(), y[val].ravel()))
        alpha = RIDGE_ALPHAS[int(np.argmax(np.nan_to_num(np.array(scores), nan=-np.inf)))]
    w, b = ridge(x, y, alpha)
    return w, b, alpha


def f1(pred: np.ndarray, true: np.ndarray) -> float:
    """F1 of the positive class, over all entries."""
    tp = float(np.logical_and(pred, true).sum())
    fp = float(np.logical_and(pred, ~true).sum())
    fn = float(np.logical_and(~pred, true).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan")


def r2(pred: np.ndarray, true: np.ndarray) -> float:
    ss = float(((true - true.mean()) ** 2).sum())
    return 1 - float(((true - pred) ** 2).sum()) / ss if ss > 0 else float("nan")


def _predict(net: nn.Module, x: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return net(torch.as_tensor(x, dtype=torch.float32)).numpy()


def evaluate_probes(
    x: np.ndarray,
    data: ProbeData,
    train: np.ndarray,
    test: np.ndarray,
    *,
    hidden: int = 0,
    epochs: int = 40,
    min_steps: int = 300,
    seed: int = 0,
) -> dict[str, Any]:
    """Per-plane cell accuracy and F1, class-target accuracy and scalar R² of one probe type on features x.

    One probe reads every plane (a binary output per cell), one every class target (a softmax head
    each), and one every scalar. The majority baselines (per cell, and for each class target) come
    from the training rows.
    """
    mu, sd = x[train].mean(0), x[train].std(0) + 1e-6
    xs = ((x - mu) / sd).astype(np.float32)
    out: dict[str, Any] = {"train_rows": int(train.sum()), "test_rows": int(test.sum()), "planes": {}}
    if data.planes:
        names = list(data.planes)
        planes = np.stack([data.planes[n] for n in names], 1)  # [N, planes, cells]
        n_planes, n_cells = planes.shape[1:]
        y = planes.reshape(len(data), -1).astype(np.float32)
        net = fit_probe(xs[train], y[train], "bce", hidden=hidden, epochs=epochs, min_steps=min_steps, seed=seed)
        pred = (_predict(net, xs[test]) > 0).reshape(-1, n_planes, n_cells)
        true = planes[test].astype(bool)
        majority = planes[train].mean(0) > 0.5  # [planes, cells]
        for i, name in enumerate(names):
            out["planes"][name] = {
                "cell_accuracy": float((pred[:, i] == true[:, i]).mean()),
                "f1": f1(pred[:, i], true[:, i]),
                "majority_accuracy": float((majority[i][None] == true[:, i]).mean()),
                "majority_f1": f1(np.broadcast_to(majority[i][None], true[:, i].shape), true[:, i]),
                "positive_rate": float(true[:, i].mean()),
            }
    if data.classes:
        names = list(data.classes)
        y_cls = np.stack([data.classes[n][0] for n in names], 1)
        sizes = [data.classes[n][1] for n in names]
        net = fit_probe(xs[train], y_cls[train], "ce", hidden=hidden, epochs=epochs, min_steps=min_steps, classes=sizes, seed=seed)
        logits = _predict(net, xs[test])
        for j, (name, (a, b)) in enumerate(zip(names, itertools.pairwise(np.cumsum([0, *sizes]).tolist()))):
            counts = np.bincount(y_cls[train, j], minlength=sizes[j])
            out[name] = {
                "accuracy": float((logits[:, a:b].argmax(1) == y_cls[test, j]).mean()),
                "majority_accuracy": float((y_cls[test, j] == counts.argmax()).mean()),
            }
    if data.scalars:
        names = list(data.scalars)
        t = np.stack([data.scalars[n] for n in names], 1).astype(np.float64)
        if hidden <= 0:
            w, b, _ = ridge_cv(xs[train].astype(np.float64), t[train], data.episode[train], seed)
            p = xs[test] @ w + b
        else:
            m, s = t[train].mean(0), t[train].std(0) + 1e-6
            net = fit_probe(
                xs[train], ((t[train] - m) / s).astype(np.float32), "mse", hidden=hidden, epochs=epochs, min_steps=min_steps, seed=seed
            )
            p = _predict(net, xs[test]) * s + m
        for j, name in enumerate(names):
            out[name] = {"r2": r2(p[:, j], t[test, j]), "mae": float(np.abs(p[:, j] - t[test, j]).mean())}
    return out


def probe_fits(model: GameGPT, all_layers: bool) -> int:
    """How many probes `world_state_probes` fits: linear and MLP on the final state (and linear on every other
    layer), for the model and for its untrained twin."""
    return 2 * (2 + (len(layer_names(model)) - 1 if all_layers else 0))


def world_state_probes(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    *,
    baseline: GameGPT | None = None,
    all_layers: bool = True,
    mlp_hidden: int = 256,
    max_ticks_per_episode: int | None = 60,
    test_fraction: float = 0.3,
    epochs: int = 40,
    min_steps: int = 300,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Linear and MLP probes on the final state (and linear probes on every layer) of the model and an untrained twin.

    `progress` hears 1 as each probe is fitted (`probe_fits(model, all_layers)` in all).
    """
    baseline = baseline if baseline is not None else random_like(model, seed)
    layers = layer_names(model) if all_layers else ["final"]

    def fitted(entry: dict[str, Any]) -> dict[str, Any]:
        if progress is not None:
            progress(1)
        return entry

    result: dict[str, Any] = {"episodes": len(episodes), "planes": [], "layers": layers}
    for label, m in (("model", model), ("untrained", baseline)):
        data = collect(m, episodes, tokens, config, layers, max_ticks_per_episode, seed)
        train, test = split_by_episode(data.episode, test_fraction, seed)
        result["planes"] = list(data.planes)
        result["rows"] = len(data)
        result["train_episodes"] = len(np.unique(data.episode[train]))
        result["test_episodes"] = len(np.unique(data.episode[test]))
        entry = {
            "linear": fitted(evaluate_probes(data.features["final"], data, train, test, epochs=epochs, min_steps=min_steps, seed=seed)),
            "mlp": fitted(
                evaluate_probes(data.features["final"], data, train, test, hidden=mlp_hidden, epochs=epochs, min_steps=min_steps, seed=seed)
            ),
        }
        if all_layers:
            entry["by_layer"] = {
                name: fitted(evaluate_probes(data.features[name], data, train, test, epochs=epochs, min_steps=min_steps, seed=seed))
                for name in layers
                if name != "final"
            }
            entry["by_layer"]["final"] = entry["linear"]
        result[label] = entry
    return result


# ---------------------------------------------------------------- report pieces


def _f(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _names(entry: dict[str, Any], metric: str) -> list[str]:
    """The targets of one evaluate_probes() entry scored by `metric`: "accuracy" for class targets, "r2" for scalars."""
    return [name for name, value in entry.items() if isinstance(value, dict) and metric in value]


def markdown(result: dict[str, Any]) -> list[str]:
    """Markdown lines for a world_state_probes() result."""
    m, u = result["model"], result["untrained"]
    planes, classes, scalars = result["planes"], _names(m["linear"], "accuracy"), _names(m["linear"], "r2")
    lines = [
        f"## World-state probes ({result['episodes']} held-out episodes, {result['rows']} TICK positions; "
        f"train/test split by episode: {result['train_episodes']} / {result['test_episodes']})",
        "",
        "Targets: the state before each tick (after the previous one), from the game's trace of the episode through its rules.",
        "",
        "| target | metric | model linear | model MLP | untrained linear | untrained MLP | per-cell majority |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for plane in planes:
        for metric in ("f1", "cell_accuracy"):
            base = _f(m["linear"]["planes"][plane]["majority_accuracy" if metric == "cell_accuracy" else "majority_f1"])
            vals = [src[kind]["planes"][plane][metric] for src in (m, u) for kind in ("linear", "mlp")]
            lines.append(f"| {plane} cells | {metric} | " + " | ".join(_f(v) for v in vals) + f" | {base} |")
    for name in classes:
        vals = [src[kind][name]["accuracy"] for src in (m, u) for kind in ("linear", "mlp")]
        lines.append(f"| {name} | accuracy | " + " | ".join(_f(v) for v in vals) + f" | {_f(m['linear'][name]['majority_accuracy'])} |")
    for name in scalars:
        vals = [src[kind][name]["r2"] for src in (m, u) for kind in ("linear", "mlp")]
        lines.append(f"| {name} | R² | " + " | ".join(_f(v) for v in vals) + " | 0 |")
    if "by_layer" in m:
        headers = [f"{p} F1" for p in planes] + [f"{n.replace('_', ' ')} acc" for n in classes] + [f"{n} R²" for n in scalars]
        lines += ["", "### Linear probes by layer (model / untrained)", ""]
        lines += ["| layer | " + " | ".join(headers) + " |", "| --- |" + " --- |" * len(headers)]
        for layer in result["layers"]:
            a, b = m["by_layer"][layer], u["by_layer"][layer]
            cells = [f"{_f(a['planes'][p]['f1'], 2)} / {_f(b['planes'][p]['f1'], 2)}" for p in planes]
            cells += [f"{_f(a[n]['accuracy'], 2)} / {_f(b[n]['accuracy'], 2)}" for n in classes]
            cells += [f"{_f(a[n]['r2'], 2)} / {_f(b[n]['r2'], 2)}" for n in scalars]
            lines.append(f"| {layer} | " + " | ".join(cells) + " |")
    return lines


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """probes.png: F1 per plane and class-target accuracy (linear and MLP) for the model and the untrained twin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    planes, classes = result["planes"], _names(result["model"]["linear"], "accuracy")
    fig, ax = plt.subplots(figsize=(8, 3.2))
    x = np.arange(len(planes) + len(classes))
    series = [("model", "linear"), ("model", "mlp"), ("untrained", "linear"), ("untrained", "mlp")]
    for j, (src, kind) in enumerate(series):
        e = result[src][kind]
        ys = [e["planes"][p]["f1"] for p in planes] + [e[n]["accuracy"] for n in classes]
        ax.bar(x + (j - 1.5) * 0.2, ys, width=0.2, label=f"{src} {kind}", color=f"C{j}")
    ax.set_xticks(x, [f"{p}\nF1" for p in planes] + [f"{n}\nacc" for n in classes], fontsize=7)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.set_title(f"World-state probes (test: {result['test_episodes']} episodes)")
    save_figure(fig, out / "probes.png")
    plt.close(fig)
    return ["probes.png"]
