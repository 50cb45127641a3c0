"""Fidelity to the corpus: validity alone can be bought by playing short, safe games.

Two measures:
- distributions of sampled episodes (length in ticks, score, end reason) against the
  corpus's, as total-variation distances on fixed bins and KS statistics;
- a teacher-forced check: on held-out corpus episodes, the model's argmax and probability
  of every *rule-determined* token (everything but the agent's inputs, the random food
  cells and the random first keyframe), per category.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from gamegrammar.games.snake.grammar import END_EVENTS, GrammarError, Keyframe, Tick, parse
from gamegrammar.model import GameGPT

TICK_BIN = 20  # episode length bins (ticks) for the TV distance
SCORE_BINS = [0, 1, 2, 3, 5, 10, 15, 20, 30, 40, 60, 10**9]  # bin edges: [0], [1], [2], [3,4], [5,9], ...
END_LABELS = [*END_EVENTS, "none"]  # "none": the sequence never wrote a valid end


@dataclass
class EpisodeSummary:
    ticks: int
    score: int
    end: str  # one of END_LABELS


def summarize_episode(tokens: Sequence[str]) -> EpisodeSummary:
    """Ticks, last score and end reason of a token sequence, read as far as the grammar allows."""
    ticks, score, end = 0, 0, "none"
    try:
        for item in parse(tokens):
            if isinstance(item, Keyframe):
                score = item.score
                continue
            ticks = item.number
            if item.score is not None:
                score = item.score
            if item.end_event is not None:
                end = item.end_event
    except GrammarError:
        pass
    return EpisodeSummary(ticks, score, end)


def _hist(values: np.ndarray, edges: Sequence[int]) -> np.ndarray:
    counts = np.histogram(values, bins=np.asarray(edges))[0].astype(float)
    return counts / max(1, counts.sum())


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    return float(0.5 * np.abs(p - q).sum())


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs."""
    if not len(a) or not len(b):
        return float("nan")
    grid = np.union1d(a, b)
    cdf_a = np.searchsorted(np.sort(a), grid, side="right") / len(a)
    cdf_b = np.searchsorted(np.sort(b), grid, side="right") / len(b)
    return float(np.abs(cdf_a - cdf_b).max())


def _compare_binned(samples: np.ndarray, corpus: np.ndarray, edges: Sequence[int]) -> dict:
    """TV on fixed bins and KS between a sampled and the corpus's distribution of one quantity."""
    return {
        "tv": total_variation(_hist(samples, edges), _hist(corpus, edges)),
        "ks": ks_statistic(samples, corpus),
        "sample_mean": float(samples.mean()) if len(samples) else float("nan"),
        "corpus_mean": float(corpus.mean()),
        "bins": list(edges),
        "sample_hist": _hist(samples, edges).tolist(),
        "corpus_hist": _hist(corpus, edges).tolist(),
    }


def compare_distributions(
    samples: Sequence[EpisodeSummary], corpus_ticks: np.ndarray, corpus_scores: np.ndarray, corpus_ends: np.ndarray, max_ticks: int
) -> dict:
    """TV (binned) and KS distances of sampled length/score/end-reason distributions from the corpus's."""
    s_ticks = np.array([s.ticks for s in samples])
    s_scores = np.array([s.score for s in samples])
    s_ends = np.array([END_LABELS.index(s.end) for s in samples])
    tick_edges = [*range(0, max_ticks + 1, TICK_BIN), max_ticks + 1]
    if tick_edges[-2] != max_ticks:
        tick_edges.insert(-1, max_ticks)  # a bin of its own for episodes that time out
    end_p = np.bincount(s_ends, minlength=len(END_LABELS)) / max(1, len(s_ends))
    end_q = np.bincount(corpus_ends, minlength=len(END_LABELS)) / max(1, len(corpus_ends))
    return {
        "samples": len(samples),
        "corpus_episodes": len(corpus_ticks),
        "length_ticks": _compare_binned(s_ticks, corpus_ticks, tick_edges),
        "score": _compare_binned(s_scores, corpus_scores, SCORE_BINS),
        "end_reason": {
            "tv": total_variation(end_p, end_q),
            "labels": END_LABELS,
            "sample": end_p.tolist(),
            "corpus": end_q.tolist(),
        },
    }


# ---------------------------------------------------------------- teacher-forced rule tokens

CATEGORIES = ["outcome", "move", "grow", "score", "spawn_presence", "flow", "keyframe"]


def rule_determined_positions(tokens: Sequence[str]) -> list[tuple[int, str]]:
    """(position, category) of every token the rules fix given the history and the input.

    Not determined: the agent's INPUT_d, the random food cells after FOOD_SPAWN, and
    the first keyframe (a random start). Everything else is, including which token
    follows a tick (TICK, SNAP, TIMEOUT, EOS).
    """
    out: list[tuple[int, str]] = []
    for item in parse(tokens):
        if isinstance(item, Keyframe):
            continue
        assert isinstance(item, Tick)
        p = item.positions
        out.append((p["outcome"], "outcome"))
        if "move" in p:
            if item.outcome == "EAT":
                out.append((p["move"] - 1, "outcome"))
            out += [(p["move"], "move"), (p["move"] + 1, "move")]
        if "grow" in p:
            out += [(p["grow"], "grow"), (p["grow"] + 1, "grow"), (p["grow"] + 2, "spawn_presence")]
            out += [(p["score"] - 1, "score"), (p["score"], "score")] if "spawn" in p else [(p["score"], "score")]
        if item.keyframe is not None:
            out += [(i, "keyframe") for i in range(item.keyframe.start + 1, item.keyframe.end)]
        if item.end < len(tokens):
            out.append((item.end if item.keyframe is None else item.keyframe.start, "flow"))
        if "end" in p:
            out.append((p["end"], "flow"))
    return sorted(set(out))


@torch.no_grad()
def teacher_forced(model: GameGPT, episodes: Sequence[Sequence[int]], tokens: Sequence[Sequence[str]], batch_size: int = 16) -> dict:
    """Argmax accuracy and mean probability of the true token at every rule-determined position.

    `outcomes` breaks the tick's first outcome token (the one right after INPUT_d) down by
    what the rules say it is: a model can be 97% right on outcomes while missing most
    eats and every self-collision, because plain moves are over 90% of ticks.

    Episodes longer than the model's context are read in windows that overlap by half a
    context; each position is scored once, with as much history as the window allows.
    """
    model.eval()
    device = next(model.parameters()).device
    context = model.config.block_size
    hits: dict[str, list[float]] = {c: [] for c in CATEGORIES}
    probs: dict[str, list[float]] = {c: [] for c in CATEGORIES}
    tick_id = model.config.tick_id
    kinds: dict[str, list[tuple[float, float]]] = {}  # true tick outcome -> (hit, probability) per tick
    jobs: list[tuple[list[int], int, list[tuple[int, str, str]], int]] = []  # (window ids, start, targets, ticks before)
    for ids, toks in zip(episodes, tokens):
        # a third field names the tick outcome at the token after INPUT_d, for the breakdown by kind
        targets = [
            (p, c, toks[p] if c == "outcome" and toks[p - 1].startswith("INPUT_") else "") for p, c in rule_determined_positions(toks)
        ]
        ids = list(ids)
        step = max(1, context // 2)
        start, scored_to = 0, 1
        while True:
            end = min(len(ids), start + context)
            mine = [t for t in targets if scored_to <= t[0] < end]
            jobs.append((ids[start:end], start, mine, sum(t == tick_id for t in ids[:start])))
            scored_to = end
            if end == len(ids):
                break
            start += step
    for first in range(0, len(jobs), batch_size):
        chunk = jobs[first : first + batch_size]
        width = max(len(w) for w, _, _, _ in chunk)
        batch = torch.zeros(len(chunk), width, dtype=torch.long, device=device)
        for i, (w, _, _, _) in enumerate(chunk):
            batch[i, : len(w)] = torch.tensor(w, device=device)
        cache = model.new_cache(len(chunk), width)  # carries each window's game clock (ticks before it)
        cache.ticks = torch.tensor([ticks_before for _, _, _, ticks_before in chunk], device=device)
        logp = torch.log_softmax(model(batch, cache=cache)[0].float(), -1)
        for i, (w, start, mine, _) in enumerate(chunk):
            for p, c, kind in mine:
                row = logp[i, p - start - 1]  # the logits at p-1 predict token p
                hit, prob = float(row.argmax() == w[p - start]), float(row[w[p - start]].exp())
                hits[c].append(hit)
                probs[c].append(prob)
                if kind:
                    kinds.setdefault(kind, []).append((hit, prob))
    per = {
        c: {
            "count": len(hits[c]),
            "accuracy": float(np.mean(hits[c])) if hits[c] else float("nan"),
            "mean_prob": float(np.mean(probs[c])) if probs[c] else float("nan"),
        }
        for c in CATEGORIES
    }
    all_hits = [h for c in CATEGORIES for h in hits[c]]
    all_probs = [p for c in CATEGORIES for p in probs[c]]
    return {
        "episodes": len(episodes),
        "positions": len(all_hits),
        "accuracy": float(np.mean(all_hits)) if all_hits else float("nan"),
        "mean_prob": float(np.mean(all_probs)) if all_probs else float("nan"),
        "categories": per,
        "outcomes": {
            kind: {"count": len(v), "accuracy": float(np.mean([h for h, _ in v])), "mean_prob": float(np.mean([q for _, q in v]))}
            for kind, v in kinds.items()
        },
    }
