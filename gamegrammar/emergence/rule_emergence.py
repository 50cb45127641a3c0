"""What every game's tier 2 (rule emergence) shares: its section's assembly, the tally of scores by rule and context
bucket, teacher-forced scoring, number formatting, and the two plots.

A game's emergence module decides which rules it measures and in which contexts; the shape of its result
(`{"emergence": {"contexts", "rules": {rule: {"count", "by": {context: {label: {...}}}}}}, "counterfactuals": ...}`)
is common, so the bookkeeping and the rendering live here once (the markdown tables: `gamegrammar.emergence.markdown`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np
import torch

from gamegrammar.core.io import save_figure

if TYPE_CHECKING:
    from gamegrammar.core.tokenizer import GameTokenizer
    from gamegrammar.model.gpt import GameGPT

T = TypeVar("T")


def counted(items: Iterable[T], progress: Callable[[int], None] | None) -> Iterator[T]:
    """The items, with `progress(1)` heard once the loop body has finished with each (make it zip's first iterable)."""
    for item in items:
        yield item
        if progress is not None:
            progress(1)


def traced_ticks(elements: Iterable[Any], reached: int) -> Iterator[tuple[Any, int]]:
    """The ticks of a parsed episode (`elements`: its first keyframe, then its ticks) up to where its trace stops
    (`reached` states, tick 0's first), each with the ticks since the last keyframe before it: the state the model
    last saw in full, the context every game splits its rule events by."""
    last_keyframe = 0
    for tick in itertools.islice(elements, 1, None):
        if tick.number >= reached:
            break
        yield tick, tick.number - last_keyframe
        if tick.keyframe is not None:
            last_keyframe = tick.number


@dataclass
class Scores:
    """One cell of the tally: every event's P(mandated continuation) and argmax hit. A game that scores more of an
    event (food spawns, say) subclasses it with lists of its own and extends `summary`."""

    probs: list[float] = field(default_factory=list)
    hits: list[float] = field(default_factory=list)

    def add(self, prob: float, hit: float) -> None:
        self.probs.append(prob)
        self.hits.append(hit)

    def summary(self) -> dict[str, Any]:
        return {"count": len(self.probs), "mean_prob": mean(self.probs), "accuracy": mean(self.hits)}


S = TypeVar("S", bound=Scores)


class RuleTally(Generic[S]):
    """The scores of every rule, overall and in each bucket of each context, filled event by event.

    Every game splits its events the same way (`bucket_label` of each context value), so the layout of the
    result's `rules` and `contexts` is built here; the game only says what one cell holds (`new`).
    """

    def __init__(self, rules: Sequence[str], contexts: Mapping[str, Sequence[int]], new: Callable[[], S]) -> None:
        self.contexts = contexts
        self.total = {r: new() for r in rules}
        self.by = {r: {c: {label: new() for label in bucket_labels(edges)} for c, edges in contexts.items()} for r in rules}

    def cells(self, rule: str, context: Mapping[str, int]) -> list[S]:
        """Where one event of `rule` is counted: the rule's total, then its bucket in each context the event has."""
        return [self.total[rule], *(self.by[rule][c][bucket_label(v, self.contexts[c])] for c, v in context.items())]

    def section(self, episodes: int, keep: Callable[[str], bool] | None = None) -> dict[str, Any]:
        """The result: {"episodes", "rules": {rule: {summary..., "by": {context: {label: summary}}}}, "contexts"}.

        Empty buckets are left out; a rule `keep` refuses is left out altogether (a design the corpus does not use)."""
        rules = {}
        for r, total in self.total.items():
            if keep is not None and not keep(r):
                continue
            entry = total.summary()
            entry["by"] = {c: {label: s.summary() for label, s in buckets.items() if s.probs} for c, buckets in self.by[r].items()}
            rules[r] = entry
        return {"episodes": episodes, "rules": rules, "contexts": {c: bucket_labels(e) for c, e in self.contexts.items()}}


def teacher_forced(logp: torch.Tensor, target: torch.Tensor, positions: Sequence[int]) -> tuple[float, float]:
    """(P, hit) of the tokens at `positions` under teacher forcing: the product of their probabilities given the real
    history (`logp[i]` predicts token i + 1), and 1.0 when the argmax writes every one of them, else 0.0."""
    pos = torch.tensor(positions)
    rows = logp[pos - 1]
    prob = float(rows.gather(1, target[pos][:, None]).sum().exp())
    hit = float(bool((rows.argmax(1) == target[pos]).all()))
    return prob, hit


@dataclass
class RuleEvent:
    """One occurrence of a rule in an episode: the token positions it mandates, and the context its scores are split
    by. A game adds the facts of its own in a subclass (Snake: the body; Battlesnake: the snakes alive) and extends
    `context` with them."""

    rule: str
    positions: list[int]
    tick: int
    length: int  # the snake's length before the tick (a game event's: the longest live snake's)
    ticks_since_keyframe: int

    def context(self) -> dict[str, int]:
        return {
            "length": self.length,
            "ticks_since_keyframe": self.ticks_since_keyframe,
            "tick": self.tick,
            "token_position": self.positions[0],
        }


@dataclass
class Probe:
    """A counterfactual: an edited prefix whose continuation the rules fix (`mandated`: one token, or the tokens in
    order), with its unedited control, the real prefix at the same place, and what the rules write after it there
    (`control_mandated`, the token the real episode wrote next). `episode` indexes the episodes the probes were made
    from; `tick` is the tick the edit stands in."""

    kind: str
    tokens: list[str]
    mandated: list[str]
    control: list[str]
    control_mandated: str
    episode: int
    tick: int


P = TypeVar("P", bound=Probe)


def probe_section(
    model: GameGPT,
    probes: Sequence[P],
    episodes: int,
    score: Callable[[GameGPT, Sequence[P]], dict[str, Any]],
    example: Callable[[P], dict[str, Any]],
    *,
    baseline: GameGPT | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The counterfactual probes' section: the probes scored (`score`) on the model and on an untrained model of its
    shape (`baseline`, else a fresh one drawn from `seed`: the floor the model's numbers are read against), and one
    `example` per kind, the first probe of that kind."""
    from gamegrammar.model.hidden import random_like

    baseline = baseline if baseline is not None else random_like(model, seed)
    examples: dict[str, dict[str, Any]] = {}
    for p in probes:
        if p.kind not in examples:
            examples[p.kind] = example(p)
    return {"episodes": episodes, "model": score(model, probes), "untrained": score(baseline, probes), "examples": examples}


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
    from gamegrammar.model.hidden import random_like

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
