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

from gamegrammar.core.gamespec import GameSpec
from gamegrammar.core.io import save_figure
from gamegrammar.core.stats import grouped_ratio_interval
from gamegrammar.games import game_of
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import iter_outputs, layer_names, random_like

POSITIONS = dict(GameSpec.probe_positions)
"""Where probes read unless told (a game may name more: `GameSpec.probe_positions`), by offset from each tick token."""


@dataclass
class ProbeData:
    """Features per layer and world-state targets, one row per tick (names in the game's order)."""

    features: dict[str, np.ndarray]  # layer -> [N, C] float32 ("tokens": the one-hot baseline of the last few tokens)
    planes: dict[str, np.ndarray]  # plane -> [N, cells] 0/1 (row-major cells)
    scalars: dict[str, np.ndarray]  # name -> [N] values
    classes: dict[str, tuple[np.ndarray, int]]  # name -> ([N] class ids, number of classes)
    episode: np.ndarray  # [N] the episode each row comes from: the unit of the train/test split

    def __len__(self) -> int:
        return len(self.episode)


def tick_positions(tokens: Sequence[str], tick_token: str) -> list[int]:
    """Where each tick starts: the positions of the tick token, tick 1 first."""
    return [i for i, t in enumerate(tokens) if t == tick_token]


def last_tokens(ids: Sequence[int], where: Sequence[int], window: int, vocab_size: int) -> np.ndarray:
    """[len(where), window * vocab_size] one-hot of the `window` tokens ending at each position (itself included;
    nothing before the episode's start): what a reader of the last few tokens alone would have."""
    out = np.zeros((len(where), window, vocab_size), dtype=np.float32)
    for r, p in enumerate(where):
        for j in range(window):
            if p - j >= 0:
                out[r, window - 1 - j, int(ids[p - j])] = 1.0
    return out.reshape(len(where), -1)


def collect(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    layers: Sequence[str] = ("final",),
    max_ticks_per_episode: int | None = None,
    seed: int = 0,
    batch_size: int = 16,
    offset: int = 0,
) -> ProbeData:
    """Hidden states at each tick token (or `offset` tokens after it) and the targets of the state before that tick."""
    return collect_positions(model, episodes, tokens, config, layers, {"at": offset}, max_ticks_per_episode, seed, batch_size)["at"]


def collect_positions(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    config: Any,
    layers: Sequence[str] = ("final",),
    positions: dict[str, int | str] | None = None,
    max_ticks_per_episode: int | None = None,
    seed: int = 0,
    batch_size: int = 16,
    token_window: int = 0,
) -> dict[str, ProbeData]:
    """For each named position, the hidden states there and the targets of the state the model holds there.

    A position is an offset from the tick token (int), one row per tick with the targets of the state before that
    tick (after the previous one); every such position has the same rows and targets. At the tick token the model
    has read everything up to the previous tick; a token later (Snake: the input) it has read the input too, and is
    about to write what the same state makes of it. Or a position is a word (str: Snake's FOOD_SPAWN), read at the
    first such word of each tick that has one, with the targets of the state after that tick: where the grammar
    asks the model to know the board (a food spawn needs every free cell), whatever the tick's length.
    Ticks past the end of the episode's trace (where the rules cannot follow it), and ticks too short to hold every
    offset, are left out. `token_window` > 0 adds the feature set "tokens": the one-hot of that many tokens ending at
    the position. One forward per episode serves every position; episodes run in order of length (less padding).
    """
    positions = dict(POSITIONS if positions is None else positions)
    offsets = {pos: at for pos, at in positions.items() if isinstance(at, int)}
    game = game_of(config)
    names = [*layers, *(["tokens"] if token_window > 0 else [])]
    found: dict[str, dict[int, tuple[dict[str, np.ndarray], list[Any]]]] = {pos: {} for pos in positions}  # pos -> episode -> rows

    def draw(points: list[tuple[int, int]], e: int, salt: int) -> list[tuple[int, int]]:
        if max_ticks_per_episode is None or len(points) <= max_ticks_per_episode:
            return points
        keep = np.sort(
            np.random.default_rng([seed, e, *([salt] if salt else [])]).choice(len(points), max_ticks_per_episode, replace=False)
        )
        return [points[int(i)] for i in keep]

    def read(out: Any, e: int, where: list[int]) -> dict[str, np.ndarray]:
        feats = {name: out.hidden[name][torch.tensor(where)].numpy() for name in layers}
        if token_window > 0:
            feats["tokens"] = last_tokens(episodes[e], where, token_window, model.config.vocab_size)
        return feats

    order = sorted(range(len(episodes)), key=lambda i: len(episodes[i]))
    for e, out in zip(order, iter_outputs(model, [episodes[i] for i in order], layers, batch_size)):
        toks = tokens[e]
        states = game.trace(toks, config)
        starts = tick_positions(toks, game.tick_token)[: len(states)]  # tick k starts from states[k]
        ends = [*starts[1:], len(toks)]
        if offsets:
            ticks = draw([(k, start) for k, (start, end) in enumerate(zip(starts, ends)) if start + max(offsets.values()) < end], e, 0)
            if ticks:
                targets = [game.probe_targets(states[k], config) for k, _ in ticks]
                for pos, offset in offsets.items():
                    found[pos][e] = read(out, e, [start + offset for _, start in ticks]), targets
        for salt, (pos, word) in enumerate(((p, w) for p, w in positions.items() if isinstance(w, str)), start=1):
            at = [
                (k, toks.index(word, start, end))
                for k, (start, end) in enumerate(zip(starts, ends))
                if k + 1 < len(states) and word in toks[start:end]
            ]
            at = draw(at, e, salt)
            if at:
                found[pos][e] = read(out, e, [p for _, p in at]), [game.probe_targets(states[k + 1], config) for k, _ in at]
    width = {name: model.config.n_embd for name in layers} | {"tokens": token_window * model.config.vocab_size}
    return {pos: _probe_data(found[pos], names, width) for pos in positions}


def _probe_data(found: dict[int, tuple[dict[str, np.ndarray], list[Any]]], names: Sequence[str], width: dict[str, int]) -> ProbeData:
    """One position's rows, in episode order whatever order the episodes ran in."""
    done = sorted(found)
    targets = [t for e in done for t in found[e][1]]
    sizes = {name: size for t in targets[:1] for name, (_, size) in t.classes.items()}
    return ProbeData(
        {name: np.concatenate([found[e][0][name] for e in done]) if done else np.zeros((0, width[name]), np.float32) for name in names},
        {name: np.stack([t.planes[name] for t in targets]) for name in (targets[0].planes if targets else {})},
        {name: np.array([t.scalars[name] for t in targets]) for name in (targets[0].scalars if targets else {})},
        {name: (np.array([t.classes[name][0] for t in targets], dtype=np.int64), sizes[name]) for name in sizes},
        np.array([e for e in done for _ in found[e][1]], dtype=np.int64),
    )


def relative_planes(data: ProbeData, shape: tuple[int, int], anchor: str = "head") -> ProbeData:
    """The planes re-indexed around the anchor's cell (Othello-GPT's "mine / theirs" in Snake's terms: where is the
    body from my head?): a (2H-1) x (2W-1) grid whose centre is the anchor, cells off the board 0.

    Every occupied cell keeps one place, so a plane's F1 counts the same cells as on the board; the anchor's own
    plane (always the centre) is left out, as is any row without exactly one anchor cell.
    """
    h, w = shape
    anchor_plane = data.planes[anchor]
    rows = anchor_plane.sum(1) == 1
    cy, cx = np.divmod(anchor_plane[rows].argmax(1), w)
    out: dict[str, np.ndarray] = {}
    ys, xs = np.divmod(np.arange(h * w), w)
    for name, plane in data.planes.items():
        if name == anchor:
            continue
        grid = np.zeros((int(rows.sum()), 2 * h - 1, 2 * w - 1), dtype=plane.dtype)
        r = np.arange(len(cy))[:, None]
        grid[r, ys[None] - cy[:, None] + h - 1, xs[None] - cx[:, None] + w - 1] = plane[rows]
        out[name] = grid.reshape(len(grid), -1)
    return ProbeData(
        {name: f[rows] for name, f in data.features.items()},
        out,
        {name: v[rows] for name, v in data.scalars.items()},
        {name: (v[rows], k) for name, (v, k) in data.classes.items()},
        data.episode[rows],
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
    epochs: int = 100,
    lr: float = 3e-3,
    weight_decay: float = 1e-2,
    batch_size: int = 1024,
    min_steps: int = 300,
    classes: Sequence[int] | None = None,
    seed: int = 0,
    groups: np.ndarray | None = None,
    patience: int = 5,
    val_fraction: float = 0.15,
) -> nn.Module:
    """A linear (hidden=0) or one-hidden-layer probe, trained with AdamW in minibatches.

    loss: "bce" (y [N, K] in {0,1}: K independent binary outputs), "ce" (y [N] or [N, G] class ids,
    `classes` giving each column's number of classes: one softmax head per column), "mse" (y [N, K] real).
    x must already be standardised.
    With `groups` (each row's episode), `val_fraction` of the episodes are held out of the fit and the probe stops
    early: it keeps the weights of the epoch with the lowest loss on them, and stops `patience` epochs after it (at
    most `epochs`). The held-out episodes are the training set's own, so the test episodes choose nothing.
    Without `groups` it runs `epochs` epochs (and at least `min_steps` steps: small data still converges).
    The number of epochs run is kept as `probe.epochs_run`, the best epoch as `probe.best_epoch`.
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
        fit_rows, val_rows = torch.arange(len(xt)), None
        if groups is not None and len(np.unique(groups)) > 1:
            fit, val = split_by_episode(np.asarray(groups), val_fraction, seed + 1)
            fit_rows, val_rows = torch.as_tensor(np.flatnonzero(fit)), torch.as_tensor(np.flatnonzero(val))
        net = _net(xt.shape[1], d_out, hidden)
        last = net if hidden <= 0 else net[-1]
        with torch.no_grad():  # start at the prior (the majority baseline), not at logit 0: rare cells need it
            ys = yt[fit_rows]
            if loss == "bce":
                prior = ys.mean(0).clamp(1e-4, 1 - 1e-4)
                last.bias.copy_(torch.log(prior / (1 - prior)))
            elif loss == "ce":
                last.bias.copy_(
                    torch.cat(
                        [torch.log(torch.bincount(ys[:, g], minlength=k).float().clamp(min=1) / len(ys)) for g, k in enumerate(sizes)]
                    )
                )
            else:
                last.bias.copy_(ys.mean(0))
        opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
        if loss == "ce":
            bounds = np.cumsum([0, *sizes]).tolist()

            def criterion(out: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
                return sum(F.cross_entropy(out[:, a:b], target[:, g]) for g, (a, b) in enumerate(itertools.pairwise(bounds)))
        else:
            criterion = {"bce": nn.BCEWithLogitsLoss(), "mse": nn.MSELoss()}[loss]
        n = len(fit_rows)
        batches = max(1, -(-n // batch_size))
        budget = epochs if val_rows is not None else max(epochs, -(-min_steps // batches))
        best, best_state, best_epoch, epoch = math.inf, None, 0, 0
        for epoch in range(1, budget + 1):
            order = fit_rows[torch.randperm(n, generator=g)]
            for lo in range(0, n, batch_size):
                rows = order[lo : lo + batch_size]
                opt.zero_grad()
                criterion(net(xt[rows]), yt[rows]).backward()
                opt.step()
            if val_rows is None:
                continue
            with torch.no_grad():
                score = float(criterion(net(xt[val_rows]), yt[val_rows]))
            if score < best:
                best, best_epoch, best_state = score, epoch, {k: v.clone() for k, v in net.state_dict().items()}
            elif epoch - best_epoch >= patience:
                break
        if best_state is not None:
            net.load_state_dict(best_state)
    net.epochs_run, net.best_epoch = epoch, best_epoch if val_rows is not None else epoch
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


@dataclass
class LinearPlaneProbe:
    """A fitted linear probe of every plane's cells, folded back to the raw hidden state: logit = h @ weight + bias.

    `typical[value]` [planes * cells]: the mean logit of each output over the training rows whose target was `value`
    (0 or 1; a cell never seen with that value takes its plane's mean): where an edit of the hidden state should
    put a cell to make the probe read it like a real one.
    """

    planes: list[str]
    cells: int
    weight: np.ndarray  # [C, planes * cells]
    bias: np.ndarray  # [planes * cells]
    typical: dict[int, np.ndarray]
    layer: str = "final"  # the layer whose hidden state it reads
    anchor: tuple[str, int, int] | None = None  # (plane, H, W): planes relabelled around that plane's cell

    def column(self, plane: str, cell: int, anchor_cell: int | None = None) -> int:
        """The output of a board cell's plane (a probe relabelled around an anchor needs the anchor's cell)."""
        if self.anchor is not None:
            if anchor_cell is None:
                raise ValueError(f"a probe relabelled around the {self.anchor[0]} needs its cell")
            _, h, w = self.anchor
            (y, x), (ay, ax) = divmod(cell, w), divmod(anchor_cell, w)
            cell = (y - ay + h - 1) * (2 * w - 1) + (x - ax + w - 1)
        return self.planes.index(plane) * self.cells + cell


def _standardise(x: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x standardised on the training rows, mean, scale); a column constant there keeps scale 1 (one-hot features:
    a token never seen in training must not become a huge value)."""
    mu, sd = x[train].mean(0), x[train].std(0)
    sd = np.where(sd > 1e-3, sd, 1.0)
    return ((x - mu) / sd).astype(np.float32), mu, sd


def _fold(net: nn.Module, mu: np.ndarray, sd: np.ndarray, y: np.ndarray, xs: np.ndarray, names: list[str], cells: int) -> LinearPlaneProbe:
    w = net.weight.detach().numpy().T.astype(np.float64)  # [C, J] on standardised inputs
    b = net.bias.detach().numpy().astype(np.float64)
    weight = w / sd[:, None]
    bias = b - (mu / sd) @ w
    logits = _predict(net, xs)
    typical = {}
    for value in (0, 1):
        hit = y == value
        per = np.where(hit.any(0), (logits * hit).sum(0) / np.maximum(hit.sum(0), 1), np.nan)
        planes = per.reshape(len(names), cells)
        plane_mean = np.array([np.nanmean(row) if np.isfinite(row).any() else 0.0 for row in planes])
        typical[value] = np.where(np.isnan(planes), plane_mean[:, None], planes).ravel()
    return LinearPlaneProbe(names, cells, weight, bias, typical)


def _with_interval(num: np.ndarray, den: np.ndarray, seed: int) -> dict[str, Any]:
    total = float(den.sum())
    value = float(num.sum()) / total if total else float("nan")
    return {"value": value, "ci95": list(grouped_ratio_interval(num, den, seed=seed)) if total else None}


def plane_scores(pred: np.ndarray, true: np.ndarray, episode: np.ndarray, seed: int = 0) -> dict[str, Any]:
    """Cell accuracy and F1 of one plane's predictions ([N, cells] bool) with 95% intervals by episode bootstrap, and
    per cell (over the rows) accuracy and F1."""
    ids, group = np.unique(episode, return_inverse=True)
    tp = np.bincount(group, np.logical_and(pred, true).sum(1), len(ids))
    fp = np.bincount(group, np.logical_and(pred, ~true).sum(1), len(ids))
    fn = np.bincount(group, np.logical_and(~pred, true).sum(1), len(ids))
    right = np.bincount(group, (pred == true).sum(1), len(ids))
    total = np.bincount(group, np.full(len(pred), pred.shape[1], dtype=np.float64), len(ids))
    acc, f = _with_interval(right, total, seed), _with_interval(2 * tp, 2 * tp + fp + fn, seed)
    cell_tp, cell_fp = np.logical_and(pred, true).sum(0), np.logical_and(pred, ~true).sum(0)
    cell_fn = np.logical_and(~pred, true).sum(0)
    denom = 2 * cell_tp + cell_fp + cell_fn
    return {
        "cell_accuracy": acc["value"],
        "cell_accuracy_ci95": acc["ci95"],
        "f1": f["value"],
        "f1_ci95": f["ci95"],
        "per_cell_accuracy": [round(float(v), 4) for v in (pred == true).mean(0)],
        "per_cell_f1": [round(float(2 * t / d), 4) if d else None for t, d in zip(cell_tp, denom)],
    }


TARGET_KINDS = ("planes", "classes", "scalars")
CURVE_FRACTIONS = (0.125, 0.25, 0.5, 1.0)  # of the training episodes, for the learning curve
PROBE_LR = {"linear": 1e-2, "mlp": 3e-3}
"""AdamW's step size by probe kind: a linear probe's loss is convex and takes the larger step (fewer epochs)."""


def _f1_or_none(pred: np.ndarray, true: np.ndarray) -> float | None:
    value = f1(pred, true)
    return None if math.isnan(value) else round(value, 4)


def anchor_rings(shape: tuple[int, int]) -> np.ndarray:
    """[(2H-1) * (2W-1)] the Manhattan distance of each cell of a relabelled grid (`relative_planes`) from its centre."""
    h, w = shape
    ys, xs = np.divmod(np.arange((2 * h - 1) * (2 * w - 1)), 2 * w - 1)
    return np.abs(ys - (h - 1)) + np.abs(xs - (w - 1))


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
    targets: Sequence[str] = TARGET_KINDS,
    per_cell: bool = False,
    keep: dict[str, Any] | None = None,
    patience: int = 4,
    rings: np.ndarray | None = None,
) -> dict[str, Any]:
    """Per-plane cell accuracy and F1 (95% intervals by episode), class-target accuracy and scalar R² of one probe
    type on features x.

    One probe reads every plane (a binary output per cell), one every class target (a softmax head
    each), and one every scalar; `targets` picks which of the three are fitted. The majority baselines (per cell,
    and for each class target) come from the training rows. `per_cell` keeps each cell's accuracy and F1;
    `keep` (a dict) receives the linear planes probe as a `LinearPlaneProbe` under "planes" (for interventions).
    `patience` > 0: each probe holds out some of the training episodes and stops on them (`fit_probe`'s groups),
    at most `epochs` epochs; 0: it runs `epochs` epochs (and at least `min_steps` steps). Linear probes take a
    larger step (`PROBE_LR`). `rings` ([cells] ints, e.g. each cell's distance from an anchor) adds each plane's F1
    pooled over the cells of each ring ("f1_by_ring").
    """
    xs, mu, sd = _standardise(x, train)
    fit = {
        "hidden": hidden,
        "epochs": epochs,
        "min_steps": min_steps,
        "seed": seed,
        "groups": data.episode[train] if patience > 0 else None,
        "patience": patience,
        "lr": PROBE_LR["linear" if hidden <= 0 else "mlp"],
    }
    out: dict[str, Any] = {"train_rows": int(train.sum()), "test_rows": int(test.sum()), "planes": {}}
    if data.planes and "planes" in targets:
        names = list(data.planes)
        planes = np.stack([data.planes[n] for n in names], 1)  # [N, planes, cells]
        n_planes, n_cells = planes.shape[1:]
        y = planes.reshape(len(data), -1).astype(np.float32)
        net = fit_probe(xs[train], y[train], "bce", **fit)
        out["epochs_run"] = net.epochs_run
        if keep is not None and hidden <= 0:
            keep["planes"] = _fold(net, mu, sd, y[train], xs[train], names, n_cells)
        pred = (_predict(net, xs[test]) > 0).reshape(-1, n_planes, n_cells)
        true = planes[test].astype(bool)
        majority = planes[train].mean(0) > 0.5  # [planes, cells]
        for i, name in enumerate(names):
            scores = plane_scores(pred[:, i], true[:, i], data.episode[test], seed)
            if not per_cell:
                scores = {k: v for k, v in scores.items() if not k.startswith("per_cell")}
            if rings is not None:
                scores["f1_by_ring"] = {
                    int(r): _f1_or_none(pred[:, i, rings == r], true[:, i, rings == r]) for r in np.unique(rings[rings > 0])
                }
            out["planes"][name] = {
                **scores,
                "majority_accuracy": float((majority[i][None] == true[:, i]).mean()),
                "majority_f1": f1(np.broadcast_to(majority[i][None], true[:, i].shape), true[:, i]),
                "positive_rate": float(true[:, i].mean()),
            }
    if data.classes and "classes" in targets:
        names = list(data.classes)
        y_cls = np.stack([data.classes[n][0] for n in names], 1)
        sizes = [data.classes[n][1] for n in names]
        net = fit_probe(xs[train], y_cls[train], "ce", classes=sizes, **fit)
        logits = _predict(net, xs[test])
        for j, (name, (a, b)) in enumerate(zip(names, itertools.pairwise(np.cumsum([0, *sizes]).tolist()))):
            counts = np.bincount(y_cls[train, j], minlength=sizes[j])
            out[name] = {
                "accuracy": float((logits[:, a:b].argmax(1) == y_cls[test, j]).mean()),
                "majority_accuracy": float((y_cls[test, j] == counts.argmax()).mean()),
            }
    if data.scalars and "scalars" in targets:
        names = list(data.scalars)
        t = np.stack([data.scalars[n] for n in names], 1).astype(np.float64)
        if hidden <= 0:
            w, b, _ = ridge_cv(xs[train].astype(np.float64), t[train], data.episode[train], seed)
            p = xs[test] @ w + b
        else:
            m, s = t[train].mean(0), t[train].std(0) + 1e-6
            net = fit_probe(xs[train], ((t[train] - m) / s).astype(np.float32), "mse", **fit)
            p = _predict(net, xs[test]) * s + m
        for j, name in enumerate(names):
            out[name] = {"r2": r2(p[:, j], t[test, j]), "mae": float(np.abs(p[:, j] - t[test, j]).mean())}
    return out


def probe_fits(
    model: GameGPT,
    all_layers: bool,
    positions: dict[str, int | str] | None = None,
    relative: str | None = "head",
    token_window: int = 6,
    curve: int = len(CURVE_FRACTIONS),
) -> int:
    """How many probes `world_state_probes` fits: at each position, linear and MLP probes on every layer (or the final
    one) of the model, of its untrained twin and (with `relative`) of the model's planes relabelled around the
    anchor, and linear and MLP probes of the last `token_window` tokens; then the `curve` probes of the learning curve."""
    layers = len(layer_names(model)) if all_layers else 1
    per_position = 2 * layers * (3 if relative else 2) + (2 if token_window > 0 else 0)
    return len(POSITIONS if positions is None else positions) * per_position + curve


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
    positions: dict[str, int | str] | None = None,
    relative: str | None = "head",
    token_window: int = 6,
    patience: int = 4,
    curve: Sequence[float] = CURVE_FRACTIONS,
    intervene: Callable[[dict[int | str, dict[str, LinearPlaneProbe]], list[int]], dict[str, Any]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Linear and MLP probes of the board at each position and layer: the model, an untrained twin, the model's
    planes relabelled around the `relative` anchor (Snake: the head), and the last `token_window` tokens alone.

    "model" and "untrained" keep the final layer at the first position with every target kind (planes, classes,
    scalars); "sweep" holds every position x source x kind x layer (planes only). `intervene(probes, test episodes)`,
    given, puts its finding under "interventions": `probes[offset or word][name]` are the model's linear probes (of the board,
    and relabelled: name "<layer>, relative"), the episodes those held out from their training
    (`interventions.run_interventions` edits the hidden state along them). `progress` hears the number of probes fitted as they are
    (`probe_fits(model, all_layers, positions, relative, token_window, len(curve))` in all).
    `max_ticks_per_episode` None reads every tick. `patience`: early stopping of each probe (`evaluate_probes`).
    `curve`: fractions of the training episodes on which the model's best linear probe of the board (first
    position) is fitted again, every test row kept: "learning_curve", F1 against the number of training rows (does
    more data help?).
    """
    positions = dict(POSITIONS if positions is None else positions)
    baseline = baseline if baseline is not None else random_like(model, seed)
    layers = layer_names(model) if all_layers else ["final"]
    first = next(iter(positions))

    def fitted(entry: dict[str, Any], n: int = 1) -> dict[str, Any]:
        if progress is not None:
            progress(n)
        return entry

    trained = collect_positions(model, episodes, tokens, config, layers, positions, max_ticks_per_episode, seed, token_window=token_window)
    untrained = collect_positions(baseline, episodes, tokens, config, layers, positions, max_ticks_per_episode, seed)
    data = trained[first]
    train, test = split_by_episode(data.episode, test_fraction, seed)
    shape = game_of(config).board_shape(config) if relative and relative in data.planes else None
    result: dict[str, Any] = {
        "episodes": len(episodes),
        "planes": list(data.planes),
        "layers": layers,
        "positions": positions,
        "rows": len(data),
        "rows_by_position": {pos: len(trained[pos]) for pos in positions},
        "train_episodes": len(np.unique(data.episode[train])),
        "test_episodes": len(np.unique(data.episode[test])),
        "train_rows": int(train.sum()),
        "test_rows": int(test.sum()),
        "token_window": token_window,
        "relative": relative if shape is not None else None,
        "board_shape": list(shape) if shape is not None else None,
        "mlp_hidden": mlp_hidden,
        "sweep": {},
    }
    options = {"epochs": epochs, "min_steps": min_steps, "seed": seed, "patience": patience}
    result["patience"] = patience
    kept: dict[int | str, dict[str, LinearPlaneProbe]] = {}  # offset or word -> name -> the model's linear probe (interventions)
    per_position = probe_fits(model, all_layers, {first: 0}, relative, token_window, 0)
    train_eps, test_eps = np.unique(data.episode[train]), np.unique(data.episode[test])

    def split_of(d: ProbeData) -> tuple[np.ndarray, np.ndarray]:
        """The first position's split by episode, over another place's rows."""
        return np.isin(d.episode, train_eps), np.isin(d.episode, test_eps)

    for pos, offset in positions.items():
        split = split_of(trained[pos])
        if not (split[0].any() and split[1].any()):  # a word no test (or no training) episode writes: nothing to score
            result.setdefault("unread_positions", {})[pos] = f"{int(split[0].sum())} training and {int(split[1].sum())} test rows"
            fitted({}, per_position)
            continue
        sweep: dict[str, Any] = {"model": {"linear": {}, "mlp": {}}, "untrained": {"linear": {}, "mlp": {}}}
        sources = [("model", trained[pos]), ("untrained", untrained[pos])]
        if shape is not None:
            sources.append(("relative", relative_planes(trained[pos], shape, relative)))
            sweep["relative"] = {"linear": {}, "mlp": {}}
        for source, d in sources:
            tr, te = split if source != "relative" else split_of(d)  # relabelling drops rows without one anchor
            for layer in layers:
                for kind, hidden in (("linear", 0), ("mlp", mlp_hidden)):
                    full = pos == first and layer == "final" and source != "relative"
                    keep: dict[str, Any] | None = {} if source in ("model", "relative") and kind == "linear" else None
                    entry = evaluate_probes(
                        d.features[layer],
                        d,
                        tr,
                        te,
                        hidden=hidden,
                        targets=TARGET_KINDS if full else ("planes",),
                        keep=keep,
                        per_cell=layer == "final" or source == "relative",
                        rings=anchor_rings(shape) if source == "relative" else None,
                        **options,
                    )
                    sweep[source][kind][layer] = fitted(entry)
                    if full:
                        result.setdefault(source, {})[kind] = entry
                    if keep:
                        probe = keep["planes"]
                        probe.layer = layer
                        if source == "relative":
                            probe.anchor = (relative, *shape)
                        kept.setdefault(offset, {})[layer if source == "model" else f"{layer}, relative"] = probe
        if shape is None and relative:
            fitted({}, 2 * len(layers))
        if token_window > 0:
            d = trained[pos]
            sweep["tokens"] = {
                kind: fitted(evaluate_probes(d.features["tokens"], d, *split, hidden=hidden, targets=("planes",), **options))
                for kind, hidden in (("linear", 0), ("mlp", mlp_hidden))
            }
        result["sweep"][pos] = sweep
    result["positions"] = {pos: at for pos, at in positions.items() if pos in result["sweep"]}  # the unread left out
    result["best"] = best_probes(result)
    if curve:
        result["learning_curve"] = learning_curve(trained[first], train, test, result, curve, options, fitted)
    if intervene is not None:
        result["interventions"] = intervene(kept, sorted(set(np.unique(data.episode[test]).tolist())))
    return result


def learning_curve(
    data: ProbeData,
    train: np.ndarray,
    test: np.ndarray,
    result: dict[str, Any],
    fractions: Sequence[float],
    options: dict[str, Any],
    fitted: Callable[[dict[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    """F1 of each plane of the model's linear probe at the layer where it reads best the plane with the most occupied
    cells (empty aside: Snake's body, Go's stones), fitted on nested fractions of the training episodes (a seeded order) and scored on the same test rows."""
    first = next(iter(result["positions"]))
    occupied = {name: np.asarray(data.planes[name])[train].sum() for name in result["planes"] if name != "empty"}
    target = max(occupied, key=occupied.__getitem__) if occupied else result["planes"][0]  # the board's bulk
    by_layer = result["sweep"][first]["model"]["linear"]
    layer = max(by_layer, key=lambda name: np.nan_to_num(by_layer[name]["planes"][target]["f1"], nan=-1.0))
    ids = np.unique(data.episode[train])
    order = np.random.default_rng(options["seed"]).permutation(ids)
    points = []
    for fraction in fractions:
        chosen = order[: max(2, round(fraction * len(ids)))]
        rows = train & np.isin(data.episode, chosen)
        entry = fitted(evaluate_probes(data.features[layer], data, rows, test, targets=("planes",), **options))
        points.append(
            {
                "fraction": fraction,
                "train_episodes": len(chosen),
                "train_rows": int(rows.sum()),
                "f1": {name: scores["f1"] for name, scores in entry["planes"].items()},
                "f1_ci95": {name: scores["f1_ci95"] for name, scores in entry["planes"].items()},
            }
        )
    return {"position": first, "layer": layer, "kind": "linear", "chosen_by": target, "points": points}


def best_probes(result: dict[str, Any]) -> dict[str, Any]:
    """For each plane and source (model, untrained, relative, tokens): the position, kind and layer of the highest
    test F1, with its interval."""
    out: dict[str, Any] = {}
    for plane in result["planes"]:
        for pos, sweep in result["sweep"].items():
            for source, kinds in sweep.items():
                for kind, value in kinds.items():
                    entries = [(f"last {result['token_window']} tokens", value)] if source == "tokens" else list(value.items())
                    for layer, entry in entries:
                        scores = entry["planes"].get(plane)
                        if scores is None or scores["f1"] is None or math.isnan(scores["f1"]):
                            continue
                        here = out.setdefault(plane, {}).get(source)
                        if here is None or scores["f1"] > here["f1"]:
                            out[plane][source] = {
                                "position": pos,
                                "kind": kind,
                                "layer": layer,
                                **{k: scores[k] for k in ("f1", "f1_ci95", "cell_accuracy", "cell_accuracy_ci95")},
                            }
    if result.get("board_shape"):  # the anchor's four neighbours, relabelled: Snake's SENSE word asks exactly these
        h, w = result["board_shape"]
        centre = (h - 1) * (2 * w - 1) + (w - 1)
        beside = [centre - (2 * w - 1), centre + (2 * w - 1), centre - 1, centre + 1]
        for plane in result["planes"]:
            for pos, sweep in result["sweep"].items():
                for kind, by_layer in sweep.get("relative", {}).items():
                    for layer, entry in by_layer.items():
                        cells = entry["planes"].get(plane, {}).get("per_cell_f1")
                        if not cells or any(cells[i] is None for i in beside):
                            continue
                        mean = float(np.mean([cells[i] for i in beside]))
                        here = out.setdefault(plane, {}).get("beside")
                        if here is None or mean > here["f1"]:
                            out[plane]["beside"] = {"position": pos, "kind": kind, "layer": layer, "f1": mean, "f1_ci95": None}
    return out


# ---------------------------------------------------------------- report pieces


def _f(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _names(entry: dict[str, Any], metric: str) -> list[str]:
    """The targets of one evaluate_probes() entry scored by `metric`: "accuracy" for class targets, "r2" for scalars."""
    return [name for name, value in entry.items() if isinstance(value, dict) and metric in value]


SOURCES = {
    "model": "model",
    "relative": "model, relabelled around the {relative}",
    "beside": "the 4 cells beside the {relative} (relabelled; mean per-cell F1)",
    "untrained": "untrained twin",
    "tokens": "last {window} tokens",
}


def _ci(scores: dict[str, Any], metric: str = "f1") -> str:
    ci = scores.get(f"{metric}_ci95")
    return f"{_f(scores[metric])} [{_f(ci[0])}, {_f(ci[1])}]" if ci else _f(scores[metric])


def _source_name(result: dict[str, Any], source: str) -> str:
    return SOURCES[source].format(relative=result.get("relative"), window=result.get("token_window"))


def _where(at: int | str, rows: int | None) -> str:
    if isinstance(at, int):
        return f"offset {at} from the tick token"
    return f"the first `{at}` of a tick, {rows} rows" if rows is not None else f"the first `{at}` of a tick"


def markdown(result: dict[str, Any]) -> list[str]:
    """Markdown lines for a world_state_probes() result."""
    planes, positions = result["planes"], result["positions"]
    lines = [
        f"## World-state probes ({result['episodes']} held-out episodes, {result['rows']} ticks; "
        f"train/test split by episode: {result['train_episodes']} / {result['test_episodes']} episodes, "
        f"{result['train_rows']} / {result['test_rows']} rows)",
        "",
        "Targets: the state before each tick (after the previous one; at a word, the state after the word's tick), from "
        "the game's trace of the episode through its rules, one binary probe output per cell of each plane. Read at "
        + ", ".join(f"`{name}` ({_where(at, result.get('rows_by_position', {}).get(name))})" for name, at in positions.items())
        + f"; linear probes and MLP probes (one hidden layer of {result['mlp_hidden']}) on every layer of the model and of an "
        "untrained model of its shape, and on the one-hot of the last "
        f"{result['token_window']} tokens (a reader of the recent tokens alone)"
        + (
            f"; the model's planes also relabelled around the {result['relative']} (where is each cell from it)"
            if result.get("relative")
            else ""
        )
        + ". F1 of each plane's occupied cells and cell accuracy, over every test row and cell, with 95% intervals "
        "from a bootstrap over the test episodes."
        + "".join(f" Not read at `{pos}`: {why}." for pos, why in result.get("unread_positions", {}).items()),
        "",
        "### Best probe per plane (test F1 [95% interval]; where it reads)",
        "",
    ]
    best = result.get("best", {})
    sources = [s for s in SOURCES if any(s in best.get(p, {}) for p in planes)]
    lines += ["| plane | " + " | ".join(_source_name(result, s) for s in sources) + " | per-cell majority F1 |"]
    lines += ["| --- |" + " --- |" * (len(sources) + 1)]
    first = next(iter(positions))
    for plane in planes:
        cells = []
        for s in sources:
            b = best.get(plane, {}).get(s)
            cells.append(f"{_ci(b)} ({b['kind']}, {b['position']}, {b['layer']})" if b else "n/a")
        majority = result["sweep"][first]["model"]["linear"]["final"]["planes"][plane]["majority_f1"]
        lines.append(f"| {plane} | " + " | ".join(cells) + f" | {_f(majority)} |")
    lines += _ring_lines(result) + _curve_lines(result)
    for pos in positions:
        sweep = result["sweep"][pos]
        columns = [
            (p, s)
            for p in planes
            if p != "empty"
            for s in ("model", "relative", "untrained")
            if s in sweep and p in sweep[s]["linear"][result["layers"][0]]["planes"]
        ]
        lines += ["", f"### F1 by layer at `{pos}`, linear / MLP", ""]
        lines += ["| layer | " + " | ".join(f"{p}: {_source_name(result, s)}" for p, s in columns) + " |"]
        lines += ["| --- |" + " --- |" * len(columns)]
        for layer in result["layers"]:
            cells = [
                f"{_f(sweep[s]['linear'][layer]['planes'][p]['f1'], 3)} / {_f(sweep[s]['mlp'][layer]['planes'][p]['f1'], 3)}"
                for p, s in columns
            ]
            lines.append(f"| {layer} | " + " | ".join(cells) + " |")
        if "tokens" in sweep:
            cells = [
                f"{_f(sweep['tokens']['linear']['planes'][p]['f1'], 3)} / {_f(sweep['tokens']['mlp']['planes'][p]['f1'], 3)}"
                if s == "model"
                else ""
                for p, s in columns
            ]
            lines.append(f"| {_source_name(result, 'tokens')} | " + " | ".join(cells) + " |")
    m, u = result["model"], result["untrained"]
    classes, scalars = _names(m["linear"], "accuracy"), _names(m["linear"], "r2")
    lines += [
        "",
        f"### Every target at the final layer, `{first}`",
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
    return lines


def _ring_lines(result: dict[str, Any]) -> list[str]:
    """Each plane's F1 by Manhattan distance from the anchor, at the best relabelled probe of that plane."""
    rows = []
    for plane in result["planes"]:
        b = result.get("best", {}).get(plane, {}).get("relative")
        if b is None:
            continue
        rings = result["sweep"][b["position"]]["relative"][b["kind"]][b["layer"]]["planes"][plane].get("f1_by_ring")
        if rings:
            rows.append((plane, b, rings))
    if not rows:
        return []
    far = max(int(r) for _, _, rings in rows for r in rings)
    shown = list(range(1, min(far, 8) + 1))
    lines = ["", f"### F1 by distance from the {result['relative']} (relabelled; the best probe of each plane)", ""]
    lines += ["| plane (kind, position, layer) | " + " | ".join(f"d = {r}" for r in shown) + " |", "| --- |" + " --- |" * len(shown)]
    for plane, b, rings in rows:
        cells = [_f(rings.get(str(r), rings.get(r))) for r in shown]  # JSON keys are strings
        lines.append(f"| {plane} ({b['kind']}, {b['position']}, {b['layer']}) | " + " | ".join(cells) + " |")
    return lines


def _curve_lines(result: dict[str, Any]) -> list[str]:
    curve = result.get("learning_curve")
    if not curve:
        return []
    planes = [p for p in result["planes"] if p != "empty"]
    lines = [
        "",
        f"### Learning curve: the model's linear probe at `{curve['position']}`, {curve['layer']} (its best layer for the "
        f"{curve['chosen_by']}), fitted on part of the training episodes, scored on the same test rows",
        "",
        "| training episodes | training rows | " + " | ".join(f"{p} F1" for p in planes) + " |",
        "| --- | --- |" + " --- |" * len(planes),
    ]
    for point in curve["points"]:
        cells = [_ci({"f1": point["f1"][p], "f1_ci95": point["f1_ci95"][p]}) for p in planes]
        lines.append(f"| {point['train_episodes']} | {point['train_rows']} | " + " | ".join(cells) + " |")
    return lines


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """probes.png: each plane's best F1 by source; probes_by_layer.png: F1 by layer."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    planes, best = result["planes"], result.get("best", {})
    sources = [s for s in SOURCES if any(s in best.get(p, {}) for p in planes)]
    fig, ax = plt.subplots(figsize=(8, 3.2))
    x = np.arange(len(planes))
    width = 0.8 / max(1, len(sources))
    for j, s in enumerate(sources):
        ys = [best.get(p, {}).get(s, {}).get("f1", np.nan) for p in planes]
        cis = [best.get(p, {}).get(s, {}).get("f1_ci95") or [np.nan, np.nan] for p in planes]
        err = np.array([[y - c[0], c[1] - y] for y, c in zip(ys, cis)]).T
        ax.bar(x + (j - (len(sources) - 1) / 2) * width, ys, width=width, yerr=err, capsize=2, label=_source_name(result, s), color=f"C{j}")
    ax.set_xticks(x, [f"{p}\nF1" for p in planes], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"World-state probes, best layer and kind (test: {result['test_episodes']} episodes)")
    save_figure(fig, out / "probes.png")
    plt.close(fig)
    return ["probes.png", *_plot_layers(result, out, plt)]


def _plot_layers(result: dict[str, Any], out: Any, plt: Any) -> list[str]:
    shown = [p for p in result["planes"] if p != "empty"]
    positions = list(result["positions"])
    layers = result["layers"]
    fig, axes = plt.subplots(len(positions), len(shown), figsize=(3.4 * len(shown), 2.8 * len(positions)), squeeze=False)
    x = np.arange(len(layers))
    for r, pos in enumerate(positions):
        sweep = result["sweep"][pos]
        for c, plane in enumerate(shown):
            ax = axes[r][c]
            for j, s in enumerate(s for s in ("model", "relative", "untrained") if s in sweep):
                for kind, style in (("linear", "-"), ("mlp", "--")):
                    scores = [sweep[s][kind][layer]["planes"].get(plane) for layer in layers]
                    if any(v is None for v in scores):
                        continue
                    ys = np.array([v["f1"] for v in scores], dtype=float)
                    ax.plot(x, ys, style, color=f"C{j}", marker=".", label=f"{_source_name(result, s)}, {kind}")
                    low = [v["f1_ci95"][0] if v.get("f1_ci95") else np.nan for v in scores]
                    high = [v["f1_ci95"][1] if v.get("f1_ci95") else np.nan for v in scores]
                    ax.fill_between(x, low, high, color=f"C{j}", alpha=0.12)
            if "tokens" in sweep:
                for kind, style in (("linear", "-"), ("mlp", "--")):
                    ax.axhline(
                        sweep["tokens"][kind]["planes"][plane]["f1"],
                        color="C3",
                        ls=style,
                        lw=1,
                        label=f"{_source_name(result, 'tokens')}, {kind}",
                    )
            ax.set_ylim(0, 1.02)
            ax.set_xticks(x, [layer.replace("block", "b") for layer in layers], fontsize=7)
            ax.set_title(f"{plane} F1 at `{pos}`", fontsize=9)
            ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    save_figure(fig, out / "probes_by_layer.png")
    plt.close(fig)
    return ["probes_by_layer.png"]
