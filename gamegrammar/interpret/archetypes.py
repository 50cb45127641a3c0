"""Tier 3: play-style discovery. Does the model's view of an episode separate the agents that played it?

Each held-out episode is embedded by the model (the final hidden states mean-pooled
over the episode, and the state at its last token, EOS), then clustered without
labels (KMeans with k = number of agents; a diagonal GMM as a second opinion).
NMI and ARI against the agent that actually played say how much of the play style
the embedding carries. They are read against two baselines: the same clustering on
hand-made statistics of each episode (the game's `episode_statistics`, named by its
`statistic_names`: turn rate, episode length, score and the like), and on the embeddings
of an untrained model of the same shape. A cross-validated logistic regression from the embedding to the agent gives the
supervised ceiling of "linearly present".

Uses scikit-learn (clustering, metrics, logistic regression).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from gamegrammar.core.io import save_figure
from gamegrammar.games import game_of
from gamegrammar.model.gpt import GameGPT
from gamegrammar.model.hidden import iter_outputs, random_like


def episode_embeddings(
    model: GameGPT, episodes: Sequence[Sequence[int]], layer: str = "final", batch_size: int = 16
) -> dict[str, np.ndarray]:
    """{"mean": [N, C] mean over the episode's positions, "eos": [N, C] the state at its last token}."""
    mean, last = [], []
    for out in iter_outputs(model, episodes, [layer], batch_size):
        h = out.hidden[layer]
        mean.append(h.mean(0).numpy())
        last.append(h[-1].numpy())
    return {"mean": np.stack(mean), "eos": np.stack(last)}


def _standardize(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(0)) / (x.std(0) + 1e-8)


def cluster_scores(x: np.ndarray, labels: np.ndarray, k: int | None = None, seed: int = 0, max_dims: int = 10) -> dict[str, Any]:
    """NMI and ARI of KMeans and a diagonal GMM (k clusters, default the number of labels) against the labels.

    Features are standardised and reduced to at most max_dims principal components first, so the
    clustering sees the main directions of variation rather than many noisy ones.
    """
    from sklearn.cluster import KMeans
    from sklearn.decomposition import PCA
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
    from sklearn.mixture import GaussianMixture

    k = k or len(np.unique(labels))
    z = _standardize(x)
    dims = min(max_dims, z.shape[1], max(1, len(z) - 1))
    if dims < z.shape[1]:
        z = PCA(n_components=dims, random_state=seed).fit_transform(z)
    out: dict[str, Any] = {"k": k, "n": len(labels), "dims": dims}
    km = KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(z)
    out["kmeans"] = {"nmi": float(normalized_mutual_info_score(labels, km)), "ari": float(adjusted_rand_score(labels, km))}
    gm = GaussianMixture(n_components=k, covariance_type="diag", random_state=seed, n_init=3, reg_covar=1e-4).fit(z).predict(z)
    out["gmm"] = {"nmi": float(normalized_mutual_info_score(labels, gm)), "ari": float(adjusted_rand_score(labels, gm))}
    return out


def agent_probe(x: np.ndarray, labels: np.ndarray, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    """Stratified k-fold accuracy of a logistic regression from features to agent (one row per episode). Nothing to
    tell apart (one agent among the episodes) or too few episodes of an agent for two folds: no score (NaN)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    counts = np.bincount(labels)
    folds = min(folds, int(counts[counts > 0].min()))
    majority = float(counts.max() / counts.sum())
    if folds < 2 or np.count_nonzero(counts) < 2:
        return {"folds": 0, "accuracy": float("nan"), "std": float("nan"), "majority": majority}
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    scores = cross_val_score(clf, x, labels, cv=StratifiedKFold(folds, shuffle=True, random_state=seed))
    return {"folds": folds, "accuracy": float(scores.mean()), "std": float(scores.std()), "majority": majority}


def archetypes(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    agents: Sequence[str],
    config: Any,
    *,
    baseline: GameGPT | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Clustering and probe scores of model embeddings vs episode statistics vs an untrained model.

    The arrays (embeddings, statistics, labels) come back under "arrays" for plotting; they are
    not JSON and `analyze` drops them from analysis.json.
    """
    game = game_of(config)
    baseline = baseline if baseline is not None else random_like(model, seed)
    names = sorted(set(agents))
    labels = np.array([names.index(a) for a in agents])
    features = {f"model_{k}": v for k, v in episode_embeddings(model, episodes).items()}
    features |= {f"untrained_{k}": v for k, v in episode_embeddings(baseline, episodes).items()}
    features["statistics"] = np.stack([game.episode_statistics(t, config) for t in tokens])
    result: dict[str, Any] = {
        "episodes": len(labels),
        "agents": {n: int((labels == i).sum()) for i, n in enumerate(names)},
        "features": {},
    }
    for key, x in features.items():
        result["features"][key] = {**cluster_scores(x, labels, seed=seed), "probe": agent_probe(x, labels, seed=seed)}
    stats = features["statistics"]
    result["statistics_by_agent"] = {
        n: dict(zip(game.statistic_names, stats[labels == i].mean(0).round(3).tolist())) for i, n in enumerate(names)
    }
    result["arrays"] = {"labels": labels, "names": names, **features}
    return result


# ---------------------------------------------------------------- report pieces


def _f(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def markdown(result: dict[str, Any]) -> list[str]:
    agents = ", ".join(f"{n} {c}" for n, c in result["agents"].items())
    lines = [
        f"## Tier 3: play-style archetypes ({result['episodes']} held-out episodes: {agents})",
        "",
        "Unsupervised clustering (k = number of agents) scored against the agent that played; "
        "probe = 5-fold logistic regression accuracy (one row per episode).",
        "",
        "| features | KMeans NMI | KMeans ARI | GMM NMI | GMM ARI | probe accuracy | majority |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, e in result["features"].items():
        p = e["probe"]
        lines.append(
            f"| {key} | {_f(e['kmeans']['nmi'])} | {_f(e['kmeans']['ari'])} | {_f(e['gmm']['nmi'])} | {_f(e['gmm']['ari'])} "
            f"| {_f(p['accuracy'])} ± {_f(p['std'])} | {_f(p['majority'])} |"
        )
    by_agent = result["statistics_by_agent"]
    stats = list(next(iter(by_agent.values()), {}))  # the game's statistic names, in its order
    lines += ["", "Episode statistics by agent (means):", "", "| agent | " + " | ".join(stats) + " |"]
    lines.append("| --- |" + " --- |" * len(stats))
    for name, s in by_agent.items():
        lines.append(f"| {name} | " + " | ".join(_f(s[k], 2) for k in stats) + " |")
    return lines


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """archetypes.png: 2-D PCA of the model's mean embedding, the untrained model's and the statistics, coloured by agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.decomposition import PCA

    arrays = result["arrays"]
    labels, names = arrays["labels"], arrays["names"]
    panels = [("model_mean", "model (mean-pooled)"), ("untrained_mean", "untrained model"), ("statistics", "episode statistics")]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8))
    for ax, (key, title) in zip(axes, panels):
        x = _standardize(arrays[key])
        xy = PCA(n_components=2, random_state=0).fit_transform(x) if x.shape[1] > 2 else x[:, :2]
        for i, name in enumerate(names):
            sel = labels == i
            ax.scatter(xy[sel, 0], xy[sel, 1], s=10, alpha=0.7, label=f"{name} ({int(sel.sum())})", color=f"C{i}")
        e = result["features"][key]["kmeans"]
        ax.set_title(f"{title}\nKMeans NMI {e['nmi']:.2f}, ARI {e['ari']:.2f}", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    axes[0].legend(fontsize=7)
    save_figure(fig, out / "archetypes.png")
    plt.close(fig)
    return ["archetypes.png"]
