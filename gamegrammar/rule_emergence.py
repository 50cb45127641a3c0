"""What every game's tier 2 (rule emergence) shares: its section's assembly, context buckets, number formatting, and the two plots.

A game's emergence module decides which rules it measures and in which contexts; the shape of its result
(`{"emergence": {"contexts", "rules": {rule: {"count", "by": {context: {label: {...}}}}}}, "counterfactuals": ...}`)
is common, so the rendering lives here once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from gamegrammar.io import save_figure

if TYPE_CHECKING:
    from gamegrammar.model import GameGPT
    from gamegrammar.tokenizer import GameTokenizer

T = TypeVar("T")


def counted(items: Iterable[T], progress: Callable[[int], None] | None) -> Iterator[T]:
    """The items, with `progress(1)` heard once the loop body has finished with each (make it zip's first iterable)."""
    for item in items:
        yield item
        if progress is not None:
            progress(1)


def tier2_section(
    rule_emergence: Callable[..., dict[str, Any]],
    counterfactuals: Callable[..., dict[str, Any]],
    untrained_keys: Sequence[str],
    model: GameGPT,
    episodes: Sequence[Sequence[int]],
    tokens: Sequence[Sequence[str]],
    tokenizer: GameTokenizer,
    config: Any,
    *,
    seed: int = 0,
    baseline: GameGPT | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """A game's whole tier-2 section from its two measures: rule emergence for the model and for an untrained
    model of its shape (whose `untrained_keys` totals sit beside the model's, the floor to read them against),
    and the counterfactual probes.

    `progress` hears 1 for every episode either model has read (2 x len(episodes) in all): on a CPU a large
    model's tier 2 takes a quarter of an hour.
    """
    from gamegrammar.hidden import random_like

    baseline = baseline if baseline is not None else random_like(model, seed)
    emergence = rule_emergence(model, episodes, tokens, tokenizer, config, progress=progress)
    untrained = rule_emergence(baseline, episodes, tokens, tokenizer, config, progress=progress)
    for rule, entry in emergence["rules"].items():
        u = untrained["rules"][rule]
        entry["untrained"] = {k: u[k] for k in untrained_keys if k in u}
    return {"emergence": emergence, "counterfactuals": counterfactuals(model, tokens, tokenizer, config, baseline=baseline, seed=seed)}


def bucket_label(value: int, edges: Sequence[int]) -> str:
    """'2-3' style label of the bucket holding value ('16+' for the last, '<1' below the first)."""
    if value < edges[0]:
        return f"<{edges[0]}"
    for lo, hi in itertools.pairwise(edges):
        if value < hi:
            return str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}"
    return f"{edges[-1]}+"


def bucket_labels(edges: Sequence[int]) -> list[str]:
    return [str(lo) if hi - lo == 1 else f"{lo}-{hi - 1}" for lo, hi in itertools.pairwise(edges)] + [f"{edges[-1]}+"]


def mean(xs: Sequence[float]) -> float:
    return float(np.mean(xs)) if len(xs) else float("nan")


def fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def same_split(em: dict[str, Any], a: str, b: str) -> bool:
    """Do contexts a and b split the events identically (so one of them need not be shown)?"""
    return em["contexts"][a] == em["contexts"][b] and all(e["by"][a] == e["by"][b] for e in em["rules"].values())


def plot(result: dict[str, Any], out: Any, probe_kinds: dict[str, str]) -> list[str]:
    """emergence.png (P by context per rule) and counterfactuals.png; returns the file names written.

    `probe_kinds` names each counterfactual probe kind and the token it mandates."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    em = result["emergence"]
    contexts = [c for c in em["contexts"] if not (c == "ticks_since_keyframe" and same_split(em, c, "tick"))]
    fig, axes = plt.subplots(1, len(contexts), figsize=(4.2 * len(contexts), 3.4), sharey=True)
    for ax, context in zip(np.atleast_1d(axes), contexts):
        labels = em["contexts"][context]
        for i, (rule, e) in enumerate(em["rules"].items()):
            if not e["count"] or not e["by"].get(context):
                continue
            ys = [e["by"][context].get(label, {}).get("mean_prob", np.nan) for label in labels]
            ax.plot(range(len(labels)), ys, marker="o", label=rule, color=f"C{i % 10}", linestyle="-" if i < 10 else "--")
        ax.set_xticks(range(len(labels)), labels, rotation=45, fontsize=7)
        ax.set_title(context.replace("_", " "))
        ax.set_ylim(-0.02, 1.02)
    np.atleast_1d(axes)[0].set_ylabel("P(rule-mandated continuation)")
    np.atleast_1d(axes)[-1].legend(fontsize=6)
    save_figure(fig, out / "emergence.png")
    plt.close(fig)

    cf = result["counterfactuals"]
    kinds = [k for k in probe_kinds if cf["model"][k]["count"]]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    x = np.arange(len(kinds))
    for j, (label, src, key) in enumerate(
        (("control", "model", "control_mean_prob"), ("edited", "model", "mean_prob"), ("untrained, edited", "untrained", "mean_prob"))
    ):
        ax.bar(x + (j - 1) * 0.27, [cf[src][k][key] for k in kinds], width=0.27, label=label)
    ax.set_xticks(x, [f"{k}\n{probe_kinds[k]} (n={cf['model'][k]['count']})" for k in kinds], fontsize=7)
    ax.set_ylabel("P(mandated token)")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.set_title("Counterfactual probes")
    save_figure(fig, out / "counterfactuals.png")
    plt.close(fig)
    return ["emergence.png", "counterfactuals.png"]
