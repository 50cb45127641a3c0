"""Tier 3: who is playing? Telling the agents apart from the first few ticks of an episode.

A model that learned the game from a mix of agents can only predict the next input well by
working out, as the episode goes on, which agent is playing; a model that did not learn has
nothing to work it out with, and hand-made statistics of an episode (its length and score above
all) separate agents by how long they live, which a short window does not show. So tier 3 reads
each held-out episode's first N ticks only, for several N, and asks three readers which agent
played:

- trained: the model's final hidden state where tick N+1 starts (its TICK token, or the
  episode's last token when it ended sooner), the state from which it predicts the next input;
- untrained: the same state of a randomly initialised model of the same shape;
- statistics: the game's hand-made `episode_statistics` of the same tokens (for Snake: turn,
  wall and approach rates, food distance, death, ticks, score).

The mean of each model's states over the window is read as well, as a second view. Each reader
is scored twice: supervised, the out-of-fold accuracy of a logistic regression (stratified
k-fold, the same folds for every reader); unsupervised, KMeans (k = number of agents) NMI and
ARI. Intervals are 95% bootstraps over episodes, and the differences between readers are paired
(the same resampled episodes). Two tasks: all the agents, and the pair the statistics separate
worst over the longest window (or one named): agents that play alike by every statistic, such as
greedy and careless (greedy that slips one tick in ten).

The windows and readers are fixed before any is looked at (docs/evaluation.md): no layer or
window is chosen by how the model fares.

Uses scikit-learn (clustering, metrics, logistic regression).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from gamegrammar.core.errors import GameGrammarError
from gamegrammar.core.io import save_figure
from gamegrammar.games import game_of

if TYPE_CHECKING:
    from gamegrammar.model.gpt import GameGPT

WINDOWS = (1, 2, 5, 10, 20, 40)  # ticks read from the start of each episode
READERS = ("trained", "untrained", "statistics")  # the three the tier compares; "_mean" views are the second opinion
FOLDS, BOOTSTRAP = 5, 1000


def parse_windows(text: str) -> tuple[int, ...]:
    """'1,5,20' -> (1, 5, 20): tick counts, each at least 1, sorted; anything else is a one-line error."""
    try:
        windows = sorted({int(t) for t in text.split(",") if t.strip()})
    except ValueError:
        windows = []
    if not windows or windows[0] < 1:
        raise GameGrammarError(f"--tier3-windows takes a comma-separated list of tick counts >= 1, got {text!r}")
    return tuple(windows)


def window_ends(tokens: Sequence[str], tick_token: str, windows: Sequence[int]) -> list[int]:
    """For each N, the position where tick N+1 starts (its TICK token), or the last position when the episode ends first.

    The state there has read the first N ticks and that the game goes on; the statistics read tokens[: end + 1] too.
    """
    ticks = [i for i, t in enumerate(tokens) if t == tick_token]
    return [ticks[n] if n < len(ticks) else len(tokens) - 1 for n in windows]


def window_embeddings(
    model: GameGPT, episodes: Sequence[Sequence[int]], ends: Sequence[Sequence[int]], layer: str = "final", batch_size: int = 16
) -> dict[str, np.ndarray]:
    """{"last": [W, N, C] the state at each window's end, "mean": [W, N, C] the mean state up to it} (W windows, N episodes).

    Each episode is read once, as far as its longest window: a causal model's state at a position sees nothing after it.
    """
    from gamegrammar.model.hidden import iter_outputs  # torch: not at import, the command line reads WINDOWS from here

    clipped = [list(ids)[: max(e) + 1] for ids, e in zip(episodes, ends)]
    last, mean = [], []
    for out, e in zip(iter_outputs(model, clipped, [layer], batch_size), ends):
        h = out.hidden[layer].numpy().astype(np.float64)
        total = np.cumsum(h, 0)
        at = np.asarray(e)
        last.append(h[at])
        mean.append(total[at] / (at[:, None] + 1))
    return {"last": np.stack(last, 1), "mean": np.stack(mean, 1)}


def _standardize(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(0)) / (x.std(0) + 1e-8)


def clusters(x: np.ndarray, k: int, seed: int = 0, max_dims: int = 10) -> np.ndarray:
    """KMeans (k clusters) on the standardised features reduced to at most max_dims principal components."""
    from sklearn.cluster import KMeans
    from sklearn.decomposition import PCA

    z = _standardize(x)
    dims = min(max_dims, z.shape[1], max(1, len(z) - 1))
    if dims < z.shape[1]:
        z = PCA(n_components=dims, random_state=seed).fit_transform(z)
    return KMeans(n_clusters=k, n_init=10, random_state=seed).fit_predict(z)


def cluster_scores(x: np.ndarray, labels: np.ndarray, k: int | None = None, seed: int = 0, max_dims: int = 10) -> dict[str, Any]:
    """NMI and ARI of KMeans (k clusters, default the number of labels) against the labels."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    k = k or len(np.unique(labels))
    found = clusters(x, k, seed, max_dims)
    return {
        "k": k,
        "n": len(labels),
        "kmeans": {"nmi": float(normalized_mutual_info_score(labels, found)), "ari": float(adjusted_rand_score(labels, found))},
    }


def _folds(labels: np.ndarray, folds: int) -> int:
    counts = np.bincount(labels)
    if np.count_nonzero(counts) < 2:
        return 0
    return min(folds, int(counts[counts > 0].min()))


def out_of_fold(x: np.ndarray, labels: np.ndarray, folds: int = FOLDS, seed: int = 0) -> np.ndarray | None:
    """Each episode's agent as predicted by a logistic regression fitted on the other folds (stratified k-fold);
    None when there is nothing to tell apart (one agent) or an agent has too few episodes for two folds."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    folds = _folds(labels, folds)
    if folds < 2:
        return None
    clf = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, C=1.0))
    return cross_val_predict(clf, x, labels, cv=StratifiedKFold(folds, shuffle=True, random_state=seed))


def agent_probe(x: np.ndarray, labels: np.ndarray, folds: int = FOLDS, seed: int = 0) -> dict[str, Any]:
    """Out-of-fold accuracy of a logistic regression from features to agent (one row per episode). Nothing to
    tell apart (one agent among the episodes) or too few episodes of an agent for two folds: no score (NaN)."""
    counts = np.bincount(labels)
    majority = float(counts.max() / counts.sum())
    predicted = out_of_fold(x, labels, folds, seed)
    if predicted is None:
        return {"folds": 0, "accuracy": float("nan"), "majority": majority}
    return {"folds": _folds(labels, folds), "accuracy": float((predicted == labels).mean()), "majority": majority}


def nmi_ari(labels: np.ndarray, found: np.ndarray) -> tuple[float, float]:
    """NMI (arithmetic normalisation, as scikit-learn's default) and ARI of two labellings."""
    nmi, ari = resampled_nmi_ari(labels, found, np.arange(len(labels))[None])
    return float(nmi[0]), float(ari[0])


def resampled_nmi_ari(labels: np.ndarray, found: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NMI and ARI of labels[d] against found[d] for each row d of draws, from their contingency tables, all at once:
    the bootstrap asks this a thousand times per reader, where scikit-learn's checks would cost a millisecond each.
    A class absent from a resample is absent from its table, as scikit-learn's relabelling would have it."""
    a = np.unique(labels, return_inverse=True)[1].ravel()
    b = np.unique(found, return_inverse=True)[1].ravel()
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    resamples, n = draws.shape
    cells = np.arange(resamples)[:, None] * (ka * kb) + a[draws] * kb + b[draws]
    table = np.bincount(cells.ravel(), minlength=resamples * ka * kb).reshape(resamples, ka, kb).astype(np.float64)
    rows, cols = table.sum(2), table.sum(1)

    def plogp(counts: np.ndarray) -> np.ndarray:
        p = counts / n
        return np.where(counts > 0, p * np.log(np.where(counts > 0, p, 1.0)), 0.0)

    outer = rows[:, :, None] * cols[:, None, :]
    ratio = np.where(table > 0, table * n / np.where(outer > 0, outer, 1.0), 1.0)
    mi = (table / n * np.log(ratio)).sum((1, 2))
    h = -(plogp(rows).sum(1) + plogp(cols).sum(1)) / 2
    nmi = np.maximum(mi, 0.0) / np.maximum(h, np.finfo(np.float64).eps)
    present_a, present_b = (rows > 0).sum(1), (cols > 0).sum(1)
    one_side = (present_a == 1) | (present_b == 1)  # one side says nothing: scikit-learn's conventions (1 when both are one class)
    nmi = np.where(one_side, (present_a == present_b).astype(np.float64), nmi)
    pairs = (table * (table - 1)).sum((1, 2)) / 2
    pa, pb, total = (rows * (rows - 1)).sum(1) / 2, (cols * (cols - 1)).sum(1) / 2, n * (n - 1) / 2
    expected = pa * pb / total if total else np.zeros(resamples)
    top = (pa + pb) / 2
    spread = top - expected
    ari = np.where(spread == 0, 1.0, (pairs - expected) / np.where(spread == 0, 1.0, spread))
    return nmi, ari


def compare_readers(features: dict[str, np.ndarray], labels: np.ndarray, seed: int = 0, resamples: int = BOOTSTRAP) -> dict[str, Any]:
    """Each reader's out-of-fold accuracy and KMeans NMI / ARI with bootstrap intervals, and the trained reader's
    paired differences from the untrained one and the statistics (the same resampled episodes for every reader)."""
    k = len(np.unique(labels))
    counts = np.bincount(labels)
    n = len(labels)
    draws = np.random.default_rng(seed).integers(0, n, (resamples, n))  # one set of resamples: every interval paired

    def interval(values: Sequence[float]) -> list[float]:
        return [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]

    out: dict[str, Any] = {"episodes": n, "majority": float(counts.max() / counts.sum()), "readers": {}}
    correct: dict[str, np.ndarray] = {}
    for name, x in features.items():
        entry: dict[str, Any] = {}
        predicted = out_of_fold(x, labels, seed=seed)
        if predicted is not None:
            hit = (predicted == labels).astype(np.float64)
            correct[name] = hit
            entry["accuracy"] = float(hit.mean())
            entry["accuracy_ci"] = interval(hit[draws].mean(1))
        found = clusters(x, k, seed) if k > 1 else np.zeros(n, dtype=int)
        entry["nmi"], entry["ari"] = nmi_ari(labels, found)
        nmis, aris = resampled_nmi_ari(labels, found, draws)
        entry["nmi_ci"], entry["ari_ci"] = interval(nmis), interval(aris)
        out["readers"][name] = entry
    out["differences"] = {}
    if "trained" in correct:
        for other in ("untrained", "statistics"):
            if other in correct:
                d = correct["trained"] - correct[other]
                out["differences"][f"trained - {other}"] = {"accuracy": float(d.mean()), "ci": interval(d[draws].mean(1))}
    return out


def hardest_pair(stats: np.ndarray, labels: np.ndarray, names: Sequence[str], seed: int = 0) -> dict[str, Any] | None:
    """The two agents the statistics tell apart worst (lowest out-of-fold accuracy over the rows given), with every
    pair's accuracy; None when fewer than two agents have episodes enough for two folds."""
    scores = {}
    for a, b in combinations(range(len(names)), 2):
        sel = (labels == a) | (labels == b)
        probe = agent_probe(stats[sel], (labels[sel] == b).astype(int), seed=seed)
        if probe["folds"]:
            scores[f"{names[a]} vs {names[b]}"] = (probe["accuracy"], (names[a], names[b]))
    if not scores:
        return None
    worst = min(scores, key=lambda key: scores[key][0])
    return {"agents": list(scores[worst][1]), "statistics_accuracy": {key: round(v[0], 4) for key, v in scores.items()}}


def policy_likelihoods(
    game: Any, tokens: Sequence[Sequence[str]], ends: Sequence[Sequence[int]], names: Sequence[str], config: Any
) -> np.ndarray | None:
    """[W, N, A] log P(the window's inputs | agent) under each agent's own code (the game's `agent_log_likelihoods`):
    the ceiling no reader can pass on average; None for a game that cannot say."""
    try:
        return np.stack([np.stack([game.agent_log_likelihoods(t[: e + 1], names, config) for e in end]) for t, end in zip(tokens, ends)], 1)
    except GameGrammarError:
        return None


def task_rows(
    labels: np.ndarray, names: Sequence[str], stats: np.ndarray, pair: Sequence[str] | None, why: str, seed: int = 0
) -> list[tuple[str, np.ndarray, dict[str, Any]]]:
    """(task, the episodes it reads, what to say of it): all agents, then the named pair or else the statistics' worst."""
    tasks: list[tuple[str, np.ndarray, dict[str, Any]]] = [("all agents", np.ones(len(labels), dtype=bool), {"agents": list(names)})]
    if len(names) <= 2:
        return tasks  # the pair is all of them
    found = hardest_pair(stats, labels, names, seed) if pair is None else {"agents": list(pair)}
    if found is not None:
        sel = np.isin(labels, [names.index(a) for a in found["agents"]])
        tasks.append((" vs ".join(found["agents"]), sel, {**found, "chosen": why if pair is None else "named"}))
    return tasks


def archetypes(
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    agents: Sequence[str],
    config: Any,
    *,
    baseline: GameGPT | None = None,
    windows: Sequence[int] = WINDOWS,
    pair: Sequence[str] | None = None,
    seed: int = 0,
    resamples: int = BOOTSTRAP,
) -> dict[str, Any]:
    """Tier 3 on the episodes: for each task (all agents; the hardest pair) and window, the three readers compared.

    `pair`: the two agents of the second task; by default the pair the statistics separate worst over the longest
    window. The arrays (features at each window, labels) come back under "arrays" for notebooks; `analyze` keeps
    them out of analysis.json.
    """
    from gamegrammar.model.hidden import random_like

    game = game_of(config)
    windows = tuple(sorted(set(windows)))
    baseline = baseline if baseline is not None else random_like(model, seed)
    names = sorted(set(agents))
    labels = np.array([names.index(a) for a in agents])
    if pair is not None and (len(set(pair)) != 2 or set(pair) - set(names)):  # before minutes of reading, not after
        raise GameGrammarError(f"--tier3-pair takes two different agents among {names}, got {list(pair)}")
    ends = [window_ends(t, game.tick_token, windows) for t in tokens]
    ceiling = policy_likelihoods(game, tokens, ends, names, config)  # before minutes of reading: a game without fails fast
    trained = window_embeddings(model, episodes, ends)
    untrained = window_embeddings(baseline, episodes, ends)
    stats = np.stack([np.stack([game.episode_statistics(t[: e + 1], config) for e in end]) for t, end in zip(tokens, ends)], 1)
    features = {
        "trained": trained["last"],
        "untrained": untrained["last"],
        "statistics": stats,
        "trained_mean": trained["mean"],
        "untrained_mean": untrained["mean"],
    }
    if ceiling is not None:
        features["policies"] = ceiling
    result: dict[str, Any] = {
        "episodes": len(labels),
        "agents": {n: int((labels == i).sum()) for i, n in enumerate(names)},
        "windows": list(windows),
        "protocol": {
            "readout": f"logistic regression (C=1, standardised), stratified {FOLDS}-fold out-of-fold accuracy",
            "clustering": "KMeans, k = the task's agents, on at most 10 principal components of the standardised features",
            "intervals": f"95% percentile bootstrap over episodes ({resamples} resamples), paired for differences",
            "model_state": "final layer (the output head's input) at the TICK that starts tick N+1, or the last token",
            "statistics": list(game.statistic_names),
            "policies": "the ceiling: log-likelihood of the window's inputs under each agent's own code, same readout"
            if ceiling is not None
            else "not checked (the game cannot say how likely an agent's inputs are)",
        },
        "tasks": {},
    }
    tasks = task_rows(labels, names, stats[-1], pair, f"the statistics' worst pair over {windows[-1]} ticks", seed)
    for task, sel, about in tasks:
        task_labels = np.unique(labels[sel], return_inverse=True)[1]
        entry: dict[str, Any] = {**about, "episodes": int(sel.sum()), "windows": {}}
        for w, n in enumerate(windows):
            entry["windows"][str(n)] = compare_readers({k: v[w][sel] for k, v in features.items()}, task_labels, seed, resamples)
        result["tasks"][task] = entry
    result["statistics_by_agent"] = {
        n: dict(zip(game.statistic_names, stats[-1][labels == i].mean(0).round(3).tolist())) for i, n in enumerate(names)
    }
    result["arrays"] = {"labels": labels, "names": names, "windows": np.array(windows), **features}
    return result


# ---------------------------------------------------------------- report pieces


def _f(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _with_ci(entry: dict[str, Any], key: str) -> str:
    if key not in entry:
        return "n/a"
    lo, hi = entry[f"{key}_ci"]
    return f"{_f(entry[key])} [{_f(lo)}, {_f(hi)}]"


def _difference(d: dict[str, Any] | None) -> str:
    if d is None:
        return "n/a"
    return f"{d['accuracy']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]"


def markdown(result: dict[str, Any]) -> list[str]:
    agents = ", ".join(f"{n} {c}" for n, c in result["agents"].items())
    protocol = result["protocol"]
    lines = [
        f"## Tier 3: who is playing, from the first N ticks ({result['episodes']} held-out episodes: {agents})",
        "",
        "Readers: the trained model's state where tick N+1 starts (its final layer), an untrained model's, and the "
        f"hand-made statistics of the same ticks ({', '.join(protocol['statistics'])}). Accuracy: {protocol['readout']}; "
        f"NMI / ARI: {protocol['clustering']}; intervals: {protocol['intervals']}.",
    ]
    for task, entry in result["tasks"].items():
        lines += ["", f"### {task} ({entry['episodes']} episodes)", ""]
        if entry.get("chosen"):
            lines += [f"Chosen: {entry['chosen']}.", ""]
        lines += [
            "| ticks | majority | trained accuracy | untrained | statistics | trained − untrained | trained − statistics "
            "| ceiling: agents' code |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for n, w in entry["windows"].items():
            r, d = w["readers"], w["differences"]
            lines.append(
                f"| {n} | {_f(w['majority'])} | {_with_ci(r['trained'], 'accuracy')} | {_with_ci(r['untrained'], 'accuracy')} "
                f"| {_with_ci(r['statistics'], 'accuracy')} | {_difference(d.get('trained - untrained'))} "
                f"| {_difference(d.get('trained - statistics'))} | {_with_ci(r.get('policies', {}), 'accuracy')} |"
            )
        shown = [k for k in (*READERS, "policies") if k in next(iter(entry["windows"].values()))["readers"]]
        names = {"trained": "trained", "untrained": "untrained", "statistics": "statistics", "policies": "ceiling"}
        head = [f"{m}: {names[k]}" if i == 0 else names[k] for m in ("KMeans NMI", "ARI") for i, k in enumerate(shown)]
        lines += ["", "| ticks | " + " | ".join(head) + " |", "| --- |" + " --- |" * len(head)]
        for n, w in entry["windows"].items():
            r = w["readers"]
            lines.append(f"| {n} | " + " | ".join(_with_ci(r[k], m) for m in ("nmi", "ari") for k in shown) + " |")
        lines += ["", "Mean-pooled states over the window (the second view): accuracy, trained / untrained.", ""]
        lines += ["| ticks | trained (mean) | untrained (mean) |", "| --- | --- | --- |"]
        for n, w in entry["windows"].items():
            r = w["readers"]
            lines.append(f"| {n} | {_with_ci(r['trained_mean'], 'accuracy')} | {_with_ci(r['untrained_mean'], 'accuracy')} |")
        if "statistics_accuracy" in entry:
            lines += [
                "",
                "The statistics' accuracy for each pair (longest window): "
                + ", ".join(f"{k} {v:.3f}" for k, v in entry["statistics_accuracy"].items()),
            ]
    by_agent = result["statistics_by_agent"]
    stats = list(next(iter(by_agent.values()), {}))  # the game's statistic names, in its order
    lines += ["", f"Statistics by agent over the first {result['windows'][-1]} ticks (means):", ""]
    lines += ["| agent | " + " | ".join(stats) + " |", "| --- |" + " --- |" * len(stats)]
    for name, s in by_agent.items():
        lines.append(f"| {name} | " + " | ".join(_f(s[k], 2) for k in stats) + " |")
    return lines


def plot(result: dict[str, Any], out: Any) -> list[str]:
    """archetypes.png: for each task, accuracy and KMeans NMI against the window length, one line per reader with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = list(result["tasks"].items())
    fig, axes = plt.subplots(len(tasks), 2, figsize=(10, 3.6 * len(tasks)), squeeze=False)
    styles = {
        "trained": ("C0", "trained model"),
        "untrained": ("C1", "untrained model"),
        "statistics": ("C2", "hand-made statistics"),
        "policies": ("k", "ceiling: the agents' own code"),
    }
    for row, (task, entry) in zip(axes, tasks):
        ticks = [int(n) for n in entry["windows"]]
        for ax, metric, label in ((row[0], "accuracy", "linear readout accuracy (5-fold)"), (row[1], "nmi", "KMeans NMI")):
            for reader, (color, name) in styles.items():
                cells = [w["readers"].get(reader, {}) for w in entry["windows"].values()]
                if not all(metric in c for c in cells):
                    continue
                ax.plot(ticks, [c[metric] for c in cells], "--" if reader == "policies" else "o-", color=color, label=name)
                ax.fill_between(ticks, [c[f"{metric}_ci"][0] for c in cells], [c[f"{metric}_ci"][1] for c in cells], color=color, alpha=0.2)
            if metric == "accuracy":
                ax.plot(ticks, [w["majority"] for w in entry["windows"].values()], ":", color="grey", label="always the commonest")
            ax.set_xscale("log")
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.set_xlabel("ticks read from the start")
            ax.set_ylabel(label)
            ax.set_title(f"{task} ({entry['episodes']} episodes)", fontsize=10)
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out / "archetypes.png")
    plt.close(fig)
    return ["archetypes.png"]
